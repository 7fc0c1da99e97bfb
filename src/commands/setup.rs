//! `withings-mcp setup`: writes `~/.withings-mcp/config.json` (dir 0700, file 0600, atomic,
//! merging keys already there), optionally configures an MCP client, then runs `auth` unless
//! `--no-auth`. Interactive when stdin is a terminal (secrets are read without echo), flags
//! otherwise.

use std::io::{BufRead, IsTerminal, Write};
use std::process::{Command, Stdio};

use serde_json::{Map, Value, json};

use crate::cli::{AuthOpts, SetupOpts};
use crate::store::config::DEFAULT_REDIRECT_URI;
use crate::store::fsutil;
use crate::tools::Ctx;
use crate::{Error, Result};

/// Runs the command and returns the exit code.
pub fn run(ctx: &Ctx, opts: &SetupOpts) -> Result<u8> {
    let dir = ctx.env.state_dir()?;
    let path = dir.join("config.json");
    let mut existing = read_object(&path)?;
    let interactive = std::io::stdin().is_terminal() && !opts.non_interactive && !opts.json;
    let current = |k: &str| existing.get(k).and_then(Value::as_str).map(str::to_string);
    let mut id = opts.client_id.clone().or_else(|| current("WITHINGS_CLIENT_ID"));
    let mut secret = opts.client_secret.clone().or_else(|| current("WITHINGS_CLIENT_SECRET"));
    let mut redirect = opts.redirect_uri.clone().or_else(|| current("WITHINGS_REDIRECT_URI"));
    let privacy = opts.privacy_mode.clone().or_else(|| current("WITHINGS_PRIVACY_MODE"));
    if interactive {
        eprintln!("Withings app credentials (https://developer.withings.com/dashboard):");
        id = prompt("Client ID", id.as_deref(), false)?;
        secret = prompt("Client secret", secret.as_deref(), true)?;
        redirect = prompt("Redirect URI", Some(redirect.as_deref().unwrap_or(DEFAULT_REDIRECT_URI)), false)?;
    }
    let Some(id) = id else {
        return Err(Error::Usage(
            "a client id is required: pass --client-id or run setup in a terminal".into(),
        ));
    };
    let Some(secret) = secret else {
        return Err(Error::Usage(
            "a client secret is required: pass --client-secret or run setup in a terminal".into(),
        ));
    };
    let redirect = redirect.unwrap_or_else(|| DEFAULT_REDIRECT_URI.to_string());
    if !(redirect.starts_with("http://") || redirect.starts_with("https://")) {
        return Err(Error::Usage(format!(
            "--redirect-uri must be an http:// or https:// URL, got {redirect}"
        )));
    }
    if let Some(p) = &privacy
        && !matches!(p.as_str(), "summary" | "structured" | "raw")
    {
        return Err(Error::Usage(format!("--privacy-mode must be summary, structured or raw, got {p}")));
    }
    existing.insert("WITHINGS_CLIENT_ID".into(), Value::String(id));
    existing.insert("WITHINGS_CLIENT_SECRET".into(), Value::String(secret));
    existing.insert("WITHINGS_REDIRECT_URI".into(), Value::String(redirect));
    if let Some(p) = privacy {
        existing.insert("WITHINGS_PRIVACY_MODE".into(), Value::String(p));
    }
    fsutil::ensure_private_dir(&dir)?;
    let text =
        serde_json::to_string_pretty(&Value::Object(existing)).map_err(|e| Error::json("config", e))?;
    fsutil::write_atomic(&path, format!("{text}\n").as_bytes(), 0o600)?;

    let mut result = json!({"ok": true, "config_path": path.display().to_string()});
    let mut warnings: Vec<String> = Vec::new();
    if let Some(client) = &opts.client {
        match configure_client(ctx, client) {
            Ok(v) => insert(&mut result, "client", v),
            Err(e) => warnings.push(format!("client {client} was not configured: {e}")),
        }
    }
    if !opts.no_auth {
        let auth = AuthOpts { json: opts.json, ..AuthOpts::default() };
        match crate::commands::auth::connect(ctx, &auth) {
            Ok(v) => insert(&mut result, "auth", v),
            Err(e) => {
                insert(&mut result, "auth", json!({"ok": false, "error": e.to_string()}));
                insert(&mut result, "ok", Value::Bool(false));
            }
        }
    }
    if !warnings.is_empty() {
        insert(&mut result, "warnings", json!(warnings));
    }
    let ok = result["ok"] == Value::Bool(true);
    let text = match opts.json {
        true => format!("{result}\n"),
        false => {
            let mut s = format!("✓ configuration written to {} (private)\n", path.display());
            for w in &warnings {
                s.push_str(&format!("! {w}\n"));
            }
            match &result["auth"] {
                Value::Null => {
                    s.push_str("Next: run `withings-mcp auth` to connect your Withings account.\n")
                }
                a if a["ok"] == Value::Bool(true) => s.push_str("✓ Withings connected\n"),
                a => s.push_str(&format!("✗ sign-in failed: {}\n", a["error"].as_str().unwrap_or_default())),
            }
            s
        }
    };
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes()).and_then(|()| out.flush()).map_err(|e| Error::io("stdout", e))?;
    Ok(if ok { 0 } else { 1 })
}

/// Configures an MCP client's config file. The lead connects this to
/// `crate::commands::clients::install` when that module lands.
pub fn configure_client(_ctx: &Ctx, _client: &str) -> Result<Value> {
    Err(crate::tools::not_yet("client configuration"))
}

fn insert(v: &mut Value, key: &str, value: Value) {
    if let Some(m) = v.as_object_mut() {
        m.insert(key.to_string(), value);
    }
}

/// The existing config file as an object (missing → empty). A file that is not a JSON object
/// is refused rather than overwritten.
fn read_object(path: &std::path::Path) -> Result<Map<String, Value>> {
    match std::fs::read_to_string(path) {
        Ok(text) => match serde_json::from_str::<Value>(&text) {
            Ok(Value::Object(m)) => Ok(m),
            _ => Err(Error::Config(format!(
                "{} is not a JSON object; fix or remove it, then rerun setup",
                path.display()
            ))),
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Map::new()),
        Err(e) => Err(Error::io(path.display().to_string(), e)),
    }
}

/// Asks for a value on the terminal; Enter keeps `current`. Secrets are read with echo off.
fn prompt(label: &str, current: Option<&str>, secret: bool) -> Result<Option<String>> {
    let shown = match (current, secret) {
        (Some(_), true) => " [keep current]".to_string(),
        (Some(c), false) => format!(" [{c}]"),
        (None, _) => String::new(),
    };
    eprint!("{label}{shown}: ");
    let _ = std::io::stderr().flush();
    if secret {
        stty(&["-echo"]);
    }
    let mut line = String::new();
    let read = std::io::stdin().lock().read_line(&mut line);
    if secret {
        // Restore echo whatever happened to the read.
        stty(&["echo"]);
        eprintln!();
    }
    read.map_err(|e| Error::io("stdin", e))?;
    let line = line.trim();
    Ok(match line.is_empty() {
        true => current.map(str::to_string),
        false => Some(line.to_string()),
    })
}

fn stty(args: &[&str]) {
    let tty = std::fs::File::open("/dev/tty");
    if let Ok(tty) = tty {
        let _ = Command::new("stty")
            .args(args)
            .stdin(Stdio::from(tty))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}
