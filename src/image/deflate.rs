//! zlib (RFC 1950) around deflate (RFC 1951): LZ77 over a 32 KiB window with hash chains, then
//! each block coded with dynamic Huffman codes, fixed codes or stored, whichever is smallest.
//!
//! Written for PNG: a chart is mostly long runs of background, which LZ77 turns into a few
//! thousand matches. Pure; the output is a complete zlib stream any inflater reads.

/// Compresses `data` into a zlib stream (deflate, 32 KiB window, Adler-32 trailer).
pub fn zlib(data: &[u8]) -> Vec<u8> {
    // CMF 0x78: deflate with a 32 KiB window; FLG 0x5E: level "default", and 0x785E % 31 == 0.
    let mut w = BitWriter { out: vec![0x78, 0x5E], acc: 0, n: 0 };
    let tokens = lz77(data);
    let chunks: Vec<&[Token]> = tokens.chunks(BLOCK_TOKENS).collect();
    if chunks.is_empty() {
        write_block(&mut w, data, &[], true);
    }
    let mut pos = 0;
    for (i, chunk) in chunks.iter().enumerate() {
        let len: usize = chunk.iter().map(|t| t.source_len()).sum();
        let source = data.get(pos..pos + len).unwrap_or_default();
        write_block(&mut w, source, chunk, i + 1 == chunks.len());
        pos += len;
    }
    w.flush();
    w.out.extend_from_slice(&adler32(data).to_be_bytes());
    w.out
}

/// Adler-32 (RFC 1950 §8.2).
pub fn adler32(data: &[u8]) -> u32 {
    let (mut a, mut b) = (1u32, 0u32);
    // 5552 is the largest n for which the sums cannot overflow before the modulo.
    for chunk in data.chunks(5552) {
        for &x in chunk {
            a += u32::from(x);
            b += a;
        }
        a %= 65_521;
        b %= 65_521;
    }
    (b << 16) | a
}

// ---------------------------------------------------------------------------------------------
// LZ77.

const WINDOW: usize = 32_768;
const MIN_MATCH: usize = 3;
const MAX_MATCH: usize = 258;
const HASH_BITS: u32 = 15;
/// Candidates tried per position: enough for chart images, bounded for any input.
const MAX_CHAIN: usize = 64;
/// A match this long is taken at once without looking further.
const GOOD_MATCH: usize = 128;
/// Positions inside a match longer than this are not all added to the hash chains.
const LONG_MATCH: usize = 32;
/// Tokens per block: each block gets Huffman codes fitted to its own statistics.
const BLOCK_TOKENS: usize = 16_384;
const NONE: u32 = u32::MAX;

/// A literal byte (`dist == 0`) or a back-reference of `len` bytes at distance `dist`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Token {
    len: u16,
    dist: u16,
}

impl Token {
    fn source_len(self) -> usize {
        match self.dist {
            0 => 1,
            _ => usize::from(self.len),
        }
    }
}

fn hash(data: &[u8], i: usize) -> usize {
    match data.get(i..i + 3) {
        Some(&[a, b, c]) => {
            let v = (u32::from(a) << 16) | (u32::from(b) << 8) | u32::from(c);
            (v.wrapping_mul(0x9E37_79B1) >> (32 - HASH_BITS)) as usize
        }
        _ => 0,
    }
}

/// Greedy LZ77 with one step of lazy matching (a literal, then a longer match, beats a match
/// that hides it), over hash chains of the last 32 KiB.
fn lz77(data: &[u8]) -> Vec<Token> {
    let mut head = vec![NONE; 1 << HASH_BITS];
    let mut prev = vec![NONE; WINDOW];
    let mut tokens = Vec::with_capacity(data.len() / 8);
    let insert = |i: usize, head: &mut Vec<u32>, prev: &mut Vec<u32>| {
        if i + MIN_MATCH <= data.len() {
            let h = hash(data, i);
            if let (Some(slot), Some(p)) = (head.get_mut(h), prev.get_mut(i % WINDOW)) {
                *p = *slot;
                *slot = i as u32;
            }
        }
    };
    let mut i = 0;
    while i < data.len() {
        let (mut len, mut dist) = longest_match(data, i, &head, &prev);
        insert(i, &mut head, &mut prev);
        if (MIN_MATCH..GOOD_MATCH).contains(&len) && i + 1 < data.len() {
            let (next_len, next_dist) = longest_match(data, i + 1, &head, &prev);
            if next_len > len {
                tokens.push(Token { len: u16::from(data.get(i).copied().unwrap_or(0)), dist: 0 });
                i += 1;
                insert(i, &mut head, &mut prev);
                (len, dist) = (next_len, next_dist);
            }
        }
        if len >= MIN_MATCH {
            tokens.push(Token { len: len as u16, dist: dist as u16 });
            // Inside a long match (a run of background) every position would hash alike; the
            // last few are enough for what follows to find it, and inserting all of them was
            // most of the time spent on a chart.
            let from = if len > LONG_MATCH { i + len - MIN_MATCH } else { i + 1 };
            for j in from..i + len {
                insert(j, &mut head, &mut prev);
            }
            i += len;
        } else {
            tokens.push(Token { len: u16::from(data.get(i).copied().unwrap_or(0)), dist: 0 });
            i += 1;
        }
    }
    tokens
}

