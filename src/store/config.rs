//! Configuration: the environment first, then `~/.withings-mcp/config.json` (same key names).
//!
//! `Env` is a snapshot of the variables and `HOME`, taken once in `main`, so that everything below
//! reads configuration from a value that tests can build by hand.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::domain::named::Named;
use crate::domain::privacy::PrivacyMode;
use crate::domain::units::Units;
use crate::store::accounts::Account;
use crate::strmap::StrMap;
use crate::{Error, Result};

/// Default OAuth callback registered with the user's Withings app.
pub const DEFAULT_REDIRECT_URI: &str = "http://127.0.0.1:3000/callback";
/// Default scopes: account information and devices (`user.info`: devices, goals), measures and
/// heart (`user.metrics`), activity, intraday, workouts and sleep (`user.activity`).
pub const DEFAULT_SCOPES: &str = "user.info,user.metrics,user.activity";
/// Default Withings API base.
pub const DEFAULT_API_URL: &str = "https://wbsapi.withings.net";
/// Default Withings account (authorization) base.
pub const DEFAULT_ACCOUNT_URL: &str = "https://account.withings.com";

/// The account to serve (environment only: the config file is shared by every account).
pub const ACCOUNT_VAR: &str = "WITHINGS_ACCOUNT";

/// Every configuration key this program reads (CONTRACT §2). Reading goes through this enum, so a
/// misspelled key does not compile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Key {
    ClientId,
    ClientSecret,
    RedirectUri,
    Scopes,
    PrivacyMode,
    TokenPath,
    Cache,
    CachePath,
    NoCache,
    ApiUrl,
    AccountUrl,
    Tz,
    Demo,
    Units,
    Transport,
    Host,
    Port,
    AuthTimeout,
    NoRetry,
    CallDeadline,
}

impl Key {
    /// Every key, in documentation order.
    pub const ALL: [Key; 20] = [
        Key::ClientId,
        Key::ClientSecret,
        Key::RedirectUri,
        Key::Scopes,
        Key::PrivacyMode,
        Key::TokenPath,
        Key::Cache,
        Key::CachePath,
        Key::NoCache,
        Key::ApiUrl,
        Key::AccountUrl,
        Key::Tz,
        Key::Demo,
        Key::Units,
        Key::Transport,
        Key::Host,
        Key::Port,
        Key::AuthTimeout,
        Key::NoRetry,
        Key::CallDeadline,
    ];

    /// The variable's name, also its key in `config.json`.
    pub fn name(self) -> &'static str {
        match self {
            Key::ClientId => "WITHINGS_CLIENT_ID",
            Key::ClientSecret => "WITHINGS_CLIENT_SECRET",
            Key::RedirectUri => "WITHINGS_REDIRECT_URI",
            Key::Scopes => "WITHINGS_SCOPES",
            Key::PrivacyMode => "WITHINGS_PRIVACY_MODE",
            Key::TokenPath => "WITHINGS_TOKEN_PATH",
            Key::Cache => "WITHINGS_CACHE",
            Key::CachePath => "WITHINGS_CACHE_PATH",
            Key::NoCache => "WITHINGS_NO_CACHE",
            Key::ApiUrl => "WITHINGS_API_URL",
            Key::AccountUrl => "WITHINGS_ACCOUNT_URL",
            Key::Tz => "WITHINGS_TZ",
            Key::Demo => "WITHINGS_DEMO",
            Key::Units => "WITHINGS_UNITS",
            Key::Transport => "WITHINGS_MCP_TRANSPORT",
            Key::Host => "WITHINGS_MCP_HOST",
            Key::Port => "WITHINGS_MCP_PORT",
            Key::AuthTimeout => "WITHINGS_AUTH_TIMEOUT",
            Key::NoRetry => "WITHINGS_NO_RETRY",
            Key::CallDeadline => "WITHINGS_CALL_DEADLINE",
        }
    }

    /// The value used when neither the environment nor the file sets the key.
    fn default(self) -> Option<&'static str> {
        match self {
            Key::RedirectUri => Some(DEFAULT_REDIRECT_URI),
            Key::Scopes => Some(DEFAULT_SCOPES),
            Key::PrivacyMode => Some(PrivacyMode::DEFAULT.name()),
            Key::ApiUrl => Some(DEFAULT_API_URL),
            Key::AccountUrl => Some(DEFAULT_ACCOUNT_URL),
            Key::Units => Some(Units::DEFAULT.name()),
            Key::Transport => Some(Transport::Stdio.name()),
            Key::Host => Some("127.0.0.1"),
            Key::Port => Some("3000"),
            Key::AuthTimeout => Some("300"),
            _ => None,
        }
    }
}

