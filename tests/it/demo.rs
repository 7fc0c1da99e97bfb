//! Issues 6 and 7 on the demo account, through the real binary: briefs, list tools, the guest
//! weigh-in and the travel week (issue 6); trends, units and charts, with golden SVGs (issue 7).
//!
//! The clock and zone are fixed (`WITHINGS_MCP_NOW`, `WITHINGS_TZ`), so every answer is
//! deterministic. Golden files live in fixtures/golden/; `UPDATE_GOLDEN=1 cargo test` rewrites
//! them, otherwise they are compared byte for byte.

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

use crate::fake::{Run, TempHome, bin, run};

/// 2026-03-15T12:00:00Z, 13:00 in Paris: "today" is 2026-03-15.
pub(crate) const NOW: i64 = 1_773_576_000;
const DAY: i64 = 86_400;
pub(crate) const TZ: &str = "Europe/Paris";
/// The 30 complete days before today.
const AFTER_30: &str = "2026-02-13";
const BEFORE_30: &str = "2026-03-14";
/// The demo's guest weigh-in (20 days back) and travel week (35 to 29 days back, New York).
const GUEST_DAY: &str = "2026-02-23";
const TRIP: (&str, &str) = ("2026-02-08", "2026-02-14");
/// The chart window of the golden charts (12 weeks).
pub(crate) const CHART_AFTER: &str = "2025-12-20";
pub(crate) const CHART_BEFORE: &str = "2026-03-14";

const LIST_TOOLS: [&str; 6] = [
    "withings_list_body_measures",
    "withings_list_heart",
    "withings_list_activity",
    "withings_list_workouts",
    "withings_list_sleep_summary",
    "withings_list_sleep",
];

pub(crate) const METRICS: [&str; 10] = [
    "weight",
    "fat_ratio",
    "fat_mass",
    "muscle_mass",
    "resting_hr",
    "systolic",
    "diastolic",
    "sleep_duration",
    "sleep_score",
    "steps",
];

/// The binary in demo mode with a clean environment, a temp HOME, a fixed clock and zone.
pub(crate) fn demo(home: &TempHome, now: i64, args: &[&str]) -> Command {
    let mut c = Command::new(bin());
    c.env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", &home.dir)
        .env("WITHINGS_MCP_NOW", now.to_string())
        .env("WITHINGS_TZ", TZ)
        .arg("--demo")
        .args(args);
    c
}

/// `--demo call TOOL --json ARGS` at `now`: the run (stdout is the structured result).
fn call_at(now: i64, tool: &str, args: &Value) -> Run {
    let home = TempHome::new("demo");
    let r = run(demo(&home, now, &["call", tool, "--json", &args.to_string()]));
    assert_no_bad_numbers(&r.stdout);
    r
}

/// A successful call's structured result.
fn call(tool: &str, args: Value) -> Value {
    let r = call_at(NOW, tool, &args);
    assert_eq!(r.code, 0, "{tool} {args}: {}", r.all());
    serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{tool}: not JSON ({e}): {}", r.stdout))
}

/// `--demo call TOOL --markdown` at `now`.
fn markdown_at(now: i64, tool: &str) -> String {
    let home = TempHome::new("demo-md");
    let r = run(demo(&home, now, &["call", tool, "--markdown"]));
    assert_eq!(r.code, 0, "{tool}: {}", r.all());
    r.stdout
}

/// `--demo call TOOL --json ARGS --markdown` at NOW: the markdown text.
fn call_md(tool: &str, args: &Value) -> String {
    let home = TempHome::new("demo-md");
    let r = run(demo(&home, NOW, &["call", tool, "--json", &args.to_string(), "--markdown"]));
    assert_eq!(r.code, 0, "{tool} {args}: {}", r.all());
    assert_no_bad_numbers(&r.stdout);
    assert!(!r.stdout.trim_start().starts_with('{'), "markdown, not JSON: {}", r.stdout);
    r.stdout
}

/// No NaN or infinity in any output (serde_json would refuse them, but text may carry them).
pub(crate) fn assert_no_bad_numbers(text: &str) {
    for bad in ["NaN", "Infinity", "inf,", "inf ", "inf\n"] {
        assert!(!text.contains(bad), "output contains {bad:?}: {text}");
    }
}

