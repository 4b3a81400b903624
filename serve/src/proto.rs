//! The generated Bigtable protocol: messages and gRPC server traits
//! (`build.rs` makes them from the vendored `proto/` files).

#![allow(missing_docs, dead_code, clippy::all, clippy::pedantic, rustdoc::all)]

include!(concat!(env!("OUT_DIR"), "/protocol.rs"));

/// The encoded `FileDescriptorSet` of every file above, for transcoding.
pub const DESCRIPTORS: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/descriptors.bin"));
