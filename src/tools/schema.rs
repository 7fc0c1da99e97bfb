//! A small JSON Schema (2020-12) checker for the subset our schemas use: `type`, `enum`,
//! `const`, numeric bounds, string lengths, `properties`, `required`, `additionalProperties`,
//! `items`, array lengths, `anyOf`/`oneOf`, and `default` for tool arguments.
//!
//! Tool arguments and tool outputs are checked by the same code, so a schema we advertise is a
//! schema we enforce.

use serde_json::{Map, Value};

use crate::{Error, Result};

/// A schema written as JSON text (`Null` if the text is not JSON, which the catalogue's tests
/// rule out).
pub fn from_text(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or(Value::Null)
}

/// Checks tool arguments against an object schema and returns them with defaults applied.
/// `null` or absent arguments count as `{}`. The error names the offending argument.
pub fn validate_args(schema: &Value, args: &Value) -> Result<Map<String, Value>> {
    let mut map = match args {
        Value::Null => Map::new(),
        Value::Object(m) => m.clone(),
        other => {
            return Err(Error::arg("arguments", format!("must be an object, got {}", type_name(other))));
        }
    };
    let props = schema.get("properties").and_then(Value::as_object);
    if schema.get("additionalProperties") == Some(&Value::Bool(false)) {
        for key in map.keys() {
            if !props.is_some_and(|p| p.contains_key(key)) {
                let known: Vec<&str> =
                    props.map(|p| p.keys().map(String::as_str).collect()).unwrap_or_default();
                let hint = match known.is_empty() {
                    true => "this tool takes no arguments".to_string(),
                    false => format!("expected one of: {}", known.join(", ")),
                };
                return Err(Error::arg(key, format!("unknown argument; {hint}")));
            }
        }
    }
    for name in required(schema) {
        if !map.contains_key(name) {
            return Err(Error::arg(name, "is required"));
        }
    }
    if let Some(props) = props {
        for (name, sub) in props {
            match map.get(name) {
                // The error names the argument once: `invalid argument `limit`: must be at most…`
                // (a nested path, `days[2]: …`, stays).
                Some(v) => check_at(sub, v, name).map_err(|m| {
                    let own = m.strip_prefix(name.as_str()).and_then(|rest| rest.strip_prefix(": "));
                    Error::arg(name, own.map_or(m.clone(), str::to_string))
                })?,
                None => {
                    if let Some(d) = sub.get("default") {
                        map.insert(name.clone(), d.clone());
                    }
                }
            }
        }
    }
    Ok(map)
}

/// Checks any value against a schema; the error message starts with the JSON path.
pub fn check(schema: &Value, value: &Value) -> std::result::Result<(), String> {
    check_at(schema, value, "$").map_err(|m| m.to_string())
}

fn required(schema: &Value) -> impl Iterator<Item = &str> {
    schema.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str)
}

fn check_at(schema: &Value, value: &Value, path: &str) -> Checked {
    let Some(s) = schema.as_object() else {
        // `true` (or any non-object) accepts everything; `false` accepts nothing.
        return match schema {
            Value::Bool(false) => Err(format!("{path}: no value is allowed here")),
            _ => Ok(()),
        };
    };
    check_type(s, value, path)?;
    if let Some(Value::Array(options)) = s.get("enum")
        && !options.contains(value)
    {
        let shown: Vec<String> = options.iter().map(crate::value::text).collect();
        return Err(format!(
            "{path}: must be one of {}, got {}",
            shown.join(", "),
            crate::value::text(value)
        ));
    }
    if let Some(c) = s.get("const")
        && c != value
    {
        return Err(format!("{path}: must be {}", crate::value::text(c)));
    }
    check_bounds(s, value, path)?;
    if let Some(obj) = value.as_object() {
        check_object(schema, s, obj, path)?;
    }
    if let Some(items) = value.as_array() {
        check_array(s, items, path)?;
    }
    if let Some(Value::Array(any)) = s.get("anyOf")
        && !any.iter().any(|sub| check_at(sub, value, path).is_ok())
    {
        return Err(format!("{path}: matches none of the allowed shapes"));
    }
    if let Some(Value::Array(one)) = s.get("oneOf") {
        let n = one.iter().filter(|sub| check_at(sub, value, path).is_ok()).count();
        if n != 1 {
            return Err(format!("{path}: must match exactly one allowed shape, matches {n}"));
        }
    }
    Ok(())
}

/// What one check finds: nothing, or what is wrong and where.
type Checked = std::result::Result<(), String>;

/// `type`: one name or a list of them.
fn check_type(s: &Map<String, Value>, value: &Value, path: &str) -> Checked {
    let Some(t) = s.get("type") else { return Ok(()) };
    let ok = match t {
        Value::String(t) => is_type(value, t),
        Value::Array(ts) => ts.iter().filter_map(Value::as_str).any(|t| is_type(value, t)),
        _ => true,
    };
    if ok {
        return Ok(());
    }
    let want = match t {
        Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(" or "),
        other => other.as_str().unwrap_or("?").to_string(),
    };
    Err(format!("{path}: expected {want}, got {}", type_name(value)))
}

