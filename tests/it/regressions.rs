//! Inputs found or kept by fuzzing (`make fuzz`, targets in fuzz/fuzz_targets/), replayed against
//! the real binary or the library function so that a fixed crash stays fixed. The committed
//! fuzz seeds are replayed too: each is a session the dispatcher must answer line by line.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::fake::{TempHome, bin};

/// Runs `withings-mcp --demo` (stdio MCP) with `input` on stdin in an empty HOME; returns the exit
/// code and the stdout lines.
fn serve_stdio(input: &[u8]) -> (i32, Vec<String>) {
    let home = TempHome::new("regress");
    let mut child = Command::new(bin())
        .arg("--demo")
        .env_clear()
        .env("HOME", &home.dir)
        .env("WITHINGS_MCP_NOW", "1764500000")
        .env("WITHINGS_TZ", "UTC")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let data = input.to_vec();
    // Written from a thread so that a large reply cannot deadlock against a full stdin pipe.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&data);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    let lines = String::from_utf8_lossy(&out.stdout).lines().map(str::to_string).collect();
    (out.status.code().unwrap_or(-1), lines)
}

/// Every reply line is one JSON-RPC 2.0 response object (or a batch of them).
fn assert_replies(lines: &[String], what: &str) {
    for line in lines {
        let v: Value =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("{what}: not JSON ({e}): {line}"));
        let items = match &v {
            Value::Array(items) => items.clone(),
            other => vec![other.clone()],
        };
        for item in items {
            assert_eq!(item["jsonrpc"], "2.0", "{what}: {item}");
            assert!(item.get("result").is_some() != item.get("error").is_some(), "{what}: {item}");
        }
    }
}

#[test]
fn committed_jsonrpc_fuzz_seeds_are_answered_by_the_binary() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds/jsonrpc_line");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let input = std::fs::read(&path).unwrap();
        let (code, lines) = serve_stdio(&input);
        let what = path.display().to_string();
        assert_eq!(code, 0, "{what}: exit code");
        // One reply per request line (notifications get none), so never more lines than input.
        let requests = input.split(|b| *b == b'\n').filter(|l| !l.is_empty()).count();
        assert!(!lines.is_empty() && lines.len() <= requests, "{what}: {} replies", lines.len());
        assert_replies(&lines, &what);
        seen += 1;
    }
    assert!(seen >= 5, "expected the committed seeds in {}", dir.display());
}
