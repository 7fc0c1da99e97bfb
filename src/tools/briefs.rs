//! `withings_daily_summary` and `withings_weekly_summary`: what an agent calls first.
//!
//! Each domain is fetched once for the whole range (a range query plus its pages, never one
//! request per day): four requests for a 7-vs-7-day weekly brief; a daily one adds a fifth, the
//! watch's samples of last night. Decoded
//! records are bucketed into the user's civil days (a record's own zone when it carries one) and
//! handed to `domain::summary`, which never counts missing data as zero. A domain that fails is
//! named with its reason while the others still answer.

use serde_json::{Map, Value};

use crate::domain::activity::ActivityDay;
use crate::domain::heart::HeartRecord;
use crate::domain::intraday::{FieldSet, field_index, lowest_mean, stats_between};
use crate::domain::measures::GroupValues;
use crate::domain::named::Named;
use crate::domain::sleep::{SleepField, SleepNight};
use crate::domain::summary::{self, Fetch, Inputs};
use crate::domain::time::{CivilDate, DAY_SECS, Instant, Range, Zone, Zones};
use crate::domain::units::Units;
use crate::store;
use crate::tools::data::{self, Settings};
use crate::tools::intraday;
use crate::tools::{Annotations, Ctx, Output, Tool};
use crate::value::json;
use crate::withings::client::Client;
use crate::withings::wire::activity::ActivityWire;
use crate::withings::wire::heart::HeartWire;
use crate::withings::wire::sleep::NightWire;
use crate::{Error, Result};

/// The brief tools.
pub fn tools() -> Vec<Tool> {
    vec![
        Tool {
            name: "withings_daily_summary",
            title: "Daily summary",
            annotations: Annotations::REMOTE_READ,
            handler: daily,
        },
        Tool {
            name: "withings_weekly_summary",
            title: "Weekly summary",
            annotations: Annotations::REMOTE_READ,
            handler: weekly,
        },
    ]
}

fn daily(ctx: &Ctx, args: &Map<String, Value>) -> Result<Output> {
    let s = data::settings(ctx, args)?;
    let zone = &s.zone;
    let today = zone.local_date(Instant(ctx.now));
    let day = match args.get("date").and_then(Value::as_str) {
        None => today,
        Some(s) => CivilDate::parse(s).map_err(|e| Error::arg("date", e))?,
    };
    if day.days() > today.days() {
        return Err(Error::arg(
            "date",
            format!("{day} is in the future (today is {today} in {})", zone.name()),
        ));
    }
    let first = day.add_days(-summary::DAILY_LOOKBACK_DAYS);
    let (mut inputs, mut client) = gather(ctx, &s, first, day)?;
    night_intraday(&mut client, &mut inputs, day.days())?;
    let requests = client.requests_sent();
    let now = summary::Now { day: today.days(), secs: zone.secs_of_day(Instant(ctx.now)) };
    let brief = summary::daily(&inputs, day.days(), now, &label);
    let markdown = summary::daily_markdown(&brief, s.units);
    let structured = annotate(&brief, zone, requests, s.units)?;
    Ok(Output { structured: structured.into(), markdown, extra: Vec::new() })
}

fn weekly(ctx: &Ctx, args: &Map<String, Value>) -> Result<Output> {
    let s = data::settings(ctx, args)?;
    let zone = &s.zone;
    let today = zone.local_date(Instant(ctx.now));
    let days = args.get("days").and_then(Value::as_i64).unwrap_or(7);
    let compare = args.get("compare_days").and_then(Value::as_i64).unwrap_or(7);
    let first = today.add_days(-(days + compare) + 1);
    let (inputs, client) = gather(ctx, &s, first, today)?;
    let requests = client.requests_sent();
    let brief = summary::weekly(&inputs, today.days(), days, compare, &label);
    let markdown = summary::weekly_markdown(&brief, s.units);
    let structured = annotate(&brief, zone, requests, s.units)?;
    Ok(Output { structured: structured.into(), markdown, extra: Vec::new() })
}

fn label(day: i64) -> String {
    CivilDate::from_days(day).to_string()
}

/// A brief as JSON, with the zone, the display units and the upstream cost added (allowed by its
/// schema's open top level).
fn annotate(brief: &impl serde::Serialize, zone: &Zone, requests: usize, units: Units) -> Result<Value> {
    let mut v = serde_json::to_value(brief).map_err(|e| Error::json("a brief", e))?;
    if let Some(obj) = v.as_object_mut() {
        obj.insert("zone".into(), json!(zone.name()));
        obj.insert("units".into(), json!(units.name()));
        obj.insert("upstream_requests".into(), json!(requests));
    }
    Ok(v)
}

