//! getintradayactivity's answer, decoded in one pass from its text: a week of minute samples is
//! about 10,000 of them, so they never become a JSON tree. As lenient as `wire.rs`: a value of the
//! wrong kind reads as absent.

use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use crate::domain::intraday::{self, Sample};
use crate::domain::time::Instant;
use crate::withings::wire::{int, num, text};

/// A getintradayactivity body: `series` maps epoch-second strings to samples, or is `[]` when
/// there are none. Samples come out in the order sent; entries whose key is not a time are
/// skipped.
#[derive(Debug, Default, Deserialize)]
pub struct IntradayBody {
    #[serde(default, deserialize_with = "samples")]
    pub series: Vec<Sample>,
}

fn samples<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Sample>, D::Error> {
    struct Series;
    impl<'de> Visitor<'de> for Series {
        type Value = Vec<Sample>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a map of samples by time")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Vec<Sample>, A::Error> {
            // A day of minute samples: one allocation for most windows.
            let mut out = Vec::with_capacity(map.size_hint().unwrap_or(1440).min(4096));
            while let Some(TimeKey(t)) = map.next_key()? {
                match t {
                    Some(t) => out.push(map.next_value_seed(SampleAt(Instant(t)))?),
                    None => {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
            }
            Ok(out)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<Sample>, A::Error> {
            // PHP writes an empty map as `[]`; a list with something in it is not a series.
            match seq.next_element::<IgnoredAny>()? {
                None => Ok(Vec::new()),
                Some(_) => Err(de::Error::custom("the series is a list, not a map of samples by time")),
            }
        }
        fn visit_unit<E: de::Error>(self) -> Result<Vec<Sample>, E> {
            Ok(Vec::new())
        }
    }
    d.deserialize_any(Series)
}

/// A map key read as epoch seconds, without allocating.
struct TimeKey(Option<i64>);

impl<'de> Deserialize<'de> for TimeKey {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<TimeKey, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = TimeKey;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a time key")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<TimeKey, E> {
                Ok(TimeKey(s.trim().parse().ok()))
            }
        }
        d.deserialize_str(V)
    }
}

/// The key of a sample's field.
enum SampleKey {
    Field(usize),
    Model,
    ModelId,
    Other,
}

impl<'de> Deserialize<'de> for SampleKey {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<SampleKey, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = SampleKey;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a field name")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<SampleKey, E> {
                Ok(match s {
                    "model" => SampleKey::Model,
                    "model_id" => SampleKey::ModelId,
                    _ => intraday::field_index(s).map_or(SampleKey::Other, SampleKey::Field),
                })
            }
        }
        d.deserialize_str(V)
    }
}

