//! The HTTP request handler, minus the socket: the input is read as a raw request (request line,
//! `name: value` headers until a blank line, then the body) and goes through `precheck` and, when
//! routed to `POST /mcp`, `handle_mcp` exactly as `serve_conn` does; `parse_head` (the server's own
//! reader of request heads) also sees the raw bytes. The Host/Origin/media-type
//! helpers are also called on the raw header values.
//!
//! Invariants: no panic; statuses are valid HTTP codes; a JSON reply body is valid JSON; a request
//! is only routed when its Host is a loopback name and any Origin is a loopback origin (checked
//! against a small independent oracle, against DNS rebinding); `POST /mcp` is only routed with
//! the bearer token; bodies over the limit are refused.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use withings_mcp::server::handle::{decode_name, handle_mcp};
use withings_mcp::server::head::parse_head;
use withings_mcp::server::route::{self as http, BODY_LIMIT, Reply, Route};
use withings_mcp::store::config::Env;
use withings_mcp::tools::Ctx;

fn ctx() -> Ctx {
    Ctx {
        // Demo mode answers without network; the URLs point at the discard port on loopback as a
        // guard, so that a tool that does reach for the network fails fast.
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

/// The oracle: the host part (port stripped) names loopback in one of the three spellings.
fn loopback_host(h: &str) -> bool {
    let h = h.trim().to_ascii_lowercase();
    let name = match h.strip_prefix("[::1]") {
        Some(port) => return port.is_empty() || port.starts_with(':'),
        None => h.split(':').next().unwrap_or(""),
    };
    name == "localhost" || (name.starts_with("127.") && name.parse::<std::net::Ipv4Addr>().is_ok())
}

fn check_reply(r: &Reply) {
    assert!((100..600).contains(&r.status), "status {}", r.status);
    let json = r.headers.iter().any(|(k, v)| k.eq_ignore_ascii_case("content-type") && v.contains("json"));
    if json {
        let v: Result<Value, _> = serde_json::from_slice(&r.body);
        assert!(v.is_ok(), "JSON reply is not JSON: {:?}", String::from_utf8_lossy(&r.body));
    }
}

fuzz_target!(|data: &[u8]| {
    // The server's own head parser, on the raw bytes as they come off the socket.
    if let Ok(h) = parse_head(data) {
        assert!(!h.method.is_empty() && h.method.bytes().all(|b| b.is_ascii_alphabetic()), "{h:?}");
        assert!(h.url.starts_with('/'), "{h:?}");
        assert!(h.headers.iter().all(|(k, _)| !k.is_empty() && k.bytes().all(|b| !b.is_ascii_uppercase())), "{h:?}");
    }
    let (head, body) = match data.windows(2).position(|w| w == b"\n\n") {
        Some(i) => (data.get(..i).unwrap_or(&[]), data.get(i + 2..).unwrap_or(&[])),
        None => (data, &[][..]),
    };
    let head = String::from_utf8_lossy(head);
    let mut lines = head.lines();
    let first = lines.next().unwrap_or("");
    let mut parts = first.splitn(2, ' ');
    let method = parts.next().unwrap_or("").to_string();
    let url = parts.next().unwrap_or("/").to_string();
    // tiny_http hands over lowercase names (serve_one lowercases them).
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .take(32)
        .collect();
    let get = |name: &str| headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str());
    for (_, v) in &headers {
        if http::host_ok(v) {
            assert!(loopback_host(v), "host_ok accepted {v:?}");
        }
        if http::origin_ok(v) {
            let lower = v.trim().to_ascii_lowercase();
            let rest = lower.strip_prefix("http://").or_else(|| lower.strip_prefix("https://"));
            assert!(rest.is_some_and(loopback_host), "origin_ok accepted {v:?}");
        }
        let _ = (http::content_type_ok(v), http::accept_ok(v), decode_name(v));
    }
    // With a token, `POST /mcp` is routed only when the request carries it.
    const TOKEN: &str = "fuzz-token";
    if let Ok(Route::Mcp(_)) = http::precheck(&method, &url, &headers, Some(TOKEN)) {
        let auth = get("authorization").unwrap_or("");
        assert!(auth.len() > TOKEN.len() && auth.ends_with(TOKEN), "routed with {auth:?}");
    }
    // Without one (`--no-token`), so that the body handling is reached.
    match http::precheck(&method, &url, &headers, None) {
        Err(reply) => check_reply(&reply),
        Ok(route) => {
            assert!(get("host").is_some_and(loopback_host), "routed with host {:?}", get("host"));
            assert!(get("origin").is_none_or(|o| http::origin_ok(o)));
            if let Route::Mcp(version) = route {
                // serve_conn refuses a longer body before reading it all.
                if body.len() <= BODY_LIMIT {
                    check_reply(&handle_mcp(&ctx(), version, &headers, body));
                }
            }
        }
    }
});
