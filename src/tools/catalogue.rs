//! The tool catalogue as data: every tool's description and schemas, as the JSON text
//! `tools/list` shows (src/tools/schemas.txt, compacted and deflated by build.rs).
//!
//! Building the catalogue as `Value` trees (schemas parsed from text, descriptions and list
//! schemas built in code) and serialising it again was most of a cold start: 12 M of the 20 M
//! instructions to answer `initialize` and `tools/list`. Now `tools/list` copies the texts into
//! its reply, and a tool call parses only its own input schema.

use std::sync::OnceLock;

use crate::image::inflate;
use crate::tools::Tool;

/// src/tools/schemas.txt with the whitespace between JSON tokens removed, deflated by build.rs
/// (66 KB of JSON text, 6 KB compiled in): the input schemas, which a tool call reads, and the
/// descriptions and output schemas, which only `tools/list` does.
const INPUTS_ZLIB: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/schemas.input.zlib"));
const REST_ZLIB: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/schemas.txt.zlib"));

/// (tool, part, text) for each `@@ TOOL.PART` section.
type Section = (&'static str, &'static str, &'static str);

/// The three texts a tool has in `tools/list`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// `description`: a JSON string.
    Description,
    /// `inputSchema`.
    Input,
    /// `outputSchema`.
    Output,
}

impl Part {
    /// The section suffix in schemas.txt (`@@ TOOL.input`).
    fn suffix(self) -> &'static str {
        match self {
            Part::Description => "description",
            Part::Input => "input",
            Part::Output => "output",
        }
    }
}

/// The text of `tool`'s `part`; empty for a tool schemas.txt lacks, which the tests rule out.
/// Each stream is inflated and cut into sections once per process, when first read.
pub fn text(tool: &str, part: Part) -> &'static str {
    static INPUTS: (OnceLock<String>, OnceLock<Vec<Section>>) = (OnceLock::new(), OnceLock::new());
    static REST: (OnceLock<String>, OnceLock<Vec<Section>>) = (OnceLock::new(), OnceLock::new());
    let sections = match part {
        Part::Input => INPUTS.1.get_or_init(|| sections(&INPUTS.0, INPUTS_ZLIB)),
        Part::Description | Part::Output => REST.1.get_or_init(|| sections(&REST.0, REST_ZLIB)),
    };
    let found = sections.iter().find(|(name, suffix, _)| *name == tool && *suffix == part.suffix());
    found.map_or("", |(_, _, text)| text)
}

/// The sections of one deflated stream, inflated into `text`.
fn sections(text: &'static OnceLock<String>, zlib: &[u8]) -> Vec<Section> {
    let text = text.get_or_init(|| {
        inflate::zlib(zlib, 1 << 20).and_then(|t| String::from_utf8(t).ok()).unwrap_or_default()
    });
    let split = |s: &'static str| {
        let (key, text) = s.split_once('\n')?;
        let (name, part) = key.split_once('.')?;
        Some((name, part, text))
    };
    text.split("\n@@ ").skip(1).filter_map(split).collect()
}

/// The `tools/list` result, `{"tools":[…]}`, written from the stored texts without building a
/// tree. With `ui`, the tools the dashboard renders link it (MCP Apps `_meta.ui.resourceUri`).
pub fn list_result(tools: &[Tool], ui: bool) -> String {
    let mut out = String::with_capacity(80 * 1024);
    out.push_str("{\"tools\":[");
    for (i, t) in tools.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        entry(&mut out, t, ui);
    }
    out.push_str("]}");
    out
}

/// One tool's entry: name, title, description, schemas, annotations (and `_meta` with `ui`).
fn entry(out: &mut String, t: &Tool, ui: bool) {
    let a = &t.annotations;
    let title = string(t.title);
    let hints = [
        (",\"readOnlyHint\":", a.read_only),
        (",\"destructiveHint\":", a.destructive),
        (",\"idempotentHint\":", a.idempotent),
        (",\"openWorldHint\":", a.open_world),
    ];
    let parts = [
        "{\"name\":",
        &string(t.name),
        ",\"title\":",
        &title,
        ",\"description\":",
        &t.text(Part::Description),
        ",\"inputSchema\":",
        &t.text(Part::Input),
        ",\"outputSchema\":",
        &t.text(Part::Output),
        ",\"annotations\":{\"title\":",
        &title,
    ];
    parts.iter().for_each(|p| out.push_str(p));
    for (key, on) in hints {
        out.push_str(key);
        out.push_str(if on { "true" } else { "false" });
    }
    out.push('}');
    if ui && crate::tools::resources::DASHBOARD_TOOLS.contains(&t.name) {
        out.push_str(",\"_meta\":{\"ui\":{\"resourceUri\":");
        out.push_str(&string(crate::tools::resources::DASHBOARD_URI));
        out.push_str("}}");
    }
    out.push('}');
}

