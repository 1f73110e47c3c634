//! A webhook's secret rotation: the new secret, the old one's grace period, and its end.

use crate::service::audit::{self, Action, Entry};

use crate::service::input::Problems;

use crate::service::{Actor, Operation};

use super::{find, first_webhook};
use crate::error::Result;
use crate::model::Webhook;
use crate::service::idempotency::{self, Idempotent, Keyed};
use crate::service::Publish;
use crate::sign;
use crate::store::{Conn, Store};
use crate::time::Timestamp;

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
    /// The request's `Idempotency-Key` with its body (`service::idempotency`): a repeat within
    /// 24 hours rotates nothing and answers the webhook as it is now (its secret in force). `None` on the command line.
    pub idempotency: Option<Idempotent>,
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
    publish: Publish<'_, Webhook>,
) -> Result<Webhook> {
    actor.may(Operation::RotateWebhookSecret, None)?;
    input.problems.into_result(&["graceSeconds", "body"])?;
    let grace = input.grace.unwrap_or_default();
    let secret = sign::generate_secret();
    let idem = input.idempotency.as_ref();
    store.write(|c| {
        let mut w = find(c, actor, id)?;
        let op = Operation::RotateWebhookSecret;
        let first = |c: Conn<'_>, r: &str| first_webhook(c, actor, r);
        let taken = match idempotency::begin(c, actor, op, &w.id, idem, now, first)? {
            Keyed::Act(taken) => taken,
            Keyed::Answered(w) => return Ok(w),
        };
        let until = grace.until(now);
        // What the webhook signs with is rotated: its HMAC secret, its Ed25519 key pair, or
        // both (CONTRACT §15), each keeping the one it replaces for the same grace period.
        c.drop_expired_secrets(now)?;
        if w.signing.hmac() {
            let previous = (grace.seconds() > 0).then_some((w.secret.as_str(), until));
            c.set_secret(&w.id, &secret, previous, now)?;
            w.secret = secret;
        }
        if w.signing.ed25519() {
            let (private, public) = sign::generate_signing_key();
            let previous = w
                .private
                .signing_key
                .as_deref()
                .filter(|_| grace.seconds() > 0)
                .map(|k| (k, until));
            c.set_signing_key(&w.id, &private, &public, previous, now)?;
            w.private.signing_key = Some(private);
            w.public_key = Some(public);
        }
        w.updated_at = now;
        let details = serde_json::json!({
            "graceSeconds": grace.seconds(),
            "previousSecretUntil": (grace.seconds() > 0).then(|| until.to_rfc3339()),
            "signing": w.signing,
            "publicKey": w.public_key,
        });
        audit::record(
            c,
            now,
            &Entry::by(actor, Action::WebhookSecretRotated, &w.id, details).about(w.scope()),
        )?;
        if let Some(taken) = &taken {
            idempotency::answer(c, taken, &idempotency::webhook_ref(&w.id))?;
        }
        publish.before_commit(c, &w)?;
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
