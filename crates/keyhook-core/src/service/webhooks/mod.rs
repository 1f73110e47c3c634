//! Webhook subscriptions: create (at most ten per user, enforced under the write lock), list,
//! show, update, delete, the test ping and the attempt log.
mod attempts;
pub mod flow;
mod headers;
mod secret;
mod target;

pub use attempts::{
    attempts, count_attempt, disabled_reason, failures_reason, log_attempt, log_attempt_disabling,
    log_attempt_in, record_attempt, test, AttemptLog, AttemptOf, FAILURES_REASON, GONE_REASON,
};
pub use headers::{check_name as check_header_name, HeaderPatch, StaticHeaders};
pub use secret::{
    drop_expired_secrets, rotate_secret, Grace, RotateSecret, DEFAULT_GRACE_SECONDS,
    MAX_GRACE_SECONDS,
};
/// The bounds of static headers (the OpenAPI document states them).
pub mod headers_limits {
    pub use super::headers::{
        MAX_HEADERS, MAX_NAME_LEN, MAX_VALUE_LEN, NAME_PATTERN, VALUE_PATTERN,
    };
}
pub use target::{url_pattern, WebhookUrl};

use super::audit::{self, Action, Entry};
use super::event_types;
use super::events::EventName;
use super::filter::Filter;
use super::idempotency::{self, Idempotent, Keyed};
use super::input::{check_unique_non_empty, ListProblems, Problems};
use super::keys::{check_scope, ProfileIds};
use super::operational;
use super::{Actor, Operation, Publish};
use crate::auth::Scope;
use crate::error::{Error, Result};
use crate::model::{DeliveryControl, SigningMode, Webhook};
use crate::rate::RateLimit;
use crate::sign;
use crate::store::{Conn, Listed, Store};
use crate::time::Timestamp;

pub const MAX_WEBHOOKS_PER_USER: i64 = 10;
/// Consecutive failed attempts after which a webhook is disabled.
pub const DISABLE_AFTER_FAILURES: i64 = 10;
pub const MAX_URL_LEN: usize = 2048;
/// How many attempts `deliveries` shows, newest first.
pub const ATTEMPT_LOG_LIMIT: i64 = 100;

/// A new subscription, in typed values.
#[derive(Debug, Default, Clone)]
pub struct NewWebhook {
    /// Required.
    pub url: Option<WebhookUrl>,
    /// Required.
    pub events: Option<WebhookEvents>,
    /// With `profile_ids`, the scope, validated as a key's (`keys::check_scope`); when
    /// neither is given, the acting key's own scope (full access for the operator).
    pub full_access: Option<bool>,
    pub profile_ids: Option<ProfileIds>,
    /// Only events this CEL filter admits are queued (`service::filter`); `None`: all.
    pub filter: Option<Filter>,
    /// Its own retry schedule and timeout (`flow`); `None`: serve's.
    pub retry_schedule: Option<flow::RetrySchedule>,
    pub timeout: Option<flow::Timeout>,
    /// At most this many attempts per period (`--rate`); `None`: no limit.
    pub rate: Option<RateLimit>,
    /// One delivery at a time, in the order they were queued (`--ordered`); `None`: not.
    pub ordered: Option<bool>,
    /// Made by `keyhook listen` (`service::listen`): delivered only by that process, never
    /// by `serve` or `deliver`, and deleted when it stops. Never set over HTTP.
    pub ephemeral: bool,
    /// How deliveries are signed; `None`: `hmac`.
    pub signing: Option<SigningMode>,
    /// Static headers sent with each delivery.
    pub headers: Option<StaticHeaders>,
    /// The request's `Idempotency-Key` with its body (`service::idempotency`): a repeat within
    /// 24 hours acts not again and answers as the first did. `None` on the command line.
    pub idempotency: Option<Idempotent>,
    /// What the front end refused converting the request, named as the request names it; a
    /// refused value is `None` above.
    pub problems: Problems,
}

