//! `withings-mcp export` end to end: the real binary against a fake Withings that holds 16 months
//! of one person's data, answers only the range and page it is asked for (getmeas newest first,
//! like Withings), and refuses a sleep-detail window over 7 days.

use std::collections::HashMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use withings_mcp::domain::table::UNITS;
use withings_mcp::domain::time::CivilDate;

use crate::data::World;
use crate::fake::{Fault, Recorded, Run, run};

const DAY: i64 = 86_400;
/// 2024-11-01T00:00:00Z, the first day of data.
const FIRST: i64 = 1_730_419_200;
const DAYS: i64 = 495;
/// Noon UTC of the day after the last day of data.
const NOW: i64 = FIRST + DAYS * DAY + 12 * 3600;
const PAGE: usize = 40;
/// Sleep is recorded only in the last 60 days: each 7-day window of detail is a request, and
/// the fake answers loopback requests in tens of milliseconds.
const FIRST_NIGHT: i64 = DAYS - 60;
const SEGMENTS_A_NIGHT: i64 = 15;

fn ymd(day: i64) -> String {
    CivilDate::from_days(FIRST / DAY + day).to_string()
}

/// Every record the fake holds, per action, in time order.
fn measure_groups() -> Vec<Value> {
    let mut v: Vec<Value> = (0..DAYS)
        .filter(|d| d % 5 != 4)
        .map(|d| {
            let t = FIRST + d * DAY + 6 * 3600;
            json!({"grpid": 100_000 + d, "attrib": 0, "date": t, "created": t + 60, "modified": t + 60, "category": 1,
                   "deviceid": "dev-scale", "model": "Body Cardio", "modelid": 6, "comment": if d == 3 { json!("after a run, \"tired\"") } else { Value::Null },
                   "measures": [{"value": 80_000 - d * 7, "type": 1, "unit": -3}, {"value": 2200 + d % 40, "type": 6, "unit": -2}]})
        })
        .collect();
    v.extend((0..DAYS).filter(|d| d % 7 == 2).map(|d| {
        let t = FIRST + d * DAY + 19 * 3600;
        json!({"grpid": 200_000 + d, "attrib": 0, "date": t, "created": t, "modified": t, "category": 1, "model": "BPM Connect",
               "measures": [{"value": 120 + d % 9, "type": 10, "unit": 0}, {"value": 78, "type": 9, "unit": 0}, {"value": 64, "type": 11, "unit": 0}]})
    }));
    v.sort_by_key(|g| g["date"].as_i64());
    v
}

fn heart_records() -> Vec<Value> {
    (0..DAYS)
        .filter(|d| d % 10 == 0)
        .map(|d| {
            let t = FIRST + d * DAY + 9 * 3600;
            match d % 20 {
                0 => json!({"timestamp": t, "heart_rate": 61, "model": 93, "deviceid": "dev-watch", "ecg": {"signalid": 900 + d, "afib": 0}, "modified": t}),
                _ => json!({"timestamp": t, "heart_rate": 66, "model": 44, "bloodpressure": {"diastole": 79, "systole": 121}, "modified": t}),
            }
        })
        .collect()
}

fn activity_days() -> Vec<Value> {
    (0..DAYS)
        .map(|d| {
            json!({"date": ymd(d), "timezone": "Europe/Paris", "deviceid": "dev-watch", "brand": 1, "is_tracker": true, "model": "ScanWatch",
                   "modelid": 93, "steps": 6000 + d * 11 % 5000, "distance": 4200.5 + d as f64, "elevation": 7, "soft": 3600, "moderate": 1500,
                   "intense": 600, "active": 2100, "calories": 410.5, "totalcalories": 2290.25, "hr_average": 71, "hr_min": 52, "hr_max": 148,
                   "hr_zone_0": 45000, "hr_zone_1": 3200, "hr_zone_2": 900, "hr_zone_3": 120, "modified": FIRST + (d + 1) * DAY})
        })
        .collect()
}

fn workouts() -> Vec<Value> {
    (0..DAYS)
        .filter(|d| d % 3 == 0)
        .map(|d| {
            let t = FIRST + d * DAY + 16 * 3600;
            json!({"id": 300_000 + d, "category": 2, "timezone": "Europe/Paris", "model": 93, "attrib": 0, "startdate": t, "enddate": t + 2400,
                   "date": ymd(d), "modified": t + 3000, "deviceid": "dev-watch",
                   "data": {"calories": 300, "distance": 6400, "steps": 5000, "elevation": 24, "hr_average": 140, "hr_min": 98, "hr_max": 176,
                            "intensity": 0, "pause_duration": 0}})
        })
        .collect()
}

