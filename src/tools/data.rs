//! The six list tools: body measures, heart, activity, workouts, sleep summary, sleep detail.
//!
//! One pipeline serves them all: validated arguments → a date range in the user's zone → the
//! action's own parameter style (`startdateymd`/`enddateymd` or epoch `startdate`/`enddate`) →
//! `Client::page_through` (or split windows for sleep detail) → the domain decoder → privacy
//! mode → units → markdown. Each tool only declares what differs (`Spec`).

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::domain::measures;
use crate::domain::measures::GroupValues;
use crate::domain::named::Named;
use crate::domain::privacy::PrivacyMode;
use crate::domain::sleep;
use crate::domain::summary::markdown::md::capitalise;
use crate::domain::time::{self, CivilDate, Range, Zone, Zones};
use crate::domain::units::Units;
use crate::store::config::Config;
use crate::tools::list_out::{self, ListOut, UpstreamOut};
use crate::tools::records::activity::ActivityOut;
use crate::tools::records::heart::HeartOut;
use crate::tools::records::measures::GroupOut;
use crate::tools::records::sleep::{NightOut, SegmentOut};
use crate::tools::records::workouts::WorkoutOut;
use crate::tools::records::{self, Listed};
use crate::tools::trend_output::WindowOut;
use crate::tools::{Annotations, Ctx, Output, Tool};
use crate::value::Json;
use crate::withings::client::{Client, Walk};
use crate::withings::wire::activity::ActivityWire;
use crate::withings::wire::heart::HeartWire;
use crate::withings::wire::sleep::{NightWire, SegmentWire};
use crate::withings::wire::stamped::Stamped;
use crate::withings::wire::workouts::WorkoutWire;
use crate::withings::wire::{MeasGroupWire, Row};
use crate::{Error, Result};

/// Largest `limit` a list tool accepts: keeps a structured answer within what MCP clients take.
pub const MAX_LIMIT: i64 = 1000;
/// `limit` when none is given.
pub const DEFAULT_LIMIT: i64 = 100;
/// Withings serves sleep detail for at most 7 days per request.
const SLEEP_DETAIL_WINDOW_SECS: i64 = 7 * 86_400;
/// A sleep-detail offset is `window × WINDOW_SLOTS + position`: a continuation starts at the
/// window where an answer stopped, without fetching the earlier ones again (a 7-day window holds
/// at most 10,080 one-minute segments, far below the slots).
const WINDOW_SLOTS: i64 = 1_000_000;

// Withings returns only a default subset of fields unless asked (withings-api.md §3): a sleep
// summary without `data_fields` has no sleep score and no heart rate. Ask for every field.
const ACTIVITY_FIELDS: &str = "steps,distance,elevation,soft,moderate,intense,active,calories,totalcalories,\
hr_average,hr_min,hr_max,hr_zone_0,hr_zone_1,hr_zone_2,hr_zone_3";
const WORKOUT_FIELDS: &str = "calories,intensity,manual_intensity,manual_distance,manual_calories,hr_average,\
hr_min,hr_max,hr_zone_0,hr_zone_1,hr_zone_2,hr_zone_3,pause_duration,algo_pause_duration,spo2_average,steps,\
distance,elevation,pool_laps,strokes,pool_length,core_body_temperature_avg,core_body_temperature_min,\
core_body_temperature_max,core_body_temperature_status";
const SLEEP_SUMMARY_FIELDS: &str = "total_timeinbed,total_sleep_time,asleepduration,lightsleepduration,\
deepsleepduration,remsleepduration,sleep_efficiency,sleep_latency,wakeup_latency,wakeupduration,wakeupcount,waso,\
nb_rem_episodes,out_of_bed_count,hr_average,hr_min,hr_max,rr_average,rr_min,rr_max,snoring,snoringepisodecount,\
sleep_score,night_events,breathing_disturbances_intensity,apnea_hypopnea_index,mvt_score_avg,\
mvt_active_duration,rmssd_start_avg,rmssd_end_avg,withings_index,breathing_quality_assessment,breathing_sounds,\
breathing_sounds_episode_count,chest_movement_rate_wellness_average,chest_movement_rate_wellness_min,\
chest_movement_rate_wellness_max,chest_movement_rate_average,chest_movement_rate_min,chest_movement_rate_max,\
core_body_temperature_min,core_body_temperature_max,core_body_temperature_avg,core_body_temperature_status";
const SLEEP_DETAIL_FIELDS: &str =
    "hr,rr,snoring,sdnn_1,rmssd,hrv_quality,mvt_score,chest_movement_rate,breathing_sounds";

