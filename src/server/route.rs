//! Routing and the checks that need only the request head: loopback `Host` and `Origin`
//! (against DNS rebinding), method and path, body size, media types and the protocol version
//! header. Pure functions over a header list, so they are tested with tables.

use std::time::Duration;

use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::VERSION;
use crate::mcp::dispatch::{HANDSHAKE_VERSIONS, STATELESS};
use crate::mcp::jsonrpc::{self, RpcError};
use crate::value::json;

/// The largest request body accepted: the largest message, as on stdio (1 MiB).
pub const BODY_LIMIT: usize = jsonrpc::MAX_MESSAGE;

/// One HTTP response, before serialisation.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(&'static str, String)>,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn json(status: u16, v: &Value) -> Reply {
        Reply::json_text(status, serde_json::to_vec(&v).unwrap_or_default())
    }

    /// A JSON body already written out.
    pub fn json_text(status: u16, body: Vec<u8>) -> Reply {
        Reply { status, headers: vec![("Content-Type", "application/json".into())], body }
    }

    pub fn empty(status: u16) -> Reply {
        Reply { status, headers: Vec::new(), body: Vec::new() }
    }

    /// An HTTP-level error with a JSON-RPC error body (id null), as the MCP SDKs send.
    pub fn rpc_error(status: u16, e: RpcError) -> Reply {
        Reply::json(status, &jsonrpc::error(Value::Null, e))
    }

    pub fn with_header(mut self, name: &'static str, value: &str) -> Reply {
        self.headers.push((name, value.to_string()));
        self
    }
}

/// Request headers with lowercase names.
pub type Headers = [(String, String)];

pub fn header<'a>(headers: &'a Headers, name: &str) -> Option<&'a str> {
    headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

/// Where a request goes once its headers passed the checks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    Health,
    /// `POST /mcp` with its `MCP-Protocol-Version`: a known one (None when absent), or the
    /// unsupported value, refused once the body is read so that the refusal carries its id.
    Mcp(Result<Option<&'static str>, String>),
}

/// Routes a request and checks everything that does not need the body. With a `token`,
/// `POST /mcp` must carry it as `Authorization: Bearer <token>`; `/health` stays open.
pub fn precheck(method: &str, url: &str, headers: &Headers, token: Option<&str>) -> Result<Route, Reply> {
    if !header(headers, "host").is_some_and(host_ok) {
        return Err(forbidden(
            "the Host header must name a loopback address (localhost, 127.0.0.1 or [::1])",
        ));
    }
    if header(headers, "origin").is_some_and(|o| !origin_ok(o)) {
        return Err(forbidden("cross-origin requests are refused; Origin must be a loopback origin"));
    }
    let path = url.split(['?', '#']).next().unwrap_or("");
    match (path, method) {
        ("/health", "GET" | "HEAD") => return Ok(Route::Health),
        ("/health", _) => return Err(Reply::empty(405).with_header("Allow", "GET")),
        ("/mcp", "POST") => {}
        // Stateless and JSON-only: no SSE stream to GET and no session to DELETE.
        ("/mcp", _) => return Err(Reply::empty(405).with_header("Allow", "POST")),
        _ => return Err(Reply::json(404, &json!({"error": "not found; MCP is served at POST /mcp"}))),
    }
    // Before any other check: a client without the token learns nothing more about the server.
    if let Some(token) = token {
        authorize(header(headers, "authorization"), token)?;
    }
    if header(headers, "content-length")
        .is_some_and(|len| len.trim().parse::<u64>().map_or(true, |n| n > BODY_LIMIT as u64))
    {
        return Err(too_large());
    }
    if !header(headers, "content-type").is_some_and(content_type_ok) {
        let e = RpcError::new(
            jsonrpc::INVALID_REQUEST,
            "unsupported media type: Content-Type must be application/json",
        );
        return Err(Reply::rpc_error(415, e));
    }
    if !header(headers, "accept").is_none_or(accept_ok) {
        let e = RpcError::new(
            jsonrpc::INVALID_REQUEST,
            "not acceptable: this server answers application/json only",
        );
        return Err(Reply::rpc_error(406, e));
    }
    match header(headers, "mcp-protocol-version").map(str::trim) {
        None => Ok(Route::Mcp(Ok(None))),
        Some(v) => match HANDSHAKE_VERSIONS.iter().chain([STATELESS].iter()).find(|k| **k == v) {
            Some(known) => Ok(Route::Mcp(Ok(Some(known)))),
            None => Ok(Route::Mcp(Err(v.to_string()))),
        },
    }
}