fn nights() -> Vec<Value> {
    (FIRST_NIGHT..DAYS)
        .map(|d| {
            let (start, end) = (FIRST + d * DAY - 3600, FIRST + d * DAY + 6 * 3600 + 1800);
            json!({"id": 400_000 + d, "timezone": "Europe/Paris", "model": 32, "model_id": 63, "startdate": start, "enddate": end,
                   "date": ymd(d), "created": end + 600, "modified": end + 600, "completed": true,
                   "data": {"total_timeinbed": 27000, "total_sleep_time": 25200 - d % 30 * 60, "deepsleepduration": 6000,
                            "lightsleepduration": 13800, "remsleepduration": 5400, "wakeupcount": 2, "sleep_score": 70 + d % 20,
                            "hr_average": 58, "rr_average": 14, "snoring": 840}})
        })
        .collect()
}

fn segments() -> Vec<Value> {
    (FIRST_NIGHT..DAYS)
        .flat_map(|d| {
            (0..SEGMENTS_A_NIGHT).map(move |i| {
                let s = FIRST + d * DAY - 3600 + i * 1800;
                json!({"startdate": s, "enddate": s + 1800, "state": i % 4, "model": "Sleep Analyzer", "model_id": 63,
                       "hr": {s.to_string(): 55 + i % 5, (s + 900).to_string(): 56}, "rr": {s.to_string(): 14}})
            })
        })
        .collect()
}

fn num(rec: &Recorded, key: &str) -> Option<i64> {
    rec.get(key).map(|s| s.parse().unwrap())
}

/// The rows of `all` in the request's range (`at` gives a row's instant or day), paged.
fn answer(
    all: &[Value],
    rec: &Recorded,
    list_key: &str,
    newest_first: bool,
    at: fn(&Value) -> Value,
) -> Value {
    let mut rows: Vec<Value> = all
        .iter()
        .filter(|r| {
            match (num(rec, "startdate"), num(rec, "enddate"), rec.get("startdateymd"), rec.get("enddateymd"))
            {
                (Some(s), Some(e), _, _) => (s..=e).contains(&at(r).as_i64().unwrap()),
                (_, _, Some(s), Some(e)) => (s..=e).contains(&at(r).as_str().unwrap()),
                _ => panic!("no range in {rec:?}"),
            }
        })
        .cloned()
        .collect();
    if newest_first {
        rows.reverse();
    }
    let off = num(rec, "offset").unwrap_or(0) as usize;
    let end = (off + PAGE).min(rows.len());
    let more = end < rows.len();
    json!({"status": 0, "body": {list_key: rows.get(off..end).unwrap_or_default(), "more": more, "offset": if more { end } else { 0 },
                                 "timezone": "Europe/Paris"}})
}

fn world(tag: &str) -> World {
    let mut w = World::new(tag);
    w.set("WITHINGS_MCP_NOW", &NOW.to_string());
    // Pacing is measured in unit tests; here it would only make each run last minutes.
    w.set("WITHINGS_EXPORT_RATE", "1500");
    let (groups, heart, activity, workouts, nights, segments) =
        (measure_groups(), heart_records(), activity_days(), workouts(), nights(), segments());
    w.fake.on("/measure", "getmeas", move |r| answer(&groups, r, "measuregrps", true, |g| g["date"].clone()));
    w.fake.on("/v2/heart", "list", move |r| answer(&heart, r, "series", false, |h| h["timestamp"].clone()));
    w.fake.on("/v2/measure", "getactivity", move |r| {
        answer(&activity, r, "activities", false, |a| a["date"].clone())
    });
    w.fake.on("/v2/measure", "getworkouts", move |r| {
        answer(&workouts, r, "series", false, |x| x["date"].clone())
    });
    w.fake.on("/v2/sleep", "getsummary", move |r| answer(&nights, r, "series", false, |n| n["date"].clone()));
    w.fake.on("/v2/measure", "getintradayactivity", |r| {
        let (s, e) = (num(r, "startdate").unwrap(), num(r, "enddate").unwrap());
        if e - s > DAY {
            return json!({"status": 293, "body": {}, "error": "Invalid Params: more than 24 hours"});
        }
        let series: serde_json::Map<String, Value> = intraday_samples(s, e)
            .map(|t| {
                (
                    t.to_string(),
                    json!({"steps": 120, "heart_rate": 61, "model": "ScanWatch 2", "model_id": 94}),
                )
            })
            .collect();
        json!({"status": 0, "body": {"series": series}})
    });
    w.fake.on("/v2/sleep", "get", move |r| {
        let (s, e) = (num(r, "startdate").unwrap(), num(r, "enddate").unwrap());
        if e - s > 7 * DAY {
            return json!({"status": 293, "body": {}, "error": "Invalid Params: more than 7 days"});
        }
        // Every segment that overlaps the window, as Withings does: edges come twice.
        let rows: Vec<&Value> = segments
            .iter()
            .filter(|x| x["startdate"].as_i64().unwrap() <= e && x["enddate"].as_i64().unwrap() > s)
            .collect();
        json!({"status": 0, "body": {"series": rows}})
    });
    w
}

