//! A minimal YAML editor for one job: putting a `withings` (or `withings-NAME`) entry under Hermes' top-level
//! `mcp_servers:` mapping while every other byte of the file stays as it was.
//!
//! It is not a YAML parser. It reads the file as lines, finds the column-0 `mcp_servers:` key and
//! the indentation of its children, and splices text in. Anything it cannot place with certainty
//! (tabs in indentation, a scalar or sequence where a mapping belongs, flow style with content,
//! anchors, several documents) is refused with a message, so the caller leaves the file untouched.
//! The Node project appended text blindly and could land keys in the wrong mapping; refusing is
//! the safer failure.

use crate::commands::clients::Server;
use std::fmt::Write as _;

/// The Hermes config with the server's entry merged in. `Err` says what is wrong with the file.
pub fn merge(old: &str, server: &Server) -> Result<String, String> {
    let (bom, body) = split_bom(old);
    let lines = split_lines(body);
    let le = line_ending(&lines);
    let layout = analyse(&lines, server.name)?;
    let mut out = String::with_capacity(old.len() + 256);
    out.push_str(bom);
    let Some(section) = layout.section else {
        // No `mcp_servers:` yet: append a whole block at the end.
        push_lines(&mut out, &lines);
        if lines.last().is_some_and(|l| l.end.is_empty()) {
            out.push_str(le);
        }
        out.push_str("mcp_servers:");
        out.push_str(le);
        push_rendered(&mut out, &render(server, 2, 2), le);
        return Ok(out);
    };
    let key_line = lines.get(section.key).map(|l| l.text).unwrap_or_default();
    match (section.value, section.children) {
        (Value::Empty | Value::Null | Value::EmptyFlow, None) => {
            // Turn `mcp_servers:` / `mcp_servers: {}` / `mcp_servers: ~` into a block with one child.
            push_lines(&mut out, lines.get(..section.key).unwrap_or_default());
            // Only a written value (`{}`, `~`) is removed; a bare `mcp_servers:` line stays as is.
            match section.value {
                Value::Empty => out.push_str(key_line),
                Value::Null | Value::EmptyFlow => out.push_str(&drop_value(key_line)),
            }
            out.push_str(le);
            push_rendered(&mut out, &render(server, 2, 2), le);
            push_lines(&mut out, lines.get(section.key + 1..).unwrap_or_default());
        }
        (Value::Empty, Some(children)) => {
            let entry = render(server, children.indent, children.indent);
            let (start, end) = match children.withings {
                Some((first, last)) => (first, last + 1),
                None => (children.last_content + 1, children.last_content + 1),
            };
            push_lines(&mut out, lines.get(..start).unwrap_or_default());
            if start > 0 && lines.get(start - 1).is_some_and(|l| l.end.is_empty()) {
                out.push_str(le);
            }
            push_rendered(&mut out, &entry, le);
            push_lines(&mut out, lines.get(end..).unwrap_or_default());
        }
        (_, Some(_)) => {
            return Err("`mcp_servers` has a value on its own line and indented lines below it".into());
        }
    }
    Ok(out)
}

/// The command of the entry `name`, if the file has one (`Ok(None)` when it has none).
pub fn withings_command(text: &str, name: &str) -> Result<Option<String>, String> {
    let (_, body) = split_bom(text);
    let lines = split_lines(body);
    let layout = analyse(&lines, name)?;
    let Some((first, last)) = layout.section.and_then(|s| s.children).and_then(|c| c.withings) else {
        return Ok(None);
    };
    let block = lines.get(first..=last).unwrap_or_default();
    let Some((_, inline)) = block.first().and_then(|l| split_key(l.content())) else {
        return Ok(None);
    };
    if !strip_comment(inline).trim().is_empty() {
        return Err(format!("the `{name}` entry is not a block mapping; cannot read its command"));
    }
    let fields: Vec<&Line> = block.iter().skip(1).filter(|l| l.is_content()).collect();
    let Some(field_indent) = fields.first().map(|l| l.indent()) else {
        return Err(format!("the `{name}` entry is empty"));
    };
    for line in fields.iter().filter(|l| l.indent() == field_indent) {
        if let Some((key, value)) = split_key(line.content())
            && key == "command"
        {
            return match parse_scalar(value) {
                Some(command) => Ok(Some(command)),
                None => Err(format!("the `{name}` entry's `command` is not a plain or quoted string")),
            };
        }
    }
    Err(format!("the `{name}` entry has no `command`"))
}

