//! Command-line parsing with lexopt into plain structs. Parsing only records what the user typed;
//! `main` resolves it against the environment and configuration.

use std::ffi::OsString;

use lexopt::prelude::*;

use crate::image::inflate;
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
    Help(Help),
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
    /// Takes the value of `--account`.
    fn account(&mut self, p: &mut lexopt::Parser) -> Result<()> {
        set(&mut self.account, p)
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
            _ => Err(Error::boxed(Error::Usage(format!("export: --format must be csv or jsonl, not `{s}`")))),
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
            _ => Err(Error::boxed(Error::Usage(format!("chart: --format must be svg or png, not `{s}`")))),
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
            Short('h') | Long("help") => return g.args(Command::Help(Help::Main)),
            Short('V') | Long("version") => return g.args(Command::Version),
            Long("http") => serve.http = true,
            Long("host") => set(&mut serve.host, &mut p)?,
            Long("port") => serve.port = Some(parse_port(&text(&mut p)?)?),
            Long("no-token") => serve.no_token = true,
            Value(v) => {
                let name = v.string()?;
                let command = match name.as_str() {
                    "serve" => serve_opts(&mut p, &mut g, serve)?,
                    "setup" => setup(&mut p, &mut g)?,
                    "auth" => auth(&mut p, &mut g)?,
                    "doctor" | "status" => doctor(&mut p, &mut g)?,
                    "call" => call(&mut p, &mut g)?,
                    "tools" => simple(&mut p, &mut g, Command::Tools, Help::Tools)?,
                    "chart" => chart(&mut p, &mut g)?,
                    "export" => export(&mut p, &mut g)?,
                    "help" => help_topic(&mut p)?,
                    "version" => simple(&mut p, &mut g, Command::Version, Help::Main)?,
                    other => {
                        return Err(Error::boxed(Error::Usage(format!(
                            "unknown command `{other}`; run `withings-mcp --help` for the list"
                        ))));
                    }
                };
                return g.args(command);
            }
            _ => return Err(unexpected(arg)),
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
            Long("host") => set(&mut o.host, p)?,
            Long("port") => o.port = Some(parse_port(&text(p)?)?),
            Long("no-token") => o.no_token = true,
            Short('h') | Long("help") => return Ok(Command::Help(Help::Serve)),
            _ => return Err(unexpected(arg)),
        }
    }
    if !o.http && (o.host.is_some() || o.port.is_some() || o.no_token) {
        return Err(Error::boxed(Error::Usage(
            "--host, --port and --no-token only apply with --http".into(),
        )));
    }
    Ok(Command::Serve(o))
}

fn setup(p: &mut lexopt::Parser, g: &mut Globals) -> Result<Command> {
    let mut o = SetupOpts::default();
    while let Some(arg) = p.next()? {
        match arg {
            Long("demo") => g.demo = true,
            Long("account") => g.account(p)?,
            Long("client") => set(&mut o.client, p)?,
            Long("client-id") => set(&mut o.client_id, p)?,
            Long("client-secret") => set(&mut o.client_secret, p)?,
            Long("client-secret-stdin") => o.client_secret_stdin = true,
            Long("redirect-uri") => set(&mut o.redirect_uri, p)?,
            Long("privacy-mode") => set(&mut o.privacy_mode, p)?,
            Long("non-interactive") => o.non_interactive = true,
            Long("no-auth") => o.no_auth = true,
            Long("json") => o.json = true,
            Short('h') | Long("help") => return Ok(Command::Help(Help::Setup)),
            _ => return Err(unexpected(arg)),
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
                let v = text(p)?;
                let secs = v.parse::<u64>().ok().filter(|s| (1..=86_400).contains(s));
                o.timeout_secs = Some(secs.ok_or_else(|| {
                    Error::Usage(format!("--timeout: expected seconds between 1 and 86400, got `{v}`"))
                })?);
            }
            Long("code") => set(&mut o.code, p)?,
            Long("state") => set(&mut o.state, p)?,
            Short('h') | Long("help") => return Ok(Command::Help(Help::Auth)),
            _ => return Err(unexpected(arg)),
        }
    }
    if o.state.is_some() && o.code.is_none() {
        return Err(Error::boxed(Error::Usage("--state only applies with --code".into())));
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
            Long("client") => set(&mut o.client, p)?,
            Short('h') | Long("help") => return Ok(Command::Help(Help::Doctor)),
            _ => return Err(unexpected(arg)),
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
            Long("json") => set(&mut o.json, p)?,
            Long("markdown") => o.markdown = true,
            Short('h') | Long("help") => return Ok(Command::Help(Help::Call)),
            Value(v) if tool.is_none() => tool = Some(v.string()?),
            _ => return Err(unexpected(arg)),
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
            Long("out") | Short('o') => set(&mut o.out, p)?,
            Long("format") => o.format = Some(ChartFormat::parse(&text(p)?)?),
            Long("after") => set(&mut o.after, p)?,
            Long("before") => set(&mut o.before, p)?,
            Long("units") => set(&mut o.units, p)?,
            Short('h') | Long("help") => return Ok(Command::Help(Help::Chart)),
            Value(v) if metric.is_none() => metric = Some(v.string()?),
            _ => return Err(unexpected(arg)),
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
            Long("out") | Short('o') => set(&mut o.out, p)?,
            Long("after") => set(&mut o.after, p)?,
            Long("before") => set(&mut o.before, p)?,
            Long("format") => o.format = ExportFormat::parse(&text(p)?)?,
            Long("only") => {
                let list = text(p)?;
                let names: Vec<String> =
                    list.split(',').map(str::trim).filter(|s| !s.is_empty()).map(str::to_string).collect();
                if names.is_empty() {
                    return Err(Error::boxed(Error::Usage(
                        "export: --only needs at least one domain".into(),
                    )));
                }
                o.only.get_or_insert_with(Vec::new).extend(names);
            }
            Short('h') | Long("help") => return Ok(Command::Help(Help::Export)),
            _ => return Err(unexpected(arg)),
        }
    }
    Ok(Command::Export(o))
}

