//! Local tools that never call Withings: inventory, capabilities, agent manifest, privacy audit
//! and cache status. What they say is derived from the catalogue and the real files, so it cannot
//! drift from what the server does.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::Result;
use crate::domain::named::Named;
use crate::domain::privacy::PrivacyMode;
use crate::store::accounts::Accounts;
use crate::store::config::{Config, Env, Key};
use crate::store::fsutil;
use crate::tools::{self, Annotations, Ctx, Output, Tool, resources};
use crate::value::json;

/// The local tools of this family.
pub fn tools() -> Vec<Tool> {
    vec![
        Tool {
            name: "withings_data_inventory",
            title: "Data inventory",
            annotations: Annotations::LOCAL_READ,
            handler: inventory,
        },
        Tool {
            name: "withings_capabilities",
            title: "Capabilities",
            annotations: Annotations::LOCAL_READ,
            handler: capabilities,
        },
        Tool {
            name: "withings_agent_manifest",
            title: "Agent manifest",
            annotations: Annotations::LOCAL_READ,
            handler: manifest,
        },
        Tool {
            name: "withings_privacy_audit",
            title: "Privacy audit",
            annotations: Annotations::LOCAL_READ,
            handler: privacy_audit,
        },
        Tool {
            name: "withings_cache_status",
            title: "Cache status",
            annotations: Annotations::LOCAL_READ,
            handler: cache_status,
        },
    ]
}

// Schema properties as JSON text, parsed when the catalogue is built: a `json!` literal compiles
// to code that inserts every entry one by one (16 KB of the static binary for these five tools);
// the text is a few hundred bytes. A unit test parses each one.

/// Data domains: name, what, scope, tools, upstream action.
const DOMAINS: &[(&str, &str, &str, &[&str], &str)] = &[
    (
        "body",
        "weight and body composition (fat, muscle, bone, water), blood pressure, SpO2, temperature, vascular age",
        "user.metrics",
        &["withings_list_body_measures", "withings_trends", "withings_chart"],
        "measure getmeas",
    ),
    (
        "activity",
        "daily steps, distance, elevation, active minutes and calories",
        "user.activity",
        &["withings_list_activity", "withings_get_goals"],
        "measure v2 getactivity",
    ),
    (
        "intraday",
        "samples through the day: steps, heart rate, SpO2, HRV (RMSSD, SDNN), calories, distance, elevation, core body temperature, breathing",
        "user.activity",
        &["withings_list_intraday"],
        "measure v2 getintradayactivity",
    ),
    (
        "workouts",
        "workouts with category, duration, calories, distance, steps and heart rate",
        "user.activity",
        &["withings_list_workouts"],
        "measure v2 getworkouts",
    ),
    (
        "sleep",
        "nightly sleep summaries (stages, score, heart and breathing) and naps; detailed sleep stages",
        "user.activity",
        &["withings_list_sleep_summary", "withings_list_sleep"],
        "sleep v2 getsummary, get",
    ),
    (
        "heart",
        "ECG recordings with their classification and trace, blood pressure and heart rate from heart devices",
        "user.metrics",
        &["withings_list_heart", "withings_get_ecg"],
        "heart v2 list, get",
    ),
    (
        "devices",
        "the person's devices: model, battery, first and last sync, stale when not synced for 48 hours",
        "user.info",
        &["withings_list_devices"],
        "user v2 getdevice",
    ),
    (
        "goals",
        "steps, sleep and weight goals, with progress and a weight ETA from the trend",
        "user.info",
        &["withings_get_goals"],
        "user v2 getgoals",
    ),
];

const FIRST_TOOLS: &[&str] =
    &["withings_connection_status", "withings_daily_summary", "withings_weekly_summary"];

const PRIVACY_MODES: &[(&str, &str)] = &[
    ("summary", "the few fields an agent needs per record; smallest answers"),
    (
        "structured",
        "every physiological field, decoded with units; location and identifiers removed (default)",
    ),
    ("raw", "the upstream JSON as Withings sent it, with secrets removed; for debugging"),
];

