//! The six list tools end to end (issue 4): the real binary against the fake Withings, with a
//! fixed clock and zone. Golden outputs live in fixtures/golden (regenerate with
//! `UPDATE_GOLDEN=1 cargo test --test it`); golden inputs in fixtures/withings/e2e.

use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::{Value, json};
use withings_mcp::store::tokens::{self, Tokens};

use crate::fake::{FakeWithings, Recorded, Run, TempHome, USERID, fixture_json, run};

/// 2026-03-15T12:00:00Z: after every fixture record.
pub const NOW: i64 = 1_773_576_000;
pub const TZ: &str = "Europe/Paris";

/// A fake Withings plus a signed-in temporary HOME.
pub struct World {
    pub fake: FakeWithings,
    pub home: TempHome,
    pub env: Vec<(String, String)>,
    /// Everything the binary printed, for the final secret scan.
    captured: std::cell::RefCell<String>,
}

impl World {
    pub fn new(tag: &str) -> World {
        let fake = FakeWithings::start();
        let home = TempHome::new(tag);
        let (access, refresh) = fake.issue_pair();
        let t = Tokens {
            access_token: access,
            refresh_token: refresh,
            // Far beyond the fixed clock: no refresh traffic in request counts.
            expires_at: NOW + 10 * 365 * 86_400,
            scope: "user.info,user.metrics,user.activity".into(),
            userid: Some(USERID.into()),
            token_type: "Bearer".into(),
            created_at: NOW - 60,
        };
        tokens::save(&home.token_path(), &t).unwrap();
        let env = vec![
            ("WITHINGS_MCP_NOW".to_string(), NOW.to_string()),
            ("WITHINGS_TZ".to_string(), TZ.to_string()),
            ("WITHINGS_RETRY_BASE_MS".to_string(), "1".to_string()),
        ];
        World { fake, home, env, captured: Default::default() }
    }

    /// Overrides or adds an environment variable for later runs.
    pub fn set(&mut self, key: &str, value: &str) {
        self.env.retain(|(k, _)| k != key);
        self.env.push((key.into(), value.into()));
    }

    pub fn command(&self) -> Command {
        let mut c = self.home.command(&self.fake);
        for (k, v) in &self.env {
            c.env(k, v);
        }
        c
    }

    /// `withings-mcp call TOOL --json ARGS`: the run and its stdout as JSON.
    pub fn call(&self, tool: &str, args: Value) -> (Run, Value) {
        let mut c = self.command();
        c.args(["call", tool, "--json", &args.to_string()]);
        let r = run(c);
        self.captured.borrow_mut().push_str(&r.all());
        let v = serde_json::from_str(r.stdout.trim())
            .unwrap_or_else(|e| panic!("{tool}: not JSON ({e}): {}", r.all()));
        (r, v)
    }

    /// A stdio MCP session: initialize, then `messages`; returns every reply by id.
    pub fn mcp(&self, messages: &[Value]) -> Vec<Value> {
        self.mcp_lines(messages).into_iter().filter(|r| r["id"] != 0 && r.get("method").is_none()).collect()
    }

    /// A stdio MCP session: initialize, then `messages`; returns every line the server wrote, in
    /// order (replies and notifications).
    pub fn mcp_lines(&self, messages: &[Value]) -> Vec<Value> {
        let mut input = vec![
            json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"it","version":"1"}}}),
            json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
        ];
        input.extend(messages.iter().cloned());
        let text: String = input.iter().map(|m| format!("{m}\n")).collect();
        let mut c = self.command();
        c.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = c.spawn().unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let writer = std::thread::spawn(move || {
            use std::io::Write;
            let _ = stdin.write_all(text.as_bytes());
        });
        let out = child.wait_with_output().unwrap();
        writer.join().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        self.captured.borrow_mut().push_str(&stdout);
        self.captured.borrow_mut().push_str(&String::from_utf8_lossy(&out.stderr));
        stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect()
    }

    /// One tools/call over MCP: the `result`.
    pub fn mcp_call(&self, tool: &str, args: Value) -> Value {
        let r = self.mcp(&[tool_call(1, tool, args)]);
        r[0]["result"].clone()
    }

    /// Requests to data endpoints (not the token or signature services).
    pub fn data_requests(&self) -> Vec<Recorded> {
        self.fake
            .requests()
            .into_iter()
            .filter(|r| r.path != "/v2/oauth2" && r.path != "/v2/signature")
            .collect()
    }

    pub fn assert_no_secrets(&self) {
        self.fake.assert_no_secrets(&self.captured.borrow());
    }
}

