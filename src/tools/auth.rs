//! Connection tools: local readiness, the authorization URL, the code exchange and revocation.
//! None of them ever returns a token or the client secret.

use serde::Serialize;
use serde_json::{Map, Value};
use std::fmt::Write as _;

use crate::store::accounts::Accounts;
use crate::store::config::Key;
use crate::store::{pending, tokens};
use crate::tools::accounts::AccountState;
use crate::tools::readiness::{Check, next_steps, readiness};
use crate::tools::{Annotations, Ctx, Output, Tool, wants_json};
use crate::withings::oauth;
use crate::{Error, Result};

/// The connection tools, in `tools/list` order.
pub fn tools() -> Vec<Tool> {
    vec![
        Tool {
            name: "withings_connection_status",
            title: "Withings connection status",
            annotations: Annotations::LOCAL_READ,
            handler: connection_status,
        },
        Tool {
            name: "withings_get_auth_url",
            title: "Withings authorization URL",
            annotations: Annotations {
                read_only: false,
                destructive: false,
                idempotent: false,
                open_world: false,
            },
            handler: get_auth_url,
        },
        Tool {
            name: "withings_exchange_code",
            title: "Exchange a Withings authorization code",
            annotations: Annotations {
                read_only: false,
                destructive: false,
                idempotent: false,
                open_world: true,
            },
            handler: exchange_code,
        },
        Tool {
            name: "withings_revoke_access",
            title: "Revoke Withings access",
            annotations: Annotations {
                read_only: false,
                destructive: true,
                idempotent: false,
                open_world: true,
            },
            handler: revoke_access,
        },
    ]
}

// The schemas are JSON text, parsed when the catalogue is built: a `json!` literal compiles to code
// that builds every entry one by one, about 3 KB per tool in the static binary; the text is a
// few hundred bytes. A unit test parses each one.

/// The connection status: readiness, its checks, what to do next, and every account.
#[derive(Debug, Serialize)]
struct StatusOut {
    ready: bool,
    demo: bool,
    account: String,
    checks: Vec<Check>,
    next_steps: Vec<String>,
    accounts: Vec<AccountState>,
    #[serde(skip_serializing_if = "Option::is_none")]
    token_path: Option<String>,
}

impl StatusOut {
    fn markdown(&self) -> String {
        let mut md = format!(
            "# Withings connection (account `{}`)\n\n**{}**\n\n",
            self.account,
            if self.ready { "Ready" } else { "Not ready" }
        );
        for c in &self.checks {
            let _ = writeln!(md, "- {} {}: {}", if c.ok { "✓" } else { "✗" }, c.id, c.detail);
        }
        for s in &self.next_steps {
            let _ = write!(md, "\n{s}");
        }
        md
    }
}

fn connection_status(ctx: &Ctx, args: &Map<String, Value>) -> Result<Output> {
    let (ready, checks) = readiness(&ctx.env, ctx.now);
    let account = ctx.env.account()?;
    let next_steps = next_steps(ready, &checks, &account);
    let token_path = ctx.config().and_then(|c| Accounts::new(&c, &ctx.env)?.token_path(&account)).ok();
    let out = StatusOut {
        ready,
        demo: ctx.demo(),
        account: account.name().to_string(),
        checks,
        next_steps,
        // Every account, as withings_accounts lists them (a broken install is already in `checks`).
        accounts: crate::tools::accounts::states(&ctx.env, ctx.now).unwrap_or_default(),
        token_path: token_path.map(|p| p.display().to_string()),
    };
    let md = out.markdown();
    let structured = to_value(&out)?;
    Ok(render(structured, md, args))
}

