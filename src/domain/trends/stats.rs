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
pub fn theil_sen(points: &[(f64, f64)], max_points: usize) -> Option<Slope> {
    let mut pts: Vec<(f64, f64)> =
        points.iter().copied().filter(|(x, y)| x.is_finite() && y.is_finite()).collect();
    crate::sort::by(&mut pts, |a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
    let max_points = max_points.max(3);
    let subsampled = pts.len() > max_points;
    if subsampled {
        pts = thin(&pts, max_points);
    }
    // Written in place into room for every pair, then cut to those kept: `push` was a call and
    // a capacity check per slope, for up to half a million slopes per series.
    let mut slopes = vec![0; pts.len().saturating_mul(pts.len().saturating_sub(1)) / 2];
    let mut kept = 0;
    for (i, a) in pts.iter().enumerate() {
        for b in pts.iter().skip(i + 1) {
            let dx = b.0 - a.0;
            if dx > 0.0 {
                let s = (b.1 - a.1) / dx * 7.0;
                if let (true, Some(slot)) = (s.is_finite(), slopes.get_mut(kept)) {
                    *slot = key(s);
                    kept += 1;
                }
            }
        }
    }
    slopes.truncate(kept);
    if slopes.is_empty() {
        return None;
    }
    // A few order statistics of up to half a million slopes: selection finds each in linear
    // time, with the same values a full sort would give (the k-th value under a total order is
    // unique), where sorting took much of a long trend's time.
    let n_pairs = slopes.len();
    let big_n = n_pairs as f64;
    let mut ranks = Ranks { v: &mut slopes, fixed: Vec::new() };
    let per_week = ranks.median()?;
    let n = pts.len() as f64;
    let factor = autocorr_factor(&pts, per_week / 7.0);
    let var = n * (n - 1.0) * (2.0 * n + 5.0) / 18.0 * factor;
    let c = Z95 * var.max(0.0).sqrt();
    let lower = ranks.at_rank((big_n - c) / 2.0)?;
    let upper = ranks.at_rank((big_n + c) / 2.0 + 1.0)?;
    Some(Slope {
        per_week,
        lower,
        upper,
        confidence: 0.95,
        n_points: pts.len(),
        n_pairs,
        subsampled,
        autocorr_factor: factor,
    })
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
fn key(x: f64) -> i64 {
    let b = x.to_bits() as i64;
    b ^ (((b >> 63) as u64) >> 1) as i64
}

/// The float of a [`key`] (the transform is its own inverse).
fn unkey(k: i64) -> f64 {
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
    (i128::from(b) - i128::from(a)) as f64 / SECS_PER_DAY as f64
}

/// Order statistics of values under `f64::total_cmp` (as [`key`]s), found by selection. Every
/// value found is in its sorted place and splits the rest, so each later search only covers the
/// stretch between two found places.
struct Ranks<'a> {
    v: &'a mut [i64],
    /// Indices already in their sorted place, ascending.
    fixed: Vec<usize>,
}

impl Ranks<'_> {
    /// The k-th smallest value (0-based).
    fn kth(&mut self, k: usize) -> Option<f64> {
        if k >= self.v.len() {
            return None;
        }
        let at = self.fixed.partition_point(|f| *f < k);
        if self.fixed.get(at) == Some(&k) {
            return self.v.get(k).copied().map(unkey);
        }
        let lo = at.checked_sub(1).and_then(|i| self.fixed.get(i)).map_or(0, |f| f + 1);
        let hi = self.fixed.get(at).copied().unwrap_or(self.v.len());
        let part = self.v.get_mut(lo..hi)?;
        let (_, x, _) = part.select_nth_unstable(k.checked_sub(lo)?);
        let x = unkey(*x);
        self.fixed.insert(at, k);
        Some(x)
    }

    fn median(&mut self) -> Option<f64> {
        let n = self.v.len();
        match n {
            0 => None,
            n if n % 2 == 1 => self.kth(n / 2),
            n => Some((self.kth(n / 2 - 1)? + self.kth(n / 2)?) / 2.0),
        }
    }

    /// The value at a 1-based, possibly fractional rank, interpolated and clamped.
    fn at_rank(&mut self, rank: f64) -> Option<f64> {
        let n = self.v.len();
        if n == 0 {
            return None;
        }
        let r = if rank.is_finite() { rank.clamp(1.0, n as f64) } else { 1.0 };
        let i = r.floor() as usize - 1;
        let frac = r - r.floor();
        let a = self.kth(i)?;
        let b = self.kth(i + 1).unwrap_or(a);
        Some(finite_or(a + frac * (b - a), a))
    }
}

/// Residuals of the points around the Theil–Sen line through them (intercept = median of
/// y − slope·x).
fn residuals(points: &[(f64, f64)], slope_per_day: f64) -> Vec<f64> {
    let offsets: Vec<f64> = points.iter().map(|(x, y)| y - slope_per_day * x).collect();
    let intercept = median(&offsets).unwrap_or(0.0);
    offsets.iter().map(|o| o - intercept).collect()
}

pub(super) fn residual_scatter(points: &[(f64, f64)], slope_per_day: f64) -> f64 {
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
            let mut v: Vec<i64> = values.iter().copied().map(key).collect();
            let mut r = Ranks { v: &mut v, fixed: Vec::new() };
            for k in ks {
                assert_eq!(r.kth(k), Some(sorted[k]), "rank {k}");
            }
            assert_eq!(r.kth(1001), None);
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
