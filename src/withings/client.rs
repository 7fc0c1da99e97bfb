//! The Withings client: form POSTs through an `Upstream`, the in-body `status` judged in one
//! place (`judge`), bounded retries with full jitter, the one place that decides to refresh a
//! token (`call`), paging, and signed calls.
//!
//! Retries: 601 / HTTP 429 (rate limited), HTTP 5xx, 522, the "an error occurred" family and
//! network failures are retried at most `max_tries` times in all, sleeping a random time in
//! `[0, min(cap, base·2^n)]` (or the server's `Retry-After` when it is longer), and never more
//! than `max_total_ms` in total. `WITHINGS_NO_RETRY=1` disables retries; the hidden
//! `WITHINGS_RETRY_BASE_MS` shortens the base delay (tests).
//!
//! Bounds (`budget.rs`): a client serves one call. Before every request it checks the call's
//! deadline and its budget of `MAX_REQUESTS`, and gives the request only the time left; a retry
//! never waits past the deadline. It reports each request, retry and token refresh to the
//! call's sink.

use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::error::{ApiKind, Foreign};
use crate::store::accounts::{Account, Accounts};
use crate::store::config::{Config, Env, Key};
use crate::store::tokens::{self, Grant, Tokens};
use crate::withings::budget::{self, Call, Event, Level, MAX_REQUESTS, Sink};
use crate::withings::http::HttpUpstream;
use crate::withings::oauth;
use crate::withings::pace::Pace;
use crate::withings::sign;
use crate::withings::status::{self, Class};
use crate::withings::upstream::{Reply, Upstream};
use crate::withings::wire::{self, Answer, PageBody, Row};
use crate::{Error, Result};

/// How the client sleeps between retries (a seam so tests need not wait).
pub type Sleep = fn(Duration);

/// Retry bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retry {
    /// Attempts in all, including the first; 1 disables retries.
    pub max_tries: u32,
    /// First backoff ceiling in milliseconds; doubled per attempt.
    pub base_ms: u64,
    /// Largest single wait.
    pub cap_ms: u64,
    /// Largest total wait across the retries of one request.
    pub max_total_ms: u64,
}

impl Retry {
    /// The default: 3 tries, 1 s then 2 s ceilings, at most 20 s of waiting in all.
    pub const DEFAULT: Retry = Retry { max_tries: 3, base_ms: 1000, cap_ms: 10_000, max_total_ms: 20_000 };
    /// No retries.
    pub const NONE: Retry = Retry { max_tries: 1, base_ms: 0, cap_ms: 0, max_total_ms: 0 };
}

/// Rows gathered by `page_through`, each decoded as `R` straight from the answer's text.
#[derive(Debug, Clone, PartialEq)]
pub struct Page<R> {
    pub rows: Vec<R>,
    /// True when Withings has more rows than were returned.
    pub more: bool,
    /// The offset to pass back to continue exactly after the last returned row.
    pub next_offset: Option<i64>,
    /// The last page's body-level `timezone` (getmeas), the zone of groups that name none.
    pub timezone: Option<String>,
    /// True when paging stopped because the call's request budget ran out (`more` is then true
    /// and `next_offset` resumes at the first page not fetched).
    pub budget_spent: bool,
}

/// How a walk over pages (`Client::each_page`) ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Walk {
    /// Withings said there was no more.
    End,
    /// The visitor asked to stop.
    Stopped,
    /// The call's request budget ran out; `next_offset` is the first page not fetched.
    Budget { next_offset: Option<i64> },
}

/// A client for one user's Withings account.
pub struct Client {
    client_id: Option<String>,
    client_secret: Option<String>,
    redirect_uri: String,
    /// The account served, its token file, and the install's accounts (none for the demo).
    account: Account,
    token_path: PathBuf,
    accounts: Option<Accounts>,
    upstream: Box<dyn Upstream>,
    now: i64,
    sleep: Sleep,
    retry: Retry,
    sent: usize,
    slept_ms: u64,
    /// The demo account's token: set only by `Client::demo`, which has no token file.
    demo_token: Option<&'static str>,
    /// The call's deadline and its length in seconds (for the message), when in a call.
    deadline: Option<(Instant, u64)>,
    /// Where events go (progress and log notifications on stdio).
    sink: Option<Rc<dyn Sink>>,
    /// Requests this client expects to send in all, when known (reported as progress `total`).
    expected: Option<usize>,
    /// Requests this client may send: a call's `MAX_REQUESTS`, unbounded for a paced job.
    budget: usize,
    /// A long job's pacing (export), consulted before every request.
    pace: Option<Pace>,
}

impl Client {
    /// A client for the account `env` names (`WITHINGS_ACCOUNT`, else `default`), sending
    /// through `upstream`, at time `now`.
    pub fn new(env: &Env, cfg: &Config, upstream: Box<dyn Upstream>, now: i64) -> Result<Client> {
        let account = env.account()?;
        let accounts = Accounts::new(cfg, env)?;
        let retry = match cfg.retries_enabled() {
            false => Retry::NONE,
            true => match env.get("WITHINGS_RETRY_BASE_MS").and_then(|s| s.parse::<u64>().ok()) {
                Some(base_ms) => Retry { base_ms, ..Retry::DEFAULT },
                None => Retry::DEFAULT,
            },
        };
        Ok(Client {
            client_id: cfg.get(Key::ClientId).map(str::to_string),
            client_secret: cfg.get(Key::ClientSecret).map(str::to_string),
            redirect_uri: cfg.redirect_uri().to_string(),
            token_path: accounts.token_path(&account)?,
            account,
            accounts: Some(accounts),
            upstream,
            now,
            sleep: std::thread::sleep,
            retry,
            sent: 0,
            slept_ms: 0,
            demo_token: None,
            deadline: None,
            sink: None,
            expected: None,
            budget: MAX_REQUESTS,
            pace: None,
        })
    }

