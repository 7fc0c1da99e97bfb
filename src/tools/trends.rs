//! `withings_trends` and `withings_chart`: is a change real, and what does it look like?
//!
//! Readings come from the same range queries as the list tools (one domain, one range), go
//! through `domain::trends` (MAD outlier rejection, a local linear trend without lag, Theil–Sen
//! slope with an interval, a verdict outside the noise) in SI units, and are converted for
//! display last.

use serde_json::{Map, Value};
use std::fmt::Write as _;

use crate::domain::activity::ActivityDay;
use crate::domain::chart::{self, ChartPoint, ChartSpec, XTick};
use crate::domain::intraday;
use crate::domain::measures::GroupValues;
use crate::domain::named::Named;
use crate::domain::sleep::{SleepField, SleepNight};
use crate::domain::time::{self, CivilDate, Instant, Range, Zone};
use crate::domain::trends::{self, Bounds, Reading, Trend, Window};
use crate::domain::units::{self, Units};
use crate::text;
use crate::tools::data::{self, Source};
use crate::tools::intraday as tools_intraday;
use crate::tools::trend_output::{
    RecompositionOut, RegularityOut, RejectedOut, SeriesPoint, SlopeOut, SriOut, TimingOut, TrendOut,
};
use crate::tools::{Annotations, Ctx, Output, Tool};
use crate::value::json;
use crate::withings::client::Client;
use crate::withings::wire::activity::ActivityWire;
use crate::withings::wire::sleep::{NightWire, SegmentWire};
use crate::{Error, Result};

/// Days covered when `after` is not given.
pub const DEFAULT_DAYS: i64 = 90;
/// Most points of the smoothed series returned (every `series_step`-th, ending on the latest).
const MAX_SERIES_POINTS: usize = 200;

/// What one reading of a metric is, and so which domain it comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Read {
    /// One measure type of the `getmeas` groups (weight 1, fat ratio 6, …).
    Measure(i64),
    /// Hours asleep in a night (naps left out).
    SleepHours,
    /// A night's sleep score.
    SleepScore,
    /// The lowest heart rate of a night's sleep.
    SleepMinHr,
    /// Steps of a civil day.
    Steps,
    /// The mean of one intraday field (`rmssd`, `spo2_auto`) over the samples taken during a
    /// night's main sleep: one request a night (the 24 hours before the wake-up).
    Asleep(&'static str),
}

impl Read {
    fn source(self) -> Source {
        match self {
            Read::Measure(_) => Source::Measures,
            Read::SleepHours | Read::SleepScore | Read::SleepMinHr | Read::Asleep(_) => Source::SleepSummary,
            Read::Steps => Source::Activity,
        }
    }
}

/// One metric: where its readings come from and what counts as noise.
struct Metric {
    name: &'static str,
    label: &'static str,
    /// SI unit label.
    unit: &'static str,
    read: Read,
    /// Body composition: the answer adds fat versus lean mass.
    composition: bool,
    /// Smallest change per week worth calling a trend.
    min_change_per_week: f64,
    /// Floor for the robust spread, so honest small changes are not rejected as outliers.
    min_spread: f64,
    plausible: Bounds,
    /// Decimals shown.
    decimals: u32,
}

