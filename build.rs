//! Build script: the largest texts compiled in are stored as zlib streams from the project's own
//! encoder (src/image/deflate.rs) and inflated when read (src/image/inflate.rs): the MCP Apps
//! dashboard page (21.7 KB of text, about 8 KB deflated), the command line's help texts (7.7 KB,
//! 3 KB deflated) and the tool catalogue (every tool's description and schemas: 66 KB of JSON
//! once compacted, about 6 KB deflated). What is read is the file, byte for byte (unit tests
//! compare), but for the catalogue, whose JSON texts lose the whitespace between their tokens
//! and whose input schemas go into a stream of their own (`schemas.input.zlib`): a tool call
//! reads its input schema only, and inflating 17 KB costs a quarter of inflating 66 KB.
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
            let (inputs, rest) = compact_sections(&String::from_utf8_lossy(&text));
            std::fs::write(out.join("schemas.input.zlib"), deflate::zlib(inputs.as_bytes()))?;
            text = rest.into_bytes();
        }
        std::fs::write(out.join(format!("{name}.zlib")), deflate::zlib(&text))?;
    }
    Ok(())
}

/// The catalogue's input schemas, then its other sections, each section's JSON written
/// compactly, as serde_json writes it: the server copies these texts into `tools/list` as they
/// are (a unit test compares with serde_json).
fn compact_sections(text: &str) -> (String, String) {
    let (mut inputs, mut rest) = (String::new(), String::new());
    for part in text.split("\n@@ ").skip(1) {
        let (key, json) = part.split_once('\n').unwrap_or((part, ""));
        let to = if key.ends_with(".input") { &mut inputs } else { &mut rest };
        to.push_str(&format!("\n@@ {key}\n{}", compact(json)));
    }
    (inputs, rest)
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
