//! Transports: newline-delimited JSON-RPC on stdio, and loopback Streamable HTTP.
//!
//! HTTP mode by job: `http` (listener and connection threads), `conns` (the connection cap),
//! `read` (a request off the socket), `head` (request-head parsing), `route` (checks on the
//! head), `handle` (the body). `callback` reads `auth`'s OAuth callback with the same reader.

pub mod callback;
mod conns;
pub mod handle;
pub mod head;
pub mod http;
pub mod read;
pub mod route;
pub mod stdio;

use crate::Result;
use crate::mcp::dispatch::Engine;
use crate::store::config::{Config, Transport};
use crate::tools::Ctx;

/// What the command line asks of the server; the rest comes from the environment and config.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// `--http`; otherwise `WITHINGS_MCP_TRANSPORT` decides.
    pub http: bool,
    pub host: Option<String>,
    pub port: Option<u16>,
    /// `--no-token`: HTTP mode without the bearer token (it says so on stderr).
    pub no_token: bool,
}

/// Runs the server mode chosen by flags and `WITHINGS_MCP_TRANSPORT` (environment, then config
/// file). A config file that cannot be read does not stop the server: the environment decides
/// then, and the tools report the file's problem.
pub fn run(ctx: &Ctx, opts: &Options) -> Result<u8> {
    let cfg = ctx.config().unwrap_or_else(|_| Config::from_env_only(&ctx.env));
    let http = opts.http || cfg.transport()? == Transport::Http;
    match http {
        true => http::run(ctx, opts, &cfg).map(|()| 0),
        false => {
            let mut engine = Engine::stdio(ctx.clone());
            let mut stdin = std::io::BufReader::with_capacity(64 * 1024, std::io::stdin());
            stdio::serve(&mut engine, &mut stdin, std::io::stdout().lock()).map(|()| 0)
        }
    }
}
