//! Secret rotation with a grace period and the reason a webhook was disabled:
//! `keyhook-sqlite/src/secrets.rs`, in PostgreSQL.

use super::migrations::LOCK_CLASS;
use super::PgStore;
use keyhook_core::secrets::{seal_cell, seal_opt, SecretCell, SigningCells, SECRET_COLUMNS};
use keyhook_core::store::{SecretQueries, Signing, StoreError, StoreResult};
use keyhook_core::time::Timestamp;

/// `(LOCK_CLASS, SECRETS_KEY_LOCK)`: held by a transaction that found no secrets key recorded.
const SECRETS_KEY_LOCK: i32 = 1;

impl SecretQueries for PgStore {
    fn set_secret(
        &self,
        id: &str,
        secret: &str,
        previous: Option<(&str, Timestamp)>,
        now: Timestamp,
    ) -> StoreResult<()> {
        keyhook_core::secrets::check_recorded(self.lock_secrets_fingerprint()?.as_deref())?;
        let until = previous.map(|(_, t)| t.0);
        let old = seal_opt(id, "previous_secret", previous.map(|(s, _)| s))?;
        let secret = seal_cell(id, "secret", secret)?;
        self.run(|s| {
            s.execute(
                "UPDATE webhooks SET secret = $2, previous_secret = $3,
                    previous_secret_expires_at = $4, updated_at = $5 WHERE id = $1",
                &[&id, &secret, &old, &until, &now.0],
            )?;
            Ok(())
        })
    }

    fn signing(&self, id: &str, now: Timestamp) -> StoreResult<Option<Signing>> {
        self.run(|s| {
            let Some(r) = s.query_opt(
                concat!(
                    "SELECT is_active, url, secret,
                    CASE WHEN ",
                    keyhook_core::secret_in_grace_sql!("$2"),
                    " THEN previous_secret END,
                    full_access, profile_ids,
                    CASE WHEN ",
                    keyhook_core::secret_in_grace_sql!("$2"),
                    " THEN previous_secret_expires_at END,
                    signing, signing_key,
                    CASE WHEN ",
                    keyhook_core::secret_in_grace_sql!("$2"),
                    " THEN previous_signing_key END,
                    headers, held_until
                 FROM webhooks WHERE id = $1"
                ),
                &[&id, &now.0],
            )?
            else {
                return Ok(None);
            };
            let (secrets, headers) = SigningCells {
                id,
                mode: r.try_get(7)?,
                secret: r.try_get(2)?,
                previous_secret: r.try_get(3)?,
                signing_key: r.try_get(8)?,
                previous_signing_key: r.try_get(9)?,
                headers: r.try_get(10)?,
            }
            .open()?;
            Ok(Some(Signing {
                is_active: r.try_get(0)?,
                full_access: r.try_get(4)?,
                profile_ids: super::json_strings(r.try_get(5)?)?,
                url: r.try_get(1)?,
                secrets,
                headers,
                grace_ends_at: r.try_get::<_, Option<i64>>(6)?.map(Timestamp),
                held_until: r.try_get::<_, Option<i64>>(11)?.map(Timestamp),
            }))
        })
    }

    fn any_expired_secret(&self, now: Timestamp) -> StoreResult<bool> {
        self.run(|s| {
            Ok(s.query_one(
                concat!(
                    "SELECT EXISTS (SELECT 1 FROM webhooks WHERE ",
                    keyhook_core::secret_expired_sql!("$1"),
                    ")"
                ),
                &[&now.0],
            )?
            .get(0))
        })
    }

    fn drop_expired_secrets(&self, now: Timestamp) -> StoreResult<usize> {
        self.run(|s| {
            let n = s.execute(
                concat!(
                    "UPDATE webhooks SET previous_secret = NULL, previous_signing_key = NULL,
                    previous_secret_expires_at = NULL
                 WHERE ",
                    keyhook_core::secret_expired_sql!("$1")
                ),
                &[&now.0],
            )?;
            Ok(usize::try_from(n).unwrap_or(usize::MAX))
        })
    }

    fn disabled_reason(&self, id: &str) -> StoreResult<Option<String>> {
        self.run(|s| {
            Ok(
                s.query_opt("SELECT disabled_reason FROM webhooks WHERE id = $1", &[&id])?
                    .map(|r| r.try_get::<_, Option<String>>(0))
                    .transpose()?
                    .flatten(),
            )
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
        keyhook_core::secrets::check_recorded(self.lock_secrets_fingerprint()?.as_deref())?;
        let until = previous.map(|(_, t)| t.0);
        let old = seal_opt(id, "previous_signing_key", previous.map(|(s, _)| s))?;
        let private = seal_cell(id, "signing_key", private)?;
        self.run(|s| {
            s.execute(
                "UPDATE webhooks SET signing_key = $2, public_key = $3, previous_signing_key = $4,
                    previous_secret_expires_at = coalesce($5, previous_secret_expires_at),
                    updated_at = $6 WHERE id = $1",
                &[&id, &private, &public, &old, &until, &now.0],
            )?;
            Ok(())
        })
    }

    fn secret_cells(&self) -> StoreResult<Vec<SecretCell>> {
        self.run(|s| {
            let mut out = Vec::new();
            for column in SECRET_COLUMNS {
                let rows = s.query(
                    &format!(
                        "SELECT id, {column} FROM webhooks WHERE {column} IS NOT NULL ORDER BY id"
                    ),
                    &[],
                )?;
                for r in rows {
                    out.push(SecretCell {
                        row: r.try_get(0)?,
                        column,
                        value: r.try_get(1)?,
                    });
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
        self.run(|s| {
            s.execute(
                &format!("UPDATE webhooks SET {column} = $2 WHERE id = $1"),
                &[&row, &value],
            )?;
            Ok(())
        })
    }

    fn secrets_fingerprint(&self) -> StoreResult<Option<String>> {
        self.run(|s| {
            Ok(
                s.query_opt("SELECT fingerprint FROM secrets_key WHERE id = 1", &[])?
                    .map(|r| r.try_get(0))
                    .transpose()?,
            )
        })
    }

    /// The recorded fingerprint, its row locked until the transaction ends. A database that
    /// records none has no row to lock: then the transaction takes the secrets key's advisory
    /// lock and looks again, in a new snapshot. Two instances giving a new database their
    /// keys at the same moment so take turns, and the second finds the first's key recorded
    /// (and refuses its own) instead of recording its own over it.
    fn lock_secrets_fingerprint(&self) -> StoreResult<Option<String>> {
        const LOCKED: &str = "SELECT fingerprint FROM secrets_key WHERE id = 1 FOR UPDATE";
        self.run(|s| {
            if let Some(row) = s.query_opt(LOCKED, &[])? {
                return Ok(Some(row.try_get(0)?));
            }
            s.execute(
                "SELECT pg_advisory_xact_lock($1, $2)",
                &[&LOCK_CLASS, &SECRETS_KEY_LOCK],
            )?;
            Ok(s.query_opt(LOCKED, &[])?
                .map(|r| r.try_get(0))
                .transpose()?)
        })
    }

    fn set_secrets_fingerprint(&self, fingerprint: &str) -> StoreResult<()> {
        self.run(|s| {
            s.execute(
                "INSERT INTO secrets_key (id, fingerprint) VALUES (1, $1)
                 ON CONFLICT (id) DO UPDATE SET fingerprint = excluded.fingerprint",
                &[&fingerprint],
            )?;
            Ok(())
        })
    }
}
