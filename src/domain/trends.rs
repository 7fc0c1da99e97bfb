//! Trends that separate signal from noise: robust outlier rejection, gap-aware smoothing, a
//! Theil–Sen slope with a rank interval, a verdict, body recomposition and sleep regularity.
//!
//! Pure: time arrives as Unix seconds (or, for sleep, local seconds whose day boundaries fall on
//! multiples of 86 400), nothing reads a clock, and every output is finite and deterministic:
//! sorts use a total order, no hash map is iterated, and every division is guarded.
#![warn(clippy::indexing_slicing)]

use std::cmp::Ordering;
use std::collections::BTreeSet;

/// Seconds in a day.
pub const SECS_PER_DAY: i64 = 86_400;

/// One measurement: Unix seconds and a value in the metric's storage unit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reading {
    pub t: i64,
    pub value: f64,
}

/// The analysed period, inclusive at both ends, in Unix seconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    pub start: i64,
    pub end: i64,
}

/// Values outside `[min, max]` are physically implausible for the metric (e.g. weight 20–400 kg).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bounds {
    pub min: f64,
    pub max: f64,
}

/// Tuning of [`analyze`]. [`standard_params`] gives sensible values; out-of-range fields are
/// replaced by those defaults rather than rejected, so a bad argument cannot produce NaN.
#[derive(Debug, Clone, PartialEq)]
pub struct Params {
    /// EWMA weight per day, in (0, 1]. The Hacker's Diet uses 0.1.
    pub alpha: f64,
    /// Robust z-score above which a reading is an outlier (3.5 after Iglewicz & Hoaglin).
    pub mad_k: f64,
    /// Half-width in days of the neighbourhood whose median a reading is compared with.
    pub local_days: i64,
    /// Below this many neighbours the global median and MAD are used instead.
    pub min_local: usize,
    /// The smallest spread (in value units) assumed when scoring outliers, e.g. 0.5 kg of daily
    /// water swing. It keeps a near-constant series from rejecting a small honest change.
    pub min_spread: f64,
    /// Plausibility bounds; `None` disables the check.
    pub plausible: Option<Bounds>,
    /// The smallest change per week that counts as meaningful (e.g. 0.1 kg/week).
    pub min_change_per_week: f64,
    /// The change over the span must also exceed this multiple of the residual scatter.
    pub noise_multiple: f64,
    /// Fewer kept readings than this give `not_enough_data`.
    pub min_readings: usize,
    /// A shorter span (first to last kept reading) gives `not_enough_data`.
    pub min_span_days: f64,
    /// The slope uses at most this many points (evenly spaced subsample) to bound O(n²) work.
    pub max_slope_points: usize,
    /// How `reason` shows quantities: multiplied by `display_factor` and labelled `display_unit`
    /// (e.g. 2.20462 and "lb" for weights shown in pounds). The analysis itself stays in SI.
    pub display_factor: f64,
    pub display_unit: &'static str,
}

/// Defaults for a metric: α 0.1/day, k 3.5, ±14-day neighbourhoods, at least 4 readings over
/// 7 days, and at most 1000 points (~500 000 pairs) in the slope.
pub fn standard_params(min_change_per_week: f64, min_spread: f64, plausible: Option<Bounds>) -> Params {
    Params {
        alpha: 0.1,
        mad_k: 3.5,
        local_days: 14,
        min_local: 5,
        min_spread,
        plausible,
        min_change_per_week,
        noise_multiple: 1.0,
        min_readings: 4,
        min_span_days: 7.0,
        max_slope_points: 1000,
        display_factor: 1.0,
        display_unit: "",
    }
}

/// Why a reading was left out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum RejectReason {
    /// NaN or infinite.
    NonFinite,
    /// Same time and value as a reading already kept.
    Duplicate,
    /// Outside the plausibility bounds (or beyond ±1e12, which no body metric reaches).
    Implausible,
    /// Too far from the local median in units of the robust spread.
    Outlier,
}

impl RejectReason {
    pub fn as_str(self) -> &'static str {
        match self {
            RejectReason::NonFinite => "non_finite",
            RejectReason::Duplicate => "duplicate",
            RejectReason::Implausible => "implausible",
            RejectReason::Outlier => "outlier",
        }
    }
}

/// A rejected reading. `value` is `None` when it was not finite; `median` and `score` are the
/// local median and robust z-score that condemned an outlier.
#[derive(Debug, Clone, PartialEq)]
pub struct Rejected {
    pub t: i64,
    pub value: Option<f64>,
    pub reason: RejectReason,
    pub median: Option<f64>,
    pub score: Option<f64>,
}

/// One point of the smoothed series: the raw value (mean of the readings sharing `t`), the
/// EWMA trend after it, and how many readings were merged.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SmoothedPoint {
    pub t: i64,
    pub value: f64,
    pub trend: f64,
    pub n: usize,
}

/// A Theil–Sen slope per week with its rank interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Slope {
    pub per_week: f64,
    pub lower: f64,
    pub upper: f64,
    /// Nominal coverage of `[lower, upper]` (0.95).
    pub confidence: f64,
    /// Points and pairs the slope was computed from.
    pub n_points: usize,
    pub n_pairs: usize,
    /// True when `n_points` is an evenly spaced subsample of the kept points.
    pub subsampled: bool,
    /// Variance inflation for lag-1 autocorrelation of the residuals (1 = none).
    pub autocorr_factor: f64,
}

/// The verdict on a series.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Rising,
    Falling,
    Stable,
    NotEnoughData,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Rising => "rising",
            Verdict::Falling => "falling",
            Verdict::Stable => "stable",
            Verdict::NotEnoughData => "not_enough_data",
        }
    }
}

/// The result of [`analyze`]. All numbers are finite.
#[derive(Debug, Clone, PartialEq)]
pub struct Trend {
    pub method: &'static str,
    pub description: &'static str,
    pub window: Window,
    /// First and last kept reading, if any.
    pub first_t: Option<i64>,
    pub last_t: Option<i64>,
    pub span_days: f64,
    /// Readings given, readings outside the window (ignored, not listed), kept, rejected.
    pub n_input: usize,
    pub n_outside_window: usize,
    pub n_used: usize,
    pub n_rejected: usize,
    /// Every rejected reading, sorted by time.
    pub rejected: Vec<Rejected>,
    pub smoothed: Vec<SmoothedPoint>,
    /// The last EWMA trend value.
    pub latest: Option<f64>,
    pub slope: Option<Slope>,
    /// Robust SD (1.4826·MAD) of the residuals around the Theil–Sen line.
    pub scatter: Option<f64>,
    /// Slope × span in weeks: the change the line implies over the data.
    pub change: Option<f64>,
    pub verdict: Verdict,
    /// One sentence saying why, with numbers in fixed decimals.
    pub reason: String,
}

