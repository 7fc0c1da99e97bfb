//! Workouts from `getworkouts`, as plain values (`withings::wire::workouts` reads them off the
//! wire; `tools::records::workouts` shows them).
//!
//! Heart-rate values of 0 mean "no data". There are no GPS fields in the public API.

use crate::domain::fields::{Num, Slots};
use crate::domain::time::{CivilDate, Instant};

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

/// A value of a workout's `data`. The discriminant is the row in [`WORKOUT_FIELDS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WorkoutField {
    Calories,
    Distance,
    Steps,
    Elevation,
    Intensity,
    ManualDistance,
    ManualCalories,
    ManualIntensity,
    PauseDuration,
    AlgoPauseDuration,
    Spo2Average,
    PoolLaps,
    PoolLength,
    Strokes,
    CoreBodyTemperatureAvg,
    CoreBodyTemperatureMin,
    CoreBodyTemperatureMax,
    HrAverage,
    HrMin,
    HrMax,
    HrZone0,
    HrZone1,
    HrZone2,
    HrZone3,
}

/// Every `data` value a workout is read for: (field, upstream key, shown under its own key in
/// the record). Heart rates and zones are shown apart (0 is "no data"; zones as one object).
pub const WORKOUT_FIELDS: &[(WorkoutField, &str, bool)] = &[
    (WorkoutField::Calories, "calories", true),
    (WorkoutField::Distance, "distance", true),
    (WorkoutField::Steps, "steps", true),
    (WorkoutField::Elevation, "elevation", true),
    (WorkoutField::Intensity, "intensity", true),
    (WorkoutField::ManualDistance, "manual_distance", true),
    (WorkoutField::ManualCalories, "manual_calories", true),
    (WorkoutField::ManualIntensity, "manual_intensity", true),
    (WorkoutField::PauseDuration, "pause_duration", true),
    (WorkoutField::AlgoPauseDuration, "algo_pause_duration", true),
    (WorkoutField::Spo2Average, "spo2_average", true),
    (WorkoutField::PoolLaps, "pool_laps", true),
    (WorkoutField::PoolLength, "pool_length", true),
    (WorkoutField::Strokes, "strokes", true),
    (WorkoutField::CoreBodyTemperatureAvg, "core_body_temperature_avg", true),
    (WorkoutField::CoreBodyTemperatureMin, "core_body_temperature_min", true),
    (WorkoutField::CoreBodyTemperatureMax, "core_body_temperature_max", true),
    (WorkoutField::HrAverage, "hr_average", false),
    (WorkoutField::HrMin, "hr_min", false),
    (WorkoutField::HrMax, "hr_max", false),
    (WorkoutField::HrZone0, "hr_zone_0", false),
    (WorkoutField::HrZone1, "hr_zone_1", false),
    (WorkoutField::HrZone2, "hr_zone_2", false),
    (WorkoutField::HrZone3, "hr_zone_3", false),
];

/// The row of [`WORKOUT_FIELDS`] Withings sends under `key`, if we read it.
pub fn workout_field(key: &str) -> Option<usize> {
    WORKOUT_FIELDS.iter().position(|(_, k, _)| *k == key)
}

/// The values of a workout's `data`, one slot per [`WORKOUT_FIELDS`] row.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct WorkoutData(pub Slots<{ WORKOUT_FIELDS.len() }>);

impl WorkoutData {
    /// A value as sent (integer or not).
    pub fn num(&self, f: WorkoutField) -> Option<Num> {
        self.0.get(f as usize)
    }

    /// A value as a number.
    pub fn get(&self, f: WorkoutField) -> Option<f64> {
        self.num(f).map(Num::f64)
    }
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
    /// Withings' day: the local date of the start.
    pub date: Option<CivilDate>,
    pub modified: Option<Instant>,
    pub deviceid: Option<String>,
    pub data: WorkoutData,
}

impl Workout {
    /// A `data` number.
    pub fn get(&self, f: WorkoutField) -> Option<f64> {
        self.data.get(f)
    }

    /// A heart-rate `data` value; 0 means "no data".
    pub fn hr(&self, f: WorkoutField) -> Option<f64> {
        self.get(f).filter(|v| *v > 0.0)
    }

    /// Active kcal: `calories`, else the user-entered `manual_calories`.
    pub fn calories(&self) -> Option<f64> {
        let positive = |f| self.get(f).filter(|c| *c > 0.0);
        positive(WorkoutField::Calories).or_else(|| positive(WorkoutField::ManualCalories))
    }

    /// Metres: `distance`, else the user-entered `manual_distance`.
    pub fn distance(&self) -> Option<f64> {
        let positive = |f| self.get(f).filter(|c| *c > 0.0);
        positive(WorkoutField::Distance).or_else(|| positive(WorkoutField::ManualDistance))
    }

    /// Seconds from start to end, pauses included (the workout's `duration`).
    pub fn span_secs(&self) -> Option<i64> {
        Some(self.end?.0 - self.start?.0).filter(|s| *s >= 0)
    }

    /// Seconds of activity: end − start minus pauses (user-entered, else detected).
    pub fn duration_secs(&self) -> Option<i64> {
        let span = self.end?.0 - self.start?.0;
        let pause = self
            .get(WorkoutField::PauseDuration)
            .filter(|p| *p > 0.0)
            .or(self.get(WorkoutField::AlgoPauseDuration))
            .unwrap_or(0.0);
        Some((span - pause.max(0.0) as i64).max(0)).filter(|_| span >= 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_in_order_and_unique() {
        for (i, (f, _, _)) in WORKOUT_FIELDS.iter().enumerate() {
            assert_eq!(*f as usize, i, "{f:?}");
        }
        assert_eq!(category_name(568), "cooking");
        assert_eq!(category_name(533), "other");
        for (i, (c, n)) in CATEGORIES.iter().enumerate() {
            assert!(CATEGORIES[..i].iter().all(|(oc, on)| oc != c && on != n), "{n}");
        }
    }

    #[test]
    fn calories_distance_and_duration_fall_back() {
        let mut w = Workout { start: Some(Instant(0)), end: Some(Instant(1800)), ..Workout::default() };
        let set = |w: &mut Workout, f: WorkoutField, v: i64| w.data.0.set(f as usize, Some(Num::Int(v)));
        assert_eq!((w.calories(), w.distance(), w.duration_secs()), (None, None, Some(1800)));
        set(&mut w, WorkoutField::Calories, 0);
        set(&mut w, WorkoutField::ManualCalories, 120);
        set(&mut w, WorkoutField::ManualDistance, 500);
        set(&mut w, WorkoutField::AlgoPauseDuration, 95);
        assert_eq!((w.calories(), w.distance(), w.duration_secs()), (Some(120.0), Some(500.0), Some(1705)));
        set(&mut w, WorkoutField::PauseDuration, 100);
        set(&mut w, WorkoutField::HrAverage, 0);
        assert_eq!((w.duration_secs(), w.hr(WorkoutField::HrAverage)), (Some(1700), None));
    }
}
