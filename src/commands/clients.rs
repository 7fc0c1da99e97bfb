//! Client set-up: merges a `withings` MCP server entry into the real config of Claude Desktop,
//! Cursor or Hermes (or prints it for any other client), and checks that wiring for `doctor`.
//! The entry of another account than `default` is `withings-NAME` and passes `--account NAME`,
//! so that a household's entries sit side by side; any entry still reaches every account
//! through the tools' `account` argument.
//!
//! Every write keeps the user's other servers and keys, is skipped when nothing would change, is
//! preceded by a timestamped backup and is an atomic replace (the store's writer). Problems are
//! reported before anything is touched. One file per job: `json` (Claude Desktop, Cursor),
//! `yaml` (Hermes), `file` (reading, backing up and replacing the config file).

mod file;
mod json;
mod yaml;

use std::fmt;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use crate::store::accounts::Account;
use crate::{Error, Result};

/// The MCP clients `setup --client` and `doctor --client` know.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientKind {
    Claude,
    Cursor,
    Hermes,
    Generic,
}

/// The operating system, which decides where Claude Desktop keeps its config.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Os {
    MacOs,
    Linux,
}

/// What `install` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstallReport {
    pub client: ClientKind,
    /// The client's config file (`None` for `generic`).
    pub path: Option<PathBuf>,
    /// Whether the file was written.
    pub changed: bool,
    /// The copy of the previous file, when one existed and was changed.
    pub backup: Option<PathBuf>,
    /// The entry as the client sees it (JSON, or YAML for Hermes), to show the user.
    pub snippet: String,
}

/// The result of checking one client's wiring, for `doctor --client`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WiringCheck {
    pub ok: bool,
    pub path: Option<PathBuf>,
    pub detail: String,
}

/// The valid `--client` names, in the order they are listed to the user.
pub const CLIENT_NAMES: &[&str] = &["claude", "cursor", "hermes", "generic"];

impl ClientKind {
    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            ClientKind::Claude => "claude",
            ClientKind::Cursor => "cursor",
            ClientKind::Hermes => "hermes",
            ClientKind::Generic => "generic",
        }
    }
}

impl fmt::Display for ClientKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for ClientKind {
    type Err = Box<Error>;

    fn from_str(s: &str) -> Result<ClientKind> {
        match s.to_ascii_lowercase().as_str() {
            "claude" => Ok(ClientKind::Claude),
            "cursor" => Ok(ClientKind::Cursor),
            "hermes" => Ok(ClientKind::Hermes),
            "generic" => Ok(ClientKind::Generic),
            _ => Err(Error::boxed(Error::Usage(format!(
                "unknown client `{s}`; expected one of: {}",
                CLIENT_NAMES.join(", ")
            )))),
        }
    }
}

impl Os {
    /// The system this binary was built for (anything but macOS is treated like Linux).
    pub fn current() -> Os {
        match cfg!(target_os = "macos") {
            true => Os::MacOs,
            false => Os::Linux,
        }
    }
}

/// Where the client keeps its MCP config; `None` for `generic`, which has no file.
pub fn config_path(home: &Path, os: Os, kind: ClientKind) -> Option<PathBuf> {
    match (kind, os) {
        (ClientKind::Claude, Os::MacOs) => {
            Some(home.join("Library/Application Support/Claude/claude_desktop_config.json"))
        }
        (ClientKind::Claude, Os::Linux) => Some(home.join(".config/Claude/claude_desktop_config.json")),
        (ClientKind::Cursor, _) => Some(home.join(".cursor/mcp.json")),
        (ClientKind::Hermes, _) => Some(home.join(".hermes/config.yaml")),
        (ClientKind::Generic, _) => None,
    }
}

/// The entry name of `account`'s server: `withings`, or `withings-NAME` for another account.
pub fn entry_name(account: &Account) -> String {
    match account.is_default() {
        true => "withings".to_string(),
        false => format!("withings-{account}"),
    }
}

/// The entry to write: its name, and the arguments and environment it runs `exe` with. `env`
/// must never carry a secret: the client config is not a secret store.
#[derive(Debug, Clone, Copy)]
pub struct Entry<'a> {
    pub name: &'a str,
    pub args: &'a [String],
    pub env: &'a [(String, String)],
}

