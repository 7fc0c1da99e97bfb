//! A `getworkouts` row off the wire, read straight into its domain value.

use serde::Deserialize;
use serde::de::Deserializer;

use crate::domain::time::{CivilDate, Instant};
use crate::domain::workouts::{Workout, WorkoutData, workout_field};
use crate::withings::wire::{Row, date, instant, int, slots, text};

/// A workout. `data` keeps the values the domain reads ([`workout_field`]); the rest of it is
/// skipped unread.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct WorkoutWire {
    #[serde(deserialize_with = "int")]
    id: Option<i64>,
    #[serde(deserialize_with = "int")]
    category: Option<i64>,
    #[serde(deserialize_with = "text")]
    timezone: Option<String>,
    #[serde(deserialize_with = "int")]
    model: Option<i64>,
    #[serde(deserialize_with = "int")]
    attrib: Option<i64>,
    #[serde(deserialize_with = "instant")]
    startdate: Option<Instant>,
    #[serde(deserialize_with = "instant")]
    enddate: Option<Instant>,
    #[serde(deserialize_with = "date")]
    date: Option<CivilDate>,
    #[serde(deserialize_with = "instant")]
    modified: Option<Instant>,
    #[serde(deserialize_with = "text")]
    deviceid: Option<String>,
    #[serde(deserialize_with = "workout_data")]
    data: WorkoutData,
}

/// The upstream keys a workout is read from, `data` aside (the rest passes through where a
/// privacy mode shows it).
pub const WORKOUT_KEYS: &[&str] = &[
    "id",
    "category",
    "timezone",
    "model",
    "attrib",
    "startdate",
    "enddate",
    "date",
    "modified",
    "deviceid",
];

impl Row for WorkoutWire {
    fn page(answer: &super::Answer, endpoint: &str) -> crate::Result<super::PageBody<Self>> {
        answer.page(endpoint)
    }
    type Kept = Workout;
    fn keep(self) -> Workout {
        Workout {
            id: self.id,
            category: self.category,
            timezone: self.timezone,
            model: self.model,
            attrib: self.attrib,
            start: self.startdate,
            end: self.enddate,
            date: self.date,
            modified: self.modified,
            deviceid: self.deviceid,
            data: self.data,
        }
    }
}

fn workout_data<'de, D: Deserializer<'de>>(d: D) -> Result<WorkoutData, D::Error> {
    Ok(WorkoutData(slots(d, workout_field)?))
}
