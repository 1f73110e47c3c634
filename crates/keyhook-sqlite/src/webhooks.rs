use rusqlite::{params, OptionalExtension, Row};

use super::{json_strings, to_json, Conn};
use crate::error::{in_row, sql};
use crate::model::{DeliveryAttempt, DeliveryControl, Webhook};
use crate::time::Timestamp;
use keyhook_core::rate::RateLimit;
use keyhook_core::store::KeyQueries;
use keyhook_core::store::{AttemptRecord, FailCounter, Listed, StoreResult, WebhookQueries};

/// The columns [`from_row`] reads, as a macro so that constant queries can be built with
/// `concat!`.
macro_rules! columns {
    () => {
        "id, user_id, url, events, secret, is_active, fail_count, created_at,
    updated_at, full_access, profile_ids, filter, ephemeral, retry_schedule, timeout_ms, rate,
    signing, public_key, signing_key, headers, ordered"
    };
}

const COLUMNS: &str = columns!();

/// A user's webhooks in list order, which the index `webhooks_user` holds them in (no sort).
pub(crate) const LIST_BY_USER: &str = concat!(
    "SELECT ",
    columns!(),
    " FROM webhooks WHERE user_id = ?1 ORDER BY created_at, id"
);

fn from_row(r: &Row<'_>) -> rusqlite::Result<Webhook> {
    let events: String = r.get(3)?;
    let profile_ids: String = r.get(10)?;
    let signing: String = r.get(16)?;
    let mut w = Webhook {
        id: r.get(0)?,
        user_id: r.get(1)?,
        url: r.get(2)?,
        events: json_strings(&events)?,
        full_access: r.get(9)?,
        profile_ids: json_strings(&profile_ids)?,
        filter: r.get(11)?,
        secret: r.get(4)?,
        is_active: r.get(5)?,
        fail_count: r.get(6)?,
        created_at: Timestamp(r.get(7)?),
        updated_at: Timestamp(r.get(8)?),
        ephemeral: r.get(12)?,
        control: DeliveryControl {
            retry_schedule: r
                .get::<_, Option<String>>(13)?
                .map(|s| json_strings(&s))
                .transpose()?,
            timeout_ms: r.get(14)?,
            rate: r
                .get::<_, Option<String>>(15)?
                .and_then(|s| RateLimit::parse(&s).ok()),
            ordered: r.get(20)?,
        },
        signing: keyhook_core::model::SigningMode::parse(&signing)
            .map_err(|m| in_row(keyhook_core::store::StoreError::Broken(m)))?,
        public_key: r.get(17)?,
        header_names: Vec::new(),
        private: Default::default(),
    };
    let signing_key: Option<String> = r.get(18)?;
    let headers: Option<String> = r.get(19)?;
    keyhook_core::secrets::open_webhook(&mut w, signing_key.as_deref(), headers.as_deref())
        .map_err(in_row)?;
    Ok(w)
}

use keyhook_core::store::SecretQueries;

impl WebhookQueries for Conn {
    fn count_webhooks(&self, user: &str) -> StoreResult<i64> {
        sql(|| {
            Ok(self
                .0
                .prepare_cached("SELECT count(*) FROM webhooks WHERE user_id = ?1")?
                .query_row([user], |r| r.get(0))?)
        })
    }

