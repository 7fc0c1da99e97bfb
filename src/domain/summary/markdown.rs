//! Markdown renderings of the briefs, from the same typed answer the JSON is written from, so
//! that the text can never say something the JSON does not (and a misspelled field does not
//! compile). Masses are kept unrounded there and converted here before rounding.

use crate::domain::fields::decimal;
use crate::domain::summary::daily::{ActivityOut, Body, HeartOut, NightOut, SleepOut, WeighinOut};
use crate::domain::summary::weekly::{Period, Scorecard};
use crate::domain::summary::{Action, Daily, DomainState, Fresh, Keyed, SAFETY, Weekly};
use crate::domain::units::{self, Units};
use std::fmt::Write as _;

/// Number and word formatting shared by both renderings.
pub(crate) mod md {
    /// A number with thousands separators and `dp` decimals, rounded half away from zero as
    /// the JSON's figures are (a formatter alone rounds 76.535 to 76.53 where the JSON says 76.54).
    pub fn n(x: f64, dp: usize) -> String {
        crate::domain::units::grouped(crate::domain::units::round_to(x, dp as i32), dp)
    }

    /// A signed change, e.g. `+0.4` or `-1.2`.
    pub fn signed(x: f64, dp: usize) -> String {
        let body = n(x, dp);
        if body.starts_with('-') || body.chars().all(|c| c == '0' || c == '.' || c == ',') {
            body
        } else {
            format!("+{body}")
        }
    }

    /// `1 day` or `3 days`.
    pub fn days(n: f64) -> String {
        count(n, "day")
    }

    /// `1 night`, `0 nights`, `3 weigh-ins`: a count and its noun, plural unless it is one.
    pub fn count(n: f64, noun: &str) -> String {
        match n {
            1.0 => format!("1 {noun}"),
            n => format!("{} {noun}s", self::n(n, 0)),
        }
    }

    /// `(text)` for text that may end a sentence: its full stop is dropped, not doubled as `.)`.
    pub fn paren(text: &str) -> String {
        format!("({})", text.trim_end().trim_end_matches('.'))
    }

    /// The text with its first letter upper-case. Our own English labels only, which begin
    /// with an ASCII letter: `char::to_uppercase` would bring Unicode's case tables (about
    /// 12 KB of the static binary) for them.
    pub fn capitalise(text: &str) -> String {
        let mut out = text.to_string();
        if let Some(first) = out.get_mut(..1) {
            first.make_ascii_uppercase();
        }
        out
    }

    /// `7 h 05 min` from hours.
    pub fn hm(hours: f64) -> String {
        let mins = (hours * 60.0).round() as i64;
        match (mins / 60, mins % 60) {
            (0, m) => format!("{m} min"),
            (h, m) => format!("{h} h {m:02} min"),
        }
    }
}

/// A mass in kilograms shown in `u` ("72.4 kg", "159.6 lb", "11 st 5.6 lb"): converted from the
/// unrounded kilograms, then rounded as the JSON rounds.
fn mass(kg: f64, dp: u32, u: Units) -> String {
    match units::convert(kg, "kg", u) {
        Some((lb, _)) if u == Units::Uk => units::stones(lb),
        Some((x, unit)) => format!("{} {unit}", units::fmt_num(units::round_to(x, dp as i32), dp)),
        None => "unknown".into(),
    }
}

/// A change of mass, signed, in `u`: converted from the kilograms given, then rounded.
fn mass_change(kg: f64, dp: usize, u: Units) -> String {
    units::mass_change(kg, dp as u32, u).unwrap_or_else(|| format!("{} kg", md::signed(kg, dp)))
}

