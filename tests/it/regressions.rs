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

// --- token_reader findings: i64 arithmetic on values read from disk or the network -------------

use withings_mcp::store::pending;
use withings_mcp::store::tokens::{self, Grant, Tokens};

const NOW: i64 = 1_764_500_000;

/// A private token file holding `body`, in a fresh HOME.
fn token_home(body: &str) -> TempHome {
    use std::os::unix::fs::PermissionsExt;
    let home = TempHome::new("regress-tok");
    std::fs::create_dir_all(home.state_dir()).unwrap();
    std::fs::set_permissions(home.state_dir(), std::fs::Permissions::from_mode(0o700)).unwrap();
    std::fs::write(home.token_path(), body).unwrap();
    std::fs::set_permissions(home.token_path(), std::fs::Permissions::from_mode(0o600)).unwrap();
    home
}

/// fuzz/artifacts/token_reader: `{"access_token":"x","expires_at":-9223372036854775808}` made
/// `Tokens::fresh_at` (tokens.rs) and the connection status (tools/auth.rs) subtract with overflow:
/// a panic in debug builds, a wrapped "fresh for ever" in release.
#[test]
fn extreme_token_expiry_reads_as_stale_and_never_crashes_the_binary() {
    for expires_at in [i64::MIN, i64::MIN + 1, -1, i64::MAX] {
        let t = Tokens {
            access_token: "a".into(),
            refresh_token: "r".into(),
            expires_at,
            scope: String::new(),
            userid: None,
            token_type: "Bearer".into(),
            created_at: 0,
        };
        assert_eq!(t.fresh_at(NOW), expires_at == i64::MAX, "expires_at {expires_at}");
        let body = format!(r#"{{"access_token":"x","refresh_token":"y","expires_at":{expires_at}}}"#);
        let home = token_home(&body);
        for tool in ["withings_connection_status", "withings_list_body_measures"] {
            let out = Command::new(bin())
                .args(["call", tool])
                .env_clear()
                .env("HOME", &home.dir)
                .env("WITHINGS_CLIENT_ID", "id")
                .env("WITHINGS_CLIENT_SECRET", "secret")
                // Nothing listens on the discard port: a data call fails fast, without retries.
                .env("WITHINGS_API_URL", "http://127.0.0.1:9")
                .env("WITHINGS_NO_RETRY", "1")
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(!stderr.contains("panicked"), "{tool} with expires_at {expires_at}: {stderr}");
            assert!(matches!(out.status.code(), Some(0 | 1)), "{tool}: {:?} {stderr}", out.status);
            let v: Value = serde_json::from_slice(&out.stdout).unwrap();
            assert!(v.is_object(), "{tool}: {v}");
        }
    }
}

/// A token answer's `expires_in` is any i64 from the network; merging must not overflow.
#[test]
fn extreme_expires_in_from_the_token_endpoint_saturates() {
    let cases = [(i64::MAX, i64::MAX, true), (i64::MIN, i64::MIN + NOW, false), (10_800, NOW + 10_800, true)];
    for (expires_in, want_at, fresh) in cases {
        let grant = Grant {
            access_token: Some("a".into()),
            refresh_token: Some("r".into()),
            expires_in: Some(expires_in),
            ..Grant::default()
        };
        let t = tokens::merge(None, &grant, NOW).unwrap();
        assert_eq!(t.expires_at, want_at, "expires_in {expires_in}");
        assert_eq!(t.fresh_at(NOW), fresh, "expires_in {expires_in}");
    }
}

/// The pending sign-in file next to the token file: a corrupt or future `created_at` is just stale.
#[test]
fn extreme_pending_state_age_is_stale_not_an_overflow() {
    let home = token_home("{}");
    let cases =
        [(i64::MIN, false), (NOW - 60, true), (NOW - 3_600, false), (NOW + 60, false), (i64::MAX, false)];
    for (created_at, want) in cases {
        let path = pending::path(&home.token_path());
        std::fs::write(&path, format!(r#"{{"pending":[{{"state":"s","created_at":{created_at}}}]}}"#))
            .unwrap();
        assert_eq!(pending::states(&home.token_path(), NOW) == ["s"], want, "created_at {created_at}");
    }
}
