//! Secret rotation with a grace period and the reason a webhook was disabled (secrets+delivery
//! rules): `keyhook_core::store::SecretQueries`.

use rusqlite::{params, OptionalExtension};

use super::Conn;
use crate::error::{in_row, sql};
use crate::time::Timestamp;
use keyhook_core::secrets::{seal_cell, seal_opt, SecretCell, SigningCells, SECRET_COLUMNS};
use keyhook_core::store::{SecretQueries, Signing, StoreError, StoreResult};

impl SecretQueries for Conn {
    fn set_secret(
        &self,
        id: &str,
        secret: &str,
        previous: Option<(&str, Timestamp)>,
        now: Timestamp,
    ) -> StoreResult<()> {
        sql(|| {
            keyhook_core::secrets::check_recorded(self.lock_secrets_fingerprint()?.as_deref())?;
            self.0
                .prepare_cached(
                    "UPDATE webhooks SET secret = ?2, previous_secret = ?3,
                        previous_secret_expires_at = ?4, updated_at = ?5 WHERE id = ?1",
                )?
                .execute(params![
                    id,
                    seal_cell(id, "secret", secret)?,
                    seal_opt(id, "previous_secret", previous.map(|(s, _)| s))?,
                    previous.map(|(_, t)| t.0),
                    now.0
                ])?;
            Ok(())
        })
    }

    /// The previous secret only while its grace period lasts, whether or not the worker has
    /// deleted it yet.
    fn signing(&self, id: &str, now: Timestamp) -> StoreResult<Option<Signing>> {
        sql(|| {
            Ok(self
                .0
                .prepare_cached(concat!(
                    "SELECT is_active, url, secret,
                        CASE WHEN ",
                    keyhook_core::secret_in_grace_sql!("?2"),
                    " THEN previous_secret END,
                        full_access, profile_ids,
                        CASE WHEN ",
                    keyhook_core::secret_in_grace_sql!("?2"),
                    " THEN previous_secret_expires_at END,
                        signing, signing_key,
                        CASE WHEN ",
                    keyhook_core::secret_in_grace_sql!("?2"),
                    " THEN previous_signing_key END,
                        headers, held_until
                     FROM webhooks WHERE id = ?1"
                ))?
                .query_row(params![id, now.0], |r| {
                    let (secret, previous_secret): (String, Option<String>) =
                        (r.get(2)?, r.get(3)?);
                    let (mode, key): (String, Option<String>) = (r.get(7)?, r.get(8)?);
                    let (previous_key, headers): (Option<String>, Option<String>) =
                        (r.get(9)?, r.get(10)?);
                    let (secrets, headers) = SigningCells {
                        id,
                        mode: &mode,
                        secret: &secret,
                        previous_secret: previous_secret.as_deref(),
                        signing_key: key.as_deref(),
                        previous_signing_key: previous_key.as_deref(),
                        headers: headers.as_deref(),
                    }
                    .open()
                    .map_err(in_row)?;
                    let profile_ids: String = r.get(5)?;
                    Ok(Signing {
                        is_active: r.get(0)?,
                        full_access: r.get(4)?,
                        profile_ids: super::json_strings(&profile_ids)?,
                        url: r.get(1)?,
                        secrets,
                        headers,
                        grace_ends_at: r.get::<_, Option<i64>>(6)?.map(Timestamp),
                        held_until: r.get::<_, Option<i64>>(11)?.map(Timestamp),
                    })
                })
                .optional()?)
        })
    }

    fn any_expired_secret(&self, now: Timestamp) -> StoreResult<bool> {
        sql(|| {
            Ok(self
                .0
                .prepare_cached(concat!(
                    "SELECT EXISTS (SELECT 1 FROM webhooks WHERE ",
                    keyhook_core::secret_expired_sql!("?1"),
                    ")"
                ))?
                .query_row([now.0], |r| r.get(0))?)
        })
    }

    fn drop_expired_secrets(&self, now: Timestamp) -> StoreResult<usize> {
        sql(|| {
            Ok(self
                .0
                .prepare_cached(concat!(
                    "UPDATE webhooks SET previous_secret = NULL, previous_signing_key = NULL,
                        previous_secret_expires_at = NULL
                     WHERE ",
                    keyhook_core::secret_expired_sql!("?1")
                ))?
                .execute([now.0])?)
        })
    }

    fn set_signing_key(
        &self,
        id: &str,
        private: &str,
        public: &str,
        previous: Option<(&str, Timestamp)>,
        now: Timestamp,
    ) -> StoreResult<()> {
        sql(|| {
            keyhook_core::secrets::check_recorded(self.lock_secrets_fingerprint()?.as_deref())?;
            self.0
                .prepare_cached(
                    "UPDATE webhooks SET signing_key = ?2, public_key = ?3,
                        previous_signing_key = ?4,
                        previous_secret_expires_at = coalesce(?5, previous_secret_expires_at),
                        updated_at = ?6 WHERE id = ?1",
                )?
                .execute(params![
                    id,
                    seal_cell(id, "signing_key", private)?,
                    public,
                    seal_opt(id, "previous_signing_key", previous.map(|(s, _)| s))?,
                    previous.map(|(_, t)| t.0),
                    now.0
                ])?;
            Ok(())
        })
    }

    fn secret_cells(&self) -> StoreResult<Vec<SecretCell>> {
        sql(|| {
            let mut out = Vec::new();
            for column in SECRET_COLUMNS {
                let mut stmt = self.0.prepare(&format!(
                    "SELECT id, {column} FROM webhooks WHERE {column} IS NOT NULL ORDER BY id"
                ))?;
                let rows = stmt.query_map([], |r| {
                    Ok(SecretCell {
                        row: r.get(0)?,
                        column,
                        value: r.get(1)?,
                    })
                })?;
                for cell in rows {
                    out.push(cell?);
                }
            }
            Ok(out)
        })
    }

    fn set_secret_cell(&self, row: &str, column: &str, value: &str) -> StoreResult<()> {
        let column = SECRET_COLUMNS
            .iter()
            .find(|c| **c == column)
            .ok_or_else(|| StoreError::Broken(format!("{column} is not a secret column")))?;
        sql(|| {
            self.0
                .prepare(&format!("UPDATE webhooks SET {column} = ?2 WHERE id = ?1"))?
                .execute(params![row, value])?;
            Ok(())
        })
    }

    fn secrets_fingerprint(&self) -> StoreResult<Option<String>> {
        sql(|| {
            Ok(self
                .0
                .prepare_cached("SELECT fingerprint FROM secrets_key WHERE id = 1")?
                .query_row([], |r| r.get(0))
                .optional()?)
        })
    }

    fn set_secrets_fingerprint(&self, fingerprint: &str) -> StoreResult<()> {
        sql(|| {
            self.0
                .prepare_cached(
                    "INSERT INTO secrets_key (id, fingerprint) VALUES (1, ?1)
                     ON CONFLICT (id) DO UPDATE SET fingerprint = excluded.fingerprint",
                )?
                .execute([fingerprint])?;
            Ok(())
        })
    }

    fn disabled_reason(&self, id: &str) -> StoreResult<Option<String>> {
        sql(|| {
            Ok(self
                .0
                .prepare_cached("SELECT disabled_reason FROM webhooks WHERE id = ?1")?
                .query_row([id], |r| r.get(0))
                .optional()?
                .flatten())
        })
    }
}
