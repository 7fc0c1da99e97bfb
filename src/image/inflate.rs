//! Reading a zlib stream (RFC 1950 around RFC 1951): the reverse of `deflate`, for what is
//! compiled in deflated (the MCP Apps dashboard page, see build.rs).
//!
//! Small rather than fast, in the manner of zlib's puff.c: a Huffman code is decoded a bit at a
//! time against the count of codes of each length, so there are no lookup tables to build. The
//! bits come from one 64-bit read of the stream, not one read each, and a back-reference that
//! does not overlap itself is one copy: the tool catalogue (70 KB) inflates at every start, and
//! that took 6 M instructions, three times the rest of `tools/list`. Any input is safe: a
//! malformed stream, a wrong checksum or an output over the limit is `None`.

use crate::image::deflate::{self, CL_ORDER, DIST_BASE, DIST_EXTRA, END_OF_BLOCK, LEN_BASE, LEN_EXTRA};

/// The data a zlib stream holds, or `None` if it is not a well-formed stream with a matching
/// Adler-32, or would hold more than `limit` bytes.
pub fn zlib(stream: &[u8], limit: usize) -> Option<Vec<u8>> {
    let (&cmf, &flg) = (stream.first()?, stream.get(1)?);
    // Deflate with a window of at most 32 KiB, the header check, and no preset dictionary.
    if cmf & 0x0f != 8 || cmf >> 4 > 7 || (u16::from(cmf) << 8 | u16::from(flg)) % 31 != 0 || flg & 0x20 != 0
    {
        return None;
    }
    let mut bits = Bits { data: stream, at: 16 };
    let mut out = Vec::new();
    loop {
        let last = bits.take(1)? == 1;
        match bits.take(2)? {
            0 => stored(&mut bits, &mut out)?,
            1 => {
                let (lit, dist) = fixed_codes()?;
                codes(&mut bits, &mut out, &lit, &dist)?;
            }
            2 => {
                let (lit, dist) = dynamic_codes(&mut bits)?;
                codes(&mut bits, &mut out, &lit, &dist)?;
            }
            _ => return None,
        }
        if out.len() > limit {
            return None;
        }
        if last {
            break;
        }
    }
    let at = bits.at.div_ceil(8);
    let sum = u32::from_be_bytes(stream.get(at..at + 4)?.try_into().ok()?);
    (sum == deflate::adler32(&out)).then_some(out)
}

/// The stream as bits, least significant first; `at` counts bits.
struct Bits<'a> {
    data: &'a [u8],
    at: usize,
}

impl Bits<'_> {
    /// The next `n` (at most 16) bits as a number, first bit lowest.
    fn take(&mut self, n: u32) -> Option<u32> {
        let v = (self.peek() & ((1 << n) - 1)) as u32;
        self.skip(n)?;
        Some(v)
    }

    /// At least the next 56 bits, first bit lowest, without taking them (zeros past the end).
    fn peek(&self) -> u64 {
        let rest = self.data.get(self.at / 8..).unwrap_or_default();
        let mut word = [0u8; 8];
        match rest.get(..8) {
            Some(eight) => word.copy_from_slice(eight),
            None => word.iter_mut().zip(rest).for_each(|(w, b)| *w = *b),
        }
        u64::from_le_bytes(word) >> (self.at % 8)
    }

    /// Takes `n` bits; `None` past the end of the stream.
    fn skip(&mut self, n: u32) -> Option<()> {
        let at = self.at + n as usize;
        (at <= self.data.len() * 8).then(|| self.at = at)
    }
}

/// A canonical Huffman code: how many codes have each length, and the symbols in code order.
struct Huffman {
    counts: [u16; 16],
    symbols: Vec<u16>,
}

impl Huffman {
    fn new(lengths: &[u8]) -> Option<Huffman> {
        let mut counts = [0u16; 16];
        for &l in lengths {
            *counts.get_mut(usize::from(l))? += 1;
        }
        counts[0] = 0;
        let mut next = [0u16; 16];
        for len in 1..15 {
            next[len + 1] = next[len] + counts[len];
        }
        let mut symbols = vec![0; lengths.len()];
        for (symbol, &l) in (0u16..).zip(lengths).filter(|(_, l)| **l != 0) {
            let slot = next.get_mut(usize::from(l))?;
            *symbols.get_mut(usize::from(*slot))? = symbol;
            *slot += 1;
        }
        Some(Huffman { counts, symbols })
    }

    fn decode(&self, bits: &mut Bits) -> Option<u16> {
        // `code` is the code read so far, `first` the first code of its length, `index` the
        // position of that first code among the symbols.
        let (mut code, mut first, mut index) = (0u32, 0u32, 0u32);
        let mut word = bits.peek();
        for (len, &count) in (1..).zip(self.counts.iter().skip(1)) {
            code |= (word & 1) as u32;
            word >>= 1;
            let count = u32::from(count);
            if code < first + count {
                bits.skip(len)?;
                return self.symbols.get((index + code - first) as usize).copied();
            }
            index += count;
            first = (first + count) << 1;
            code <<= 1;
        }
        None
    }
}

/// A stored block: a length, its complement, then the bytes as they are.
fn stored(bits: &mut Bits, out: &mut Vec<u8>) -> Option<()> {
    let at = bits.at.div_ceil(8);
    let head = bits.data.get(at..at + 4)?;
    let len = usize::from(u16::from_le_bytes([head[0], head[1]]));
    if u16::from_le_bytes([head[2], head[3]]) != !(len as u16) {
        return None;
    }
    out.extend_from_slice(bits.data.get(at + 4..at + 4 + len)?);
    bits.at = (at + 4 + len) * 8;
    Some(())
}