const METRICS: &[Metric] = &[
    metric("weight", "Weight", "kg", Read::Measure(1), 0.1, 0.3, 20.0, 400.0, 1),
    metric("fat_ratio", "Fat ratio", "%", Read::Measure(6), 0.1, 0.3, 2.0, 75.0, 1),
    metric("fat_mass", "Fat mass", "kg", Read::Measure(8), 0.1, 0.3, 1.0, 250.0, 1),
    metric("muscle_mass", "Muscle mass", "kg", Read::Measure(76), 0.1, 0.3, 10.0, 200.0, 1),
    metric("resting_hr", "Resting heart rate", "bpm", Read::SleepMinHr, 0.5, 1.0, 25.0, 200.0, 0),
    metric("systolic", "Systolic blood pressure", "mmHg", Read::Measure(10), 0.5, 2.0, 60.0, 260.0, 0),
    metric("diastolic", "Diastolic blood pressure", "mmHg", Read::Measure(9), 0.5, 2.0, 30.0, 160.0, 0),
    metric("sleep_duration", "Sleep duration", "h", Read::SleepHours, 0.1, 0.25, 0.5, 16.0, 2),
    metric("sleep_score", "Sleep score", "", Read::SleepScore, 0.5, 2.0, 1.0, 100.0, 0),
    metric("steps", "Steps", "steps", Read::Steps, 200.0, 500.0, 0.0, 100_000.0, 0),
    // Night-to-night RMSSD varies by about a tenth: 3 ms of spread, 1 ms a week worth a word.
    metric("hrv", "HRV during sleep", "ms", Read::Asleep("rmssd"), 1.0, 3.0, 5.0, 300.0, 0),
    metric("spo2", "SpO2 during sleep", "%", Read::Asleep("spo2_auto"), 0.2, 0.5, 70.0, 100.0, 1),
];

/// Days covered when `after` is not given, for a metric read night by night from the watch's
/// samples: 30 nights and the summaries are 31 requests, well inside a call's budget.
const ASLEEP_DEFAULT_DAYS: i64 = 30;

/// What a rising or falling verdict means for the person, where the direction matters: for HRV a
/// rise is good news; for SpO2 only a drop is.
fn meaning(read: Read, verdict: trends::Verdict) -> Option<&'static str> {
    match (read, verdict) {
        (Read::Asleep("rmssd"), trends::Verdict::Rising) => {
            Some("a rising HRV usually means better recovery")
        }
        (Read::Asleep("rmssd"), trends::Verdict::Falling) => {
            Some("a falling HRV can come with strain, illness, alcohol or short sleep")
        }
        (Read::Asleep("spo2_auto"), trends::Verdict::Falling) => Some(
            "a falling SpO2 during sleep is the direction that matters; if it stays down, talk to a clinician",
        ),
        _ => None,
    }
}

#[allow(clippy::too_many_arguments)]
const fn metric(
    name: &'static str,
    label: &'static str,
    unit: &'static str,
    read: Read,
    min_change_per_week: f64,
    min_spread: f64,
    lo: f64,
    hi: f64,
    decimals: u32,
) -> Metric {
    Metric {
        name,
        label,
        unit,
        read,
        // Fat ratio, fat mass, muscle mass and weight: the masses that recomposition splits.
        composition: matches!(read, Read::Measure(1 | 6 | 8 | 76)),
        min_change_per_week,
        min_spread,
        plausible: Bounds { min: lo, max: hi },
        decimals,
    }
}

fn metric_names() -> Vec<&'static str> {
    METRICS.iter().map(|m| m.name).collect()
}

/// The trends family.
pub fn tools() -> Vec<Tool> {
    vec![
        Tool {
            name: "withings_trends",
            title: "Trends",
            annotations: Annotations::REMOTE_READ,
            handler: run_trends,
        },
        Tool {
            name: "withings_chart",
            title: "Chart",
            annotations: Annotations::REMOTE_READ,
            handler: run_chart,
        },
    ]
}

/// Everything a trend answer and a chart are built from.
struct Analysis {
    metric: &'static Metric,
    units: Units,
    zone: Zone,
    range: Range,
    trend: Trend,
    readings: Vec<Reading>,
    recomposition: Option<RecompositionOut>,
    regularity: Option<RegularityOut>,
    demo: bool,
}

fn find_metric(args: &Map<String, Value>) -> Result<&'static Metric> {
    let name = args.get("metric").and_then(Value::as_str).unwrap_or("");
    METRICS.iter().find(|m| m.name == name).ok_or_else(|| {
        Error::arg("metric", format!("unknown metric `{name}`; use one of {}", metric_names().join(", ")))
    })
}

