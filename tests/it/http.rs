//! The loopback HTTP server, end to end through the real binary over raw TCP.
// Test helpers outside #[test] functions: failing loudly is the point.
#![allow(clippy::unwrap_used, clippy::panic)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::os::unix::fs::PermissionsExt;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

#[cfg(feature = "conformance")]
use crate::stdio::CONFORMANCE;
use crate::stdio::command;

/// The bearer token the test servers are started with (`WITHINGS_MCP_HTTP_TOKEN`).
pub const TOKEN: &str = "it-http-token-6f1c0b7e2a";
pub const AUTH: (&str, &str) = ("Authorization", "Bearer it-http-token-6f1c0b7e2a");

/// A running `--http --port 0` server, killed on drop.
pub struct Server {
    pub child: Child,
    pub port: u16,
    /// What it printed on stderr before its "listening on" line.
    pub notes: Vec<String>,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `withings-mcp --http --port 0` with extra environment and the test token.
pub fn start(env: &[(&str, &str)]) -> Server {
    let mut cmd = command(env);
    if !env.iter().any(|(k, _)| *k == "WITHINGS_MCP_HTTP_TOKEN") {
        cmd.env("WITHINGS_MCP_HTTP_TOKEN", TOKEN);
    }
    launch(cmd.args(["--http", "--port", "0"]))
}

/// Spawns a prepared server command and reads its port from the "listening on" line on stderr.
pub fn launch(cmd: &mut Command) -> Server {
    let mut child = cmd.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut notes = Vec::new();
    let line = loop {
        let mut line = String::new();
        stderr.read_line(&mut line).unwrap();
        if line.is_empty() || line.contains("listening on") {
            break line;
        }
        notes.push(line);
    };
    // Keep draining so that later diagnostics can never block the server on a full pipe.
    std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
    let port = line
        .split("listening on http://")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .and_then(|addr| addr.rsplit(':').next())
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no URL in {line:?} after {notes:?}"));
    Server { child, port, notes }
}

/// The status code and body of one exchange; None when the server closed without answering.
pub fn exchange(port: u16, raw: &[u8]) -> Option<(u16, Vec<u8>)> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    // The server may answer (and close) before reading everything we send.
    let _ = s.write_all(raw);
    // Nothing more is coming: a server still waiting for a line end sees EOF.
    let _ = s.shutdown(Shutdown::Write);
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    parse(&out)
}

fn parse(out: &[u8]) -> Option<(u16, Vec<u8>)> {
    let split = out.windows(4).position(|w| w == b"\r\n\r\n")?;
    let head = String::from_utf8_lossy(&out[..split]);
    let status = head.split(' ').nth(1)?.parse().ok()?;
    Some((status, out[split + 4..].to_vec()))
}

struct Response {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Response {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&self.body)))
    }
}

const JSON_POST: &[(&str, &str)] =
    &[("Content-Type", "application/json"), ("Accept", "application/json, text/event-stream")];

/// One raw HTTP/1.1 exchange. `Host` defaults to the server's address and `Authorization` to
/// the test token; a header given with an empty value is left out.
fn http(port: u16, method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> Response {
    let s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    send(&mut BufReader::new(s), port, method, path, headers, body)
}

/// One request and its answer on an open connection (`r` wraps it).
fn send(
    r: &mut BufReader<TcpStream>,
    port: u16,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Response {
    let mut head = format!("{method} {path} HTTP/1.1\r\n");
    for (name, default) in [("Host", format!("127.0.0.1:{port}")), (AUTH.0, AUTH.1.to_string())] {
        if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case(name)) {
            head.push_str(&format!("{name}: {default}\r\n"));
        }
    }
    for (k, v) in headers.iter().filter(|(_, v)| !v.is_empty()) {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
    r.get_mut().write_all(head.as_bytes()).unwrap();
    r.get_mut().write_all(body).unwrap();
    let mut status_line = String::new();
    r.read_line(&mut status_line).unwrap();
    let status = status_line
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or_else(|| panic!("{status_line:?}"));
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        r.read_line(&mut line).unwrap();
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let (k, v) = line.split_once(':').unwrap();
        headers.push((k.trim().to_string(), v.trim().to_string()));
    }
    let len: usize = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
        .map_or(0, |(_, v)| v.parse().unwrap());
    let mut body = vec![0; len];
    r.read_exact(&mut body).unwrap();
    let resp = Response { status, headers, body };
    // Either kept for another request, for a time the client is told, or closed.
    let closes = resp.header("Connection") == Some("close");
    let kept = resp.header("Keep-Alive") == Some("timeout=5");
    assert!(closes != kept, "{method} {path}: {:?}", resp.headers);
    resp
}

fn post(port: u16, headers: &[(&str, &str)], body: &Value) -> Response {
    let mut all = JSON_POST.to_vec();
    all.extend_from_slice(headers);
    http(port, "POST", "/mcp", &all, body.to_string().as_bytes())
}

fn initialize() -> Value {
    json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"it","version":"1"}}})
}

