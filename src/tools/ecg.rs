//! `withings_get_ecg`: one ECG by its `signalid` (heart v2 `get`), with the classification and
//! time of the heart `list` row that names it (heart `get` has neither).
//!
//! The trace comes only with `include_signal`, thinned to at most 2,000 evenly spaced samples
//! (`domain::ecg::thin`), with the sampling rate of what is returned.

use serde::Serialize;
use serde_json::{Map, Value};
use std::fmt::Write as _;

use crate::domain::devices::model_name;
use crate::domain::ecg::{self, MAX_SAMPLES, Signal};
use crate::domain::heart::HeartRecord;
use crate::domain::measures::{afib_name, position_name};
use crate::domain::privacy::{self, PrivacyMode};
use crate::domain::time::{self, Instant, Zones};
use crate::store;
use crate::tools::data;
use crate::tools::list_out::UpstreamOut;
use crate::tools::{Annotations, Ctx, Output, Tool};
use crate::withings::wire::heart::HeartWire;
use crate::{Error, Result};

const HEART: &str = "/v2/heart";
/// How far back the recording is looked for without `after`: 20 years, before any Withings ECG.
const SEARCH_DAYS: i64 = 7_300;

/// The tool.
pub fn tools() -> Vec<Tool> {
    vec![Tool {
        name: "withings_get_ecg",
        title: "One ECG",
        annotations: Annotations::REMOTE_READ,
        handler: get_ecg,
    }]
}

/// The answer; summary mode leaves out the device detail.
#[derive(Debug, Serialize)]
struct EcgOut {
    signalid: i64,
    time: Option<i64>,
    local_time: Option<String>,
    timezone: String,
    afib: Option<i64>,
    /// The AFib result's name; `null` for a code outside Withings' table (`afib` keeps it).
    classification: Option<&'static str>,
    heart_rate: Option<f64>,
    /// Hz of the recording.
    sampling_frequency: Option<f64>,
    samples: usize,
    /// Seconds.
    duration: Option<f64>,
    /// Where it was worn and on what (left out in summary mode).
    #[serde(skip_serializing_if = "Option::is_none")]
    wear_position: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    wear_position_name: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    model: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    model_name: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    signal: Option<SignalOut>,
    /// Raw mode: the heart `get` body as sent (without its trace, which is in `signal`).
    #[serde(skip_serializing_if = "Option::is_none")]
    raw: Option<Value>,
    privacy_mode: PrivacyMode,
    upstream: UpstreamOut,
}

#[derive(Debug, Serialize)]
struct SignalOut {
    unit: &'static str,
    /// Hz of the samples returned: the recording's rate ÷ `step`.
    sampling_frequency: Option<f64>,
    /// Every `step`-th sample of the recording, starting with the first.
    step: usize,
    values: Vec<i64>,
}

