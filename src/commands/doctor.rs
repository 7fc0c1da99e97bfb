//! `withings-mcp doctor`: local readiness checks of the account served, and of every account
//! (the `accounts` check); no network. `--json` prints `{"ready": bool, "account": NAME,
//! "checks": [{"id", "ok", "detail"}], "next_steps": [...], "accounts": [...]}` with stable ids;
//! the exit code is 0 unless `--strict` and not ready.

use std::fmt::Write as _;
use std::io::Write;

use serde_json::Value;

use crate::cli::DoctorOpts;
use crate::commands::clients::{self, ClientKind, Os};
use crate::tools::Ctx;
use crate::tools::readiness::{Check, next_steps, readiness};
use crate::value::json;
use crate::{Error, Result};

/// Runs the command and returns the exit code.
pub fn run(ctx: &Ctx, opts: &DoctorOpts) -> Result<u8> {
    let kind = match &opts.client {
        Some(c) => Some(c.parse::<ClientKind>()?),
        None => None,
    };
    let (mut ready, mut checks) = readiness(&ctx.env, ctx.now);
    if let Some(kind) = kind {
        let exe = std::env::current_exe().map_err(|e| Error::io("locating this binary", e))?;
        let exe = exe.canonicalize().unwrap_or(exe);
        let entry = clients::entry_name(&ctx.env.account()?);
        let w = clients::check(&ctx.env.home()?, Os::current(), kind, &exe, &entry);
        let where_ = w.path.map(|p| format!(" ({})", p.display())).unwrap_or_default();
        checks.push(Check {
            id: "client_wiring",
            ok: w.ok,
            detail: format!("{}: {}{where_}", kind.name(), w.detail),
        });
        ready &= w.ok;
    }
    let steps = next_steps(ready, &checks, &ctx.env.account()?);
    let text = match opts.json {
        true => {
            let list: Vec<Value> =
                checks.iter().map(|c| json!({"id": c.id, "ok": c.ok, "detail": c.detail})).collect();
            // Every account, as withings_accounts lists them (a broken install is already a check).
            let accounts = crate::tools::accounts::states(&ctx.env, ctx.now).unwrap_or_default();
            let v = json!({"ready": ready, "demo": ctx.demo(), "account": ctx.env.account()?.name(),
                "checks": list, "next_steps": steps, "accounts": accounts});
            format!("{}\n", crate::value::text(&v))
        }
        false => {
            let mut s = String::from("withings-mcp doctor\n");
            for c in &checks {
                let _ = writeln!(s, "  {} {:<17} {}", if c.ok { "✓" } else { "✗" }, c.id, c.detail);
            }
            s.push_str(match (ready, ctx.demo()) {
                (true, true) => "Ready (demo mode).\n",
                (true, false) => "Ready.\n",
                (false, _) => "Not ready.\n",
            });
            for step in &steps {
                let _ = writeln!(s, "  → {step}");
            }
            s
        }
    };
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes()).and_then(|()| out.flush()).map_err(|e| Error::io("stdout", e))?;
    Ok(match (opts.strict, ready) {
        (true, false) => 1,
        _ => 0,
    })
}
