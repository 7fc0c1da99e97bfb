//! `withings_list_intraday`: the day sample by sample (measure v2 `getintradayactivity`).
//!
//! Withings answers at most 24 hours per request and does not page, so a range is read in 24 h
//! windows, newest first, one request each (a week is 7 requests): `limit` then returns the most
//! recent samples, and `next_offset` names the window and the sample to go on from
//! (`withings::windows`). [`each_window`] reads a range the same way for export, oldest first,
//! handing over each window's samples as soon as they are decoded.

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Map, Value};
use std::fmt::Write as _;

use crate::domain::intraday::{self, FIELDS, FieldSet, Sample};
use crate::domain::privacy::{self, PrivacyMode};
use crate::domain::time::{self, DAY_SECS, Instant, Range, Zone};
use crate::domain::units::{self, Units};
use crate::tools::data;
use crate::tools::list_out::{self, ListOut, UpstreamOut};
use crate::tools::{Annotations, Ctx, Output, Tool};
use crate::withings::client::Client;
use crate::withings::{windows, wire};
use crate::{Error, Result};

const PATH: &str = "/v2/measure";
const ACTION: &str = "getintradayactivity";

/// The tool.
pub fn tools() -> Vec<Tool> {
    vec![Tool {
        name: "withings_list_intraday",
        title: "Intraday activity",
        annotations: Annotations::REMOTE_READ,
        handler: list_intraday,
    }]
}

/// The range: `after`/`before` in the user's zone; without `after`, the 24 hours before `before`
/// (default now), not whole civil days.
fn intraday_range(args: &Map<String, Value>, zone: &Zone, now: i64) -> Result<Range> {
    let mut range = data::date_range(args, zone, now, 1)?;
    if !args.contains_key("after") {
        range.start = range.end.plus(-DAY_SECS);
        range.start_date = zone.local_date(range.start);
    }
    Ok(range)
}

fn fields_arg(args: &Map<String, Value>) -> Result<FieldSet> {
    let names: Vec<&str> = args
        .get("fields")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    FieldSet::of(&names).map_err(|e| Error::arg("fields", e))
}

/// The request parameters of the window `[start, end)` (Withings' `enddate` is inclusive).
fn params(start: Instant, end: Instant, fields: FieldSet) -> Vec<(&'static str, String)> {
    vec![
        ("startdate", start.0.to_string()),
        ("enddate", (end.0 - 1).max(start.0).to_string()),
        ("data_fields", fields.data_fields()),
    ]
}

/// One window's samples with a value in `fields`, newest first: the daily brief's and the
/// `hrv`/`spo2` trends' read of one night.
pub fn fetch_window(
    client: &mut Client,
    start: Instant,
    end: Instant,
    fields: FieldSet,
) -> Result<Vec<Sample>> {
    fetch(client, start, end, fields, None)
}

/// One window's samples with a value in `fields`, newest first; in raw privacy mode each sample's
/// object as sent also goes into `raw`, by time.
fn fetch(
    client: &mut Client,
    start: Instant,
    end: Instant,
    fields: FieldSet,
    raw: Option<&mut Vec<(i64, Value)>>,
) -> Result<Vec<Sample>> {
    let endpoint = format!("{PATH} {ACTION}");
    let answer = client.call_answer(PATH, ACTION, &params(start, end, fields))?;
    let kept = wire::intraday::samples(&answer, &endpoint, fields)?;
    if let Some(raw) = raw
        && let Some(Value::Object(series)) = answer.value(&endpoint)?.get_mut("series").map(Value::take)
    {
        raw.extend(series.into_iter().filter_map(|(k, v)| Some((k.trim().parse().ok()?, v))));
    }
    // A week is seven answers of the same size: the next is read into this one's memory.
    client.recycle(answer.text);
    Ok(intraday::in_window(kept, start, end))
}

