//! Issue 6, client set-up: `setup --client X --non-interactive --no-auth` and `doctor --client X`
//! through the real binary, in a temporary HOME holding the user's existing client configs.
//!
//! Tests run as root in CI containers, where permission bits do not stop a write; the binary checks
//! the bits itself, and these tests prove it does (the read-only cases would pass trivially for an
//! ordinary user only if the code did nothing at all, which the root case rules out).

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use crate::fake::{Run, TempHome, bin, run};

/// 2026-03-15T12:00:00Z; backups are named after it (`.bak.20260315T120000Z`).
const NOW: &str = "1773576000";
const NOW_STAMP: &str = "20260315T120000Z";
/// A day later: a second run would stamp a new backup name, so "no new backup" means something.
const LATER: &str = "1773662400";

/// The binary with PATH, HOME and a fixed clock only: no credentials, no zone, no demo.
fn cmd(home: &Path, now: &str, args: &[&str]) -> Command {
    let mut c = Command::new(bin());
    c.env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("WITHINGS_MCP_NOW", now)
        .args(args);
    c
}

fn setup(home: &Path, client: &str, now: &str) -> Run {
    run(cmd(home, now, &["setup", "--client", client, "--non-interactive", "--no-auth"]))
}

/// The `client_wiring` check of `doctor --client X --json`.
fn wiring(home: &Path, client: &str) -> Value {
    let r = run(cmd(home, NOW, &["doctor", "--client", client, "--json"]));
    assert_eq!(r.code, 0, "doctor without --strict exits 0: {}", r.all());
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    let checks = v["checks"].as_array().unwrap();
    let found = checks.iter().find(|c| c["id"] == "client_wiring");
    found.unwrap_or_else(|| panic!("no client_wiring check: {v}")).clone()
}

/// Every file and symlink below `dir`, relative and sorted: proves what was (not) written.
fn files(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = fs::read_dir(&d) else { continue };
        for e in entries {
            let p = e.unwrap().path();
            let meta = fs::symlink_metadata(&p).unwrap();
            match meta.is_dir() {
                true => stack.push(p),
                false => out.push(p.strip_prefix(dir).unwrap().display().to_string()),
            }
        }
    }
    out.sort();
    out
}

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

/// The binary's absolute path as `setup` writes it (canonical).
fn exe() -> String {
    fs::canonicalize(bin()).unwrap().display().to_string()
}

const CLAUDE_BEFORE: &str = r#"{
  "globalShortcut": "Ctrl+Space",
  "mcpServers": {
    "filesystem": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]}
  },
  "theme": {"dark": true}
}
"#;

const CURSOR_BEFORE: &str = r#"{"mcpServers":{"github":{"url":"https://example.invalid/mcp","headers":{"X-Team":"a"}}},"editor":{"fontSize":13}}"#;

const HERMES_BEFORE: &str = "# Hermes config\nmodel: anthropic/claude\nmcp_servers:\n  github:\n    command: \"gh-mcp\"\n    args: [\"serve\"]\n\n# approvals follow\napprovals:\n  mcp_reload_confirm: false\nterminal:\n  backend: local\n";

struct Case {
    client: &'static str,
    rel: &'static str,
    before: &'static str,
}

const CASES: [Case; 3] = [
    Case { client: "claude", rel: ".config/Claude/claude_desktop_config.json", before: CLAUDE_BEFORE },
    Case { client: "cursor", rel: ".cursor/mcp.json", before: CURSOR_BEFORE },
    Case { client: "hermes", rel: ".hermes/config.yaml", before: HERMES_BEFORE },
];

/// Checks the merged file: other servers and keys kept (in order), `withings` runs this binary.
fn check_merged(case: &Case, text: &str) {
    let exe = exe();
    match case.client {
        "hermes" => {
            let expected = format!(
                "# Hermes config\nmodel: anthropic/claude\nmcp_servers:\n  github:\n    command: \"gh-mcp\"\n    args: [\"serve\"]\n  withings:\n    command: \"{exe}\"\n    args: []\n\n# approvals follow\napprovals:\n  mcp_reload_confirm: false\nterminal:\n  backend: local\n"
            );
            assert_eq!(text, expected);
        }
        _ => {
            let before: Value = serde_json::from_str(case.before).unwrap();
            let after: Value = serde_json::from_str(text).unwrap();
            let keys = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
            assert_eq!(keys(&after), keys(&before), "{}: top-level keys and order kept", case.client);
            for (k, v) in before.as_object().unwrap() {
                if k != "mcpServers" {
                    assert_eq!(&after[k], v, "{}: key {k} kept", case.client);
                }
            }
            let servers = after["mcpServers"].as_object().unwrap();
            for (name, entry) in before["mcpServers"].as_object().unwrap() {
                assert_eq!(&servers[name], entry, "{}: server {name} kept", case.client);
            }
            assert_eq!(servers.len(), before["mcpServers"].as_object().unwrap().len() + 1);
            assert_eq!(servers["withings"], json!({"command": exe, "args": []}));
        }
    }
    assert!(Path::new(&exe).is_absolute());
}

