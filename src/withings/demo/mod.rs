//! The demo account: a deterministic synthetic Withings user that plays the upstream API.
//!
//! `DemoUpstream` answers the same form-encoded requests as `wbsapi.withings.net`, with the same
//! envelopes, parameters, statuses and paging, so `--demo` runs the real client, decoders and
//! summaries. The account is generated once, in memory, from `now` and the user's zone ("today"
//! is the local date of `now`); see `account.rs` for the person and `wire.rs` for the shapes.
//!
//! Readings of the API where the reference leaves a choice (documented here, tested below):
//! - `startdate`/`enddate` (epoch) and `startdateymd`/`enddateymd` are both **inclusive**;
//!   `lastupdate` keeps records modified strictly **after** it. When both a range and `lastupdate`
//!   are sent, both filters apply.
//! - getmeas and heart list answer newest first; the v2 lists (activity, workouts, sleep summary)
//!   oldest first. Page sizes are small (getmeas 100 groups, the others 50 rows) so paging is
//!   exercised: `offset` is the index of the next row, and `more` is 0/1 in getmeas, a bool in v2.
//! - Data calls need a Bearer token (any non-empty value); without one the answer is status 401.
//! - Missing or malformed parameters give status 293 "Invalid Params"; an unknown path or action
//!   gives 2554 "Not implemented"; `sleep get` over more than 7 days gives 293.
//! - getmeas `meastype`/`meastypes` keep only groups holding one of the types, and only those
//!   measures in them; `category=2` (objectives) is empty, since goals come from `getgoals`.
//! - Unknown names in `data_fields` are ignored.

mod account;
mod wire;

use serde_json::{Value, json};

use crate::Result;
use crate::domain::time::{CivilDate, Zone};
use crate::withings::demo::account::Account;
use crate::withings::upstream::{Reply, Upstream};

/// The access token the demo's token endpoints hand out (any non-empty bearer is accepted).
pub const DEMO_ACCESS_TOKEN: &str = "demo-access-token";
/// The refresh token the demo's token endpoints hand out.
pub const DEMO_REFRESH_TOKEN: &str = "demo-refresh-token";
/// The demo user's id.
pub const DEMO_USERID: i64 = 4_242_001;

/// Rows per page: small on purpose, so demo answers exercise the client's paging.
const MEAS_PAGE: usize = 100;
const V2_PAGE: usize = 50;
/// The longest window `sleep get` accepts.
const SLEEP_GET_MAX_SECS: i64 = 7 * 86_400;

/// A synthetic Withings account answering API requests from memory.
#[derive(Debug)]
pub struct DemoUpstream {
    account: Account,
}

impl DemoUpstream {
    /// Generates the account as seen at `now` (Unix seconds) by a person living in `zone`.
    pub fn new(now: i64, zone: Zone) -> DemoUpstream {
        DemoUpstream { account: account::generate(now, &zone) }
    }

    /// The demo's "today": the local date of `now` in the zone it was built with.
    pub fn today(&self) -> CivilDate {
        self.account.today
    }
}

impl Upstream for DemoUpstream {
    fn post(&self, path: &str, form: &[(&str, String)], bearer: Option<&str>) -> Result<Reply> {
        Ok(Reply { http_status: 200, retry_after_secs: None, body: answer(&self.account, path, form, bearer) })
    }
}

/// A non-zero Withings status with its `error` text.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Status(i64, &'static str);

const INVALID_PARAMS: Status = Status(293, "Invalid Params");
const NOT_IMPLEMENTED: Status = Status(2554, "Not implemented");
const INVALID_TOKEN: Status =
    Status(401, "XRequestID: Not provided invalid_token: The access token provided is invalid");

type Answer = std::result::Result<Value, Status>;

