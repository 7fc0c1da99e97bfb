//! The one error type of the crate.
//!
//! Display messages are short, lowercase and never contain a secret: callers put names of things
//! (an endpoint, an argument, a file) into variants, never token values or response bodies. Text
//! that came from outside enters only as `Foreign`, which is scrubbed on the way in.

use std::fmt;
use std::io;

/// Everything that can go wrong, grouped by what the user can do about it.
#[derive(Debug)]
pub enum Error {
    /// The command line was wrong; exit code 2.
    Usage(String),
    /// A tool or command argument was invalid; names the argument.
    InvalidArgument { name: String, message: String },
    /// Local configuration is missing or wrong (client id, redirect URI, privacy mode, zone…).
    Config(String),
    /// A local file could not be read or written.
    Io { context: String, source: io::Error },
    /// A local file or upstream answer was not the JSON we expected (a decoder's message may
    /// quote the input, so it is foreign text).
    Json { context: String, message: Foreign },
    /// No usable token: the user must run `withings-mcp auth` (again).
    NeedsAuth(String),
    /// `NeedsAuth` for an account other than `default`, whose advice names it.
    AccountNeedsAuth { account: String, message: String },
    /// Withings answered with a non-zero `status` that is not retried.
    Api { endpoint: String, status: i64, kind: ApiKind, message: Foreign },
    /// Withings refused `endpoint` as not allowed (`status` 214, 277, 2553 or 2555): the
    /// connection was most likely not granted `scope`.
    MissingScope { endpoint: String, status: i64, scope: &'static str },
    /// Withings kept answering 601 (or HTTP 429) after the bounded backoff.
    RateLimited { endpoint: String },
    /// The network failed (refused, reset, timeout, DNS, TLS, non-JSON gateway page).
    Transport { endpoint: String, message: String },
    /// The call's deadline (`WITHINGS_CALL_DEADLINE`, `secs`) passed before `endpoint` answered.
    Deadline { endpoint: String, secs: u64 },
    /// The call would need more than `limit` upstream requests; `endpoint` was the next one.
    Budget { endpoint: String, limit: usize },
    /// The command or feature is not available in this build or mode.
    Unavailable(String),
    /// An export stopped while writing `domain`, for the reason given; the files in `dir` are as
    /// they were.
    Export { domain: &'static str, dir: String, reason: String },
}

/// The family of a Withings `status` code (see `withings::status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApiKind {
    /// 100–102, 200, 401: the access token was refused.
    Auth,
    /// Invalid parameters (a large documented range); on the token endpoint, a used or bad code.
    InvalidParams,
    /// 214, 277, 2553, 2555: a scope, plan or partner permission is missing.
    Unauthorized,
    /// 2554: no such service or action.
    NotImplemented,
    /// 522: the upstream timed out.
    Timeout,
    /// 524: bad state.
    BadState,
    /// "An error occurred" family, retried a few times before it surfaces.
    Server,
    /// Any other code.
    Unknown,
}

/// Text from outside (Withings' `error` strings, decoders' messages about upstream bodies, a
/// callback's parameters), made safe to show on the way into an `Error`: every secret the
/// process knows and every value of a secret-named key replaced (`redact`), control characters
/// dropped, at most `Foreign::MAX_CHARS` characters. It can only be built through `new`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Foreign(String);

impl Foreign {
    /// Longest excerpt kept.
    pub const MAX_CHARS: usize = 240;

    /// Scrubs and shortens `raw`.
    pub fn new(raw: &str) -> Foreign {
        // Bounded before scrubbing (a hostile body may be megabytes); any secret cut at that
        // bound lies far beyond the excerpt that is kept.
        let head = match raw.char_indices().nth(16 * Foreign::MAX_CHARS) {
            Some((i, _)) => raw.get(..i).unwrap_or(raw),
            None => raw,
        };
        let clean = crate::redact::scrub(head);
        Foreign(clean.chars().filter(|c| !c.is_control()).take(Foreign::MAX_CHARS).collect())
    }

    /// The scrubbed text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// True when nothing is left.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Display for Foreign {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// `Result` with this crate's error, boxed: a `Result` then carries 8 bytes for its error, not
/// 64, and every `?` and every return moves those 8 (−31 KB of machine code in the static
/// build, measured). Errors are rare, so one allocation each costs nothing that shows.
pub type Result<T, E = Box<Error>> = std::result::Result<T, E>;

impl Error {
    // Each generic shorthand only converts its arguments and calls a non-generic function that
    // boxes the error: the allocation is compiled once, not once per argument type.
    /// Shorthand for an invalid argument error.
    pub fn arg(name: &str, message: impl Into<String>) -> Box<Error> {
        Self::boxed(Error::InvalidArgument { name: name.to_string(), message: message.into() })
    }

