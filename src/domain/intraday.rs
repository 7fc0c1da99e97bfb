//! Intraday activity from measure v2 `getintradayactivity`: sparse samples, each holding only the
//! fields recorded at that moment (withings-api.md §3.3).
//!
//! Withings answers at most the 24 hours after `startdate`, without paging, so a longer range is
//! read in 24 h windows. A sample belongs to the window its time falls in (`[start, end)`), so one
//! that an upstream returns at both edges of two windows is kept once.
//!
//! A value that cannot be true for its field (a negative count, a heart rate of 0, an SpO2 over
//! 100 %) reads as absent: Withings writes 0 or -1 where it has no reading.

use crate::domain::time::Instant;

/// One data field: its Withings name (also the name in our output and in `fields`), its unit and
/// the values it can take; anything outside `[min, max]` reads as absent.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Field {
    pub name: &'static str,
    pub unit: &'static str,
    pub what: &'static str,
    pub min: f64,
    pub max: f64,
}

const fn field(name: &'static str, unit: &'static str, what: &'static str, min: f64, max: f64) -> Field {
    Field { name, unit, what, min, max }
}

/// Every data field Withings documents for getintradayactivity, in its order.
pub const FIELDS: [Field; 15] = [
    field("steps", "steps", "steps", 0.0, 1e6),
    field("elevation", "floors", "floors climbed", 0.0, 1e4),
    field("calories", "kcal", "active calories", 0.0, 1e5),
    field("distance", "m", "distance", 0.0, 1e6),
    field("stroke", "strokes", "swim strokes", 0.0, 1e6),
    field("pool_lap", "laps", "pool laps", 0.0, 1e4),
    field("duration", "s", "duration of the sample", 0.0, 86_400.0),
    field("heart_rate", "bpm", "heart rate", 1.0, 300.0),
    field("spo2_auto", "%", "SpO2, automatic", 1.0, 100.0),
    field("rmssd", "ms", "HRV, RMSSD", 1.0, 1000.0),
    field("sdnn1", "ms", "HRV, SDNN", 1.0, 1000.0),
    field("hrv_quality", "", "HRV quality score", 0.0, 1e3),
    field("core_body_temperature", "°C", "core body temperature", 25.0, 45.0),
    field("rr", "breaths/min", "breathing rate", 1.0, 100.0),
    field("chest_movement_rate", "events/min", "chest movement rate", 0.0, 1000.0),
];

/// The index of a field in [`FIELDS`].
pub fn field_index(name: &str) -> Option<usize> {
    field_slot(name.as_bytes())
}

/// [`field_index`] of a name's bytes. A match, not a search of the table: it runs for each key
/// of each sample read (a week is 10,000 samples of eight keys), and the search was a call to
/// compare strings per field tried; byte patterns are compared in line.
pub fn field_slot(name: &[u8]) -> Option<usize> {
    Some(match name {
        b"steps" => 0,
        b"elevation" => 1,
        b"calories" => 2,
        b"distance" => 3,
        b"stroke" => 4,
        b"pool_lap" => 5,
        b"duration" => 6,
        b"heart_rate" => 7,
        b"spo2_auto" => 8,
        b"rmssd" => 9,
        b"sdnn1" => 10,
        b"hrv_quality" => 11,
        b"core_body_temperature" => 12,
        b"rr" => 13,
        b"chest_movement_rate" => 14,
        _ => return None,
    })
}

/// The value of field `i` as it reads: `None` for one that cannot be true.
pub fn plausible(i: usize, v: f64) -> Option<f64> {
    let f = FIELDS.get(i)?;
    (v.is_finite() && (f.min..=f.max).contains(&v)).then_some(v)
}

/// Which fields a call wants, as a bit per index of [`FIELDS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FieldSet(u32);

impl FieldSet {
    /// Every field.
    pub const ALL: FieldSet = FieldSet((1 << FIELDS.len()) - 1);

    /// The named fields; the error names the first unknown one.
    pub fn of(names: &[&str]) -> Result<FieldSet, String> {
        let mut bits = 0;
        for n in names {
            match field_index(n) {
                Some(i) => bits |= 1 << i,
                None => {
                    let all: Vec<&str> = FIELDS.iter().map(|f| f.name).collect();
                    return Err(format!("unknown field `{n}`; use {}", all.join(", ")));
                }
            }
        }
        Ok(match bits {
            0 => FieldSet::ALL,
            b => FieldSet(b),
        })
    }

    pub fn has(self, i: usize) -> bool {
        i < FIELDS.len() && self.0 & (1 << i) != 0
    }

    /// The names, comma-joined, as `data_fields` wants them.
    pub fn data_fields(self) -> String {
        let names: Vec<&str> =
            FIELDS.iter().enumerate().filter(|(i, _)| self.has(*i)).map(|(_, f)| f.name).collect();
        names.join(",")
    }
}