#[test]
fn setup_merges_backs_up_once_and_is_idempotent() {
    for case in &CASES {
        let home = TempHome::new(&format!("setup-{}", case.client));
        let path = home.dir.join(case.rel);
        write(&path, case.before);

        let w = wiring(&home.dir, case.client);
        assert_eq!(w["ok"], false, "{}: not wired before setup: {w}", case.client);
        assert!(w["detail"].as_str().unwrap().contains("no `withings` entry"), "{w}");

        let first = setup(&home.dir, case.client, NOW);
        assert_eq!(first.code, 0, "{}: {}", case.client, first.all());
        assert!(first.stdout.contains("withings server added"), "{}", first.stdout);
        let merged = fs::read(&path).unwrap();
        check_merged(case, std::str::from_utf8(&merged).unwrap());

        // Exactly one backup, named after NOW, holding the old bytes; nothing else but setup's
        // own config file.
        let backup = format!("{}.bak.{NOW_STAMP}", case.rel);
        let listing = files(&home.dir);
        assert_eq!(listing, sorted(&[case.rel, &backup, ".withings-mcp/config.json"]), "{}", case.client);
        assert_eq!(fs::read(home.dir.join(&backup)).unwrap(), case.before.as_bytes());
        assert!(first.stdout.contains(&backup), "the backup is shown: {}", first.stdout);

        let w = wiring(&home.dir, case.client);
        assert_eq!(w["ok"], true, "{}: wired after setup: {w}", case.client);
        assert!(w["detail"].as_str().unwrap().contains("runs this binary"), "{w}");

        // The second run (a day later) changes nothing: same bytes, no new backup.
        let second = setup(&home.dir, case.client, LATER);
        assert_eq!(second.code, 0, "{}", second.all());
        assert!(second.stdout.contains("already up to date"), "{}", second.stdout);
        // Nor does it claim to have written the configuration it left as it was (issue 17).
        assert!(first.stdout.contains("configuration written"), "{}", first.stdout);
        assert!(
            second.stdout.contains("configuration unchanged") && !second.stdout.contains("written"),
            "{}",
            second.stdout
        );
        assert_eq!(fs::read(&path).unwrap(), merged, "{}: second run rewrote the file", case.client);
        assert_eq!(files(&home.dir), listing, "{}: second run added files", case.client);
    }
}

fn sorted(names: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = names.iter().map(|s| s.to_string()).collect();
    v.sort();
    v
}

#[test]
fn setup_creates_a_missing_client_config() {
    for case in &CASES {
        let home = TempHome::new(&format!("setup-new-{}", case.client));
        let r = setup(&home.dir, case.client, NOW);
        assert_eq!(r.code, 0, "{}", r.all());
        assert_eq!(
            files(&home.dir),
            sorted(&[case.rel, ".withings-mcp/config.json"]),
            "no backup of nothing"
        );
        let mode = fs::metadata(home.dir.join(case.rel)).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "{}", case.client);
        assert_eq!(wiring(&home.dir, case.client)["ok"], true);
    }
}