fn export(w: &World, dir: &Path, args: &[&str]) -> (Run, Value) {
    let mut c: Command = w.command();
    c.arg("export").arg("--out").arg(dir).args(args);
    let r = run(c);
    w.fake.assert_no_secrets(&r.all());
    let summary = match r.code {
        0 => serde_json::from_str(r.stdout.trim())
            .unwrap_or_else(|e| panic!("summary not JSON ({e}): {}", r.all())),
        _ => Value::Null,
    };
    (r, summary)
}

/// Name → bytes of every file in `dir`.
fn files(dir: &Path) -> HashMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .map(|e| (e.file_name().to_string_lossy().into_owned(), std::fs::read(e.path()).unwrap()))
        .collect()
}

fn mode(p: &Path) -> u32 {
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

const ALL: [&str; 7] = ["measures", "heart", "activity", "workouts", "sleep_summary", "sleep", "intraday"];

/// Intraday samples: one every 6 hours over the last `INTRADAY_DAYS` days of data.
const INTRADAY_DAYS: i64 = 40;
const SAMPLE_EVERY: i64 = 6 * 3600;

fn expected_counts() -> HashMap<&'static str, usize> {
    HashMap::from([
        ("measures", measure_groups().len()),
        ("heart", heart_records().len()),
        ("activity", activity_days().len()),
        ("workouts", workouts().len()),
        ("sleep_summary", nights().len()),
        ("sleep", ((DAYS - FIRST_NIGHT) * SEGMENTS_A_NIGHT) as usize),
    ])
}

/// Intraday samples the fake holds in `[s, e]` (both ends, as Withings reads them).
fn intraday_samples(s: i64, e: i64) -> impl Iterator<Item = i64> {
    let first = FIRST + (DAYS - INTRADAY_DAYS) * DAY;
    let from = first.max(s + (SAMPLE_EVERY - (s - FIRST).rem_euclid(SAMPLE_EVERY)) % SAMPLE_EVERY);
    (from..=e.min(FIRST + DAYS * DAY - 1)).step_by(SAMPLE_EVERY as usize)
}

/// The samples the fake served: an export must hold each once.
fn intraday_served(w: &World) -> usize {
    let asked = w.fake.requests().into_iter().filter(|q| q.action() == "getintradayactivity");
    asked.map(|q| intraday_samples(num(&q, "startdate").unwrap(), num(&q, "enddate").unwrap()).count()).sum()
}

