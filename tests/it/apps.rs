//! MCP Apps (CONTRACT §8.6): the dashboard resource, its link from the chart, trends and brief
//! tools when, and only when, the client declares the extension, and the page itself rendering
//! real tool results in headless Chromium.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use crate::stdio::{lines, req, run};

const UI: &str = "io.modelcontextprotocol/ui";
const URI: &str = "ui://withings/dashboard";
const MIME: &str = "text/html;profile=mcp-app";
const LINKED: [&str; 4] =
    ["withings_chart", "withings_trends", "withings_daily_summary", "withings_weekly_summary"];
/// A fixed clock and zone: the demo account's data, and so the rendered page, never drift.
const DEMO: [(&str, &str); 3] =
    [("WITHINGS_DEMO", "1"), ("WITHINGS_MCP_NOW", "1796108400"), ("WITHINGS_TZ", "UTC")];

fn ui_caps() -> Value {
    json!({"extensions": {UI: {"mimeTypes": [MIME]}}})
}

fn init(capabilities: Value) -> Value {
    req(
        0,
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": capabilities, "clientInfo": {"name": "it", "version": "1"}}),
    )
}

fn stateless(capabilities: Value) -> Value {
    json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": capabilities}})
}

/// Tool name → its `_meta.ui.resourceUri`, if any, from a `tools/list` result.
fn links(list: &Value) -> Vec<(String, Option<String>)> {
    list["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("not a tools/list result: {list}"))
        .iter()
        .map(|t| {
            let uri = t["_meta"]["ui"]["resourceUri"].as_str().map(str::to_string);
            (t["name"].as_str().unwrap().to_string(), uri)
        })
        .collect()
}

fn lists_dashboard(list: &Value) -> bool {
    list["resources"].as_array().unwrap().iter().any(|r| r["uri"] == URI)
}

#[test]
fn tools_link_the_dashboard_only_for_clients_that_declare_the_extension() {
    let with_ext = |id: i64, method: &str| req(id, method, stateless(ui_caps()));
    let without = |id: i64, method: &str| req(id, method, stateless(json!({})));
    // One stdio session without the extension, one with; then stateless requests, which say
    // for themselves what they render.
    let plain = run(
        &lines(&[init(json!({})), req(1, "tools/list", json!({})), req(2, "resources/list", json!({}))]),
        &[],
    );
    let apps = run(
        &lines(&[
            init(ui_caps()),
            req(1, "tools/list", json!({})),
            req(2, "resources/list", json!({})),
            with_ext(3, "tools/list"),
            without(4, "tools/list"),
            with_ext(5, "resources/list"),
            without(6, "resources/list"),
        ]),
        &[],
    );
    let other_ext = run(
        &lines(&[
            init(json!({"extensions": {UI: {"mimeTypes": ["text/uri-list"]}}})),
            req(1, "tools/list", json!({})),
        ]),
        &[],
    );
    for (what, list, linked) in [
        ("no extension", &plain.replies[1]["result"], false),
        ("extension at initialize", &apps.replies[1]["result"], true),
        ("extension in _meta", &apps.replies[3]["result"], true),
        ("stateless without it", &apps.replies[4]["result"], false),
        ("extension for other mime types", &other_ext.replies[1]["result"], false),
    ] {
        for (name, uri) in links(list) {
            let want = linked && LINKED.contains(&name.as_str());
            assert_eq!(uri.as_deref(), want.then_some(URI), "{what}: {name}");
        }
        if !linked {
            assert!(list["tools"].as_array().unwrap().iter().all(|t| t.get("_meta").is_none()), "{what}");
        }
    }
    assert!(
        !lists_dashboard(&plain.replies[2]["result"]),
        "a client without the extension sees the old list"
    );
    assert!(lists_dashboard(&apps.replies[2]["result"]));
    assert!(lists_dashboard(&apps.replies[5]["result"]));
    assert!(!lists_dashboard(&apps.replies[6]["result"]));
    let entry =
        apps.replies[2]["result"]["resources"].as_array().unwrap().iter().find(|r| r["uri"] == URI).unwrap();
    assert_eq!(entry["mimeType"], MIME);
    assert!(entry["name"].is_string() && entry["description"].is_string(), "{entry}");
}

#[test]
fn the_dashboard_is_read_as_one_html_page_in_both_eras() {
    let read = json!({"uri": URI});
    let mut stateless_read = stateless(json!({}));
    stateless_read["uri"] = json!(URI);
    let r = run(
        &lines(&[init(json!({})), req(1, "resources/read", read), req(2, "resources/read", stateless_read)]),
        &[],
    );
    let page = &r.replies[1]["result"]["contents"][0];
    assert_eq!(page["uri"], URI);
    assert_eq!(page["mimeType"], MIME);
    let html = page["text"].as_str().unwrap();
    assert!(html.to_ascii_lowercase().starts_with("<!doctype html>"), "{}", &html[..40]);
    assert!(html.contains("ui/initialize") && html.contains("ui/notifications/tool-result"));
    let modern = &r.replies[2]["result"];
    assert_eq!(modern["contents"][0]["text"], page["text"]);
    assert_eq!(modern["resultType"], "complete");
    assert_eq!(modern["cacheScope"], "public", "the page is the same for everyone");
}

/// What the test host reports about one rendered view.
struct View {
    report: Value,
}

impl View {
    fn get(&self, key: &str) -> &Value {
        &self.report[key]
    }
}

#[test]
fn the_dashboard_renders_real_results_in_headless_chromium() {
    let Some(chromium) = chromium() else {
        assert!(std::env::var_os("CI").is_none(), "CI must have Chromium (.ci/run installs it)");
        eprintln!(
            "\n*** SKIPPED the_dashboard_renders_real_results_in_headless_chromium: no chromium on PATH \
             (apt-get install chromium); CI=1 makes this a failure ***\n"
        );
        return;
    };
    let calls = [
        ("withings_chart", json!({"metric": "weight"})),
        ("withings_trends", json!({"metric": "weight"})),
        ("withings_daily_summary", json!({})),
        ("withings_weekly_summary", json!({})),
    ];
    let mut messages = vec![init(ui_caps()), req(1, "resources/read", json!({"uri": URI}))];
    for (i, (name, args)) in calls.iter().enumerate() {
        messages.push(req(10 + i as i64, "tools/call", json!({"name": name, "arguments": args})));
    }
    let r = run(&lines(&messages), &DEMO);
    let page = r.replies[1]["result"]["contents"][0]["text"].as_str().unwrap();
    let results: Vec<Value> = (0..calls.len()).map(|i| r.replies[2 + i]["result"].clone()).collect();
    let host_calls: Vec<Value> = calls
        .iter()
        .zip(&results)
        .map(|((name, args), result)| json!({"name": name, "arguments": args, "result": result}))
        .collect();
    let dir = std::env::temp_dir().join(format!("wmcp-apps-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // JSON inside <script>: a "<" (as in "</script>") must not end the script element.
    let js = |v: String| v.replace('<', "\\u003c");
    let host = include_str!("apps_host.html")
        .replace("/*PAGE*/", &js(serde_json::to_string(page).unwrap()))
        .replace("/*CALLS*/", &js(serde_json::to_string(&host_calls).unwrap()));
    let host_path = dir.join("host.html");
    std::fs::write(&host_path, host).unwrap();

    let chart = &results[0]["structuredContent"];
    let series: Vec<&Value> =
        chart["series"].as_array().unwrap().iter().filter(|p| p["value"].is_number()).collect();
    let latest = series.last().unwrap();
    let daily_rows = results[2]["structuredContent"]["scorecard"].as_object().unwrap().len();
    let weekly_rows = results[3]["structuredContent"]["scorecard"]["delta"].as_object().unwrap().len();
    assert!(series.len() > 20 && daily_rows > 3 && weekly_rows > 3, "the demo data should fill every view");

    let mut backgrounds = Vec::new();
    for theme in ["light", "dark"] {
        let report = dump_report(&chromium, &host_path, &dir, theme);
        assert_eq!(report["violations"], json!([]), "{theme}: the page broke the default CSP");
        let views: Vec<View> =
            calls.iter().map(|(n, _)| View { report: report["views"][n].clone() }).collect();
        for (view, (name, _)) in views.iter().zip(&calls) {
            let received = view.get("received").as_array().unwrap();
            assert_eq!(received.first(), Some(&json!("ui/initialize")), "{theme} {name}: {received:?}");
            assert!(received.contains(&json!("ui/notifications/initialized")), "{theme} {name}");
            assert!(received.contains(&json!("ui/notifications/size-changed")), "{theme} {name}");
            let init = view.get("init");
            assert_eq!(init["protocolVersion"], "2026-01-26");
            assert!(init["appInfo"]["name"].is_string() && init["appCapabilities"].is_object(), "{init}");
            assert_eq!(view.get("theme"), theme, "{name} follows the host's theme");
            let height = view.get("sizes").as_array().unwrap().last().unwrap()["height"].as_f64().unwrap();
            assert!(height > 100.0, "{theme} {name}: reported height {height}");
            // It follows a theme change and comes back.
            assert_ne!(view.get("background"), view.get("background_switched"), "{theme} {name}");
            assert_eq!(view.get("background"), view.get("background_restored"), "{theme} {name}");
        }
        let [chart_view, trends_view, daily_view, weekly_view] = &views[..] else { unreachable!() };
        for v in [chart_view, trends_view] {
            assert_eq!(v.get("kind"), "trend");
            assert_eq!(v.get("points"), series.len(), "one point per reading in the result");
            assert_eq!(v.get("trend_line"), 1);
            assert_eq!(v.get("band"), 1, "the noise band");
            let tip =
                v.get("tooltip").as_str().unwrap_or_else(|| panic!("no tooltip after hover: {}", v.report));
            let value = format!("{} kg", latest["value"]);
            let date = civil_label(latest["date"].as_str().unwrap());
            assert!(
                tip.contains(&value) && tip.contains(&date),
                "tooltip `{tip}` should show {value} and {date}"
            );
        }
        assert_eq!(daily_view.get("kind"), "daily");
        assert_eq!(daily_view.get("scorecard_rows"), daily_rows, "one row per scorecard metric");
        assert_eq!(weekly_view.get("kind"), "weekly");
        assert_eq!(weekly_view.get("scorecard_rows"), weekly_rows, "one row per compared metric");
        assert!(weekly_view.get("title").as_str().unwrap().contains("demo"), "demo data says so");
        backgrounds.push(chart_view.get("background").clone());

        let png = screenshot(&chromium, &host_path, &dir, theme);
        eprintln!("dashboard screenshot ({theme}): {}", png.display());
    }
    assert_ne!(backgrounds[0], backgrounds[1], "light and dark differ");
    if std::env::var_os("WMCP_KEEP").is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// "2026-12-01" → "1 Dec 2026", as the page writes a day.
fn civil_label(date: &str) -> String {
    const MONTHS: [&str; 12] =
        ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
    let parts: Vec<usize> = date.split('-').map(|p| p.parse().unwrap()).collect();
    format!("{} {} {}", parts[2], MONTHS[parts[1] - 1], parts[0])
}

fn chromium() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|d| d.join("chromium")).find(|p| p.is_file())
}

/// Headless Chromium with the flags this machine needs and a fresh profile for each run, under
/// coreutils' `timeout` so that a browser that hangs fails the test instead of stalling it.
fn browser(chromium: &Path, dir: &Path, run: &str) -> Command {
    let profile = dir.join(format!("profile-{run}"));
    let mut cmd = Command::new("timeout");
    cmd.arg("120").arg(chromium).args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
        "--virtual-time-budget=15000",
    ]);
    cmd.arg(format!("--user-data-dir={}", profile.display()));
    cmd
}