fn get_ecg(ctx: &Ctx, args: &Map<String, Value>) -> Result<Output> {
    let s = data::settings(ctx, args)?;
    let signalid = args.get("signalid").and_then(Value::as_i64).unwrap_or(0);
    let include = args.get("include_signal").and_then(Value::as_bool).unwrap_or(false);
    // Dates only narrow the heart-list search; without them it covers every record.
    let range = data::date_range(args, &s.zone, ctx.now, SEARCH_DAYS)?;
    let mut client = ctx.client(&s.cfg, &s.zone)?;
    let endpoint = format!("{HEART} get");
    let answer = match client.call_answer(HEART, "get", &[("signalid", signalid.to_string())]) {
        Err(e) => match &*e {
            Error::Api { status, kind: crate::error::ApiKind::InvalidParams, .. } => {
                return Err(Error::arg(
                    "signalid",
                    format!(
                        "Withings has no ECG {signalid} for this account (status {status}); withings_list_heart lists the signal ids"
                    ),
                ));
            }
            _ => return Err(e),
        },
        Ok(answer) => answer,
    };
    let mut body = answer.value(&endpoint)?;
    let signal: Signal = ecg::decode_signal(&body);
    let raw = match s.privacy {
        PrivacyMode::Raw => {
            if let Some(m) = body.as_object_mut() {
                m.remove("signal");
            }
            privacy::strip_secrets(&mut body);
            Some(body)
        }
        _ => None,
    };
    // The heart list as withings_list_heart reads it; the newest recording with this id.
    let list = data::fetch_records::<HeartWire>(&mut client, &range)?;
    let found: Option<HeartRecord> =
        list.into_iter().find(|r| r.ecg.is_some_and(|e| e.signalid == Some(signalid)));
    let own_zone = found.as_ref().and_then(|r| r.timezone.as_deref());
    let mut zones = Zones::new(s.zone.clone());
    store::zones::add_record_zones(&ctx.env, &mut zones, own_zone);
    let zone = zones.for_record(own_zone);
    let t: Option<Instant> = found.as_ref().and_then(|r| r.timestamp);
    let afib = found.as_ref().and_then(|r| r.ecg).and_then(|e| e.afib);
    let thinned = include.then(|| ecg::thin(&signal.samples, MAX_SAMPLES));
    let detail = s.privacy != PrivacyMode::Summary;
    let out = EcgOut {
        signalid,
        time: t.map(|t| t.0),
        local_time: t.map(|t| time::format_local(t, zone)),
        timezone: zone.name().to_string(),
        afib,
        classification: afib.and_then(afib_name),
        heart_rate: signal.heart_rate,
        sampling_frequency: signal.sampling_frequency,
        samples: signal.samples.len(),
        duration: signal.duration_secs().map(|d| crate::domain::fields::round(d, 2)),
        wear_position: signal.wear_position.filter(|_| detail),
        wear_position_name: signal.wear_position.and_then(position_name).filter(|_| detail),
        model: signal.model.filter(|_| detail),
        model_name: signal.model.and_then(model_name).filter(|_| detail),
        signal: thinned.map(|t| SignalOut {
            unit: "µV",
            sampling_frequency: signal
                .sampling_frequency
                .map(|hz| crate::domain::fields::round(hz / t.step as f64, 3)),
            step: t.step,
            values: t.samples,
        }),
        raw,
        privacy_mode: s.privacy,
        upstream: UpstreamOut::new(HEART, "get", client.requests_sent(), false),
    };
    let markdown = markdown(&out, found.is_some());
    let structured = serde_json::to_value(&out).map_err(|e| Error::json("withings_get_ecg answer", e))?;
    Ok(Output { structured: structured.into(), markdown, extra: Vec::new() })
}

fn markdown(out: &EcgOut, listed: bool) -> String {
    let when = out.local_time.as_deref().map(|t| t.get(..16).unwrap_or(t).replace('T', " "));
    let mut md = format!(
        "# ECG {}{}\n\n",
        out.signalid,
        when.map(|w| format!(", {w} ({})", out.timezone)).unwrap_or_default()
    );
    let result = match (out.classification, out.afib, listed) {
        (Some(c), _, _) => format!("AFib result: {}", c.replace('_', " ")),
        (None, Some(code), _) => format!("AFib result code {code} (not in Withings' table)"),
        (None, None, true) => "no AFib result recorded".to_string(),
        (None, None, false) => "not found in the heart list, so no time or AFib result".to_string(),
    };
    let _ = writeln!(md, "- {result}");
    if let Some(hr) = out.heart_rate {
        let _ = writeln!(md, "- Heart rate: {} bpm", crate::domain::units::fmt_num(hr, 0));
    }
    match (out.duration, out.sampling_frequency) {
        (Some(d), Some(hz)) => {
            let _ = writeln!(
                md,
                "- {} samples at {} Hz: {} s",
                out.samples,
                crate::domain::units::fmt_num(hz, 0),
                crate::domain::units::fmt_num(d, 1)
            );
        }
        _ => {
            let _ = writeln!(md, "- {} samples", out.samples);
        }
    }
    let device = out.model_name.map(str::to_string).or(out.model.map(|m| format!("model {m}")));
    let worn = out
        .wear_position_name
        .map(|p| p.replace('_', " "))
        .or(out.wear_position.map(|p| format!("position {p}")));
    match (device, worn) {
        (Some(dev), Some(w)) => {
            let _ = writeln!(md, "- {dev}, worn on the {w}");
        }
        (Some(dev), None) => {
            let _ = writeln!(md, "- {dev}");
        }
        (None, Some(w)) => {
            let _ = writeln!(md, "- worn on the {w}");
        }
        (None, None) => {}
    }
    if let Some(sig) = &out.signal {
        let hz = sig
            .sampling_frequency
            .map(|h| format!(" at {} Hz", crate::domain::units::fmt_num(h, 1)))
            .unwrap_or_default();
        let _ = writeln!(
            md,
            "- Trace: {} samples in µV{hz} (every {}th of the recording) in `signal.values`",
            sig.values.len(),
            sig.step
        );
    }
    md.push_str("\nA wellness reading, not a diagnosis: see a clinician about anything worrying.\n");
    md
}
