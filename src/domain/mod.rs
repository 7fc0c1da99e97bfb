//! Pure logic: no I/O, no clock, no randomness. Values in, values out.

pub mod activity;
pub mod chart;
pub mod devices;
pub mod ecg;
pub mod fields;
pub mod goals;
pub mod heart;
pub mod intraday;
pub mod measures;
pub mod named;
pub mod privacy;
pub mod sleep;
pub mod summary;
pub mod table;
pub mod time;
pub mod trends;
pub mod units;
pub mod workouts;
