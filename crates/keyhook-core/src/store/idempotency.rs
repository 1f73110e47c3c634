//! `Idempotency-Key`s of events and of requests: [`IdempotencyQueries`].

use super::StoreResult;
use crate::model::EventAccepted;
use crate::time::Timestamp;

/// Idempotency keys of `POST /events` (`Idempotency-Key`, `events emit --idempotency-key`).
/// A key is held per user and per profile (`first.profile_id`; user-wide events have a
/// space of their own), so the event returned is always of the profile asked for.
pub trait IdempotencyQueries {
    /// Inside a write transaction: takes `(user, first.profile_id, key)` for the event
    /// `first`, unless a record created after `stale_before` holds it, which is returned
    /// instead (and nothing is written). A record created at or before `stale_before` is
    /// replaced. On a backend without a whole-database write lock, a concurrent transaction
    /// taking the same key waits for this one and then sees its record.
    fn claim_idempotency_key(
        &self,
        user: &str,
        key: &str,
        first: &EventAccepted,
        stale_before: Timestamp,
    ) -> StoreResult<Option<EventAccepted>>;
    /// Records how many deliveries the event that took `(user, profile, key)` queued.
    fn set_idempotency_deliveries(
        &self,
        user: &str,
        profile: Option<&str>,
        key: &str,
        deliveries: usize,
    ) -> StoreResult<()>;
    /// Deletes at most `limit` records created before `before`; returns how many. For the
    /// retention machinery, in small batches.
    fn prune_idempotency(&self, before: Timestamp, limit: usize) -> StoreResult<u64>;

    /// Inside a write transaction: takes `(claim.user, claim.route, claim.target, claim.key)`
    /// for the request `claim` (with no response yet), unless a record holds it that was
    /// created after `stale_before`, or that has no response and was created after
    /// `abandoned_before`: that record is returned instead (and nothing is written). Any
    /// other record is replaced. As [`claim_idempotency_key`](Self::claim_idempotency_key),
    /// a concurrent transaction taking the same key waits for this one, then sees its record.
    fn claim_request(
        &self,
        claim: &RequestClaim<'_>,
        stale_before: Timestamp,
        abandoned_before: Timestamp,
    ) -> StoreResult<Option<HeldRequest>>;
    /// Stores the response of the request that took the key as `claim_id`
    /// ([`RequestClaim::id`]); nothing when another request has taken the key since.
    fn answer_request(&self, claim_id: &str, response: &str) -> StoreResult<()>;
    /// Frees the key taken as `claim_id` (its request failed: a repeat acts again).
    fn release_request(&self, claim_id: &str) -> StoreResult<()>;
    /// Deletes at most `limit` request records created before `before`; returns how many.
    fn prune_requests(&self, before: Timestamp, limit: usize) -> StoreResult<u64>;
}

/// A request taking an `Idempotency-Key` (`service::idempotency`): the key is held per user,
/// route and target (a webhook id, or '' for a collection).
#[derive(Debug, Clone, Copy)]
pub struct RequestClaim<'a> {
    /// A new id for this take of the key, which the answer and the release name.
    pub id: &'a str,
    pub user: &'a str,
    pub route: &'a str,
    pub target: &'a str,
    pub key: &'a str,
    /// The SHA-256 (hex) of the request's canonical body.
    pub fingerprint: &'a str,
    pub at: Timestamp,
}

/// The record holding a key: the fingerprint of its request and its response (`None` while
/// the request is in progress).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeldRequest {
    pub fingerprint: String,
    pub response: Option<String>,
    pub created_at: Timestamp,
}
