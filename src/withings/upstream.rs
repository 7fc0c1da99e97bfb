//! The one seam between the Withings client and the outside world.
//!
//! `HttpUpstream` (in `http.rs`) sends real HTTP requests with ureq; `DemoUpstream` (in `demo.rs`)
//! answers the same requests from a synthetic account in memory. Everything above this trait —
//! status mapping, retries, token refresh, paging, decoding, privacy — is shared by both, so the
//! demo exercises the real code paths.

use std::time::Duration;

use crate::Result;

/// One raw HTTP answer. The body is kept as text so that a gateway's HTML page or truncated JSON
/// is classified by the client, in one place, for both real and demo upstreams.
#[derive(Debug, Clone)]
pub struct Reply {
    /// The HTTP status code (Withings itself answers 200 and puts its status in the body).
    pub http_status: u16,
    /// Seconds from a `Retry-After` header, when present and numeric.
    pub retry_after_secs: Option<u64>,
    /// The response body as text.
    pub body: String,
}

/// Sends one form-encoded POST to a Withings service path such as `/measure` or `/v2/oauth2`.
pub trait Upstream {
    /// `path` is relative to the API base URL; `bearer` is the access token for data calls.
    /// Errors are transport failures only (refused, reset, timeout); any HTTP answer is a `Reply`.
    fn post(&self, path: &str, form: &[(&str, String)], bearer: Option<&str>) -> Result<Reply>;

    /// `post`, giving up after `left` (the time left in the call) when that is shorter than the
    /// request's own limit. An upstream that answers at once (the demo) need not override it.
    fn post_within(
        &self,
        path: &str,
        form: &[(&str, String)],
        bearer: Option<&str>,
        left: Duration,
    ) -> Result<Reply> {
        let _ = left;
        self.post(path, form, bearer)
    }

    /// A reply's body handed back once read, for the next reply to be read into: an upstream
    /// that reads from the network keeps its memory (see `HttpUpstream`); others drop it.
    fn recycle(&self, body: String) {
        drop(body);
    }
}
