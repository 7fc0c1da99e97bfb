//! Issue 17: every number a person reads in a brief or a list is in, or derived from, the
//! structured answer of the same call; and the prose keeps its grammar (plurals, punctuation).
//!
//! The demo account is read over stdio for 30 consecutive days, in the three unit systems and
//! four zones: east of UTC+12 (Kiritimati, +14), a 45-minute offset (Kathmandu), west of UTC
//! (Bogotá) and one with DST (Paris). Each markdown number must match a numeric field of the
//! structured answer (as is, converted to the call's units, rounded), a difference of two of
//! them, or a template constant listed below with its reason. A number inside a free-text field
//! of the JSON accounts for nothing. A duration ("7 h 18 min", "45 min") is one quantity read
//! whole and derived from one field; a mass in stones and pounds likewise; a clock time
//! ("23:02") must be a time field of the answer (its whole value, or the time of a timestamp).

use std::collections::BTreeSet;

use serde_json::{Value, json};

use crate::stdio::{lines, req, run};

/// 2026-03-15T12:00:00Z.
const START: i64 = 1_773_576_000;
const DAY: i64 = 86_400;
const DAYS: i64 = 30;
const ZONES: [&str; 4] = ["Pacific/Kiritimati", "Asia/Kathmandu", "America/Bogota", "Europe/Paris"];
const UNITS: [&str; 3] = ["metric", "imperial", "uk"];
const TOOLS: [&str; 8] = [
    "withings_daily_summary",
    "withings_weekly_summary",
    "withings_list_body_measures",
    "withings_list_heart",
    "withings_list_activity",
    "withings_list_workouts",
    "withings_list_sleep_summary",
    "withings_list_sleep",
];

/// Numbers written into the templates themselves, each with why it may appear.
const CONSTANTS: [(f64, &str); 9] = [
    (130.0, "the 130/80 mmHg blood-pressure threshold"),
    (80.0, "the 130/80 mmHg blood-pressure threshold"),
    (100.0, "a sleep score is out of 100"),
    (95.0, "95% intervals"),
    (7.0, "'5 of 7 nights', a week, 'a step toward 7 h'"),
    (5.0, "'at least 5 of 7', 'after 5 minutes of rest'"),
    (3.0, "'3 mornings', 'median of the last 3'"),
    (20.0, "'20–30 minute walk', 'after 20 minutes awake'"),
    (30.0, "'the calmest 30 minutes of sleep'"),
];

/// Durations written into the templates, in minutes.
const MINUTES: [(f64, &str); 2] =
    [(30.0, "'30 min earlier', 'within 30 min of'"), (390.0, "'below 6 h 30 min'")];

fn numbers_in(text: &str) -> Vec<(f64, usize)> {
    // (value, decimals) of every number token: digits with optional thousands commas and a
    // fraction; a leading '-' or '−' belongs to it when it is not a range dash.
    let mut out = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if chars[i].is_ascii_digit() && (i == 0 || !chars[i - 1].is_ascii_alphanumeric()) {
            let start = i;
            let mut s = String::new();
            while i < chars.len()
                && (chars[i].is_ascii_digit()
                    // A thousands comma: exactly three digits follow ("9,210", not "1, 2").
                    || (chars[i] == ','
                        && chars.get(i + 1).is_some_and(char::is_ascii_digit)
                        && chars.get(i + 3).is_some_and(char::is_ascii_digit)
                        && !chars.get(i + 4).is_some_and(char::is_ascii_digit))
                    || (chars[i] == '.' && chars.get(i + 1).is_some_and(char::is_ascii_digit)))
            {
                if chars[i] != ',' {
                    s.push(chars[i]);
                }
                i += 1;
            }
            if i < chars.len() && chars[i].is_ascii_alphabetic() && chars[i] != 'h' && chars[i] != 's' {
                continue; // part of a word ("ECG2", "1st")
            }
            let neg = start > 0
                && matches!(chars[start - 1], '-' | '−')
                && (start < 2 || chars[start - 2] == ' ' || chars[start - 2] == '(');
            let dp = s.split_once('.').map_or(0, |(_, f)| f.len());
            if let Ok(v) = s.parse::<f64>() {
                out.push((if neg { -v } else { v }, dp));
            }
        } else {
            i += 1;
        }
    }
    out
}

