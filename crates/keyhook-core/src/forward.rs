//! The request a reverse proxy describes when it asks whether a key may make it (CONTRACT
//! §13): its method and URI, read for the permission of the spec's §5 table and for the
//! profiles the URI names (`serve --auth-profile` templates, a `profileId` query parameter).
//! The one decision of `/api/v1/auth` and of `keys verify --uri`; the key itself is found
//! and its use counted by [`crate::auth`], as for every request.
//!
//! The URI is taken as sent. A form that an upstream could normalise into another path (a
//! `.` or `..` segment, an empty segment, an encoded `/`, `\` or `.`, a `\`) is refused rather
//! than normalised here differently, so no profile hides behind it; the rest is
//! percent-decoded (as the upstream decodes it) before templates are matched.

use std::borrow::Cow;
use std::fmt;
use std::net::IpAddr;

use crate::auth::{self, Access};
use crate::error::{Error, FieldError, Result};
use crate::model::ApiKey;

/// The placeholder of an `--auth-profile` template.
pub const PLACEHOLDER: &str = "{profile}";
/// The query parameter that names a profile.
pub const PROFILE_PARAM: &str = "profileId";

/// An `--auth-profile` template (`/profiles/{profile}/`): matched as a prefix of a URI's
/// decoded path, its literal parts in any ASCII letter case (an upstream that routes
/// case-insensitively must not let `/Profiles/b/` pass unchecked), `{profile}` one whole
/// segment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfileTemplate {
    before: String,
    after: String,
}

impl ProfileTemplate {
    pub fn parse(s: &str) -> std::result::Result<ProfileTemplate, String> {
        if !s.starts_with('/') {
            return Err("must start with /".into());
        }
        let Some((before, after)) = s.split_once(PLACEHOLDER) else {
            return Err(format!("must contain {PLACEHOLDER}"));
        };
        if after.contains(PLACEHOLDER) {
            return Err(format!("must contain {PLACEHOLDER} once"));
        }
        if !before.ends_with('/') || !(after.is_empty() || after.starts_with('/')) {
            return Err(format!("{PLACEHOLDER} must be a whole path segment"));
        }
        if s.contains(['?', '#', '%', '\\']) || s.contains("//") || s.bytes().any(|b| b <= b' ') {
            return Err("must be a plain path (no query, encoding, // or spaces)".into());
        }
        if s.split('/').any(|seg| seg == "." || seg == "..") {
            return Err("must not have . or .. segments".into());
        }
        Ok(ProfileTemplate {
            before: before.to_string(),
            after: after.to_string(),
        })
    }

    /// The profile `path` (decoded) names under this template, if it matches.
    pub fn profile_of<'a>(&self, path: &'a str) -> Option<&'a str> {
        let head = path.get(..self.before.len())?;
        if !head.eq_ignore_ascii_case(&self.before) {
            return None;
        }
        let rest = &path[self.before.len()..];
        let end = rest.find('/').unwrap_or(rest.len());
        let (profile, tail) = rest.split_at(end);
        if profile.is_empty() {
            return None;
        }
        // `/profiles/{profile}/` also covers `/profiles/b` itself.
        let fits = match tail.get(..self.after.len()) {
            Some(t) => t.eq_ignore_ascii_case(&self.after),
            None => tail.is_empty() && self.after == "/",
        };
        fits.then_some(profile)
    }
}

impl fmt::Display for ProfileTemplate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{PLACEHOLDER}{}", self.before, self.after)
    }
}

/// The access a described method asks for (spec §5): GET, HEAD and OPTIONS read, any other
/// method writes. Methods are case-sensitive (RFC 9110): `get` is not GET, and writes.
pub fn access_of(method: &str) -> Access {
    match method {
        "GET" | "HEAD" | "OPTIONS" => Access::Read,
        _ => Access::Write,
    }
}

/// Whether `method` is a method (an RFC 9110 token of at most 32 characters).
pub fn is_method(method: &str) -> bool {
    !method.is_empty()
        && method.len() <= 32
        && method
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// What a URI describes: the profiles it names (borrowed from the URI where it names them
/// as they are, decoded where it encodes them).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Target<'a> {
    pub profiles: Vec<Cow<'a, str>>,
}

