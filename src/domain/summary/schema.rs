//! The JSON Schemas (2020-12) the briefs always satisfy. Every key a brief emits is listed and
//! required; absent values are `null`, so the schema documents the full shape.
//!
//! The schemas are data, kept as JSON next to this file: parsing 23 KB of text at start-up costs
//! a tenth of building the same tree with `json!`, and far less code in the binary. They are
//! compiled in deflated by build.rs (under 3 KB for both; 20 KB less binary). The tests check
//! every brief against them, so a change to a brief that forgets its schema fails.

use serde_json::Value;

use crate::image::inflate;
use crate::value::json;

const DAILY: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/daily_schema.json.zlib"));
const WEEKLY: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/weekly_schema.json.zlib"));

/// The JSON Schema every [`crate::domain::summary::daily`] answer satisfies.
pub fn daily_output_schema() -> Value {
    parse(DAILY)
}

/// The JSON Schema every [`crate::domain::summary::weekly`] answer satisfies.
pub fn weekly_output_schema() -> Value {
    parse(WEEKLY)
}

/// The embedded text is checked by a unit test; a permissive object schema stands in should it
/// ever fail to inflate or parse, so a bad edit cannot take the server down.
fn parse(zlib: &[u8]) -> Value {
    // From text, not bytes: `from_slice` would compile a second copy of the JSON parser.
    inflate::zlib(zlib, 1 << 20)
        .and_then(|text| String::from_utf8(text).ok())
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_else(|| json!({"type": "object"}))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_schemas_parse_and_require_their_top_level_keys() {
        for (text, kind) in [(DAILY, "daily_summary"), (WEEKLY, "weekly_summary")] {
            let v: Value = serde_json::from_slice(&inflate::zlib(text, 1 << 20).unwrap()).unwrap();
            assert_eq!(v["properties"]["kind"]["const"], kind);
            assert!(v["required"].as_array().unwrap().len() > 5);
        }
    }

    #[test]
    fn the_schemas_served_are_the_files() {
        let file = |text: &str| serde_json::from_str::<Value>(text).unwrap();
        assert_eq!(daily_output_schema(), file(include_str!("daily_schema.json")));
        assert_eq!(weekly_output_schema(), file(include_str!("weekly_schema.json")));
    }
}
