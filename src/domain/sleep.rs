//! Sleep: nights from `getsummary` and state segments from sleep `get`.
//!
//! Nap rule (the reference defines no nap flag, so it is derived): a sleep is a **nap** when it
//! lasted less than 3 hours in bed, or when it does not overlap the local night window
//! 22:00–07:00 (in the record's own zone). Everything else is a main (night) sleep.
//!
//! JSON shape of a night ([`SleepNight::to_json`]); optional keys are omitted when absent:
//!
//! ```text
//! { "id": 800000001,
//!   "date": "2025-01-01",                        // Withings' day: local date of the wake-up
//!   "startdate": 1735686000, "enddate": 1735714800,
//!   "local_start": "2025-01-01T00:00:00+01:00", "local_end": "2025-01-01T08:00:00+01:00",
//!   "timezone": "Europe/Paris", "nap": false, "completed": true,
//!   "model": 32, "model_id": 63, "hash_deviceid": "…", "created": …, "modified": …,
//!   // named values lifted out of `data` (seconds unless noted):
//!   "total_sleep_time": 25200, "total_sleep_hours": 7.0, "time_in_bed": 28800,
//!   "light_sleep": 13800, "deep_sleep": 6000, "rem_sleep": 5400, "awake": 3600,
//!   "wakeup_count": 2, "sleep_score": 81, "sleep_efficiency": 0.88, "sleep_latency": 900,
//!   "wakeup_latency": 600, "waso": 2100, "out_of_bed_count": 1,
//!   "hr_average": 58, "hr_min": 49, "hr_max": 79, "rr_average": 14, "rr_min": 11, "rr_max": 18,
//!   "snoring": 840, "snoring_episodes": 9, "apnea_hypopnea_index": 4,
//!   "breathing_disturbances_intensity": 12,
//!   "data": { …every upstream data field, unchanged (night_events included)… } }
//! ```
//!
//! JSON shape of a detail segment ([`SleepSegment::to_json`]):
//!
//! ```text
//! { "startdate": 1735686000, "enddate": 1735686600, "duration": 600,
//!   "local_start": "…", "local_end": "…", "timezone": "Europe/Paris",
//!   "state": 0, "state_name": "awake",
//!   "model": "Sleep Analyzer", "model_id": 63, "hash_deviceid": "…",
//!   "hr": [[1735686000, 64], [1735686060, 63]], "rr": [[…]], "snoring": [[…]],  // any map field
//!   …unknown upstream fields… }
//! ```

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use crate::domain::fields::{self, put, put_num};
use crate::domain::time::{CivilDate, DAY_SECS, Instant, Zone, Zones, format_local};

/// Sleeps shorter than this (seconds in bed) are naps.
pub const NAP_MAX_SECS: i64 = 3 * 3600;

/// Sleep state codes (withings-api.md §3.5).
pub fn state_name(code: i64) -> Option<&'static str> {
    match code {
        0 => Some("awake"),
        1 => Some("light"),
        2 => Some("deep"),
        3 => Some("rem"),
        4 => Some("manual"),
        5 => Some("unspecified"),
        15 => Some("out_of_bed"),
        _ => None,
    }
}

/// Night event codes inside `night_events` (withings-api.md §3.6).
pub fn night_event_name(code: i64) -> Option<&'static str> {
    match code {
        1 => Some("got_in_bed"),
        2 => Some("fell_asleep"),
        3 => Some("woke_up"),
        4 => Some("got_out_of_bed"),
        5 => Some("manual_asleep_start"),
        6 => Some("manual_awake_start"),
        _ => None,
    }
}

/// One night (or nap) from `getsummary`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SleepNight {
    pub id: Option<i64>,
    pub timezone: Option<String>,
    /// 16 tracker, 32 sleep monitor.
    pub model: Option<i64>,
    pub model_id: Option<i64>,
    pub hash_deviceid: Option<String>,
    pub start: Option<Instant>,
    pub end: Option<Instant>,
    /// Withings' `date`: the local date of the wake-up.
    pub date: Option<CivilDate>,
    pub created: Option<Instant>,
    pub modified: Option<Instant>,
    pub completed: Option<bool>,
    /// Every `data` field as sent.
    pub data: Map<String, Value>,
    pub extra: Map<String, Value>,
}

