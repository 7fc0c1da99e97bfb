//! Transports: newline-delimited JSON-RPC on stdio, and loopback Streamable HTTP.

pub mod http;
pub mod stdio;

use crate::Result;
use crate::cli::ServeOpts;
use crate::mcp::dispatch::Engine;
use crate::store::config::{Config, Transport};
use crate::tools::Ctx;

/// Runs the server mode chosen by flags and `WITHINGS_MCP_TRANSPORT` (environment, then config
/// file). A config file that cannot be read does not stop the server: the environment decides
/// then, and the tools report the file's problem.
pub fn run(ctx: &Ctx, opts: &ServeOpts) -> Result<u8> {
    let cfg = ctx.config().unwrap_or_else(|_| Config::from_env_only(&ctx.env));
    let http = opts.http || cfg.transport()? == Transport::Http;
    match http {
        true => http::run(ctx, opts, &cfg).map(|()| 0),
        false => {
            let mut engine = Engine::stdio(ctx.clone());
            let mut stdin = std::io::BufReader::with_capacity(64 * 1024, std::io::stdin());
            let stdout = std::io::stdout();
            stdio::serve(&mut engine, &mut stdin, &mut stdout.lock()).map(|()| 0)
        }
    }
}
