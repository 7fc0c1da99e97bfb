//! Sleep: nights from `getsummary` and state segments from sleep `get`, as plain values
//! (`withings::wire::sleep` reads them off the wire; `tools::records::sleep` shows them).
//!
//! Nap rule (the reference defines no nap flag, so it is derived): a sleep is a **nap** when it
//! lasted less than 3 hours in bed, or when it does not overlap the local night window
//! 22:00–07:00 (in the record's own zone). Everything else is a main (night) sleep.

use std::collections::BTreeMap;

use crate::domain::fields::{Num, Slots};
use crate::domain::time::{CivilDate, DAY_SECS, Instant, Zone};

/// Sleeps shorter than this (seconds in bed) are naps.
pub const NAP_MAX_SECS: i64 = 3 * 3600;

/// Sleep state codes (withings-api.md §3.5).
pub fn state_name(code: i64) -> Option<&'static str> {
    match code {
        0 => Some("awake"),
        1 => Some("light"),
        2 => Some("deep"),
        3 => Some("rem"),
        4 => Some("manual"),
        5 => Some("unspecified"),
        15 => Some("out_of_bed"),
        _ => None,
    }
}

/// A value of a night's `data`. The discriminant is the row in [`SLEEP_FIELDS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SleepField {
    TotalSleepTime,
    TimeInBed,
    AsleepDuration,
    LightSleep,
    DeepSleep,
    RemSleep,
    Awake,
    WakeupCount,
    SleepScore,
    SleepEfficiency,
    SleepLatency,
    WakeupLatency,
    Waso,
    RemEpisodes,
    OutOfBedCount,
    HrAverage,
    HrMin,
    HrMax,
    RrAverage,
    RrMin,
    RrMax,
    Snoring,
    SnoringEpisodes,
    ApneaHypopneaIndex,
    BreathingDisturbancesIntensity,
    WithingsIndex,
    BreathingQualityAssessment,
    BreathingSounds,
    BreathingSoundsEpisodes,
    ChestMovementRateWellnessAverage,
    ChestMovementRateWellnessMin,
    ChestMovementRateWellnessMax,
    ChestMovementRateAverage,
    ChestMovementRateMin,
    ChestMovementRateMax,
    CoreBodyTemperatureAvg,
    CoreBodyTemperatureMin,
    CoreBodyTemperatureMax,
}

