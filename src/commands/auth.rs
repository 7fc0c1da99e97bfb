//! `withings-mcp auth`: sign in to Withings and store the tokens of the account served
//! (`--account NAME`, else `default`).
//!
//! With `--code`, exchanges a pasted redirect URL (or a bare code with `--state`) for a pending
//! sign-in (`store::pending`). Otherwise hands out an authorization URL whose state is pending
//! for 15 minutes and listens on the redirect URI's loopback address (`server::callback`),
//! waiting on the main thread: requests to other paths get 404; a callback without this sign-in's
//! `state` gets 400 and is ignored (we keep waiting), whatever else it carries; the right one is
//! exchanged at once (codes live 30 s) and answered with a result page. A sign-in completed
//! meanwhile by `auth --code` in another process ends the wait too. A pending sign-in remembers
//! its account, so a pasted redirect signs in the person it was started for.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::cli::AuthOpts;
use crate::server::callback;
use crate::store::accounts::{Account, Accounts};
use crate::store::config::{Config, Key};
use crate::store::pending;
use crate::store::tokens::{self, Tokens};
use crate::text::escape;
use crate::tools::Ctx;
use crate::tools::auth::Connected;
use crate::value::json;
use crate::withings::client::Client;
use crate::withings::oauth;
use crate::{Error, Result};

/// Runs the command and returns the exit code.
pub fn run(ctx: &Ctx, opts: &AuthOpts) -> Result<u8> {
    let result = connect(ctx, opts);
    match (opts.json, result) {
        (true, Ok(c)) => print_stdout(&format!("{}\n", crate::value::text(&c.to_value()?))).map(|()| 0),
        (false, Ok(c)) => {
            let scope = if c.scope.is_empty() { "unknown" } else { &c.scope };
            let text = format!(
                "✓ Withings connected\n  account: {}\n  tokens: {} (private)\n  scopes: {scope}\n",
                c.account, c.token_path
            );
            print_stdout(&text).map(|()| 0)
        }
        (true, Err(e)) => {
            print_stdout(&format!(
                "{}\n",
                crate::value::text(&json!({"ok": false, "error": e.to_string()}))
            ))?;
            Err(e)
        }
        (false, Err(e)) => Err(e),
    }
}

/// Signs in and returns what to say about it; never a token. `setup` embeds it in its own result.
pub fn connect(ctx: &Ctx, opts: &AuthOpts) -> Result<Connected> {
    if ctx.demo() {
        return Err(Error::boxed(Error::Unavailable(
            "demo mode needs no sign-in; run `auth` without --demo".into(),
        )));
    }
    let started = Instant::now();
    let cfg = ctx.config()?;
    cfg.require(Key::ClientId)?;
    cfg.require(Key::ClientSecret)?;
    let accounts = Accounts::new(&cfg, &ctx.env)?;
    let (account, t) = match &opts.code {
        Some(input) => pasted(ctx, &cfg, &accounts, started, input, opts.state.as_deref())?,
        None => {
            let account = ctx.env.account()?;
            let t = listen(ctx, &cfg, &accounts.token_path(&account)?, &account, opts, started)?;
            (account, t)
        }
    };
    let token_path = accounts.token_path(&account)?;
    Ok(result(&account, &token_path.display().to_string(), t))
}

/// Exchanges a pasted redirect URL (or a bare code with `--state`) for a pending sign-in, as
/// the account that sign-in was started for.
fn pasted(
    ctx: &Ctx,
    cfg: &Config,
    accounts: &Accounts,
    started: Instant,
    input: &str,
    state: Option<&str>,
) -> Result<(Account, Tokens)> {
    let anchor = cfg.token_path(&ctx.env)?;
    let cb = oauth::parse_code_or_url(input)?;
    let pending = pending::states(&anchor, ctx.now);
    let given = cb.state.as_deref().or(state);
    let account = pending::account_for(&anchor, given, ctx.env.named_account()?.as_ref(), ctx.now)?;
    let token_path = accounts.token_path(&account)?;
    let local =
        oauth::Local { pending: &pending, tokens_stored: !matches!(tokens::load(&token_path), Ok(None)) };
    let state = oauth::check_pasted(&cb, state, local, oauth::Paster::Command)?;
    let t = exchange(ctx, cfg, &account, started, &cb.code, state.as_deref())?;
    Ok((account, t))
}