    /// A client for the built-in demo account: no credentials, no token file, nothing to
    /// refresh; every request still goes through the same status mapping and paging.
    pub fn demo(upstream: Box<dyn Upstream>, now: i64) -> Client {
        Client {
            client_id: None,
            client_secret: None,
            redirect_uri: crate::store::config::DEFAULT_REDIRECT_URI.to_string(),
            account: Account::default(),
            token_path: PathBuf::new(),
            accounts: None,
            upstream,
            now,
            sleep: std::thread::sleep,
            retry: Retry::NONE,
            sent: 0,
            slept_ms: 0,
            demo_token: Some("demo-access-token"),
            deadline: None,
            sink: None,
            expected: None,
            budget: MAX_REQUESTS,
            pace: None,
        }
    }

    /// A client that talks to the real Withings API (`WITHINGS_API_URL`) over HTTP.
    pub fn http(env: &Env, cfg: &Config, now: i64) -> Result<Client> {
        Client::new(env, cfg, Box::new(HttpUpstream::from_config(env, cfg)), now)
    }

    /// Replaces the sleep function (tests record instead of waiting).
    pub fn with_sleep(mut self, sleep: Sleep) -> Client {
        self.sleep = sleep;
        self
    }

    /// Binds this client to a call: its deadline (`WITHINGS_CALL_DEADLINE` from `cfg`, counted
    /// from the call's start) and its event sink.
    pub fn within(mut self, call: &Call, cfg: &Config) -> Result<Client> {
        let secs = budget::deadline_secs(cfg.get(Key::CallDeadline))?;
        self.deadline = call.started.map(|s| (s + Duration::from_secs(secs), secs));
        self.sink = call.sink.clone();
        Ok(self)
    }

    /// A client for a long job that is not a tool call (export): no per-call request budget, but
    /// every request waits for `pace` (none for the demo, which has no rate limit), and a retry
    /// may wait out a `Retry-After` of up to a minute (`WITHINGS_NO_RETRY` still means one try).
    pub fn for_job(mut self, pace: Option<Pace>) -> Client {
        const LONG_WAIT_MS: u64 = 65_000;
        self.budget = usize::MAX;
        self.pace = pace;
        self.retry.max_total_ms = self.retry.max_total_ms.max(LONG_WAIT_MS);
        self
    }

    /// Says that about `more` requests will follow (reported as the progress `total`).
    pub fn expect(&mut self, more: usize) {
        self.expected = Some(self.sent + more.min(self.budget.saturating_sub(self.sent)));
    }

    /// Requests this client may still send under the call's budget.
    pub fn requests_left(&self) -> usize {
        self.budget.saturating_sub(self.sent)
    }

    /// Replaces the retry bounds.
    pub fn with_retry(mut self, retry: Retry) -> Client {
        self.retry = retry;
        self
    }

    /// Requests sent upstream so far (every attempt counts).
    pub fn requests_sent(&self) -> usize {
        self.sent
    }

    /// Milliseconds spent sleeping between retries so far.
    pub fn slept_ms(&self) -> u64 {
        self.slept_ms
    }

    /// The token file this client reads and writes.
    pub fn token_path(&self) -> &Path {
        &self.token_path
    }

    /// Calls a data action with a fresh access token and returns the `body` of a status-0
    /// answer. An auth status triggers one refresh (under the lock) and one retry; a second
    /// refusal is `Error::NeedsAuth`.
    pub fn call(&mut self, path: &str, action: &str, params: &[(&str, String)]) -> Result<Value> {
        self.call_answer(path, action, params)?.value(&format!("{path} {action}"))
    }

    /// One answer's rows, each decoded as `R` as it is read, without following `more` (for
    /// actions that do not page, such as sleep `get`).
    pub fn rows<R: Row>(
        &mut self,
        path: &str,
        action: &str,
        params: &[(&str, String)],
    ) -> Result<PageBody<R>> {
        R::page_of(self.call_answer(path, action, params)?, &format!("{path} {action}"))
    }

    /// [`Client::call`], leaving the answer's text undecoded (to decode as a typed body).
    pub fn call_answer(&mut self, path: &str, action: &str, params: &[(&str, String)]) -> Result<Answer> {
        let mut form: Vec<(&str, String)> = vec![("action", action.to_string())];
        form.extend(params.iter().filter(|(k, _)| *k != "action").cloned());
        let token = self.access_token()?;
        match self.send(path, action, &form, Some(&token), true) {
            Err(e) if matches!(*e, Error::Api { kind: ApiKind::Auth, .. }) => {}
            other => return other,
        }
        let token = self.refresh_rejected(&token)?;
        match self.send(path, action, &form, Some(&token), true) {
            Err(e) => match &*e {
                Error::Api { kind: ApiKind::Auth, status, .. } => Err(Error::boxed(Error::NeedsAuth(
                    format!("Withings refused the access token again after a refresh (status {status})"),
                ))),
                _ => Err(e),
            },
            other => other,
        }
    }

    /// An answer's text handed back once decoded, for the next answer to be read into.
    pub fn recycle(&self, text: String) {
        self.upstream.recycle(text);
    }

