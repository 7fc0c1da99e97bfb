//! Fault injection end to end (issue 8), through the real binary: `call` on a data tool and on a
//! brief, and one long-running stdio MCP session. Network faults come from `Front`, a raw TCP
//! front on 127.0.0.1 that forwards to the fake Withings, resets connections mid-body, or closes
//! its port (connection refused); answer faults come from the fake's own fault queue. After every
//! fault: a clear error naming the endpoint and the problem, the next request is served, and the
//! token file is intact (valid JSON, 0600, holding the latest refresh token the fake issued).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::unix::fs::PermissionsExt;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use withings_mcp::store::tokens::{self, Tokens};

use crate::data::{NOW, World, serve, tool_call};
use crate::fake::{FakeWithings, Fault, Run, TempHome, USERID};

/// What `Front` does with the next connections.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Pass the request to the fake Withings and its answer back.
    Forward,
    /// Read the request head, send the headers and part of a body, then close with the request
    /// body unread (the kernel answers with a reset).
    Reset,
    /// Close the listening socket: connecting is refused until another mode is set.
    Refuse,
}

/// A raw TCP front for the fake Withings on a fixed 127.0.0.1 port.
pub struct Front {
    pub url: String,
    port: u16,
    listener: Arc<Mutex<Option<TcpListener>>>,
    mode: Arc<Mutex<Mode>>,
    /// Connections answered with a reset.
    pub resets: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

const PARTIAL: &[u8] = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 4096\r\n\r\n{\"status\":0,\"body\":{\"measuregrps\":[{\"grpid\":1,";

impl Front {
    pub fn start(fake: &FakeWithings) -> Front {
        let upstream = fake.url.trim_start_matches("http://").to_string();
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        l.set_nonblocking(true).unwrap();
        let port = l.local_addr().unwrap().port();
        let listener = Arc::new(Mutex::new(Some(l)));
        let mode = Arc::new(Mutex::new(Mode::Forward));
        let resets = Arc::new(AtomicUsize::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let (l2, m2, r2, s2) = (listener.clone(), mode.clone(), resets.clone(), stop.clone());
        // Polls a non-blocking listener so that `set(Refuse)` can close the port at any time
        // and the thread ends by itself on drop.
        let thread = std::thread::spawn(move || {
            while !s2.load(Ordering::SeqCst) {
                let conn = l2.lock().unwrap().as_ref().and_then(|l| l.accept().ok());
                match conn {
                    Some((s, _)) => {
                        let mode = *m2.lock().unwrap();
                        let (up, resets) = (upstream.clone(), r2.clone());
                        std::thread::spawn(move || serve_conn(s, mode, &up, &resets));
                    }
                    None => std::thread::sleep(Duration::from_millis(1)),
                }
            }
        });
        Front {
            url: format!("http://127.0.0.1:{port}"),
            port,
            listener,
            mode,
            resets,
            stop,
            thread: Some(thread),
        }
    }

    /// Switches the mode; `Refuse` has closed the port when this returns, and leaving it
    /// re-binds the same port (std sets SO_REUSEADDR).
    pub fn set(&self, mode: Mode) {
        let mut l = self.listener.lock().unwrap();
        match mode {
            Mode::Refuse => *l = None,
            _ if l.is_none() => {
                let deadline = Instant::now() + Duration::from_secs(3);
                let bound = loop {
                    match TcpListener::bind(("127.0.0.1", self.port)) {
                        Ok(b) => break b,
                        Err(e) if Instant::now() > deadline => panic!("re-binding port {}: {e}", self.port),
                        Err(_) => std::thread::sleep(Duration::from_millis(10)),
                    }
                };
                bound.set_nonblocking(true).unwrap();
                *l = Some(bound);
            }
            _ => {}
        }
        *self.mode.lock().unwrap() = mode;
    }
}

impl Drop for Front {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Reads up to and including the blank line, one byte at a time so nothing after it is consumed.
fn read_head(s: &mut TcpStream) -> Option<Vec<u8>> {
    let mut head = Vec::new();
    let mut b = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        match s.read(&mut b) {
            Ok(1) => head.push(b[0]),
            _ => return None,
        }
        if head.len() > 64 * 1024 {
            return None;
        }
    }
    Some(head)
}

fn serve_conn(mut s: TcpStream, mode: Mode, upstream: &str, resets: &AtomicUsize) {
    s.set_nonblocking(false).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let Some(head) = read_head(&mut s) else { return };
    let text = String::from_utf8_lossy(&head).into_owned();
    if mode != Mode::Forward {
        resets.fetch_add(1, Ordering::SeqCst);
        let _ = s.write_all(PARTIAL).and_then(|()| s.flush());
        // Let the partial body reach the client before the reset.
        std::thread::sleep(Duration::from_millis(20));
        return;
    }
    let len = text
        .lines()
        .find_map(|l| l.to_ascii_lowercase().strip_prefix("content-length:").map(|v| v.trim().to_string()))
        .map_or(0, |v| v.parse::<usize>().unwrap());
    let mut body = vec![0; len];
    if s.read_exact(&mut body).is_err() {
        return;
    }
    // One request per upstream connection, so the answer ends at EOF.
    let rewritten = closing(&text);
    let mut up = TcpStream::connect(upstream).unwrap();
    up.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    up.write_all(rewritten.as_bytes()).unwrap();
    up.write_all(&body).unwrap();
    let mut answer = Vec::new();
    let _ = up.read_to_end(&mut answer);
    // This front closes after one answer, so it says so: a client that pooled the connection
    // would race the close with its next request and see a reset that no fault injected.
    let answer = match answer.windows(4).position(|w| w == b"\r\n\r\n") {
        Some(end) => {
            let mut out = closing(&String::from_utf8_lossy(&answer[..end])).into_bytes();
            out.extend_from_slice(&answer[end + 4..]);
            out
        }
        None => answer,
    };
    // The client may have given up (timeout faults); nobody to tell.
    let _ = s.write_all(&answer);
}

/// A message head (without its blank line, or with it) made to say `Connection: close` and
/// nothing else about the connection, ending with the blank line.
fn closing(head: &str) -> String {
    let mut out: String = head
        .trim_end()
        .lines()
        .filter(|l| !l.to_ascii_lowercase().starts_with("connection:"))
        .map(|l| format!("{l}\r\n"))
        .collect();
    out.push_str("Connection: close\r\n\r\n");
    out
}

/// Runs a command with stdin closed and kills it (failing the test) after `limit`.
pub fn run_bounded(mut cmd: Command, limit: Duration) -> Run {
    cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let drain = |r: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut s = String::new();
            if let Some(mut r) = r {
                let _ = r.read_to_string(&mut s);
            }
            s
        })
    };
    let out = drain(child.stdout.take().map(|r| Box::new(r) as Box<dyn Read + Send>));
    let err = drain(child.stderr.take().map(|r| Box::new(r) as Box<dyn Read + Send>));
    let start = Instant::now();
    let status = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the binary did not finish within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    Run { code: status.code().unwrap_or(-1), stdout: out.join().unwrap(), stderr: err.join().unwrap() }
}

