//! The synthetic person behind the demo account, generated once per `DemoUpstream`.
//!
//! Every random choice comes from a splitmix64 stream seeded by the *absolute* calendar date and a
//! per-kind stream number, so a given day keeps its noise, its skipped weigh-ins and its ids while
//! the clock moves; only the slow trends and the travel week are placed relative to today. No clock
//! and no randomness source are read: the same `now` and zone always give the same account.
//!
//! Records are kept as plain values; `wire.rs` turns them into Withings JSON. A record exists only
//! once it has been uploaded (`created` ≤ now), so today's partial data appears as the day goes on.

use crate::domain::time::{CivilDate, DAY_SECS, Instant, Zone};

/// Days of history, today included: enough for trends and long windows.
pub const DAYS: i64 = 400;

/// Days before today of the travel week (inclusive on both ends).
pub const TRIP_BACK: (i64, i64) = (35, 29);
/// Days before today of the one-off records.
pub const GUEST_BACK: i64 = 20;
pub const MANUAL_BACK: i64 = 45;
pub const LATE_BACK: i64 = 12;
pub const ECG_WATCH_BACK: i64 = 9;
pub const ECG_CORE_BACK: i64 = 23;
/// The BPM Connect has not been used (so has not synced) for this long.
pub const BPM_CONNECT_IDLE_SECS: i64 = 3 * 86_400;
/// A nap is always generated this many days ago, so the account never lacks one.
pub const NAP_BACK: i64 = 3;

/// One of the person's devices.
#[derive(Debug)]
pub struct Device {
    pub id: &'static str,
    pub model_id: i64,
    pub model: &'static str,
    pub kind: &'static str,
    /// The device type code used by sleep and workouts (1 scale, 4 BPM, 16 tracker, 32 sleep monitor).
    pub type_code: i64,
}

pub const SCALE: Device = Device {
    id: "5ca1e00000000000000000000000000000000001",
    model_id: 6,
    model: "Body Cardio",
    kind: "Scale",
    type_code: 1,
};
pub const BPM_CONNECT: Device = Device {
    id: "b9c0000000000000000000000000000000000002",
    model_id: 45,
    model: "BPM Connect",
    kind: "Blood Pressure Monitor",
    type_code: 4,
};
pub const BPM_CORE: Device = Device {
    id: "b9c0000000000000000000000000000000000003",
    model_id: 44,
    model: "BPM Core",
    kind: "Blood Pressure Monitor",
    type_code: 4,
};
pub const WATCH: Device = Device {
    id: "5ca77000000000000000000000000000000000a4",
    model_id: 94,
    model: "ScanWatch 2",
    kind: "Activity Tracker",
    type_code: 16,
};
pub const SLEEP_MAT: Device = Device {
    id: "5ee90000000000000000000000000000000000e5",
    model_id: 63,
    model: "Sleep Analyzer",
    kind: "Sleep Monitor",
    type_code: 32,
};
pub const DEVICES: [&Device; 5] = [&SCALE, &BPM_CONNECT, &BPM_CORE, &WATCH, &SLEEP_MAT];

/// One person of the demo household: the habits and devices that set them apart.
#[derive(Debug)]
pub struct Person {
    /// Mixed into every random stream; 0 for the first person, whose days predate the second.
    pub stream: u64,
    pub devices: &'static [&'static Device],
    /// Weight (kg) and fat ratio (%) before the last 12 weeks, and kg lost per week since.
    pub weight: f64,
    pub fat_pct: f64,
    pub loss_per_week: f64,
    /// Resting pulse; nights run 8 bpm below it.
    pub pulse: i64,
    /// Usual weigh-in and bedtime (hh, mm), and minutes of sleep a night.
    pub weigh_at: (i64, i64),
    pub bed_at: (i64, i64),
    pub sleep_min: i64,
    /// Steps on a weekday and on a weekend day, before workouts.
    pub steps: (i64, i64),
    /// Workouts by ISO weekday: (weekday, category, hh, mm, chance, minutes from, to).
    pub plan: &'static [(u32, i64, i64, i64, f64, i64, i64)],
    /// Takes the travel week, naps on weekends, takes blood pressure (BPM Connect, BPM Core).
    pub travels: bool,
    pub naps: bool,
    pub bpm: bool,
    /// The getgoals body: steps a day, seconds of sleep a night, weight.
    pub goals: &'static str,
}

impl Person {
    pub fn has(&self, d: &Device) -> bool {
        self.devices.iter().any(|x| x.id == d.id)
    }
}

