//! Pending sign-ins: the `state` of every authorization URL handed out (by `auth` or by
//! `withings_get_auth_url`) for 15 minutes, so that the redirect can be pasted into another
//! process (`auth --code`, `withings_exchange_code`) and checked there.
//!
//! The file is `oauth_state.json` next to the default account's token file (0600, written
//! atomically under that file's lock), one for every account:
//! `{"pending": [{"state": "…", "created_at": 1790000000, "account": "bob"}, …]}`. Each sign-in
//! remembers the account it was started for (none written: `default`), so that the pasted
//! redirect signs in that person whatever process receives it. Several sign-ins may be pending
//! at once; expired ones are dropped whenever the file is written. A file that cannot be read
//! counts as holding nothing pending: the worst outcome is a refused paste, never an accepted one.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::store::accounts::Account;
use crate::store::{fsutil, tokens};
use crate::value::json;
use crate::{Error, Result};

/// How long a sign-in stays pending.
pub const PENDING_SECS: i64 = 900;
/// The most sign-ins kept pending (an agent asking for URLs in a loop must not grow the file).
const MAX_PENDING: usize = 16;

/// The pending-sign-in file for the default account's token file: `oauth_state.json` beside it.
pub fn path(token_path: &Path) -> PathBuf {
    fsutil::parent(token_path).join("oauth_state.json")
}

/// Adds `state` as pending from `now`, for a sign-in of `account`.
pub fn add(token_path: &Path, state: &str, account: &Account, now: i64) -> Result<()> {
    let _lock = tokens::lock(token_path)?;
    let mut list = live(read(token_path), now);
    list.push(Pending { state: state.to_string(), created_at: now, account: account.clone() });
    let excess = list.len().saturating_sub(MAX_PENDING);
    list.drain(..excess);
    write(token_path, list)
}

/// The states still pending at `now`.
pub fn states(token_path: &Path, now: i64) -> Vec<String> {
    live(read(token_path), now).into_iter().map(|p| p.state).collect()
}

/// The account a pending `state` was started for.
pub fn account_of(token_path: &Path, state: &str, now: i64) -> Option<Account> {
    live(read(token_path), now).into_iter().find(|p| p.state == state).map(|p| p.account)
}

/// The account a pasted sign-in completes: the one its `state` was started for; without a
/// pending state, the account `named` by the caller, else `default`. Naming an account other
/// than the one the sign-in was started for is refused rather than guessed.
pub fn account_for(
    token_path: &Path,
    state: Option<&str>,
    named: Option<&Account>,
    now: i64,
) -> Result<Account> {
    match (state.and_then(|s| account_of(token_path, s, now)), named) {
        (Some(started), Some(n)) if &started != n => Err(Error::arg(
            "account",
            format!(
                "this sign-in was started for account `{started}`, not `{n}`; leave the account out to complete it"
            ),
        )),
        (Some(started), _) => Ok(started),
        (None, named) => Ok(named.cloned().unwrap_or_default()),
    }
}

/// Removes `state` after its sign-in completed; `Ok(false)` when it was not pending.
pub fn consume(token_path: &Path, state: &str, now: i64) -> Result<bool> {
    let _lock = tokens::lock(token_path)?;
    let list = live(read(token_path), now);
    let before = list.len();
    let list: Vec<Pending> = list.into_iter().filter(|p| p.state != state).collect();
    let found = list.len() < before;
    write(token_path, list)?;
    Ok(found)
}

/// One pending sign-in.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Pending {
    state: String,
    created_at: i64,
    account: Account,
}

