//! A `getactivity` row off the wire, read straight into its domain value.

use serde::Deserialize;
use serde::de::Deserializer;

use crate::domain::activity::ActivityDay;
use crate::domain::time::{CivilDate, Instant};
use crate::withings::wire::{Row, date, flag, instant, int, num, text};

/// A day of activity from one source.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct ActivityWire {
    #[serde(deserialize_with = "date")]
    date: Option<CivilDate>,
    #[serde(deserialize_with = "text")]
    timezone: Option<String>,
    #[serde(deserialize_with = "num")]
    steps: Option<f64>,
    #[serde(deserialize_with = "num")]
    distance: Option<f64>,
    #[serde(deserialize_with = "num")]
    elevation: Option<f64>,
    #[serde(deserialize_with = "num")]
    soft: Option<f64>,
    #[serde(deserialize_with = "num")]
    moderate: Option<f64>,
    #[serde(deserialize_with = "num")]
    intense: Option<f64>,
    #[serde(deserialize_with = "num")]
    active: Option<f64>,
    #[serde(deserialize_with = "num")]
    calories: Option<f64>,
    #[serde(deserialize_with = "num")]
    totalcalories: Option<f64>,
    #[serde(deserialize_with = "heart_rate")]
    hr_average: Option<f64>,
    #[serde(deserialize_with = "heart_rate")]
    hr_min: Option<f64>,
    #[serde(deserialize_with = "heart_rate")]
    hr_max: Option<f64>,
    #[serde(deserialize_with = "num")]
    hr_zone_0: Option<f64>,
    #[serde(deserialize_with = "num")]
    hr_zone_1: Option<f64>,
    #[serde(deserialize_with = "num")]
    hr_zone_2: Option<f64>,
    #[serde(deserialize_with = "num")]
    hr_zone_3: Option<f64>,
    #[serde(deserialize_with = "int")]
    brand: Option<i64>,
    #[serde(deserialize_with = "flag")]
    is_tracker: Option<bool>,
    #[serde(deserialize_with = "text")]
    model: Option<String>,
    #[serde(deserialize_with = "int")]
    modelid: Option<i64>,
    #[serde(deserialize_with = "int")]
    model_id: Option<i64>,
    #[serde(deserialize_with = "text")]
    deviceid: Option<String>,
    #[serde(deserialize_with = "text")]
    hash_deviceid: Option<String>,
    #[serde(deserialize_with = "instant")]
    modified: Option<Instant>,
}

/// The upstream keys an activity day is read from (the rest passes through where a privacy
/// mode shows it).
pub const ACTIVITY_KEYS: &[&str] = &[
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

impl Row for ActivityWire {
    fn page(answer: &super::Answer, endpoint: &str) -> crate::Result<super::PageBody<Self>> {
        answer.page(endpoint)
    }
    type Kept = ActivityDay;
    fn keep(self) -> ActivityDay {
        ActivityDay {
            date: self.date,
            timezone: self.timezone,
            steps: self.steps,
            distance: self.distance,
            elevation: self.elevation,
            soft: self.soft,
            moderate: self.moderate,
            intense: self.intense,
            active: self.active,
            calories: self.calories,
            totalcalories: self.totalcalories,
            hr_average: self.hr_average,
            hr_min: self.hr_min,
            hr_max: self.hr_max,
            hr_zones: [self.hr_zone_0, self.hr_zone_1, self.hr_zone_2, self.hr_zone_3],
            brand: self.brand,
            is_tracker: self.is_tracker,
            model: self.model,
            modelid: self.modelid.or(self.model_id),
            deviceid: self.deviceid,
            hash_deviceid: self.hash_deviceid,
            modified: self.modified,
        }
    }
}

/// A heart rate of 0 means "no data": absent.
fn heart_rate<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    Ok(num(d)?.filter(|x| *x > 0.0))
}
