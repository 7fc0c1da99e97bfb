//! Reading one request off a connection: the head (at most `HEAD_LIMIT` bytes) and a body by
//! `Content-Length` or chunked (at most `BODY_LIMIT` bytes), or draining a refused body.

use std::io::{BufRead, Read};

use crate::server::head::{Head, parse_head};
use crate::server::route::{BODY_LIMIT, Headers, header};

/// The largest request head (request line and headers).
pub const HEAD_LIMIT: usize = 16 * 1024;
/// An oversized body is read and discarded up to this much, so the client sees the 413.
const DRAIN_LIMIT: usize = 64 * 1024 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeadError {
    /// The client closed or timed out before a complete head.
    Gone,
    TooLarge,
    Malformed,
}

/// Reads up to the blank line that ends the head, at most `HEAD_LIMIT` bytes.
pub fn read_head(reader: &mut dyn BufRead) -> std::result::Result<Head, HeadError> {
    let mut raw = Vec::new();
    loop {
        let room = (HEAD_LIMIT + 1).saturating_sub(raw.len()) as u64;
        let mut line = Vec::new();
        match reader.take(room).read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => return Err(HeadError::Gone),
            Ok(_) => {}
        }
        let blank = line == b"\r\n" || line == b"\n";
        match (blank, raw.is_empty()) {
            // Blank lines before the request line are tolerated (RFC 9112 §2.2).
            (true, true) => continue,
            (true, false) => return parse_head(&raw).ok_or(HeadError::Malformed),
            _ => raw.extend_from_slice(&line),
        }
        if raw.len() > HEAD_LIMIT {
            return Err(HeadError::TooLarge);
        }
        if !line.ends_with(b"\n") {
            return Err(HeadError::Gone);
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyError {
    Gone,
    TooLarge,
    Malformed,
}

/// Reads a body of at most `BODY_LIMIT` bytes, by `Content-Length` or chunked; none without either.
pub fn read_body(reader: &mut dyn BufRead, headers: &Headers) -> std::result::Result<Vec<u8>, BodyError> {
    let chunked =
        header(headers, "transfer-encoding").is_some_and(|t| t.to_ascii_lowercase().contains("chunked"));
    if chunked {
        return read_chunked(reader);
    }
    let len = match header(headers, "content-length") {
        None => return Ok(Vec::new()),
        Some(v) => v.trim().parse::<usize>().map_err(|_| BodyError::Malformed)?,
    };
    if len > BODY_LIMIT {
        return Err(BodyError::TooLarge);
    }
    let mut body = vec![0u8; len];
    reader.read_exact(&mut body).map_err(|_| BodyError::Gone)?;
    Ok(body)
}

fn read_chunked(reader: &mut dyn BufRead) -> std::result::Result<Vec<u8>, BodyError> {
    let mut body = Vec::new();
    loop {
        let mut line = Vec::new();
        match reader.take(1024).read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => return Err(BodyError::Gone),
            Ok(_) => {}
        }
        let text = std::str::from_utf8(&line).map_err(|_| BodyError::Malformed)?;
        let size_text = text.trim().split(';').next().unwrap_or("");
        let size = usize::from_str_radix(size_text, 16).map_err(|_| BodyError::Malformed)?;
        if size == 0 {
            // Trailers, then the final blank line.
            loop {
                let mut t = Vec::new();
                match reader.take(1024).read_until(b'\n', &mut t) {
                    Ok(0) | Err(_) => return Err(BodyError::Gone),
                    Ok(_) if t == b"\r\n" || t == b"\n" => return Ok(body),
                    Ok(_) => {}
                }
            }
        }
        if body.len() + size > BODY_LIMIT {
            return Err(BodyError::TooLarge);
        }
        let start = body.len();
        body.resize(start + size, 0);
        reader.read_exact(&mut body[start..]).map_err(|_| BodyError::Gone)?;
        let mut crlf = [0u8; 2];
        reader.read_exact(&mut crlf).map_err(|_| BodyError::Gone)?;
        if &crlf != b"\r\n" {
            return Err(BodyError::Malformed);
        }
    }
}

/// Reads and discards what is left of a refused body (bounded), so the client gets to read the
/// answer instead of a reset; a client that stalls meanwhile times out.
pub fn drain(reader: &mut dyn BufRead, headers: &Headers) {
    let announced = header(headers, "content-length").and_then(|v| v.trim().parse::<usize>().ok());
    let chunked = header(headers, "transfer-encoding").is_some();
    let limit = match (announced, chunked) {
        (Some(n), false) => n.min(DRAIN_LIMIT),
        (_, true) => DRAIN_LIMIT,
        (None, false) => return,
    };
    let mut left = limit;
    let mut chunk = [0u8; 16 * 1024];
    while left > 0 {
        match reader.read(&mut chunk[..left.min(16 * 1024)]) {
            Ok(0) | Err(_) => return,
            Ok(n) => {
                left -= n;
                // The end of a chunked body: stop before waiting for bytes that will not come.
                if chunked && chunk[..n].ends_with(b"0\r\n\r\n") {
                    return;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heads_and_bodies_are_read_within_their_limits() {
        let mut r = std::io::Cursor::new(b"\r\nGET /health HTTP/1.1\r\nHost: localhost\r\n\r\n".to_vec());
        assert_eq!(read_head(&mut r).unwrap().url, "/health");
        let mut huge = b"GET / HTTP/1.1\r\nX: ".to_vec();
        huge.extend(std::iter::repeat_n(b'a', HEAD_LIMIT));
        assert_eq!(read_head(&mut std::io::Cursor::new(huge)), Err(HeadError::TooLarge));
        assert_eq!(
            read_head(&mut std::io::Cursor::new(b"GET / HTTP/1.1\r\nHost: x".to_vec())),
            Err(HeadError::Gone)
        );
        let h = |k: &str, v: &str| vec![(k.to_string(), v.to_string())];
        let body = read_body(&mut std::io::Cursor::new(b"{}xyz".to_vec()), &h("content-length", "2"));
        assert_eq!(body, Ok(b"{}".to_vec()));
        let chunked = b"2\r\n{\"\r\n3;ext=1\r\na\":\r\n0\r\nTrailer: 1\r\n\r\n".to_vec();
        assert_eq!(
            read_body(&mut std::io::Cursor::new(chunked), &h("transfer-encoding", "chunked")),
            Ok(b"{\"a\":".to_vec())
        );
        let big = (BODY_LIMIT + 1).to_string();
        assert_eq!(
            read_body(&mut std::io::Cursor::new(Vec::new()), &h("content-length", &big)),
            Err(BodyError::TooLarge)
        );
        let over = format!("{:x}\r\n", BODY_LIMIT + 1).into_bytes();
        assert_eq!(
            read_body(&mut std::io::Cursor::new(over), &h("transfer-encoding", "chunked")),
            Err(BodyError::TooLarge)
        );
        assert_eq!(
            read_body(&mut std::io::Cursor::new(b"zz\r\n".to_vec()), &h("transfer-encoding", "chunked")),
            Err(BodyError::Malformed)
        );
        assert_eq!(
            read_body(&mut std::io::Cursor::new(b"{".to_vec()), &h("content-length", "5")),
            Err(BodyError::Gone)
        );
    }
}
