//! The stdio server and the `call` / `tools` commands, end to end through the real binary.
// Test helpers outside #[test] functions: failing loudly is the point.
#![allow(clippy::unwrap_used, clippy::panic)]

use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Value, json};

pub const BIN: &str = env!("CARGO_BIN_EXE_withings-mcp");

/// A fresh, empty HOME for one test.
pub fn temp_home() -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "wmcp-it-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The binary with a clean environment: PATH, a temp HOME, plus `env`.
pub fn command(env: &[(&str, &str)]) -> Command {
    let mut cmd = Command::new(BIN);
    cmd.env_clear().env("PATH", std::env::var_os("PATH").unwrap_or_default()).env("HOME", temp_home());
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd
}

/// The peak resident memory (`VmHWM`) of a running process, in KiB.
pub fn vm_hwm_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

#[cfg(feature = "conformance")]
pub const CONFORMANCE: (&str, &str) = ("WITHINGS_MCP_CONFORMANCE", "1");

pub struct Run {
    pub replies: Vec<Value>,
    pub code: Option<i32>,
}

/// Feeds `input` to a stdio server, closes stdin, and collects every reply line.
pub fn run(input: &[u8], env: &[(&str, &str)]) -> Run {
    let mut child =
        command(env).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let data = input.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&data);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let replies = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON: {l}: {e}")))
        .collect();
    Run { replies, code: out.status.code() }
}

pub fn lines(messages: &[Value]) -> Vec<u8> {
    messages.iter().flat_map(|m| format!("{m}\n").into_bytes()).collect()
}

fn init(version: &str) -> Value {
    json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":version,"capabilities":{},"clientInfo":{"name":"it","version":"1"}}})
}

pub fn req(id: i64, method: &str, params: Value) -> Value {
    json!({"jsonrpc":"2.0","id":id,"method":method,"params":params})
}

fn code(v: &Value) -> i64 {
    v["error"]["code"].as_i64().unwrap_or_else(|| panic!("expected an error: {v}"))
}

