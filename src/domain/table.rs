//! Records as a CSV table (RFC 4180): each record the list tools return becomes one row.
//!
//! - Columns are the fields records carry, in the order records carry them; a nested object's
//!   fields are `parent_child` (`bloodpressure_systole_mmhg`). A body-measure group's measures
//!   become one column per measure type (and body position) that occurs, after the group's own
//!   fields, in the order of the measure type table, whatever order the groups came in.
//! - Quantities keep the records' SI values, with the unit in the column name (`weight_kg`,
//!   `distance_m`, `hr_average_bpm`; see [`UNITS`]); `display` strings in other unit systems are
//!   left out.
//! - Times are ISO 8601 local times with their offset, in the zone the row's `timezone` column
//!   names: the record's own zone where Withings gives one, else the user's. Unix seconds with
//!   a local twin (`date` → `local_time`, `startdate` → `local_start`…) are left out; the others
//!   (`created`, `modified`, the times of sleep-detail samples) become local times too.
//! - An upstream `data` block as sent is left out: the decoder lifts its fields into named
//!   columns, and the block itself is in the JSON lines export.
//!
//! The set of columns is known only once every record has been seen (`Columns::see`); rows are
//! written afterwards (`Columns::row`), so a caller streams records twice and holds none.

use serde_json::Value;

use crate::domain::measures::{MEASURE_TYPES, measure_code};
use crate::domain::time::{Instant, Zone, Zones, format_local};

/// The unit of each quantity column, as its name's suffix. Keys are the flattened field names.
pub const UNITS: &[(&str, &str)] = &[
    ("distance", "m"),
    ("manual_distance", "m"),
    ("pool_length", "m"),
    ("elevation", "floors"),
    ("soft", "s"),
    ("moderate", "s"),
    ("intense", "s"),
    ("active", "s"),
    ("active_minutes", "min"),
    ("total_activity_minutes", "min"),
    ("duration_minutes", "min"),
    ("calories", "kcal"),
    ("totalcalories", "kcal"),
    ("manual_calories", "kcal"),
    ("heart_rate", "bpm"),
    ("hr", "bpm"),
    ("hr_average", "bpm"),
    ("hr_min", "bpm"),
    ("hr_max", "bpm"),
    ("hr_zones_light", "s"),
    ("hr_zones_moderate", "s"),
    ("hr_zones_intense", "s"),
    ("hr_zones_maximal", "s"),
    ("duration", "s"),
    ("active_duration", "s"),
    ("pause_duration", "s"),
    ("algo_pause_duration", "s"),
    ("total_sleep_time", "s"),
    ("time_in_bed", "s"),
    ("asleep_duration", "s"),
    ("light_sleep", "s"),
    ("deep_sleep", "s"),
    ("rem_sleep", "s"),
    ("awake", "s"),
    ("sleep_latency", "s"),
    ("wakeup_latency", "s"),
    ("waso", "s"),
    ("snoring", "s"),
    ("breathing_sounds", "s"),
    ("mvt_active_duration", "s"),
    ("total_sleep_hours", "h"),
    ("rr", "per_min"),
    ("rr_average", "per_min"),
    ("rr_min", "per_min"),
    ("rr_max", "per_min"),
    ("chest_movement_rate", "per_min"),
    ("chest_movement_rate_average", "per_min"),
    ("chest_movement_rate_min", "per_min"),
    ("chest_movement_rate_max", "per_min"),
    ("chest_movement_rate_wellness_average", "per_min"),
    ("chest_movement_rate_wellness_min", "per_min"),
    ("chest_movement_rate_wellness_max", "per_min"),
    ("apnea_hypopnea_index", "per_h"),
    ("bloodpressure_systole", "mmhg"),
    ("bloodpressure_diastole", "mmhg"),
    ("spo2_average", "pct"),
    ("core_body_temperature_avg", "c"),
    ("core_body_temperature_min", "c"),
    ("core_body_temperature_max", "c"),
    ("sdnn_1", "ms"),
    ("rmssd", "ms"),
    ("sdnn1", "ms"),
    ("spo2_auto", "pct"),
    ("core_body_temperature", "c"),
    ("rmssd_start_avg", "ms"),
    ("rmssd_end_avg", "ms"),
];

