//! The developer portal's links and sessions (`keyhook_core::service::portal`), stored by
//! the SHA-256 of their tokens.

use rusqlite::{params, OptionalExtension, Row};

use super::Conn;
use crate::error::sql;
use crate::time::Timestamp;
use keyhook_core::store::{PortalLinkRow, PortalQueries, PortalSessionRow, StoreResult};

const LINK_COLUMNS: &str = "l.id, l.user_id, l.full_access, l.profile_ids, l.read_only, \
     l.minted_by_key, l.minted_by, l.created_at, l.expires_at, l.used_at, l.revoked_at";

fn link_at(r: &Row<'_>, at: usize) -> rusqlite::Result<PortalLinkRow> {
    let profile_ids: String = r.get(at + 3)?;
    Ok(PortalLinkRow {
        id: r.get(at)?,
        user_id: r.get(at + 1)?,
        full_access: r.get(at + 2)?,
        profile_ids: super::json_strings(&profile_ids)?,
        read_only: r.get(at + 4)?,
        minted_by_key: r.get(at + 5)?,
        minted_by: r.get(at + 6)?,
        created_at: Timestamp(r.get(at + 7)?),
        expires_at: Timestamp(r.get(at + 8)?),
        used_at: r.get::<_, Option<i64>>(at + 9)?.map(Timestamp),
        revoked_at: r.get::<_, Option<i64>>(at + 10)?.map(Timestamp),
    })
}

fn link(r: &Row<'_>) -> rusqlite::Result<PortalLinkRow> {
    link_at(r, 0)
}

fn session(r: &Row<'_>) -> rusqlite::Result<PortalSessionRow> {
    Ok(PortalSessionRow {
        id: r.get(0)?,
        link_id: r.get(1)?,
        created_at: Timestamp(r.get(2)?),
        expires_at: Timestamp(r.get(3)?),
    })
}

