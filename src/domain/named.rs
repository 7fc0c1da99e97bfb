//! Settings that take one of a few names (privacy mode, units, trend metric, transport…): each
//! enum lists its values once, and parsing, the names shown in schemas and messages, and JSON
//! output all come from that one list, so they cannot disagree.

/// An enum whose values each have one lowercase name.
pub trait Named: Copy + PartialEq + Sized + 'static {
    /// Every value, in the order the names are listed.
    const ALL: &'static [Self];
    /// What a value is, for messages ("privacy mode", "units").
    const WHAT: &'static str;

    /// The value's name.
    fn name(self) -> &'static str;

    /// Every name, in order (for `enum` in schemas).
    fn names() -> Vec<&'static str> {
        Self::ALL.iter().map(|v| v.name()).collect()
    }

    /// Parses a name, ignoring case and surrounding blanks; the error lists the choices.
    fn parse(s: &str) -> Result<Self, String> {
        let t = s.trim();
        match Self::ALL.iter().copied().find(|v| v.name().eq_ignore_ascii_case(t)) {
            Some(v) => Ok(v),
            None => Err(format!("unknown {} `{s}`; use {}", Self::WHAT, one_of(&Self::names()))),
        }
    }
}

/// `a, b or c`.
pub fn one_of(names: &[&str]) -> String {
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        Some((last, _)) => last.to_string(),
        None => String::new(),
    }
}

/// Implements `Serialize` (as the name) and `FromStr` (as [`Named::parse`]) for a [`Named`] enum.
#[macro_export]
macro_rules! named_serde {
    ($t:ty) => {
        impl serde::Serialize for $t {
            fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
                s.serialize_str($crate::domain::named::Named::name(*self))
            }
        }
        impl std::str::FromStr for $t {
            type Err = String;
            fn from_str(s: &str) -> std::result::Result<$t, String> {
                <$t as $crate::domain::named::Named>::parse(s)
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_read_naturally() {
        assert_eq!(one_of(&["summary", "structured", "raw"]), "summary, structured or raw");
        assert_eq!(one_of(&["a", "b"]), "a or b");
        assert_eq!(one_of(&["a"]), "a");
    }
}