#[test]
fn refuses_to_bind_a_non_loopback_address() {
    type Case<'a> = (&'a [&'a str], &'a [(&'a str, &'a str)]);
    let cases: [Case; 3] = [
        (&["--http", "--host", "0.0.0.0", "--port", "0"], &[]),
        (&["serve", "--http", "--host", "192.0.2.1", "--port", "0"], &[]),
        (&["--http"], &[("WITHINGS_MCP_HOST", "0.0.0.0"), ("WITHINGS_MCP_PORT", "0")]),
    ];
    for (args, env) in cases {
        let (code, stderr) = refused_start(command(env).args(args));
        assert_eq!(code, Some(1), "{args:?}: {stderr}");
        assert!(stderr.starts_with("withings-mcp: ") && stderr.contains("loopback"), "{args:?}: {stderr}");
        assert!(!stderr.contains("listening"), "{stderr}");
    }
}

/// Runs a server command that must exit on its own, before serving; its exit code and stderr.
fn refused_start(cmd: &mut Command) -> (Option<i32>, String) {
    let mut child = cmd.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > Duration::from_secs(10) {
            let _ = child.kill();
            panic!("{cmd:?} kept running: it started serving");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut stderr = String::new();
    child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
    (status.code(), stderr)
}

/// CONTRACT §8.3: `POST /mcp` needs the bearer token (401 with `WWW-Authenticate: Bearer`
/// without it or with a wrong one); `GET /health` stays open; the token is never echoed.
#[test]
fn post_mcp_needs_the_bearer_token_and_health_does_not() {
    let server = start(&[]);
    let port = server.port;
    let list = json!({"jsonrpc":"2.0","id":1,"method":"tools/list"});
    let revoke = json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"withings_revoke_access","arguments":{"explicit_user_intent":true}}});
    type Case<'a> = (&'a [(&'a str, &'a str)], Option<&'a str>);
    let refused: [Case; 5] = [
        (&[("Authorization", "")], None),
        (&[("Authorization", "Bearer not-the-token")], Some("invalid_token")),
        (&[("Authorization", &AUTH.1[..AUTH.1.len() - 1])], Some("invalid_token")),
        (&[("Authorization", "Basic aXQ6aXQ=")], Some("invalid_request")),
        (&[("Authorization", TOKEN)], Some("invalid_request")),
    ];
    for (headers, error) in refused {
        for body in [&list, &revoke] {
            let r = post(port, headers, body);
            assert_eq!(r.status, 401, "{headers:?}");
            let challenge = r.header("WWW-Authenticate").unwrap_or_default();
            assert!(challenge.starts_with("Bearer "), "{challenge}");
            assert_eq!(challenge.contains("error="), error.is_some(), "{challenge}");
            assert!(error.is_none_or(|e| challenge.contains(e)), "{challenge}");
            let text = String::from_utf8_lossy(&r.body);
            assert!(text.contains("unauthorized") && !text.contains(TOKEN), "{text}");
        }
    }
    let ok = post(port, &[], &list);
    assert_eq!(ok.status, 200);
    assert!(ok.json()["result"]["tools"].is_array());
    let lower = post(port, &[("Authorization", &format!("bearer {TOKEN}"))], &list);
    assert_eq!(lower.status, 200, "the scheme is case-insensitive");
    let health = http(port, "GET", "/health", &[("Authorization", "")], b"");
    assert_eq!(health.status, 200);
    assert!(server.notes.iter().all(|n| !n.contains(TOKEN)), "a token from the environment is never shown");
}