/// The fixed codes of RFC 1951 §3.2.6.
fn fixed_codes() -> Option<(Huffman, Huffman)> {
    let mut lit = [8u8; 288];
    lit[144..256].fill(9);
    lit[256..280].fill(7);
    Some((Huffman::new(&lit)?, Huffman::new(&[5; 30])?))
}

/// The codes a dynamic block sends in its header, themselves coded (RFC 1951 §3.2.7).
fn dynamic_codes(bits: &mut Bits) -> Option<(Huffman, Huffman)> {
    let nlen = bits.take(5)? as usize + 257;
    let ndist = bits.take(5)? as usize + 1;
    let ncode = bits.take(4)? as usize + 4;
    let mut cl = [0u8; 19];
    for &i in CL_ORDER.iter().take(ncode) {
        *cl.get_mut(i)? = bits.take(3)? as u8;
    }
    let cl = Huffman::new(&cl)?;
    let mut lengths = Vec::with_capacity(nlen + ndist);
    while lengths.len() < nlen + ndist {
        let (len, times) = match cl.decode(bits)? {
            sym @ 0..=15 => (sym as u8, 1),
            16 => (*lengths.last()?, 3 + bits.take(2)?),
            17 => (0, 3 + bits.take(3)?),
            _ => (0, 11 + bits.take(7)?),
        };
        lengths.extend(std::iter::repeat_n(len, times as usize));
    }
    if lengths.len() > nlen + ndist || lengths.get(END_OF_BLOCK) == Some(&0) {
        return None;
    }
    let (lit, dist) = lengths.split_at(nlen);
    Some((Huffman::new(lit)?, Huffman::new(dist)?))
}

/// A block's literals and back-references, up to its end-of-block symbol.
fn codes(bits: &mut Bits, out: &mut Vec<u8>, lit: &Huffman, dist: &Huffman) -> Option<()> {
    loop {
        let sym = usize::from(lit.decode(bits)?);
        if sym < END_OF_BLOCK {
            out.push(sym as u8);
            continue;
        }
        if sym == END_OF_BLOCK {
            return Some(());
        }
        let i = sym - END_OF_BLOCK - 1;
        let len = usize::from(*LEN_BASE.get(i)?) + bits.take(u32::from(*LEN_EXTRA.get(i)?))? as usize;
        let d = usize::from(dist.decode(bits)?);
        let back = usize::from(*DIST_BASE.get(d)?) + bits.take(u32::from(*DIST_EXTRA.get(d)?))? as usize;
        let start = out.len().checked_sub(back)?;
        if back >= len {
            out.extend_from_within(start..start + len);
            continue;
        }
        // A copy that overlaps what it writes (a run): byte by byte.
        for k in start..start + len {
            out.push(*out.get(k)?);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(s: &str) -> Vec<u8> {
        (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
    }

    /// Streams from another encoder (Python's zlib.compress): stored, fixed and dynamic blocks.
    #[test]
    fn reads_every_kind_of_block_from_another_encoder() {
        let hello = b"hello hello hello!";
        // Level 0: one stored block.
        let stored = hex("7801011200edff68656c6c6f2068656c6c6f2068656c6c6f2140cc069e");
        assert_eq!(zlib(&stored, 100).as_deref(), Some(&hello[..]));
        // Level 9: fixed codes, with a back-reference that overlaps itself.
        let fixed = hex("78dacb48cdc9c957c840908a0040cc069e");
        assert_eq!(zlib(&fixed, 100).as_deref(), Some(&hello[..]));
        // Level 9 on longer text: a dynamic block.
        let text = "sleep daily brief heart weight weekly chart trend steps ".repeat(20)[..1095].to_string();
        let dynamic = hex(
            "78daedcbd109c0200c84e1556e35ab57132a459240e9f656ba469e0efee3f3414eb4a2e3c561ca13c2628187da65\
             0fafefa9b25b18ef060f4e87a74b972eddef16ffd3980d",
        );
        assert_eq!(dynamic[2] >> 1 & 3, 2, "a dynamic block");
        assert_eq!(zlib(&dynamic, 2000).as_deref(), Some(text.as_bytes()));
    }

    #[test]
    fn reads_back_what_deflate_wrote() {
        let text: Vec<u8> =
            (0..20_000u32).flat_map(|i| format!("line {} of {}\n", i % 97, i % 13).into_bytes()).collect();
        let runs: Vec<u8> =
            (0..70_000u32).map(|i| if i % 5000 < 4000 { 255 } else { (i % 7) as u8 }).collect();
        let mut x = 12345u32;
        let noise: Vec<u8> = (0..5000)
            .map(|_| {
                x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                (x >> 16) as u8
            })
            .collect();
        for data in [Vec::new(), b"a".to_vec(), text, runs, noise] {
            assert_eq!(zlib(&deflate::zlib(&data), data.len()), Some(data.clone()), "{} bytes", data.len());
        }
    }

    #[test]
    fn refuses_bad_streams_without_panicking() {
        let good = deflate::zlib(b"the quick brown fox jumps over the lazy dog, the quick brown fox");
        assert!(zlib(&good, 1000).is_some());
        // Over the limit.
        assert!(zlib(&good, 10).is_none());
        // Every truncation, and every single-bit flip, is refused or reads something else; none
        // panics, and none passes the checksum with wrong content.
        for n in 0..good.len() {
            assert!(zlib(&good[..n], 1000).is_none(), "truncated at {n}");
        }
        for i in 0..good.len() * 8 {
            let mut bad = good.clone();
            bad[i / 8] ^= 1 << (i % 8);
            if let Some(out) = zlib(&bad, 1000) {
                assert_eq!(zlib(&good, 1000), Some(out), "bit {i}");
            }
        }
    }
}