/// Unix-second fields and the local time that says the same; a field without its twin in a
/// record (or not in this list) is shown as a local time itself.
const TWINS: &[(&str, &str)] = &[
    ("date", "local_time"),
    ("timestamp", "local_time"),
    ("time", "local_time"),
    ("startdate", "local_start"),
    ("enddate", "local_end"),
];

/// Unix-second fields shown as local times.
const TIMES: &[&str] = &["date", "timestamp", "startdate", "enddate", "created", "modified"];

/// The columns of a table, gathered from the records it will hold. Plain vectors: a table has
/// tens of columns, and a map type per use would cost more binary than it saves time.
#[derive(Debug, Default)]
pub struct Columns {
    /// Fields, in the order first seen.
    plain: Vec<String>,
    /// Measure columns, kept sorted by (place in the measure type table, name).
    measures: Vec<(usize, String)>,
}

impl Columns {
    /// No columns yet.
    pub fn new() -> Columns {
        Columns::default()
    }

    /// Adds the columns `rec` has that are not known yet.
    pub fn see(&mut self, rec: &Value) {
        // Zones change cells, never columns.
        let utc = Zones::new(Zone::utc());
        for cell in cells(rec, &utc) {
            match cell.rank {
                _ if self.names().any(|n| n == cell.column) => {}
                Some(rank) => {
                    let key = (rank, cell.column);
                    let at = self.measures.partition_point(|m| *m < key);
                    self.measures.insert(at, key);
                }
                None => self.plain.push(cell.column),
            }
        }
    }

    /// The header line.
    pub fn header(&self) -> String {
        line(self.names().map(str::to_string))
    }

    /// `rec` as a line of this table (a cell per column, empty where `rec` has nothing).
    pub fn row(&self, rec: &Value, zones: &Zones) -> String {
        let mut cells = cells(rec, zones);
        line(self.names().map(|n| match cells.iter().position(|c| c.column == n) {
            Some(i) => std::mem::take(&mut cells[i].text),
            None => String::new(),
        }))
    }

    fn names(&self) -> impl Iterator<Item = &str> {
        self.plain.iter().map(String::as_str).chain(self.measures.iter().map(|(_, n)| n.as_str()))
    }
}

/// One field of a record, ready for the table.
struct Cell {
    column: String,
    text: String,
    /// A measure's place in the measure type table (measure columns are ordered by it).
    rank: Option<usize>,
}

fn cells(rec: &Value, zones: &Zones) -> Vec<Cell> {
    let Some(obj) = rec.as_object() else { return Vec::new() };
    let zone = zones.for_record(obj.get("timezone").and_then(Value::as_str));
    let mut out = Vec::new();
    for (key, value) in obj {
        match (key.as_str(), value) {
            (k, _) if is_display(k) || k == "data" => {}
            (k, Value::Number(_)) if TWINS.iter().any(|(t, local)| *t == k && obj.contains_key(*local)) => {}
            ("measures", Value::Array(measures)) => out.extend(measures.iter().filter_map(measure_cell)),
            (_, Value::Object(inner)) => {
                for (k, v) in inner.iter().filter(|(k, _)| !is_display(k)) {
                    out.push(plain(&format!("{key}_{k}"), v, zone));
                }
            }
            (k, v) => out.push(plain(k, v, zone)),
        }
    }
    out
}

/// Unit-converted copies for people (`display`, `distance_display`): not SI, left out.
fn is_display(key: &str) -> bool {
    key == "display" || key.ends_with("_display")
}

