//! `withings-mcp auth`: sign in to Withings and store the tokens.
//!
//! With `--code`, exchanges a pasted code or redirect URL. Otherwise listens once on the redirect
//! URI's loopback address, waiting on the main thread with `recv_timeout`: requests to other
//! paths get 404, a callback with the wrong `state` gets 400 and is ignored (we keep waiting),
//! the right one is exchanged at once (codes live 30 s) and answered with a result page.

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::cli::AuthOpts;
use crate::store::config::{Config, Key};
use crate::store::tokens::{self, Tokens};
use crate::tools::Ctx;
use crate::withings::client::Client;
use crate::withings::oauth;
use crate::{Error, Result};

/// Runs the command and returns the exit code.
pub fn run(ctx: &Ctx, opts: &AuthOpts) -> Result<u8> {
    let result = connect(ctx, opts);
    match (opts.json, result) {
        (true, Ok(v)) => print_stdout(&format!("{v}\n")).map(|()| 0),
        (false, Ok(v)) => {
            let text = format!(
                "✓ Withings connected\n  tokens: {} (private)\n  scopes: {}\n",
                v["token_path"].as_str().unwrap_or_default(),
                v["scope"].as_str().filter(|s| !s.is_empty()).unwrap_or("unknown")
            );
            print_stdout(&text).map(|()| 0)
        }
        (true, Err(e)) => {
            print_stdout(&format!("{}\n", json!({"ok": false, "error": e.to_string()})))?;
            Err(e)
        }
        (false, Err(e)) => Err(e),
    }
}

/// Signs in and returns the result object (`ok`, `token_path`, `scope`, `expires_at`,
/// `next_step`); never a token. `setup` embeds it in its own result.
pub fn connect(ctx: &Ctx, opts: &AuthOpts) -> Result<Value> {
    if ctx.demo() {
        return Err(Error::Unavailable("demo mode needs no sign-in; run `auth` without --demo".into()));
    }
    let started = Instant::now();
    let cfg = ctx.config()?;
    cfg.require(Key::ClientId)?;
    cfg.require(Key::ClientSecret)?;
    let token_path = cfg.token_path(&ctx.env)?;
    if let Some(input) = &opts.code {
        let expected = tokens::pending_state(&token_path, ctx.now);
        let cb = oauth::parse_code_or_url(input, expected.as_deref())?;
        let t = exchange(ctx, &cfg, started, &cb.code)?;
        return Ok(result(&token_path.display().to_string(), &t));
    }
    let redirect = cfg.redirect_uri().to_string();
    let state = oauth::new_state()?;
    let url =
        oauth::authorize_url(cfg.account_url(), cfg.require(Key::ClientId)?, cfg.scopes(), &redirect, &state);
    let lb = match oauth::loopback(&redirect) {
        Ok(lb) => lb,
        Err(e) => {
            // The user can still approve in a browser and paste the redirect URL with --code.
            tokens::save_pending_state(&token_path, &state, ctx.now)?;
            eprintln!("Open this URL, approve access, then run `withings-mcp auth --code '<redirect URL>'`:");
            eprintln!("{url}");
            return Err(e);
        }
    };
    let server = tiny_http::Server::http(&lb.bind).map_err(|e| {
        Error::Config(format!(
            "cannot listen on {} for the OAuth callback ({e}); free the port or change WITHINGS_REDIRECT_URI",
            lb.bind
        ))
    })?;
    let timeout =
        opts.timeout_secs.or_else(|| cfg.get(Key::AuthTimeout).and_then(|s| s.parse().ok())).unwrap_or(300);
    match opts.no_open {
        true => eprintln!("Open this URL in a browser and approve access:"),
        false => {
            eprintln!("Opening your browser; if it does not open, visit this URL:");
            open_browser(&url);
        }
    }
    eprintln!("{url}");
    eprintln!("Waiting up to {timeout} s for the callback on http://{}{} …", lb.bind, lb.path);
    let deadline = started + Duration::from_secs(timeout);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(Error::NeedsAuth(format!(
                "timed out after {timeout} s waiting for the Withings callback"
            )));
        }
        let request = match server.recv_timeout(left) {
            Ok(Some(r)) => r,
            Ok(None) => continue,
            Err(e) => return Err(Error::io("OAuth callback listener", e)),
        };
        let full = request.url().to_string();
        let (path, query) = full.split_once('?').unwrap_or((full.as_str(), ""));
        if path != lb.path {
            respond(request, 404, "Not found", "This is the withings-mcp sign-in listener.");
            continue;
        }
        match oauth::callback_from_query(query, Some(&state)) {
            Ok(cb) => {
                return match exchange(ctx, &cfg, started, &cb.code) {
                    Ok(t) => {
                        respond(
                            request,
                            200,
                            "Withings connected",
                            "You can close this tab and return to the terminal.",
                        );
                        Ok(result(&token_path.display().to_string(), &t))
                    }
                    Err(e) => {
                        respond(request, 400, "Sign-in failed", &e.to_string());
                        Err(e)
                    }
                };
            }
            Err(e @ Error::NeedsAuth(_)) => {
                respond(request, 400, "Sign-in failed", &e.to_string());
                return Err(e);
            }
            Err(e) => {
                // A stray or forged request (wrong state, no code): refuse it and keep waiting for
                // the real callback.
                eprintln!("ignored a callback request: {e}");
                respond(
                    request,
                    400,
                    "Request refused",
                    &format!("{e}. Still waiting for the real sign-in."),
                );
            }
        }
    }
}

/// Exchanges a code with a clock advanced by the time spent waiting.
fn exchange(ctx: &Ctx, cfg: &Config, started: Instant, code: &str) -> Result<Tokens> {
    let now = ctx.now + i64::try_from(started.elapsed().as_secs()).unwrap_or(0);
    let mut client = Client::http(&ctx.env, cfg, now)?;
    let t = client.exchange_code(code)?;
    let _ = tokens::clear_pending_state(client.token_path());
    Ok(t)
}

fn result(token_path: &str, t: &Tokens) -> Value {
    json!({"ok": true, "token_path": token_path, "scope": t.scope, "expires_at": t.expires_at,
        "next_step": "Connected: try `withings-mcp call withings_daily_summary`."})
}

fn respond(request: tiny_http::Request, code: u16, title: &str, message: &str) {
    let html = format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>{t}</title></head>\
         <body style=\"font-family:sans-serif;max-width:40em;margin:4em auto\"><h1>{t}</h1><p>{m}</p></body></html>",
        t = escape(title),
        m = escape(message)
    );
    let header = tiny_http::Header::from_bytes(&b"Content-Type"[..], &b"text/html; charset=utf-8"[..]);
    let mut response = tiny_http::Response::from_string(html).with_status_code(code);
    if let Ok(h) = header {
        response = response.with_header(h);
    }
    // The browser may have gone away; nothing useful to do about it.
    let _ = request.respond(response);
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
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