/// The entry as a stand-alone YAML block, for showing to the user.
pub fn snippet(server: &Server) -> String {
    let mut out = String::from("mcp_servers:\n");
    push_rendered(&mut out, &render(server, 2, 2), "\n");
    out
}

/// One line of the file: its text without the terminator, and the terminator (`""` on a last line
/// without one).
#[derive(Debug, Clone, Copy)]
struct Line<'a> {
    text: &'a str,
    end: &'a str,
}

impl Line<'_> {
    /// Leading spaces (YAML indentation is spaces only).
    fn indent(&self) -> usize {
        self.text.len() - self.text.trim_start_matches(' ').len()
    }

    /// The text after spaces and tabs.
    fn content(&self) -> &str {
        self.text.trim_start_matches([' ', '\t'])
    }

    fn is_blank(&self) -> bool {
        self.content().is_empty()
    }

    fn is_comment(&self) -> bool {
        self.content().starts_with('#')
    }

    /// Neither blank nor a comment.
    fn is_content(&self) -> bool {
        !self.is_blank() && !self.is_comment()
    }

    /// A content line whose indentation contains a tab, which YAML forbids.
    fn has_tab_indent(&self) -> bool {
        self.is_content()
            && self.text.get(..self.text.len() - self.content().len()).is_some_and(|w| w.contains('\t'))
    }
}

/// What follows `mcp_servers:` on its own line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Value {
    /// Nothing (a block mapping follows, or null).
    Empty,
    /// `~` or `null`.
    Null,
    /// `{}`.
    EmptyFlow,
}

/// Where things are in the file.
struct Layout {
    section: Option<Section>,
}

/// The `mcp_servers:` key and its block.
struct Section {
    /// Index of the key line.
    key: usize,
    value: Value,
    /// `None` when the block has no child lines at all.
    children: Option<Children>,
}

struct Children {
    /// Indentation of the server names.
    indent: usize,
    /// Index of the last line that belongs to the last child (comments at or left of the child
    /// indentation after it are left to whatever follows).
    last_content: usize,
    /// First and last line of the entry's child (`withings`, or `withings-NAME`).
    withings: Option<(usize, usize)>,
}

fn split_bom(text: &str) -> (&str, &str) {
    match text.strip_prefix('\u{feff}') {
        Some(rest) => ("\u{feff}", rest),
        None => ("", text),
    }
}

fn split_lines(text: &str) -> Vec<Line<'_>> {
    let mut lines = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let (line, tail) = match rest.find('\n') {
            Some(i) => (rest.get(..=i).unwrap_or(rest), rest.get(i + 1..).unwrap_or_default()),
            None => (rest, ""),
        };
        let (text, end) = match line.strip_suffix("\r\n") {
            Some(t) => (t, "\r\n"),
            None => match line.strip_suffix('\n') {
                Some(t) => (t, "\n"),
                None => (line, ""),
            },
        };
        lines.push(Line { text, end });
        rest = tail;
    }
    lines
}

/// The file's line ending, taken from its first terminated line (`\n` for a new file).
fn line_ending(lines: &[Line]) -> &'static str {
    match lines.iter().map(|l| l.end).find(|e| !e.is_empty()) {
        Some("\r\n") => "\r\n",
        _ => "\n",
    }
}

