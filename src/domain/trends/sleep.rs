//! Sleep regularity: bedtime and wake-time spread on a 24-hour circle, and the Sleep Regularity
//! Index from sleep-state segments.
#![warn(clippy::indexing_slicing)]

use std::collections::BTreeSet;

use crate::domain::trends::SECS_PER_DAY;
use crate::domain::trends::stats::finite_or_zero;

/// One night: the local day it is filed under (any day index the caller uses, e.g. days since
/// 1970 of the wake date) and bedtime and wake time as local seconds of the day (0..86400).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Night {
    pub day: i64,
    pub bedtime: i64,
    pub wake: i64,
}

/// Spread of bedtimes and wake times around their circular means.
#[derive(Debug, Clone, PartialEq)]
pub struct TimingSpread {
    pub method: &'static str,
    pub description: &'static str,
    pub first_day: i64,
    pub last_day: i64,
    pub n_used: usize,
    pub n_rejected: usize,
    /// Circular mean as local seconds of the day, rounded to whole seconds.
    pub bedtime_mean: i64,
    pub wake_mean: i64,
    /// Sample SD in minutes of the signed distances to the circular mean.
    pub bedtime_sd_min: f64,
    pub wake_sd_min: f64,
}

pub const TIMING_METHOD: &str = "circular-sd";
pub const TIMING_DESCRIPTION: &str = "Times of day are placed on a 24-hour circle; each time's \
signed distance to the circular mean (within ±12 h) gives a sample standard deviation in minutes, \
so 23:30 and 00:30 are one hour apart.";

/// Bedtime and wake-time regularity. Nights with a time outside 0..86400 are rejected. `None`
/// with fewer than 2 usable nights or when the times are spread evenly round the clock (no mean).
pub fn sleep_timing(nights: &[Night]) -> Option<TimingSpread> {
    let valid = |s: i64| (0..SECS_PER_DAY).contains(&s);
    let mut used: Vec<Night> = nights.iter().copied().filter(|n| valid(n.bedtime) && valid(n.wake)).collect();
    crate::sort::by_key(&mut used, |n| (n.day, n.bedtime, n.wake));
    if used.len() < 2 {
        return None;
    }
    let beds: Vec<i64> = used.iter().map(|n| n.bedtime).collect();
    let wakes: Vec<i64> = used.iter().map(|n| n.wake).collect();
    let (bedtime_mean, bedtime_sd_min) = circular_spread(&beds)?;
    let (wake_mean, wake_sd_min) = circular_spread(&wakes)?;
    Some(TimingSpread {
        method: TIMING_METHOD,
        description: TIMING_DESCRIPTION,
        first_day: used.first().map_or(0, |n| n.day),
        last_day: used.last().map_or(0, |n| n.day),
        n_used: used.len(),
        n_rejected: nights.len() - used.len(),
        bedtime_mean,
        wake_mean,
        bedtime_sd_min,
        wake_sd_min,
    })
}

/// A span of one state, in local seconds (day boundaries at multiples of 86 400), `end` exclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SleepSegment {
    pub start: i64,
    pub end: i64,
    pub asleep: bool,
}

/// The Sleep Regularity Index and what it was computed from.
#[derive(Debug, Clone, PartialEq)]
pub struct Sri {
    pub method: &'static str,
    pub description: &'static str,
    /// −100 (every epoch flips) to 100 (identical days).
    pub value: f64,
    pub epoch_s: i64,
    /// Noon-to-noon days with data, and epoch pairs 24 h apart that were compared.
    pub n_days: usize,
    pub n_comparisons: usize,
    /// First and last local second covered (noon of the first day, noon after the last).
    pub start: i64,
    pub end: i64,
    pub n_used: usize,
    pub n_rejected: usize,
}

pub const SRI_METHOD: &str = "sri-phillips-2017";
pub const SRI_DESCRIPTION: &str = "Sleep Regularity Index (Phillips et al. 2017): the share of \
epochs in the same state (asleep or awake) as the epoch 24 h later, scaled to -100..100. Days run \
noon to noon; a day with no segment is missing, and within a day with data any time not covered \
by a sleep segment counts as awake. Overlaps resolve to asleep.";

/// Days beyond this many (the most recent kept) are ignored, bounding memory to ~1.2 MB at 30 s.
pub const SRI_MAX_DAYS: i64 = 400;