/// The token file is private, valid token JSON, and holds the newest refresh token issued.
pub fn assert_token_intact(home: &TempHome, fake: &FakeWithings, after: &str) {
    let p = home.token_path();
    let mode =
        std::fs::metadata(&p).unwrap_or_else(|e| panic!("{after}: token file: {e}")).permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "{after}: token file mode");
    let t = tokens::load(&p).unwrap_or_else(|e| panic!("{after}: {e}")).unwrap();
    let latest = fake.issued_refresh_tokens().pop().unwrap();
    assert_eq!(t.refresh_token, latest, "{after}: the stored refresh token is not the latest issued");
}

/// 2026-03-10 12:00 at +02:00: the brief fixtures' clock.
const BRIEF_NOW: &str = "1773136800";

/// Every action a brief reads, with its list key and fixture.
const ACTIONS: [(&str, &str, &str, &str); 4] = [
    ("/measure", "getmeas", "measuregrps", "brief_getmeas.json"),
    ("/v2/sleep", "getsummary", "series", "brief_sleep_getsummary.json"),
    ("/v2/measure", "getactivity", "activities", "brief_getactivity.json"),
    ("/v2/heart", "list", "series", "brief_heart_list.json"),
];

/// A signed-in world serving the brief fixtures, its API behind a `Front`, with a 1 s HTTP
/// timeout and 1 ms retry base.
fn world(tag: &str) -> (World, Front) {
    let mut w = World::new(tag);
    for (path, action, key, file) in ACTIONS {
        serve(&w.fake, path, action, file, key);
    }
    let front = Front::start(&w.fake);
    w.set("WITHINGS_TZ", "+02:00");
    w.set("WITHINGS_MCP_NOW", BRIEF_NOW);
    w.set("WITHINGS_API_URL", &front.url);
    w.set("WITHINGS_HTTP_TIMEOUT_SECS", "1");
    w.set("WITHINGS_RETRY_BASE_MS", "1");
    (w, front)
}

