//! The portal's form bodies (`application/x-www-form-urlencoded`) and query strings.

use super::super::body::Body;

/// A decoded form: its fields in order (a field may repeat: checkboxes).
#[derive(Debug, Default)]
pub struct Form(Vec<(String, String)>);

impl Form {
    /// The form a request sent: only `application/x-www-form-urlencoded` (what a browser's
    /// form sends); anything else is an empty form (and then fails its CSRF check).
    pub fn of(content_type: Option<&str>, body: Body) -> Form {
        let urlencoded = content_type.is_some_and(|t| {
            t.split(';').next().is_some_and(|m| {
                m.trim()
                    .eq_ignore_ascii_case("application/x-www-form-urlencoded")
            })
        });
        match body {
            Body::Bytes(b) if urlencoded => Form::parse(&b),
            _ => Form::default(),
        }
    }

    pub fn parse(bytes: &[u8]) -> Form {
        Form(
            form_urlencoded::parse(bytes)
                .map(|(k, v)| (k.into_owned(), v.into_owned()))
                .collect(),
        )
    }

    /// The first value of `name`.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The first value of `name`, trimmed, `None` when empty.
    pub fn text(&self, name: &str) -> Option<String> {
        self.get(name)
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .map(str::to_string)
    }

    /// Every value of `name`, in order.
    pub fn all(&self, name: &str) -> Vec<String> {
        self.0
            .iter()
            .filter(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
            .collect()
    }
}

/// The value of cookie `name` in the request's `Cookie` headers.
pub fn cookie<'a>(headers: impl Iterator<Item = &'a str>, name: &str) -> Option<&'a str> {
    headers
        .flat_map(|h| h.split(';'))
        .filter_map(|c| c.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.trim())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms_decode_repeated_and_encoded_fields() {
        let f = Form::parse(
            b"events=post.published&events=post.failed&url=https%3A%2F%2Fa.example%2F&name=+x+",
        );
        assert_eq!(f.all("events"), vec!["post.published", "post.failed"]);
        assert_eq!(f.get("url"), Some("https://a.example/"));
        assert_eq!(f.text("name").as_deref(), Some("x"));
        assert_eq!(f.text("missing"), None);
    }

    #[test]
    fn cookies_are_found_by_exact_name() {
        let h = ["a=1; keyhook_portal=kps_x", "other=2"];
        assert_eq!(cookie(h.iter().copied(), "keyhook_portal"), Some("kps_x"));
        assert_eq!(cookie(h.iter().copied(), "keyhook"), None);
    }
}
