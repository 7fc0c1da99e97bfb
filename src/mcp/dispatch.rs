//! Method dispatch for both protocol eras on one server.
//!
//! Handshake era (2024-11-05 … 2025-11-25): `initialize` negotiates a version for the session;
//! on stdio nothing but `ping` is served before it. Stateless era (2026-07-28): any request whose
//! `params._meta` names that version is served on its own, on any transport, without
//! `initialize`; results carry `resultType`, and list/read/discover results `ttlMs`/`cacheScope`.

use std::rc::Rc;

use serde_json::{Map, Value};

use crate::mcp::jsonrpc::{self, Message, RpcError};
use crate::mcp::notify::{Notifier, Notify};
use crate::store::accounts::Account;
use crate::strmap::StrMap;
use crate::tools::{self, Ctx, Output, conformance, prompts, resources};
use crate::value::{Json, json};
use crate::withings::budget::{Level, Sink};
use crate::{Error, VERSION};

/// The default (latest handshake-era) protocol version.
pub const LATEST: &str = "2025-11-25";
/// Handshake-era versions we speak, newest first.
pub const HANDSHAKE_VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];
/// The stateless-era version.
pub const STATELESS: &str = "2026-07-28";
/// `_meta` keys of the stateless era.
pub const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
pub const META_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
pub const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
pub const META_LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";

const INSTRUCTIONS: &str = "Reads the user's own Withings data (body composition, sleep, activity, workouts, heart). \
Start with withings_connection_status, then withings_daily_summary or withings_weekly_summary; use the \
list tools for detail and withings_trends to tell a real change from noise. Dates are civil days in the \
user's time zone.";

/// Where messages come from: stdio keeps a session; HTTP is stateless per request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    Stdio,
    Http,
}

/// Per-connection protocol state plus the tool context.
pub struct Engine {
    ctx: Ctx,
    transport: Transport,
    /// The version agreed by `initialize` (stdio), or taken from the HTTP header.
    negotiated: Option<&'static str>,
    /// Set by `logging/setLevel`; no log notification is sent before.
    log_level: Option<Level>,
    /// The client declared the MCP Apps extension at `initialize` (stdio sessions only).
    ui: bool,
    /// Where notifications go during a call (stdio); `None` where there is no channel (HTTP).
    notify: Option<Rc<dyn Notify>>,
}

/// A reply, ready to write: a tree, or its JSON text.
pub enum Reply {
    Tree(Value),
    Text(String),
}

impl Reply {
    /// The reply as JSON text.
    pub fn into_text(self) -> String {
        match self {
            // `serde_json::to_string` writes bytes directly; `Display` would go through `fmt::Write`.
            Reply::Tree(v) => serde_json::to_string(&v).unwrap_or_default(),
            Reply::Text(t) => t,
        }
    }
}

/// The era a single request is served in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Era {
    Handshake,
    Stateless,
}

impl Engine {
    /// A stdio session: nothing is served before `initialize` except `ping` and stateless requests.
    pub fn stdio(ctx: Ctx) -> Engine {
        Engine {
            ctx,
            transport: Transport::Stdio,
            negotiated: None,
            log_level: None,
            ui: false,
            notify: None,
        }
    }

    /// One HTTP request: `version` is the validated `MCP-Protocol-Version` header (absent means
    /// 2025-03-26, as the transport specifies).
    pub fn http(ctx: Ctx, version: Option<&str>) -> Engine {
        let negotiated =
            HANDSHAKE_VERSIONS.iter().copied().find(|v| Some(*v) == version).or(Some("2025-03-26"));
        Engine { ctx, transport: Transport::Http, negotiated, log_level: None, ui: false, notify: None }
    }

    /// Lets calls send progress and log notifications through `notify` while they run (stdio).
    pub fn set_notify(&mut self, notify: Option<Rc<dyn Notify>>) {
        self.notify = notify;
    }

    /// Handles one raw message or batch (a stdio line or an HTTP body) and returns the reply
    /// text, if any.
    pub fn handle_bytes(&mut self, bytes: &[u8]) -> Option<String> {
        let reply = match jsonrpc::parse(bytes) {
            Ok(Value::Array(items)) => return self.handle_batch(items),
            Ok(single) => self.reply(single),
            Err(e) => Some(Reply::Tree(jsonrpc::error(Value::Null, e))),
        };
        reply.map(Reply::into_text)
    }

