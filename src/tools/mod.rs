//! The tool catalogue: each family file declares its tools (name, description, schemas,
//! annotations, handler) and renders markdown and `structuredContent`. The MCP layer and the
//! `call` command both go through `run`, so validation and defaults are the same everywhere.

pub mod accounts;
pub mod auth;
pub mod briefs;
pub mod catalogue;
#[cfg(feature = "conformance")]
pub mod conformance;
pub mod data;
pub mod ecg;
pub mod intraday;
pub mod list_out;
pub mod local;
pub mod profile;
pub mod prompts;
pub mod readiness;
pub mod records;
pub mod resources;
pub mod schema;
pub mod trend_output;
pub mod trends;

use std::rc::Rc;

use serde_json::{Map, Value};

use crate::domain::time::Zone;
use crate::store::accounts::Account;
use crate::store::config::{Config, Env, Key};
use crate::store::zones;
use crate::value::Json;
use crate::withings::budget::{Call, Sink};
use crate::withings::client::Client;
use crate::withings::demo::{self, DemoUpstream};
use crate::{Error, Result};

/// What a tool handler can see: the environment snapshot, the clock and the call it serves.
/// Everything else (configuration, the Withings client, the zone) is derived from these on demand.
#[derive(Debug, Clone)]
pub struct Ctx {
    /// Environment snapshot, including `HOME` and `WITHINGS_DEMO` as set by `--demo`.
    pub env: Env,
    /// "Now" as Unix seconds. Injected so that tests can fix the clock (`WITHINGS_MCP_NOW`).
    pub now: i64,
    /// The call being served (its start bounds the deadline) and where its events go; empty
    /// outside a call.
    pub call: Call,
}

impl Ctx {
    /// A context outside any call.
    pub fn new(env: Env, now: i64) -> Ctx {
        Ctx { env, now, call: Call::default() }
    }

    /// The context of this process: the real environment and clock, unless `WITHINGS_MCP_NOW`
    /// (Unix seconds) fixes the clock for reproducible runs.
    pub fn from_env(env: Env) -> Ctx {
        let now = env.get("WITHINGS_MCP_NOW").and_then(|s| s.parse::<i64>().ok()).unwrap_or_else(system_now);
        Ctx::new(env, now)
    }

    /// This context for one call (a tool call, a `call` command, a resource read) that starts
    /// now: its deadline counts from here, and its events go to `sink`.
    pub fn begin_call(&self, sink: Option<Rc<dyn Sink>>) -> Ctx {
        Ctx { env: self.env.clone(), now: self.now, call: Call::start(sink) }
    }

    /// This context serving `account` instead (a tool's `account` argument).
    pub fn with_account(&self, account: &Account) -> Ctx {
        Ctx { env: self.env.with_account(account), now: self.now, call: self.call.clone() }
    }

    /// True in demo mode.
    pub fn demo(&self) -> bool {
        self.env.demo()
    }

    /// Configuration from the environment and the config file.
    pub fn config(&self) -> Result<Config> {
        Config::load(&self.env)
    }

    /// The user's zone: `WITHINGS_TZ` (environment or config file), else the machine's.
    pub fn zone(&self, cfg: &Config) -> Result<Zone> {
        zones::user_zone(&self.env, cfg.get(Key::Tz))
    }

    /// A Withings client: the demo account (living in `zone`) in demo mode, else the real API.
    /// Takes the configuration already loaded, so one tool call reads the config file once.
    /// The client is bound to the call (deadline, budget, events): build one per call.
    pub fn client(&self, cfg: &Config, zone: &Zone) -> Result<Client> {
        match self.demo() {
            true => {
                let person = demo::person(&self.env.account()?)?;
                Client::demo(Box::new(DemoUpstream::of(person, self.now, zone.clone())), self.now)
                    .within(&self.call, cfg)
            }
            false => self.api_client(cfg),
        }
    }

    /// A client for the real Withings API, bound to the call (sign-in and revocation use it
    /// even in demo mode).
    pub fn api_client(&self, cfg: &Config) -> Result<Client> {
        Client::http(&self.env, cfg, self.now)?.within(&self.call, cfg)
    }
}

fn system_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// The line that opens every markdown answer in demo mode.
pub const DEMO_NOTE: &str = "> Demo account: synthetic data, not a real person's.";

/// Hints for clients about what a tool does (MCP `ToolAnnotations`).
#[derive(Debug, Clone, Copy)]
pub struct Annotations {
    pub read_only: bool,
    pub destructive: bool,
    pub idempotent: bool,
    pub open_world: bool,
}

impl Annotations {
    /// Reads local state only.
    pub const LOCAL_READ: Annotations =
        Annotations { read_only: true, destructive: false, idempotent: true, open_world: false };
    /// Reads from Withings.
    pub const REMOTE_READ: Annotations =
        Annotations { read_only: true, destructive: false, idempotent: true, open_world: true };
}

/// The successful result of a tool: structured data, and the markdown a person reads.
#[derive(Debug, Clone)]
pub struct Output {
    /// `structuredContent`; must match the tool's `output_schema`. A tree, or text for a list.
    pub structured: Json,
    /// Markdown rendering (used when `response_format` is `markdown`).
    pub markdown: String,
    /// Extra content blocks after the text (e.g. the chart as a PNG image).
    pub extra: Vec<Value>,
}

/// A tool's handler: takes validated arguments with defaults applied.
pub type Handler = fn(&Ctx, &Map<String, Value>) -> Result<Output>;

