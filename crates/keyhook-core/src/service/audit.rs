//! The audit log: who changed which key or webhook, when and through which front end. Every
//! change appends its entry with [`record`], on the connection of the transaction that makes
//! the change, so a change and its entry commit (or roll back) together. Entries never hold a
//! plaintext key or a secret: the details are names, permissions, scopes and URLs (shown
//! through `redact::url`).

use serde_json::{json, Value};

use super::{Actor, Operation};
use crate::auth::Scope;
use crate::error::{Error, Result};
use crate::model::{ApiKey, AuditEntry, Webhook};
use crate::redact;
use crate::store::{AuditQueries, Store};
use crate::time::Timestamp;

/// How many entries a listing shows when no limit is given.
pub const DEFAULT_LIMIT: i64 = 50;
/// The most entries one listing shows.
pub const MAX_LIMIT: i64 = 1_000;
/// The actor of automatic changes (the worker disabling a failing webhook).
pub const SYSTEM: &str = "system";
/// The longest login name kept in a `cli:<login>` actor, in characters.
pub const MAX_LOGIN_CHARS: usize = 64;

/// What was done.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    KeyCreated,
    KeyDeleted,
    KeyRotated,
    WebhookCreated,
    WebhookUpdated,
    WebhookDeleted,
    WebhookEnabled,
    WebhookDisabled,
    WebhookSecretRotated,
    WebhookReplayed,
    EventTypeCreated,
    EventTypeUpdated,
    EventTypeDeprecated,
    EventTypeDeleted,
    PortalLinkCreated,
    PortalLinkRevoked,
}

impl Action {
    /// Every action (the OpenAPI document lists them from here).
    pub const ALL: [Action; 16] = [
        Action::KeyCreated,
        Action::KeyDeleted,
        Action::KeyRotated,
        Action::WebhookCreated,
        Action::WebhookUpdated,
        Action::WebhookDeleted,
        Action::WebhookEnabled,
        Action::WebhookDisabled,
        Action::WebhookSecretRotated,
        Action::WebhookReplayed,
        Action::EventTypeCreated,
        Action::EventTypeUpdated,
        Action::EventTypeDeprecated,
        Action::EventTypeDeleted,
        Action::PortalLinkCreated,
        Action::PortalLinkRevoked,
    ];

    pub const fn as_str(self) -> &'static str {
        match self {
            Action::KeyCreated => "key.created",
            Action::KeyDeleted => "key.deleted",
            Action::KeyRotated => "key.rotated",
            Action::WebhookCreated => "webhook.created",
            Action::WebhookUpdated => "webhook.updated",
            Action::WebhookDeleted => "webhook.deleted",
            Action::WebhookEnabled => "webhook.enabled",
            Action::WebhookDisabled => "webhook.disabled",
            Action::WebhookSecretRotated => "webhook.secret_rotated",
            Action::WebhookReplayed => "webhook.replayed",
            Action::EventTypeCreated => "event_type.created",
            Action::EventTypeUpdated => "event_type.updated",
            Action::EventTypeDeprecated => "event_type.deprecated",
            Action::EventTypeDeleted => "event_type.deleted",
            Action::PortalLinkCreated => "portal_link.created",
            Action::PortalLinkRevoked => "portal_link.revoked",
        }
    }
}

/// Through which front end a change came.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Via {
    Http,
    Cli,
    Worker,
    /// The developer portal (`service::portal`).
    Portal,
}

impl Via {
    pub const ALL: [Via; 4] = [Via::Http, Via::Cli, Via::Worker, Via::Portal];

    pub const fn as_str(self) -> &'static str {
        match self {
            Via::Http => "http",
            Via::Cli => "cli",
            Via::Worker => "worker",
            Via::Portal => "portal",
        }
    }
}

/// One entry to append: the user whose key or webhook changed, who changed it and how.
#[derive(Debug, Clone)]
pub struct Entry {
    pub user_id: String,
    pub actor: String,
    pub via: Via,
    pub action: Action,
    /// The id of the key or webhook.
    pub target: String,
    /// A small JSON object; never a plaintext key or a secret.
    pub details: Value,
    /// The scope of what the entry is about ([`Entry::about`]); full access until told, so
    /// that an entry whose scope was not given is shown to no scoped key.
    pub full_access: bool,
    pub profile_ids: Vec<String>,
}

impl Entry {
    /// A change `actor` made to something of its user.
    pub fn by(actor: &Actor, action: Action, target: &str, details: Value) -> Entry {
        Entry {
            user_id: actor.user_id().to_string(),
            actor: actor.audit_name(),
            via: actor.via(),
            action,
            target: target.to_string(),
            details,
            full_access: true,
            profile_ids: Vec::new(),
        }
    }