pub fn tool_call(id: i64, tool: &str, args: Value) -> Value {
    json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":tool,"arguments":args}})
}

/// Serves `fixtures/withings/e2e/<file>` for an action: `page_size` rows per page at the
/// requested `offset` with Withings' `more`/`offset`, or (page_size 0, sleep `get`) the rows
/// whose start lies in [startdate, enddate].
pub fn serve(fake: &FakeWithings, path: &str, action: &str, file: &str, list_key: &'static str) {
    let doc = fixture_json(&format!("e2e/{file}"));
    fake.on(path, action, move |rec| page(&doc, rec, list_key));
}

/// One answer of a paged fixture document (see `serve`).
pub fn page(doc: &Value, rec: &Recorded, list_key: &str) -> Value {
    let records = doc["records"].as_array().unwrap();
    let size = doc["page_size"].as_u64().unwrap() as usize;
    let mut body = doc["envelope"].clone();
    let num = |k: &str| rec.get(k).map(|s| s.parse::<i64>().unwrap());
    if size == 0 {
        let (s, e) = (num("startdate").unwrap(), num("enddate").unwrap());
        let rows: Vec<Value> =
            records.iter().filter(|r| (s..=e).contains(&r["startdate"].as_i64().unwrap())).cloned().collect();
        body[list_key] = json!(rows);
        return json!({"status": 0, "body": body});
    }
    let off = num("offset").unwrap_or(0) as usize;
    let end = (off + size).min(records.len());
    let more = end < records.len();
    body[list_key] = json!(records.get(off..end).unwrap_or_default());
    body["more"] = match doc["more_style"].as_str() {
        Some("int") => json!(more as i64),
        _ => json!(more),
    };
    body["offset"] = json!(if more { end } else { 0 });
    json!({"status": 0, "body": body})
}

/// Compares `actual` with fixtures/golden/<name>.json, or rewrites it when UPDATE_GOLDEN=1.
pub fn golden(name: &str, actual: &Value) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/golden").join(format!("{name}.json"));
    if std::env::var("UPDATE_GOLDEN").as_deref() == Ok("1") {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, serde_json::to_string_pretty(actual).unwrap() + "\n").unwrap();
        return;
    }
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}; run with UPDATE_GOLDEN=1 to create it", path.display()));
    let expected: Value = serde_json::from_str(&text).unwrap();
    if let Some(d) = first_difference(&expected, actual, "$") {
        panic!("{name}: differs from {} at {d}\n(UPDATE_GOLDEN=1 rewrites it after review)", path.display());
    }
}

/// The path and values of the first difference, or None when equal.
fn first_difference(a: &Value, b: &Value, at: &str) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
            keys.sort();
            keys.dedup();
            keys.into_iter().find_map(|k| match (x.get(k), y.get(k)) {
                (Some(p), Some(q)) => first_difference(p, q, &format!("{at}.{k}")),
                (p, q) => Some(format!("{at}.{k}: expected {p:?}, got {q:?}")),
            })
        }
        (Value::Array(x), Value::Array(y)) => {
            if x.len() != y.len() {
                return Some(format!("{at}: expected {} items, got {}", x.len(), y.len()));
            }
            x.iter().zip(y).enumerate().find_map(|(i, (p, q))| first_difference(p, q, &format!("{at}[{i}]")))
        }
        _ if a == b => None,
        _ => Some(format!("{at}: expected {a}, got {b}")),
    }
}

/// Every key at any depth.
pub fn keys_deep(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                out.push(k.clone());
                keys_deep(x, out);
            }
        }
        Value::Array(a) => a.iter().for_each(|x| keys_deep(x, out)),
        _ => {}
    }
}

