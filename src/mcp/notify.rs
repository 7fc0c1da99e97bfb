//! A call's events as MCP notifications: `notifications/progress` for a request that carries a
//! `progressToken`, `notifications/message` at or above the session's log level.
//!
//! The transport decides where they go (`Notify`): the stdio server writes each one as a line
//! during the call, before the reply; HTTP mode answers with one JSON body per request and has
//! nowhere to send them, so it supplies none.

use std::cell::Cell;
use std::rc::Rc;

use serde_json::Value;

use crate::value::json;
use crate::withings::budget::{Event, Level, Sink};

/// Sends one JSON-RPC notification while a request is being handled.
pub trait Notify {
    fn notify(&self, message: &Value);
}

/// The sink of one call: what to report, and where.
pub struct Notifier {
    out: Rc<dyn Notify>,
    /// The request's `_meta.progressToken`: progress is reported only with one.
    token: Option<Value>,
    /// The least severe level to report; `None` until the client asks for logs.
    level: Option<Level>,
    /// The last `progress` sent (it must strictly increase).
    progress: Cell<u64>,
}

impl Notifier {
    /// The sink for a call, or `None` when the client asked for neither progress nor logs.
    pub fn new(out: Rc<dyn Notify>, token: Option<Value>, level: Option<Level>) -> Option<Notifier> {
        (token.is_some() || level.is_some()).then(|| Notifier { out, token, level, progress: Cell::new(0) })
    }
}

impl Sink for Notifier {
    fn event(&self, event: &Event) {
        let (method, params) = match event {
            Event::Request { endpoint, n, total } => {
                let Some(token) = &self.token else { return };
                let progress = self.progress.get() + 1;
                self.progress.set(progress);
                let mut params = json!({
                    "progressToken": token,
                    "progress": progress,
                    "message": format!("Withings request {n}: {endpoint}"),
                });
                if let Some(t) = total {
                    params["total"] = json!((*t as u64).max(progress));
                }
                ("notifications/progress", params)
            }
            Event::Log { level, message } => {
                if self.level.is_none_or(|least| *level < least) {
                    return;
                }
                (
                    "notifications/message",
                    json!({"level": level.name(), "logger": "withings", "data": message}),
                )
            }
        };
        self.out.notify(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;

    use super::*;

    #[derive(Default)]
    struct Collect(RefCell<Vec<Value>>);

    impl Notify for Collect {
        fn notify(&self, message: &Value) {
            self.0.borrow_mut().push(message.clone());
        }
    }

    fn run(token: Option<Value>, level: Option<Level>, events: &[Event]) -> Vec<Value> {
        let out = Rc::new(Collect::default());
        if let Some(n) = Notifier::new(out.clone(), token, level) {
            for e in events {
                n.event(e);
            }
        }
        out.0.take()
    }

    fn events() -> Vec<Event> {
        let req = |n| Event::Request { endpoint: "/measure getmeas".into(), n, total: None };
        let log = |level, m: &str| Event::Log { level, message: m.into() };
        vec![
            req(1),
            log(Level::Debug, "request 1"),
            log(Level::Warning, "rate limited"),
            req(2),
            Event::Request { endpoint: "/v2/sleep get".into(), n: 3, total: Some(2) },
            log(Level::Info, "refreshed"),
        ]
    }

    #[test]
    fn progress_only_with_a_token_strictly_increasing_and_never_below_total() {
        assert!(run(None, None, &events()).is_empty());
        let out = run(Some(json!("t1")), None, &events());
        let progress: Vec<&Value> = out.iter().map(|m| &m["params"]["progress"]).collect();
        assert_eq!(progress, [&json!(1), &json!(2), &json!(3)]);
        assert!(
            out.iter()
                .all(|m| m["method"] == "notifications/progress" && m["params"]["progressToken"] == "t1")
        );
        assert_eq!(out[2]["params"]["total"], 3, "a total is never below the progress");
        assert_eq!(out[0]["params"]["message"], "Withings request 1: /measure getmeas");
        assert!(out[0]["params"].get("total").is_none());
    }

    #[test]
    fn logs_at_or_above_the_level_only() {
        let levels = |level| {
            run(None, Some(level), &events())
                .iter()
                .map(|m| m["params"]["level"].as_str().unwrap().to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(levels(Level::Debug), ["debug", "warning", "info"]);
        assert_eq!(levels(Level::Info), ["warning", "info"]);
        assert_eq!(levels(Level::Warning), ["warning"]);
        assert!(levels(Level::Error).is_empty());
        let one = &run(None, Some(Level::Warning), &events())[0];
        assert_eq!(
            one,
            &json!({"jsonrpc": "2.0", "method": "notifications/message",
            "params": {"level": "warning", "logger": "withings", "data": "rate limited"}})
        );
    }
}
