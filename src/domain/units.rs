//! Unit systems for display: metric (SI as Withings sends it), imperial (lb, ft/in, mi, °F) and
//! UK (stones and pounds for body mass, miles, but °C).
//!
//! Conversions are keyed by the SI unit label the decoders use (`kg`, `m`, `km`, `°C`, …); labels
//! with no conversion (`%`, `bpm`, `mmHg`, `m/s`, `kcal`, …) pass through unchanged. Non-finite
//! input is rejected (`None`), so no NaN or infinity ever reaches output.

use crate::domain::named::Named;

/// A display unit system.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Units {
    Metric,
    Imperial,
    Uk,
}

impl Units {
    /// The system when neither the call nor the configuration names one.
    pub const DEFAULT: Units = Units::Metric;
}

impl Named for Units {
    const ALL: &'static [Units] = &[Units::Metric, Units::Imperial, Units::Uk];
    const WHAT: &'static str = "units";

    fn name(self) -> &'static str {
        match self {
            Units::Metric => "metric",
            Units::Imperial => "imperial",
            Units::Uk => "uk",
        }
    }
}

crate::named_serde!(Units);

/// Pounds per kilogram (exact by definition of the pound: 0.45359237 kg).
pub const LB_PER_KG: f64 = 1.0 / 0.453_592_37;
/// Feet per metre (the foot is exactly 0.3048 m).
pub const FT_PER_M: f64 = 1.0 / 0.3048;
/// Miles per kilometre (the mile is exactly 1.609344 km).
pub const MI_PER_KM: f64 = 1.0 / 1.609_344;

/// Converts `value` in `si_unit` for `units`: kg → lb (imperial and UK; use [`format_quantity`]
/// for "X st Y lb"), m → ft, km → mi (imperial and UK), °C → °F (imperial only). Other labels are
/// returned unchanged. `None` for NaN or infinite input (or a result that overflows).
pub fn convert(value: f64, si_unit: &str, units: Units) -> Option<(f64, &str)> {
    if !value.is_finite() {
        return None;
    }
    let out = match (si_unit, units) {
        (_, Units::Metric) => (value, si_unit),
        ("kg", _) => (value * LB_PER_KG, "lb"),
        ("m", _) => (value * FT_PER_M, "ft"),
        ("km", _) => (value * MI_PER_KM, "mi"),
        ("°C", Units::Imperial) => (value * 9.0 / 5.0 + 32.0, "°F"),
        _ => (value, si_unit),
    };
    out.0.is_finite().then_some(out)
}

/// A distance in metres as km (metric) or miles (imperial, UK).
pub fn distance(metres: f64, units: Units) -> Option<(f64, &'static str)> {
    match convert(metres / 1000.0, "km", units)? {
        (v, "mi") => Some((v, "mi")),
        (v, _) => Some((v, "km")),
    }
}

/// A human string with the unit on every number: "72.45 kg", "159.72 lb", "11 st 5.7 lb",
/// "5 ft 10 in", "98.6 °F", "21.9 %". Up to `decimals` places, trailing zeros trimmed.
/// `None` for non-finite input.
pub fn format_quantity(value: f64, si_unit: &str, units: Units, decimals: u32) -> Option<String> {
    let (v, unit) = convert(value, si_unit, units)?;
    let text = match (si_unit, units) {
        ("kg", Units::Uk) => stones(v),
        ("m", Units::Imperial | Units::Uk) => {
            let inches_total = (value * FT_PER_M * 12.0).round();
            let feet = (inches_total / 12.0).floor();
            format!("{} ft {} in", fmt_num(feet, 0), fmt_num(inches_total - feet * 12.0, 0))
        }
        _ if unit.is_empty() => fmt_num(v, decimals),
        _ => {
            let mut text = fmt_num(v, decimals);
            text.push(' ');
            text.push_str(unit);
            text
        }
    };
    Some(text)
}

/// The unit a body mass reads in for `units`: "kg", "lb", or "st lb" (stones and pounds) in the
/// UK. Numbers in JSON stay one number in `convert`'s unit; this names how the text shows them.
pub fn mass_display_unit(units: Units) -> &'static str {
    match units {
        Units::Metric => "kg",
        Units::Imperial => "lb",
        Units::Uk => "st lb",
    }
}

/// Pounds as a body mass is said in the UK: "11 st 5.7 lb", pounds alone under a stone ("6.4 lb",
/// not "0 st 6.4 lb"); a negative mass (a change) keeps its sign in front ("-1 st 2 lb").
pub fn stones(lb: f64) -> String {
    let total = round_to(lb.abs(), 1);
    let sign = if lb < 0.0 && total > 0.0 { "-" } else { "" };
    let st = (total / 14.0).floor();
    let pounds = round_to(total - st * 14.0, 1);
    match st {
        0.0 => format!("{sign}{} lb", fmt_num(pounds, 1)),
        _ => format!("{sign}{} st {} lb", fmt_num(st, 0), fmt_num(pounds, 1)),
    }
}