fn analyse(ctx: &Ctx, args: &Map<String, Value>) -> Result<Analysis> {
    let metric = find_metric(args)?;
    let s = data::settings(ctx, args)?;
    let default_days = match metric.read {
        Read::Asleep(_) => ASLEEP_DEFAULT_DAYS,
        _ => DEFAULT_DAYS,
    };
    let range = data::date_range(args, &s.zone, ctx.now, default_days)?;
    let mut client = ctx.client(&s.cfg, &s.zone)?;
    // Measure groups are decoded once: the metric and the recomposition both read them. A
    // guest's weigh-in is someone else's body, and a goal (category 2) is not a reading.
    let (mut groups, mut nights, mut days) = (Vec::new(), Vec::new(), Vec::new());
    match metric.read.source() {
        Source::Measures => {
            groups = data::fetch_groups(&mut client, &range)?;
            groups.retain(|g| !g.ambiguous() && g.category.unwrap_or(1) == 1);
        }
        Source::SleepSummary => {
            nights = data::fetch_records::<NightWire>(&mut client, &range)?;
            nights.retain(|n| n.is_nap(&s.zone) != Some(true));
        }
        _ => days = data::fetch_records::<ActivityWire>(&mut client, &range)?,
    }
    let readings = match metric.read {
        Read::Measure(code) => {
            let mut readings = Vec::new();
            measure_readings(&groups, code, &mut readings);
            readings
        }
        Read::SleepHours | Read::SleepScore | Read::SleepMinHr => night_readings(metric.read, &nights),
        Read::Asleep(field) => asleep_readings(&mut client, &nights, field, &range)?,
        read => readings(read, &days, &s.zone),
    };
    let window = Window { start: range.start.0, end: range.end.0 - 1 };
    let mut params =
        trends::standard_params(metric.min_change_per_week, metric.min_spread, Some(metric.plausible));
    if let Some((factor, unit)) = units::convert(1.0, metric.unit, s.units) {
        params.display_factor = factor;
        params.display_unit = unit;
    }
    // As `display_value` rounds the structured answer's numbers.
    params.display_decimals = metric.decimals as usize + 1;
    // The metric's analysis and the recomposition's two share their working lists.
    let mut scratch = trends::Scratch::default();
    let mut trend = trends::analyze_in(&readings, window, &params, &mut scratch);
    if let Some(m) = meaning(metric.read, trend.verdict) {
        trend.reason = format!("{}: {m}", trend.reason);
    }
    let recomposition = metric.composition.then(|| recomposition(&groups, window, s.units, &mut scratch));
    let regularity = match metric.read {
        Read::SleepHours | Read::SleepScore => Some(sleep_regularity(&mut client, &nights, &range, &s.zone)?),
        _ => None,
    };
    Ok(Analysis {
        metric,
        units: s.units,
        zone: s.zone,
        range,
        trend,
        readings,
        recomposition,
        regularity,
        demo: ctx.demo(),
    })
}

/// The trend of a body-measure metric (`weight`, `fat_ratio`…) over `range`, exactly as
/// `withings_trends` computes it, in SI units: a guest's weigh-ins and goals are left out. `None`
/// for a name that is not a body-measure metric.
pub fn measure_trend(name: &str, groups: &[GroupValues], range: &Range) -> Option<Trend> {
    let metric = METRICS.iter().find(|m| m.name == name)?;
    let Read::Measure(code) = metric.read else { return None };
    let readings: Vec<Reading> = groups
        .iter()
        .filter(|g| !g.ambiguous() && g.category.unwrap_or(1) == 1)
        .filter_map(|g| Some(Reading { t: g.date?.0, value: g.value(code)? }))
        .collect();
    let window = Window { start: range.start.0, end: range.end.0 - 1 };
    let params =
        trends::standard_params(metric.min_change_per_week, metric.min_spread, Some(metric.plausible));
    Some(trends::analyze(&readings, window, &params))
}

/// One measure type's readings, in SI, in `out` (emptied first). Room for one a group is made
/// up front: grown by doubling, ten years' list was copied on the way and faulted in a third
/// more pages (room never written is never faulted in).
fn measure_readings(groups: &[GroupValues], code: i64, out: &mut Vec<Reading>) {
    out.clear();
    out.reserve(groups.len());
    out.extend(groups.iter().filter_map(|g| Some(Reading { t: g.date?.0, value: g.value(code)? })));
}