fn inventory(_ctx: &Ctx, _args: &Map<String, Value>) -> Result<Output> {
    let domains: Vec<Value> = DOMAINS
        .iter()
        .map(|(name, what, scope, tools, action)| {
            json!({"name": name, "description": what, "scope": scope, "tools": tools, "upstream": action})
        })
        .collect();
    let modes: Vec<Value> = PRIVACY_MODES.iter().map(|(m, w)| json!({"mode": m, "use_when": w})).collect();
    let structured = json!({
        "kind": "data_inventory",
        "domains": domains,
        "scopes": crate::store::config::DEFAULT_SCOPES.split(',').collect::<Vec<_>>(),
        "privacy_modes": modes,
        "first_tools": FIRST_TOOLS,
        "limits": {
            "list_limit_default": 100,
            "list_limit_max": 1000,
            "sleep_detail_window_days": 7,
            "intraday_window_hours": 24,
            "withings_rate_limit": "120 requests per minute per app",
        },
    });
    let mut md = String::from("# Withings data inventory\n\n");
    for (name, what, scope, tools, _) in DOMAINS {
        let _ = writeln!(md, "- **{name}** ({scope}): {what}. Tools: {}", code_list(tools));
    }
    md.push_str("\n## Privacy modes\n\n");
    for (m, w) in PRIVACY_MODES {
        let _ = writeln!(md, "- `{m}`: {w}");
    }
    let _ = writeln!(md, "\n## First calls\n\n{}", code_list(FIRST_TOOLS));
    Ok(Output { structured: structured.into(), markdown: md, extra: Vec::new() })
}

const CAN_READ: &[&str] = &[
    "body measures: weight, fat ratio, fat and fat-free mass, muscle, bone, hydration, visceral fat, BMR and more",
    "blood pressure and heart rate from scales, monitors and watches",
    "SpO2, body and skin temperature, pulse wave velocity, vascular age, VO2 max (when your plan includes them)",
    "daily activity: steps, distance, elevation, active minutes, calories",
    "workouts: category, duration, calories, distance, steps, heart-rate zones",
    "sleep summaries (stages, score, heart and breathing rates, snoring) and naps",
    "sleep detail: stage-by-stage segments with heart rate and breathing",
    "intraday samples: steps, heart rate, SpO2, HRV (RMSSD, SDNN), calories, distance, elevation, core body temperature, breathing rate",
    "ECG records with their AFib classification, and one ECG's trace (at most 2,000 samples, µV)",
    "devices: model, battery, first and last sync, and whether they have stopped syncing",
    "goals: steps, sleep and weight, with progress over the last week and a weight ETA from the trend",
];

const CANNOT_READ: &[&str] = &[
    "GPS tracks or locations (not available through the public API, and removed if present)",
    "an ECG trace at full resolution (withings_get_ecg returns at most 2,000 evenly spaced samples)",
    "writing or deleting data in your Withings account (every data tool is read-only)",
    "other people's data: only the account you authorized",
    "push updates (webhooks): data is read on request",
    "metrics your Withings plan or device does not provide (they come back empty, not as errors)",
];

fn capabilities(_ctx: &Ctx, _args: &Map<String, Value>) -> Result<Output> {
    let structured = json!({
        "can_read": CAN_READ,
        "cannot_read": CANNOT_READ,
        "auth": {
            "type": "OAuth 2.0 authorization code, with your own Withings developer app",
            "token_storage": "~/.withings-mcp/tokens.json (0600), refreshed under a file lock",
            "default_redirect_uri": crate::store::config::DEFAULT_REDIRECT_URI,
            "default_scopes": crate::store::config::DEFAULT_SCOPES,
        },
        "protocol_versions": ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", "2026-07-28"],
        "transports": ["stdio", "http (loopback only, stateless, JSON)", "shell (withings-mcp call)"],
        "units": ["metric", "imperial", "uk"],
        "privacy_modes": PRIVACY_MODES.iter().map(|(m, _)| *m).collect::<Vec<_>>(),
    });
    let mut md = String::from("# What withings-mcp can read\n\n");
    for c in CAN_READ {
        let _ = writeln!(md, "- {c}");
    }
    md.push_str("\n## What it cannot read\n\n");
    for c in CANNOT_READ {
        let _ = writeln!(md, "- {c}");
    }
    md.push_str("\nProtocol: MCP 2025-11-25 (and 2025-06-18, 2025-03-26, 2024-11-05, 2026-07-28) over stdio or loopback HTTP.\n");
    Ok(Output { structured: structured.into(), markdown: md, extra: Vec::new() })
}

