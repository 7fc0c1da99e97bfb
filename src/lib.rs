//! withings-mcp: a local, synchronous MCP server and CLI for one person's Withings data.
//!
//! Layers, each importing only the ones below it (see README "Architecture"):
//! `cli` → `commands`, `server` → `mcp` → `tools` → `domain`, `withings` → `store`.
#![forbid(unsafe_code)]
// Tests may sort with the standard library (clippy.toml disallows it in the program: binary size).
#![cfg_attr(test, allow(clippy::disallowed_methods))]

pub mod cli;
pub mod commands;
pub mod domain;
pub mod error;
pub mod image;
pub mod mcp;
pub mod redact;
pub mod server;
pub mod sort;
pub mod store;
pub mod strmap;
pub mod text;
pub mod tools;
pub mod value;
pub mod withings;

pub use error::{Error, Result};

/// The version printed by `--version` and sent as `serverInfo.version`.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