/// Named values lifted from `data`: (output name, upstream key).
const NAMED: &[(&str, &str)] = &[
    ("total_sleep_time", "total_sleep_time"),
    ("time_in_bed", "total_timeinbed"),
    ("asleep_duration", "asleepduration"),
    ("light_sleep", "lightsleepduration"),
    ("deep_sleep", "deepsleepduration"),
    ("rem_sleep", "remsleepduration"),
    ("awake", "wakeupduration"),
    ("wakeup_count", "wakeupcount"),
    ("sleep_score", "sleep_score"),
    ("sleep_efficiency", "sleep_efficiency"),
    ("sleep_latency", "sleep_latency"),
    ("wakeup_latency", "wakeup_latency"),
    ("waso", "waso"),
    ("rem_episodes", "nb_rem_episodes"),
    ("out_of_bed_count", "out_of_bed_count"),
    ("hr_average", "hr_average"),
    ("hr_min", "hr_min"),
    ("hr_max", "hr_max"),
    ("rr_average", "rr_average"),
    ("rr_min", "rr_min"),
    ("rr_max", "rr_max"),
    ("snoring", "snoring"),
    ("snoring_episodes", "snoringepisodecount"),
    ("apnea_hypopnea_index", "apnea_hypopnea_index"),
    ("breathing_disturbances_intensity", "breathing_disturbances_intensity"),
];

const NIGHT_KEYS: &[&str] = &[
    "id",
    "timezone",
    "model",
    "model_id",
    "hash_deviceid",
    "startdate",
    "enddate",
    "date",
    "created",
    "modified",
    "completed",
    "data",
];

impl SleepNight {
    /// A `data` value by its upstream key.
    pub fn get(&self, key: &str) -> Option<f64> {
        self.data.get(key).and_then(fields::as_num)
    }

    /// Seconds asleep: `total_sleep_time`, else `asleepduration` (external sources), else the sum
    /// of the stages.
    pub fn total_sleep_secs(&self) -> Option<f64> {
        self.get("total_sleep_time").or_else(|| self.get("asleepduration")).or_else(|| {
            let stages = ["lightsleepduration", "deepsleepduration", "remsleepduration"].map(|k| self.get(k));
            stages.iter().any(Option::is_some).then(|| stages.iter().flatten().sum())
        })
    }

    /// The sleep score, never invented when missing (upstream bug 10).
    pub fn sleep_score(&self) -> Option<f64> {
        self.get("sleep_score")
    }

    /// Seconds between start and end.
    pub fn duration_secs(&self) -> Option<i64> {
        Some(self.end?.0 - self.start?.0).filter(|d| *d >= 0)
    }

    /// See the module docs for the rule; `None` without start and end.
    pub fn is_nap(&self, zone: &Zone) -> Option<bool> {
        let (start, end) = (self.start?, self.end?);
        Some(end.0 - start.0 < NAP_MAX_SECS || !overlaps_night(start, end, zone))
    }

    /// The civil day the night belongs to: Withings' `date`, else the local date of the end.
    pub fn day(&self, zone: &Zone) -> Option<CivilDate> {
        self.date.or_else(|| self.end.map(|t| zone.local_date(t)))
    }

    /// The record as JSON (see the module docs).
    pub fn to_json(&self, zones: &Zones) -> Value {
        let zone = zones.for_record(self.timezone.as_deref());
        let mut m = Map::new();
        put(&mut m, "id", self.id);
        put(&mut m, "date", self.day(zone).map(|d| d.to_string()));
        put(&mut m, "startdate", self.start.map(|t| t.0));
        put(&mut m, "enddate", self.end.map(|t| t.0));
        put(&mut m, "local_start", self.start.map(|t| format_local(t, zone)));
        put(&mut m, "local_end", self.end.map(|t| format_local(t, zone)));
        m.insert("timezone".into(), json!(zone.name()));
        put(&mut m, "nap", self.is_nap(zone));
        put(&mut m, "completed", self.completed);
        put(&mut m, "model", self.model);
        put(&mut m, "model_id", self.model_id);
        put(&mut m, "hash_deviceid", self.hash_deviceid.clone());
        put(&mut m, "created", self.created.map(|t| t.0));
        put(&mut m, "modified", self.modified.map(|t| t.0));
        for (name, key) in NAMED {
            if let Some(v) = self.data.get(*key).filter(|v| fields::as_num(v).is_some()) {
                m.insert((*name).to_string(), v.clone());
            }
        }
        if !m.contains_key("total_sleep_time") {
            put_num(&mut m, "total_sleep_time", self.total_sleep_secs());
        }
        put_num(&mut m, "total_sleep_hours", self.total_sleep_secs().map(|s| fields::round(s / 3600.0, 2)));
        m.insert("data".into(), Value::Object(self.data.clone()));
        fields::merge_extra(&mut m, &self.extra);
        Value::Object(m)
    }
}

