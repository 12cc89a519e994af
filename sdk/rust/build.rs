//! Generates the wire types and the Referee and Arena (lobby) clients from the repository's proto/ at
//! build time, with the protoc shipped in the `protoc-bin-vendored` crate: building a
//! bot needs only cargo.

use std::env;
use std::error::Error;
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn Error>> {
    let manifest_dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR")?);
    let proto_root = manifest_dir.join("../../proto");
    let protos = [
        proto_root.join("spite/v1/game.proto"),
        proto_root.join("spite/v1/referee.proto"),
        proto_root.join("spite/v1/arena.proto"),
    ];
    for proto in &protos {
        if !proto.is_file() {
            return Err(format!("{} is missing: the SDK builds from a checkout of Spite Arena", proto.display()).into());
        }
        println!("cargo:rerun-if-changed={}", proto.display());
    }
    // The vendored protoc, so that the generated code is the same on every machine; a
    // platform it has no binary for falls back to $PROTOC.
    match protoc_bin_vendored::protoc_bin_path() {
        // SAFETY: a build script is single-threaded; nothing else reads the environment now.
        Ok(protoc) => unsafe { env::set_var("PROTOC", protoc) },
        Err(error) if env::var_os("PROTOC").is_none() => {
            return Err(
                format!("no protoc: protoc-bin-vendored has none for this platform ({error}); set PROTOC").into()
            );
        }
        Err(_) => {}
    }
    tonic_prost_build::configure()
        .build_client(true)
        // The server side is generated too (it needs no extra tonic feature): the tests
        // stand up a real referee double with it.
        .build_server(true)
        .build_transport(false)
        .compile_protos(&protos, &[proto_root])?;
    Ok(())
}