impl PortalQueries for Conn {
    fn insert_portal_link(&self, l: &PortalLinkRow, token_hash: &str) -> StoreResult<()> {
        sql(|| {
            self.0
                .prepare_cached(
                    "INSERT INTO portal_links (id, user_id, token_hash, full_access, profile_ids,
                        read_only, minted_by_key, minted_by, created_at, expires_at, used_at,
                        revoked_at)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
                )?
                .execute(params![
                    l.id,
                    l.user_id,
                    token_hash,
                    l.full_access,
                    super::to_json(&l.profile_ids),
                    l.read_only,
                    l.minted_by_key,
                    l.minted_by,
                    l.created_at.0,
                    l.expires_at.0,
                    l.used_at.map(|t| t.0),
                    l.revoked_at.map(|t| t.0),
                ])?;
            Ok(())
        })
    }

    fn portal_link_by_token(&self, token_hash: &str) -> StoreResult<Option<PortalLinkRow>> {
        sql(|| {
            Ok(self
                .0
                .prepare_cached(&format!(
                    "SELECT {LINK_COLUMNS} FROM portal_links l WHERE l.token_hash = ?1"
                ))?
                .query_row([token_hash], link)
                .optional()?)
        })
    }

    fn portal_link(&self, user: &str, id: &str) -> StoreResult<Option<PortalLinkRow>> {
        sql(|| {
            Ok(self
                .0
                .prepare_cached(&format!(
                    "SELECT {LINK_COLUMNS} FROM portal_links l WHERE l.user_id = ?1 AND l.id = ?2"
                ))?
                .query_row([user, id], link)
                .optional()?)
        })
    }

    fn use_portal_link(&self, id: &str, at: Timestamp) -> StoreResult<bool> {
        sql(|| {
            let n = self
                .0
                .prepare_cached(
                    "UPDATE portal_links SET used_at = ?2
                     WHERE id = ?1 AND used_at IS NULL AND revoked_at IS NULL",
                )?
                .execute(params![id, at.0])?;
            Ok(n == 1)
        })
    }

    fn revoke_portal_links(
        &self,
        user: &str,
        id: Option<&str>,
        at: Timestamp,
    ) -> StoreResult<Vec<String>> {
        sql(|| {
            let ids: Vec<String> = self
                .0
                .prepare_cached(
                    "UPDATE portal_links SET revoked_at = ?3
                     WHERE user_id = ?1 AND (?2 IS NULL OR id = ?2) AND revoked_at IS NULL
                     RETURNING id",
                )?
                .query_map(params![user, id, at.0], |r| r.get(0))?
                .collect::<rusqlite::Result<_>>()?;
            self.0
                .prepare_cached(
                    "DELETE FROM portal_sessions WHERE link_id IN
                        (SELECT id FROM portal_links
                         WHERE user_id = ?1 AND (?2 IS NULL OR id = ?2))",
                )?
                .execute(params![user, id])?;
            Ok(ids)
        })
    }

    fn list_portal_links(&self, user: &str) -> StoreResult<Vec<PortalLinkRow>> {
        sql(|| {
            Ok(self
                .0
                .prepare_cached(&format!(
                    "SELECT {LINK_COLUMNS} FROM portal_links l
                     WHERE l.user_id = ?1 AND l.revoked_at IS NULL
                     ORDER BY l.created_at DESC, l.id DESC"
                ))?
                .query_map([user], link)?
                .collect::<rusqlite::Result<Vec<_>>>()?)
        })
    }

    fn insert_portal_session(&self, s: &PortalSessionRow, token_hash: &str) -> StoreResult<()> {
        sql(|| {
            self.0
                .prepare_cached(
                    "INSERT INTO portal_sessions (id, link_id, token_hash, created_at, expires_at)
                     VALUES (?1, ?2, ?3, ?4, ?5)",
                )?
                .execute(params![
                    s.id,
                    s.link_id,
                    token_hash,
                    s.created_at.0,
                    s.expires_at.0
                ])?;
            Ok(())
        })
    }

    fn portal_session_by_token(
        &self,
        token_hash: &str,
    ) -> StoreResult<Option<(PortalSessionRow, PortalLinkRow)>> {
        sql(|| {
            Ok(self
                .0
                .prepare_cached(&format!(
                    "SELECT s.id, s.link_id, s.created_at, s.expires_at, {LINK_COLUMNS}
                     FROM portal_sessions s JOIN portal_links l ON l.id = s.link_id
                     WHERE s.token_hash = ?1"
                ))?
                .query_row([token_hash], |r| Ok((session(r)?, link_at(r, 4)?)))
                .optional()?)
        })
    }

    fn list_portal_sessions(&self, user: &str) -> StoreResult<Vec<PortalSessionRow>> {
        sql(|| {
            Ok(self
                .0
                .prepare_cached(
                    "SELECT s.id, s.link_id, s.created_at, s.expires_at
                     FROM portal_sessions s JOIN portal_links l ON l.id = s.link_id
                     WHERE l.user_id = ?1
                     ORDER BY s.created_at DESC, s.id DESC",
                )?
                .query_map([user], session)?
                .collect::<rusqlite::Result<Vec<_>>>()?)
        })
    }

    fn delete_portal_session(&self, id: &str) -> StoreResult<bool> {
        sql(|| {
            let n = self
                .0
                .prepare_cached("DELETE FROM portal_sessions WHERE id = ?1")?
                .execute([id])?;
            Ok(n == 1)
        })
    }

    fn prune_portal_sessions(&self, cutoff: Timestamp, limit: usize) -> StoreResult<u64> {
        let statement = keyhook_core::prune_portal_sessions_sql!("?1", "?2", "");
        self.prune(statement, cutoff, limit)
    }

    fn prune_portal_links(&self, cutoff: Timestamp, limit: usize) -> StoreResult<u64> {
        let statement = keyhook_core::prune_portal_links_sql!("?1", "?2", "");
        self.prune(statement, cutoff, limit)
    }
}