/// A change to a subscription (`PATCH /webhooks/{id}`); absent fields stay as they are.
#[derive(Debug, Default, Clone)]
pub struct WebhookPatch {
    pub url: Option<WebhookUrl>,
    pub events: Option<WebhookEvents>,
    /// The scope, replaced as a whole when either is given (as in [`NewWebhook`]; absent
    /// `fullAccess` is `true`), kept when neither is.
    pub full_access: Option<bool>,
    pub profile_ids: Option<ProfileIds>,
    pub is_active: Option<bool>,
    /// `Some(None)` removes the filter; `None` keeps it.
    pub filter: Option<Option<Filter>>,
    /// `Some(None)` goes back to serve's schedule / timeout; `None` keeps the webhook's.
    pub retry_schedule: Option<Option<flow::RetrySchedule>>,
    pub timeout: Option<Option<flow::Timeout>>,
    pub rate: Option<Option<RateLimit>>,
    /// `Some(None)` (JSON `null`) clears it, as `Some(Some(false))` does.
    pub ordered: Option<Option<bool>>,
    /// `Some(None)` sets the default, `hmac`.
    pub signing: Option<Option<SigningMode>>,
    pub headers: Option<HeaderPatch>,
    /// As in [`NewWebhook`].
    pub problems: Problems,
}

/// The fields of [`NewWebhook`] and [`WebhookPatch`] as the API names them, in the order
/// problems are reported.
const WEBHOOK_FIELDS: &[&str] = &[
    "url",
    "events",
    "fullAccess",
    "profileIds",
    "filter",
    "isActive",
    "retrySchedule",
    "timeoutMs",
    "rate",
    "ordered",
    "signing",
    "headers",
    "body",
];

/// The scope a create or a change asks for, checked as a key's scope is
/// (`keys::check_scope`): `None` when it names neither `fullAccess` nor `profileIds`, or
/// when what it names was refused (then `p` says why).
fn asked_scope(
    p: &mut Problems,
    full_access: Option<bool>,
    profile_ids: Option<ProfileIds>,
) -> Option<(bool, Vec<String>)> {
    let named = full_access.is_some()
        || profile_ids.is_some()
        || p.mentions("fullAccess")
        || p.mentions("profileIds");
    if named {
        check_scope("webhook", p, full_access, profile_ids)
    } else {
        None
    }
}

/// A key gives webhooks only scopes within its own ([`Actor::check_scope_within`]).
const GIVING: super::Giving = super::Giving {
    full_access: "a key limited to profiles cannot give a webhook full access",
    fix: "must be false, with profileIds within those of this key",
};

/// The events a webhook subscribes to: at least one, no duplicates, each a name
/// ([`EventName`]); that the catalog holds each is checked in the transaction that stores
/// them (`event_types::check_subscribed`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookEvents(Vec<String>);

impl WebhookEvents {
    pub fn new(events: Vec<String>) -> std::result::Result<WebhookEvents, ListProblems> {
        let mut p = ListProblems::default();
        if events.is_empty() {
            p.add(None, "must name at least one event");
            return Err(p);
        }
        check_unique_non_empty(&mut p, &events);
        for (i, e) in events.iter().enumerate() {
            if !p.has(Some(i)) {
                if let Err(m) = EventName::new(e) {
                    p.add(Some(i), m);
                }
            }
        }
        p.into_result().map(|()| WebhookEvents(events))
    }

    pub fn as_slice(&self) -> &[String] {
        &self.0
    }
}

/// A webhook's filter against the JSON Schemas of the events it subscribes to
/// (`Filter::check_schemas`), when the filter or the events are written: a field of `data`
/// that no subscribed type's schema declares (with "did you mean"), or a string field
/// compared with a number, is refused (400 on `filter`). Only when every subscribed type has
/// a schema: a type without one may carry any data, so nothing can be said of a field.
fn check_filter_schemas(c: Conn<'_>, filter: &Filter, events: &[String]) -> Result<()> {
    let mut schemas = Vec::new();
    for e in events {
        match c.event_type(e)?.and_then(|t| t.schema) {
            Some(s) => schemas.push((e.as_str(), s)),
            None => return Ok(()),
        }
    }
    let refs: Vec<(&str, &serde_json::Value)> = schemas.iter().map(|(n, s)| (*n, s)).collect();
    filter
        .check_schemas(&refs)
        .map_err(|m| Error::validation("filter", format!("does not fit the events' schemas: {m}")))
}

