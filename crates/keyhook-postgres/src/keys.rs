//! Users and API keys: `keyhook-sqlite/src/keys.rs`, in PostgreSQL.

use postgres::Row;

use super::{json_strings, to_json, Fail, PgStore};
use keyhook_core::auth::LAST_USED_RESOLUTION_MS;
use keyhook_core::model::{ApiKey, Permission};
use keyhook_core::store::{KeyQueries, Listed, StoreError, StoreResult};
use keyhook_core::time::Timestamp;

/// The columns [`from_row`] reads (`key_columns!`, the crate's: a webhook list read with
/// its key names them too).
macro_rules! columns {
    () => {
        key_columns!()
    };
}

/// `authenticate` runs this on every request.
pub(crate) const BY_HASH: &str =
    concat!("SELECT ", columns!(), " FROM api_keys WHERE key_hash = $1");

/// The keys of the user of the key whose hash is `$1`, in list order, each with whether it is
/// that key (column [`IS_THE_KEY`]): the key is one of its user's keys, so the list carries
/// it, and no row comes back when there is no such key. `list keys` answered with the key
/// check, in one round trip and one snapshot. (Not a join of the key's row to each listed
/// one: PostgreSQL runs the subquery once, where the join costs about half again as much per
/// call under pgbench.)
pub(crate) const BY_HASH_WITH_ITS_USERS_KEYS: &str = concat!(
    "SELECT ",
    columns!(),
    ", key_hash = $1 FROM api_keys
     WHERE user_id = (SELECT user_id FROM api_keys WHERE key_hash = $1)
     ORDER BY created_at, id"
);

/// The column of a [`BY_HASH_WITH_ITS_USERS_KEYS`] row that says whether it is the key
/// whose hash was given: after the key's own.
pub(crate) const IS_THE_KEY: usize = 13;

/// Keys by id or prefix, of one user (`$2`) or of all (`$2` null).
macro_rules! by_id_or_prefix {
    () => {
        concat!(
            "SELECT ",
            columns!(),
            " FROM api_keys WHERE (id = $1 OR key_prefix = $1)
             AND ($2::text IS NULL OR user_id = $2) ORDER BY created_at, id"
        )
    };
}

macro_rules! expired_before {
    () => {
        concat!(
            "SELECT ",
            columns!(),
            concat!(
                " FROM api_keys WHERE user_id = $1 AND ",
                "expires_at IS NOT NULL AND ",
                keyhook_core::before_sql!("expires_at", "$2"),
                "
             ORDER BY expires_at, id"
            )
        )
    };
}

pub(crate) fn from_row(r: &Row) -> Result<ApiKey, Fail> {
    from_row_at(r, 0)
}

/// A key from [`columns!`] starting at column `at` of `r`.
pub(crate) fn from_row_at(r: &Row, at: usize) -> Result<ApiKey, Fail> {
    let permission: &str = r.try_get(at + 4)?;
    let profile_ids: &str = r.try_get(at + 6)?;
    Ok(ApiKey {
        id: r.try_get(at)?,
        user_id: r.try_get(at + 1)?,
        key_prefix: r.try_get(at + 2)?,
        name: r.try_get(at + 3)?,
        // The CHECK constraint allows only the two values.
        permission: Permission::parse(permission).unwrap_or(Permission::Readonly),
        full_access: r.try_get(at + 5)?,
        profile_ids: if profile_ids == "[]" {
            Vec::new()
        } else {
            json_strings(profile_ids)?
        },
        last_used_at: r.try_get::<_, Option<i64>>(at + 7)?.map(Timestamp),
        expires_at: r.try_get::<_, Option<i64>>(at + 8)?.map(Timestamp),
        created_at: Timestamp(r.try_get(at + 9)?),
        rate_limit: match r.try_get::<_, Option<&str>>(at + 10)? {
            None => None,
            Some(s) => Some(
                keyhook_core::rate::RateLimit::parse(s)
                    .map_err(|e| Fail::Data(format!("a stored rate limit is damaged: {e}")))?,
            ),
        },
        remaining_uses: r.try_get(at + 11)?,
        budget_id: r.try_get(at + 12)?,
        key: None,
    })
}

fn keys(rows: Vec<Row>) -> Result<Vec<ApiKey>, Fail> {
    rows.iter().map(from_row).collect()
}

impl KeyQueries for PgStore {
    fn ensure_user(&self, user_id: &str, now: Timestamp) -> StoreResult<()> {
        self.run(|s| {
            s.execute(
                "INSERT INTO users (id, created_at) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING",
                &[&user_id, &now.0],
            )?;
            Ok(())
        })
    }

