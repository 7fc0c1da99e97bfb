//! End-to-end tests of the real binary. One test crate; one module per user-facing area.

mod http;
mod stdio;