pub fn assert_no_private_keys(v: &Value, what: &str) {
    let mut keys = Vec::new();
    keys_deep(v, &mut keys);
    for bad in ["deviceid", "hash_deviceid", "location", "lat", "lon", "latitude", "longitude"] {
        assert!(!keys.iter().any(|k| k == bad), "{what}: key `{bad}` present: {v}");
    }
}

/// One list tool and its fixture.
struct Case {
    tool: &'static str,
    path: &'static str,
    action: &'static str,
    file: &'static str,
    list_key: &'static str,
    epoch: bool,
    total: usize,
}

const CASES: &[Case] = &[
    Case {
        tool: "withings_list_body_measures",
        path: "/measure",
        action: "getmeas",
        file: "getmeas.json",
        list_key: "measuregrps",
        epoch: true,
        total: 5,
    },
    Case {
        tool: "withings_list_heart",
        path: "/v2/heart",
        action: "list",
        file: "heart_list.json",
        list_key: "series",
        epoch: true,
        total: 5,
    },
    Case {
        tool: "withings_list_activity",
        path: "/v2/measure",
        action: "getactivity",
        file: "getactivity.json",
        list_key: "activities",
        epoch: false,
        total: 5,
    },
    Case {
        tool: "withings_list_workouts",
        path: "/v2/measure",
        action: "getworkouts",
        file: "getworkouts.json",
        list_key: "series",
        epoch: false,
        total: 5,
    },
    Case {
        tool: "withings_list_sleep_summary",
        path: "/v2/sleep",
        action: "getsummary",
        file: "sleep_getsummary.json",
        list_key: "series",
        epoch: false,
        total: 5,
    },
    Case {
        tool: "withings_list_sleep",
        path: "/v2/sleep",
        action: "get",
        file: "sleep_get.json",
        list_key: "series",
        epoch: true,
        total: 40,
    },
];

/// Serves every fixture on one fake.
pub fn serve_all(fake: &FakeWithings) {
    for c in CASES {
        serve(fake, c.path, c.action, c.file, c.list_key);
    }
    crate::detail::serve_all(fake);
}

/// Local midnight of 2026-03-01 and the last second of 2026-03-10, Europe/Paris (UTC+1).
const MAR1: i64 = 1_772_319_600;
const MAR10_END: i64 = 1_773_183_599;

