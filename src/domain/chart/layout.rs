//! Where everything goes, in pixels, computed once for both renderers: the frame, scales and
//! ticks, points, the noise band, trend runs, rejected markers, legend and every text, with
//! sizes measured by the bitmap font the PNG draws with (the SVG uses the same positions).
#![warn(clippy::indexing_slicing)]

use crate::domain::chart::{ChartPoint, ChartSpec, TREND_GAP_SECS, XTick};
use crate::domain::fields::decimal;
use crate::image::canvas::{Anchor, Pt};
use crate::image::font;

/// The whole picture, ready to draw.
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    pub width: f64,
    pub height: f64,
    /// Pixels per font pixel for labels and for the title; strokes scale with `label_scale`.
    pub label_scale: f64,
    pub title_scale: f64,
    /// The plotting area; `None` when there is no data to plot.
    pub plot: Option<Frame>,
    pub texts: Vec<Text>,
    /// Gridline positions: y of horizontal lines, x of vertical ones.
    pub y_grid: Vec<f64>,
    pub x_grid: Vec<f64>,
    /// The noise band, one polygon per trend run.
    pub band: Vec<Vec<Pt>>,
    pub readings: Vec<Pt>,
    pub reading_radius: f64,
    /// Solid trend runs (a run of one point is drawn as a dot) and dashed joins across gaps.
    pub trend: Vec<Vec<Pt>>,
    pub trend_gaps: Vec<(Pt, Pt)>,
    pub trend_width: f64,
    pub rejected: Vec<Marker>,
    pub legend: Vec<(Key, Pt)>,
    /// The "demo" badge behind its text: `(x, y, w, h)`.
    pub demo_badge: Option<(f64, f64, f64, f64)>,
}

/// The plot rectangle and the data ranges it maps.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Frame {
    pub left: f64,
    pub top: f64,
    pub right: f64,
    pub bottom: f64,
    t_lo: f64,
    t_hi: f64,
    v_lo: f64,
    v_hi: f64,
}

impl Frame {
    pub fn x(&self, t: i64) -> f64 {
        let span = self.t_hi - self.t_lo;
        if span <= 0.0 {
            return (self.left + self.right) / 2.0;
        }
        self.left + (t as f64 - self.t_lo) / span * (self.right - self.left)
    }

    /// Unclamped: callers clamp where off-scale values must stay on the edge.
    pub fn y(&self, v: f64) -> f64 {
        let span = self.v_hi - self.v_lo;
        if span <= 0.0 {
            return (self.top + self.bottom) / 2.0;
        }
        self.bottom - (v - self.v_lo) / span * (self.bottom - self.top)
    }
}

/// One piece of text: baseline position, anchor and role (which sets size and colour).
#[derive(Debug, Clone, PartialEq)]
pub struct Text {
    pub x: f64,
    pub y: f64,
    pub text: String,
    pub anchor: Anchor,
    pub role: Role,
}

/// What a text is for. `AxisLabel` reads upwards, centred on its point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Title,
    Subtitle,
    Tick,
    AxisLabel,
    Legend,
    Demo,
    NoData,
}

/// A rejected reading: a cross where it lies, or a triangle on the edge it is beyond
/// (`Some(true)` above the top, `Some(false)` below the bottom).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Marker {
    pub at: Pt,
    pub value: f64,
    pub beyond_top: Option<bool>,
}

/// A legend symbol, drawn in a square of [`Layout::key_size`] whose top-left is given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    Readings,
    Trend,
    Band,
    Rejected,
}

impl Layout {
    /// Side of a legend symbol's square.
    pub fn key_size(&self) -> f64 {
        7.0 * self.label_scale
    }

    /// Half the arm of a rejected cross, and half the base of an off-scale triangle.
    pub fn marker_size(&self) -> f64 {
        1.75 * self.label_scale
    }

    /// The font scale of a role.
    pub fn scale_of(&self, role: Role) -> f64 {
        match role {
            Role::Title | Role::NoData => self.title_scale,
            _ => self.label_scale,
        }
    }
}

