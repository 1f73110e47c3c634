//! Paths and methods of `/api/v1`. Ids are single path segments, matched as sent.

use tiny_http::Method;

use keyhook_core::service::Operation;

/// Where the API lives: every route below is under it.
pub(crate) const PREFIX: &str = "/api/v1";

/// A request target without its query: all before the first `?`. A byte loop: a target is
/// short, and `split` sets a searcher up first (every request asks two or three times).
pub(crate) fn path_of(target: &str) -> &str {
    match target.bytes().position(|b| b == b'?') {
        Some(i) => &target[..i],
        None => target,
    }
}

/// The path under `/api/v1` of a request target (`""` for `/api/v1` itself), or None for a
/// target outside it. The prefix must end at a segment boundary (`/api/v1api-keys` is not
/// under it), and an absolute-form target (`http://host:port/api/v1/...`, RFC 9112 section
/// 3.2.2) is routed by its path. The query is not part of the path.
pub(crate) fn api_path(target: &str) -> Option<&str> {
    // A path (origin form, what clients send) is no absolute URL: no search for `://`.
    let absolute = !target.starts_with('/');
    let target = match absolute.then(|| target.split_once("://")).flatten() {
        Some((scheme, rest))
            if scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https") =>
        {
            // the authority ends at the path or the query
            rest.find(['/', '?']).map_or("/", |i| &rest[i..])
        }
        _ => target,
    };
    let rest = path_of(target).strip_prefix(PREFIX)?;
    (rest.is_empty() || rest.starts_with('/')).then_some(rest)
}

/// Where a reverse proxy asks whether a key may make a request (CONTRACT §13): `/auth`, and
/// `/auth/{path...}` (Envoy), whose own method and `/{path...}` describe the request.
pub(crate) const AUTH: &str = "/auth";

