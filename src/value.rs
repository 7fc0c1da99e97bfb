//! `json!`: serde_json's macro with the same syntax and the same values, compiled lean.
//!
//! serde_json's `json!` expands every field into a key allocation, a `to_value` call with its own
//! panicking unwrap and a map insert: about 150 bytes of machine code per field, over more than a
//! thousand fields. Here a field is a `(key, value)` pair in an array on the stack, and one
//! non-generic function builds the map from it, in order (keys keep their order: the maps are
//! `preserve_order`). A value that cannot be represented in JSON (never the case for the values
//! we build) becomes null instead of a panic.

use std::mem::ManuallyDrop;

use serde::Serialize;
use serde_json::{Map, Value};

/// One value, as serde_json's `to_value` makes it.
#[doc(hidden)]
pub fn to<T: Serialize + ?Sized>(value: &T) -> Value {
    or_null(serde_json::to_value(value))
}

/// A value as compact JSON text, the bytes serde_json's `Display` for `Value` writes. That
/// `Display` is a second copy of the serializer behind a `fmt::Write` adapter (about 2 KB of
/// the static binary); this shares the one every other JSON text goes through. Every value
/// printed as JSON goes here, never through `{}` or `.to_string()`, or the copy comes back.
pub fn text(value: &Value) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// A value as pretty JSON text, the bytes serde_json's `to_string_pretty` writes (two spaces an
/// indent level). Every pretty text goes here, never through `to_string_pretty`, or its
/// formatter comes back beside this one.
pub fn pretty(value: &Value) -> String {
    reindent(&text(value))
}

/// Compact JSON text as serde_json writes it (nothing between tokens) made pretty, the bytes
/// `to_string_pretty` writes for the same value: the one pretty writer, for trees (through
/// [`text`]) and for answers written straight to text ([`Json::Text`]). The text is copied in
/// runs, from one structural byte to the next, strings passed over whole: for a thousand listed
/// records (2 MB of pretty text), 41 M instructions where a pretty formatter over their tree
/// took 63 M, and no tree to build.
pub fn reindent(compact: &str) -> String {
    let mut out = String::with_capacity(compact.len() * 3);
    // Nothing to write to: the text is all made in `out`.
    let _ = reindent_into(compact, &mut out, None);
    out
}

/// [`reindent`] written to `w` as it is made, a piece of about 64 KB at a time: a long answer
/// printed by `call` is not made whole in memory first (a thousand listed records: 2 MB, 520
/// fresh pages).
pub fn write_reindented(compact: &str, w: &mut dyn std::io::Write) -> std::io::Result<()> {
    let mut out = String::with_capacity(PIECE + 4096);
    let mut spill = |out: &mut String| {
        let written = w.write_all(out.as_bytes());
        out.clear();
        written
    };
    reindent_into(compact, &mut out, Some(&mut spill))?;
    spill(&mut out)
}

/// Writes out and empties the pretty text made so far.
type Spill<'a> = &'a mut dyn FnMut(&mut String) -> std::io::Result<()>;

/// How much pretty text [`write_reindented`] holds before writing it.
const PIECE: usize = 64 * 1024;

/// The pretty text of `compact` into `out`, handed to `spill` (which empties it) whenever it
/// holds a [`PIECE`], if there is a `spill`.
fn reindent_into(compact: &str, out: &mut String, mut spill: Option<Spill<'_>>) -> std::io::Result<()> {
    let b = compact.as_bytes();
    // The text up to `to` not yet copied starts at `run`; every piece ends at an ASCII byte.
    let copy =
        |out: &mut String, run: usize, to: usize| out.push_str(compact.get(run..to).unwrap_or_default());
    let (mut depth, mut run, mut i) = (0usize, 0usize, 0usize);
    while let Some(&c) = b.get(i) {
        i += 1;
        match c {
            b'"' => i = string_end(b, i),
            b':' => {
                copy(out, run, i);
                out.push(' ');
                run = i;
            }
            b',' => {
                copy(out, run, i);
                line(out, depth);
                run = i;
                if let Some(spill) = spill.as_mut()
                    && out.len() >= PIECE
                {
                    spill(out)?;
                }
            }
            // Empty: `[]` and `{}` stay as they are.
            b'{' | b'[' if matches!(b.get(i), Some(b'}' | b']')) => i += 1,
            b'{' | b'[' => {
                depth += 1;
                copy(out, run, i);
                line(out, depth);
                run = i;
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                copy(out, run, i - 1);
                line(out, depth);
                run = i - 1;
            }
            _ => {}
        }
    }
    copy(out, run, b.len());
    Ok(())
}

