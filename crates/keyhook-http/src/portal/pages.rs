//! The portal's pages, rendered with maud: every `(value)` in a template is HTML-escaped by
//! the compiler-checked macro, and nothing here writes a user's string unescaped
//! (`PreEscaped` appears only around constant text).

use maud::{html, Markup, DOCTYPE};

use keyhook_core::error::FieldError;
use keyhook_core::model::{ApiKey, DeliveryAttempt, EventType, Webhook};
use keyhook_core::service::portal::{FilterTrial, LinkRefused};
use keyhook_core::time::Timestamp;

/// What every page of a session shows around its content.
pub struct Frame<'a> {
    pub csrf: &'a str,
    pub read_only: bool,
    /// "All profiles" or the link's profile ids.
    pub scope: &'a [String],
    pub full_access: bool,
    pub user: &'a str,
    /// Which tab is current: "keys", "webhooks", "events".
    pub tab: &'a str,
    pub now: Timestamp,
}

/// A form's values and problems after a refused submission.
#[derive(Default)]
pub struct Problems {
    pub fields: Vec<FieldError>,
    /// A problem of no one field (a limit reached, a refusal).
    pub general: Option<String>,
}

impl Problems {
    pub fn of(&self, field: &str) -> Vec<&str> {
        self.fields
            .iter()
            .filter(|f| f.field == field || f.field.starts_with(&format!("{field}[")))
            .map(|f| f.message.as_str())
            .collect()
    }
}

/// A notice shown above a page's content after an action.
pub struct Notice {
    pub ok: bool,
    pub text: String,
}

pub fn relative(t: Timestamp, now: Timestamp) -> String {
    let d = (t.0 - now.0) / 1000;
    let future = d > 0;
    let s = d.unsigned_abs();
    if s < 45 {
        return if future {
            "in a moment".into()
        } else {
            "just now".into()
        };
    }
    let (n, unit) = match s {
        s if s < 90 * 60 => (s.div_ceil(60).max(1), "minute"),
        s if s < 36 * 3600 => ((s + 1800) / 3600, "hour"),
        s if s < 60 * 86400 => ((s + 43200) / 86400, "day"),
        s if s < 730 * 86400 => ((s + 15 * 86400) / (30 * 86400), "month"),
        s => ((s + 182 * 86400) / (365 * 86400), "year"),
    };
    let plural = if n == 1 { "" } else { "s" };
    if future {
        format!("in {n} {unit}{plural}")
    } else {
        format!("{n} {unit}{plural} ago")
    }
}

/// A time shown relative to now, the exact time in `datetime` and on hover.
pub fn time(t: Timestamp, now: Timestamp) -> Markup {
    let exact = t.to_rfc3339();
    html! { time datetime=(exact) title=(exact) { (relative(t, now)) } }
}

fn errors_for(p: &Problems, field: &str) -> Markup {
    html! {
        @for m in p.of(field) {
            p.field-error id={ (field) "-error" } role="alert" { (m) }
        }
    }
}

fn page(title: &str, head_note: Option<Markup>, content: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                meta name="referrer" content="no-referrer";
                title { (title) " · Developer portal" }
                link rel="stylesheet" href="/portal/static/portal.css";
                script src="/portal/static/portal.js" defer {}
            }
            body {
                @if let Some(n) = head_note { (n) }
                (content)
            }
        }
    }
}

fn scope_text(full_access: bool, profiles: &[String]) -> String {
    if full_access {
        "all profiles".into()
    } else {
        format!("profiles {}", profiles.join(", "))
    }
}

