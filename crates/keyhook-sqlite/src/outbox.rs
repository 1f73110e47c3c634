//! The durable outbox: events, one delivery per subscribed webhook, and leases that let a
//! delivery interrupted by a crash be claimed again once its lease runs out.

use rusqlite::{params, OptionalExtension};

use super::{to_json, Conn};
use crate::error::sql;
use crate::time::Timestamp;
use keyhook_core::store::KeyQueries;
use keyhook_core::store::{
    finish_claimed_by_id, Claimed, DeliveryState, OutboxQueries, RateBucket, StoreResult,
};

impl OutboxQueries for Conn {
    fn insert_event(
        &self,
        id: &str,
        user: &str,
        event: &str,
        profile: Option<&str>,
        payload: &[u8],
        now: Timestamp,
    ) -> StoreResult<()> {
        sql(|| {
            self.ensure_user(user, now)?;
            self.0
                .prepare_cached(
                    "INSERT INTO events (id, user_id, event, payload, created_at, profile_id)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                )?
                .execute(params![id, user, event, payload, now.0, profile])?;
            Ok(())
        })
    }

    /// The pairs travel as one JSON array of `[event id, webhook id]`, read with `json_each`.
    fn insert_deliveries(&self, deliveries: &[(&str, &str)], now: Timestamp) -> StoreResult<usize> {
        let pairs = serde_json::to_string(deliveries).unwrap_or_else(|_| "[]".to_string());
        sql(|| {
            Ok(self
                .0
                .prepare_cached(concat!(
                    "INSERT INTO deliveries (id, event_id, webhook_id, state, attempts,
                        next_attempt_at, created_at, updated_at)
                     SELECT ",
                    new_delivery_id!("?2"),
                    ", json_extract(j.value, '$[0]'), json_extract(j.value, '$[1]'), ",
                    keyhook_core::pending_state_sql!(),
                    // An ordered webhook's delivery is parked: the claim takes it when it is
                    // the head of its queue (`rowid` order: writers take turns).
                    ", 0, CASE WHEN json_extract(j.value, '$[1]') IN
                        (SELECT id FROM webhooks WHERE ordered = 1) THEN ",
                    keyhook_core::parked_sql!(),
                    " ELSE ?2 END, ?2, ?2 FROM json_each(?1) j"
                ))?
                .execute(params![pairs, now.0])?)
        })
    }

    /// Whether any delivery is due and not leased: a read, so that an idle worker does not
    /// take the write lock on every poll.
    fn any_due(&self, now: Timestamp, only: Option<&str>) -> StoreResult<bool> {
        sql(|| {
            Ok(self
                .0
                .prepare_cached(concat!(
                    "SELECT EXISTS (SELECT 1 FROM deliveries d WHERE ",
                    keyhook_core::due_sql!("d.", "?1"),
                    " AND ",
                    keyhook_core::claimable_sql!(dialect, "d.", "?2"),
                    " AND ",
                    keyhook_core::claim_rules_sql!(dialect, "d.", "?1"),
                    ") OR EXISTS (SELECT 1 FROM deliveries d WHERE ",
                    keyhook_core::parked_head_sql!(dialect, "d.", "?1"),
                    " AND ",
                    keyhook_core::claimable_sql!(dialect, "d.", "?2"),
                    ")"
                ))?
                .query_row(params![now.0, only], |r| r.get(0))?)
        })
    }

