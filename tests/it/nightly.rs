//! Issue 13: `withings_trends` and `withings_chart` for HRV and SpO2 during sleep, against the
//! fake. Each night's value is the mean of the watch's samples inside its main sleep (one
//! intraday request a night, the 24 hours before the wake-up); the numbers below are worked out
//! by hand from the samples the fake serves.

use serde_json::{Value, json};

use crate::data::World;
use crate::fake::Recorded;

const DAY: i64 = 86_400;
/// 2026-03-15 06:00 UTC (07:00 in Paris): the last night's wake-up, on the day of `data::NOW`.
const LAST_WAKE: i64 = 1_773_554_400;
const NIGHT: i64 = 8 * 3600;

/// The wake-up of night `k` of `n`, oldest first (the last one ends on 2026-03-15).
fn wake(k: i64, n: i64) -> i64 {
    LAST_WAKE - (n - 1 - k) * DAY
}

/// `n` nights of 8 hours, 22:00 to 06:00 UTC, and one afternoon nap that must not count.
fn summaries(n: i64) -> Value {
    let mut series: Vec<Value> = (0..n)
        .map(|k| {
            let end = wake(k, n);
            json!({"id": 900 + k, "startdate": end - NIGHT, "enddate": end, "timezone": "Europe/Paris",
                   "data": {"total_sleep_time": NIGHT - 1800, "sleep_score": 80}})
        })
        .collect();
    let nap = wake(n - 2, n) + 8 * 3600;
    series.push(json!({"id": 899, "startdate": nap, "enddate": nap + 3600, "timezone": "Europe/Paris",
                       "data": {"total_sleep_time": 3000}}));
    json!({"status": 0, "body": {"series": series, "more": false, "offset": 0}})
}

/// The watch through night `k` (of 8): RMSSD every 30 minutes alternating 40 + 2k ∓ 3 (mean
/// 40 + 2k ms), SpO2 every 15 minutes alternating 97 − 0.2k ∓ 0.5 (mean 97 − 0.2k %), a 0 SpO2
/// (Withings' "no reading"), and a sample ten minutes before bedtime (150 ms, 80 %) and one
/// during the nap that belong to no night.
fn samples(rec: &Recorded) -> Value {
    let num = |k: &str| rec.get(k).unwrap().parse::<i64>().unwrap();
    let (from, to) = (num("startdate"), num("enddate"));
    let fields = rec.get("data_fields").unwrap_or_default().to_string();
    let mut series = serde_json::Map::new();
    let mut put = |t: i64, field: &str, v: Value| {
        if (from..=to).contains(&t) && fields.split(',').any(|f| f == field) {
            let e =
                series.entry(t.to_string()).or_insert_with(|| json!({"model": "ScanWatch", "model_id": 93}));
            e[field] = v;
        }
    };
    for k in 0..8 {
        let start = wake(k, 8) - NIGHT;
        let sign = |j: i64| if j % 2 == 0 { -1.0 } else { 1.0 };
        for j in 0..16 {
            put(start + j * 1800, "rmssd", json!(40.0 + 2.0 * k as f64 + 3.0 * sign(j)));
        }
        for j in 0..32 {
            put(start + j * 900 + 60, "spo2_auto", json!(97.0 - 0.2 * k as f64 + 0.5 * sign(j)));
        }
        put(start + 1000, "spo2_auto", json!(0));
        put(start - 600, "rmssd", json!(150));
        put(start - 600, "spo2_auto", json!(80));
    }
    let nap = wake(6, 8) + 8 * 3600 + 600;
    put(nap, "rmssd", json!(150));
    put(nap, "spo2_auto", json!(80));
    json!({"status": 0, "body": {"series": series}})
}

fn world(tag: &str, nights: i64) -> World {
    let w = World::new(tag);
    let doc = summaries(nights);
    w.fake.on("/v2/sleep", "getsummary", move |_| doc.clone());
    w.fake.on("/v2/measure", "getintradayactivity", samples);
    w
}

fn values(t: &Value) -> Vec<f64> {
    t["series"].as_array().unwrap().iter().map(|p| p["value"].as_f64().unwrap()).collect()
}