/// The change column of a scorecard row: in display units, the difference of the two values as
/// shown (so that a reader's own subtraction agrees); a difference of percentages is in
/// percentage points, with no relative change beside it.
fn change_cell(c: f64, p: f64, pct: Option<f64>, unit: &str, dp: usize, is_mass: bool, u: Units) -> String {
    let (c, p, unit) = match is_mass {
        true => match (units::convert(c, "kg", u), units::convert(p, "kg", u)) {
            (Some((c, label)), Some((p, _))) => (c, p, format!(" {label}")),
            _ => (c, p, " kg".to_string()),
        },
        false => (c, p, unit.to_string()),
    };
    // Stones and pounds are shown to a tenth of a pound.
    let dp = if is_mass && u == Units::Uk { 1 } else { dp };
    let shown = |x: f64| decimal(&md::n(x, dp).replace(',', "")).unwrap_or(x);
    let delta = md::signed(shown(c) - shown(p), dp);
    match (unit.as_str(), pct) {
        (" %", _) => format!("{delta} percentage points"),
        (_, Some(pct)) => format!("{delta}{unit} ({} %)", md::signed(pct, 1)),
        (_, None) => format!("{delta}{unit}"),
    }
}

/// A person-friendly rendering of a [`daily`] answer, with masses and distances in `u`.
pub fn daily_markdown(v: &Daily, u: Units) -> String {
    let date = v.date.as_str();
    let mut out = String::new();
    let suffix = if v.is_today { " (today, day in progress)" } else { "" };
    let _ = write!(out, "# Withings daily brief: {date}{suffix}\n\n");
    match v.status {
        "no_data" => {
            let _ = write!(out, "Nothing was recorded on {date}.\n\n");
        }
        "unavailable" => out.push_str("No Withings data could be read; see Data quality below.\n\n"),
        _ => {}
    }
    let d = &v.diagnostic;
    let _ = write!(
        out,
        "**Readiness:** {} {}\n\n",
        d.readiness_context.replace('_', " "),
        md::paren(&d.primary_signal)
    );
    out.push_str(&daily_sleep(&v.sleep, date, v.is_today));
    out.push_str(&daily_activity(&v.activity, date, v.as_of.as_deref(), u));
    out.push_str(&daily_body(&v.body, date, u));
    out.push_str(&daily_heart(&v.heart));
    out.push_str(&actions_md(&d.action_candidates));
    let q = &v.data_quality;
    out.push_str(&quality_md(q.confidence, &q.confidence_reasons, &q.domains, &v.freshness));
    out
}

/// `## Sleep`: the main sleep ending on the day, and naps apart.
fn daily_sleep(sl: &SleepOut, date: &str, is_today: bool) -> String {
    let mut out = String::from("## Sleep\n");
    match (&sl.main, sl.status) {
        (_, "failed") => {
            let _ = writeln!(out, "- Could not be read: {}", sl.reason.as_deref().unwrap_or("unknown error"));
        }
        (Some(main), _) => out.push_str(&night_lines(main)),
        _ if is_today => out.push_str("- No main sleep has ended yet today.\n"),
        _ => {
            let _ = writeln!(out, "- No main sleep ended on {date}.");
        }
    }
    for nap in &sl.naps {
        let asleep = nap.asleep_h.map(md::hm).unwrap_or_else(|| "unknown time".into());
        let _ = writeln!(
            out,
            "- Nap {}–{}: {asleep} asleep (not counted as the night)",
            nap.bedtime, nap.wake_time
        );
    }
    out
}

