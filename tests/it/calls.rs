//! Bounded calls and what they report (CONTRACT §8.1 request budget, §8.6 notifications), through
//! the real binary against the fake Withings: the widest calls send at most 60 upstream requests
//! and say truthfully where they stopped; on stdio, progress and log notifications reach the
//! client during the call, before its reply, and never carry a secret. The deadline tests stall
//! on purpose, so they live in the serial `faults` suite.

use serde_json::{Value, json};

use crate::data::{World, page, serve_all, tool_call};
use crate::fake::{FakeWithings, Fault, fixture_json};

/// Upstream requests one call may make.
const BUDGET: usize = 60;
/// A sleep-detail offset's window stride (`window × 1,000,000 + position`).
const WINDOW: i64 = 1_000_000;

/// The list tools that page with `offset`: (tool, path, action, fixture, list key).
const PAGED: [(&str, &str, &str, &str, &str); 5] = [
    ("withings_list_body_measures", "/measure", "getmeas", "getmeas.json", "measuregrps"),
    ("withings_list_heart", "/v2/heart", "list", "heart_list.json", "series"),
    ("withings_list_activity", "/v2/measure", "getactivity", "getactivity.json", "activities"),
    ("withings_list_workouts", "/v2/measure", "getworkouts", "getworkouts.json", "series"),
    ("withings_list_sleep_summary", "/v2/sleep", "getsummary", "sleep_getsummary.json", "series"),
];

/// Serves `n` copies of a paged fixture's first record, `per_page` at a time: more pages than
/// one call may read.
fn serve_many(
    fake: &FakeWithings,
    (path, action, file, key): (&str, &str, &str, &str),
    n: usize,
    per_page: usize,
) {
    let mut doc = fixture_json(&format!("e2e/{file}"));
    let first = doc["records"][0].clone();
    doc["records"] = json!(vec![first; n]);
    doc["page_size"] = json!(per_page);
    let key = key.to_string();
    fake.on(path, action, move |rec| page(&doc, rec, &key));
}

fn with(args: &Value, key: &str, value: Value) -> Value {
    let mut a = args.clone();
    a[key] = value;
    a
}

/// `startdate` of every sleep-detail request so far.
fn sleep_starts(w: &World) -> Vec<i64> {
    w.fake
        .requests()
        .iter()
        .filter(|r| r.path == "/v2/sleep" && r.action() == "get")
        .map(|r| r.get("startdate").unwrap().parse().unwrap())
        .collect()
}

#[test]
fn sleep_detail_from_1970_stops_at_the_budget_and_goes_on_from_there() {
    let w = World::new("b-sleep");
    serve_all(&w.fake);
    // Before the budget, this call sent 2,970 requests (one per 7-day window since 1970).
    // Newest first: windows are read from `before` back, so a range with nothing in it.
    let args = json!({"after": "1970-01-01", "before": "2000-01-01", "limit": 1});
    let (r, first) = w.call("withings_list_sleep", args.clone());
    assert_eq!(r.code, 0, "{}", r.all());
    let starts = sleep_starts(&w);
    assert_eq!(starts.len(), BUDGET, "requests of the widest call");
    assert_eq!((&first["count"], &first["has_more"]), (&json!(0), &json!(true)), "{first}");
    assert_eq!(first["next_offset"], json!(60 * WINDOW), "{first}");
    assert_eq!(first["upstream"]["requests"], BUDGET);
    assert!(first["upstream"]["stopped"].as_str().unwrap().contains("60 per call"), "{first}");
    // The continuation asks for the next window, not the first ones again.
    let (r, second) = w.call("withings_list_sleep", with(&args, "offset", first["next_offset"].clone()));
    assert_eq!(r.code, 0, "{}", r.all());
    let more = &sleep_starts(&w)[BUDGET..];
    assert_eq!(more.len(), BUDGET);
    assert_eq!(
        more[0],
        starts[BUDGET - 1] - 7 * 86_400,
        "continues with the window before the last one read"
    );
    assert_eq!(second["next_offset"], json!(120 * WINDOW), "{second}");
    // The markdown says that the call stopped early and how to go on.
    let res = w.mcp_call("withings_list_sleep", args);
    let text = res["content"][0]["text"].as_str().unwrap();
    assert!(
        text.contains("Stopped early") && text.contains(&format!("`offset` = {}", 60 * WINDOW)),
        "{text}"
    );
}

