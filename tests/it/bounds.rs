//! CONTRACT §8.1's batch cap and memory bound, end to end: hostile messages of up to 1 MiB,
//! over HTTP and on stdio, get their answer, never take the process above 64 MiB of peak
//! resident memory, and the server keeps serving. (Issue 11: a batch of 1,000 `tools/list`
//! took the process to 716 MB; 20,778 entries in 1 MiB aborted it on allocation failure.)

use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;

use serde_json::{Value, json};

use crate::http::{TOKEN, exchange, start};
use crate::stdio::{command, req, vm_hwm_kib};

const MAX_HWM_KIB: u64 = 64 * 1024;

fn batch(n: usize, method: &str, params: &Value) -> String {
    let one = |i: usize| json!({"jsonrpc":"2.0","id":i,"method":method,"params":params}).to_string();
    format!("[{}]", (0..n).map(one).collect::<Vec<_>>().join(","))
}

/// What each hostile message must get back.
enum Want {
    /// One `-32600` error whose message contains this (no reply per entry).
    Refused(&'static str),
    /// A batch reply with this many entries, the last of them an error saying this, if given.
    Replies(usize, Option<&'static str>),
    /// One reply to the request with this id.
    Answer(i64),
}

/// Hostile messages of at most 1 MiB, in 2025-03-26 (the one era with batches).
fn hostile() -> Vec<(&'static str, String, Want)> {
    let list = json!({"name":"withings_list_body_measures","arguments":{"limit":1000,"after":"2025-01-01","response_format":"json"}});
    let numbers = json!({"name":"withings_trends","arguments":{"metric": vec![0; 99_000]}});
    let string = json!({"pad": "a".repeat(1_000_000)});
    let arrays = format!("[{}]", vec!["[]"; 340_000].join(","));
    vec![
        (
            "5,000 tools/list",
            batch(5000, "tools/list", &json!({})),
            Want::Refused("at most 50 messages, this one 5000"),
        ),
        ("18,000 pings in 1 MiB", batch(18_000, "ping", &json!({})), Want::Refused("at most 50")),
        ("340,000 empty arrays", arrays, Want::Refused("at most 50")),
        ("50 tools/list", batch(50, "tools/list", &json!({})), Want::Replies(50, None)),
        // Each reply is ~1.8 MB: the batch stops running requests past 8 MiB of replies.
        (
            "50 list calls of 1,000 records",
            batch(50, "tools/call", &list),
            Want::Replies(50, Some("not run")),
        ),
        ("99,000 numbers in tool arguments", req(7, "tools/call", numbers).to_string(), Want::Answer(7)),
        ("a 1 MB string", req(8, "ping", string).to_string(), Want::Answer(8)),
    ]
}

fn check(what: &str, reply: &Value, want: &Want) {
    match want {
        Want::Refused(says) => {
            assert!(reply.is_object(), "{what}: one error, not one per entry");
            assert_eq!(reply["error"]["code"], -32600, "{what}: {reply}");
            assert!(reply["error"]["message"].as_str().unwrap().contains(says), "{what}: {reply}");
        }
        Want::Replies(n, last) => {
            let replies = reply.as_array().unwrap_or_else(|| panic!("{what}: {reply}"));
            assert_eq!(replies.len(), *n, "{what}");
            assert!(replies[0]["result"].is_object(), "{what}: the first entry runs");
            let says = replies[n - 1]["error"]["message"].as_str();
            assert_eq!(
                says.map(|m| last.is_some_and(|l| m.contains(l))),
                last.map(|_| true),
                "{what}: {says:?}"
            );
        }
        Want::Answer(id) => assert_eq!(reply["id"], *id, "{what}: {reply}"),
    }
}

#[test]
fn hostile_messages_over_http_stay_under_64_mib() {
    let server = start(&[("WITHINGS_DEMO", "1")]);
    let port = server.port;
    let post = |body: &str| {
        let raw = format!(
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {TOKEN}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        let (status, body) = exchange(port, raw.as_bytes()).expect("an answer");
        (status, serde_json::from_slice::<Value>(&body).unwrap())
    };
    for (what, body, want) in hostile() {
        assert!(body.len() <= 1024 * 1024, "{what}: {} bytes", body.len());
        let (status, reply) = post(&body);
        assert_eq!(status, if matches!(want, Want::Refused(_)) { 400 } else { 200 }, "{what}");
        check(what, &reply, &want);
    }
    let (status, pong) = post(r#"{"jsonrpc":"2.0","id":"after","method":"ping"}"#);
    assert_eq!((status, &pong["id"]), (200, &json!("after")), "still serving");
    let hwm = vm_hwm_kib(server.child.id());
    eprintln!("HTTP, hostile messages: VmHWM {hwm} KiB");
    assert!(hwm <= MAX_HWM_KIB, "peak RSS {hwm} KiB over HTTP");
}

#[test]
fn hostile_messages_on_stdio_stay_under_64_mib() {
    let mut child = command(&[("WITHINGS_DEMO", "1")])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut exchange = |line: &str| {
        stdin.write_all(line.as_bytes()).and_then(|()| stdin.write_all(b"\n")).unwrap();
        let mut reply = String::new();
        out.read_line(&mut reply).unwrap();
        serde_json::from_str::<Value>(&reply).unwrap()
    };
    let init = json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"it","version":"1"}}});
    assert_eq!(exchange(&init.to_string())["result"]["protocolVersion"], "2025-03-26");
    for (what, line, want) in hostile() {
        check(what, &exchange(&line), &want);
    }
    // A line over the 1 MiB limit is skipped whole and answered with one error.
    let long = req(9, "ping", json!({"pad": "a".repeat(1536 * 1024)})).to_string();
    let reply = exchange(&long);
    assert_eq!(reply["error"]["code"], -32600, "{reply}");
    assert!(reply["error"]["message"].as_str().unwrap().contains("1048576-byte limit"), "{reply}");
    assert_eq!(exchange(r#"{"jsonrpc":"2.0","id":"after","method":"ping"}"#)["id"], "after", "still serving");
    let hwm = vm_hwm_kib(child.id());
    eprintln!("stdio, hostile messages: VmHWM {hwm} KiB");
    assert!(hwm <= MAX_HWM_KIB, "peak RSS {hwm} KiB on stdio");
    drop(stdin);
    assert!(child.wait().unwrap().success());
}