/// `--no-token` serves without a token and says so on stderr at start.
#[test]
fn no_token_turns_the_check_off_and_says_so() {
    let home = crate::stdio::temp_home();
    let server = launch(command(&[]).env("HOME", &home).args(["--http", "--port", "0", "--no-token"]));
    assert!(server.notes.iter().any(|n| n.contains("--no-token")), "{:?}", server.notes);
    let r = post(server.port, &[("Authorization", "")], &json!({"jsonrpc":"2.0","id":1,"method":"ping"}));
    assert_eq!(r.status, 200);
    assert!(!home.join(".withings-mcp/http-token").exists(), "no token file is made with --no-token");
    let (code, stderr) = refused_start(command(&[]).args(["serve", "--no-token"]));
    assert_eq!(code, Some(2), "{stderr}");
}

/// The token file is made once (0600, in the 0700 directory), shown once on stderr, and reused;
/// a token file that others can read is refused with chmod advice and the token stays unshown.
#[test]
fn the_token_file_is_created_once_private_and_reused() {
    let home = crate::stdio::temp_home();
    let http_args = ["--http", "--port", "0"];
    let first = launch(command(&[]).env("HOME", &home).args(http_args));
    let path = home.join(".withings-mcp/http-token");
    let token = std::fs::read_to_string(&path).unwrap().trim().to_string();
    assert_eq!(token.len(), 64, "256 bits as hex");
    assert!(token.bytes().all(|b| b.is_ascii_hexdigit()));
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!((mode(&path), mode(&home.join(".withings-mcp"))), (0o600, 0o700));
    let shown: Vec<_> = first.notes.iter().filter(|n| n.contains(&token)).collect();
    assert_eq!(shown.len(), 1, "{:?}", first.notes);
    assert!(shown[0].contains("Authorization: Bearer"), "{}", shown[0]);
    let auth = format!("Bearer {token}");
    let ping = json!({"jsonrpc":"2.0","id":1,"method":"ping"});
    assert_eq!(post(first.port, &[("Authorization", &auth)], &ping).status, 200);
    assert_eq!(post(first.port, &[], &ping).status, 401, "the test token is not this server's");
    // The token appears in no answer, not even the privacy audit's list of files.
    let audit = json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"withings_privacy_audit","arguments":{}}});
    let r = post(first.port, &[("Authorization", &auth)], &audit);
    assert!(r.status == 200 && !String::from_utf8_lossy(&r.body).contains(&token));
    drop(first);

    let second = launch(command(&[]).env("HOME", &home).args(http_args));
    assert!(second.notes.iter().all(|n| !n.contains(&token)), "shown only once: {:?}", second.notes);
    assert_eq!(post(second.port, &[("Authorization", &auth)], &ping).status, 200, "the same token");
    drop(second);
    assert_eq!(std::fs::read_to_string(&path).unwrap().trim(), token, "reused, not replaced");

    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
    let (code, stderr) = refused_start(command(&[]).env("HOME", &home).args(http_args));
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("chmod 600") && stderr.contains("http-token"), "{stderr}");
    assert!(!stderr.contains(&token), "{stderr}");
}

