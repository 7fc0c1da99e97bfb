//! Daily activity from `getactivity`.
//!
//! `date` is already the user's local day (Withings computes it in the record's `timezone`).
//! There can be several rows per date, one per source (a watch and a phone app): they are kept
//! apart, never summed.
//!
//! Active minutes follow the reference (withings-api.md §3.2): Withings' own `active` field is
//! moderate + intense, so `active_minutes` = (moderate + intense) / 60 (falling back to `active`
//! when those are missing); `total_activity_minutes` also counts soft activity. Upstream took the
//! first non-empty field instead of a sum (upstream bug 9).
//!
//! `withings::wire::activity` reads a row; `tools::records::activity` shows it.

use crate::domain::time::{CivilDate, Instant};

/// One day of activity from one source.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ActivityDay {
    pub date: Option<CivilDate>,
    pub timezone: Option<String>,
    pub steps: Option<f64>,
    pub distance: Option<f64>,
    pub elevation: Option<f64>,
    pub soft: Option<f64>,
    pub moderate: Option<f64>,
    pub intense: Option<f64>,
    pub active: Option<f64>,
    pub calories: Option<f64>,
    pub totalcalories: Option<f64>,
    pub hr_average: Option<f64>,
    pub hr_min: Option<f64>,
    pub hr_max: Option<f64>,
    /// Seconds in the light, moderate, intense and maximal HR zones.
    pub hr_zones: [Option<f64>; 4],
    pub brand: Option<i64>,
    pub is_tracker: Option<bool>,
    pub model: Option<String>,
    pub modelid: Option<i64>,
    pub deviceid: Option<String>,
    pub hash_deviceid: Option<String>,
    pub modified: Option<Instant>,
}

impl ActivityDay {
    /// Minutes of moderate + intense activity (Withings' `active`), see the module docs.
    pub fn active_minutes(&self) -> Option<f64> {
        let secs = match (self.moderate, self.intense) {
            (None, None) => self.active?,
            (m, i) => m.unwrap_or(0.0) + i.unwrap_or(0.0),
        };
        Some((secs / 60.0).round())
    }

    /// Minutes of soft + moderate + intense activity.
    pub fn total_activity_minutes(&self) -> Option<f64> {
        let parts = [self.soft, self.moderate, self.intense];
        parts.iter().any(Option::is_some).then(|| (parts.iter().flatten().sum::<f64>() / 60.0).round())
    }

    /// "withings" for brand 1, "external" for 18 (Apple Health, Google Fit…).
    pub fn source(&self) -> Option<&'static str> {
        match self.brand? {
            1 => Some("withings"),
            18 => Some("external"),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minutes_and_source() {
        let day = |moderate, intense, active, soft| ActivityDay {
            moderate,
            intense,
            active,
            soft,
            ..ActivityDay::default()
        };
        // (1500 + 600) / 60 = 35, the same as Withings' `active` 2100 s; not just the first field.
        let full = day(Some(1500.0), Some(600.0), Some(2100.0), Some(3600.0));
        assert_eq!((full.active_minutes(), full.total_activity_minutes()), (Some(35.0), Some(95.0)));
        // Only Withings' own `active` field.
        assert_eq!(day(None, None, Some(600.0), None).active_minutes(), Some(10.0));
        let none = ActivityDay::default();
        assert_eq!((none.active_minutes(), none.total_activity_minutes(), none.source()), (None, None, None));
        let brand = |b| ActivityDay { brand: Some(b), ..ActivityDay::default() }.source();
        assert_eq!((brand(1), brand(18), brand(5)), (Some("withings"), Some("external"), None));
    }
}
