//! `withings_list_devices` and `withings_get_goals`: what the person measures with, and what they
//! aim for (user v2 `getdevice` and `getgoals`; both need the `user.info` scope).

use serde::Serialize;
use serde_json::{Map, Value};
use std::fmt::Write as _;

use crate::domain::devices::{self, Device};
use crate::domain::goals::{self, Goals, Progress, WeightProgress};
use crate::domain::named::Named;
use crate::domain::privacy::{self, PrivacyMode};
use crate::domain::summary::markdown::md::n as grouped;
use crate::domain::time::{self, CivilDate, Instant, Range, Zone, Zones};
use crate::domain::units::{self, Units};
use crate::store;
use crate::tools::data::{self, Settings};
use crate::tools::list_out::{self, ListOut, UpstreamOut};
use crate::tools::records::hours_minutes;
use crate::tools::trend_output::WindowOut;
use crate::tools::{Annotations, Ctx, Output, Tool, trends};
use crate::withings::client::Client;
use crate::withings::wire::activity::ActivityWire;
use crate::withings::wire::sleep::NightWire;
use crate::{Error, Result};

const USER: &str = "/v2/user";

/// The two tools.
pub fn tools() -> Vec<Tool> {
    vec![
        Tool {
            name: "withings_list_devices",
            title: "Devices",
            annotations: Annotations::REMOTE_READ,
            handler: list_devices,
        },
        Tool {
            name: "withings_get_goals",
            title: "Goals and progress",
            annotations: Annotations::REMOTE_READ,
            handler: get_goals,
        },
    ]
}

// ---------------------------------------------------------------------------------------------
// Devices
// ---------------------------------------------------------------------------------------------

/// A device as the answer shows it; summary mode leaves out the detail (`model_id` on).
#[derive(Debug, Serialize)]
struct DeviceOut {
    #[serde(rename = "type")]
    kind: Option<String>,
    model: Option<String>,
    battery: Option<&'static str>,
    last_sync: Option<String>,
    stale: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    model_id: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    first_sync: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    last_sync_time: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    hours_since_sync: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    timezone: Option<String>,
}

impl DeviceOut {
    /// Local times in the device's own zone.
    fn new(d: &Device, zones: &Zones, now: Instant, detail: bool) -> DeviceOut {
        let zone = zones.for_record(d.timezone.as_deref());
        let local = |t: Option<Instant>| t.map(|t| time::format_local(t, zone));
        DeviceOut {
            kind: d.kind.clone(),
            model: d.model_name().map(str::to_string),
            battery: d.battery,
            last_sync: local(d.last_sync),
            stale: d.stale(now),
            model_id: d.model_id.filter(|_| detail),
            first_sync: local(d.first_sync).filter(|_| detail),
            last_sync_time: d.last_sync.map(|t| t.0).filter(|_| detail),
            hours_since_sync: d
                .last_sync
                .map(|t| ((now.0 - t.0) as f64 / 360.0).round() / 10.0)
                .filter(|_| detail),
            timezone: detail.then(|| zone.name().to_string()),
        }
    }
}

fn list_devices(ctx: &Ctx, args: &Map<String, Value>) -> Result<Output> {
    let s = data::settings(ctx, args)?;
    // Without dates, every device: a 100-year default reaches back before any Withings device.
    let range = match args.contains_key("after") || args.contains_key("before") {
        true => Some(data::date_range(args, &s.zone, ctx.now, 36_500)?),
        false => None,
    };
    let mut client = ctx.client(&s.cfg, &s.zone)?;
    let mut body = client.call_answer(USER, "getdevice", &[])?.value(&format!("{USER} getdevice"))?;
    // A handful of small rows: read from the answer as JSON, each with the object as sent (raw mode).
    let mut rows: Vec<(Device, Value)> = match body.get_mut("devices").map(Value::take) {
        Some(Value::Array(list)) => list.into_iter().map(|v| (devices::decode_device(&v), v)).collect(),
        _ => Vec::new(),
    };
    rows.retain(|(d, _)| range.as_ref().is_none_or(|r| d.used_within(r.start, r.end)));
    crate::sort::by(&mut rows, |a, b| b.0.last_sync.cmp(&a.0.last_sync));
    let (limit, offset) = (list_out::limit(args), list_out::offset(args) as usize);
    let more = rows.len() > offset.saturating_add(limit);
    let page: Vec<(Device, Value)> = rows.into_iter().skip(offset).take(limit).collect();
    let next = more.then_some((offset + limit) as i64);
    let upstream = UpstreamOut::new(USER, "getdevice", client.requests_sent(), false);
    let zones = device_zones(ctx, &s.zone, &page);
    let now = Instant(ctx.now);
    let range_out = range.as_ref().map(|r| data::range_out(r, &s.zone));
    let detail = s.privacy == PrivacyMode::Structured;
    let shown: Vec<DeviceOut> = page.iter().map(|(d, _)| DeviceOut::new(d, &zones, now, detail)).collect();
    let mut out = ListOut::new(shown, next, s.privacy, s.units, upstream);
    out.range = range_out;
    // Raw mode answers the devices as sent; its text reads them decoded all the same.
    let markdown = devices_markdown(&out);
    let mut structured = out.to_value()?;
    if s.privacy == PrivacyMode::Raw {
        let sent: Vec<Value> = page
            .into_iter()
            .map(|(_, mut v)| {
                privacy::strip_secrets(&mut v);
                v
            })
            .collect();
        structured["records"] = Value::Array(sent);
    }
    Ok(Output { structured: structured.into(), markdown, extra: Vec::new() })
}

