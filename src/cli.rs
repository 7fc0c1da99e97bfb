//! Command-line parsing with lexopt into plain structs. Parsing only records what the user typed;
//! `main` resolves it against the environment and configuration.

use std::ffi::OsString;

use lexopt::prelude::*;

use crate::store::accounts::Account;
use crate::{Error, Result};

/// What the user asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// stdio server (no command, or `serve`), or HTTP with `--http`.
    Serve(ServeOpts),
    Setup(SetupOpts),
    Auth(AuthOpts),
    Doctor(DoctorOpts),
    Call(CallOpts),
    Tools,
    Chart(ChartOpts),
    Export(ExportOpts),
    /// `--help`, `help`, `help COMMAND`, `COMMAND --help`: the text to print.
    Help(&'static str),
    Version,
}

/// The parsed command line: the command plus global flags.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Args {
    pub command: Command,
    /// `--demo` anywhere on the line.
    pub demo: bool,
    /// `--account NAME` anywhere on the line (checked here, before anything touches the disk).
    pub account: Option<Account>,
}

/// The global flags, gathered wherever they appear.
#[derive(Debug, Default)]
struct Globals {
    demo: bool,
    account: Option<String>,
}

impl Globals {
    /// Takes the value of `--account` (one call per parser, not an inlined copy each: the static
    /// binary's size is counted).
    #[inline(never)]
    fn account(&mut self, p: &mut lexopt::Parser) -> Result<()> {
        self.account = Some(p.value()?.string()?);
        Ok(())
    }

