//! OAuth 2.0 pieces that need no network: the authorize URL, the `state`, parsing what the user
//! pastes or what the browser sends to the callback, the token-endpoint forms, and the answer.

use serde_json::Value;
use std::fmt::Write as _;

use crate::error::Foreign;
use crate::store::tokens::Grant;
use crate::withings::sign;
use crate::{Error, Result};

/// The token endpoint path.
pub const TOKEN_PATH: &str = "/v2/oauth2";

/// A fresh `state`: 128 random bits as 32 hex characters.
pub fn new_state() -> Result<String> {
    sign::random_hex(16)
}

/// Scopes as Withings wants them: comma-joined, no spaces (`WITHINGS_SCOPES` may use either).
pub fn scopes_param(scopes: &str) -> String {
    scopes.split([' ', ',']).filter(|s| !s.is_empty()).collect::<Vec<_>>().join(",")
}

/// `{account_url}/oauth2_user/authorize2?response_type=code&client_id…&scope…&redirect_uri…&state…`.
pub fn authorize_url(
    account_url: &str,
    client_id: &str,
    scopes: &str,
    redirect_uri: &str,
    state: &str,
) -> String {
    format!(
        "{}/oauth2_user/authorize2?response_type=code&client_id={}&scope={}&redirect_uri={}&state={}",
        account_url.trim_end_matches('/'),
        encode(client_id),
        encode(&scopes_param(scopes)),
        encode(redirect_uri),
        encode(state)
    )
}

/// What came back from the authorization page.
#[derive(Clone, PartialEq, Eq)]
pub struct Callback {
    pub code: String,
    pub state: Option<String>,
}

impl std::fmt::Debug for Callback {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Callback").field("code", &"[redacted]").field("state", &self.state).finish()
    }
}

/// Parses what the user pasted: a bare code, a full redirect URL or its query string. A redirect
/// that carries `error=…` is a clear error. The state is returned, not judged: see `check_pasted`.
pub fn parse_code_or_url(input: &str) -> Result<Callback> {
    let input = input.trim();
    if input.is_empty() {
        return Err(Error::arg("code", "is empty; paste the code or the full redirect URL"));
    }
    let looks_like_query = input.contains("code=") || input.contains("error=") || input.contains('?');
    if !looks_like_query {
        if input.chars().any(|c| c.is_whitespace() || c == '/' || c == '&') {
            return Err(Error::arg("code", "is neither an authorization code nor a redirect URL"));
        }
        return Ok(callback(input.to_string(), None));
    }
    let query = match input.split_once('?') {
        Some((_, q)) => q,
        None => input,
    };
    let pairs = parse_query(query.split('#').next().unwrap_or_default());
    let get = |k: &str| pairs.iter().find(|(key, _)| key == k).map(|(_, v)| v.clone());
    if let Some(err) = get("error") {
        return Err(Box::new(denied(&err)));
    }
    match get("code").filter(|c| !c.is_empty()) {
        Some(code) => Ok(callback(code, get("state"))),
        None => Err(Error::arg("code", "the redirect URL has no `code` parameter")),
    }
}

/// Judges a request to the `auth` listener's path. The state comes first: a request without
/// `expected_state` (missing, wrong, or an `error=…` any web page could send) is an
/// `InvalidArgument` that the listener answers and ignores. With the right state, `error=…` is
/// `NeedsAuth` (the person declined), and a code is returned.
pub fn callback_from_query(query: &str, expected_state: &str) -> Result<Callback> {
    let pairs = parse_query(query);
    let get = |k: &str| pairs.iter().find(|(key, _)| key == k).map(|(_, v)| v.clone());
    match get("state") {
        Some(s) if s == expected_state => {}
        Some(_) => {
            return Err(Error::arg(
                "state",
                "does not match the one this sign-in started with (possible CSRF)",
            ));
        }
        None => return Err(Error::arg("state", "is missing from the callback")),
    }
    if let Some(err) = get("error") {
        return Err(Box::new(denied(&err)));
    }
    match get("code").filter(|c| !c.is_empty()) {
        Some(code) => Ok(callback(code, Some(expected_state.to_string()))),
        None => Err(Error::arg("code", "the callback has no `code` parameter")),
    }
}

/// Who pastes a code: the `auth --code` command or the `withings_exchange_code` tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Paster {
    Command,
    Tool,
}

/// What is known locally when a pasted code arrives.
#[derive(Debug, Clone, Copy)]
pub struct Local<'a> {
    /// The sign-ins still pending (`store::pending`).
    pub pending: &'a [String],
    /// True when a token file is stored (working or not): a bare code must not replace it.
    pub tokens_stored: bool,
}

