//! The daily brief: one civil day's body, sleep, activity and heart, with readiness context.

use serde_json::Value;

use crate::domain::summary::markdown::md;
use crate::domain::summary::{
    Bp, DAILY_LOOKBACK_DAYS, DOMAINS, Inputs, Night, Weighin, activity_of, at_or_above_130_80,
    bedtime_target, clock, domain_quality, fin, freshness, int, main_sleep, median, num, safety,
    unwrap_bedtime,
};
use crate::value::json;

/// Until this local time (10:00) on the day in progress, a main sleep not yet ended (or synced)
/// is the night still going, not a tracker to check.
const NIGHT_OVER_BY_S: i64 = 10 * 3600;

/// The day in progress: its civil day number and the local time now (seconds after midnight).
#[derive(Debug, Clone, Copy)]
pub struct Now {
    pub day: i64,
    pub secs: i64,
}

/// The daily brief for `day`. `now` tells whether the day is still in progress (its activity is
/// partial, its night may not be over) and anchors nothing else. Records outside `day - DAILY_LOOKBACK_DAYS ..= day` are used
/// only as context (previous weigh-in, usual sleep), never as the day's own data.
pub fn daily(inputs: &Inputs, day: i64, now: Now, label: &dyn Fn(i64) -> String) -> Value {
    let today = now.day;
    let body = body(inputs, day, label);
    let sleep = sleep(inputs, day, label);
    let activity = activity(inputs, day, today);
    let heart = heart(inputs, day, label);
    let mut readiness = readiness(inputs, day, today, label);
    let night_open = day == today
        && now.secs < NIGHT_OVER_BY_S
        && sleep["main"].is_null()
        && inputs.nights.failure().is_none();
    if night_open {
        readiness.primary = format!(
            "At {} the night is not over yet or not synced; readiness is judged once you are up.",
            clock(now.secs)
        );
    }
    let recorded: Vec<&str> = DOMAINS.iter().copied().filter(|d| inputs.has_data(d, day, day)).collect();
    let failed: Vec<&str> = DOMAINS.iter().copied().filter(|d| inputs.failure(d).is_some()).collect();
    let status = match (recorded.is_empty(), failed.len()) {
        (_, n) if n == DOMAINS.len() => "unavailable",
        (true, _) => "no_data",
        (false, 0) => "ok",
        (false, _) => "partial",
    };
    let (confidence, reasons) = confidence(inputs, day, &failed);
    let actions = match night_open {
        // Nothing to act on before the night has ended: no "check the tracker" at 04:30.
        true => Vec::new(),
        false => actions(inputs, day, today, &readiness, &heart, label),
    };

    json!({
        "kind": "daily_summary",
        "date": label(day),
        "is_today": day == today,
        // The local time the day in progress was read at: its totals are "so far".
        "as_of": (day == today).then(|| clock(now.secs)),
        "status": status,
        "scorecard": {
            "weight_kg": body["weighin"]["weight_kg"].clone(),
            "sleep_hours": sleep["main"]["asleep_h"].clone(),
            "sleep_score": sleep["main"]["score"].clone(),
            "sleep_efficiency_pct": sleep["main"]["efficiency_pct"].clone(),
            "steps": activity["steps"].clone(),
            "active_minutes": activity["active_minutes"].clone(),
            "resting_hr_bpm": heart["sleep_min_hr_bpm"].clone(),
        },
        "body": body,
        "sleep": sleep,
        "activity": activity,
        "heart": heart,
        "diagnostic": {
            "readiness_context": readiness.state,
            "primary_signal": readiness.primary,
            "readiness_evidence": readiness.evidence,
            "action_candidates": actions,
        },
        "data_quality": {
            "confidence": confidence,
            "confidence_reasons": reasons,
            "recorded": recorded,
            "failed": failed,
            "domains": domain_quality(inputs, day, day),
        },
        "freshness": freshness(inputs, day, label),
        "safety": safety(),
    })
}

fn weighin_json(w: &Weighin, label: &dyn Fn(i64) -> String) -> Value {
    json!({
        "date": label(w.day),
        "t": w.t,
        "weight_kg": num(w.weight_kg, 2),
        "fat_ratio_pct": num(w.fat_ratio_pct, 1),
        "fat_mass_kg": num(w.fat_mass_kg, 2),
        "fat_free_mass_kg": num(w.fat_free_mass_kg, 2),
        "muscle_mass_kg": num(w.muscle_mass_kg, 2),
        "bone_mass_kg": num(w.bone_mass_kg, 2),
        "hydration_kg": num(w.hydration_kg, 2),
        "heart_pulse_bpm": int(w.heart_pulse_bpm),
        "manual": w.manual,
    })
}

fn diff(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    Some(fin(a)? - fin(b)?)
}

