//! `idmint-jvm-bindgen`: uniffi-bindgen-java 0.3.1 (the Java generator for `bindings/jvm`, on
//! uniffi 0.31.0), built inside the workspace so CI compiles it next to the cdylib in `target/jvm`
//! instead of running `cargo install`. Same command line as `uniffi-bindgen-java`, e.g.
//! `idmint-jvm-bindgen generate --no-format --out-dir DIR target/jvm/release/libidmint_jvm.so`.
//! Run by `java/build-native.sh`.

fn main() {
    // As upstream's `main() -> anyhow::Result<()>`: the error chain on stderr, exit status 1.
    if let Err(e) = uniffi_bindgen_java::run_main() {
        eprintln!("Error: {e:?}");
        std::process::exit(1);
    }
}