/// A page of a session: the header with its tabs and sign-out, then `content`.
pub fn session_page(
    f: &Frame<'_>,
    title: &str,
    notice: Option<&Notice>,
    content: Markup,
) -> Markup {
    let tab = |id: &str, href: &str, label: &str| {
        let current = f.tab == id;
        html! {
            li { a href=(href) aria-current=[current.then_some("page")] { (label) } }
        }
    };
    let header = html! {
        header.top {
            div.brand { "Developer portal" }
            nav aria-label="Portal" {
                ul {
                    (tab("keys", "/portal/keys", "API keys"))
                    (tab("webhooks", "/portal/webhooks", "Webhooks"))
                    (tab("events", "/portal/events", "Event types"))
                }
            }
            div.session {
                span.who title="The account and scope this link manages" {
                    (f.user) " · " (scope_text(f.full_access, f.scope))
                }
                @if f.read_only { span.badge { "read-only" } }
                form method="post" action="/portal/signout" {
                    input type="hidden" name="csrf" value=(f.csrf);
                    button.link type="submit" { "Sign out" }
                }
            }
        }
    };
    page(
        title,
        Some(header),
        html! {
            main {
                @if let Some(n) = notice {
                    p class=(if n.ok { "notice ok" } else { "notice bad" }) role="status" { (n.text) }
                }
                (content)
            }
        },
    )
}

/// The landing page: the script opens the link in the address bar's fragment; without
/// script, or when there is none, a form takes the link or its token.
pub fn landing(problem: Option<&str>) -> Markup {
    page(
        "Open your link",
        None,
        html! {
            main.narrow {
                h1 { "Developer portal" }
                p #opening.js-only hidden { "Opening your link…" }
                p { "Paste the portal link you were given (or its token) to open your API keys and webhooks." }
                form #exchange method="post" action="/portal/session" {
                    label for="token" { "Portal link" }
                    input #token type="password" name="token" autocomplete="off" required
                        aria-describedby=[problem.map(|_| "token-error")];
                    @if let Some(m) = problem { p.field-error id="token-error" role="alert" { (m) } }
                    button type="submit" { "Open" }
                }
            }
        },
    )
}

/// A link that does not open, or a session that ended: what happened and what to do.
pub fn refused(why: LinkRefused) -> Markup {
    let (title, text) = match why {
        LinkRefused::Used => (
            "This link was already used",
            "A portal link opens once. If you closed the portal, ask for a new link from the \
             service that sent you here (its Developers or API page).",
        ),
        LinkRefused::Expired => (
            "This link has expired",
            "Portal links work for a short time only. Ask for a new link from the service \
             that sent you here (its Developers or API page).",
        ),
        LinkRefused::Revoked => (
            "This link was revoked",
            "The service withdrew this link. Ask it for a new one from its Developers or API \
             page.",
        ),
        LinkRefused::Unknown => (
            "This link is not valid",
            "Check that you copied the whole link, or ask for a new link from the service that \
             sent you here.",
        ),
    };
    message_page(title, text)
}

pub fn message_page(title: &str, text: &str) -> Markup {
    page(
        title,
        None,
        html! {
            main.narrow {
                h1 { (title) }
                p { (text) }
            }
        },
    )
}

pub fn session_ended() -> Markup {
    message_page(
        "Your session has ended",
        "Portal sessions last 8 hours and end when the service revokes them. Ask for a new link \
         from the service that sent you here (its Developers or API page).",
    )
}

/// A secret shown once with a copy button.
fn secret_once(label: &str, id: &str, value: &str, note: &str) -> Markup {
    html! {
        section.secret aria-labelledby={ (id) "-label" } {
            h2 id={ (id) "-label" } { (label) }
            p { (note) }
            div.copy-row {
                code id=(id) { (value) }
                button.copy type="button" data-copy=(id) { "Copy" }
            }
        }
    }
}

fn profile_fields(f: &Frame<'_>, p: &Problems, chosen: &[String]) -> Markup {
    html! {
        @if f.full_access {
            label for="profiles" { "Profiles " span.hint { "(optional: comma-separated; empty for all)" } }
            input #profiles type="text" name="profiles" value=(chosen.join(", "));
        } @else {
            fieldset {
                legend { "Profiles" }
                @for id in f.scope {
                    label.check {
                        input type="checkbox" name="profile" value=(id) checked[chosen.contains(id)];
                        (id)
                    }
                }
            }
        }
        (errors_for(p, "profileIds"))
        (errors_for(p, "fullAccess"))
    }
}

