//! A small JSON reader for the answers that can be megabytes long (ten years of getmeas): it
//! reads the fields asked for where they stand in the text, skips the others while checking that
//! they are JSON, and builds nothing on the way (no tree, no string per key). serde_json did the
//! same job at ~65 instructions a byte in the size-optimised build, mostly in generic visitors.
//!
//! Strict where JSON is (a truncated or malformed answer is `Fault::Syntax`, as serde_json would
//! say), and the callers are lenient where Withings is, through [`Lit`]'s readings.

use std::borrow::Cow;

use crate::domain::fields::{Num, decimal};

/// Why a text could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fault {
    /// Not JSON (cut short, a proxy's page, a stray byte).
    Syntax,
    /// JSON, but not of a shape that can be read: what was wrong.
    Shape(&'static str),
}

/// One JSON value as the lenient readers see it (here and through serde, `wire::int` and its
/// siblings); `null`, arrays and objects are skipped unread.
#[derive(Debug, Clone, PartialEq)]
pub enum Lit<'a> {
    Int(i64),
    Float(f64),
    Str(Cow<'a, str>),
    Bool(bool),
    Other,
}

impl Lit<'_> {
    /// An integer: a JSON integer, a float without fraction or a numeric string (what `wire::int`
    /// reads).
    pub fn int(&self) -> Option<i64> {
        match self {
            Lit::Int(n) => Some(*n),
            Lit::Float(f) => (f.fract() == 0.0 && f.abs() < 9.0e15).then_some(*f as i64),
            Lit::Str(s) => s.trim().parse().ok(),
            _ => None,
        }
    }

    /// A non-empty string.
    pub fn text(self) -> Option<String> {
        match self {
            Lit::Str(s) if !s.is_empty() => Some(s.into_owned()),
            _ => None,
        }
    }

    /// A finite number, a JSON number or a numeric string, as written (integer or not).
    pub fn number(&self) -> Option<Num> {
        match self {
            Lit::Int(n) => Some(Num::Int(*n)),
            Lit::Float(f) => f.is_finite().then_some(Num::Float(*f)),
            Lit::Str(t) => {
                let t = t.trim();
                t.parse().map(Num::Int).ok().or_else(|| decimal(t).map(Num::Float))
            }
            _ => None,
        }
    }

    /// A boolean: `true`/`false`, a number (0 is false, any other is true) or the same as a
    /// string (Withings' `more`).
    pub fn flag(&self) -> Option<bool> {
        match self {
            Lit::Bool(b) => Some(*b),
            Lit::Str(s) if s.trim().eq_ignore_ascii_case("true") => Some(true),
            Lit::Str(s) if s.trim().eq_ignore_ascii_case("false") => Some(false),
            other => other.int().map(|n| n != 0),
        }
    }
}

/// Nesting deeper than this is refused, as serde_json refuses it: the skipper recurses.
const MAX_DEPTH: u32 = 128;

/// A reading position in a JSON text.
pub struct Scan<'a> {
    text: &'a str,
    at: usize,
    depth: u32,
    /// What stood between the values of the last object passed over, entry by entry: where in
    /// the text, and how long (see [`Scan::skip`]).
    shapes: [(usize, usize); SHAPES],
}

/// How many of an object's entries [`Scan::skip`] remembers the shape of (a measure has five).
const SHAPES: usize = 8;

type Step<'a, 'f> = &'f mut dyn FnMut(&mut Scan<'a>) -> Result<(), Fault>;
type Entry<'a, 'f> = &'f mut dyn FnMut(&mut Scan<'a>, &str) -> Result<(), Fault>;
type Take<'a, 'f> = &'f mut dyn FnMut(&mut Scan<'a>, &str) -> Result<bool, Fault>;

impl<'a> Scan<'a> {
    pub fn new(text: &'a str) -> Scan<'a> {
        Scan { text, at: 0, depth: 0, shapes: [(0, 0); SHAPES] }
    }

    /// Where the reader stands (a byte offset into the text).
    pub fn at(&self) -> usize {
        self.at
    }

    /// Goes back to `at`, a place the reader stood at this depth, to read again what
    /// [`Scan::int_object`] read but the caller wants read otherwise.
    pub fn back_to(&mut self, at: usize) {
        self.at = at;
    }

    /// The text from `from` to where the reader stands.
    pub fn since(&self, from: usize) -> &'a str {
        self.text.get(from..self.at).unwrap_or_default()
    }

    /// Nothing but whitespace is left.
    pub fn end(&mut self) -> Result<(), Fault> {
        match self.peek() {
            Err(_) => Ok(()),
            Ok(_) => Err(Fault::Syntax),
        }
    }

