//! The chart as a PNG picture: the [`layout`] drawn on an anti-aliased canvas with the bitmap
//! font, then encoded. Hosts that show only raster images (PNG, JPEG, GIF, WebP) can show this.

use crate::domain::chart::ChartSpec;
use crate::domain::chart::layout::{self, Key, Layout, Role, palette, text_color};
use crate::image::canvas::{self, Canvas, Pt};

/// Renders the chart as PNG file bytes.
pub fn render_png(spec: &ChartSpec) -> Vec<u8> {
    draw(&layout::layout(spec)).to_png()
}

/// Draws a layout; back to front, as the SVG does.
pub fn draw(l: &Layout) -> Canvas {
    let mut c = Canvas::new(l.width as u32, l.height as u32, palette::BACKGROUND);
    let ls = l.label_scale;
    if let Some((x, y, w, h)) = l.demo_badge {
        c.fill(&[canvas::rect(x, y, w, h)], palette::DEMO_BADGE, 1.0);
    }
    if let Some(f) = l.plot {
        c.fill(&l.band, palette::BAND, palette::BAND_OPACITY);
        // Hairlines on pixel centres stay one pixel wide and sharp.
        let crisp = |v: f64| v.floor() + 0.5;
        let mut grid: Vec<Vec<Pt>> = Vec::new();
        for &y in &l.y_grid {
            grid.push(canvas::rect(f.left, crisp(y) - 0.5, f.right - f.left, 1.0));
        }
        for &x in &l.x_grid {
            grid.push(canvas::rect(crisp(x) - 0.5, f.top, 1.0, f.bottom - f.top));
        }
        c.fill(&grid, palette::GRID, 1.0);
        let (x0, y0, x1, y1) = (f.left.floor(), f.top.floor(), f.right.floor(), f.bottom.floor());
        let frame = [
            canvas::rect(x0, y0, x1 - x0 + 1.0, 1.0),
            canvas::rect(x0, y1, x1 - x0 + 1.0, 1.0),
            canvas::rect(x0, y0, 1.0, y1 - y0),
            canvas::rect(x1, y0, 1.0, y1 - y0),
        ];
        c.fill(&frame, palette::FRAME, 1.0);
        let dots: Vec<Vec<Pt>> =
            l.readings.iter().map(|&(x, y)| canvas::circle(x, y, l.reading_radius)).collect();
        c.fill(&dots, palette::READINGS, palette::READINGS_OPACITY);
        let mut gaps = Vec::new();
        for &(a, b) in &l.trend_gaps {
            gaps.extend(canvas::dashed(a, b, 0.6 * ls, 2.0 * ls, 2.0 * ls));
        }
        c.fill(&gaps, palette::GAP, 1.0);
        let mut trend = Vec::new();
        for run in &l.trend {
            match run.as_slice() {
                [(x, y)] => trend.push(canvas::circle(*x, *y, l.trend_width)),
                run => trend.extend(canvas::stroke(run, l.trend_width)),
            }
        }
        c.fill(&trend, palette::TREND, 1.0);
        let mut marks = Vec::new();
        let s = l.marker_size();
        for m in &l.rejected {
            let (x, y) = m.at;
            match m.beyond_top {
                Some(up) => {
                    let dir = if up { -1.0 } else { 1.0 };
                    let base = y - dir * 2.0 * s * 1.3;
                    marks.push(vec![(x - 1.3 * s, base), (x + 1.3 * s, base), (x, y - dir * 0.5)]);
                }
                None => {
                    marks.extend(canvas::stroke(&[(x - s, y - s), (x + s, y + s)], 0.8 * ls));
                    marks.extend(canvas::stroke(&[(x - s, y + s), (x + s, y - s)], 0.8 * ls));
                }
            }
        }
        c.fill(&marks, palette::REJECTED, 1.0);
    }
    legend(&mut c, l);
    for t in &l.texts {
        let scale = l.scale_of(t.role);
        match t.role {
            Role::AxisLabel => c.text_up(&t.text, t.x, t.y, scale, text_color(t.role)),
            _ => c.text(&t.text, t.x, t.y, scale, t.anchor, text_color(t.role)),
        }
    }
    c
}

