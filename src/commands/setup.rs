//! `withings-mcp setup`.

use crate::Result;
use crate::cli::SetupOpts;
use crate::tools::Ctx;

/// Runs the command and returns the exit code.
pub fn run(_ctx: &Ctx, _opts: &SetupOpts) -> Result<u8> {
    Err(crate::tools::not_yet("`setup`"))
}