/// `## Activity`: the day's totals, in `u` for distances.
fn daily_activity(a: &ActivityOut, date: &str, as_of: Option<&str>, u: Units) -> String {
    let mut out = String::from("\n## Activity\n");
    match a.status {
        "failed" => {
            let _ = writeln!(out, "- Could not be read: {}", a.reason.as_deref().unwrap_or("unknown error"));
        }
        "recorded" => {
            let mut parts = Vec::new();
            if let Some(s) = a.steps {
                parts.push(format!("{} steps", md::n(s as f64, 0)));
            }
            if let Some((d, unit)) = a.distance_km.and_then(|d| units::distance(d * 1000.0, u)) {
                parts.push(format!("{} {unit}", md::n(d, 2)));
            }
            if let Some(m) = a.active_minutes {
                parts.push(format!("{} active min", md::n(m as f64, 0)));
            }
            if let Some(c) = a.active_calories_kcal {
                parts.push(format!("{} kcal active", md::n(c as f64, 0)));
            }
            if let Some(c) = a.total_calories_kcal {
                parts.push(format!("{} kcal total", md::n(c as f64, 0)));
            }
            // A day in progress has totals so far, not the day's.
            match (a.partial_day, as_of) {
                (true, Some(t)) => {
                    let _ = writeln!(out, "- So far today (as of {t}): {}", parts.join(", "));
                }
                _ => {
                    let _ = writeln!(out, "- {}", parts.join(", "));
                }
            }
        }
        _ => {
            let _ = writeln!(out, "- No activity recorded on {date}.");
        }
    }
    out
}

/// `## Body`: the day's weigh-in (or the latest before) and the change since the previous one.
fn daily_body(b: &Body, date: &str, u: Units) -> String {
    let mut out = String::from("\n## Body\n");
    match (b.status, &b.weighin, &b.latest_before) {
        ("failed", _, _) => {
            let _ = writeln!(out, "- Could not be read: {}", b.reason.as_deref().unwrap_or("unknown error"));
        }
        ("measured", Some(w), _) => {
            out.push_str(&weighin_line(w, u));
            if let Some(c) = &b.change
                && let Some(kg) = c.weight_kg.0
            {
                let _ = writeln!(
                    out,
                    "- Change: {} since {} ({})",
                    mass_change(kg, 2, u),
                    c.since_date,
                    md::days(c.days as f64)
                );
            }
        }
        ("not_measured", _, Some(w)) => {
            let _ = writeln!(out, "- No weigh-in on {date}. Latest before:");
            let _ = write!(out, "  {}", weighin_line(w, u));
        }
        _ => out.push_str("- No weigh-ins recorded.\n"),
    }
    if b.excluded_unattributed > 0 {
        let n = b.excluded_unattributed;
        let were = if n == 1 { "was" } else { "were" };
        let _ =
            writeln!(out, "- {} with unclear attribution {were} left out.", md::count(n as f64, "weigh-in"));
    }
    out
}

/// `## Heart`: heart rates, blood pressure and ECGs of the day.
fn daily_heart(h: &HeartOut) -> String {
    let mut out = String::from("\n## Heart\n");
    let mut any = false;
    for (x, what, unit) in [
        (h.sleep_min_hr_bpm, "Lowest heart rate during sleep", "bpm"),
        (h.sleep_avg_hr_bpm, "Average heart rate during sleep", "bpm"),
        (h.sleep_resting_hr_bpm, "Resting heart rate (calmest 30 minutes of sleep)", "bpm"),
        (h.sleep_hrv_rmssd_ms, "HRV during sleep (mean RMSSD)", "ms"),
        (h.weighin_pulse_bpm, "Pulse at the weigh-in", "bpm"),
        (h.latest_heart_rate_bpm, "Latest heart-rate reading", "bpm"),
    ] {
        if let Some(x) = x {
            let _ = writeln!(out, "- {what}: {} {unit}", md::n(x as f64, 0));
            any = true;
        }
    }
    if let Some(bp) = &h.blood_pressure {
        let when = match bp.days_before {
            d if d > 0 => format!(" on {} ({} before)", bp.date, md::days(d as f64)),
            _ => String::new(),
        };
        let (sys, dia) = (bp.systolic_mmhg.unwrap_or(0) as f64, bp.diastolic_mmhg.unwrap_or(0) as f64);
        let flag = match bp.at_or_above_130_80 {
            true => format!(" ({})", bp_over(sys, dia)),
            false => String::new(),
        };
        let _ = writeln!(out, "- Blood pressure{when}: {}/{} mmHg{flag}", md::n(sys, 0), md::n(dia, 0));
        any = true;
    }
    for e in &h.ecg {
        let _ = writeln!(out, "- ECG: {}", e.classification);
        any = true;
    }
    if h.status == "failed" {
        let _ = writeln!(
            out,
            "- Heart records could not be read: {}",
            h.reason.as_deref().unwrap_or("unknown error")
        );
    } else if !any {
        out.push_str("- No heart data for this day.\n");
    }
    out
}

