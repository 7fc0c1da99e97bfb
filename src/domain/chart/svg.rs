//! A standalone SVG line chart of readings, rejected readings and a trend line.
//!
//! Pure and dependency-free. Every number is written with fixed decimals and every element in a
//! fixed order, so the same spec gives the same bytes. Units and date labels are the caller's:
//! values arrive already in the display unit, and x ticks arrive already labelled.
#![warn(clippy::indexing_slicing)]

use std::fmt::Write;

/// One plotted value at Unix seconds `t`, in the display unit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChartPoint {
    pub t: i64,
    pub value: f64,
}

/// A labelled position on the time axis (e.g. local midnight and "12 Mar").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct XTick {
    pub t: i64,
    pub label: String,
}

/// Everything the chart shows. Non-finite values are skipped.
#[derive(Debug, Clone, PartialEq)]
pub struct ChartSpec {
    /// Pixels; clamped to 320..=4000 and 200..=3000.
    pub width: u32,
    pub height: u32,
    pub title: String,
    /// A second line under the title (e.g. the verdict); empty for none.
    pub subtitle: String,
    /// The y-axis label, including the unit: "Weight (kg)".
    pub y_label: String,
    /// Labelled time positions; ticks outside the data range are dropped and crowded labels
    /// thinned. See [`day_ticks`] for choosing them.
    pub x_ticks: Vec<XTick>,
    pub readings: Vec<ChartPoint>,
    /// Drawn as red crosses; ones beyond the y range (a 700 kg weigh-in) sit on the edge as red
    /// triangles instead of squashing the scale.
    pub rejected: Vec<ChartPoint>,
    pub trend: Vec<ChartPoint>,
}

/// A 1-2-5 axis: from `min` to `max` in steps of `step`, labels with `decimals` decimals.
#[derive(Debug, Clone, PartialEq)]
pub struct NiceScale {
    pub min: f64,
    pub max: f64,
    pub step: f64,
    pub decimals: usize,
    pub ticks: Vec<f64>,
}