/// The first person: the scale, two blood pressure monitors, the watch and the sleep mat;
/// losing weight slowly, a runner and cyclist who travels and naps.
pub const ALEX: Person = Person {
    stream: 0,
    devices: &DEVICES,
    weight: 79.4,
    fat_pct: 23.4,
    loss_per_week: 0.25,
    pulse: 64,
    weigh_at: (7, 10),
    bed_at: (23, 5),
    sleep_min: 426,
    steps: (6900, 8200),
    plan: &[
        (1, 16, 19, 0, 0.5, 40, 55),
        (2, 2, 18, 30, 0.8, 32, 50),
        (4, 2, 18, 30, 0.8, 32, 50),
        (6, 6, 9, 30, 0.7, 60, 120),
        (7, 7, 10, 0, 0.4, 35, 45),
    ],
    travels: true,
    naps: true,
    bpm: true,
    goals: r#"{"goals":{"steps":9000,"sleep":27000,"weight":{"value":75000,"unit":-3}}}"#,
};

/// The second person: the same scale and a watch (which also tracks sleep), nothing else; an
/// early riser who runs before work and does yoga, weight creeping up, never away.
pub const SAM: Person = Person {
    stream: 0x5A,
    devices: &[&SCALE, &WATCH],
    weight: 61.8,
    fat_pct: 26.5,
    loss_per_week: -0.04,
    pulse: 58,
    weigh_at: (6, 20),
    bed_at: (22, 15),
    sleep_min: 465,
    steps: (9800, 12_500),
    plan: &[
        (1, 2, 6, 35, 0.85, 30, 45),
        (3, 28, 19, 30, 0.6, 45, 60),
        (5, 2, 6, 35, 0.85, 30, 45),
        (6, 2, 8, 0, 0.75, 70, 110),
    ],
    travels: false,
    naps: false,
    bpm: false,
    goals: r#"{"goals":{"steps":12000,"sleep":28800,"weight":{"value":60000,"unit":-3}}}"#,
};

/// One measure inside a group: the real value is `value × 10^unit`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Measure {
    pub value: i64,
    pub kind: i64,
    pub unit: i64,
}

/// A getmeas measure group.
#[derive(Debug)]
pub struct Group {
    pub grpid: i64,
    pub attrib: i64,
    pub date: i64,
    pub created: i64,
    pub modified: i64,
    pub device: Option<&'static Device>,
    pub tz: String,
    pub measures: Vec<Measure>,
}

/// One getactivity row (one day, one source).
#[derive(Debug)]
pub struct Activity {
    pub date: CivilDate,
    pub tz: String,
    /// The local day's first and last instants (`[start, end)`), where intraday samples fall.
    pub bounds: (i64, i64),
    pub modified: i64,
    pub steps: i64,
    pub distance: f64,
    pub elevation: i64,
    pub soft: i64,
    pub moderate: i64,
    pub intense: i64,
    pub calories: f64,
    pub totalcalories: f64,
    pub hr_average: i64,
    pub hr_min: i64,
    pub hr_max: i64,
    pub hr_zones: [i64; 4],
}

/// One getworkouts row.
#[derive(Debug)]
pub struct Workout {
    pub id: i64,
    pub category: i64,
    pub attrib: i64,
    pub tz: String,
    pub start: i64,
    pub end: i64,
    pub date: CivilDate,
    pub modified: i64,
    /// False for a swim logged without the watch's device id (as real swims often are).
    pub with_device: bool,
    pub calories: i64,
    pub hr: Option<(i64, i64, i64)>,
    pub hr_zones: [i64; 4],
    /// Steps, metres, floors; `None` for sports without them (swimming, weights).
    pub moves: Option<(i64, i64, i64)>,
    /// Pool laps, pool length, strokes: swims only.
    pub pool: Option<(i64, i64, i64)>,
}

/// One sleep state segment (0 awake, 1 light, 2 deep, 3 REM).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Segment {
    pub start: i64,
    pub end: i64,
    pub state: i64,
}

/// One getsummary row (a night or a nap) with the segments `sleep get` returns for it.
#[derive(Debug)]
pub struct Sleep {
    pub id: i64,
    pub tz: String,
    pub device: &'static Device,
    /// Naps are shaped like nights; the flag only lets tests tell them apart.
    #[cfg_attr(not(test), allow(dead_code))]
    pub nap: bool,
    pub date: CivilDate,
    pub created: i64,
    pub segments: Vec<Segment>,
    pub hr: (i64, i64, i64),
    pub rr: (i64, i64, i64),
    /// Snoring seconds, snoring episodes, breathing disturbances, AHI: only the Sleep Analyzer has them.
    pub breathing: Option<(i64, i64, i64, i64)>,
    pub out_of_bed: i64,
}

impl Sleep {
    pub fn start(&self) -> i64 {
        self.segments.first().map_or(0, |s| s.start)
    }
    pub fn end(&self) -> i64 {
        self.segments.last().map_or(0, |s| s.end)
    }
}