/// Computes the layout of `spec`.
pub fn layout(spec: &ChartSpec) -> Layout {
    let width = f64::from(spec.width.clamp(320, 4000));
    let height = f64::from(spec.height.clamp(160, 3000));
    let k = (width / 800.0).min(height / 400.0);
    let ls = (2.0 * k).round().max(1.0);
    let ts = (3.0 * k).round().max(ls + 1.0);
    let pad = 5.0 * ls;
    let mut out = Layout {
        width,
        height,
        label_scale: ls,
        title_scale: ts,
        plot: None,
        texts: Vec::new(),
        y_grid: Vec::new(),
        x_grid: Vec::new(),
        band: Vec::new(),
        readings: Vec::new(),
        reading_radius: 1.5 * ls,
        trend: Vec::new(),
        trend_gaps: Vec::new(),
        trend_width: 1.25 * ls,
        rejected: Vec::new(),
        legend: Vec::new(),
        demo_badge: None,
    };
    let top = header(&mut out, spec, pad);
    let legend_base = height - pad - 2.0 * ls;
    let tick_base = legend_base - 12.0 * ls;
    let bottom = tick_base - 11.0 * ls;

    let readings = finite(&spec.readings);
    let rejected = finite(&spec.rejected);
    let trend = sorted(finite(&spec.trend));
    let Some((t_lo, t_hi)) = time_range(&[&readings, &rejected, &trend]) else {
        out.texts.push(text(width / 2.0, (top + bottom) / 2.0, "no data", Anchor::Middle, Role::NoData));
        return out;
    };
    let noise = if spec.noise.is_finite() && spec.noise > 0.0 { spec.noise } else { 0.0 };
    let scale_source: Vec<f64> = if readings.is_empty() && trend.is_empty() {
        rejected.iter().map(|p| p.value).collect()
    } else {
        let band = trend.iter().flat_map(|p| [p.value - noise, p.value + noise]);
        readings.iter().map(|p| p.value).chain(band).collect()
    };
    let (v_lo, v_hi) = value_range(&scale_source);
    let target = ((bottom - top) / (22.0 * ls)).floor().clamp(3.0, 10.0) as usize;
    let y = nice_scale(v_lo, v_hi, target);
    let y_labels: Vec<String> = y.ticks.iter().map(|v| num(*v, y.decimals)).collect();
    let label_w = y_labels.iter().map(|l| font::text_width(l, ls)).fold(0.0, f64::max);
    let left = pad + 11.0 * ls + label_w + 3.0 * ls;
    let right = width - pad - 3.0 * ls;
    let frame = Frame { left, top, right, bottom, t_lo, t_hi, v_lo: y.min, v_hi: y.max };
    out.plot = Some(frame);
    axes(&mut out, spec, &frame, (&y.ticks, &y_labels), pad, tick_base);
    series(&mut out, &frame, &readings, &trend, noise);
    for p in &rejected {
        let (x, py) = (frame.x(p.t), frame.y(p.value));
        let beyond_top = match py {
            _ if py < top => Some(true),
            _ if py > bottom => Some(false),
            _ => None,
        };
        out.rejected.push(Marker { at: (x, py.clamp(top, bottom)), value: p.value, beyond_top });
    }
    legend(&mut out, legend_base, !readings.is_empty(), !trend.is_empty(), noise > 0.0, !rejected.is_empty());
    out
}

/// The title line (the title on the left, the demo badge on the right) and the subtitle; returns
/// where the plot may start.
fn header(out: &mut Layout, spec: &ChartSpec, pad: f64) -> f64 {
    let (ls, ts, width) = (out.label_scale, out.title_scale, out.width);
    let title_base = pad + font::CAP * ts;
    let mut title_room = width - 2.0 * pad;
    if spec.demo {
        let w = font::text_width("DEMO", ls) + 6.0 * ls;
        let h = 11.0 * ls;
        let (x, y) = (width - pad - w, title_base - font::CAP * ts);
        out.demo_badge = Some((x, y, w, h));
        out.texts.push(text(x + w / 2.0, y + 2.0 * ls + font::CAP * ls, "DEMO", Anchor::Middle, Role::Demo));
        title_room -= w + 4.0 * ls;
    }
    out.texts.push(text(pad, title_base, &fit(&spec.title, title_room, ts), Anchor::Start, Role::Title));
    let sub_base = title_base + 2.0 * ts + 10.0 * ls;
    if !spec.subtitle.is_empty() {
        let room = width - 2.0 * pad;
        out.texts.push(text(pad, sub_base, &fit(&spec.subtitle, room, ls), Anchor::Start, Role::Subtitle));
    }
    sub_base + 8.0 * ls
}

