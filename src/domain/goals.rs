//! Goals from user v2 `getgoals` (withings-api.md §3.8) and the progress towards them.
//!
//! - Steps: each day of the window against the daily goal; the average counts complete days
//!   only, so this morning's few hundred steps do not drag it down.
//! - Sleep: each main sleep (naps aside) of the window against the nightly goal.
//! - Weight: the trend level of `withings_trends` (outliers out, smoothed without lag) against
//!   the goal, and an ETA from its slope, given only when the trend is a real change (the verdict
//!   is rising or falling) heading towards the goal.

use serde_json::Value;

use crate::domain::fields;
use crate::domain::measures::decode_value;
use crate::domain::time::{CivilDate, Instant, Zone};
use crate::domain::trends::{Trend, Verdict};

/// Within this many kg of the goal, the weight goal counts as reached.
pub const WEIGHT_REACHED_KG: f64 = 0.2;
/// ETAs further away than this are not given: a slope that slow says "not soon", not a date.
pub const MAX_ETA_WEEKS: f64 = 520.0;

/// The goals a person set; any may be missing.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Goals {
    pub steps: Option<f64>,
    /// Seconds asleep a night.
    pub sleep_secs: Option<f64>,
    pub weight_kg: Option<f64>,
}

/// Decodes a getgoals body: `goals` is an object, or `[]` when none is set; the weight goal is a
/// measure (`value × 10^unit` kg). A goal of zero or less is no goal.
pub fn decode_goals(body: &Value) -> Goals {
    let Some(g) = body.get("goals").filter(|g| g.is_object()) else { return Goals::default() };
    let weight = g.get("weight").filter(|w| w.is_object()).and_then(|w| {
        let unit = fields::int(w, "unit").unwrap_or(0).clamp(-300, 300) as i32;
        Some(decode_value(fields::int(w, "value")?, unit))
    });
    let positive = |v: Option<f64>| v.filter(|v| v.is_finite() && *v > 0.0);
    Goals {
        steps: positive(fields::num(g, "steps")),
        sleep_secs: positive(fields::num(g, "sleep")),
        weight_kg: positive(weight),
    }
}

/// One day (or night) against a goal.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Day {
    pub date: CivilDate,
    pub value: f64,
    pub met: bool,
    /// Today, still under way.
    pub partial: bool,
}

/// Progress towards a steps or sleep goal over a window.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    pub goal: f64,
    pub days: Vec<Day>,
    /// Complete days (or nights) with a value, and how many met the goal.
    pub counted: usize,
    pub met: usize,
    /// Mean over the counted days; `None` without any.
    pub average: Option<f64>,
}

/// Checks each day against `goal`. `values` are (date, value) pairs. A day from `open` on is still
/// under way (today's steps; `None` for nights, which are over once summarised): it is left out of
/// the average unless its goal is already met (then it is complete enough).
pub fn progress(goal: f64, values: &[(CivilDate, f64)], open: Option<CivilDate>) -> Progress {
    let mut days: Vec<Day> = values
        .iter()
        .map(|&(date, value)| {
            let met = value >= goal;
            Day { date, value, met, partial: open.is_some_and(|o| date >= o) && !met }
        })
        .collect();
    crate::sort::by(&mut days, |a, b| b.date.cmp(&a.date));
    let counted: Vec<&Day> = days.iter().filter(|d| !d.partial).collect();
    let average =
        (!counted.is_empty()).then(|| counted.iter().map(|d| d.value).sum::<f64>() / counted.len() as f64);
    let met = counted.iter().filter(|d| d.met).count();
    Progress { goal, counted: counted.len(), met, average, days }
}

/// One value per day, the largest where a day has several (a watch and a phone both count steps;
/// a night and a second sleep share a date), oldest first.
pub fn best_per_day(mut values: Vec<(CivilDate, f64)>) -> Vec<(CivilDate, f64)> {
    crate::sort::by(&mut values, |a, b| a.0.cmp(&b.0).then(b.1.total_cmp(&a.1)));
    values.dedup_by_key(|v| v.0);
    values
}