#[test]
fn generic_prints_a_snippet_and_writes_nothing() {
    let home = TempHome::new("setup-generic");
    let r = run(cmd(
        &home.dir,
        NOW,
        &["setup", "--client", "generic", "--non-interactive", "--no-auth", "--json"],
    ));
    assert_eq!(r.code, 0, "{}", r.all());
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["client"]["path"], Value::Null);
    assert_eq!(v["client"]["changed"], false);
    let snippet: Value = serde_json::from_str(v["client"]["snippet"].as_str().unwrap()).unwrap();
    assert_eq!(snippet, json!({"mcpServers": {"withings": {"command": exe(), "args": []}}}));
    // Nothing at all (README: "prints the JSON snippet, writes nothing").
    assert!(files(&home.dir).is_empty(), "{:?}", files(&home.dir));
    assert_eq!(wiring(&home.dir, "generic")["ok"], true);

    // The human form prints the same snippet; without --no-auth and without any credential it
    // still signs nobody in (it would wait for a callback) and writes nothing.
    let home = TempHome::new("setup-generic-text");
    let r = run(cmd(&home.dir, NOW, &["setup", "--client", "generic"]));
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(r.stdout.contains(&format!("\"command\": \"{}\"", exe())), "{}", r.stdout);
    assert!(files(&home.dir).is_empty(), "{:?}", files(&home.dir));
    // Credentials with generic are a contradiction, refused before anything happens.
    let r = run(cmd(&home.dir, NOW, &["setup", "--client", "generic", "--client-id", "x"]));
    assert_eq!((r.code, r.stdout.as_str()), (2, ""), "{}", r.all());
    assert!(r.stderr.starts_with("withings-mcp: --client-id does not apply"), "{}", r.stderr);
}

/// A refused `setup`: the exit code, one clear `withings-mcp: …` line naming `needles`, and the
/// HOME exactly as it was (no backup, no temp file, not even setup's own config).
fn assert_refused(home: &Path, client: &str, code: i32, needles: &[&str]) {
    let before = snapshot(home);
    let r = setup(home, client, NOW);
    assert_eq!(r.code, code, "{client}: {}", r.all());
    assert_eq!(r.stdout, "", "nothing on stdout when refused");
    let line = r.stderr.trim_end();
    assert!(line.starts_with("withings-mcp: ") && !line.contains('\n'), "one line: {line:?}");
    for n in needles {
        assert!(line.contains(n), "{client}: stderr {line:?} lacks {n:?}");
    }
    assert_eq!(snapshot(home), before, "{client}: HOME changed");
}

/// Every path below `dir` with its bytes (or link target).
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    files(dir)
        .into_iter()
        .map(|f| {
            let p = dir.join(&f);
            let bytes = match fs::symlink_metadata(&p).map(|m| m.file_type().is_symlink()) {
                Ok(true) => fs::read_link(&p).unwrap().display().to_string().into_bytes(),
                _ => fs::read(&p).unwrap_or_default(),
            };
            (f, bytes)
        })
        .collect()
}

#[test]
fn invalid_json_configs_are_left_untouched() {
    let cases = [
        ("claude", ".config/Claude/claude_desktop_config.json", "{\"mcpServers\": {", "invalid JSON"),
        ("cursor", ".cursor/mcp.json", "[\"a\", \"b\"]\n", "not a JSON object"),
        ("cursor", ".cursor/mcp.json", "{\"mcpServers\": [1]}\n", "`mcpServers` is not a JSON object"),
    ];
    for (client, rel, text, needle) in cases {
        let home = TempHome::new("setup-badjson");
        write(&home.dir.join(rel), text);
        assert_refused(&home.dir, client, 1, &[needle, rel, "left unchanged"]);
        assert_eq!(wiring(&home.dir, client)["ok"], false);
    }
}

#[test]
fn invalid_yaml_shapes_are_left_untouched() {
    let cases = [
        ("mcp_servers: github\n", "scalar"),
        ("mcp_servers:\n  - github\n", "sequence"),
        ("model: x\nmcp_servers:\n\tgithub:\n", "tab"),
    ];
    for (text, needle) in cases {
        let home = TempHome::new("setup-badyaml");
        write(&home.dir.join(".hermes/config.yaml"), text);
        assert_refused(&home.dir, "hermes", 1, &[needle, ".hermes/config.yaml", "left unchanged"]);
    }
}

