//! Secret rotation with a grace period and the reason a webhook was disabled:
//! `keyhook-sqlite/src/secrets.rs`, in PostgreSQL.

use super::PgStore;
use keyhook_core::store::{SecretQueries, Signing, StoreResult};
use keyhook_core::time::Timestamp;

impl SecretQueries for PgStore {
    fn set_secret(
        &self,
        id: &str,
        secret: &str,
        previous: Option<(&str, Timestamp)>,
        now: Timestamp,
    ) -> StoreResult<()> {
        let (old, until) = (previous.map(|(s, _)| s), previous.map(|(_, t)| t.0));
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
                    " THEN previous_secret_expires_at END, held_until
                 FROM webhooks WHERE id = $1"
                ),
                &[&id, &now.0],
            )?
            else {
                return Ok(None);
            };
            let mut secrets = vec![r.try_get::<_, String>(2)?];
            secrets.extend(r.try_get::<_, Option<String>>(3)?);
            Ok(Some(Signing {
                is_active: r.try_get(0)?,
                full_access: r.try_get(4)?,
                profile_ids: super::json_strings(r.try_get(5)?)?,
                url: r.try_get(1)?,
                secrets,
                grace_ends_at: r.try_get::<_, Option<i64>>(6)?.map(Timestamp),
                held_until: r.try_get::<_, Option<i64>>(7)?.map(Timestamp),
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
                    "UPDATE webhooks SET previous_secret = NULL, previous_secret_expires_at = NULL
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
}
