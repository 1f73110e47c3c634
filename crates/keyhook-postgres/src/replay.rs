//! Replay: `keyhook-sqlite/src/replay.rs`, in PostgreSQL. The caller has locked the webhook's
//! row (`find` in a write transaction reads it `FOR UPDATE`), so a concurrent disable or
//! delete waits for the replay or is seen by it.

use super::PgStore;
use keyhook_core::store::{ReplayCandidate, ReplayQueries, ReplaySelection, StoreResult};
use keyhook_core::time::Timestamp;

/// The events a replay selects (`$1` webhook, `$2` user, `$3` since (or the cursor's time)
/// or event id, `$4` failed only, `$5` names, `$6` the cursor's id, `$7` limit, `$8` with
/// the payloads), once for a time window, in the order of `events_user_created` from `$3` on, and once for one event id.
macro_rules! replay_candidates {
    ($which:literal, $cursor:literal) => {
        concat!(
            "SELECT e.id, e.created_at, e.event, e.profile_id,
                CASE WHEN $8::bool THEN e.payload ELSE ''::bytea END
             FROM events e
             WHERE e.user_id = $2 AND ",
            $which,
            " AND e.event = ANY($5::text[])
               AND ($6::text IS NULL OR ",
            $cursor,
            " OR e.id > $6::text) AND ",
            keyhook_core::replay_failed_only_sql!(dialect, "$4", "$1::text", "e"),
            "
             ORDER BY e.created_at, e.id LIMIT $7"
        )
    };
}

/// With `failed_only`: the deliveries of the selected events to this webhook that failed and
/// wait for their next retry (`$1` webhook, `$2` user, `$3` since or event id, `$4` now) are
/// made due now, instead of a second copy being queued beside them. One already leased (in
/// flight) is left alone: it is being sent.
macro_rules! replay_retry_now {
    ($which:literal) => {
        concat!(
            "UPDATE deliveries SET next_attempt_at = $4, updated_at = $4
             WHERE webhook_id = $1 AND ",
            keyhook_core::waiting_retry_sql!("", "$4"),
            "
               AND event_id IN (SELECT e.id FROM events e WHERE e.user_id = $2 AND ",
            $which,
            ")"
        )
    };
}

impl ReplayQueries for PgStore {
    fn event_of(
        &self,
        user: &str,
        event_id: &str,
    ) -> StoreResult<Option<(String, Option<String>)>> {
        self.run(|s| {
            s.query_opt(
                "SELECT event, profile_id FROM events WHERE id = $1 AND user_id = $2",
                &[&event_id, &user],
            )?
            .map(|r| Ok((r.try_get(0)?, r.try_get(1)?)))
            .transpose()
        })
    }

    fn replay_candidates(
        &self,
        sel: &ReplaySelection<'_>,
        after: Option<(Timestamp, &str)>,
        limit: usize,
        payloads: bool,
    ) -> StoreResult<Vec<ReplayCandidate>> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let (from, after_id) = match after {
            Some((t, id)) => (t.max(sel.since), Some(id)),
            None => (sel.since, None),
        };
        self.run(|s| {
            let rows = match sel.event_id {
                Some(id) => s.query(
                    replay_candidates!("e.id = $3", "FALSE"),
                    &[
                        &sel.webhook_id,
                        &sel.user,
                        &id,
                        &sel.failed_only,
                        &sel.names,
                        &after_id,
                        &limit,
                        &payloads,
                    ],
                )?,
                None => s.query(
                    replay_candidates!("e.created_at >= $3", "e.created_at > $3"),
                    &[
                        &sel.webhook_id,
                        &sel.user,
                        &from.0,
                        &sel.failed_only,
                        &sel.names,
                        &after_id,
                        &limit,
                        &payloads,
                    ],
                )?,
            };
            rows.iter()
                .map(|r| {
                    Ok(ReplayCandidate {
                        id: r.try_get(0)?,
                        created_at: Timestamp(r.try_get(1)?),
                        event: r.try_get(2)?,
                        profile_id: r.try_get(3)?,
                        payload: r.try_get(4)?,
                    })
                })
                .collect()
        })
    }

    fn replay_retry_now(&self, sel: &ReplaySelection<'_>, now: Timestamp) -> StoreResult<usize> {
        self.run(|s| {
            let n = match sel.event_id {
                Some(id) => s.execute(
                    replay_retry_now!("e.id = $3"),
                    &[&sel.webhook_id, &sel.user, &id, &now.0],
                )?,
                None => s.execute(
                    replay_retry_now!("e.created_at >= $3"),
                    &[&sel.webhook_id, &sel.user, &sel.since.0, &now.0],
                )?,
            };
            Ok(n as usize)
        })
    }
}
