//! The stdio transport: one JSON-RPC message per line in, at most one line out, flushed.
//!
//! Memory stays bounded: a line longer than `MAX_LINE` is skipped to its newline and answered
//! with one error, and the server keeps serving. Blank lines are ignored. A final line without a
//! newline is still handled. A closed stdout ends the loop quietly.
//!
//! Replies are flushed before the loop could block on input: when the next complete line is
//! already buffered, its reply joins the same write, so a burst of requests costs one system
//! call per burst rather than one per reply.
//!
//! Messages are handled one at a time. While one runs, its progress and log notifications are
//! written through the same writer, one flushed line each, so they reach the client before the
//! reply.

use std::cell::RefCell;
use std::io::{self, BufRead, BufReader, BufWriter, Read, Write};
use std::rc::Rc;

use serde_json::Value;

use crate::mcp::dispatch::Engine;
use crate::mcp::jsonrpc;
use crate::mcp::notify::Notify;
use crate::{Error, Result};

/// The largest message accepted on one line (1 MiB, as over HTTP): far above any MCP request we
/// serve, and small enough that its parse stays well inside the memory bound (CONTRACT §8.1).
pub const MAX_LINE: usize = jsonrpc::MAX_MESSAGE;

/// The writer shared by replies and the notifications sent during a call.
type Out<W> = Rc<RefCell<BufWriter<W>>>;

/// Writes each notification as one flushed line. A write that fails is dropped: the reply that
/// follows meets the same failure and ends the loop.
struct Lines<W: Write>(Out<W>);

impl<W: Write> Notify for Lines<W> {
    fn notify(&self, message: &Value) {
        if let Ok(mut out) = self.0.try_borrow_mut() {
            let _ = write_line(&mut *out, &serde_json::to_string(message).unwrap_or_default());
        }
    }
}

fn write_line(out: &mut dyn Write, text: &str) -> io::Result<()> {
    out.write_all(text.as_bytes()).and_then(|()| out.write_all(b"\n")).and_then(|()| out.flush())
}

/// Serves until EOF on `input`. Returns Ok on EOF and when `output` is closed by the client.
pub fn serve<R: Read, W: Write + 'static>(
    engine: &mut Engine,
    input: &mut BufReader<R>,
    output: W,
) -> Result<()> {
    let out: Out<W> = Rc::new(RefCell::new(BufWriter::with_capacity(64 * 1024, output)));
    engine.set_notify(Some(Rc::new(Lines(out.clone()))));
    let served = serve_lines(engine, input, &out);
    engine.set_notify(None);
    served
}

/// The loop; `out` is borrowed only to write, so that a call can write notifications meanwhile.
fn serve_lines<R: Read, W: Write>(engine: &mut Engine, input: &mut BufReader<R>, out: &Out<W>) -> Result<()> {
    let output = |f: &mut dyn FnMut(&mut dyn Write) -> io::Result<()>| match out.try_borrow_mut() {
        Ok(mut w) => f(&mut *w),
        Err(_) => Err(io::Error::other("stdout is in use")),
    };
    let mut line = Vec::new();
    loop {
        line.clear();
        let status = read_line(input, &mut line, MAX_LINE).map_err(|e| Error::io("stdin", e))?;
        let reply = match status {
            Line::Eof => return flush(output(&mut |w| w.flush())),
            Line::TooLong(n) => {
                let e = jsonrpc::RpcError::new(
                    jsonrpc::INVALID_REQUEST,
                    format!(
                        "invalid request: message of {n} bytes exceeds the {MAX_LINE}-byte limit; skipped"
                    ),
                );
                Some(crate::value::text(&jsonrpc::error(serde_json::Value::Null, e)))
            }
            Line::Complete | Line::Partial => {
                let text = trim_line(&line);
                match text.is_empty() {
                    true => None,
                    false => engine.handle_bytes(text),
                }
            }
        };
        if let Some(reply) = reply {
            match output(&mut |w| write_line(w, &reply)) {
                Ok(()) => {}
                // The client closed our stdout: there is nobody left to answer.
                Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return Ok(()),
                Err(e) => return Err(Error::io("stdout", e)),
            }
        }
        if matches!(status, Line::Partial) {
            return flush(output(&mut |w| w.flush()));
        }
    }
}

