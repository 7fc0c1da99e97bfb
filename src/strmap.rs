//! `StrMap`: string keys to string values, kept sorted by key in one `Vec`.
//!
//! The environment snapshot, the config file's values and a prompt's arguments were each a
//! `BTreeMap<String, String>`, whose insert, search, clone and node-balancing code was compiled
//! for them alone (several KB of the static binary, for a few dozen entries). A sorted `Vec`
//! answers the same lookups and walks the keys in the same order (a binary search each).

/// A map from strings to strings, in key order, as `BTreeMap<String, String>` is.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StrMap(Vec<(String, String)>);

impl StrMap {
    /// An empty map.
    pub fn new() -> StrMap {
        StrMap(Vec::new())
    }

    /// Sets `key` to `value`; a key already there keeps its place and takes the new value (as
    /// `BTreeMap::insert`).
    pub fn insert(&mut self, key: String, value: String) {
        match self.find(&key) {
            Ok(i) => {
                if let Some(slot) = self.0.get_mut(i) {
                    slot.1 = value;
                }
            }
            Err(i) => self.0.insert(i, (key, value)),
        }
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&String> {
        self.find(key).ok().and_then(|i| self.0.get(i)).map(|(_, v)| v)
    }

    /// True when `key` has a value.
    pub fn contains_key(&self, key: &str) -> bool {
        self.find(key).is_ok()
    }

    /// The keys, in order.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(|(k, _)| k.as_str())
    }

    fn find(&self, key: &str) -> std::result::Result<usize, usize> {
        self.0.binary_search_by(|(k, _)| k.as_str().cmp(key))
    }
}

impl FromIterator<(String, String)> for StrMap {
    fn from_iter<I: IntoIterator<Item = (String, String)>>(pairs: I) -> StrMap {
        let mut map = StrMap::new();
        for (k, v) in pairs {
            map.insert(k, v);
        }
        map
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorted_last_value_wins() {
        let map: StrMap = [("b", "1"), ("a", "2"), ("c", "3"), ("b", "4")]
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        assert_eq!(map.keys().collect::<Vec<_>>(), ["a", "b", "c"]);
        assert_eq!(map.get("b").map(String::as_str), Some("4"));
        assert_eq!(map.get("d"), None);
        assert!(map.contains_key("c") && !map.contains_key(""));
    }
}
