//! Issue 14 (CONTRACT §8.4): several people on one install, through the real binary against a
//! fake Withings that serves two users with separate token families.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use withings_mcp::store::accounts::Account;
use withings_mcp::store::pending;
use withings_mcp::store::tokens::{self, Tokens};

use crate::access::page as http_get;
use crate::data::{NOW, World, tool_call};
use crate::fake::{USERID, USERID2, fixture_json, run};
use crate::signin::Listener;

/// The token file of a named account.
pub fn account_tokens(w: &World, name: &str) -> PathBuf {
    w.home.state_dir().join("accounts").join(name).join("tokens.json")
}

/// Signs `user` in as account `name`, as `auth --account NAME` would have.
pub fn sign_in(w: &World, name: &str, user: &str) {
    let (access, refresh) = w.fake.issue_pair_for(user);
    let t = Tokens {
        access_token: access,
        refresh_token: refresh,
        expires_at: NOW + 10 * 365 * 86_400,
        scope: "user.info,user.metrics,user.activity".into(),
        userid: Some(user.into()),
        token_type: "Bearer".into(),
        created_at: NOW - 60,
    };
    tokens::save(&account_tokens(w, name), &t).unwrap();
}

/// Daily activity whose steps say whose token asked: 1111 for `USERID`, 2222 for `USERID2`.
fn serve_activity_by_user(w: &World) {
    let doc = fixture_json("e2e/getactivity.json");
    w.fake.on("/v2/measure", "getactivity", move |rec| {
        let mut v = crate::data::page(&doc, rec, "activities");
        let steps = match rec.user.as_deref() {
            Some(USERID2) => 2222,
            _ => 1111,
        };
        for a in v["body"]["activities"].as_array_mut().unwrap() {
            a["steps"] = json!(steps);
        }
        v
    });
}

