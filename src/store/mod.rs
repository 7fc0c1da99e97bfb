//! Local files: configuration, tokens, pending sign-ins and the HTTP token under `~/.withings-mcp/`
//! (only this layer writes there), and the read-only system zone database.

pub mod config;
pub mod fsutil;
pub mod http_token;
pub mod pending;
pub mod tokens;
pub mod zones;
