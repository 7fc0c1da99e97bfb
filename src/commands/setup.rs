//! `withings-mcp setup`: writes `~/.withings-mcp/config.json` (dir 0700, file 0600, atomic,
//! merging keys already there), optionally configures an MCP client, then runs `auth` unless
//! `--no-auth`. Interactive when stdin is a terminal (secrets are read without echo), flags,
//! standard input (`--client-secret-stdin`) and the environment otherwise. `--client generic`
//! and `--demo` only wire (or print) the client entry: no configuration, no sign-in.

use std::fmt::Write as _;
use std::io::{BufRead, IsTerminal, Write};
use std::process::{Command, Stdio};

use serde_json::{Map, Value};

use crate::cli::{AuthOpts, SetupOpts};
use crate::commands::clients::{self, ClientKind, Os};
use crate::domain::named::Named;
use crate::domain::privacy::PrivacyMode;
use crate::domain::time::CivilDate;
use crate::store::config::{DEFAULT_REDIRECT_URI, Key};
use crate::store::fsutil;
use crate::tools::Ctx;
use crate::value::json;
use crate::{Error, Result};

/// Runs the command and returns the exit code.
pub fn run(ctx: &Ctx, opts: &SetupOpts) -> Result<u8> {
    let kind = match &opts.client {
        Some(c) => Some(c.parse::<ClientKind>()?),
        None => None,
    };
    // Printing the generic snippet, or wiring a client to the demo account, needs no credentials:
    // it writes no configuration of ours and signs nobody in.
    if kind == Some(ClientKind::Generic) || ctx.demo() {
        return wire_only(ctx, opts, kind);
    }
    let path = ctx.env.state_dir()?.join("config.json");
    let mut config = read_object(&path)?;
    let settings = settings(ctx, opts, &config)?;
    // The client is wired first: if its config file cannot be merged, nothing is written at all.
    let client = match kind {
        Some(k) => Some(configure_client(ctx, k)?),
        None => None,
    };
    for (key, value) in &settings.values {
        config.insert(key.name().into(), Value::String(value.clone()));
    }
    fsutil::ensure_private_dir(&fsutil::parent(&path))?;
    let text = crate::value::pretty(&Value::Object(config));
    let text = format!("{text}\n");
    // Running setup again with the same settings leaves the file (and its time stamp) alone,
    // and says so rather than claim a write.
    let private = std::fs::metadata(&path)
        .is_ok_and(|m| std::os::unix::fs::PermissionsExt::mode(&m.permissions()) & 0o077 == 0);
    let written = !private || std::fs::read(&path).ok().as_deref() != Some(text.as_bytes());
    if written {
        fsutil::write_atomic(&path, text.as_bytes(), 0o600)?;
    }

    let mut result =
        json!({"ok": true, "config_path": path.display().to_string(), "config_written": written});
    let warnings: Vec<String> = settings
        .missing
        .iter()
        .map(|k| {
            format!(
                "{} is not set yet: add it with `withings-mcp setup` before `withings-mcp auth`",
                k.name()
            )
        })
        .collect();
    if let Some(v) = client {
        insert(&mut result, "client", v);
    }
    if !warnings.is_empty() {
        insert(&mut result, "warnings", json!(warnings));
    }
    let signed_in = match opts.no_auth {
        true => None,
        false => {
            Some(crate::commands::auth::connect(ctx, &AuthOpts { json: opts.json, ..AuthOpts::default() }))
        }
    };
    let failure = match signed_in {
        Some(Ok(c)) => {
            insert(&mut result, "auth", c.to_value()?);
            None
        }
        Some(Err(e)) => {
            insert(&mut result, "auth", json!({"ok": false, "error": e.to_string()}));
            insert(&mut result, "ok", Value::Bool(false));
            Some(e)
        }
        None => None,
    };
    let text = match opts.json {
        true => format!("{}\n", crate::value::text(&result)),
        false => summary(&path, &result, &warnings),
    };
    print_stdout(&text)?;
    // A failed sign-in is reported like any failure: one line on stderr, exit 1.
    match failure {
        Some(e) => Err(e),
        None => Ok(0),
    }
}

