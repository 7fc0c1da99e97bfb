//! Loopback Streamable HTTP: stateless, JSON responses only, one request at a time.
//!
//! Each connection gets a short-lived I/O thread that reads its head and body under a timeout
//! and writes its answer; only the complete message crosses to the calling thread, which handles
//! every MCP message, one at a time, in order of completion. So a client that stalls (slow loris)
//! or never reads its answer holds up only its own connection, never the handler or another
//! client. A connection may carry several requests (HTTP/1.1 keep-alive): it waits for the next
//! one on its own thread, for at most `KEEP_IDLE`, which the answer announces so that clients
//! stop reusing it first; an idle connection is the first to give its place to a new one
//! (`conns`). Closing after every answer instead trips a client that has not read a large
//! answer yet: Node's fetch (undici) asserts when the server ends such a connection.
//!
//! Why not tiny_http here (README, "Architecture"): tiny_http 0.12 reads heads on a pool that
//! queues new connections behind busy threads and has no read timeouts, so a handful of stalled
//! clients froze every later one. HTTP/1.1 for one JSON POST is small enough to read by hand;
//! the OAuth callback of `auth` is read the same way (`callback`).
//!
//! The checks (Host/Origin against DNS rebinding, media types, body size, protocol headers) live
//! in `route` as pure functions over a header list; this file only does the I/O.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{IpAddr, SocketAddr, TcpListener, TcpStream};
use std::sync::{Arc, Condvar, Mutex, PoisonError, mpsc};
use std::time::Duration;

use crate::mcp::jsonrpc::{self, RpcError};
use crate::server::Options;
use crate::server::conns::{Conns, Ticket};
use crate::server::handle::handle_mcp;
use crate::server::read::{BodyError, HeadError, Timed, drain, read_body, read_head};
use crate::server::route::{self, Reply, Route, header, precheck};
use crate::store::config::{Config, Key};
use crate::store::http_token::{self, Origin};
use crate::tools::Ctx;
use crate::withings::sign;
use crate::{Error, Result};

/// The address used when neither flags nor environment name one.
pub const DEFAULT_HOST: &str = "127.0.0.1";
pub const DEFAULT_PORT: u16 = 3000;
/// A client whose request head is incomplete and that sends nothing for this long is dropped
/// (CONTRACT §8.3)...
const HEAD_IDLE: Duration = Duration::from_secs(2);
/// ...and so is one that takes longer than this for the whole head, however it drips.
const HEAD_TIME: Duration = Duration::from_secs(5);
/// A client that sends or reads nothing for this long during its body or answer is dropped...
const IO_TIMEOUT: Duration = Duration::from_secs(10);
/// ...and so is one whose body takes longer than this in all (1 MiB needs milliseconds here).
const BODY_TIME: Duration = Duration::from_secs(30);
/// A kept-alive connection with no new request for this long is closed...
const KEEP_IDLE: Duration = Duration::from_secs(5);
/// ...and so is one that has carried this many requests.
const KEEP_MAX: usize = 100;
/// Connections served at once (a loopback server for one user). A new connection beyond it
/// takes the place of the oldest slow one (`conns`); 503 only when every one is being handled.
const MAX_CONNECTIONS: usize = 256;

/// Serves MCP over HTTP on a loopback address until the process is stopped.
pub fn run(ctx: &Ctx, opts: &Options, cfg: &Config) -> Result<()> {
    let (host, port) = address(cfg, opts)?;
    let ip = bind_ip(&host)?;
    let listener = TcpListener::bind(SocketAddr::new(ip, port))
        .map_err(|e| Error::io(format!("listening on {host}:{port}"), e))?;
    let bound = listener.local_addr().map_err(|e| Error::io("listening socket", e))?;
    let token = token(ctx, opts)?;
    // Tests and scripts parse this line for the real port when asked for port 0.
    eprintln!("withings-mcp: listening on http://{bound}/mcp (GET /health)");
    let (events, inbox) = mpsc::channel::<Event>();
    std::thread::spawn(move || accept(&listener, &events, token));
    for event in inbox {
        match event {
            Event::Message(job) => {
                let reply = handle_mcp(ctx, job.version, &job.headers, &job.body);
                job.reply.send(reply);
            }
            Event::Failed(e) => return Err(Error::io("accepting HTTP connections", e)),
        }
    }
    Err(Error::io("accepting HTTP connections", std::io::Error::other("the connection thread stopped")))
}