/// Checks `Authorization: Bearer <token>` (scheme case-insensitive, RFC 9110 §11.1); the 401
/// says which part is missing or wrong, never what was sent or expected.
fn authorize(presented: Option<&str>, token: &str) -> Result<(), Reply> {
    let Some(value) = presented else {
        return Err(unauthorized(
            "POST /mcp needs `Authorization: Bearer <token>`; the token is in ~/.withings-mcp/http-token \
             (or WITHINGS_MCP_HTTP_TOKEN)",
            None,
        ));
    };
    let bearer = value.split_once(' ').filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"));
    match bearer {
        Some((_, given)) if same_secret(given.trim_start_matches(' '), token) => Ok(()),
        Some(_) => Err(unauthorized("the bearer token does not match", Some("invalid_token"))),
        None => Err(unauthorized(
            "the Authorization header must use the Bearer scheme: `Authorization: Bearer <token>`",
            Some("invalid_request"),
        )),
    }
}

/// Compares two secrets in time that depends on neither: both are hashed first, so neither the
/// length nor the first differing byte of the server's token can be timed.
fn same_secret(a: &str, b: &str) -> bool {
    let (x, y) = (Sha256::digest(a.as_bytes()), Sha256::digest(b.as_bytes()));
    x.iter().zip(y.iter()).fold(0u8, |diff, (p, q)| diff | (p ^ q)) == 0
}

fn unauthorized(why: &str, error: Option<&str>) -> Reply {
    let challenge = match error {
        Some(code) => format!("Bearer realm=\"withings-mcp\", error=\"{code}\""),
        None => "Bearer realm=\"withings-mcp\"".to_string(),
    };
    let e = RpcError::new(jsonrpc::INVALID_REQUEST, format!("unauthorized: {why}"));
    Reply::rpc_error(401, e).with_header("WWW-Authenticate", &challenge)
}

fn forbidden(why: &str) -> Reply {
    Reply::json(403, &json!({"error": format!("forbidden: {why}")}))
}

pub fn too_large() -> Reply {
    let e =
        RpcError::new(jsonrpc::INVALID_REQUEST, format!("request body exceeds the {BODY_LIMIT}-byte limit"));
    Reply::rpc_error(413, e)
}

/// A loopback host name with an optional port: `localhost`, `127.x.x.x`, `[::1]`.
pub fn host_ok(host: &str) -> bool {
    let host = host.trim();
    let name = match host.strip_prefix('[') {
        Some(rest) => match rest.split_once(']') {
            Some((inside, after)) if after.is_empty() || port_ok(after) => return inside == "::1",
            _ => return false,
        },
        None => match host.split_once(':') {
            Some((name, port)) if port_ok(&format!(":{port}")) => name,
            Some(_) => return false,
            None => host,
        },
    };
    name.eq_ignore_ascii_case("localhost")
        || name.parse::<std::net::Ipv4Addr>().is_ok_and(|ip| ip.is_loopback())
}

/// `:` followed by 1-5 digits.
fn port_ok(s: &str) -> bool {
    s.strip_prefix(':')
        .is_some_and(|p| !p.is_empty() && p.len() <= 5 && p.bytes().all(|b| b.is_ascii_digit()))
}

/// `http(s)://` plus a loopback host and optional port. `null` (sandboxed pages) is refused.
pub fn origin_ok(origin: &str) -> bool {
    let origin = origin.trim();
    let rest = match origin.get(..8).map(str::to_ascii_lowercase).as_deref() {
        Some("https://") => origin.get(8..),
        _ => match origin.get(..7).map(str::to_ascii_lowercase).as_deref() {
            Some("http://") => origin.get(7..),
            _ => None,
        },
    };
    rest.is_some_and(|r| !r.contains('/') && !r.contains('@') && host_ok(r))
}

fn media_types(value: &str) -> impl Iterator<Item = String> + '_ {
    value.split(',').map(|part| part.split(';').next().unwrap_or("").trim().to_ascii_lowercase())
}

/// `application/json`, with or without parameters such as charset.
pub fn content_type_ok(value: &str) -> bool {
    media_types(value).next().is_some_and(|m| m == "application/json")
}

