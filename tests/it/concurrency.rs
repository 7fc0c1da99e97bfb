//! Concurrency (issue 8): eight processes call tools at once while the access token is expired.
//! Exactly one refresh reaches Withings per expiry, every call succeeds, and a watcher re-reading
//! the token file about every millisecond finds it at every instant: present, valid JSON with the
//! required fields, mode 0600, and a refresh token that only moves forward along the sequence
//! the fake issued (Withings rotates refresh tokens; going back would lose the grant).

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use serde_json::Value;
use withings_mcp::store::tokens;

use crate::accounts::{account_tokens, sign_in};
use crate::data::{World, serve};
use crate::fake::{FakeWithings, USERID, USERID2};
use crate::faults::run_bounded;

const PROCESSES: usize = 8;
const ROUNDS: i64 = 5;
/// 2026-03-10 12:00 at +02:00, the brief fixtures' clock.
const BASE: i64 = 1_773_136_800;
/// Each round's clock is this far after the previous one: past the 3 h lifetime of a token.
const STEP: i64 = 20_000;

/// What the watcher saw: file reads, and forward moves of the refresh token.
struct Watched {
    reads: usize,
    moves: usize,
}

fn watch(path: &Path, fake: &FakeWithings, stop: &AtomicBool) -> Watched {
    let (mut reads, mut moves, mut last) = (0, 0, None::<usize>);
    while !stop.load(Ordering::SeqCst) {
        let text = std::fs::read_to_string(path)
            .unwrap_or_else(|e| panic!("read {reads}: the token file is missing: {e}"));
        let v: Value = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("read {reads}: torn token file ({e}): {text:?}"));
        for key in ["access_token", "refresh_token"] {
            assert!(v[key].as_str().is_some_and(|s| !s.is_empty()), "read {reads}: no {key}");
        }
        assert!(v["expires_at"].is_i64(), "read {reads}: no expires_at");
        let mode = std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "read {reads}: token file mode");
        let refresh = v["refresh_token"].as_str().unwrap_or_default();
        let at = fake
            .issued_refresh_tokens()
            .iter()
            .position(|r| r == refresh)
            .unwrap_or_else(|| panic!("read {reads}: a refresh token the fake never issued"));
        if let Some(before) = last {
            assert!(at >= before, "read {reads}: the refresh token went backwards ({before} → {at})");
            moves += usize::from(at > before);
        }
        last = Some(at);
        reads += 1;
        std::thread::sleep(Duration::from_millis(1));
    }
    Watched { reads, moves }
}

struct StopOnDrop<'a>(&'a AtomicBool);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

#[test]
fn eight_processes_at_expiry_refresh_once_and_the_token_file_is_never_torn() {
    let mut w = World::new("conc");
    for (path, action, key, file) in [
        ("/measure", "getmeas", "measuregrps", "brief_getmeas.json"),
        ("/v2/sleep", "getsummary", "series", "brief_sleep_getsummary.json"),
        ("/v2/measure", "getactivity", "activities", "brief_getactivity.json"),
        ("/v2/heart", "list", "series", "brief_heart_list.json"),
    ] {
        serve(&w.fake, path, action, file, key);
    }
    w.set("WITHINGS_TZ", "+02:00");
    // Widens the window in which the others find the token stale.
    w.fake.refresh_delay(Duration::from_millis(150));
    let path = w.home.token_path();
    let mut t = tokens::load(&path).unwrap().unwrap();
    t.expires_at = BASE - 10;
    tokens::save(&path, &t).unwrap();
    let stop = AtomicBool::new(false);
    let started = Instant::now();
    let watched = std::thread::scope(|scope| {
        let watcher = scope.spawn(|| watch(&path, &w.fake, &stop));
        // Stops the watcher even when an assertion below fails, so the scope can end.
        let _stop = StopOnDrop(&stop);
        for round in 0..ROUNDS {
            let clock = BASE + round * STEP;
            // The old access token dies upstream too, as it does at expiry.
            w.fake.expire_access_tokens();
            let refreshes = w.fake.refreshes();
            let gate = Arc::new(Barrier::new(PROCESSES));
            let runs: Vec<_> = (0..PROCESSES)
                .map(|i| {
                    let tool = match i % 2 {
                        0 => "withings_list_body_measures",
                        _ => "withings_weekly_summary",
                    };
                    let mut cmd = w.command();
                    cmd.env("WITHINGS_MCP_NOW", clock.to_string()).args(["call", tool, "--json", "{}"]);
                    let gate = gate.clone();
                    scope.spawn(move || {
                        gate.wait();
                        (tool, run_bounded(cmd, Duration::from_secs(60)))
                    })
                })
                .collect();
            for h in runs {
                let (tool, r) = h.join().unwrap();
                assert_eq!(r.code, 0, "round {round}, {tool}: {}", r.all());
                w.fake.assert_no_secrets(&r.all());
            }
            assert_eq!(w.fake.refreshes() - refreshes, 1, "round {round}: exactly one upstream refresh");
            let stored = tokens::load(&path).unwrap().unwrap();
            assert_eq!(Some(stored.refresh_token), w.fake.current_refresh_token(), "round {round}");
            assert_eq!(stored.expires_at, clock + 10_800, "round {round}");
        }
        drop(_stop);
        watcher.join().unwrap()
    });
    eprintln!(
        "concurrency: {ROUNDS} rounds × {PROCESSES} processes in {:?}; {} token-file reads",
        started.elapsed(),
        watched.reads
    );
    assert_eq!(watched.moves, ROUNDS as usize, "the watcher saw each refresh land exactly once");
    assert!(watched.reads >= 100, "the watcher ran: {} reads", watched.reads);
    assert_eq!(w.fake.refreshes(), ROUNDS as usize);
}

