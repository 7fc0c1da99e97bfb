//! Instants, civil dates and time zones.
//!
//! Every timestamp from Withings is an [`Instant`] (Unix seconds); every day a person talks about is
//! a [`CivilDate`] in some [`Zone`]. The two only meet through a zone, so a day is never silently
//! taken to be a UTC day (upstream bug 8).
//!
//! Zones are either a fixed offset (`+02:00`, `UTC`) or IANA rules parsed from TZif bytes (the
//! transitions plus the footer POSIX TZ string, which covers instants after the last transition).
//! Everything here is pure except the section at the end, "I/O: the system zone database", which
//! reads TZif files from `/usr/share/zoneinfo` (or `TZDIR`) and `/etc/localtime`.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use crate::{Error, Result};

/// Seconds in a civil day without DST changes.
pub const DAY_SECS: i64 = 86_400;

/// A point in time: seconds since 1970-01-01T00:00:00Z.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Instant(pub i64);

impl Instant {
    /// The instant `secs` seconds later (earlier when negative), saturating at the i64 range.
    pub fn plus(self, secs: i64) -> Instant {
        Instant(self.0.saturating_add(secs))
    }
}

/// A proleptic Gregorian calendar date. Build one with [`CivilDate::new`] or
/// [`CivilDate::parse`], which validate; the fields are public for reading and matching.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CivilDate {
    pub y: i32,
    pub m: u32,
    pub d: u32,
}

impl CivilDate {
    /// A validated date, or `None` for a month outside 1..=12 or a day the month does not have.
    pub fn new(y: i32, m: u32, d: u32) -> Option<CivilDate> {
        match (1..=12).contains(&m) && d >= 1 && d <= days_in_month(y, m) {
            true => Some(CivilDate { y, m, d }),
            false => None,
        }
    }

    /// Parses exactly `YYYY-MM-DD`; the message says what is wrong.
    pub fn parse(s: &str) -> Result<CivilDate, String> {
        let b = s.as_bytes();
        let shape_ok = b.len() == 10
            && b.get(4) == Some(&b'-')
            && b.get(7) == Some(&b'-')
            && b.iter().enumerate().all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit());
        if !shape_ok {
            return Err(format!("`{s}` is not a date in the form YYYY-MM-DD"));
        }
        let y = digits(b, 0, 4) as i32;
        let m = digits(b, 5, 7) as u32;
        let d = digits(b, 8, 10) as u32;
        if !(1..=12).contains(&m) {
            return Err(format!("`{s}` has month {m:02}; months run from 01 to 12"));
        }
        match CivilDate::new(y, m, d) {
            Some(date) => Ok(date),
            None => Err(format!(
                "`{s}` is not a real calendar date ({} {y} has {} days)",
                MONTH_NAMES.get(m as usize - 1).copied().unwrap_or("that month"),
                days_in_month(y, m)
            )),
        }
    }

    /// Days since 1970-01-01 (negative before).
    pub fn days(self) -> i64 {
        days_from_civil(self.y, self.m, self.d)
    }

    /// The date `days` days since 1970-01-01.
    pub fn from_days(days: i64) -> CivilDate {
        let (y, m, d) = civil_from_days(days);
        CivilDate { y, m, d }
    }

    /// The date `n` days later (earlier when negative).
    pub fn add_days(self, n: i64) -> CivilDate {
        CivilDate::from_days(self.days().saturating_add(n))
    }

    /// ISO weekday: 1 = Monday … 7 = Sunday.
    pub fn iso_weekday(self) -> u32 {
        // 1970-01-01 was a Thursday (ISO 4).
        ((self.days() + 3).rem_euclid(7) + 1) as u32
    }

    /// The English weekday name, e.g. "Monday".
    pub fn weekday_name(self) -> &'static str {
        const NAMES: [&str; 7] =
            ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];
        NAMES.get(self.iso_weekday() as usize - 1).copied().unwrap_or("Monday")
    }
}

impl fmt::Display for CivilDate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.y, self.m, self.d)
    }
}

/// True for Gregorian leap years.
pub fn is_leap_year(y: i32) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

/// Days in month `m` (1..=12) of year `y`; 0 for an invalid month.
pub fn days_in_month(y: i32, m: u32) -> u32 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if is_leap_year(y) => 29,
        2 => 28,
        _ => 0,
    }
}

/// Days since 1970-01-01 of a civil date (Howard Hinnant's algorithm; exact for any i32 year).
pub fn days_from_civil(y: i32, m: u32, d: u32) -> i64 {
    let y = i64::from(y) - i64::from(m <= 2);
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(m);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The civil date `(y, m, d)` of a day count since 1970-01-01 (inverse of [`days_from_civil`]).
pub fn civil_from_days(z: i64) -> (i32, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32, m, d)
}

// ---------------------------------------------------------------------------------------------
// Zones
// ---------------------------------------------------------------------------------------------

/// A time zone: a fixed UTC offset or IANA rules.
#[derive(Debug, Clone, PartialEq)]
pub struct Zone {
    name: String,
    kind: ZoneKind,
}

#[derive(Debug, Clone, PartialEq)]
enum ZoneKind {
    /// Seconds east of UTC.
    Fixed(i32),
    Rules(TzRules),
}

/// Parsed TZif data: transition instants, the offset in force after each, and the footer rule.
#[derive(Debug, Clone, PartialEq)]
struct TzRules {
    transitions: Vec<i64>,
    /// The UTC offset in force from `transitions[i]` on.
    offsets: Vec<i32>,
    /// The offset before the first transition (local time type 0).
    initial: i32,
    footer: Option<PosixTz>,
}

/// A POSIX TZ string such as `CET-1CEST,M3.5.0,M10.5.0/3`, with offsets stored east of UTC.
#[derive(Debug, Clone, PartialEq)]
struct PosixTz {
    std_offset: i32,
    dst: Option<PosixDst>,
}

#[derive(Debug, Clone, PartialEq)]
struct PosixDst {
    offset: i32,
    start: (RuleDate, i32),
    end: (RuleDate, i32),
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum RuleDate {
    /// `Jn`: day 1..=365, February 29 never counted.
    Julian1(u32),
    /// `n`: day 0..=365, February 29 counted in leap years.
    Julian0(u32),
    /// `Mm.w.d`: weekday d (0 = Sunday) of week w (5 = last) of month m.
    MonthWeek(u32, u32, u32),
}

impl Zone {
    /// UTC, named "UTC".
    pub fn utc() -> Zone {
        Zone { name: "UTC".to_string(), kind: ZoneKind::Fixed(0) }
    }