/// What the structured answer can account for, in the call's `units`: plain numbers, durations
/// in minutes, masses in pounds and clock times.
#[derive(Default)]
struct Sources {
    numbers: Vec<f64>,
    minutes: Vec<f64>,
    /// Pounds as intervals: the text converts the unrounded mass, known to the JSON's precision
    /// (a mass there has 2 decimals, ±0.005 kg), so a pound figure is derived when it falls in
    /// the converted interval.
    pounds: Vec<(f64, f64)>,
    /// Differences of two such masses in pounds, each side rounded as shown: (value, half-width
    /// from the JSON's precision); the display rounding of both sides is added when checking.
    pound_changes: Vec<(f64, f64)>,
    times: BTreeSet<String>,
}

/// Half the last decimal of a mass in the answers (2 decimals; a change has 3, within this).
const KG_PRECISION: f64 = 0.005;

fn sources(v: &Value, units: &str) -> Sources {
    let mut leaves = Vec::new();
    let mut texts = Vec::new();
    collect(v, "", &mut leaves, &mut texts);
    let lb = 1.0 / 0.453_592_37;
    let mi = 1.0 / 1.609_344;
    let mut out = Sources::default();
    for (key, x) in &leaves {
        out.numbers.extend([*x, -x, x.abs()]);
        // Conversions only where the field is that quantity (its name, or a sibling `unit`).
        let mass = ["kg", "mass", "weight"].iter().any(|k| key.contains(k));
        if mass && units != "metric" {
            let (lo, hi) = ((x - KG_PRECISION) * lb, (x + KG_PRECISION) * lb);
            out.pounds.extend([(lo, hi), (-hi, -lo)]);
        }
        if ["distance", "km", "@m", "elevation"].iter().any(|k| key.contains(k)) {
            out.numbers.extend([x * mi, x / 1000.0, x / 1000.0 * mi, x * 1000.0]);
        }
        // A duration from a field in minutes, hours or seconds.
        out.minutes.extend([x.abs(), x.abs() * 60.0, x.abs() / 60.0]);
    }
    // Differences of the two sides of a comparison (scorecard current and previous), in
    // display units and as the difference of the values shown.
    for (key, a) in leaves.iter().filter(|(k, _)| k.contains("/current/")) {
        let other = key.replace("/current/", "/previous/");
        for (_, b) in leaves.iter().filter(|(k, _)| *k == other) {
            out.numbers.push(a - b);
            for dp in [0, 1, 2] {
                let r = |v: f64| (v * 10f64.powi(dp)).round() / 10f64.powi(dp);
                out.numbers.push(r(*a) - r(*b));
            }
            // In pounds: each side converted within its precision, then rounded to 0.01 lb.
            if units != "metric" && key.contains("weight") {
                out.pound_changes.push(((a - b) * lb, 2.0 * KG_PRECISION * lb));
            }
        }
    }
    // A time field ("23:02") or the local time of a timestamp ("2026-03-15T07:12:00+01:00").
    for t in texts {
        let time = t.split_once('T').map_or(t.as_str(), |(_, time)| time);
        if time.len() >= 5 && time.as_bytes().get(2) == Some(&b':') && !t.contains(' ') {
            out.times.insert(time[..5].to_string());
        }
    }
    for list in [&mut out.numbers, &mut out.minutes] {
        list.retain(|x| x.is_finite());
        list.sort_by(f64::total_cmp);
    }
    out
}

/// Numeric leaves by path, and every string leaf (read only as a possible time, never for the
/// numbers in its words).
fn collect(v: &Value, path: &str, out: &mut Vec<(String, f64)>, texts: &mut Vec<String>) {
    match v {
        Value::Number(n) => out.push((path.to_string(), n.as_f64().unwrap_or(0.0))),
        Value::String(s) => texts.push(s.clone()),
        Value::Array(a) => a.iter().for_each(|x| collect(x, path, out, texts)),
        Value::Object(m) => {
            // A value beside its unit ({"value": 72.45, "unit": "kg"}) is known by that unit.
            let unit = m.get("unit").and_then(Value::as_str).map(|u| format!("@{u}")).unwrap_or_default();
            m.iter().for_each(|(k, x)| collect(x, &format!("{path}/{k}{unit}"), out, texts))
        }
        _ => {}
    }
}

/// Whether a sorted list holds a value within `tolerance` of `x`.
fn near(x: f64, tolerance: f64, sorted: &[f64]) -> bool {
    let from = sorted.partition_point(|s| *s < x - tolerance);
    sorted.get(from).is_some_and(|s| *s <= x + tolerance)
}

