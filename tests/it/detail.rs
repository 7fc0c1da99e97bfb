//! Issue 13, the four new tools end to end against the fake Withings: intraday samples read in
//! 24-hour windows (visible in the request log), devices with battery and `stale`, goals with
//! progress and a weight ETA, one ECG with its thinned trace, and the missing-scope error.
//! Goldens per tool and privacy mode live in fixtures/golden (`UPDATE_GOLDEN=1` rewrites them).

use serde_json::{Value, json};

use crate::data::{NOW, World, assert_no_private_keys, golden, page, serve, tool_call};
use crate::fake::{FakeWithings, Fault, Recorded};

const DAY: i64 = 86_400;
/// Local midnight of 2026-03-01, Europe/Paris (UTC+1).
const MAR1: i64 = 1_772_319_600;
const MODES: [&str; 3] = ["structured", "summary", "raw"];

fn num(r: &Recorded, k: &str) -> i64 {
    r.get(k).unwrap_or_else(|| panic!("no {k}: {r:?}")).parse().unwrap()
}

/// A watch's samples: one every 5 minutes from `startdate` through one second past `enddate`
/// (so the first instant of the next window comes twice, as a careless upstream could send it),
/// at most 24 h. On the hour, the heart rate is 0 and RMSSD -1: Withings' "no reading".
fn intraday(rec: &Recorded) -> Value {
    let (s, e) = (num(rec, "startdate"), num(rec, "enddate"));
    let mut series = serde_json::Map::new();
    let mut t = s + (300 - s.rem_euclid(300)) % 300;
    while t <= (e + 1).min(s + DAY) {
        let mut x = json!({"deviceid": "dd00dd00dd00dd00dd00dd00dd00dd00dd00dd00", "model": "ScanWatch", "model_id": 93,
                           "steps": (t / 300) % 50, "heart_rate": 60 + (t / 300) % 20});
        if t % 3600 == 0 {
            x["heart_rate"] = json!(0);
            x["rmssd"] = json!(-1);
        }
        if t % 1800 == 0 {
            x["spo2_auto"] = json!(97.5);
        }
        series.insert(t.to_string(), x);
        t += 300;
    }
    json!({"status": 0, "body": {"series": series}})
}

/// Serves the four new tools' endpoints (heart `list` aside, which the list tools' fixtures serve).
pub fn serve_all(fake: &FakeWithings) {
    fake.on("/v2/measure", "getintradayactivity", intraday);
    fake.on_fixture("/v2/user", "getdevice", "e2e/getdevice.json");
    fake.on_fixture("/v2/user", "getgoals", "user_v2_getgoals.json");
    fake.on("/v2/heart", "get", ecg_get);
}

fn intraday_world(tag: &str) -> World {
    let w = World::new(tag);
    w.fake.on("/v2/measure", "getintradayactivity", intraday);
    w
}

/// Calls a tool in every privacy mode over MCP; returns the three results and checks the common
/// ground (no error, identifiers gone outside raw, markdown without JSON leftovers).
fn in_every_mode(w: &World, tool: &str, args: &Value) -> Value {
    let calls: Vec<Value> = MODES
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let mut a = args.clone();
            a["privacy_mode"] = json!(m);
            tool_call(i as i64 + 1, tool, a)
        })
        .collect();
    let replies = w.mcp(&calls);
    assert_eq!(replies.len(), 3, "{tool}: {replies:?}");
    let mut doc = json!({});
    for (m, r) in MODES.iter().zip(&replies) {
        let res = &r["result"];
        assert_ne!(res["isError"], true, "{tool} {m}: {res}");
        let sc = &res["structuredContent"];
        assert_eq!(sc["privacy_mode"], *m, "{tool}");
        if *m != "raw" {
            assert_no_private_keys(sc, &format!("{tool} {m}"));
        }
        let md = res["content"][0]["text"].as_str().unwrap();
        assert!(!md.contains("null") && !md.contains("[object") && !md.contains("NaN"), "{tool} {m}: {md}");
        doc[m] = json!({"structured": sc, "markdown": md});
    }
    doc
}