/// How the server is reached (`WITHINGS_MCP_TRANSPORT`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    Stdio,
    Http,
}

impl Named for Transport {
    const ALL: &'static [Transport] = &[Transport::Stdio, Transport::Http];
    const WHAT: &'static str = "transport";

    fn name(self) -> &'static str {
        match self {
            Transport::Stdio => "stdio",
            Transport::Http => "http",
        }
    }
}

/// A snapshot of the process environment (or a hand-built one in tests).
#[derive(Debug, Clone, Default)]
pub struct Env {
    vars: StrMap,
}

impl Env {
    /// Reads the real process environment. Variables that are not valid UTF-8 are skipped.
    pub fn from_process() -> Env {
        // Inserted one by one, each in its sorted place (`StrMap`); a `BTreeMap` collected from
        // the pairs compiled a stable sort of its own (about 5 KB of the static binary).
        let mut vars = StrMap::new();
        for (k, v) in std::env::vars_os() {
            if let (Ok(k), Ok(v)) = (k.into_string(), v.into_string()) {
                vars.insert(k, v);
            }
        }
        Env { vars }
    }

    /// Builds an environment from pairs, for tests.
    pub fn from_pairs(pairs: &[(&str, &str)]) -> Env {
        Env { vars: pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect() }
    }

    /// A variable's value; an empty value counts as unset.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.vars.get(key).map(String::as_str).filter(|v| !v.is_empty())
    }

    /// Sets a variable in this snapshot (used for global flags such as `--demo`).
    pub fn set(&mut self, key: &str, value: &str) {
        self.vars.insert(key.to_string(), value.to_string());
    }

    /// The user's home directory, from `HOME`.
    pub fn home(&self) -> Result<PathBuf> {
        match self.get("HOME") {
            Some(h) => Ok(PathBuf::from(h)),
            None => Err(Error::boxed(Error::Config("HOME is not set; cannot locate ~/.withings-mcp".into()))),
        }
    }

    /// `~/.withings-mcp`.
    pub fn state_dir(&self) -> Result<PathBuf> {
        Ok(self.home()?.join(".withings-mcp"))
    }

    /// The account this process serves by default: `WITHINGS_ACCOUNT` (also set by `--account`),
    /// else `default`. A bad name is a usage error, found before anything touches the disk.
    pub fn account(&self) -> Result<Account> {
        match self.get(ACCOUNT_VAR) {
            None => Ok(Account::default()),
            Some(name) => {
                Account::parse(name).map_err(|e| Error::boxed(Error::Usage(format!("{ACCOUNT_VAR}: {e}"))))
            }
        }
    }

    /// The account named explicitly (`--account`, `WITHINGS_ACCOUNT` or a tool's `account`
    /// argument), if any.
    pub fn named_account(&self) -> Result<Option<Account>> {
        self.get(ACCOUNT_VAR).map(|_| self.account()).transpose()
    }

    /// This snapshot with `account` as the account served (a tool's `account` argument).
    pub fn with_account(&self, account: &Account) -> Env {
        let mut env = self.clone();
        env.set(ACCOUNT_VAR, account.name());
        env
    }

    /// True when demo mode is on (`WITHINGS_DEMO=1` or `--demo`).
    pub fn demo(&self) -> bool {
        matches!(self.get("WITHINGS_DEMO"), Some("1" | "true" | "yes"))
    }
}

/// Where a configuration value came from, for `doctor` and `connection_status`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Env,
    File,
    Default,
}

impl Source {
    /// A short lowercase name.
    pub fn name(self) -> &'static str {
        match self {
            Source::Env => "environment",
            Source::File => "config file",
            Source::Default => "default",
        }
    }
}

/// Resolved configuration: each key's value and where it came from.
#[derive(Debug, Clone)]
pub struct Config {
    /// Each key that has a value, in `Key::ALL`'s order (a map type of its own would cost its
    /// own copy of the map code; a dozen keys are found as fast by a walk).
    values: Vec<(Key, String, Source)>,
    /// Path of the config file (whether or not it exists).
    pub file: PathBuf,
    /// True when the config file exists and was read.
    pub file_found: bool,
}