/// Decides whether a pasted callback may be exchanged, and returns the pending state it
/// completes (to consume after the exchange). A state must match a pending sign-in. A bare code
/// (no state) is accepted by the command only with `--state` (`given_state`), and by the tool
/// only when nothing is pending and no token is stored: then it cannot swap one account for
/// another, and there is no sign-in to check it against.
pub fn check_pasted(
    cb: &Callback,
    given_state: Option<&str>,
    local: Local,
    who: Paster,
) -> Result<Option<String>> {
    let restart = match who {
        Paster::Command => "start again with `withings-mcp auth --no-open`",
        Paster::Tool => "start again with withings_get_auth_url",
    };
    let state = match (cb.state.as_deref(), given_state) {
        (Some(a), Some(b)) if a != b => {
            return Err(Error::arg("state", "--state differs from the state in the redirect URL"));
        }
        (Some(s), _) | (None, Some(s)) => Some(s),
        (None, None) => None,
    };
    match (state, who) {
        (Some(s), _) if local.pending.iter().any(|p| p == s) => Ok(Some(s.to_string())),
        (Some(_), _) => Err(Error::arg(
            "state",
            format!(
                "matches no pending sign-in (sign-ins stay pending 15 minutes and complete once); {restart}"
            ),
        )),
        (None, Paster::Command) => Err(Error::arg(
            "code",
            "a bare code cannot be checked against a sign-in started here; paste the whole redirect URL \
             (with its `state`), or add --state",
        )),
        (None, Paster::Tool) if !local.pending.is_empty() => Err(Error::arg(
            "code",
            "a sign-in is pending: pass the whole redirect URL (…?code=…&state=…), not the bare code, so that \
             its state can be checked",
        )),
        (None, Paster::Tool) if local.tokens_stored => Err(Error::arg(
            "code",
            format!(
                "Withings is already connected here, and a bare code could connect another account unchecked; \
                 {restart} and pass the whole redirect URL"
            ),
        )),
        (None, Paster::Tool) => Ok(None),
    }
}

/// A callback whose code this process now knows (`redact` removes it from any foreign text).
fn callback(code: String, state: Option<String>) -> Callback {
    crate::redact::remember(&code);
    Callback { code, state }
}

/// The error for `error=…` on a redirect; Withings' word is foreign text.
fn denied(err: &str) -> Error {
    let what = match err {
        "access_denied" => "access was denied on the Withings page".to_string(),
        other => format!("Withings returned an error ({})", Foreign::new(other)),
    };
    Error::NeedsAuth(format!("authorization failed: {what}"))
}

/// The authorization-code grant form.
pub fn exchange_form(
    client_id: &str,
    secret: &str,
    code: &str,
    redirect_uri: &str,
) -> Vec<(&'static str, String)> {
    vec![
        ("action", "requesttoken".to_string()),
        ("grant_type", "authorization_code".to_string()),
        ("client_id", client_id.to_string()),
        ("client_secret", secret.to_string()),
        ("code", code.to_string()),
        ("redirect_uri", redirect_uri.to_string()),
    ]
}

/// The refresh grant form.
pub fn refresh_form(client_id: &str, secret: &str, refresh_token: &str) -> Vec<(&'static str, String)> {
    vec![
        ("action", "requesttoken".to_string()),
        ("grant_type", "refresh_token".to_string()),
        ("client_id", client_id.to_string()),
        ("client_secret", secret.to_string()),
        ("refresh_token", refresh_token.to_string()),
    ]
}

/// Reads a token answer's `body`. `userid` may be a number or a string.
pub fn parse_grant(body: &Value) -> Grant {
    let s = |k: &str| match body.get(k) {
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Number(n)) => Some(n.to_string()),
        Some(Value::Array(items)) => {
            Some(items.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(","))
        }
        _ => None,
    };
    Grant {
        access_token: s("access_token"),
        refresh_token: s("refresh_token"),
        expires_in: body.get("expires_in").and_then(|v| v.as_i64().or_else(|| v.as_str()?.parse().ok())),
        scope: s("scope"),
        userid: s("userid"),
        token_type: s("token_type"),
    }
}

/// Where the `auth` listener binds, from a loopback `http://` redirect URI.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Loopback {
    /// Address to bind, e.g. `127.0.0.1:3000` or `[::1]:3000`.
    pub bind: String,
    /// Path the browser is sent to, e.g. `/callback`.
    pub path: String,
}

