//! Where a webhook's deliveries go: the URL rules, and the same rules as a pattern for the
//! OpenAPI document.

use super::MAX_URL_LEN;
use crate::guard;

/// `check_url` as a regular expression (its length is [`MAX_URL_LEN`]), for the OpenAPI
/// document: http or https, a host (a host name whose last label starts with a letter, or a
/// dotted-quad IPv4 address without leading zeros), a port from 1 to 65535 without leading
/// zeros, no credentials, no fragment, only characters RFC 3986 allows as written. Left to
/// the description: bracketed IPv6 hosts (which `check_url` takes; a pattern for them would
/// be long and easy to get wrong), labels starting with `xn--` that are not valid punycode
/// (which the URL parser refuses), and the address guard (`guard::check_url_host`).
pub fn url_pattern() -> String {
    let octet = "(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])";
    let host =
        format!("(?:(?:[A-Za-z0-9-]+\\.)*[A-Za-z][A-Za-z0-9-]*\\.?|(?:{octet}\\.){{3}}{octet})");
    let port = "(?::(?:6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3}))?";
    let rest = r"(?:[/?](?:[A-Za-z0-9._~!$&'()*+,;=:@/?-]|%[0-9A-Fa-f]{2})*)?";
    format!("^[Hh][Tt][Tt][Pp][Ss]?://{host}{port}{rest}$")
}

/// Where deliveries go: an absolute http(s) URL with a host, without credentials or
/// fragment, at most [`MAX_URL_LEN`] characters, written as an RFC 3986 URI (ASCII; anything
/// else percent-encoded), and (unless private targets are allowed) not an IP literal of a
/// private, loopback or link-local network (`delivery::guard`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookUrl(pub(super) String);

