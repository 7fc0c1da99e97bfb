//! Demo records in the exact Withings wire shapes (field names, types and order of the shared
//! fixtures), so the decoders that read real answers read these unchanged.
//!
//! Answers are written straight as JSON text, field by field: building each record as a JSON
//! tree and then printing it took about 20 KB more of the static binary (a map insertion and a
//! key allocation per field) and twice the time.

use std::fmt::Write;

use crate::withings::demo::account::{
    Account, Activity, BPM_CORE, DEVICES, Group, Heart, Measure, Rng, SLEEP_MAT, Segment, Sleep, WATCH,
    Workout,
};

/// A JSON object being written. Fields outside `only` (when set) are left out, so a request's
/// `data_fields` filters as it writes.
pub struct Obj<'a> {
    s: String,
    first: bool,
    only: Option<&'a [&'a str]>,
}

impl<'a> Obj<'a> {
    pub fn new() -> Obj<'a> {
        Obj { s: String::from("{"), first: true, only: None }
    }

    /// From here on, only the fields in `only` (all when `None`).
    pub fn only(&mut self, only: Option<&'a [&'a str]>) -> &mut Self {
        self.only = only;
        self
    }

    /// Writes the key; false when `only` leaves the field out.
    fn key(&mut self, k: &str) -> bool {
        if self.only.is_some_and(|o| !o.contains(&k)) {
            return false;
        }
        if !self.first {
            self.s.push(',');
        }
        self.first = false;
        self.s.push('"');
        self.s.push_str(k);
        self.s.push_str("\":");
        true
    }

    pub fn int(&mut self, k: &str, v: i64) -> &mut Self {
        if self.key(k) {
            let _ = write!(self.s, "{v}");
        }
        self
    }

    /// A float as JSON writes it (`76.0`, `2.1`): the shortest text that reads back the same.
    pub fn float(&mut self, k: &str, v: f64) -> &mut Self {
        if self.key(k) {
            let _ = write!(self.s, "{v:?}");
        }
        self
    }

    /// A string; the demo's strings (names, zones, ids, dates) need no escaping but quotes.
    pub fn str(&mut self, k: &str, v: &str) -> &mut Self {
        if self.key(k) {
            self.s.push('"');
            for c in v.chars() {
                if matches!(c, '"' | '\\') {
                    self.s.push('\\');
                }
                self.s.push(c);
            }
            self.s.push('"');
        }
        self
    }

    pub fn bool(&mut self, k: &str, v: bool) -> &mut Self {
        self.raw(k, if v { "true" } else { "false" })
    }

    pub fn null(&mut self, k: &str) -> &mut Self {
        self.raw(k, "null")
    }

    /// A value already written as JSON text (a nested object or list).
    pub fn raw(&mut self, k: &str, json: &str) -> &mut Self {
        if self.key(k) {
            self.s.push_str(json);
        }
        self
    }

    /// Bytes written so far (to tell whether a field went in).
    pub fn len(&self) -> usize {
        self.s.len()
    }

    pub fn done(&mut self) -> String {
        let mut s = std::mem::take(&mut self.s);
        s.push('}');
        s
    }
}

/// A JSON list of items already written as text.
pub fn list(items: impl IntoIterator<Item = String>) -> String {
    let mut s = String::from("[");
    for (i, item) in items.into_iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        s.push_str(&item);
    }
    s.push(']');
    s
}

/// A JSON list of integers.
pub fn ints(values: &[i64]) -> String {
    list(values.iter().map(i64::to_string))
}

/// A getmeas group; `types` keeps only those measure types when given.
pub fn group(g: &Group, types: Option<&[i64]>) -> String {
    let measures = list(g.measures.iter().filter(|x| types.is_none_or(|t| t.contains(&x.kind))).map(measure));
    let mut o = Obj::new();
    o.int("grpid", g.grpid).int("attrib", g.attrib).int("date", g.date).int("created", g.created);
    o.int("modified", g.modified).int("category", 1);
    match g.device {
        Some(d) => o.str("deviceid", d.id).str("hash_deviceid", d.id),
        None => o.null("deviceid").null("hash_deviceid"),
    };
    o.raw("measures", &measures);
    match g.device {
        Some(d) => o.int("modelid", d.model_id).str("model", d.model),
        None => o.null("modelid").null("model"),
    };
    o.null("comment").str("timezone", &g.tz).done()
}

