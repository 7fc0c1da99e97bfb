//! Body-measure groups (a weigh-in, a blood-pressure reading…). Optional keys are omitted when
//! absent; group fields we do not read follow in structured mode, and a measure's own unknown
//! fields follow its known ones:
//!
//! ```text
//! { "grpid": 910000000, "date": 1772345400, "local_date": "2026-03-01",
//!   "local_time": "2026-03-01T07:10:00+01:00", "timezone": "Europe/Paris",
//!   "created": 1772345460, "modified": 1772345460, "category": 1, "category_name": "real",
//!   "attrib": 0, "attrib_name": "device", "ambiguous": false, "manual": false,
//!   "model": "Body Comp", "modelid": 13, "comment": "…",
//!   "measures": [{"type": 1, "name": "weight", "unit": "kg", "value": 72.45,
//!                 "raw_value": 72450, "raw_unit": -3, "position": 2, "position_name": "left_arm",
//!                 "classification": "…", "display": "72.5 kg"}] }
//! ```

use std::borrow::Cow;
use std::fmt::Write as _;

use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

use crate::domain::fields::{self, as_int};
use crate::domain::measures::{
    GROUP_KEYS, Measure, MeasureGroup, attrib_name, category_name, measure, position_name,
};
use crate::domain::privacy::{self, Domain, PrivacyMode};
use crate::domain::time::{Instant, Zones, format_local};
use crate::domain::units::{self, Units};
use crate::tools::records::{Kept, Listed, when};
use crate::withings::wire::Row;
use crate::withings::wire::measure_fields;
use crate::withings::wire::scan::{Fault, Scan};

/// A measure group as a list record.
#[derive(Debug, Serialize)]
pub struct GroupOut {
    #[serde(skip_serializing_if = "Option::is_none")]
    grpid: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    date: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    local_date: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    local_time: Option<String>,
    timezone: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    created: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    modified: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    category: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    category_name: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    attrib: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    attrib_name: Option<&'static str>,
    ambiguous: bool,
    manual: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    model: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    modelid: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    comment: Option<String>,
    measures: Vec<MeasureOut>,
}

/// One measure of a group: ours first, then its unknown upstream fields (never over ours), then
/// the value in the user's units.
#[derive(Debug)]
struct MeasureOut {
    code: i64,
    name: Cow<'static, str>,
    unit: &'static str,
    value: f64,
    raw_value: i64,
    raw_unit: i32,
    position: Option<i64>,
    position_name: Option<&'static str>,
    classification: Option<&'static str>,
    extra: Option<Map<String, Value>>,
    display: Option<String>,
}

impl Serialize for MeasureOut {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        // The entries counted first: a map into which eight measures a group are serialised
        // (a `Value` tree) then has its room from the start, not grown three times.
        let optional = [self.position.is_some(), self.position_name.is_some(), self.classification.is_some()];
        let extra = self.extra.iter().flatten().filter(|(k, _)| !self.has(k)).count();
        let len = 6 + optional.iter().filter(|b| **b).count() + extra + usize::from(self.display.is_some());
        let mut m = s.serialize_map(Some(len))?;
        m.serialize_entry("type", &self.code)?;
        m.serialize_entry("name", &self.name)?;
        m.serialize_entry("unit", self.unit)?;
        m.serialize_entry("value", &self.value)?;
        m.serialize_entry("raw_value", &self.raw_value)?;
        m.serialize_entry("raw_unit", &self.raw_unit)?;
        if let Some(p) = self.position {
            m.serialize_entry("position", &p)?;
        }
        if let Some(p) = self.position_name {
            m.serialize_entry("position_name", p)?;
        }
        if let Some(c) = self.classification {
            m.serialize_entry("classification", c)?;
        }
        for (k, v) in self.extra.iter().flatten() {
            if !self.has(k) {
                m.serialize_entry(k, v)?;
            }
        }
        if let Some(d) = &self.display {
            m.serialize_entry("display", d)?;
        }
        m.end()
    }
}

impl MeasureOut {
    /// True for a key this measure shows itself: an unknown upstream field of the same name is
    /// not shown over it.
    fn has(&self, key: &str) -> bool {
        match key {
            "type" | "name" | "unit" | "value" | "raw_value" | "raw_unit" => true,
            "position" => self.position.is_some(),
            "position_name" => self.position_name.is_some(),
            "classification" => self.classification.is_some(),
            "display" => self.display.is_some(),
            _ => false,
        }
    }