/// Which side of a reading reached the 130/80 mmHg threshold: "diastolic at or above 80 mmHg"
/// for 119/80, not a flag that blames the whole reading.
pub(crate) fn bp_over(sys: f64, dia: f64) -> String {
    match (sys >= 130.0, dia >= 80.0) {
        (true, true) => "systolic at or above 130 and diastolic at or above 80 mmHg".into(),
        (true, false) => "systolic at or above 130 mmHg".into(),
        _ => "diastolic at or above 80 mmHg".into(),
    }
}

fn night_lines(n: &NightOut) -> String {
    let mut out = String::new();
    let asleep = n.asleep_h.map(md::hm).unwrap_or_else(|| "unknown time".into());
    let in_bed = n.in_bed_h.map(md::hm).unwrap_or_default();
    let mut first = format!("- Asleep {asleep} ({} to {}, {in_bed} in bed)", n.bedtime, n.wake_time);
    if let Some(e) = n.efficiency_pct {
        let _ = write!(first, ", efficiency {} %", md::n(e, 1));
    }
    out.push_str(&first);
    out.push('\n');
    let stages: Vec<String> =
        [("deep", n.deep_min), ("light", n.light_min), ("REM", n.rem_min), ("awake", n.awake_min)]
            .iter()
            .filter_map(|(k, m)| m.map(|m| format!("{k} {}", md::hm(m as f64 / 60.0))))
            .collect();
    if !stages.is_empty() {
        let wake = n.wakeups.map(|w| format!("; {}", md::count(w as f64, "wake-up"))).unwrap_or_default();
        let _ = writeln!(out, "- Stages: {}{wake}", stages.join(", "));
    }
    let mut extra = Vec::new();
    if let Some(s) = n.score {
        extra.push(format!("sleep score {s}/100"));
    }
    if let Some(h) = n.hr_average_bpm {
        extra.push(format!("average heart rate {h} bpm"));
    }
    if let Some(h) = n.hr_min_bpm {
        extra.push(format!("lowest {h} bpm"));
    }
    if let Some(r) = n.rr_average_per_min {
        extra.push(format!("breathing {r} /min"));
    }
    if !extra.is_empty() {
        let _ = writeln!(out, "- {}", md::capitalise(&extra.join(", ")));
    }
    out
}

fn weighin_line(w: &WeighinOut, u: Units) -> String {
    let mut parts = vec![match w.weight_kg.0 {
        Some(kg) => mass(kg, 2, u),
        None => "weight unknown".into(),
    }];
    if let Some(x) = w.fat_ratio_pct {
        parts.push(format!("body fat {} %", md::n(x, 1)));
    }
    for (x, what) in [(w.muscle_mass_kg, "muscle"), (w.hydration_kg, "water"), (w.bone_mass_kg, "bone")] {
        if let Some(x) = x.0 {
            parts.push(format!("{what} {}", mass(x, 1, u)));
        }
    }
    format!("- Weigh-in {}: {}\n", w.date, parts.join(", "))
}

/// `## Action candidates` for either brief.
pub(crate) fn actions_md(list: &[Action]) -> String {
    let mut out = String::from("\n## Action candidates\n");
    if list.is_empty() {
        out.push_str("- Nothing stands out; keep your routine.\n");
    }
    for a in list {
        let _ = writeln!(out, "- {} {}", a.action, md::paren(&a.why));
    }
    out
}