#[test]
fn golden_each_tool_and_privacy_mode_with_exact_upstream_parameters() {
    for c in CASES {
        let w = World::new("golden");
        serve(&w.fake, c.path, c.action, c.file, c.list_key);
        let base = json!({"after": "2026-03-01", "before": "2026-03-10"});
        let calls: Vec<Value> = ["structured", "summary", "raw"]
            .iter()
            .enumerate()
            .map(|(i, m)| {
                let mut a = base.clone();
                a["privacy_mode"] = json!(m);
                tool_call(i as i64 + 1, c.tool, a)
            })
            .collect();
        let replies = w.mcp(&calls);
        assert_eq!(replies.len(), 3, "{}: {replies:?}", c.tool);
        let mut doc = json!({});
        for (m, r) in ["structured", "summary", "raw"].iter().zip(&replies) {
            let res = &r["result"];
            assert_ne!(res["isError"], true, "{} {m}: {res}", c.tool);
            let sc = &res["structuredContent"];
            assert_eq!(sc["count"], c.total, "{} {m}: every fixture record, across pages", c.tool);
            assert_eq!(sc["records"].as_array().unwrap().len(), c.total);
            assert_eq!(
                (&sc["has_more"], &sc["empty"], &sc["privacy_mode"]),
                (&json!(false), &json!(false), &json!(m))
            );
            assert!(sc.get("next_offset").is_none(), "{}: no next_offset when complete", c.tool);
            if *m != "raw" {
                assert_no_private_keys(sc, &format!("{} {m}", c.tool));
            }
            let md = res["content"][0]["text"].as_str().unwrap();
            assert!(
                !md.contains("[object") && !md.contains("null") && md.contains("2026-03-0"),
                "{}: {md}",
                c.tool
            );
            doc[m] = json!({"structured": sc, "markdown": md});
        }
        // The exact upstream parameters: date style, category=1, offsets while paging.
        let reqs = w.data_requests();
        for r in &reqs {
            assert_eq!((r.path.as_str(), r.action()), (c.path, c.action));
            match c.epoch {
                true => {
                    assert!(r.get("startdateymd").is_none() && r.get("enddateymd").is_none(), "{r:?}");
                    assert!(r.get("startdate").is_some() && r.get("enddate").is_some(), "{r:?}");
                }
                false => {
                    assert_eq!(
                        (r.get("startdateymd"), r.get("enddateymd")),
                        (Some("2026-03-01"), Some("2026-03-10"))
                    );
                    assert!(r.get("startdate").is_none() && r.get("enddate").is_none(), "{r:?}");
                }
            }
            assert_eq!(r.get("category"), if c.action == "getmeas" { Some("1") } else { None }, "{r:?}");
        }
        if c.action == "get" {
            // 10 days in windows of at most 7, newest first: two requests per call, contiguous,
            // covering the range.
            assert_eq!(reqs.len(), 6, "{reqs:?}");
            let num = |r: &Recorded, k: &str| r.get(k).unwrap().parse::<i64>().unwrap();
            for pair in reqs.chunks(2) {
                assert_eq!(num(&pair[1], "startdate"), MAR1);
                assert_eq!(num(&pair[0], "startdate"), num(&pair[1], "enddate") + 1);
                assert_eq!(num(&pair[0], "enddate"), MAR10_END);
                for r in pair {
                    assert!(num(r, "enddate") - num(r, "startdate") < 7 * 86_400, "{r:?}");
                    assert!(r.get("offset").is_none());
                }
            }
        } else {
            let offsets: Vec<Option<&str>> = reqs.iter().map(|r| r.get("offset")).collect();
            assert_eq!(offsets, [None, Some("2"), Some("4")].repeat(3), "{}", c.tool);
            if c.epoch {
                for r in &reqs {
                    assert_eq!(r.get("startdate"), Some(MAR1.to_string().as_str()));
                    assert_eq!(r.get("enddate"), Some(MAR10_END.to_string().as_str()));
                }
            }
        }
        doc["requests"] = json!(reqs.iter().map(|r| &r.form).collect::<Vec<_>>());
        golden(&format!("list_{}", c.tool.trim_start_matches("withings_")), &doc);
        w.assert_no_secrets();
    }
}

#[test]
fn privacy_modes_keep_what_agents_need_and_drop_identifiers() {
    let w = World::new("privacy");
    serve_all(&w.fake);
    let args = |m: &str| json!({"after": "2026-03-01", "before": "2026-03-10", "privacy_mode": m});
    // Summary: heart records are not emptied; workouts keep calories.
    let (_, heart) = w.call("withings_list_heart", args("summary"));
    for r in heart["records"].as_array().unwrap() {
        assert!(r.as_object().unwrap().len() >= 2, "emptied heart record: {r}");
    }
    // Newest first: the oldest record is the one with a heart rate.
    assert!(heart["records"][4].get("heart_rate").is_some(), "{heart}");
    let (_, wk) = w.call("withings_list_workouts", args("summary"));
    // Newest first: the oldest four have calories.
    for r in wk["records"].as_array().unwrap().iter().rev().take(4) {
        assert!(r["calories"].is_number(), "workout calories dropped: {r}");
    }
    // Raw: the upstream records, identifiers and location included, secrets removed.
    let (_, raw) = w.call("withings_list_body_measures", args("raw"));
    let mut upstream = fixture_json("e2e/getmeas.json")["records"].as_array().unwrap().clone();
    upstream.reverse();
    assert_eq!(
        raw["records"],
        json!(upstream),
        "raw mode returns the upstream records untouched, newest first"
    );
    let (_, wraw) = w.call("withings_list_workouts", args("raw"));
    assert_eq!(wraw["records"][2]["data"]["location"]["latitude"], 48.85);
    // Structured: decoded, unknown measure kept, record without optional fields still present.
    let (_, st) = w.call("withings_list_body_measures", args("structured"));
    let text = st.to_string();
    assert!(text.contains("unknown_9999"), "{st}");
    assert_eq!(st["records"][0]["grpid"], 910000004);
    for mode in ["summary", "structured"] {
        for c in CASES {
            let (r, v) = w.call(c.tool, args(mode));
            assert_eq!(r.code, 0, "{}", r.all());
            assert_no_private_keys(&v, &format!("{} {mode}", c.tool));
        }
    }
    w.assert_no_secrets();
}