#[test]
fn every_domain_lands_whole_private_and_windowed_from_its_first_record() {
    let w = world("export-all");
    let dir = w.home.dir.join("out/withings");
    let (r, summary) = export(&w, &dir, &[]);
    assert_eq!(r.code, 0, "{}", r.all());
    let mut want = expected_counts();
    want.insert("intraday", intraday_served(&w));
    // Without --after, intraday too reads from the first day of activity (day 0), so every
    // sample the fake holds lands: its last 40 days of 4 samples, none yet today.
    assert_eq!(want["intraday"], INTRADAY_DAYS as usize * 4);
    let listed: Vec<&str> =
        summary["files"].as_array().unwrap().iter().map(|f| f["domain"].as_str().unwrap()).collect();
    assert_eq!(listed, ALL);
    for f in summary["files"].as_array().unwrap() {
        let domain = f["domain"].as_str().unwrap();
        assert_eq!(f["records"].as_u64().unwrap() as usize, want[domain], "{domain}");
        let path = PathBuf::from(f["path"].as_str().unwrap());
        assert_eq!(path, dir.join(format!("{domain}.csv")));
        assert_eq!(mode(&path), 0o600, "{domain}");
        // One line per record after the header.
        let lines = csv_rows(&path).len();
        assert_eq!(lines, want[domain], "{domain}");
    }
    // Intraday starts where activity does (no earlier than a month before day 0, the bisection's
    // precision), one request a day from there: every day of the tracker's history, no more.
    let after = |d: &str| {
        summary["files"].as_array().unwrap().iter().find(|f| f["domain"] == d).unwrap()["after"].clone()
    };
    assert_eq!(after("intraday"), after("activity"));
    let start = after("intraday").as_str().unwrap().to_string();
    assert!(start.as_str() <= ymd(0).as_str() && start.as_str() >= ymd(-31).as_str(), "{start}");
    let windows = w.data_requests().iter().filter(|q| q.action() == "getintradayactivity").count() as i64;
    assert!((DAYS + 1..=DAYS + 32).contains(&windows), "{windows} intraday requests");
    assert_eq!(mode(&dir), 0o700);
    assert_eq!(summary["format"], "csv");
    assert_eq!(summary["range"]["before"], ymd(DAYS));
    assert_eq!(summary["privacy_mode"], "structured");
    assert!(summary.get("demo").is_none());
    // Progress: one line per domain on stderr (not a terminal), nothing else on stdout.
    assert_eq!(r.stderr.lines().filter(|l| l.starts_with("export: ")).count(), 7, "{}", r.stderr);
    assert_eq!(r.stdout.lines().count(), 1);

    // No request asks for more than Withings allows (the fake refuses sleep detail over 7 days),
    // and each first record was found cheaply: not one request per window of the empty past
    // since 1980, but a bisection.
    let reqs = w.data_requests();
    assert!(
        reqs.iter()
            .filter(|q| q.action() == "get")
            .all(|q| num(q, "enddate").unwrap() - num(q, "startdate").unwrap() < 7 * DAY)
    );
    assert!(
        reqs.iter()
            .filter(|q| q.action() == "getintradayactivity")
            .all(|q| num(q, "enddate").unwrap() - num(q, "startdate").unwrap() < DAY)
    );
    for (path, action) in
        [("/measure", "getmeas"), ("/v2/measure", "getactivity"), ("/v2/sleep", "getsummary")]
    {
        let n = w.fake.count(path, action);
        assert!(n <= 12 + 2 * (DAYS as usize / PAGE + 2), "{action}: {n} requests");
    }
    assert_eq!(summary["requests"].as_u64().unwrap() as usize, reqs.len());
}

