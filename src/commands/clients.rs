//! Client set-up: merges a `withings` MCP server entry into the real config of Claude Desktop,
//! Cursor or Hermes (or prints it for any other client), and checks that wiring for `doctor`.
//!
//! Every write keeps the user's other servers and keys, is skipped when nothing would change, is
//! preceded by a timestamped backup and is an atomic replace (temp file in the same directory,
//! fsync, rename). Problems are reported before anything is touched.

mod yaml;

use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::str::FromStr;

use serde_json::{Map, Value};

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
    type Err = Error;

    fn from_str(s: &str) -> Result<ClientKind> {
        match s.to_ascii_lowercase().as_str() {
            "claude" => Ok(ClientKind::Claude),
            "cursor" => Ok(ClientKind::Cursor),
            "hermes" => Ok(ClientKind::Hermes),
            "generic" => Ok(ClientKind::Generic),
            _ => Err(Error::Usage(format!(
                "unknown client `{s}`; expected one of: {}",
                CLIENT_NAMES.join(", ")
            ))),
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

/// Merge (or print for Generic) the `withings` entry that runs `exe` (absolute path) with `args`
/// and `env` pairs. `env` must never carry a secret: the client config is not a secret store.
/// `stamp` names the backup (`<file>.bak.<stamp>`), e.g. `20261130T042455Z`.
pub fn install(
    home: &Path,
    os: Os,
    kind: ClientKind,
    exe: &Path,
    args: &[String],
    env: &[(String, String)],
    stamp: &str,
) -> Result<InstallReport> {
    let command = command_text(exe)?;
    let server = Server { command: &command, args, env };
    let entry = json_entry(&server);
    let snippet = match kind {
        ClientKind::Hermes => yaml::snippet(&server),
        _ => json_snippet(&entry),
    };
    let Some(path) = config_path(home, os, kind) else {
        return Ok(InstallReport { client: kind, path: None, changed: false, backup: None, snippet });
    };
    if stamp.is_empty() || !stamp.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')) {
        return Err(Error::arg("stamp", "must be letters, digits, `.`, `_` or `-`"));
    }
    let old = read_existing(&path)?;
    let old_text = old.as_ref().map(|o| o.text.as_str());
    let new_text = match kind {
        ClientKind::Hermes => {
            let merged =
                yaml::merge(old_text.unwrap_or_default(), &server).map_err(|m| unchanged(&path, &m))?;
            Some(merged).filter(|m| Some(m.as_str()) != old_text)
        }
        _ => merge_json(&path, old_text, entry)?,
    };
    let Some(new_text) = new_text else {
        return Ok(InstallReport { client: kind, path: Some(path), changed: false, backup: None, snippet });
    };
    let backup = write_config(&path, old.as_ref(), new_text.as_bytes(), stamp)?;
    Ok(InstallReport { client: kind, path: Some(path), changed: true, backup, snippet })
}

/// For `doctor --client`: the file exists, parses, has a `withings` entry, and its command is an
/// existing executable (a command other than `exe` is reported but still counts as wired).
pub fn check(home: &Path, os: Os, kind: ClientKind, exe: &Path) -> WiringCheck {
    let Some(path) = config_path(home, os, kind) else {
        return WiringCheck {
            ok: true,
            path: None,
            detail: "generic client: no config file to check; `withings-mcp setup --client generic` prints \
                     the entry to paste"
                .into(),
        };
    };
    let rerun = format!("run `withings-mcp setup --client {kind}`");
    let fail = |detail: String| WiringCheck { ok: false, path: Some(path.clone()), detail };
    let text = match fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return fail(format!("{} not found; {rerun}", path.display()));
        }
        Err(e) => return fail(format!("cannot read {}: {e}", path.display())),
    };
    let command = match kind {
        ClientKind::Hermes => yaml::withings_command(&text),
        _ => json_command(&text),
    };
    let command = match command {
        Ok(Some(c)) => c,
        Ok(None) => return fail(format!("{} has no `withings` entry; {rerun}", path.display())),
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
            "the `withings` entry runs `{command}`, not an absolute path (clients such as Claude Desktop do not \
             search PATH); {rerun}"
        ));
    }
    match fs::metadata(target) {
        Ok(m) if m.is_file() && is_executable(&m) => {}
        Ok(_) => {
            return fail(format!(
                "the `withings` entry runs {command}, which is not an executable file; {rerun}"
            ));
        }
        Err(_) => return fail(format!("the `withings` entry runs {command}, which does not exist; {rerun}")),
    }
    let same = target == exe
        || matches!((fs::canonicalize(target), fs::canonicalize(exe)), (Ok(a), Ok(b)) if a == b);
    let detail = match same {
        true => format!("the `withings` entry runs this binary ({command}){link_note}"),
        false => format!(
            "warning: the `withings` entry runs {command}, not this binary ({}); {rerun} to point it here{link_note}",
            exe.display()
        ),
    };
    WiringCheck { ok: true, path: Some(path), detail }
}