fn get_auth_url(ctx: &Ctx, args: &Map<String, Value>) -> Result<Output> {
    refuse_in_demo(ctx)?;
    let cfg = ctx.config()?;
    let client_id = cfg.require(Key::ClientId)?;
    let redirect = cfg.redirect_uri();
    let scopes = cfg.scopes();
    let account = ctx.env.account()?;
    let state = oauth::new_state()?;
    let url = oauth::authorize_url(cfg.account_url(), client_id, scopes, redirect, &state);
    pending::add(&cfg.token_path(&ctx.env)?, &state, &account, ctx.now)?;
    let scope_list: Vec<String> = oauth::scopes_param(scopes).split(',').map(str::to_string).collect();
    let next = "Open auth_url, approve access, then pass the full redirect URL to withings_exchange_code within 30 seconds.";
    let out = AuthUrlOut {
        auth_url: &url,
        account: account.name(),
        state: &state,
        redirect_uri: redirect,
        scopes: scope_list,
        next_step: next,
    };
    let structured = to_value(&out)?;
    let md = format!(
        "# Connect Withings (account `{account}`)\n\nOpen this URL and approve access, signed in to Withings as \
         that person:\n\n{url}\n\n{next}\n"
    );
    Ok(render(structured, md, args))
}

fn exchange_code(ctx: &Ctx, args: &Map<String, Value>) -> Result<Output> {
    refuse_in_demo(ctx)?;
    let cfg = ctx.config()?;
    let input = args.get("code").and_then(Value::as_str).unwrap_or_default();
    let anchor = cfg.token_path(&ctx.env)?;
    let cb = oauth::parse_code_or_url(input)?;
    let states = pending::states(&anchor, ctx.now);
    // The sign-in completes for the account it was started for.
    let account =
        pending::account_for(&anchor, cb.state.as_deref(), ctx.env.named_account()?.as_ref(), ctx.now)?;
    let mut client = ctx.with_account(&account).api_client(&cfg)?;
    let path = client.token_path().to_path_buf();
    let local = oauth::Local { pending: &states, tokens_stored: !matches!(tokens::load(&path), Ok(None)) };
    let state = oauth::check_pasted(&cb, None, local, oauth::Paster::Tool)?;
    let t = client.exchange_code(&cb.code)?;
    if let Some(s) = &state {
        // The tokens are stored; a state left pending would only expire unused.
        let _ = pending::consume(&anchor, s, ctx.now);
    }
    let state_checked = state.is_some();
    let next = "Connected: try withings_daily_summary.";
    let out = Connected {
        ok: true,
        account: account.name().to_string(),
        token_path: path.display().to_string(),
        scope: t.scope.clone(),
        expires_at: t.expires_at,
        state_checked: Some(state_checked),
        next_step: next.to_string(),
    };
    let structured = to_value(&out)?;
    let md = format!(
        "# Withings connected (account `{account}`)\n\nTokens stored in `{}` (private). Scopes: {}.\n\n{next}\n",
        path.display(),
        if t.scope.is_empty() { "unknown" } else { &t.scope }
    );
    Ok(render(structured, md, args))
}

fn revoke_access(ctx: &Ctx, args: &Map<String, Value>) -> Result<Output> {
    if args.get("explicit_user_intent") != Some(&Value::Bool(true)) {
        return Err(Error::arg(
            "explicit_user_intent",
            "must be true to revoke access; ask the user to confirm the disconnect first",
        ));
    }
    refuse_in_demo(ctx)?;
    let cfg = ctx.config()?;
    let mut client = ctx.api_client(&cfg)?;
    let path = client.token_path().to_path_buf();
    let stored = tokens::load(&path)?;
    let userid = stored.as_ref().and_then(|t| t.userid.clone());
    let (upstream_revoked, detail) = match (stored.is_some(), userid) {
        (false, _) => (false, "no local token, so there was nothing to revoke upstream".to_string()),
        (true, None) => (
            false,
            "the stored token has no user id, so Withings could not be asked to revoke it; disconnect the app \
             in your Withings account settings"
                .to_string(),
        ),
        (true, Some(uid)) => match client.signed_call(oauth::TOKEN_PATH, "revoke", &[("userid", uid)]) {
            Ok(_) => (true, "Withings revoked this app's access (signed revoke)".to_string()),
            // The local tokens are kept so that the user can retry; saying so is part of the error.
            Err(e) => {
                return Err(Error::boxed(Error::Unavailable(format!(
                    "upstream revoke failed ({e}); local tokens were kept so that you can retry"
                ))));
            }
        },
    };
    let deleted = tokens::delete(&path)?;
    let account = client.account().name();
    let out = Revoked {
        ok: true,
        account,
        upstream_revoked,
        upstream_detail: &detail,
        local_tokens_deleted: deleted,
        token_path: path.display().to_string(),
    };
    let structured = to_value(&out)?;
    let md = format!(
        "# Withings access revoked (account `{account}`)\n\n- Upstream: {detail}\n- Local tokens: {}\n",
        if deleted { "deleted" } else { "none were stored" }
    );
    Ok(render(structured, md, args))
}

