//! Webhooks and their attempt logs: `keyhook-sqlite/src/webhooks.rs`, in PostgreSQL.

use postgres::Row;

use super::migrations::LOCK_CLASS;
use super::{json_strings, to_json, Fail, PgStore};
use keyhook_core::model::{DeliveryAttempt, DeliveryControl, Webhook};
use keyhook_core::rate::RateLimit;
use keyhook_core::store::{
    AttemptRecord, FailCounter, KeyQueries, Listed, StoreResult, WebhookQueries,
};
use keyhook_core::time::Timestamp;

macro_rules! columns {
    () => {
        "id, user_id, url, events, secret, is_active, fail_count, created_at, updated_at,
         full_access, profile_ids, filter, ephemeral, retry_schedule, timeout_ms, rate,
         signing, public_key, signing_key, headers, ordered"
    };
}

const ONE: &str = concat!(
    "SELECT ",
    columns!(),
    " FROM webhooks WHERE id = $1 AND user_id = $2"
);

const BY_PREFIX: &str = concat!(
    "SELECT ",
    columns!(),
    " FROM webhooks WHERE user_id = $1 AND substr(id, 1, length($2)) = $2 ORDER BY id LIMIT $3"
);

/// The key by its hash `$1` (its columns after the webhook's, from [`COLUMN_COUNT`] on),
/// with each webhook of its user in list order: one row per webhook, or one whose webhook
/// columns are null when the user has none (no row at all when there is no such key). `list
/// webhooks` answered with the key check, in one round trip.
pub(crate) const BY_KEY_HASH_WITH_ITS_USERS_WEBHOOKS: &str = concat!(
    "SELECT w.*, k.* FROM (SELECT ",
    key_columns!(),
    " FROM api_keys WHERE key_hash = $1) k
     LEFT JOIN LATERAL (SELECT ",
    columns!(),
    " FROM webhooks WHERE user_id = k.user_id) w ON true
     ORDER BY w.created_at, w.id"
);

/// How many columns a webhook's row has ([`columns!`]), counted from the list itself so that
/// a column added there moves the key's columns with it.
pub(crate) const COLUMN_COUNT: usize = count_columns(columns!());

const fn count_columns(list: &str) -> usize {
    let b = list.as_bytes();
    let (mut n, mut i) = (1, 0);
    while i < b.len() {
        if b[i] == b',' {
            n += 1;
        }
        i += 1;
    }
    n
}

/// `(LOCK_CLASS, USER_LOCK)` keys no user lock: those are `(LOCK_CLASS + 1, hash of user)`.
const USER_LOCK_CLASS: i32 = LOCK_CLASS + 1;

pub(crate) fn from_row(r: &Row) -> Result<Webhook, Fail> {
    let events: &str = r.try_get(3)?;
    let profile_ids: &str = r.try_get(10)?;
    let signing: &str = r.try_get(16)?;
    let mut w = Webhook {
        id: r.try_get(0)?,
        user_id: r.try_get(1)?,
        url: r.try_get(2)?,
        events: json_strings(events)?,
        full_access: r.try_get(9)?,
        profile_ids: json_strings(profile_ids)?,
        filter: r.try_get(11)?,
        secret: r.try_get(4)?,
        is_active: r.try_get(5)?,
        fail_count: r.try_get(6)?,
        created_at: Timestamp(r.try_get(7)?),
        updated_at: Timestamp(r.try_get(8)?),
        ephemeral: r.try_get(12)?,
        control: DeliveryControl {
            retry_schedule: r
                .try_get::<_, Option<&str>>(13)?
                .map(json_strings)
                .transpose()?,
            timeout_ms: r.try_get(14)?,
            rate: r
                .try_get::<_, Option<&str>>(15)?
                .and_then(|s| RateLimit::parse(s).ok()),
            ordered: r.try_get(20)?,
        },
        signing: keyhook_core::model::SigningMode::parse(signing).map_err(Fail::Data)?,
        public_key: r.try_get(17)?,
        header_names: Vec::new(),
        private: Default::default(),
    };
    let signing_key: Option<&str> = r.try_get(18)?;
    let headers: Option<&str> = r.try_get(19)?;
    keyhook_core::secrets::open_webhook(&mut w, signing_key, headers)?;
    Ok(w)
}

fn webhooks(rows: Vec<Row>) -> Result<Vec<Webhook>, Fail> {
    rows.iter().map(from_row).collect()
}

use keyhook_core::store::SecretQueries;

impl WebhookQueries for PgStore {
    /// Counts the user's webhooks after taking the user's lock for the rest of the
    /// transaction (`pg_advisory_xact_lock`), so that a create that counts and then inserts
    /// waits for any other create of the same user to commit, and counts its webhook. The
    /// count is a statement of its own, so that (READ COMMITTED) its snapshot is taken once
    /// the lock is held. Outside a transaction the lock ends with the statement.
    fn count_webhooks(&self, user: &str) -> StoreResult<i64> {
        self.run(|s| {
            s.execute(
                "SELECT pg_advisory_xact_lock($1, hashtext($2))",
                &[&USER_LOCK_CLASS, &user],
            )?;
            Ok(
                s.query_one("SELECT count(*) FROM webhooks WHERE user_id = $1", &[&user])?
                    .try_get(0)?,
            )
        })
    }

    fn insert_webhook(&self, w: &Webhook) -> StoreResult<()> {
        self.ensure_user(&w.user_id, w.created_at)?;
        keyhook_core::secrets::check_recorded(self.lock_secrets_fingerprint()?.as_deref())?;
        let sealed = keyhook_core::secrets::seal_webhook(w)?;
        self.run(|s| {
            s.execute(
                "INSERT INTO webhooks (id, user_id, url, events, secret, is_active, fail_count,
                    created_at, updated_at, full_access, profile_ids, filter, ephemeral, heartbeat_at,
                    retry_schedule, timeout_ms, rate, signing, public_key, signing_key, headers, ordered)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16,
                    $17, $18, $19, $20, $21, $22)",
                &[
                    &w.id,
                    &w.user_id,
                    &w.url,
                    &to_json(&w.events),
                    &sealed.secret,
                    &w.is_active,
                    &w.fail_count,
                    &w.created_at.0,
                    &w.updated_at.0,
                    &w.full_access,
                    &to_json(&w.profile_ids),
                    &w.filter,
                    &w.ephemeral,
                    &w.ephemeral.then_some(w.created_at.0),
                    &w.control.retry_schedule.as_deref().map(to_json),
                    &w.control.timeout_ms,
                    &w.control.rate.map(|r| r.to_string()),
                    &w.signing.as_str(),
                    &w.public_key,
                    &sealed.signing_key,
                    &sealed.headers,
                    &w.control.ordered,
                ],
            )?;
            Ok(())
        })
    }

    fn list_webhooks(&self, user: &str) -> StoreResult<Vec<Webhook>> {
        if let Some(list) = self.webhooks_read_ahead(user) {
            return Ok(Listed::unwrap_or_clone(list));
        }
        self.run(|s| {
            webhooks(s.query(
                concat!(
                    "SELECT ",
                    columns!(),
                    " FROM webhooks WHERE user_id = $1 ORDER BY created_at, id"
                ),
                &[&user],
            )?)
        })
    }

    /// In a write transaction the row is locked until the commit, so what the caller writes
    /// back (an update) is based on the latest `failCount`.
    fn webhook(&self, user: &str, id: &str) -> StoreResult<Option<Webhook>> {
        let sql = if self.locking() {
            concat!(
                "SELECT ",
                columns!(),
                " FROM webhooks WHERE id = $1 AND user_id = $2 FOR UPDATE"
            )
        } else {
            ONE
        };
        self.run(|s| {
            s.query_opt(sql, &[&id, &user])?
                .as_ref()
                .map(from_row)
                .transpose()
        })
    }

    /// Compared character for character (`substr`), so `%` and `_` are not patterns.
    fn webhooks_by_id_prefix(
        &self,
        user: &str,
        prefix: &str,
        limit: i64,
    ) -> StoreResult<Vec<Webhook>> {
        let sql = if self.locking() {
            concat!(
                "SELECT ",
                columns!(),
                " FROM webhooks WHERE user_id = $1 AND substr(id, 1, length($2)) = $2
                 ORDER BY id LIMIT $3 FOR UPDATE"
            )
        } else {
            BY_PREFIX
        };
        self.run(|s| webhooks(s.query(sql, &[&user, &prefix, &limit])?))
    }

    fn update_webhook(&self, w: &Webhook) -> StoreResult<()> {
        keyhook_core::secrets::check_recorded(self.lock_secrets_fingerprint()?.as_deref())?;
        let sealed = keyhook_core::secrets::seal_webhook(w)?;
        self.run(|s| {
            s.execute(
                concat!(
                    "UPDATE webhooks SET url = $2, events = $3, is_active = $4, fail_count = $5,
                    updated_at = $6, full_access = $7, profile_ids = $8, filter = $9,
                    retry_schedule = $10, timeout_ms = $11, rate = $12,
                    signing = $13, public_key = $14, signing_key = $15, headers = $16,
                    ordered = $17, ",
                    keyhook_core::enable_clears_reason_sql!("$4"),
                    "
                 WHERE id = $1"
                ),
                &[
                    &w.id,
                    &w.url,
                    &to_json(&w.events),
                    &w.is_active,
                    &w.fail_count,
                    &w.updated_at.0,
                    &w.full_access,
                    &to_json(&w.profile_ids),
                    &w.filter,
                    &w.control.retry_schedule.as_deref().map(to_json),
                    &w.control.timeout_ms,
                    &w.control.rate.map(|r| r.to_string()),
                    &w.signing.as_str(),
                    &w.public_key,
                    &sealed.signing_key,
                    &sealed.headers,
                    &w.control.ordered,
                ],
            )?;
            Ok(())
        })
    }

    fn delete_webhook(&self, id: &str) -> StoreResult<bool> {
        self.run(|s| Ok(s.execute("DELETE FROM webhooks WHERE id = $1", &[&id])? > 0))
    }

    /// `FOR NO KEY UPDATE`: the lock the counter's `UPDATE` takes anyway, taken before the
    /// service reads the counter, so concurrent attempts on any instance each count once and
    /// the threshold is never skipped; it also waits for a delete in progress, so the log row
    /// never refers to a webhook gone by the commit.
    fn lock_fail_counter(&self, webhook_id: &str) -> StoreResult<Option<FailCounter>> {
        self.run(|s| {
            s.query_opt(
                "SELECT user_id, is_active, fail_count, disabled_reason, updated_at
                 FROM webhooks WHERE id = $1 FOR NO KEY UPDATE",
                &[&webhook_id],
            )?
            .map(|r| {
                Ok(FailCounter {
                    user_id: r.try_get(0)?,
                    is_active: r.try_get(1)?,
                    fail_count: r.try_get(2)?,
                    disabled_reason: r.try_get(3)?,
                    updated_at: Timestamp(r.try_get(4)?),
                })
            })
            .transpose()
        })
    }

    fn set_fail_counter(&self, webhook_id: &str, c: &FailCounter) -> StoreResult<()> {
        self.run(|s| {
            s.execute(
                "UPDATE webhooks SET fail_count = $2, is_active = $3, disabled_reason = $4,
                    updated_at = $5
                 WHERE id = $1",
                &[
                    &webhook_id,
                    &c.fail_count,
                    &c.is_active,
                    &c.disabled_reason,
                    &c.updated_at.0,
                ],
            )?;
            Ok(())
        })
    }

    /// One statement: the rows' columns as arrays, read back in order by `unnest`.
    fn insert_attempts(&self, rows: &[AttemptRecord<'_>]) -> StoreResult<()> {
        if rows.is_empty() {
            return Ok(());
        }
        let column = |f: fn(&AttemptRecord<'_>) -> i64| rows.iter().map(f).collect::<Vec<_>>();
        let webhook: Vec<&str> = rows.iter().map(|a| a.webhook_id).collect();
        let delivery: Vec<Option<&str>> = rows.iter().map(|a| a.delivery_id).collect();
        let event_id: Vec<&str> = rows.iter().map(|a| a.event_id).collect();
        let event: Vec<&str> = rows.iter().map(|a| a.event).collect();
        let attempt = column(|a| a.attempt);
        let at = column(|a| a.attempted_at.0);
        let delivered: Vec<bool> = rows.iter().map(|a| a.delivered).collect();
        let status = column(|a| i64::from(a.status_code));
        let status_text: Vec<&str> = rows.iter().map(|a| a.status_text).collect();
        let duration = column(|a| a.duration_ms);
        let excerpt: Vec<&str> = rows.iter().map(|a| a.response_excerpt).collect();
        let skipped: Vec<Option<&str>> = rows.iter().map(|a| a.skipped).collect();
        self.run(|s| {
            s.execute(
                "INSERT INTO delivery_attempts (webhook_id, delivery_id, event_id, event,
                    attempt, attempted_at, delivered, status_code, status_text, duration_ms,
                    response_excerpt, skipped)
                 SELECT w, d, ei, e, n, at, ok, st, tx, ms, ex, sk
                 FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int8[],
                    $6::int8[], $7::bool[], $8::int8[], $9::text[], $10::int8[], $11::text[],
                    $12::text[])
                    WITH ORDINALITY AS r(w, d, ei, e, n, at, ok, st, tx, ms, ex, sk, i)
                 ORDER BY i",
                &[
                    &webhook,
                    &delivery,
                    &event_id,
                    &event,
                    &attempt,
                    &at,
                    &delivered,
                    &status,
                    &status_text,
                    &duration,
                    &excerpt,
                    &skipped,
                ],
            )?;
            Ok(())
        })
    }

    fn webhook_filters(&self) -> StoreResult<Vec<(String, String, String)>> {
        self.run(|s| {
            let rows = s.query(
                "SELECT id, user_id, filter FROM webhooks WHERE filter IS NOT NULL ORDER BY id",
                &[],
            )?;
            rows.iter()
                .map(|r| Ok((r.try_get(0)?, r.try_get(1)?, r.try_get(2)?)))
                .collect()
        })
    }

    fn attempts(&self, webhook_id: &str, limit: i64) -> StoreResult<Vec<DeliveryAttempt>> {
        self.run(|s| {
            let rows = s.query(
                "SELECT a.id, a.delivery_id, a.event_id, a.event, a.attempt, a.attempted_at,
                    a.delivered, a.status_code, a.status_text, a.duration_ms,
                    a.response_excerpt, e.profile_id, a.skipped
                 FROM delivery_attempts a LEFT JOIN events e ON e.id = a.event_id
                 WHERE a.webhook_id = $1 ORDER BY a.id DESC LIMIT $2",
                &[&webhook_id, &limit],
            )?;
            rows.iter()
                .map(|r| {
                    let status: i64 = r.try_get(7)?;
                    Ok(DeliveryAttempt {
                        id: r.try_get(0)?,
                        delivery_id: r.try_get(1)?,
                        event_id: r.try_get(2)?,
                        event: r.try_get(3)?,
                        profile_id: r.try_get(11)?,
                        attempt: r.try_get(4)?,
                        attempted_at: Timestamp(r.try_get(5)?),
                        delivered: r.try_get(6)?,
                        status_code: u16::try_from(status).map_err(|_| {
                            Fail::Data(format!("a stored status code is out of range: {status}"))
                        })?,
                        status_text: r.try_get(8)?,
                        duration_ms: r.try_get(9)?,
                        response_excerpt: r.try_get(10)?,
                        skipped: r.try_get(12)?,
                        holds_queue: false,
                        queued_behind: 0,
                    })
                })
                .collect()
        })
    }

    fn beat_listener(&self, id: &str, at: Timestamp) -> StoreResult<bool> {
        self.run(|s| {
            Ok(s.execute(
                "UPDATE webhooks SET heartbeat_at = $2 WHERE id = $1 AND ephemeral",
                &[&id, &at.0],
            )? > 0)
        })
    }

    fn stale_listeners(&self, cutoff: Timestamp) -> StoreResult<Vec<Webhook>> {
        self.run(|s| {
            webhooks(s.query(
                concat!(
                    "SELECT ",
                    columns!(),
                    " FROM webhooks w WHERE ",
                    keyhook_core::stale_listener_sql!(dialect, "w", "$1"),
                    " ORDER BY heartbeat_at, id"
                ),
                &[&cutoff.0],
            )?)
        })
    }
}