/// How an action takes its date range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum DateStyle {
    /// `startdateymd` / `enddateymd`, local calendar days.
    Ymd,
    /// `startdate` / `enddate`, Unix seconds.
    Epoch,
}

/// What differs between list tools.
struct Spec {
    path: &'static str,
    action: &'static str,
    style: DateStyle,
    /// Days covered when `after` is not given.
    default_days: i64,
    /// Extra fixed upstream parameters.
    fixed: &'static [(&'static str, &'static str)],
    noun: &'static str,
    /// True when the action pages with `offset`.
    pages: bool,
}

const MEASURES: Spec = Spec {
    path: "/measure",
    action: "getmeas",
    style: DateStyle::Epoch,
    default_days: 30,
    // Real measurements only: category 2 is a user's goal, not a reading.
    fixed: &[("category", "1")],
    noun: "measure groups",
    pages: true,
};

const HEART: Spec = Spec {
    path: "/v2/heart",
    action: "list",
    style: DateStyle::Epoch,
    default_days: 30,
    fixed: &[],
    noun: "heart records",
    pages: true,
};

const ACTIVITY: Spec = Spec {
    path: "/v2/measure",
    action: "getactivity",
    style: DateStyle::Ymd,
    default_days: 30,
    fixed: &[("data_fields", ACTIVITY_FIELDS)],
    noun: "activity days",
    pages: true,
};

const WORKOUTS: Spec = Spec {
    path: "/v2/measure",
    action: "getworkouts",
    style: DateStyle::Ymd,
    default_days: 30,
    fixed: &[("data_fields", WORKOUT_FIELDS)],
    noun: "workouts",
    pages: true,
};

const SLEEP_SUMMARY: Spec = Spec {
    path: "/v2/sleep",
    action: "getsummary",
    style: DateStyle::Ymd,
    default_days: 30,
    fixed: &[("data_fields", SLEEP_SUMMARY_FIELDS)],
    noun: "sleeps",
    pages: true,
};

const SLEEP_DETAIL: Spec = Spec {
    path: "/v2/sleep",
    action: "get",
    style: DateStyle::Epoch,
    // Without `after`, the whole of the last night (`last_night`); two days keep the range
    // resolvable at local midnight, before the night is looked for.
    default_days: 2,
    fixed: &[("data_fields", SLEEP_DETAIL_FIELDS)],
    noun: "sleep segments",
    pages: false,
};

/// The list tools, in catalogue order.
pub fn tools() -> Vec<Tool> {
    vec![
        list_tool("withings_list_body_measures", "Body measures", list_measures),
        list_tool("withings_list_heart", "Heart records", list_heart),
        list_tool("withings_list_activity", "Daily activity", list_activity),
        list_tool("withings_list_workouts", "Workouts", list_workouts),
        list_tool("withings_list_sleep_summary", "Sleep summaries", list_sleep_summary),
        list_tool("withings_list_sleep", "Sleep detail", list_sleep_detail),
    ]
}

/// A list tool: its arguments and output (the same for every list but for a few extra
/// arguments) are in schemas.txt.
fn list_tool(name: &'static str, title: &'static str, handler: crate::tools::Handler) -> Tool {
    Tool { name, title, annotations: Annotations::REMOTE_READ, handler }
}

fn list_measures(ctx: &Ctx, args: &Map<String, Value>) -> Result<Output> {
    let filter = measure_filter(args)?;
    list(ctx, args, &MEASURES, &|rows, tz, zones, s| {
        let endpoint = format!("{} {}", MEASURES.path, MEASURES.action);
        let keep = |g: &GroupOut| filter.keeps(g);
        records::records::<GroupOut>(&ctx.env, &endpoint, rows, tz, zones, s.privacy, s.units, &keep)
    })
}

fn list_heart(ctx: &Ctx, args: &Map<String, Value>) -> Result<Output> {
    list(ctx, args, &HEART, &|rows, tz, zones, s| decode_rows(ctx, Source::Heart, rows, tz, zones, s))
}

fn list_activity(ctx: &Ctx, args: &Map<String, Value>) -> Result<Output> {
    list(ctx, args, &ACTIVITY, &|rows, tz, zones, s| decode_rows(ctx, Source::Activity, rows, tz, zones, s))
}

