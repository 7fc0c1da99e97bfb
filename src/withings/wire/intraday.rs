//! getintradayactivity's answer, decoded in one pass of the scanner from its text: a week of
//! minute samples is about 10,000 of them, so they never become a JSON tree, and their keys and
//! numbers are read where they stand (through serde's visitors, 47 instructions a byte; here
//! about a fifth of that). As lenient as `wire.rs`: a value of the wrong kind reads as absent.

use std::borrow::Cow;

use super::scan::{self, Fault, Lit, Scan};
use super::{Answer, fault_error};
use crate::Result;
use crate::domain::fields::Num;
use crate::domain::intraday::{self, FIELDS, FieldSet, Sample};
use crate::domain::time::Instant;

/// The samples of a getintradayactivity answer with a value in `fields`, each with only those,
/// in the order sent. Its `series` maps epoch-second strings to samples, or is `[]` (PHP's empty
/// map), `null` or absent when there are none; entries whose key is not a time are skipped, and
/// so are samples that are not objects. Text that is not JSON is refused as the list readers
/// refuse it, and so is a body or a series of another kind.
///
/// The fields left out are passed over unread, so a sample is built only when it is kept: a
/// night's HRV is one sample in thirty.
pub fn samples(answer: &Answer, endpoint: &str, fields: FieldSet) -> Result<Vec<Sample>> {
    let mut out = Vec::new();
    let read = scan::whole(&answer.text, |s| {
        s.object(&mut |s, key| match key {
            "body" => match s.peek()? {
                b'{' => s.object(&mut |s, key| match key {
                    "series" => {
                        out = series(s, fields)?;
                        Ok(())
                    }
                    _ => s.skip(),
                }),
                // `[]` and `null` are an empty body, as they were to serde.
                b'[' => s.array(&mut |_| Err(Fault::Shape("the body is not an object"))),
                b'n' => s.skip(),
                _ => Err(Fault::Shape("the body is not an object")),
            },
            _ => s.skip(),
        })
    });
    match read {
        Ok(()) => Ok(out),
        Err(f) => Err(fault_error(f, answer.http_status, endpoint)),
    }
}

/// The series: a map of samples by time, or none.
fn series(s: &mut Scan<'_>, fields: FieldSet) -> std::result::Result<Vec<Sample>, Fault> {
    match s.peek()? {
        b'{' => {}
        // PHP writes an empty map as `[]`; a list with something in it is not a series.
        b'[' => {
            s.array(&mut |_| Err(Fault::Shape("the series is a list, not a map of samples by time")))?;
            return Ok(Vec::new());
        }
        b'n' => {
            s.skip()?;
            return Ok(Vec::new());
        }
        _ => return Err(Fault::Shape("the series is not a map of samples by time")),
    }
    let mut out = Vec::new();
    s.object(&mut |s, key| {
        match time_key(key) {
            Some(t) => sample(s, Instant(t), fields, &mut out)?,
            None => s.skip()?,
        }
        Ok(())
    })?;
    Ok(out)
}

/// A series key as epoch seconds. Withings writes plain digits, read here in one pass; anything
/// else goes through `trim` and `parse` (a third of the cost of reading a skipped sample).
fn time_key(key: &str) -> Option<i64> {
    let bytes = key.as_bytes();
    if (1..=18).contains(&bytes.len()) && bytes.iter().all(u8::is_ascii_digit) {
        return Some(bytes.iter().fold(0, |n, d| n * 10 + i64::from(d - b'0')));
    }
    key.trim().parse().ok()
}

