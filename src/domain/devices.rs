//! The person's devices from user v2 `getdevice` (withings-api.md §3.8): what each is, its
//! battery, and when it first and last synced.
//!
//! A device is **stale** when its last sync is more than 48 hours old: its readings may be sitting
//! on it, unsent. Withings says battery `high` (over 75 %), `medium` (over 30 %) or `low`; anything
//! else (real data has `unknown`) reads as absent.

use serde_json::Value;

use crate::domain::fields;
use crate::domain::time::Instant;

/// A last sync older than this makes a device stale.
pub const STALE_AFTER_SECS: i64 = 48 * 3600;

/// Battery levels Withings reports.
pub const BATTERY_LEVELS: [&str; 3] = ["high", "medium", "low"];

/// One device.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Device {
    /// Withings' `type`: Scale, Blood Pressure Monitor, Activity Tracker, Sleep Monitor…
    pub kind: Option<String>,
    pub model: Option<String>,
    pub model_id: Option<i64>,
    pub battery: Option<&'static str>,
    pub timezone: Option<String>,
    pub first_sync: Option<Instant>,
    pub last_sync: Option<Instant>,
}

impl Device {
    /// The model's name: Withings' `model`, else the name of its `model_id` (the Sleep Analyzer
    /// comes with `model: ""`).
    pub fn model_name(&self) -> Option<&str> {
        self.model.as_deref().or_else(|| self.model_id.and_then(model_name))
    }

    /// True when the last sync is over 48 h before `now`; `None` when it never synced.
    pub fn stale(&self, now: Instant) -> Option<bool> {
        self.last_sync.map(|t| now.0 - t.0 > STALE_AFTER_SECS)
    }

    /// True when the device was in use at some time in `[start, end)`: it first synced before
    /// the end and last synced after the start (a missing date does not exclude it).
    pub fn used_within(&self, start: Instant, end: Instant) -> bool {
        self.first_sync.is_none_or(|t| t < end) && self.last_sync.is_none_or(|t| t >= start)
    }
}

/// Decodes one getdevice device; its identifiers (`deviceid`, `mac_address`, …) are not read. A
/// date of 0 is no date: nothing synced in 1970.
pub fn decode_device(v: &Value) -> Device {
    let date = |k: &str| fields::instant(v, k).filter(|t| t.0 > 0);
    Device {
        kind: fields::text(v, "type"),
        model: fields::text(v, "model"),
        model_id: fields::int(v, "model_id"),
        battery: v.get("battery").and_then(Value::as_str).and_then(battery),
        timezone: fields::text(v, "timezone"),
        first_sync: date("first_session_date"),
        last_sync: date("last_session_date"),
    }
}

/// A battery level as Withings writes it, when it is one of [`BATTERY_LEVELS`].
pub fn battery(s: &str) -> Option<&'static str> {
    BATTERY_LEVELS.iter().copied().find(|b| b.eq_ignore_ascii_case(s.trim()))
}

/// Device names by model id (withings-api.md §3.10).
pub fn model_name(id: i64) -> Option<&'static str> {
    const NAMES: &[(i64, &str)] = &[
        (1, "WBS01"),
        (2, "WS30"),
        (3, "Kid Scale"),
        (4, "Smart Body Analyzer"),
        (5, "Body+"),
        (6, "Body Cardio"),
        (7, "Body"),
        (9, "Body Pro"),
        (10, "Body Scan"),
        (11, "WBS10"),
        (12, "WBS11"),
        (13, "Sleep Analyzer"),
        (14, "Body Scale"),
        (15, "Body Comp 2"),
        (16, "Body Smart"),
        (18, "Body Comp"),
        (21, "Smart Baby Monitor"),
        (22, "Withings Home"),
        (41, "BPM V1"),
        (42, "BPM V2"),
        (43, "BPM V3"),
        (44, "BPM Core"),
        (45, "BPM Connect"),
        (46, "BPM Connect Pro"),
        (47, "BPM Pro 2"),
        (48, "BPM Vision"),
        (51, "Pulse"),
        (52, "Activité"),
        (53, "Activité Pop/Steel"),
        (54, "Go"),
        (55, "Steel HR"),
        (58, "Pulse HR"),
        (59, "Steel HR Sport"),
        (60, "Aura Dock"),
        (61, "Aura Sensor"),
        (63, "Aura Sensor V2"),
        (70, "Thermo"),
        (71, "BeamO"),
        (90, "Move"),
        (91, "Move ECG"),
        (92, "Move ECG"),
        (93, "ScanWatch"),
        (94, "ScanWatch 2"),
        (95, "ScanWatch Light"),
        (100, "WUP01 gateway"),
        (1061, "iGlucose"),
    ];
    NAMES.iter().find(|(i, _)| *i == id).map(|(_, n)| *n)
}

