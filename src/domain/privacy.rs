//! Privacy modes and sensitive-key filtering.
//!
//! - `raw`: the upstream record untouched except secret-bearing keys (removed at any depth).
//! - `structured` (default): the decoded record (`to_json` of the domain decoders) minus
//!   sensitive keys at any depth: secrets, location/GPS keys and device/user identifiers. Every
//!   physiological field stays, including unknown future ones.
//! - `summary`: a few fields an agent needs per domain (see [`summary_keys`]), then the same
//!   filtering. A heart record keeps its type, time, heart rate, blood pressure and ECG/AFib, and
//!   a workout keeps its calories, distance, steps and heart rate (upstream bug 7 emptied the
//!   first and dropped the second).
//!
//! Identifiers removed in structured and summary modes: `deviceid`, `hash_deviceid`,
//! `mac_address`, `serial_number`, `userid` and personal names/contacts. They identify hardware or
//! a person and tell an agent nothing about health. Record ids (`grpid`, `id`, `signalid`) stay:
//! they are needed for follow-up calls. `timezone` stays: local days are meaningless without it.
//!
//! Keys match case-insensitively, ignoring `_` and `-` (so `accessToken` is `access_token`).

use serde_json::{Map, Value};

use crate::domain::named::Named;

/// How much of each record leaves the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrivacyMode {
    Summary,
    Structured,
    Raw,
}

impl PrivacyMode {
    /// The mode when neither the call nor the configuration names one.
    pub const DEFAULT: PrivacyMode = PrivacyMode::Structured;
}

impl Named for PrivacyMode {
    const ALL: &'static [PrivacyMode] = &[PrivacyMode::Summary, PrivacyMode::Structured, PrivacyMode::Raw];
    const WHAT: &'static str = "privacy mode";

    fn name(self) -> &'static str {
        match self {
            PrivacyMode::Summary => "summary",
            PrivacyMode::Structured => "structured",
            PrivacyMode::Raw => "raw",
        }
    }
}

crate::named_serde!(PrivacyMode);

/// The data domains, for per-domain summary fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Domain {
    Measures,
    Activity,
    Workouts,
    SleepSummary,
    SleepDetail,
    Heart,
}

/// Keys that carry a location (`latitude`, `start_latlng`, `summary_polyline`, ...) or identify
/// a device or a person (`deviceid`, `hash_deviceid`, `mac_address`, `serial_number`, `userid`,
/// names and contacts), spelled as keys are compared (in lower case, without `_` or `-`), each
/// [`packed`] into one number, in order: a key is found in six comparisons of numbers. (Byte
/// strings compared one by one cost twenty times as much, a `match` 2 KB of code.)
const PLACE_OR_PERSON: [u128; 33] = sorted([
    packed(b"latitude"),
    packed(b"longitude"),
    packed(b"lat"),
    packed(b"lng"),
    packed(b"lon"),
    packed(b"latlng"),
    packed(b"startlatlng"),
    packed(b"endlatlng"),
    packed(b"location"),
    packed(b"locations"),
    packed(b"gps"),
    packed(b"geo"),
    packed(b"geolocation"),
    packed(b"coordinates"),
    packed(b"polyline"),
    packed(b"summarypolyline"),
    packed(b"map"),
    packed(b"route"),
    packed(b"address"),
    packed(b"deviceid"),
    packed(b"hashdeviceid"),
    packed(b"macaddress"),
    packed(b"serialnumber"),
    packed(b"userid"),
    packed(b"email"),
    packed(b"firstname"),
    packed(b"lastname"),
    packed(b"fullname"),
    packed(b"shortname"),
    packed(b"phone"),
    packed(b"phonenumber"),
    packed(b"birthdate"),
    packed(b"avatar"),
]);

/// A normalised key of at most 15 bytes as one number: its bytes, then its length in the top
/// byte.
const fn packed(k: &[u8]) -> u128 {
    let mut b = [0u8; 16];
    let mut i = 0;
    while i < k.len() {
        b[i] = k[i];
        i += 1;
    }
    b[15] = k.len() as u8;
    u128::from_le_bytes(b)
}

const fn sorted<const N: usize>(mut a: [u128; N]) -> [u128; N] {
    let mut i = 1;
    while i < N {
        let mut j = i;
        while j > 0 && a[j - 1] > a[j] {
            (a[j - 1], a[j]) = (a[j], a[j - 1]);
            j -= 1;
        }
        i += 1;
    }
    a
}

/// True for a normalised key in [`PLACE_OR_PERSON`] (every entry is shorter than 16 bytes).
fn place_or_person(k: &[u8]) -> bool {
    k.len() < 16 && PLACE_OR_PERSON.binary_search(&packed(k)).is_ok()
}

/// Removes secret, location and identifier keys at any depth.
pub fn strip_sensitive(v: &mut Value) {
    strip_sensitive_with(v, &mut Sensitive::default());
}