#[test]
fn privacy_mode_defaults_to_config_then_structured() {
    let mut w = World::new("privdefault");
    serve_all(&w.fake);
    let (_, v) = w.call("withings_list_activity", json!({"after": "2026-03-01", "before": "2026-03-10"}));
    assert_eq!(v["privacy_mode"], "structured");
    w.set("WITHINGS_PRIVACY_MODE", "summary");
    let (_, v) = w.call("withings_list_activity", json!({"after": "2026-03-01", "before": "2026-03-10"}));
    assert_eq!(v["privacy_mode"], "summary");
    let (_, v) = w.call(
        "withings_list_activity",
        json!({"after": "2026-03-01", "before": "2026-03-10", "privacy_mode": "raw"}),
    );
    assert_eq!(v["privacy_mode"], "raw");
}

#[test]
fn sleep_detail_pages_by_offset_across_its_7_day_windows() {
    let w = World::new("sleep-offset");
    serve_all(&w.fake);
    let range = json!({"after": "2026-03-01", "before": "2026-03-10"});
    let with = |extra: Value| {
        let mut a = range.clone();
        a.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        let (r, v) = w.call("withings_list_sleep", a);
        assert_eq!(r.code, 0, "{}", r.all());
        v
    };
    let all = with(json!({"limit": 1000}));
    let total = all["count"].as_u64().unwrap();
    assert!(total > 5 && all["has_more"] == false, "{all}");
    let first = with(json!({"limit": 5}));
    assert_eq!(
        (&first["count"], &first["has_more"], &first["next_offset"]),
        (&json!(5), &json!(true), &json!(5))
    );
    let rest = with(json!({"limit": 1000, "offset": 5}));
    assert_eq!(rest["count"].as_u64().unwrap(), total - 5, "{rest}");
    assert_eq!(rest["has_more"], false);
    let ids = |v: &Value| {
        v["records"].as_array().unwrap().iter().map(|r| r["startdate"].clone()).collect::<Vec<_>>()
    };
    let mut joined = ids(&first);
    joined.extend(ids(&rest));
    assert_eq!(joined, ids(&all), "first page + rest = everything, in order, nothing repeated");
}

#[test]
fn dst_change_inside_the_range_gives_exact_epochs() {
    let w = World::new("dst");
    serve_all(&w.fake);
    let args = json!({"after": "2026-03-28", "before": "2026-03-30"});
    for tool in [
        "withings_list_body_measures",
        "withings_list_heart",
        "withings_list_sleep",
        "withings_list_activity",
    ] {
        let (r, _) = w.call(tool, args.clone());
        assert_eq!(r.code, 0, "{}", r.all());
    }
    let reqs = w.data_requests();
    // 2026-03-28 00:00 CET (UTC+1) and 2026-03-30 23:59:59 CEST (UTC+2): the night of the 29th is 23 h.
    for r in reqs.iter().filter(|r| r.action() != "getactivity") {
        assert_eq!((r.get("startdate"), r.get("enddate")), (Some("1774652400"), Some("1774907999")), "{r:?}");
    }
    let act = reqs.iter().find(|r| r.action() == "getactivity").unwrap();
    assert_eq!((act.get("startdateymd"), act.get("enddateymd")), (Some("2026-03-28"), Some("2026-03-30")));
}

#[test]
fn iso_dates_with_offsets_are_exact_instants() {
    let w = World::new("iso");
    serve_all(&w.fake);
    let (r, _) = w.call(
        "withings_list_body_measures",
        json!({"after": "2026-03-01T08:00:00+01:00", "before": "2026-03-02T06:30:00Z"}),
    );
    assert_eq!(r.code, 0, "{}", r.all());
    let req = &w.data_requests()[0];
    assert_eq!(req.get("startdate"), Some("1772348400"));
    // The instant given, inclusive end: never later than 06:30:00Z.
    let end: i64 = req.get("enddate").unwrap().parse().unwrap();
    assert!((1_772_432_999..=1_772_433_000).contains(&end), "{end}");
}

