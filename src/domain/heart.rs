//! Heart records from heart `list`: ECG results, BPM Core blood pressure, heart rate.
//!
//! `afib` uses the classification table of measure type 130 (withings-api.md §3.1); heart `list`
//! documents 0 negative, 1 positive, 2 inconclusive, which are its first three rows. The ECG
//! signal itself comes from heart `get` with `ecg.signalid`.
//!
//! JSON shape of a record ([`HeartRecord::to_json`]); optional keys are omitted when absent:
//!
//! ```text
//! { "type": "ecg",                    // "ecg", "blood_pressure", "ecg_blood_pressure",
//!                                     // "stetho" or "heart_rate"
//!   "timestamp": 1735730000, "local_time": "2025-01-01T12:13:20+01:00",
//!   "local_date": "2025-01-01", "timezone": "Europe/Paris",   // the user's zone
//!   "heart_rate": 67,
//!   "ecg": {"signalid": 55500001, "afib": 0, "afib_name": "negative"},
//!   "bloodpressure": {"diastole": 79, "systole": 124},
//!   "stetho": {"signalid": …, "vhd": …},
//!   "model": 93, "model_name": "ScanWatch", "deviceid": "…", "modified": 1735730100,
//!   …unknown upstream fields… }
//! ```

use serde_json::{Map, Value, json};

use crate::domain::fields::{self, put, put_num};
use crate::domain::measures::afib_name;
use crate::domain::time::{Instant, Zones, format_local};

/// An ECG reference and its AFib classification.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Ecg {
    pub signalid: Option<i64>,
    pub afib: Option<i64>,
}

/// One heart record.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct HeartRecord {
    pub timestamp: Option<Instant>,
    pub modified: Option<Instant>,
    pub model: Option<i64>,
    pub deviceid: Option<String>,
    pub heart_rate: Option<f64>,
    pub ecg: Option<Ecg>,
    /// `(diastole, systole)` in mmHg.
    pub bloodpressure: Option<(Option<f64>, Option<f64>)>,
    /// Stethoscope recordings, kept as sent.
    pub stetho: Option<Value>,
    pub extra: Map<String, Value>,
}

const KEYS: &[&str] =
    &["timestamp", "modified", "model", "deviceid", "heart_rate", "ecg", "bloodpressure", "stetho"];

/// Heart-capable device names by model id (withings-api.md §3.10).
pub fn model_name(id: i64) -> Option<&'static str> {
    match id {
        44 => Some("BPM Core"),
        91 | 92 => Some("Move ECG"),
        93 => Some("ScanWatch"),
        94 => Some("ScanWatch 2"),
        95 => Some("ScanWatch Light"),
        _ => None,
    }
}

impl HeartRecord {
    /// What the record holds, for listing: see the module docs.
    pub fn kind(&self) -> &'static str {
        match (self.ecg.is_some(), self.bloodpressure.is_some(), self.stetho.is_some()) {
            (true, true, _) => "ecg_blood_pressure",
            (true, false, _) => "ecg",
            (false, true, _) => "blood_pressure",
            (false, false, true) => "stetho",
            (false, false, false) => "heart_rate",
        }
    }

    /// The AFib classification name.
    pub fn afib_name(&self) -> Option<&'static str> {
        self.ecg?.afib.and_then(afib_name)
    }

    /// The record as JSON, with local time in the user's zone (heart records carry no zone).
    pub fn to_json(&self, zones: &Zones) -> Value {
        let zone = zones.user();
        let mut m = Map::new();
        m.insert("type".into(), json!(self.kind()));
        put(&mut m, "timestamp", self.timestamp.map(|t| t.0));
        put(&mut m, "local_time", self.timestamp.map(|t| format_local(t, zone)));
        put(&mut m, "local_date", self.timestamp.map(|t| zone.local_date(t).to_string()));
        m.insert("timezone".into(), json!(zone.name()));
        put_num(&mut m, "heart_rate", self.heart_rate);
        if let Some(ecg) = self.ecg {
            let mut e = Map::new();
            put(&mut e, "signalid", ecg.signalid);
            put(&mut e, "afib", ecg.afib);
            put(&mut e, "afib_name", self.afib_name());
            m.insert("ecg".into(), Value::Object(e));
        }
        if let Some((dia, sys)) = self.bloodpressure {
            let mut b = Map::new();
            put_num(&mut b, "diastole", dia);
            put_num(&mut b, "systole", sys);
            m.insert("bloodpressure".into(), Value::Object(b));
        }
        put(&mut m, "stetho", self.stetho.clone());
        put(&mut m, "model", self.model);
        put(&mut m, "model_name", self.model.and_then(model_name));
        put(&mut m, "deviceid", self.deviceid.clone());
        put(&mut m, "modified", self.modified.map(|t| t.0));
        fields::merge_extra(&mut m, &self.extra);
        Value::Object(m)
    }
}

