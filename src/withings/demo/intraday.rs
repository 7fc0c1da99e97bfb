//! The watch's intraday samples (getintradayactivity), generated per request from the account.
//!
//! Each day's steps are the day's activity row spread over its waking minutes (none asleep, many
//! during a run or a walk), so the samples of a day add up to that day's `getactivity` steps, give
//! or take rounding; today's stop at `now`, like today's row. Heart rate comes every five minutes
//! (every minute in a workout; the night's own average while asleep); SpO2 every 15 minutes and
//! HRV (RMSSD, SDNN) every 30 minutes while asleep, as a ScanWatch records them.

use crate::withings::demo::account::{Account, Activity, Rng, WATCH};
use crate::withings::demo::wire::Obj;

/// One minute of the watch's day, as far as samples go.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Doing {
    /// Asleep, with the night's average heart rate.
    Asleep(i64),
    /// In a workout with steps (walk, run) or without (cycling, swim, weights).
    Workout {
        steps: bool,
    },
    Awake,
}

/// Samples in `[start, end)`, keyed by time, with the fields in `only` (all when `None`): a JSON
/// object, or `[]` when there is none (as Withings writes an empty map).
pub fn series(acc: &Account, start: i64, end: i64, only: Option<&[&str]>) -> String {
    let mut out = Obj::new();
    let mut any = false;
    for a in acc.activities.iter().filter(|a| a.bounds.0 < end && a.bounds.1 > start) {
        any |= day(acc, a, (start, end), only, &mut out);
    }
    match any {
        true => out.done(),
        false => "[]".to_string(),
    }
}

/// Writes a day's samples within `[start, end)`; true when it wrote any.
fn day(acc: &Account, a: &Activity, (start, end): (i64, i64), only: Option<&[&str]>, out: &mut Obj) -> bool {
    let (first, last) = (a.bounds.0, a.bounds.1.min(acc.now));
    // What the day holds, looked up once rather than across the whole account every minute.
    let sleeps: Vec<(i64, i64, i64)> = acc
        .sleeps
        .iter()
        .filter(|s| s.start() < last && s.end() > first)
        .map(|s| (s.start(), s.end(), s.hr.0))
        .collect();
    let workouts: Vec<(i64, i64, bool)> = acc
        .workouts
        .iter()
        .filter(|w| w.start < last && w.end > first)
        .map(|w| (w.start, w.end, w.moves.is_some_and(|(steps, _, _)| steps > 0)))
        .collect();
    let minutes: Vec<(i64, Doing, f64)> = (first..last)
        .step_by(60)
        .map(|t| {
            let doing = doing(&sleeps, &workouts, t);
            let mut r = Rng::from_seed(t as u64 ^ 0x1A7E);
            let weight = match doing {
                Doing::Asleep(_) | Doing::Workout { steps: false } => 0.0,
                Doing::Workout { steps: true } => 4.0,
                // Sitting still for about a third of the waking minutes.
                Doing::Awake if r.chance(0.35) => 0.0,
                Doing::Awake => r.unit() * r.unit(),
            };
            (t, doing, weight)
        })
        .collect();
    let total: f64 = minutes.iter().map(|m| m.2).sum();
    let per_weight = if total > 0.0 { a.steps as f64 / total } else { 0.0 };
    let mut any = false;
    for &(t, doing, weight) in minutes.iter().filter(|m| (start..end).contains(&m.0)) {
        let mut r = Rng::from_seed(t as u64 ^ 0x5A3D);
        let mut m = Obj::new();
        m.str("deviceid", WATCH.id).str("model", WATCH.model).int("model_id", WATCH.model_id).only(only);
        let header = m.len();
        let steps = (weight * per_weight).round() as i64;
        if steps > 0 {
            m.int("steps", steps);
            m.float("calories", (steps as f64 * 0.041 * 10.0).round() / 10.0);
            m.float("distance", (steps as f64 * 0.74 * 10.0).round() / 10.0);
            m.int("elevation", i64::from(steps > 60 && r.chance(0.03)));
            m.int("duration", 60);
        }
        let minute = t.div_euclid(60);
        let hr = match doing {
            Doing::Asleep(avg) if minute % 5 == 0 => Some(avg + r.range(-3, 3)),
            Doing::Workout { .. } => Some(128 + r.range(-8, 22)),
            Doing::Awake if minute % 5 == 0 => Some(66 + r.range(-4, 10) + steps / 12),
            _ => None,
        };
        if let Some(hr) = hr {
            m.int("heart_rate", hr);
        }
        if let Doing::Asleep(_) = doing {
            if minute % 15 == 0 {
                m.int("spo2_auto", 95 + r.range(-1, 3));
            }
            if minute % 30 == 0 {
                let rmssd = 38 + r.range(-8, 16);
                m.int("rmssd", rmssd).int("sdnn1", rmssd + 10 + r.range(-4, 8));
            }
        }
        if m.len() > header {
            out.raw(&t.to_string(), &m.done());
            any = true;
        }
    }
    any
}

/// What the person was doing at `t`, from the day's sleeps `(start, end, average HR)` and
/// workouts `(start, end, with steps)`.
fn doing(sleeps: &[(i64, i64, i64)], workouts: &[(i64, i64, bool)], t: i64) -> Doing {
    if let Some(&(_, _, hr)) = sleeps.iter().find(|s| s.0 <= t && t < s.1) {
        return Doing::Asleep(hr);
    }
    match workouts.iter().find(|w| w.0 <= t && t < w.1) {
        Some(&(_, _, steps)) => Doing::Workout { steps },
        None => Doing::Awake,
    }
}