/// The result of the last flush: a closed stdout is a normal end.
fn flush(flushed: io::Result<()>) -> Result<()> {
    match flushed {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => Err(Error::io("stdout", e)),
        _ => Ok(()),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Line {
    /// A line ending in `\n`.
    Complete,
    /// The last line of the input, without `\n`.
    Partial,
    /// A line longer than the limit, consumed and dropped; holds its length.
    TooLong(usize),
    Eof,
}

/// Reads one line into `buf` without ever holding more than `max` bytes of it.
fn read_line(input: &mut dyn BufRead, buf: &mut Vec<u8>, max: usize) -> io::Result<Line> {
    let mut total = 0usize;
    let mut overflow = false;
    loop {
        let chunk = match input.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            return Ok(match (total, overflow) {
                (0, _) => Line::Eof,
                (n, true) => Line::TooLong(n),
                (_, false) => Line::Partial,
            });
        }
        let (take, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        total += take;
        if !overflow {
            match buf.len() + take > max + 1 {
                true => {
                    overflow = true;
                    buf.clear();
                    buf.shrink_to(64 * 1024);
                }
                false => buf.extend_from_slice(chunk.get(..take).unwrap_or_default()),
            }
        }
        input.consume(take);
        if done {
            return Ok(match overflow {
                true => Line::TooLong(total),
                false => Line::Complete,
            });
        }
    }
}

fn trim_line(line: &[u8]) -> &[u8] {
    let mut end = line.len();
    while end > 0 && matches!(line.get(end - 1), Some(b'\n' | b'\r' | b' ' | b'\t')) {
        end -= 1;
    }
    let start = line.iter().take(end).take_while(|b| matches!(b, b' ' | b'\t')).count();
    line.get(start..end).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use std::io::Cursor;

    use serde_json::Value;

    use super::*;
    use crate::store::config::Env;
    use crate::tools::Ctx;

    /// Collects what the server writes (the writer must outlive the server's notifiers).
    #[derive(Clone, Default)]
    struct Shared(Rc<RefCell<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.borrow_mut().write(buf)
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    fn run_with(env: &[(&str, &str)], input: &[u8]) -> Vec<Value> {
        let mut engine = Engine::stdio(Ctx::new(Env::from_pairs(env), 0));
        let out = Shared::default();
        serve(&mut engine, &mut BufReader::new(Cursor::new(input.to_vec())), out.clone()).unwrap();
        let text = String::from_utf8(out.0.take()).unwrap();
        text.lines().map(|l| serde_json::from_str(l).unwrap()).collect()
    }

    fn run(input: &[u8]) -> Vec<Value> {
        run_with(&[("HOME", "/nonexistent")], input)
    }

    #[test]
    fn progress_notifications_come_before_the_reply_and_only_with_a_token() {
        let lines = |messages: &[Value]| messages.iter().map(|m| format!("{m}\n")).collect::<String>();
        let init = serde_json::json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18"}});
        let call = |id: i64, meta: Value| {
            serde_json::json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{
                "name":"withings_list_sleep","arguments":{"after":"2026-01-01","before":"2026-01-20"},"_meta":meta}})
        };
        let env = [("HOME", "/nonexistent"), ("WITHINGS_DEMO", "1"), ("WITHINGS_TZ", "+01:00")];
        let input = lines(&[
            init,
            call(1, serde_json::json!({"progressToken": "p1"})),
            call(2, serde_json::json!({})),
        ]);
        let out = run_with(&env, input.as_bytes());
        let methods: Vec<String> = out
            .iter()
            .map(|m| m["method"].as_str().map_or(format!("reply {}", m["id"]), str::to_string))
            .collect();
        // 19 days are three 7-day windows of sleep detail: three requests.
        let progress = "notifications/progress".to_string();
        assert_eq!(methods, ["reply 0", &progress, &progress, &progress, "reply 1", "reply 2"], "{out:?}");
        let p: Vec<&Value> = out[1..4].iter().map(|m| &m["params"]["progress"]).collect();
        assert_eq!(p, [1, 2, 3]);
        assert!(out[1..4].iter().all(|m| m["params"]["progressToken"] == "p1" && m["params"]["total"] == 3));
        assert_eq!(out[4]["result"]["structuredContent"]["upstream"]["requests"], 3);
    }

    #[test]
    fn answers_one_line_per_request_and_skips_blank_lines() {
        let input = b"\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r\n   \n{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n";
        let out = run(input);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0]["id"], 1);
    }

    #[test]
    fn a_huge_line_gets_one_error_and_the_next_line_is_served() {
        let mut input = vec![b'x'; MAX_LINE + 10];
        input.extend_from_slice(b"\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}");
        let out = run(&input);
        assert_eq!(out.len(), 2);
        assert_eq!(out[0]["error"]["code"], -32600);
        assert!(out[0]["error"]["message"].as_str().unwrap().contains("exceeds"));
        assert_eq!(out[1]["id"], 2, "the final line without newline is still served");
    }

    #[test]
    fn read_line_holds_at_most_the_limit() {
        let data = vec![b'a'; 100];
        let mut cur = Cursor::new(data);
        let mut buf = Vec::new();
        assert_eq!(read_line(&mut cur, &mut buf, 10).unwrap(), Line::TooLong(100));
        assert!(buf.len() <= 11);
    }

    #[test]
    fn invalid_utf8_and_bad_json_are_parse_errors() {
        let out = run(b"\xff\xfe\n{not json}\n");
        assert_eq!(out.len(), 2);
        assert_eq!(out[0]["error"]["code"], -32700);
        assert!(out[0]["error"]["message"].as_str().unwrap().contains("UTF-8"));
        assert_eq!(out[1]["error"]["code"], -32700);
        assert_eq!(out[1]["id"], Value::Null);
    }
}
