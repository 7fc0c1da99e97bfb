//! An RGB canvas that fills shapes with anti-aliasing: every shape is a set of closed polygons
//! (lines, circles and glyphs become polygons first), filled as a union by the nonzero rule,
//! with exact horizontal coverage and 4 sub-scanlines per pixel row.

use crate::image::{font, png};

/// A colour as 8-bit sRGB.
pub type Rgb = [u8; 3];
/// A point in pixels; (0, 0) is the top-left corner of the top-left pixel.
pub type Pt = (f64, f64);

const SUB: usize = 4;

/// An 8-bit RGB image.
#[derive(Debug, Clone, PartialEq)]
pub struct Canvas {
    width: u32,
    height: u32,
    pixels: Vec<u8>,
}

impl Canvas {
    /// A canvas filled with `background`.
    pub fn new(width: u32, height: u32, background: Rgb) -> Canvas {
        let pixels = background.repeat(width as usize * height as usize);
        Canvas { width, height, pixels }
    }

    /// The pixel at (x, y), if inside.
    pub fn pixel(&self, x: u32, y: u32) -> Option<Rgb> {
        if x >= self.width || y >= self.height {
            return None;
        }
        let i = (y as usize * self.width as usize + x as usize) * 3;
        match self.pixels.get(i..i + 3) {
            Some(&[r, g, b]) => Some([r, g, b]),
            _ => None,
        }
    }

    /// The image as a PNG file.
    pub fn to_png(&self) -> Vec<u8> {
        png::encode_rgb(self.width, self.height, &self.pixels)
    }

    /// Paints the union of `contours` in `color` at `opacity` (0–1). Each contour is closed
    /// implicitly; contours are oriented alike first, so overlapping ones never cancel out.
    pub fn fill(&mut self, contours: &[Vec<Pt>], color: Rgb, opacity: f64) {
        let opacity = if opacity.is_finite() { opacity.clamp(0.0, 1.0) } else { 0.0 };
        let edges = edges_of(contours);
        if edges.is_empty() || opacity == 0.0 {
            return;
        }
        let y_min = edges.iter().map(|e| e.y0).fold(f64::INFINITY, f64::min).max(0.0);
        let y_max = edges.iter().map(|e| e.y1).fold(f64::NEG_INFINITY, f64::max).min(f64::from(self.height));
        if y_min.partial_cmp(&y_max) != Some(std::cmp::Ordering::Less) {
            return;
        }
        let (first, rows) = (y_min.floor() as usize, y_max.ceil() as usize);
        let starts = by_start_row(&edges, first, rows);
        let width = self.width as usize;
        let mut cover = vec![0f32; width + 1];
        let mut active: Vec<usize> = Vec::new();
        let mut crossings: Vec<(f64, i32)> = Vec::new();
        for py in first..rows {
            active.extend(starts.get(py - first).into_iter().flatten());
            let (mut lo, mut hi) = (width, 0);
            for s in 0..SUB {
                let sy = py as f64 + (s as f64 + 0.5) / SUB as f64;
                active.retain(|&i| edges.get(i).is_some_and(|e| e.y1 > sy));
                crossings.clear();
                for e in active.iter().filter_map(|&i| edges.get(i)) {
                    if e.y0 <= sy {
                        crossings.push((e.x0 + (sy - e.y0) * e.slope, e.dir));
                    }
                }
                insertion_sort(&mut crossings);
                let mut winding = 0;
                let mut start = 0.0;
                for &(x, dir) in &crossings {
                    let was = winding;
                    winding += dir;
                    if was == 0 && winding != 0 {
                        start = x;
                    } else if was != 0 && winding == 0 {
                        let (a, b) = add_span(&mut cover, start, x, 1.0 / SUB as f32);
                        (lo, hi) = (lo.min(a), hi.max(b));
                    }
                }
            }
            self.blend_row(py, &mut cover, lo, hi, color, opacity as f32);
        }
    }

    /// Paints `text` with its baseline at `y`: from `x` (or centred on, or ending at, `x`).
    pub fn text(&mut self, text: &str, x: f64, y: f64, scale: f64, anchor: Anchor, color: Rgb) {
        let w = font::text_width(text, scale);
        let start = match anchor {
            Anchor::Start => x,
            Anchor::Middle => x - w / 2.0,
            Anchor::End => x - w,
        };
        // Whole-pixel origins keep integer-scale glyphs perfectly sharp.
        let rects = font::text_rects(text, start.round(), y.round(), scale);
        let contours: Vec<Vec<Pt>> = rects.into_iter().map(|(x, y, w, h)| rect(x, y, w, h)).collect();
        self.fill(&contours, color, 1.0);
    }

