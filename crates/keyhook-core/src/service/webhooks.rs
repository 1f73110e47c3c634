//! Webhook subscriptions: create (at most ten per user, enforced under the write lock), list,
//! show, update, delete, the test ping and the attempt log.

use super::audit::{self, Action, Entry, Via};
use super::events::{self, EventName, TEST_EVENT};
use super::idempotency::{self, Idempotent, Keyed, Turn};
use super::input::{check_unique_non_empty, ListProblems, Problems};
use super::keys::{check_scope, ProfileIds};
use super::{Actor, Database, Operation};
use crate::auth::{self, Excess, Scope};
use crate::error::{Error, FieldError, Result};
use crate::model::{DeliveryAttempt, TestResult, Webhook};
use crate::store::{AttemptRecord, Conn, FailCounter, Signing, Store, GONE_REASON};
use crate::time::Timestamp;
use crate::transport::{Attempt, Transport};
use crate::{guard, sign};

pub const MAX_WEBHOOKS_PER_USER: i64 = 10;
/// Consecutive failed attempts after which a webhook is disabled.
pub const DISABLE_AFTER_FAILURES: i64 = 10;
pub const MAX_URL_LEN: usize = 2048;
/// How many attempts `deliveries` shows, newest first.
pub const ATTEMPT_LOG_LIMIT: i64 = 100;

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
    "isActive",
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

/// A key gives webhooks only scopes within its own (`auth::no_broader_scope`, the rule keys
/// obey towards keys): else 403, naming `fullAccess` or `profileIds`. The operator may give
/// any scope.
fn check_scope_within(actor: &Actor, scope: Scope<'_>) -> Result<()> {
    let Actor::Key(key) = actor else {
        return Ok(());
    };
    match auth::no_broader_scope(scope, key.scope()) {
        Ok(()) => Ok(()),
        Err(Excess::Profile(p)) => Err(Error::ForbiddenFields {
            message: format!("key is not scoped to profile {p}"),
            details: vec![FieldError::new(
                "profileIds",
                format!("{p} is outside the profiles of this key"),
            )],
        }),
        Err(_) => Err(Error::ForbiddenFields {
            message: "a key limited to profiles cannot give a webhook full access".into(),
            details: vec![FieldError::new(
                "fullAccess",
                "must be false, with profileIds within those of this key",
            )],
        }),
    }
}

/// Where deliveries go: an absolute http(s) URL with a host, without credentials or
/// fragment, at most [`MAX_URL_LEN`] characters, written as an RFC 3986 URI (ASCII; anything
/// else percent-encoded), and (unless private targets are allowed) not an IP literal of a
/// private, loopback or link-local network (`delivery::guard`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookUrl(String);

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

/// The events a webhook subscribes to: at least one, no duplicates, each from the catalog
/// ([`EventName`]).
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

pub fn create(store: &Store, actor: &Actor, input: NewWebhook, now: Timestamp) -> Result<Webhook> {
    create_then(store, actor, input, None, now, None::<Publish>)
}

/// [`create`] with an `Idempotency-Key` (`service::idempotency`): a repeat of the same
/// request within 24 hours creates nothing and answers the webhook the first one created,
/// as it is now, if the actor sees it (else 404).
pub fn create_keyed(
    store: &Store,
    actor: &Actor,
    input: NewWebhook,
    idem: Option<&Idempotent>,
    now: Timestamp,
) -> Result<Webhook> {
    create_then(store, actor, input, idem, now, None::<Publish>)
}

/// [`create`], handing the new webhook (with its secret) to `publish` inside the transaction
/// that checks the limit and inserts it, before the commit, which is first made as sure as the
/// store can (`Conn::stage`). If `publish` fails, nothing is stored: the CLI writes and
/// flushes its output (the only copy the operator is handed of the secret) there, so a webhook
/// whose secret could not be delivered never exists (as `keys::create_publishing`).
pub fn create_publishing(
    store: &Store,
    actor: &Actor,
    input: NewWebhook,
    now: Timestamp,
    publish: impl FnOnce(&Webhook) -> Result<()>,
) -> Result<Webhook> {
    create_then(store, actor, input, None, now, Some(publish))
}

