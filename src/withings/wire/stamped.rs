//! A list row as its own text and the times it names: the list tools and the export order a
//! range's rows by time from one cheap pass of the scanner, and decode only the rows they return
//! (a thousand of ten years' twenty thousand weigh-ins, say).

use serde_json::value::RawValue;

use super::scan::{Fault, Lit, Scan};
use super::{Answer, PageBody, Row};
use crate::domain::time::{CivilDate, Instant, Zone};
use crate::{Error, Result};

/// A row's text, as Withings sent it, and when it happened.
#[derive(Debug)]
pub struct Stamped {
    /// Unix seconds: `startdate` (workouts, sleep), else `timestamp` (heart), else an epoch
    /// `date` (getmeas); numbers or numeric strings.
    pub epoch: Option<i64>,
    /// A civil `date` (activity, sleep summaries, workouts).
    pub day: Option<CivilDate>,
    pub text: Box<str>,
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

    /// The row as the record decoders take it.
    pub fn raw(self, endpoint: &str) -> Result<Box<RawValue>> {
        RawValue::from_string(self.text.into()).map_err(|e| Error::json(format!("withings {endpoint}"), e))
    }
}

impl Row for Stamped {
    type Kept = Stamped;
    fn keep(self) -> Stamped {
        self
    }
    fn page(answer: &Answer, endpoint: &str) -> Result<PageBody<Self>> {
        answer.scan_page::<Self>(endpoint, &mut stamp)
    }
}

/// One row: its text, and the time fields of an object (a row of another kind names none). A key
/// sent twice counts its last value, as in a JSON tree.
fn stamp(s: &mut Scan<'_>) -> std::result::Result<Stamped, Fault> {
    s.peek()?;
    let from = s.at();
    let [mut start, mut timestamp, mut date] = [None; 3];
    let mut day = None;
    match s.peek()? {
        // Keys are matched as bytes, compared in line (a `str` pattern is a call per key tried).
        b'{' => s.object(&mut |s, key| {
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
                _ => s.skip()?,
            }
            Ok(())
        })?,
        _ => s.skip()?,
    }
    let epoch = start.or(timestamp).or(date);
    Ok(Stamped { epoch, day, text: s.since(from).into() })
}
