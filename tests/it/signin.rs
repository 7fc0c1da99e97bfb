//! Issue 11 (CONTRACT §8.2): signing in from a headless host, pasted codes checked against pending
//! sign-ins, and no secret in any text, whatever Withings echoes; through the real binary.

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::process::{Child, ChildStderr, Stdio};

use serde_json::{Value, json};
use withings_mcp::store::pending;
use withings_mcp::store::tokens::{self, Tokens};

use crate::access::{free_port, page};
use crate::fake::{Echo, FakeWithings, Fault, Run, TempHome, USERID, run};

fn now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64
}

/// `auth --no-open` waiting on a free port; returns the child, its stderr (after the URL), what it
/// printed up to the URL, the URL, the redirect URI and the port.
pub struct Listener {
    child: Child,
    stderr: BufReader<ChildStderr>,
    printed: String,
    url: String,
    redirect_uri: String,
    pub port: u16,
}

impl Listener {
    pub fn start(home: &TempHome, fake: &FakeWithings, args: &[&str]) -> Listener {
        let port = free_port();
        let redirect_uri = format!("http://127.0.0.1:{port}/callback");
        let mut cmd = home.command(fake);
        cmd.env("WITHINGS_REDIRECT_URI", &redirect_uri);
        cmd.args(["auth", "--no-open", "--timeout", "60"]).args(args);
        cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = cmd.spawn().unwrap();
        let mut stderr = BufReader::new(child.stderr.take().unwrap());
        let mut printed = String::new();
        let url = loop {
            let mut line = String::new();
            assert!(stderr.read_line(&mut line).unwrap() > 0, "no URL printed: {printed}");
            printed.push_str(&line);
            if line.starts_with(&fake.url) {
                break line.trim_end_matches('\n').to_string();
            }
        };
        // Up to the hint that follows the URL.
        while !printed.contains("auth --code") {
            let mut line = String::new();
            assert!(stderr.read_line(&mut line).unwrap() > 0, "no --code hint: {printed}");
            printed.push_str(&line);
        }
        Listener { child, stderr, printed, url, redirect_uri, port }
    }

    pub fn state(&self) -> String {
        self.url.split("state=").nth(1).unwrap().to_string()
    }

    /// Waits for the process; its exit code, stdout and the rest of its stderr.
    pub fn finish(mut self) -> Run {
        let status = self.child.wait().unwrap();
        let mut stdout = String::new();
        self.child.stdout.take().unwrap().read_to_string(&mut stdout).unwrap();
        let mut stderr = self.printed;
        self.stderr.read_to_string(&mut stderr).unwrap();
        Run { code: status.code().unwrap_or(-1), stdout, stderr }
    }
}

fn auth_code(home: &TempHome, fake: &FakeWithings, env: &[(&str, &str)], args: &[&str]) -> Run {
    let mut c = home.command(fake);
    c.envs(env.iter().copied());
    c.arg("auth").args(args);
    run(c)
}