#[test]
fn intraday_reads_24_hour_windows_newest_first_and_continues_exactly() {
    let w = intraday_world("intraday");
    let week = json!({"after": "2026-03-01", "before": "2026-03-07", "limit": 1000});
    let (r, first) = w.call("withings_list_intraday", week.clone());
    assert_eq!(r.code, 0, "{}", r.all());
    // 7 days of 288 samples (each window's own, the repeated edge once): 2016 in all.
    assert_eq!(
        (first["count"].as_u64(), &first["has_more"]),
        (Some(1000), &json!(true)),
        "{}",
        first["upstream"]
    );
    assert_eq!(first["next_offset"], 3 * 1_000_000 + 1000 - 3 * 288, "window 3 (newest first), sample 136");
    // The request log: newest window first, 24 h each, contiguous, ending at the last second of
    // 2026-03-07; the windows not needed for 1000 samples are not asked for.
    let reqs = w.data_requests();
    assert_eq!(reqs.len(), 4, "{reqs:?}");
    for (i, r) in reqs.iter().enumerate() {
        let start = MAR1 + (6 - i as i64) * DAY;
        assert_eq!((num(r, "startdate"), num(r, "enddate")), (start, start + DAY - 1), "{r:?}");
        assert_eq!(r.get("data_fields").map(|f| f.split(',').count()), Some(15), "every documented field");
    }
    let times = |v: &Value| {
        v["records"].as_array().unwrap().iter().map(|x| x["time"].as_i64().unwrap()).collect::<Vec<_>>()
    };
    let mut all = times(&first);
    let mut next = first["next_offset"].clone();
    while next.is_i64() {
        let mut args = week.clone();
        args["offset"] = next;
        let (_, more) = w.call("withings_list_intraday", args);
        all.extend(times(&more));
        next = more.get("next_offset").cloned().unwrap_or(Value::Null);
    }
    let reqs = w.data_requests();
    let again: Vec<i64> = reqs[4..].iter().map(|r| num(r, "startdate")).collect();
    assert_eq!(
        again,
        [MAR1 + 3 * DAY, MAR1 + 2 * DAY, MAR1 + DAY, MAR1, MAR1],
        "goes on at window 3; the third call at window 0, where the second stopped"
    );
    assert_eq!(all.len(), 2016);
    assert!(all.windows(2).all(|p| p[0] > p[1]), "newest first, every sample once");
    assert_eq!((all[0], all[2015]), (MAR1 + 7 * DAY - 300, MAR1));
    // Withings' "no reading" values are absent, never numbers.
    let on_the_hour = first["records"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["time"].as_i64().unwrap() % 3600 == 0)
        .unwrap();
    assert!(on_the_hour.get("heart_rate").is_none() && on_the_hour.get("rmssd").is_none(), "{on_the_hour}");
    assert_eq!(on_the_hour["spo2_auto"], 97.5);
    w.assert_no_secrets();
}

#[test]
fn intraday_defaults_to_the_last_24_hours_and_filters_fields() {
    let w = intraday_world("intraday-default");
    let (r, v) = w.call("withings_list_intraday", json!({"fields": ["heart_rate", "spo2_auto"], "limit": 3}));
    assert_eq!(r.code, 0, "{}", r.all());
    let reqs = w.data_requests();
    assert_eq!(reqs.len(), 1);
    assert_eq!((num(&reqs[0], "startdate"), num(&reqs[0], "enddate")), (NOW - DAY, NOW - 1));
    assert_eq!(reqs[0].get("data_fields"), Some("heart_rate,spo2_auto"));
    for x in v["records"].as_array().unwrap() {
        let keys: Vec<&str> = x.as_object().unwrap().keys().map(String::as_str).collect();
        assert!(
            keys.iter()
                .all(|k| ["time", "local_time", "model", "model_id", "heart_rate", "spo2_auto"].contains(k)),
            "{x}"
        );
    }
    assert_eq!(v["records"][0]["time"], NOW - 300, "the newest sample first");
    assert_eq!(
        (v["range"]["start"].as_str(), v["range"]["end"].as_str()),
        (Some("2026-03-14T13:00:00+01:00"), Some("2026-03-15T13:00:00+01:00"))
    );
    let (r, v) = w.call("withings_list_intraday", json!({"fields": ["heart_rate", "pulse"]}));
    assert_eq!(r.code, 1);
    assert_eq!(v["error"]["argument"], "fields", "{v}");
    assert_eq!(w.data_requests().len(), 1, "rejected before any request");
}