/// `## Data quality` for either brief, closed by the safety note.
pub(crate) fn quality_md(
    confidence: &str,
    reasons: &[String],
    domains: &Keyed<DomainState>,
    freshness: &Keyed<Fresh>,
) -> String {
    let mut out = format!("\n## Data quality\n- Confidence: {confidence}");
    if !reasons.is_empty() {
        let _ = write!(out, " ({})", reasons.join("; "));
    }
    out.push('\n');
    for (d, state) in &domains.0 {
        let name = d.replace('_', " ");
        let fresh = match freshness.get(d).map(|f| (&f.newest_date, f.days_ago)) {
            Some((Some(date), Some(0))) => format!("newest sample {date}"),
            Some((Some(date), Some(n))) => format!("newest sample {date}, {} before", md::days(n as f64)),
            _ => "no samples".into(),
        };
        let line = match state.status {
            "failed" => format!(
                "- {name}: could not be read ({})\n",
                state.reason.as_deref().unwrap_or("unknown error")
            ),
            "empty" => format!("- {name}: nothing in range; {fresh}\n"),
            _ => format!("- {name}: ok; {fresh}\n"),
        };
        out.push_str(&line);
    }
    let _ = writeln!(out, "\n_{}_", SAFETY.note);
    out
}

/// A person-friendly rendering of a [`weekly`] answer, with masses in `u`.
pub fn weekly_markdown(w: &Weekly, u: Units) -> String {
    let mut out = format!("# Withings weekly brief: {} to {}\n\n", w.window.start, w.window.end);
    match w.status {
        "no_data" => out.push_str("Nothing was recorded in this window.\n\n"),
        "unavailable" => out.push_str("No Withings data could be read; see Data quality below.\n\n"),
        _ => {}
    }
    let d = &w.diagnostic;
    let _ = write!(out, "**Load:** {} ({})\n\n", d.load_classification.replace('_', " "), d.load_basis);
    out.push_str(&weekly_scorecard(&w.scorecard, u));
    out.push_str("\n## Bottlenecks\n");
    if d.bottlenecks.is_empty() {
        out.push_str("- No bottleneck stands out in this data.\n");
    }
    for b in &d.bottlenecks {
        let _ = writeln!(out, "- {}", b.summary);
    }
    out.push_str("\n## Next-week plan\n");
    if d.next_week_plan.is_empty() {
        out.push_str("- Keep your current routine.\n");
    }
    for p in &d.next_week_plan {
        let _ = writeln!(out, "- **{}:** {} {}", p.area.replace('_', " "), p.target, md::paren(&p.why));
    }
    out.push_str(&actions_md(&d.action_candidates));
    let q = &w.data_quality;
    out.push_str(&quality_md(q.confidence, &q.confidence_reasons, &q.domains, &w.freshness));
    out
}