/// The readings of a sleep metric, one a night (naps left out already).
fn night_readings(read: Read, nights: &[SleepNight]) -> Vec<Reading> {
    nights
        .iter()
        .filter_map(|n| {
            let t = n.end?.0;
            let value = match read {
                Read::SleepHours => n.total_sleep_secs()? / 3600.0,
                Read::SleepScore => n.sleep_score()?,
                // The lowest heart rate of a night's sleep: the best resting rate a wearable sees.
                _ => n.get(SleepField::HrMin).filter(|v| *v > 0.0)?,
            };
            Some(Reading { t, value })
        })
        .collect()
}

/// One reading a night: the mean of `field` over the watch's samples during the main sleep,
/// dated at the wake-up. Nights without samples (no watch worn) give none. More nights than the
/// call's requests could read fail the call, as a trend of part of the range would not be true.
fn asleep_readings(
    client: &mut Client,
    nights: &[SleepNight],
    field: &str,
    range: &Range,
) -> Result<Vec<Reading>> {
    let (Some(i), Ok(fields)) = (intraday::field_index(field), intraday::FieldSet::of(&[field])) else {
        return Ok(Vec::new());
    };
    // Only the nights the trend keeps (it dates a night by its wake-up).
    let spans: Vec<(i64, i64)> = nights
        .iter()
        .filter_map(|n| Some((n.start?.0, n.end?.0)))
        .filter(|(_, end)| (range.start.0..range.end.0).contains(end))
        .collect();
    if spans.len() > client.requests_left() {
        let endpoint = "/v2/measure getintradayactivity".to_string();
        return Err(Error::boxed(Error::Budget { endpoint, limit: crate::withings::budget::MAX_REQUESTS }));
    }
    client.expect(spans.len());
    let mut out = Vec::with_capacity(spans.len());
    for (start, end) in spans {
        let samples =
            tools_intraday::fetch_window(client, Instant(end - time::DAY_SECS), Instant(end), fields)?;
        if let Some(st) = intraday::stats_between(&samples, i, start, end) {
            out.push(Reading { t: end, value: st.mean });
        }
    }
    Ok(out)
}

/// The readings of an activity metric in SI.
fn readings(read: Read, days: &[ActivityDay], zone: &Zone) -> Vec<Reading> {
    match read {
        Read::Steps => {
            // Several sources (watch, phone) may report the same day: keep the fullest, never the sum.
            let mut by_day: Vec<(i64, f64)> =
                days.iter().filter_map(|a| Some((a.date?.days(), a.steps?))).collect();
            // By day, most steps first; then one a day. A sort and a dedup, not a BTreeMap, whose
            // code the binary would carry once more for this one use.
            crate::sort::by(&mut by_day, |a, b| a.0.cmp(&b.0).then(b.1.total_cmp(&a.1)));
            by_day.dedup_by_key(|d| d.0);
            by_day
                .into_iter()
                .map(|(day, steps)| Reading {
                    t: zone.local_midnight(CivilDate::from_days(day)).0 + 12 * 3600,
                    value: steps,
                })
                .collect()
        }
        _ => Vec::new(),
    }
}