/// Decodes the `series` of a heart `list` body.
pub fn decode_heart_records(body: &Value) -> Vec<HeartRecord> {
    fields::list(body, "series").into_iter().map(decode_heart_record).collect()
}

/// Decodes one heart `list` item. `heart_rate` may be a number or an object with `value`.
pub fn decode_heart_record(v: &Value) -> HeartRecord {
    let heart_rate =
        fields::num(v, "heart_rate").or_else(|| v.get("heart_rate").and_then(|h| fields::num(h, "value")));
    let ecg = v.get("ecg").filter(|e| e.is_object()).map(|e| Ecg {
        // The reference says `signalid` sits inside `ecg`; a top-level one is a fallback only.
        signalid: fields::int(e, "signalid").or_else(|| fields::int(v, "signalid")),
        afib: fields::int(e, "afib"),
    });
    let bloodpressure = v
        .get("bloodpressure")
        .filter(|b| b.is_object())
        .map(|b| (fields::num(b, "diastole"), fields::num(b, "systole")));
    HeartRecord {
        timestamp: fields::instant(v, "timestamp"),
        modified: fields::instant(v, "modified"),
        model: fields::int(v, "model"),
        deviceid: fields::text(v, "deviceid"),
        heart_rate,
        ecg,
        bloodpressure,
        stetho: v.get("stetho").filter(|s| !s.is_null()).cloned(),
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
            serde_json::from_str(include_str!("../../fixtures/withings/heart_v2_list.json")).unwrap();
        let recs = decode_heart_records(&v["body"]);
        assert_eq!(recs.len(), 2);
        let zones = Zones::new(Zone::fixed(3600));
        let a = recs[0].to_json(&zones);
        assert_eq!(a["type"], "ecg");
        assert_eq!(a["ecg"], json!({"signalid": 55500001, "afib": 0, "afib_name": "negative"}));
        assert_eq!(a["heart_rate"], json!(67.0));
        assert_eq!(a["local_time"], "2025-01-01T12:13:20+01:00");
        assert_eq!(a["model_name"], "ScanWatch");
        let b = recs[1].to_json(&zones);
        assert_eq!(b["type"], "ecg_blood_pressure");
        assert_eq!(b["ecg"]["afib_name"], "inconclusive");
        assert_eq!(b["bloodpressure"], json!({"diastole": 79.0, "systole": 124.0}));
        assert_eq!(b["model_name"], "BPM Core");
    }

    #[test]
    fn shapes_and_missing_fields() {
        let empty = decode_heart_record(&json!({}));
        assert_eq!(empty, HeartRecord::default());
        assert_eq!(empty.to_json(&Zones::new(Zone::utc())), json!({"type": "heart_rate", "timezone": "UTC"}));
        let cases = [
            (json!({"bloodpressure": {"diastole": 80, "systole": 120}}), "blood_pressure"),
            (json!({"stetho": {"signalid": 1, "vhd": 0}}), "stetho"),
            (json!({"ecg": {"afib": 1}}), "ecg"),
            (json!({"ecg": null, "heart_rate": 60}), "heart_rate"),
        ];
        for (v, kind) in cases {
            assert_eq!(decode_heart_record(&v).kind(), kind, "{v}");
        }
        let obj_hr =
            decode_heart_record(&json!({"heart_rate": {"value": 71, "grpid": 3}, "ecg": {"afib": 99}}));
        assert_eq!(obj_hr.heart_rate, Some(71.0));
        assert_eq!(obj_hr.afib_name(), None);
        let j = obj_hr.to_json(&Zones::new(Zone::utc()));
        assert_eq!(j["ecg"], json!({"afib": 99}));
    }
}