/// The whole response body for one request.
fn answer(acc: &Account, path: &str, form: &[(&str, String)], bearer: Option<&str>) -> String {
    let p = Params(form);
    let path = path.trim_end_matches('/');
    let action = p.get("action").unwrap_or("");
    let authed = bearer.is_some_and(|b| !b.trim().is_empty());
    let result = match (path, action) {
        ("/v2/oauth2", "requesttoken") => request_token(&p),
        ("/v2/oauth2", "getdemoaccess") => Ok(json!({
            "access_token": DEMO_ACCESS_TOKEN,
            "refresh_token": DEMO_REFRESH_TOKEN,
            "expires_in": 10_800,
        })),
        ("/v2/oauth2", "revoke") => Ok(json!({})),
        ("/v2/signature", "getnonce") => Ok(json!({"nonce": "demo-nonce"})),
        ("/v2/oauth2" | "/v2/signature", _) => Err(NOT_IMPLEMENTED),
        ("/measure" | "/v2/measure" | "/v2/sleep" | "/v2/heart" | "/v2/user" | "/notify", _) if !authed => {
            Err(INVALID_TOKEN)
        }
        ("/measure", "getmeas") => getmeas(acc, &p),
        ("/v2/measure", "getactivity") => getactivity(acc, &p),
        ("/v2/measure", "getworkouts") => getworkouts(acc, &p),
        ("/v2/measure", "getintradayactivity") => intraday(acc, &p),
        ("/v2/sleep", "getsummary") => sleep_summary(acc, &p),
        ("/v2/sleep", "get") => sleep_get(acc, &p),
        ("/v2/heart", "list") => heart_list(acc, &p),
        ("/v2/heart", "get") => heart_get(acc, &p),
        ("/v2/user", "getdevice") => Ok(wire::devices(acc)),
        ("/v2/user", "getgoals") => {
            Ok(json!({"goals": {"steps": 9000, "sleep": 27_000, "weight": {"value": 75_000, "unit": -3}}}))
        }
        ("/notify", "list") => Ok(json!({"profiles": []})),
        ("/notify", "subscribe" | "revoke" | "update") => Ok(json!({})),
        _ => Err(NOT_IMPLEMENTED),
    };
    let envelope = match result {
        Ok(body) => json!({"status": 0, "body": body}),
        Err(Status(status, error)) => json!({"status": status, "body": {}, "error": error}),
    };
    envelope.to_string()
}

fn request_token(p: &Params) -> Answer {
    let has = |k: &str| p.get(k).is_some_and(|v| !v.is_empty());
    let ok = match p.get("grant_type") {
        Some("authorization_code") => has("code"),
        Some("refresh_token") => has("refresh_token"),
        _ => false,
    };
    match ok && has("client_id") {
        true => Ok(json!({
            "userid": DEMO_USERID,
            "access_token": DEMO_ACCESS_TOKEN,
            "refresh_token": DEMO_REFRESH_TOKEN,
            "expires_in": 10_800,
            "scope": "user.info,user.metrics,user.activity",
            "csrf_token": "demo-csrf-token",
            "token_type": "Bearer",
        })),
        false => Err(Status(503, "Invalid Params: invalid code")),
    }
}

// ---------------------------------------------------------------------------------------------
// Data endpoints
// ---------------------------------------------------------------------------------------------

fn getmeas(acc: &Account, p: &Params) -> Answer {
    let start = p.int("startdate")?.unwrap_or(i64::MIN);
    let end = p.int("enddate")?.unwrap_or(i64::MAX);
    let since = p.int("lastupdate")?;
    let offset = p.offset()?;
    let category = p.int("category")?.unwrap_or(1);
    let mut types = p.ints("meastypes")?;
    if let Some(t) = p.int("meastype")? {
        types.get_or_insert_with(Vec::new).push(t);
    }
    if !matches!(category, 1 | 2) {
        return Err(INVALID_PARAMS);
    }
    let types = types.as_deref();
    let rows: Vec<_> = acc
        .groups
        .iter()
        .rev()
        .filter(|g| category == 1 && (start..=end).contains(&g.date) && since.is_none_or(|t| g.modified > t))
        .filter(|g| types.is_none_or(|t| g.measures.iter().any(|x| t.contains(&x.kind))))
        .collect();
    let (page, more, next) = page(&rows, offset, MEAS_PAGE);
    let groups: Vec<Value> = page.iter().map(|g| wire::group(g, types)).collect();
    Ok(json!({
        "updatetime": acc.now,
        "timezone": acc.home_tz,
        "more": i64::from(more),
        "offset": next,
        "measuregrps": groups,
    }))
}

