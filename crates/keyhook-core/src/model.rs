//! The resources of the API, in the exact serde shape of the spec. The CLI's `--json` output
//! and the HTTP layer serialize these same values.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use crate::error::{Error, FieldError};
use crate::rate::RateLimit;
use crate::time::Timestamp;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Permission {
    Readwrite,
    Readonly,
}

impl Permission {
    /// Every permission, narrowest last (the OpenAPI document lists them from here).
    pub const ALL: [Permission; 2] = [Permission::Readwrite, Permission::Readonly];

    pub fn as_str(self) -> &'static str {
        match self {
            Permission::Readwrite => "readwrite",
            Permission::Readonly => "readonly",
        }
    }

    /// `readwrite` or `readonly`, exactly; else the rule's message.
    pub fn parse(s: &str) -> Result<Self, String> {
        Self::ALL
            .into_iter()
            .find(|p| p.as_str() == s)
            .ok_or_else(|| "must be readwrite or readonly".into())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ApiKey {
    pub id: String,
    /// Owner of the key (an extension to the spec's fields, as on webhooks).
    pub user_id: String,
    pub key_prefix: String,
    pub name: String,
    pub permission: Permission,
    pub full_access: bool,
    pub profile_ids: Vec<String>,
    pub last_used_at: Option<Timestamp>,
    pub expires_at: Option<Timestamp>,
    /// This key's own rate limit (`N/s`, `N/min`), instead of `serve --rate-limit`'s.
    pub rate_limit: Option<RateLimit>,
    /// Requests this key may still make; `None`: no limit. The uses left of its budget
    /// ([`ApiKey::budget`]), shared with the keys rotated from it or into it.
    pub remaining_uses: Option<i64>,
    /// The id of the first key of the chain of rotations this key belongs to, whose budget
    /// of uses and rate bucket every key of the chain shares while it lives (CONTRACT §12);
    /// `None`: its own (a key written before chains, or by a test). Not part of the API.
    #[serde(skip)]
    pub budget_id: Option<String>,
    pub created_at: Timestamp,
    /// The plaintext key: only in the response that created it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
}

impl ApiKey {
    pub fn is_expired(&self, now: Timestamp) -> bool {
        self.expires_at.is_some_and(|t| t <= now)
    }

    /// What its uses and its rate are counted under: the budget of its chain of rotations.
    pub fn budget(&self) -> &str {
        self.budget_id.as_deref().unwrap_or(&self.id)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Webhook {
    pub id: String,
    pub user_id: String,
    pub url: String,
    pub events: Vec<String>,
    /// `true`: events of every profile (and user-wide events) are delivered; `false`: only
    /// events of `profileIds`.
    pub full_access: bool,
    pub profile_ids: Vec<String>,
    /// A CEL expression over `event`, `profileId` and `data` (`service::filter`): only an
    /// event for which it is `true` is queued; `None`: every subscribed event.
    pub filter: Option<String>,
    pub secret: String,
    /// What deliveries are signed with (CONTRACT §15): `v1` (HMAC), `v1a` (Ed25519) or both.
    pub signing: SigningMode,
    /// The Ed25519 public key (`whpk_...`) receivers verify `v1a` with; `None` until the
    /// webhook signs with Ed25519.
    pub public_key: Option<String>,
    /// The names of its static headers (their values are write-only).
    pub header_names: Vec<String>,
    pub is_active: bool,
    pub fail_count: i64,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    /// Made by `keyhook listen` for as long as it runs: delivered only by that process,
    /// deleted when it stops (CONTRACT §11).
    pub ephemeral: bool,
    /// Its own retry schedule and timeout (CONTRACT §15), flattened into the object.
    #[serde(flatten)]
    pub control: DeliveryControl,
    /// What is never shown: the Ed25519 private key and the header values.
    #[serde(skip)]
    pub private: WebhookPrivate,
}

/// A webhook's own delivery settings (CONTRACT §15, `service::webhooks::flow`): `None`
/// keeps `serve`'s.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DeliveryControl {
    /// Delays before each retry, as written (`["5s", "1m"]`); `None`: serve's schedule.
    pub retry_schedule: Option<Vec<String>>,
    /// The timeout of one attempt, in milliseconds; `None`: serve's `--delivery-timeout`.
    pub timeout_ms: Option<i64>,
    /// At most this many attempts per period to the webhook, counted across every instance
    /// (a token bucket with a burst of N); `None`: as fast as the workers go.
    pub rate: Option<crate::rate::RateLimit>,
    /// Deliveries one at a time, in the order they were queued (the outbox's sequence): a
    /// failing one holds the later ones until it is delivered or exhausted (CONTRACT §15,
    /// docs/webhooks.md "Ordered delivery"). `false` for every webhook made before it.
    pub ordered: bool,
}

/// A webhook's secrets that no response, log or audit entry carries (stored sealed,
/// `crate::secrets`). `Debug` shows none of them.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct WebhookPrivate {
    /// `whsk_...`: the Ed25519 private key, once the webhook signs with Ed25519.
    pub signing_key: Option<String>,
    /// Static headers sent with each delivery, name (lowercase) and value, in order.
    pub headers: Vec<(String, String)>,
}

impl std::fmt::Debug for WebhookPrivate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebhookPrivate")
            .field(
                "signing_key",
                &self.signing_key.as_ref().map(|_| "<secret>"),
            )
            .field(
                "headers",
                &self.headers.iter().map(|(n, _)| n).collect::<Vec<_>>(),
            )
            .finish()
    }
}

