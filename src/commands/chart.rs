//! `withings-mcp chart METRIC [--out FILE.svg] [--after D] [--before D] [--units U]`: the same
//! analysis and SVG as the `withings_chart` tool, written to a file or stdout.

use std::io::Write;

use serde_json::{Map, Value};

use crate::cli::ChartOpts;
use crate::tools::{Ctx, trends};
use crate::{Error, Result};

/// Runs the command and returns the exit code.
pub fn run(ctx: &Ctx, opts: &ChartOpts) -> Result<u8> {
    let mut args = Map::new();
    args.insert("metric".into(), Value::String(opts.metric.clone()));
    for (key, value) in [("after", &opts.after), ("before", &opts.before), ("units", &opts.units)] {
        if let Some(v) = value {
            args.insert(key.into(), Value::String(v.clone()));
        }
    }
    let svg = trends::chart_for_command(ctx, &args)?;
    match &opts.out {
        // The one place where health data reaches the disk: only because the user asked for a file.
        Some(path) => {
            std::fs::write(path, svg.as_bytes()).map_err(|e| Error::io(path.clone(), e))?;
            eprintln!("withings-mcp: wrote {path}");
        }
        None => {
            let mut out = std::io::stdout().lock();
            out.write_all(svg.as_bytes()).and_then(|()| out.flush()).map_err(|e| Error::io("stdout", e))?;
        }
    }
    Ok(0)
}