/// Merge (or print for Generic) `entry`, which runs `exe` (absolute path). `stamp` names the
/// backup (`<file>.bak.<stamp>`), e.g. `20261130T042455Z`.
pub fn install(
    home: &Path,
    os: Os,
    kind: ClientKind,
    exe: &Path,
    entry: &Entry,
    stamp: &str,
) -> Result<InstallReport> {
    let command = command_text(exe)?;
    let Entry { name, args, env } = *entry;
    let server = Server { name, command: &command, args, env };
    let entry = json::entry(&server);
    let snippet = match kind {
        ClientKind::Hermes => yaml::snippet(&server),
        _ => json::snippet(name, &entry),
    };
    let Some(path) = config_path(home, os, kind) else {
        return Ok(InstallReport { client: kind, path: None, changed: false, backup: None, snippet });
    };
    if stamp.is_empty() || !stamp.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')) {
        return Err(Error::arg("stamp", "must be letters, digits, `.`, `_` or `-`"));
    }
    let old = file::read_existing(&path)?;
    let old_text = old.as_ref().map(|o| o.text.as_str());
    let new_text = match kind {
        ClientKind::Hermes => {
            let merged =
                yaml::merge(old_text.unwrap_or_default(), &server).map_err(|m| unchanged(&path, &m))?;
            Some(merged).filter(|m| Some(m.as_str()) != old_text)
        }
        _ => json::merge(&path, old_text, name, entry)?,
    };
    let Some(new_text) = new_text else {
        return Ok(InstallReport { client: kind, path: Some(path), changed: false, backup: None, snippet });
    };
    let backup = file::write_config(&path, old.as_ref(), new_text.as_bytes(), stamp)?;
    Ok(InstallReport { client: kind, path: Some(path), changed: true, backup, snippet })
}

/// For `doctor --client`: the file exists, parses, has the entry `name`, and its command is an
/// existing executable (a command other than `exe` is reported but still counts as wired).
pub fn check(home: &Path, os: Os, kind: ClientKind, exe: &Path, name: &str) -> WiringCheck {
    let Some(path) = config_path(home, os, kind) else {
        return WiringCheck {
            ok: true,
            path: None,
            detail: "generic client: no config file to check; `withings-mcp setup --client generic` prints \
                     the entry to paste"
                .into(),
        };
    };
    let account = name.strip_prefix("withings-").map(|a| format!(" --account {a}")).unwrap_or_default();
    let rerun = format!("run `withings-mcp setup --client {kind}{account}`");
    let fail = |detail: String| WiringCheck { ok: false, path: Some(path.clone()), detail };
    let text = match fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return fail(format!("{} not found; {rerun}", path.display()));
        }
        Err(e) => return fail(format!("cannot read {}: {e}", path.display())),
    };
    let command = match kind {
        ClientKind::Hermes => yaml::withings_command(&text, name),
        _ => json::withings_command(&text, name),
    };
    let command = match command {
        Ok(Some(c)) => c,
        Ok(None) => return fail(format!("{} has no `{name}` entry; {rerun}", path.display())),
        Err(m) => return fail(format!("{}: {m}", path.display())),
    };
    let link_note = match fs::symlink_metadata(&path) {
        Ok(m) if m.file_type().is_symlink() => {
            " (the config file is a symlink, which `setup` will not rewrite)"
        }
        _ => "",
    };
    let target = Path::new(&command);
    if !target.is_absolute() {
        return fail(format!(
            "the `{name}` entry runs `{command}`, not an absolute path (clients such as Claude Desktop do not \
             search PATH); {rerun}"
        ));
    }
    match fs::metadata(target) {
        Ok(m) if m.is_file() && is_executable(&m) => {}
        Ok(_) => {
            return fail(format!(
                "the `{name}` entry runs {command}, which is not an executable file; {rerun}"
            ));
        }
        Err(_) => return fail(format!("the `{name}` entry runs {command}, which does not exist; {rerun}")),
    }
    let same = target == exe
        || matches!((fs::canonicalize(target), fs::canonicalize(exe)), (Ok(a), Ok(b)) if a == b);
    let detail = match same {
        true => format!("the `{name}` entry runs this binary ({command}){link_note}"),
        false => format!(
            "warning: the `{name}` entry runs {command}, not this binary ({}); {rerun} to point it here{link_note}",
            exe.display()
        ),
    };
    WiringCheck { ok: true, path: Some(path), detail }
}

/// The server entry, shared by the JSON and YAML renderers.
#[derive(Debug, Clone, Copy)]
struct Server<'a> {
    /// The entry's name under the client's servers (`withings`, `withings-NAME`).
    name: &'a str,
    command: &'a str,
    args: &'a [String],
    env: &'a [(String, String)],
}

/// The executable's path as text; the clients need an absolute path because they do not search
/// PATH the way a shell does.
fn command_text(exe: &Path) -> Result<String> {
    if !exe.is_absolute() {
        return Err(Error::boxed(Error::Config(format!(
            "the server command must be an absolute path, not {}",
            exe.display()
        ))));
    }
    match exe.to_str() {
        Some(s) => Ok(s.to_string()),
        None => {
            Err(Error::boxed(Error::Config(format!("the server path {} is not valid UTF-8", exe.display()))))
        }
    }
}

fn unchanged(path: &Path, what: &str) -> Error {
    Error::Config(format!("{}: {what}; the file was left unchanged", path.display()))
}

#[cfg(unix)]
fn is_executable(meta: &fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o111 != 0
}

#[cfg(not(unix))]
fn is_executable(_meta: &fs::Metadata) -> bool {
    true
}

#[cfg(test)]
mod tests;
