//! `Idempotency-Key` on the POSTs that act on webhooks (create, rotate-secret, test, replay);
//! POST /events has its own records (`events::emit_checked`), pinned by the contract.
//!
//! The rule, after Stripe and draft-ietf-httpapi-idempotency-key-header:
//! - a key is held per user, per operation and per target (the webhook named in the path, or
//!   none for POST /webhooks), for [`IDEMPOTENCY_WINDOW_MS`] (24 hours), as an event's;
//! - a repeat with the same request (the same canonical JSON body) within the window does
//!   nothing and answers what the first answered; a repeat with another body is refused (400
//!   on `Idempotency-Key`): unlike an event, whose key the contract pins to "the first event
//!   wins", a webhook request sent again with other values is a client's mistake worth saying;
//! - the key is taken in the transaction that acts (create, rotate, replay: a concurrent
//!   repeat waits for it and sees its record), or, for a test ping, which calls the network
//!   between two transactions, before the call: a repeat while it is in flight is refused
//!   with 503 (retry it), and a ping whose process died frees its key after
//!   [`ABANDONED_AFTER_MS`];
//! - a request that fails frees its key (its transaction rolls back): only successes are
//!   answered again;
//! - what is kept of the answer: a test ping's result and a replay's count as they were; of
//!   a create or a rotation only the webhook's id, the webhook being shown again as it is now
//!   (its secret in force, never a rotated-out one) and only to a key that sees it now
//!   (`webhooks::find`): a repeat by a key outside the webhook's scope, or after the webhook
//!   was deleted, is 404. No record ever holds a secret or an API key.

use serde_json::Value;
use sha2::{Digest, Sha256};

use super::events::{IdempotencyKey, IDEMPOTENCY_FIELD, IDEMPOTENCY_WINDOW_MS};
use super::{Actor, Operation};
use crate::error::{Error, Result};
use crate::store::{Conn, RequestClaim};
use crate::time::Timestamp;

/// How long a request whose answer never came (its process died in a test ping) keeps its
/// key: then a repeat acts again. Longer than any ping can take.
pub const ABANDONED_AFTER_MS: i64 = 5 * 60 * 1000;

/// An `Idempotency-Key` sent with a request, and the fingerprint of the request's body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Idempotent {
    key: IdempotencyKey,
    fingerprint: String,
}

impl Idempotent {
    /// `body` is the request's JSON body (`{}` when it has none): two bodies that differ only
    /// in the order of their members or in white space are the same request.
    pub fn new(key: IdempotencyKey, body: &Value) -> Idempotent {
        let mut canonical = String::new();
        write_canonical(body, &mut canonical);
        Idempotent {
            key,
            fingerprint: hex::encode(Sha256::digest(canonical.as_bytes())),
        }
    }
}