/// A signed mass change in kilograms shown in `units`: "+0.27 kg", "-0.59 lb", "-1 st 2 lb"
/// (converted first, rounded last: never a conversion of rounded kilograms).
pub fn mass_change(kg: f64, dp: u32, units: Units) -> Option<String> {
    let (v, unit) = convert(kg, "kg", units)?;
    let body = match units {
        Units::Uk => stones(v),
        _ => format!("{} {unit}", grouped(round_to(v, dp as i32), dp as usize)),
    };
    Some(match body.starts_with('-') || body.trim_start_matches(['0', '.']).starts_with(' ') {
        true => body,
        false => format!("+{body}"),
    })
}

/// A number with thousands separators and exactly `dp` decimals ("9,210", "-1,234.5"): every
/// count of steps or kcal a person reads, in briefs and lists alike.
pub fn grouped(x: f64, dp: usize) -> String {
    let raw = format!("{:.*}", dp, x.abs());
    let (int, frac) = raw.split_once('.').unwrap_or((&raw, ""));
    let mut out = String::new();
    if x < 0.0 && raw.chars().any(|c| c.is_ascii_digit() && c != '0') {
        out.push('-');
    }
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if !frac.is_empty() {
        out.push('.');
        out.push_str(frac);
    }
    out
}

/// Formats with at most `decimals` places and no trailing zeros ("-0" becomes "0").
pub fn fmt_num(v: f64, decimals: u32) -> String {
    // Up to three places, `v` scaled and rounded to an integer gives the formatter's digits
    // unless the scaled value is near a tie (the formatter rounds the exact binary value, the
    // product may be off by half a unit in the last place): a thousand listed weigh-ins' eight
    // figures each through the formatter's exact mode were 16 M instructions.
    if let Some(scale) = [1.0, 10.0, 100.0, 1000.0].get(decimals as usize) {
        let scaled = v * scale;
        let whole = scaled.round();
        if whole.abs() < 1e15 && ((scaled - scaled.trunc()).abs() - 0.5).abs() > 1e-6 {
            return fixed(whole as i64, decimals as usize);
        }
    }
    let s = format!("{:.*}", decimals as usize, v);
    let s = match s.contains('.') {
        true => s.trim_end_matches('0').trim_end_matches('.').to_string(),
        false => s,
    };
    match s.as_str() {
        "-0" => "0".to_string(),
        _ => s,
    }
}

/// `n` / 10^`places` in decimals without trailing zeros; zero without a sign. Written digit by
/// digit: through the formatter, a figure cost two `format!`s.
fn fixed(n: i64, places: usize) -> String {
    // At most 20 digits for any i64, and `places` (at most 3) leaves room before the point.
    let mut digits = [b'0'; 24];
    let mut at = digits.len();
    let mut rest = n.unsigned_abs();
    while (rest > 0 || digits.len() - at <= places) && at > 0 {
        at -= 1;
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
    }
    let shown = digits.get(at..).unwrap_or_default();
    let (int, frac) = shown.split_at(shown.len().saturating_sub(places));
    let frac = frac.iter().rposition(|d| *d != b'0').map_or(&[][..], |last| &frac[..=last]);
    let mut out = String::with_capacity(shown.len() + 2);
    if n < 0 {
        out.push('-');
    }
    out.extend(int.iter().map(|d| char::from(*d)));
    if !frac.is_empty() {
        out.push('.');
        out.extend(frac.iter().map(|d| char::from(*d)));
    }
    out
}