/// Reads `range` window by window, oldest first, handing each window's records (oldest first)
/// to `each` as soon as they are decoded: the streaming source for export. The records are the
/// list tool's, in `privacy` mode (raw: each sample as sent).
pub fn each_window(
    client: &mut Client,
    range: &Range,
    zone: &Zone,
    privacy: PrivacyMode,
    each: &mut dyn FnMut(Value) -> Result<()>,
) -> Result<()> {
    let windows = time::split_range(range, DAY_SECS);
    client.expect(windows.len());
    let raw_mode = privacy == PrivacyMode::Raw;
    let mut raw = Vec::new();
    for (start, end) in windows {
        raw.clear();
        let samples = fetch(client, start, end, FieldSet::ALL, raw_mode.then_some(&mut raw))?;
        for sample in samples.into_iter().rev() {
            let rec = match raw_mode {
                true => as_sent(sample.t.0, &mut raw),
                false => serde_json::to_value(SampleOut::new(sample, zone, privacy != PrivacyMode::Summary))
                    .map_err(|e| Error::json("an intraday sample", e))?,
            };
            each(rec)?;
        }
    }
    Ok(())
}

/// The raw-mode record of the sample at `t`: its time as `time`, then its object as sent (taken
/// out of `raw`), secrets removed.
fn as_sent(t: i64, raw: &mut [(i64, Value)]) -> Value {
    let mut m = Map::new();
    m.insert("time".into(), t.into());
    if let Some(Value::Object(fields)) = raw.iter_mut().find(|(at, _)| *at == t).map(|(_, v)| v.take()) {
        m.extend(fields);
    }
    let mut v = Value::Object(m);
    privacy::strip_secrets(&mut v);
    v
}

fn list_intraday(ctx: &Ctx, args: &Map<String, Value>) -> Result<Output> {
    let s = data::settings(ctx, args)?;
    let fields = fields_arg(args)?;
    let range = intraday_range(args, &s.zone, ctx.now)?;
    let mut client = ctx.client(&s.cfg, &s.zone)?;
    let mut windows = time::split_range(&range, DAY_SECS);
    windows.reverse();
    let (limit, offset) = (list_out::limit(args), list_out::offset(args));
    let raw_mode = s.privacy == PrivacyMode::Raw;
    let mut raw = Vec::new();
    let mut one =
        |c: &mut Client, a: Instant, b: Instant| fetch(c, a, b, fields, raw_mode.then_some(&mut raw));
    let got = windows::read(&mut client, &windows, limit, offset, &mut one)?;
    let with_model = s.privacy == PrivacyMode::Structured;
    let records = got.rows.into_iter().map(|x| SampleOut::new(x, &s.zone, with_model)).collect();
    let upstream = UpstreamOut::new(PATH, ACTION, client.requests_sent(), got.budget_spent);
    let mut out = ListOut::new(records, got.next_offset, s.privacy, s.units, upstream);
    out.range = Some(data::range_out(&range, &s.zone));
    // Raw mode answers each sample as sent (its time as `time`); the text reads them decoded.
    let markdown = markdown(&out, s.units);
    let mut structured = out.to_value()?;
    if raw_mode {
        let sent = out.records.iter().map(|r| as_sent(r.sample.t.0, &mut raw));
        structured["records"] = Value::Array(sent.collect());
    }
    Ok(Output { structured: structured.into(), markdown, extra: Vec::new() })
}

/// One sample as the answer shows it: its time, the device (structured mode), and only the
/// fields recorded, in Withings' names; whole numbers as integers.
#[derive(Debug)]
struct SampleOut {
    sample: Sample,
    local_time: String,
    with_model: bool,
}

impl SampleOut {
    fn new(sample: Sample, zone: &Zone, with_model: bool) -> SampleOut {
        SampleOut { local_time: time::format_local(sample.t, zone), sample, with_model }
    }
}

