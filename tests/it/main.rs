//! End-to-end tests of the real binary. One test crate; one module per user-facing area.
// Test helpers may panic: a failed expectation is how a test reports.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
// Tests may sort with the standard library (clippy.toml disallows it in the program: binary size).
#![allow(clippy::disallowed_methods)]

mod access;
mod accounts;
mod apps;
mod bounds;
mod briefs;
mod calls;
mod concurrency;
mod consistency;
mod data;
mod demo;
mod detail;
mod export;
mod fake;
mod faults;
mod http;
mod load;
mod nightly;
mod pictures;
mod regressions;
mod setup;
mod signin;
mod stdio;
mod wording;