fn push_lines(out: &mut String, lines: &[Line]) {
    for line in lines {
        out.push_str(line.text);
        out.push_str(line.end);
    }
}

fn push_rendered(out: &mut String, rendered: &[String], le: &str) {
    for line in rendered {
        out.push_str(line);
        out.push_str(le);
    }
}

/// Finds the top-level `mcp_servers:` key, its value and its children, or says why it cannot.
fn analyse(lines: &[Line], entry: &str) -> Result<Layout, String> {
    let mut key = None;
    let mut seen_content = false;
    let mut previous_content: Option<&Line> = None;
    for (i, line) in lines.iter().enumerate() {
        let n = i + 1;
        if line.text.starts_with('\t') && line.is_content() {
            return Err(format!("line {n} is indented with a tab, which YAML forbids"));
        }
        if !line.is_content() || line.indent() > 0 {
            if line.is_content() {
                seen_content = true;
                previous_content = Some(line);
            }
            continue;
        }
        let text = line.text;
        if text.starts_with('%') && !seen_content {
            continue;
        }
        if text == "---" || text.starts_with("--- ") || text == "..." || text.starts_with("... ") {
            if seen_content {
                return Err(format!(
                    "line {n} starts another YAML document; only single-document files are supported"
                ));
            }
            continue;
        }
        if text == "-" || text.starts_with("- ") || text.starts_with('[') || text.starts_with('{') {
            let under_key = previous_content.is_some_and(|p| {
                p.indent() == 0
                    && split_key(p.text)
                        .is_some_and(|(k, v)| k == "mcp_servers" && strip_comment(v).trim().is_empty())
            });
            return Err(match under_key {
                true => "`mcp_servers` is a sequence, not a mapping".to_string(),
                false => format!("line {n}: the top level of the file is not a mapping"),
            });
        }
        seen_content = true;
        previous_content = Some(line);
        if let Some((k, _)) = split_key(text)
            && k == "mcp_servers"
        {
            if key.is_some() {
                return Err(format!("line {n}: `mcp_servers` appears twice"));
            }
            key = Some(i);
        }
    }
    let Some(key) = key else {
        return Ok(Layout { section: None });
    };
    let value_text = lines.get(key).and_then(|l| split_key(l.text)).map(|(_, v)| v).unwrap_or_default();
    let value = classify_value(value_text)?;
    let section_end =
        (key + 1..lines.len()).find(|&i| lines.get(i).is_some_and(|l| l.is_content() && l.indent() == 0));
    let section_end = section_end.unwrap_or(lines.len());
    let children = analyse_children(lines, key + 1, section_end, entry)?;
    Ok(Layout { section: Some(Section { key, value, children }) })
}

/// Reads the block under `mcp_servers:` (lines `start..end`).
fn analyse_children(
    lines: &[Line],
    start: usize,
    end: usize,
    entry: &str,
) -> Result<Option<Children>, String> {
    let block = lines.get(start..end).unwrap_or_default();
    if let Some((i, _)) = block.iter().enumerate().find(|(_, l)| l.has_tab_indent()) {
        return Err(format!("line {} is indented with a tab, which YAML forbids", start + i + 1));
    }
    let Some(first) = block.iter().find(|l| l.is_content()) else {
        return Ok(None);
    };
    let indent = first.indent();
    let head = first.content();
    if head == "-" || head.starts_with("- ") {
        return Err("`mcp_servers` is a sequence, not a mapping".into());
    }
    if head.starts_with('{') || head.starts_with('[') {
        return Err("`mcp_servers` is written in flow style; rewrite it as a block mapping".into());
    }
    let mut withings: Option<(usize, usize)> = None;
    let mut current_is_withings = false;
    let mut last_content = start;
    for (offset, line) in block.iter().enumerate() {
        let i = start + offset;
        let n = i + 1;
        if line.is_blank() {
            continue;
        }
        let indent_here = line.indent();
        if line.is_comment() && indent_here <= indent {
            // A comment at or left of the server names sits between entries: it is not part of
            // the entry above it, so an edit never swallows it.
            continue;
        }
        if indent_here < indent {
            return Err(format!("line {n} is indented less than the first entry under `mcp_servers`"));
        }
        if indent_here == indent {
            let Some((name, _)) = split_key(line.content()) else {
                return Err(format!("line {n}: expected `name:` under `mcp_servers`"));
            };
            current_is_withings = name == entry;
            if current_is_withings {
                if withings.is_some() {
                    return Err(format!("line {n}: `{entry}` appears twice under `mcp_servers`"));
                }
                withings = Some((i, i));
            }
        } else if current_is_withings && let Some((first_line, _)) = withings {
            withings = Some((first_line, i));
        }
        last_content = i;
    }
    Ok(Some(Children { indent, last_content, withings }))
}