impl Serialize for SampleOut {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let x = &self.sample;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("time", &x.t.0)?;
        m.serialize_entry("local_time", &self.local_time)?;
        if self.with_model {
            if let Some(model) = &x.model {
                m.serialize_entry("model", model)?;
            }
            if let Some(id) = x.model_id {
                m.serialize_entry("model_id", &id)?;
            }
        }
        for (f, v) in FIELDS.iter().zip(&x.values) {
            if let Some(v) = v {
                m.serialize_entry(f.name, &Number(*v))?;
            }
        }
        m.end()
    }
}

/// A value as JSON shows it best: whole numbers (step counts) as integers.
struct Number(f64);

impl Serialize for Number {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match self.0.fract() == 0.0 && self.0.abs() < 9.0e15 {
            true => s.serialize_i64(self.0 as i64),
            false => s.serialize_f64(self.0),
        }
    }
}

fn heading<R: Serialize>(out: &ListOut<R>) -> String {
    let minute = |t: &str| t.get(..16).unwrap_or(t).replace('T', " ");
    match &out.range {
        Some(r) => format!("# Intraday samples {} → {} ({})\n\n", minute(&r.start), minute(&r.end), r.zone),
        None => "# Intraday samples\n\n".to_string(),
    }
}

/// The samples as a person reads them: what each field did over the samples shown, then the
/// samples themselves, newest first, in the units asked for.
fn markdown(out: &ListOut<SampleOut>, units: Units) -> String {
    let mut md = heading(out);
    if out.records.is_empty() {
        md.push_str("No intraday samples in this range.\n");
        return md + &list_out::markdown_footer(out, "samples");
    }
    let samples = || out.records.iter().map(|r| &r.sample);
    let present: Vec<(usize, &intraday::Field)> = FIELDS
        .iter()
        .enumerate()
        .filter(|(i, _)| samples().any(|x| x.values.get(*i).is_some_and(Option::is_some)))
        .collect();
    md.push_str("| field | samples | lowest | highest | mean | total |\n|---|---|---|---|---|---|\n");
    for &(i, f) in &present {
        let Some(st) = intraday::stats(samples(), i) else { continue };
        let total = match intraday::additive(i) {
            true => show(f, st.sum, units),
            false => String::new(),
        };
        let (lo, hi, mean) = (show(f, st.min, units), show(f, st.max, units), show(f, st.mean, units));
        let _ = writeln!(md, "| {} | {} | {lo} | {hi} | {mean} | {total} |", f.what, st.n);
    }
    md.push_str("\n| time |");
    for (_, f) in &present {
        let _ = write!(md, " {} |", f.name);
    }
    let _ = writeln!(md, "\n|---|{}", "---|".repeat(present.len()));
    for r in &out.records {
        let _ = write!(md, "| {} |", r.local_time.get(..16).unwrap_or(&r.local_time).replace('T', " "));
        for &(i, f) in &present {
            let cell =
                r.sample.values.get(i).copied().flatten().map(|v| show(f, v, units)).unwrap_or_default();
            let _ = write!(md, " {cell} |");
        }
        md.push('\n');
    }
    md + &list_out::markdown_footer(out, "samples")
}

/// A value of a field with its unit, converted for `units` (distance, temperature).
fn show(f: &intraday::Field, v: f64, units: Units) -> String {
    let decimals = match f.unit {
        "steps" | "floors" | "strokes" | "laps" | "s" | "bpm" => 0,
        _ => 1,
    };
    units::format_quantity(v, f.unit, units, decimals).unwrap_or_else(|| units::fmt_num(v, decimals))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `fields` lists exactly the fields this code decodes (the schema is data, schemas.txt).
    #[test]
    fn the_fields_argument_names_every_decoded_field() {
        let input = tools()[0].input_schema();
        let names: Vec<&str> = FIELDS.iter().map(|f| f.name).collect();
        assert_eq!(input["properties"]["fields"]["items"]["enum"], serde_json::json!(names));
        assert_eq!(input["properties"]["fields"]["maxItems"], FIELDS.len());
    }
}