const RULES: &[&str] = &[
    "Call withings_connection_status first; if it is not ready, tell the user to run `withings-mcp setup`.",
    "Prefer withings_daily_summary and withings_weekly_summary over many list calls.",
    "Dates are civil days in the user's time zone; pass YYYY-MM-DD.",
    "Use withings_trends before saying that a weight or blood-pressure change is real.",
    "This is wellness data, not a diagnosis: suggest seeing a clinician for anything worrying.",
    "Never ask the user for tokens or secrets; withings_revoke_access needs the user's explicit consent.",
    "Several people may share one install: withings_accounts lists them; pass `account` to read one \
     person's data, and never mix two people's data in one answer.",
];

fn manifest(_ctx: &Ctx, args: &Map<String, Value>) -> Result<Output> {
    let client = args.get("client").and_then(Value::as_str).unwrap_or("generic");
    let binary =
        std::env::current_exe().map(|p| p.display().to_string()).unwrap_or_else(|_| "withings-mcp".into());
    let config_path = match client {
        "claude" => Some(
            "~/Library/Application Support/Claude/claude_desktop_config.json (macOS), \
             ~/.config/Claude/claude_desktop_config.json (Linux)",
        ),
        "cursor" => Some("~/.cursor/mcp.json"),
        "hermes" => Some("~/.hermes/config.yaml (under mcp_servers:)"),
        _ => None,
    };
    let setup_command = match client {
        "shell" => "withings-mcp setup --no-auth && withings-mcp auth".to_string(),
        c => format!("withings-mcp setup --client {c}"),
    };
    let tool_names: Vec<&str> = tools::all().iter().map(|t| t.name).collect();
    let resource_uris: Vec<&str> = resources::all().iter().map(|r| r.uri).collect();
    let prompt_names: Vec<&str> = tools::prompts().iter().map(|p| p.name).collect();
    let troubleshooting = json!([
        {"symptom": "not connected / needs auth", "action": "run `withings-mcp auth` (or `withings-mcp auth --code URL` on a headless host)"},
        {"symptom": "rate limited (601)", "action": "wait a minute; prefer the summary tools, which make few requests"},
        {"symptom": "empty results", "action": "check the date range and that your device and plan record that metric"},
        {"symptom": "tools missing in the client", "action": "run `withings-mcp doctor --client <name>` and restart the client"},
    ]);
    let structured = json!({
        "client": client,
        "binary": binary,
        "setup_command": setup_command,
        "config_path": config_path,
        "first_calls": FIRST_TOOLS,
        "tools": tool_names,
        "resources": resource_uris,
        "prompts": prompt_names,
        "rules": RULES,
        "troubleshooting": troubleshooting,
    });
    let mut md = format!("# withings-mcp for {client}\n\n## Install\n\n`{setup_command}`\n");
    if let Some(p) = config_path {
        let _ = writeln!(md, "\nConfig file: {p}");
    }
    if client == "shell" {
        md.push_str("\nWithout MCP: `withings-mcp call TOOL --json '{...}'` prints the structured result; `withings-mcp tools` lists names.\n");
    }
    let _ = write!(md, "\n## First calls\n\n{}\n\n## Rules\n\n", code_list(FIRST_TOOLS));
    for r in RULES {
        let _ = writeln!(md, "- {r}");
    }
    Ok(Output { structured: structured.into(), markdown: md, extra: Vec::new() })
}

