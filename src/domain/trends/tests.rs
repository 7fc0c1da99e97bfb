//! Unit tests of the trend analysis, recomposition and sleep regularity.

use crate::domain::trends::*;

const DAY: i64 = SECS_PER_DAY;
const T0: i64 = 1_767_225_600; // 2026-01-01T00:00:00Z

fn all() -> Window {
    Window { start: i64::MIN, end: i64::MAX }
}

fn weight_params() -> Params {
    standard_params(0.1, 0.3, Some(Bounds { min: 20.0, max: 400.0 }))
}

/// A fixed 64-bit LCG (Knuth's MMIX constants) mapped to [-amp, amp): deterministic noise.
fn lcg_noise(n: usize, seed: u64, amp: f64) -> Vec<f64> {
    let mut x = seed;
    (0..n)
        .map(|_| {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            ((x >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0) * amp
        })
        .collect()
}

fn theil_sen(points: &[(f64, f64)], max_points: usize) -> Option<Slope> {
    crate::domain::trends::theil_sen(points, max_points, &mut Vec::new())
}

/// The trend line through `(t, value, n)` points.
fn local_linear(points: &[(i64, f64, usize)], alpha: f64) -> Vec<SmoothedPoint> {
    let mut out: Vec<SmoothedPoint> =
        points.iter().map(|&(t, value, n)| SmoothedPoint { t, value, trend: 0.0, n }).collect();
    crate::domain::trends::local_linear(&mut out, alpha, &mut Vec::new());
    out
}

fn daily(values: &[f64]) -> Vec<Reading> {
    values.iter().enumerate().map(|(i, v)| Reading { t: T0 + i as i64 * DAY + 7 * 3600, value: *v }).collect()
}

fn assert_finite(t: &Trend) {
    let mut nums = vec![t.span_days];
    nums.extend(t.latest);
    nums.extend(t.scatter);
    nums.extend(t.change);
    if let Some(s) = t.slope {
        nums.extend([s.per_week, s.lower, s.upper, s.confidence, s.autocorr_factor]);
    }
    for s in &t.smoothed {
        nums.extend([s.value, s.trend]);
    }
    for r in &t.rejected {
        nums.extend(r.value.into_iter().chain(r.median).chain(r.score));
    }
    assert!(nums.iter().all(|x| x.is_finite()), "non-finite output in {t:?}");
    assert!(!t.reason.contains("NaN") && !t.reason.contains("inf"), "{}", t.reason);
}

#[test]
fn median_and_mad_by_hand() {
    type Case<'a> = (&'a [f64], Option<(f64, f64)>);
    let cases: &[Case] = &[
        (&[], None),
        (&[5.0], Some((5.0, 0.0))),
        (&[1.0, 2.0, 3.0, 4.0, 100.0], Some((3.0, 1.0))),
        // Deviations from 2: 1,1,0,0,2,4,7 → sorted 0,0,1,1,2,4,7 → MAD 1.
        (&[1.0, 1.0, 2.0, 2.0, 4.0, 6.0, 9.0], Some((2.0, 1.0))),
        // Even count: median 2.5, deviations 1.5,0.5,0.5,1.5 → MAD 1.
        (&[4.0, 1.0, 3.0, 2.0], Some((2.5, 1.0))),
        (&[7.0, 7.0, 7.0], Some((7.0, 0.0))),
        (&[f64::NAN, 1.0, 3.0], Some((2.0, 1.0))),
    ];
    for (values, want) in cases {
        assert_eq!(median_mad(values), *want, "{values:?}");
    }
}

#[test]
fn theil_sen_on_a_perfect_line_is_exact() {
    // 0.5 per day is exactly representable, so every pairwise slope is exactly 3.5 per week.
    let pts: Vec<(f64, f64)> = (0..10).map(|d| (d as f64, 60.0 + 0.5 * d as f64)).collect();
    let s = theil_sen(&pts, 1500).unwrap();
    assert_eq!((s.per_week, s.lower, s.upper), (3.5, 3.5, 3.5));
    assert_eq!((s.n_points, s.n_pairs, s.subsampled), (10, 45, false));
    assert_eq!(s.autocorr_factor, 1.0);
}

