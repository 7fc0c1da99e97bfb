//! The daily brief: one civil day's body, sleep, activity and heart, with readiness context.

use serde::Serialize;

use crate::domain::summary::markdown::md;
use crate::domain::summary::{
    Action, ActivityDay, Bp, DAILY_LOOKBACK_DAYS, DOMAINS, DomainState, Fresh, Inputs, Keyed, Kg, Night,
    SAFETY, Safety, Weighin, activity_of, at_or_above_130_80, bedtime_target, clock, domain_quality, fin,
    freshness, int, main_sleep, median, num, unwrap_bedtime,
};

/// Until this local time (10:00) on the day in progress, a main sleep not yet ended (or synced)
/// is the night still going, not a tracker to check.
const NIGHT_OVER_BY_S: i64 = 10 * 3600;

/// The day in progress: its civil day number and the local time now (seconds after midnight).
#[derive(Debug, Clone, Copy)]
pub struct Now {
    pub day: i64,
    pub secs: i64,
}

/// The daily brief as the tool answers it (its `structuredContent`, field order as key order);
/// the markdown renders from the same value.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Daily {
    pub kind: &'static str,
    pub date: String,
    pub is_today: bool,
    /// The local time the day in progress was read at: its totals are "so far".
    pub as_of: Option<String>,
    /// `ok`, `partial`, `no_data` or `unavailable`.
    pub status: &'static str,
    pub scorecard: DailyScorecard,
    pub body: Body,
    pub sleep: SleepOut,
    pub activity: ActivityOut,
    pub heart: HeartOut,
    pub diagnostic: DailyDiagnostic,
    pub data_quality: DailyQuality,
    pub freshness: Keyed<Fresh>,
    pub safety: Safety,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DailyScorecard {
    pub weight_kg: Kg<2>,
    pub sleep_hours: Option<f64>,
    pub sleep_score: Option<i64>,
    pub sleep_efficiency_pct: Option<f64>,
    pub steps: Option<i64>,
    pub active_minutes: Option<i64>,
    pub resting_hr_bpm: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Body {
    /// `measured`, `not_measured`, `no_data` or `failed`.
    pub status: &'static str,
    pub reason: Option<String>,
    pub weighin: Option<WeighinOut>,
    pub change: Option<Change>,
    pub latest_before: Option<WeighinOut>,
    pub weighins_that_day: usize,
    pub excluded_unattributed: usize,
}

/// One weigh-in; masses kept whole for display, written with 2 decimals.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WeighinOut {
    pub date: String,
    pub t: i64,
    pub weight_kg: Kg<2>,
    pub fat_ratio_pct: Option<f64>,
    pub fat_mass_kg: Kg<2>,
    pub fat_free_mass_kg: Kg<2>,
    pub muscle_mass_kg: Kg<2>,
    pub bone_mass_kg: Kg<2>,
    pub hydration_kg: Kg<2>,
    pub heart_pulse_bpm: Option<i64>,
    pub manual: bool,
    /// Only for `latest_before`: how many days before the brief's day.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub days_before: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Change {
    /// To the gram, so that a change shown in pounds is converted, not re-rounded, kilograms.
    pub weight_kg: Kg<3>,
    pub fat_ratio_pct: Option<f64>,
    pub since_date: String,
    pub days: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SleepOut {
    /// `recorded`, `naps_only`, `no_data` or `failed`.
    pub status: &'static str,
    pub reason: Option<String>,
    pub main: Option<NightOut>,
    pub naps: Vec<NightOut>,
    pub other_sessions: Vec<NightOut>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NightOut {
    pub date: String,
    pub start: i64,
    pub end: i64,
    pub bedtime: String,
    pub wake_time: String,
    pub asleep_h: Option<f64>,
    pub in_bed_h: Option<f64>,
    pub deep_min: Option<i64>,
    pub light_min: Option<i64>,
    pub rem_min: Option<i64>,
    pub awake_min: Option<i64>,
    pub wakeups: Option<i64>,
    pub score: Option<i64>,
    pub efficiency_pct: Option<f64>,
    pub hr_average_bpm: Option<i64>,
    pub hr_min_bpm: Option<i64>,
    pub rr_average_per_min: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ActivityOut {
    /// `recorded`, `no_data` or `failed`.
    pub status: &'static str,
    pub reason: Option<String>,
    pub partial_day: bool,
    pub steps: Option<i64>,
    pub distance_km: Option<f64>,
    pub active_minutes: Option<i64>,
    pub moderate_minutes: Option<i64>,
    pub intense_minutes: Option<i64>,
    pub active_calories_kcal: Option<i64>,
    pub total_calories_kcal: Option<i64>,
    pub hr_average_bpm: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HeartOut {
    /// `ok` or `failed`.
    pub status: &'static str,
    pub reason: Option<String>,
    pub sleep_min_hr_bpm: Option<i64>,
    pub sleep_avg_hr_bpm: Option<i64>,
    pub sleep_resting_hr_bpm: Option<i64>,
    pub sleep_hrv_rmssd_ms: Option<i64>,
    pub weighin_pulse_bpm: Option<i64>,
    pub latest_heart_rate_bpm: Option<i64>,
    pub blood_pressure: Option<BpOut>,
    pub bp_readings_that_day: usize,
    pub ecg: Vec<EcgOut>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BpOut {
    pub date: String,
    pub t: i64,
    pub systolic_mmhg: Option<i64>,
    pub diastolic_mmhg: Option<i64>,
    pub pulse_bpm: Option<i64>,
    pub days_before: i64,
    pub at_or_above_130_80: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EcgOut {
    pub t: i64,
    pub classification: String,
    pub heart_rate_bpm: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DailyDiagnostic {
    pub readiness_context: &'static str,
    pub primary_signal: String,
    pub readiness_evidence: ReadinessEvidence,
    pub action_candidates: Vec<Action>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReadinessEvidence {
    pub sleep_hours: Option<f64>,
    pub sleep_score: Option<i64>,
    pub usual_sleep_hours: Option<f64>,
    pub usual_nights: usize,
    pub previous_day_steps: Option<i64>,
    /// The usual bedtime, and the one an early night aims at (30 min before, on a quarter).
    pub usual_bedtime: Option<String>,
    pub bedtime_target: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DailyQuality {
    pub confidence: &'static str,
    pub confidence_reasons: Vec<String>,
    pub recorded: Vec<&'static str>,
    pub failed: Vec<&'static str>,
    pub domains: Keyed<DomainState>,
}

/// The daily brief for `day`. `now` tells whether the day is still in progress (its activity is
/// partial, its night may not be over) and anchors nothing else. Records outside
/// `day - DAILY_LOOKBACK_DAYS ..= day` are used only as context (previous weigh-in, usual sleep),
/// never as the day's own data.
pub fn daily(inputs: &Inputs, day: i64, now: Now, label: &dyn Fn(i64) -> String) -> Daily {
    let today = now.day;
    let body = body(inputs, day, label);
    let sleep = sleep(inputs, day, label);
    let activity = activity(inputs, day, today);
    let heart = heart(inputs, day, label);
    let mut readiness = readiness(inputs, day, today, label);
    let night_open = day == today
        && now.secs < NIGHT_OVER_BY_S
        && sleep.main.is_none()
        && inputs.nights.failure().is_none();
    if night_open {
        readiness.primary = format!(
            "At {} the night is not over yet or not synced; readiness is judged once you are up.",
            clock(now.secs)
        );
    }
    let recorded: Vec<&'static str> =
        DOMAINS.iter().copied().filter(|d| inputs.has_data(d, day, day)).collect();
    let failed: Vec<&'static str> = DOMAINS.iter().copied().filter(|d| inputs.failure(d).is_some()).collect();
    let status = match (recorded.is_empty(), failed.len()) {
        (_, n) if n == DOMAINS.len() => "unavailable",
        (true, _) => "no_data",
        (false, 0) => "ok",
        (false, _) => "partial",
    };
    let (confidence, confidence_reasons) = confidence(inputs, day, &failed);
    let action_candidates = match night_open {
        // Nothing to act on before the night has ended: no "check the tracker" at 04:30.
        true => Vec::new(),
        false => actions(inputs, day, today, &readiness, &heart, label),
    };
    let main = sleep.main.as_ref();
    Daily {
        kind: "daily_summary",
        date: label(day),
        is_today: day == today,
        as_of: (day == today).then(|| clock(now.secs)),
        status,
        scorecard: DailyScorecard {
            weight_kg: body.weighin.as_ref().map(|w| w.weight_kg).unwrap_or_default(),
            sleep_hours: main.and_then(|n| n.asleep_h),
            sleep_score: main.and_then(|n| n.score),
            sleep_efficiency_pct: main.and_then(|n| n.efficiency_pct),
            steps: activity.steps,
            active_minutes: activity.active_minutes,
            resting_hr_bpm: heart.sleep_min_hr_bpm,
        },
        diagnostic: DailyDiagnostic {
            readiness_context: readiness.state,
            primary_signal: readiness.primary,
            readiness_evidence: readiness.evidence,
            action_candidates,
        },
        data_quality: DailyQuality {
            confidence,
            confidence_reasons,
            recorded,
            failed,
            domains: domain_quality(inputs, day, day),
        },
        body,
        sleep,
        activity,
        heart,
        freshness: freshness(inputs, day, label),
        safety: SAFETY,
    }
}

fn weighin_out(w: &Weighin, label: &dyn Fn(i64) -> String) -> WeighinOut {
    WeighinOut {
        date: label(w.day),
        t: w.t,
        weight_kg: Kg(fin(w.weight_kg)),
        fat_ratio_pct: num(w.fat_ratio_pct, 1),
        fat_mass_kg: Kg(fin(w.fat_mass_kg)),
        fat_free_mass_kg: Kg(fin(w.fat_free_mass_kg)),
        muscle_mass_kg: Kg(fin(w.muscle_mass_kg)),
        bone_mass_kg: Kg(fin(w.bone_mass_kg)),
        hydration_kg: Kg(fin(w.hydration_kg)),
        heart_pulse_bpm: int(w.heart_pulse_bpm),
        manual: w.manual,
        days_before: None,
    }
}

fn diff(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    Some(fin(a)? - fin(b)?)
}

fn body(inputs: &Inputs, day: i64, label: &dyn Fn(i64) -> String) -> Body {
    let own = inputs.own_weighins();
    let that_day: Vec<&&Weighin> = own.iter().filter(|w| w.day == day).collect();
    let unattributed = inputs.weighins.items().iter().filter(|w| w.day == day && w.guest).count();
    let latest = that_day.last().copied().copied();
    // The reference point for "change since": the previous own weigh-in before the day's latest,
    // or, when the day has none, the latest before the day as context.
    let anchor_t = latest.map(|w| w.t).unwrap_or(i64::MAX);
    let previous = own.iter().rev().find(|w| w.t < anchor_t && w.day <= day).copied();
    let status = match (inputs.weighins.failure(), latest, previous) {
        (Some(_), _, _) => "failed",
        (None, Some(_), _) => "measured",
        (None, None, Some(_)) => "not_measured",
        (None, None, None) => "no_data",
    };
    let change = match (latest, previous) {
        (Some(w), Some(p)) => Some(Change {
            weight_kg: Kg(diff(w.weight_kg, p.weight_kg)),
            fat_ratio_pct: num(diff(w.fat_ratio_pct, p.fat_ratio_pct), 1),
            since_date: label(p.day),
            days: w.day - p.day,
        }),
        _ => None,
    };
    let latest_before = match latest {
        None => previous.map(|p| WeighinOut { days_before: Some(day - p.day), ..weighin_out(p, label) }),
        Some(_) => None,
    };
    Body {
        status,
        reason: inputs.weighins.failure().map(str::to_string),
        weighin: latest.map(|w| weighin_out(w, label)),
        change,
        latest_before,
        weighins_that_day: that_day.len(),
        excluded_unattributed: unattributed,
    }
}

fn night_out(n: &Night, label: &dyn Fn(i64) -> String) -> NightOut {
    let mins = |s: Option<f64>| int(fin(s).map(|s| s / 60.0));
    let efficiency = match (fin(n.asleep_s), fin(n.awake_s)) {
        (Some(a), Some(w)) if a + w > 0.0 => Some(a / (a + w) * 100.0),
        _ => None,
    };
    NightOut {
        date: label(n.day),
        start: n.start,
        end: n.end,
        bedtime: clock(n.bedtime_local_s),
        wake_time: clock(n.wake_local_s),
        asleep_h: num(fin(n.asleep_s).map(|s| s / 3600.0), 2),
        in_bed_h: num(Some((n.end - n.start) as f64 / 3600.0), 2),
        deep_min: mins(n.deep_s),
        light_min: mins(n.light_s),
        rem_min: mins(n.rem_s),
        awake_min: mins(n.awake_s),
        wakeups: int(n.wakeups),
        score: int(n.score),
        efficiency_pct: num(efficiency, 1),
        hr_average_bpm: int(n.hr_average),
        hr_min_bpm: int(n.hr_min),
        rr_average_per_min: num(n.rr_average, 1),
    }
}

fn sleep(inputs: &Inputs, day: i64, label: &dyn Fn(i64) -> String) -> SleepOut {
    let nights = inputs.nights.items();
    let main = main_sleep(nights, day);
    let naps: Vec<NightOut> =
        nights.iter().filter(|n| n.day == day && n.nap).map(|n| night_out(n, label)).collect();
    let others: Vec<NightOut> = nights
        .iter()
        .filter(|n| n.day == day && !n.nap && main.is_some_and(|m| !std::ptr::eq(*n, m)))
        .map(|n| night_out(n, label))
        .collect();
    let status = match (inputs.nights.failure(), main, naps.is_empty()) {
        (Some(_), _, _) => "failed",
        (None, Some(_), _) => "recorded",
        (None, None, false) => "naps_only",
        (None, None, true) => "no_data",
    };
    SleepOut {
        status,
        reason: inputs.nights.failure().map(str::to_string),
        main: main.map(|n| night_out(n, label)),
        naps,
        other_sessions: others,
    }
}

fn activity(inputs: &Inputs, day: i64, today: i64) -> ActivityOut {
    let a = activity_of(inputs.activity.items(), day);
    let status = match (inputs.activity.failure(), a) {
        (Some(_), _) => "failed",
        (None, Some(_)) => "recorded",
        (None, None) => "no_data",
    };
    let get = |f: fn(&ActivityDay) -> Option<f64>| a.and_then(|a| fin(f(a)));
    ActivityOut {
        status,
        reason: inputs.activity.failure().map(str::to_string),
        partial_day: day == today,
        steps: int(get(|a| a.steps)),
        distance_km: num(get(|a| a.distance_m).map(|m| m / 1000.0), 2),
        active_minutes: int(get(|a| a.active_s).map(|s| s / 60.0)),
        moderate_minutes: int(get(|a| a.moderate_s).map(|s| s / 60.0)),
        intense_minutes: int(get(|a| a.intense_s).map(|s| s / 60.0)),
        active_calories_kcal: int(get(|a| a.calories)),
        total_calories_kcal: int(get(|a| a.total_calories)),
        hr_average_bpm: int(get(|a| a.hr_average)),
    }
}

/// The latest BP reading on `day`, else the latest in the 7 days before it.
fn latest_bp(inputs: &Inputs, day: i64) -> Option<Bp> {
    let all = inputs.bp_readings();
    let on_day = all.iter().rev().find(|b| b.day == day);
    on_day.or_else(|| all.iter().rev().find(|b| b.day < day && b.day >= day - 7)).copied()
}

fn heart(inputs: &Inputs, day: i64, label: &dyn Fn(i64) -> String) -> HeartOut {
    let main = main_sleep(inputs.nights.items(), day);
    let pulse =
        inputs.own_weighins().iter().rev().find(|w| w.day == day).and_then(|w| fin(w.heart_pulse_bpm));
    let records: Vec<_> = inputs.heart.items().iter().filter(|h| h.day == day).collect();
    let latest_hr = records.iter().filter(|h| fin(h.heart_rate).is_some()).max_by_key(|h| h.t);
    let mut ecgs: Vec<_> = records.iter().filter(|h| h.ecg.is_some()).collect();
    crate::sort::by_key(&mut ecgs, |h| h.t);
    HeartOut {
        status: match inputs.heart.failure() {
            Some(_) => "failed",
            None => "ok",
        },
        reason: inputs.heart.failure().map(str::to_string),
        sleep_min_hr_bpm: int(main.and_then(|n| n.hr_min)),
        sleep_avg_hr_bpm: int(main.and_then(|n| n.hr_average)),
        sleep_resting_hr_bpm: int(main.and_then(|n| n.rest_hr)),
        sleep_hrv_rmssd_ms: int(main.and_then(|n| n.hrv_rmssd)),
        weighin_pulse_bpm: int(pulse),
        latest_heart_rate_bpm: int(latest_hr.and_then(|h| h.heart_rate)),
        blood_pressure: latest_bp(inputs, day).map(|b| BpOut {
            date: label(b.day),
            t: b.t,
            systolic_mmhg: int(Some(b.sys)),
            diastolic_mmhg: int(Some(b.dia)),
            pulse_bpm: int(b.pulse),
            days_before: day - b.day,
            at_or_above_130_80: at_or_above_130_80(b.sys, b.dia),
        }),
        bp_readings_that_day: inputs.bp_readings().iter().filter(|b| b.day == day).count(),
        ecg: ecgs
            .iter()
            .map(|h| EcgOut {
                t: h.t,
                classification: h.ecg.clone().unwrap_or_default(),
                heart_rate_bpm: int(h.heart_rate),
            })
            .collect(),
    }
}

/// Readiness context: last night's sleep against the person's own recent nights.
struct Readiness {
    state: &'static str,
    primary: String,
    evidence: ReadinessEvidence,
    usual_bedtime: Option<i64>,
}

fn readiness(inputs: &Inputs, day: i64, today: i64, label: &dyn Fn(i64) -> String) -> Readiness {
    let nights = inputs.nights.items();
    let main = main_sleep(nights, day);
    let prior: Vec<&Night> = (day - DAILY_LOOKBACK_DAYS..day).filter_map(|d| main_sleep(nights, d)).collect();
    let usual_hours = match prior.len() {
        0..=2 => None,
        _ => median(&prior.iter().filter_map(|n| fin(n.asleep_s)).map(|s| s / 3600.0).collect::<Vec<_>>()),
    };
    let usual_bedtime = match prior.len() {
        0..=2 => None,
        _ => median(&prior.iter().map(|n| unwrap_bedtime(n.bedtime_local_s)).collect::<Vec<_>>())
            .map(|s| s.round() as i64),
    };
    let prev_steps = activity_of(inputs.activity.items(), day - 1).and_then(|a| fin(a.steps));
    let hours = main.and_then(|n| fin(n.asleep_s)).map(|s| s / 3600.0);
    let score = main.and_then(|n| fin(n.score));
    let date = label(day);
    let (state, primary) = match (main, hours, score) {
        _ if inputs.nights.failure().is_some() => (
            "insufficient_data",
            format!("Sleep data could not be read, so readiness for {date} cannot be judged."),
        ),
        (None, _, _) => (
            "insufficient_data",
            format!("No main sleep ends on {date}, so readiness cannot be judged (a nap does not count)."),
        ),
        (Some(_), None, None) => {
            ("insufficient_data", format!("The sleep ending on {date} has neither a duration nor a score."))
        }
        (_, _, Some(s)) if s < 60.0 => ("low_sleep_score", format!("Sleep score was low ({s:.0}/100).")),
        (_, Some(h), _) if h < 6.0 => {
            ("sleep_limited", format!("Only {} asleep {}.", md::hm(h), night_word(day, today, label)))
        }
        (_, Some(h), _) if h < 7.0 && prev_steps.is_some_and(|s| s > 15_000.0) => (
            "high_activity_low_sleep",
            format!(
                "A big day ({} steps) was followed by {} of sleep.",
                md::n(prev_steps.unwrap_or(0.0), 0),
                md::hm(h)
            ),
        ),
        (_, Some(h), _) if usual_hours.is_some_and(|u| h < u - 1.0) => (
            "below_baseline",
            format!(
                "{} asleep, over an hour below your usual {}.",
                md::hm(h),
                md::hm(usual_hours.unwrap_or(0.0))
            ),
        ),
        (_, Some(h), s) if h >= 7.0 && s.is_none_or(|s| s >= 75.0) => {
            ("well_rested", format!("{} asleep; recovery looks normal.", md::hm(h)))
        }
        _ => ("neutral", "Sleep was within a typical range.".to_string()),
    };
    Readiness {
        state,
        primary,
        evidence: ReadinessEvidence {
            sleep_hours: num(hours, 2),
            sleep_score: int(score),
            usual_sleep_hours: num(usual_hours, 2),
            usual_nights: prior.len(),
            previous_day_steps: int(prev_steps),
            usual_bedtime: usual_bedtime.map(clock),
            bedtime_target: usual_bedtime.map(|b| bedtime_target(b, 1800)),
        },
        usual_bedtime,
    }
}

fn confidence(inputs: &Inputs, day: i64, failed: &[&str]) -> (&'static str, Vec<String>) {
    let core: Vec<&str> =
        ["sleep", "activity"].into_iter().filter(|d| inputs.has_data(d, day, day)).collect();
    let any = DOMAINS.iter().any(|d| inputs.has_data(d, day, day));
    let mut level = match (core.len(), any) {
        (2, _) => "high",
        (1, _) => "medium",
        (_, true) => "low",
        _ => "none",
    };
    let mut reasons = Vec::new();
    for d in ["sleep", "activity"] {
        if !core.contains(&d) && inputs.failure(d).is_none() {
            reasons.push(format!("no {d} recorded that day"));
        }
    }
    if !failed.is_empty() {
        if level == "high" {
            level = "medium";
        }
        reasons.push(format!("could not read: {}", failed.join(", ")));
    }
    (level, reasons)
}

fn action(area: &'static str, action: String, why: String) -> Action {
    Action { area, action, why }
}

/// What to do about the day: unreadable domains, the night's readiness, blood pressure, an ECG,
/// a long gap without weighing in, and a day with few steps.
fn actions(
    inputs: &Inputs,
    day: i64,
    today: i64,
    r: &Readiness,
    heart: &HeartOut,
    label: &dyn Fn(i64) -> String,
) -> Vec<Action> {
    let mut out = Vec::new();
    for d in DOMAINS {
        if let Some(why) = inputs.failure(d) {
            out.push(action(
                "data",
                format!("Reconnect or re-authorise so {} data can be read", d.replace('_', " ")),
                why.to_string(),
            ));
        }
    }
    out.extend(readiness_actions(inputs, day, today, r, label));
    if let Some(bp) = heart.blood_pressure.as_ref().filter(|b| b.at_or_above_130_80)
        && let (Some(s), Some(d)) = (bp.systolic_mmhg, bp.diastolic_mmhg)
    {
        out.push(action(
            "blood_pressure",
            "Repeat the reading seated after 5 minutes of rest; if readings stay at or above 130/80 mmHg, discuss them with a clinician".into(),
            format!(
                "latest reading {s}/{d} mmHg on {}: {}",
                bp.date,
                crate::domain::summary::markdown::bp_over(s as f64, d as f64)
            ),
        ));
    }
    if inputs.heart.items().iter().any(|h| h.day == day && h.ecg.as_deref() == Some("afib")) {
        out.push(action(
            "heart",
            "Share the ECG recording with a clinician".into(),
            format!("an ECG on {} was classified as possible atrial fibrillation", label(day)),
        ));
    }
    if let Some(last) = inputs.own_weighins().iter().rev().find(|w| w.day <= day)
        && day - last.day >= 7
    {
        out.push(action(
            "body",
            "Weigh in on the next morning you can, before breakfast".into(),
            format!("the last weigh-in was {} days before, on {}", day - last.day, label(last.day)),
        ));
    }
    if day != today
        && let Some(steps) = activity_of(inputs.activity.items(), day).and_then(|a| fin(a.steps))
        && steps < 5000.0
    {
        out.push(action(
            "activity",
            "Add a 20–30 minute walk on the next day".into(),
            format!("{} steps on {}", md::n(steps, 0), label(day)),
        ));
    }
    out
}

/// What the night's readiness asks for: a tracker to check, an easier day and an earlier night,
/// or room for a harder session; worded for the day asked about.
fn readiness_actions(
    inputs: &Inputs,
    day: i64,
    today: i64,
    r: &Readiness,
    label: &dyn Fn(i64) -> String,
) -> Vec<Action> {
    match r.state {
        "insufficient_data" if inputs.nights.failure().is_none() => vec![action(
            "sleep",
            format!(
                "Check that the sleep tracker synced; readiness is unknown without the main sleep ending {}",
                day_word(day, today, label)
            ),
            r.primary.clone(),
        )],
        "low_sleep_score" | "sleep_limited" | "high_activity_low_sleep" | "below_baseline" => {
            let (on, evening) = match day == today {
                true => ("today".to_string(), "tonight"),
                false => (day_word(day, today, label), "that evening"),
            };
            let bed = match r.usual_bedtime.map(|b| bedtime_target(b, 1800)) {
                Some(b) => format!("Aim to be in bed by {b} {evening}, 30 min before your usual bedtime"),
                None => format!("Protect {evening}'s sleep window with an earlier bedtime"),
            };
            vec![
                action("training", format!("Favour easy or moderate effort {on}"), r.primary.clone()),
                action("sleep", bed, r.primary.clone()),
            ]
        }
        // The reason (the readiness line) already says recovery looks normal.
        "well_rested" => {
            vec![action("training", "A harder session fits if one is planned".into(), r.primary.clone())]
        }
        _ => Vec::new(),
    }
}

/// The day as a person says it, seen from `today`: "today", "yesterday", "on Tuesday" within
/// the week before, "on 2026-03-02" further back (a weekday alone would then be ambiguous).
fn day_word(day: i64, today: i64, label: &dyn Fn(i64) -> String) -> String {
    match today - day {
        0 => "today".into(),
        1 => "yesterday".into(),
        2..=6 => format!("on {}", weekday(day)),
        _ => format!("on {}", label(day)),
    }
}

/// The night that ended on `day`: "last night" on the day itself, else named by its morning.
fn night_word(day: i64, today: i64, label: &dyn Fn(i64) -> String) -> String {
    match today - day {
        0 => "last night".into(),
        1 => "the night ending yesterday".into(),
        2..=6 => format!("the night ending on {}", weekday(day)),
        _ => format!("the night ending on {}", label(day)),
    }
}

fn weekday(day: i64) -> &'static str {
    crate::domain::time::CivilDate::from_days(day).weekday_name()
}
