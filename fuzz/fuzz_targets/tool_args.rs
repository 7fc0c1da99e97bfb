//! Tool arguments for every tool: the input, when it is JSON, is passed as the arguments of each
//! tool in `tools::all()` (demo mode, no network), both through `tools::run` and through the MCP
//! result shaping in `dispatch::tool_result`. New tools on main are covered without changes here.
//!
//! Invariants: no panic; a call either succeeds or returns an error (never hangs); the MCP result
//! is an object with a non-empty `content` array and a boolean `isError`; a successful demo result
//! says `"demo": true` in `structuredContent` (CONTRACT: every demo answer says so).
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use withings_mcp::mcp::dispatch;
use withings_mcp::store::config::Env;
use withings_mcp::tools::{self, Ctx};

fuzz_target!(|data: &[u8]| {
    let Ok(args) = serde_json::from_slice::<Value>(data) else { return };
    let ctx = Ctx {
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
    };
    for tool in tools::all() {
        let direct = tools::run(&ctx, &tool, &args);
        let shaped = dispatch::tool_result(&ctx, &tool, &args);
        let is_error = shaped.get("isError").and_then(Value::as_bool);
        assert!(is_error.is_some(), "{}: no boolean isError in {shaped}", tool.name);
        assert_eq!(is_error == Some(false), direct.is_ok(), "{}: run and tool_result disagree", tool.name);
        let content = shaped.get("content").and_then(Value::as_array);
        assert!(content.is_some_and(|c| !c.is_empty()), "{}: empty content in {shaped}", tool.name);
        if is_error == Some(false) {
            let demo = shaped.pointer("/structuredContent/demo").and_then(Value::as_bool);
            assert_eq!(demo, Some(true), "{}: demo result without demo flag: {shaped}", tool.name);
        }
    }
});
