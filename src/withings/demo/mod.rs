//! The demo account: a deterministic synthetic Withings user that plays the upstream API.
//!
//! `DemoUpstream` answers the same form-encoded requests as `wbsapi.withings.net`, with the same
//! envelopes, parameters, statuses and paging, so `--demo` runs the real client, decoders and
//! summaries. The account is generated in memory from `now` and the user's zone ("today" is the
//! local date of `now`), as far back as the requests reach (a day's records depend on that day
//! alone); see `account.rs` for the person and `wire.rs` for the shapes.
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
mod intraday;
mod wire;

use crate::withings::demo::wire::{Obj, list};

use std::cell::RefCell;

use crate::domain::time::{CivilDate, DAY_SECS, Zone};
use crate::withings::demo::account::{Account, Person};
use crate::withings::upstream::{Reply, Upstream};
use crate::{Error, Result};

/// The access token the demo's token endpoints hand out (any non-empty bearer is accepted).
pub const DEMO_ACCESS_TOKEN: &str = "demo-access-token";
/// The refresh token the demo's token endpoints hand out.
pub const DEMO_REFRESH_TOKEN: &str = "demo-refresh-token";
/// The demo's people, by account name (`account::PERSONS` in the same order).
pub const PEOPLE: &[&str] = &["default", "sam"];

/// Which of the demo's people `account` is; an account the demo does not have is refused.
pub fn person(account: &crate::store::accounts::Account) -> Result<&'static Person> {
    match PEOPLE.iter().position(|p| *p == account.name()) {
        Some(1) => Ok(&account::SAM),
        Some(_) => Ok(&account::ALEX),
        None => Err(Error::boxed(Error::Unavailable(format!(
            "the demo has no account `{account}`; its accounts are {}",
            PEOPLE.join(", ")
        )))),
    }
}
/// The demo user's id.
pub const DEMO_USERID: i64 = 4_242_001;

/// Rows per page: small on purpose, so demo answers exercise the client's paging.
const MEAS_PAGE: usize = 100;
const V2_PAGE: usize = 50;
/// The longest window `sleep get` accepts.
const SLEEP_GET_MAX_SECS: i64 = 7 * 86_400;

/// Days generated beyond the first one a request names: a record's day in the home zone can
/// differ from its day on the trip, and a night starts the evening before its date.
const MARGIN_DAYS: i64 = 2;

/// A synthetic Withings account answering API requests from memory.
#[derive(Debug)]
pub struct DemoUpstream {
    zone: Zone,
    /// The days generated so far (its person and `now` are the demo's); regenerated further
    /// back when a request reaches further.
    account: RefCell<Account>,
}

impl DemoUpstream {
    /// The account as seen at `now` (Unix seconds) by a person living in `zone`.
    pub fn new(now: i64, zone: Zone) -> DemoUpstream {
        DemoUpstream::of(&account::ALEX, now, zone)
    }

    /// `person`'s account, as `new` makes the first person's.
    pub fn of(person: &'static Person, now: i64, zone: Zone) -> DemoUpstream {
        DemoUpstream { account: RefCell::new(account::generate(person, now, &zone, 0)), zone }
    }

    /// The demo's "today": the local date of `now` in the zone it was built with.
    pub fn today(&self) -> CivilDate {
        self.account.borrow().today
    }

    /// How many of the most recent days a request can reach: from the first date it names
    /// (with a margin), or all of them (`lastupdate`, no range, a lookup by id, the devices).
    fn reach(&self, path: &str, form: &[(&str, String)]) -> i64 {
        let p = Params(form);
        let now = self.account.borrow().now;
        let first = match (path.trim_end_matches('/'), p.get("action").unwrap_or("")) {
            _ if p.get("lastupdate").is_some() => None,
            ("/measure", "getmeas") | ("/v2/heart", "list") | ("/v2/sleep", "get") => {
                p.int("startdate").ok().flatten()
            }
            // The last 24 hours unless told otherwise.
            ("/v2/measure", "getintradayactivity") => {
                Some(p.int("startdate").ok().flatten().unwrap_or(now - DAY_SECS))
            }
            ("/v2/measure", "getactivity" | "getworkouts") | ("/v2/sleep", "getsummary") => {
                p.ymd("startdateymd").ok().flatten().map(|d| self.zone.local_midnight(d).0)
            }
            _ => None,
        };
        match first {
            // Whole days back from now, plus one for the day `t` falls in (its time of day can be
            // later than now's) and one to count today.
            Some(t) => (now.saturating_sub(t) / DAY_SECS + 2 + MARGIN_DAYS).min(account::DAYS),
            None => account::DAYS,
        }
    }

    /// Generates the account again, `days` deep, unless it already reaches that far.
    fn extend(&self, days: i64) {
        let (person, now, have) = {
            let acc = self.account.borrow();
            (acc.person, acc.now, acc.days)
        };
        if days > have {
            *self.account.borrow_mut() = account::generate(person, now, &self.zone, days);
        }
    }
}

impl Upstream for DemoUpstream {
    fn post(&self, path: &str, form: &[(&str, String)], bearer: Option<&str>) -> Result<Reply> {
        let days = self.reach(path, form);
        self.extend(days);
        let body = answer(&self.account.borrow(), path, form, bearer);
        Ok(Reply { http_status: 200, retry_after_secs: None, body })
    }
}

/// A non-zero Withings status with its `error` text.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Status(i64, &'static str);

const INVALID_PARAMS: Status = Status(293, "Invalid Params");
const NOT_IMPLEMENTED: Status = Status(2554, "Not implemented");
const INVALID_TOKEN: Status =
    Status(401, "XRequestID: Not provided invalid_token: The access token provided is invalid");

/// A body as JSON text, or a failing status.
type Answer = std::result::Result<String, Status>;

