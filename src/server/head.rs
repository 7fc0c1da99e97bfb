//! Parsing a request head: `METHOD /target HTTP/1.x`, then `name: value` lines, and deciding how
//! the body is framed.
//!
//! Strict on purpose (RFC 9112 §6.3): a head whose framing two readers could understand in two
//! ways (duplicate or conflicting lengths, a transfer coding other than `chunked`, a second
//! `Host`) is refused rather than guessed at, so that no proxy or client library in front of
//! the server can smuggle a second request past the checks of the first.

/// A parsed request head: method, target, headers with lowercase names, and the body's framing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Head {
    pub method: String,
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub framing: Framing,
    /// HTTP/1.1 without `Connection: close`: the client may send another request on the same
    /// connection after this one's answer (RFC 9112 §9.3).
    pub persistent: bool,
}

/// How the body is delimited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// Neither `Content-Length` nor `Transfer-Encoding`: no body.
    Empty,
    /// `Content-Length` (saturated at `u64::MAX`, which is refused as too large later).
    Length(u64),
    /// `Transfer-Encoding: chunked`.
    Chunked,
}

/// Headers that may appear once: two values would be two answers to one question.
const SINGLETONS: &[&str] = &["host", "content-length", "transfer-encoding", "authorization"];

/// Parses a request head; the error says what is wrong with it, for the 400 answer.
pub fn parse_head(raw: &[u8]) -> Result<Head, &'static str> {
    const NOT_HTTP: &str = "not an HTTP/1.1 request line (`METHOD /path HTTP/1.1`)";
    let text = std::str::from_utf8(raw).map_err(|_| "the request head is not UTF-8")?;
    let mut lines = text.split('\n').map(|l| l.trim_end_matches('\r')).skip_while(|l| l.is_empty());
    let mut parts = lines.next().ok_or(NOT_HTTP)?.split(' ');
    let (method, url, version) = match (parts.next(), parts.next(), parts.next(), parts.next()) {
        (Some(m), Some(u), Some(v), None) => (m, u, v),
        _ => return Err(NOT_HTTP),
    };
    let token = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphabetic());
    if !token(method) || !url.starts_with('/') || !matches!(version, "HTTP/1.1" | "HTTP/1.0") {
        return Err(NOT_HTTP);
    }
    let mut headers: Vec<(String, String)> = Vec::new();
    for line in lines.take_while(|l| !l.is_empty()) {
        let (name, value) = line.split_once(':').ok_or("a header line without `:`")?;
        if name.is_empty() || name.bytes().any(|b| b.is_ascii_whitespace() || b.is_ascii_control()) {
            return Err("a header name is empty or holds a space or control character");
        }
        if value.chars().any(|c| c.is_ascii_control() && c != '\t') {
            return Err("a header value holds a control character");
        }
        let name = name.to_ascii_lowercase();
        if SINGLETONS.contains(&name.as_str()) && headers.iter().any(|(k, _)| *k == name) {
            return Err(duplicate(&name));
        }
        headers.push((name, value.trim_matches([' ', '\t']).to_string()));
    }
    let framing = framing(&headers, version)?;
    let close = headers
        .iter()
        .any(|(k, v)| k == "connection" && v.split(',').any(|t| t.trim().eq_ignore_ascii_case("close")));
    let persistent = version == "HTTP/1.1" && !close;
    Ok(Head { method: method.to_string(), url: url.to_string(), headers, framing, persistent })
}

fn duplicate(name: &str) -> &'static str {
    match name {
        "host" => "duplicate Host header",
        "content-length" => "duplicate Content-Length header",
        "transfer-encoding" => "duplicate Transfer-Encoding header",
        _ => "duplicate Authorization header",
    }
}

