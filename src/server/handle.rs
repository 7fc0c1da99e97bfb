//! The body of `POST /mcp`: one JSON-RPC message (or a 2025-03-26 batch) handled statelessly,
//! the 2026-07-28 routing headers checked against the body, and the HTTP status chosen by era.

use serde_json::Value;

use crate::mcp::dispatch::{self, Engine, META_VERSION, STATELESS};
use crate::mcp::jsonrpc::{self, RpcError};
use crate::server::route::{Headers, Reply, header};
use crate::text;
use crate::tools::Ctx;

/// Handles the body of `POST /mcp` for the protocol version named by the header (`Err`: an
/// unsupported one, refused with the request's id).
pub fn handle_mcp(
    ctx: &Ctx,
    version: Result<Option<&'static str>, String>,
    headers: &Headers,
    body: &[u8],
) -> Reply {
    // Invalid JSON, an oversized batch or an oversized message: refused before anything is built.
    let message = match jsonrpc::parse(body) {
        Ok(v) => v,
        Err(e) => return Reply::rpc_error(400, e),
    };
    // A refusal of a request answers that request: its id, when the body has one.
    let refuse = |e: RpcError| {
        let id = message.get("id").cloned().unwrap_or(Value::Null);
        Reply::json(400, &jsonrpc::error(id, e))
    };
    let version = match version {
        Ok(v) => v,
        Err(v) => return refuse(dispatch::unsupported_version(&v)),
    };
    let stateless =
        version == Some(STATELESS) || (version.is_none() && meta_version(&message) == Some(STATELESS));
    if stateless {
        if let Err(e) = check_stateless(headers, &message) {
            return refuse(e);
        }
    } else if meta_version(&message) == Some(STATELESS) {
        let e = RpcError::new(
            jsonrpc::HEADER_MISMATCH,
            format!(
                "header mismatch: MCP-Protocol-Version says {} but _meta says {STATELESS}",
                version.unwrap_or("nothing")
            ),
        );
        return refuse(e);
    }
    let mut engine = Engine::http(ctx.clone(), version.filter(|v| *v != STATELESS));
    match message {
        Value::Array(items) => match engine.handle_batch(items) {
            None => Reply::empty(202),
            Some(text) => Reply::json_text(200, text.into_bytes()),
        },
        single => match engine.reply(single) {
            None => Reply::empty(202),
            // A reply written as text is always a success.
            Some(dispatch::Reply::Text(text)) => Reply::json_text(200, text.into_bytes()),
            Some(dispatch::Reply::Tree(reply)) => Reply::json(status_for(&reply, stateless), &reply),
        },
    }
}

fn meta_version(message: &Value) -> Option<&str> {
    message.get("params")?.get("_meta")?.get(META_VERSION)?.as_str()
}

/// 2026-07-28 routing headers: one message per body, `_meta` naming the version, and
/// `Mcp-Method` / `Mcp-Name` equal to the body's method and target.
pub fn check_stateless(headers: &Headers, message: &Value) -> std::result::Result<(), RpcError> {
    let Some(obj) = message.as_object() else {
        return Err(RpcError::new(
            jsonrpc::INVALID_REQUEST,
            format!("invalid request: {STATELESS} takes one JSON-RPC object per request, not a batch"),
        ));
    };
    let Some(method) = obj.get("method").and_then(Value::as_str) else {
        // A response from the client: nothing to route.
        return Ok(());
    };
    let is_request = obj.contains_key("id");
    match header(headers, "mcp-method") {
        Some(h) if h.trim() == method => {}
        None if !is_request => {}
        Some(h) => {
            return Err(mismatch(format!(
                "Mcp-Method header `{}` does not match the body's method `{method}`",
                h.trim()
            )));
        }
        None => return Err(mismatch(format!("missing Mcp-Method header (the body's method is `{method}`)"))),
    }
    if !is_request {
        return Ok(());
    }
    match meta_version(message) {
        Some(STATELESS) => {}
        Some(other) => {
            return Err(mismatch(format!("MCP-Protocol-Version is {STATELESS} but _meta says `{other}`")));
        }
        None => {
            return Err(RpcError::invalid_params(format!(
                "invalid params: missing required `_meta.{META_VERSION}`"
            )));
        }
    }
    let key = match method {
        "tools/call" | "prompts/get" => "name",
        "resources/read" => "uri",
        _ => return Ok(()),
    };
    let target = obj.get("params").and_then(|p| p.get(key)).and_then(Value::as_str);
    let named = header(headers, "mcp-name").map(|h| decode_name(h.trim()));
    match (named, target) {
        (Some(Some(h)), Some(t)) if h == t => Ok(()),
        (None, _) => Err(mismatch(format!("missing Mcp-Name header for `{method}`"))),
        (Some(None), _) => Err(mismatch("Mcp-Name header has an invalid =?base64?…?= value".into())),
        (Some(Some(h)), t) => {
            Err(mismatch(format!("Mcp-Name header `{h}` does not match params.{key} `{}`", t.unwrap_or(""))))
        }
    }
}