/// The server entry, shared by the JSON and YAML renderers.
#[derive(Debug, Clone, Copy)]
struct Server<'a> {
    command: &'a str,
    args: &'a [String],
    env: &'a [(String, String)],
}

/// The existing config file: its text and metadata (for the backup's and the new file's mode).
struct Existing {
    text: String,
    meta: fs::Metadata,
}

/// The executable's path as text; the clients need an absolute path because they do not search
/// PATH the way a shell does.
fn command_text(exe: &Path) -> Result<String> {
    if !exe.is_absolute() {
        return Err(Error::Config(format!(
            "the server command must be an absolute path, not {}",
            exe.display()
        )));
    }
    match exe.to_str() {
        Some(s) => Ok(s.to_string()),
        None => Err(Error::Config(format!("the server path {} is not valid UTF-8", exe.display()))),
    }
}

fn json_entry(server: &Server) -> Value {
    let mut entry = Map::new();
    entry.insert("command".into(), Value::String(server.command.to_string()));
    entry.insert("args".into(), Value::Array(server.args.iter().cloned().map(Value::String).collect()));
    if !server.env.is_empty() {
        let env = server.env.iter().map(|(k, v)| (k.clone(), Value::String(v.clone()))).collect();
        entry.insert("env".into(), Value::Object(env));
    }
    Value::Object(entry)
}

fn json_snippet(entry: &Value) -> String {
    let mut servers = Map::new();
    servers.insert("withings".into(), entry.clone());
    let mut root = Map::new();
    root.insert("mcpServers".into(), Value::Object(servers));
    let mut text = serde_json::to_string_pretty(&Value::Object(root)).unwrap_or_default();
    text.push('\n');
    text
}

/// The new JSON text with `mcpServers.withings = entry`, or `None` when the entry is already
/// exactly that. Other servers and keys keep their order (serde_json `preserve_order`).
fn merge_json(path: &Path, old: Option<&str>, entry: Value) -> Result<Option<String>> {
    let mut root = match old.map(str::trim) {
        None | Some("") => Map::new(),
        Some(text) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(map)) => map,
            Ok(_) => return Err(unchanged(path, "the top level is not a JSON object")),
            Err(e) => {
                return Err(Error::json(
                    path.display().to_string(),
                    format!("{e}; the file was left unchanged"),
                ));
            }
        },
    };
    let servers = root.entry("mcpServers").or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(servers) = servers else {
        return Err(unchanged(path, "`mcpServers` is not a JSON object"));
    };
    if servers.get("withings") == Some(&entry) {
        return Ok(None);
    }
    // Insert keeps the position of an existing `withings` key and appends a new one.
    servers.insert("withings".into(), entry);
    let mut text = serde_json::to_string_pretty(&Value::Object(root))
        .map_err(|e| Error::json(path.display().to_string(), e))?;
    text.push('\n');
    Ok(Some(text))
}

/// The `mcpServers.withings.command` of a JSON config (`Ok(None)` when there is no entry).
fn json_command(text: &str) -> std::result::Result<Option<String>, String> {
    let root: Value = serde_json::from_str(text).map_err(|e| format!("invalid JSON: {e}"))?;
    let Value::Object(root) = root else {
        return Err("the top level is not a JSON object".into());
    };
    let servers = match root.get("mcpServers") {
        None => return Ok(None),
        Some(Value::Object(s)) => s,
        Some(_) => return Err("`mcpServers` is not a JSON object".into()),
    };
    match servers.get("withings") {
        None => Ok(None),
        Some(Value::Object(entry)) => match entry.get("command") {
            Some(Value::String(c)) => Ok(Some(c.clone())),
            _ => Err("the `withings` entry has no string `command`".into()),
        },
        Some(_) => Err("the `withings` entry is not a JSON object".into()),
    }
}

fn unchanged(path: &Path, what: &str) -> Error {
    Error::Config(format!("{}: {what}; the file was left unchanged", path.display()))
}

