//! Retention's batch deletes, one per prunable table: [`RetentionQueries`].

use super::StoreResult;
use crate::time::Timestamp;

/// Retention: each prunable table's batch step, one per table, so that the pruning service
/// (`service::retention::STEPS`) lists them and a new prunable table is one more method and
/// one more line there. Each step deletes at most `limit` rows older than `cutoff` (strictly
/// before it) and returns how many it deleted; the caller runs each batch in its own short
/// write transaction and repeats until a batch deletes fewer than `limit`.
pub trait RetentionQueries {
    /// Attempts whose `attempted_at` is before `cutoff` (test pings included).
    fn prune_attempts(&self, cutoff: Timestamp, limit: usize) -> StoreResult<u64>;
    /// Finished deliveries (`delivered`, `failed`, `cancelled`) whose `updated_at` (when they
    /// finished) is before `cutoff`; a pending delivery never, however old.
    fn prune_deliveries(&self, cutoff: Timestamp, limit: usize) -> StoreResult<u64>;
    /// Events whose `created_at` is before `cutoff` and that no delivery refers to any more
    /// (so never one with a pending delivery, nor one whose delivery is still kept).
    fn prune_events(&self, cutoff: Timestamp, limit: usize) -> StoreResult<u64>;
}