fn recomposition(
    groups: &[GroupValues],
    window: Window,
    units: Units,
    scratch: &mut trends::Scratch,
) -> RecompositionOut {
    let params = trends::standard_params(0.1, 0.3, Some(Bounds { min: 1.0, max: 300.0 }));
    // The readings, the fat mass's, then the lean mass's, are read into the list the analysis
    // before kept (0.3 MB for ten years).
    let mut readings = scratch.take_list();
    measure_readings(groups, 8, &mut readings);
    let fat = trends::analyze_list(readings, window, &params, scratch);
    let fat_change = trends::MassChange::of(&fat);
    // The fat mass's trend line is made into the lean mass's (0.6 MB for ten years).
    scratch.recycle(fat);
    let mut readings = scratch.take_list();
    measure_readings(groups, 5, &mut readings);
    let lean = trends::MassChange::of(&trends::analyze_list(readings, window, &params, scratch));
    let r = trends::recomposition(fat_change, lean, window, 0.3);
    let known = r.class != trends::RecompClass::NotEnoughData;
    let kg = |v: f64| display_value(v, "kg", units, 1);
    RecompositionOut {
        method: r.method,
        description: r.description,
        class: r.class.as_str(),
        fat_mass_change: r.fat_delta.filter(|_| known).and_then(kg),
        lean_mass_change: r.lean_delta.filter(|_| known).and_then(kg),
        unit: display_unit("kg", units),
        band: kg(r.band),
        n_used: r.n_used,
        n_rejected: r.n_rejected,
    }
}

/// Bedtime and wake-time spread from the summaries, and the Sleep Regularity Index from sleep
/// detail over the last 14 days of the window (two more requests at most).
fn sleep_regularity(
    client: &mut Client,
    nights: &[SleepNight],
    range: &Range,
    zone: &Zone,
) -> Result<RegularityOut> {
    let timing_input: Vec<trends::Night> = nights
        .iter()
        .filter_map(|n| {
            let (start, end) = (n.start?, n.end?);
            Some(trends::Night {
                day: zone.local_date(end).days(),
                bedtime: zone.secs_of_day(start),
                wake: zone.secs_of_day(end),
            })
        })
        .collect();
    let timing = trends::sleep_timing(&timing_input).map(|t| TimingOut {
        method: t.method,
        bedtime_mean: clock(t.bedtime_mean),
        wake_mean: clock(t.wake_mean),
        bedtime_sd_minutes: round(t.bedtime_sd_min, 0),
        wake_sd_minutes: round(t.wake_sd_min, 0),
        nights: t.n_used,
    });
    let detail_start = Instant(range.start.0.max(range.end.0 - 14 * 86_400));
    let detail_range = Range { start: detail_start, start_date: zone.local_date(detail_start), ..*range };
    let sri = match data::fetch_records::<SegmentWire>(client, &detail_range) {
        Ok(detail) => {
            let base = zone.local_midnight(detail_range.start_date).0;
            let segments: Vec<trends::SleepSegment> = detail
                .into_iter()
                .filter_map(|s| {
                    let (a, b) = (s.start?, s.end?);
                    let asleep = !matches!(s.state, Some(0) | None);
                    let offset = |t: Instant| {
                        t.0 - base + i64::from(zone.offset_at(t) - zone.offset_at(Instant(base)))
                    };
                    Some(trends::SleepSegment { start: offset(a), end: offset(b), asleep })
                })
                .collect();
            match trends::sleep_regularity_index(&segments, 60) {
                Some(s) => SriOut {
                    method: Some(s.method),
                    value: Some(round(s.value, 1)),
                    days: Some(s.n_days),
                    reason: None,
                },
                None => no_sri("not enough days of sleep detail (need at least two consecutive)".into()),
            }
        }
        Err(e) if e.ends_call() => return Err(e),
        Err(e) => no_sri(format!("sleep detail unavailable: {e}")),
    };
    Ok(RegularityOut { timing, sri })
}

fn no_sri(reason: String) -> SriOut {
    SriOut { method: None, value: None, days: None, reason: Some(reason) }
}

fn run_trends(ctx: &Ctx, args: &Map<String, Value>) -> Result<Output> {
    let a = analyse(ctx, args)?;
    let out = trend_out(ctx, &a);
    let markdown = out.markdown();
    let structured = serde_json::to_value(&out).map_err(|e| Error::json("withings_trends answer", e))?;
    Ok(Output { structured: structured.into(), markdown, extra: Vec::new() })
}

