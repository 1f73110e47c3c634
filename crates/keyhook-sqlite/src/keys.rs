use rusqlite::{params, OptionalExtension, Row};

use super::{json_strings, to_json, Conn};
use crate::error::{sql, Result};
use crate::model::{ApiKey, Permission};
use crate::time::Timestamp;
use keyhook_core::store::{KeyQueries, Listed, StoreError, StoreResult};

/// The columns [`from_row`] reads, as a macro so that constant queries can be built with
/// `concat!` instead of formatting a string on every call. The uses left are the key's
/// budget's (`key_budgets`, shared by a chain of rotations).
macro_rules! columns {
    () => {
        "id, user_id, key_prefix, name, permission, full_access, profile_ids, \
         last_used_at, expires_at, created_at, rate_limit, \
         (SELECT remaining_uses FROM key_budgets WHERE key_budgets.id = api_keys.budget_id) \
         AS remaining_uses, budget_id"
    };
}

const COLUMNS: &str = columns!();

/// Frames of room [`Conn::stage`] reserves at the end of the write-ahead log for the commit.
const STAGE_RESERVE_FRAMES: i64 = 2;
/// Each WAL frame is a page with a 24-byte header.
const WAL_FRAME_HEADER: i64 = 24;

/// A user's keys in list order, which the index `api_keys_user` holds them in (no sort).
pub(crate) const LIST_BY_USER: &str = concat!(
    "SELECT ",
    columns!(),
    " FROM api_keys WHERE user_id = ?1 ORDER BY created_at, id"
);

/// `authenticate` runs this on every request: a constant, so no string is built per call.
const BY_HASH: &str = concat!("SELECT ", columns!(), " FROM api_keys WHERE key_hash = ?1");

fn from_row(r: &Row<'_>) -> rusqlite::Result<ApiKey> {
    // Borrowed, not copied: neither column is kept as text.
    let permission = r.get_ref(4)?.as_str()?;
    let profile_ids = r.get_ref(6)?.as_str()?;
    Ok(ApiKey {
        id: r.get(0)?,
        user_id: r.get(1)?,
        key_prefix: r.get(2)?,
        name: r.get(3)?,
        // The CHECK constraint allows only the two values.
        permission: Permission::parse(permission).unwrap_or(Permission::Readonly),
        full_access: r.get(5)?,
        // Most keys have full access and no profiles: skip the JSON parser for them.
        profile_ids: if profile_ids == "[]" {
            Vec::new()
        } else {
            json_strings(profile_ids)?
        },
        last_used_at: r.get::<_, Option<i64>>(7)?.map(Timestamp),
        expires_at: r.get::<_, Option<i64>>(8)?.map(Timestamp),
        created_at: Timestamp(r.get(9)?),
        rate_limit: match r.get_ref(10)?.as_str_or_null()? {
            None => None,
            Some(s) => Some(keyhook_core::rate::RateLimit::parse(s).map_err(|e| {
                rusqlite::Error::FromSqlConversionFailure(10, rusqlite::types::Type::Text, e.into())
            })?),
        },
        remaining_uses: r.get(11)?,
        budget_id: r.get(12)?,
        key: None,
    })
}

impl KeyQueries for Conn {
    fn ensure_user(&self, user_id: &str, now: Timestamp) -> StoreResult<()> {
        sql(|| {
            self.0
                .prepare_cached("INSERT OR IGNORE INTO users (id, created_at) VALUES (?1, ?2)")?
                .execute(params![user_id, now.0])?;
            Ok(())
        })
    }