#[test]
fn intraday_over_a_long_range_stops_at_the_request_budget_and_goes_on() {
    let w = intraday_world("intraday-budget");
    // RMSSD is only ever -1 here: 104 windows without a sample, more than one call may ask for.
    let args = json!({"after": "2025-12-01", "before": "2026-03-14", "fields": ["rmssd"]});
    let (r, v) = w.call("withings_list_intraday", args.clone());
    assert_eq!(r.code, 0, "{}", r.all());
    assert_eq!(
        (v["upstream"]["requests"].as_u64(), &v["has_more"]),
        (Some(60), &json!(true)),
        "{}",
        v["upstream"]
    );
    assert!(v["upstream"]["stopped"].as_str().unwrap().contains("60"), "{v}");
    assert_eq!((&v["count"], &v["empty"]), (&json!(0), &json!(false)));
    assert_eq!(v["next_offset"], 60 * 1_000_000, "the 61st window, from its first sample");
    let mut more = args;
    more["offset"] = v["next_offset"].clone();
    let (_, v) = w.call("withings_list_intraday", more);
    assert_eq!(
        (v["upstream"]["requests"].as_u64(), &v["has_more"]),
        (Some(44), &json!(false)),
        "{}",
        v["upstream"]
    );
}

#[test]
fn intraday_golden_in_every_privacy_mode() {
    let w = intraday_world("intraday-golden");
    let mut doc = in_every_mode(
        &w,
        "withings_list_intraday",
        &json!({"after": "2026-03-06", "before": "2026-03-07", "limit": 4}),
    );
    doc["requests"] = json!(w.data_requests().iter().map(|r| &r.form).collect::<Vec<_>>());
    golden("list_list_intraday", &doc);
}

fn devices_world(tag: &str) -> World {
    let w = World::new(tag);
    w.fake.on_fixture("/v2/user", "getdevice", "e2e/getdevice.json");
    w
}

#[test]
fn devices_say_battery_and_stale_in_their_own_zone() {
    let w = devices_world("devices");
    let (r, v) = w.call("withings_list_devices", json!({}));
    assert_eq!(r.code, 0, "{}", r.all());
    let recs = v["records"].as_array().unwrap();
    let models: Vec<&str> = recs.iter().map(|d| d["model"].as_str().unwrap()).collect();
    assert_eq!(
        models,
        ["Body Scan", "ScanWatch 2", "BPM Connect", "Sleep Analyzer"],
        "most recently synced first"
    );
    let stale: Vec<&Value> = recs.iter().map(|d| &d["stale"]).collect();
    assert_eq!(
        stale,
        [&json!(false), &json!(false), &json!(true), &Value::Null],
        "47 h is fresh, 72 h stale, never unknown"
    );
    let battery: Vec<&Value> = recs.iter().map(|d| &d["battery"]).collect();
    assert_eq!(
        battery,
        [&json!("high"), &json!("low"), &json!("medium"), &Value::Null],
        "`unknown` reads as absent"
    );
    // The watch lives in New York: its sync reads in its own zone.
    assert_eq!(recs[1]["last_sync"], "2026-03-13T09:00:00-04:00");
    assert_eq!(recs[1]["timezone"], "America/New_York");
    assert_eq!(recs[2]["hours_since_sync"], 72.2);
    assert_eq!(w.data_requests().len(), 1);
    // Paging and dates: a device is kept when it was in use in the range.
    let (_, v) = w.call("withings_list_devices", json!({"limit": 1, "offset": 1}));
    assert_eq!((v["records"][0]["model"].as_str(), &v["next_offset"]), (Some("ScanWatch 2"), &json!(2)));
    let (_, v) = w.call("withings_list_devices", json!({"after": "2026-03-13"}));
    let models: Vec<&str> =
        v["records"].as_array().unwrap().iter().map(|d| d["model"].as_str().unwrap()).collect();
    assert_eq!(
        models,
        ["Body Scan", "ScanWatch 2", "Sleep Analyzer"],
        "the BPM Connect was last used on the 12th"
    );
    let md =
        w.mcp_call("withings_list_devices", json!({}))["content"][0]["text"].as_str().unwrap().to_string();
    assert!(md.contains("**BPM Connect** (Blood Pressure Monitor): battery medium, last synced 2026-03-12 12:50: **not synced"), "{md}");
    assert!(md.contains("battery **low**") && md.contains("never synced"), "{md}");
}

#[test]
fn devices_golden_in_every_privacy_mode() {
    let w = devices_world("devices-golden");
    let mut doc = in_every_mode(&w, "withings_list_devices", &json!({}));
    assert_eq!(doc["raw"]["structured"]["records"][0]["serial_number"], "SN-0001", "raw keeps what was sent");
    doc["requests"] = json!(w.data_requests().iter().map(|r| &r.form).collect::<Vec<_>>());
    golden("list_list_devices", &doc);
}

