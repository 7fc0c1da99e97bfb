//! Transports: newline-delimited JSON-RPC on stdio, and loopback Streamable HTTP.

pub mod http;
pub mod stdio;

use crate::Result;
use crate::cli::ServeOpts;
use crate::tools::Ctx;

/// Runs the server mode chosen by flags and `WITHINGS_MCP_TRANSPORT`.
pub fn run(_ctx: &Ctx, _opts: &ServeOpts) -> Result<u8> {
    Err(crate::tools::not_yet("serving"))
}