#[test]
fn routes_statuses_and_headers() {
    let server = start(&[]);
    let port = server.port;

    let health = http(port, "GET", "/health", &[], b"");
    assert_eq!(health.status, 200);
    assert_eq!(health.json()["status"], "ok");
    assert_eq!(health.json()["name"], "withings-mcp");

    for method in ["GET", "DELETE", "PUT"] {
        let r = http(port, method, "/mcp", &[], b"");
        assert_eq!(r.status, 405, "{method}");
        assert_eq!(r.header("Allow"), Some("POST"));
    }
    assert_eq!(http(port, "GET", "/elsewhere", &[], b"").status, 404);

    let init = post(port, &[], &initialize());
    assert_eq!(init.status, 200);
    assert_eq!(init.header("Content-Type"), Some("application/json"));
    assert_eq!(init.json()["result"]["protocolVersion"], "2025-11-25");
    assert!(init.header("Mcp-Session-Id").is_none(), "stateless: no session id");

    let note = post(
        port,
        &[("MCP-Protocol-Version", "2025-11-25")],
        &json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
    );
    assert_eq!((note.status, note.body.len()), (202, 0));
    let response = post(port, &[], &json!({"jsonrpc":"2.0","id":9,"result":{}}));
    assert_eq!((response.status, response.body.len()), (202, 0));

    // Stateless: a fresh request with no initialize on this connection, and a session id is ignored.
    let list = post(
        port,
        &[("MCP-Protocol-Version", "2025-11-25"), ("Mcp-Session-Id", "abc")],
        &json!({"jsonrpc":"2.0","id":2,"method":"tools/list"}),
    );
    assert_eq!(list.status, 200);
    assert!(list.json()["result"]["tools"].is_array());

    let unknown = post(
        port,
        &[("MCP-Protocol-Version", "2025-11-25")],
        &json!({"jsonrpc":"2.0","id":3,"method":"nope"}),
    );
    assert_eq!((unknown.status, unknown.json()["error"]["code"].as_i64()), (200, Some(-32601)));

    let garbage = http(port, "POST", "/mcp", JSON_POST, b"{not json");
    assert_eq!((garbage.status, garbage.json()["error"]["code"].as_i64()), (400, Some(-32700)));

    let text =
        http(port, "POST", "/mcp", &[("Content-Type", "text/plain")], initialize().to_string().as_bytes());
    assert_eq!(text.status, 415);
    let sse_only = http(
        port,
        "POST",
        "/mcp",
        &[("Content-Type", "application/json"), ("Accept", "text/event-stream")],
        b"{}",
    );
    assert_eq!(sse_only.status, 406);

    let health = http(port, "GET", "/health", &[], b"");
    assert_eq!(health.status, 200, "still serving after every error");
}

/// HTTP/1.1 keep-alive: several requests on one connection, a refusal or `Connection: close`
/// ends it, and an idle one is closed after the time the answers announce. (Closing after every
/// answer made Node's fetch assert on a large answer it had not read yet: conformance
/// scenario server-sse-multiple-streams with a 64 KB tools/list.)
#[test]
fn connections_carry_several_requests_until_idle_or_closed() {
    let server = start(&[]);
    let port = server.port;
    let open = || {
        let s = TcpStream::connect(("127.0.0.1", port)).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        BufReader::new(s)
    };
    let closed = |r: &mut BufReader<TcpStream>| {
        let mut rest = Vec::new();
        r.read_to_end(&mut rest).is_ok() && rest.is_empty()
    };
    let list = json!({"jsonrpc":"2.0","id":2,"method":"tools/list"});
    let version = ("MCP-Protocol-Version", "2025-11-25");
    let mut all = JSON_POST.to_vec();
    all.push(version);

    let mut r = open();
    let first = send(&mut r, port, "POST", "/mcp", &all, list.to_string().as_bytes());
    assert_eq!((first.status, first.header("Keep-Alive")), (200, Some("timeout=5")));
    assert!(first.json()["result"]["tools"].is_array());
    let health = send(&mut r, port, "GET", "/health", &[], b"");
    assert_eq!((health.status, health.header("Keep-Alive")), (200, Some("timeout=5")));
    // A refusal closes: the server does not trust the rest of what this client sends.
    let refused = send(&mut r, port, "POST", "/mcp", &[("Content-Type", "text/plain")], b"{}");
    assert_eq!((refused.status, refused.header("Connection")), (415, Some("close")));
    assert!(closed(&mut r), "a refused request ends its connection");

    let mut r = open();
    let mut asked = all.clone();
    asked.push(("Connection", "close"));
    let last = send(&mut r, port, "POST", "/mcp", &asked, list.to_string().as_bytes());
    assert_eq!((last.status, last.header("Connection")), (200, Some("close")));
    assert!(closed(&mut r), "the client asked for Connection: close");

    let mut r = open();
    assert_eq!(send(&mut r, port, "GET", "/health", &[], b"").status, 200);
    let idle = Instant::now();
    assert!(closed(&mut r), "an idle connection is closed");
    assert!(
        idle.elapsed() >= Duration::from_secs(4),
        "closed after {:?}, before the announced 5 s",
        idle.elapsed()
    );
}

#[test]
fn host_and_origin_must_be_loopback() {
    let server = start(&[]);
    let port = server.port;
    let cases: &[(&[(&str, &str)], u16)] = &[
        (&[("Host", "evil.example.com")], 403),
        (&[("Host", "evil.example.com"), ("Origin", "http://evil.example.com")], 403),
        (&[("Origin", "http://evil.example.com")], 403),
        (&[("Origin", "null")], 403),
        (&[("Host", "localhost")], 200),
        (&[("Host", "[::1]:3000"), ("Origin", "http://localhost:6274")], 200),
        (&[("Origin", "https://127.0.0.1")], 200),
    ];
    for (headers, want) in cases {
        let r = post(port, headers, &initialize());
        assert_eq!(r.status, *want, "{headers:?}");
    }
}