/// The longest earlier match for position `i` (not yet inserted): `(len, dist)`, len 0 if none.
fn longest_match(data: &[u8], i: usize, head: &[u32], prev: &[u32]) -> (usize, usize) {
    let max = (data.len() - i).min(MAX_MATCH);
    if max < MIN_MATCH {
        return (0, 0);
    }
    let (mut best_len, mut best_dist) = (0, 0);
    let mut cand = head.get(hash(data, i)).copied().unwrap_or(NONE);
    let here = data.get(i..i + max).unwrap_or_default();
    for _ in 0..MAX_CHAIN {
        if cand == NONE {
            break;
        }
        let c = cand as usize;
        if c >= i || i - c > WINDOW - 1 {
            break;
        }
        let there = data.get(c..c + max).unwrap_or_default();
        // Check the byte that would make this match longer first: most candidates fail there.
        if there.get(best_len) == here.get(best_len) {
            let len = here.iter().zip(there).take_while(|(a, b)| a == b).count();
            if len > best_len {
                (best_len, best_dist) = (len, i - c);
                if len == max {
                    break;
                }
            }
        }
        let next = prev.get(c % WINDOW).copied().unwrap_or(NONE);
        // The chain slot may have been reused by a newer position: stop when it goes forward.
        if next != NONE && next as usize >= c {
            break;
        }
        cand = next;
    }
    (best_len, best_dist)
}

// ---------------------------------------------------------------------------------------------
// Blocks and Huffman codes. The tables are shared with `inflate`.

pub(super) const LEN_BASE: [u16; 29] = [
    3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195,
    227, 258,
];
pub(super) const LEN_EXTRA: [u8; 29] =
    [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];
pub(super) const DIST_BASE: [u16; 30] = [
    1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073,
    4097, 6145, 8193, 12289, 16385, 24577,
];
pub(super) const DIST_EXTRA: [u8; 30] =
    [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13];
/// The order in which code-length code lengths are sent (RFC 1951 §3.2.7).
pub(super) const CL_ORDER: [usize; 19] = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];
pub(super) const END_OF_BLOCK: usize = 256;

/// The code index and extra bits of a value in a base table: `(index, extra_bits, extra_value)`.
fn code_of(base: &[u16], extra: &[u8], v: u16) -> (usize, u8, u16) {
    let i = base.partition_point(|&b| b <= v).saturating_sub(1);
    let b = base.get(i).copied().unwrap_or(0);
    (i, extra.get(i).copied().unwrap_or(0), v - b)
}

/// A Huffman code: bit length per symbol and the code bits, already reversed for the LSB-first
/// bit stream.
struct Code {
    lens: Vec<u8>,
    bits: Vec<u16>,
}

impl Code {
    fn from_lens(lens: Vec<u8>) -> Code {
        let mut count = [0u16; 16];
        for &l in &lens {
            if let Some(c) = count.get_mut(usize::from(l)) {
                *c += 1;
            }
        }
        count[0] = 0;
        let mut next = [0u16; 16];
        let mut code = 0u16;
        for b in 1..16 {
            code = (code + count[b - 1]) << 1;
            next[b] = code;
        }
        let bits = lens
            .iter()
            .map(|&l| match next.get_mut(usize::from(l)) {
                Some(n) if l > 0 => {
                    let c = *n;
                    *n += 1;
                    c.reverse_bits() >> (16 - l)
                }
                _ => 0,
            })
            .collect();
        Code { lens, bits }
    }

