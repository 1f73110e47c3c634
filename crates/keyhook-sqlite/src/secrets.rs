//! Secret rotation with a grace period and the reason a webhook was disabled (secrets+delivery
//! rules): `keyhook_core::store::SecretQueries`.

use rusqlite::{params, OptionalExtension};

use super::Conn;
use crate::error::sql;
use crate::time::Timestamp;
use keyhook_core::store::{SecretQueries, Signing, StoreResult};

impl SecretQueries for Conn {
    fn set_secret(
        &self,
        id: &str,
        secret: &str,
        previous: Option<(&str, Timestamp)>,
        now: Timestamp,
    ) -> StoreResult<()> {
        sql(|| {
            self.0
                .prepare_cached(
                    "UPDATE webhooks SET secret = ?2, previous_secret = ?3,
                        previous_secret_expires_at = ?4, updated_at = ?5 WHERE id = ?1",
                )?
                .execute(params![
                    id,
                    secret,
                    previous.map(|(s, _)| s),
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
                    " THEN previous_secret_expires_at END, held_until
                     FROM webhooks WHERE id = ?1"
                ))?
                .query_row(params![id, now.0], |r| {
                    let mut secrets = vec![r.get::<_, String>(2)?];
                    secrets.extend(r.get::<_, Option<String>>(3)?);
                    let profile_ids: String = r.get(5)?;
                    Ok(Signing {
                        is_active: r.get(0)?,
                        full_access: r.get(4)?,
                        profile_ids: super::json_strings(&profile_ids)?,
                        url: r.get(1)?,
                        secrets,
                        grace_ends_at: r.get::<_, Option<i64>>(6)?.map(Timestamp),
                        held_until: r.get::<_, Option<i64>>(7)?.map(Timestamp),
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
                    "UPDATE webhooks SET previous_secret = NULL, previous_secret_expires_at = NULL
                     WHERE ",
                    keyhook_core::secret_expired_sql!("?1")
                ))?
                .execute([now.0])?)
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