/// True when `[start, end)` overlaps some local 22:00–07:00 window in `zone`.
fn overlaps_night(start: Instant, end: Instant, zone: &Zone) -> bool {
    let (ls, le) = (zone.local_secs(start), zone.local_secs(end));
    let first = ls.div_euclid(DAY_SECS);
    let last = le.div_euclid(DAY_SECS) + 1;
    (first..=last).any(|day| {
        let midnight = day * DAY_SECS;
        ls < midnight + 7 * 3600 && le > midnight - 2 * 3600
    })
}

/// Decodes the `series` of a getsummary body.
pub fn decode_nights(body: &Value) -> Vec<SleepNight> {
    fields::list(body, "series").into_iter().map(decode_night).collect()
}

/// Decodes one getsummary item.
pub fn decode_night(v: &Value) -> SleepNight {
    SleepNight {
        id: fields::int(v, "id"),
        timezone: fields::text(v, "timezone"),
        model: fields::int(v, "model"),
        model_id: fields::int(v, "model_id"),
        hash_deviceid: fields::text(v, "hash_deviceid"),
        start: fields::instant(v, "startdate"),
        end: fields::instant(v, "enddate"),
        date: fields::date(v, "date"),
        created: fields::instant(v, "created"),
        modified: fields::instant(v, "modified"),
        completed: fields::flag(v, "completed"),
        data: fields::object(v, "data"),
        extra: fields::extra(v, NIGHT_KEYS),
    }
}

/// One state segment from sleep `get`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SleepSegment {
    pub start: Option<Instant>,
    pub end: Option<Instant>,
    pub state: Option<i64>,
    /// A device name such as "Sleep Analyzer" (a string here, unlike in the summary).
    pub model: Option<String>,
    pub model_id: Option<i64>,
    pub hash_deviceid: Option<String>,
    /// Every map-valued field (`hr`, `rr`, `snoring`, `sdnn_1`, `rmssd`, …): time → value.
    pub series: BTreeMap<String, Vec<(Instant, f64)>>,
    pub extra: Map<String, Value>,
}

impl SleepSegment {
    /// The state name, `None` for codes not in the table.
    pub fn state_name(&self) -> Option<&'static str> {
        self.state.and_then(state_name)
    }

    /// Seconds between start and end.
    pub fn duration_secs(&self) -> Option<i64> {
        Some(self.end?.0 - self.start?.0).filter(|d| *d >= 0)
    }

    /// The segment as JSON (see the module docs); times are read in `zones.user()`.
    pub fn to_json(&self, zones: &Zones) -> Value {
        let zone = zones.user();
        let mut m = Map::new();
        put(&mut m, "startdate", self.start.map(|t| t.0));
        put(&mut m, "enddate", self.end.map(|t| t.0));
        put(&mut m, "duration", self.duration_secs());
        put(&mut m, "local_start", self.start.map(|t| format_local(t, zone)));
        put(&mut m, "local_end", self.end.map(|t| format_local(t, zone)));
        m.insert("timezone".into(), json!(zone.name()));
        put(&mut m, "state", self.state);
        put(
            &mut m,
            "state_name",
            self.state_name().map(str::to_string).or(self.state.map(|s| format!("unknown_{s}"))),
        );
        put(&mut m, "model", self.model.clone());
        put(&mut m, "model_id", self.model_id);
        put(&mut m, "hash_deviceid", self.hash_deviceid.clone());
        for (key, points) in &self.series {
            let arr = points.iter().map(|(t, v)| json!([t.0, fields::number(*v)])).collect();
            m.insert(key.clone(), Value::Array(arr));
        }
        fields::merge_extra(&mut m, &self.extra);
        Value::Object(m)
    }
}

