//! Compiles proto/idmint/v1/idmint.proto into the gRPC service code, with protox (a protobuf
//! compiler in Rust), so a build needs no `protoc` on the machine.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let proto = "proto/idmint/v1/idmint.proto";
    println!("cargo:rerun-if-changed={proto}");
    let files = protox::compile([proto], ["proto"])?;
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR")?);
    // The descriptor set is also served by gRPC reflection (src/grpc.rs).
    std::fs::write(
        out.join("idmint_descriptor.bin"),
        prost::Message::encode_to_vec(&files),
    )?;
    tonic_prost_build::configure()
        .build_client(false)
        .compile_fds(files)?;
    Ok(())
}
