//! A stdio session through the whole dispatcher: the input is split into lines, each handled in
//! order by one `Engine`, so `initialize` followed by requests (and requests before it) are both
//! exercised. The same lines are also replayed on an engine that was initialised first, so that
//! mutations of the later lines reach the post-handshake methods without having to rediscover a
//! valid `initialize`.
//!
//! Invariants: no panic; every reply is valid JSON; every reply object (or batch element) carries
//! `"jsonrpc": "2.0"` and exactly one of `result` / `error`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use withings_mcp::mcp::dispatch::Engine;
use withings_mcp::store::config::Env;
use withings_mcp::tools::Ctx;

const INIT: &[u8] = br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"fuzz","version":"0"}}}"#;

fn ctx() -> Ctx {
    Ctx {
        // Demo mode answers without network; the URLs point at the discard port on loopback as a
        // guard, so that a tool that does reach for the network fails fast instead of calling
        // Withings, and without retries (which would sleep).
        env: Env::from_pairs(&[
            ("HOME", "/nonexistent-fuzz-home"),
            ("WITHINGS_DEMO", "1"),
            ("WITHINGS_API_URL", "http://127.0.0.1:9"),
            ("WITHINGS_ACCOUNT_URL", "http://127.0.0.1:9"),
            ("WITHINGS_NO_RETRY", "1"),
        ]),
        now: 1_764_500_000,
    }
}

fn check_envelope(reply: &Value, line: &[u8]) {
    let obj = reply.as_object().unwrap_or_else(|| panic!("reply is not an object: {reply} for {line:?}"));
    assert_eq!(obj.get("jsonrpc").and_then(Value::as_str), Some("2.0"), "bad jsonrpc in {reply}");
    let has_result = obj.contains_key("result");
    let has_error = obj.contains_key("error");
    assert!(has_result != has_error, "reply must have exactly one of result/error: {reply}");
    assert!(obj.contains_key("id"), "reply without id: {reply}");
}

fn check(reply: Option<String>, line: &[u8]) {
    let Some(text) = reply else { return };
    let v: Value = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("reply is not JSON ({e}): {text:?} for {line:?}"));
    match &v {
        Value::Array(items) => {
            assert!(!items.is_empty(), "empty batch reply for {line:?}");
            items.iter().for_each(|item| check_envelope(item, line));
        }
        _ => check_envelope(&v, line),
    }
}

fuzz_target!(|data: &[u8]| {
    let mut fresh = Engine::stdio(ctx());
    let mut ready = Engine::stdio(ctx());
    check(ready.handle_bytes(INIT), INIT);
    // Bound the work per input: a session of at most 16 messages.
    for line in data.split(|b| *b == b'\n').take(16) {
        check(fresh.handle_bytes(line), line);
        check(ready.handle_bytes(line), line);
    }
});
