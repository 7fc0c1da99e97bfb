//! Small text codecs every layer may use: base64 (RFC 4648) and escaping for XML and HTML.

/// Standard base64 with padding (RFC 4648), for image content.
pub fn base64(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk.first().copied().unwrap_or(0),
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            let c = if i <= chunk.len() {
                A.get(((n >> (18 - 6 * i)) & 63) as usize).copied().unwrap_or(b'=')
            } else {
                b'='
            };
            out.push(c as char);
        }
    }
    out
}

/// Base64 in the standard or URL-safe alphabet, padding optional; `None` on any other byte.
pub fn base64_decode(s: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in s.trim_end_matches('=').bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

/// Escapes text for XML or HTML element content and attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // Control characters other than tab and newline are not allowed in XML 1.0.
            c if c.is_control() && c != '\t' && c != '\n' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_rfc4648_vectors() {
        let cases = [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("foobar", "Zm9vYmFy"),
        ];
        for (input, want) in cases {
            assert_eq!(base64(input.as_bytes()), want, "{input}");
        }
    }

    #[test]
    fn base64_round_trips_and_refuses_strangers() {
        for input in ["", "f", "fo", "foo", "foob", "fooba", "foobar", "h\u{e9}llo \u{1f600}"] {
            assert_eq!(
                base64_decode(&base64(input.as_bytes())).as_deref(),
                Some(input.as_bytes()),
                "{input}"
            );
        }
        assert_eq!(base64_decode("_w=="), Some(vec![0xff]));
        assert_eq!(base64_decode("a b"), None);
    }

    #[test]
    fn escapes_markup_and_control_characters() {
        assert_eq!(escape("<b>&\"x\"'"), "&lt;b&gt;&amp;&quot;x&quot;&apos;");
        assert_eq!(escape("a\tb\nc\u{7}"), "a\tb\nc\u{fffd}");
    }
}
