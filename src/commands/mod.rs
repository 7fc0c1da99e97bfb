//! One file per command that is not a server. Only this layer and `server/` write to stdout.

pub mod auth;
pub mod call;
pub mod chart;
pub mod clients;
pub mod doctor;
pub mod export;
pub mod setup;