/// A v2 day-list window: inclusive local dates and/or `lastupdate`; one of them is required.
struct DayWindow {
    first: CivilDate,
    last: CivilDate,
    since: Option<i64>,
}

impl DayWindow {
    fn from(p: &Params) -> std::result::Result<DayWindow, Status> {
        let since = p.int("lastupdate")?;
        let (first, last) = match (p.ymd("startdateymd")?, p.ymd("enddateymd")?, since) {
            (Some(a), Some(b), _) => (a, b),
            (None, None, Some(_)) => (CivilDate::from_days(i64::from(i32::MIN)), CivilDate::from_days(i64::from(i32::MAX))),
            _ => return Err(INVALID_PARAMS),
        };
        Ok(DayWindow { first, last, since })
    }
    fn admits(&self, date: CivilDate, modified: i64) -> bool {
        (self.first..=self.last).contains(&date) && self.since.is_none_or(|t| modified > t)
    }
}

fn getactivity(acc: &Account, p: &Params) -> Answer {
    let w = DayWindow::from(p)?;
    let fields = p.list("data_fields");
    let rows: Vec<_> = acc.activities.iter().filter(|a| w.admits(a.date, a.modified)).collect();
    let (page, more, next) = page(&rows, p.offset()?, V2_PAGE);
    let list: Vec<Value> = page.iter().map(|a| wire::activity(a, fields.as_deref())).collect();
    Ok(json!({"more": more, "offset": next, "activities": list}))
}

fn getworkouts(acc: &Account, p: &Params) -> Answer {
    let w = DayWindow::from(p)?;
    let fields = p.list("data_fields");
    let rows: Vec<_> = acc.workouts.iter().filter(|x| w.admits(x.date, x.modified)).collect();
    let (page, more, next) = page(&rows, p.offset()?, V2_PAGE);
    let list: Vec<Value> = page.iter().map(|x| wire::workout(x, fields.as_deref())).collect();
    Ok(json!({"more": more, "offset": next, "series": list}))
}

fn sleep_summary(acc: &Account, p: &Params) -> Answer {
    let w = DayWindow::from(p)?;
    let fields = p.list("data_fields");
    let rows: Vec<_> = acc.sleeps.iter().filter(|s| w.admits(s.date, s.created)).collect();
    let (page, more, next) = page(&rows, p.offset()?, V2_PAGE);
    let list: Vec<Value> = page.iter().map(|s| wire::sleep_summary(s, fields.as_deref())).collect();
    Ok(json!({"more": more, "offset": next, "series": list}))
}

/// State segments overlapping `[startdate, enddate]`, whole; no paging, at most 7 days.
fn sleep_get(acc: &Account, p: &Params) -> Answer {
    let (Some(start), Some(end)) = (p.int("startdate")?, p.int("enddate")?) else { return Err(INVALID_PARAMS) };
    if end < start || end - start > SLEEP_GET_MAX_SECS {
        return Err(INVALID_PARAMS);
    }
    let fields = p.list("data_fields").unwrap_or_default();
    let mut series = Vec::new();
    for s in acc.sleeps.iter().filter(|s| s.end() > start && s.start() <= end) {
        for seg in s.segments.iter().filter(|x| x.end > start && x.start <= end) {
            series.push(wire::sleep_segment(s, seg, &fields));
        }
    }
    Ok(json!({"model": 32, "series": series}))
}

fn heart_list(acc: &Account, p: &Params) -> Answer {
    let start = p.int("startdate")?.unwrap_or(i64::MIN);
    let end = p.int("enddate")?.unwrap_or(i64::MAX);
    let rows: Vec<_> = acc.hearts.iter().rev().filter(|h| (start..=end).contains(&h.timestamp)).collect();
    let (page, more, next) = page(&rows, p.offset()?, V2_PAGE);
    let list: Vec<Value> = page.iter().map(|h| wire::heart(h)).collect();
    Ok(json!({"more": more, "offset": next, "series": list}))
}

