//! Several people on one install (CONTRACT §8.4). An `Account` can only hold a valid name;
//! `Accounts` knows where each account's token file lives and which accounts exist, and stores a
//! first sign-in only when that Withings user is not already connected under another name.
//!
//! Layout: `default` keeps `~/.withings-mcp/tokens.json` (or `WITHINGS_TOKEN_PATH`); account NAME
//! keeps `~/.withings-mcp/accounts/NAME/tokens.json` (directories 0700, files 0600), read, locked,
//! refreshed and written by `store::tokens` exactly as the default one. One client app
//! (`config.json`) serves every account.
//!
//! A name matches `[a-z0-9][a-z0-9_-]{0,31}`, so it is one plain path component that can never
//! climb out of `accounts/` (`..`, `/`, a leading `-` or `.`, NUL are all outside it). Windows
//! device names (`con`, `nul`, `com1`…) are refused as well: a directory so named cannot be made
//! on a Windows or SMB file system that a home directory may be synced to or mounted from.

use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};

use crate::store::config::{Config, Env};
use crate::store::tokens::{self, Grant, Tokens};
use crate::{Error, Result};

/// The account used when none is named.
pub const DEFAULT: &str = "default";
/// The longest name.
const MAX_LEN: usize = 32;
/// Names that are valid but reserved.
const RESERVED: &[&str] = &[
    "con", "prn", "aux", "nul", "com1", "com2", "com3", "com4", "com5", "com6", "com7", "com8", "com9",
    "lpt1", "lpt2", "lpt3", "lpt4", "lpt5", "lpt6", "lpt7", "lpt8", "lpt9",
];

/// A valid account name.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Account(String);

impl Default for Account {
    fn default() -> Account {
        Account(DEFAULT.to_string())
    }
}

impl fmt::Display for Account {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Account {
    /// Checks a name; the message says what a name may hold (it quotes the input escaped, as
    /// `Debug` writes it, and cut short, since it may be anything).
    pub fn parse(name: &str) -> std::result::Result<Account, String> {
        let bytes = name.as_bytes();
        let valid = matches!(bytes.first(), Some(c) if c.is_ascii_lowercase() || c.is_ascii_digit())
            && bytes.len() <= MAX_LEN
            && bytes.iter().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, b'_' | b'-'));
        match (valid, RESERVED.contains(&name)) {
            (true, false) => Ok(Account(name.to_string())),
            (true, true) => Err(format!("account name `{name}` is reserved (a device name on Windows)")),
            (false, _) => {
                let shown: String = name.chars().take(40).collect();
                Err(format!(
                    "{shown:?} is not a valid account name: use 1 to {MAX_LEN} lowercase letters, digits, `_` or `-`, \
                     starting with a letter or a digit"
                ))
            }
        }
    }

    /// The name.
    pub fn name(&self) -> &str {
        &self.0
    }

    /// True for `default`.
    pub fn is_default(&self) -> bool {
        self.0 == DEFAULT
    }

    /// `--account NAME` for commands shown to the user; empty for the default account.
    pub fn flag(&self) -> String {
        match self.is_default() {
            true => String::new(),
            false => format!(" --account {}", self.0),
        }
    }
}

/// Where this install keeps its accounts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Accounts {
    /// `~/.withings-mcp/accounts`.
    dir: PathBuf,
    /// The default account's token file.
    default_tokens: PathBuf,
}

impl Accounts {
    /// The install described by the environment and configuration.
    pub fn new(cfg: &Config, env: &Env) -> Result<Accounts> {
        Ok(Accounts { dir: env.state_dir()?.join("accounts"), default_tokens: cfg.token_path(env)? })
    }

    /// The token file of `account`. An account directory (or `accounts/` itself) that is a
    /// symbolic link is refused: no account's files may live outside `~/.withings-mcp/`.
    pub fn token_path(&self, account: &Account) -> Result<PathBuf> {
        if account.is_default() {
            return Ok(self.default_tokens.clone());
        }
        let dir = self.dir.join(account.name());
        for d in [&self.dir, &dir] {
            if fs::symlink_metadata(d).is_ok_and(|m| m.file_type().is_symlink()) {
                return Err(Error::boxed(Error::Config(format!(
                    "{} is a symbolic link; account files must stay inside ~/.withings-mcp (remove the link)",
                    d.display()
                ))));
            }
        }
        Ok(dir.join("tokens.json"))
    }