/// What a create-key form was sent with, to show it again after a refusal.
#[derive(Default)]
pub struct KeyForm {
    pub name: String,
    pub permission: String,
    pub profiles: Vec<String>,
    pub expires: String,
}

/// Choices of a new key's lifetime (form value, label).
pub const KEY_EXPIRIES: &[(&str, &str)] = &[
    ("", "Never"),
    ("1d", "In 1 day"),
    ("7d", "In 7 days"),
    ("30d", "In 30 days"),
    ("90d", "In 90 days"),
    ("365d", "In 1 year"),
];

pub fn keys_page(
    f: &Frame<'_>,
    keys: &[ApiKey],
    created: Option<&ApiKey>,
    form: &KeyForm,
    p: &Problems,
    notice: Option<&Notice>,
) -> Markup {
    let content = html! {
        h1 { "API keys" }
        @if let Some(k) = created {
            @if let Some(plain) = &k.key {
                (secret_once("Your new key", "new-key", plain,
                    "Copy it now: it is shown only once and cannot be shown again."))
            }
        }
        @if keys.is_empty() {
            p.empty { "No API keys yet: create one to call the API." }
        } @else {
            div.table-wrap {
                table {
                    thead { tr {
                        th scope="col" { "Name" } th scope="col" { "Key" } th scope="col" { "Permission" }
                        th scope="col" { "Scope" } th scope="col" { "Expires" } th scope="col" { "Last used" }
                        th scope="col" { "Created" }
                        @if !f.read_only { th scope="col" { span.sr-only { "Actions" } } }
                    } }
                    tbody {
                        @for k in keys {
                            tr {
                                td { (k.name) }
                                td { code { (k.key_prefix) "…" } }
                                td { (k.permission.as_str()) }
                                td { (scope_text(k.full_access, &k.profile_ids)) }
                                td {
                                    @match k.expires_at {
                                        Some(t) if t <= f.now => { span.badge.bad { "expired" } " " (time(t, f.now)) }
                                        Some(t) => { (time(t, f.now)) }
                                        None => { "never" }
                                    }
                                }
                                td { @match k.last_used_at { Some(t) => { (time(t, f.now)) } None => { "never" } } }
                                td { (time(k.created_at, f.now)) }
                                @if !f.read_only {
                                    td {
                                        form method="post" action={ "/portal/keys/" (k.id) "/revoke" } {
                                            input type="hidden" name="csrf" value=(f.csrf);
                                            button.danger type="submit" aria-label={ "Revoke " (k.name) } { "Revoke" }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        @if !f.read_only {
            section.card aria-labelledby="create-key" {
                h2 #create-key { "Create a key" }
                @if let Some(g) = &p.general { p.field-error role="alert" { (g) } }
                form method="post" action="/portal/keys" novalidate {
                    input type="hidden" name="csrf" value=(f.csrf);
                    label for="name" { "Name" }
                    input #name type="text" name="name" value=(form.name) maxlength="100" required
                        aria-invalid=[(!p.of("name").is_empty()).then_some("true")];
                    (errors_for(p, "name"))
                    label for="permission" { "Permission" }
                    select #permission name="permission" {
                        option value="readwrite" selected[form.permission != "readonly"] { "Read and write" }
                        option value="readonly" selected[form.permission == "readonly"] { "Read only" }
                    }
                    (errors_for(p, "permission"))
                    (profile_fields(f, p, &form.profiles))
                    label for="expires" { "Expires" }
                    select #expires name="expires" {
                        @for (v, label) in KEY_EXPIRIES {
                            option value=(v) selected[form.expires == *v] { (label) }
                        }
                    }
                    (errors_for(p, "expiresAt"))
                    (errors_for(p, "expires"))
                    (errors_for(p, "rateLimit"))
                    (errors_for(p, "remainingUses"))
                    button type="submit" { "Create key" }
                }
            }
        }
    };
    session_page(f, "API keys", notice, content)
}

/// What a webhook form was sent with.
#[derive(Default)]
pub struct WebhookForm {
    pub url: String,
    pub events: Vec<String>,
    pub filter: String,
    pub profiles: Vec<String>,
    /// The event type the filter is tried on.
    pub try_event: String,
}

impl WebhookForm {
    pub fn of(w: &Webhook) -> WebhookForm {
        WebhookForm {
            url: w.url.clone(),
            events: w.events.clone(),
            filter: w.filter.clone().unwrap_or_default(),
            profiles: if w.full_access {
                Vec::new()
            } else {
                w.profile_ids.clone()
            },
            try_event: w.events.first().cloned().unwrap_or_default(),
        }
    }
}

fn webhook_form(
    f: &Frame<'_>,
    action: &str,
    submit: &str,
    catalog: &[EventType],
    form: &WebhookForm,
    p: &Problems,
    trial: Option<&FilterTrial>,
) -> Markup {
    let subscribable: Vec<&EventType> = catalog
        .iter()
        .filter(|t| !t.deprecated || form.events.contains(&t.name))
        .collect();
    html! {
        @if let Some(g) = &p.general { p.field-error role="alert" { (g) } }
        form.webhook-form method="post" action=(action) novalidate {
            input type="hidden" name="csrf" value=(f.csrf);
            label for="url" { "Endpoint URL" }
            input #url type="url" name="url" value=(form.url) maxlength="2048" required
                placeholder="https://example.com/webhooks"
                aria-invalid=[(!p.of("url").is_empty()).then_some("true")];
            (errors_for(p, "url"))
            fieldset {
                legend { "Events" }
                @for t in &subscribable {
                    label.check {
                        input type="checkbox" name="events" value=(t.name) checked[form.events.contains(&t.name)];
                        code { (t.name) }
                        @if let Some(d) = &t.description { span.hint { (d) } }
                    }
                }
            }
            (errors_for(p, "events"))
            label for="filter" { "Filter " span.hint { "(optional CEL expression, e.g. data.tags.exists(t, t == \"breaking\"))" } }
            textarea #filter name="filter" rows="2" spellcheck="false"
                aria-invalid=[(!p.of("filter").is_empty()).then_some("true")] { (form.filter) }
            (errors_for(p, "filter"))
            div.try-row {
                label for="try_event" { "Try on the example of" }
                select #try_event name="try_event" {
                    @for t in catalog {
                        option value=(t.name) selected[form.try_event == t.name] { (t.name) }
                    }
                }
                button.secondary type="submit" name="intent" value="try" formnovalidate { "Try filter" }
            }
            (errors_for(p, "event"))
            div #filter-result aria-live="polite" {
                @if let Some(t) = trial {
                    @match (t.result, &t.error) {
                        (Some(true), _) => { p.notice.ok { "The filter lets " code { (t.event) } "'s example through." } }
                        (Some(false), _) => { p.notice.bad { "The filter holds " code { (t.event) } "'s example back." } }
                        (None, e) => { p.notice.bad { "The filter failed on " code { (t.event) } "'s example (" (e.as_deref().unwrap_or("error")) "): such an event is skipped." } }
                    }
                    details { summary { "The example" } pre { (pretty(&t.example)) } }
                }
            }
            (profile_fields(f, p, &form.profiles))
            button type="submit" name="intent" value="save" { (submit) }
        }
    }
}

pub fn pretty(v: &serde_json::Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default()
}

pub fn webhooks_page(
    f: &Frame<'_>,
    webhooks: &[Webhook],
    catalog: &[EventType],
    form: &WebhookForm,
    p: &Problems,
    trial: Option<&FilterTrial>,
    notice: Option<&Notice>,
) -> Markup {
    let content = html! {
        h1 { "Webhooks" }
        @if webhooks.is_empty() {
            p.empty { "No webhooks yet: create one to receive post.published" }
        } @else {
            div.table-wrap {
                table {
                    thead { tr {
                        th scope="col" { "Endpoint" } th scope="col" { "Events" } th scope="col" { "Status" }
                        th scope="col" { "Created" }
                    } }
                    tbody {
                        @for w in webhooks {
                            tr {
                                td { a href={ "/portal/webhooks/" (w.id) } { (w.url) } }
                                td { @for e in &w.events { code { (e) } " " } }
                                td { (status(w)) }
                                td { (time(w.created_at, f.now)) }
                            }
                        }
                    }
                }
            }
        }
        @if !f.read_only {
            section.card aria-labelledby="create-webhook" {
                h2 #create-webhook { "Add an endpoint" }
                (webhook_form(f, "/portal/webhooks", "Create webhook", catalog, form, p, trial))
            }
        }
    };
    session_page(f, "Webhooks", notice, content)
}

fn status(w: &Webhook) -> Markup {
    html! {
        @if w.is_active {
            span.badge.ok { "active" }
            @if w.fail_count > 0 { " " span.hint { (w.fail_count) " failing in a row" } }
        } @else {
            span.badge.bad { "disabled" }
        }
    }
}

pub struct WebhookView<'a> {
    pub webhook: &'a Webhook,
    pub attempts: &'a [DeliveryAttempt],
    pub disabled_reason: Option<&'a str>,
    /// The signing secret, right after the webhook was made or its secret rotated.
    pub secret: Option<&'a str>,
}

pub fn webhook_page(
    f: &Frame<'_>,
    v: &WebhookView<'_>,
    catalog: &[EventType],
    form: &WebhookForm,
    p: &Problems,
    trial: Option<&FilterTrial>,
    notice: Option<&Notice>,
) -> Markup {
    let w = v.webhook;
    let base = format!("/portal/webhooks/{}", w.id);
    let action = |path: &str, label: &str, class: &str| {
        html! {
            form.inline method="post" action={ (base) "/" (path) } {
                input type="hidden" name="csrf" value=(f.csrf);
                button class=(class) type="submit" { (label) }
            }
        }
    };
    let content = html! {
        p.crumbs { a href="/portal/webhooks" { "← Webhooks" } }
        h1 { "Webhook" }
        p.endpoint { code { (w.url) } " " (status(w)) }
        @if let Some(r) = v.disabled_reason { p.notice.bad { "Disabled: " (r) } }
        @if let Some(s) = v.secret {
            (secret_once("Signing secret", "new-secret", s,
                "Verify each delivery's webhook-signature with it (Standard Webhooks). Copy it now: it is shown only once."))
        }
        dl.facts {
            dt { "Events" } dd { @for e in &w.events { code { (e) } " " } }
            dt { "Scope" } dd { (scope_text(w.full_access, &w.profile_ids)) }
            dt { "Filter" } dd { @match &w.filter { Some(x) => { code { (x) } } None => { "none" } } }
            @if w.control.ordered {
                dt { "Order" } dd { "one at a time, in the order the events came; a failing delivery holds the later ones until it is delivered or its retries are used up" }
            }
            dt { "Created" } dd { (time(w.created_at, f.now)) }
        }
        @if !f.read_only {
            div.actions {
                (action("test", "Send test", "secondary"))
                @if w.is_active { (action("disable", "Disable", "secondary")) } @else { (action("enable", "Enable", "secondary")) }
                form.inline method="post" action={ (base) "/rotate-secret" } {
                    input type="hidden" name="csrf" value=(f.csrf);
                    label for="grace" { "Old secret valid for" }
                    select #grace name="grace" {
                        option value="0" { "no time" }
                        option value="3600" { "1 hour" }
                        option value="86400" selected { "24 hours" }
                        option value="604800" { "7 days" }
                    }
                    button.secondary type="submit" { "Rotate secret" }
                }
                (action("delete", "Delete", "danger"))
            }
            section.card aria-labelledby="edit-webhook" {
                h2 #edit-webhook { "Edit" }
                (webhook_form(f, &base, "Save", catalog, form, p, trial))
            }
        }
        section aria-labelledby="deliveries" {
            h2 #deliveries { "Deliveries" }
            @if !f.read_only {
                form.inline.replay-failed method="post" action={ (base) "/replay" } {
                    input type="hidden" name="csrf" value=(f.csrf);
                    input type="hidden" name="failed_only" value="1";
                    label for="since" { "Replay the failed ones since" }
                    select #since name="since" {
                        option value="1h" { "1 hour ago" }
                        option value="24h" selected { "24 hours ago" }
                        option value="7d" { "7 days ago" }
                        option value="30d" { "30 days ago" }
                    }
                    button.secondary type="submit" { "Replay failed" }
                }
                (errors_for(p, "since"))
            }
            div #attempts data-poll={ (base) "/deliveries.json" } {
                (attempts_table(f, &base, v.attempts))
            }
        }
    };
    session_page(f, "Webhook", notice, content)
}

/// The deliveries of a webhook, newest first (also what live updates replace).
pub fn attempts_table(f: &Frame<'_>, base: &str, attempts: &[DeliveryAttempt]) -> Markup {
    html! {
        @if attempts.is_empty() {
            p.empty { "No deliveries yet: they appear here as events are sent." }
        } @else {
            div.table-wrap {
                table.attempts {
                    thead { tr {
                        th scope="col" { "When" } th scope="col" { "Event" } th scope="col" { "Attempt" }
                        th scope="col" { "Status" } th scope="col" { "Duration" } th scope="col" { "Response" }
                        @if !f.read_only { th scope="col" { span.sr-only { "Actions" } } }
                    } }
                    tbody {
                        @for a in attempts {
                            tr {
                                td { (time(a.attempted_at, f.now)) }
                                td { code { (a.event) } br; span.hint { (a.event_id) } }
                                td { (a.attempt) }
                                td {
                                    @if let Some(s) = &a.skipped { span.badge.bad { "skipped" } " " (s) }
                                    @else if a.delivered { span.badge.ok { "delivered" } " " (a.status_code) " " (a.status_text) }
                                    @else { span.badge.bad { "failed" } " " @if a.status_code > 0 { (a.status_code) " " } (a.status_text) }
                                    @if a.holds_queue {
                                        br; span.badge.held { "holds the queue" } " " (a.queued_behind) " waiting behind it"
                                    }
                                }
                                td { (a.duration_ms) " ms" }
                                td {
                                    @if a.response_excerpt.is_empty() { span.hint { "empty" } }
                                    @else { details { summary { "Show" } pre { (a.response_excerpt) } } }
                                }
                                @if !f.read_only {
                                    td {
                                        @if a.event != "webhook.test" {
                                            form method="post" action={ (base) "/replay" } {
                                                input type="hidden" name="csrf" value=(f.csrf);
                                                input type="hidden" name="event_id" value=(a.event_id);
                                                button.secondary type="submit" { "Replay" }
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

pub fn events_page(f: &Frame<'_>, catalog: &[EventType]) -> Markup {
    let content = html! {
        h1 { "Event types" }
        p { "The events a webhook can subscribe to, with the shape of their data." }
        @if catalog.is_empty() {
            p.empty { "No event types yet." }
        }
        @for t in catalog {
            section.card.event-type id={ "event-" (t.name) } {
                h2 { code { (t.name) } @if t.deprecated { " " span.badge.bad { "deprecated" } } }
                @if let Some(d) = &t.description { p { (d) } }
                p.hint { "Profile: " (t.profile.as_str()) }
                @if let Some(s) = &t.schema { details { summary { "Schema" } pre { (pretty(s)) } } }
                @if let Some(e) = &t.example { details open { summary { "Example" } pre { (pretty(e)) } } }
            }
        }
    };
    session_page(f, "Event types", None, content)
}