    /// A fixed offset in seconds east of UTC, named like `+02:00`.
    pub fn fixed(offset_secs: i32) -> Zone {
        Zone { name: format_offset(offset_secs), kind: ZoneKind::Fixed(offset_secs) }
    }

    /// Parses `Z`, `UTC`, `+02:00`, `-0530`, `+02` into a fixed zone.
    pub fn parse_fixed(s: &str) -> Option<Zone> {
        match s {
            "Z" | "z" | "UTC" | "utc" | "GMT" | "Etc/UTC" | "Etc/GMT" => return Some(Zone::utc()),
            _ => {}
        }
        parse_offset(s.as_bytes()).map(Zone::fixed)
    }

    /// Builds a zone from TZif bytes (v1, v2, v3 or v4), named `name`.
    pub fn from_tzif(name: &str, bytes: &[u8]) -> Result<Zone, String> {
        let rules = parse_tzif(bytes)?;
        Ok(Zone { name: name.to_string(), kind: ZoneKind::Rules(rules) })
    }

    /// Builds a zone from a POSIX TZ string alone (e.g. the `TZ` variable `CET-1CEST,M3.5.0,M10.5.0/3`).
    pub fn from_posix(s: &str) -> Option<Zone> {
        let tz = parse_posix_tz(s)?;
        let rules = TzRules {
            transitions: Vec::new(),
            offsets: Vec::new(),
            initial: tz.std_offset,
            footer: Some(tz),
        };
        Some(Zone { name: s.to_string(), kind: ZoneKind::Rules(rules) })
    }

    /// The same rules under another name (e.g. a record's `timezone` spelling).
    pub fn renamed(self, name: &str) -> Zone {
        Zone { name: name.to_string(), kind: self.kind }
    }

    /// The zone's name: the IANA name, "UTC", or the offset such as `+02:00`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The UTC offset in seconds (east positive) in force at `t`.
    pub fn offset_at(&self, t: Instant) -> i32 {
        match &self.kind {
            ZoneKind::Fixed(off) => *off,
            ZoneKind::Rules(r) => r.offset_at(t.0),
        }
    }

    /// The local calendar date at `t`.
    pub fn local_date(&self, t: Instant) -> CivilDate {
        CivilDate::from_days(self.local_secs(t).div_euclid(DAY_SECS))
    }

    /// The first instant of `date` in this zone. On a DST day the day is 23 or 25 hours long; when
    /// local midnight does not exist (a jump at 00:00) this is the first instant that is on `date`.
    pub fn local_midnight(&self, date: CivilDate) -> Instant {
        let target = date.days();
        let base = target.saturating_mul(DAY_SECS);
        // Offsets stay well within ±2 days, and the local date is non-decreasing in t except for
        // the rare backward jump across midnight, so a binary search finds the boundary.
        let (mut lo, mut hi) = (base - 2 * DAY_SECS, base + 2 * DAY_SECS);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.local_secs(Instant(mid)).div_euclid(DAY_SECS) >= target {
                true => hi = mid,
                false => lo = mid + 1,
            }
        }
        Instant(lo)
    }

    /// `(start, end_exclusive)` of the civil day `date` in this zone.
    pub fn day_bounds(&self, date: CivilDate) -> (Instant, Instant) {
        (self.local_midnight(date), self.local_midnight(date.add_days(1)))
    }

    /// Seconds since the epoch of the local wall-clock time at `t`.
    pub fn local_secs(&self, t: Instant) -> i64 {
        t.0.saturating_add(i64::from(self.offset_at(t)))
    }

    /// Seconds after local midnight of the wall-clock time at `t` (0..86400).
    pub fn secs_of_day(&self, t: Instant) -> i64 {
        self.local_secs(t).rem_euclid(86_400)
    }
}

impl TzRules {
    fn offset_at(&self, t: i64) -> i32 {
        let after_last = self.transitions.last().is_none_or(|last| t >= *last);
        if after_last && let Some(footer) = &self.footer {
            return footer.offset_at(t);
        }
        // Number of transitions at or before t.
        let n = self.transitions.partition_point(|x| *x <= t);
        match n {
            0 => self.initial,
            n => self.offsets.get(n - 1).copied().unwrap_or(self.initial),
        }
    }
}

impl PosixTz {
    fn offset_at(&self, t: i64) -> i32 {
        let Some(dst) = &self.dst else { return self.std_offset };
        let year = civil_from_days((t + i64::from(self.std_offset)).div_euclid(DAY_SECS)).0;
        // Transition times are local wall-clock times: the start in standard time, the end in DST.
        let start =
            rule_day(year, dst.start.0) * DAY_SECS + i64::from(dst.start.1) - i64::from(self.std_offset);
        let end = rule_day(year, dst.end.0) * DAY_SECS + i64::from(dst.end.1) - i64::from(dst.offset);
        let in_dst = match start <= end {
            true => t >= start && t < end,
            // Southern hemisphere: DST spans the new year.
            false => !(t >= end && t < start),
        };
        match in_dst {
            true => dst.offset,
            false => self.std_offset,
        }
    }
}

/// Days since the epoch of a POSIX rule date in `year`.
fn rule_day(year: i32, rule: RuleDate) -> i64 {
    let jan1 = days_from_civil(year, 1, 1);
    match rule {
        RuleDate::Julian1(n) => {
            let n = i64::from(n.clamp(1, 365));
            // Day 60 is always March 1: February 29 is skipped.
            jan1 + n - 1 + i64::from(is_leap_year(year) && n >= 60)
        }
        RuleDate::Julian0(n) => jan1 + i64::from(n.min(365)),
        RuleDate::MonthWeek(m, w, d) => {
            let first = days_from_civil(year, m, 1);
            // Weekday of the 1st with 0 = Sunday (1970-01-01 was a Thursday, 4).
            let wd_first = (first + 4).rem_euclid(7);
            let mut day = first + (i64::from(d) - wd_first).rem_euclid(7) + 7 * (i64::from(w.max(1)) - 1);
            let last = first + i64::from(days_in_month(year, m)) - 1;
            while day > last {
                day -= 7;
            }
            day
        }
    }
}