/// Method name carried by every [`Trend`].
pub const TREND_METHOD: &str = "mad-filter+ewma+theil-sen";
/// Description carried by every [`Trend`].
pub const TREND_DESCRIPTION: &str = "Readings outside plausibility bounds, and readings whose distance to the \
median of their ±local_days neighbours exceeds mad_k robust SDs (1.4826·MAD), are rejected. \
The rest are smoothed by an EWMA that respects gaps (alpha_eff = 1 - (1 - alpha)^days since the \
previous reading). The slope is the Theil-Sen median of pairwise slopes per week with a 95% \
Kendall rank interval, widened for lag-1 autocorrelation. Rising or falling is reported only \
when the interval excludes zero and the change beats both min_change_per_week and the residual scatter.";

/// Rejects implausible readings and outliers, smooths the rest, fits a robust slope and gives a
/// verdict. Readings outside `window` are ignored (counted in `n_outside_window`).
pub fn analyze(readings: &[Reading], window: Window, params: &Params) -> Trend {
    let p = sanitize(params);
    let mut rejected = Vec::new();
    let mut inside = Vec::with_capacity(readings.len());
    let mut n_outside_window = 0;
    for r in readings {
        if r.t < window.start || r.t > window.end {
            n_outside_window += 1;
        } else if !r.value.is_finite() {
            rejected.push(reject(r.t, None, RejectReason::NonFinite));
        } else {
            inside.push(*r);
        }
    }
    inside.sort_by(cmp_reading);

    let mut plausible: Vec<Reading> = Vec::with_capacity(inside.len());
    for r in inside {
        let duplicate = plausible.last().is_some_and(|prev| prev.t == r.t && prev.value == r.value);
        if duplicate {
            rejected.push(reject(r.t, Some(r.value), RejectReason::Duplicate));
        } else if !is_plausible(r.value, p.plausible) {
            rejected.push(reject(r.t, Some(r.value), RejectReason::Implausible));
        } else {
            plausible.push(r);
        }
    }

    let kept = reject_outliers(&plausible, &p, &mut rejected);
    rejected.sort_by(cmp_rejected);

    let smoothed = ewma(&merge_same_time(&kept), p.alpha);
    let first_t = kept.first().map(|r| r.t);
    let last_t = kept.last().map(|r| r.t);
    let span_days = match (first_t, last_t) {
        (Some(a), Some(b)) => days_between(a, b),
        _ => 0.0,
    };
    let points: Vec<(f64, f64)> =
        smoothed.iter().map(|s| (days_between(first_t.unwrap_or(s.t), s.t), s.value)).collect();
    let slope = theil_sen(&points, p.max_slope_points);
    let scatter = slope.as_ref().map(|s| residual_scatter(&points, s.per_week / 7.0));
    let change = slope.as_ref().map(|s| finite_or_zero(s.per_week * span_days / 7.0));
    let (verdict, reason) = decide(&kept, span_days, slope.as_ref(), scatter, &p);

    Trend {
        method: TREND_METHOD,
        description: TREND_DESCRIPTION,
        window,
        first_t,
        last_t,
        span_days,
        n_input: readings.len(),
        n_outside_window,
        n_used: kept.len(),
        n_rejected: rejected.len(),
        rejected,
        latest: smoothed.last().map(|s| s.trend),
        smoothed,
        slope,
        scatter,
        change,
        verdict,
        reason,
    }
}

/// Gap-aware EWMA over points sorted by time: `alpha_eff = 1 - (1 - alpha)^Δdays`, so a reading
/// after a ten-day gap moves the trend as much as ten daily readings would have.
pub fn ewma(points: &[(i64, f64, usize)], alpha: f64) -> Vec<SmoothedPoint> {
    let alpha = if alpha.is_finite() && alpha > 0.0 && alpha <= 1.0 { alpha } else { 0.1 };
    let mut out: Vec<SmoothedPoint> = Vec::with_capacity(points.len());
    for &(t, value, n) in points {
        let trend = match out.last() {
            None => value,
            Some(prev) => {
                let dt = days_between(prev.t, t).max(0.0);
                let a = 1.0 - (1.0 - alpha).powf(dt);
                finite_or(prev.trend + a * (value - prev.trend), prev.trend)
            }
        };
        out.push(SmoothedPoint { t, value, trend, n });
    }
    out
}

/// Theil–Sen slope over `(day, value)` points (any order); `per_week` is the median pairwise
/// slope × 7. The interval uses the Kendall rank bounds (Sen 1968, Gilbert 1987):
/// C = z·sqrt(n(n−1)(2n+5)/18 · f), lower = slope of rank (N−C)/2, upper = rank (N+C)/2 + 1,
/// where f ≥ 1 inflates the variance for lag-1 autocorrelation of the residuals.
/// More than `max_points` points are thinned to an evenly spaced subsample (deterministic).
pub fn theil_sen(points: &[(f64, f64)], max_points: usize) -> Option<Slope> {
    let mut pts: Vec<(f64, f64)> =
        points.iter().copied().filter(|(x, y)| x.is_finite() && y.is_finite()).collect();
    pts.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
    let max_points = max_points.max(3);
    let subsampled = pts.len() > max_points;
    if subsampled {
        pts = thin(&pts, max_points);
    }
    let mut slopes = Vec::with_capacity(pts.len().saturating_mul(pts.len().saturating_sub(1)) / 2);
    for (i, a) in pts.iter().enumerate() {
        for b in pts.iter().skip(i + 1) {
            let dx = b.0 - a.0;
            if dx > 0.0 {
                let s = (b.1 - a.1) / dx * 7.0;
                if s.is_finite() {
                    slopes.push(s);
                }
            }
        }
    }
    if slopes.is_empty() {
        return None;
    }
    slopes.sort_by(f64::total_cmp);
    let per_week = median_sorted(&slopes)?;
    let n = pts.len() as f64;
    let big_n = slopes.len() as f64;
    let factor = autocorr_factor(&pts, per_week / 7.0);
    let var = n * (n - 1.0) * (2.0 * n + 5.0) / 18.0 * factor;
    let c = Z95 * var.max(0.0).sqrt();
    let lower = at_rank(&slopes, (big_n - c) / 2.0)?;
    let upper = at_rank(&slopes, (big_n + c) / 2.0 + 1.0)?;
    Some(Slope {
        per_week,
        lower,
        upper,
        confidence: 0.95,
        n_points: pts.len(),
        n_pairs: slopes.len(),
        subsampled,
        autocorr_factor: factor,
    })
}

