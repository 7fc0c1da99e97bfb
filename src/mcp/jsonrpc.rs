//! JSON-RPC 2.0 framing: classify one decoded message and build responses. The only place that
//! knows the envelope shape.

use serde_json::{Map, Value};

use crate::value::json;

pub const PARSE_ERROR: i64 = -32700;
pub const INVALID_REQUEST: i64 = -32600;
pub const METHOD_NOT_FOUND: i64 = -32601;
pub const INVALID_PARAMS: i64 = -32602;
pub const INTERNAL_ERROR: i64 = -32603;
/// Resource not found, up to 2025-11-25 (2026-07-28 uses `INVALID_PARAMS`).
pub const RESOURCE_NOT_FOUND: i64 = -32002;
/// 2026-07-28: an HTTP routing header disagrees with the body.
pub const HEADER_MISMATCH: i64 = -32020;
/// 2026-07-28: the request lacks a client capability the method needs.
pub const MISSING_CLIENT_CAPABILITY: i64 = -32021;
/// 2026-07-28: the per-request protocol version is not supported.
pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;

/// The largest message accepted on either transport (1 MiB): a stdio line or an HTTP body.
pub const MAX_MESSAGE: usize = 1024 * 1024;
/// The most messages in one batch (CONTRACT §8.1).
pub const MAX_BATCH: usize = 50;
/// A batch stops running its requests once its replies pass this size; the rest are answered
/// with an error each. Fifty list calls of 1,000 records would make 92 MB of replies; this keeps
/// a batch within the memory bound with room for the one call being run (about 25 MiB).
pub const MAX_BATCH_REPLY: usize = 8 * 1024 * 1024;
/// The most items (values and object entries) in one message. Far above any request we serve,
/// and what keeps a hostile 1 MiB message from becoming a tree of 40 MB or more (a `Value` is
/// 80 bytes, and `[0,0,0,…]` spends two bytes of text on each), cloned once more on its way in.
pub const MAX_ITEMS: usize = 100_000;

/// Parses one message or batch from raw bytes: invalid UTF-8 and invalid JSON are parse errors
/// that say which. A batch of more than `MAX_BATCH` messages, or a message of more than
/// `MAX_ITEMS` items, is one invalid-request error, found before any value is built.
pub fn parse(bytes: &[u8]) -> Result<Value, RpcError> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        RpcError::new(
            PARSE_ERROR,
            format!("parse error: message is not valid UTF-8 (at byte {})", e.valid_up_to()),
        )
    })?;
    check_size(bytes)?;
    serde_json::from_str(text).map_err(|e| RpcError::new(PARSE_ERROR, format!("parse error: {e}")))
}

/// Counts what a JSON text would build, without building it: the items (an opening bracket
/// or a comma outside strings starts one) and, for an array at the top, its elements.
fn check_size(bytes: &[u8]) -> Result<(), RpcError> {
    let top_array = bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[');
    let (mut depth, mut items, mut entries) = (0usize, 1usize, 1usize);
    let mut at = 0;
    while let Some(&b) = bytes.get(at) {
        at += 1;
        match b {
            // A string is passed over whole, an escaped character with its backslash.
            b'"' => {
                while let Some(&c) = bytes.get(at) {
                    at += 1;
                    match c {
                        b'\\' => at += 1,
                        b'"' => break,
                        _ => {}
                    }
                }
                continue;
            }
            b'[' | b'{' => {
                depth += 1;
                items += 1;
            }
            b']' | b'}' => {
                depth = depth.saturating_sub(1);
                continue;
            }
            b',' => {
                items += 1;
                entries += usize::from(top_array && depth == 1);
            }
            _ => continue,
        }
        if items > MAX_ITEMS && entries <= MAX_BATCH {
            return Err(RpcError::new(
                INVALID_REQUEST,
                format!("invalid request: a message may hold at most {MAX_ITEMS} JSON values and entries"),
            ));
        }
    }
    match entries > MAX_BATCH {
        true => Err(RpcError::new(
            INVALID_REQUEST,
            format!("invalid request: a batch holds at most {MAX_BATCH} messages, this one {entries}"),
        )),
        false => Ok(()),
    }
}

/// A JSON-RPC error: code, message and optional data.
#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    pub code: i64,
    pub message: String,
    pub data: Option<Value>,
}

impl RpcError {
    pub fn new(code: i64, message: impl Into<String>) -> RpcError {
        RpcError { code, message: message.into(), data: None }
    }

    pub fn invalid_params(message: impl Into<String>) -> RpcError {
        RpcError::new(INVALID_PARAMS, message)
    }

    pub fn with_data(mut self, data: Value) -> RpcError {
        self.data = Some(data);
        self
    }
}

/// One decoded inbound message.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    /// A request: has an `id` (string or integer) and a `method`.
    Request { id: Value, method: String, params: Map<String, Value> },
    /// A notification: a `method` and no `id`. Never answered.
    Notification { method: String },
    /// A response or error from the client (we send no requests, so these are ignored).
    Response,
}