fn url(host: &Path, theme: &str, only: &str) -> String {
    format!("file://{}?theme={theme}&only={only}", host.display())
}

fn dump_report(chromium: &Path, host: &Path, dir: &Path, theme: &str) -> Value {
    let out = browser(chromium, dir, &format!("dump-{theme}"))
        .arg("--dump-dom")
        .arg(url(host, theme, ""))
        .output()
        .unwrap();
    let dom = String::from_utf8_lossy(&out.stdout);
    let start = dom.find("<pre id=\"report\">").map(|i| i + "<pre id=\"report\">".len());
    let text = start.and_then(|s| dom[s..].find("</pre>").map(|e| &dom[s..s + e])).unwrap_or("");
    let text = text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&");
    serde_json::from_str(&text).unwrap_or_else(|e| {
        panic!(
            "no report from the test host ({e}); status {:?}; stderr:\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// The chart and the weekly brief, as a person would see them; the PNG is kept for looking at.
fn screenshot(chromium: &Path, host: &Path, dir: &Path, theme: &str) -> PathBuf {
    let png = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("dashboard-{theme}.png"));
    let _ = std::fs::remove_file(&png);
    let out = browser(chromium, dir, &format!("shot-{theme}"))
        .arg(format!("--screenshot={}", png.display()))
        .arg("--window-size=736,1130")
        .arg(url(host, theme, "withings_chart,withings_weekly_summary"))
        .output()
        .unwrap();
    let bytes = std::fs::read(&png)
        .unwrap_or_else(|e| panic!("no screenshot ({e}); stderr:\n{}", String::from_utf8_lossy(&out.stderr)));
    assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n") && bytes.len() > 10_000, "a real PNG of a real page");
    png
}