/// Compares `actual` with fixtures/golden/`name`, or rewrites it under `UPDATE_GOLDEN=1`.
pub(crate) fn golden(name: &str, actual: &[u8]) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/golden").join(name);
    if std::env::var("UPDATE_GOLDEN").as_deref() == Ok("1") {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read(&path)
        .unwrap_or_else(|e| panic!("{}: {e}; create it with UPDATE_GOLDEN=1 cargo test", path.display()));
    if expected != actual {
        let got = std::env::temp_dir().join(format!("golden-actual-{name}"));
        std::fs::write(&got, actual).unwrap();
        panic!(
            "{name} differs from the golden file (actual written to {}); if the change is intended, \
             look at it and regenerate with UPDATE_GOLDEN=1 cargo test",
            got.display()
        );
    }
}

fn num(v: &Value, what: &str) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("{what}: expected a number, got {v}"))
}

fn records(v: &Value) -> &Vec<Value> {
    v["records"].as_array().unwrap_or_else(|| panic!("no records: {v}"))
}

/// The record's local date (`local_date`, else `date`), as `YYYY-MM-DD`.
fn local_date(r: &Value) -> &str {
    r["local_date"].as_str().or(r["date"].as_str()).unwrap_or_else(|| panic!("no local date: {r}"))
}

// ---------------------------------------------------------------------------------------------
// Issue 6: briefs
// ---------------------------------------------------------------------------------------------

#[test]
fn daily_and_weekly_briefs_are_demo_and_deterministic() {
    let daily = call("withings_daily_summary", json!({}));
    assert_eq!(daily["demo"], true, "{daily}");
    assert_eq!((daily["kind"].as_str(), daily["date"].as_str()), (Some("daily_summary"), Some("2026-03-15")));
    assert_eq!(daily["is_today"], true);
    assert!(num(&daily["scorecard"]["weight_kg"], "weight") > 0.0, "{daily}");
    assert!(num(&daily["scorecard"]["steps"], "steps") > 0.0, "{daily}");

    let weekly = call("withings_weekly_summary", json!({}));
    assert_eq!(weekly["demo"], true, "{weekly}");
    assert_eq!(weekly["kind"], "weekly_summary");
    assert!(weekly["scorecard"].as_object().is_some_and(|s| !s.is_empty()), "{weekly}");

    // `make demo`'s two command lines: readable, non-empty briefs that say they are the demo.
    let demo_line = "> Demo account: synthetic data, not a real person's.";
    let daily_md = markdown_at(NOW, "withings_daily_summary");
    let weekly_md = markdown_at(NOW, "withings_weekly_summary");
    for (md, title, sections) in [
        (
            &daily_md,
            "# Withings daily brief: 2026-03-15",
            &["## Sleep", "## Activity", "## Body", "## Heart"][..],
        ),
        (&weekly_md, "# Withings weekly brief: 2026-03-09 to 2026-03-15", &["## Scorecard"][..]),
    ] {
        assert_eq!(md.lines().next(), Some(demo_line), "{md}");
        assert!(md.contains(title), "{md}");
        for s in sections {
            assert!(md.contains(s), "{s} missing: {md}");
        }
        assert!(!md.contains("{") && !md.contains("null"), "markdown, not JSON: {md}");
    }

    // Same NOW → the same bytes; both briefs are also golden.
    assert_eq!(markdown_at(NOW, "withings_daily_summary"), daily_md);
    assert_eq!(call_at(NOW, "withings_weekly_summary", &json!({})).stdout, {
        call_at(NOW, "withings_weekly_summary", &json!({})).stdout
    });
    golden("demo_daily_summary.md", daily_md.as_bytes());
    golden("demo_weekly_summary.md", weekly_md.as_bytes());
}