#[test]
fn theil_sen_subsamples_big_inputs_deterministically() {
    let pts: Vec<(f64, f64)> = (0..3000).map(|d| (d as f64, -0.25 * d as f64)).collect();
    let s = theil_sen(&pts, 100).unwrap();
    assert_eq!((s.per_week, s.n_points, s.n_pairs, s.subsampled), (-1.75, 100, 4950, true));
    assert_eq!(theil_sen(&pts, 100), Some(s));
}

#[test]
fn theil_sen_interval_uses_kendall_ranks() {
    // Five points, slopes per day: pairs give 10 slopes. n=5: var = 5·4·15/18 = 16.667,
    // C = 1.96·4.082 = 8.00, ranks (10−8)/2 = 1.0 and (10+8)/2+1 = 10.0 → min and max slope.
    let pts = [(0.0, 0.0), (1.0, 1.0), (2.0, 1.0), (3.0, 3.0), (4.0, 4.0)];
    let s = theil_sen(&pts, 1500).unwrap();
    let mut slopes = vec![];
    for (i, a) in pts.iter().enumerate() {
        for b in &pts[i + 1..] {
            slopes.push((b.1 - a.1) / (b.0 - a.0) * 7.0);
        }
    }
    slopes.sort_by(f64::total_cmp);
    assert_eq!(s.per_week, (slopes[4] + slopes[5]) / 2.0);
    assert!(s.lower <= slopes[0] + 0.01 * 7.0 && s.lower >= slopes[0]);
    assert!(s.upper >= slopes[9] - 0.01 * 7.0 && s.upper <= slopes[9]);
    assert_eq!(theil_sen(&[(1.0, 1.0)], 1500), None);
    assert_eq!(theil_sen(&[(1.0, 1.0), (1.0, 2.0)], 1500), None);
}

#[test]
fn local_linear_follows_lines_exactly_and_weighs_by_days() {
    // A straight line, irregularly spaced, with a merged pair: reproduced exactly everywhere,
    // including both ends (where an exponential moving average lags or leads).
    let days = [0i64, 1, 2, 5, 6, 13, 14, 15, 30, 31];
    let line: Vec<(i64, f64, usize)> =
        days.iter().map(|d| (T0 + d * DAY, 80.0 - 0.05 * *d as f64, if *d == 6 { 2 } else { 1 })).collect();
    for alpha in [0.05, 0.1, 0.5, f64::NAN, 7.0] {
        for p in local_linear(&line, alpha) {
            assert!((p.trend - p.value).abs() < 1e-9, "alpha {alpha}: {p:?}");
        }
    }
    // One point, or several at once: the (weighted) value itself.
    assert_eq!(local_linear(&[(T0, 70.0, 1)], 0.1)[0].trend, 70.0);
    assert_eq!(local_linear(&[], 0.1), Vec::new());
    // A reading far away in time barely counts: two plateaus a year apart keep their levels.
    let plateaus = [(T0, 70.0, 1), (T0 + DAY, 70.0, 1), (T0 + 400 * DAY, 60.0, 1), (T0 + 401 * DAY, 60.0, 1)];
    let out = local_linear(&plateaus, 0.1);
    assert!((out[1].trend - 70.0).abs() < 1e-9 && (out[2].trend - 60.0).abs() < 1e-9, "{out:?}");
    // Noise around a level is smoothed: the line varies far less than the readings.
    let noisy: Vec<(i64, f64, usize)> =
        lcg_noise(60, 9, 1.0).iter().enumerate().map(|(d, e)| (T0 + d as i64 * DAY, 70.0 + e, 1)).collect();
    let out = local_linear(&noisy, 0.1);
    let spread =
        |f: &dyn Fn(&SmoothedPoint) -> f64| out.iter().map(|p| (f(p) - 70.0).abs()).fold(0.0, f64::max);
    assert!(spread(&|p| p.trend) < 0.5 * spread(&|p| p.value), "{out:?}");
}