    fn new(m: &Measure, units: Units) -> MeasureOut {
        let unit = m.unit();
        let decimals = if unit == "kg" || unit == "°C" { 1 } else { 2 };
        MeasureOut {
            code: m.code,
            name: m.name(),
            unit,
            value: m.value,
            raw_value: m.raw_value,
            raw_unit: m.raw_unit,
            position: m.position,
            position_name: m.position.and_then(position_name),
            classification: m.classification(),
            // Stripped here: a group is written to text as it is (`Listed::TEXT`).
            extra: m.extra.as_deref().map(privacy::without_sensitive),
            // JSON has no NaN: a value that is not finite is `null`, with nothing to display.
            display: units::format_quantity(m.value, unit, units, decimals).filter(|_| m.value.is_finite()),
        }
    }

    /// "weight 72.5 kg", "muscle mass (left arm) 3.1 kg", "afib result negative", written to
    /// the end of `out` (a line's parts written in place, not each built and joined: a
    /// thousand groups' lines were 13 M instructions so).
    fn part(&self, out: &mut String) {
        spaced(out, &self.name);
        // A segmental measure names its body part, as the JSON does.
        if let Some(p) = self.position_name {
            out.push_str(" (");
            spaced(out, p);
            out.push(')');
        }
        out.push(' ');
        // A classification (AFib) reads as its name, not as its code.
        match (&self.display, self.classification) {
            (_, Some(c)) => spaced(out, c),
            (Some(d), None) => out.push_str(d),
            (None, None) if self.value.is_finite() => {
                out.push_str(&units::fmt_num(self.value, 2));
                out.push(' ');
                out.push_str(self.unit);
                out.truncate(out.trim_end().len());
            }
            (None, None) => {}
        }
    }
}

/// `name` with its underscores as spaces, at the end of `out`.
fn spaced(out: &mut String, name: &str) {
    for (i, word) in name.split('_').enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(word);
    }
}

/// A getmeas group read whole for the list tools: every field Withings documents, and the
/// unknown ones of each measure (the group's pass through from the row itself), with the row's
/// tree it was read from, which the raw and structured modes show (parsing the row again for
/// them cost a thousand-row list a tenth of its time).
pub struct MeasGroupRow(MeasureGroup, Value);

impl<'de> Deserialize<'de> for MeasGroupRow {
    /// The list reads its rows with [`read_group`]; serde reads only a row that it declines: one
    /// that is not an object (a group of no fields) or not JSON (refused). An object that is
    /// JSON, [`read_group`] always reads.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<MeasGroupRow, D::Error> {
        Ok(MeasGroupRow(MeasureGroup::default(), Value::deserialize(d)?))
    }
}

/// A group read from its text by the scanner: its measures straight into [`Measure`]s, its other
/// fields into a tree, the measures' too when `whole` (the raw mode shows the row whole; the
/// structured mode passes through only the group's unknown fields, and `measures` is ours). A
/// thousand groups' trees, eight measure maps each, cost a thousand-group list a sixth of its
/// instructions. `None` for a row that is not an object or not JSON (serde then reads it, or
/// says why not).
fn read_group(text: &str, whole: bool) -> Option<(MeasureGroup, Value)> {
    let mut tree = Map::new();
    let mut measures = Vec::new();
    // grpid, date, created, modified, category, attrib, modelid, model_id; deviceid,
    // hash_deviceid, model, timezone, comment: as `decode_measure_group` reads them.
    let mut ints = [None; 8];
    let mut texts: [Option<String>; 5] = Default::default();
    let mut s = Scan::new(text);
    // A key sent twice counts its last value, as in a tree.
    s.object(&mut |s, key| {
        let from = s.at();
        match key {
            "measures" => {
                measures = read_measures(s)?;
                // Kept only for the raw mode: the structured mode shows our measures.
                if !whole {
                    return Ok(());
                }
            }
            _ => s.skip()?,
        }
        let v: Value = serde_json::from_str(s.since(from)).map_err(|_| Fault::Syntax)?;
        if let Some(i) = GROUP_KEYS.iter().position(|k| *k == key) {
            match (ints.get_mut(i), texts.get_mut(i.wrapping_sub(8))) {
                (Some(n), _) => *n = as_int(&v),
                (None, Some(t)) => *t = v.as_str().filter(|t| !t.is_empty()).map(str::to_string),
                (None, None) => {}
            }
        }
        if whole || !GROUP_KEYS.contains(&key) {
            tree.insert(key.to_string(), v);
        }
        Ok(())
    })
    .ok()?;
    s.end().ok()?;
    let [grpid, date, created, modified, category, attrib, modelid, model_id] = ints;
    let [deviceid, hash_deviceid, model, timezone, comment] = texts;
    let tree = Value::Object(tree);
    let group = MeasureGroup {
        grpid,
        date: date.map(Instant),
        created: created.map(Instant),
        modified: modified.map(Instant),
        category,
        attrib,
        deviceid,
        hash_deviceid,
        model,
        modelid: modelid.or(model_id),
        timezone,
        comment,
        measures,
        extra: fields::extra_boxed(&tree, GROUP_KEYS),
    };
    Some((group, tree))
}

