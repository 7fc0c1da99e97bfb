//! Loopback Streamable HTTP: stateless, JSON responses only, one request at a time.
//!
//! Each connection gets a short-lived I/O thread that reads its head and body under a timeout
//! and writes its answer; only the complete message crosses to the calling thread, which handles
//! every MCP message, one at a time, in order of completion. So a client that stalls (slow loris)
//! or never reads its answer holds up only its own connection, never the handler or another
//! client. Every response says `Connection: close`: a single-threaded server that lets clients
//! keep idle sockets around stalls the next client (mcp.md, gotcha 1).
//!
//! Why not tiny_http here (README, "Architecture"): tiny_http 0.12 reads heads on a pool that
//! queues new connections behind busy threads and has no read timeouts, so a handful of stalled
//! clients froze every later one. HTTP/1.1 for one JSON POST is small enough to read by hand;
//! tiny_http still serves the one-shot OAuth callback.
//!
//! The checks (Host/Origin against DNS rebinding, media types, body size, protocol headers) are
//! pure functions over a header list, so they are tested with tables; `run` only does the I/O.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{IpAddr, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, mpsc};
use std::time::Duration;

use serde_json::{Value, json};

use crate::cli::ServeOpts;
use crate::mcp::dispatch::{self, Engine, HANDSHAKE_VERSIONS, META_VERSION, STATELESS};
use crate::mcp::jsonrpc::{self, RpcError};
use crate::store::config::{Config, Key};
use crate::tools::Ctx;
use crate::{Error, Result, VERSION};

/// The largest request body accepted (1 MiB).
pub const BODY_LIMIT: usize = 1024 * 1024;
/// The address used when neither flags nor environment name one.
pub const DEFAULT_HOST: &str = "127.0.0.1";
pub const DEFAULT_PORT: u16 = 3000;
/// The largest request head (request line and headers).
const HEAD_LIMIT: usize = 16 * 1024;
/// A client that sends or reads nothing for this long is dropped.
const IO_TIMEOUT: Duration = Duration::from_secs(10);
/// Connections served at once; more are answered 503 at once (a loopback server for one user).
const MAX_CONNECTIONS: usize = 256;
/// An oversized body is read and discarded up to this much, so the client sees the 413.
const DRAIN_LIMIT: usize = 64 * 1024 * 1024;

/// Serves MCP over HTTP on a loopback address until the process is stopped.
pub fn run(ctx: &Ctx, opts: &ServeOpts, cfg: &Config) -> Result<()> {
    let (host, port) = address(cfg, opts)?;
    let ip = bind_ip(&host)?;
    let listener = TcpListener::bind(SocketAddr::new(ip, port))
        .map_err(|e| Error::io(format!("listening on {host}:{port}"), e))?;
    let bound = listener.local_addr().map_err(|e| Error::io("listening socket", e))?;
    // Tests and scripts parse this line for the real port when asked for port 0.
    eprintln!("withings-mcp: listening on http://{bound}/mcp (GET /health)");
    let (events, inbox) = mpsc::channel::<Event>();
    std::thread::spawn(move || accept(&listener, &events));
    for event in inbox {
        match event {
            Event::Message(job) => {
                let reply = handle_mcp(ctx, job.version, &job.headers, &job.body);
                // The I/O thread is gone only when its client is; nobody to tell.
                let _ = job.reply.send(reply);
            }
            Event::Failed(e) => return Err(Error::io("accepting HTTP connections", e)),
        }
    }
    Err(Error::io("accepting HTTP connections", std::io::Error::other("the connection thread stopped")))
}

/// A complete MCP message for the handling thread; the answer goes back on `reply`.
struct Job {
    version: Option<&'static str>,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
    reply: mpsc::Sender<Reply>,
}

enum Event {
    Message(Job),
    Failed(std::io::Error),
}