    #[inline(always)]
    fn byte(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at).copied()
    }

    /// The next byte that is not whitespace, not consumed.
    #[inline(always)]
    pub fn peek(&mut self) -> Result<u8, Fault> {
        while let Some(b) = self.byte() {
            if !matches!(b, b' ' | b'\n' | b'\r' | b'\t') {
                return Ok(b);
            }
            self.at += 1;
        }
        Err(Fault::Syntax)
    }

    fn eat(&mut self, want: u8) -> Result<(), Fault> {
        match self.peek()? == want {
            true => {
                self.at += 1;
                Ok(())
            }
            false => Err(Fault::Syntax),
        }
    }

    fn deeper(&mut self) -> Result<(), Fault> {
        self.depth += 1;
        match self.depth > MAX_DEPTH {
            true => Err(Fault::Syntax),
            false => Ok(()),
        }
    }

    /// The entries of an object: `each` gets each key and must read its value.
    pub fn object(&mut self, each: Entry<'a, '_>) -> Result<(), Fault> {
        self.eat(b'{')?;
        self.deeper()?;
        if self.peek()? == b'}' {
            self.at += 1;
            self.depth -= 1;
            return Ok(());
        }
        loop {
            if self.peek()? != b'"' {
                return Err(Fault::Syntax);
            }
            let key = self.string()?;
            self.eat(b':')?;
            each(self, &key)?;
            match self.peek()? {
                b',' => self.at += 1,
                b'}' => break,
                _ => return Err(Fault::Syntax),
            }
        }
        self.at += 1;
        self.depth -= 1;
        Ok(())
    }

    /// The elements of an array: `each` must read each one.
    pub fn array(&mut self, each: Step<'a, '_>) -> Result<(), Fault> {
        self.eat(b'[')?;
        self.deeper()?;
        if self.peek()? == b']' {
            self.at += 1;
            self.depth -= 1;
            return Ok(());
        }
        loop {
            each(self)?;
            match self.peek()? {
                b',' => self.at += 1,
                b']' => break,
                _ => return Err(Fault::Syntax),
            }
        }
        self.at += 1;
        self.depth -= 1;
        Ok(())
    }

    /// Passes over one value, checking that it is JSON: most of a long answer (each weigh-in's
    /// measures) is passed over, so this is one loop over the bytes with the reader's place in
    /// a local, containers tracked in a bit per level rather than by recursion, and numbers
    /// checked, not computed. It accepts and refuses exactly what the recursive walk it
    /// replaced did (the tests hold it to that walk).
    ///
    /// The objects of a long answer come in one shape (a measure is always `{"value": …,
    /// "type": …, "unit": …, "algo": …, "fm": …}`), so what stands between an object's values
    /// (`, "type":`: a comma, a key, a colon and the spaces before them) is remembered entry by
    /// entry, and the next object's bytes compared with it: bytes the same as ones found to be
    /// JSON in the same place are JSON. (Ten years of weigh-ins: 145 M instructions to pass
    /// over the measures byte by byte, 133 M so; the recursive walk with its numbers gathered
    /// took 138 M: the cost is in the structure, not in the numbers.)
    pub fn skip(&mut self) -> Result<(), Fault> {
        // A scalar (most of the fields a reader passes over) without the containers' loop.
        let bytes = self.text.as_bytes();
        let (from, b) = next(bytes, self.at).ok_or(Fault::Syntax)?;
        self.at = match b {
            b'"' => pass_string(bytes, from)?.0,
            b'0'..=b'9' | b'-' => number_end(bytes, from)?,
            b'{' | b'[' => {
                self.at = from;
                return self.pass();
            }
            b't' => word(bytes, from, b"true")?,
            b'f' => word(bytes, from, b"false")?,
            b'n' => word(bytes, from, b"null")?,
            _ => return Err(Fault::Syntax),
        };
        Ok(())
    }

    /// [`Scan::skip`] of an object or an array. One loop, a little over 80 lines, kept whole on
    /// purpose: it passes over most of a long answer, and each piece moved out of it measured
    /// slower (the whitespace loop out of line: +26 M instructions on the ten-year listing).
    fn pass(&mut self) -> Result<(), Fault> {
        let bytes = self.text.as_bytes();
        let (base, mut at) = (self.depth, self.at);
        // One bit per container open inside this value, the innermost lowest: 1 for an object.
        // `MAX_DEPTH` levels fit.
        let mut open = 0u128;
        // The entry the reader is at in the innermost object, while that object holds only
        // scalars (past one of its own containers, or past `SHAPES`, its shape is not followed).
        let mut entry = usize::MAX;
        'value: loop {
            let (from, b) = next(bytes, at).ok_or(Fault::Syntax)?;
            at = match b {
                b'"' => pass_string(bytes, from)?.0,
                b'0'..=b'9' | b'-' => number_end(bytes, from)?,
                b'{' | b'[' => {
                    self.deeper()?;
                    open = open << 1 | u128::from(b == b'{');
                    at = from + 1;
                    entry = usize::MAX;
                    if b == b'{' {
                        entry = 1;
                        if let Some(end) = self.shaped(0, at) {
                            at = end;
                            continue 'value;
                        }
                    }
                    // `{` + 2 is `}`, `[` + 2 is `]`.
                    match next(bytes, at) {
                        Some((end, c)) if c == b + 2 => {
                            open >>= 1;
                            self.depth -= 1;
                            entry = usize::MAX;
                            end + 1
                        }
                        _ if b == b'{' => {
                            let value = pass_key(bytes, at)?;
                            self.shapes[0] = (at, value - at);
                            at = value;
                            continue 'value;
                        }
                        _ => continue 'value,
                    }
                }
                b't' => word(bytes, from, b"true")?,
                b'f' => word(bytes, from, b"false")?,
                b'n' => word(bytes, from, b"null")?,
                _ => return Err(Fault::Syntax),
            };
            // After a value: the containers it closes, then the next value, if any.
            while self.depth != base {
                let object = open & 1 == 1;
                if object && let Some(end) = self.shaped(entry, at) {
                    entry += 1;
                    at = end;
                    continue 'value;
                }
                match next(bytes, at) {
                    Some((end, b',')) if object => {
                        let value = pass_key(bytes, end + 1)?;
                        if let Some(shape) = self.shapes.get_mut(entry) {
                            *shape = (at, value - at);
                            entry += 1;
                        }
                        at = value;
                        continue 'value;
                    }
                    Some((end, b',')) => {
                        at = end + 1;
                        continue 'value;
                    }
                    Some((end, b'}')) if object => at = end + 1,
                    Some((end, b']')) if !object => at = end + 1,
                    _ => return Err(Fault::Syntax),
                }
                open >>= 1;
                self.depth -= 1;
                entry = usize::MAX;
            }
            self.at = at;
            return Ok(());
        }
    }

    /// Where the `entry`th separator of an object ends, when the bytes at `at` are the ones
    /// remembered for it: sixteen bytes compared as two words, those past the separator
    /// shifted out. A longer separator, or one too near the end of the text, is read
    /// (the shapes are only a shortcut).
    #[inline(always)]
    fn shaped(&self, entry: usize, at: usize) -> Option<usize> {
        let (from, len) = *self.shapes.get(entry)?;
        let bytes = self.text.as_bytes();
        let (a, b) = (bytes.get(at..)?.first_chunk::<16>()?, bytes.get(from..)?.first_chunk::<16>()?);
        let word = |w: &[u8]| w.first_chunk::<8>().map(|w| u64::from_le_bytes(*w));
        let lo = word(a)? ^ word(b)?;
        let hi = word(a.get(8..)?)? ^ word(b.get(8..)?)?;
        // In words, as shifts of 64 bits: a shift of 128 is a call.
        let same = match len {
            1..=8 => lo << (64 - 8 * len) == 0,
            9..=16 => lo == 0 && hi << (128 - 8 * len) == 0,
            _ => false,
        };
        same.then_some(at + len)
    }

    /// Reads an object's entries as [`Scan::object`] does, but hands `take` (the reader after
    /// the key's colon) only the keys: it reads the value and says `true`, or says `false` to
    /// have the value passed over here, in line, without a call (a list's first pass reads a
    /// row's times and passes over the rest: a closure call and a key string per entry were a
    /// third of that pass). Anything but an object is passed over whole.
    pub fn entries(&mut self, take: Take<'a, '_>) -> Result<(), Fault> {
        let text = self.text;
        let bytes = text.as_bytes();
        if self.peek()? != b'{' {
            return self.skip();
        }
        self.deeper()?;
        let mut at = match next(bytes, self.at + 1) {
            Some((end, b'}')) => {
                self.depth -= 1;
                self.at = end + 1;
                return Ok(());
            }
            _ => self.at + 1,
        };
        loop {
            let (key_at, end, escaped) = match next(bytes, at) {
                Some((key_at, b'"')) => {
                    let (end, escaped) = pass_string(bytes, key_at)?;
                    (key_at, end, escaped)
                }
                _ => return Err(Fault::Syntax),
            };
            self.at = match next(bytes, end) {
                Some((colon, b':')) => colon + 1,
                _ => return Err(Fault::Syntax),
            };
            let key = match escaped {
                true => {
                    let at = std::mem::replace(&mut self.at, key_at);
                    let key = self.string()?;
                    self.at = at;
                    key
                }
                false => Cow::Borrowed(text.get(key_at + 1..end - 1).unwrap_or_default()),
            };
            if !take(self, &key)? {
                let (from, b) = next(bytes, self.at).ok_or(Fault::Syntax)?;
                self.at = match b {
                    b'"' => pass_string(bytes, from)?.0,
                    b'0'..=b'9' | b'-' => number_end(bytes, from)?,
                    _ => {
                        self.skip()?;
                        self.at
                    }
                };
            }
            at = match next(bytes, self.at) {
                Some((end, b',')) => end + 1,
                Some((end, b'}')) => {
                    self.depth -= 1;
                    self.at = end + 1;
                    return Ok(());
                }
                _ => return Err(Fault::Syntax),
            };
        }
    }

    /// An object of integers with plain keys, as a long answer's measures are, read without a
    /// string, a value or a call per entry: each integer whose key `slot` places is kept, the
    /// others passed over. `None`, the reader where it was, on anything else (an escape, a
    /// fraction, a string, a nested value, an empty object, bad JSON): the general reader then
    /// reads or refuses it. A repeated key keeps its last value, as [`Scan::object`] does.
    /// Through `object` and `lit`, a measure cost five times as much.
    #[inline(always)]
    pub fn int_object<const N: usize>(
        &mut self,
        slot: impl Fn(&[u8]) -> Option<usize>,
    ) -> Option<[Option<i64>; N]> {
        let from = self.at;
        let out = self.int_entries(slot);
        if out.is_none() {
            self.at = from;
        }
        out
    }

    #[inline(always)]
    fn int_entries<const N: usize>(
        &mut self,
        slot: impl Fn(&[u8]) -> Option<usize>,
    ) -> Option<[Option<i64>; N]> {
        let bytes = self.text.as_bytes();
        let mut out = [None; N];
        // As deep as `deeper` allows, where the general reader refuses an object.
        if self.depth >= MAX_DEPTH || self.peek().ok()? != b'{' {
            return None;
        }
        self.at += 1;
        loop {
            if self.peek().ok()? != b'"' {
                return None;
            }
            self.at += 1;
            let start = self.at;
            // Stopped at an escape: declined; at a control character: not JSON.
            if self.plain().ok()? {
                return None;
            }
            let key = bytes.get(start..self.at)?;
            self.at += 1;
            if self.peek().ok()? != b':' {
                return None;
            }
            self.at += 1;
            let n = self.small_int()?;
            if let Some(i) = slot(key) {
                *out.get_mut(i)? = Some(n);
            }
            match self.peek().ok()? {
                b',' => self.at += 1,
                b'}' => {
                    self.at += 1;
                    return Some(out);
                }
                _ => return None,
            }
        }
    }

    /// An integer of up to eighteen digits, as `lit` then `Lit::int` read it (the caller refuses
    /// a fraction or an exponent after it); `None`, the reader moved, on anything else.
    #[inline(always)]
    fn small_int(&mut self) -> Option<i64> {
        let negative = self.peek().ok()? == b'-';
        self.at += usize::from(negative);
        let (bytes, first) = (self.text.as_bytes(), self.at);
        let mut n = 0i64;
        // Gathered as the digits pass; past eighteen, which always fit, declined.
        while let Some(&d @ b'0'..=b'9') = bytes.get(self.at) {
            if self.at - first == 18 {
                return None;
            }
            n = n * 10 + i64::from(d - b'0');
            self.at += 1;
        }
        let len = self.at - first;
        // A leading zero before another digit is not JSON: the general reader refuses it.
        if len == 0 || (len > 1 && bytes.get(first) == Some(&b'0')) {
            return None;
        }
        Some(if negative { -n } else { n })
    }

    /// One value: a scalar as it is, a composite skipped (`Lit::Other`).
    pub fn lit(&mut self) -> Result<Lit<'a>, Fault> {
        let word = |s: &mut Scan, w: &[u8], lit: Lit<'a>| {
            s.at = word(s.text.as_bytes(), s.at, w)?;
            Ok(lit)
        };
        match self.peek()? {
            b'"' => self.string().map(Lit::Str),
            b't' => word(self, b"true", Lit::Bool(true)),
            b'f' => word(self, b"false", Lit::Bool(false)),
            b'n' => word(self, b"null", Lit::Other),
            b'{' | b'[' => self.skip().map(|()| Lit::Other),
            _ => self.number(),
        }
    }

    /// A number as JSON writes it, read: an integer that does not fit 64 bits reads as a float,
    /// `-0` as the float −0, and one too large for a float is refused (passed over, by
    /// [`number_end`], it is not), all as serde_json does.
    fn number(&mut self) -> Result<Lit<'a>, Fault> {
        let bytes = self.text.as_bytes();
        let start = self.at;
        let negative = bytes.get(start) == Some(&b'-');
        let first = start + usize::from(negative);
        // The integer part's value is gathered as its digits are passed: exact up to eighteen
        // digits, which always fit (it wraps beyond, where it is not used).
        let (mut at, mut n) = (first, 0i64);
        match bytes.get(first) {
            Some(b'0') => at += 1,
            Some(b'1'..=b'9') => {
                while let Some(&d @ b'0'..=b'9') = bytes.get(at) {
                    n = n.wrapping_mul(10).wrapping_add(i64::from(d - b'0'));
                    at += 1;
                }
            }
            _ => return Err(Fault::Syntax),
        }
        let digits = at - first;
        self.at = at;
        let mut integer = true;
        if self.byte() == Some(b'.') {
            self.at += 1;
            self.digits()?;
            integer = false;
        }
        if matches!(self.byte(), Some(b'e' | b'E')) {
            self.at += 1;
            if matches!(self.byte(), Some(b'+' | b'-')) {
                self.at += 1;
            }
            self.digits()?;
            integer = false;
        }
        let n = match (integer, digits <= 18) {
            (true, true) => Some(if negative { -n } else { n }),
            (true, false) => self.since(start).parse::<i64>().ok(),
            (false, _) => None,
        };
        match n {
            Some(0) if negative => Ok(Lit::Float(-0.0)),
            Some(n) => Ok(Lit::Int(n)),
            None => decimal(self.since(start)).map(Lit::Float).ok_or(Fault::Syntax),
        }
    }

    /// The number of decimal digits from the reader on.
    #[inline(always)]
    fn run_of_digits(&self) -> usize {
        let bytes = self.text.as_bytes();
        let mut end = self.at;
        while let Some(b'0'..=b'9') = bytes.get(end) {
            end += 1;
        }
        end - self.at
    }

    /// One or more decimal digits.
    fn digits(&mut self) -> Result<(), Fault> {
        match self.run_of_digits() {
            0 => Err(Fault::Syntax),
            n => {
                self.at += n;
                Ok(())
            }
        }
    }

    /// Passes over a string's raw bytes up to its closing quote or first escape; `true` at an
    /// escape (see [`plain`]).
    #[inline(always)]
    fn plain(&mut self) -> Result<bool, Fault> {
        let bytes = self.text.as_bytes();
        while let Some(word) = bytes.get(self.at..).and_then(<[u8]>::first_chunk::<8>) {
            let stops = stops(u64::from_le_bytes(*word));
            if stops != 0 {
                self.at += (stops.trailing_zeros() / 8) as usize;
                break;
            }
            self.at += 8;
        }
        while let Some(&b) = bytes.get(self.at) {
            match b {
                b'"' => return Ok(false),
                b'\\' => return Ok(true),
                0..=0x1f => return Err(Fault::Syntax),
                _ => self.at += 1,
            }
        }
        Err(Fault::Syntax)
    }

    /// A string (the reader at its opening quote), borrowed from the text unless it has escapes.
    fn string(&mut self) -> Result<Cow<'a, str>, Fault> {
        self.at += 1;
        let start = self.at;
        if !self.plain()? {
            self.at += 1;
            return Ok(Cow::Borrowed(self.text.get(start..self.at - 1).unwrap_or_default()));
        }
        let mut out = String::from(self.since(start));
        loop {
            out.push(self.escape()?);
            let from = self.at;
            let more = self.plain()?;
            out.push_str(self.since(from));
            if !more {
                self.at += 1;
                return Ok(Cow::Owned(out));
            }
        }
    }

    /// One escape (the reader at its backslash), as the character it stands for; a `\u` pair of
    /// surrogates is one character, and a lone surrogate cannot be read (passed over, it is
    /// taken, as serde_json takes it: [`pass_escape`]).
    fn escape(&mut self) -> Result<char, Fault> {
        let c = self.text.as_bytes().get(self.at + 1).copied().ok_or(Fault::Syntax)?;
        self.at += 2;
        Ok(match c {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let hi = self.hex4()?;
                let code = match hi {
                    0xd800..=0xdbff => {
                        if !self.text.as_bytes().get(self.at..).is_some_and(|r| r.starts_with(b"\\u")) {
                            return Err(Fault::Syntax);
                        }
                        self.at += 2;
                        let lo = self.hex4()?;
                        if !(0xdc00..=0xdfff).contains(&lo) {
                            return Err(Fault::Syntax);
                        }
                        0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00)
                    }
                    _ => hi,
                };
                char::from_u32(code).ok_or(Fault::Syntax)?
            }
            _ => return Err(Fault::Syntax),
        })
    }

    fn hex4(&mut self) -> Result<u32, Fault> {
        let hex = self.text.get(self.at..self.at + 4).ok_or(Fault::Syntax)?;
        if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(Fault::Syntax);
        }
        self.at += 4;
        u32::from_str_radix(hex, 16).map_err(|_| Fault::Syntax)
    }
}

