//! A fake Withings for end-to-end tests: tiny_http on 127.0.0.1:0, on a background thread.
//!
//! It plays the token endpoint (single-use codes, rotating refresh tokens, reuse rejected), the
//! signature service (checks every HMAC, nonces single use), signed `revoke`, and data endpoints
//! from a script, with fault injection, and records every request with the user its token
//! belongs to. Several Withings users sign in to the one app: every grant (a code exchanged) is a
//! token family of its own, whose refresh token rotates on its own; `revoke` ends every family of
//! one user. Also: helpers to run the real
//! binary in a sanitized environment with a temporary HOME, and a scan for leaked secrets.

#![allow(dead_code)]

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use serde_json::{Value, json};
use withings_mcp::withings::sign;

pub const CLIENT_ID: &str = "test_client_id_0001";
pub const CLIENT_SECRET: &str = "test_client_secret_0001";
pub const USERID: &str = "1234567";
/// A second Withings user, for several people on one install.
pub const USERID2: &str = "7654321";

/// One recorded request.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub path: String,
    pub form: Vec<(String, String)>,
    pub auth: Option<String>,
    /// The Withings user whose token (bearer, code or refresh token) the request carried.
    pub user: Option<String>,
}

impl Recorded {
    pub fn get(&self, key: &str) -> Option<&str> {
        self.form.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }
    pub fn action(&self) -> &str {
        self.get("action").unwrap_or_default()
    }
}

/// A scripted misbehaviour, served instead of the normal answer.
#[derive(Debug, Clone)]
pub enum Fault {
    /// `{"status": n, "body": {}}` with HTTP 200.
    Status(i64),
    /// Any HTTP status and raw body, optionally with `Retry-After`.
    Http { code: u16, body: String, retry_after: Option<u64> },
    /// Sleep this long, then answer normally.
    Delay(Duration),
    /// `{"status": n, "error": …}` whose text echoes the secrets of the request (and the current
    /// refresh token, and a token minted for the occasion) in one form: what a careless upstream
    /// could send back.
    Echo(i64, Echo),
}

/// How an `Echo` fault writes the secrets into its error text.
#[derive(Debug, Clone, Copy)]
pub enum Echo {
    /// `client_secret=…&code=…`
    Pairs,
    /// `{"client_secret": "…", "code": "…"}`
    Json,
    /// The values alone.
    Bare,
}

type Script = Box<dyn Fn(&Recorded) -> Value + Send>;

#[derive(Default)]
struct State {
    /// Unused codes, and the user each signs in.
    codes: HashMap<String, String>,
    /// Valid access tokens and their user.
    access: HashMap<String, String>,
    /// The valid refresh token of each family (one per grant; rotation replaces it) and its user.
    refresh: HashMap<String, String>,
    issued: Vec<String>,
    /// The user of every token issued.
    owner: HashMap<String, String>,
    /// The refresh token issued with each access token (its family's, at the time).
    pair_of: HashMap<String, String>,
    nonces: HashSet<String>,
    used_nonces: HashSet<String>,
    revoked: Vec<String>,
    omit_refresh_token: bool,
    refresh_delay: Duration,
    refreshes: usize,
    refreshes_by: HashMap<String, usize>,
    faults: HashMap<(String, String), VecDeque<Fault>>,
    scripts: HashMap<(String, String), Script>,
    requests: Vec<Recorded>,
}

pub struct FakeWithings {
    pub url: String,
    state: Arc<Mutex<State>>,
    server: Arc<tiny_http::Server>,
    thread: Option<JoinHandle<()>>,
}

static COUNTER: AtomicUsize = AtomicUsize::new(0);

fn unique(prefix: &str) -> String {
    format!("{prefix}{:04}{}", COUNTER.fetch_add(1, Ordering::Relaxed), sign::random_hex(12).unwrap())
}

impl FakeWithings {
    pub fn start() -> FakeWithings {
        let server = Arc::new(tiny_http::Server::http("127.0.0.1:0").unwrap());
        let port = server.server_addr().to_ip().unwrap().port();
        let state = Arc::new(Mutex::new(State::default()));
        let (s2, st2) = (server.clone(), state.clone());
        let thread = std::thread::spawn(move || {
            // One thread per request, like a real server: a slow answer does not hold up others.
            for req in s2.incoming_requests() {
                let st = st2.clone();
                std::thread::spawn(move || handle(req, &st));
            }
        });
        FakeWithings { url: format!("http://127.0.0.1:{port}"), state, server, thread: Some(thread) }
    }

