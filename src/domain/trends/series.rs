//! The trend of one series: implausible readings and outliers out, the rest smoothed, a robust
//! slope, and a verdict that only calls a change outside the noise.
#![warn(clippy::indexing_slicing)]

use std::cmp::Ordering;

use crate::domain::trends::SECS_PER_DAY;
use crate::domain::trends::smooth::{Sums, local_linear};
use crate::domain::trends::stats::{
    MAD_TO_SD, MEANAD_TO_SD, Slope, days_between, finite_or_zero, key, median_mad_in, residual_scatter,
    theil_sen, unkey,
};

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
    /// How fast a reading's weight in the trend fades with distance: each day away multiplies it
    /// by 1 − alpha. In (0, 1).
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
    /// Decimals of the quantities in `reason`: those of the same numbers in the structured
    /// answer, so that text and JSON agree (not "17.000 steps" beside 17.0).
    pub display_decimals: usize,
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
        display_decimals: 3,
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
/// trend level there, and how many readings were merged.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SmoothedPoint {
    pub t: i64,
    pub value: f64,
    pub trend: f64,
    pub n: usize,
}

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
    /// The trend level at the last reading.
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
pub const TREND_METHOD: &str = "mad-filter+local-linear+theil-sen";
/// Description carried by every [`Trend`].
pub const TREND_DESCRIPTION: &str = "Readings outside plausibility bounds, and readings whose distance to the \
median of their ±local_days neighbours exceeds mad_k robust SDs (1.4826·MAD), are rejected. \
The trend through the rest is local linear smoothing: at each reading, level and slope are \
fitted together by least squares with weights (1 - alpha)^days away, so a steady change is followed \
without lag (at the last reading the fit is one-sided). The slope is the Theil-Sen median of pairwise slopes per week with a 95% \
Kendall rank interval, widened for lag-1 autocorrelation. Rising or falling is reported only \
when the interval excludes zero and the change beats both min_change_per_week and the residual scatter.";

/// Rejects implausible readings and outliers, smooths the rest, fits a robust slope and gives a
/// verdict. Readings outside `window` are ignored (counted in `n_outside_window`).
pub fn analyze(readings: &[Reading], window: Window, params: &Params) -> Trend {
    analyze_in(readings, window, params, &mut Scratch::default())
}

/// The working lists of [`analyze`], kept from one analysis to the next: a weight trend is three
/// analyses of ten years (weight, fat mass, lean mass), and the static binary's allocator maps
/// each list over 128 KB afresh and unmaps it when freed, so a list made again is faulted in
/// again, page by page (1.6 MB an analysis).
#[derive(Default)]
pub struct Scratch {
    /// The readings kept so far.
    kept: Vec<Reading>,
    /// Their values while outliers are sought, then the residuals around the slope.
    values: Vec<f64>,
    /// Medians' scratch, and the pairwise slopes.
    keys: Vec<i64>,
    /// Which readings are not outliers.
    keep: Vec<bool>,
    /// The trend line's sums over the points after each one.
    sums: Vec<Sums>,
    /// The Theil–Sen points: (days, value).
    points: Vec<(f64, f64)>,
    /// A trend line handed back ([`Scratch::recycle`]), made into the next one.
    smoothed: Vec<SmoothedPoint>,
}

impl Scratch {
    /// The list of readings the last analysis kept, emptied, for the next one's readings (see
    /// [`analyze_list`]).
    pub fn take_list(&mut self) -> Vec<Reading> {
        let mut list = std::mem::take(&mut self.kept);
        list.clear();
        list
    }

    /// Takes back the lists of a trend no longer needed, for the next analysis to fill.
    pub fn recycle(&mut self, trend: Trend) {
        self.smoothed = trend.smoothed;
    }
}

/// [`analyze`], with its working lists in `scratch`.
pub fn analyze_in(readings: &[Reading], window: Window, params: &Params, scratch: &mut Scratch) -> Trend {
    let mut list = scratch.take_list();
    list.extend_from_slice(readings);
    analyze_list(list, window, params, scratch)
}

