//! The developer portal under `/portal` (CONTRACT §14): server-rendered pages (maud) over the
//! same `service` functions `/api/v1` calls, as [`Actor::Portal`]. A request's session is its
//! `keyhook_portal` cookie; every POST carries the session's CSRF token; every response carries
//! the portal's security headers ([`security_headers`]).

mod form;
mod pages;
pub mod routes;

pub use routes::TEMPLATES;

use maud::Markup;
use tiny_http::{Method, Request};

use super::api::Ctx;
use super::body::Body;
use super::reply::{self, Reply};
use form::Form;
use keyhook_core::error::{Error, FieldError};
use keyhook_core::guard;
use keyhook_core::model::{ApiKey, Permission, Webhook};
use keyhook_core::service::event_types;
use keyhook_core::service::filter::Filter;
use keyhook_core::service::input::Problems as InputProblems;
use keyhook_core::service::keys::{self, Expiry, KeyName, NewKey, ProfileIds};
use keyhook_core::service::portal::{self, LinkRefused, PortalConfig, Session};
use keyhook_core::service::replay::{self, ReplayRequest};
use keyhook_core::service::webhooks::{
    self, Grace, NewWebhook, RotateSecret, WebhookEvents, WebhookPatch, WebhookUrl,
};
use keyhook_core::service::Publish;
use keyhook_core::store::Store;
use keyhook_core::time::{self, Timestamp};
use pages::{Frame, Notice, Problems};

/// The session cookie's name.
pub const COOKIE: &str = "keyhook_portal";

const CSS: &str = include_str!("static/portal.css");
const JS: &str = include_str!("static/portal.js");

/// Whether `path` (without its query) is the portal's.
pub fn is_portal(path: &str) -> bool {
    path == "/portal" || path.starts_with("/portal/")
}

/// What the server keeps for the portal: its configuration and the headers every page gets.
pub struct Portal {
    pub config: PortalConfig,
    /// The public URL in force (`--public-url`, else `http://` and the bound address).
    pub public_url: String,
    secure: bool,
    csp: String,
}

impl Portal {
    pub fn new(config: PortalConfig, bound: std::net::SocketAddr) -> Portal {
        let public_url = config
            .public_url
            .clone()
            .unwrap_or_else(|| format!("http://{bound}"));
        let secure = public_url.starts_with("https://");
        let ancestors = if config.embed_origins.is_empty() {
            "'none'".to_string()
        } else {
            config.embed_origins.join(" ")
        };
        let csp = format!(
            "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; \
             connect-src 'self'; form-action 'self'; base-uri 'none'; \
             frame-ancestors {ancestors}"
        );
        Portal {
            config,
            public_url,
            secure,
            csp,
        }
    }

    fn embedded(&self) -> bool {
        !self.config.embed_origins.is_empty()
    }

    /// The `Set-Cookie` value of a session (or, with `None`, of its removal).
    fn cookie(&self, token: Option<&str>) -> String {
        let (value, age) = match token {
            Some(t) => (t, (portal::SESSION_MS / 1000).to_string()),
            None => ("", "0".to_string()),
        };
        let same_site = if self.embedded() {
            "SameSite=None; Secure; Partitioned"
        } else if self.secure {
            "SameSite=Strict; Secure"
        } else {
            "SameSite=Strict"
        };
        format!("{COOKIE}={value}; Path=/portal; Max-Age={age}; HttpOnly; {same_site}")
    }
}