/// A number's `minimum`, `maximum` and `exclusiveMinimum`; a string's `minLength` and
/// `maxLength`.
fn check_bounds(s: &Map<String, Value>, value: &Value, path: &str) -> Checked {
    let bound = |key: &str| s.get(key).and_then(Value::as_f64);
    if let Some(n) = value.as_f64() {
        if let Some(min) = bound("minimum")
            && n < min
        {
            return Err(format!("{path}: must be at least {min}, got {}", crate::value::text(value)));
        }
        if let Some(max) = bound("maximum")
            && n > max
        {
            return Err(format!("{path}: must be at most {max}, got {}", crate::value::text(value)));
        }
        if let Some(min) = bound("exclusiveMinimum")
            && n <= min
        {
            return Err(format!("{path}: must be greater than {min}, got {}", crate::value::text(value)));
        }
    }
    if let Some(text) = value.as_str() {
        let len = text.chars().count() as u64;
        if let Some(min) = s.get("minLength").and_then(Value::as_u64)
            && len < min
        {
            return Err(format!("{path}: must be at least {min} characters"));
        }
        if let Some(max) = s.get("maxLength").and_then(Value::as_u64)
            && len > max
        {
            return Err(format!("{path}: must be at most {max} characters"));
        }
    }
    Ok(())
}

/// `required`, `properties` and `additionalProperties`.
fn check_object(schema: &Value, s: &Map<String, Value>, obj: &Map<String, Value>, path: &str) -> Checked {
    let props = s.get("properties").and_then(Value::as_object);
    for name in required(schema) {
        if !obj.contains_key(name) {
            return Err(format!("{path}.{name}: is required"));
        }
    }
    for (k, v) in obj {
        let sub_path = format!("{path}.{k}");
        match props.and_then(|p| p.get(k)) {
            Some(sub) => check_at(sub, v, &sub_path)?,
            None => match s.get("additionalProperties") {
                Some(Value::Bool(false)) => return Err(format!("{sub_path}: unknown property")),
                Some(extra) => check_at(extra, v, &sub_path)?,
                None => {}
            },
        }
    }
    Ok(())
}

/// `minItems`, `maxItems` and `items`.
fn check_array(s: &Map<String, Value>, items: &[Value], path: &str) -> Checked {
    if let Some(min) = s.get("minItems").and_then(Value::as_u64)
        && (items.len() as u64) < min
    {
        return Err(format!("{path}: must have at least {min} items"));
    }
    if let Some(max) = s.get("maxItems").and_then(Value::as_u64)
        && (items.len() as u64) > max
    {
        return Err(format!("{path}: must have at most {max} items"));
    }
    if let Some(item_schema) = s.get("items") {
        for (i, item) in items.iter().enumerate() {
            check_at(item_schema, item, &format!("{path}[{i}]"))?;
        }
    }
    Ok(())
}

fn is_type(value: &Value, t: &str) -> bool {
    match t {
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "boolean" => value.is_boolean(),
        "null" => value.is_null(),
        "number" => value.is_number(),
        "integer" => value.is_i64() || value.is_u64() || value.as_f64().is_some_and(|f| f.fract() == 0.0),
        _ => true,
    }
}

/// A short name of a JSON value's type, for error messages.
pub fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_f64() => "number",
        Value::Number(_) => "integer",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn schema() -> Value {
        json!({
            "type": "object",
            "additionalProperties": false,
            "required": ["metric"],
            "properties": {
                "metric": {"type": "string", "enum": ["weight", "steps"]},
                "limit": {"type": "integer", "minimum": 1, "maximum": 500, "default": 50},
                "response_format": {"type": "string", "enum": ["markdown", "json"], "default": "markdown"}
            }
        })
    }

    #[test]
    fn defaults_are_applied_and_given_values_kept() {
        let m = validate_args(&schema(), &json!({"metric": "steps", "limit": 7})).unwrap();
        assert_eq!(m["limit"], 7);
        assert_eq!(m["response_format"], "markdown");
    }

    #[test]
    fn each_error_names_the_argument() {
        let cases = [
            (json!({"metric": "steps", "bogus": 1}), "bogus", "unknown argument"),
            (json!({}), "metric", "is required"),
            (json!({"metric": "sleep"}), "metric", "must be one of"),
            (json!({"metric": "steps", "limit": 0}), "limit", "at least 1"),
            (json!({"metric": "steps", "limit": 501}), "limit", "at most 500"),
            (json!({"metric": "steps", "limit": "7"}), "limit", "expected integer"),
            (json!({"metric": "steps", "limit": 1.5}), "limit", "expected integer"),
            (json!([1]), "arguments", "must be an object"),
        ];
        for (args, name, text) in cases {
            let err = validate_args(&schema(), &args).unwrap_err();
            match &*err {
                Error::InvalidArgument { name: n, message } => {
                    assert_eq!(n, name, "{args}");
                    assert!(message.contains(text), "{args}: {message}");
                    // Named once, by the error itself: not again at the start of its message.
                    let shown = err.to_string();
                    assert_eq!(shown.matches(name).count(), 1, "{shown}");
                }
                other => panic!("unexpected {other:?}"),
            }
        }
    }

    #[test]
    fn null_arguments_mean_none() {
        let s = json!({"type": "object", "additionalProperties": false, "properties": {}});
        assert!(validate_args(&s, &Value::Null).unwrap().is_empty());
    }

    #[test]
    fn nested_output_checks_report_the_path() {
        let s = json!({"type": "object", "properties": {"records": {"type": "array", "items": {"type": "object", "required": ["date"]}}}});
        let err = check(&s, &json!({"records": [{"date": 1}, {}]})).unwrap_err();
        assert_eq!(err, "$.records[1].date: is required");
        assert!(check(&s, &json!({"records": [{"date": 1}]})).is_ok());
    }
}