const SEGMENT_KEYS: &[&str] = &["startdate", "enddate", "state", "model", "model_id", "hash_deviceid"];

/// Decodes the `series` of a sleep `get` body.
pub fn decode_segments(body: &Value) -> Vec<SleepSegment> {
    fields::list(body, "series").into_iter().map(decode_segment).collect()
}

/// Decodes one sleep `get` segment; map-valued fields become sorted time series.
pub fn decode_segment(v: &Value) -> SleepSegment {
    let mut series = BTreeMap::new();
    let mut extra = fields::extra(v, SEGMENT_KEYS);
    let map_keys: Vec<String> = extra.iter().filter(|(_, v)| v.is_object()).map(|(k, _)| k.clone()).collect();
    for key in map_keys {
        let Some(Value::Object(points)) = extra.remove(&key) else { continue };
        let mut pts: Vec<(Instant, f64)> = points
            .iter()
            .filter_map(|(t, v)| Some((Instant(t.trim().parse().ok()?), fields::as_num(v)?)))
            .collect();
        crate::sort::by_key(&mut pts, |(t, _)| *t);
        series.insert(key, pts);
    }
    SleepSegment {
        start: fields::instant(v, "startdate"),
        end: fields::instant(v, "enddate"),
        state: fields::int(v, "state"),
        model: fields::text(v, "model"),
        model_id: fields::int(v, "model_id"),
        hash_deviceid: fields::text(v, "hash_deviceid"),
        series,
        extra,
    }
}