fn mismatch(message: String) -> RpcError {
    RpcError::new(jsonrpc::HEADER_MISMATCH, format!("header mismatch: {message}"))
}

/// A header value, decoding the `=?base64?…?=` sentinel used for values unsafe in headers.
pub fn decode_name(value: &str) -> Option<String> {
    match value.strip_prefix("=?base64?").and_then(|r| r.strip_suffix("?=")) {
        Some(b64) => text::base64_decode(b64).and_then(|bytes| String::from_utf8(bytes).ok()),
        None => Some(value.to_string()),
    }
}

/// The HTTP status for a JSON-RPC reply. Handshake-era errors travel as 200 with the error body
/// (what the TS and Python clients expect), except unparsable bodies; the stateless era maps
/// codes as the 2026-07-28 transport (and the Python SDK) do.
pub fn status_for(reply: &Value, stateless: bool) -> u16 {
    let code = reply.get("error").and_then(|e| e.get("code")).and_then(Value::as_i64);
    match (code, stateless) {
        (Some(jsonrpc::PARSE_ERROR), _) => 400,
        (Some(jsonrpc::METHOD_NOT_FOUND), true) => 404,
        (
            Some(
                jsonrpc::INVALID_REQUEST
                | jsonrpc::INVALID_PARAMS
                | jsonrpc::HEADER_MISMATCH
                | jsonrpc::MISSING_CLIENT_CAPABILITY
                | jsonrpc::UNSUPPORTED_PROTOCOL_VERSION,
            ),
            true,
        ) => 400,
        _ => 200,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::mcp::dispatch::META_VERSION;
    use crate::store::config::Env;

    fn h(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs.iter().map(|(k, v)| (k.to_ascii_lowercase(), v.to_string())).collect()
    }

    fn ctx() -> Ctx {
        Ctx::new(Env::from_pairs(&[("HOME", "/nonexistent")]), 0)
    }

    const POST: &[(&str, &str)] = &[
        ("Host", "127.0.0.1:3000"),
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
    ];

    #[test]
    fn stateless_header_checks() {
        let meta = json!({META_VERSION: STATELESS, "io.modelcontextprotocol/clientCapabilities": {}});
        let call =
            json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"my tool","_meta": meta}});
        let list = json!({"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta": meta}});
        let bare = json!({"jsonrpc":"2.0","id":1,"method":"tools/list"});
        let note = json!({"jsonrpc":"2.0","method":"notifications/cancelled"});
        let cases = [
            (&list, vec![("Mcp-Method", "tools/list")], None),
            (&list, vec![], Some(jsonrpc::HEADER_MISMATCH)),
            (&list, vec![("Mcp-Method", "tools/call")], Some(jsonrpc::HEADER_MISMATCH)),
            (&bare, vec![("Mcp-Method", "tools/list")], Some(jsonrpc::INVALID_PARAMS)),
            (&call, vec![("Mcp-Method", "tools/call"), ("Mcp-Name", "my tool")], None),
            (&call, vec![("Mcp-Method", "tools/call"), ("Mcp-Name", "=?base64?bXkgdG9vbA==?=")], None),
            (
                &call,
                vec![("Mcp-Method", "tools/call"), ("Mcp-Name", "other")],
                Some(jsonrpc::HEADER_MISMATCH),
            ),
            (
                &call,
                vec![("Mcp-Method", "tools/call"), ("Mcp-Name", "=?base64?!!?=")],
                Some(jsonrpc::HEADER_MISMATCH),
            ),
            (&call, vec![("Mcp-Method", "tools/call")], Some(jsonrpc::HEADER_MISMATCH)),
            (&note, vec![], None),
            (&note, vec![("Mcp-Method", "ping")], Some(jsonrpc::HEADER_MISMATCH)),
        ];
        for (msg, headers, want) in cases {
            let got = check_stateless(&h(&headers), msg).err().map(|e| e.code);
            assert_eq!(got, want, "{msg} {headers:?}");
        }
        assert_eq!(check_stateless(&[], &json!([list])).unwrap_err().code, jsonrpc::INVALID_REQUEST);
    }

    #[test]
    fn base64_sentinel_decodes() {
        let cases =
            [("plain", Some("plain")), ("=?base64?aMOpbGxv?=", Some("héllo")), ("=?base64?_w==?=", None)];
        for (input, want) in cases {
            assert_eq!(decode_name(input).as_deref(), want, "{input}");
        }
    }

    #[test]
    fn status_mapping_by_era() {
        let err = |code: i64| json!({"jsonrpc":"2.0","id":1,"error":{"code":code,"message":"x"}});
        let ok = json!({"jsonrpc":"2.0","id":1,"result":{}});
        let cases = [
            (ok.clone(), false, 200),
            (ok, true, 200),
            (err(-32700), false, 400),
            (err(-32601), false, 200),
            (err(-32602), false, 200),
            (err(-32601), true, 404),
            (err(-32600), true, 400),
            (err(-32602), true, 400),
            (err(-32020), true, 400),
            (err(-32021), true, 400),
            (err(-32022), true, 400),
            (err(-32603), true, 200),
            (err(-32002), true, 200),
        ];
        for (reply, stateless, want) in cases {
            assert_eq!(status_for(&reply, stateless), want, "{reply} stateless={stateless}");
        }
    }

    #[test]
    fn handle_mcp_statuses() {
        let hs = h(POST);
        let meta = json!({META_VERSION: STATELESS, "io.modelcontextprotocol/clientCapabilities": {}});
        let modern = h(&[("Mcp-Method", "nope/nothing")]);
        type Case<'a> = (Result<Option<&'static str>, &'a str>, &'a Headers, Vec<u8>, u16);
        let cases: Vec<Case> = vec![
            (Ok(None), &hs, b"{not json".to_vec(), 400),
            (Ok(None), &hs, br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_vec(), 202),
            (Ok(None), &hs, br#"{"jsonrpc":"2.0","id":1,"result":{}}"#.to_vec(), 202),
            (Ok(None), &hs, br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#.to_vec(), 200),
            (Ok(Some("2025-11-25")), &hs, br#"{"jsonrpc":"2.0","id":1,"method":"nope"}"#.to_vec(), 200),
            (
                Ok(Some(STATELESS)),
                &modern,
                json!({"jsonrpc":"2.0","id":1,"method":"nope/nothing","params":{"_meta": meta}})
                    .to_string()
                    .into_bytes(),
                404,
            ),
            (
                Ok(Some("2025-11-25")),
                &hs,
                json!({"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"_meta": meta}})
                    .to_string()
                    .into_bytes(),
                400,
            ),
            (Err("2099-01-01"), &hs, br#"{"jsonrpc":"2.0","id":"u","method":"ping"}"#.to_vec(), 400),
        ];
        for (version, headers, body, want) in cases {
            let r = handle_mcp(&ctx(), version.map_err(str::to_string), headers, &body);
            assert_eq!(r.status, want, "{version:?} {}", String::from_utf8_lossy(&body));
            if want == 202 {
                assert!(r.body.is_empty());
            } else {
                // Every answer to a parsed request carries its id, refusals included.
                let answer: Value = serde_json::from_slice(&r.body).unwrap();
                let asked: Option<Value> =
                    serde_json::from_slice::<Value>(&body).ok().map(|b| b["id"].clone());
                assert_eq!(Some(answer["id"].clone()).filter(|_| asked.is_some()), asked, "{answer}");
                assert!(r.headers.contains(&("Content-Type", "application/json".to_string())));
            }
        }
    }
}
