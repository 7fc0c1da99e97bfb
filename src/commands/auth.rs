//! `withings-mcp auth`.

use crate::Result;
use crate::cli::AuthOpts;
use crate::tools::Ctx;

/// Runs the command and returns the exit code.
pub fn run(_ctx: &Ctx, _opts: &AuthOpts) -> Result<u8> {
    Err(crate::tools::not_yet("`auth`"))
}