fn mode(p: &Path) -> u32 {
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

#[test]
fn each_account_reads_with_its_own_token() {
    let mut w = World::new("acc-own");
    sign_in(&w, "bob", USERID2);
    serve_activity_by_user(&w);
    let args = |a: Value| a.to_string();
    // (extra environment, arguments, account answered, Withings user asked)
    let cases: Vec<(Option<&str>, Vec<String>, &str, &str)> = vec![
        (None, vec!["call".into(), "withings_list_activity".into()], "default", USERID),
        (
            None,
            ["--account", "bob", "call", "withings_list_activity"].map(String::from).into(),
            "bob",
            USERID2,
        ),
        (
            None,
            ["call", "withings_list_activity", "--account", "bob"].map(String::from).into(),
            "bob",
            USERID2,
        ),
        (
            None,
            vec![
                "call".into(),
                "withings_list_activity".into(),
                "--json".into(),
                args(json!({"account": "bob"})),
            ],
            "bob",
            USERID2,
        ),
        (Some("bob"), vec!["call".into(), "withings_list_activity".into()], "bob", USERID2),
        (
            Some("bob"),
            vec![
                "call".into(),
                "withings_list_activity".into(),
                "--json".into(),
                args(json!({"account": "default"})),
            ],
            "default",
            USERID,
        ),
    ];
    for (env, argv, account, user) in cases {
        let before = w.fake.requests().len();
        let mut c = w.command();
        if let Some(a) = env {
            c.env("WITHINGS_ACCOUNT", a);
        }
        c.args(&argv);
        let r = run(c);
        assert_eq!(r.code, 0, "{argv:?}: {}", r.all());
        let v: Value = serde_json::from_str(&r.stdout).unwrap();
        assert_eq!(v["account"], account, "{argv:?}");
        let steps = if user == USERID { 1111.0 } else { 2222.0 };
        assert!(
            v["records"].as_array().unwrap().iter().all(|x| x["steps"].as_f64() == Some(steps)),
            "{argv:?}"
        );
        let sent = &w.fake.requests()[before..];
        assert!(!sent.is_empty());
        for rec in sent {
            assert_eq!(
                rec.user.as_deref(),
                Some(user),
                "{argv:?}: {} carried another user's token",
                rec.path
            );
        }
    }
    // One session reaches every account through the argument, each call with its own token.
    w.set("WITHINGS_ACCOUNT", "default");
    let before = w.fake.requests().len();
    let replies = w.mcp(&[
        tool_call(1, "withings_list_activity", json!({"account": "bob"})),
        tool_call(2, "withings_list_activity", json!({})),
        tool_call(3, "withings_list_activity", json!({"account": "bob", "response_format": "markdown"})),
    ]);
    let accounts: Vec<&str> =
        replies.iter().map(|r| r["result"]["structuredContent"]["account"].as_str().unwrap()).collect();
    assert_eq!(accounts, ["bob", "default", "bob"]);
    let text = replies[2]["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.starts_with("> Account: `bob`"), "{text}");
    let mut users: Vec<String> =
        w.fake.requests()[before..].iter().map(|r| r.user.clone().unwrap_or_default()).collect();
    users.dedup();
    assert_eq!(users, [USERID2, USERID, USERID2], "calls in order, each with its account's token");
    w.assert_no_secrets();
}

/// Every tool that reads Withings data, whichever family declares it (lists, briefs, trends,
/// charts, and those added later), takes `account`, says which account it read, and asks with
/// that account's token only.
#[test]
fn every_tool_that_reads_withings_takes_account_and_uses_its_token() {
    let w = World::new("acc-every");
    sign_in(&w, "bob", USERID2);
    crate::data::serve_all(&w.fake);
    let list = w.mcp(&[json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})]);
    let readers: Vec<Value> = list[0]["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["annotations"]["readOnlyHint"] == true && t["annotations"]["openWorldHint"] == true)
        .cloned()
        .collect();
    assert!(readers.len() >= 10, "{}", readers.len());
    let mut answered = 0;
    for t in &readers {
        let name = t["name"].as_str().unwrap();
        assert!(t["inputSchema"]["properties"]["account"].is_object(), "{name} takes no account");
        assert!(t["outputSchema"]["required"].as_array().unwrap().contains(&json!("account")), "{name}");
        // Required arguments get the first value their schema allows; an id (withings_get_ecg's
        // signalid) gets the one the fake serves.
        let mut args = json!({"account": "bob", "response_format": "json"});
        for r in t["inputSchema"]["required"].as_array().unwrap() {
            let r = r.as_str().unwrap();
            args[r] = match &t["inputSchema"]["properties"][r]["enum"][0] {
                Value::Null => json!(crate::detail::SERVED_SIGNALID),
                first => first.clone(),
            };
        }
        let before = w.fake.requests().len();
        let reply = w.mcp_call(name, args);
        let text: String = reply["content"][0]["text"].as_str().unwrap_or("").chars().take(300).collect();
        // The fake serves the six list fixtures, and required arguments other than an enum are
        // left out: a tool added later may fail here (never for want of a sign-in), but every
        // tool this test was written with answers.
        let sent = &w.fake.requests()[before..];
        match reply["isError"] == true {
            true => assert!(!text.contains("withings-mcp auth"), "{name}: {text}"),
            false => {
                answered += 1;
                assert_eq!(reply["structuredContent"]["account"], "bob", "{name}: {text}");
                assert!(!sent.is_empty(), "{name} asked Withings nothing");
            }
        }
        for rec in sent {
            assert_eq!(rec.user.as_deref(), Some(USERID2), "{name}: {} carried another token", rec.path);
        }
    }
    assert!(answered >= 10, "{answered} of {} answered", readers.len());
    w.assert_no_secrets();
}

#[test]
fn revoking_one_account_leaves_the_other_working() {
    let w = World::new("acc-revoke");
    sign_in(&w, "bob", USERID2);
    serve_activity_by_user(&w);
    let (r, v) = w.call("withings_revoke_access", json!({"explicit_user_intent": true, "account": "bob"}));
    assert_eq!(r.code, 0, "{}", r.all());
    assert_eq!((v["account"].as_str(), v["upstream_revoked"].as_bool()), (Some("bob"), Some(true)), "{v}");
    assert_eq!(w.fake.revoked(), [USERID2]);
    assert!(!account_tokens(&w, "bob").exists());
    assert!(w.home.token_path().exists(), "the default account's tokens stay");
    let (r, v) = w.call("withings_list_activity", json!({}));
    assert_eq!((r.code, v["account"].as_str()), (0, Some("default")), "{}", r.all());
    let (r, v) = w.call("withings_list_activity", json!({"account": "bob"}));
    assert_eq!(r.code, 1);
    assert_eq!(v["error"]["kind"], "needs_auth", "{v}");
    let msg = v["error"]["message"].as_str().unwrap();
    assert!(msg.contains("account `bob`") && msg.contains("withings-mcp auth --account bob"), "{msg}");
    w.assert_no_secrets();
}

#[test]
fn a_withings_user_is_connected_under_one_name_only() {
    let w = World::new("acc-dup");
    let before = std::fs::read(w.home.token_path()).unwrap();
    let amy = Account::parse("amy").unwrap();
    let paste = |user: &str| {
        let state = format!("st{}", w.fake.new_code());
        pending::add(&w.home.token_path(), &state, &amy, NOW).unwrap();
        let url = format!("http://127.0.0.1:3000/callback?code={}&state={state}", w.fake.new_code_for(user));
        let mut c = w.command();
        c.args(["auth", "--json", "--code", &url]);
        run(c)
    };
    // The default account's person signs in again, as `amy`: refused, naming the account.
    let r = paste(USERID);
    assert_eq!(r.code, 1, "{}", r.all());
    assert!(r.stderr.contains("already connected as account `default`"), "{}", r.stderr);
    assert_eq!(std::fs::read(w.home.token_path()).unwrap(), before, "the existing tokens are untouched");
    assert!(!account_tokens(&w, "amy").exists());
    // Another person signs in as `amy`: private directories and files.
    let r = paste(USERID2);
    assert_eq!(r.code, 0, "{}", r.all());
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["account"], "amy");
    assert_eq!(tokens::load(&account_tokens(&w, "amy")).unwrap().unwrap().userid.as_deref(), Some(USERID2));
    let state = w.home.state_dir();
    for (p, want) in [
        (state.join("accounts"), 0o700),
        (state.join("accounts/amy"), 0o700),
        (account_tokens(&w, "amy"), 0o600),
        (state.join("accounts/amy/tokens.json.lock"), 0o600),
    ] {
        assert_eq!(mode(&p), want, "{}", p.display());
    }
    w.assert_no_secrets();
}