fn heart_get(acc: &Account, p: &Params) -> Answer {
    let Some(id) = p.int("signalid")? else { return Err(INVALID_PARAMS) };
    let found = acc.hearts.iter().find_map(|h| match h.ecg {
        Some((signalid, afib)) if signalid == id => Some(wire::ecg_signal(h, signalid, afib)),
        _ => None,
    });
    found.ok_or(INVALID_PARAMS)
}

/// Quarter-hourly watch samples for at most the 24 h after `startdate` (default: the last 24 h).
fn intraday(acc: &Account, p: &Params) -> Answer {
    let start = p.int("startdate")?.unwrap_or(acc.now - 86_400);
    let end = p.int("enddate")?.unwrap_or(acc.now).min(start.saturating_add(86_400)).min(acc.now);
    let oldest = acc.activities.first().map_or(acc.now, |a| a.modified - 86_400 - 1800);
    let fields = p.list("data_fields");
    let wants = |f: &str| fields.as_ref().is_none_or(|l| l.contains(&f));
    let mut series = serde_json::Map::new();
    let mut t = start.max(oldest).div_euclid(900) * 900;
    if t < start {
        t += 900;
    }
    while t < end {
        let mut r = account::Rng::from_seed(t as u64 ^ 0x1A7E);
        let asleep = acc.sleeps.iter().any(|s| (s.start()..s.end()).contains(&t));
        let steps = if asleep { 0 } else { r.range(0, 220) };
        let mut sample = json!({"deviceid": account::WATCH.id, "model": account::WATCH.model, "model_id": account::WATCH.model_id});
        if let Value::Object(m) = &mut sample {
            if wants("steps") {
                m.insert("steps".into(), steps.into());
            }
            if wants("calories") {
                m.insert("calories".into(), ((steps as f64 * 0.041 * 10.0).round() / 10.0).into());
            }
            if wants("duration") {
                m.insert("duration".into(), 900.into());
            }
            if wants("heart_rate") {
                m.insert("heart_rate".into(), (if asleep { 55 } else { 72 } + r.range(-6, 12)).into());
            }
        }
        series.insert(t.to_string(), sample);
        t += 900;
    }
    match series.is_empty() {
        true => Ok(json!({"series": []})),
        false => Ok(json!({"series": series})),
    }
}

/// One page of `rows` from `offset`: the rows, whether more follow, and the next offset (0 when
/// this is the last page, as the real API sends).
fn page<T>(rows: &[T], offset: usize, size: usize) -> (&[T], bool, usize) {
    let from = offset.min(rows.len());
    let to = from.saturating_add(size).min(rows.len());
    let more = to < rows.len();
    (rows.get(from..to).unwrap_or(&[]), more, if more { to } else { 0 })
}

// ---------------------------------------------------------------------------------------------
// Form parameters
// ---------------------------------------------------------------------------------------------

struct Params<'a>(&'a [(&'a str, String)]);

impl Params<'_> {
    /// The first value of `key`; an empty value counts as absent.
    fn get(&self, key: &str) -> Option<&str> {
        self.0.iter().find(|(k, _)| *k == key).map(|(_, v)| v.trim()).filter(|v| !v.is_empty())
    }
    fn int(&self, key: &str) -> std::result::Result<Option<i64>, Status> {
        self.get(key).map(|v| v.parse::<i64>().map_err(|_| INVALID_PARAMS)).transpose()
    }
    fn ints(&self, key: &str) -> std::result::Result<Option<Vec<i64>>, Status> {
        self.get(key)
            .map(|v| v.split(',').map(|x| x.trim().parse::<i64>().map_err(|_| INVALID_PARAMS)).collect())
            .transpose()
    }
    fn ymd(&self, key: &str) -> std::result::Result<Option<CivilDate>, Status> {
        self.get(key).map(|v| CivilDate::parse(v).map_err(|_| INVALID_PARAMS)).transpose()
    }
    fn list(&self, key: &str) -> Option<Vec<&str>> {
        self.get(key).map(|v| v.split(',').map(str::trim).filter(|x| !x.is_empty()).collect())
    }
    fn offset(&self) -> std::result::Result<usize, Status> {
        match self.int("offset")? {
            None => Ok(0),
            Some(n) => usize::try_from(n).map_err(|_| INVALID_PARAMS),
        }
    }
}