/// Parses a TZif file: header, the v1 block (used only for version 0), the 64-bit v2+ block and
/// the footer.
fn parse_tzif(b: &[u8]) -> Result<TzRules, String> {
    let header = parse_tzif_header(b, 0)?;
    let version = *b.get(4).ok_or("truncated TZif header")?;
    let (data_start, time_size, header) = match version {
        0 => (44, 4, header),
        _ => {
            let v2_at = 44 + header.block_len(4);
            let h2 = parse_tzif_header(b, v2_at)?;
            (v2_at + 44, 8, h2)
        }
    };
    let mut at = data_start;
    let mut transitions = Vec::with_capacity(header.timecnt);
    for _ in 0..header.timecnt {
        let t = match time_size {
            4 => i64::from(be_i32(b, at)?),
            _ => be_i64(b, at)?,
        };
        transitions.push(t);
        at += time_size;
    }
    let indices = b.get(at..at + header.timecnt).ok_or("truncated TZif transition types")?.to_vec();
    at += header.timecnt;
    let mut type_offsets = Vec::with_capacity(header.typecnt);
    for i in 0..header.typecnt {
        type_offsets.push(be_i32(b, at + 6 * i)?);
    }
    let initial = *type_offsets.first().ok_or("TZif file has no local time types")?;
    let mut offsets = Vec::with_capacity(indices.len());
    for i in indices {
        offsets.push(*type_offsets.get(usize::from(i)).ok_or("TZif transition names a missing type")?);
    }
    let footer = match version {
        0 => None,
        _ => {
            let end = data_start + header.block_len(time_size);
            let rest = b.get(end..).ok_or("truncated TZif data block")?;
            // The footer is "\n<POSIX TZ>\n"; an empty string means "no rule".
            let text = std::str::from_utf8(rest).map_err(|_| "TZif footer is not text")?;
            let tz = text.trim_matches('\n');
            match tz.is_empty() {
                true => None,
                false => Some(parse_posix_tz(tz).ok_or_else(|| format!("unsupported TZ rule `{tz}`"))?),
            }
        }
    };
    Ok(TzRules { transitions, offsets, initial, footer })
}

struct TzifHeader {
    isutcnt: usize,
    isstdcnt: usize,
    leapcnt: usize,
    timecnt: usize,
    typecnt: usize,
    charcnt: usize,
}

impl TzifHeader {
    /// Length of the data block that follows the header, for 4- or 8-byte times.
    fn block_len(&self, time_size: usize) -> usize {
        self.timecnt * time_size
            + self.timecnt
            + self.typecnt * 6
            + self.charcnt
            + self.leapcnt * (time_size + 4)
            + self.isstdcnt
            + self.isutcnt
    }
}

fn parse_tzif_header(b: &[u8], at: usize) -> Result<TzifHeader, String> {
    if b.get(at..at + 4) != Some(b"TZif".as_slice()) {
        return Err("not a TZif file".to_string());
    }
    let count = |i: usize| -> Result<usize, String> {
        let n = be_i32(b, at + 20 + 4 * i)?;
        usize::try_from(n).map_err(|_| "negative count in TZif header".to_string())
    };
    Ok(TzifHeader {
        isutcnt: count(0)?,
        isstdcnt: count(1)?,
        leapcnt: count(2)?,
        timecnt: count(3)?,
        typecnt: count(4)?,
        charcnt: count(5)?,
    })
}

fn be_i32(b: &[u8], at: usize) -> Result<i32, String> {
    let s: [u8; 4] = b.get(at..at + 4).and_then(|s| s.try_into().ok()).ok_or("truncated TZif file")?;
    Ok(i32::from_be_bytes(s))
}

fn be_i64(b: &[u8], at: usize) -> Result<i64, String> {
    let s: [u8; 8] = b.get(at..at + 8).and_then(|s| s.try_into().ok()).ok_or("truncated TZif file")?;
    Ok(i64::from_be_bytes(s))
}

/// Parses a POSIX TZ string: `std offset [dst [offset] [,start[/time],end[/time]]]`.
fn parse_posix_tz(s: &str) -> Option<PosixTz> {
    let mut p = Cursor { b: s.as_bytes(), i: 0 };
    p.name()?;
    // POSIX offsets count hours west of UTC; store them east.
    let std_offset = -p.hms(true)?;
    if p.done() {
        return Some(PosixTz { std_offset, dst: None });
    }
    p.name()?;
    let dst_offset = match p.peek() {
        Some(b',') | None => std_offset + 3600,
        Some(_) => -p.hms(true)?,
    };
    let (start, end) = match p.done() {
        // No rule given: the traditional US default.
        true => ((RuleDate::MonthWeek(3, 2, 0), 7200), (RuleDate::MonthWeek(11, 1, 0), 7200)),
        false => {
            p.expect(b',')?;
            let start = p.rule()?;
            p.expect(b',')?;
            let end = p.rule()?;
            (start, end)
        }
    };
    match p.done() {
        true => Some(PosixTz { std_offset, dst: Some(PosixDst { offset: dst_offset, start, end }) }),
        false => None,
    }
}

struct Cursor<'a> {
    b: &'a [u8],
    i: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }
    fn done(&self) -> bool {
        self.i >= self.b.len()
    }
    fn expect(&mut self, c: u8) -> Option<()> {
        match self.peek() == Some(c) {
            true => {
                self.i += 1;
                Some(())
            }
            false => None,
        }
    }
    /// A zone abbreviation: three or more letters, or `<...>` quoted (e.g. `<+0330>`).
    fn name(&mut self) -> Option<()> {
        let start = self.i;
        match self.peek() {
            Some(b'<') => {
                while self.peek()? != b'>' {
                    self.i += 1;
                }
                self.i += 1;
                Some(())
            }
            _ => {
                while self.peek().is_some_and(|c| c.is_ascii_alphabetic()) {
                    self.i += 1;
                }
                (self.i - start >= 3).then_some(())
            }
        }
    }
    fn number(&mut self) -> Option<u32> {
        let start = self.i;
        let mut n: u32 = 0;
        while let Some(c) = self.peek().filter(u8::is_ascii_digit) {
            n = n.checked_mul(10)?.checked_add(u32::from(c - b'0'))?;
            self.i += 1;
        }
        (self.i > start).then_some(n)
    }
    /// `[+-]hh[:mm[:ss]]` as signed seconds (hours up to 167 for v3 rule times).
    fn hms(&mut self, signed: bool) -> Option<i32> {
        let sign = match self.peek() {
            Some(b'-') if signed => {
                self.i += 1;
                -1
            }
            Some(b'+') if signed => {
                self.i += 1;
                1
            }
            _ => 1,
        };
        let h = self.number()?;
        let mut secs = i64::from(h) * 3600;
        if self.expect(b':').is_some() {
            secs += i64::from(self.number()?.min(59)) * 60;
            if self.expect(b':').is_some() {
                secs += i64::from(self.number()?.min(59));
            }
        }
        (h <= 167).then_some(sign * secs as i32)
    }
    /// `date[/time]` of a DST rule; the default time is 02:00.
    fn rule(&mut self) -> Option<(RuleDate, i32)> {
        let date = match self.peek()? {
            b'J' => {
                self.i += 1;
                RuleDate::Julian1(self.number().filter(|n| (1..=365).contains(n))?)
            }
            b'M' => {
                self.i += 1;
                let m = self.number().filter(|n| (1..=12).contains(n))?;
                self.expect(b'.')?;
                let w = self.number().filter(|n| (1..=5).contains(n))?;
                self.expect(b'.')?;
                let d = self.number().filter(|n| *n <= 6)?;
                RuleDate::MonthWeek(m, w, d)
            }
            _ => RuleDate::Julian0(self.number().filter(|n| *n <= 365)?),
        };
        let time = match self.expect(b'/') {
            Some(()) => self.hms(true)?,
            None => 7200,
        };
        Some((date, time))
    }
}