#[test]
fn a_missing_scope_names_it_and_says_to_sign_in_again() {
    let w = World::new("scope");
    w.fake.fail("/v2/user", "getdevice", Fault::Status(214), 5);
    w.fake.fail("/v2/user", "getgoals", Fault::Status(214), 5);
    for tool in ["withings_list_devices", "withings_get_goals"] {
        let (r, v) = w.call(tool, json!({}));
        assert_eq!(r.code, 1, "{}", r.all());
        let msg = v["error"]["message"].as_str().unwrap();
        assert_eq!(v["error"]["kind"], "missing_scope", "{v}");
        assert!(
            msg.contains("`user.info`") && msg.contains("withings-mcp auth") && msg.contains("214"),
            "{msg}"
        );
        let res = w.mcp_call(tool, json!({}));
        assert_eq!(res["isError"], true);
        assert!(res["content"][0]["text"].as_str().unwrap().contains("user.info"), "{res}");
    }
    // Not retried: one request per call.
    assert_eq!(w.fake.count("/v2/user", "getdevice"), 2);
}

/// Daily weigh-ins losing 0.5 kg a week: 80 kg on 2025-12-08, down to about 73.6 by 2026-03-07.
fn weigh_ins(rec: &Recorded) -> Value {
    let (s, e) = (num(rec, "startdate"), num(rec, "enddate"));
    let first = MAR1 - 83 * DAY + 8 * 3600;
    let groups: Vec<Value> = (0..90)
        .map(|d| {
            let kg = 80.0 - 0.5 * d as f64 / 7.0;
            json!({"grpid": 990000 + d, "attrib": 0, "date": first + d * DAY, "category": 1,
                   "measures": [{"value": (kg * 1000.0).round() as i64, "type": 1, "unit": -3}]})
        })
        .filter(|g| (s..=e).contains(&g["date"].as_i64().unwrap()))
        .rev()
        .collect();
    let doc = json!({"page_size": 40, "more_style": "int", "envelope": {"timezone": "Europe/Paris"}, "records": groups});
    page(&doc, rec, "measuregrps")
}

fn goals_world(tag: &str) -> World {
    let w = World::new(tag);
    w.fake.on_fixture("/v2/user", "getgoals", "user_v2_getgoals.json");
    serve(&w.fake, "/v2/measure", "getactivity", "getactivity.json", "activities");
    serve(&w.fake, "/v2/sleep", "getsummary", "sleep_getsummary.json", "series");
    w.fake.on("/measure", "getmeas", weigh_ins);
    w
}

#[test]
fn goals_show_progress_and_a_weight_eta_from_the_trend() {
    let w = goals_world("goals");
    let week = json!({"after": "2026-03-01", "before": "2026-03-07"});
    let (r, v) = w.call("withings_get_goals", week.clone());
    assert_eq!(r.code, 0, "{}", r.all());
    assert_eq!(v["goals"], json!({"steps": 9000.0, "sleep_seconds": 27000.0, "weight_kg": 70.0}));
    let steps = &v["steps"];
    assert_eq!((steps["goal"].as_f64(), steps["counted"].as_u64()), (Some(9000.0), Some(4)), "{steps}");
    assert_eq!(steps["days"][0]["date"], "2026-03-04", "newest first; the day without steps is left out");
    assert_eq!(steps["met"], 2, "9000 and 9500 steps meet it, 8000 and 8500 do not");
    let weight = &v["weight"];
    assert_eq!(weight["status"], "on_track", "{weight}");
    let weeks = weight["weeks_to_goal"].as_f64().unwrap();
    assert!((6.5..8.0).contains(&weeks), "about 3.6 kg at 0.5 kg a week: {weight}");
    assert!(
        weight["eta"].as_str().unwrap().starts_with("2026-04")
            || weight["eta"].as_str().unwrap().starts_with("2026-05"),
        "{weight}"
    );
    assert_eq!(weight["trend_window"]["after"], "2025-12-08", "the 90 days of withings_trends");
    // The trend is withings_trends' own (which shows one decimal).
    let (_, t) =
        w.call("withings_trends", json!({"metric": "weight", "after": "2025-12-08", "before": "2026-03-07"}));
    let close = |a: &Value, b: &Value| (a.as_f64().unwrap() - b.as_f64().unwrap()).abs() <= 0.05;
    assert!(close(&weight["trend_kg"], &t["latest"]), "{weight} {t}");
    assert!(close(&weight["slope_kg_per_week"], &t["slope_per_week"]["value"]), "{weight} {t}");
    // None set: said, not an error, and nothing else is asked.
    let w = World::new("goals-none");
    w.fake.on_fixture("/v2/user", "getgoals", "user_v2_getgoals_none.json");
    let res = w.mcp_call("withings_get_goals", json!({}));
    assert_eq!(
        res["structuredContent"]["goals"],
        json!({"steps": null, "sleep_seconds": null, "weight_kg": null})
    );
    assert!(res["content"][0]["text"].as_str().unwrap().contains("No goals are set"), "{res}");
    assert_eq!(w.data_requests().len(), 1);
}