/// Reads the current config, refusing what must not be replaced.
fn read_existing(path: &Path) -> Result<Option<Existing>> {
    let meta = match fs::symlink_metadata(path) {
        Ok(m) => m,
        // A parent that is a file (NotADirectory) also means "no config yet"; creating the
        // directory then fails with a message that names it.
        Err(e) if matches!(e.kind(), io::ErrorKind::NotFound | io::ErrorKind::NotADirectory) => {
            return Ok(None);
        }
        Err(e) => return Err(Error::io(path.display().to_string(), e)),
    };
    // A symlinked config (dotfiles repositories do this) is refused rather than followed: the
    // atomic rename would replace the link itself with a regular file, silently cutting the
    // client's config off from the file the user actually manages.
    if meta.file_type().is_symlink() {
        return Err(unchanged(
            path,
            "is a symbolic link, which setup does not replace; add the entry to its target by hand",
        ));
    }
    if !meta.is_file() {
        return Err(unchanged(path, "is not a regular file"));
    }
    let bytes = fs::read(path).map_err(|e| Error::io(path.display().to_string(), e))?;
    match String::from_utf8(bytes) {
        Ok(text) => Ok(Some(Existing { text, meta })),
        Err(_) => Err(unchanged(path, "is not valid UTF-8")),
    }
}

/// Backs up the old file (if any) and atomically replaces it. Returns the backup path.
fn write_config(path: &Path, old: Option<&Existing>, bytes: &[u8], stamp: &str) -> Result<Option<PathBuf>> {
    let ctx = |p: &Path| p.display().to_string();
    // Permission bits are checked explicitly: root (and some file systems) would happily write a
    // file or directory the user made read-only, and that choice deserves respect.
    if old.is_some_and(|o| o.meta.permissions().readonly()) {
        return Err(unchanged(path, "is read-only; make it writable (chmod u+w) or add the entry by hand"));
    }
    let Some(dir) = path.parent() else {
        return Err(unchanged(path, "has no parent directory"));
    };
    // The same respect for a read-only HOME (or any read-only ancestor) that the directories
    // below it would be created in: root would otherwise create them regardless.
    if let Some(ro) = read_only_ancestor(dir) {
        return Err(Error::io(
            format!("creating {}", ctx(dir)),
            io::Error::new(
                io::ErrorKind::PermissionDenied,
                format!("{} is read-only; nothing was written", ro.display()),
            ),
        ));
    }
    fs::create_dir_all(dir).map_err(|e| Error::io(format!("creating {}", ctx(dir)), e))?;
    let dir_meta = fs::metadata(dir).map_err(|e| Error::io(ctx(dir), e))?;
    if dir_meta.permissions().readonly() {
        return Err(Error::io(
            ctx(dir),
            io::Error::new(io::ErrorKind::PermissionDenied, "directory is read-only; nothing was written"),
        ));
    }
    let backup = match old {
        Some(o) => Some(write_backup(path, o, stamp)?),
        None => None,
    };
    let mode = old.map(|o| o.meta.permissions());
    if let Err(e) = replace_atomically(path, dir, bytes, mode) {
        // The backup is a copy of a file that did not change; leave no clutter behind.
        if let Some(b) = &backup {
            let _ = fs::remove_file(b);
        }
        return Err(e);
    }
    Ok(backup)
}

/// The nearest existing ancestor of a missing `dir` when it is read-only (`None` when `dir`
/// exists or the ancestor is writable).
fn read_only_ancestor(dir: &Path) -> Option<PathBuf> {
    if fs::symlink_metadata(dir).is_ok() {
        return None;
    }
    let existing = dir.ancestors().skip(1).find(|a| fs::symlink_metadata(a).is_ok())?;
    let meta = fs::metadata(existing).ok()?;
    (meta.is_dir() && meta.permissions().readonly()).then(|| existing.to_path_buf())
}

/// Copies the old bytes to `<file>.bak.<stamp>` (or `.bak.<stamp>.N` when taken) with the old
/// file's permissions: it may hold other servers' settings, so it is no more readable than they were.
fn write_backup(path: &Path, old: &Existing, stamp: &str) -> Result<PathBuf> {
    let base = format!("{}.bak.{stamp}", path.display());
    for n in 0..100 {
        let candidate = PathBuf::from(match n {
            0 => base.clone(),
            n => format!("{base}.{n}"),
        });
        let mut file = match create_private(&candidate) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(Error::io(format!("writing backup {}", candidate.display()), e)),
        };
        let written = file
            .write_all(old.text.as_bytes())
            .and_then(|()| file.sync_all())
            .and_then(|()| fs::set_permissions(&candidate, old.meta.permissions()));
        return match written {
            Ok(()) => Ok(candidate),
            Err(e) => {
                let _ = fs::remove_file(&candidate);
                Err(Error::io(format!("writing backup {}", candidate.display()), e))
            }
        };
    }
    Err(unchanged(path, "too many backups with the same timestamp"))
}

