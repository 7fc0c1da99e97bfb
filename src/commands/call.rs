//! `withings-mcp call TOOL --json '{…}'` and `withings-mcp tools`.

use crate::Result;
use crate::cli::CallOpts;
use crate::tools::Ctx;

/// Runs one tool as `tools/call` would and prints its `structuredContent`.
pub fn run(_ctx: &Ctx, _opts: &CallOpts) -> Result<u8> {
    Err(crate::tools::not_yet("`call`"))
}

/// Prints the tool names, one a line.
pub fn list_tools(_ctx: &Ctx) -> Result<u8> {
    Ok(0)
}
