//! Sleep records: a night from `getsummary` and a state segment from sleep `get`.
//!
//! A night; optional keys are omitted when absent, and `data` (every upstream data field,
//! unchanged, night events included) and fields we do not read follow in structured mode:
//!
//! ```text
//! { "id": 800000001,
//!   "date": "2025-01-01",                        // Withings' day: local date of the wake-up
//!   "startdate": 1735686000, "enddate": 1735714800,
//!   "local_start": "2025-01-01T00:00:00+01:00", "local_end": "2025-01-01T08:00:00+01:00",
//!   "timezone": "Europe/Paris", "nap": false, "completed": true,
//!   "model": 32, "model_id": 63, "hash_deviceid": "…", "created": …, "modified": …,
//!   // named values lifted out of `data` (seconds unless noted), see domain::sleep::SLEEP_FIELDS:
//!   "total_sleep_time": 25200, "time_in_bed": 28800, "light_sleep": 13800, …,
//!   "total_sleep_hours": 7.0,
//!   "data": { … } }
//! ```
//!
//! A segment (times in the user's zone; every map-valued upstream field as `[[time, value], …]`):
//!
//! ```text
//! { "startdate": 1735686000, "enddate": 1735686600, "duration": 600,
//!   "local_start": "…", "local_end": "…", "timezone": "Europe/Paris",
//!   "state": 0, "state_name": "awake",
//!   "model": "Sleep Analyzer", "model_id": 63, "hash_deviceid": "…",
//!   "hr": [[1735686000, 64.0], [1735686060, 63.0]], "rr": […], "snoring": […] }
//! ```

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};
use serde_json::{Map, Value};

use crate::domain::fields::{self, Num, round};
use crate::domain::privacy::Domain;
use crate::domain::sleep::{SleepData, SleepField, SleepNight, SleepSegment, sleep_field};
use crate::domain::time::{Instant, Zones, format_local};
use crate::domain::units::{self, Units};
use crate::tools::records::{Kept, Listed, hours_minutes, short_time, when};
use crate::withings::wire::sleep::{NIGHT_KEYS, NightWire, SEGMENT_KEYS, SegmentWire};

/// A night as a list record.
#[derive(Debug, Serialize)]
pub struct NightOut {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    date: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    startdate: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    enddate: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    local_start: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    local_end: Option<String>,
    timezone: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    nap: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    completed: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    model: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    model_id: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    hash_deviceid: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    created: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    modified: Option<i64>,
    #[serde(flatten)]
    values: Values,
    #[serde(skip_serializing_if = "Option::is_none")]
    core_body_temperature_status: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    total_sleep_hours: Option<f64>,
}

/// A night's named `data` values under their output names; `total_sleep_time` is the time
/// asleep however it was found (see `SleepNight::total_sleep_secs`).
#[derive(Debug)]
struct Values {
    data: SleepData,
}

impl Values {
    fn get(&self, f: SleepField) -> Option<f64> {
        self.data.get(f)
    }
}

impl Serialize for Values {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        for (name, v) in self.data.named() {
            m.serialize_entry(name, &v)?;
        }
        m.end()
    }
}

impl Listed for NightOut {
    type Wire = NightWire;
    const DOMAIN: Domain = Domain::SleepSummary;
    const WHOLE: Option<&'static str> = Some("data");
    const CLEAN: fn(&mut Map<String, Value>) = clean_data;

    fn passes(key: &str, _: &Value) -> bool {
        !NIGHT_KEYS.contains(&key)
    }

    fn zone(n: &SleepNight) -> Option<&str> {
        n.timezone.as_deref()
    }

    fn new(n: &Kept<Self>, zones: &Zones, _: Units) -> NightOut {
        let zone = zones.for_record(n.timezone.as_deref());
        let asleep = n.total_sleep_secs();
        let mut data = n.data;
        if data.num(SleepField::TotalSleepTime).is_none() {
            data.set(SleepField::TotalSleepTime, asleep.map(Num::Float));
        }
        NightOut {
            id: n.id,
            date: n.day(zone).map(|d| d.to_string()),
            startdate: n.start.map(|t| t.0),
            enddate: n.end.map(|t| t.0),
            local_start: n.start.map(|t| format_local(t, zone)),
            local_end: n.end.map(|t| format_local(t, zone)),
            timezone: zone.name().to_string(),
            nap: n.is_nap(zone),
            completed: n.completed,
            model: n.model,
            model_id: n.model_id,
            hash_deviceid: n.hash_deviceid.clone(),
            created: n.created.map(|t| t.0),
            modified: n.modified.map(|t| t.0),
            values: Values { data },
            core_body_temperature_status: n.temperature_status.clone(),
            total_sleep_hours: asleep.map(|s| round(s / 3600.0, 2)),
        }
    }

