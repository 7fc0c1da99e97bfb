//! The date/time parsers: `parse_date_arg` (tool `after`/`before` arguments), `CivilDate::parse`,
//! fixed offsets and POSIX TZ strings, and `resolve_range` over what they return, in the zones
//! that a real user could have (UTC, a fixed offset, a DST rule).
//!
//! Invariants: no panic or arithmetic overflow (fuzz builds keep debug assertions); a parsed day
//! prints back as the `YYYY-MM-DD` it came from; a resolved range is non-empty and its days ordered.
#![no_main]

use libfuzzer_sys::fuzz_target;
use withings_mcp::domain::time::{self, CivilDate, DateArg, Instant, Zone};

const NOW: Instant = Instant(1_764_500_000);

fuzz_target!(|data: &[u8]| {
    let Ok(s) = std::str::from_utf8(data) else { return };
    // `a|b` gives the after/before pair; a lone string is tried as both.
    let (a, b) = s.split_once('|').unwrap_or((s, s));
    let after = time::parse_date_arg(a);
    let before = time::parse_date_arg(b);
    if let Ok(DateArg::Day(d)) = after {
        assert_eq!(d.to_string(), a.trim(), "day does not round-trip");
        assert_eq!(CivilDate::parse(&d.to_string()), Ok(d));
    }
    let _ = CivilDate::parse(a);
    let _ = Zone::parse_fixed(a);
    let posix = Zone::from_posix(a);
    let mut zones = vec![Zone::utc(), Zone::fixed(5 * 3600 + 30 * 60)];
    zones.extend(Zone::from_posix("CET-1CEST,M3.5.0,M10.5.0/3"));
    zones.extend(posix);
    for zone in &zones {
        for days in [1, 7, 30] {
            let r = time::resolve_range(
                after.as_ref().ok().copied(),
                before.as_ref().ok().copied(),
                zone,
                NOW,
                days,
            );
            if let Ok(r) = r {
                assert!(r.start < r.end, "empty range {r:?}");
                assert!(r.start_date <= r.end_date, "days out of order {r:?}");
                // Splitting is linear in the window count; only short spans keep the fuzzer fast.
                let step = 7 * 86_400;
                if (r.end.0 - r.start.0) / step < 1_000 {
                    let windows = time::split_range(&r, step);
                    assert_eq!(windows.first().map(|w| w.0), Some(r.start));
                    assert_eq!(windows.last().map(|w| w.1), Some(r.end));
                }
            }
        }
        if let Ok(DateArg::Day(d)) = after {
            let (start, end) = zone.day_bounds(d);
            assert!(start < end, "day {d} has no instants in {}", zone.name());
        }
    }
});
