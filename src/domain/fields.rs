//! Tolerant readers for fields of upstream JSON records, shared by the domain decoders.
//!
//! Withings fields are optional in practice and their types drift (`more` is 0/1 or a bool,
//! `userid` a number or a string, `series` a map or `[]`), so every reader accepts the reasonable
//! variants and yields `None` for anything else instead of failing the whole record.

use serde_json::{Map, Value};

use crate::domain::time::Instant;

/// An integer: a JSON integer, a float with no fraction, or a numeric string.
pub fn int(v: &Value, key: &str) -> Option<i64> {
    as_int(v.get(key)?)
}

/// [`int`] on a value itself.
pub fn as_int(v: &Value) -> Option<i64> {
    match v {
        Value::Number(n) => n.as_i64().or_else(|| {
            let f = n.as_f64()?;
            (f.fract() == 0.0 && f.abs() < 9.0e15).then_some(f as i64)
        }),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// A decimal number, read as `str::parse::<f64>` reads one (an optional sign, digits with an
/// optional point, an optional exponent), by serde_json's number reader, the one every JSON
/// number already goes through: the binary then holds one float parser, not also core's (with
/// its 10 KB table: −16 KB static). Both give the same `f64` for up to 15 significant digits and
/// an exponent of ±22 at most, as every number Withings writes and every number we format has;
/// longer ones may differ in the last bit or two, as the same number written as a JSON number
/// always did. `inf`, `nan` and out-of-range numbers, which no caller keeps, are `None`.
pub fn decimal(s: &str) -> Option<f64> {
    let (negative, unsigned) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    if let Some(f) = short_decimal(unsigned) {
        return Some(if negative { -f } else { f });
    }
    let (mantissa, exponent) = match unsigned.split_once(['e', 'E']) {
        Some((m, e)) => (m, Some(e)),
        None => (unsigned, None),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = |t: &str| t.bytes().all(|b| b.is_ascii_digit());
    if (whole.is_empty() && fraction.is_empty()) || !digits(whole) || !digits(fraction) {
        return None;
    }
    // The same number in JSON's stricter spelling: no `+`, no leading zeros, no bare point.
    let mut json = String::with_capacity(s.len() + 2);
    json.push_str(match whole.trim_start_matches('0') {
        "" => "0",
        w => w,
    });
    if !fraction.is_empty() {
        json.push('.');
        json.push_str(fraction);
    }
    if let Some(e) = exponent {
        let power = e.strip_prefix(['+', '-']).unwrap_or(e);
        if power.is_empty() || !digits(power) {
            return None;
        }
        json.push('e');
        json.push_str(e);
    }
    // The sign goes on last, as core's parser puts it: `-0` stays negative zero.
    let f = serde_json::from_str::<f64>(&json).ok().filter(|f| f.is_finite())?;
    Some(if negative { -f } else { f })
}

/// Digits with at most one point, fifteen digits at most, no exponent (nearly every number
/// Withings writes), computed as serde_json computes it: the digits as an integer divided by a
/// power of ten, both exact, so one rounding. Through a fresh string and serde_json's reader
/// such a number cost ~1,800 instructions (a week of intraday has 13,000 of them).
fn short_decimal(t: &str) -> Option<f64> {
    let (mut m, mut digits, mut point) = (0u64, 0, None);
    for (i, b) in t.bytes().enumerate() {
        match b {
            b'0'..=b'9' => {
                m = m * 10 + u64::from(b - b'0');
                digits += 1;
                if digits > 15 {
                    return None;
                }
            }
            b'.' if point.is_none() => point = Some(i),
            _ => return None,
        }
    }
    if digits == 0 {
        return None;
    }
    // Up to 10^15: each power of ten an exact product.
    let places = point.map_or(0, |i| t.len() - i - 1);
    let scale = (0..places).fold(1.0, |p, _| p * 10.0);
    Some(m as f64 / scale)
}

/// A finite number: a JSON number or a numeric string.
pub fn num(v: &Value, key: &str) -> Option<f64> {
    as_num(v.get(key)?)
}

/// [`num`] on a value itself.
pub fn as_num(v: &Value) -> Option<f64> {
    let f = match v {
        Value::Number(n) => n.as_f64()?,
        Value::String(s) => decimal(s.trim())?,
        _ => return None,
    };
    f.is_finite().then_some(f)
}

/// A non-empty string.
pub fn text(v: &Value, key: &str) -> Option<String> {
    v.get(key)?.as_str().filter(|s| !s.is_empty()).map(str::to_string)
}

/// An epoch-seconds field as an instant.
pub fn instant(v: &Value, key: &str) -> Option<Instant> {
    int(v, key).map(Instant)
}

/// The elements of an array field; a single object counts as a one-element list, anything else
/// (missing, null, `{}` from PHP-style empty maps) as empty.
pub fn list<'a>(v: &'a Value, key: &str) -> Vec<&'a Value> {
    match v.get(key) {
        Some(Value::Array(a)) => a.iter().collect(),
        Some(o @ Value::Object(m)) if !m.is_empty() => vec![o],
        _ => Vec::new(),
    }
}

/// The keys of `v` not in `known`, for passing unknown (future) upstream fields through.
pub fn extra(v: &Value, known: &[&str]) -> Map<String, Value> {
    match v.as_object() {
        Some(m) => m
            .iter()
            .filter(|(k, _)| !known.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
        None => Map::new(),
    }
}

/// Unknown upstream fields of a record, boxed: most records have none, and an empty map inside
/// every one of 160,000 measures cost 10 MB for ten years of weigh-ins.
pub type Extra = Option<Box<Map<String, Value>>>;

/// [`extra`], boxed when not empty.
pub fn extra_boxed(v: &Value, known: &[&str]) -> Extra {
    let m = extra(v, known);
    (!m.is_empty()).then(|| Box::new(m))
}

/// A number as Withings wrote it: an integer stays one in our output (25200, not 25200.0).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Num {
    Int(i64),
    Float(f64),
}

impl Num {
    /// The value as a float.
    pub fn f64(self) -> f64 {
        match self {
            Num::Int(n) => n as f64,
            Num::Float(f) => f,
        }
    }
}

impl serde::Serialize for Num {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match *self {
            Num::Int(n) => s.serialize_i64(n),
            Num::Float(f) => s.serialize_f64(f),
        }
    }
}