fn measure(x: &Measure) -> String {
    Obj::new()
        .int("value", x.value)
        .int("type", x.kind)
        .int("unit", x.unit)
        .int("algo", 0)
        .int("fm", 3)
        .done()
}

/// A getactivity row; `fields` keeps only those data fields when given.
pub fn activity(a: &Activity, fields: Option<&[&str]>) -> String {
    let mut o = Obj::new();
    o.str("date", &a.date.to_string()).str("timezone", &a.tz).str("deviceid", WATCH.id);
    o.str("hash_deviceid", WATCH.id).int("brand", 1).bool("is_tracker", true).int("modified", a.modified);
    o.int("modelid", WATCH.model_id).str("model", WATCH.model).only(fields);
    o.int("steps", a.steps).float("distance", a.distance).int("elevation", a.elevation);
    o.int("soft", a.soft).int("moderate", a.moderate).int("intense", a.intense);
    o.int("active", a.moderate + a.intense).float("calories", a.calories);
    o.float("totalcalories", a.totalcalories).int("hr_average", a.hr_average).int("hr_min", a.hr_min);
    o.int("hr_max", a.hr_max);
    for (i, z) in a.hr_zones.iter().enumerate() {
        o.int(HR_ZONES[i], *z);
    }
    o.done()
}

const HR_ZONES: [&str; 4] = ["hr_zone_0", "hr_zone_1", "hr_zone_2", "hr_zone_3"];

/// A getworkouts row; `fields` filters `data`.
pub fn workout(w: &Workout, fields: Option<&[&str]>) -> String {
    let mut d = Obj::new();
    d.only(fields).int("calories", w.calories).int("intensity", 0).int("manual_distance", 0);
    let (avg, min, max) = w.hr.unwrap_or((0, 0, 0));
    d.int("manual_calories", 0).int("hr_average", avg).int("hr_min", min).int("hr_max", max);
    for (i, z) in w.hr_zones.iter().enumerate() {
        d.int(HR_ZONES[i], *z);
    }
    d.int("pause_duration", 0);
    match w.pool {
        Some(_) => d.int("algo_pause_duration", 40),
        None => d.null("algo_pause_duration"),
    };
    d.null("spo2_average");
    if let Some((steps, distance, elevation)) = w.moves {
        d.int("steps", steps).int("distance", distance).int("elevation", elevation);
    }
    if let Some((laps, length, strokes)) = w.pool {
        d.int("pool_laps", laps).int("pool_length", length).int("strokes", strokes);
    }
    let mut o = Obj::new();
    o.int("id", w.id).int("category", w.category).str("timezone", &w.tz).int("model", WATCH.model_id);
    o.int("attrib", w.attrib).int("startdate", w.start).int("enddate", w.end);
    o.str("date", &w.date.to_string()).int("modified", w.modified);
    match w.with_device {
        true => o.str("deviceid", WATCH.id),
        false => o.null("deviceid"),
    };
    o.raw("data", &d.done()).done()
}

/// The `data` fields a getsummary answer carries when no `data_fields` is sent (what real data
/// returned, reference §3.6 "Defaults").
pub const SLEEP_DEFAULT_FIELDS: [&str; 15] = [
    "wakeupduration",
    "wakeupcount",
    "durationtosleep",
    "remsleepduration",
    "durationtowakeup",
    "total_timeinbed",
    "total_sleep_time",
    "sleep_efficiency",
    "sleep_latency",
    "wakeup_latency",
    "waso",
    "nb_rem_episodes",
    "out_of_bed_count",
    "lightsleepduration",
    "deepsleepduration",
];