/// Classifies the text after `mcp_servers:`; anything but nothing, null or `{}` is refused.
fn classify_value(raw: &str) -> Result<Value, String> {
    let value = strip_comment(raw).trim();
    let what = match value {
        "" => return Ok(Value::Empty),
        "~" | "null" | "Null" | "NULL" => return Ok(Value::Null),
        "{}" => return Ok(Value::EmptyFlow),
        v if v.starts_with('[') => "a sequence, not a mapping",
        v if v.starts_with('{') => "a flow mapping; rewrite it as a block mapping",
        v if v.starts_with('&') || v.starts_with('!') || v.starts_with('*') => {
            "an anchor, alias or tag, which this editor does not rewrite"
        }
        _ => "a scalar, not a mapping",
    };
    Err(format!("`mcp_servers` is {what}"))
}

/// `key: value  # c` → `key:  # c` (the value removed, the comment kept).
fn drop_value(line: &str) -> String {
    let Some((_, value)) = split_key(line) else {
        return line.to_string();
    };
    let key_part = line.get(..line.len() - value.len()).unwrap_or(line);
    let comment = value.get(strip_comment(value).len()..).unwrap_or_default().trim();
    match comment.is_empty() {
        true => key_part.to_string(),
        false => format!("{key_part} {comment}"),
    }
}

/// Splits `key: rest` (plain, single- or double-quoted key) into the key and what follows the
/// colon. `None` when the line is not a mapping key.
fn split_key(content: &str) -> Option<(String, &str)> {
    let (key, after) = match content.chars().next()? {
        '"' => {
            let close = closing_double_quote(content)?;
            let raw = content.get(..=close)?;
            (serde_json::from_str::<String>(raw).ok()?, content.get(close + 1..)?)
        }
        '\'' => {
            let close = closing_single_quote(content)?;
            (content.get(1..close)?.replace("''", "'"), content.get(close + 1..)?)
        }
        '-' | '?' | ':' | ',' | '[' | ']' | '{' | '}' | '#' | '&' | '*' | '!' | '|' | '>' | '%' | '@'
        | '`' => {
            return None;
        }
        _ => {
            let bytes = content.as_bytes();
            let colon = (0..bytes.len()).find(|&i| {
                bytes.get(i) == Some(&b':') && matches!(bytes.get(i + 1), None | Some(b' ') | Some(b'\t'))
            })?;
            let key = content.get(..colon)?;
            if key.contains(" #") || key.contains("\t#") {
                return None;
            }
            return Some((key.trim_end().to_string(), content.get(colon + 1..)?));
        }
    };
    let after = after.trim_start_matches([' ', '\t']);
    let rest = after.strip_prefix(':')?;
    match rest.chars().next() {
        None | Some(' ') | Some('\t') => Some((key, rest)),
        Some(_) => None,
    }
}