/// Renders the chart as a complete SVG document (starting with `<svg`, ending with a newline).
pub fn line_chart(spec: &ChartSpec) -> String {
    let width = f64::from(spec.width.clamp(320, 4000));
    let height = f64::from(spec.height.clamp(200, 3000));
    let readings = finite(&spec.readings);
    let rejected = finite(&spec.rejected);
    let trend = finite(&spec.trend);

    let mut svg = String::new();
    let _ = writeln!(
        svg,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" \
         font-family=\"sans-serif\" role=\"img\">",
        w = num(width, 0),
        h = num(height, 0)
    );
    let _ = writeln!(svg, "<title>{}</title>", escape(&spec.title));
    let _ = writeln!(svg, "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>");
    let max_chars = ((width - 24.0) / 8.5).max(8.0) as usize;
    let _ = writeln!(
        svg,
        "<text x=\"12\" y=\"24\" font-size=\"15\" font-weight=\"bold\" fill=\"#222222\">{}</text>",
        escape(&truncate(&spec.title, max_chars))
    );
    let has_subtitle = !spec.subtitle.is_empty();
    if has_subtitle {
        let _ = writeln!(
            svg,
            "<text x=\"12\" y=\"42\" font-size=\"12\" fill=\"#555555\">{}</text>",
            escape(&truncate(&spec.subtitle, max_chars * 15 / 12))
        );
    }

    let Some((t_lo, t_hi)) = time_range(&[&readings, &rejected, &trend]) else {
        let _ = writeln!(
            svg,
            "<text x=\"{}\" y=\"{}\" font-size=\"14\" fill=\"#777777\" text-anchor=\"middle\">no data</text>",
            num(width / 2.0, 1),
            num(height / 2.0, 1)
        );
        svg.push_str("</svg>\n");
        return svg;
    };

    let top = if has_subtitle { 60.0 } else { 44.0 };
    let bottom = height - 58.0;
    let scale_source: Vec<f64> = if readings.is_empty() && trend.is_empty() {
        rejected.iter().map(|p| p.value).collect()
    } else {
        readings.iter().chain(&trend).map(|p| p.value).collect()
    };
    let (v_lo, v_hi) = value_range(&scale_source);
    let target = ((bottom - top) / 45.0).floor().clamp(3.0, 10.0) as usize;
    let y = nice_scale(v_lo, v_hi, target);
    let y_labels: Vec<String> = y.ticks.iter().map(|v| num(*v, y.decimals)).collect();
    let label_w = y_labels.iter().map(|l| text_width(l, 11.0)).fold(0.0, f64::max);
    let left = (label_w + 38.0).max(56.0);
    let right = width - 20.0;

    let frame = Frame { width, left, right, top, bottom, t_lo, t_hi, v_lo: y.min, v_hi: y.max };

    // Horizontal gridlines and y labels.
    svg.push_str("<g class=\"y-axis\" font-size=\"11\" fill=\"#444444\" text-anchor=\"end\">\n");
    for (v, label) in y.ticks.iter().zip(&y_labels) {
        let py = frame.y(*v);
        let _ = writeln!(
            svg,
            "<line x1=\"{l}\" y1=\"{py}\" x2=\"{r}\" y2=\"{py}\" stroke=\"#e3e3e3\"/>",
            l = num(left, 1),
            r = num(right, 1),
            py = num(py, 1)
        );
        let _ =
            writeln!(svg, "<text x=\"{}\" y=\"{}\">{}</text>", num(left - 6.0, 1), num(py + 4.0, 1), label);
    }
    svg.push_str("</g>\n");
    let mid = (top + bottom) / 2.0;
    let _ = writeln!(
        svg,
        "<text x=\"16\" y=\"{m}\" font-size=\"12\" fill=\"#333333\" text-anchor=\"middle\" \
         transform=\"rotate(-90 16 {m})\">{}</text>",
        escape(&spec.y_label),
        m = num(mid, 1)
    );

    // Vertical gridlines and x labels.
    svg.push_str("<g class=\"x-axis\" font-size=\"11\" fill=\"#444444\" text-anchor=\"middle\">\n");
    for tick in visible_ticks(&spec.x_ticks, &frame) {
        let px = frame.x(tick.t);
        let _ = writeln!(
            svg,
            "<line x1=\"{px}\" y1=\"{t}\" x2=\"{px}\" y2=\"{b}\" stroke=\"#eeeeee\"/>",
            px = num(px, 1),
            t = num(top, 1),
            b = num(bottom, 1)
        );
        let _ = writeln!(
            svg,
            "<text x=\"{}\" y=\"{}\">{}</text>",
            num(px, 1),
            num(bottom + 16.0, 1),
            escape(&tick.label)
        );
    }
    svg.push_str("</g>\n");
    let _ = writeln!(
        svg,
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#999999\"/>",
        num(left, 1),
        num(top, 1),
        num(right - left, 1),
        num(bottom - top, 1)
    );

    // Data: readings under the trend, rejected on top so they stay visible.
    let r = if readings.len() > 400 { 1.8 } else { 2.6 };
    svg.push_str("<g class=\"readings\" fill=\"#4a78c2\" fill-opacity=\"0.55\">\n");
    for p in &readings {
        let _ = writeln!(
            svg,
            "<circle cx=\"{}\" cy=\"{}\" r=\"{}\"/>",
            num(frame.x(p.t), 1),
            num(frame.y(p.value), 1),
            r
        );
    }
    svg.push_str("</g>\n");
    svg.push_str(&trend_line(&frame, &trend));
    svg.push_str("<g class=\"rejected\" stroke=\"#d62728\" stroke-width=\"1.6\" fill=\"none\">\n");
    for p in &rejected {
        svg.push_str(&rejected_marker(&frame, *p));
    }
    svg.push_str("</g>\n");

    let off_scale = rejected.iter().any(|p| !(y.min..=y.max).contains(&p.value));
    svg.push_str(&legend(width, height, !readings.is_empty(), !trend.is_empty(), rejected.len(), off_scale));
    svg.push_str("</svg>\n");
    svg
}