#[test]
fn planted_trend_rises_and_pure_noise_is_stable() {
    let noise = lcg_noise(70, 42, 0.4);
    let trend: Vec<f64> = (0..70).map(|d| 80.0 + 0.5 / 7.0 * d as f64 + noise[d]).collect();
    let flat: Vec<f64> = (0..70).map(|d| 80.0 + noise[d]).collect();
    let falling: Vec<f64> = (0..70).map(|d| 80.0 - 0.5 / 7.0 * d as f64 + noise[d]).collect();
    let up = analyze(&daily(&trend), all(), &weight_params());
    let level = analyze(&daily(&flat), all(), &weight_params());
    let down = analyze(&daily(&falling), all(), &weight_params());
    assert_eq!(up.verdict, Verdict::Rising, "{}", up.reason);
    assert_eq!(level.verdict, Verdict::Stable, "{}", level.reason);
    assert_eq!(down.verdict, Verdict::Falling, "{}", down.reason);
    let s = up.slope.unwrap();
    assert!(s.lower > 0.0 && (s.per_week - 0.5).abs() < 0.1, "{s:?}");
    // A steady trend is not mistaken for outliers.
    assert_eq!((up.n_rejected, level.n_rejected, down.n_rejected), (0, 0, 0));
    for t in [&up, &level, &down] {
        assert_finite(t);
        assert_eq!(t.n_used, 70);
        assert_eq!(t.smoothed.len(), 70);
    }
}

#[test]
fn slow_drift_below_the_meaningful_change_is_stable() {
    // 0.05 kg/week with no noise: the interval excludes zero, but it is below 0.1 kg/week.
    let v: Vec<f64> = (0..60).map(|d| 80.0 + 0.05 / 7.0 * d as f64).collect();
    let t = analyze(&daily(&v), all(), &weight_params());
    assert!(t.slope.unwrap().lower > 0.0);
    assert_eq!(t.verdict, Verdict::Stable, "{}", t.reason);
}

#[test]
fn too_few_readings_or_too_short_a_span() {
    let p = weight_params();
    let cases: &[(&[(i64, f64)], Verdict)] = &[
        (&[], Verdict::NotEnoughData),
        (&[(0, 70.0)], Verdict::NotEnoughData),
        (&[(0, 70.0), (10, 71.0)], Verdict::NotEnoughData),
        (&[(0, 70.0), (1, 71.0), (2, 72.0), (3, 73.0)], Verdict::NotEnoughData), // 3-day span
        (&[(0, 70.0), (3, 70.0), (6, 70.0), (9, 70.0)], Verdict::Stable),
        (&[(0, 70.0), (3, 71.0), (6, 72.0), (9, 73.0)], Verdict::Rising),
    ];
    for (days, want) in cases {
        let r: Vec<Reading> = days.iter().map(|(d, v)| Reading { t: T0 + d * DAY, value: *v }).collect();
        let t = analyze(&r, all(), &p);
        assert_eq!(t.verdict, *want, "{days:?}: {}", t.reason);
        assert_finite(&t);
    }
}

#[test]
fn identical_readings_are_stable_without_nan() {
    let t = analyze(&daily(&[72.5; 30]), all(), &standard_params(0.1, 0.0, None));
    assert_eq!(t.verdict, Verdict::Stable);
    assert_eq!((t.n_used, t.n_rejected), (30, 0));
    let s = t.slope.unwrap();
    assert_eq!((s.per_week, s.lower, s.upper), (0.0, 0.0, 0.0));
    assert_eq!((t.scatter, t.latest, t.change), (Some(0.0), Some(72.5), Some(0.0)));
    assert_finite(&t);
}