    /// Shorthand for an I/O error with context (usually a path).
    pub fn io(context: impl Into<String>, source: io::Error) -> Box<Error> {
        Self::boxed(Error::Io { context: context.into(), source })
    }

    /// Shorthand for a JSON decoding error with context; the message is treated as foreign.
    pub fn json(context: impl Into<String>, message: impl fmt::Display) -> Box<Error> {
        Self::json_text(context.into(), &message)
    }

    fn json_text(context: String, message: &dyn fmt::Display) -> Box<Error> {
        Self::boxed(Error::Json { context, message: Foreign::new(&message.to_string()) })
    }

    /// The error, boxed: the one place that allocates one (one allocation call and failure
    /// path, not one at every site that builds an error).
    pub(crate) fn boxed(error: Error) -> Box<Error> {
        Box::new(error)
    }

    /// This error as met by `account`: a `NeedsAuth` of an account other than `default` names
    /// it, so that its advice signs in the right person.
    pub fn for_account(mut self: Box<Error>, account: &str) -> Box<Error> {
        if let Error::NeedsAuth(message) = &mut *self
            && account != crate::store::accounts::DEFAULT
        {
            let message = std::mem::take(message);
            *self = Error::AccountNeedsAuth { account: account.to_string(), message };
        }
        self
    }

    /// The process exit code for this error: 2 for usage errors, 1 for everything else.
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Usage(_) => 2,
            _ => 1,
        }
    }

    /// True for the limits of a whole call (deadline, request budget): the call must end with
    /// this error rather than degrade to a partial answer that would not say why.
    pub fn ends_call(&self) -> bool {
        matches!(self, Error::Deadline { .. } | Error::Budget { .. })
    }

    /// True when the error is a closed pipe, which a CLI treats as success (`… | head`).
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, Error::Io { source, .. } if source.kind() == io::ErrorKind::BrokenPipe)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Usage(m) => write!(f, "{m}"),
            Error::InvalidArgument { name, message } => {
                write!(f, "invalid argument `{name}`: {message}")
            }
            Error::Config(m) => write!(f, "configuration: {m}"),
            Error::Io { context, source } => write!(f, "{context}: {source}"),
            Error::Json { context, message } => write!(f, "{context}: invalid JSON: {message}"),
            Error::NeedsAuth(m) => write!(f, "{m}; run `withings-mcp auth` to connect your Withings account"),
            Error::AccountNeedsAuth { account, message } => write!(
                f,
                "account `{account}`: {message}; run `withings-mcp auth --account {account}` to connect it"
            ),
            Error::Api { endpoint, status, kind, message } => {
                let family = match kind {
                    ApiKind::Auth => "authentication failed",
                    ApiKind::InvalidParams => "invalid parameters",
                    ApiKind::Unauthorized => "not allowed (missing scope, plan or permission)",
                    ApiKind::NotImplemented => "no such service or action",
                    ApiKind::Timeout => "upstream timeout",
                    ApiKind::BadState => "bad state",
                    ApiKind::Server => "an error occurred upstream",
                    ApiKind::Unknown => "unexpected status",
                };
                write!(f, "withings {endpoint}: status {status} ({family})")?;
                match message.is_empty() {
                    true => Ok(()),
                    false => write!(f, ": {message}"),
                }
            }
            Error::MissingScope { endpoint, status, scope } => write!(
                f,
                "withings {endpoint}: status {status} (not allowed): this needs the `{scope}` scope, which \
                 this connection was not granted (or your Withings plan lacks this data); run \
                 `withings-mcp auth` again and approve `{scope}` (if you set WITHINGS_SCOPES, include it there)"
            ),
            Error::RateLimited { endpoint } => {
                write!(f, "withings {endpoint}: rate limited (status 601); try again in a minute")
            }
            Error::Transport { endpoint, message } => write!(f, "withings {endpoint}: {message}"),
            Error::Deadline { endpoint, secs } => write!(
                f,
                "withings {endpoint} did not answer in time: the call's deadline of {secs} s passed \
                 (WITHINGS_CALL_DEADLINE); try again later or ask for a shorter range"
            ),
            Error::Budget { endpoint, limit } => write!(
                f,
                "withings {endpoint}: this call would need more than {limit} requests to Withings (the limit \
                 per call); narrow the range (`after`/`before`, or fewer `days`) and call again"
            ),
            Error::Unavailable(m) => write!(f, "{m}"),
            Error::Export { domain, dir, reason } => {
                write!(f, "export stopped at {domain}: {reason}; the files in {dir} are as they were")
            }
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

impl From<lexopt::Error> for Box<Error> {
    fn from(e: lexopt::Error) -> Box<Error> {
        Error::boxed(Error::Usage(e.to_string()))
    }
}
