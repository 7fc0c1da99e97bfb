//! The OAuth redirect parser: what a person pastes into `auth --code` / `withings_exchange_code`
//! (a code, a full redirect URL or a bare query) and what the loopback listener receives as a
//! query, plus the percent-decoding under both and the redirect-URI check of `auth`.
//!
//! Invariants: no panic; an accepted callback has a non-empty code; with an expected state, the
//! state of an accepted callback (a bare code has none) is exactly that state, and a listener
//! query must carry it; `decode(encode(s)) == s` for any string.
#![no_main]

use libfuzzer_sys::fuzz_target;
use withings_mcp::withings::oauth;

const STATE: &str = "d2l0aGluZ3MtbWNwLWZ1enotc3RhdGU";

fuzz_target!(|data: &[u8]| {
    let Ok(s) = std::str::from_utf8(data) else { return };
    for expected in [None, Some(STATE)] {
        // A bare pasted code carries no state, so only a state that is present must match.
        if let Ok(cb) = oauth::parse_code_or_url(s, expected) {
            assert!(!cb.code.is_empty(), "accepted an empty code from {s:?}");
            if let (Some(want), Some(got)) = (expected, cb.state.as_deref()) {
                assert_eq!(got, want, "state check bypassed by {s:?}");
            }
        }
        if let Ok(cb) = oauth::callback_from_query(s, expected) {
            assert!(!cb.code.is_empty(), "accepted an empty code from query {s:?}");
            if let Some(want) = expected {
                assert_eq!(cb.state.as_deref(), Some(want), "state check bypassed by query {s:?}");
            }
        }
    }
    assert_eq!(oauth::decode(&oauth::encode(s)), s, "encode/decode round trip");
    let _ = oauth::parse_query(s);
    if let Ok(lb) = oauth::loopback(s) {
        assert!(lb.path.starts_with('/'), "listener path {:?} from {s:?}", lb.path);
    }
});