#[test]
fn a_limit_inside_a_page_continues_exactly_with_offset() {
    let w = World::new("limit");
    serve_all(&w.fake);
    let range = json!({"after": "2026-03-01", "before": "2026-03-10"});
    let mut all = Vec::new();
    let mut args = range.clone();
    args["limit"] = json!(3);
    let (_, first) = w.call("withings_list_body_measures", args.clone());
    assert_eq!(
        (&first["count"], &first["has_more"], &first["next_offset"]),
        (&json!(3), &json!(true), &json!(3))
    );
    assert_eq!(first["empty"], false);
    all.extend(first["records"].as_array().unwrap().iter().map(|r| r["grpid"].clone()));
    args["offset"] = first["next_offset"].clone();
    let (_, rest) = w.call("withings_list_body_measures", args);
    assert_eq!((&rest["count"], &rest["has_more"]), (&json!(2), &json!(false)));
    assert!(rest.get("next_offset").is_none());
    all.extend(rest["records"].as_array().unwrap().iter().map(|r| r["grpid"].clone()));
    let want: Vec<Value> = fixture_json("e2e/getmeas.json")["records"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .map(|r| r["grpid"].clone())
        .collect();
    assert_eq!(all, want, "no row dropped or repeated, newest first");
    let offsets: Vec<Option<String>> =
        w.data_requests().iter().map(|r| r.get("offset").map(str::to_string)).collect();
    // Each call reads the whole range (to put it newest first), then continues by `offset`.
    assert_eq!(
        offsets,
        [None, Some("2"), Some("4")].repeat(2).into_iter().map(|o| o.map(String::from)).collect::<Vec<_>>()
    );
    // Markdown tells how to continue.
    let res = w.mcp_call(
        "withings_list_body_measures",
        json!({"after": "2026-03-01", "before": "2026-03-10", "limit": 3}),
    );
    assert!(res["content"][0]["text"].as_str().unwrap().contains("`offset` = 3"), "{res}");
    // A limit at a page boundary.
    let (_, two) =
        w.call("withings_list_heart", json!({"after": "2026-03-01", "before": "2026-03-10", "limit": 2}));
    assert_eq!((&two["count"], &two["has_more"], &two["next_offset"]), (&json!(2), &json!(true), &json!(2)));
}

/// Runs a bad call: exit 1, an error naming `argument`, and no upstream request.
fn assert_rejected(w: &World, tool: &str, args: Value, argument: &str) {
    let before = w.data_requests().len();
    let (r, v) = w.call(tool, args.clone());
    assert_eq!(r.code, 1, "{tool} {args}: {}", r.all());
    assert_eq!(v["error"]["kind"], "invalid_argument", "{tool} {args}: {v}");
    assert_eq!(v["error"]["argument"], argument, "{tool} {args}: {v}");
    assert!(r.stderr.contains(argument), "{}", r.stderr);
    assert_eq!(w.data_requests().len(), before, "{tool} {args}: an upstream request was made");
    let res = w.mcp_call(tool, args.clone());
    assert_eq!(res["isError"], true, "{tool} {args}: {res}");
    assert!(res["content"][0]["text"].as_str().unwrap().contains(argument), "{res}");
    assert_eq!(w.data_requests().len(), before, "{tool} {args}: an upstream request was made over MCP");
}

#[test]
fn bad_dates_are_rejected_naming_the_argument_before_any_request() {
    let w = World::new("baddates");
    serve_all(&w.fake);
    for c in CASES {
        for bad in ["2026-02-30", "yesterday", "2026-13-01T00:00Z"] {
            assert_rejected(&w, c.tool, json!({"after": bad}), "after");
            assert_rejected(&w, c.tool, json!({"after": "2026-01-01", "before": bad}), "before");
        }
    }
    w.assert_no_secrets();
}

#[test]
fn reversed_ranges_limits_and_unknown_keys_are_rejected() {
    let w = World::new("badargs");
    serve_all(&w.fake);
    for c in CASES {
        let before = w.data_requests().len();
        let (r, v) = w.call(c.tool, json!({"after": "2026-03-10", "before": "2026-03-01"}));
        assert_eq!(r.code, 1, "{}", r.all());
        assert_eq!(v["error"]["kind"], "invalid_argument", "{v}");
        assert!(["after", "before"].contains(&v["error"]["argument"].as_str().unwrap()), "{v}");
        assert_eq!(w.data_requests().len(), before);
        assert_rejected(&w, c.tool, json!({"limit": 0}), "limit");
        assert_rejected(&w, c.tool, json!({"limit": 1001}), "limit");
        assert_rejected(&w, c.tool, json!({"startdate": "2026-03-01"}), "startdate");
        assert_rejected(&w, c.tool, json!({"privacy_mode": "everything"}), "privacy_mode");
    }
    assert_rejected(&w, "withings_list_sleep", json!({"offset": -1}), "offset");
    // The maximum itself is fine.
    let (r, _) = w.call(
        "withings_list_activity",
        json!({"after": "2026-03-01", "before": "2026-03-10", "limit": 1000}),
    );
    assert_eq!(r.code, 0, "{}", r.all());
}

#[test]
fn an_offset_that_does_not_advance_is_a_clear_error_not_a_loop() {
    let w = World::new("stuck");
    w.fake.on("/v2/measure", "getactivity", |_| {
        json!({"status": 0, "body": {"activities": [{"date": "2026-03-01", "steps": 1}], "more": true, "offset": 0}})
    });
    let (r, v) = w.call("withings_list_activity", json!({"after": "2026-03-01", "before": "2026-03-10"}));
    assert_eq!(r.code, 1, "{}", r.all());
    assert!(v["error"]["message"].as_str().unwrap().contains("did not advance"), "{v}");
    assert!(v.get("records").is_none());
    assert_eq!(w.data_requests().len(), 1, "stopped at once");
}

#[test]
fn an_empty_result_is_flagged_and_said() {
    let w = World::new("empty");
    for c in CASES {
        let key = c.list_key;
        w.fake.on(c.path, c.action, move |_| json!({"status": 0, "body": {key: [], "more": 0, "offset": 0}}));
    }
    for c in CASES {
        let res = w.mcp_call(c.tool, json!({"after": "2026-03-01", "before": "2026-03-03"}));
        let sc = &res["structuredContent"];
        assert_eq!(
            (&sc["empty"], &sc["count"], &sc["has_more"]),
            (&json!(true), &json!(0), &json!(false)),
            "{res}"
        );
        let md = res["content"][0]["text"].as_str().unwrap();
        assert!(md.contains("No ") && md.contains("recorded in this range"), "{md}");
    }
}

#[test]
fn a_rate_limit_in_the_middle_of_paging_is_an_error_not_a_partial_answer() {
    for no_retry in [true, false] {
        let mut w = World::new("601");
        if no_retry {
            w.set("WITHINGS_NO_RETRY", "1");
        }
        let doc = fixture_json("e2e/getmeas.json");
        w.fake.on("/measure", "getmeas", move |rec| match rec.get("offset") {
            Some("2") => json!({"status": 601, "body": {}, "error": "Too many requests"}),
            _ => page(&doc, rec, "measuregrps"),
        });
        let (r, v) =
            w.call("withings_list_body_measures", json!({"after": "2026-03-01", "before": "2026-03-10"}));
        assert_eq!(r.code, 1, "{}", r.all());
        assert_eq!(v["error"]["kind"], "rate_limited", "{v}");
        assert!(v.get("records").is_none() && v.get("count").is_none(), "{v}");
        let n = w.data_requests().len();
        assert_eq!(n, if no_retry { 2 } else { 4 }, "first page, then the failing page (and its retries)");
        let res =
            w.mcp_call("withings_list_body_measures", json!({"after": "2026-03-01", "before": "2026-03-10"}));
        assert_eq!(res["isError"], true, "{res}");
        assert!(res.get("structuredContent").is_none_or(|s| s.get("records").is_none()), "{res}");
        w.assert_no_secrets();
    }
}