/// The user's zone plus every zone the devices name.
fn device_zones(ctx: &Ctx, zone: &Zone, rows: &[(Device, Value)]) -> Zones {
    let mut zones = Zones::new(zone.clone());
    let names = rows.iter().filter_map(|(d, _)| d.timezone.as_deref());
    store::zones::add_record_zones(&ctx.env, &mut zones, names);
    zones
}

fn devices_markdown(out: &ListOut<DeviceOut>) -> String {
    let mut md = String::from("# Devices\n\n");
    if out.records.is_empty() {
        md.push_str("No devices.\n");
    }
    for d in &out.records {
        let model = d.model.as_deref().unwrap_or("unnamed device");
        let kind = d.kind.as_deref().map(|k| format!(" ({k})")).unwrap_or_default();
        let battery = match d.battery {
            Some("low") => "battery **low**".to_string(),
            Some(b) => format!("battery {b}"),
            None => "battery level unknown".to_string(),
        };
        let sync = match (&d.last_sync, d.stale) {
            (Some(t), Some(true)) => format!("last synced {}: **not synced for over 48 hours**", short(t)),
            (Some(t), _) => format!("last synced {}", short(t)),
            (None, _) => "never synced".to_string(),
        };
        let _ = writeln!(md, "- **{model}**{kind}: {battery}, {sync}");
    }
    md + &list_out::markdown_footer(out, "devices")
}

/// "2026-03-15 11:40" from a local time.
fn short(local: &str) -> String {
    local.get(..16).unwrap_or(local).replace('T', " ")
}

// ---------------------------------------------------------------------------------------------
// Goals
// ---------------------------------------------------------------------------------------------

/// The goals answer.
#[derive(Debug, Serialize)]
struct GoalsOut {
    goals: GoalValues,
    window: WindowOut,
    steps: Option<DaysOut>,
    sleep: Option<DaysOut>,
    weight: Option<WeightOut>,
    /// Goals whose progress could not be read, and why.
    #[serde(skip_serializing_if = "Map::is_empty")]
    unavailable: Map<String, Value>,
    /// Raw mode: the getgoals body as sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    raw: Option<Value>,
    privacy_mode: PrivacyMode,
    units: Units,
    upstream: UpstreamOut,
}

#[derive(Debug, Serialize)]
struct GoalValues {
    steps: Option<f64>,
    sleep_seconds: Option<f64>,
    weight_kg: Option<f64>,
}

/// Progress towards steps (values in steps) or sleep (values in seconds asleep).
#[derive(Debug, Serialize)]
struct DaysOut {
    goal: f64,
    /// Mean over the complete days (today counts once its goal is met).
    average: Option<f64>,
    counted: usize,
    met: usize,
    /// "7 h 30 min" for sleep.
    #[serde(skip_serializing_if = "Option::is_none")]
    goal_text: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    average_text: Option<String>,
    /// Each day, newest first (summary mode leaves them out).
    #[serde(skip_serializing_if = "Option::is_none")]
    days: Option<Vec<DayOut>>,
}

#[derive(Debug, Serialize)]
struct DayOut {
    date: String,
    value: f64,
    met: bool,
    partial: bool,
}