/// The token `POST /mcp` needs, unless `--no-token`; says on stderr which, and shows a new
/// token the one time it is created (CONTRACT §8.3).
fn token(ctx: &Ctx, opts: &Options) -> Result<Option<Arc<str>>> {
    if opts.no_token {
        eprintln!(
            "withings-mcp: --no-token: POST /mcp is open to every local user and program, with no bearer token"
        );
        return Ok(None);
    }
    let token = http_token::load_or_create(&ctx.env, &|| sign::random_hex(32))?;
    if let Origin::Created(path) = &token.origin {
        eprintln!(
            "withings-mcp: created an HTTP token in {} (shown this once): Authorization: Bearer {}",
            path.display(),
            token.secret
        );
    }
    Ok(Some(Arc::from(token.secret)))
}

/// A complete MCP message for the handling thread; the answer goes back on `reply`.
struct Job {
    version: Result<Option<&'static str>, String>,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
    reply: Replier,
}

/// Where the handling thread leaves one job's answer for the connection thread that waits on
/// it. A one-shot slot rather than a second `mpsc` channel type: each channel type compiles
/// std's three channel flavours again (binary size).
struct Slot {
    answer: Mutex<Answer>,
    ready: Condvar,
}

enum Answer {
    Waiting,
    Done(Reply),
    /// The job was dropped unanswered (the handling thread is shutting down).
    Dropped,
}

impl Slot {
    /// Blocks until the job is answered; `None` when it never will be.
    fn wait(&self) -> Option<Reply> {
        let mut answer = self.answer.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            match std::mem::replace(&mut *answer, Answer::Waiting) {
                Answer::Done(reply) => return Some(reply),
                Answer::Dropped => return None,
                Answer::Waiting => answer = self.ready.wait(answer).unwrap_or_else(PoisonError::into_inner),
            }
        }
    }
}

/// The handling thread's end of a [`Slot`]: answers once, or says on drop that no answer comes.
struct Replier(Arc<Slot>);

impl Replier {
    fn send(self, reply: Reply) {
        self.settle(Answer::Done(reply));
    }

    fn settle(&self, outcome: Answer) {
        let mut answer = self.0.answer.lock().unwrap_or_else(PoisonError::into_inner);
        if matches!(*answer, Answer::Waiting) {
            *answer = outcome;
            self.0.ready.notify_one();
        }
    }
}

impl Drop for Replier {
    fn drop(&mut self) {
        self.settle(Answer::Dropped);
    }
}

enum Event {
    Message(Job),
    Failed(std::io::Error),
}

/// Hands every connection to an I/O thread of its own until the listener fails.
fn accept(listener: &TcpListener, events: &mpsc::Sender<Event>, token: Option<Arc<str>>) {
    let conns = Conns::new(MAX_CONNECTIONS);
    for conn in listener.incoming() {
        match conn {
            Ok(stream) => {
                let stream = Arc::new(stream);
                let ticket = conns.admit(&stream);
                let (events, token) = (events.clone(), token.clone());
                std::thread::spawn(move || match ticket {
                    Some(ticket) => serve_conn(&stream, &events, &ticket, token.as_deref()),
                    None => write_reply(&stream, &route::busy(), false, false),
                });
            }
            // A connection that died before it was accepted, or a full file table: keep going.
            Err(e) if e.kind() != std::io::ErrorKind::InvalidInput => {
                std::thread::sleep(Duration::from_millis(5))
            }
            Err(e) => {
                let _ = events.send(Event::Failed(e));
                return;
            }
        }
    }
}

