//! Date arguments as people give them, and the query ranges they resolve to in a zone.

use crate::domain::time::civil::digits;
use crate::domain::time::zone::parse_offset;
use crate::domain::time::{CivilDate, DAY_SECS, Instant, Zone, format_local};

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

/// Splits `range` into windows of at most `days` whole civil days in `zone` (the first and last
/// cut to the range), for actions that take days (`startdateymd`): no day is asked for twice.
pub fn day_windows(range: &Range, days: i64, zone: &Zone) -> Vec<Range> {
    let mut out = Vec::new();
    let mut d = range.start_date;
    while d <= range.end_date {
        let last = d.add_days(days.max(1) - 1).min(range.end_date);
        let start = zone.local_midnight(d).max(range.start);
        let end = zone.local_midnight(last.add_days(1)).min(range.end);
        out.push(Range { start, end, start_date: d, end_date: last });
        d = last.add_days(1);
    }
    out
}

/// [`split_range`]'s windows as ranges, with the civil days they touch in `zone`.
pub fn instant_windows(range: &Range, max_secs: i64, zone: &Zone) -> Vec<Range> {
    split_range(range, max_secs)
        .into_iter()
        .map(|(start, end)| Range {
            start,
            end,
            start_date: zone.local_date(start),
            end_date: zone.local_date(end.plus(-1)),
        })
        .collect()
}