/// One sample: when, from which device model, and the values recorded then.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    pub t: Instant,
    pub model: Option<String>,
    pub model_id: Option<i64>,
    /// By index of [`FIELDS`].
    pub values: [Option<f64>; FIELDS.len()],
}

impl Sample {
    /// A sample at `t` with nothing recorded yet.
    pub fn at(t: Instant) -> Sample {
        Sample { t, model: None, model_id: None, values: [None; FIELDS.len()] }
    }

    /// A value by field name.
    pub fn get(&self, name: &str) -> Option<f64> {
        self.values.get(field_index(name)?).copied().flatten()
    }

    /// The sample with only the fields in `set`; `None` when nothing is left.
    pub fn keep(mut self, set: FieldSet) -> Option<Sample> {
        for (i, v) in self.values.iter_mut().enumerate() {
            if !set.has(i) {
                *v = None;
            }
        }
        self.values.iter().any(Option::is_some).then_some(self)
    }
}

/// A window's samples as they are kept: inside `[start, end)`, newest first, one per time (a
/// second sample at the same time, which no upstream should send, is dropped).
pub fn in_window(mut samples: Vec<Sample>, start: Instant, end: Instant) -> Vec<Sample> {
    samples.retain(|s| s.t >= start && s.t < end);
    // Withings lists a series oldest first: reversing it is all the sorting most windows need.
    match samples.windows(2).all(|w| w[0].t <= w[1].t) {
        true => samples.reverse(),
        false => crate::sort::by(&mut samples, |a, b| b.t.cmp(&a.t)),
    }
    samples.dedup_by_key(|s| s.t);
    samples
}

/// Count, smallest, largest, mean and sum of one field over samples (`None` without values).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stats {
    pub n: usize,
    pub min: f64,
    pub max: f64,
    pub mean: f64,
    pub sum: f64,
}

/// [`Stats`] of field `i`.
pub fn stats<'a>(samples: impl IntoIterator<Item = &'a Sample>, i: usize) -> Option<Stats> {
    let mut s = Stats { n: 0, min: f64::INFINITY, max: f64::NEG_INFINITY, mean: 0.0, sum: 0.0 };
    for v in samples.into_iter().filter_map(|x| x.values.get(i).copied().flatten()) {
        s.n += 1;
        s.min = s.min.min(v);
        s.max = s.max.max(v);
        s.sum += v;
    }
    (s.n > 0).then(|| Stats { mean: s.sum / s.n as f64, ..s })
}

/// [`Stats`] of field `i` over the samples in `[start, end)` (Unix seconds): a night's HRV or SpO2
/// is the mean of the samples taken while asleep, not of the whole 24-hour window read.
pub fn stats_between(samples: &[Sample], i: usize, start: i64, end: i64) -> Option<Stats> {
    stats(samples.iter().filter(|s| (start..end).contains(&s.t.0)), i)
}

/// The lowest mean of field `i` over any `span` seconds inside `[start, end)`, each stretch
/// starting at a sample and holding at least `min_n` values: resting heart rate as the calmest
/// half hour of a night, which one low sample (a sensor glitch) cannot set on its own. `None`
/// when no stretch fits.
pub fn lowest_mean(
    samples: &[Sample],
    i: usize,
    (start, end): (i64, i64),
    span: i64,
    min_n: usize,
) -> Option<f64> {
    let mut points: Vec<(i64, f64)> = samples
        .iter()
        .filter(|s| (start..end).contains(&s.t.0))
        .filter_map(|s| Some((s.t.0, s.values.get(i).copied().flatten()?)))
        .collect();
    crate::sort::by(&mut points, |a, b| a.0.cmp(&b.0));
    let span = span.max(1);
    let (mut best, mut hi, mut sum) = (None::<f64>, 0usize, 0.0);
    for (lo, &(t, v)) in points.iter().enumerate() {
        let stop = t.saturating_add(span);
        if stop > end {
            break;
        }
        // The stretch [t, t + span): `hi` only moves forwards, so the whole night costs O(n).
        while let Some(&(_, x)) = points.get(hi).filter(|p| p.0 < stop) {
            sum += x;
            hi += 1;
        }
        let n = hi - lo;
        if n >= min_n.max(1) {
            let mean = sum / n as f64;
            best = Some(best.map_or(mean, |b: f64| b.min(mean)));
        }
        sum -= v;
    }
    best
}