#[test]
fn goals_golden_in_every_privacy_mode() {
    let w = goals_world("goals-golden");
    let mut doc =
        in_every_mode(&w, "withings_get_goals", &json!({"after": "2026-03-01", "before": "2026-03-07"}));
    assert!(doc["summary"]["structured"]["steps"].get("days").is_none(), "summary leaves out the days");
    doc["requests"] = json!(w.data_requests().iter().map(|r| &r.form).collect::<Vec<_>>());
    golden("get_goals", &doc);
}

/// heart `get`: a 30 s trace at 300 Hz for 55500002, status 293 for anything else.
fn ecg_world(tag: &str) -> World {
    let w = World::new(tag);
    serve(&w.fake, "/v2/heart", "list", "heart_list.json", "series");
    w.fake.on("/v2/heart", "get", ecg_get);
    w
}

/// The ECG the fake serves (heart `get`); any other id is unknown to it.
pub const SERVED_SIGNALID: i64 = 55_500_002;

fn ecg_get(rec: &Recorded) -> Value {
    match rec.get("signalid").and_then(|s| s.parse::<i64>().ok()) {
        Some(SERVED_SIGNALID) => {
            let signal: Vec<i64> = (0..9000).map(|i| (i % 300) - 150).collect();
            json!({"status": 0, "body": {"signal": signal, "sampling_frequency": 300, "wearposition": 1, "model": 93,
                                          "heart_rate": {"value": 72, "grpid": 1}}})
        }
        _ => json!({"status": 293, "body": {}, "error": "Invalid Params"}),
    }
}

#[test]
fn an_ecg_comes_with_its_classification_and_a_thinned_trace() {
    let w = ecg_world("ecg");
    let (r, v) = w.call("withings_get_ecg", json!({"signalid": 55500002}));
    assert_eq!(r.code, 0, "{}", r.all());
    assert_eq!(
        (v["classification"].as_str(), v["afib"].as_i64(), v["local_time"].as_str()),
        (Some("positive"), Some(1), Some("2026-03-05T09:00:00+01:00"))
    );
    assert_eq!(
        (v["sampling_frequency"].as_f64(), v["samples"].as_u64(), v["duration"].as_f64()),
        (Some(300.0), Some(9000), Some(30.0))
    );
    assert_eq!(
        (v["heart_rate"].as_f64(), v["wear_position_name"].as_str(), v["model_name"].as_str()),
        (Some(72.0), Some("left_wrist"), Some("ScanWatch"))
    );
    assert!(v.get("signal").is_none(), "the trace only when asked");
    let (_, v) = w.call("withings_get_ecg", json!({"signalid": 55500002, "include_signal": true}));
    let sig = &v["signal"];
    let values = sig["values"].as_array().unwrap();
    assert_eq!(
        (values.len(), sig["step"].as_u64(), sig["sampling_frequency"].as_f64()),
        (1800, Some(5), Some(60.0))
    );
    assert_eq!(
        (values[0].as_i64(), values[1].as_i64()),
        (Some(-150), Some(-145)),
        "every 5th sample from the first"
    );
    // A signal id Withings does not know names the argument.
    let (r, v) = w.call("withings_get_ecg", json!({"signalid": 1}));
    assert_eq!((r.code, v["error"]["argument"].as_str()), (1, Some("signalid")), "{v}");
    let (r, v) = w.call("withings_get_ecg", json!({}));
    assert_eq!((r.code, v["error"]["argument"].as_str()), (1, Some("signalid")), "{v}");
}

#[test]
fn ecg_golden_in_every_privacy_mode() {
    let w = ecg_world("ecg-golden");
    let mut doc = in_every_mode(&w, "withings_get_ecg", &json!({"signalid": 55500002}));
    assert!(doc["raw"]["structured"]["raw"].get("signal").is_none(), "the raw body without its trace");
    doc["requests"] = json!(w.data_requests().iter().map(|r| &r.form).collect::<Vec<_>>());
    golden("get_ecg", &doc);
}