    /// A fresh single-use authorization code of `USERID`.
    pub fn new_code(&self) -> String {
        self.new_code_for(USERID)
    }

    /// A fresh single-use authorization code that signs `user` in.
    pub fn new_code_for(&self, user: &str) -> String {
        let c = unique("code");
        let mut s = self.state.lock().unwrap();
        s.codes.insert(c.clone(), user.to_string());
        s.issued.push(c.clone());
        c
    }

    /// Issues a valid pair of `USERID` as if a sign-in had happened: (access, refresh).
    pub fn issue_pair(&self) -> (String, String) {
        self.issue_pair_for(USERID)
    }

    /// Issues a valid pair (a new token family) of `user`.
    pub fn issue_pair_for(&self, user: &str) -> (String, String) {
        let mut s = self.state.lock().unwrap();
        issue(&mut s, user, None)
    }

    /// Makes every access token issued so far invalid (status 401 on data calls).
    pub fn expire_access_tokens(&self) {
        self.state.lock().unwrap().access.clear();
    }

    /// Revokes every grant upstream, as when the user disconnects the app in Withings: every
    /// access token is refused (401) and every refresh token is rejected.
    pub fn revoke_grant(&self) {
        let mut s = self.state.lock().unwrap();
        s.access.clear();
        s.refresh.clear();
    }

    /// Drops every queued fault (a storm longer than the retries leaves some behind).
    pub fn clear_faults(&self) {
        self.state.lock().unwrap().faults.clear();
    }

    /// The refresh tokens issued so far, oldest first: the only order a stored one may follow.
    pub fn issued_refresh_tokens(&self) -> Vec<String> {
        self.state.lock().unwrap().issued.iter().filter(|s| s.starts_with("ref")).cloned().collect()
    }

    /// The refresh tokens issued to `user` so far, oldest first.
    pub fn issued_refresh_tokens_of(&self, user: &str) -> Vec<String> {
        let s = self.state.lock().unwrap();
        s.issued
            .iter()
            .filter(|t| t.starts_with("ref") && s.owner.get(*t).is_some_and(|u| u == user))
            .cloned()
            .collect()
    }

    /// The next refresh answers omit `refresh_token` (the old one stays valid).
    pub fn omit_refresh_token(&self, on: bool) {
        self.state.lock().unwrap().omit_refresh_token = on;
    }

    /// Slows refresh answers down (to widen race windows).
    pub fn refresh_delay(&self, d: Duration) {
        self.state.lock().unwrap().refresh_delay = d;
    }

    /// Serves `f` for a data `path` + `action`; `f` returns the whole envelope.
    pub fn on(&self, path: &str, action: &str, f: impl Fn(&Recorded) -> Value + Send + 'static) {
        self.state.lock().unwrap().scripts.insert((path.into(), action.into()), Box::new(f));
    }

    /// Serves a fixture file from fixtures/withings for `path` + `action`.
    pub fn on_fixture(&self, path: &str, action: &str, fixture: &str) {
        let v = fixture_json(fixture);
        self.on(path, action, move |_| v.clone());
    }

    /// Queues `n` copies of a fault for `path` + `action` (served before the normal answer).
    pub fn fail(&self, path: &str, action: &str, fault: Fault, n: usize) {
        let mut s = self.state.lock().unwrap();
        let q = s.faults.entry((path.into(), action.into())).or_default();
        for _ in 0..n {
            q.push_back(fault.clone());
        }
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.state.lock().unwrap().requests.clone()
    }

    pub fn count(&self, path: &str, action: &str) -> usize {
        self.requests().iter().filter(|r| r.path == path && r.action() == action).count()
    }

    pub fn refreshes(&self) -> usize {
        self.state.lock().unwrap().refreshes
    }

    /// Refreshes of `user`'s tokens.
    pub fn refreshes_of(&self, user: &str) -> usize {
        self.state.lock().unwrap().refreshes_by.get(user).copied().unwrap_or(0)
    }

    /// The newest valid refresh token of `USERID`.
    pub fn current_refresh_token(&self) -> Option<String> {
        self.current_refresh_token_of(USERID)
    }

    /// The newest valid refresh token of `user`.
    pub fn current_refresh_token_of(&self, user: &str) -> Option<String> {
        let s = self.state.lock().unwrap();
        s.issued.iter().rev().find(|t| s.refresh.get(*t).is_some_and(|u| u == user)).cloned()
    }

    pub fn revoked(&self) -> Vec<String> {
        self.state.lock().unwrap().revoked.clone()
    }

