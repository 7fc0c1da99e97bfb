//! Instants and proleptic Gregorian civil dates, and the day arithmetic between them.

use std::fmt;

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
pub(super) fn digits(b: &[u8], from: usize, to: usize) -> i64 {
    b.get(from..to).unwrap_or(&[]).iter().fold(0, |n, c| n * 10 + i64::from(c.wrapping_sub(b'0')))
}
