//! Activity records. Optional keys are omitted when absent; fields we do not read follow in
//! structured mode, then `distance_display`:
//!
//! ```text
//! { "date": "2025-01-01", "weekday": "Wednesday", "timezone": "Europe/Paris",
//!   "steps": 8432, "distance": 6120.5, "elevation": 7,          // metres, metres, floors
//!   "soft": 3600, "moderate": 1500, "intense": 600, "active": 2100,   // seconds
//!   "active_minutes": 35, "total_activity_minutes": 95,
//!   "calories": 412.7, "totalcalories": 2290.3,                  // kcal
//!   "hr_average": 71, "hr_min": 52, "hr_max": 148,
//!   "hr_zones": {"light": 45000, "moderate": 3200, "intense": 900, "maximal": 120},   // seconds
//!   "brand": 1, "source": "withings", "is_tracker": true, "model": "ScanWatch", "modelid": 93,
//!   "deviceid": "…", "hash_deviceid": "…", "modified": 1735772000,
//!   …unknown upstream fields…, "distance_display": "6.12 km" }
//! ```

use serde::Serialize;
use serde_json::Value;

use crate::domain::activity::ActivityDay;
use crate::domain::privacy::Domain;
use crate::domain::time::{CivilDate, Zones};
use crate::domain::units::{self, Units};
use crate::tools::records::{HrZonesOut, Kept, Listed};
use crate::withings::wire::activity::{ACTIVITY_KEYS, ActivityWire};

/// A day of activity as a list record.
#[derive(Debug, Serialize)]
pub struct ActivityOut {
    #[serde(skip_serializing_if = "Option::is_none")]
    date: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    weekday: Option<&'static str>,
    timezone: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    steps: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    distance: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    elevation: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    soft: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    moderate: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    intense: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    active: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    active_minutes: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    total_activity_minutes: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    calories: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    totalcalories: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    hr_average: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    hr_min: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    hr_max: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    hr_zones: Option<HrZonesOut>,
    #[serde(skip_serializing_if = "Option::is_none")]
    brand: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    source: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    is_tracker: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    model: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    modelid: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    deviceid: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    hash_deviceid: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    modified: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    distance_display: Option<String>,
}