/// Index of the `"` that closes a double-quoted scalar starting at index 0.
fn closing_double_quote(s: &str) -> Option<usize> {
    let mut escaped = false;
    for (i, c) in s.char_indices().skip(1) {
        match (escaped, c) {
            (true, _) => escaped = false,
            (false, '\\') => escaped = true,
            (false, '"') => return Some(i),
            _ => {}
        }
    }
    None
}

/// Index of the `'` that closes a single-quoted scalar starting at index 0 (`''` is an escape).
fn closing_single_quote(s: &str) -> Option<usize> {
    let bytes = s.as_bytes();
    let mut i = 1;
    while i < bytes.len() {
        if bytes.get(i) == Some(&b'\'') {
            if bytes.get(i + 1) == Some(&b'\'') {
                i += 2;
                continue;
            }
            return Some(i);
        }
        i += 1;
    }
    None
}

/// The text before a ` #` comment (quotes are respected only at the start of the value, which is
/// all this editor needs).
fn strip_comment(value: &str) -> &str {
    let trimmed = value.trim_start_matches([' ', '\t']);
    let lead = value.len() - trimmed.len();
    let skip = match trimmed.chars().next() {
        Some('"') => closing_double_quote(trimmed).map_or(trimmed.len(), |i| i + 1),
        Some('\'') => closing_single_quote(trimmed).map_or(trimmed.len(), |i| i + 1),
        _ => 0,
    };
    let tail = trimmed.get(skip..).unwrap_or_default();
    let cut = match tail.starts_with('#') && skip == 0 {
        true => Some(0),
        false => tail.find(" #").or_else(|| tail.find("\t#")),
    };
    match cut {
        Some(c) => value.get(..lead + skip + c).unwrap_or(value),
        None => value,
    }
}

/// A scalar value: double-quoted, single-quoted or plain.
fn parse_scalar(raw: &str) -> Option<String> {
    let value = strip_comment(raw).trim();
    match value.chars().next()? {
        '"' => {
            let close = closing_double_quote(value)?;
            let quoted = value.get(..=close)?;
            // YAML double-quoted escapes are a superset of JSON's; the ones this tool writes are
            // JSON-compatible, and anything exotic is shown as written.
            Some(serde_json::from_str::<String>(quoted).unwrap_or_else(|_| quoted.to_string()))
        }
        '\'' => {
            let close = closing_single_quote(value)?;
            Some(value.get(1..close)?.replace("''", "'"))
        }
        '[' | '{' | '|' | '>' | '&' | '*' | '!' => None,
        _ => Some(value.to_string()),
    }
}

/// The server's entry (`withings:`) as lines at `indent`, nested by `step`.
fn render(server: &Server, indent: usize, step: usize) -> Vec<String> {
    let pad = " ".repeat(indent);
    let field = " ".repeat(indent + step);
    let item = " ".repeat(indent + 2 * step);
    let args: Vec<String> = server.args.iter().map(|a| quote(a)).collect();
    let mut lines = vec![
        format!("{pad}{}:", server.name),
        format!("{field}command: {}", quote(server.command)),
        format!("{field}args: [{}]", args.join(", ")),
    ];
    if !server.env.is_empty() {
        lines.push(format!("{field}env:"));
        for (k, v) in server.env {
            lines.push(format!("{item}{}: {}", env_key(k), quote(v)));
        }
    }
    lines
}

