//! The audit log: [`AuditQueries`].

use super::StoreResult;
use crate::model::AuditEntry;
use crate::time::Timestamp;

/// The audit log (`service::audit`).
pub trait AuditQueries {
    /// Appends `e` (its `id` is ignored: the store numbers entries in the order appended).
    fn insert_audit(&self, e: &AuditEntry) -> StoreResult<()>;
    /// At most `limit` entries of `user` (of every user when `None`) at or after `since`,
    /// newest first (by `at`, then `id`), and older than `before` (`(at, id)` of the last
    /// entry of a previous page) when given.
    fn list_audit(
        &self,
        user: Option<&str>,
        since: Option<Timestamp>,
        before: Option<(Timestamp, i64)>,
        limit: i64,
    ) -> StoreResult<Vec<AuditEntry>>;
    /// Deletes at most `limit` of the oldest entries from before `before`; returns how many.
    /// Retention calls it in batches until it returns less than `limit`, so no transaction
    /// holds the write lock long.
    fn prune_audit(&self, before: Timestamp, limit: usize) -> StoreResult<u64>;
}