#[test]
fn each_new_tool_reads_the_account_it_is_given() {
    let w = World::new("detail-accounts");
    crate::accounts::sign_in(&w, "bob", crate::fake::USERID2);
    serve_all(&w.fake);
    serve(&w.fake, "/v2/heart", "list", "heart_list.json", "series");
    let cases = [
        ("withings_list_intraday", json!({"limit": 1})),
        ("withings_list_devices", json!({})),
        ("withings_get_goals", json!({})),
        ("withings_get_ecg", json!({"signalid": 55500002})),
    ];
    for (tool, args) in cases {
        let before = w.fake.requests().len();
        let mut a = args.clone();
        a["account"] = json!("bob");
        let (r, v) = w.call(tool, a);
        assert_eq!((r.code, v["account"].as_str()), (0, Some("bob")), "{tool}: {}", r.all());
        let users: Vec<Option<String>> = w.fake.requests()[before..].iter().map(|x| x.user.clone()).collect();
        assert!(
            !users.is_empty() && users.iter().all(|u| u.as_deref() == Some(crate::fake::USERID2)),
            "{tool}: {users:?}"
        );
        let (_, v) = w.call(tool, args);
        assert_eq!(v["account"], "default", "{tool}");
    }
}

/// Two nights: one with every breathing and temperature field, one whose apnea–hypopnea index
/// and breathing disturbances are Withings' "not computed" (-1) and whose `waso` is impossible.
fn nights_with_sentinels(_: &Recorded) -> Value {
    let night = |id: i64, day: &str, start: i64, data: Value| {
        json!({"id": id, "timezone": "Europe/Paris", "model": 32, "model_id": 63, "startdate": start,
               "enddate": start + 8 * 3600, "date": day, "completed": true, "data": data})
    };
    let full = json!({"total_sleep_time": 25200, "sleep_score": 80, "apnea_hypopnea_index": 3.5,
        "breathing_disturbances_intensity": 21, "withings_index": 6.5, "breathing_quality_assessment": 1,
        "breathing_sounds": 1260, "breathing_sounds_episode_count": 4,
        "chest_movement_rate_wellness_average": 14.5, "chest_movement_rate_wellness_min": 11,
        "chest_movement_rate_wellness_max": 19, "chest_movement_rate_average": 15.5, "chest_movement_rate_min": 9,
        "chest_movement_rate_max": 22, "core_body_temperature_avg": 36.6, "core_body_temperature_min": 36.1,
        "core_body_temperature_max": 37.1, "core_body_temperature_status": "usual"});
    let sentinels = json!({"total_sleep_time": 24000, "apnea_hypopnea_index": -1,
        "breathing_disturbances_intensity": -1, "waso": -25920, "wakeupcount": 0});
    json!({"status": 0, "body": {"more": false, "offset": 0, "series": [
        night(820000001, "2026-03-03", MAR1 + DAY + 82_800, sentinels),
        night(820000000, "2026-03-02", MAR1 + 82_800, full),
    ]}})
}