/// A string as JSON text.
fn string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::domain::named::Named;
    use crate::domain::privacy::PrivacyMode;
    use crate::domain::units::Units;
    use crate::tools;
    use crate::tools::data::{DEFAULT_LIMIT, MAX_LIMIT};

    fn parsed(t: &Tool, part: Part) -> Value {
        serde_json::from_str(&t.text(part)).unwrap_or_else(|e| panic!("{} {part:?}: {e}", t.name))
    }

    /// What `tools/list` writes is what serde_json would write for the same tree: compact, keys
    /// in file order, strings escaped alike. So the reply is the same bytes as when it was built
    /// as a tree, and every section is JSON.
    #[test]
    fn every_section_is_compact_json_as_serde_json_writes_it() {
        for t in tools::all() {
            for part in [Part::Description, Part::Input, Part::Output] {
                let text = t.text(part);
                assert_eq!(serde_json::to_string(&parsed(t, part)).unwrap(), text, "{} {part:?}", t.name);
            }
            assert!(parsed(t, Part::Description).as_str().is_some_and(|d| d.len() > 40), "{}", t.name);
        }
        // No section without a tool: the file holds the catalogue and nothing else.
        let count =
            |zlib| String::from_utf8(inflate::zlib(zlib, 1 << 20).unwrap()).unwrap().matches("\n@@ ").count();
        assert_eq!(count(INPUTS_ZLIB), tools::all().len());
        assert_eq!(count(REST_ZLIB), 2 * tools::all().len());
    }

    /// The contract every tool's schemas keep (CONTRACT §4): arguments closed, `response_format`
    /// everywhere, `account` on the tools that read Withings data, `demo` in every output.
    #[test]
    fn every_schema_keeps_the_catalogue_rules() {
        let account_arg = json!({"type": "string", "pattern": "^[a-z0-9][a-z0-9_-]{0,31}$",
            "description": "whose data: an account name from withings_accounts (default: the server's account)"});
        for t in tools::all() {
            let (input, output) = (parsed(t, Part::Input), parsed(t, Part::Output));
            assert_eq!(input["type"], "object", "{}", t.name);
            assert_eq!(input["additionalProperties"], false, "{}", t.name);
            assert_eq!(input["properties"]["response_format"]["default"], "markdown", "{}", t.name);
            assert_eq!(output["type"], "object", "{}", t.name);
            let reads = tools::reads_withings(t);
            assert!(!reads || output["properties"]["demo"].is_object(), "{}", t.name);
            assert_eq!(input["properties"]["account"] == account_arg, reads, "{}", t.name);
            let required = output["required"].as_array().unwrap();
            assert!(!reads || required.contains(&json!("account")), "{}", t.name);
            assert_eq!(output["properties"]["account"].is_object(), required.contains(&json!("account")));
            for name in ["privacy_mode", "units"] {
                let Some(e) = input["properties"][name]["enum"].as_array() else { continue };
                let want = match name {
                    "privacy_mode" => json!(PrivacyMode::names()),
                    _ => json!(Units::names()),
                };
                assert_eq!(&json!(e), &want, "{} {name}", t.name);
            }
            if let Some(limit) = input["properties"].get("limit") {
                assert_eq!(limit["maximum"], json!(MAX_LIMIT), "{}", t.name);
                assert_eq!(limit["default"], json!(DEFAULT_LIMIT), "{}", t.name);
            }
        }
    }

    #[test]
    fn list_result_is_every_tool_in_order_with_the_dashboard_link_only_with_ui() {
        for ui in [false, true] {
            let v: Value = serde_json::from_str(&list_result(tools::all(), ui)).unwrap();
            let list = v["tools"].as_array().unwrap();
            let names: Vec<&str> = list.iter().map(|t| t["name"].as_str().unwrap()).collect();
            let want: Vec<&str> = tools::all().iter().map(|t| t.name).collect();
            assert_eq!(names, want);
            for t in list {
                let linked = t["_meta"]["ui"]["resourceUri"] == tools::resources::DASHBOARD_URI;
                let name = t["name"].as_str().unwrap();
                assert_eq!(linked, ui && tools::resources::DASHBOARD_TOOLS.contains(&name), "{name}");
                assert_eq!(t["annotations"]["title"], t["title"]);
            }
        }
        assert_eq!(text("withings_nonexistent", Part::Input), "");
        assert_eq!(text("withings_list", Part::Input), "", "a prefix of a name is not the name");
    }
}