/// Creates a webhook and returns it with its secret: after the commit, or before it through
/// `publish` ([`Publish`]).
pub fn create(
    store: &Store,
    actor: &Actor,
    input: NewWebhook,
    now: Timestamp,
    publish: Publish<'_, Webhook>,
) -> Result<Webhook> {
    actor.may(Operation::CreateWebhook, None)?;
    let mut p = input.problems;
    let url = p.require("url", input.url);
    let events = p.require("events", input.events);
    if let Some(e) = &events {
        // Reported with the request's other problems; asked again in the transaction.
        for d in event_types::subscription_problems(store.conn(), e.as_slice(), &[])? {
            p.add(d.field, d.message);
        }
    }
    let scope = asked_scope(&mut p, input.full_access, input.profile_ids);
    p.into_result(WEBHOOK_FIELDS)?;
    let (Some(url), Some(events)) = (url, events) else {
        unreachable!("a missing value is a problem")
    };
    // A scoped key that names no scope gives the webhook its own.
    let (full_access, profile_ids) = scope.unwrap_or_else(|| match actor {
        Actor::Key(k) | Actor::Portal { key: k, .. } => (k.full_access, k.profile_ids.clone()),
        Actor::Operator { .. } => (true, Vec::new()),
    });
    actor.check_scope_within(
        Scope {
            full_access,
            profile_ids: &profile_ids,
        },
        &GIVING,
    )?;
    let user = actor.user_id().to_string();
    let webhook = Webhook {
        id: uuid::Uuid::new_v4().to_string(),
        user_id: user.clone(),
        url: url.0,
        events: events.0,
        full_access,
        profile_ids,
        filter: input.filter.as_ref().map(|f| f.as_str().to_string()),
        secret: sign::generate_secret(),
        signing: SigningMode::Hmac,
        public_key: None,
        header_names: Vec::new(),
        is_active: true,
        fail_count: 0,
        created_at: now,
        updated_at: now,
        ephemeral: input.ephemeral,
        control: DeliveryControl {
            retry_schedule: input.retry_schedule.map(|s| s.0),
            timeout_ms: input.timeout.map(|t| t.0),
            rate: input.rate,
            ordered: input.ordered.unwrap_or(false),
        },
        private: Default::default(),
    };
    let mut webhook = webhook;
    set_signing(&mut webhook, input.signing.unwrap_or_default());
    if let Some(h) = input.headers {
        set_headers(&mut webhook, h.into_pairs());
    }
    // BEGIN IMMEDIATE: the count and the insert see no other writer, so N processes
    // creating at once never make an eleventh. Every webhook of the user counts, those the
    // acting key cannot see too; the refusal says nothing about them.
    // A repeat answers the webhook the first request created, as it is now, if the actor
    // sees it (else 404).
    let idem = input.idempotency.as_ref();
    store.write(|c| {
        let op = Operation::CreateWebhook;
        let first = |c: Conn<'_>, r: &str| first_webhook(c, actor, r);
        let taken = match idempotency::begin(c, actor, op, "", idem, now, first)? {
            Keyed::Act(taken) => taken,
            Keyed::Answered(w) => return Ok(w),
        };
        event_types::check_subscribed(c, &webhook.events, &[])?;
        if let Some(f) = &input.filter {
            check_filter_schemas(c, f, &webhook.events)?;
        }
        if c.count_webhooks(&user)? >= MAX_WEBHOOKS_PER_USER {
            return Err(Error::LimitReached(format!(
                "webhook limit reached: a user may have at most {MAX_WEBHOOKS_PER_USER} webhooks"
            )));
        }
        c.insert_webhook(&webhook)?;
        let details = audit::webhook_details(&webhook);
        audit::record(
            c,
            now,
            &Entry::by(actor, Action::WebhookCreated, &webhook.id, details).about(webhook.scope()),
        )?;
        if let Some(taken) = &taken {
            idempotency::answer(c, taken, &idempotency::webhook_ref(&webhook.id))?;
        }
        publish.before_commit(c, &webhook)?;
        Ok(webhook)
    })
}

/// Signs `w` with `mode`, giving it an Ed25519 key pair if it needs one and has none (a
/// webhook switched back to `hmac` keeps its pair, so its public key stays the same).
fn set_signing(w: &mut Webhook, mode: SigningMode) {
    w.signing = mode;
    if mode.ed25519() && w.private.signing_key.is_none() {
        let (private, public) = sign::generate_signing_key();
        w.private.signing_key = Some(private);
        w.public_key = Some(public);
    }
}

fn set_headers(w: &mut Webhook, headers: Vec<(String, String)>) {
    w.header_names = headers.iter().map(|(n, _)| n.clone()).collect();
    w.private.headers = headers;
}