/// What a front end does with a new webhook inside its transaction; see [`create_publishing`].
type Publish = fn(&Webhook) -> Result<()>;

fn create_then(
    store: &Store,
    actor: &Actor,
    input: NewWebhook,
    idem: Option<&Idempotent>,
    now: Timestamp,
    publish: Option<impl FnOnce(&Webhook) -> Result<()>>,
) -> Result<Webhook> {
    actor.may(Operation::CreateWebhook, None)?;
    let mut p = input.problems;
    let url = p.require("url", input.url);
    let events = p.require("events", input.events);
    let scope = asked_scope(&mut p, input.full_access, input.profile_ids);
    p.into_result(WEBHOOK_FIELDS)?;
    let (Some(url), Some(events)) = (url, events) else {
        unreachable!("a missing value is a problem")
    };
    // A scoped key that names no scope gives the webhook its own.
    let (full_access, profile_ids) = scope.unwrap_or_else(|| match actor {
        Actor::Key(k) => (k.full_access, k.profile_ids.clone()),
        Actor::Operator { .. } => (true, Vec::new()),
    });
    check_scope_within(
        actor,
        Scope {
            full_access,
            profile_ids: &profile_ids,
        },
    )?;
    let user = actor.user_id().to_string();
    let webhook = Webhook {
        id: uuid::Uuid::new_v4().to_string(),
        user_id: user.clone(),
        url: url.0,
        events: events.0,
        full_access,
        profile_ids,
        secret: sign::generate_secret(),
        is_active: true,
        fail_count: 0,
        created_at: now,
        updated_at: now,
    };
    // BEGIN IMMEDIATE: the count and the insert see no other writer, so N processes
    // creating at once never make an eleventh. Every webhook of the user counts, those the
    // acting key cannot see too; the refusal says nothing about them.
    store.write(|c| {
        let op = Operation::CreateWebhook;
        let first = |c: Conn<'_>, r: &str| idempotency::first_webhook(c, actor, r);
        let taken = match idempotency::begin(c, actor, op, "", idem, now, first)? {
            Keyed::Act(taken) => taken,
            Keyed::Answered(w) => return Ok(w),
        };
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
        if let Some(publish) = publish {
            c.stage()?;
            publish(&webhook)?;
        }
        Ok(webhook)
    })
}

/// The actor's user's webhooks that the actor sees ([`Actor::sees`]).
pub fn list(store: &Store, actor: &Actor) -> Result<Vec<Webhook>> {
    actor.may(Operation::ListWebhooks, None)?;
    let mut list = store.conn().list_webhooks(actor.user_id())?;
    list.retain(|w| actor.sees(w.scope()));
    Ok(list)
}