/// One injected fault.
#[derive(Debug, Clone, Copy)]
enum Kind {
    Refused,
    Reset,
    Slow,
    Truncated,
    Http(u16, Option<u64>),
    Storm601,
}

impl Kind {
    /// Every kind that ends in an error whatever the endpoint (a `Retry-After` beyond the 20 s
    /// retry budget is not waited for).
    const ALL: [Kind; 9] = [
        Kind::Refused,
        Kind::Reset,
        Kind::Slow,
        Kind::Truncated,
        Kind::Http(500, None),
        Kind::Http(502, None),
        Kind::Http(503, None),
        Kind::Http(503, Some(120)),
        Kind::Storm601,
    ];

    /// What the error message must say about the problem.
    fn says(self) -> &'static str {
        match self {
            Kind::Refused => "connection refused",
            Kind::Reset => "network error",
            Kind::Slow => "timeout",
            Kind::Truncated => "non-JSON answer (HTTP 200)",
            Kind::Http(500, _) => "non-JSON answer (HTTP 500)",
            Kind::Http(502, _) => "non-JSON answer (HTTP 502)",
            Kind::Http(_, _) => "non-JSON answer (HTTP 503)",
            Kind::Storm601 => "rate limited (status 601)",
        }
    }

    /// Requests the endpoint receives for one logical call: the retry bound, one try for what
    /// is not worth retrying, none when the port is closed or the front resets.
    fn upstream_tries(self) -> usize {
        match self {
            Kind::Refused | Kind::Reset => 0,
            Kind::Truncated | Kind::Http(_, Some(_)) => 1,
            _ => 3,
        }
    }

    /// Injects the fault on the given actions.
    fn inject(self, w: &World, front: &Front, actions: &[(&str, &str)]) {
        for (path, action) in actions {
            let fault = match self {
                Kind::Refused | Kind::Reset => None,
                Kind::Slow => Some((Fault::Delay(Duration::from_millis(1300)), 3)),
                Kind::Truncated => Some((
                    Fault::Http {
                        code: 200,
                        body: "{\"status\":0,\"body\":{\"measuregrps\":[{\"grpid\":1,\"measures\":[".into(),
                        retry_after: None,
                    },
                    3,
                )),
                Kind::Http(code, retry_after) => Some((
                    Fault::Http {
                        code,
                        body: format!("<html>upstream {code} PAGESECRET</html>"),
                        retry_after,
                    },
                    3,
                )),
                Kind::Storm601 => Some((Fault::Status(601), 50)),
            };
            if let Some((f, n)) = fault {
                w.fake.fail(path, action, f, n);
            }
        }
        match self {
            Kind::Refused => front.set(Mode::Refuse),
            Kind::Reset => front.set(Mode::Reset),
            _ => {}
        }
    }
}