    fn insert_webhook(&self, w: &Webhook) -> StoreResult<()> {
        sql(|| {
            self.ensure_user(&w.user_id, w.created_at)?;
            keyhook_core::secrets::check_recorded(self.lock_secrets_fingerprint()?.as_deref())?;
            let sealed = keyhook_core::secrets::seal_webhook(w)?;
            self.0
                .prepare_cached(
                    "INSERT INTO webhooks (id, user_id, url, events, secret, is_active, fail_count,
                        created_at, updated_at, full_access, profile_ids, filter, ephemeral, heartbeat_at,
                        retry_schedule, timeout_ms, rate, signing, public_key, signing_key, headers, ordered)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16,
                        ?17, ?18, ?19, ?20, ?21, ?22)",
                )?
                .execute(params![
                    w.id,
                    w.user_id,
                    w.url,
                    to_json(&w.events),
                    sealed.secret,
                    w.is_active,
                    w.fail_count,
                    w.created_at.0,
                    w.updated_at.0,
                    w.full_access,
                    to_json(&w.profile_ids),
                    w.filter,
                    w.ephemeral,
                    w.ephemeral.then_some(w.created_at.0),
                    w.control.retry_schedule.as_deref().map(to_json),
                    w.control.timeout_ms,
                    w.control.rate.map(|r| r.to_string()),
                    w.signing.as_str(),
                    w.public_key,
                    sealed.signing_key,
                    sealed.headers,
                    w.control.ordered
                ])?;
            Ok(())
        })
    }

    /// The webhooks of `user`, oldest first ([`WebhookQueries::listed_webhooks`], a copy
    /// only if that list is shared).
    fn list_webhooks(&self, user: &str) -> StoreResult<Vec<Webhook>> {
        self.listed_webhooks(user).map(Listed::unwrap_or_clone)
    }

    /// The ones read with the key just before
    /// ([`keyhook_core::store::Storage::key_by_hash_ahead`]) if they are these.
    fn listed_webhooks(&self, user: &str) -> StoreResult<Listed<Webhook>> {
        match self.1.webhooks_of(user) {
            Some(list) => Ok(list),
            None => self.list_webhooks_now(user).map(Listed::new),
        }
    }

    fn webhook(&self, user: &str, id: &str) -> StoreResult<Option<Webhook>> {
        sql(|| {
            let sql = format!("SELECT {COLUMNS} FROM webhooks WHERE id = ?1 AND user_id = ?2");
            Ok(self
                .0
                .prepare_cached(&sql)?
                .query_row([id, user], from_row)
                .optional()?)
        })
    }

    /// The webhooks of `user` whose id starts with `prefix` (compared byte for byte, no
    /// pattern characters), at most `limit` of them, in id order.
    fn webhooks_by_id_prefix(
        &self,
        user: &str,
        prefix: &str,
        limit: i64,
    ) -> StoreResult<Vec<Webhook>> {
        sql(|| {
            let sql = format!(
                "SELECT {COLUMNS} FROM webhooks
                 WHERE user_id = ?1 AND substr(id, 1, length(?2)) = ?2 ORDER BY id LIMIT ?3"
            );
            let mut stmt = self.0.prepare_cached(&sql)?;
            let rows = stmt.query_map(params![user, prefix, limit], from_row)?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
    }

    /// Writes the mutable fields of `w`.
    fn update_webhook(&self, w: &Webhook) -> StoreResult<()> {
        sql(|| {
            keyhook_core::secrets::check_recorded(self.lock_secrets_fingerprint()?.as_deref())?;
            let sealed = keyhook_core::secrets::seal_webhook(w)?;
            self.0
                .prepare_cached(concat!(
                    "UPDATE webhooks SET url = ?2, events = ?3, is_active = ?4, fail_count = ?5,
                        updated_at = ?6, full_access = ?7, profile_ids = ?8, filter = ?9,
                        retry_schedule = ?10, timeout_ms = ?11, rate = ?12,
                        signing = ?13, public_key = ?14, signing_key = ?15, headers = ?16,
                    ordered = ?17, ",
                    keyhook_core::enable_clears_reason_sql!("?4"),
                    "
                     WHERE id = ?1"
                ))?
                .execute(params![
                    w.id,
                    w.url,
                    to_json(&w.events),
                    w.is_active,
                    w.fail_count,
                    w.updated_at.0,
                    w.full_access,
                    to_json(&w.profile_ids),
                    w.filter,
                    w.control.retry_schedule.as_deref().map(to_json),
                    w.control.timeout_ms,
                    w.control.rate.map(|r| r.to_string()),
                    w.signing.as_str(),
                    w.public_key,
                    sealed.signing_key,
                    sealed.headers,
                    w.control.ordered
                ])?;
            Ok(())
        })
    }

    fn delete_webhook(&self, id: &str) -> StoreResult<bool> {
        sql(|| {
            Ok(self
                .0
                .prepare_cached("DELETE FROM webhooks WHERE id = ?1")?
                .execute([id])?
                > 0)
        })
    }

    /// Inside a write transaction (`BEGIN IMMEDIATE`) the database is locked already: a plain
    /// read is the locked read.
    fn lock_fail_counter(&self, webhook_id: &str) -> StoreResult<Option<FailCounter>> {
        sql(|| {
            Ok(self
                .0
                .prepare_cached(
                    "SELECT user_id, is_active, fail_count, disabled_reason, updated_at
                     FROM webhooks WHERE id = ?1",
                )?
                .query_row([webhook_id], |r| {
                    Ok(FailCounter {
                        user_id: r.get(0)?,
                        is_active: r.get(1)?,
                        fail_count: r.get(2)?,
                        disabled_reason: r.get(3)?,
                        updated_at: Timestamp(r.get(4)?),
                    })
                })
                .optional()?)
        })
    }

    fn set_fail_counter(&self, webhook_id: &str, c: &FailCounter) -> StoreResult<()> {
        sql(|| {
            self.0
                .prepare_cached(
                    "UPDATE webhooks SET fail_count = ?2, is_active = ?3, disabled_reason = ?4,
                        updated_at = ?5
                     WHERE id = ?1",
                )?
                .execute(params![
                    webhook_id,
                    c.fail_count,
                    c.is_active,
                    c.disabled_reason,
                    c.updated_at.0
                ])?;
            Ok(())
        })
    }

    /// One row a statement, in order. Not one multi-row `INSERT`: SQLite gives a statement
    /// that writes several rows and may fail midway (the foreign keys) a statement journal,
    /// a copy of every page it changes, which costs more than the statements it saves
    /// (cached prepared statements make one row a statement cheap). A row that cannot be
    /// written fails the call, and the caller's transaction rolls back.
    fn insert_attempts(&self, rows: &[AttemptRecord<'_>]) -> StoreResult<()> {
        sql(|| {
            let mut stmt = self.0.prepare_cached(
                "INSERT INTO delivery_attempts (webhook_id, delivery_id, event_id, event, attempt,
                    attempted_at, delivered, status_code, status_text, duration_ms,
                    response_excerpt, skipped)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
            )?;
            for a in rows {
                stmt.execute(params![
                    a.webhook_id,
                    a.delivery_id,
                    a.event_id,
                    a.event,
                    a.attempt,
                    a.attempted_at.0,
                    a.delivered,
                    a.status_code,
                    a.status_text,
                    a.duration_ms,
                    a.response_excerpt,
                    a.skipped
                ])?;
            }
            Ok(())
        })
    }

    fn webhook_filters(&self) -> StoreResult<Vec<(String, String, String)>> {
        sql(|| {
            let mut stmt = self.0.prepare_cached(
                "SELECT id, user_id, filter FROM webhooks WHERE filter IS NOT NULL ORDER BY id",
            )?;
            let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
    }

    /// The newest `limit` attempts for a webhook, newest first.
    fn attempts(&self, webhook_id: &str, limit: i64) -> StoreResult<Vec<DeliveryAttempt>> {
        sql(|| {
            let mut stmt = self.0.prepare_cached(
                "SELECT a.id, a.delivery_id, a.event_id, a.event, a.attempt, a.attempted_at,
                    a.delivered, a.status_code, a.status_text, a.duration_ms,
                    a.response_excerpt, e.profile_id, a.skipped
                 FROM delivery_attempts a LEFT JOIN events e ON e.id = a.event_id
                 WHERE a.webhook_id = ?1 ORDER BY a.id DESC LIMIT ?2",
            )?;
            let rows = stmt.query_map(params![webhook_id, limit], |r| {
                Ok(DeliveryAttempt {
                    id: r.get(0)?,
                    delivery_id: r.get(1)?,
                    event_id: r.get(2)?,
                    event: r.get(3)?,
                    profile_id: r.get(11)?,
                    attempt: r.get(4)?,
                    attempted_at: Timestamp(r.get(5)?),
                    delivered: r.get(6)?,
                    status_code: r.get(7)?,
                    status_text: r.get(8)?,
                    duration_ms: r.get(9)?,
                    response_excerpt: r.get(10)?,
                    skipped: r.get(12)?,
                    holds_queue: false,
                    queued_behind: 0,
                })
            })?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
    }

    fn beat_listener(&self, id: &str, at: Timestamp) -> StoreResult<bool> {
        sql(|| {
            Ok(self
                .0
                .prepare_cached(
                    "UPDATE webhooks SET heartbeat_at = ?2 WHERE id = ?1 AND ephemeral = 1",
                )?
                .execute(params![id, at.0])?
                > 0)
        })
    }

    fn stale_listeners(&self, cutoff: Timestamp) -> StoreResult<Vec<Webhook>> {
        sql(|| {
            let mut stmt = self.0.prepare_cached(concat!(
                "SELECT ",
                columns!(),
                " FROM webhooks w WHERE ",
                keyhook_core::stale_listener_sql!(dialect, "w", "?1"),
                " ORDER BY heartbeat_at, id"
            ))?;
            let rows = stmt.query_map([cutoff.0], from_row)?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
    }
}

impl Conn {
    /// The webhooks of `user`, read now.
    pub(crate) fn list_webhooks_now(&self, user: &str) -> StoreResult<Vec<Webhook>> {
        sql(|| {
            let mut stmt = self.0.prepare_cached(LIST_BY_USER)?;
            let rows = stmt.query_map([user], from_row)?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
    }
}