/// A CSV file as Python's `csv` module reads it: one dict per row.
fn csv_rows(path: &Path) -> Vec<HashMap<String, String>> {
    let script = "import csv, json, sys\nprint(json.dumps(list(csv.DictReader(open(sys.argv[1], newline='', encoding='utf-8')))))";
    let out = Command::new("python3").args(["-c", script]).arg(path).output().expect("python3 runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The cells the CSV must hold for a list tool's record: every field (nested objects as
/// `parent_child`, measures by name), the unit in the name; not `display` strings, the upstream
/// `data` block, samples, or Unix seconds (the local times say them).
fn expected_cells(rec: &Value) -> Vec<(String, Value)> {
    let unit = |k: &str| {
        UNITS.iter().find(|(n, _)| *n == k).map(|(_, u)| format!("{k}_{u}")).unwrap_or(k.to_string())
    };
    let mut out = Vec::new();
    for (k, v) in rec.as_object().unwrap() {
        match v {
            _ if k.ends_with("display") || k == "data" => {}
            Value::Number(_)
                if ["date", "timestamp", "startdate", "enddate", "created", "modified", "time"]
                    .contains(&k.as_str()) => {}
            Value::Array(ms) if k == "measures" => {
                for m in ms {
                    let u = match m["unit"].as_str().unwrap() {
                        "%" => "_pct".to_string(),
                        "" => String::new(),
                        u => format!("_{}", u.to_lowercase()),
                    };
                    out.push((format!("{}{u}", m["name"].as_str().unwrap()), m["value"].clone()));
                }
            }
            Value::Array(_) => {}
            Value::Object(inner) => {
                out.extend(inner.iter().map(|(ik, iv)| (unit(&format!("{k}_{ik}")), iv.clone())))
            }
            v => out.push((unit(k), v.clone())),
        }
    }
    out
}

fn same(cell: &str, v: &Value) -> bool {
    match v {
        Value::Number(n) => cell.parse::<f64>().ok() == n.as_f64(),
        Value::String(s) => cell == s,
        Value::Bool(b) => cell == b.to_string(),
        Value::Null => cell.is_empty(),
        _ => false,
    }
}

#[test]
fn csv_reads_back_into_the_values_the_list_tools_return_and_jsonl_is_those_records() {
    let w = world("export-values");
    let dir = w.home.dir.join("x");
    assert_eq!(export(&w, &dir, &[]).0.code, 0);
    assert_eq!(export(&w, &dir, &["--format", "jsonl"]).0.code, 0);
    // (domain, tool, range asked of the tool, the field rows are matched by)
    let cases = [
        ("measures", "withings_list_body_measures", ("2024-11-01", "2026-03-10"), "local_time"),
        ("heart", "withings_list_heart", ("2024-11-01", "2026-03-10"), "local_time"),
        ("activity", "withings_list_activity", ("2024-11-01", "2026-03-10"), "date"),
        ("workouts", "withings_list_workouts", ("2024-11-01", "2026-03-10"), "local_start"),
        ("sleep_summary", "withings_list_sleep_summary", ("2024-11-01", "2026-03-10"), "local_start"),
        ("sleep", "withings_list_sleep", ("2026-02-10", "2026-02-16"), "local_start"),
        ("intraday", "withings_list_intraday", ("2026-03-01", "2026-03-10"), "local_time"),
    ];
    for (domain, tool, (after, before), key) in cases {
        let (run, list) =
            w.call(tool, json!({"after": after, "before": before, "limit": 1000, "response_format": "json"}));
        assert_eq!((run.code, &list["has_more"]), (0, &json!(false)), "{tool}: {}", run.all());
        let records = list["records"].as_array().unwrap();
        assert!(!records.is_empty(), "{tool}");
        let rows = csv_rows(&dir.join(format!("{domain}.csv")));
        let by_key: HashMap<&str, &HashMap<String, String>> =
            rows.iter().map(|r| (r[key].as_str(), r)).collect();
        let lines: Vec<Value> = std::fs::read_to_string(dir.join(format!("{domain}.jsonl")))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), rows.len(), "{domain}");
        for rec in records {
            let k = rec[key].as_str().unwrap();
            let row = by_key.get(k).unwrap_or_else(|| panic!("{domain}: no row for {k}"));
            for (column, value) in expected_cells(rec) {
                let cell = row.get(&column).unwrap_or_else(|| panic!("{domain}: no column {column}"));
                assert!(same(cell, &value), "{domain} {k} {column}: csv {cell:?}, list {value}");
            }
            // Unix seconds become local times in the record's zone.
            for (epoch, local) in [("created", "created"), ("modified", "modified")] {
                if rec.get(epoch).is_some() {
                    assert!(
                        row[local].len() == 25 && row[local].contains('T'),
                        "{domain} {local}: {}",
                        row[local]
                    );
                }
            }
            // The JSON lines hold the very records.
            assert!(lines.contains(rec), "{domain}: {k} is not a JSON line as the list tool returns it");
        }
    }
    // A quoted field survives: the comment with a comma and quotes.
    let rows = csv_rows(&dir.join("measures.csv"));
    assert!(rows.iter().any(|r| r["comment"] == "after a run, \"tired\""));
    assert!(rows.iter().all(|r| r["timezone"] == "Europe/Paris"
        && (r["local_time"].ends_with(":00+01:00") || r["local_time"].ends_with(":00+02:00"))));
}