/// A 1-2-5 scale covering `[lo, hi]` with at most about `max_ticks` ticks. A zero or non-finite
/// range is widened so that the result always has at least two distinct ticks.
pub fn nice_scale(lo: f64, hi: f64, max_ticks: usize) -> NiceScale {
    let (mut lo, mut hi) = match (lo.is_finite(), hi.is_finite()) {
        (true, true) if lo <= hi => (lo, hi),
        (true, true) => (hi, lo),
        (true, false) => (lo, lo),
        (false, true) => (hi, hi),
        (false, false) => (0.0, 1.0),
    };
    // Beyond this, hi − lo could overflow; no chart needs it.
    (lo, hi) = (lo.clamp(-1e15, 1e15), hi.clamp(-1e15, 1e15));
    let magnitude = lo.abs().max(hi.abs()).max(1.0);
    if hi - lo < magnitude * 1e-9 {
        let c = (lo + hi) / 2.0;
        let pad = (c.abs() * 0.01).max(1.0);
        (lo, hi) = (c - pad, c + pad);
    }
    let intervals = max_ticks.clamp(2, 50) as f64 - 1.0;
    let rough = (hi - lo) / intervals;
    let exp = rough.log10().floor();
    let base = 10f64.powf(exp);
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * base)
        .find(|s| *s >= rough * (1.0 - 1e-12))
        .unwrap_or(10.0 * base);
    let k_lo = (lo / step + 1e-9).floor();
    let k_hi = (hi / step - 1e-9).ceil().max(k_lo + 1.0);
    let decimals = (-(step.log10() + 1e-9).floor()).clamp(0.0, 9.0) as usize;
    let ticks = (0..=((k_hi - k_lo) as usize)).map(|i| clean((k_lo + i as f64) * step, decimals)).collect();
    NiceScale { min: clean(k_lo * step, decimals), max: clean(k_hi * step, decimals), step, decimals, ticks }
}

/// Day indices (days since 1970-01-01 in the caller's zone) for x ticks between `first_day` and
/// `last_day`: the smallest step of 1, 2, 7, 14, 28, 56, 91, 182 or 364 days that gives at most
/// `max_ticks`, with weekly steps on Mondays. The caller turns each into a local midnight and label.
pub fn day_ticks(first_day: i64, last_day: i64, max_ticks: usize) -> Vec<i64> {
    if last_day < first_day || max_ticks == 0 {
        return Vec::new();
    }
    let span = last_day.saturating_sub(first_day).saturating_add(1);
    let step = [1, 2, 7, 14, 28, 56, 91, 182, 364]
        .into_iter()
        .find(|s| (span - 1) / s < max_ticks as i64)
        .unwrap_or_else(|| 364 * (span / 364 / max_ticks.max(1) as i64 + 1));
    // 1970-01-01 was a Thursday, so day −3 was a Monday.
    let anchor = if step % 7 == 0 { -3 } else { 0 };
    let first = first_day + (anchor - first_day).rem_euclid(step);
    (0..).map(|i| first + i * step).take_while(|d| *d <= last_day).take(max_ticks).collect()
}

// ---------------------------------------------------------------------------------------------
// Internals.

struct Frame {
    width: f64,
    left: f64,
    right: f64,
    top: f64,
    bottom: f64,
    t_lo: f64,
    t_hi: f64,
    v_lo: f64,
    v_hi: f64,
}

impl Frame {
    fn x(&self, t: i64) -> f64 {
        let span = self.t_hi - self.t_lo;
        if span <= 0.0 {
            return (self.left + self.right) / 2.0;
        }
        self.left + (t as f64 - self.t_lo) / span * (self.right - self.left)
    }

    /// Unclamped: callers clamp where off-scale values must stay on the edge.
    fn y(&self, v: f64) -> f64 {
        let span = self.v_hi - self.v_lo;
        if span <= 0.0 {
            return (self.top + self.bottom) / 2.0;
        }
        self.bottom - (v - self.v_lo) / span * (self.bottom - self.top)
    }
}

