//! Idempotency keys of `POST /events` and of the webhook requests (`idempotent_requests`). The caller's write transaction (`BEGIN IMMEDIATE`)
//! holds the file's write lock, so the look and the take below see no other writer.

use rusqlite::{params, OptionalExtension};

use super::Conn;
use crate::error::sql;
use crate::time::Timestamp;
use keyhook_core::model::EventAccepted;
use keyhook_core::store::{HeldRequest, IdempotencyQueries, KeyQueries, RequestClaim, StoreResult};

/// The `profile_id` column of a key: the profile, or '' for a user-wide event (a profile id
/// is never empty).
fn profile_key(profile: Option<&str>) -> &str {
    profile.unwrap_or("")
}

impl IdempotencyQueries for Conn {
    fn claim_idempotency_key(
        &self,
        user: &str,
        key: &str,
        first: &EventAccepted,
        stale_before: Timestamp,
    ) -> StoreResult<Option<EventAccepted>> {
        self.ensure_user(user, first.created_at)?;
        let profile = profile_key(first.profile_id.as_deref());
        sql(|| {
            // Taken when new, or when the record holding it is stale; a fresh record is left
            // as it is (the WHERE of the upsert), and then read.
            let taken = self
                .0
                .prepare_cached(concat!(
                    "INSERT INTO idempotency_keys (user_id, key, event_id, event, deliveries,
                        created_at, profile_id)
                     VALUES (?1, ?2, ?3, ?4, 0, ?5, ?7)
                     ON CONFLICT (user_id, profile_id, key) DO UPDATE
                        SET event_id = excluded.event_id, event = excluded.event,
                            deliveries = 0, created_at = excluded.created_at
                     WHERE ",
                    keyhook_core::idempotency_stale_sql!("idempotency_keys.", "?6")
                ))?
                .execute(params![
                    user,
                    key,
                    first.id,
                    first.event,
                    first.created_at.0,
                    stale_before.0,
                    profile
                ])?;
            if taken == 1 {
                return Ok(None);
            }
            Ok(self
                .0
                .prepare_cached(
                    "SELECT event_id, event, created_at, deliveries FROM idempotency_keys
                     WHERE user_id = ?1 AND key = ?2 AND profile_id = ?3",
                )?
                .query_row(params![user, key, profile], |r| {
                    Ok(EventAccepted {
                        id: r.get(0)?,
                        event: r.get(1)?,
                        profile_id: first.profile_id.clone(),
                        created_at: Timestamp(r.get(2)?),
                        deliveries: usize::try_from(r.get::<_, i64>(3)?).unwrap_or(0),
                    })
                })
                .optional()?)
        })
    }

    fn set_idempotency_deliveries(
        &self,
        user: &str,
        profile: Option<&str>,
        key: &str,
        deliveries: usize,
    ) -> StoreResult<()> {
        sql(|| {
            self.0
                .prepare_cached(
                    "UPDATE idempotency_keys SET deliveries = ?3
                     WHERE user_id = ?1 AND key = ?2 AND profile_id = ?4",
                )?
                .execute(params![user, key, deliveries as i64, profile_key(profile)])?;
            Ok(())
        })
    }

    fn prune_idempotency(&self, before: Timestamp, limit: usize) -> StoreResult<u64> {
        self.prune(
            concat!(
                "DELETE FROM idempotency_keys WHERE event_id IN (
                SELECT event_id FROM idempotency_keys WHERE ",
                keyhook_core::before_sql!("created_at", "?1"),
                " LIMIT ?2)"
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
        sql(|| {
            // As `claim_idempotency_key`: taken when new, or when the record holding it is
            // stale or abandoned; else left as it is, and read.
            let taken = self
                .0
                .prepare_cached(
                    "INSERT INTO idempotent_requests (id, user_id, route, target, key,
                        fingerprint, response, created_at)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, NULL, ?7)
                     ON CONFLICT (user_id, route, target, key) DO UPDATE
                        SET id = excluded.id, fingerprint = excluded.fingerprint,
                            response = NULL, created_at = excluded.created_at
                     WHERE idempotent_requests.created_at <= ?8
                        OR (idempotent_requests.response IS NULL
                            AND idempotent_requests.created_at <= ?9)",
                )?
                .execute(params![
                    claim.id,
                    claim.user,
                    claim.route,
                    claim.target,
                    claim.key,
                    claim.fingerprint,
                    claim.at.0,
                    stale_before.0,
                    abandoned_before.0
                ])?;
            if taken == 1 {
                return Ok(None);
            }
            Ok(self
                .0
                .prepare_cached(
                    "SELECT fingerprint, response, created_at FROM idempotent_requests
                     WHERE user_id = ?1 AND route = ?2 AND target = ?3 AND key = ?4",
                )?
                .query_row(
                    params![claim.user, claim.route, claim.target, claim.key],
                    |r| {
                        Ok(HeldRequest {
                            fingerprint: r.get(0)?,
                            response: r.get(1)?,
                            created_at: Timestamp(r.get(2)?),
                        })
                    },
                )
                .optional()?)
        })
    }

    fn answer_request(&self, claim_id: &str, response: &str) -> StoreResult<()> {
        sql(|| {
            self.0
                .prepare_cached("UPDATE idempotent_requests SET response = ?2 WHERE id = ?1")?
                .execute(params![claim_id, response])?;
            Ok(())
        })
    }

    fn release_request(&self, claim_id: &str) -> StoreResult<()> {
        sql(|| {
            self.0
                .prepare_cached("DELETE FROM idempotent_requests WHERE id = ?1")?
                .execute(params![claim_id])?;
            Ok(())
        })
    }

    fn prune_requests(&self, before: Timestamp, limit: usize) -> StoreResult<u64> {
        self.prune(
            "DELETE FROM idempotent_requests WHERE id IN (
                SELECT id FROM idempotent_requests WHERE created_at < ?1 LIMIT ?2)",
            before,
            limit,
        )
    }
}