#[test]
fn rejections_carry_time_value_and_reason() {
    let mut r = daily(&[70.0, 70.2, 69.9, 70.1, 70.0, 69.8, 70.3, 70.1, 69.9, 70.0]);
    r.push(Reading { t: T0 + DAY / 2, value: 7.0 });
    r.push(Reading { t: T0 + 3 * DAY / 2, value: 700.0 });
    r.push(Reading { t: T0 + 5 * DAY / 2, value: f64::NAN });
    r.push(Reading { t: T0 + 7 * DAY / 2, value: f64::INFINITY });
    r.push(r[4]); // an exact duplicate
    r.push(Reading { t: T0 + 11 * DAY / 2, value: 78.0 }); // clothes on: plausible, but an outlier
    let t = analyze(&r, all(), &weight_params());
    let got: Vec<(i64, Option<f64>, &str)> =
        t.rejected.iter().map(|x| ((x.t - T0) * 2 / DAY, x.value, x.reason.as_str())).collect();
    assert_eq!(
        got,
        vec![
            (1, Some(7.0), "implausible"),
            (3, Some(700.0), "implausible"),
            (5, None, "non_finite"),
            (7, None, "non_finite"),
            (8, Some(70.0), "duplicate"),
            (11, Some(78.0), "outlier"),
        ]
    );
    let outlier = &t.rejected[5];
    assert_eq!(outlier.median, Some(70.0));
    assert!(outlier.score.unwrap() > 3.5);
    assert_eq!((t.n_input, t.n_used, t.n_rejected), (16, 10, 6));
    assert_finite(&t);
}

#[test]
fn near_constant_series_does_not_reject_small_changes() {
    // MAD is 0 here (most values equal). Without a spread floor the 70.4 would score ∞.
    let v = [70.0, 70.0, 70.0, 70.0, 70.4, 70.0, 70.0, 70.0, 70.0, 70.0];
    let t = analyze(&daily(&v), all(), &weight_params());
    assert_eq!(t.n_rejected, 0);
    // With no floor the mean-absolute-deviation fallback applies: 0.04·1.2533 → 70.4 scores 8.
    let t = analyze(&daily(&v), all(), &standard_params(0.1, 0.0, None));
    assert_eq!(t.rejected.iter().map(|r| r.reason).collect::<Vec<_>>(), vec![RejectReason::Outlier]);
    assert_finite(&t);
}

#[test]
fn output_does_not_depend_on_input_order() {
    let noise = lcg_noise(50, 7, 0.5);
    let mut r = daily(&noise.iter().map(|n| 75.0 + n).collect::<Vec<_>>());
    r.push(Reading { t: r[10].t, value: 75.3 }); // same time, other device: merged
    let a = analyze(&r, all(), &weight_params());
    r.reverse();
    r.swap(3, 17);
    let b = analyze(&r, all(), &weight_params());
    assert_eq!(a, b);
    assert_eq!(a.smoothed.len(), 50);
    assert_eq!(a.smoothed[10].n, 2);
}

#[test]
fn window_bounds_are_inclusive_and_outside_is_counted() {
    let r = daily(&[70.0; 20]);
    let w = Window { start: r[2].t, end: r[11].t };
    let t = analyze(&r, w, &weight_params());
    assert_eq!((t.n_input, t.n_outside_window, t.n_used), (20, 10, 10));
    assert_eq!((t.first_t, t.last_t, t.window), (Some(r[2].t), Some(r[11].t), w));
    assert_eq!(t.span_days, 9.0);
}

#[test]
fn nonsense_params_are_replaced_not_propagated() {
    let p = Params {
        alpha: f64::NAN,
        mad_k: -1.0,
        local_days: -5,
        min_local: 0,
        min_spread: f64::INFINITY,
        plausible: Some(Bounds { min: f64::NAN, max: 1.0 }),
        min_change_per_week: f64::NAN,
        noise_multiple: f64::NEG_INFINITY,
        min_readings: 0,
        min_span_days: f64::NAN,
        max_slope_points: 0,
        display_factor: f64::NAN,
        display_unit: "lb",
        display_decimals: 2,
    };
    let v: Vec<f64> = (0..20).map(|d| 1e12 - d as f64).collect();
    let t = analyze(&daily(&v), all(), &p);
    assert_finite(&t);
    assert_eq!(t.verdict, Verdict::Falling, "{}", t.reason);
    let huge = analyze(&daily(&[1e300, -1e300, 5.0, 6.0]), all(), &p);
    assert_eq!(huge.n_rejected, 2);
    assert_finite(&huge);
}

