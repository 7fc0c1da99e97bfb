//! The JSON Schemas (2020-12) the briefs always satisfy. Every key a brief emits is listed and
//! required; absent values are `null`, so the schema documents the full shape.

use serde_json::{Map, Value, json};

use crate::domain::summary::DOMAINS;

pub const DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

pub fn num() -> Value {
    json!({"type": ["number", "null"]})
}

pub fn int() -> Value {
    json!({"type": ["integer", "null"]})
}

pub fn text() -> Value {
    json!({"type": ["string", "null"]})
}

/// An object whose listed properties are all required (the briefs always emit every key).
pub fn obj(props: Value) -> Value {
    let required: Vec<String> = props.as_object().map(|p| p.keys().cloned().collect()).unwrap_or_default();
    json!({"type": "object", "properties": props, "required": required, "additionalProperties": false})
}

/// Like [`obj`] but the whole object may be `null`.
pub fn nullable(props: Value) -> Value {
    let mut o = obj(props);
    if let Some(m) = o.as_object_mut() {
        m.insert("type".into(), json!(["object", "null"]));
    }
    o
}

/// An object keyed by the five domain names, each value of the given shape.
pub fn per_domain(item: Value) -> Value {
    let mut props = Map::new();
    for d in DOMAINS {
        props.insert(d.to_string(), item.clone());
    }
    obj(Value::Object(props))
}

pub fn domain_quality() -> Value {
    per_domain(obj(json!({
        "status": {"type": "string", "enum": ["ok", "empty", "failed"]},
        "reason": text(),
    })))
}

pub fn freshness() -> Value {
    per_domain(obj(json!({"newest_date": text(), "newest_t": int(), "days_ago": int()})))
}

pub fn action() -> Value {
    obj(json!({
        "area": {"type": "string"},
        "action": {"type": "string"},
        "why": {"type": "string"},
    }))
}

pub fn confidence() -> Value {
    json!({"type": "string", "enum": ["high", "medium", "low", "none"]})
}

pub fn safety() -> Value {
    obj(json!({"medical_advice": {"const": false}, "note": {"type": "string"}}))
}

/// The JSON Schema every [`daily`] answer satisfies.
pub fn daily_output_schema() -> Value {
    let weighin = json!({
        "date": {"type": "string"}, "t": {"type": "integer"}, "weight_kg": num(), "fat_ratio_pct": num(),
        "fat_mass_kg": num(), "fat_free_mass_kg": num(), "muscle_mass_kg": num(), "bone_mass_kg": num(),
        "hydration_kg": num(), "heart_pulse_bpm": int(), "manual": {"type": "boolean"},
    });
    let mut before = weighin.clone();
    before["days_before"] = json!({"type": "integer"});
    let night = obj(json!({
        "date": {"type": "string"}, "start": {"type": "integer"}, "end": {"type": "integer"},
        "bedtime": {"type": "string"}, "wake_time": {"type": "string"}, "asleep_h": num(), "in_bed_h": num(),
        "deep_min": int(), "light_min": int(), "rem_min": int(), "awake_min": int(), "wakeups": int(),
        "score": int(), "efficiency_pct": num(), "hr_average_bpm": int(), "hr_min_bpm": int(),
        "rr_average_per_min": num(),
    }));
    let mut main = night.clone();
    main["type"] = json!(["object", "null"]);
    let count = json!({"type": "integer", "minimum": 0});
    let names = json!({"type": "array", "items": {"type": "string", "enum": DOMAINS}});
    json!({
        "$schema": DIALECT,
        "type": "object",
        "required": ["kind", "date", "is_today", "status", "scorecard", "body", "sleep", "activity", "heart",
            "diagnostic", "data_quality", "freshness", "safety"],
        "properties": {
            "kind": {"const": "daily_summary"},
            "date": {"type": "string"},
            "is_today": {"type": "boolean"},
            "status": {"type": "string", "enum": ["ok", "partial", "no_data", "unavailable"]},
            "scorecard": obj(json!({
                "weight_kg": num(), "sleep_hours": num(), "sleep_score": int(), "sleep_efficiency_pct": num(),
                "steps": int(), "active_minutes": int(), "resting_hr_bpm": int(),
            })),
            "body": obj(json!({
                "status": {"type": "string", "enum": ["measured", "not_measured", "no_data", "failed"]},
                "reason": text(),
                "weighin": nullable(weighin),
                "change": nullable(json!({"weight_kg": num(), "fat_ratio_pct": num(), "since_date": {"type": "string"}, "days": {"type": "integer"}})),
                "latest_before": nullable(before),
                "weighins_that_day": count,
                "excluded_unattributed": count,
            })),
            "sleep": obj(json!({
                "status": {"type": "string", "enum": ["recorded", "naps_only", "no_data", "failed"]},
                "reason": text(),
                "main": main,
                "naps": {"type": "array", "items": night},
                "other_sessions": {"type": "array", "items": night},
            })),
            "activity": obj(json!({
                "status": {"type": "string", "enum": ["recorded", "no_data", "failed"]},
                "reason": text(), "partial_day": {"type": "boolean"},
                "steps": int(), "distance_km": num(), "active_minutes": int(), "moderate_minutes": int(),
                "intense_minutes": int(), "active_calories_kcal": int(), "total_calories_kcal": int(),
                "hr_average_bpm": int(),
            })),
            "heart": obj(json!({
                "status": {"type": "string", "enum": ["ok", "failed"]},
                "reason": text(),
                "sleep_min_hr_bpm": int(), "sleep_avg_hr_bpm": int(), "weighin_pulse_bpm": int(),
                "latest_heart_rate_bpm": int(),
                "blood_pressure": nullable(json!({
                    "date": {"type": "string"}, "t": {"type": "integer"}, "systolic_mmhg": int(),
                    "diastolic_mmhg": int(), "pulse_bpm": int(), "days_before": {"type": "integer", "minimum": 0},
                    "at_or_above_130_80": {"type": "boolean"},
                })),
                "bp_readings_that_day": count,
                "ecg": {"type": "array", "items": obj(json!({"t": {"type": "integer"}, "classification": {"type": "string"}, "heart_rate_bpm": int()}))},
            })),
            "diagnostic": obj(json!({
                "readiness_context": {"type": "string", "enum": ["insufficient_data", "low_sleep_score", "sleep_limited",
                    "high_activity_low_sleep", "below_baseline", "well_rested", "neutral"]},
                "primary_signal": {"type": "string"},
                "readiness_evidence": obj(json!({
                    "sleep_hours": num(), "sleep_score": int(), "usual_sleep_hours": num(),
                    "usual_nights": {"type": "integer"}, "previous_day_steps": int(),
                })),
                "action_candidates": {"type": "array", "items": action()},
            })),
            "data_quality": obj(json!({
                "confidence": confidence(),
                "confidence_reasons": {"type": "array", "items": {"type": "string"}},
                "recorded": names.clone(),
                "failed": names,
                "domains": domain_quality(),
            })),
            "freshness": freshness(),
            "safety": safety(),
        },
    })
}