/// One heart list row: an ECG, a BPM Core blood pressure reading, or both.
#[derive(Debug)]
pub struct Heart {
    pub device: &'static Device,
    pub timestamp: i64,
    pub modified: i64,
    /// `(signalid, afib)`.
    pub ecg: Option<(i64, i64)>,
    /// `(diastole, systole)`.
    pub bp: Option<(i64, i64)>,
    pub heart_rate: i64,
}

/// The account's most recent `days` days (the whole of it at `DAYS`), every list sorted by time
/// ascending.
#[derive(Debug)]
pub struct Account {
    pub person: &'static Person,
    pub now: i64,
    pub today: CivilDate,
    pub home_tz: String,
    /// The IANA name of the travel week's zone.
    #[cfg_attr(not(test), allow(dead_code))]
    pub trip_tz: &'static str,
    pub groups: Vec<Group>,
    pub activities: Vec<Activity>,
    pub workouts: Vec<Workout>,
    pub sleeps: Vec<Sleep>,
    pub hearts: Vec<Heart>,
    /// How many of the most recent days are generated.
    pub days: i64,
}

/// Generates the most recent `days` days (at most `DAYS`) of `person`'s account as seen at `now`
/// by someone living in `zone`. A day's records depend on that day alone, so these are the
/// records the whole account has for those days, in the same order: an answer about last week
/// need not build 400 days (that was a third of a weekly brief's instructions).
pub fn generate(person: &'static Person, now: i64, zone: &Zone, days: i64) -> Account {
    let days = days.clamp(0, DAYS);
    let today = zone.local_date(Instant(now));
    let (trip_tz, trip_zone) = trip_zone(zone, now);
    let home_tz = zone.name().to_string();
    let mut acc = Account {
        person,
        now,
        today,
        home_tz: home_tz.clone(),
        trip_tz,
        groups: Vec::new(),
        activities: Vec::new(),
        workouts: Vec::new(),
        sleeps: Vec::new(),
        hearts: Vec::new(),
        days,
    };
    for back in (0..days).rev() {
        let trip = person.travels && (TRIP_BACK.1..=TRIP_BACK.0).contains(&back);
        let day = Day {
            p: person,
            date: today.add_days(-back),
            back,
            zone: if trip { &trip_zone } else { zone },
            tz: if trip { trip_tz.to_string() } else { home_tz.clone() },
            trip_night: if trip { TRIP_BACK.0 - back } else { -1 },
        };
        weigh_in(&mut acc, &day);
        blood_pressure(&mut acc, &day);
        night(&mut acc, &day);
        nap(&mut acc, &day);
        let done = workouts(&mut acc, &day);
        activity(&mut acc, &day, done, now);
    }
    // Nothing exists before it is uploaded.
    acc.groups.retain(|g| g.created <= now);
    crate::sort::by_key(&mut acc.groups, |g| (g.date, g.grpid));
    acc.workouts.retain(|w| w.modified <= now);
    acc.sleeps.retain(|s| s.created <= now);
    acc.hearts.retain(|h| h.modified <= now);
    acc
}

/// The per-day context: which zone the person is in and how long ago the day was.
struct Day<'a> {
    p: &'static Person,
    date: CivilDate,
    back: i64,
    zone: &'a Zone,
    tz: String,
    /// 0 for the first night of the trip, 1 for the second…; -1 at home.
    trip_night: i64,
}

impl Day<'_> {
    fn trip(&self) -> bool {
        self.trip_night >= 0
    }
    /// The instant of `hh:mm` plus `extra_min` minutes, local time, on this day.
    fn at(&self, hh: i64, mm: i64, extra_min: i64) -> i64 {
        at_local(self.zone, self.date, hh * 3600 + (mm + extra_min) * 60)
    }
    fn rng(&self, stream: u64) -> Rng {
        Rng::new(self.date, stream ^ (self.p.stream << 8))
    }
    fn weekend(&self) -> bool {
        self.date.iso_weekday() >= 6
    }
}

/// The trip goes to New York, unless home is too close to (or too far from) it; then to Paris.
/// Offsets stay under 16 h apart either way, so nights never overlap across the jump.
fn trip_zone(home: &Zone, now: i64) -> (&'static str, Zone) {
    const NEW_YORK: &str = "EST5EDT,M3.2.0,M11.1.0";
    const PARIS: &str = "CET-1CEST,M3.5.0,M10.5.0/3";
    let ny = Zone::from_posix(NEW_YORK).unwrap_or_else(|| Zone::fixed(-5 * 3600));
    let gap = (home.offset_at(Instant(now)) - ny.offset_at(Instant(now))).abs();
    match home.name() != "America/New_York" && (3 * 3600..=12 * 3600).contains(&gap) {
        true => ("America/New_York", ny),
        false => ("Europe/Paris", Zone::from_posix(PARIS).unwrap_or_else(|| Zone::fixed(3600))),
    }
}

