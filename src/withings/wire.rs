//! Withings' wire shapes: the `{status, body, error}` envelope, a page of rows, and the typed
//! records the briefs and trends read, decoded in one pass straight from the answer's text.
//!
//! Lenient where Withings is: numbers may come as strings, `more` as a bool, 0/1 or a string,
//! lists as `[]`, `null` or `{}` (PHP's empty map), and a missing field is absent, never an error.
//! A value of the wrong kind inside a record reads as absent rather than failing the answer.

use std::borrow::Cow;
use std::fmt;
use std::rc::Rc;

use serde::de::{self, DeserializeOwned, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, de::Error as _};
use serde_json::Value;
use serde_json::de::StrRead;
use serde_json::value::RawValue;

use crate::domain::fields::{Num, Slots};
use crate::domain::measures::{GroupValues, Measure, decode_value};
use crate::domain::time::{CivilDate, Instant};
use crate::{Error, Result};

pub mod activity;
pub mod heart;
pub mod intraday;
pub mod scan;
pub mod sleep;
pub mod stamped;
pub mod workouts;

pub use scan::Lit;
use scan::{Fault, Scan};

/// One HTTP answer whose envelope said status 0: its text, decoded on demand.
#[derive(Debug)]
pub struct Answer {
    pub http_status: u16,
    pub text: String,
}

impl Answer {
    /// The envelope's `body` as `T` (absent or `null` reads as `T::default()`).
    pub fn body<T: DeserializeOwned + Default>(&self, endpoint: &str) -> Result<T> {
        match serde_json::from_str::<Envelope<T>>(&self.text) {
            Ok(e) => Ok(e.body.unwrap_or_default()),
            Err(e) => Err(decode_error(&e, self.http_status, endpoint)),
        }
    }

    /// A page of `R` rows through serde, lenient as [`PageBody`] is. The page itself (the
    /// envelope, `more`, `offset`, `timezone`, where each row stands) is read by one function
    /// for every row type ([`Answer::page_text`]); only reading a row as `R` is compiled per
    /// type. Reading the whole page as `PageBody<R>` compiled serde's envelope, page and list
    /// readers again for each of the six row types (−23.7 KB of the static binary).
    pub fn page<R: Row + DeserializeOwned>(&self, endpoint: &str) -> Result<PageBody<R>> {
        let mut rows = Vec::new();
        let page = self.page_text(endpoint, &mut |_, de| {
            rows.push(R::deserialize(de)?.keep());
            Ok(())
        })?;
        Ok(PageBody { rows, more: page.more, offset: page.offset, timezone: page.timezone })
    }

    /// The page of [`Answer::page`], each row handed to `row` as it is met: its text, and a
    /// reader placed at its first byte in the answer (so a failing row is named at its line and
    /// column in the answer, and before anything after it is read, as in one pass).
    fn page_text(&self, endpoint: &str, row: &mut RowReader<'_>) -> Result<Page> {
        let mut page = PageRead { text: &self.text, row, page: Page::default(), failed: None };
        let mut de = serde_json::Deserializer::from_str(&self.text);
        let read = de.deserialize_struct("Envelope", &["body"], EnvelopeV(&mut page)).and_then(|()| de.end());
        match (read, page.failed) {
            (Ok(()), _) => Ok(page.page),
            (Err(_), Some((e, at))) => {
                let placed = Placed::new(&e, &self.text, at);
                Err(decode_failure(e.classify(), &placed, self.http_status, endpoint))
            }
            (Err(e), None) => Err(decode_error(&e, self.http_status, endpoint)),
        }
    }

    /// The envelope's `body` as JSON; absent reads as `{}`.
    pub fn value(&self, endpoint: &str) -> Result<Value> {
        match self.body::<Value>(endpoint)? {
            Value::Null => Ok(Value::Object(serde_json::Map::new())),
            v => Ok(v),
        }
    }
}

/// A row's decoding failure as serde_json would have written it reading the whole answer: the
/// row was read from its first byte on, so its line and column count from there; here they
/// count from the answer's start again.
struct Placed<'e> {
    error: &'e serde_json::Error,
    line: usize,
    column: usize,
}

impl Placed<'_> {
    fn new<'e>(error: &'e serde_json::Error, text: &str, at: usize) -> Placed<'e> {
        let (line, column) = match error.line() {
            0 => (0, 0),
            n => {
                // Back to a byte index in `text[at..]` (serde_json's column is the index on its
                // line), then to the answer's line and column, counted as serde_json counts.
                let mut line_start = 0;
                for (j, _) in text.bytes().skip(at).enumerate().filter(|(_, b)| *b == b'\n').take(n - 1) {
                    line_start = j + 1;
                }
                let i = at + line_start + error.column();
                let (mut line, mut start) = (1, 0);
                for (j, _) in text.bytes().take(i).enumerate().filter(|(_, b)| *b == b'\n') {
                    (line, start) = (line + 1, j + 1);
                }
                (line, i - start)
            }
        };
        Placed { error, line, column }
    }
}

impl fmt::Display for Placed<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = self.error.to_string();
        let own = format!(" at line {} column {}", self.error.line(), self.error.column());
        match (self.line, text.strip_suffix(&own)) {
            (0, _) | (_, None) => f.write_str(&text),
            (line, Some(message)) => write!(f, "{message} at line {line} column {}", self.column),
        }
    }
}

