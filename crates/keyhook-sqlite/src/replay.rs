//! Replay: fresh deliveries of past events to one webhook, queued by one `INSERT … SELECT`.

use rusqlite::{params, OptionalExtension};

use super::Conn;
use crate::error::sql;
use crate::time::Timestamp;
use keyhook_core::store::{ReplayQueries, ReplaySelection, StoreResult};

/// The events a replay selects (`?1` webhook, `?2` user, `?3` since or event id, `?4`
/// failed only, `?5` now, `?6` limit), once for a time window and once for one event id.
macro_rules! replay_insert {
    ($which:literal) => {
        concat!(
            "INSERT INTO deliveries (id, event_id, webhook_id, state, attempts,
                next_attempt_at, created_at, updated_at)
             SELECT ",
            new_delivery_id!("?5"),
            concat!(
                ", e.id, w.id, ",
                keyhook_core::pending_state_sql!(),
                ", 0, ?5, ?5, ?5
             FROM webhooks w JOIN events e ON e.user_id = w.user_id
             WHERE w.id = ?1 AND w.user_id = ?2 AND "
            ),
            $which,
            " AND ",
            keyhook_core::subscribes_sql!(dialect, "w", "e.event"),
            " AND ",
            keyhook_core::covers_sql!(dialect, "w", "e.profile_id"),
            " AND ",
            keyhook_core::replay_failed_only_sql!(dialect, "?4", "w", "e"),
            "
             LIMIT ?6"
        )
    };
}

/// With `failed_only`: the deliveries of the selected events to this webhook that failed and
/// wait for their next retry (`?1` webhook, `?2` user, `?3` since or event id, `?4` now) are
/// made due now, instead of a second copy being queued beside them. One already leased (in
/// flight) is left alone: it is being sent.
macro_rules! replay_retry_now {
    ($which:literal) => {
        concat!(
            "UPDATE deliveries SET next_attempt_at = ?4, updated_at = ?4
             WHERE webhook_id = ?1 AND ",
            keyhook_core::waiting_retry_sql!("", "?4"),
            "
               AND event_id IN (SELECT e.id FROM events e WHERE e.user_id = ?2 AND ",
            $which,
            ")"
        )
    };
}

impl ReplayQueries for Conn {
    fn event_of(
        &self,
        user: &str,
        event_id: &str,
    ) -> StoreResult<Option<(String, Option<String>)>> {
        sql(|| {
            Ok(self
                .0
                .prepare_cached(
                    "SELECT event, profile_id FROM events WHERE id = ?1 AND user_id = ?2",
                )?
                .query_row(params![event_id, user], |r| Ok((r.get(0)?, r.get(1)?)))
                .optional()?)
        })
    }

    fn enqueue_replay(
        &self,
        sel: &ReplaySelection<'_>,
        now: Timestamp,
        limit: usize,
    ) -> StoreResult<usize> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let failed_only = i64::from(sel.failed_only);
        sql(|| {
            let n = match sel.event_id {
                Some(id) => self
                    .0
                    .prepare_cached(replay_insert!("e.id = ?3"))?
                    .execute(params![
                        sel.webhook_id,
                        sel.user,
                        id,
                        failed_only,
                        now.0,
                        limit
                    ])?,
                None => self
                    .0
                    .prepare_cached(replay_insert!("e.created_at >= ?3"))?
                    .execute(params![
                        sel.webhook_id,
                        sel.user,
                        sel.since.0,
                        failed_only,
                        now.0,
                        limit
                    ])?,
            };
            if !sel.failed_only {
                return Ok(n);
            }
            let moved = match sel.event_id {
                Some(id) => self
                    .0
                    .prepare_cached(replay_retry_now!("e.id = ?3"))?
                    .execute(params![sel.webhook_id, sel.user, id, now.0])?,
                None => self
                    .0
                    .prepare_cached(replay_retry_now!("e.created_at >= ?3"))?
                    .execute(params![sel.webhook_id, sel.user, sel.since.0, now.0])?,
            };
            Ok(n + moved)
        })
    }
}