/// Whether `x` is within `tolerance` of one of the intervals.
fn within(x: f64, tolerance: f64, intervals: &[(f64, f64)]) -> bool {
    intervals.iter().any(|(lo, hi)| x >= lo - tolerance && x <= hi + tolerance)
}

/// True when `x`, shown with `dp` decimals, is a constant or rounds from a source.
fn accounted(x: f64, dp: usize, sources: &Sources) -> bool {
    let tolerance = 0.5 * 10f64.powi(-(dp as i32)) + 1e-9;
    CONSTANTS.iter().any(|(c, _)| (*c - x).abs() < 1e-9)
        || near(x, tolerance, &sources.numbers)
        || within(x, tolerance, &sources.pounds)
        // A difference of two values each rounded as shown: twice the rounding, plus precision.
        || sources.pound_changes.iter().any(|(c, w)| (x - c).abs() <= w + 2.0 * tolerance)
}

/// The quantities of a line that are read whole: durations ("7 h 18 min", "45 min"), masses
/// in stones and pounds ("11 st 5.7 lb") and clock times ("23:02"). Each is checked against its
/// kind of source, and the line comes back without them for the plain numbers.
fn compounds(line: &str, sources: &Sources) -> (String, Vec<String>) {
    let words: Vec<&str> = line.split(' ').collect();
    let num = |i: usize| -> Option<f64> {
        let w = words.get(i)?.trim_start_matches(['(', '-', '−', '+']);
        w.replace(',', "").parse().ok()
    };
    let word = |i: usize| words.get(i).map(|w| w.trim_end_matches([',', '.', ')', ';', ':']));
    let (mut rest, mut problems, mut i) = (Vec::new(), Vec::new(), 0);
    while i < words.len() {
        let minutes_ok = |m: f64| {
            MINUTES.iter().any(|(c, _)| (*c - m).abs() < 1e-9)
                // A field in hours to 0.01 h is known to 0.6 min.
                || near(m, 0.81, &sources.minutes)
        };
        match (num(i), word(i + 1), num(i + 2), word(i + 3)) {
            (Some(h), Some("h"), Some(m), Some("min")) => {
                if !minutes_ok(h * 60.0 + m) {
                    problems.push(format!("{h} h {m} min"));
                }
                i += 4;
            }
            (Some(st), Some("st"), Some(p), Some("lb")) => {
                if !within(st * 14.0 + p, 0.051, &sources.pounds) {
                    problems.push(format!("{st} st {p} lb"));
                }
                i += 4;
            }
            (Some(m), Some("min"), _, _) => {
                if !minutes_ok(m) {
                    problems.push(format!("{m} min"));
                }
                i += 2;
            }
            _ => {
                let core = words[i].trim_matches(|c: char| !c.is_ascii_alphanumeric());
                // "23:02", or "07:12:00+01:00" after a date: a clock time, with seconds and offset.
                let clock = core.get(..5).filter(|c| {
                    c.as_bytes()[2] == b':'
                        && c.chars().filter(char::is_ascii_digit).count() == 4
                        && core.chars().all(|c| c.is_ascii_digit() || matches!(c, ':' | '+' | '-'))
                });
                let is_date = core.len() == 10 && core.matches('-').count() == 2;
                let is_stamp = core.contains('T') && core.contains(':');
                if let Some(clock) = clock {
                    if !sources.times.contains(clock) {
                        problems.push(format!("time {core}"));
                    }
                } else if !(is_date || is_stamp || words[i].contains('–')) {
                    rest.push(words[i]);
                }
                i += 1;
            }
        }
    }
    (rest.join(" "), problems)
}

/// Plurals and punctuation a careful reader would stumble on.
fn grammar(line: &str) -> Option<&'static str> {
    let words: Vec<&str> = line.split(|c: char| c.is_whitespace()).collect();
    for w in words.windows(2) {
        if w[0] == "1"
            && ["days", "nights", "wake-ups", "weigh-ins", "readings", "records", "steps", "accounts"]
                .contains(&w[1].trim_end_matches([',', '.', ')', ';']))
        {
            return Some("a plural after 1");
        }
    }
    for bad in [".)", "..", ",,", " ,", ";;", " .", "(s)", "0 of 0"] {
        if line.contains(bad) && !line.contains("...") {
            return Some("doubled or stray punctuation, or a non-count");
        }
    }
    None
}