/// A group's `measures` as `decode_measure_group` reads them from a tree: an array's, or one
/// object as a list of one; anything else is none.
fn read_measures(s: &mut Scan<'_>) -> Result<Vec<Measure>, Fault> {
    let mut out = Vec::with_capacity(8);
    match s.peek()? {
        b'[' => s.array(&mut |s| {
            out.extend(read_measure(s)?);
            Ok(())
        })?,
        _ => out.extend(read_measure(s)?),
    }
    Ok(out)
}

/// One measure as `decode_measure` reads it from a tree: one that is not an object, or has no
/// value or type, is none; its unknown fields pass through. A measure of integers under known
/// keys is read in place, as the trends read it (through `object` and `lit`, a thousand groups'
/// measures were 18 M instructions); one with another key is read again by the general reader.
fn read_measure(s: &mut Scan<'_>) -> Result<Option<Measure>, Fault> {
    if s.peek()? != b'{' {
        s.skip()?;
        return Ok(None);
    }
    let from = s.at();
    let slot = |key: &[u8]| match key {
        b"value" => Some(0),
        b"type" => Some(1),
        b"unit" => Some(2),
        b"position" => Some(3),
        // Deprecated: not passed through.
        b"algo" | b"fm" => Some(4),
        _ => Some(5),
    };
    match s.int_object::<6>(slot) {
        Some([value, code, unit, position, _, None]) => {
            return Ok(measure([value, code, unit, position], Map::new()));
        }
        Some(_) => s.back_to(from),
        None => {}
    }
    let mut extra = Map::new();
    let known = measure_fields(s, Some(&mut extra))?;
    Ok(measure(known, extra))
}

impl Row for MeasGroupRow {
    fn page(
        answer: &crate::withings::wire::Answer,
        endpoint: &str,
    ) -> crate::Result<crate::withings::wire::PageBody<Self>> {
        answer.body(endpoint)
    }
    type Kept = (MeasureGroup, Value);
    fn keep(self) -> (MeasureGroup, Value) {
        (self.0, self.1)
    }
}

impl GroupOut {
    /// True when the group has a measure of one of `types` (any, when `types` is empty).
    pub fn has_type(&self, types: &[i64]) -> bool {
        types.is_empty() || self.measures.iter().any(|m| types.contains(&m.code))
    }

    pub fn ambiguous(&self) -> bool {
        self.ambiguous
    }

    pub fn manual(&self) -> bool {
        self.manual
    }
}

impl Listed for GroupOut {
    type Wire = MeasGroupRow;
    const DOMAIN: Domain = Domain::Measures;
    const TEXT: bool = true;

    fn passes(key: &str, _: &Value) -> bool {
        !GROUP_KEYS.contains(&key)
    }

    fn zone((g, _): &Kept<Self>) -> Option<&str> {
        g.timezone.as_deref()
    }

    /// The raw mode shows the row whole: its tree is kept whole.
    fn read(text: &str, mode: PrivacyMode) -> Option<Kept<Self>> {
        read_group(text, mode == PrivacyMode::Raw)
    }

    fn upstream((_, tree): &mut Kept<Self>) -> Option<Value> {
        Some(std::mem::take(tree))
    }

    /// A group without a zone of its own is in the zone the answer gave its groups.
    fn set_body_zone((g, _): &mut Kept<Self>, body_zone: Option<&str>) {
        if g.timezone.is_none() {
            g.timezone = body_zone.map(str::to_string);
        }
    }

