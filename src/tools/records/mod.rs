//! The list tools' records, as typed values: each domain value becomes a `Serialize` struct (its
//! field order is the JSON key order) and the markdown line is rendered from the same struct, so
//! the text cannot say what the JSON does not. One file per domain.
//!
//! Upstream fields a record does not read pass through unchanged in structured mode (new fields
//! Withings adds reach the agent without a release); raw mode shows the upstream row itself.

pub mod activity;
pub mod heart;
pub mod measures;
pub mod sleep;
pub mod workouts;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::domain::privacy::{self, Domain, PrivacyMode};
use crate::domain::time::Zones;
use crate::domain::units::Units;
use crate::store::config::Env;
use crate::withings::wire::Row;
use crate::{Error, Result};

/// One list tool's record.
pub trait Listed: Serialize + Sized {
    /// The upstream row, read off the wire into its domain value (`Row::Kept`).
    type Wire: Row + serde::de::DeserializeOwned;
    /// The domain for the privacy modes.
    const DOMAIN: Domain;
    /// Keys of ours shown after the fields passed through (the display values, last).
    const LAST: &'static [&'static str] = &[];
    /// An upstream object shown whole under its key, right after our fields (`{}` when the row
    /// has none): a night's or a workout's `data`.
    const WHOLE: Option<&'static str> = None;
    /// Tidies that object as structured mode shows it (a night's sentinels become `null`).
    const CLEAN: fn(&mut Map<String, Value>) = |_| {};
    /// True when structured mode writes the record straight to text if its row passes nothing
    /// through (see [`own_text`]): for a type whose decoder keeps the fields it does not read
    /// (`upstream`), and whose lists are long (one more copy of the type's serializer). Its text
    /// is not stripped: no key of its own is sensitive, and the upstream fields it shows (a
    /// measure's unknown ones) come stripped of those that are.
    const TEXT: bool = false;

    /// The row read from its text for `mode` by a reader of the type's own, `None` to leave it
    /// to serde (any row the reader declines: serde reads it, or says why it cannot).
    fn read(_text: &str, _mode: PrivacyMode) -> Option<Kept<Self>> {
        None
    }
    /// The row's parsed tree, when decoding it kept one (taken: asked once); in raw mode, the
    /// whole row.
    fn upstream(_rec: &mut Kept<Self>) -> Option<Value> {
        None
    }
    /// True for an upstream field the record does not read, which passes through.
    fn passes(key: &str, value: &Value) -> bool;
    /// The zone the record names, if any.
    fn zone(rec: &Kept<Self>) -> Option<&str>;
    /// Gives the record the zone the answer gave its rows (getmeas' body `timezone`) when it
    /// names none.
    fn set_body_zone(_rec: &mut Kept<Self>, _body_zone: Option<&str>) {}
    /// The record shown with local times from `zones`, in `units`.
    fn new(rec: &Kept<Self>, zones: &Zones, units: Units) -> Self;
    /// One markdown line.
    fn line(&self, units: Units) -> String;
}

/// The domain value of a list record.
pub type Kept<L> = <<L as Listed>::Wire as Row>::Kept;

/// Rows as a list tool returns them, each as compact JSON text with its markdown line: decoded,
/// filtered by `keep`, in `units`, each record's local times in its own zone (read into
/// `zones`), then cut to what the privacy mode lets out. `body_zone` is the zone the answer gave
/// its rows (getmeas).
#[allow(clippy::too_many_arguments)]
pub fn records<L: Listed>(
    env: &Env,
    endpoint: &str,
    rows: &[Box<str>],
    body_zone: Option<&str>,
    zones: &mut Zones,
    privacy: PrivacyMode,
    units: Units,
    keep: &dyn Fn(&L) -> bool,
) -> Result<Vec<(String, String)>> {
    let mut decoded: Vec<Kept<L>> = Vec::with_capacity(rows.len());
    for r in rows {
        let mut kept = match L::read(r, privacy) {
            Some(kept) => kept,
            None => serde_json::from_str::<L::Wire>(r)
                .map_err(|e| Error::json(format!("withings {endpoint}"), e))?
                .keep(),
        };
        L::set_body_zone(&mut kept, body_zone);
        decoded.push(kept);
    }
    let names = decoded.iter().filter_map(L::zone).chain(body_zone);
    crate::store::zones::add_record_zones(env, zones, names);
    let shape =
        Shape { domain: L::DOMAIN, last: L::LAST, whole: L::WHOLE, clean: L::CLEAN, passes: L::passes };
    let mut out = Vec::with_capacity(decoded.len());
    let mut keys = privacy::Sensitive::default();
    let mut buf = Vec::new();
    for (raw, rec) in rows.iter().zip(&mut decoded) {
        let shown = L::new(rec, zones, units);
        if !keep(&shown) {
            continue;
        }
        let line = shown.line(units);
        let tree = L::upstream(rec);
        if L::TEXT
            && privacy == PrivacyMode::Structured
            && let Some(text) = own_text(&shown, tree.as_ref(), &shape, &mut buf)?
        {
            out.push((text, line));
            continue;
        }
        let ours = match privacy {
            PrivacyMode::Raw => Value::Null,
            _ => serde_json::to_value(&shown).map_err(record_error)?,
        };
        out.push((privacy_view(privacy, raw, tree, ours, &shape, &mut keys)?, line));
    }
    Ok(out)
}