#[test]
fn recomposition_classes() {
    let line = |start: f64, per_week: f64| -> Vec<Reading> {
        daily(&(0..56).map(|d| start + per_week / 7.0 * d as f64).collect::<Vec<_>>())
    };
    let p = standard_params(0.05, 0.2, Some(Bounds { min: 1.0, max: 300.0 }));
    let recomposition = |fat: &[Reading], lean: &[Reading], window: Window, p: &Params, band: f64| {
        let change = |readings: &[Reading]| MassChange::of(&analyze(readings, window, p));
        recomposition(change(fat), change(lean), window, band)
    };
    let cases = [
        (-0.5, 0.3, RecompClass::Recomposition),
        (-0.5, 0.0, RecompClass::FatLoss),
        (0.0, 0.3, RecompClass::LeanGain),
        (0.5, 0.3, RecompClass::Gain),
        (0.5, 0.0, RecompClass::Gain),
        (-0.5, -0.3, RecompClass::Loss),
        (0.0, -0.3, RecompClass::Loss),
        (0.5, -0.3, RecompClass::FatGainLeanLoss),
        (0.01, -0.01, RecompClass::Stable),
    ];
    for (fat_wk, lean_wk, want) in cases {
        let r = recomposition(&line(20.0, fat_wk), &line(60.0, lean_wk), all(), &p, 0.5);
        assert_eq!(r.class, want, "fat {fat_wk} lean {lean_wk}: {r:?}");
        assert_eq!((r.n_used, r.n_rejected), (112, 0));
    }
    let r = recomposition(&line(20.0, -0.5)[..2], &line(60.0, 0.3), all(), &p, 0.5);
    assert_eq!(r.class, RecompClass::NotEnoughData);
    // The trend does not lag: 56 daily readings at −0.5 kg/week change by exactly 55 days' worth
    // (an exponential moving average showed a bit over −3 kg).
    let r = recomposition(&line(20.0, -0.5), &line(60.0, 0.3), all(), &p, 0.5);
    let fat = r.fat_delta.unwrap();
    assert!((fat - -0.5 / 7.0 * 55.0).abs() < 1e-9, "{fat}");
}

#[test]
fn bedtime_spread_wraps_around_midnight() {
    let h = |hh: i64, mm: i64| hh * 3600 + mm * 60;
    let night = |day: i64, bed: i64, wake: i64| Night { day, bedtime: bed, wake };
    // 23:30 and 00:30: mean 00:00, distances ±30 min, sample SD = sqrt(2·30²/1) = 42.43 min.
    let s = sleep_timing(&[night(1, h(23, 30), h(7, 0)), night(2, h(0, 30), h(7, 0))]).unwrap();
    assert_eq!((s.bedtime_mean, s.wake_mean), (0, h(7, 0)));
    assert!((s.bedtime_sd_min - 2.0f64.sqrt() * 30.0).abs() < 1e-9, "{}", s.bedtime_sd_min);
    assert_eq!(s.wake_sd_min, 0.0);
    assert_eq!((s.first_day, s.last_day, s.n_used, s.n_rejected), (1, 2, 2, 0));
    // Rejected times, too few nights, and times spread evenly round the clock.
    let bad = [night(1, -1, h(7, 0)), night(2, h(23, 0), SECS_PER_DAY), night(3, h(23, 0), h(7, 0))];
    assert_eq!(sleep_timing(&bad), None);
    let opposite = [night(1, 0, h(7, 0)), night(2, h(12, 0), h(7, 0))];
    assert_eq!(sleep_timing(&opposite), None);
    let mut with_bad = bad.to_vec();
    with_bad.push(night(4, h(23, 0), h(7, 0)));
    let s = sleep_timing(&with_bad).unwrap();
    assert_eq!((s.n_used, s.n_rejected, s.bedtime_mean, s.bedtime_sd_min), (2, 2, h(23, 0), 0.0));
}

fn nights(schedule: &[(i64, i64)]) -> Vec<SleepSegment> {
    // (bed, wake) as seconds relative to the midnight that starts day d+1.
    schedule
        .iter()
        .enumerate()
        .map(|(d, (bed, wake))| {
            let midnight = (20_000 + d as i64 + 1) * DAY;
            SleepSegment { start: midnight + bed, end: midnight + wake, asleep: true }
        })
        .collect()
}

