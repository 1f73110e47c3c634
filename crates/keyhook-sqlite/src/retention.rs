//! Retention (pruning by age, batch by batch) and the recent attempts of the history line.
//! Each prune step deletes at most `limit` rows in one statement, using the age indexes of
//! the retention migration, so a batch is short whatever the tables hold.

use rusqlite::params;

use super::Conn;
use crate::error::sql;
use crate::time::Timestamp;
use keyhook_core::store::{AttemptMark, HistoryQueries, RetentionQueries, StoreResult};

impl Conn {
    /// One batch: `statement` deletes at most `?2` rows older than `?1`; how many it did.
    pub(crate) fn prune(
        &self,
        statement: &str,
        cutoff: Timestamp,
        limit: usize,
    ) -> StoreResult<u64> {
        sql(|| {
            let limit = i64::try_from(limit).unwrap_or(i64::MAX);
            let n = self
                .0
                .prepare_cached(statement)?
                .execute(params![cutoff.0, limit])?;
            Ok(n as u64)
        })
    }
}

impl RetentionQueries for Conn {
    fn prune_attempts(&self, cutoff: Timestamp, limit: usize) -> StoreResult<u64> {
        self.prune(
            concat!(
                "DELETE FROM delivery_attempts WHERE id IN (
                SELECT id FROM delivery_attempts WHERE ",
                keyhook_core::before_sql!("attempted_at", "?1"),
                "
                ORDER BY attempted_at LIMIT ?2)"
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
                keyhook_core::prunable_delivery_sql!("?1"),
                "
                ORDER BY updated_at LIMIT ?2)"
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
                keyhook_core::prunable_event_sql!("e", "?1"),
                "
                ORDER BY e.created_at LIMIT ?2)"
            ),
            cutoff,
            limit,
        )
    }
}

impl HistoryQueries for Conn {
    /// Per webhook, the attempts from its `per_webhook`th newest on: one index search for
    /// that bound and one range of `delivery_attempts_webhook`, however long the log is (a
    /// skip, `service::routing`, is no attempt: the line leaves it out).
    fn recent_attempts(
        &self,
        user: &str,
        webhook_id: Option<&str>,
        per_webhook: i64,
    ) -> StoreResult<Vec<AttemptMark>> {
        sql(|| {
            let mut stmt = self.0.prepare_cached(
                "SELECT a.webhook_id, a.delivered, a.duration_ms
                 FROM webhooks w
                 JOIN delivery_attempts a ON a.webhook_id = w.id AND a.skipped IS NULL
                  AND a.id >= coalesce((SELECT x.id FROM delivery_attempts x
                                        WHERE x.webhook_id = w.id AND x.skipped IS NULL
                                        ORDER BY x.id DESC LIMIT 1 OFFSET ?3 - 1), 0)
                 WHERE w.user_id = ?1 AND (?2 IS NULL OR w.id = ?2)
                 ORDER BY a.webhook_id, a.id",
            )?;
            let rows = stmt.query_map(params![user, webhook_id, per_webhook.max(1)], |r| {
                Ok(AttemptMark {
                    webhook_id: r.get(0)?,
                    delivered: r.get(1)?,
                    duration_ms: r.get(2)?,
                })
            })?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
    }
}