/// How a webhook's deliveries are signed (`--signing`, `signing`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SigningMode {
    /// `v1,`: HMAC-SHA256 with the `whsec_` secret (the default, and every webhook's before).
    #[default]
    Hmac,
    /// `v1a,`: Ed25519 with the `whsk_` private key.
    Ed25519,
    /// Both, `v1,...` then `v1a,...`.
    Both,
}

impl SigningMode {
    pub const ALL: [SigningMode; 3] = [SigningMode::Hmac, SigningMode::Ed25519, SigningMode::Both];

    pub fn as_str(self) -> &'static str {
        match self {
            SigningMode::Hmac => "hmac",
            SigningMode::Ed25519 => "ed25519",
            SigningMode::Both => "both",
        }
    }

    pub fn parse(s: &str) -> Result<Self, String> {
        Self::ALL
            .into_iter()
            .find(|m| m.as_str() == s)
            .ok_or_else(|| "must be hmac, ed25519 or both".into())
    }

    pub fn hmac(self) -> bool {
        self != SigningMode::Ed25519
    }

    pub fn ed25519(self) -> bool {
        self != SigningMode::Hmac
    }
}

/// The outcome of one delivery attempt, as `POST /webhooks/{id}/test` reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TestResult {
    pub delivered: bool,
    pub status_code: u16,
    pub status_text: String,
}

/// One attempt in a webhook's delivery log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DeliveryAttempt {
    pub id: i64,
    /// The outbox entry retried by this attempt; `null` for test pings.
    pub delivery_id: Option<String>,
    pub event_id: String,
    pub event: String,
    /// The event's profile; `null` for a user-wide event and for test pings.
    pub profile_id: Option<String>,
    /// 1 for the first attempt of a delivery, 2 for its first retry...
    pub attempt: i64,
    pub attempted_at: Timestamp,
    pub delivered: bool,
    pub status_code: u16,
    pub status_text: String,
    pub duration_ms: i64,
    pub response_excerpt: String,
    /// Set when this row is no attempt but a skip: the event was not sent to the webhook
    /// because its filter could not judge it, and this is the kind of error (never a value
    /// of the data). `null` for an attempt.
    pub skipped: Option<String>,
    /// Its delivery holds its ordered webhook's queue (CONTRACT §15 `--ordered`): it has
    /// failed and waits for its retry (or is being retried), and no later delivery of the
    /// webhook is attempted until it is delivered or exhausted. `false` for every other.
    pub holds_queue: bool,
    /// How many pending deliveries wait behind it when `holds_queue`; 0 otherwise.
    pub queued_behind: i64,
}

/// One entry of the audit log (`service::audit`): who changed which key or webhook.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditEntry {
    pub id: i64,
    /// The user whose key or webhook changed (an extension, as on keys and webhooks).
    pub user_id: String,
    pub at: Timestamp,
    /// A key's `keyPrefix` (HTTP), `cli:<login name>` (the CLI) or `system`.
    pub actor: String,
    /// `http`, `cli` or `worker`.
    pub via: String,
    /// `key.created`, `webhook.disabled`...
    pub action: String,
    /// The id of the key or webhook.
    pub target: String,
    /// A small JSON object: names, permissions, URLs; never a key or a secret.
    pub details: serde_json::Value,
    /// The scope of the key or webhook the entry is about (for a change of scope, the two
    /// together): a scoped key is shown only entries within its own scope. Not part of the
    /// API's object.
    #[serde(skip)]
    pub full_access: bool,
    #[serde(skip)]
    pub profile_ids: Vec<String>,
}

