//! Idempotency keys of `POST /events` and of the webhook requests: `keyhook-sqlite/src/idempotency.rs`, in PostgreSQL,
//! where there is no whole-database write lock. The take is one `INSERT … ON CONFLICT DO
//! UPDATE … WHERE`: a second transaction inserting the same `(user_id, key)` waits on the
//! primary key until the first commits (or rolls back), then finds the conflict, and the row
//! it conflicts with is locked and re-read at its latest version (READ COMMITTED). So of two
//! concurrent repeats exactly one takes the key and queues; the other reads its record.

use super::PgStore;
use keyhook_core::model::EventAccepted;
use keyhook_core::store::{HeldRequest, IdempotencyQueries, KeyQueries, RequestClaim, StoreResult};
use keyhook_core::time::Timestamp;

/// The `profile_id` column of a key: the profile, or '' for a user-wide event (as in
/// `keyhook-sqlite`).
fn profile_key(profile: Option<&str>) -> &str {
    profile.unwrap_or("")
}

impl IdempotencyQueries for PgStore {
    fn claim_idempotency_key(
        &self,
        user: &str,
        key: &str,
        first: &EventAccepted,
        stale_before: Timestamp,
    ) -> StoreResult<Option<EventAccepted>> {
        self.ensure_user(user, first.created_at)?;
        let profile = profile_key(first.profile_id.as_deref());
        self.run(|s| {
            let taken = s.execute(
                concat!(
                    "INSERT INTO idempotency_keys (user_id, key, event_id, event, deliveries,
                    created_at, profile_id)
                 VALUES ($1, $2, $3, $4, 0, $5, $7)
                 ON CONFLICT (user_id, profile_id, key) DO UPDATE
                    SET event_id = excluded.event_id, event = excluded.event, deliveries = 0,
                        created_at = excluded.created_at
                 WHERE ",
                    keyhook_core::idempotency_stale_sql!("idempotency_keys.", "$6")
                ),
                &[
                    &user,
                    &key,
                    &first.id,
                    &first.event,
                    &first.created_at.0,
                    &stale_before.0,
                    &profile,
                ],
            )?;
            if taken == 1 {
                return Ok(None);
            }
            let row = s.query_opt(
                "SELECT event_id, event, created_at, deliveries FROM idempotency_keys
                 WHERE user_id = $1 AND key = $2 AND profile_id = $3",
                &[&user, &key, &profile],
            )?;
            row.map(|r| {
                Ok(EventAccepted {
                    id: r.try_get(0)?,
                    event: r.try_get(1)?,
                    profile_id: first.profile_id.clone(),
                    created_at: Timestamp(r.try_get(2)?),
                    deliveries: usize::try_from(r.try_get::<_, i64>(3)?).unwrap_or(0),
                })
            })
            .transpose()
        })
    }

    fn set_idempotency_deliveries(
        &self,
        user: &str,
        profile: Option<&str>,
        key: &str,
        deliveries: usize,
    ) -> StoreResult<()> {
        let deliveries = deliveries as i64;
        let profile = profile_key(profile);
        self.run(|s| {
            s.execute(
                "UPDATE idempotency_keys SET deliveries = $3
                 WHERE user_id = $1 AND key = $2 AND profile_id = $4",
                &[&user, &key, &deliveries, &profile],
            )?;
            Ok(())
        })
    }

    fn prune_idempotency(&self, before: Timestamp, limit: usize) -> StoreResult<u64> {
        self.prune(
            concat!(
                "DELETE FROM idempotency_keys WHERE event_id IN (
                SELECT event_id FROM idempotency_keys WHERE ",
                keyhook_core::before_sql!("created_at", "$1"),
                " LIMIT $2)"
            ),
            before,
            limit,
        )
    }

    fn claim_request(
        &self,
        claim: &RequestClaim<'_>,
        stale_before: Timestamp,
        abandoned_before: Timestamp,
    ) -> StoreResult<Option<HeldRequest>> {
        self.ensure_user(claim.user, claim.at)?;
        self.run(|s| {
            let taken = s.execute(
                "INSERT INTO idempotent_requests (id, user_id, route, target, key, fingerprint,
                    response, created_at)
                 VALUES ($1, $2, $3, $4, $5, $6, NULL, $7)
                 ON CONFLICT (user_id, route, target, key) DO UPDATE
                    SET id = excluded.id, fingerprint = excluded.fingerprint, response = NULL,
                        created_at = excluded.created_at
                 WHERE idempotent_requests.created_at <= $8
                    OR (idempotent_requests.response IS NULL
                        AND idempotent_requests.created_at <= $9)",
                &[
                    &claim.id,
                    &claim.user,
                    &claim.route,
                    &claim.target,
                    &claim.key,
                    &claim.fingerprint,
                    &claim.at.0,
                    &stale_before.0,
                    &abandoned_before.0,
                ],
            )?;
            if taken == 1 {
                return Ok(None);
            }
            let row = s.query_opt(
                "SELECT fingerprint, response, created_at FROM idempotent_requests
                 WHERE user_id = $1 AND route = $2 AND target = $3 AND key = $4",
                &[&claim.user, &claim.route, &claim.target, &claim.key],
            )?;
            row.map(|r| {
                Ok(HeldRequest {
                    fingerprint: r.try_get(0)?,
                    response: r.try_get(1)?,
                    created_at: Timestamp(r.try_get(2)?),
                })
            })
            .transpose()
        })
    }

    fn answer_request(&self, claim_id: &str, response: &str) -> StoreResult<()> {
        self.run(|s| {
            s.execute(
                "UPDATE idempotent_requests SET response = $2 WHERE id = $1",
                &[&claim_id, &response],
            )?;
            Ok(())
        })
    }

    fn release_request(&self, claim_id: &str) -> StoreResult<()> {
        self.run(|s| {
            s.execute(
                "DELETE FROM idempotent_requests WHERE id = $1",
                &[&claim_id],
            )?;
            Ok(())
        })
    }

    fn prune_requests(&self, before: Timestamp, limit: usize) -> StoreResult<u64> {
        self.prune(
            "DELETE FROM idempotent_requests WHERE id IN (
                SELECT id FROM idempotent_requests WHERE created_at < $1 LIMIT $2)",
            before,
            limit,
        )
    }
}