/// A reply of the portal with its security headers.
fn respond(
    portal: &Portal,
    status: u16,
    content_type: &'static str,
    body: Vec<u8>,
    extra: Vec<(&'static str, String)>,
) -> Reply {
    let mut r = reply::raw(status, body);
    r.content_type = Some(content_type);
    let mut headers = security_headers(portal);
    headers.extend(extra);
    r.headers = Some(tiny_http::HeaderLines::new(
        headers.iter().map(|(n, v)| (*n, v.as_str())),
    ));
    r
}

/// The headers of every portal response (`Cache-Control: no-store` is on every reply).
fn security_headers(portal: &Portal) -> Vec<(&'static str, String)> {
    let mut h = vec![
        ("Content-Security-Policy", portal.csp.clone()),
        ("X-Content-Type-Options", "nosniff".to_string()),
        ("Referrer-Policy", "no-referrer".to_string()),
        ("Cross-Origin-Opener-Policy", "same-origin".to_string()),
    ];
    if !portal.embedded() {
        h.push(("X-Frame-Options", "DENY".to_string()));
    }
    h
}

fn html(portal: &Portal, status: u16, page: Markup) -> Reply {
    respond(
        portal,
        status,
        "text/html; charset=utf-8",
        page.into_string().into_bytes(),
        Vec::new(),
    )
}

fn redirect(portal: &Portal, to: &str, extra: Vec<(&'static str, String)>) -> Reply {
    let mut headers = vec![("Location", to.to_string())];
    headers.extend(extra);
    respond(
        portal,
        303,
        "text/plain; charset=utf-8",
        Vec::new(),
        headers,
    )
}

fn header<'a>(rq: &'a Request, name: &'static str) -> Option<&'a str> {
    rq.headers()
        .iter()
        .find(|h| h.field.equiv(name))
        .map(|h| h.value.as_str())
}

/// Handles a request under `/portal`.
pub fn dispatch(portal: &Portal, ctx: Ctx<'_>, rq: &Request, body: Body) -> Reply {
    let path = super::router::path_of(rq.url());
    let method = rq.method().clone();
    let get = matches!(method, Method::Get | Method::Head);
    let post = matches!(method, Method::Post);
    if !get && !post {
        let mut r = html(
            portal,
            405,
            pages::message_page(
                "Method not allowed",
                "The portal answers GET and POST only.",
            ),
        );
        r.allow = Some("GET, POST");
        return r;
    }
    // A POST from another site is refused before anything else (with the CSRF token below,
    // and SameSite cookies, a second wall).
    if post && header(rq, "Sec-Fetch-Site").is_some_and(|s| s.eq_ignore_ascii_case("cross-site")) {
        return html(
            portal,
            403,
            pages::message_page(
                "Refused",
                "A form of another site cannot act in the portal.",
            ),
        );
    }
    match (path, get) {
        ("/portal/static/portal.css", true) => {
            return respond(
                portal,
                200,
                "text/css; charset=utf-8",
                CSS.as_bytes().to_vec(),
                Vec::new(),
            )
        }
        ("/portal/static/portal.js", true) => {
            return respond(
                portal,
                200,
                "text/javascript; charset=utf-8",
                JS.as_bytes().to_vec(),
                Vec::new(),
            )
        }
        _ => {}
    }
    let content_type = header(rq, "Content-Type");
    let form = if post {
        Form::of(content_type, body)
    } else {
        Form::default()
    };
    let cookie = form::cookie(
        rq.headers()
            .iter()
            .filter(|h| h.field.equiv("Cookie"))
            .map(|h| h.value.as_str()),
        COOKIE,
    )
    .map(str::to_string);
    let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        route(portal, ctx, path, post, &form, cookie.as_deref())
    }));
    match out {
        Ok(Ok(r)) => r,
        Ok(Err(e)) => html(
            portal,
            e.http_status(),
            pages::message_page("Something went wrong", &safe_message(&e)),
        ),
        Err(_) => html(
            portal,
            500,
            pages::message_page(
                "Something went wrong",
                "The portal could not answer. Try again.",
            ),
        ),
    }
}

/// What a page says about an error that is no field's: the domain's message for the client's
/// mistakes, nothing internal for the rest.
fn safe_message(e: &Error) -> String {
    match e.http_status() {
        500 => "The portal could not answer. Try again.".into(),
        503 => "The service is busy. Try again shortly.".into(),
        _ => e.to_string(),
    }
}

type Out = keyhook_core::error::Result<Reply>;