/// Fetches the four domains once each over `first..=last` (civil days in `zone`) and converts
/// them into summary inputs. When every domain fails the brief fails with the first reason:
/// a summary of nothing but errors would hide a missing sign-in.
fn gather(ctx: &Ctx, s: &Settings, first: CivilDate, last: CivilDate) -> Result<(Inputs, Client)> {
    let zone = &s.zone;
    let range = Range {
        start: zone.local_midnight(first),
        end: zone.day_bounds(last).1,
        start_date: first,
        end_date: last,
    };
    let mut client = ctx.client(&s.cfg, zone)?;
    let groups = degrade(data::fetch_groups(&mut client, &range))?;
    let sleep = degrade(data::fetch_records::<NightWire>(&mut client, &range))?;
    let activity = degrade(data::fetch_records::<ActivityWire>(&mut client, &range))?;
    let heart = degrade(data::fetch_records::<HeartWire>(&mut client, &range))?;
    if sleep.is_err()
        && activity.is_err()
        && heart.is_err()
        && let Err(e) = &groups
    {
        return Err(Error::boxed(Error::Unavailable(format!("no Withings domain could be read: {e}"))));
    }
    let mut zones = Zones::new(zone.clone());
    let names = (groups.iter().flatten().map(|g| g.timezone.as_deref()))
        .chain(sleep.iter().flatten().map(|n| n.timezone.as_deref()))
        .chain(activity.iter().flatten().map(|a| a.timezone.as_deref()));
    store::zones::add_record_zones(&ctx.env, &mut zones, names.flatten());
    // One decoding of the measure groups feeds both weigh-ins and blood pressure.
    let inputs = Inputs {
        weighins: map(&groups, |g| weighins(g, &zones)),
        blood_pressure: map(&groups, |g| blood_pressure(g, &zones)),
        nights: map(&sleep, |n| nights(n, &zones)),
        activity: map(&activity, |a| activity_days(a)),
        heart: map(&heart, |h| heart_records(h, &zones)),
    };
    Ok((inputs, client))
}

/// A resting heart rate needs this many samples in its half hour (a watch samples every few minutes).
const REST_MIN_SAMPLES: usize = 3;

/// Last night from the watch's own samples, one more request: the resting heart rate (the
/// lowest mean over 30 minutes of the main sleep) and HRV (mean RMSSD while asleep). The window
/// read is the 24 hours before the wake-up, as Withings serves a full day best; only the samples
/// inside the night count. A failure leaves both absent and the brief as it was, since the sleep
/// summary already has the night's heart rates.
fn night_intraday(client: &mut Client, inputs: &mut Inputs, day: i64) -> Result<()> {
    let Some(night) = summary::main_sleep_mut(inputs, day) else { return Ok(()) };
    let Ok(fields) = FieldSet::of(&["heart_rate", "rmssd"]) else { return Ok(()) };
    let (start, end) = (night.start, night.end);
    let samples = match intraday::fetch_window(client, Instant(end - DAY_SECS), Instant(end), fields) {
        Ok(s) => s,
        Err(e) if e.ends_call() => return Err(e),
        Err(_) => return Ok(()),
    };
    let (hr, rmssd) = (field_index("heart_rate"), field_index("rmssd"));
    night.rest_hr = hr.and_then(|i| lowest_mean(&samples, i, (start, end), 1800, REST_MIN_SAMPLES));
    night.hrv_rmssd = rmssd.and_then(|i| stats_between(&samples, i, start, end)).map(|s| s.mean);
    Ok(())
}

/// One domain: what it read, or why it failed (the brief degrades); the call's deadline or
/// request budget ends the whole brief instead, since the domains after it cannot be read either.
fn degrade<T>(read: Result<T>) -> Result<std::result::Result<T, String>> {
    match read {
        Ok(v) => Ok(Ok(v)),
        Err(e) if e.ends_call() => Err(e),
        Err(e) => Ok(Err(e.to_string())),
    }
}

fn map<B, T>(body: &std::result::Result<B, String>, f: impl Fn(&B) -> Vec<T>) -> Fetch<T> {
    match body {
        Ok(b) => Fetch::Ok(f(b)),
        Err(e) => Fetch::Failed(e.clone()),
    }
}

/// The civil day of an instant in the record's own zone (a weigh-in at 07:10 in New York belongs
/// to that New York day), else the user's.
fn day_of(zones: &Zones, tz: Option<&str>, t: Instant) -> i64 {
    zones.for_record(tz).local_date(t).days()
}

fn weighins(groups: &[GroupValues], zones: &Zones) -> Vec<summary::Weighin> {
    groups
        .iter()
        .filter(|g| g.category.unwrap_or(1) == 1 && g.value(1).is_some())
        .filter_map(|g| {
            let t = g.date?;
            Some(summary::Weighin {
                t: t.0,
                day: day_of(zones, g.timezone.as_deref(), t),
                weight_kg: g.value(1),
                fat_ratio_pct: g.value(6),
                fat_mass_kg: g.value(8),
                fat_free_mass_kg: g.value(5),
                muscle_mass_kg: g.value(76),
                bone_mass_kg: g.value(88),
                hydration_kg: g.value(77),
                heart_pulse_bpm: g.value(11),
                guest: g.ambiguous(),
                manual: g.manual(),
            })
        })
        .collect()
}