fn refuse_in_demo(ctx: &Ctx) -> Result<()> {
    match ctx.demo() {
        true => Err(Error::boxed(Error::Unavailable(
            "demo mode has no real Withings account to connect; run without --demo (and WITHINGS_DEMO unset)"
                .into(),
        ))),
        false => Ok(()),
    }
}

/// `withings_get_auth_url`'s answer.
#[derive(Serialize)]
struct AuthUrlOut<'a> {
    auth_url: &'a str,
    account: &'a str,
    state: &'a str,
    redirect_uri: &'a str,
    scopes: Vec<String>,
    next_step: &'a str,
}

/// A completed sign-in: `withings_exchange_code`'s answer and `auth`'s line on stdout (which
/// checks no pasted state, so has no `state_checked`).
#[derive(Serialize)]
pub struct Connected {
    pub ok: bool,
    pub account: String,
    pub token_path: String,
    pub scope: String,
    pub expires_at: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state_checked: Option<bool>,
    pub next_step: String,
}

/// `withings_revoke_access`'s answer.
#[derive(Serialize)]
struct Revoked<'a> {
    ok: bool,
    account: &'a str,
    upstream_revoked: bool,
    upstream_detail: &'a str,
    local_tokens_deleted: bool,
    token_path: String,
}

impl Connected {
    /// The JSON object said about a sign-in (tool answer, `auth --json`, `setup`'s `auth`).
    pub fn to_value(&self) -> Result<Value> {
        to_value(self)
    }
}

fn to_value(out: &impl Serialize) -> Result<Value> {
    serde_json::to_value(out).map_err(|e| Error::json("a connection tool's answer", e))
}

