//! What `withings_trends` answers, as typed values: the structured content is these structs
//! serialised (field order is key order), and the markdown is rendered from the same values, so
//! the text cannot say something the JSON does not, and a misspelled field does not compile.

use serde::Serialize;
use std::fmt::Write as _;

/// A query window in the user's zone: civil days and the instants they span.
#[derive(Debug, Clone, Serialize)]
pub struct WindowOut {
    pub after: String,
    pub before: String,
    pub start: String,
    pub end: String,
    pub zone: String,
}

/// The whole answer.
#[derive(Debug, Clone, Serialize)]
pub struct TrendOut {
    pub metric: &'static str,
    /// The display unit of every value below ("" for unitless metrics).
    pub unit: String,
    pub units: &'static str,
    /// How the text shows the values: `unit`, except "st lb" (stones and pounds) for a body mass
    /// in UK units, whose numbers stay pounds here.
    pub display_unit: String,
    pub as_of: String,
    pub window: WindowOut,
    pub method: &'static str,
    pub description: &'static str,
    pub n_readings: usize,
    pub n_used: usize,
    pub n_rejected: usize,
    pub rejected: Vec<RejectedOut>,
    pub latest: Option<f64>,
    pub trend_change: Option<f64>,
    pub slope_per_week: Option<SlopeOut>,
    pub verdict: &'static str,
    pub reason: String,
    pub series: Vec<SeriesPoint>,
    pub series_step: usize,
    pub recomposition: Option<RecompositionOut>,
    pub sleep_regularity: Option<RegularityOut>,
}

#[derive(Debug, Clone, Serialize)]
pub struct RejectedOut {
    pub time: String,
    pub value: Option<f64>,
    pub reason: &'static str,
    pub median: Option<f64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct SlopeOut {
    pub value: Option<f64>,
    pub lower: Option<f64>,
    pub upper: Option<f64>,
    pub confidence: f64,
    pub unit: String,
    pub points: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct SeriesPoint {
    pub date: String,
    pub value: Option<f64>,
    pub trend: Option<f64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct RecompositionOut {
    pub method: &'static str,
    pub description: &'static str,
    pub class: &'static str,
    /// Absent (null) without enough readings: no change to report, not a change of zero.
    pub fat_mass_change: Option<f64>,
    pub lean_mass_change: Option<f64>,
    pub unit: String,
    /// A mass like the changes, in the same unit.
    pub band: Option<f64>,
    pub n_used: usize,
    pub n_rejected: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct RegularityOut {
    pub timing: Option<TimingOut>,
    pub sri: SriOut,
}

#[derive(Debug, Clone, Serialize)]
pub struct TimingOut {
    pub method: &'static str,
    pub bedtime_mean: String,
    pub wake_mean: String,
    pub bedtime_sd_minutes: f64,
    pub wake_sd_minutes: f64,
    pub nights: usize,
}

/// The Sleep Regularity Index, or why there is none.
#[derive(Debug, Clone, Serialize)]
pub struct SriOut {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub method: Option<&'static str>,
    pub value: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub days: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl TrendOut {
    /// The text a person reads.
    pub fn markdown(&self) -> String {
        let unit = self.unit.as_str();
        let w = &self.window;
        let mut md = format!(
            "# {} trend: {}\n\n{} → {} ({}), {} readings used, {} rejected.\n\n{}\n\n",
            self.metric,
            self.verdict.replace('_', " "),
            w.after,
            w.before,
            w.zone,
            self.n_used,
            self.n_rejected,
            self.reason,
        );
        // A mass in stones and pounds is said, not computed with: the slope stays in pounds.
        let stones = self.display_unit == "st lb";
        let quantity = |x: f64| match stones {
            true => crate::domain::units::stones(x),
            false => format!("{x} {unit}"),
        };
        if let Some(latest) = self.latest {
            let _ = writeln!(md, "- Latest trend value: {}", quantity(latest));
        }
        if let Some(c) = self.trend_change {
            let sign = if c > 0.0 { "+" } else { "" };
            let shown = match stones {
                true => format!("{sign}{}", crate::domain::units::stones(c)),
                false => format!("{c:+} {unit}"),
            };
            let _ = writeln!(md, "- Trend change over the window: {shown}");
        }
        if let Some(s) = &self.slope_per_week {
            let per = match unit {
                "" => "per week".to_string(),
                u => format!("{u}/week"),
            };
            let _ = writeln!(
                md,
                "- Slope: {} {per} (95% interval {} to {})",
                json_num(s.value),
                json_num(s.lower),
                json_num(s.upper)
            );
        }
        for r in &self.rejected {
            let value = match (r.value, stones) {
                (Some(x), true) => quantity(x),
                _ => format!("{} {unit}", json_num(r.value)),
            };
            let _ = writeln!(md, "- Rejected {}: {value} ({})", r.time, r.reason);
        }
        if let Some(r) = &self.recomposition {
            let mass = |x: Option<f64>| match (x, stones) {
                (Some(x), true) => crate::domain::units::stones(x),
                _ => format!("{} {}", json_num(x), r.unit),
            };
            let _ = writeln!(
                md,
                "- Body recomposition: {} (fat mass {}, lean mass {})",
                r.class.replace('_', " "),
                mass(r.fat_mass_change),
                mass(r.lean_mass_change),
            );
        }
        if let Some(t) = self.sleep_regularity.as_ref().and_then(|r| r.timing.as_ref()) {
            let _ = writeln!(
                md,
                "- Bedtime {} ± {} min, wake {} ± {} min",
                t.bedtime_mean,
                json_num(Some(t.bedtime_sd_minutes)),
                t.wake_mean,
                json_num(Some(t.wake_sd_minutes))
            );
        }
        if let Some(sri) = self.sleep_regularity.as_ref().and_then(|r| r.sri.value) {
            let _ = writeln!(md, "- Sleep Regularity Index: {sri} (100 = identical schedule every day)");
        }
        let _ = writeln!(md, "\nMethod: {}", self.description);
        md
    }
}

/// A number as the JSON shows it (`72.0`, `null`), so the text and the JSON read alike.
fn json_num(x: Option<f64>) -> String {
    serde_json::to_string(&x).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_as_in_the_json() {
        assert_eq!(json_num(Some(72.0)), "72.0");
        assert_eq!(json_num(Some(-0.35)), "-0.35");
        assert_eq!(json_num(None), "null");
        assert_eq!(json_num(Some(f64::NAN)), "null");
    }
}