/// The whole response body for one request.
fn answer(acc: &Account, path: &str, form: &[(&str, String)], bearer: Option<&str>) -> String {
    let p = Params(form);
    let path = path.trim_end_matches('/');
    let action = p.get("action").unwrap_or("");
    let authed = bearer.is_some_and(|b| !b.trim().is_empty());
    let result = match (path, action) {
        ("/v2/oauth2", "requesttoken") => request_token(&p),
        ("/v2/oauth2", "getdemoaccess") => Ok(Obj::new()
            .str("access_token", DEMO_ACCESS_TOKEN)
            .str("refresh_token", DEMO_REFRESH_TOKEN)
            .int("expires_in", 10_800)
            .done()),
        ("/v2/oauth2", "revoke") => Ok("{}".into()),
        ("/v2/signature", "getnonce") => Ok(r#"{"nonce":"demo-nonce"}"#.into()),
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
        ("/v2/user", "getgoals") => Ok(acc.person.goals.into()),
        ("/notify", "list") => Ok(r#"{"profiles":[]}"#.into()),
        ("/notify", "subscribe" | "revoke" | "update") => Ok("{}".into()),
        _ => Err(NOT_IMPLEMENTED),
    };
    match result {
        Ok(body) => format!("{{\"status\":0,\"body\":{body}}}"),
        Err(Status(status, error)) => {
            Obj::new().int("status", status).raw("body", "{}").str("error", error).done()
        }
    }
}

fn request_token(p: &Params) -> Answer {
    let has = |k: &str| p.get(k).is_some_and(|v| !v.is_empty());
    let ok = match p.get("grant_type") {
        Some("authorization_code") => has("code"),
        Some("refresh_token") => has("refresh_token"),
        _ => false,
    };
    match ok && has("client_id") {
        true => Ok(Obj::new()
            .int("userid", DEMO_USERID)
            .str("access_token", DEMO_ACCESS_TOKEN)
            .str("refresh_token", DEMO_REFRESH_TOKEN)
            .int("expires_in", 10_800)
            .str("scope", "user.info,user.metrics,user.activity")
            .str("csrf_token", "demo-csrf-token")
            .str("token_type", "Bearer")
            .done()),
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
    let groups = list(page.iter().map(|g| wire::group(g, types)));
    let mut o = Obj::new();
    o.int("updatetime", acc.now).str("timezone", &acc.home_tz).int("more", i64::from(more));
    Ok(o.int("offset", next as i64).raw("measuregrps", &groups).done())
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
            (None, None, Some(_)) => {
                (CivilDate::from_days(i64::from(i32::MIN)), CivilDate::from_days(i64::from(i32::MAX)))
            }
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
    Ok(v2_page(more, next, "activities", page.iter().map(|a| wire::activity(a, fields.as_deref()))))
}

fn getworkouts(acc: &Account, p: &Params) -> Answer {
    let w = DayWindow::from(p)?;
    let fields = p.list("data_fields");
    let rows: Vec<_> = acc.workouts.iter().filter(|x| w.admits(x.date, x.modified)).collect();
    let (page, more, next) = page(&rows, p.offset()?, V2_PAGE);
    Ok(v2_page(more, next, "series", page.iter().map(|x| wire::workout(x, fields.as_deref()))))
}

fn sleep_summary(acc: &Account, p: &Params) -> Answer {
    let w = DayWindow::from(p)?;
    let fields = p.list("data_fields");
    let rows: Vec<_> = acc.sleeps.iter().filter(|s| w.admits(s.date, s.created)).collect();
    let (page, more, next) = page(&rows, p.offset()?, V2_PAGE);
    Ok(v2_page(more, next, "series", page.iter().map(|s| wire::sleep_summary(s, fields.as_deref()))))
}

/// State segments overlapping `[startdate, enddate]`, whole; no paging, at most 7 days.
fn sleep_get(acc: &Account, p: &Params) -> Answer {
    let (Some(start), Some(end)) = (p.int("startdate")?, p.int("enddate")?) else {
        return Err(INVALID_PARAMS);
    };
    if end < start || end.saturating_sub(start) > SLEEP_GET_MAX_SECS {
        return Err(INVALID_PARAMS);
    }
    let fields = p.list("data_fields").unwrap_or_default();
    let mut series = Vec::new();
    for s in acc.sleeps.iter().filter(|s| s.end() > start && s.start() <= end) {
        for seg in s.segments.iter().filter(|x| x.end > start && x.start <= end) {
            series.push(wire::sleep_segment(s, seg, &fields));
        }
    }
    Ok(Obj::new().int("model", 32).raw("series", &list(series)).done())
}

fn heart_list(acc: &Account, p: &Params) -> Answer {
    let start = p.int("startdate")?.unwrap_or(i64::MIN);
    let end = p.int("enddate")?.unwrap_or(i64::MAX);
    let rows: Vec<_> = acc.hearts.iter().rev().filter(|h| (start..=end).contains(&h.timestamp)).collect();
    let (page, more, next) = page(&rows, p.offset()?, V2_PAGE);
    Ok(v2_page(more, next, "series", page.iter().map(|h| wire::heart(h))))
}

fn heart_get(acc: &Account, p: &Params) -> Answer {
    let Some(id) = p.int("signalid")? else { return Err(INVALID_PARAMS) };
    let found = acc.hearts.iter().find_map(|h| match h.ecg {
        Some((signalid, afib)) if signalid == id => Some(wire::ecg_signal(h, signalid, afib)),
        _ => None,
    });
    found.ok_or(INVALID_PARAMS)
}

/// The watch's samples for at most the 24 h after `startdate` (default: the last 24 h).
fn intraday(acc: &Account, p: &Params) -> Answer {
    let start = p.int("startdate")?.unwrap_or(acc.now - 86_400);
    // `enddate` is inclusive, like every epoch bound here.
    let end = p.int("enddate")?.unwrap_or(acc.now).saturating_add(1).min(start.saturating_add(86_400));
    let fields = p.list("data_fields");
    Ok(Obj::new().raw("series", &intraday::series(acc, start, end, fields.as_deref())).done())
}

/// A v2 list body: `more` is a boolean there.
fn v2_page(more: bool, next: usize, key: &str, rows: impl Iterator<Item = String>) -> String {
    Obj::new().bool("more", more).int("offset", next as i64).raw(key, &list(rows)).done()
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

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};

    use serde_json::{Value, json};

    use super::*;
    use crate::domain::time::{DAY_SECS, Instant, days_from_civil};

    const PARIS: &str = "CET-1CEST,M3.5.0,M10.5.0/3";
    const NEW_YORK: &str = "EST5EDT,M3.2.0,M11.1.0";

    fn zone(posix: &str) -> Zone {
        Zone::from_posix(posix).unwrap()
    }

    /// 2026-03-15 12:00 in Paris (11:00 UTC).
    fn noon() -> i64 {
        days_from_civil(2026, 3, 15) * DAY_SECS + 11 * 3600
    }

    fn demo() -> DemoUpstream {
        DemoUpstream::new(noon(), zone(PARIS))
    }

    impl DemoUpstream {
        /// The whole account, every day generated.
        fn whole(&self) -> std::cell::Ref<'_, Account> {
            self.extend(account::DAYS);
            self.account.borrow()
        }
    }

    fn raw(d: &DemoUpstream, path: &str, form: &[(&str, &str)]) -> String {
        let form: Vec<(&str, String)> = form.iter().map(|(k, v)| (*k, v.to_string())).collect();
        let reply = d.post(path, &form, Some("token")).unwrap();
        assert_eq!((reply.http_status, reply.retry_after_secs), (200, None));
        reply.body
    }

    fn call(d: &DemoUpstream, path: &str, form: &[(&str, &str)]) -> Value {
        serde_json::from_str(&raw(d, path, form)).unwrap()
    }

    /// Every row of a list endpoint, following `more`/`offset`; also returns the page count.
    fn all(
        d: &DemoUpstream,
        path: &str,
        action: &str,
        key: &str,
        extra: &[(&str, &str)],
    ) -> (Vec<Value>, usize) {
        let (mut rows, mut offset, mut pages) = (Vec::new(), 0, 0);
        loop {
            let off = offset.to_string();
            let mut form = vec![("action", action), ("offset", off.as_str())];
            form.extend_from_slice(extra);
            let v = call(d, path, &form);
            assert_eq!(v["status"], 0, "{v}");
            rows.extend(v["body"][key].as_array().unwrap().iter().cloned());
            pages += 1;
            let more = v["body"]["more"].as_bool().unwrap_or(v["body"]["more"] == 1);
            if !more {
                assert_eq!(v["body"]["offset"], 0);
                return (rows, pages);
            }
            let next = v["body"]["offset"].as_u64().unwrap() as usize;
            assert!(next > offset, "offset must advance");
            offset = next;
        }
    }

    type Form<'a> = &'a [(&'a str, &'a str)];

    const WIDE: [(&str, &str); 2] = [("startdateymd", "2000-01-01"), ("enddateymd", "2100-01-01")];

    fn local_date(v: &Value, key: &str) -> CivilDate {
        let tz = v["timezone"].as_str().unwrap();
        let z = match tz {
            "America/New_York" => zone(NEW_YORK),
            _ => zone(PARIS),
        };
        z.local_date(Instant(v[key].as_i64().unwrap()))
    }

    fn groups(d: &DemoUpstream) -> Vec<Value> {
        all(d, "/measure", "getmeas", "measuregrps", &[("category", "1")]).0
    }

    #[test]
    fn same_clock_and_zone_give_byte_identical_answers() {
        let requests: [(&str, Form); 8] = [
            ("/measure", &[("action", "getmeas"), ("category", "1")]),
            ("/v2/measure", &[("action", "getactivity"), WIDE[0], WIDE[1]]),
            ("/v2/measure", &[("action", "getworkouts"), WIDE[0], WIDE[1]]),
            ("/v2/sleep", &[("action", "getsummary"), WIDE[0], WIDE[1], ("offset", "50")]),
            ("/v2/heart", &[("action", "list")]),
            ("/v2/user", &[("action", "getdevice")]),
            (
                "/v2/sleep",
                &[
                    ("action", "get"),
                    ("startdate", "1773100000"),
                    ("enddate", "1773500000"),
                    ("data_fields", "hr,rr,snoring"),
                ],
            ),
            ("/v2/measure", &[("action", "getintradayactivity")]),
        ];
        let (a, b) = (demo(), demo());
        for (path, form) in requests {
            let (x, y) = (raw(&a, path, form), raw(&b, path, form));
            assert_eq!(x, y, "{path} {form:?}");
            assert!(x.starts_with("{\"status\":0,"), "{path}: {x:.200}");
        }
    }

    /// An account generated only as far back as a request reaches answers it byte for byte as
    /// the whole account does: every range the tools send, starting any day, in every zone the
    /// trip can differ from, for both people, at a late hour (a day boundary near `now`).
    #[test]
    fn a_request_answers_the_same_from_the_days_it_reaches_as_from_the_whole_account() {
        let now = noon() + 11 * 3600 + 1800;
        let mut checked = 0;
        for (posix, person) in [(PARIS, &account::ALEX), (NEW_YORK, &account::ALEX), ("JST-9", &account::SAM)]
        {
            let whole = DemoUpstream::of(person, now, zone(posix));
            drop(whole.whole());
            let today = whole.today();
            for back in [0, 1, 2, 3, 6, 7, 8, 13, 14, 20, 28, 29, 30, 35, 36, 45, 89, 90, 180, 399, 400, 450]
            {
                let ymd = today.add_days(-back).to_string();
                let end_ymd = today.add_days(-back + 6).to_string();
                let midnight = zone(posix).local_midnight(today.add_days(-back)).0;
                let (start, week) = (midnight.to_string(), (midnight + 7 * DAY_SECS - 1).to_string());
                let requests: [(&str, Vec<(&str, &str)>); 8] = [
                    ("/measure", vec![("action", "getmeas"), ("startdate", &start), ("enddate", &week)]),
                    ("/measure", vec![("action", "getmeas"), ("startdate", &start), ("offset", "100")]),
                    (
                        "/v2/measure",
                        vec![("action", "getactivity"), ("startdateymd", &ymd), ("enddateymd", &end_ymd)],
                    ),
                    (
                        "/v2/measure",
                        vec![("action", "getworkouts"), ("startdateymd", &ymd), ("enddateymd", &end_ymd)],
                    ),
                    (
                        "/v2/sleep",
                        vec![("action", "getsummary"), ("startdateymd", &ymd), ("enddateymd", &end_ymd)],
                    ),
                    ("/v2/sleep", vec![("action", "get"), ("startdate", &start), ("enddate", &week)]),
                    ("/v2/heart", vec![("action", "list"), ("startdate", &start), ("enddate", &week)]),
                    ("/v2/measure", vec![("action", "getintradayactivity"), ("startdate", &start)]),
                ];
                for (path, form) in requests {
                    let fresh = DemoUpstream::of(person, now, zone(posix));
                    let same = raw(&fresh, path, &form) == raw(&whole, path, &form);
                    assert!(same, "{posix} {path} {form:?}");
                    checked += 1;
                }
            }
        }
        assert_eq!(checked, 3 * 22 * 8);
    }

    #[test]
    fn today_moves_with_the_clock() {
        let cases = [
            (0, "2026-03-15"),
            (DAY_SECS, "2026-03-16"),
            (30 * DAY_SECS, "2026-04-14"),
            (-DAY_SECS, "2026-03-14"),
        ];
        for (shift, want) in cases {
            let d = DemoUpstream::new(noon() + shift, zone(PARIS));
            assert_eq!(d.today().to_string(), want);
            // Newest first: the first group is this morning's weigh-in.
            let v = call(&d, "/measure", &[("action", "getmeas"), ("meastype", "1")]);
            let newest = &v["body"]["measuregrps"][0];
            assert_eq!(local_date(newest, "date").to_string(), want);
            let (acts, _) = all(&d, "/v2/measure", "getactivity", "activities", &WIDE);
            assert_eq!(acts.last().unwrap()["date"], want);
            assert_eq!(acts.len(), account::DAYS as usize);
        }
    }

    #[test]
    fn nothing_exists_before_it_is_uploaded() {
        // At 05:00 local, today's weigh-in has not happened and today's activity is barely started.
        let early = noon() - 7 * 3600;
        let d = DemoUpstream::new(early, zone(PARIS));
        for g in groups(&d) {
            assert!(g["created"].as_i64().unwrap() <= early);
            assert!(g["date"].as_i64().unwrap() <= early);
        }
        let v = call(
            &d,
            "/v2/measure",
            &[("action", "getactivity"), ("startdateymd", "2026-03-15"), ("enddateymd", "2026-03-15")],
        );
        let today = &v["body"]["activities"][0];
        let full = call(
            &demo(),
            "/v2/measure",
            &[("action", "getactivity"), ("startdateymd", "2026-03-15"), ("enddateymd", "2026-03-15")],
        );
        assert!(today["steps"].as_i64().unwrap() < full["body"]["activities"][0]["steps"].as_i64().unwrap());
        assert_eq!(today["modified"], early);
    }

    #[test]
    fn weigh_ins_guest_manual_and_late_upload() {
        let d = demo();
        let groups = groups(&d);
        let weighs: Vec<&Value> = groups
            .iter()
            .filter(|g| g["measures"].as_array().unwrap().iter().any(|m| m["type"] == 1))
            .collect();
        let own_days: BTreeSet<CivilDate> =
            weighs.iter().filter(|g| g["attrib"] == 0).map(|g| local_date(g, "date")).collect();
        assert!(own_days.len() >= 120, "{} weigh-in days", own_days.len());
        // Some days are missing (about 15 %), but not most.
        assert!(own_days.len() < 390 && own_days.len() > 300, "{}", own_days.len());
        let by_attrib = |a: i64| weighs.iter().filter(|g| g["attrib"] == a).collect::<Vec<_>>();
        let (guest, manual) = (by_attrib(1), by_attrib(2));
        assert_eq!((guest.len(), manual.len()), (1, 1));
        assert_eq!(guest[0]["measures"][0]["value"], 54_200);
        assert_eq!(manual[0]["deviceid"], Value::Null);
        assert_eq!(manual[0]["measures"].as_array().unwrap().len(), 1);
        let late: Vec<&&Value> = weighs
            .iter()
            .filter(|g| g["created"].as_i64().unwrap() - g["date"].as_i64().unwrap() >= 3 * DAY_SECS)
            .collect();
        assert_eq!(late.len(), 1);
        assert_eq!(late[0]["modified"], late[0]["created"]);
        // The weight trend: about -0.25 kg/week over the last 12 weeks.
        let kg = |back: i64| -> f64 {
            let days: Vec<f64> = weighs
                .iter()
                .filter(|g| g["attrib"] == 0)
                .filter(|g| (d.today().days() - local_date(g, "date").days() - back).abs() <= 7)
                .map(|g| g["measures"][0]["value"].as_f64().unwrap() / 1000.0)
                .collect();
            days.iter().sum::<f64>() / days.len() as f64
        };
        let slope = (kg(7) - kg(77)) / 10.0;
        assert!((-0.35..-0.15).contains(&slope), "{slope} kg/week");
        // Composition is consistent: fat-free mass = muscle + bone, within rounding.
        let g = weighs.iter().find(|g| g["attrib"] == 0).unwrap();
        let val = |t: i64| {
            g["measures"].as_array().unwrap().iter().find(|m| m["type"] == t).unwrap()["value"]
                .as_i64()
                .unwrap()
        };
        assert!((val(5) - val(76) - val(88)).abs() <= 1);
    }

    #[test]
    fn travel_week_carries_its_zone() {
        let d = demo();
        let ny = zone(NEW_YORK);
        let first = d.today().add_days(-35);
        let last = d.today().add_days(-29);
        let weighs: Vec<Value> =
            groups(&d).into_iter().filter(|g| g["timezone"] == "America/New_York").collect();
        assert!(weighs.len() >= 4, "{}", weighs.len());
        for g in &weighs {
            let t = g["date"].as_i64().unwrap();
            let date = ny.local_date(Instant(t));
            assert!((first..=last).contains(&date), "{date}");
            let hour = ny.local_secs(Instant(t)).rem_euclid(DAY_SECS) / 3600;
            assert!((6..=8).contains(&hour), "weigh-in at {hour}h New York time");
        }
        let (acts, _) = all(&d, "/v2/measure", "getactivity", "activities", &WIDE);
        let trip: Vec<&Value> = acts.iter().filter(|a| a["timezone"] == "America/New_York").collect();
        assert_eq!(trip.len(), 7);
        assert_eq!(trip[0]["date"], first.to_string());
        let (nights, _) = all(&d, "/v2/sleep", "getsummary", "series", &WIDE);
        for n in nights.iter().filter(|n| n["timezone"] == "America/New_York") {
            assert_eq!(local_date(n, "enddate").to_string(), n["date"], "sleep date is the wake-up day");
            assert_eq!(n["model_id"], 94, "the watch tracks sleep away from home");
        }
        let (workouts, _) = all(&d, "/v2/measure", "getworkouts", "series", &WIDE);
        let walks: Vec<&Value> = workouts.iter().filter(|w| w["timezone"] == "America/New_York").collect();
        assert_eq!(walks.len(), 7);
        for w in walks {
            assert_eq!(local_date(w, "startdate").to_string(), w["date"]);
            assert_eq!(w["category"], 1);
        }
        // A home in New York travels to Paris instead.
        let d = DemoUpstream::new(noon(), ny);
        assert_eq!(d.whole().trip_tz, "Europe/Paris");
    }

    #[test]
    fn paging_returns_every_record_exactly_once() {
        let d = demo();
        let whole = d.whole();
        let a = &*whole;
        let cases: [(&str, &str, &str, &str, usize, Form); 5] = [
            ("/measure", "getmeas", "measuregrps", "grpid", a.groups.len(), &[]),
            ("/v2/measure", "getactivity", "activities", "date", a.activities.len(), &WIDE),
            ("/v2/measure", "getworkouts", "series", "id", a.workouts.len(), &WIDE),
            ("/v2/sleep", "getsummary", "series", "id", a.sleeps.len(), &WIDE),
            ("/v2/heart", "list", "series", "timestamp", a.hearts.len(), &[]),
        ];
        for (path, action, key, id, total, extra) in cases {
            let (rows, pages) = all(&d, path, action, key, extra);
            let ids: BTreeSet<String> = rows.iter().map(|r| r[id].to_string()).collect();
            assert_eq!(rows.len(), total, "{action}");
            assert_eq!(ids.len(), total, "{action}: duplicates");
            assert!(pages >= 2, "{action}: {pages} page(s) do not exercise paging");
        }
        // An offset past the end is an empty last page.
        let v = call(&d, "/measure", &[("action", "getmeas"), ("offset", "100000")]);
        assert_eq!(v["body"]["measuregrps"].as_array().unwrap().len(), 0);
        assert_eq!(v["body"]["more"], 0);
    }

    #[test]
    fn date_filters_are_inclusive_at_both_ends() {
        let d = demo();
        let whole = d.whole();
        let g = &whole.groups[whole.groups.len() / 2];
        let (t, id) = (g.date.to_string(), g.grpid);
        let ids = |start: i64, end: i64| -> Vec<i64> {
            let (s, e) = (start.to_string(), end.to_string());
            let v = call(&d, "/measure", &[("action", "getmeas"), ("startdate", &s), ("enddate", &e)]);
            v["body"]["measuregrps"]
                .as_array()
                .unwrap()
                .iter()
                .map(|g| g["grpid"].as_i64().unwrap())
                .collect()
        };
        let date = g.date;
        assert_eq!(ids(date, date), vec![id], "start = end = date {t}");
        assert!(!ids(date + 1, date + 3600).contains(&id));
        assert!(!ids(date - 3600, date - 1).contains(&id));
        // lastupdate is strictly after.
        let since = |t: i64| call(&d, "/measure", &[("action", "getmeas"), ("lastupdate", &t.to_string())]);
        let newest = whole.groups.iter().map(|g| g.modified).max().unwrap();
        assert_eq!(since(newest)["body"]["measuregrps"].as_array().unwrap().len(), 0);
        assert!(!since(newest - 1)["body"]["measuregrps"].as_array().unwrap().is_empty());
        // Day windows: one day in, both ends included.
        let day = d.today().add_days(-40).to_string();
        let next = d.today().add_days(-39).to_string();
        let cases = [(&day, &day, 1), (&day, &next, 2), (&next, &day, 0)];
        for (a, b, n) in cases {
            let v =
                call(&d, "/v2/measure", &[("action", "getactivity"), ("startdateymd", a), ("enddateymd", b)]);
            assert_eq!(v["body"]["activities"].as_array().unwrap().len(), n, "{a}..{b}");
        }
        let v =
            call(&d, "/v2/sleep", &[("action", "getsummary"), ("startdateymd", &day), ("enddateymd", &day)]);
        for s in v["body"]["series"].as_array().unwrap() {
            assert_eq!(s["date"], day.as_str());
        }
        // Types filter both groups and measures.
        let v = call(&d, "/measure", &[("action", "getmeas"), ("meastypes", "9,10")]);
        for g in v["body"]["measuregrps"].as_array().unwrap() {
            let types: BTreeSet<i64> =
                g["measures"].as_array().unwrap().iter().map(|m| m["type"].as_i64().unwrap()).collect();
            assert_eq!(types, BTreeSet::from([9, 10]));
        }
    }

    #[test]
    fn bad_requests_get_real_statuses() {
        let d = demo();
        let week = 7 * DAY_SECS;
        let s = noon() - 10 * DAY_SECS;
        let (s0, e_ok, e_long) = (s.to_string(), (s + week).to_string(), (s + week + 1).to_string());
        let cases: [(&str, Form, i64); 14] = [
            ("/v2/sleep", &[("action", "get"), ("startdate", &s0), ("enddate", &e_ok)], 0),
            ("/v2/sleep", &[("action", "get"), ("startdate", &s0), ("enddate", &e_long)], 293),
            ("/v2/sleep", &[("action", "get"), ("startdate", &e_ok), ("enddate", &s0)], 293),
            ("/v2/sleep", &[("action", "get"), ("startdate", &s0)], 293),
            ("/v2/sleep", &[("action", "getsummary")], 293),
            (
                "/v2/sleep",
                &[("action", "getsummary"), ("startdateymd", "2026-02-30"), ("enddateymd", "2026-03-01")],
                293,
            ),
            ("/v2/measure", &[("action", "getactivity"), ("startdateymd", "2026-03-01")], 293),
            ("/v2/measure", &[("action", "getworkouts"), ("lastupdate", "0")], 0),
            ("/measure", &[("action", "getmeas"), ("startdate", "yesterday")], 293),
            ("/measure", &[("action", "getmeas"), ("offset", "-1")], 293),
            ("/measure", &[("action", "getmeas"), ("category", "3")], 293),
            ("/measure", &[("action", "nope")], 2554),
            ("/v3/whatever", &[("action", "getmeas")], 2554),
            ("/v2/heart", &[("action", "get"), ("signalid", "1")], 293),
        ];
        for (path, form, status) in cases {
            let v = call(&d, path, form);
            assert_eq!(v["status"], status, "{path} {form:?}: {v:.300}");
            if status != 0 {
                assert_eq!(v["body"], json!({}));
                assert!(v["error"].is_string());
            }
        }
        // Extreme numbers are answered, never a panic or an overflow.
        let (lo, hi) = (i64::MIN.to_string(), i64::MAX.to_string());
        let extremes = [
            ("/v2/sleep", "get"),
            ("/v2/measure", "getintradayactivity"),
            ("/measure", "getmeas"),
            ("/v2/heart", "list"),
            ("/v2/sleep", "getsummary"),
        ];
        for (path, action) in extremes {
            for (a, b) in [(&lo, &hi), (&hi, &hi), (&lo, &lo), (&hi, &lo)] {
                let v =
                    call(&d, path, &[("action", action), ("startdate", a), ("enddate", b), ("offset", &hi)]);
                assert!(v["status"] == 0 || v["status"] == 293, "{path} {action} {a} {b}: {v:.200}");
            }
        }
        // Data calls need a bearer; the token endpoints do not.
        let form = vec![("action", "getmeas".to_string())];
        for bearer in [None, Some(""), Some("  ")] {
            let body = d.post("/measure", &form, bearer).unwrap().body;
            assert!(body.starts_with("{\"status\":401,"), "{body}");
        }
        let token = vec![
            ("action", "requesttoken".to_string()),
            ("grant_type", "refresh_token".to_string()),
            ("client_id", "id".to_string()),
            ("refresh_token", "r".to_string()),
        ];
        let v: Value = serde_json::from_str(&d.post("/v2/oauth2", &token, None).unwrap().body).unwrap();
        assert_eq!(
            (v["status"].as_i64(), v["body"]["access_token"].as_str()),
            (Some(0), Some(DEMO_ACCESS_TOKEN))
        );
        let v: Value = serde_json::from_str(&d.post("/v2/oauth2", &token[..2], None).unwrap().body).unwrap();
        assert_eq!(v["status"], 503);
    }

    #[test]
    fn naps_sit_beside_nights() {
        let d = demo();
        let (rows, _) = all(&d, "/v2/sleep", "getsummary", "series", &WIDE);
        let mut per_date: BTreeMap<String, Vec<&Value>> = BTreeMap::new();
        for r in &rows {
            per_date.entry(r["date"].as_str().unwrap().to_string()).or_default().push(r);
        }
        let whole = d.whole();
        let naps: Vec<&account::Sleep> = whole.sleeps.iter().filter(|s| s.nap).collect();
        assert!(naps.len() >= 2, "{} naps", naps.len());
        for nap in naps {
            let day = per_date.get(&nap.date.to_string()).unwrap();
            assert_eq!(day.len(), 2, "{}: a nap and a night", nap.date);
            let night = day.iter().find(|r| r["id"] != nap.id).unwrap();
            assert!(night["data"]["total_sleep_time"].as_i64().unwrap() > 4 * 3600);
            let nap_row = day.iter().find(|r| r["id"] == nap.id).unwrap();
            assert!(nap_row["data"]["total_sleep_time"].as_i64().unwrap() < 3600);
            let start = nap_row["startdate"].as_i64().unwrap();
            assert!(start >= night["enddate"].as_i64().unwrap());
        }
        // Nights are nearly every day and never overlap, across the trip's zone jumps too.
        assert!(rows.len() as i64 > account::DAYS * 9 / 10);
        let mut spans: Vec<(i64, i64)> = d.whole().sleeps.iter().map(|s| (s.start(), s.end())).collect();
        spans.sort();
        for w in spans.windows(2) {
            assert!(w[0].1 <= w[1].0, "overlapping sleeps {w:?}");
        }
    }

    #[test]
    fn sleep_details_match_summaries() {
        let d = demo();
        let whole = d.whole();
        let night = whole.sleeps.iter().rev().find(|s| !s.nap).unwrap();
        let (s, e) = (night.start().to_string(), night.end().to_string());
        let v = call(
            &d,
            "/v2/sleep",
            &[("action", "get"), ("startdate", &s), ("enddate", &e), ("data_fields", "hr,rr")],
        );
        let segs = v["body"]["series"].as_array().unwrap();
        let mut per_state = [0i64; 4];
        for seg in segs {
            let len = seg["enddate"].as_i64().unwrap() - seg["startdate"].as_i64().unwrap();
            per_state[seg["state"].as_u64().unwrap() as usize] += len;
            assert!(seg["hr"].as_object().is_some_and(|m| !m.is_empty()));
            assert!(seg.get("snoring").is_none(), "only requested fields");
        }
        let date = night.date.to_string();
        let fields = "total_sleep_time,lightsleepduration,deepsleepduration,remsleepduration,wakeupduration";
        let v = call(
            &d,
            "/v2/sleep",
            &[
                ("action", "getsummary"),
                ("startdateymd", &date),
                ("enddateymd", &date),
                ("data_fields", fields),
            ],
        );
        let sum =
            v["body"]["series"].as_array().unwrap().iter().find(|r| r["id"] == night.id).unwrap()["data"]
                .clone();
        assert_eq!(sum.as_object().unwrap().len(), 5);
        assert_eq!(sum["lightsleepduration"], per_state[1]);
        assert_eq!(sum["deepsleepduration"], per_state[2]);
        assert_eq!(sum["remsleepduration"], per_state[3]);
        assert_eq!(sum["wakeupduration"], per_state[0]);
        assert_eq!(sum["total_sleep_time"], per_state[1] + per_state[2] + per_state[3]);
    }

    #[test]
    fn heart_records_and_ecg() {
        let d = demo();
        let (rows, _) = all(&d, "/v2/heart", "list", "series", &[]);
        let ecgs: Vec<&Value> = rows.iter().filter(|r| r.get("ecg").is_some()).collect();
        let afib: BTreeSet<i64> = ecgs.iter().map(|r| r["ecg"]["afib"].as_i64().unwrap()).collect();
        assert_eq!((ecgs.len(), afib), (2, BTreeSet::from([0, 2])));
        assert!(rows.iter().filter(|r| r.get("bloodpressure").is_some()).count() > 40);
        let (devices, _) = (call(&d, "/v2/user", &[("action", "getdevice")]), ());
        let mat = devices["body"]["devices"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["model_id"] == 63)
            .unwrap()
            .clone();
        assert_eq!(mat["battery"], "unknown");
        for e in ecgs {
            let id = e["ecg"]["signalid"].to_string();
            let v = call(&d, "/v2/heart", &[("action", "get"), ("signalid", &id)]);
            let hz = v["body"]["sampling_frequency"].as_i64().unwrap();
            // BPM Core records at 500 Hz, the watch at 300 Hz.
            assert_eq!(hz, if e["model"] == 44 { 500 } else { 300 }, "{e}");
            assert_eq!(v["body"]["model"], e["model"]);
            assert!(v["body"]["signal"].as_array().unwrap().len() as i64 >= hz * 20);
        }
        // Blood pressure in getmeas a few times a week.
        let v = call(
            &d,
            "/measure",
            &[
                ("action", "getmeas"),
                ("meastype", "10"),
                ("startdate", &(noon() - 28 * DAY_SECS).to_string()),
            ],
        );
        let n = v["body"]["measuregrps"].as_array().unwrap().len();
        assert!((6..=28).contains(&n), "{n} BP readings in 4 weeks");
    }

    #[test]
    fn every_home_zone_gives_a_consistent_account() {
        let zones = [
            (zone(PARIS), "America/New_York"),
            (zone(NEW_YORK), "Europe/Paris"),
            (zone("JST-9"), "Europe/Paris"),
            (zone("PST8PDT,M3.2.0,M11.1.0"), "America/New_York"),
            (Zone::utc(), "America/New_York"),
            (Zone::fixed(14 * 3600), "Europe/Paris"),
            (Zone::fixed(-11 * 3600), "America/New_York"),
        ];
        for (z, trip) in zones {
            let name = z.name().to_string();
            for now in [noon(), noon() + 200 * DAY_SECS] {
                let d = DemoUpstream::new(now, z.clone());
                let whole = d.whole();
                let a = &*whole;
                assert_eq!(a.trip_tz, trip, "{name}");
                let mut spans: Vec<(i64, i64)> = a.sleeps.iter().map(|s| (s.start(), s.end())).collect();
                spans.sort();
                assert!(spans.windows(2).all(|w| w[0].1 <= w[1].0), "{name}: overlapping sleeps");
                assert!(a.sleeps.iter().any(|s| s.nap), "{name}: no nap");
                let days: BTreeSet<CivilDate> = a.activities.iter().map(|x| x.date).collect();
                assert_eq!(days.len() as i64, account::DAYS, "{name}: one activity row a day");
                assert_eq!(a.activities.last().map(|x| x.date), Some(z.local_date(Instant(now))));
                assert!(a.groups.iter().all(|g| g.created <= now && g.date <= g.created));
                assert!(a.groups.iter().filter(|g| g.tz == trip).count() >= 4, "{name}");
            }
        }
    }

    fn keys(v: &Value) -> BTreeSet<String> {
        v.as_object().unwrap().keys().cloned().collect()
    }

    fn fixture(name: &str) -> Value {
        let path = format!("{}/fixtures/withings/{name}", env!("CARGO_MANIFEST_DIR"));
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    }

    #[test]
    fn shapes_match_the_fixtures() {
        let d = demo();
        let ours = |path: &str, form: &[(&str, &str)]| call(&d, path, form)["body"].clone();
        let wide_meas = [("action", "getmeas")];
        let all_sleep = "total_timeinbed,total_sleep_time,lightsleepduration,deepsleepduration,remsleepduration,wakeupduration,wakeupcount,durationtosleep,durationtowakeup,sleep_efficiency,sleep_latency,wakeup_latency,waso,nb_rem_episodes,out_of_bed_count,hr_average,hr_min,hr_max,rr_average,rr_min,rr_max,breathing_disturbances_intensity,snoring,snoringepisodecount,sleep_score,apnea_hypopnea_index,night_events";
        let recent = d.today().add_days(-6).to_string();
        let today = d.today().to_string();
        let window = [("startdateymd", recent.as_str()), ("enddateymd", today.as_str())];
        // (fixture, list key, our body, our list key, extra keys we add)
        let body_meas = ours("/measure", &wide_meas);
        let body_act = ours("/v2/measure", &[("action", "getactivity"), window[0], window[1]]);
        let body_wk = ours(
            "/v2/measure",
            &[("action", "getworkouts"), ("startdateymd", "2000-01-01"), ("enddateymd", &today)],
        );
        let body_sum =
            ours("/v2/sleep", &[("action", "getsummary"), window[0], window[1], ("data_fields", all_sleep)]);
        let body_heart = ours("/v2/heart", &[("action", "list")]);
        let (s, e) = ((noon() - 2 * DAY_SECS).to_string(), noon().to_string());
        let body_get = ours(
            "/v2/sleep",
            &[("action", "get"), ("startdate", &s), ("enddate", &e), ("data_fields", "hr,rr,snoring")],
        );
        let cases = [
            ("measure_getmeas_page1.json", "measuregrps", &body_meas, vec!["timezone"]),
            ("measure_v2_getactivity.json", "activities", &body_act, vec![]),
            ("measure_v2_getworkouts.json", "series", &body_wk, vec![]),
            ("sleep_v2_getsummary.json", "series", &body_sum, vec![]),
            ("sleep_v2_get.json", "series", &body_get, vec![]),
            ("heart_v2_list.json", "series", &body_heart, vec![]),
        ];
        for (name, list, body, extra) in cases {
            let fx = fixture(name);
            assert_eq!(keys(body), keys(&fx["body"]), "{name}: body keys");
            let want = &fx["body"][list][0];
            // Compare like with like: the same workout category, a night with every field.
            let mine = body[list]
                .as_array()
                .unwrap()
                .iter()
                .find(|r| r.get("category") == want.get("category") && keys(r).is_superset(&keys(want)))
                .unwrap();
            let mut want_keys = keys(want);
            want_keys.extend(extra.iter().map(|k| k.to_string()));
            assert_eq!(keys(mine), want_keys, "{name}: record keys");
            // Same JSON type for every shared field.
            for (k, v) in want.as_object().unwrap() {
                let same = std::mem::discriminant(v) == std::mem::discriminant(&mine[k])
                    || (v.is_null() || mine[k].is_null());
                assert!(same, "{name}: `{k}` is {v} in the fixture, {} here", mine[k]);
                if let (Some(a), Some(b)) = (v.as_object(), mine[k].as_object())
                    && !matches!(k.as_str(), "hr" | "rr" | "snoring")
                {
                    assert_eq!(
                        a.keys().collect::<BTreeSet<_>>(),
                        b.keys().collect::<BTreeSet<_>>(),
                        "{name}.{k}"
                    );
                }
            }
            for m in mine.get("measures").and_then(Value::as_array).into_iter().flatten() {
                assert_eq!(keys(m), keys(&fx["body"][list][0]["measures"][0]));
            }
        }
        // getmeas pages say more as 0/1; v2 lists as booleans.
        assert!(body_meas["more"].is_i64() && body_act["more"].is_boolean());
    }

    #[test]
    fn intraday_adds_up_to_the_day_and_nights_carry_spo2_and_hrv() {
        let d = demo();
        let whole = d.whole();
        let a = &*whole;
        let yesterday = a.activities.iter().rev().nth(1).unwrap();
        let (start, end) = yesterday.bounds;
        let (s, e) = (start.to_string(), (end - 1).to_string());
        let v =
            call(&d, "/v2/measure", &[("action", "getintradayactivity"), ("startdate", &s), ("enddate", &e)]);
        let series = v["body"]["series"].as_object().unwrap();
        let steps: i64 = series.values().filter_map(|x| x["steps"].as_i64()).sum();
        assert!(
            (steps - yesterday.steps).abs() <= 40,
            "{steps} steps in samples, {} in the day",
            yesterday.steps
        );
        let night = a.sleeps.iter().rev().find(|s| s.end() > start && s.start() < end && !s.nap).unwrap();
        for (t, x) in series {
            let t: i64 = t.parse().unwrap();
            assert!((start..end).contains(&t), "{t} outside the day");
            let asleep = (night.start()..night.end()).contains(&t);
            for f in ["spo2_auto", "rmssd", "sdnn1"] {
                assert!(x.get(f).is_none() || asleep, "{f} while awake at {t}");
            }
            if asleep {
                assert!(x.get("steps").is_none(), "steps while asleep at {t}");
            }
            assert_eq!((x["model"].as_str(), x["model_id"].as_i64()), (Some(account::WATCH.model), Some(94)));
        }
        let count = |f: &str| series.values().filter(|x| x.get(f).is_some()).count();
        assert!(count("spo2_auto") >= 20 && count("rmssd") >= 10 && count("heart_rate") >= 250, "{series:?}");
        // `data_fields` is honoured, and a window never reaches past `now`.
        let v = call(
            &d,
            "/v2/measure",
            &[
                ("action", "getintradayactivity"),
                ("startdate", &s),
                ("enddate", &e),
                ("data_fields", "rmssd"),
            ],
        );
        assert!(v["body"]["series"].as_object().unwrap().values().all(|x| x.get("heart_rate").is_none()));
        let now = noon().to_string();
        let v = call(&d, "/v2/measure", &[("action", "getintradayactivity"), ("startdate", &now)]);
        assert_eq!(v["body"]["series"], json!([]));
    }

    #[test]
    fn devices_one_stale_one_on_low_battery() {
        let d = demo();
        let v = call(&d, "/v2/user", &[("action", "getdevice")]);
        let devices = v["body"]["devices"].as_array().unwrap();
        let age = |x: &Value| noon() - x["last_session_date"].as_i64().unwrap();
        let stale: Vec<&Value> = devices.iter().filter(|x| age(x) > 2 * DAY_SECS).collect();
        assert_eq!(stale.len(), 1, "{devices:?}");
        assert_eq!(stale[0]["model"], "BPM Connect");
        assert!(age(stale[0]) >= 3 * DAY_SECS);
        let low: Vec<&Value> = devices.iter().filter(|x| x["battery"] == "low").collect();
        assert_eq!((low.len(), low[0]["model"].as_str()), (1, Some("ScanWatch 2")));
        // Nothing the BPM Connect measured is newer than its last sync.
        let synced = stale[0]["last_session_date"].as_i64().unwrap();
        for g in groups(&d).iter().filter(|g| g["model"] == "BPM Connect") {
            assert!(g["created"].as_i64().unwrap() <= synced, "{g}");
        }
        let goals = call(&d, "/v2/user", &[("action", "getgoals")]);
        assert_eq!(goals["body"]["goals"]["weight"], json!({"value": 75_000, "unit": -3}));
    }
}
