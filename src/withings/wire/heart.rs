//! A heart `list` row off the wire, read straight into its domain value.

use std::fmt;

use serde::Deserialize;
use serde::de::value::MapAccessDeserializer;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, Visitor};

use crate::domain::heart::{Ecg, HeartRecord};
use crate::domain::time::Instant;
use crate::withings::wire::{Lit, ReadObject, Row, instant, int, num, object_or_default, text};

/// A heart record.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct HeartWire {
    #[serde(deserialize_with = "instant")]
    timestamp: Option<Instant>,
    #[serde(deserialize_with = "instant")]
    modified: Option<Instant>,
    #[serde(deserialize_with = "int")]
    model: Option<i64>,
    #[serde(deserialize_with = "text")]
    deviceid: Option<String>,
    #[serde(deserialize_with = "heart_rate")]
    heart_rate: Option<f64>,
    #[serde(deserialize_with = "ecg")]
    ecg: Option<EcgWire>,
    #[serde(deserialize_with = "bloodpressure")]
    bloodpressure: Option<BloodPressureWire>,
    #[serde(deserialize_with = "present")]
    stetho: bool,
    /// The reference puts `signalid` inside `ecg`; a top-level one is a fallback only.
    #[serde(deserialize_with = "int")]
    signalid: Option<i64>,
    #[serde(deserialize_with = "text")]
    timezone: Option<String>,
}

/// The upstream keys a heart record is read from (the rest, a stethoscope recording included,
/// passes through where a privacy mode shows it).
pub const HEART_KEYS: &[&str] =
    &["timestamp", "modified", "model", "deviceid", "heart_rate", "ecg", "bloodpressure", "timezone"];

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct EcgWire {
    #[serde(deserialize_with = "int")]
    signalid: Option<i64>,
    #[serde(deserialize_with = "int")]
    afib: Option<i64>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct BloodPressureWire {
    #[serde(deserialize_with = "num")]
    diastole: Option<f64>,
    #[serde(deserialize_with = "num")]
    systole: Option<f64>,
}

impl Row for HeartWire {
    fn page(answer: &super::Answer, endpoint: &str) -> crate::Result<super::PageBody<Self>> {
        answer.page(endpoint)
    }
    type Kept = HeartRecord;
    fn keep(self) -> HeartRecord {
        let signalid = self.signalid;
        HeartRecord {
            timestamp: self.timestamp,
            modified: self.modified,
            model: self.model,
            deviceid: self.deviceid,
            heart_rate: self.heart_rate,
            ecg: self.ecg.map(|e| Ecg { signalid: e.signalid.or(signalid), afib: e.afib }),
            bloodpressure: self.bloodpressure.map(|b| (b.diastole, b.systole)),
            stetho: self.stetho,
            timezone: self.timezone,
        }
    }
}

/// An object read as `T`; anything else is absent.
struct Object<T>(std::marker::PhantomData<T>);

impl<'de, T: Deserialize<'de>> ReadObject<'de> for Object<T> {
    type Out = Option<T>;
    fn read<A: MapAccess<'de>>(self, map: A) -> Result<Option<T>, A::Error> {
        T::deserialize(MapAccessDeserializer::new(map)).map(Some)
    }
}

fn ecg<'de, D: Deserializer<'de>>(d: D) -> Result<Option<EcgWire>, D::Error> {
    object_or_default(d, Object(std::marker::PhantomData))
}

fn bloodpressure<'de, D: Deserializer<'de>>(d: D) -> Result<Option<BloodPressureWire>, D::Error> {
    object_or_default(d, Object(std::marker::PhantomData))
}

/// Any value but `null`.
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    Ok(Option::<IgnoredAny>::deserialize(d)?.is_some())
}

/// A number, or an object with the number under `value` (both shapes occur).
fn heart_rate<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    struct V;
    impl<'de> Visitor<'de> for V {
        type Value = Option<f64>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a heart rate")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Option<f64>, A::Error> {
            let mut value = None;
            while let Some(key) = map.next_key::<String>()? {
                match key.as_str() {
                    "value" => value = map.next_value::<Lit>()?.number().map(|n| n.f64()),
                    _ => drop(map.next_value::<IgnoredAny>()?),
                }
            }
            Ok(value)
        }
        fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Option<f64>, A::Error> {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            Ok(None)
        }
        fn visit_i64<E: de::Error>(self, n: i64) -> Result<Option<f64>, E> {
            Ok(Some(n as f64))
        }
        fn visit_u64<E: de::Error>(self, n: u64) -> Result<Option<f64>, E> {
            Ok(Some(n as f64))
        }
        fn visit_f64<E: de::Error>(self, f: f64) -> Result<Option<f64>, E> {
            Ok(f.is_finite().then_some(f))
        }
        fn visit_str<E: de::Error>(self, s: &str) -> Result<Option<f64>, E> {
            Ok(Lit::Str(s.into()).number().map(|n| n.f64()))
        }
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Option<f64>, E> {
            Ok(None)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Option<f64>, E> {
            Ok(None)
        }
    }
    d.deserialize_any(V)
}