fn list_workouts(ctx: &Ctx, args: &Map<String, Value>) -> Result<Output> {
    list(ctx, args, &WORKOUTS, &|rows, tz, zones, s| decode_rows(ctx, Source::Workouts, rows, tz, zones, s))
}

fn list_sleep_summary(ctx: &Ctx, args: &Map<String, Value>) -> Result<Output> {
    list(ctx, args, &SLEEP_SUMMARY, &|rows, tz, zones, s| {
        decode_rows(ctx, Source::SleepSummary, rows, tz, zones, s)
    })
}

fn list_sleep_detail(ctx: &Ctx, args: &Map<String, Value>) -> Result<Output> {
    list(ctx, args, &SLEEP_DETAIL, &|rows, tz, zones, s| {
        decode_rows(ctx, Source::SleepDetail, rows, tz, zones, s)
    })
}

/// A domain's rows as its list tool decodes them (every record: no filter), each with its
/// markdown line. The list tools and the export share it, so an export holds the very records.
fn decode_rows(
    ctx: &Ctx,
    source: Source,
    rows: &[Box<str>],
    body_zone: Option<&str>,
    zones: &mut Zones,
    s: &Settings,
) -> Result<Vec<(String, String)>> {
    match source {
        Source::Measures => typed::<GroupOut>(ctx, &MEASURES, rows, body_zone, zones, s),
        Source::Heart => typed::<HeartOut>(ctx, &HEART, rows, body_zone, zones, s),
        Source::Activity => typed::<ActivityOut>(ctx, &ACTIVITY, rows, body_zone, zones, s),
        Source::Workouts => typed::<WorkoutOut>(ctx, &WORKOUTS, rows, body_zone, zones, s),
        Source::SleepSummary => typed::<NightOut>(ctx, &SLEEP_SUMMARY, rows, body_zone, zones, s),
        Source::SleepDetail => typed::<SegmentOut>(ctx, &SLEEP_DETAIL, rows, body_zone, zones, s),
    }
}

/// Decodes a list tool's rows into its records (compact JSON text) and their markdown lines.
type Decode<'a> =
    dyn Fn(&[Box<str>], Option<&str>, &mut Zones, &Settings) -> Result<Vec<(String, String)>> + 'a;

fn typed<L: Listed>(
    ctx: &Ctx,
    spec: &Spec,
    rows: &[Box<str>],
    body_zone: Option<&str>,
    zones: &mut Zones,
    s: &Settings,
) -> Result<Vec<(String, String)>> {
    let endpoint = format!("{} {}", spec.path, spec.action);
    records::records::<L>(&ctx.env, &endpoint, rows, body_zone, zones, s.privacy, s.units, &|_| true)
}

/// Settings every data tool resolves the same way: configuration, zone, privacy mode, units.
pub struct Settings {
    pub cfg: Config,
    pub zone: Zone,
    pub privacy: PrivacyMode,
    pub units: Units,
}

/// Resolves zone, privacy mode and units: the argument, then configuration, then the default.
pub fn settings(ctx: &Ctx, args: &Map<String, Value>) -> Result<Settings> {
    let cfg = ctx.config()?;
    let zone = ctx.zone(&cfg)?;
    let privacy = match named_arg(args, "privacy_mode")? {
        Some(m) => m,
        None => cfg.privacy_mode()?,
    };
    let units = match named_arg(args, "units")? {
        Some(u) => u,
        None => cfg.units()?,
    };
    Ok(Settings { cfg, zone, privacy, units })
}

/// A validated argument that names one of a few values (privacy mode, units, metric…), parsed.
pub fn named_arg<T: Named>(args: &Map<String, Value>, key: &str) -> Result<Option<T>> {
    match args.get(key).and_then(Value::as_str) {
        None => Ok(None),
        Some(s) => T::parse(s).map(Some).map_err(|e| Error::arg(key, e)),
    }
}

