//! Daily activity from `getactivity`.
//!
//! `date` is already the user's local day (Withings computes it in the record's `timezone`).
//! There can be several rows per date, one per source (a watch and a phone app): they are kept
//! apart, never summed.
//!
//! Active minutes follow the reference (withings-api.md §3.2): Withings' own `active` field is
//! moderate + intense, so `active_minutes` = (moderate + intense) / 60 (falling back to `active`
//! when those are missing); `total_activity_minutes` also counts soft activity. Upstream took the
//! first non-empty field instead of a sum (upstream bug 9).
//!
//! JSON shape of a record ([`ActivityDay::to_json`]); optional keys are omitted when absent:
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
//!   …unknown upstream fields… }
//! ```

use serde_json::{Map, Value, json};

use crate::domain::fields::{self, put, put_num};
use crate::domain::time::{CivilDate, Instant, Zones};

/// One day of activity from one source.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ActivityDay {
    pub date: Option<CivilDate>,
    pub timezone: Option<String>,
    pub steps: Option<f64>,
    pub distance: Option<f64>,
    pub elevation: Option<f64>,
    pub soft: Option<f64>,
    pub moderate: Option<f64>,
    pub intense: Option<f64>,
    pub active: Option<f64>,
    pub calories: Option<f64>,
    pub totalcalories: Option<f64>,
    pub hr_average: Option<f64>,
    pub hr_min: Option<f64>,
    pub hr_max: Option<f64>,
    /// Seconds in the light, moderate, intense and maximal HR zones.
    pub hr_zones: [Option<f64>; 4],
    pub brand: Option<i64>,
    pub is_tracker: Option<bool>,
    pub model: Option<String>,
    pub modelid: Option<i64>,
    pub deviceid: Option<String>,
    pub hash_deviceid: Option<String>,
    pub modified: Option<Instant>,
    pub extra: Map<String, Value>,
}

const KEYS: &[&str] = &[
    "date",
    "timezone",
    "steps",
    "distance",
    "elevation",
    "soft",
    "moderate",
    "intense",
    "active",
    "calories",
    "totalcalories",
    "hr_average",
    "hr_min",
    "hr_max",
    "hr_zone_0",
    "hr_zone_1",
    "hr_zone_2",
    "hr_zone_3",
    "brand",
    "is_tracker",
    "model",
    "modelid",
    "model_id",
    "deviceid",
    "hash_deviceid",
    "modified",
];

/// HR zone names, in `hr_zone_0..3` order.
pub const HR_ZONE_NAMES: [&str; 4] = ["light", "moderate", "intense", "maximal"];

impl ActivityDay {
    /// Minutes of moderate + intense activity (Withings' `active`), see the module docs.
    pub fn active_minutes(&self) -> Option<f64> {
        let secs = match (self.moderate, self.intense) {
            (None, None) => self.active?,
            (m, i) => m.unwrap_or(0.0) + i.unwrap_or(0.0),
        };
        Some((secs / 60.0).round())
    }

    /// Minutes of soft + moderate + intense activity.
    pub fn total_activity_minutes(&self) -> Option<f64> {
        let parts = [self.soft, self.moderate, self.intense];
        parts.iter().any(Option::is_some).then(|| (parts.iter().flatten().sum::<f64>() / 60.0).round())
    }

    /// "withings" for brand 1, "external" for 18 (Apple Health, Google Fit…).
    pub fn source(&self) -> Option<&'static str> {
        match self.brand? {
            1 => Some("withings"),
            18 => Some("external"),
            _ => None,
        }
    }

    /// The record as JSON (see the module docs). The zone only names the record's day when the
    /// row lacks a `timezone`.
    pub fn to_json(&self, zones: &Zones) -> Value {
        let zone = zones.for_record(self.timezone.as_deref());
        let mut m = Map::new();
        put(&mut m, "date", self.date.map(|d| d.to_string()));
        put(&mut m, "weekday", self.date.map(CivilDate::weekday_name));
        m.insert("timezone".into(), json!(self.timezone.as_deref().unwrap_or(zone.name())));
        let nums = [
            ("steps", self.steps),
            ("distance", self.distance),
            ("elevation", self.elevation),
            ("soft", self.soft),
            ("moderate", self.moderate),
            ("intense", self.intense),
            ("active", self.active),
            ("active_minutes", self.active_minutes()),
            ("total_activity_minutes", self.total_activity_minutes()),
            ("calories", self.calories),
            ("totalcalories", self.totalcalories),
            ("hr_average", self.hr_average),
            ("hr_min", self.hr_min),
            ("hr_max", self.hr_max),
        ];
        for (k, v) in nums {
            put_num(&mut m, k, v);
        }
        if self.hr_zones.iter().any(Option::is_some) {
            let mut z = Map::new();
            for (name, v) in HR_ZONE_NAMES.iter().zip(self.hr_zones) {
                put_num(&mut z, name, v);
            }
            m.insert("hr_zones".into(), Value::Object(z));
        }
        put(&mut m, "brand", self.brand);
        put(&mut m, "source", self.source());
        put(&mut m, "is_tracker", self.is_tracker);
        put(&mut m, "model", self.model.clone());
        put(&mut m, "modelid", self.modelid);
        put(&mut m, "deviceid", self.deviceid.clone());
        put(&mut m, "hash_deviceid", self.hash_deviceid.clone());
        put(&mut m, "modified", self.modified.map(|t| t.0));
        fields::merge_extra(&mut m, &self.extra);
        Value::Object(m)
    }
}