/// Median of any values (non-finite ones are ignored).
pub fn median(values: &[f64]) -> Option<f64> {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    let n = v.len();
    if n == 0 {
        return None;
    }
    // Selection instead of a full sort: the k-th value under a total order is unique, so the
    // result is the same as sorting, in linear time (this runs once per reading).
    let (left, upper, _) = v.select_nth_unstable_by(n / 2, f64::total_cmp);
    let upper = *upper;
    if n % 2 == 1 {
        return Some(upper);
    }
    let lower = left.iter().copied().max_by(f64::total_cmp)?;
    Some(lower / 2.0 + upper / 2.0)
}

/// Median and median absolute deviation (unscaled) of any values.
pub fn median_mad(values: &[f64]) -> Option<(f64, f64)> {
    let m = median(values)?;
    let dev: Vec<f64> = values.iter().filter(|x| x.is_finite()).map(|x| (x - m).abs()).collect();
    Some((m, median(&dev)?))
}

// ---------------------------------------------------------------------------------------------
// Body recomposition.

/// How fat mass and lean mass moved together.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecompClass {
    /// Fat down and lean up.
    Recomposition,
    /// Fat down, lean unchanged.
    FatLoss,
    /// Lean up, fat unchanged.
    LeanGain,
    /// Fat up with lean up or unchanged.
    Gain,
    /// Lean down with fat down or unchanged.
    Loss,
    /// Fat up and lean down: the unfavourable mirror image of recomposition.
    FatGainLeanLoss,
    /// Both within the band.
    Stable,
    NotEnoughData,
}

impl RecompClass {
    pub fn as_str(self) -> &'static str {
        match self {
            RecompClass::Recomposition => "recomposition",
            RecompClass::FatLoss => "fat_loss",
            RecompClass::LeanGain => "lean_gain",
            RecompClass::Gain => "gain",
            RecompClass::Loss => "loss",
            RecompClass::FatGainLeanLoss => "fat_gain_lean_loss",
            RecompClass::Stable => "stable",
            RecompClass::NotEnoughData => "not_enough_data",
        }
    }
}

/// Fat-mass and lean-mass trends over one window, with the class of their combined change.
#[derive(Debug, Clone, PartialEq)]
pub struct Recomposition {
    pub method: &'static str,
    pub description: &'static str,
    pub window: Window,
    pub fat: Trend,
    pub lean: Trend,
    /// Last minus first smoothed trend value.
    pub fat_delta: Option<f64>,
    pub lean_delta: Option<f64>,
    /// The noise band: a delta within ±band counts as unchanged.
    pub band: f64,
    pub class: RecompClass,
    pub n_used: usize,
    pub n_rejected: usize,
}

pub const RECOMP_METHOD: &str = "ewma-delta";
pub const RECOMP_DESCRIPTION: &str = "Fat mass and lean mass are each filtered and smoothed as in \
the trend analysis; the delta is the last minus the first smoothed value in the window. A delta \
within ±band (bioimpedance noise) counts as unchanged.";

/// Classifies the change of fat mass and lean mass over `window`. `band` is the noise band in
/// the masses' unit (e.g. 0.5 kg); negative or non-finite means 0.
pub fn recomposition(
    fat: &[Reading],
    lean: &[Reading],
    window: Window,
    params: &Params,
    band: f64,
) -> Recomposition {
    let band = if band.is_finite() && band > 0.0 { band } else { 0.0 };
    let fat = analyze(fat, window, params);
    let lean = analyze(lean, window, params);
    let fat_delta = smoothed_delta(&fat);
    let lean_delta = smoothed_delta(&lean);
    let enough = fat.verdict != Verdict::NotEnoughData && lean.verdict != Verdict::NotEnoughData;
    let class = match (fat_delta, lean_delta) {
        (Some(f), Some(l)) if enough => classify_recomp(direction(f, band), direction(l, band)),
        _ => RecompClass::NotEnoughData,
    };
    Recomposition {
        method: RECOMP_METHOD,
        description: RECOMP_DESCRIPTION,
        window,
        n_used: fat.n_used + lean.n_used,
        n_rejected: fat.n_rejected + lean.n_rejected,
        fat,
        lean,
        fat_delta,
        lean_delta,
        band,
        class,
    }
}

// ---------------------------------------------------------------------------------------------
// Sleep regularity.

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
    used.sort_by_key(|n| (n.day, n.bedtime, n.wake));
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

// ---------------------------------------------------------------------------------------------
// Internals.

/// Two-sided 95% normal quantile.
const Z95: f64 = 1.959_963_984_540_054;
/// MAD × this estimates the SD of normal data.
const MAD_TO_SD: f64 = 1.4826;
/// Mean absolute deviation × this estimates the SD of normal data (used when MAD is 0).
const MEANAD_TO_SD: f64 = 1.2533;
/// No body metric gets near this; beyond it arithmetic could overflow.
const ABS_LIMIT: f64 = 1e12;
/// Neighbourhoods larger than this are thinned before taking their median.
const MAX_NEIGHBOURS: usize = 151;

fn sanitize(p: &Params) -> Params {
    let d = standard_params(0.0, 0.0, None);
    let pos = |x: f64, default: f64| if x.is_finite() && x > 0.0 { x } else { default };
    let non_neg = |x: f64| if x.is_finite() && x > 0.0 { x } else { 0.0 };
    let plausible = p.plausible.filter(|b| !b.min.is_nan() && !b.max.is_nan() && b.min <= b.max);
    Params {
        alpha: if p.alpha.is_finite() && p.alpha > 0.0 && p.alpha <= 1.0 { p.alpha } else { d.alpha },
        mad_k: pos(p.mad_k, d.mad_k),
        local_days: p.local_days.clamp(1, 3650),
        min_local: p.min_local.max(3),
        min_spread: non_neg(p.min_spread),
        plausible,
        min_change_per_week: non_neg(p.min_change_per_week),
        noise_multiple: non_neg(p.noise_multiple),
        min_readings: p.min_readings.max(2),
        min_span_days: non_neg(p.min_span_days),
        max_slope_points: p.max_slope_points.clamp(3, 5000),
        display_factor: pos(p.display_factor, 1.0),
        display_unit: p.display_unit,
    }
}