/// Resolves `after`/`before` into a range in `zone`; errors name the argument.
pub fn date_range(args: &Map<String, Value>, zone: &Zone, now: i64, default_days: i64) -> Result<Range> {
    let parse = |key: &str| -> Result<Option<time::DateArg>> {
        match args.get(key).and_then(Value::as_str) {
            None => Ok(None),
            Some(s) => time::parse_date_arg(s).map(Some).map_err(|e| Error::arg(key, e)),
        }
    };
    let after = parse("after")?;
    let before = parse("before")?;
    time::resolve_range(after, before, zone, time::Instant(now), default_days).map_err(|e| {
        let name = match e.contains("`before`") && !e.contains("`after`") {
            true => "before",
            false => "after",
        };
        Error::arg(name, e)
    })
}

/// Upstream date parameters for a range in an action's style. Epoch `enddate` is the last second
/// of the range (Withings treats both ends as inclusive).
fn date_params(range: &Range, style: DateStyle) -> Vec<(&'static str, String)> {
    match style {
        DateStyle::Ymd => {
            vec![("startdateymd", range.start_date.to_string()), ("enddateymd", range.end_date.to_string())]
        }
        DateStyle::Epoch => {
            vec![
                ("startdate", range.start.0.to_string()),
                ("enddate", (range.end.0 - 1).max(range.start.0).to_string()),
            ]
        }
    }
}

/// A data domain that briefs and trends read whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Measures,
    Heart,
    Activity,
    Workouts,
    SleepSummary,
    SleepDetail,
}

/// The most rows a brief or trend reads from one domain (ten years of daily weigh-ins fit).
const INTERNAL_LIMIT: usize = 50_000;

/// A domain's rows as read off the wire, each into its domain value.
pub trait Sourced: Row {
    const SOURCE: Source;
}

impl Sourced for NightWire {
    const SOURCE: Source = Source::SleepSummary;
}

impl Sourced for SegmentWire {
    const SOURCE: Source = Source::SleepDetail;
}

impl Sourced for ActivityWire {
    const SOURCE: Source = Source::Activity;
}

impl Sourced for HeartWire {
    const SOURCE: Source = Source::Heart;
}

impl Sourced for WorkoutWire {
    const SOURCE: Source = Source::Workouts;
}

/// Every record of a domain over a range, read whole (one range query plus its pages, never one
/// per day) and decoded as it is read.
pub fn fetch_records<R: Sourced>(client: &mut Client, range: &Range) -> Result<Vec<R::Kept>> {
    let spec = spec_of(R::SOURCE);
    let fetched = fetch::<R>(client, spec, range, INTERNAL_LIMIT, None, false)?;
    whole(spec, fetched.budget_spent)?;
    Ok(fetched.rows)
}

/// A brief or a trend over part of its range would not be what it says it is: a fetch that the
/// request budget cut short is an error for them.
fn whole(spec: &Spec, budget_spent: bool) -> Result<()> {
    match budget_spent {
        true => Err(Error::boxed(Error::Budget {
            endpoint: format!("{} {}", spec.path, spec.action),
            limit: crate::withings::budget::MAX_REQUESTS,
        })),
        false => Ok(()),
    }
}

/// Every measure group over a range, decoded in one pass from the answers' text: ten years of
/// weigh-ins never become a JSON tree. Groups without a zone take the body's.
pub fn fetch_groups(client: &mut Client, range: &Range) -> Result<Vec<GroupValues>> {
    let page = client.page_through::<MeasGroupWire>(
        MEASURES.path,
        MEASURES.action,
        &upstream_params(&MEASURES, range),
        INTERNAL_LIMIT,
        None,
    )?;
    whole(&MEASURES, page.budget_spent)?;
    let mut groups = page.rows;
    let body_zone: Option<std::rc::Rc<str>> = page.timezone.as_deref().map(Into::into);
    for g in &mut groups {
        if g.timezone.is_none() {
            g.timezone.clone_from(&body_zone);
        }
    }
    Ok(groups)
}

/// Days an export asks the paged actions for at once: a year, so that one answer stays small
/// however long the history is (sleep detail keeps its 7 days).
const EXPORT_WINDOW_DAYS: i64 = 365;

