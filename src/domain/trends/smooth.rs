//! The trend line drawn through the kept readings of a series: the level and slope estimated
//! together, so that a steady rise or fall is followed without lag.

use crate::domain::trends::SmoothedPoint;
use crate::domain::trends::stats::{days_between, finite_or};

/// Local linear smoothing with exponential weights: at each point, a straight line is fitted by
/// weighted least squares to every point, with weight `n · (1 − alpha)^|Δdays|` (`n` readings
/// merged into the point), and the trend is that line's value there. A straight line through the
/// data is reproduced exactly, so a steady change is not lagged the way an exponential moving
/// average lags it (by (1 − α)/α days' worth of slope). At the last reading only the past
/// counts: the fit is one-sided there, still without lag. Gaps need no special case: the
/// weights decay with days, not with readings. O(n): the weighted sums are carried forward
/// and backward. Fills in the `trend` of each point (in time order) from their `t`, `value`
/// and `n`; `future` is a working list.
pub fn local_linear(points: &mut [SmoothedPoint], alpha: f64, future: &mut Vec<Sums>) {
    let alpha = if alpha.is_finite() && alpha > 0.0 && alpha < 1.0 { alpha } else { 0.1 };
    let keep = 1.0 - alpha;
    // Sums of values relative to the first one stay small and cancel exactly for a constant.
    let base = points.first().map_or(0.0, |p| p.value);
    let gap = |a: i64, b: i64| days_between(a, b).max(0.0);
    // Sums over the points after i (future), with distances from i, carried backward; then
    // those at or before i (past), carried forward while each point's trend is made: one list
    // of sums, not two (0.8 MB for ten years, faulted in afresh on each call in the static build).
    // The decay of the gap before each point, `keep^gap`, is computed once for both passes (a
    // `pow` is most of a step's cost, and the static build's musl `pow` costs more), and kept in
    // that point's `trend` until the trend is made there: not a list of its own (0.3 MB).
    // Made last point first, so read in reverse.
    let mut acc = Sums::default();
    future.clear();
    future.push(acc);
    for i in (0..points.len().saturating_sub(1)).rev() {
        if let Some([a, b]) = points.get_mut(i..i + 2) {
            let dt = gap(a.t, b.t);
            b.trend = keep.powf(dt);
            acc = acc.with(b.value - base, b.n).shifted(dt, b.trend);
        }
        future.push(acc);
    }
    let mut past = Sums::default();
    let mut prev = None;
    for (p, f) in points.iter_mut().zip(future.iter().rev()) {
        if let Some(t0) = prev {
            past = past.shifted(-gap(t0, p.t), p.trend);
        }
        past = past.with(p.value - base, p.n);
        p.trend = finite_or(base + past.plus(f).level(), p.value);
        prev = Some(p.t);
    }
}

/// Weighted sums for a line fit around one point: Σw, Σw·x, Σw·x², Σw·y, Σw·x·y, with x the
/// distance in days from that point.
#[derive(Debug, Clone, Copy, Default)]
pub struct Sums {
    w: f64,
    wx: f64,
    wxx: f64,
    wy: f64,
    wxy: f64,
}

impl Sums {
    /// Adds a point at distance 0.
    fn with(self, y: f64, n: usize) -> Sums {
        let n = n.max(1) as f64;
        Sums { w: self.w + n, wy: self.wy + n * y, ..self }
    }

    /// Moves the origin so that every distance grows by `dx` days, and scales the weights by
    /// `decay` (the discount of `|dx|` more days).
    fn shifted(self, dx: f64, decay: f64) -> Sums {
        Sums {
            w: decay * self.w,
            wx: decay * (self.wx + dx * self.w),
            wxx: decay * (self.wxx + 2.0 * dx * self.wx + dx * dx * self.w),
            wy: decay * self.wy,
            wxy: decay * (self.wxy + dx * self.wy),
        }
    }

    fn plus(self, o: &Sums) -> Sums {
        Sums {
            w: self.w + o.w,
            wx: self.wx + o.wx,
            wxx: self.wxx + o.wxx,
            wy: self.wy + o.wy,
            wxy: self.wxy + o.wxy,
        }
    }

    /// The fitted line's value at distance 0; the weighted mean when the points cannot fix a
    /// slope (one point, or all at the same time).
    fn level(self) -> f64 {
        let det = self.w * self.wxx - self.wx * self.wx;
        if self.w <= 0.0 {
            return f64::NAN;
        }
        if det <= 1e-9 * self.w * self.wxx.max(f64::MIN_POSITIVE) {
            return self.wy / self.w;
        }
        let slope = (self.w * self.wxy - self.wx * self.wy) / det;
        (self.wy - slope * self.wx) / self.w
    }
}
