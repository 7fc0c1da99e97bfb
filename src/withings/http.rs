//! `HttpUpstream`: the real transport, on ureq. One agent, form POSTs, a whole-request timeout
//! (cut to the time left in the call), a body size cap. HTTP error statuses are returned as `Reply`s (Withings puts its own status in the
//! body); only network failures are errors.
//!
//! `WITHINGS_HTTP_TIMEOUT_SECS` (hidden, for tests and slow links) overrides the 30 s timeout.

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
    timeout_secs: u64,
}

impl HttpUpstream {
    /// An upstream for `base_url` with a whole-request timeout.
    pub fn new(base_url: &str, timeout_secs: u64) -> HttpUpstream {
        // The whole-request timeout is set per request, from the time left in the call.
        let config = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .user_agent(format!("withings-mcp/{VERSION}"))
            .build();
        HttpUpstream {
            agent: config.into(),
            base_url: base_url.trim_end_matches('/').to_string(),
            timeout_secs,
        }
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
        let mut resp = req.send_form(pairs).map_err(|e| transport(path, &e, timeout))?;
        let http_status = resp.status().as_u16();
        let retry_after_secs = resp
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok());
        // Sized from Content-Length up front: a ten-year getmeas answer is 15 MB, and growing a
        // buffer by doubling copied it several times over and faulted in twice the pages.
        let expected = resp.body().content_length().unwrap_or(0).min(MAX_BODY_BYTES);
        let mut body = String::with_capacity(usize::try_from(expected).unwrap_or(0));
        std::io::Read::read_to_string(
            &mut resp.body_mut().with_config().limit(MAX_BODY_BYTES).reader(),
            &mut body,
        )
        .map_err(|e| transport(path, &ureq::Error::from(e), timeout))?;
        Ok(Reply { http_status, retry_after_secs, body })
    }
}

/// A transport error that names the failure but never the URL's query or any header.
fn transport(path: &str, e: &ureq::Error, timeout: Duration) -> Error {
    let message = match e {
        ureq::Error::Timeout(_) => format!("no answer within {} s (timeout)", timeout.as_secs_f64().ceil()),
        ureq::Error::BodyExceedsLimit(n) => format!("answer larger than {n} bytes"),
        ureq::Error::Io(io) => format!("network error: {}", io.kind()),
        ureq::Error::HostNotFound => "host not found".to_string(),
        ureq::Error::ConnectionFailed => "connection failed".to_string(),
        ureq::Error::Tls(_) | ureq::Error::Rustls(_) => "TLS error".to_string(),
        other => format!("network error: {other}"),
    };
    Error::Transport { endpoint: path.to_string(), message }
}
