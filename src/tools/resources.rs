//! MCP resources (CONTRACT §5). Each resource is read by running a tool with `response_format`
//! `json`, so a resource never disagrees with the tool it mirrors.

use serde_json::Value;

use crate::image::inflate;
use crate::value::json;

/// One static resource.
#[derive(Debug, Clone, Copy)]
pub struct Resource {
    pub uri: &'static str,
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    /// The tool whose structured output this resource returns.
    pub tool: &'static str,
    /// Extra arguments for that tool.
    pub args: fn() -> Value,
    /// True when the content is the user's own data (cached privately, if at all).
    pub personal: bool,
}

/// Every resource, in the order `resources/list` shows them.
pub fn all() -> Vec<Resource> {
    vec![
        Resource {
            uri: "withings://inventory",
            name: "inventory",
            title: "Data inventory",
            description: "Data domains, scopes, privacy modes and the first tools to call.",
            tool: "withings_data_inventory",
            args: || json!({}),
            personal: false,
        },
        Resource {
            uri: "withings://capabilities",
            name: "capabilities",
            title: "Capabilities",
            description: "What this server can and cannot read from Withings.",
            tool: "withings_capabilities",
            args: || json!({}),
            personal: false,
        },
        Resource {
            uri: "withings://agent-manifest",
            name: "agent-manifest",
            title: "Agent manifest",
            description: "Install and usage guidance for agents.",
            tool: "withings_agent_manifest",
            args: || json!({}),
            personal: false,
        },
        Resource {
            uri: "withings://latest/activity",
            name: "latest-activity",
            title: "Latest activity",
            description: "Daily activity of the last 7 days.",
            tool: "withings_list_activity",
            args: || json!({"limit": 7}),
            personal: true,
        },
        Resource {
            uri: "withings://latest/sleep",
            name: "latest-sleep",
            title: "Latest sleep",
            description: "Sleep summaries of the last 7 nights.",
            tool: "withings_list_sleep_summary",
            args: || json!({"limit": 7}),
            personal: true,
        },
        Resource {
            uri: "withings://summary/daily",
            name: "summary-daily",
            title: "Daily summary",
            description: "Today's body, sleep, activity and heart brief.",
            tool: "withings_daily_summary",
            args: || json!({}),
            personal: true,
        },
        Resource {
            uri: "withings://summary/weekly",
            name: "summary-weekly",
            title: "Weekly summary",
            description: "The last 7 days against the 7 before, with a plan.",
            tool: "withings_weekly_summary",
            args: || json!({}),
            personal: true,
        },
    ]
}

/// Where a person's resources live: `withings://accounts/{account}/…` mirrors every personal
/// resource (`withings://summary/daily` → `withings://accounts/{account}/summary/daily`).
const ACCOUNT_PREFIX: &str = "withings://accounts/";

/// The `resources/templates/list` entries: one per personal resource, per account.
pub fn templates() -> Vec<Value> {
    all()
        .iter()
        .filter(|r| r.personal)
        .map(|r| {
            let rest = r.uri.trim_start_matches("withings://");
            json!({
                "uriTemplate": format!("{ACCOUNT_PREFIX}{{account}}/{rest}"),
                "name": format!("account-{}", r.name),
                "title": format!("{} of an account", r.title),
                "description": format!("{} Of the person `account` names (withings_accounts lists them).", r.description),
                "mimeType": "application/json",
            })
        })
        .collect()
}

/// The resource a URI names, and the account a per-account URI names (unchecked: the tool's
/// `account` argument checks it).
pub fn find(uri: &str) -> Option<(Resource, Option<&str>)> {
    let (plain, account) = match uri.strip_prefix(ACCOUNT_PREFIX).and_then(|r| r.split_once('/')) {
        Some((account, rest)) => (format!("withings://{rest}"), Some(account)),
        None => (uri.to_string(), None),
    };
    let res = all().into_iter().find(|r| r.uri == plain && (r.personal || account.is_none()))?;
    Some((res, account))
}

/// True for the template URI of an account's resource, whose `account` completion offers.
pub fn is_account_template(uri: &str) -> bool {
    uri.starts_with(ACCOUNT_PREFIX) && uri.contains("{account}")
}

