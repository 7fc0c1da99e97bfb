//! One call, one budget: what bounds a tool call's upstream work, and what it reports while it
//! runs.
//!
//! A tool call, a `call` command or a resource read starts a `Call`. Its deadline
//! (`WITHINGS_CALL_DEADLINE`, default 45 s) counts from that start and covers every upstream
//! request, retry and backoff; the `Client` built for the call also stops after
//! `MAX_REQUESTS` requests. While it works, the client reports `Event`s to the call's `Sink`, if
//! any: the stdio server turns them into MCP progress and log notifications; HTTP mode and the
//! command line have none.

use std::fmt;
use std::rc::Rc;
use std::time::Instant;

use crate::{Error, Result};

/// Upstream requests one call may make: half of Withings' 120 a minute per app.
pub const MAX_REQUESTS: usize = 60;
/// `WITHINGS_CALL_DEADLINE` when unset: under the 60 s that MCP clients wait for an answer.
pub const DEFAULT_DEADLINE_SECS: u64 = 45;
/// The largest deadline accepted (an hour: far beyond any sensible call).
const MAX_DEADLINE_SECS: u64 = 3600;

/// A log severity (RFC 5424, as MCP names them), least severe first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Debug,
    Info,
    Notice,
    Warning,
    Error,
    Critical,
    Alert,
    Emergency,
}

impl Level {
    /// Every level, least severe first.
    pub const ALL: [Level; 8] = [
        Level::Debug,
        Level::Info,
        Level::Notice,
        Level::Warning,
        Level::Error,
        Level::Critical,
        Level::Alert,
        Level::Emergency,
    ];

    /// The MCP name (`debug`, `info`, …).
    pub fn name(self) -> &'static str {
        match self {
            Level::Debug => "debug",
            Level::Info => "info",
            Level::Notice => "notice",
            Level::Warning => "warning",
            Level::Error => "error",
            Level::Critical => "critical",
            Level::Alert => "alert",
            Level::Emergency => "emergency",
        }
    }

    /// The level with this MCP name.
    pub fn parse(name: &str) -> Option<Level> {
        Level::ALL.into_iter().find(|l| l.name() == name)
    }
}

/// Something a client reports while a call runs. Texts never hold a secret: they are built from
/// endpoints and error messages, which are scrubbed.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// The `n`-th upstream request of the client is about to go out; `total` when the client
    /// knows how many it will send.
    Request { endpoint: String, n: usize, total: Option<usize> },
    /// A line for the log at `level` (retries, rate limits, token refreshes).
    Log { level: Level, message: String },
}

/// Where a call's events go.
pub trait Sink {
    fn event(&self, event: &Event);
}

/// The call a context belongs to: when it started, and where its events go.
#[derive(Clone, Default)]
pub struct Call {
    /// The deadline counts from here; `None` outside a call (no deadline, e.g. `auth`).
    pub started: Option<Instant>,
    pub sink: Option<Rc<dyn Sink>>,
}

impl Call {
    /// A call that starts now and reports to `sink`.
    pub fn start(sink: Option<Rc<dyn Sink>>) -> Call {
        Call { started: Some(Instant::now()), sink }
    }
}

impl fmt::Debug for Call {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Call").field("started", &self.started).field("sink", &self.sink.is_some()).finish()
    }
}

/// Seconds from `WITHINGS_CALL_DEADLINE`: a whole number from 1 to 3600, default 45.
pub fn deadline_secs(value: Option<&str>) -> Result<u64> {
    let Some(text) = value else {
        return Ok(DEFAULT_DEADLINE_SECS);
    };
    match text.trim().parse::<u64>() {
        Ok(s) if (1..=MAX_DEADLINE_SECS).contains(&s) => Ok(s),
        _ => Err(Error::boxed(Error::Config(format!(
            "WITHINGS_CALL_DEADLINE must be a whole number of seconds from 1 to {MAX_DEADLINE_SECS}, got `{text}`"
        )))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deadline_values() {
        let cases: &[(Option<&str>, Option<u64>)] = &[
            (None, Some(45)),
            (Some("8"), Some(8)),
            (Some(" 3600 "), Some(3600)),
            (Some("0"), None),
            (Some("3601"), None),
            (Some("-5"), None),
            (Some("4.5"), None),
            (Some("soon"), None),
        ];
        for (value, want) in cases {
            let got = deadline_secs(*value);
            match want {
                Some(s) => assert_eq!(got.unwrap(), *s, "{value:?}"),
                None => {
                    let e = got.unwrap_err().to_string();
                    assert!(e.contains("WITHINGS_CALL_DEADLINE") && e.contains("from 1 to 3600"), "{e}");
                }
            }
        }
    }

    #[test]
    fn levels_order_and_names() {
        assert!(Level::Debug < Level::Info && Level::Warning < Level::Error);
        for l in Level::ALL {
            assert_eq!(Level::parse(l.name()), Some(l));
        }
        assert_eq!(Level::parse("verbose"), None);
    }
}