/// One sample at a known time, added to `out` when it has a value in `fields` (anything but an
/// object has none). A field sent twice counts its last value. The sample is built only once it
/// is known to be kept, its model borrowed from the text until then: building each one (and
/// moving it out through a `Result`) cost ~500 instructions a sample, most of them left out.
fn sample<'a>(
    s: &mut Scan<'a>,
    t: Instant,
    fields: FieldSet,
    out: &mut Vec<Sample>,
) -> std::result::Result<(), Fault> {
    if s.peek()? != b'{' {
        return s.skip();
    }
    let (mut values, mut present) = ([0.0; FIELDS.len()], 0u32);
    let (mut model, mut model_id) = (None, None);
    // Keys are matched as bytes, compared in line (a `str` pattern is a call per key tried).
    s.object(&mut |s, key| {
        match key.as_bytes() {
            b"model" => {
                model = match s.lit()? {
                    Lit::Str(m) if !m.is_empty() => Some(m),
                    _ => None,
                }
            }
            b"model_id" => model_id = s.lit()?.int(),
            k => match intraday::field_slot(k).filter(|&i| fields.has(i)) {
                Some(i) => {
                    let v = s.lit()?.number().map(Num::f64).and_then(|v| intraday::plausible(i, v));
                    present &= !(1 << i);
                    if let (Some(v), Some(slot)) = (v, values.get_mut(i)) {
                        *slot = v;
                        present |= 1 << i;
                    }
                }
                None => s.skip()?,
            },
        }
        Ok(())
    })?;
    if present != 0 {
        let mut sample = Sample::at(t);
        for (i, (slot, v)) in sample.values.iter_mut().zip(values).enumerate() {
            *slot = (present & (1 << i) != 0).then_some(v);
        }
        sample.model = model.map(Cow::into_owned);
        sample.model_id = model_id;
        out.push(sample);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::withings::wire::Answer;

    /// The samples of a whole answer's text with a value in `fields`.
    fn read_only(text: &str, fields: FieldSet) -> crate::Result<Vec<Sample>> {
        let answer = Answer { http_status: 200, text: text.to_string() };
        samples(&answer, "/v2/measure getintradayactivity", fields)
    }

    fn read(text: &str) -> crate::Result<Vec<Sample>> {
        read_only(text, FieldSet::ALL)
    }

    struct Body {
        series: Vec<Sample>,
    }

    fn body(text: &str) -> Body {
        let v: serde_json::Value = serde_json::from_str(text).unwrap();
        let text = serde_json::json!({"status": 0, "body": v["body"]}).to_string();
        Body { series: read(&text).unwrap() }
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
                1,
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
        let text = serde_json::json!({"status": 0, "body": {"series": [{"steps": 1}]}}).to_string();
        let err = samples(&Answer { http_status: 200, text }, "/v2/measure x", FieldSet::ALL).unwrap_err();
        assert!(err.to_string().contains("not a map"), "{err}");
    }

    /// Every leniency of the reader: keys trimmed or escaped, values of the wrong kind absent,
    /// numbers as strings or with fractions, a field sent twice counting its last value, other
    /// fields passed over whatever they hold; samples that are not objects, or have no value,
    /// left out.
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
            "540": {},
            "600": {"model": "ScanWatch", "model_id": 93, "heart_rate": 0}
        },"offset":0},"error":"x"}"#;
        let got = read(text).unwrap();
        let times: Vec<i64> = got.iter().map(|s| s.t.0).collect();
        assert_eq!(times, [60, 120, 180]);
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
        // Only the fields asked for, and only the samples that have one of them.
        let rr = read_only(text, FieldSet::of(&["rr", "rmssd"]).unwrap()).unwrap();
        let kept: Vec<_> = rr.iter().map(|s| (s.t.0, s.model.as_deref(), named(s))).collect();
        assert_eq!(kept, [(60, Some("ScanWatch"), vec![("rmssd", 10.0)]), (120, None, vec![("rr", 14.0)])]);
    }

    #[test]
    fn time_keys_read_as_parse_reads_them() {
        for key in [
            "0",
            "60",
            "1794700800",
            "007",
            "999999999999999999",
            "9999999999999999999",
            "",
            " 60",
            "60 ",
            "+60",
            "-60",
            "6 0",
            "6e1",
            "\u{a0}60",
            "٣",
        ] {
            assert_eq!(time_key(key), key.trim().parse().ok(), "{key:?}");
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