fn route(
    portal: &Portal,
    mut ctx: Ctx<'_>,
    path: &str,
    post: bool,
    form: &Form,
    cookie: Option<&str>,
) -> Out {
    let now = ctx.clock.now();
    match (path, post) {
        ("/portal", false) | ("/portal/", false) => {
            let store = ctx.db.store()?;
            if let Some(token) = cookie {
                if portal::session(store, token, now)?.is_some() {
                    return Ok(redirect(portal, "/portal/keys", Vec::new()));
                }
            }
            return Ok(html(portal, 200, pages::landing(None)));
        }
        ("/portal/session", true) => {
            let raw = form.get("token").unwrap_or("");
            // The whole link pasted, or just its token.
            let token = raw.rsplit_once('#').map_or(raw, |(_, t)| t).trim();
            if token.is_empty() {
                return Ok(html(
                    portal,
                    400,
                    pages::landing(Some("Paste the portal link or its token.")),
                ));
            }
            let store = ctx.db.store()?;
            return Ok(match portal::exchange(store, token, now)? {
                Ok((session_token, _)) => redirect(
                    portal,
                    "/portal/keys",
                    vec![("Set-Cookie", portal.cookie(Some(&session_token)))],
                ),
                Err(LinkRefused::Unknown) => {
                    html(portal, 404, pages::refused(LinkRefused::Unknown))
                }
                Err(why) => html(portal, 410, pages::refused(why)),
            });
        }
        _ => {}
    }
    let store = ctx.db.store()?;
    let session = match cookie {
        Some(token) => portal::session(store, token, now)?.map(|s| (s, token.to_string())),
        None => None,
    };
    let Some((session, token)) = session else {
        return Ok(html(portal, 401, pages::session_ended()));
    };
    let csrf = portal::csrf_token(&token);
    if post
        && !form
            .get("csrf")
            .is_some_and(|sent| portal::csrf_ok(&token, sent))
    {
        return Ok(html(portal, 403, pages::message_page(
            "This form has expired",
            "Reload the page and try again (the form's security token did not match this session).",
        )));
    }
    if path == "/portal/signout" && post {
        portal::end_session(store, &session)?;
        return Ok(respond(
            portal,
            200,
            "text/html; charset=utf-8",
            pages::message_page(
                "Signed out",
                "You are signed out of the portal. Ask the service for a new link to come back.",
            )
            .into_string()
            .into_bytes(),
            vec![("Set-Cookie", portal.cookie(None))],
        ));
    }
    // A read-only link changes nothing: its pages have no forms, and a POST is refused here
    // before any service is asked (which would refuse it too: its key is readonly).
    if post && session.read_only() {
        return Ok(html(
            portal,
            403,
            pages::message_page(
                "This link is read-only",
                "A read-only portal link shows everything and changes nothing.",
            ),
        ));
    }
    let page = PageCtx {
        portal,
        session: &session,
        csrf: &csrf,
        now,
    };
    let segments: Vec<&str> = path.trim_start_matches("/portal/").split('/').collect();
    match (segments.as_slice(), post) {
        (["keys"], false) => page.keys(
            store,
            None,
            &pages::KeyForm::default(),
            &Problems::default(),
            None,
            200,
        ),
        (["keys"], true) => page.create_key(store, form),
        (["keys", id, "revoke"], true) => page.revoke_key(store, id),
        (["webhooks"], false) => page.webhooks(
            store,
            &pages::WebhookForm::default(),
            &Problems::default(),
            None,
            None,
            200,
        ),
        (["webhooks"], true) => page.create_webhook(store, form),
        (["webhooks", id], false) => {
            page.webhook(store, id, None, None, &Problems::default(), None, None, 200)
        }
        (["webhooks", id], true) => page.update_webhook(store, id, form),
        (["webhooks", id, "deliveries.json"], false) => {
            let attempts = webhooks::attempts(store, &session.actor, id)?;
            let body = serde_json::to_vec(&serde_json::json!({ "data": attempts }))
                .map_err(|e| Error::Storage(e.to_string()))?;
            Ok(respond(portal, 200, "application/json", body, Vec::new()))
        }
        (["webhooks", id, "deliveries.html"], false) => {
            let attempts = webhooks::attempts(store, &session.actor, id)?;
            let base = format!("/portal/webhooks/{id}");
            Ok(html(
                portal,
                200,
                pages::attempts_table(&page.frame("webhooks"), &base, &attempts),
            ))
        }
        (["webhooks", id, action], true) => {
            let id = id.to_string();
            match *action {
                "enable" | "disable" => page.set_active(store, &id, *action == "enable"),
                "delete" => {
                    webhooks::delete(store, &session.actor, &id, now)?;
                    page.webhooks(
                        store,
                        &pages::WebhookForm::default(),
                        &Problems::default(),
                        None,
                        Some(Notice {
                            ok: true,
                            text: "The webhook was deleted.".into(),
                        }),
                        200,
                    )
                }
                "rotate-secret" => page.rotate_secret(store, &id, form),
                "replay" => page.replay(store, &id, form),
                "test" => {
                    let slot = ctx.pings.take(session.actor.user_id());
                    let slot = match slot {
                        Ok(s) => s,
                        Err(e) => {
                            return page.webhook(
                                store,
                                &id,
                                None,
                                None,
                                &Problems::default(),
                                None,
                                Some(Notice {
                                    ok: false,
                                    text: e.to_string(),
                                }),
                                429,
                            )
                        }
                    };
                    let (db, sender) = ctx.db.for_network();
                    let result = webhooks::test(&db, &session.actor, &id, sender, None, now);
                    drop(slot);
                    let store = db_store(&db)?;
                    let notice = match result {
                        Ok(r) if r.delivered => Notice {
                            ok: true,
                            text: format!("Test delivered: {} {}", r.status_code, r.status_text),
                        },
                        Ok(r) => Notice {
                            ok: false,
                            text: format!(
                                "Test failed: {}",
                                if r.status_code > 0 {
                                    format!("{} {}", r.status_code, r.status_text)
                                } else {
                                    r.status_text
                                }
                            ),
                        },
                        Err(e) => return Err(e),
                    };
                    page.webhook(
                        &store,
                        &id,
                        None,
                        None,
                        &Problems::default(),
                        None,
                        Some(notice),
                        200,
                    )
                }
                _ => Ok(html(
                    portal,
                    404,
                    pages::message_page("Not found", "There is no such page in the portal."),
                )),
            }
        }
        (["events"], false) => {
            let catalog = event_types::list(store, &session.actor)?;
            Ok(html(
                portal,
                200,
                pages::events_page(&page.frame("events"), &catalog),
            ))
        }
        _ => Ok(html(
            portal,
            404,
            pages::message_page("Not found", "There is no such page in the portal."),
        )),
    }
}

