//! JSON client configs (Claude Desktop, Cursor): the `withings` entry, the snippet to paste, the
//! merge that keeps every other server and key in its order, and the reading `doctor` does.

use std::path::Path;

use serde_json::{Map, Value};

use crate::commands::clients::{Server, unchanged};
use crate::{Error, Result};

/// The `withings` server entry as JSON.
pub fn entry(server: &Server) -> Value {
    let mut entry = Map::new();
    entry.insert("command".into(), Value::String(server.command.to_string()));
    entry.insert("args".into(), Value::Array(server.args.iter().cloned().map(Value::String).collect()));
    if !server.env.is_empty() {
        let env = server.env.iter().map(|(k, v)| (k.clone(), Value::String(v.clone()))).collect();
        entry.insert("env".into(), Value::Object(env));
    }
    Value::Object(entry)
}

/// `{"mcpServers": {name: entry}}`, pretty-printed, for the user to paste.
pub fn snippet(name: &str, entry: &Value) -> String {
    let mut servers = Map::new();
    servers.insert(name.into(), entry.clone());
    let mut root = Map::new();
    root.insert("mcpServers".into(), Value::Object(servers));
    let mut text = crate::value::pretty(&Value::Object(root));
    text.push('\n');
    text
}

/// The new JSON text with `mcpServers.<name> = entry`, or `None` when the entry is already
/// exactly that. Other servers and keys keep their order (serde_json `preserve_order`).
pub fn merge(path: &Path, old: Option<&str>, name: &str, entry: Value) -> Result<Option<String>> {
    let mut root = match old.map(str::trim) {
        None | Some("") => Map::new(),
        Some(text) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(map)) => map,
            Ok(_) => return Err(Box::new(unchanged(path, "the top level is not a JSON object"))),
            Err(e) => {
                return Err(Error::json(
                    path.display().to_string(),
                    format!("{e}; the file was left unchanged"),
                ));
            }
        },
    };
    let servers = root.entry("mcpServers").or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(servers) = servers else {
        return Err(Box::new(unchanged(path, "`mcpServers` is not a JSON object")));
    };
    if servers.get(name) == Some(&entry) {
        return Ok(None);
    }
    // Insert keeps the position of an existing entry and appends a new one.
    servers.insert(name.into(), entry);
    let mut text = crate::value::pretty(&Value::Object(root));
    text.push('\n');
    Ok(Some(text))
}

/// The `mcpServers.<name>.command` of a JSON config (`Ok(None)` when there is no entry).
pub fn withings_command(text: &str, name: &str) -> std::result::Result<Option<String>, String> {
    let root: Value = serde_json::from_str(text).map_err(|e| format!("invalid JSON: {e}"))?;
    let Value::Object(root) = root else {
        return Err("the top level is not a JSON object".into());
    };
    let servers = match root.get("mcpServers") {
        None => return Ok(None),
        Some(Value::Object(s)) => s,
        Some(_) => return Err("`mcpServers` is not a JSON object".into()),
    };
    match servers.get(name) {
        None => Ok(None),
        Some(Value::Object(entry)) => match entry.get("command") {
            Some(Value::String(c)) => Ok(Some(c.clone())),
            _ => Err(format!("the `{name}` entry has no string `command`")),
        },
        Some(_) => Err(format!("the `{name}` entry is not a JSON object")),
    }
}