/// `v` as JSON with every object's members sorted by name.
fn write_canonical(v: &Value, out: &mut String) {
    match v {
        Value::Object(m) => {
            let mut members: Vec<_> = m.iter().collect();
            members.sort_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (i, (k, v)) in members.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(k.clone()).to_string());
                out.push(':');
                write_canonical(v, out);
            }
            out.push('}');
        }
        Value::Array(a) => {
            out.push('[');
            for (i, v) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(v, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

/// The name a key's records give an operation: the route it is asked by.
const fn route(op: Operation) -> &'static str {
    match op {
        Operation::CreateWebhook => "POST /webhooks",
        Operation::RotateWebhookSecret => "POST /webhooks/{id}/rotate-secret",
        Operation::TestWebhook => "POST /webhooks/{id}/test",
        Operation::ReplayWebhook => "POST /webhooks/{id}/replay",
        _ => "",
    }
}

/// A key taken by a request that acts: what its answer or its release names.
#[derive(Debug, Clone)]
pub(super) struct Taken {
    id: String,
}

/// What a request with a key does.
pub(super) enum Turn {
    /// Acts, then [`answer`]s (or fails, and the key is freed with its transaction, or by
    /// [`release`] when the key was taken in a transaction of its own).
    First(Taken),
    /// Answers `response`, what the first request's [`answer`] stored.
    Repeat(String),
}

/// Takes `idem`'s key for the actor's request `op` on `target` (a webhook id, or '' for the
/// collection), inside the caller's write transaction, or finds the first request's answer.
pub(super) fn take(
    c: Conn<'_>,
    actor: &Actor,
    op: Operation,
    target: &str,
    idem: &Idempotent,
    now: Timestamp,
) -> Result<Turn> {
    let id = uuid::Uuid::new_v4().to_string();
    let claim = RequestClaim {
        id: &id,
        user: actor.user_id(),
        route: route(op),
        target,
        key: idem.key.as_str(),
        fingerprint: &idem.fingerprint,
        at: now,
    };
    let held = c.claim_request(
        &claim,
        now.add_millis(-IDEMPOTENCY_WINDOW_MS),
        now.add_millis(-ABANDONED_AFTER_MS),
    )?;
    let Some(held) = held else {
        return Ok(Turn::First(Taken { id }));
    };
    if held.fingerprint != idem.fingerprint {
        return Err(Error::validation(
            IDEMPOTENCY_FIELD,
            "was sent within the last 24 hours with a different request to this endpoint; \
             send a new key with a new request",
        ));
    }
    match held.response {
        Some(response) => Ok(Turn::Repeat(response)),
        None => Err(Error::Unavailable(
            "the first request with this Idempotency-Key is still in progress; send it again \
             when it has finished"
                .into(),
        )),
    }
}

/// What a request that may carry a key does: act (with the key taken, if it has one), or
/// answer as the first request did.
pub(super) enum Keyed<T> {
    Act(Option<Taken>),
    Answered(T),
}

/// [`take`] for a request with or without a key, the first answer read back by `repeat`.
pub(super) fn begin<T>(
    c: Conn<'_>,
    actor: &Actor,
    op: Operation,
    target: &str,
    idem: Option<&Idempotent>,
    now: Timestamp,
    repeat: impl FnOnce(Conn<'_>, &str) -> Result<T>,
) -> Result<Keyed<T>> {
    let Some(idem) = idem else {
        return Ok(Keyed::Act(None));
    };
    Ok(match take(c, actor, op, target, idem, now)? {
        Turn::First(taken) => Keyed::Act(Some(taken)),
        Turn::Repeat(response) => Keyed::Answered(repeat(c, &response)?),
    })
}

/// Stores the first request's answer, inside its write transaction (or the next one).
pub(super) fn answer(c: Conn<'_>, taken: &Taken, response: &Value) -> Result<()> {
    Ok(c.answer_request(&taken.id, &response.to_string())?)
}

/// Frees a key taken in a transaction of its own, whose request then failed.
pub(super) fn release(c: Conn<'_>, taken: &Taken) -> Result<()> {
    Ok(c.release_request(&taken.id)?)
}

/// The webhook id kept as the answer of a create or a rotation.
pub(super) fn webhook_ref(id: &str) -> Value {
    serde_json::json!({ "webhookId": id })
}

/// The webhook id of an answer [`webhook_ref`] made.
pub(super) fn webhook_of(response: &str) -> Result<String> {
    serde_json::from_str::<Value>(response)
        .ok()
        .and_then(|v| v["webhookId"].as_str().map(str::to_string))
        .ok_or_else(|| Error::Storage("an idempotency record without its webhook id".into()))
}

/// A stored answer read back as what the operation returns.
pub(super) fn decode<T: serde::de::DeserializeOwned>(response: &str) -> Result<T> {
    serde_json::from_str(response)
        .map_err(|_| Error::Storage("an idempotency record that does not decode".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fp(v: Value) -> String {
        Idempotent::new(IdempotencyKey::new("k").unwrap(), &v).fingerprint
    }

    #[test]
    fn the_fingerprint_ignores_member_order_but_not_values() {
        let a =
            fp(serde_json::json!({"url": "http://a", "events": ["x", "y"], "o": {"b": 1, "a": 2}}));
        let b: Value = serde_json::from_str(
            r#"{ "o": {"a": 2, "b": 1}, "events": ["x","y"], "url": "http://a" }"#,
        )
        .unwrap();
        assert_eq!(a, fp(b));
        assert_ne!(
            a,
            fp(serde_json::json!({"url": "http://a", "events": ["y", "x"], "o": {"b": 1, "a": 2}}))
        );
        assert_ne!(
            fp(serde_json::json!({})),
            fp(serde_json::json!({"graceSeconds": 0}))
        );
        assert_ne!(
            fp(serde_json::json!({"a": "1"})),
            fp(serde_json::json!({"a": 1}))
        );
    }
}