#[test]
fn a_pending_sign_in_completes_for_the_account_it_was_started_for() {
    let w = World::new("acc-pending");
    let (r, v) = w.call("withings_get_auth_url", json!({"account": "amy"}));
    assert_eq!((r.code, v["account"].as_str()), (0, Some("amy")), "{}", r.all());
    let state = v["state"].as_str().unwrap();
    let url = format!("http://127.0.0.1:3000/callback?code={}&state={state}", w.fake.new_code_for(USERID2));
    // Naming another account is refused before the code is spent.
    let mut c = w.command();
    c.args(["--account", "bob", "auth", "--code", &url]);
    let r = run(c);
    assert_eq!(r.code, 1, "{}", r.all());
    assert!(r.stderr.contains("started for account `amy`"), "{}", r.stderr);
    assert_eq!(w.fake.count("/v2/oauth2", "requesttoken"), 0);
    // Pasted in another process without naming it: amy is signed in.
    let mut c = w.command();
    c.args(["auth", "--json", "--code", &url]);
    let r = run(c);
    assert_eq!(r.code, 0, "{}", r.all());
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["account"], "amy");
    assert!(v["token_path"].as_str().unwrap().ends_with("/accounts/amy/tokens.json"), "{v}");
    assert!(account_tokens(&w, "amy").exists() && !account_tokens(&w, "bob").exists());
    // The callback listener of `auth --account NAME` signs that person in too.
    let l = Listener::start(&w.home, &w.fake, &["--account", "cy", "--json"]);
    let code = w.fake.new_code_for("5550001");
    http_get(l.port, &format!("/callback?code={code}&state={}", l.state()));
    let r = l.finish();
    assert_eq!(r.code, 0, "{}", r.all());
    let v: Value = serde_json::from_str(r.stdout.trim()).unwrap();
    assert_eq!(v["account"], "cy");
    assert_eq!(tokens::load(&account_tokens(&w, "cy")).unwrap().unwrap().userid.as_deref(), Some("5550001"));
    w.assert_no_secrets();
}