/// A connection for the page after a network call (the request's went back to the pool).
fn db_store(db: &super::request_db::Steps<'_>) -> keyhook_core::error::Result<Box<Store>> {
    db.connect()
}

/// What each page of a session needs.
struct PageCtx<'a> {
    portal: &'a Portal,
    session: &'a Session,
    csrf: &'a str,
    now: Timestamp,
}

/// The problems of a refused action, as the page shows them: next to their field, or above
/// the form.
/// `problems` in one line, for a notice: the general message, else the fields' joined.
fn summary(problems: &Problems) -> String {
    problems.general.clone().unwrap_or_else(|| {
        problems
            .fields
            .iter()
            .map(|f| f.message.clone())
            .collect::<Vec<_>>()
            .join("; ")
    })
}

fn problems_of(e: Error) -> Result<(u16, Problems), Error> {
    let status = e.http_status();
    match e {
        Error::Validation(fields) => Ok((
            status,
            Problems {
                fields,
                general: None,
            },
        )),
        Error::ForbiddenFields { message, details } => Ok((
            status,
            Problems {
                fields: details,
                general: Some(message),
            },
        )),
        Error::Forbidden(_)
        | Error::LimitReached(_)
        | Error::Conflict(_)
        | Error::WebhookDisabled(_)
        | Error::RateLimited(_)
        | Error::Exhausted => Ok((
            status,
            Problems {
                fields: Vec::new(),
                general: Some(e.to_string()),
            },
        )),
        other => Err(other),
    }
}

