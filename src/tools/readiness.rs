//! Local readiness, shared by `doctor` and `withings_connection_status`: configuration, file and
//! directory permissions, credentials, redirect URI, token file, expiry, refresh token and scopes.
//! No network; never a secret in a detail.

use std::path::Path;

use serde::Serialize;

use crate::store::accounts::{Account, Accounts};
use crate::store::config::{Config, Env, Key, Source};
use crate::store::fsutil;
use crate::store::tokens::{self, Tokens};
use crate::tools::accounts;
use crate::withings::oauth;

/// One readiness check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Check {
    pub id: &'static str,
    pub ok: bool,
    pub detail: String,
}

/// Ready when configuration, files, token and scopes allow a data call (an expired access token
/// is fine when a refresh token is stored); always in demo mode.
pub fn readiness(env: &Env, now: i64) -> (bool, Vec<Check>) {
    let mut checks = Vec::new();
    if env.demo() {
        let detail = "demo mode: data comes from the built-in synthetic account; no credentials needed";
        checks.push(check("demo", true, detail.into()));
    }
    let cfg = match Config::load(env) {
        Ok(c) => {
            checks.push(config_file(&c));
            c
        }
        Err(e) => {
            checks.push(check("config_file", false, e.to_string()));
            Config::from_env_only(env)
        }
    };
    if let Ok(dir) = env.state_dir() {
        checks.push(state_dir(&dir));
    }
    for (id, key) in [("client_id", Key::ClientId), ("client_secret", Key::ClientSecret)] {
        checks.push(match cfg.source(key) {
            Some(src) => check(id, true, format!("{} set ({})", key.name(), src.name())),
            None => check(id, false, format!("{} is missing; run `withings-mcp setup`", key.name())),
        });
    }
    checks.push(redirect_uri(&cfg));
    let account = match env.account() {
        Ok(a) => a,
        Err(e) => {
            checks.push(check("account", false, e.to_string()));
            Account::default()
        }
    };
    let token_path = Accounts::new(&cfg, env).and_then(|a| a.token_path(&account)).ok();
    let token = token_checks(token_path.as_deref(), &account, &mut checks);
    let usable = match &token {
        Some(t) => t.expires_at.saturating_sub(now) > 0 || !t.refresh_token.is_empty(),
        None => false,
    };
    checks.extend(grant_checks(token.as_ref(), &account, now));
    checks.push(accounts_check(env, now));
    let ready = env.demo() || checks.iter().filter(|c| c.id != "token_expiry").all(|c| c.ok) && usable;
    (ready, checks)
}

/// Human next steps for failed checks of `account`'s readiness.
pub fn next_steps(ready: bool, checks: &[Check], account: &Account) -> Vec<String> {
    if ready {
        return vec!["Ready: try withings_daily_summary or withings_list_body_measures.".into()];
    }
    let failed = |id: &str| checks.iter().any(|c| c.id == id && !c.ok);
    let mode = |id: &str| checks.iter().any(|c| c.id == id && !c.ok && c.detail.contains("chmod"));
    let mut steps = Vec::new();
    if mode("state_dir") {
        steps.push("Make the directory private: `chmod 700 ~/.withings-mcp`.".into());
    }
    if mode("config_file") {
        steps.push("Make the config file private: `chmod 600 ~/.withings-mcp/config.json`.".into());
    }
    if failed("client_id") || failed("client_secret") || failed("config_file") && !mode("config_file") {
        steps.push("Run `withings-mcp setup` with your Withings app's client id and secret.".into());
    }
    if failed("token_file") || failed("refresh_token") || failed("scopes") {
        steps.push(format!(
            "Run `withings-mcp auth{}` (or withings_get_auth_url then withings_exchange_code).",
            account.flag()
        ));
    }
    if mode("token_permissions") {
        steps.push("Make the token file private: `chmod 600` on the file the token_file check names.".into());
    }
    if failed("accounts") {
        steps.push(
            "Fix the account files the accounts check names (`withings-mcp call withings_accounts`).".into(),
        );
    }
    steps
}

/// `accounts`: every account and whether it is connected; fails when an account's files are
/// refused (unreadable, or open to other users).
fn accounts_check(env: &Env, now: i64) -> Check {
    let list = match accounts::states(env, now) {
        Ok(l) => l,
        Err(e) => return check("accounts", false, e.to_string()),
    };
    let words: Vec<String> = list
        .iter()
        .map(|s| {
            let served = if s.default { ", served" } else { "" };
            match &s.problem {
                Some(p) => format!("{}{served}: {p}", s.name),
                None => format!("{}{served}: {}", s.name, s.token_words()),
            }
        })
        .collect();
    let ok = list.iter().all(|s| s.problem.is_none());
    check(
        "accounts",
        ok,
        format!("{} account{}: {}", list.len(), if list.len() == 1 { "" } else { "s" }, words.join("; ")),
    )
}

fn check(id: &'static str, ok: bool, detail: String) -> Check {
    Check { id, ok, detail }
}

