//! The MCP protocol engine: JSON-RPC framing, version eras, and method dispatch. No I/O.

pub mod dispatch;
pub mod jsonrpc;
pub mod notify;
