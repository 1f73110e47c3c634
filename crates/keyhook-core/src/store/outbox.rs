//! Events and the deliveries queued for them: [`OutboxQueries`], [`DeliveryState`].

use super::StoreResult;
use crate::time::Timestamp;

/// Events and the deliveries queued for them.
pub trait OutboxQueries {
    /// Records an event of `user`, about `profile` (`None`: user-wide).
    fn insert_event(
        &self,
        id: &str,
        user: &str,
        event: &str,
        profile: Option<&str>,
        payload: &[u8],
        now: Timestamp,
    ) -> StoreResult<()>;
    /// Queues one delivery for each `(event id, webhook id)` of `deliveries` (chosen by
    /// `service::routing`: a fan-out's one event to many webhooks, a replay's many events to
    /// one webhook), due at `now`, in one statement, in that order; returns how many.
    fn insert_deliveries(&self, deliveries: &[(&str, &str)], now: Timestamp) -> StoreResult<usize>;
    /// Whether any delivery is due at `now` that a worker for `only` claims
    /// (`crate::claimable_sql!`: `None`, every webhook but the ephemeral ones; `Some(id)`,
    /// that webhook's alone).
    fn any_due(&self, now: Timestamp, only: Option<&str>) -> StoreResult<bool>;
    /// Leases, in due order, up to `limit` due deliveries until `lease_until`, of the webhooks
    /// `only` says (as in [`OutboxQueries::any_due`]), each while the payloads of those before
    /// it come to less than `bytes`: the first due one whenever `bytes` is above zero (a claim
    /// never stalls on a large event), and at most one payload past `bytes` in all. A worker
    /// holds what it claims in memory until it settles it.
    fn claim_due_within(
        &self,
        now: Timestamp,
        limit: usize,
        bytes: usize,
        lease_until: Timestamp,
        only: Option<&str>,
    ) -> StoreResult<Vec<Claimed>>;
    /// Ends a delivery in `state` (one of [`DeliveryState::FINISHED`]); `attempted` says
    /// whether an attempt was made. [`OutboxQueries::finish_deliveries`] of one.
    fn finish_delivery(
        &self,
        id: &str,
        state: DeliveryState,
        attempted: bool,
        now: Timestamp,
    ) -> StoreResult<()> {
        self.finish_deliveries(&[id], state, attempted, now)
    }
    /// Ends each delivery of `ids` as [`OutboxQueries::finish_delivery`] does, in one
    /// statement (the worker's delivered ones of a batch).
    fn finish_deliveries(
        &self,
        ids: &[&str],
        state: DeliveryState,
        attempted: bool,
        now: Timestamp,
    ) -> StoreResult<()>;
    /// [`OutboxQueries::finish_deliveries`] of deliveries as this backend's claim returned
    /// them: a backend may find each where the claim found it ([`Claimed::row`]), as long as
    /// the id there is still its id, and by its id otherwise.
    fn finish_claimed(
        &self,
        claimed: &[&Claimed],
        state: DeliveryState,
        attempted: bool,
        now: Timestamp,
    ) -> StoreResult<()> {
        finish_claimed_by_id(self, claimed, state, attempted, now)
    }
    fn retry_delivery(&self, id: &str, next_at: Timestamp, now: Timestamp) -> StoreResult<()>;
    /// Moves the lease of each delivery in `ids` that is still pending and leased to
    /// `until`. The worker renews the leases of what it is still sending, so a short lease
    /// covers a long request, and the deliveries of a worker that died are free again soon.
    fn renew_leases(&self, ids: &[&str], until: Timestamp) -> StoreResult<()>;
    /// A receiver's `Retry-After` (CONTRACT §15): the webhook's deliveries are held until
    /// `until` (never earlier than a hold already set): no claim takes one before then
    /// (`crate::unheld_sql!`), and its pending deliveries not leased are made due then.
    fn hold_webhook(&self, webhook_id: &str, until: Timestamp, now: Timestamp) -> StoreResult<()>;
    /// Puts a claimed delivery back unsent (no attempt counted), due at `at` at the earliest.
    fn release_delivery(&self, id: &str, at: Timestamp, now: Timestamp) -> StoreResult<()>;
    /// Inside the claim's write transaction: the token buckets of `webhook_ids` (sorted,
    /// distinct), each locked until the transaction ends (`FOR UPDATE` on PostgreSQL, so
    /// claims on every instance take tokens one after another), a missing one made (full).
    fn lock_rate_buckets(
        &self,
        webhook_ids: &[&str],
        now: Timestamp,
    ) -> StoreResult<Vec<RateBucket>>;
    /// Forgets the webhook's token bucket: its rate changed, and the next claim starts a
    /// full bucket of the new one.
    fn reset_rate_bucket(&self, webhook_id: &str) -> StoreResult<()>;
    /// Writes the buckets back (after [`OutboxQueries::lock_rate_buckets`]).
    fn write_rate_buckets(&self, buckets: &[RateBucket]) -> StoreResult<()>;
    /// Inside the claim's write transaction: gives back deliveries it leased and will not
    /// send (over their webhook's rate), due as they were.
    fn unlease(&self, ids: &[&str]) -> StoreResult<()>;
    /// The webhook is no longer ordered: its parked deliveries ([`PARKED`]) are due at `now`.
    fn unpark_queue(&self, webhook_id: &str, now: Timestamp) -> StoreResult<()>;
    /// The head of the ordered webhook's queue ([`crate::queue_heads_sql!`]) when it has
    /// been attempted and failed (it waits for a retry, or is being retried), with how many
    /// pending deliveries wait behind it: what `webhooks deliveries` shows as holding the
    /// queue. `None` for an unordered webhook, an empty queue, or a head not yet attempted.
    fn queue_holder(&self, webhook_id: &str) -> StoreResult<Option<(String, i64)>>;
}

