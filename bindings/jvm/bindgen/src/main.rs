//! `idmint-jvm-bindgen`: uniffi-bindgen-java 0.3.1 (the Java generator for `bindings/jvm`, on
//! uniffi 0.31.0), built inside the workspace so CI compiles it next to the cdylib in `target/jvm`
//! instead of running `cargo install`. Same command line as `uniffi-bindgen-java`, e.g.
//! `idmint-jvm-bindgen generate --no-format --out-dir DIR target/jvm/release/libidmint_jvm.so`,
//! plus `idmint-jvm-bindgen errors --out-dir DIR`, which writes the exception classes of the
//! core's error kinds (see the library). Run by `java/build-native.sh`.

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("errors") {
        let rest: Vec<&str> = args[2..].iter().map(String::as_str).collect();
        let ["--out-dir", dir] = rest[..] else {
            eprintln!("usage: idmint-jvm-bindgen errors --out-dir DIR");
            std::process::exit(2);
        };
        if let Err(e) = idmint_jvm_bindgen::write_java_errors(std::path::Path::new(dir)) {
            eprintln!("Error: writing the exception classes to {dir}: {e}");
            std::process::exit(1);
        }
        return;
    }
    // As upstream's `main() -> anyhow::Result<()>`: the error chain on stderr, exit status 1.
    if let Err(e) = uniffi_bindgen_java::run_main() {
        eprintln!("Error: {e:?}");
        std::process::exit(1);
    }
}