/// Hands out an authorization URL (its state pending, so that another process may complete it
/// with `--code`), then waits for the callback on the redirect URI's loopback address, or for
/// `auth --code` in another process to complete that sign-in (its tokens land in `token_path`).
fn listen(
    ctx: &Ctx,
    cfg: &Config,
    token_path: &Path,
    account: &Account,
    opts: &AuthOpts,
    started: Instant,
) -> Result<Tokens> {
    let anchor = cfg.token_path(&ctx.env)?;
    let redirect = cfg.redirect_uri().to_string();
    let state = oauth::new_state()?;
    let url =
        oauth::authorize_url(cfg.account_url(), cfg.require(Key::ClientId)?, cfg.scopes(), &redirect, &state);
    pending::add(&anchor, &state, account, ctx.now)?;
    let listening = oauth::loopback(&redirect).and_then(|lb| match callback::Listener::bind(&lb.bind) {
        Ok(server) => Ok((lb, server)),
        Err(e) => Err(Error::boxed(Error::Config(format!(
            "cannot listen on {} for the OAuth callback ({e}); free the port or change WITHINGS_REDIRECT_URI, \
             or paste the redirect URL with `auth --code` (this sign-in stays pending 15 minutes)",
            lb.bind
        )))),
    });
    let (lb, mut server) = match listening {
        Ok(l) => l,
        Err(e) => {
            // The person can still approve in a browser and paste the redirect URL with --code.
            eprintln!("Open this URL in a browser and approve access:\n{url}\n{PASTE_HINT}");
            return Err(e);
        }
    };
    let timeout =
        opts.timeout_secs.or_else(|| cfg.get(Key::AuthTimeout).and_then(|s| s.parse().ok())).unwrap_or(300);
    match opts.no_open {
        true => eprintln!("Open this URL in a browser and approve access:\n{url}"),
        false => {
            eprintln!("Opening your browser; if it does not open, visit this URL:\n{url}");
            open_browser(&url);
        }
    }
    eprintln!("Waiting up to {timeout} s for the callback on http://{}{} …", lb.bind, lb.path);
    if opts.no_open {
        eprintln!("{PASTE_HINT}");
    }
    let deadline = started + Duration::from_secs(timeout);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(Error::boxed(Error::NeedsAuth(format!(
                "timed out after {timeout} s waiting for the Withings callback"
            ))));
        }
        // Short waits, so that a sign-in completed by `auth --code` elsewhere ends this one too.
        let request = match server.next(left.min(Duration::from_secs(1))) {
            Ok(Some(r)) => r,
            Ok(None) => match completed_elsewhere(ctx, &anchor, token_path, &state, started) {
                Some(t) => return Ok(t),
                None => continue,
            },
            Err(e) => return Err(Error::io("OAuth callback listener", e)),
        };
        if let Some(done) = answer(ctx, cfg, account, started, &state, &lb.path, request) {
            return done;
        }
    }
}