fn body(inputs: &Inputs, day: i64, label: &dyn Fn(i64) -> String) -> Value {
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
        (Some(w), Some(p)) => json!({
            // To the gram, so that a change shown in pounds is converted, not re-rounded, kilograms.
            "weight_kg": num(diff(w.weight_kg, p.weight_kg), 3),
            "fat_ratio_pct": num(diff(w.fat_ratio_pct, p.fat_ratio_pct), 1),
            "since_date": label(p.day),
            "days": w.day - p.day,
        }),
        _ => Value::Null,
    };
    json!({
        "status": status,
        "reason": inputs.weighins.failure(),
        "weighin": latest.map(|w| weighin_json(w, label)),
        "change": change,
        "latest_before": match latest {
            None => previous.map(|p| {
                let mut v = weighin_json(p, label);
                v["days_before"] = json!(day - p.day);
                v
            }),
            Some(_) => None,
        },
        "weighins_that_day": that_day.len(),
        "excluded_unattributed": unattributed,
    })
}

fn night_json(n: &Night, label: &dyn Fn(i64) -> String) -> Value {
    let mins = |s: Option<f64>| int(fin(s).map(|s| s / 60.0));
    let efficiency = match (fin(n.asleep_s), fin(n.awake_s)) {
        (Some(a), Some(w)) if a + w > 0.0 => Some(a / (a + w) * 100.0),
        _ => None,
    };
    json!({
        "date": label(n.day),
        "start": n.start,
        "end": n.end,
        "bedtime": clock(n.bedtime_local_s),
        "wake_time": clock(n.wake_local_s),
        "asleep_h": num(fin(n.asleep_s).map(|s| s / 3600.0), 2),
        "in_bed_h": num(Some((n.end - n.start) as f64 / 3600.0), 2),
        "deep_min": mins(n.deep_s),
        "light_min": mins(n.light_s),
        "rem_min": mins(n.rem_s),
        "awake_min": mins(n.awake_s),
        "wakeups": int(n.wakeups),
        "score": int(n.score),
        "efficiency_pct": num(efficiency, 1),
        "hr_average_bpm": int(n.hr_average),
        "hr_min_bpm": int(n.hr_min),
        "rr_average_per_min": num(n.rr_average, 1),
    })
}

fn sleep(inputs: &Inputs, day: i64, label: &dyn Fn(i64) -> String) -> Value {
    let nights = inputs.nights.items();
    let main = main_sleep(nights, day);
    let naps: Vec<Value> =
        nights.iter().filter(|n| n.day == day && n.nap).map(|n| night_json(n, label)).collect();
    let others: Vec<Value> = nights
        .iter()
        .filter(|n| n.day == day && !n.nap && main.is_some_and(|m| !std::ptr::eq(*n, m)))
        .map(|n| night_json(n, label))
        .collect();
    let status = match (inputs.nights.failure(), main, naps.is_empty()) {
        (Some(_), _, _) => "failed",
        (None, Some(_), _) => "recorded",
        (None, None, false) => "naps_only",
        (None, None, true) => "no_data",
    };
    json!({
        "status": status,
        "reason": inputs.nights.failure(),
        "main": main.map(|n| night_json(n, label)),
        "naps": naps,
        "other_sessions": others,
    })
}

fn activity(inputs: &Inputs, day: i64, today: i64) -> Value {
    let a = activity_of(inputs.activity.items(), day);
    let status = match (inputs.activity.failure(), a) {
        (Some(_), _) => "failed",
        (None, Some(_)) => "recorded",
        (None, None) => "no_data",
    };
    let get = |f: fn(&crate::domain::summary::ActivityDay) -> Option<f64>| a.and_then(|a| fin(f(a)));
    json!({
        "status": status,
        "reason": inputs.activity.failure(),
        "partial_day": day == today,
        "steps": int(get(|a| a.steps)),
        "distance_km": num(get(|a| a.distance_m).map(|m| m / 1000.0), 2),
        "active_minutes": int(get(|a| a.active_s).map(|s| s / 60.0)),
        "moderate_minutes": int(get(|a| a.moderate_s).map(|s| s / 60.0)),
        "intense_minutes": int(get(|a| a.intense_s).map(|s| s / 60.0)),
        "active_calories_kcal": int(get(|a| a.calories)),
        "total_calories_kcal": int(get(|a| a.total_calories)),
        "hr_average_bpm": int(get(|a| a.hr_average)),
    })
}

/// The latest BP reading on `day`, else the latest in the 7 days before it.
fn latest_bp(inputs: &Inputs, day: i64) -> Option<Bp> {
    let all = inputs.bp_readings();
    let on_day = all.iter().rev().find(|b| b.day == day);
    on_day.or_else(|| all.iter().rev().find(|b| b.day < day && b.day >= day - 7)).copied()
}