fn trend_out(ctx: &Ctx, a: &Analysis) -> TrendOut {
    let m = a.metric;
    let u = a.units;
    let t = &a.trend;
    let dv = |v: f64| display_value(v, m.unit, u, m.decimals);
    let rejected = t
        .rejected
        .iter()
        .map(|r| RejectedOut {
            time: time::format_local(Instant(r.t), &a.zone),
            value: r.value.and_then(dv),
            reason: r.reason.as_str(),
            median: r.median.and_then(dv),
        })
        .collect();
    let slope_per_week = t.slope.as_ref().map(|s| SlopeOut {
        value: dv(s.per_week),
        lower: dv(s.lower),
        upper: dv(s.upper),
        confidence: s.confidence,
        // Unitless metrics (sleep score) read "per week", not " per week".
        unit: format!("{} per week", display_unit(m.unit, u)).trim_start().to_string(),
        points: s.n_points,
    });
    let (series, series_step) = series_out(a);
    TrendOut {
        metric: m.name,
        unit: display_unit(m.unit, u),
        units: u.name(),
        display_unit: match m.unit {
            "kg" => units::mass_display_unit(u).to_string(),
            _ => display_unit(m.unit, u),
        },
        as_of: time::format_local(Instant(ctx.now), &a.zone),
        window: data::range_out(&a.range, &a.zone),
        method: t.method,
        description: t.description,
        n_readings: t.n_input,
        n_used: t.n_used,
        n_rejected: t.n_rejected,
        rejected,
        latest: t.latest.and_then(dv),
        trend_change: t.change.and_then(dv),
        slope_per_week,
        verdict: t.verdict.as_str(),
        reason: t.reason.clone(),
        series,
        series_step,
        recomposition: a.recomposition.clone(),
        sleep_regularity: a.regularity.clone(),
    }
}

/// The readings and their trend, in display units, with the step between kept readings. The
/// full series can be thousands of points; an agent needs its shape, not every reading, and MCP
/// clients choke on megabyte answers. Keep an even subsample that ends on the latest.
fn series_out(a: &Analysis) -> (Vec<SeriesPoint>, usize) {
    let (m, u) = (a.metric, a.units);
    let dv = |v: f64| display_value(v, m.unit, u, m.decimals);
    let smoothed = &a.trend.smoothed;
    let step = smoothed.len().div_ceil(MAX_SERIES_POINTS).max(1);
    let last = smoothed.len().saturating_sub(1);
    let series = smoothed
        .iter()
        .enumerate()
        .filter(|(i, _)| (last - i).is_multiple_of(step))
        .map(|(_, p)| SeriesPoint {
            date: a.zone.local_date(Instant(p.t)).to_string(),
            value: dv(p.value),
            trend: dv(p.trend),
        })
        .collect();
    (series, step)
}

/// The chart of an analysis: readings kept, rejected ones, the trend and its noise band, in
/// the asked units, with date ticks at local midnights.
fn chart_spec(a: &Analysis) -> ChartSpec {
    let m = a.metric;
    let u = a.units;
    let conv = |v: f64| units::convert(v, m.unit, u).map(|(x, _)| x).unwrap_or(v);
    let rejected: Vec<ChartPoint> =
        a.trend.rejected.iter().filter_map(|r| Some(ChartPoint { t: r.t, value: conv(r.value?) })).collect();
    let trend: Vec<ChartPoint> =
        a.trend.smoothed.iter().map(|p| ChartPoint { t: p.t, value: conv(p.trend) }).collect();
    let first = a.range.start_date.days();
    let last = a.range.end_date.days();
    let x_ticks = chart::day_ticks(first, last, 8)
        .into_iter()
        .map(|d| {
            let date = CivilDate::from_days(d);
            XTick { t: a.zone.local_midnight(date).0, label: format!("{} {}", month_abbr(date.m), date.d) }
        })
        .collect();
    let unit = display_unit(m.unit, u);
    ChartSpec {
        width: CHART_WIDTH,
        height: CHART_HEIGHT,
        title: format!("{} — {}", m.label, a.trend.verdict.as_str().replace('_', " ")),
        subtitle: format!(
            "{} → {} · {} · {} readings",
            a.range.start_date,
            a.range.end_date,
            a.zone.name(),
            a.trend.n_used
        ),
        // "Steps", not "Steps (steps)".
        y_label: match unit.is_empty() || unit.eq_ignore_ascii_case(m.label) {
            true => m.label.to_string(),
            false => format!("{} ({unit})", m.label),
        },
        x_ticks,
        readings: kept_readings(a).map(|r| ChartPoint { t: r.t, value: conv(r.value) }).collect(),
        rejected,
        trend,
        noise: a.trend.scatter.map_or(0.0, conv),
        demo: a.demo,
    }
}