    fn put(&self, w: &mut BitWriter, sym: usize) {
        let (bits, len) =
            (self.bits.get(sym).copied().unwrap_or(0), self.lens.get(sym).copied().unwrap_or(0));
        w.put(u32::from(bits), len);
    }

    /// Bits needed to send symbols with these frequencies.
    fn cost(&self, freq: &[u32]) -> u64 {
        freq.iter().zip(&self.lens).map(|(&f, &l)| u64::from(f) * u64::from(l)).sum()
    }
}

/// Huffman code lengths for `freq`, at most `limit` bits. Always a complete code over at least
/// two symbols (zlib rejects incomplete ones); over-long codes are avoided by halving the
/// frequencies and rebuilding, which keeps the result a true Huffman code of nearby weights.
fn code_lengths(freq: &[u32], limit: u8) -> Vec<u8> {
    let mut f: Vec<u32> = freq.to_vec();
    for i in 0..f.len() {
        if f.iter().filter(|&&x| x > 0).count() >= 2 {
            break;
        }
        if let Some(x) = f.get_mut(i).filter(|x| **x == 0) {
            *x = 1;
        }
    }
    loop {
        let lens = huffman_lengths(&f);
        if lens.iter().all(|&l| l <= limit) {
            return lens;
        }
        for x in f.iter_mut().filter(|x| **x > 0) {
            *x = (*x >> 1).max(1);
        }
    }
}

/// Depths of the leaves of a Huffman tree built with two queues over the sorted leaves.
fn huffman_lengths(freq: &[u32]) -> Vec<u8> {
    let mut leaves: Vec<(u32, usize)> =
        freq.iter().enumerate().filter(|(_, f)| **f > 0).map(|(s, f)| (*f, s)).collect();
    // At most 286 symbols: an insertion sort is quick enough and adds no generic sort code.
    for i in 1..leaves.len() {
        let mut j = i;
        while j > 0 && leaves.get(j - 1).zip(leaves.get(j)).is_some_and(|(a, b)| a > b) {
            leaves.swap(j - 1, j);
            j -= 1;
        }
    }
    let m = leaves.len();
    // Nodes 0..m are leaves, m.. internal nodes in creation order (the root is last).
    let mut weight: Vec<u64> = leaves.iter().map(|l| u64::from(l.0)).collect();
    let mut parent = vec![0usize; m];
    let (mut next_leaf, mut next_inner) = (0, m);
    for _ in 1..m {
        let a = pop_lightest(&weight, m, &mut next_leaf, &mut next_inner);
        let b = pop_lightest(&weight, m, &mut next_leaf, &mut next_inner);
        let node = weight.len();
        let w = weight.get(a).copied().unwrap_or(0) + weight.get(b).copied().unwrap_or(0);
        weight.push(w);
        parent.push(0);
        for child in [a, b] {
            if let Some(p) = parent.get_mut(child) {
                *p = node;
            }
        }
    }
    let mut depth = vec![0u8; weight.len()];
    for node in (0..weight.len().saturating_sub(1)).rev() {
        let d = parent.get(node).and_then(|&p| depth.get(p)).copied().unwrap_or(0);
        if let Some(x) = depth.get_mut(node) {
            *x = d.saturating_add(1);
        }
    }
    let mut lens = vec![0u8; freq.len()];
    for (i, &(_, sym)) in leaves.iter().enumerate() {
        if let (Some(l), Some(&d)) = (lens.get_mut(sym), depth.get(i)) {
            *l = d.max(1);
        }
    }
    lens
}

/// The lighter of the next unused leaf and the next unused inner node (a leaf on ties).
fn pop_lightest(weight: &[u64], m: usize, next_leaf: &mut usize, next_inner: &mut usize) -> usize {
    let leaf = (*next_leaf < m).then(|| weight.get(*next_leaf).copied().unwrap_or(0));
    let inner = (*next_inner < weight.len()).then(|| weight.get(*next_inner).copied().unwrap_or(0));
    let slot = match (leaf, inner) {
        (Some(a), Some(b)) if b < a => next_inner,
        (Some(_), _) => next_leaf,
        _ => next_inner,
    };
    *slot += 1;
    *slot - 1
}