    /// Every account: `default` first, then each directory under `accounts/` with a valid name,
    /// in name order (anything else there is ignored).
    pub fn list(&self) -> Vec<Account> {
        let mut names = Vec::new();
        if let Ok(dir) = fs::read_dir(&self.dir) {
            for e in dir.flatten() {
                if e.file_type().is_ok_and(|t| t.is_dir())
                    && let Ok(name) = e.file_name().into_string()
                {
                    names.push(name);
                }
            }
        }
        crate::sort::ascending(&mut names);
        let mut all = vec![Account::default()];
        all.extend(names.iter().filter_map(|n| Account::parse(n).ok()).filter(|a| !a.is_default()));
        all
    }

    /// The account, other than `except`, whose token file belongs to Withings user `userid`.
    pub fn holder(&self, userid: &str, except: &Account) -> Option<Account> {
        self.list().into_iter().filter(|a| a != except).find(|a| {
            let stored = self.token_path(a).ok().and_then(|p| tokens::load(&p).ok().flatten());
            stored.and_then(|t| t.userid).is_some_and(|u| u == userid)
        })
    }

    /// Stores the tokens of a first sign-in of `account` (under its lock), unless the Withings
    /// user is already connected under another name: then nothing is written, and that
    /// account's tokens stay as they were. (Two sign-ins of one user under two names finishing
    /// in the same instant could both pass; one person signing in twice at once is not a case
    /// worth a lock over every account.)
    pub fn store_new_grant(&self, account: &Account, grant: &Grant, now: i64) -> Result<Tokens> {
        let path = self.token_path(account)?;
        let fresh = tokens::merge(None, grant, now)?;
        if let Some(other) = fresh.userid.as_deref().and_then(|u| self.holder(u, account)) {
            return Err(Error::boxed(Error::NeedsAuth(format!(
                "this Withings user is already connected as account `{other}`, so it was not stored as `{account}` \
                 ({other}'s tokens are unchanged); to connect another person, sign out of Withings in the browser \
                 and sign in as that person"
            ))));
        }
        let _lock = tokens::lock(&path)?;
        tokens::save(&path, &fresh)?;
        Ok(fresh)
    }

    /// The directory of a named account (its token file's), for reports.
    pub fn dir_of(&self, account: &Account) -> Result<PathBuf> {
        Ok(crate::store::fsutil::parent(&self.token_path(account)?))
    }