fn legend(c: &mut Canvas, l: &Layout) {
    let s = l.key_size();
    for &(key, (x, y)) in &l.legend {
        let (cx, cy) = (x + s / 2.0, y + s / 2.0);
        match key {
            Key::Readings => c.fill(
                &[canvas::circle(cx, cy, l.reading_radius * 1.3)],
                palette::READINGS,
                palette::READINGS_OPACITY,
            ),
            Key::Trend => {
                c.fill(&canvas::stroke(&[(x, cy), (x + s, cy)], l.trend_width), palette::TREND, 1.0)
            }
            Key::Band => c.fill(&[canvas::rect(x, y, s, s)], palette::BAND, palette::BAND_OPACITY),
            Key::Rejected => {
                let w = 0.8 * l.label_scale;
                let mut cross = canvas::stroke(&[(x + 0.5, y + 0.5), (x + s - 0.5, y + s - 0.5)], w);
                cross.extend(canvas::stroke(&[(x + 0.5, y + s - 0.5), (x + s - 0.5, y + 0.5)], w));
                c.fill(&cross, palette::REJECTED, 1.0);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::chart::testdata::sample;
    use crate::domain::chart::{ChartPoint, ChartSpec};

    /// Set `CHART_PNG_OUT=dir` to keep the pictures for a look.
    fn keep(name: &str, png: &[u8]) {
        if let Ok(dir) = std::env::var("CHART_PNG_OUT") {
            std::fs::write(format!("{dir}/{name}.png"), png).unwrap();
        }
    }

    fn near(a: [u8; 3], b: [u8; 3], tol: u8) -> bool {
        a.iter().zip(&b).all(|(x, y)| x.abs_diff(*y) <= tol)
    }

    #[test]
    fn the_picture_shows_the_layout() {
        for (w, h) in [(800, 400), (400, 200)] {
            let mut spec = sample();
            (spec.width, spec.height, spec.demo) = (w, h, true);
            let l = layout::layout(&spec);
            let c = draw(&l);
            let png = c.to_png();
            keep(&format!("sample-{w}x{h}"), &png);
            assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"));
            assert_eq!(render_png(&spec), png, "deterministic");
            let at = |(x, y): (f64, f64)| c.pixel(x as u32, y as u32).unwrap();
            // The badge is its colour, away from its text.
            let (bx, by, _, _) = l.demo_badge.unwrap();
            assert_eq!(at((bx + 1.0, by + 1.0)), palette::DEMO_BADGE);
            // A reading's centre is tinted with the readings' colour (over the band or not).
            let blue = l.readings.iter().filter(|p| near(at(**p), palette::READINGS, 90)).count();
            assert!(blue * 10 >= l.readings.len() * 8, "{blue} of {}", l.readings.len());
            // The trend is dark where it runs; the band is tinted, not white, above it.
            let mid = l.trend[0][l.trend[0].len() / 2];
            assert!(at(mid)[0] < 100, "{:?}", at(mid));
            let f = l.plot.unwrap();
            let above = (mid.0, mid.1 - (f.y(0.0) - f.y(spec.noise)) / 2.0);
            let tint = at(above);
            assert!(tint != palette::BACKGROUND && tint[2] > tint[0], "{tint:?}");
        }
    }

    #[test]
    fn degenerate_charts_still_make_pictures() {
        let mut cases: Vec<ChartSpec> = Vec::new();
        let mut empty = sample();
        (empty.readings, empty.rejected, empty.trend) = (Vec::new(), Vec::new(), Vec::new());
        cases.push(empty);
        for readings in [
            vec![ChartPoint { t: 0, value: 70.0 }],
            vec![ChartPoint { t: i64::MIN, value: -1e300 }, ChartPoint { t: i64::MAX, value: 1e300 }],
        ] {
            let mut s = sample();
            (s.readings, s.width, s.height, s.noise) = (readings, 0, u32::MAX, f64::INFINITY);
            s.title = "\u{0}\u{7}é€".into();
            cases.push(s);
        }
        for (i, spec) in cases.iter().enumerate() {
            let png = render_png(spec);
            keep(&format!("degenerate-{i}"), &png);
            assert!(png.starts_with(b"\x89PNG") && png.len() > 100, "{i}");
        }
    }
}