/// The end of the string whose text starts at `from` (after its quote): past its closing quote.
fn string_end(b: &[u8], mut from: usize) -> usize {
    loop {
        match b.get(from..).and_then(|rest| rest.iter().position(|x| matches!(x, b'"' | b'\\'))) {
            Some(n) if b.get(from + n) == Some(&b'\\') => from += n + 2,
            Some(n) => return from + n + 1,
            None => return b.len(),
        }
    }
}

/// A line break and the indent of `depth` levels (serde_json's two spaces a level): up to 32
/// levels in one write (our answers nest six), deeper ones in pieces.
fn line(out: &mut String, depth: usize) {
    const LINE: &str = "\n                                                                ";
    let mut spaces = 2 * depth;
    out.push_str(LINE.get(..1 + spaces.min(LINE.len() - 1)).unwrap_or_default());
    while spaces > LINE.len() - 1 {
        spaces -= LINE.len() - 1;
        out.push_str(LINE.get(1..1 + spaces.min(LINE.len() - 1)).unwrap_or_default());
    }
}

/// A JSON value: a tree, or the compact text it serialises to, written once. Answers are trees
/// but for the long ones: the tool catalogue, and a list's records, which are written straight
/// to text (a thousand measure groups as a tree were a third of a listing's instructions and
/// half its page faults).
#[derive(Debug, Clone)]
pub enum Json {
    Tree(Value),
    /// Compact text, as [`text`] writes it.
    Text(String),
}

impl From<Value> for Json {
    fn from(v: Value) -> Json {
        Json::Tree(v)
    }
}

impl Json {
    /// Compact text.
    pub fn into_text(self) -> String {
        match self {
            Json::Tree(v) => text(&v),
            Json::Text(t) => t,
        }
    }

    /// Pretty text (see [`pretty`]).
    pub fn pretty(&self) -> String {
        match self {
            Json::Tree(v) => pretty(v),
            Json::Text(t) => reindent(t),
        }
    }

    /// Pretty text written to `w` as it is made (see [`write_reindented`]).
    pub fn write_pretty(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        match self {
            Json::Tree(v) => write_reindented(&text(v), w),
            Json::Text(t) => write_reindented(t, w),
        }
    }

    /// The tree: text parsed (`null` for text that is not JSON, which we never write).
    pub fn tree(&self) -> std::borrow::Cow<'_, Value> {
        match self {
            Json::Tree(v) => std::borrow::Cow::Borrowed(v),
            Json::Text(t) => std::borrow::Cow::Owned(serde_json::from_str(t).unwrap_or_default()),
        }
    }

    /// Adds `key` to an object, after its members; anything else is left as it is. A tree's key
    /// already there takes the value in its place; text is written by us, without the keys
    /// added to it (a list answer's keys are its `Frame`'s).
    pub fn insert(&mut self, key: &str, value: Value) {
        match self {
            Json::Tree(Value::Object(m)) => {
                m.insert(key.to_string(), value);
            }
            Json::Tree(_) => {}
            Json::Text(t) if t.ends_with('}') => {
                t.pop();
                if t.len() > 1 {
                    t.push(',');
                }
                t.push_str(&text(&Value::from(key)));
                t.push(':');
                t.push_str(&text(&value));
                t.push('}');
            }
            Json::Text(_) => {}
        }
    }
}

/// The error case of `to`, once: not a drop of the error in every type's copy of `to`.
fn or_null(value: serde_json::Result<Value>) -> Value {
    value.unwrap_or(Value::Null)
}

/// An object from its fields, in order; a repeated key keeps its first place and last value.
/// Every value is taken, leaving `null`, and each comes wrapped in `ManuallyDrop` as the site
/// builds it: so `json!` does not drop the array after the call (one drop call a site and one
/// drop function an array length fewer: −1 KB), nor move the whole built array into a
/// `ManuallyDrop` (a copy of every value at every site: −0.9 KB).
#[doc(hidden)]
pub fn object(fields: &mut [(&str, ManuallyDrop<Value>)]) -> Value {
    let mut map = Map::new();
    for (key, value) in fields {
        map.insert((*key).to_string(), std::mem::take(&mut **value));
    }
    Value::Object(map)
}

/// An object whose keys are all literals: the keys come as one string, each followed by a NUL,
/// so a site passes one `&str` for all its keys, not one per field (a key is never empty of
/// meaning and never holds a NUL). Otherwise as `object`.
#[doc(hidden)]
pub fn packed(keys: &str, values: &mut [ManuallyDrop<Value>]) -> Value {
    let mut map = Map::new();
    for (key, value) in keys.split_terminator('\0').zip(values) {
        map.insert(key.to_string(), std::mem::take(&mut **value));
    }
    Value::Object(map)
}

/// An array from its items, taken as `object` takes its fields: one non-generic function, not a
/// `vec!` allocation expanded at every site.
#[doc(hidden)]
pub fn array(items: &mut [ManuallyDrop<Value>]) -> Value {
    Value::Array(items.iter_mut().map(|item| std::mem::take(&mut **item)).collect())
}

