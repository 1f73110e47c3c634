//! The developer portal's links and sessions: `keyhook-sqlite/src/portal.rs`, in PostgreSQL.
//! Sessions live in the database, so every instance sharing it knows every session.

use postgres::Row;

use super::{Fail, PgStore};
use keyhook_core::store::{PortalLinkRow, PortalQueries, PortalSessionRow, StoreResult};
use keyhook_core::time::Timestamp;

macro_rules! link_columns {
    () => {
        "l.id, l.user_id, l.full_access, l.profile_ids, l.read_only, l.minted_by_key, \
         l.minted_by, l.created_at, l.expires_at, l.used_at, l.revoked_at"
    };
}

fn link_at(r: &Row, at: usize) -> Result<PortalLinkRow, Fail> {
    Ok(PortalLinkRow {
        id: r.try_get(at)?,
        user_id: r.try_get(at + 1)?,
        full_access: r.try_get(at + 2)?,
        profile_ids: super::json_strings(r.try_get(at + 3)?)?,
        read_only: r.try_get(at + 4)?,
        minted_by_key: r.try_get(at + 5)?,
        minted_by: r.try_get(at + 6)?,
        created_at: Timestamp(r.try_get(at + 7)?),
        expires_at: Timestamp(r.try_get(at + 8)?),
        used_at: r.try_get::<_, Option<i64>>(at + 9)?.map(Timestamp),
        revoked_at: r.try_get::<_, Option<i64>>(at + 10)?.map(Timestamp),
    })
}

fn session(r: &Row) -> Result<PortalSessionRow, Fail> {
    Ok(PortalSessionRow {
        id: r.try_get(0)?,
        link_id: r.try_get(1)?,
        created_at: Timestamp(r.try_get(2)?),
        expires_at: Timestamp(r.try_get(3)?),
    })
}

impl PortalQueries for PgStore {
    fn insert_portal_link(&self, l: &PortalLinkRow, token_hash: &str) -> StoreResult<()> {
        let profile_ids = super::to_json(&l.profile_ids);
        let used_at = l.used_at.map(|t| t.0);
        let revoked_at = l.revoked_at.map(|t| t.0);
        self.run(|s| {
            s.execute(
                "INSERT INTO portal_links (id, user_id, token_hash, full_access, profile_ids,
                    read_only, minted_by_key, minted_by, created_at, expires_at, used_at,
                    revoked_at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
                &[
                    &l.id,
                    &l.user_id,
                    &token_hash,
                    &l.full_access,
                    &profile_ids,
                    &l.read_only,
                    &l.minted_by_key,
                    &l.minted_by,
                    &l.created_at.0,
                    &l.expires_at.0,
                    &used_at,
                    &revoked_at,
                ],
            )?;
            Ok(())
        })
    }

    fn portal_link_by_token(&self, token_hash: &str) -> StoreResult<Option<PortalLinkRow>> {
        self.run(|s| {
            let row = s.query_opt(
                concat!(
                    "SELECT ",
                    link_columns!(),
                    " FROM portal_links l WHERE l.token_hash = $1"
                ),
                &[&token_hash],
            )?;
            row.as_ref().map(|r| link_at(r, 0)).transpose()
        })
    }

    fn portal_link(&self, user: &str, id: &str) -> StoreResult<Option<PortalLinkRow>> {
        self.run(|s| {
            let row = s.query_opt(
                concat!(
                    "SELECT ",
                    link_columns!(),
                    " FROM portal_links l WHERE l.user_id = $1 AND l.id = $2"
                ),
                &[&user, &id],
            )?;
            row.as_ref().map(|r| link_at(r, 0)).transpose()
        })
    }

    fn use_portal_link(&self, id: &str, at: Timestamp) -> StoreResult<bool> {
        self.run(|s| {
            let n = s.execute(
                "UPDATE portal_links SET used_at = $2
                 WHERE id = $1 AND used_at IS NULL AND revoked_at IS NULL",
                &[&id, &at.0],
            )?;
            Ok(n == 1)
        })
    }