    /// Follows `more`/`offset` until Withings has no more rows or `limit` rows are gathered.
    ///
    /// Withings offsets count rows from the start of the query (a page of n rows requested at
    /// offset o answers `offset: o+n`). When `limit` falls inside a page, exactly `limit` rows
    /// are returned with `more: true` and `next_offset` = that page's request offset + the rows
    /// taken from it, so passing it back re-fetches the first row not returned. A failure on
    /// any page is returned as the error: a partial list is never presented as complete. When
    /// the call's request budget runs out after at least one page, the rows so far come back
    /// with `more: true`, `budget_spent` and the offset of the first page not fetched.
    pub fn page_through<R: Row>(
        &mut self,
        path: &str,
        action: &str,
        params: &[(&str, String)],
        limit: usize,
        start_offset: Option<i64>,
    ) -> Result<Page<R::Kept>> {
        let mut rows: Vec<R::Kept> = Vec::new();
        let mut timezone = None;
        let mut cut = None;
        let walk = self.each_page::<R>(path, action, params, start_offset, &mut |page, here| {
            let room = limit.saturating_sub(rows.len());
            let n = page.rows.len();
            timezone = page.timezone;
            if n >= room && (n > room || page.more == Some(true)) {
                rows.extend(page.rows.into_iter().take(room));
                cut = match n > room {
                    true => Some(here + room as i64),
                    false => page.offset,
                };
                return Ok(false);
            }
            // The first page's rows are taken as they are: copying them (ten years of weigh-ins
            // are one page of 20,000 groups) touched as much fresh memory again.
            match rows.is_empty() {
                true => rows = page.rows,
                false => rows.extend(page.rows),
            }
            Ok(true)
        })?;
        let (more, next_offset, budget_spent) = match walk {
            Walk::End => (false, None, false),
            Walk::Stopped => (true, cut, false),
            Walk::Budget { next_offset } => (true, next_offset, true),
        };
        Ok(Page { rows, more, next_offset, timezone, budget_spent })
    }

    /// Follows `more`/`offset` from `start_offset`, handing each page to `visit` as soon as it
    /// is decoded (with the offset it was asked at), until Withings has no more rows or `visit`
    /// answers `false`. Only one page is held at a time: this is how an export streams. Stops
    /// with `Walk::Budget` when the call's request budget runs out after the first page.
    pub fn each_page<R: Row>(
        &mut self,
        path: &str,
        action: &str,
        params: &[(&str, String)],
        start_offset: Option<i64>,
        visit: &mut dyn FnMut(PageBody<R>, i64) -> Result<bool>,
    ) -> Result<Walk> {
        let endpoint = format!("{path} {action}");
        self.walk(path, action, params, start_offset, &mut |answer, here| {
            // The answer is given away: its text goes before the rows are used, unless they
            // share it.
            let page = R::page_of(answer, &endpoint)?;
            let (more, next) = (page.more.unwrap_or(false), page.offset);
            Ok((visit(page, here)?, more, next))
        })
    }

    /// The paging loop, compiled once for every row type: `step` decodes one answer, hands it
    /// over, and says whether to go on, whether Withings has more, and its next offset.
    fn walk(
        &mut self,
        path: &str,
        action: &str,
        params: &[(&str, String)],
        start_offset: Option<i64>,
        step: &mut dyn FnMut(Answer, i64) -> Result<(bool, bool, Option<i64>)>,
    ) -> Result<Walk> {
        let mut offset = start_offset;
        // Bounded by the request budget: every page costs at least one request.
        loop {
            let mut p: Vec<(&str, String)> = params.iter().filter(|(k, _)| *k != "offset").cloned().collect();
            if let Some(o) = offset.filter(|o| *o > 0) {
                p.push(("offset", o.to_string()));
            }
            let answer = match self.call_answer(path, action, &p) {
                Ok(answer) => answer,
                Err(e) if matches!(*e, Error::Budget { .. }) && offset != start_offset => {
                    return Ok(Walk::Budget { next_offset: offset });
                }
                Err(e) => return Err(e),
            };
            let here = offset.unwrap_or(0);
            let (go_on, more, next) = step(answer, here)?;
            if !go_on {
                return Ok(Walk::Stopped);
            }
            if !more {
                return Ok(Walk::End);
            }
            match next {
                Some(n) if n > here => offset = Some(n),
                _ => {
                    return Err(Error::boxed(Error::Transport {
                        endpoint: format!("{path} {action}"),
                        message: "paging offset did not advance; stopped to avoid a loop".to_string(),
                    }));
                }
            }
        }
    }

    /// A signed call (fresh nonce, then `action` signed with the client secret), e.g. `revoke`.
    pub fn signed_call(&mut self, path: &str, action: &str, extra: &[(&str, String)]) -> Result<Value> {
        let (client_id, secret) = self.credentials()?;
        let nonce_form = sign::getnonce_form(&client_id, &secret, self.now);
        let body = self
            .send("/v2/signature", "getnonce", &nonce_form, None, true)?
            .value("/v2/signature getnonce")?;
        let Some(nonce) = body.get("nonce").and_then(Value::as_str).map(str::to_string) else {
            return Err(Error::json("withings /v2/signature getnonce", "no nonce in the answer"));
        };
        let mut form = sign::signed_form(&client_id, &secret, action, &nonce);
        form.extend(
            extra
                .iter()
                .filter(|(k, _)| !matches!(*k, "action" | "client_id" | "nonce" | "signature"))
                .cloned(),
        );
        // A nonce is single use, so the signed request itself is not retried.
        self.send(path, action, &form, None, false)?.value(&format!("{path} {action}"))
    }

    /// Exchanges an authorization code (codes live 30 s, single use) and stores the tokens as
    /// this client's account, unless that Withings user is connected under another name.
    pub fn exchange_code(&mut self, code: &str) -> Result<Tokens> {
        self.exchange(code).map_err(|e| e.for_account(self.account.name()))
    }

    fn exchange(&mut self, code: &str) -> Result<Tokens> {
        let (client_id, secret) = self.credentials()?;
        let form = oauth::exchange_form(&client_id, &secret, code, &self.redirect_uri);
        // Not retried: a code that reached Withings may already be used.
        let body = match self.send(oauth::TOKEN_PATH, "requesttoken", &form, None, false) {
            Ok(a) => a.value(&format!("{} requesttoken", oauth::TOKEN_PATH))?,
            Err(e) => match &*e {
                Error::Api { status, kind: ApiKind::InvalidParams | ApiKind::Auth, .. } => {
                    return Err(Error::boxed(Error::NeedsAuth(format!(
                        "Withings refused the authorization code (status {status}): the code is expired or already used \
                         (codes live 30 seconds), or the redirect URI differs from the app's"
                    ))));
                }
                _ => return Err(e),
            },
        };
        let Some(accounts) = &self.accounts else {
            return Err(Error::boxed(Error::Unavailable("the demo account cannot be signed in".into())));
        };
        accounts.store_new_grant(&self.account, &oauth::parse_grant(&body), self.now)
    }

