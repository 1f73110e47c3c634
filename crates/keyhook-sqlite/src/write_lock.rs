//! The in-process write lock of one database file, and the uses of keys that wait for it.
//!
//! A request records its key's use (`lastUsedAt`) without waiting for another write of the
//! process: when the lock is held, the use is left here and the holder records it as its
//! turn ends, after its own commit. A use is so never lost to a write that happened to run
//! at the same moment (a key used once, during the worker's settle, stays "used"), and no
//! request waits for someone else's write to note it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, TryLockError};

use keyhook_core::time::Timestamp;

use crate::SqliteStore;

/// The write lock shared by a process's connections to one file.
pub(crate) type WriteLock = Arc<Writers>;

#[derive(Debug, Default)]
pub(crate) struct Writers {
    /// Held by every write of this process to the file.
    turn: Mutex<()>,
    /// Uses of keys left while the turn was held: the key's id, its hash (for the holder's
    /// key cache) and the latest use's time.
    uses: Mutex<Uses>,
}

/// One writer's turn: while it lives, no other write of the process runs. Ending it records
/// the uses left meanwhile, on this turn's connection.
pub(crate) struct Turn<'a> {
    store: &'a SqliteStore,
    held: Option<MutexGuard<'a, ()>>,
    /// Whether the database took this turn's last write: once another process kept it
    /// busy past the wait, the uses left stay for the next turn.
    busy: bool,
}

type Uses = HashMap<String, (String, Timestamp)>;

/// Leaves the use of key `id` at `at` for the next turn (the latest of the key's uses).
fn leave(uses: &mut Uses, id: String, hash: String, at: Timestamp) {
    let e = uses.entry(id).or_insert((hash.clone(), at));
    if e.1 < at {
        *e = (hash, at);
    }
}

impl Drop for Turn<'_> {
    fn drop(&mut self) {
        let Some(held) = self.held.take() else {
            return;
        };
        loop {
            let mut uses = lock(&self.store.writer.uses);
            // A connection inside a transaction (a write that failed to end it) or a thread
            // unwinding writes nothing more; the next turn records what is left.
            if self.busy
                || uses.is_empty()
                || std::thread::panicking()
                || !self.store.is_autocommit()
            {
                // Let go while `uses` is held: whoever leaves a use looks at the lock while
                // holding `uses` (`record_or_leave`), so a use left before this look was
                // seen, and one after it finds the lock free and is recorded by its own.
                drop(held);
                return;
            }
            let mut left = std::mem::take(&mut *uses).into_iter();
            drop(uses);
            while let Some((id, (hash, at))) = left.next() {
                if self.store.cached_record_key_use(&hash, &id, at).is_err() {
                    // Another process holds the database's lock past the wait: this and the
                    // rest wait for the next turn, which tries again.
                    let mut uses = lock(&self.store.writer.uses);
                    leave(&mut uses, id, hash, at);
                    for (id, (hash, at)) in left.by_ref() {
                        leave(&mut uses, id, hash, at);
                    }
                    self.busy = true;
                }
            }
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while it was held left nothing to repair: the transaction it guarded was
    // rolled back, and a map of uses is whole between statements.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl SqliteStore {
    /// This process's turn to write, waiting for the writer before it.
    pub(crate) fn write_lock(&self) -> Turn<'_> {
        Turn {
            store: self,
            held: Some(lock(&self.writer.turn)),
            busy: false,
        }
    }

    /// Records the use of key `id` (`hash` its hash) at `at` now if no other write of this
    /// process holds the lock; otherwise leaves it to the holder, which records it right
    /// after its commit (`Ok`: it is as good as written). Never waits for another write of
    /// the process, and for another process's at most a moment: a use the database had no
    /// room for then is an error (not recorded now) and is left for the process's next turn
    /// (its next write, or the next use of a key).
    pub(crate) fn record_or_leave(
        &self,
        hash: &str,
        id: &str,
        at: Timestamp,
    ) -> crate::error::Result<()> {
        let mut turn = {
            let mut uses = lock(&self.writer.uses);
            let held = match self.writer.turn.try_lock() {
                Ok(g) => g,
                Err(TryLockError::Poisoned(e)) => e.into_inner(),
                Err(TryLockError::WouldBlock) => {
                    // The holder looks at `uses` before it lets go of the lock, and it
                    // cannot look while this is held: the use is seen.
                    leave(&mut uses, id.to_string(), hash.to_string(), at);
                    return Ok(());
                }
            };
            Turn {
                store: self,
                held: Some(held),
                busy: false,
            }
        };
        let recorded = self.cached_record_key_use(hash, id, at);
        if recorded.is_err() {
            // Not recorded now (the caller shows the key as it is): left for the next turn.
            leave(
                &mut lock(&self.writer.uses),
                id.to_string(),
                hash.to_string(),
                at,
            );
            turn.busy = true;
        }
        recorded
        // `turn` ends here: it records what was left meanwhile.
    }
}

