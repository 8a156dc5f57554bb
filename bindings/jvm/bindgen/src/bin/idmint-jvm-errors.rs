//! `idmint-jvm-errors --out-dir DIR`: writes the Java exception classes of idmint-core's error
//! kinds (see the library) to `DIR/io/idmint/`. Run by `java/build-native.sh`.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let ["--out-dir", dir] = args.iter().map(String::as_str).collect::<Vec<_>>()[..] else {
        eprintln!("usage: idmint-jvm-errors --out-dir DIR");
        std::process::exit(2);
    };
    if let Err(e) = idmint_jvm_bindgen::write_java_errors(std::path::Path::new(dir)) {
        eprintln!("Error: writing the exception classes to {dir}: {e}");
        std::process::exit(1);
    }
}