    /// Handles a batch (2025-03-26 only; at most `jsonrpc::MAX_BATCH` messages, which `parse`
    /// ensures) and returns the reply text, if any. Each reply is written out as soon as it is
    /// made, so at most one reply tree is alive at a time, not fifty.
    pub fn handle_batch(&mut self, items: Vec<Value>) -> Option<String> {
        let refused = |message: String| {
            let e = RpcError::new(jsonrpc::INVALID_REQUEST, message);
            serde_json::to_string(&jsonrpc::error(Value::Null, e)).ok()
        };
        if self.negotiated != Some("2025-03-26") {
            let version = self.negotiated.unwrap_or("(none yet)");
            return refused(format!(
                "invalid request: JSON-RPC batches are only allowed in protocol version 2025-03-26, not {version}"
            ));
        }
        if items.is_empty() {
            return refused("invalid request: empty batch".into());
        }
        let mut out = b"[".to_vec();
        for item in items {
            let initialize = item.get("method").and_then(Value::as_str) == Some("initialize");
            let reply = match (out.len() > jsonrpc::MAX_BATCH_REPLY, initialize) {
                (true, _) => not_run(item).map(Reply::Tree),
                (false, true) => {
                    let id = item.get("id").cloned().unwrap_or(Value::Null);
                    let e = RpcError::new(
                        jsonrpc::INVALID_REQUEST,
                        "invalid request: initialize must not be part of a batch",
                    );
                    Some(Reply::Tree(jsonrpc::error(id, e)))
                }
                (false, false) => self.reply(item),
            };
            if let Some(reply) = reply {
                if out.len() > 1 {
                    out.push(b',');
                }
                match reply {
                    // Writing a `Value` to a Vec cannot fail.
                    Reply::Tree(v) => drop(serde_json::to_writer(&mut out, &v)),
                    Reply::Text(t) => out.extend_from_slice(t.as_bytes()),
                }
            }
        }
        out.push(b']');
        match out.len() {
            2 => None,
            _ => String::from_utf8(out).ok(),
        }
    }

