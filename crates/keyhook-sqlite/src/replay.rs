//! Replay: the candidate events of a replay, in pages, and the deliveries that
//! `keyhook_core::service::routing` chose among them, queued by one statement.

use rusqlite::{params, OptionalExtension};

use super::{to_json, Conn};
use crate::error::sql;
use crate::time::Timestamp;
use keyhook_core::store::{ReplayCandidate, ReplayQueries, ReplaySelection, StoreResult};

/// The events a replay selects (`?1` webhook, `?2` user, `?3` since (or the cursor's time)
/// or event id, `?4` failed only, `?5` names, `?6` the cursor's id, `?7` limit, `?8` with
/// the payloads), once for a time window, in the order of `events_user_created` from `?3` on, and once for one event id.
macro_rules! replay_candidates {
    ($which:literal) => {
        concat!(
            "SELECT e.id, e.created_at, e.event, e.profile_id,
                CASE WHEN ?8 THEN e.payload ELSE X'' END
             FROM events e
             WHERE e.user_id = ?2 AND ",
            $which,
            " AND e.event IN (SELECT value FROM json_each(?5))
               AND (?6 IS NULL OR e.created_at > ?3 OR e.id > ?6) AND ",
            keyhook_core::replay_failed_only_sql!(dialect, "?4", "?1", "e"),
            "
             ORDER BY e.created_at, e.id LIMIT ?7"
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

    fn replay_candidates(
        &self,
        sel: &ReplaySelection<'_>,
        after: Option<(Timestamp, &str)>,
        limit: usize,
        payloads: bool,
    ) -> StoreResult<Vec<ReplayCandidate>> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let failed_only = i64::from(sel.failed_only);
        let payloads = i64::from(payloads);
        let names = to_json(sel.names);
        let (from, after_id) = match after {
            Some((t, id)) => (t.max(sel.since), Some(id)),
            None => (sel.since, None),
        };
        sql(|| {
            let (mut stmt, which) = match sel.event_id {
                Some(id) => (
                    self.0.prepare_cached(replay_candidates!("e.id = ?3"))?,
                    rusqlite::types::Value::Text(id.to_string()),
                ),
                None => (
                    self.0
                        .prepare_cached(replay_candidates!("e.created_at >= ?3"))?,
                    rusqlite::types::Value::Integer(from.0),
                ),
            };
            let rows = stmt.query_map(
                params![
                    sel.webhook_id,
                    sel.user,
                    which,
                    failed_only,
                    names,
                    after_id,
                    limit,
                    payloads
                ],
                |r| {
                    Ok(ReplayCandidate {
                        id: r.get(0)?,
                        created_at: Timestamp(r.get(1)?),
                        event: r.get(2)?,
                        profile_id: r.get(3)?,
                        payload: r.get(4)?,
                    })
                },
            )?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
    }

    fn replay_retry_now(&self, sel: &ReplaySelection<'_>, now: Timestamp) -> StoreResult<usize> {
        sql(|| {
            Ok(match sel.event_id {
                Some(id) => self
                    .0
                    .prepare_cached(replay_retry_now!("e.id = ?3"))?
                    .execute(params![sel.webhook_id, sel.user, id, now.0])?,
                None => self
                    .0
                    .prepare_cached(replay_retry_now!("e.created_at >= ?3"))?
                    .execute(params![sel.webhook_id, sel.user, sel.since.0, now.0])?,
            })
        })
    }
}
