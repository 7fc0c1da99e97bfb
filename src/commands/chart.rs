//! `withings-mcp chart`.

use crate::Result;
use crate::cli::ChartOpts;
use crate::tools::Ctx;

/// Runs the command and returns the exit code.
pub fn run(_ctx: &Ctx, _opts: &ChartOpts) -> Result<u8> {
    Err(crate::tools::not_yet("`chart`"))
}