    /// A key that starts its chain (its budget is itself) with a number of uses gets its
    /// budget's row; a key that continues one shares the row that is there.
    fn insert_key(&self, key: &ApiKey, key_hash: &str) -> StoreResult<()> {
        self.ensure_user(&key.user_id, key.created_at)?;
        self.run(|s| {
            if let (Some(uses), true) = (key.remaining_uses, key.budget() == key.id) {
                s.execute(
                    "INSERT INTO key_budgets (id, remaining_uses) VALUES ($1, $2)",
                    &[&key.id, &uses],
                )?;
            }
            s.execute(
                "INSERT INTO api_keys (id, user_id, key_hash, key_prefix, name, permission,
                    full_access, profile_ids, last_used_at, expires_at, created_at,
                    checksummed, rate_limit, budget_id)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, TRUE, $12, $13)",
                &[
                    &key.id,
                    &key.user_id,
                    &key_hash,
                    &key.key_prefix,
                    &key.name,
                    &key.permission.as_str(),
                    &key.full_access,
                    &to_json(&key.profile_ids),
                    &key.last_used_at.map(|t| t.0),
                    &key.expires_at.map(|t| t.0),
                    &key.created_at.0,
                    &key.rate_limit.map(|r| r.to_string()),
                    &key.budget(),
                ],
            )?;
            Ok(())
        })
    }

    /// Over the pipeline outside a transaction ([`PgStore::by_key_hash`]).
    fn key_by_hash(&self, key_hash: &str) -> StoreResult<Option<ApiKey>> {
        let rows = self.by_key_hash(BY_HASH, key_hash)?;
        rows.first()
            .map(from_row)
            .transpose()
            .map_err(|e| e.sorted())
    }

    fn keys_by_id_or_prefix(
        &self,
        user: Option<&str>,
        id_or_prefix: &str,
    ) -> StoreResult<Vec<ApiKey>> {
        let sql = if self.locking() {
            concat!(by_id_or_prefix!(), " FOR UPDATE")
        } else {
            by_id_or_prefix!()
        };
        self.run(|s| keys(s.query(sql, &[&id_or_prefix, &user])?))
    }

    fn list_keys(&self, user: Option<&str>) -> StoreResult<Vec<ApiKey>> {
        if let Some(list) = user.and_then(|u| self.keys_read_ahead(u)) {
            return Ok(Listed::unwrap_or_clone(list));
        }
        self.run(|s| {
            let rows = match user {
                Some(u) => s.query(
                    concat!(
                        "SELECT ",
                        columns!(),
                        " FROM api_keys WHERE user_id = $1 ORDER BY created_at, id"
                    ),
                    &[&u],
                )?,
                None => s.query(
                    concat!(
                        "SELECT ",
                        columns!(),
                        " FROM api_keys ORDER BY user_id, created_at, id"
                    ),
                    &[],
                )?,
            };
            keys(rows)
        })
    }

    /// Nothing to do on PostgreSQL. On SQLite, `stage` writes the transaction's pages to the
    /// log and reserves disk for the commit, so that a full disk fails before a new key is
    /// shown. Here every statement has already been executed by the server, which wrote what
    /// it needed to its buffers and the WAL as it went: a full disk or a broken constraint
    /// has already failed the statement. The COMMIT still writes and flushes its commit
    /// record; the server gives no way to reserve room for it ahead of time, and a failure
    /// there (the disk filling in between, the connection lost) remains possible, as with
    /// any client of a remote database.
    fn stage(&self) -> StoreResult<()> {
        Ok(())
    }

    fn keys_expired_before(&self, user: &str, cutoff: Timestamp) -> StoreResult<Vec<ApiKey>> {
        let sql = if self.locking() {
            concat!(expired_before!(), " FOR UPDATE")
        } else {
            expired_before!()
        };
        self.run(|s| keys(s.query(sql, &[&user, &cutoff.0])?))
    }

    /// The budget of its chain goes with the chain's last key. (A rotation inserting a key
    /// into the chain at the same time holds the chain's key it rotates, `FOR UPDATE`, so the
    /// two do not cross.)
    fn delete_key(&self, id: &str) -> StoreResult<bool> {
        self.run(|s| {
            let Some(row) = s.query_opt(
                "DELETE FROM api_keys WHERE id = $1 RETURNING budget_id",
                &[&id],
            )?
            else {
                return Ok(false);
            };
            let budget: Option<String> = row.try_get(0)?;
            if let Some(budget) = budget {
                s.execute(
                    "DELETE FROM key_budgets WHERE id = $1
                     AND NOT EXISTS (SELECT 1 FROM api_keys WHERE budget_id = $1)",
                    &[&budget],
                )?;
            }
            Ok(true)
        })
    }

    fn set_key_expiry(&self, id: &str, expires_at: Timestamp) -> StoreResult<()> {
        self.run(|s| {
            s.execute(
                "UPDATE api_keys SET expires_at = $2 WHERE id = $1",
                &[&id, &expires_at.0],
            )?;
            Ok(())
        })
    }

    fn any_key_without_checksum(&self) -> StoreResult<bool> {
        self.run(|s| {
            Ok(s.query_one(
                "SELECT EXISTS (SELECT 1 FROM api_keys WHERE NOT checksummed)",
                &[],
            )?
            .try_get(0)?)
        })
    }

    /// One `UPDATE … RETURNING` of the budget's one row: its lock orders instances spending
    /// any key of the chain, and each sees the count the one before it left, so the uses are
    /// honoured exactly. A rotation only adds a key naming the row; it never writes it.
    fn spend_key_use(&self, id: &str) -> StoreResult<Option<i64>> {
        self.run(|s| {
            s.query_opt(
                "UPDATE key_budgets SET remaining_uses = remaining_uses - 1
                 WHERE id = (SELECT budget_id FROM api_keys WHERE id = $1)
                 AND remaining_uses > 0 RETURNING remaining_uses",
                &[&id],
            )?
            .map(|r| r.try_get(0))
            .transpose()
            .map_err(Into::into)
        })
    }

    /// Records a use of the key, never moving `lastUsedAt` back. Outside a transaction
    /// (authentication) it is one statement that never waits for the key's row: when
    /// another transaction holds it (concurrent requests recording the same second's use,
    /// a write to the key) the use is not recorded and the answer is `Unavailable`, at once
    /// and without an error in the server's log (`SKIP LOCKED`). Inside a write transaction
    /// it is one more statement of it.
    fn set_key_last_used(&self, id: &str, at: Timestamp) -> StoreResult<()> {
        const UPDATE: &str = concat!(
            "UPDATE api_keys SET last_used_at = $2
             WHERE id = $1 AND ",
            keyhook_core::last_used_moves_sql!("$2")
        );
        if self.in_transaction() {
            return self.run(|s| {
                s.execute(UPDATE, &[&id, &at.0])?;
                Ok(())
            });
        }
        match self.record_use(id, at)? {
            Recorded::Busy => Err(busy()),
            Recorded::Moved | Recorded::Unmoved => Ok(()),
        }
    }
}