/// The actor's user's webhooks that the actor sees ([`Actor::sees`]).
pub fn list(store: &Store, actor: &Actor) -> Result<Listed<Webhook>> {
    actor.may(Operation::ListWebhooks, None)?;
    let list = store.conn().listed_webhooks(actor.user_id())?;
    if list.iter().all(|w| actor.sees(w.scope())) {
        return Ok(list);
    }
    Ok(Listed::new(
        list.iter()
            .filter(|w| actor.sees(w.scope()))
            .cloned()
            .collect(),
    ))
}

/// The shortest id prefix that names a webhook: 4 of the 32 hex digits of a UUID, as short as
/// git's short ids. A user has at most ten webhooks, so 4 digits almost always name one, while
/// a character or two typed by mistake (or an id like `1` in a script) never silently picks a
/// webhook: they name none, as before, unless they match several.
pub const MIN_ID_PREFIX: usize = 4;
/// The length of a webhook id (a hyphenated UUID), so of the longest prefix looked up.
pub const ID_LEN: usize = 36;

/// The webhook a create or a rotation answered (`response`, made by
/// [`idempotency::webhook_ref`]), as it is now, if the actor sees it: 404 alike when it was
/// deleted since and when the actor's scope does not reach it, so a repeat never shows a
/// webhook the actor could not see.
fn first_webhook(c: Conn<'_>, actor: &Actor, response: &str) -> Result<Webhook> {
    let id = idempotency::webhook_of(response)?;
    find(c, actor, &id).map_err(|e| match e {
        Error::NotFound(_) => Error::NotFound(
            "the webhook of the first request with this Idempotency-Key is not found".into(),
        ),
        e => e,
    })
}

/// The actor's webhook whose id is `id`, or whose id starts with `id` (at least
/// [`MIN_ID_PREFIX`] characters, case-insensitive) when exactly one does. A prefix of any
/// length that matches several is refused (validation error listing them); another user's
/// webhooks are never matched, nor are those of its user that the actor does not see
/// ([`Actor::sees`]: a key sees only webhooks within its scope): they are not found, exactly
/// as an unknown id. The CLI and the HTTP `{id}` path parameter both come through here, so
/// every operation on one webhook obeys it.
pub(super) fn find(conn: Conn<'_>, actor: &Actor, id: &str) -> Result<Webhook> {
    if let Some(w) = conn.webhook(actor.user_id(), id)? {
        if actor.sees(w.scope()) {
            return Ok(w);
        }
    }
    let not_found =
        |hint: &str| Error::NotFound(format!("no webhook with id or id prefix {id:?}{hint}"));
    // Only what can begin a UUID is looked up as a prefix.
    let prefix = id.to_ascii_lowercase();
    if prefix.is_empty()
        || prefix.len() > ID_LEN
        || !prefix.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-')
    {
        return Err(not_found(""));
    }
    // Ten at most per user; a few more are fetched only to say how many match.
    let mut found = conn.webhooks_by_id_prefix(actor.user_id(), &prefix, 20)?;
    found.retain(|w| actor.sees(w.scope()));
    match found.len() {
        0 => Err(not_found("")),
        1 if prefix.len() >= MIN_ID_PREFIX => Ok(found.remove(0)),
        1 => Err(not_found(&format!(
            " (a prefix needs at least {MIN_ID_PREFIX} characters)"
        ))),
        n => {
            let ids: Vec<&str> = found.iter().map(|w| w.id.as_str()).collect();
            Err(Error::validation(
                "id",
                format!(
                    "id prefix {id:?} matches {n} webhooks: {}; give more characters",
                    ids.join(", ")
                ),
            ))
        }
    }
}

pub fn get(store: &Store, actor: &Actor, id: &str) -> Result<Webhook> {
    actor.may(Operation::ShowWebhook, None)?;
    find(store.conn(), actor, id)
}

