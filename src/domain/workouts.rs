//! Workouts from `getworkouts`.
//!
//! The `data` object is always kept whole (upstream's summary mode dropped it, and with it
//! calories, steps and heart rate: upstream bug 7). HR values of 0 mean "no data".
//! There are no GPS fields in the public API.
//!
//! JSON shape of a record ([`Workout::to_json`]); optional keys are omitted when absent:
//!
//! ```text
//! { "id": 700000001, "category": 2, "category_name": "run",
//!   "date": "2025-01-01",                        // Withings' day: local date of the start
//!   "startdate": 1735740000, "enddate": 1735742400,
//!   "local_start": "2025-01-01T15:00:00+01:00", "local_end": "…", "timezone": "Europe/Paris",
//!   "duration": 2400, "duration_minutes": 40.0,  // end − start − pauses, seconds / minutes
//!   "calories": 356, "distance": 6400, "steps": 5980, "elevation": 24, "intensity": 0,
//!   "hr_average": 151, "hr_min": 98, "hr_max": 176,
//!   "hr_zones": {"light": 60, "moderate": 420, "intense": 1500, "maximal": 420},
//!   "spo2_average": 97, "pool_laps": 40, "pool_length": 25, "strokes": 720,
//!   "model": 93, "attrib": 0, "modified": 1735745000, "deviceid": "…",
//!   "data": { …every upstream data field, unchanged… },
//!   …unknown upstream fields… }
//! ```

use serde_json::{Map, Value, json};

use crate::domain::activity::HR_ZONE_NAMES;
use crate::domain::fields::{self, put, put_num};
use crate::domain::time::{CivilDate, Instant, Zones, format_local};

/// Workout category codes (withings-api.md §3.4), snake_case.
pub const CATEGORIES: &[(i64, &str)] = &[
    (1, "walk"),
    (2, "run"),
    (3, "hiking"),
    (4, "skating"),
    (5, "bmx"),
    (6, "bicycling"),
    (7, "swimming"),
    (8, "surfing"),
    (9, "kitesurfing"),
    (10, "windsurfing"),
    (11, "bodyboard"),
    (12, "tennis"),
    (13, "table_tennis"),
    (14, "squash"),
    (15, "badminton"),
    (16, "lift_weights"),
    (17, "fitness"),
    (18, "elliptical"),
    (19, "pilates"),
    (20, "basketball"),
    (21, "soccer"),
    (22, "football"),
    (23, "rugby"),
    (24, "volleyball"),
    (25, "water_polo"),
    (26, "horse_riding"),
    (27, "golf"),
    (28, "yoga"),
    (29, "dancing"),
    (30, "boxing"),
    (31, "fencing"),
    (32, "wrestling"),
    (33, "martial_arts"),
    (34, "skiing"),
    (35, "snowboarding"),
    (36, "other"),
    (128, "no_activity"),
    (187, "rowing"),
    (188, "zumba"),
    (191, "baseball"),
    (192, "handball"),
    (193, "hockey"),
    (194, "ice_hockey"),
    (195, "climbing"),
    (196, "ice_skating"),
    (272, "multi_sport"),
    (306, "indoor_walk"),
    (307, "indoor_running"),
    (308, "indoor_cycling"),
    (455, "stand_up_paddleboarding"),
    (456, "padel"),
    (457, "gaming"),
    (490, "beach_volleyball"),
    (491, "stair_stepper"),
    (492, "skateboarding"),
    (493, "parkour"),
    (494, "kayaking"),
    (495, "canoeing"),
    (496, "sailing"),
    (497, "fishing"),
    (498, "trail_running"),
    (499, "snowshoeing"),
    (500, "paintball"),
    (501, "archery"),
    (502, "scuba_diving"),
    (503, "baseball_training"),
    (504, "biathlon"),
    (505, "bocce"),
    (506, "petanque"),
    (507, "paragliding"),
    (508, "frisbee"),
    (509, "skydiving"),
    (510, "pickleball"),
    (511, "cornhole"),
    (512, "dodgeball"),
    (513, "ultimate"),
    (514, "teqball"),
    (515, "wheelchair_running_pace"),
    (516, "wheelchair_walking_pace"),
    (517, "athletics"),
    (518, "track_cycling"),
    (519, "pentathlon"),
    (520, "sport_shooting"),
    (521, "triathlon"),
    (522, "diving"),
    (523, "mountain_biking"),
    (524, "gravel_biking"),
    (525, "e_biking"),
    (526, "e_mountain_biking"),
    (527, "handcycling"),
    (528, "velomobile"),
    (529, "backcountry_skiing"),
    (530, "nordic_skiing"),
    (531, "roller_skiing"),
    (532, "racquetball"),
    (534, "hip_hop"),
    (535, "muay_thai"),
    (536, "taekwondo"),
    (537, "judo"),
    (538, "trampoline"),
    (539, "standing_frame"),
    (540, "seated_strength"),
    (541, "seated_cardio"),
    (542, "walk_with_walker"),
    (543, "walk_with_cane"),
    (544, "breaking"),
    (545, "chores"),
    (546, "crossfit"),
    (547, "spin_class"),
    (548, "cricket"),
    (549, "flamenco_dancing"),
    (550, "hiit"),
    (551, "meditation"),
    (552, "stretching"),
    (553, "yard_work"),
    (554, "cleaning"),
    (555, "public_speaking"),
    (556, "spikeball"),
    (557, "lacrosse"),
    (558, "baby_wearing"),
    (559, "dog_walking"),
    (560, "breathing_exercises"),
    (561, "balance_drills"),
    (562, "pushing_a_stroller"),
    (563, "toddler_wearing"),
    (564, "bowling"),
    (565, "laser_tag"),
    (566, "nordic_walking"),
    (567, "sumo_wrestling"),
    (568, "cooking"),
];