    /// The entry is about something of `scope` (a key's, a webhook's): a key sees the entry
    /// only if it sees that scope ([`Actor::sees`]).
    pub fn about(mut self, scope: Scope<'_>) -> Entry {
        self.full_access = scope.full_access;
        self.profile_ids = scope.profile_ids.to_vec();
        self
    }

    /// An automatic change to something of `user`: actor `system`.
    pub fn system(user: &str, via: Via, action: Action, target: &str, details: Value) -> Entry {
        Entry {
            user_id: user.to_string(),
            actor: SYSTEM.to_string(),
            via,
            action,
            target: target.to_string(),
            details,
            full_access: true,
            profile_ids: Vec::new(),
        }
    }
}

/// The smallest scope holding both `a` and `b`: what an entry about a change of scope is
/// about, so that only keys that see the webhook before and after the change see it.
pub fn union(a: Scope<'_>, b: Scope<'_>) -> (bool, Vec<String>) {
    if a.full_access || b.full_access {
        return (true, Vec::new());
    }
    let mut ids = a.profile_ids.to_vec();
    for p in b.profile_ids {
        if !ids.contains(p) {
            ids.push(p.clone());
        }
    }
    (false, ids)
}

/// Appends `entry`, at `at`, on `c`: call it inside the `Store::write` transaction of the
/// change it records, so the two commit together.
pub fn record(c: &(impl AuditQueries + ?Sized), at: Timestamp, entry: &Entry) -> Result<()> {
    // Belt and braces: whatever a caller put in the details, a key-shaped string or a URL's
    // password never reaches the table.
    let mut details = entry.details.clone();
    redact_strings(&mut details);
    c.insert_audit(&AuditEntry {
        id: 0,
        user_id: entry.user_id.clone(),
        at,
        actor: entry.actor.clone(),
        via: entry.via.as_str().to_string(),
        action: entry.action.as_str().to_string(),
        target: entry.target.clone(),
        details,
        full_access: entry.full_access,
        profile_ids: entry.profile_ids.clone(),
    })?;
    Ok(())
}