fn finite(points: &[ChartPoint]) -> Vec<ChartPoint> {
    points.iter().copied().filter(|p| p.value.is_finite()).collect()
}

/// The time range of all series, padded by 2% (half a day when there is one instant) so edge
/// markers are not cut by the frame.
fn time_range(series: &[&Vec<ChartPoint>]) -> Option<(f64, f64)> {
    let times = series.iter().flat_map(|s| s.iter().map(|p| p.t));
    let (lo, hi) = times.fold(None, |acc: Option<(i64, i64)>, t| match acc {
        None => Some((t, t)),
        Some((a, b)) => Some((a.min(t), b.max(t))),
    })?;
    let (lo, hi) = (lo as f64, hi as f64);
    let pad = if hi > lo { (hi - lo) * 0.02 } else { 43_200.0 };
    Some((lo - pad, hi + pad))
}

/// The value range padded by 4% so points do not sit on the frame.
fn value_range(values: &[f64]) -> (f64, f64) {
    let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if !(lo.is_finite() && hi.is_finite()) {
        return (0.0, 1.0);
    }
    let pad = (hi - lo) * 0.04;
    (lo - pad, hi + pad)
}

/// Ticks inside the frame, sorted, with every n-th kept so that labels never overlap.
fn visible_ticks<'a>(ticks: &'a [XTick], frame: &Frame) -> Vec<&'a XTick> {
    // A label must lie within the document, not merely its tick within the frame.
    let on_page = |k: &XTick| {
        let (x, half) = (frame.x(k.t), text_width(&k.label, 11.0) / 2.0);
        x - half >= 2.0 && x + half <= frame.width - 2.0
    };
    let in_range = |k: &XTick| (k.t as f64) >= frame.t_lo && (k.t as f64) <= frame.t_hi;
    let mut inside: Vec<&XTick> = ticks.iter().filter(|k| in_range(k) && on_page(k)).collect();
    inside.sort_by(|a, b| a.t.cmp(&b.t).then(a.label.cmp(&b.label)));
    let widest = inside.iter().map(|k| text_width(&k.label, 11.0)).fold(0.0, f64::max);
    let mut stride = 1;
    loop {
        let kept: Vec<&XTick> = inside.iter().copied().step_by(stride).collect();
        let fits = kept.windows(2).all(|w| match w {
            [a, b] => frame.x(b.t) - frame.x(a.t) >= widest + 8.0,
            _ => true,
        });
        if fits || kept.len() <= 1 {
            return kept;
        }
        stride += 1;
    }
}

/// Trend gaps longer than this are drawn dashed: the EWMA is only known where readings are.
pub const TREND_GAP_SECS: i64 = 14 * 86_400;

/// The trend as solid polylines, split where readings are more than [`TREND_GAP_SECS`] apart,
/// with thin dashed lines across the gaps.
fn trend_line(frame: &Frame, trend: &[ChartPoint]) -> String {
    let mut sorted = trend.to_vec();
    sorted.sort_by(|a, b| a.t.cmp(&b.t).then(a.value.total_cmp(&b.value)));
    let xy = |p: &ChartPoint| format!("{},{}", num(frame.x(p.t), 1), num(frame.y(p.value), 1));
    let mut out = String::new();
    let mut runs: Vec<&[ChartPoint]> =
        sorted.chunk_by(|a, b| b.t.saturating_sub(a.t) <= TREND_GAP_SECS).collect();
    runs.retain(|r| !r.is_empty());
    for pair in runs.windows(2) {
        if let [a, b] = pair
            && let (Some(from), Some(to)) = (a.last(), b.first())
        {
            let _ = writeln!(
                out,
                "<polyline class=\"trend-gap\" points=\"{} {}\" fill=\"none\" stroke=\"#888888\" \
                 stroke-width=\"1.2\" stroke-dasharray=\"4 4\"/>",
                xy(from),
                xy(to)
            );
        }
    }
    for run in runs {
        match run {
            [single] => {
                let _ = writeln!(
                    out,
                    "<circle class=\"trend\" cx=\"{}\" cy=\"{}\" r=\"2\" fill=\"#1b1b1b\"/>",
                    num(frame.x(single.t), 1),
                    num(frame.y(single.value), 1)
                );
            }
            _ => {
                let pts: Vec<String> = run.iter().map(xy).collect();
                let _ = writeln!(
                    out,
                    "<polyline class=\"trend\" points=\"{}\" fill=\"none\" stroke=\"#1b1b1b\" \
                     stroke-width=\"2\" stroke-linejoin=\"round\"/>",
                    pts.join(" ")
                );
            }
        }
    }
    out
}

