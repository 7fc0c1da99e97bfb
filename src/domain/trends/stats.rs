//! Robust statistics: medians, MAD, and the Theil–Sen slope with its Kendall rank interval.
#![warn(clippy::indexing_slicing)]

use crate::domain::trends::SECS_PER_DAY;

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

/// Theil–Sen slope over `(day, value)` points (any order); `per_week` is the median pairwise
/// slope × 7. The interval uses the Kendall rank bounds (Sen 1968, Gilbert 1987):
/// C = z·sqrt(n(n−1)(2n+5)/18 · f), lower = slope of rank (N−C)/2, upper = rank (N+C)/2 + 1,
/// where f ≥ 1 inflates the variance for lag-1 autocorrelation of the residuals.
/// More than `max_points` points are thinned to an evenly spaced subsample (deterministic).
/// `keys` is a working list.
pub fn theil_sen(points: &[(f64, f64)], max_points: usize, keys: &mut Vec<i64>) -> Option<Slope> {
    let finite = |(x, y): &(f64, f64)| x.is_finite() && y.is_finite();
    let cmp = |a: &(f64, f64), b: &(f64, f64)| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1));
    // A trend's points come finite and in order: they are thinned where they are, without a
    // copy and a sort's positions (0.5 MB for ten years, fresh pages in the static build).
    let mut pts = Vec::new();
    let mut all = points;
    if !(points.iter().all(finite) && points.is_sorted_by(|a, b| cmp(a, b).is_le())) {
        pts.extend(points.iter().copied().filter(finite));
        crate::sort::by(&mut pts, cmp);
        all = &pts;
    }
    let max_points = max_points.max(3);
    let subsampled = all.len() > max_points;
    let thinned;
    let pts = match subsampled {
        true => {
            thinned = thin(all, max_points);
            &thinned
        }
        false => all,
    };
    // The ranks asked for lie in the middle, within the widest interval any autocorrelation
    // factor can give: only the slopes there are kept (see `band`); when a guess of that
    // stretch misses, all of them.
    if let Some(Ok(slope)) = band(pts, keys).map(|b| fit(pts, subsampled, b)) {
        return slope;
    }
    fit(pts, subsampled, every_slope(pts)).ok().flatten()
}

/// The largest variance inflation [`autocorr_factor`] gives.
const MAX_AUTOCORR_FACTOR: f64 = 10.0;

/// The slope and interval from the pairwise slopes `s` holds (see [`Ranks`]); `Err` when a rank
/// asked for is not among them.
fn fit(pts: &[(f64, f64)], subsampled: bool, mut s: Slopes) -> Result<Option<Slope>, Outside> {
    if s.total == 0 {
        return Ok(None);
    }
    // A few order statistics of up to half a million slopes: selection finds each in linear
    // time, with the same values a full sort would give (the k-th value under a total order is
    // unique), where sorting took much of a long trend's time.
    let n_pairs = s.total;
    let big_n = n_pairs as f64;
    let mut ranks = Ranks { s: &mut s, fixed: Vec::new() };
    let Some(per_week) = ranks.median()? else { return Ok(None) };
    let n = pts.len() as f64;
    let factor = autocorr_factor(pts, per_week / 7.0);
    let var = n * (n - 1.0) * (2.0 * n + 5.0) / 18.0 * factor;
    let c = Z95 * var.max(0.0).sqrt();
    let (Some(lower), Some(upper)) =
        (ranks.at_rank((big_n - c) / 2.0)?, ranks.at_rank((big_n + c) / 2.0 + 1.0)?)
    else {
        return Ok(None);
    };
    Ok(Some(Slope {
        per_week,
        lower,
        upper,
        confidence: 0.95,
        n_points: pts.len(),
        n_pairs,
        subsampled,
        autocorr_factor: factor,
    }))
}

