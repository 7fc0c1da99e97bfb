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

/// Keys that carry a location.
pub const LOCATION_KEYS: &[&str] = &[
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
];

/// Keys that identify a device or a person.
pub const IDENTIFIER_KEYS: &[&str] = &[
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
];

/// Removes secret, location and identifier keys at any depth.
pub fn strip_sensitive(v: &mut Value) {
    strip(v, &|k| is_secret_key(k) || in_list(k, LOCATION_KEYS) || in_list(k, IDENTIFIER_KEYS));
}

/// Removes only secret-bearing keys, at any depth (raw mode).
pub fn strip_secrets(v: &mut Value) {
    strip(v, &is_secret_key);
}

/// True for a key that carries a secret (tokens, OAuth codes, signatures, callback URLs with
/// tokens): the same keys whose values are scrubbed from foreign text (`redact`).
pub fn is_secret_key(key: &str) -> bool {
    crate::redact::is_secret_key(key)
}

/// Compared without building strings: this runs for every key of every record returned. The
/// key is normalised once, into a buffer on the stack, then compared byte by byte with each
/// entry as normalised on the fly (the lists are ASCII; a byte of a multi-byte character never
/// equals an ASCII one, so comparing bytes answers as comparing characters does).
fn in_list(key: &str, list: &[&str]) -> bool {
    let mut buf = [0u8; 32];
    let mut n = 0;
    for b in key.bytes().filter(|b| *b != b'_' && *b != b'-') {
        // Longer than any entry: it matches none.
        let Some(slot) = buf.get_mut(n) else { return false };
        *slot = b.to_ascii_lowercase();
        n += 1;
    }
    let key = buf.get(..n).unwrap_or_default();
    list.iter().any(|l| same_normalized(key, l))
}

/// True when `entry`, without `_` and `-` and in lower case, is `key`.
fn same_normalized(key: &[u8], entry: &str) -> bool {
    let mut i = 0;
    for b in entry.bytes().filter(|b| *b != b'_' && *b != b'-') {
        if key.get(i) != Some(&b.to_ascii_lowercase()) {
            return false;
        }
        i += 1;
    }
    i == key.len()
}

fn strip(v: &mut Value, drop: &dyn Fn(&str) -> bool) {
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

/// The summary view of a structured record (see [`summary_keys`]).
pub fn summary_view(domain: Domain, structured: &Value) -> Value {
    let Some(obj) = structured.as_object() else { return structured.clone() };
    let mut out: Map<String, Value> =
        summary_keys(domain).iter().filter_map(|k| Some(((*k).to_string(), obj.get(*k)?.clone()))).collect();
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
            assert!(!is_secret_key(k) && !in_list(k, LOCATION_KEYS) && !in_list(k, IDENTIFIER_KEYS), "{k}");
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
            ("deviceids", false),
            ("device", false),
            ("", false),
            ("déviceid", false),
            ("deviceid_________________________________________________x", false),
            ("d_e_v_i_c_e_i_d_______________________________________________", true),
        ] {
            let found = in_list(k, IDENTIFIER_KEYS) || in_list(k, LOCATION_KEYS);
            assert_eq!(found, want, "{k}");
        }
        for entry in IDENTIFIER_KEYS.iter().chain(LOCATION_KEYS) {
            assert!(in_list(entry, &[entry]) && in_list(&entry.to_uppercase(), &[entry]), "{entry}");
        }
    }

    #[test]
    fn summaries_keep_only_listed_keys() {
        // Every domain's summary keeps only listed keys, and tolerates non-objects.
        for d in [Domain::Activity, Domain::SleepSummary, Domain::SleepDetail] {
            assert_eq!(summary_view(d, &json!({"zzz": 1})), json!({}));
        }
        assert_eq!(summary_view(Domain::Heart, &json!([1])), json!([1]));
    }
}