#[test]
fn today_moves_with_the_clock() {
    let later = NOW + 3 * DAY;
    let r = call_at(later, "withings_daily_summary", &json!({}));
    let daily: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!((daily["date"].as_str(), &daily["is_today"]), (Some("2026-03-18"), &json!(true)));
    let md = markdown_at(later, "withings_weekly_summary");
    assert!(md.contains("# Withings weekly brief: 2026-03-12 to 2026-03-18"), "{md}");

    // The same calendar day has data at the later clock, and none yet at NOW.
    let day = json!({"after": "2026-03-17", "before": "2026-03-17", "response_format": "json"});
    let now_rows: Value = serde_json::from_str(&call_at(NOW, "withings_list_activity", &day).stdout).unwrap();
    let later_rows: Value =
        serde_json::from_str(&call_at(later, "withings_list_activity", &day).stdout).unwrap();
    assert_eq!(now_rows["count"], 0, "{now_rows}");
    assert_eq!(later_rows["count"], 1, "{later_rows}");
}

// ---------------------------------------------------------------------------------------------
// Issue 6: list tools, guest weigh-in, travel week
// ---------------------------------------------------------------------------------------------

/// What a record of each list tool must look like.
fn check_shape(tool: &str, r: &Value) {
    let int = |k: &str| r[k].as_i64().unwrap_or_else(|| panic!("{tool}: `{k}` not an integer: {r}"));
    let text = |k: &str| r[k].as_str().unwrap_or_else(|| panic!("{tool}: `{k}` not a string: {r}"));
    match tool {
        "withings_list_body_measures" => {
            int("grpid");
            int("date");
            text("timezone");
            assert!(r["ambiguous"].is_boolean() && r["manual"].is_boolean(), "{r}");
            let measures = r["measures"].as_array().unwrap();
            assert!(!measures.is_empty(), "{r}");
            for m in measures {
                assert!(m["type"].is_i64() && m["name"].is_string() && m["unit"].is_string(), "{m}");
                assert!(num(&m["value"], "measure").is_finite(), "{m}");
            }
            if let Some(w) = measures.iter().find(|m| m["name"] == "weight") {
                assert!((40.0..130.0).contains(&num(&w["value"], "weight")), "{w}");
                assert_eq!(w["unit"], "kg");
            }
        }
        "withings_list_heart" => {
            assert!(["blood_pressure", "ecg", "ecg_blood_pressure"].contains(&text("type")), "{r}");
            int("timestamp");
            text("local_time");
        }
        "withings_list_activity" => {
            let steps = num(&r["steps"], "steps");
            assert!((0.0..100_000.0).contains(&steps), "{r}");
            text("timezone");
        }
        "withings_list_workouts" => {
            int("id");
            text("category_name");
            assert!(int("startdate") < int("enddate"), "{r}");
            assert!(int("duration") > 0, "{r}");
        }
        "withings_list_sleep_summary" => {
            assert!(int("startdate") < int("enddate"), "{r}");
            assert!(int("total_sleep_time") > 0 && int("total_sleep_time") <= int("time_in_bed"), "{r}");
            assert!((0..=100).contains(&int("sleep_score")), "{r}");
        }
        "withings_list_sleep" => {
            assert!(int("startdate") <= int("enddate"), "{r}");
            text("state_name");
        }
        _ => panic!("unknown tool {tool}"),
    }
}

#[test]
fn every_list_tool_answers_over_30_days() {
    for tool in LIST_TOOLS {
        let v = call(tool, json!({"after": AFTER_30, "before": BEFORE_30, "response_format": "json"}));
        assert_eq!(v["demo"], true, "{tool}");
        let rows = records(&v);
        assert!(!rows.is_empty(), "{tool}: no records");
        assert_eq!(v["count"].as_u64(), Some(rows.len() as u64), "{tool}");
        assert_eq!(v["range"]["zone"], TZ);
        for r in rows {
            check_shape(tool, r);
        }
        // Dated records stay inside the window (sleep detail carries instants only).
        if tool != "withings_list_sleep" {
            for r in rows {
                let d = local_date(r);
                assert!((AFTER_30..=BEFORE_30).contains(&d), "{tool}: {d} outside the window");
            }
        }
    }
}