/// A scorecard row: its key in `delta`, its name, unit, decimals and value in a period.
type Row = (&'static str, &'static str, &'static str, usize, fn(&Period) -> Option<f64>);

const ROWS: [Row; 9] = [
    ("avg_steps", "Steps a day", "", 0, |p| p.avg_steps.map(|x| x as f64)),
    ("avg_active_minutes", "Active minutes a day", " min", 0, |p| p.avg_active_minutes.map(|x| x as f64)),
    ("avg_sleep_hours", "Sleep a night", " h", 2, |p| p.avg_sleep_hours),
    ("avg_sleep_score", "Sleep score", "", 1, |p| p.avg_sleep_score),
    ("avg_sleep_efficiency_pct", "Sleep efficiency", " %", 1, |p| p.avg_sleep_efficiency_pct),
    ("avg_resting_hr_bpm", "Lowest heart rate in sleep", " bpm", 1, |p| p.avg_resting_hr_bpm),
    ("latest_weight_kg", "Latest weight", " kg", 2, |p| p.latest_weight_kg.0),
    ("avg_systolic_mmhg", "Systolic blood pressure", " mmHg", 1, |p| p.avg_systolic_mmhg),
    ("avg_diastolic_mmhg", "Diastolic blood pressure", " mmHg", 1, |p| p.avg_diastolic_mmhg),
];

/// `## Scorecard`: this period against the previous one, then coverage, weight change and bedtimes.
fn weekly_scorecard(sc: &Scorecard, u: Units) -> String {
    let mut out = String::from("## Scorecard\n");
    out.push_str(match sc.previous.is_some() {
        true => "| metric | this period | previous | change |\n|---|---|---|---|\n",
        false => "| metric | this period |\n|---|---|\n",
    });
    for (key, name, unit, dp, get) in ROWS {
        let is_mass = key == "latest_weight_kg";
        // Masses are shown in `u` (stones and pounds in the UK); every other row is unit-neutral.
        let show = |x: Option<f64>| match (x, is_mass) {
            (Some(kg), true) => match units::convert(kg, "kg", u) {
                Some((x, label)) if u != Units::Uk => format!("{} {label}", md::n(x, dp)),
                _ => mass(kg, dp as u32, u),
            },
            (Some(x), false) => format!("{}{unit}", md::n(x, dp)),
            (None, _) => "no data".to_string(),
        };
        let c = get(&sc.current);
        let line = match &sc.previous {
            Some(prev) => {
                let p = get(prev);
                let pct = sc.delta.as_ref().and_then(|d| d.get(key)).and_then(|d| d.change_pct);
                let ch = match (c, p) {
                    (Some(c), Some(p)) => change_cell(c, p, pct, unit, dp, is_mass, u),
                    _ => "n/a (missing on one side)".into(),
                };
                format!("| {name} | {} | {} | {ch} |\n", show(c), show(p))
            }
            None => format!("| {name} | {} |\n", show(c)),
        };
        out.push_str(&line);
    }
    let cur = &sc.current;
    let _ = writeln!(
        out,
        "\nCoverage: sleep on {} of {}, activity on {}, weight on {}.",
        cur.nights_with_sleep,
        md::count(cur.days as f64, "night"),
        md::days(cur.days_with_activity as f64),
        md::days(cur.days_with_weight as f64),
    );
    if let Some(w) = cur.weight_change_kg.0 {
        let how = match cur.weight_change_method {
            Some("median_of_last_3_minus_first_3") => {
                "median of the last 3 weigh-ins minus median of the first 3"
            }
            _ => "last weigh-in minus first",
        };
        let _ = writeln!(out, "Weight change: {} ({how}).", mass_change(w, 2, u));
    }
    if let Some(b) = &cur.avg_bedtime {
        let _ = writeln!(
            out,
            "Average bedtime {b}, average wake-up {}.",
            cur.avg_wake_time.as_deref().unwrap_or_default()
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_blood_pressure_flag_names_the_side_that_crossed() {
        assert_eq!(bp_over(119.0, 80.0), "diastolic at or above 80 mmHg");
        assert_eq!(bp_over(131.0, 70.0), "systolic at or above 130 mmHg");
        assert!(bp_over(135.0, 85.0).contains("systolic") && bp_over(135.0, 85.0).contains("diastolic"));
    }

    #[test]
    fn counts_and_parentheses_read_as_english() {
        assert_eq!(md::count(1.0, "day"), "1 day");
        assert_eq!(md::count(0.0, "night"), "0 nights");
        assert_eq!(md::count(1200.0, "step"), "1,200 steps");
        assert_eq!(md::paren("recovery looks normal."), "(recovery looks normal)");
    }

    #[test]
    fn changes_are_the_difference_of_the_values_shown_in_display_units() {
        // 76.47 and 76.74 kg are 168.59 and 169.18 lb: the change shown is -0.59, not -0.60.
        assert_eq!(change_cell(76.47, 76.74, Some(-0.4), "", 2, true, Units::Imperial), "-0.59 lb (-0.4 %)");
        assert_eq!(
            change_cell(91.8, 91.4, Some(0.4), " %", 1, false, Units::Metric),
            "+0.4 percentage points"
        );
        assert_eq!(change_cell(9671.0, 9546.0, Some(1.3), "", 0, false, Units::Uk), "+125 (+1.3 %)");
    }
}