/// Parses `+02:00`, `-0530`, `+02`, `+05:30:15`; the result is seconds east of UTC.
fn parse_offset(b: &[u8]) -> Option<i32> {
    let sign = match b.first()? {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let rest = b.get(1..)?;
    let all_digits = |s: &[u8]| s.iter().all(u8::is_ascii_digit);
    let (h, m) = match rest.len() {
        2 if all_digits(rest) => (digits(rest, 0, 2), 0),
        4 if all_digits(rest) => (digits(rest, 0, 2), digits(rest, 2, 4)),
        5 if rest.get(2) == Some(&b':') && all_digits(rest.get(..2)?) && all_digits(rest.get(3..)?) => {
            (digits(rest, 0, 2), digits(rest, 3, 5))
        }
        _ => return None,
    };
    match h <= 23 && m <= 59 {
        true => Some(sign * (h * 3600 + m * 60) as i32),
        false => None,
    }
}

/// Formats seconds east of UTC as `+HH:MM` (or `+HH:MM:SS` for historic local mean time).
pub fn format_offset(secs: i32) -> String {
    let sign = if secs < 0 { '-' } else { '+' };
    let a = secs.unsigned_abs();
    match a % 60 {
        0 => format!("{sign}{:02}:{:02}", a / 3600, a / 60 % 60),
        s => format!("{sign}{:02}:{:02}:{s:02}", a / 3600, a / 60 % 60),
    }
}

/// Formats `t` as local ISO 8601 with its offset, e.g. `2026-03-01T08:30:00+02:00`.
pub fn format_local(t: Instant, zone: &Zone) -> String {
    let off = zone.offset_at(t);
    let local = t.0.saturating_add(i64::from(off));
    let date = CivilDate::from_days(local.div_euclid(DAY_SECS));
    let s = local.rem_euclid(DAY_SECS);
    format!("{date}T{:02}:{:02}:{:02}{}", s / 3600, s / 60 % 60, s % 60, format_offset(off))
}

/// Zones for rendering records: the user's zone plus zones named by records (`"timezone"`).
#[derive(Debug, Clone)]
pub struct Zones {
    user: Zone,
    named: BTreeMap<String, Zone>,
}

impl Zones {
    /// Only the user's zone; records naming another zone fall back to it until that zone is added.
    pub fn new(user: Zone) -> Zones {
        Zones { user, named: BTreeMap::new() }
    }

    /// Adds a zone under its own name.
    pub fn insert(&mut self, zone: Zone) {
        self.named.insert(zone.name().to_string(), zone);
    }

    /// The user's zone.
    pub fn user(&self) -> &Zone {
        &self.user
    }

    /// The zone a record should be read in: its own `timezone` when known, else the user's.
    pub fn for_record(&self, name: Option<&str>) -> &Zone {
        match name {
            Some(n) if n == self.user.name() => &self.user,
            Some(n) => self.named.get(n).unwrap_or(&self.user),
            None => &self.user,
        }
    }

    /// True when `name` resolves to a zone (the user's or an added one).
    pub fn knows(&self, name: &str) -> bool {
        name == self.user.name() || self.named.contains_key(name)
    }
}

// ---------------------------------------------------------------------------------------------
// Date arguments and ranges
// ---------------------------------------------------------------------------------------------

/// A date argument as a user gives it: a whole civil day, or an exact instant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DateArg {
    Day(CivilDate),
    At(Instant),
}

/// The forms [`parse_date_arg`] accepts, for error messages and tool descriptions.
pub const DATE_ARG_FORMS: &str = "use YYYY-MM-DD (a whole day in your time zone) or an ISO 8601 date-time with an offset, \
     e.g. 2026-03-01T08:30:00+02:00 or 2026-03-01T06:30Z";

/// Parses `YYYY-MM-DD` or an ISO 8601 date-time with `Z` or a `±HH:MM` / `±HHMM` offset
/// (seconds and fractional seconds optional; `T`, `t` or a space between date and time).
pub fn parse_date_arg(s: &str) -> Result<DateArg, String> {
    let s = s.trim();
    let b = s.as_bytes();
    let looks_dated = b.len() >= 10 && b.get(4) == Some(&b'-') && b.get(7) == Some(&b'-');
    if !looks_dated {
        return Err(format!("`{s}` is not a date; {DATE_ARG_FORMS}"));
    }
    let date = CivilDate::parse(s.get(..10).unwrap_or(s)).map_err(|e| format!("{e}; {DATE_ARG_FORMS}"))?;
    if b.len() == 10 {
        return Ok(DateArg::Day(date));
    }
    if !matches!(b.get(10), Some(b'T' | b't' | b' ')) {
        return Err(format!("`{s}` is not a date; {DATE_ARG_FORMS}"));
    }
    let bad_time =
        || format!("`{s}` has an invalid time of day (expected HH:MM or HH:MM:SS); {DATE_ARG_FORMS}");
    let two = |at: usize| -> Option<i64> {
        let d = b.get(at..at + 2)?;
        d.iter().all(u8::is_ascii_digit).then(|| digits(d, 0, 2))
    };
    let (h, m) = match (two(11), b.get(13), two(14)) {
        (Some(h), Some(b':'), Some(m)) => (h, m),
        _ => return Err(bad_time()),
    };
    let mut at = 16;
    let mut sec = 0;
    if b.get(at) == Some(&b':') {
        sec = two(at + 1).ok_or_else(bad_time)?;
        at += 3;
        if matches!(b.get(at), Some(b'.' | b',')) {
            at += 1;
            let start = at;
            while b.get(at).is_some_and(u8::is_ascii_digit) {
                at += 1;
            }
            if at == start {
                return Err(bad_time());
            }
        }
    }
    if h > 23 || m > 59 || sec > 59 {
        return Err(format!("`{s}` has an out-of-range time {h:02}:{m:02}:{sec:02}; {DATE_ARG_FORMS}"));
    }
    let offset = match b.get(at..) {
        None | Some([]) => {
            return Err(format!(
                "`{s}` has no UTC offset; an offset is required for a date-time (add Z or e.g. +02:00), \
                 or give a bare YYYY-MM-DD for a whole day"
            ));
        }
        Some([b'Z' | b'z']) => 0,
        Some(rest) => match parse_offset(rest) {
            Some(off) => i64::from(off),
            None => return Err(format!("`{s}` has an invalid UTC offset; {DATE_ARG_FORMS}")),
        },
    };
    // Fractional seconds are dropped: Withings works in whole seconds.
    let local = date.days() * DAY_SECS + h * 3600 + m * 60 + sec;
    Ok(DateArg::At(Instant(local - offset)))
}