/// One value read with a lenient reader of `wire.rs`.
#[derive(Deserialize)]
struct Num(#[serde(deserialize_with = "num")] Option<f64>);
#[derive(Deserialize)]
struct Int(#[serde(deserialize_with = "int")] Option<i64>);
#[derive(Deserialize)]
struct Text(#[serde(deserialize_with = "text")] Option<String>);

/// Reads one sample at a known time.
struct SampleAt(Instant);

impl<'de> de::DeserializeSeed<'de> for SampleAt {
    type Value = Sample;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Sample, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for SampleAt {
    type Value = Sample;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a sample")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Sample, A::Error> {
        let mut s = Sample::at(self.0);
        while let Some(key) = map.next_key()? {
            match key {
                SampleKey::Field(i) => {
                    let Num(v) = map.next_value()?;
                    if let Some(slot) = s.values.get_mut(i) {
                        *slot = v.and_then(|v| intraday::plausible(i, v));
                    }
                }
                SampleKey::Model => s.model = map.next_value::<Text>()?.0,
                SampleKey::ModelId => s.model_id = map.next_value::<Int>()?.0,
                SampleKey::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(s)
    }
    // Anything but an object is a sample with nothing in it.
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Sample, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Sample::at(self.0))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Sample, E> {
        Ok(Sample::at(self.0))
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Sample, E> {
        Ok(Sample::at(self.0))
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Sample, E> {
        Ok(Sample::at(self.0))
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Sample, E> {
        Ok(Sample::at(self.0))
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Sample, E> {
        Ok(Sample::at(self.0))
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<Sample, E> {
        Ok(Sample::at(self.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::withings::wire::Answer;

    /// The samples of a whole answer's text, as the intraday tool reads them.
    fn read(text: &str) -> crate::Result<Vec<Sample>> {
        let answer = Answer { http_status: 200, text: text.to_string() };
        answer.body::<IntradayBody>("/v2/measure getintradayactivity").map(|b| b.series)
    }

    fn body(text: &str) -> IntradayBody {
        let v: serde_json::Value = serde_json::from_str(text).unwrap();
        let text = serde_json::json!({"status": 0, "body": v["body"]}).to_string();
        IntradayBody { series: read(&text).unwrap() }
    }

    fn fixture(name: &str) -> String {
        std::fs::read_to_string(format!("{}/fixtures/withings/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
    }

    #[test]
    fn intraday_fixture_and_edge_shapes() {
        let b = body(&fixture("measure_v2_getintradayactivity.json"));
        let times: Vec<i64> = b.series.iter().map(|s| s.t.0).collect();
        assert_eq!(times, [1735714800, 1735714860, 1735715400]);
        let first = &b.series[0];
        assert_eq!((first.model.as_deref(), first.model_id), (Some("ScanWatch"), Some(93)));
        assert_eq!(first.get("steps"), Some(42.0));
        assert_eq!(first.get("calories"), Some(2.1));
        assert_eq!(first.get("heart_rate"), Some(88.0));
        assert_eq!(first.get("spo2_auto"), None);
        assert_eq!(b.series[2].get("spo2_auto"), Some(97.0));
        assert!(body(&fixture("measure_v2_getintradayactivity_empty.json")).series.is_empty());
        let cases: &[(&str, usize)] = &[
            (r#"{"body":{"series":null}}"#, 0),
            (r#"{"body":{}}"#, 0),
            (
                r#"{"body":{"series":{"x":{"steps":1},"10":{"steps":"5","heart_rate":0,"rmssd":-1},"20":7}}}"#,
                2,
            ),
            (r#"{"body":{"series":[]}}"#, 0),
            (r#"{"body":null}"#, 0),
            (r#"{"body":{"series":{}}}"#, 0),
        ];
        for (text, n) in cases {
            assert_eq!(body(text).series.len(), *n, "{text}");
        }
        let b = body(cases[2].0);
        assert_eq!(b.series[0].get("steps"), Some(5.0), "a number in a string");
        assert_eq!((b.series[0].get("heart_rate"), b.series[0].get("rmssd")), (None, None), "sentinels");
        assert!(b.series[1].values.iter().all(Option::is_none));
        let text = serde_json::json!({"status": 0, "body": {"series": [{"steps": 1}]}}).to_string();
        let err = Answer { http_status: 200, text }.body::<IntradayBody>("/v2/measure x").unwrap_err();
        assert!(err.to_string().contains("not a map"), "{err}");
    }

    /// Every leniency of the reader: keys trimmed or escaped, values of the wrong kind absent,
    /// numbers as strings or with fractions, a field sent twice counting its last value, other
    /// fields passed over whatever they hold, samples that are not objects empty.
    #[test]
    fn samples_read_leniently() {
        let text = r#"{"status":0,"body":{"more":false,"series":{
            " 60 ": {"deviceid": {"a": [1, {"b": null}]}, "model": "Scan\u0057atch", "model_id": "93",
                     "steps": 12.0, "calories": "0.5", "heart_rate": "x", "rmssd": 1e1, "sdnn1": [3],
                     "spo2_auto": 101, "elevation": {"v": 1}, "distance": null, "duration": true},
            "\u0031\u0032\u0030": {"model": "", "model_id": 93.0, "steps": 1, "steps": 2, "rr": " 14 "},
            "180": {"model": 7, "model_id": "x", "hrv_quality": -0.0},
            "1e3": {"steps": 9},
            "": {"steps": 9},
            "240": [1, {"steps": 3}],
            "300": "steps",
            "360": null,
            "420": false,
            "480": -1.5,
            "540": {}
        },"offset":0},"error":"x"}"#;
        let got = read(text).unwrap();
        let times: Vec<i64> = got.iter().map(|s| s.t.0).collect();
        assert_eq!(times, [60, 120, 180, 240, 300, 360, 420, 480, 540]);
        let s = &got[0];
        assert_eq!((s.model.as_deref(), s.model_id), (Some("ScanWatch"), Some(93)));
        let named = |s: &Sample| -> Vec<(&str, f64)> {
            intraday::FIELDS.iter().filter_map(|f| Some((f.name, s.get(f.name)?))).collect()
        };
        assert_eq!(named(s), [("steps", 12.0), ("calories", 0.5), ("rmssd", 10.0)]);
        assert_eq!((got[1].model.as_deref(), got[1].model_id), (None, Some(93)));
        assert_eq!(named(&got[1]), [("steps", 2.0), ("rr", 14.0)]);
        assert_eq!((got[2].model.as_deref(), got[2].model_id), (None, None));
        assert_eq!(named(&got[2]), [("hrv_quality", -0.0)]);
        for s in &got[3..] {
            assert_eq!(*s, Sample::at(s.t), "{}", s.t.0);
        }
    }

    /// What is not an intraday answer is refused: text that is not JSON as a transport fault
    /// named by its HTTP status, a list of samples or a series of another kind as a shape error.
    #[test]
    fn bad_answers_are_refused() {
        let fault = |text: &str| read(text).map(|s| s.len()).unwrap_err().to_string();
        for text in [
            r#"{"status":0,"body":{"series":{"60":{"steps":1}"#,
            r#"{"status":0,"body":{"series":{"60":{"steps":01}}}}"#,
            r#"{"status":0,"body":{"series":{"60":{"steps":1},}}}"#,
            r#"{"status":0,"body":{"series":{"60":{"x":tru}}}}"#,
            r#"{"status":0,"body":{"series":{"x":[1,]}}}"#,
            r#"{"status":0,"body":{"series":{}}} x"#,
            "<html>502</html>",
        ] {
            assert_eq!(
                fault(text),
                "withings /v2/measure getintradayactivity: unexpected non-JSON answer (HTTP 200)",
                "{text}"
            );
        }
        for text in [
            r#"{"status":0,"body":{"series":[{"steps":1}]}}"#,
            r#"{"status":0,"body":{"series":5}}"#,
            r#"{"status":0,"body":{"series":"x"}}"#,
            r#"{"status":0,"body":7}"#,
        ] {
            let e = fault(text);
            assert!(e.starts_with("withings /v2/measure getintradayactivity: invalid JSON: "), "{text}: {e}");
        }
        assert!(
            fault(r#"{"body":{"series":[1]}}"#)
                .contains("the series is a list, not a map of samples by time")
        );
    }
}
