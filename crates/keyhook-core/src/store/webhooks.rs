//! Webhooks, their failure counters and their attempt logs: [`WebhookQueries`].

use super::{Listed, StoreResult};
use crate::model::{DeliveryAttempt, Webhook};
use crate::time::Timestamp;

/// Webhooks and their attempt logs.
pub trait WebhookQueries {
    fn count_webhooks(&self, user: &str) -> StoreResult<i64>;
    fn insert_webhook(&self, w: &Webhook) -> StoreResult<()>;
    /// Webhooks of `user`, oldest first.
    fn list_webhooks(&self, user: &str) -> StoreResult<Vec<Webhook>>;
    /// [`list_webhooks`](WebhookQueries::list_webhooks), shared: a backend that holds the
    /// list already (read with the key) answers with it, not a copy.
    fn listed_webhooks(&self, user: &str) -> StoreResult<Listed<Webhook>> {
        self.list_webhooks(user).map(Listed::new)
    }
    fn webhook(&self, user: &str, id: &str) -> StoreResult<Option<Webhook>>;
    /// At most `limit` webhooks of `user` whose id starts with `prefix`.
    fn webhooks_by_id_prefix(
        &self,
        user: &str,
        prefix: &str,
        limit: i64,
    ) -> StoreResult<Vec<Webhook>>;
    fn update_webhook(&self, w: &Webhook) -> StoreResult<()>;
    /// Returns whether a webhook was deleted (its deliveries and attempts go with it).
    fn delete_webhook(&self, id: &str) -> StoreResult<bool>;
    /// The webhook's failure counter, its row locked until the write transaction ends (so
    /// concurrent attempts each count once and the threshold is never skipped), or `None`
    /// when the webhook no longer exists. The service decides what an attempt does to it
    /// (`service::webhooks::count_attempt`) and writes it back with [`Self::set_fail_counter`].
    fn lock_fail_counter(&self, webhook_id: &str) -> StoreResult<Option<FailCounter>>;
    /// Writes `fail_count`, `is_active`, `disabled_reason` and `updated_at` from `c`.
    fn set_fail_counter(&self, webhook_id: &str, c: &FailCounter) -> StoreResult<()>;
    /// Appends attempts to their webhooks' logs, in order (the caller has locked the
    /// webhooks' rows), or skips ([`AttemptRecord::skipped`]: a row of its own in the
    /// deliveries list, never sent, never pending). When one cannot be written the call fails
    /// and the caller's write transaction rolls back: all of them or none.
    fn insert_attempts(&self, rows: &[AttemptRecord<'_>]) -> StoreResult<()>;
    /// Every webhook with a filter, of every user, as `(id, user, filter)`, in id order
    /// (`serve`'s check at start of the filters stored by an older keyhook).
    fn webhook_filters(&self) -> StoreResult<Vec<(String, String, String)>>;
    /// The newest `limit` attempts to deliver to the webhook (and skips), newest first.
    fn attempts(&self, webhook_id: &str, limit: i64) -> StoreResult<Vec<DeliveryAttempt>>;
    /// Writes `at` as the heartbeat of the ephemeral webhook `id`; false when it is gone.
    fn beat_listener(&self, id: &str, at: Timestamp) -> StoreResult<bool>;
    /// The ephemeral webhooks whose last heartbeat is before `cutoff`
    /// (`crate::stale_listener_sql!`), oldest first.
    fn stale_listeners(&self, cutoff: Timestamp) -> StoreResult<Vec<Webhook>>;
}

/// A webhook's failure counter as the store saw it under the row's lock
/// ([`WebhookQueries::lock_fail_counter`]), and as the service writes it back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FailCounter {
    pub user_id: String,
    pub is_active: bool,
    pub fail_count: i64,
    /// Set when the webhook was disabled automatically (`service::webhooks::GONE_REASON`,
    /// `service::webhooks::failures_reason`); cleared by an enable.
    pub disabled_reason: Option<String>,
    pub updated_at: Timestamp,
}

/// What one attempt did, to be logged and counted.
#[derive(Debug, Clone)]
pub struct AttemptRecord<'a> {
    pub webhook_id: &'a str,
    pub delivery_id: Option<&'a str>,
    pub event_id: &'a str,
    pub event: &'a str,
    pub attempt: i64,
    pub attempted_at: Timestamp,
    pub delivered: bool,
    pub status_code: u16,
    pub status_text: &'a str,
    pub duration_ms: i64,
    pub response_excerpt: &'a str,
    /// Set for a skip: the event was not sent because the webhook's filter could not judge
    /// it (the kind of error, no value of the data; `service::routing`).
    pub skipped: Option<&'a str>,
}

impl<'a> AttemptRecord<'a> {
    /// The row that records in the webhook's deliveries list that the event `event_id`
    /// (named `event`) was skipped for it at `at`, because its filter could not judge it
    /// (`kind`: the kind of error, no value of the data): never sent, never pending.
    pub fn skip(
        webhook_id: &'a str,
        event_id: &'a str,
        event: &'a str,
        kind: &'a str,
        at: Timestamp,
    ) -> AttemptRecord<'a> {
        AttemptRecord {
            webhook_id,
            delivery_id: None,
            event_id,
            event,
            attempt: 0,
            attempted_at: at,
            delivered: false,
            status_code: 0,
            status_text: "skipped",
            duration_ms: 0,
            response_excerpt: "",
            skipped: Some(kind),
        }
    }

    /// Whether the receiver answered 410 Gone ([`crate::transport::gone`]), which disables
    /// the webhook at once whatever its `failCount` (`service::webhooks::count_attempt`).
    pub fn gone(&self) -> bool {
        crate::transport::gone(self.delivered, self.status_code)
    }
}