#[test]
fn in_raw_mode_the_json_lines_are_the_records_as_the_list_tools_send_them() {
    let mut w = world("export-raw");
    w.set("WITHINGS_PRIVACY_MODE", "raw");
    let dir = w.home.dir.join("raw");
    let (r, summary) = export(&w, &dir, &["--format", "jsonl", "--after", "2026-03-01"]);
    assert_eq!(r.code, 0, "{}", r.all());
    assert_eq!(summary["privacy_mode"], "raw");
    for domain in ALL {
        let tool = match domain {
            "measures" => "withings_list_body_measures".to_string(),
            "sleep" => "withings_list_sleep".to_string(),
            d => format!("withings_list_{d}"),
        };
        let before = if domain == "sleep" { "2026-03-06" } else { "2026-03-10" };
        let (run, list) = w.call(
            &tool,
            json!({"after": "2026-03-02", "before": before, "limit": 1000, "response_format": "json"}),
        );
        assert_eq!((run.code, &list["has_more"]), (0, &json!(false)), "{tool}: {}", run.all());
        let records = list["records"].as_array().unwrap();
        assert!(!records.is_empty(), "{tool}");
        let text = std::fs::read_to_string(dir.join(format!("{domain}.jsonl"))).unwrap();
        let lines: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        for rec in records {
            assert!(lines.contains(rec), "{domain}: {rec} is not a JSON line as the list tool sends it");
        }
    }
}

#[test]
fn a_second_run_replaces_the_set_and_a_failure_midway_leaves_it_byte_identical() {
    let w = world("export-again");
    let dir = w.home.dir.join("out");
    assert_eq!(export(&w, &dir, &["--after", "2026-01-01"]).0.code, 0);
    let first = files(&dir);
    let (r, _) = export(&w, &dir, &["--after", "2026-01-01"]);
    assert_eq!(r.code, 0, "{}", r.all());
    let second = files(&dir);
    let mut names: Vec<String> = second.keys().cloned().collect();
    names.sort();
    let mut want: Vec<String> = ALL.iter().map(|d| format!("{d}.csv")).collect();
    want.sort();
    assert_eq!(names, want);
    assert_eq!(first, second, "same data, same files");

    // The fourth domain fails for good: nothing of this run is kept.
    w.fake.fail("/v2/measure", "getworkouts", Fault::Status(2554), 1);
    let (r, _) = export(&w, &dir, &["--after", "2024-12-01"]);
    assert_eq!(r.code, 1, "{}", r.all());
    let err = r.stderr.lines().last().unwrap();
    assert!(
        err.starts_with("withings-mcp: export stopped at workouts: ") && err.contains("getworkouts"),
        "{err}"
    );
    assert!(err.contains("are as they were"), "{err}");
    assert_eq!(files(&dir), second, "byte-identical, and no temp file left");
    assert!(r.stdout.is_empty());
}

#[test]
fn a_stalled_upstream_ends_the_run_naming_the_domain() {
    let mut w = world("export-stall");
    w.set("WITHINGS_HTTP_TIMEOUT_SECS", "1");
    w.set("WITHINGS_NO_RETRY", "1");
    let dir = w.home.dir.join("out");
    w.fake.fail("/v2/heart", "list", Fault::Delay(Duration::from_secs(4)), 1);
    let t = Instant::now();
    let (r, _) = export(&w, &dir, &["--only", "measures,heart"]);
    assert_eq!(r.code, 1, "{}", r.all());
    assert!(t.elapsed() < Duration::from_secs(10), "{:?}", t.elapsed());
    let err = r.stderr.lines().last().unwrap();
    assert!(err.contains("export stopped at heart") && err.contains("within 1 s (timeout)"), "{err}");
    assert!(
        std::fs::read_dir(&dir).unwrap().next().is_none(),
        "nothing half-written: {:?}",
        files(&dir).keys()
    );
}

#[test]
fn only_some_domains_and_bad_arguments() {
    let w = world("export-only");
    let dir = w.home.dir.join("some");
    let (r, summary) =
        export(&w, &dir, &["--only", "sleep,heart", "--format", "jsonl", "--after", "2026-02-01"]);
    assert_eq!(r.code, 0, "{}", r.all());
    let mut names: Vec<String> = files(&dir).into_keys().collect();
    names.sort();
    assert_eq!(names, ["heart.jsonl", "sleep.jsonl"]);
    let domains: Vec<&str> =
        summary["files"].as_array().unwrap().iter().map(|f| f["domain"].as_str().unwrap()).collect();
    assert_eq!(domains, ["heart", "sleep"], "the fixed order, whatever --only says");
    assert_eq!(summary["range"]["after"], "2026-02-01");
    assert!(w.data_requests().iter().all(|q| q.path == "/v2/heart" || q.action() == "get"));

    let bad: &[(&[&str], &str)] = &[
        (&["--only", "measures,steps"], "unknown domain `steps`"),
        (&["--format", "xlsx"], "csv or jsonl"),
        (&["--after", "2026-13-01"], "--after"),
        (&["--after", "2026-03-01", "--before", "2026-02-01"], "--after"),
        (&["--only"], "--only"),
        (&["stray"], "stray"),
    ];
    let fresh = w.home.dir.join("never");
    for (args, says) in bad {
        let (r, _) = export(&w, &fresh, args);
        assert_eq!(r.code, 2, "{args:?}: {}", r.all());
        assert!(r.stderr.contains(says), "{args:?}: {}", r.stderr);
        assert!(!fresh.exists(), "{args:?}: a usage error touches no disk");
    }
}

