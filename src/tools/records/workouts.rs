//! Workout records. Optional keys are omitted when absent; `data` (every upstream data field,
//! unchanged) and fields we do not read follow in structured mode, then `distance_display`:
//!
//! ```text
//! { "id": 700000001, "category": 2, "category_name": "run",
//!   "date": "2025-01-01",                        // Withings' day: local date of the start
//!   "startdate": 1735740000, "enddate": 1735742400,
//!   "local_start": "2025-01-01T15:00:00+01:00", "local_end": "…", "timezone": "Europe/Paris",
//!   "duration": 2400, "duration_minutes": 40.0,  // end − start, seconds / minutes
//!   "active_duration": 2305,                     // end − start − pauses, seconds
//!   "calories": 356.0, "distance": 6400.0, "steps": 5980, "elevation": 24, "intensity": 0,
//!   "spo2_average": 97, "pool_laps": 40, "pool_length": 25, "strokes": 720, …,
//!   "hr_average": 151.0, "hr_min": 98.0, "hr_max": 176.0,
//!   "hr_zones": {"light": 60.0, "moderate": 420.0, "intense": 1500.0, "maximal": 420.0},
//!   "model": 93, "attrib": 0, "modified": 1735745000, "deviceid": "…",
//!   "data": { … }, "distance_display": "6.4 km" }
//! ```
//!
//! `calories` and `distance` fall back to the user-entered values; a distance, SpO2 or set of
//! heart-rate zones of 0 is Withings' "no data" (a swim without GPS, a workout without heart
//! rate) and is left out; the `data` object is always
//! kept whole (upstream's summary mode dropped it, and with it calories, steps and heart rate:
//! upstream bug 7).

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};
use serde_json::Value;

use crate::domain::fields::{Num, round};
use crate::domain::privacy::Domain;
use crate::domain::time::{Zones, format_local};
use crate::domain::units::{self, Units};
use crate::domain::workouts::{WORKOUT_FIELDS, Workout, WorkoutField, category_name};
use crate::tools::records::{HrZonesOut, Kept, Listed, when};
use crate::withings::wire::workouts::{WORKOUT_KEYS, WorkoutWire};

/// A workout as a list record.
#[derive(Debug, Serialize)]
pub struct WorkoutOut {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    category: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    category_name: Option<&'static str>,
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
    duration: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    duration_minutes: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    active_duration: Option<i64>,
    #[serde(flatten)]
    values: Values,
    #[serde(skip_serializing_if = "Option::is_none")]
    hr_average: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    hr_min: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    hr_max: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    hr_zones: Option<HrZonesOut>,
    #[serde(skip_serializing_if = "Option::is_none")]
    model: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    attrib: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    modified: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    deviceid: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    distance_display: Option<String>,
}

