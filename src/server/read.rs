//! Reading one request off a connection: the head (at most `HEAD_LIMIT` bytes) and a body by
//! `Content-Length` or chunked (at most `BODY_LIMIT` bytes), or draining a refused body, each
//! under a clock (`Timed`), so that a slow client only ever holds its own connection, and not
//! for long.

use std::io::{self, BufRead, Read};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use crate::server::head::{Framing, Head, parse_head};
use crate::server::route::BODY_LIMIT;

/// The largest request head (request line and headers).
pub const HEAD_LIMIT: usize = 16 * 1024;
/// An oversized body is read and discarded up to this much, so the client sees the 413.
const DRAIN_LIMIT: usize = 64 * 1024 * 1024;

/// A socket read under two clocks: each read waits at most `idle` for a byte, and no read
/// starts after `deadline`. The second clock is what stops a client that drips one byte just
/// before each idle timeout from holding its connection forever.
pub struct Timed<'a> {
    stream: &'a TcpStream,
    idle: Duration,
    deadline: Instant,
}

impl<'a> Timed<'a> {
    pub fn new(stream: &'a TcpStream, idle: Duration, total: Duration) -> Timed<'a> {
        Timed { stream, idle, deadline: Instant::now() + total }
    }

    /// Starts the next phase of the request (the body after the head) with clocks of its own.
    pub fn restart(&mut self, idle: Duration, total: Duration) {
        self.idle = idle;
        self.deadline = Instant::now() + total;
    }
}

impl Read for Timed<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(io::ErrorKind::TimedOut.into());
        }
        self.stream.set_read_timeout(Some(self.idle.min(left)))?;
        let mut stream = self.stream;
        stream.read(buf)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeadError {
    /// The client closed before a complete head.
    Gone,
    /// The client went quiet, or took too long in all, before a complete head.
    Slow,
    TooLarge,
    /// Not a request head this server accepts; says why.
    Malformed(&'static str),
}

/// Reads up to the blank line that ends the head, at most `HEAD_LIMIT` bytes.
pub fn read_head(reader: &mut dyn BufRead) -> Result<Head, HeadError> {
    let mut raw = Vec::new();
    loop {
        let room = (HEAD_LIMIT + 1).saturating_sub(raw.len()) as u64;
        let mut line = Vec::new();
        match reader.take(room).read_until(b'\n', &mut line) {
            Ok(0) => return Err(HeadError::Gone),
            Err(e) if timed_out(&e) => return Err(HeadError::Slow),
            Err(_) => return Err(HeadError::Gone),
            Ok(_) => {}
        }
        let blank = line == b"\r\n" || line == b"\n";
        match (blank, raw.is_empty()) {
            // Blank lines before the request line are tolerated (RFC 9112 §2.2).
            (true, true) => continue,
            (true, false) => return parse_head(&raw).map_err(HeadError::Malformed),
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

/// A read that gave up on the clock: `WouldBlock` is how Linux reports a socket read timeout.
fn timed_out(e: &io::Error) -> bool {
    matches!(e.kind(), io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyError {
    Gone,
    TooLarge,
    Malformed,
}

/// Reads a body of at most `BODY_LIMIT` bytes as the head frames it.
pub fn read_body(reader: &mut dyn BufRead, framing: Framing) -> Result<Vec<u8>, BodyError> {
    let len = match framing {
        Framing::Empty => return Ok(Vec::new()),
        Framing::Chunked => return read_chunked(reader),
        Framing::Length(n) if n > BODY_LIMIT as u64 => return Err(BodyError::TooLarge),
        Framing::Length(n) => n as usize,
    };
    let mut body = vec![0u8; len];
    reader.read_exact(&mut body).map_err(|_| BodyError::Gone)?;
    Ok(body)
}

fn read_chunked(reader: &mut dyn BufRead) -> Result<Vec<u8>, BodyError> {
    let mut body = Vec::new();
    loop {
        let mut line = Vec::new();
        match reader.take(1024).read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => return Err(BodyError::Gone),
            Ok(_) => {}
        }
        let text = std::str::from_utf8(&line).map_err(|_| BodyError::Malformed)?;
        // chunk-size is 1*HEXDIG (RFC 9112 §7.1): no sign, no `0x`, no spaces inside.
        let size_text = text.trim_end().split(';').next().unwrap_or("").trim_end_matches([' ', '\t']);
        if size_text.is_empty() || !size_text.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(BodyError::Malformed);
        }
        let size = match size_text.trim_start_matches('0') {
            digits if digits.len() > 8 => return Err(BodyError::TooLarge),
            digits => usize::from_str_radix(digits, 16).unwrap_or(0),
        };
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
        if size > BODY_LIMIT - body.len() {
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
pub fn drain(reader: &mut dyn BufRead, framing: Framing) {
    let (limit, chunked) = match framing {
        Framing::Empty => return,
        Framing::Length(n) => (n.min(DRAIN_LIMIT as u64) as usize, false),
        Framing::Chunked => (DRAIN_LIMIT, true),
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
    use std::io::{Cursor, Write};
    use std::net::TcpListener;

    use super::*;

    #[test]
    fn heads_and_bodies_are_read_within_their_limits() {
        let mut r = Cursor::new(b"\r\nGET /health HTTP/1.1\r\nHost: localhost\r\n\r\n".to_vec());
        assert_eq!(read_head(&mut r).unwrap().url, "/health");
        let mut huge = b"GET / HTTP/1.1\r\nX: ".to_vec();
        huge.extend(std::iter::repeat_n(b'a', HEAD_LIMIT));
        assert_eq!(read_head(&mut Cursor::new(huge)), Err(HeadError::TooLarge));
        assert_eq!(read_head(&mut Cursor::new(b"GET / HTTP/1.1\r\nHost: x".to_vec())), Err(HeadError::Gone));
        let dup = b"GET / HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n".to_vec();
        assert_eq!(read_head(&mut Cursor::new(dup)), Err(HeadError::Malformed("duplicate Host header")));

        let body = |bytes: &[u8], framing| read_body(&mut Cursor::new(bytes.to_vec()), framing);
        assert_eq!(body(b"{}xyz", Framing::Length(2)), Ok(b"{}".to_vec()));
        assert_eq!(body(b"{}", Framing::Empty), Ok(Vec::new()));
        assert_eq!(body(b"", Framing::Length(BODY_LIMIT as u64 + 1)), Err(BodyError::TooLarge));
        assert_eq!(body(b"{", Framing::Length(5)), Err(BodyError::Gone));
        type Case<'a> = (&'a [u8], Result<&'a [u8], BodyError>);
        let cases: [Case; 9] = [
            (b"2\r\n{\"\r\n3;ext=1\r\na\":\r\n0\r\nTrailer: 1\r\n\r\n", Ok(b"{\"a\":")),
            (b"0002\r\n{}\r\n0\r\n\r\n", Ok(b"{}")),
            (b"zz\r\n", Err(BodyError::Malformed)),
            (b"+2\r\n{}\r\n0\r\n\r\n", Err(BodyError::Malformed)),
            (b"0x2\r\n{}\r\n0\r\n\r\n", Err(BodyError::Malformed)),
            (b"1 1\r\n{}\r\n0\r\n\r\n", Err(BodyError::Malformed)),
            (b"2\r\n{}XX0\r\n\r\n", Err(BodyError::Malformed)),
            (b"ffffffffffffffff\r\n", Err(BodyError::TooLarge)),
            (b"100001\r\n", Err(BodyError::TooLarge)),
        ];
        for (input, want) in cases {
            assert_eq!(
                body(input, Framing::Chunked),
                want.map(<[u8]>::to_vec),
                "{}",
                String::from_utf8_lossy(input)
            );
        }
    }

    /// A connected pair on loopback: the server's end and the client's.
    fn pair() -> (TcpStream, TcpStream) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        (listener.accept().unwrap().0, client)
    }

    /// A silent client is dropped by the idle clock; a dripping one, which never lets the idle
    /// clock run out, by the clock of the whole head.
    #[test]
    fn slow_heads_are_given_up_on_by_either_clock() {
        let (server, mut client) = pair();
        client.write_all(b"GET /health HTTP/1.1\r\n").unwrap();
        let started = Instant::now();
        let mut r =
            io::BufReader::new(Timed::new(&server, Duration::from_millis(100), Duration::from_secs(30)));
        assert_eq!(read_head(&mut r).map(|_| ()), Err(HeadError::Slow));
        assert!(started.elapsed() < Duration::from_secs(10));

        let (server, mut client) = pair();
        let drip = std::thread::spawn(move || {
            for _ in 0..100 {
                if client.write_all(b"X").is_err() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        });
        let mut r =
            io::BufReader::new(Timed::new(&server, Duration::from_secs(5), Duration::from_millis(300)));
        // Without the total clock the drip would last 2 s and end in a close (`Gone`).
        assert_eq!(read_head(&mut r).map(|_| ()), Err(HeadError::Slow));
        drop(r);
        drop(server);
        drip.join().unwrap();
    }
}
