//! `HttpUpstream`: the real transport, on ureq. One agent, form POSTs, a whole-request timeout
//! (cut to the time left in the call), a body size cap. HTTP error statuses are returned as `Reply`s (Withings puts its own status in the
//! body); only network failures are errors.
//!
//! `WITHINGS_HTTP_TIMEOUT_SECS` (hidden, for tests and slow links) overrides the 30 s timeout.

use std::cell::Cell;
use std::time::Duration;

use crate::store::config::{Config, Env};
use crate::withings::upstream::{Reply, Upstream};
use crate::{Error, Result, VERSION};

/// Default whole-request timeout.
pub const DEFAULT_TIMEOUT_SECS: u64 = 30;
/// Largest answer read (ECG signals and a week of sleep detail stay well below this).
pub const MAX_BODY_BYTES: u64 = 32 * 1024 * 1024;

/// Sends requests to `base_url` (the API base, e.g. `https://wbsapi.withings.net`).
pub struct HttpUpstream {
    agent: ureq::Agent,
    base_url: String,
    /// `host[:port]` of `base_url`, named in network errors (never the path or query).
    host: String,
    timeout_secs: u64,
    /// The last body handed back ([`Upstream::recycle`]), read into by the next request: musl's
    /// malloc maps a block over 128 KB afresh on every allocation and unmaps it on free, so a
    /// day of intraday (250 KB) faulted in 60 new pages per request; kept, they stay mapped.
    spare: Cell<String>,
}

impl HttpUpstream {
    /// An upstream for `base_url` with a whole-request timeout.
    pub fn new(base_url: &str, timeout_secs: u64) -> HttpUpstream {
        // The whole-request timeout is set per request, from the time left in the call.
        let config = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .user_agent(format!("withings-mcp/{VERSION}"))
            // A connection's buffers are allocated and zeroed whole, and Withings closes its
            // connections often: at ureq's 128 KB each, a week of intraday (7 requests) zeroed
            // 1.8 MB, a tenth of its work. Our requests are a few hundred bytes; the input buffer
            // keeps room for the largest response head ureq accepts (64 KB).
            .output_buffer_size(16 * 1024)
            .input_buffer_size(64 * 1024)
            .build();
        let base_url = base_url.trim_end_matches('/').to_string();
        let after_scheme = base_url.split_once("://").map_or(base_url.as_str(), |(_, rest)| rest);
        let host = after_scheme.split(['/', '?', '#']).next().unwrap_or_default();
        // Credentials in a URL (`user:pass@host`) are never shown.
        let host = host.rsplit_once('@').map_or(host, |(_, h)| h).to_string();
        HttpUpstream { agent: config.into(), base_url, host, timeout_secs, spare: Cell::default() }
    }

    /// The upstream described by the configuration: `WITHINGS_API_URL`, and the timeout from
    /// `WITHINGS_HTTP_TIMEOUT_SECS` when set.
    pub fn from_config(env: &Env, cfg: &Config) -> HttpUpstream {
        let timeout = env
            .get("WITHINGS_HTTP_TIMEOUT_SECS")
            .and_then(|s| s.parse().ok())
            .unwrap_or(DEFAULT_TIMEOUT_SECS);
        HttpUpstream::new(cfg.api_url(), timeout)
    }
}

impl Upstream for HttpUpstream {
    fn post(&self, path: &str, form: &[(&str, String)], bearer: Option<&str>) -> Result<Reply> {
        self.send(path, form, bearer, Duration::from_secs(self.timeout_secs))
    }

    fn post_within(
        &self,
        path: &str,
        form: &[(&str, String)],
        bearer: Option<&str>,
        left: Duration,
    ) -> Result<Reply> {
        self.send(path, form, bearer, left.min(Duration::from_secs(self.timeout_secs)))
    }

    fn recycle(&self, body: String) {
        self.spare.set(body);
    }
}

impl HttpUpstream {
    fn send(
        &self,
        path: &str,
        form: &[(&str, String)],
        bearer: Option<&str>,
        timeout: Duration,
    ) -> Result<Reply> {
        let url = format!("{}{path}", self.base_url);
        let mut req = self.agent.post(&url).config().timeout_global(Some(timeout)).build();
        req = req.header("Accept", "application/json");
        if let Some(token) = bearer {
            req = req.header("Authorization", format!("Bearer {token}"));
        }
        let pairs = form.iter().map(|(k, v)| (*k, v.as_str()));
        let mut resp = req.send_form(pairs).map_err(|e| transport(&self.host, path, &e, timeout))?;
        let http_status = resp.status().as_u16();
        let retry_after_secs = resp
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok());
        // Sized from Content-Length up front: a ten-year getmeas answer is 15 MB, and growing a
        // buffer by doubling copied it several times over and faulted in twice the pages.
        let expected = resp.body().content_length().unwrap_or(0).min(MAX_BODY_BYTES);
        let mut body = self.spare.take();
        body.clear();
        body.reserve(usize::try_from(expected).unwrap_or(0));
        std::io::Read::read_to_string(
            &mut resp.body_mut().with_config().limit(MAX_BODY_BYTES).reader(),
            &mut body,
        )
        .map_err(|e| transport(&self.host, path, &ureq::Error::from(e), timeout))?;
        Ok(Reply { http_status, retry_after_secs, body })
    }
}

