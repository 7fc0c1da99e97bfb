//! Signature v2: HMAC-SHA256 over `action,client_id,<nonce|timestamp>` keyed with the client
//! secret, as lowercase hex; plus the one source of randomness for nonces, states and jitter.

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

use crate::{Error, Result};

/// Lowercase hex HMAC-SHA256 of `message` keyed with `secret`.
pub fn hmac_hex(secret: &str, message: &str) -> String {
    // HMAC accepts keys of any length, so `new_from_slice` cannot fail; the fallback keeps the
    // function total without a panic path.
    match Hmac::<Sha256>::new_from_slice(secret.as_bytes()) {
        Ok(mut mac) => {
            mac.update(message.as_bytes());
            hex(&mac.finalize().into_bytes())
        }
        Err(_) => String::new(),
    }
}

/// The signature of a signed request: the values of `action`, `client_id` and `nonce` (or
/// `timestamp` for `getnonce`), in key order, joined with commas.
pub fn signature(secret: &str, action: &str, client_id: &str, nonce_or_timestamp: &str) -> String {
    hmac_hex(secret, &format!("{action},{client_id},{nonce_or_timestamp}"))
}

/// The form of a `getnonce` request at `timestamp`.
pub fn getnonce_form(client_id: &str, secret: &str, timestamp: i64) -> Vec<(&'static str, String)> {
    let ts = timestamp.to_string();
    vec![
        ("action", "getnonce".to_string()),
        ("client_id", client_id.to_string()),
        ("timestamp", ts.clone()),
        ("signature", signature(secret, "getnonce", client_id, &ts)),
    ]
}

/// The authentication fields of a signed request (`action`, `client_id`, `nonce`, `signature`).
pub fn signed_form(client_id: &str, secret: &str, action: &str, nonce: &str) -> Vec<(&'static str, String)> {
    vec![
        ("action", action.to_string()),
        ("client_id", client_id.to_string()),
        ("nonce", nonce.to_string()),
        ("signature", signature(secret, action, client_id, nonce)),
    ]
}

/// `n` random bytes from the OS, as lowercase hex (2n characters).
pub fn random_hex(n: usize) -> Result<String> {
    let mut buf = vec![0u8; n];
    getrandom::fill(&mut buf).map_err(|e| Error::Unavailable(format!("no OS randomness: {e}")))?;
    Ok(hex(&buf))
}

/// A random `u64` from the OS (jitter).
pub fn random_u64() -> Result<u64> {
    let mut buf = [0u8; 8];
    getrandom::fill(&mut buf).map_err(|e| Error::Unavailable(format!("no OS randomness: {e}")))?;
    Ok(u64::from_le_bytes(buf))
}

/// Lowercase hex encoding.
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(char::from(DIGITS[usize::from(b >> 4)]));
        s.push(char::from(DIGITS[usize::from(b & 0x0f)]));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn published_test_vectors() {
        let cases = [
            ("getnonce", "1735689600", "d1335eb26723aa8fee9a403faf7185c0e319cda6a4bcb99255c085765deb47d6"),
            (
                "revoke",
                "5f0c7e1a2b3c4d5e6f708192a3b4c5d6e7f80912",
                "b8ca9143a16c8050cede4465c40ea1886c0819dec000816276b6214f1f5d4d92",
            ),
        ];
        for (action, third, want) in cases {
            assert_eq!(signature("test_client_secret_0001", action, "test_client_id_0001", third), want);
        }
    }

    #[test]
    fn rfc4231_case_2() {
        assert_eq!(
            hmac_hex("Jefe", "what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }

    #[test]
    fn forms_carry_the_signature_of_their_own_fields() {
        let f = getnonce_form("test_client_id_0001", "test_client_secret_0001", 1735689600);
        assert_eq!(f[0], ("action", "getnonce".to_string()));
        assert_eq!(f[3].1, "d1335eb26723aa8fee9a403faf7185c0e319cda6a4bcb99255c085765deb47d6");
        let s = signed_form("c", "s", "revoke", "n");
        assert_eq!(s[3].1, signature("s", "revoke", "c", "n"));
    }

    #[test]
    fn random_hex_has_the_right_length_and_differs() {
        let a = random_hex(16).unwrap();
        let b = random_hex(16).unwrap();
        assert_eq!(a.len(), 32);
        assert!(a.chars().all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()));
        assert_ne!(a, b);
    }
}
