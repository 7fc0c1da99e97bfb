//! Heart records. Optional keys are omitted when absent; fields we do not read (a stethoscope
//! recording, as sent) follow in structured mode:
//!
//! ```text
//! { "type": "ecg",                    // "ecg", "blood_pressure", "ecg_blood_pressure",
//!                                     // "stetho" or "heart_rate"
//!   "timestamp": 1735730000, "local_time": "2025-01-01T12:13:20+01:00",
//!   "local_date": "2025-01-01", "timezone": "Europe/Paris",   // the record's, else the user's
//!   "heart_rate": 67.0,
//!   "ecg": {"signalid": 55500001, "afib": 0, "afib_name": "negative"},
//!   "bloodpressure": {"diastole": 79.0, "systole": 124.0},
//!   "model": 93, "model_name": "ScanWatch", "deviceid": "…", "modified": 1735730100 }
//! ```

use serde::Serialize;
use serde_json::Value;

use crate::domain::heart::{HeartRecord, model_name};
use crate::domain::privacy::Domain;
use crate::domain::time::{Zones, format_local};
use crate::domain::units::{self, Units};
use crate::tools::records::{Kept, Listed, when};
use crate::withings::wire::heart::{HEART_KEYS, HeartWire};

/// A heart record as a list record.
#[derive(Debug, Serialize)]
pub struct HeartOut {
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    timestamp: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    local_time: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    local_date: Option<String>,
    timezone: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    heart_rate: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ecg: Option<EcgOut>,
    #[serde(skip_serializing_if = "Option::is_none")]
    bloodpressure: Option<BloodPressureOut>,
    #[serde(skip_serializing_if = "Option::is_none")]
    model: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    model_name: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    deviceid: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    modified: Option<i64>,
}

#[derive(Debug, Serialize)]
struct EcgOut {
    #[serde(skip_serializing_if = "Option::is_none")]
    signalid: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    afib: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    afib_name: Option<&'static str>,
}

#[derive(Debug, Serialize)]
struct BloodPressureOut {
    #[serde(skip_serializing_if = "Option::is_none")]
    diastole: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    systole: Option<f64>,
}

impl Listed for HeartOut {
    type Wire = HeartWire;
    const DOMAIN: Domain = Domain::Heart;

    fn passes(key: &str, _: &Value) -> bool {
        !HEART_KEYS.contains(&key)
    }

    fn zone(h: &HeartRecord) -> Option<&str> {
        h.timezone.as_deref()
    }

    /// Local times in the record's own zone, else the user's.
    fn new(h: &Kept<Self>, zones: &Zones, _: Units) -> HeartOut {
        let zone = zones.for_record(h.timezone.as_deref());
        HeartOut {
            kind: h.kind(),
            timestamp: h.timestamp.map(|t| t.0),
            local_time: h.timestamp.map(|t| format_local(t, zone)),
            local_date: h.timestamp.map(|t| zone.local_date(t).to_string()),
            timezone: zone.name().to_string(),
            heart_rate: h.heart_rate,
            ecg: h.ecg.map(|e| EcgOut { signalid: e.signalid, afib: e.afib, afib_name: h.afib_name() }),
            bloodpressure: h.bloodpressure.map(|(diastole, systole)| BloodPressureOut { diastole, systole }),
            model: h.model,
            model_name: h.model.and_then(model_name),
            deviceid: h.deviceid.clone(),
            modified: h.modified.map(|t| t.0),
        }
    }

