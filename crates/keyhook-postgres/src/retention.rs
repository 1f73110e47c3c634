//! Retention and the history line's recent attempts: `keyhook-sqlite/src/retention.rs`, in
//! PostgreSQL. Each batch selects its rows `FOR UPDATE SKIP LOCKED`, so two instances
//! pruning at once split the work instead of waiting for each other, and a row another
//! transaction holds (a delivery being settled, an event a new delivery refers to) is left
//! for the next pass.

use super::PgStore;
use keyhook_core::store::{AttemptMark, HistoryQueries, RetentionQueries, StoreResult};
use keyhook_core::time::Timestamp;

impl PgStore {
    /// One batch: `statement` deletes at most `$2` rows older than `$1`; how many it did.
    pub(crate) fn prune(
        &self,
        statement: &str,
        cutoff: Timestamp,
        limit: usize,
    ) -> StoreResult<u64> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.run(|s| Ok(s.execute(statement, &[&cutoff.0, &limit])?))
    }
}

impl RetentionQueries for PgStore {
    fn prune_attempts(&self, cutoff: Timestamp, limit: usize) -> StoreResult<u64> {
        self.prune(
            concat!(
                "DELETE FROM delivery_attempts WHERE id IN (
                SELECT id FROM delivery_attempts WHERE ",
                keyhook_core::before_sql!("attempted_at", "$1"),
                "
                ORDER BY attempted_at LIMIT $2 FOR UPDATE SKIP LOCKED)"
            ),
            cutoff,
            limit,
        )
    }

    fn prune_deliveries(&self, cutoff: Timestamp, limit: usize) -> StoreResult<u64> {
        self.prune(
            concat!(
                "DELETE FROM deliveries WHERE id IN (
                SELECT id FROM deliveries WHERE ",
                keyhook_core::prunable_delivery_sql!("$1"),
                "
                ORDER BY updated_at LIMIT $2 FOR UPDATE SKIP LOCKED)"
            ),
            cutoff,
            limit,
        )
    }

    fn prune_events(&self, cutoff: Timestamp, limit: usize) -> StoreResult<u64> {
        self.prune(
            concat!(
                "DELETE FROM events WHERE id IN (
                SELECT e.id FROM events e WHERE ",
                keyhook_core::prunable_event_sql!("e", "$1"),
                "
                ORDER BY e.created_at LIMIT $2 FOR UPDATE SKIP LOCKED)"
            ),
            cutoff,
            limit,
        )
    }
}

impl HistoryQueries for PgStore {
    fn recent_attempts(
        &self,
        user: &str,
        webhook_id: Option<&str>,
        per_webhook: i64,
    ) -> StoreResult<Vec<AttemptMark>> {
        let per_webhook = per_webhook.max(1);
        self.run(|s| {
            let rows = s.query(
                "SELECT w.id, a.delivered, a.duration_ms
                 FROM webhooks w
                 CROSS JOIN LATERAL (
                    SELECT x.id, x.delivered, x.duration_ms FROM delivery_attempts x
                    WHERE x.webhook_id = w.id AND x.skipped IS NULL
                    ORDER BY x.id DESC LIMIT $3) a
                 WHERE w.user_id = $1 AND ($2::text IS NULL OR w.id = $2)
                 ORDER BY w.id, a.id",
                &[&user, &webhook_id, &per_webhook],
            )?;
            rows.iter()
                .map(|r| {
                    Ok(AttemptMark {
                        webhook_id: r.try_get(0)?,
                        delivered: r.try_get(1)?,
                        duration_ms: r.try_get(2)?,
                    })
                })
                .collect()
        })
    }
}
