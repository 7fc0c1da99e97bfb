//! Every account on this install, as `withings_accounts`, `withings_connection_status`,
//! `withings_privacy_audit` and `doctor` report it: name, whether it is the one served by
//! default, connected, scopes, token freshness and file modes. Never a token or a secret, and no
//! network: only the local files are read.

use serde::Serialize;
use serde_json::{Map, Value};
use std::fmt::Write as _;

use crate::Result;
use crate::store::accounts::{Account, Accounts};
use crate::store::config::{Config, Env};
use crate::store::{fsutil, tokens};
use crate::tools::{Annotations, Ctx, Output, Tool};

/// The tool of this family.
pub fn tools() -> Vec<Tool> {
    vec![Tool {
        name: "withings_accounts",
        title: "Withings accounts",
        annotations: Annotations::LOCAL_READ,
        handler: list,
    }]
}

/// One account's state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AccountState {
    pub name: String,
    /// True for the account served when none is named (`--account`, `WITHINGS_ACCOUNT`).
    pub default: bool,
    /// A token that works now or is refreshed at the next call.
    pub connected: bool,
    pub scopes: Vec<String>,
    /// `fresh` (valid 5 more minutes), `refreshable` (expired or about to, refreshed at the next
    /// call), `expired` (and no refresh token), `missing`, `refused` (unreadable, or readable by
    /// others), `demo`.
    pub token: &'static str,
    /// Seconds the access token is still valid (negative: expired that long ago).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expires_in_s: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub token_path: Option<String>,
    /// The token file's permission bits, e.g. `0600`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file_mode: Option<String>,
    /// A named account's directory's permission bits, e.g. `0700`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dir_mode: Option<String>,
    /// What is wrong with its files, and what to run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
}

impl AccountState {
    /// A few words on the token, for people.
    pub fn token_words(&self) -> String {
        let min = self.expires_in_s.unwrap_or(0) / 60;
        match self.token {
            "fresh" => format!("fresh ({min} min left)"),
            "refreshable" => "expired or expiring; refreshed at the next call".to_string(),
            "expired" => format!("expired, no refresh token: run `withings-mcp auth{}`", self.flag()),
            "missing" => format!("not connected: run `withings-mcp auth{}`", self.flag()),
            "demo" => "demo account".to_string(),
            _ => format!("refused: {}", self.problem.as_deref().unwrap_or("unreadable")),
        }
    }

    fn flag(&self) -> String {
        Account::parse(&self.name).map(|a| a.flag()).unwrap_or_default()
    }
}

/// Every account: `default`, each named account, and the served account even before its first
/// sign-in. In demo mode, the demo's people (no file is read).
pub fn states(env: &Env, now: i64) -> Result<Vec<AccountState>> {
    let served = env.account()?;
    if env.demo() {
        return Ok(crate::withings::demo::PEOPLE.iter().map(|name| demo_state(name, &served)).collect());
    }
    let accounts = Accounts::new(&Config::load(env)?, env)?;
    let mut list = accounts.list();
    if !list.contains(&served) {
        list.push(served.clone());
    }
    let mut states = Vec::with_capacity(list.len());
    for a in &list {
        states.push(state(&accounts, a, &served, now)?);
    }
    Ok(states)
}

fn demo_state(name: &str, served: &Account) -> AccountState {
    AccountState {
        name: name.to_string(),
        default: served.name() == name,
        connected: true,
        scopes: ["user.info", "user.metrics", "user.activity"].map(str::to_string).to_vec(),
        token: "demo",
        expires_in_s: None,
        token_path: None,
        file_mode: None,
        dir_mode: None,
        problem: None,
    }
}

fn state(accounts: &Accounts, account: &Account, served: &Account, now: i64) -> Result<AccountState> {
    let path = accounts.token_path(account)?;
    let dir = fsutil::parent(&path);
    let dir_mode = if account.is_default() { None } else { fsutil::mode_of(&dir).ok().flatten() };
    let loaded = tokens::load(&path);
    let stored = loaded.as_ref().ok().and_then(Option::as_ref);
    let token = match stored {
        _ if loaded.is_err() => "refused",
        None => "missing",
        Some(t) if t.fresh_at(now) => "fresh",
        Some(t) if !t.refresh_token.is_empty() => "refreshable",
        Some(_) => "expired",
    };
    let problem = match (&loaded, dir_mode) {
        (Err(e), _) => Some(e.to_string()),
        (_, Some(m)) if !fsutil::is_private(m) => {
            Some(format!("{} has mode {m:04o}; run `chmod 700 {}`", dir.display(), dir.display()))
        }
        _ => None,
    };
    Ok(AccountState {
        name: account.name().to_string(),
        default: account == served,
        connected: matches!(token, "fresh" | "refreshable"),
        scopes: stored
            .map(|t| t.scope.split([',', ' ']).filter(|x| !x.is_empty()).map(str::to_string).collect())
            .unwrap_or_default(),
        token,
        expires_in_s: stored.map(|t| t.expires_at.saturating_sub(now)),
        token_path: Some(path.display().to_string()),
        file_mode: fsutil::mode_of(&path).ok().flatten().map(|m| format!("{m:04o}")),
        dir_mode: dir_mode.map(|m| format!("{m:04o}")),
        problem,
    })
}