/// The value grid and its labels, the axis title, and the date ticks along the bottom.
fn axes(out: &mut Layout, spec: &ChartSpec, frame: &Frame, y: (&[f64], &[String]), pad: f64, tick_base: f64) {
    let ls = out.label_scale;
    for (v, label) in y.0.iter().zip(y.1) {
        let py = frame.y(*v);
        out.y_grid.push(py);
        out.texts.push(text(
            frame.left - 3.0 * ls,
            py + font::CAP * ls / 2.0,
            label,
            Anchor::End,
            Role::Tick,
        ));
    }
    let axis = fit_keeping_unit(&spec.y_label, frame.bottom - frame.top, ls);
    out.texts.push(text(
        pad + font::CAP * ls / 2.0,
        (frame.top + frame.bottom) / 2.0,
        &axis,
        Anchor::Middle,
        Role::AxisLabel,
    ));
    for tick in visible_ticks(&spec.x_ticks, frame, out.width, ls) {
        let px = frame.x(tick.t);
        out.x_grid.push(px);
        out.texts.push(text(px, tick_base, &tick.label, Anchor::Middle, Role::Tick));
    }
}

/// The readings, the trend in runs (broken where readings pause), the noise band around each
/// run, and the dashed links across the pauses.
fn series(out: &mut Layout, frame: &Frame, readings: &[ChartPoint], trend: &[ChartPoint], noise: f64) {
    out.readings = readings.iter().map(|p| (frame.x(p.t), frame.y(p.value))).collect();
    if readings.len() > 400 {
        out.reading_radius = 1.1 * out.label_scale;
    }
    let runs: Vec<&[ChartPoint]> = trend.chunk_by(|a, b| b.t.saturating_sub(a.t) <= TREND_GAP_SECS).collect();
    let clamp_y = |v: f64| frame.y(v).clamp(frame.top, frame.bottom);
    for run in &runs {
        out.trend.push(run.iter().map(|p| (frame.x(p.t), frame.y(p.value))).collect());
        if noise > 0.0 && run.len() > 1 {
            let upper = run.iter().map(|p| (frame.x(p.t), clamp_y(p.value + noise)));
            let lower = run.iter().rev().map(|p| (frame.x(p.t), clamp_y(p.value - noise)));
            out.band.push(upper.chain(lower).collect());
        }
    }
    for pair in out.trend.windows(2) {
        if let [a, b] = pair
            && let (Some(&from), Some(&to)) = (a.last(), b.first())
        {
            out.trend_gaps.push((from, to));
        }
    }
}

/// The legend row along the bottom, from the left: symbol, gap, label, space.
fn legend(out: &mut Layout, base: f64, readings: bool, trend: bool, band: bool, rejected: bool) {
    let ls = out.label_scale;
    let items = [
        (readings, Key::Readings, "readings"),
        (trend, Key::Trend, "trend"),
        (band, Key::Band, "noise band"),
        (rejected, Key::Rejected, "rejected (▲▼ off scale)"),
    ];
    let mut x = 5.0 * ls;
    let size = out.key_size();
    let off_scale = out.rejected.iter().any(|m| m.beyond_top.is_some());
    for (shown, key, label) in items {
        // The long form only where it is true and fits; an item that does not fit is left out.
        let label = match key {
            Key::Rejected
                if !off_scale || x + size + 3.0 * ls + font::text_width(label, ls) > out.width - ls =>
            {
                "rejected"
            }
            _ => label,
        };
        let end = x + size + 3.0 * ls + font::text_width(label, ls);
        if !shown || end > out.width - ls {
            continue;
        }
        out.legend.push((key, (x, base - size)));
        out.texts.push(text(x + size + 3.0 * ls, base, label, Anchor::Start, Role::Legend));
        x = end + 10.0 * ls;
    }
}

fn text(x: f64, y: f64, s: &str, anchor: Anchor, role: Role) -> Text {
    Text { x, y, text: s.to_string(), anchor, role }
}

/// `s` cut with an ellipsis so that it is at most `room` pixels wide at `scale`.
fn fit(s: &str, room: f64, scale: f64) -> String {
    if font::text_width(s, scale) <= room {
        return s.to_string();
    }
    let mut out: String = s.to_string();
    while !out.is_empty() && font::text_width(&format!("{out}…"), scale) > room {
        out.pop();
    }
    format!("{}…", out.trim_end())
}