/// Decodes the `activities` of a getactivity body (a list, or one object from legacy calls).
pub fn decode_activities(body: &Value) -> Vec<ActivityDay> {
    fields::list(body, "activities").into_iter().map(decode_activity).collect()
}

/// Decodes one activity row. HR values of 0 mean "no data" and become `None`.
pub fn decode_activity(v: &Value) -> ActivityDay {
    let n = |k: &str| fields::num(v, k);
    let hr = |k: &str| fields::num(v, k).filter(|x| *x > 0.0);
    ActivityDay {
        date: fields::date(v, "date"),
        timezone: fields::text(v, "timezone"),
        steps: n("steps"),
        distance: n("distance"),
        elevation: n("elevation"),
        soft: n("soft"),
        moderate: n("moderate"),
        intense: n("intense"),
        active: n("active"),
        calories: n("calories"),
        totalcalories: n("totalcalories"),
        hr_average: hr("hr_average"),
        hr_min: hr("hr_min"),
        hr_max: hr("hr_max"),
        hr_zones: [n("hr_zone_0"), n("hr_zone_1"), n("hr_zone_2"), n("hr_zone_3")],
        brand: fields::int(v, "brand"),
        is_tracker: fields::flag(v, "is_tracker"),
        model: fields::text(v, "model"),
        modelid: fields::int(v, "modelid").or_else(|| fields::int(v, "model_id")),
        deviceid: fields::text(v, "deviceid"),
        hash_deviceid: fields::text(v, "hash_deviceid"),
        modified: fields::instant(v, "modified"),
        extra: fields::extra(v, KEYS),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::domain::time::Zone;

    #[test]
    fn decodes_fixture() {
        let v: Value =
            serde_json::from_str(include_str!("../../fixtures/withings/measure_v2_getactivity.json"))
                .unwrap();
        let days = decode_activities(&v["body"]);
        assert_eq!(days.len(), 2);
        let d = &days[0];
        assert_eq!(d.date.map(|d| d.to_string()).as_deref(), Some("2025-01-01"));
        assert_eq!(d.steps, Some(8432.0));
        // (1500 + 600) / 60 = 35, the same as Withings' `active` 2100 s; not just the first field.
        assert_eq!(d.active_minutes(), Some(35.0));
        assert_eq!(d.total_activity_minutes(), Some(95.0));
        let j = d.to_json(&Zones::new(Zone::utc()));
        assert_eq!(j["timezone"], "Europe/Paris");
        assert_eq!(j["weekday"], "Wednesday");
        assert_eq!(j["distance"], json!(6120.5));
        assert_eq!(
            j["hr_zones"],
            json!({"light": 45000.0, "moderate": 3200.0, "intense": 900.0, "maximal": 120.0})
        );
        assert_eq!(j["source"], "withings");
        assert_eq!(j["deviceid"], "dd00dd00dd00dd00dd00dd00dd00dd00dd00dd00");
        let ext = &days[1];
        assert_eq!(ext.deviceid, None);
        assert_eq!(ext.source(), Some("external"));
        assert_eq!(ext.hr_average, None);
        assert_eq!(ext.active_minutes(), Some(4.0));
        assert_eq!(ext.to_json(&Zones::new(Zone::utc())).get("hr_zones"), None);
    }

    #[test]
    fn missing_fields_and_shapes() {
        let d = decode_activity(&json!({}));
        assert_eq!(d, ActivityDay::default());
        assert_eq!((d.active_minutes(), d.total_activity_minutes()), (None, None));
        assert_eq!(d.to_json(&Zones::new(Zone::fixed(3600))), json!({"timezone": "+01:00"}));
        // Only Withings' own `active` field.
        assert_eq!(decode_activity(&json!({"active": 600})).active_minutes(), Some(10.0));
        // A single object instead of a list (legacy single-date calls), and numeric strings.
        let one = decode_activities(
            &json!({"activities": {"date": "2025-01-03", "steps": "12", "hr_average": 0, "new": [1]}}),
        );
        assert_eq!(one.len(), 1);
        assert_eq!(one[0].steps, Some(12.0));
        assert_eq!(one[0].hr_average, None);
        assert_eq!(one[0].to_json(&Zones::new(Zone::utc()))["new"], json!([1]));
    }
}