/// Host and port from flags, then the environment and config file, then the defaults.
fn address(cfg: &Config, opts: &Options) -> Result<(String, u16)> {
    let host = opts.host.clone().or_else(|| cfg.get(Key::Host).map(str::to_string));
    let host = host.unwrap_or_else(|| DEFAULT_HOST.to_string());
    let port = match (opts.port, cfg.get(Key::Port)) {
        (Some(p), _) => p,
        (None, Some(s)) => s.trim().parse::<u16>().map_err(|_| {
            Error::Config(format!("WITHINGS_MCP_PORT must be a port number 0-65535, got `{s}`"))
        })?,
        (None, None) => DEFAULT_PORT,
    };
    Ok((host, port))
}

/// The IP to bind for a host name: loopback only (127.0.0.0/8, ::1, `localhost`).
pub fn bind_ip(host: &str) -> Result<IpAddr> {
    let trimmed = host.trim_start_matches('[').trim_end_matches(']');
    let ip = match trimmed.eq_ignore_ascii_case("localhost") {
        true => IpAddr::from([127, 0, 0, 1]),
        false => trimmed.parse::<IpAddr>().map_err(|_| {
            Error::Config(format!(
                "HTTP host `{host}` is not a loopback address; use 127.0.0.1, ::1 or localhost"
            ))
        })?,
    };
    match ip.is_loopback() {
        true => Ok(ip),
        false => Err(Error::boxed(Error::Config(format!(
            "refusing to listen on `{host}`: the HTTP server only binds loopback addresses (127.0.0.1, ::1, localhost), \
             because it serves personal health data without authentication"
        )))),
    }
}

/// Reads, routes and answers the requests of one connection, on its own I/O thread; an MCP
/// message is handled by the handling thread (`run`).
fn serve_conn(stream: &TcpStream, events: &mpsc::Sender<Event>, ticket: &Ticket, token: Option<&str>) {
    // A stalled client times out here, on its own thread, without touching anyone else.
    let _ = stream.set_write_timeout(Some(IO_TIMEOUT));
    let mut reader = BufReader::with_capacity(8 * 1024, Timed::new(stream, HEAD_IDLE, HEAD_TIME));
    for served in 1..=KEEP_MAX {
        let keep = serve_request(stream, &mut reader, events, ticket, token, served < KEEP_MAX);
        if !keep || !next_request(&mut reader) {
            return;
        }
    }
}

/// Waits up to `KEEP_IDLE` for the first byte of the next request on a kept connection, then
/// starts its head's clocks. False when the client closed or stayed quiet.
fn next_request(reader: &mut BufReader<Timed<'_>>) -> bool {
    reader.get_mut().restart(KEEP_IDLE, KEEP_IDLE);
    let more = matches!(reader.fill_buf(), Ok(bytes) if !bytes.is_empty());
    reader.get_mut().restart(HEAD_IDLE, HEAD_TIME);
    more
}

/// Reads, routes and answers one request; true when the connection stays open for another
/// (the client asked for it, `may_keep`, and the request was read to its end).
fn serve_request(
    stream: &TcpStream,
    reader: &mut BufReader<Timed<'_>>,
    events: &mpsc::Sender<Event>,
    ticket: &Ticket,
    token: Option<&str>,
    may_keep: bool,
) -> bool {
    let head = match read_head(reader) {
        Ok(h) => h,
        Err(e) => {
            let reply = match e {
                HeadError::Gone => return false,
                HeadError::Slow => route::too_slow(HEAD_IDLE, HEAD_TIME),
                HeadError::TooLarge => Reply::empty(431),
                HeadError::Malformed(why) => route::bad_request(why),
            };
            write_reply(stream, &reply, false, false);
            linger(stream);
            return false;
        }
    };
    reader.get_mut().restart(IO_TIMEOUT, BODY_TIME);
    let head_only = head.method == "HEAD";
    let keep = head.persistent && may_keep;
    let expects_continue =
        header(&head.headers, "expect").is_some_and(|e| e.eq_ignore_ascii_case("100-continue"));
    let (reply, keep) = match precheck(&head.method, &head.url, &head.headers, token) {
        Err(reply) => {
            // A client waiting for `100 Continue` has sent no body: there is nothing to drain.
            if !expects_continue {
                drain(reader, head.framing);
            }
            (reply, false)
        }
        Ok(Route::Health) => (route::health(), keep),
        Ok(Route::Mcp(version)) => {
            if expects_continue {
                let _ = (&*stream).write_all(b"HTTP/1.1 100 Continue\r\n\r\n");
            }
            match read_body(reader, head.framing) {
                Ok(body) => {
                    ticket.handling(true);
                    let reply = handle_elsewhere(events, version, head.headers, body);
                    ticket.handling(false);
                    (reply, keep)
                }
                Err(BodyError::TooLarge) => {
                    drain(reader, head.framing);
                    (route::too_large(), false)
                }
                Err(BodyError::Malformed) => (route::bad_request("malformed chunked body"), false),
                Err(BodyError::Gone) => return false,
            }
        }
    };
    write_reply(stream, &reply, head_only, keep);
    keep
}