fn render(structured: Value, markdown: String, args: &Map<String, Value>) -> Output {
    let markdown = match wants_json(args) {
        true => crate::value::pretty(&structured),
        false => markdown,
    };
    Output { structured: structured.into(), markdown, extra: Vec::new() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::config::Env;
    use crate::tools::{run, schema};
    use crate::value::json;

    fn ctx(home: &std::path::Path, extra: &[(&str, &str)]) -> Ctx {
        let mut pairs = vec![("HOME", home.to_str().unwrap())];
        pairs.extend_from_slice(extra);
        Ctx::new(Env::from_pairs(&pairs), 1_000_000)
    }

    fn home(tag: &str) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("wmcp-tools-auth-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn tool(name: &str) -> Tool {
        tools().into_iter().find(|t| t.name == name).unwrap()
    }

    #[test]
    fn schemas_are_closed_objects_with_response_format() {
        for t in tools() {
            assert_eq!(t.input_schema()["additionalProperties"], false, "{}", t.name);
            assert_eq!(
                t.input_schema()["properties"]["response_format"]["default"],
                "markdown",
                "{}",
                t.name
            );
            assert_eq!(t.output_schema()["type"], "object", "{}", t.name);
        }
        assert!(tool("withings_revoke_access").annotations.destructive);
        assert!(tool("withings_connection_status").annotations.read_only);
    }

    #[test]
    fn status_without_anything_is_not_ready_and_names_next_steps() {
        let h = home("status");
        let c = ctx(&h, &[]);
        let out = run(&c, &tool("withings_connection_status"), &Value::Null).unwrap();
        schema::check(&tool("withings_connection_status").output_schema(), &out.structured.tree()).unwrap();
        assert_eq!(out.structured.tree()["ready"], false);
        let tree = out.structured.tree();
        let ids: Vec<&str> =
            tree["checks"].as_array().unwrap().iter().map(|c| c["id"].as_str().unwrap()).collect();
        for id in [
            "config_file",
            "state_dir",
            "client_id",
            "client_secret",
            "redirect_uri",
            "token_file",
            "token_permissions",
            "token_expiry",
            "refresh_token",
            "scopes",
        ] {
            assert!(ids.contains(&id), "{id} in {ids:?}");
        }
        assert!(out.markdown.contains("withings-mcp setup"));
        std::fs::remove_dir_all(h).unwrap();
    }

    #[test]
    fn ready_with_a_private_refreshable_token_even_when_expired_and_never_shows_secrets() {
        let h = home("ready");
        let c = ctx(&h, &[("WITHINGS_CLIENT_ID", "cid"), ("WITHINGS_CLIENT_SECRET", "TOPSECRETVALUE")]);
        let t = tokens::Tokens {
            access_token: "ACCESSSECRET".into(),
            refresh_token: "REFRESHSECRET".into(),
            expires_at: 1_000_000 - 60,
            scope: "user.metrics,user.activity".into(),
            userid: Some("42".into()),
            token_type: "Bearer".into(),
            created_at: 0,
        };
        tokens::save(&h.join(".withings-mcp/tokens.json"), &t).unwrap();
        let out = run(&c, &tool("withings_connection_status"), &json!({"response_format": "json"})).unwrap();
        assert_eq!(out.structured.tree()["ready"], true, "{}", out.markdown);
        let all = format!("{}{}", out.structured.tree(), out.markdown);
        for s in ["TOPSECRETVALUE", "ACCESSSECRET", "REFRESHSECRET"] {
            assert!(!all.contains(s), "{s} leaked");
        }
        std::fs::remove_dir_all(h).unwrap();
    }

    #[test]
    fn auth_url_needs_a_client_id_and_carries_a_fresh_state() {
        let h = home("url");
        let err = run(&ctx(&h, &[]), &tool("withings_get_auth_url"), &Value::Null).unwrap_err().to_string();
        assert!(err.contains("WITHINGS_CLIENT_ID"), "{err}");
        let c = ctx(&h, &[("WITHINGS_CLIENT_ID", "cid")]);
        let a = run(&c, &tool("withings_get_auth_url"), &Value::Null).unwrap();
        let b = run(&c, &tool("withings_get_auth_url"), &Value::Null).unwrap();
        let a_tree = a.structured.tree();
        let state = a_tree["state"].as_str().unwrap();
        assert_eq!(state.len(), 32);
        assert_ne!(a.structured.tree()["state"], b.structured.tree()["state"]);
        assert!(a.structured.tree()["auth_url"].as_str().unwrap().contains(&format!("state={state}")));
        // Both states are pending; a redirect carrying another one is refused before any request.
        let token_path = h.join(".withings-mcp/tokens.json");
        let both: Vec<String> =
            [&a, &b].iter().map(|o| o.structured.tree()["state"].as_str().unwrap().to_string()).collect();
        assert_eq!(pending::states(&token_path, c.now), both);
        let url = "http://127.0.0.1:3000/callback?code=x&state=forged";
        let c2 = ctx(
            &h,
            &[
                ("WITHINGS_CLIENT_ID", "cid"),
                ("WITHINGS_CLIENT_SECRET", "s"),
                ("WITHINGS_API_URL", "http://127.0.0.1:9"),
            ],
        );
        let err = run(&c2, &tool("withings_exchange_code"), &json!({"code": url})).unwrap_err().to_string();
        assert!(err.contains("state"), "{err}");
        std::fs::remove_dir_all(h).unwrap();
    }

    #[test]
    fn revoke_requires_explicit_intent() {
        let h = home("revoke");
        for args in [Value::Null, json!({"explicit_user_intent": false})] {
            let err = run(&ctx(&h, &[]), &tool("withings_revoke_access"), &args).unwrap_err().to_string();
            assert!(err.contains("explicit_user_intent"), "{err}");
        }
        std::fs::remove_dir_all(h).unwrap();
    }
}