    /// The account this client serves.
    pub fn account(&self) -> &Account {
        &self.account
    }

    fn credentials(&self) -> Result<(String, String)> {
        match (&self.client_id, &self.client_secret) {
            (Some(id), Some(secret)) => Ok((id.clone(), secret.clone())),
            (None, _) => Err(Error::boxed(Error::Config(
                "WITHINGS_CLIENT_ID is not set; run `withings-mcp setup` or set the environment variable"
                    .into(),
            ))),
            (_, None) => Err(Error::boxed(Error::Config(
                "WITHINGS_CLIENT_SECRET is not set; run `withings-mcp setup` or set the environment variable"
                    .into(),
            ))),
        }
    }

    fn access_token(&mut self) -> Result<String> {
        if let Some(t) = self.demo_token {
            return Ok(t.to_string());
        }
        let path = self.token_path.clone();
        let now = self.now;
        tokens::fresh_access_token(&path, now, &mut |t| self.refresh_grant(t))
            .map_err(|e| e.for_account(self.account.name()))
    }

    fn refresh_rejected(&mut self, rejected: &str) -> Result<String> {
        if self.demo_token.is_some() {
            return Err(Error::boxed(Error::NeedsAuth("the demo account refused its token".into())));
        }
        let path = self.token_path.clone();
        let now = self.now;
        tokens::refresh_after_rejection(&path, rejected, now, &mut |t| self.refresh_grant(t))
            .map_err(|e| e.for_account(self.account.name()))
    }

    fn refresh_grant(&mut self, current: &Tokens) -> Result<Grant> {
        let (client_id, secret) = self.credentials()?;
        let form = oauth::refresh_form(&client_id, &secret, &current.refresh_token);
        self.log(Level::Info, "refreshing the Withings access token".to_string());
        let answer = self.send(oauth::TOKEN_PATH, "requesttoken", &form, None, true);
        match &answer {
            Ok(_) => self.log(Level::Info, "the access token was refreshed".to_string()),
            Err(e) => self.log(Level::Warning, format!("the token refresh failed: {e}")),
        }
        match answer {
            Ok(a) => Ok(oauth::parse_grant(&a.value(&format!("{} requesttoken", oauth::TOKEN_PATH))?)),
            Err(e) => match &*e {
                Error::Api {
                    status,
                    kind: ApiKind::InvalidParams | ApiKind::Auth | ApiKind::Unauthorized,
                    ..
                } => Err(Error::boxed(Error::NeedsAuth(format!(
                    "Withings refused the refresh token (status {status}): it expired, was revoked or was already used"
                )))),
                _ => Err(e),
            },
        }
    }

    /// One logical request with bounded retries, inside the call's deadline and budget.
    fn send(
        &mut self,
        path: &str,
        action: &str,
        form: &[(&str, String)],
        bearer: Option<&str>,
        retries: bool,
    ) -> Result<Answer> {
        let endpoint = format!("{path} {action}");
        let tries = match retries {
            true => self.retry.max_tries.max(1),
            false => 1,
        };
        let mut waited: u64 = 0;
        for attempt in 1..=tries {
            let within = self.admit(&endpoint)?;
            let answer = match within {
                Some(left) => self.upstream.post_within(path, form, bearer, left),
                None => self.upstream.post(path, form, bearer),
            };
            let outcome = match answer {
                Ok(reply) => judge(reply, path, &endpoint),
                Err(e) => match *e {
                    Error::Transport { message, .. } => {
                        Outcome::Retry(Error::Transport { endpoint: endpoint.clone(), message }, None)
                    }
                    e => Outcome::Fail(e),
                },
            };
            let (err, hint) = match outcome {
                Outcome::Done(body) => return Ok(body),
                Outcome::Fail(e) => return Err(Box::new(e)),
                Outcome::Retry(e, hint) => (e, hint),
            };
            // A request that the deadline cut short did not answer in time.
            if let (Error::Transport { .. }, Some(e)) = (&err, self.deadline_error(&endpoint, Duration::ZERO))
            {
                return Err(Box::new(e));
            }
            if attempt == tries {
                return Err(Box::new(err));
            }
            let delay = backoff_ms(&self.retry, attempt, hint, sign::random_u64().unwrap_or(0));
            // A wait that would end past the deadline is not worth starting.
            let late = self.deadline_error(&endpoint, Duration::from_millis(delay)).is_some();
            if waited + delay > self.retry.max_total_ms || late {
                return Err(Box::new(err));
            }
            let what = match &err {
                Error::RateLimited { .. } => format!("withings {endpoint}: rate limited"),
                other => other.to_string(),
            };
            let asked = hint.map(|s| format!(" (Retry-After: {s} s)")).unwrap_or_default();
            self.log(Level::Warning, format!("{what}; try {} of {tries} in {delay} ms{asked}", attempt + 1));
            (self.sleep)(Duration::from_millis(delay));
            waited += delay;
            self.slept_ms += delay;
        }
        Err(Error::boxed(Error::Transport { endpoint, message: "no attempt was made".into() }))
    }

    /// Lets one request go out under the call's deadline and budget, reports it, and returns the
    /// time left in the call (the request's own timeout is cut to it).
    fn admit(&mut self, endpoint: &str) -> Result<Option<Duration>> {
        if let Some(e) = self.deadline_error(endpoint, Duration::ZERO) {
            return Err(Box::new(e));
        }
        if self.sent >= self.budget {
            return Err(Error::boxed(Error::Budget { endpoint: endpoint.to_string(), limit: self.budget }));
        }
        self.wait_for_pace();
        self.sent += 1;
        let (n, total) = (self.sent, self.expected.map(|t| t.max(self.sent)));
        self.emit(&Event::Request { endpoint: endpoint.to_string(), n, total });
        self.log(Level::Debug, format!("request {n} of this call: {endpoint}"));
        Ok(self.deadline.map(|(at, _)| at.saturating_duration_since(Instant::now())))
    }

