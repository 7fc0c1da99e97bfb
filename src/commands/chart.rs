//! `withings-mcp chart METRIC [--format svg|png] [--out FILE|-] [--after D] [--before D]
//! [--units U]`: the same analysis and picture as the `withings_chart` tool, as SVG or PNG, to
//! a file (0600, atomic, never through a symlink) or stdout.

use std::io::Write;
use std::path::Path;

use serde_json::{Map, Value};

use crate::cli::{ChartFormat, ChartOpts};
use crate::domain::chart;
use crate::store::fsutil::{self, WriteOptions};
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
    // A bad metric, date or unit system is a mistake on the command line: exit 2.
    let spec = trends::chart_for_command(&ctx.begin_call(None), &args).map_err(|e| match *e {
        Error::InvalidArgument { .. } => Error::boxed(Error::Usage(format!("chart: {e}"))),
        _ => e,
    })?;
    let bytes = match opts.format() {
        ChartFormat::Svg => chart::svg::render(&spec).into_bytes(),
        ChartFormat::Png => chart::raster::render_png(&spec),
    };
    match opts.out.as_deref() {
        None | Some("-") => {
            let mut out = std::io::stdout().lock();
            out.write_all(&bytes).and_then(|()| out.flush()).map_err(|e| Error::io("stdout", e))?;
        }
        // The one place where health data reaches the disk: only because the user asked for a file.
        Some(path) => {
            let private_no_link = WriteOptions { mode: 0o600, refuse_symlink: true };
            fsutil::write_atomic_with(Path::new(path), &bytes, private_no_link)?;
            // Success, so not in the `withings-mcp: …` form of an error; stdout stays the picture's.
            eprintln!("wrote {path}");
        }
    }
    Ok(0)
}