#[test]
fn headless_sign_in_across_two_processes() {
    let fake = FakeWithings::start();
    let home = TempHome::new("headless");
    let listener = Listener::start(&home, &fake, &["--json"]);
    // The URL alone on its line, then what to do next.
    assert!(listener.printed.lines().any(|l| l == listener.url), "{}", listener.printed);
    assert!(
        listener.printed.contains("withings-mcp auth --code '<the whole redirect URL>'"),
        "{}",
        listener.printed
    );
    let state = listener.state();
    assert_eq!(state.len(), 32);
    // Pending, privately, for 15 minutes.
    let file = pending::path(&home.token_path());
    assert_eq!(std::fs::metadata(&file).unwrap().permissions().mode() & 0o777, 0o600);
    assert_eq!(pending::states(&home.token_path(), now()), std::slice::from_ref(&state));

    let url = format!("{}?code={}&state={state}", listener.redirect_uri, fake.new_code());
    // Sixteen minutes later the sign-in is no longer pending: refused, nothing exchanged.
    let later = (now() + 16 * 60).to_string();
    let late = auth_code(&home, &fake, &[("WITHINGS_MCP_NOW", &later)], &["--code", &url]);
    assert_eq!(late.code, 1, "{}", late.all());
    assert!(late.stderr.contains("matches no pending sign-in"), "{}", late.stderr);
    assert_eq!(fake.count("/v2/oauth2", "requesttoken"), 0);

    // Another process, in time: accepted, tokens stored, the state consumed.
    let pasted = auth_code(&home, &fake, &[], &["--code", &url]);
    assert_eq!(pasted.code, 0, "{}", pasted.all());
    assert!(pasted.stdout.contains("Withings connected"), "{}", pasted.stdout);
    let t = tokens::load(&home.token_path()).unwrap().unwrap();
    assert_eq!(t.userid.as_deref(), Some(USERID));
    assert!(pending::states(&home.token_path(), now()).is_empty());
    let again = auth_code(&home, &fake, &[], &["--code", &url]);
    assert_eq!(again.code, 1, "a state completes once: {}", again.all());

    // The waiting listener sees its sign-in completed and ends with the same result.
    let first = listener.finish();
    assert_eq!(first.code, 0, "{}", first.all());
    let v: Value = serde_json::from_str(first.stdout.trim()).unwrap();
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(fake.count("/v2/oauth2", "requesttoken"), 1);
    for r in [&late, &pasted, &again, &first] {
        fake.assert_no_secrets(&r.all());
    }
}

#[test]
fn a_busy_callback_port_still_leaves_the_paste_route_open() {
    let fake = FakeWithings::start();
    let home = TempHome::new("busy");
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let redirect_uri = format!("http://127.0.0.1:{}/callback", taken.local_addr().unwrap().port());
    let mut c = home.command(&fake);
    c.env("WITHINGS_REDIRECT_URI", &redirect_uri).args(["auth", "--no-open"]);
    let r = run(c);
    assert_eq!(r.code, 1, "{}", r.all());
    let url = r.stderr.lines().find(|l| l.starts_with(&fake.url)).unwrap_or_else(|| panic!("{}", r.stderr));
    assert!(r.stderr.contains("auth --code '<the whole redirect URL>'"), "{}", r.stderr);
    assert!(r.stderr.lines().last().unwrap().contains("cannot listen"), "{}", r.stderr);
    let state = url.split("state=").nth(1).unwrap();
    let pasted = format!("{redirect_uri}?code={}&state={state}", fake.new_code());
    let mut c = home.command(&fake);
    c.env("WITHINGS_REDIRECT_URI", &redirect_uri);
    c.args(["auth", "--code", &pasted]);
    let r = run(c);
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(home.token_path().exists());
    drop(taken);
}

/// A connected account (a pair the fake issued) and its token file's bytes.
fn connected(home: &TempHome, fake: &FakeWithings) -> Vec<u8> {
    let (access, refresh) = fake.issue_pair();
    let t = Tokens {
        access_token: access,
        refresh_token: refresh,
        expires_at: now() + 3 * 3600,
        scope: "user.info,user.metrics,user.activity".into(),
        userid: Some(USERID.into()),
        token_type: "Bearer".into(),
        created_at: now() - 60,
    };
    tokens::save(&home.token_path(), &t).unwrap();
    std::fs::read(home.token_path()).unwrap()
}

fn call(home: &TempHome, fake: &FakeWithings, env: &[(&str, &str)], tool: &str, args: Value) -> Run {
    let mut c = home.command(fake);
    c.envs(env.iter().copied());
    c.args(["call", tool, "--json", &args.to_string()]);
    run(c)
}

