//! A webhook's static headers (`--header NAME:VALUE`, `headers` over HTTP; CONTRACT §15):
//! sent with each delivery; their values are kept like secrets (stored sealed, never shown,
//! logged or audited, never quoted in an error: only names are).

/// At most this many static headers per webhook.
pub const MAX_HEADERS: usize = 20;
/// A value's longest length, in bytes.
pub const MAX_VALUE_LEN: usize = 4096;
/// A name's longest length.
pub const MAX_NAME_LEN: usize = 256;

/// A name as the OpenAPI document states it (`propertyNames` of `headers`): an RFC 9110
/// token. What a pattern cannot say portably (the refused names, duplicates by case) is
/// [`check_name`]'s and [`StaticHeaders::new`]'s alone.
pub const NAME_PATTERN: &str = "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$";
/// A value as the OpenAPI document states it: visible ASCII, spaces and tabs, not starting
/// or ending with whitespace ([`check_value`] exactly).
pub const VALUE_PATTERN: &str = "^[!-~]([\\t -~]*[!-~])?$";

/// Names keyhook sets itself, or that describe the connection rather than the message.
const REFUSED: &[&str] = &[
    "host",
    "connection",
    "transfer-encoding",
    "te",
    "upgrade",
    "keep-alive",
    "proxy-connection",
    "trailer",
    "user-agent",
];

/// A static header's name: an RFC 9110 token, lowercased (HTTP names are case-insensitive),
/// and none keyhook sets or the connection owns. The message names the header, never a value.
pub fn check_name(name: &str) -> Result<String, String> {
    if name.is_empty() {
        return Err("a header name must not be empty".into());
    }
    if name.len() > MAX_NAME_LEN {
        return Err(format!(
            "a header name is at most {MAX_NAME_LEN} characters"
        ));
    }
    let token = |b: u8| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b);
    if !name.bytes().all(token) {
        return Err(format!(
            "{:?} is not a header name (letters, digits and !#$%&'*+-.^_`|~ only)",
            name.escape_default().to_string()
        ));
    }
    let lower = name.to_ascii_lowercase();
    if lower.starts_with("webhook-") || lower.starts_with("content-") {
        return Err(format!(
            "{lower} cannot be set: keyhook sets the webhook-* and content-* headers"
        ));
    }
    if REFUSED.contains(&lower.as_str()) {
        return Err(format!(
            "{lower} cannot be set: keyhook or the connection sets it"
        ));
    }
    Ok(lower)
}

/// A value: visible ASCII, spaces and tabs (RFC 9110 field-value without obs-text), not
/// starting or ending with whitespace, no CR or LF. The message names the header only.
fn check_value(name: &str, value: &str) -> Result<(), String> {
    if value.bytes().any(|b| b == b'\r' || b == b'\n') {
        return Err(format!("header {name}'s value must not contain CR or LF"));
    }
    if value.len() > MAX_VALUE_LEN {
        return Err(format!(
            "header {name}'s value is at most {MAX_VALUE_LEN} bytes"
        ));
    }
    if value.is_empty() {
        return Err(format!("header {name}'s value must not be empty"));
    }
    let ok = |b: u8| b == b' ' || b == b'\t' || (0x21..=0x7e).contains(&b);
    if !value.bytes().all(ok) {
        return Err(format!(
            "header {name}'s value may hold visible ASCII, spaces and tabs only"
        ));
    }
    if value.starts_with([' ', '\t']) || value.ends_with([' ', '\t']) {
        return Err(format!(
            "header {name}'s value must not start or end with whitespace"
        ));
    }
    Ok(())
}

/// Checked static headers: names lowercased, unique, in the order given.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct StaticHeaders(Vec<(String, String)>);

impl std::fmt::Debug for StaticHeaders {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.0.iter().map(|(n, _)| n))
            .finish()
    }
}

impl StaticHeaders {
    /// Checks each pair; duplicates (case-insensitively) are refused.
    pub fn new(pairs: Vec<(String, String)>) -> Result<StaticHeaders, String> {
        let mut out: Vec<(String, String)> = Vec::with_capacity(pairs.len());
        for (name, value) in pairs {
            let name = check_name(&name)?;
            check_value(&name, &value)?;
            if out.iter().any(|(n, _)| *n == name) {
                return Err(format!("header {name} is given twice"));
            }
            out.push((name, value));
        }
        if out.len() > MAX_HEADERS {
            return Err(format!("at most {MAX_HEADERS} headers"));
        }
        Ok(StaticHeaders(out))
    }

