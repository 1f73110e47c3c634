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
    /// Leases up to `limit` due deliveries until `lease_until`, of the webhooks `only` says
    /// (as in [`OutboxQueries::any_due`]). [`OutboxQueries::claim_due_within`] without a
    /// bound on their payloads.
    fn claim_due(
        &self,
        now: Timestamp,
        limit: usize,
        lease_until: Timestamp,
        only: Option<&str>,
    ) -> StoreResult<Vec<Claimed>> {
        self.claim_due_within(now, limit, usize::MAX, lease_until, only)
    }
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
    fn retry_delivery(&self, id: &str, next_at: Timestamp, now: Timestamp) -> StoreResult<()>;
    /// Moves the lease of each delivery in `ids` that is still pending and leased to
    /// `until`. The worker renews the leases of what it is still sending, so a short lease
    /// covers a long request, and the deliveries of a worker that died are free again soon.
    fn renew_leases(&self, ids: &[&str], until: Timestamp) -> StoreResult<()>;
    /// Deliveries per state.
    fn delivery_counts(&self) -> StoreResult<Vec<(String, i64)>>;
}

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
}
