//! The chart as SVG text: the [`layout`] drawn as elements. Every number is written with fixed
//! decimals and every element in a fixed order, so the same spec gives the same bytes.
#![warn(clippy::indexing_slicing)]

use std::fmt::{self, Write};

use crate::domain::chart::ChartSpec;
use crate::domain::chart::layout::{self, Key, Layout, Role, palette, text_color};
use crate::image::canvas::{Anchor, Rgb};
use crate::image::font;
use crate::text::escape;

/// Renders the chart as a complete SVG document (starting with `<svg`, ending with a newline).
pub fn render(spec: &ChartSpec) -> String {
    let l = layout::layout(spec);
    let mut svg = String::new();
    let _ = writeln!(
        svg,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" \
         font-family=\"sans-serif\" role=\"img\">",
        w = num(l.width, 0),
        h = num(l.height, 0)
    );
    let _ = writeln!(svg, "<title>{}</title>", escape(&spec.title));
    let _ = writeln!(svg, "<rect width=\"100%\" height=\"100%\" fill=\"{}\"/>", hex(palette::BACKGROUND));
    if let Some((x, y, w, h)) = l.demo_badge {
        let _ = writeln!(
            svg,
            "<rect class=\"demo\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"{}\" fill=\"{}\"/>",
            num(x, 1),
            num(y, 1),
            num(w, 1),
            num(h, 1),
            num(l.label_scale * 2.0, 1),
            hex(palette::DEMO_BADGE)
        );
    }
    if let Some(f) = l.plot {
        plot(&mut svg, &l, f);
    }
    legend(&mut svg, &l);
    for t in &l.texts {
        text(&mut svg, &l, t);
    }
    svg.push_str("</svg>\n");
    svg
}

/// The plot, back to front: the noise band, the grid and frame, the readings, the trend, and
/// the rejected readings' markers.
fn plot(svg: &mut String, l: &Layout, f: layout::Frame) {
    for band in &l.band {
        let _ = writeln!(
            svg,
            "<path class=\"band\" d=\"{}\" fill=\"{}\" fill-opacity=\"{}\"/>",
            path(band, true),
            hex(palette::BAND),
            palette::BAND_OPACITY
        );
    }
    grid(svg, l, f);
    readings(svg, l);
    trend(svg, l);
    rejected(svg, l);
}

fn grid(svg: &mut String, l: &Layout, f: layout::Frame) {
    let _ = writeln!(svg, "<g class=\"grid\" stroke=\"{}\">", hex(palette::GRID));
    for y in &l.y_grid {
        let _ = writeln!(
            svg,
            "<line x1=\"{}\" y1=\"{y}\" x2=\"{}\" y2=\"{y}\"/>",
            num(f.left, 1),
            num(f.right, 1),
            y = num(*y, 1)
        );
    }
    for x in &l.x_grid {
        let _ = writeln!(
            svg,
            "<line x1=\"{x}\" y1=\"{}\" x2=\"{x}\" y2=\"{}\"/>",
            num(f.top, 1),
            num(f.bottom, 1),
            x = num(*x, 1)
        );
    }
    svg.push_str("</g>\n");
    let _ = writeln!(
        svg,
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"{}\"/>",
        num(f.left, 1),
        num(f.top, 1),
        num(f.right - f.left, 1),
        num(f.bottom - f.top, 1),
        hex(palette::FRAME)
    );
}

fn readings(svg: &mut String, l: &Layout) {
    let _ = writeln!(
        svg,
        "<g class=\"readings\" fill=\"{}\" fill-opacity=\"{}\">",
        hex(palette::READINGS),
        palette::READINGS_OPACITY
    );
    for (x, y) in &l.readings {
        let _ = writeln!(
            svg,
            "<circle cx=\"{}\" cy=\"{}\" r=\"{}\"/>",
            num(*x, 1),
            num(*y, 1),
            num(l.reading_radius, 1)
        );
    }
    svg.push_str("</g>\n");
}

/// Each run of the trend (a lone point as a dot), and dashed links across the pauses.
fn trend(svg: &mut String, l: &Layout) {
    for (a, b) in &l.trend_gaps {
        let _ = writeln!(
            svg,
            "<polyline class=\"trend-gap\" points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"{}\" \
             stroke-dasharray=\"{d} {d}\"/>",
            points(&[*a, *b]),
            hex(palette::GAP),
            num(l.label_scale * 0.6, 1),
            d = num(l.label_scale * 2.0, 1)
        );
    }
    for run in &l.trend {
        match run.as_slice() {
            [(x, y)] => {
                let _ = writeln!(
                    svg,
                    "<circle class=\"trend\" cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"{}\"/>",
                    num(*x, 1),
                    num(*y, 1),
                    num(l.trend_width, 1),
                    hex(palette::TREND)
                );
            }
            run => {
                let _ = writeln!(
                    svg,
                    "<polyline class=\"trend\" points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"{}\" \
                     stroke-linejoin=\"round\" stroke-linecap=\"round\"/>",
                    points(run),
                    hex(palette::TREND),
                    num(l.trend_width, 1)
                );
            }
        }
    }
}