/// Issue 14: four processes for each of two accounts, all at expiry, in every round. Each
/// account's token family is refreshed exactly once (its own lock), and afterwards each token file
/// holds its own user's current refresh token: no grant lost, none crossed.
#[test]
fn four_processes_for_each_of_two_accounts_refresh_once_per_account_and_lose_no_grant() {
    const PER_ACCOUNT: usize = 4;
    let mut w = World::new("conc-acc");
    serve(&w.fake, "/measure", "getmeas", "brief_getmeas.json", "measuregrps");
    w.set("WITHINGS_TZ", "+02:00");
    w.fake.refresh_delay(Duration::from_millis(150));
    sign_in(&w, "bob", USERID2);
    let files = [(w.home.token_path(), USERID, "default"), (account_tokens(&w, "bob"), USERID2, "bob")];
    for (path, _, _) in &files {
        let mut t = tokens::load(path).unwrap().unwrap();
        t.expires_at = BASE - 10;
        tokens::save(path, &t).unwrap();
    }
    for round in 0..3 {
        let clock = BASE + round * STEP;
        w.fake.expire_access_tokens();
        let before: Vec<usize> = files.iter().map(|(_, u, _)| w.fake.refreshes_of(u)).collect();
        let gate = Arc::new(Barrier::new(2 * PER_ACCOUNT));
        std::thread::scope(|scope| {
            let runs: Vec<_> = (0..2 * PER_ACCOUNT)
                .map(|i| {
                    let account = files[i % 2].2;
                    let mut cmd = w.command();
                    cmd.env("WITHINGS_MCP_NOW", clock.to_string()).args([
                        "--account",
                        account,
                        "call",
                        "withings_list_body_measures",
                    ]);
                    let gate = gate.clone();
                    scope.spawn(move || {
                        gate.wait();
                        (account, run_bounded(cmd, Duration::from_secs(60)))
                    })
                })
                .collect();
            for h in runs {
                let (account, r) = h.join().unwrap();
                assert_eq!(r.code, 0, "round {round}, {account}: {}", r.all());
                let v: Value = serde_json::from_str(&r.stdout).unwrap();
                assert_eq!(v["account"], account);
                w.fake.assert_no_secrets(&r.all());
            }
        });
        for (i, (path, user, account)) in files.iter().enumerate() {
            assert_eq!(w.fake.refreshes_of(user) - before[i], 1, "round {round}: one refresh for {account}");
            let stored = tokens::load(path).unwrap().unwrap();
            assert_eq!(stored.userid.as_deref(), Some(*user), "round {round}: {account}'s file");
            assert_eq!(
                Some(stored.refresh_token),
                w.fake.current_refresh_token_of(user),
                "round {round}: {account}"
            );
        }
    }
    assert_eq!(w.fake.refreshes(), 6, "three rounds, one refresh per account each");
}