/// The JSON Schema every [`weekly`] answer satisfies.
pub fn weekly_output_schema() -> Value {
    let count = json!({"type": "integer", "minimum": 0});
    let dated = nullable(json!({"date": {"type": "string"}, "weight_kg": num()}));
    let agg = json!({
        "start": {"type": "string"}, "end": {"type": "string"}, "days": count,
        "days_with_activity": count, "nights_with_sleep": count, "days_with_weight": count,
        "avg_steps": int(), "median_steps": int(), "total_steps": int(), "avg_active_minutes": int(),
        "avg_distance_km": num(), "avg_active_calories_kcal": int(), "avg_sleep_hours": num(),
        "avg_sleep_score": num(), "nights_with_score": count, "avg_sleep_efficiency_pct": num(),
        "avg_bedtime": text(), "bedtime_spread_min": int(), "avg_wake_time": text(),
        "avg_sleep_hr_bpm": num(), "avg_resting_hr_bpm": num(), "naps": count, "weighins": count,
        "first_weight": dated, "latest_weight": dated, "latest_weight_kg": num(), "weight_change_kg": num(),
        "weight_change_method": {"type": ["string", "null"], "enum": ["last_minus_first", "median_of_last_3_minus_first_3", null]},
        "avg_fat_ratio_pct": num(), "bp_readings": count, "avg_systolic_mmhg": num(), "avg_diastolic_mmhg": num(),
        "ecg_recordings": count, "ecg_afib": count,
    });
    let delta_item = obj(
        json!({"current": {"type": "number"}, "previous": {"type": "number"}, "change": {"type": "number"}, "change_pct": num()}),
    );
    let names = json!({"type": "array", "items": {"type": "string", "enum": DOMAINS}});
    json!({
        "$schema": DIALECT,
        "type": "object",
        "required": ["kind", "status", "window", "scorecard", "diagnostic", "data_quality", "freshness", "safety"],
        "properties": {
            "kind": {"const": "weekly_summary"},
            "status": {"type": "string", "enum": ["ok", "partial", "no_data", "unavailable"]},
            "window": obj(json!({
                "start": {"type": "string"}, "end": {"type": "string"}, "days": {"type": "integer", "minimum": 1},
                "compare_days": count, "previous_start": text(), "previous_end": text(),
            })),
            "scorecard": obj(json!({
                "current": obj(agg.clone()),
                "previous": nullable(agg),
                "delta": {"type": ["object", "null"], "additionalProperties": delta_item},
            })),
            "diagnostic": obj(json!({
                "load_classification": {"type": "string", "enum": ["insufficient_data", "high_activity_low_sleep",
                    "sleep_limited", "good_base", "low_activity", "neutral"]},
                "load_basis": {"type": "string"},
                "bottlenecks": {"type": "array", "items": obj(json!({
                    "area": {"type": "string"}, "issue": {"type": "string"}, "summary": {"type": "string"},
                    "evidence": {"type": "object"},
                }))},
                "next_week_plan": {"type": "array", "items": obj(json!({
                    "area": {"type": "string"}, "target": {"type": "string"}, "why": {"type": "string"},
                }))},
                "action_candidates": {"type": "array", "items": action()},
            })),
            "data_quality": obj(json!({
                "confidence": confidence(),
                "confidence_reasons": {"type": "array", "items": {"type": "string"}},
                "coverage": obj(json!({
                    "nights_with_sleep": count, "days_with_activity": count, "activity_days_considered": count,
                    "days_with_weight": count, "sleep_pct": num(), "activity_pct": num(),
                })),
                "failed": names,
                "domains": domain_quality(),
            })),
            "freshness": freshness(),
            "safety": safety(),
        },
    })
}