/// Answers one request to the listener: `Some` ends the sign-in (exchanged, or declined with
/// this sign-in's state), `None` keeps waiting (another path, or a request without the state).
fn answer(
    ctx: &Ctx,
    cfg: &Config,
    account: &Account,
    started: Instant,
    state: &str,
    callback_path: &str,
    request: callback::Request,
) -> Option<Result<Tokens>> {
    let full = request.url().to_string();
    let (path, query) = full.split_once('?').unwrap_or((full.as_str(), ""));
    if path != callback_path {
        respond(request, 404, "Not found", "This is the withings-mcp sign-in listener.");
        return None;
    }
    let done = match oauth::callback_from_query(query, state) {
        Ok(cb) => exchange(ctx, cfg, account, started, &cb.code, Some(state)),
        Err(e) if matches!(*e, Error::NeedsAuth(_)) => Err(e),
        Err(e) => {
            // Not this sign-in's callback (no or wrong state: a stray or forged request, or a
            // page that tries to cancel the sign-in): refuse it and keep waiting.
            eprintln!("ignored a callback request: {e}");
            respond(request, 400, "Request refused", &format!("{e}. Still waiting for the real sign-in."));
            return None;
        }
    };
    match &done {
        Ok(_) => {
            respond(request, 200, "Withings connected", "You can close this tab and return to the terminal.")
        }
        Err(e) => respond(request, 400, "Sign-in failed", &e.to_string()),
    }
    Some(done)
}

/// What `auth --no-open` tells a person whose browser is on another machine.
const PASTE_HINT: &str = "If the browser runs on another machine, the page it lands on after you approve will not \
load: copy that page's whole address at once (Withings codes expire after 30 s) and run, here or in another \
terminal on this host:\n  withings-mcp auth --code '<the whole redirect URL>'";

/// The tokens stored by another process that completed `state` (no longer pending in the file
/// beside `anchor`, and a token file written since this sign-in started).
fn completed_elsewhere(
    ctx: &Ctx,
    anchor: &Path,
    token_path: &Path,
    state: &str,
    started: Instant,
) -> Option<Tokens> {
    let now = ctx.now + i64::try_from(started.elapsed().as_secs()).unwrap_or(0);
    if pending::states(anchor, now).iter().any(|s| s == state) {
        return None;
    }
    tokens::load(token_path).ok().flatten().filter(|t| t.created_at >= ctx.now)
}

/// Exchanges a code as `account` with a clock advanced by the time spent waiting, then marks the
/// sign-in it completes as done.
fn exchange(
    ctx: &Ctx,
    cfg: &Config,
    account: &Account,
    started: Instant,
    code: &str,
    state: Option<&str>,
) -> Result<Tokens> {
    let now = ctx.now + i64::try_from(started.elapsed().as_secs()).unwrap_or(0);
    let mut client = Client::http(&ctx.env.with_account(account), cfg, now)?;
    let t = client.exchange_code(code)?;
    if let Some(state) = state {
        // The tokens are stored; a state left pending would only expire unused.
        let _ = pending::consume(&cfg.token_path(&ctx.env)?, state, now);
    }
    Ok(t)
}

fn result(account: &Account, token_path: &str, t: Tokens) -> Connected {
    let next_step = format!("Connected: try `withings-mcp{} call withings_daily_summary`.", account.flag());
    Connected {
        ok: true,
        account: account.name().to_string(),
        token_path: token_path.to_string(),
        scope: t.scope,
        expires_at: t.expires_at,
        state_checked: None,
        next_step,
    }
}

fn respond(request: callback::Request, code: u16, title: &str, message: &str) {
    let html = format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>{t}</title></head>\
         <body style=\"font-family:sans-serif;max-width:40em;margin:4em auto\"><h1>{t}</h1><p>{m}</p></body></html>",
        t = escape(title),
        m = escape(message)
    );
    request.respond(code, html);
}

/// Best effort: the URL is printed on stderr as well.
fn open_browser(url: &str) {
    let opener = match cfg!(target_os = "macos") {
        true => "open",
        false => "xdg-open",
    };
    let url = url.to_string();
    // Waiting on the opener in a helper thread avoids a zombie without blocking the listener.
    std::thread::spawn(move || {
        let _ = Command::new(opener)
            .arg(url)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    });
}

fn print_stdout(text: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes()).and_then(|()| out.flush()).map_err(|e| Error::io("stdout", e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_escape_outside_text() {
        assert_eq!(escape("<b>&\"x\""), "&lt;b&gt;&amp;&quot;x&quot;");
    }
}