/// Reads `uri` (origin form, or an absolute `http(s)://` one, by its path) under the rules of
/// the module; `field` names its source in a refusal (`X-Original-URI`, `--uri`).
pub fn target<'a>(uri: &'a str, templates: &[ProfileTemplate], field: &str) -> Result<Target<'a>> {
    let bad = |m: &str| Error::validation(field, m.to_string());
    let mut rest = uri;
    if !uri.starts_with('/') {
        let lower = uri.get(..8).unwrap_or(uri).to_ascii_lowercase();
        let after = if lower.starts_with("http://") {
            &uri[7..]
        } else if lower.starts_with("https://") {
            &uri[8..]
        } else {
            return Err(bad("must be a path starting with /"));
        };
        rest = match after.find(['/', '?']) {
            Some(i) if after.as_bytes()[i] == b'/' => &after[i..],
            _ => return Err(bad("must be a path starting with /")),
        };
    }
    if rest.bytes().any(|b| b <= b' ' || b == 0x7f || b == b'#') {
        return Err(bad(
            "must not contain spaces, control characters or a fragment",
        ));
    }
    let (raw_path, query) = match rest.bytes().position(|b| b == b'?') {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (rest, ""),
    };
    path_layer(raw_path).map_err(bad)?;
    let path = decode(raw_path).ok_or_else(|| bad("has a malformed percent-encoding"))?;
    // A server behind the upstream may decode again: no layer of the path's encoding
    // (`%252e`, `%25252f`, `..%3b`) may hide what the raw path may not have. Each decoding
    // that changes the text shortens it, so this ends; a `%` that encodes nothing ends it too.
    // The raw path's rules already keep every other form out of the first layer, so only a
    // layer with a `%` or a `;` left needs the look (the common path allocates nothing here).
    let mut layer = Cow::Borrowed(&*path);
    while layer.bytes().any(|b| b == b'%' || b == b';') {
        path_layer(&layer).map_err(bad)?;
        match decode(&layer) {
            Some(next) if *next != *layer => layer = Cow::Owned(next.into_owned()),
            _ => break,
        }
    }
    let mut profiles: Vec<Cow<'a, str>> = Vec::new();
    for t in templates {
        // A slice of the URI itself when the path needed no decoding.
        let found = match &path {
            Cow::Borrowed(whole) => t.profile_of(whole).map(Cow::Borrowed),
            Cow::Owned(decoded) => t.profile_of(decoded).map(|p| Cow::Owned(p.to_string())),
        };
        profiles.extend(found);
    }
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        let name = decode(name).ok_or_else(|| bad("has a malformed percent-encoding"))?;
        if name != PROFILE_PARAM {
            continue;
        }
        if value.contains('+') {
            // A space to some upstreams, a plus to others: which profile is meant is unclear.
            return Err(bad("profileId must not contain + (send %2B or %20)"));
        }
        let value = decode(value).ok_or_else(|| bad("has a malformed percent-encoding"))?;
        profiles.push(value);
    }
    profiles.dedup();
    Ok(Target { profiles })
}

/// The rules one layer of a path's encoding is held to ([`target`] applies them to the path as
/// sent and to each layer its percent-decoding reveals): no empty segment, no backslash, no
/// `.` or `..` segment, also with path parameters (`..;x`: Tomcat and Jetty drop what follows
/// `;` before they resolve dot segments), and no encoded slash, backslash or dot. One pass
/// over the bytes; when a path breaks several rules, the refusal names the first of that
/// list.
fn path_layer(path: &str) -> std::result::Result<(), &'static str> {
    const EMPTY: u8 = 1;
    const BACKSLASH: u8 = 2;
    const DOT: u8 = 4;
    const ENCODED: u8 = 8;
    let b = path.as_bytes();
    let mut broken = 0u8;
    // Where the current segment starts, and where its path parameters start (`;`), if it has
    // any.
    let mut start = 0;
    let mut params = None;
    for i in 0..=b.len() {
        let c = b.get(i).copied();
        match c {
            None | Some(b'/') => {
                let name = &b[start..params.unwrap_or(i)];
                if name == b"." || name == b".." {
                    broken |= DOT;
                }
                if c.is_some() && i > 0 && b[i - 1] == b'/' {
                    broken |= EMPTY;
                }
                start = i + 1;
                params = None;
            }
            Some(b';') if params.is_none() => params = Some(i),
            Some(b'\\') => broken |= BACKSLASH,
            // `%2f`, `%5c` or `%2e` in any letter case.
            Some(b'%') => {
                if let Some(&[h, l]) = b.get(i + 1..i + 3) {
                    let l = l.to_ascii_lowercase();
                    if (h == b'2' && (l == b'f' || l == b'e')) || (h == b'5' && l == b'c') {
                        broken |= ENCODED;
                    }
                }
            }
            Some(_) => {}
        }
    }
    if broken & EMPTY != 0 {
        return Err("must not have an empty path segment (//)");
    }
    if broken & BACKSLASH != 0 {
        return Err("must not contain a backslash");
    }
    if broken & DOT != 0 {
        return Err("must not have . or .. path segments");
    }
    if broken & ENCODED != 0 {
        return Err("must not contain an encoded slash, backslash or dot in its path");
    }
    Ok(())
}

