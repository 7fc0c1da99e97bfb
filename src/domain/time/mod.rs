//! Instants, civil dates and time zones.
//!
//! Every timestamp from Withings is an [`Instant`] (Unix seconds); every day a person talks about is
//! a [`CivilDate`] in some [`Zone`]. The two only meet through a zone, so a day is never silently
//! taken to be a UTC day (upstream bug 8).
//!
//! Zones are either a fixed offset (`+02:00`, `UTC`) or IANA rules parsed from TZif bytes (the
//! transitions plus the footer POSIX TZ string, which covers instants after the last transition).
//! Everything here is pure: `store::zones` reads the system zone database and hands the bytes in.
//!
//! One file per job: `civil` (dates and day arithmetic), `zone` (a zone and local times),
//! `rules` (TZif and POSIX TZ parsing, bounded), `args` (date arguments and query ranges).

mod args;
mod civil;
mod rules;
mod zone;

#[cfg(test)]
mod tests;

pub use args::{
    DATE_ARG_FORMS, DateArg, Range, day_windows, instant_windows, parse_date_arg, resolve_range, split_range,
};
pub use civil::{CivilDate, Instant, civil_from_days, days_from_civil, days_in_month, is_leap_year};
pub use rules::{MAX_POSIX_TZ_LEN, MAX_TZIF_BYTES};
pub use zone::{Zone, Zones, format_local, format_offset};

/// Seconds in a civil day without DST changes.
pub const DAY_SECS: i64 = 86_400;