/// A use not recorded because another transaction holds the key's row.
pub(crate) fn busy() -> StoreError {
    StoreError::Unavailable("the key's row is being written; its use is not recorded".into())
}

/// What [`PgStore::record_use`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Recorded {
    /// `lastUsedAt` is now the use's time.
    Moved,
    /// It already was as late (another use recorded it), or the key is gone.
    Unmoved,
    /// Another transaction holds the key's row: nothing was written.
    Busy,
}

/// The use at `$2` of the key `$1`, outside a transaction: the row locked only if free
/// (`SKIP LOCKED`), moved only forward; whether it was locked (or is gone) and whether it
/// moved, in one round trip.
const RECORD_USE: &str = concat!(
    "WITH locked AS (SELECT id FROM api_keys WHERE id = $1 FOR NO KEY UPDATE SKIP LOCKED),
     moved AS (UPDATE api_keys SET last_used_at = $2
               WHERE id IN (SELECT id FROM locked) AND ",
    keyhook_core::last_used_moves_sql!("$2"),
    " RETURNING id)
     SELECT EXISTS (SELECT 1 FROM moved),
            EXISTS (SELECT 1 FROM locked) OR NOT EXISTS (SELECT 1 FROM api_keys WHERE id = $1)"
);

impl PgStore {
    /// Records the uses left by checks that found their key's row busy
    /// ([`UseClaims::leave`]), each as a use is recorded ([`RECORD_USE`], never waiting);
    /// those still busy stay left. Whether any moved.
    pub(crate) fn record_left_uses(&self) -> bool {
        let uses = &self.uses;
        let mut moved = false;
        let mut left = uses.take_left().into_iter();
        while let Some((id, at)) = left.next() {
            match self.record_use(&id, at) {
                Ok(Recorded::Moved) => moved = true,
                Ok(Recorded::Unmoved) => {}
                Ok(Recorded::Busy) => uses.leave(&id, at),
                Err(_) => {
                    // The database is not answering: all of them wait for the next use.
                    uses.leave(&id, at);
                    left.for_each(|(id, at)| uses.leave(&id, at));
                    break;
                }
            }
        }
        moved
    }

    /// Records a use outside a transaction ([`RECORD_USE`]).
    pub(crate) fn record_use(&self, id: &str, at: Timestamp) -> StoreResult<Recorded> {
        self.run(|s| {
            let row = s.query_one(RECORD_USE, &[&id, &at.0])?;
            let (moved, free): (bool, bool) = (row.try_get(0)?, row.try_get(1)?);
            Ok(match (moved, free) {
                (true, _) => Recorded::Moved,
                (false, true) => Recorded::Unmoved,
                (false, false) => Recorded::Busy,
            })
        })
    }
}

/// The uses of keys that this backend's connections are recording or recorded (the key's id,
/// the use's time), shared by all of them: a use within [`LAST_USED_RESOLUTION_MS`] after
/// one claimed here is not recorded again. Without it, under concurrent checks of one key,
/// every check that read the key before the second's write committed sent a write of its own
/// (about 400 a second at 32 connections, `BACKEND=postgres bench/guard.sh`), where one
/// moves `lastUsedAt` as far. Only this instance's own claims: another instance records its
/// uses, and every check still reads the key as last committed.
///
/// It also keeps the uses left unrecorded because another transaction held the key's row
/// (a write to the key, another instance recording its use): the next use of any key on this
/// backend records them too ([`PgStore::record_left_uses`]), so that no use is lost to a
/// write that ran at the same moment, and no check ever waits for a row.
#[derive(Debug, Clone, Default)]
pub(crate) struct UseClaims(
    std::sync::Arc<std::sync::Mutex<std::collections::HashMap<String, i64>>>,
    std::sync::Arc<std::sync::Mutex<std::collections::HashMap<String, i64>>>,
);

/// How many keys' claims are kept before those older than the resolution go.
const MOST_CLAIMS: usize = 4096;

impl UseClaims {
    /// Whether the use of key `id` at `at` is to be recorded (then it is claimed): no use of
    /// the key from `at` minus the resolution up to `at` was claimed here before.
    pub(crate) fn claim(&self, id: &str, at: Timestamp) -> bool {
        let mut claims = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(&t) = claims.get(id) {
            if (0..LAST_USED_RESOLUTION_MS).contains(&(at.0 - t)) {
                return false;
            }
        }
        if claims.len() >= MOST_CLAIMS {
            claims.retain(|_, t| at.0 - *t < LAST_USED_RESOLUTION_MS);
        }
        claims.insert(id.to_string(), at.0);
        true
    }

    /// Gives up the claim of the use of key `id` at `at` (its write did not happen: the row
    /// was busy, or the statement failed), so that the next use records it.
    pub(crate) fn release(&self, id: &str, at: Timestamp) {
        let mut claims = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if claims.get(id) == Some(&at.0) {
            claims.remove(id);
        }
    }

    /// Leaves the use of key `id` at `at`, whose row was busy, for the next use to record
    /// (only the key's latest).
    pub(crate) fn leave(&self, id: &str, at: Timestamp) {
        let mut left = self.1.lock().unwrap_or_else(|e| e.into_inner());
        let t = left.entry(id.to_string()).or_insert(at.0);
        *t = (*t).max(at.0);
    }

    /// The uses left so far, taken away (those not recorded again are left again).
    pub(crate) fn take_left(&self) -> Vec<(String, Timestamp)> {
        let mut left = self.1.lock().unwrap_or_else(|e| e.into_inner());
        if left.is_empty() {
            return Vec::new();
        }
        std::mem::take(&mut *left)
            .into_iter()
            .map(|(id, t)| (id, Timestamp(t)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_use_is_recorded_once_a_resolution_per_key() {
        let claims = UseClaims::default();
        let at = |ms| Timestamp(1_800_000_000_000 + ms);
        assert!(claims.claim("a", at(0)));
        assert!(!claims.claim("a", at(0)));
        assert!(!claims.claim("a", at(LAST_USED_RESOLUTION_MS - 1)));
        assert!(claims.claim("b", at(1)), "another key");
        assert!(claims.clone().claim("a", at(LAST_USED_RESOLUTION_MS)));
        assert!(
            !claims.claim("a", at(LAST_USED_RESOLUTION_MS + 1)),
            "shared by clones"
        );
        // A clock set back (the test clock) records at once.
        assert!(claims.claim("a", at(-5)));
        // A claim given up (its write did not happen) is taken by the next use.
        claims.release("a", at(-5));
        assert!(claims.claim("a", at(-5)));
        claims.release("a", at(-6));
        assert!(
            !claims.claim("a", at(-5)),
            "only the same use's claim is given up"
        );
        for i in 0..MOST_CLAIMS as i64 + 10 {
            assert!(claims.claim(&format!("k{i}"), at(10_000 + i)));
        }
        assert!(claims.0.lock().unwrap().len() <= MOST_CLAIMS + 10);
    }
}
