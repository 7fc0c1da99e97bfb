//! The weekly brief: aggregates over a window of days, deltas against the prior window, load
//! classification, bottlenecks with their evidence, and a next-week plan from the person's baseline.

use serde::Serialize;

use crate::domain::summary::markdown::md;
use crate::domain::summary::{
    Action, DOMAINS, DomainState, Evidence, Fig, Fresh, Inputs, Keyed, Kg, Night, SAFETY, Safety,
    activity_of, at_or_above_130_80, bedtime_target, clock, domain_quality, fin, freshness, int, main_sleep,
    mean, median, num, spread, unwrap_bedtime,
};

/// A window needs data on at least this share of its days (and at least 3 days) before its
/// averages are used to classify load or set targets.
const MIN_COVERAGE: f64 = 0.4;

/// The longest window (and comparison window) a weekly brief covers.
pub const MAX_WINDOW_DAYS: i64 = 366;

/// The weekly brief as the tool answers it (its `structuredContent`, field order as key order);
/// the markdown renders from the same value.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Weekly {
    pub kind: &'static str,
    /// `ok`, `partial`, `no_data` or `unavailable`.
    pub status: &'static str,
    pub window: WindowOut,
    pub scorecard: Scorecard,
    pub diagnostic: Diagnostic,
    pub data_quality: Quality,
    pub freshness: Keyed<Fresh>,
    pub safety: Safety,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WindowOut {
    pub start: String,
    pub end: String,
    pub days: i64,
    pub compare_days: i64,
    pub previous_start: Option<String>,
    pub previous_end: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Scorecard {
    pub current: Period,
    pub previous: Option<Period>,
    /// Per compared metric, in [`Agg::metrics`] order.
    pub delta: Option<Keyed<Delta>>,
}

/// One window's figures, rounded as shown (masses kept whole for display, see [`Kg`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Period {
    pub start: String,
    pub end: String,
    pub days: usize,
    pub days_with_activity: usize,
    pub nights_with_sleep: usize,
    pub days_with_weight: usize,
    pub avg_steps: Option<i64>,
    pub median_steps: Option<i64>,
    pub total_steps: Option<i64>,
    pub avg_active_minutes: Option<i64>,
    pub avg_distance_km: Option<f64>,
    pub avg_active_calories_kcal: Option<i64>,
    pub avg_sleep_hours: Option<f64>,
    pub avg_sleep_score: Option<f64>,
    pub nights_with_score: usize,
    pub avg_sleep_efficiency_pct: Option<f64>,
    pub avg_bedtime: Option<String>,
    pub bedtime_spread_min: Option<i64>,
    pub avg_wake_time: Option<String>,
    pub avg_sleep_hr_bpm: Option<f64>,
    pub avg_resting_hr_bpm: Option<f64>,
    pub naps: usize,
    pub weighins: usize,
    pub first_weight: Option<DatedWeight>,
    pub latest_weight: Option<DatedWeight>,
    pub latest_weight_kg: Kg<2>,
    /// To the gram, so that a change shown in pounds converts kilograms, not rounded ones.
    pub weight_change_kg: Kg<3>,
    pub weight_change_method: Option<&'static str>,
    pub avg_fat_ratio_pct: Option<f64>,
    pub bp_readings: usize,
    pub avg_systolic_mmhg: Option<f64>,
    pub avg_diastolic_mmhg: Option<f64>,
    pub ecg_recordings: usize,
    pub ecg_afib: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DatedWeight {
    pub date: String,
    pub weight_kg: Kg<2>,
}

/// A metric on both sides, as shown (rounded), and their difference.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Delta {
    pub current: f64,
    pub previous: f64,
    pub change: f64,
    pub change_pct: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Diagnostic {
    pub load_classification: &'static str,
    pub load_basis: String,
    pub bottlenecks: Vec<Bottleneck>,
    pub next_week_plan: Vec<PlanItem>,
    pub action_candidates: Vec<Action>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Bottleneck {
    pub area: &'static str,
    pub issue: &'static str,
    pub summary: String,
    pub evidence: Evidence,
}

/// A plan item: its target and reason in words, and every number they print in `evidence`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlanItem {
    pub area: &'static str,
    pub target: String,
    pub why: String,
    pub evidence: Evidence,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Quality {
    pub confidence: &'static str,
    pub confidence_reasons: Vec<String>,
    pub coverage: Coverage,
    pub failed: Vec<&'static str>,
    pub domains: Keyed<DomainState>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Coverage {
    pub nights_with_sleep: usize,
    pub days_with_activity: usize,
    pub activity_days_considered: usize,
    pub days_with_weight: usize,
    pub sleep_pct: Option<f64>,
    pub activity_pct: Option<f64>,
}

/// The weekly brief: the `days` days ending `today` inclusive, compared with the `compare_days`
/// days before them (0 = no comparison). Today's activity is left out of averages because the
/// day is still in progress; last night's sleep (it woke up today) is complete and counts.
pub fn weekly(
    inputs: &Inputs,
    today: i64,
    days: i64,
    compare_days: i64,
    label: &dyn Fn(i64) -> String,
) -> Weekly {
    // The tool layer validates its arguments; the clamp only keeps a stray caller from looping
    // over millions of days.
    let days = days.clamp(1, MAX_WINDOW_DAYS);
    let compare_days = compare_days.clamp(0, MAX_WINDOW_DAYS);
    let start = today - days + 1;
    let cur = aggregate(inputs, start, today, today);
    let prev = match compare_days {
        0 => None,
        c => Some(aggregate(inputs, start - c, start - 1, today)),
    };
    let failed: Vec<&'static str> = DOMAINS.iter().copied().filter(|d| inputs.failure(d).is_some()).collect();
    let (load_classification, load_basis) = load(&cur);
    let bottlenecks = bottlenecks(inputs, &cur, prev.as_ref());
    let next_week_plan = plan(inputs, &cur);
    let action_candidates = actions(&bottlenecks, &failed, inputs);
    let (confidence, confidence_reasons) = confidence(&cur, &failed);
    let any = cur.nights > 0 || cur.activity_days > 0 || cur.weighins > 0 || cur.bp_readings > 0;
    let status = match (failed.len(), any) {
        (n, _) if n == DOMAINS.len() => "unavailable",
        (_, false) => "no_data",
        (0, true) => "ok",
        (_, true) => "partial",
    };
    let from = prev.as_ref().map(|p| p.start).unwrap_or(start);
    Weekly {
        kind: "weekly_summary",
        status,
        window: WindowOut {
            start: label(start),
            end: label(today),
            days,
            compare_days,
            previous_start: prev.as_ref().map(|p| label(p.start)),
            previous_end: prev.as_ref().map(|p| label(p.end)),
        },
        scorecard: Scorecard {
            current: cur.period(label),
            previous: prev.as_ref().map(|p| p.period(label)),
            delta: prev.as_ref().map(|p| deltas(&cur, p)),
        },
        diagnostic: Diagnostic {
            load_classification,
            load_basis,
            bottlenecks,
            next_week_plan,
            action_candidates,
        },
        data_quality: Quality {
            confidence,
            confidence_reasons,
            coverage: Coverage {
                nights_with_sleep: cur.nights,
                days_with_activity: cur.activity_days,
                activity_days_considered: cur.activity_span,
                days_with_weight: cur.weight_days,
                sleep_pct: num(pct(cur.nights, cur.days), 0),
                activity_pct: num(pct(cur.activity_days, cur.activity_span), 0),
            },
            failed,
            domains: domain_quality(inputs, from, today),
        },
        freshness: freshness(inputs, today, label),
        safety: SAFETY,
    }
}

fn pct(n: usize, of: usize) -> Option<f64> {
    match of {
        0 => None,
        _ => Some(n as f64 / of as f64 * 100.0),
    }
}

/// Aggregates of one window. Every average is over the days or nights that have the value.
#[derive(Debug, Clone, Default)]
struct Agg {
    start: i64,
    end: i64,
    days: usize,
    /// Days whose activity counts: the window minus today, which is still in progress.
    activity_span: usize,
    activity_days: usize,
    steps: Vec<f64>,
    active_min: Vec<f64>,
    distance_km: Vec<f64>,
    calories: Vec<f64>,
    nights: usize,
    naps: usize,
    sleep_h: Vec<f64>,
    scores: Vec<f64>,
    efficiency: Vec<f64>,
    bedtimes: Vec<f64>,
    wake_times: Vec<f64>,
    sleep_hr: Vec<f64>,
    resting_hr: Vec<f64>,
    weighins: usize,
    weight_days: usize,
    /// (day, t, kg), oldest first.
    weights: Vec<(i64, i64, f64)>,
    fat_ratio: Vec<f64>,
    bp_readings: usize,
    sys: Vec<f64>,
    dia: Vec<f64>,
    ecgs: usize,
    afib: usize,
}

fn aggregate(inputs: &Inputs, start: i64, end: i64, today: i64) -> Agg {
    let mut a = Agg { start, end, days: (end - start + 1).max(0) as usize, ..Agg::default() };
    let nights: &[Night] = inputs.nights.items();
    for day in start..=end {
        if day != today {
            a.activity_span += 1;
            if let Some(act) = activity_of(inputs.activity.items(), day) {
                a.activity_days += 1;
                a.steps.extend(fin(act.steps));
                a.active_min.extend(fin(act.active_s).map(|s| s / 60.0));
                a.distance_km.extend(fin(act.distance_m).map(|m| m / 1000.0));
                a.calories.extend(fin(act.calories));
            }
        }
        if let Some(n) = main_sleep(nights, day) {
            a.nights += 1;
            a.sleep_h.extend(fin(n.asleep_s).map(|s| s / 3600.0));
            a.scores.extend(fin(n.score));
            if let (Some(s), Some(w)) = (fin(n.asleep_s), fin(n.awake_s))
                && s + w > 0.0
            {
                a.efficiency.push(s / (s + w) * 100.0);
            }
            a.bedtimes.push(unwrap_bedtime(n.bedtime_local_s));
            a.wake_times.push(n.wake_local_s.rem_euclid(86_400) as f64);
            a.sleep_hr.extend(fin(n.hr_average));
            a.resting_hr.extend(fin(n.hr_min));
        }
    }
    let inr = |d: i64| d >= start && d <= end;
    a.naps = nights.iter().filter(|n| n.nap && inr(n.day)).count();
    let own: Vec<_> = inputs.own_weighins().into_iter().filter(|w| inr(w.day)).collect();
    a.weighins = own.len();
    let mut wd: Vec<i64> = own.iter().map(|w| w.day).collect();
    wd.dedup();
    a.weight_days = wd.len();
    a.weights = own.iter().filter_map(|w| fin(w.weight_kg).map(|kg| (w.day, w.t, kg))).collect();
    a.fat_ratio = own.iter().filter_map(|w| fin(w.fat_ratio_pct)).collect();
    let bps: Vec<_> = inputs.bp_readings().into_iter().filter(|b| inr(b.day)).collect();
    a.bp_readings = bps.len();
    a.sys = bps.iter().map(|b| b.sys).collect();
    a.dia = bps.iter().map(|b| b.dia).collect();
    let ecg: Vec<_> = inputs.heart.items().iter().filter(|h| inr(h.day) && h.ecg.is_some()).collect();
    a.ecgs = ecg.len();
    a.afib = ecg.iter().filter(|h| h.ecg.as_deref() == Some("afib")).count();
    a
}

/// Weight change over a window: last minus first weigh-in, or, with six or more weigh-ins, the
/// median of the last three minus the median of the first three (one odd reading moves it less).
fn weight_change(w: &[(i64, i64, f64)]) -> Option<(f64, &'static str)> {
    let kg: Vec<f64> = w.iter().map(|x| x.2).collect();
    match kg.len() {
        0 | 1 => None,
        n if n >= 6 => {
            Some((median(kg.get(n - 3..)?)? - median(kg.get(..3)?)?, "median_of_last_3_minus_first_3"))
        }
        n => Some((kg.get(n - 1)? - kg.first()?, "last_minus_first")),
    }
}

impl Agg {
    fn avg_steps(&self) -> Option<f64> {
        mean(&self.steps)
    }

    fn avg_sleep(&self) -> Option<f64> {
        mean(&self.sleep_h)
    }

    fn latest_weight(&self) -> Option<f64> {
        self.weights.last().map(|w| w.2)
    }

    /// The numbers compared between windows, with their rounding.
    fn metrics(&self) -> Vec<(&'static str, Option<f64>, i32)> {
        vec![
            ("avg_steps", self.avg_steps(), 0),
            ("avg_active_minutes", mean(&self.active_min), 0),
            ("avg_sleep_hours", self.avg_sleep(), 2),
            ("avg_sleep_score", mean(&self.scores), 1),
            ("avg_sleep_efficiency_pct", mean(&self.efficiency), 1),
            ("avg_resting_hr_bpm", mean(&self.resting_hr), 1),
            ("latest_weight_kg", self.latest_weight(), 2),
            ("avg_systolic_mmhg", mean(&self.sys), 1),
            ("avg_diastolic_mmhg", mean(&self.dia), 1),
        ]
    }

    fn period(&self, label: &dyn Fn(i64) -> String) -> Period {
        let change = weight_change(&self.weights);
        let dated = |w: &(i64, i64, f64)| DatedWeight { date: label(w.0), weight_kg: Kg(Some(w.2)) };
        Period {
            start: label(self.start),
            end: label(self.end),
            days: self.days,
            days_with_activity: self.activity_days,
            nights_with_sleep: self.nights,
            days_with_weight: self.weight_days,
            avg_steps: int(self.avg_steps()),
            median_steps: int(median(&self.steps)),
            total_steps: int((!self.steps.is_empty()).then(|| self.steps.iter().sum())),
            avg_active_minutes: int(mean(&self.active_min)),
            avg_distance_km: num(mean(&self.distance_km), 2),
            avg_active_calories_kcal: int(mean(&self.calories)),
            avg_sleep_hours: num(self.avg_sleep(), 2),
            avg_sleep_score: num(mean(&self.scores), 1),
            nights_with_score: self.scores.len(),
            avg_sleep_efficiency_pct: num(mean(&self.efficiency), 1),
            avg_bedtime: mean(&self.bedtimes).map(|s| clock(s.round() as i64)),
            bedtime_spread_min: int(self.bedtime_spread()),
            avg_wake_time: mean(&self.wake_times).map(|s| clock(s.round() as i64)),
            avg_sleep_hr_bpm: num(mean(&self.sleep_hr), 1),
            avg_resting_hr_bpm: num(mean(&self.resting_hr), 1),
            naps: self.naps,
            weighins: self.weighins,
            first_weight: self.weights.first().map(dated),
            latest_weight: self.weights.last().map(dated),
            latest_weight_kg: Kg(self.latest_weight()),
            weight_change_kg: Kg(change.map(|c| c.0)),
            weight_change_method: change.map(|c| c.1),
            avg_fat_ratio_pct: num(mean(&self.fat_ratio), 1),
            bp_readings: self.bp_readings,
            avg_systolic_mmhg: num(mean(&self.sys), 1),
            avg_diastolic_mmhg: num(mean(&self.dia), 1),
            ecg_recordings: self.ecgs,
            ecg_afib: self.afib,
        }
    }

    /// How far bedtimes stray from their mean (minutes), with two nights or more.
    fn bedtime_spread(&self) -> Option<f64> {
        match self.bedtimes.len() {
            0 | 1 => None,
            _ => spread(&self.bedtimes).map(|s| s / 60.0),
        }
    }

    /// Enough nights of sleep to describe the window.
    fn sleep_ok(&self) -> bool {
        enough(self.sleep_h.len(), self.days)
    }

    fn steps_ok(&self) -> bool {
        enough(self.steps.len(), self.activity_span)
    }
}

fn enough(n: usize, of: usize) -> bool {
    n >= 3.min(of.max(1)) && n as f64 >= MIN_COVERAGE * of as f64
}

/// Deltas for every metric present on both sides; `change_pct` only when the previous value is not 0.
fn deltas(cur: &Agg, prev: &Agg) -> Keyed<Delta> {
    let mut out = Vec::new();
    for ((name, c, dp), (_, p, _)) in cur.metrics().into_iter().zip(prev.metrics()) {
        // Compare the rounded values the person sees, so the numbers add up on screen.
        if let (Some(c), Some(p)) = (num(c, dp), num(p, dp)) {
            let change_pct = match p {
                0.0 => None,
                _ => num(Some((c - p) / p.abs() * 100.0), 1),
            };
            let change = num(Some(c - p), dp).unwrap_or(0.0);
            out.push((name, Delta { current: c, previous: p, change, change_pct }));
        }
    }
    Keyed(out)
}

/// "5 of 7 nights", "1 of 1 complete day", and "no complete day yet" rather than "0 of 0".
fn k_of_n(k: usize, n: usize, noun: &str) -> String {
    match n {
        0 => format!("no {noun} yet"),
        _ => format!("{k} of {}", md::count(n as f64, noun)),
    }
}

fn load(cur: &Agg) -> (&'static str, String) {
    let steps = cur.avg_steps().filter(|_| cur.steps_ok());
    let sleep = cur.avg_sleep().filter(|_| cur.sleep_ok());
    let basis = format!(
        "{} over {}; {} over {}",
        sleep.map(|h| format!("average sleep {}", md::hm(h))).unwrap_or_else(|| "sleep too sparse".into()),
        k_of_n(cur.sleep_h.len(), cur.days, "night"),
        steps.map(|s| format!("average {} steps", md::n(s, 0))).unwrap_or_else(|| "steps too sparse".into()),
        k_of_n(cur.steps.len(), cur.activity_span, "complete day"),
    );
    let class = match (steps, sleep) {
        (None, None) => "insufficient_data",
        (Some(st), Some(sl)) if st >= 12_000.0 && sl < 6.5 => "high_activity_low_sleep",
        (_, Some(sl)) if sl < 6.5 => "sleep_limited",
        (Some(st), Some(sl)) if st >= 8000.0 && sl >= 7.0 => "good_base",
        (Some(st), _) if st < 5000.0 => "low_activity",
        _ => "neutral",
    };
    (class, basis)
}

/// Evidence from (name, figure) pairs.
fn ev<const N: usize>(figs: [(&'static str, Fig); N]) -> Evidence {
    Keyed(figs.into())
}

fn real(x: Option<f64>, dp: i32) -> Fig {
    Fig::Real(num(x, dp))
}

fn whole(x: Option<f64>) -> Fig {
    Fig::Int(int(x))
}

fn bottleneck(area: &'static str, issue: &'static str, summary: String, evidence: Evidence) -> Bottleneck {
    Bottleneck { area, issue, summary, evidence }
}

/// What holds the week back, each with its evidence: unreadable domains, then sleep, changes
/// against the previous window, activity, weigh-ins and blood pressure.
fn bottlenecks(inputs: &Inputs, cur: &Agg, prev: Option<&Agg>) -> Vec<Bottleneck> {
    let mut out = Vec::new();
    for d in DOMAINS {
        if let Some(why) = inputs.failure(d) {
            out.push(bottleneck(
                "data",
                "domain_unavailable",
                format!("{} data could not be read", d.replace('_', " ")),
                ev([("domain", Fig::Text(Some(d.into()))), ("reason", Fig::Text(Some(why.into())))]),
            ));
        }
    }
    out.extend(sleep_bottlenecks(cur));
    if let Some(p) = prev {
        out.extend(declines(cur, p));
    }
    out.extend(activity_bottlenecks(inputs, cur));
    // Only flag missing weigh-ins for someone who uses a scale at all.
    let uses_scale = !inputs.own_weighins().is_empty();
    if uses_scale && cur.weight_days < 3 && inputs.weighins.failure().is_none() {
        out.push(bottleneck(
            "body",
            "sparse_weighins",
            format!("Weighed in on {}", k_of_n(cur.weight_days, cur.days, "day")),
            ev([("days_with_weight", cur.weight_days.into()), ("days", cur.days.into())]),
        ));
    }
    if cur.sys.len() >= 2
        && let (Some(s), Some(d)) = (mean(&cur.sys), mean(&cur.dia))
        && at_or_above_130_80(s, d)
    {
        out.push(bottleneck(
            "blood_pressure",
            "elevated_average",
            format!(
                "Blood pressure averages {}/{} mmHg ({})",
                md::n(s, 0),
                md::n(d, 0),
                crate::domain::summary::markdown::bp_over(s, d)
            ),
            ev([
                ("avg_systolic_mmhg", real(Some(s), 1)),
                ("avg_diastolic_mmhg", real(Some(d), 1)),
                ("readings", cur.sys.len().into()),
            ]),
        ));
    }
    out
}

/// Short, irregular, inefficient or poorly scored sleep; or too few nights to tell.
fn sleep_bottlenecks(cur: &Agg) -> Vec<Bottleneck> {
    let mut out = Vec::new();
    if cur.sleep_ok() {
        let avg = cur.avg_sleep().unwrap_or(0.0);
        if avg < 6.5 {
            out.push(bottleneck(
                "sleep",
                "short_sleep",
                format!("Average sleep {} is below 6 h 30 min", md::hm(avg)),
                ev([("avg_sleep_hours", real(Some(avg), 2)), ("nights", cur.sleep_h.len().into())]),
            ));
        }
        if let Some(sp) = spread(&cur.bedtimes).map(|s| s / 60.0).filter(|s| *s > 60.0) {
            out.push(bottleneck(
                "sleep",
                "irregular_bedtime",
                format!("Bedtime varies by about {} min from night to night", md::n(sp, 0)),
                ev([
                    ("bedtime_spread_min", whole(Some(sp))),
                    ("avg_bedtime", Fig::Text(mean(&cur.bedtimes).map(|s| clock(s.round() as i64)))),
                    ("nights", cur.bedtimes.len().into()),
                ]),
            ));
        }
        if let Some(e) = mean(&cur.efficiency).filter(|e| *e < 85.0) {
            out.push(bottleneck(
                "sleep",
                "low_efficiency",
                format!("Sleep efficiency averages {} %, below 85 %", md::n(e, 1)),
                ev([("avg_sleep_efficiency_pct", real(Some(e), 1)), ("nights", cur.efficiency.len().into())]),
            ));
        }
    } else if cur.nights < cur.days {
        out.push(bottleneck(
            "data",
            "sparse_sleep",
            format!("Sleep recorded on {} of {} nights", cur.nights, cur.days),
            ev([("nights_with_sleep", cur.nights.into()), ("days", cur.days.into())]),
        ));
    }
    if cur.scores.len() >= 3
        && let Some(s) = mean(&cur.scores).filter(|s| *s < 65.0)
    {
        out.push(bottleneck(
            "sleep",
            "low_sleep_score",
            format!("Sleep score averages {}", md::n(s, 1)),
            ev([("avg_sleep_score", real(Some(s), 1)), ("nights_with_score", cur.scores.len().into())]),
        ));
    }
    out
}

/// Sleep or steps that fell clearly below the previous window.
fn declines(cur: &Agg, p: &Agg) -> Vec<Bottleneck> {
    let mut out = Vec::new();
    if cur.sleep_ok()
        && p.sleep_ok()
        && let (Some(c), Some(q)) = (cur.avg_sleep(), p.avg_sleep())
        && q > 0.0
        && (c - q) / q < -0.10
    {
        out.push(bottleneck(
            "sleep",
            "sleep_declining",
            format!("Sleep fell from {} to {}", md::hm(q), md::hm(c)),
            ev([
                ("current_hours", real(Some(c), 2)),
                ("previous_hours", real(Some(q), 2)),
                ("change_pct", real(Some((c - q) / q * 100.0), 1)),
            ]),
        ));
    }
    if cur.steps_ok()
        && p.steps_ok()
        && let (Some(c), Some(q)) = (cur.avg_steps(), p.avg_steps())
        && q > 0.0
        && (c - q) / q < -0.20
    {
        out.push(bottleneck(
            "activity",
            "steps_declining",
            format!("Steps fell from {} to {} a day", md::n(q, 0), md::n(c, 0)),
            ev([
                ("current_avg_steps", whole(Some(c))),
                ("previous_avg_steps", whole(Some(q))),
                ("change_pct", real(Some((c - q) / q * 100.0), 1)),
            ]),
        ));
    }
    out
}

/// Few steps, or too few complete days to tell.
fn activity_bottlenecks(inputs: &Inputs, cur: &Agg) -> Option<Bottleneck> {
    if cur.steps_ok() {
        let s = cur.avg_steps().filter(|s| *s < 5000.0)?;
        return Some(bottleneck(
            "activity",
            "low_steps",
            format!("Steps average {} a day", md::n(s, 0)),
            ev([("avg_steps", whole(Some(s))), ("days", cur.steps.len().into())]),
        ));
    }
    (cur.activity_span > 0 && inputs.activity.failure().is_none()).then(|| {
        bottleneck(
            "data",
            "sparse_activity",
            format!("Activity recorded on {}", k_of_n(cur.steps.len(), cur.activity_span, "complete day")),
            ev([("days_with_steps", cur.steps.len().into()), ("days", cur.activity_span.into())]),
        )
    })
}

fn plan_item(area: &'static str, target: String, why: String, evidence: Evidence) -> PlanItem {
    PlanItem { area, target, why, evidence }
}

/// Round to the nearest 500 steps.
fn round500(x: f64) -> f64 {
    (x / 500.0).round() * 500.0
}

/// Round hours to the nearest quarter hour.
fn quarter(h: f64) -> f64 {
    (h * 4.0).round() / 4.0
}

/// The next-week plan, from the person's own baseline: steps, sleep, weigh-ins, blood pressure.
fn plan(inputs: &Inputs, cur: &Agg) -> Vec<PlanItem> {
    let mut out = Vec::new();
    out.extend(steps_plan(inputs, cur));
    out.extend(sleep_plan(inputs, cur));
    if !inputs.own_weighins().is_empty() && cur.weight_days < 3 && inputs.weighins.failure().is_none() {
        out.push(plan_item(
            "body",
            "Weigh in on 3 mornings (e.g. Mon, Wed, Fri) before breakfast".into(),
            format!(
                "only {} in the last {}; regular readings make the trend readable",
                md::count(cur.weight_days as f64, "weigh-in day"),
                md::days(cur.days as f64)
            ),
            ev([("days_with_weight", cur.weight_days.into()), ("days", cur.days.into())]),
        ));
    }
    if let (Some(s), Some(d)) = (mean(&cur.sys), mean(&cur.dia))
        && at_or_above_130_80(s, d)
    {
        let n = cur.sys.len();
        out.push(plan_item(
            "blood_pressure",
            "Measure blood pressure seated, morning and evening, on 3 days; share the log with a clinician if the average stays at or above 130/80 mmHg".into(),
            format!("your {} averaged {}/{} mmHg", md::count(n as f64, "reading"), md::n(s, 0), md::n(d, 0)),
            ev([
                ("readings", n.into()),
                ("avg_systolic_mmhg", real(Some(s), 1)),
                ("avg_diastolic_mmhg", real(Some(d), 1)),
            ]),
        ));
    }
    out
}

/// A step target a little above the median, or a call to wear the tracker.
fn steps_plan(inputs: &Inputs, cur: &Agg) -> Option<PlanItem> {
    let Some(base) = median(&cur.steps).filter(|_| cur.steps_ok()) else {
        return inputs.activity.failure().is_none().then(|| {
            plan_item(
                "activity",
                "Wear your tracker on at least 5 of 7 days".into(),
                format!(
                    "steps were recorded on only {}, too few to set a target",
                    k_of_n(cur.steps.len(), cur.activity_span, "complete day")
                ),
                ev([("days_with_steps", cur.steps.len().into()), ("days", cur.activity_span.into())]),
            )
        });
    };
    let target = match base {
        b if b < 7500.0 => round500(b * 1.10).max(round500(b) + 500.0),
        b if b < 10_000.0 => round500(b * 1.05).max(round500(b) + 500.0),
        b => round500(b),
    };
    // The percentage is computed from the two numbers the sentence prints.
    let shown = base.round();
    let change_pct = (target - shown) / shown * 100.0;
    let how = match change_pct {
        p if p.round() >= 1.0 => format!("about {} % above", md::n(p, 0)),
        p if p.round() <= -1.0 => format!("about {} % below", md::n(-p, 0)),
        _ => "holding".to_string(),
    };
    Some(plan_item(
        "activity",
        format!("{} steps a day", md::n(target, 0)),
        // The rounded median the percentage was computed from (8,320.5 is 8,321 here, where a
        // formatter rounding half to even would print 8,320).
        format!("{how} your median of {} steps over {}", md::n(shown, 0), md::days(cur.steps.len() as f64)),
        ev([
            ("target_steps", whole(Some(target))),
            ("median_steps", whole(Some(shown))),
            ("days", cur.steps.len().into()),
            ("change_pct", real(Some(change_pct), 1)),
        ]),
    ))
}

/// A sleep target never below the average, a bedtime, and a steadier bedtime when it wanders;
/// or a call to track sleep.
fn sleep_plan(inputs: &Inputs, cur: &Agg) -> Vec<PlanItem> {
    let Some(avg) = cur.avg_sleep().filter(|_| cur.sleep_ok()) else {
        return match inputs.nights.failure() {
            Some(_) => Vec::new(),
            None => vec![plan_item(
                "sleep",
                "Track sleep on at least 5 of 7 nights".into(),
                format!(
                    "sleep was recorded on only {}, too few to set a target",
                    k_of_n(cur.sleep_h.len(), cur.days, "night")
                ),
                ev([("nights_with_sleep", cur.sleep_h.len().into()), ("days", cur.days.into())]),
            )],
        };
    };
    // Never below the average it is offered against: up to the next quarter hour.
    let short = avg < 7.0;
    let target = match short {
        true => quarter((avg + 0.5).min(8.0)),
        false => ((avg * 4.0).ceil() / 4.0).max(7.0),
    };
    let bed = mean(&cur.bedtimes).map(|b| b.round() as i64);
    let (bed_note, bed_why) = match (bed, short) {
        (Some(b), true) => (
            format!(", in bed by {}", bedtime_target(b, 1800)),
            format!("; 30 min earlier than your average bedtime {}", clock(b)),
        ),
        (Some(b), false) => (
            format!(", in bed around {}", bedtime_target(b, 0)),
            format!("; your average bedtime is {}", clock(b)),
        ),
        (None, _) => (String::new(), String::new()),
    };
    let mut out = vec![plan_item(
        "sleep",
        format!("{} asleep a night{bed_note}", md::hm(target)),
        format!(
            "you averaged {} over {}{bed_why}{}",
            md::hm(avg),
            md::count(cur.sleep_h.len() as f64, "night"),
            if short { "; +30 min is a step toward 7 h" } else { "" }
        ),
        ev([
            ("target_hours", real(Some(target), 2)),
            ("avg_sleep_hours", real(Some(avg), 2)),
            ("nights", cur.sleep_h.len().into()),
            ("avg_bedtime", Fig::Text(bed.map(clock))),
            ("bedtime_target", Fig::Text(bed.map(|b| bedtime_target(b, if short { 1800 } else { 0 })))),
        ]),
    )];
    if let (Some(b), Some(sp)) = (bed, cur.bedtime_spread().filter(|s| *s > 45.0)) {
        out.push(plan_item(
            "sleep",
            format!("Go to bed within 30 min of {} every night", bedtime_target(b, 0)),
            format!("your bedtime varied by about {} min (standard deviation)", md::n(sp, 0)),
            ev([
                ("bedtime_target", Fig::Text(Some(bedtime_target(b, 0)))),
                ("bedtime_spread_min", whole(Some(sp))),
            ]),
        ));
    }
    out
}

/// What to do about each bottleneck (and each domain that could not be read).
fn actions(bottlenecks: &[Bottleneck], failed: &[&str], inputs: &Inputs) -> Vec<Action> {
    let mut out = Vec::new();
    for d in failed {
        out.push(Action {
            area: "data",
            action: format!("Reconnect or re-authorise so {} data can be read", d.replace('_', " ")),
            why: inputs.failure(d).unwrap_or_default().to_string(),
        });
    }
    for b in bottlenecks {
        let action = match b.issue {
            "short_sleep" | "sleep_declining" | "low_sleep_score" => {
                "Keep hard training for days after a full night; move bedtime earlier"
            }
            "irregular_bedtime" => "Keep a steady bedtime, weekends included",
            "low_efficiency" => {
                "Limit time awake in bed: get up after 20 minutes awake and return when sleepy"
            }
            "low_steps" | "steps_declining" => "Add a daily walk; short walks after meals add up",
            "sparse_sleep" | "sparse_activity" => {
                "Wear and sync the tracker daily so the next review has enough data"
            }
            "sparse_weighins" => "Weigh in on a few fixed mornings a week",
            "elevated_average" => {
                "Keep measuring at rest and discuss readings that stay at or above 130/80 mmHg with a clinician"
            }
            _ => continue,
        };
        out.push(Action { area: b.area, action: action.to_string(), why: b.summary.clone() });
    }
    out
}

fn confidence(cur: &Agg, failed: &[&str]) -> (&'static str, Vec<String>) {
    let sleep = pct(cur.nights, cur.days).unwrap_or(0.0);
    let act = pct(cur.activity_days, cur.activity_span).unwrap_or(0.0);
    let any = cur.nights + cur.activity_days + cur.weighins + cur.bp_readings > 0;
    let mut level = match (sleep, act) {
        (s, a) if s >= 70.0 && a >= 70.0 => "high",
        (s, a) if s >= 40.0 || a >= 40.0 => "medium",
        _ if any => "low",
        _ => "none",
    };
    let mut reasons = vec![format!(
        "sleep on {}, activity on {}",
        k_of_n(cur.nights, cur.days, "night"),
        k_of_n(cur.activity_days, cur.activity_span, "complete day")
    )];
    if !failed.is_empty() {
        if level == "high" {
            level = "medium";
        }
        reasons.push(format!("could not read: {}", failed.join(", ")));
    }
    (level, reasons)
}