/// `v` rounded to `decimals` places, half away from zero (as every JSON figure is rounded).
pub fn round_to(v: f64, decimals: i32) -> f64 {
    let p = 10f64.powi(decimals);
    (v * p).round() / p
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fast path writes what the formatter writes, near ties and far from them.
    #[test]
    fn numbers_are_formatted_as_the_formatter_rounds() {
        let slow = |v: f64, d: u32| {
            let s = format!("{:.*}", d as usize, v);
            let s =
                if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_string() } else { s };
            if s == "-0" { "0".to_string() } else { s }
        };
        let mut cases =
            vec![0.0, -0.0, 0.5, 1.5, 2.5, -2.5, 0.125, 0.375, 72.45, 72.449999, 1e14, -1e-9, 0.05, 0.15];
        // A sweep over three places and signs: ties, near-ties and the float grid between.
        for i in -30_000..30_000 {
            cases.push(f64::from(i) * 0.0005);
            cases.push(f64::from(i) * 0.0137 + 0.00049999);
        }
        for v in cases {
            for d in 0..=4 {
                assert_eq!(fmt_num(v, d), slow(v, d), "{v} to {d} places");
            }
        }
        assert_eq!((fmt_num(f64::NAN, 1), fmt_num(-f64::INFINITY, 0)), ("NaN".into(), "-inf".into()));
    }

    #[test]
    fn parse_units() {
        assert_eq!(Units::parse("UK"), Ok(Units::Uk));
        assert_eq!("imperial".parse::<Units>(), Ok(Units::Imperial));
        assert_eq!(Units::parse("metric").map(Units::name), Ok("metric"));
        let err = Units::parse("stones").unwrap_err();
        assert!(err.contains("stones") && err.contains("metric, imperial or uk"));
    }

    #[test]
    fn conversions() {
        let cases: [(f64, &str, Units, f64, &str); 10] = [
            (72.45, "kg", Units::Metric, 72.45, "kg"),
            (72.45, "kg", Units::Imperial, 159.7250, "lb"),
            (72.45, "kg", Units::Uk, 159.7250, "lb"),
            (1.78, "m", Units::Imperial, 5.8399, "ft"),
            (10.0, "km", Units::Uk, 6.2137, "mi"),
            (37.0, "°C", Units::Imperial, 98.6, "°F"),
            (37.0, "°C", Units::Uk, 37.0, "°C"),
            (21.9, "%", Units::Imperial, 21.9, "%"),
            (121.0, "mmHg", Units::Uk, 121.0, "mmHg"),
            (62.0, "bpm", Units::Imperial, 62.0, "bpm"),
        ];
        for (v, si, u, want, label) in cases {
            let (got, l) = convert(v, si, u).unwrap();
            assert!((got - want).abs() < 1e-3, "{v} {si} {u:?}: {got}");
            assert_eq!(l, label);
        }
        for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            assert_eq!(convert(bad, "kg", Units::Metric), None);
            assert_eq!(format_quantity(bad, "kg", Units::Uk, 1), None);
        }
        assert_eq!(convert(f64::MAX, "kg", Units::Imperial), None);
        assert_eq!(distance(6120.5, Units::Metric), Some((6.1205, "km")));
        assert_eq!(distance(1609.344, Units::Imperial), Some((1.0, "mi")));
    }

    #[test]
    fn grouping() {
        for (x, dp, want) in
            [(17577.0, 0, "17,577"), (-1234.56, 1, "-1,234.6"), (999.4, 0, "999"), (-0.04, 1, "0.0")]
        {
            assert_eq!(grouped(x, dp), want);
        }
    }

    #[test]
    fn formatting() {
        let cases = [
            (72.45, "kg", Units::Metric, 2, "72.45 kg"),
            (72.45, "kg", Units::Imperial, 1, "159.7 lb"),
            (72.45, "kg", Units::Uk, 1, "11 st 5.7 lb"),
            (63.5029, "kg", Units::Uk, 1, "10 st 0 lb"),
            (2.9, "kg", Units::Uk, 1, "6.4 lb"),
            (1.78, "m", Units::Imperial, 2, "5 ft 10 in"),
            (1.78, "m", Units::Metric, 2, "1.78 m"),
            (37.0, "°C", Units::Imperial, 1, "98.6 °F"),
            (21.875, "%", Units::Uk, 1, "21.9 %"),
            (8.5, "", Units::Metric, 1, "8.5"),
            (-0.01, "kg", Units::Metric, 1, "0 kg"),
            (62.0, "bpm", Units::Metric, 0, "62 bpm"),
        ];
        for (v, si, u, d, want) in cases {
            assert_eq!(format_quantity(v, si, u, d).as_deref(), Some(want), "{v} {si} {u:?}");
        }
    }

    #[test]
    fn stones_and_signed_changes() {
        for (lb, want) in
            [(168.36, "12 st 0.4 lb"), (-6.86, "-6.9 lb"), (-16.0, "-1 st 2 lb"), (-0.04, "0 lb")]
        {
            assert_eq!(stones(lb), want);
        }
        // 0.2689 kg is 0.5928 lb: "+0.59", where rounded kilograms (0.27) would say "+0.60".
        for (kg, u, dp, want) in [
            (0.2689, Units::Imperial, 2, "+0.59 lb"),
            (-0.2689, Units::Metric, 2, "-0.27 kg"),
            (-7.3, Units::Uk, 2, "-1 st 2.1 lb"),
            (0.001, Units::Uk, 2, "0 lb"),
            (0.0, Units::Metric, 2, "0.00 kg"),
        ] {
            assert_eq!(mass_change(kg, dp, u).as_deref(), Some(want), "{kg} {u:?}");
        }
    }
}