fn session(now: i64, zone: &str) -> Vec<Value> {
    let mut messages = vec![
        json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"it","version":"1"}}}),
    ];
    let mut id = 1;
    for units in UNITS {
        for tool in TOOLS {
            let mut args = json!({"units": units});
            if tool.starts_with("withings_list") {
                args["limit"] = json!(15);
            }
            messages.push(req(id, "tools/call", json!({"name": tool, "arguments": args})));
            id += 1;
        }
    }
    let env = [("WITHINGS_DEMO", "1"), ("WITHINGS_TZ", zone)];
    let now = now.to_string();
    let mut env: Vec<(&str, &str)> = env.to_vec();
    env.push(("WITHINGS_MCP_NOW", &now));
    run(&lines(&messages), &env).replies
}

#[test]
fn every_number_in_briefs_and_lists_comes_from_the_structured_answer() {
    let mut failures = BTreeSet::new();
    let mut checked = 0usize;
    for day in 0..DAYS {
        let now = START + day * DAY + (day % 4) * 5 * 3600;
        for zone in ZONES {
            let replies = session(now, zone);
            for (i, reply) in replies.iter().skip(1).enumerate() {
                let (units, tool) = (UNITS[i / TOOLS.len()], TOOLS[i % TOOLS.len()]);
                let result = &reply["result"];
                if result["isError"] == true {
                    let text = result["content"][0]["text"].as_str().unwrap_or("");
                    failures.insert(format!("{tool}: an error at {now} in {zone}: {text}"));
                    continue;
                }
                let markdown = result["content"][0]["text"].as_str().unwrap_or("");
                let structured = &result["structuredContent"];
                let known = sources(structured, units);
                for line in markdown.lines() {
                    if let Some(why) = grammar(line) {
                        failures.insert(format!("{tool}: {why}: {line}"));
                    }
                    // Dates, times and the method's prose are words, not figures.
                    if line.starts_with("Method:") || line.starts_with("> ") {
                        continue;
                    }
                    let (plain, problems) = compounds(line, &known);
                    checked += problems.len();
                    for p in problems {
                        failures.insert(format!("{tool} ({units}): {p} unaccounted in: {line}"));
                    }
                    for (x, dp) in numbers_in(&plain) {
                        checked += 1;
                        if !accounted(x, dp, &known) {
                            failures.insert(format!("{tool} ({units}): {x} unaccounted in: {line}"));
                        }
                    }
                }
            }
        }
    }
    assert!(checked > 10_000, "only {checked} numbers were checked");
    assert!(
        failures.is_empty(),
        "{} problems:\n{}",
        failures.len(),
        failures.into_iter().take(60).collect::<Vec<_>>().join("\n")
    );
}

/// The checker itself fails where it should: a number with no source, a number found only in a
/// free-text field, a duration or a time that no field gives, a plural after 1, a doubled full
/// stop; and accepts what is derived (grouping, pounds, h/min, st/lb, a shown change).
#[test]
fn the_checker_catches_what_it_is_for() {
    let v = json!({"steps": 9210, "weight_kg": 76.47, "asleep_h": 7.42, "bedtime": "23:02",
        "start": "2026-03-15T07:12:00+01:00", "why": "your median of 9,500 steps at 22:45 over 6 h 10 min",
        "scorecard": {"current": {"latest_weight_kg": 76.47}, "previous": {"latest_weight_kg": 76.74}}});
    let known = sources(&v, "imperial");
    let ok = |text: &str| {
        let (plain, problems) = compounds(text, &known);
        problems.is_empty() && numbers_in(&plain).into_iter().all(|(x, dp)| accounted(x, dp, &known))
    };
    assert!(ok("9,210 steps, 168.59 lb, 7 h 25 min, change -0.59 lb, in bed at 23:02, up at 07:12"));
    assert!(ok("12 st 0.6 lb on 2026-03-15"));
    assert!(!ok("9,500 steps"), "a number only in a free-text field");
    assert!(!ok("168.61 lb"), "a wrong conversion");
    assert!(!ok("6 h 10 min"), "a duration only in a free-text field");
    assert!(!ok("7 h 45 min"), "a duration from no field");
    assert!(!ok("asleep by 22:45"), "a time only in a free-text field");
    assert!(!ok("12 st 3 lb"), "a mass from no field");
    assert!(!ok("on 6 days"), "a small count from no field");
    assert_eq!(grammar("weight on 1 days"), Some("a plural after 1"));
    assert!(grammar("(a nap does not count.)").is_some());
    assert!(grammar("0 of 0 complete days").is_some());
    assert_eq!(grammar("sleep on 6 of 7 nights, 1 day"), None);
}
