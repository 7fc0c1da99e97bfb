//! Everything that talks to Withings: the transport seam, the client, signing and OAuth.
//! Only this layer knows the Withings wire shapes; it hands plain values up.

pub mod budget;
pub mod client;
pub mod demo;
pub mod http;
pub mod oauth;
pub mod pace;
pub mod sign;
pub mod status;
pub mod upstream;
pub mod windows;
pub mod wire;