/// The instant of the local wall-clock time `secs` after midnight of `date` in `zone`.
fn at_local(zone: &Zone, date: CivilDate, secs: i64) -> i64 {
    let wall = date.days() * DAY_SECS + secs;
    let first = wall - i64::from(zone.offset_at(Instant(wall)));
    wall - i64::from(zone.offset_at(Instant(first)))
}

// ---------------------------------------------------------------------------------------------
// Body: weigh-ins, blood pressure, ECG
// ---------------------------------------------------------------------------------------------

/// The person's weight trend on a day: a gentle wobble around their weight until 12 weeks ago, then
/// a steady loss (0.25 kg/week for the first person); a little higher during the restaurant-heavy
/// trip.
fn weight_trend(day: &Day) -> f64 {
    const LOSS_DAYS: i64 = 84;
    let wobble = match day.back > LOSS_DAYS {
        true => 0.5 * triangle((day.back - LOSS_DAYS) as f64 / 150.0),
        false => 0.0,
    };
    let loss = (LOSS_DAYS - day.back).max(0) as f64 * day.p.loss_per_week / 7.0;
    let trip = if day.trip() { 0.3 } else { 0.0 };
    day.p.weight + wobble - loss + trip
}

/// Progress of the weight loss, 0 before it started, 1 today.
fn loss_progress(back: i64) -> f64 {
    (84 - back).clamp(0, 84) as f64 / 84.0
}

/// A triangle wave with period 1: 0 at 0, 1 at 0.25, 0 at 0.5, -1 at 0.75.
fn triangle(x: f64) -> f64 {
    let f = x - x.floor();
    match f {
        f if f < 0.25 => 4.0 * f,
        f if f < 0.75 => 2.0 - 4.0 * f,
        f => 4.0 * f - 4.0,
    }
}

fn m(kind: i64, value: f64, unit: i64) -> Measure {
    Measure { value: (value * 10f64.powi(-unit as i32)).round() as i64, kind, unit }
}

/// Body Cardio measures for a weight and fat ratio, as the scale sends them.
fn composition(weight: f64, fat_pct: f64, pulse: i64, pwv: f64) -> Vec<Measure> {
    let fat = weight * fat_pct / 100.0;
    let ffm = weight - fat;
    let bone = ffm * 0.049;
    vec![
        m(1, weight, -3),
        m(6, fat_pct, -3),
        m(5, ffm, -2),
        m(8, fat, -2),
        m(76, ffm - bone, -2),
        m(77, ffm * 0.70, -2),
        m(88, bone, -2),
        m(91, pwv, -3),
        m(11, pulse as f64, 0),
    ]
}

fn weigh_in(acc: &mut Account, day: &Day) {
    let mut r = day.rng(1);
    let skipped = r.chance(0.15);
    let forced = matches!(day.back, 0 | 1 | LATE_BACK | GUEST_BACK | MANUAL_BACK);
    let weekend_lie_in = if day.weekend() { 45 } else { 0 };
    let date = day.at(day.p.weigh_at.0, day.p.weigh_at.1, r.range(-12, 20) + weekend_lie_in);
    let weight = weight_trend(day) + 0.4 * r.noise();
    let fat_pct =
        day.p.fat_pct - 1.2 * loss_progress(day.back) * day.p.loss_per_week / 0.25 + 0.3 * r.noise();
    let pulse = day.p.pulse + r.range(-4, 4);
    let pwv = 7.2 + 0.15 * r.noise();
    let base_id = 1_000_000_000 + day.date.days() * 10;
    if !skipped || forced {
        // The late upload: the scale was offline and synced three days after the weigh-in.
        let created = match day.back {
            LATE_BACK => date + 3 * DAY_SECS + 125,
            _ => date + r.range(40, 90),
        };
        acc.groups.push(Group {
            grpid: base_id,
            attrib: 0,
            date,
            created,
            modified: created,
            device: Some(&SCALE),
            tz: day.tz.clone(),
            measures: composition(weight, fat_pct, pulse, pwv),
        });
    }
    // (The guest's weigh-in went to the first person, whose scale it is.)
    if day.back == GUEST_BACK && day.p.stream == 0 {
        // A visiting friend stepped on the scale: ambiguous attribution, a very different body.
        let date = day.at(19, 40, 0);
        acc.groups.push(Group {
            grpid: base_id + 4,
            attrib: 1,
            date,
            created: date + 55,
            modified: date + 55,
            device: Some(&SCALE),
            tz: day.tz.clone(),
            measures: composition(54.2, 27.1, 71, 6.4),
        });
    }
    if day.back == MANUAL_BACK {
        // Typed into the app after weighing at the gym: weight only, no device.
        let date = day.at(20, 55, 0);
        acc.groups.push(Group {
            grpid: base_id + 5,
            attrib: 2,
            date,
            created: date + 12,
            modified: date + 12,
            device: None,
            tz: day.tz.clone(),
            measures: vec![m(1, (weight * 10.0).round() / 10.0 + 0.4, -2)],
        });
    }
}

