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
    let mut out = Vec::with_capacity(128);
    let mut ser = serde_json::Serializer::with_formatter(&mut out, Pretty { depth: 0, has_value: false });
    match value.serialize(&mut ser) {
        // The serializer writes only whole UTF-8 strings and ASCII between them.
        Ok(()) => String::from_utf8(out).unwrap_or_default(),
        Err(_) => String::new(),
    }
}

/// serde_json's `PrettyFormatter`, writing a line break and its indent as one slice of
/// `LINE`: that one writes each indent level by itself, and a thousand listed records (2 MB of
/// text) were 940,000 writes, two fifths of them spaces.
struct Pretty {
    depth: usize,
    has_value: bool,
}

/// A comma, a line break and the indent of up to 32 levels, in one piece (our answers nest six
/// levels; deeper lines take the rest of their indent in pieces).
const LINE: &[u8; 66] = b",\n                                                                ";

impl Pretty {
    /// A line break (after a comma unless `first`) and the current indent.
    fn line<W: ?Sized + std::io::Write>(&self, w: &mut W, first: bool) -> std::io::Result<()> {
        let spaces = 2 * self.depth;
        let line = LINE.get(usize::from(first)..2 + spaces).unwrap_or(&LINE[usize::from(first)..]);
        w.write_all(line)?;
        for _ in (LINE.len() - 2..spaces).step_by(2) {
            w.write_all(b"  ")?;
        }
        Ok(())
    }

    /// An array or an object opened: one level deeper, nothing in it yet.
    fn open<W: ?Sized + std::io::Write>(&mut self, w: &mut W, bracket: &[u8]) -> std::io::Result<()> {
        self.depth += 1;
        self.has_value = false;
        w.write_all(bracket)
    }

    /// An array or an object closed: its last line ended, at the outer level, if it had values.
    fn close<W: ?Sized + std::io::Write>(&mut self, w: &mut W, bracket: &[u8]) -> std::io::Result<()> {
        self.depth -= 1;
        if self.has_value {
            self.line(w, true)?;
        }
        w.write_all(bracket)
    }
}

impl serde_json::ser::Formatter for Pretty {
    fn begin_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.open(w, b"[")
    }
    fn end_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.close(w, b"]")
    }
    fn begin_array_value<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.line(w, first)
    }
    fn end_array_value<W: ?Sized + std::io::Write>(&mut self, _: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }
    fn begin_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.open(w, b"{")
    }
    fn end_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.close(w, b"}")
    }
    fn begin_object_key<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.line(w, first)
    }
    fn begin_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        w.write_all(b": ")
    }
    fn end_object_value<W: ?Sized + std::io::Write>(&mut self, _: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
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

    /// The pretty text is serde_json's, byte for byte: empty and nested containers, escapes,
    /// and nesting past the indent `LINE` holds in one piece.
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
            reference!({"b": [1, 2.5, -3], "a": {"x": "tab\t \"q\" é \u{1}", "y": [true, false, null]}}),
            deep,
        ];
        for value in cases {
            let theirs = serde_json::to_string_pretty(&value).unwrap();
            assert_eq!(super::pretty(&value), theirs);
        }
    }
}