/// Computes the SRI over `epoch_s`-second epochs (a divisor of 86 400 up to 3600, typically 30
/// or 60). `None` when the epoch is invalid or fewer than one day's worth of epoch pairs exists.
pub fn sleep_regularity_index(segments: &[SleepSegment], epoch_s: i64) -> Option<Sri> {
    if !(1..=3600).contains(&epoch_s) || SECS_PER_DAY % epoch_s != 0 {
        return None;
    }
    // Times beyond ±2^40 s (35 000 years) are nonsense and could overflow the day arithmetic.
    let sane = |t: i64| t.unsigned_abs() < (1 << 40);
    let valid: Vec<SleepSegment> =
        segments.iter().copied().filter(|s| s.end > s.start && sane(s.start) && sane(s.end)).collect();
    let n_rejected = segments.len() - valid.len();
    let mut days = BTreeSet::new();
    let last_day = valid.iter().map(|s| noon_day(s.end - 1)).max()?;
    let first_allowed = last_day - (SRI_MAX_DAYS - 1);
    for s in &valid {
        let from = noon_day(s.start).max(first_allowed);
        let to = noon_day(s.end - 1);
        for d in from..=to {
            days.insert(d);
        }
    }
    let first_day = *days.first()?;
    let per_day = usize::try_from(SECS_PER_DAY / epoch_s).ok()?;
    let n_span = usize::try_from(last_day - first_day + 1).ok()?;
    let base = first_day * SECS_PER_DAY + SECS_PER_DAY / 2;
    // 0 = unknown, 1 = awake, 2 = asleep.
    let mut states = vec![0u8; n_span.checked_mul(per_day)?];
    for d in &days {
        let Ok(offset) = usize::try_from(d - first_day) else { continue };
        let from = offset * per_day;
        if let Some(chunk) = states.get_mut(from..from + per_day) {
            chunk.fill(1);
        }
    }
    let len = states.len() as i64;
    for s in valid.iter().filter(|s| s.asleep) {
        // An epoch belongs to the segment when its midpoint does.
        let k_from = ceil_div(s.start - base - epoch_s / 2, epoch_s).clamp(0, len);
        let k_to = ceil_div(s.end - base - epoch_s / 2, epoch_s).clamp(0, len);
        let (Ok(a), Ok(b)) = (usize::try_from(k_from), usize::try_from(k_to)) else { continue };
        if let Some(chunk) = states.get_mut(a..b) {
            chunk.iter_mut().filter(|e| **e != 0).for_each(|e| *e = 2);
        }
    }
    let (mut agree, mut compared) = (0usize, 0usize);
    for (a, b) in states.iter().zip(states.iter().skip(per_day)) {
        if *a != 0 && *b != 0 {
            compared += 1;
            if a == b {
                agree += 1;
            }
        }
    }
    if compared < per_day {
        return None;
    }
    let value = finite_or_zero(200.0 * agree as f64 / compared as f64 - 100.0);
    Some(Sri {
        method: SRI_METHOD,
        description: SRI_DESCRIPTION,
        value,
        epoch_s,
        n_days: days.len(),
        n_comparisons: compared,
        start: base,
        end: (last_day + 1) * SECS_PER_DAY + SECS_PER_DAY / 2,
        n_used: valid.len(),
        n_rejected,
    })
}

/// Circular mean (rounded seconds of day) and sample SD in minutes of the distances to it.
fn circular_spread(secs: &[i64]) -> Option<(i64, f64)> {
    let n = secs.len();
    if n < 2 {
        return None;
    }
    let angle = |s: i64| s as f64 / SECS_PER_DAY as f64 * std::f64::consts::TAU;
    let (sin, cos) = secs.iter().fold((0.0, 0.0), |(s, c), &x| (s + angle(x).sin(), c + angle(x).cos()));
    if (sin * sin + cos * cos).sqrt() / (n as f64) < 1e-9 {
        return None;
    }
    let mean_angle = sin.atan2(cos).rem_euclid(std::f64::consts::TAU);
    let mean =
        ((mean_angle / std::f64::consts::TAU * SECS_PER_DAY as f64).round() as i64).rem_euclid(SECS_PER_DAY);
    let half = SECS_PER_DAY / 2;
    let devs: Vec<f64> =
        secs.iter().map(|&s| ((s - mean + half).rem_euclid(SECS_PER_DAY) - half) as f64).collect();
    let dmean = devs.iter().sum::<f64>() / n as f64;
    let var = devs.iter().map(|d| (d - dmean) * (d - dmean)).sum::<f64>() / (n - 1) as f64;
    Some((mean, finite_or_zero(var.max(0.0).sqrt() / 60.0)))
}

fn noon_day(t: i64) -> i64 {
    (t - SECS_PER_DAY / 2).div_euclid(SECS_PER_DAY)
}

fn ceil_div(a: i64, b: i64) -> i64 {
    -((-a).div_euclid(b))
}
