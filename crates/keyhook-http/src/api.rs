//! From a request to a reply: authentication, then permission (of the operation the request
//! names), then routing's answer and validation (the order the API spec fixes), then
//! one `service` call.

use std::net::IpAddr;
use std::sync::Arc;

use tiny_http::Request;

use super::auth_check;
use super::body::{self, Body};
use super::metrics::{AuthFailure, Metrics};
use super::pings::PingSlots;
use super::ratelimit::{Limits, OwnLimits};
use super::reply::{self, Reply};
use super::request_db::RequestDb;
use super::request_input as input;
use super::router::{api_path, auth_path, Match, Route};
use keyhook_core::auth::{self, Access};
use keyhook_core::error::{Error, Result};
use keyhook_core::forward::ProfileTemplate;
use keyhook_core::model::{ApiKey, Webhook};
use keyhook_core::service::audit;
use keyhook_core::service::event_types;
use keyhook_core::service::events;
use keyhook_core::service::keys;
use keyhook_core::service::portal;
use keyhook_core::service::replay;
use keyhook_core::service::webhooks;
use keyhook_core::service::{Actor, Publish};
use keyhook_core::store::ReadAhead;
use keyhook_core::time::{Clock, Timestamp};

/// What the server lends each request. The database connection (`db`) is held until the
/// request is answered, unless a handler gives it back to call the network.
pub struct Ctx<'a> {
    pub db: RequestDb<'a>,
    pub allow_private: bool,
    pub pings: &'a PingSlots,
    pub clock: &'a Clock,
    pub metrics: &'a Metrics,
    /// `--rate-limit`, when given.
    pub limits: Option<&'a Limits>,
    /// The buckets of keys with a rate limit of their own (`rateLimit`).
    pub own_limits: &'a OwnLimits,
    /// The client's address (failed authentications are limited by it): the peer's, or
    /// the forwarded one from a `--trusted-proxy`.
    pub client: Option<IpAddr>,
    /// `--auth-profile`: where the URIs the key check is asked about name a profile.
    pub auth_profiles: &'a [ProfileTemplate],
    /// `--public-url`: where portal links point.
    pub public_url: &'a str,
}