#[test]
fn bodies_over_1_mib_get_413() {
    let server = start(&[]);
    let mut big = br#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":""#.to_vec();
    big.resize(1024 * 1024 + 100, b'a');
    big.extend_from_slice(b"\"}}");
    let r = http(server.port, "POST", "/mcp", JSON_POST, &big);
    assert_eq!(r.status, 413);
    assert!(r.json()["error"]["message"].as_str().unwrap().contains("limit"));
    let ping = post(server.port, &[], &json!({"jsonrpc":"2.0","id":2,"method":"ping"}));
    assert_eq!(ping.status, 200, "still serving");
}

/// Issue 11: a head that two HTTP readers could frame in two ways is refused with a 400 that
/// names the problem, the connection is closed, and the server keeps serving.
#[test]
fn ambiguous_framing_gets_400_and_the_server_keeps_serving() {
    let server = start(&[]);
    let port = server.port;
    let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let n = ping.len();
    let chunked = format!("{n:x}\r\n{ping}\r\n0\r\n\r\n");
    let cases = [
        (format!("Host: evil.example.com\r\nContent-Length: {n}\r\n\r\n{ping}"), "duplicate Host"),
        (format!("Content-Length: {n}\r\nContent-Length: {n}\r\n\r\n{ping}"), "duplicate Content-Length"),
        (format!("Content-Length: {n}\r\nContent-Length: 5\r\n\r\n{ping}"), "duplicate Content-Length"),
        (
            format!("Content-Length: {n}\r\nTransfer-Encoding: chunked\r\n\r\n{chunked}"),
            "both Content-Length and Transfer-Encoding",
        ),
        (format!("Content-Length: +{n}\r\n\r\n{ping}"), "decimal"),
        (format!("Content-Length: 0x{n:x}\r\n\r\n{ping}"), "decimal"),
        (format!("Content-Length:  5 5\r\n\r\n{ping}"), "decimal"),
        (format!("Transfer-Encoding: gzip, chunked\r\n\r\n{chunked}"), "exactly `chunked`"),
        (format!("Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n{chunked}"), "duplicate"),
    ];
    for (rest, why) in &cases {
        let raw = format!(
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n{rest}"
        );
        let (status, body) =
            exchange(port, raw.as_bytes()).unwrap_or_else(|| panic!("no answer to {rest:?}"));
        let message = serde_json::from_slice::<Value>(&body).unwrap()["error"]["message"].to_string();
        assert_eq!(status, 400, "{rest:?}: {message}");
        assert!(message.contains(why), "{rest:?}: {message}");
    }
    // The same request, framed once, is served; so is /health.
    let good = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {TOKEN}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n{chunked}"
    );
    assert_eq!(exchange(port, good.as_bytes()).map(|(s, _)| s), Some(200));
    assert_eq!(http(port, "GET", "/health", &[], b"").status, 200);
}

#[test]
fn protocol_version_header_is_validated() {
    let server = start(&[]);
    let ping = json!({"jsonrpc":"2.0","id":1,"method":"ping"});
    for version in ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"] {
        let r = post(server.port, &[("MCP-Protocol-Version", version)], &ping);
        assert_eq!(r.status, 200, "{version}");
    }
    for version in ["2099-01-01", "garbage"] {
        let r = post(server.port, &[("MCP-Protocol-Version", version)], &ping);
        assert_eq!(r.status, 400, "{version}");
        let body = r.json();
        assert_eq!(body["error"]["code"], -32022);
        assert!(body["error"]["data"]["supported"].as_array().unwrap().contains(&json!("2025-11-25")));
    }
    // Batches only in 2025-03-26 (which is also what an absent header means).
    let batch = json!([ping, {"jsonrpc":"2.0","id":2,"method":"ping"}]);
    assert_eq!(post(server.port, &[], &batch).json().as_array().map(Vec::len), Some(2));
    assert_eq!(
        post(server.port, &[("MCP-Protocol-Version", "2025-11-25")], &batch).json()["error"]["code"],
        -32600
    );
}