    pub fn into_pairs(self) -> Vec<(String, String)> {
        self.0
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// A change to a webhook's headers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HeaderPatch {
    /// `headers` over HTTP (an object, or `null` for none): the whole set.
    Replace(StaticHeaders),
    /// The command line: `--header` sets (adds, or replaces the value of a name already
    /// there), `--no-header NAME` removes (a name not there is refused).
    Edit {
        set: StaticHeaders,
        remove: Vec<String>,
    },
}

impl HeaderPatch {
    /// The headers after the change.
    pub fn apply(self, current: &[(String, String)]) -> Result<Vec<(String, String)>, String> {
        match self {
            HeaderPatch::Replace(h) => Ok(h.into_pairs()),
            HeaderPatch::Edit { set, remove } => {
                let mut out = current.to_vec();
                for name in remove {
                    let name = name.to_ascii_lowercase();
                    let before = out.len();
                    out.retain(|(n, _)| *n != name);
                    if out.len() == before {
                        return Err(format!("the webhook has no header {name:?}"));
                    }
                }
                for (name, value) in set.into_pairs() {
                    match out.iter_mut().find(|(n, _)| *n == name) {
                        Some(slot) => slot.1 = value,
                        None => out.push((name, value)),
                    }
                }
                if out.len() > MAX_HEADERS {
                    return Err(format!("at most {MAX_HEADERS} headers"));
                }
                Ok(out)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(name: &str, value: &str) -> Result<StaticHeaders, String> {
        StaticHeaders::new(vec![(name.into(), value.into())])
    }

    #[test]
    fn names_and_values_are_checked_without_quoting_values() {
        assert_eq!(
            one("X-Tenant", "acme").unwrap().into_pairs(),
            [("x-tenant".to_string(), "acme".to_string())]
        );
        for refused in [
            "webhook-id",
            "Webhook-Signature",
            "content-type",
            "Content-Length",
            "host",
            "Connection",
            "transfer-encoding",
            "te",
            "upgrade",
            "keep-alive",
            "",
            "x tenant",
            "x:y",
            "x\r\ny",
            "é",
        ] {
            assert!(one(refused, "v").is_err(), "{refused:?}");
        }
        for bad in [
            "a\r\nx-evil: 1",
            "a\nb",
            "",
            " lead",
            "trail ",
            "nul\0",
            "ünï",
        ] {
            let err = one("x-token", bad).unwrap_err();
            assert!(err.contains("x-token"), "{err}");
            if !bad.is_empty() {
                assert!(!err.contains(bad), "the value is quoted: {err}");
            }
        }
        assert!(one("x-token", "Bearer abc\tdef").is_ok());
        let dup = StaticHeaders::new(vec![("X-A".into(), "1".into()), ("x-a".into(), "2".into())]);
        assert_eq!(dup.unwrap_err(), "header x-a is given twice");
        let many = (0..=MAX_HEADERS).map(|i| (format!("x-{i}"), "v".to_string()));
        assert!(StaticHeaders::new(many.collect()).is_err());
        assert!(!format!("{:?}", one("x-a", "secretvalue").unwrap()).contains("secretvalue"));
    }

    /// The document's patterns say what the checks say, name by name and value by value
    /// (the refused names aside: the document's description and the checks hold those).
    #[test]
    fn the_documented_patterns_agree_with_the_checks() {
        let name = regex::Regex::new(NAME_PATTERN).unwrap();
        let value = regex::Regex::new(VALUE_PATTERN).unwrap();
        let mut samples: Vec<String> = (0u8..=0x7f).map(|b| (b as char).to_string()).collect();
        for s in [
            "x-tenant",
            "X_Y.z~1",
            "a b",
            "a\tb",
            " a",
            "a ",
            "\ta",
            "a\t",
            "a\r\nb",
            "a\n",
            "é",
            "aé",
            "Bearer abc\tdef",
            "!#$%&'*+-.^_`|~",
            "a:b",
            "a\"b",
            "(a)",
            "",
            "\u{7f}a",
            "a\u{0}",
            "\u{2028}",
        ] {
            samples.push(s.to_string());
        }
        for s in &samples {
            let refused = check_name(s).is_err_and(|e| e.contains("cannot be set"));
            if !refused && s.len() <= MAX_NAME_LEN {
                assert_eq!(name.is_match(s), check_name(s).is_ok(), "name {s:?}");
            }
            if s.len() <= MAX_VALUE_LEN {
                assert_eq!(
                    value.is_match(s),
                    check_value("x-a", s).is_ok(),
                    "value {s:?}"
                );
            }
        }
        // The refused names are tokens: the pattern takes them, the checks do not.
        for refused in ["host", "Content-Type", "webhook-id", "te", "user-agent"] {
            assert!(name.is_match(refused) && check_name(refused).is_err());
        }
    }

    #[test]
    fn edits_set_replace_and_remove() {
        let current = vec![("x-a".to_string(), "1".to_string())];
        let edit = HeaderPatch::Edit {
            set: StaticHeaders::new(vec![("X-A".into(), "2".into()), ("x-b".into(), "3".into())])
                .unwrap(),
            remove: vec![],
        };
        assert_eq!(
            edit.apply(&current).unwrap(),
            [("x-a".into(), "2".into()), ("x-b".into(), "3".into())]
        );
        let remove = HeaderPatch::Edit {
            set: StaticHeaders::default(),
            remove: vec!["X-A".into()],
        };
        assert!(remove.clone().apply(&current).unwrap().is_empty());
        assert!(remove.apply(&[]).is_err());
    }
}