/// The `next_attempt_at` of a delivery of an ordered webhook that waits for its turn
/// (`crate::parked_sql!`): later than any time, so only the claim of the head of its queue
/// takes it. Never shown: a delivery's times are its attempts'.
pub const PARKED: i64 = i64::MAX;

/// The state of a delivery, stored as [`DeliveryState::as_str`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DeliveryState {
    /// Queued: due at its `next_attempt_at`, or waiting for a retry.
    Pending,
    Delivered,
    /// No attempts left, or the receiver answered 410 Gone.
    Failed,
    /// Its webhook was disabled (or deleted) before it was sent.
    Cancelled,
}

impl DeliveryState {
    pub const ALL: [DeliveryState; 4] = [
        DeliveryState::Pending,
        DeliveryState::Delivered,
        DeliveryState::Failed,
        DeliveryState::Cancelled,
    ];
    /// The states a delivery ends in: retention may delete a delivery in one of these.
    pub const FINISHED: [DeliveryState; 3] = [
        DeliveryState::Delivered,
        DeliveryState::Failed,
        DeliveryState::Cancelled,
    ];
    /// The states `replay --failed-only` replays (with a pending delivery that has failed
    /// at least once, [`ReplaySelection`]).
    pub const REPLAYED_AS_FAILED: [DeliveryState; 2] =
        [DeliveryState::Failed, DeliveryState::Cancelled];

    /// The stored name, as the `deliveries.state` column holds it.
    pub fn as_str(self) -> &'static str {
        match self {
            DeliveryState::Pending => "pending",
            DeliveryState::Delivered => "delivered",
            DeliveryState::Failed => "failed",
            DeliveryState::Cancelled => "cancelled",
        }
    }

    /// `states` as an SQL literal list, `('failed', 'cancelled')`: how both backends render
    /// the core's sets of states into their statements. The names are this enum's own
    /// constants, never input.
    pub fn sql_list(states: &[DeliveryState]) -> String {
        let names: Vec<String> = states.iter().map(|s| format!("'{}'", s.as_str())).collect();
        format!("({})", names.join(", "))
    }
}

/// [`OutboxQueries::finish_claimed`] by the deliveries' ids alone: its default, and what a
/// backend that finds them otherwise falls back on.
pub fn finish_claimed_by_id<Q: OutboxQueries + ?Sized>(
    q: &Q,
    claimed: &[&Claimed],
    state: DeliveryState,
    attempted: bool,
    now: Timestamp,
) -> StoreResult<()> {
    let ids: Vec<&str> = claimed.iter().map(|d| d.delivery_id.as_str()).collect();
    q.finish_deliveries(&ids, state, attempted, now)
}

/// A delivery taken by a worker, with what it needs to send it; where to and with which
/// secrets is read right before the request ([`SecretQueries::signing`]).
#[derive(Debug, Clone)]
pub struct Claimed {
    pub delivery_id: String,
    pub event_id: String,
    pub event: String,
    /// The event's profile (`None`: user-wide).
    pub profile_id: Option<String>,
    pub payload: Vec<u8>,
    /// Attempts made before this one.
    pub attempts: i64,
    pub webhook_id: String,
    pub webhook_active: bool,
    /// An earlier claim's lease had run out unsettled: the worker that held it stopped (or
    /// could not look at the webhook) before settling it, and this claim recovers it.
    pub recovered: bool,
    /// The webhook's own retry schedule (its stored JSON list) and timeout, as claimed
    /// (CONTRACT §15); `None`: serve's.
    pub retry_schedule: Option<String>,
    pub timeout_ms: Option<i64>,
    /// The webhook's `--rate` as stored (`5/s`), if it has one.
    pub rate: Option<String>,
    /// Where the claim found the row, for a backend that has a faster way to it than its id
    /// (SQLite's `rowid`); a statement that goes there checks the id
    /// ([`OutboxQueries::finish_claimed`]). `None`: by the id.
    pub row: Option<i64>,
}

/// A webhook's token bucket (`--rate`, CONTRACT §15): one row per rated webhook, locked and
/// written in the transaction of the claim that takes its tokens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RateBucket {
    pub webhook_id: String,
    /// The tokens left at `at`, in thousandths; `None`: a full bucket (never used).
    pub millitokens: Option<i64>,
    pub at: Timestamp,
    /// When the next whole token is there, if none was left: no claim takes a delivery of
    /// the webhook before then (`crate::unheld_sql!`).
    pub next_at: Option<Timestamp>,
}
