//! Local files under `~/.withings-mcp/` (only this layer writes there): configuration, accounts
//! and their tokens, pending sign-ins and the HTTP token; and the read-only system zone database.

pub mod accounts;
pub mod config;
pub mod fsutil;
pub mod http_token;
pub mod outdir;
pub mod pending;
pub mod tokens;
pub mod zones;
