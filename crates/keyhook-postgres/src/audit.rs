//! The audit log: `keyhook-sqlite/src/audit.rs`, in PostgreSQL.

use postgres::Row;

use super::{Fail, PgStore};
use keyhook_core::model::AuditEntry;
use keyhook_core::store::{AuditQueries, StoreResult};
use keyhook_core::time::Timestamp;

fn from_row(r: &Row) -> Result<AuditEntry, Fail> {
    let details: String = r.try_get(7)?;
    Ok(AuditEntry {
        id: r.try_get(0)?,
        user_id: r.try_get(1)?,
        at: Timestamp(r.try_get(2)?),
        actor: r.try_get(3)?,
        via: r.try_get(4)?,
        action: r.try_get(5)?,
        target: r.try_get(6)?,
        details: serde_json::from_str(&details)
            .map_err(|e| Fail::Data(format!("a stored audit entry is damaged: {e}")))?,
        full_access: r.try_get(8)?,
        profile_ids: super::json_strings(r.try_get(9)?)?,
    })
}

impl AuditQueries for PgStore {
    fn insert_audit(&self, e: &AuditEntry) -> StoreResult<()> {
        let details = e.details.to_string();
        let profile_ids = super::to_json(&e.profile_ids);
        self.run(|s| {
            s.execute(
                "INSERT INTO audit_log (user_id, at, actor, via, action, target, details,
                    full_access, profile_ids)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
                &[
                    &e.user_id,
                    &e.at.0,
                    &e.actor,
                    &e.via,
                    &e.action,
                    &e.target,
                    &details,
                    &e.full_access,
                    &profile_ids,
                ],
            )?;
            Ok(())
        })
    }

    fn list_audit(
        &self,
        user: Option<&str>,
        since: Option<Timestamp>,
        before: Option<(Timestamp, i64)>,
        limit: i64,
    ) -> StoreResult<Vec<AuditEntry>> {
        let since = since.map_or(i64::MIN, |t| t.0);
        let (before_at, before_id) = before.map_or((i64::MAX, i64::MAX), |(t, id)| (t.0, id));
        self.run(|s| {
            let rows = match user {
                Some(user) => s.query(
                    "SELECT id, user_id, at, actor, via, action, target, details,
                        full_access, profile_ids
                     FROM audit_log WHERE user_id = $1 AND at >= $2 AND (at, id) < ($4, $5)
                     ORDER BY at DESC, id DESC LIMIT $3",
                    &[&user, &since, &limit, &before_at, &before_id],
                )?,
                None => s.query(
                    "SELECT id, user_id, at, actor, via, action, target, details,
                        full_access, profile_ids
                     FROM audit_log WHERE at >= $1 AND (at, id) < ($3, $4)
                     ORDER BY at DESC, id DESC LIMIT $2",
                    &[&since, &limit, &before_at, &before_id],
                )?,
            };
            rows.iter().map(from_row).collect()
        })
    }

    fn prune_audit(&self, before: Timestamp, limit: usize) -> StoreResult<u64> {
        self.prune(
            concat!(
                "DELETE FROM audit_log WHERE id IN (
                SELECT id FROM audit_log WHERE ",
                keyhook_core::before_sql!("at", "$1"),
                " ORDER BY",
                " at, id LIMIT $2)"
            ),
            before,
            limit,
        )
    }
}