/// A decoding failure: text that is not JSON (a proxy page, a truncated answer) is a transport
/// problem named by its HTTP status, never quoted; JSON of the wrong shape names what was wrong.
fn decode_error(e: &serde_json::Error, http_status: u16, endpoint: &str) -> Box<Error> {
    decode_failure(e.classify(), e, http_status, endpoint)
}

/// [`decode_error`] of an error's kind and text.
fn decode_failure(
    kind: serde_json::error::Category,
    e: &dyn fmt::Display,
    http_status: u16,
    endpoint: &str,
) -> Box<Error> {
    match kind {
        serde_json::error::Category::Data => Error::json(format!("withings {endpoint}"), e),
        _ => fault_error(Fault::Syntax, http_status, endpoint),
    }
}

/// [`decode_error`] for the scanner's faults.
fn fault_error(f: Fault, http_status: u16, endpoint: &str) -> Box<Error> {
    match f {
        Fault::Shape(what) => Error::json(format!("withings {endpoint}"), what),
        Fault::Syntax => Error::boxed(Error::Transport {
            endpoint: endpoint.to_string(),
            message: format!("unexpected non-JSON answer (HTTP {http_status})"),
        }),
    }
}

impl Answer {
    /// A page whose rows `row` reads with the scanner (the long answers: getmeas), lenient as
    /// [`PageBody`]'s serde reading is: the same fields, the same readings of them.
    pub fn scan_page<R: Row>(
        &self,
        endpoint: &str,
        row: &mut dyn FnMut(&mut Scan<'_>) -> std::result::Result<R::Kept, Fault>,
    ) -> Result<PageBody<R>> {
        scan_page(&self.text, self.http_status, endpoint, row)
    }
}

/// [`Answer::scan_page`] of an answer's text and status.
pub fn scan_page<R: Row>(
    text: &str,
    http_status: u16,
    endpoint: &str,
    row: &mut dyn FnMut(&mut Scan<'_>) -> std::result::Result<R::Kept, Fault>,
) -> Result<PageBody<R>> {
    let mut page = PageBody::default();
    let read = scan::whole(text, |s| {
        s.object(&mut |s, key| match key {
            "body" => match s.peek()? {
                b'{' => s.object(&mut |s, key| {
                    match key {
                        "measuregrps" | "series" | "activities" => page.rows = scan_rows(s, row)?,
                        "more" => page.more = s.lit()?.flag(),
                        "offset" => page.offset = s.lit()?.int(),
                        "timezone" => page.timezone = s.lit()?.text(),
                        _ => s.skip()?,
                    }
                    Ok(())
                }),
                b'n' => s.skip(),
                _ => Err(Fault::Shape("the body is not an object")),
            },
            _ => s.skip(),
        })
    });
    match read {
        Ok(()) => Ok(page),
        Err(f) => Err(fault_error(f, http_status, endpoint)),
    }
}

/// A list field read by the scanner: an array, or `null` / `{}` for none (see [`rows`]).
fn scan_rows<T>(
    s: &mut Scan<'_>,
    row: &mut dyn FnMut(&mut Scan<'_>) -> std::result::Result<T, Fault>,
) -> std::result::Result<Vec<T>, Fault> {
    let mut out = Vec::new();
    match s.peek()? {
        b'[' => s.array(&mut |s| {
            out.push(row(s)?);
            Ok(())
        })?,
        b'{' => {
            let mut any = false;
            s.object(&mut |s, _| {
                any = true;
                s.skip()
            })?;
            if any {
                return Err(Fault::Shape("the list is an object, not a list"));
            }
        }
        b'n' => s.skip()?,
        _ => return Err(Fault::Shape("the list is not a list")),
    }
    Ok(out)
}

#[derive(Deserialize)]
struct Envelope<T> {
    #[serde(default = "Option::default")]
    body: Option<T>,
}

/// The status of an answer and Withings' error text, when the text is a Withings envelope.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Head {
    pub status: i64,
    pub error: Option<String>,
}

/// What JSON counts as whitespace.
const JSON_SPACE: [char; 4] = [' ', '\n', '\r', '\t'];

#[derive(Deserialize)]
struct HeadWire {
    #[serde(deserialize_with = "int")]
    status: Option<i64>,
    #[serde(default, deserialize_with = "text")]
    error: Option<String>,
    #[serde(default)]
    #[allow(dead_code)]
    body: IgnoredAny,
}

/// Reads the envelope's status. Withings writes `{"status":0,` first (with or without spaces),
/// so a success is known without reading the (possibly megabytes long) body; the body is
/// checked when it is decoded. Anything else is parsed whole. `None` when the text is not a
/// Withings envelope.
pub fn head(text: &str) -> Option<Head> {
    let rest = ["{", "\"status\"", ":", "0"]
        .iter()
        .try_fold(text, |t, token| t.trim_start_matches(JSON_SPACE).strip_prefix(token));
    if let Some(rest) = rest
        && matches!(rest.trim_start_matches(JSON_SPACE).as_bytes().first(), Some(b',' | b'}'))
    {
        return Some(Head { status: 0, error: None });
    }
    let h: HeadWire = serde_json::from_str(text).ok()?;
    Some(Head { status: h.status?, error: h.error })
}

/// A row as read from the wire, and what the program keeps of it. Each row is converted as soon
/// as it is read, so a page's wire form and its kept form are never both in memory.
pub trait Row: Sized {
    type Kept;
    fn keep(self) -> Self::Kept;
    /// When a kept row starts (Unix seconds), where a window edge needs it (sleep detail).
    fn start(_: &Self::Kept) -> Option<i64> {
        None
    }
    /// One answer's page of these rows: through serde (`answer.body`), or the scanner for the
    /// rows of long answers.
    fn page(answer: &Answer, endpoint: &str) -> Result<PageBody<Self>>;
    /// [`Row::page`] of an answer given away: rows that keep their text ([`stamped::Stamped`])
    /// share the answer's instead of copying theirs out of it.
    fn page_of(answer: Answer, endpoint: &str) -> Result<PageBody<Self>> {
        Self::page(&answer, endpoint)
    }
}

/// The row's own text, for the list tools (which decode only the rows they return).
impl Row for Box<serde_json::value::RawValue> {
    type Kept = Self;
    fn keep(self) -> Self {
        self
    }
    fn start(row: &Self) -> Option<i64> {
        #[derive(Deserialize)]
        struct Start {
            #[serde(default, deserialize_with = "int")]
            startdate: Option<i64>,
        }
        serde_json::from_str::<Start>(row.get()).ok()?.startdate
    }
    /// The rows' text is copied out as it stands: nothing of it is read again.
    fn page(answer: &Answer, endpoint: &str) -> Result<PageBody<Self>> {
        let mut rows = Vec::new();
        let page = answer.page_text(endpoint, &mut |raw, _| {
            rows.push(raw.to_owned());
            Ok(())
        })?;
        Ok(PageBody { rows, more: page.more, offset: page.offset, timezone: page.timezone })
    }
}

impl Row for Value {
    type Kept = Value;
    fn keep(self) -> Value {
        self
    }
    fn page(answer: &Answer, endpoint: &str) -> Result<PageBody<Self>> {
        answer.page(endpoint)
    }
}

/// One page of a list action: the rows (under `measuregrps`, `series` or `activities`), paging,
/// and getmeas' body-level `timezone`.
#[derive(Debug, Deserialize)]
#[serde(bound(deserialize = "R: Row + DeserializeOwned"))]
pub struct PageBody<R: Row> {
    #[serde(default = "Vec::new", alias = "measuregrps", alias = "series", alias = "activities")]
    #[serde(deserialize_with = "rows::<_, R>")]
    pub rows: Vec<R::Kept>,
    /// Withings says `more` as true/false, 0/1 or (rarely) a string; a non-zero number is true.
    #[serde(default, deserialize_with = "flag")]
    pub more: Option<bool>,
    #[serde(default, deserialize_with = "int")]
    pub offset: Option<i64>,
    #[serde(default, deserialize_with = "text")]
    pub timezone: Option<String>,
}

impl<R: Row> Default for PageBody<R> {
    fn default() -> PageBody<R> {
        PageBody { rows: Vec::new(), more: None, offset: None, timezone: None }
    }
}

/// A list field: an array, or `null` / `{}` for none. Anything else is an error: a list that
/// cannot be read must not pass for an empty one.
fn rows<'de, D: Deserializer<'de>, R: Row + DeserializeOwned>(d: D) -> Result<Vec<R::Kept>, D::Error> {
    struct Rows<R>(std::marker::PhantomData<R>);
    impl<'de, R: Row + DeserializeOwned> Visitor<'de> for Rows<R> {
        type Value = Vec<R::Kept>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a list")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<R::Kept>, A::Error> {
            let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
            while let Some(r) = seq.next_element::<R>()? {
                out.push(r.keep());
            }
            Ok(out)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Vec<R::Kept>, E> {
            Ok(Vec::new())
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Vec<R::Kept>, A::Error> {
            match map.next_key::<IgnoredAny>()? {
                None => Ok(Vec::new()),
                Some(_) => Err(A::Error::custom("the list is an object, not a list")),
            }
        }
    }
    d.deserialize_any(Rows::<R>(std::marker::PhantomData))
}

/// What [`Answer::page_text`] hands each row to: the row's text, and a reader at its start.
type RowReader<'r> =
    dyn FnMut(&RawValue, &mut serde_json::Deserializer<StrRead<'_>>) -> serde_json::Result<()> + 'r;

/// A page's own fields, its rows aside.
#[derive(Default)]
struct Page {
    more: Option<bool>,
    offset: Option<i64>,
    timezone: Option<String>,
}

/// [`Answer::page_text`]'s reading of an answer: by hand, as serde's derived readers of
/// `Envelope<PageBody<R>>` read it (the same fields, aliases, defaults, `null`s, duplicate
/// fields and messages), but with `row` at hand for each row, which a derived reader cannot
/// carry. A row's failure is kept aside with the row's place: serde would name the place it
/// has reached, after the row.
struct PageRead<'t, 'r> {
    text: &'t str,
    row: &'r mut RowReader<'r>,
    page: Page,
    failed: Option<(serde_json::Error, usize)>,
}

struct EnvelopeV<'p, 't, 'r>(&'p mut PageRead<'t, 'r>);

impl<'de> Visitor<'de> for EnvelopeV<'_, '_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("struct Envelope")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        seq.next_element_seed(BodyV(self.0))?;
        Ok(())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut seen = false;
        while let Some(body) = map.next_key_seed(Key(|k: &str| k == "body"))? {
            match (body, seen) {
                (false, _) => drop(map.next_value::<IgnoredAny>()?),
                (true, true) => return Err(A::Error::duplicate_field("body")),
                (true, false) => {
                    seen = true;
                    map.next_value_seed(BodyV(&mut *self.0))?;
                }
            }
        }
        Ok(())
    }
}

/// The envelope's `body`: `null` for none, as `Option` reads it.
struct BodyV<'p, 't, 'r>(&'p mut PageRead<'t, 'r>);