    /// Every secret this fake knows: the client secret and each code and token it issued.
    pub fn secrets(&self) -> Vec<String> {
        let mut v = self.state.lock().unwrap().issued.clone();
        v.push(CLIENT_SECRET.to_string());
        v
    }

    /// Fails the test when `captured` contains any secret.
    pub fn assert_no_secrets(&self, captured: &str) {
        for s in self.secrets() {
            assert!(!captured.contains(&s), "a secret leaked into captured output: {captured}");
        }
    }
}

impl Drop for FakeWithings {
    fn drop(&mut self) {
        self.server.unblock();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// A new pair for `user`: a new family, or the next of the family whose refresh token was `old`.
fn issue(s: &mut State, user: &str, old: Option<&str>) -> (String, String) {
    let a = unique("acc");
    let r = unique("ref");
    if let Some(old) = old {
        s.refresh.remove(old);
    }
    s.access.insert(a.clone(), user.to_string());
    s.refresh.insert(r.clone(), user.to_string());
    s.pair_of.insert(a.clone(), r.clone());
    for t in [&a, &r] {
        s.issued.push(t.clone());
        s.owner.insert(t.clone(), user.to_string());
    }
    (a, r)
}

/// The user a request's token belongs to: its bearer, its code or its refresh token.
fn user_of(s: &State, rec: &Recorded) -> Option<String> {
    let bearer = rec.auth.as_deref().and_then(|a| a.strip_prefix("Bearer "));
    [bearer, rec.get("code"), rec.get("refresh_token")]
        .into_iter()
        .flatten()
        .find_map(|t| s.owner.get(t).or_else(|| s.codes.get(t)).cloned())
}

fn envelope(status: i64) -> Value {
    json!({"status": status, "body": {}})
}

fn handle(mut req: tiny_http::Request, state: &Arc<Mutex<State>>) {
    let mut body = String::new();
    let _ = req.as_reader().read_to_string(&mut body);
    let path = req.url().split('?').next().unwrap_or_default().to_string();
    let auth =
        req.headers().iter().find(|h| h.field.equiv("Authorization")).map(|h| h.value.as_str().to_string());
    let mut rec = Recorded { path: path.clone(), form: parse_form(&body), auth, user: None };
    let key = (path.clone(), rec.action().to_string());
    let fault = {
        let mut s = state.lock().unwrap();
        rec.user = user_of(&s, &rec);
        s.requests.push(rec.clone());
        s.faults.get_mut(&key).and_then(VecDeque::pop_front)
    };
    let (code, text, retry_after) = match fault {
        Some(Fault::Status(n)) => (200, envelope(n).to_string(), None),
        Some(Fault::Http { code, body, retry_after }) => (code, body, retry_after),
        Some(Fault::Echo(n, how)) => (200, echo(n, how, &rec, state).to_string(), None),
        Some(Fault::Delay(d)) => {
            std::thread::sleep(d);
            (200, answer(&rec, state).to_string(), None)
        }
        None => (200, answer(&rec, state).to_string(), None),
    };
    let mut resp = tiny_http::Response::from_string(text).with_status_code(code);
    if let Some(s) = retry_after {
        resp = resp.with_header(
            tiny_http::Header::from_bytes(&b"Retry-After"[..], s.to_string().as_bytes()).unwrap(),
        );
    }
    let _ = req.respond(resp);
}

fn echo(status: i64, how: Echo, rec: &Recorded, state: &Arc<Mutex<State>>) -> Value {
    let bearer = rec.auth.as_deref().and_then(|a| a.strip_prefix("Bearer "));
    // A data call carries no refresh token, but the upstream knows the current one.
    let refresh = match (rec.get("refresh_token"), bearer) {
        (Some(r), _) => Some(r.to_string()),
        (None, Some(b)) => state.lock().unwrap().pair_of.get(b).cloned(),
        (None, None) => None,
    };
    // A token minted for the occasion, which the process cannot know: only its key gives it
    // away (left out of the bare form, where nothing could).
    let minted = match how {
        Echo::Bare => None,
        Echo::Pairs | Echo::Json => {
            let t = unique("acc");
            state.lock().unwrap().issued.push(t.clone());
            Some(t)
        }
    };
    let secrets: Vec<(&str, String)> = [
        ("token", minted),
        ("client_secret", rec.get("client_secret").map(str::to_string)),
        ("code", rec.get("code").map(str::to_string)),
        ("refresh_token", refresh),
        ("access_token", bearer.map(str::to_string)),
    ]
    .into_iter()
    .filter_map(|(k, v)| Some((k, v?)))
    .collect();
    let text = match how {
        Echo::Pairs => secrets.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join("&"),
        Echo::Json => {
            Value::Object(secrets.iter().map(|(k, v)| (k.to_string(), json!(v))).collect()).to_string()
        }
        Echo::Bare => secrets.iter().map(|(_, v)| v.as_str()).collect::<Vec<_>>().join(" "),
    };
    json!({"status": status, "body": {}, "error": text})
}

fn answer(rec: &Recorded, state: &Arc<Mutex<State>>) -> Value {
    match (rec.path.as_str(), rec.action()) {
        ("/v2/oauth2", "requesttoken") => token(rec, state),
        ("/v2/signature", "getnonce") => {
            let ts = rec.get("timestamp").unwrap_or_default();
            if rec.get("client_id") != Some(CLIENT_ID)
                || rec.get("signature") != Some(&sign::signature(CLIENT_SECRET, "getnonce", CLIENT_ID, ts))
            {
                return json!({"status": 2553, "body": {}, "error": "invalid signature"});
            }
            let n = sign::random_hex(20).unwrap();
            state.lock().unwrap().nonces.insert(n.clone());
            json!({"status": 0, "body": {"nonce": n}})
        }
        ("/v2/oauth2", "revoke") => {
            let mut s = state.lock().unwrap();
            let nonce = rec.get("nonce").unwrap_or_default().to_string();
            let good_sig =
                rec.get("signature") == Some(&sign::signature(CLIENT_SECRET, "revoke", CLIENT_ID, &nonce));
            if !good_sig || !s.nonces.contains(&nonce) || s.used_nonces.contains(&nonce) {
                return json!({"status": 2553, "body": {}, "error": "invalid signature or nonce"});
            }
            s.used_nonces.insert(nonce.clone());
            s.nonces.remove(&nonce);
            let user = rec.get("userid").unwrap_or_default().to_string();
            s.access.retain(|_, u| *u != user);
            s.refresh.retain(|_, u| *u != user);
            s.revoked.push(user);
            json!({"status": 0, "body": {}})
        }
        (path, action) => {
            let s = state.lock().unwrap();
            let token = rec.auth.as_deref().and_then(|a| a.strip_prefix("Bearer ")).unwrap_or_default();
            if !s.access.contains_key(token) {
                return json!({"status": 401, "body": {}, "error": "invalid_token: The access token provided is invalid"});
            }
            if let Some(missing) = missing_sleep_fields(rec) {
                return json!({"status": 503, "body": {}, "error": format!("data_fields lacks {missing}")});
            }
            match s.scripts.get(&(path.to_string(), action.to_string())) {
                Some(f) => f(rec),
                None => envelope(2554),
            }
        }
    }
}

/// Every `data` field Withings documents for sleep `getsummary` (withings-api.md §3.6; the two
/// deprecated ones aside). Without `data_fields` Withings sends only a default few.
pub const SLEEP_SUMMARY_FIELDS: [&str; 44] = [
    "total_timeinbed",
    "total_sleep_time",
    "asleepduration",
    "lightsleepduration",
    "deepsleepduration",
    "remsleepduration",
    "sleep_efficiency",
    "sleep_latency",
    "wakeup_latency",
    "wakeupduration",
    "wakeupcount",
    "waso",
    "nb_rem_episodes",
    "breathing_disturbances_intensity",
    "apnea_hypopnea_index",
    "withings_index",
    "out_of_bed_count",
    "hr_average",
    "hr_min",
    "hr_max",
    "rr_average",
    "rr_min",
    "rr_max",
    "breathing_quality_assessment",
    "snoring",
    "snoringepisodecount",
    "sleep_score",
    "night_events",
    "mvt_score_avg",
    "mvt_active_duration",
    "rmssd_start_avg",
    "rmssd_end_avg",
    "chest_movement_rate_wellness_average",
    "chest_movement_rate_wellness_min",
    "chest_movement_rate_wellness_max",
    "chest_movement_rate_average",
    "chest_movement_rate_min",
    "chest_movement_rate_max",
    "breathing_sounds",
    "breathing_sounds_episode_count",
    "core_body_temperature_min",
    "core_body_temperature_max",
    "core_body_temperature_avg",
    "core_body_temperature_status",
];

/// A sleep summary request that does not ask for every documented field: the first it lacks.
fn missing_sleep_fields(rec: &Recorded) -> Option<&'static str> {
    if (rec.path.as_str(), rec.action()) != ("/v2/sleep", "getsummary") {
        return None;
    }
    let asked: Vec<&str> = rec.get("data_fields").unwrap_or_default().split(',').collect();
    SLEEP_SUMMARY_FIELDS.iter().copied().find(|f| !asked.contains(f))
}

fn token(rec: &Recorded, state: &Arc<Mutex<State>>) -> Value {
    if rec.get("client_id") != Some(CLIENT_ID) || rec.get("client_secret") != Some(CLIENT_SECRET) {
        return json!({"status": 503, "body": {}, "error": "Invalid Params: invalid client"});
    }
    match rec.get("grant_type") {
        Some("authorization_code") => {
            let mut s = state.lock().unwrap();
            let code = rec.get("code").unwrap_or_default();
            let Some(user) = s.codes.remove(code).filter(|_| rec.get("redirect_uri").is_some()) else {
                return json!({"status": 503, "body": {}, "error": "Invalid Params: invalid code"});
            };
            let (a, r) = issue(&mut s, &user, None);
            json!({"status": 0, "body": {"userid": user.parse::<i64>().unwrap(), "access_token": a, "refresh_token": r,
                "expires_in": 10800, "scope": "user.info,user.metrics,user.activity", "csrf_token": "csrf", "token_type": "Bearer"}})
        }
        Some("refresh_token") => {
            let delay = state.lock().unwrap().refresh_delay;
            std::thread::sleep(delay);
            let mut s = state.lock().unwrap();
            let given = rec.get("refresh_token").unwrap_or_default();
            let Some(user) = s.refresh.get(given).cloned() else {
                return json!({"status": 503, "body": {}, "error": "Invalid Params: invalid refresh_token"});
            };
            s.refreshes += 1;
            *s.refreshes_by.entry(user.clone()).or_default() += 1;
            if s.omit_refresh_token {
                let a = unique("acc");
                s.access.insert(a.clone(), user.clone());
                s.issued.push(a.clone());
                s.owner.insert(a.clone(), user);
                s.pair_of.insert(a.clone(), given.to_string());
                return json!({"status": 0, "body": {"access_token": a, "expires_in": 10800}});
            }
            let (a, r) = issue(&mut s, &user, Some(given));
            json!({"status": 0, "body": {"userid": user, "access_token": a, "refresh_token": r, "expires_in": 10800,
                "scope": "user.info,user.metrics,user.activity", "token_type": "Bearer"}})
        }
        _ => json!({"status": 503, "body": {}, "error": "Invalid Params: grant_type"}),
    }
}

fn parse_form(body: &str) -> Vec<(String, String)> {
    withings_mcp::withings::oauth::parse_query(body)
}

pub fn fixture_json(name: &str) -> Value {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/withings").join(name);
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

/// The binary under test.
pub fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_withings-mcp"))
}

/// A temporary HOME, removed on drop.
pub struct TempHome {
    pub dir: PathBuf,
}

impl TempHome {
    pub fn new(tag: &str) -> TempHome {
        let dir = std::env::temp_dir().join(format!("wmcp-it-{tag}-{}-{}", std::process::id(), unique("")));
        std::fs::create_dir_all(&dir).unwrap();
        TempHome { dir }
    }
    pub fn state_dir(&self) -> PathBuf {
        self.dir.join(".withings-mcp")
    }
    pub fn token_path(&self) -> PathBuf {
        self.state_dir().join("tokens.json")
    }
    /// The environment of a test run, as pairs (also used for in-process `Env`s).
    pub fn env_pairs(&self, fake: &FakeWithings) -> Vec<(String, String)> {
        vec![
            ("PATH".into(), std::env::var("PATH").unwrap_or_default()),
            ("HOME".into(), self.dir.display().to_string()),
            ("WITHINGS_API_URL".into(), fake.url.clone()),
            ("WITHINGS_ACCOUNT_URL".into(), fake.url.clone()),
            ("WITHINGS_CLIENT_ID".into(), CLIENT_ID.into()),
            ("WITHINGS_CLIENT_SECRET".into(), CLIENT_SECRET.into()),
            ("WITHINGS_RETRY_BASE_MS".into(), "20".into()),
        ]
    }
    /// The binary with a sanitized environment pointing at `fake`.
    pub fn command(&self, fake: &FakeWithings) -> Command {
        let mut c = Command::new(bin());
        c.env_clear();
        for (k, v) in self.env_pairs(fake) {
            c.env(k, v);
        }
        c
    }
}

impl Drop for TempHome {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Exit code, stdout and stderr of a finished run.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    pub fn all(&self) -> String {
        format!("{}\n{}", self.stdout, self.stderr)
    }
}

pub fn run(mut cmd: Command) -> Run {
    let out: Output = cmd.output().unwrap();
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}