/// Every `data` value a night is read for, in output order: (field, output name, upstream key).
/// Units (withings-api.md §3.6): durations in seconds, rates per minute (`rr_*` and
/// `chest_movement_rate_wellness_*` breaths, `chest_movement_rate_*` chest-movement events),
/// `core_body_temperature_*` in °C, heart rates in bpm; indexes and scores have none.
pub const SLEEP_FIELDS: &[(SleepField, &str, &str)] = &[
    (SleepField::TotalSleepTime, "total_sleep_time", "total_sleep_time"),
    (SleepField::TimeInBed, "time_in_bed", "total_timeinbed"),
    (SleepField::AsleepDuration, "asleep_duration", "asleepduration"),
    (SleepField::LightSleep, "light_sleep", "lightsleepduration"),
    (SleepField::DeepSleep, "deep_sleep", "deepsleepduration"),
    (SleepField::RemSleep, "rem_sleep", "remsleepduration"),
    (SleepField::Awake, "awake", "wakeupduration"),
    (SleepField::WakeupCount, "wakeup_count", "wakeupcount"),
    (SleepField::SleepScore, "sleep_score", "sleep_score"),
    (SleepField::SleepEfficiency, "sleep_efficiency", "sleep_efficiency"),
    (SleepField::SleepLatency, "sleep_latency", "sleep_latency"),
    (SleepField::WakeupLatency, "wakeup_latency", "wakeup_latency"),
    (SleepField::Waso, "waso", "waso"),
    (SleepField::RemEpisodes, "rem_episodes", "nb_rem_episodes"),
    (SleepField::OutOfBedCount, "out_of_bed_count", "out_of_bed_count"),
    (SleepField::HrAverage, "hr_average", "hr_average"),
    (SleepField::HrMin, "hr_min", "hr_min"),
    (SleepField::HrMax, "hr_max", "hr_max"),
    (SleepField::RrAverage, "rr_average", "rr_average"),
    (SleepField::RrMin, "rr_min", "rr_min"),
    (SleepField::RrMax, "rr_max", "rr_max"),
    (SleepField::Snoring, "snoring", "snoring"),
    (SleepField::SnoringEpisodes, "snoring_episodes", "snoringepisodecount"),
    (SleepField::ApneaHypopneaIndex, "apnea_hypopnea_index", "apnea_hypopnea_index"),
    (
        SleepField::BreathingDisturbancesIntensity,
        "breathing_disturbances_intensity",
        "breathing_disturbances_intensity",
    ),
    (SleepField::WithingsIndex, "withings_index", "withings_index"),
    (SleepField::BreathingQualityAssessment, "breathing_quality_assessment", "breathing_quality_assessment"),
    (SleepField::BreathingSounds, "breathing_sounds", "breathing_sounds"),
    (SleepField::BreathingSoundsEpisodes, "breathing_sounds_episodes", "breathing_sounds_episode_count"),
    (
        SleepField::ChestMovementRateWellnessAverage,
        "chest_movement_rate_wellness_average",
        "chest_movement_rate_wellness_average",
    ),
    (
        SleepField::ChestMovementRateWellnessMin,
        "chest_movement_rate_wellness_min",
        "chest_movement_rate_wellness_min",
    ),
    (
        SleepField::ChestMovementRateWellnessMax,
        "chest_movement_rate_wellness_max",
        "chest_movement_rate_wellness_max",
    ),
    (SleepField::ChestMovementRateAverage, "chest_movement_rate_average", "chest_movement_rate_average"),
    (SleepField::ChestMovementRateMin, "chest_movement_rate_min", "chest_movement_rate_min"),
    (SleepField::ChestMovementRateMax, "chest_movement_rate_max", "chest_movement_rate_max"),
    (SleepField::CoreBodyTemperatureAvg, "core_body_temperature_avg", "core_body_temperature_avg"),
    (SleepField::CoreBodyTemperatureMin, "core_body_temperature_min", "core_body_temperature_min"),
    (SleepField::CoreBodyTemperatureMax, "core_body_temperature_max", "core_body_temperature_max"),
];

/// The row of [`SLEEP_FIELDS`] Withings sends under `key`, if we read it.
pub fn sleep_field(key: &str) -> Option<usize> {
    SLEEP_FIELDS.iter().position(|(_, _, k)| *k == key)
}

/// The values of a night's `data`, one slot per [`SLEEP_FIELDS`] row.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct SleepData(pub Slots<{ SLEEP_FIELDS.len() }>);

impl SleepData {
    /// A value as sent (integer or not).
    pub fn num(&self, f: SleepField) -> Option<Num> {
        self.0.get(f as usize)
    }

    /// A value as a number.
    pub fn get(&self, f: SleepField) -> Option<f64> {
        self.num(f).map(Num::f64)
    }

    /// Sets a value.
    pub fn set(&mut self, f: SleepField, value: Option<Num>) {
        self.0.set(f as usize, value);
    }

    /// Present values with their output names, in output order.
    pub fn named(&self) -> impl Iterator<Item = (&'static str, Num)> + '_ {
        SLEEP_FIELDS.iter().enumerate().filter_map(|(i, (_, name, _))| Some((*name, self.0.get(i)?)))
    }
}

/// One night (or nap) from `getsummary`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SleepNight {
    pub id: Option<i64>,
    pub timezone: Option<String>,
    /// 16 tracker, 32 sleep monitor.
    pub model: Option<i64>,
    pub model_id: Option<i64>,
    pub hash_deviceid: Option<String>,
    pub start: Option<Instant>,
    pub end: Option<Instant>,
    /// Withings' `date`: the local date of the wake-up.
    pub date: Option<CivilDate>,
    pub created: Option<Instant>,
    pub modified: Option<Instant>,
    pub completed: Option<bool>,
    pub data: SleepData,
    /// `core_body_temperature_status`: `usual`, `elevated` or `unknown`, as sent.
    pub temperature_status: Option<String>,
}