/// The listener address for a redirect URI, or a configuration error explaining that only
/// `--code` works with a non-loopback redirect.
pub fn loopback(redirect_uri: &str) -> Result<Loopback> {
    let refuse = |why: &str| {
        Error::Config(format!(
            "redirect URI {redirect_uri} {why}, so no local listener can receive the callback; \
             open the authorization URL, approve, then run `withings-mcp auth --code '<redirect URL>'`"
        ))
    };
    let Some(rest) = redirect_uri.strip_prefix("http://") else {
        return Err(Box::new(refuse("is not a plain http:// loopback address")));
    };
    let (authority, path) = match rest.find(['/', '?', '#']) {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    let path = path.split(['?', '#']).next().filter(|p| p.starts_with('/')).unwrap_or("/");
    let (host, port) = match authority.rsplit_once(':') {
        Some((h, p)) if !h.is_empty() && !p.contains(']') => (h, p.parse::<u16>().ok()),
        _ => (authority, Some(80)),
    };
    let Some(port) = port else {
        return Err(Box::new(refuse("has an invalid port")));
    };
    let bind_host = match host {
        "localhost" | "127.0.0.1" => "127.0.0.1",
        "[::1]" => "[::1]",
        h if h.starts_with("127.") && h.split('.').all(|p| p.parse::<u8>().is_ok()) => h,
        _ => return Err(Box::new(refuse("is not on a loopback host (127.0.0.1, localhost or [::1])"))),
    };
    Ok(Loopback { bind: format!("{bind_host}:{port}"), path: path.to_string() })
}

/// Splits a query string into decoded pairs.
pub fn parse_query(query: &str) -> Vec<(String, String)> {
    query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| match p.split_once('=') {
            Some((k, v)) => (decode(k), decode(v)),
            None => (decode(p), String::new()),
        })
        .collect()
}

/// Percent-encodes everything but the RFC 3986 unreserved characters.
pub fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => out.push(char::from(b)),
            _ => {
                let _ = write!(out, "%{b:02X}");
            }
        }
    }
    out
}

