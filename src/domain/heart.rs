//! Heart records from heart `list` as plain values: ECG results, BPM Core blood pressure, heart
//! rate (`withings::wire::heart` reads them off the wire; `tools::records::heart` shows them).
//!
//! `afib` uses the classification table of measure type 130 (withings-api.md §3.1); heart `list`
//! documents 0 negative, 1 positive, 2 inconclusive, which are its first three rows. The ECG
//! signal itself comes from heart `get` with `ecg.signalid`.

use crate::domain::measures::afib_name;
use crate::domain::time::Instant;

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
    /// True when the record carries a stethoscope recording (shown as sent, by the list tool).
    pub stetho: bool,
    /// The record's own IANA zone, when Withings gives one.
    pub timezone: Option<String>,
}

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
    /// What the record holds: "ecg", "blood_pressure", "ecg_blood_pressure", "stetho" or
    /// "heart_rate".
    pub fn kind(&self) -> &'static str {
        match (self.ecg.is_some(), self.bloodpressure.is_some(), self.stetho) {
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds() {
        let bp = Some((Some(80.0), Some(120.0)));
        let ecg = Some(Ecg { signalid: None, afib: Some(1) });
        let cases = [
            (HeartRecord { bloodpressure: bp, ..HeartRecord::default() }, "blood_pressure"),
            (HeartRecord { stetho: true, ..HeartRecord::default() }, "stetho"),
            (HeartRecord { ecg, ..HeartRecord::default() }, "ecg"),
            (
                HeartRecord { ecg, bloodpressure: bp, stetho: true, ..HeartRecord::default() },
                "ecg_blood_pressure",
            ),
            (HeartRecord { heart_rate: Some(60.0), ..HeartRecord::default() }, "heart_rate"),
        ];
        for (r, kind) in cases {
            assert_eq!(r.kind(), kind, "{r:?}");
        }
        assert_eq!(HeartRecord { ecg, ..HeartRecord::default() }.afib_name(), Some("positive"));
        assert_eq!(model_name(44), Some("BPM Core"));
    }
}
