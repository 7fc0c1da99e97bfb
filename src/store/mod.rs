//! Local files under `~/.withings-mcp/`: configuration and tokens. Only this layer writes there.

pub mod config;
pub mod fsutil;
pub mod tokens;