    /// Leases up to `limit` due deliveries until `lease_until`. Call inside `Store::write`, so
    /// that two workers never take the same delivery.
    ///
    /// Reads the due rows in order and stops at the first that starts past `bytes`.
    fn claim_due_within(
        &self,
        now: Timestamp,
        limit: usize,
        bytes: usize,
        lease_until: Timestamp,
        only: Option<&str>,
    ) -> StoreResult<Vec<Claimed>> {
        sql(|| {
            let mut stmt = self.0.prepare_cached(concat!(
                "SELECT d.id, d.event_id, e.event, e.payload, d.attempts, w.id, w.is_active,
                    e.profile_id, d.lease_until IS NOT NULL, w.retry_schedule, w.timeout_ms, w.rate,
                    d.rowid
                 FROM (
                    SELECT r, at FROM (
                        SELECT d.rowid AS r, d.next_attempt_at AS at FROM deliveries d WHERE ",
                keyhook_core::due_sql!("d.", "?1"),
                " AND ",
                keyhook_core::claimable_sql!(dialect, "d.", "?3"),
                " AND ",
                keyhook_core::claim_rules_sql!(dialect, "d.", "?1"),
                "
                        ORDER BY d.next_attempt_at LIMIT ?2)
                    UNION ALL
                    SELECT d.rowid, d.created_at FROM deliveries d WHERE ",
                keyhook_core::parked_head_sql!(dialect, "d.", "?1"),
                " AND ",
                keyhook_core::claimable_sql!(dialect, "d.", "?3"),
                "
                 ) c
                 JOIN deliveries d ON d.rowid = c.r
                 JOIN events e ON e.id = d.event_id
                 JOIN webhooks w ON w.id = d.webhook_id
                 ORDER BY c.at
                 LIMIT ?2"
            ))?;
            // Each row found again, and leased, by its `rowid`: an integer seek of the table
            // where its text id took a seek of the id's index first.
            let rows = stmt.query_map(params![now.0, limit as i64, only], |r| {
                let rowid: i64 = r.get(12)?;
                let claimed = Claimed {
                    delivery_id: r.get(0)?,
                    event_id: r.get(1)?,
                    event: r.get(2)?,
                    profile_id: r.get(7)?,
                    payload: r.get(3)?,
                    attempts: r.get(4)?,
                    webhook_id: r.get(5)?,
                    webhook_active: r.get(6)?,
                    recovered: r.get(8)?,
                    retry_schedule: r.get(9)?,
                    timeout_ms: r.get(10)?,
                    rate: r.get(11)?,
                    row: Some(rowid),
                };
                Ok((claimed, rowid))
            })?;
            let mut claimed = Vec::new();
            let mut rowids = Vec::new();
            let mut taken = 0usize;
            for row in rows {
                if taken >= bytes {
                    break;
                }
                let (row, rowid) = row?;
                taken = taken.saturating_add(row.payload.len());
                claimed.push(row);
                rowids.push(rowid);
            }
            // One statement leases them all, the rowids as one JSON array (`json_each`), or
            // the one by its rowid (an ordered webhook's head, claimed alone: `json_each` costs
            // a temporary table per statement).
            match rowids.as_slice() {
                [] => {}
                [one] => {
                    self.0
                        .prepare_cached("UPDATE deliveries SET lease_until = ?2 WHERE rowid = ?1")?
                        .execute(params![one, lease_until.0])?;
                }
                _ => {
                    let rowids = serde_json::to_string(&rowids).unwrap_or_else(|_| "[]".into());
                    self.0
                        .prepare_cached(
                            "UPDATE deliveries SET lease_until = ?2
                             WHERE rowid IN (SELECT value FROM json_each(?1))",
                        )?
                        .execute(params![rowids, lease_until.0])?;
                }
            }
            Ok(claimed)
        })
    }

    /// The ids travel as one JSON array, read with `json_each`.
    fn finish_deliveries(
        &self,
        ids: &[&str],
        state: DeliveryState,
        attempted: bool,
        now: Timestamp,
    ) -> StoreResult<()> {
        // One id (an ordered webhook's delivery, settled alone) by itself: `json_each` costs a
        // temporary table per statement.
        let (one, sql_text) = match ids {
            [] => return Ok(()),
            [_] => (
                true,
                "UPDATE deliveries SET state = ?2, attempts = attempts + ?3, lease_until = NULL,
                    updated_at = ?4 WHERE id = ?1",
            ),
            _ => (
                false,
                "UPDATE deliveries SET state = ?2, attempts = attempts + ?3, lease_until = NULL,
                    updated_at = ?4 WHERE id IN (SELECT value FROM json_each(?1))",
            ),
        };
        let ids = if one {
            ids[0].to_string()
        } else {
            to_json(ids)
        };
        sql(|| {
            self.0.prepare_cached(sql_text)?.execute(params![
                ids,
                state.as_str(),
                i64::from(attempted),
                now.0
            ])?;
            Ok(())
        })
    }