fn heart(inputs: &Inputs, day: i64, label: &dyn Fn(i64) -> String) -> Value {
    let main = main_sleep(inputs.nights.items(), day);
    let pulse =
        inputs.own_weighins().iter().rev().find(|w| w.day == day).and_then(|w| fin(w.heart_pulse_bpm));
    let records: Vec<_> = inputs.heart.items().iter().filter(|h| h.day == day).collect();
    let latest_hr = records.iter().filter(|h| fin(h.heart_rate).is_some()).max_by_key(|h| h.t);
    let bp = latest_bp(inputs, day);
    let bp_count = inputs.bp_readings().iter().filter(|b| b.day == day).count();
    let mut ecgs: Vec<_> = records.iter().filter(|h| h.ecg.is_some()).collect();
    crate::sort::by_key(&mut ecgs, |h| h.t);
    let ecg: Vec<Value> = ecgs
        .iter()
        .map(|h| json!({"t": h.t, "classification": h.ecg.clone().unwrap_or_default(), "heart_rate_bpm": int(h.heart_rate)}))
        .collect();
    json!({
        "status": match inputs.heart.failure() { Some(_) => "failed", None => "ok" },
        "reason": inputs.heart.failure(),
        "sleep_min_hr_bpm": int(main.and_then(|n| n.hr_min)),
        "sleep_avg_hr_bpm": int(main.and_then(|n| n.hr_average)),
        "sleep_resting_hr_bpm": int(main.and_then(|n| n.rest_hr)),
        "sleep_hrv_rmssd_ms": int(main.and_then(|n| n.hrv_rmssd)),
        "weighin_pulse_bpm": int(pulse),
        "latest_heart_rate_bpm": int(latest_hr.and_then(|h| h.heart_rate)),
        "blood_pressure": bp.map(|b| json!({
            "date": label(b.day),
            "t": b.t,
            "systolic_mmhg": int(Some(b.sys)),
            "diastolic_mmhg": int(Some(b.dia)),
            "pulse_bpm": int(b.pulse),
            "days_before": day - b.day,
            "at_or_above_130_80": at_or_above_130_80(b.sys, b.dia),
        })),
        "bp_readings_that_day": bp_count,
        "ecg": ecg,
    })
}

/// Readiness context: last night's sleep against the person's own recent nights.
struct Readiness {
    state: &'static str,
    primary: String,
    evidence: Value,
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
        evidence: json!({
            "sleep_hours": num(hours, 2),
            "sleep_score": int(score),
            "usual_sleep_hours": num(usual_hours, 2),
            "usual_nights": prior.len(),
            "previous_day_steps": int(prev_steps),
            // The usual bedtime, and the one an early night aims at (30 min before, on a quarter).
            "usual_bedtime": usual_bedtime.map(clock),
            "bedtime_target": usual_bedtime.map(|b| bedtime_target(b, 1800)),
        }),
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

fn action(area: &str, action: String, why: String) -> Value {
    json!({"area": area, "action": action, "why": why})
}

fn actions(
    inputs: &Inputs,
    day: i64,
    today: i64,
    r: &Readiness,
    heart: &Value,
    label: &dyn Fn(i64) -> String,
) -> Vec<Value> {
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
    let bedtime = r.usual_bedtime.map(|b| bedtime_target(b, 1800));
    match r.state {
        "insufficient_data" if inputs.nights.failure().is_none() => out.push(action(
            "sleep",
            format!(
                "Check that the sleep tracker synced; readiness is unknown without the main sleep ending {}",
                day_word(day, today, label)
            ),
            r.primary.clone(),
        )),
        "low_sleep_score" | "sleep_limited" | "high_activity_low_sleep" | "below_baseline" => {
            let (on, evening) = match day == today {
                true => ("today".to_string(), "tonight"),
                false => (day_word(day, today, label), "that evening"),
            };
            out.push(action("training", format!("Favour easy or moderate effort {on}"), r.primary.clone()));
            let act = match &bedtime {
                Some(b) => format!("Aim to be in bed by {b} {evening}, 30 min before your usual bedtime"),
                None => format!("Protect {evening}'s sleep window with an earlier bedtime"),
            };
            out.push(action("sleep", act, r.primary.clone()));
        }
        "well_rested" => out.push(action(
            "training",
            // The reason (the readiness line) already says recovery looks normal.
            "A harder session fits if one is planned".into(),
            r.primary.clone(),
        )),
        _ => {}
    }
    if let (Some(s), Some(d)) =
        (heart.pointer("/blood_pressure/systolic_mmhg"), heart.pointer("/blood_pressure/diastolic_mmhg"))
        && heart.pointer("/blood_pressure/at_or_above_130_80") == Some(&Value::Bool(true))
    {
        let date = heart.pointer("/blood_pressure/date").and_then(Value::as_str).unwrap_or_default();
        out.push(action(
            "blood_pressure",
            "Repeat the reading seated after 5 minutes of rest; if readings stay at or above 130/80 mmHg, discuss them with a clinician".into(),
            format!(
                "latest reading {s}/{d} mmHg on {date}: {}",
                crate::domain::summary::markdown::bp_over(s.as_f64().unwrap_or(0.0), d.as_f64().unwrap_or(0.0))
            ),
        ));
    }
    let afib = inputs.heart.items().iter().any(|h| h.day == day && h.ecg.as_deref() == Some("afib"));
    if afib {
        out.push(action(
            "heart",
            "Share the ECG recording with a clinician".into(),
            format!("an ECG on {} was classified as possible atrial fibrillation", label(day)),
        ));
    }
    let own = inputs.own_weighins();
    if let Some(last) = own.iter().rev().find(|w| w.day <= day)
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