/// Each byte of a word set to `0x01`.
const ONES: u64 = u64::from_le_bytes([1; 8]);
/// Each byte's top bit.
const TOPS: u64 = ONES << 7;

/// The top bit of each byte of `word` (little-endian) that is a quote, a backslash or a control
/// character; bits above the lowest may be false (a borrow carries up), the lowest is exact.
#[inline(always)]
fn stops(word: u64) -> u64 {
    let zero = |v: u64| v.wrapping_sub(ONES) & !v & TOPS;
    zero(word ^ (ONES * u64::from(b'"')))
        | zero(word ^ (ONES * u64::from(b'\\')))
        | (word.wrapping_sub(ONES * 0x20) & !word & TOPS)
}

/// Passes over a string's raw bytes from `at` up to its closing quote or first escape: where
/// it stopped, and `true` at an escape. Control characters are not JSON. Eight bytes are tested
/// at a time, as one word, for a quote, a backslash or a control character (most of a long
/// answer is strings); the last few, and the byte that stops the word, one by one.
#[inline(always)]
fn plain(bytes: &[u8], mut at: usize) -> Result<(usize, bool), Fault> {
    while let Some(word) = bytes.get(at..).and_then(<[u8]>::first_chunk::<8>) {
        let stops = stops(u64::from_le_bytes(*word));
        if stops != 0 {
            at += (stops.trailing_zeros() / 8) as usize;
            break;
        }
        at += 8;
    }
    while let Some(&b) = bytes.get(at) {
        match b {
            b'"' => return Ok((at, false)),
            b'\\' => return Ok((at, true)),
            0..=0x1f => return Err(Fault::Syntax),
            _ => at += 1,
        }
    }
    Err(Fault::Syntax)
}

