//! The loopback listener for `auth`'s OAuth callback, on std: it hands over one request with a
//! complete head at a time, on the calling thread.
//!
//! It replaces tiny_http, which served only this and cost 80 KB of the static binary (its
//! threads, channels and HTTP machinery). Connections are accepted without blocking and kept
//! until their head has arrived, so a browser's idle pre-connection or a stalled client never
//! holds up the real callback. A head is read by the same strict reader as HTTP mode (`read`,
//! `head`), and every answer says `Connection: close`.

use std::io::{self, BufReader};
use std::net::{TcpListener, TcpStream};
use std::time::{Duration, Instant};

use crate::server::head::Head;
use crate::server::http::{linger, write_reply};
use crate::server::read::{HEAD_LIMIT, HeadError, Timed, read_head};
use crate::server::route::Reply;

/// A connection has this long to send its whole request head, then it is answered 408.
const HEAD_TIME: Duration = Duration::from_secs(5);
/// How often connections still sending their head are looked at.
const POLL: Duration = Duration::from_millis(20);
/// Connections still sending their head; beyond this, the oldest is dropped.
const MAX_WAITING: usize = 32;

/// A bound listener and the connections whose head is still on its way.
pub struct Listener {
    listener: TcpListener,
    waiting: Vec<(TcpStream, Instant)>,
}

/// One request whose head has been read. Answer it with `respond`.
pub struct Request {
    stream: TcpStream,
    head: Head,
}

impl Request {
    /// The request target: path and query, e.g. `/callback?code=…&state=…`.
    pub fn url(&self) -> &str {
        &self.head.url
    }

    /// Answers with an HTML page and closes the connection; a client already gone is ignored.
    pub fn respond(self, status: u16, html: String) {
        let reply = Reply::empty(status).with_header("Content-Type", "text/html; charset=utf-8");
        let reply = Reply { body: html.into_bytes(), ..reply };
        write_reply(&self.stream, &reply, self.head.method == "HEAD", false);
    }
}

/// How far a connection's request head has arrived.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Arrival {
    /// Not all of it yet.
    Partial,
    /// All of it, or more than a head may hold: read it now.
    Complete,
    /// The client closed, or the socket failed.
    Closed,
}

impl Listener {
    /// Binds `addr` (e.g. `127.0.0.1:3000` or `[::1]:3000`).
    pub fn bind(addr: &str) -> io::Result<Listener> {
        let listener = TcpListener::bind(addr)?;
        listener.set_nonblocking(true)?;
        Ok(Listener { listener, waiting: Vec::new() })
    }

    /// The next request with a complete head, waiting at most `wait` for one; `None` when none
    /// came. Requests that are malformed, too large or too slow are answered here and skipped.
    pub fn next(&mut self, wait: Duration) -> io::Result<Option<Request>> {
        let deadline = Instant::now() + wait;
        loop {
            self.accept()?;
            if let Some(request) = self.take_complete() {
                return Ok(Some(request));
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Ok(None);
            }
            std::thread::sleep(left.min(POLL));
        }
    }