impl<'de> de::DeserializeSeed<'de> for BodyV<'_, '_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_option(self)
    }
}

impl<'de> Visitor<'de> for BodyV<'_, '_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("option")
    }
    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_struct("PageBody", PAGE_FIELDS, PageV(self.0))
    }
}

/// `PageBody`'s fields, in its order; the rows go by three more names.
const PAGE_FIELDS: &[&str] = &["rows", "more", "offset", "timezone"];

struct PageV<'p, 't, 'r>(&'p mut PageRead<'t, 'r>);

impl<'de> Visitor<'de> for PageV<'_, '_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("struct PageBody")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let p = self.0;
        if seq.next_element_seed(RowsV(&mut *p))?.is_none() {
            return Ok(());
        }
        let Some(more) = seq.next_element::<Lit>()? else { return Ok(()) };
        p.page.more = more.flag();
        let Some(offset) = seq.next_element::<Lit>()? else { return Ok(()) };
        p.page.offset = offset.int();
        if let Some(timezone) = seq.next_element::<Lit>()? {
            p.page.timezone = timezone.text();
        }
        Ok(())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let p = self.0;
        let mut seen = 0u8;
        let field = |k: &str| match k {
            "rows" | "measuregrps" | "series" | "activities" => Some(0),
            _ => PAGE_FIELDS.iter().position(|f| *f == k),
        };
        while let Some(i) = map.next_key_seed(Key(field))? {
            let Some(i) = i else {
                map.next_value::<IgnoredAny>()?;
                continue;
            };
            if seen & 1 << i != 0 {
                return Err(A::Error::duplicate_field(PAGE_FIELDS[i]));
            }
            seen |= 1 << i;
            match i {
                0 => map.next_value_seed(RowsV(&mut *p))?,
                1 => p.page.more = map.next_value::<Lit>()?.flag(),
                2 => p.page.offset = map.next_value::<Lit>()?.int(),
                _ => p.page.timezone = map.next_value::<Lit>()?.text(),
            }
        }
        Ok(())
    }
}

