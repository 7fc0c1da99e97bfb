//! The stdio transport: one JSON-RPC message per line in, at most one line out, flushed.
//!
//! Memory stays bounded: a line longer than `MAX_LINE` is skipped to its newline and answered
//! with one error, and the server keeps serving. Blank lines are ignored. A final line without a
//! newline is still handled. A closed stdout ends the loop quietly.
//!
//! Replies are flushed before the loop could block on input: when the next complete line is
//! already buffered, its reply joins the same write, so a burst of requests costs one system
//! call per burst rather than one per reply.

use std::io::{self, BufRead, BufReader, BufWriter, Read, Write};

use crate::mcp::dispatch::Engine;
use crate::mcp::jsonrpc;
use crate::{Error, Result};

/// The largest message accepted on one line (1 MiB, as over HTTP): far above any MCP request we
/// serve, and small enough that its parse stays well inside the memory bound (CONTRACT §8.1).
pub const MAX_LINE: usize = jsonrpc::MAX_MESSAGE;

/// Serves until EOF on `input`. Returns Ok on EOF and when `output` is closed by the client.
pub fn serve<R: Read>(engine: &mut Engine, input: &mut BufReader<R>, output: &mut dyn Write) -> Result<()> {
    let mut output = BufWriter::with_capacity(64 * 1024, output);
    let mut line = Vec::new();
    loop {
        line.clear();
        let status = read_line(input, &mut line, MAX_LINE).map_err(|e| Error::io("stdin", e))?;
        let reply = match status {
            Line::Eof => return flush(&mut output),
            Line::TooLong(n) => {
                let e = jsonrpc::RpcError::new(
                    jsonrpc::INVALID_REQUEST,
                    format!(
                        "invalid request: message of {n} bytes exceeds the {MAX_LINE}-byte limit; skipped"
                    ),
                );
                Some(jsonrpc::error(serde_json::Value::Null, e).to_string())
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
            let written = output
                .write_all(reply.as_bytes())
                .and_then(|()| output.write_all(b"\n"))
                .and_then(|()| output.flush());
            match written {
                Ok(()) => {}
                // The client closed our stdout: there is nobody left to answer.
                Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return Ok(()),
                Err(e) => return Err(Error::io("stdout", e)),
            }
        }
        if matches!(status, Line::Partial) {
            return flush(&mut output);
        }
    }
}

fn flush(output: &mut dyn Write) -> Result<()> {
    match output.flush() {
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

    fn run(input: &[u8]) -> Vec<Value> {
        let mut engine = Engine::stdio(Ctx { env: Env::from_pairs(&[("HOME", "/nonexistent")]), now: 0 });
        let mut out = Vec::new();
        serve(&mut engine, &mut BufReader::new(Cursor::new(input.to_vec())), &mut out).unwrap();
        String::from_utf8(out).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
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