#[test]
fn guest_weigh_in_is_flagged_ambiguous() {
    let day = json!({"after": GUEST_DAY, "before": GUEST_DAY, "response_format": "json"});
    let v = call("withings_list_body_measures", day);
    let weights: Vec<(bool, f64)> = records(&v)
        .iter()
        .filter_map(|r| {
            let w = r["measures"].as_array()?.iter().find(|m| m["name"] == "weight")?;
            Some((r["ambiguous"].as_bool()?, w["value"].as_f64()?))
        })
        .collect();
    assert_eq!(weights.len(), 2, "the person and the guest: {v}");
    let guest: Vec<_> = weights.iter().filter(|(amb, _)| *amb).collect();
    assert_eq!(guest.len(), 1, "{weights:?}");
    assert!((guest[0].1 - 54.2).abs() < 0.01, "{weights:?}");

    // Over 30 days, the guest is the only ambiguous group, and the brief's trend ignores it.
    let month = call(
        "withings_list_body_measures",
        json!({"after": AFTER_30, "before": BEFORE_30, "response_format": "json"}),
    );
    let ambiguous = records(&month).iter().filter(|r| r["ambiguous"] == true).count();
    assert_eq!(ambiguous, 1);
    let trend = call("withings_trends", json!({"metric": "weight", "after": AFTER_30, "before": BEFORE_30}));
    let min =
        trend["series"].as_array().unwrap().iter().map(|p| num(&p["value"], "v")).fold(f64::MAX, f64::min);
    assert!(min > 70.0, "the guest's 54.2 kg is not the person's: {trend}");
}

#[test]
fn travel_week_records_carry_new_york_times() {
    let window = json!({"after": "2026-02-01", "before": "2026-02-21", "response_format": "json"});
    for tool in [
        "withings_list_body_measures",
        "withings_list_activity",
        "withings_list_workouts",
        "withings_list_sleep_summary",
    ] {
        let v = call(tool, window.clone());
        let mut in_trip = 0;
        for r in records(&v) {
            let d = local_date(r);
            let zone = r["timezone"].as_str().unwrap_or_else(|| panic!("{tool}: no timezone: {r}"));
            let local = r["local_time"].as_str().or(r["local_start"].as_str());
            let trip = (TRIP.0..=TRIP.1).contains(&d);
            let (want_zone, want_offset) =
                if trip { ("America/New_York", "-05:00") } else { ("Europe/Paris", "+01:00") };
            assert_eq!(zone, want_zone, "{tool} on {d}: {r}");
            if let Some(t) = local {
                assert!(t.ends_with(want_offset), "{tool} on {d}: {t}");
            }
            in_trip += usize::from(trip);
        }
        assert!(in_trip >= 5, "{tool}: only {in_trip} records in the travel week");
    }
}

#[test]
fn list_answers_are_deterministic() {
    for tool in LIST_TOOLS {
        let args = json!({"after": AFTER_30, "before": BEFORE_30, "response_format": "json"});
        let a = call_at(NOW, tool, &args).stdout;
        let b = call_at(NOW, tool, &args).stdout;
        assert!(!a.is_empty() && a == b, "{tool}: two runs differ");
    }
}

// ---------------------------------------------------------------------------------------------
// Issue 7: trends on the demo account
// ---------------------------------------------------------------------------------------------

/// The checks every trend answer must pass, whatever the metric.
fn check_trend(metric: &str, t: &Value) {
    assert_eq!(t["metric"], metric);
    assert_eq!(t["demo"], true);
    let verdict = t["verdict"].as_str().unwrap();
    assert!(["rising", "falling", "stable", "not_enough_data"].contains(&verdict), "{t}");
    assert!(t["method"].as_str().is_some_and(|m| !m.is_empty()), "{t}");
    assert!(t["reason"].as_str().is_some_and(|m| !m.is_empty()), "{t}");
    assert_eq!(t["window"]["zone"], TZ);
    assert!(t["window"]["after"].is_string() && t["window"]["before"].is_string(), "{t}");
    assert!(t["as_of"].as_str().is_some_and(|s| s.starts_with("2026-03-15T13:00:00+01:00")), "{t}");
    for k in ["n_readings", "n_used", "n_rejected"] {
        assert!(t[k].is_u64(), "{metric}: `{k}` {t}");
    }
    let listed = t["rejected"].as_array().map(|r| r.len() as u64);
    assert_eq!(listed, t["n_rejected"].as_u64(), "{metric}: rejected list vs n_rejected");
    assert!(t["unit"].is_string());
    if verdict == "not_enough_data" {
        return;
    }
    assert!(t["n_used"].as_u64().unwrap() >= 3, "{t}");
    num(&t["latest"], "latest");
    num(&t["trend_change"], "trend_change");
    let s = &t["slope_per_week"];
    let (v, lo, hi) = (num(&s["value"], "slope"), num(&s["lower"], "lower"), num(&s["upper"], "upper"));
    assert!(lo <= v && v <= hi, "{metric}: {s}");
    assert!(s["unit"].as_str().is_some_and(|u| u.ends_with("per week") && !u.starts_with(' ')), "{s}");
    let series = t["series"].as_array().unwrap();
    assert_eq!(series.len() as u64, t["n_used"].as_u64().unwrap(), "{metric}");
    for p in series {
        num(&p["value"], "series value");
        num(&p["trend"], "series trend");
    }
}

