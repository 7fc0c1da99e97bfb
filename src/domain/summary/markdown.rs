//! Markdown renderings of the briefs, read back from the structured answer so that the text can
//! never say something the JSON does not.

use serde_json::Value;

use crate::domain::summary::DOMAINS;
use crate::domain::units::{self, Units};

/// Field readers and number formatting shared by both renderings.
pub(crate) mod md {
    use serde_json::Value;

    pub fn f(v: &Value, ptr: &str) -> Option<f64> {
        v.pointer(ptr).and_then(Value::as_f64)
    }

    pub fn s<'a>(v: &'a Value, ptr: &str) -> Option<&'a str> {
        v.pointer(ptr).and_then(Value::as_str)
    }

    /// A number with thousands separators and `dp` decimals.
    pub fn n(x: f64, dp: usize) -> String {
        crate::domain::units::grouped(x, dp)
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

    pub fn capitalise(text: &str) -> String {
        let mut c = text.chars();
        match c.next() {
            Some(first) => first.to_uppercase().chain(c).collect(),
            None => String::new(),
        }
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

/// A mass in kilograms shown in `units` ("72.4 kg", "159.6 lb", "11 st 5.6 lb").
fn mass(kg: f64, dp: u32, u: Units) -> String {
    units::format_quantity(kg, "kg", u, dp).unwrap_or_else(|| format!("{} kg", md::n(kg, dp as usize)))
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
    let shown = |x: f64| md::n(x, dp).replace(',', "").parse::<f64>().unwrap_or(x);
    let delta = md::signed(shown(c) - shown(p), dp);
    match (unit.as_str(), pct) {
        (" %", _) => format!("{delta} percentage points"),
        (_, Some(pct)) => format!("{delta}{unit} ({} %)", md::signed(pct, 1)),
        (_, None) => format!("{delta}{unit}"),
    }
}

/// A person-friendly rendering of a [`daily`] answer, with masses and distances in `u`.
pub fn daily_markdown(v: &Value, u: Units) -> String {
    let date = md::s(v, "/date").unwrap_or("?");
    let mut out = String::new();
    let suffix = match v["is_today"].as_bool() {
        Some(true) => " (today, day in progress)",
        _ => "",
    };
    out.push_str(&format!("# Withings daily brief: {date}{suffix}\n\n"));
    match md::s(v, "/status") {
        Some("no_data") => out.push_str(&format!("Nothing was recorded on {date}.\n\n")),
        Some("unavailable") => out.push_str("No Withings data could be read; see Data quality below.\n\n"),
        _ => {}
    }
    if let Some(p) = md::s(v, "/diagnostic/primary_signal") {
        out.push_str(&format!(
            "**Readiness:** {} {}\n\n",
            md::s(v, "/diagnostic/readiness_context").unwrap_or("?").replace('_', " "),
            md::paren(p)
        ));
    }

    out.push_str(&daily_sleep(v, date));
    out.push_str(&daily_activity(v, date, u));
    out.push_str(&daily_body(v, date, u));
    out.push_str(&daily_heart(v));
    out.push_str(&actions_md(&v["diagnostic"]["action_candidates"]));
    out.push_str(&quality_md(v));
    out
}

/// `## Sleep`: the main sleep ending on the day, and naps apart.
fn daily_sleep(v: &Value, date: &str) -> String {
    let mut out = String::new();
    out.push_str("## Sleep\n");
    match md::s(v, "/sleep/status") {
        Some("failed") => out.push_str(&format!(
            "- Could not be read: {}\n",
            md::s(v, "/sleep/reason").unwrap_or("unknown error")
        )),
        _ if v["sleep"]["main"].is_object() => out.push_str(&night_lines(&v["sleep"]["main"])),
        _ if v["is_today"] == true => out.push_str("- No main sleep has ended yet today.\n"),
        _ => out.push_str(&format!("- No main sleep ended on {date}.\n")),
    }
    for nap in v["sleep"]["naps"].as_array().into_iter().flatten() {
        let asleep = md::f(nap, "/asleep_h").map(md::hm).unwrap_or_else(|| "unknown time".into());
        out.push_str(&format!(
            "- Nap {}–{}: {asleep} asleep (not counted as the night)\n",
            md::s(nap, "/bedtime").unwrap_or("?"),
            md::s(nap, "/wake_time").unwrap_or("?")
        ));
    }
    out
}

/// `## Activity`: the day's totals, in `u` for distances.
fn daily_activity(v: &Value, date: &str, u: Units) -> String {
    let mut out = String::new();
    out.push_str("\n## Activity\n");
    let a = &v["activity"];
    match md::s(a, "/status") {
        Some("failed") => out
            .push_str(&format!("- Could not be read: {}\n", md::s(a, "/reason").unwrap_or("unknown error"))),
        Some("recorded") => {
            let mut parts = Vec::new();
            if let Some(s) = md::f(a, "/steps") {
                parts.push(format!("{} steps", md::n(s, 0)));
            }
            if let Some((d, unit)) = md::f(a, "/distance_km").and_then(|d| units::distance(d * 1000.0, u)) {
                parts.push(format!("{} {unit}", md::n(d, 2)));
            }
            if let Some(m) = md::f(a, "/active_minutes") {
                parts.push(format!("{} active min", md::n(m, 0)));
            }
            if let Some(c) = md::f(a, "/active_calories_kcal") {
                parts.push(format!("{} kcal active", md::n(c, 0)));
            }
            if let Some(c) = md::f(a, "/total_calories_kcal") {
                parts.push(format!("{} kcal total", md::n(c, 0)));
            }
            // A day in progress has totals so far, not the day's.
            match (a["partial_day"].as_bool(), md::s(v, "/as_of")) {
                (Some(true), Some(t)) => {
                    out.push_str(&format!("- So far today (as of {t}): {}\n", parts.join(", ")))
                }
                _ => out.push_str(&format!("- {}\n", parts.join(", "))),
            }
        }
        _ => out.push_str(&format!("- No activity recorded on {date}.\n")),
    }
    out
}

/// `## Body`: the day's weigh-in (or the latest before) and the change since the previous one.
fn daily_body(v: &Value, date: &str, u: Units) -> String {
    let mut out = String::new();
    out.push_str("\n## Body\n");
    let b = &v["body"];
    match md::s(b, "/status") {
        Some("failed") => out
            .push_str(&format!("- Could not be read: {}\n", md::s(b, "/reason").unwrap_or("unknown error"))),
        Some("measured") => {
            out.push_str(&weighin_line(&b["weighin"], u));
            if let Some(c) = md::f(b, "/change/weight_kg") {
                out.push_str(&format!(
                    "- Change: {} since {} ({})\n",
                    mass_change(c, 2, u),
                    md::s(b, "/change/since_date").unwrap_or("?"),
                    md::days(md::f(b, "/change/days").unwrap_or(0.0))
                ));
            }
        }
        Some("not_measured") => {
            out.push_str(&format!("- No weigh-in on {date}. Latest before:\n"));
            out.push_str(&format!("  {}", weighin_line(&b["latest_before"], u)));
        }
        _ => out.push_str("- No weigh-ins recorded.\n"),
    }
    if let Some(n) = md::f(b, "/excluded_unattributed").filter(|n| *n > 0.0) {
        let were = if n == 1.0 { "was" } else { "were" };
        out.push_str(&format!("- {} with unclear attribution {were} left out.\n", md::count(n, "weigh-in")));
    }
    out
}

/// `## Heart`: heart rates, blood pressure and ECGs of the day.
fn daily_heart(v: &Value) -> String {
    let mut out = String::new();
    out.push_str("\n## Heart\n");
    let h = &v["heart"];
    let mut any = false;
    for (ptr, what, unit) in [
        ("/sleep_min_hr_bpm", "Lowest heart rate during sleep", "bpm"),
        ("/sleep_avg_hr_bpm", "Average heart rate during sleep", "bpm"),
        ("/sleep_resting_hr_bpm", "Resting heart rate (calmest 30 minutes of sleep)", "bpm"),
        ("/sleep_hrv_rmssd_ms", "HRV during sleep (mean RMSSD)", "ms"),
        ("/weighin_pulse_bpm", "Pulse at the weigh-in", "bpm"),
        ("/latest_heart_rate_bpm", "Latest heart-rate reading", "bpm"),
    ] {
        if let Some(x) = md::f(h, ptr) {
            out.push_str(&format!("- {what}: {} {unit}\n", md::n(x, 0)));
            any = true;
        }
    }
    if h["blood_pressure"].is_object() {
        let bp = &h["blood_pressure"];
        let when = match md::f(bp, "/days_before") {
            Some(d) if d > 0.0 => {
                format!(" on {} ({} before)", md::s(bp, "/date").unwrap_or("?"), md::days(d))
            }
            _ => String::new(),
        };
        let (sys, dia) =
            (md::f(bp, "/systolic_mmhg").unwrap_or(0.0), md::f(bp, "/diastolic_mmhg").unwrap_or(0.0));
        let flag = match bp["at_or_above_130_80"].as_bool() == Some(true) {
            true => format!(" ({})", bp_over(sys, dia)),
            false => String::new(),
        };
        out.push_str(&format!("- Blood pressure{when}: {}/{} mmHg{flag}\n", md::n(sys, 0), md::n(dia, 0)));
        any = true;
    }
    for e in h["ecg"].as_array().into_iter().flatten() {
        out.push_str(&format!("- ECG: {}\n", md::s(e, "/classification").unwrap_or("unclassified")));
        any = true;
    }
    if md::s(h, "/status") == Some("failed") {
        out.push_str(&format!(
            "- Heart records could not be read: {}\n",
            md::s(h, "/reason").unwrap_or("unknown error")
        ));
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

fn night_lines(n: &Value) -> String {
    let mut out = String::new();
    let asleep = md::f(n, "/asleep_h").map(md::hm).unwrap_or_else(|| "unknown time".into());
    let mut first = format!(
        "- Asleep {asleep} ({} to {}, {} in bed)",
        md::s(n, "/bedtime").unwrap_or("?"),
        md::s(n, "/wake_time").unwrap_or("?"),
        md::f(n, "/in_bed_h").map(md::hm).unwrap_or_else(|| "?".into())
    );
    if let Some(e) = md::f(n, "/efficiency_pct") {
        first.push_str(&format!(", efficiency {} %", md::n(e, 1)));
    }
    out.push_str(&first);
    out.push('\n');
    let stages: Vec<String> =
        [("deep", "/deep_min"), ("light", "/light_min"), ("REM", "/rem_min"), ("awake", "/awake_min")]
            .iter()
            .filter_map(|(k, p)| md::f(n, p).map(|m| format!("{k} {}", md::hm(m / 60.0))))
            .collect();
    if !stages.is_empty() {
        let wake = md::f(n, "/wakeups").map(|w| format!("; {}", md::count(w, "wake-up"))).unwrap_or_default();
        out.push_str(&format!("- Stages: {}{wake}\n", stages.join(", ")));
    }
    let mut extra = Vec::new();
    if let Some(s) = md::f(n, "/score") {
        extra.push(format!("sleep score {s}/100"));
    }
    if let Some(h) = md::f(n, "/hr_average_bpm") {
        extra.push(format!("average heart rate {h} bpm"));
    }
    if let Some(h) = md::f(n, "/hr_min_bpm") {
        extra.push(format!("lowest {h} bpm"));
    }
    if let Some(r) = md::f(n, "/rr_average_per_min") {
        extra.push(format!("breathing {r} /min"));
    }
    if !extra.is_empty() {
        out.push_str(&format!("- {}\n", md::capitalise(&extra.join(", "))));
    }
    out
}

fn weighin_line(w: &Value, u: Units) -> String {
    let mut parts = vec![match md::f(w, "/weight_kg") {
        Some(kg) => mass(kg, 2, u),
        None => "weight unknown".into(),
    }];
    if let Some(x) = md::f(w, "/fat_ratio_pct") {
        parts.push(format!("body fat {} %", md::n(x, 1)));
    }
    for (p, what) in [("/muscle_mass_kg", "muscle"), ("/hydration_kg", "water"), ("/bone_mass_kg", "bone")] {
        if let Some(x) = md::f(w, p) {
            parts.push(format!("{what} {}", mass(x, 1, u)));
        }
    }
    format!("- Weigh-in {}: {}\n", md::s(w, "/date").unwrap_or("?"), parts.join(", "))
}

/// `## Action candidates` for either brief.
pub(crate) fn actions_md(list: &Value) -> String {
    let mut out = String::from("\n## Action candidates\n");
    let items: Vec<&Value> = list.as_array().into_iter().flatten().collect();
    if items.is_empty() {
        out.push_str("- Nothing stands out; keep your routine.\n");
    }
    for a in items {
        out.push_str(&format!(
            "- {} {}\n",
            md::s(a, "/action").unwrap_or("?"),
            md::paren(md::s(a, "/why").unwrap_or("?"))
        ));
    }
    out
}

/// `## Data quality` for either brief.
pub(crate) fn quality_md(v: &Value) -> String {
    let q = &v["data_quality"];
    let mut out = format!("\n## Data quality\n- Confidence: {}", md::s(q, "/confidence").unwrap_or("?"));
    let reasons: Vec<&str> =
        q["confidence_reasons"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
    if !reasons.is_empty() {
        out.push_str(&format!(" ({})", reasons.join("; ")));
    }
    out.push('\n');
    for d in DOMAINS {
        let name = d.replace('_', " ");
        let fresh = match (
            md::s(v, &format!("/freshness/{d}/newest_date")),
            md::f(v, &format!("/freshness/{d}/days_ago")),
        ) {
            (Some(date), Some(0.0)) => format!("newest sample {date}"),
            (Some(date), Some(n)) => format!("newest sample {date}, {} before", md::days(n)),
            _ => "no samples".into(),
        };
        let line = match md::s(q, &format!("/domains/{d}/status")) {
            Some("failed") => format!(
                "- {name}: could not be read ({})\n",
                md::s(q, &format!("/domains/{d}/reason")).unwrap_or("unknown error")
            ),
            Some("empty") => format!("- {name}: nothing in range; {fresh}\n"),
            _ => format!("- {name}: ok; {fresh}\n"),
        };
        out.push_str(&line);
    }
    out.push_str(&format!("\n_{}_\n", md::s(v, "/safety/note").unwrap_or("")));
    out
}

/// A person-friendly rendering of a [`weekly`] answer, with masses in `u`.
pub fn weekly_markdown(v: &Value, u: Units) -> String {
    let mut out = format!(
        "# Withings weekly brief: {} to {}\n\n",
        md::s(v, "/window/start").unwrap_or("?"),
        md::s(v, "/window/end").unwrap_or("?")
    );
    match md::s(v, "/status") {
        Some("no_data") => out.push_str("Nothing was recorded in this window.\n\n"),
        Some("unavailable") => out.push_str("No Withings data could be read; see Data quality below.\n\n"),
        _ => {}
    }
    let d = &v["diagnostic"];
    out.push_str(&format!(
        "**Load:** {} ({})\n\n",
        md::s(d, "/load_classification").unwrap_or("?").replace('_', " "),
        md::s(d, "/load_basis").unwrap_or("")
    ));

    out.push_str(&weekly_scorecard(v, u));
    out.push_str("\n## Bottlenecks\n");
    let bs: Vec<&Value> = d["bottlenecks"].as_array().into_iter().flatten().collect();
    if bs.is_empty() {
        out.push_str("- No bottleneck stands out in this data.\n");
    }
    for b in bs {
        out.push_str(&format!("- {}\n", md::s(b, "/summary").unwrap_or("?")));
    }
    out.push_str("\n## Next-week plan\n");
    let plan: Vec<&Value> = d["next_week_plan"].as_array().into_iter().flatten().collect();
    if plan.is_empty() {
        out.push_str("- Keep your current routine.\n");
    }
    for p in plan {
        out.push_str(&format!(
            "- **{}:** {} {}\n",
            md::s(p, "/area").unwrap_or("?").replace('_', " "),
            md::s(p, "/target").unwrap_or("?"),
            md::paren(md::s(p, "/why").unwrap_or("?"))
        ));
    }
    out.push_str(&actions_md(&d["action_candidates"]));
    out.push_str(&quality_md(v));
    out
}

/// `## Scorecard`: this period against the previous one, then coverage, weight change and bedtimes.
fn weekly_scorecard(v: &Value, u: Units) -> String {
    let mut out = String::new();
    let has_prev = v["scorecard"]["previous"].is_object();
    out.push_str("## Scorecard\n");
    out.push_str(match has_prev {
        true => "| metric | this period | previous | change |\n|---|---|---|---|\n",
        false => "| metric | this period |\n|---|---|\n",
    });
    let rows: [(&str, &str, &str, usize); 9] = [
        ("avg_steps", "Steps a day", "", 0),
        ("avg_active_minutes", "Active minutes a day", " min", 0),
        ("avg_sleep_hours", "Sleep a night", " h", 2),
        ("avg_sleep_score", "Sleep score", "", 1),
        ("avg_sleep_efficiency_pct", "Sleep efficiency", " %", 1),
        ("avg_resting_hr_bpm", "Lowest heart rate in sleep", " bpm", 1),
        ("latest_weight_kg", "Latest weight", " kg", 2),
        ("avg_systolic_mmhg", "Systolic blood pressure", " mmHg", 1),
        ("avg_diastolic_mmhg", "Diastolic blood pressure", " mmHg", 1),
    ];
    for (key, name, unit, dp) in rows {
        let value = |side: &str| md::f(v, &format!("/scorecard/{side}/{key}"));
        let (c, p) = (value("current"), value("previous"));
        // Masses are shown in `u` (stones and pounds in the UK); every other row is unit-neutral.
        let show = |x: Option<f64>| match (x, key) {
            (Some(kg), "latest_weight_kg") => match units::convert(kg, "kg", u) {
                Some((x, label)) if u != Units::Uk => format!("{} {label}", md::n(x, dp)),
                _ => mass(kg, dp as u32, u),
            },
            (Some(x), _) => format!("{}{unit}", md::n(x, dp)),
            (None, _) => "no data".to_string(),
        };
        let line = match has_prev {
            true => {
                let pct = md::f(v, &format!("/scorecard/delta/{key}/change_pct"));
                let ch = match (c, p) {
                    (Some(c), Some(p)) => change_cell(c, p, pct, unit, dp, key == "latest_weight_kg", u),
                    _ => "n/a (missing on one side)".into(),
                };
                format!("| {name} | {} | {} | {ch} |\n", show(c), show(p))
            }
            false => format!("| {name} | {} |\n", show(c)),
        };
        out.push_str(&line);
    }
    let cur = &v["scorecard"]["current"];
    out.push_str(&format!(
        "\nCoverage: sleep on {} of {}, activity on {}, weight on {}.\n",
        md::f(cur, "/nights_with_sleep").unwrap_or(0.0),
        md::count(md::f(cur, "/days").unwrap_or(0.0), "night"),
        md::days(md::f(cur, "/days_with_activity").unwrap_or(0.0)),
        md::days(md::f(cur, "/days_with_weight").unwrap_or(0.0)),
    ));
    if let Some(w) = md::f(cur, "/weight_change_kg") {
        let how = match md::s(cur, "/weight_change_method") {
            Some("median_of_last_3_minus_first_3") => {
                "median of the last 3 weigh-ins minus median of the first 3"
            }
            _ => "last weigh-in minus first",
        };
        out.push_str(&format!("Weight change: {} ({how}).\n", mass_change(w, 2, u)));
    }
    if let Some(b) = md::s(cur, "/avg_bedtime") {
        out.push_str(&format!(
            "Average bedtime {b}, average wake-up {}.\n",
            md::s(cur, "/avg_wake_time").unwrap_or("?")
        ));
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