/// Devices as a list shows them: the most recently synced first (never synced last).
pub fn newest_first(devices: &mut [Device]) {
    crate::sort::by(devices, |a, b| b.last_sync.cmp(&a.last_sync));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn battery_levels() {
        let cases =
            [("high", Some("high")), (" LOW ", Some("low")), ("unknown", None), ("", None), ("42", None)];
        for (s, want) in cases {
            assert_eq!(battery(s), want, "{s}");
        }
    }

    #[test]
    fn decodes_the_fixture() {
        let v: Value =
            serde_json::from_str(include_str!("../../fixtures/withings/user_v2_getdevice.json")).unwrap();
        let d: Vec<Device> = fields::list(&v["body"], "devices").into_iter().map(decode_device).collect();
        assert_eq!(d.len(), 3);
        assert_eq!(
            (d[0].kind.as_deref(), d[0].model_name(), d[0].battery),
            (Some("Scale"), Some("Body Cardio"), Some("high"))
        );
        assert_eq!(d[0].last_sync, Some(Instant(1735715460)));
        assert_eq!((d[1].battery, d[1].model_id), (Some("medium"), Some(93)));
        // The Sleep Analyzer: model "", battery "unknown", no first session.
        assert_eq!((d[2].model_name(), d[2].battery, d[2].first_sync), (Some("Sleep Analyzer"), None, None));
        let odd = decode_device(
            &serde_json::json!({"model_id": "6", "battery": 3, "first_session_date": 0, "last_session_date": "12"}),
        );
        assert_eq!(
            (odd.model_name(), odd.battery, odd.first_sync, odd.last_sync),
            (Some("Body Cardio"), None, None, Some(Instant(12)))
        );
    }

    #[test]
    fn stale_after_48_hours() {
        let now = Instant(1_000_000);
        let at = |ago: i64| Device { last_sync: Some(Instant(now.0 - ago)), ..Device::default() };
        assert_eq!(at(STALE_AFTER_SECS).stale(now), Some(false));
        assert_eq!(at(STALE_AFTER_SECS + 1).stale(now), Some(true));
        assert_eq!(at(3 * 86_400).stale(now), Some(true));
        assert_eq!(Device::default().stale(now), None);
    }

    #[test]
    fn names_and_use() {
        let mat = Device { model: None, model_id: Some(13), ..Device::default() };
        assert_eq!(mat.model_name(), Some("Sleep Analyzer"));
        let named = Device { model: Some("ScanWatch".into()), model_id: Some(94), ..Device::default() };
        assert_eq!(named.model_name(), Some("ScanWatch"));
        assert_eq!(Device { model_id: Some(777), ..Device::default() }.model_name(), None);
        let d = Device { first_sync: Some(Instant(100)), last_sync: Some(Instant(200)), ..Device::default() };
        assert!(d.used_within(Instant(150), Instant(300)));
        assert!(!d.used_within(Instant(201), Instant(300)));
        assert!(!d.used_within(Instant(0), Instant(100)));
        assert!(Device::default().used_within(Instant(0), Instant(1)));
        let mut list = vec![Device::default(), d.clone(), Device { last_sync: Some(Instant(500)), ..d }];
        newest_first(&mut list);
        let order: Vec<_> = list.iter().map(|x| x.last_sync.map(|t| t.0)).collect();
        assert_eq!(order, [Some(500), Some(200), None]);
    }
}