/// serde_json's `json!` syntax: `null`, `{ "key": value, … }` (a key is a literal, a name or a parenthesised expression, of `str`), `[…]`,
/// or any expression that serialises. Nested objects and arrays follow the same rules.
macro_rules! json {
    (null) => { serde_json::Value::Null };
    ({ $($fields:tt)* }) => { $crate::value::json!(@packed [] [] $($fields)*) };
    ([]) => { serde_json::Value::Array(::std::vec::Vec::new()) };
    ([ $($items:tt)+ ]) => {
        $crate::value::array(&mut $crate::value::json!(@items [] $($items)+))
    };
    ($value:expr) => { $crate::value::to(&$value) };

    // Literal keys are packed into one string (`packed`); at the first key that is not a
    // literal, the fields so far are handed to the general form, a (key, value) pair each.
    (@packed [$($keys:literal)*] [$($vals:tt)*]) => {
        $crate::value::packed(
            concat!($($keys, "\0",)*),
            &mut [$(::std::mem::ManuallyDrop::new($vals)),*],
        )
    };
    (@packed [$($keys:literal)*] [$($vals:tt)*] $key:literal : null $(, $($rest:tt)*)?) => {
        $crate::value::json!(@packed [$($keys)* $key] [$($vals)* (serde_json::Value::Null)] $($($rest)*)?)
    };
    (@packed [$($keys:literal)*] [$($vals:tt)*] $key:literal : { $($v:tt)* } $(, $($rest:tt)*)?) => {
        $crate::value::json!(@packed [$($keys)* $key] [$($vals)* ($crate::value::json!({ $($v)* }))] $($($rest)*)?)
    };
    (@packed [$($keys:literal)*] [$($vals:tt)*] $key:literal : [ $($v:tt)* ] $(, $($rest:tt)*)?) => {
        $crate::value::json!(@packed [$($keys)* $key] [$($vals)* ($crate::value::json!([ $($v)* ]))] $($($rest)*)?)
    };
    (@packed [$($keys:literal)*] [$($vals:tt)*] $key:literal : $v:expr , $($rest:tt)*) => {
        $crate::value::json!(@packed [$($keys)* $key] [$($vals)* ($crate::value::to(&$v))] $($rest)*)
    };
    (@packed [$($keys:literal)*] [$($vals:tt)*] $key:literal : $v:expr) => {
        $crate::value::json!(@packed [$($keys)* $key] [$($vals)* ($crate::value::to(&$v))])
    };
    (@packed [$($keys:literal)*] [$($vals:tt)*] $($rest:tt)+) => {
        $crate::value::object(&mut $crate::value::json!(@fields [$((&*$keys, ::std::mem::ManuallyDrop::new($vals)),)*] $($rest)+))
    };

    (@fields [$($out:tt)*]) => { [$($out)*] };
    (@fields [$($out:tt)*] $key:tt : null $(, $($rest:tt)*)?) => {
        $crate::value::json!(@fields [$($out)* (&*$key, ::std::mem::ManuallyDrop::new(serde_json::Value::Null)),] $($($rest)*)?)
    };
    (@fields [$($out:tt)*] $key:tt : { $($v:tt)* } $(, $($rest:tt)*)?) => {
        $crate::value::json!(@fields [$($out)* (&*$key, ::std::mem::ManuallyDrop::new($crate::value::json!({ $($v)* }))),] $($($rest)*)?)
    };
    (@fields [$($out:tt)*] $key:tt : [ $($v:tt)* ] $(, $($rest:tt)*)?) => {
        $crate::value::json!(@fields [$($out)* (&*$key, ::std::mem::ManuallyDrop::new($crate::value::json!([ $($v)* ]))),] $($($rest)*)?)
    };
    (@fields [$($out:tt)*] $key:tt : $v:expr , $($rest:tt)*) => {
        $crate::value::json!(@fields [$($out)* (&*$key, ::std::mem::ManuallyDrop::new($crate::value::to(&$v))),] $($rest)*)
    };
    (@fields [$($out:tt)*] $key:tt : $v:expr) => {
        $crate::value::json!(@fields [$($out)* (&*$key, ::std::mem::ManuallyDrop::new($crate::value::to(&$v))),])
    };

    (@items [$($out:tt)*]) => { [$($out)*] };
    (@items [$($out:tt)*] null $(, $($rest:tt)*)?) => {
        $crate::value::json!(@items [$($out)* ::std::mem::ManuallyDrop::new(serde_json::Value::Null),] $($($rest)*)?)
    };
    (@items [$($out:tt)*] { $($v:tt)* } $(, $($rest:tt)*)?) => {
        $crate::value::json!(@items [$($out)* ::std::mem::ManuallyDrop::new($crate::value::json!({ $($v)* })),] $($($rest)*)?)
    };
    (@items [$($out:tt)*] [ $($v:tt)* ] $(, $($rest:tt)*)?) => {
        $crate::value::json!(@items [$($out)* ::std::mem::ManuallyDrop::new($crate::value::json!([ $($v)* ])),] $($($rest)*)?)
    };
    (@items [$($out:tt)*] $v:expr , $($rest:tt)*) => {
        $crate::value::json!(@items [$($out)* ::std::mem::ManuallyDrop::new($crate::value::to(&$v)),] $($rest)*)
    };
    (@items [$($out:tt)*] $v:expr) => {
        $crate::value::json!(@items [$($out)* ::std::mem::ManuallyDrop::new($crate::value::to(&$v)),])
    };
}
pub(crate) use json;