fn stateless_meta() -> Value {
    json!({"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}})
}

#[test]
fn malformed_json_is_a_parse_error_and_serving_continues() {
    let mut input = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"\n".to_vec();
    input.extend(lines(&[req(2, "ping", json!({}))]));
    let r = run(&input, &[]);
    assert_eq!(r.replies.len(), 2);
    assert_eq!(code(&r.replies[0]), -32700);
    assert_eq!(r.replies[0]["id"], Value::Null);
    assert_eq!(r.replies[1], json!({"jsonrpc":"2.0","id":2,"result":{}}));
    assert_eq!(r.code, Some(0));
}

#[test]
fn valid_json_that_is_not_a_request_is_invalid_request() {
    let input = lines(&[
        init("2025-11-25"),
        json!(42),
        json!({"jsonrpc":"2.0"}),
        json!({"jsonrpc":"1.0","id":3,"method":"ping"}),
        json!({"jsonrpc":"2.0","id":4,"method":7}),
        json!({"jsonrpc":"2.0","id":null,"method":"ping"}),
        json!("text"),
    ]);
    let r = run(&input, &[]);
    assert_eq!(r.replies.len(), 7);
    for reply in &r.replies[1..] {
        assert_eq!(code(reply), -32600, "{reply}");
    }
    assert_eq!(r.replies[3]["id"], 3, "the id is kept when it can be read");
}

#[test]
fn unknown_method_and_wrong_params() {
    let input = lines(&[
        init("2025-11-25"),
        req(1, "no/such/method", json!({})),
        req(2, "tools/call", json!({"name": 5})),
        json!({"jsonrpc":"2.0","id":3,"method":"tools/list","params":[1,2]}),
        req(4, "prompts/get", json!({})),
        req(5, "logging/setLevel", json!({"level":"loud"})),
        req(6, "tools/list", json!({"cursor":"bogus"})),
        req(7, "tools/call", json!({"name":"no_such_tool","arguments":{}})),
    ]);
    let r = run(&input, &[]);
    assert_eq!(code(&r.replies[1]), -32601);
    for reply in &r.replies[2..] {
        assert_eq!(code(reply), -32602, "{reply}");
    }
    assert!(r.replies[7]["error"]["message"].as_str().unwrap().contains("no_such_tool"));
}

#[test]
fn requests_before_initialize_are_refused_except_ping() {
    let input = lines(&[
        req(1, "tools/list", json!({})),
        req(2, "ping", json!({})),
        init("2025-11-25"),
        req(3, "tools/list", json!({})),
    ]);
    let r = run(&input, &[]);
    assert_eq!(code(&r.replies[0]), -32600);
    assert!(r.replies[0]["error"]["message"].as_str().unwrap().contains("initialize"));
    assert_eq!(r.replies[1]["result"], json!({}));
    assert!(r.replies[3]["result"]["tools"].is_array());
}

#[test]
fn invalid_utf8_is_a_parse_error() {
    let mut input = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"p\xffng\"}\n".to_vec();
    input.extend(lines(&[req(2, "ping", json!({}))]));
    let r = run(&input, &[]);
    assert_eq!(code(&r.replies[0]), -32700);
    assert!(r.replies[0]["error"]["message"].as_str().unwrap().contains("UTF-8"));
    assert_eq!(r.replies[1]["id"], 2);
}

#[test]
fn a_10_mib_line_gets_a_clear_error_in_bounded_memory() {
    let mut child =
        command(&[]).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let writer = std::thread::spawn(move || {
        let mut big = br#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":""#.to_vec();
        big.resize(10 * 1024 * 1024, b'a');
        big.extend_from_slice(b"\"}}\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n");
        stdin.write_all(&big).unwrap();
        stdin
    });
    let mut first = String::new();
    out.read_line(&mut first).unwrap();
    let mut second = String::new();
    out.read_line(&mut second).unwrap();
    let first: Value = serde_json::from_str(&first).unwrap();
    assert_eq!(code(&first), -32600);
    assert!(first["error"]["message"].as_str().unwrap().contains("exceeds"), "{first}");
    let second: Value = serde_json::from_str(&second).unwrap();
    assert_eq!(second["id"], 2, "the next request is served");
    // The child is still alive (stdin open): its peak RSS must stay far below the line size x 4.
    let hwm_kib = vm_hwm_kib(child.id());
    assert!(hwm_kib < 40 * 1024, "peak RSS {hwm_kib} KiB");
    drop(writer.join().unwrap());
    assert!(child.wait().unwrap().success());
}

#[test]
fn empty_lines_are_ignored_and_a_last_line_without_newline_is_answered() {
    let input = b"\n\r\n   \n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}";
    let r = run(input, &[]);
    let ids: Vec<&Value> = r.replies.iter().map(|v| &v["id"]).collect();
    assert_eq!(ids, [&json!(1), &json!(2)]);
    assert_eq!(r.code, Some(0));
    assert_eq!(run(b"", &[]).code, Some(0), "EOF at once exits 0");
}

#[test]
fn a_client_that_closes_our_stdout_ends_the_server_quietly() {
    let mut child =
        command(&[]).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    drop(child.stdout.take());
    let mut stdin = child.stdin.take().unwrap();
    let data = lines(&[req(1, "ping", json!({})), req(2, "ping", json!({}))]);
    let _ = stdin.write_all(&data);
    drop(stdin);
    let mut stderr = String::new();
    child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0), "stderr: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn version_negotiation_echoes_known_versions_and_counter_offers_the_latest() {
    let cases = [
        ("2025-11-25", "2025-11-25"),
        ("2025-06-18", "2025-06-18"),
        ("2025-03-26", "2025-03-26"),
        ("2024-11-05", "2024-11-05"),
        ("2099-01-01", "2025-11-25"),
        ("garbage", "2025-11-25"),
    ];
    for (asked, want) in cases {
        let r = run(&lines(&[init(asked)]), &[]);
        assert_eq!(r.replies[0]["result"]["protocolVersion"], want, "asked {asked}");
        assert_eq!(r.replies[0]["result"]["serverInfo"]["name"], "withings-mcp");
    }
}

#[test]
fn batches_only_in_2025_03_26() {
    let batch = json!([req(1, "ping", json!({})), {"jsonrpc":"2.0","method":"notifications/x"}, req(2, "tools/list", json!({}))]);
    let r = run(&lines(&[init("2025-03-26"), batch.clone()]), &[]);
    let replies = r.replies[1].as_array().unwrap();
    assert_eq!(replies.len(), 2, "notifications get no reply inside a batch");
    assert_eq!(replies[1]["id"], 2);
    for version in ["2025-11-25", "2025-06-18", "2024-11-05"] {
        let r = run(&lines(&[init(version), batch.clone()]), &[]);
        assert_eq!(code(&r.replies[1]), -32600, "{version}");
    }
}

#[test]
fn the_stateless_era_works_without_initialize() {
    let meta = stateless_meta();
    let input = lines(&[
        req(1, "server/discover", json!({"_meta": meta})),
        req(2, "tools/list", json!({"_meta": meta})),
        req(3, "ping", json!({"_meta": meta})),
        req(
            4,
            "tools/list",
            json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2099-01-01", "io.modelcontextprotocol/clientCapabilities": {}}}),
        ),
        req(5, "tools/list", json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}})),
        req(6, "resources/read", json!({"_meta": meta, "uri": "withings://nothing"})),
    ]);
    let r = run(&input, &[]);
    let discover = &r.replies[0]["result"];
    assert!(discover["supportedVersions"].as_array().unwrap().contains(&json!("2026-07-28")), "{discover}");
    assert_eq!(discover["resultType"], "complete");
    assert!(discover["ttlMs"].as_u64().is_some());
    assert!(matches!(discover["cacheScope"].as_str(), Some("public" | "private")));
    assert_eq!(discover["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "withings-mcp");
    let list = &r.replies[1]["result"];
    assert_eq!(list["resultType"], "complete");
    assert!(list["ttlMs"].is_u64() && list["cacheScope"].is_string(), "{list}");
    assert_eq!(code(&r.replies[2]), -32601, "ping does not exist in 2026-07-28");
    assert_eq!(code(&r.replies[3]), -32022);
    assert!(r.replies[3]["error"]["data"]["supported"].as_array().unwrap().contains(&json!("2026-07-28")));
    assert_eq!(code(&r.replies[4]), -32602, "clientCapabilities is required");
    assert_eq!(code(&r.replies[5]), -32602, "resource not found is -32602 in 2026-07-28");
}

#[test]
fn unknown_fields_are_accepted_everywhere() {
    let init = json!({"jsonrpc":"2.0","id":0,"method":"initialize","extra":true,"params":{
        "protocolVersion":"2025-11-25","capabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}},"roots":{"listChanged":true},"novel":1},
        "clientInfo":{"name":"it","version":"1","unheard":"of"},"_meta":{"x.y/z":1},"surprise":[1]}});
    let input =
        lines(&[init, json!({"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"future":1},"other":2})]);
    let r = run(&input, &[]);
    assert_eq!(r.replies[0]["result"]["protocolVersion"], "2025-11-25");
    assert!(r.replies[1]["result"]["tools"].is_array(), "{}", r.replies[1]);
}

#[cfg(feature = "conformance")]
#[test]
fn tool_argument_errors_are_tool_results_naming_the_argument() {
    let input = lines(&[
        init("2025-11-25"),
        req(1, "tools/call", json!({"name":"test_sampling","arguments":{}})),
        req(2, "tools/call", json!({"name":"test_sampling","arguments":{"prompt": 5}})),
        req(3, "tools/call", json!({"name":"test_simple_text","arguments":{"bogus": 1}})),
        req(4, "tools/call", json!({"name":"test_simple_text","arguments":[1]})),
        req(5, "tools/call", json!({"name":"test_simple_text"})),
    ]);
    let r = run(&input, &[CONFORMANCE]);
    for (i, arg) in [(1, "prompt"), (2, "prompt"), (3, "bogus"), (4, "arguments")] {
        let result = &r.replies[i]["result"];
        assert_eq!(result["isError"], true, "{result}");
        let text = result["content"][0]["text"].as_str().unwrap();
        assert!(text.contains(arg), "{text} should name {arg}");
    }
    let ok = &r.replies[5]["result"];
    assert_eq!(ok["isError"], false);
    assert_eq!(ok["structuredContent"]["text"], "This is a simple text response for testing.");
}

#[cfg(feature = "conformance")]
#[test]
fn conformance_fixtures_are_hidden_unless_switched_on() {
    let list = |env: &[(&str, &str)]| {
        let r = run(
            &lines(&[init("2025-11-25"), req(1, "tools/list", json!({})), req(2, "prompts/list", json!({}))]),
            env,
        );
        let names = |key: &str, i: usize| -> Vec<String> {
            r.replies[i]["result"][key]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t["name"].as_str().unwrap().to_string())
                .collect()
        };
        (names("tools", 1), names("prompts", 2))
    };
    let (tools, prompts) = list(&[]);
    assert!(!tools.iter().chain(&prompts).any(|n| n.starts_with("test_")), "{tools:?} {prompts:?}");
    let (tools, prompts) = list(&[CONFORMANCE]);
    assert!(tools.contains(&"test_simple_text".to_string()));
    assert!(prompts.contains(&"test_prompt_with_arguments".to_string()));
}

#[cfg(feature = "conformance")]
struct Output {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

#[cfg(feature = "conformance")]
fn cli(args: &[&str], env: &[(&str, &str)]) -> Output {
    let out = command(env).args(args).stdin(Stdio::null()).output().unwrap();
    Output {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

#[cfg(feature = "conformance")]
#[test]
fn call_and_tools_commands_exit_codes() {
    let tools = cli(&["tools"], &[CONFORMANCE]);
    assert_eq!(tools.code, Some(0));
    assert!(tools.stdout.lines().any(|l| l == "test_simple_text"), "{}", tools.stdout);

    let ok = cli(&["call", "test_simple_text"], &[CONFORMANCE]);
    assert_eq!(ok.code, Some(0), "{}", ok.stderr);
    let v: Value = serde_json::from_str(&ok.stdout).unwrap();
    assert_eq!(v["text"], "This is a simple text response for testing.");

    let bad_arg = cli(&["call", "test_sampling", "--json", "{}"], &[CONFORMANCE]);
    assert_eq!(bad_arg.code, Some(1));
    let v: Value = serde_json::from_str(&bad_arg.stdout).unwrap();
    assert_eq!(v["error"]["argument"], "prompt", "{v}");
    assert!(bad_arg.stderr.starts_with("withings-mcp: "), "{}", bad_arg.stderr);

    let failing = cli(&["call", "test_error_handling"], &[CONFORMANCE]);
    assert_eq!(failing.code, Some(1));

    for args in
        [&["call", "no_such_tool"][..], &["call", "test_simple_text", "--json", "{nope"][..], &["call"][..]]
    {
        let out = cli(args, &[CONFORMANCE]);
        assert_eq!(out.code, Some(2), "{args:?}: {}", out.stderr);
        assert!(out.stderr.starts_with("withings-mcp: "), "{args:?}: {}", out.stderr);
    }
}