/// Where the string whose opening quote is at `at` ends, escapes checked, and whether it has
/// escapes. (A call: a measure's keys are matched by their shape, and the strings left are
/// few.)
fn pass_string(bytes: &[u8], at: usize) -> Result<(usize, bool), Fault> {
    let (mut at, mut escape) = plain(bytes, at + 1)?;
    let escaped = escape;
    while escape {
        (at, escape) = plain(bytes, pass_escape(bytes, at)?)?;
    }
    Ok((at + 1, escaped))
}

/// Where the escape at `at` (its backslash) ends; a lone surrogate passes.
fn pass_escape(bytes: &[u8], at: usize) -> Result<usize, Fault> {
    match bytes.get(at + 1) {
        Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => Ok(at + 2),
        Some(b'u') if bytes.get(at + 2..at + 6).is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)) => {
            Ok(at + 6)
        }
        _ => Err(Fault::Syntax),
    }
}

/// A key and its colon, from the whitespace before it: where its value may start.
fn pass_key(bytes: &[u8], at: usize) -> Result<usize, Fault> {
    let end = match next(bytes, at) {
        Some((key_at, b'"')) => pass_string(bytes, key_at)?.0,
        _ => return Err(Fault::Syntax),
    };
    match next(bytes, end) {
        Some((colon, b':')) => Ok(colon + 1),
        _ => Err(Fault::Syntax),
    }
}

