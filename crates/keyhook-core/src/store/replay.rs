//! Replay's fresh deliveries of past events: [`ReplayQueries`].

use super::StoreResult;
use crate::time::Timestamp;

/// Replay (`webhooks replay`, POST /webhooks/{id}/replay): fresh deliveries of past events.
pub trait ReplayQueries {
    /// The name and profile of `user`'s event `event_id`, or None when `user` has no such
    /// event.
    fn event_of(&self, user: &str, event_id: &str)
        -> StoreResult<Option<(String, Option<String>)>>;
    /// At most `limit` of the events `sel` selects that come after `after` (the
    /// `(created_at, id)` of the last one of the previous page; from the first when `None`),
    /// in `(created_at, id)` order (the order of the index on `(user_id, created_at)`): the
    /// candidates `service::routing::replay` judges, in pages. Without `payloads`, each
    /// [`ReplayCandidate::payload`] is left empty, unread (only a webhook's filter reads it).
    fn replay_candidates(
        &self,
        sel: &ReplaySelection<'_>,
        after: Option<(Timestamp, &str)>,
        limit: usize,
        payloads: bool,
    ) -> StoreResult<Vec<ReplayCandidate>>;
    /// `replay --failed-only`: makes due at `now` the deliveries to the webhook of the
    /// events `sel` selects that failed and wait for their next retry, not leased
    /// (`crate::waiting_retry_sql!`), instead of a second copy being queued beside them;
    /// returns how many.
    fn replay_retry_now(&self, sel: &ReplaySelection<'_>, now: Timestamp) -> StoreResult<usize>;
}

/// An event a replay may queue: what [`ReplayQueries::replay_candidates`] returns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplayCandidate {
    pub id: String,
    pub created_at: Timestamp,
    pub event: String,
    pub profile_id: Option<String>,
    pub payload: Vec<u8>,
}

/// What a replay selects: the user's events named one of `names`, either the one named
/// (`event_id`) or all created at or after `since`; with `failed_only`, only those whose newest
/// delivery to this webhook ended in one of [`DeliveryState::REPLAYED_AS_FAILED`]
/// ([`ReplayQueries::replay_candidates`]), and those whose delivery failed and waits for its
/// next retry ([`ReplayQueries::replay_retry_now`]). Who receives which of them is
/// `service::routing`'s to say: `names` (the webhook's subscription, as routing hands it)
/// only narrows the scan to the events routing can take, on an index.
pub struct ReplaySelection<'a> {
    pub webhook_id: &'a str,
    pub user: &'a str,
    pub since: Timestamp,
    pub event_id: Option<&'a str>,
    pub failed_only: bool,
    pub names: &'a [String],
}