fn blood_pressure(acc: &mut Account, day: &Day) {
    if day.trip() || !day.p.bpm {
        return;
    }
    let mut r = day.rng(2);
    let base_id = 1_000_000_000 + day.date.days() * 10;
    let improve = 3.0 * loss_progress(day.back);
    if r.chance(0.45) {
        bpm_connect(acc, day, &mut r, base_id, improve);
    }
    if day.date.iso_weekday() == 7 || day.back == ECG_CORE_BACK {
        bpm_core(acc, day, &mut r, base_id, improve);
    }
    if day.back == ECG_WATCH_BACK {
        watch_ecg(acc, day, base_id);
    }
}

/// An evening reading on the BPM Connect, about every other day.
fn bpm_connect(acc: &mut Account, day: &Day, r: &mut Rng, base_id: i64, improve: f64) {
    let date = day.at(21, 30, r.range(-20, 25));
    let sys = (123.0 - improve + 6.0 * r.noise()).round();
    let dia = (79.0 - improve / 2.0 + 4.0 * r.noise()).round();
    let pulse = 67 + r.range(-5, 5);
    let created = date + r.range(20, 70);
    // The BPM Connect has sat unused in a drawer for the last three days: no reading, no sync.
    // (Drawn all the same, so that the random stream of the other readings stays as it was.)
    let idle = date >= acc.now - BPM_CONNECT_IDLE_SECS;
    acc.groups.extend((!idle).then(|| Group {
        grpid: base_id + 2,
        attrib: 0,
        date,
        created,
        modified: created,
        device: Some(&BPM_CONNECT),
        tz: day.tz.clone(),
        measures: vec![m(9, dia, 0), m(10, sys, 0), m(11, pulse as f64, 0)],
    }));
}

/// The Sunday-morning BPM Core check; once, its ECG came back inconclusive.
fn bpm_core(acc: &mut Account, day: &Day, r: &mut Rng, base_id: i64, improve: f64) {
    let core_ecg = day.back == ECG_CORE_BACK;
    let date = day.at(8, 40, r.range(-10, 10));
    let sys = (121.0 - improve + 5.0 * r.noise()).round();
    let dia = (78.0 - improve / 2.0 + 3.0 * r.noise()).round();
    let pulse = 66 + r.range(-4, 4);
    let signalid = 55_000_000 + day.date.days();
    let mut measures = vec![m(9, dia, 0), m(10, sys, 0), m(11, pulse as f64, 0)];
    if core_ecg {
        measures.push(m(130, 2.0, 0));
    }
    let created = date + r.range(30, 90);
    acc.groups.push(Group {
        grpid: base_id + 6,
        attrib: 0,
        date,
        created,
        modified: created,
        device: Some(&BPM_CORE),
        tz: day.tz.clone(),
        measures,
    });
    acc.hearts.push(Heart {
        device: &BPM_CORE,
        timestamp: date,
        modified: created,
        ecg: if core_ecg { Some((signalid, 2)) } else { None },
        bp: Some((dia as i64, sys as i64)),
        heart_rate: pulse,
    });
}

/// A normal ScanWatch ECG taken after lunch, once.
fn watch_ecg(acc: &mut Account, day: &Day, base_id: i64) {
    let date = day.at(14, 5, 0);
    let created = date + 95;
    acc.groups.push(Group {
        grpid: base_id + 3,
        attrib: 0,
        date,
        created,
        modified: created,
        device: Some(&WATCH),
        tz: day.tz.clone(),
        measures: vec![
            m(130, 0.0, 0),
            m(135, 0.096, -3),
            m(136, 0.158, -3),
            m(137, 0.392, -3),
            m(138, 0.41, -3),
        ],
    });
    acc.hearts.push(Heart {
        device: &WATCH,
        timestamp: date,
        modified: created,
        ecg: Some((55_000_000 + day.date.days(), 0)),
        bp: None,
        heart_rate: 68,
    });
}

// ---------------------------------------------------------------------------------------------
// Sleep
// ---------------------------------------------------------------------------------------------

