//! MCP resources (CONTRACT §5). Each resource is read by running a tool with `response_format`
//! `json`, so a resource never disagrees with the tool it mirrors.

use serde_json::{Value, json};

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
