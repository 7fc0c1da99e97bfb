//! The JSON Schemas (2020-12) the briefs always satisfy: the output schemas of
//! `withings_daily_summary` and `withings_weekly_summary`, kept with the rest of the tool
//! catalogue as data (src/tools/schemas.txt). Every key a brief emits is listed and required;
//! absent values are `null`, so the schema documents the full shape. The tests check every brief
//! against them, so a change to a brief that forgets its schema fails.

use serde_json::Value;

use crate::tools::catalogue::{self, Part};

/// The JSON Schema every [`crate::domain::summary::daily`] answer satisfies.
pub fn daily_output_schema() -> Value {
    brief("withings_daily_summary")
}

/// The JSON Schema every [`crate::domain::summary::weekly`] answer satisfies.
pub fn weekly_output_schema() -> Value {
    brief("withings_weekly_summary")
}

/// The tool's output schema without `account`, which the tool layer adds to every answer.
fn brief(tool: &str) -> Value {
    let mut schema: Value = serde_json::from_str(catalogue::text(tool, Part::Output)).unwrap_or_default();
    if let Some(required) = schema.get_mut("required").and_then(Value::as_array_mut) {
        required.retain(|k| k != "account");
    }
    schema
}