/// The numbers of an upstream object that a field table names, one slot per row of the table
/// (sleep `data`, workout `data`): fixed size, no map, no key kept.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Slots<const N: usize>([Option<Num>; N]);

impl<const N: usize> Default for Slots<N> {
    fn default() -> Slots<N> {
        Slots([None; N])
    }
}

impl<const N: usize> Slots<N> {
    /// The value of row `i`.
    pub fn get(&self, i: usize) -> Option<Num> {
        self.0.get(i).copied().flatten()
    }

    /// Sets the value of row `i`.
    pub fn set(&mut self, i: usize, value: Option<Num>) {
        if let Some(slot) = self.0.get_mut(i) {
            *slot = value;
        }
    }
}

/// Rounds to `decimals` places (for derived values such as minutes and hours).
pub fn round(f: f64, decimals: i32) -> f64 {
    let p = 10f64.powi(decimals);
    (f * p).round() / p
}

#[cfg(test)]
mod tests {
    #[test]
    fn decimal_reads_what_core_reads() {
        let same = [
            "0",
            "-0",
            "+0",
            "7",
            "-7",
            "+7",
            "007",
            "72.5",
            "-72.5",
            "0.1",
            "-0.0",
            ".5",
            "-.5",
            "5.",
            "1e3",
            "1E3",
            "1e+3",
            "1e-3",
            "2.5e-2",
            "123456789012345",
            "0.30000000000000004",
            "9007199254740993",
            "18446744073709551616",
            "1e22",
            "1e23",
            "4.9e-324",
            "1.7976931348623157e308",
            "48.8566140",
            "2.3456789",
            "1234567.89",
            "-0.000001",
            "00.50",
        ];
        for s in same {
            let core = s.parse::<f64>().unwrap();
            let ours = decimal(s).unwrap_or(f64::NAN);
            // Equal bits: -0 and 0 differ.
            assert_eq!(core.to_bits(), ours.to_bits(), "{s}");
        }
        // Beyond those, serde_json's reading (the one every JSON number gets) may differ from
        // core's in the last bit: never for up to 15 significant digits and an exponent of ±22
        // at most, and by two units in the last place at most otherwise (400,000 cases).
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut worst = [0i64; 2];
        for _ in 0..400_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let digits = 1 + (x % 19) as usize;
            let m = (x >> 8) % 10u64.pow(digits as u32);
            let point = ((x >> 40) % (digits as u64 + 1)) as usize;
            let text = format!("{m:0digits$}");
            let (a, b) = text.split_at(point);
            let e = ((x >> 50) % 60) as i32 - 30;
            let s = match (x >> 62) & 1 {
                0 => format!("{a}.{b}"),
                _ => format!("{a}.{b}e{e}"),
            };
            let core = s.parse::<f64>().unwrap();
            let ours = decimal(&s).unwrap();
            let ulps = (core.to_bits() as i64 - ours.to_bits() as i64).abs();
            let significant = text.trim_start_matches('0').len();
            let exponent = match (x >> 62) & 1 {
                0 => -(b.len() as i32),
                _ => e - b.len() as i32,
            };
            let short = significant <= 15 && exponent.abs() <= 22;
            let w = &mut worst[usize::from(short)];
            *w = (*w).max(ulps);
        }
        assert!(
            worst[1] == 0 && worst[0] <= 2,
            "[long, short]: at most {worst:?} units in the last place apart"
        );
        for s in [
            "", "+", "-", ".", "-.", "e5", ".e5", "1e", "1e+", "1.2.3", "1,5", " 1", "0x10", "inf", "-inf",
            "NaN", "1e400", "--1", "+-1",
        ] {
            assert_eq!(decimal(s), None, "{s}");
        }
    }

    use serde_json::json;

    use super::*;

    #[test]
    fn tolerant_readers() {
        let v = json!({"i": 3, "f": 3.0, "g": 3.5, "s": " 42 ", "e": "", "n": null, "arr": [1, 2], "obj": {"a": 1}, "empty": {}});
        assert_eq!(int(&v, "i"), Some(3));
        assert_eq!(int(&v, "f"), Some(3));
        assert_eq!(int(&v, "g"), None);
        assert_eq!(int(&v, "s"), Some(42));
        assert_eq!(int(&v, "n"), None);
        assert_eq!(num(&v, "g"), Some(3.5));
        assert_eq!(num(&v, "s"), Some(42.0));
        assert_eq!(text(&v, "e"), None);
        assert_eq!(list(&v, "arr").len(), 2);
        assert_eq!(list(&v, "obj").len(), 1);
        assert_eq!(list(&v, "empty").len(), 0);
        assert_eq!(list(&v, "missing").len(), 0);
        assert_eq!(extra(&json!({"a": 1, "b": 2}), &["a"]).len(), 1);
        assert_eq!(round(1.23456, 2), 1.23);
    }
}