    /// Handles one message and returns its reply as it will be written; `None` for
    /// notifications and client responses.
    pub fn reply(&mut self, v: Value) -> Option<Reply> {
        match jsonrpc::classify(v) {
            Err((id, e)) => Some(Reply::Tree(jsonrpc::error(id, e))),
            Ok(Message::Notification { .. } | Message::Response) => None,
            Ok(Message::Request { id, method, params }) => Some(match self.request(&method, &params) {
                // A success is written around its result's text: an envelope object built to
                // be printed once (three keys hashed in, the map freed) was a quarter of a `ping`.
                Ok(answer) => {
                    let result = answer.into_text();
                    let id = crate::value::text(&id);
                    Reply::Text([r#"{"jsonrpc":"2.0","id":"#, &id, r#","result":"#, &result, "}"].concat())
                }
                Err(e) => Reply::Tree(jsonrpc::error(id, e)),
            }),
        }
    }

    fn request(&mut self, method: &str, params: &Map<String, Value>) -> Result<Json, RpcError> {
        let era = era_of(params)?;
        if era == Era::Handshake {
            return self.handshake_request(method, params);
        }
        let result = match method {
            "server/discover" => Json::Tree(discover()),
            // Removed in 2026-07-28: the log level travels in `_meta` and liveness is the transport's.
            "ping" | "logging/setLevel" | "initialize" => {
                return Err(RpcError::new(
                    jsonrpc::METHOD_NOT_FOUND,
                    format!("method not found: `{method}` does not exist in protocol version {STATELESS}"),
                ));
            }
            _ => self.answer(method, params, Era::Stateless)?,
        };
        Ok(stateless_result(result, method, params))
    }

    fn handshake_request(&mut self, method: &str, params: &Map<String, Value>) -> Result<Json, RpcError> {
        match method {
            "initialize" => return Ok(Json::Tree(self.initialize(params))),
            "ping" => return Ok(Json::Tree(json!({}))),
            // A dual-era client probes with `server/discover`; it must hear a prompt error to
            // fall back to `initialize` (answering it would be fine too, but it needs `_meta`).
            "server/discover" => return Ok(Json::Tree(discover())),
            _ => {}
        }
        if self.transport == Transport::Stdio && self.negotiated.is_none() {
            return Err(RpcError::new(
                jsonrpc::INVALID_REQUEST,
                format!("invalid request: `{method}` before `initialize`; send initialize first"),
            ));
        }
        match method {
            "logging/setLevel" => {
                self.log_level = Some(level(params.get("level"), "level")?);
                Ok(Json::Tree(json!({})))
            }
            "resources/subscribe" | "resources/unsubscribe" => {
                require_str(params, "uri")?;
                Ok(Json::Tree(json!({})))
            }
            _ => self.answer(method, params, Era::Handshake),
        }
    }

    /// Methods common to both eras: `tools/list` as stored text, the others as trees.
    fn answer(&mut self, method: &str, params: &Map<String, Value>, era: Era) -> Result<Json, RpcError> {
        match method {
            "tools/list" => {
                check_cursor(params)?;
                let ui = self.renders_ui(params, era);
                Ok(Json::Text(tools::catalogue::list_result(tools::all(), ui)))
            }
            "tools/call" => self.call_tool(params),
            _ => self.method(method, params, era).map(Json::Tree),
        }
    }

    fn initialize(&mut self, params: &Map<String, Value>) -> Value {
        let asked = params.get("protocolVersion").and_then(Value::as_str).unwrap_or("");
        // Echo a version we speak; counter-offer the latest for anything else (never an error).
        let version = HANDSHAKE_VERSIONS.iter().copied().find(|v| *v == asked).unwrap_or(LATEST);
        self.negotiated = Some(version);
        self.ui = resources::declares_ui(params.get("capabilities"));
        json!({
            "protocolVersion": version,
            "capabilities": capabilities(version),
            "serverInfo": server_info(),
            "instructions": INSTRUCTIONS,
        })
    }

    /// True when this request's client renders MCP Apps views: declared at `initialize` (a stdio
    /// session) or in the request's own `_meta` (the stateless era, where it is the only place;
    /// a handshake-era request may carry it too, which is all a stateless HTTP server can see).
    fn renders_ui(&self, params: &Map<String, Value>, era: Era) -> bool {
        let per_request = params.get("_meta").and_then(|m| m.get(META_CAPABILITIES));
        (era == Era::Handshake && self.ui) || resources::declares_ui(per_request)
    }

    /// Methods common to both eras, but for `tools/list` (see `answer`).
    fn method(&mut self, method: &str, params: &Map<String, Value>, era: Era) -> Result<Value, RpcError> {
        match method {
            "prompts/list" => {
                check_cursor(params)?;
                Ok(json!({"prompts": tools::prompts().iter().map(prompt_json).collect::<Vec<_>>()}))
            }
            "prompts/get" => get_prompt(params),
            "resources/list" => {
                check_cursor(params)?;
                let mut list: Vec<Value> = resources::all().iter().map(resource_json).collect();
                // A client without the extension cannot show the view: its list stays as it was.
                if self.renders_ui(params, era) {
                    list.push(resources::dashboard_entry());
                }
                list.extend(conformance::resources());
                Ok(json!({"resources": list}))
            }
            "resources/templates/list" => {
                check_cursor(params)?;
                let mut list = resources::templates();
                list.extend(conformance::templates());
                Ok(json!({"resourceTemplates": list}))
            }
            "resources/read" => self.read_resource(params, era),
            "completion/complete" => complete(&self.ctx, params),
            _ => Err(RpcError::new(jsonrpc::METHOD_NOT_FOUND, format!("method not found: `{method}`"))),
        }
    }

    fn call_tool(&mut self, params: &Map<String, Value>) -> Result<Json, RpcError> {
        let name = require_str(params, "name")?;
        let Some(tool) = tools::find(name) else {
            return Err(RpcError::invalid_params(format!("Unknown tool: {name}")));
        };
        // Borrowed, not cloned: the arguments may be a tree of up to `jsonrpc::MAX_ITEMS` values.
        let args = params.get("arguments").unwrap_or(&Value::Null);
        Ok(tool_result(&self.call_ctx(params)?, tool, args))
    }

    /// The context of one call that starts now: its deadline counts from here, and its
    /// progress (with `_meta.progressToken`) and logs (at the session's level, or the request's
    /// `_meta` level in 2026-07-28) go to the transport's channel, if it has one.
    fn call_ctx(&self, params: &Map<String, Value>) -> Result<Ctx, RpcError> {
        let meta = params.get("_meta").and_then(Value::as_object);
        let token = match meta.and_then(|m| m.get("progressToken")) {
            None | Some(Value::Null) => None,
            Some(t @ (Value::String(_) | Value::Number(_))) => Some(t.clone()),
            Some(_) => {
                return Err(RpcError::invalid_params(
                    "invalid params: `_meta.progressToken` must be a string or a number",
                ));
            }
        };
        let log_level = match meta.and_then(|m| m.get(META_LOG_LEVEL)) {
            Some(v) => Some(level(Some(v), &format!("_meta.{META_LOG_LEVEL}"))?),
            None => self.log_level,
        };
        let sink = self.notify.clone().and_then(|out| Notifier::new(out, token, log_level));
        Ok(self.ctx.begin_call(sink.map(|n| Rc::new(n) as Rc<dyn Sink>)))
    }

    fn read_resource(&mut self, params: &Map<String, Value>, era: Era) -> Result<Value, RpcError> {
        let uri = require_str(params, "uri")?;
        if let Some(contents) = conformance::read(uri) {
            return Ok(json!({"contents": contents}));
        }
        // Readable by anyone: a host may fetch the view before it knows it will show it.
        if uri == resources::DASHBOARD_URI {
            return Ok(json!({"contents": resources::dashboard_contents()}));
        }
        let Some((res, account)) = resources::find(uri) else {
            let code = match era {
                Era::Handshake => jsonrpc::RESOURCE_NOT_FOUND,
                Era::Stateless => jsonrpc::INVALID_PARAMS,
            };
            return Err(
                RpcError::new(code, format!("resource not found: {uri}")).with_data(json!({"uri": uri}))
            );
        };
        let Some(tool) = tools::find(res.tool) else {
            return Err(RpcError::new(
                jsonrpc::INTERNAL_ERROR,
                format!("resource {uri} is not available in this build"),
            ));
        };
        let mut args = (res.args)();
        if let (Some(a), Some(obj)) = (account, args.as_object_mut()) {
            // Checked as the tool's argument: a bad name is refused before any file is read.
            Account::parse(a).map_err(|e| RpcError::invalid_params(format!("invalid params: {uri}: {e}")))?;
            obj.insert("account".into(), json!(a));
        }
        match tools::run(&self.call_ctx(params)?, tool, &args) {
            Ok(out) => {
                let text = with_demo_flag(&self.ctx, out.structured).pretty();
                Ok(json!({"contents": [{"uri": uri, "mimeType": "application/json", "text": text}]}))
            }
            Err(e) => Err(RpcError::new(jsonrpc::INTERNAL_ERROR, format!("reading {uri} failed: {e}"))),
        }
    }
}

/// The answer to a batch entry left unrun because the batch's replies are already too large.
fn not_run(item: Value) -> Option<Value> {
    let e = RpcError::new(
        jsonrpc::INVALID_REQUEST,
        format!(
            "invalid request: not run, because the replies to this batch already exceed {} MiB; send it again on its own",
            jsonrpc::MAX_BATCH_REPLY >> 20
        ),
    );
    match jsonrpc::classify(item) {
        Ok(Message::Request { id, .. }) => Some(jsonrpc::error(id, e)),
        Ok(Message::Notification { .. } | Message::Response) => None,
        Err((id, e)) => Some(jsonrpc::error(id, e)),
    }
}

/// A 2026-07-28 result: the method's result with `resultType`, `_meta` (server info) and, for
/// lists, reads and discovery, `ttlMs`/`cacheScope`. A text result (the tool catalogue, an
/// object) gains the same members after its own.
fn stateless_result(result: Json, method: &str, params: &Map<String, Value>) -> Json {
    let mut extra = Map::new();
    let (mut tree, text) = match result {
        Json::Tree(Value::Object(obj)) => (obj, None),
        Json::Tree(other) => return Json::Tree(other),
        Json::Text(t) => (Map::new(), Some(t)),
    };
    let obj = if text.is_some() { &mut extra } else { &mut tree };
    obj.insert("resultType".into(), json!("complete"));
    let meta = obj.entry("_meta").or_insert_with(|| json!({}));
    if let Some(m) = meta.as_object_mut() {
        m.insert(META_SERVER_INFO.into(), server_info());
    }
    if let Some((ttl, scope)) = cache_hint(method, params) {
        obj.insert("ttlMs".into(), json!(ttl));
        obj.insert("cacheScope".into(), json!(scope));
    }
    match text {
        None => Json::Tree(Value::Object(tree)),
        // `{…}` + `{"resultType":…}` → `{…,"resultType":…}`.
        Some(t) => {
            let members = serde_json::to_string(&extra).unwrap_or_default();
            match (t.strip_suffix('}'), members.strip_prefix('{')) {
                (Some(head), Some(tail)) => Json::Text([head, ",", tail].concat()),
                _ => Json::Text(t),
            }
        }
    }
}

/// Runs a tool and shapes the MCP `CallToolResult`: structured content plus text (markdown or
/// JSON as asked); any error becomes `isError` with a message that names the problem.
pub fn tool_result(ctx: &Ctx, tool: &tools::Tool, args: &Value) -> Json {
    match tools::run(ctx, tool, args) {
        Ok(out) => success_result(ctx, args, out),
        Err(e) => Json::Tree(error_result(&e)),
    }
}

/// The result written around the structured content's text: a list's records are text already.
fn success_result(ctx: &Ctx, args: &Value, out: Output) -> Json {
    let structured = with_demo_flag(ctx, out.structured);
    let json_text = args.get("response_format").and_then(Value::as_str) == Some("json");
    let text = match json_text {
        true => structured.pretty(),
        false if ctx.demo() => {
            format!("{}\n\n{}", tools::DEMO_NOTE, out.markdown)
        }
        false => out.markdown,
    };
    let mut content = vec![jsonrpc::object([("type", Value::from("text")), ("text", Value::from(text))])];
    content.extend(out.extra);
    let content = crate::value::text(&Value::Array(content));
    let structured = structured.into_text();
    Json::Text(
        [r#"{"content":"#, &content, r#","structuredContent":"#, &structured, r#","isError":false}"#]
            .concat(),
    )
}

/// The `isError` result for a failed tool call. `structuredContent` is left out on purpose:
/// clients validate it against the tool's `outputSchema`, which describes success.
pub fn error_result(e: &Error) -> Value {
    json!({"content": [{"type": "text", "text": format!("Error: {e}")}], "isError": true})
}

/// The JSON `call` prints for a failed tool: the error's kind, message and argument.
pub fn error_json(e: &Error) -> Value {
    let (kind, argument) = match e {
        Error::InvalidArgument { name, .. } => ("invalid_argument", Some(name.as_str())),
        Error::Config(_) => ("configuration", None),
        Error::NeedsAuth(_) | Error::AccountNeedsAuth { .. } => ("needs_auth", None),
        Error::Api { .. } => ("withings_api", None),
        Error::MissingScope { .. } => ("missing_scope", None),
        Error::RateLimited { .. } => ("rate_limited", None),
        Error::Transport { .. } => ("network", None),
        Error::Deadline { .. } => ("deadline", None),
        Error::Budget { .. } => ("request_budget", None),
        Error::Io { .. } => ("io", None),
        Error::Json { .. } => ("invalid_json", None),
        Error::Unavailable(_) => ("unavailable", None),
        Error::Usage(_) => ("usage", None),
        Error::Export { .. } => ("export", None),
    };
    let mut err = json!({"kind": kind, "message": e.to_string()});
    if let (Some(a), Some(obj)) = (argument, err.as_object_mut()) {
        obj.insert("argument".into(), json!(a));
    }
    json!({"error": err})
}

/// Adds `"demo": true` to an object in demo mode, so that no demo answer passes for real data.
pub fn with_demo_flag(ctx: &Ctx, mut v: Json) -> Json {
    if ctx.demo() {
        v.insert("demo", Value::Bool(true));
    }
    v
}

/// A log level named by the client, or an error naming where it was given.
fn level(v: Option<&Value>, name: &str) -> Result<Level, RpcError> {
    let given = v.and_then(Value::as_str).unwrap_or("");
    Level::parse(given).ok_or_else(|| {
        let names: Vec<&str> = Level::ALL.iter().map(|l| l.name()).collect();
        RpcError::invalid_params(format!(
            "invalid params: `{name}` must be one of {}, got `{given}`",
            names.join(", ")
        ))
    })
}

fn era_of(params: &Map<String, Value>) -> Result<Era, RpcError> {
    let Some(meta) = params.get("_meta").and_then(Value::as_object) else {
        return Ok(Era::Handshake);
    };
    let Some(version) = meta.get(META_VERSION) else {
        return Ok(Era::Handshake);
    };
    let Some(version) = version.as_str() else {
        return Err(RpcError::invalid_params(format!(
            "invalid params: `_meta.{META_VERSION}` must be a string"
        )));
    };
    if version == STATELESS {
        if !meta.get(META_CAPABILITIES).is_some_and(Value::is_object) {
            return Err(RpcError::invalid_params(format!(
                "invalid params: `_meta` is missing the required `{META_CAPABILITIES}` object"
            )));
        }
        return Ok(Era::Stateless);
    }
    if HANDSHAKE_VERSIONS.contains(&version) {
        return Ok(Era::Handshake);
    }
    Err(unsupported_version(version))
}

/// The 2026-07-28 error for a protocol version we do not speak.
pub fn unsupported_version(version: &str) -> RpcError {
    let mut supported: Vec<&str> = vec![STATELESS];
    supported.extend(HANDSHAKE_VERSIONS);
    RpcError::new(jsonrpc::UNSUPPORTED_PROTOCOL_VERSION, format!("unsupported protocol version `{version}`"))
        .with_data(json!({"supported": supported, "requested": version}))
}

fn capabilities(version: &str) -> Value {
    let mut caps = json!({
        "tools": {"listChanged": false},
        "resources": {"subscribe": false, "listChanged": false},
        "prompts": {"listChanged": false},
        "logging": {},
    });
    // `completions` was introduced in 2025-03-26.
    if version != "2024-11-05"
        && let Some(obj) = caps.as_object_mut()
    {
        obj.insert("completions".into(), json!({}));
    }
    caps
}

fn discover() -> Value {
    let mut versions = vec![STATELESS];
    versions.extend(HANDSHAKE_VERSIONS);
    let mut caps = capabilities(LATEST);
    if let Some(obj) = caps.as_object_mut() {
        obj.remove("logging");
    }
    json!({
        "supportedVersions": versions,
        "capabilities": caps,
        "serverInfo": server_info(),
        "instructions": INSTRUCTIONS,
    })
}

fn server_info() -> Value {
    json!({
        "name": "withings-mcp",
        "title": "Withings MCP",
        "version": VERSION,
        "description": "Your own Withings data, read locally",
    })
}

/// Cache hints for 2026-07-28 results: catalogues are public and stable within a build;
/// anything personal is private and immediately stale.
fn cache_hint(method: &str, params: &Map<String, Value>) -> Option<(u64, &'static str)> {
    match method {
        "server/discover" | "tools/list" | "prompts/list" | "resources/list" | "resources/templates/list" => {
            Some((300_000, "public"))
        }
        "resources/read" => {
            let uri = params.get("uri").and_then(Value::as_str).unwrap_or("");
            if uri == resources::DASHBOARD_URI {
                return Some((300_000, "public"));
            }
            let personal = resources::all().iter().find(|r| r.uri == uri).is_none_or(|r| r.personal);
            Some(match personal {
                true => (0, "private"),
                false => (60_000, "public"),
            })
        }
        _ => None,
    }
}

fn prompt_json(p: &prompts::Prompt) -> Value {
    let args: Vec<Value> = p
        .arguments
        .iter()
        .map(|a| json!({"name": a.name, "description": a.description, "required": a.required}))
        .collect();
    json!({"name": p.name, "title": p.title, "description": p.description, "arguments": args})
}

fn resource_json(r: &resources::Resource) -> Value {
    json!({
        "uri": r.uri,
        "name": r.name,
        "title": r.title,
        "description": r.description,
        "mimeType": "application/json",
    })
}

fn get_prompt(params: &Map<String, Value>) -> Result<Value, RpcError> {
    let name = require_str(params, "name")?;
    let Some(prompt) = tools::prompts().into_iter().find(|p| p.name == name) else {
        return Err(RpcError::invalid_params(format!("invalid params: unknown prompt `{name}`")));
    };
    let mut args = StrMap::new();
    match params.get("arguments") {
        None | Some(Value::Null) => {}
        Some(Value::Object(m)) => {
            for (k, v) in m {
                let Some(s) = v.as_str() else {
                    return Err(RpcError::invalid_params(format!(
                        "invalid params: prompt argument `{k}` must be a string"
                    )));
                };
                args.insert(k.clone(), s.to_string());
            }
        }
        Some(_) => return Err(RpcError::invalid_params("invalid params: `arguments` must be an object")),
    }
    prompts::get(&prompt, &args).map_err(|e| RpcError::invalid_params(format!("invalid params: {e}")))
}

fn complete(ctx: &Ctx, params: &Map<String, Value>) -> Result<Value, RpcError> {
    let reference = params
        .get("ref")
        .and_then(Value::as_object)
        .ok_or_else(|| RpcError::invalid_params("invalid params: `ref` must be an object"))?;
    let argument = params.get("argument").and_then(Value::as_object).ok_or_else(|| {
        RpcError::invalid_params("invalid params: `argument` must be an object with `name` and `value`")
    })?;
    let arg_name = require_str(argument, "name")?;
    let prefix = argument.get("value").and_then(Value::as_str).unwrap_or("");
    let values = match reference.get("type").and_then(Value::as_str) {
        Some("ref/prompt") => {
            let name = require_str(reference, "name")?;
            let Some(prompt) = tools::prompts().into_iter().find(|p| p.name == name) else {
                return Err(RpcError::invalid_params(format!("invalid params: unknown prompt `{name}`")));
            };
            match arg_name == "account" && prompt.arguments.iter().any(|a| a.name == "account") {
                true => account_names(ctx, prefix),
                false => prompts::complete(&prompt, arg_name, prefix),
            }
        }
        Some("ref/resource") => {
            let uri = reference.get("uri").and_then(Value::as_str).unwrap_or("");
            match resources::is_account_template(uri) && arg_name == "account" {
                true => account_names(ctx, prefix),
                false => Vec::new(),
            }
        }
        _ => {
            return Err(RpcError::invalid_params(
                "invalid params: `ref.type` must be ref/prompt or ref/resource",
            ));
        }
    };
    let total = values.len();
    Ok(json!({"completion": {"values": values, "total": total, "hasMore": false}}))
}

/// The names of this install's accounts (the demo's people in demo mode) that start with `prefix`.
fn account_names(ctx: &Ctx, prefix: &str) -> Vec<String> {
    let states = tools::accounts::states(&ctx.env, ctx.now).unwrap_or_default();
    states.into_iter().map(|s| s.name).filter(|n| n.starts_with(prefix)).collect()
}

fn check_cursor(params: &Map<String, Value>) -> Result<(), RpcError> {
    match params.get("cursor") {
        None | Some(Value::Null) => Ok(()),
        // Every list fits on one page, so no cursor we could have issued exists.
        Some(_) => {
            Err(RpcError::invalid_params("invalid params: unknown `cursor` (every list fits on one page)"))
        }
    }
}

fn require_str<'a>(params: &'a Map<String, Value>, key: &str) -> Result<&'a str, RpcError> {
    match params.get(key) {
        Some(Value::String(s)) => Ok(s),
        Some(_) => Err(RpcError::invalid_params(format!("invalid params: `{key}` must be a string"))),
        None => Err(RpcError::invalid_params(format!("invalid params: missing `{key}`"))),
    }
}