/// A transport error that names the host and what failed (DNS, refused, TLS, timeout…), but
/// never the URL's path, query or any header.
fn transport(host: &str, path: &str, e: &ureq::Error, timeout: Duration) -> Error {
    let secs = timeout.as_secs_f64().ceil();
    let message = match e {
        ureq::Error::Timeout(_) => format!("no answer from {host} within {secs} s (timeout)"),
        ureq::Error::BodyExceedsLimit(n) => format!("answer from {host} larger than {n} bytes"),
        ureq::Error::Io(io) => io_failure(host, io, secs),
        ureq::Error::HostNotFound => format!("cannot resolve {host} (DNS lookup failed)"),
        ureq::Error::ConnectionFailed => format!("cannot connect to {host} (connection failed)"),
        ureq::Error::Tls(_) | ureq::Error::Rustls(_) => {
            format!("TLS with {host} failed (secure connection refused)")
        }
        other => format!("network error reaching {host}: {other}"),
    };
    Error::Transport { endpoint: path.to_string(), message }
}

/// What an I/O failure means to a person. A failed name lookup has no `ErrorKind` of its own
/// (the standard library reports `getaddrinfo` as uncategorized), so its text tells it apart.
fn io_failure(host: &str, io: &std::io::Error, secs: f64) -> String {
    use std::io::ErrorKind as K;
    let text = io.to_string();
    match io.kind() {
        K::ConnectionRefused => format!("connection refused by {host} (nothing listening there?)"),
        K::ConnectionReset | K::ConnectionAborted | K::UnexpectedEof | K::BrokenPipe => {
            format!("network error: {host} closed the connection")
        }
        K::TimedOut | K::WouldBlock => format!("no answer from {host} within {secs} s (timeout)"),
        K::HostUnreachable | K::NetworkUnreachable | K::NetworkDown | K::AddrNotAvailable => {
            format!("cannot reach {host} (no network route)")
        }
        _ if text.contains("lookup") || text.contains("resolve") || text.contains("not known") => {
            format!("cannot resolve {host} (DNS lookup failed)")
        }
        kind => format!("network error reaching {host}: {kind}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io;

    #[test]
    fn network_failures_name_the_host_and_what_failed() {
        let t = Duration::from_secs(30);
        let io = |kind, text: &str| ureq::Error::Io(io::Error::new(kind, text.to_string()));
        let cases = [
            (
                io(io::ErrorKind::Other, "failed to lookup address information: Name or service not known"),
                "cannot resolve api.example:8443 (DNS",
            ),
            (ureq::Error::HostNotFound, "cannot resolve api.example:8443 (DNS"),
            (io(io::ErrorKind::ConnectionRefused, "refused"), "connection refused by api.example:8443"),
            (io(io::ErrorKind::ConnectionReset, "reset"), "api.example:8443 closed the connection"),
            (io(io::ErrorKind::TimedOut, "slow"), "no answer from api.example:8443 within 30 s (timeout)"),
            (io(io::ErrorKind::NetworkUnreachable, "down"), "cannot reach api.example:8443"),
            (ureq::Error::ConnectionFailed, "cannot connect to api.example:8443"),
        ];
        for (e, want) in cases {
            let got = transport("api.example:8443", "/v2/oauth2", &e, t).to_string();
            assert!(got.contains(want) && !got.contains("uncategorized"), "{e:?}: {got}");
            assert!(got.starts_with("withings /v2/oauth2: "), "{got}");
        }
    }

    #[test]
    fn the_host_named_is_the_base_url_s_without_path_or_credentials() {
        for (base, host) in [
            ("https://wbsapi.withings.net", "wbsapi.withings.net"),
            ("http://127.0.0.1:8080/base/", "127.0.0.1:8080"),
            ("https://user:pw@api.example/x?y", "api.example"),
        ] {
            assert_eq!(HttpUpstream::new(base, 1).host, host);
        }
    }
}
