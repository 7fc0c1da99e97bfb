//! Parsing a request head: `METHOD /target HTTP/1.x`, then `name: value` lines.

/// A parsed request head: method, target and headers with lowercase names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Head {
    pub method: String,
    pub url: String,
    pub headers: Vec<(String, String)>,
}

/// Parses a request head; `None` for anything that is not `METHOD target HTTP/1.x` plus headers.
pub fn parse_head(raw: &[u8]) -> Option<Head> {
    let text = std::str::from_utf8(raw).ok()?;
    let mut lines = text.split('\n').map(|l| l.trim_end_matches('\r')).skip_while(|l| l.is_empty());
    let mut parts = lines.next()?.split(' ');
    let (method, url, version) = (parts.next()?, parts.next()?, parts.next()?);
    let token = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphabetic());
    if parts.next().is_some() || !token(method) || !url.starts_with('/') || !version.starts_with("HTTP/1.") {
        return None;
    }
    let mut headers = Vec::new();
    for line in lines.take_while(|l| !l.is_empty()) {
        let (name, value) = line.split_once(':')?;
        if name.is_empty() || name.bytes().any(|b| b.is_ascii_whitespace() || b.is_ascii_control()) {
            return None;
        }
        headers.push((name.to_ascii_lowercase(), value.trim().to_string()));
    }
    Some(Head { method: method.to_string(), url: url.to_string(), headers })
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
        for bad in [
            &b"\x16\x03\x01\x02\x00\x01\r\n\r\n"[..],
            b"POST /mcp\r\n\r\n",
            b"POST mcp HTTP/1.1\r\n\r\n",
            b"POST /mcp HTTP/2\r\n\r\n",
            b"POST /mcp HTTP/1.1 extra\r\n\r\n",
            b"POST /mcp HTTP/1.1\r\nno colon\r\n\r\n",
            b"POST /mcp HTTP/1.1\r\nbad name: x\r\n\r\n",
        ] {
            assert_eq!(parse_head(bad), None, "{}", String::from_utf8_lossy(bad));
        }
    }
}