/// Where the weight trend stands against the goal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WeightStatus {
    /// The trend level is within [`WEIGHT_REACHED_KG`] of the goal.
    Reached,
    /// A real change towards the goal: there is an ETA.
    OnTrack,
    /// A real change away from the goal.
    MovingAway,
    /// No change outside the noise.
    Stable,
    /// Too few weigh-ins for a trend.
    NotEnoughData,
}

impl WeightStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            WeightStatus::Reached => "reached",
            WeightStatus::OnTrack => "on_track",
            WeightStatus::MovingAway => "moving_away",
            WeightStatus::Stable => "stable",
            WeightStatus::NotEnoughData => "not_enough_data",
        }
    }
}

/// Progress towards the weight goal, in kg.
#[derive(Debug, Clone, PartialEq)]
pub struct WeightProgress {
    pub goal_kg: f64,
    /// The trend level at the latest weigh-in, and when that was.
    pub level_kg: Option<f64>,
    pub level_at: Option<Instant>,
    /// Goal minus level: negative when there is weight to lose.
    pub to_go_kg: Option<f64>,
    pub slope_kg_per_week: Option<f64>,
    pub status: WeightStatus,
    pub weeks_to_goal: Option<f64>,
    pub eta: Option<CivilDate>,
}

/// The weight goal against the trend (see the module docs).
pub fn weight_progress(goal_kg: f64, trend: &Trend, zone: &Zone) -> WeightProgress {
    let level = trend.latest;
    let slope = trend.slope.as_ref().map(|s| s.per_week);
    let to_go = level.map(|l| goal_kg - l);
    let mut out = WeightProgress {
        goal_kg,
        level_kg: level,
        level_at: trend.last_t.map(Instant),
        to_go_kg: to_go,
        slope_kg_per_week: slope,
        status: WeightStatus::NotEnoughData,
        weeks_to_goal: None,
        eta: None,
    };
    let (Some(to_go), Some(at)) = (to_go, trend.last_t) else { return out };
    if to_go.abs() <= WEIGHT_REACHED_KG {
        out.status = WeightStatus::Reached;
        return out;
    }
    out.status = match (trend.verdict, slope) {
        (Verdict::NotEnoughData, _) | (_, None) => WeightStatus::NotEnoughData,
        (Verdict::Stable, _) => WeightStatus::Stable,
        (_, Some(s)) if s * to_go > 0.0 => WeightStatus::OnTrack,
        _ => WeightStatus::MovingAway,
    };
    if let (WeightStatus::OnTrack, Some(s)) = (out.status, slope) {
        let weeks = to_go / s;
        if weeks.is_finite() && weeks <= MAX_ETA_WEEKS {
            out.weeks_to_goal = Some(weeks);
            out.eta = Some(zone.local_date(Instant(at + (weeks * 7.0 * 86_400.0).round() as i64)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::trends::{Reading, Window, analyze, standard_params};

    fn date(s: &str) -> CivilDate {
        CivilDate::parse(s).unwrap()
    }

    #[test]
    fn goals_fixtures_and_shapes() {
        let body = |text: &str| serde_json::from_str::<Value>(text).unwrap()["body"].clone();
        let g = decode_goals(&body(include_str!("../../fixtures/withings/user_v2_getgoals.json")));
        assert_eq!(g, Goals { steps: Some(9000.0), sleep_secs: Some(27000.0), weight_kg: Some(70.0) });
        let none = decode_goals(&body(include_str!("../../fixtures/withings/user_v2_getgoals_none.json")));
        assert_eq!(none, Goals::default());
        let odd = decode_goals(&body(r#"{"body":{"goals":{"steps":"8000","sleep":0,"weight":[]}}}"#));
        assert_eq!(odd, Goals { steps: Some(8000.0), sleep_secs: None, weight_kg: None });
    }

    #[test]
    fn steps_progress_counts_complete_days() {
        let today = date("2026-03-15");
        let values = [
            (date("2026-03-13"), 9500.0),
            (date("2026-03-14"), 7000.0),
            (date("2026-03-15"), 1200.0),
            (date("2026-03-12"), 11_000.0),
        ];
        let p = progress(9000.0, &values, Some(today));
        let order: Vec<String> = p.days.iter().map(|d| d.date.to_string()).collect();
        assert_eq!(order, ["2026-03-15", "2026-03-14", "2026-03-13", "2026-03-12"], "newest first");
        assert_eq!((p.counted, p.met), (3, 2));
        assert_eq!(p.average, Some((9500.0 + 7000.0 + 11_000.0) / 3.0));
        assert!(p.days[0].partial && !p.days[1].partial);
        // Today counts once its goal is met.
        let p = progress(1000.0, &values, Some(today));
        assert_eq!((p.counted, p.met), (4, 4));
        assert_eq!(progress(1.0, &[], Some(today)).average, None);
        // Nights are over once summarised: last night counts even when short.
        let p = progress(9000.0, &values, None);
        assert_eq!((p.counted, p.met), (4, 2));
    }

    #[test]
    fn the_best_value_of_each_day() {
        let d = |s: &str| date(s);
        let got = best_per_day(vec![
            (d("2026-03-02"), 5.0),
            (d("2026-03-01"), 7.0),
            (d("2026-03-02"), 9.0),
            (d("2026-03-02"), 1.0),
        ]);
        assert_eq!(got, [(d("2026-03-01"), 7.0), (d("2026-03-02"), 9.0)]);
    }

    /// A trend through daily weights: `start` kg, changing `per_week` kg a week, over `days`.
    fn trend(start: f64, per_week: f64, days: i64) -> Trend {
        let readings: Vec<Reading> =
            (0..days).map(|d| Reading { t: d * 86_400, value: start + per_week * d as f64 / 7.0 }).collect();
        let params = standard_params(0.1, 0.3, None);
        analyze(&readings, Window { start: 0, end: days * 86_400 }, &params)
    }

    #[test]
    fn weight_eta_only_towards_the_goal() {
        let z = Zone::utc();
        // Losing 0.5 kg a week from 80 kg over 8 weeks: level 80 - 0.5 × 55/7 ≈ 76.07 at day 55,
        // so 1.07 kg (15/7 weeks) to go.
        let losing = trend(80.0, -0.5, 56);
        let p = weight_progress(75.0, &losing, &z);
        assert_eq!(p.status, WeightStatus::OnTrack);
        let weeks = p.weeks_to_goal.unwrap();
        assert!((weeks - 15.0 / 7.0).abs() < 0.05, "{weeks}");
        assert_eq!(p.eta, Some(z.local_date(Instant(55 * 86_400 + (weeks * 7.0 * 86_400.0).round() as i64))));
        assert!(p.to_go_kg.unwrap() < 0.0);
        // The same trend away from a higher goal.
        let p = weight_progress(85.0, &losing, &z);
        assert_eq!((p.status, p.eta), (WeightStatus::MovingAway, None));
        // Reached, stable, too few weigh-ins.
        assert_eq!(weight_progress(76.2, &losing, &z).status, WeightStatus::Reached);
        assert_eq!(weight_progress(70.0, &trend(80.0, 0.0, 56), &z).status, WeightStatus::Stable);
        let few = trend(80.0, -0.5, 2);
        assert_eq!(weight_progress(70.0, &few, &z).status, WeightStatus::NotEnoughData);
        assert_eq!(weight_progress(70.0, &trend(80.0, 0.0, 0), &z).level_kg, None);
        // A goal more than ten years away at this pace gives no date.
        let slow = weight_progress(-300.0, &losing, &z);
        assert_eq!((slow.status, slow.eta), (WeightStatus::OnTrack, None));
    }
}