    /// Local times in the group's own zone, else the user's.
    fn new((g, _): &Kept<Self>, zones: &Zones, units: Units) -> GroupOut {
        let zone = zones.for_record(g.timezone.as_deref());
        GroupOut {
            grpid: g.grpid,
            date: g.date.map(|t| t.0),
            local_date: g.date.map(|t| zone.local_date(t).to_string()),
            local_time: g.date.map(|t| format_local(t, zone)),
            timezone: zone.name().to_string(),
            created: g.created.map(|t| t.0),
            modified: g.modified.map(|t| t.0),
            category: g.category,
            category_name: g.category.and_then(category_name),
            attrib: g.attrib,
            attrib_name: g.attrib.and_then(attrib_name),
            ambiguous: g.ambiguous(),
            manual: g.manual(),
            model: g.model.clone(),
            modelid: g.modelid,
            comment: g.comment.clone(),
            measures: g.measures.iter().map(|m| MeasureOut::new(m, units)).collect(),
        }
    }

    fn line(&self, _: Units) -> String {
        let ms = &self.measures;
        // Blood pressure reads as one quantity, 121/77 mmHg, where the systolic value was.
        let bp_value =
            |name: &str| ms.iter().find(|m| m.name == name).map(|m| m.value).filter(|v| v.is_finite());
        let bp = bp_value("systolic_bp").zip(bp_value("diastolic_bp"));
        let mut line = when(self.local_time.as_deref(), self.date.map(|t| t.to_string()));
        line.push(':');
        let mut first = true;
        for m in ms {
            let sep = if first { " " } else { ", " };
            match (m.name.as_ref(), bp) {
                ("systolic_bp", Some((s, d))) => {
                    let _ = write!(line, "{sep}blood pressure {s}/{d} mmHg");
                }
                ("diastolic_bp", Some(_)) => continue,
                _ => {
                    line.push_str(sep);
                    m.part(&mut line);
                }
            }
            first = false;
        }
        let flags: Vec<&str> = [(self.ambiguous, "possibly a guest"), (self.manual, "manual entry")]
            .into_iter()
            .filter_map(|(on, flag)| on.then_some(flag))
            .collect();
        if !flags.is_empty() {
            let _ = write!(line, " ({})", flags.join(", "));
        }
        line
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::domain::measures::decode_measure_groups;
    use crate::domain::privacy::PrivacyMode;
    use crate::domain::time::Zone;
    use crate::store::config::Env;
    use crate::tools::records::{parsed, records};

    fn groups(fixture: &str) -> Vec<MeasureGroup> {
        let v: Value = serde_json::from_str(fixture).unwrap();
        decode_measure_groups(&v["body"])
    }

    fn shown(g: &MeasureGroup, zones: &Zones) -> Value {
        serde_json::to_value(GroupOut::new(&(g.clone(), Value::Null), zones, Units::Metric)).unwrap()
    }

    /// The list tool's view of one upstream row in a privacy mode, with its line.
    fn view(row: Value, mode: PrivacyMode, zones: &mut Zones) -> (Value, String) {
        let rows = vec![row.to_string().into_boxed_str()];
        let all = |_: &GroupOut| true;
        parsed(records::<GroupOut>(&Env::default(), "", &rows, None, zones, mode, Units::Metric, &all))
            .unwrap()
            .remove(0)
    }

    #[test]
    fn the_scanner_reads_a_group_as_serde_does() {
        let rows = [
            r#"{"grpid": 1, "date": 1479400000, "timezone": "Europe/Paris", "comment": null, "x": [1, {"y": 2.5}],
               "measures": [{"value": 80000, "type": 1, "unit": -3, "algo": 0, "fm": 1},
                            {"value": "62", "type": 11, "unit": 0}, {"value": 5, "type": 9, "extra": "e"},
                            {"value": 1.0e3, "type": 6, "position": 2}, {"type": 6}, {}, 7,
                            {"value": 3, "type": 1, "value": 4, "unit": -0}, {"valu\u0065": 1, "type": 1}]}"#,
            r#"{"measures": [{"value": 1, "type": 1}], "grpid": 2, "measures": [{"value": 2, "type": 1}]}"#,
            r#"{"grpid": 3, "measures": [], "model_id": "6"}"#,
            r#"{"grpid": 4}"#,
            r#"{"measures": {"value": 1, "type": 1, "z": true}}"#,
            r#"{"measures": {}, "deviceid": "d"}"#,
            r#"{"measures": null, "grpid": "5"}"#,
            r#"{"measures": [1, null, []], "a": {"b": [1.5, "\u00e9"]}}"#,
        ];
        for row in rows {
            let tree: Value = serde_json::from_str(row).unwrap();
            let want = crate::domain::measures::decode_measure_group(&tree, None);
            let (got, whole) = read_group(row, true).unwrap();
            assert_eq!((&got, whole.to_string()), (&want, tree.to_string()), "{row}");

            // Without the raw mode, only the fields the structured mode passes through.
            let (got, partial) = read_group(row, false).unwrap();
            let passed = Value::Object(fields::extra(&tree, GROUP_KEYS));
            assert_eq!((&got, partial.to_string()), (&want, passed.to_string()), "{row}");
        }
        // Declined, for serde to read or refuse: not an object, not JSON.
        for row in ["[]", "7", r#"{"grpid": 1,}"#, "{} x", r#"{"measures": [{"value": 1e400}]}"#] {
            assert!(read_group(row, true).is_none(), "{row}");
        }
        let (g, _) = serde_json::from_str::<MeasGroupRow>("[1]").unwrap().keep();
        assert_eq!(g, crate::domain::measures::decode_measure_group(&json!([1]), None));
    }