    fn line(&self, units: Units) -> String {
        let mut parts = Vec::new();
        if self.nap == Some(true) {
            parts.push("nap".to_string());
        }
        if let Some(t) = self.values.get(SleepField::TotalSleepTime) {
            parts.push(format!("asleep {}", hours_minutes(t)));
        }
        for (f, label) in [
            (SleepField::DeepSleep, "deep"),
            (SleepField::RemSleep, "REM"),
            (SleepField::LightSleep, "light"),
        ] {
            if let Some(v) = self.values.get(f) {
                parts.push(format!("{label} {}", hours_minutes(v)));
            }
        }
        if let Some(s) = self.values.get(SleepField::SleepScore) {
            parts.push(format!("score {}", units::fmt_num(s, 0)));
        }
        if let Some(hr) = self.values.get(SleepField::HrAverage) {
            parts.push(format!("avg HR {} bpm", units::fmt_num(hr, 0)));
        }
        for (f, label) in [
            (SleepField::ApneaHypopneaIndex, "apnea–hypopnea index"),
            (SleepField::BreathingDisturbancesIntensity, "breathing disturbances"),
            (SleepField::WithingsIndex, "Withings index"),
        ] {
            if let Some(v) = self.values.get(f) {
                parts.push(format!("{label} {}", units::fmt_num(v, 1)));
            }
        }
        if let Some(v) = self.values.get(SleepField::BreathingSounds) {
            parts.push(format!("breathing sounds {}", hours_minutes(v)));
        }
        if let Some(v) = self.values.get(SleepField::ChestMovementRateAverage) {
            parts.push(format!("chest movements {}/min", units::fmt_num(v, 1)));
        }
        let temperature = self.values.get(SleepField::CoreBodyTemperatureAvg);
        if let Some(t) = temperature.and_then(|t| units::format_quantity(t, "°C", units, 1)) {
            let status = self.core_body_temperature_status.as_deref().map(|s| format!(" ({s})"));
            parts.push(format!("core body temperature {t}{}", status.unwrap_or_default()));
        }
        let span = match (&self.local_start, &self.local_end) {
            (Some(a), Some(b)) => format!(" ({}–{})", short_time(a), short_time(b)),
            _ => String::new(),
        };
        format!("{}{span}: {}", self.date.as_deref().unwrap_or(""), parts.join(", "))
    }
}

/// A night's upstream `data` as structured mode shows it: a value we read as absent (a sentinel,
/// an impossible negative) is `null` there too, never the number Withings sent.
fn clean_data(data: &mut Map<String, Value>) {
    for (k, v) in data.iter_mut() {
        if sleep_field(k).is_some() && fields::as_num(v).is_some_and(|n| n < 0.0) {
            *v = Value::Null;
        }
    }
}

/// A sleep-detail segment as a list record.
#[derive(Debug, Serialize)]
pub struct SegmentOut {
    #[serde(skip_serializing_if = "Option::is_none")]
    startdate: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    enddate: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    duration: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    local_start: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    local_end: Option<String>,
    timezone: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    state: Option<i64>,
    /// The state's name, `unknown_<code>` for codes not in the table.
    #[serde(skip_serializing_if = "Option::is_none")]
    state_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    model: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    model_id: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    hash_deviceid: Option<String>,
    #[serde(flatten)]
    series: Series,
}

/// A segment's series under their upstream names, in the order of the segment's own map (key
/// order). A `Vec` of pairs, not a `BTreeMap` collected anew: `collect` into a map compiles a
/// stable sort of its own for this one type (−7.7 KB of the static binary).
#[derive(Debug)]
struct Series(Vec<(String, Vec<(i64, f64)>)>);

impl Serialize for Series {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (name, points) in &self.0 {
            m.serialize_entry(name, points)?;
        }
        m.end()
    }
}

impl Listed for SegmentOut {
    type Wire = SegmentWire;
    const DOMAIN: Domain = Domain::SleepDetail;

    fn passes(key: &str, value: &Value) -> bool {
        !SEGMENT_KEYS.contains(&key) && !value.is_object()
    }

    fn zone(_: &SleepSegment) -> Option<&str> {
        None
    }

    /// Times are read in the user's zone (segments name none).
    fn new(s: &Kept<Self>, zones: &Zones, _: Units) -> SegmentOut {
        let zone = zones.user();
        let points = |p: &[(Instant, f64)]| p.iter().map(|(t, v)| (t.0, *v)).collect();
        SegmentOut {
            startdate: s.start.map(|t| t.0),
            enddate: s.end.map(|t| t.0),
            duration: s.duration_secs(),
            local_start: s.start.map(|t| format_local(t, zone)),
            local_end: s.end.map(|t| format_local(t, zone)),
            timezone: zone.name().to_string(),
            state: s.state,
            state_name: s.state_name().map(str::to_string).or(s.state.map(|c| format!("unknown_{c}"))),
            model: s.model.clone(),
            model_id: s.model_id,
            hash_deviceid: s.hash_deviceid.clone(),
            series: Series(s.series.iter().map(|(k, p)| (k.clone(), points(p))).collect()),
        }
    }