    /// A key that starts its chain (its budget is itself) with a number of uses gets its
    /// budget's row; a key that continues one shares the row that is there.
    fn insert_key(&self, key: &ApiKey, key_hash: &str) -> StoreResult<()> {
        sql(|| {
            self.ensure_user(&key.user_id, key.created_at)?;
            if let (Some(uses), true) = (key.remaining_uses, key.budget() == key.id) {
                self.0
                    .prepare_cached("INSERT INTO key_budgets (id, remaining_uses) VALUES (?1, ?2)")?
                    .execute(params![key.id, uses])?;
            }
            self.0
                .prepare_cached(
                    "INSERT INTO api_keys (id, user_id, key_hash, key_prefix, name, permission,
                        full_access, profile_ids, last_used_at, expires_at, created_at,
                        checksummed, rate_limit, budget_id)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, 1, ?12, ?13)",
                )?
                .execute(params![
                    key.id,
                    key.user_id,
                    key_hash,
                    key.key_prefix,
                    key.name,
                    key.permission.as_str(),
                    key.full_access,
                    to_json(&key.profile_ids),
                    key.last_used_at.map(|t| t.0),
                    key.expires_at.map(|t| t.0),
                    key.created_at.0,
                    key.rate_limit.map(|r| r.to_string()),
                    key.budget(),
                ])?;
            Ok(())
        })
    }

    fn key_by_hash(&self, key_hash: &str) -> StoreResult<Option<ApiKey>> {
        sql(|| {
            Ok(self
                .0
                .prepare_cached(BY_HASH)?
                .query_row([key_hash], from_row)
                .optional()?)
        })
    }

    /// Keys of `user` (or of every user) whose id or prefix is `id_or_prefix`.
    fn keys_by_id_or_prefix(
        &self,
        user: Option<&str>,
        id_or_prefix: &str,
    ) -> StoreResult<Vec<ApiKey>> {
        sql(|| {
            let sql = format!(
                "SELECT {COLUMNS} FROM api_keys WHERE (id = ?1 OR key_prefix = ?1)
                 AND (?2 IS NULL OR user_id = ?2) ORDER BY created_at, id"
            );
            let mut stmt = self.0.prepare_cached(&sql)?;
            let rows = stmt.query_map(params![id_or_prefix, user], from_row)?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
    }

    /// Keys of `user`, or of every user when `None`, oldest first (a user's:
    /// [`KeyQueries::listed_keys`], a copy only if that list is shared).
    fn list_keys(&self, user: Option<&str>) -> StoreResult<Vec<ApiKey>> {
        match user {
            Some(user) => self.listed_keys(user).map(Listed::unwrap_or_clone),
            None => self.list_keys_now(None),
        }
    }

    /// The ones read with the key just before
    /// ([`keyhook_core::store::Storage::key_by_hash_ahead`]) if they are these.
    fn listed_keys(&self, user: &str) -> StoreResult<Listed<ApiKey>> {
        match self.1.keys_of(user) {
            Some(list) => Ok(list),
            None => self.list_keys_now(Some(user)).map(Listed::new),
        }
    }

    /// Makes the commit of this transaction as unlikely to fail as SQLite allows, before
    /// anything is shown that depends on it (a new key): the pages it changed are written to
    /// the write-ahead log now, and disk space is reserved past the log's end for the frames
    /// the commit still writes (page 1 and the commit frame). A full disk then fails here,
    /// while the transaction can still be rolled back and nothing was printed.
    fn stage(&self) -> StoreResult<()> {
        sql(|| {
            let wal = self
                .0
                .path()
                .filter(|p| !p.is_empty())
                .map(|db| crate::wal_path(std::path::Path::new(db)));
            let len_of = |wal: &std::path::Path| std::fs::metadata(wal).map_or(0, |m| m.len());
            let before = wal.as_deref().map_or(0, len_of);
            self.0.cache_flush()?;
            let page_size: i64 = self.0.query_row("PRAGMA page_size", [], |r| r.get(0))?;
            let Some(wal) = wal else {
                return Ok(());
            };
            let len = STAGE_RESERVE_FRAMES * (page_size + WAL_FRAME_HEADER);
            // The pages went to the log's end: so do the commit's frames, right after them.
            let appending = len_of(&wal) > before;
            reserve_past_end(&wal, len, appending)
        })
    }

    /// Keys of `user` whose `expires_at` is before `cutoff`, oldest first.
    fn keys_expired_before(&self, user: &str, cutoff: Timestamp) -> StoreResult<Vec<ApiKey>> {
        sql(|| {
            let mut stmt = self.0.prepare_cached(concat!(
                "SELECT ",
                columns!(),
                concat!(
                    " FROM api_keys WHERE user_id = ?1 AND ",
                    "expires_at IS NOT NULL AND ",
                    keyhook_core::before_sql!("expires_at", "?2"),
                    "
                 ORDER BY expires_at, id"
                )
            ))?;
            let rows = stmt.query_map(params![user, cutoff.0], from_row)?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
    }

    /// Returns whether a key was deleted. The budget of its chain goes with the chain's last
    /// key.
    fn delete_key(&self, id: &str) -> StoreResult<bool> {
        sql(|| {
            let budget: Option<Option<String>> = self
                .0
                .prepare_cached("DELETE FROM api_keys WHERE id = ?1 RETURNING budget_id")?
                .query_row([id], |r| r.get(0))
                .optional()?;
            let Some(budget) = budget else {
                return Ok(false);
            };
            if let Some(budget) = budget {
                self.0
                    .prepare_cached(
                        "DELETE FROM key_budgets WHERE id = ?1
                         AND NOT EXISTS (SELECT 1 FROM api_keys WHERE budget_id = ?1)",
                    )?
                    .execute([budget])?;
            }
            Ok(true)
        })
    }

    fn set_key_expiry(&self, id: &str, expires_at: Timestamp) -> StoreResult<()> {
        sql(|| {
            self.0
                .prepare_cached("UPDATE api_keys SET expires_at = ?2 WHERE id = ?1")?
                .execute(params![id, expires_at.0])?;
            Ok(())
        })
    }

    fn any_key_without_checksum(&self) -> StoreResult<bool> {
        sql(|| {
            Ok(self
                .0
                .prepare_cached(
                    "SELECT EXISTS (SELECT 1 FROM api_keys INDEXED BY api_keys_without_checksum
                     WHERE checksummed = 0)",
                )?
                .query_row([], |r| r.get(0))?)
        })
    }

    fn spend_key_use(&self, id: &str) -> StoreResult<Option<i64>> {
        sql(|| {
            Ok(self
                .0
                .prepare_cached(
                    "UPDATE key_budgets SET remaining_uses = remaining_uses - 1
                     WHERE id = (SELECT budget_id FROM api_keys WHERE id = ?1)
                     AND remaining_uses > 0 RETURNING remaining_uses",
                )?
                .query_row([id], |r| r.get(0))
                .optional()?)
        })
    }

    /// Records a use of the key, unless another process holds the write lock for longer than
    /// a moment: a use is worth a timestamp, not seconds of waiting in the middle of a read
    /// (the use then waits for the process's next turn, see `write_lock.rs`).
    fn set_key_last_used(&self, id: &str, at: Timestamp) -> StoreResult<()> {
        sql(|| {
            self.waiting_at_most(std::time::Duration::from_millis(100), |c| {
                c.prepare_cached(concat!(
                    "UPDATE api_keys SET last_used_at = ?2
                     WHERE id = ?1 AND ",
                    keyhook_core::last_used_moves_sql!("?2")
                ))?
                .execute(params![id, at.0])
            })?;
            Ok(())
        })
    }
}

/// Reserves `len` bytes of disk past the end of `path`, so that the next writes appending to
/// it cannot fail for lack of space. Where SQLite is `appending` its frames to the log's end,
/// the commit's frames go right after the end: zeros are written there, which the commit
/// overwrites (a log longer than its frames is read up to its last valid frame, so a crash
/// before the commit leaves nothing of them). Otherwise (a log reused from its start after a
/// checkpoint, whose frames are written over old ones) the space past the end is reserved
/// without changing the file's size (`fallocate` with `FALLOC_FL_KEEP_SIZE`): calling it again
/// reserves the same range, nothing accumulates. Zeros, not such a reservation, where they
/// can be: a file holding reserved, unwritten blocks took 6-10 ms longer to remove, which
/// every one-shot command does with its log (`keys create` 44 against 31 ms in turns under I/O
/// load, bench/cli-create.sh). The WAL holds
/// no POSIX lock (SQLite locks the database and the -shm file), so opening and closing a
/// descriptor of it drops none. A filesystem without `fallocate`, or a database not in WAL
/// mode, gets no reservation.
fn reserve_past_end(path: &std::path::Path, len: i64, appending: bool) -> Result<()> {
    let Ok(file) = std::fs::OpenOptions::new().write(true).open(path) else {
        return Ok(());
    };
    let full = |e: &std::io::Error| matches!(e.raw_os_error(), Some(libc::ENOSPC | libc::EDQUOT));
    let end = file.metadata().map(|m| m.len()).unwrap_or(0);
    if appending {
        use std::os::unix::fs::FileExt;
        let zeros = vec![0u8; usize::try_from(len).unwrap_or(0)];
        return match file.write_all_at(&zeros, end) {
            Err(e) if full(&e) => {
                // Nothing of this transaction's may stay past its frames: cut the zeros off.
                let _ = file.set_len(end);
                Err(StoreError::Unavailable("database or disk is full".into()).into())
            }
            _ => Ok(()),
        };
    }
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        // SAFETY: a plain system call on a descriptor this function owns.
        let rc = unsafe {
            libc::fallocate(file.as_raw_fd(), libc::FALLOC_FL_KEEP_SIZE, end as i64, len)
        };
        if rc != 0 && full(&std::io::Error::last_os_error()) {
            return Err(StoreError::Unavailable("database or disk is full".into()).into());
        }
    }
    drop(file);
    Ok(())
}

impl Conn {
    /// Keys of `user`, or of every user when `None`, oldest first, read now.
    pub(crate) fn list_keys_now(&self, user: Option<&str>) -> StoreResult<Vec<ApiKey>> {
        sql(|| {
            let mut stmt = match user {
                Some(_) => self.0.prepare_cached(LIST_BY_USER)?,
                None => self.0.prepare_cached(&format!(
                    "SELECT {COLUMNS} FROM api_keys ORDER BY user_id, created_at, id"
                ))?,
            };
            let rows = match user {
                Some(u) => stmt.query_map([u], from_row)?,
                None => stmt.query_map([], from_row)?,
            };
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::temp_store;
    use keyhook_core::store::Storage;

    fn key(id: &str) -> ApiKey {
        crate::testing::plain_key(id, &format!("kp_{id:0>8}"))
    }

    /// Where SQLite appends to the log, the room for the commit's two frames is written as
    /// zeros past its end (no reserved, unwritten blocks: their removal was slow); where it
    /// writes over a log reused from its start, the room is reserved past the end without
    /// changing the size. Either way a second call adds nothing.
    #[test]
    fn stage_writes_the_log_now_and_reserves_room_for_the_commit() {
        let (dir, s) = temp_store();
        let wal = dir.path().join("k.db-wal");
        let size = || std::fs::metadata(&wal).map(|m| m.len()).unwrap_or(0);
        let allocated = || {
            use std::os::unix::fs::MetadataExt;
            std::fs::metadata(&wal)
                .map(|m| m.blocks() * 512)
                .unwrap_or(0)
        };
        let frames = 2 * (4096 + 24);
        for round in 0..4 {
            let reused = round >= 2;
            if round == 2 {
                s.conn
                    .0
                    .query_row("PRAGMA wal_checkpoint(RESTART)", [], |_| Ok(()))
                    .unwrap();
            }
            s.write(|c| {
                c.insert_key(&key(&round.to_string()), &format!("hash{round}"))?;
                let before = size();
                c.stage()?;
                let staged = size();
                if reused {
                    assert_eq!(staged, before, "round {round}: written over the old log");
                    assert!(allocated() >= staged + frames, "round {round}");
                } else {
                    assert!(staged >= before + frames, "round {round}: pages and zeros");
                    assert!(allocated() >= staged, "round {round}");
                }
                c.stage()?;
                assert_eq!(size(), staged, "round {round}");
                Ok(())
            })
            .unwrap();
        }
        drop(s);
        let s = crate::SqliteStore::open_existing(&dir.path().join("k.db")).unwrap();
        assert_eq!(s.conn().list_keys(Some("u")).unwrap().len(), 4);
    }
}