/// The rows, as [`rows`] reads them, each handed to the page's `row` as soon as it is read past.
struct RowsV<'p, 't, 'r>(&'p mut PageRead<'t, 'r>);

impl<'de> de::DeserializeSeed<'de> for RowsV<'_, '_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for RowsV<'_, '_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let p = self.0;
        while let Some(raw) = seq.next_element::<&RawValue>()? {
            // Where the row starts in the answer: `raw` is a slice of `p.text`.
            let at = (raw.get().as_ptr() as usize).wrapping_sub(p.text.as_ptr() as usize);
            let Some(rest) = p.text.get(at..) else {
                return Err(A::Error::custom("a row outside its answer"));
            };
            let mut de = serde_json::Deserializer::from_str(rest);
            if let Err(e) = (p.row)(raw, &mut de) {
                p.failed = Some((e, at));
                return Err(A::Error::custom("a row"));
            }
        }
        Ok(())
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        match map.next_key::<IgnoredAny>()? {
            None => Ok(()),
            Some(_) => Err(A::Error::custom("the list is an object, not a list")),
        }
    }
}

/// Any JSON value, read as an integer when it is one: a JSON integer, a float without fraction
/// or a numeric string. Everything else (including `null`) reads as absent.
pub fn int<'de, D: Deserializer<'de>>(d: D) -> Result<Option<i64>, D::Error> {
    Ok(Lit::deserialize(d)?.int())
}

/// A boolean: `true`/`false`, a number (0 is false, any other is true) or the same as a string.
pub fn flag<'de, D: Deserializer<'de>>(d: D) -> Result<Option<bool>, D::Error> {
    Ok(Lit::deserialize(d)?.flag())
}

/// [`number`] as a float.
pub fn num<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    Ok(Lit::deserialize(d)?.number().map(Num::f64))
}

/// An epoch-seconds field as an instant.
pub fn instant<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Instant>, D::Error> {
    Ok(int(d)?.map(Instant))
}

/// A `YYYY-MM-DD` string as a civil date; anything else reads as absent.
pub fn date<'de, D: Deserializer<'de>>(d: D) -> Result<Option<CivilDate>, D::Error> {
    Ok(match Lit::deserialize(d)? {
        Lit::Str(s) => CivilDate::parse(&s).ok(),
        _ => None,
    })
}