    /// Holds the next request back until the pace allows it.
    fn wait_for_pace(&mut self) {
        let Some(wait) = self.pace.as_ref().map(|p| p.wait(Instant::now())) else { return };
        if !wait.is_zero() {
            let limit = self.pace.as_ref().map(Pace::describe).unwrap_or_default();
            self.log(
                Level::Info,
                format!("pacing: {} s before the next request ({limit})", wait.as_secs().max(1)),
            );
            (self.sleep)(wait);
        }
        if let Some(p) = self.pace.as_mut() {
            p.sent(Instant::now());
        }
    }

    /// The deadline error when less than a useful slice of time (plus `wait`) is left.
    fn deadline_error(&self, endpoint: &str, wait: Duration) -> Option<Error> {
        // Below this, a request cannot get an answer anyway.
        const MIN_TRY: Duration = Duration::from_millis(100);
        let (at, secs) = self.deadline?;
        (Instant::now() + wait + MIN_TRY > at)
            .then(|| Error::Deadline { endpoint: endpoint.to_string(), secs })
    }

    fn emit(&self, event: &Event) {
        if let Some(sink) = &self.sink {
            sink.event(event);
        }
    }

    fn log(&self, level: Level, message: String) {
        self.emit(&Event::Log { level, message });
    }
}

/// What one HTTP answer means.
#[derive(Debug)]
enum Outcome {
    Done(Answer),
    /// Worth another try; the server's `Retry-After` in seconds when given.
    Retry(Error, Option<u64>),
    Fail(Error),
}

/// Judges one answer: status 0 → body; 601/429 → rate limited; 5xx, 522 and "an error occurred"
/// → retry; other statuses → `Error::Api`; anything that is not a Withings JSON envelope →
/// `Error::Transport` without the body (it may be a proxy page or contain anything).
fn judge(reply: Reply, path: &str, endpoint: &str) -> Outcome {
    let http = reply.http_status;
    let transport = |message: String| Error::Transport { endpoint: endpoint.to_string(), message };
    let Some(head) = wire::head(&reply.body) else {
        let err = transport(format!("unexpected non-JSON answer (HTTP {http})"));
        return match http {
            429 => {
                Outcome::Retry(Error::RateLimited { endpoint: endpoint.to_string() }, reply.retry_after_secs)
            }
            500..=599 => Outcome::Retry(err, reply.retry_after_secs),
            _ => Outcome::Fail(err),
        };
    };
    if http == 429 {
        return Outcome::Retry(Error::RateLimited { endpoint: endpoint.to_string() }, reply.retry_after_secs);
    }
    let status = head.status;
    // Withings' own words, scrubbed of secrets on the way in (it has echoed codes and tokens).
    let message = Foreign::new(head.error.as_deref().unwrap_or_default());
    match status::classify(status) {
        Class::Ok => Outcome::Done(Answer { http_status: http, text: reply.body }),
        Class::RateLimited => {
            Outcome::Retry(Error::RateLimited { endpoint: endpoint.to_string() }, reply.retry_after_secs)
        }
        Class::Api(kind) => {
            if let (ApiKind::Unauthorized, Some(scope)) = (kind, status::scope_for(path)) {
                return Outcome::Fail(Error::MissingScope { endpoint: endpoint.to_string(), status, scope });
            }
            let err = Error::Api { endpoint: endpoint.to_string(), status, kind, message };
            match status::retryable(kind) || http >= 500 {
                true => Outcome::Retry(err, reply.retry_after_secs),
                false => Outcome::Fail(err),
            }
        }
    }
}

