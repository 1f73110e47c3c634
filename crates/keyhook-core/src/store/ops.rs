//! What `serve`'s `/healthz` and `/metrics` ask the database: [`OpsQueries`].

use super::StoreResult;
use crate::time::Timestamp;

/// What `serve`'s `/healthz` and `/metrics` ask the database.
pub trait OpsQueries {
    /// One real read of the database (its schema), for `/healthz`: fails when the database
    /// does not answer.
    fn ping(&self) -> StoreResult<()>;
    /// The deliveries still pending (due or waiting for a retry, leased or not) and the
    /// creation time of the oldest of them, for `keyhook_outbox_pending` and
    /// `keyhook_outbox_oldest_pending_age_seconds`.
    fn outbox_backlog(&self) -> StoreResult<(u64, Option<Timestamp>)>;
}