fn privacy_audit(ctx: &Ctx, _args: &Map<String, Value>) -> Result<Output> {
    let mut problems = Vec::new();
    let (mode, files) = match (ctx.env.state_dir(), ctx.config()) {
        (Ok(dir), Ok(cfg)) => {
            let token_path = cfg.token_path(&ctx.env)?;
            let pending = crate::store::pending::path(&token_path);
            let http_token = crate::store::http_token::path(&ctx.env)?;
            let mut entries = vec![
                (dir, 0o700, "state directory".to_string()),
                (cfg.file.clone(), 0o600, "configuration (client id and secret)".to_string()),
                (pending, 0o600, "sign-ins awaiting their redirect (states only)".to_string()),
                (http_token, 0o600, "HTTP mode's bearer token".to_string()),
            ];
            entries.extend(account_files(&cfg, &ctx.env)?);
            let files: Vec<Value> =
                entries.iter().map(|(p, want, what)| file_entry(p, *want, what, &mut problems)).collect();
            (cfg.get(Key::PrivacyMode).unwrap_or(PrivacyMode::DEFAULT.name()).to_string(), files)
        }
        (dir, cfg) => {
            if let Err(e) = dir {
                problems.push(e.to_string());
            }
            if let Err(e) = cfg {
                problems.push(e.to_string());
            }
            (PrivacyMode::DEFAULT.name().to_string(), Vec::new())
        }
    };
    let api = ctx
        .config()
        .map(|c| c.api_url().to_string())
        .unwrap_or_else(|_| crate::store::config::DEFAULT_API_URL.into());
    let structured = json!({
        "privacy_mode": mode,
        "files": files,
        "stored_on_disk": [
            "config.json: client id, client secret, redirect URI and preferences (0600)",
            "tokens.json: access and refresh tokens, their expiry, scopes and your Withings user id (0600)",
            "accounts/NAME/tokens.json: the same for each other person on this install (directories 0700)",
            "http-token: the bearer token that HTTP mode requires of clients, made on its first start (0600)",
            "oauth_state.json: the random state of each sign-in awaiting its redirect, for 15 minutes (0600)",
            "no health data: responses are never cached; only `chart --out` writes a file you ask for",
        ],
        "leaves_the_machine": [
            format!("requests to the Withings API at {api} (your token, date ranges, and the client id and secret when exchanging or refreshing tokens)"),
            "the authorization page of your Withings account, opened in your browser by `auth`".to_string(),
            "tool results go to the MCP client (your AI agent) that asked for them, and from there to its model provider".to_string(),
        ],
        "never": [
            "telemetry or analytics",
            "tokens, secrets or the authorization code in any tool result, log or error message",
            "GPS locations (removed from every answer)",
        ],
        "problems": problems,
        "accounts": crate::tools::accounts::states(&ctx.env, ctx.now).unwrap_or_default(),
    });
    let mut md = format!("# Privacy audit\n\nPrivacy mode: `{mode}`\n\n## Files\n\n");
    for f in &files {
        let path = f.get("path").and_then(Value::as_str).unwrap_or("");
        let line = match (f.get("exists").and_then(Value::as_bool), f.get("mode").and_then(Value::as_str)) {
            (Some(true), Some(m)) => {
                format!("- {path}: mode {m}{}\n", if f["secure"] == true { " ✓" } else { " ✗ too open" })
            }
            _ => format!("- {path}: not present\n"),
        };
        md.push_str(&line);
    }
    md.push_str("\n## What leaves this machine\n\n");
    for l in structured["leaves_the_machine"].as_array().into_iter().flatten() {
        let _ = writeln!(md, "- {}", l.as_str().unwrap_or(""));
    }
    if !problems.is_empty() {
        md.push_str("\n## Problems\n\n");
        for p in &problems {
            let _ = writeln!(md, "- {p}");
        }
    }
    Ok(Output { structured: structured.into(), markdown: md, extra: Vec::new() })
}

/// Each account's token file and lock, and a named account's directory.
fn account_files(cfg: &Config, env: &Env) -> Result<Vec<(PathBuf, u32, String)>> {
    let accounts = Accounts::new(cfg, env)?;
    let mut files = Vec::new();
    for a in accounts.list() {
        let tokens = accounts.token_path(&a)?;
        if !a.is_default() {
            files.push((fsutil::parent(&tokens), 0o700, format!("account `{a}`: its directory")));
        }
        let lock = crate::store::tokens::lock_path(&tokens);
        files.push((lock, 0o600, format!("account `{a}`: token lock (empty)")));
        files.push((tokens, 0o600, format!("account `{a}`: OAuth tokens")));
    }
    Ok(files)
}

