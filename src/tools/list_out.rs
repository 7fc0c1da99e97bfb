//! The answer every list tool gives, as a typed value: `count`, `records`, `has_more`, `empty`,
//! the `range` asked about, the privacy mode and units, what was asked of Withings, and
//! `next_offset` when there is more. Serialised as is for `structuredContent` (field order is key
//! order, the same as the list tools of `data.rs`).

use serde::Serialize;
use serde_json::{Map, Value};
use std::fmt::Write as _;

use crate::domain::named::Named;
use crate::domain::privacy::PrivacyMode;
use crate::domain::units::Units;
use crate::tools::data::{DEFAULT_LIMIT, MAX_LIMIT};
use crate::tools::trend_output::WindowOut;
use crate::value::Json;
use crate::withings::budget::MAX_REQUESTS;
use crate::{Error, Result};

/// A list answer, serialised as its [`Frame`] with the records put in.
#[derive(Debug)]
pub struct ListOut<R: Serialize> {
    pub count: usize,
    pub records: Vec<R>,
    pub has_more: bool,
    pub empty: bool,
    pub range: Option<WindowOut>,
    pub privacy_mode: PrivacyMode,
    pub units: Units,
    pub upstream: UpstreamOut,
    pub next_offset: Option<i64>,
}

impl<R: Serialize> ListOut<R> {
    /// An answer holding `records`, with more to come from `next_offset` when it is given.
    pub fn new(
        records: Vec<R>,
        next_offset: Option<i64>,
        privacy_mode: PrivacyMode,
        units: Units,
        upstream: UpstreamOut,
    ) -> Self {
        ListOut {
            count: records.len(),
            has_more: next_offset.is_some(),
            empty: records.is_empty() && next_offset.is_none(),
            records,
            range: None,
            privacy_mode,
            units,
            upstream,
            next_offset,
        }
    }

    /// The answer as `structuredContent`.
    pub fn to_value(&self) -> Result<Value> {
        let records = serde_json::to_value(&self.records).map_err(|e| Error::json("list answer", e))?;
        self.frame().with(records)
    }

    /// Every field but the records, borrowed.
    fn frame(&self) -> Frame<'_> {
        Frame {
            count: self.count,
            records: (),
            has_more: self.has_more,
            empty: self.empty,
            range: self.range.as_ref(),
            privacy_mode: self.privacy_mode,
            units: self.units,
            upstream: &self.upstream,
            next_offset: self.next_offset,
        }
    }
}

impl ListOut<String> {
    /// The answer as `structuredContent` text, each record's compact text written in as it is:
    /// a thousand records as a tree, built to be written once, were a third of a listing's
    /// instructions.
    pub fn into_json(self) -> Result<Json> {
        // Through a tree, whose serializer every answer shares: the frame's own text
        // serializer was 1.5 KB of the static binary.
        let frame = serde_json::to_value(self.frame()).map_err(|e| Error::json("list answer", e))?;
        let frame = crate::value::text(&frame);
        // `{"count":N,"records":null,…}`: the first key is a number, so this is the records' null.
        let at = frame.find(RECORDS).ok_or_else(|| Error::json("list answer", "no place for its records"))?;
        let (head, tail) = frame.split_at(at);
        let tail = tail.get(RECORDS.len()..).unwrap_or_default();
        let size = self.records.iter().map(|r| r.len() + 1).sum::<usize>();
        // Room for the members added after (`account`, `demo`): growing 1 MB of text for
        // them would copy it.
        let mut out = String::with_capacity(frame.len() + size + 256);
        out.push_str(head);
        out.push_str(r#","records":["#);
        for (i, r) in self.records.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str(r);
        }
        out.push(']');
        out.push_str(tail);
        Ok(Json::Text(out))
    }
}

/// Where a [`Frame`]'s text holds the records' place.
const RECORDS: &str = r#","records":null"#;