/// [`analyze_in`] of the readings in `list`, a list of the scratch's ([`Scratch::take_list`])
/// that the caller read them into: no list of their own is made (0.3 MB for ten years).
pub fn analyze_list(mut list: Vec<Reading>, window: Window, params: &Params, scratch: &mut Scratch) -> Trend {
    let p = sanitize(params);
    let n_input = list.len();
    let mut rejected = Vec::new();
    // One list of readings, filtered in place at each step: every list of ten years is 320 KB
    // that the static binary's allocator maps afresh and faults in page by page.
    let mut n_outside_window = 0;
    list.retain(|r| {
        if r.t < window.start || r.t > window.end {
            n_outside_window += 1;
        } else if !r.value.is_finite() {
            rejected.push(reject(r.t, None, RejectReason::NonFinite));
        } else {
            return true;
        }
        false
    });
    scratch.kept = list;
    let Scratch { kept, values, keys, keep, sums, points, smoothed } = scratch;
    sort_readings(kept);

    let mut last: Option<Reading> = None;
    kept.retain(|r| {
        let reason = match last.is_some_and(|prev| prev.t == r.t && prev.value == r.value) {
            true => RejectReason::Duplicate,
            false if !is_plausible(r.value, p.plausible) => RejectReason::Implausible,
            false => {
                last = Some(*r);
                return true;
            }
        };
        rejected.push(reject(r.t, Some(r.value), reason));
        false
    });

    reject_outliers(kept, &p, &mut rejected, values, keys, keep);
    // `retain` visits the readings once each, in order: the flags are theirs.
    let mut keep = keep.iter();
    kept.retain(|_| keep.next().copied().unwrap_or(false));
    crate::sort::by(&mut rejected, cmp_rejected);

    let mut smoothed = std::mem::take(smoothed);
    merge_same_time(kept, &mut smoothed);
    local_linear(&mut smoothed, p.alpha, sums);
    let first_t = kept.first().map(|r| r.t);
    let last_t = kept.last().map(|r| r.t);
    let span_days = match (first_t, last_t) {
        (Some(a), Some(b)) => days_between(a, b),
        _ => 0.0,
    };
    points.clear();
    points.extend(smoothed.iter().map(|s| (days_between(first_t.unwrap_or(s.t), s.t), s.value)));
    let slope = theil_sen(points, p.max_slope_points, keys);
    let scatter = slope.as_ref().map(|s| residual_scatter(points, s.per_week / 7.0, values, keys));
    let change = slope.as_ref().map(|s| finite_or_zero(s.per_week * span_days / 7.0));
    let (verdict, reason) = decide(kept, span_days, slope.as_ref(), scatter, &p);

    Trend {
        method: TREND_METHOD,
        description: TREND_DESCRIPTION,
        window,
        first_t,
        last_t,
        span_days,
        n_input,
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
        display_decimals: p.display_decimals.min(6),
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
/// Says which to keep in `keep`, one flag a reading, rather than copying them; `values` and
/// `keys` are working lists.
fn reject_outliers(
    sorted: &[Reading],
    p: &Params,
    rejected: &mut Vec<Rejected>,
    values: &mut Vec<f64>,
    keys: &mut Vec<i64>,
    keep: &mut Vec<bool>,
) {
    values.clear();
    values.extend(sorted.iter().map(|r| r.value));
    let global = robust_centre(values, p.min_spread, keys);
    let half = p.local_days.saturating_mul(SECS_PER_DAY);
    keep.clear();
    let (mut lo, mut hi) = (0usize, 0usize);
    let mut window = SortedWindow::default();
    let (mut thinned, mut dense) = (Vec::new(), Dense::default());
    for r in sorted {
        while let Some(x) = sorted.get(lo).filter(|x| x.t < r.t.saturating_sub(half)) {
            window.remove(x.value);
            lo += 1;
        }
        while let Some(x) = sorted.get(hi).filter(|x| x.t <= r.t.saturating_add(half)) {
            window.insert(x.value);
            hi += 1;
        }
        let in_order = window.sorted();
        // A neighbourhood of one repeated value (a metric unchanged for weeks) holds no outlier:
        // the reading is its median, at distance 0 whatever the spread. Halving, which an even
        // count's median does, is exact but for subnormal values, left to the general path.
        let constant = match (in_order.first(), in_order.last()) {
            (Some(a), Some(b)) => a == b && unkey(*a) / 2.0 + unkey(*a) / 2.0 == unkey(*a),
            _ => false,
        };
        if constant && hi - lo >= p.min_local {
            keep.push(true);
            continue;
        }
        let local = match values.get(lo..hi) {
            Some(slice) if slice.len() >= p.min_local && slice.len() <= MAX_NEIGHBOURS => {
                sorted_median_mad(in_order.len(), |i| in_order.get(i).copied().map(unkey))
                    .map(|(m, mad)| (m, spread(slice, m, mad, p.min_spread)))
            }
            Some(slice) if slice.len() >= p.min_local => {
                // A dense neighbourhood: an evenly spaced subsample, in a reused buffer, gathered
                // only where it is read (the sorted window mostly gives its median and MAD, and
                // its values are read only when the MAD is 0): gathering it for every reading
                // took a sixth of a ten-year trend.
                let found = dense.median_mad(slice, in_order);
                let subsample: &[f64] = match found {
                    Some((_, mad)) if !reads_values(mad) => &[],
                    _ => {
                        thinned.clear();
                        let (n, m) = (slice.len(), MAX_NEIGHBOURS);
                        thinned.extend((0..m).filter_map(|k| slice.get(k * (n - 1) / (m - 1)).copied()));
                        &thinned
                    }
                };
                found
                    .or_else(|| median_mad_in(subsample, keys))
                    .map(|(m, mad)| (m, spread(subsample, m, mad, p.min_spread)))
            }
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
                keep.push(false);
            }
            _ => keep.push(true),
        }
    }
}

/// Median and robust SD: 1.4826·MAD, or 1.2533·mean absolute deviation when MAD is 0 (more than
/// half the values identical), never below `min_spread`. A spread of 0 means all values are equal
/// and nothing can be an outlier; callers must not divide by it.
fn robust_centre(values: &[f64], min_spread: f64, keys: &mut Vec<i64>) -> Option<(f64, f64)> {
    let (m, mad) = median_mad_in(values, keys)?;
    Some((m, spread(values, m, mad, min_spread)))
}

/// The robust SD of [`robust_centre`] from a median and MAD already known; `values` are read
/// only when [`reads_values`] says so.
fn spread(values: &[f64], m: f64, mad: f64, min_spread: f64) -> f64 {
    let mut spread = MAD_TO_SD * mad;
    if reads_values(mad) && !values.is_empty() {
        let mean_ad = values.iter().map(|x| (x - m).abs()).sum::<f64>() / values.len() as f64;
        spread = MEANAD_TO_SD * mean_ad;
    }
    finite_or_zero(spread.max(min_spread))
}

/// True when [`spread`] reads its values: the MAD gives no spread (more than half the values
/// identical), and the mean absolute deviation stands in.
fn reads_values(mad: f64) -> bool {
    MAD_TO_SD * mad <= 0.0
}

/// The values of the sliding neighbourhood kept in order (`f64::total_cmp`), so each reading's
/// median and MAD cost a short memmove and a merge instead of two copies and two selections
/// (this ran 60,000 times for ten years of weigh-ins and their recomposition). The results are
/// those of [`median_mad`](super::median_mad) to the bit: the same order statistics, combined the same way
/// ([`sorted_median_mad`]). The values are held as their [`key`]s, whose integer order is
/// `total_cmp`'s: the bisections compare integers in line, where `total_cmp` was a call per
/// step (a tenth of a ten-year trend's time).
///
/// A value leaving is only marked (`hole`) until the next one arrives: the values between the
/// two places then move by one, where removing and inserting each moved everything after its
/// place. A third as many moves for a sliding window, and musl's `memmove`, which the static
/// binary has, moves a word at a time: it was a fifth of that binary's ten-year trend.
#[derive(Default)]
struct SortedWindow {
    v: Vec<i64>,
    /// A place in `v` whose value has left (still there, so `v` stays in order).
    hole: Option<usize>,
}

impl SortedWindow {
    fn insert(&mut self, x: f64) {
        let k = key(x);
        let i = self.v.partition_point(|y| *y < k);
        match self.hole.take() {
            None => self.v.insert(i, k),
            Some(h) if i <= h => {
                self.v.copy_within(i..h, i + 1);
                self.put(i, k);
            }
            Some(h) => {
                self.v.copy_within(h + 1..i, h);
                self.put(i - 1, k);
            }
        }
    }

    fn put(&mut self, i: usize, k: i64) {
        if let Some(slot) = self.v.get_mut(i) {
            *slot = k;
        }
    }

    fn remove(&mut self, x: f64) {
        self.settle();
        let k = key(x);
        let i = self.v.partition_point(|y| *y < k);
        if self.v.get(i) == Some(&k) {
            self.hole = Some(i);
        }
    }

    fn settle(&mut self) {
        if let Some(h) = self.hole.take() {
            self.v.remove(h);
        }
    }

    /// The values in order, as keys.
    fn sorted(&mut self) -> &[i64] {
        self.settle();
        &self.v
    }
}

/// The median and MAD of a dense neighbourhood's subsample (`MAX_NEIGHBOURS` evenly spaced
/// values), read off the sorted window: a neighbourhood a little over the limit (ten years of
/// four weigh-ins a day has ~153 values in ±14 days) leaves out only a few values, so the
/// subsample in order is the window in order without them, and [`sorted_median_mad`] gives what
/// two selections over the subsample gave, to the bit. Buffers are reused across readings.
#[derive(Default)]
struct Dense {
    /// The neighbourhood size `gaps` is for.
    n: usize,
    /// Positions in the neighbourhood that the subsample leaves out.
    gaps: Vec<usize>,
    /// The values left out, in order, as keys.
    out: Vec<i64>,
    /// Their positions in the sorted window, ascending.
    skip: Vec<usize>,
}

impl Dense {
    /// `None` when more than half the limit would be left out (selection is cheaper there).
    /// `sorted` is the neighbourhood in order, as [`key`]s.
    fn median_mad(&mut self, slice: &[f64], sorted: &[i64]) -> Option<(f64, f64)> {
        let (n, m) = (slice.len(), MAX_NEIGHBOURS);
        if n <= m || n - m > m / 2 || sorted.len() != n {
            return None;
        }
        if self.n != n {
            self.n = n;
            self.gaps.clear();
            let mut next = 0;
            for k in 0..m {
                let at = k * (n - 1) / (m - 1);
                self.gaps.extend(next..at);
                next = at + 1;
            }
        }
        self.out.clear();
        for g in &self.gaps {
            let x = key(*slice.get(*g)?);
            let i = self.out.partition_point(|y| *y < x);
            self.out.insert(i, x);
        }
        self.skip.clear();
        let mut prev = None;
        for x in &self.out {
            // Equal values sit side by side: the next one left out is the next place.
            let i = match (prev, self.skip.last()) {
                (Some(p), Some(last)) if p == *x => last + 1,
                _ => sorted.partition_point(|y| y < x),
            };
            self.skip.push(i);
            prev = Some(*x);
        }
        let skip = &self.skip;
        sorted_median_mad(m, |p| {
            let mut i = p;
            for s in skip {
                if *s <= i {
                    i += 1;
                }
            }
            sorted.get(i).copied().map(unkey)
        })
    }
}

/// [`median_mad`](super::median_mad) of `n` values sorted by `f64::total_cmp` and read through `at`, without
/// copying them: the median is read off, and the MAD is an order statistic of two ascending
/// runs, the deviations of the values below the median (going down) and of those at or above it
/// (going up), found by bisection ([`kth_of_two`]): the same values the merge of the two runs
/// gives, combined the same way.
fn sorted_median_mad(n: usize, at: impl Fn(usize) -> Option<f64>) -> Option<(f64, f64)> {
    let m = middle(n, &at)?;
    let (mut split, mut hi) = (0, n);
    while split < hi {
        let mid = split + (hi - split) / 2;
        match at(mid)? < m {
            true => split = mid + 1,
            false => hi = mid,
        }
    }
    let down = |i: usize| split.checked_sub(i + 1).and_then(&at).map(|x| (x - m).abs());
    let up = |j: usize| at(split + j).map(|x| (x - m).abs());
    let upper = kth_of_two(n / 2, split, n - split, &down, &up)?;
    let mad = match n % 2 {
        1 => upper,
        _ => kth_of_two(n / 2 - 1, split, n - split, &down, &up)? / 2.0 + upper / 2.0,
    };
    Some((m, mad))
}

/// The `k`-th smallest (0-based) of two ascending runs of `na` and `nb` values read through `a`
/// and `b`: the smallest count `i` taken from `a` with `a(i)` not below `b`'s last taken, found by
/// bisection, so the order statistic costs a few reads instead of a merge of half the values.
fn kth_of_two(
    k: usize,
    na: usize,
    nb: usize,
    a: &dyn Fn(usize) -> Option<f64>,
    b: &dyn Fn(usize) -> Option<f64>,
) -> Option<f64> {
    let (mut lo, mut hi) = ((k + 1).saturating_sub(nb), (k + 1).min(na));
    while lo < hi {
        let i = lo + (hi - lo) / 2;
        match a(i)?.total_cmp(&b(k - i)?).is_lt() {
            true => lo = i + 1,
            false => hi = i,
        }
    }
    let x = lo.checked_sub(1).and_then(a);
    let y = (k + 1).checked_sub(lo + 1).and_then(b);
    match (x, y) {
        (Some(x), Some(y)) => Some(if x.total_cmp(&y).is_lt() { y } else { x }),
        (x, y) => x.or(y),
    }
}

/// The median of `n` ordered values given by `at`, combined as [`median`] combines them.
fn middle(n: usize, at: impl Fn(usize) -> Option<f64>) -> Option<f64> {
    match n {
        0 => None,
        n if n % 2 == 1 => at(n / 2),
        n => Some(at(n / 2 - 1)? / 2.0 + at(n / 2)? / 2.0),
    }
}

/// Readings sharing a timestamp (two devices, one weigh-in) become their mean (weighted by their
/// count in the trend), so the slope has no vertical pairs. The points of the trend line, whose
/// level [`local_linear`] fills in, in `out` (emptied first): room for one a reading, as one a
/// reading is the rule.
fn merge_same_time(sorted: &[Reading], out: &mut Vec<SmoothedPoint>) {
    out.clear();
    out.reserve(sorted.len());
    let mut sum = 0.0;
    for r in sorted {
        match out.last_mut() {
            Some(last) if last.t == r.t => {
                sum += r.value;
                last.n += 1;
                last.value = sum / last.n as f64;
            }
            _ => {
                sum = r.value;
                out.push(SmoothedPoint { t: r.t, value: r.value, trend: 0.0, n: 1 });
            }
        }
    }
}

/// Sorts readings by time, then value. They usually come in time order (or its reverse), and
/// then are left as they are (or reversed: readings that compare equal are equal to the bit),
/// without the sort's list of positions, 160 KB for ten years.
fn sort_readings(v: &mut [Reading]) {
    if v.is_sorted_by(|a, b| cmp_reading(a, b).is_le()) {
        return;
    }
    if v.is_sorted_by(|a, b| cmp_reading(b, a).is_le()) {
        v.reverse();
        return;
    }
    crate::sort::by(v, cmp_reading);
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
    let dp = p.display_decimals;
    let q = |x: f64| crate::domain::units::grouped(x * f, dp);
    let interval = format!("{}{u} per week (95% interval {} to {})", q(s.per_week), q(s.lower), q(s.upper));
    if s.lower <= 0.0 && s.upper >= 0.0 {
        return (Verdict::Stable, format!("slope {interval} includes zero"));
    }
    if s.per_week.abs() < p.min_change_per_week {
        let why =
            format!("slope {interval} is below the meaningful {}{u} per week", q(p.min_change_per_week));
        return (Verdict::Stable, why);
    }
    if change < noise {
        let why =
            format!("change {}{u} over {span_days:.1} days is within the noise ({}{u})", q(change), q(noise));
        return (Verdict::Stable, why);
    }
    let verdict = if s.per_week > 0.0 { Verdict::Rising } else { Verdict::Falling };
    (verdict, format!("slope {interval} excludes zero and beats the noise floor"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::trends::median_mad;

    /// The sliding window gives `median_mad`'s results to the bit while values come and go:
    /// odd and even sizes, ties, signed zeros and negative values.
    #[test]
    fn sorted_window_matches_median_mad() {
        let mut x: u64 = 7;
        let mut next = || {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            // Few distinct values, so ties and zero MADs are common.
            ((x >> 33) % 9) as f64 * 0.25 - 1.0
        };
        let values: Vec<f64> = (0..400).map(|_| next()).chain([0.0, -0.0, 0.0, 72.45, -0.0]).collect();
        let mut w = SortedWindow::default();
        let mut lo = 0;
        for (hi, v) in values.iter().enumerate() {
            w.insert(*v);
            while hi + 1 - lo > 1 + hi % 37 {
                w.remove(values[lo]);
                lo += 1;
            }
            let want = median_mad(&values[lo..=hi]).unwrap();
            let in_order = w.sorted();
            let got = sorted_median_mad(in_order.len(), |i| in_order.get(i).copied().map(unkey)).unwrap();
            assert_eq!(
                (got.0.to_bits(), got.1.to_bits()),
                (want.0.to_bits(), want.1.to_bits()),
                "{lo}..={hi}"
            );
        }
    }

    /// A dense neighbourhood's median and MAD read off the sorted window are those of
    /// `median_mad` over its evenly spaced subsample, to the bit, at every size (those that
    /// leave out too much say so, for selection to answer).
    #[test]
    fn dense_window_matches_the_subsample() {
        let mut x: u64 = 11;
        let mut next = || {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            ((x >> 33) % 23) as f64 * 0.125 - 1.0
        };
        let values: Vec<f64> = (0..500).map(|_| next()).chain([0.0, -0.0, 0.0, 72.45, -0.0]).collect();
        let mut dense = Dense::default();
        let mut answered = 0;
        for n in MAX_NEIGHBOURS + 1..=400 {
            for lo in [0, 3, 104] {
                let slice = &values[lo..lo + n];
                let mut sorted: Vec<i64> = slice.iter().map(|x| key(*x)).collect();
                crate::sort::ascending(&mut sorted);
                let got = dense.median_mad(slice, &sorted);
                if n - MAX_NEIGHBOURS > MAX_NEIGHBOURS / 2 {
                    assert_eq!(got, None, "{n}");
                    continue;
                }
                let want = median_mad(&crate::domain::trends::stats::thin(slice, MAX_NEIGHBOURS)).unwrap();
                let got = got.unwrap();
                assert_eq!(
                    (got.0.to_bits(), got.1.to_bits()),
                    (want.0.to_bits(), want.1.to_bits()),
                    "{n} {lo}"
                );
                answered += 1;
            }
        }
        assert!(answered > 200);
    }

    /// A dense neighbourhood is judged on the same evenly spaced subsample as before.
    #[test]
    fn dense_neighbourhoods_use_the_same_subsample() {
        let values: Vec<f64> = (0..400).map(|i| ((i * 7919) % 101) as f64 / 10.0).collect();
        for n in [MAX_NEIGHBOURS + 1, 200, 400] {
            let slice = &values[..n];
            let m = MAX_NEIGHBOURS;
            let ours: Vec<f64> = (0..m).filter_map(|k| slice.get(k * (n - 1) / (m - 1)).copied()).collect();
            assert_eq!(ours, crate::domain::trends::stats::thin(slice, m));
            assert_eq!(median_mad_in(&ours, &mut Vec::new()), median_mad(&ours));
        }
    }
}