fn reject(t: i64, value: Option<f64>, reason: RejectReason) -> Rejected {
    Rejected { t, value, reason, median: None, score: None }
}

fn is_plausible(v: f64, bounds: Option<Bounds>) -> bool {
    v.abs() <= ABS_LIMIT && bounds.is_none_or(|b| v >= b.min && v <= b.max)
}

fn cmp_reading(a: &Reading, b: &Reading) -> Ordering {
    a.t.cmp(&b.t).then(a.value.total_cmp(&b.value))
}

fn cmp_rejected(a: &Rejected, b: &Rejected) -> Ordering {
    let v = |r: &Rejected| r.value.unwrap_or(f64::NEG_INFINITY);
    a.t.cmp(&b.t).then(v(a).total_cmp(&v(b))).then(a.reason.cmp(&b.reason))
}

/// Compares every reading with the median of its ±local_days neighbours (itself included), or
/// the global median when the neighbourhood is thin, so a steady trend is not mistaken for noise.
fn reject_outliers(sorted: &[Reading], p: &Params, rejected: &mut Vec<Rejected>) -> Vec<Reading> {
    let values: Vec<f64> = sorted.iter().map(|r| r.value).collect();
    let global = robust_centre(&values, p.min_spread);
    let half = p.local_days.saturating_mul(SECS_PER_DAY);
    let mut kept = Vec::with_capacity(sorted.len());
    let (mut lo, mut hi) = (0usize, 0usize);
    for r in sorted {
        while sorted.get(lo).is_some_and(|x| x.t < r.t.saturating_sub(half)) {
            lo += 1;
        }
        while sorted.get(hi).is_some_and(|x| x.t <= r.t.saturating_add(half)) {
            hi += 1;
        }
        let local = match values.get(lo..hi) {
            Some(slice) if slice.len() >= p.min_local => robust_centre(&thin_values(slice), p.min_spread),
            _ => global,
        };
        match local {
            Some((m, spread)) if spread > 0.0 && (r.value - m).abs() / spread > p.mad_k => {
                let score = finite_or_zero((r.value - m).abs() / spread);
                rejected.push(Rejected {
                    t: r.t,
                    value: Some(r.value),
                    reason: RejectReason::Outlier,
                    median: Some(m),
                    score: Some(score),
                });
            }
            _ => kept.push(*r),
        }
    }
    kept
}

/// Median and robust SD: 1.4826·MAD, or 1.2533·mean absolute deviation when MAD is 0 (more than
/// half the values identical), never below `min_spread`. A spread of 0 means all values are equal
/// and nothing can be an outlier; callers must not divide by it.
fn robust_centre(values: &[f64], min_spread: f64) -> Option<(f64, f64)> {
    let (m, mad) = median_mad(values)?;
    let mut spread = MAD_TO_SD * mad;
    if spread <= 0.0 && !values.is_empty() {
        let mean_ad = values.iter().map(|x| (x - m).abs()).sum::<f64>() / values.len() as f64;
        spread = MEANAD_TO_SD * mean_ad;
    }
    Some((m, finite_or_zero(spread.max(min_spread))))
}

fn thin_values(values: &[f64]) -> Vec<f64> {
    if values.len() <= MAX_NEIGHBOURS {
        return values.to_vec();
    }
    thin(values, MAX_NEIGHBOURS)
}

/// An evenly spaced subsample of `m` items that keeps the first and the last.
fn thin<T: Copy>(items: &[T], m: usize) -> Vec<T> {
    let n = items.len();
    if n <= m || m < 2 {
        return items.to_vec();
    }
    (0..m).filter_map(|k| items.get(k * (n - 1) / (m - 1)).copied()).collect()
}

/// Readings sharing a timestamp (two devices, one weigh-in) become their mean, so the EWMA's
/// Δt is never 0 and the slope has no vertical pairs.
fn merge_same_time(sorted: &[Reading]) -> Vec<(i64, f64, usize)> {
    let mut out: Vec<(i64, f64, usize)> = Vec::new();
    let mut sum = 0.0;
    for r in sorted {
        match out.last_mut() {
            Some(last) if last.0 == r.t => {
                sum += r.value;
                last.2 += 1;
                last.1 = sum / last.2 as f64;
            }
            _ => {
                sum = r.value;
                out.push((r.t, r.value, 1));
            }
        }
    }
    out
}

fn days_between(a: i64, b: i64) -> f64 {
    (i128::from(b) - i128::from(a)) as f64 / SECS_PER_DAY as f64
}

fn median_sorted(v: &[f64]) -> Option<f64> {
    let n = v.len();
    if n == 0 {
        return None;
    }
    if n % 2 == 1 {
        return v.get(n / 2).copied();
    }
    Some((v.get(n / 2 - 1)? + v.get(n / 2)?) / 2.0)
}

/// The value at a 1-based, possibly fractional rank of a sorted slice, interpolated and clamped.
fn at_rank(sorted: &[f64], rank: f64) -> Option<f64> {
    let n = sorted.len();
    if n == 0 {
        return None;
    }
    let r = if rank.is_finite() { rank.clamp(1.0, n as f64) } else { 1.0 };
    let i = r.floor() as usize - 1;
    let frac = r - r.floor();
    let a = *sorted.get(i)?;
    let b = sorted.get(i + 1).copied().unwrap_or(a);
    Some(finite_or(a + frac * (b - a), a))
}

/// Residuals of the points around the Theil–Sen line through them (intercept = median of
/// y − slope·x).
fn residuals(points: &[(f64, f64)], slope_per_day: f64) -> Vec<f64> {
    let offsets: Vec<f64> = points.iter().map(|(x, y)| y - slope_per_day * x).collect();
    let intercept = median(&offsets).unwrap_or(0.0);
    offsets.iter().map(|o| o - intercept).collect()
}

fn residual_scatter(points: &[(f64, f64)], slope_per_day: f64) -> f64 {
    let mad = median_mad(&residuals(points, slope_per_day)).map_or(0.0, |(_, mad)| mad);
    finite_or_zero(MAD_TO_SD * mad)
}