/// The body's framing from `Content-Length` (digits only) or `Transfer-Encoding` (exactly
/// `chunked`, and only in HTTP/1.1), never both.
fn framing(headers: &[(String, String)], version: &str) -> Result<Framing, &'static str> {
    let get = |name: &str| headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str());
    match (get("content-length"), get("transfer-encoding")) {
        (None, None) => Ok(Framing::Empty),
        (Some(_), Some(_)) => Err("both Content-Length and Transfer-Encoding"),
        (None, Some(te)) if te.eq_ignore_ascii_case("chunked") && version == "HTTP/1.1" => {
            Ok(Framing::Chunked)
        }
        (None, Some(_)) => Err("Transfer-Encoding must be exactly `chunked` (HTTP/1.1 only)"),
        (Some(len), None) if !len.is_empty() && len.bytes().all(|b| b.is_ascii_digit()) => {
            Ok(Framing::Length(len.parse().unwrap_or(u64::MAX)))
        }
        (Some(_), None) => Err("Content-Length must be a decimal number of bytes"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_heads_parse_or_are_refused() {
        let ok = parse_head(
            b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:3000\r\nContent-Type:application/json\r\n\r\n",
        )
        .unwrap();
        assert_eq!((ok.method.as_str(), ok.url.as_str()), ("POST", "/mcp"));
        assert_eq!(
            ok.headers,
            vec![
                ("host".into(), "127.0.0.1:3000".into()),
                ("content-type".into(), "application/json".into())
            ]
        );
        assert_eq!(ok.framing, Framing::Empty);
        assert!(ok.persistent, "HTTP/1.1 keeps the connection unless told otherwise");
        for (head, persistent) in [
            (&b"GET /health HTTP/1.1\r\nConnection: keep-alive, Close\r\n\r\n"[..], false),
            (b"GET /health HTTP/1.0\r\n\r\n", false),
            (b"GET /health HTTP/1.1\r\nConnection: keep-alive\r\n\r\n", true),
        ] {
            assert_eq!(parse_head(head).unwrap().persistent, persistent, "{}", String::from_utf8_lossy(head));
        }
        for bad in [
            &b"\x16\x03\x01\x02\x00\x01\r\n\r\n"[..],
            b"POST /mcp\r\n\r\n",
            b"POST mcp HTTP/1.1\r\n\r\n",
            b"POST /mcp HTTP/2\r\n\r\n",
            b"POST /mcp HTTP/1.2\r\n\r\n",
            b"POST /mcp HTTP/1.1 extra\r\n\r\n",
            b"POST /mcp HTTP/1.1\r\nno colon\r\n\r\n",
            b"POST /mcp HTTP/1.1\r\nbad name: x\r\n\r\n",
            b"POST /mcp HTTP/1.1\r\nX: a\x00b\r\n\r\n",
        ] {
            assert!(parse_head(bad).is_err(), "{}", String::from_utf8_lossy(bad));
        }
    }

    /// Every way to make two readers disagree about where a body ends is refused, by name.
    #[test]
    fn framing_is_unambiguous_or_refused() {
        let head = |extra: &str| {
            parse_head(format!("POST /mcp HTTP/1.1\r\nHost: localhost\r\n{extra}\r\n").as_bytes())
        };
        let ok = [
            ("", Framing::Empty),
            ("Content-Length: 5\r\n", Framing::Length(5)),
            ("Content-Length:  007 \r\n", Framing::Length(7)),
            ("Content-Length: 99999999999999999999999\r\n", Framing::Length(u64::MAX)),
            ("Transfer-Encoding: chunked\r\n", Framing::Chunked),
            ("Transfer-Encoding: Chunked\r\n", Framing::Chunked),
        ];
        for (extra, want) in ok {
            assert_eq!(head(extra).map(|h| h.framing), Ok(want), "{extra:?}");
        }
        let bad = [
            ("Host: evil.example.com\r\n", "duplicate Host"),
            ("HOST: localhost\r\n", "duplicate Host"),
            ("Content-Length: 5\r\nContent-Length: 5\r\n", "duplicate Content-Length"),
            ("Content-Length: 5\r\nContent-Length: 6\r\n", "duplicate Content-Length"),
            ("Content-Length: 5\r\nTransfer-Encoding: chunked\r\n", "both"),
            ("Transfer-Encoding: chunked\r\nContent-Length: 5\r\n", "both"),
            ("Content-Length: +5\r\n", "decimal"),
            ("Content-Length: -5\r\n", "decimal"),
            ("Content-Length: 0x10\r\n", "decimal"),
            ("Content-Length: 5 5\r\n", "decimal"),
            ("Content-Length: 5,5\r\n", "decimal"),
            ("Content-Length: \r\n", "decimal"),
            ("Transfer-Encoding: gzip, chunked\r\n", "exactly `chunked`"),
            ("Transfer-Encoding: chunked, chunked\r\n", "exactly `chunked`"),
            ("Transfer-Encoding: identity\r\n", "exactly `chunked`"),
            ("Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n", "duplicate Transfer-Encoding"),
            ("Authorization: Bearer a\r\nAuthorization: Bearer b\r\n", "duplicate Authorization"),
        ];
        for (extra, why) in bad {
            let err = head(extra).unwrap_err();
            assert!(err.contains(why), "{extra:?}: {err}");
        }
        let http10 = parse_head(b"POST /mcp HTTP/1.0\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n");
        assert!(http10.is_err(), "chunked does not exist in HTTP/1.0");
    }
}
