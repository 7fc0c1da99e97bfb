//! Tolerant readers for fields of upstream JSON records, shared by the domain decoders.
//!
//! Withings fields are optional in practice and their types drift (`more` is 0/1 or a bool,
//! `userid` a number or a string, `series` a map or `[]`), so every reader accepts the reasonable
//! variants and yields `None` for anything else instead of failing the whole record.

use serde_json::{Map, Value};

use crate::domain::time::{CivilDate, Instant};

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

/// A finite number: a JSON number or a numeric string.
pub fn num(v: &Value, key: &str) -> Option<f64> {
    as_num(v.get(key)?)
}

/// [`num`] on a value itself.
pub fn as_num(v: &Value) -> Option<f64> {
    let f = match v {
        Value::Number(n) => n.as_f64()?,
        Value::String(s) => s.trim().parse().ok()?,
        _ => return None,
    };
    f.is_finite().then_some(f)
}

/// A non-empty string.
pub fn text(v: &Value, key: &str) -> Option<String> {
    v.get(key)?.as_str().filter(|s| !s.is_empty()).map(str::to_string)
}

/// An identifier that may be a string or a number, as a string.
pub fn id_text(v: &Value, key: &str) -> Option<String> {
    match v.get(key)? {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// A boolean: `true`/`false` or 0/1.
pub fn flag(v: &Value, key: &str) -> Option<bool> {
    match v.get(key)? {
        Value::Bool(b) => Some(*b),
        other => match as_int(other)? {
            0 => Some(false),
            1 => Some(true),
            _ => None,
        },
    }
}

/// An epoch-seconds field as an instant.
pub fn instant(v: &Value, key: &str) -> Option<Instant> {
    int(v, key).map(Instant)
}

/// A `YYYY-MM-DD` field as a civil date.
pub fn date(v: &Value, key: &str) -> Option<CivilDate> {
    CivilDate::parse(v.get(key)?.as_str()?).ok()
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

/// An object field as a map (empty when missing or not an object).
pub fn object(v: &Value, key: &str) -> Map<String, Value> {
    v.get(key).and_then(Value::as_object).cloned().unwrap_or_default()
}

/// A JSON number for a finite f64 (`null` otherwise; JSON has no NaN).
pub fn number(f: f64) -> Value {
    serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)
}

/// Inserts `key: value` when `value` is present.
pub fn put<T: Into<Value>>(m: &mut Map<String, Value>, key: &str, value: Option<T>) {
    if let Some(v) = value {
        m.insert(key.to_string(), v.into());
    }
}

/// Inserts a finite f64 when present.
pub fn put_num(m: &mut Map<String, Value>, key: &str, value: Option<f64>) {
    if let Some(v) = value.filter(|f| f.is_finite()) {
        m.insert(key.to_string(), number(v));
    }
}

/// Copies the `extra` fields into `m` without overwriting decoded ones.
pub fn merge_extra(m: &mut Map<String, Value>, extra: &Map<String, Value>) {
    for (k, v) in extra {
        m.entry(k.clone()).or_insert_with(|| v.clone());
    }
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
    use serde_json::json;

    use super::*;

    #[test]
    fn tolerant_readers() {
        let v = json!({"i": 3, "f": 3.0, "g": 3.5, "s": " 42 ", "b": true, "one": 1, "two": 2, "e": "", "n": null,
                       "d": "2025-01-01", "bad_d": "2025-02-30", "arr": [1, 2], "obj": {"a": 1}, "empty": {}, "id": 77});
        assert_eq!(int(&v, "i"), Some(3));
        assert_eq!(int(&v, "f"), Some(3));
        assert_eq!(int(&v, "g"), None);
        assert_eq!(int(&v, "s"), Some(42));
        assert_eq!(int(&v, "n"), None);
        assert_eq!(num(&v, "g"), Some(3.5));
        assert_eq!(num(&v, "s"), Some(42.0));
        assert_eq!(flag(&v, "b"), Some(true));
        assert_eq!(flag(&v, "one"), Some(true));
        assert_eq!(flag(&v, "two"), None);
        assert_eq!(text(&v, "e"), None);
        assert_eq!(id_text(&v, "id").as_deref(), Some("77"));
        assert_eq!(date(&v, "d").map(|d| d.to_string()).as_deref(), Some("2025-01-01"));
        assert_eq!(date(&v, "bad_d"), None);
        assert_eq!(list(&v, "arr").len(), 2);
        assert_eq!(list(&v, "obj").len(), 1);
        assert_eq!(list(&v, "empty").len(), 0);
        assert_eq!(list(&v, "missing").len(), 0);
        assert_eq!(extra(&json!({"a": 1, "b": 2}), &["a"]).len(), 1);
        assert_eq!(number(f64::NAN), Value::Null);
        assert_eq!(round(1.23456, 2), 1.23);
    }
}