/// A non-empty string; anything else reads as absent.
pub fn text<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Ok(Lit::deserialize(d)?.text())
}

/// A map key handed to `pick` as borrowed text (no copy), and `pick`'s answer: lets a visitor
/// tell the keys it reads from the others without allocating a string per key.
pub struct Key<F>(pub F);

impl<'de, T, F: FnOnce(&str) -> T> de::DeserializeSeed<'de> for Key<F> {
    type Value = T;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<T, D::Error> {
        struct V<F>(F);
        impl<'de, T, F: FnOnce(&str) -> T> Visitor<'de> for V<F> {
            type Value = T;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<T, E> {
                Ok((self.0)(s))
            }
        }
        d.deserialize_str(V(self.0))
    }
}

/// Reads an object as something; see [`object_or_default`].
pub trait ReadObject<'de> {
    type Out: Default;
    fn read<A: MapAccess<'de>>(self, map: A) -> Result<Self::Out, A::Error>;
}

/// An object read by `r`; any other value (`null`, `[]`, a number…) is skipped and reads as the
/// default: a field of the wrong kind is absent, it does not fail the record.
pub fn object_or_default<'de, D: Deserializer<'de>, R: ReadObject<'de>>(
    d: D,
    r: R,
) -> Result<R::Out, D::Error> {
    struct V<R>(R);
    impl<'de, R: ReadObject<'de>> Visitor<'de> for V<R> {
        type Value = R::Out;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("any JSON value")
        }
        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<R::Out, A::Error> {
            self.0.read(map)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<R::Out, A::Error> {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            Ok(R::Out::default())
        }
        fn visit_unit<E: de::Error>(self) -> Result<R::Out, E> {
            Ok(R::Out::default())
        }
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<R::Out, E> {
            Ok(R::Out::default())
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<R::Out, E> {
            Ok(R::Out::default())
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<R::Out, E> {
            Ok(R::Out::default())
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<R::Out, E> {
            Ok(R::Out::default())
        }
        fn visit_str<E: de::Error>(self, _: &str) -> Result<R::Out, E> {
            Ok(R::Out::default())
        }
    }
    d.deserialize_any(V(r))
}

/// The numbers of an object whose keys `row` finds in a field table, each in its row's slot;
/// other keys are skipped unread, and a value that is not an object reads as no numbers.
pub fn slots<'de, D: Deserializer<'de>, const N: usize>(
    d: D,
    row: fn(&str) -> Option<usize>,
) -> Result<Slots<N>, D::Error> {
    struct Table<const N: usize>(fn(&str) -> Option<usize>);
    impl<'de, const N: usize> ReadObject<'de> for Table<N> {
        type Out = Slots<N>;
        fn read<A: MapAccess<'de>>(self, mut map: A) -> Result<Slots<N>, A::Error> {
            let mut out = Slots::default();
            while let Some(row) = map.next_key_seed(Key(self.0))? {
                match row {
                    Some(i) => out.set(i, map.next_value::<Lit>()?.number()),
                    None => drop(map.next_value::<IgnoredAny>()?),
                }
            }
            Ok(out)
        }
    }
    object_or_default(d, Table(row))
}

/// Through serde, a string is always owned: the lenient readers take any deserializer.
impl<'de> Deserialize<'de> for Lit<'static> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Lit<'static>, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Lit<'static>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_i64<E: de::Error>(self, n: i64) -> Result<Lit<'static>, E> {
                Ok(Lit::Int(n))
            }
            fn visit_u64<E: de::Error>(self, n: u64) -> Result<Lit<'static>, E> {
                Ok(i64::try_from(n).map_or(Lit::Float(n as f64), Lit::Int))
            }
            fn visit_f64<E: de::Error>(self, f: f64) -> Result<Lit<'static>, E> {
                Ok(Lit::Float(f))
            }
            fn visit_bool<E: de::Error>(self, b: bool) -> Result<Lit<'static>, E> {
                Ok(Lit::Bool(b))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Lit<'static>, E> {
                Ok(Lit::Str(Cow::Owned(s.to_string())))
            }
            fn visit_string<E: de::Error>(self, s: String) -> Result<Lit<'static>, E> {
                Ok(Lit::Str(Cow::Owned(s)))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Lit<'static>, E> {
                Ok(Lit::Other)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Lit<'static>, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Lit::Other)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Lit<'static>, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Lit::Other)
            }
        }
        d.deserialize_any(V)
    }
}

/// getmeas' groups as the briefs and trends read them, by the scanner: when, whose, in which
/// zone, and the values. The identifiers, device and comment fields are not read (the list
/// tools, which show them, decode their few rows in full), which saves a string per group. A
/// group without a zone gets the body's afterwards (see `PageBody::timezone`).
#[derive(Debug)]
pub enum MeasGroupWire {}

impl Row for MeasGroupWire {
    type Kept = GroupValues;
    fn keep(self) -> GroupValues {
        match self {}
    }
    fn page(answer: &Answer, endpoint: &str) -> Result<PageBody<Self>> {
        let mut zone = None;
        answer.scan_page::<Self>(endpoint, &mut |s| {
            meas_group(s, &mut zone, &mut |g, m| g.add(m.code, m.value))
        })
    }
}

