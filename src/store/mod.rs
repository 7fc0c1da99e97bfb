//! Local files: configuration and tokens under `~/.withings-mcp/` (only this layer writes there), and the read-only system zone database.

pub mod config;
pub mod fsutil;
pub mod http_token;
pub mod tokens;
pub mod zones;