/// Like [`fit`], but a trailing "(unit)" survives: "Systolic blood… (mmHg)".
fn fit_keeping_unit(s: &str, room: f64, scale: f64) -> String {
    match s.rfind(" (") {
        Some(i) if s.ends_with(')') && font::text_width(s, scale) > room => {
            let (name, unit) = s.split_at(i);
            let name_room = room - font::text_width(unit, scale);
            match name_room > font::text_width("W…", scale) {
                true => format!("{}{unit}", fit(name, name_room, scale)),
                false => fit(s, room, scale),
            }
        }
        _ => fit(s, room, scale),
    }
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

fn finite(points: &[ChartPoint]) -> Vec<ChartPoint> {
    points.iter().copied().filter(|p| p.value.is_finite()).collect()
}

fn sorted(mut points: Vec<ChartPoint>) -> Vec<ChartPoint> {
    crate::sort::by(&mut points, |a, b| a.t.cmp(&b.t).then(a.value.total_cmp(&b.value)));
    points
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

/// Ticks inside the frame whose labels fit on the page, sorted, with every n-th kept so that
/// labels never overlap.
fn visible_ticks<'a>(ticks: &'a [XTick], frame: &Frame, width: f64, ls: f64) -> Vec<&'a XTick> {
    let on_page = |k: &XTick| {
        let (x, half) = (frame.x(k.t), font::text_width(&k.label, ls) / 2.0);
        x - half >= ls && x + half <= width - ls
    };
    let in_range = |k: &XTick| (k.t as f64) >= frame.t_lo && (k.t as f64) <= frame.t_hi;
    let mut inside: Vec<&XTick> = ticks.iter().filter(|k| in_range(k) && on_page(k)).collect();
    crate::sort::by(&mut inside, |a, b| a.t.cmp(&b.t).then(a.label.cmp(&b.label)));
    let widest = inside.iter().map(|k| font::text_width(&k.label, ls)).fold(0.0, f64::max);
    let mut stride = 1;
    loop {
        let kept: Vec<&XTick> = inside.iter().copied().step_by(stride).collect();
        let fits = kept.windows(2).all(|w| match w {
            [a, b] => frame.x(b.t) - frame.x(a.t) >= widest + 6.0 * ls,
            _ => true,
        });
        if fits || kept.len() <= 1 {
            return kept;
        }
        stride += 1;
    }
}

/// Fixed-decimal formatting without "-0" and without NaN (which cannot reach here, but a bad
/// number must never corrupt a picture or a document).
pub fn num(x: f64, decimals: usize) -> String {
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
    decimal(&num(x, decimals)).unwrap_or(x)
}

/// Colours shared by both renderers.
pub mod palette {
    use crate::image::canvas::Rgb;

    pub const BACKGROUND: Rgb = [0xff, 0xff, 0xff];
    pub const GRID: Rgb = [0xe4, 0xe4, 0xe4];
    pub const FRAME: Rgb = [0x99, 0x99, 0x99];
    pub const READINGS: Rgb = [0x4a, 0x78, 0xc2];
    pub const READINGS_OPACITY: f64 = 0.6;
    pub const BAND: Rgb = [0x4a, 0x78, 0xc2];
    pub const BAND_OPACITY: f64 = 0.2;
    pub const TREND: Rgb = [0x1b, 0x1b, 0x1b];
    pub const GAP: Rgb = [0x88, 0x88, 0x88];
    pub const REJECTED: Rgb = [0xd6, 0x27, 0x28];
    pub const DEMO_BADGE: Rgb = [0xb4, 0x53, 0x09];
}

