//! The token file: read, merge, lock, refresh-once, atomic write.
//!
//! Protocol (`fresh_access_token`): read → valid for 5 more minutes → use it; else take the OS
//! lock on `<token file>.lock`, re-read (another process may have refreshed meanwhile), refresh
//! only if still stale, persist atomically *before* the new token is used, release.
//! Withings rotates refresh tokens, so two processes refreshing with the same old refresh token
//! would make one of them lose the grant; the lock and the re-read prevent that.

use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::store::fsutil;
use crate::{Error, Result};

/// Refresh this many seconds before the access token expires.
pub const REFRESH_MARGIN_SECS: i64 = 300;

/// What is stored in `tokens.json`.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tokens {
    pub access_token: String,
    #[serde(default)]
    pub refresh_token: String,
    /// Unix seconds.
    #[serde(default)]
    pub expires_at: i64,
    /// Granted scopes, comma-separated as Withings returns them.
    #[serde(default)]
    pub scope: String,
    /// The Withings user id (needed for `revoke`), as a string.
    #[serde(default)]
    pub userid: Option<String>,
    #[serde(default = "bearer")]
    pub token_type: String,
    /// Unix seconds when this pair was obtained.
    #[serde(default)]
    pub created_at: i64,
}

fn bearer() -> String {
    "Bearer".to_string()
}

impl fmt::Debug for Tokens {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tokens")
            .field("access_token", &"[redacted]")
            .field("refresh_token", &"[redacted]")
            .field("expires_at", &self.expires_at)
            .field("scope", &self.scope)
            .field("userid", &self.userid)
            .field("token_type", &self.token_type)
            .field("created_at", &self.created_at)
            .finish()
    }
}

impl Tokens {
    /// True when the access token is good for at least `REFRESH_MARGIN_SECS` more.
    pub fn fresh_at(&self, now: i64) -> bool {
        // Saturating: a corrupt file's expiry (e.g. i64::MIN) must read as stale, not overflow.
        self.expires_at.saturating_sub(now) >= REFRESH_MARGIN_SECS
    }
}

/// A token-endpoint answer; every field may be missing. `Debug` redacts the secrets.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Grant {
    pub access_token: Option<String>,
    pub refresh_token: Option<String>,
    pub expires_in: Option<i64>,
    pub scope: Option<String>,
    pub userid: Option<String>,
    pub token_type: Option<String>,
}

impl fmt::Debug for Grant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Grant")
            .field("access_token", &self.access_token.as_ref().map(|_| "[redacted]"))
            .field("refresh_token", &self.refresh_token.as_ref().map(|_| "[redacted]"))
            .field("expires_in", &self.expires_in)
            .field("scope", &self.scope)
            .field("userid", &self.userid)
            .finish()
    }
}

/// Merges a grant over the previous tokens field by field: a field the answer omitted keeps its
/// old value (a refresh answer without `refresh_token` must not erase the grant).
pub fn merge(old: Option<&Tokens>, grant: &Grant, now: i64) -> Result<Tokens> {
    let Some(access_token) = grant.access_token.clone().filter(|s| !s.is_empty()) else {
        return Err(Error::json("withings token answer", "no access_token"));
    };
    let keep = |new: &Option<String>, old: Option<&String>| -> String {
        new.clone().filter(|s| !s.is_empty()).or_else(|| old.cloned()).unwrap_or_default()
    };
    let refresh_token = keep(&grant.refresh_token, old.map(|t| &t.refresh_token));
    if refresh_token.is_empty() {
        return Err(Error::json("withings token answer", "no refresh_token"));
    }
    Ok(remembered(Tokens {
        access_token,
        refresh_token,
        // Saturating: `expires_in` comes from the network and may be any i64.
        expires_at: now.saturating_add(grant.expires_in.unwrap_or(10800)),
        scope: keep(&grant.scope, old.map(|t| &t.scope)),
        userid: grant.userid.clone().or_else(|| old.and_then(|t| t.userid.clone())),
        token_type: keep(&grant.token_type, old.map(|t| &t.token_type)),
        created_at: now,
    }))
}