impl Config {
    /// Reads the environment, then the config file. A missing file is fine; a file that is not a
    /// JSON object is an error that names the file (it is never overwritten silently).
    pub fn load(env: &Env) -> Result<Config> {
        let file = env.state_dir()?.join("config.json");
        let (file_values, file_found) = read_file(&file)?;
        Ok(Config { values: resolve(env, &file_values), file, file_found })
    }

    /// Builds a configuration from the environment alone (no file), for tests and demo mode.
    pub fn from_env_only(env: &Env) -> Config {
        Config { values: resolve(env, &StrMap::new()), file: PathBuf::from("config.json"), file_found: false }
    }

    /// A key's value, if set anywhere (or defaulted).
    pub fn get(&self, key: Key) -> Option<&str> {
        self.find(key).map(|(_, v, _)| v.as_str())
    }

    /// Where a key's value came from, or `None` when unset.
    pub fn source(&self, key: Key) -> Option<Source> {
        self.find(key).map(|(_, _, s)| *s)
    }

    fn find(&self, key: Key) -> Option<&(Key, String, Source)> {
        self.values.iter().find(|(k, _, _)| *k == key)
    }

    /// A required key, or a configuration error that says how to set it.
    pub fn require(&self, key: Key) -> Result<&str> {
        match self.get(key) {
            Some(v) => Ok(v),
            None => Err(Error::boxed(Error::Config(format!(
                "{} is not set; run `withings-mcp setup` or set the environment variable",
                key.name()
            )))),
        }
    }

    /// A key that names one of a few values, parsed; a bad value is an error naming the key.
    pub fn named<T: Named>(&self, key: Key) -> Result<Option<T>> {
        match self.get(key) {
            None => Ok(None),
            Some(v) => {
                T::parse(v).map(Some).map_err(|e| Error::boxed(Error::Config(format!("{}: {e}", key.name()))))
            }
        }
    }

    /// `WITHINGS_PRIVACY_MODE`, else structured.
    pub fn privacy_mode(&self) -> Result<PrivacyMode> {
        Ok(self.named(Key::PrivacyMode)?.unwrap_or(PrivacyMode::DEFAULT))
    }

    /// `WITHINGS_UNITS`, else metric.
    pub fn units(&self) -> Result<Units> {
        Ok(self.named(Key::Units)?.unwrap_or(Units::DEFAULT))
    }

    /// `WITHINGS_MCP_TRANSPORT`, else stdio.
    pub fn transport(&self) -> Result<Transport> {
        Ok(self.named(Key::Transport)?.unwrap_or(Transport::Stdio))
    }

    /// `WITHINGS_REDIRECT_URI`, else the default loopback callback.
    pub fn redirect_uri(&self) -> &str {
        self.get(Key::RedirectUri).unwrap_or(DEFAULT_REDIRECT_URI)
    }

    /// `WITHINGS_SCOPES`, else the default scopes.
    pub fn scopes(&self) -> &str {
        self.get(Key::Scopes).unwrap_or(DEFAULT_SCOPES)
    }

    /// The token file path: `WITHINGS_TOKEN_PATH` or `~/.withings-mcp/tokens.json`.
    pub fn token_path(&self, env: &Env) -> Result<PathBuf> {
        match self.get(Key::TokenPath) {
            Some(p) => Ok(expand_home(p, env)),
            None => Ok(env.state_dir()?.join("tokens.json")),
        }
    }

    /// API base URL without a trailing slash.
    pub fn api_url(&self) -> &str {
        self.get(Key::ApiUrl).unwrap_or(DEFAULT_API_URL).trim_end_matches('/')
    }

    /// Account base URL without a trailing slash.
    pub fn account_url(&self) -> &str {
        self.get(Key::AccountUrl).unwrap_or(DEFAULT_ACCOUNT_URL).trim_end_matches('/')
    }

    /// True unless `WITHINGS_NO_RETRY=1`.
    pub fn retries_enabled(&self) -> bool {
        !matches!(self.get(Key::NoRetry), Some("1" | "true" | "yes"))
    }
}

