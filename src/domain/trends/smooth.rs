//! The trend line drawn through the kept readings of a series.

use crate::domain::trends::SmoothedPoint;
use crate::domain::trends::stats::{days_between, finite_or};

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
