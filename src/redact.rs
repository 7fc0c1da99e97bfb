//! Secrets out of text.
//!
//! Every secret this process reads (the client secret, access and refresh tokens, authorization
//! codes) is remembered here where it enters: `store::config`, `store::tokens`,
//! `withings::oauth`. Text that came from outside (Withings' `error` strings, a decoder's message
//! about an upstream body, a callback's parameters) is scrubbed of all of them, and of the value
//! of any secret-named key (`refresh_token=…`, `"code": "…"`, `Bearer …`), when it becomes part of
//! an `Error` (`error::Foreign`). So no result, log line, stderr line or page built from an error
//! can carry a secret, whatever Withings chose to echo.

use std::sync::{Mutex, PoisonError};

/// What a scrubbed secret becomes.
pub const REDACTED: &str = "[redacted]";
/// Shorter values are not remembered: replacing them everywhere would shred ordinary text, and
/// real secrets are far longer (Withings codes and tokens are 40 characters). Key-based
/// redaction still covers them.
const MIN_KNOWN_LEN: usize = 8;
/// The most secrets kept; the oldest is forgotten first (rotated tokens of a long-running server).
const MAX_KNOWN: usize = 64;

static KNOWN: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Remembers a secret so that `scrub` removes it from any foreign text from now on.
pub fn remember(secret: &str) {
    let secret = secret.trim();
    if secret.chars().count() < MIN_KNOWN_LEN {
        return;
    }
    // A poisoned lock still holds a usable list; losing redaction over it would be worse.
    let mut known = KNOWN.lock().unwrap_or_else(PoisonError::into_inner);
    if known.iter().any(|k| k == secret) {
        return;
    }
    if known.len() >= MAX_KNOWN {
        known.remove(0);
    }
    known.push(secret.to_string());
}

/// `text` without any remembered secret and without the value of any secret-named key.
pub fn scrub(text: &str) -> String {
    let known = KNOWN.lock().unwrap_or_else(PoisonError::into_inner).clone();
    scrub_with(text, &known)
}

/// `scrub` with an explicit list of known secrets (pure; the registry's view is `scrub`).
pub fn scrub_with(text: &str, known: &[String]) -> String {
    let mut out = text.to_string();
    let mut left: Vec<&str> = known.iter().map(String::as_str).filter(|k| !k.is_empty()).collect();
    // Longest first, so that a secret that contains another is replaced whole. (Picked one by one
    // rather than sorted: a few dozen entries at most, and no sort code in the binary for it.)
    while let Some(i) = (0..left.len()).max_by_key(|&i| left.get(i).map_or(0, |k| k.len())) {
        let k = left.swap_remove(i);
        if out.contains(k) {
            out = out.replace(k, REDACTED);
        }
    }
    redact_values(&out)
}

/// True when a key names a secret: any `…token`, `…secret…`, `…password…` or `…api_key`, and
/// `code`, `authorization`, `nonce`, `signature`, `cookie`, `session_id`, `callbackurl`. Keys match
/// case-insensitively, ignoring `_` and `-` (`refreshToken` is `refresh_token`); `token_type`,
/// `error_code` and `codes` do not match. The one list: `domain::privacy` strips the same keys
/// from raw records.
pub fn is_secret_key(key: &str) -> bool {
    with_normal_key(key, names_secret)
}

/// `f` of `key` in lower case without `_` and `-`. Normalised on the stack: this runs for every
/// key of every record a list returns, where a string per key was a tenth of a long answer's
/// time. Longer keys (rare) take a buffer.
/// (A plain loop over the bytes: through `filter` and `map`, each byte was a call in the
/// size-optimised build.)
pub fn with_normal_key<R>(key: &str, f: impl FnOnce(&[u8]) -> R) -> R {
    let mut buf = [0u8; 64];
    let mut n = 0;
    for &b in key.as_bytes() {
        if b == b'_' || b == b'-' {
            continue;
        }
        let Some(slot) = buf.get_mut(n) else {
            let normal = key.bytes().filter(|b| *b != b'_' && *b != b'-').map(|b| b.to_ascii_lowercase());
            return f(&normal.collect::<Vec<u8>>());
        };
        *slot = b.to_ascii_lowercase();
        n += 1;
    }
    f(buf.get(..n).unwrap_or_default())
}

/// [`is_secret_key`] of a normalised key (bytes: the patterns are ASCII, and a byte of a
/// multi-byte character never equals an ASCII one, so this answers as characters would).
pub fn names_secret(k: &[u8]) -> bool {
    // The first byte first: most windows differ there, and a slice comparison is a call.
    let has = |p: &[u8]| k.windows(p.len()).any(|w| w.first() == p.first() && w == p);
    k.ends_with(b"token")
        || has(b"secret")
        || has(b"password")
        || k.ends_with(b"apikey")
        || k.ends_with(b"privatekey")
        || matches!(
            k,
            b"code"
                | b"authcode"
                | b"authorizationcode"
                | b"authorization"
                | b"nonce"
                | b"signature"
                | b"cookie"
                | b"sessionid"
                | b"callbackurl"
        )
}