/// A getsummary row with every statistic derived from its segments.
pub fn sleep_summary(s: &Sleep, fields: Option<&[&str]>) -> String {
    let total =
        |state: i64| -> i64 { s.segments.iter().filter(|x| x.state == state).map(|x| x.end - x.start).sum() };
    let (light, deep, rem, awake) = (total(1), total(2), total(3), total(0));
    let (start, end) = (s.start(), s.end());
    let in_bed = end - start;
    let tst = light + deep + rem;
    let latency = s.segments.first().filter(|x| x.state == 0).map_or(0, |x| x.end - x.start);
    let wake_latency = s.segments.last().filter(|x| x.state == 0).map_or(0, |x| x.end - x.start);
    // Awake segments strictly inside the sleep, and where they start (night events).
    let inner: Vec<&Segment> = match s.segments.len() {
        n if n > 2 => s.segments.get(1..n - 1).unwrap_or(&[]).iter().filter(|x| x.state == 0).collect(),
        _ => Vec::new(),
    };
    let efficiency = match in_bed {
        0 => 0.0,
        _ => (tst as f64 / in_bed as f64 * 100.0).round() / 100.0,
    };
    // A plausible score: duration, efficiency, deep and REM shares, minus interruptions.
    let share = |part: i64, full: f64| if tst > 0 { (part as f64 / tst as f64 / full).min(1.0) } else { 0.0 };
    let score_f = (tst as f64 / 28_800.0).min(1.0) * 50.0
        + ((efficiency - 0.75).max(0.0) / 0.25) * 25.0
        + share(deep, 0.2) * 15.0
        + share(rem, 0.25) * 10.0
        - 3.0 * inner.len() as f64;
    let score = (score_f.round() as i64).clamp(0, 100);
    let mut wake_events: Vec<i64> = inner.iter().map(|x| x.start - start).collect();
    wake_events.push(end - wake_latency - start);
    let mut d = Obj::new();
    d.only(Some(fields.unwrap_or(&SLEEP_DEFAULT_FIELDS)));
    d.int("total_timeinbed", in_bed).int("total_sleep_time", tst).int("lightsleepduration", light);
    d.int("deepsleepduration", deep).int("remsleepduration", rem).int("wakeupduration", awake);
    d.int("wakeupcount", inner.len() as i64).int("durationtosleep", latency);
    d.int("durationtowakeup", wake_latency)
        .float("sleep_efficiency", efficiency)
        .int("sleep_latency", latency);
    d.int("wakeup_latency", wake_latency).int("waso", inner.iter().map(|x| x.end - x.start).sum());
    d.int("nb_rem_episodes", s.segments.iter().filter(|x| x.state == 3).count() as i64);
    d.int("out_of_bed_count", s.out_of_bed).int("hr_average", s.hr.0).int("hr_min", s.hr.1);
    d.int("hr_max", s.hr.2).int("rr_average", s.rr.0).int("rr_min", s.rr.1).int("rr_max", s.rr.2);
    if let Some((snoring, episodes, bdi, _)) = s.breathing {
        d.int("breathing_disturbances_intensity", bdi).int("snoring", snoring);
        d.int("snoringepisodecount", episodes);
    }
    d.int("sleep_score", score);
    if let Some((_, _, _, ahi)) = s.breathing {
        d.int("apnea_hypopnea_index", ahi);
    }
    let events = format!("{{\"1\":[0],\"2\":[{latency}],\"3\":{},\"4\":[{in_bed}]}}", ints(&wake_events));
    d.raw("night_events", &events);
    let mut o = Obj::new();
    o.int("id", s.id).str("timezone", &s.tz).int("model", s.device.type_code);
    o.int("model_id", s.device.model_id).str("hash_deviceid", s.device.id).int("startdate", start);
    o.int("enddate", end).str("date", &s.date.to_string()).int("created", s.created);
    o.int("modified", s.created).bool("completed", true).raw("data", &d.done()).done()
}

/// The fields `sleep get` knows how to fill.
pub const SLEEP_SERIES_FIELDS: [&str; 3] = ["hr", "rr", "snoring"];

/// One `sleep get` segment with a sample every five minutes of each requested field.
pub fn sleep_segment(s: &Sleep, seg: &Segment, fields: &[&str]) -> String {
    let mut o = Obj::new();
    o.int("startdate", seg.start).int("enddate", seg.end).int("state", seg.state);
    o.str("model", s.device.model).int("model_id", s.device.model_id).str("hash_deviceid", s.device.id);
    for field in SLEEP_SERIES_FIELDS.iter().filter(|f| fields.contains(f)) {
        let mut samples = Obj::new();
        let mut t = seg.start;
        while t < seg.end {
            let mut r = Rng::from_seed(t as u64);
            let value = match *field {
                "hr" => {
                    s.hr.0 + r.range(-3, 3) - 2 * i64::from(seg.state == 2) + 3 * i64::from(seg.state == 0)
                }
                "rr" => s.rr.0 + r.range(-1, 1),
                _ if s.breathing.is_some() && seg.state == 1 && r.chance(0.3) => r.range(10, 60),
                _ => 0,
            };
            samples.int(&t.to_string(), value);
            t += 300;
        }
        o.raw(field, &samples.done());
    }
    o.done()
}