/// A [`ListOut`] without its records, which go in afterwards: the answer's other fields are
/// serialised by one non-generic function, not once more for each record type (binary size).
/// Its fields are `ListOut`'s, in the same order: the answer's keys, in order.
#[derive(Serialize)]
struct Frame<'a> {
    count: usize,
    /// `null` here, replaced by the records.
    records: (),
    has_more: bool,
    empty: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    range: Option<&'a WindowOut>,
    privacy_mode: PrivacyMode,
    units: Units,
    upstream: &'a UpstreamOut,
    #[serde(skip_serializing_if = "Option::is_none")]
    next_offset: Option<i64>,
}

impl Frame<'_> {
    /// The answer, with `records` in their place.
    fn with(&self, records: Value) -> Result<Value> {
        let mut v = serde_json::to_value(self).map_err(|e| Error::json("list answer", e))?;
        if let Some(slot) = v.get_mut("records") {
            *slot = records;
        }
        Ok(v)
    }
}

/// What the answer cost upstream.
#[derive(Debug, Clone, Serialize)]
pub struct UpstreamOut {
    /// `path action`, e.g. `/v2/user getdevice`.
    pub action: String,
    pub requests: usize,
    /// Why reading stopped early (the call's request budget), when it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
}

impl UpstreamOut {
    pub fn new(path: &str, action: &str, requests: usize, budget_spent: bool) -> UpstreamOut {
        let stopped = budget_spent.then(|| format!("request limit reached ({MAX_REQUESTS} per call)"));
        UpstreamOut { action: format!("{path} {action}"), requests, stopped }
    }
}

/// `limit` as validated by the schema (default 100, at most 1000).
pub fn limit(args: &Map<String, Value>) -> usize {
    args.get("limit").and_then(Value::as_i64).unwrap_or(DEFAULT_LIMIT).clamp(1, MAX_LIMIT) as usize
}

/// `offset` as validated by the schema (default 0).
pub fn offset(args: &Map<String, Value>) -> i64 {
    args.get("offset").and_then(Value::as_i64).unwrap_or(0).max(0)
}

/// The closing lines of a list's markdown: why it stopped, how to go on, and what it holds.
pub fn markdown_footer<R: Serialize>(out: &ListOut<R>, noun: &str) -> String {
    let mut md = String::new();
    if let Some(why) = &out.upstream.stopped {
        let _ = writeln!(md, "\nStopped early: {why}.");
    }
    match out.next_offset {
        Some(n) => {
            let _ = writeln!(md, "\nMore {noun} exist: call again with `offset` = {n}.");
        }
        None if out.has_more => {
            let _ = writeln!(md, "\nMore {noun} exist: narrow `after`/`before` to see them.");
        }
        None => {}
    }
    let _ = writeln!(md, "\n{} {noun} · privacy mode `{}`", out.count, out.privacy_mode.name());
    md
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shape_and_footer() {
        let up = UpstreamOut::new("/v2/user", "getdevice", 1, false);
        let out = ListOut::new(vec![1, 2], Some(2), PrivacyMode::Summary, Units::Metric, up);
        let v = out.to_value().unwrap();
        let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            ["count", "records", "has_more", "empty", "privacy_mode", "units", "upstream", "next_offset"]
        );
        assert_eq!((v["count"].as_u64(), v["has_more"].as_bool()), (Some(2), Some(true)));
        let md = markdown_footer(&out, "devices");
        assert!(md.contains("`offset` = 2") && md.contains("2 devices · privacy mode `summary`"), "{md}");
        let spent = UpstreamOut::new("/v2/measure", "getintradayactivity", 60, true);
        let out = ListOut::<i64>::new(vec![], None, PrivacyMode::Raw, Units::Uk, spent);
        assert!(out.empty);
        assert!(
            markdown_footer(&out, "samples").contains("Stopped early: request limit reached (60 per call)")
        );
    }
}
