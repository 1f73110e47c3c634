//! keyhook's own events (CONTRACT §10), emitted in the transaction of what they report:
//! `webhook.disabled` `{webhookId, url, reason, failCount}` when a webhook is disabled (the
//! automatic disable after [`super::webhooks::DISABLE_AFTER_FAILURES`] failures, a 410 Gone,
//! or `webhooks disable` / PATCH `isActive: false`), and `delivery.exhausted`
//! `{webhookId, eventId, attempts, lastStatus}` when a delivery gives up (its retries spent,
//! or a 410 Gone).
//!
//! They are user-wide (`profileId` null), signed and delivered like any other event, to the
//! same user's OTHER active webhooks that subscribe to them, whose scope covers the webhook
//! they are about (a webhook limited to profiles hears only about webhooks whose profiles are
//! all its own), and whose filter admits them: `service::routing` decides. Never to the webhook
//! itself; and a delivery of an operational event never causes another one, so a user whose
//! every webhook fails gets no loop: each webhook is disabled once, and that is reported to
//! the others, whose own failures to receive it report nothing.

use serde_json::{json, Value};

use super::events::{self, OPERATIONAL};
use super::routing;
use crate::error::Result;
use crate::model::Webhook;
use crate::redact;
use crate::store::Conn;
use crate::time::Timestamp;

/// `webhook.disabled`.
pub const WEBHOOK_DISABLED: &str = OPERATIONAL[0];
/// `delivery.exhausted`.
pub const DELIVERY_EXHAUSTED: &str = OPERATIONAL[1];
/// The `reason` of a `webhook.disabled` sent for `webhooks disable` or PATCH `isActive:
/// false` (the automatic disables give the reason they store: `webhooks::GONE_REASON`,
/// `webhooks::failures_reason`).
pub const MANUAL_REASON: &str = "disabled manually";

/// Whether `event` is one of keyhook's own: its deliveries cause no operational event.
pub use super::event_types::is_operational;

/// `webhook.disabled` about `w` (already disabled, as stored), with `reason`.
pub fn webhook_disabled(c: Conn<'_>, w: &Webhook, reason: &str, now: Timestamp) -> Result<usize> {
    let data = json!({
        "webhookId": w.id,
        "url": redact::url(&w.url),
        "reason": reason,
        "failCount": w.fail_count,
    });
    emit(c, w, WEBHOOK_DISABLED, &data, now)
}

/// `delivery.exhausted` about the delivery of `event_id` (named `event`) to `webhook_id`,
/// given up after `attempts` attempts, the last answered `last_status` (0: no response).
/// Nothing when `event` is itself operational, or the webhook is gone.
pub fn delivery_exhausted(
    c: Conn<'_>,
    webhook_id: &str,
    event_id: &str,
    event: &str,
    attempts: i64,
    last_status: u16,
    now: Timestamp,
) -> Result<usize> {
    if is_operational(event) {
        return Ok(0);
    }
    let Some(user) = c.lock_fail_counter(webhook_id)?.map(|f| f.user_id) else {
        return Ok(0);
    };
    let Some(w) = c.webhook(&user, webhook_id)? else {
        return Ok(0);
    };
    let data = json!({
        "webhookId": webhook_id,
        "eventId": event_id,
        "attempts": attempts,
        "lastStatus": last_status,
    });
    emit(c, &w, DELIVERY_EXHAUSTED, &data, now)
}

/// Records the event and queues it for each webhook of `about`'s user that receives it
/// (`service::routing`: the operational event's reach is `about`); records nothing when no
/// webhook receives it nor is skipped for it. Returns how many deliveries were queued.
fn emit(c: Conn<'_>, about: &Webhook, event: &str, data: &Value, now: Timestamp) -> Result<usize> {
    let user = &about.user_id;
    let candidates = c.list_webhooks(user)?;
    let e = routing::Event::about(event, about, data);
    let choice = routing::choose(&candidates, &e);
    if choice.is_empty() {
        return Ok(0);
    }
    let id = events::new_event_id();
    let body = events::payload(&id, event, None, now, data);
    c.insert_event(&id, user, event, None, &body, now)?;
    let routed = routing::queue(c, &id, event, &choice, now)?;
    // In the transaction of what the event reports (a disable, a give-up), which commits
    // after this returns: the skips are counted and logged now.
    routing::note(&routed.skips);
    Ok(routed.queued)
}