fn rejected(svg: &mut String, l: &Layout) {
    let _ = writeln!(
        svg,
        "<g class=\"rejected\" stroke=\"{c}\" stroke-width=\"{}\" fill=\"{c}\">",
        num(l.label_scale * 0.8, 1),
        c = hex(palette::REJECTED)
    );
    for m in &l.rejected {
        let tip = format!("<title>rejected: {}</title>", num(m.value, 2));
        let (x, y) = m.at;
        let s = l.marker_size();
        let d = match m.beyond_top {
            // Off scale: a triangle just inside the edge, pointing towards where the value lies.
            Some(up) => {
                let dir = if up { -1.0 } else { 1.0 };
                let base = y - dir * 2.0 * s * 1.3;
                path(&[(x - 1.3 * s, base), (x + 1.3 * s, base), (x, y - dir * 0.5)], true)
            }
            None => format!(
                "M{} {} L{} {} M{} {} L{} {}",
                num(x - s, 1),
                num(y - s, 1),
                num(x + s, 1),
                num(y + s, 1),
                num(x - s, 1),
                num(y + s, 1),
                num(x + s, 1),
                num(y - s, 1)
            ),
        };
        let fill = if m.beyond_top.is_some() { "" } else { " fill=\"none\"" };
        let _ = writeln!(svg, "<path d=\"{d}\"{fill}>{tip}</path>");
    }
    svg.push_str("</g>\n");
}

fn legend(svg: &mut String, l: &Layout) {
    let s = l.key_size();
    for (key, (x, y)) in &l.legend {
        let (cx, cy) = (x + s / 2.0, y + s / 2.0);
        let _ = match key {
            Key::Readings => writeln!(
                svg,
                "<circle class=\"key\" cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"{}\" fill-opacity=\"{}\"/>",
                num(cx, 1),
                num(cy, 1),
                num(l.reading_radius * 1.3, 1),
                hex(palette::READINGS),
                palette::READINGS_OPACITY
            ),
            Key::Trend => writeln!(
                svg,
                "<line class=\"key\" x1=\"{}\" y1=\"{cy}\" x2=\"{}\" y2=\"{cy}\" stroke=\"{}\" stroke-width=\"{}\"/>",
                num(*x, 1),
                num(x + s, 1),
                hex(palette::TREND),
                num(l.trend_width, 1),
                cy = num(cy, 1)
            ),
            Key::Band => writeln!(
                svg,
                "<rect class=\"key\" x=\"{}\" y=\"{}\" width=\"{s}\" height=\"{s}\" fill=\"{}\" fill-opacity=\"{}\"/>",
                num(*x, 1),
                num(*y, 1),
                hex(palette::BAND),
                palette::BAND_OPACITY,
                s = num(s, 1)
            ),
            Key::Rejected => writeln!(
                svg,
                "<path class=\"key\" d=\"M{a} {b} L{c} {d} M{a} {d} L{c} {b}\" stroke=\"{}\" stroke-width=\"{}\"/>",
                hex(palette::REJECTED),
                num(l.label_scale * 0.8, 1),
                a = num(x + 0.5, 1),
                b = num(y + 0.5, 1),
                c = num(x + s - 0.5, 1),
                d = num(y + s - 0.5, 1)
            ),
        };
    }
}

fn text(svg: &mut String, l: &Layout, t: &layout::Text) {
    let scale = l.scale_of(t.role);
    // The bitmap font's cap height is 7 font pixels; a sans-serif cap is about 0.72 em.
    let size = num(font::CAP * scale / 0.72, 1);
    let anchor = match t.anchor {
        Anchor::Start => "",
        Anchor::Middle => " text-anchor=\"middle\"",
        Anchor::End => " text-anchor=\"end\"",
    };
    let weight = match t.role {
        Role::Title | Role::Demo => " font-weight=\"bold\"",
        _ => "",
    };
    let fill = hex(text_color(t.role));
    let body = escape(&t.text);
    match t.role {
        Role::AxisLabel => {
            let _ = writeln!(
                svg,
                "<text x=\"{x}\" y=\"{}\" font-size=\"{size}\" fill=\"{fill}\"{anchor} transform=\"rotate(-90 {x} {y})\">{body}</text>",
                num(t.y + font::CAP * scale / 2.0, 1),
                x = num(t.x, 1),
                y = num(t.y, 1)
            );
        }
        _ => {
            let _ = writeln!(
                svg,
                "<text x=\"{}\" y=\"{}\" font-size=\"{size}\" fill=\"{fill}\"{anchor}{weight}>{body}</text>",
                num(t.x, 1),
                num(t.y, 1)
            );
        }
    }
}