    /// Paints `text` turned 90° anticlockwise (reading upwards), centred on `(cx, cy)`.
    pub fn text_up(&mut self, text: &str, cx: f64, cy: f64, scale: f64, color: Rgb) {
        let w = font::text_width(text, scale);
        // Lay the text out horizontally around the origin, then rotate: (x, y) → (y, −x).
        let (ox, oy) = ((cx - font::CAP * scale / 2.0).round(), (cy + w / 2.0).round());
        let rects = font::text_rects(text, 0.0, font::CAP * scale, scale);
        let contours: Vec<Vec<Pt>> =
            rects.into_iter().map(|(x, y, w, h)| rect(ox + y, oy - x - w, h, w)).collect();
        self.fill(&contours, color, 1.0);
    }

    fn blend_row(&mut self, py: usize, cover: &mut [f32], lo: usize, hi: usize, color: Rgb, opacity: f32) {
        let row = py * self.width as usize * 3;
        for x in lo..hi.min(self.width as usize) {
            let c = cover.get(x).copied().unwrap_or(0.0).min(1.0) * opacity;
            if c > 0.0
                && let Some(px) = self.pixels.get_mut(row + x * 3..row + x * 3 + 3)
            {
                for (p, &k) in px.iter_mut().zip(&color) {
                    *p = (f32::from(*p) + (f32::from(k) - f32::from(*p)) * c).round() as u8;
                }
            }
        }
        if let Some(touched) = cover.get_mut(lo..(hi + 1).min(cover.len())) {
            touched.fill(0.0);
        }
    }
}

/// Where a text's `x` is: its start, middle or end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Anchor {
    Start,
    Middle,
    End,
}

/// An axis-aligned rectangle as a contour.
pub fn rect(x: f64, y: f64, w: f64, h: f64) -> Vec<Pt> {
    vec![(x, y), (x + w, y), (x + w, y + h), (x, y + h)]
}

/// A circle as a polygon, with enough sides that its edge looks round at its size.
pub fn circle(cx: f64, cy: f64, r: f64) -> Vec<Pt> {
    let n = (r * 4.0).ceil().clamp(8.0, 64.0) as usize;
    (0..n)
        .map(|i| {
            let a = i as f64 / n as f64 * std::f64::consts::TAU;
            (cx + r * a.cos(), cy + r * a.sin())
        })
        .collect()
}

/// A polyline of `width` with round joins and caps, as contours to fill.
pub fn stroke(points: &[Pt], width: f64) -> Vec<Vec<Pt>> {
    let h = width / 2.0;
    let mut out = Vec::with_capacity(points.len() * 2);
    for pair in points.windows(2) {
        if let [(x0, y0), (x1, y1)] = *pair {
            let len = (x1 - x0).hypot(y1 - y0);
            if len > 0.0 {
                let (nx, ny) = (-(y1 - y0) / len * h, (x1 - x0) / len * h);
                out.push(vec![
                    (x0 + nx, y0 + ny),
                    (x1 + nx, y1 + ny),
                    (x1 - nx, y1 - ny),
                    (x0 - nx, y0 - ny),
                ]);
            }
        }
    }
    out.extend(points.iter().map(|&(x, y)| circle(x, y, h)));
    out
}

/// A dashed straight line from `a` to `b`: dashes of `on` pixels every `on + off`.
pub fn dashed(a: Pt, b: Pt, width: f64, on: f64, off: f64) -> Vec<Vec<Pt>> {
    let len = (b.0 - a.0).hypot(b.1 - a.1);
    let period = on + off;
    if !(len > 0.0 && on > 0.0 && period > 0.0) {
        return Vec::new();
    }
    let (ux, uy) = ((b.0 - a.0) / len, (b.1 - a.1) / len);
    let mut out = Vec::new();
    let mut d = 0.0;
    while d < len {
        let e = (d + on).min(len);
        out.extend(stroke(&[(a.0 + ux * d, a.1 + uy * d), (a.0 + ux * e, a.1 + uy * e)], width));
        d += period;
    }
    out
}

/// A non-horizontal polygon edge, top to bottom, with the winding direction it had.
struct Edge {
    x0: f64,
    y0: f64,
    y1: f64,
    slope: f64,
    dir: i32,
}