/// A copy of `m` without secret, location and identifier keys, at any depth.
pub fn without_sensitive(m: &Map<String, Value>) -> Map<String, Value> {
    let mut m = m.clone();
    m.retain(|k, _| !is_sensitive(k));
    m.values_mut().for_each(strip_sensitive);
    m
}

/// [`strip_sensitive`], with the keys already classified (the records of one list).
pub fn strip_sensitive_with(v: &mut Value, keys: &mut Sensitive) {
    strip(v, &mut |k| keys.is(k));
}

/// Keys classified by [`is_sensitive`], remembered in the order they came. The records of a list
/// repeat their keys (a thousand weigh-ins: a hundred thousand keys, twenty-eight different),
/// record after record in the same order, so a key is looked for first right after the last one
/// found: classifying each key anew was 6% of a thousand-group list's instructions.
#[derive(Default)]
pub struct Sensitive {
    keys: Vec<(Box<str>, bool)>,
    next: usize,
}

impl Sensitive {
    fn is(&mut self, key: &str) -> bool {
        let at = match self.keys.get(self.next) {
            Some((k, _)) if **k == *key => Some(self.next),
            _ => self.keys.iter().position(|(k, _)| **k == *key),
        };
        if let Some(i) = at
            && let Some((_, sensitive)) = self.keys.get(i)
        {
            self.next = i + 1;
            return *sensitive;
        }
        let sensitive = is_sensitive(key);
        // Bounded: an answer of ever new keys is classified key by key.
        if self.keys.len() < 256 {
            self.keys.push((key.into(), sensitive));
            self.next = self.keys.len();
        }
        sensitive
    }
}

/// A secret, location or identifier key. The key is normalised once, then compared: normalising
/// it again for each of two lists and each entry on the fly was an eighth of a thousand-record
/// list's instructions.
fn is_sensitive(key: &str) -> bool {
    crate::redact::with_normal_key(key, |k| crate::redact::names_secret(k) || place_or_person(k))
}

/// Removes only secret-bearing keys, at any depth (raw mode).
pub fn strip_secrets(v: &mut Value) {
    strip(v, &mut is_secret_key);
}

/// True for a key that carries a secret (tokens, OAuth codes, signatures, callback URLs with
/// tokens): the same keys whose values are scrubbed from foreign text (`redact`).
pub fn is_secret_key(key: &str) -> bool {
    crate::redact::is_secret_key(key)
}

fn strip(v: &mut Value, drop: &mut dyn FnMut(&str) -> bool) {
    match v {
        Value::Object(m) => {
            m.retain(|k, _| !drop(k));
            m.values_mut().for_each(|c| strip(c, drop));
        }
        Value::Array(a) => a.iter_mut().for_each(|c| strip(c, drop)),
        _ => {}
    }
}

/// The top-level keys summary mode keeps for a domain's structured record.
pub fn summary_keys(domain: Domain) -> &'static [&'static str] {
    match domain {
        Domain::Measures => {
            &["grpid", "date", "local_date", "local_time", "timezone", "ambiguous", "manual", "measures"]
        }
        Domain::Activity => &[
            "date",
            "timezone",
            "steps",
            "distance",
            "elevation",
            "active_minutes",
            "total_activity_minutes",
            "calories",
            "totalcalories",
            "hr_average",
            "source",
        ],
        Domain::Workouts => &[
            "id",
            "category",
            "category_name",
            "date",
            "local_start",
            "local_end",
            "timezone",
            "duration",
            "duration_minutes",
            "calories",
            "distance",
            "steps",
            "hr_average",
        ],
        Domain::SleepSummary => &[
            "id",
            "date",
            "local_start",
            "local_end",
            "timezone",
            "nap",
            "total_sleep_time",
            "total_sleep_hours",
            "time_in_bed",
            "light_sleep",
            "deep_sleep",
            "rem_sleep",
            "awake",
            "wakeup_count",
            "sleep_score",
            "sleep_efficiency",
            "hr_average",
            "rr_average",
            "snoring",
        ],
        Domain::SleepDetail => {
            &["startdate", "enddate", "local_start", "local_end", "duration", "state", "state_name"]
        }
        Domain::Heart => &[
            "type",
            "timestamp",
            "local_time",
            "local_date",
            "timezone",
            "heart_rate",
            "bloodpressure",
            "ecg",
        ],
    }
}

/// Keys summary mode keeps inside each measure of a measure group.
const SUMMARY_MEASURE_KEYS: &[&str] = &["name", "value", "unit", "position_name", "classification"];

