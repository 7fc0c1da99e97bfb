//! Build script: the MCP Apps dashboard page (src/tools/dashboard.html, 21.7 KB of text) is
//! compiled in as a zlib stream from the project's own encoder (src/image/deflate.rs), about
//! 8 KB; tools/resources.rs inflates it when the page is read. The static binary is 10 KB
//! smaller, and the page served is the file, byte for byte (a unit test compares them).
// Cargo reads a build script's instructions from its stdout.
#![allow(clippy::print_stdout)]

#[allow(dead_code)]
#[path = "src/image/deflate.rs"]
mod deflate;

use std::path::PathBuf;

fn main() -> std::io::Result<()> {
    println!("cargo::rerun-if-changed=src/tools/dashboard.html");
    println!("cargo::rerun-if-changed=src/image/deflate.rs");
    let page = std::fs::read("src/tools/dashboard.html")?;
    let out = std::env::var_os("OUT_DIR").ok_or_else(|| std::io::Error::other("OUT_DIR is not set"))?;
    std::fs::write(PathBuf::from(out).join("dashboard.html.zlib"), deflate::zlib(&page))
}