fn heal(w: &World, front: &Front) {
    front.set(Mode::Forward);
    w.fake.clear_faults();
}

/// Faults injected, by kind, across this file (reported by the tests).
static INJECTED: Mutex<Vec<(String, usize)>> = Mutex::new(Vec::new());

fn record(kind: &str, n: usize) {
    let mut v = INJECTED.lock().unwrap();
    match v.iter_mut().find(|(k, _)| k == kind) {
        Some((_, c)) => *c += n,
        None => v.push((kind.to_string(), n)),
    }
    eprintln!("faults so far: {v:?}");
}

/// `call TOOL --json ARGS` with a bound; the exit code, stderr and stdout JSON.
fn call(w: &World, tool: &str, args: &Value) -> (Run, Value) {
    let mut c = w.command();
    c.args(["call", tool, "--json", &args.to_string()]);
    let r = run_bounded(c, Duration::from_secs(30));
    w.fake.assert_no_secrets(&r.all());
    let v = serde_json::from_str(r.stdout.trim())
        .unwrap_or_else(|e| panic!("{tool}: not JSON ({e}): {}", r.all()));
    (r, v)
}

fn assert_clean_failure(r: &Run, v: &Value, endpoint: &str, says: &str, what: &str) {
    assert_eq!(r.code, 1, "{what}: {}", r.all());
    let line = r.stderr.trim_end();
    assert_eq!(line.lines().count(), 1, "{what}: one line on stderr: {line}");
    assert!(line.starts_with("withings-mcp: "), "{what}: {line}");
    for text in [line, v["error"]["message"].as_str().unwrap()] {
        assert!(
            text.contains(endpoint) && text.contains(says),
            "{what}: want {endpoint:?} and {says:?}: {text}"
        );
        assert!(!text.contains("PAGESECRET") && !text.contains("grpid"), "{what}: body leaked: {text}");
    }
}

#[test]
fn cli_data_tool_and_brief_fail_clearly_on_every_fault_and_recover() {
    let (w, front) = world("fcli");
    let list = "withings_list_body_measures";
    let brief = "withings_daily_summary";
    let all: Vec<(&str, &str)> = ACTIONS.iter().map(|(p, a, _, _)| (*p, *a)).collect();
    let (ok, v) = call(&w, list, &json!({}));
    assert_eq!(ok.code, 0, "{}", ok.all());
    assert!(!v["records"].as_array().unwrap().is_empty(), "{v}");
    for kind in Kind::ALL {
        let what = format!("{list} under {kind:?}");
        let before = w.fake.count("/measure", "getmeas");
        let resets = front.resets.load(Ordering::SeqCst);
        kind.inject(&w, &front, &[("/measure", "getmeas")]);
        let (r, v) = call(&w, list, &json!({}));
        assert_clean_failure(&r, &v, "/measure getmeas", kind.says(), &what);
        assert_eq!(
            w.fake.count("/measure", "getmeas") - before,
            kind.upstream_tries(),
            "{what}: bounded tries"
        );
        if matches!(kind, Kind::Reset) {
            assert_eq!(front.resets.load(Ordering::SeqCst) - resets, 3, "{what}: retried to the bound");
        }
        heal(&w, &front);
        assert_token_intact(&w.home, &w.fake, &what);
        let (r, _) = call(&w, list, &json!({}));
        assert_eq!(r.code, 0, "{what}: the next call works: {}", r.all());
        record(&format!("{kind:?}"), 1);
    }
    // A brief reads four domains: the fault hits all of them (a slow server would take 4 × 3 s,
    // so it has its own test with one slow domain).
    for kind in Kind::ALL.into_iter().filter(|k| !matches!(k, Kind::Slow)) {
        let what = format!("{brief} under {kind:?}");
        kind.inject(&w, &front, &all);
        let (r, v) = call(&w, brief, &json!({}));
        assert_clean_failure(&r, &v, "/measure getmeas", kind.says(), &what);
        assert!(v["error"]["message"].as_str().unwrap().contains("no Withings domain could be read"), "{v}");
        heal(&w, &front);
        assert_token_intact(&w.home, &w.fake, &what);
        let (r, v) = call(&w, brief, &json!({}));
        assert_eq!(r.code, 0, "{what}: the next brief works: {}", r.all());
        assert_eq!(v["data_quality"]["failed"], json!([]), "{what}: {v}");
        record(&format!("{kind:?}"), 4);
    }
}