/// Calls `each` with the key of every finite pairwise slope per week, in one fixed order.
#[inline(always)]
fn pair_slopes<const STRIDE: usize>(pts: &[(f64, f64)], mut each: impl FnMut(i64)) {
    for (i, a) in pts.iter().enumerate() {
        // A sample (`STRIDE` > 1) starts each point's run at a different offset, so that it is
        // not made of the nearest neighbours' (noisiest) slopes. Stepped by hand: the static
        // binary's build inlines only what costs nothing, and `StepBy::next` was a call per
        // pair there (31 M instructions for ten years of weigh-ins).
        let mut j = i + 1 + i % STRIDE;
        while let Some(b) = pts.get(j) {
            let dx = b.0 - a.0;
            if dx > 0.0 {
                let s = (b.1 - a.1) / dx * 7.0;
                if s.is_finite() {
                    each(key(s));
                }
            }
            j += STRIDE;
        }
    }
}

/// Pairwise slopes, all or a stretch of their ranks: in order, `below` slopes not held, `low.1`
/// slopes equal to `low.0`, those in `v` (in any order), `high.1` equal to `high.0`, and the
/// rest up to `total` not held. Ties are counted, not held: a metric unchanged for years has
/// half a million slopes of 0.
struct Slopes {
    v: Vec<i64>,
    below: usize,
    low: (i64, usize),
    high: (i64, usize),
    total: usize,
}

/// Every pairwise slope: the band of all of them (one copy of the pairs' loop fewer).
fn every_slope(pts: &[(f64, f64)]) -> Slopes {
    let pairs = pts.len().saturating_mul(pts.len().saturating_sub(1)) / 2;
    between(pts, i64::MIN, i64::MAX, pairs)
}

/// Fewer pairs than this are all kept: the band would be most of them.
const BAND_MIN_PAIRS: usize = 50_000;
/// One slope in this many is sampled to place the band.
const BAND_STRIDE: usize = 32;
/// How far (as a fraction of the ranks) the band reaches past the ranks the interval can ask
/// for, for the sample's error (a few times its standard error of ~0.4 %).
const BAND_MARGIN: f64 = 0.02;

/// The slopes whose ranks the median and the widest interval can ask for, with some margin:
/// between two bounds read off a sample of one slope in 32. For a thousand points, a sixth of
/// the half million slopes, where writing and selecting among all of them was two thirds of a
/// ten-year trend's analysis and 4 MB of fresh memory a series. `None` for few points. Whether
/// the bounds hold is known only from the ranks asked (see [`Ranks::kth`]). The sample is made in
/// `sample`, the caller's list: made afresh, it was 0.1 MB of new pages an analysis (the static
/// binary's allocator unmaps freed blocks over 128 KB). The band's own list stays fresh: a
/// reused one would have to be zeroed first, as many instructions as the pages it saves cost.
fn band(pts: &[(f64, f64)], sample: &mut Vec<i64>) -> Option<Slopes> {
    let pairs = pts.len().saturating_mul(pts.len().saturating_sub(1)) / 2;
    if pairs < BAND_MIN_PAIRS {
        return None;
    }
    let n = pts.len() as f64;
    let c = Z95 * (n * (n - 1.0) * (2.0 * n + 5.0) / 18.0 * MAX_AUTOCORR_FACTOR).sqrt();
    let half = c / 2.0 / pairs as f64 + BAND_MARGIN;
    if half >= 0.5 {
        return None;
    }
    sample.clear();
    sample.reserve(pairs / BAND_STRIDE + pts.len());
    pair_slopes::<BAND_STRIDE>(pts, |k| sample.push(k));
    let last = sample.len().checked_sub(1)?;
    let at = |q: f64| ((q * last as f64) as usize).min(last);
    let (lo_at, hi_at) = (at(0.5 - half), at(0.5 + half));
    let (_, lo, rest) = sample.select_nth_unstable(lo_at);
    let lo = *lo;
    let hi = *rest.select_nth_unstable(hi_at.checked_sub(lo_at + 1)?).1;
    Some(between(pts, lo, hi, ((2.0 * half + 0.01) * pairs as f64) as usize))
}