impl SleepNight {
    /// A `data` value.
    pub fn get(&self, f: SleepField) -> Option<f64> {
        self.data.get(f)
    }

    /// Seconds asleep: `total_sleep_time`, else `asleepduration` (external sources), else the sum
    /// of the stages.
    pub fn total_sleep_secs(&self) -> Option<f64> {
        self.get(SleepField::TotalSleepTime).or_else(|| self.get(SleepField::AsleepDuration)).or_else(|| {
            let stages =
                [SleepField::LightSleep, SleepField::DeepSleep, SleepField::RemSleep].map(|f| self.get(f));
            stages.iter().any(Option::is_some).then(|| stages.iter().flatten().sum())
        })
    }

    /// The sleep score, never invented when missing (upstream bug 10).
    pub fn sleep_score(&self) -> Option<f64> {
        self.get(SleepField::SleepScore)
    }

    /// Seconds between start and end.
    pub fn duration_secs(&self) -> Option<i64> {
        Some(self.end?.0 - self.start?.0).filter(|d| *d >= 0)
    }

    /// See the module docs for the rule; `None` without start and end.
    pub fn is_nap(&self, zone: &Zone) -> Option<bool> {
        let (start, end) = (self.start?, self.end?);
        Some(end.0 - start.0 < NAP_MAX_SECS || !overlaps_night(start, end, zone))
    }

    /// The civil day the night belongs to: Withings' `date`, else the local date of the end.
    pub fn day(&self, zone: &Zone) -> Option<CivilDate> {
        self.date.or_else(|| self.end.map(|t| zone.local_date(t)))
    }
}

/// Sleep segments further apart than this belong to different sleeps.
const SLEEP_GAP_SECS: i64 = 3600;

/// Where the last night begins among sleep-detail segments (`(start, end)`, any order): the
/// segments group into sleeps (a gap of over an hour starts another), and the night is the last
/// sleep of at least [`NAP_MAX_SECS`] (a nap after it does not hide it), else the last sleep.
pub fn last_night_start(spans: &[(Instant, Instant)]) -> Option<Instant> {
    let mut spans = spans.to_vec();
    crate::sort::by_key(&mut spans, |(s, _)| s.0);
    let mut sleeps: Vec<(Instant, Instant)> = Vec::new();
    for (s, e) in spans {
        match sleeps.last_mut() {
            Some(last) if s.0 - last.1.0 <= SLEEP_GAP_SECS => last.1 = Instant(last.1.0.max(e.0)),
            _ => sleeps.push((s, e)),
        }
    }
    let night = sleeps.iter().rev().find(|(s, e)| e.0 - s.0 >= NAP_MAX_SECS);
    night.or(sleeps.last()).map(|(s, _)| *s)
}

/// True when `[start, end)` overlaps some local 22:00–07:00 window in `zone`.
fn overlaps_night(start: Instant, end: Instant, zone: &Zone) -> bool {
    let (ls, le) = (zone.local_secs(start), zone.local_secs(end));
    let first = ls.div_euclid(DAY_SECS);
    let last = le.div_euclid(DAY_SECS) + 1;
    (first..=last).any(|day| {
        let midnight = day * DAY_SECS;
        ls < midnight + 7 * 3600 && le > midnight - 2 * 3600
    })
}

/// One state segment from sleep `get`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SleepSegment {
    pub start: Option<Instant>,
    pub end: Option<Instant>,
    pub state: Option<i64>,
    /// A device name such as "Sleep Analyzer" (a string here, unlike in the summary).
    pub model: Option<String>,
    pub model_id: Option<i64>,
    pub hash_deviceid: Option<String>,
    /// Every map-valued field (`hr`, `rr`, `snoring`, `sdnn_1`, `rmssd`, …): time → value, in
    /// time order.
    pub series: BTreeMap<String, Vec<(Instant, f64)>>,
}

