//! Unit tests of dates, zones, zone rules and date arguments.

use crate::domain::time::*;

fn zone(name: &str) -> Zone {
    let path = format!("/usr/share/zoneinfo/{name}");
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
fn day_windows_cover_every_day_once() {
    let z = Zone::fixed(3600);
    // From 2026-01-01 10:00 local to 2026-01-10 08:00 local, in windows of 4 days.
    let start = Instant(z.local_midnight(date("2026-01-01")).0 + 10 * 3600);
    let end = Instant(z.local_midnight(date("2026-01-10")).0 + 8 * 3600);
    let r = Range { start, end, start_date: date("2026-01-01"), end_date: date("2026-01-10") };
    let w = day_windows(&r, 4, &z);
    let days: Vec<(String, String)> =
        w.iter().map(|w| (w.start_date.to_string(), w.end_date.to_string())).collect();
    assert_eq!(
        days,
        [("2026-01-01", "2026-01-04"), ("2026-01-05", "2026-01-08"), ("2026-01-09", "2026-01-10")]
            .map(|(a, b)| (a.to_string(), b.to_string()))
    );
    assert_eq!((w[0].start, w[2].end), (start, end), "the ends are the range's own");
    assert!(w.windows(2).all(|p| p[0].end == p[1].start), "contiguous instants");
    assert_eq!(day_windows(&r, 100, &z).len(), 1);
    let i = instant_windows(&r, 4 * 86_400, &z);
    assert_eq!(i.len(), 3);
    assert_eq!(
        (i[0].start_date.to_string(), i[0].end_date.to_string()),
        ("2026-01-01".into(), "2026-01-05".into())
    );
}
