//! Actions that answer one window of time per request, with no paging of their own (intraday
//! activity: 24 h; sleep detail: 7 days), read over a longer range.
//!
//! The windows are read in the order the answer lists its records. An offset is
//! `window × WINDOW_SLOTS + position`: it names the window where an answer stopped and the records
//! of that window already returned, so a continuation starts there without fetching the earlier
//! windows again (a window holds far fewer records than the slots: a day has 86,400 seconds).

use crate::domain::time::Instant;
use crate::withings::client::Client;
use crate::{Error, Result};

/// Offsets per window (see the module docs).
pub const WINDOW_SLOTS: i64 = 1_000_000;

/// Records read from consecutive windows.
#[derive(Debug)]
pub struct Windowed<R> {
    pub rows: Vec<R>,
    /// Where to go on, when records are left (`limit` reached, or the budget spent).
    pub next_offset: Option<i64>,
    /// True when the call's request budget stopped the reading.
    pub budget_spent: bool,
}

/// Reads one window `[start, end)`: its records in answer order.
pub type ReadWindow<'a, R> = dyn FnMut(&mut Client, Instant, Instant) -> Result<Vec<R>> + 'a;

/// Reads `windows` in order from `offset`, at most `limit` records, each window through `one`
/// (which returns that window's records in answer order). When the call's request budget runs
/// out after at least one window, the records so far come back with where to go on; a budget
/// spent before any window, and every other error, is the error.
pub fn read<R>(
    client: &mut Client,
    windows: &[(Instant, Instant)],
    limit: usize,
    offset: i64,
    one: &mut ReadWindow<'_, R>,
) -> Result<Windowed<R>> {
    let offset = offset.max(0);
    let first = usize::try_from(offset / WINDOW_SLOTS).unwrap_or(usize::MAX);
    let mut skip = usize::try_from(offset % WINDOW_SLOTS).unwrap_or(0);
    client.expect(windows.len().saturating_sub(first));
    let slot = |window: usize, position: usize| window as i64 * WINDOW_SLOTS + position as i64;
    let mut rows = Vec::new();
    for (i, &(start, end)) in windows.iter().enumerate().skip(first) {
        if rows.len() == limit {
            return Ok(Windowed { rows, next_offset: Some(slot(i, 0)), budget_spent: false });
        }
        let got = match one(client, start, end) {
            Ok(got) => got,
            // Windows were read in this call: return them, with where to go on.
            Err(e) if matches!(*e, Error::Budget { .. }) && i > first => {
                return Ok(Windowed { rows, next_offset: Some(slot(i, 0)), budget_spent: true });
            }
            Err(e) => return Err(e),
        };
        let from = skip.min(got.len());
        skip = 0;
        let room = limit - rows.len();
        let left = got.len() - from;
        rows.extend(got.into_iter().skip(from).take(room));
        if left > room {
            return Ok(Windowed { rows, next_offset: Some(slot(i, from + room)), budget_spent: false });
        }
    }
    Ok(Windowed { rows, next_offset: None, budget_spent: false })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::withings::demo::DemoUpstream;

    fn client() -> Client {
        Client::demo(Box::new(DemoUpstream::new(0, crate::domain::time::Zone::utc())), 0)
    }

    /// Three windows of 3, 0 and 2 records; each record names its window and position.
    fn windows() -> Vec<(Instant, Instant)> {
        vec![(Instant(0), Instant(10)), (Instant(10), Instant(20)), (Instant(20), Instant(30))]
    }

    fn records(_: &mut Client, start: Instant, _: Instant) -> Result<Vec<(i64, usize)>> {
        let n = [3, 0, 2][(start.0 / 10) as usize];
        Ok((0..n).map(|p| (start.0 / 10, p)).collect())
    }

    #[test]
    fn limits_and_offsets_continue_exactly() {
        let ws = windows();
        let mut all = Vec::new();
        let mut offset = 0;
        let mut calls = 0;
        loop {
            let got = read(&mut client(), &ws, 2, offset, &mut records).unwrap();
            all.extend(got.rows);
            calls += 1;
            match got.next_offset {
                Some(n) => offset = n,
                None => break,
            }
        }
        assert_eq!(all, [(0, 0), (0, 1), (0, 2), (2, 0), (2, 1)], "every record once, in order");
        assert_eq!(calls, 3);
        let got = read(&mut client(), &ws, 3, 0, &mut records).unwrap();
        assert_eq!(got.next_offset, Some(WINDOW_SLOTS), "a full window: go on at the next");
        let got = read(&mut client(), &ws, 10, 2 * WINDOW_SLOTS + 1, &mut records).unwrap();
        assert_eq!((got.rows, got.next_offset), (vec![(2, 1)], None));
        let got = read(&mut client(), &ws, 10, 9 * WINDOW_SLOTS, &mut records).unwrap();
        assert!(got.rows.is_empty() && got.next_offset.is_none());
    }

    #[test]
    fn a_spent_budget_returns_what_was_read() {
        let ws = windows();
        let mut budget = |_: &mut Client, start: Instant, e: Instant| -> Result<Vec<(i64, usize)>> {
            match start.0 {
                0 => records(&mut client(), start, e),
                _ => Err(Error::boxed(Error::Budget { endpoint: "x".into(), limit: 60 })),
            }
        };
        let got = read(&mut client(), &ws, 10, 0, &mut budget).unwrap();
        assert_eq!((got.rows.len(), got.next_offset, got.budget_spent), (3, Some(WINDOW_SLOTS), true));
        let err = read(&mut client(), &ws, 10, WINDOW_SLOTS, &mut budget).unwrap_err();
        assert!(matches!(*err, Error::Budget { .. }), "nothing read: the error");
    }
}