/// Symbol frequencies of a block: literal/length (286) and distance (30) alphabets, plus the
/// extra bits the block needs whatever the codes.
fn frequencies(tokens: &[Token]) -> (Vec<u32>, Vec<u32>, u64) {
    let (mut lit, mut dist, mut extra) = (vec![0u32; 286], vec![0u32; 30], 0u64);
    for t in tokens {
        match t.dist {
            0 => lit[usize::from(t.len as u8)] += 1,
            d => {
                let (li, le, _) = code_of(&LEN_BASE, &LEN_EXTRA, t.len);
                let (di, de, _) = code_of(&DIST_BASE, &DIST_EXTRA, d);
                if let (Some(l), Some(x)) = (lit.get_mut(257 + li), dist.get_mut(di)) {
                    *l += 1;
                    *x += 1;
                }
                extra += u64::from(le) + u64::from(de);
            }
        }
    }
    lit[END_OF_BLOCK] = 1;
    (lit, dist, extra)
}

fn fixed_codes() -> (Code, Code) {
    let lit = (0..288).map(|s| match s {
        0..=143 => 8,
        144..=255 => 9,
        256..=279 => 7,
        _ => 8,
    });
    (Code::from_lens(lit.collect()), Code::from_lens(vec![5; 30]))
}

/// Run-length codes of the concatenated code lengths: `(symbol, extra value)` with symbols
/// 0..=15 (a length), 16 (repeat the previous 3–6 times), 17 (3–10 zeros), 18 (11–138 zeros).
fn rle_lengths(lens: &[u8]) -> Vec<(u8, u8)> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(&l) = lens.get(i) {
        let run = lens.get(i..).unwrap_or_default().iter().take_while(|&&x| x == l).count();
        if l == 0 && run >= 3 {
            let n = run.min(138);
            out.push(if n >= 11 { (18, (n - 11) as u8) } else { (17, (n - 3) as u8) });
            i += n;
        } else if l != 0 && run >= 4 {
            out.push((l, 0));
            let n = (run - 1).min(6);
            out.push((16, (n - 3) as u8));
            i += 1 + n;
        } else {
            out.push((l, 0));
            i += 1;
        }
    }
    out
}

/// Writes one block in the cheapest of the three forms.
fn write_block(w: &mut BitWriter, source: &[u8], tokens: &[Token], last: bool) {
    let (lit_f, dist_f, extra) = frequencies(tokens);
    let lit_code = Code::from_lens(code_lengths(&lit_f, 15));
    let dist_code = Code::from_lens(code_lengths(&dist_f, 15));
    let hlit = lit_code.lens.iter().rposition(|&l| l > 0).map_or(257, |p| (p + 1).max(257));
    let hdist = dist_code.lens.iter().rposition(|&l| l > 0).map_or(1, |p| p + 1);
    let mut all = lit_code.lens.get(..hlit).unwrap_or_default().to_vec();
    all.extend_from_slice(dist_code.lens.get(..hdist).unwrap_or_default());
    let rle = rle_lengths(&all);
    let mut cl_f = vec![0u32; 19];
    for &(s, _) in &rle {
        cl_f[usize::from(s)] += 1;
    }
    let cl_code = Code::from_lens(code_lengths(&cl_f, 7));
    let hclen = CL_ORDER
        .iter()
        .rposition(|&s| cl_code.lens.get(s).is_some_and(|&l| l > 0))
        .map_or(4, |p| (p + 1).max(4));
    let rle_extra: u64 = rle
        .iter()
        .map(|&(s, _)| [2u64, 3, 7].get(usize::from(s).wrapping_sub(16)).copied().unwrap_or(0))
        .sum();
    let dynamic_bits = 14
        + 3 * hclen as u64
        + cl_code.cost(&cl_f)
        + rle_extra
        + lit_code.cost(&lit_f)
        + dist_code.cost(&dist_f)
        + extra;
    let (fixed_lit, fixed_dist) = fixed_codes();
    let fixed_bits = fixed_lit.cost(&lit_f) + fixed_dist.cost(&dist_f) + extra;
    let stored_bits = 8 * (source.len() as u64 + 5 * source.len().div_ceil(65_535).max(1) as u64) + 7;

    if stored_bits < dynamic_bits.min(fixed_bits) {
        let chunks: Vec<&[u8]> = source.chunks(65_535).collect();
        let n = chunks.len().max(1);
        for i in 0..n {
            let chunk = chunks.get(i).copied().unwrap_or_default();
            w.put(u32::from(last && i + 1 == n), 1);
            w.put(0, 2);
            w.flush();
            let len = chunk.len() as u16;
            w.out.extend_from_slice(&len.to_le_bytes());
            w.out.extend_from_slice(&(!len).to_le_bytes());
            w.out.extend_from_slice(chunk);
        }
        return;
    }
    w.put(u32::from(last), 1);
    if fixed_bits <= dynamic_bits {
        w.put(1, 2);
        write_tokens(w, tokens, &fixed_lit, &fixed_dist);
        return;
    }
    w.put(2, 2);
    w.put((hlit - 257) as u32, 5);
    w.put((hdist - 1) as u32, 5);
    w.put((hclen - 4) as u32, 4);
    for &s in CL_ORDER.iter().take(hclen) {
        w.put(u32::from(cl_code.lens.get(s).copied().unwrap_or(0)), 3);
    }
    for (s, x) in rle {
        cl_code.put(w, usize::from(s));
        match s {
            16 => w.put(u32::from(x), 2),
            17 => w.put(u32::from(x), 3),
            18 => w.put(u32::from(x), 7),
            _ => {}
        }
    }
    write_tokens(w, tokens, &lit_code, &dist_code);
}