/// Reads the token file. `Ok(None)` when it does not exist. A file readable by others, or one
/// that is not valid JSON, is an error with advice; it is never rewritten here.
pub fn load(path: &Path) -> Result<Option<Tokens>> {
    let text = match fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io(format!("reading token file {}", path.display()), e)),
    };
    fsutil::check_private(path, "token file")?;
    match serde_json::from_str::<serde_json::Value>(&text).ok().and_then(|v| lenient(&v)) {
        Some(t) => Ok(Some(t)),
        None => Err(Error::boxed(Error::NeedsAuth(format!(
            "token file {} is not valid token JSON; it was left untouched (auth replaces it only after a successful sign-in)",
            path.display()
        )))),
    }
}

/// Reads a token file written by this program, by the Node project or by hand: `userid` may be a
/// number, `scope` a list, `expires_at` milliseconds; a missing `expires_at` counts as expired
/// (so the next call refreshes). `None` when there is no access token at all.
fn lenient(v: &serde_json::Value) -> Option<Tokens> {
    let text = |k: &str| -> Option<String> {
        match v.get(k)? {
            serde_json::Value::String(s) => Some(s.clone()),
            serde_json::Value::Number(n) => Some(n.to_string()),
            serde_json::Value::Array(items) => {
                Some(items.iter().filter_map(serde_json::Value::as_str).collect::<Vec<_>>().join(","))
            }
            _ => None,
        }
    };
    let num = |k: &str| v.get(k).and_then(|x| x.as_i64().or_else(|| x.as_str()?.parse().ok()));
    let expires_at = match num("expires_at").unwrap_or(0) {
        // JavaScript writes milliseconds.
        ms if ms > 100_000_000_000 => ms / 1000,
        s => s,
    };
    Some(remembered(Tokens {
        access_token: text("access_token").filter(|s| !s.is_empty())?,
        refresh_token: text("refresh_token").unwrap_or_default(),
        expires_at,
        scope: text("scope").unwrap_or_default(),
        userid: text("userid"),
        token_type: text("token_type").unwrap_or_else(bearer),
        created_at: num("created_at").unwrap_or(0),
    }))
}

/// Tokens this process now knows: `redact` removes them from any foreign text from here on.
fn remembered(t: Tokens) -> Tokens {
    crate::redact::remember(&t.access_token);
    crate::redact::remember(&t.refresh_token);
    t
}

/// Writes the token file atomically with mode 0600, creating its directory 0700.
pub fn save(path: &Path, tokens: &Tokens) -> Result<()> {
    fsutil::ensure_private_dir(&fsutil::parent(path))?;
    // Through a `Value`: the program already writes `Value`s pretty, and a pretty writer for the
    // `Tokens` struct itself would be a second copy of serde_json's serializer just for this file.
    let value = serde_json::to_value(tokens).map_err(|e| Error::json("token file", e))?;
    let text = crate::value::pretty(&value);
    fsutil::write_atomic(path, text.as_bytes(), 0o600)
}

/// Deletes the token file; `Ok(false)` when there was none.
pub fn delete(path: &Path) -> Result<bool> {
    let _lock = lock(path)?;
    fsutil::remove_if_exists(path)
}

/// Returns an access token valid for at least five more minutes, refreshing under the lock when
/// needed. `refresh` gets the current tokens and returns the token endpoint's answer.
pub fn fresh_access_token(
    path: &Path,
    now: i64,
    refresh: &mut dyn FnMut(&Tokens) -> Result<Grant>,
) -> Result<String> {
    let current = require(path)?;
    if current.fresh_at(now) {
        return Ok(current.access_token);
    }
    let _lock = lock(path)?;
    let current = require(path)?;
    if current.fresh_at(now) {
        return Ok(current.access_token);
    }
    refresh_locked(path, &current, now, refresh)
}

/// After Withings refused `rejected` (an auth status), refreshes once under the lock, unless
/// another process already replaced that token, in which case its new token is used.
pub fn refresh_after_rejection(
    path: &Path,
    rejected: &str,
    now: i64,
    refresh: &mut dyn FnMut(&Tokens) -> Result<Grant>,
) -> Result<String> {
    let _lock = lock(path)?;
    let current = require(path)?;
    if current.access_token != rejected && current.fresh_at(now) {
        return Ok(current.access_token);
    }
    refresh_locked(path, &current, now, refresh)
}

