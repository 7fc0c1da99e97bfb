//! One ECG from heart v2 `get` (withings-api.md §3.7): the trace in µV, its sampling rate, where
//! it was worn, and the heart rate. Its classification and time come from the heart `list` row
//! that names the same `signalid`.
//!
//! A whole trace is 9,000 samples (ScanWatch, 300 Hz for 30 s) or 10,000 (BPM Core, 500 Hz for
//! 20 s): too much for a conversation. [`thin`] keeps at most [`MAX_SAMPLES`], evenly spaced (every
//! k-th sample), so the kept trace has an exact sampling rate of its own.

use serde_json::Value;

use crate::domain::fields;

/// The most samples an answer carries.
pub const MAX_SAMPLES: usize = 2000;

/// A heart `get` answer.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Signal {
    /// µV.
    pub samples: Vec<i64>,
    /// Hz.
    pub sampling_frequency: Option<f64>,
    /// A body position code (§3.1).
    pub wear_position: Option<i64>,
    pub model: Option<i64>,
    pub heart_rate: Option<f64>,
}

impl Signal {
    /// Seconds the trace lasts: samples ÷ sampling rate.
    pub fn duration_secs(&self) -> Option<f64> {
        let hz = self.sampling_frequency.filter(|h| *h > 0.0)?;
        (!self.samples.is_empty()).then(|| self.samples.len() as f64 / hz)
    }
}

/// Decodes a heart `get` body. `heart_rate` is an int, or in newer specs an object with `value`;
/// a sample that is not a number is left out.
pub fn decode_signal(body: &Value) -> Signal {
    let samples = body
        .get("signal")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(fields::as_num).map(|v| v.round() as i64).collect());
    let heart_rate = fields::num(body, "heart_rate")
        .or_else(|| body.get("heart_rate").and_then(|h| fields::num(h, "value")));
    Signal {
        samples: samples.unwrap_or_default(),
        sampling_frequency: fields::num(body, "sampling_frequency").filter(|h| *h > 0.0),
        wear_position: fields::int(body, "wearposition"),
        model: fields::int(body, "model"),
        heart_rate: heart_rate.filter(|h| *h > 0.0),
    }
}

/// A trace thinned to at most `max` samples.
#[derive(Debug, Clone, PartialEq)]
pub struct Thinned {
    /// Every `step`-th sample, starting with the first.
    pub samples: Vec<i64>,
    pub step: usize,
}

/// Keeps every k-th sample, with the smallest k that leaves at most `max` (all when they fit).
pub fn thin(samples: &[i64], max: usize) -> Thinned {
    let step = samples.len().div_ceil(max.max(1)).max(1);
    Thinned { samples: samples.iter().step_by(step).copied().collect(), step }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thinning_is_even_and_bounded() {
        let cases =
            [(9000, 1800, 5), (10_000, 2000, 5), (2000, 2000, 1), (2001, 1001, 2), (12, 12, 1), (0, 0, 1)];
        for (n, kept, step) in cases {
            let xs: Vec<i64> = (0..n).collect();
            let t = thin(&xs, MAX_SAMPLES);
            assert_eq!((t.samples.len(), t.step), (kept as usize, step), "{n}");
            assert!(t.samples.len() <= MAX_SAMPLES);
            assert!(t.samples.windows(2).all(|w| w[1] - w[0] == step as i64), "{n}: evenly spaced");
        }
    }

    #[test]
    fn decodes_the_fixture_and_heart_rate_shapes() {
        let v: Value =
            serde_json::from_str(include_str!("../../fixtures/withings/heart_v2_get.json")).unwrap();
        let s = decode_signal(&v["body"]);
        assert_eq!(s.samples.len(), 12);
        assert_eq!(
            (s.sampling_frequency, s.wear_position, s.model, s.heart_rate),
            (Some(300.0), Some(1), Some(93), Some(67.0))
        );
        let cases = [
            (r#"{"heart_rate":{"grpid":1,"value":71,"date":2}}"#, Some(71.0)),
            (r#"{"heart_rate":"64"}"#, Some(64.0)),
            (r#"{"heart_rate":[1]}"#, None),
            (r#"{"heart_rate":0}"#, None),
        ];
        for (text, want) in cases {
            assert_eq!(decode_signal(&serde_json::from_str(text).unwrap()).heart_rate, want, "{text}");
        }
        let s = decode_signal(
            &serde_json::from_str(r#"{"signal":[1,"x",2.6,null],"sampling_frequency":0}"#).unwrap(),
        );
        assert_eq!((s.samples, s.sampling_frequency), (vec![1, 3], None));
    }

    #[test]
    fn duration() {
        let s = Signal { samples: vec![0; 9000], sampling_frequency: Some(300.0), ..Signal::default() };
        assert_eq!(s.duration_secs(), Some(30.0));
        assert_eq!(Signal { sampling_frequency: Some(0.0), ..s.clone() }.duration_secs(), None);
        assert_eq!(Signal { samples: vec![], ..s }.duration_secs(), None);
    }
}
