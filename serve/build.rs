//! Compiles the vendored Bigtable protocol (`proto/`) with protox and
//! generates the message types and gRPC server traits with tonic. Writes
//! the descriptor set too, for proto3 JSON transcoding at run time.
//! Nothing is downloaded.

use std::path::PathBuf;

const ROOTS: [&str; 3] = [
    "google/bigtable/v2/bigtable.proto",
    "google/bigtable/admin/v2/bigtable_table_admin.proto",
    "google/bigtable/admin/v2/bigtable_instance_admin.proto",
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-changed=proto");
    let files = protox::compile(ROOTS, ["proto"])?;
    let out = PathBuf::from(std::env::var("OUT_DIR")?);
    std::fs::write(
        out.join("descriptors.bin"),
        prost::Message::encode_to_vec(&files),
    )?;
    let mut config = prost_build::Config::new();
    config.enable_type_names();
    tonic_prost_build::configure()
        .build_client(false)
        .build_transport(false)
        .generate_default_stubs(true)
        .include_file("protocol.rs")
        .compile_fds_with_config(files, config)?;
    Ok(())
}