impl Listed for ActivityOut {
    type Wire = ActivityWire;
    const DOMAIN: Domain = Domain::Activity;
    const LAST: &'static [&'static str] = &["distance_display"];

    fn passes(key: &str, _: &Value) -> bool {
        !ACTIVITY_KEYS.contains(&key)
    }

    fn zone(a: &ActivityDay) -> Option<&str> {
        a.timezone.as_deref()
    }

    /// The day is Withings' own (already local); the zone only names it when the row has none.
    fn new(a: &Kept<Self>, zones: &Zones, units: Units) -> ActivityOut {
        let timezone = match &a.timezone {
            Some(tz) => tz.clone(),
            None => zones.for_record(None).name().to_string(),
        };
        ActivityOut {
            date: a.date.map(|d| d.to_string()),
            weekday: a.date.map(CivilDate::weekday_name),
            timezone,
            steps: a.steps,
            distance: a.distance,
            elevation: a.elevation,
            soft: a.soft,
            moderate: a.moderate,
            intense: a.intense,
            active: a.active,
            active_minutes: a.active_minutes(),
            total_activity_minutes: a.total_activity_minutes(),
            calories: a.calories,
            totalcalories: a.totalcalories,
            hr_average: a.hr_average,
            hr_min: a.hr_min,
            hr_max: a.hr_max,
            hr_zones: HrZonesOut::of(a.hr_zones),
            brand: a.brand,
            source: a.source(),
            is_tracker: a.is_tracker,
            model: a.model.clone(),
            modelid: a.modelid,
            deviceid: a.deviceid.clone(),
            hash_deviceid: a.hash_deviceid.clone(),
            modified: a.modified.map(|t| t.0),
            distance_display: a
                .distance
                .and_then(|d| units::distance(d, units))
                .map(|(v, u)| format!("{} {u}", units::fmt_num(v, 2))),
        }
    }

    fn line(&self, _: Units) -> String {
        let mut parts = Vec::new();
        if let Some(s) = self.steps {
            parts.push(format!("{} steps", units::grouped(s, 0)));
        }
        if let Some(d) = &self.distance_display {
            parts.push(d.clone());
        }
        if let Some(m) = self.active_minutes {
            parts.push(format!("{} active min", units::grouped(m, 0)));
        }
        if let Some(c) = self.calories {
            parts.push(format!("{} kcal active", units::grouped(c, 0)));
        }
        if parts.is_empty() {
            parts.push("no values".into());
        }
        format!("{}: {}", self.date.as_deref().unwrap_or(""), parts.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::domain::privacy::PrivacyMode;
    use crate::domain::time::Zone;
    use crate::store::config::Env;
    use crate::tools::records::{parsed, records};
    use crate::withings::wire::{Answer, PageBody};

    fn days(text: &str) -> Vec<ActivityDay> {
        Answer { http_status: 200, text: text.to_string() }
            .body::<PageBody<ActivityWire>>("/v2/measure getactivity")
            .unwrap()
            .rows
    }

    fn one(row: Value) -> ActivityDay {
        days(&json!({"status": 0, "body": {"activities": [row]}}).to_string()).remove(0)
    }

    fn shown(a: &ActivityDay, zones: &Zones, units: Units) -> Value {
        serde_json::to_value(ActivityOut::new(a, zones, units)).unwrap()
    }

    #[test]
    fn records_from_the_fixture() {
        let d = days(include_str!("../../../fixtures/withings/measure_v2_getactivity.json"));
        assert_eq!(d.len(), 2);
        assert_eq!(d[0].steps, Some(8432.0));
        assert_eq!((d[0].active_minutes(), d[0].total_activity_minutes()), (Some(35.0), Some(95.0)));
        let utc = Zones::new(Zone::utc());
        let j = shown(&d[0], &utc, Units::Metric);
        assert_eq!(
            (&j["date"], &j["weekday"], &j["timezone"]),
            (&json!("2025-01-01"), &json!("Wednesday"), &json!("Europe/Paris"))
        );
        assert_eq!(j["distance"], json!(6120.5));
        assert_eq!(
            j["hr_zones"],
            json!({"light": 45000.0, "moderate": 3200.0, "intense": 900.0, "maximal": 120.0})
        );
        assert_eq!((&j["source"], &j["modelid"]), (&json!("withings"), &json!(93)));
        assert_eq!(j["distance_display"], "6.12 km");
        let ext = &d[1];
        assert_eq!((ext.deviceid.as_deref(), ext.source(), ext.hr_average), (None, Some("external"), None));
        assert_eq!(ext.active_minutes(), Some(4.0));
        assert_eq!(shown(ext, &utc, Units::Metric).get("hr_zones"), None);
        let line = ActivityOut::new(&d[0], &utc, Units::Imperial).line(Units::Imperial);
        assert_eq!(line, "2025-01-01: 8,432 steps, 3.8 mi, 35 active min, 413 kcal active");
    }

    #[test]
    fn missing_fields_and_shapes() {
        let empty = one(json!({}));
        assert_eq!(empty, ActivityDay::default());
        assert_eq!(
            shown(&empty, &Zones::new(Zone::fixed(3600)), Units::Metric),
            json!({"timezone": "+01:00"})
        );
        assert_eq!(
            ActivityOut::new(&empty, &Zones::new(Zone::utc()), Units::Metric).line(Units::Metric),
            ": no values"
        );
        let odd = one(
            json!({"date": "2025-01-03", "steps": "12", "hr_average": 0, "hr_max": "150", "model_id": 7, "is_tracker": 1}),
        );
        assert_eq!((odd.steps, odd.hr_average, odd.hr_max), (Some(12.0), None, Some(150.0)));
        assert_eq!((odd.modelid, odd.is_tracker), (Some(7), Some(true)));
    }

    #[test]
    fn unknown_fields_pass_through_before_the_display_values() {
        let row = json!({"date": "2025-01-03", "distance": 1000, "new": [1], "model_id": 7, "deviceid": "d"});
        let rows = vec![row.to_string().into_boxed_str()];
        let list = |mode| {
            let all = |_: &ActivityOut| true;
            let mut zones = Zones::new(Zone::utc());
            parsed(records::<ActivityOut>(
                &Env::default(),
                "",
                &rows,
                None,
                &mut zones,
                mode,
                Units::Metric,
                &all,
            ))
            .unwrap()
            .remove(0)
            .0
        };
        let s = list(PrivacyMode::Structured);
        let keys: Vec<&str> = s.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys, ["date", "weekday", "timezone", "distance", "modelid", "new", "distance_display"]);
        assert_eq!(
            list(PrivacyMode::Summary),
            json!({"date": "2025-01-03", "timezone": "UTC", "distance": 1000.0})
        );
    }
}