/// The records of [`records`] parsed back: what the tests look into.
#[cfg(test)]
pub fn parsed(records: Result<Vec<(String, String)>>) -> Result<Vec<(Value, String)>> {
    Ok(records?.into_iter().map(|(t, line)| (serde_json::from_str(&t).unwrap(), line)).collect())
}

/// A structured record as its own text, written straight from the record when its row passes
/// nothing through (`tree`, the row's fields the record does not read, is empty). `None`
/// otherwise: the record then goes through its tree ([`privacy_view`]). Building a thousand
/// measure groups' trees to write them once was a third of a listing's instructions and half
/// its page faults.
fn own_text<L: Serialize>(
    shown: &L,
    tree: Option<&Value>,
    shape: &Shape,
    buf: &mut Vec<u8>,
) -> Result<Option<String>> {
    let Some(Value::Object(upstream)) = tree else { return Ok(None) };
    if shape.whole.is_some() || !shape.last.is_empty() || upstream.iter().any(|(k, v)| (shape.passes)(k, v)) {
        return Ok(None);
    }
    // Written into one buffer, then copied out at its size: each record's own text grown from
    // nothing was four allocations, and fresh pages for each.
    buf.clear();
    serde_json::to_writer(&mut *buf, shown).map_err(record_error)?;
    let text = std::str::from_utf8(buf).map_err(|e| Error::json("a list record", e))?;
    Ok(Some(text.to_string()))
}

/// What the privacy modes need of a record type, as data: one copy of the code below, not one
/// per type (binary size).
struct Shape {
    domain: Domain,
    last: &'static [&'static str],
    whole: Option<&'static str>,
    clean: fn(&mut Map<String, Value>),
    passes: fn(&str, &Value) -> bool,
}

fn record_error(e: serde_json::Error) -> Box<Error> {
    Error::json("a list record", e)
}

/// What a privacy mode lets out of one record, as compact text (`ours`: the record as shown,
/// unused in raw mode; `tree`: the row's text parsed, when decoding it parsed it).
fn privacy_view(
    mode: PrivacyMode,
    raw: &str,
    tree: Option<Value>,
    ours: Value,
    shape: &Shape,
    keys: &mut privacy::Sensitive,
) -> Result<String> {
    let upstream = || match tree {
        Some(v) => Ok(v),
        None => serde_json::from_str(raw).map_err(record_error),
    };
    let mut v = match mode {
        PrivacyMode::Raw => {
            let mut v = upstream()?;
            privacy::strip_secrets(&mut v);
            return Ok(crate::value::text(&v));
        }
        PrivacyMode::Structured => match (ours, upstream()?) {
            (Value::Object(ours), Value::Object(upstream)) => {
                Value::Object(pass_through(ours, upstream, shape))
            }
            (ours, _) => ours,
        },
        PrivacyMode::Summary => privacy::summary_view(shape.domain, ours),
    };
    privacy::strip_sensitive_with(&mut v, keys);
    Ok(crate::value::text(&v))
}

/// Our fields, then `shape.whole`, then the upstream fields the record does not read (never over
/// ours), then `shape.last`.
fn pass_through(ours: Map<String, Value>, upstream: Map<String, Value>, shape: &Shape) -> Map<String, Value> {
    // Ours is kept as built when none of its keys goes last (a measure group): building it
    // again, key by key, was a twentieth of a thousand-group list's instructions.
    let (mut out, last): (Map<String, Value>, Map<String, Value>) = match shape.last.is_empty() {
        true => (ours, Map::new()),
        false => ours.into_iter().partition(|(k, _)| !shape.last.contains(&k.as_str())),
    };
    if let Some(key) = shape.whole {
        let mut whole = match upstream.get(key) {
            Some(Value::Object(m)) => m.clone(),
            _ => Map::new(),
        };
        (shape.clean)(&mut whole);
        out.insert(key.to_string(), Value::Object(whole));
    }
    for (k, v) in upstream {
        if (shape.passes)(&k, &v) && !out.contains_key(&k) && !last.contains_key(&k) {
            out.insert(k, v);
        }
    }
    out.extend(last);
    out
}