fn blood_pressure(groups: &[GroupValues], zones: &Zones) -> Vec<summary::BloodPressure> {
    groups
        .iter()
        .filter(|g| g.category.unwrap_or(1) == 1 && !g.ambiguous())
        .filter_map(|g| {
            let t = g.date?;
            Some(summary::BloodPressure {
                t: t.0,
                day: day_of(zones, g.timezone.as_deref(), t),
                systolic: g.value(10)?,
                diastolic: g.value(9)?,
                pulse: g.value(11),
            })
        })
        .collect()
}

fn nights(nights: &[SleepNight], zones: &Zones) -> Vec<summary::Night> {
    nights
        .iter()
        .filter_map(|n| {
            let (start, end) = (n.start?, n.end?);
            let zone = zones.for_record(n.timezone.as_deref());
            Some(summary::Night {
                day: n.date.map(|d| d.days()).unwrap_or_else(|| zone.local_date(end).days()),
                start: start.0,
                end: end.0,
                asleep_s: n.total_sleep_secs(),
                deep_s: n.get(SleepField::DeepSleep),
                light_s: n.get(SleepField::LightSleep),
                rem_s: n.get(SleepField::RemSleep),
                awake_s: n.get(SleepField::Awake),
                wakeups: n.get(SleepField::WakeupCount),
                score: n.sleep_score(),
                hr_average: n.get(SleepField::HrAverage).filter(|v| *v > 0.0),
                hr_min: n.get(SleepField::HrMin).filter(|v| *v > 0.0),
                rr_average: n.get(SleepField::RrAverage).filter(|v| *v > 0.0),
                bedtime_local_s: zone.secs_of_day(start),
                wake_local_s: zone.secs_of_day(end),
                nap: n.is_nap(zone).unwrap_or(false),
                rest_hr: None,
                hrv_rmssd: None,
            })
        })
        .collect()
}

/// One record per day: when several sources report a day, the fullest one (most steps) counts,
/// never the sum, which would double-count a phone and a watch worn together.
fn activity_days(days: &[ActivityDay]) -> Vec<summary::ActivityDay> {
    let mut out: Vec<summary::ActivityDay> = days
        .iter()
        .filter_map(|a| {
            Some(summary::ActivityDay {
                day: a.date?.days(),
                steps: a.steps,
                distance_m: a.distance,
                active_s: a.active_minutes().map(|m| m * 60.0),
                moderate_s: a.moderate,
                intense_s: a.intense,
                calories: a.calories,
                total_calories: a.totalcalories,
                hr_average: a.hr_average.filter(|v| *v > 0.0),
            })
        })
        .collect();
    // By day, most steps first (the first of equals, the sort being stable); then one a day.
    let steps = |a: &summary::ActivityDay| a.steps.unwrap_or(0.0);
    crate::sort::by(&mut out, |a, b| a.day.cmp(&b.day).then(steps(b).total_cmp(&steps(a))));
    out.dedup_by_key(|a| a.day);
    out
}

fn heart_records(records: &[HeartRecord], zones: &Zones) -> Vec<summary::HeartRecord> {
    records
        .iter()
        .filter_map(|h| {
            let t = h.timestamp?;
            let (dia, sys) = h.bloodpressure.unwrap_or((None, None));
            let ecg = h.afib_name().map(|a| {
                match a {
                    "negative" => "normal",
                    "positive" => "afib",
                    other => other,
                }
                .to_string()
            });
            Some(summary::HeartRecord {
                t: t.0,
                day: day_of(zones, None, t),
                heart_rate: h.heart_rate.filter(|v| *v > 0.0),
                systolic: sys,
                diastolic: dia,
                ecg,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(date: &str, steps: Option<f64>, distance: f64) -> ActivityDay {
        ActivityDay {
            date: Some(CivilDate::parse(date).unwrap()),
            steps,
            distance: Some(distance),
            ..ActivityDay::default()
        }
    }

    /// A watch and a phone counting the same days: the fullest record of each day, never the
    /// sum; the first of two equal ones; a day without steps loses to any with them.
    #[test]
    fn one_activity_record_a_day_the_fullest() {
        let got = activity_days(&[
            day("2026-03-02", Some(4000.0), 1.0),
            day("2026-03-01", Some(9000.0), 2.0),
            day("2026-03-02", Some(7000.0), 3.0),
            day("2026-03-01", Some(9000.0), 4.0),
            day("2026-03-03", None, 5.0),
            day("2026-03-03", Some(10.0), 6.0),
        ]);
        let kept: Vec<(Option<f64>, Option<f64>)> = got.iter().map(|a| (a.steps, a.distance_m)).collect();
        assert_eq!(kept, [(Some(9000.0), Some(2.0)), (Some(7000.0), Some(3.0)), (Some(10.0), Some(6.0))]);
        assert!(got.windows(2).all(|w| w[0].day < w[1].day));
    }
}
