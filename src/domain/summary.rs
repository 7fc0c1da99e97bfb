//! Daily and weekly briefs: pure functions from already-decoded records to a structured answer,
//! and a person-friendly markdown rendering of it (the JSON Schema the answer always satisfies is
//! the tool's output schema, src/tools/schemas.txt).
//!
//! Days are civil dates in the user's zone, passed as day numbers (days since 1970-01-01); the
//! tool layer buckets every record into its local day and supplies a `label` that prints a day
//! number as `YYYY-MM-DD`. Nothing here reads a clock: `today` is an argument.
//!
//! Rules that differ from the Node project on purpose (reference `upstream.md` §4):
//! - every record of a day is considered, not only the first; active minutes are summed by the caller;
//! - a missing value stays missing: it is never counted as 0 or as a perfect score, and a window
//!   with too little data is classified `insufficient_data`;
//! - a nap never replaces the main sleep of a night;
//! - failed and empty domains are told apart, and both lower the confidence;
//! - the next-week plan is derived from the person's own baseline.

mod daily;
pub(crate) mod markdown;
#[cfg(test)]
mod schema;
mod weekly;

#[cfg(test)]
mod tests;

use serde::{Serialize, Serializer};

pub use crate::domain::summary::daily::{Daily, Now, daily};
pub use crate::domain::summary::markdown::{daily_markdown, weekly_markdown};
#[cfg(test)]
pub use crate::domain::summary::schema::{daily_output_schema, weekly_output_schema};
pub use crate::domain::summary::weekly::{MAX_WINDOW_DAYS, Weekly, weekly};

/// How many days before the brief's day the daily brief looks at for baselines (usual sleep,
/// previous weigh-in, recent blood pressure). The tool layer should fetch at least this range.
pub const DAILY_LOOKBACK_DAYS: i64 = 14;

/// One weigh-in (one measure group with a weight) as the decoder produced it.
#[derive(Debug, Clone, PartialEq)]
pub struct Weighin {
    /// Unix time of the measurement.
    pub t: i64,
    /// Local civil day number of `t`.
    pub day: i64,
    pub weight_kg: Option<f64>,
    pub fat_ratio_pct: Option<f64>,
    pub fat_mass_kg: Option<f64>,
    pub fat_free_mass_kg: Option<f64>,
    pub muscle_mass_kg: Option<f64>,
    pub bone_mass_kg: Option<f64>,
    pub hydration_kg: Option<f64>,
    pub heart_pulse_bpm: Option<f64>,
    /// Attribution is ambiguous or belongs to a guest: not counted as the user's own.
    pub guest: bool,
    /// Entered by hand rather than measured by a device.
    pub manual: bool,
}

/// One blood-pressure reading from `getmeas`.
#[derive(Debug, Clone, PartialEq)]
pub struct BloodPressure {
    pub t: i64,
    pub day: i64,
    pub systolic: f64,
    pub diastolic: f64,
    pub pulse: Option<f64>,
}

/// One sleep session from sleep `getsummary`.
#[derive(Debug, Clone, PartialEq)]
pub struct Night {
    /// Local civil day number of the wake-up.
    pub day: i64,
    pub start: i64,
    pub end: i64,
    pub asleep_s: Option<f64>,
    pub deep_s: Option<f64>,
    pub light_s: Option<f64>,
    pub rem_s: Option<f64>,
    pub awake_s: Option<f64>,
    pub wakeups: Option<f64>,
    pub score: Option<f64>,
    pub hr_average: Option<f64>,
    pub hr_min: Option<f64>,
    pub rr_average: Option<f64>,
    /// Seconds after local midnight of the day the session started.
    pub bedtime_local_s: i64,
    /// Seconds after local midnight of the wake-up day.
    pub wake_local_s: i64,
    pub nap: bool,
    /// From the watch's intraday samples (daily brief, main sleep only): the lowest mean heart
    /// rate over 30 minutes asleep, and the mean HRV (RMSSD, ms) while asleep.
    pub rest_hr: Option<f64>,
    pub hrv_rmssd: Option<f64>,
}

/// One day of `getactivity`.
#[derive(Debug, Clone, PartialEq)]
pub struct ActivityDay {
    pub day: i64,
    pub steps: Option<f64>,
    pub distance_m: Option<f64>,
    /// Soft + moderate + intense seconds, summed by the caller.
    pub active_s: Option<f64>,
    pub moderate_s: Option<f64>,
    pub intense_s: Option<f64>,
    /// Active calories (kcal).
    pub calories: Option<f64>,
    /// Total calories including basal (kcal).
    pub total_calories: Option<f64>,
    pub hr_average: Option<f64>,
}