/// (1 + ρ)/(1 − ρ) for a positive lag-1 autocorrelation ρ of the residuals, capped at 10: the
/// Kendall variance assumes independent readings, and day-to-day weights are not.
fn autocorr_factor(points: &[(f64, f64)], slope_per_day: f64) -> f64 {
    let r = residuals(points, slope_per_day);
    if r.len() < 3 {
        return 1.0;
    }
    let mean = r.iter().sum::<f64>() / r.len() as f64;
    let den: f64 = r.iter().map(|x| (x - mean) * (x - mean)).sum();
    let num: f64 = r.iter().zip(r.iter().skip(1)).map(|(a, b)| (a - mean) * (b - mean)).sum();
    if den <= 0.0 || !den.is_finite() {
        return 1.0;
    }
    let rho = (num / den).clamp(-1.0, 1.0);
    if rho <= 0.0 {
        return 1.0;
    }
    finite_or((1.0 + rho) / (1.0 - rho), 10.0).min(10.0)
}

fn decide(
    kept: &[Reading],
    span_days: f64,
    slope: Option<&Slope>,
    scatter: Option<f64>,
    p: &Params,
) -> (Verdict, String) {
    if kept.len() < p.min_readings {
        let why = format!("{} readings kept; at least {} are needed", kept.len(), p.min_readings);
        return (Verdict::NotEnoughData, why);
    }
    if span_days < p.min_span_days {
        let why = format!("readings span {:.1} days; at least {:.1} are needed", span_days, p.min_span_days);
        return (Verdict::NotEnoughData, why);
    }
    let all_equal = kept.windows(2).all(|w| matches!(w, [a, b] if a.value == b.value));
    let Some(s) = slope.filter(|_| !all_equal) else {
        return (Verdict::Stable, "all kept readings are identical".to_string());
    };
    let change = (s.per_week * span_days / 7.0).abs();
    let noise = p.noise_multiple * scatter.unwrap_or(0.0);
    let f = p.display_factor;
    let u = match p.display_unit {
        "" => String::new(),
        unit => format!(" {unit}"),
    };
    let interval =
        format!("{:.3}{u} per week (95% interval {:.3} to {:.3})", s.per_week * f, s.lower * f, s.upper * f);
    if s.lower <= 0.0 && s.upper >= 0.0 {
        return (Verdict::Stable, format!("slope {interval} includes zero"));
    }
    if s.per_week.abs() < p.min_change_per_week {
        let why =
            format!("slope {interval} is below the meaningful {:.3}{u} per week", p.min_change_per_week * f);
        return (Verdict::Stable, why);
    }
    if change < noise {
        let why = format!(
            "change {:.3}{u} over {span_days:.1} days is within the noise ({:.3}{u})",
            change * f,
            noise * f
        );
        return (Verdict::Stable, why);
    }
    let verdict = if s.per_week > 0.0 { Verdict::Rising } else { Verdict::Falling };
    (verdict, format!("slope {interval} excludes zero and beats the noise floor"))
}

fn smoothed_delta(t: &Trend) -> Option<f64> {
    let (first, last) = (t.smoothed.first()?, t.smoothed.last()?);
    Some(finite_or_zero(last.trend - first.trend))
}

fn direction(delta: f64, band: f64) -> Ordering {
    if delta > band {
        Ordering::Greater
    } else if delta < -band {
        Ordering::Less
    } else {
        Ordering::Equal
    }
}