#[test]
fn following_next_offset_through_sleep_windows_returns_every_segment_once() {
    let w = World::new("b-walk");
    serve_all(&w.fake);
    let direct = |after: &str| {
        let (r, v) =
            w.call("withings_list_sleep", json!({"after": after, "before": "2026-03-14", "limit": 1000}));
        assert_eq!(r.code, 0, "{}", r.all());
        v
    };
    let want: Vec<Value> =
        direct("2026-02-20")["records"].as_array().unwrap().iter().map(|r| r["startdate"].clone()).collect();
    assert_eq!(want.len(), 40, "the fixture's segments");
    // 63 windows from 2025-01-01: the budget, then the limit, cut the walk into several answers.
    let args = json!({"after": "2025-01-01", "before": "2026-03-14", "limit": 15});
    let (mut got, mut offset, mut answers) = (Vec::new(), None::<Value>, 0);
    loop {
        let a = match &offset {
            Some(o) => with(&args, "offset", o.clone()),
            None => args.clone(),
        };
        let before = w.fake.requests().len();
        let (r, v) = w.call("withings_list_sleep", a);
        assert_eq!(r.code, 0, "{}", r.all());
        assert!(w.fake.requests().len() - before <= BUDGET);
        got.extend(v["records"].as_array().unwrap().iter().map(|r| r["startdate"].clone()));
        answers += 1;
        match v["has_more"] == true {
            true => offset = Some(v["next_offset"].clone()),
            false => break,
        }
        assert!(answers < 10, "the walk must end: {v}");
    }
    assert_eq!(got, want, "every segment once, in order");
    assert!(answers >= 4, "one answer for the budget, three for the limit: {answers}");
}

#[test]
fn paged_list_tools_over_decades_stop_at_the_budget_with_an_exact_continuation() {
    for (tool, path, action, file, key) in PAGED {
        let w = World::new("b-pages");
        serve_many(&w.fake, (path, action, file, key), 150, 2);
        let args = json!({"after": "1970-01-01", "limit": 1000});
        let (r, v) = w.call(tool, args.clone());
        assert_eq!(r.code, 0, "{tool}: {}", r.all());
        assert_eq!(w.fake.count(path, action), BUDGET, "{tool}: requests");
        // Too long a range to put newest first in one call: chunks in Withings' order, each
        // answer newest first, `next_offset` opaque (1 << 40 marks an upstream offset).
        assert_eq!(
            (&v["count"], &v["has_more"], &v["next_offset"]),
            (&json!(2 * BUDGET), &json!(true), &json!((1_i64 << 40) + 2 * BUDGET as i64)),
            "{tool}: what it has, and where to go on"
        );
        let (r, rest) = w.call(tool, with(&args, "offset", v["next_offset"].clone()));
        assert_eq!(r.code, 0, "{tool}: {}", r.all());
        assert_eq!((&rest["count"], &rest["has_more"]), (&json!(30), &json!(false)), "{tool}: {rest}");
        let continued = &w.fake.requests()[BUDGET];
        assert_eq!(
            continued.get("offset"),
            Some("120"),
            "{tool}: the continuation starts at the first row not returned"
        );
        assert_eq!(w.fake.count(path, action), BUDGET + 15, "{tool}");
    }
}

#[test]
fn briefs_trends_and_charts_over_long_ranges_stay_within_the_budget_or_say_how_to_narrow() {
    let calls = [
        ("withings_trends", json!({"metric": "weight", "after": "1970-01-01"})),
        ("withings_trends", json!({"metric": "sleep_duration", "after": "1970-01-01"})),
        ("withings_chart", json!({"metric": "weight", "after": "1970-01-01"})),
        ("withings_weekly_summary", json!({"days": 90, "compare_days": 90})),
        ("withings_daily_summary", json!({})),
    ];
    let w = World::new("b-brief");
    serve_all(&w.fake);
    for (tool, args) in &calls {
        let before = w.fake.requests().len();
        let (r, _) = w.call(tool, args.clone());
        assert_eq!(r.code, 0, "{tool} {args}: {}", r.all());
        assert!(w.fake.requests().len() - before <= BUDGET, "{tool} {args}");
    }
    // More measures than 60 requests can read: a trend or a brief over part of them would not be
    // true, so they fail and say how to narrow the range.
    let w = World::new("b-brief-many");
    serve_all(&w.fake);
    serve_many(&w.fake, ("/measure", "getmeas", "getmeas.json", "measuregrps"), 150, 2);
    for (tool, args) in
        calls.iter().filter(|(t, a)| *t != "withings_daily_summary" && a["metric"] != "sleep_duration")
    {
        let before = w.fake.requests().len();
        let (r, v) = w.call(tool, args.clone());
        assert_eq!(r.code, 1, "{tool} {args}: {}", r.all());
        assert_eq!(v["error"]["kind"], "request_budget", "{tool}: {v}");
        let m = v["error"]["message"].as_str().unwrap();
        assert!(m.contains("/measure getmeas") && m.contains("narrow the range"), "{tool}: {m}");
        assert_eq!(w.fake.requests().len() - before, BUDGET, "{tool} {args}");
    }
}

/// A `tools/call` with `_meta`.
fn call_with_meta(id: i64, tool: &str, args: Value, meta: Value) -> Value {
    let mut c = tool_call(id, tool, args);
    c["params"]["_meta"] = meta;
    c
}

fn method(v: &Value) -> &str {
    v["method"].as_str().unwrap_or("")
}