fn rejected_marker(frame: &Frame, p: ChartPoint) -> String {
    let x = frame.x(p.t);
    let y = frame.y(p.value);
    let tip = format!("<title>rejected: {}</title>", num(p.value, 2));
    if y < frame.top || y > frame.bottom {
        // Off scale: a triangle just inside the edge, pointing towards where the value lies,
        // so it never collides with the title or the x labels.
        let (edge, dir) = if y < frame.top { (frame.top, -1.0) } else { (frame.bottom, 1.0) };
        let base = edge - dir * 9.0;
        return format!(
            "<path d=\"M{} {} L{} {} L{} {} Z\" fill=\"#d62728\" stroke=\"none\">{tip}</path>\n",
            num(x - 4.5, 1),
            num(base, 1),
            num(x + 4.5, 1),
            num(base, 1),
            num(x, 1),
            num(edge - dir * 1.5, 1)
        );
    }
    format!(
        "<path d=\"M{} {} L{} {} M{} {} L{} {}\">{tip}</path>\n",
        num(x - 3.5, 1),
        num(y - 3.5, 1),
        num(x + 3.5, 1),
        num(y + 3.5, 1),
        num(x - 3.5, 1),
        num(y + 3.5, 1),
        num(x + 3.5, 1),
        num(y - 3.5, 1)
    )
}

fn legend(width: f64, height: f64, readings: bool, trend: bool, rejected: usize, off_scale: bool) -> String {
    let y = height - 14.0;
    let mut x = 12.0;
    let mut out = String::from("<g class=\"legend\" font-size=\"11\" fill=\"#444444\">\n");
    if readings {
        let _ = writeln!(
            out,
            "<circle cx=\"{}\" cy=\"{}\" r=\"3\" fill=\"#4a78c2\" fill-opacity=\"0.55\"/>",
            num(x + 4.0, 1),
            num(y - 4.0, 1)
        );
        let _ = writeln!(out, "<text x=\"{}\" y=\"{}\">readings</text>", num(x + 12.0, 1), num(y, 1));
        x += 80.0;
    }
    if trend {
        let _ = writeln!(
            out,
            "<line x1=\"{}\" y1=\"{y}\" x2=\"{}\" y2=\"{y}\" stroke=\"#1b1b1b\" stroke-width=\"2\"/>",
            num(x, 1),
            num(x + 16.0, 1),
            y = num(y - 4.0, 1)
        );
        let _ = writeln!(out, "<text x=\"{}\" y=\"{}\">trend</text>", num(x + 22.0, 1), num(y, 1));
        x += 70.0;
    }
    if rejected > 0 {
        let _ = writeln!(
            out,
            "<path d=\"M{} {} L{} {} M{} {} L{} {}\" stroke=\"#d62728\" stroke-width=\"1.6\"/>",
            num(x + 0.5, 1),
            num(y - 7.5, 1),
            num(x + 7.5, 1),
            num(y - 0.5, 1),
            num(x + 0.5, 1),
            num(y - 0.5, 1),
            num(x + 7.5, 1),
            num(y - 7.5, 1)
        );
        let long = "rejected (▲▼ off scale)";
        let label =
            if off_scale && x + 12.0 + text_width(long, 11.0) <= width - 4.0 { long } else { "rejected" };
        let _ = writeln!(out, "<text x=\"{}\" y=\"{}\">{label}</text>", num(x + 12.0, 1), num(y, 1));
    }
    out.push_str("</g>\n");
    out
}