    fn line(&self, _: Units) -> String {
        let dur = self.duration.map(|d| hours_minutes(d as f64)).unwrap_or_default();
        let when = when(self.local_start.as_deref(), self.startdate.map(|t| t.to_string()));
        format!("{when}: {} {dur}", self.state_name.as_deref().unwrap_or(""))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::domain::time::Zone;
    use crate::withings::wire::sleep::{NightWire, SegmentWire};
    use crate::withings::wire::{Answer, PageBody};

    fn paris() -> Zone {
        Zone::from_posix("CET-1CEST,M3.5.0,M10.5.0/3").unwrap().renamed("Europe/Paris")
    }

    fn zones() -> Zones {
        let mut z = Zones::new(Zone::utc());
        z.insert(paris());
        z
    }

    fn page<R: crate::withings::wire::Row>(text: &str) -> Vec<R::Kept> {
        let page: PageBody<R> =
            R::page(&Answer { http_status: 200, text: text.into() }, "/v2/sleep").unwrap();
        page.rows
    }

    fn one<R: crate::withings::wire::Row>(row: Value) -> R::Kept {
        page::<R>(&json!({"status": 0, "body": {"series": [row]}}).to_string()).remove(0)
    }

    fn night_json(n: &SleepNight, zones: &Zones) -> Value {
        serde_json::to_value(NightOut::new(n, zones, Units::Metric)).unwrap()
    }

    #[test]
    fn a_night_from_the_fixture() {
        let nights = page::<NightWire>(include_str!("../../../fixtures/withings/sleep_v2_getsummary.json"));
        assert_eq!(nights.len(), 1);
        let n = &nights[0];
        assert_eq!(n.id, Some(800000001));
        assert_eq!(n.total_sleep_secs(), Some(25200.0));
        assert_eq!(n.sleep_score(), Some(81.0));
        assert_eq!(n.completed, Some(true));
        let j = night_json(n, &zones());
        let want = [
            ("date", json!("2025-01-01")),
            ("local_start", json!("2025-01-01T00:00:00+01:00")),
            ("local_end", json!("2025-01-01T08:00:00+01:00")),
            ("timezone", json!("Europe/Paris")),
            ("nap", json!(false)),
            ("total_sleep_time", json!(25200)),
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
        let line = NightOut::new(n, &zones(), Units::Metric).line(Units::Metric);
        assert_eq!(
            line,
            "2025-01-01 (00:00–08:00): asleep 7 h 00 min, deep 1 h 40 min, REM 1 h 30 min, light 3 h 50 min, score 81, \
             avg HR 58 bpm, apnea–hypopnea index 4, breathing disturbances 12"
        );
    }

    #[test]
    fn every_documented_breathing_and_temperature_field_with_its_unit() {
        let data = json!({"withings_index": 7.5, "breathing_quality_assessment": 2, "breathing_sounds": 1260,
            "breathing_sounds_episode_count": 4, "chest_movement_rate_wellness_average": 14.2,
            "chest_movement_rate_wellness_min": 11, "chest_movement_rate_wellness_max": 19,
            "chest_movement_rate_average": 15.5, "chest_movement_rate_min": 9, "chest_movement_rate_max": 22,
            "core_body_temperature_avg": 36.6, "core_body_temperature_min": 36.1,
            "core_body_temperature_max": 37.0, "core_body_temperature_status": "usual"});
        let n = one::<NightWire>(json!({"date": "2026-03-02", "data": data}));
        let utc = Zones::new(Zone::utc());
        let j = night_json(&n, &utc);
        let mut named = data.as_object().unwrap().clone();
        let episodes = named.remove("breathing_sounds_episode_count").unwrap();
        named.insert("breathing_sounds_episodes".into(), episodes);
        for (k, v) in &named {
            assert_eq!(&j[k.as_str()], v, "{k}: {j}");
        }
        let line = |u| NightOut::new(&n, &utc, u).line(u);
        assert_eq!(
            line(Units::Metric),
            "2026-03-02: Withings index 7.5, breathing sounds 21 min, chest movements 15.5/min, \
             core body temperature 36.6 °C (usual)"
        );
        assert!(
            line(Units::Imperial).ends_with("core body temperature 97.9 °F (usual)"),
            "{}",
            line(Units::Imperial)
        );
        // Nothing sent, or sentinels: absent from the record and the line.
        let none = one::<NightWire>(json!({"data": {"withings_index": -1, "core_body_temperature_avg": -1}}));
        assert_eq!(night_json(&none, &utc), json!({"timezone": "UTC"}));
    }

    #[test]
    fn a_night_missing_every_optional_field_and_oddly_typed_values() {
        let utc = Zones::new(Zone::utc());
        let n = one::<NightWire>(json!({}));
        assert_eq!(n, SleepNight::default());
        assert_eq!(night_json(&n, &utc), json!({"timezone": "UTC"}));
        // External sources: asleepduration, stages null; `data` of the wrong kind reads as empty.
        let ext = one::<NightWire>(json!({"data": {"asleepduration": 21600, "lightsleepduration": null}}));
        assert_eq!(ext.total_sleep_secs(), Some(21600.0));
        let j = night_json(&ext, &utc);
        assert_eq!((&j["total_sleep_time"], j.get("light_sleep")), (&json!(21600.0), None));
        // Sentinels (-1) and impossible negative durations read as absent.
        let odd = one::<NightWire>(json!({"data": {"apnea_hypopnea_index": -1,
            "breathing_disturbances_intensity": -1, "waso": -25920, "wakeupcount": 0}}));
        let j = night_json(&odd, &utc);
        for k in ["apnea_hypopnea_index", "breathing_disturbances_intensity", "waso"] {
            assert_eq!(j.get(k), None, "{k}: {j}");
        }
        assert_eq!(j["wakeup_count"], json!(0));
        for data in [json!(null), json!([1, 2]), json!("x"), json!(3)] {
            assert_eq!(one::<NightWire>(json!({"id": 1, "data": data})).data, SleepData::default());
        }
        // Numbers as strings, integers as floats; values that are not numbers are absent.
        let odd = one::<NightWire>(json!({"id": "7", "startdate": 3600.0, "completed": 1,
            "data": {"sleep_score": "81", "hr_min": "n/a", "sleep_efficiency": "0.9", "night_events": {"1": [1]}}}));
        assert_eq!((odd.id, odd.start, odd.completed), (Some(7), Some(Instant(3600)), Some(true)));
        let j = night_json(&odd, &utc);
        assert_eq!(
            (&j["sleep_score"], &j["sleep_efficiency"], j.get("hr_min")),
            (&json!(81), &json!(0.9), None)
        );
    }

    #[test]
    fn segments_from_the_fixture() {
        let segs = page::<SegmentWire>(include_str!("../../../fixtures/withings/sleep_v2_get.json"));
        let names: Vec<_> = segs.iter().map(|s| s.state_name()).collect();
        assert_eq!(names, [Some("awake"), Some("light"), Some("deep"), Some("rem")]);
        let first = &segs[0];
        assert_eq!(first.model.as_deref(), Some("Sleep Analyzer"));
        assert_eq!(first.series["hr"], vec![(Instant(1735686000), 64.0), (Instant(1735686060), 63.0)]);
        assert_eq!(first.series["snoring"].len(), 2);
        assert!(segs[2].series.is_empty());
        let out = SegmentOut::new(first, &Zones::new(paris()), Units::Metric);
        assert_eq!(out.line(Units::Metric), "2025-01-01 00:00:00+01:00: awake 10 min");
        let j = serde_json::to_value(out).unwrap();
        assert_eq!(j["state_name"], "awake");
        assert_eq!(j["duration"], 600);
        assert_eq!(j["hr"], json!([[1735686000, 64.0], [1735686060, 63.0]]));
        assert_eq!(j["local_start"], "2025-01-01T00:00:00+01:00");
    }

    #[test]
    fn segment_edge_cases() {
        let utc = Zones::new(Zone::utc());
        let s = one::<SegmentWire>(json!({"state": 42, "hr": {"x": 1, "20": "61", "10": 60}, "note": [1]}));
        assert_eq!(s.state_name(), None);
        assert_eq!(s.series["hr"], vec![(Instant(10), 60.0), (Instant(20), 61.0)]);
        assert!(!s.series.contains_key("note"), "only maps are series");
        let j = serde_json::to_value(SegmentOut::new(&s, &utc, Units::Metric)).unwrap();
        assert_eq!(j["state_name"], "unknown_42");
        let empty = one::<SegmentWire>(json!({}));
        assert_eq!(empty, SleepSegment::default());
        assert_eq!(
            serde_json::to_value(SegmentOut::new(&empty, &utc, Units::Metric)).unwrap(),
            json!({"timezone": "UTC"})
        );
        assert!(SegmentOut::passes("note", &json!([1])) && !SegmentOut::passes("hr", &json!({})));
        assert!(!SegmentOut::passes("state", &json!(1)));
    }
}