/// One record of heart `list` (ECG and/or a BPM reading).
#[derive(Debug, Clone, PartialEq)]
pub struct HeartRecord {
    pub t: i64,
    pub day: i64,
    pub heart_rate: Option<f64>,
    pub systolic: Option<f64>,
    pub diastolic: Option<f64>,
    /// ECG classification name, e.g. "normal", "afib", "inconclusive".
    pub ecg: Option<String>,
}

/// The outcome of fetching one domain for the whole range.
#[derive(Debug, Clone, PartialEq)]
pub enum Fetch<T> {
    Ok(Vec<T>),
    /// Why the domain could not be read; already free of secrets.
    Failed(String),
}

/// Everything a brief reads. `blood_pressure` comes from the same `getmeas` fetch as `weighins`.
#[derive(Debug, Clone, PartialEq)]
pub struct Inputs {
    pub weighins: Fetch<Weighin>,
    pub blood_pressure: Fetch<BloodPressure>,
    pub nights: Fetch<Night>,
    pub activity: Fetch<ActivityDay>,
    pub heart: Fetch<HeartRecord>,
}

/// The domain names used in `data_quality`, in display order.
const DOMAINS: [&str; 5] = ["body", "blood_pressure", "sleep", "activity", "heart"];

impl<T> Fetch<T> {
    /// The records, or none when the fetch failed.
    fn items(&self) -> &[T] {
        match self {
            Fetch::Ok(v) => v,
            Fetch::Failed(_) => &[],
        }
    }

    fn failure(&self) -> Option<&str> {
        match self {
            Fetch::Ok(_) => None,
            Fetch::Failed(why) => Some(why),
        }
    }
}

impl Inputs {
    /// The failure reason of a domain named as in [`DOMAINS`].
    fn failure(&self, domain: &str) -> Option<&str> {
        match domain {
            "body" => self.weighins.failure(),
            "blood_pressure" => self.blood_pressure.failure(),
            "sleep" => self.nights.failure(),
            "activity" => self.activity.failure(),
            "heart" => self.heart.failure(),
            _ => None,
        }
    }

    /// Non-guest weigh-ins with a usable weight, oldest first.
    fn own_weighins(&self) -> Vec<&Weighin> {
        let mut v: Vec<&Weighin> =
            self.weighins.items().iter().filter(|w| !w.guest && fin(w.weight_kg).is_some()).collect();
        crate::sort::by_key(&mut v, |w| w.t);
        v
    }

    /// Blood-pressure readings from both sources, oldest first. A BPM reading appears in both
    /// `getmeas` and heart `list`; the copy within two minutes with the same values is dropped.
    fn bp_readings(&self) -> Vec<Bp> {
        let mut v: Vec<Bp> = self
            .blood_pressure
            .items()
            .iter()
            .filter(|b| b.systolic.is_finite() && b.diastolic.is_finite())
            .map(|b| Bp { t: b.t, day: b.day, sys: b.systolic, dia: b.diastolic, pulse: fin(b.pulse) })
            .collect();
        for h in self.heart.items() {
            if let (Some(sys), Some(dia)) = (fin(h.systolic), fin(h.diastolic)) {
                let dup = v.iter().any(|b| (b.t - h.t).abs() <= 120 && b.sys == sys && b.dia == dia);
                if !dup {
                    v.push(Bp { t: h.t, day: h.day, sys, dia, pulse: fin(h.heart_rate) });
                }
            }
        }
        crate::sort::by_key(&mut v, |b| b.t);
        v
    }

    /// Whether the domain has any record on a day in `from..=to`.
    fn has_data(&self, domain: &str, from: i64, to: i64) -> bool {
        let inr = |d: i64| d >= from && d <= to;
        match domain {
            "body" => self.own_weighins().iter().any(|w| inr(w.day)),
            "blood_pressure" => self.bp_readings().iter().any(|b| inr(b.day)),
            "sleep" => self.nights.items().iter().any(|n| inr(n.day)),
            "activity" => self.activity.items().iter().any(|a| inr(a.day) && activity_has_data(a)),
            "heart" => self.heart.items().iter().any(|h| inr(h.day)),
            _ => false,
        }
    }