/// Writes `bytes` to a temp file next to `path`, fsyncs it and renames it over `path`, so the
/// client never reads a half-written config. The temp file is removed on any failure.
fn replace_atomically(path: &Path, dir: &Path, bytes: &[u8], mode: Option<fs::Permissions>) -> Result<()> {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("config");
    let mut attempt = 0u32;
    let (tmp, mut file) = loop {
        let tmp = dir.join(format!(".{name}.withings-mcp.{}.{attempt}.tmp", std::process::id()));
        match create_private(&tmp) {
            Ok(f) => break (tmp, f),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && attempt < 100 => attempt += 1,
            Err(e) => return Err(Error::io(format!("writing {}", path.display()), e)),
        }
    };
    let written = file
        .write_all(bytes)
        .and_then(|()| match &mode {
            Some(m) => fs::set_permissions(&tmp, m.clone()),
            None => Ok(()),
        })
        .and_then(|()| file.sync_all())
        .and_then(|()| fs::rename(&tmp, path));
    if let Err(e) = written {
        let _ = fs::remove_file(&tmp);
        return Err(Error::io(format!("writing {}", path.display()), e));
    }
    // Persist the rename itself; a failure here leaves a correct file, so it is not an error.
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// Creates a new file (never an existing one) readable by the owner only.
fn create_private(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options.open(path)
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
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;
    use std::sync::atomic::{AtomicU32, Ordering};

    /// A fresh directory under the system temp dir, removed on drop.
    struct TempHome(PathBuf);

    impl TempHome {
        fn new(tag: &str) -> TempHome {
            static COUNTER: AtomicU32 = AtomicU32::new(0);
            let n = COUNTER.fetch_add(1, Ordering::SeqCst);
            let dir =
                std::env::temp_dir().join(format!("withings-mcp-clients-{tag}-{}-{n}", std::process::id()));
            let _ = fs::remove_dir_all(&dir);
            fs::create_dir_all(&dir).unwrap();
            TempHome(dir)
        }
    }

    impl Drop for TempHome {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    const EXE: &str = "/opt/withings/bin/withings-mcp";
    const STAMP: &str = "20261130T042455Z";

    fn tz() -> Vec<(String, String)> {
        vec![("WITHINGS_TZ".to_string(), "Europe/Paris".to_string())]
    }

    fn run(home: &Path, os: Os, kind: ClientKind, args: &[String], stamp: &str) -> Result<InstallReport> {
        install(home, os, kind, Path::new(EXE), args, &tz(), stamp)
    }

    /// Every file below `dir`, relative, sorted: proves what was (not) written.
    fn files(dir: &Path) -> Vec<String> {
        let mut out = Vec::new();
        let mut stack = vec![dir.to_path_buf()];
        while let Some(d) = stack.pop() {
            for e in fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                match fs::symlink_metadata(&p).unwrap().is_dir() {
                    true => stack.push(p),
                    false => out.push(p.strip_prefix(dir).unwrap().display().to_string()),
                }
            }
        }
        out.sort();
        out
    }

    fn mode(p: &Path) -> u32 {
        fs::metadata(p).unwrap().permissions().mode() & 0o777
    }

    fn write(p: &Path, text: &str, mode: u32) {
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, text).unwrap();
        fs::set_permissions(p, fs::Permissions::from_mode(mode)).unwrap();
    }

    #[test]
    fn client_names_parse() {
        let cases = [
            ("claude", Some(ClientKind::Claude)),
            ("Cursor", Some(ClientKind::Cursor)),
            ("hermes", Some(ClientKind::Hermes)),
            ("generic", Some(ClientKind::Generic)),
            ("windsurf", None),
            ("", None),
        ];
        for (input, expected) in cases {
            match (input.parse::<ClientKind>(), expected) {
                (Ok(k), Some(e)) => {
                    assert_eq!(k, e);
                    assert_eq!(k.name().parse::<ClientKind>().unwrap(), k);
                }
                (Err(e), None) => {
                    let msg = e.to_string();
                    assert_eq!(e.exit_code(), 2);
                    for name in CLIENT_NAMES {
                        assert!(msg.contains(name), "{msg}");
                    }
                }
                (got, _) => panic!("{input:?}: {got:?}"),
            }
        }
    }

    #[test]
    fn config_paths() {
        let home = Path::new("/home/u");
        let cases = [
            (
                Os::MacOs,
                ClientKind::Claude,
                Some("/home/u/Library/Application Support/Claude/claude_desktop_config.json"),
            ),
            (Os::Linux, ClientKind::Claude, Some("/home/u/.config/Claude/claude_desktop_config.json")),
            (Os::MacOs, ClientKind::Cursor, Some("/home/u/.cursor/mcp.json")),
            (Os::Linux, ClientKind::Cursor, Some("/home/u/.cursor/mcp.json")),
            (Os::Linux, ClientKind::Hermes, Some("/home/u/.hermes/config.yaml")),
            (Os::MacOs, ClientKind::Generic, None),
        ];
        for (os, kind, expected) in cases {
            assert_eq!(config_path(home, os, kind), expected.map(PathBuf::from), "{os:?} {kind}");
        }
    }

    const JSON_BEFORE: &str = r#"{
  "globalShortcut": "Ctrl+Space",
  "mcpServers": {
    "filesystem": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"] },
    "withings": { "command": "npx", "args": ["-y", "withings-mcp-unofficial"] },
    "zeta": { "command": "/bin/zeta" }
  },
  "theme": { "dark": true }
}
"#;

    #[test]
    fn json_clients_merge_backup_and_idempotence() {
        let cases = [
            (Os::MacOs, ClientKind::Claude),
            (Os::Linux, ClientKind::Claude),
            (Os::Linux, ClientKind::Cursor),
        ];
        for (os, kind) in cases {
            let home = TempHome::new("json");
            let path = config_path(&home.0, os, kind).unwrap();
            write(&path, JSON_BEFORE, 0o640);

            let report = run(&home.0, os, kind, &[], STAMP).unwrap();
            assert!(report.changed, "{kind}");
            assert_eq!(report.path.as_deref(), Some(path.as_path()));
            let backup = report.backup.clone().unwrap();
            assert_eq!(backup, PathBuf::from(format!("{}.bak.{STAMP}", path.display())));
            assert_eq!(fs::read_to_string(&backup).unwrap(), JSON_BEFORE, "backup holds the old bytes");
            assert_eq!(mode(&backup), 0o640, "backup keeps the old permissions");
            assert_eq!(mode(&path), 0o640, "the config keeps its permissions");

            let after: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
            let keys: Vec<&String> = after.as_object().unwrap().keys().collect();
            assert_eq!(keys, ["globalShortcut", "mcpServers", "theme"], "top-level keys and order kept");
            let servers = after["mcpServers"].as_object().unwrap();
            let names: Vec<&String> = servers.keys().collect();
            assert_eq!(names, ["filesystem", "withings", "zeta"], "servers and order kept");
            assert_eq!(servers["filesystem"]["args"][2], "/tmp");
            assert_eq!(
                servers["withings"],
                serde_json::json!({"command": EXE, "args": [], "env": {"WITHINGS_TZ": "Europe/Paris"}})
            );
            assert_eq!(after["theme"]["dark"], true);
            let snippet: Value = serde_json::from_str(&report.snippet).unwrap();
            assert_eq!(snippet["mcpServers"]["withings"], servers["withings"]);

            // A second run, even with a new stamp, writes nothing and makes no backup.
            let listing = files(&home.0);
            let bytes = fs::read(&path).unwrap();
            let again = run(&home.0, os, kind, &[], "20261201T000000Z").unwrap();
            assert!(!again.changed && again.backup.is_none(), "{kind}: {again:?}");
            assert_eq!(files(&home.0), listing);
            assert_eq!(fs::read(&path).unwrap(), bytes);

            // A different entry (demo mode) is a change: new backup of the previous state.
            let demo = run(&home.0, os, kind, &["--demo".to_string()], "20261202T000000Z").unwrap();
            assert!(demo.changed);
            assert_eq!(fs::read(demo.backup.unwrap()).unwrap(), bytes);
            let after: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
            assert_eq!(after["mcpServers"]["withings"]["args"], serde_json::json!(["--demo"]));
        }
    }

    #[test]
    fn json_created_when_missing_without_env() {
        for (os, kind) in [(Os::MacOs, ClientKind::Claude), (Os::Linux, ClientKind::Cursor)] {
            let home = TempHome::new("create");
            let report = install(&home.0, os, kind, Path::new(EXE), &[], &[], STAMP).unwrap();
            assert!(report.changed && report.backup.is_none());
            let path = report.path.unwrap();
            assert_eq!(mode(&path), 0o600);
            let text = fs::read_to_string(&path).unwrap();
            let value: Value = serde_json::from_str(&text).unwrap();
            assert_eq!(value, serde_json::json!({"mcpServers": {"withings": {"command": EXE, "args": []}}}));
            assert_eq!(files(&home.0).len(), 1, "only the config, no temp file");
        }
    }

    #[test]
    fn json_shapes_refused_untouched() {
        let cases = [
            ("{\"mcpServers\": {", "invalid JSON"),
            ("[1, 2]", "top level is not a JSON object"),
            ("\"text\"", "top level is not a JSON object"),
            ("{\"mcpServers\": []}", "`mcpServers` is not a JSON object"),
            ("{\"mcpServers\": null}", "`mcpServers` is not a JSON object"),
        ];
        for (text, needle) in cases {
            let home = TempHome::new("badjson");
            let path = config_path(&home.0, Os::Linux, ClientKind::Cursor).unwrap();
            write(&path, text, 0o600);
            let err = run(&home.0, Os::Linux, ClientKind::Cursor, &[], STAMP).unwrap_err().to_string();
            assert!(err.contains(needle), "{text}: {err}");
            assert!(err.contains(&path.display().to_string()), "names the file: {err}");
            assert_eq!(fs::read_to_string(&path).unwrap(), text);
            assert_eq!(files(&home.0), [".cursor/mcp.json"]);
            assert!(!check(&home.0, Os::Linux, ClientKind::Cursor, Path::new(EXE)).ok);
        }
    }

    const YAML_BEFORE: &str = "# Hermes config\nmodel: anthropic/claude\nmcp_servers:\n  github:\n    command: \"gh-mcp\"\n    args: [\"serve\"]\n\n# approvals follow\napprovals:\n  mcp_reload_confirm: false\n";

    #[test]
    fn hermes_merge_backup_and_idempotence() {
        let home = TempHome::new("hermes");
        let path = config_path(&home.0, Os::Linux, ClientKind::Hermes).unwrap();
        write(&path, YAML_BEFORE, 0o600);
        let report = run(&home.0, Os::Linux, ClientKind::Hermes, &[], STAMP).unwrap();
        assert!(report.changed);
        let expected = format!(
            "# Hermes config\nmodel: anthropic/claude\nmcp_servers:\n  github:\n    command: \"gh-mcp\"\n    args: [\"serve\"]\n  withings:\n    command: \"{EXE}\"\n    args: []\n    env:\n      WITHINGS_TZ: \"Europe/Paris\"\n\n# approvals follow\napprovals:\n  mcp_reload_confirm: false\n"
        );
        assert_eq!(fs::read_to_string(&path).unwrap(), expected);
        assert_eq!(fs::read_to_string(report.backup.unwrap()).unwrap(), YAML_BEFORE);
        assert!(report.snippet.starts_with("mcp_servers:\n  withings:\n"));

        let listing = files(&home.0);
        let again = run(&home.0, Os::Linux, ClientKind::Hermes, &[], "20261201T000000Z").unwrap();
        assert!(!again.changed && again.backup.is_none());
        assert_eq!(files(&home.0), listing);
        assert_eq!(fs::read_to_string(&path).unwrap(), expected);

        let wired = check(&home.0, Os::Linux, ClientKind::Hermes, Path::new(EXE));
        assert!(!wired.ok, "{EXE} does not exist on this machine: {wired:?}");
        assert!(wired.detail.contains("does not exist"), "{wired:?}");
    }

    #[test]
    fn hermes_created_and_crlf_kept() {
        let home = TempHome::new("hermes-new");
        let report = run(&home.0, Os::Linux, ClientKind::Hermes, &[], STAMP).unwrap();
        let path = report.path.unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), report.snippet);
        assert_eq!(mode(&path), 0o600);

        let crlf = "model: x\r\nmcp_servers: {}\r\n";
        write(&path, crlf, 0o600);
        run(&home.0, Os::Linux, ClientKind::Hermes, &[], "20261201T000000Z").unwrap();
        let text = fs::read_to_string(&path).unwrap();
        assert!(text.starts_with("model: x\r\nmcp_servers:\r\n  withings:\r\n"), "{text:?}");
        assert!(!text.replace("\r\n", "").contains('\n'));
    }

    #[test]
    fn hermes_shapes_refused_untouched() {
        let cases = [
            ("mcp_servers: github\n", "a scalar"),
            ("mcp_servers:\n  - github\n", "a sequence"),
            ("mcp_servers:\n\tgithub:\n", "tab"),
        ];
        for (text, needle) in cases {
            let home = TempHome::new("badyaml");
            let path = config_path(&home.0, Os::Linux, ClientKind::Hermes).unwrap();
            write(&path, text, 0o600);
            let err = run(&home.0, Os::Linux, ClientKind::Hermes, &[], STAMP).unwrap_err().to_string();
            assert!(
                err.contains(needle) && err.contains("config.yaml") && err.contains("left unchanged"),
                "{err}"
            );
            assert_eq!(fs::read_to_string(&path).unwrap(), text);
            assert_eq!(files(&home.0), [".hermes/config.yaml"]);
        }
    }

    #[test]
    fn symlinked_config_refused() {
        let home = TempHome::new("symlink");
        let real = home.0.join("dotfiles/mcp.json");
        write(&real, "{}", 0o600);
        let path = config_path(&home.0, Os::Linux, ClientKind::Cursor).unwrap();
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(&real, &path).unwrap();
        let err = run(&home.0, Os::Linux, ClientKind::Cursor, &[], STAMP).unwrap_err().to_string();
        assert!(err.contains("symbolic link") && err.contains("mcp.json"), "{err}");
        assert!(fs::symlink_metadata(&path).unwrap().file_type().is_symlink());
        assert_eq!(fs::read_to_string(&real).unwrap(), "{}");
        assert_eq!(files(&home.0), [".cursor/mcp.json", "dotfiles/mcp.json"]);
    }

    // Tests may run as root, which ignores permission bits; so the code checks the bits itself
    // (read-only file or directory is refused for everyone), and the "cannot create" case uses a
    // HOME that is a regular file, which fails for root too.
    #[test]
    fn read_only_targets_refused() {
        // A read-only config file.
        let home = TempHome::new("ro-file");
        let path = config_path(&home.0, Os::Linux, ClientKind::Claude).unwrap();
        write(&path, "{}", 0o444);
        let err = run(&home.0, Os::Linux, ClientKind::Claude, &[], STAMP).unwrap_err().to_string();
        assert!(err.contains("read-only") && err.contains("claude_desktop_config.json"), "{err}");
        assert_eq!(fs::read_to_string(&path).unwrap(), "{}");
        assert_eq!(files(&home.0), [".config/Claude/claude_desktop_config.json"]);

        // A read-only directory holding an existing config.
        let home = TempHome::new("ro-dir");
        let path = config_path(&home.0, Os::Linux, ClientKind::Hermes).unwrap();
        write(&path, "a: 1\n", 0o600);
        let dir = path.parent().unwrap();
        fs::set_permissions(dir, fs::Permissions::from_mode(0o555)).unwrap();
        let err = run(&home.0, Os::Linux, ClientKind::Hermes, &[], STAMP).unwrap_err().to_string();
        fs::set_permissions(dir, fs::Permissions::from_mode(0o755)).unwrap();
        assert!(err.contains("read-only") && err.contains(".hermes"), "{err}");
        assert_eq!(fs::read_to_string(&path).unwrap(), "a: 1\n");
        assert_eq!(files(&home.0), [".hermes/config.yaml"]);

        // A read-only HOME without the client's directory: nothing is created in it.
        let home = TempHome::new("ro-home");
        fs::set_permissions(&home.0, fs::Permissions::from_mode(0o555)).unwrap();
        let err = run(&home.0, Os::Linux, ClientKind::Cursor, &[], STAMP).unwrap_err().to_string();
        fs::set_permissions(&home.0, fs::Permissions::from_mode(0o755)).unwrap();
        assert!(err.contains("read-only") && err.contains(".cursor"), "{err}");
        assert!(files(&home.0).is_empty());
        assert!(fs::read_dir(&home.0).unwrap().next().is_none(), "no directory created");

        // HOME is a regular file: nothing can be created under it.
        let base = TempHome::new("home-file");
        let home = base.0.join("home");
        write(&home, "not a dir", 0o600);
        let err = run(&home, Os::Linux, ClientKind::Cursor, &[], STAMP).unwrap_err().to_string();
        assert!(err.contains("creating") && err.contains(".cursor"), "{err}");
        assert_eq!(files(&base.0), ["home"]);
    }

    #[test]
    fn generic_prints_and_writes_nothing() {
        let home = TempHome::new("generic");
        let report =
            install(&home.0, Os::Linux, ClientKind::Generic, Path::new(EXE), &[], &tz(), "x").unwrap();
        assert_eq!((report.path, report.changed, report.backup), (None, false, None));
        let snippet: Value = serde_json::from_str(&report.snippet).unwrap();
        assert_eq!(
            snippet,
            serde_json::json!({"mcpServers": {"withings": {"command": EXE, "args": [], "env": {"WITHINGS_TZ": "Europe/Paris"}}}})
        );
        assert!(files(&home.0).is_empty());
        assert!(check(&home.0, Os::Linux, ClientKind::Generic, Path::new(EXE)).ok);
    }

    #[test]
    fn bad_inputs_refused() {
        let home = TempHome::new("inputs");
        let relative =
            install(&home.0, Os::Linux, ClientKind::Cursor, Path::new("withings-mcp"), &[], &[], STAMP);
        assert!(relative.unwrap_err().to_string().contains("absolute"));
        for stamp in ["", "../x", "a/b"] {
            let err = run(&home.0, Os::Linux, ClientKind::Cursor, &[], stamp).unwrap_err().to_string();
            assert!(err.contains("stamp"), "{stamp:?}: {err}");
        }
        assert!(files(&home.0).is_empty());
    }

    #[test]
    fn backup_name_taken_gets_a_suffix() {
        let home = TempHome::new("suffix");
        let path = config_path(&home.0, Os::Linux, ClientKind::Cursor).unwrap();
        write(&path, "{}", 0o600);
        let taken = PathBuf::from(format!("{}.bak.{STAMP}", path.display()));
        fs::write(&taken, "older").unwrap();
        let report = run(&home.0, Os::Linux, ClientKind::Cursor, &[], STAMP).unwrap();
        assert_eq!(report.backup, Some(PathBuf::from(format!("{}.bak.{STAMP}.1", path.display()))));
        assert_eq!(fs::read_to_string(&taken).unwrap(), "older");
    }

    #[test]
    fn failed_replace_leaves_no_temp_file() {
        // Renaming a file over a non-empty directory fails even for root, after the temp file
        // exists: the temp file must go.
        let home = TempHome::new("rename");
        let target = home.0.join("cfg.json");
        write(&target.join("inside"), "x", 0o600);
        let err = replace_atomically(&target, &home.0, b"{}", None).unwrap_err().to_string();
        assert!(err.contains("cfg.json"), "{err}");
        assert_eq!(files(&home.0), ["cfg.json/inside"]);
    }

    #[test]
    fn wiring_checks() {
        let home = TempHome::new("check");
        let exe = home.0.join("bin/withings-mcp");
        write(&exe, "#!/bin/sh\n", 0o755);
        let other = home.0.join("bin/old-withings-mcp");
        write(&other, "#!/bin/sh\n", 0o755);
        let not_exec = home.0.join("bin/plain");
        write(&not_exec, "", 0o644);
        let cursor = config_path(&home.0, Os::Linux, ClientKind::Cursor).unwrap();
        let entry = |cmd: &str| format!("{{\"mcpServers\": {{\"withings\": {{\"command\": {cmd:?}}}}}}}");
        let cases: Vec<(Option<String>, bool, &str)> = vec![
            (None, false, "not found"),
            (Some("{}".into()), false, "no `withings` entry"),
            (Some("{nope".into()), false, "invalid JSON"),
            (Some(entry("npx")), false, "not an absolute path"),
            (Some(entry("/nonexistent/withings-mcp")), false, "does not exist"),
            (Some(entry(not_exec.to_str().unwrap())), false, "not an executable"),
            (Some(entry(other.to_str().unwrap())), true, "warning"),
            (Some(entry(exe.to_str().unwrap())), true, "runs this binary"),
        ];
        for (content, ok, needle) in cases {
            match &content {
                Some(text) => write(&cursor, text, 0o600),
                None => {
                    let _ = fs::remove_file(&cursor);
                }
            }
            let got = check(&home.0, Os::Linux, ClientKind::Cursor, &exe);
            assert_eq!(got.ok, ok, "{content:?}: {got:?}");
            assert!(got.detail.contains(needle), "{content:?}: {got:?}");
            assert_eq!(got.path.as_deref(), Some(cursor.as_path()));
        }

        // What install writes, check accepts, for every client with a file.
        for (os, kind) in [
            (Os::MacOs, ClientKind::Claude),
            (Os::Linux, ClientKind::Claude),
            (Os::Linux, ClientKind::Hermes),
        ] {
            install(&home.0, os, kind, &exe, &[], &tz(), STAMP).unwrap();
            let got = check(&home.0, os, kind, &exe);
            assert!(got.ok && got.detail.contains("runs this binary"), "{kind}: {got:?}");
        }
    }
}