/// Applies `patch`. Re-enabling (`isActive: true`) also resets `failCount`.
pub fn update(
    store: &Store,
    actor: &Actor,
    id: &str,
    patch: WebhookPatch,
    now: Timestamp,
) -> Result<Webhook> {
    actor.may(Operation::UpdateWebhook, None)?;
    let mut p = patch.problems;
    // A field that was sent but refused (`"isActive": "yes"`) was named: its own detail says
    // what is wrong, without a second one saying that nothing was named.
    let named = [
        "url",
        "events",
        "fullAccess",
        "profileIds",
        "isActive",
        "filter",
        "retrySchedule",
        "timeoutMs",
        "rate",
        "ordered",
        "signing",
        "headers",
    ]
    .iter()
    .any(|f| p.mentions(f));
    let empty = patch.url.is_none()
        && patch.events.is_none()
        && patch.full_access.is_none()
        && patch.profile_ids.is_none()
        && patch.is_active.is_none()
        && patch.filter.is_none()
        && patch.retry_schedule.is_none()
        && patch.timeout.is_none()
        && patch.rate.is_none()
        && patch.ordered.is_none()
        && patch.signing.is_none()
        && patch.headers.is_none();
    if empty && !named && !p.has("body") {
        p.add(
            "body",
            "name at least one of url, events, fullAccess, profileIds, isActive, filter, \
             retrySchedule, timeoutMs, rate, ordered, signing, headers",
        );
    }
    let scope = asked_scope(&mut p, patch.full_access, patch.profile_ids);
    p.into_result(WEBHOOK_FIELDS)?;
    if let Some((full_access, ids)) = &scope {
        actor.check_scope_within(
            Scope {
                full_access: *full_access,
                profile_ids: ids,
            },
            &GIVING,
        )?;
    }
    let recheck = patch.events.is_some() || patch.filter.is_some();
    store.write(|c| {
        let mut w = find(c, actor, id)?;
        let before = w.clone();
        // The listener sends to private addresses for its own URL only: a URL set from
        // elsewhere (a key over HTTP) would be sent from the operator's machine unguarded.
        if w.ephemeral && patch.url.as_ref().is_some_and(|u| u.0 != w.url) {
            return Err(Error::validation(
                "url",
                "an ephemeral webhook's URL is its listener's; start keyhook listen again                  with another --forward-to",
            ));
        }
        if let Some(u) = patch.url {
            w.url = u.0;
        }
        if let Some(e) = patch.events {
            event_types::check_subscribed(c, &e.0, &before.events)?;
            w.events = e.0;
        }
        if let Some((full_access, ids)) = scope {
            w.full_access = full_access;
            w.profile_ids = ids;
        }
        if let Some(active) = patch.is_active {
            if active {
                w.fail_count = 0;
            }
            w.is_active = active;
        }
        if let Some(filter) = patch.filter {
            w.filter = filter.map(|f| f.as_str().to_string());
        }
        if let Some(s) = patch.retry_schedule {
            w.control.retry_schedule = s.map(|s| s.0);
        }
        if let Some(t) = patch.timeout {
            w.control.timeout_ms = t.map(|t| t.0);
        }
        if let Some(r) = patch.rate {
            w.control.rate = r;
        }
        if let Some(o) = patch.ordered {
            w.control.ordered = o.unwrap_or(false);
        }
        if let Some(mode) = patch.signing {
            set_signing(&mut w, mode.unwrap_or_default());
        }
        if let Some(h) = patch.headers.clone() {
            let headers = h
                .apply(&w.private.headers)
                .map_err(|m| Error::validation("headers", m))?;
            set_headers(&mut w, headers);
        }
        if let (true, Some(source)) = (recheck, &w.filter) {
            // A stored filter that no longer compiles is kept as it is (nothing an upgrade
            // refuses is deleted); one that compiles must fit the events it will now see.
            if let Ok(f) = super::filter::compiled(source) {
                check_filter_schemas(c, &f, &w.events)?;
            }
        }
        // A patch that sets what is already set changes nothing: no write, no new
        // `updatedAt`, no audit entry (an audit log records changes).
        if w == before {
            return Ok(w);
        }
        w.updated_at = now;
        c.update_webhook(&w)?;
        if before.control.rate != w.control.rate {
            // A new rate starts with a full bucket of its own.
            c.reset_rate_bucket(&w.id)?;
        }
        if before.control.ordered && !w.control.ordered {
            // No longer ordered: what waited for its turn is due now, as any delivery.
            c.unpark_queue(&w.id, now)?;
        }
        // A change of scope is shown to the keys that saw the webhook before and after it.
        let (full_access, ids) = audit::union(before.scope(), w.scope());
        let about = Scope {
            full_access,
            profile_ids: &ids,
        };
        for (action, details) in update_entries(&before, &w) {
            let entry = Entry::by(actor, action, &w.id, details).about(about);
            audit::record(c, now, &entry)?;
        }
        if before.is_active && !w.is_active {
            let reason = operational::MANUAL_REASON;
            operational::webhook_disabled(c, &w, reason, now)?;
        }
        Ok(w)
    })
}