impl WebhookUrl {
    pub fn new(raw: &str, allow_private: bool) -> std::result::Result<WebhookUrl, String> {
        if raw.chars().count() > MAX_URL_LEN {
            return Err(format!("must be at most {MAX_URL_LEN} characters"));
        }
        if raw.trim() != raw || raw.is_empty() {
            return Err("must be an absolute http or https URL without surrounding spaces".into());
        }
        let Ok(url) = url::Url::parse(raw) else {
            return Err("must be an absolute http or https URL".into());
        };
        if !matches!(url.scheme(), "http" | "https") {
            return Err("scheme must be http or https".into());
        }
        if url.host_str().is_none_or(str::is_empty) {
            return Err("must have a host".into());
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err("must not contain credentials (user:password@)".into());
        }
        if url.fragment().is_some() {
            return Err("must not contain a fragment (#...)".into());
        }
        // The URL parser is lenient (WHATWG): it drops tabs and newlines and percent-encodes
        // spaces, quotes, non-ASCII and the like, so the URL stored and shown would not be the
        // URL requested. Only what RFC 3986 allows as written is accepted.
        check_uri_characters(raw, matches!(url.host(), Some(url::Host::Ipv6(_))))?;
        check_authority(raw, &url)?;
        // Port 0 means "any port" to a socket API: no receiver listens there.
        if url.port() == Some(0) {
            return Err("port must be from 1 to 65535".into());
        }
        if !allow_private {
            guard::check_url_host(&url)?;
        }
        Ok(WebhookUrl(raw.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Whether every character of `raw` may appear as written in an RFC 3986 URI: ASCII letters,
/// digits, `-._~`, the delimiters `:/?#[]@!$&'()*+,;=`, and `%` followed by two hex digits;
/// `[` and `]` only around an IPv6 host.
fn check_uri_characters(raw: &str, ipv6_host: bool) -> std::result::Result<(), String> {
    let bytes = raw.as_bytes();
    for (i, c) in raw.char_indices() {
        let ok = match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' => true,
            '-' | '.' | '_' | '~' | ':' | '/' | '?' | '#' | '@' => true,
            '!' | '$' | '&' | '\'' | '(' | ')' | '*' | '+' | ',' | ';' | '=' => true,
            '[' | ']' => ipv6_host,
            '%' => {
                let hex = |j: usize| bytes.get(j).is_some_and(u8::is_ascii_hexdigit);
                if !(hex(i + 1) && hex(i + 2)) {
                    return Err("must not contain % except before two hex digits".into());
                }
                true
            }
            _ => false,
        };
        if !ok {
            return Err(format!(
                "must be a URI: {c:?} is not allowed as written (percent-encode it)"
            ));
        }
    }
    if ipv6_host && (raw.matches('[').count() != 1 || raw.matches(']').count() != 1) {
        return Err("must not contain [ or ] except around an IPv6 host".into());
    }
    Ok(())
}

/// The host and port as written must be what they are taken to be: a host name (letters,
/// digits and hyphens in dot-separated labels, the last starting with a letter), a
/// dotted-quad IPv4 address without leading zeros, or a bracketed IPv6 address; a port in
/// plain decimal. The URL parser would also take `a.net*`, `%61.net`, `0177.1` (which is
/// 127.0.0.1) or `host:`, and none of them says plainly where deliveries go.
fn check_authority(raw: &str, url: &url::Url) -> std::result::Result<(), String> {
    let bad_host = || {
        "host must be a host name (letters, digits, hyphens; the last label starting with a \
         letter), an IPv4 address like 203.0.113.7 or a bracketed IPv6 address"
            .to_string()
    };
    let Some((_, rest)) = raw.split_once("://") else {
        return Err("must be an absolute http or https URL (scheme://host/...)".into());
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let (host, port) = match authority.rfind(':') {
        Some(i) if !authority[i..].contains(']') => (&authority[..i], Some(&authority[i + 1..])),
        _ => (authority, None),
    };
    if let Some(port) = port {
        if port.parse::<u16>().map(|p| p.to_string()).as_deref() != Ok(port) {
            return Err("port must be a number from 1 to 65535 without leading zeros".into());
        }
    }
    match url.host() {
        Some(url::Host::Domain(d)) => {
            let labels: Vec<&str> = d.strip_suffix('.').unwrap_or(d).split('.').collect();
            let label_ok = |l: &&str| {
                !l.is_empty() && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
            };
            let last_ok = labels
                .last()
                .is_some_and(|l| l.starts_with(|c: char| c.is_ascii_alphabetic()));
            if !host.eq_ignore_ascii_case(d) || !labels.iter().all(label_ok) || !last_ok {
                return Err(bad_host());
            }
        }
        Some(url::Host::Ipv4(ip)) if host == ip.to_string() => {}
        Some(url::Host::Ipv6(_)) if host.starts_with('[') => {}
        _ => return Err(bad_host()),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url_problem(raw: &str) -> Option<String> {
        WebhookUrl::new(raw, true).err()
    }

    #[test]
    fn url_rules_at_their_limits() {
        let base = "http://example.com/";
        let at_limit = format!("{base}{}", "a".repeat(MAX_URL_LEN - base.len()));
        assert_eq!(at_limit.len(), 2048);
        assert_eq!(url_problem(&at_limit), None);
        assert_eq!(
            url_problem(&format!("{at_limit}a")),
            Some("must be at most 2048 characters".into())
        );
        let spaces = "must be an absolute http or https URL without surrounding spaces";
        for bad in ["", " http://a/", "http://a/ ", "\thttp://a/"] {
            assert_eq!(url_problem(bad).as_deref(), Some(spaces), "{bad:?}");
        }
        for (bad, problem) in [
            ("example.com", "must be an absolute http or https URL"),
            ("ftp://example.com/", "scheme must be http or https"),
            (
                "http://u:p@example.com/",
                "must not contain credentials (user:password@)",
            ),
            (
                "http://u@example.com/",
                "must not contain credentials (user:password@)",
            ),
            (
                "http://example.com/#top",
                "must not contain a fragment (#...)",
            ),
            ("http://example.com:0/", "port must be from 1 to 65535"),
        ] {
            assert_eq!(url_problem(bad).as_deref(), Some(problem), "{bad:?}");
        }
        // Forbidden address literals, unless private targets are allowed.
        for private in [
            "http://10.0.0.1/",
            "http://[::1]/",
            "http://169.254.169.254/",
        ] {
            assert_eq!(
                WebhookUrl::new(private, false),
                Err(guard::FORBIDDEN_TARGET_MESSAGE.to_string()),
                "{private}"
            );
            assert_eq!(WebhookUrl::new(private, true).unwrap().as_str(), private);
        }
        // A host name is vetted when a delivery resolves it, not here.
        assert!(WebhookUrl::new("http://localhost/", false).is_ok());
    }

    #[test]
    fn urls_must_be_written_as_uris() {
        for ok in [
            "http://example.com",
            "https://Example.COM:8443/a/b?c=d&e=%2F;f=(g)*+,!$'~",
            "http://[2001:db8::1]:80/x",
            "http://127.0.0.1:9/hook",
            "HTTP://a/@:",
            "http://a-1.B2.example./",
            "http://x:1",
            "http://x:65535",
        ] {
            assert_eq!(url_problem(ok), None, "{ok}");
        }
        for bad in [
            "http://x:0",
            "http://example.com:0/",
            "http://a/b c",
            "http://exa\tmple.com/",
            "http://a/\n",
            "http://a/^",
            "http://a/>",
            "http://a/\"",
            "http://a/{x}",
            "http://a/b|c",
            "http://a\\b/",
            "http://b\u{fc}cher.de/",
            "http://a/%",
            "http://a/%4",
            "http://a/%zz",
            "http://a/[x]",
            "http://[::1]/[",
            "https://o.net*",
            "http://a_b.example/",
            "http://%61.net/",
            "http://a..b/",
            "http://a.1/",
            "http://0177.0.0.1/",
            "http://127.1/",
            "http://0x7f000001/",
            "http://a:/",
            "http://a:080/",
            "http://a:65536/",
            "http:example.com",
            "http:/example.com",
        ] {
            assert!(url_problem(bad).is_some(), "{bad:?} was accepted");
        }
    }
}