    /// By `rowid`, where the claim found each (an integer seek of the table, where an id takes
    /// a seek of the id's index first: a random id a page read of its own in a large outbox),
    /// the id checked there. A row found elsewhere since (the table rebuilt by another
    /// program's `VACUUM`, which may renumber it) is ended by its id.
    fn finish_claimed(
        &self,
        claimed: &[&Claimed],
        state: DeliveryState,
        attempted: bool,
        now: Timestamp,
    ) -> StoreResult<()> {
        let rows: Option<Vec<(i64, &str)>> = claimed
            .iter()
            .map(|d| d.row.map(|r| (r, d.delivery_id.as_str())))
            .collect();
        let Some(rows) = rows.filter(|r| !r.is_empty()) else {
            return finish_claimed_by_id(self, claimed, state, attempted, now);
        };
        let values = (state.as_str(), i64::from(attempted), now.0);
        let missed: Vec<String> = sql(|| {
            if let [(rowid, id)] = rows.as_slice() {
                let ended = self
                    .0
                    .prepare_cached(
                        "UPDATE deliveries SET state = ?3, attempts = attempts + ?4,
                            lease_until = NULL, updated_at = ?5 WHERE rowid = ?1 AND id = ?2",
                    )?
                    .execute(params![rowid, id, values.0, values.1, values.2])?;
                return Ok(if ended == 1 {
                    Vec::new()
                } else {
                    vec![id.to_string()]
                });
            }
            // A list that does not serialize goes by id, rather than as an empty list that
            // would end nothing and say nothing.
            let Ok(list) = serde_json::to_string(&rows) else {
                return Ok(rows.iter().map(|(_, id)| id.to_string()).collect());
            };
            let ended = self
                .0
                .prepare_cached(
                    "UPDATE deliveries SET state = ?2, attempts = attempts + ?3,
                        lease_until = NULL, updated_at = ?4
                     FROM (SELECT value ->> 0 AS r, value ->> 1 AS i FROM json_each(?1)) AS c
                     WHERE deliveries.rowid = c.r AND deliveries.id = c.i",
                )?
                .execute(params![list, values.0, values.1, values.2])?;
            if ended == rows.len() {
                return Ok(Vec::new());
            }
            // Which were not where their claim found them (those ended now are).
            self.0
                .prepare_cached(
                    "SELECT c.value ->> 1 FROM json_each(?1) AS c WHERE NOT EXISTS (
                        SELECT 1 FROM deliveries d
                        WHERE d.rowid = c.value ->> 0 AND d.id = c.value ->> 1)",
                )?
                .query_map([&list], |r| r.get(0))?
                .collect::<rusqlite::Result<_>>()
                .map_err(Into::into)
        })?;
        let missed: Vec<&str> = missed.iter().map(String::as_str).collect();
        self.finish_deliveries(&missed, state, attempted, now)
    }

    /// Puts a failed delivery back in the queue for `next_at`.
    fn retry_delivery(&self, id: &str, next_at: Timestamp, now: Timestamp) -> StoreResult<()> {
        sql(|| {
            self.0
                .prepare_cached(
                    "UPDATE deliveries SET attempts = attempts + 1, next_attempt_at = ?2,
                        lease_until = NULL, updated_at = ?3 WHERE id = ?1",
                )?
                .execute(params![id, next_at.0, now.0])?;
            Ok(())
        })
    }

    fn renew_leases(&self, ids: &[&str], until: Timestamp) -> StoreResult<()> {
        sql(|| {
            let mut renew = self.0.prepare_cached(concat!(
                "UPDATE deliveries SET lease_until = ?2
                 WHERE id = ?1 AND state = ",
                keyhook_core::pending_state_sql!(),
                " AND lease_until IS NOT NULL"
            ))?;
            for id in ids {
                renew.execute(params![id, until.0])?;
            }
            Ok(())
        })
    }

    fn hold_webhook(&self, webhook_id: &str, until: Timestamp, now: Timestamp) -> StoreResult<()> {
        sql(|| {
            self.0
                .prepare_cached(
                    "UPDATE webhooks SET held_until = max(coalesce(held_until, 0), ?2)
                     WHERE id = ?1",
                )?
                .execute(params![webhook_id, until.0])?;
            self.0
                .prepare_cached(concat!(
                    "UPDATE deliveries SET next_attempt_at = ?2, updated_at = ?3
                     WHERE webhook_id = ?1 AND state = ",
                    keyhook_core::pending_state_sql!(),
                    " AND lease_until IS NULL AND next_attempt_at < ?2"
                ))?
                .execute(params![webhook_id, until.0, now.0])?;
            Ok(())
        })
    }

    fn release_delivery(&self, id: &str, at: Timestamp, now: Timestamp) -> StoreResult<()> {
        sql(|| {
            self.0
                .prepare_cached(
                    "UPDATE deliveries SET next_attempt_at = max(next_attempt_at, ?2),
                        lease_until = NULL, updated_at = ?3 WHERE id = ?1",
                )?
                .execute(params![id, at.0, now.0])?;
            Ok(())
        })
    }

    /// The write transaction (`BEGIN IMMEDIATE`) holds the whole database: a read is locked.
    fn lock_rate_buckets(
        &self,
        webhook_ids: &[&str],
        now: Timestamp,
    ) -> StoreResult<Vec<RateBucket>> {
        sql(|| {
            let mut make = self.0.prepare_cached(
                "INSERT INTO webhook_rates (webhook_id, millitokens, at) VALUES (?1, NULL, ?2)
                 ON CONFLICT (webhook_id) DO NOTHING",
            )?;
            let mut read = self.0.prepare_cached(
                "SELECT webhook_id, millitokens, at, next_at FROM webhook_rates
                 WHERE webhook_id = ?1",
            )?;
            let mut out = Vec::with_capacity(webhook_ids.len());
            for id in webhook_ids {
                make.execute(params![id, now.0])?;
                out.push(read.query_row([id], |r| {
                    Ok(RateBucket {
                        webhook_id: r.get(0)?,
                        millitokens: r.get(1)?,
                        at: Timestamp(r.get(2)?),
                        next_at: r.get::<_, Option<i64>>(3)?.map(Timestamp),
                    })
                })?);
            }
            Ok(out)
        })
    }

    fn reset_rate_bucket(&self, webhook_id: &str) -> StoreResult<()> {
        sql(|| {
            self.0
                .prepare_cached("DELETE FROM webhook_rates WHERE webhook_id = ?1")?
                .execute([webhook_id])?;
            Ok(())
        })
    }

    fn write_rate_buckets(&self, buckets: &[RateBucket]) -> StoreResult<()> {
        sql(|| {
            let mut write = self.0.prepare_cached(
                "UPDATE webhook_rates SET millitokens = ?2, at = ?3, next_at = ?4
                 WHERE webhook_id = ?1",
            )?;
            for b in buckets {
                write.execute(params![
                    b.webhook_id,
                    b.millitokens,
                    b.at.0,
                    b.next_at.map(|t| t.0)
                ])?;
            }
            Ok(())
        })
    }

    fn unlease(&self, ids: &[&str]) -> StoreResult<()> {
        if ids.is_empty() {
            return Ok(());
        }
        let ids = to_json(ids);
        sql(|| {
            self.0
                .prepare_cached(
                    "UPDATE deliveries SET lease_until = NULL
                     WHERE id IN (SELECT value FROM json_each(?1))",
                )?
                .execute([ids])?;
            Ok(())
        })
    }

    fn unpark_queue(&self, webhook_id: &str, now: Timestamp) -> StoreResult<()> {
        sql(|| {
            self.0
                .prepare_cached(concat!(
                    "UPDATE deliveries SET next_attempt_at = ?2 WHERE webhook_id = ?1 AND state = ",
                    keyhook_core::pending_state_sql!(),
                    " AND next_attempt_at = ",
                    keyhook_core::parked_sql!()
                ))?
                .execute(params![webhook_id, now.0])?;
            Ok(())
        })
    }

    fn queue_holder(&self, webhook_id: &str) -> StoreResult<Option<(String, i64)>> {
        sql(|| {
            Ok(self
                .0
                .prepare_cached(concat!(
                    "SELECT h.id, (SELECT count(*) FROM deliveries b WHERE b.webhook_id = ?1
                        AND b.state = ",
                    keyhook_core::pending_state_sql!(),
                    " AND b.rowid > h.rowid)
                     FROM deliveries h JOIN webhooks w ON w.id = h.webhook_id
                     WHERE h.webhook_id = ?1 AND w.ordered = 1 AND h.state = ",
                    keyhook_core::pending_state_sql!(),
                    " AND h.attempts > 0 AND h.id = (",
                    keyhook_core::queue_heads_sql!(dialect),
                    " AND qw.id = ?1)"
                ))?
                .query_row([webhook_id], |r| Ok((r.get(0)?, r.get(1)?)))
                .optional()?)
        })
    }
}