/// The colour of a role's text.
pub fn text_color(role: Role) -> crate::image::canvas::Rgb {
    match role {
        Role::Title => [0x1f, 0x1f, 0x1f],
        Role::Subtitle | Role::NoData => [0x55, 0x55, 0x55],
        Role::Demo => [0xff, 0xff, 0xff],
        Role::Tick | Role::Legend => [0x44, 0x44, 0x44],
        Role::AxisLabel => [0x33, 0x33, 0x33],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::chart::testdata::sample;

    /// A text's box: `(left, top, right, bottom)`, descenders included.
    fn extent(l: &Layout, t: &Text) -> (f64, f64, f64, f64) {
        let s = l.scale_of(t.role);
        let w = font::text_width(&t.text, s);
        if t.role == Role::AxisLabel {
            return (t.x - font::CAP * s / 2.0, t.y - w / 2.0, t.x + font::CAP * s / 2.0, t.y + w / 2.0);
        }
        let left = match t.anchor {
            Anchor::Start => t.x,
            Anchor::Middle => t.x - w / 2.0,
            Anchor::End => t.x - w,
        };
        (left, t.y - font::CAP * s, left + w, t.y + 2.0 * s)
    }

    #[test]
    fn every_text_fits_the_picture_and_no_two_overlap() {
        for (w, h) in [(800, 400), (400, 200), (320, 160), (1600, 800), (800, 600)] {
            for demo in [false, true] {
                let mut spec = sample();
                (spec.width, spec.height, spec.demo) = (w, h, demo);
                spec.title = "Systolic blood pressure — not enough data, and then some more words".into();
                let l = layout(&spec);
                let boxes: Vec<_> = l.texts.iter().map(|t| (t, extent(&l, t))).collect();
                for (t, (x0, y0, x1, y1)) in &boxes {
                    let inside = *x0 >= 0.0 && *y0 >= 0.0 && *x1 <= l.width && *y1 <= l.height;
                    assert!(inside, "{w}x{h}: {:?} leaves the picture: {:?}", t.text, (x0, y0, x1, y1));
                }
                for (i, (a, ea)) in boxes.iter().enumerate() {
                    for (b, eb) in boxes.iter().skip(i + 1) {
                        let apart = ea.2 <= eb.0 || eb.2 <= ea.0 || ea.3 <= eb.1 || eb.3 <= ea.1;
                        assert!(apart, "{w}x{h}: {:?} overlaps {:?}", a.text, b.text);
                    }
                }
                assert_eq!(l.demo_badge.is_some(), demo);
                assert!(l.texts.iter().any(|t| t.role == Role::Title && t.text.ends_with('…')), "{w}x{h}");
                let plot = l.plot.unwrap();
                assert!(l.readings.iter().all(
                    |(x, y)| (plot.left..=plot.right).contains(x) && (plot.top..=plot.bottom).contains(y)
                ));
            }
        }
    }

    #[test]
    fn long_axis_labels_keep_their_unit() {
        let cases = [
            ("Weight (kg)", 200.0, "Weight (kg)"),
            ("Systolic blood pressure (mmHg)", 150.0, "Systolic blood press… (mmHg)"),
            ("Systolic blood pressure (mmHg)", 60.0, "Sys… (mmHg)"),
            ("Systolic blood pressure (mmHg)", 40.0, "Systol…"),
            ("A very long label without a unit", 100.0, "A very long label…"),
        ];
        for (label, room, want) in cases {
            let got = fit_keeping_unit(label, room, 1.0);
            assert_eq!(got, want, "{label} in {room}");
            assert!(font::text_width(&got, 1.0) <= room);
        }
    }

    #[test]
    fn the_noise_band_surrounds_the_trend() {
        let spec = sample();
        let l = layout(&spec);
        let band = &l.band[0];
        let trend = &l.trend[0];
        assert_eq!(band.len(), 2 * trend.len());
        let f = l.plot.unwrap();
        let half = f.y(0.0) - f.y(spec.noise);
        for (i, (x, y)) in trend.iter().enumerate() {
            let (ux, uy) = band[i];
            let (lx, ly) = band[band.len() - 1 - i];
            assert_eq!((ux, lx), (*x, *x));
            assert!((y - uy - half).abs() < 1e-6 && (ly - y - half).abs() < 1e-6, "{i}");
        }
        let mut no_noise = sample();
        no_noise.noise = 0.0;
        let l = layout(&no_noise);
        assert!(l.band.is_empty() && !l.legend.iter().any(|(k, _)| *k == Key::Band));
    }

    #[test]
    fn off_scale_rejections_sit_on_the_edges() {
        let l = layout(&sample());
        let f = l.plot.unwrap();
        let edges: Vec<_> = l.rejected.iter().map(|m| (m.beyond_top, m.at.1)).collect();
        assert_eq!(edges.len(), 3);
        assert!(
            edges.contains(&(Some(true), f.top)) && edges.contains(&(Some(false), f.bottom)),
            "{edges:?}"
        );
        assert_eq!(edges.iter().filter(|e| e.0.is_none()).count(), 1);
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