/// The decision: may `key` make a request of `method` to `target`? Permission first (403
/// `FORBIDDEN`, as `/api/v1` refuses), then every named profile within the key's scope (403
/// `FORBIDDEN`, detail `profileId`). A target that names no profile is decided by permission
/// alone.
pub fn decide(key: &ApiKey, method: &str, target: &Target<'_>) -> Result<()> {
    let access = access_of(method);
    auth::may(key, access, method, None)?;
    for p in &target.profiles {
        if let Err(e) = auth::may(key, access, method, Some(p)) {
            let message = e.to_string();
            return Err(Error::ForbiddenFields {
                details: vec![FieldError::new(PROFILE_PARAM, message.clone())],
                message,
            });
        }
    }
    Ok(())
}

/// Percent-decodes `s` (no `+` rule), None for a malformed escape or bytes that are no UTF-8;
/// `s` itself when it has no escape.
fn decode(s: &str) -> Option<Cow<'_, str>> {
    if !s.contains('%') {
        return Some(Cow::Borrowed(s));
    }
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok().map(Cow::Owned)
}

/// `value` as a header value that reads as what it is: every byte outside visible ASCII, and
/// `%`, `,`, `*`, `"` and `\`, percent-encoded, so that no profile id reads as `*` or as two
/// in a `,`-joined list, and a value rebuilt into JSON by a proxy stays JSON.
pub fn header_encode(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for &b in value.as_bytes() {
        if b > b' ' && b < 0x7f && !b"%,*\"\\".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The message of a refusal as a header value: visible ASCII and spaces kept (it is read by
/// people), the rest, `%`, `"` and `\` percent-encoded.
pub fn header_text(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for &b in value.as_bytes() {
        if (b' '..0x7f).contains(&b) && !b"%\"\\".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// `X-Keyhook-Profiles` of `key`: `*` for full access, else each id [`header_encode`]d,
/// joined by `,`.
pub fn profiles_header(key: &ApiKey) -> String {
    if key.full_access {
        return "*".into();
    }
    key.profile_ids
        .iter()
        .map(|p| header_encode(p))
        .collect::<Vec<_>>()
        .join(",")
}

/// A network and its prefix length (`--trusted-proxy`): `10.0.0.0/8`, `::1/128`, or one
/// address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cidr {
    net: IpAddr,
    len: u8,
}

impl Cidr {
    pub fn parse(s: &str) -> std::result::Result<Cidr, String> {
        let (ip, len) = match s.split_once('/') {
            Some((ip, len)) => (ip, Some(len)),
            None => (s, None),
        };
        let net: IpAddr = ip
            .parse()
            .map_err(|_| format!("{ip:?} is not an IP address"))?;
        let max = if net.is_ipv4() { 32 } else { 128 };
        let len = match len {
            None => max,
            Some(len) => match len.parse::<u8>() {
                Ok(n) if n <= max && len.bytes().all(|b| b.is_ascii_digit()) => n,
                _ => return Err(format!("prefix length must be 0 to {max}")),
            },
        };
        Ok(Cidr { net, len })
    }

    pub fn contains(&self, ip: IpAddr) -> bool {
        match (self.net, ip.to_canonical()) {
            (IpAddr::V4(n), IpAddr::V4(a)) => {
                let mask = u32::MAX.checked_shl(32 - u32::from(self.len)).unwrap_or(0);
                u32::from(n) & mask == u32::from(a) & mask
            }
            (IpAddr::V6(n), IpAddr::V6(a)) => {
                let mask = u128::MAX
                    .checked_shl(128 - u32::from(self.len))
                    .unwrap_or(0);
                u128::from(n) & mask == u128::from(a) & mask
            }
            _ => false,
        }
    }
}

impl fmt::Display for Cidr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.net, self.len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> ProfileTemplate {
        ProfileTemplate::parse(s).unwrap()
    }

    fn profiles(uri: &str) -> Result<Vec<String>> {
        target(uri, &[t("/profiles/{profile}/")], "uri")
            .map(|t| t.profiles.into_iter().map(Cow::into_owned).collect())
    }

    #[test]
    fn templates_name_the_segment_in_their_place() {
        assert_eq!(profiles("/profiles/brand-a/posts").unwrap(), ["brand-a"]);
        assert_eq!(profiles("/profiles/brand-a").unwrap(), ["brand-a"]);
        assert_eq!(profiles("/PROFILES/brand-b/posts").unwrap(), ["brand-b"]);
        assert_eq!(profiles("/profiles/").unwrap(), Vec::<String>::new());
        assert_eq!(profiles("/posts").unwrap(), Vec::<String>::new());
        assert_eq!(profiles("/profilesx/a/").unwrap(), Vec::<String>::new());
        assert_eq!(profiles("/profiles/br%61nd-b/x").unwrap(), ["brand-b"]);
        assert_eq!(profiles("/%70rofiles/b/x").unwrap(), ["b"]);
        assert_eq!(
            profiles("/profiles/a/posts?profileId=b&x=1").unwrap(),
            ["a", "b"]
        );
        assert_eq!(profiles("/x?profile%49d=c").unwrap(), ["c"]);
        // A percent sign that encodes nothing further, and path parameters on other segments,
        // pass; the profile is the whole segment, parameters included.
        assert_eq!(profiles("/profiles/a/100%25/x").unwrap(), ["a"]);
        assert_eq!(profiles("/profiles/a;v=1/posts").unwrap(), ["a;v=1"]);
        assert_eq!(
            profiles("http://h:1/profiles/a/?profileId=a").unwrap(),
            ["a"]
        );
    }

    #[test]
    fn forms_an_upstream_normalises_are_refused() {
        for bad in [
            "/profiles/brand-a/../brand-b/posts",
            "/profiles/./brand-b/posts",
            "/profiles//brand-b/posts",
            "/profiles/brand-a%2F..%2Fbrand-b/posts",
            "/profiles/brand-a%2f..%2fbrand-b/posts",
            "/profiles/%2e%2e/brand-b",
            // Path parameters on a dot segment, and encodings a second decoding reveals.
            "/profiles/brand-a/..;/brand-b/posts",
            "/profiles/brand-a/..;x=1/brand-b/posts",
            "/profiles/.;/brand-b/posts",
            "/profiles/brand-a/..%3b/brand-b/posts",
            "/profiles/brand-a/%252e%252e/brand-b/posts",
            "/profiles/brand-a%252f..%252fbrand-b/posts",
            "/profiles/brand-a%25252F..%25252Fbrand-b/posts",
            "/profiles/brand-a%255c..%255cbrand-b/posts",
            "/profiles/brand-a%5c..%5cbrand-b",
            "/profiles/brand-a\\..\\brand-b",
            "/profiles/%zz/",
            "/profiles/%ff/",
            "profiles/a",
            "/profiles/a b",
            "/profiles/a#x",
            "/x?profileId=a+b",
            "ftp://h/profiles/a/",
            "",
        ] {
            let e = profiles(bad).unwrap_err();
            assert_eq!(e.code(), "VALIDATION_ERROR", "{bad}");
            assert_eq!(e.details()[0].field, "uri", "{bad}");
        }
    }

    /// What [`path_layer`] was before it became one pass over the bytes.
    fn path_layer_as_it_was(path: &str) -> std::result::Result<(), &'static str> {
        if path.contains("//") {
            return Err("must not have an empty path segment (//)");
        }
        if path.contains('\\') {
            return Err("must not contain a backslash");
        }
        if path
            .split('/')
            .any(|s| matches!(s.split(';').next(), Some("." | "..")))
        {
            return Err("must not have . or .. path segments");
        }
        let encodes_separator = path.match_indices('%').any(|(i, _)| {
            path.get(i + 1..i + 3)
                .is_some_and(|h| ["2f", "5c", "2e"].iter().any(|e| h.eq_ignore_ascii_case(e)))
        });
        if encodes_separator {
            return Err("must not contain an encoded slash, backslash or dot in its path");
        }
        Ok(())
    }

    /// `path_layer` answers as it did (the same refusal, or none) for every path made of the
    /// pieces a hostile path is made of: slashes, dots, path parameters, backslashes, escapes
    /// of separators in any case, cut-off escapes, non-ASCII.
    #[test]
    fn one_pass_over_a_path_refuses_what_the_rules_did() {
        let pieces = [
            "/", ".", "..", ";", ";x", "\\", "%2f", "%2F", "%5c", "%5C", "%2e", "%2E", "%25", "%2",
            "%", "a", "é", "%2é",
        ];
        let mut checked = 0;
        for a in pieces {
            for b in pieces {
                for c in pieces {
                    for d in ["", "/", "/x", "."] {
                        let path = format!("/{a}{b}{c}{d}");
                        assert_eq!(path_layer(&path), path_layer_as_it_was(&path), "{path:?}");
                        let path = format!("{a}{b}{c}{d}");
                        assert_eq!(path_layer(&path), path_layer_as_it_was(&path), "{path:?}");
                        checked += 2;
                    }
                }
            }
        }
        assert_eq!(checked, 18 * 18 * 18 * 4 * 2);
    }

    /// A profile the path names as it is is a slice of the URI; one it encodes is decoded.
    #[test]
    fn profiles_are_borrowed_unless_decoded() {
        let templates = [t("/profiles/{profile}/")];
        let plain = target("/profiles/brand-a/posts?profileId=b", &templates, "uri").unwrap();
        assert!(matches!(plain.profiles[0], Cow::Borrowed("brand-a")));
        assert!(matches!(plain.profiles[1], Cow::Borrowed("b")));
        let encoded = target("/profiles/br%61nd-a/posts?profileId=%62", &templates, "uri").unwrap();
        assert_eq!(encoded.profiles, ["brand-a", "b"]);
        assert!(matches!(encoded.profiles[0], Cow::Owned(_)));
    }

    #[test]
    fn templates_are_checked() {
        for bad in [
            "profiles/{profile}/",
            "/profiles/",
            "/p-{profile}/",
            "/{profile}x",
            "/{profile}/{profile}",
            "/a/../{profile}",
            "/a?b/{profile}",
        ] {
            assert!(ProfileTemplate::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(
            t("/v1/profiles/{profile}").to_string(),
            "/v1/profiles/{profile}"
        );
        assert_eq!(t("/{profile}/posts").profile_of("/a/posts/1"), Some("a"));
        assert_eq!(t("/{profile}/posts").profile_of("/a/accounts"), None);
    }

    #[test]
    fn methods_read_or_write() {
        for m in ["GET", "HEAD", "OPTIONS"] {
            assert_eq!(access_of(m), Access::Read);
        }
        for m in ["POST", "PUT", "PATCH", "DELETE", "get", "PROPFIND", "TRACE"] {
            assert_eq!(access_of(m), Access::Write);
        }
        assert!(is_method("PROPFIND"));
        assert!(!is_method("GET POST"));
        assert!(!is_method(""));
    }

    #[test]
    fn header_values_keep_ids_apart() {
        assert_eq!(header_encode("*"), "%2A");
        assert_eq!(header_encode("a,b"), "a%2Cb");
        assert_eq!(header_encode("é %"), "%C3%A9%20%25");
        assert_eq!(header_encode("brand-a"), "brand-a");
        assert_eq!(header_text("bad \"x\"\r\n"), "bad %22x%22%0D%0A");
    }

    #[test]
    fn networks_contain_their_addresses() {
        let c = Cidr::parse("10.1.0.0/16").unwrap();
        assert!(c.contains("10.1.2.3".parse().unwrap()));
        assert!(!c.contains("10.2.0.1".parse().unwrap()));
        assert!(c.contains("::ffff:10.1.0.9".parse().unwrap()));
        let one = Cidr::parse("127.0.0.1").unwrap();
        assert!(one.contains("127.0.0.1".parse().unwrap()));
        assert!(!one.contains("127.0.0.2".parse().unwrap()));
        assert!(Cidr::parse("0.0.0.0/0")
            .unwrap()
            .contains("8.8.8.8".parse().unwrap()));
        assert!(Cidr::parse("::1/128")
            .unwrap()
            .contains("::1".parse().unwrap()));
        for bad in ["10.0.0.0/33", "x", "10.0.0.0/", "::/129", "1.2.3.4/+8"] {
            assert!(Cidr::parse(bad).is_err(), "{bad}");
        }
    }
}
