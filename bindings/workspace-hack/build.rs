// Empty: a build script is what gives the `[build-dependencies]` of Cargo.toml a place in the
// build, so that their features reach the proc-macro crates (see Cargo.toml).
fn main() {}
