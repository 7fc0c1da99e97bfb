//! The one place that maps a Withings in-body `status` to what the client does about it.
//! Ranges follow the published families (reference withings-api.md §4); unknown codes are kept
//! as `Unknown` rather than guessed.

use crate::error::ApiKind;

/// What a `status` means for the client.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// 0: success, use `body`.
    Ok,
    /// 601: too many requests; back off and retry.
    RateLimited,
    /// Any other status, by family.
    Api(ApiKind),
}

/// Classifies an in-body `status`.
pub fn classify(status: i64) -> Class {
    match status {
        0 => Class::Ok,
        601 => Class::RateLimited,
        s => Class::Api(kind(s)),
    }
}

/// The OAuth scope a data endpoint needs (withings-api.md §1.1): what a "not allowed" status
/// (214, 277, 2553, 2555) on it most likely means is missing. `None` off the data endpoints
/// (token, signature), where such a status means something else.
pub fn scope_for(path: &str) -> Option<&'static str> {
    match path.trim_end_matches('/') {
        "/v2/user" => Some("user.info"),
        "/measure" | "/v2/heart" => Some("user.metrics"),
        "/v2/measure" | "/v2/sleep" => Some("user.activity"),
        _ => None,
    }
}

/// True when a status of this kind is worth retrying after a short wait.
pub fn retryable(kind: ApiKind) -> bool {
    matches!(kind, ApiKind::Server | ApiKind::Timeout)
}

const AUTH: &[(i64, i64)] = &[(100, 102), (200, 200), (401, 401)];

const INVALID_PARAMS: &[(i64, i64)] = &[
    (201, 213),
    (216, 218),
    (220, 221),
    (223, 223),
    (225, 225),
    (227, 230),
    (234, 236),
    (238, 238),
    (240, 252),
    (254, 254),
    (260, 267),
    (271, 272),
    (275, 276),
    (283, 288),
    (290, 290),
    (293, 295),
    (297, 297),
    (300, 304),
    (321, 321),
    (323, 353),
    (380, 382),
    (400, 400),
    (501, 511),
    (523, 523),
    (532, 532),
    (3017, 3019),
    // 503 on the token endpoint: an expired or used code, or a bad refresh token. It sits in the
    // invalid-params family; callers on /v2/oauth2 give it a clearer message.
    (503, 503),
];

const UNAUTHORIZED: &[(i64, i64)] = &[(214, 214), (277, 277), (2553, 2553), (2555, 2555)];

const ERROR_OCCURRED: &[(i64, i64)] = &[
    (215, 215),
    (219, 219),
    (222, 222),
    (224, 224),
    (226, 226),
    (231, 233),
    (237, 237),
    (253, 253),
    (255, 259),
    (268, 270),
    (273, 274),
    (278, 282),
    (289, 289),
    (291, 292),
    (296, 296),
    (298, 298),
    (305, 320),
    (322, 322),
    (370, 375),
    (383, 383),
    (391, 391),
    (402, 402),
    (516, 521),
    (525, 531),
    (533, 533),
    // 602 is "an error occurred" in the spec; one peer treats it as rate limiting. Retrying it
    // a few times is right either way.
    (602, 602),
    (700, 700),
    (1051, 1054),
    (2551, 2552),
    (2556, 2559),
    (3000, 3016),
    (3020, 3024),
    (5000, 5006),
    (6000, 6000),
    (6010, 6011),
    (9000, 9000),
    (10000, 10000),
];

fn kind(status: i64) -> ApiKind {
    let within = |ranges: &[(i64, i64)]| ranges.iter().any(|&(lo, hi)| (lo..=hi).contains(&status));
    match status {
        522 => ApiKind::Timeout,
        524 => ApiKind::BadState,
        2554 => ApiKind::NotImplemented,
        _ if within(AUTH) => ApiKind::Auth,
        _ if within(UNAUTHORIZED) => ApiKind::Unauthorized,
        _ if within(INVALID_PARAMS) => ApiKind::InvalidParams,
        _ if within(ERROR_OCCURRED) => ApiKind::Server,
        _ => ApiKind::Unknown,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table() {
        use ApiKind::*;
        let cases: &[(i64, Class)] = &[
            (0, Class::Ok),
            (601, Class::RateLimited),
            (100, Class::Api(Auth)),
            (101, Class::Api(Auth)),
            (102, Class::Api(Auth)),
            (200, Class::Api(Auth)),
            (401, Class::Api(Auth)),
            (103, Class::Api(Unknown)),
            (201, Class::Api(InvalidParams)),
            (247, Class::Api(InvalidParams)),
            (293, Class::Api(InvalidParams)),
            (342, Class::Api(InvalidParams)),
            (503, Class::Api(InvalidParams)),
            (3019, Class::Api(InvalidParams)),
            (214, Class::Api(Unauthorized)),
            (277, Class::Api(Unauthorized)),
            (2553, Class::Api(Unauthorized)),
            (2555, Class::Api(Unauthorized)),
            (2554, Class::Api(NotImplemented)),
            (522, Class::Api(Timeout)),
            (524, Class::Api(BadState)),
            (215, Class::Api(Server)),
            (232, Class::Api(Server)),
            (307, Class::Api(Server)),
            (602, Class::Api(Server)),
            (5003, Class::Api(Server)),
            (10000, Class::Api(Server)),
            (9999, Class::Api(Unknown)),
            (-1, Class::Api(Unknown)),
        ];
        for &(status, want) in cases {
            assert_eq!(classify(status), want, "status {status}");
        }
    }

    #[test]
    fn scopes_by_endpoint() {
        let cases = [
            ("/v2/user", Some("user.info")),
            ("/measure", Some("user.metrics")),
            ("/v2/heart", Some("user.metrics")),
            ("/v2/measure", Some("user.activity")),
            ("/v2/sleep/", Some("user.activity")),
            ("/v2/oauth2", None),
            ("/v2/signature", None),
        ];
        for (path, want) in cases {
            assert_eq!(scope_for(path), want, "{path}");
        }
    }

    #[test]
    fn only_server_and_timeout_are_retried() {
        let cases = [
            (ApiKind::Server, true),
            (ApiKind::Timeout, true),
            (ApiKind::Auth, false),
            (ApiKind::InvalidParams, false),
            (ApiKind::BadState, false),
            (ApiKind::Unknown, false),
        ];
        for (k, want) in cases {
            assert_eq!(retryable(k), want, "{k:?}");
        }
    }

    #[test]
    fn families_do_not_overlap() {
        for s in 0..11000 {
            let n = [AUTH, INVALID_PARAMS, UNAUTHORIZED, ERROR_OCCURRED]
                .iter()
                .filter(|r| r.iter().any(|&(lo, hi)| (lo..=hi).contains(&s)))
                .count();
            assert!(n <= 1, "status {s} is in {n} families");
        }
    }
}