fn write_tokens(w: &mut BitWriter, tokens: &[Token], lit: &Code, dist: &Code) {
    for t in tokens {
        match t.dist {
            0 => lit.put(w, usize::from(t.len as u8)),
            d => {
                let (li, le, lv) = code_of(&LEN_BASE, &LEN_EXTRA, t.len);
                lit.put(w, 257 + li);
                w.put(u32::from(lv), le);
                let (di, de, dv) = code_of(&DIST_BASE, &DIST_EXTRA, d);
                dist.put(w, di);
                w.put(u32::from(dv), de);
            }
        }
    }
    lit.put(w, END_OF_BLOCK);
}

/// Bits in, least significant first (RFC 1951 §3.1.1).
struct BitWriter {
    out: Vec<u8>,
    acc: u64,
    n: u8,
}

impl BitWriter {
    fn put(&mut self, bits: u32, n: u8) {
        self.acc |= u64::from(bits) << self.n;
        self.n += n;
        while self.n >= 8 {
            self.out.push(self.acc as u8);
            self.acc >>= 8;
            self.n -= 8;
        }
    }

    /// Pads to a byte boundary with zero bits.
    fn flush(&mut self) {
        if self.n > 0 {
            self.out.push(self.acc as u8);
        }
        (self.acc, self.n) = (0, 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::process::{Command, Stdio};

    /// Inflates with Python's zlib, an independent implementation. `None` (with a loud
    /// message) only outside CI when python3 is missing.
    pub fn python_inflate(stream: &[u8]) -> Option<Vec<u8>> {
        let script = "import sys, zlib; sys.stdout.buffer.write(zlib.decompress(sys.stdin.buffer.read()))";
        let child = Command::new("python3")
            .args(["-c", script])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn();
        let mut child = match child {
            Ok(c) => c,
            Err(e) if std::env::var_os("CI").is_none() => {
                eprintln!("SKIPPED: python3 is not available ({e}); the zlib stream was not checked");
                return None;
            }
            Err(e) => panic!("python3 is required in CI: {e}"),
        };
        let mut stdin = child.stdin.take().unwrap();
        let input = stream.to_vec();
        let writer = std::thread::spawn(move || stdin.write_all(&input));
        let out = child.wait_with_output().unwrap();
        writer.join().unwrap().unwrap();
        assert!(
            out.status.success(),
            "python zlib refused the stream: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        Some(out.stdout)
    }

    fn lcg_bytes(n: usize, seed: u64) -> Vec<u8> {
        let mut x = seed;
        (0..n)
            .map(|_| {
                x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                (x >> 56) as u8
            })
            .collect()
    }

    #[test]
    fn python_zlib_inflates_every_kind_of_input() {
        let text = b"The trend is the level, not the last reading. ".repeat(400);
        let mut far = lcg_bytes(40_000, 7);
        let head = far[..300].to_vec();
        far.extend_from_slice(&head); // a match 40,000 bytes back: beyond the window, a literal run
        let mut edge = lcg_bytes(32_768, 3);
        let first = edge[..300].to_vec();
        edge.extend_from_slice(&first); // a match exactly 32,768 back: the largest distance
        let mut image_like = Vec::new();
        for y in 0..300u32 {
            image_like.push(1);
            for x in 0..800u32 {
                let v: u8 = if (x + y) % 97 == 0 { 40 } else { 255 };
                image_like.extend_from_slice(&[v, v, v.saturating_sub((y % 3) as u8)]);
            }
        }
        let cases: Vec<(&str, Vec<u8>)> = vec![
            ("empty", Vec::new()),
            ("one byte", b"a".to_vec()),
            ("two bytes", b"ab".to_vec()),
            ("runs of 258 and more", vec![0u8; 1000]),
            ("run of 259", [vec![9u8; 259], vec![1]].concat()),
            ("text", text.clone()),
            ("random", lcg_bytes(100_000, 42)),
            ("beyond the window", far),
            ("at the window's edge", edge),
            ("image-like", image_like.clone()),
            ("all byte values", (0..=255u8).cycle().take(70_000).collect()),
        ];
        for (name, data) in cases {
            let z = zlib(&data);
            assert_eq!(&z[..2], &[0x78, 0x5E], "{name}");
            assert_eq!(z[z.len() - 4..], adler32(&data).to_be_bytes(), "{name}");
            if let Some(back) = python_inflate(&z) {
                assert_eq!(back, data, "{name}: round trip");
            }
        }
        // Real compression, not stored blocks: repetitive input shrinks a lot, random does not
        // grow by more than stored-block framing.
        assert!(zlib(&text).len() < text.len() / 20, "{}", zlib(&text).len());
        assert!(zlib(&image_like).len() < image_like.len() / 50, "{}", zlib(&image_like).len());
        let random = lcg_bytes(100_000, 42);
        assert!(zlib(&random).len() <= random.len() + random.len() / 1000 + 64, "{}", zlib(&random).len());
    }

    #[test]
    fn adler32_matches_known_values() {
        assert_eq!(adler32(b""), 1);
        assert_eq!(adler32(b"Wikipedia"), 0x11E6_0398);
        // Long input exercises the deferred modulo.
        assert_eq!(adler32(&vec![0xFF; 100_000]), {
            let (mut a, mut b) = (1u64, 0u64);
            for _ in 0..100_000 {
                a = (a + 255) % 65_521;
                b = (b + a) % 65_521;
            }
            ((b << 16) | a) as u32
        });
    }

    #[test]
    fn huffman_codes_are_complete_and_length_limited() {
        // Fibonacci frequencies force the deepest possible tree.
        let mut fib = vec![1u32, 1];
        while fib.len() < 30 {
            let n = fib[fib.len() - 1] + fib[fib.len() - 2];
            fib.push(n);
        }
        for (freq, limit) in
            [(fib.clone(), 15u8), (fib, 7), (vec![5, 0, 0], 15), (vec![0; 19], 7), (vec![3, 3, 3, 3], 7)]
        {
            let lens = code_lengths(&freq, limit);
            assert!(lens.iter().all(|&l| l <= limit), "{lens:?}");
            let kraft: f64 = lens.iter().filter(|&&l| l > 0).map(|&l| 0.5f64.powi(i32::from(l))).sum();
            assert!((kraft - 1.0).abs() < 1e-12, "incomplete code {lens:?}");
            for (f, l) in freq.iter().zip(&lens) {
                assert!(*f == 0 || *l > 0, "a used symbol has no code: {lens:?}");
            }
        }
    }

    #[test]
    fn length_and_distance_codes_follow_rfc1951() {
        let cases = [
            (3, (0, 0, 0)),
            (10, (7, 0, 0)),
            (11, (8, 1, 0)),
            (12, (8, 1, 1)),
            (257, (27, 5, 30)),
            (258, (28, 0, 0)),
        ];
        for (len, want) in cases {
            assert_eq!(code_of(&LEN_BASE, &LEN_EXTRA, len), want, "length {len}");
        }
        let cases =
            [(1, (0, 0, 0)), (4, (3, 0, 0)), (5, (4, 1, 0)), (6, (4, 1, 1)), (32_768, (29, 13, 8191))];
        for (dist, want) in cases {
            assert_eq!(code_of(&DIST_BASE, &DIST_EXTRA, dist), want, "distance {dist}");
        }
    }
}
