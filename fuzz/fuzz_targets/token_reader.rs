//! The token-file reader and what consumes its result: the input is written as `tokens.json`
//! (mode 0600) and read back with `tokens::load`; the loaded tokens are checked for freshness and
//! merged with a token-endpoint answer parsed from the same bytes (`oauth::parse_grant`), as a
//! refresh would. The same bytes are also read as the pending sign-ins file.
//!
//! Invariants: no panic or arithmetic overflow (debug assertions are on in fuzz builds); a merged
//! pair always has an access and a refresh token; `Debug` output does not depend on the secrets.
#![no_main]

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use withings_mcp::store::{pending, tokens};
use withings_mcp::withings::oauth;

const NOW: i64 = 1_764_500_000;

/// One private directory per fuzzing process.
fn dir() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let d = std::env::temp_dir().join(format!("withings-fuzz-tokens-{}", std::process::id()));
        std::fs::create_dir_all(&d).expect("fuzz temp dir");
        std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o700)).expect("chmod");
        d
    })
}

fn write_private(path: &std::path::Path, data: &[u8]) {
    std::fs::write(path, data).expect("write fuzz file");
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).expect("chmod");
}

fuzz_target!(|data: &[u8]| {
    let path = dir().join("tokens.json");
    let state = pending::path(&path);
    write_private(&path, data);
    let loaded = tokens::load(&path);
    write_private(&state, data);
    let _ = pending::states(&path, NOW);
    // Nothing is left behind in /tmp but the (empty) per-process directory.
    let _ = (std::fs::remove_file(&path), std::fs::remove_file(&state));

    let Ok(loaded) = loaded else { return };
    if let Some(t) = &loaded {
        let _ = t.fresh_at(NOW);
        // Debug must not depend on the secrets at all (a substring check would trip over
        // tokens that happen to spell a field name).
        let blanked = tokens::Tokens { access_token: "A".into(), refresh_token: "R".into(), ..t.clone() };
        assert_eq!(format!("{t:?}"), format!("{blanked:?}"), "Debug depends on a token");
    }
    let body: Value = serde_json::from_slice(data).unwrap_or(Value::Null);
    let grant = oauth::parse_grant(&body);
    if let Ok(next) = tokens::merge(loaded.as_ref(), &grant, NOW) {
        assert!(!next.access_token.is_empty() && !next.refresh_token.is_empty());
        let _ = next.fresh_at(NOW);
    }
});