/// Fixed-decimal formatting without "-0" and without NaN (which cannot reach here, but a bad
/// number must never corrupt the document).
fn num(x: f64, decimals: usize) -> String {
    if !x.is_finite() {
        return "0".to_string();
    }
    let s = format!("{x:.decimals$}");
    if s.starts_with('-') && s.bytes().all(|b| matches!(b, b'-' | b'0' | b'.')) {
        return s.trim_start_matches('-').to_string();
    }
    s
}

/// Rounds away the 0.30000000000000004 of `k·step` so equality and labels are clean.
fn clean(x: f64, decimals: usize) -> f64 {
    num(x, decimals).parse().unwrap_or(x)
}

/// A rough width for sans-serif text: 0.58 em per character.
fn text_width(s: &str, font_px: f64) -> f64 {
    s.chars().count() as f64 * font_px * 0.58
}

fn truncate(s: &str, max_chars: usize) -> String {
    if s.chars().count() <= max_chars {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max_chars.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// Escapes text for element content and attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // Control characters other than tab and newline are not allowed in XML 1.0.
            c if c.is_control() && c != '\t' && c != '\n' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY: i64 = 86_400;
    const T0: i64 = 1_767_225_600; // 2026-01-01T00:00:00Z, day 20454

    /// Checks that tags nest: every `<x …>` is closed by `</x>` in order, `<x …/>` closes itself.
    fn assert_well_formed(svg: &str) {
        assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""), "{svg}");
        assert!(svg.contains("viewBox=\"0 0 "));
        assert!(svg.ends_with("</svg>\n"));
        for bad in ["NaN", "inf", "-0 ", "-0\"", "-0.0"] {
            assert!(!svg.contains(bad), "{bad} in {svg}");
        }
        let mut stack: Vec<String> = Vec::new();
        let mut rest = svg;
        while let Some(open) = rest.find('<') {
            let close = rest[open..].find('>').expect("unterminated tag") + open;
            let tag = &rest[open + 1..close];
            assert!(!tag.contains('<'), "stray < in {tag}");
            if let Some(name) = tag.strip_prefix('/') {
                assert_eq!(stack.pop().as_deref(), Some(name), "mismatched </{name}>");
            } else if !tag.ends_with('/') {
                stack.push(tag.split_whitespace().next().unwrap().to_string());
            }
            let text = &rest[close + 1..];
            rest = text;
            // Text between tags must not contain a bare ampersand.
            let until = text.find('<').unwrap_or(text.len());
            for (i, _) in text[..until].match_indices('&') {
                let entity = &text[i..until];
                assert!(["&amp;", "&lt;", "&gt;", "&quot;", "&apos;"].iter().any(|e| entity.starts_with(e)));
            }
        }
        assert!(stack.is_empty(), "unclosed {stack:?}");
    }

    fn noise(n: usize) -> Vec<f64> {
        let mut x: u64 = 99;
        (0..n)
            .map(|_| {
                x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                ((x >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * 1.2
            })
            .collect()
    }

    fn sample() -> ChartSpec {
        let n = 70;
        let e = noise(n);
        let readings: Vec<ChartPoint> = (0..n)
            .map(|d| ChartPoint {
                t: T0 + d as i64 * DAY + 7 * 3600,
                value: 84.0 - 0.6 / 7.0 * d as f64 + e[d],
            })
            .collect();
        let mut trend = Vec::new();
        let mut s = readings[0].value;
        for p in &readings {
            s += 0.1 * (p.value - s);
            trend.push(ChartPoint { t: p.t, value: s });
        }
        let rejected = vec![
            ChartPoint { t: T0 + 40 * DAY + 8 * 3600, value: 84.4 },
            ChartPoint { t: T0 + 41 * DAY + 8 * 3600, value: 700.0 },
            ChartPoint { t: T0 + 55 * DAY + 8 * 3600, value: 7.0 },
        ];
        let x_ticks = day_ticks(20454, 20454 + n as i64, 10)
            .into_iter()
            .map(|d| XTick { t: d * DAY, label: format!("day {}", d - 20454) })
            .collect();
        ChartSpec {
            width: 720,
            height: 360,
            title: "Weight — trend <falling> & steady".to_string(),
            subtitle: "falling −0.60 kg/week (95% −0.66 to −0.54), 70 readings, 3 rejected".to_string(),
            y_label: "Weight (kg)".to_string(),
            x_ticks,
            readings,
            rejected,
            trend,
        }
    }

    #[test]
    fn chart_is_well_formed_and_deterministic() {
        let spec = sample();
        let svg = line_chart(&spec);
        assert_well_formed(&svg);
        assert_eq!(svg, line_chart(&spec.clone()));
        assert_eq!(svg.matches("<circle").count(), 70 + 1); // readings + legend
        assert_eq!(svg.matches("<polyline").count(), 1);
        assert_eq!(svg.matches("<title>rejected").count(), 3);
        // The 700 kg and 7 kg weigh-ins sit on the edges as triangles; the scale ignores them.
        assert_eq!(svg.matches(" Z\" fill=\"#d62728\"").count(), 2);
        assert!(!svg.contains(">700<") && !svg.contains(">100<") && svg.contains(">80<"), "{svg}");
        if let Ok(path) = std::env::var("TREND_CHART_OUT") {
            std::fs::write(path, &svg).unwrap();
        }
    }

    #[test]
    fn trend_breaks_across_long_gaps() {
        let mut spec = sample();
        spec.trend.retain(|p| !(T0 + 20 * DAY..T0 + 40 * DAY).contains(&p.t));
        spec.trend.push(ChartPoint { t: T0 + 100 * DAY, value: 79.0 });
        let svg = line_chart(&spec);
        assert_well_formed(&svg);
        assert_eq!(svg.matches("class=\"trend\"").count(), 3);
        assert_eq!(svg.matches("class=\"trend\" cx=").count(), 1);
        assert_eq!(svg.matches("class=\"trend-gap\"").count(), 2);
        let mut shuffled = spec.clone();
        shuffled.trend.reverse();
        assert_eq!(line_chart(&shuffled), svg);
    }

    #[test]
    fn text_is_escaped() {
        let mut spec = sample();
        spec.title = "<script>alert('x')</script> & \"q\"".to_string();
        spec.y_label = "a<b".to_string();
        spec.x_ticks = vec![XTick { t: T0 + 10 * DAY, label: "x&y\u{7}".to_string() }];
        let svg = line_chart(&spec);
        assert_well_formed(&svg);
        assert!(!svg.contains("<script"));
        assert!(svg.contains("&lt;script&gt;alert(&apos;x&apos;)&lt;/script&gt; &amp; &quot;q&quot;"));
        assert!(svg.contains(">a&lt;b<") && svg.contains(">x&amp;y\u{FFFD}<"));
    }

    #[test]
    fn empty_and_degenerate_inputs_still_give_valid_svg() {
        let mut empty = sample();
        empty.readings.clear();
        empty.rejected.clear();
        empty.trend = vec![ChartPoint { t: T0, value: f64::NAN }];
        let svg = line_chart(&empty);
        assert_well_formed(&svg);
        assert!(svg.contains(">no data<"));

        let cases = [
            vec![ChartPoint { t: T0, value: 70.0 }],
            vec![ChartPoint { t: T0, value: 70.0 }, ChartPoint { t: T0 + DAY, value: 70.0 }],
            vec![ChartPoint { t: T0, value: -1e300 }, ChartPoint { t: T0 + DAY, value: 1e300 }],
            vec![ChartPoint { t: i64::MIN, value: 0.0 }, ChartPoint { t: i64::MAX, value: f64::INFINITY }],
        ];
        for readings in cases {
            let mut spec = sample();
            spec.readings = readings;
            spec.trend.clear();
            spec.rejected.clear();
            spec.width = 0;
            spec.height = u32::MAX;
            assert_well_formed(&line_chart(&spec));
        }
        // Only rejected readings: they set the scale themselves.
        let mut only_rejected = sample();
        only_rejected.readings.clear();
        only_rejected.trend.clear();
        assert_well_formed(&line_chart(&only_rejected));
    }

    #[test]
    fn crowded_x_labels_are_thinned() {
        let mut spec = sample();
        spec.width = 320;
        spec.x_ticks = (0..70).map(|d| XTick { t: T0 + d * DAY, label: format!("2026-01-{d:02}") }).collect();
        let svg = line_chart(&spec);
        if let Ok(path) = std::env::var("TREND_CHART_OUT") {
            std::fs::write(format!("{path}.small.svg"), &svg).unwrap();
        }
        assert_well_formed(&svg);
        let shown = svg.matches(">2026-01-").count();
        assert!((2..=4).contains(&shown), "{shown} labels");
        assert!(svg.contains(">2026-01-00<"));
    }

    #[test]
    fn nice_scales_use_1_2_5_steps() {
        let cases: &[(f64, f64, usize, f64, f64, f64, usize)] = &[
            // lo, hi, max_ticks → min, max, step, decimals
            (0.0, 10.0, 6, 0.0, 10.0, 2.0, 0),
            (69.3, 71.8, 6, 69.0, 72.0, 0.5, 1),
            (0.013, 0.047, 5, 0.01, 0.05, 0.01, 2),
            (-3.0, 7.0, 3, -5.0, 10.0, 5.0, 0),
            (1200.0, 9100.0, 5, 0.0, 10000.0, 2000.0, 0),
            (70.0, 70.0, 5, 69.0, 71.0, 0.5, 1),
            (5.0, 1.0, 5, 1.0, 5.0, 1.0, 0),
            (f64::NAN, f64::NAN, 5, 0.0, 1.0, 0.5, 1),
        ];
        for &(lo, hi, n, min, max, step, decimals) in cases {
            let s = nice_scale(lo, hi, n);
            assert_eq!((s.min, s.max, s.decimals), (min, max, decimals), "{lo}..{hi}");
            assert!((s.step - step).abs() < 1e-12, "{lo}..{hi}: {}", s.step);
            assert_eq!(s.ticks.first(), Some(&min));
            assert_eq!(s.ticks.last(), Some(&max));
        }
        assert_eq!(nice_scale(69.3, 71.8, 6).ticks, vec![69.0, 69.5, 70.0, 70.5, 71.0, 71.5, 72.0]);
    }

    #[test]
    fn day_ticks_pick_round_steps() {
        // Day 20454 is Thursday 2026-01-01; Monday 2026-01-05 is day 20458.
        let cases: &[(i64, i64, usize, &[i64])] = &[
            (20454, 20457, 10, &[20454, 20455, 20456, 20457]),
            (20454, 20463, 5, &[20454, 20456, 20458, 20460, 20462]),
            (20454, 20484, 6, &[20458, 20465, 20472, 20479]),
            (20454, 20453, 6, &[]),
            (20454, 20454, 0, &[]),
        ];
        for (first, last, max, want) in cases {
            assert_eq!(day_ticks(*first, *last, *max), want.to_vec(), "{first}..{last} max {max}");
        }
        assert!(day_ticks(0, 100_000, 8).len() <= 8);
    }

    #[test]
    fn numbers_have_fixed_decimals_and_no_negative_zero() {
        let cases = [(0.0, 1, "0.0"), (-0.0, 1, "0.0"), (-0.04, 1, "0.0"), (-0.05, 1, "-0.1"), (2.0, 0, "2")];
        for (x, d, want) in cases {
            assert_eq!(num(x, d), want, "{x}");
        }
        assert_eq!(num(f64::NAN, 2), "0");
    }
}