fn list(ctx: &Ctx, _args: &Map<String, Value>) -> Result<Output> {
    let states = states(&ctx.env, ctx.now)?;
    let structured = crate::value::json!({ "accounts": states });
    let mut md =
        String::from("# Withings accounts\n\n| account | connected | token | scopes |\n|---|---|---|---|\n");
    for s in &states {
        let served = if s.default { " (served by default)" } else { "" };
        let scopes = if s.scopes.is_empty() { "—".to_string() } else { s.scopes.join(", ") };
        let connected = if s.connected { "yes" } else { "no" };
        let _ = writeln!(md, "| `{}`{served} | {connected} | {} | {scopes} |", s.name, s.token_words());
    }
    md.push_str("\nPass `account` to a data tool to read that person's data.\n");
    Ok(Output { structured: structured.into(), markdown: md, extra: Vec::new() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::tokens::Tokens;
    use crate::tools::run;

    fn tokens(expires_at: i64, refresh: &str, user: &str) -> Tokens {
        Tokens {
            access_token: format!("ACCESS-{user}"),
            refresh_token: refresh.into(),
            expires_at,
            scope: "user.metrics,user.activity".into(),
            userid: Some(user.into()),
            token_type: "Bearer".into(),
            created_at: 0,
        }
    }

    #[test]
    fn every_account_with_its_state_and_never_a_token() {
        use std::os::unix::fs::PermissionsExt;
        let home = fsutil::test_dir("tools-accounts");
        let state = home.join(".withings-mcp");
        tokens::save(&state.join("tokens.json"), &tokens(10_000, "R1", "1")).unwrap();
        tokens::save(&state.join("accounts/bob/tokens.json"), &tokens(100, "R2", "2")).unwrap();
        tokens::save(&state.join("accounts/cy/tokens.json"), &tokens(100, "", "3")).unwrap();
        std::fs::create_dir_all(state.join("accounts/dee")).unwrap();
        std::fs::set_permissions(state.join("accounts/dee"), std::fs::Permissions::from_mode(0o755)).unwrap();
        let env = Env::from_pairs(&[("HOME", home.to_str().unwrap()), ("WITHINGS_ACCOUNT", "eve")]);
        let ctx = Ctx::new(env, 1000);
        let tool = &tools()[0];
        let out = run(&ctx, tool, &Value::Null).unwrap();
        crate::tools::schema::check(&tool.output_schema(), &out.structured.tree()).unwrap();
        let got: Vec<(String, bool, bool, String)> = out.structured.tree()["accounts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| {
                let s = |k: &str| a[k].as_str().unwrap_or_default().to_string();
                (s("name"), a["default"] == true, a["connected"] == true, s("token"))
            })
            .collect();
        let want = [
            ("default", false, true, "fresh"),
            ("bob", false, true, "refreshable"),
            ("cy", false, false, "expired"),
            ("dee", false, false, "missing"),
            ("eve", true, false, "missing"),
        ];
        let want: Vec<(String, bool, bool, String)> =
            want.iter().map(|(n, d, c, t)| (n.to_string(), *d, *c, t.to_string())).collect();
        assert_eq!(got, want);
        let dee = &out.structured.tree()["accounts"][3];
        assert_eq!((dee["dir_mode"].as_str(), dee["problem"].as_str().is_some()), (Some("0755"), true));
        assert_eq!(out.structured.tree()["accounts"][1]["file_mode"], "0600");
        let all = format!("{}{}", out.structured.tree(), out.markdown);
        for secret in ["ACCESS-", "R1", "R2"] {
            assert!(!all.contains(secret), "{secret} leaked: {all}");
        }
        assert!(out.markdown.contains("`withings-mcp auth --account eve`"), "{}", out.markdown);
        std::fs::remove_dir_all(home).unwrap();
    }
}
