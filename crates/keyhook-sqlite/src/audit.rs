//! The audit log (`keyhook_core::service::audit`): appended in the change's transaction,
//! listed newest first, pruned in batches.

use rusqlite::{params, Row};

use super::Conn;
use crate::error::sql;
use crate::time::Timestamp;
use keyhook_core::model::AuditEntry;
use keyhook_core::store::{AuditQueries, StoreResult};

fn from_row(r: &Row<'_>) -> rusqlite::Result<AuditEntry> {
    let details: String = r.get(7)?;
    let profile_ids: String = r.get(9)?;
    Ok(AuditEntry {
        id: r.get(0)?,
        user_id: r.get(1)?,
        at: Timestamp(r.get(2)?),
        actor: r.get(3)?,
        via: r.get(4)?,
        action: r.get(5)?,
        target: r.get(6)?,
        details: serde_json::from_str(&details).map_err(|e| {
            rusqlite::Error::FromSqlConversionFailure(7, rusqlite::types::Type::Text, Box::new(e))
        })?,
        full_access: r.get(8)?,
        profile_ids: super::json_strings(&profile_ids)?,
    })
}

impl AuditQueries for Conn {
    fn insert_audit(&self, e: &AuditEntry) -> StoreResult<()> {
        sql(|| {
            self.0
                .prepare_cached(
                    "INSERT INTO audit_log (user_id, at, actor, via, action, target, details,
                        full_access, profile_ids)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                )?
                .execute(params![
                    e.user_id,
                    e.at.0,
                    e.actor,
                    e.via,
                    e.action,
                    e.target,
                    e.details.to_string(),
                    e.full_access,
                    super::to_json(&e.profile_ids)
                ])?;
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
        sql(|| {
            let since = since.map_or(i64::MIN, |t| t.0);
            let (before_at, before_id) = before.map_or((i64::MAX, i64::MAX), |(t, id)| (t.0, id));
            let rows = match user {
                Some(user) => self
                    .0
                    .prepare_cached(
                        "SELECT id, user_id, at, actor, via, action, target, details,
                            full_access, profile_ids
                         FROM audit_log WHERE user_id = ?1 AND at >= ?2 AND (at, id) < (?4, ?5)
                         ORDER BY at DESC, id DESC LIMIT ?3",
                    )?
                    .query_map(params![user, since, limit, before_at, before_id], from_row)?
                    .collect::<rusqlite::Result<Vec<_>>>()?,
                None => self
                    .0
                    .prepare_cached(
                        "SELECT id, user_id, at, actor, via, action, target, details,
                            full_access, profile_ids
                         FROM audit_log WHERE at >= ?1 AND (at, id) < (?3, ?4)
                         ORDER BY at DESC, id DESC LIMIT ?2",
                    )?
                    .query_map(params![since, limit, before_at, before_id], from_row)?
                    .collect::<rusqlite::Result<Vec<_>>>()?,
            };
            Ok(rows)
        })
    }

    fn prune_audit(&self, before: Timestamp, limit: usize) -> StoreResult<u64> {
        self.prune(
            concat!(
                "DELETE FROM audit_log WHERE id IN (
                SELECT id FROM audit_log WHERE ",
                keyhook_core::before_sql!("at", "?1"),
                " ORDER BY",
                " at, id LIMIT ?2)"
            ),
            before,
            limit,
        )
    }
}