/// What setup did, for people (a failed sign-in is left to the error on stderr).
fn summary(path: &std::path::Path, result: &Value, warnings: &[String]) -> String {
    let mut s = match result["config_written"] == Value::Bool(true) {
        true => format!("✓ configuration written to {} (private)\n", path.display()),
        false => format!("✓ configuration unchanged in {}\n", path.display()),
    };
    s.push_str(&client_lines(&result["client"]));
    for w in warnings {
        let _ = writeln!(s, "! {w}");
    }
    match &result["auth"] {
        Value::Null => s.push_str("Next: run `withings-mcp auth` to connect your Withings account.\n"),
        a if a["ok"] == Value::Bool(true) => s.push_str("✓ Withings connected\n"),
        _ => {}
    }
    s
}

/// What setup will write into `config.json`, and the credentials still missing (with --no-auth).
struct Settings {
    values: Vec<(Key, String)>,
    missing: Vec<Key>,
}

/// Gathers the settings from flags, standard input, the terminal, the environment and the
/// existing file (in that order), and checks them.
fn settings(ctx: &Ctx, opts: &SetupOpts, config: &Map<String, Value>) -> Result<Settings> {
    if opts.client_secret.is_some() && opts.client_secret_stdin {
        return Err(Error::boxed(Error::Usage(
            "give the client secret once: --client-secret or --client-secret-stdin".into(),
        )));
    }
    let stdin_secret = match opts.client_secret_stdin {
        true => Some(secret_from_stdin()?),
        false => None,
    };
    let known = |key: Key| {
        ctx.env.get(key.name()).or_else(|| config.get(key.name()).and_then(Value::as_str)).map(str::to_string)
    };
    let mut id = opts.client_id.clone().or_else(|| known(Key::ClientId));
    let mut secret = opts.client_secret.clone().or(stdin_secret).or_else(|| known(Key::ClientSecret));
    let mut redirect = opts.redirect_uri.clone().or_else(|| known(Key::RedirectUri));
    let interactive =
        std::io::stdin().is_terminal() && !opts.non_interactive && !opts.json && !opts.client_secret_stdin;
    if interactive {
        eprintln!("Withings app credentials (https://developer.withings.com/dashboard):");
        id = prompt("Client ID", id.as_deref(), false)?;
        secret = prompt("Client secret", secret.as_deref(), true)?;
        redirect = prompt("Redirect URI", Some(redirect.as_deref().unwrap_or(DEFAULT_REDIRECT_URI)), false)?;
    }
    let redirect = redirect.unwrap_or_else(|| DEFAULT_REDIRECT_URI.to_string());
    if !(redirect.starts_with("http://") || redirect.starts_with("https://")) {
        return Err(Error::boxed(Error::Usage(format!(
            "--redirect-uri must be an http:// or https:// URL, got {redirect}"
        ))));
    }
    let privacy = opts.privacy_mode.clone().or_else(|| known(Key::PrivacyMode));
    if let Some(p) = &privacy
        && let Err(e) = PrivacyMode::parse(p)
    {
        return Err(Error::boxed(Error::Usage(format!("--privacy-mode: {e}"))));
    }
    let mut missing = Vec::new();
    for (value, key, flag) in
        [(&id, Key::ClientId, "--client-id"), (&secret, Key::ClientSecret, "--client-secret-stdin")]
    {
        match (value, opts.no_auth) {
            (Some(_), _) => {}
            // Credentials are needed to sign in, not to wire a client.
            (None, true) => missing.push(key),
            (None, false) => {
                return Err(Error::boxed(Error::Usage(format!(
                    "{k} is required to sign in: pass {flag}, set {k}, run setup in a terminal, or add --no-auth",
                    k = key.name()
                ))));
            }
        }
    }
    let values = [
        (Key::ClientId, id),
        (Key::ClientSecret, secret),
        (Key::RedirectUri, Some(redirect)),
        (Key::PrivacyMode, privacy),
    ]
    .into_iter()
    .filter_map(|(k, v)| Some((k, v?)))
    .collect();
    Ok(Settings { values, missing })
}