/// Pixels of the tool's PNG: sharp at full size, and its text still legible when a host shows
/// it as a 400×200 thumbnail.
const CHART_WIDTH: u32 = 800;
const CHART_HEIGHT: u32 = 400;

/// The readings in the window that the analysis kept.
fn kept_readings(a: &Analysis) -> impl Iterator<Item = &Reading> {
    let rejected_t: Vec<i64> = a.trend.rejected.iter().map(|r| r.t).collect();
    a.readings
        .iter()
        .filter(move |r| r.t >= a.range.start.0 && r.t < a.range.end.0 && !rejected_t.contains(&r.t))
}

fn run_chart(ctx: &Ctx, args: &Map<String, Value>) -> Result<Output> {
    let a = analyse(ctx, args)?;
    let png = chart::raster::render_png(&chart_spec(&a));
    let (series, step) = series_out(&a);
    let m = a.metric;
    let u = a.units;
    let dv = |v: f64| display_value(v, m.unit, u, m.decimals);
    let unit = display_unit(m.unit, u);
    let structured = json!({
        "metric": m.name,
        "label": m.label,
        "unit": unit,
        "units": u.name(),
        "readings": a.trend.n_used,
        "rejected": a.trend.n_rejected,
        "verdict": a.trend.verdict.as_str(),
        "window": data::range_out(&a.range, &a.zone),
        "latest_trend": a.trend.latest.and_then(dv),
        "noise": a.trend.scatter.and_then(dv),
        // The plotted data, for a view that draws the chart itself (the MCP Apps dashboard).
        "series": series,
        "series_step": step,
        "mime_type": "image/png",
        "width": CHART_WIDTH,
        "height": CHART_HEIGHT,
    });
    let markdown = chart_markdown(&a, &structured);
    let extra = vec![json!({"type": "image", "data": text::base64(&png), "mimeType": "image/png"})];
    Ok(Output { structured: structured.into(), markdown, extra })
}

/// What the picture shows, in words: true whether or not an image travels with it.
fn chart_markdown(a: &Analysis, v: &Value) -> String {
    let unit = v["unit"].as_str().unwrap_or("");
    let with_unit = |x: &Value| match unit {
        "" => crate::value::text(x),
        u => format!("{} {u}", crate::value::text(x)),
    };
    let mut md = format!(
        "# {} chart\n\n{} from {} to {} ({}): {} readings as points, {} rejected; verdict: {}.\n",
        a.metric.label,
        a.metric.label,
        a.range.start_date,
        a.range.end_date,
        a.zone.name(),
        a.trend.n_used,
        a.trend.n_rejected,
        a.trend.verdict.as_str().replace('_', " ")
    );
    if v["latest_trend"].is_number() {
        // In UK units a body mass also reads in stones and pounds, as people there say it.
        let stones = a.trend.latest.and_then(|x| units::format_quantity(x, a.metric.unit, a.units, 1));
        let also = stones.filter(|s| s.contains(" st ")).map(|s| format!(" ({s})")).unwrap_or_default();
        let _ = writeln!(md, "- Latest trend value: {}{also}", with_unit(&v["latest_trend"]));
    }
    if v["noise"].is_number() {
        let _ = writeln!(md, "- Noise band: ± {} around the trend line", with_unit(&v["noise"]));
    }
    let _ = writeln!(
        md,
        "\nPicture: {CHART_WIDTH}×{CHART_HEIGHT} PNG, attached as image content over MCP; \
         `withings-mcp chart {} --format png --out FILE` writes it to a file.",
        a.metric.name
    );
    md
}