/// The slopes from `lo` to `hi` (keys, inclusive), room made for about `room` of them.
fn between(pts: &[(f64, f64)], lo: i64, hi: i64, room: usize) -> Slopes {
    // Written in place into the room foreseen (grown past it if need be): `push` was a call and
    // a capacity check per slope, for up to half a million slopes per series.
    let mut v = vec![0; room];
    let (mut below, mut kept, mut at_lo, mut at_hi, mut above) = (0, 0, 0, 0, 0);
    pair_slopes::<1>(pts, |k| {
        if k < lo {
            below += 1;
        } else if k > hi {
            above += 1;
        } else if k == lo {
            at_lo += 1;
        } else if k == hi {
            at_hi += 1;
        } else {
            match v.get_mut(kept) {
                Some(slot) => *slot = k,
                None => v.push(k),
            }
            kept += 1;
        }
    });
    v.truncate(kept);
    let total = below + at_lo + kept + at_hi + above;
    Slopes { v, below, low: (lo, at_lo), high: (hi, at_hi), total }
}

/// Median of any values (non-finite ones are ignored).
pub fn median(values: &[f64]) -> Option<f64> {
    median_into(values.iter().copied(), &mut Vec::new())
}

/// Median and median absolute deviation (unscaled) of any values.
pub fn median_mad(values: &[f64]) -> Option<(f64, f64)> {
    median_mad_in(values, &mut Vec::new())
}

/// [`median_mad`] with a scratch buffer the caller reuses (it runs once per reading).
pub(super) fn median_mad_in(values: &[f64], buf: &mut Vec<i64>) -> Option<(f64, f64)> {
    let m = median_into(values.iter().copied(), buf)?;
    let mad = median_into(values.iter().filter(|x| x.is_finite()).map(|x| (x - m).abs()), buf)?;
    Some((m, mad))
}

/// The median of the finite values, using `buf` as scratch.
fn median_into(values: impl Iterator<Item = f64>, buf: &mut Vec<i64>) -> Option<f64> {
    buf.clear();
    buf.extend(values.filter(|x| x.is_finite()).map(key));
    let n = buf.len();
    if n == 0 {
        return None;
    }
    // Selection instead of a full sort: the k-th value under a total order is unique, so the
    // result is the same as sorting, in linear time.
    let (left, upper, _) = buf.select_nth_unstable(n / 2);
    let upper = unkey(*upper);
    if n % 2 == 1 {
        return Some(upper);
    }
    let lower = unkey(*left.iter().max()?);
    Some(lower / 2.0 + upper / 2.0)
}

/// `x` as an integer ordered as [`f64::total_cmp`] orders floats (the same bit trick). The
/// medians select on these keys: comparing two integers is inlined where `total_cmp` was a
/// call per comparison, and the trends compared ~60 million times for ten years of weigh-ins.
pub(super) fn key(x: f64) -> i64 {
    let b = x.to_bits() as i64;
    b ^ (((b >> 63) as u64) >> 1) as i64
}

/// The float of a [`key`] (the transform is its own inverse).
pub(super) fn unkey(k: i64) -> f64 {
    f64::from_bits((k ^ (((k >> 63) as u64) >> 1) as i64) as u64)
}

/// Two-sided 95% normal quantile.
const Z95: f64 = 1.959_963_984_540_054;
/// MAD × this estimates the SD of normal data.
pub(super) const MAD_TO_SD: f64 = 1.4826;
/// Mean absolute deviation × this estimates the SD of normal data (used when MAD is 0).
pub(super) const MEANAD_TO_SD: f64 = 1.2533;
/// An evenly spaced subsample of `m` items that keeps the first and the last.
pub(super) fn thin<T: Copy>(items: &[T], m: usize) -> Vec<T> {
    let n = items.len();
    if n <= m || m < 2 {
        return items.to_vec();
    }
    (0..m).filter_map(|k| items.get(k * (n - 1) / (m - 1)).copied()).collect()
}

pub(super) fn days_between(a: i64, b: i64) -> f64 {
    // In 64 bits when the difference fits (always, for real dates): an i128 becomes a float
    // through a library call, 60,000 of them for ten years of weigh-ins. Either conversion
    // rounds the same integer to the same float.
    let secs = match b.checked_sub(a) {
        Some(d) => d as f64,
        None => (i128::from(b) - i128::from(a)) as f64,
    };
    secs / SECS_PER_DAY as f64
}

/// A rank asked for that the band of slopes held does not reach.
#[derive(Debug)]
struct Outside;

/// Order statistics of values under `f64::total_cmp` (as [`key`]s), found by selection. Every
/// value found is in its sorted place and splits the rest, so each later search only covers the
/// stretch between two found places.
struct Ranks<'a> {
    s: &'a mut Slopes,
    /// Indices (into `s.v`) already in their sorted place, ascending.
    fixed: Vec<usize>,
}