/// A YAML double-quoted scalar: `"` and `\` escaped, control characters as escapes.
fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 || (0x7f..=0x9f).contains(&(c as u32)) || c == '\u{feff}' => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Environment names are written plain when they look like ordinary variables and could not be
/// read as a boolean or null; anything else is quoted.
fn env_key(key: &str) -> String {
    let ordinary = key.chars().next().is_some_and(|c| c.is_ascii_uppercase() || c == '_')
        && key.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
    let reserved = ["NULL", "TRUE", "FALSE", "Y", "N", "YES", "NO", "ON", "OFF"].contains(&key);
    match ordinary && !reserved {
        true => key.to_string(),
        false => quote(key),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server<'a>(args: &'a [String], env: &'a [(String, String)]) -> Server<'a> {
        Server { name: "withings", command: "/opt/bin/withings-mcp", args, env }
    }

    fn tz() -> Vec<(String, String)> {
        vec![("WITHINGS_TZ".to_string(), "Europe/Paris".to_string())]
    }

    const ENTRY2: &str = "  withings:\n    command: \"/opt/bin/withings-mcp\"\n    args: []\n    env:\n      WITHINGS_TZ: \"Europe/Paris\"\n";

    #[test]
    fn merge_table() {
        let env = tz();
        let s = server(&[], &env);
        let cases: Vec<(&str, String, String)> = vec![
            ("empty file", String::new(), format!("mcp_servers:\n{ENTRY2}")),
            ("no key, trailing newline", "model: x\n".into(), format!("model: x\nmcp_servers:\n{ENTRY2}")),
            ("no key, no trailing newline", "model: x".into(), format!("model: x\nmcp_servers:\n{ENTRY2}")),
            (
                "flow empty mapping then another key",
                "mcp_servers: {}\nmodel: x\n".into(),
                format!("mcp_servers:\n{ENTRY2}model: x\n"),
            ),
            (
                "flow empty mapping with a comment",
                "mcp_servers: {}   # none yet\n".into(),
                format!("mcp_servers: # none yet\n{ENTRY2}"),
            ),
            ("null value", "mcp_servers: ~\n".into(), format!("mcp_servers:\n{ENTRY2}")),
            (
                "empty key followed by a comment and another key",
                "mcp_servers:\n# later\nmodel: x\n".into(),
                format!("mcp_servers:\n{ENTRY2}# later\nmodel: x\n"),
            ),
            (
                "one sibling, then blank line, comment and another top-level key",
                "mcp_servers:\n  github:\n    command: gh\n\n# approvals\napprovals:\n  mcp_reload_confirm: false\n"
                    .into(),
                format!(
                    "mcp_servers:\n  github:\n    command: gh\n{ENTRY2}\n# approvals\napprovals:\n  mcp_reload_confirm: false\n"
                ),
            ),
            (
                "four-space siblings",
                "mcp_servers:\n    a:\n        command: a\n".into(),
                "mcp_servers:\n    a:\n        command: a\n    withings:\n        command: \"/opt/bin/withings-mcp\"\n        args: []\n        env:\n            WITHINGS_TZ: \"Europe/Paris\"\n".into(),
            ),
            (
                "old npx entry replaced in the middle, comments kept",
                "x: 1\nmcp_servers:\n  a:\n    command: a\n  # the withings one\n  withings:\n    command: npx\n    args: [-y, withings-mcp-unofficial@0.5.3]\n    sampling:\n      enabled: false\n\n  # next\n  b:\n    command: b\ny: 2\n".into(),
                format!("x: 1\nmcp_servers:\n  a:\n    command: a\n  # the withings one\n{ENTRY2}\n  # next\n  b:\n    command: b\ny: 2\n"),
            ),
            (
                "withings last in a file without trailing newline",
                "mcp_servers:\n  withings:\n    command: old".into(),
                format!("mcp_servers:\n{ENTRY2}"),
            ),
            (
                "column-0 comments and blank lines inside the block",
                "mcp_servers:\n\n# first\n  a:\n    command: a\n# between\n\n  b:\n    command: b\n".into(),
                format!("mcp_servers:\n\n# first\n  a:\n    command: a\n# between\n\n  b:\n    command: b\n{ENTRY2}"),
            ),
            (
                "block scalar with a hash line stays whole",
                "mcp_servers:\n  a:\n    script: |\n      echo\n      # not a comment\nz: 1\n".into(),
                format!("mcp_servers:\n  a:\n    script: |\n      echo\n      # not a comment\n{ENTRY2}z: 1\n"),
            ),
            (
                "document marker, quoted key, trailing comment on key",
                "---\n\"mcp_servers\": # servers\n  a: {command: a}\n".into(),
                format!("---\n\"mcp_servers\": # servers\n  a: {{command: a}}\n{ENTRY2}"),
            ),
            (
                "bare key with a comment is kept byte for byte",
                "mcp_servers:    # mine\n  a:\n    command: a\n".into(),
                format!("mcp_servers:    # mine\n  a:\n    command: a\n{ENTRY2}"),
            ),
            (
                "byte order mark kept",
                "\u{feff}a: 1\n".into(),
                format!("\u{feff}a: 1\nmcp_servers:\n{ENTRY2}"),
            ),
            (
                "tab inside a value is fine",
                "a: \"x\ty\"\nmcp_servers: {}\n".into(),
                format!("a: \"x\ty\"\nmcp_servers:\n{ENTRY2}"),
            ),
            (
                "tab before a comment is fine",
                "mcp_servers:\n\t# note\n  a:\n    command: a\n".into(),
                format!("mcp_servers:\n\t# note\n  a:\n    command: a\n{ENTRY2}"),
            ),
        ];
        for (name, input, expected) in cases {
            let got = merge(&input, &s).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(got, expected, "{name}");
            let again = merge(&got, &s).unwrap_or_else(|e| panic!("{name} (again): {e}"));
            assert_eq!(again, got, "{name}: second merge must change nothing");
            assert_eq!(
                withings_command(&got, "withings"),
                Ok(Some("/opt/bin/withings-mcp".to_string())),
                "{name}"
            );
        }
    }

    #[test]
    fn crlf_is_preserved() {
        let env = tz();
        let s = server(&[], &env);
        let input = "model: x\r\nmcp_servers:\r\n  a:\r\n    command: a\r\nz: 1\r\n";
        let got = merge(input, &s).unwrap_or_default();
        let expected = format!(
            "model: x\r\nmcp_servers:\r\n  a:\r\n    command: a\r\n{}z: 1\r\n",
            ENTRY2.replace('\n', "\r\n")
        );
        assert_eq!(got, expected);
        assert_eq!(merge(&got, &s).unwrap_or_default(), got);
        assert!(!got.replace("\r\n", "").contains('\n'), "no bare LF in a CRLF file");
    }

    #[test]
    fn entry_shapes_and_escaping() {
        let args = vec!["--demo".to_string(), "a \"b\" \\c".to_string()];
        let none: Vec<(String, String)> = vec![];
        let env = vec![("NULL".to_string(), "x\ny".to_string()), ("lower".to_string(), "1".to_string())];
        let cases: Vec<(Server, &str)> = vec![
            (
                Server { name: "withings", command: "/opt/bin/withings-mcp", args: &[], env: &none },
                "mcp_servers:\n  withings:\n    command: \"/opt/bin/withings-mcp\"\n    args: []\n",
            ),
            (
                Server { name: "withings", command: "C:\\dir \"x\"/w", args: &args, env: &env },
                "mcp_servers:\n  withings:\n    command: \"C:\\\\dir \\\"x\\\"/w\"\n    args: [\"--demo\", \"a \\\"b\\\" \\\\c\"]\n    env:\n      \"NULL\": \"x\\ny\"\n      \"lower\": \"1\"\n",
            ),
        ];
        for (s, expected) in cases {
            let got = snippet(&s);
            assert_eq!(got, expected);
            // What we write, we read back exactly.
            assert_eq!(withings_command(&got, "withings"), Ok(Some(s.command.to_string())));
        }
    }

    #[test]
    fn refused_shapes() {
        let env = tz();
        let s = server(&[], &env);
        let cases = [
            ("tab-indented child", "mcp_servers:\n\twithings:\n", "tab"),
            ("tab at column 0 elsewhere", "a:\n\tb: 1\n", "tab"),
            ("tab after spaces in the block", "mcp_servers:\n  a:\n  \tcommand: a\n", "tab"),
            ("scalar", "mcp_servers: none\n", "a scalar"),
            ("quoted scalar", "mcp_servers: \"x\"\n", "a scalar"),
            ("flow sequence", "mcp_servers: [a, b]\n", "a sequence"),
            ("block sequence indented", "mcp_servers:\n  - a\n", "a sequence"),
            ("block sequence at column 0", "mcp_servers:\n- a\n", "a sequence"),
            ("non-empty flow mapping", "mcp_servers: {a: {command: a}}\n", "flow mapping"),
            ("flow mapping on the next line", "mcp_servers:\n  {a: 1}\n", "flow style"),
            ("anchor", "mcp_servers: &s\n  a:\n    command: a\n", "anchor"),
            ("block scalar", "mcp_servers: |\n  text\n", "a scalar"),
            ("key twice", "mcp_servers:\n  a: {}\nmcp_servers: {}\n", "twice"),
            ("withings twice", "mcp_servers:\n  withings: {}\n  withings: {}\n", "twice"),
            ("top-level sequence", "- a\n- b\n", "not a mapping"),
            ("several documents", "a: 1\n---\nb: 2\n", "document"),
            ("less-indented entry", "mcp_servers:\n    a:\n      x: 1\n  b:\n", "indented less"),
            ("not a key under mcp_servers", "mcp_servers:\n  just text\n", "expected `name:`"),
            ("null with children", "mcp_servers: ~\n  a: 1\n", "indented lines"),
        ];
        for (name, input, needle) in cases {
            match merge(input, &s) {
                Ok(out) => panic!("{name}: expected an error, got {out:?}"),
                Err(e) => assert!(e.contains(needle), "{name}: {e:?} should mention {needle:?}"),
            }
        }
    }

    #[test]
    fn withings_command_table() {
        let cases: [(&str, Result<Option<&str>, &str>); 8] = [
            ("", Ok(None)),
            ("a: 1\n", Ok(None)),
            ("mcp_servers:\n  a:\n    command: a\n", Ok(None)),
            ("mcp_servers:\n  withings:\n    command: /usr/bin/w # here\n", Ok(Some("/usr/bin/w"))),
            ("mcp_servers:\n  withings:\n    args: []\n    command: '/it''s/w'\n", Ok(Some("/it's/w"))),
            ("mcp_servers:\n  withings:\n    env:\n      command: x\n", Err("no `command`")),
            ("mcp_servers:\n  withings: {command: x}\n", Err("not a block mapping")),
            ("mcp_servers: 3\n", Err("a scalar")),
        ];
        for (input, expected) in cases {
            let got = withings_command(input, "withings");
            match (got, expected) {
                (Ok(g), Ok(e)) => assert_eq!(g.as_deref(), e, "{input:?}"),
                (Err(g), Err(e)) => assert!(g.contains(e), "{input:?}: {g:?}"),
                (g, e) => panic!("{input:?}: got {g:?}, expected {e:?}"),
            }
        }
    }

    #[test]
    fn split_key_table() {
        let cases: [(&str, Option<(&str, &str)>); 10] = [
            ("a: 1", Some(("a", " 1"))),
            ("a:", Some(("a", ""))),
            ("a:b: c", Some(("a:b", " c"))),
            ("mcp_servers :", Some(("mcp_servers", ""))),
            ("\"a\\\"b\": x", Some(("a\"b", " x"))),
            ("'it''s': x", Some(("it's", " x"))),
            ("http://x", None),
            ("- a: 1", None),
            ("# c: 1", None),
            ("plain text", None),
        ];
        for (input, expected) in cases {
            let got = split_key(input);
            assert_eq!(got.as_ref().map(|(k, v)| (k.as_str(), *v)), expected, "{input:?}");
        }
    }
}