/// For a path under `/api/v1`: None outside the check; Some(None) for `/auth` itself;
/// Some(Some(rest)) for `/auth/{path...}`, `rest` starting with its `/`.
pub(crate) fn auth_path(path: &str) -> Option<Option<&str>> {
    let rest = path.strip_prefix(AUTH)?;
    if rest.is_empty() {
        Some(None)
    } else {
        rest.starts_with('/').then_some(Some(rest))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route<'a> {
    ListKeys,
    CreateKey,
    GetKey(&'a str),
    DeleteKey(&'a str),
    ListWebhooks,
    CreateWebhook,
    GetWebhook(&'a str),
    UpdateWebhook(&'a str),
    DeleteWebhook(&'a str),
    TestWebhook(&'a str),
    WebhookDeliveries(&'a str),
    EmitEvent,
    ReplayWebhook(&'a str),
    ListAudit,
    RotateWebhookSecret(&'a str),
    ListEventTypes,
    GetEventType(&'a str),
    CreatePortalLink,
    RevokePortalLink(&'a str),
}

impl Route<'_> {
    /// The service operation the route asks for.
    pub fn operation(&self) -> Operation {
        match self {
            Route::ListKeys => Operation::ListKeys,
            Route::CreateKey => Operation::CreateKey,
            Route::GetKey(_) => Operation::ShowKey,
            Route::DeleteKey(_) => Operation::DeleteKey,
            Route::ListWebhooks => Operation::ListWebhooks,
            Route::CreateWebhook => Operation::CreateWebhook,
            Route::GetWebhook(_) => Operation::ShowWebhook,
            Route::UpdateWebhook(_) => Operation::UpdateWebhook,
            Route::DeleteWebhook(_) => Operation::DeleteWebhook,
            Route::TestWebhook(_) => Operation::TestWebhook,
            Route::WebhookDeliveries(_) => Operation::ListDeliveries,
            Route::EmitEvent => Operation::EmitEvent,
            Route::ReplayWebhook(_) => Operation::ReplayWebhook,
            Route::ListAudit => Operation::ListAudit,
            Route::RotateWebhookSecret(_) => Operation::RotateWebhookSecret,
            Route::ListEventTypes => Operation::ListEventTypes,
            Route::GetEventType(_) => Operation::ShowEventType,
            Route::CreatePortalLink => Operation::CreatePortalLink,
            Route::RevokePortalLink(_) => Operation::RevokePortalLink,
        }
    }

    /// The route's path template, as in [`ROUTES`] (the metrics' `route` label).
    pub fn template(&self) -> &'static str {
        match self {
            Route::ListKeys | Route::CreateKey => "/api-keys",
            Route::GetKey(_) | Route::DeleteKey(_) => "/api-keys/{id}",
            Route::ListWebhooks | Route::CreateWebhook => "/webhooks",
            Route::GetWebhook(_) | Route::UpdateWebhook(_) | Route::DeleteWebhook(_) => {
                "/webhooks/{id}"
            }
            Route::TestWebhook(_) => "/webhooks/{id}/test",
            Route::WebhookDeliveries(_) => "/webhooks/{id}/deliveries",
            Route::EmitEvent => "/events",
            Route::ReplayWebhook(_) => "/webhooks/{id}/replay",
            Route::ListAudit => "/audit",
            Route::RotateWebhookSecret(_) => "/webhooks/{id}/rotate-secret",
            Route::ListEventTypes => "/event-types",
            Route::GetEventType(_) => "/event-types/{name}",
            Route::CreatePortalLink => "/portal-links",
            Route::RevokePortalLink(_) => "/portal-links/{id}",
        }
    }

    /// Whether the operation reads a JSON body; the others take none.
    pub fn takes_body(&self) -> bool {
        matches!(
            self,
            Route::CreateKey
                | Route::CreateWebhook
                | Route::UpdateWebhook(_)
                | Route::EmitEvent
                | Route::ReplayWebhook(_)
                | Route::RotateWebhookSecret(_)
                | Route::CreatePortalLink
        )
    }
}

pub enum Match<'a> {
    Found(Route<'a>),
    /// The path exists, the method does not: the methods it allows.
    MethodNotAllowed(&'static str),
    NotFound,
}

/// Matches `path` (already without `/api/v1`). HEAD is answered as GET. A path with an
/// empty segment (`//`, a trailing `/`) names no resource.
pub fn route<'a>(method: &Method, path: &'a str) -> Match<'a> {
    let Some(path) = path.strip_prefix('/') else {
        return Match::NotFound;
    };
    // No route has more than three segments: a path with more names nothing, and the
    // segments need no allocation (every request is routed, once, for its metrics and dispatch).
    let mut held = [""; 3];
    let mut count = 0;
    for s in path.split('/') {
        if s.is_empty() || count == held.len() {
            return Match::NotFound;
        }
        held[count] = s;
        count += 1;
    }
    let segments = &held[..count];
    let get = matches!(method, Method::Get | Method::Head);
    let (found, allow) = match segments {
        ["api-keys"] => (
            match method {
                _ if get => Some(Route::ListKeys),
                Method::Post => Some(Route::CreateKey),
                _ => None,
            },
            "GET, POST",
        ),
        ["api-keys", id] if !id.is_empty() => (
            match method {
                _ if get => Some(Route::GetKey(id)),
                Method::Delete => Some(Route::DeleteKey(id)),
                _ => None,
            },
            "GET, DELETE",
        ),
        ["webhooks"] => (
            match method {
                _ if get => Some(Route::ListWebhooks),
                Method::Post => Some(Route::CreateWebhook),
                _ => None,
            },
            "GET, POST",
        ),
        ["webhooks", id] if !id.is_empty() => (
            match method {
                _ if get => Some(Route::GetWebhook(id)),
                Method::Patch => Some(Route::UpdateWebhook(id)),
                Method::Delete => Some(Route::DeleteWebhook(id)),
                _ => None,
            },
            "GET, PATCH, DELETE",
        ),
        ["webhooks", id, "test"] if !id.is_empty() => (
            matches!(method, Method::Post).then_some(Route::TestWebhook(id)),
            "POST",
        ),
        ["webhooks", id, "replay"] if !id.is_empty() => (
            matches!(method, Method::Post).then_some(Route::ReplayWebhook(id)),
            "POST",
        ),
        ["webhooks", id, "deliveries"] if !id.is_empty() => {
            (get.then_some(Route::WebhookDeliveries(id)), "GET")
        }
        ["webhooks", id, "rotate-secret"] if !id.is_empty() => (
            matches!(method, Method::Post).then_some(Route::RotateWebhookSecret(id)),
            "POST",
        ),
        ["events"] => (
            matches!(method, Method::Post).then_some(Route::EmitEvent),
            "POST",
        ),
        ["audit"] => (get.then_some(Route::ListAudit), "GET"),
        ["event-types"] => (get.then_some(Route::ListEventTypes), "GET"),
        ["event-types", name] => (get.then_some(Route::GetEventType(name)), "GET"),
        ["portal-links"] => (
            matches!(method, Method::Post).then_some(Route::CreatePortalLink),
            "POST",
        ),
        ["portal-links", id] if !id.is_empty() => (
            matches!(method, Method::Delete).then_some(Route::RevokePortalLink(id)),
            "DELETE",
        ),
        _ => return Match::NotFound,
    };
    match found {
        Some(r) => Match::Found(r),
        None => Match::MethodNotAllowed(allow),
    }
}

/// Every routed (path template, method) pair, for the OpenAPI test.
pub const ROUTES: &[(&str, &str)] = &[
    ("/api-keys", "get"),
    ("/api-keys", "post"),
    ("/api-keys/{id}", "get"),
    ("/api-keys/{id}", "delete"),
    ("/webhooks", "get"),
    ("/webhooks", "post"),
    ("/webhooks/{id}", "get"),
    ("/webhooks/{id}", "patch"),
    ("/webhooks/{id}", "delete"),
    ("/webhooks/{id}/test", "post"),
    ("/webhooks/{id}/deliveries", "get"),
    ("/webhooks/{id}/replay", "post"),
    ("/events", "post"),
    ("/audit", "get"),
    ("/webhooks/{id}/rotate-secret", "post"),
    ("/event-types", "get"),
    ("/event-types/{name}", "get"),
    ("/portal-links", "post"),
    ("/portal-links/{id}", "delete"),
    ("/openapi.json", "get"),
    ("/auth", "get"),
    ("/auth/{path}", "get"),
];

/// Whether `template` (of [`ROUTES`]) is the key check's, which any method reaches and no
/// [`Route`] names.
#[cfg(test)]
pub fn is_auth_template(template: &str) -> bool {
    auth_path(template).is_some()
}

#[cfg(test)]
mod tests {
    use super::{api_path, path_of};

    /// A target's path is what `split('?')` gives first, for every target made of the pieces
    /// a client sends: paths, queries, several `?`, an empty one, non-ASCII, an absolute URL.
    #[test]
    fn the_path_is_all_before_the_first_question_mark() {
        let pieces = [
            "",
            "/",
            "?",
            "??",
            "/api/v1",
            "/api-keys",
            "x=1",
            "&",
            "é",
            "http://h",
        ];
        for a in pieces {
            for b in pieces {
                for c in pieces {
                    let target = format!("{a}{b}{c}");
                    assert_eq!(
                        path_of(&target),
                        target.split('?').next().unwrap(),
                        "{target:?}"
                    );
                }
            }
        }
        assert_eq!(path_of("/healthz?verbose"), "/healthz");
        assert_eq!(path_of("?x"), "");
        assert_eq!(path_of("/metrics"), "/metrics");
    }

    #[test]
    fn the_prefix_is_a_whole_path_segment() {
        assert_eq!(api_path("/api/v1/api-keys"), Some("/api-keys"));
        assert_eq!(api_path("/api/v1/api-keys?x=1"), Some("/api-keys"));
        assert_eq!(api_path("/api/v1"), Some(""));
        assert_eq!(api_path("/api/v1?x"), Some(""));
        assert_eq!(api_path("/api/v1api-keys"), None);
        assert_eq!(api_path("/api/v10/api-keys"), None);
        assert_eq!(api_path("/api/v"), None);
        assert_eq!(api_path("api/v1/api-keys"), None);
    }

    #[test]
    fn an_absolute_form_target_is_routed_by_its_path() {
        assert_eq!(api_path("http://h:1/api/v1/api-keys"), Some("/api-keys"));
        assert_eq!(api_path("HTTP://h/api/v1/api-keys?a=b"), Some("/api-keys"));
        assert_eq!(api_path("https://h/api/v1/webhooks"), Some("/webhooks"));
        assert_eq!(api_path("http://h"), None);
        assert_eq!(api_path("http://h?/api/v1/x"), None);
        assert_eq!(api_path("http://h/api/v1api-keys"), None);
        assert_eq!(api_path("ftp://h/api/v1/api-keys"), None);
    }

    use super::*;
    use keyhook_core::auth::Access;

    #[test]
    fn each_route_asks_for_the_access_of_its_method() {
        for (template, method) in ROUTES
            .iter()
            .filter(|(p, _)| *p != "/openapi.json" && !is_auth_template(p))
        {
            let path = template.replace("{id}", "abcd").replace("{name}", "post.x");
            let m: Method = method.to_ascii_uppercase().parse().unwrap();
            let Match::Found(found) = route(&m, &path) else {
                panic!("{method} {path} is not routed");
            };
            assert_eq!(found.template(), *template, "{method} {path}");
            let read = matches!(m, Method::Get | Method::Head);
            let want = if read { Access::Read } else { Access::Write };
            assert_eq!(found.operation().access(), want, "{method} {template}");
            if read {
                let Match::Found(head) = route(&Method::Head, &path) else {
                    panic!("HEAD {path}");
                };
                assert_eq!(head.operation(), found.operation());
            }
        }
    }
}

#[cfg(test)]
mod segment_tests {
    use super::*;

    /// Each template, longer or with an empty segment, names nothing.
    #[test]
    fn a_longer_path_or_an_empty_segment_names_nothing() {
        for (template, method) in ROUTES
            .iter()
            .filter(|(p, _)| *p != "/openapi.json" && !is_auth_template(p))
        {
            let path = template.replace("{id}", "abcd").replace("{name}", "post.x");
            let m: Method = method.to_ascii_uppercase().parse().unwrap();
            assert!(matches!(route(&m, &path), Match::Found(_)), "{path}");
            for bad in [
                format!("{path}/x/y/z"),
                format!("{path}/"),
                format!("{path}//"),
                path.replacen('/', "//", 1),
            ] {
                assert!(matches!(route(&m, &bad), Match::NotFound), "{bad}");
            }
        }
        // The longest routes, one segment longer.
        for four in ["/webhooks/abcd/test/x", "/webhooks/abcd/rotate-secret/x"] {
            assert!(
                matches!(route(&Method::Post, four), Match::NotFound),
                "{four}"
            );
        }
        assert!(matches!(route(&Method::Get, "/a/b/c/d"), Match::NotFound));
        assert!(matches!(route(&Method::Get, ""), Match::NotFound));
        assert!(matches!(route(&Method::Get, "/"), Match::NotFound));
    }
}
