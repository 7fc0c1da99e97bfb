//! The OAuth redirect parser: what a person pastes into `auth --code` / `withings_exchange_code`
//! (a code, a full redirect URL or a bare query) and what the loopback listener receives as a
//! query, plus the percent-decoding under both and the redirect-URI check of `auth`.
//!
//! Invariants: no panic; an accepted callback has a non-empty code; a pasted callback is accepted
//! for exchange (`check_pasted`) only with the state of a pending sign-in, whoever pastes it, and
//! never as a bare code while a sign-in is pending; a listener query is accepted only when it
//! carries exactly the listener's state; `decode(encode(s)) == s` for any string.
#![no_main]

use libfuzzer_sys::fuzz_target;
use withings_mcp::withings::oauth::{self, Local, Paster};

const STATE: &str = "d2l0aGluZ3MtbWNwLWZ1enotc3RhdGU";

fuzz_target!(|data: &[u8]| {
    let Ok(s) = std::str::from_utf8(data) else { return };
    let pending = [STATE.to_string()];
    if let Ok(cb) = oauth::parse_code_or_url(s) {
        assert!(!cb.code.is_empty(), "accepted an empty code from {s:?}");
        for who in [Paster::Command, Paster::Tool] {
            for tokens_stored in [false, true] {
                let local = Local { pending: &pending, tokens_stored };
                if let Ok(state) = oauth::check_pasted(&cb, None, local, who) {
                    assert_eq!(state.as_deref(), Some(STATE), "state check bypassed by {s:?}");
                }
            }
        }
    }
    if let Ok(cb) = oauth::callback_from_query(s, STATE) {
        assert!(!cb.code.is_empty(), "accepted an empty code from query {s:?}");
        assert_eq!(cb.state.as_deref(), Some(STATE), "state check bypassed by query {s:?}");
    }
    assert_eq!(oauth::decode(&oauth::encode(s)), s, "encode/decode round trip");
    let _ = oauth::parse_query(s);
    if let Ok(lb) = oauth::loopback(s) {
        assert!(lb.path.starts_with('/'), "listener path {:?} from {s:?}", lb.path);
    }
});