#[test]
fn wrong_state_and_bare_codes_are_refused_and_the_tokens_stay_byte_identical() {
    let fake = FakeWithings::start();
    let home = TempHome::new("refused");
    let before = connected(&home, &fake);
    let started = call(&home, &fake, &[], "withings_get_auth_url", json!({}));
    assert_eq!(started.code, 0, "{}", started.all());
    let state =
        serde_json::from_str::<Value>(&started.stdout).unwrap()["state"].as_str().unwrap().to_string();
    let code = fake.new_code();
    let forged = format!("http://127.0.0.1:3000/callback?code={code}&state=forged");
    let later = (now() + 16 * 60).to_string();
    // (what, the run, words of the refusal)
    let runs = [
        (
            "auth: wrong state",
            auth_code(&home, &fake, &[], &["--code", &forged]),
            "matches no pending sign-in",
        ),
        ("auth: bare code", auth_code(&home, &fake, &[], &["--code", &code]), "whole redirect URL"),
        (
            "auth: bare code, wrong --state",
            auth_code(&home, &fake, &[], &["--code", &code, "--state", "forged"]),
            "matches no pending sign-in",
        ),
        (
            "auth: --state differs from the URL's",
            auth_code(&home, &fake, &[], &["--code", &forged, "--state", &state]),
            "differs",
        ),
        (
            "tool: wrong state",
            call(&home, &fake, &[], "withings_exchange_code", json!({"code": forged})),
            "matches no pending sign-in",
        ),
        (
            "tool: bare code while a sign-in is pending",
            call(&home, &fake, &[], "withings_exchange_code", json!({"code": code})),
            "pass the whole redirect URL",
        ),
        (
            "tool: bare code, nothing pending, an account connected",
            call(
                &home,
                &fake,
                &[("WITHINGS_MCP_NOW", &later)],
                "withings_exchange_code",
                json!({"code": code}),
            ),
            "already connected",
        ),
    ];
    for (what, r, words) in &runs {
        assert_eq!(r.code, 1, "{what}: {}", r.all());
        assert!(r.stderr.starts_with("withings-mcp: ") && r.stderr.contains(words), "{what}: {}", r.stderr);
        assert_eq!(std::fs::read(home.token_path()).unwrap(), before, "{what}: tokens changed");
        fake.assert_no_secrets(&r.all());
    }
    assert_eq!(fake.count("/v2/oauth2", "requesttoken"), 0, "nothing was exchanged");

    // The right redirect URL completes the pending sign-in, checked.
    let url = format!("http://127.0.0.1:3000/callback?code={code}&state={state}");
    let ok = call(&home, &fake, &[], "withings_exchange_code", json!({"code": url}));
    assert_eq!(ok.code, 0, "{}", ok.all());
    assert_eq!(serde_json::from_str::<Value>(&ok.stdout).unwrap()["state_checked"], true);
    assert_ne!(std::fs::read(home.token_path()).unwrap(), before);
}

#[test]
fn a_bare_code_connects_a_first_account_only_when_nothing_is_pending() {
    let fake = FakeWithings::start();
    let home = TempHome::new("first");
    let r = call(&home, &fake, &[], "withings_exchange_code", json!({"code": fake.new_code()}));
    assert_eq!(r.code, 0, "{}", r.all());
    assert_eq!(serde_json::from_str::<Value>(&r.stdout).unwrap()["state_checked"], false);
    assert!(home.token_path().exists());
    // The command asks for a state even then: it can always start a sign-in of its own.
    let home = TempHome::new("first-cmd");
    let r = auth_code(&home, &fake, &[], &["--code", &fake.new_code()]);
    assert_eq!(r.code, 1, "{}", r.all());
    assert!(r.stderr.contains("--state"), "{}", r.stderr);
    assert!(!home.token_path().exists());
}