/// Each key from the environment, else the file, else its default.
fn resolve(env: &Env, file_values: &StrMap) -> Vec<(Key, String, Source)> {
    let mut values = Vec::new();
    for key in Key::ALL {
        let found = match (env.get(key.name()), file_values.get(key.name()), key.default()) {
            (Some(v), _, _) => Some((v.to_string(), Source::Env)),
            (None, Some(v), _) => Some((v.clone(), Source::File)),
            (None, None, Some(d)) => Some((d.to_string(), Source::Default)),
            (None, None, None) => None,
        };
        if let Some((value, source)) = found {
            // The client secret is now known to this process: no foreign text may echo it
            // (`redact`).
            if key == Key::ClientSecret {
                crate::redact::remember(&value);
            }
            values.push((key, value, source));
        }
    }
    values
}

/// `~/x` → `$HOME/x`; anything else unchanged.
fn expand_home(p: &str, env: &Env) -> PathBuf {
    match (p.strip_prefix("~/"), env.home()) {
        (Some(rest), Ok(home)) => home.join(rest),
        _ => PathBuf::from(p),
    }
}

fn read_file(path: &Path) -> Result<(StrMap, bool)> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((StrMap::new(), false)),
        Err(e) => return Err(Error::io(path.display().to_string(), e)),
    };
    let value: Value = serde_json::from_str(&text).map_err(|e| Error::json(path.display().to_string(), e))?;
    let Value::Object(map) = value else {
        return Err(Error::json(path.display().to_string(), "expected a JSON object"));
    };
    let mut out = StrMap::new();
    for (k, v) in map {
        let s = match v {
            Value::String(s) => s,
            Value::Number(n) => n.to_string(),
            Value::Bool(b) => b.to_string(),
            Value::Array(items) => items.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(" "),
            _ => continue,
        };
        if !s.is_empty() {
            out.insert(k, s);
        }
    }
    // The file holds the client secret: like the token file, it is refused while other users may
    // read it, rather than used silently.
    if out.contains_key(Key::ClientSecret.name()) {
        crate::store::fsutil::check_private(path, "config file")?;
    }
    Ok((out, true))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_wins_over_file_and_defaults_fill_the_rest() {
        let dir = crate::store::fsutil::test_dir("config");
        std::fs::create_dir_all(dir.join(".withings-mcp")).unwrap();
        std::fs::write(
            dir.join(".withings-mcp/config.json"),
            r#"{"WITHINGS_CLIENT_ID":"file-id","WITHINGS_TZ":"Europe/Paris"}"#,
        )
        .unwrap();
        let home = dir.to_str().unwrap();
        let env = Env::from_pairs(&[("HOME", home), ("WITHINGS_CLIENT_ID", "env-id")]);
        let c = Config::load(&env).unwrap();
        assert_eq!(c.get(Key::ClientId), Some("env-id"));
        assert_eq!(c.source(Key::ClientId), Some(Source::Env));
        assert_eq!(c.get(Key::Tz), Some("Europe/Paris"));
        assert_eq!(c.source(Key::Tz), Some(Source::File));
        assert_eq!(c.get(Key::PrivacyMode), Some("structured"));
        assert_eq!(c.source(Key::ClientSecret), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_config_file_holding_the_secret_must_be_private() {
        use std::os::unix::fs::PermissionsExt;
        let dir = crate::store::fsutil::test_dir("config-mode");
        let file = dir.join(".withings-mcp/config.json");
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        let env = Env::from_pairs(&[("HOME", dir.to_str().unwrap())]);
        let with_secret = r#"{"WITHINGS_CLIENT_SECRET":"s3cret-value-0001"}"#;
        // (content, mode, refused)
        let cases = [
            (with_secret, 0o644, true),
            (with_secret, 0o640, true),
            (with_secret, 0o600, false),
            (r#"{"WITHINGS_TZ":"Europe/Paris"}"#, 0o644, false),
        ];
        for (text, mode, refused) in cases {
            std::fs::write(&file, text).unwrap();
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(mode)).unwrap();
            match Config::load(&env) {
                Ok(_) => assert!(!refused, "{text} {mode:o} was used"),
                Err(e) => {
                    let e = e.to_string();
                    assert!(refused && e.contains("chmod 600") && e.contains("config.json"), "{mode:o}: {e}");
                }
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_config_file_that_is_not_an_object_is_an_error_naming_the_file() {
        let dir = crate::store::fsutil::test_dir("config-bad");
        std::fs::create_dir_all(dir.join(".withings-mcp")).unwrap();
        std::fs::write(dir.join(".withings-mcp/config.json"), "[1,2").unwrap();
        let env = Env::from_pairs(&[("HOME", dir.to_str().unwrap())]);
        let err = Config::load(&env).unwrap_err().to_string();
        assert!(err.contains("config.json"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