    #[test]
    fn records_from_the_fixtures() {
        let mut zones = Zones::new(Zone::utc());
        zones.insert(Zone::from_posix("CET-1CEST,M3.5.0,M10.5.0/3").unwrap().renamed("Europe/Paris"));
        let page1 = groups(include_str!("../../../fixtures/withings/measure_getmeas_page1.json"));
        let j = shown(&page1[0], &zones);
        assert_eq!(
            (&j["local_date"], &j["local_time"], &j["timezone"]),
            (&json!("2025-01-01"), &json!("2025-01-01T08:10:00+01:00"), &json!("Europe/Paris"))
        );
        assert_eq!(
            (&j["attrib_name"], &j["category_name"], &j["ambiguous"]),
            (&json!("device"), &json!("real"), &json!(false))
        );
        assert_eq!(
            j["measures"][0],
            json!({"type":1,"name":"weight","unit":"kg","value":72.45,"raw_value":72450,"raw_unit":-3,"display":"72.5 kg"})
        );
        // The value serialises without float noise.
        assert_eq!(serde_json::to_string(&j["measures"][1]["value"]).unwrap(), "21.875");
        let page2 = groups(include_str!("../../../fixtures/withings/measure_getmeas_page2_last.json"));
        let ecg = shown(&page2[1], &Zones::new(Zone::utc()));
        assert_eq!(ecg["measures"][0]["classification"], "negative");
        assert_eq!(ecg["measures"][1].get("classification"), None);
    }

    #[test]
    fn unknown_types_fields_and_missing_ones() {
        let row = json!({"measures": [{"value": 5, "type": 9999, "unit": -1, "quality": 3, "name": "theirs"},
                                      {"type": 1}, {"value": 1}], "probability": 0.4});
        let mut zones = Zones::new(Zone::fixed(7200));
        let (j, line) = view(row, PrivacyMode::Structured, &mut zones);
        assert_eq!(j["timezone"], "+02:00");
        assert_eq!(
            j["measures"],
            json!([{"type": 9999, "name": "unknown_9999", "unit": "", "value": 0.5, "raw_value": 5, "raw_unit": -1,
                    "quality": 3, "display": "0.5"}]),
            "an unknown measure field follows ours, never over them"
        );
        assert_eq!((&j["probability"], j.get("local_date")), (&json!(0.4), None));
        assert_eq!(line, "(no date): unknown 9999 0.5");
        let (empty, _) = view(json!({}), PrivacyMode::Structured, &mut Zones::new(Zone::utc()));
        assert_eq!(empty, json!({"timezone": "UTC", "ambiguous": false, "manual": false, "measures": []}));
        // A value too large for a float is null in JSON, with nothing to display.
        let m = Measure {
            code: 1,
            raw_value: 1,
            raw_unit: 300,
            value: f64::INFINITY,
            position: None,
            extra: None,
        };
        let out = serde_json::to_value(MeasureOut::new(&m, Units::Metric)).unwrap();
        assert_eq!((&out["value"], out.get("display")), (&Value::Null, None));
    }