/// The shortest id prefix that names a webhook: 4 of the 32 hex digits of a UUID, as short as
/// git's short ids. A user has at most ten webhooks, so 4 digits almost always name one, while
/// a character or two typed by mistake (or an id like `1` in a script) never silently picks a
/// webhook: they name none, as before, unless they match several.
pub const MIN_ID_PREFIX: usize = 4;
/// The length of a webhook id (a hyphenated UUID), so of the longest prefix looked up.
pub const ID_LEN: usize = 36;

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
    let named = ["url", "events", "fullAccess", "profileIds", "isActive"]
        .iter()
        .any(|f| p.mentions(f));
    let empty = patch.url.is_none()
        && patch.events.is_none()
        && patch.full_access.is_none()
        && patch.profile_ids.is_none()
        && patch.is_active.is_none();
    if empty && !named && !p.has("body") {
        p.add(
            "body",
            "name at least one of url, events, fullAccess, profileIds, isActive",
        );
    }
    let scope = asked_scope(&mut p, patch.full_access, patch.profile_ids);
    p.into_result(WEBHOOK_FIELDS)?;
    if let Some((full_access, ids)) = &scope {
        check_scope_within(
            actor,
            Scope {
                full_access: *full_access,
                profile_ids: ids,
            },
        )?;
    }
    store.write(|c| {
        let mut w = find(c, actor, id)?;
        let before = w.clone();
        if let Some(u) = patch.url {
            w.url = u.0;
        }
        if let Some(e) = patch.events {
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
        // A patch that sets what is already set changes nothing: no write, no new
        // `updatedAt`, no audit entry (an audit log records changes).
        if w == before {
            return Ok(w);
        }
        w.updated_at = now;
        c.update_webhook(&w)?;
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

/// The longest grace period of a secret rotation: 7 days, in seconds.
pub const MAX_GRACE_SECONDS: i64 = 604_800;
/// The grace period of a rotation that names none: 24 hours, in seconds.
pub const DEFAULT_GRACE_SECONDS: i64 = 86_400;

/// How long a rotated-out secret keeps signing deliveries: whole seconds from 0 to
/// [`MAX_GRACE_SECONDS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Grace(i64);

impl Grace {
    pub fn new(seconds: i64) -> std::result::Result<Grace, String> {
        if (0..=MAX_GRACE_SECONDS).contains(&seconds) {
            Ok(Grace(seconds))
        } else {
            Err(format!(
                "must be a whole number of seconds from 0 to {MAX_GRACE_SECONDS} (7 days)"
            ))
        }
    }

    /// A duration in milliseconds (the CLI's `--grace`), which must be whole seconds.
    pub fn from_millis(ms: i64) -> std::result::Result<Grace, String> {
        if ms % 1000 != 0 {
            return Err("must be whole seconds".into());
        }
        Grace::new(ms / 1000)
    }

    pub fn seconds(self) -> i64 {
        self.0
    }

    /// When a grace period starting at `now` ends.
    pub fn until(self, now: Timestamp) -> Timestamp {
        now.add_millis(self.0 * 1000)
    }
}

impl Default for Grace {
    fn default() -> Self {
        Grace(DEFAULT_GRACE_SECONDS)
    }
}

/// A secret rotation (`POST /webhooks/{id}/rotate-secret`).
#[derive(Debug, Default, Clone)]
pub struct RotateSecret {
    /// [`Grace::default`] when `None`.
    pub grace: Option<Grace>,
    /// As in [`NewWebhook`].
    pub problems: Problems,
}

/// Gives the webhook a new secret (generated as at creation). The secret it replaces keeps
/// signing deliveries and test pings, after the new one, until the grace period ends; then it
/// is deleted (the worker's [`drop_expired_secrets`], and never used after its end whatever
/// the worker does). A grace of 0 deletes it at once. Only the newest previous secret is kept,
/// as Svix does: rotating again during a grace period drops the older one at once, and the
/// secret replaced now gets the new grace period.
pub fn rotate_secret(
    store: &Store,
    actor: &Actor,
    id: &str,
    input: RotateSecret,
    now: Timestamp,
) -> Result<Webhook> {
    rotate_secret_then(store, actor, id, input, None, now, None::<Publish>)
}

/// [`rotate_secret`] with an `Idempotency-Key` (`service::idempotency`): a repeat of the
/// same request within 24 hours rotates nothing and answers the webhook as it is now (its
/// secret in force).
pub fn rotate_secret_keyed(
    store: &Store,
    actor: &Actor,
    id: &str,
    input: RotateSecret,
    idem: Option<&Idempotent>,
    now: Timestamp,
) -> Result<Webhook> {
    rotate_secret_then(store, actor, id, input, idem, now, None::<Publish>)
}

/// [`rotate_secret`], handing the webhook with its new secret to `publish` before the commit,
/// as [`create_publishing`] does: if `publish` fails, the old secret stays as it was.
pub fn rotate_secret_publishing(
    store: &Store,
    actor: &Actor,
    id: &str,
    input: RotateSecret,
    now: Timestamp,
    publish: impl FnOnce(&Webhook) -> Result<()>,
) -> Result<Webhook> {
    rotate_secret_then(store, actor, id, input, None, now, Some(publish))
}

fn rotate_secret_then(
    store: &Store,
    actor: &Actor,
    id: &str,
    input: RotateSecret,
    idem: Option<&Idempotent>,
    now: Timestamp,
    publish: Option<impl FnOnce(&Webhook) -> Result<()>>,
) -> Result<Webhook> {
    actor.may(Operation::RotateWebhookSecret, None)?;
    input.problems.into_result(&["graceSeconds", "body"])?;
    let grace = input.grace.unwrap_or_default();
    let secret = sign::generate_secret();
    store.write(|c| {
        let mut w = find(c, actor, id)?;
        let op = Operation::RotateWebhookSecret;
        let first = |c: Conn<'_>, r: &str| idempotency::first_webhook(c, actor, r);
        let taken = match idempotency::begin(c, actor, op, &w.id, idem, now, first)? {
            Keyed::Act(taken) => taken,
            Keyed::Answered(w) => return Ok(w),
        };
        let until = grace.until(now);
        let previous = (grace.seconds() > 0).then_some((w.secret.as_str(), until));
        c.set_secret(&w.id, &secret, previous, now)?;
        c.drop_expired_secrets(now)?;
        w.secret = secret;
        w.updated_at = now;
        let details = serde_json::json!({
            "graceSeconds": grace.seconds(),
            "previousSecretUntil": (grace.seconds() > 0).then(|| until.to_rfc3339()),
        });
        audit::record(
            c,
            now,
            &Entry::by(actor, Action::WebhookSecretRotated, &w.id, details).about(w.scope()),
        )?;
        if let Some(taken) = &taken {
            idempotency::answer(c, taken, &idempotency::webhook_ref(&w.id))?;
        }
        if let Some(publish) = publish {
            c.stage()?;
            publish(&w)?;
        }
        Ok(w)
    })
}

/// Deletes the previous secrets whose grace period has ended (the outbox worker calls it),
/// then, if it deleted any, has the backend clear what its log keeps of the old rows
/// ([`Storage::trim_log`](crate::store::Storage::trim_log): SQLite's write-ahead log).
pub fn drop_expired_secrets(store: &Store, now: Timestamp) -> Result<usize> {
    // A read first: the write lock is taken only when there is something to delete.
    if !store.conn().any_expired_secret(now)? {
        return Ok(0);
    }
    let dropped = store.write(|c| Ok(c.drop_expired_secrets(now)?))?;
    if dropped > 0 {
        store.trim_log(true)?;
    }
    Ok(dropped)
}

/// Why `w` was disabled automatically (a 410 Gone, or too many failures in a row), if it
/// was and has not been enabled since: for `webhooks show`.
pub fn disabled_reason(store: &Store, w: &Webhook) -> Result<Option<String>> {
    if w.is_active {
        return Ok(None);
    }
    Ok(store.conn().disabled_reason(&w.id)?)
}

/// Sends one `webhook.test` delivery now, even to a disabled webhook, and counts it toward
/// `failCount` like any attempt. Three phases: look the webhook up (one database step), send
/// (holding nothing of the database: no connection, pool slot or transaction), record the
/// attempt (another step). A webhook deleted while its ping was in flight gets no attempt
/// logged; the caller still learns what the endpoint answered.
pub fn test(
    db: &(impl Database + ?Sized),
    actor: &Actor,
    id: &str,
    sender: &dyn Transport,
    now: Timestamp,
) -> Result<TestResult> {
    test_keyed(db, actor, id, sender, None, now)
}

/// [`test`] with an `Idempotency-Key` (`service::idempotency`): the key is taken with the
/// lookup, before the ping goes out; a repeat within 24 hours sends nothing and answers the
/// first ping's result (503 while the first is still in flight). A ping that fails to be
/// recorded frees its key.
pub fn test_keyed(
    db: &(impl Database + ?Sized),
    actor: &Actor,
    id: &str,
    sender: &dyn Transport,
    idem: Option<&Idempotent>,
    now: Timestamp,
) -> Result<TestResult> {
    actor.may(Operation::TestWebhook, None)?;
    let (ping, turn) = db.step(|store| {
        let ping = Ping::prepare(store, actor, id, now)?;
        let Some(idem) = idem else {
            return Ok((ping, None));
        };
        let op = Operation::TestWebhook;
        let turn = store.write(|c| idempotency::take(c, actor, op, &ping.webhook_id, idem, now))?;
        Ok((ping, Some(turn)))
    })?;
    let taken = match turn {
        None => None,
        Some(Turn::First(taken)) => Some(taken),
        Some(Turn::Repeat(response)) => return idempotency::decode(&response),
    };
    let a = ping.send(sender);
    let result = TestResult {
        delivered: a.delivered,
        status_code: a.status_code,
        status_text: a.status_text.clone(),
    };
    let recorded = db.step(|store| {
        store.write(|c| {
            ping.log(c, &a)?;
            if let Some(taken) = &taken {
                idempotency::answer(c, taken, &serde_json::to_value(&result).unwrap_or_default())?;
            }
            Ok(())
        })
    });
    if let (Err(_), Some(taken)) = (&recorded, &taken) {
        // Best effort: a key left taken is freed after `idempotency::ABANDONED_AFTER_MS`.
        let _ = db.step(|store| store.write(|c| idempotency::release(c, taken)));
    }
    recorded?;
    Ok(result)
}

/// A test ping ready to go: everything the network call needs, owned, so that sending it
/// borrows nothing from the database.
struct Ping {
    webhook_id: String,
    url: String,
    /// The current secret first, then one in its rotation's grace period.
    secrets: Vec<String>,
    event_id: String,
    body: Vec<u8>,
    at: Timestamp,
}

impl Ping {
    fn prepare(store: &Store, actor: &Actor, id: &str, now: Timestamp) -> Result<Ping> {
        let w = find(store.conn(), actor, id)?;
        // The secrets of a rotation in its grace period sign a ping as they sign deliveries.
        let signing = store.conn().signing(&w.id, now)?;
        let secrets = signing.map_or_else(|| vec![w.secret.clone()], |s: Signing| s.secrets);
        let event_id = events::new_event_id();
        let data = serde_json::json!({ "webhookId": w.id });
        let body = events::payload(&event_id, TEST_EVENT, None, now, &data);
        Ok(Ping {
            webhook_id: w.id,
            url: w.url,
            secrets,
            event_id,
            body,
            at: now,
        })
    }

    fn send(&self, sender: &dyn Transport) -> Attempt {
        let ts = self.at.millis() / 1000;
        let secrets: Vec<&str> = self.secrets.iter().map(String::as_str).collect();
        sender.send(&self.url, &secrets, &self.event_id, &self.body, ts)
    }

    fn log(&self, c: Conn<'_>, a: &Attempt) -> Result<()> {
        let of = AttemptOf {
            webhook_id: &self.webhook_id,
            delivery_id: None,
            event_id: &self.event_id,
            event: TEST_EVENT,
            attempt: 1,
        };
        log_attempt(c, of, self.at, a)
    }
}

/// What an attempt was for.
pub struct AttemptOf<'a> {
    pub webhook_id: &'a str,
    /// The outbox entry; `None` for a test ping.
    pub delivery_id: Option<&'a str>,
    pub event_id: &'a str,
    pub event: &'a str,
    /// 1 for the first attempt of a delivery.
    pub attempt: i64,
}

/// Logs an attempt and counts it toward the webhook's `failCount`; the
/// [`DISABLE_AFTER_FAILURES`]th consecutive failure disables the webhook in the same
/// transaction ([`record_attempt`]).
/// Test pings and outbox deliveries both come through here. An automatic disable is
/// recorded in the audit log in the same transaction: actor `system`, via `worker` (also
/// when a test ping's failure was the one that crossed the threshold: the disable is the
/// failure counter's doing, not the pinging actor's).
pub fn log_attempt(c: Conn<'_>, of: AttemptOf<'_>, at: Timestamp, a: &Attempt) -> Result<()> {
    log_attempt_disabling(c, of, at, a).map(drop)
}

/// What an attempt does to its webhook's failure counter, decided from the counter the store
/// saw under the row's lock: the counter to write back (`None`: unchanged) and whether this
/// attempt disabled the webhook (it was active, and answered 410 Gone or was the
/// `disable_after`th failure in a row).
///
/// A success resets `failCount`; a failure adds one, and a 410 Gone or the `disable_after`th
/// failure deactivates the webhook and records why. A webhook disabled automatically
/// (`disabled_reason` set) keeps the failCount that disabled it until it is enabled again.
pub fn count_attempt(
    seen: &FailCounter,
    a: &AttemptRecord<'_>,
    disable_after: i64,
) -> (Option<FailCounter>, bool) {
    if seen.disabled_reason.is_some() {
        return (None, false);
    }
    if a.delivered {
        if seen.fail_count == 0 {
            return (None, false);
        }
        let after = FailCounter {
            fail_count: 0,
            ..seen.clone()
        };
        return (Some(after), false);
    }
    let fail_count = seen.fail_count + 1;
    if !(a.gone() || fail_count >= disable_after) {
        let after = FailCounter {
            fail_count,
            ..seen.clone()
        };
        return (Some(after), false);
    }
    let after = FailCounter {
        fail_count,
        is_active: false,
        disabled_reason: Some(a.disable_reason(disable_after)),
        updated_at: if seen.is_active {
            a.attempted_at
        } else {
            seen.updated_at
        },
        user_id: seen.user_id.clone(),
    };
    (Some(after), seen.is_active)
}

/// Logs an attempt and counts it ([`count_attempt`]), in the caller's write transaction:
/// the store locks the webhook's row and returns its counter, this decides, the store writes.
/// Nothing is written for a webhook deleted while the request was out. Returns the webhook's
/// user when this attempt disabled it, for the audit entry of the same transaction.
pub fn record_attempt(
    c: Conn<'_>,
    a: &AttemptRecord<'_>,
    disable_after: i64,
) -> Result<Option<String>> {
    let Some(seen) = c.lock_fail_counter(a.webhook_id)? else {
        return Ok(None);
    };
    c.insert_attempt(a)?;
    let (after, disabled) = count_attempt(&seen, a, disable_after);
    if let Some(after) = after {
        c.set_fail_counter(a.webhook_id, &after)?;
    }
    Ok(disabled.then_some(seen.user_id))
}

/// [`log_attempt`], telling why the attempt disabled its webhook, if it did: the reason the
/// audit entry records (for the worker's log line).
pub fn log_attempt_disabling(
    c: Conn<'_>,
    of: AttemptOf<'_>,
    at: Timestamp,
    a: &Attempt,
) -> Result<Option<&'static str>> {
    let webhook_id = of.webhook_id;
    let record = AttemptRecord {
        webhook_id: of.webhook_id,
        delivery_id: of.delivery_id,
        event_id: of.event_id,
        event: of.event,
        attempt: of.attempt,
        attempted_at: at,
        delivered: a.delivered,
        status_code: a.status_code,
        status_text: &a.status_text,
        duration_ms: a.duration_ms,
        response_excerpt: &a.response_excerpt,
    };
    let disabled = record_attempt(c, &record, DISABLE_AFTER_FAILURES)?;
    if let Some(user) = disabled {
        // The webhook's scope, for who may read the entry (it exists: it was just disabled).
        let w = c.webhook(&user, webhook_id)?;
        let all = (true, Vec::new());
        let (full_access, ids) = w.map_or(all, |w| (w.full_access, w.profile_ids));
        // Why it was disabled: the rule `count_attempt` applied (`AttemptRecord::gone`).
        let (reason, details) = if record.gone() {
            let details = serde_json::json!({ "reason": GONE_REASON, "statusCode": a.status_code });
            (GONE_REASON, details)
        } else {
            let details = serde_json::json!({
                "reason": FAILURES_REASON,
                "failCount": DISABLE_AFTER_FAILURES,
                "statusCode": a.status_code,
            });
            (FAILURES_REASON, details)
        };
        let entry = Entry::system(
            &user,
            Via::Worker,
            Action::WebhookDisabled,
            webhook_id,
            details,
        )
        .about(Scope {
            full_access,
            profile_ids: &ids,
        });
        audit::record(c, at, &entry)?;
        return Ok(Some(reason));
    }
    Ok(None)
}

/// The audit entry's reason when the consecutive failures disabled a webhook.
pub const FAILURES_REASON: &str = "consecutive failures";

/// The newest attempts to deliver to the webhook, newest first.
pub fn attempts(store: &Store, actor: &Actor, id: &str) -> Result<Vec<DeliveryAttempt>> {
    actor.may(Operation::ListDeliveries, None)?;
    let w = find(store.conn(), actor, id)?;
    Ok(store.conn().attempts(&w.id, ATTEMPT_LOG_LIMIT)?)
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

    fn counter(is_active: bool, fail_count: i64, reason: Option<&str>) -> FailCounter {
        FailCounter {
            user_id: "u".into(),
            is_active,
            fail_count,
            disabled_reason: reason.map(String::from),
            updated_at: Timestamp(5),
        }
    }

    fn attempt(delivered: bool, status_code: u16) -> AttemptRecord<'static> {
        AttemptRecord {
            webhook_id: "w",
            delivery_id: None,
            event_id: "e",
            event: "post.published",
            attempt: 1,
            attempted_at: Timestamp(9),
            delivered,
            status_code,
            status_text: "",
            duration_ms: 1,
            response_excerpt: "",
        }
    }

    #[test]
    fn attempts_count_toward_the_automatic_disable() {
        let n = DISABLE_AFTER_FAILURES;
        let ok = attempt(true, 200);
        let failed = attempt(false, 500);
        let gone = attempt(false, 410);
        // A success resets a count, and leaves a zero count alone.
        let reset = count_attempt(&counter(true, 3, None), &ok, n);
        assert_eq!(reset, (Some(counter(true, 0, None)), false));
        assert_eq!(
            count_attempt(&counter(true, 0, None), &ok, n),
            (None, false)
        );
        // A failure below the threshold counts one.
        let one = count_attempt(&counter(true, n - 2, None), &failed, n);
        assert_eq!(one, (Some(counter(true, n - 1, None)), false));
        // The threshold-th failure disables, records why, and moves updatedAt.
        let reason = crate::store::failures_reason(n);
        let mut off = counter(false, n, Some(&reason));
        off.updated_at = Timestamp(9);
        let tripped = count_attempt(&counter(true, n - 1, None), &failed, n);
        assert_eq!(tripped, (Some(off), true));
        // 410 Gone disables at once, whatever the count.
        let mut off = counter(false, 1, Some(GONE_REASON));
        off.updated_at = Timestamp(9);
        assert_eq!(
            count_attempt(&counter(true, 0, None), &gone, n),
            (Some(off), true)
        );
        // A webhook disabled by hand still counts and gets the reason, but this attempt did
        // not disable it, and updatedAt stays.
        let manual = count_attempt(&counter(false, n - 1, None), &failed, n);
        assert_eq!(manual, (Some(counter(false, n, Some(&reason))), false));
        // The reason is sticky: once disabled automatically, nothing moves until an enable.
        for a in [&ok, &failed, &gone] {
            let seen = counter(false, n, Some(&reason));
            assert_eq!(count_attempt(&seen, a, n), (None, false));
        }
    }

    #[test]
    fn subscriptions_name_catalog_events_once_each() {
        let list = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let all = events::CATALOG.to_vec();
        let ok = WebhookEvents::new(list(&all)).unwrap();
        assert_eq!(ok.as_slice(), all);
        assert_eq!(
            WebhookEvents::new(vec![]).unwrap_err().0,
            [(None, "must name at least one event".to_string())]
        );
        let got = WebhookEvents::new(list(&["nope", "nope", "", "post.published", TEST_EVENT]))
            .unwrap_err()
            .0;
        let at: Vec<Option<usize>> = got.iter().map(|(i, _)| *i).collect();
        // Emptiness and repeats first, then the catalog.
        assert_eq!(at, [Some(1), Some(2), Some(0), Some(4)]);
        assert_eq!(got[0].1, "duplicate value \"nope\"");
        assert_eq!(got[1].1, "must not be empty");
        assert!(got[2]
            .1
            .starts_with("unknown event \"nope\"; known events: post.published"));
        assert!(got[3]
            .1
            .starts_with("webhook.test is sent only by the test endpoint"));
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
