//! Transports: newline-delimited JSON-RPC on stdio, and loopback Streamable HTTP.

pub mod http;
pub mod stdio;