/// Every text of a stdio session (initialize, logging at debug, one tool call with a progress
/// token), joined.
fn session(home: &TempHome, fake: &FakeWithings, tool: &str, args: Value) -> String {
    let input = [
        json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"it","version":"1"}}}),
        json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
        json!({"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"debug"}}),
        json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":tool,"arguments":args,"_meta":{"progressToken":"p"}}}),
    ];
    let text: String = input.iter().map(|m| format!("{m}\n")).collect();
    let mut c = home.command(fake);
    c.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = c.spawn().unwrap();
    child.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let reply = stdout.lines().filter_map(|l| serde_json::from_str::<Value>(l).ok()).find(|v| v["id"] == 2);
    assert_eq!(reply.as_ref().map(|r| &r["result"]["isError"]), Some(&json!(true)), "{stdout}");
    format!("{stdout}\n{}", String::from_utf8_lossy(&out.stderr))
}

#[test]
fn secrets_echoed_by_withings_reach_no_output_no_result_and_no_page() {
    let fake = FakeWithings::start();
    fake.on("/measure", "getmeas", |_| json!({"status": 0, "body": {"measuregrps": [], "more": 0}}));
    // 9999 is no known family: Withings' text is shown (scrubbed) rather than replaced by ours.
    let mut seen = Vec::new();
    for how in [Echo::Pairs, Echo::Json, Echo::Bare] {
        // A pasted redirect whose exchange Withings refuses, echoing the client secret and code.
        let home = TempHome::new("echo-paste");
        let state = withings_mcp::withings::oauth::new_state().unwrap();
        pending::add(&home.token_path(), &state, &Default::default(), now()).unwrap();
        fake.fail("/v2/oauth2", "requesttoken", Fault::Echo(9999, how), 1);
        let url = format!("http://127.0.0.1:3000/callback?code={}&state={state}", fake.new_code());
        let r = auth_code(&home, &fake, &[], &["--json", "--code", &url]);
        assert_eq!(r.code, 1, "{}", r.all());
        seen.push(r.all());

        // The same at the callback listener: the page after the failed exchange.
        let home = TempHome::new("echo-page");
        let listener = Listener::start(&home, &fake, &[]);
        fake.fail("/v2/oauth2", "requesttoken", Fault::Echo(9999, how), 1);
        let target = format!("/callback?code={}&state={}", fake.new_code(), listener.state());
        let p = page(listener.port, &target);
        assert!(p.starts_with("HTTP/1.1 400") && p.contains("Sign-in failed"), "{p}");
        seen.push(p);
        let r = listener.finish();
        assert_eq!(r.code, 1, "{}", r.all());
        seen.push(r.all());

        // A data call whose answer echoes the bearer token, the refresh token and the secret:
        // the tool result, notifications and logs of a stdio session, and `call`'s output.
        let home = TempHome::new("echo-data");
        connected(&home, &fake);
        fake.fail("/measure", "getmeas", Fault::Echo(9999, how), 2);
        seen.push(session(&home, &fake, "withings_list_body_measures", json!({})));
        let r = call(&home, &fake, &[], "withings_list_body_measures", json!({}));
        assert_eq!(r.code, 1, "{}", r.all());
        seen.push(r.all());

        // A refresh whose answer echoes the refresh token in flight.
        let home = TempHome::new("echo-refresh");
        let (access, refresh) = fake.issue_pair();
        let stale = Tokens {
            access_token: access,
            refresh_token: refresh,
            expires_at: now() - 60,
            scope: "user.metrics".into(),
            userid: Some(USERID.into()),
            token_type: "Bearer".into(),
            created_at: 0,
        };
        tokens::save(&home.token_path(), &stale).unwrap();
        fake.fail("/v2/oauth2", "requesttoken", Fault::Echo(9999, how), 1);
        let r = call(&home, &fake, &[], "withings_list_body_measures", json!({}));
        assert_eq!(r.code, 1, "{}", r.all());
        seen.push(r.all());
    }
    for text in &seen {
        fake.assert_no_secrets(text);
        // The echo was shown, scrubbed, not dropped: the scrubbing is what the scan tests.
        assert!(text.contains("[redacted]"), "{text}");
    }
}