#[test]
fn the_demo_exports_without_credentials_and_every_quantity_names_its_unit() {
    let home = crate::fake::TempHome::new("export-demo");
    let dir = home.dir.join("demo-export");
    let mut c = Command::new(crate::fake::bin());
    c.env_clear()
        .env("HOME", &home.dir)
        .env("WITHINGS_TZ", "Europe/Paris")
        .env("WITHINGS_MCP_NOW", NOW.to_string());
    // Two months: every domain and column, without a year of minute-by-minute intraday samples.
    c.args(["--demo", "export", "--after", &ymd(DAYS - 60), "--out"]).arg(&dir);
    let r = run(c);
    assert_eq!(r.code, 0, "{}", r.all());
    let summary: Value = serde_json::from_str(r.stdout.trim()).unwrap();
    assert_eq!(summary["demo"], true);
    // Columns that hold numbers without a unit: counts, codes, scores and identifiers.
    const UNITLESS: &[&str] = &[
        "grpid",
        "category",
        "attrib",
        "modelid",
        "model_id",
        "model",
        "id",
        "brand",
        "steps",
        "state",
        "ecg_signalid",
        "ecg_afib",
        "wakeup_count",
        "rem_episodes",
        "out_of_bed_count",
        "snoring_episodes",
        "sleep_score",
        "sleep_efficiency",
        "breathing_disturbances_intensity",
        "intensity",
        "manual_intensity",
        "pool_laps",
        "strokes",
        "afib_result",
        "stroke",
        "pool_lap",
        "hrv_quality",
    ];
    for f in summary["files"].as_array().unwrap() {
        let domain = f["domain"].as_str().unwrap();
        assert!(f["records"].as_u64().unwrap() > 0, "{domain}");
        let rows = csv_rows(Path::new(f["path"].as_str().unwrap()));
        for column in rows[0].keys() {
            let numeric = rows.iter().any(|r| r[column].parse::<f64>().is_ok());
            let named = UNITS.iter().any(|(_, u)| column.ends_with(&format!("_{u}")))
                || ["_kg", "_pct", "_mmhg", "_bpm", "_m_per_s", "_s"].iter().any(|u| column.ends_with(u));
            assert!(
                !numeric || named || UNITLESS.contains(&column.as_str()),
                "{domain}: `{column}` holds numbers without a unit"
            );
        }
    }
}

#[test]
fn each_account_exports_its_own_data_into_its_own_directory() {
    let w = world("export-accounts");
    crate::accounts::sign_in(&w, "bob", crate::fake::USERID2);
    for (account, dir, user) in [
        (None, "withings-export", crate::fake::USERID),
        (Some("bob"), "withings-export-bob", crate::fake::USERID2),
    ] {
        let before = w.fake.requests().len();
        let mut c = w.command();
        c.current_dir(&w.home.dir);
        if let Some(a) = account {
            c.args(["--account", a]);
        }
        c.args(["export", "--only", "heart", "--after", "2026-01-01"]);
        let r = run(c);
        assert_eq!(r.code, 0, "{}", r.all());
        let summary: Value = serde_json::from_str(r.stdout.trim()).unwrap();
        assert_eq!(summary["account"], account.unwrap_or("default"));
        assert_eq!(summary["dir"], dir);
        assert!(w.home.dir.join(dir).join("heart.csv").is_file());
        let asked: Vec<Recorded> = w.fake.requests().into_iter().skip(before).collect();
        assert!(
            !asked.is_empty() && asked.iter().all(|q| q.user.as_deref() == Some(user)),
            "{account:?}: {asked:?}"
        );
    }
}