#[cfg(test)]
mod tests {
    use keyhook_core::store::Storage;

    use super::*;
    use crate::testing::{plain_key, temp_store};

    /// A database with the key `k1` (hash `h1`), and two connections to it sharing `lock`.
    fn two_sharing_a_lock() -> (tempfile::TempDir, WriteLock, SqliteStore, SqliteStore) {
        let (dir, store) = temp_store();
        let key = plain_key("k1", "kp_00000000");
        store.write(|c| Ok(c.insert_key(&key, "h1")?)).unwrap();
        let lock = WriteLock::default();
        let store = store.sharing_writes(&lock);
        let other = SqliteStore::open_existing(&dir.path().join("k.db"))
            .unwrap()
            .sharing_writes(&lock);
        (dir, lock, store, other)
    }

    /// A use of a key while another write of the process holds the lock does not wait for
    /// it, and is recorded when that write ends (by the writer, on its connection).
    #[test]
    fn a_key_use_during_another_write_waits_for_nothing_and_is_recorded_when_it_ends() {
        let (_dir, lock, store, other) = two_sharing_a_lock();
        let used = |s: &SqliteStore| s.conn().key_by_hash("h1").unwrap().unwrap().last_used_at;
        let held = other.write_lock();
        store.record_key_use("h1", "k1", Timestamp(5)).unwrap();
        store.record_key_use("h1", "k1", Timestamp(9)).unwrap();
        store.record_key_use("h1", "k1", Timestamp(7)).unwrap();
        assert_eq!(used(&store), None, "not written while the other write runs");
        drop(held);
        assert_eq!(
            used(&store),
            Some(Timestamp(9)),
            "the latest use, once it ended"
        );
        assert_eq!(used(&other), Some(Timestamp(9)));
        assert!(lock.uses.lock().unwrap().is_empty());
        // With the lock free, a use is written at once; never backwards.
        store.record_key_use("h1", "k1", Timestamp(11)).unwrap();
        assert_eq!(used(&other), Some(Timestamp(11)));
        store.record_key_use("h1", "k1", Timestamp(10)).unwrap();
        assert_eq!(used(&other), Some(Timestamp(11)));
    }

    /// A use while another process holds the database's write lock waits a moment at most,
    /// and is recorded by the process's next turn once the lock is free.
    #[test]
    fn a_use_the_database_had_no_room_for_is_recorded_by_the_next_turn() {
        let (dir, store) = temp_store();
        let key = plain_key("k1", "kp_00000000");
        store.write(|c| Ok(c.insert_key(&key, "h1")?)).unwrap();
        let other_process = rusqlite::Connection::open(dir.path().join("k.db")).unwrap();
        other_process.execute_batch("BEGIN IMMEDIATE").unwrap();
        let e = store.record_key_use("h1", "k1", Timestamp(5)).unwrap_err();
        assert!(
            matches!(e, keyhook_core::store::StoreError::Unavailable(_)),
            "not recorded now: {e:?}"
        );
        assert_eq!(store.writer.uses.lock().unwrap().len(), 1);
        other_process.execute_batch("ROLLBACK").unwrap();
        drop(store.write_lock());
        let k = store.conn().key_by_hash("h1").unwrap().unwrap();
        assert_eq!(k.last_used_at, Some(Timestamp(5)));
        assert!(store.writer.uses.lock().unwrap().is_empty());
    }

    /// A turn that ends with the connection still inside a transaction writes nothing; the
    /// next turn records the use.
    #[test]
    fn a_use_left_during_a_turn_that_cannot_write_is_recorded_by_the_next() {
        let (_dir, lock, store, other) = two_sharing_a_lock();
        let held = other.write_lock();
        store.record_key_use("h1", "k1", Timestamp(5)).unwrap();
        other.conn.0.execute_batch("BEGIN").unwrap();
        drop(held);
        assert_eq!(lock.uses.lock().unwrap().len(), 1);
        other.conn.0.execute_batch("ROLLBACK").unwrap();
        drop(other.write_lock());
        let k = store.conn().key_by_hash("h1").unwrap().unwrap();
        assert_eq!(k.last_used_at, Some(Timestamp(5)));
    }
}
