//! Trend charts: what to show ([`ChartSpec`]), where everything goes ([`layout::Layout`],
//! computed once), and two renderers of that one layout: SVG text ([`svg`]) and a PNG picture
//! ([`raster`]). Pure: values arrive already in the display unit, ticks already labelled.

pub mod layout;
pub mod raster;
pub mod svg;

pub use layout::{day_ticks, nice_scale};

/// One plotted value at Unix seconds `t`, in the display unit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChartPoint {
    pub t: i64,
    pub value: f64,
}

/// A labelled position on the time axis (e.g. local midnight and "Mar 12").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct XTick {
    pub t: i64,
    pub label: String,
}

/// Everything the chart shows. Non-finite values are skipped.
#[derive(Debug, Clone, PartialEq)]
pub struct ChartSpec {
    /// Pixels; clamped to 320..=4000 and 160..=3000. Text and strokes scale with the size, so
    /// 800×400 and a 400×200 thumbnail both read well.
    pub width: u32,
    pub height: u32,
    pub title: String,
    /// A second line under the title (e.g. the window and zone); empty for none.
    pub subtitle: String,
    /// The y-axis label, including the unit: "Weight (kg)".
    pub y_label: String,
    /// Labelled time positions; ticks outside the data range are dropped and crowded labels
    /// thinned. See [`day_ticks`] for choosing them.
    pub x_ticks: Vec<XTick>,
    pub readings: Vec<ChartPoint>,
    /// Drawn as red crosses; ones beyond the y range (a 700 kg weigh-in) sit on the edge as red
    /// triangles instead of squashing the scale.
    pub rejected: Vec<ChartPoint>,
    pub trend: Vec<ChartPoint>,
    /// Half-width of the noise band shaded around the trend (one robust SD of the readings
    /// around it), in the display unit; 0 for none.
    pub noise: f64,
    /// Synthetic data: the picture says "demo".
    pub demo: bool,
}

/// Trend gaps longer than this are drawn dashed: the trend is only known where readings are.
pub const TREND_GAP_SECS: i64 = 14 * 86_400;

/// A chart every renderer's tests share: 70 days of a steady loss with noise, three rejected
/// weigh-ins (one plausible-looking, two far off scale) and a lagging
/// exponential moving average as the trend.
#[cfg(test)]
pub mod testdata {
    use super::*;

    pub const DAY: i64 = 86_400;
    /// 2026-01-01T00:00:00Z, day 20454.
    pub const T0: i64 = 1_767_225_600;

    pub fn noise(n: usize) -> Vec<f64> {
        let mut x: u64 = 99;
        (0..n)
            .map(|_| {
                x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                ((x >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * 1.2
            })
            .collect()
    }

    pub fn sample() -> ChartSpec {
        let n = 70;
        let e = noise(n);
        let readings: Vec<ChartPoint> = (0..n)
            .map(|d| ChartPoint {
                t: T0 + d as i64 * DAY + 7 * 3600,
                value: 84.0 - 0.6 / 7.0 * d as f64 + e[d],
            })
            .collect();
        let mut trend = Vec::new();
        let mut s = readings[0].value;
        for p in &readings {
            s += 0.1 * (p.value - s);
            trend.push(ChartPoint { t: p.t, value: s });
        }
        let rejected = vec![
            ChartPoint { t: T0 + 40 * DAY + 8 * 3600, value: 84.4 },
            ChartPoint { t: T0 + 41 * DAY + 8 * 3600, value: 700.0 },
            ChartPoint { t: T0 + 55 * DAY + 8 * 3600, value: 7.0 },
        ];
        let x_ticks = day_ticks(20454, 20454 + n as i64, 10)
            .into_iter()
            .map(|d| XTick { t: d * DAY, label: format!("day {}", d - 20454) })
            .collect();
        ChartSpec {
            width: 800,
            height: 400,
            title: "Weight — trend <falling> & steady".to_string(),
            subtitle: "falling −0.60 kg/week (95% −0.66 to −0.54), 70 readings, 3 rejected".to_string(),
            y_label: "Weight (kg)".to_string(),
            x_ticks,
            readings,
            rejected,
            trend,
            noise: 0.45,
            demo: false,
        }
    }
}