/// Streams every record of `source` over `range` to `each`, exactly as the list tools return
/// them (decoded, in `s.units` and `s.privacy`), oldest first. Windows are read one at a time,
/// page by page, and only one window's rows are held (sorted there, since Withings pages some
/// actions newest first), so memory does not grow with the range. A record that reaches back
/// over a window's start (a sleep segment across midnight of a 7-day edge) belongs to the window
/// before. `zones` gathers the zones the records name.
pub fn stream(
    ctx: &Ctx,
    client: &mut Client,
    source: Source,
    range: &Range,
    s: &Settings,
    zones: &mut Zones,
    each: &mut dyn FnMut(Json) -> Result<()>,
) -> Result<()> {
    let spec = spec_of(source);
    let windows = match (spec.style, spec.pages) {
        (DateStyle::Ymd, _) => time::day_windows(range, EXPORT_WINDOW_DAYS, &s.zone),
        (DateStyle::Epoch, true) => time::instant_windows(range, EXPORT_WINDOW_DAYS * 86_400, &s.zone),
        (DateStyle::Epoch, false) => time::instant_windows(range, SLEEP_DETAIL_WINDOW_SECS, &s.zone),
    };
    for (i, window) in windows.iter().enumerate() {
        let (mut rows, mut timezone) = (Vec::new(), None);
        let params = upstream_params(spec, window);
        let walk = client.each_page::<Stamped>(spec.path, spec.action, &params, None, &mut |page, _| {
            rows.extend(page.rows);
            timezone = page.timezone.or(timezone.take());
            Ok(true)
        })?;
        whole(spec, matches!(walk, Walk::Budget { .. }))?;
        if spec.style == DateStyle::Epoch && i > 0 {
            rows.retain(|r| r.time() >= window.start.0);
        }
        crate::sort::by_key(&mut rows, Stamped::time);
        let rows = raw_rows(rows);
        for (record, _) in decode_rows(ctx, source, &rows, timezone.as_deref(), zones, s)? {
            each(Json::Text(record))?;
        }
    }
    Ok(())
}

/// The earliest day on the first page of `source` over `range` (read in `zone`), `None` when the
/// range holds no record: one request, whatever the range. Not for sleep detail, which takes at
/// most 7 days a request (probe the summaries instead).
pub fn first_day_seen(
    client: &mut Client,
    source: Source,
    range: &Range,
    zone: &Zone,
) -> Result<Option<CivilDate>> {
    let spec = spec_of(source);
    let mut first = None;
    let params = upstream_params(spec, range);
    client.each_page::<Stamped>(spec.path, spec.action, &params, None, &mut |page, _| {
        first = page.rows.iter().filter_map(|r| r.day_in(zone)).min();
        Ok(false)
    })?;
    Ok(first)
}

/// Rows in the form the record decoders take: their text, JSON as the scanner checked it (a
/// `RawValue` would parse each row again to check it).
fn raw_rows(rows: impl IntoIterator<Item = Stamped>) -> Vec<Box<str>> {
    rows.into_iter().map(|r| r.text().into()).collect()
}

fn spec_of(source: Source) -> &'static Spec {
    match source {
        Source::Measures => &MEASURES,
        Source::Heart => &HEART,
        Source::Activity => &ACTIVITY,
        Source::Workouts => &WORKOUTS,
        Source::SleepSummary => &SLEEP_SUMMARY,
        Source::SleepDetail => &SLEEP_DETAIL,
    }
}

/// Rows fetched for one list call.
pub struct Fetched<T> {
    pub rows: Vec<T>,
    pub has_more: bool,
    pub next_offset: Option<i64>,
    /// The last page's body-level `timezone` (getmeas).
    pub timezone: Option<String>,
    /// True when the call's request budget stopped the fetch (`has_more` is then true).
    pub budget_spent: bool,
}

/// The action's date range and fixed parameters.
fn upstream_params(spec: &Spec, range: &Range) -> Vec<(&'static str, String)> {
    let mut params = date_params(range, spec.style);
    params.extend(spec.fixed.iter().map(|(k, v)| (*k, v.to_string())));
    params
}

/// Fetches an action's rows over a range, following paging up to `limit`, each decoded as `R`
/// as it is read (the list tools delimit them only, as `RawValue`, and decode the ones kept).
fn fetch<R: Row>(
    client: &mut Client,
    spec: &Spec,
    range: &Range,
    limit: usize,
    offset: Option<i64>,
    newest_first: bool,
) -> Result<Fetched<R::Kept>> {
    if !spec.pages {
        return fetch_windows::<R>(client, spec, range, limit, offset.unwrap_or(0).max(0), newest_first);
    }
    let params = upstream_params(spec, range);
    let page = client.page_through::<R>(spec.path, spec.action, &params, limit, offset)?;
    let (has_more, next_offset, timezone) = (page.more, page.next_offset, page.timezone);
    Ok(Fetched { rows: page.rows, has_more, next_offset, timezone, budget_spent: page.budget_spent })
}