/// Sends a complete message to the handling thread and waits for its answer.
fn handle_elsewhere(
    events: &mpsc::Sender<Event>,
    version: Result<Option<&'static str>, String>,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
) -> Reply {
    let slot = Arc::new(Slot { answer: Mutex::new(Answer::Waiting), ready: Condvar::new() });
    let reply = Replier(Arc::clone(&slot));
    let sent = events.send(Event::Message(Job { version, headers, body, reply }));
    match sent.ok().and_then(|()| slot.wait()) {
        Some(r) => r,
        None => Reply::rpc_error(503, RpcError::new(jsonrpc::INTERNAL_ERROR, "the server is shutting down")),
    }
}

/// Writes a reply by hand; unless `keep`, says `Connection: close` and closes the connection.
pub(super) fn write_reply(stream: &TcpStream, reply: &Reply, head_only: bool, keep: bool) {
    let mut head = format!("HTTP/1.1 {} {}\r\n", reply.status, reason(reply.status));
    for (k, v) in &reply.headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    let connection = match keep {
        true => format!("Keep-Alive: timeout={}", KEEP_IDLE.as_secs()),
        false => "Connection: close".to_string(),
    };
    head.push_str(&format!(
        "Content-Length: {}\r\nCache-Control: no-store\r\n{connection}\r\n\r\n",
        reply.body.len()
    ));
    let body: &[u8] = if head_only { &[] } else { &reply.body };
    let mut w = stream;
    // The client may already be gone; there is nobody to tell.
    let _ = w.write_all(head.as_bytes()).and_then(|()| w.write_all(body)).and_then(|()| w.flush());
    if !keep {
        let _ = stream.shutdown(std::net::Shutdown::Write);
    }
}

/// After refusing a head, reads and drops what the client may still be sending, briefly and
/// bounded: closing a socket with unread input resets the connection, and the client would
/// lose the answer that says what was wrong.
pub(super) fn linger(stream: &TcpStream) {
    let mut rest = Timed::new(stream, Duration::from_millis(500), Duration::from_secs(1)).take(64 * 1024);
    let _ = std::io::copy(&mut rest, &mut std::io::sink());
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        202 => "Accepted",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        406 => "Not Acceptable",
        408 => "Request Timeout",
        413 => "Payload Too Large",
        415 => "Unsupported Media Type",
        431 => "Request Header Fields Too Large",
        503 => "Service Unavailable",
        _ => "Status",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bind_refuses_anything_but_loopback() {
        for (host, ok) in
            [("127.0.0.1", true), ("127.0.0.2", true), ("::1", true), ("[::1]", true), ("localhost", true)]
        {
            assert_eq!(bind_ip(host).is_ok(), ok, "{host}");
        }
        for host in ["0.0.0.0", "::", "192.0.2.1", "example.com", ""] {
            let err = bind_ip(host).unwrap_err();
            assert!(matches!(*err, Error::Config(_)), "{host}: {err}");
            assert!(err.to_string().contains("loopback"), "{host}: {err}");
        }
    }
}