fn edges_of(contours: &[Vec<Pt>]) -> Vec<Edge> {
    let mut edges = Vec::new();
    for c in contours {
        let finite = c.iter().all(|(x, y)| x.is_finite() && y.is_finite());
        if c.len() < 3 || !finite {
            continue;
        }
        // Shoelace sign: every contour counts as if drawn clockwise on screen.
        let area: f64 = c.iter().zip(c.iter().cycle().skip(1)).map(|(a, b)| a.0 * b.1 - b.0 * a.1).sum();
        let flip = if area < 0.0 { -1 } else { 1 };
        for (&(xa, ya), &(xb, yb)) in c.iter().zip(c.iter().cycle().skip(1)) {
            if ya == yb {
                continue;
            }
            let (dir, (x0, y0), (x1, y1)) =
                if ya < yb { (1, (xa, ya), (xb, yb)) } else { (-1, (xb, yb), (xa, ya)) };
            edges.push(Edge { x0, y0, y1, slope: (x1 - x0) / (y1 - y0), dir: dir * flip });
        }
    }
    edges
}

/// Edge indices by the pixel row where each starts (rows from `first`; an edge starting above
/// the canvas counts in the first row). A bucket pass, not a sort: cheaper, and no sort code.
fn by_start_row(edges: &[Edge], first: usize, rows: usize) -> Vec<Vec<usize>> {
    let mut starts = vec![Vec::new(); rows.saturating_sub(first)];
    for (i, e) in edges.iter().enumerate() {
        let row = (e.y0.max(0.0).floor() as usize).max(first) - first;
        if let Some(bucket) = starts.get_mut(row) {
            bucket.push(i);
        }
    }
    starts
}

/// Sorts a scanline's few crossings by x. Insertion sort: they come nearly sorted, and a
/// generic sort would add kilobytes of code to the binary for this one use.
fn insertion_sort(v: &mut [(f64, i32)]) {
    for i in 1..v.len() {
        let mut j = i;
        while j > 0 && v.get(j - 1).zip(v.get(j)).is_some_and(|(a, b)| a.0 > b.0) {
            v.swap(j - 1, j);
            j -= 1;
        }
    }
}