fn file_entry(path: &Path, want: u32, what: &str, problems: &mut Vec<String>) -> Value {
    match std::fs::symlink_metadata(path) {
        Ok(meta) => {
            let mode = mode_of(&meta);
            // Any group or other bit exposes secrets (or their existence) to other local users.
            let secure = mode & 0o077 == 0;
            if !secure {
                problems.push(format!(
                    "{} is mode {:o}; run `chmod {:o} {}`",
                    path.display(),
                    mode,
                    want,
                    path.display()
                ));
            }
            json!({"path": path.display().to_string(), "what": what, "exists": true, "mode": format!("{mode:o}"), "secure": secure})
        }
        Err(_) => json!({"path": path.display().to_string(), "what": what, "exists": false}),
    }
}

#[cfg(unix)]
fn mode_of(meta: &std::fs::Metadata) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o777
}

#[cfg(not(unix))]
fn mode_of(_meta: &std::fs::Metadata) -> u32 {
    0o600
}

fn cache_status(ctx: &Ctx, _args: &Map<String, Value>) -> Result<Output> {
    let mut legacy = Map::new();
    for key in ["WITHINGS_CACHE", "WITHINGS_CACHE_PATH", "WITHINGS_NO_CACHE"] {
        if let Some(v) = ctx.env.get(key) {
            legacy.insert(key.into(), json!({"set": true, "value_ignored": v}));
        }
    }
    let note = "Authenticated Withings responses are never cached, on disk or in memory: every answer is read \
        fresh, and nothing about your health is left behind. WITHINGS_CACHE, WITHINGS_CACHE_PATH and \
        WITHINGS_NO_CACHE are accepted for compatibility and ignored; a legacy cache file is never opened.";
    let structured = json!({
        "caches_authenticated_responses": false,
        "cache_file": null,
        "legacy_settings": legacy,
        "note": note,
    });
    let md = format!("# Cache status\n\n{note}\n");
    Ok(Output { structured: structured.into(), markdown: md, extra: Vec::new() })
}

fn code_list(items: &[&str]) -> String {
    items.iter().map(|t| format!("`{t}`")).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::config::Env;

    #[test]
    fn every_local_tool_output_matches_its_schema() {
        let dir = crate::store::fsutil::test_dir("local");
        std::fs::create_dir_all(&dir).unwrap();
        let ctx = Ctx::new(Env::from_pairs(&[("HOME", dir.to_str().unwrap()), ("WITHINGS_CACHE", "1")]), 0);
        for tool in tools() {
            let out = tools::run(&ctx, &tool, &json!({})).unwrap();
            tools::schema::check(&tool.output_schema(), &out.structured.tree())
                .unwrap_or_else(|e| panic!("{}: {e}", tool.name));
            assert!(
                !out.markdown.contains("[object Object]") && out.markdown.starts_with("# "),
                "{}",
                tool.name
            );
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn privacy_audit_reports_real_permissions() {
        use std::os::unix::fs::PermissionsExt;
        let dir = crate::store::fsutil::test_dir("audit");
        let state = dir.join(".withings-mcp");
        std::fs::create_dir_all(&state).unwrap();
        std::fs::write(state.join("tokens.json"), "{}").unwrap();
        std::fs::set_permissions(state.join("tokens.json"), std::fs::Permissions::from_mode(0o644)).unwrap();
        let ctx = Ctx::new(Env::from_pairs(&[("HOME", dir.to_str().unwrap())]), 0);
        let out = privacy_audit(&ctx, &Map::new()).unwrap();
        let tree = out.structured.tree();
        let problems = tree["problems"].as_array().unwrap();
        assert!(
            problems.iter().any(|p| p.as_str().unwrap().contains("tokens.json is mode 644")),
            "{problems:?}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