/// Full-jitter backoff for the wait after `attempt` (1-based), honouring `Retry-After`.
fn backoff_ms(retry: &Retry, attempt: u32, retry_after_secs: Option<u64>, random: u64) -> u64 {
    let ceiling = retry.base_ms.saturating_mul(1u64 << attempt.saturating_sub(1).min(20)).min(retry.cap_ms);
    let jitter = match ceiling {
        0 => 0,
        c => random % (c + 1),
    };
    match retry_after_secs {
        Some(s) => jitter.max(s.saturating_mul(1000)),
        None => jitter,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;
    use std::collections::VecDeque;
    use std::rc::Rc;

    type Log = Rc<RefCell<Vec<(String, Vec<(String, String)>, Option<String>)>>>;

    /// Answers from a queue and records every request.
    struct Script {
        replies: RefCell<VecDeque<Result<Reply>>>,
        log: Log,
    }

    impl Upstream for Script {
        fn post(&self, path: &str, form: &[(&str, String)], bearer: Option<&str>) -> Result<Reply> {
            let form = form.iter().map(|(k, v)| (k.to_string(), v.clone())).collect();
            self.log.borrow_mut().push((path.to_string(), form, bearer.map(str::to_string)));
            self.replies
                .borrow_mut()
                .pop_front()
                .unwrap_or_else(|| Ok(reply(200, r#"{"status":0,"body":{}}"#)))
        }
    }

    fn reply(http_status: u16, body: &str) -> Reply {
        Reply { http_status, retry_after_secs: None, body: body.to_string() }
    }

    fn no_sleep(_: Duration) {}

    fn client(tag: &str, replies: Vec<Result<Reply>>, expires_at: i64) -> (Client, Log, PathBuf) {
        let h = crate::store::fsutil::test_dir(tag);
        let env = Env::from_pairs(&[
            ("HOME", h.to_str().unwrap()),
            ("WITHINGS_CLIENT_ID", "cid"),
            ("WITHINGS_CLIENT_SECRET", "csecret"),
        ]);
        let cfg = Config::from_env_only(&env);
        let t = Tokens {
            access_token: "a1".into(),
            refresh_token: "r1".into(),
            expires_at,
            scope: "user.metrics".into(),
            userid: Some("42".into()),
            token_type: "Bearer".into(),
            created_at: 0,
        };
        tokens::save(&cfg.token_path(&env).unwrap(), &t).unwrap();
        let log: Log = Rc::default();
        let up = Script { replies: RefCell::new(replies.into()), log: log.clone() };
        let c = Client::new(&env, &cfg, Box::new(up), 1000).unwrap().with_sleep(no_sleep);
        (c, log, h)
    }

    #[test]
    fn judge_table() {
        let e = "/measure getmeas";
        let cases: &[(u16, &str, &str)] = &[
            (200, r#"{"status":0,"body":{"x":1}}"#, "done"),
            (200, r#"{"status":0}"#, "done"),
            (200, r#"{"status":601,"body":{}}"#, "retry:rate limited"),
            (429, "<html>slow down</html>", "retry:rate limited"),
            (502, "<html>bad gateway</html>", "retry:non-JSON answer (HTTP 502)"),
            (200, "<html>login</html>", "fail:non-JSON answer (HTTP 200)"),
            // A success is known from its first bytes; the truncated body fails when decoded.
            (200, r#"{"status":0,"body":{"x":"#, "done"),
            (200, r#"{"no":"status"}"#, "fail:non-JSON answer (HTTP 200)"),
            (404, "not found", "fail:non-JSON answer (HTTP 404)"),
            (200, r#"{"status":522,"body":{}}"#, "retry:status 522"),
            (200, r#"{"status":2559,"body":{}}"#, "retry:status 2559"),
            (
                200,
                r#"{"status":401,"body":{},"error":"invalid_token"}"#,
                "fail:status 401 (authentication failed): invalid_token",
            ),
            (200, r#"{"status":293,"body":{}}"#, "fail:status 293 (invalid parameters)"),
            (
                200,
                r#"{"status":214,"body":{}}"#,
                "fail:status 214 (not allowed): this needs the `user.metrics` scope",
            ),
        ];
        for (http, body, want) in cases {
            let got = match judge(reply(*http, body), "/measure", e) {
                Outcome::Done(_) => "done".to_string(),
                Outcome::Retry(err, _) => format!("retry:{err}"),
                Outcome::Fail(err) => format!("fail:{err}"),
            };
            let (kind, text) = want.split_once(':').unwrap_or((want, ""));
            assert!(got.starts_with(kind) && got.contains(text), "{http} {body}: {got}");
            assert!(!got.contains("html"), "body leaked: {got}");
        }
        // Off the data endpoints, "not allowed" names no scope.
        let got =
            match judge(reply(200, r#"{"status":214,"body":{}}"#), "/v2/oauth2", "/v2/oauth2 requesttoken") {
                Outcome::Fail(e) => e.to_string(),
                _ => String::new(),
            };
        assert!(got.contains("status 214 (not allowed (missing scope") && !got.contains("`user."), "{got}");
    }

    #[test]
    fn backoff_is_full_jitter_within_ceilings_and_honours_retry_after() {
        let r = Retry::DEFAULT;
        let cases: &[(u32, Option<u64>, u64, u64)] = &[
            (1, None, 0, 0),
            (1, None, 1000, 1000),
            (1, None, 1001, 0),
            (2, None, 2000, 2000),
            (2, None, 2001, 0),
            (10, None, u64::MAX, u64::MAX % 10_001),
            (1, Some(3), 5, 3000),
        ];
        for &(attempt, ra, random, want) in cases {
            assert_eq!(backoff_ms(&r, attempt, ra, random), want, "{attempt} {ra:?} {random}");
        }
    }

    #[test]
    fn rate_limit_burst_is_retried_then_succeeds() {
        let busy = || Ok(reply(200, r#"{"status":601,"body":{}}"#));
        let (mut c, log, h) =
            client("burst", vec![busy(), busy(), Ok(reply(200, r#"{"status":0,"body":{"v":1}}"#))], 99_999);
        let body = c.call("/measure", "getmeas", &[("category", "1".into())]).unwrap();
        assert_eq!(body["v"], 1);
        assert_eq!(c.requests_sent(), 3);
        assert!(c.slept_ms() <= 3000);
        let l = log.borrow();
        assert_eq!(l[0].1[0], ("action".to_string(), "getmeas".to_string()));
        assert_eq!(l[0].2.as_deref(), Some("a1"));
        std::fs::remove_dir_all(h).unwrap();
    }

    #[test]
    fn retries_stop_at_the_bound_and_no_retry_means_one_try() {
        let busy = || Ok(reply(503, "<html>busy</html>"));
        let (mut c, _, h) = client("bound", vec![busy(), busy(), busy(), busy()], 99_999);
        let err = c.call("/measure", "getmeas", &[]).unwrap_err().to_string();
        assert!(err.contains("/measure getmeas") && err.contains("HTTP 503"), "{err}");
        assert_eq!(c.requests_sent(), 3);
        let (c2, _, h2) = client("noretry", vec![busy()], 99_999);
        let mut c2 = c2.with_retry(Retry::NONE);
        assert!(c2.call("/measure", "getmeas", &[]).is_err());
        assert_eq!(c2.requests_sent(), 1);
        // A Retry-After beyond the total budget is not waited for.
        let (mut c3, _, h3) = client(
            "budget",
            vec![Ok(Reply { http_status: 429, retry_after_secs: Some(60), body: String::new() })],
            99_999,
        );
        assert!(matches!(
            c3.call("/measure", "getmeas", &[]).map_err(|e| *e),
            Err(Error::RateLimited { .. })
        ));
        assert_eq!((c3.requests_sent(), c3.slept_ms()), (1, 0));
        for d in [h, h2, h3] {
            std::fs::remove_dir_all(d).unwrap();
        }
    }

    #[test]
    fn auth_status_refreshes_once_then_retries_and_a_second_refusal_needs_auth() {
        let refused = || Ok(reply(200, r#"{"status":401,"body":{}}"#));
        let grant = || {
            Ok(reply(
                200,
                r#"{"status":0,"body":{"access_token":"a2","refresh_token":"r2","expires_in":10800}}"#,
            ))
        };
        let (mut c, log, h) =
            client("reauth", vec![refused(), grant(), Ok(reply(200, r#"{"status":0,"body":{}}"#))], 99_999);
        c.call("/v2/sleep", "getsummary", &[]).unwrap();
        let l = log.borrow();
        assert_eq!(l.len(), 3);
        assert!(l[1].1.contains(&("refresh_token".to_string(), "r1".to_string())));
        assert_eq!(l[2].2.as_deref(), Some("a2"));
        let saved = tokens::load(c.token_path()).unwrap().unwrap();
        assert_eq!((saved.refresh_token.as_str(), saved.userid.as_deref()), ("r2", Some("42")));
        drop(l);
        let (mut c, _, h2) = client("reauth2", vec![refused(), grant(), refused()], 99_999);
        let err = c.call("/v2/sleep", "getsummary", &[]).unwrap_err();
        assert!(matches!(*err, Error::NeedsAuth(_)), "{err}");
        std::fs::remove_dir_all(h).unwrap();
        std::fs::remove_dir_all(h2).unwrap();
    }

    #[test]
    fn stale_token_is_refreshed_before_the_call_and_a_refused_refresh_needs_auth() {
        let (mut c, log, h) = client(
            "stale",
            vec![Ok(reply(
                200,
                r#"{"status":503,"body":{},"error":"Invalid Params: invalid refresh_token"}"#,
            ))],
            1100,
        );
        let err = c.call("/measure", "getmeas", &[]).unwrap_err();
        assert!(matches!(*err, Error::NeedsAuth(_)), "{err}");
        assert!(err.to_string().contains("refresh token"), "{err}");
        assert_eq!(log.borrow()[0].0, "/v2/oauth2");
        std::fs::remove_dir_all(h).unwrap();
    }

    fn page(rows: &[i64], more: Value, offset: i64) -> Result<Reply> {
        let body = serde_json::json!({"status":0,"body":{"more":more,"offset":offset,"updatetime":5,"timezone":"Europe/Paris","measuregrps":rows}});
        Ok(reply(200, &body.to_string()))
    }

    #[test]
    fn paging_follows_offsets_and_is_truthful_at_the_limit() {
        let (mut c, log, h) = client(
            "pages",
            vec![page(&[1, 2], Value::from(1), 2), page(&[3, 4], Value::from(false), 0)],
            99_999,
        );
        let p = c.page_through::<Value>("/measure", "getmeas", &[], 10, None).unwrap();
        assert_eq!(p.rows, vec![Value::from(1), Value::from(2), Value::from(3), Value::from(4)]);
        assert_eq!((p.more, p.next_offset), (false, None));
        assert_eq!(p.timezone.as_deref(), Some("Europe/Paris"));
        assert!(log.borrow()[1].1.contains(&("offset".to_string(), "2".to_string())));

        // The limit falls inside the second page: 3 rows, more, and an offset that re-fetches row 4.
        let (mut c, _, h2) = client(
            "limit",
            vec![page(&[1, 2], Value::from(true), 2), page(&[3, 4], Value::from(true), 4)],
            99_999,
        );
        let p = c.page_through::<Value>("/measure", "getmeas", &[], 3, None).unwrap();
        assert_eq!((p.rows.len(), p.more, p.next_offset), (3, true, Some(3)));
        // The limit ends exactly at a page boundary: Withings' own offset is passed on.
        let (mut c, _, h3) = client("exact", vec![page(&[1, 2], Value::from(1), 2)], 99_999);
        let p = c.page_through::<Value>("/measure", "getmeas", &[], 2, None).unwrap();
        assert_eq!((p.rows.len(), p.more, p.next_offset), (2, true, Some(2)));
        for d in [h, h2, h3] {
            std::fs::remove_dir_all(d).unwrap();
        }
    }

    #[test]
    fn paging_stops_at_the_request_budget_with_the_offset_of_the_first_page_not_read() {
        let pages = (0..70).map(|i| page(&[i], Value::from(1), 6 + i)).collect();
        let (mut c, log, h) = client("budget-pages", pages, 99_999);
        let p = c.page_through::<Value>("/measure", "getmeas", &[], 1000, Some(5)).unwrap();
        assert_eq!((p.rows.len(), p.more, p.next_offset, p.budget_spent), (60, true, Some(65), true));
        assert_eq!((c.requests_sent(), log.borrow().len(), c.requests_left()), (60, 60, 0));
        assert_eq!(p.timezone.as_deref(), Some("Europe/Paris"), "the last page read");
        // Nothing more goes out: the next request is refused before it is sent.
        let err = c.call("/v2/sleep", "get", &[]).unwrap_err();
        assert!(matches!(*err, Error::Budget { limit: 60, .. }) && err.ends_call(), "{err}");
        assert!(
            err.to_string().contains("/v2/sleep get") && err.to_string().contains("narrow the range"),
            "{err}"
        );
        assert_eq!(log.borrow().len(), 60);
        std::fs::remove_dir_all(h).unwrap();
    }

    thread_local! {
        static SLEPT: std::cell::Cell<Duration> = const { std::cell::Cell::new(Duration::ZERO) };
    }

    fn record_sleep(d: Duration) {
        SLEPT.with(|s| s.set(s.get() + d));
    }

    #[test]
    fn a_paced_client_has_no_call_budget_and_waits_for_its_pace() {
        let pages =
            (0..70).map(|i| page(&[i], Value::from(1), 1 + i)).chain([page(&[70], Value::from(0), 0)]);
        let (c, log, h) = client("paced", pages.collect(), 99_999);
        let mut c = c.with_sleep(record_sleep).for_job(Some(Pace::new(70, Duration::from_secs(3600))));
        let p = c.page_through::<Value>("/measure", "getmeas", &[], usize::MAX, None).unwrap();
        assert_eq!((p.rows.len(), p.more, p.budget_spent), (71, false, false));
        assert_eq!(log.borrow().len(), 71);
        // The 71st request waited for the first to leave the hour.
        let slept = SLEPT.with(std::cell::Cell::get);
        assert!(slept > Duration::from_secs(3590) && slept <= Duration::from_secs(3600), "{slept:?}");
        assert_eq!(c.requests_left(), usize::MAX - 71);
        std::fs::remove_dir_all(h).unwrap();
    }

    #[test]
    fn a_call_past_its_deadline_sends_nothing_and_names_the_endpoint() {
        let (c, log, h) = client("deadline", vec![], 99_999);
        let cfg = Config::from_env_only(&Env::from_pairs(&[("WITHINGS_CALL_DEADLINE", "1")]));
        let started = Instant::now().checked_sub(Duration::from_secs(2)).unwrap();
        let mut c = c.within(&Call { started: Some(started), sink: None }, &cfg).unwrap();
        let err = c.call("/measure", "getmeas", &[]).unwrap_err();
        assert!(
            matches!(&*err, Error::Deadline { secs: 1, endpoint } if endpoint == "/measure getmeas"),
            "{err}"
        );
        assert!(log.borrow().is_empty());
        let bad = Config::from_env_only(&Env::from_pairs(&[("WITHINGS_CALL_DEADLINE", "0")]));
        let (c, _, h2) = client("deadline-bad", vec![], 99_999);
        assert!(matches!(c.within(&Call::default(), &bad).map_err(|e| *e), Err(Error::Config(_))));
        for d in [h, h2] {
            std::fs::remove_dir_all(d).unwrap();
        }
    }

    #[test]
    fn retries_and_refreshes_are_reported_to_the_sink() {
        struct Record(RefCell<Vec<Event>>);
        impl Sink for Record {
            fn event(&self, e: &Event) {
                self.0.borrow_mut().push(e.clone());
            }
        }
        let sink = Rc::new(Record(RefCell::default()));
        let replies = vec![
            Ok(Reply { http_status: 429, retry_after_secs: Some(0), body: String::new() }),
            Ok(reply(200, r#"{"status":401,"body":{}}"#)),
            Ok(reply(
                200,
                r#"{"status":0,"body":{"access_token":"a2","refresh_token":"r2","expires_in":10800}}"#,
            )),
        ];
        let (c, _, h) = client("events", replies, 99_999);
        let call = Call { started: None, sink: Some(sink.clone()) };
        let mut c = c.within(&call, &Config::from_env_only(&Env::default())).unwrap();
        c.call("/measure", "getmeas", &[]).unwrap();
        let events = sink.0.borrow();
        let requests = events.iter().filter(|e| matches!(e, Event::Request { .. })).count();
        assert_eq!(requests, 4, "429, 401, refresh, retry: {events:?}");
        let logs: Vec<(Level, &str)> = events
            .iter()
            .filter_map(|e| match e {
                Event::Log { level, message } if *level > Level::Debug => Some((*level, message.as_str())),
                _ => None,
            })
            .collect();
        assert_eq!(logs.len(), 3, "{logs:?}");
        assert!(
            logs[0].0 == Level::Warning && logs[0].1.contains("/measure getmeas: rate limited; try 2 of 3")
        );
        assert_eq!(logs[1], (Level::Info, "refreshing the Withings access token"));
        assert_eq!(logs[2], (Level::Info, "the access token was refreshed"));
        let all = format!("{events:?}");
        assert!(
            !["a1", "r1", "a2", "r2", "csecret"].iter().any(|s| all.contains(&format!("\"{s}\""))),
            "{all}"
        );
        std::fs::remove_dir_all(h).unwrap();
    }

    #[test]
    fn paging_refuses_a_stuck_offset_and_a_failing_page() {
        let (mut c, _, h) =
            client("stuck", vec![page(&[1], Value::from(1), 5), page(&[2], Value::from(1), 5)], 99_999);
        let err = c.page_through::<Value>("/measure", "getmeas", &[], 10, None).unwrap_err();
        assert!(err.to_string().contains("did not advance"), "{err}");
        let (mut c, _, h2) = client(
            "midfail",
            vec![page(&[1], Value::from(1), 1), Ok(reply(200, r#"{"status":293,"body":{}}"#))],
            99_999,
        );
        let err = c.page_through::<Value>("/measure", "getmeas", &[], 10, None).unwrap_err();
        assert!(matches!(*err, Error::Api { status: 293, .. }), "{err}");
        std::fs::remove_dir_all(h).unwrap();
        std::fs::remove_dir_all(h2).unwrap();
    }

    #[test]
    fn signed_call_gets_a_nonce_then_signs_with_it() {
        let (mut c, log, h) = client(
            "signed",
            vec![
                Ok(reply(200, r#"{"status":0,"body":{"nonce":"n1"}}"#)),
                Ok(reply(200, r#"{"status":0,"body":{}}"#)),
            ],
            99_999,
        );
        c.signed_call("/v2/oauth2", "revoke", &[("userid", "42".into())]).unwrap();
        let l = log.borrow();
        let get =
            |i: usize, k: &str| l[i].1.iter().find(|(key, _)| key == k).map(|(_, v)| v.clone()).unwrap();
        assert_eq!(get(0, "signature"), sign::signature("csecret", "getnonce", "cid", "1000"));
        assert_eq!(get(1, "signature"), sign::signature("csecret", "revoke", "cid", "n1"));
        assert_eq!(get(1, "userid"), "42");
        assert!(l.iter().all(|r| r.2.is_none()), "signed calls carry no bearer");
        std::fs::remove_dir_all(h).unwrap();
    }

    #[test]
    fn expired_code_gets_a_clear_message() {
        let (mut c, _, h) = client(
            "code",
            vec![Ok(reply(200, r#"{"status":503,"body":{},"error":"Invalid Params: invalid code"}"#))],
            99_999,
        );
        let err = c.exchange_code("c0de").unwrap_err().to_string();
        assert!(err.contains("expired or already used") && err.contains("withings-mcp auth"), "{err}");
        std::fs::remove_dir_all(h).unwrap();
    }
}