/// The category name; unknown codes read as "other" (the raw code is kept beside it).
pub fn category_name(code: i64) -> &'static str {
    CATEGORIES.iter().find(|(c, _)| *c == code).map_or("other", |(_, n)| *n)
}

/// One workout.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Workout {
    pub id: Option<i64>,
    pub category: Option<i64>,
    pub timezone: Option<String>,
    /// A device model id (an int here).
    pub model: Option<i64>,
    pub attrib: Option<i64>,
    pub start: Option<Instant>,
    pub end: Option<Instant>,
    pub date: Option<CivilDate>,
    pub modified: Option<Instant>,
    pub deviceid: Option<String>,
    pub data: Map<String, Value>,
    pub extra: Map<String, Value>,
}

const KEYS: &[&str] = &[
    "id",
    "category",
    "timezone",
    "model",
    "attrib",
    "startdate",
    "enddate",
    "date",
    "modified",
    "deviceid",
    "data",
];

/// Named `data` fields copied to the top level (HR ones only when non-zero).
const NAMED: &[&str] = &[
    "calories",
    "distance",
    "steps",
    "elevation",
    "intensity",
    "manual_distance",
    "manual_calories",
    "manual_intensity",
    "pause_duration",
    "algo_pause_duration",
    "spo2_average",
    "pool_laps",
    "pool_length",
    "strokes",
    "core_body_temperature_avg",
    "core_body_temperature_min",
    "core_body_temperature_max",
];

impl Workout {
    /// A `data` number by key.
    pub fn get(&self, key: &str) -> Option<f64> {
        self.data.get(key).and_then(fields::as_num)
    }

    /// A heart-rate `data` value; 0 means "no data".
    pub fn hr(&self, key: &str) -> Option<f64> {
        self.get(key).filter(|v| *v > 0.0)
    }

    /// Active kcal: `calories`, else the user-entered `manual_calories`.
    pub fn calories(&self) -> Option<f64> {
        self.get("calories").filter(|c| *c > 0.0).or_else(|| self.get("manual_calories").filter(|c| *c > 0.0))
    }

    /// Metres: `distance`, else the user-entered `manual_distance`.
    pub fn distance(&self) -> Option<f64> {
        self.get("distance").filter(|c| *c > 0.0).or_else(|| self.get("manual_distance").filter(|c| *c > 0.0))
    }

    /// Seconds of activity: end − start minus pauses (user-entered, else detected).
    pub fn duration_secs(&self) -> Option<i64> {
        let span = self.end?.0 - self.start?.0;
        let pause = self
            .get("pause_duration")
            .filter(|p| *p > 0.0)
            .or(self.get("algo_pause_duration"))
            .unwrap_or(0.0);
        Some((span - pause.max(0.0) as i64).max(0)).filter(|_| span >= 0)
    }

