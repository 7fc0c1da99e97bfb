//! Demo records in the exact Withings wire shapes (field names, types and order of the shared
//! fixtures), so the decoders that read real answers read these unchanged.

use serde_json::{Map, Value, json};

use crate::withings::demo::account::{
    Account, Activity, BPM_CORE, DEVICES, Device, Group, Heart, Measure, Rng, SLEEP_MAT, Segment, Sleep,
    WATCH, Workout,
};

/// An object from owned fields. Unlike `json!`, which re-serialises every value it is given, this
/// moves them: pages of hundreds of records stay cheap.
pub fn obj<const N: usize>(fields: [(&str, Value); N]) -> Value {
    Value::Object(fields.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}

/// A getmeas group; `types` keeps only those measure types when given.
pub fn group(g: &Group, types: Option<&[i64]>) -> Value {
    let measures: Vec<Value> =
        g.measures.iter().filter(|x| types.is_none_or(|t| t.contains(&x.kind))).map(measure).collect();
    let device = |f: fn(&Device) -> Value| g.device.map_or(Value::Null, f);
    obj([
        ("grpid", g.grpid.into()),
        ("attrib", g.attrib.into()),
        ("date", g.date.into()),
        ("created", g.created.into()),
        ("modified", g.modified.into()),
        ("category", 1.into()),
        ("deviceid", device(|d| d.id.into())),
        ("hash_deviceid", device(|d| d.id.into())),
        ("measures", Value::Array(measures)),
        ("modelid", device(|d| d.model_id.into())),
        ("model", device(|d| d.model.into())),
        ("comment", Value::Null),
        ("timezone", g.tz.as_str().into()),
    ])
}

fn measure(x: &Measure) -> Value {
    obj([
        ("value", x.value.into()),
        ("type", x.kind.into()),
        ("unit", x.unit.into()),
        ("algo", 0.into()),
        ("fm", 3.into()),
    ])
}

/// A getactivity row; `fields` keeps only those data fields when given.
pub fn activity(a: &Activity, fields: Option<&[&str]>) -> Value {
    let mut v = json!({
        "date": a.date.to_string(),
        "timezone": a.tz,
        "deviceid": WATCH.id,
        "hash_deviceid": WATCH.id,
        "brand": 1,
        "is_tracker": true,
        "modified": a.modified,
        "modelid": WATCH.model_id,
        "model": WATCH.model,
    });
    let data = json!({
        "steps": a.steps,
        "distance": a.distance,
        "elevation": a.elevation,
        "soft": a.soft,
        "moderate": a.moderate,
        "intense": a.intense,
        "active": a.moderate + a.intense,
        "calories": a.calories,
        "totalcalories": a.totalcalories,
        "hr_average": a.hr_average,
        "hr_min": a.hr_min,
        "hr_max": a.hr_max,
        "hr_zone_0": a.hr_zones[0],
        "hr_zone_1": a.hr_zones[1],
        "hr_zone_2": a.hr_zones[2],
        "hr_zone_3": a.hr_zones[3],
    });
    if let (Value::Object(out), Value::Object(data)) = (&mut v, keep(data, fields)) {
        out.extend(data);
    }
    v
}

/// A getworkouts row; `fields` filters `data`.
pub fn workout(w: &Workout, fields: Option<&[&str]>) -> Value {
    let mut data = Map::new();
    data.insert("calories".into(), w.calories.into());
    data.insert("intensity".into(), 0.into());
    data.insert("manual_distance".into(), 0.into());
    data.insert("manual_calories".into(), 0.into());
    let (avg, min, max) = w.hr.unwrap_or((0, 0, 0));
    data.insert("hr_average".into(), avg.into());
    data.insert("hr_min".into(), min.into());
    data.insert("hr_max".into(), max.into());
    for (i, z) in w.hr_zones.iter().enumerate() {
        data.insert(format!("hr_zone_{i}"), (*z).into());
    }
    data.insert("pause_duration".into(), 0.into());
    data.insert("algo_pause_duration".into(), w.pool.map_or(Value::Null, |_| 40.into()));
    data.insert("spo2_average".into(), Value::Null);
    if let Some((steps, distance, elevation)) = w.moves {
        data.insert("steps".into(), steps.into());
        data.insert("distance".into(), distance.into());
        data.insert("elevation".into(), elevation.into());
    }
    if let Some((laps, length, strokes)) = w.pool {
        data.insert("pool_laps".into(), laps.into());
        data.insert("pool_length".into(), length.into());
        data.insert("strokes".into(), strokes.into());
    }
    obj([
        ("id", w.id.into()),
        ("category", w.category.into()),
        ("timezone", w.tz.as_str().into()),
        ("model", WATCH.model_id.into()),
        ("attrib", w.attrib.into()),
        ("startdate", w.start.into()),
        ("enddate", w.end.into()),
        ("date", w.date.to_string().into()),
        ("modified", w.modified.into()),
        ("deviceid", if w.with_device { Value::from(WATCH.id) } else { Value::Null }),
        ("data", keep(Value::Object(data), fields)),
    ])
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
pub fn sleep_summary(s: &Sleep, fields: Option<&[&str]>) -> Value {
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
    let mut wake_events: Vec<i64> = inner.iter().map(|x| x.start - start).collect();
    wake_events.push(end - wake_latency - start);
    let mut data = Map::new();
    let mut put = |k: &str, v: Value| {
        data.insert(k.to_string(), v);
    };
    put("total_timeinbed", in_bed.into());
    put("total_sleep_time", tst.into());
    put("lightsleepduration", light.into());
    put("deepsleepduration", deep.into());
    put("remsleepduration", rem.into());
    put("wakeupduration", awake.into());
    put("wakeupcount", (inner.len() as i64).into());
    put("durationtosleep", latency.into());
    put("durationtowakeup", wake_latency.into());
    put("sleep_efficiency", efficiency.into());
    put("sleep_latency", latency.into());
    put("wakeup_latency", wake_latency.into());
    put("waso", inner.iter().map(|x| x.end - x.start).sum::<i64>().into());
    put("nb_rem_episodes", (s.segments.iter().filter(|x| x.state == 3).count() as i64).into());
    put("out_of_bed_count", s.out_of_bed.into());
    put("hr_average", s.hr.0.into());
    put("hr_min", s.hr.1.into());
    put("hr_max", s.hr.2.into());
    put("rr_average", s.rr.0.into());
    put("rr_min", s.rr.1.into());
    put("rr_max", s.rr.2.into());
    if let Some((snoring, episodes, bdi, ahi)) = s.breathing {
        put("breathing_disturbances_intensity", bdi.into());
        put("snoring", snoring.into());
        put("snoringepisodecount", episodes.into());
        put("sleep_score", (score_f.round() as i64).clamp(0, 100).into());
        put("apnea_hypopnea_index", ahi.into());
    } else {
        put("sleep_score", (score_f.round() as i64).clamp(0, 100).into());
    }
    put("night_events", json!({"1": [0], "2": [latency], "3": wake_events, "4": [in_bed]}));
    let fields = fields.unwrap_or(&SLEEP_DEFAULT_FIELDS);
    obj([
        ("id", s.id.into()),
        ("timezone", s.tz.as_str().into()),
        ("model", s.device.type_code.into()),
        ("model_id", s.device.model_id.into()),
        ("hash_deviceid", s.device.id.into()),
        ("startdate", start.into()),
        ("enddate", end.into()),
        ("date", s.date.to_string().into()),
        ("created", s.created.into()),
        ("modified", s.created.into()),
        ("completed", true.into()),
        ("data", keep(Value::Object(data), Some(fields))),
    ])
}

/// The fields `sleep get` knows how to fill.
pub const SLEEP_SERIES_FIELDS: [&str; 3] = ["hr", "rr", "snoring"];

/// One `sleep get` segment with a sample every five minutes of each requested field.
pub fn sleep_segment(s: &Sleep, seg: &Segment, fields: &[&str]) -> Value {
    let mut v = json!({
        "startdate": seg.start,
        "enddate": seg.end,
        "state": seg.state,
        "model": s.device.model,
        "model_id": s.device.model_id,
        "hash_deviceid": s.device.id,
    });
    let Value::Object(out) = &mut v else { return v };
    for field in SLEEP_SERIES_FIELDS.iter().filter(|f| fields.contains(f)) {
        let mut samples = Map::new();
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
            samples.insert(t.to_string(), value.into());
            t += 300;
        }
        out.insert((*field).to_string(), Value::Object(samples));
    }
    v
}

/// A heart list row.
pub fn heart(h: &Heart) -> Value {
    let mut v = json!({"deviceid": h.device.id, "model": h.device.model_id});
    let Value::Object(out) = &mut v else { return v };
    if let Some((signalid, afib)) = h.ecg {
        out.insert("ecg".into(), json!({"signalid": signalid, "afib": afib}));
    }
    if let Some((diastole, systole)) = h.bp {
        out.insert("bloodpressure".into(), json!({"diastole": diastole, "systole": systole}));
    }
    out.insert("heart_rate".into(), h.heart_rate.into());
    out.insert("timestamp".into(), h.timestamp.into());
    out.insert("modified".into(), h.modified.into());
    v
}

/// A heart get body: a synthetic ECG trace in µV (P wave, QRS spike, T wave per beat), irregular
/// and noisy for the inconclusive recording.
pub fn ecg_signal(h: &Heart, signalid: i64, afib: i64) -> Value {
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
    json!({
        "signal": signal,
        "sampling_frequency": hz,
        "wearposition": position,
        "model": h.device.model_id,
        "heart_rate": h.heart_rate,
    })
}

/// The user's devices.
pub fn devices(acc: &Account) -> Value {
    let first = acc.now - 420 * 86_400;
    let list: Vec<Value> = DEVICES
        .iter()
        .filter(|d| acc.person.has(d))
        .map(|d| {
            let sleep_mat = d.model_id == SLEEP_MAT.model_id;
            json!({
                "type": d.kind,
                "battery": if sleep_mat { "unknown" } else if d.model_id == 94 { "medium" } else { "high" },
                "model": d.model,
                "model_id": d.model_id,
                "timezone": acc.home_tz,
                "first_session_date": first,
                "last_session_date": last_session(acc, d.id),
                "deviceid": d.id,
                "hash_deviceid": d.id,
            })
        })
        .collect();
    obj([("devices", Value::Array(list))])
}

fn last_session(acc: &Account, id: &str) -> Value {
    let groups = acc.groups.iter().filter(|g| g.device.is_some_and(|d| d.id == id)).map(|g| g.created);
    let sleeps = acc.sleeps.iter().filter(|s| s.device.id == id).map(|s| s.created);
    let watch = acc.activities.last().filter(|_| id == WATCH.id).map(|a| a.modified);
    groups.chain(sleeps).chain(watch).max().map_or(Value::Null, Value::from)
}

/// Keeps only `fields` of an object (all of them when `None`), in their original order.
fn keep(v: Value, fields: Option<&[&str]>) -> Value {
    match (v, fields) {
        (Value::Object(mut map), Some(fields)) => {
            map.retain(|k, _| fields.contains(&k.as_str()));
            Value::Object(map)
        }
        (v, _) => v,
    }
}