#[test]
fn hostile_names_are_refused_before_any_disk_access() {
    let w = World::new("acc-hostile");
    serve_activity_by_user(&w);
    // HOME is a file: anything that read or wrote under it would fail with another error.
    let home_file = w.home.dir.join("home-is-a-file");
    std::fs::write(&home_file, "").unwrap();
    let forty = "a".repeat(40);
    let names = ["../x", "A", forty.as_str(), "con", "", "a/b", "-x", "..", "nul"];
    for name in names {
        let runs: [Vec<&str>; 4] = [
            vec!["--account", name, "call", "withings_list_activity"],
            vec!["call", "withings_list_activity", "--account", name],
            vec!["doctor", "--account", name],
            vec!["auth", "--account", name, "--code", "x"],
        ];
        for argv in runs {
            let mut c = w.command();
            c.env("HOME", &home_file).args(&argv);
            let r = run(c);
            assert_eq!(r.code, 2, "{argv:?}: {}", r.all());
            assert!(r.stderr.starts_with("withings-mcp: --account: "), "{argv:?}: {}", r.stderr);
        }
        if !name.is_empty() {
            let mut c = w.command();
            c.env("HOME", &home_file).env("WITHINGS_ACCOUNT", name).args(["call", "withings_list_activity"]);
            let r = run(c);
            assert_eq!(r.code, 2, "WITHINGS_ACCOUNT={name:?}: {}", r.all());
            assert!(r.stderr.contains("WITHINGS_ACCOUNT: "), "{}", r.stderr);
        }
    }
    // As a tool argument (NUL included): an isError result naming `account`, and the server
    // keeps serving.
    for name in names.iter().copied().chain(["a\0"]) {
        let mut c = w.command();
        c.env("HOME", &home_file);
        c.args(["call", "withings_list_activity", "--json", &json!({"account": name}).to_string()]);
        let r = run(c);
        assert_eq!(r.code, 1, "{name:?}: {}", r.all());
        let v: Value = serde_json::from_str(&r.stdout).unwrap();
        assert_eq!(
            (v["error"]["kind"].as_str(), v["error"]["argument"].as_str()),
            (Some("invalid_argument"), Some("account"))
        );
    }
    assert_eq!(std::fs::read(&home_file).unwrap(), b"");
    let replies = w.mcp(&[
        tool_call(1, "withings_list_activity", json!({"account": "../../etc"})),
        tool_call(2, "withings_list_activity", json!({})),
    ]);
    assert_eq!(replies[0]["result"]["isError"], true, "{}", replies[0]);
    assert!(replies[0]["result"]["content"][0]["text"].as_str().unwrap().contains("`account`"));
    assert_eq!(replies[1]["result"]["isError"], false, "{}", replies[1]);
    let entries: Vec<String> = std::fs::read_dir(w.home.state_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(!entries.iter().any(|e| e == "accounts"), "no account directory was made: {entries:?}");
}

#[test]
fn accounts_status_doctor_and_audit_cover_every_account_and_show_no_token() {
    let w = World::new("acc-status");
    sign_in(&w, "bob", USERID2);
    let (r, v) = w.call("withings_accounts", json!({}));
    assert_eq!(r.code, 0, "{}", r.all());
    let list = v["accounts"].as_array().unwrap();
    let names: Vec<&str> = list.iter().map(|a| a["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["default", "bob"]);
    for a in list {
        assert_eq!((a["connected"].as_bool(), a["token"].as_str()), (Some(true), Some("fresh")), "{a}");
        assert_eq!(a["scopes"], json!(["user.info", "user.metrics", "user.activity"]));
        assert_eq!(a["file_mode"], "0600");
    }
    assert_eq!((list[0]["default"].as_bool(), list[1]["default"].as_bool()), (Some(true), Some(false)));
    // Status and the privacy audit: the same states (connected, scopes, freshness, file mode).
    for tool in ["withings_connection_status", "withings_privacy_audit"] {
        let (_, v) = w.call(tool, json!({}));
        assert_eq!(&v["accounts"], &json!(list), "{tool}");
    }
    let (_, v) = w.call("withings_privacy_audit", json!({}));
    let bob_file = account_tokens(&w, "bob").display().to_string();
    let f = v["files"].as_array().unwrap().iter().find(|f| f["path"] == bob_file.as_str()).unwrap();
    assert_eq!((f["mode"].as_str(), f["secure"].as_bool()), (Some("600"), Some(true)), "{f}");
    // doctor, for bob, checks every account; one refused file makes it not ready.
    let mut c = w.command();
    c.args(["doctor", "--json", "--account", "bob"]);
    let r = run(c);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!((v["account"].as_str(), v["ready"].as_bool()), (Some("bob"), Some(true)), "{v}");
    assert_eq!(v["accounts"].as_array().unwrap().len(), 2);
    std::fs::set_permissions(account_tokens(&w, "bob"), std::fs::Permissions::from_mode(0o644)).unwrap();
    let mut c = w.command();
    c.args(["doctor", "--json"]);
    let r = run(c);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    let check = v["checks"].as_array().unwrap().iter().find(|c| c["id"] == "accounts").unwrap().clone();
    assert_eq!(check["ok"], false, "{check}");
    assert!(check["detail"].as_str().unwrap().contains("chmod 600"), "{check}");
    assert_eq!(v["ready"], false);
    w.fake.assert_no_secrets(&r.all());
    w.assert_no_secrets();
}

#[test]
fn resources_prompts_and_completion_work_per_account() {
    let w = World::new("acc-res");
    sign_in(&w, "bob", USERID2);
    sign_in(&w, "bea", "5550002");
    serve_activity_by_user(&w);
    let req = |id: i64, method: &str, params: Value| json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    let account_template =
        json!({"type": "ref/resource", "uri": "withings://accounts/{account}/summary/daily"});
    let replies = w.mcp(&[
        req(1, "resources/templates/list", json!({})),
        req(2, "resources/read", json!({"uri": "withings://accounts/bob/latest/activity"})),
        req(3, "resources/read", json!({"uri": "withings://accounts/..%2Fx/latest/activity"})),
        req(4, "completion/complete", json!({"ref": account_template, "argument": {"name": "account", "value": "b"}})),
        req(5, "completion/complete", json!({"ref": {"type": "ref/prompt", "name": "withings_weekly_review"}, "argument": {"name": "account", "value": ""}})),
        req(6, "prompts/get", json!({"name": "withings_daily_checkin", "arguments": {"account": "bob"}})),
        req(7, "prompts/get", json!({"name": "withings_daily_checkin", "arguments": {"account": "Bob"}})),
        req(8, "resources/read", json!({"uri": "withings://latest/activity"})),
    ]);
    let by_id = |id: i64| replies.iter().find(|r| r["id"] == id).unwrap().clone();
    let templates: Vec<String> = by_id(1)["result"]["resourceTemplates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["uriTemplate"].as_str().unwrap().to_string())
        .collect();
    for t in ["summary/daily", "summary/weekly", "latest/activity", "latest/sleep"] {
        assert!(templates.contains(&format!("withings://accounts/{{account}}/{t}")), "{templates:?}");
    }
    let body: Value =
        serde_json::from_str(by_id(2)["result"]["contents"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(body["account"], "bob");
    assert!(
        body["records"].as_array().unwrap().iter().all(|r| r["steps"].as_f64() == Some(2222.0)),
        "{body}"
    );
    assert_eq!(by_id(3)["error"]["code"], -32602, "{}", by_id(3));
    assert_eq!(by_id(4)["result"]["completion"]["values"], json!(["bea", "bob"]));
    assert_eq!(by_id(5)["result"]["completion"]["values"], json!(["default", "bea", "bob"]));
    let text = by_id(6)["result"]["messages"][0]["content"]["text"].as_str().unwrap().to_string();
    assert!(text.contains(r#""account": "bob""#), "{text}");
    assert_eq!(by_id(7)["error"]["code"], -32602, "{}", by_id(7));
    let body: Value =
        serde_json::from_str(by_id(8)["result"]["contents"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(body["account"], "default");
    w.assert_no_secrets();
}

/// The demo household: `default` and `sam`, with different data, every account feature without
/// credentials; an account the demo does not have is refused by name.
#[test]
fn the_demo_has_two_people() {
    let w = World::new("acc-demo");
    let demo = |argv: &[&str]| {
        let mut c = w.command();
        c.arg("--demo").args(argv);
        run(c)
    };
    let r = demo(&["call", "withings_accounts"]);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    let names: Vec<&str> =
        v["accounts"].as_array().unwrap().iter().map(|a| a["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["default", "sam"], "{v}");
    let weight = |argv: &[&str]| {
        let r = demo(argv);
        assert_eq!(r.code, 0, "{argv:?}: {}", r.all());
        let v: Value = serde_json::from_str(&r.stdout).unwrap();
        (
            v["account"].as_str().unwrap().to_string(),
            v["records"][0]["measures"][0]["value"].as_f64().unwrap(),
        )
    };
    let list = ["call", "withings_list_body_measures", "--json", r#"{"types": ["weight"]}"#];
    let (a, alex) = weight(&list);
    let (s, sam) = weight(&[&["--account", "sam"], &list[..]].concat());
    assert_eq!((a.as_str(), s.as_str()), ("default", "sam"));
    assert!(alex > 70.0 && sam < 65.0, "{alex} {sam}");
    let r = demo(&["--account", "sam", "call", "withings_daily_summary", "--markdown"]);
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(r.stdout.contains("> Account: `sam`") && r.stdout.contains("## Sleep"), "{}", r.stdout);
    let r = demo(&["--account", "bob", "call", "withings_list_activity"]);
    assert_eq!(r.code, 1, "{}", r.all());
    assert!(
        r.stderr.contains("the demo has no account `bob`; its accounts are default, sam"),
        "{}",
        r.stderr
    );
    assert!(w.fake.requests().is_empty(), "the demo never calls Withings");
}

/// `WITHINGS_TOKEN_PATH` moves the default account's file only: named accounts stay under
/// `~/.withings-mcp/accounts/`, and each reads its own file.
#[test]
fn the_token_path_variable_moves_the_default_account_only() {
    let mut w = World::new("acc-path");
    sign_in(&w, "bob", USERID2);
    serve_activity_by_user(&w);
    let moved = w.home.dir.join("elsewhere/tokens.json");
    std::fs::create_dir_all(moved.parent().unwrap()).unwrap();
    std::fs::rename(w.home.token_path(), &moved).unwrap();
    w.set("WITHINGS_TOKEN_PATH", moved.to_str().unwrap());
    let (_, v) = w.call("withings_accounts", json!({}));
    let paths: Vec<&str> =
        v["accounts"].as_array().unwrap().iter().map(|a| a["token_path"].as_str().unwrap()).collect();
    assert_eq!(paths, [moved.to_str().unwrap(), account_tokens(&w, "bob").to_str().unwrap()], "{v}");
    for (account, user) in [("default", USERID), ("bob", USERID2)] {
        let before = w.fake.requests().len();
        let (r, v) = w.call("withings_list_activity", json!({"account": account}));
        assert_eq!((r.code, v["account"].as_str()), (0, Some(account)), "{}", r.all());
        assert!(w.fake.requests()[before..].iter().all(|rec| rec.user.as_deref() == Some(user)), "{account}");
    }
    assert!(!w.home.token_path().exists(), "nothing written at the usual default path");
    w.assert_no_secrets();
}