/// The night that ends on this day (its summary's `date` is the wake-up day).
fn night(acc: &mut Account, day: &Day) {
    let mut r = day.rng(3);
    if r.chance(0.05) && day.back > 2 && !naps(day) {
        return; // the mat missed the night (never on a nap day: a nap must not stand in for a night)
    }
    let eve = Day {
        p: day.p,
        date: day.date.add_days(-1),
        back: day.back + 1,
        zone: day.zone,
        tz: day.tz.clone(),
        trip_night: -1,
    };
    let late = if eve.weekend() || eve.date.iso_weekday() == 5 { 40 } else { 0 };
    let bed = eve.at(day.p.bed_at.0, day.p.bed_at.1, r.range(-25, 30) + late);
    let jet_lag = matches!(day.trip_night, 0 | 1);
    let target_min =
        day.p.sleep_min + r.range(-40, 40) + if jet_lag { -70 } else { 0 } + if late > 0 { 25 } else { 0 };
    let mut b = Builder::new(bed);
    b.push(0, r.range(4, 22));
    let mut slept = 0;
    let mut cycle = 0;
    let mut wakes = 0;
    while slept < target_min {
        let chunks = [
            (1, r.range(20, 40)),
            (2, (r.range(25, 45) - 8 * cycle).max(5)),
            (1, r.range(5, 15)),
            (3, (r.range(8, 15) + 6 * cycle).min(40)),
        ];
        for (state, mins) in chunks {
            let mins = mins.min(target_min - slept);
            if mins > 0 {
                b.push(state, mins);
                slept += mins;
            }
        }
        cycle += 1;
        let wake_p = if jet_lag { 0.6 } else { 0.3 };
        if slept < target_min && wakes < 3 && r.chance(wake_p) {
            b.push(0, r.range(3, 12));
            wakes += 1;
        }
    }
    b.push(0, r.range(3, 15));
    let home = !day.trip() && day.p.has(&SLEEP_MAT);
    let hr_avg = day.p.pulse - 8 + r.range(-3, 3) + if jet_lag { 5 } else { 0 };
    let rr_avg = 14 + r.range(-1, 1);
    let segments = b.segments;
    let end = segments.last().map_or(bed, |s| s.end);
    let snoring = r.range(300, 1500);
    acc.sleeps.push(Sleep {
        id: 2_000_000_000 + day.date.days() * 10,
        tz: day.tz.clone(),
        // The Sleep Analyzer stays under the mattress at home; on the trip the watch tracks sleep.
        device: if home { &SLEEP_MAT } else { &WATCH },
        nap: false,
        date: day.date,
        created: end + r.range(600, 1200),
        segments,
        hr: (hr_avg, hr_avg - r.range(6, 9), hr_avg + r.range(14, 24)),
        rr: (rr_avg, rr_avg - 3, rr_avg + 4),
        breathing: match home {
            true => Some((snoring, snoring / 120, r.range(5, 25), r.range(1, 6))),
            false => None,
        },
        out_of_bed: i64::from(r.chance(0.3)),
    });
}

/// A short afternoon nap on some weekend days in the last four months, tracked by the watch.
fn nap(acc: &mut Account, day: &Day) {
    if !naps(day) {
        return;
    }
    let mut r = day.rng(7);
    let mut b = Builder::new(day.at(14, 20, r.range(0, 30)));
    b.push(0, r.range(2, 6));
    b.push(1, r.range(12, 22));
    b.push(2, r.range(4, 9));
    b.push(1, r.range(3, 8));
    b.push(0, r.range(1, 4));
    let end = b.at;
    let hr_avg = 60 + r.range(-2, 3);
    acc.sleeps.push(Sleep {
        id: 2_000_000_000 + day.date.days() * 10 + 1,
        tz: day.tz.clone(),
        device: &WATCH,
        nap: true,
        date: day.date,
        created: end + r.range(300, 900),
        segments: b.segments,
        hr: (hr_avg, hr_avg - 5, hr_avg + 12),
        rr: (14, 12, 17),
        breathing: None,
        out_of_bed: 0,
    });
}

fn naps(day: &Day) -> bool {
    let mut r = day.rng(4);
    day.p.naps && !day.trip() && (day.back == NAP_BACK || (day.back < 120 && day.weekend() && r.chance(0.25)))
}

/// Appends adjacent sleep segments, whole minutes each.
struct Builder {
    at: i64,
    segments: Vec<Segment>,
}

impl Builder {
    fn new(at: i64) -> Builder {
        Builder { at, segments: Vec::new() }
    }
    fn push(&mut self, state: i64, mins: i64) {
        let end = self.at + mins * 60;
        self.segments.push(Segment { start: self.at, end, state });
        self.at = end;
    }
}

// ---------------------------------------------------------------------------------------------
// Activity and workouts
// ---------------------------------------------------------------------------------------------

/// What the day's workout adds to the daily activity row.
#[derive(Default)]
struct Done {
    intense: i64,
    moderate: i64,
    steps: i64,
    calories: f64,
}