/// Seconds per state name over `segments` (for a quick breakdown of a detail window).
pub fn state_totals(segments: &[SleepSegment]) -> BTreeMap<String, i64> {
    let mut out = BTreeMap::new();
    for s in segments {
        let name = s.state_name().map(str::to_string).unwrap_or_else(|| "unknown".to_string());
        *out.entry(name).or_insert(0) += s.duration_secs().unwrap_or(0);
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn paris() -> Zone {
        Zone::from_posix("CET-1CEST,M3.5.0,M10.5.0/3").unwrap().renamed("Europe/Paris")
    }

    fn zones() -> Zones {
        let mut z = Zones::new(Zone::utc());
        z.insert(paris());
        z
    }

    fn body(fixture: &str) -> Value {
        let v: Value = serde_json::from_str(fixture).unwrap();
        v["body"].clone()
    }

    #[test]
    fn decodes_summary_fixture() {
        let nights = decode_nights(&body(include_str!("../../fixtures/withings/sleep_v2_getsummary.json")));
        assert_eq!(nights.len(), 1);
        let n = &nights[0];
        assert_eq!(n.id, Some(800000001));
        assert_eq!(n.total_sleep_secs(), Some(25200.0));
        assert_eq!(n.sleep_score(), Some(81.0));
        assert_eq!(n.completed, Some(true));
        let j = n.to_json(&zones());
        let want = [
            ("date", json!("2025-01-01")),
            ("local_start", json!("2025-01-01T00:00:00+01:00")),
            ("local_end", json!("2025-01-01T08:00:00+01:00")),
            ("timezone", json!("Europe/Paris")),
            ("nap", json!(false)),
            ("time_in_bed", json!(28800)),
            ("deep_sleep", json!(6000)),
            ("light_sleep", json!(13800)),
            ("rem_sleep", json!(5400)),
            ("wakeup_count", json!(2)),
            ("sleep_efficiency", json!(0.88)),
            ("hr_min", json!(49)),
            ("rr_max", json!(18)),
            ("snoring_episodes", json!(9)),
            ("total_sleep_hours", json!(7.0)),
        ];
        for (k, v) in want {
            assert_eq!(j[k], v, "{k}");
        }
        assert_eq!(j["data"]["night_events"]["3"], json!([12600, 27900]));
        assert_eq!(j["data"].as_object().map(Map::len), Some(27));
    }

    #[test]
    fn nap_rule() {
        let z = paris();
        let night = |start: &str, end: &str| {
            let t = |s: &str| match crate::domain::time::parse_date_arg(s).unwrap() {
                crate::domain::time::DateArg::At(t) => t,
                crate::domain::time::DateArg::Day(_) => unreachable!(),
            };
            SleepNight { start: Some(t(start)), end: Some(t(end)), ..SleepNight::default() }
        };
        let cases = [
            ("2026-01-10T23:00+01:00", "2026-01-11T07:00+01:00", false),
            ("2026-01-11T03:00+01:00", "2026-01-11T06:30+01:00", false),
            ("2026-01-11T14:00+01:00", "2026-01-11T15:30+01:00", true),
            ("2026-01-11T22:30+01:00", "2026-01-12T00:30+01:00", true), // under 3 h
            ("2026-01-11T08:00+01:00", "2026-01-11T14:00+01:00", true), // daytime
            ("2026-01-11T06:00+01:00", "2026-01-11T11:00+01:00", false), // ends the night
            ("2026-01-11T21:00+01:00", "2026-01-12T00:00+01:00", false),
        ];
        for (s, e, nap) in cases {
            assert_eq!(night(s, e).is_nap(&z), Some(nap), "{s}..{e}");
        }
        assert_eq!(SleepNight::default().is_nap(&z), None);
    }

    #[test]
    fn summary_missing_every_optional_field() {
        let n = decode_night(&json!({}));
        assert_eq!(n, SleepNight::default());
        assert_eq!(n.total_sleep_secs(), None);
        assert_eq!(n.sleep_score(), None);
        let j = n.to_json(&Zones::new(Zone::utc()));
        assert_eq!(j, json!({"timezone": "UTC", "data": {}}));
        // External sources: asleepduration, stages null.
        let ext = decode_night(
            &json!({"data": {"asleepduration": 21600, "lightsleepduration": null}, "future_field": 1}),
        );
        assert_eq!(ext.total_sleep_secs(), Some(21600.0));
        let j = ext.to_json(&Zones::new(Zone::utc()));
        assert_eq!(j["total_sleep_time"], json!(21600.0));
        assert_eq!(j["future_field"], 1);
        assert_eq!(j.get("light_sleep"), None);
        // Stages only.
        let st = decode_night(&json!({"data": {"lightsleepduration": 100, "remsleepduration": 50}}));
        assert_eq!(st.total_sleep_secs(), Some(150.0));
    }

    #[test]
    fn decodes_detail_fixture() {
        let segs = decode_segments(&body(include_str!("../../fixtures/withings/sleep_v2_get.json")));
        let names: Vec<_> = segs.iter().map(|s| s.state_name()).collect();
        assert_eq!(names, [Some("awake"), Some("light"), Some("deep"), Some("rem")]);
        let first = &segs[0];
        assert_eq!(first.model.as_deref(), Some("Sleep Analyzer"));
        assert_eq!(first.series["hr"], vec![(Instant(1735686000), 64.0), (Instant(1735686060), 63.0)]);
        assert_eq!(first.series["snoring"].len(), 2);
        assert!(segs[2].series.is_empty());
        let j = first.to_json(&Zones::new(paris()));
        assert_eq!(j["state_name"], "awake");
        assert_eq!(j["duration"], 600);
        assert_eq!(j["hr"], json!([[1735686000, 64.0], [1735686060, 63.0]]));
        assert_eq!(j["local_start"], "2025-01-01T00:00:00+01:00");
        let totals = state_totals(&segs);
        assert_eq!(totals["light"], 3600);
        assert_eq!(totals["rem"], 1200);
    }

    #[test]
    fn detail_edge_cases() {
        let s = decode_segment(&json!({"state": 42, "hr": {"x": 1, "20": "61", "10": 60}}));
        assert_eq!(s.state_name(), None);
        assert_eq!(s.series["hr"], vec![(Instant(10), 60.0), (Instant(20), 61.0)]);
        let j = s.to_json(&Zones::new(Zone::utc()));
        assert_eq!(j["state_name"], "unknown_42");
        let empty = decode_segment(&json!({}));
        assert_eq!(empty, SleepSegment::default());
        assert_eq!(empty.to_json(&Zones::new(Zone::utc())), json!({"timezone": "UTC"}));
        assert!(decode_segments(&json!({"series": []})).is_empty());
        assert_eq!(state_name(15), Some("out_of_bed"));
        assert_eq!(night_event_name(2), Some("fell_asleep"));
    }
}
