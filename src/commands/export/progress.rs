//! An export's progress on stderr. On a terminal: one live line (the domain, records and
//! requests so far, and a pacing wait while it lasts), redrawn at most ten times a second. Else
//! (a log, a pipe): one line per domain when it is done. Retries and rate limits are reported on
//! lines of their own either way. stdout stays for the summary.

use std::cell::RefCell;
use std::io::Write;
use std::time::{Duration, Instant};

use crate::withings::budget::{Event, Level, Sink};

/// Where the counts are kept while the client reports requests through `Sink`.
pub struct Progress {
    live: bool,
    state: RefCell<State>,
}

struct State {
    domain: &'static str,
    records: usize,
    requests: usize,
    all_requests: usize,
    started: Instant,
    drawn: Option<Instant>,
    /// Shown after the counts while a pacing wait lasts.
    note: String,
}

/// Redraws closer together than this are skipped (a sleep-detail export reads thousands of
/// records a second).
const REDRAW: Duration = Duration::from_millis(100);

impl Progress {
    /// `live`: stderr is a terminal.
    pub fn new(live: bool) -> Progress {
        let state = State {
            domain: "",
            records: 0,
            requests: 0,
            all_requests: 0,
            started: Instant::now(),
            drawn: None,
            note: String::new(),
        };
        Progress { live, state: RefCell::new(state) }
    }

    /// A domain starts.
    pub fn begin(&self, domain: &'static str) {
        let mut s = self.state.borrow_mut();
        (s.domain, s.records, s.requests, s.started, s.drawn) = (domain, 0, 0, Instant::now(), None);
        s.note.clear();
        drop(s);
        self.draw(false);
    }

    /// One more record written.
    pub fn record(&self) {
        self.state.borrow_mut().records += 1;
        self.draw(false);
    }

    /// The domain is done: its line, for good.
    pub fn end(&self) {
        let s = self.state.borrow();
        let line = format!("{}, {:.1} s", counts(&s), s.started.elapsed().as_secs_f64());
        drop(s);
        match self.live {
            true => eprint!("\r\x1b[2K{line}\n"),
            false => eprintln!("{line}"),
        }
    }

    /// The run stops: a live line is ended, so that the error comes on a line of its own.
    pub fn stop(&self) {
        if self.live {
            eprintln!();
        }
    }

    /// Requests sent in the whole run.
    pub fn all_requests(&self) -> usize {
        self.state.borrow().all_requests
    }

    fn draw(&self, force: bool) {
        if !self.live {
            return;
        }
        let mut s = self.state.borrow_mut();
        if !force && s.drawn.is_some_and(|t| t.elapsed() < REDRAW) {
            return;
        }
        s.drawn = Some(Instant::now());
        let note = match s.note.is_empty() {
            true => String::new(),
            false => format!(" ({})", s.note),
        };
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "\r\x1b[2K{}{note}", counts(&s));
        let _ = err.flush();
    }

    /// A message on a line of its own, the live line redrawn under it.
    fn say(&self, message: &str) {
        match self.live {
            true => eprint!("\r\x1b[2Kexport: {message}\n"),
            false => eprintln!("export: {message}"),
        }
        self.draw(true);
    }
}

/// The counts a person reads, grouped as everywhere else ("12,345 records").
fn counts(s: &State) -> String {
    let n = |x: usize| crate::domain::units::grouped(x as f64, 0);
    format!("export: {}: {} records, {} requests", s.domain, n(s.records), n(s.requests))
}

impl Sink for Progress {
    fn event(&self, event: &Event) {
        match event {
            Event::Request { .. } => {
                let mut s = self.state.borrow_mut();
                (s.requests, s.all_requests) = (s.requests + 1, s.all_requests + 1);
                s.note.clear();
                drop(s);
                self.draw(false);
            }
            Event::Log { level, message } if *level >= Level::Warning => self.say(message),
            Event::Log { message, .. } if message.starts_with("pacing") => {
                self.state.borrow_mut().note = message.clone();
                self.draw(true);
            }
            Event::Log { .. } => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_grouped_like_every_other_count() {
        let p = Progress::new(false);
        p.begin("intraday");
        {
            let mut s = p.state.borrow_mut();
            (s.records, s.requests) = (12_345, 1_002);
        }
        assert_eq!(counts(&p.state.borrow()), "export: intraday: 12,345 records, 1,002 requests");
    }
}