    /// The parsed line; the account name is checked here, once: a bad one is a usage error.
    fn args(self, command: Command) -> Result<Args> {
        let account = match self.account {
            Some(name) => Some(Account::parse(&name).map_err(|e| Error::Usage(format!("--account: {e}")))?),
            None => None,
        };
        Ok(Args { command, demo: self.demo, account })
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ServeOpts {
    pub http: bool,
    pub host: Option<String>,
    pub port: Option<u16>,
    pub no_token: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SetupOpts {
    pub client: Option<String>,
    pub client_id: Option<String>,
    pub client_secret: Option<String>,
    /// Read the client secret from standard input (argv is visible to other users).
    pub client_secret_stdin: bool,
    pub redirect_uri: Option<String>,
    pub privacy_mode: Option<String>,
    pub non_interactive: bool,
    pub no_auth: bool,
    pub json: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AuthOpts {
    pub no_open: bool,
    pub json: bool,
    pub timeout_secs: Option<u64>,
    /// A pasted authorization code or the full redirect URL.
    pub code: Option<String>,
    /// The state of a pending sign-in, for a bare `--code`.
    pub state: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DoctorOpts {
    pub json: bool,
    pub strict: bool,
    pub client: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CallOpts {
    pub tool: String,
    /// The arguments as JSON text; `None` means `{}`.
    pub json: Option<String>,
    /// Print the markdown a person reads instead of `structuredContent`.
    pub markdown: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChartOpts {
    pub metric: String,
    /// A file, or `-` for stdout (also the default).
    pub out: Option<String>,
    /// `None`: from `out`'s extension, else SVG.
    pub format: Option<ChartFormat>,
    pub after: Option<String>,
    pub before: Option<String>,
    pub units: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExportOpts {
    /// The directory (default `./withings-export`).
    pub out: Option<String>,
    pub after: Option<String>,
    pub before: Option<String>,
    pub format: ExportFormat,
    /// `--only a,b`: the domains named, as typed (checked by the command).
    pub only: Option<Vec<String>>,
}

/// What `export` writes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ExportFormat {
    #[default]
    Csv,
    Jsonl,
}

impl ExportFormat {
    fn parse(s: &str) -> Result<ExportFormat> {
        match s {
            "csv" => Ok(ExportFormat::Csv),
            "jsonl" => Ok(ExportFormat::Jsonl),
            _ => Err(Error::Usage(format!("export: --format must be csv or jsonl, not `{s}`"))),
        }
    }

    /// The name, which is also the files' extension.
    pub fn name(self) -> &'static str {
        match self {
            ExportFormat::Csv => "csv",
            ExportFormat::Jsonl => "jsonl",
        }
    }
}

/// What `chart` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChartFormat {
    Svg,
    Png,
}

impl ChartFormat {
    fn parse(s: &str) -> Result<ChartFormat> {
        match s {
            "svg" => Ok(ChartFormat::Svg),
            "png" => Ok(ChartFormat::Png),
            _ => Err(Error::Usage(format!("chart: --format must be svg or png, not `{s}`"))),
        }
    }
}

impl ChartOpts {
    /// `--format`, else the extension of `--out` (`.png` means PNG), else SVG.
    pub fn format(&self) -> ChartFormat {
        let png_name = self.out.as_deref().is_some_and(|o| o.to_ascii_lowercase().ends_with(".png"));
        match self.format {
            Some(f) => f,
            None if png_name => ChartFormat::Png,
            None => ChartFormat::Svg,
        }
    }
}

/// Parses `std::env::args_os()`.
pub fn parse_env() -> Result<Args> {
    parse(lexopt::Parser::from_env())
}

/// Parses a list of arguments (without the program name), for tests.
pub fn parse_from<I, S>(args: I) -> Result<Args>
where
    I: IntoIterator<Item = S>,
    S: Into<OsString>,
{
    parse(lexopt::Parser::from_args(args))
}

fn parse(mut p: lexopt::Parser) -> Result<Args> {
    let mut g = Globals::default();
    let mut serve = ServeOpts::default();
    while let Some(arg) = p.next()? {
        match arg {
            Long("demo") => g.demo = true,
            Long("account") => g.account(&mut p)?,
            Short('h') | Long("help") => return g.args(Command::Help(HELP)),
            Short('V') | Long("version") => return g.args(Command::Version),
            Long("http") => serve.http = true,
            Long("host") => serve.host = Some(p.value()?.string()?),
            Long("port") => serve.port = Some(parse_port(&p.value()?.string()?)?),
            Long("no-token") => serve.no_token = true,
            Value(v) => {
                let name = v.string()?;
                let command = match name.as_str() {
                    "serve" => serve_opts(&mut p, &mut g, serve)?,
                    "setup" => setup(&mut p, &mut g)?,
                    "auth" => auth(&mut p, &mut g)?,
                    "doctor" | "status" => doctor(&mut p, &mut g)?,
                    "call" => call(&mut p, &mut g)?,
                    "tools" => simple(&mut p, &mut g, Command::Tools, TOOLS_HELP)?,
                    "chart" => chart(&mut p, &mut g)?,
                    "export" => export(&mut p, &mut g)?,
                    "help" => help_topic(&mut p)?,
                    "version" => simple(&mut p, &mut g, Command::Version, HELP)?,
                    other => {
                        return Err(Error::Usage(format!(
                            "unknown command `{other}`; run `withings-mcp --help` for the list"
                        )));
                    }
                };
                return g.args(command);
            }
            _ => return Err(arg.unexpected().into()),
        }
    }
    g.args(Command::Serve(serve))
}

fn serve_opts(p: &mut lexopt::Parser, g: &mut Globals, mut o: ServeOpts) -> Result<Command> {
    while let Some(arg) = p.next()? {
        match arg {
            Long("demo") => g.demo = true,
            Long("account") => g.account(p)?,
            Long("http") => o.http = true,
            Long("host") => o.host = Some(p.value()?.string()?),
            Long("port") => o.port = Some(parse_port(&p.value()?.string()?)?),
            Long("no-token") => o.no_token = true,
            Short('h') | Long("help") => return Ok(Command::Help(SERVE_HELP)),
            _ => return Err(arg.unexpected().into()),
        }
    }
    if !o.http && (o.host.is_some() || o.port.is_some() || o.no_token) {
        return Err(Error::Usage("--host, --port and --no-token only apply with --http".into()));
    }
    Ok(Command::Serve(o))
}

fn setup(p: &mut lexopt::Parser, g: &mut Globals) -> Result<Command> {
    let mut o = SetupOpts::default();
    while let Some(arg) = p.next()? {
        match arg {
            Long("demo") => g.demo = true,
            Long("account") => g.account(p)?,
            Long("client") => o.client = Some(p.value()?.string()?),
            Long("client-id") => o.client_id = Some(p.value()?.string()?),
            Long("client-secret") => o.client_secret = Some(p.value()?.string()?),
            Long("client-secret-stdin") => o.client_secret_stdin = true,
            Long("redirect-uri") => o.redirect_uri = Some(p.value()?.string()?),
            Long("privacy-mode") => o.privacy_mode = Some(p.value()?.string()?),
            Long("non-interactive") => o.non_interactive = true,
            Long("no-auth") => o.no_auth = true,
            Long("json") => o.json = true,
            Short('h') | Long("help") => return Ok(Command::Help(SETUP_HELP)),
            _ => return Err(arg.unexpected().into()),
        }
    }
    Ok(Command::Setup(o))
}

fn auth(p: &mut lexopt::Parser, g: &mut Globals) -> Result<Command> {
    let mut o = AuthOpts::default();
    while let Some(arg) = p.next()? {
        match arg {
            Long("demo") => g.demo = true,
            Long("account") => g.account(p)?,
            Long("no-open") => o.no_open = true,
            Long("json") => o.json = true,
            Long("timeout") => {
                let v = p.value()?.string()?;
                let secs = v.parse::<u64>().ok().filter(|s| (1..=86_400).contains(s));
                o.timeout_secs = Some(secs.ok_or_else(|| {
                    Error::Usage(format!("--timeout: expected seconds between 1 and 86400, got `{v}`"))
                })?);
            }
            Long("code") => o.code = Some(p.value()?.string()?),
            Long("state") => o.state = Some(p.value()?.string()?),
            Short('h') | Long("help") => return Ok(Command::Help(AUTH_HELP)),
            _ => return Err(arg.unexpected().into()),
        }
    }
    if o.state.is_some() && o.code.is_none() {
        return Err(Error::Usage("--state only applies with --code".into()));
    }
    Ok(Command::Auth(o))
}

fn doctor(p: &mut lexopt::Parser, g: &mut Globals) -> Result<Command> {
    let mut o = DoctorOpts::default();
    while let Some(arg) = p.next()? {
        match arg {
            Long("demo") => g.demo = true,
            Long("account") => g.account(p)?,
            Long("json") => o.json = true,
            Long("strict") => o.strict = true,
            Long("client") => o.client = Some(p.value()?.string()?),
            Short('h') | Long("help") => return Ok(Command::Help(DOCTOR_HELP)),
            _ => return Err(arg.unexpected().into()),
        }
    }
    Ok(Command::Doctor(o))
}

fn call(p: &mut lexopt::Parser, g: &mut Globals) -> Result<Command> {
    let mut o = CallOpts::default();
    let mut tool = None;
    while let Some(arg) = p.next()? {
        match arg {
            Long("demo") => g.demo = true,
            Long("account") => g.account(p)?,
            Long("json") => o.json = Some(p.value()?.string()?),
            Long("markdown") => o.markdown = true,
            Short('h') | Long("help") => return Ok(Command::Help(CALL_HELP)),
            Value(v) if tool.is_none() => tool = Some(v.string()?),
            _ => return Err(arg.unexpected().into()),
        }
    }
    o.tool = tool
        .ok_or_else(|| Error::Usage("call: missing TOOL; run `withings-mcp tools` for the names".into()))?;
    Ok(Command::Call(o))
}

fn chart(p: &mut lexopt::Parser, g: &mut Globals) -> Result<Command> {
    let mut o = ChartOpts::default();
    let mut metric = None;
    while let Some(arg) = p.next()? {
        match arg {
            Long("demo") => g.demo = true,
            Long("account") => g.account(p)?,
            Long("out") | Short('o') => o.out = Some(p.value()?.string()?),
            Long("format") => o.format = Some(ChartFormat::parse(&p.value()?.string()?)?),
            Long("after") => o.after = Some(p.value()?.string()?),
            Long("before") => o.before = Some(p.value()?.string()?),
            Long("units") => o.units = Some(p.value()?.string()?),
            Short('h') | Long("help") => return Ok(Command::Help(CHART_HELP)),
            Value(v) if metric.is_none() => metric = Some(v.string()?),
            _ => return Err(arg.unexpected().into()),
        }
    }
    o.metric = metric.ok_or_else(|| Error::Usage("chart: missing METRIC (e.g. weight)".into()))?;
    Ok(Command::Chart(o))
}

fn export(p: &mut lexopt::Parser, g: &mut Globals) -> Result<Command> {
    let mut o = ExportOpts::default();
    while let Some(arg) = p.next()? {
        match arg {
            Long("demo") => g.demo = true,
            Long("account") => g.account(p)?,
            Long("out") | Short('o') => o.out = Some(p.value()?.string()?),
            Long("after") => o.after = Some(p.value()?.string()?),
            Long("before") => o.before = Some(p.value()?.string()?),
            Long("format") => o.format = ExportFormat::parse(&p.value()?.string()?)?,
            Long("only") => {
                let list = p.value()?.string()?;
                let names: Vec<String> =
                    list.split(',').map(str::trim).filter(|s| !s.is_empty()).map(str::to_string).collect();
                if names.is_empty() {
                    return Err(Error::Usage("export: --only needs at least one domain".into()));
                }
                o.only.get_or_insert_with(Vec::new).extend(names);
            }
            Short('h') | Long("help") => return Ok(Command::Help(EXPORT_HELP)),
            _ => return Err(arg.unexpected().into()),
        }
    }
    Ok(Command::Export(o))
}

fn simple(p: &mut lexopt::Parser, g: &mut Globals, command: Command, help: &'static str) -> Result<Command> {
    while let Some(arg) = p.next()? {
        match arg {
            Long("demo") => g.demo = true,
            Long("account") => g.account(p)?,
            Short('h') | Long("help") => return Ok(Command::Help(help)),
            _ => return Err(arg.unexpected().into()),
        }
    }
    Ok(command)
}

fn help_topic(p: &mut lexopt::Parser) -> Result<Command> {
    let topic = match p.next()? {
        Some(Value(v)) => v.string()?,
        Some(other) => return Err(other.unexpected().into()),
        None => return Ok(Command::Help(HELP)),
    };
    let text = match topic.as_str() {
        "serve" => SERVE_HELP,
        "setup" => SETUP_HELP,
        "auth" => AUTH_HELP,
        "doctor" | "status" => DOCTOR_HELP,
        "call" => CALL_HELP,
        "tools" => TOOLS_HELP,
        "chart" => CHART_HELP,
        "export" => EXPORT_HELP,
        "help" => HELP,
        other => return Err(Error::Usage(format!("help: unknown command `{other}`"))),
    };
    Ok(Command::Help(text))
}

fn parse_port(s: &str) -> Result<u16> {
    s.parse::<u16>().map_err(|_| Error::Usage(format!("--port: expected a port number 0-65535, got `{s}`")))
}

pub const HELP: &str = "\
withings-mcp — your own Withings data for AI agents, over MCP or from the shell

Usage: withings-mcp [--demo] [--account NAME] [COMMAND] [OPTIONS]

Commands:
  (none), serve        stdio MCP server (newline-delimited JSON-RPC); `--http` for loopback HTTP
  setup                write ~/.withings-mcp/config.json, wire an MCP client, then authorize
  auth                 connect your Withings account (OAuth, local callback or pasted code)
  doctor               local readiness checks, no network (alias: status)
  call TOOL            run one tool as tools/call would; prints its structuredContent JSON
  tools                list the tool names, one a line
  chart METRIC         write a trend chart as SVG or PNG
  export               write your data as files you keep: one CSV (or JSON lines) file per domain
  help [COMMAND]       this text, or a command's

Global options:
  --demo               use the built-in synthetic Withings account (no credentials, no network)
  --account NAME       whose data: `default`, or a person added with `auth --account NAME`
                       (also WITHINGS_ACCOUNT; lowercase letters, digits, `_`, `-`; at most 32)
  -h, --help           print help
  -V, --version        print the version

Exit codes: 0 success, 1 runtime/API/auth failure or a tool error, 2 usage error.
Configuration: WITHINGS_* environment variables, then ~/.withings-mcp/config.json (see README).
";

pub const SERVE_HELP: &str = "\
Usage: withings-mcp serve [--http [--host H] [--port P] [--no-token]] [--demo]

Serves MCP. Without --http: stdio, one JSON-RPC message per line; exits 0 on stdin EOF.
With --http: stateless Streamable HTTP on a loopback address (POST /mcp, GET /health).
POST /mcp needs `Authorization: Bearer <token>`: WITHINGS_MCP_HTTP_TOKEN, else the token in
~/.withings-mcp/http-token, made on first start and shown once on stderr.

Options:
  --http               serve HTTP instead of stdio (also WITHINGS_MCP_TRANSPORT=http)
  --host H             loopback host to bind (default 127.0.0.1; WITHINGS_MCP_HOST); others are refused
  --port P             port (default 3000; WITHINGS_MCP_PORT; 0 picks a free port)
  --no-token           no bearer token: any local user or program can then read your data
";

pub const SETUP_HELP: &str = "\
Usage: withings-mcp setup [OPTIONS]

Writes ~/.withings-mcp/config.json (directory 0700, file 0600, atomic), optionally wires an MCP
client, then runs `auth` unless --no-auth. Interactive when stdin is a terminal. With
--client generic it only prints the entry to paste; with --demo it only wires the client to the
demo account. Neither writes a configuration or signs in.

With --account NAME, the client entry is `withings-NAME` (it passes --account NAME) and the
sign-in is that person's; the `withings` entry of the default account stays as it is.

Options:
  --client C             claude, cursor, hermes or generic: merge a `withings` server entry
  --client-id X          your Withings app's client id
  --client-secret-stdin  read your app's client secret from standard input (first line)
  --client-secret X      the secret on the command line, which other users can read (ps) while
                         setup runs; prefer --client-secret-stdin, WITHINGS_CLIENT_SECRET or the prompt
  --redirect-uri URL     the callback registered with your app (default http://127.0.0.1:3000/callback)
  --privacy-mode M       summary, structured (default) or raw
  --non-interactive      never prompt; take values from flags, stdin and the environment
  --no-auth              do not run `auth` afterwards
  --json                 print the result as one JSON object
";

pub const AUTH_HELP: &str = "\
Usage: withings-mcp [--account NAME] auth [--no-open] [--json] [--timeout SECS]
                                           [--code REDIRECT_URL [--state S]]

Connects a Withings account: yours (account `default`), or with --account NAME another person's
on this install (a Withings user already connected under another name is refused). Opens the authorization page and waits (one-shot) for the
callback on the redirect URI's loopback host and port; exchanges the code at once. The sign-in
stays pending for 15 minutes, so that its redirect can also be pasted with --code, here or in
another process (the way to sign in from a headless host); it signs in the account it was
started for.

Options:
  --no-open            do not open a browser; print the authorization URL alone on stderr
  --json               print the final result as one JSON object on stdout
  --timeout SECS       how long to wait for the callback (default 300; WITHINGS_AUTH_TIMEOUT)
  --code REDIRECT_URL  exchange the whole redirect URL (…?code=…&state=…) of a pending sign-in
  --state S            with a bare code instead of the URL: the state of that pending sign-in
";

pub const DOCTOR_HELP: &str = "\
Usage: withings-mcp doctor [--json] [--strict] [--client C]

Local readiness checks (configuration, file permissions, tokens, scopes) of the account served
(--account), and of every account on this install; no network.

Options:
  --json               one JSON object with `ready` and a list of checks with stable ids
  --strict             exit 1 when not ready
  --client C           also check that client's MCP wiring (claude, cursor, hermes, generic)
";

pub const CALL_HELP: &str = "\
Usage: withings-mcp call TOOL [--json '{...}'] [--markdown] [--demo]

Runs one tool exactly as MCP tools/call would (same validation and defaults) and prints its
structuredContent as JSON on stdout. Exit 1 when the result is an error, 2 on bad usage.

Options:
  --json '{...}'       the tool's arguments (default {})
  --markdown           print the markdown rendering a person reads instead of the JSON

Example: withings-mcp --demo call withings_list_body_measures --json '{\"limit\":5}'
";

pub const TOOLS_HELP: &str = "\
Usage: withings-mcp tools

Prints the tool names, one a line.
";

pub const CHART_HELP: &str = "\
Usage: withings-mcp chart METRIC [--format svg|png] [--out FILE|-] [--after D] [--before D]
                             [--units U] [--demo]

Draws METRIC (weight, fat_ratio, fat_mass, muscle_mass, resting_hr, systolic, diastolic,
sleep_duration, sleep_score, steps, hrv, spo2): readings as points, the trend line and its
noise band.
  --format svg|png   default: from FILE's extension (.png), else svg
  --out FILE|-       a file (written 0600, atomically; never through a symbolic link), or
                     stdout for `-` (the default)
  --after, --before  YYYY-MM-DD or ISO 8601 (default: the last 90 days; 30 for hrv, spo2)
  --units U          metric, imperial or uk
";

pub const EXPORT_HELP: &str = "\
Usage: withings-mcp export [--out DIR] [--after D] [--before D] [--format csv|jsonl]
                              [--only a,b] [--demo]

Writes one file per domain into DIR: measures, heart, activity, workouts, sleep_summary,
sleep (stage-by-stage detail) and intraday (samples through the day). Files are 0600 (DIR is created 0700) and replace the previous
export only once every file is complete: a run that fails leaves the old ones as they were.
Requests are paced under Withings' limit (100 a minute); progress goes to stderr, and one JSON
summary (each file's path and record count) to stdout.
  --out DIR          default ./withings-export (./withings-export-NAME for --account NAME)
  --after, --before  YYYY-MM-DD or ISO 8601 (default: from each domain's first record to now;
                     intraday from the first day of activity, a request a day)
  --format F         csv (a header row, ISO 8601 local times, SI units in column names) or
                     jsonl (the records the list tools return, one a line); default csv
  --only a,b         only these domains
";

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(args: &[&str]) -> Args {
        parse_from(args.iter().copied()).unwrap()
    }

    #[test]
    fn commands_and_global_demo_parse() {
        assert_eq!(ok(&[]).command, Command::Serve(ServeOpts::default()));
        assert!(matches!(
            ok(&["--http", "--port", "0"]).command,
            Command::Serve(ServeOpts { http: true, port: Some(0), .. })
        ));
        assert!(matches!(
            ok(&["serve", "--http", "--host", "::1"]).command,
            Command::Serve(ServeOpts { http: true, .. })
        ));
        assert!(matches!(
            ok(&["--http", "--no-token"]).command,
            Command::Serve(ServeOpts { http: true, no_token: true, .. })
        ));
        let a = ok(&["--demo", "call", "withings_capabilities"]);
        assert!(a.demo);
        let b = ok(&["call", "withings_capabilities", "--demo", "--json", "{}"]);
        assert!(b.demo);
        assert_eq!(
            b.command,
            Command::Call(CallOpts {
                tool: "withings_capabilities".into(),
                json: Some("{}".into()),
                markdown: false
            })
        );
        assert_eq!(ok(&["tools"]).command, Command::Tools);
        assert_eq!(ok(&["--version"]).command, Command::Version);
        assert_eq!(
            ok(&["status", "--json"]).command,
            Command::Doctor(DoctorOpts { json: true, ..Default::default() })
        );
        assert!(matches!(
            ok(&["auth", "--timeout", "5", "--no-open"]).command,
            Command::Auth(AuthOpts { timeout_secs: Some(5), no_open: true, .. })
        ));
        assert!(matches!(
            ok(&["chart", "weight", "--out", "w.svg"]).command,
            Command::Chart(ChartOpts { .. })
        ));
        let e =
            ok(&["export", "--only", "sleep, heart", "--format", "jsonl", "--only", "measures", "--demo"]);
        assert!(e.demo);
        assert_eq!(
            e.command,
            Command::Export(ExportOpts {
                format: ExportFormat::Jsonl,
                only: Some(vec!["sleep".into(), "heart".into(), "measures".into()]),
                ..Default::default()
            })
        );
    }

    #[test]
    fn every_command_has_help() {
        for cmd in ["setup", "auth", "doctor", "call", "tools", "chart", "export"] {
            assert!(matches!(ok(&[cmd, "--help"]).command, Command::Help(_)), "{cmd}");
            assert!(matches!(ok(&["help", cmd]).command, Command::Help(_)), "{cmd}");
        }
        assert_eq!(ok(&["serve", "--help"]).command, Command::Help(SERVE_HELP));
        assert_eq!(ok(&["help", "help"]).command, Command::Help(HELP));
    }

    #[test]
    fn usage_errors_exit_2() {
        let cases: &[&[&str]] = &[
            &["bogus"],
            &["--bogus"],
            &["call"],
            &["call", "a", "b"],
            &["auth", "--timeout", "x"],
            &["auth", "--state", "s"],
            &["--port", "99999"],
            &["serve", "--port", "3000"],
            &["serve", "--no-token"],
            &["doctor", "--client"],
            &["chart"],
            &["export", "--format", "xml"],
            &["export", "--only", ","],
            &["export", "stray"],
            &["export", "--out"],
            &["help", "nope"],
        ];
        for args in cases {
            let err = parse_from(args.iter().copied()).unwrap_err();
            assert_eq!(err.exit_code(), 2, "{args:?}: {err}");
        }
    }
}