fn simple(p: &mut lexopt::Parser, g: &mut Globals, command: Command, help: Help) -> Result<Command> {
    while let Some(arg) = p.next()? {
        match arg {
            Long("demo") => g.demo = true,
            Long("account") => g.account(p)?,
            Short('h') | Long("help") => return Ok(Command::Help(help)),
            _ => return Err(unexpected(arg)),
        }
    }
    Ok(command)
}

fn help_topic(p: &mut lexopt::Parser) -> Result<Command> {
    let topic = match p.next()? {
        Some(Value(v)) => v.string()?,
        Some(other) => return Err(unexpected(other)),
        None => return Ok(Command::Help(Help::Main)),
    };
    let text = match topic.as_str() {
        "serve" => Help::Serve,
        "setup" => Help::Setup,
        "auth" => Help::Auth,
        "doctor" | "status" => Help::Doctor,
        "call" => Help::Call,
        "tools" => Help::Tools,
        "chart" => Help::Chart,
        "export" => Help::Export,
        "help" => Help::Main,
        other => return Err(Error::boxed(Error::Usage(format!("help: unknown command `{other}`")))),
    };
    Ok(Command::Help(text))
}

// Each option's value and each unexpected argument go through these (one copy of lexopt's
// decoding and of the error conversion, not one per option: binary size).
fn text(p: &mut lexopt::Parser) -> Result<String> {
    Ok(p.value()?.string()?)
}

/// An option's value into its slot: each `--name VALUE` is one call, not a copy of the value's
/// decoding, its error return and the drop of the slot's old value (binary size).
fn set(slot: &mut Option<String>, p: &mut lexopt::Parser) -> Result<()> {
    *slot = Some(text(p)?);
    Ok(())
}

fn unexpected(arg: lexopt::Arg) -> Box<Error> {
    arg.unexpected().into()
}

fn parse_port(s: &str) -> Result<u16> {
    s.parse::<u16>()
        .map_err(|_| Error::boxed(Error::Usage(format!("--port: expected a port number 0-65535, got `{s}`"))))
}

/// A help text: `--help`, `help COMMAND`. The texts are src/help.txt (in this order, separated
/// by lines of `%%`), compiled in deflated by build.rs and inflated when printed (binary size).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Help {
    Main,
    Serve,
    Setup,
    Auth,
    Doctor,
    Call,
    Tools,
    Chart,
    Export,
}

const HELP_ZLIB: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/help.txt.zlib"));

impl Help {
    /// The text, as src/help.txt has it.
    pub fn text(self) -> String {
        let all =
            inflate::zlib(HELP_ZLIB, 1 << 20).and_then(|t| String::from_utf8(t).ok()).unwrap_or_default();
        all.split("%%\n").nth(self as usize).unwrap_or_default().to_string()
    }
}

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
        assert_eq!(ok(&["serve", "--help"]).command, Command::Help(Help::Serve));
        assert_eq!(ok(&["help", "help"]).command, Command::Help(Help::Main));
        // Each topic is its own section of help.txt, as written there.
        let file = include_str!("help.txt");
        let topics = [Help::Main, Help::Serve, Help::Setup, Help::Auth, Help::Doctor];
        let topics = topics.into_iter().chain([Help::Call, Help::Tools, Help::Chart, Help::Export]);
        let texts: Vec<String> = topics.map(Help::text).collect();
        assert_eq!(texts.join("%%\n"), file);
        assert!(texts[0].starts_with("withings-mcp — ") && texts[1].starts_with("Usage: withings-mcp serve"));
        assert!(texts[8].starts_with("Usage: withings-mcp export"), "{}", texts[8]);
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
