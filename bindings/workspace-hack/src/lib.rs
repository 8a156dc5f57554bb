//! Holds no code: see its Cargo.toml. A binding depends on it only for the dependency features
//! it turns on, so that `cargo build -p <binding>` and `cargo test --workspace` compile
//! idmint-core and its dependencies once, as one copy.
