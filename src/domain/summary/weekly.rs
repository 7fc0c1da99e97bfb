//! The weekly brief: aggregates over a window of days, deltas against the prior window, load
//! classification, bottlenecks with their evidence, and a next-week plan from the person's baseline.

use serde_json::{Map, Value};

use crate::domain::summary::markdown::md;
use crate::domain::summary::{
    DOMAINS, Inputs, Night, activity_of, at_or_above_130_80, bedtime_target, clock, domain_quality, fin,
    freshness, int, main_sleep, mean, median, num, safety, spread, unwrap_bedtime,
};
use crate::value::json;

/// A window needs data on at least this share of its days (and at least 3 days) before its
/// averages are used to classify load or set targets.
const MIN_COVERAGE: f64 = 0.4;

/// The longest window (and comparison window) a weekly brief covers.
pub const MAX_WINDOW_DAYS: i64 = 366;

/// The weekly brief: the `days` days ending `today` inclusive, compared with the `compare_days`
/// days before them (0 = no comparison). Today's activity is left out of averages because the
/// day is still in progress; last night's sleep (it woke up today) is complete and counts.
pub fn weekly(
    inputs: &Inputs,
    today: i64,
    days: i64,
    compare_days: i64,
    label: &dyn Fn(i64) -> String,
) -> Value {
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
    let delta = prev.as_ref().map(|p| deltas(&cur, p));
    let failed: Vec<&str> = DOMAINS.iter().copied().filter(|d| inputs.failure(d).is_some()).collect();
    let (load, load_basis) = load(&cur);
    let bottlenecks = bottlenecks(inputs, &cur, prev.as_ref());
    let plan = plan(inputs, &cur);
    let actions = actions(&bottlenecks, &failed, inputs);
    let (confidence, reasons) = confidence(&cur, &failed);
    let any = cur.nights > 0 || cur.activity_days > 0 || cur.weighins > 0 || cur.bp_readings > 0;
    let status = match (failed.len(), any) {
        (n, _) if n == DOMAINS.len() => "unavailable",
        (_, false) => "no_data",
        (0, true) => "ok",
        (_, true) => "partial",
    };
    let from = prev.as_ref().map(|p| p.start).unwrap_or(start);

    json!({
        "kind": "weekly_summary",
        "status": status,
        "window": {
            "start": label(start),
            "end": label(today),
            "days": days,
            "compare_days": compare_days,
            "previous_start": prev.as_ref().map(|p| label(p.start)),
            "previous_end": prev.as_ref().map(|p| label(p.end)),
        },
        "scorecard": {
            "current": cur.to_json(label),
            "previous": prev.as_ref().map(|p| p.to_json(label)),
            "delta": delta.map(Value::Object).unwrap_or(Value::Null),
        },
        "diagnostic": {
            "load_classification": load,
            "load_basis": load_basis,
            "bottlenecks": bottlenecks,
            "next_week_plan": plan,
            "action_candidates": actions,
        },
        "data_quality": {
            "confidence": confidence,
            "confidence_reasons": reasons,
            "coverage": {
                "nights_with_sleep": cur.nights,
                "days_with_activity": cur.activity_days,
                "activity_days_considered": cur.activity_span,
                "days_with_weight": cur.weight_days,
                "sleep_pct": num(pct(cur.nights, cur.days), 0),
                "activity_pct": num(pct(cur.activity_days, cur.activity_span), 0),
            },
            "failed": failed,
            "domains": domain_quality(inputs, from, today),
        },
        "freshness": freshness(inputs, today, label),
        "safety": safety(),
    })
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

    fn to_json(&self, label: &dyn Fn(i64) -> String) -> Value {
        let change = weight_change(&self.weights);
        let first = self.weights.first();
        let last = self.weights.last();
        json!({
            "start": label(self.start),
            "end": label(self.end),
            "days": self.days,
            "days_with_activity": self.activity_days,
            "nights_with_sleep": self.nights,
            "days_with_weight": self.weight_days,
            "avg_steps": int(self.avg_steps()),
            "median_steps": int(median(&self.steps)),
            "total_steps": int(match self.steps.is_empty() { true => None, false => Some(self.steps.iter().sum()) }),
            "avg_active_minutes": int(mean(&self.active_min)),
            "avg_distance_km": num(mean(&self.distance_km), 2),
            "avg_active_calories_kcal": int(mean(&self.calories)),
            "avg_sleep_hours": num(self.avg_sleep(), 2),
            "avg_sleep_score": num(mean(&self.scores), 1),
            "nights_with_score": self.scores.len(),
            "avg_sleep_efficiency_pct": num(mean(&self.efficiency), 1),
            "avg_bedtime": mean(&self.bedtimes).map(|s| clock(s.round() as i64)),
            "bedtime_spread_min": int(match self.bedtimes.len() { 0 | 1 => None, _ => spread(&self.bedtimes).map(|s| s / 60.0) }),
            "avg_wake_time": mean(&self.wake_times).map(|s| clock(s.round() as i64)),
            "avg_sleep_hr_bpm": num(mean(&self.sleep_hr), 1),
            "avg_resting_hr_bpm": num(mean(&self.resting_hr), 1),
            "naps": self.naps,
            "weighins": self.weighins,
            "first_weight": first.map(|w| json!({"date": label(w.0), "weight_kg": num(Some(w.2), 2)})),
            "latest_weight": last.map(|w| json!({"date": label(w.0), "weight_kg": num(Some(w.2), 2)})),
            "latest_weight_kg": num(self.latest_weight(), 2),
            // To the gram, so that a change shown in pounds converts kilograms, not rounded ones.
            "weight_change_kg": num(change.map(|c| c.0), 3),
            "weight_change_method": change.map(|c| c.1),
            "avg_fat_ratio_pct": num(mean(&self.fat_ratio), 1),
            "bp_readings": self.bp_readings,
            "avg_systolic_mmhg": num(mean(&self.sys), 1),
            "avg_diastolic_mmhg": num(mean(&self.dia), 1),
            "ecg_recordings": self.ecgs,
            "ecg_afib": self.afib,
        })
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
fn deltas(cur: &Agg, prev: &Agg) -> Map<String, Value> {
    let mut m = Map::new();
    for ((name, c, dp), (_, p, _)) in cur.metrics().into_iter().zip(prev.metrics()) {
        if let (Some(c), Some(p)) = (fin(c), fin(p)) {
            // Compare the rounded values the person sees, so the numbers add up on screen.
            let round = |x: f64| (x * 10f64.powi(dp)).round() / 10f64.powi(dp);
            let (c, p) = (round(c), round(p));
            let pct = match p {
                0.0 => None,
                _ => Some((c - p) / p.abs() * 100.0),
            };
            m.insert(
                name.into(),
                json!({"current": num(Some(c), dp), "previous": num(Some(p), dp), "change": num(Some(c - p), dp), "change_pct": num(pct, 1)}),
            );
        }
    }
    m
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

fn bottleneck(area: &str, issue: &str, summary: String, evidence: Value) -> Value {
    json!({"area": area, "issue": issue, "summary": summary, "evidence": evidence})
}

fn bottlenecks(inputs: &Inputs, cur: &Agg, prev: Option<&Agg>) -> Vec<Value> {
    let mut out = Vec::new();
    for d in DOMAINS {
        if let Some(why) = inputs.failure(d) {
            out.push(bottleneck(
                "data",
                "domain_unavailable",
                format!("{} data could not be read", d.replace('_', " ")),
                json!({"domain": d, "reason": why}),
            ));
        }
    }
    if cur.sleep_ok() {
        let avg = cur.avg_sleep().unwrap_or(0.0);
        if avg < 6.5 {
            out.push(bottleneck(
                "sleep",
                "short_sleep",
                format!("Average sleep {} is below 6 h 30 min", md::hm(avg)),
                json!({"avg_sleep_hours": num(Some(avg), 2), "nights": cur.sleep_h.len()}),
            ));
        }
        if let Some(sp) = spread(&cur.bedtimes).map(|s| s / 60.0).filter(|s| *s > 60.0) {
            out.push(bottleneck("sleep", "irregular_bedtime", format!("Bedtime varies by about {} min from night to night", md::n(sp, 0)),
                json!({"bedtime_spread_min": int(Some(sp)), "avg_bedtime": mean(&cur.bedtimes).map(|s| clock(s.round() as i64)), "nights": cur.bedtimes.len()})));
        }
        if let Some(e) = mean(&cur.efficiency).filter(|e| *e < 85.0) {
            out.push(bottleneck(
                "sleep",
                "low_efficiency",
                format!("Sleep efficiency averages {} %, below 85 %", md::n(e, 1)),
                json!({"avg_sleep_efficiency_pct": num(Some(e), 1), "nights": cur.efficiency.len()}),
            ));
        }
    } else if cur.nights < cur.days {
        out.push(bottleneck(
            "data",
            "sparse_sleep",
            format!("Sleep recorded on {} of {} nights", cur.nights, cur.days),
            json!({"nights_with_sleep": cur.nights, "days": cur.days}),
        ));
    }
    if cur.scores.len() >= 3
        && let Some(s) = mean(&cur.scores).filter(|s| *s < 65.0)
    {
        out.push(bottleneck(
            "sleep",
            "low_sleep_score",
            format!("Sleep score averages {}", md::n(s, 1)),
            json!({"avg_sleep_score": num(Some(s), 1), "nights_with_score": cur.scores.len()}),
        ));
    }
    if let Some(p) = prev {
        if cur.sleep_ok()
            && p.sleep_ok()
            && let (Some(c), Some(q)) = (cur.avg_sleep(), p.avg_sleep())
            && q > 0.0
            && (c - q) / q < -0.10
        {
            out.push(bottleneck("sleep", "sleep_declining", format!("Sleep fell from {} to {}", md::hm(q), md::hm(c)),
                json!({"current_hours": num(Some(c), 2), "previous_hours": num(Some(q), 2), "change_pct": num(Some((c - q) / q * 100.0), 1)})));
        }
        if cur.steps_ok()
            && p.steps_ok()
            && let (Some(c), Some(q)) = (cur.avg_steps(), p.avg_steps())
            && q > 0.0
            && (c - q) / q < -0.20
        {
            out.push(bottleneck("activity", "steps_declining", format!("Steps fell from {} to {} a day", md::n(q, 0), md::n(c, 0)),
                json!({"current_avg_steps": int(Some(c)), "previous_avg_steps": int(Some(q)), "change_pct": num(Some((c - q) / q * 100.0), 1)})));
        }
    }
    if cur.steps_ok() {
        if let Some(s) = cur.avg_steps().filter(|s| *s < 5000.0) {
            out.push(bottleneck(
                "activity",
                "low_steps",
                format!("Steps average {} a day", md::n(s, 0)),
                json!({"avg_steps": int(Some(s)), "days": cur.steps.len()}),
            ));
        }
    } else if cur.activity_span > 0 && inputs.activity.failure().is_none() {
        out.push(bottleneck(
            "data",
            "sparse_activity",
            format!("Activity recorded on {}", k_of_n(cur.steps.len(), cur.activity_span, "complete day")),
            json!({"days_with_steps": cur.steps.len(), "days": cur.activity_span}),
        ));
    }
    // Only flag missing weigh-ins for someone who uses a scale at all.
    let uses_scale = !inputs.own_weighins().is_empty();
    if uses_scale && cur.weight_days < 3 && inputs.weighins.failure().is_none() {
        out.push(bottleneck(
            "body",
            "sparse_weighins",
            format!("Weighed in on {}", k_of_n(cur.weight_days, cur.days, "day")),
            json!({"days_with_weight": cur.weight_days, "days": cur.days}),
        ));
    }
    if cur.sys.len() >= 2
        && let (Some(s), Some(d)) = (mean(&cur.sys), mean(&cur.dia))
        && at_or_above_130_80(s, d)
    {
        out.push(bottleneck("blood_pressure", "elevated_average", format!("Blood pressure averages {}/{} mmHg ({})", md::n(s, 0), md::n(d, 0), crate::domain::summary::markdown::bp_over(s, d)),
            json!({"avg_systolic_mmhg": num(Some(s), 1), "avg_diastolic_mmhg": num(Some(d), 1), "readings": cur.sys.len()})));
    }
    out
}

/// A plan item: its target and reason in words, and every number they print in `evidence`.
fn plan_item(area: &str, target: String, why: String, evidence: Value) -> Value {
    json!({"area": area, "target": target, "why": why, "evidence": evidence})
}

/// Round to the nearest 500 steps.
fn round500(x: f64) -> f64 {
    (x / 500.0).round() * 500.0
}

/// Round hours to the nearest quarter hour.
fn quarter(h: f64) -> f64 {
    (h * 4.0).round() / 4.0
}

fn plan(inputs: &Inputs, cur: &Agg) -> Vec<Value> {
    let mut out = Vec::new();
    match median(&cur.steps).filter(|_| cur.steps_ok()) {
        Some(base) => {
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
            out.push(plan_item(
                "activity",
                format!("{} steps a day", md::n(target, 0)),
                format!(
                    "{how} your median of {} steps over {}",
                    // The rounded median the percentage was computed from (8,320.5 is 8,321
                    // here, where a formatter rounding half to even would print 8,320).
                    md::n(shown, 0),
                    md::days(cur.steps.len() as f64)
                ),
                json!({"target_steps": int(Some(target)), "median_steps": int(Some(shown)), "days": cur.steps.len(), "change_pct": num(Some(change_pct), 1)}),
            ));
        }
        None if inputs.activity.failure().is_none() => out.push(plan_item(
            "activity",
            "Wear your tracker on at least 5 of 7 days".into(),
            format!(
                "steps were recorded on only {}, too few to set a target",
                k_of_n(cur.steps.len(), cur.activity_span, "complete day")
            ),
            json!({"days_with_steps": cur.steps.len(), "days": cur.activity_span}),
        )),
        None => {}
    }
    match cur.avg_sleep().filter(|_| cur.sleep_ok()) {
        Some(avg) => {
            // Never below the average it is offered against: up to the next quarter hour.
            let target = match avg {
                a if a < 7.0 => quarter((a + 0.5).min(8.0)),
                a => ((a * 4.0).ceil() / 4.0).max(7.0),
            };
            let bed = mean(&cur.bedtimes).map(|b| b.round() as i64);
            let spread_min = match cur.bedtimes.len() {
                0 | 1 => None,
                _ => spread(&cur.bedtimes).map(|s| s / 60.0),
            };
            let (bed_note, bed_target) = match (bed, avg < 7.0) {
                (Some(b), true) => (
                    format!(", in bed by {}", bedtime_target(b, 1800)),
                    format!("30 min earlier than your average bedtime {}", clock(b)),
                ),
                (Some(b), false) => (
                    format!(", in bed around {}", bedtime_target(b, 0)),
                    format!("your average bedtime is {}", clock(b)),
                ),
                (None, _) => (String::new(), String::new()),
            };
            out.push(plan_item(
                "sleep",
                format!("{} asleep a night{bed_note}", md::hm(target)),
                format!(
                    "you averaged {} over {}{}{}",
                    md::hm(avg),
                    md::count(cur.sleep_h.len() as f64, "night"),
                    if bed_target.is_empty() { String::new() } else { format!("; {bed_target}") },
                    if avg < 7.0 { "; +30 min is a step toward 7 h" } else { "" }
                ),
                json!({
                    "target_hours": num(Some(target), 2),
                    "avg_sleep_hours": num(Some(avg), 2),
                    "nights": cur.sleep_h.len(),
                    "avg_bedtime": bed.map(clock),
                    "bedtime_target": bed.map(|b| bedtime_target(b, if avg < 7.0 { 1800 } else { 0 })),
                }),
            ));
            if let (Some(b), Some(sp)) = (bed, spread_min.filter(|s| *s > 45.0)) {
                out.push(plan_item(
                    "sleep",
                    format!("Go to bed within 30 min of {} every night", bedtime_target(b, 0)),
                    format!("your bedtime varied by about {} min (standard deviation)", md::n(sp, 0)),
                    json!({"bedtime_target": bedtime_target(b, 0), "bedtime_spread_min": int(Some(sp))}),
                ));
            }
        }
        None if inputs.nights.failure().is_none() => out.push(plan_item(
            "sleep",
            "Track sleep on at least 5 of 7 nights".into(),
            format!(
                "sleep was recorded on only {}, too few to set a target",
                k_of_n(cur.sleep_h.len(), cur.days, "night")
            ),
            json!({"nights_with_sleep": cur.sleep_h.len(), "days": cur.days}),
        )),
        None => {}
    }
    if !inputs.own_weighins().is_empty() && cur.weight_days < 3 && inputs.weighins.failure().is_none() {
        out.push(plan_item(
            "body",
            "Weigh in on 3 mornings (e.g. Mon, Wed, Fri) before breakfast".into(),
            format!(
                "only {} in the last {}; regular readings make the trend readable",
                md::count(cur.weight_days as f64, "weigh-in day"),
                md::days(cur.days as f64)
            ),
            json!({"days_with_weight": cur.weight_days, "days": cur.days}),
        ));
    }
    if let (Some(s), Some(d)) = (mean(&cur.sys), mean(&cur.dia))
        && at_or_above_130_80(s, d)
    {
        let why = format!(
            "your {} averaged {}/{} mmHg",
            md::count(cur.sys.len() as f64, "reading"),
            md::n(s, 0),
            md::n(d, 0)
        );
        out.push(plan_item("blood_pressure",
            "Measure blood pressure seated, morning and evening, on 3 days; share the log with a clinician if the average stays at or above 130/80 mmHg".into(),
            why,
            json!({"readings": cur.sys.len(), "avg_systolic_mmhg": num(Some(s), 1), "avg_diastolic_mmhg": num(Some(d), 1)})));
    }
    out
}

fn actions(bottlenecks: &[Value], failed: &[&str], inputs: &Inputs) -> Vec<Value> {
    let mut out = Vec::new();
    for d in failed {
        out.push(json!({"area": "data", "action": format!("Reconnect or re-authorise so {} data can be read", d.replace('_', " ")), "why": inputs.failure(d).unwrap_or_default()}));
    }
    for b in bottlenecks {
        let issue = b["issue"].as_str().unwrap_or_default();
        let action = match issue {
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
        out.push(json!({"area": b["area"].clone(), "action": action, "why": b["summary"].clone()}));
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