/// The day's workout, if any.
fn workouts(acc: &mut Account, day: &Day) -> Done {
    let mut r = day.rng(5);
    let wd = day.date.iso_weekday();
    // (category, hh, mm, minutes)
    let usual = day.p.plan.iter().find(|x| x.0 == wd);
    let plan = match (day.trip(), usual) {
        (true, _) => Some((1, 16, 0, r.range(50, 110))),
        (false, Some(&(_, cat, hh, mm, p, lo, hi))) if r.chance(p) => Some((cat, hh, mm, r.range(lo, hi))),
        _ => None,
    };
    let Some((category, hh, mm, mins)) = plan else { return Done::default() };
    let start = day.at(hh, mm, r.range(-10, 20));
    let secs = mins * 60;
    let end = start + secs;
    // (kcal per minute, average HR, distance m/s, steps per second, floors)
    let (kcal, hr, speed, cadence, floors) = match category {
        2 => (11.0, 148, 2.9, 2.7, r.range(10, 40)),
        6 => (8.5, 132, 6.5, 0.0, r.range(80, 300)),
        1 => (4.2, 98, 1.3, 1.8, r.range(3, 15)),
        _ => (7.0, 118, 0.0, 0.0, 0),
    };
    let calories = (mins as f64 * kcal * (1.0 + 0.08 * r.noise())).round() as i64;
    let hr_avg = hr + r.range(-6, 6);
    let hr_zones = match category {
        1 => [secs * 7 / 10, secs * 3 / 10, 0, 0],
        2 => [60, secs * 15 / 100, secs * 6 / 10, secs * 25 / 100 - 60],
        6 => [secs / 10, secs * 4 / 10, secs * 4 / 10, secs / 10],
        _ => [secs * 3 / 10, secs * 5 / 10, secs * 2 / 10, 0],
    };
    let steps = (secs as f64 * cadence) as i64;
    let moves = match category {
        1 | 2 | 6 => Some((steps, (secs as f64 * speed) as i64, floors)),
        _ => None,
    };
    let swim = category == 7;
    acc.workouts.push(Workout {
        id: 3_000_000_000 + day.date.days() * 10,
        category,
        attrib: if swim { 7 } else { 0 },
        tz: day.tz.clone(),
        start,
        end,
        date: day.date,
        modified: end + r.range(120, 900),
        with_device: !swim,
        calories,
        hr: if swim { None } else { Some((hr_avg, hr_avg - r.range(40, 55), hr_avg + r.range(18, 28))) },
        hr_zones: if swim { [0; 4] } else { hr_zones },
        moves,
        pool: if swim { Some((mins, 25, mins * 18)) } else { None },
    });
    let intense = if matches!(category, 2 | 6) { secs } else { 0 };
    Done { intense, moderate: secs - intense, steps, calories: calories as f64 }
}

/// The watch's daily row; today's row covers the part of the day already lived.
fn activity(acc: &mut Account, day: &Day, done: Done, now: i64) {
    let mut r = day.rng(6);
    let (day_start, day_end) = day.zone.day_bounds(day.date);
    if day_start.0 > now {
        return;
    }
    let lived = ((now - day_start.0) as f64 / (day_end.0 - day_start.0) as f64).clamp(0.0, 1.0);
    let (w_intense, w_moderate, w_steps, w_kcal) = (done.intense, done.moderate, done.steps, done.calories);
    let base = if day.weekend() { day.p.steps.1 } else { day.p.steps.0 } + if day.trip() { 5000 } else { 0 };
    let steps = (base + r.range(-2500, 3500)).max(900) + w_steps;
    let moderate = r.range(900, 2600) + w_moderate;
    let intense = r.range(0, 400) + w_intense;
    let soft = r.range(3000, 7200);
    let calories =
        steps as f64 * 0.041 + moderate as f64 / 60.0 * 3.0 + intense as f64 / 60.0 * 6.0 + w_kcal * 0.3;
    let hr_max = if w_intense > 0 { 165 + r.range(0, 15) } else { 115 + r.range(0, 25) };
    let z3 = if w_intense > 0 { w_intense / 4 } else { 0 };
    let z2 = intense + w_intense / 2;
    let z1 = moderate + r.range(1200, 3000);
    let z0 = (74_000 + r.range(-3000, 3000) - z1 - z2 - z3).max(0);
    let scale = |v: i64| (v as f64 * lived).round() as i64;
    let steps = scale(steps);
    acc.activities.push(Activity {
        date: day.date,
        tz: day.tz.clone(),
        bounds: (day_start.0, day_end.0),
        modified: (day_end.0 + 1800).min(now),
        steps,
        distance: (steps as f64 * 0.74 * 10.0).round() / 10.0,
        elevation: scale(r.range(2, 18)),
        soft: scale(soft),
        moderate: scale(moderate),
        intense: scale(intense),
        calories: (calories * lived * 10.0).round() / 10.0,
        totalcalories: ((1710.0 + calories) * lived * 10.0).round() / 10.0,
        hr_average: day.p.pulse + 4 + r.range(-4, 4),
        hr_min: day.p.pulse - 15 + r.range(-3, 3),
        hr_max,
        hr_zones: [scale(z0), scale(z1), scale(z2), scale(z3)],
    });
}