    fn line(&self, _: Units) -> String {
        let mut parts = vec![self.kind.replace('_', " ")];
        if let Some(hr) = self.heart_rate {
            parts.push(format!("{} bpm", units::fmt_num(hr, 0)));
        }
        if let Some(BloodPressureOut { diastole: Some(d), systole: Some(s) }) = &self.bloodpressure {
            parts.push(format!("{}/{} mmHg", units::fmt_num(*s, 0), units::fmt_num(*d, 0)));
        }
        // An ECG's AFib result stays in the line whatever its code: named, else as the code.
        match self.ecg.as_ref().map(|e| (e.afib_name, e.afib)) {
            Some((Some(name), _)) => parts.push(format!("ECG {}", name.replace('_', " "))),
            Some((None, Some(code))) => parts.push(format!("ECG (AFib code {code})")),
            Some((None, None)) | None => {}
        }
        format!(
            "{}: {}",
            when(self.local_time.as_deref(), self.timestamp.map(|t| t.to_string())),
            parts.join(", ")
        )
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

    fn rows(text: &str) -> Vec<HeartRecord> {
        Answer { http_status: 200, text: text.to_string() }
            .body::<PageBody<HeartWire>>("/v2/heart")
            .unwrap()
            .rows
    }

    fn one(row: Value) -> HeartRecord {
        rows(&json!({"status": 0, "body": {"series": [row]}}).to_string()).remove(0)
    }

    fn shown(h: &HeartRecord, zones: &Zones) -> Value {
        serde_json::to_value(HeartOut::new(h, zones, Units::Metric)).unwrap()
    }

    #[test]
    fn records_from_the_fixture() {
        let recs = rows(include_str!("../../../fixtures/withings/heart_v2_list.json"));
        assert_eq!(recs.len(), 2);
        let zones = Zones::new(Zone::fixed(3600));
        let a = shown(&recs[0], &zones);
        assert_eq!(a["type"], "ecg");
        assert_eq!(a["ecg"], json!({"signalid": 55500001, "afib": 0, "afib_name": "negative"}));
        assert_eq!(a["heart_rate"], json!(67.0));
        assert_eq!(a["local_time"], "2025-01-01T12:13:20+01:00");
        assert_eq!(a["model_name"], "ScanWatch");
        let b = shown(&recs[1], &zones);
        assert_eq!(b["type"], "ecg_blood_pressure");
        assert_eq!(b["ecg"]["afib_name"], "inconclusive");
        assert_eq!(b["bloodpressure"], json!({"diastole": 79.0, "systole": 124.0}));
        assert_eq!(b["model_name"], "BPM Core");
        let line = HeartOut::new(&recs[1], &zones, Units::Metric).line(Units::Metric);
        assert_eq!(
            line,
            "2024-12-31 11:13:20+01:00: ecg blood pressure, 72 bpm, 124/79 mmHg, ECG inconclusive"
        );
    }

    #[test]
    fn shapes_and_missing_fields() {
        let utc = Zones::new(Zone::utc());
        let empty = one(json!({}));
        assert_eq!(empty, HeartRecord::default());
        assert_eq!(shown(&empty, &utc), json!({"type": "heart_rate", "timezone": "UTC"}));
        let cases = [
            (json!({"bloodpressure": {"diastole": 80, "systole": "120"}}), "blood_pressure"),
            (json!({"stetho": {"signalid": 1, "vhd": 0}}), "stetho"),
            (json!({"ecg": {"afib": 1}}), "ecg"),
            (json!({"ecg": null, "bloodpressure": 5, "stetho": null, "heart_rate": 60}), "heart_rate"),
        ];
        for (v, kind) in cases {
            assert_eq!(one(v.clone()).kind(), kind, "{v}");
        }
        let obj_hr =
            one(json!({"heart_rate": {"value": 71, "grpid": 3}, "ecg": {"afib": 99}, "signalid": 4}));
        assert_eq!(obj_hr.heart_rate, Some(71.0));
        assert_eq!(obj_hr.afib_name(), None);
        assert_eq!(shown(&obj_hr, &utc)["ecg"], json!({"signalid": 4, "afib": 99}));
        let line = HeartOut::new(&obj_hr, &utc, Units::Metric).line(Units::Metric);
        assert!(line.ends_with("ecg, 71 bpm, ECG (AFib code 99)"), "{line}");
        assert_eq!(one(json!({"heart_rate": "65.5"})).heart_rate, Some(65.5));
        assert_eq!(one(json!({"heart_rate": [1]})).heart_rate, None);
    }

    #[test]
    fn a_record_keeps_its_own_zone() {
        let mut zones = Zones::new(Zone::utc());
        zones.insert(Zone::from_posix("EST5EDT,M3.2.0,M11.1.0").unwrap().renamed("America/New_York"));
        let h = one(json!({"timestamp": 1_735_730_000, "timezone": "America/New_York", "heart_rate": 60}));
        let j = shown(&h, &zones);
        assert_eq!(
            (j["timezone"].as_str(), j["local_time"].as_str()),
            (Some("America/New_York"), Some("2025-01-01T06:13:20-05:00"))
        );
    }

    #[test]
    fn a_stethoscope_recording_passes_through_as_sent() {
        let row = json!({"timestamp": 0, "stetho": {"signalid": 9, "vhd": 1}, "deviceid": "d"});
        let rows = vec![row.to_string().into_boxed_str()];
        let mut zones = Zones::new(Zone::utc());
        let all = |_: &HeartOut| true;
        let (v, line) = parsed(records::<HeartOut>(
            &Env::default(),
            "",
            &rows,
            None,
            &mut zones,
            PrivacyMode::Structured,
            Units::Metric,
            &all,
        ))
        .unwrap()
        .remove(0);
        assert_eq!(
            (&v["type"], &v["stetho"], v.get("deviceid")),
            (&json!("stetho"), &json!({"signalid": 9, "vhd": 1}), None)
        );
        assert_eq!(line, "1970-01-01 00:00:00+00:00: stetho");
    }

    #[test]
    fn summary_keeps_the_essentials() {
        let row = json!({"deviceid": "d", "model": 44, "ecg": {"signalid": 5, "afib": 1},
                         "bloodpressure": {"diastole": 79, "systole": 124}, "heart_rate": 72, "timestamp": 1735640000});
        let rows = vec![row.to_string().into_boxed_str()];
        let mut zones = Zones::new(Zone::utc());
        let all = |_: &HeartOut| true;
        let (s, _) = parsed(records::<HeartOut>(
            &Env::default(),
            "",
            &rows,
            None,
            &mut zones,
            PrivacyMode::Summary,
            Units::Metric,
            &all,
        ))
        .unwrap()
        .remove(0);
        assert_eq!(s["type"], "ecg_blood_pressure");
        assert_eq!(s["bloodpressure"]["systole"], json!(124.0));
        assert_eq!(s["heart_rate"], json!(72.0));
        assert_eq!(s["ecg"]["afib_name"], "positive");
        assert_eq!(s["timestamp"], 1735640000);
        assert_eq!((s.get("deviceid"), s.get("model")), (None, None));
    }
}