#[test]
fn trends_answer_for_every_metric() {
    for metric in METRICS {
        let t = call("withings_trends", json!({"metric": metric, "response_format": "json"}));
        check_trend(metric, &t);
        assert!(t["n_used"].as_u64().unwrap() >= 40, "{metric}: 90 days hold plenty of readings: {t}");
        let verdict = t["verdict"].as_str().unwrap();
        // The synthetic person loses weight (mostly fat) steadily; everything else is noise.
        let allowed: &[&str] = match metric {
            "weight" | "fat_mass" => &["falling"],
            "fat_ratio" | "muscle_mass" => &["falling", "stable"],
            _ => &["stable"],
        };
        assert!(allowed.contains(&verdict), "{metric}: {verdict}: {}", t["reason"]);
        match metric {
            "weight" => assert!(t["recomposition"]["class"].is_string(), "{t}"),
            "sleep_duration" | "sleep_score" => {
                let r = &t["sleep_regularity"];
                assert!(r["timing"]["nights"].as_u64().unwrap() > 30, "{r}");
                assert!((0.0..=100.0).contains(&num(&r["sri"]["value"], "sri")), "{r}");
            }
            _ => {}
        }
    }
}

#[test]
fn weight_falls_over_the_last_12_weeks() {
    let t = call(
        "withings_trends",
        json!({"metric": "weight", "after": "2025-12-21", "before": "2026-03-15", "response_format": "json"}),
    );
    check_trend("weight", &t);
    assert_eq!(t["verdict"], "falling", "{}", t["reason"]);
    let s = &t["slope_per_week"];
    assert!(num(&s["upper"], "upper") < 0.0, "{s}");
    assert!((-0.4..-0.1).contains(&num(&s["value"], "slope")), "about 0.25 kg a week: {s}");
    assert!(num(&t["trend_change"], "change") < -2.0, "{t}");
    assert_eq!(s["unit"], "kg per week");
}

#[test]
fn trends_are_reproducible() {
    for args in [json!({"metric": "weight"}), json!({"metric": "sleep_duration", "response_format": "json"})]
    {
        let a = call_at(NOW, "withings_trends", &args).stdout;
        let b = call_at(NOW, "withings_trends", &args).stdout;
        assert!(!a.is_empty() && a == b, "{args}: two runs differ");
    }
}