/// The MCP Apps extension (SEP-1865): a host that declares it renders a tool's result in a view.
pub const UI_EXTENSION: &str = "io.modelcontextprotocol/ui";
/// The one view: a self-contained page that renders charts, trends and briefs.
pub const DASHBOARD_URI: &str = "ui://withings/dashboard";
/// The mimeType of an MCP Apps HTML view.
pub const APP_MIME: &str = "text/html;profile=mcp-app";
/// Tools whose `structuredContent` the dashboard knows how to render.
pub const DASHBOARD_TOOLS: &[&str] =
    &["withings_chart", "withings_trends", "withings_daily_summary", "withings_weekly_summary"];
/// Compiled in: no file to find at run time, and no external URL inside, so it works offline and
/// under the host's default CSP (`default-src 'none'`, inline script and style only). Stored
/// deflated by build.rs (dashboard.html is 21.7 KB of text, 8 KB as zlib) and inflated when read.
const DASHBOARD_ZLIB: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/dashboard.html.zlib"));

/// The page, as dashboard.html has it.
fn dashboard_html() -> String {
    inflate::zlib(DASHBOARD_ZLIB, 1 << 20).and_then(|page| String::from_utf8(page).ok()).unwrap_or_default()
}

/// True when client capabilities declare the MCP Apps extension for HTML views. `mimeTypes` is
/// required by the spec; a client that omits it still asked for the extension, so it counts.
pub fn declares_ui(capabilities: Option<&Value>) -> bool {
    let Some(ext) = capabilities.and_then(|c| c.get("extensions")).and_then(|e| e.get(UI_EXTENSION)) else {
        return false;
    };
    match ext.get("mimeTypes") {
        Some(Value::Array(types)) => types.iter().any(|t| t.as_str() == Some(APP_MIME)),
        Some(_) => false,
        None => ext.is_object(),
    }
}

/// The dashboard's `resources/list` entry.
pub fn dashboard_entry() -> Value {
    json!({
        "uri": DASHBOARD_URI,
        "name": "dashboard",
        "title": "Withings dashboard",
        "description": "An interactive view of withings_chart, withings_trends and the daily and weekly briefs (MCP Apps).",
        "mimeType": APP_MIME,
    })
}

/// The dashboard's `resources/read` contents. It asks for a border: it draws its own background.
pub fn dashboard_contents() -> Value {
    json!([{
        "uri": DASHBOARD_URI,
        "mimeType": APP_MIME,
        "text": dashboard_html(),
        "_meta": {"ui": {"prefersBorder": true}},
    }])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ui_extension_is_declared_only_with_html_views() {
        let caps = |ext: Value| json!({"extensions": {UI_EXTENSION: ext}});
        let cases = [
            (Some(caps(json!({"mimeTypes": [APP_MIME]}))), true),
            (Some(caps(json!({"mimeTypes": ["text/plain", APP_MIME]}))), true),
            (Some(caps(json!({}))), true),
            (Some(caps(json!({"mimeTypes": ["text/uri-list"]}))), false),
            (Some(caps(json!({"mimeTypes": APP_MIME}))), false),
            (Some(caps(json!(true))), false),
            (Some(json!({"extensions": {"io.modelcontextprotocol/tasks": {}}})), false),
            (Some(json!({})), false),
            (None, false),
        ];
        for (c, want) in cases {
            assert_eq!(declares_ui(c.as_ref()), want, "{c:?}");
        }
    }

    #[test]
    fn the_page_served_is_the_file_byte_for_byte() {
        assert_eq!(dashboard_html(), include_str!("dashboard.html"));
        assert!(DASHBOARD_ZLIB.len() < include_str!("dashboard.html").len() / 2, "{}", DASHBOARD_ZLIB.len());
    }

    #[test]
    fn the_dashboard_is_one_self_contained_page() {
        let html = dashboard_html().to_ascii_lowercase();
        assert!(html.starts_with("<!doctype html>"), "a complete HTML5 document");
        // Nothing may load from elsewhere: the host's default CSP would block it, and offline
        // there is nothing to load. The SVG namespace is an identifier, never fetched.
        let outside = html.replace("http://www.w3.org/2000/svg", "");
        for needle in
            ["http:", "https:", "src=", "@import", "url(", "//cdn", "fetch(", "xmlhttprequest", "websocket"]
        {
            assert!(!outside.contains(needle), "the page must not contain `{needle}`");
        }
        assert!(!html.contains("=\"//") && !html.contains("='//"), "no protocol-relative URL");
    }
}
