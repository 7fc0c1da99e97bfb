//! A list row as its own text and the times it names: the list tools and the export order a
//! range's rows by time from one cheap pass of the scanner, and decode only the rows they return
//! (a thousand of ten years' twenty thousand weigh-ins, say).

use std::ops::Range;
use std::rc::Rc;

use super::scan::{Fault, Lit, Scan};
use super::{Answer, PageBody, Row};
use crate::Result;
use crate::domain::time::{CivilDate, Instant, Zone};

/// A row's text, as Withings sent it, and when it happened.
#[derive(Debug)]
pub struct Stamped {
    /// Unix seconds: `startdate` (workouts, sleep), else `timestamp` (heart), else an epoch
    /// `date` (getmeas); numbers or numeric strings.
    pub epoch: Option<i64>,
    /// A civil `date` (activity, sleep summaries, workouts).
    pub day: Option<CivilDate>,
    /// The answer's text, shared by the rows of its page, and where this row is in it: a copy
    /// of each row's text was the body over again in fresh memory (ten years of weigh-ins:
    /// 14.6 MB in 20,000 allocations, 3,600 page faults) for the few rows a list returns.
    page: Rc<String>,
    span: Range<usize>,
}

impl Stamped {
    /// The row's place in time, in Unix seconds (a civil date as its UTC midnight, which orders
    /// the days of a domain that has only dates); rows without one (`i64::MAX`) sort last.
    pub fn time(&self) -> i64 {
        match (self.epoch, self.day) {
            (Some(t), _) => t,
            (None, Some(d)) => d.days() * 86_400,
            (None, None) => i64::MAX,
        }
    }

    /// The earliest civil day the row names, instants read in `zone`.
    pub fn day_in(&self, zone: &Zone) -> Option<CivilDate> {
        [self.epoch.map(|t| zone.local_date(Instant(t))), self.day].into_iter().flatten().min()
    }

    /// The row's text, as Withings sent it.
    pub fn text(&self) -> &str {
        self.page.get(self.span.clone()).unwrap_or_default()
    }
}

impl Row for Stamped {
    type Kept = Stamped;
    fn keep(self) -> Stamped {
        self
    }
    fn page(answer: &Answer, endpoint: &str) -> Result<PageBody<Self>> {
        stamp_page(Rc::new(answer.text.clone()), answer.http_status, endpoint)
    }
    fn page_of(answer: Answer, endpoint: &str) -> Result<PageBody<Self>> {
        stamp_page(Rc::new(answer.text), answer.http_status, endpoint)
    }
}

/// A page's rows, each sharing `text`.
fn stamp_page(text: Rc<String>, http_status: u16, endpoint: &str) -> Result<PageBody<Stamped>> {
    super::scan_page::<Stamped>(&text, http_status, endpoint, &mut |s| stamp(s, &text))
}

/// One row: its text, and the time fields of an object (a row of another kind names none). A key
/// sent twice counts its last value, as in a JSON tree.
fn stamp(s: &mut Scan<'_>, page: &Rc<String>) -> std::result::Result<Stamped, Fault> {
    s.peek()?;
    let from = s.at();
    let [mut start, mut timestamp, mut date] = [None; 3];
    let mut day = None;
    // Only the time fields are read; the rest is passed over in line (keys matched as bytes,
    // compared in line: a `str` pattern is a call per key tried).
    s.entries(&mut |s, key| {
        match key.as_bytes() {
            b"startdate" => start = s.lit()?.int(),
            b"timestamp" => timestamp = s.lit()?.int(),
            b"date" => {
                let lit = s.lit()?;
                date = lit.int();
                day = match &lit {
                    Lit::Str(t) => CivilDate::parse(t).ok(),
                    _ => None,
                };
            }
            _ => return Ok(false),
        }
        Ok(true)
    })?;
    let epoch = start.or(timestamp).or(date);
    Ok(Stamped { epoch, day, page: Rc::clone(page), span: from..s.at() })
}
