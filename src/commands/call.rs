//! `withings-mcp call TOOL --json '{…}'` and `withings-mcp tools`.
//!
//! `call` goes through `tools::run`, the same validation and defaults as MCP `tools/call`.

use std::io::Write;

use serde_json::Value;

use crate::cli::CallOpts;
use crate::mcp::dispatch;
use crate::tools::{self, Ctx};
use crate::value::Json;
use crate::{Error, Result};

/// Runs one tool and prints its `structuredContent` as JSON. On a tool error, prints
/// `{"error": {kind, message, argument?}}` on stdout, the message on stderr, and returns 1.
pub fn run(ctx: &Ctx, opts: &CallOpts) -> Result<u8> {
    let Some(tool) = tools::find(&opts.tool) else {
        return Err(Error::boxed(Error::Usage(format!(
            "unknown tool `{}`; run `withings-mcp tools` for the names",
            opts.tool
        ))));
    };
    let args: Value = match &opts.json {
        None => Value::Object(Default::default()),
        Some(text) => {
            serde_json::from_str(text).map_err(|e| Error::Usage(format!("--json: not valid JSON: {e}")))?
        }
    };
    // One command, one call: the deadline counts from here.
    let ctx = &ctx.begin_call(None);
    let (value, code) = match tools::run(ctx, tool, &args) {
        Ok(out) if opts.markdown => {
            let text = match ctx.demo() {
                true => format!("{}\n\n{}", tools::DEMO_NOTE, out.markdown.trim_end()),
                false => out.markdown.trim_end().to_string(),
            };
            print_line(&text)?;
            return Ok(0);
        }
        Ok(out) => (dispatch::with_demo_flag(ctx, out.structured), 0),
        Err(e) => {
            eprintln!("withings-mcp: {e}");
            (Json::Tree(dispatch::error_json(&e)), 1)
        }
    };
    // Written as it is made: the pretty text of a long answer is never whole in memory.
    let mut out = std::io::stdout().lock();
    value
        .write_pretty(&mut out)
        .and_then(|()| out.write_all(b"\n"))
        .and_then(|()| out.flush())
        .map_err(|e| Error::io("stdout", e))?;
    // The process ends next, and the system takes its memory back at once: freeing a tree node
    // by node (a long answer's can be 100,000 allocations) would only delay the exit a shell or
    // cron job waits for.
    std::mem::forget(value);
    Ok(code)
}

/// Prints the tool names, one a line.
pub fn list_tools(_ctx: &Ctx) -> Result<u8> {
    let names: Vec<&str> = tools::all().iter().map(|t| t.name).collect();
    match names.is_empty() {
        true => Ok(0),
        false => print_line(&names.join("\n")).map(|()| 0),
    }
}

fn print_line(text: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.write_all(b"\n"))
        .and_then(|()| out.flush())
        .map_err(|e| Error::io("stdout", e))
}