/// The audit entries of a change from `before` to `after` (which differ): `webhook.updated`
/// when the URL or the events changed (with what they became), `webhook.enabled` /
/// `webhook.disabled` when `isActive` changed; one entry per kind of change. `isActive: true`
/// on an active webhook whose `failCount` was not 0 resets it: `webhook.updated` with
/// `failCount: 0`.
fn update_entries(before: &Webhook, after: &Webhook) -> Vec<(Action, serde_json::Value)> {
    let mut out = Vec::new();
    let mut changed = serde_json::Map::new();
    if before.url != after.url {
        changed.insert("url".into(), audit::webhook_details(after)["url"].clone());
    }
    if before.events != after.events {
        changed.insert("events".into(), after.events.clone().into());
    }
    if before.scope() != after.scope() {
        changed.insert("fullAccess".into(), after.full_access.into());
        changed.insert("profileIds".into(), after.profile_ids.clone().into());
    }
    if before.filter != after.filter {
        changed.insert("filter".into(), after.filter.clone().into());
    }
    if before.control.retry_schedule != after.control.retry_schedule {
        let s = after.control.retry_schedule.clone();
        changed.insert("retrySchedule".into(), s.into());
    }
    if before.control.timeout_ms != after.control.timeout_ms {
        changed.insert("timeoutMs".into(), after.control.timeout_ms.into());
    }
    if before.control.rate != after.control.rate {
        let rate = after.control.rate.map(|r| r.to_string());
        changed.insert("rate".into(), rate.into());
    }
    if before.control.ordered != after.control.ordered {
        changed.insert("ordered".into(), after.control.ordered.into());
    }
    if before.signing != after.signing {
        changed.insert("signing".into(), after.signing.as_str().into());
    }
    if before.public_key != after.public_key {
        changed.insert("publicKey".into(), after.public_key.clone().into());
    }
    // Names only: a value is never audited. A value changed under the same names is a
    // change all the same.
    if before.private.headers != after.private.headers {
        changed.insert("headerNames".into(), after.header_names.clone().into());
    }
    if before.is_active == after.is_active && before.fail_count != after.fail_count {
        changed.insert("failCount".into(), after.fail_count.into());
    }
    if !changed.is_empty() {
        out.push((Action::WebhookUpdated, changed.into()));
    }
    if before.is_active != after.is_active {
        let action = if after.is_active {
            Action::WebhookEnabled
        } else {
            Action::WebhookDisabled
        };
        out.push((
            action,
            serde_json::json!({ "failCount": before.fail_count }),
        ));
    }
    if out.is_empty() && before != after {
        // A change no entry above names (a field added since): recorded all the same.
        out.push((Action::WebhookUpdated, serde_json::json!({})));
    }
    out
}

pub fn delete(store: &Store, actor: &Actor, id: &str, now: Timestamp) -> Result<Webhook> {
    actor.may(Operation::DeleteWebhook, None)?;
    store.write(|c| {
        let w = find(c, actor, id)?;
        c.delete_webhook(&w.id)?;
        let details = audit::webhook_details(&w);
        audit::record(
            c,
            now,
            &Entry::by(actor, Action::WebhookDeleted, &w.id, details).about(w.scope()),
        )?;
        Ok(w)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::events::{self, TEST_EVENT};

    #[test]
    fn subscriptions_name_well_formed_events_once_each() {
        let list = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let all = events::CATALOG.to_vec();
        let ok = WebhookEvents::new(list(&all)).unwrap();
        assert_eq!(ok.as_slice(), all);
        assert_eq!(
            WebhookEvents::new(vec![]).unwrap_err().0,
            [(None, "must name at least one event".to_string())]
        );
        let got = WebhookEvents::new(list(&["Nope", "Nope", "", "post.published", TEST_EVENT]))
            .unwrap_err()
            .0;
        let at: Vec<Option<usize>> = got.iter().map(|(i, _)| *i).collect();
        // Emptiness and repeats first, then each name's shape (the catalog is asked later).
        assert_eq!(at, [Some(1), Some(2), Some(0), Some(4)]);
        assert_eq!(got[0].1, "duplicate value \"Nope\"");
        assert_eq!(got[1].1, "must not be empty");
        assert!(got[2].1.starts_with("\"Nope\": must be lowercase words"));
        assert!(got[3]
            .1
            .starts_with("webhook.test is sent only by the test endpoint"));
    }
}
