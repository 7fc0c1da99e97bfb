//! Sleep rows off the wire: a `getsummary` night and a sleep `get` segment, each read straight
//! into its domain value.

use std::fmt;

use serde::Deserialize;
use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};

use crate::domain::sleep::{SleepData, SleepNight, SleepSegment, sleep_field};
use crate::domain::time::{CivilDate, Instant};
use crate::withings::wire::{Key, Lit, ReadObject, Row, date, flag, instant, int, object_or_default, text};

/// A `getsummary` night. `data` keeps the values the domain reads ([`sleep_field`]); the rest of
/// it (night events, fields we do not name) is skipped unread.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct NightWire {
    #[serde(deserialize_with = "int")]
    id: Option<i64>,
    #[serde(deserialize_with = "text")]
    timezone: Option<String>,
    #[serde(deserialize_with = "int")]
    model: Option<i64>,
    #[serde(deserialize_with = "int")]
    model_id: Option<i64>,
    #[serde(deserialize_with = "text")]
    hash_deviceid: Option<String>,
    #[serde(deserialize_with = "instant")]
    startdate: Option<Instant>,
    #[serde(deserialize_with = "instant")]
    enddate: Option<Instant>,
    #[serde(deserialize_with = "date")]
    date: Option<CivilDate>,
    #[serde(deserialize_with = "instant")]
    created: Option<Instant>,
    #[serde(deserialize_with = "instant")]
    modified: Option<Instant>,
    #[serde(deserialize_with = "flag")]
    completed: Option<bool>,
    #[serde(deserialize_with = "sleep_data")]
    data: (SleepData, Option<String>),
}

/// The upstream keys a night is read from, `data` aside (the rest passes through where a
/// privacy mode shows it).
pub const NIGHT_KEYS: &[&str] = &[
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
];

impl Row for NightWire {
    fn page(answer: &super::Answer, endpoint: &str) -> crate::Result<super::PageBody<Self>> {
        answer.page(endpoint)
    }
    type Kept = SleepNight;
    fn keep(self) -> SleepNight {
        SleepNight {
            id: self.id,
            timezone: self.timezone,
            model: self.model,
            model_id: self.model_id,
            hash_deviceid: self.hash_deviceid,
            start: self.startdate,
            end: self.enddate,
            date: self.date,
            created: self.created,
            modified: self.modified,
            completed: self.completed,
            data: self.data.0,
            temperature_status: self.data.1,
        }
    }
}

/// Every summary field is a duration, count, rate, score, index or body temperature: a negative
/// value is Withings' "not computed" sentinel (-1 for the apnea–hypopnea index and breathing
/// disturbances) or impossible (a `waso` of −25,920 s), and reads as absent, never as a number.
/// `core_body_temperature_status` is the one text among them.
fn sleep_data<'de, D: Deserializer<'de>>(d: D) -> Result<(SleepData, Option<String>), D::Error> {
    object_or_default(d, NightData)
}

struct NightData;

impl<'de> ReadObject<'de> for NightData {
    type Out = (SleepData, Option<String>);
    fn read<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Out, A::Error> {
        let (mut data, mut status) = (SleepData::default(), None);
        // Some(row) for a value we read, Some(None) for the status, None for the rest.
        let key = |k: &str| match k {
            "core_body_temperature_status" => Some(None),
            _ => sleep_field(k).map(Some),
        };
        while let Some(which) = map.next_key_seed(Key(key))? {
            match which {
                Some(Some(i)) => {
                    data.0.set(i, map.next_value::<Lit>()?.number().filter(|v| v.f64() >= 0.0));
                }
                Some(None) => status = map.next_value::<Lit>()?.text(),
                None => drop(map.next_value::<IgnoredAny>()?),
            }
        }
        Ok((data, status))
    }
}

/// A sleep `get` segment: its span and state, and every map-valued field as a time series.
#[derive(Debug, Default)]
pub struct SegmentWire(SleepSegment);

/// The upstream keys a segment is read from, besides its series.
pub const SEGMENT_KEYS: &[&str] = &["startdate", "enddate", "state", "model", "model_id", "hash_deviceid"];

impl Row for SegmentWire {
    fn page(answer: &super::Answer, endpoint: &str) -> crate::Result<super::PageBody<Self>> {
        answer.page(endpoint)
    }
    type Kept = SleepSegment;
    fn keep(self) -> SleepSegment {
        self.0
    }
    fn start(s: &SleepSegment) -> Option<i64> {
        s.start.map(|t| t.0)
    }
}

impl<'de> Deserialize<'de> for SegmentWire {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<SegmentWire, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = SegmentWire;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a sleep segment")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<SegmentWire, A::Error> {
                let mut s = SleepSegment::default();
                while let Some(key) = map.next_key::<String>()? {
                    match key.as_str() {
                        "startdate" => s.start = map.next_value::<Lit>()?.int().map(Instant),
                        "enddate" => s.end = map.next_value::<Lit>()?.int().map(Instant),
                        "state" => s.state = map.next_value::<Lit>()?.int(),
                        "model_id" => s.model_id = map.next_value::<Lit>()?.int(),
                        "model" => s.model = map.next_value::<Lit>()?.text(),
                        "hash_deviceid" => s.hash_deviceid = map.next_value::<Lit>()?.text(),
                        _ => {
                            if let Some(points) = map.next_value_seed(SeriesSeed)? {
                                s.series.insert(key, points);
                            }
                        }
                    }
                }
                Ok(SegmentWire(s))
            }
        }
        d.deserialize_map(V)
    }
}

/// A map-valued field (`{"<epoch>": value, …}`) as points in time order; any other value is not
/// a series. Points whose time or value cannot be read are left out.
struct SeriesSeed;

impl<'de> serde::de::DeserializeSeed<'de> for SeriesSeed {
    type Value = Option<Vec<(Instant, f64)>>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        object_or_default(d, self)
    }
}

impl<'de> ReadObject<'de> for SeriesSeed {
    type Out = Option<Vec<(Instant, f64)>>;
    fn read<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Out, A::Error> {
        let mut points = Vec::new();
        while let Some(t) = map.next_key_seed(Key(|k: &str| k.trim().parse::<i64>().ok()))? {
            if let (Some(t), Some(v)) = (t, map.next_value::<Lit>()?.number()) {
                points.push((Instant(t), v.f64()));
            }
        }
        crate::sort::by_key(&mut points, |(t, _)| *t);
        Ok(Some(points))
    }
}