/// Sleep detail has no upstream paging and a 7-day window: the range is split into windows.
/// `offset` (see `WINDOW_SLOTS`) names the window to start at and the segments to skip from its
/// start, across windows, so that `next_offset` continues exactly where an answer stopped: after
/// `limit` segments, or where the call's request budget ran out. `newest_first` reads the
/// windows from the last, each newest first (the list tool's order).
fn fetch_windows<R: Row>(
    client: &mut Client,
    spec: &Spec,
    range: &Range,
    limit: usize,
    offset: i64,
    newest_first: bool,
) -> Result<Fetched<R::Kept>> {
    let mut windows = time::split_range(range, SLEEP_DETAIL_WINDOW_SECS);
    if newest_first {
        windows.reverse();
    }
    let first = usize::try_from(offset / WINDOW_SLOTS).unwrap_or(usize::MAX);
    let mut skip = usize::try_from(offset % WINDOW_SLOTS).unwrap_or(0);
    client.expect(windows.len().saturating_sub(first));
    let mut rows = Vec::new();
    let mut timezone = None;
    let mut next: Option<i64> = None;
    let mut budget_spent = false;
    let slot = |window: usize, position: usize| window as i64 * WINDOW_SLOTS + position as i64;
    for (i, (start, end)) in windows.iter().enumerate().skip(first) {
        if rows.len() == limit {
            next = Some(slot(i, 0));
            break;
        }
        let mut params: Vec<(&str, String)> =
            vec![("startdate", start.0.to_string()), ("enddate", (end.0 - 1).max(start.0).to_string())];
        params.extend(spec.fixed.iter().map(|(k, v)| (*k, v.to_string())));
        let page = match client.rows::<R>(spec.path, spec.action, &params) {
            Ok(p) => p,
            // Windows were read in this call: return them, with where to go on.
            Err(e) if matches!(*e, Error::Budget { .. }) && i > first => {
                (next, budget_spent) = (Some(slot(i, 0)), true);
                break;
            }
            Err(e) => return Err(e),
        };
        let mut items = page.rows;
        // Withings answers with every segment that overlaps the window: one that crosses an edge
        // comes in both windows, and belongs to the earlier one.
        if *start > range.start {
            items.retain(|r| R::start(r).is_none_or(|t| t >= start.0));
        }
        if newest_first {
            crate::sort::by_key(&mut items, |r| std::cmp::Reverse(R::start(r)));
        }
        timezone = page.timezone;
        let from = skip.min(items.len());
        skip -= from;
        let room = limit - rows.len();
        if items.len() - from > room {
            next = Some(slot(i, from + room));
        }
        rows.extend(items.into_iter().skip(from).take(room));
        if next.is_some() {
            break;
        }
    }
    Ok(Fetched { rows, has_more: next.is_some(), next_offset: next, timezone, budget_spent })
}

/// Offsets from here on continue a list whose range one call could not read whole (see
/// [`newest_first`]): the upstream offset to go on from, plus this mark.
const CHUNKED: i64 = 1 << 40;

/// A paged action's list, newest first like every list: Withings sends activity, workouts and
/// sleep summaries oldest first and documents no order for the others, so the whole range is
/// read (one range query plus its pages) and sorted; `limit` keeps the most recent records and
/// `offset` counts records from the newest. A range too long for one call's request budget is
/// read in chunks in Withings' order instead, each answer newest first, its `next_offset`
/// (`CHUNKED` + the upstream offset) going on exactly where it stopped.
fn newest_first(
    client: &mut Client,
    spec: &Spec,
    range: &Range,
    limit: usize,
    offset: Option<i64>,
) -> Result<Fetched<Box<str>>> {
    let offset = offset.unwrap_or(0).max(0);
    let (chunked, read_limit, from) = match offset >= CHUNKED {
        true => (true, limit, Some(offset - CHUNKED)),
        false => (false, INTERNAL_LIMIT, None),
    };
    let mut all = fetch::<Stamped>(client, spec, range, read_limit, from, true)?;
    let chunk = chunked || all.budget_spent;
    if chunk && all.rows.len() > limit {
        // The budget stopped the read past `limit`: this answer ends at `limit`, in Withings' order.
        all.rows.truncate(limit);
        (all.has_more, all.next_offset) = (true, Some(from.unwrap_or(0) + limit as i64));
    }
    let mut rows = std::mem::take(&mut all.rows);
    // Newest first; a row without a time (`Stamped::time`'s i64::MAX) last. Only the rows
    // returned are decoded, from here on.
    crate::sort::by_key(&mut rows, |r| {
        let t = r.time();
        (t == i64::MAX, std::cmp::Reverse(t))
    });
    let (has_more, timezone, budget_spent) = (all.has_more, all.timezone, all.budget_spent);
    if chunk {
        let next_offset = all.next_offset.filter(|_| has_more).map(|o| o + CHUNKED);
        return Ok(Fetched { rows: raw_rows(rows), has_more, next_offset, timezone, budget_spent });
    }
    let (skip, total) = (usize::try_from(offset).unwrap_or(0), rows.len());
    let rows = raw_rows(rows.into_iter().skip(skip).take(limit));
    let end = skip.saturating_add(rows.len());
    let has_more = end < total;
    let next_offset = has_more.then_some(end as i64);
    Ok(Fetched { rows, has_more, next_offset, timezone, budget_spent: false })
}