/// Stores the tokens from a first sign-in (authorization-code exchange), under the lock.
pub fn store_new_grant(path: &Path, grant: &Grant, now: i64) -> Result<Tokens> {
    let tokens = merge(None, grant, now)?;
    let _lock = lock(path)?;
    save(path, &tokens)?;
    Ok(tokens)
}

fn refresh_locked(
    path: &Path,
    current: &Tokens,
    now: i64,
    refresh: &mut dyn FnMut(&Tokens) -> Result<Grant>,
) -> Result<String> {
    if current.refresh_token.is_empty() {
        return Err(Error::boxed(Error::NeedsAuth(
            "the stored token has expired and has no refresh token".into(),
        )));
    }
    let grant = refresh(current)?;
    let next = merge(Some(current), &grant, now)?;
    // Persist before use: the old refresh token dies once the new access token is used.
    save(path, &next)?;
    Ok(next.access_token)
}

fn require(path: &Path) -> Result<Tokens> {
    match load(path)? {
        Some(t) => Ok(t),
        None => Err(Error::boxed(Error::NeedsAuth(format!("no Withings token yet ({})", path.display())))),
    }
}

/// The lock file next to the token file: `tokens.json.lock`.
pub fn lock_path(path: &Path) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(".lock");
    PathBuf::from(s)
}

/// Holds the OS lock until dropped (closing the file releases it).
pub struct Lock {
    _file: File,
}