#[test]
fn sri_regular_is_100_and_a_shifted_schedule_is_lower() {
    let regular = nights(&[(-3600, 7 * 3600); 7]);
    for epoch in [30, 60] {
        let s = sleep_regularity_index(&regular, epoch).unwrap();
        assert_eq!((s.value, s.n_days), (100.0, 7));
        assert_eq!(s.n_comparisons, 6 * (DAY / epoch) as usize);
    }
    // Alternating 23:00–07:00 and 02:00–10:00: each day pair disagrees for 3 h at each end,
    // 6 h of 24, so agreement is 75% and SRI = 200·0.75 − 100 = 50 exactly.
    let shifted = nights(&[(-3600, 7 * 3600), (2 * 3600, 10 * 3600)].repeat(4)[..7]);
    let s = sleep_regularity_index(&shifted, 60).unwrap();
    assert_eq!(s.value, 50.0);
    // Explicit awake segments inside the night change nothing when they sit where the other
    // nights are awake too; one night alone cannot be compared.
    assert_eq!(sleep_regularity_index(&regular[..1], 60), None);
    assert_eq!(sleep_regularity_index(&regular, 7), None);
    assert_eq!(sleep_regularity_index(&regular, 0), None);
    assert_eq!(sleep_regularity_index(&[], 60), None);
}

#[test]
fn sri_skips_missing_nights_and_bad_segments() {
    let mut segs = nights(&[(-3600, 7 * 3600); 7]);
    segs.remove(3); // a night without the watch: that day is missing, not awake
    segs.push(SleepSegment { start: 5, end: 5, asleep: true });
    segs.push(SleepSegment { start: i64::MAX - 1, end: i64::MAX, asleep: true });
    let s = sleep_regularity_index(&segs, 60).unwrap();
    assert_eq!((s.value, s.n_days, s.n_used, s.n_rejected), (100.0, 6, 6, 2));
    assert_eq!(s.n_comparisons, 4 * 1440);
    // A nap on noon-day 2 is compared with day 1 (awake then); day 3 is missing, so it costs
    // 60 disagreements out of 4·1440 comparisons.
    segs.push(SleepSegment {
        start: (20_000 + 2) * DAY + 15 * 3600,
        end: (20_000 + 2) * DAY + 16 * 3600,
        asleep: false,
    });
    segs.push(SleepSegment {
        start: (20_000 + 2) * DAY + 15 * 3600,
        end: (20_000 + 2) * DAY + 16 * 3600,
        asleep: true,
    });
    let nap = sleep_regularity_index(&segs, 60).unwrap();
    let want = 200.0 * (4.0 * 1440.0 - 60.0) / (4.0 * 1440.0) - 100.0;
    assert!((nap.value - want).abs() < 1e-9, "{} vs {want}", nap.value);
}

#[test]
fn the_trend_does_not_lag_a_steady_loss() {
    // Issue 12: 0.25 kg/week down for 16 weeks, ~15% of days skipped, noise of SD 0.3 kg. Over
    // many noise draws, the readings' mean residual around the smoothed level at the last five
    // readings must be within 25% of the noise SD: no systematic lag above (or lead below).
    let amp = 0.3 * 3f64.sqrt(); // uniform on ±amp has SD 0.3
    let (mut sum, mut n) = (0.0, 0);
    for seed in 0..200u64 {
        let noise = lcg_noise(112, seed * 7 + 1, amp);
        let skip = lcg_noise(112, seed * 13 + 5, 1.0);
        let readings: Vec<Reading> = (0..112)
            .filter(|d| skip[*d] > -0.7)
            .map(|d| Reading {
                t: T0 + d as i64 * DAY + 7 * 3600,
                value: 80.0 - 0.25 / 7.0 * d as f64 + noise[d],
            })
            .collect();
        let t =
            analyze(&readings, Window { start: T0, end: T0 + 200 * DAY }, &standard_params(0.1, 0.3, None));
        for p in t.smoothed.iter().rev().take(5) {
            sum += p.value - p.trend;
            n += 1;
        }
        // The latest level is the level at the last reading.
        assert_eq!(t.latest, t.smoothed.last().map(|p| p.trend));
    }
    let mean = sum / n as f64;
    assert!(mean.abs() <= 0.25 * 0.3, "mean residual {mean:.3} kg at the last five readings");
}