impl PageCtx<'_> {
    fn frame(&self, tab: &'static str) -> Frame<'_> {
        let link = &self.session.link;
        Frame {
            csrf: self.csrf,
            read_only: link.read_only,
            scope: &link.profile_ids,
            full_access: link.full_access,
            user: &link.user_id,
            tab,
            now: self.now,
        }
    }

    fn actor(&self) -> &keyhook_core::service::Actor {
        &self.session.actor
    }

    fn keys(
        &self,
        store: &Store,
        created: Option<&ApiKey>,
        form: &pages::KeyForm,
        p: &Problems,
        notice: Option<Notice>,
        status: u16,
    ) -> Out {
        let keys = keys::list(store, self.actor(), false)?;
        Ok(html(
            self.portal,
            status,
            pages::keys_page(
                &self.frame("keys"),
                &keys,
                created,
                form,
                p,
                notice.as_ref(),
            ),
        ))
    }

    fn chosen_profiles(&self, form: &Form) -> Vec<String> {
        if self.session.link.full_access {
            form.get("profiles")
                .unwrap_or("")
                .split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect()
        } else {
            form.all("profile")
        }
    }

    /// The scope a form asks for: the profiles chosen, or (none) the link's own.
    fn scope_of(
        &self,
        p: &mut InputProblems,
        chosen: Vec<String>,
    ) -> (Option<bool>, Option<ProfileIds>) {
        if chosen.is_empty() {
            return (None, None);
        }
        let ids = p.take_list("profileIds", ProfileIds::new(chosen));
        (Some(false), ids)
    }

    fn create_key(&self, store: &Store, form: &Form) -> Out {
        let values = pages::KeyForm {
            name: form.get("name").unwrap_or("").to_string(),
            permission: form.get("permission").unwrap_or("readwrite").to_string(),
            profiles: self.chosen_profiles(form),
            expires: form.get("expires").unwrap_or("").to_string(),
        };
        let mut p = InputProblems::default();
        let name = p.take("name", KeyName::new(&values.name));
        let permission = p.take("permission", Permission::parse(&values.permission));
        let expires_at = if values.expires.is_empty() {
            // A link minted by a key that expires: the key made here expires with it at the
            // latest, so "never" means as late as allowed (the core refuses anything later).
            self.actor()
                .as_key()
                .and_then(|k| k.expires_at)
                .and_then(|t| Expiry::new(t, self.now).ok())
        } else {
            match time::parse_duration(&values.expires) {
                Ok(ms) => p.take("expires", Expiry::new(self.now.add_millis(ms), self.now)),
                Err(m) => {
                    p.add("expires", m);
                    None
                }
            }
        };
        let (full_access, profile_ids) = self.scope_of(&mut p, values.profiles.clone());
        p.end_decoding();
        let input = NewKey {
            name,
            permission,
            full_access,
            profile_ids,
            expires_at,
            rate_limit: None,
            remaining_uses: None,
            problems: p,
        };
        // A scoped link that names no profile gives the key the link's own scope.
        let input = if input.full_access.is_none() && !self.session.link.full_access {
            NewKey {
                full_access: Some(false),
                profile_ids: ProfileIds::new(self.session.link.profile_ids.clone()).ok(),
                ..input
            }
        } else {
            input
        };
        match keys::create(store, self.actor(), input, self.now, Publish::AfterCommit) {
            Ok(key) => self.keys(
                store,
                Some(&key),
                &pages::KeyForm::default(),
                &Problems::default(),
                None,
                201,
            ),
            Err(e) => {
                let (status, problems) = problems_of(e)?;
                self.keys(store, None, &values, &problems, None, status)
            }
        }
    }

    fn revoke_key(&self, store: &Store, id: &str) -> Out {
        match keys::delete(store, self.actor(), id, self.now) {
            Ok(k) => self.keys(
                store,
                None,
                &pages::KeyForm::default(),
                &Problems::default(),
                Some(Notice {
                    ok: true,
                    text: format!("The key {} was revoked.", k.name),
                }),
                200,
            ),
            Err(e) => {
                let (status, problems) = problems_of(e)?;
                let text = problems
                    .general
                    .unwrap_or_else(|| "The key could not be revoked.".into());
                self.keys(
                    store,
                    None,
                    &pages::KeyForm::default(),
                    &Problems::default(),
                    Some(Notice { ok: false, text }),
                    status,
                )
            }
        }
    }

    fn webhooks(
        &self,
        store: &Store,
        form: &pages::WebhookForm,
        p: &Problems,
        trial: Option<&portal::FilterTrial>,
        notice: Option<Notice>,
        status: u16,
    ) -> Out {
        let list = webhooks::list(store, self.actor())?;
        let list: Vec<Webhook> = list.iter().filter(|w| !w.ephemeral).cloned().collect();
        let catalog = self.catalog(store)?;
        Ok(html(
            self.portal,
            status,
            pages::webhooks_page(
                &self.frame("webhooks"),
                &list,
                &catalog,
                form,
                p,
                trial,
                notice.as_ref(),
            ),
        ))
    }

    fn catalog(
        &self,
        store: &Store,
    ) -> keyhook_core::error::Result<Vec<keyhook_core::model::EventType>> {
        Ok(event_types::list(store, self.actor())?
            .into_iter()
            .filter(|t| t.name != "webhook.test")
            .collect())
    }

    #[allow(clippy::too_many_arguments)]
    fn webhook(
        &self,
        store: &Store,
        id: &str,
        secret: Option<&str>,
        form: Option<&pages::WebhookForm>,
        p: &Problems,
        trial: Option<&portal::FilterTrial>,
        notice: Option<Notice>,
        status: u16,
    ) -> Out {
        let w = webhooks::get(store, self.actor(), id)?;
        let attempts = webhooks::attempts(store, self.actor(), id)?;
        let reason = webhooks::disabled_reason(store, &w)?;
        let catalog = self.catalog(store)?;
        let own = pages::WebhookForm::of(&w);
        let view = pages::WebhookView {
            webhook: &w,
            attempts: &attempts,
            disabled_reason: reason.as_deref(),
            secret,
        };
        Ok(html(
            self.portal,
            status,
            pages::webhook_page(
                &self.frame("webhooks"),
                &view,
                &catalog,
                form.unwrap_or(&own),
                p,
                trial,
                notice.as_ref(),
            ),
        ))
    }

    fn webhook_form(&self, form: &Form) -> pages::WebhookForm {
        let events = form.all("events");
        pages::WebhookForm {
            url: form.get("url").unwrap_or("").trim().to_string(),
            try_event: form
                .text("try_event")
                .or_else(|| events.first().cloned())
                .unwrap_or_default(),
            events,
            filter: form.get("filter").unwrap_or("").trim().to_string(),
            profiles: self.chosen_profiles(form),
        }
    }

    /// The URL as the portal takes it: never a private address unless serve runs with
    /// `--portal-allow-private-targets`, whatever `--allow-private-targets` says; a host name
    /// is resolved now and refused if any of its addresses is private (delivery vets the
    /// address again).
    fn url(&self, p: &mut InputProblems, raw: &str) -> Option<WebhookUrl> {
        let allow = self.portal.config.allow_private_targets;
        let url = p.take("url", WebhookUrl::new(raw, allow))?;
        if !allow {
            if let Err(m) = resolves_public(raw) {
                p.add("url", m);
                return None;
            }
        }
        Some(url)
    }

    /// Tries the form's filter on the chosen event type's example.
    fn trial(
        &self,
        store: &Store,
        values: &pages::WebhookForm,
    ) -> (Option<portal::FilterTrial>, Problems) {
        if values.filter.is_empty() {
            let p = Problems {
                fields: vec![FieldError::new("filter", "write a filter to try")],
                general: None,
            };
            return (None, p);
        }
        match portal::try_filter(store, self.actor(), &values.filter, &values.try_event) {
            Ok(t) => (Some(t), Problems::default()),
            Err(Error::Validation(fields)) => (
                None,
                Problems {
                    fields,
                    general: None,
                },
            ),
            Err(e) => (
                None,
                Problems {
                    fields: Vec::new(),
                    general: Some(safe_message(&e)),
                },
            ),
        }
    }

    fn create_webhook(&self, store: &Store, form: &Form) -> Out {
        let values = self.webhook_form(form);
        if form.get("intent") == Some("try") {
            let (trial, p) = self.trial(store, &values);
            let status = if p.fields.is_empty() && p.general.is_none() {
                200
            } else {
                400
            };
            return self.webhooks(store, &values, &p, trial.as_ref(), None, status);
        }
        let mut p = InputProblems::default();
        let url = self.url(&mut p, &values.url);
        let events = p.take_list("events", WebhookEvents::new(values.events.clone()));
        let filter = if values.filter.is_empty() {
            None
        } else {
            p.take("filter", Filter::new(&values.filter))
        };
        let (full_access, profile_ids) = self.scope_of(&mut p, values.profiles.clone());
        p.end_decoding();
        let input = NewWebhook {
            url,
            events,
            full_access,
            profile_ids,
            filter,
            // The portal leaves delivery control to the operator: serve's schedule and
            // timeout, no rate.
            retry_schedule: None,
            timeout: None,
            rate: None,
            ordered: None,
            // Signed with HMAC, no static headers: the operator's to change.
            signing: None,
            headers: None,
            ephemeral: false,
            idempotency: None,
            problems: p,
        };
        match webhooks::create(store, self.actor(), input, self.now, Publish::AfterCommit) {
            Ok(w) => self.webhook(
                store,
                &w.id,
                Some(&w.secret),
                None,
                &Problems::default(),
                None,
                Some(Notice {
                    ok: true,
                    text: "The webhook was created.".into(),
                }),
                201,
            ),
            Err(e) => {
                let (status, problems) = problems_of(e)?;
                self.webhooks(store, &values, &problems, None, None, status)
            }
        }
    }

    fn update_webhook(&self, store: &Store, id: &str, form: &Form) -> Out {
        let values = self.webhook_form(form);
        if form.get("intent") == Some("try") {
            let (trial, p) = self.trial(store, &values);
            let status = if p.fields.is_empty() && p.general.is_none() {
                200
            } else {
                400
            };
            return self.webhook(
                store,
                id,
                None,
                Some(&values),
                &p,
                trial.as_ref(),
                None,
                status,
            );
        }
        let mut p = InputProblems::default();
        let url = self.url(&mut p, &values.url);
        let events = p.take_list("events", WebhookEvents::new(values.events.clone()));
        let filter = if values.filter.is_empty() {
            Some(None)
        } else {
            p.take("filter", Filter::new(&values.filter)).map(Some)
        };
        let (full_access, profile_ids) = if values.profiles.is_empty() {
            // No profile chosen: the link's own scope.
            if self.session.link.full_access {
                (Some(true), None)
            } else {
                (
                    Some(false),
                    ProfileIds::new(self.session.link.profile_ids.clone()).ok(),
                )
            }
        } else {
            self.scope_of(&mut p, values.profiles.clone())
        };
        p.end_decoding();
        let patch = WebhookPatch {
            url,
            events,
            full_access,
            profile_ids,
            is_active: None,
            filter,
            // Kept as the operator set them (`None`: unchanged).
            retry_schedule: None,
            timeout: None,
            rate: None,
            ordered: None,
            signing: None,
            headers: None,
            problems: p,
        };
        match webhooks::update(store, self.actor(), id, patch, self.now) {
            Ok(_) => self.webhook(
                store,
                id,
                None,
                None,
                &Problems::default(),
                None,
                Some(Notice {
                    ok: true,
                    text: "Saved.".into(),
                }),
                200,
            ),
            Err(Error::NotFound(m)) => Err(Error::NotFound(m)),
            Err(e) => {
                let (status, problems) = problems_of(e)?;
                self.webhook(
                    store,
                    id,
                    None,
                    Some(&values),
                    &problems,
                    None,
                    None,
                    status,
                )
            }
        }
    }

    fn set_active(&self, store: &Store, id: &str, active: bool) -> Out {
        let patch = WebhookPatch {
            is_active: Some(active),
            ..WebhookPatch::default()
        };
        webhooks::update(store, self.actor(), id, patch, self.now)?;
        let text = if active {
            "The webhook is enabled."
        } else {
            "The webhook is disabled: it gets no deliveries until enabled."
        };
        self.webhook(
            store,
            id,
            None,
            None,
            &Problems::default(),
            None,
            Some(Notice {
                ok: true,
                text: text.into(),
            }),
            200,
        )
    }

    fn rotate_secret(&self, store: &Store, id: &str, form: &Form) -> Out {
        let mut p = InputProblems::default();
        let grace = form
            .get("grace")
            .map(|g| match g.parse::<i64>() {
                Ok(s) => p.take("grace", Grace::new(s)),
                Err(_) => {
                    p.add("grace", "must be a whole number of seconds");
                    None
                }
            })
            .unwrap_or(None);
        p.end_decoding();
        let input = RotateSecret {
            grace,
            idempotency: None,
            problems: p,
        };
        match webhooks::rotate_secret(
            store,
            self.actor(),
            id,
            input,
            self.now,
            Publish::AfterCommit,
        ) {
            Ok(w) => self.webhook(
                store,
                id,
                Some(&w.secret),
                None,
                &Problems::default(),
                None,
                Some(Notice {
                    ok: true,
                    text: "The secret was rotated.".into(),
                }),
                200,
            ),
            Err(e) => {
                let (status, problems) = problems_of(e)?;
                let text = summary(&problems);
                self.webhook(
                    store,
                    id,
                    None,
                    None,
                    &Problems::default(),
                    None,
                    Some(Notice { ok: false, text }),
                    status,
                )
            }
        }
    }

    fn replay(&self, store: &Store, id: &str, form: &Form) -> Out {
        let mut p = InputProblems::default();
        let event_id = form.text("event_id");
        let since = match (&event_id, form.text("since")) {
            (None, Some(s)) => p.take("since", time::parse_since(&s, self.now)),
            _ => None,
        };
        p.end_decoding();
        let input = ReplayRequest {
            since,
            failed_only: event_id.is_none() && form.get("failed_only").is_some(),
            event_id,
            idempotency: None,
            problems: p,
        };
        match replay::replay(store, self.actor(), id, input, self.now) {
            Ok(r) => {
                let text = match r.queued {
                    0 => "Nothing to replay.".to_string(),
                    1 => "1 delivery queued again.".to_string(),
                    n => format!("{n} deliveries queued again."),
                };
                self.webhook(
                    store,
                    id,
                    None,
                    None,
                    &Problems::default(),
                    None,
                    Some(Notice { ok: true, text }),
                    202,
                )
            }
            Err(Error::NotFound(m)) => Err(Error::NotFound(m)),
            Err(e) => {
                let (status, problems) = problems_of(e)?;
                let text = summary(&problems);
                self.webhook(
                    store,
                    id,
                    None,
                    None,
                    &problems,
                    None,
                    Some(Notice { ok: false, text }),
                    status,
                )
            }
        }
    }
}