fn config_file(c: &Config) -> Check {
    match (c.file_found, fsutil::mode_of(&c.file)) {
        (false, _) => {
            check("config_file", true, format!("{} not found; using the environment", c.file.display()))
        }
        (true, Ok(Some(m))) if !fsutil::is_private(m) => check(
            "config_file",
            false,
            format!(
                "{} is accessible by other users (mode {m:04o}); run `chmod 600` on it",
                c.file.display()
            ),
        ),
        (true, _) => check("config_file", true, format!("{} (private)", c.file.display())),
    }
}

/// `~/.withings-mcp` itself: others must not list or enter it.
fn state_dir(dir: &Path) -> Check {
    match fsutil::mode_of(dir) {
        Ok(Some(m)) if fsutil::is_private(m) => {
            check("state_dir", true, format!("{} (mode {m:04o})", dir.display()))
        }
        Ok(Some(m)) => check(
            "state_dir",
            false,
            format!(
                "{} has mode {m:04o}: other users can list and enter it; run `chmod 700 {}`",
                dir.display(),
                dir.display()
            ),
        ),
        Ok(None) => check(
            "state_dir",
            true,
            format!("{} not created yet (setup and auth create it 0700)", dir.display()),
        ),
        Err(e) => check("state_dir", false, e.to_string()),
    }
}

fn redirect_uri(cfg: &Config) -> Check {
    let redirect = cfg.get(Key::RedirectUri).unwrap_or_default().to_string();
    let ok = redirect.starts_with("http://") || redirect.starts_with("https://");
    let listener = match oauth::loopback(&redirect) {
        Ok(l) => format!("`auth` listens on {}{}", l.bind, l.path),
        Err(_) => "not a loopback address: use `auth --code`".to_string(),
    };
    let src = cfg.source(Key::RedirectUri).unwrap_or(Source::Default).name();
    check("redirect_uri", ok, format!("{redirect} ({src}); {listener}"))
}

/// `token_file` and `token_permissions` of the account served; returns the token when one could
/// be read.
fn token_checks(path: Option<&Path>, account: &Account, checks: &mut Vec<Check>) -> Option<Tokens> {
    let Some(p) = path else {
        checks.push(check("token_file", false, "no token path (HOME is not set)".into()));
        checks.push(check("token_permissions", false, "no token file".into()));
        return None;
    };
    let (file, token) = match tokens::load(p) {
        Ok(Some(t)) => (check("token_file", true, format!("{} present", p.display())), Some(t)),
        Ok(None) => {
            let detail = format!("{} not found; run `withings-mcp auth{}`", p.display(), account.flag());
            (check("token_file", false, detail), None)
        }
        Err(e) => (check("token_file", false, e.to_string()), None),
    };
    checks.push(file);
    checks.push(match fsutil::mode_of(p) {
        Ok(Some(m)) if fsutil::is_private(m) => check("token_permissions", true, format!("mode {m:04o}")),
        Ok(Some(m)) => check(
            "token_permissions",
            false,
            format!("mode {m:04o} lets other users read it; run `chmod 600`"),
        ),
        _ => check("token_permissions", false, "no token file".into()),
    });
    token
}

/// `token_expiry`, `refresh_token` and `scopes`.
fn grant_checks(token: Option<&Tokens>, account: &Account, now: i64) -> Vec<Check> {
    let Some(t) = token else {
        return ["token_expiry", "refresh_token", "scopes"]
            .map(|id| check(id, false, "no token".into()))
            .into();
    };
    // Saturating: the file may hold any i64 (a corrupt or hand-edited expiry).
    let left = t.expires_at.saturating_sub(now);
    let expiry = match left > 0 {
        true => format!("access token valid for {} more minutes", left / 60),
        false => format!(
            "access token expired {} minutes ago; it is refreshed automatically",
            left.unsigned_abs() / 60
        ),
    };
    let has_refresh = !t.refresh_token.is_empty();
    let auth = format!("withings-mcp auth{}", account.flag());
    let refresh = match has_refresh {
        true => "refresh token stored".to_string(),
        false => format!("no refresh token; run `{auth}` when the access token expires"),
    };
    let granted: Vec<&str> = t.scope.split([',', ' ']).filter(|s| !s.is_empty()).collect();
    let missing: Vec<&str> =
        ["user.metrics", "user.activity"].into_iter().filter(|s| !granted.contains(s)).collect();
    // Devices and goals need `user.info`; everything else works without it, so its absence (a
    // connection made before it was a default scope) is said but does not block.
    let info = match granted.contains(&"user.info") {
        true => String::new(),
        false => format!("; user.info not granted (devices and goals need it: run `{auth}` to add it)"),
    };
    let scopes = match (granted.is_empty(), missing.is_empty()) {
        (true, _) => "the token records no scope".to_string(),
        (false, true) => format!("granted: {}{info}", granted.join(", ")),
        (false, false) => format!("missing {}; run `{auth}` and approve them", missing.join(", ")),
    };
    vec![
        check("token_expiry", left > 0, expiry),
        check("refresh_token", has_refresh, refresh),
        check("scopes", missing.is_empty() && !granted.is_empty(), scopes),
    ]
}
