//! Build script: the largest texts compiled in are stored as zlib streams from the project's own
//! encoder (src/image/deflate.rs) and inflated when read (src/image/inflate.rs): the MCP Apps
//! dashboard page (21.7 KB of text, about 8 KB deflated), the briefs' output schemas (23 KB of
//! JSON, under 3 KB deflated), the command line's help texts (7.7 KB, 3 KB deflated) and the
//! tools' schemas (13 KB of JSON, under 3 KB deflated). What is read is the file, byte for byte
//! (unit tests compare).
// Cargo reads a build script's instructions from its stdout.
#![allow(clippy::print_stdout)]

#[allow(dead_code)]
#[path = "src/image/deflate.rs"]
mod deflate;

use std::path::PathBuf;

/// Each file, written to OUT_DIR as `<file name>.zlib`.
const DEFLATED: &[&str] = &[
    "src/tools/dashboard.html",
    "src/domain/summary/daily_schema.json",
    "src/domain/summary/weekly_schema.json",
    "src/help.txt",
    "src/tools/schemas.txt",
];

fn main() -> std::io::Result<()> {
    println!("cargo::rerun-if-changed=src/image/deflate.rs");
    let out = PathBuf::from(
        std::env::var_os("OUT_DIR").ok_or_else(|| std::io::Error::other("OUT_DIR is not set"))?,
    );
    for path in DEFLATED {
        println!("cargo::rerun-if-changed={path}");
        let name = path.rsplit('/').next().unwrap_or(path);
        std::fs::write(out.join(format!("{name}.zlib")), deflate::zlib(&std::fs::read(path)?))?;
    }
    Ok(())
}