/// Replaces the value after a secret-named key (`key=value`, `key: value`, `"key": "value"`,
/// escaped JSON too) and after the word `Bearer`.
fn redact_values(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    let mut i = 0;
    while i < b.len() {
        let value_start = match b.get(i) {
            Some(b'=' | b':') if is_secret_key(key_before(text, i)) => {
                // `Authorization: Bearer x`: the token is the value, not the scheme.
                let v = skip_quoting(b, i + 1);
                match bearer_at(b, v) {
                    true => skip_quoting(b, v + "bearer".len()),
                    false => v,
                }
            }
            Some(_) if bearer_at(b, i) => skip_quoting(b, i + "bearer".len()),
            _ => {
                i += 1;
                continue;
            }
        };
        let value_end =
            (value_start..b.len()).find(|&j| b.get(j).is_some_and(|&c| ends_value(c))).unwrap_or(b.len());
        if value_end > value_start {
            out.push_str(text.get(copied..value_start).unwrap_or_default());
            out.push_str(REDACTED);
            copied = value_end;
            i = value_end;
        } else {
            i += 1;
        }
    }
    out.push_str(text.get(copied..).unwrap_or_default());
    out
}

/// The key that ends just before the separator at `sep` (quotes and spaces between are skipped).
fn key_before(text: &str, sep: usize) -> &str {
    let b = text.as_bytes();
    let mut end = sep;
    while end > 0 && b.get(end - 1).is_some_and(|&c| is_quoting(c)) {
        end -= 1;
    }
    let mut start = end;
    while start > 0 && b.get(start - 1).is_some_and(|&c| c.is_ascii_alphanumeric() || c == b'_' || c == b'-')
    {
        start -= 1;
    }
    text.get(start..end).unwrap_or_default()
}

/// True when the word `Bearer` (any case, not inside a longer word) followed by a space starts at `i`.
fn bearer_at(b: &[u8], i: usize) -> bool {
    let word = b.get(i..i + 6).is_some_and(|w| w.eq_ignore_ascii_case(b"bearer"));
    let before = i == 0 || b.get(i - 1).is_some_and(|c| !c.is_ascii_alphanumeric() && *c != b'_');
    word && before && b.get(i + 6).is_some_and(|c| *c == b' ' || *c == b'\t')
}

/// The first index at or after `i` that is not a space, quote or backslash.
fn skip_quoting(b: &[u8], mut i: usize) -> usize {
    while b.get(i).is_some_and(|&c| is_quoting(c)) {
        i += 1;
    }
    i
}

fn is_quoting(c: u8) -> bool {
    c.is_ascii_whitespace() || matches!(c, b'"' | b'\'' | b'\\')
}

fn ends_value(c: u8) -> bool {
    c.is_ascii_whitespace()
        || matches!(c, b'"' | b'\'' | b'\\' | b'&' | b',' | b';' | b'}' | b']' | b')' | b'<' | b'>')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_of_secret_keys_and_known_secrets_are_replaced() {
        // The second contains the first: the longer is replaced whole, leaving no tail behind.
        let known = vec![
            "S3CRETclientvalue".to_string(),
            "acc0123456789".to_string(),
            "acc0123456789-tail".to_string(),
        ];
        let cases = [
            ("invalid refresh_token=r1234 given", "invalid refresh_token=[redacted] given"),
            ("code=abc&state=s1", "code=[redacted]&state=s1"),
            ("cb?code=abc%2Bd&state=s1#x", "cb?code=[redacted]&state=s1#x"),
            (r#"{"access_token": "a-b.c", "scope": "x"}"#, r#"{"access_token": "[redacted]", "scope": "x"}"#),
            (r#"{"refreshToken":"r1"}"#, r#"{"refreshToken":"[redacted]"}"#),
            (r#"{\"code\":\"c1\"}"#, r#"{\"code\":\"[redacted]\"}"#),
            ("client_secret: zz, next", "client_secret: [redacted], next"),
            ("Authorization: Bearer t0k3n", "Authorization: Bearer [redacted]"),
            ("header bearer t0k3n here", "header bearer [redacted] here"),
            ("echo S3CRETclientvalue and acc0123456789", "echo [redacted] and [redacted]"),
            ("x acc0123456789-tail y", "x [redacted] y"),
            ("token_type=Bearer, error_code=293, scope=a", "token_type=Bearer, error_code=293, scope=a"),
            ("Invalid Params: invalid code", "Invalid Params: invalid code"),
            ("unbearer x, code=", "unbearer x, code="),
            ("é code=ü€ end", "é code=[redacted] end"),
        ];
        for (input, want) in cases {
            assert_eq!(scrub_with(input, &known), want, "{input}");
        }
    }

    #[test]
    fn secret_key_names() {
        for k in [
            "code",
            "access_token",
            "refresh_token",
            "client_secret",
            "refreshToken",
            "x-api-key",
            "password",
            "Session-ID",
            "my_very_long_field_name_that_goes_on_and_on_and_on_past_the_buffer_refresh_token",
            "évènement_secret",
        ] {
            assert!(is_secret_key(k), "{k}");
        }
        for k in [
            "token_type",
            "error_code",
            "codes",
            "token_count",
            "state",
            "scope",
            "status",
            "userid",
            "",
            "cöde",
        ] {
            assert!(!is_secret_key(k), "{k}");
        }
    }

    #[test]
    fn the_registry_scrubs_what_it_was_told_and_ignores_short_values() {
        remember("registry-secret-0001");
        remember("short");
        assert_eq!(scrub("a registry-secret-0001 b short"), "a [redacted] b short");
    }
}