#[test]
fn every_sleep_summary_field_and_sentinels_as_null_in_json_markdown_and_csv() {
    let mut w = World::new("sleep-fields");
    w.set("WITHINGS_EXPORT_RATE", "1500");
    w.fake.on("/v2/sleep", "getsummary", nights_with_sentinels);
    let args = json!({"after": "2026-03-01", "before": "2026-03-10"});
    let result = w.mcp_call("withings_list_sleep_summary", args);
    assert_ne!(result["isError"], true, "{result}");
    let recs = result["structuredContent"]["records"].as_array().unwrap().clone();
    let (full, odd) = match recs[0]["id"] == 820000000 {
        true => (&recs[0], &recs[1]),
        false => (&recs[1], &recs[0]),
    };
    for (k, v) in [
        ("withings_index", json!(6.5)),
        ("breathing_quality_assessment", json!(1)),
        ("breathing_sounds", json!(1260)),
        ("breathing_sounds_episodes", json!(4)),
        ("chest_movement_rate_wellness_average", json!(14.5)),
        ("chest_movement_rate_wellness_max", json!(19)),
        ("chest_movement_rate_average", json!(15.5)),
        ("chest_movement_rate_min", json!(9)),
        ("core_body_temperature_avg", json!(36.6)),
        ("core_body_temperature_max", json!(37.1)),
        ("core_body_temperature_status", json!("usual")),
        ("apnea_hypopnea_index", json!(3.5)),
    ] {
        assert_eq!(full[k], v, "{k}: {full}");
    }
    for k in ["apnea_hypopnea_index", "breathing_disturbances_intensity", "waso"] {
        assert!(odd.get(k).is_none_or(Value::is_null), "{k} as a number: {odd}");
        assert_eq!(odd["data"][k], Value::Null, "data.{k} as a number: {odd}");
    }
    assert_eq!(odd["wakeup_count"], 0, "a true zero stays");
    let md = result["content"][0]["text"].as_str().unwrap();
    let line = |day: &str| md.lines().find(|l| l.starts_with(&format!("- {day}"))).unwrap_or_default();
    assert!(line("2026-03-02").contains("apnea–hypopnea index 3.5"), "{md}");
    assert!(line("2026-03-02").contains("core body temperature 36.6 °C (usual)"), "{md}");
    let odd_line = line("2026-03-03");
    assert!(odd_line.starts_with("- 2026-03-03"), "{md}");
    for word in ["apnea", "disturbances", "-1", "−1", "25920", "25,920"] {
        assert!(!odd_line.contains(word), "{word} in {odd_line}");
    }
    // The export's CSV holds the same records: the new columns, and empty cells for sentinels.
    let dir = w.home.state_dir().join("out");
    let mut c = w.command();
    c.args(["export", "--only", "sleep_summary", "--after", "2026-03-01", "--before", "2026-03-10", "--out"])
        .arg(&dir);
    let r = crate::fake::run(c);
    assert_eq!(r.code, 0, "{}", r.all());
    let csv = std::fs::read_to_string(dir.join("sleep_summary.csv")).unwrap();
    let mut rows = csv.lines().map(|l| l.split(',').collect::<Vec<_>>());
    let header = rows.next().unwrap();
    let col = |k: &str| header.iter().position(|h| *h == k).unwrap_or_else(|| panic!("no {k}: {header:?}"));
    let rows: Vec<Vec<&str>> = rows.collect();
    let odd_row = rows.iter().find(|r| r[col("id")] == "820000001").unwrap();
    let full_row = rows.iter().find(|r| r[col("id")] == "820000000").unwrap();
    assert_eq!(full_row[col("core_body_temperature_avg_c")], "36.6");
    assert_eq!(full_row[col("chest_movement_rate_average_per_min")], "15.5");
    assert_eq!(full_row[col("breathing_sounds_s")], "1260");
    assert_eq!(full_row[col("withings_index")], "6.5");
    for k in ["apnea_hypopnea_index_per_h", "breathing_disturbances_intensity"] {
        assert_eq!(odd_row[col(k)], "", "{k}: {csv}");
    }
    w.assert_no_secrets();
}

/// Nights as sleep `get` sees them: 30-minute segments from each start for `hours`.
fn segments(nights: &[(i64, i64)]) -> Vec<(i64, i64)> {
    nights
        .iter()
        .flat_map(|&(start, hours)| (0..hours * 2).map(move |k| (start + k * 1800, start + (k + 1) * 1800)))
        .collect()
}

/// Serves sleep `get` as Withings does: every segment that overlaps the window (so one across
/// a window edge comes twice), at most 7 days a request.
fn serve_segments(fake: &FakeWithings, segs: Vec<(i64, i64)>) {
    fake.on("/v2/sleep", "get", move |r| {
        let (s, e) = (num(r, "startdate"), num(r, "enddate"));
        if e - s > 7 * DAY {
            return json!({"status": 293, "body": {}, "error": "Invalid Params: more than 7 days"});
        }
        let rows: Vec<Value> = segs
            .iter()
            .filter(|(a, b)| *a <= e && *b > s)
            .map(|(a, b)| {
                json!({"startdate": a, "enddate": b, "state": (a / 1800) % 4, "model": "Sleep Analyzer",
                                 "model_id": 63, "hr": {a.to_string(): 58}})
            })
            .collect();
        json!({"status": 0, "body": {"series": rows}})
    });
}

fn starts(v: &Value) -> Vec<i64> {
    v["records"].as_array().unwrap().iter().map(|r| r["startdate"].as_i64().unwrap()).collect()
}