/// Decodes `%XX` and `+` (form encoding); invalid escapes are kept as they are.
pub fn decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        // Exactly two hex digits: `from_str_radix` alone would also take a sign ("%+1").
        let hex = bytes
            .get(i + 1..i + 3)
            .filter(|h| h.iter().all(u8::is_ascii_hexdigit))
            .and_then(|h| std::str::from_utf8(h).ok());
        match (b, hex.and_then(|h| u8::from_str_radix(h, 16).ok())) {
            (b'%', Some(v)) => {
                out.push(v);
                i += 3;
            }
            (b'+', _) => {
                out.push(b' ');
                i += 1;
            }
            _ => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_decoding_needs_two_hex_digits() {
        let cases = [
            ("a%20b", "a b"),
            ("a+b", "a b"),
            ("%+1", "% 1"),
            ("%-1x", "%-1x"),
            ("%4", "%4"),
            ("%41%42", "AB"),
        ];
        for (input, want) in cases {
            assert_eq!(decode(input), want, "{input}");
        }
    }

    #[test]
    fn authorize_url_is_encoded_and_comma_joins_scopes() {
        let u = authorize_url(
            "https://account.withings.com/",
            "cid",
            "user.activity user.metrics",
            "http://127.0.0.1:3000/callback",
            "abc",
        );
        assert_eq!(
            u,
            "https://account.withings.com/oauth2_user/authorize2?response_type=code&client_id=cid\
             &scope=user.activity%2Cuser.metrics&redirect_uri=http%3A%2F%2F127.0.0.1%3A3000%2Fcallback&state=abc"
        );
        assert_eq!(scopes_param("a, b,,c"), "a,b,c");
    }

    #[test]
    fn state_is_128_bits() {
        let s = new_state().unwrap();
        assert_eq!(s.len(), 32);
        assert_ne!(s, new_state().unwrap());
    }

    #[test]
    fn pasted_input() {
        let ok: &[(&str, &str, Option<&str>)] = &[
            ("  abc123 ", "abc123", None),
            ("http://127.0.0.1:3000/callback?code=c%2B1&state=s1", "c+1", Some("s1")),
            ("https://x.example/cb?state=s1&code=zz#frag", "zz", Some("s1")),
            ("code=zz&state=s2", "zz", Some("s2")),
            ("http://127.0.0.1:3000/callback?code=c", "c", None),
        ];
        for (input, code, state) in ok {
            let c = parse_code_or_url(input).unwrap();
            assert_eq!((c.code.as_str(), c.state.as_deref()), (*code, *state), "{input}");
        }
        let bad: &[(&str, &str)] = &[
            ("", "empty"),
            ("http://127.0.0.1:3000/callback?error=access_denied&state=s", "access was denied"),
            ("http://127.0.0.1:3000/callback?state=s", "no `code`"),
            ("two words", "neither"),
        ];
        for (input, want) in bad {
            let e = parse_code_or_url(input).unwrap_err().to_string();
            assert!(e.contains(want), "{input}: {e}");
        }
    }

    #[test]
    fn the_listener_checks_the_state_before_anything_else() {
        // (query, outcome): "code:<c>" exchanged, "fail:<text>" ends the sign-in, "ignore:<text>"
        // is answered and the listener keeps waiting.
        let cases = [
            ("code=c1&state=good", "code:c1"),
            ("state=good&code=c1&extra=1", "code:c1"),
            ("error=access_denied&state=good", "fail:access was denied"),
            ("error=server_error&state=good", "fail:Withings returned an error (server_error)"),
            ("error=access_denied", "ignore:missing"),
            ("error=access_denied&state=evil", "ignore:does not match"),
            ("code=c1&state=evil", "ignore:does not match"),
            ("code=c1", "ignore:missing"),
            ("state=good", "ignore:no `code`"),
            ("", "ignore:missing"),
        ];
        for (query, want) in cases {
            let got = match callback_from_query(query, "good") {
                Ok(cb) => format!("code:{}", cb.code),
                Err(e) if matches!(*e, Error::NeedsAuth(_)) => format!("fail:{e}"),
                Err(e) => format!("ignore:{e}"),
            };
            let (kind, text) = want.split_once(':').unwrap();
            assert!(got.starts_with(kind) && got.contains(text), "{query}: {got}");
        }
    }

    #[test]
    fn pasted_codes_are_checked_against_pending_sign_ins() {
        let pending = vec!["p1".to_string()];
        let with_state = Callback { code: "c".into(), state: Some("p1".into()) };
        let other_state = Callback { code: "c".into(), state: Some("zz".into()) };
        let bare = Callback { code: "c".into(), state: None };
        let (cmd, tool) = (Paster::Command, Paster::Tool);
        let none: &[String] = &[];
        // (callback, --state, pending, tokens stored, who, `=state` accepted (`=` without one) or
        // the refusal's words)
        type Case<'a> = (&'a Callback, Option<&'a str>, &'a [String], bool, Paster, &'a str);
        let cases: Vec<Case> = vec![
            (&with_state, None, &pending, true, cmd, "=p1"),
            (&with_state, None, &pending, true, tool, "=p1"),
            (&with_state, Some("p1"), &pending, false, cmd, "=p1"),
            (&with_state, Some("p2"), &pending, false, cmd, "differs"),
            (&other_state, None, &pending, false, cmd, "matches no pending sign-in"),
            (&other_state, None, none, false, tool, "withings_get_auth_url"),
            (&bare, Some("p1"), &pending, true, cmd, "=p1"),
            (&bare, Some("zz"), &pending, true, cmd, "matches no pending"),
            (&bare, None, &pending, false, cmd, "whole redirect URL"),
            (&bare, None, none, false, cmd, "--state"),
            (&bare, None, &pending, false, tool, "a sign-in is pending"),
            (&bare, None, none, true, tool, "already connected"),
            (&bare, None, none, false, tool, "="),
        ];
        for (i, (cb, given, pending, stored, who, want)) in cases.into_iter().enumerate() {
            let got = match check_pasted(cb, given, Local { pending, tokens_stored: stored }, who) {
                Ok(state) => format!("={}", state.unwrap_or_default()),
                Err(e) => e.to_string(),
            };
            match want.starts_with('=') {
                true => assert_eq!(got, want, "case {i}"),
                false => assert!(got.contains(want), "case {i}: {got}"),
            }
        }
    }

    #[test]
    fn loopback_redirects() {
        let ok = [
            ("http://127.0.0.1:3000/callback", "127.0.0.1:3000", "/callback"),
            ("http://localhost:8585", "127.0.0.1:8585", "/"),
            ("http://[::1]:9000/a/b?x=1", "[::1]:9000", "/a/b"),
            ("http://127.0.0.1/cb", "127.0.0.1:80", "/cb"),
        ];
        for (uri, bind, path) in ok {
            assert_eq!(loopback(uri).unwrap(), Loopback { bind: bind.into(), path: path.into() }, "{uri}");
        }
        for uri in ["https://example.com/cb", "http://example.com:3000/cb", "http://127.0.0.1:99999/cb"] {
            let e = loopback(uri).unwrap_err().to_string();
            assert!(e.contains("--code"), "{uri}: {e}");
        }
    }

    #[test]
    fn grants_accept_userid_as_number_or_string() {
        for name in ["oauth2_requesttoken_ok.json", "oauth2_requesttoken_userid_as_string.json"] {
            let path = format!("{}/fixtures/withings/{name}", env!("CARGO_MANIFEST_DIR"));
            let v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
            let g = parse_grant(&v["body"]);
            assert_eq!(g.userid.as_deref(), Some("1234567"), "{name}");
            assert_eq!(g.expires_in, Some(10800));
            assert!(g.scope.as_deref().is_some_and(|s| s.contains("user.metrics")));
            assert!(g.access_token.is_some() && g.refresh_token.is_some());
        }
    }

    #[test]
    fn percent_round_trip() {
        for s in ["a b&c=d/é", "", "%zz", "plain"] {
            assert_eq!(decode(&encode(s)), s);
        }
        assert_eq!(decode("%zz+x"), "%zz x");
    }
}