/// Seconds in the light, moderate, intense and maximal heart-rate zones.
#[derive(Debug, Serialize)]
pub struct HrZonesOut {
    #[serde(skip_serializing_if = "Option::is_none")]
    light: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    moderate: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    intense: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    maximal: Option<f64>,
}

impl HrZonesOut {
    /// The zones `hr_zone_0..3`; none when Withings sent none of them, or only zeros (its
    /// "no heart-rate data").
    pub fn of(z: [Option<f64>; 4]) -> Option<HrZonesOut> {
        let [light, moderate, intense, maximal] = z;
        z.iter().any(|v| v.is_some_and(|v| v != 0.0)).then_some(HrZonesOut {
            light,
            moderate,
            intense,
            maximal,
        })
    }
}

/// "7 h 05 min" from seconds.
pub fn hours_minutes(secs: f64) -> String {
    let total = (secs / 60.0).round() as i64;
    match total {
        t if t < 60 => format!("{t} min"),
        t => format!("{} h {:02} min", t / 60, t % 60),
    }
}

/// When a record happened, for its line: its local time, else its date as given.
pub fn when(local: Option<&str>, date: Option<String>) -> String {
    match (local, date) {
        (Some(t), _) => t.replace('T', " "),
        (None, Some(d)) => d,
        (None, None) => "(no date)".to_string(),
    }
}

/// "23:00" from a local ISO time.
pub fn short_time(local: &str) -> &str {
    local.get(11..16).unwrap_or(local)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::domain::time::Zone;
    use crate::tools::records::sleep::NightOut;

    #[test]
    fn each_privacy_mode_lets_out_what_it_says() {
        let row = json!({"id": 1, "startdate": 0, "enddate": 30000, "hash_deviceid": "h", "nap": "theirs",
                         "future_field": 3, "access_token": "t",
                         "data": {"total_sleep_time": 25200, "night_events": {"1": [5]}}});
        let raw = row.to_string().into_boxed_str();
        let env = Env::default();
        let view = |mode| {
            let rows = vec![raw.clone()];
            let mut zones = Zones::new(Zone::utc());
            parsed(records::<NightOut>(
                &env,
                "/v2/sleep getsummary",
                &rows,
                None,
                &mut zones,
                mode,
                Units::Metric,
                &|_| true,
            ))
            .unwrap()
            .remove(0)
        };
        let (structured, line) = view(PrivacyMode::Structured);
        assert_eq!(structured["nap"], false, "a passed-through field never replaces ours");
        assert_eq!(
            (&structured["future_field"], &structured["data"]["night_events"]),
            (&json!(3), &json!({"1": [5]}))
        );
        assert_eq!((structured.get("hash_deviceid"), structured.get("access_token")), (None, None));
        let (summary, summary_line) = view(PrivacyMode::Summary);
        assert_eq!((summary.get("future_field"), summary.get("data")), (None, None));
        assert_eq!(summary["total_sleep_time"], 25200);
        let (upstream, raw_line) = view(PrivacyMode::Raw);
        assert_eq!(upstream.get("access_token"), None);
        assert_eq!((&upstream["nap"], &upstream["hash_deviceid"]), (&json!("theirs"), &json!("h")));
        assert!(line.contains("asleep 7 h 00 min") && line == summary_line && line == raw_line, "{line}");
        // A night without `data` still shows it, empty.
        let bare = vec![Box::from(r#"{"id":2,"data":[]}"#)];
        let mut zones = Zones::new(Zone::utc());
        let all = |_: &NightOut| true;
        let (v, _) = parsed(records::<NightOut>(
            &env,
            "",
            &bare,
            None,
            &mut zones,
            PrivacyMode::Structured,
            Units::Metric,
            &all,
        ))
        .unwrap()
        .remove(0);
        assert_eq!(v, json!({"id": 2, "timezone": "UTC", "data": {}}));
    }

    #[test]
    fn a_row_of_the_wrong_shape_names_the_endpoint() {
        let rows = vec![Box::from("\"a night\"")];
        let mut zones = Zones::new(Zone::utc());
        let err = parsed(records::<NightOut>(
            &Env::default(),
            "/v2/sleep getsummary",
            &rows,
            None,
            &mut zones,
            PrivacyMode::Structured,
            Units::Metric,
            &|_| true,
        ))
        .unwrap_err();
        assert!(err.to_string().contains("/v2/sleep getsummary"), "{err}");
    }
}