    fn revoke_portal_links(
        &self,
        user: &str,
        id: Option<&str>,
        at: Timestamp,
    ) -> StoreResult<Vec<String>> {
        self.run(|s| {
            let rows = s.query(
                "UPDATE portal_links SET revoked_at = $3
                 WHERE user_id = $1 AND ($2::TEXT IS NULL OR id = $2) AND revoked_at IS NULL
                 RETURNING id",
                &[&user, &id, &at.0],
            )?;
            let ids = rows
                .iter()
                .map(|r| r.try_get(0))
                .collect::<Result<Vec<String>, _>>()?;
            s.execute(
                "DELETE FROM portal_sessions WHERE link_id IN
                    (SELECT id FROM portal_links
                     WHERE user_id = $1 AND ($2::TEXT IS NULL OR id = $2))",
                &[&user, &id],
            )?;
            Ok(ids)
        })
    }

    fn list_portal_links(&self, user: &str) -> StoreResult<Vec<PortalLinkRow>> {
        self.run(|s| {
            let rows = s.query(
                concat!(
                    "SELECT ",
                    link_columns!(),
                    " FROM portal_links l WHERE l.user_id = $1 AND l.revoked_at IS NULL
                      ORDER BY l.created_at DESC, l.id DESC"
                ),
                &[&user],
            )?;
            rows.iter().map(|r| link_at(r, 0)).collect()
        })
    }

    fn insert_portal_session(&self, p: &PortalSessionRow, token_hash: &str) -> StoreResult<()> {
        self.run(|s| {
            s.execute(
                "INSERT INTO portal_sessions (id, link_id, token_hash, created_at, expires_at)
                 VALUES ($1, $2, $3, $4, $5)",
                &[
                    &p.id,
                    &p.link_id,
                    &token_hash,
                    &p.created_at.0,
                    &p.expires_at.0,
                ],
            )?;
            Ok(())
        })
    }

    fn portal_session_by_token(
        &self,
        token_hash: &str,
    ) -> StoreResult<Option<(PortalSessionRow, PortalLinkRow)>> {
        self.run(|s| {
            let row = s.query_opt(
                concat!(
                    "SELECT s.id, s.link_id, s.created_at, s.expires_at, ",
                    link_columns!(),
                    " FROM portal_sessions s JOIN portal_links l ON l.id = s.link_id
                      WHERE s.token_hash = $1"
                ),
                &[&token_hash],
            )?;
            row.as_ref()
                .map(|r| Ok((session(r)?, link_at(r, 4)?)))
                .transpose()
        })
    }

    fn list_portal_sessions(&self, user: &str) -> StoreResult<Vec<PortalSessionRow>> {
        self.run(|s| {
            let rows = s.query(
                "SELECT s.id, s.link_id, s.created_at, s.expires_at
                 FROM portal_sessions s JOIN portal_links l ON l.id = s.link_id
                 WHERE l.user_id = $1
                 ORDER BY s.created_at DESC, s.id DESC",
                &[&user],
            )?;
            rows.iter().map(session).collect()
        })
    }

    fn delete_portal_session(&self, id: &str) -> StoreResult<bool> {
        self.run(|s| {
            let n = s.execute("DELETE FROM portal_sessions WHERE id = $1", &[&id])?;
            Ok(n == 1)
        })
    }

    fn prune_portal_sessions(&self, cutoff: Timestamp, limit: usize) -> StoreResult<u64> {
        let statement =
            keyhook_core::prune_portal_sessions_sql!("$1", "$2", " FOR UPDATE SKIP LOCKED");
        self.prune(statement, cutoff, limit)
    }

    fn prune_portal_links(&self, cutoff: Timestamp, limit: usize) -> StoreResult<u64> {
        let statement =
            keyhook_core::prune_portal_links_sql!("$1", "$2", " FOR UPDATE OF l SKIP LOCKED");
        self.prune(statement, cutoff, limit)
    }
}