#[derive(Debug, Serialize)]
struct WeightOut {
    goal_kg: f64,
    goal: String,
    /// The trend level at the latest weigh-in (what withings_trends calls `latest`).
    trend_kg: Option<f64>,
    trend: Option<String>,
    trend_at: Option<String>,
    /// Goal minus trend: negative when there is weight to lose.
    to_go_kg: Option<f64>,
    slope_kg_per_week: Option<f64>,
    status: &'static str,
    weeks_to_goal: Option<f64>,
    eta: Option<String>,
    trend_window: WindowOut,
}

fn get_goals(ctx: &Ctx, args: &Map<String, Value>) -> Result<Output> {
    let s = data::settings(ctx, args)?;
    let window = data::date_range(args, &s.zone, ctx.now, 7)?;
    let mut client = ctx.client(&s.cfg, &s.zone)?;
    let mut body = client.call_answer(USER, "getgoals", &[])?.value(&format!("{USER} getgoals"))?;
    let goals: Goals = goals::decode_goals(&body);
    let raw = match s.privacy {
        PrivacyMode::Raw => {
            privacy::strip_secrets(&mut body);
            Some(body)
        }
        _ => None,
    };
    let today = s.zone.local_date(Instant(ctx.now));
    let days = s.privacy != PrivacyMode::Summary;
    let mut unavailable = Map::new();
    let mut fetch = |what: &str, r: Result<DaysOut>| match r {
        Ok(p) => Ok(Some(p)),
        Err(e) if e.ends_call() => Err(e),
        Err(e) => {
            unavailable.insert(what.to_string(), Value::String(e.to_string()));
            Ok(None)
        }
    };
    let steps = match goals.steps {
        Some(goal) => fetch(
            "steps",
            steps_progress(&mut client, &window, goal, today).map(|p| days_out(&p, days, None)),
        )?,
        None => None,
    };
    let sleep = match goals.sleep_secs {
        Some(goal) => fetch(
            "sleep",
            sleep_progress(&mut client, &window, &s.zone, goal).map(|p| days_out(&p, days, Some(()))),
        )?,
        None => None,
    };
    let weight = match goals.weight_kg {
        Some(goal) => match weight_progress(&mut client, &window, &s, goal) {
            Ok(w) => Some(w),
            Err(e) if e.ends_call() => return Err(e),
            Err(e) => {
                unavailable.insert("weight".into(), Value::String(e.to_string()));
                None
            }
        },
        None => None,
    };
    let out = GoalsOut {
        goals: GoalValues { steps: goals.steps, sleep_seconds: goals.sleep_secs, weight_kg: goals.weight_kg },
        window: data::range_out(&window, &s.zone),
        steps,
        sleep,
        weight,
        unavailable,
        raw,
        privacy_mode: s.privacy,
        units: s.units,
        upstream: UpstreamOut::new(USER, "getgoals", client.requests_sent(), false),
    };
    let markdown = goals_markdown(&out);
    let structured = serde_json::to_value(&out).map_err(|e| Error::json("withings_get_goals answer", e))?;
    Ok(Output { structured: structured.into(), markdown, extra: Vec::new() })
}

/// Each day's steps (the fullest source when a watch and a phone both count) against the goal.
fn steps_progress(client: &mut Client, window: &Range, goal: f64, today: CivilDate) -> Result<Progress> {
    let days = data::fetch_records::<ActivityWire>(client, window)?;
    let days = days.into_iter().filter_map(|a| Some((a.date?, a.steps?)));
    Ok(goals::progress(goal, &goals::best_per_day(days.collect()), Some(today)))
}

/// Each night's time asleep (naps aside; the longest sleep when a day has two) against the goal.
fn sleep_progress(client: &mut Client, window: &Range, zone: &Zone, goal: f64) -> Result<Progress> {
    let nights = data::fetch_records::<NightWire>(client, window)?
        .into_iter()
        .filter(|n| n.is_nap(zone) != Some(true));
    let days = nights
        .filter_map(|n| Some((n.day(zone)?, n.total_sleep_secs()?)))
        .filter(|(d, _)| *d >= window.start_date);
    Ok(goals::progress(goal, &goals::best_per_day(days.collect()), None))
}