#[test]
fn a_slow_domain_degrades_a_brief_and_says_timeout() {
    let (w, front) = world("fslow");
    Kind::Slow.inject(&w, &front, &[("/v2/heart", "list")]);
    let started = Instant::now();
    let (r, v) = call(&w, "withings_daily_summary", &json!({}));
    assert_eq!(r.code, 0, "{}", r.all());
    let heart = &v["data_quality"]["domains"]["heart"];
    assert_eq!(heart["status"], "failed", "{v}");
    let reason = heart["reason"].as_str().unwrap();
    assert!(reason.contains("/v2/heart list") && reason.contains("timeout"), "{reason}");
    assert_eq!(w.fake.count("/v2/heart", "list"), 3);
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "the timeout bounds the wait: {:?}",
        started.elapsed()
    );
    assert_token_intact(&w.home, &w.fake, "slow heart");
    record("Slow", 1);
}

/// A stdio MCP session kept open across requests.
struct Session {
    child: Child,
    stdin: Option<ChildStdin>,
    replies: mpsc::Receiver<String>,
    next_id: i64,
}

impl Session {
    fn start(mut cmd: Command) -> Session {
        cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null());
        let mut child = cmd.spawn().unwrap();
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut s = Session { child, stdin, replies: rx, next_id: 1 };
        let init = s.request(
            "initialize",
            json!({"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"it","version":"1"}}),
        );
        assert!(init["result"]["serverInfo"].is_object(), "{init}");
        s.send(&json!({"jsonrpc":"2.0","method":"notifications/initialized"}));
        s
    }

    fn send(&mut self, msg: &Value) {
        let w = self.stdin.as_mut().unwrap();
        writeln!(w, "{msg}").unwrap();
        w.flush().unwrap();
    }

    /// Sends a request and waits (bounded) for the reply with its id.
    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc":"2.0","id":id,"method":method,"params":params}));
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line =
                self.replies.recv_timeout(left).unwrap_or_else(|e| panic!("no reply to {method}: {e}"));
            let v: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON: {line}: {e}"));
            if v["id"] == id {
                return v;
            }
        }
    }

    fn call(&mut self, tool: &str, args: Value) -> Value {
        let msg = tool_call(0, tool, args);
        self.request("tools/call", msg["params"].clone())["result"].clone()
    }

    /// Closes stdin; the server must exit 0 by itself.
    fn finish(mut self) {
        drop(self.stdin.take());
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Some(st) = self.child.try_wait().unwrap() {
                assert!(st.success(), "stdio server exit: {st}");
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        panic!("the stdio server did not exit on EOF");
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn error_text(res: &Value) -> String {
    assert_eq!(res["isError"], true, "expected a tool error: {res}");
    res["content"][0]["text"].as_str().unwrap().to_string()
}

fn assert_ok(res: &Value, what: &str) {
    assert_ne!(res["isError"], true, "{what}: {res}");
    assert!(res["structuredContent"].is_object(), "{what}: {res}");
}

#[test]
fn one_stdio_session_survives_every_fault_and_a_revoked_grant() {
    let (w, front) = world("fsession");
    let mut s = Session::start(w.command());
    let list = "withings_list_body_measures";
    assert_ok(&s.call(list, json!({})), "first call");
    for kind in Kind::ALL {
        let what = format!("session under {kind:?}");
        kind.inject(&w, &front, &[("/measure", "getmeas")]);
        let text = error_text(&s.call(list, json!({})));
        assert!(text.contains("/measure getmeas") && text.contains(kind.says()), "{what}: {text}");
        assert!(!text.contains("PAGESECRET") && !text.contains("grpid"), "{what}: {text}");
        w.fake.assert_no_secrets(&text);
        // Still serving while the fault lasts, for requests that need no upstream.
        assert_eq!(s.request("ping", json!({}))["result"], json!({}), "{what}");
        heal(&w, &front);
        assert_token_intact(&w.home, &w.fake, &what);
        assert_ok(&s.call(list, json!({})), &what);
        record(&format!("{kind:?}"), 1);
    }
    // A short Retry-After is honoured and the call succeeds on the second try.
    w.fake.fail(
        "/measure",
        "getmeas",
        Fault::Http { code: 503, body: "busy".into(), retry_after: Some(1) },
        1,
    );
    let (before, started) = (w.fake.count("/measure", "getmeas"), Instant::now());
    assert_ok(&s.call(list, json!({})), "503 with Retry-After: 1");
    assert_eq!(w.fake.count("/measure", "getmeas") - before, 2);
    assert!(started.elapsed() >= Duration::from_secs(1), "Retry-After honoured: {:?}", started.elapsed());
    record("Http(503, Some(1)) recovered", 1);

    // The grant is revoked upstream mid-session: 401 on the access token, refresh refused.
    let refreshes = w.fake.refreshes();
    w.fake.revoke_grant();
    for tool in [list, "withings_weekly_summary"] {
        let text = error_text(&s.call(tool, json!({})));
        assert!(text.contains("refresh token") && text.contains("run `withings-mcp auth`"), "{tool}: {text}");
        w.fake.assert_no_secrets(&text);
        assert_token_intact(&w.home, &w.fake, "revoked");
    }
    assert_eq!(w.fake.refreshes(), refreshes, "no refresh succeeded");
    assert!(w.fake.count("/v2/oauth2", "requesttoken") >= 2, "the refresh was tried");
    assert_eq!(s.request("ping", json!({}))["result"], json!({}));
    assert_ok(&s.call("withings_capabilities", json!({})), "a local tool after revocation");
    record("Revoked", 2);
    // Signing in again from another process: the same session picks the new grant up.
    let state = format!("again-{}", w.fake.new_code());
    withings_mcp::store::pending::add(
        &w.home.token_path(),
        &state,
        &Default::default(),
        BRIEF_NOW.parse().unwrap(),
    )
    .unwrap();
    let mut auth = w.command();
    auth.args(["auth", "--code", &w.fake.new_code(), "--state", &state]);
    let r = run_bounded(auth, Duration::from_secs(30));
    assert_eq!(r.code, 0, "{}", r.all());
    assert_ok(&s.call(list, json!({})), "after re-auth");
    assert_token_intact(&w.home, &w.fake, "re-auth");
    s.finish();
}

/// Stores the fake's current pair with the given expiry.
fn store(w: &World, expires_at: i64) {
    let (access, refresh) = w.fake.issue_pair();
    let t = Tokens {
        access_token: access,
        refresh_token: refresh,
        expires_at,
        scope: "user.info,user.metrics,user.activity".into(),
        userid: Some(USERID.into()),
        token_type: "Bearer".into(),
        created_at: 0,
    };
    tokens::save(&w.home.token_path(), &t).unwrap();
}

#[test]
fn clock_skew_refreshes_exactly_once() {
    const YEAR: i64 = 365 * 86_400;
    // (clock, token expiry, upstream refuses the access token, what)
    let cases = [
        (NOW + 20 * YEAR, NOW + 3600, false, "clock far ahead: the token looks expired"),
        (NOW - YEAR, NOW - 3600, true, "clock far behind: looks valid, the server says 401"),
    ];
    for (clock, expires_at, refused, what) in cases {
        let (mut w, _front) = world("fskew");
        w.set("WITHINGS_MCP_NOW", &clock.to_string());
        store(&w, expires_at);
        if refused {
            w.fake.expire_access_tokens();
        }
        for round in 0..3 {
            let (r, _) = call(&w, "withings_list_body_measures", &json!({}));
            assert_eq!(r.code, 0, "{what}, call {round}: {}", r.all());
            assert_eq!(w.fake.refreshes(), 1, "{what}, call {round}: exactly one refresh");
            assert_token_intact(&w.home, &w.fake, what);
        }
        let t = tokens::load(&w.home.token_path()).unwrap().unwrap();
        assert_eq!(t.expires_at, clock + 10_800, "{what}: the expiry follows the local clock");
        record("ClockSkew", 1);
    }
}

/// A signed-in world whose `getmeas` and `getactivity` stall (each answer 100 s late, for three
/// tries) behind the default 30 s HTTP timeout: only the call's deadline can end the wait.
fn stalled(tag: &str) -> World {
    let w = World::new(tag);
    crate::data::serve_all(&w.fake);
    for (path, action) in [("/measure", "getmeas"), ("/v2/measure", "getactivity")] {
        w.fake.fail(path, action, Fault::Delay(Duration::from_secs(100)), 3);
    }
    w
}

#[test]
fn a_stalled_withings_fails_within_an_8_s_deadline_and_the_session_goes_on() {
    let mut w = stalled("fdeadline");
    w.set("WITHINGS_CALL_DEADLINE", "8");
    let mut s = Session::start(w.command());
    let list = "withings_list_body_measures";
    let started = Instant::now();
    let text = error_text(&s.call(list, json!({})));
    let took = started.elapsed();
    eprintln!("stalled tool call with an 8 s deadline failed after {took:?}");
    assert!(took < Duration::from_secs(10), "fails inside 10 s: {took:?}");
    assert!(text.contains("/measure getmeas did not answer in time") && text.contains("8 s"), "{text}");
    // A resource read is one call with its own deadline too.
    let started = Instant::now();
    let read = s.request("resources/read", json!({"uri": "withings://latest/activity"}));
    assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());
    let m = read["error"]["message"].as_str().unwrap();
    assert!(m.contains("/v2/measure getactivity did not answer in time"), "{read}");
    // The same session serves the next requests once Withings answers again.
    assert_eq!(s.request("ping", json!({}))["result"], json!({}));
    w.fake.clear_faults();
    assert_ok(&s.call(list, json!({})), "after the stall");
    // `call` is bounded the same way.
    w.fake.fail("/measure", "getmeas", Fault::Delay(Duration::from_secs(100)), 3);
    let mut c = w.command();
    c.args(["call", list]);
    let started = Instant::now();
    let r = run_bounded(c, Duration::from_secs(10));
    assert_eq!(r.code, 1, "{}", r.all());
    assert!(r.stdout.contains("\"deadline\"") && r.stderr.contains("did not answer in time"), "{}", r.all());
    eprintln!("stalled `call` with an 8 s deadline failed after {:?}", started.elapsed());
    w.assert_no_secrets();
    s.finish();
}

#[test]
fn a_stalled_withings_fails_within_the_default_deadline() {
    let w = stalled("fdefault");
    let mut c = w.command();
    c.args(["call", "withings_list_body_measures"]);
    let started = Instant::now();
    let r = run_bounded(c, Duration::from_secs(50));
    eprintln!("stalled `call` with the default deadline failed after {:?}", started.elapsed());
    assert_eq!(r.code, 1, "{}", r.all());
    assert!(
        r.stderr.contains("/measure getmeas did not answer in time") && r.stderr.contains("45 s"),
        "{}",
        r.all()
    );
    assert_eq!(w.fake.count("/measure", "getmeas"), 2, "one 30 s try, then one cut to the time left");
}