    /// `~/.withings-mcp/accounts`.
    pub fn root(&self) -> &Path {
        &self.dir
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::fsutil;

    #[test]
    fn names_are_one_plain_path_component() {
        let good = ["default", "a", "bob", "0", "ann-marie", "x_1", &"a".repeat(32)];
        for n in good {
            assert_eq!(Account::parse(n).map(|a| a.name().to_string()), Ok(n.to_string()));
        }
        let bad = [
            "",
            "A",
            "Bob",
            "../x",
            "..",
            ".",
            "a/b",
            "a\\b",
            "a\0",
            "-x",
            "_x",
            "a b",
            "a.b",
            "é",
            &"a".repeat(33),
            &"a".repeat(40),
            "con",
            "nul",
            "com1",
            "lpt9",
            "aux",
            "prn",
        ];
        for n in bad {
            let err = Account::parse(n).unwrap_err();
            assert!(!err.contains('\0') && err.len() < 200, "{n:?}: {err}");
        }
        assert!(Account::parse("con").unwrap_err().contains("reserved"));
        assert!(Account::parse("a\0").unwrap_err().contains(r#""a\0""#), "NUL is shown escaped");
        assert!(
            !Account::parse(&"x".repeat(5000)).unwrap_err().contains(&"x".repeat(41)),
            "long input is cut"
        );
        assert!(Account::default().is_default() && Account::default().flag().is_empty());
        assert_eq!(Account::parse("bob").unwrap().flag(), " --account bob");
    }

    fn install(tag: &str) -> (PathBuf, Accounts) {
        let home = fsutil::test_dir(tag);
        let a = Accounts {
            dir: home.join(".withings-mcp/accounts"),
            default_tokens: home.join(".withings-mcp/tokens.json"),
        };
        (home, a)
    }

    fn grant(user: &str, access: &str) -> Grant {
        Grant {
            access_token: Some(access.into()),
            refresh_token: Some(format!("r-{access}")),
            userid: Some(user.into()),
            ..Grant::default()
        }
    }

    #[test]
    fn paths_listing_and_modes() {
        let (home, acc) = install("accounts-paths");
        let bob = Account::parse("bob").unwrap();
        assert_eq!(acc.token_path(&Account::default()).unwrap(), home.join(".withings-mcp/tokens.json"));
        assert_eq!(acc.token_path(&bob).unwrap(), home.join(".withings-mcp/accounts/bob/tokens.json"));
        assert_eq!(acc.list(), [Account::default()], "no accounts/ yet");
        acc.store_new_grant(&bob, &grant("1", "b1"), 100).unwrap();
        for d in ["", "/accounts", "/accounts/bob"] {
            let p = home.join(format!(".withings-mcp{d}"));
            assert_eq!(fsutil::mode_of(&p).unwrap(), Some(0o700), "{}", p.display());
        }
        for f in ["tokens.json", "tokens.json.lock"] {
            assert_eq!(fsutil::mode_of(&acc.dir.join("bob").join(f)).unwrap(), Some(0o600), "{f}");
        }
        // Anything under accounts/ that is not an account directory is ignored.
        for junk in ["Upper", "con", ".hidden", "-x"] {
            fs::create_dir_all(acc.dir.join(junk)).unwrap();
        }
        fs::write(acc.dir.join("ann"), "a file, not a directory").unwrap();
        fs::create_dir_all(acc.dir.join("amy")).unwrap();
        let names: Vec<String> = acc.list().iter().map(|a| a.name().to_string()).collect();
        assert_eq!(names, ["default", "amy", "bob"]);
        fs::remove_dir_all(home).unwrap();
    }

    #[test]
    fn a_symlinked_account_directory_is_refused() {
        let (home, acc) = install("accounts-link");
        let outside = home.join("outside");
        fs::create_dir_all(&outside).unwrap();
        fs::create_dir_all(&acc.dir).unwrap();
        std::os::unix::fs::symlink(&outside, acc.dir.join("eve")).unwrap();
        let eve = Account::parse("eve").unwrap();
        let err = acc.store_new_grant(&eve, &grant("9", "e1"), 100).unwrap_err().to_string();
        assert!(err.contains("symbolic link"), "{err}");
        assert_eq!(fs::read_dir(&outside).unwrap().count(), 0, "nothing written through the link");
        fs::remove_dir_all(home).unwrap();
    }

    #[test]
    fn one_withings_user_is_connected_under_one_name() {
        let (home, acc) = install("accounts-dup");
        let bob = Account::parse("bob").unwrap();
        let amy = Account::parse("amy").unwrap();
        acc.store_new_grant(&Account::default(), &grant("1", "d1"), 100).unwrap();
        acc.store_new_grant(&bob, &grant("2", "b1"), 100).unwrap();
        let before = fs::read(acc.token_path(&Account::default()).unwrap()).unwrap();
        let err = acc.store_new_grant(&amy, &grant("1", "a1"), 200).unwrap_err().to_string();
        assert!(err.contains("already connected as account `default`"), "{err}");
        assert!(!acc.dir.join("amy").exists(), "nothing written for the refused account");
        assert_eq!(fs::read(acc.token_path(&Account::default()).unwrap()).unwrap(), before);
        // The same person again under the same name replaces that account's tokens.
        let t = acc.store_new_grant(&bob, &grant("2", "b2"), 300).unwrap();
        assert_eq!(t.access_token, "b2");
        assert_eq!(acc.holder("2", &Account::default()), Some(bob));
        fs::remove_dir_all(home).unwrap();
    }
}