impl SleepSegment {
    /// The state name, `None` for codes not in the table.
    pub fn state_name(&self) -> Option<&'static str> {
        self.state.and_then(state_name)
    }

    /// Seconds between start and end.
    pub fn duration_secs(&self) -> Option<i64> {
        Some(self.end?.0 - self.start?.0).filter(|d| *d >= 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paris() -> Zone {
        Zone::from_posix("CET-1CEST,M3.5.0,M10.5.0/3").unwrap().renamed("Europe/Paris")
    }

    #[test]
    fn the_field_table_is_in_enum_order() {
        for (i, (f, _, _)) in SLEEP_FIELDS.iter().enumerate() {
            assert_eq!(*f as usize, i, "{f:?}");
        }
    }

    #[test]
    fn nap_rule() {
        let z = paris();
        let night = |start: &str, end: &str| {
            let t = |s: &str| match crate::domain::time::parse_date_arg(s).unwrap() {
                crate::domain::time::DateArg::At(t) => t,
                crate::domain::time::DateArg::Day(_) => unreachable!(),
            };
            SleepNight { start: Some(t(start)), end: Some(t(end)), ..SleepNight::default() }
        };
        let cases = [
            ("2026-01-10T23:00+01:00", "2026-01-11T07:00+01:00", false),
            ("2026-01-11T03:00+01:00", "2026-01-11T06:30+01:00", false),
            ("2026-01-11T14:00+01:00", "2026-01-11T15:30+01:00", true),
            ("2026-01-11T22:30+01:00", "2026-01-12T00:30+01:00", true), // under 3 h
            ("2026-01-11T08:00+01:00", "2026-01-11T14:00+01:00", true), // daytime
            ("2026-01-11T06:00+01:00", "2026-01-11T11:00+01:00", false), // ends the night
            ("2026-01-11T21:00+01:00", "2026-01-12T00:00+01:00", false),
        ];
        for (s, e, nap) in cases {
            assert_eq!(night(s, e).is_nap(&z), Some(nap), "{s}..{e}");
        }
        assert_eq!(SleepNight::default().is_nap(&z), None);
    }

    #[test]
    fn the_last_night_starts_at_its_first_segment() {
        let h = |x: f64| Instant((x * 3600.0) as i64);
        // Hours from some midnight: the night before (22:30–06:30), last night from 23:02 with a
        // 20-minute wake inside it, then an afternoon nap.
        let before = [(h(-1.5), h(2.0)), (h(2.0), h(6.5))];
        let night = [(h(23.0 + 2.0 / 60.0), h(26.0)), (h(26.0 + 1.0 / 3.0), h(31.0))];
        let nap = [(h(38.0), h(39.0))];
        let all: Vec<_> = [&nap[..], &night, &before].concat();
        assert_eq!(last_night_start(&all), Some(h(23.0 + 2.0 / 60.0)));
        assert_eq!(last_night_start(&[&before[..], &night].concat()), Some(h(23.0 + 2.0 / 60.0)));
        assert_eq!(last_night_start(&nap), Some(h(38.0)), "only a nap: the nap");
        assert_eq!(last_night_start(&[]), None);
    }

    #[test]
    fn time_asleep_falls_back_to_external_sources_then_stages() {
        let night = |pairs: &[(&str, i64)]| {
            let mut n = SleepNight::default();
            for (k, v) in pairs {
                if let Some(i) = sleep_field(k) {
                    n.data.0.set(i, Some(Num::Int(*v)));
                }
            }
            n
        };
        assert_eq!(SleepNight::default().total_sleep_secs(), None);
        assert_eq!(SleepNight::default().sleep_score(), None);
        assert_eq!(night(&[("asleepduration", 21600)]).total_sleep_secs(), Some(21600.0));
        let stages = night(&[("lightsleepduration", 100), ("remsleepduration", 50)]);
        assert_eq!(stages.total_sleep_secs(), Some(150.0));
        let both = night(&[("total_sleep_time", 7), ("asleepduration", 9), ("not_ours", 1)]);
        assert_eq!(both.total_sleep_secs(), Some(7.0));
        assert_eq!(both.data.named().count(), 2);
        assert_eq!(state_name(15), Some("out_of_bed"));
    }
}