/// The list in the file; entries that are not `{state, created_at, account?}` (a valid name)
/// are skipped. (Read through
/// `Value` rather than a derived decoder: the static binary's size is counted.)
fn read(token_path: &Path) -> Vec<Pending> {
    let text = fs::read_to_string(path(token_path)).unwrap_or_default();
    let v: Value = serde_json::from_str(&text).unwrap_or_default();
    let entries = v.get("pending").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    entries
        .iter()
        .filter_map(|e| {
            let state = e.get("state")?.as_str()?.to_string();
            let account = match e.get("account") {
                None => Account::default(),
                Some(a) => Account::parse(a.as_str()?).ok()?,
            };
            Some(Pending { state, created_at: e.get("created_at")?.as_i64()?, account })
        })
        .collect()
}

/// The entries younger than `PENDING_SECS` (one dated in the future is not trusted).
fn live(list: Vec<Pending>, now: i64) -> Vec<Pending> {
    list.into_iter().filter(|p| (0..PENDING_SECS).contains(&now.saturating_sub(p.created_at))).collect()
}

fn write(token_path: &Path, pending: Vec<Pending>) -> Result<()> {
    let file = path(token_path);
    if pending.is_empty() {
        return fsutil::remove_if_exists(&file).map(|_| ());
    }
    let list: Vec<Value> = pending
        .iter()
        .map(|p| json!({"state": p.state, "created_at": p.created_at, "account": p.account.name()}))
        .collect();
    fsutil::write_atomic(&file, crate::value::text(&json!({ "pending": list })).as_bytes(), 0o600)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tmp(tag: &str) -> PathBuf {
        fsutil::test_dir(&format!("pending-{tag}")).join("tokens.json")
    }

    #[test]
    fn several_states_pend_expire_and_are_consumed_once() {
        let t = tmp("flow");
        assert!(states(&t, 0).is_empty());
        let bob = Account::parse("bob").unwrap();
        add(&t, "s1", &Account::default(), 1000).unwrap();
        add(&t, "s2", &bob, 1100).unwrap();
        assert_eq!(states(&t, 1100), ["s1", "s2"]);
        assert_eq!(account_of(&t, "s2", 1100), Some(bob), "each sign-in remembers its account");
        assert_eq!(account_of(&t, "s1", 1100), Some(Account::default()));
        assert_eq!(account_of(&t, "s3", 1100), None);
        assert_eq!(fsutil::mode_of(&path(&t)).unwrap(), Some(0o600));
        assert_eq!(states(&t, 1000 + PENDING_SECS), ["s2"], "s1 expired");
        assert!(consume(&t, "s2", 1200).unwrap());
        assert!(!consume(&t, "s2", 1200).unwrap(), "only once");
        assert_eq!(states(&t, 1200), ["s1"]);
        assert!(consume(&t, "s1", 1200).unwrap());
        assert!(!path(&t).exists(), "an empty list leaves no file");
        fs::remove_dir_all(t.parent().unwrap()).unwrap();
    }

    #[test]
    fn the_list_is_bounded_and_bad_files_hold_nothing() {
        let t = tmp("bound");
        for i in 0..40 {
            add(&t, &format!("s{i}"), &Account::default(), 1000 + i).unwrap();
        }
        let s = states(&t, 1040);
        assert_eq!(s.len(), MAX_PENDING);
        assert_eq!(s.last().map(String::as_str), Some("s39"), "the newest are kept");
        for text in [
            "{not json",
            r#"{"state":"old-format","created_at":1000}"#,
            "[]",
            r#"{"pending":[{"state":"s","created_at":1000,"account":"../x"}]}"#,
        ] {
            fs::write(path(&t), text).unwrap();
            assert!(states(&t, 1000).is_empty(), "{text}");
        }
        // A file written before accounts existed: its sign-ins are the default account's.
        fs::write(path(&t), r#"{"pending":[{"state":"s","created_at":1000}]}"#).unwrap();
        assert_eq!(account_of(&t, "s", 1000), Some(Account::default()));
        add(&t, "fresh", &Account::default(), 1000).unwrap();
        assert_eq!(states(&t, 1000), ["s", "fresh"]);
        fs::remove_dir_all(t.parent().unwrap()).unwrap();
    }
}