/// An Accept header that allows a JSON response.
pub fn accept_ok(value: &str) -> bool {
    value.trim().is_empty()
        || media_types(value).any(|m| matches!(m.as_str(), "application/json" | "application/*" | "*/*"))
}

pub fn health() -> Reply {
    Reply::json(200, &json!({"status": "ok", "name": "withings-mcp", "version": VERSION}))
}

/// A request this server will not read; `why` names the problem.
pub fn bad_request(why: &str) -> Reply {
    Reply::rpc_error(400, RpcError::new(jsonrpc::PARSE_ERROR, format!("bad request: {why}")))
}

/// A client that went quiet, or dripped, before its request head was complete.
pub fn too_slow(idle: Duration, total: Duration) -> Reply {
    let e = RpcError::new(
        jsonrpc::INVALID_REQUEST,
        format!(
            "request timeout: the request head must arrive within {} s, with no pause over {} s",
            total.as_secs(),
            idle.as_secs()
        ),
    );
    Reply::rpc_error(408, e)
}

pub fn busy() -> Reply {
    Reply::rpc_error(503, RpcError::new(jsonrpc::INTERNAL_ERROR, "too many connections; try again"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs.iter().map(|(k, v)| (k.to_ascii_lowercase(), v.to_string())).collect()
    }

    const TOKEN: &str = "t0ken-123";

    const POST: &[(&str, &str)] = &[
        ("Host", "127.0.0.1:3000"),
        ("Authorization", "Bearer t0ken-123"),
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
    ];

    #[test]
    fn host_and_origin_accept_only_loopback_names() {
        let hosts = [
            ("localhost", true),
            ("LOCALHOST:3000", true),
            ("127.0.0.1", true),
            ("127.8.9.10:80", true),
            ("[::1]", true),
            ("[::1]:3000", true),
            ("evil.example.com", false),
            ("localhost.evil.com", false),
            ("127.0.0.1.nip.io", false),
            ("10.0.0.1:3000", false),
            ("0.0.0.0", false),
            ("[::2]:3000", false),
            ("localhost:", false),
            ("localhost:abc", false),
            ("[::1]x", false),
            ("", false),
        ];
        for (host, ok) in hosts {
            assert_eq!(host_ok(host), ok, "host {host:?}");
        }
        let origins = [
            ("http://localhost:3000", true),
            ("https://127.0.0.1", true),
            ("HTTP://[::1]:8080", true),
            ("null", false),
            ("http://evil.example.com", false),
            ("http://localhost@evil.com", false),
            ("http://localhost/path", false),
            ("file://localhost", false),
            ("localhost", false),
        ];
        for (origin, ok) in origins {
            assert_eq!(origin_ok(origin), ok, "origin {origin:?}");
        }
    }

    #[test]
    fn media_type_checks() {
        for (v, ok) in [
            ("application/json", true),
            ("Application/JSON; charset=utf-8", true),
            ("text/plain", false),
            ("", false),
        ] {
            assert_eq!(content_type_ok(v), ok, "content-type {v:?}");
        }
        let accepts = [
            ("application/json, text/event-stream", true),
            ("*/*", true),
            ("application/*;q=0.9", true),
            ("text/event-stream", false),
            ("text/html", false),
            ("", true),
        ];
        for (v, ok) in accepts {
            assert_eq!(accept_ok(v), ok, "accept {v:?}");
        }
    }

    #[test]
    fn precheck_routes_and_rejects_with_the_right_status() {
        let with = |extra: &[(&str, &str)]| {
            let mut all = h(POST);
            for (k, v) in extra {
                all.retain(|(name, _)| *name != k.to_ascii_lowercase());
                all.push((k.to_ascii_lowercase(), v.to_string()));
            }
            all
        };
        let status = |method: &str, url: &str, headers: &[(String, String)]| match precheck(
            method,
            url,
            headers,
            Some(TOKEN),
        ) {
            Ok(Route::Health) => 1,
            Ok(Route::Mcp(Ok(_))) => 0,
            Ok(Route::Mcp(Err(_))) => 400,
            Err(r) => r.status,
        };
        type Case<'a> = (&'a str, &'a str, Vec<(String, String)>, u16);
        let cases: Vec<Case> = vec![
            ("POST", "/mcp", with(&[]), 0),
            ("POST", "/mcp?x=1", with(&[]), 0),
            ("GET", "/health", with(&[]), 1),
            ("GET", "/mcp", with(&[]), 405),
            ("DELETE", "/mcp", with(&[]), 405),
            ("POST", "/health", with(&[]), 405),
            ("POST", "/other", with(&[]), 404),
            ("POST", "/mcp", with(&[("Host", "evil.example.com")]), 403),
            ("GET", "/health", with(&[("Host", "evil.example.com")]), 403),
            ("POST", "/mcp", with(&[("Origin", "http://evil.example.com")]), 403),
            ("POST", "/mcp", with(&[("Origin", "null")]), 403),
            ("POST", "/mcp", with(&[("Origin", "http://localhost:5173")]), 0),
            ("POST", "/mcp", with(&[("Content-Length", "1048577")]), 413),
            ("POST", "/mcp", with(&[("Content-Length", "1048576")]), 0),
            ("POST", "/mcp", with(&[("Content-Type", "text/plain")]), 415),
            ("POST", "/mcp", with(&[("Accept", "text/event-stream")]), 406),
            ("POST", "/mcp", with(&[("MCP-Protocol-Version", "2025-06-18")]), 0),
            ("POST", "/mcp", with(&[("MCP-Protocol-Version", "2026-07-28")]), 0),
            ("POST", "/mcp", with(&[("MCP-Protocol-Version", "2099-01-01")]), 400),
            ("POST", "/mcp", with(&[("Authorization", "bearer  t0ken-123")]), 0),
            ("POST", "/mcp", with(&[("Authorization", "Bearer t0ken-12")]), 401),
            ("POST", "/mcp", with(&[("Authorization", "Bearer t0ken-1234")]), 401),
            ("POST", "/mcp", with(&[("Authorization", "Bearer")]), 401),
            ("POST", "/mcp", with(&[("Authorization", "Basic t0ken-123")]), 401),
            ("POST", "/mcp", with(&[("Authorization", "t0ken-123")]), 401),
            ("POST", "/mcp", with(&[("Authorization", "")]), 401),
            // The token is checked before anything that would tell a stranger more.
            ("POST", "/mcp", with(&[("Authorization", "Bearer x"), ("Content-Type", "text/plain")]), 401),
            ("POST", "/mcp", with(&[("Authorization", "Bearer x"), ("Content-Length", "9999999")]), 401),
            ("GET", "/health", with(&[("Authorization", "Bearer x")]), 1),
            ("POST", "/mcp", with(&[("Host", "evil.example.com"), ("Authorization", "Bearer x")]), 403),
        ];
        for (method, url, headers, want) in cases {
            assert_eq!(status(method, url, &headers), want, "{method} {url} {headers:?}");
        }
        let without = |name: &str| -> Vec<_> { h(POST).into_iter().filter(|(k, _)| k != name).collect() };
        assert_eq!(status("POST", "/mcp", &without("host")), 403);
        assert_eq!(status("POST", "/mcp", &without("authorization")), 401);
        assert!(matches!(
            precheck("POST", "/mcp", &without("authorization"), None),
            Ok(Route::Mcp(Ok(None)))
        ));
        let Err(r) = precheck("GET", "/mcp", &h(POST), Some(TOKEN)) else { panic!() };
        assert!(r.headers.contains(&("Allow", "POST".to_string())));
        for (auth, challenge) in [
            (None, "Bearer realm=\"withings-mcp\""),
            (Some("Bearer nope"), "Bearer realm=\"withings-mcp\", error=\"invalid_token\""),
        ] {
            let mut headers = without("authorization");
            headers.extend(auth.map(|a| ("authorization".to_string(), a.to_string())));
            let Err(r) = precheck("POST", "/mcp", &headers, Some(TOKEN)) else { panic!() };
            assert_eq!(r.status, 401);
            assert!(r.headers.contains(&("WWW-Authenticate", challenge.to_string())), "{:?}", r.headers);
            let text = String::from_utf8(r.body).unwrap();
            assert!(
                text.contains("unauthorized") && !text.contains(TOKEN) && !text.contains("nope"),
                "{text}"
            );
        }
        let Ok(Route::Mcp(Err(v))) =
            precheck("POST", "/mcp", &with(&[("MCP-Protocol-Version", "garbage")]), Some(TOKEN))
        else {
            panic!()
        };
        assert_eq!(v, "garbage");
    }
}
