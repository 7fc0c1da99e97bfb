//! The `withings-mcp` binary: parse, run one mode, map errors to exit codes.
#![forbid(unsafe_code)]

fn main() {}