#[cfg(feature = "conformance")]
#[test]
fn the_2026_07_28_headers_must_match_the_body() {
    let server = start(&[CONFORMANCE]);
    let port = server.port;
    let meta = json!({"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}});
    let v = ("MCP-Protocol-Version", "2026-07-28");
    let call = json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_simple_text","arguments":{},"_meta":meta}});
    let list = json!({"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":meta}});

    let ok = post(port, &[v, ("Mcp-Method", "tools/call"), ("Mcp-Name", "test_simple_text")], &call);
    assert_eq!(ok.status, 200);
    assert_eq!(ok.json()["result"]["resultType"], "complete");
    assert_eq!(
        ok.json()["result"]["structuredContent"]["text"],
        "This is a simple text response for testing."
    );
    let b64 = post(
        port,
        &[v, ("Mcp-Method", "tools/call"), ("Mcp-Name", "=?base64?dGVzdF9zaW1wbGVfdGV4dA==?=")],
        &call,
    );
    assert_eq!(b64.status, 200, "{}", b64.json());

    let listed = post(port, &[v, ("Mcp-Method", "tools/list")], &list);
    assert_eq!(listed.status, 200);
    assert!(listed.json()["result"]["ttlMs"].is_u64());

    let mismatches: &[&[(&str, &str)]] = &[
        &[v, ("Mcp-Method", "tools/list"), ("Mcp-Name", "test_simple_text")],
        &[v, ("Mcp-Method", "tools/call"), ("Mcp-Name", "other_tool")],
        &[v, ("Mcp-Method", "tools/call")],
        &[v],
    ];
    for headers in mismatches {
        let r = post(port, headers, &call);
        assert_eq!((r.status, r.json()["error"]["code"].as_i64()), (400, Some(-32020)), "{headers:?}");
    }
    // The header says 2025-11-25 but the body says 2026-07-28.
    let r = post(port, &[("MCP-Protocol-Version", "2025-11-25"), ("Mcp-Method", "tools/list")], &list);
    assert_eq!((r.status, r.json()["error"]["code"].as_i64()), (400, Some(-32020)));

    let unknown = json!({"jsonrpc":"2.0","id":3,"method":"no/such","params":{"_meta":meta}});
    let r = post(port, &[v, ("Mcp-Method", "no/such")], &unknown);
    assert_eq!((r.status, r.json()["error"]["code"].as_i64()), (404, Some(-32601)));

    let bare = json!({"jsonrpc":"2.0","id":4,"method":"tools/list"});
    let r = post(port, &[v, ("Mcp-Method", "tools/list")], &bare);
    assert_eq!((r.status, r.json()["error"]["code"].as_i64()), (400, Some(-32602)));

    let no_caps = json!({"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}});
    let r = post(port, &[v, ("Mcp-Method", "tools/list")], &no_caps);
    assert_eq!((r.status, r.json()["error"]["code"].as_i64()), (400, Some(-32602)));

    let discover = json!({"jsonrpc":"2.0","id":6,"method":"server/discover","params":{"_meta":meta}});
    let r = post(port, &[v, ("Mcp-Method", "server/discover")], &discover);
    assert_eq!(r.status, 200);
    assert!(r.json()["result"]["supportedVersions"].is_array());
}

#[test]
fn the_config_file_can_choose_http_and_a_broken_one_still_serves_stdio() {
    let home = crate::stdio::temp_home();
    std::fs::create_dir_all(home.join(".withings-mcp")).unwrap();
    let cfg = home.join(".withings-mcp/config.json");
    std::fs::write(&cfg, r#"{"WITHINGS_MCP_TRANSPORT":"http","WITHINGS_MCP_PORT":"0"}"#).unwrap();
    let server = launch(command(&[("WITHINGS_MCP_HTTP_TOKEN", TOKEN)]).env("HOME", &home));
    assert_eq!(http(server.port, "GET", "/health", &[], b"").status, 200);
    drop(server);
    // An unreadable config file must not keep the server from starting on stdio.
    std::fs::write(&cfg, "not json").unwrap();
    let out = command(&[])
        .env("HOME", &home)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            c.stdin.take().unwrap().write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n")?;
            c.wait_with_output()
        })
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), r#"{"jsonrpc":"2.0","id":1,"result":{}}"#);
}