#[test]
fn hrv_and_spo2_trends_are_the_nightly_means_of_the_watchs_samples() {
    for (metric, field, want, verdict, unit, meaning) in [
        (
            "hrv",
            "rmssd",
            [40.0, 42.0, 44.0, 46.0, 48.0, 50.0, 52.0, 54.0],
            "rising",
            "ms",
            "a rising HRV usually means better recovery",
        ),
        (
            "spo2",
            "spo2_auto",
            [97.0, 96.8, 96.6, 96.4, 96.2, 96.0, 95.8, 95.6],
            "falling",
            "%",
            "talk to a clinician",
        ),
    ] {
        let w = world(metric, 8);
        let (r, t) = w.call("withings_trends", json!({"metric": metric}));
        assert_eq!(r.code, 0, "{}", r.all());
        assert_eq!(t["unit"], unit, "{t}");
        assert_eq!(t["window"]["after"], "2026-02-14", "{metric}: 30 days by default: {t}");
        assert_eq!(
            values(&t),
            want,
            "{metric}: one mean a night, the nap and the sample before bed left out"
        );
        assert_eq!((&t["n_used"], &t["n_rejected"]), (&json!(8), &json!(0)), "{t}");
        assert_eq!(t["verdict"], verdict, "{metric}: {}", t["reason"]);
        assert!(
            t["reason"].as_str().unwrap().ends_with(meaning)
                || t["reason"].as_str().unwrap().contains(meaning),
            "{}",
            t["reason"]
        );
        // One request a night, for that night's 24 hours and that field only; none for the nap.
        let asked: Vec<Recorded> =
            w.fake.requests().into_iter().filter(|q| q.action() == "getintradayactivity").collect();
        let mut windows: Vec<(String, String)> = asked
            .iter()
            .map(|q| (q.get("startdate").unwrap().into(), q.get("enddate").unwrap().into()))
            .collect();
        windows.sort();
        let expected: Vec<(String, String)> =
            (0..8).map(|k| ((wake(k, 8) - DAY).to_string(), (wake(k, 8) - 1).to_string())).collect();
        assert_eq!(windows, expected, "{metric}");
        assert!(asked.iter().all(|q| q.get("data_fields") == Some(field)), "{metric}: {asked:?}");

        let res = w.mcp_call("withings_chart", json!({"metric": metric}));
        assert_ne!(res["isError"], true, "{res}");
        assert_eq!(values(&res["structuredContent"]), want, "{metric}: the chart plots the same nights");
        assert_eq!(res["content"][1]["mimeType"], "image/png", "{res}");
    }
}

#[test]
fn more_nights_than_a_call_can_read_fail_before_reading_any_and_say_how_to_narrow() {
    let w = world("hrvmany", 70);
    let (r, v) = w.call("withings_trends", json!({"metric": "hrv", "after": "2025-12-01"}));
    assert_eq!(r.code, 1, "{}", r.all());
    assert_eq!(v["error"]["kind"], "request_budget", "{v}");
    assert!(v["error"]["message"].as_str().unwrap().contains("narrow the range"), "{v}");
    assert_eq!(w.fake.count("/v2/measure", "getintradayactivity"), 0);
    // The default 30 days fit.
    let (r, t) = w.call("withings_trends", json!({"metric": "hrv"}));
    assert_eq!(r.code, 0, "{}", r.all());
    assert_eq!(w.fake.count("/v2/measure", "getintradayactivity"), 30, "{t}");
}

/// The demo account wears its watch every night: 30 nights of HRV and SpO2 by default, around
/// the values its samples are drawn from (RMSSD 30 to 54 ms, SpO2 94 to 98 %), nothing to call a
/// trend; and the charts, as SVG goldens (their PNGs were looked at).
#[test]
fn the_demo_has_a_month_of_nightly_hrv_and_spo2_and_their_charts() {
    use crate::demo::{NOW, assert_no_bad_numbers, demo, golden};
    for (metric, lo, hi) in [("hrv", 30.0, 54.0), ("spo2", 94.0, 98.0)] {
        let home = crate::fake::TempHome::new("nightly-demo");
        let args = json!({"metric": metric}).to_string();
        let r = crate::fake::run(demo(&home, NOW, &["call", "withings_trends", "--json", &args]));
        assert_eq!(r.code, 0, "{}", r.all());
        let t: Value = serde_json::from_str(&r.stdout).unwrap();
        assert_eq!((&t["n_used"], &t["verdict"]), (&json!(30), &json!("stable")), "{metric}: {t}");
        assert!(values(&t).iter().all(|v| (lo..=hi).contains(v)), "{metric}: {t}");
        let r = crate::fake::run(demo(&home, NOW, &["chart", metric, "--format", "svg"]));
        assert_eq!(r.code, 0, "{}", r.all());
        assert_no_bad_numbers(&r.stdout);
        assert!(r.stdout.contains(">DEMO<") && r.stdout.contains("during sleep"), "{metric}");
        golden(&format!("chart_{metric}.svg"), r.stdout.as_bytes());
    }
}