fn plain(name: &str, value: &Value, zone: &Zone) -> Cell {
    let text = match value {
        Value::Number(n) if TIMES.contains(&name) => match n.as_i64() {
            Some(t) => format_local(Instant(t), zone),
            None => n.to_string(),
        },
        Value::Array(samples) => samples_text(samples, zone).unwrap_or_else(|| crate::value::text(value)),
        v => text(v),
    };
    Cell { column: with_unit(name, unit_of(name)), text, rank: None }
}

/// A measure: `<name>[_<position>]_<unit>`, its SI value, or its classification's name.
fn measure_cell(m: &Value) -> Option<Cell> {
    let name = m.get("name")?.as_str()?;
    let column = match m.get("position_name").and_then(Value::as_str) {
        Some(p) => format!("{name}_{p}"),
        None => name.to_string(),
    };
    let unit = m.get("unit").and_then(Value::as_str).map(unit_suffix).unwrap_or_default();
    let value = m.get("classification").or_else(|| m.get("value"))?;
    let rank = measure_code(name)
        .and_then(|code| MEASURE_TYPES.iter().position(|t| t.code == code))
        .unwrap_or(MEASURE_TYPES.len());
    Some(Cell { column: with_unit(&column, Some(&unit)), text: text(value), rank: Some(rank) })
}

fn unit_of(name: &str) -> Option<&'static str> {
    UNITS.iter().find(|(k, _)| *k == name).map(|(_, u)| *u)
}

fn with_unit(name: &str, unit: Option<&str>) -> String {
    match unit {
        Some(u) if !u.is_empty() => format!("{name}_{u}"),
        _ => name.to_string(),
    }
}

/// A measure unit as a name suffix: `kg`, `%` → `pct`, `mmHg` → `mmhg`, `°C` → `c`,
/// `m/s` → `m_per_s`, `µmol/L` → `umol_per_l`.
fn unit_suffix(unit: &str) -> String {
    unit.replace('%', "pct").replace('°', "").replace('µ', "u").replace('/', "_per_").to_ascii_lowercase()
}

/// Sleep-detail samples (`[[unix seconds, value], …]`) with their times as local times.
fn samples_text(samples: &[Value], zone: &Zone) -> Option<String> {
    let mut out = Vec::with_capacity(samples.len());
    for s in samples {
        let (Some(t), Some(v)) = (s.get(0).and_then(Value::as_i64), s.get(1)) else { return None };
        out.push(Value::Array(vec![Value::String(format_local(Instant(t), zone)), v.clone()]));
    }
    Some(crate::value::text(&Value::Array(out)))
}

fn text(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        other => crate::value::text(other),
    }
}