/// A resolved query window: `[start, end)` as instants, and the civil days it covers (inclusive).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Range {
    pub start: Instant,
    /// Exclusive.
    pub end: Instant,
    pub start_date: CivilDate,
    /// Inclusive.
    pub end_date: CivilDate,
}

/// Resolves `after`/`before` in `zone`.
///
/// - A bare date is a whole civil day: `after` starts at its local midnight, `before` ends at the
///   end of its day. An instant is taken as is (`before` is exclusive).
/// - Missing `before` means now (today). Missing `after` means the `default_days` civil days that
///   end with the end date, starting at local midnight (so 7 = today and the six days before).
/// - A window that is empty or reversed is an error naming `after` and `before`.
pub fn resolve_range(
    after: Option<DateArg>,
    before: Option<DateArg>,
    zone: &Zone,
    now: Instant,
    default_days: i64,
) -> Result<Range, String> {
    let (end, end_date) = match before {
        Some(DateArg::Day(d)) => (zone.day_bounds(d).1, d),
        Some(DateArg::At(t)) => (t, zone.local_date(t.plus(-1))),
        None => (now, zone.local_date(now)),
    };
    let (start, start_date) = match after {
        Some(DateArg::Day(d)) => (zone.local_midnight(d), d),
        Some(DateArg::At(t)) => (t, zone.local_date(t)),
        None => {
            let d = end_date.add_days(1 - default_days.max(1));
            (zone.local_midnight(d), d)
        }
    };
    if start >= end {
        let shown_end = match before {
            Some(_) => format_local(end, zone),
            None => format!("now, {}", format_local(now, zone)),
        };
        return Err(format!(
            "`after` ({}) must be earlier than `before` ({shown_end})",
            format_local(start, zone)
        ));
    }
    Ok(Range { start, end, start_date, end_date: end_date.max(start_date) })
}

/// Splits `range` into consecutive `[start, end)` windows of at most `max_secs` seconds (sleep
/// detail accepts at most 7 days, or 24 h, per request).
pub fn split_range(range: &Range, max_secs: i64) -> Vec<(Instant, Instant)> {
    let step = max_secs.max(1);
    let mut out = Vec::new();
    let mut s = range.start;
    while s < range.end {
        let e = Instant(s.0.saturating_add(step).min(range.end.0));
        out.push((s, e));
        s = e;
    }
    out
}

const MONTH_NAMES: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// The decimal value of ASCII digits `b[from..to]` (callers check they are digits).
fn digits(b: &[u8], from: usize, to: usize) -> i64 {
    b.get(from..to).unwrap_or(&[]).iter().fold(0, |n, c| n * 10 + i64::from(c.wrapping_sub(b'0')))
}

// ---------------------------------------------------------------------------------------------
// I/O: the system zone database. Everything above is pure; only these functions touch files and
// the environment.
// ---------------------------------------------------------------------------------------------

/// The default zone database directory.
pub const ZONEINFO_DIR: &str = "/usr/share/zoneinfo";

/// Loads the user's zone from `WITHINGS_TZ` (`spec`), else the machine's zone (`TZ`, then
/// `/etc/localtime`), else UTC. Reads `TZ` and `TZDIR` from the process environment.
pub fn load_zone(spec: Option<&str>) -> Result<Zone> {
    let tz = std::env::var("TZ").ok();
    let tzdir = std::env::var("TZDIR").ok();
    load_zone_with(spec, tz.as_deref(), tzdir.as_deref())
}

/// [`load_zone`] with the `TZ` and `TZDIR` values passed in (e.g. from a config `Env` snapshot).
pub fn load_zone_with(spec: Option<&str>, tz_env: Option<&str>, tzdir: Option<&str>) -> Result<Zone> {
    let dir = zoneinfo_dir(tzdir);
    match spec.map(str::trim).filter(|s| !s.is_empty()) {
        Some(s) => {
            if let Some(z) = Zone::parse_fixed(s) {
                return Ok(z);
            }
            check_zone_name(s).map_err(Error::Config)?;
            read_named_zone(&dir, s).map_err(|why| {
                Error::Config(format!(
                    "unknown time zone `{s}` in WITHINGS_TZ ({why}); use an IANA name such as \
                     Europe/Paris or a fixed offset such as +02:00"
                ))
            })
        }
        None => Ok(machine_zone(&dir, tz_env)),
    }
}

/// Loads the zones records name (their `"timezone"` fields) into `zones`; names that cannot be
/// loaded are skipped, so those records fall back to the user's zone.
pub fn load_record_zones<'a>(zones: &mut Zones, names: impl IntoIterator<Item = &'a str>) {
    let tzdir = std::env::var("TZDIR").ok();
    let dir = zoneinfo_dir(tzdir.as_deref());
    for name in names {
        if zones.knows(name) {
            continue;
        }
        let zone = match Zone::parse_fixed(name) {
            Some(z) => Some(z.renamed(name)),
            None => check_zone_name(name).ok().and_then(|()| read_named_zone(&dir, name).ok()),
        };
        if let Some(z) = zone {
            zones.insert(z);
        }
    }
}