/// Refuses a URL whose host resolves to (or is) an address a webhook may not reach
/// (`guard::is_forbidden`), or that does not resolve.
fn resolves_public(raw: &str) -> Result<(), String> {
    use std::net::ToSocketAddrs;
    let Ok(url) = url_host(raw) else {
        return Err("must be an absolute http or https URL".into());
    };
    let (host, port) = url;
    let addrs: Vec<_> = (host.as_str(), port)
        .to_socket_addrs()
        .map_err(|_| format!("the host {host} does not resolve"))?
        .collect();
    if addrs.is_empty() {
        return Err(format!("the host {host} does not resolve"));
    }
    if addrs.iter().any(|a| guard::is_forbidden(a.ip())) {
        return Err("must not point at a private, loopback or link-local address".into());
    }
    Ok(())
}

/// The host (without IPv6 brackets) and port of an http(s) URL.
fn url_host(raw: &str) -> Result<(String, u16), ()> {
    let rest = raw.split_once("://").ok_or(())?;
    let port_default = if rest.0.eq_ignore_ascii_case("https") {
        443
    } else {
        80
    };
    let authority = rest.1.split(['/', '?', '#']).next().ok_or(())?;
    let (host, port) = if let Some(v6) = authority.strip_prefix('[') {
        let (h, after) = v6.split_once(']').ok_or(())?;
        let port = after
            .strip_prefix(':')
            .map(str::parse)
            .transpose()
            .map_err(|_| ())?;
        (h.to_string(), port.unwrap_or(port_default))
    } else {
        match authority.rsplit_once(':') {
            Some((h, p)) => (h.to_string(), p.parse().map_err(|_| ())?),
            None => (authority.to_string(), port_default),
        }
    };
    Ok((host, port))
}