/// One group, each of its measures handed to `each` as it is decoded; one that is not an object
/// cannot be read. `zone` is the last zone name read: the next group naming the same zone
/// shares it (a ten-year answer names one zone 20,000 times).
fn meas_group(
    s: &mut Scan<'_>,
    zone: &mut Option<Rc<str>>,
    each: &mut impl FnMut(&mut GroupValues, Measure),
) -> std::result::Result<GroupValues, Fault> {
    if s.peek()? != b'{' {
        return Err(Fault::Shape("a measure group is not an object"));
    }
    let mut g = GroupValues::default();
    s.object(&mut |s, key| {
        // As bytes, as in `measures`.
        match key.as_bytes() {
            b"date" => g.date = s.lit()?.int().map(Instant),
            b"category" => g.category = s.lit()?.int(),
            b"attrib" => g.attrib = s.lit()?.int(),
            b"timezone" => {
                g.timezone = match s.lit()? {
                    Lit::Str(name) if !name.is_empty() => Some(match zone {
                        Some(z) if **z == *name => z.clone(),
                        _ => zone.insert(Rc::from(name.as_ref())).clone(),
                    }),
                    _ => None,
                }
            }
            b"measures" => measures(s, &mut |m| each(&mut g, m))?,
            _ => s.skip()?,
        }
        Ok(())
    })?;
    Ok(g)
}

/// The measures of a group, each decoded and handed to `each` as it is read; `null` or an
/// object is none, and one without a value or a type is left out (nothing to show).
fn measures(s: &mut Scan<'_>, each: &mut impl FnMut(Measure)) -> std::result::Result<(), Fault> {
    if matches!(s.peek()?, b'n' | b'{') {
        return s.skip();
    }
    if s.peek()? != b'[' {
        return Err(Fault::Shape("a group's measures are not a list"));
    }
    s.array(&mut |s| {
        if s.peek()? != b'{' {
            return Err(Fault::Shape("a measure is not an object"));
        }
        // Keys are matched as bytes, compared in line, where a `str` pattern is a call per key
        // tried: a tenth of a ten-year trend's reading.
        let slot = |key: &[u8]| match key {
            b"value" => Some(0),
            b"type" => Some(1),
            b"unit" => Some(2),
            b"position" => Some(3),
            _ => None,
        };
        // Most measures are a few integers: read in place, the rest by the general reader.
        if let Some([value, code, unit, position]) = s.int_object(slot) {
            if let Some(m) = measure(value, code, unit, position) {
                each(m);
            }
            return Ok(());
        }
        let [value, code, unit, position] = measure_fields(s, None)?;
        if let Some(m) = measure(value, code, unit, position) {
            each(m);
        }
        Ok(())
    })
}

/// One measure object's value, type, unit and position, as the trends and the list tools both
/// read them (a value of another kind reads as absent; a key sent twice counts its last value);
/// its other fields, but the deprecated `algo` and `fm`, into `extra` when given (the list tools
/// pass them through), else passed over.
pub fn measure_fields(
    s: &mut Scan<'_>,
    mut extra: Option<&mut serde_json::Map<String, Value>>,
) -> std::result::Result<[Option<i64>; 4], Fault> {
    let mut known = [None; 4];
    s.object(&mut |s, key| {
        // As bytes, compared in line (see `measures`).
        let at = match key.as_bytes() {
            b"value" => 0,
            b"type" => 1,
            b"unit" => 2,
            b"position" => 3,
            b"algo" | b"fm" => return s.skip(),
            _ => match extra.as_deref_mut() {
                Some(extra) => {
                    extra.insert(key.to_string(), subtree(s)?);
                    return Ok(());
                }
                None => return s.skip(),
            },
        };
        if let Some(slot) = known.get_mut(at) {
            *slot = s.lit()?.int();
        }
        Ok(())
    })?;
    Ok(known)
}

/// The value where the reader stands, as serde reads it.
fn subtree(s: &mut Scan<'_>) -> std::result::Result<Value, Fault> {
    let from = s.at();
    s.skip()?;
    serde_json::from_str(s.since(from)).map_err(|_| Fault::Syntax)
}