    /// The newest sample of a domain on or before `day`: (day number, unix time when known).
    fn newest(&self, domain: &str, day: i64) -> Option<(i64, Option<i64>)> {
        let pick = |it: &mut dyn Iterator<Item = (i64, Option<i64>)>| {
            it.filter(|(d, _)| *d <= day).max_by_key(|(d, t)| (*d, t.unwrap_or(i64::MIN)))
        };
        match domain {
            "body" => pick(&mut self.own_weighins().iter().map(|w| (w.day, Some(w.t)))),
            "blood_pressure" => pick(&mut self.bp_readings().iter().map(|b| (b.day, Some(b.t)))),
            "sleep" => pick(&mut self.nights.items().iter().map(|n| (n.day, Some(n.end)))),
            "activity" => pick(
                &mut self.activity.items().iter().filter(|a| activity_has_data(a)).map(|a| (a.day, None)),
            ),
            "heart" => pick(&mut self.heart.items().iter().map(|h| (h.day, Some(h.t)))),
            _ => None,
        }
    }
}

/// A blood-pressure reading from either source.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Bp {
    t: i64,
    day: i64,
    sys: f64,
    dia: f64,
    pulse: Option<f64>,
}

/// Whether an activity record carries any number at all (an all-empty day is no data).
fn activity_has_data(a: &ActivityDay) -> bool {
    [a.steps, a.distance_m, a.active_s, a.calories, a.total_calories].iter().any(|x| fin(*x).is_some())
}

/// A finite value or nothing: NaN and infinities from a decoder never reach the output.
fn fin(x: Option<f64>) -> Option<f64> {
    x.filter(|v| v.is_finite())
}

/// A rounded number, or `None` (JSON `null`) when absent or not finite.
fn num(x: Option<f64>, dp: i32) -> Option<f64> {
    let p = 10f64.powi(dp);
    let r = (fin(x)? * p).round() / p;
    // `-0.0` reads badly in a brief.
    Some(if r == 0.0 { 0.0 } else { r })
}

/// A whole number (steps, minutes, bpm), or `None`.
fn int(x: Option<f64>) -> Option<i64> {
    fin(x).filter(|v| v.abs() < 9.0e15).map(|v| v.round() as i64)
}

/// Values under fixed keys, in order, written as one JSON object: per-domain blocks, deltas per
/// metric, a bottleneck's evidence.
#[derive(Debug, Clone, PartialEq)]
pub struct Keyed<T>(pub Vec<(&'static str, T)>);

impl<T> Keyed<T> {
    pub fn get(&self, key: &str) -> Option<&T> {
        self.0.iter().find(|(k, _)| *k == key).map(|(_, v)| v)
    }
}

impl<T: Serialize> Serialize for Keyed<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().map(|(k, v)| (k, v)))
    }
}

/// One figure of an evidence block: a count, a measure or a label (each may be absent).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Fig {
    Int(Option<i64>),
    Real(Option<f64>),
    Text(Option<String>),
}

/// The numbers (and times) behind a sentence, under their names.
pub type Evidence = Keyed<Fig>;

impl From<usize> for Fig {
    fn from(n: usize) -> Fig {
        Fig::Int(Some(n as i64))
    }
}

/// A mass in kilograms kept unrounded, so that a display in pounds or stones converts first and
/// rounds last; written to JSON with `DP` decimals.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Kg<const DP: i32>(pub Option<f64>);

impl<const DP: i32> Serialize for Kg<DP> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        num(self.0, DP).serialize(s)
    }
}

/// An advice item of either brief.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Action {
    pub area: &'static str,
    pub action: String,
    pub why: String,
}

/// One domain's state in `data_quality.domains`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DomainState {
    /// `ok`, `empty` (fetched, nothing in range) or `failed`.
    pub status: &'static str,
    pub reason: Option<String>,
}

/// The newest sample of one domain, for `freshness`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Fresh {
    pub newest_date: Option<String>,
    pub newest_t: Option<i64>,
    pub days_ago: Option<i64>,
}

/// The `safety` block of both briefs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Safety {
    pub medical_advice: bool,
    pub note: &'static str,
}

fn mean(xs: &[f64]) -> Option<f64> {
    let xs: Vec<f64> = xs.iter().copied().filter(|v| v.is_finite()).collect();
    match xs.len() {
        0 => None,
        n => Some(xs.iter().sum::<f64>() / n as f64),
    }
}