#[cfg(test)]
mod tests {
    // The reference: serde_json's own macro, compared value for value and text for text.
    use serde_json::json as reference;

    #[test]
    fn builds_what_serde_json_builds() {
        let (name, n, missing): (&str, Option<f64>, Option<i64>) = ("a", Some(1.5), None);
        let nested = reference!({"x": [1, 2]});
        let cases = [
            (super::json!(null), reference!(null)),
            (super::json!({}), reference!({})),
            (super::json!([]), reference!([])),
            (super::json!(7), reference!(7)),
            (
                super::json!([1, "two", null, [3], {"four": 4}]),
                reference!([1, "two", null, [3], {"four": 4}]),
            ),
            (
                super::json!({"b": name, "a": n, "m": missing, "z": null, "o": {"k": [true, {}]}, "v": nested,}),
                reference!({"b": name, "a": n, "m": missing, "z": null, "o": {"k": [true, {}]}, "v": nested,}),
            ),
            (super::json!({"k": 1, "k": 2}), reference!({"k": 1, "k": 2})),
            (
                super::json!({"f": f64::NAN, "s": name.len() > 1}),
                reference!({"f": f64::NAN, "s": name.len() > 1}),
            ),
        ];
        for (ours, theirs) in cases {
            assert_eq!(ours.to_string(), theirs.to_string());
        }
    }

    /// The pretty text is serde_json's, byte for byte: empty and nested containers, escapes
    /// (an escaped quote or backslash ends no string), and nesting past the indent `line`
    /// writes in one piece.
    #[test]
    fn pretty_writes_what_serde_json_writes() {
        let mut deep = reference!("bottom");
        for depth in 0..40 {
            deep = match depth % 2 {
                0 => reference!([deep, {}]),
                _ => reference!({"k": deep, "e": [], "n": null}),
            };
        }
        let cases = [
            reference!(null),
            reference!({}),
            reference!([]),
            reference!([[], {}, [[]], {"a": {}}]),
            reference!({"b": [1, 2.5, -3e-7], "a": {"x": "tab\t \"q\" é \u{1}", "y": [true, false, null]}}),
            reference!({"\\": "\\", "k\"{": ["\\\"]:,", "{}"], "": ""}),
            deep,
        ];
        for value in cases {
            let theirs = serde_json::to_string_pretty(&value).unwrap();
            assert_eq!(super::pretty(&value), theirs);
            assert_eq!(super::Json::Text(super::text(&value)).pretty(), theirs);
            let mut written = Vec::new();
            super::Json::Tree(value.clone()).write_pretty(&mut written).unwrap();
            assert_eq!(String::from_utf8(written).unwrap(), theirs);
        }
    }

    /// Written in pieces, a long text is the same text.
    #[test]
    fn long_pretty_text_is_written_in_pieces_unchanged() {
        let long = reference!({"records": (0..20_000).map(|i| reference!({"n": i, "s": "x,y:{z}"})).collect::<Vec<_>>()});
        let mut written = Vec::new();
        super::Json::Text(super::text(&long)).write_pretty(&mut written).unwrap();
        assert!(written.len() > 3 * super::PIECE);
        assert_eq!(String::from_utf8(written).unwrap(), serde_json::to_string_pretty(&long).unwrap());
    }

    /// A member added to an answer written as text lands where a tree puts it.
    #[test]
    fn members_are_added_to_text_as_to_a_tree() {
        for object in [reference!({}), reference!({"a": [1, {"b": "}"}]})] {
            let (mut tree, mut text) =
                (super::Json::Tree(object.clone()), super::Json::Text(super::text(&object)));
            for j in [&mut tree, &mut text] {
                j.insert("account", reference!("default"));
                j.insert("demo", reference!(true));
            }
            assert_eq!(text.tree().into_owned(), tree.tree().into_owned());
            assert_eq!(text.into_text(), tree.into_text());
        }
        let mut not_an_object = super::Json::Text("[1]".into());
        not_an_object.insert("demo", reference!(true));
        assert_eq!(not_an_object.into_text(), "[1]");
    }
}
