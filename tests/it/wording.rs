//! Issue 17: words and numbers a person can trust. Messages and exit codes through the real
//! binary: usage errors exit 2, each error names its argument once, success is not worded as an
//! error, and a network failure names the host and what failed.

use std::net::TcpListener;

use serde_json::Value;
use withings_mcp::store::tokens::{self, Tokens};

use crate::demo::{NOW, demo};
use crate::fake::{TempHome, bin, run};

#[test]
fn usage_errors_exit_2_and_name_their_argument_once() {
    let home = TempHome::new("wording-usage");
    let cases: [(&[&str], &str); 3] = [
        (&["chart", "bogus"], "metric"),
        (&["chart", "weight", "--units", "furlongs"], "units"),
        (&["chart"], "METRIC"),
    ];
    for (args, name) in cases {
        let r = run(demo(&home, NOW, args));
        assert_eq!(r.code, 2, "{args:?}: {}", r.all());
        assert!(r.stderr.starts_with("withings-mcp: ") && r.stderr.lines().count() == 1, "{}", r.stderr);
        assert_eq!(r.stderr.matches(name).count(), 1, "{args:?}: named once: {}", r.stderr);
    }
    // A tool's bad argument is an `isError` result (exit 1), named once too.
    let calls = [
        ("withings_trends", r#"{"metric":"zz"}"#, "metric"),
        ("withings_list_activity", r#"{"limit":100000}"#, "limit"),
    ];
    for (tool, json, name) in calls {
        let r = run(demo(&home, NOW, &["call", tool, "--json", json]));
        assert_eq!(r.code, 1, "{tool}: {}", r.all());
        let v: Value = serde_json::from_str(&r.stdout).unwrap();
        let message = v["error"]["message"].as_str().unwrap();
        assert_eq!(message.matches(name).count(), 1, "{tool}: {message}");
        assert_eq!(v["error"]["argument"], name, "{v}");
    }
    // `help help` is help, like `help chart`.
    let r = run(demo(&home, NOW, &["help", "help"]));
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(r.stdout.contains("help [COMMAND]"), "{}", r.stdout);
}

#[test]
fn chart_reports_its_file_plainly() {
    let home = TempHome::new("wording-chart");
    let out = home.dir.join("w.svg");
    let r = run(demo(&home, NOW, &["chart", "weight", "--out", &out.display().to_string()]));
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(r.stdout.is_empty(), "{}", r.stdout);
    assert_eq!(r.stderr, format!("wrote {}\n", out.display()));
}

#[test]
fn a_network_failure_names_the_host_and_what_failed() {
    let home = TempHome::new("wording-net");
    // A port that was just free: connecting to it is refused.
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let api = format!("http://127.0.0.1:{port}");
    let t = Tokens {
        access_token: "access-0123456789".into(),
        refresh_token: "refresh-0123456789".into(),
        expires_at: NOW + 3 * 3600,
        scope: "user.info,user.metrics,user.activity".into(),
        userid: Some("1".into()),
        token_type: "Bearer".into(),
        created_at: NOW - 60,
    };
    tokens::save(&home.dir.join(".withings-mcp/tokens.json"), &t).unwrap();
    let mut c = std::process::Command::new(bin());
    c.env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", &home.dir)
        .env("WITHINGS_MCP_NOW", NOW.to_string())
        .env("WITHINGS_API_URL", &api)
        .env("WITHINGS_CLIENT_ID", "cid")
        .env("WITHINGS_CLIENT_SECRET", "secret-0123456789")
        .env("WITHINGS_RETRY_BASE_MS", "1")
        .args(["call", "withings_list_activity"]);
    let r = run(c);
    assert_eq!(r.code, 1, "{}", r.all());
    let want = format!("connection refused by 127.0.0.1:{port}");
    assert!(r.stdout.contains(&want), "{}", r.all());
    assert!(!r.all().contains("uncategorized") && !r.all().contains("access-0123456789"), "{}", r.all());
}

/// The README renders as written: fences pair up, and every section the contents list names is
/// a heading outside any fence (an unclosed fence once turned Architecture to License into code).
#[test]
fn the_readme_renders() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let mut in_fence = false;
    let mut headings = Vec::new();
    for line in readme.lines() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
        } else if !in_fence && let Some(h) = line.strip_prefix("## ") {
            headings.push(h.to_string());
        }
    }
    assert!(!in_fence, "README: a fence is left open (an odd count of ``` lines)");
    let contents: Vec<&str> = readme
        .lines()
        .filter_map(|l| l.strip_prefix("- [")?.split_once("](#").map(|(name, _)| name))
        .collect();
    assert!(contents.len() >= 10, "{contents:?}");
    for name in contents {
        assert!(headings.iter().any(|h| h == name), "README: `## {name}` is not a heading outside code");
    }
}

/// The README's demo person walks what the demo's activity rows say: the mean and median over
/// its complete days, to the nearest hundred steps the README states.
#[test]
fn the_readme_describes_the_demo_steps_truthfully() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let line = readme.lines().find(|l| l.contains("steps a day on average")).unwrap();
    let stated: Vec<f64> = line
        .split(|c: char| !(c.is_ascii_digit() || c == ','))
        .filter(|w| w.len() >= 5)
        .map(|w| w.replace(',', "").parse().unwrap())
        .collect();
    let [mean_said, median_said] = stated[..] else { panic!("{line}") };
    let home = TempHome::new("wording-steps");
    let r = run(demo(
        &home,
        NOW,
        &["call", "withings_list_activity", "--json", r#"{"after":"2000-01-01","limit":1000}"#],
    ));
    assert_eq!(r.code, 0, "{}", r.all());
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    let rows = v["records"].as_array().unwrap();
    // Today's row is a day in progress.
    let mut steps: Vec<f64> = rows[..rows.len() - 1].iter().filter_map(|r| r["steps"].as_f64()).collect();
    assert!(steps.len() > 300, "{}", steps.len());
    steps.sort_by(f64::total_cmp);
    let mean = steps.iter().sum::<f64>() / steps.len() as f64;
    let median = (steps[(steps.len() - 1) / 2] + steps[steps.len() / 2]) / 2.0;
    assert!((mean - mean_said).abs() <= 100.0, "README says a mean of {mean_said}; the demo's is {mean:.0}");
    assert!(
        (median - median_said).abs() <= 100.0,
        "README says a median of {median_said}; the demo's is {median:.0}"
    );
}