/// The next byte that is not whitespace, and where it is. A single space, as JSON writers
/// put after `,` and `:`, is passed without the loop.
#[inline(always)]
fn next(bytes: &[u8], mut at: usize) -> Option<(usize, u8)> {
    at += usize::from(bytes.get(at) == Some(&b' '));
    match *bytes.get(at)? {
        b' ' | b'\n' | b'\r' | b'\t' => {
            let at = space(bytes, at);
            Some((at, *bytes.get(at)?))
        }
        b => Some((at, b)),
    }
}

/// Where the whitespace from `at` on ends.
#[inline(always)]
fn space(bytes: &[u8], mut at: usize) -> usize {
    while let Some(b' ' | b'\n' | b'\r' | b'\t') = bytes.get(at) {
        at += 1;
    }
    at
}

/// Where the word `w` (`true`, `false`, `null`) that starts at `at` ends.
fn word(bytes: &[u8], at: usize, w: &[u8]) -> Result<usize, Fault> {
    match bytes.get(at..).is_some_and(|r| r.starts_with(w)) {
        true => Ok(at + w.len()),
        false => Err(Fault::Syntax),
    }
}

/// Where the digits from `at` on end.
#[inline(always)]
fn digits_end(bytes: &[u8], mut at: usize) -> usize {
    while let Some(b'0'..=b'9') = bytes.get(at) {
        at += 1;
    }
    at
}