fn classify_recomp(fat: Ordering, lean: Ordering) -> RecompClass {
    use Ordering::{Equal, Greater, Less};
    match (fat, lean) {
        (Less, Greater) => RecompClass::Recomposition,
        (Less, Equal) => RecompClass::FatLoss,
        (Equal, Greater) => RecompClass::LeanGain,
        (Greater, Greater | Equal) => RecompClass::Gain,
        (Less | Equal, Less) => RecompClass::Loss,
        (Greater, Less) => RecompClass::FatGainLeanLoss,
        (Equal, Equal) => RecompClass::Stable,
    }
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

fn finite_or(x: f64, fallback: f64) -> f64 {
    if x.is_finite() { x } else { fallback }
}

fn finite_or_zero(x: f64) -> f64 {
    finite_or(x, 0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY: i64 = SECS_PER_DAY;
    const T0: i64 = 1_767_225_600; // 2026-01-01T00:00:00Z

    fn all() -> Window {
        Window { start: i64::MIN, end: i64::MAX }
    }

    fn weight_params() -> Params {
        standard_params(0.1, 0.3, Some(Bounds { min: 20.0, max: 400.0 }))
    }

    /// A fixed 64-bit LCG (Knuth's MMIX constants) mapped to [-amp, amp): deterministic noise.
    fn lcg_noise(n: usize, seed: u64, amp: f64) -> Vec<f64> {
        let mut x = seed;
        (0..n)
            .map(|_| {
                x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                ((x >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0) * amp
            })
            .collect()
    }

    fn daily(values: &[f64]) -> Vec<Reading> {
        values
            .iter()
            .enumerate()
            .map(|(i, v)| Reading { t: T0 + i as i64 * DAY + 7 * 3600, value: *v })
            .collect()
    }

    fn assert_finite(t: &Trend) {
        let mut nums = vec![t.span_days];
        nums.extend(t.latest);
        nums.extend(t.scatter);
        nums.extend(t.change);
        if let Some(s) = t.slope {
            nums.extend([s.per_week, s.lower, s.upper, s.confidence, s.autocorr_factor]);
        }
        for s in &t.smoothed {
            nums.extend([s.value, s.trend]);
        }
        for r in &t.rejected {
            nums.extend(r.value.into_iter().chain(r.median).chain(r.score));
        }
        assert!(nums.iter().all(|x| x.is_finite()), "non-finite output in {t:?}");
        assert!(!t.reason.contains("NaN") && !t.reason.contains("inf"), "{}", t.reason);
    }

    #[test]
    fn median_and_mad_by_hand() {
        type Case<'a> = (&'a [f64], Option<(f64, f64)>);
        let cases: &[Case] = &[
            (&[], None),
            (&[5.0], Some((5.0, 0.0))),
            (&[1.0, 2.0, 3.0, 4.0, 100.0], Some((3.0, 1.0))),
            // Deviations from 2: 1,1,0,0,2,4,7 → sorted 0,0,1,1,2,4,7 → MAD 1.
            (&[1.0, 1.0, 2.0, 2.0, 4.0, 6.0, 9.0], Some((2.0, 1.0))),
            // Even count: median 2.5, deviations 1.5,0.5,0.5,1.5 → MAD 1.
            (&[4.0, 1.0, 3.0, 2.0], Some((2.5, 1.0))),
            (&[7.0, 7.0, 7.0], Some((7.0, 0.0))),
            (&[f64::NAN, 1.0, 3.0], Some((2.0, 1.0))),
        ];
        for (values, want) in cases {
            assert_eq!(median_mad(values), *want, "{values:?}");
        }
    }

    #[test]
    fn theil_sen_on_a_perfect_line_is_exact() {
        // 0.5 per day is exactly representable, so every pairwise slope is exactly 3.5 per week.
        let pts: Vec<(f64, f64)> = (0..10).map(|d| (d as f64, 60.0 + 0.5 * d as f64)).collect();
        let s = theil_sen(&pts, 1500).unwrap();
        assert_eq!((s.per_week, s.lower, s.upper), (3.5, 3.5, 3.5));
        assert_eq!((s.n_points, s.n_pairs, s.subsampled), (10, 45, false));
        assert_eq!(s.autocorr_factor, 1.0);
    }

    #[test]
    fn theil_sen_subsamples_big_inputs_deterministically() {
        let pts: Vec<(f64, f64)> = (0..3000).map(|d| (d as f64, -0.25 * d as f64)).collect();
        let s = theil_sen(&pts, 100).unwrap();
        assert_eq!((s.per_week, s.n_points, s.n_pairs, s.subsampled), (-1.75, 100, 4950, true));
        assert_eq!(theil_sen(&pts, 100), Some(s));
    }

    #[test]
    fn theil_sen_interval_uses_kendall_ranks() {
        // Five points, slopes per day: pairs give 10 slopes. n=5: var = 5·4·15/18 = 16.667,
        // C = 1.96·4.082 = 8.00, ranks (10−8)/2 = 1.0 and (10+8)/2+1 = 10.0 → min and max slope.
        let pts = [(0.0, 0.0), (1.0, 1.0), (2.0, 1.0), (3.0, 3.0), (4.0, 4.0)];
        let s = theil_sen(&pts, 1500).unwrap();
        let mut slopes = vec![];
        for (i, a) in pts.iter().enumerate() {
            for b in &pts[i + 1..] {
                slopes.push((b.1 - a.1) / (b.0 - a.0) * 7.0);
            }
        }
        slopes.sort_by(f64::total_cmp);
        assert_eq!(s.per_week, (slopes[4] + slopes[5]) / 2.0);
        assert!(s.lower <= slopes[0] + 0.01 * 7.0 && s.lower >= slopes[0]);
        assert!(s.upper >= slopes[9] - 0.01 * 7.0 && s.upper <= slopes[9]);
        assert_eq!(theil_sen(&[(1.0, 1.0)], 1500), None);
        assert_eq!(theil_sen(&[(1.0, 1.0), (1.0, 2.0)], 1500), None);
    }

    #[test]
    fn ewma_respects_gaps() {
        // α = 0.1. Day 0: 70 → trend 70. Day 1 (Δ 1): α_eff = 0.1 → 70 + 0.1·(71 − 70) = 70.1.
        // Day 3 (Δ 2): α_eff = 1 − 0.9² = 0.19 → 70.1 + 0.19·(69 − 70.1) = 69.891.
        let out = ewma(&[(T0, 70.0, 1), (T0 + DAY, 71.0, 1), (T0 + 3 * DAY, 69.0, 1)], 0.1);
        let trends: Vec<f64> = out.iter().map(|p| p.trend).collect();
        let want = [70.0, 70.1, 69.891];
        for (got, want) in trends.iter().zip(want) {
            assert!((got - want).abs() < 1e-12, "{trends:?}");
        }
        // Half a day: α_eff = 1 − 0.9^0.5 = 0.0513167…
        let half = ewma(&[(T0, 0.0, 1), (T0 + DAY / 2, 1.0, 1)], 0.1);
        assert!((half[1].trend - (1.0 - 0.9f64.sqrt())).abs() < 1e-15);
        // An invalid α falls back to 0.1 rather than producing NaN.
        assert_eq!(ewma(&[(T0, 70.0, 1), (T0 + DAY, 71.0, 1)], f64::NAN)[1].trend, 70.1);
    }

    #[test]
    fn planted_trend_rises_and_pure_noise_is_stable() {
        let noise = lcg_noise(70, 42, 0.4);
        let trend: Vec<f64> = (0..70).map(|d| 80.0 + 0.5 / 7.0 * d as f64 + noise[d]).collect();
        let flat: Vec<f64> = (0..70).map(|d| 80.0 + noise[d]).collect();
        let falling: Vec<f64> = (0..70).map(|d| 80.0 - 0.5 / 7.0 * d as f64 + noise[d]).collect();
        let up = analyze(&daily(&trend), all(), &weight_params());
        let level = analyze(&daily(&flat), all(), &weight_params());
        let down = analyze(&daily(&falling), all(), &weight_params());
        assert_eq!(up.verdict, Verdict::Rising, "{}", up.reason);
        assert_eq!(level.verdict, Verdict::Stable, "{}", level.reason);
        assert_eq!(down.verdict, Verdict::Falling, "{}", down.reason);
        let s = up.slope.unwrap();
        assert!(s.lower > 0.0 && (s.per_week - 0.5).abs() < 0.1, "{s:?}");
        // A steady trend is not mistaken for outliers.
        assert_eq!((up.n_rejected, level.n_rejected, down.n_rejected), (0, 0, 0));
        for t in [&up, &level, &down] {
            assert_finite(t);
            assert_eq!(t.n_used, 70);
            assert_eq!(t.smoothed.len(), 70);
        }
    }

    #[test]
    fn slow_drift_below_the_meaningful_change_is_stable() {
        // 0.05 kg/week with no noise: the interval excludes zero, but it is below 0.1 kg/week.
        let v: Vec<f64> = (0..60).map(|d| 80.0 + 0.05 / 7.0 * d as f64).collect();
        let t = analyze(&daily(&v), all(), &weight_params());
        assert!(t.slope.unwrap().lower > 0.0);
        assert_eq!(t.verdict, Verdict::Stable, "{}", t.reason);
    }

    #[test]
    fn too_few_readings_or_too_short_a_span() {
        let p = weight_params();
        let cases: &[(&[(i64, f64)], Verdict)] = &[
            (&[], Verdict::NotEnoughData),
            (&[(0, 70.0)], Verdict::NotEnoughData),
            (&[(0, 70.0), (10, 71.0)], Verdict::NotEnoughData),
            (&[(0, 70.0), (1, 71.0), (2, 72.0), (3, 73.0)], Verdict::NotEnoughData), // 3-day span
            (&[(0, 70.0), (3, 70.0), (6, 70.0), (9, 70.0)], Verdict::Stable),
            (&[(0, 70.0), (3, 71.0), (6, 72.0), (9, 73.0)], Verdict::Rising),
        ];
        for (days, want) in cases {
            let r: Vec<Reading> = days.iter().map(|(d, v)| Reading { t: T0 + d * DAY, value: *v }).collect();
            let t = analyze(&r, all(), &p);
            assert_eq!(t.verdict, *want, "{days:?}: {}", t.reason);
            assert_finite(&t);
        }
    }

    #[test]
    fn identical_readings_are_stable_without_nan() {
        let t = analyze(&daily(&[72.5; 30]), all(), &standard_params(0.1, 0.0, None));
        assert_eq!(t.verdict, Verdict::Stable);
        assert_eq!((t.n_used, t.n_rejected), (30, 0));
        let s = t.slope.unwrap();
        assert_eq!((s.per_week, s.lower, s.upper), (0.0, 0.0, 0.0));
        assert_eq!((t.scatter, t.latest, t.change), (Some(0.0), Some(72.5), Some(0.0)));
        assert_finite(&t);
    }

    #[test]
    fn rejections_carry_time_value_and_reason() {
        let mut r = daily(&[70.0, 70.2, 69.9, 70.1, 70.0, 69.8, 70.3, 70.1, 69.9, 70.0]);
        r.push(Reading { t: T0 + DAY / 2, value: 7.0 });
        r.push(Reading { t: T0 + 3 * DAY / 2, value: 700.0 });
        r.push(Reading { t: T0 + 5 * DAY / 2, value: f64::NAN });
        r.push(Reading { t: T0 + 7 * DAY / 2, value: f64::INFINITY });
        r.push(r[4]); // an exact duplicate
        r.push(Reading { t: T0 + 11 * DAY / 2, value: 78.0 }); // clothes on: plausible, but an outlier
        let t = analyze(&r, all(), &weight_params());
        let got: Vec<(i64, Option<f64>, &str)> =
            t.rejected.iter().map(|x| ((x.t - T0) * 2 / DAY, x.value, x.reason.as_str())).collect();
        assert_eq!(
            got,
            vec![
                (1, Some(7.0), "implausible"),
                (3, Some(700.0), "implausible"),
                (5, None, "non_finite"),
                (7, None, "non_finite"),
                (8, Some(70.0), "duplicate"),
                (11, Some(78.0), "outlier"),
            ]
        );
        let outlier = &t.rejected[5];
        assert_eq!(outlier.median, Some(70.0));
        assert!(outlier.score.unwrap() > 3.5);
        assert_eq!((t.n_input, t.n_used, t.n_rejected), (16, 10, 6));
        assert_finite(&t);
    }

    #[test]
    fn near_constant_series_does_not_reject_small_changes() {
        // MAD is 0 here (most values equal). Without a spread floor the 70.4 would score ∞.
        let v = [70.0, 70.0, 70.0, 70.0, 70.4, 70.0, 70.0, 70.0, 70.0, 70.0];
        let t = analyze(&daily(&v), all(), &weight_params());
        assert_eq!(t.n_rejected, 0);
        // With no floor the mean-absolute-deviation fallback applies: 0.04·1.2533 → 70.4 scores 8.
        let t = analyze(&daily(&v), all(), &standard_params(0.1, 0.0, None));
        assert_eq!(t.rejected.iter().map(|r| r.reason).collect::<Vec<_>>(), vec![RejectReason::Outlier]);
        assert_finite(&t);
    }

    #[test]
    fn output_does_not_depend_on_input_order() {
        let noise = lcg_noise(50, 7, 0.5);
        let mut r = daily(&noise.iter().map(|n| 75.0 + n).collect::<Vec<_>>());
        r.push(Reading { t: r[10].t, value: 75.3 }); // same time, other device: merged
        let a = analyze(&r, all(), &weight_params());
        r.reverse();
        r.swap(3, 17);
        let b = analyze(&r, all(), &weight_params());
        assert_eq!(a, b);
        assert_eq!(a.smoothed.len(), 50);
        assert_eq!(a.smoothed[10].n, 2);
    }

    #[test]
    fn window_bounds_are_inclusive_and_outside_is_counted() {
        let r = daily(&[70.0; 20]);
        let w = Window { start: r[2].t, end: r[11].t };
        let t = analyze(&r, w, &weight_params());
        assert_eq!((t.n_input, t.n_outside_window, t.n_used), (20, 10, 10));
        assert_eq!((t.first_t, t.last_t, t.window), (Some(r[2].t), Some(r[11].t), w));
        assert_eq!(t.span_days, 9.0);
    }

    #[test]
    fn nonsense_params_are_replaced_not_propagated() {
        let p = Params {
            alpha: f64::NAN,
            mad_k: -1.0,
            local_days: -5,
            min_local: 0,
            min_spread: f64::INFINITY,
            plausible: Some(Bounds { min: f64::NAN, max: 1.0 }),
            min_change_per_week: f64::NAN,
            noise_multiple: f64::NEG_INFINITY,
            min_readings: 0,
            min_span_days: f64::NAN,
            max_slope_points: 0,
            display_factor: f64::NAN,
            display_unit: "lb",
        };
        let v: Vec<f64> = (0..20).map(|d| 1e12 - d as f64).collect();
        let t = analyze(&daily(&v), all(), &p);
        assert_finite(&t);
        assert_eq!(t.verdict, Verdict::Falling, "{}", t.reason);
        let huge = analyze(&daily(&[1e300, -1e300, 5.0, 6.0]), all(), &p);
        assert_eq!(huge.n_rejected, 2);
        assert_finite(&huge);
    }

    #[test]
    fn recomposition_classes() {
        let line = |start: f64, per_week: f64| -> Vec<Reading> {
            daily(&(0..56).map(|d| start + per_week / 7.0 * d as f64).collect::<Vec<_>>())
        };
        let p = standard_params(0.05, 0.2, Some(Bounds { min: 1.0, max: 300.0 }));
        let cases = [
            (-0.5, 0.3, RecompClass::Recomposition),
            (-0.5, 0.0, RecompClass::FatLoss),
            (0.0, 0.3, RecompClass::LeanGain),
            (0.5, 0.3, RecompClass::Gain),
            (0.5, 0.0, RecompClass::Gain),
            (-0.5, -0.3, RecompClass::Loss),
            (0.0, -0.3, RecompClass::Loss),
            (0.5, -0.3, RecompClass::FatGainLeanLoss),
            (0.01, -0.01, RecompClass::Stable),
        ];
        for (fat_wk, lean_wk, want) in cases {
            let r = recomposition(&line(20.0, fat_wk), &line(60.0, lean_wk), all(), &p, 0.5);
            assert_eq!(r.class, want, "fat {fat_wk} lean {lean_wk}: {r:?}");
            assert_eq!((r.n_used, r.n_rejected), (112, 0));
        }
        let r = recomposition(&line(20.0, -0.5)[..2], &line(60.0, 0.3), all(), &p, 0.5);
        assert_eq!(r.class, RecompClass::NotEnoughData);
        // EWMA lags: after 8 weeks of −0.5 kg/week the smoothed delta is a bit under −4 kg.
        let r = recomposition(&line(20.0, -0.5), &line(60.0, 0.3), all(), &p, 0.5);
        let fat = r.fat_delta.unwrap();
        assert!(fat < -3.0 && fat > -4.0, "{fat}");
    }

    #[test]
    fn bedtime_spread_wraps_around_midnight() {
        let h = |hh: i64, mm: i64| hh * 3600 + mm * 60;
        let night = |day: i64, bed: i64, wake: i64| Night { day, bedtime: bed, wake };
        // 23:30 and 00:30: mean 00:00, distances ±30 min, sample SD = sqrt(2·30²/1) = 42.43 min.
        let s = sleep_timing(&[night(1, h(23, 30), h(7, 0)), night(2, h(0, 30), h(7, 0))]).unwrap();
        assert_eq!((s.bedtime_mean, s.wake_mean), (0, h(7, 0)));
        assert!((s.bedtime_sd_min - 2.0f64.sqrt() * 30.0).abs() < 1e-9, "{}", s.bedtime_sd_min);
        assert_eq!(s.wake_sd_min, 0.0);
        assert_eq!((s.first_day, s.last_day, s.n_used, s.n_rejected), (1, 2, 2, 0));
        // Rejected times, too few nights, and times spread evenly round the clock.
        let bad = [night(1, -1, h(7, 0)), night(2, h(23, 0), SECS_PER_DAY), night(3, h(23, 0), h(7, 0))];
        assert_eq!(sleep_timing(&bad), None);
        let opposite = [night(1, 0, h(7, 0)), night(2, h(12, 0), h(7, 0))];
        assert_eq!(sleep_timing(&opposite), None);
        let mut with_bad = bad.to_vec();
        with_bad.push(night(4, h(23, 0), h(7, 0)));
        let s = sleep_timing(&with_bad).unwrap();
        assert_eq!((s.n_used, s.n_rejected, s.bedtime_mean, s.bedtime_sd_min), (2, 2, h(23, 0), 0.0));
    }

    fn nights(schedule: &[(i64, i64)]) -> Vec<SleepSegment> {
        // (bed, wake) as seconds relative to the midnight that starts day d+1.
        schedule
            .iter()
            .enumerate()
            .map(|(d, (bed, wake))| {
                let midnight = (20_000 + d as i64 + 1) * DAY;
                SleepSegment { start: midnight + bed, end: midnight + wake, asleep: true }
            })
            .collect()
    }

    #[test]
    fn sri_regular_is_100_and_a_shifted_schedule_is_lower() {
        let regular = nights(&[(-3600, 7 * 3600); 7]);
        for epoch in [30, 60] {
            let s = sleep_regularity_index(&regular, epoch).unwrap();
            assert_eq!((s.value, s.n_days), (100.0, 7));
            assert_eq!(s.n_comparisons, 6 * (DAY / epoch) as usize);
        }
        // Alternating 23:00–07:00 and 02:00–10:00: each day pair disagrees for 3 h at each end,
        // 6 h of 24, so agreement is 75% and SRI = 200·0.75 − 100 = 50 exactly.
        let shifted = nights(&[(-3600, 7 * 3600), (2 * 3600, 10 * 3600)].repeat(4)[..7]);
        let s = sleep_regularity_index(&shifted, 60).unwrap();
        assert_eq!(s.value, 50.0);
        // Explicit awake segments inside the night change nothing when they sit where the other
        // nights are awake too; one night alone cannot be compared.
        assert_eq!(sleep_regularity_index(&regular[..1], 60), None);
        assert_eq!(sleep_regularity_index(&regular, 7), None);
        assert_eq!(sleep_regularity_index(&regular, 0), None);
        assert_eq!(sleep_regularity_index(&[], 60), None);
    }

    #[test]
    fn sri_skips_missing_nights_and_bad_segments() {
        let mut segs = nights(&[(-3600, 7 * 3600); 7]);
        segs.remove(3); // a night without the watch: that day is missing, not awake
        segs.push(SleepSegment { start: 5, end: 5, asleep: true });
        segs.push(SleepSegment { start: i64::MAX - 1, end: i64::MAX, asleep: true });
        let s = sleep_regularity_index(&segs, 60).unwrap();
        assert_eq!((s.value, s.n_days, s.n_used, s.n_rejected), (100.0, 6, 6, 2));
        assert_eq!(s.n_comparisons, 4 * 1440);
        // A nap on noon-day 2 is compared with day 1 (awake then); day 3 is missing, so it costs
        // 60 disagreements out of 4·1440 comparisons.
        segs.push(SleepSegment {
            start: (20_000 + 2) * DAY + 15 * 3600,
            end: (20_000 + 2) * DAY + 16 * 3600,
            asleep: false,
        });
        segs.push(SleepSegment {
            start: (20_000 + 2) * DAY + 15 * 3600,
            end: (20_000 + 2) * DAY + 16 * 3600,
            asleep: true,
        });
        let nap = sleep_regularity_index(&segs, 60).unwrap();
        let want = 200.0 * (4.0 * 1440.0 - 60.0) / (4.0 * 1440.0) - 100.0;
        assert!((nap.value - want).abs() < 1e-9, "{} vs {want}", nap.value);
    }
}
