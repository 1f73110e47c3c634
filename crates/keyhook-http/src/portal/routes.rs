//! The portal's route templates, for the metrics' `route` label: a module of its own that
//! imports nothing, so that the metrics can name the portal's pages without depending on them.

/// The templates of the portal's pages: the metrics' `route` label of a request under
/// `/portal` (never its raw path, so a client creates no label values). `{id}` stands for any
/// one segment; each webhook action is its own template, as the portal's `route` answers them.
pub const TEMPLATES: &[&str] = &[
    "/portal",
    "/portal/session",
    "/portal/signout",
    "/portal/static/portal.css",
    "/portal/static/portal.js",
    "/portal/keys",
    "/portal/keys/{id}/revoke",
    "/portal/webhooks",
    "/portal/webhooks/{id}",
    "/portal/webhooks/{id}/deliveries.json",
    "/portal/webhooks/{id}/deliveries.html",
    "/portal/webhooks/{id}/enable",
    "/portal/webhooks/{id}/disable",
    "/portal/webhooks/{id}/delete",
    "/portal/webhooks/{id}/rotate-secret",
    "/portal/webhooks/{id}/replay",
    "/portal/webhooks/{id}/test",
    "/portal/events",
];

/// The template of [`TEMPLATES`] that `path` (without its query) matches, if any; `/portal/`
/// is `/portal`'s.
pub fn template(path: &str) -> Option<&'static str> {
    let path = if path == "/portal/" { "/portal" } else { path };
    TEMPLATES.iter().copied().find(|t| {
        let (mut want, mut got) = (t.split('/'), path.split('/'));
        loop {
            match (want.next(), got.next()) {
                (None, None) => return true,
                (Some("{id}"), Some(_)) => {}
                (Some(w), Some(g)) if w == g => {}
                _ => return false,
            }
        }
    })
}