fn median(xs: &[f64]) -> Option<f64> {
    let mut xs: Vec<f64> = xs.iter().copied().filter(|v| v.is_finite()).collect();
    crate::sort::by(&mut xs, f64::total_cmp);
    let n = xs.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => xs.get(n / 2).copied(),
        _ => Some((xs.get(n / 2 - 1)? + xs.get(n / 2)?) / 2.0),
    }
}

/// Population standard deviation.
fn spread(xs: &[f64]) -> Option<f64> {
    let m = mean(xs)?;
    let sq: Vec<f64> = xs.iter().map(|x| (x - m).powi(2)).collect();
    mean(&sq).map(f64::sqrt)
}

/// `HH:MM` from seconds after local midnight (wrapping past 24 h).
fn clock(secs: i64) -> String {
    let s = secs.rem_euclid(86_400);
    format!("{:02}:{:02}", s / 3600, (s % 3600) / 60)
}

/// A suggested bedtime: `secs` after local midnight minus `earlier` seconds, on a quarter hour.
fn bedtime_target(secs: i64, earlier: i64) -> String {
    clock(((secs - earlier) as f64 / 900.0).round() as i64 * 900)
}

/// Bedtimes unwrapped around midnight so that 23:30 and 00:30 are an hour apart, not 23 hours:
/// anything before noon counts as after midnight.
fn unwrap_bedtime(secs: i64) -> f64 {
    let s = secs.rem_euclid(86_400);
    (if s < 43_200 { s + 86_400 } else { s }) as f64
}

/// How long a session slept, falling back to its time in bed.
fn sleep_secs(n: &Night) -> f64 {
    fin(n.asleep_s).unwrap_or((n.end - n.start) as f64)
}

/// The main sleep whose wake-up is on `day`: the longest non-nap session. A nap never qualifies.
fn main_sleep(nights: &[Night], day: i64) -> Option<&Night> {
    nights.iter().filter(|n| n.day == day && !n.nap).max_by(|a, b| sleep_secs(a).total_cmp(&sleep_secs(b)))
}

/// The main sleep ending on `day` (as the brief picks it), to add what the watch's samples say.
pub fn main_sleep_mut(inputs: &mut Inputs, day: i64) -> Option<&mut Night> {
    let Fetch::Ok(nights) = &mut inputs.nights else { return None };
    let main = main_sleep(nights, day)?;
    let i = nights.iter().position(|n| std::ptr::eq(n, main))?;
    nights.get_mut(i)
}

/// The activity record of a day; when the caller passes several, the one with the most steps.
fn activity_of(acts: &[ActivityDay], day: i64) -> Option<&ActivityDay> {
    acts.iter()
        .filter(|a| a.day == day && activity_has_data(a))
        .max_by(|a, b| fin(a.steps).unwrap_or(-1.0).total_cmp(&fin(b.steps).unwrap_or(-1.0)))
}

fn at_or_above_130_80(sys: f64, dia: f64) -> bool {
    sys >= 130.0 || dia >= 80.0
}

/// `data_quality.domains`: per domain `ok`, `empty` (fetched, nothing in `from..=to`) or `failed`.
fn domain_quality(inputs: &Inputs, from: i64, to: i64) -> Keyed<DomainState> {
    Keyed(
        DOMAINS
            .iter()
            .map(|&d| {
                let state = match inputs.failure(d) {
                    Some(why) => DomainState { status: "failed", reason: Some(why.to_string()) },
                    None if inputs.has_data(d, from, to) => DomainState { status: "ok", reason: None },
                    None => DomainState { status: "empty", reason: None },
                };
                (d, state)
            })
            .collect(),
    )
}

/// `freshness`: the newest sample per domain on or before `day`, and how many days before it.
fn freshness(inputs: &Inputs, day: i64, label: &dyn Fn(i64) -> String) -> Keyed<Fresh> {
    Keyed(
        DOMAINS
            .iter()
            .map(|&d| {
                let newest = inputs.newest(d, day);
                let fresh = Fresh {
                    newest_date: newest.map(|(nd, _)| label(nd)),
                    newest_t: newest.and_then(|(_, t)| t),
                    days_ago: newest.map(|(nd, _)| day - nd),
                };
                (d, fresh)
            })
            .collect(),
    )
}

/// The `safety` block of both briefs.
const SAFETY: Safety = Safety {
    medical_advice: false,
    note: "Wellness context from your own Withings data, not a diagnosis. Talk to a clinician about symptoms or readings that worry you.",
};