/// Adds coverage `w` over `[a, b)` of a pixel row, fractional at both ends. Returns the pixel
/// range touched.
fn add_span(cover: &mut [f32], a: f64, b: f64, w: f32) -> (usize, usize) {
    let max = cover.len().saturating_sub(1) as f64;
    let (a, b) = (a.clamp(0.0, max), b.clamp(0.0, max));
    if b <= a {
        return (cover.len(), 0);
    }
    let (ia, ib) = (a.floor() as usize, b.floor() as usize);
    if ia == ib {
        if let Some(c) = cover.get_mut(ia) {
            *c += (b - a) as f32 * w;
        }
    } else {
        if let Some(c) = cover.get_mut(ia) {
            *c += (ia as f64 + 1.0 - a) as f32 * w;
        }
        if let Some(inside) = cover.get_mut(ia + 1..ib) {
            inside.iter_mut().for_each(|c| *c += w);
        }
        if let Some(c) = cover.get_mut(ib) {
            *c += (b - ib as f64) as f32 * w;
        }
    }
    (ia, ib + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    const WHITE: Rgb = [255, 255, 255];
    const BLACK: Rgb = [0, 0, 0];

    fn ink(c: &Canvas) -> f64 {
        let mut total = 0.0;
        for y in 0..c.height {
            for x in 0..c.width {
                total += f64::from(255 - c.pixel(x, y).unwrap()[0]) / 255.0;
            }
        }
        total
    }

    #[test]
    fn coverage_is_exact_for_rectangles_and_close_for_circles() {
        // A rectangle on pixel edges: full pixels inside, nothing outside.
        let mut c = Canvas::new(10, 10, WHITE);
        c.fill(&[rect(2.0, 3.0, 4.0, 2.0)], BLACK, 1.0);
        assert_eq!(c.pixel(2, 3), Some(BLACK));
        assert_eq!(c.pixel(5, 4), Some(BLACK));
        assert_eq!(c.pixel(6, 4), Some(WHITE));
        assert_eq!(c.pixel(2, 5), Some(WHITE));
        assert!((ink(&c) - 8.0).abs() < 1e-9);
        // Half a pixel wide: half-grey, anti-aliased.
        let mut c = Canvas::new(4, 4, WHITE);
        c.fill(&[rect(1.5, 0.0, 1.0, 4.0)], BLACK, 1.0);
        assert_eq!(c.pixel(1, 1), Some([128, 128, 128]));
        assert_eq!(c.pixel(2, 1), Some([128, 128, 128]));
        // A circle's ink is its area, within sampling error.
        let mut c = Canvas::new(40, 40, WHITE);
        c.fill(&[circle(20.3, 19.7, 9.0)], BLACK, 1.0);
        let area = std::f64::consts::PI * 81.0;
        assert!((ink(&c) - area).abs() < area * 0.01, "{} vs {area}", ink(&c));
    }

    #[test]
    fn overlapping_shapes_unite_in_either_orientation() {
        let mut c = Canvas::new(10, 10, WHITE);
        let mut reversed = rect(3.0, 3.0, 4.0, 4.0);
        reversed.reverse();
        c.fill(&[rect(1.0, 1.0, 4.0, 4.0), reversed], BLACK, 1.0);
        // The overlap is painted once, not cancelled, and not darker than the colour.
        assert_eq!(c.pixel(4, 4), Some(BLACK));
        assert!((ink(&c) - (16.0 + 16.0 - 4.0)).abs() < 1e-9);
        // Half opacity: the overlap is still painted once.
        let mut c = Canvas::new(10, 10, WHITE);
        c.fill(&[rect(1.0, 1.0, 4.0, 4.0), rect(3.0, 3.0, 4.0, 4.0)], BLACK, 0.5);
        assert_eq!(c.pixel(4, 4), c.pixel(1, 1));
    }

    #[test]
    fn strokes_have_their_width_and_bad_input_paints_nothing() {
        let mut c = Canvas::new(20, 20, WHITE);
        c.fill(&stroke(&[(2.0, 10.0), (18.0, 10.0)], 2.0), BLACK, 1.0);
        assert_eq!(c.pixel(10, 9), Some(BLACK));
        assert_eq!(c.pixel(10, 10), Some(BLACK));
        assert_eq!(c.pixel(10, 8), Some(WHITE));
        // 16 long, 2 wide, plus round caps (π) at the ends.
        let want = 32.0 + std::f64::consts::PI;
        assert!((ink(&c) - want).abs() < 1.0, "{}", ink(&c));
        let mut c = Canvas::new(5, 5, WHITE);
        c.fill(&[vec![(f64::NAN, 1.0), (3.0, 3.0), (1.0, 4.0)]], BLACK, 1.0);
        c.fill(&[rect(-100.0, -100.0, 50.0, 50.0), rect(1.0, 1.0, 1.0, 1.0)], BLACK, f64::NAN);
        c.fill(&stroke(&[(1.0, 1.0)], 1e9), BLACK, 1.0);
        assert_eq!(c.pixel(0, 0), Some(BLACK), "a huge dot covers the canvas, clipped");
        assert_eq!(dashed((0.0, 0.0), (0.0, 0.0), 1.0, 2.0, 2.0).len(), 0);
        // Dashes at 0 and 5, each a segment and two round caps.
        assert_eq!(dashed((0.0, 0.0), (10.0, 0.0), 1.0, 2.0, 3.0).len(), 2 * 3);
    }

    #[test]
    fn text_is_drawn_where_it_is_measured() {
        let mut c = Canvas::new(60, 20, WHITE);
        c.text("Hi", 30.0, 12.0, 2.0, Anchor::Middle, BLACK);
        let w = font::text_width("Hi", 2.0);
        let (mut lo, mut hi) = (u32::MAX, 0);
        for y in 0..20 {
            for x in 0..60 {
                if c.pixel(x, y) != Some(WHITE) {
                    (lo, hi) = (lo.min(x), hi.max(x));
                }
            }
        }
        assert_eq!((f64::from(lo), f64::from(hi + 1)), (30.0 - w / 2.0, 30.0 + w / 2.0));
        // Reading upwards: as tall as the text is wide.
        let mut c = Canvas::new(20, 60, WHITE);
        c.text_up("Hi", 10.0, 30.0, 2.0, BLACK);
        let rows: Vec<u32> = (0..60).filter(|&y| (0..20).any(|x| c.pixel(x, y) != Some(WHITE))).collect();
        let span = rows.last().unwrap() + 1 - rows.first().unwrap();
        assert_eq!((f64::from(*rows.first().unwrap()), f64::from(span)), (30.0 - w / 2.0, w));
    }
}