impl Ranks<'_> {
    /// The k-th smallest value (0-based) of all `total`; `Err` when it is not held.
    fn kth(&mut self, k: usize) -> Result<Option<f64>, Outside> {
        let s = &mut *self.s;
        if k >= s.total {
            return Ok(None);
        }
        let k = k.checked_sub(s.below).ok_or(Outside)?;
        let Some(k) = k.checked_sub(s.low.1) else { return Ok(Some(unkey(s.low.0))) };
        if let Some(past) = k.checked_sub(s.v.len()) {
            return if past < s.high.1 { Ok(Some(unkey(s.high.0))) } else { Err(Outside) };
        }
        let at = self.fixed.partition_point(|f| *f < k);
        if self.fixed.get(at) == Some(&k) {
            return Ok(s.v.get(k).copied().map(unkey));
        }
        let lo = at.checked_sub(1).and_then(|i| self.fixed.get(i)).map_or(0, |f| f + 1);
        let hi = self.fixed.get(at).copied().unwrap_or(s.v.len());
        let (Some(part), Some(k_in)) = (s.v.get_mut(lo..hi), k.checked_sub(lo)) else { return Ok(None) };
        let (_, x, _) = part.select_nth_unstable(k_in);
        let x = unkey(*x);
        self.fixed.insert(at, k);
        Ok(Some(x))
    }

    fn median(&mut self) -> Result<Option<f64>, Outside> {
        Ok(match self.s.total {
            0 => None,
            n if n % 2 == 1 => self.kth(n / 2)?,
            n => match (self.kth(n / 2 - 1)?, self.kth(n / 2)?) {
                (Some(a), Some(b)) => Some((a + b) / 2.0),
                _ => None,
            },
        })
    }

    /// The value at a 1-based, possibly fractional rank, interpolated and clamped.
    fn at_rank(&mut self, rank: f64) -> Result<Option<f64>, Outside> {
        let n = self.s.total;
        if n == 0 {
            return Ok(None);
        }
        let r = if rank.is_finite() { rank.clamp(1.0, n as f64) } else { 1.0 };
        let i = r.floor() as usize - 1;
        let frac = r - r.floor();
        let Some(a) = self.kth(i)? else { return Ok(None) };
        let b = self.kth(i + 1)?.unwrap_or(a);
        Ok(Some(finite_or(a + frac * (b - a), a)))
    }
}

/// Residuals of the points around the Theil–Sen line through them (intercept = median of
/// y − slope·x), made in `r` in place of the offsets, with `buf` as the median's scratch: two
/// lists of ten years, not four.
fn residuals(points: &[(f64, f64)], slope_per_day: f64, r: &mut Vec<f64>, buf: &mut Vec<i64>) {
    r.clear();
    r.extend(points.iter().map(|(x, y)| y - slope_per_day * x));
    let intercept = median_into(r.iter().copied(), buf).unwrap_or(0.0);
    for o in r {
        *o -= intercept;
    }
}

/// The robust SD of the residuals, made in `r` with `buf` as the medians' scratch.
pub(super) fn residual_scatter(
    points: &[(f64, f64)],
    slope_per_day: f64,
    r: &mut Vec<f64>,
    buf: &mut Vec<i64>,
) -> f64 {
    residuals(points, slope_per_day, r, buf);
    let mad = median_mad_in(r, buf).map_or(0.0, |(_, mad)| mad);
    finite_or_zero(MAD_TO_SD * mad)
}

/// (1 + ρ)/(1 − ρ) for a positive lag-1 autocorrelation ρ of the residuals, capped at 10: the
/// Kendall variance assumes independent readings, and day-to-day weights are not.
fn autocorr_factor(points: &[(f64, f64)], slope_per_day: f64) -> f64 {
    let mut r = Vec::new();
    residuals(points, slope_per_day, &mut r, &mut Vec::new());
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
    finite_or((1.0 + rho) / (1.0 - rho), MAX_AUTOCORR_FACTOR).min(MAX_AUTOCORR_FACTOR)
}