/// True for fields whose samples add up (steps in a day), false for rates and levels (heart rate).
pub fn additive(i: usize) -> bool {
    matches!(
        FIELDS.get(i).map(|f| f.name),
        Some("steps" | "elevation" | "calories" | "distance" | "stroke" | "pool_lap")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(t: i64, pairs: &[(&str, f64)]) -> Sample {
        let mut s = Sample::at(Instant(t));
        for (k, v) in pairs {
            s.values[field_index(k).unwrap()] = Some(*v);
        }
        s
    }

    #[test]
    fn field_sets() {
        for (i, f) in FIELDS.iter().enumerate() {
            assert_eq!(field_index(f.name), Some(i), "{}", f.name);
        }
        assert_eq!(field_index("model"), None);
        assert_eq!(FieldSet::of(&[]), Ok(FieldSet::ALL));
        let hr = FieldSet::of(&["heart_rate", "rmssd"]).unwrap();
        assert!(hr.has(7) && hr.has(9) && !hr.has(0));
        assert_eq!(hr.data_fields(), "heart_rate,rmssd");
        assert_eq!(FieldSet::ALL.data_fields().split(',').count(), 15);
        let err = FieldSet::of(&["heart_rate", "sdnn_1"]).unwrap_err();
        assert!(err.contains("`sdnn_1`") && err.contains("sdnn1"), "{err}");
    }

    #[test]
    fn impossible_values_read_as_absent() {
        let cases = [
            ("heart_rate", 0.0, None),
            ("heart_rate", 61.0, Some(61.0)),
            ("steps", -1.0, None),
            ("steps", 0.0, Some(0.0)),
            ("spo2_auto", 101.0, None),
            ("spo2_auto", 97.5, Some(97.5)),
            ("core_body_temperature", -1.0, None),
            ("rmssd", f64::NAN, None),
        ];
        for (name, v, want) in cases {
            assert_eq!(plausible(field_index(name).unwrap(), v), want, "{name} {v}");
        }
        assert_eq!(plausible(99, 1.0), None);
    }

    #[test]
    fn windows_keep_their_own_samples_newest_first() {
        let got = in_window(
            vec![sample(100, &[]), sample(200, &[]), sample(50, &[]), sample(150, &[]), sample(150, &[])],
            Instant(100),
            Instant(200),
        );
        let times: Vec<i64> = got.iter().map(|s| s.t.0).collect();
        assert_eq!(times, [150, 100], "200 belongs to the next window, 50 to the previous");
    }

    #[test]
    fn a_night_mean_and_the_calmest_half_hour() {
        // Heart rate every 10 minutes from t = 0: 60, 58, 50, 52, 54, 70; one glitch of 30 at 25 min
        // (alone it would be the minimum; in a 30-minute stretch it is one value of four).
        let mut xs: Vec<Sample> = [60.0, 58.0, 50.0, 52.0, 54.0, 70.0]
            .iter()
            .enumerate()
            .map(|(k, hr)| sample(k as i64 * 600, &[("heart_rate", *hr), ("rmssd", 40.0 + k as f64)]))
            .collect();
        xs.push(sample(1500, &[("heart_rate", 30.0)]));
        let hr = field_index("heart_rate").unwrap();
        // Stretches of 30 min from each sample, inside [0, 3600): [0,1800) 60,58,50 → 56;
        // [600,2400) 58,50,30,52 → 47.5; [1200,3000) 50,30,52,54 → 46.5; [1500,3300) 30,52,54,70
        // → 51.5; [1800,3600) 52,54,70 → 58.67; 2400 + 1800 passes the end.
        assert_eq!(lowest_mean(&xs, hr, (0, 3600), 1800, 3), Some(46.5));
        assert_eq!(lowest_mean(&xs, hr, (0, 3600), 1800, 5), None, "no stretch holds five values");
        assert_eq!(lowest_mean(&xs, hr, (0, 1000), 1800, 1), None, "the night is shorter than the span");
        let rmssd = field_index("rmssd").unwrap();
        // Samples at 600, 1200, 1800 are inside [600, 2400): 41, 42, 43.
        let st = stats_between(&xs, rmssd, 600, 2400).unwrap();
        assert_eq!((st.n, st.mean), (3, 42.0));
        assert_eq!(stats_between(&xs, rmssd, 4000, 5000), None);
    }

    #[test]
    fn keep_and_stats() {
        let s = sample(1, &[("steps", 40.0), ("heart_rate", 80.0)]);
        let hr_only = FieldSet::of(&["heart_rate"]).unwrap();
        assert_eq!(s.clone().keep(hr_only).map(|x| x.get("steps")), Some(None));
        assert_eq!(s.clone().keep(FieldSet::of(&["spo2_auto"]).unwrap()), None);
        let xs = [s, sample(2, &[("steps", 20.0)]), sample(3, &[("heart_rate", 60.0)])];
        let st = stats(&xs, 0).unwrap();
        assert_eq!((st.n, st.sum, st.min, st.max, st.mean), (2, 60.0, 20.0, 40.0, 30.0));
        assert_eq!(stats(&xs, 8), None);
        assert!(additive(0) && !additive(7));
    }
}