    #[test]
    fn each_privacy_mode_lets_out_what_it_says() {
        let row = json!({"grpid": 1, "date": 0, "attrib": 1, "deviceid": "d", "new_field": 9, "access_token": "t",
                         "measures": [{"value": 72450, "type": 1, "unit": -3, "algo": 0}]});
        let mut zones = Zones::new(Zone::utc());
        let (s, line) = view(row.clone(), PrivacyMode::Summary, &mut zones);
        assert_eq!(s["measures"], json!([{"name": "weight", "value": 72.45, "unit": "kg"}]));
        assert_eq!((&s["ambiguous"], s.get("new_field")), (&json!(true), None));
        assert_eq!(line, "1970-01-01 00:00:00+00:00: weight 72.5 kg (possibly a guest)");
        let (st, _) = view(row.clone(), PrivacyMode::Structured, &mut zones);
        assert_eq!((&st["new_field"], st.get("deviceid"), st.get("access_token")), (&json!(9), None, None));
        let (raw, _) = view(row, PrivacyMode::Raw, &mut zones);
        assert_eq!(
            (&raw["deviceid"], &raw["measures"][0]["algo"], raw.get("access_token")),
            (&json!("d"), &json!(0), None)
        );
    }

    /// A group is written to text as it is: its own keys are never sensitive, and a measure's
    /// unknown fields come stripped of those that are.
    #[test]
    fn a_group_written_as_text_names_nothing_sensitive() {
        let row = json!({"grpid": 1, "date": 0, "created": 0, "modified": 0, "category": 1, "attrib": 2,
                         "model": "Body+", "modelid": 5, "comment": "c", "timezone": "UTC", "measures": [
                         {"value": 31, "type": 175, "unit": -1, "position": 3, "deviceid": "d",
                          "note": {"latitude": 1, "k": 2}}, {"value": 8, "type": 130, "unit": 0}]});
        let (st, _) = view(row, PrivacyMode::Structured, &mut Zones::new(Zone::utc()));
        assert_eq!((st["measures"][0].get("deviceid"), &st["measures"][0]["note"]), (None, &json!({"k": 2})));
        let mut stripped = st.clone();
        privacy::strip_sensitive(&mut stripped);
        assert_eq!(stripped, st);
        for key in
            ["local_date", "category_name", "attrib_name", "comment", "modelid", "display", "position_name"]
        {
            assert!(st.get(key).or(st["measures"][0].get(key)).is_some(), "{key} not shown: {st}");
        }
    }

    #[test]
    fn lines_name_body_parts_classifications_and_blood_pressure() {
        let mut zones = Zones::new(Zone::fixed(3600));
        let row = json!({"date": 1772348400, "attrib": 2, "measures": [
            {"value": 31, "type": 175, "unit": -1, "position": 3}, {"value": 8, "type": 130, "unit": 0}]});
        let (j, line) = view(row, PrivacyMode::Structured, &mut zones);
        assert_eq!(j["measures"][1]["classification"], "inconclusive_us");
        assert_eq!(
            line,
            "2026-03-01 08:00:00+01:00: muscle mass segment (left arm) 3.1 kg, afib result inconclusive us (manual entry)"
        );
        let bp = json!({"date": 1772348400, "measures": [{"value": 121, "type": 10, "unit": 0},
                        {"value": 77, "type": 9, "unit": 0}, {"value": 60, "type": 11, "unit": 0}]});
        let (_, line) = view(bp, PrivacyMode::Summary, &mut zones);
        assert_eq!(line, "2026-03-01 08:00:00+01:00: blood pressure 121/77 mmHg, heart pulse 60 bpm");
    }

    /// A group without a zone of its own is shown in the zone of the answer's body.
    #[test]
    fn the_body_zone_stands_in_for_a_missing_one() {
        let rows = vec![Box::from(r#"{"date":0,"measures":[]}"#)];
        let mut zones = Zones::new(Zone::utc());
        zones.insert(Zone::fixed(7200).renamed("Somewhere/East"));
        let all = |_: &GroupOut| true;
        let (j, _) = parsed(records::<GroupOut>(
            &Env::default(),
            "",
            &rows,
            Some("Somewhere/East"),
            &mut zones,
            PrivacyMode::Structured,
            Units::Metric,
            &all,
        ))
        .unwrap()
        .remove(0);
        assert_eq!(
            (&j["timezone"], &j["local_time"]),
            (&json!("Somewhere/East"), &json!("1970-01-01T02:00:00+02:00"))
        );
    }
}
