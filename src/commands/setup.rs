//! `withings-mcp setup`: writes `~/.withings-mcp/config.json` (dir 0700, file 0600, atomic,
//! merging keys already there), optionally configures an MCP client, then runs `auth` unless
//! `--no-auth`. Interactive when stdin is a terminal (secrets are read without echo), flags
//! otherwise.

use std::io::{BufRead, IsTerminal, Write};
use std::process::{Command, Stdio};

use serde_json::{Map, Value, json};

use crate::cli::{AuthOpts, SetupOpts};
use crate::commands::clients::{self, ClientKind, Os};
use crate::domain::named::Named;
use crate::domain::privacy::PrivacyMode;
use crate::domain::time::CivilDate;
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
    // Credentials are needed to sign in, not to wire a client: `setup --client X --no-auth`
    // (or the demo) works without them and says what is still missing.
    let needs_credentials = !opts.no_auth && !ctx.demo();
    let mut missing = Vec::new();
    for (value, flag, var) in
        [(&id, "--client-id", "WITHINGS_CLIENT_ID"), (&secret, "--client-secret", "WITHINGS_CLIENT_SECRET")]
    {
        if value.is_none() && ctx.env.get(var).is_none() {
            match needs_credentials {
                true => {
                    return Err(Error::Usage(format!(
                        "{var} is required to sign in: pass {flag}, set {var}, run setup in a terminal, or add --no-auth"
                    )));
                }
                false => missing.push(var),
            }
        }
    }
    let redirect = redirect.unwrap_or_else(|| DEFAULT_REDIRECT_URI.to_string());
    if !(redirect.starts_with("http://") || redirect.starts_with("https://")) {
        return Err(Error::Usage(format!(
            "--redirect-uri must be an http:// or https:// URL, got {redirect}"
        )));
    }
    if let Some(p) = &privacy
        && let Err(e) = PrivacyMode::parse(p)
    {
        return Err(Error::Usage(format!("--privacy-mode: {e}")));
    }
    let kind = match &opts.client {
        Some(c) => Some(c.parse::<ClientKind>()?),
        None => None,
    };
    if let Some(id) = id {
        existing.insert("WITHINGS_CLIENT_ID".into(), Value::String(id));
    }
    if let Some(secret) = secret {
        existing.insert("WITHINGS_CLIENT_SECRET".into(), Value::String(secret));
    }
    existing.insert("WITHINGS_REDIRECT_URI".into(), Value::String(redirect));
    // The client is wired first: if its config file cannot be merged, nothing is written at all.
    let client_report = match kind {
        Some(k) => Some(configure_client(ctx, k)?),
        None => None,
    };
    if let Some(p) = privacy {
        existing.insert("WITHINGS_PRIVACY_MODE".into(), Value::String(p));
    }
    fsutil::ensure_private_dir(&dir)?;
    let text =
        serde_json::to_string_pretty(&Value::Object(existing)).map_err(|e| Error::json("config", e))?;
    fsutil::write_atomic(&path, format!("{text}\n").as_bytes(), 0o600)?;

    let mut result = json!({"ok": true, "config_path": path.display().to_string()});
    let mut warnings: Vec<String> = Vec::new();
    if let Some(v) = client_report {
        insert(&mut result, "client", v);
    }
    for var in missing {
        warnings.push(format!(
            "{var} is not set yet: add it with `withings-mcp setup` before `withings-mcp auth`"
        ));
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
            let c = &result["client"];
            match (c["client"].as_str(), c["path"].as_str(), c["changed"].as_bool()) {
                (Some(name), Some(p), Some(true)) => {
                    s.push_str(&format!("✓ {name}: withings server added to {p}\n"))
                }
                (Some(name), Some(p), _) => s.push_str(&format!("✓ {name}: {p} already up to date\n")),
                (Some(_), None, _) => s.push_str(&format!(
                    "Add this to your MCP client's configuration:\n{}\n",
                    c["snippet"].as_str().unwrap_or("")
                )),
                _ => {}
            }
            if let Some(b) = c["backup"].as_str() {
                s.push_str(&format!("  backup of the previous file: {b}\n"));
            }
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

/// Merges the `withings` entry into a client's config (or prints the generic snippet). The
/// entry runs this very binary by its absolute path; in demo mode it passes `--demo`, and a
/// configured `WITHINGS_TZ` travels with it (clients start servers with a minimal environment).
pub fn configure_client(ctx: &Ctx, kind: ClientKind) -> Result<Value> {
    let home = ctx.env.home()?;
    let exe = std::env::current_exe().map_err(|e| Error::io("locating this binary", e))?;
    let exe = exe.canonicalize().unwrap_or(exe);
    let args: Vec<String> = match ctx.demo() {
        true => vec!["--demo".to_string()],
        false => Vec::new(),
    };
    let env: Vec<(String, String)> = ctx
        .env
        .get("WITHINGS_TZ")
        .map(|tz| vec![("WITHINGS_TZ".to_string(), tz.to_string())])
        .unwrap_or_default();
    let report = clients::install(&home, Os::current(), kind, &exe, &args, &env, &utc_stamp(ctx.now))?;
    Ok(json!({
        "client": kind.name(),
        "path": report.path.map(|p| p.display().to_string()),
        "changed": report.changed,
        "backup": report.backup.map(|p| p.display().to_string()),
        "snippet": report.snippet,
    }))
}

/// `20261130T042455Z` for backup names.
fn utc_stamp(now: i64) -> String {
    let d = CivilDate::from_days(now.div_euclid(86_400));
    let s = now.rem_euclid(86_400);
    format!("{:04}{:02}{:02}T{:02}{:02}{:02}Z", d.y, d.m, d.d, s / 3600, s % 3600 / 60, s % 60)
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