/// Hands every connection to an I/O thread of its own until the listener fails.
fn accept(listener: &TcpListener, events: &mpsc::Sender<Event>) {
    let open = Arc::new(AtomicUsize::new(0));
    for conn in listener.incoming() {
        match conn {
            Ok(stream) => {
                let (events, open) = (events.clone(), Arc::clone(&open));
                std::thread::spawn(move || {
                    let busy = open.fetch_add(1, Ordering::SeqCst) >= MAX_CONNECTIONS;
                    match busy {
                        true => write_reply(&stream, &busy_reply(), false),
                        false => serve_conn(&stream, &events),
                    }
                    open.fetch_sub(1, Ordering::SeqCst);
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

fn busy_reply() -> Reply {
    Reply::rpc_error(503, RpcError::new(jsonrpc::INTERNAL_ERROR, "too many connections; try again"))
}

/// Host and port from flags, then the environment and config file, then the defaults.
fn address(cfg: &Config, opts: &ServeOpts) -> Result<(String, u16)> {
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
        false => Err(Error::Config(format!(
            "refusing to listen on `{host}`: the HTTP server only binds loopback addresses (127.0.0.1, ::1, localhost), \
             because it serves personal health data without authentication"
        ))),
    }
}

/// One HTTP response, before serialisation.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(&'static str, String)>,
    pub body: Vec<u8>,
}

impl Reply {
    fn json(status: u16, v: &Value) -> Reply {
        Reply {
            status,
            headers: vec![("Content-Type", "application/json".into())],
            body: serde_json::to_vec(&v).unwrap_or_default(),
        }
    }

    fn empty(status: u16) -> Reply {
        Reply { status, headers: Vec::new(), body: Vec::new() }
    }

    /// An HTTP-level error with a JSON-RPC error body (id null), as the MCP SDKs send.
    fn rpc_error(status: u16, e: RpcError) -> Reply {
        Reply::json(status, &jsonrpc::error(Value::Null, e))
    }

    fn with_header(mut self, name: &'static str, value: &str) -> Reply {
        self.headers.push((name, value.to_string()));
        self
    }
}

/// Request headers with lowercase names.
pub type Headers = [(String, String)];

fn header<'a>(headers: &'a Headers, name: &str) -> Option<&'a str> {
    headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

/// Where a request goes once its headers passed the checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    Health,
    /// `POST /mcp` with the validated `MCP-Protocol-Version` (None when absent).
    Mcp(Option<&'static str>),
}

/// Routes a request and checks everything that does not need the body.
pub fn precheck(method: &str, url: &str, headers: &Headers) -> std::result::Result<Route, Reply> {
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
        None => Ok(Route::Mcp(None)),
        Some(v) => match HANDSHAKE_VERSIONS.iter().chain([STATELESS].iter()).find(|k| **k == v) {
            Some(known) => Ok(Route::Mcp(Some(known))),
            None => Err(Reply::rpc_error(400, dispatch::unsupported_version(v))),
        },
    }
}

fn forbidden(why: &str) -> Reply {
    Reply::json(403, &json!({"error": format!("forbidden: {why}")}))
}

fn too_large() -> Reply {
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

/// Handles the body of `POST /mcp` for the protocol version named by the header.
pub fn handle_mcp(ctx: &Ctx, version: Option<&'static str>, headers: &Headers, body: &[u8]) -> Reply {
    let message = match dispatch::parse(body) {
        Ok(v) => v,
        Err(e) => return Reply::rpc_error(400, e),
    };
    let stateless =
        version == Some(STATELESS) || (version.is_none() && meta_version(&message) == Some(STATELESS));
    if stateless {
        if let Err(e) = check_stateless(headers, &message) {
            return Reply::rpc_error(400, e);
        }
    } else if meta_version(&message) == Some(STATELESS) {
        let e = RpcError::new(
            jsonrpc::HEADER_MISMATCH,
            format!(
                "header mismatch: MCP-Protocol-Version says {} but _meta says {STATELESS}",
                version.unwrap_or("nothing")
            ),
        );
        return Reply::rpc_error(400, e);
    }
    let mut engine = Engine::http(ctx.clone(), version.filter(|v| *v != STATELESS));
    match engine.handle_value(message) {
        None => Reply::empty(202),
        Some(reply) => Reply::json(status_for(&reply, stateless), &reply),
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
        Some(b64) => base64_decode(b64).and_then(|bytes| String::from_utf8(bytes).ok()),
        None => Some(value.to_string()),
    }
}

fn base64_decode(s: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in s.trim_end_matches('=').bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
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

fn health() -> Reply {
    Reply::json(200, &json!({"status": "ok", "name": "withings-mcp", "version": VERSION}))
}

/// Reads, routes and answers one request, on its own I/O thread; an MCP message is handled by
/// the handling thread (`run`).
fn serve_conn(stream: &TcpStream, events: &mpsc::Sender<Event>) {
    // A stalled client times out here, on its own thread, without touching anyone else.
    let _ = stream.set_read_timeout(Some(IO_TIMEOUT));
    let _ = stream.set_write_timeout(Some(IO_TIMEOUT));
    let mut reader = BufReader::with_capacity(8 * 1024, stream);
    let head = match read_head(&mut reader) {
        Ok(h) => h,
        Err(HeadError::Gone) => return,
        Err(HeadError::TooLarge) => return write_reply(stream, &Reply::empty(431), false),
        Err(HeadError::Malformed) => return write_reply(stream, &bad_request(), false),
    };
    let head_only = head.method == "HEAD";
    let expects_continue =
        header(&head.headers, "expect").is_some_and(|e| e.eq_ignore_ascii_case("100-continue"));
    let reply = match precheck(&head.method, &head.url, &head.headers) {
        Err(reply) => {
            // A client waiting for `100 Continue` has sent no body: there is nothing to drain.
            if !expects_continue {
                drain(&mut reader, &head.headers);
            }
            reply
        }
        Ok(Route::Health) => health(),
        Ok(Route::Mcp(version)) => {
            if expects_continue {
                let _ = (&*stream).write_all(b"HTTP/1.1 100 Continue\r\n\r\n");
            }
            match read_body(&mut reader, &head.headers) {
                Ok(body) => handle_elsewhere(events, version, head.headers, body),
                Err(BodyError::TooLarge) => {
                    drain(&mut reader, &head.headers);
                    too_large()
                }
                Err(BodyError::Malformed) => bad_request(),
                Err(BodyError::Gone) => return,
            }
        }
    };
    write_reply(stream, &reply, head_only);
}

fn bad_request() -> Reply {
    Reply::rpc_error(
        400,
        RpcError::new(jsonrpc::PARSE_ERROR, "bad request: not an HTTP/1.1 request this server can read"),
    )
}

/// A parsed request head: method, target and headers with lowercase names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Head {
    pub method: String,
    pub url: String,
    pub headers: Vec<(String, String)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum HeadError {
    /// The client closed or timed out before a complete head.
    Gone,
    TooLarge,
    Malformed,
}

/// Reads up to the blank line that ends the head, at most `HEAD_LIMIT` bytes.
fn read_head(reader: &mut dyn BufRead) -> std::result::Result<Head, HeadError> {
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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BodyError {
    Gone,
    TooLarge,
    Malformed,
}

/// Reads a body of at most `BODY_LIMIT` bytes, by `Content-Length` or chunked; none without either.
fn read_body(reader: &mut dyn BufRead, headers: &Headers) -> std::result::Result<Vec<u8>, BodyError> {
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
fn drain(reader: &mut dyn BufRead, headers: &Headers) {
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

/// Sends a complete message to the handling thread and waits for its answer.
fn handle_elsewhere(
    events: &mpsc::Sender<Event>,
    version: Option<&'static str>,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
) -> Reply {
    let (reply, answer) = mpsc::channel();
    let sent = events.send(Event::Message(Job { version, headers, body, reply }));
    match sent.ok().and_then(|()| answer.recv().ok()) {
        Some(r) => r,
        None => Reply::rpc_error(503, RpcError::new(jsonrpc::INTERNAL_ERROR, "the server is shutting down")),
    }
}

/// Writes a reply by hand, always with `Connection: close`, then closes the connection.
fn write_reply(stream: &TcpStream, reply: &Reply, head_only: bool) {
    let mut head = format!("HTTP/1.1 {} {}\r\n", reply.status, reason(reply.status));
    for (k, v) in &reply.headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str(&format!(
        "Content-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n",
        reply.body.len()
    ));
    let body: &[u8] = if head_only { &[] } else { &reply.body };
    let mut w = stream;
    // The client may already be gone; there is nobody to tell.
    let _ = w.write_all(head.as_bytes()).and_then(|()| w.write_all(body)).and_then(|()| w.flush());
    let _ = stream.shutdown(std::net::Shutdown::Write);
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        202 => "Accepted",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        406 => "Not Acceptable",
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
    use crate::store::config::Env;

    fn h(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs.iter().map(|(k, v)| (k.to_ascii_lowercase(), v.to_string())).collect()
    }

    fn ctx() -> Ctx {
        Ctx { env: Env::from_pairs(&[("HOME", "/nonexistent")]), now: 0 }
    }

    const POST: &[(&str, &str)] = &[
        ("Host", "127.0.0.1:3000"),
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
    fn bind_refuses_anything_but_loopback() {
        for (host, ok) in
            [("127.0.0.1", true), ("127.0.0.2", true), ("::1", true), ("[::1]", true), ("localhost", true)]
        {
            assert_eq!(bind_ip(host).is_ok(), ok, "{host}");
        }
        for host in ["0.0.0.0", "::", "192.0.2.1", "example.com", ""] {
            let err = bind_ip(host).unwrap_err();
            assert!(matches!(err, Error::Config(_)), "{host}: {err}");
            assert!(err.to_string().contains("loopback"), "{host}: {err}");
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
        let status =
            |method: &str, url: &str, headers: &[(String, String)]| match precheck(method, url, headers) {
                Ok(Route::Health) => 1,
                Ok(Route::Mcp(_)) => 0,
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
        ];
        for (method, url, headers, want) in cases {
            assert_eq!(status(method, url, &headers), want, "{method} {url} {headers:?}");
        }
        let missing_host: Vec<_> = h(POST).into_iter().filter(|(k, _)| k != "host").collect();
        assert_eq!(status("POST", "/mcp", &missing_host), 403);
        let Err(r) = precheck("GET", "/mcp", &h(POST)) else { panic!() };
        assert!(r.headers.contains(&("Allow", "POST".to_string())));
        let Err(r) = precheck("POST", "/mcp", &with(&[("MCP-Protocol-Version", "garbage")])) else {
            panic!()
        };
        let body: Value = serde_json::from_slice(&r.body).unwrap();
        assert_eq!(body["error"]["code"], -32022);
        assert!(body["error"]["data"]["supported"].as_array().unwrap().contains(&json!("2025-11-25")));
    }

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
        let cases: Vec<(Option<&'static str>, &Headers, Vec<u8>, u16)> = vec![
            (None, &hs, b"{not json".to_vec(), 400),
            (None, &hs, br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_vec(), 202),
            (None, &hs, br#"{"jsonrpc":"2.0","id":1,"result":{}}"#.to_vec(), 202),
            (None, &hs, br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#.to_vec(), 200),
            (Some("2025-11-25"), &hs, br#"{"jsonrpc":"2.0","id":1,"method":"nope"}"#.to_vec(), 200),
            (
                Some(STATELESS),
                &modern,
                json!({"jsonrpc":"2.0","id":1,"method":"nope/nothing","params":{"_meta": meta}})
                    .to_string()
                    .into_bytes(),
                404,
            ),
            (
                Some("2025-11-25"),
                &hs,
                json!({"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta": meta}})
                    .to_string()
                    .into_bytes(),
                400,
            ),
        ];
        for (version, headers, body, want) in cases {
            let r = handle_mcp(&ctx(), version, headers, &body);
            assert_eq!(r.status, want, "{version:?} {}", String::from_utf8_lossy(&body));
            if want == 202 {
                assert!(r.body.is_empty());
            } else {
                assert!(r.headers.contains(&("Content-Type", "application/json".to_string())));
            }
        }
    }
}