// The numbers and colours are formatted where they are written, not made into a String each
// and dropped after the write: 77 of them in this file (binary size).

/// [`layout::num`], as it is written.
fn num(x: f64, decimals: usize) -> Num {
    Num(x, decimals)
}

struct Num(f64, usize);

impl fmt::Display for Num {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&layout::num(self.0, self.1))
    }
}

/// `#rrggbb`.
fn hex(c: Rgb) -> Hex {
    Hex(c)
}

struct Hex(Rgb);

impl fmt::Display for Hex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Hex([r, g, b]) = self;
        write!(f, "#{r:02x}{g:02x}{b:02x}")
    }
}

fn points(pts: &[(f64, f64)]) -> String {
    pts.iter().map(|(x, y)| format!("{},{}", num(*x, 1), num(*y, 1))).collect::<Vec<_>>().join(" ")
}

fn path(pts: &[(f64, f64)], close: bool) -> String {
    let mut d = String::new();
    for (i, (x, y)) in pts.iter().enumerate() {
        let _ = write!(d, "{}{} {}", if i == 0 { "M" } else { " L" }, num(*x, 1), num(*y, 1));
    }
    if close {
        d.push_str(" Z");
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::chart::testdata::{DAY, T0, sample};
    use crate::domain::chart::{ChartPoint, XTick};

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

    #[test]
    fn chart_is_well_formed_and_deterministic() {
        let spec = sample();
        let svg = render(&spec);
        assert_well_formed(&svg);
        assert_eq!(svg, render(&spec.clone()));
        assert_eq!(svg.matches("<circle").count(), 70 + 1); // readings + legend
        assert_eq!(svg.matches("<polyline").count(), 1);
        assert_eq!(svg.matches("<title>rejected").count(), 3);
        // The 700 kg and 7 kg weigh-ins sit on the edges as triangles; the scale ignores them.
        assert_eq!(svg.matches(" Z\"><title>rejected").count(), 2);
        assert_eq!(svg.matches("class=\"band\"").count(), 1);
        assert!(svg.contains(">noise band<") && svg.contains(">rejected (▲▼ off scale)<"), "{svg}");
        assert!(!svg.contains("DEMO"));
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
        let svg = render(&spec);
        assert_well_formed(&svg);
        assert_eq!(svg.matches("class=\"trend\"").count(), 3);
        assert_eq!(svg.matches("class=\"trend\" cx=").count(), 1);
        assert_eq!(svg.matches("class=\"trend-gap\"").count(), 2);
        let mut shuffled = spec.clone();
        shuffled.trend.reverse();
        assert_eq!(render(&shuffled), svg);
    }

    #[test]
    fn text_is_escaped() {
        let mut spec = sample();
        spec.title = "<script>alert('x')</script> & \"q\"".to_string();
        spec.y_label = "a<b".to_string();
        spec.x_ticks = vec![XTick { t: T0 + 10 * DAY, label: "x&y\u{7}".to_string() }];
        let svg = render(&spec);
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
        let svg = render(&empty);
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
            spec.noise = f64::NAN;
            assert_well_formed(&render(&spec));
        }
        // Only rejected readings: they set the scale themselves.
        let mut only_rejected = sample();
        only_rejected.readings.clear();
        only_rejected.trend.clear();
        assert_well_formed(&render(&only_rejected));
    }

    #[test]
    fn crowded_x_labels_are_thinned() {
        let mut spec = sample();
        spec.width = 320;
        spec.x_ticks = (0..70).map(|d| XTick { t: T0 + d * DAY, label: format!("2026-01-{d:02}") }).collect();
        let svg = render(&spec);
        if let Ok(path) = std::env::var("TREND_CHART_OUT") {
            std::fs::write(format!("{path}.small.svg"), &svg).unwrap();
        }
        assert_well_formed(&svg);
        let shown = svg.matches(">2026-01-").count();
        assert!((2..=5).contains(&shown), "{shown} labels");
        assert!(svg.contains(">2026-01-00<"));
    }

    #[test]
    fn demo_charts_say_so() {
        let mut spec = sample();
        spec.demo = true;
        let svg = render(&spec);
        assert_well_formed(&svg);
        assert!(svg.contains("class=\"demo\"") && svg.contains(">DEMO<"), "{svg}");
    }
}