/// `None` without a value or a type: nothing to show.
fn measure(
    value: Option<i64>,
    code: Option<i64>,
    unit: Option<i64>,
    position: Option<i64>,
) -> Option<Measure> {
    let raw_value = value?;
    let raw_unit = unit.unwrap_or(0).clamp(-300, 300) as i32;
    Some(Measure {
        code: code?,
        raw_value,
        raw_unit,
        value: decode_value(raw_value, raw_unit),
        position,
        extra: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::measures::{READ_CODES, decode_measure_groups};

    #[test]
    fn heads_fast_and_slow() {
        let ok = |s: &str| head(s).map(|h| h.status);
        assert_eq!(ok(r#"{"status":0,"body":{"x":["#), Some(0), "a success is known from its first bytes");
        assert_eq!(ok("{ \"status\" :\n0 , \"body\": {\"x\":["), Some(0), "spaces or not");
        assert_eq!(ok(r#"{"status":0 1}"#), None);
        assert_eq!(ok(r#"{ "status": "601", "body": {} }"#), Some(601));
        assert_eq!(ok(r#"{"body":{},"status":0}"#), Some(0));
        assert_eq!(ok(r#"{"status":01}"#), None, "not JSON");
        assert_eq!(ok(r#"{"status":0"#), None);
        assert_eq!(ok(r#"{"no":"status"}"#), None);
        assert_eq!(ok("<html>"), None);
        let h = head(r#"{"status":401,"body":{},"error":"invalid_token"}"#).unwrap();
        assert_eq!(h.error.as_deref(), Some("invalid_token"));
    }

    /// A page read row by row (`Answer::page`) reads and fails as the whole page read in one
    /// pass did (`PageBody<R>` through serde): the same rows, and the same message, line and
    /// column for every kind of bad row.
    #[test]
    fn pages_read_row_by_row_as_in_one_pass() {
        fn same<R: Row + DeserializeOwned>(text: &str)
        where
            R::Kept: fmt::Debug,
        {
            let answer = Answer { http_status: 200, text: text.to_string() };
            let show = |r: Result<PageBody<R>>| match r {
                Ok(p) => format!("{:?} {:?} {:?} {:?}", p.rows, p.more, p.offset, p.timezone),
                Err(e) => format!("error: {e}"),
            };
            let (whole, by_row) = (show(answer.body::<PageBody<R>>("/e a")), show(answer.page::<R>("/e a")));
            assert_eq!(whole, by_row, "{text}");
        }
        let bodies = [
            r#"{"series":[{"id":1,"startdate":5},{"id":"2"}],"more":1,"offset":"2","timezone":"UTC"}"#,
            r#"{"series":[{"id":1}, 5]}"#,
            r#"{"series":[{"id":1},null],"more":true}"#,
            r#"{"series":["x"]}"#,
            r#"{"series":[[1,2]]}"#,
            r#"{"series":[[]]}"#,
            r#"{"series":[{"id":1,"id":2}]}"#,
            r#"{"activities":[{"date":"2025-01-01","date":"2025-01-02"}]}"#,
            r#"{"series":[{"startdate":1,"startdate":2}]}"#,
            "{\n  \"series\": [\n    {\"id\": 1},\n    {\n      \"id\": 2,\n      \"id\": 3\n    },\n    7\n  ]\n}",
            "{\"series\":[\n 7]}",
            r#"{"series":[{"id":1e999}]}"#,
            r#"{"series":{"a":1}}"#,
            r#"{"series":[],"series":[]}"#,
            r#"[]"#,
            r#"[[{"id":1}],1]"#,
            r#""x""#,
            r#"null"#,
            r#"{"series":[{"id":1},"#,
        ];
        for body in bodies {
            let text = format!(r#"{{"status":0,"body":{body}}}"#);
            same::<sleep::NightWire>(&text);
            same::<sleep::SegmentWire>(&text);
            same::<heart::HeartWire>(&text);
            same::<activity::ActivityWire>(&text);
            same::<workouts::WorkoutWire>(&text);
            same::<Value>(&text);
            same::<Box<RawValue>>(&text);
        }
        let whole = [
            "not json",
            "",
            r#"{"status":0}"#,
            r#"{"status":0,"body":{"series":[5]},"body":{}}"#,
            r#"{"status":0,"body":{},"body":{}}"#,
            r#"{"status":0,"body":null,"body":null}"#,
            r#"[0,{"series":[{"id":1}]}]"#,
            r#"[{"series":[{"id":1}]}]"#,
            r#"[null]"#,
            r#"[]"#,
            r#"[{"series":[{"id":1}]},2]"#,
            r#"{"status":0,"body":[[{"id":1}],1,"2","UTC"]}"#,
            r#"{"status":0,"body":[[{"id":1}],1,"2","UTC",5]}"#,
            r#"{"status":0,"body":[[{"id":1}],1]}"#,
            r#"{"status":0,"body":[[5],1]}"#,
            r#"{"status":0,"body":{"ser\u0069es":[{"id":1}],"more":1,"more":2}}"#,
            r#"{"status":0,"body":{"series":[{"id":1},{"id":1,"id":1}],"more":1,"more":2}}"#,
            r#"{"status":0,"body":{"rows":[{"id":1}],"series":[]}}"#,
            r#"{"status":0,"body":{"x":{"series":[5]},"series":[{"id":[1,{"a":null}]}]},"error":"e"}"#,
            r#"{"status":0,"body":{"series":[{"id":1}]}} x"#,
            r#"{"status":0,"body":{"series":[{"id":1}]}}  "#,
            r#" {"status":0,"body":{"series":[1,"#,
            "{\"status\":0,\n\"body\":{\"series\":[{\"id\":1},\n\"x\"\n]}}",
            "{\"status\":0,\r\n\"body\":{\"series\":[\n{\"startdate\":1,\n\n\"startdate\":2}]}}",
        ];
        for text in whole {
            same::<sleep::NightWire>(text);
            same::<sleep::SegmentWire>(text);
            same::<Box<RawValue>>(text);
        }
    }

    #[test]
    fn lenient_pages() {
        let page = |body: &str| -> Result<PageBody<Value>> {
            Answer { http_status: 200, text: format!(r#"{{"status":0,"body":{body}}}"#) }
                .body("/measure getmeas")
        };
        let cases: &[(&str, usize, Option<bool>, Option<i64>)] = &[
            (r#"{"measuregrps":[1,2],"more":1,"offset":"2"}"#, 2, Some(true), Some(2)),
            (r#"{"series":[1],"more":"true","offset":1.0}"#, 1, Some(true), Some(1)),
            (r#"{"activities":null,"more":false}"#, 0, Some(false), None),
            (r#"{"series":{},"more":"0"}"#, 0, Some(false), None),
            (r#"{"series":[],"more":2}"#, 0, Some(true), None),
            (r#"{"more":null,"offset":[1]}"#, 0, None, None),
            ("null", 0, None, None),
        ];
        for (body, n, more, offset) in cases {
            let p = page(body).unwrap();
            assert_eq!((p.rows.len(), p.more, p.offset), (*n, *more, *offset), "{body}");
        }
        let err = page(r#"{"series":{"a":1}}"#).unwrap_err().to_string();
        assert!(err.contains("not a list"), "{err}");
        let cut = Answer { http_status: 200, text: r#"{"status":0,"body":{"series":["#.into() };
        let err = cut.body::<PageBody<Value>>("/v2/sleep get").unwrap_err().to_string();
        assert!(err.contains("non-JSON answer (HTTP 200)") && err.contains("/v2/sleep get"), "{err}");
    }

    /// getmeas answers read by the scanner: lenient readings, unknown and nested fields skipped,
    /// escapes and whitespace anywhere, and each kind of bad answer named.
    #[test]
    fn scanned_getmeas_pages() {
        let file: Value =
            serde_json::from_str(include_str!("../../fixtures/wire/getmeas_pages.json")).unwrap();
        for case in file["cases"].as_array().unwrap() {
            let text = case["text"].as_str().unwrap().to_string();
            // The groups as the briefs read them, and every measure the scanner decoded.
            let mut lists: Vec<Vec<Value>> = Vec::new();
            let mut zone = None;
            let answer = Answer { http_status: 200, text: text.clone() };
            let read = answer.scan_page::<MeasGroupWire>("/measure getmeas", &mut |s| {
                let mut ms = Vec::new();
                let g = meas_group(s, &mut zone, &mut |g: &mut GroupValues, m: Measure| {
                    ms.push(serde_json::json!([m.code, m.raw_value, m.raw_unit, m.position]));
                    g.add(m.code, m.value);
                })?;
                lists.push(ms);
                Ok(g)
            });
            if let Some(want) = case["error"].as_str() {
                let err = read.unwrap_err().to_string();
                assert!(err.contains(want) && err.contains("/measure getmeas"), "{text}: {err}");
                continue;
            }
            let page = read.unwrap_or_else(|e| panic!("{text}: {e}"));
            let groups: Vec<Value> = page
                .rows
                .iter()
                .zip(lists)
                .map(|(g, ms)| {
                    serde_json::json!([g.date.map(|d| d.0), g.category, g.attrib, g.timezone.as_deref(), ms])
                })
                .collect();
            let got = serde_json::json!({"groups": groups, "more": page.more, "offset": page.offset, "timezone": page.timezone});
            let want = serde_json::json!({"groups": case["groups"], "more": case["more"], "offset": case["offset"], "timezone": case["timezone"]});
            assert_eq!(got, want, "{text}");
        }
    }

    /// The typed groups equal the JSON decoder's, field for field, on every getmeas fixture
    /// (the unknown fields, which only the list tools pass on, aside).
    #[test]
    fn typed_groups_match_the_json_decoder() {
        for fixture in [
            include_str!("../../fixtures/withings/measure_getmeas_page1.json"),
            include_str!("../../fixtures/withings/measure_getmeas_page2_last.json"),
            include_str!("../../fixtures/withings/measure_getmeas_segmental_bodyscan.json"),
            include_str!("../../fixtures/withings/e2e/brief_getmeas.json"),
        ] {
            let v: Value = serde_json::from_str(fixture).unwrap();
            let body = match v.get("body") {
                Some(b) => b.clone(),
                None => {
                    serde_json::json!({"timezone": v["envelope"]["timezone"], "measuregrps": v["records"]})
                }
            };
            let text = serde_json::json!({"status": 0, "body": body}).to_string();
            let page = MeasGroupWire::page(&Answer { http_status: 200, text }, "/measure getmeas").unwrap();
            let tz = page.timezone.clone();
            let want = decode_measure_groups(&body);
            assert_eq!(page.rows.len(), want.len());
            for (g, w) in page.rows.iter().zip(&want) {
                // What the briefs and trends read; the rest is the list tools'.
                let zone = g.timezone.as_deref().map(str::to_string).or_else(|| tz.clone());
                assert_eq!(
                    (g.date, g.category, g.attrib, zone),
                    (w.date, w.category, w.attrib, w.timezone.clone())
                );
                for code in READ_CODES.into_iter().chain([0, 4, 71, 999]) {
                    let want = READ_CODES.contains(&code).then(|| w.value(code)).flatten();
                    assert_eq!(g.value(code).map(f64::to_bits), want.map(f64::to_bits), "{code}");
                }
                assert_eq!((g.ambiguous(), g.manual()), (w.ambiguous(), w.manual()));
            }
            let typed = page.rows;
            assert!(!typed.is_empty());
        }
    }
}