/// The chart for `withings-mcp chart`: the same analysis and picture as the tool.
pub fn chart_for_command(ctx: &Ctx, args: &Map<String, Value>) -> Result<ChartSpec> {
    let validated =
        crate::tools::schema::validate_args(&tools()[1].input_schema(), &Value::Object(args.clone()))?;
    Ok(chart_spec(&analyse(ctx, &validated)?))
}

fn display_unit(si: &str, units: Units) -> String {
    match units::convert(1.0, si, units) {
        Some((_, u)) => u.to_string(),
        None => si.to_string(),
    }
}

/// A value in display units, rounded; `None` for a non-finite input (never NaN in output).
fn display_value(v: f64, si: &str, units: Units, decimals: u32) -> Option<f64> {
    let (x, _) = units::convert(v, si, units)?;
    Some(round(x, decimals + 1))
}

fn round(v: f64, decimals: u32) -> f64 {
    let f = 10f64.powi(decimals as i32);
    let r = (v * f).round() / f;
    match r == 0.0 {
        true => 0.0,
        false => r,
    }
}

fn clock(secs: i64) -> String {
    let s = secs.rem_euclid(86_400);
    format!("{:02}:{:02}", s / 3600, s % 3600 / 60)
}

fn month_abbr(m: u32) -> &'static str {
    const M: [&str; 12] =
        ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
    M.get((m as usize).wrapping_sub(1)).copied().unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The groups hold the values of a fixed list of types: every metric's type is on it (and
    /// the recomposition's fat-free mass).
    #[test]
    fn every_measure_metric_is_read_from_the_groups() {
        let codes = METRICS.iter().filter_map(|m| match m.read {
            Read::Measure(code) => Some(code),
            _ => None,
        });
        for code in codes.chain([5, 8]) {
            assert!(crate::domain::measures::READ_CODES.contains(&code), "{code}");
        }
    }

    /// The schemas are data (schemas.txt); what they say about metrics, units and the series
    /// must be what this code does.
    #[test]
    fn stored_schemas_match_the_code() {
        for tool in tools() {
            let (input, output) = (tool.input_schema(), tool.output_schema());
            assert_eq!(input["properties"]["metric"]["enum"], json!(metric_names()), "{}", tool.name);
            assert_eq!(input["properties"]["units"]["enum"], json!(Units::names()), "{}", tool.name);
            assert_eq!(input["required"], json!(["metric"]), "{}", tool.name);
            assert_eq!(output["properties"]["series"]["maxItems"], MAX_SERIES_POINTS, "{}", tool.name);
        }
        assert_eq!(tools()[1].output_schema()["properties"]["units"]["enum"], json!(Units::names()));
    }

    /// A watch and a phone counting the same day: the fullest count, never the sum, at noon.
    #[test]
    fn steps_are_the_fullest_count_of_each_day() {
        let day = |date: &str, steps: f64| ActivityDay {
            date: Some(CivilDate::parse(date).unwrap()),
            steps: Some(steps),
            ..ActivityDay::default()
        };
        let days = [day("2026-03-02", 4000.0), day("2026-03-01", 9000.0), day("2026-03-02", 7000.0)];
        let got = readings(Read::Steps, &days, &Zone::utc());
        let noon = |d: &str| CivilDate::parse(d).unwrap().days() * 86_400 + 12 * 3600;
        let want = [
            Reading { t: noon("2026-03-01"), value: 9000.0 },
            Reading { t: noon("2026-03-02"), value: 7000.0 },
        ];
        assert_eq!(got, want);
    }

    #[test]
    fn unknown_metric_names_the_argument() {
        let mut args = Map::new();
        args.insert("metric".into(), json!("bmi"));
        match find_metric(&args).map_err(|e| *e) {
            Err(Error::InvalidArgument { name, message }) => {
                assert_eq!(name, "metric");
                assert!(message.contains("weight"), "{message}");
            }
            _ => panic!("expected an argument error"),
        }
    }
}