/// Where the number that starts at `at` ends, as JSON writes numbers: checked, not computed.
#[inline(always)]
fn number_end(bytes: &[u8], mut at: usize) -> Result<usize, Fault> {
    at += usize::from(bytes.get(at) == Some(&b'-'));
    match bytes.get(at) {
        Some(b'0') => at += 1,
        Some(b'1'..=b'9') => at = digits_end(bytes, at + 1),
        _ => return Err(Fault::Syntax),
    }
    if bytes.get(at) == Some(&b'.') {
        at = some_digits(bytes, at + 1)?;
    }
    if let Some(b'e' | b'E') = bytes.get(at) {
        at += 1;
        at += usize::from(matches!(bytes.get(at), Some(b'+' | b'-')));
        at = some_digits(bytes, at)?;
    }
    Ok(at)
}

/// Where the one or more digits from `at` on end.
#[inline(always)]
fn some_digits(bytes: &[u8], at: usize) -> Result<usize, Fault> {
    match digits_end(bytes, at) {
        end if end == at => Err(Fault::Syntax),
        end => Ok(end),
    }
}

/// A whole text as one value read by `read`, nothing but whitespace after it.
pub fn whole<'a, T>(text: &'a str, read: impl FnOnce(&mut Scan<'a>) -> Result<T, Fault>) -> Result<T, Fault> {
    let mut s = Scan::new(text);
    let out = read(&mut s)?;
    s.end()?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::de::IgnoredAny;

    impl Scan<'_> {
        /// The recursive skipper `skip` replaced, kept as the reference it must agree with.
        fn skip_reference(&mut self) -> Result<(), Fault> {
            let close = match self.peek()? {
                b'{' if self.int_object::<0>(|_| None).is_some() => return Ok(()),
                b'{' => b'}',
                b'[' => b']',
                b'"' => return pass_string(self.text.as_bytes(), self.at).map(|(at, _)| self.at = at),
                b't' | b'f' | b'n' => return self.lit().map(drop),
                _ => return number_end(self.text.as_bytes(), self.at).map(|at| self.at = at),
            };
            self.at += 1;
            self.deeper()?;
            if self.peek()? != close {
                loop {
                    if close == b'}' {
                        if self.peek()? != b'"' {
                            return Err(Fault::Syntax);
                        }
                        self.at = pass_string(self.text.as_bytes(), self.at)?.0;
                        self.eat(b':')?;
                    }
                    self.skip_reference()?;
                    match self.peek()? {
                        b',' => self.at += 1,
                        b if b == close => break,
                        _ => return Err(Fault::Syntax),
                    }
                }
            }
            self.at += 1;
            self.depth -= 1;
            Ok(())
        }
    }

    fn cases() -> impl Iterator<Item = &'static str> {
        include_str!("../../../fixtures/wire/json_values.txt").lines().filter(|l| !l.starts_with("# "))
    }

    /// The scanner accepts exactly the texts serde_json accepts (escapes, surrogates, numbers,
    /// nesting, trailing bytes), and reads each value as the serde readers do.
    #[test]
    fn reads_what_serde_json_reads() {
        for text in cases() {
            let theirs = serde_json::from_str::<IgnoredAny>(text).is_ok();
            assert_eq!(whole(text, |s| s.skip()).is_ok(), theirs, "skip {text}");
            // Read, a number too large for a float is refused (passed over, it is not).
            let (ours, serde) = (whole(text, |s| s.lit()), serde_json::from_str::<Lit>(text));
            assert_eq!(ours.is_ok(), serde.is_ok(), "lit {text}");
            if let (Ok(ours), Ok(serde)) = (ours, serde) {
                assert_eq!(ours, serde, "{text}");
                assert_eq!(
                    (ours.int(), ours.number(), ours.flag()),
                    (serde.int(), serde.number(), serde.flag())
                );
            }
        }
    }

    /// Strings are read eight bytes at a time: a quote, an escape, a control character or a
    /// multi-byte character at every place in and across a word, and numbers of every length
    /// around the eighteen digits read without checks.
    #[test]
    fn words_and_digits_read_as_serde_json_reads_them() {
        let mut texts = Vec::new();
        for len in 0..20 {
            for at in 0..=len {
                let (head, tail) = ("abcdefghijklmnopqrstu".get(..at).unwrap(), "x".repeat(len - at));
                for mid in ["", "\"", "\\n", "\\u00e9", "\u{1}", "\t", "é", "☕", "\u{7f}"] {
                    texts.push(format!("\"{head}{mid}{tail}\""));
                    texts.push(format!("\"{head}{mid}{tail}"));
                }
            }
        }
        for digits in 1..=21 {
            let n = "9".repeat(digits);
            texts.extend([n.clone(), format!("-{n}"), format!("{n}.5"), format!("-{n}e2"), format!("1{n}")]);
        }
        for text in &texts {
            let theirs = serde_json::from_str::<IgnoredAny>(text).is_ok();
            assert_eq!(whole(text, |s| s.skip()).is_ok(), theirs, "skip {text:?}");
            let (ours, serde) = (whole(text, |s| s.lit()), serde_json::from_str::<Lit>(text));
            assert_eq!(ours.is_ok(), serde.is_ok(), "lit {text:?}");
            // Values compared but for long fractions, which serde_json rounds in its own way
            // (999999999999999.5 reads as …999.6 there; `str::parse`, ours, rounds correctly).
            if let (Ok(ours), Ok(serde)) = (ours, serde)
                && !text.contains(['.', 'e'])
            {
                assert_eq!(ours, serde, "{text:?}");
            }
        }
    }

    /// The in-place reading of an object of integers gives what the general reader gives, or
    /// declines and leaves the reader where it was.
    #[test]
    fn int_objects_read_as_the_general_reader_reads_them() {
        let slot = |k: &[u8]| match k {
            b"a" => Some(0),
            b"bb" => Some(1),
            _ => None,
        };
        let texts = [
            r#"{"a": 1, "bb": -20, "c": 3}"#,
            r#" { "bb" : 0 , "a" :-0}"#,
            r#"{"a":1,"a":2}"#,
            r#"{"a":999999999999999999,"bb":-999999999999999999}"#,
            r#"{"a":9999999999999999999}"#,
            r#"{"a":1.0}"#,
            r#"{"a":1e2}"#,
            r#"{"a":01}"#,
            r#"{"a":-}"#,
            r#"{"a":"1"}"#,
            r#"{"ab":1}"#,
            r#"{"c":[1],"a":1}"#,
            r#"{"a":1,}"#,
            r#"{"a":1"#,
            r#"{"a" 1}"#,
            r#"{}"#,
            r#"{"é":1,"bb":2}"#,
        ];
        for text in texts {
            let general = whole(text, |s| {
                let mut out = [None; 2];
                s.object(&mut |s, k| match slot(k.as_bytes()) {
                    Some(i) => {
                        out[i] = s.lit()?.int();
                        Ok(())
                    }
                    None => s.skip(),
                })?;
                Ok(out)
            });
            let theirs = serde_json::from_str::<IgnoredAny>(text).is_ok();
            assert_eq!(whole(text, |s| s.skip()).is_ok(), theirs, "skip {text}");
            let mut s = Scan::new(text);
            match s.int_object::<2>(slot) {
                Some(fast) => assert_eq!((Ok(fast), s.end()), (general, Ok(())), "{text}"),
                None => assert_eq!(s.at(), 0, "{text}"),
            }
        }
        // Passed over at the greatest depth, refused past it, as the general reader does.
        for (depth, ok) in [(127, true), (128, false)] {
            let text = format!("{}{{\"a\":1}}{}", "[".repeat(depth), "]".repeat(depth));
            assert_eq!(whole(&text, |s| s.skip()).is_ok(), ok, "depth {depth}");
        }
    }

    /// The skipper accepts and refuses what its recursive reference does, and stops where it
    /// stops, on a weigh-in row broken in every way a byte can break it (each byte dropped, each
    /// replaced by a byte that matters to JSON, the text cut after it) and on named faults. The
    /// row's measures come in pairs of one shape, long and short separators, so that the second
    /// of each is broken where the first one's shape is remembered.
    #[test]
    fn skip_agrees_with_its_reference_on_broken_rows() {
        let row = r#"{"grpid": 12, "date": 1479400000, "deviceid": "d\u00e9v", "comment": null, "ok": true, "no": false, "f": -1.5e+3, "measures": [{"value": 80000, "type": 1, "unit": -3}, {"value": 5, "type": 2, "unit": 0}, {"value":0,"type":6,"unit":-2.0E2}, {"value":1,"type":6,"unit":-2}, {"value":1,"type":6}, {"v":1,"f":2}, {"v":3,"f":4}], "e": [], "o": {}, "n": [[1, [2]], {"a": {"b": [""]}}]}"#;
        let mut texts: Vec<String> = Vec::new();
        for at in 0..=row.len() {
            let (head, tail) = (&row[..at], &row[at..]);
            texts.push(head.to_string());
            if let Some(rest) = tail.get(1..) {
                texts.push(format!("{head}{rest}"));
                for b in [
                    "0", "1", "-", "+", ".", "e", "\"", "\\", "{", "}", "[", "]", ":", ",", " ", "\n",
                    "\u{1}", "x", "é",
                ] {
                    texts.push(format!("{head}{b}{rest}"));
                    texts.push(format!("{head}{b}{tail}"));
                }
            }
        }
        let named = [
            r#"{"v": 01}"#,
            r#"{"v": -}"#,
            r#"{"v": 1.}"#,
            r#"{"v": 1e}"#,
            r#"{"v": 1e+}"#,
            r#"{"v": +1}"#,
            r#"{"v": .5}"#,
            r#"{"v": -01}"#,
            r#"{"v": 1.5.}"#,
            r#"[1 2]"#,
            r#"{"v": "abc}"#,
            r#"{"v": "\x"}"#,
            r#"{"v": "\u12"}"#,
            r#"{"v": "\u12g4"}"#,
            r#"{"v": "\ud800"}"#,
            "{\"v\": \"a\tb\"}",
            "{\"v\": \"a\u{1f}b\"}",
            r#"{"v" 1}"#,
            r#"{"v": 1 "w": 2}"#,
            r#"{"v": 1,}"#,
            r#"[1,]"#,
            r#"[,1]"#,
            r#"{,}"#,
            r#"{"v": 1]"#,
            r#"[1}"#,
            r#"{"v"}"#,
            r#"{1: 2}"#,
            r#"[tru]"#,
            r#"[nul]"#,
            r#"[falsey]"#,
            r#"{"v": [1, {"w": [}]}"#,
            "",
            " ",
            "[",
            "{",
        ];
        texts.extend(named.iter().map(|t| t.to_string()));
        let agree = |text: &str| {
            let (mut new, mut old) = (Scan::new(text), Scan::new(text));
            let ours = new.skip().map(|()| (new.at, new.depth));
            assert_eq!(ours, old.skip_reference().map(|()| (old.at, old.depth)), "{text:?}");
        };
        for text in &texts {
            agree(text);
            let serde = serde_json::from_str::<IgnoredAny>(text).is_ok();
            assert_eq!(whole(text, |s| s.skip()).is_ok(), serde, "{text:?}");
        }
        // `entries`, taking some keys and passing over the rest, reads what `object` reads.
        for text in &texts {
            let take = |s: &mut Scan, key: &str, got: &mut Vec<(String, Option<i64>)>| {
                let v = s.lit()?.int();
                got.push((key.to_string(), v));
                Ok(())
            };
            let (mut new, mut old) = (Scan::new(text), Scan::new(text));
            let (mut ours, mut theirs) = (Vec::new(), Vec::new());
            let a = new.entries(&mut |s, key| match key {
                "date" | "grpid" | "ok" => take(s, key, &mut ours).map(|()| true),
                _ => Ok(false),
            });
            let b = match old.peek() {
                Ok(b'{') => old.object(&mut |s, key| match key {
                    "date" | "grpid" | "ok" => take(s, key, &mut theirs),
                    _ => s.skip_reference(),
                }),
                _ => old.skip_reference(),
            };
            assert_eq!(a.map(|()| (new.at, new.depth)), b.map(|()| (old.at, old.depth)), "{text:?}");
            assert_eq!(ours, theirs, "{text:?}");
        }
        // Nesting to the limit and past it (serde_json stops a level earlier, at 127).
        for depth in [1, 126, 127, 128, 129] {
            for (open, close) in [("[", "]"), ("{\"k\":", "}")] {
                agree(&format!("{}1{}", open.repeat(depth), close.repeat(depth)));
                agree(&format!("{}[]{}", open.repeat(depth - 1), close.repeat(depth - 1)));
            }
        }
        // Inside other values, where the reader is already some levels deep.
        for depth in [0, 1, 2, 100, 127, 128] {
            let (mut new, mut old) = (Scan::new(row), Scan::new(row));
            (new.depth, old.depth) = (depth, depth);
            let ours = new.skip().map(|()| (new.at, new.depth));
            assert_eq!(ours, old.skip_reference().map(|()| (old.at, old.depth)), "depth {depth}");
        }
    }

    #[test]
    fn objects_give_their_keys_unescaped_and_strings_borrow_when_they_can() {
        let mut keys = Vec::new();
        let text = r#" { "a" : 1 , "k\"ey" : [ {"x":"y"} ] , "\u00e9" : "v" } "#;
        whole(text, |s| {
            s.object(&mut |s, k| {
                keys.push(k.to_string());
                s.skip()
            })
        })
        .unwrap();
        assert_eq!(keys, ["a", "k\"ey", "é"]);
        assert!(matches!(whole(r#""plain""#, |s| s.lit()), Ok(Lit::Str(Cow::Borrowed("plain")))));
        assert!(matches!(whole(r#""a\nb""#, |s| s.lit()), Ok(Lit::Str(Cow::Owned(t))) if t == "a\nb"));
        // A value's text, without the whitespace around it.
        let mut s = Scan::new("[ {\"a\": [1, 2]} , 3]");
        let mut spans = Vec::new();
        s.array(&mut |s| {
            s.peek()?;
            let from = s.at();
            s.skip()?;
            spans.push(s.since(from));
            Ok(())
        })
        .unwrap();
        assert_eq!(spans, ["{\"a\": [1, 2]}", "3"]);
    }
}
