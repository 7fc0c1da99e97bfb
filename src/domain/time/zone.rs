//! A time zone (a fixed offset or IANA rules), local dates and times in it, and the zones records
//! name.

use std::collections::BTreeMap;

use crate::domain::time::civil::digits;
use crate::domain::time::rules::{TzRules, parse_posix_tz, parse_tzif};
use crate::domain::time::{CivilDate, DAY_SECS, Instant};

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

/// Parses `+02:00`, `-0530`, `+02`, `+05:30:15`; the result is seconds east of UTC.
pub(super) fn parse_offset(b: &[u8]) -> Option<i32> {
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