/// The weight trend of the 90 days ending with the window, as withings_trends reads it.
fn weight_progress(client: &mut Client, window: &Range, s: &Settings, goal: f64) -> Result<WeightOut> {
    let start_date = window.end_date.add_days(1 - trends::DEFAULT_DAYS);
    let start = s.zone.local_midnight(start_date);
    let range = Range { start, start_date, ..*window };
    let groups = data::fetch_groups(client, &range)?;
    let trend = trends::measure_trend("weight", &groups, &range)
        .ok_or_else(|| Error::Unavailable("the weight trend is not available".into()))?;
    let p: WeightProgress = goals::weight_progress(goal, &trend, &s.zone);
    let kg = |v: f64| units::format_quantity(v, "kg", s.units, 1).unwrap_or_default();
    let round = |v: f64, d: i32| crate::domain::fields::round(v, d);
    Ok(WeightOut {
        goal_kg: round(p.goal_kg, 2),
        goal: kg(p.goal_kg),
        trend_kg: p.level_kg.map(|v| round(v, 2)),
        trend: p.level_kg.map(kg),
        trend_at: p.level_at.map(|t| time::format_local(t, &s.zone)),
        to_go_kg: p.to_go_kg.map(|v| round(v, 2)),
        slope_kg_per_week: p.slope_kg_per_week.map(|v| round(v, 3)),
        status: p.status.as_str(),
        weeks_to_goal: p.weeks_to_goal.map(|v| round(v, 1)),
        eta: p.eta.map(|d| d.to_string()),
        trend_window: data::range_out(&range, &s.zone),
    })
}

/// Progress as the answer shows it; `sleep` adds hours-and-minutes texts.
fn days_out(p: &Progress, with_days: bool, sleep: Option<()>) -> DaysOut {
    let text = |v: f64| sleep.map(|()| hours_minutes(v));
    DaysOut {
        goal: p.goal,
        average: p.average.map(|a| a.round()),
        counted: p.counted,
        met: p.met,
        goal_text: text(p.goal),
        average_text: p.average.and_then(text),
        days: with_days.then(|| {
            p.days
                .iter()
                .map(|d| DayOut { date: d.date.to_string(), value: d.value, met: d.met, partial: d.partial })
                .collect()
        }),
    }
}

fn goals_markdown(out: &GoalsOut) -> String {
    let w = &out.window;
    let mut md = format!("# Goals and progress, {} → {} ({})\n\n", w.after, w.before, w.zone);
    let g = &out.goals;
    if g.steps.is_none() && g.sleep_seconds.is_none() && g.weight_kg.is_none() {
        md.push_str("No goals are set in Withings.\n");
    }
    if let (Some(goal), Some(p)) = (g.steps, &out.steps) {
        let avg = p
            .average
            .map(|a| format!("{} steps a day on average", grouped(a, 0)))
            .unwrap_or_else(|| "no complete day yet".into());
        let _ = writeln!(
            md,
            "- **Steps:** goal {} a day; {avg}; met on {} of {} days",
            grouped(goal, 0),
            p.met,
            p.counted
        );
    }
    if let (Some(goal), Some(p)) = (g.sleep_seconds, &out.sleep) {
        let avg = p
            .average
            .map(|a| format!("{} asleep a night on average", hours_minutes(a)))
            .unwrap_or_else(|| "no night recorded".into());
        let _ = writeln!(
            md,
            "- **Sleep:** goal {} a night; {avg}; met on {} of {} nights",
            hours_minutes(goal),
            p.met,
            p.counted
        );
    }
    if let Some(wt) = &out.weight {
        let level =
            wt.trend.as_deref().map(|t| format!("trend {t}")).unwrap_or_else(|| "no trend yet".into());
        let eta = match (wt.status, &wt.eta, wt.weeks_to_goal) {
            ("on_track", Some(d), Some(weeks)) => {
                format!(": on track, about {} weeks to go (around {d})", units::fmt_num(weeks, 0))
            }
            ("on_track", _, _) => ": heading there, but not within ten years at this pace".into(),
            (status, _, _) => format!(": {}", status.replace('_', " ")),
        };
        let _ = writeln!(md, "- **Weight:** goal {}; {level}{eta}", wt.goal);
    }
    for (what, why) in &out.unavailable {
        let _ = writeln!(md, "- {what}: progress unavailable ({})", why.as_str().unwrap_or_default());
    }
    let _ = writeln!(md, "\nprivacy mode `{}`", out.privacy_mode.name());
    md
}
