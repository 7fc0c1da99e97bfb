//! Trends that separate signal from noise: robust outlier rejection, gap-aware smoothing, a
//! Theil–Sen slope with a rank interval, a verdict, body recomposition and sleep regularity.
//!
//! Pure: time arrives as Unix seconds (or, for sleep, local seconds whose day boundaries fall on
//! multiples of 86 400), nothing reads a clock, and every output is finite and deterministic:
//! sorts use a total order, no hash map is iterated, and every division is guarded.
//!
//! One file per job: `series` (filter, verdict), `smooth` (the trend line through the kept
//! readings), `stats` (medians, Theil–Sen), `recomposition` (fat vs lean mass) and `sleep`
//! (bedtime spread, Sleep Regularity Index).

mod recomposition;
mod series;
mod sleep;
mod smooth;
mod stats;

#[cfg(test)]
mod tests;

pub use recomposition::{
    MassChange, RECOMP_DESCRIPTION, RECOMP_METHOD, RecompClass, Recomposition, recomposition,
};
pub use series::{
    Bounds, Params, Reading, RejectReason, Rejected, Scratch, SmoothedPoint, TREND_DESCRIPTION, TREND_METHOD,
    Trend, Verdict, Window, analyze, analyze_in, analyze_list, standard_params,
};
pub use sleep::{
    Night, SRI_DESCRIPTION, SRI_MAX_DAYS, SRI_METHOD, SleepSegment, Sri, TIMING_DESCRIPTION, TIMING_METHOD,
    TimingSpread, sleep_regularity_index, sleep_timing,
};
pub use smooth::local_linear;
pub use stats::{Slope, median, median_mad, theil_sen};

/// Seconds in a day.
pub const SECS_PER_DAY: i64 = 86_400;
