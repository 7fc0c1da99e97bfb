//! IANA zone rules: TZif files (v1–v4) and POSIX TZ strings parsed into transitions and a
//! footer rule, and the UTC offset they put in force at an instant.
//!
//! The input may come from any file `TZDIR` points at, so sizes and counts are checked against
//! the bytes actually present before anything is allocated: a crafted header cannot make the
//! parser reserve more than the file holds.

use crate::domain::time::{DAY_SECS, civil_from_days, days_from_civil, days_in_month, is_leap_year};

/// TZif data larger than this is refused (the largest file in tzdata, with leap seconds, is
/// under 4 KiB).
pub const MAX_TZIF_BYTES: usize = 64 * 1024;
/// POSIX TZ strings longer than this are refused (real ones are under 50 bytes).
pub const MAX_POSIX_TZ_LEN: usize = 256;
/// Local time types a TZif file may declare (its transition indices are bytes).
const MAX_TZIF_TYPES: usize = 256;

/// Parsed TZif data: transition instants, the offset in force after each, and the footer rule.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct TzRules {
    pub(super) transitions: Vec<i64>,
    /// The UTC offset in force from `transitions[i]` on.
    pub(super) offsets: Vec<i32>,
    /// The offset before the first transition (local time type 0).
    pub(super) initial: i32,
    pub(super) footer: Option<PosixTz>,
}

/// A POSIX TZ string such as `CET-1CEST,M3.5.0,M10.5.0/3`, with offsets stored east of UTC.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct PosixTz {
    pub(super) std_offset: i32,
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

impl TzRules {
    pub(super) fn offset_at(&self, t: i64) -> i32 {
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
    pub(super) fn offset_at(&self, t: i64) -> i32 {
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
/// the footer. Every count is checked against the bytes present before it sizes anything.
pub(super) fn parse_tzif(b: &[u8]) -> Result<TzRules, String> {
    if b.len() > MAX_TZIF_BYTES {
        return Err(format!(
            "TZif data of {} bytes is larger than the {MAX_TZIF_BYTES} a zone file can be",
            b.len()
        ));
    }
    let header = parse_tzif_header(b, 0, 4)?;
    let version = *b.get(4).ok_or("truncated TZif header")?;
    let (data_start, time_size, header) = match version {
        0 => (44, 4, header),
        _ => {
            let v2_at = 44 + header.block_len(4);
            (v2_at + 44, 8, parse_tzif_header(b, v2_at, 8)?)
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
    let indices = b.get(at..at + header.timecnt).ok_or("truncated TZif transition types")?;
    at += header.timecnt;
    let mut type_offsets = Vec::with_capacity(header.typecnt);
    for i in 0..header.typecnt {
        type_offsets.push(be_i32(b, at + 6 * i)?);
    }
    let initial = *type_offsets.first().ok_or("TZif file has no local time types")?;
    let mut offsets = Vec::with_capacity(indices.len());
    for i in indices {
        offsets.push(*type_offsets.get(usize::from(*i)).ok_or("TZif transition names a missing type")?);
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
                false => {
                    Some(parse_posix_tz(tz).ok_or_else(|| format!("unsupported TZ rule `{}`", short(tz)))?)
                }
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
    /// Length of the data block that follows the header, for 4- or 8-byte times. Cannot
    /// overflow: `parse_tzif_header` only admits counts whose block fits in the data.
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

/// Reads the header at `at` and checks that the data block it announces (with `time_size`-byte
/// times) lies within `b`, so no count can size an allocation beyond the data.
fn parse_tzif_header(b: &[u8], at: usize, time_size: usize) -> Result<TzifHeader, String> {
    if b.get(at..at + 4) != Some(b"TZif".as_slice()) {
        return Err("not a TZif file".to_string());
    }
    let count = |i: usize| -> Result<usize, String> {
        let n = be_i32(b, at + 20 + 4 * i)?;
        usize::try_from(n).map_err(|_| "negative count in TZif header".to_string())
    };
    let h = TzifHeader {
        isutcnt: count(0)?,
        isstdcnt: count(1)?,
        leapcnt: count(2)?,
        timecnt: count(3)?,
        typecnt: count(4)?,
        charcnt: count(5)?,
    };
    if h.typecnt > MAX_TZIF_TYPES {
        return Err(format!(
            "TZif header declares {} local time types (at most {MAX_TZIF_TYPES})",
            h.typecnt
        ));
    }
    // Every count is below 2^31, so this sum of products stays far inside u64.
    let [utc, std, leap, time, types, chars] =
        [h.isutcnt, h.isstdcnt, h.leapcnt, h.timecnt, h.typecnt, h.charcnt].map(|n| n as u64);
    let ts = time_size as u64;
    let need = time * ts + time + types * 6 + chars + leap * (ts + 4) + std + utc;
    let have = b.len().saturating_sub(at + 44) as u64;
    match need <= have {
        true => Ok(h),
        false => Err(format!("TZif header announces {need} bytes of data but the file holds {have}")),
    }
}

/// The start of an untrusted string, for messages.
fn short(s: &str) -> String {
    s.chars().take(40).collect()
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
pub(super) fn parse_posix_tz(s: &str) -> Option<PosixTz> {
    if s.len() > MAX_POSIX_TZ_LEN {
        return None;
    }
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