/// How far back sleep detail looks for the last night when no `after` is given.
const LAST_NIGHT_LOOKBACK_SECS: i64 = 36 * 3600;

/// Sleep detail's default range: from the first segment of the last night before `range.end`
/// (`domain::sleep::last_night_start`) to `range.end`, found with one request over the 36 hours
/// before it (states only: no `data_fields`); those 36 hours when they hold no sleep.
fn last_night(client: &mut Client, spec: &Spec, range: Range, zone: &Zone) -> Result<Range> {
    let probe = time::Instant(range.end.0 - LAST_NIGHT_LOOKBACK_SECS);
    let params = [("startdate", probe.0.to_string()), ("enddate", (range.end.0 - 1).to_string())];
    let page = client.rows::<SegmentWire>(spec.path, spec.action, &params)?;
    let spans: Vec<_> = page.rows.iter().filter_map(|s| Some((s.start?, s.end?))).collect();
    let start = sleep::last_night_start(&spans).filter(|s| *s < range.end).unwrap_or(probe);
    Ok(Range { start, start_date: zone.local_date(start), ..range })
}

/// The shared list pipeline.
fn list(ctx: &Ctx, args: &Map<String, Value>, spec: &Spec, decode: &Decode) -> Result<Output> {
    let s = settings(ctx, args)?;
    let mut range = date_range(args, &s.zone, ctx.now, spec.default_days)?;
    let limit =
        args.get("limit").and_then(Value::as_i64).unwrap_or(DEFAULT_LIMIT).clamp(1, MAX_LIMIT) as usize;
    let offset = args.get("offset").and_then(Value::as_i64);
    let mut client = ctx.client(&s.cfg, &s.zone)?;
    if !spec.pages && !args.contains_key("after") {
        range = last_night(&mut client, spec, range, &s.zone)?;
    }
    let fetched = match spec.pages {
        true => newest_first(&mut client, spec, &range, limit, offset)?,
        false => {
            let f = fetch::<Box<RawValue>>(&mut client, spec, &range, limit, offset, true)?;
            let rows = f.rows.into_iter().map(Box::<str>::from).collect();
            let (has_more, next_offset, timezone, budget_spent) =
                (f.has_more, f.next_offset, f.timezone, f.budget_spent);
            Fetched { rows, has_more, next_offset, timezone, budget_spent }
        }
    };
    let mut zones = Zones::new(s.zone.clone());
    let (records, lines): (Vec<String>, Vec<String>) =
        decode(&fetched.rows, fetched.timezone.as_deref(), &mut zones, &s)?.into_iter().unzip();
    let upstream = UpstreamOut::new(spec.path, spec.action, client.requests_sent(), fetched.budget_spent);
    let next = fetched.next_offset.filter(|_| fetched.has_more);
    let mut out = ListOut::new(records, next, s.privacy, s.units, upstream);
    // More may exist where no offset reaches it (a window cut short): narrowing the range does.
    out.has_more = fetched.has_more;
    out.empty = out.records.is_empty() && !fetched.has_more;
    out.range = Some(range_out(&range, &s.zone));
    let markdown = list_markdown(spec, &out, &lines);
    Ok(Output { structured: out.into_json()?, markdown, extra: Vec::new() })
}