/// One tool in the catalogue: what code decides. Its description and schemas are data, kept as
/// the JSON text `tools/list` shows (src/tools/schemas.txt, read through [`catalogue`]).
#[derive(Clone)]
pub struct Tool {
    pub name: &'static str,
    pub title: &'static str,
    pub annotations: Annotations,
    pub handler: Handler,
}

impl Tool {
    /// This tool's `description` (a JSON string), `inputSchema` or `outputSchema` as compact
    /// JSON text, written into `tools/list` as it is.
    pub fn text(&self, part: catalogue::Part) -> std::borrow::Cow<'static, str> {
        match conformance::text(self.name, part) {
            Some(own) => own.into(),
            None => catalogue::text(self.name, part).into(),
        }
    }

    /// The JSON Schema 2020-12 its arguments are checked against (`additionalProperties: false`).
    pub fn input_schema(&self) -> Value {
        schema::from_text(&self.text(catalogue::Part::Input))
    }

    /// The JSON Schema of its `structuredContent`.
    pub fn output_schema(&self) -> Value {
        schema::from_text(&self.text(catalogue::Part::Output))
    }
}

/// Catalogue order (CONTRACT §4): status and guidance first, then auth, data, briefs, trends.
const ORDER: &[&str] = &[
    "withings_connection_status",
    "withings_accounts",
    "withings_data_inventory",
    "withings_capabilities",
    "withings_agent_manifest",
    "withings_privacy_audit",
    "withings_cache_status",
    "withings_get_auth_url",
    "withings_exchange_code",
    "withings_revoke_access",
    "withings_list_body_measures",
    "withings_list_heart",
    "withings_list_activity",
    "withings_list_workouts",
    "withings_list_sleep_summary",
    "withings_list_sleep",
    "withings_list_intraday",
    "withings_list_devices",
    "withings_get_goals",
    "withings_get_ecg",
    "withings_daily_summary",
    "withings_weekly_summary",
    "withings_trends",
    "withings_chart",
];

/// Every tool, in the order `tools/list` shows them. Built once per process; a tool is its name,
/// title, hints and handler, so building them all costs next to nothing (the schemas are text).
pub fn all() -> &'static [Tool] {
    static CATALOGUE: std::sync::OnceLock<Vec<Tool>> = std::sync::OnceLock::new();
    CATALOGUE.get_or_init(build)
}

fn build() -> Vec<Tool> {
    let mut v = auth::tools();
    v.extend(accounts::tools());
    v.extend(local::tools());
    v.extend(data::tools());
    v.extend(intraday::tools());
    v.extend(profile::tools());
    v.extend(ecg::tools());
    v.extend(briefs::tools());
    v.extend(trends::tools());
    crate::sort::by_key(&mut v, |t| ORDER.iter().position(|n| *n == t.name).unwrap_or(ORDER.len()));
    // Test-only fixtures for the conformance suite; empty unless WITHINGS_MCP_CONFORMANCE=1.
    v.extend(conformance::tools());
    v
}

/// Every prompt, in the order `prompts/list` shows them (the suite's fixtures last, when on).
pub fn prompts() -> Vec<prompts::Prompt> {
    let mut v = prompts::all();
    v.extend(conformance::prompts());
    v
}

/// Without the `conformance` feature the suite's fixtures do not exist: every lookup finds
/// nothing, whatever `WITHINGS_MCP_CONFORMANCE` says.
#[cfg(not(feature = "conformance"))]
pub mod conformance {
    use serde_json::Value;

    pub fn tools() -> Vec<crate::tools::Tool> {
        Vec::new()
    }
    pub fn text(_name: &str, _part: crate::tools::catalogue::Part) -> Option<String> {
        None
    }
    pub fn prompts() -> Vec<crate::tools::prompts::Prompt> {
        Vec::new()
    }
    pub fn resources() -> Vec<Value> {
        Vec::new()
    }
    pub fn templates() -> Vec<Value> {
        Vec::new()
    }
    pub fn read(_uri: &str) -> Option<Value> {
        None
    }
}

/// Finds a tool by exact name.
pub fn find(name: &str) -> Option<&'static Tool> {
    all().iter().find(|t| t.name == name)
}

/// Validates `args` against the tool's input schema, applies defaults, and runs it.
/// Argument errors come back as `Error::InvalidArgument` naming the argument. An `account`
/// argument is checked here, before the handler touches the disk, and selects the account the
/// handler serves; a tool that reads Withings data says which account it read.
pub fn run(ctx: &Ctx, tool: &Tool, args: &Value) -> Result<Output> {
    let args = schema::validate_args(&tool.input_schema(), args)?;
    let switched = match args.get("account").and_then(Value::as_str) {
        Some(name) => Some(ctx.with_account(&Account::parse(name).map_err(|e| Error::arg("account", e))?)),
        None => None,
    };
    let ctx = switched.as_ref().unwrap_or(ctx);
    let mut out = (tool.handler)(ctx, &args)?;
    if reads_withings(tool) {
        let account = ctx.env.account()?;
        out.structured.insert("account", Value::String(account.name().to_string()));
        if !account.is_default() {
            out.markdown = format!("> Account: `{account}`\n\n{}", out.markdown);
        }
    }
    Ok(out)
}

/// True for the tools that read the person's Withings data: they take `account` (schemas.txt
/// says so, and a test checks it) and say in their answer which account they read.
pub(crate) fn reads_withings(tool: &Tool) -> bool {
    tool.annotations.read_only && tool.annotations.open_world
}

/// `response_format` from validated arguments (`markdown` unless `json`).
pub fn wants_json(args: &Map<String, Value>) -> bool {
    matches!(args.get("response_format").and_then(Value::as_str), Some("json"))
}