#[test]
fn progress_comes_before_the_reply_at_least_once_per_upstream_request() {
    let w = World::new("b-progress");
    serve_all(&w.fake);
    // A refresh inside the call: the refused request, the refresh and the retry all count.
    w.fake.expire_access_tokens();
    let args = json!({"after": "2026-03-01", "before": "2026-03-10", "limit": 1000});
    let lines = w.mcp_lines(&[call_with_meta(
        1,
        "withings_list_sleep",
        args.clone(),
        json!({"progressToken": "tok-1"}),
    )]);
    let sent = w.fake.requests().len();
    assert_eq!(sent, 4, "401, refresh, retry, second window");
    let reply = lines.iter().position(|l| l["id"] == 1).unwrap();
    assert_eq!(lines.len(), reply + 1, "nothing after the reply: {lines:?}");
    let progress: Vec<&Value> = lines[..reply]
        .iter()
        .filter(|l| method(l) == "notifications/progress")
        .map(|l| &l["params"])
        .collect();
    assert!(
        progress.len() >= sent,
        "{} progress notifications for {sent} requests: {lines:?}",
        progress.len()
    );
    let values: Vec<f64> = progress.iter().map(|p| p["progress"].as_f64().unwrap()).collect();
    assert!(values.windows(2).all(|p| p[0] < p[1]), "strictly increasing: {values:?}");
    for p in &progress {
        assert_eq!(p["progressToken"], "tok-1");
        assert!(!p["message"].as_str().unwrap().is_empty(), "{p}");
        if let Some(t) = p.get("total") {
            assert!(t.as_f64().unwrap() >= p["progress"].as_f64().unwrap(), "{p}");
        }
    }
    assert_eq!(lines[reply]["result"]["isError"], false);
    // An integer token is echoed as given; without a token, no notification at all.
    let lines = w.mcp_lines(&[
        call_with_meta(2, "withings_list_sleep", args.clone(), json!({"progressToken": 7})),
        tool_call(3, "withings_list_sleep", args.clone()),
    ]);
    let at = |id| lines.iter().position(|l| l["id"] == id).unwrap();
    assert!(lines[at(0)..at(2)].iter().any(|l| l["params"]["progressToken"] == 7), "{lines:?}");
    assert_eq!(at(3), at(2) + 1, "no notification without a token: {lines:?}");
    // A token of another type is refused.
    let lines = w.mcp_lines(&[call_with_meta(4, "withings_list_sleep", args, json!({"progressToken": [1]}))]);
    assert_eq!(lines.last().unwrap()["error"]["code"], -32602, "{lines:?}");
    w.assert_no_secrets();
}

#[test]
fn after_set_level_retries_rate_limits_and_refreshes_are_logged_without_secrets() {
    for (level, logged) in [("debug", true), ("info", true), ("error", false)] {
        let w = World::new("b-log");
        serve_all(&w.fake);
        w.fake.expire_access_tokens();
        w.fake.fail("/measure", "getmeas", Fault::Status(601), 1);
        let lines = w.mcp_lines(&[
            json!({"jsonrpc": "2.0", "id": 1, "method": "logging/setLevel", "params": {"level": level}}),
            tool_call(2, "withings_list_body_measures", json!({})),
        ]);
        assert_eq!(w.fake.refreshes(), 1, "{level}");
        let reply = lines.iter().position(|l| l["id"] == 2).unwrap();
        assert_eq!(lines[reply]["result"]["isError"], false, "{level}: {lines:?}");
        let logs: Vec<&Value> =
            lines.iter().filter(|l| method(l) == "notifications/message").map(|l| &l["params"]).collect();
        assert!(lines[reply..].iter().all(|l| method(l).is_empty()), "{level}: logs come before the reply");
        let says = |lvl: &str, text: &str| {
            logs.iter().any(|p| {
                p["level"] == lvl && p["logger"] == "withings" && p["data"].as_str().unwrap().contains(text)
            })
        };
        assert_eq!(says("warning", "/measure getmeas: rate limited"), logged, "{level}: {logs:?}");
        assert_eq!(says("info", "refreshing the Withings access token"), logged, "{level}: {logs:?}");
        assert_eq!(says("info", "the access token was refreshed"), logged, "{level}: {logs:?}");
        assert_eq!(says("debug", "request 1 of this call"), level == "debug", "{level}: {logs:?}");
        if !logged {
            assert!(logs.is_empty(), "{level}: {logs:?}");
        }
        w.assert_no_secrets();
    }
}

#[test]
fn no_log_notification_before_set_level_and_a_bad_level_is_refused() {
    let w = World::new("b-nolog");
    serve_all(&w.fake);
    w.fake.fail("/measure", "getmeas", Fault::Status(601), 1);
    let lines = w.mcp_lines(&[
        tool_call(1, "withings_list_body_measures", json!({})),
        json!({"jsonrpc": "2.0", "id": 2, "method": "logging/setLevel", "params": {"level": "loud"}}),
    ]);
    assert!(lines.iter().all(|l| method(l).is_empty()), "{lines:?}");
    let e = &lines.last().unwrap()["error"];
    assert_eq!(e["code"], -32602);
    assert!(e["message"].as_str().unwrap().contains("`level` must be one of debug"), "{e}");
}