    /// The record as JSON (see the module docs).
    pub fn to_json(&self, zones: &Zones) -> Value {
        let zone = zones.for_record(self.timezone.as_deref());
        let mut m = Map::new();
        put(&mut m, "id", self.id);
        put(&mut m, "category", self.category);
        put(&mut m, "category_name", self.category.map(category_name));
        put(&mut m, "date", self.date.or(self.start.map(|t| zone.local_date(t))).map(|d| d.to_string()));
        put(&mut m, "startdate", self.start.map(|t| t.0));
        put(&mut m, "enddate", self.end.map(|t| t.0));
        put(&mut m, "local_start", self.start.map(|t| format_local(t, zone)));
        put(&mut m, "local_end", self.end.map(|t| format_local(t, zone)));
        m.insert("timezone".into(), json!(zone.name()));
        put(&mut m, "duration", self.duration_secs());
        put_num(&mut m, "duration_minutes", self.duration_secs().map(|s| fields::round(s as f64 / 60.0, 1)));
        for key in NAMED {
            if let Some(v) = self.data.get(*key).filter(|v| fields::as_num(v).is_some()) {
                m.insert((*key).to_string(), v.clone());
            }
        }
        // Calories and distance fall back to the user-entered values.
        put_num(&mut m, "calories", self.calories());
        put_num(&mut m, "distance", self.distance());
        for key in ["hr_average", "hr_min", "hr_max"] {
            put_num(&mut m, key, self.hr(key));
        }
        let zones_secs: Vec<Option<f64>> = (0..4).map(|i| self.get(&format!("hr_zone_{i}"))).collect();
        if zones_secs.iter().any(Option::is_some) {
            let mut z = Map::new();
            for (name, v) in HR_ZONE_NAMES.iter().zip(zones_secs) {
                put_num(&mut z, name, v);
            }
            m.insert("hr_zones".into(), Value::Object(z));
        }
        put(&mut m, "model", self.model);
        put(&mut m, "attrib", self.attrib);
        put(&mut m, "modified", self.modified.map(|t| t.0));
        put(&mut m, "deviceid", self.deviceid.clone());
        m.insert("data".into(), Value::Object(self.data.clone()));
        fields::merge_extra(&mut m, &self.extra);
        Value::Object(m)
    }
}

/// Decodes the `series` of a getworkouts body.
pub fn decode_workouts(body: &Value) -> Vec<Workout> {
    fields::list(body, "series").into_iter().map(decode_workout).collect()
}

/// Decodes one workout.
pub fn decode_workout(v: &Value) -> Workout {
    Workout {
        id: fields::int(v, "id"),
        category: fields::int(v, "category"),
        timezone: fields::text(v, "timezone"),
        model: fields::int(v, "model"),
        attrib: fields::int(v, "attrib"),
        start: fields::instant(v, "startdate"),
        end: fields::instant(v, "enddate"),
        date: fields::date(v, "date"),
        modified: fields::instant(v, "modified"),
        deviceid: fields::text(v, "deviceid"),
        data: fields::object(v, "data"),
        extra: fields::extra(v, KEYS),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::domain::time::Zone;

    fn zones() -> Zones {
        let mut z = Zones::new(Zone::utc());
        z.insert(Zone::from_posix("CET-1CEST,M3.5.0,M10.5.0/3").unwrap().renamed("Europe/Paris"));
        z
    }

    #[test]
    fn decodes_fixture() {
        let v: Value =
            serde_json::from_str(include_str!("../../fixtures/withings/measure_v2_getworkouts.json"))
                .unwrap();
        let ws = decode_workouts(&v["body"]);
        assert_eq!(ws.len(), 2);
        let run = ws[0].to_json(&zones());
        let want = [
            ("category_name", json!("run")),
            ("date", json!("2025-01-01")),
            ("local_start", json!("2025-01-01T15:00:00+01:00")),
            ("duration", json!(2400)),
            ("duration_minutes", json!(40.0)),
            ("calories", json!(356.0)),
            ("distance", json!(6400.0)),
            ("steps", json!(5980)),
            ("hr_average", json!(151.0)),
            ("hr_zones", json!({"light": 60.0, "moderate": 420.0, "intense": 1500.0, "maximal": 420.0})),
        ];
        for (k, v) in want {
            assert_eq!(run[k], v, "{k}");
        }
        assert_eq!(run["data"]["algo_pause_duration"], Value::Null);
        assert_eq!(run.get("spo2_average"), None);
        let swim = &ws[1];
        assert_eq!(swim.hr("hr_average"), None);
        // 1800 s minus 95 s of detected pauses.
        assert_eq!(swim.duration_secs(), Some(1705));
        let j = swim.to_json(&zones());
        assert_eq!(j["category_name"], "swimming");
        assert_eq!(j["pool_laps"], 40);
        assert_eq!(j.get("hr_average"), None);
        assert_eq!(j["data"]["hr_average"], 0);
        assert_eq!(j["calories"], json!(210.0));
    }

    #[test]
    fn missing_fields_and_unknown_category() {
        let w = decode_workout(&json!({}));
        assert_eq!(w, Workout::default());
        assert_eq!(w.to_json(&Zones::new(Zone::utc())), json!({"timezone": "UTC", "data": {}}));
        let w = decode_workout(
            &json!({"category": 533, "data": {"manual_calories": 120}, "startdate": 0, "enddate": 60}),
        );
        let j = w.to_json(&Zones::new(Zone::utc()));
        assert_eq!((j["category"].clone(), j["category_name"].clone()), (json!(533), json!("other")));
        assert_eq!(j["calories"], json!(120.0));
        assert_eq!(j["date"], "1970-01-01");
        assert_eq!(category_name(568), "cooking");
        for (i, (c, n)) in CATEGORIES.iter().enumerate() {
            assert!(CATEGORIES[..i].iter().all(|(oc, on)| oc != c && on != n), "{n}");
        }
    }
}
