//! Compiles proto/idmint/v1/idmint.proto into the gRPC service code, with protox (a protobuf
//! compiler in Rust), so a build needs no `protoc` on the machine; and the client code the
//! streaming bench's example uses.

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
        .compile_fds(files.clone())?;
    // A client too, for the streaming bench (examples/stream_ids.rs), in a directory of its
    // own; without tonic's transport (the server builds tonic without it), over any HTTP/2
    // connection the example hands it.
    let client = out.join("client");
    std::fs::create_dir_all(&client)?;
    tonic_prost_build::configure()
        .build_server(false)
        .build_transport(false)
        .out_dir(&client)
        .compile_fds(files)?;
    Ok(())
}