/// The summary view of a structured record (see [`summary_keys`]), its values taken from it,
/// not copied (a measure group's measures, say).
pub fn summary_view(domain: Domain, mut structured: Value) -> Value {
    let Some(obj) = structured.as_object_mut() else { return structured };
    let mut out: Map<String, Value> = summary_keys(domain)
        .iter()
        .filter_map(|k| Some(((*k).to_string(), obj.get_mut(*k)?.take())))
        .collect();
    if domain == Domain::Measures
        && let Some(Value::Array(measures)) = out.get_mut("measures")
    {
        for m in measures.iter_mut() {
            if let Value::Object(mm) = m {
                mm.retain(|k, _| SUMMARY_MEASURE_KEYS.contains(&k.as_str()));
            }
        }
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn modes_parse() {
        let cases = [
            ("summary", Ok(PrivacyMode::Summary)),
            (" RAW ", Ok(PrivacyMode::Raw)),
            ("structured", Ok(PrivacyMode::Structured)),
        ];
        for (s, want) in cases {
            assert_eq!(PrivacyMode::parse(s), want);
        }
        let err = PrivacyMode::parse("full").unwrap_err();
        assert!(err.contains("full") && err.contains("summary, structured or raw"));
        assert_eq!("raw".parse::<PrivacyMode>().map(PrivacyMode::name), Ok("raw"));
    }

    #[test]
    fn strips_at_any_depth() {
        let mut v = json!({
            "access_token": "x", "refreshToken": "y", "hr_average": 60,
            "data": {"latitude": 1.0, "Lng": 2.0, "calories": 300, "nested": [{"gps": [1, 2], "client-secret": "s", "steps": 5}]},
            "deviceid": "d", "hash_deviceid": "h", "serial_number": "n", "mac_address": "m",
            "future_metric": {"value": 3, "signature": "sig"}, "model": "ScanWatch", "timezone": "Europe/Paris"
        });
        let mut raw = v.clone();
        strip_sensitive(&mut v);
        assert_eq!(
            v,
            json!({"hr_average": 60, "data": {"calories": 300, "nested": [{"steps": 5}]},
                   "future_metric": {"value": 3}, "model": "ScanWatch", "timezone": "Europe/Paris"})
        );
        strip_secrets(&mut raw);
        assert_eq!(raw.get("access_token"), None);
        assert_eq!(raw.get("refreshToken"), None);
        assert_eq!(raw["data"]["nested"][0].get("client-secret"), None);
        assert_eq!(raw["future_metric"], json!({"value": 3}));
        // Raw keeps location and identifiers: only secrets go.
        assert_eq!(raw["data"]["latitude"], 1.0);
        assert_eq!(raw["deviceid"], "d");
        // Physiological keys that look similar survive.
        for k in ["position", "position_name", "state", "type", "codes", "token_count"] {
            assert!(!is_sensitive(k), "{k}");
        }
    }

    /// Spelling aside (case, `_`, `-`), a key is in a list exactly when it is one of its entries,
    /// however long it is and whatever characters it holds.
    #[test]
    fn list_membership_ignores_spelling_only() {
        for (k, want) in [
            ("Hash-DeviceId", true),
            ("__device_id__", true),
            ("SUMMARY_POLYLINE", true),
            ("summary_polylines", false),
            ("lat\u{0}", false),
            ("deviceids", false),
            ("device", false),
            ("", false),
            ("déviceid", false),
            ("deviceid_________________________________________________x", false),
            ("d_e_v_i_c_e_i_d_______________________________________________", true),
        ] {
            assert_eq!(crate::redact::with_normal_key(k, place_or_person), want, "{k}");
        }
        // Every entry as the documentation spells it, and in capitals.
        for key in [
            "latitude",
            "longitude",
            "lat",
            "lng",
            "lon",
            "latlng",
            "start_latlng",
            "end_latlng",
            "location",
            "locations",
            "gps",
            "geo",
            "geolocation",
            "coordinates",
            "polyline",
            "summary_polyline",
            "map",
            "route",
            "address",
            "deviceid",
            "hash_deviceid",
            "mac_address",
            "serial_number",
            "userid",
            "email",
            "firstname",
            "lastname",
            "fullname",
            "shortname",
            "phone",
            "phonenumber",
            "birthdate",
            "avatar",
        ] {
            assert!(is_sensitive(key) && is_sensitive(&key.to_uppercase()), "{key}");
        }
    }

    /// Remembered keys answer as classifying each would, whatever order they come in.
    #[test]
    fn remembered_keys_answer_as_classified() {
        let keys = ["date", "deviceid", "type", "access_token", "latitude", "value", "Device-ID", "zone"];
        let mut seen = Sensitive::default();
        for round in 0..4 {
            for i in 0..keys.len() {
                let key = keys[(i * (round + 1)) % keys.len()];
                assert_eq!(seen.is(key), is_sensitive(key), "{key}");
            }
        }
        let mut many = Sensitive::default();
        for n in 0..300 {
            let key = format!("k{n}_secret");
            assert!(many.is(&key) && many.is(&key), "{key}");
        }
    }

    #[test]
    fn summaries_keep_only_listed_keys() {
        // Every domain's summary keeps only listed keys, and tolerates non-objects.
        for d in [Domain::Activity, Domain::SleepSummary, Domain::SleepDetail] {
            assert_eq!(summary_view(d, json!({"zzz": 1})), json!({}));
        }
        assert_eq!(summary_view(Domain::Heart, json!([1])), json!([1]));
    }
}
