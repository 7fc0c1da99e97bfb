//! PNG encoding (ISO/IEC 15948) of an 8-bit RGB image: signature, IHDR, one IDAT of filtered
//! rows compressed by [`deflate::zlib`], IEND, each chunk with its CRC-32.

use crate::image::deflate;

/// Encodes `rgb` (`width × height` pixels, 3 bytes each, rows top to bottom) as a PNG file.
/// Rows that a short buffer lacks are black; extra bytes are ignored; never a panic.
pub fn encode_rgb(width: u32, height: u32, rgb: &[u8]) -> Vec<u8> {
    let stride = width as usize * 3;
    let mut filtered = Vec::with_capacity((stride + 1) * height as usize);
    let zero = vec![0u8; stride];
    let mut prev: &[u8] = &zero;
    let mut candidate = vec![0u8; stride];
    let mut best = vec![0u8; stride];
    for y in 0..height as usize {
        let row = rgb.get(y * stride..(y + 1) * stride).unwrap_or(&zero);
        let mut best_score = u64::MAX;
        let mut best_type = 0u8;
        for ft in 0..5u8 {
            filter_row(ft, row, prev, &mut candidate);
            // The usual heuristic: the filter whose bytes, read as signed, sum smallest.
            let score = candidate.iter().fold(0u64, |s, &b| s + u64::from((b as i8).unsigned_abs()));
            if score < best_score {
                (best_score, best_type) = (score, ft);
                best.copy_from_slice(&candidate);
            }
        }
        filtered.push(best_type);
        filtered.extend_from_slice(&best);
        prev = row;
    }

    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut ihdr = Vec::with_capacity(13);
    ihdr.extend_from_slice(&width.to_be_bytes());
    ihdr.extend_from_slice(&height.to_be_bytes());
    // Bit depth 8, colour type 2 (RGB), deflate, adaptive filtering, no interlace.
    ihdr.extend_from_slice(&[8, 2, 0, 0, 0]);
    chunk(&mut out, b"IHDR", &ihdr);
    chunk(&mut out, b"IDAT", &deflate::zlib(&filtered));
    chunk(&mut out, b"IEND", &[]);
    out
}

/// CRC-32 (ISO 3309, as used by PNG and gzip) of `data`.
pub fn crc32(data: &[u8]) -> u32 {
    !data.iter().fold(!0u32, |c, &b| CRC_TABLE[((c ^ u32::from(b)) & 0xFF) as usize] ^ (c >> 8))
}

const CRC_TABLE: [u32; 256] = crc_table();

const fn crc_table() -> [u32; 256] {
    let mut table = [0u32; 256];
    let mut n = 0;
    while n < 256 {
        let mut c = n as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 == 1 { 0xEDB8_8320 ^ (c >> 1) } else { c >> 1 };
            k += 1;
        }
        table[n] = c;
        n += 1;
    }
    table
}

fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    let start = out.len();
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    let crc = crc32(out.get(start..).unwrap_or_default());
    out.extend_from_slice(&crc.to_be_bytes());
}

/// Applies PNG filter `ft` (0 None, 1 Sub, 2 Up, 3 Average, 4 Paeth) to `row` given the
/// unfiltered row above (`prev`), 3 bytes per pixel. One loop per filter: this runs five times
/// per row of every chart, and a branch per byte made it the slowest part of drawing one.
fn filter_row(ft: u8, row: &[u8], prev: &[u8], out: &mut [u8]) {
    // The first pixel has nothing to its left: a and c are 0 there.
    let (out_first, out_rest) = out.split_at_mut(3.min(out.len()));
    let (row_first, row_rest) = row.split_at(3.min(row.len()));
    let (prev_first, prev_rest) = prev.split_at(3.min(prev.len()));
    for ((o, &x), &b) in out_first.iter_mut().zip(row_first).zip(prev_first) {
        *o = match ft {
            0 | 1 => x,
            2 | 4 => x.wrapping_sub(b),
            _ => x.wrapping_sub(b / 2),
        };
    }
    // For the rest: each byte x, the one to its left (a), above (b) and above-left (c).
    let rest = out_rest.iter_mut().zip(row_rest).zip(row).zip(prev_rest);
    match ft {
        0 => rest.for_each(|(((o, &x), _), _)| *o = x),
        1 => rest.for_each(|(((o, &x), &a), _)| *o = x.wrapping_sub(a)),
        2 => rest.for_each(|(((o, &x), _), &b)| *o = x.wrapping_sub(b)),
        3 => rest
            .for_each(|(((o, &x), &a), &b)| *o = x.wrapping_sub(((u16::from(a) + u16::from(b)) / 2) as u8)),
        _ => rest.zip(prev).for_each(|((((o, &x), &a), &b), &c)| *o = x.wrapping_sub(paeth(a, b, c))),
    }
}

fn paeth(a: u8, b: u8, c: u8) -> u8 {
    let p = i16::from(a) + i16::from(b) - i16::from(c);
    let (pa, pb, pc) = ((p - i16::from(a)).abs(), (p - i16::from(b)).abs(), (p - i16::from(c)).abs());
    if pa <= pb && pa <= pc {
        a
    } else if pb <= pc {
        b
    } else {
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32_matches_the_check_value() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc32(b""), 0);
        // The IEND chunk's CRC is the same in every PNG.
        assert_eq!(crc32(b"IEND"), 0xAE42_6082);
    }

    #[test]
    fn a_png_has_its_chunks_in_order_with_valid_crcs() {
        let (w, h) = (3u32, 2u32);
        let rgb: Vec<u8> = (0..w * h * 3).map(|i| (i * 40) as u8).collect();
        let png = encode_rgb(w, h, &rgb);
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        let mut pos = 8;
        let mut kinds = Vec::new();
        while pos < png.len() {
            let len = u32::from_be_bytes(png[pos..pos + 4].try_into().unwrap()) as usize;
            let body = &png[pos + 4..pos + 8 + len];
            let crc = u32::from_be_bytes(png[pos + 8 + len..pos + 12 + len].try_into().unwrap());
            assert_eq!(crc32(body), crc);
            kinds.push(String::from_utf8(body[..4].to_vec()).unwrap());
            if &body[..4] == b"IHDR" {
                assert_eq!(&body[4..], &[0, 0, 0, 3, 0, 0, 0, 2, 8, 2, 0, 0, 0]);
            }
            pos += 12 + len;
        }
        assert_eq!(kinds, ["IHDR", "IDAT", "IEND"]);
        // A short buffer is padded, never a panic.
        assert!(encode_rgb(4, 4, &[1, 2]).starts_with(b"\x89PNG"));
    }

    #[test]
    fn filters_invert_to_the_row() {
        let row: Vec<u8> = (0..30).map(|i| (i * 37 % 251) as u8).collect();
        let prev: Vec<u8> = (0..30).map(|i| (i * 91 % 253) as u8).collect();
        for ft in 0..5u8 {
            let mut f = vec![0u8; 30];
            filter_row(ft, &row, &prev, &mut f);
            // Undo it as a decoder would (PNG spec §9.2).
            let mut back = vec![0u8; 30];
            for i in 0..30 {
                let a = if i >= 3 { back[i - 3] } else { 0 };
                let b = prev[i];
                let c = if i >= 3 { prev[i - 3] } else { 0 };
                let p = match ft {
                    0 => 0,
                    1 => a,
                    2 => b,
                    3 => ((u16::from(a) + u16::from(b)) / 2) as u8,
                    _ => paeth(a, b, c),
                };
                back[i] = f[i].wrapping_add(p);
            }
            assert_eq!(back, row, "filter {ft}");
        }
    }
}