    /// Takes every connection waiting to be accepted.
    fn accept(&mut self) -> io::Result<()> {
        loop {
            match self.listener.accept() {
                Ok((stream, _)) => {
                    if stream.set_nonblocking(true).is_err() {
                        continue;
                    }
                    if self.waiting.len() >= MAX_WAITING {
                        self.waiting.remove(0);
                    }
                    self.waiting.push((stream, Instant::now()));
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(()),
                // The listener itself is broken: nothing more will come.
                Err(e) if e.kind() == io::ErrorKind::InvalidInput => return Err(e),
                // A connection that died before it was accepted, or a full file table: later.
                Err(_) => return Ok(()),
            }
        }
    }

    /// The first waiting connection whose head has arrived, read; closed connections are
    /// dropped and those out of time are answered 408.
    fn take_complete(&mut self) -> Option<Request> {
        let mut found = None;
        for (stream, since) in std::mem::take(&mut self.waiting) {
            if found.is_some() {
                self.waiting.push((stream, since));
                continue;
            }
            match arrival(&stream) {
                Arrival::Closed => {}
                Arrival::Partial if since.elapsed() < HEAD_TIME => self.waiting.push((stream, since)),
                // Complete, or late: the reader below answers a late one 408.
                _ => found = read(stream),
            }
        }
        found
    }
}

/// Looks, without reading, at what the connection has sent so far.
fn arrival(stream: &TcpStream) -> Arrival {
    let mut seen = vec![0u8; HEAD_LIMIT + 1];
    match stream.peek(&mut seen) {
        Ok(0) => Arrival::Closed,
        Ok(n) if n > HEAD_LIMIT => Arrival::Complete,
        Ok(n) => {
            // Blank lines before the request line are allowed; the head ends at the next one.
            let head = seen.get(..n).unwrap_or_default();
            let start = head.iter().position(|b| !matches!(b, b'\r' | b'\n')).unwrap_or(n);
            let rest = head.get(start..).unwrap_or_default();
            match rest.windows(2).any(|w| w == b"\n\n") || rest.windows(3).any(|w| w == b"\n\r\n") {
                true => Arrival::Complete,
                false => Arrival::Partial,
            }
        }
        Err(e) if e.kind() == io::ErrorKind::WouldBlock => Arrival::Partial,
        Err(_) => Arrival::Closed,
    }
}

/// Reads a head that has arrived (its bytes wait in the socket, so the clocks are short), or
/// answers the connection if its head is refused.
fn read(stream: TcpStream) -> Option<Request> {
    stream.set_nonblocking(false).ok()?;
    let timed = Timed::new(&stream, Duration::from_millis(100), Duration::from_millis(500));
    let head = read_head(&mut BufReader::new(timed));
    let refused = match head {
        Ok(head) => return Some(Request { stream, head }),
        Err(HeadError::Gone) => return None,
        Err(HeadError::Slow) => 408,
        Err(HeadError::TooLarge) => 431,
        Err(HeadError::Malformed(_)) => 400,
    };
    write_reply(&stream, &Reply::empty(refused), false, false);
    linger(&stream);
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};

    fn listener() -> (Listener, String) {
        let l = Listener::bind("127.0.0.1:0").unwrap();
        let addr = l.listener.local_addr().unwrap().to_string();
        (l, addr)
    }

    fn answer(mut client: TcpStream) -> String {
        let mut out = String::new();
        client.read_to_string(&mut out).unwrap();
        out
    }

    #[test]
    fn an_idle_connection_does_not_hold_up_a_complete_request() {
        let (mut l, addr) = listener();
        let _idle = TcpStream::connect(&addr).unwrap();
        let mut partial = TcpStream::connect(&addr).unwrap();
        partial.write_all(b"GET /callback?code=a HTTP/1.1\r\nHost: x\r\n").unwrap();
        let mut real = TcpStream::connect(&addr).unwrap();
        real.write_all(b"GET /callback?code=b&state=s HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
        let started = Instant::now();
        let request = l.next(Duration::from_secs(3)).unwrap().expect("the complete request");
        assert!(started.elapsed() < Duration::from_secs(1), "{:?}", started.elapsed());
        assert_eq!(request.url(), "/callback?code=b&state=s");
        request.respond(200, "<p>done</p>".into());
        let page = answer(real);
        assert!(page.starts_with("HTTP/1.1 200 OK\r\n"), "{page}");
        assert!(page.contains("Content-Type: text/html; charset=utf-8\r\n"), "{page}");
        assert!(page.contains("Connection: close\r\n"), "{page}");
        assert!(page.ends_with("\r\n\r\n<p>done</p>"), "{page}");
        // The partial one completes later and is handed over then.
        partial.write_all(b"\r\n").unwrap();
        let request = l.next(Duration::from_secs(3)).unwrap().expect("the late request");
        assert_eq!(request.url(), "/callback?code=a");
    }

    #[test]
    fn nothing_comes_within_the_wait() {
        let (mut l, _addr) = listener();
        let started = Instant::now();
        assert!(l.next(Duration::from_millis(100)).unwrap().is_none());
        assert!(started.elapsed() >= Duration::from_millis(100));
    }

    #[test]
    fn refused_heads_are_answered_and_skipped() {
        let (mut l, addr) = listener();
        let mut bad = TcpStream::connect(&addr).unwrap();
        bad.write_all(b"GET callback HTTP/1.1\r\n\r\n").unwrap();
        let mut huge = TcpStream::connect(&addr).unwrap();
        huge.write_all(format!("GET /{} HTTP/1.1\r\n\r\n", "a".repeat(HEAD_LIMIT)).as_bytes()).unwrap();
        drop(TcpStream::connect(&addr).unwrap());
        assert!(l.next(Duration::from_millis(300)).unwrap().is_none());
        assert!(answer(bad).starts_with("HTTP/1.1 400 "));
        assert!(answer(huge).starts_with("HTTP/1.1 431 "));
        assert!(l.waiting.is_empty());
    }
}