#[test]
fn sleep_detail_across_a_window_edge_returns_each_segment_once() {
    let w = World::new("sleep-edge");
    // A night across the edge of the first 7-day window (local midnight of 2026-03-08).
    let edge = MAR1 + 7 * DAY;
    let segs = segments(&[(MAR1 + 5 * DAY + 82_800, 8), (edge - 600, 8)]);
    serve_segments(&w.fake, segs.clone());
    let (r, v) =
        w.call("withings_list_sleep", json!({"after": "2026-03-01", "before": "2026-03-10", "limit": 1000}));
    assert_eq!(r.code, 0, "{}", r.all());
    let got = starts(&v);
    let mut once = got.clone();
    once.sort();
    once.dedup();
    assert_eq!(got.len(), once.len(), "a segment came twice: {got:?}");
    assert_eq!(once, segs.iter().map(|(s, _)| *s).collect::<Vec<_>>());
    assert!(got.windows(2).all(|p| p[0] > p[1]), "newest first: {got:?}");
    // The request log shows the two windows (newest first) meeting at the edge, which the
    // segment crosses.
    let reqs = w.data_requests();
    assert_eq!(reqs.len(), 2, "{reqs:?}");
    assert_eq!((num(&reqs[1], "enddate") + 1, num(&reqs[0], "startdate")), (edge, edge));
    // Paging across the edge still gives every segment once.
    let mut paged = Vec::new();
    let mut args = json!({"after": "2026-03-01", "before": "2026-03-10", "limit": 5});
    loop {
        let (_, v) = w.call("withings_list_sleep", args.clone());
        paged.extend(starts(&v));
        match v.get("next_offset") {
            Some(o) => args["offset"] = o.clone(),
            None => break,
        }
    }
    assert_eq!(paged, got);
}

#[test]
fn sleep_detail_by_default_covers_the_whole_of_last_night_even_at_midnight() {
    let mut w = World::new("sleep-night");
    // The night before last from 22:30, last night from 23:02 (Paris, UTC+1), 8 h each.
    let night = MAR1 + 13 * DAY + 82_920;
    serve_segments(&w.fake, segments(&[(MAR1 + 12 * DAY + 81_000, 8), (night, 8)]));
    // At 13:00 the next day, and at exactly local midnight after it.
    for now in [NOW, MAR1 + 15 * DAY] {
        w.set("WITHINGS_MCP_NOW", &now.to_string());
        let (r, v) = w.call("withings_list_sleep", json!({}));
        assert_eq!(r.code, 0, "{}", r.all());
        let got = starts(&v);
        assert_eq!(got.last(), Some(&night), "from last night's first segment (newest first): {v}");
        assert_eq!(got.len(), 16, "the whole night, nothing of the one before: {got:?}");
        assert_eq!(v["range"]["after"], "2026-03-14");
        assert_eq!(v["range"]["start"], "2026-03-14T23:02:00+01:00");
    }
}

#[test]
fn every_list_is_newest_first_and_pages_through_every_record_once() {
    let w = World::new("newest-first");
    crate::data::serve_all(&w.fake);
    let when = |r: &Value| {
        ["local_start", "local_time", "date"].iter().find_map(|k| r[k].as_str().map(str::to_string)).unwrap()
    };
    let range = json!({"after": "2026-03-01", "before": "2026-03-10"});
    for tool in [
        "withings_list_body_measures",
        "withings_list_heart",
        "withings_list_activity",
        "withings_list_workouts",
        "withings_list_sleep_summary",
        "withings_list_sleep",
    ] {
        let call = |extra: Value| {
            let mut a = range.clone();
            a.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
            let (r, v) = w.call(tool, a);
            assert_eq!(r.code, 0, "{tool}: {}", r.all());
            v
        };
        let all = call(json!({"limit": 1000}))["records"].as_array().unwrap().clone();
        let times: Vec<String> = all.iter().map(when).collect();
        assert!(times.windows(2).all(|p| p[0] >= p[1]), "{tool}: not newest first: {times:?}");
        // `limit: 3` is the three most recent.
        assert_eq!(call(json!({"limit": 3}))["records"].as_array().unwrap()[..], all[..3], "{tool}");
        // Two at a time, following next_offset: every record once, in the same order.
        let mut paged = Vec::new();
        let mut extra = json!({"limit": 2});
        loop {
            let v = call(extra.clone());
            paged.extend(v["records"].as_array().unwrap().iter().cloned());
            match v.get("next_offset") {
                Some(o) => extra["offset"] = o.clone(),
                None => break,
            }
            assert_eq!(v["has_more"], true, "{tool}");
        }
        assert_eq!(paged, all, "{tool}: paging newest first gave something else");
    }
}