/// Every string in `v` through `redact::keys`.
fn redact_strings(v: &mut Value) {
    match v {
        Value::String(s) => {
            if let std::borrow::Cow::Owned(r) = redact::keys(s) {
                *s = r;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(redact_strings),
        Value::Object(map) => map.values_mut().for_each(redact_strings),
        _ => {}
    }
}

/// The details of a key's entry: what identifies it and what it may do; never the key.
pub fn key_details(k: &ApiKey) -> Value {
    json!({
        "name": k.name,
        "keyPrefix": k.key_prefix,
        "permission": k.permission.as_str(),
        "fullAccess": k.full_access,
        "profileIds": k.profile_ids,
        "expiresAt": k.expires_at,
    })
}

/// The details of a webhook's entry: its URL (credentials masked) and events; never the
/// secret.
pub fn webhook_details(w: &Webhook) -> Value {
    let mut v = json!({
        "url": redact::url(&w.url),
        "events": w.events,
        "fullAccess": w.full_access,
        "profileIds": w.profile_ids,
        "isActive": w.is_active,
        "filter": w.filter,
        "signing": w.signing,
        "publicKey": w.public_key,
        "headerNames": w.header_names,
    });
    // A webhook's own delivery settings, when it has them (CONTRACT §15).
    if let Some(s) = &w.control.retry_schedule {
        v["retrySchedule"] = json!(s);
    }
    if let Some(t) = w.control.timeout_ms {
        v["timeoutMs"] = json!(t);
    }
    if let Some(r) = w.control.rate {
        v["rate"] = json!(r.to_string());
    }
    if w.control.ordered {
        v["ordered"] = json!(true);
    }
    v
}

/// A login name as it goes into a `cli:<login>` actor: characters other than ASCII letters,
/// digits, `.`, `_` and `-` become `_`, at most [`MAX_LOGIN_CHARS`] of them are kept, and an
/// empty one is `unknown`.
pub fn login_name(raw: &str) -> String {
    let name: String = raw
        .chars()
        .take(MAX_LOGIN_CHARS)
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if name.is_empty() {
        "unknown".into()
    } else {
        name
    }
}

/// Values [`parse_since`] always takes once they are not in the future (a rule no pattern can
/// state; the description says it), as a regular expression for the OpenAPI document: a
/// date-time of 1900 to 2099 with an offset (days up to 28, so every one exists), or one to
/// four non-zero duration parts of at most three digits (so never zero, never too long).
/// `parse_since` takes more (any RFC 3339 date-time, longer durations); the description says so.
pub const SINCE_PATTERN: &str = "^(?:(?:19|20)[0-9]{2}-(?:0[1-9]|1[0-2])-(?:0[1-9]|1[0-9]|2[0-8])\
     T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\\.[0-9]{1,3})?\
     (?:Z|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])\
     |(?:[1-9][0-9]{0,2}(?:ms|s|m|h|d|w)){1,4})$";

/// A listing's limit: 1 to [`MAX_LIMIT`]. Else the rule's message.
pub fn check_limit(n: i64) -> std::result::Result<i64, String> {
    if (1..=MAX_LIMIT).contains(&n) {
        Ok(n)
    } else {
        Err(format!("must be an integer from 1 to {MAX_LIMIT}"))
    }
}

/// What to list.
#[derive(Debug, Clone, Copy)]
pub struct Query {
    pub since: Option<Timestamp>,
    pub limit: i64,
    /// Every user's entries (the operator only).
    pub all_users: bool,
}

impl Default for Query {
    fn default() -> Self {
        Query {
            since: None,
            limit: DEFAULT_LIMIT,
            all_users: false,
        }
    }
}

/// How many entries a scoped key's listing reads at a time while it looks for entries it sees.
const PAGE: i64 = 500;

/// The actor's user's entries (every user's with `all_users`, operators only), newest first.
/// Any valid key may read its own user's log; a key limited to profiles sees only the entries
/// about keys and webhooks within its scope ([`Actor::sees`]), read page by page until
/// `limit` of them are found or the log ends.
pub fn list(store: &Store, actor: &Actor, q: Query) -> Result<Vec<AuditEntry>> {
    actor.may(Operation::ListAudit, None)?;
    let limit = check_limit(q.limit).map_err(|m| Error::validation("limit", m))?;
    let user = match (actor, q.all_users) {
        (Actor::Operator { .. }, true) => None,
        (Actor::Key(_) | Actor::Portal { .. }, true) => {
            return Err(Error::Forbidden(
                "only the operator can list every user's audit log".into(),
            ))
        }
        (_, false) => Some(actor.user_id()),
    };
    if actor.sees(Scope::ALL) {
        return Ok(store.conn().list_audit(user, q.since, None, limit)?);
    }
    let mut out = Vec::new();
    let mut before = None;
    loop {
        let page = store.conn().list_audit(user, q.since, before, PAGE)?;
        let full = page.len() as i64 == PAGE;
        before = page.last().map(|e| (e.at, e.id));
        out.extend(page.into_iter().filter(|e| {
            actor.sees(Scope {
                full_access: e.full_access,
                profile_ids: &e.profile_ids,
            })
        }));
        if out.len() as i64 >= limit || !full {
            out.truncate(limit as usize);
            return Ok(out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::parse_since;

    #[test]
    fn login_names_are_sanitised() {
        assert_eq!(login_name("alice"), "alice");
        assert_eq!(login_name("a b\u{1b}[31m"), "a_b__31m");
        assert_eq!(login_name(""), "unknown");
        assert_eq!(login_name(&"x".repeat(200)).len(), MAX_LOGIN_CHARS);
        assert_eq!(login_name("kp_é"), "kp__");
    }

    #[test]
    fn what_the_since_pattern_matches_is_taken() {
        let re = regex::Regex::new(SINCE_PATTERN).unwrap();
        // After every date-time the pattern takes: none is in the future.
        let now = Timestamp::parse_rfc3339("2100-01-01T00:00:00Z").unwrap();
        for ok in [
            "1h",
            "999w999d999h999m",
            "2030-01-01T00:00:00Z",
            "1999-12-28T23:59:59.5-23:59",
        ] {
            assert!(re.is_match(ok), "{ok}");
            assert!(parse_since(ok, now).is_ok(), "{ok}");
        }
        for bad in [
            "0s",
            "soon",
            "2030-13-01T00:00:00Z",
            "2030-01-01",
            "1h ",
            "01h",
        ] {
            assert!(!re.is_match(bad), "{bad}");
        }
    }

    #[test]
    fn limits_are_bounded() {
        assert_eq!(check_limit(1), Ok(1));
        assert_eq!(check_limit(MAX_LIMIT), Ok(MAX_LIMIT));
        assert!(check_limit(0).is_err());
        assert!(check_limit(MAX_LIMIT + 1).is_err());
    }

    #[test]
    fn action_names_are_the_contracts() {
        let names: Vec<_> = Action::ALL.iter().map(|a| a.as_str()).collect();
        assert_eq!(
            names,
            [
                "key.created",
                "key.deleted",
                "key.rotated",
                "webhook.created",
                "webhook.updated",
                "webhook.deleted",
                "webhook.enabled",
                "webhook.disabled",
                "webhook.secret_rotated",
                "webhook.replayed",
                "event_type.created",
                "event_type.updated",
                "event_type.deprecated",
                "event_type.deleted",
                "portal_link.created",
                "portal_link.revoked"
            ]
        );
    }
}