/// Classifies a decoded JSON value as a JSON-RPC message. The error carries the id when one
/// could be read, so that the reply can be matched by the client.
// The error tuple is large, but it is built once per bad message and returned straight away.
#[allow(clippy::result_large_err)]
pub fn classify(v: Value) -> Result<Message, (Value, RpcError)> {
    let Value::Object(obj) = v else {
        return Err((Value::Null, RpcError::new(INVALID_REQUEST, "invalid request: expected a JSON object")));
    };
    // The members taken in one pass (a key appears once in a parsed map): looking each one up
    // hashed its name again.
    let (mut id, mut version, mut method, mut params, mut answer) = (None, None, None, None, false);
    for (key, value) in obj {
        match key.as_str() {
            "id" => id = Some(value),
            "jsonrpc" => version = Some(value),
            "method" => method = Some(value),
            "params" => params = Some(value),
            "result" | "error" => answer = true,
            _ => {}
        }
    }
    let id_for_error = match &id {
        Some(i @ (Value::String(_) | Value::Number(_))) => i.clone(),
        _ => Value::Null,
    };
    let bad = |msg: &str| {
        Err((id_for_error.clone(), RpcError::new(INVALID_REQUEST, format!("invalid request: {msg}"))))
    };
    if version.as_ref().and_then(Value::as_str) != Some("2.0") {
        return bad("`jsonrpc` must be \"2.0\"");
    }
    let method = match method {
        Some(Value::String(m)) => m,
        Some(_) => return bad("`method` must be a string"),
        None if answer => return Ok(Message::Response),
        None => return bad("missing `method`"),
    };
    let params = match params {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(p)) => p,
        // Positional params are valid JSON-RPC but no MCP method takes them.
        Some(_) => {
            return Err((
                id_for_error,
                RpcError::invalid_params(format!("invalid params for `{method}`: expected an object")),
            ));
        }
    };
    match id {
        None => Ok(Message::Notification { method }),
        Some(Value::String(_) | Value::Number(_)) => {
            Ok(Message::Request { id: id_for_error, method, params })
        }
        Some(Value::Null) => bad("`id` must not be null"),
        Some(_) => bad("`id` must be a string or an integer"),
    }
}

/// An object from (key, value) pairs, moving the values.
pub fn object<const N: usize>(pairs: [(&str, Value); N]) -> Value {
    Value::Object(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}

/// An error response.
pub fn error(id: Value, e: RpcError) -> Value {
    let mut err = json!({"code": e.code, "message": e.message});
    if let (Some(data), Some(obj)) = (e.data, err.as_object_mut()) {
        obj.insert("data".into(), data);
    }
    object([("jsonrpc", Value::from("2.0")), ("id", id), ("error", err)])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 11: a batch of 1,000 `tools/list` took the process to 716 MB, and 20,778 entries in
    /// 1 MiB aborted it; oversized batches and messages are now refused before parsing.
    #[test]
    fn oversized_batches_and_messages_are_refused_before_parsing() {
        let batch =
            |n: usize| format!("[{}]", vec![r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#; n].join(","));
        assert_eq!(
            parse(batch(MAX_BATCH).as_bytes()).map(|v| v.as_array().map(Vec::len)),
            Ok(Some(MAX_BATCH))
        );
        for n in [MAX_BATCH + 1, 5000] {
            let e = parse(batch(n).as_bytes()).unwrap_err();
            assert_eq!(e.code, INVALID_REQUEST);
            assert!(
                e.message.contains("at most 50 messages") && e.message.contains(&n.to_string()),
                "{}",
                e.message
            );
        }
        // Commas, brackets and escaped quotes inside strings are text, not structure.
        let tricky = r#"  [{"jsonrpc":"2.0","id":"a,b,[{","method":"p\",,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,"}]"#;
        assert_eq!(parse(tricky.as_bytes()).map(|v| v.as_array().map(Vec::len)), Ok(Some(1)));
        let nested = format!(r#"[{{"params":{{"x":[{}]}}}}]"#, vec!["0"; 1000].join(","));
        assert!(parse(nested.as_bytes()).is_ok(), "only the top level counts as the batch");
        let wide = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"x":[{}]}}}}"#,
            vec!["0"; MAX_ITEMS].join(",")
        );
        let e = parse(wide.as_bytes()).unwrap_err();
        assert!(e.code == INVALID_REQUEST && e.message.contains("at most 100000"), "{}", e.message);
        let fits = format!(r#"{{"params":{{"x":[{}]}}}}"#, vec!["0"; MAX_ITEMS - 10].join(","));
        assert!(parse(fits.as_bytes()).is_ok());
        assert_eq!(parse(b"\xff").unwrap_err().code, PARSE_ERROR);
        assert_eq!(parse(b"[1,").unwrap_err().code, PARSE_ERROR);
    }

    #[test]
    fn classifies_requests_notifications_and_bad_shapes() {
        let req = classify(json!({"jsonrpc":"2.0","id":1,"method":"ping"})).unwrap();
        assert!(matches!(req, Message::Request { ref method, .. } if method == "ping"));
        let note = classify(json!({"jsonrpc":"2.0","method":"notifications/initialized","x":1})).unwrap();
        assert_eq!(note, Message::Notification { method: "notifications/initialized".into() });
        assert_eq!(classify(json!({"jsonrpc":"2.0","id":1,"result":{}})).unwrap(), Message::Response);
        let cases = [
            (json!([]), Value::Null, INVALID_REQUEST),
            (json!(5), Value::Null, INVALID_REQUEST),
            (json!({"id": 7, "method": "ping"}), json!(7), INVALID_REQUEST),
            (json!({"jsonrpc":"2.0","id":"a","method":3}), json!("a"), INVALID_REQUEST),
            (json!({"jsonrpc":"2.0","id":null,"method":"ping"}), Value::Null, INVALID_REQUEST),
            (json!({"jsonrpc":"2.0","id":{},"method":"ping"}), Value::Null, INVALID_REQUEST),
            (json!({"jsonrpc":"2.0","id":2,"method":"ping","params":[1]}), json!(2), INVALID_PARAMS),
        ];
        for (input, id, code) in cases {
            let (got_id, e) = classify(input.clone()).unwrap_err();
            assert_eq!((got_id, e.code), (id, code), "{input}");
        }
    }
}