/// What `POST /events` accepted: the event and how many deliveries it queued.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EventAccepted {
    pub id: String,
    pub event: String,
    /// The profile the event is about; `null` for a user-wide event.
    pub profile_id: Option<String>,
    pub created_at: Timestamp,
    pub deliveries: usize,
}

/// Whether an event type's events name a profile (`profile` of an [`EventType`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EventProfile {
    /// A `profileId` may be given or not (the default, and the built-ins').
    Optional,
    /// A `profileId` must be given (`--profile-required`).
    Required,
    /// No `profileId` may be given (`--user-wide`; keyhook's operational events).
    None,
}

impl EventProfile {
    /// Every value (the OpenAPI document lists them from here).
    pub const ALL: [EventProfile; 3] = [
        EventProfile::Optional,
        EventProfile::Required,
        EventProfile::None,
    ];

    /// The stored and serialized name.
    pub fn as_str(self) -> &'static str {
        match self {
            EventProfile::Optional => "optional",
            EventProfile::Required => "required",
            EventProfile::None => "none",
        }
    }

    /// A stored name back; else the rule's message.
    pub fn parse(s: &str) -> Result<Self, String> {
        Self::ALL
            .into_iter()
            .find(|p| p.as_str() == s)
            .ok_or_else(|| "must be optional, required or none".into())
    }
}

/// An entry of the operator's event catalog (CONTRACT §10).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EventType {
    pub name: String,
    pub description: Option<String>,
    /// A JSON Schema (draft 2020-12) that an event's `data` must match.
    pub schema: Option<serde_json::Value>,
    /// A `data` that `events trigger` sends; it matches `schema`.
    pub example: Option<serde_json::Value>,
    pub profile: EventProfile,
    /// No new subscriptions; existing ones keep receiving.
    pub deprecated: bool,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// `{"data": ...}`: the success envelope.
#[derive(Serialize)]
pub struct Data<T> {
    pub data: T,
}

/// `{"error": {...}}`: the error envelope, `details` always present.
#[derive(Serialize)]
pub struct ErrorEnvelope<'a> {
    pub error: ErrorBody<'a>,
}

#[derive(Serialize)]
pub struct ErrorBody<'a> {
    pub code: &'a str,
    pub message: String,
    pub details: Cow<'a, [FieldError]>,
}

impl<'a> ErrorEnvelope<'a> {
    /// The error object, with key-shaped strings in the message and the details redacted
    /// (`crate::redact`): both front ends print it, so it is the one place that needs it.
    pub fn new(code: &'a str, message: String, details: &'a [FieldError]) -> Self {
        ErrorEnvelope {
            error: ErrorBody {
                code,
                message: crate::redact::owned(message),
                details: crate::error::redact_details(details),
            },
        }
    }

    pub fn from_error(e: &'a Error) -> Self {
        Self::new(e.code(), e.public_message(), e.details())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::ManualClock;

    #[test]
    fn a_key_expires_at_its_expiry_exactly() {
        let clock = ManualClock::new(Timestamp(1_800_000_000_000));
        let key = |expires_at| ApiKey {
            id: "k".into(),
            user_id: "u".into(),
            key_prefix: "kp_12345678".into(),
            name: "n".into(),
            permission: Permission::Readwrite,
            full_access: true,
            profile_ids: vec![],
            last_used_at: None,
            expires_at,
            rate_limit: None,
            remaining_uses: None,
            budget_id: None,
            created_at: Timestamp(0),
            key: None,
        };
        let at_now = key(Some(clock.now()));
        let never = key(None);
        clock.advance(-1);
        assert!(!at_now.is_expired(clock.now()), "1 ms before");
        clock.advance(1);
        assert!(at_now.is_expired(clock.now()), "at expiresAt");
        clock.advance(1);
        assert!(at_now.is_expired(clock.now()), "1 ms after");
        clock.set(Timestamp(i64::MAX));
        assert!(!never.is_expired(clock.now()));
    }

    #[test]
    fn permission_is_readwrite_or_readonly_exactly() {
        assert_eq!(Permission::parse("readwrite"), Ok(Permission::Readwrite));
        assert_eq!(Permission::parse("readonly"), Ok(Permission::Readonly));
        for bad in ["", "READONLY", "readonly ", "read", "admin"] {
            assert_eq!(
                Permission::parse(bad),
                Err("must be readwrite or readonly".into()),
                "{bad:?}"
            );
        }
    }
}