fn zoneinfo_dir(tzdir: Option<&str>) -> PathBuf {
    PathBuf::from(tzdir.filter(|d| !d.is_empty()).unwrap_or(ZONEINFO_DIR))
}

/// Rejects names that could escape the zone database directory.
fn check_zone_name(name: &str) -> Result<(), String> {
    let ok_chars =
        name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '_' | '-' | '+' | '.'));
    if name.starts_with('/') || name.split('/').any(|part| part == ".." || part == "." || part.is_empty()) {
        return Err(format!("time zone `{name}` must be an IANA name such as Europe/Paris, not a path"));
    }
    match ok_chars && name.len() <= 64 {
        true => Ok(()),
        false => Err(format!("time zone `{name}` is not a valid IANA zone name")),
    }
}

fn read_named_zone(dir: &Path, name: &str) -> Result<Zone, String> {
    let path = dir.join(name);
    let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    Zone::from_tzif(name, &bytes).map_err(|e| format!("{}: {e}", path.display()))
}

fn machine_zone(dir: &Path, tz_env: Option<&str>) -> Zone {
    if let Some(tz) = tz_env.map(|t| t.trim_start_matches(':')).filter(|t| !t.is_empty()) {
        if let Some(z) = Zone::parse_fixed(tz) {
            return z;
        }
        if check_zone_name(tz).is_ok()
            && let Ok(z) = read_named_zone(dir, tz)
        {
            return z;
        }
        if let Some(z) = Zone::from_posix(tz) {
            return z;
        }
    }
    let localtime = Path::new("/etc/localtime");
    let name = std::fs::read_link(localtime)
        .ok()
        .and_then(|target| {
            let s = target.to_string_lossy().into_owned();
            s.split_once("zoneinfo/").map(|(_, n)| n.to_string())
        })
        .unwrap_or_else(|| "localtime".to_string());
    let zone = std::fs::read(localtime).ok().and_then(|b| Zone::from_tzif(&name, &b).ok());
    match zone {
        Some(z) if matches!(name.as_str(), "UTC" | "Etc/UTC" | "Etc/UCT" | "UCT" | "Etc/Zulu" | "Zulu") => {
            z.renamed("UTC")
        }
        Some(z) => z,
        None => Zone::utc(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zone(name: &str) -> Zone {
        let path = format!("{ZONEINFO_DIR}/{name}");
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("zone file {path} is required: {e}"));
        Zone::from_tzif(name, &bytes).unwrap()
    }

    fn date(s: &str) -> CivilDate {
        CivilDate::parse(s).unwrap()
    }

    fn at(s: &str) -> Instant {
        match parse_date_arg(s).unwrap() {
            DateArg::At(t) => t,
            DateArg::Day(_) => panic!("{s} is a day"),
        }
    }

    #[test]
    fn civil_round_trip_and_known_days() {
        let cases = [
            ("1970-01-01", 0, 4),
            ("2000-02-29", 11_016, 2),
            ("2026-03-01", 20_513, 7),
            ("1969-12-31", -1, 3),
            ("1600-03-01", -135_080, 3),
        ];
        for (s, days, wd) in cases {
            let d = date(s);
            assert_eq!(d.days(), days, "{s}");
            assert_eq!(CivilDate::from_days(days), d, "{s}");
            assert_eq!(d.to_string(), s);
            assert_eq!(d.iso_weekday(), wd, "{s}");
        }
        for n in (-800_000..800_000).step_by(997) {
            assert_eq!(CivilDate::from_days(n).days(), n);
        }
        assert_eq!(date("2026-02-28").add_days(1), date("2026-03-01"));
        assert_eq!(date("2024-02-28").add_days(1), date("2024-02-29"));
        assert_eq!(date("2026-01-01").add_days(-1), date("2025-12-31"));
        assert_eq!(date("2026-03-01").weekday_name(), "Sunday");
    }

    #[test]
    fn civil_validation() {
        assert!(CivilDate::new(2024, 2, 29).is_some());
        assert!(CivilDate::new(2026, 2, 29).is_none());
        assert!(CivilDate::new(1900, 2, 29).is_none());
        assert!(CivilDate::new(2000, 2, 29).is_some());
        assert!(CivilDate::new(2026, 4, 31).is_none());
        assert!(CivilDate::new(2026, 0, 1).is_none());
        assert!(CivilDate::new(2026, 13, 1).is_none());
        assert!(CivilDate::new(2026, 1, 0).is_none());
    }

    #[test]
    fn fixed_offsets_parse() {
        let cases = [
            ("+02:00", Some(7200)),
            ("-0530", Some(-19800)),
            ("+05:30", Some(19800)),
            ("-03", Some(-10800)),
            ("Z", Some(0)),
            ("UTC", Some(0)),
            ("+24:00", None),
            ("+02:60", None),
            ("0200", None),
            ("+2:00", None),
            ("Europe/Paris", None),
        ];
        for (s, want) in cases {
            assert_eq!(Zone::parse_fixed(s).map(|z| z.offset_at(Instant(0))), want, "{s}");
        }
        assert_eq!(Zone::parse_fixed("-0530").unwrap().name(), "-05:30");
        assert_eq!(Zone::utc().name(), "UTC");
    }

    #[test]
    fn paris_dst_days() {
        let paris = zone("Europe/Paris");
        let cases = [
            ("2026-03-29", 23 * 3600, "2026-03-29T00:00:00+01:00"),
            ("2026-10-25", 25 * 3600, "2026-10-25T00:00:00+02:00"),
            ("2026-06-15", 24 * 3600, "2026-06-15T00:00:00+02:00"),
            ("2026-01-15", 24 * 3600, "2026-01-15T00:00:00+01:00"),
        ];
        for (d, len, start) in cases {
            let (s, e) = paris.day_bounds(date(d));
            assert_eq!(e.0 - s.0, len, "{d}");
            assert_eq!(format_local(s, &paris), start);
            assert_eq!(paris.local_date(s), date(d));
            assert_eq!(paris.local_date(s.plus(-1)), date(d).add_days(-1));
        }
        // The spring-forward instant: 01:00 UTC on the last Sunday of March.
        let jump = at("2026-03-29T01:00:00Z");
        assert_eq!(paris.offset_at(jump.plus(-1)), 3600);
        assert_eq!(paris.offset_at(jump), 7200);
        assert_eq!(paris.name(), "Europe/Paris");
    }

    #[test]
    fn new_york_dst_days() {
        let ny = zone("America/New_York");
        let cases = [("2026-03-08", 23 * 3600, -5 * 3600), ("2026-11-01", 25 * 3600, -4 * 3600)];
        for (d, len, start_off) in cases {
            let (s, e) = ny.day_bounds(date(d));
            assert_eq!(e.0 - s.0, len, "{d}");
            assert_eq!(ny.offset_at(s), start_off, "{d}");
        }
        assert_eq!(format_local(at("2026-07-04T16:00:00Z"), &ny), "2026-07-04T12:00:00-04:00");
    }

    #[test]
    fn posix_footer_covers_far_future() {
        let paris = zone("Europe/Paris");
        let ny = zone("America/New_York");
        // 2100 is far past the last transition stored in any TZif file.
        let cases = [
            (&paris, "2100-01-15T12:00:00Z", 3600),
            (&paris, "2100-07-15T12:00:00Z", 7200),
            (&paris, "2100-03-28T00:59:59Z", 3600), // last Sunday of March 2100 is the 28th
            (&paris, "2100-03-28T01:00:00Z", 7200),
            (&paris, "2100-10-31T00:59:59Z", 7200), // last Sunday of October 2100 is the 31st
            (&paris, "2100-10-31T01:00:00Z", 3600),
            (&ny, "2100-03-14T06:59:59Z", -5 * 3600), // second Sunday of March 2100
            (&ny, "2100-03-14T07:00:00Z", -4 * 3600),
            (&ny, "2100-11-07T05:59:59Z", -4 * 3600), // first Sunday of November 2100
            (&ny, "2100-11-07T06:00:00Z", -5 * 3600),
        ];
        for (z, t, off) in cases {
            assert_eq!(z.offset_at(at(t)), off, "{} {t}", z.name());
        }
        let (s, e) = paris.day_bounds(date("2100-03-28"));
        assert_eq!(e.0 - s.0, 23 * 3600);
    }

    #[test]
    fn posix_strings() {
        let cases = [
            ("CET-1CEST,M3.5.0,M10.5.0/3", "2026-07-01T00:00Z", 7200),
            ("CET-1CEST,M3.5.0,M10.5.0/3", "2026-12-01T00:00Z", 3600),
            ("EST5EDT", "2026-07-01T00:00Z", -4 * 3600),
            ("<+0330>-3:30", "2026-07-01T00:00Z", 12600),
            // Southern hemisphere: DST spans the new year.
            ("AEST-10AEDT,M10.1.0,M4.1.0/3", "2026-01-15T00:00Z", 11 * 3600),
            ("AEST-10AEDT,M10.1.0,M4.1.0/3", "2026-07-15T00:00Z", 10 * 3600),
            // Julian forms: J60 is always March 1; zero-based 59 is February 29 in leap years.
            ("XXX0YYY,J60/0,J300/0", "2026-03-01T00:00Z", 3600),
            ("XXX0YYY,J60/0,J300/0", "2026-02-28T23:59Z", 0),
            ("XXX0YYY,J60/0,J300/0", "2024-03-01T00:00Z", 3600),
            ("XXX0YYY,J60/0,J300/0", "2024-02-29T23:59Z", 0),
            ("XXX0YYY,59/0,300/0", "2024-02-28T23:59Z", 0),
            ("XXX0YYY,59/0,300/0", "2024-02-29T00:00Z", 3600),
            ("XXX0YYY,59/0,300/0", "2026-03-01T00:00Z", 3600),
        ];
        for (tz, t, off) in cases {
            let z = Zone::from_posix(tz).unwrap_or_else(|| panic!("{tz}"));
            assert_eq!(z.offset_at(at(t)), off, "{tz} at {t}");
        }
        for bad in ["", "C", "CET", "CET-1CEST,M13.5.0,M10.5.0", "CET-1CEST,M3.5.0"] {
            assert!(Zone::from_posix(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn tzif_v1_and_garbage() {
        // A hand-built v1 file: one transition at t=1000 from type 0 (+1 h) to type 1 (+2 h).
        let mut b = b"TZif".to_vec();
        b.push(0);
        b.extend([0u8; 15]);
        for n in [0i32, 0, 0, 1, 2, 4] {
            b.extend(n.to_be_bytes());
        }
        b.extend(1000i32.to_be_bytes());
        b.push(1);
        for (off, dst, idx) in [(3600i32, 0u8, 0u8), (7200, 1, 0)] {
            b.extend(off.to_be_bytes());
            b.push(dst);
            b.push(idx);
        }
        b.extend(b"ABC\0");
        let z = Zone::from_tzif("Test/V1", &b).unwrap();
        assert_eq!(z.offset_at(Instant(999)), 3600);
        assert_eq!(z.offset_at(Instant(1000)), 7200);
        assert_eq!(z.offset_at(Instant(i64::MAX / 2)), 7200);
        for bad in [&b"nope"[..], &b[..30], &b[..50], b""] {
            assert!(Zone::from_tzif("x", bad).is_err());
        }
    }

    #[test]
    fn utc_file_has_no_transitions() {
        let z = zone("Etc/UTC");
        assert_eq!(z.offset_at(Instant(0)), 0);
        assert_eq!(z.offset_at(Instant(4_102_444_800)), 0);
    }

    #[test]
    fn local_day_of_early_morning_at_plus_two() {
        let z = Zone::parse_fixed("+02:00").unwrap();
        let t = at("2026-03-01T00:30:00+02:00");
        assert_eq!(t, at("2026-02-28T22:30:00Z"));
        assert_eq!(z.local_date(t), date("2026-03-01"));
        assert_eq!(Zone::utc().local_date(t), date("2026-02-28"));
        assert_eq!(format_local(t, &z), "2026-03-01T00:30:00+02:00");
        let paris = zone("Europe/Paris");
        assert_eq!(paris.local_date(at("2026-06-30T22:30:00Z")), date("2026-07-01"));
    }

    #[test]
    fn date_args_accepted() {
        let cases = [
            ("2026-03-01", DateArg::Day(date("2026-03-01"))),
            ("2026-03-01T08:30:00+02:00", DateArg::At(Instant(1_772_346_600))),
            ("2026-03-01T06:30Z", DateArg::At(Instant(1_772_346_600))),
            ("2026-03-01t06:30:00.999z", DateArg::At(Instant(1_772_346_600))),
            ("2026-03-01 08:30:00.5+0200", DateArg::At(Instant(1_772_346_600))),
            ("2026-03-01T01:00-05:30", DateArg::At(Instant(1_772_346_600))),
            ("  2024-02-29  ", DateArg::Day(date("2024-02-29"))),
        ];
        for (s, want) in cases {
            assert_eq!(parse_date_arg(s), Ok(want), "{s}");
        }
    }

    #[test]
    fn date_args_rejected_with_reasons() {
        let cases = [
            ("yesterday", "not a date"),
            ("", "not a date"),
            ("2026-02-30", "not a real calendar date (February 2026 has 28 days)"),
            ("2025-02-29", "February 2025 has 28 days"),
            ("2026-13-01T00:00Z", "month 13"),
            ("2026-03-01T08:30:00", "offset is required"),
            ("2026-03-01T08:30", "offset is required"),
            ("2026-03-01T24:00Z", "out-of-range time"),
            ("2026-03-01T08:61Z", "out-of-range time"),
            ("2026-03-01T8:30Z", "invalid time of day"),
            ("2026-03-01T08:30:00.Z", "invalid time of day"),
            ("2026-03-01T08:30+25:00", "invalid UTC offset"),
            ("2026-03-01T08:30 CET", "invalid UTC offset"),
            ("2026-3-1", "not a date"),
            ("20260301", "not a date"),
            ("2026-03-01X08:30Z", "not a date"),
        ];
        for (s, why) in cases {
            let err = parse_date_arg(s).expect_err(s);
            assert!(err.contains(why), "{s}: {err}");
            assert!(err.contains("YYYY-MM-DD"), "{s} should list the accepted forms: {err}");
        }
    }

    #[test]
    fn ranges() {
        let paris = zone("Europe/Paris");
        let now = at("2026-03-29T10:00:00Z");
        let day = |s: &str| Some(DateArg::Day(date(s)));
        // Bare dates are whole local days, across the 23-hour DST day.
        let r = resolve_range(day("2026-03-28"), day("2026-03-29"), &paris, now, 7).unwrap();
        assert_eq!(r.start, at("2026-03-28T00:00:00+01:00"));
        assert_eq!(r.end, at("2026-03-30T00:00:00+02:00"));
        assert_eq!(r.end.0 - r.start.0, 47 * 3600);
        assert_eq!((r.start_date, r.end_date), (date("2026-03-28"), date("2026-03-29")));
        // Defaults: before = now, after = the 7 days ending today.
        let r = resolve_range(None, None, &paris, now, 7).unwrap();
        assert_eq!(r.end, now);
        assert_eq!((r.start_date, r.end_date), (date("2026-03-23"), date("2026-03-29")));
        assert_eq!(r.start, at("2026-03-23T00:00:00+01:00"));
        // Instants are kept; an exclusive end at midnight ends the previous day.
        let r = resolve_range(
            Some(DateArg::At(at("2026-03-01T08:30Z"))),
            Some(DateArg::At(at("2026-03-03T00:00+01:00"))),
            &paris,
            now,
            7,
        )
        .unwrap();
        assert_eq!(r.start, at("2026-03-01T08:30Z"));
        assert_eq!((r.start_date, r.end_date), (date("2026-03-01"), date("2026-03-02")));
        // Missing after with a bare before.
        let r = resolve_range(None, day("2026-03-10"), &paris, now, 1).unwrap();
        assert_eq!((r.start_date, r.end_date), (date("2026-03-10"), date("2026-03-10")));
        // Reversed or empty windows.
        for (a, b) in [(day("2026-03-05"), day("2026-03-04")), (day("2026-04-01"), None)] {
            let err = resolve_range(a, b, &paris, now, 7).unwrap_err();
            assert!(err.contains("`after`") && err.contains("`before`"), "{err}");
        }
        let same = Some(DateArg::At(now));
        assert!(resolve_range(same, same, &paris, now, 7).is_err());
    }

    #[test]
    fn split_ranges() {
        let r = Range {
            start: Instant(0),
            end: Instant(20),
            start_date: date("1970-01-01"),
            end_date: date("1970-01-01"),
        };
        assert_eq!(
            split_range(&r, 7),
            vec![(Instant(0), Instant(7)), (Instant(7), Instant(14)), (Instant(14), Instant(20))]
        );
        assert_eq!(split_range(&r, 20), vec![(Instant(0), Instant(20))]);
        assert_eq!(split_range(&r, 0).len(), 20);
        let empty = Range { end: Instant(0), ..r };
        assert!(split_range(&empty, 7).is_empty());
    }

    #[test]
    fn load_zone_specs() {
        let dir = Some(ZONEINFO_DIR);
        let cases = [
            (Some("Europe/Paris"), "Europe/Paris"),
            (Some("+02:00"), "+02:00"),
            (Some("UTC"), "UTC"),
            (Some(" America/New_York "), "America/New_York"),
        ];
        for (spec, name) in cases {
            assert_eq!(load_zone_with(spec, None, dir).unwrap().name(), name);
        }
        for bad in ["Mars/Olympus_Mons", "../etc/passwd", "/etc/localtime", "Europe/../Europe/Paris", "a b"] {
            let err = load_zone_with(Some(bad), None, dir).unwrap_err().to_string();
            assert!(err.starts_with("configuration:"), "{err}");
            assert!(err.contains(bad), "{err}");
        }
        // The machine zone: TZ first (a name, a fixed offset or a POSIX rule).
        assert_eq!(load_zone_with(None, Some("Europe/Paris"), dir).unwrap().name(), "Europe/Paris");
        assert_eq!(load_zone_with(None, Some(":America/New_York"), dir).unwrap().name(), "America/New_York");
        let posix = load_zone_with(None, Some("CET-1CEST,M3.5.0,M10.5.0/3"), dir).unwrap();
        assert_eq!(posix.offset_at(at("2026-07-01T00:00Z")), 7200);
        // Without TZ, /etc/localtime decides; on any machine it yields a usable zone.
        let z = load_zone_with(None, None, dir).unwrap();
        assert!(!z.name().is_empty());
    }

    #[test]
    fn record_zones_fall_back_to_the_user_zone() {
        let mut zones = Zones::new(Zone::fixed(3600));
        load_record_zones(&mut zones, ["Europe/Paris", "Nowhere/Else", "../x"]);
        assert_eq!(zones.for_record(Some("Europe/Paris")).name(), "Europe/Paris");
        assert_eq!(zones.for_record(Some("Nowhere/Else")).name(), "+01:00");
        assert_eq!(zones.for_record(None).name(), "+01:00");
        assert!(!zones.knows("../x"));
    }
}