#[test]
fn units_change_labels_and_values() {
    let get = |metric: &str, units: &str| {
        call("withings_trends", json!({"metric": metric, "units": units, "response_format": "json"}))
    };
    let metric = get("weight", "metric");
    let lb_per_kg = 2.204_622_6;
    for units in ["imperial", "uk"] {
        let t = get("weight", units);
        check_trend("weight", &t);
        assert_eq!((t["unit"].as_str(), t["units"].as_str()), (Some("lb"), Some(units)), "{t}");
        assert_eq!(t["slope_per_week"]["unit"], "lb per week");
        assert_eq!(t["verdict"], metric["verdict"]);
        for key in ["latest", "trend_change"] {
            let (kg, lb) = (num(&metric[key], key), num(&t[key], key));
            assert!((kg * lb_per_kg - lb).abs() < 0.05, "{units} {key}: {kg} kg vs {lb} lb");
        }
        let (kg0, lb0) = (num(&metric["series"][0]["value"], "v"), num(&t["series"][0]["value"], "v"));
        assert!((kg0 * lb_per_kg - lb0).abs() < 0.05, "{kg0} {lb0}");
        let rc = &t["recomposition"];
        assert_eq!(rc["unit"], "lb", "{rc}");
        let band = num(&rc["band"], "band");
        assert!((num(&metric["recomposition"]["band"], "band") * lb_per_kg - band).abs() < 0.1, "{rc}");

        // A quantity without a unit system keeps its unit and values.
        let (bp_m, bp_u) = (get("systolic", "metric"), get("systolic", units));
        assert_eq!((bp_u["unit"].as_str(), &bp_u["latest"]), (Some("mmHg"), &bp_m["latest"]));
    }
    // The markdown speaks the same unit.
    let md = call_md("withings_trends", &json!({"metric": "weight", "units": "imperial"}));
    assert!(md.contains(" lb") && !md.contains(" kg"), "{md}");
    // In the UK a body weight reads in stones and pounds (the JSON stays pounds and says so).
    let uk = get("weight", "uk");
    assert_eq!((uk["unit"].as_str(), uk["display_unit"].as_str()), (Some("lb"), Some("st lb")), "{uk}");
    assert_eq!(get("weight", "imperial")["display_unit"], "lb");
    assert_eq!(get("systolic", "uk")["display_unit"], "mmHg");
    let lb = num(&uk["latest"], "latest");
    let st = (lb / 14.0).floor();
    let md = call_md("withings_trends", &json!({"metric": "weight", "units": "uk"}));
    let latest = format!("- Latest trend value: {st} st {:.1} lb\n", lb - st * 14.0);
    assert!(md.contains(&latest.replace(".0 lb", " lb")), "{latest}\n{md}");
    assert!(md.contains("- Trend change over the window: ") && !md.contains(" kg"), "{md}");
}

#[test]
fn bad_trend_arguments_name_the_argument() {
    let cases = [
        (json!({"metric": "bmi"}), "metric"),
        (json!({"metric": "weight", "units": "furlongs"}), "units"),
        (json!({"metric": "weight", "after": "2026-13-01"}), "after"),
        (json!({"metric": "weight", "extra": 1}), "extra"),
        (json!({}), "metric"),
    ];
    for (args, name) in cases {
        let r = call_at(NOW, "withings_trends", &args);
        assert_eq!(r.code, 1, "{args}: {}", r.all());
        let v: Value = serde_json::from_str(&r.stdout).unwrap();
        assert_eq!(v["error"]["argument"], name, "{args}: {v}");
        assert!(v["error"]["message"].as_str().unwrap().contains(&format!("`{name}`")), "{v}");
        assert!(r.stderr.contains(name), "{}", r.stderr);
    }
}

#[test]
fn tiny_windows_are_not_enough_data() {
    // Dates of single readings, from the tool's own series (the demo skips some days).
    let t = call("withings_trends", json!({"metric": "weight", "response_format": "json"}));
    let dates: Vec<&str> =
        t["series"].as_array().unwrap().iter().map(|p| p["date"].as_str().unwrap()).collect();
    let (d1, d2) = dates.windows(2).find(|w| w[0] != w[1]).map(|w| (w[0], w[1])).unwrap();
    let cases = [("2024-01-01", "2024-01-31", 0), (d1, d1, 1), (d1, d2, 2)];
    for (after, before, n) in cases {
        for units in ["metric", "imperial"] {
            let args = json!({"metric": "weight", "after": after, "before": before, "units": units, "response_format": "json"});
            let t = call("withings_trends", args.clone());
            check_trend("weight", &t);
            assert_eq!(t["verdict"], "not_enough_data", "{args}: {t}");
            assert_eq!(t["n_used"], n, "{args}: {t}");
            let md =
                call_md("withings_trends", &json!({"metric": "weight", "after": after, "before": before}));
            assert!(md.contains("not enough data"), "{md}");
        }
        // The chart of a tiny window is still a well-formed SVG.
        let home = TempHome::new("chart-tiny");
        let r = run(demo(&home, NOW, &["chart", "weight", "--after", after, "--before", before]));
        assert_eq!(r.code, 0, "{}", r.all());
        assert_no_bad_numbers(&r.stdout);
        assert!(r.stdout.starts_with("<svg") && r.stdout.trim_end().ends_with("</svg>"), "{}", r.stdout);
    }
}