/// A heart list row.
pub fn heart(h: &Heart) -> String {
    let mut o = Obj::new();
    o.str("deviceid", h.device.id).int("model", h.device.model_id);
    if let Some((signalid, afib)) = h.ecg {
        o.raw("ecg", &Obj::new().int("signalid", signalid).int("afib", afib).done());
    }
    if let Some((diastole, systole)) = h.bp {
        o.raw("bloodpressure", &Obj::new().int("diastole", diastole).int("systole", systole).done());
    }
    o.int("heart_rate", h.heart_rate).int("timestamp", h.timestamp).int("modified", h.modified).done()
}

/// A heart get body: a synthetic ECG trace in µV (P wave, QRS spike, T wave per beat), irregular
/// and noisy for the inconclusive recording.
pub fn ecg_signal(h: &Heart, signalid: i64, afib: i64) -> String {
    let core = h.device.model_id == BPM_CORE.model_id;
    let (hz, secs, position) = if core { (500, 20, 2) } else { (300, 30, 1) };
    let mut r = Rng::from_seed(signalid as u64);
    let n = hz * secs;
    let mut signal = Vec::with_capacity(n as usize);
    let mut beat_len = hz * 60 / h.heart_rate.max(30);
    let mut pos = 0;
    for _ in 0..n {
        if pos >= beat_len {
            pos = 0;
            let jitter = if afib == 2 { r.range(-hz / 5, hz / 5) } else { r.range(-hz / 50, hz / 50) };
            beat_len = (hz * 60 / h.heart_rate.max(30) + jitter).max(hz / 3);
        }
        let x = pos as f64 / hz as f64; // seconds into the beat
        let bump = |centre: f64, width: f64, height: f64| height * (-((x - centre) / width).powi(2)).exp();
        let wave = bump(0.10, 0.025, 120.0) + bump(0.20, 0.008, 1100.0)
            - bump(0.185, 0.006, 150.0)
            - bump(0.22, 0.008, 250.0)
            + bump(0.42, 0.045, 280.0);
        let noise = if afib == 2 { 60.0 } else { 12.0 } * r.noise();
        signal.push((wave + noise).round() as i64);
        pos += 1;
    }
    let mut o = Obj::new();
    o.raw("signal", &ints(&signal)).int("sampling_frequency", hz).int("wearposition", position);
    o.int("model", h.device.model_id).int("heart_rate", h.heart_rate).done()
}

/// The user's devices.
pub fn devices(acc: &Account) -> String {
    let first = acc.now - 420 * 86_400;
    let list = list(DEVICES.iter().filter(|d| acc.person.has(d)).map(|d| {
        // Mains-powered, the Sleep Analyzer has no battery to report; the watch needs charging.
        let battery = match d.model_id {
            _ if d.model_id == SLEEP_MAT.model_id => "unknown",
            94 => "low",
            45 => "medium",
            _ => "high",
        };
        let mut o = Obj::new();
        o.str("type", d.kind).str("battery", battery).str("model", d.model).int("model_id", d.model_id);
        o.str("timezone", &acc.home_tz).int("first_session_date", first);
        match last_session(acc, d.id) {
            Some(t) => o.int("last_session_date", t),
            None => o.null("last_session_date"),
        };
        o.str("deviceid", d.id).str("hash_deviceid", d.id).done()
    }));
    Obj::new().raw("devices", &list).done()
}

fn last_session(acc: &Account, id: &str) -> Option<i64> {
    let groups = acc.groups.iter().filter(|g| g.device.is_some_and(|d| d.id == id)).map(|g| g.created);
    let sleeps = acc.sleeps.iter().filter(|s| s.device.id == id).map(|s| s.created);
    let watch = acc.activities.last().filter(|_| id == WATCH.id).map(|a| a.modified);
    groups.chain(sleeps).chain(watch).max()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objects_are_json() {
        let fields = ["b", "q"];
        let mut o = Obj::new();
        o.int("a", -3).only(Some(&fields)).float("b", 76.0).str("c", "x").str("q", "say \"hi\"\\");
        let text = o.only(None).null("n").bool("t", true).raw("l", &ints(&[1, 2])).done();
        assert_eq!(text, r#"{"a":-3,"b":76.0,"q":"say \"hi\"\\","n":null,"t":true,"l":[1,2]}"#);
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["q"], "say \"hi\"\\");
        assert_eq!(Obj::new().done(), "{}");
        assert_eq!(list(Vec::new()), "[]");
        assert_eq!(
            Obj::new().float("f", 412.7).float("g", 0.1 + 0.2).done(),
            r#"{"f":412.7,"g":0.30000000000000004}"#
        );
    }
}