/// The range as dates and instants in the user's zone, for the answer.
pub fn range_out(range: &Range, zone: &Zone) -> WindowOut {
    WindowOut {
        after: range.start_date.to_string(),
        before: range.end_date.to_string(),
        start: time::format_local(range.start, zone),
        end: time::format_local(range.end, zone),
        zone: zone.name().to_string(),
    }
}

/// Which body-measure groups to keep.
struct MeasureFilter {
    types: Vec<i64>,
    attrib: String,
}

impl MeasureFilter {
    fn keeps(&self, g: &GroupOut) -> bool {
        let attrib_ok = match self.attrib.as_str() {
            "owner" => !g.ambiguous(),
            "device" => !g.ambiguous() && !g.manual(),
            _ => true,
        };
        attrib_ok && g.has_type(&self.types)
    }
}

fn measure_filter(args: &Map<String, Value>) -> Result<MeasureFilter> {
    let mut types = Vec::new();
    for t in args.get("types").and_then(Value::as_array).into_iter().flatten() {
        let s = t.as_str().unwrap_or_default();
        let code = s.parse::<i64>().ok().or_else(|| measures::measure_code(s));
        match code {
            Some(c) => types.push(c),
            None => {
                return Err(Error::arg(
                    "types",
                    format!("unknown measure `{s}`; use a name such as weight or a type code"),
                ));
            }
        }
    }
    let attrib = args.get("attrib").and_then(Value::as_str).unwrap_or("all").to_string();
    Ok(MeasureFilter { types, attrib })
}

fn list_markdown(spec: &Spec, out: &ListOut<String>, lines: &[String]) -> String {
    let mut md = match &out.range {
        Some(r) => format!("# {} {} → {} ({})\n\n", capitalise(spec.noun), r.after, r.before, r.zone),
        None => format!("# {}\n\n", capitalise(spec.noun)),
    };
    match out.count {
        0 => md.push_str(&format!("No {} recorded in this range.\n", spec.noun)),
        _ => {
            for line in lines {
                md.push_str(&format!("- {line}\n"));
            }
        }
    }
    md.push_str(&list_out::markdown_footer(out, spec.noun));
    md
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::withings::wire::Answer;

    #[test]
    fn sleep_summaries_ask_for_every_field_they_read() {
        let asked: Vec<&str> = SLEEP_SUMMARY_FIELDS.split(',').collect();
        for (_, _, key) in crate::domain::sleep::SLEEP_FIELDS {
            assert!(asked.contains(key), "{key} is read but never asked for");
        }
        assert!(asked.contains(&"core_body_temperature_status"));
    }

    #[test]
    fn row_days_of_every_list_action() {
        let paris = Zone::fixed(3600);
        let cases: &[(&str, Option<&str>)] = &[
            // getmeas: epoch `date` (2026-03-01T23:30:00Z is the 2nd in Paris).
            (r#"{"date":1772407800,"grpid":1}"#, Some("2026-03-02")),
            (r#"{"date":"1772407800"}"#, Some("2026-03-02")),
            // activity: a civil day as sent.
            (r#"{"date":"2026-03-01","steps":5}"#, Some("2026-03-01")),
            // sleep summary: the wake-up day, and the start the evening before: the earlier.
            (r#"{"date":"2026-03-02","startdate":1772402400}"#, Some("2026-03-01")),
            // heart: `timestamp`.
            (r#"{"timestamp":1772352000}"#, Some("2026-03-01")),
            (r#"{"date":"soon","modified":5}"#, None),
            (r#"{"date":null}"#, None),
        ];
        let stamped = |rows: &[&str]| {
            let text = format!(r#"{{"status":0,"body":{{"series":[{}]}}}}"#, rows.join(","));
            Stamped::page(&Answer { http_status: 200, text }, "/v2/test").unwrap().rows
        };
        for (row, want) in cases {
            let r = &stamped(&[row])[0];
            assert_eq!(r.day_in(&paris).map(|d| d.to_string()).as_deref(), *want, "{row}");
            assert_eq!(r.text(), *row, "the row's text as sent");
        }
        let rows = stamped(&[r#"{"startdate":5}"#, r#"{"x":1}"#, r#"{"date":"1970-01-01"}"#, "7"]);
        assert_eq!(rows.iter().map(Stamped::time).collect::<Vec<_>>(), [5, i64::MAX, 0, i64::MAX]);
    }
}
