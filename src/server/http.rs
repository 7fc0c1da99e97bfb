//! Loopback Streamable HTTP (filled by the HTTP change).

use crate::Result;
use crate::cli::ServeOpts;
use crate::tools::Ctx;

/// Serves MCP over HTTP on a loopback address until interrupted.
pub fn run(_ctx: &Ctx, _opts: &ServeOpts) -> Result<()> {
    Err(crate::tools::not_yet("HTTP mode"))
}
