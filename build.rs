//! Build script: the largest texts compiled in are stored as zlib streams from the project's own
//! encoder (src/image/deflate.rs) and inflated when read (src/image/inflate.rs): the MCP Apps
//! dashboard page (21.7 KB of text, about 8 KB deflated), the command line's help texts (7.7 KB,
//! 3 KB deflated) and the tool catalogue (every tool's description and schemas: 66 KB of JSON
//! once compacted, about 6 KB deflated). What is read is the file, byte for byte (unit tests
//! compare), but for the catalogue, whose JSON texts lose the whitespace between their tokens.
// Cargo reads a build script's instructions from its stdout.
#![allow(clippy::print_stdout)]

#[allow(dead_code)]
#[path = "src/image/deflate.rs"]
mod deflate;

use std::path::PathBuf;

/// Each file, written to OUT_DIR as `<file name>.zlib`.
const DEFLATED: &[&str] = &["src/tools/dashboard.html", "src/help.txt", "src/tools/schemas.txt"];

/// The file whose sections (`@@ KEY` lines, each followed by one JSON text) are compacted.
const CATALOGUE: &str = "src/tools/schemas.txt";

fn main() -> std::io::Result<()> {
    println!("cargo::rerun-if-changed=src/image/deflate.rs");
    let out = PathBuf::from(
        std::env::var_os("OUT_DIR").ok_or_else(|| std::io::Error::other("OUT_DIR is not set"))?,
    );
    for path in DEFLATED {
        println!("cargo::rerun-if-changed={path}");
        let name = path.rsplit('/').next().unwrap_or(path);
        let mut text = std::fs::read(path)?;
        if *path == CATALOGUE {
            text = compact_sections(&String::from_utf8_lossy(&text)).into_bytes();
        }
        std::fs::write(out.join(format!("{name}.zlib")), deflate::zlib(&text))?;
    }
    Ok(())
}

/// The catalogue with each section's JSON written compactly, as serde_json writes it: the server
/// copies these texts into `tools/list` as they are (a unit test compares with serde_json).
fn compact_sections(text: &str) -> String {
    let mut parts = text.split("\n@@ ");
    let mut out = parts.next().unwrap_or_default().to_string();
    for part in parts {
        let (key, json) = part.split_once('\n').unwrap_or((part, ""));
        out.push_str(&format!("\n@@ {key}\n{}", compact(json)));
    }
    out
}

/// JSON text without the whitespace outside its strings.
fn compact(json: &str) -> String {
    let (mut in_string, mut escaped) = (false, false);
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        match (in_string, escaped, c) {
            (true, true, _) => escaped = false,
            (true, false, '\\') => escaped = true,
            (true, false, '"') | (false, _, '"') => in_string = !in_string,
            (false, _, c) if c.is_ascii_whitespace() => continue,
            _ => {}
        }
        out.push(c);
    }
    out
}
