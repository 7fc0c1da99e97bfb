//! Reaching a real account safely: sign-in, tokens, refresh, retries, faults, revoke; against the
//! fake Withings, through the real binary where a command exists and in-process otherwise.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::unix::fs::PermissionsExt;
use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use withings_mcp::store::config::{Config, Env};
use withings_mcp::store::pending;
use withings_mcp::store::tokens::{self, Tokens};
use withings_mcp::tools::{self, Ctx};
use withings_mcp::withings::client::Client;
use withings_mcp::{Error, withings};

use crate::fake::{FakeWithings, Fault, TempHome, USERID, run};

fn now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64
}

fn mode(p: &std::path::Path) -> u32 {
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

fn env_of(home: &TempHome, fake: &FakeWithings, extra: &[(&str, &str)]) -> Env {
    let mut pairs = home.env_pairs(fake);
    pairs.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    let refs: Vec<(&str, &str)> = pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    Env::from_pairs(&refs)
}

fn no_sleep(_: Duration) {}

/// A client on the real HTTP upstream, pointed at the fake; sleeps are skipped but counted.
fn client(home: &TempHome, fake: &FakeWithings, extra: &[(&str, &str)]) -> Client {
    let env = env_of(home, fake, extra);
    let cfg = Config::load(&env).unwrap();
    Client::http(&env, &cfg, now()).unwrap().with_sleep(no_sleep)
}

/// Stores a pair the fake issued, expiring at `expires_at`.
fn store(home: &TempHome, access: &str, refresh: &str, expires_at: i64) {
    let t = Tokens {
        access_token: access.into(),
        refresh_token: refresh.into(),
        expires_at,
        scope: "user.info,user.metrics,user.activity".into(),
        userid: Some(USERID.into()),
        token_type: "Bearer".into(),
        created_at: 0,
    };
    tokens::save(&home.token_path(), &t).unwrap();
}

fn ok_body() -> Value {
    json!({"status": 0, "body": {"ok": 1}})
}

/// Starts a sign-in as `auth` or `withings_get_auth_url` would (its state pending) and returns
/// that state.
fn pending_state(home: &TempHome) -> String {
    let state = withings::oauth::new_state().unwrap();
    pending::add(&home.token_path(), &state, &Default::default(), now()).unwrap();
    state
}

/// The redirect URL Withings sends the browser to after approval of the sign-in `state`.
fn redirect(code: &str, state: &str) -> String {
    format!("http://127.0.0.1:3000/callback?code={code}&state={state}")
}

#[test]
fn auth_code_happy_path_stores_private_tokens_and_prints_none() {
    let fake = FakeWithings::start();
    for tag in ["url", "bare-with-state"] {
        let home = TempHome::new(tag);
        let state = pending_state(&home);
        let mut cmd = home.command(&fake);
        match tag {
            "url" => cmd.args(["auth", "--json", "--code", &redirect(&fake.new_code(), &state)]),
            _ => cmd.args(["auth", "--json", "--code", &fake.new_code(), "--state", &state]),
        };
        let r = run(cmd);
        assert_eq!(r.code, 0, "{}", r.all());
        let v: Value = serde_json::from_str(r.stdout.trim()).unwrap();
        assert_eq!(v["ok"], true);
        assert!(v["scope"].as_str().unwrap().contains("user.metrics"));
        assert_eq!(mode(&home.token_path()), 0o600);
        assert_eq!(mode(&home.state_dir()), 0o700);
        let t = tokens::load(&home.token_path()).unwrap().unwrap();
        assert_eq!(t.userid.as_deref(), Some(USERID));
        assert!(pending::states(&home.token_path(), now()).is_empty(), "{tag}: the sign-in is consumed");
        fake.assert_no_secrets(&r.all());
    }
    let req = fake.requests().into_iter().find(|r| r.path == "/v2/oauth2").unwrap();
    assert_eq!(req.get("grant_type"), Some("authorization_code"));
    assert_eq!(req.get("redirect_uri"), Some("http://127.0.0.1:3000/callback"));
}

#[test]
fn expired_or_reused_code_gets_a_clear_message() {
    let fake = FakeWithings::start();
    let home = TempHome::new("expired");
    let code = fake.new_code();
    let first = run({
        let mut c = home.command(&fake);
        c.args(["auth", "--code", &redirect(&code, &pending_state(&home))]);
        c
    });
    assert_eq!(first.code, 0, "{}", first.all());
    for input in [code.as_str(), "never-issued"] {
        let mut c = home.command(&fake);
        c.args(["auth", "--code", &redirect(input, &pending_state(&home))]);
        let r = run(c);
        assert_eq!(r.code, 1);
        assert!(r.stderr.contains("expired or already used"), "{}", r.stderr);
        assert!(r.stderr.starts_with("withings-mcp: "), "{}", r.stderr);
        fake.assert_no_secrets(&r.all());
    }
}

pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// A raw GET to the listener; returns the status line.
pub fn get(port: u16, target: &str) -> String {
    page(port, target).lines().next().unwrap_or_default().to_string()
}

/// A raw GET to the listener; returns the whole response (status line, headers, page).
pub fn page(port: u16, target: &str) -> String {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(s, "GET {target} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n").unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    out
}

#[test]
fn callback_listener_ignores_callbacks_without_its_state_keeps_waiting_then_exchanges() {
    let fake = FakeWithings::start();
    let home = TempHome::new("listener");
    let port = free_port();
    let mut cmd = home.command(&fake);
    cmd.env("WITHINGS_REDIRECT_URI", format!("http://127.0.0.1:{port}/callback"));
    cmd.args(["auth", "--no-open", "--json", "--timeout", "30"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut captured = String::new();
    let url = loop {
        let mut line = String::new();
        assert!(stderr.read_line(&mut line).unwrap() > 0, "no URL printed: {captured}");
        captured.push_str(&line);
        if line.starts_with(&fake.url) {
            break line.trim().to_string();
        }
    };
    assert!(url.contains("/oauth2_user/authorize2?response_type=code&client_id=test_client_id_0001"));
    let state = url.split("state=").nth(1).unwrap().to_string();
    assert_eq!(state.len(), 32);
    let code = fake.new_code();
    assert!(get(port, &format!("/callback?code={code}&state=forged")).contains("400"));
    assert!(get(port, "/favicon.ico").contains("404"));
    // Any page can send the browser here: without this sign-in's state, an error (or a code) is
    // answered with a short page and ignored, and the listener keeps waiting.
    for target in [
        "/callback?error=access_denied".to_string(),
        "/callback?error=access_denied&state=forged".to_string(),
        format!("/callback?code={code}"),
    ] {
        let p = page(port, &target);
        assert!(p.starts_with("HTTP/1.1 400"), "{target}: {p}");
        assert!(p.contains("Still waiting"), "{target}: {p}");
    }
    assert!(get(port, &format!("/callback?code={code}&state={state}")).contains("200"));
    let status = child.wait().unwrap();
    let mut out = String::new();
    child.stdout.take().unwrap().read_to_string(&mut out).unwrap();
    stderr.read_to_string(&mut captured).unwrap();
    assert!(status.success(), "{out}{captured}");
    assert_eq!(serde_json::from_str::<Value>(out.trim()).unwrap()["ok"], true);
    assert!(captured.contains("ignored a callback request"), "{captured}");
    assert!(home.token_path().exists());
    // The forged request did not consume the code: exactly one exchange happened.
    assert_eq!(fake.count("/v2/oauth2", "requesttoken"), 1);
    fake.assert_no_secrets(&format!("{out}{captured}"));
}

#[test]
fn callback_listener_times_out_and_access_denied_fails_clearly() {
    let fake = FakeWithings::start();
    let home = TempHome::new("timeout");
    let port = free_port();
    let mut cmd = home.command(&fake);
    cmd.env("WITHINGS_REDIRECT_URI", format!("http://127.0.0.1:{port}/callback"));
    cmd.env("WITHINGS_AUTH_TIMEOUT", "1");
    cmd.args(["auth", "--no-open"]);
    let r = run(cmd);
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("timed out after 1 s"), "{}", r.stderr);

    let port = free_port();
    let mut cmd = home.command(&fake);
    cmd.env("WITHINGS_REDIRECT_URI", format!("http://127.0.0.1:{port}/cb"));
    cmd.args(["auth", "--no-open", "--timeout", "30"]).stderr(Stdio::piped()).stdout(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    while !line.starts_with(&fake.url) {
        line.clear();
        assert!(stderr.read_line(&mut line).unwrap() > 0);
    }
    // Declined on the Withings page: the redirect carries this sign-in's state and an error.
    let state = line.trim().split("state=").nth(1).unwrap().to_string();
    assert!(get(port, &format!("/cb?error=access_denied&state={state}")).contains("400"));
    assert_eq!(child.wait().unwrap().code(), Some(1));
    let mut rest = String::new();
    stderr.read_to_string(&mut rest).unwrap();
    assert!(rest.contains("access was denied"), "{rest}");
}

#[test]
fn non_loopback_redirect_says_only_code_works() {
    let fake = FakeWithings::start();
    let home = TempHome::new("nonloop");
    let mut cmd = home.command(&fake);
    cmd.env("WITHINGS_REDIRECT_URI", "https://example.com/withings/callback");
    cmd.args(["auth", "--no-open"]);
    let r = run(cmd);
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("--code") && r.stderr.contains("/oauth2_user/authorize2"), "{}", r.stderr);
}

#[test]
fn stale_token_is_refreshed_once_and_a_refresh_without_refresh_token_keeps_the_old_one() {
    let fake = FakeWithings::start();
    let home = TempHome::new("norefresh");
    let (a, r) = fake.issue_pair();
    store(&home, &a, &r, now() + 60);
    fake.on("/measure", "getmeas", |_| ok_body());
    fake.omit_refresh_token(true);
    let mut c = client(&home, &fake, &[]);
    assert_eq!(c.call("/measure", "getmeas", &[("category", "1".into())]).unwrap()["ok"], 1);
    let t = tokens::load(&home.token_path()).unwrap().unwrap();
    assert_eq!(t.refresh_token, r, "the old refresh token is kept");
    assert_ne!(t.access_token, a);
    assert_eq!(t.userid.as_deref(), Some(USERID));
    assert_eq!(fake.refreshes(), 1);
    // The kept refresh token still works upstream.
    fake.omit_refresh_token(false);
    store(&home, &t.access_token, &t.refresh_token, now() + 60);
    client(&home, &fake, &[]).call("/measure", "getmeas", &[]).unwrap();
    assert_eq!(fake.refreshes(), 2);
}

#[test]
fn auth_status_on_a_data_call_refreshes_once_then_retries() {
    let fake = FakeWithings::start();
    let home = TempHome::new("401");
    let (a, r) = fake.issue_pair();
    store(&home, &a, &r, now() + 10_000);
    fake.on("/v2/measure", "getactivity", |_| ok_body());
    fake.expire_access_tokens();
    let mut c = client(&home, &fake, &[]);
    c.call("/v2/measure", "getactivity", &[]).unwrap();
    assert_eq!(c.requests_sent(), 3);
    assert_eq!(fake.refreshes(), 1);
    // Bearer header, not a form field.
    let last = fake.requests().pop().unwrap();
    assert!(last.auth.as_deref().unwrap().starts_with("Bearer acc"));
    assert!(last.get("access_token").is_none());
    // A refused refresh token means re-auth, with advice.
    let home2 = TempHome::new("401b");
    store(&home2, "acc-unknown", "ref-unknown", now() + 10_000);
    let err = client(&home2, &fake, &[]).call("/v2/measure", "getactivity", &[]).unwrap_err();
    assert!(matches!(*err, Error::NeedsAuth(_)), "{err}");
    assert!(err.to_string().contains("withings-mcp auth"), "{err}");
}

#[test]
fn transient_faults_are_retried_within_bounds() {
    let fake = FakeWithings::start();
    let home = TempHome::new("faults");
    let (a, r) = fake.issue_pair();
    store(&home, &a, &r, now() + 10_000);
    fake.on("/measure", "getmeas", |_| ok_body());

    fake.fail("/measure", "getmeas", Fault::Status(601), 2);
    let mut c = client(&home, &fake, &[]);
    c.call("/measure", "getmeas", &[]).unwrap();
    assert_eq!(c.requests_sent(), 3);

    fake.fail(
        "/measure",
        "getmeas",
        Fault::Http { code: 503, body: "<html>busy</html>".into(), retry_after: Some(2) },
        1,
    );
    let mut c = client(&home, &fake, &[]);
    c.call("/measure", "getmeas", &[]).unwrap();
    assert_eq!(c.requests_sent(), 2);
    assert!(c.slept_ms() >= 2000, "Retry-After honoured: {}", c.slept_ms());

    fake.fail("/measure", "getmeas", Fault::Status(601), 3);
    let mut c = client(&home, &fake, &[]);
    let err = c.call("/measure", "getmeas", &[]).unwrap_err();
    assert!(matches!(*err, Error::RateLimited { .. }), "{err}");
    assert_eq!(c.requests_sent(), 3, "bounded");

    // WITHINGS_NO_RETRY=1: one try only.
    fake.fail("/measure", "getmeas", Fault::Status(522), 1);
    let mut c = client(&home, &fake, &[("WITHINGS_NO_RETRY", "1")]);
    assert!(c.call("/measure", "getmeas", &[]).unwrap_err().to_string().contains("status 522"));
    assert_eq!(c.requests_sent(), 1);
}

#[test]
fn timeouts_malformed_json_and_html_are_clear_transport_errors() {
    let fake = FakeWithings::start();
    let home = TempHome::new("bad");
    let (a, r) = fake.issue_pair();
    store(&home, &a, &r, now() + 10_000);
    fake.on("/measure", "getmeas", |_| ok_body());
    let cases: Vec<(Fault, &str)> = vec![
        (Fault::Delay(Duration::from_millis(2500)), "timeout"),
        (
            Fault::Http {
                code: 200,
                body: "{\"status\":0,\"body\":{\"measuregrps\":[".into(),
                retry_after: None,
            },
            "non-JSON answer (HTTP 200)",
        ),
        (
            Fault::Http {
                code: 200,
                body: "<html><body>Sign in SECRETPAGE</body></html>".into(),
                retry_after: None,
            },
            "non-JSON answer (HTTP 200)",
        ),
    ];
    for (fault, want) in cases {
        fake.fail("/measure", "getmeas", fault, 1);
        let mut c = client(&home, &fake, &[("WITHINGS_NO_RETRY", "1"), ("WITHINGS_HTTP_TIMEOUT_SECS", "1")]);
        let err = c.call("/measure", "getmeas", &[]).unwrap_err().to_string();
        assert!(err.contains(want) && err.contains("/measure getmeas"), "{err}");
        assert!(!err.contains("SECRETPAGE") && !err.contains("measuregrps"), "body leaked: {err}");
        fake.assert_no_secrets(&err);
    }
    // A timeout is retried, then succeeds.
    fake.fail("/measure", "getmeas", Fault::Delay(Duration::from_millis(1500)), 1);
    let mut c = client(&home, &fake, &[("WITHINGS_HTTP_TIMEOUT_SECS", "1")]);
    c.call("/measure", "getmeas", &[]).unwrap();
    assert_eq!(c.requests_sent(), 2);
}

#[test]
fn bad_token_files_get_advice_and_are_never_overwritten_blindly() {
    let fake = FakeWithings::start();
    fake.on("/measure", "getmeas", |_| ok_body());
    let cases: &[(&str, u32, &str, &str)] = &[
        ("{broken", 0o600, "not valid token JSON", "token_file"),
        (
            "{\"access_token\":\"x\",\"refresh_token\":\"y\",\"expires_at\":1}",
            0o644,
            "chmod 600",
            "token_permissions",
        ),
    ];
    for (text, m, advice, check) in cases {
        let home = TempHome::new("badfile");
        std::fs::create_dir_all(home.state_dir()).unwrap();
        std::fs::write(home.token_path(), text).unwrap();
        std::fs::set_permissions(home.token_path(), std::fs::Permissions::from_mode(*m)).unwrap();
        let err = client(&home, &fake, &[]).call("/measure", "getmeas", &[]).unwrap_err().to_string();
        assert!(err.contains(advice), "{err}");
        assert_eq!(std::fs::read_to_string(home.token_path()).unwrap(), *text);
        let mut c = home.command(&fake);
        c.args(["doctor", "--json", "--strict"]);
        let r = run(c);
        assert_eq!(r.code, 1, "{}", r.all());
        let v: Value = serde_json::from_str(r.stdout.trim()).unwrap();
        assert_eq!(v["ready"], false);
        let failed = v["checks"].as_array().unwrap().iter().find(|c| c["id"] == *check).unwrap();
        assert_eq!(failed["ok"], false, "{failed}");
        assert_eq!(std::fs::read_to_string(home.token_path()).unwrap(), *text);
        // A successful sign-in replaces the bad file.
        let mut c = home.command(&fake);
        c.args(["auth", "--code", &redirect(&fake.new_code(), &pending_state(&home))]);
        let r = run(c);
        assert_eq!(r.code, 0, "{}", r.all());
        assert_eq!(mode(&home.token_path()), 0o600);
        assert!(tokens::load(&home.token_path()).unwrap().is_some());
    }
}

#[test]
fn two_processes_refreshing_at_once_refresh_once_and_keep_the_grant() {
    let fake = FakeWithings::start();
    let home = TempHome::new("race");
    let (a, r) = fake.issue_pair();
    store(&home, &a, &r, now() + 10);
    fake.on("/measure", "getmeas", |_| ok_body());
    fake.refresh_delay(Duration::from_millis(300));
    let env = env_of(&home, &fake, &[]);
    let handles: Vec<_> = (0..2)
        .map(|_| {
            let env = env.clone();
            std::thread::spawn(move || {
                let cfg = Config::load(&env).unwrap();
                let mut c = Client::http(&env, &cfg, now()).unwrap();
                c.call("/measure", "getmeas", &[]).map(|_| ()).map_err(|e| e.to_string())
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap().unwrap();
    }
    assert_eq!(fake.refreshes(), 1, "exactly one refresh upstream");
    let t = tokens::load(&home.token_path()).unwrap().unwrap();
    assert_eq!(
        Some(t.refresh_token.clone()),
        fake.current_refresh_token(),
        "the stored grant is the live one"
    );
    // The grant survives: a later refresh with the stored refresh token works.
    store(&home, &t.access_token, &t.refresh_token, now() + 10);
    client(&home, &fake, &[]).call("/measure", "getmeas", &[]).unwrap();
    assert_eq!(fake.refreshes(), 2);
}

#[test]
fn revoke_is_signed_upstream_then_deletes_local_tokens() {
    let fake = FakeWithings::start();
    let home = TempHome::new("revoke");
    let (a, r) = fake.issue_pair();
    store(&home, &a, &r, now() + 10_000);
    let ctx = Ctx::new(env_of(&home, &fake, &[]), now());
    let tool = tools::find("withings_revoke_access").unwrap();
    let err = tools::run(&ctx, tool, &json!({})).unwrap_err().to_string();
    assert!(err.contains("explicit_user_intent"), "{err}");
    assert!(home.token_path().exists());
    let out = tools::run(&ctx, tool, &json!({"explicit_user_intent": true})).unwrap();
    assert_eq!(out.structured.tree()["upstream_revoked"], true, "{}", out.markdown);
    assert_eq!(out.structured.tree()["local_tokens_deleted"], true);
    assert!(!home.token_path().exists());
    assert_eq!(fake.revoked(), vec![USERID.to_string()]);
    let reqs = fake.requests();
    let revoke = reqs.iter().find(|r| r.action() == "revoke").unwrap();
    assert!(revoke.auth.is_none() && revoke.get("client_secret").is_none());
    fake.assert_no_secrets(&format!("{}{}", out.structured.tree(), out.markdown));
}

#[test]
fn tool_flow_get_auth_url_then_exchange_checks_the_state() {
    let fake = FakeWithings::start();
    let home = TempHome::new("toolflow");
    let ctx = Ctx::new(env_of(&home, &fake, &[]), now());
    let url = tools::run(&ctx, tools::find("withings_get_auth_url").unwrap(), &json!({})).unwrap();
    let state = url.structured.tree()["state"].as_str().unwrap().to_string();
    let exchange = tools::find("withings_exchange_code").unwrap();
    let forged = format!("http://127.0.0.1:3000/callback?code={}&state=forged", fake.new_code());
    assert!(tools::run(&ctx, exchange, &json!({"code": forged})).is_err());
    let good = format!("http://127.0.0.1:3000/callback?code={}&state={state}", fake.new_code());
    let out = tools::run(&ctx, exchange, &json!({"code": good})).unwrap();
    assert_eq!(out.structured.tree()["state_checked"], true);
    assert!(home.token_path().exists());
    fake.assert_no_secrets(&format!("{}{}", out.structured.tree(), out.markdown));
    let _ = withings::oauth::TOKEN_PATH;
}

#[test]
fn setup_writes_a_private_config_merging_existing_keys_then_doctor_sees_it() {
    let fake = FakeWithings::start();
    let home = TempHome::new("setup");
    std::fs::create_dir_all(home.state_dir()).unwrap();
    std::fs::write(home.state_dir().join("config.json"), r#"{"WITHINGS_TZ":"Europe/Paris"}"#).unwrap();
    let mut c = home.command(&fake);
    c.env_remove("WITHINGS_CLIENT_ID").env_remove("WITHINGS_CLIENT_SECRET");
    c.args(["setup", "--non-interactive", "--no-auth", "--json", "--client-id", "cid9", "--client-secret"]);
    c.arg(crate::fake::CLIENT_SECRET);
    let r = run(c);
    assert_eq!(r.code, 0, "{}", r.all());
    let cfg = home.state_dir().join("config.json");
    assert_eq!(mode(&cfg), 0o600);
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&cfg).unwrap()).unwrap();
    assert_eq!(
        (v["WITHINGS_TZ"].as_str(), v["WITHINGS_CLIENT_ID"].as_str()),
        (Some("Europe/Paris"), Some("cid9"))
    );
    fake.assert_no_secrets(&r.all());
    // Without an id and not on a terminal: a usage error when auth would run…
    let mut c = home.command(&fake);
    c.env_remove("WITHINGS_CLIENT_ID");
    std::fs::remove_file(&cfg).unwrap();
    c.args(["setup", "--non-interactive"]);
    let r = run(c);
    assert_eq!(r.code, 2, "{}", r.all());
    assert!(r.stderr.contains("WITHINGS_CLIENT_ID"), "{}", r.all());
    assert!(!cfg.exists(), "nothing is written on a usage error");
    // …but wiring without signing in works and says what is missing.
    let mut c = home.command(&fake);
    c.env_remove("WITHINGS_CLIENT_ID");
    c.args(["setup", "--non-interactive", "--no-auth"]);
    let r = run(c);
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(r.stdout.contains("WITHINGS_CLIENT_ID is not set yet"), "{}", r.all());
}