pub(super) fn finite_or(x: f64, fallback: f64) -> f64 {
    if x.is_finite() { x } else { fallback }
}

pub(super) fn finite_or_zero(x: f64) -> f64 {
    finite_or(x, 0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whatever the order of the questions, each answer is the value a full sort puts there.
    #[test]
    fn ranks_are_those_of_a_sort() {
        let values: Vec<f64> = (0..1001).map(|i| ((i * 7919) % 1009) as f64 / 7.0 - 50.0).collect();
        let mut sorted = values.clone();
        sorted.sort_by(f64::total_cmp);
        for ks in [vec![500, 10, 11, 990, 991, 1000], vec![0, 1000, 3, 2, 500], vec![1000, 999]] {
            let v: Vec<i64> = values.iter().copied().map(key).collect();
            let mut s = Slopes { v, below: 0, low: (0, 0), high: (0, 0), total: 1001 };
            let mut r = Ranks { s: &mut s, fixed: Vec::new() };
            for k in ks {
                assert_eq!(r.kth(k).unwrap(), Some(sorted[k]), "rank {k}");
            }
            assert_eq!(r.kth(1001).unwrap(), None);
        }
    }

    /// The band of middle slopes gives the slope and interval of all of them, to the bit, or
    /// says it cannot: noisy, steady, tied, random-walk and heavy-tailed series.
    #[test]
    fn the_band_answers_as_every_slope_does() {
        let mut x: u64 = 3;
        let mut next = || {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            (x >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut walk = 80.0;
        let series: Vec<Vec<(f64, f64)>> = vec![
            (0..1000).map(|d| (d as f64, 80.0 - 0.01 * d as f64 + next())).collect(),
            (0..1000).map(|d| (d as f64 * 3.9, 72.45)).collect(),
            (0..700).map(|d| (d as f64, ((d * 7919) % 5) as f64 * 0.1)).collect(),
            (0..1000)
                .map(|d| {
                    walk += next() - 0.5;
                    (d as f64 / 2.0, walk)
                })
                .collect(),
            (0..1000).map(|d| (d as f64, 1.0 / (next() - 0.5))).collect(),
        ];
        let mut answered = 0;
        for (i, pts) in series.iter().enumerate() {
            let want = fit(pts, false, every_slope(pts)).unwrap().unwrap();
            let band = band(pts, &mut Vec::new()).unwrap();
            assert!(band.v.len() < band.total / 3, "{i}: {} of {}", band.v.len(), band.total);
            if let Ok(got) = fit(pts, false, band) {
                assert_eq!(format!("{:?}", got.unwrap()), format!("{want:?}"), "{i}");
                answered += 1;
            }
        }
        assert!(answered >= 4, "{answered}");
        // A band that misses the middle says so.
        let pts = &series[0];
        assert!(fit(pts, false, between(pts, key(-1e9), key(-1.0), 0)).is_err());
        assert!(fit(pts, false, between(pts, key(1.0), key(1e9), 0)).is_err());
        assert!(band(&series[0][..300], &mut Vec::new()).is_none(), "few points keep every slope");
    }

    /// Days between two instants, in 64 bits or (past its range) 128, as the wide difference.
    #[test]
    fn days_between_any_two_instants() {
        for (a, b) in [(0, 86_400), (1_479_400_000, 1_795_000_000), (i64::MIN, i64::MAX), (i64::MAX, -5)] {
            let wide = (i128::from(b) - i128::from(a)) as f64 / 86_400.0;
            assert_eq!(days_between(a, b).to_bits(), wide.to_bits(), "{a} {b}");
        }
    }

    /// Keys order floats exactly as `total_cmp` does, and give each float back to the bit.
    #[test]
    fn keys_order_as_total_cmp() {
        let xs =
            [f64::NEG_INFINITY, -1e300, -2.5, -f64::MIN_POSITIVE, -0.0, 0.0, 5e-324, 1.0, 72.45, f64::MAX];
        for (i, a) in xs.iter().enumerate() {
            assert_eq!(unkey(key(*a)).to_bits(), a.to_bits());
            for b in &xs[i..] {
                assert_eq!(key(*a).cmp(&key(*b)), a.total_cmp(b), "{a} {b}");
            }
        }
    }
}
