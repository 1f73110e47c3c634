//! The durable outbox: `keyhook-sqlite/src/outbox.rs`, in PostgreSQL, with claims that
//! several workers on several machines can make at once.

use super::PgStore;
use keyhook_core::store::{
    Claimed, DeliveryState, KeyQueries, OutboxQueries, RateBucket, StoreResult,
};
use keyhook_core::time::Timestamp;

impl OutboxQueries for PgStore {
    fn insert_event(
        &self,
        id: &str,
        user: &str,
        event: &str,
        profile: Option<&str>,
        payload: &[u8],
        now: Timestamp,
    ) -> StoreResult<()> {
        self.ensure_user(user, now)?;
        self.run(|s| {
            s.execute(
                "INSERT INTO events (id, user_id, event, payload, created_at, profile_id)
                 VALUES ($1, $2, $3, $4, $5, $6)",
                &[&id, &user, &event, &payload, &now.0, &profile],
            )?;
            Ok(())
        })
    }

    /// The pairs travel as two arrays of the same length, zipped by `unnest`.
    ///
    /// An ordered webhook's rows are locked first (`FOR NO KEY UPDATE`, in id order), until
    /// the transaction ends: two transactions queueing to the same ordered webhook number
    /// their deliveries (`seq`) one after the other and commit in that order, so a claim
    /// never sees a delivery appear before one it has already taken. A delivery to it is
    /// queued parked (`keyhook_core::parked_sql!`).
    fn insert_deliveries(&self, deliveries: &[(&str, &str)], now: Timestamp) -> StoreResult<usize> {
        let (event_ids, webhook_ids): (Vec<&str>, Vec<&str>) = deliveries.iter().copied().unzip();
        self.run(|s| {
            s.execute(
                "SELECT 1 FROM webhooks WHERE id = ANY($1) AND ordered ORDER BY id
                 FOR NO KEY UPDATE",
                &[&webhook_ids],
            )?;
            let n = s.execute(
                concat!(
                    "INSERT INTO deliveries (id, event_id, webhook_id, state, attempts,
                        next_attempt_at, created_at, updated_at)
                     SELECT ",
                    new_delivery_id!("$3"),
                    ", p.e, p.w, ",
                    keyhook_core::pending_state_sql!(),
                    ", 0, CASE WHEN p.w IN (SELECT id FROM webhooks WHERE ordered) THEN ",
                    keyhook_core::parked_sql!(),
                    " ELSE $3 END, $3, $3
                     FROM unnest($1::text[], $2::text[]) WITH ORDINALITY p(e, w, n) ORDER BY p.n"
                ),
                &[&event_ids, &webhook_ids, &now.0],
            )?;
            Ok(n as usize)
        })
    }

    fn any_due(&self, now: Timestamp, only: Option<&str>) -> StoreResult<bool> {
        self.run(|s| {
            Ok(s.query_one(
                concat!(
                    "SELECT EXISTS (SELECT 1 FROM deliveries d WHERE ",
                    keyhook_core::due_sql!("d.", "$1"),
                    " AND ",
                    keyhook_core::claimable_sql!(dialect, "d.", "$2::text"),
                    " AND ",
                    keyhook_core::claim_rules_sql!(dialect, "d.", "$1"),
                    ") OR EXISTS (SELECT 1 FROM deliveries d WHERE ",
                    keyhook_core::parked_head_sql!(dialect, "d.", "$1"),
                    " AND ",
                    keyhook_core::claimable_sql!(dialect, "d.", "$2::text"),
                    ")"
                ),
                &[&now.0, &only],
            )?
            .try_get(0)?)
        })
    }

    /// Leases up to `limit` due deliveries until `lease_until`, in one statement: the due
    /// rows are selected `FOR UPDATE SKIP LOCKED`, so a row another worker is claiming right
    /// now is passed over instead of waited for (and a row it has claimed and committed is
    /// re-checked and no longer due), then leased. Called inside `Store::write`, whose
    /// commit makes the lease visible before anything is sent.
    ///
    /// The rows locked and not leased (past `bytes`) stay pending; other workers skip them
    /// until this transaction ends.
    fn claim_due_within(
        &self,
        now: Timestamp,
        limit: usize,
        bytes: usize,
        lease_until: Timestamp,
        only: Option<&str>,
    ) -> StoreResult<Vec<Claimed>> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let bytes = i64::try_from(bytes).unwrap_or(i64::MAX);
        self.run(|s| {
            let rows = s.query(
                concat!(
                    "WITH due AS (
                    SELECT d.id, d.event_id, d.next_attempt_at AS at,
                        d.lease_until IS NOT NULL AS recovered
                    FROM deliveries d
                    WHERE ",
                    keyhook_core::due_sql!("d.", "$1"),
                    " AND ",
                    keyhook_core::claimable_sql!(dialect, "d.", "$4::text"),
                    " AND ",
                    keyhook_core::claim_rules_sql!(dialect, "d.", "$1"),
                    "
                    ORDER BY d.next_attempt_at
                    LIMIT $2
                    FOR UPDATE SKIP LOCKED
                 ), heads AS (
                    SELECT d.id, d.event_id, d.created_at AS at,
                        d.lease_until IS NOT NULL AS recovered
                    FROM deliveries d
                    WHERE ",
                    keyhook_core::parked_head_sql!(dialect, "d.", "$1"),
                    " AND ",
                    keyhook_core::claimable_sql!(dialect, "d.", "$4::text"),
                    "
                    FOR UPDATE SKIP LOCKED
                 ), picked AS (
                    SELECT * FROM due UNION ALL SELECT * FROM heads ORDER BY at, id LIMIT $2
                 ), sized AS (
                    SELECT picked.id, picked.at, picked.recovered,
                        sum(length(e.payload)) OVER (ORDER BY picked.at, picked.id)
                            - length(e.payload) AS before
                    FROM picked JOIN events e ON e.id = picked.event_id
                 ), leased AS (
                    UPDATE deliveries d SET lease_until = $3 FROM sized
                    WHERE d.id = sized.id AND sized.before < $5
                    RETURNING d.id, d.event_id, d.webhook_id, d.attempts, sized.at,
                        sized.recovered
                 )
                 SELECT l.id, l.event_id, e.event, e.payload, l.attempts, w.id, w.is_active,
                    e.profile_id, l.recovered, w.retry_schedule, w.timeout_ms, w.rate
                 FROM leased l
                 JOIN events e ON e.id = l.event_id
                 JOIN webhooks w ON w.id = l.webhook_id
                 ORDER BY l.at, l.id"
                ),
                &[&now.0, &limit, &lease_until.0, &only, &bytes],
            )?;
            rows.iter()
                .map(|r| {
                    Ok(Claimed {
                        delivery_id: r.try_get(0)?,
                        event_id: r.try_get(1)?,
                        event: r.try_get(2)?,
                        profile_id: r.try_get(7)?,
                        payload: r.try_get(3)?,
                        attempts: r.try_get(4)?,
                        webhook_id: r.try_get(5)?,
                        webhook_active: r.try_get(6)?,
                        recovered: r.try_get(8)?,
                        retry_schedule: r.try_get(9)?,
                        timeout_ms: r.try_get(10)?,
                        rate: r.try_get(11)?,
                        row: None,
                    })
                })
                .collect()
        })
    }

    fn finish_deliveries(
        &self,
        ids: &[&str],
        state: DeliveryState,
        attempted: bool,
        now: Timestamp,
    ) -> StoreResult<()> {
        if ids.is_empty() {
            return Ok(());
        }
        self.run(|s| {
            s.execute(
                "UPDATE deliveries SET state = $2, attempts = attempts + $3, lease_until = NULL,
                    updated_at = $4 WHERE id = ANY($1)",
                &[&ids, &state.as_str(), &i64::from(attempted), &now.0],
            )?;
            Ok(())
        })
    }

    fn retry_delivery(&self, id: &str, next_at: Timestamp, now: Timestamp) -> StoreResult<()> {
        self.run(|s| {
            s.execute(
                "UPDATE deliveries SET attempts = attempts + 1, next_attempt_at = $2,
                    lease_until = NULL, updated_at = $3 WHERE id = $1",
                &[&id, &next_at.0, &now.0],
            )?;
            Ok(())
        })
    }

    fn renew_leases(&self, ids: &[&str], until: Timestamp) -> StoreResult<()> {
        self.run(|s| {
            s.execute(
                concat!(
                    "UPDATE deliveries SET lease_until = $2
                 WHERE id = ANY($1) AND state = ",
                    keyhook_core::pending_state_sql!(),
                    " AND lease_until IS NOT NULL"
                ),
                &[&ids, &until.0],
            )?;
            Ok(())
        })
    }

    /// The pending deliveries are moved past the hold with `SKIP LOCKED`: one another
    /// worker is claiming or settling right now is left as it is (the claim's
    /// `unheld_sql!` keeps it back all the same), so a hold never waits on another worker.
    fn hold_webhook(&self, webhook_id: &str, until: Timestamp, now: Timestamp) -> StoreResult<()> {
        self.run(|s| {
            s.execute(
                "UPDATE webhooks SET held_until = greatest(coalesce(held_until, 0), $2)
                 WHERE id = $1",
                &[&webhook_id, &until.0],
            )?;
            s.execute(
                concat!(
                    "UPDATE deliveries SET next_attempt_at = $2, updated_at = $3
                     WHERE id IN (SELECT id FROM deliveries WHERE webhook_id = $1 AND state = ",
                    keyhook_core::pending_state_sql!(),
                    " AND lease_until IS NULL AND next_attempt_at < $2 FOR UPDATE SKIP LOCKED)"
                ),
                &[&webhook_id, &until.0, &now.0],
            )?;
            Ok(())
        })
    }

    fn release_delivery(&self, id: &str, at: Timestamp, now: Timestamp) -> StoreResult<()> {
        self.run(|s| {
            s.execute(
                "UPDATE deliveries SET next_attempt_at = greatest(next_attempt_at, $2),
                    lease_until = NULL, updated_at = $3 WHERE id = $1",
                &[&id, &at.0, &now.0],
            )?;
            Ok(())
        })
    }

    /// Made if missing (`ON CONFLICT DO NOTHING`: two instances making the same row at once
    /// both go on), then locked `FOR UPDATE` in id order, so that claims on every instance
    /// take a webhook's tokens one after another and never deadlock on each other.
    fn lock_rate_buckets(
        &self,
        webhook_ids: &[&str],
        now: Timestamp,
    ) -> StoreResult<Vec<RateBucket>> {
        self.run(|s| {
            s.execute(
                "INSERT INTO webhook_rates (webhook_id, millitokens, at)
                 SELECT id, NULL, $2 FROM unnest($1::text[]) id
                 ON CONFLICT (webhook_id) DO NOTHING",
                &[&webhook_ids, &now.0],
            )?;
            s.query(
                "SELECT webhook_id, millitokens, at, next_at FROM webhook_rates
                 WHERE webhook_id = ANY($1) ORDER BY webhook_id FOR UPDATE",
                &[&webhook_ids],
            )?
            .iter()
            .map(|r| {
                Ok(RateBucket {
                    webhook_id: r.try_get(0)?,
                    millitokens: r.try_get(1)?,
                    at: Timestamp(r.try_get(2)?),
                    next_at: r.try_get::<_, Option<i64>>(3)?.map(Timestamp),
                })
            })
            .collect()
        })
    }

    fn reset_rate_bucket(&self, webhook_id: &str) -> StoreResult<()> {
        self.run(|s| {
            s.execute(
                "DELETE FROM webhook_rates WHERE webhook_id = $1",
                &[&webhook_id],
            )?;
            Ok(())
        })
    }

    fn write_rate_buckets(&self, buckets: &[RateBucket]) -> StoreResult<()> {
        let ids: Vec<&str> = buckets.iter().map(|b| b.webhook_id.as_str()).collect();
        let tokens: Vec<Option<i64>> = buckets.iter().map(|b| b.millitokens).collect();
        let at: Vec<i64> = buckets.iter().map(|b| b.at.0).collect();
        let next: Vec<Option<i64>> = buckets.iter().map(|b| b.next_at.map(|t| t.0)).collect();
        self.run(|s| {
            s.execute(
                "UPDATE webhook_rates r SET millitokens = b.m, at = b.a, next_at = b.n
                 FROM unnest($1::text[], $2::int8[], $3::int8[], $4::int8[]) b(w, m, a, n)
                 WHERE r.webhook_id = b.w",
                &[&ids, &tokens, &at, &next],
            )?;
            Ok(())
        })
    }

    fn unlease(&self, ids: &[&str]) -> StoreResult<()> {
        if ids.is_empty() {
            return Ok(());
        }
        self.run(|s| {
            s.execute(
                "UPDATE deliveries SET lease_until = NULL WHERE id = ANY($1)",
                &[&ids],
            )?;
            Ok(())
        })
    }

    fn unpark_queue(&self, webhook_id: &str, now: Timestamp) -> StoreResult<()> {
        self.run(|s| {
            s.execute(
                concat!(
                    "UPDATE deliveries SET next_attempt_at = $2 WHERE webhook_id = $1 AND state = ",
                    keyhook_core::pending_state_sql!(),
                    " AND next_attempt_at = ",
                    keyhook_core::parked_sql!()
                ),
                &[&webhook_id, &now.0],
            )?;
            Ok(())
        })
    }

    fn queue_holder(&self, webhook_id: &str) -> StoreResult<Option<(String, i64)>> {
        self.run(|s| {
            let row = s.query_opt(
                concat!(
                    "SELECT h.id, (SELECT count(*) FROM deliveries b WHERE b.webhook_id = $1
                        AND b.state = ",
                    keyhook_core::pending_state_sql!(),
                    " AND b.seq > h.seq)
                     FROM deliveries h JOIN webhooks w ON w.id = h.webhook_id
                     WHERE h.webhook_id = $1 AND w.ordered AND h.state = ",
                    keyhook_core::pending_state_sql!(),
                    " AND h.attempts > 0 AND h.id = (",
                    keyhook_core::queue_heads_sql!(dialect),
                    " AND qw.id = $1)"
                ),
                &[&webhook_id],
            )?;
            Ok(match row {
                Some(r) => Some((r.try_get(0)?, r.try_get(1)?)),
                None => None,
            })
        })
    }
}
