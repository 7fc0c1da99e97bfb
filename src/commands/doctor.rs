//! `withings-mcp doctor`.

use crate::Result;
use crate::cli::DoctorOpts;
use crate::tools::Ctx;

/// Runs the command and returns the exit code.
pub fn run(_ctx: &Ctx, _opts: &DoctorOpts) -> Result<u8> {
    Err(crate::tools::not_yet("`doctor`"))
}