/// `setup --client generic` and `setup --demo [--client C]`: wires (or prints) the client entry
/// and nothing else.
fn wire_only(ctx: &Ctx, opts: &SetupOpts, kind: Option<ClientKind>) -> Result<u8> {
    let given = [
        (opts.client_id.is_some(), "--client-id"),
        (opts.client_secret.is_some(), "--client-secret"),
        (opts.client_secret_stdin, "--client-secret-stdin"),
        (opts.redirect_uri.is_some(), "--redirect-uri"),
        (opts.privacy_mode.is_some(), "--privacy-mode"),
    ];
    if let Some((_, flag)) = given.iter().find(|(set, _)| *set) {
        let what = match ctx.demo() {
            true => "the demo account needs no configuration",
            false => "--client generic only prints the entry to paste",
        };
        return Err(Error::boxed(Error::Usage(format!(
            "{flag} does not apply: {what}; run `withings-mcp setup` without it"
        ))));
    }
    let Some(kind) = kind else {
        let next = "The demo account needs no set-up: try `withings-mcp --demo call withings_daily_summary --markdown`, \
                    or wire a client to it with `withings-mcp setup --client claude --demo`.";
        let text = match opts.json {
            true => {
                format!("{}\n", crate::value::text(&json!({"ok": true, "demo": true, "next_step": next})))
            }
            false => format!("{next}\n"),
        };
        return print_stdout(&text).map(|()| 0);
    };
    let client = configure_client(ctx, kind)?;
    let text = match opts.json {
        true => {
            format!("{}\n", crate::value::text(&json!({"ok": true, "demo": ctx.demo(), "client": client})))
        }
        false => client_lines(&client),
    };
    print_stdout(&text).map(|()| 0)
}

/// What happened to the client's config, for people.
fn client_lines(c: &Value) -> String {
    let demo = match c["demo"].as_bool() {
        Some(true) => " (demo account)",
        _ => "",
    };
    let entry = c["entry"].as_str().unwrap_or("withings");
    let mut s = match (c["client"].as_str(), c["path"].as_str(), c["changed"].as_bool()) {
        (Some(name), Some(p), Some(true)) => format!("✓ {name}: {entry} server added to {p}{demo}\n"),
        (Some(name), Some(p), _) => format!("✓ {name}: {p} already up to date{demo}\n"),
        (Some(_), None, _) => format!(
            "Add this to your MCP client's configuration{demo}:\n{}\n",
            c["snippet"].as_str().unwrap_or_default()
        ),
        _ => String::new(),
    };
    if let Some(b) = c["backup"].as_str() {
        let _ = writeln!(s, "  backup of the previous file: {b}");
    }
    s
}

/// The secret from standard input: its first line (a terminal is asked without echo).
fn secret_from_stdin() -> Result<String> {
    let secret = match std::io::stdin().is_terminal() {
        true => prompt("Client secret", None, true)?,
        false => {
            let mut line = String::new();
            std::io::stdin().lock().read_line(&mut line).map_err(|e| Error::io("stdin", e))?;
            Some(line.trim().to_string()).filter(|s| !s.is_empty())
        }
    };
    secret.ok_or_else(|| {
        Error::boxed(Error::Usage("--client-secret-stdin: standard input held no secret".into()))
    })
}

fn print_stdout(text: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes()).and_then(|()| out.flush()).map_err(|e| Error::io("stdout", e))
}

/// Merges the account's entry (`withings`, or `withings-NAME` with `--account NAME`) into a
/// client's config (or prints the generic snippet). The entry runs this very binary by its
/// absolute path; in demo mode it passes `--demo`, and a configured `WITHINGS_TZ` travels with it
/// (clients start servers with a minimal environment).
pub fn configure_client(ctx: &Ctx, kind: ClientKind) -> Result<Value> {
    let home = ctx.env.home()?;
    let exe = std::env::current_exe().map_err(|e| Error::io("locating this binary", e))?;
    let exe = exe.canonicalize().unwrap_or(exe);
    let account = ctx.env.account()?;
    let mut args: Vec<String> = match ctx.demo() {
        true => vec!["--demo".to_string()],
        false => Vec::new(),
    };
    if !account.is_default() {
        args.extend(["--account".to_string(), account.name().to_string()]);
    }
    let name = clients::entry_name(&account);
    let env: Vec<(String, String)> = ctx
        .env
        .get("WITHINGS_TZ")
        .map(|tz| vec![("WITHINGS_TZ".to_string(), tz.to_string())])
        .unwrap_or_default();
    let entry = clients::Entry { name: &name, args: &args, env: &env };
    let report = clients::install(&home, Os::current(), kind, &exe, &entry, &utc_stamp(ctx.now))?;
    Ok(json!({
        "client": kind.name(),
        "entry": name,
        "account": account.name(),
        "demo": ctx.demo(),
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
            _ => Err(Error::boxed(Error::Config(format!(
                "{} is not a JSON object; fix or remove it, then rerun setup",
                path.display()
            )))),
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
