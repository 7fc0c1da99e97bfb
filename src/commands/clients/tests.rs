use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

use serde_json::Value;

use crate::Result;
use crate::commands::clients::*;

/// A fresh directory under the system temp dir, removed on drop.
struct TempHome(PathBuf);

impl TempHome {
    fn new(tag: &str) -> TempHome {
        static COUNTER: AtomicU32 = AtomicU32::new(0);
        let n = COUNTER.fetch_add(1, Ordering::SeqCst);
        let dir = std::env::temp_dir().join(format!("withings-mcp-clients-{tag}-{}-{n}", std::process::id()));
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
    install(home, os, kind, Path::new(EXE), &Entry { name: "withings", args, env: &tz() }, stamp)
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
    let cases =
        [(Os::MacOs, ClientKind::Claude), (Os::Linux, ClientKind::Claude), (Os::Linux, ClientKind::Cursor)];
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
        let report = install(
            &home.0,
            os,
            kind,
            Path::new(EXE),
            &Entry { name: "withings", args: &[], env: &[] },
            STAMP,
        )
        .unwrap();
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
        assert!(!check(&home.0, Os::Linux, ClientKind::Cursor, Path::new(EXE), "withings").ok);
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

    let wired = check(&home.0, Os::Linux, ClientKind::Hermes, Path::new(EXE), "withings");
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
    let report = install(
        &home.0,
        Os::Linux,
        ClientKind::Generic,
        Path::new(EXE),
        &Entry { name: "withings", args: &[], env: &tz() },
        "x",
    )
    .unwrap();
    assert_eq!((report.path, report.changed, report.backup), (None, false, None));
    let snippet: Value = serde_json::from_str(&report.snippet).unwrap();
    assert_eq!(
        snippet,
        serde_json::json!({"mcpServers": {"withings": {"command": EXE, "args": [], "env": {"WITHINGS_TZ": "Europe/Paris"}}}})
    );
    assert!(files(&home.0).is_empty());
    assert!(check(&home.0, Os::Linux, ClientKind::Generic, Path::new(EXE), "withings").ok);
}

#[test]
fn bad_inputs_refused() {
    let home = TempHome::new("inputs");
    let relative = install(
        &home.0,
        Os::Linux,
        ClientKind::Cursor,
        Path::new("withings-mcp"),
        &Entry { name: "withings", args: &[], env: &[] },
        STAMP,
    );
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
        let got = check(&home.0, Os::Linux, ClientKind::Cursor, &exe, "withings");
        assert_eq!(got.ok, ok, "{content:?}: {got:?}");
        assert!(got.detail.contains(needle), "{content:?}: {got:?}");
        assert_eq!(got.path.as_deref(), Some(cursor.as_path()));
    }

    // What install writes, check accepts, for every client with a file.
    for (os, kind) in
        [(Os::MacOs, ClientKind::Claude), (Os::Linux, ClientKind::Claude), (Os::Linux, ClientKind::Hermes)]
    {
        install(&home.0, os, kind, &exe, &Entry { name: "withings", args: &[], env: &tz() }, STAMP).unwrap();
        let got = check(&home.0, os, kind, &exe, "withings");
        assert!(got.ok && got.detail.contains("runs this binary"), "{kind}: {got:?}");
    }
}