/// Takes the OS lock on `<token file>.lock`, creating its directory 0700 when needed. Everything
/// that rewrites a file beside the token file (tokens, pending sign-ins) holds it.
pub fn lock(path: &Path) -> Result<Lock> {
    fsutil::ensure_private_dir(&fsutil::parent(path))?;
    let lp = lock_path(path);
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .open(&lp)
        .map_err(|e| Error::io(format!("opening lock {}", lp.display()), e))?;
    file.lock().map_err(|e| Error::io(format!("locking {}", lp.display()), e))?;
    Ok(Lock { _file: file })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn token_files_from_other_writers_are_read_leniently() {
        let cases = [
            // (file, access, refresh, expires_at, scope, userid)
            (
                r#"{"access_token":"a","refresh_token":"r","expires_at":1800000000,"userid":12345}"#,
                Some((1_800_000_000, "", Some("12345"))),
            ),
            (
                r#"{"access_token":"a","refresh_token":"r","expires_at":1800000000000,"scope":["user.metrics","user.activity"]}"#,
                Some((1_800_000_000, "user.metrics,user.activity", None)),
            ),
            (r#"{"access_token":"a","refresh_token":"r","expires_in":10800}"#, Some((0, "", None))),
            (r#"{"refresh_token":"r"}"#, None),
            (r#"[1,2]"#, None),
        ];
        for (text, want) in cases {
            let v: serde_json::Value = serde_json::from_str(text).unwrap();
            let got = lenient(&v).map(|t| (t.expires_at, t.scope.clone(), t.userid.clone()));
            let want =
                want.map(|(e, s, u): (i64, &str, Option<&str>)| (e, s.to_string(), u.map(str::to_string)));
            assert_eq!(got, want, "{text}");
        }
    }

    fn tokens(access: &str, refresh: &str, expires_at: i64) -> Tokens {
        Tokens {
            access_token: access.into(),
            refresh_token: refresh.into(),
            expires_at,
            scope: "user.metrics,user.activity".into(),
            userid: Some("42".into()),
            token_type: "Bearer".into(),
            created_at: 0,
        }
    }

    fn tmp(tag: &str) -> PathBuf {
        crate::store::fsutil::test_dir(tag).join("tokens.json")
    }

    #[test]
    fn merge_keeps_fields_the_answer_omitted() {
        let old = tokens("a1", "r1", 0);
        let cases: &[(Grant, &str, &str, Option<&str>)] = &[
            (
                Grant { access_token: Some("a2".into()), ..Grant::default() },
                "r1",
                "user.metrics,user.activity",
                Some("42"),
            ),
            (
                Grant {
                    access_token: Some("a2".into()),
                    refresh_token: Some("r2".into()),
                    scope: Some("user.metrics".into()),
                    userid: Some("7".into()),
                    ..Grant::default()
                },
                "r2",
                "user.metrics",
                Some("7"),
            ),
            (
                Grant {
                    access_token: Some("a2".into()),
                    refresh_token: Some(String::new()),
                    ..Grant::default()
                },
                "r1",
                "user.metrics,user.activity",
                Some("42"),
            ),
        ];
        for (g, refresh, scope, userid) in cases {
            let t = merge(Some(&old), g, 1000).unwrap();
            assert_eq!(t.access_token, "a2");
            assert_eq!(t.refresh_token, *refresh);
            assert_eq!(t.scope, *scope);
            assert_eq!(t.userid.as_deref(), *userid);
            assert_eq!(t.expires_at, 1000 + 10800);
        }
        assert!(merge(None, &Grant { access_token: Some("a".into()), ..Grant::default() }, 0).is_err());
        assert!(merge(Some(&old), &Grant::default(), 0).is_err());
    }

    #[test]
    fn debug_redacts_secrets() {
        let s = format!("{:?}", tokens("SECRETACCESS", "SECRETREFRESH", 0));
        assert!(!s.contains("SECRETACCESS") && !s.contains("SECRETREFRESH"), "{s}");
        let g =
            Grant { access_token: Some("SA".into()), refresh_token: Some("SR".into()), ..Grant::default() };
        let s = format!("{g:?}");
        assert!(!s.contains("SA\"") && !s.contains("SR\""), "{s}");
    }

    #[test]
    fn fresh_token_is_used_without_refresh_and_stale_one_is_refreshed_and_saved_first() {
        let p = tmp("fresh");
        save(&p, &tokens("a1", "r1", 10_000)).unwrap();
        let mut calls = 0;
        let mut refresh = |t: &Tokens| -> Result<Grant> {
            calls += 1;
            assert_eq!(t.refresh_token, "r1");
            Ok(Grant {
                access_token: Some("a2".into()),
                refresh_token: Some("r2".into()),
                ..Grant::default()
            })
        };
        assert_eq!(fresh_access_token(&p, 10_000 - 301, &mut refresh).unwrap(), "a1");
        assert_eq!(fresh_access_token(&p, 10_000 - 299, &mut refresh).unwrap(), "a2");
        assert_eq!(calls, 1);
        let saved = load(&p).unwrap().unwrap();
        assert_eq!((saved.refresh_token.as_str(), saved.userid.as_deref()), ("r2", Some("42")));
        assert_eq!(fsutil::mode_of(&p).unwrap(), Some(0o600));
        assert_eq!(fsutil::mode_of(&p.with_file_name("tokens.json.lock")).unwrap(), Some(0o600));
        fs::remove_dir_all(p.parent().unwrap()).unwrap();
    }

    #[test]
    fn a_rejected_token_already_replaced_by_another_process_is_not_refreshed_again() {
        let p = tmp("rejected");
        save(&p, &tokens("a2", "r2", 20_000)).unwrap();
        let mut refresh = |_: &Tokens| -> Result<Grant> { panic!("must not refresh") };
        assert_eq!(refresh_after_rejection(&p, "a1", 1000, &mut refresh).unwrap(), "a2");
        fs::remove_dir_all(p.parent().unwrap()).unwrap();
    }

    #[test]
    fn bad_files_are_refused_and_left_untouched() {
        let p = tmp("bad");
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        let cases: &[(&str, u32, &str)] = &[
            ("{not json", 0o600, "not valid token JSON"),
            (r#"{"access_token":"a","refresh_token":"r","expires_at":1}"#, 0o644, "chmod 600"),
        ];
        for (text, mode, want) in cases {
            fs::write(&p, text).unwrap();
            fs::set_permissions(&p, fs::Permissions::from_mode(*mode)).unwrap();
            let mut refresh = |_: &Tokens| -> Result<Grant> { panic!("must not refresh") };
            let err = fresh_access_token(&p, 0, &mut refresh).unwrap_err().to_string();
            assert!(err.contains(want), "{err}");
            assert_eq!(fs::read_to_string(&p).unwrap(), *text);
        }
        fs::remove_dir_all(p.parent().unwrap()).unwrap();
    }

    #[test]
    fn missing_file_needs_auth() {
        let p = tmp("missing");
        let mut refresh = |_: &Tokens| -> Result<Grant> { panic!("must not refresh") };
        let err = fresh_access_token(&p, 0, &mut refresh).unwrap_err();
        assert!(matches!(*err, Error::NeedsAuth(_)), "{err}");
    }
}
