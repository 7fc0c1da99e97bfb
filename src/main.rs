//! The `withings-mcp` binary: parse the command line, run one mode, map errors to exit codes.
#![forbid(unsafe_code)]

use std::io::Write;
use std::process::ExitCode;

use withings_mcp::cli::{self, Command};
use withings_mcp::commands;
use withings_mcp::server;
use withings_mcp::store::config::{ACCOUNT_VAR, Env};
use withings_mcp::tools::Ctx;
use withings_mcp::{Error, Result, VERSION};

fn main() -> ExitCode {
    match run() {
        Ok(code) => ExitCode::from(code),
        // `withings-mcp call … | head` closes the pipe early; that is not a failure.
        Err(e) if e.is_broken_pipe() => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("withings-mcp: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}

fn run() -> Result<u8> {
    let args = cli::parse_env()?;
    let mut env = Env::from_process();
    if args.demo {
        env.set("WITHINGS_DEMO", "1");
    }
    if let Some(a) = &args.account {
        env.set(ACCOUNT_VAR, a.name());
    }
    // A bad WITHINGS_ACCOUNT is a usage error before any mode starts or any file is read.
    env.account()?;
    let ctx = Ctx::from_env(env);
    match args.command {
        Command::Help(topic) => print(&topic.text()),
        Command::Version => print(&format!("withings-mcp {VERSION}\n")),
        Command::Serve(o) => {
            let opts = server::Options { http: o.http, host: o.host, port: o.port, no_token: o.no_token };
            server::run(&ctx, &opts)
        }
        Command::Setup(o) => commands::setup::run(&ctx, &o),
        Command::Auth(o) => commands::auth::run(&ctx, &o),
        Command::Doctor(o) => commands::doctor::run(&ctx, &o),
        Command::Call(o) => commands::call::run(&ctx, &o),
        Command::Tools => commands::call::list_tools(&ctx),
        Command::Chart(o) => commands::chart::run(&ctx, &o),
        Command::Export(o) => commands::export::run(&ctx, &o),
    }
}

fn print(text: &str) -> Result<u8> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes()).and_then(|()| out.flush()).map_err(|e| Error::io("stdout", e))?;
    Ok(0)
}