// ---------------------------------------------------------------------------------------------
// The seeded generator
// ---------------------------------------------------------------------------------------------

const SEED: u64 = 0x5EED_0000_D3E0_0001;

/// splitmix64: tiny, fast and good enough for synthetic noise.
pub struct Rng(u64);

impl Rng {
    /// The stream for one kind of record on one calendar date.
    pub fn new(date: CivilDate, stream: u64) -> Rng {
        Rng::from_seed((date.days() as u64).wrapping_mul(0x2545_F491_4F6C_DD1D) ^ stream.rotate_left(40))
    }
    pub fn from_seed(seed: u64) -> Rng {
        Rng(SEED ^ seed)
    }
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    /// Uniform integer in `lo..=hi` (`lo` when the range is empty).
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        match hi > lo {
            true => lo + (self.next() % (hi - lo + 1) as u64) as i64,
            false => lo,
        }
    }
    /// Bell-shaped noise in [-1, 1] (a sum of three uniforms).
    pub fn noise(&mut self) -> f64 {
        (self.unit() + self.unit() + self.unit()) / 1.5 - 1.0
    }
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::time::days_from_civil;

    /// The two people of the demo household differ in devices and habits, day after day.
    #[test]
    fn the_second_person_has_other_devices_and_habits() {
        let now = days_from_civil(2026, 3, 15) * DAY_SECS + 11 * 3600;
        let zone = Zone::from_posix("CET-1CEST,M3.5.0,M10.5.0/3").unwrap();
        let (alex, sam) = (generate(&ALEX, now, &zone, DAYS), generate(&SAM, now, &zone, DAYS));
        let devices = |a: &Account| -> Vec<&str> {
            DEVICES.iter().filter(|d| a.person.has(d)).map(|d| d.model).collect()
        };
        assert_eq!(devices(&alex).len(), 5);
        assert_eq!(devices(&sam), ["Body Cardio", "ScanWatch 2"]);
        // No blood pressure monitor, no ECG, no sleep mat (the watch tracks nights), no trip, no nap.
        assert!(!alex.hearts.is_empty() && sam.hearts.is_empty());
        let bp = |a: &Account| a.groups.iter().filter(|g| g.measures.iter().any(|m| m.kind == 10)).count();
        assert!(bp(&alex) > 100 && bp(&sam) == 0);
        assert!(sam.sleeps.iter().all(|s| s.device.id == WATCH.id && s.breathing.is_none() && !s.nap));
        assert!(alex.sleeps.iter().any(|s| s.nap) && alex.sleeps.iter().any(|s| s.device.id == SLEEP_MAT.id));
        let away = |a: &Account| a.sleeps.iter().filter(|s| s.tz != a.home_tz).count();
        assert!(away(&alex) > 0 && away(&sam) == 0);
        // Lighter, earlier to bed, more steps, runs and yoga (never a ride or a swim).
        let latest = |a: &Account| {
            a.groups.iter().rev().find_map(|g| g.measures.iter().find(|m| m.kind == 1)).map(|m| m.value)
        };
        assert!(latest(&sam).unwrap() < 65_000 && latest(&alex).unwrap() > 70_000);
        let steps = |a: &Account| a.activities.iter().map(|x| x.steps).sum::<i64>();
        assert!(steps(&sam) > steps(&alex) * 5 / 4);
        let cats =
            |a: &Account| a.workouts.iter().map(|w| w.category).collect::<std::collections::BTreeSet<_>>();
        assert_eq!(cats(&sam).into_iter().collect::<Vec<_>>(), [2, 28]);
        assert!(cats(&alex).contains(&6) && cats(&alex).contains(&7));
        let bed_hour =
            |s: &Sleep| ((s.start() + zone.offset_at(Instant(s.start())) as i64) % DAY_SECS) / 3600;
        assert!(sam.sleeps.iter().filter(|s| bed_hour(s) == 22).count() > sam.sleeps.len() / 2);
        assert!(alex.sleeps.iter().filter(|s| !s.nap && bed_hour(s) == 22).count() < alex.sleeps.len() / 4);
        assert!(SAM.goals.contains(r#""steps":12000"#) && ALEX.goals.contains(r#""steps":9000"#));
    }
}
