//! Body recomposition: how fat mass and lean mass moved together over one window.

use std::cmp::Ordering;

use crate::domain::trends::stats::finite_or_zero;
use crate::domain::trends::{Trend, Verdict, Window};

/// How fat mass and lean mass moved together.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecompClass {
    /// Fat down and lean up.
    Recomposition,
    /// Fat down, lean unchanged.
    FatLoss,
    /// Lean up, fat unchanged.
    LeanGain,
    /// Fat up with lean up or unchanged.
    Gain,
    /// Lean down with fat down or unchanged.
    Loss,
    /// Fat up and lean down: the unfavourable mirror image of recomposition.
    FatGainLeanLoss,
    /// Both within the band.
    Stable,
    NotEnoughData,
}

impl RecompClass {
    pub fn as_str(self) -> &'static str {
        match self {
            RecompClass::Recomposition => "recomposition",
            RecompClass::FatLoss => "fat_loss",
            RecompClass::LeanGain => "lean_gain",
            RecompClass::Gain => "gain",
            RecompClass::Loss => "loss",
            RecompClass::FatGainLeanLoss => "fat_gain_lean_loss",
            RecompClass::Stable => "stable",
            RecompClass::NotEnoughData => "not_enough_data",
        }
    }
}

/// How fat mass and lean mass changed over one window, with the class of their combined change.
#[derive(Debug, Clone, PartialEq)]
pub struct Recomposition {
    pub method: &'static str,
    pub description: &'static str,
    pub window: Window,
    /// Last minus first smoothed trend value.
    pub fat_delta: Option<f64>,
    pub lean_delta: Option<f64>,
    /// The noise band: a delta within ±band counts as unchanged.
    pub band: f64,
    pub class: RecompClass,
    pub n_used: usize,
    pub n_rejected: usize,
}

/// What the recomposition reads of one mass's trend: taken as soon as the trend is made, so
/// that its lists can serve the next analysis (see [`Scratch::recycle`](super::Scratch::recycle)).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MassChange {
    /// Last minus first smoothed trend value.
    pub delta: Option<f64>,
    /// The trend had enough data for a verdict.
    pub enough: bool,
    pub n_used: usize,
    pub n_rejected: usize,
}

impl MassChange {
    pub fn of(t: &Trend) -> MassChange {
        MassChange {
            delta: smoothed_delta(t),
            enough: t.verdict != Verdict::NotEnoughData,
            n_used: t.n_used,
            n_rejected: t.n_rejected,
        }
    }
}

pub const RECOMP_METHOD: &str = "trend-delta";
pub const RECOMP_DESCRIPTION: &str = "Fat mass and lean mass are each filtered and smoothed as in \
the trend analysis; the delta is the last minus the first smoothed value in the window. A delta \
within ±band (bioimpedance noise) counts as unchanged.";

/// Classifies the change of fat mass and lean mass over `window` from their trends (each from
/// [`analyze`](super::analyze) over that window). `band` is the noise band in the masses' unit
/// (e.g. 0.5 kg); negative or non-finite means 0.
pub fn recomposition(fat: MassChange, lean: MassChange, window: Window, band: f64) -> Recomposition {
    let band = if band.is_finite() && band > 0.0 { band } else { 0.0 };
    let class = match (fat.delta, lean.delta) {
        (Some(f), Some(l)) if fat.enough && lean.enough => {
            classify_recomp(direction(f, band), direction(l, band))
        }
        _ => RecompClass::NotEnoughData,
    };
    Recomposition {
        method: RECOMP_METHOD,
        description: RECOMP_DESCRIPTION,
        window,
        n_used: fat.n_used + lean.n_used,
        n_rejected: fat.n_rejected + lean.n_rejected,
        fat_delta: fat.delta,
        lean_delta: lean.delta,
        band,
        class,
    }
}

fn smoothed_delta(t: &Trend) -> Option<f64> {
    let (first, last) = (t.smoothed.first()?, t.smoothed.last()?);
    Some(finite_or_zero(last.trend - first.trend))
}

fn direction(delta: f64, band: f64) -> Ordering {
    if delta > band {
        Ordering::Greater
    } else if delta < -band {
        Ordering::Less
    } else {
        Ordering::Equal
    }
}

fn classify_recomp(fat: Ordering, lean: Ordering) -> RecompClass {
    use Ordering::{Equal, Greater, Less};
    match (fat, lean) {
        (Less, Greater) => RecompClass::Recomposition,
        (Less, Equal) => RecompClass::FatLoss,
        (Equal, Greater) => RecompClass::LeanGain,
        (Greater, Greater | Equal) => RecompClass::Gain,
        (Less | Equal, Less) => RecompClass::Loss,
        (Greater, Less) => RecompClass::FatGainLeanLoss,
        (Equal, Equal) => RecompClass::Stable,
    }
}
