//! Pacing for long jobs: at most `max` requests in any `window`. Withings allows 120 requests a
//! minute per app (every user and process of the app together); an export that sends hundreds of
//! requests keeps under it by itself instead of running into 601s and their backoff, and leaves
//! part of the minute to the app's other clients (an MCP server running at the same time).

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use crate::{Error, Result};

/// Requests a minute an export sends when `WITHINGS_EXPORT_RATE` is unset: 20 under Withings'
/// 120 a minute per app, left to the app's other clients.
pub const DEFAULT_EXPORT_RATE: usize = 100;
/// The largest rate accepted: Withings' enterprise plans allow 1,500 a minute.
const MAX_EXPORT_RATE: usize = 1500;

/// Requests a minute from `WITHINGS_EXPORT_RATE`: a whole number from 1 to 1500, default 100.
pub fn export_rate(value: Option<&str>) -> Result<usize> {
    let Some(text) = value else { return Ok(DEFAULT_EXPORT_RATE) };
    match text.trim().parse::<usize>() {
        Ok(n) if (1..=MAX_EXPORT_RATE).contains(&n) => Ok(n),
        _ => Err(Error::boxed(Error::Config(format!(
            "WITHINGS_EXPORT_RATE must be a whole number of requests a minute from 1 to {MAX_EXPORT_RATE}, got `{text}`"
        )))),
    }
}

/// A sliding-window limiter over the instants requests went out.
#[derive(Debug, Clone)]
pub struct Pace {
    max: usize,
    window: Duration,
    /// The last `max` requests, oldest first.
    recent: VecDeque<Instant>,
}

impl Pace {
    /// The export's pace: `WITHINGS_EXPORT_RATE` requests a minute (see [`export_rate`]).
    pub fn export(value: Option<&str>) -> Result<Pace> {
        Ok(Pace::new(export_rate(value)?, Duration::from_secs(60)))
    }

    /// At most `max` (at least 1) requests in any `window`.
    pub fn new(max: usize, window: Duration) -> Pace {
        let max = max.max(1);
        Pace { max, window, recent: VecDeque::with_capacity(max) }
    }

    /// The limit in words, for logs.
    pub fn describe(&self) -> String {
        format!("at most {} requests in {} s", self.max, self.window.as_secs())
    }

    /// How long to wait at `now` before one more request may go out.
    pub fn wait(&self, now: Instant) -> Duration {
        match (self.recent.len() < self.max, self.recent.front()) {
            (false, Some(oldest)) => (*oldest + self.window).saturating_duration_since(now),
            _ => Duration::ZERO,
        }
    }

    /// Records a request that went out at `now`.
    pub fn sent(&mut self, now: Instant) {
        self.recent.push_back(now);
        while self.recent.len() > self.max {
            self.recent.pop_front();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_window_waits_until_its_oldest_request_leaves_it() {
        let t0 = Instant::now();
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        let mut p = Pace::new(3, Duration::from_secs(60));
        // (request at ms, wait expected before it)
        let cases: &[(u64, u64)] =
            &[(0, 0), (10, 0), (20, 0), (30, 59_970), (60_015, 0), (60_016, 4), (60_030, 59_970)];
        for &(ms, want) in cases {
            assert_eq!(p.wait(at(ms)), Duration::from_millis(want), "at {ms} ms");
            let sent = at(ms) + p.wait(at(ms));
            p.sent(sent);
        }
        assert_eq!(p.recent.len(), 3, "only the last `max` instants are kept");
        assert_eq!(Pace::new(0, Duration::from_secs(1)).describe(), "at most 1 requests in 1 s");
    }

    #[test]
    fn export_rates() {
        let cases: &[(Option<&str>, Option<usize>)] = &[
            (None, Some(100)),
            (Some("20"), Some(20)),
            (Some(" 1500 "), Some(1500)),
            (Some("0"), None),
            (Some("1501"), None),
            (Some("fast"), None),
        ];
        for (value, want) in cases {
            match (export_rate(*value), want) {
                (Ok(n), Some(w)) => assert_eq!(n, *w, "{value:?}"),
                (Err(e), None) => assert!(e.to_string().contains("WITHINGS_EXPORT_RATE"), "{e}"),
                (got, _) => panic!("{value:?}: {got:?}"),
            }
        }
    }
}