/// Handles one request, `routed`: its path under `/api/v1` and what the router found there
/// (None outside it). Returns the reply and the key that made it, if any (whose prefix the
/// access line shows).
pub fn dispatch(
    ctx: Ctx<'_>,
    rq: &Request,
    body: Body,
    routed: Option<(&str, Match<'_>)>,
) -> (Reply, Option<Arc<ApiKey>>) {
    // The key check's refusals also carry their error object in headers.
    if routed.as_ref().is_some_and(|(p, _)| auth_path(p).is_some()) {
        let (mut r, key) = dispatch_api(ctx, rq, body, routed);
        auth_check::error_headers(&mut r);
        return (r, key);
    }
    dispatch_api(ctx, rq, body, routed)
}

fn dispatch_api(
    mut ctx: Ctx<'_>,
    rq: &Request,
    body: Body,
    routed: Option<(&str, Match<'_>)>,
) -> (Reply, Option<Arc<ApiKey>>) {
    let Some((path, found)) = routed else {
        return (reply::not_found(), None);
    };
    if path == "/openapi.json" {
        let r = match rq.method() {
            tiny_http::Method::Get | tiny_http::Method::Head => super::openapi::reply(),
            _ => reply::method_not_allowed("GET"),
        };
        return (r, None);
    }
    let now = ctx.clock.now();
    // An address refused for its failed authentications gets 429 before its key is looked
    // at: a client guessing keys learns nothing more until its block ends.
    let limited_addr = ctx.limits.zip(ctx.client);
    if let Some(limited) = limited_addr.and_then(|(l, ip)| l.blocked(ip)) {
        ctx.metrics.auth_failure(AuthFailure::RateLimited);
        return (
            reply::rate_limited(limited, "with failed authentications from this address"),
            None,
        );
    }
    // The lists are read with the key where the backend can (one round trip on PostgreSQL).
    let ahead = match found {
        Match::Found(Route::ListKeys) => ReadAhead::KeysOfItsUser,
        Match::Found(Route::ListWebhooks) => ReadAhead::WebhooksOfItsUser,
        _ => ReadAhead::Nothing,
    };
    // The token's shape first: a request without a usable one takes no connection.
    let key = match bearer_token(rq) {
        Err(e) => Err((e, AuthFailure::MissingHeader)),
        Ok(t) => ctx
            .db
            .store()
            .and_then(|store| auth::authenticate_request(store, t, now, ahead))
            .map_err(|e| {
                let why = match e {
                    Error::Expired => AuthFailure::Expired,
                    _ if !auth::is_well_formed(t) => AuthFailure::Malformed,
                    _ => AuthFailure::UnknownKey,
                };
                (e, why)
            }),
    };
    let mut key = match key {
        Ok(k) => k,
        Err((e, why)) => {
            // Only a refused key counts toward the address's limit (a database that does
            // not answer is not the client's failure).
            if matches!(e, Error::Unauthorized(_) | Error::Expired) {
                ctx.metrics.auth_failure(why);
                if let Some(limited) = limited_addr.and_then(|(l, ip)| l.failed_auth(ip)) {
                    return (
                        reply::rate_limited(
                            limited,
                            "with failed authentications from this address",
                        ),
                        None,
                    );
                }
            }
            return (reply::error(&e), None);
        }
    };
    // For the access line, whatever the answer.
    let made_by = Some(Arc::clone(&key));
    // Every authenticated response carries the key's RateLimit-* headers: of its own limit,
    // or else of --rate-limit's. One bucket for a key and the keys rotated from it.
    let checked = match key.rate_limit {
        Some(own) => Some(ctx.own_limits.check_key(key.budget(), own)),
        None => ctx.limits.map(|l| l.check_key(key.budget())),
    };
    let rate = match checked {
        None => None,
        Some(Ok(headers)) => Some(headers),
        Some(Err(limited)) => {
            return (reply::rate_limited(limited, "for this key"), made_by);
        }
    };
    // A request refused for its rate uses none of the key's uses; any other does.
    if let Err(e) = ctx.db.store().and_then(|store| match key.remaining_uses {
        // Copied (from the backend's copy) only for a key that counts its uses.
        Some(_) => auth::spend_use(store, Arc::make_mut(&mut key)),
        None => Ok(()),
    }) {
        let mut r = reply::error(&e);
        r.rate = rate;
        return (r, made_by);
    }
    // The key check: counted, limited and used as above, then the described request decided.
    if let Some(own) = auth_path(path) {
        let mut r = auth_check::answer(rq, own, &key, ctx.auth_profiles);
        r.rate = r.rate.or(rate);
        return (r, made_by);
    }
    let (mut r, made_by) = authenticated(ctx, rq, found, body, key, made_by, now);
    r.rate = r.rate.or(rate);
    (r, made_by)
}

/// The rest of [`dispatch`] for an authenticated key.
fn authenticated(
    ctx: Ctx<'_>,
    rq: &Request,
    found: Match<'_>,
    body: Body,
    key: Arc<ApiKey>,
    made_by: Option<Arc<ApiKey>>,
    now: Timestamp,
) -> (Reply, Option<Arc<ApiKey>>) {
    // Permission before the answer of routing and before the body: the access of
    // the operation the request names, which the operation checks again when it runs; a
    // request that names none (404, 405) asks for what its method asks for.
    if let Some((name, by_method)) = method(rq.method()) {
        let access = match &found {
            Match::Found(route) => route.operation().access(),
            _ => by_method,
        };
        if let Err(e) = auth::may(&key, access, name, None) {
            return (reply::error(&e), made_by);
        }
    }
    let route = match found {
        Match::Found(r) => r,
        Match::MethodNotAllowed(allow) => return (reply::method_not_allowed(allow), made_by),
        Match::NotFound => return (reply::not_found(), made_by),
    };
    // An Idempotency-Key the operation cannot honour is refused, never ignored.
    if let Err(why) = route.operation().idempotency_key() {
        if rq
            .headers()
            .iter()
            .any(|h| h.field.equiv(events::IDEMPOTENCY_FIELD))
        {
            return (
                reply::error(&Error::validation(events::IDEMPOTENCY_FIELD, why)),
                made_by,
            );
        }
    }
    let actor = Actor::Key(key);
    (handle(ctx, &actor, route, rq, body, now), made_by)
}

/// Whether `rq` is answered 401 before its body could matter: under `/api/v1` (not the
/// OpenAPI document) without a well-formed `Authorization: Bearer` header.
pub fn refused_unread(rq: &Request) -> bool {
    api_path(rq.url()).is_some_and(|p| p != "/openapi.json") && bearer_token(rq).is_err()
}

/// A handler either fails with a domain error or replies; a body problem is already a reply.
enum Fail {
    Domain(Error),
    Reply(Reply),
}

impl From<Error> for Fail {
    fn from(e: Error) -> Self {
        Fail::Domain(e)
    }
}

fn handle(
    mut ctx: Ctx<'_>,
    actor: &Actor,
    route: Route<'_>,
    rq: &Request,
    body: Body,
    now: Timestamp,
) -> Reply {
    // A route either decodes its body or takes none, and then a body sent anyway is refused.
    let body = if route.takes_body() {
        body
    } else {
        if let Err(r) = body::none(rq, body) {
            return r;
        }
        Body::Empty
    };
    // A rotation's, a replay's or a portal link's body is optional: none is `{}` (the
    // defaults), as the document says.
    let optional = matches!(
        route,
        Route::RotateWebhookSecret(_) | Route::ReplayWebhook(_) | Route::CreatePortalLink
    );
    let json = || {
        if optional {
            body::optional_json(rq, body)
        } else {
            body::json(rq, body)
        }
        .map_err(Fail::Reply)
    };
    let keys: Vec<&str> = rq
        .headers()
        .iter()
        .filter(|h| h.field.equiv(events::IDEMPOTENCY_FIELD))
        .map(|h| h.value.as_str())
        .collect();
    // The Idempotency-Key of a webhook request that honours one, with its body.
    let keyed = |body: &serde_json::Value| input::idempotent(&keys, body);
    let out: std::result::Result<Reply, Fail> = (|| {
        let store = ctx.db.store()?;
        Ok(match route {
            Route::ListKeys => {
                thread_local!(static LAST: reply::LastList<ApiKey> = const { reply::LastList::new() });
                reply::list_data(200, keys::list(store, actor, false)?, &LAST)
            }
            Route::CreateKey => {
                let input = input::new_key(&json()?, now)?;
                reply::data(
                    201,
                    &keys::create(store, actor, input, now, Publish::AfterCommit)?,
                )
            }
            Route::GetKey(id) => reply::data(200, &keys::get(store, actor, id)?),
            Route::DeleteKey(id) => {
                keys::delete(store, actor, id, now)?;
                reply::no_content()
            }
            Route::ListWebhooks => {
                thread_local!(static LAST: reply::LastList<Webhook> = const { reply::LastList::new() });
                reply::list_data(200, webhooks::list(store, actor)?, &LAST)
            }
            Route::CreateWebhook => {
                let body = json()?;
                let idempotency = keyed(&body)?;
                let input = input::new_webhook(&body, ctx.allow_private)?;
                let input = webhooks::NewWebhook {
                    idempotency,
                    ..input
                };
                let w = webhooks::create(store, actor, input, now, Publish::AfterCommit)?;
                reply::data(201, &w)
            }
            Route::GetWebhook(id) => reply::data(200, &webhooks::get(store, actor, id)?),
            Route::UpdateWebhook(id) => {
                let patch = input::webhook_patch(&json()?, ctx.allow_private)?;
                let w = webhooks::update(store, actor, id, patch, now)?;
                reply::data(200, &w)
            }
            Route::DeleteWebhook(id) => {
                webhooks::delete(store, actor, id, now)?;
                reply::no_content()
            }
            Route::TestWebhook(id) => {
                // A network call: the request's connection goes back to the pool first.
                let _slot = ctx.pings.take(actor.user_id())?;
                let idem = keyed(&serde_json::json!({}))?;
                let (db, sender) = ctx.db.for_network();
                let r = webhooks::test(&db, actor, id, sender, idem.as_ref(), now)?;
                reply::data(200, &r)
            }
            Route::WebhookDeliveries(id) => {
                reply::data(200, &webhooks::attempts(store, actor, id)?)
            }
            Route::EmitEvent => {
                let mut input = input::new_event(&json()?)?;
                input::idempotency_key(&keys, &mut input);
                reply::data(202, &events::emit(store, actor, input, now)?)
            }
            Route::ReplayWebhook(id) => {
                let body = json()?;
                let idempotency = keyed(&body)?;
                let input = input::replay(&body)?;
                let input = replay::ReplayRequest {
                    idempotency,
                    ..input
                };
                let r = replay::replay(store, actor, id, input, now)?;
                reply::data(202, &r)
            }
            Route::ListEventTypes => reply::data(200, &event_types::list(store, actor)?),
            Route::GetEventType(name) => reply::data(200, &event_types::show(store, actor, name)?),
            Route::ListAudit => {
                let q = input::audit_query(rq.url(), now)?;
                reply::data(200, &audit::list(store, actor, q)?)
            }
            Route::CreatePortalLink => {
                let input = input::new_portal_link(&json()?)?;
                let link = portal::mint(
                    store,
                    actor,
                    input,
                    ctx.public_url,
                    now,
                    Publish::AfterCommit,
                )?;
                // The url holds the token: a secret, like a new key (`no-store`).
                reply::data(201, &link)
            }
            Route::RevokePortalLink(id) => {
                portal::revoke(store, actor, Some(id), now)?;
                reply::no_content()
            }
            Route::RotateWebhookSecret(id) => {
                let body = json()?;
                let idempotency = keyed(&body)?;
                let input = input::rotate_secret(&body)?;
                let input = webhooks::RotateSecret {
                    idempotency,
                    ..input
                };
                let publish = Publish::AfterCommit;
                let w = webhooks::rotate_secret(store, actor, id, input, now, publish)?;
                reply::data(200, &w)
            }
        })
    })();
    match out {
        Ok(r) | Err(Fail::Reply(r)) => r,
        Err(Fail::Domain(e)) => reply::error(&e),
    }
}

/// The name of a method of the API and the access a request with it asks for
/// ([`Access::of_method`]).
fn method(m: &tiny_http::Method) -> Option<(&'static str, Access)> {
    Access::of_method(m.as_str())
}

/// The token of `Authorization: Bearer <token>`. Authorization is a singleton: with more
/// than one, which is meant is ambiguous, so none is used.
fn bearer_token(rq: &Request) -> Result<&str> {
    let mut all = rq
        .headers()
        .iter()
        .filter(|h| h.field.equiv("Authorization"));
    let value = all
        .next()
        .map(|h| h.value.as_str())
        .ok_or_else(|| Error::Unauthorized("missing Authorization header".into()))?;
    if all.next().is_some() {
        return Err(Error::Unauthorized(
            "more than one Authorization header".into(),
        ));
    }
    bearer(value)
        .ok_or_else(|| Error::Unauthorized("Authorization must be \"Bearer <API key>\"".into()))
}

/// The token of an `Authorization` value: what follows the scheme and its space, trimmed,
/// when the scheme (what comes before the first space of the trimmed value) is `Bearer` in
/// any case and the token is not empty. The scheme is `Bearer` exactly when the value starts
/// with those six letters and a space: no search for the space.
fn bearer(value: &str) -> Option<&str> {
    let value = value.trim();
    match value.as_bytes().split_at_checked(SCHEME.len()) {
        Some((scheme, _)) if scheme.eq_ignore_ascii_case(SCHEME) => {
            Some(value[SCHEME.len()..].trim()).filter(|t| !t.is_empty())
        }
        _ => None,
    }
}

/// The scheme of an `Authorization` header with its key, and the space after it.
const SCHEME: &[u8] = b"bearer ";

#[cfg(test)]
mod tests {
    use super::*;

    /// What the token of a value was before [`bearer`] stopped searching for the space.
    fn split_at_the_first_space(value: &str) -> Option<&str> {
        let (scheme, token) = value.trim().split_once(' ').unwrap_or((value, ""));
        (scheme.eq_ignore_ascii_case("bearer") && !token.trim().is_empty()).then(|| token.trim())
    }

    /// `bearer` answers as splitting at the first space does, for every value made of the
    /// pieces a hostile or sloppy client sends: the scheme in any case or misspelt, spaces,
    /// tabs and other whitespace around and between, no token, two tokens, non-ASCII.
    #[test]
    fn the_token_is_what_follows_bearer_and_a_space() {
        let pieces = [
            "Bearer", "bearer", "BEARER", "bEaReR", "Bearer:", "Bear", "Bearerx", "Basic", " ",
            "  ", "\t", "\u{b}", "\u{c}", "\r", "\u{a0}", "kp_0123", "a b", "é", "",
        ];
        let mut checked = 0;
        for a in pieces {
            for b in pieces {
                for c in pieces {
                    for d in ["", " ", "\t", "kp_x", " kp_y "] {
                        let value = format!("{a}{b}{c}{d}");
                        assert_eq!(
                            bearer(&value),
                            split_at_the_first_space(&value),
                            "{value:?}"
                        );
                        checked += 1;
                    }
                }
            }
        }
        assert_eq!(checked, 19 * 19 * 19 * 5);
        assert_eq!(bearer("Bearer kp_abc"), Some("kp_abc"));
        assert_eq!(bearer("  bearer   kp_abc \t"), Some("kp_abc"));
        assert_eq!(bearer("Bearer\tkp_abc"), None);
        assert_eq!(bearer("Bearer "), None);
        assert_eq!(bearer("Basic kp_abc"), None);
    }
}