/// Fields joined by commas, ended by CRLF. A field holding a comma, a quote or a line break is
/// quoted, its quotes doubled (RFC 4180 §2).
fn line(fields: impl Iterator<Item = String>) -> String {
    let mut out = String::new();
    for (i, f) in fields.enumerate() {
        if i > 0 {
            out.push(',');
        }
        match f.contains([',', '"', '\r', '\n']) {
            true => {
                out.push('"');
                out.push_str(&f.replace('"', "\"\""));
                out.push('"');
            }
            false => out.push_str(&f),
        }
    }
    out.push_str("\r\n");
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn table(records: &[Value]) -> String {
        let zones = Zones::new(Zone::fixed(3600).renamed("Europe/Paris"));
        let mut cols = Columns::new();
        records.iter().for_each(|r| cols.see(r));
        let mut out = cols.header();
        records.iter().for_each(|r| out.push_str(&cols.row(r, &zones)));
        out
    }

    #[test]
    fn fields_are_quoted_as_rfc_4180_says() {
        let cases = [
            ("plain", "plain"),
            ("a,b", "\"a,b\""),
            ("say \"hi\"", "\"say \"\"hi\"\"\""),
            ("two\nlines", "\"two\nlines\""),
            ("cr\r", "\"cr\r\""),
            ("", ""),
            ("µ°", "µ°"),
        ];
        for (field, want) in cases {
            assert_eq!(line([field.to_string()].into_iter()), format!("{want}\r\n"), "{field:?}");
        }
        assert_eq!(line(["a".into(), "".into(), "c".into()].into_iter()), "a,,c\r\n");
    }

    #[test]
    fn measure_groups_get_a_column_per_measure_in_table_order() {
        let groups = [
            json!({"grpid": 1, "date": 1772345400, "local_time": "2026-03-01T07:10:00+01:00", "timezone": "Europe/Paris",
                   "created": 1772345460, "ambiguous": false, "comment": "after a run, tired",
                   "measures": [
                       {"type": 6, "name": "fat_ratio", "unit": "%", "value": 21.875, "display": "21.88 %"},
                       {"type": 1, "name": "weight", "unit": "kg", "value": 72.45, "display": "72.5 kg"}]}),
            json!({"grpid": 2, "local_time": "2026-03-02T07:10:00+01:00", "timezone": "Europe/Paris",
                   "measures": [
                       {"type": 130, "name": "afib_result", "unit": "", "value": 0.0, "classification": "negative"},
                       {"type": 174, "name": "fat_mass_segment", "unit": "kg", "value": 2.1, "position": 3, "position_name": "left_arm"},
                       {"type": 9, "name": "diastolic_bp", "unit": "mmHg", "value": 80.0}]}),
        ];
        let want = "grpid,local_time,timezone,created,ambiguous,comment,weight_kg,fat_ratio_pct,diastolic_bp_mmhg,afib_result,fat_mass_segment_left_arm_kg\r\n\
                    1,2026-03-01T07:10:00+01:00,Europe/Paris,2026-03-01T07:11:00+01:00,false,\"after a run, tired\",72.45,21.875,,,\r\n\
                    2,2026-03-02T07:10:00+01:00,Europe/Paris,,,,,,80.0,negative,2.1\r\n";
        assert_eq!(table(&groups), want);
    }

    #[test]
    fn nested_fields_units_times_and_samples() {
        let recs = [
            json!({"type": "blood_pressure", "timestamp": 1772524800, "local_time": "2026-03-03T09:00:00+01:00",
                   "timezone": "Europe/Paris", "heart_rate": 61.0, "bloodpressure": {"diastole": 81.0, "systole": 121.0}}),
            json!({"startdate": 1772323200, "duration": 1800, "timezone": "Europe/Paris", "state_name": "awake",
                   "hr": [[1772323200, 60.0], [1772323260, 61.0]], "distance": 3.5, "distance_display": "2.2 mi",
                   "data": {"hr_zone_0": 1}}),
        ];
        let want = "type,local_time,timezone,heart_rate_bpm,bloodpressure_diastole_mmhg,bloodpressure_systole_mmhg,startdate,duration_s,state_name,hr_bpm,distance_m\r\n\
                    blood_pressure,2026-03-03T09:00:00+01:00,Europe/Paris,61.0,81.0,121.0,,,,,\r\n\
                    ,,Europe/Paris,,,,2026-03-01T01:00:00+01:00,1800,awake,\"[[\"\"2026-03-01T01:00:00+01:00\"\",60.0],[\"\"2026-03-01T01:01:00+01:00\"\",61.0]]\",3.5\r\n";
        assert_eq!(table(&recs), want);
    }

    #[test]
    fn unit_suffixes_are_names() {
        let cases = [
            ("kg", "kg"),
            ("%", "pct"),
            ("mmHg", "mmhg"),
            ("°C", "c"),
            ("m/s", "m_per_s"),
            ("ml/min/kg", "ml_per_min_per_kg"),
            ("µmol/L", "umol_per_l"),
            ("µS", "us"),
            ("", ""),
        ];
        for (unit, want) in cases {
            assert_eq!(unit_suffix(unit), want, "{unit}");
        }
    }
}