#[test]
fn read_only_config_is_left_untouched_even_for_root() {
    let home = TempHome::new("setup-ro");
    let path = home.dir.join(".cursor/mcp.json");
    write(&path, CURSOR_BEFORE);
    fs::set_permissions(&path, fs::Permissions::from_mode(0o444)).unwrap();
    assert_refused(&home.dir, "cursor", 1, &["read-only", ".cursor/mcp.json"]);

    // A read-only directory holding the config: no backup or temp file can appear in it.
    let home = TempHome::new("setup-ro-dir");
    let path = home.dir.join(".hermes/config.yaml");
    write(&path, HERMES_BEFORE);
    let dir = path.parent().unwrap().to_path_buf();
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o555)).unwrap();
    assert_refused(&home.dir, "hermes", 1, &["read-only", ".hermes"]);
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn symlinked_config_is_not_replaced() {
    let home = TempHome::new("setup-link");
    let real = home.dir.join("dotfiles/claude.json");
    write(&real, CLAUDE_BEFORE);
    let link = home.dir.join(".config/Claude/claude_desktop_config.json");
    fs::create_dir_all(link.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(&real, &link).unwrap();
    assert_refused(&home.dir, "claude", 1, &["symbolic link", "claude_desktop_config.json"]);
    assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
}

#[test]
fn read_only_home_gets_nothing_even_for_root() {
    let home = TempHome::new("setup-ro-home");
    fs::set_permissions(&home.dir, fs::Permissions::from_mode(0o555)).unwrap();
    let listed = fs::read_dir(&home.dir).unwrap().count();
    let before = snapshot(&home.dir);
    let r = setup(&home.dir, "cursor", NOW);
    let after_dirs = fs::read_dir(&home.dir).unwrap().count();
    fs::set_permissions(&home.dir, fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(r.code, 1, "{}", r.all());
    assert!(r.stderr.starts_with("withings-mcp: ") && r.stderr.contains("read-only"), "{}", r.stderr);
    assert_eq!(snapshot(&home.dir), before);
    assert_eq!((listed, after_dirs), (0, 0), "no directory created in a read-only HOME");
}

#[test]
fn home_that_is_a_file_is_refused() {
    let base = TempHome::new("setup-home-file");
    let home: PathBuf = base.dir.join("home");
    write(&home, "not a directory");
    let r = setup(&home, "cursor", NOW);
    assert_eq!(r.code, 1, "{}", r.all());
    assert!(
        r.stderr.starts_with("withings-mcp: ") && r.stderr.contains(&home.display().to_string()),
        "{}",
        r.stderr
    );
    assert_eq!(fs::read_to_string(&home).unwrap(), "not a directory");
    assert_eq!(files(&base.dir), ["home"]);
}

#[test]
fn unknown_client_is_a_usage_error() {
    let home = TempHome::new("setup-unknown");
    write(&home.dir.join(".cursor/mcp.json"), CURSOR_BEFORE);
    assert_refused(&home.dir, "vscode", 2, &["unknown client `vscode`", "claude, cursor, hermes, generic"]);
    let r = run(cmd(&home.dir, NOW, &["doctor", "--client", "vscode", "--json"]));
    assert_eq!(r.code, 2, "{}", r.all());
    assert!(r.stderr.contains("unknown client"), "{}", r.stderr);
}

// --- Issue 11: set-up without sharp edges -------------------------------------------------------

/// Words that would tell a demo user to find credentials or sign in.
const CREDENTIAL_WORDS: &[&str] = &["WITHINGS_CLIENT", "client id", "secret", "auth", "sign"];

#[test]
fn demo_wiring_never_signs_in_and_mentions_no_credentials() {
    for case in &CASES {
        let home = TempHome::new(&format!("setup-demo-{}", case.client));
        // No --no-auth, no credentials: before, this ran `auth` and failed on stdout.
        let r = run(cmd(&home.dir, NOW, &["setup", "--client", case.client, "--demo"]));
        assert_eq!(r.code, 0, "{}: {}", case.client, r.all());
        assert_eq!(r.stderr, "", "{}", case.client);
        for w in CREDENTIAL_WORDS {
            assert!(
                !r.stdout.to_lowercase().contains(&w.to_lowercase()),
                "{}: {w:?} in {}",
                case.client,
                r.stdout
            );
        }
        assert!(r.stdout.contains("demo account"), "{}", r.stdout);
        // Only the client's config, wired to the demo account.
        assert_eq!(files(&home.dir), [case.rel], "{}", case.client);
        let text = fs::read_to_string(home.dir.join(case.rel)).unwrap();
        assert!(text.contains("--demo"), "{}: {text}", case.client);
    }
    // The JSON form says the same; `setup --demo` alone has nothing to write.
    let home = TempHome::new("setup-demo-json");
    let r = run(cmd(&home.dir, NOW, &["--demo", "setup", "--client", "cursor", "--json"]));
    assert_eq!(r.code, 0, "{}", r.all());
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(
        (&v["ok"], &v["demo"], &v["client"]["changed"]),
        (&json!(true), &json!(true), &json!(true)),
        "{v}"
    );
    assert!(v.get("auth").is_none() && v.get("warnings").is_none(), "{v}");
    let home = TempHome::new("setup-demo-alone");
    let r = run(cmd(&home.dir, NOW, &["setup", "--demo"]));
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(files(&home.dir).is_empty());
}

#[test]
fn the_secret_can_come_from_standard_input() {
    use std::io::Write;
    let home = TempHome::new("setup-stdin");
    let secret = "stdin-secret-0123456789abcdef";
    let mut c = cmd(&home.dir, NOW, &["setup", "--client-id", "cid", "--client-secret-stdin", "--no-auth"]);
    c.stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = c.spawn().unwrap();
    child.stdin.take().unwrap().write_all(format!("{secret}\nignored second line\n").as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let all = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{all}");
    assert!(!all.contains(secret), "{all}");
    let path = home.dir.join(".withings-mcp/config.json");
    let v: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(v["WITHINGS_CLIENT_SECRET"], secret);
    assert_eq!(fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
    // Nothing on standard input, or the secret given twice: usage errors, nothing written.
    let home = TempHome::new("setup-stdin-empty");
    let r = run(cmd(&home.dir, NOW, &["setup", "--client-id", "cid", "--client-secret-stdin", "--no-auth"]));
    assert_eq!(r.code, 2, "{}", r.all());
    assert!(r.stderr.contains("standard input held no secret"), "{}", r.stderr);
    let r = run(cmd(&home.dir, NOW, &["setup", "--client-secret", "x", "--client-secret-stdin"]));
    assert_eq!(r.code, 2, "{}", r.all());
    assert!(files(&home.dir).is_empty());
    // Help says why argv is a poor place for it.
    let help = run(cmd(&home.dir, NOW, &["setup", "--help"])).stdout;
    assert!(help.contains("--client-secret-stdin") && help.contains("other users can read"), "{help}");
}

#[test]
fn a_failed_sign_in_during_setup_is_reported_on_stderr_with_exit_1() {
    let home = TempHome::new("setup-fail");
    // A redirect no listener can serve: `auth` fails at once, after the config was written.
    let args =
        ["setup", "--non-interactive", "--client-id", "cid", "--redirect-uri", "https://example.com/cb"];
    let mut c = cmd(&home.dir, NOW, &args);
    c.env("WITHINGS_CLIENT_SECRET", "env-secret-0123456789");
    let r = run(c);
    assert_eq!(r.code, 1, "{}", r.all());
    let last = r.stderr.lines().last().unwrap_or_default();
    assert!(last.starts_with("withings-mcp: ") && last.contains("--code"), "{}", r.stderr);
    assert!(!r.stdout.contains("✗") && !r.stdout.contains("failed"), "{}", r.stdout);
    assert!(r.stdout.contains("configuration written"), "{}", r.stdout);
    // The secret from the environment was saved, so that clients started without it work.
    let v: Value =
        serde_json::from_str(&fs::read_to_string(home.dir.join(".withings-mcp/config.json")).unwrap())
            .unwrap();
    assert_eq!(v["WITHINGS_CLIENT_SECRET"], "env-secret-0123456789");
    assert!(!r.all().contains("env-secret-0123456789"));
}

#[test]
fn a_config_file_holding_the_secret_readable_by_others_is_refused_with_advice() {
    let home = TempHome::new("config-0644");
    let path = home.dir.join(".withings-mcp/config.json");
    write(&path, r#"{"WITHINGS_CLIENT_ID":"cid","WITHINGS_CLIENT_SECRET":"file-secret-0123456789"}"#);
    fs::set_permissions(home.dir.join(".withings-mcp"), fs::Permissions::from_mode(0o700)).unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).unwrap();
    let r = run(cmd(&home.dir, NOW, &["call", "withings_list_body_measures"]));
    assert_eq!(r.code, 1, "{}", r.all());
    assert!(r.stderr.contains("chmod 600") && r.stderr.contains("config.json"), "{}", r.stderr);
    let r = run(cmd(&home.dir, NOW, &["doctor", "--json"]));
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    let check = v["checks"].as_array().unwrap().iter().find(|c| c["id"] == "config_file").unwrap().clone();
    assert_eq!(check["ok"], false, "{v}");
    assert!(check["detail"].as_str().unwrap().contains("chmod 600"), "{v}");
    assert!(v["next_steps"].to_string().contains("chmod 600 ~/.withings-mcp/config.json"), "{v}");
    assert!(!r.all().contains("file-secret-0123456789"));
    // Private again: used.
    fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
    let r = run(cmd(&home.dir, NOW, &["doctor", "--json"]));
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    let check = v["checks"].as_array().unwrap().iter().find(|c| c["id"] == "client_secret").unwrap().clone();
    assert_eq!(check["ok"], true, "{v}");
}

#[test]
fn doctor_flags_a_state_directory_others_can_enter() {
    let home = TempHome::new("dir-0755");
    let dir = home.dir.join(".withings-mcp");
    write(&dir.join("config.json"), r#"{"WITHINGS_TZ":"Europe/Paris"}"#);
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o755)).unwrap();
    let r = run(cmd(&home.dir, NOW, &["doctor", "--json", "--strict"]));
    assert_eq!(r.code, 1, "{}", r.all());
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    let check = v["checks"].as_array().unwrap().iter().find(|c| c["id"] == "state_dir").unwrap().clone();
    assert_eq!(check["ok"], false, "{v}");
    assert!(check["detail"].as_str().unwrap().contains("0755"), "{v}");
    assert!(v["next_steps"].to_string().contains("chmod 700 ~/.withings-mcp"), "{v}");
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o700)).unwrap();
    let r = run(cmd(&home.dir, NOW, &["doctor", "--json"]));
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    let check = v["checks"].as_array().unwrap().iter().find(|c| c["id"] == "state_dir").unwrap().clone();
    assert_eq!(check["ok"], true, "{v}");
}

/// Issue 14: `setup --client C --account NAME` adds that person's entry, `withings-NAME`, which
/// passes `--account NAME`, beside the `withings` one; `doctor --client C --account NAME` checks
/// that entry.
#[test]
fn each_account_gets_its_own_entry_beside_the_default_one() {
    let exe = exe();
    for case in &CASES {
        let home = TempHome::new("setup-account");
        write(&home.dir.join(case.rel), case.before);
        let args = |account: &str| {
            let mut v = vec!["setup", "--client", case.client, "--non-interactive", "--no-auth", "--json"];
            if !account.is_empty() {
                v.extend(["--account", account]);
            }
            v.into_iter().map(String::from).collect::<Vec<_>>()
        };
        let run_setup = |account: &str, now: &str| {
            let argv = args(account);
            let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
            let r = run(cmd(&home.dir, now, &argv));
            assert_eq!(r.code, 0, "{}: {}", case.client, r.all());
            serde_json::from_str::<Value>(&r.stdout).unwrap()
        };
        run_setup("", NOW);
        let v = run_setup("alex", NOW);
        assert_eq!(
            (v["client"]["entry"].as_str(), v["client"]["changed"].as_bool()),
            (Some("withings-alex"), Some(true))
        );
        let text = fs::read_to_string(home.dir.join(case.rel)).unwrap();
        match case.client {
            "hermes" => {
                let both = format!(
                    "  withings:\n    command: \"{exe}\"\n    args: []\n  withings-alex:\n    command: \"{exe}\"\n    args: [\"--account\", \"alex\"]\n"
                );
                assert!(text.contains(&both), "{text}");
            }
            _ => {
                let servers = serde_json::from_str::<Value>(&text).unwrap()["mcpServers"].clone();
                assert_eq!(servers["withings"], json!({"command": exe, "args": []}));
                assert_eq!(servers["withings-alex"], json!({"command": exe, "args": ["--account", "alex"]}));
            }
        }
        // Again: nothing changes, no new backup.
        let before = files(&home.dir);
        let v = run_setup("alex", LATER);
        assert_eq!(v["client"]["changed"], false, "{}", case.client);
        assert_eq!(files(&home.dir), before);
        // doctor checks the entry of the account it serves.
        for (account, ok, needle) in
            [("alex", true, "`withings-alex` entry runs this binary"), ("bo", false, "--account bo")]
        {
            let r = run(cmd(
                &home.dir,
                NOW,
                &["doctor", "--client", case.client, "--account", account, "--json"],
            ));
            let v: Value = serde_json::from_str(&r.stdout).unwrap();
            let check =
                v["checks"].as_array().unwrap().iter().find(|c| c["id"] == "client_wiring").unwrap().clone();
            assert_eq!(check["ok"], ok, "{}: {check}", case.client);
            assert!(check["detail"].as_str().unwrap().contains(needle), "{}: {check}", case.client);
        }
    }
}