/// The `data` values shown under their own keys, in table order, with `calories` and
/// `distance` as [`Workout::calories`] and [`Workout::distance`] found them.
#[derive(Debug)]
struct Values(Vec<(&'static str, Num)>);

impl Values {
    fn get(&self, key: &str) -> Option<f64> {
        self.0.iter().find(|(k, _)| *k == key).map(|(_, v)| v.f64())
    }
}

impl Serialize for Values {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

impl Listed for WorkoutOut {
    type Wire = WorkoutWire;
    const DOMAIN: Domain = Domain::Workouts;
    const LAST: &'static [&'static str] = &["distance_display"];
    const WHOLE: Option<&'static str> = Some("data");

    fn passes(key: &str, _: &Value) -> bool {
        !WORKOUT_KEYS.contains(&key)
    }

    fn zone(w: &Workout) -> Option<&str> {
        w.timezone.as_deref()
    }

    fn new(w: &Kept<Self>, zones: &Zones, units: Units) -> WorkoutOut {
        let zone = zones.for_record(w.timezone.as_deref());
        let shown = |f: WorkoutField| match f {
            WorkoutField::Calories => w.calories().map(Num::Float).or(w.data.num(f)),
            WorkoutField::Distance => w.distance().map(Num::Float),
            WorkoutField::Spo2Average => w.data.num(f).filter(|v| v.f64() > 0.0),
            _ => w.data.num(f),
        };
        let values = Values(
            WORKOUT_FIELDS
                .iter()
                .filter(|(_, _, own)| *own)
                .filter_map(|(f, k, _)| Some((*k, shown(*f)?)))
                .collect(),
        );
        let hr_zones =
            [WorkoutField::HrZone0, WorkoutField::HrZone1, WorkoutField::HrZone2, WorkoutField::HrZone3]
                .map(|f| w.get(f));
        let distance_display = values
            .get("distance")
            .and_then(|d| units::distance(d, units))
            .map(|(v, u)| format!("{} {u}", units::fmt_num(v, 2)));
        WorkoutOut {
            id: w.id,
            category: w.category,
            category_name: w.category.map(category_name),
            date: w.date.or(w.start.map(|t| zone.local_date(t))).map(|d| d.to_string()),
            startdate: w.start.map(|t| t.0),
            enddate: w.end.map(|t| t.0),
            local_start: w.start.map(|t| format_local(t, zone)),
            local_end: w.end.map(|t| format_local(t, zone)),
            timezone: zone.name().to_string(),
            duration: w.span_secs(),
            duration_minutes: w.span_secs().map(|s| round(s as f64 / 60.0, 1)),
            active_duration: w.duration_secs(),
            values,
            hr_average: w.hr(WorkoutField::HrAverage),
            hr_min: w.hr(WorkoutField::HrMin),
            hr_max: w.hr(WorkoutField::HrMax),
            hr_zones: HrZonesOut::of(hr_zones),
            model: w.model,
            attrib: w.attrib,
            modified: w.modified.map(|t| t.0),
            deviceid: w.deviceid.clone(),
            distance_display,
        }
    }

    fn line(&self, units: Units) -> String {
        // A workout without a category still reads as one, not as an empty label.
        let mut parts = vec![self.category_name.unwrap_or("workout").replace('_', " ")];
        if let Some(m) = self.duration_minutes {
            parts.push(format!("{} min", units::fmt_num(m, 0)));
        }
        if let Some(a) = self.active_duration.filter(|a| Some(*a) != self.duration) {
            parts.push(format!("{} min active", units::fmt_num(a as f64 / 60.0, 0)));
        }
        if let Some(c) = self.values.get("calories") {
            parts.push(format!("{} kcal", units::grouped(c, 0)));
        }
        if let Some((v, u)) =
            self.values.get("distance").filter(|d| *d > 0.0).and_then(|d| units::distance(d, units))
        {
            parts.push(format!("{} {u}", units::fmt_num(v, 2)));
        }
        if let Some(hr) = self.hr_average {
            parts.push(format!("avg HR {} bpm", units::fmt_num(hr, 0)));
        }
        format!("{}: {}", when(self.local_start.as_deref(), self.date.clone()), parts.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::domain::privacy::PrivacyMode;
    use crate::domain::time::Zone;
    use crate::store::config::Env;
    use crate::tools::records::{parsed, records};
    use crate::withings::wire::{Answer, PageBody};

    fn zones() -> Zones {
        let mut z = Zones::new(Zone::utc());
        z.insert(Zone::from_posix("CET-1CEST,M3.5.0,M10.5.0/3").unwrap().renamed("Europe/Paris"));
        z
    }

    fn shown(w: &Workout) -> Value {
        serde_json::to_value(WorkoutOut::new(w, &zones(), Units::Metric)).unwrap()
    }

    fn one(row: Value) -> Workout {
        let text = json!({"status": 0, "body": {"series": [row]}}).to_string();
        let mut page: PageBody<WorkoutWire> = Answer { http_status: 200, text }.body("/v2/measure").unwrap();
        page.rows.remove(0)
    }

    #[test]
    fn workouts_from_the_fixture() {
        let text = include_str!("../../../fixtures/withings/measure_v2_getworkouts.json").to_string();
        let ws = Answer { http_status: 200, text }.body::<PageBody<WorkoutWire>>("/v2/measure").unwrap().rows;
        assert_eq!(ws.len(), 2);
        let run = shown(&ws[0]);
        let want = [
            ("category_name", json!("run")),
            ("date", json!("2025-01-01")),
            ("local_start", json!("2025-01-01T15:00:00+01:00")),
            ("duration", json!(2400)),
            ("duration_minutes", json!(40.0)),
            ("calories", json!(356.0)),
            ("distance", json!(6400.0)),
            ("steps", json!(5980)),
            ("hr_average", json!(151.0)),
            ("hr_zones", json!({"light": 60.0, "moderate": 420.0, "intense": 1500.0, "maximal": 420.0})),
            ("distance_display", json!("6.4 km")),
        ];
        for (k, v) in want {
            assert_eq!(run[k], v, "{k}");
        }
        assert_eq!(run.get("spo2_average"), None);
        let swim = &ws[1];
        assert_eq!(swim.hr(WorkoutField::HrAverage), None);
        // 1800 s minus 95 s of detected pauses.
        assert_eq!(swim.duration_secs(), Some(1705));
        let j = shown(swim);
        assert_eq!(
            (&j["category_name"], &j["pool_laps"], &j["calories"]),
            (&json!("swimming"), &json!(40), &json!(210.0))
        );
        assert_eq!(j.get("hr_average"), None);
        let out = WorkoutOut::new(&ws[0], &zones(), Units::Imperial);
        assert_eq!(
            out.line(Units::Imperial),
            "2025-01-01 15:00:00+01:00: run, 40 min, 356 kcal, 3.98 mi, avg HR 151 bpm"
        );
    }

    #[test]
    fn zeros_meaning_no_data_are_absent_and_both_durations_are_shown() {
        let w = one(json!({"category": 7, "startdate": 0, "enddate": 1800, "data": {
            "distance": 0, "spo2_average": 0, "pool_laps": 40, "algo_pause_duration": 95,
            "hr_zone_0": 0, "hr_zone_1": 0, "hr_zone_2": 0, "hr_zone_3": 0}}));
        let j = shown(&w);
        for k in ["distance", "spo2_average", "hr_zones", "distance_display"] {
            assert_eq!(j.get(k), None, "{k}: {j}");
        }
        assert_eq!(
            (&j["duration"], &j["active_duration"], &j["pool_laps"]),
            (&json!(1800), &json!(1705), &json!(40))
        );
        let line = WorkoutOut::new(&w, &zones(), Units::Metric).line(Units::Metric);
        assert!(line.ends_with("swimming, 30 min, 28 min active"), "{line}");
    }

    #[test]
    fn missing_fields_and_unknown_category() {
        let w = one(json!({}));
        assert_eq!(w, Workout::default());
        assert_eq!(shown(&w), json!({"timezone": "UTC"}));
        assert_eq!(WorkoutOut::new(&w, &zones(), Units::Metric).line(Units::Metric), "(no date): workout");
        let w = one(
            json!({"category": 533, "data": {"manual_calories": 120, "calories": 0}, "startdate": 0, "enddate": 60}),
        );
        let j = shown(&w);
        assert_eq!((&j["category"], &j["category_name"]), (&json!(533), &json!("other")));
        assert_eq!((&j["calories"], &j["date"]), (&json!(120.0), &json!("1970-01-01")));
    }

    #[test]
    fn summary_keeps_the_essentials_and_structured_the_whole_data() {
        let row = json!({"id": 1, "category": 2, "startdate": 0, "enddate": 1800, "deviceid": "d",
                         "data": {"calories": 356, "steps": 5980, "distance": 6400, "hr_average": 151}});
        let rows = vec![row.to_string().into_boxed_str()];
        let view = |mode| {
            let mut z = zones();
            parsed(records::<WorkoutOut>(
                &Env::default(),
                "/v2/measure getworkouts",
                &rows,
                None,
                &mut z,
                mode,
                Units::Metric,
                &|_| true,
            ))
            .unwrap()
            .remove(0)
            .0
        };
        let s = view(PrivacyMode::Summary);
        for k in [
            "category_name",
            "local_start",
            "local_end",
            "duration",
            "calories",
            "distance",
            "steps",
            "hr_average",
        ] {
            assert!(s.get(k).is_some(), "summary workout lacks {k}: {s}");
        }
        assert_eq!(s.get("data"), None);
        let st = view(PrivacyMode::Structured);
        assert_eq!((&st["data"]["hr_average"], st.get("deviceid")), (&json!(151), None));
        let keys: Vec<&str> = st.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(&keys[keys.len() - 2..], ["data", "distance_display"], "data, then the display last");
        assert_eq!(view(PrivacyMode::Raw), row);
    }
}
