//! The SQLite file as a [`Backend`]: a bounded pool of connections to the same file.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use keyhook_core::model::ApiKey;
use keyhook_core::store::{
    Backend, BackupDone, ChecksumMemory, Conn, ReadAhead, Storage, Store, StoreResult,
};
use keyhook_core::time::Timestamp;

use crate::{SqliteStore, WriteLock};

/// A database file and the connections open to it. `create` says whether connecting may
/// create it (and its directory). The pool opens its `pool_size` connections at the first
/// connect (so a server's descriptors are taken before it serves, as r2d2 does for a
/// database server); a connection given back is kept for the next caller, so the number of
/// open connections (and descriptors) stays fixed however many callers come and go. Its
/// connections share one in-process write lock ([`WriteLock`]): this process's writers queue
/// for the file in turn.
pub struct SqliteBackend {
    path: PathBuf,
    create: bool,
    pool: Arc<Pool<SqliteStore>>,
    writer: WriteLock,
    /// What its connections learned of keys without a checksum, one memory for all of them.
    checksums: ChecksumMemory,
    /// [`SqliteBackend::for_one_command`].
    one_command: bool,
}

impl SqliteBackend {
    /// The file at `path`, with `pool_size` connections (at least one). Nothing is opened
    /// until the first [`connect`](Backend::connect).
    pub fn new(path: impl Into<PathBuf>, create: bool, pool_size: u32) -> SqliteBackend {
        SqliteBackend {
            path: path.into(),
            create,
            pool: Arc::new(Pool::new(pool_size as usize)),
            writer: WriteLock::default(),
            checksums: ChecksumMemory::default(),
            one_command: false,
        }
    }

    /// For a process that runs one command and exits (the CLI's commands, apart from `serve`,
    /// `deliver` and `listen`): each commit is made durable by itself (`synchronous = FULL`,
    /// the log synced at the commit, as the sqlite3 shell does), since nothing else of the
    /// process follows it. When the command's connection closes and it is the last one to the
    /// file, SQLite folds the log back into the file and removes it (its checkpoint at close),
    /// so that the file alone holds everything after the command, even one that failed after
    /// a commit; beside another process's connection (a running `serve`) the log stays, for
    /// that connection to fold back (docs/backup.md).
    pub fn for_one_command(mut self) -> SqliteBackend {
        self.one_command = true;
        self
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Backend for SqliteBackend {
    fn close_idle(&self) {
        let idle = {
            let mut state = self.pool.lock();
            let idle = std::mem::take(&mut state.idle);
            state.open -= idle.len();
            idle
        };
        // One at a time: of connections closing at once, each may find another still open
        // and leave the log to it.
        for conn in idle {
            drop(conn);
        }
    }

    /// A connection from the pool: an idle one if there is one, a new one while fewer than
    /// the pool's size are open, else the first one given back (the caller waits).
    fn connect(&self) -> keyhook_core::Result<Box<Store>> {
        let open = || {
            let store = if self.create {
                SqliteStore::open(&self.path)?
            } else {
                SqliteStore::open_existing(&self.path)?
            };
            if self.one_command {
                store.commit_durably()?;
            }
            Ok(store
                .sharing_writes(&self.writer)
                .sharing_checksums(&self.checksums))
        };
        let store = self.pool.take(open)?;
        // A list its last user read ahead and did not take is not for this one.
        store.get().conn.1.forget();
        // The first connection made the file and its schema; the others just open it.
        self.pool.fill(open);
        Ok(Box::new(store))
    }

    fn describe(&self) -> String {
        self.path.display().to_string()
    }

    /// SQLite's online backup of the file (`crate::backup`).
    fn backup(&self, to: &Path, force: bool) -> keyhook_core::Result<BackupDone> {
        crate::backup::run(&self.path, to, force)
    }
}

/// At most `size` connections, each either idle here or lent out as a [`Pooled`]. Each is
/// boxed: lending and taking back moves a pointer, not the connection with its caches (a
/// `SqliteStore` moved six times a request, ~450 instructions of copies).
struct Pool<T> {
    size: usize,
    /// [`Pool::fill`] has run (also `State::filled`, which decides under the lock).
    filled: AtomicBool,
    state: Mutex<State<T>>,
    returned: Condvar,
}

struct State<T> {
    idle: Vec<Box<T>>,
    /// Connections in existence: idle, lent out, or being opened.
    open: usize,
    /// Whether [`Pool::fill`] has run.
    filled: bool,
    /// Callers waiting in [`Pool::take`]: a connection given back wakes one only if there is
    /// one (a `notify` is a system call even when nobody waits, one per request).
    waiting: usize,
}

impl<T> Pool<T> {
    fn new(size: usize) -> Pool<T> {
        Pool {
            size: size.max(1),
            filled: AtomicBool::new(false),
            state: Mutex::new(State {
                idle: Vec::new(),
                open: 0,
                filled: false,
                waiting: 0,
            }),
            returned: Condvar::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State<T>> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Lends an idle connection, or opens one with `open` (outside the lock: opening may
    /// migrate) while there is room, or waits for one to come back. A failed open gives its
    /// room back.
    fn take(
        self: &Arc<Self>,
        open: impl FnOnce() -> keyhook_core::Result<T>,
    ) -> keyhook_core::Result<Pooled<T>> {
        let mut state = self.lock();
        loop {
            if let Some(conn) = state.idle.pop() {
                return Ok(self.lend(conn));
            }
            if state.open < self.size {
                state.open += 1;
                drop(state);
                return match open() {
                    Ok(conn) => Ok(self.lend(Box::new(conn))),
                    Err(e) => {
                        let mut state = self.lock();
                        state.open -= 1;
                        self.wake(state);
                        Err(e)
                    }
                };
            }
            state.waiting += 1;
            state = self.returned.wait(state).unwrap_or_else(|e| e.into_inner());
            state.waiting -= 1;
        }
    }

    /// Wakes one caller waiting for a connection, if any (`state`'s lock is given up).
    fn wake(&self, state: MutexGuard<'_, State<T>>) {
        let anyone = state.waiting > 0;
        drop(state);
        if anyone {
            self.returned.notify_one();
        }
    }

    /// The first time it is called, opens connections with `open` until the pool has its
    /// size, and keeps them idle. An open that fails ends the filling: the rest are opened
    /// when needed.
    fn fill(&self, open: impl Fn() -> keyhook_core::Result<T>) {
        // Every connect asks; after the first, an atomic load answers instead of the lock
        // all requests share.
        if self.filled.load(Ordering::Acquire) {
            return;
        }
        let mut state = self.lock();
        self.filled.store(true, Ordering::Release);
        if std::mem::replace(&mut state.filled, true) {
            return;
        }
        while state.open < self.size {
            state.open += 1;
            drop(state);
            let opened = open();
            state = self.lock();
            match opened {
                Ok(conn) => state.idle.push(Box::new(conn)),
                Err(_) => {
                    state.open -= 1;
                    self.wake(state);
                    return;
                }
            }
            if state.waiting > 0 {
                self.returned.notify_one();
            }
        }
    }

    fn lend(self: &Arc<Self>, conn: Box<T>) -> Pooled<T> {
        Pooled {
            pool: Arc::clone(self),
            conn: Some(conn),
        }
    }
}

/// A connection lent by a [`Pool`]; it goes back to the pool when dropped (also when a panic
/// unwinds through its holder).
struct Pooled<T> {
    pool: Arc<Pool<T>>,
    conn: Option<Box<T>>,
}

impl<T> Pooled<T> {
    fn get(&self) -> &T {
        self.conn
            .as_deref()
            .expect("a pooled connection is there until dropped")
    }
}

impl<T> Drop for Pooled<T> {
    fn drop(&mut self) {
        if let Some(conn) = self.conn.take() {
            let mut state = self.pool.lock();
            state.idle.push(conn);
            self.pool.wake(state);
        }
    }
}

impl<T: Storage> Storage for Pooled<T> {
    fn conn(&self) -> Conn<'_> {
        self.get().conn()
    }

    fn write_dyn(
        &self,
        f: &mut dyn FnMut(Conn<'_>) -> keyhook_core::Result<()>,
    ) -> keyhook_core::Result<()> {
        self.get().write_dyn(f)
    }

    fn read_dyn(
        &self,
        f: &mut dyn FnMut(Conn<'_>) -> keyhook_core::Result<()>,
    ) -> keyhook_core::Result<()> {
        self.get().read_dyn(f)
    }

    fn key_by_hash_ahead(
        &self,
        key_hash: &str,
        ahead: ReadAhead,
    ) -> StoreResult<Option<Arc<ApiKey>>> {
        self.get().key_by_hash_ahead(key_hash, ahead)
    }

    fn signing(
        &self,
        id: &str,
        now: Timestamp,
    ) -> StoreResult<Option<keyhook_core::store::Signing>> {
        self.get().signing(id, now)
    }

    fn record_key_use(&self, key_hash: &str, key_id: &str, at: Timestamp) -> StoreResult<()> {
        self.get().record_key_use(key_hash, key_id, at)
    }

    fn spend_key_use_now(&self, id: &str) -> keyhook_core::Result<Option<i64>> {
        self.get().spend_key_use_now(id)
    }

    fn checksum_memory(&self) -> &keyhook_core::store::ChecksumMemory {
        self.get().checksum_memory()
    }

    fn trim_log(&self, always: bool) -> StoreResult<()> {
        self.get().trim_log(always)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::mpsc;
    use std::thread;
    use std::time::Duration;

    use super::*;
    use keyhook_core::Error;

    /// What one connection of the pool learned of keys without a checksum, every other one
    /// knows: a server never looks up a token its backend knows to refuse, whichever
    /// connection serves it (it once failed in a whole run, by the connection that served).
    #[test]
    fn the_pool_remembers_checksums_for_all_its_connections() {
        let dir = tempfile::tempdir().unwrap();
        let backend = SqliteBackend::new(dir.path().join("k.db"), true, 2);
        let a = backend.connect().unwrap();
        let b = backend.connect().unwrap();
        assert!(
            !b.all_keys_checksummed(false).unwrap(),
            "nothing learned yet"
        );
        assert!(
            a.all_keys_checksummed(true).unwrap(),
            "an empty database has none"
        );
        assert!(
            b.all_keys_checksummed(false).unwrap(),
            "learned by the other connection"
        );
        drop((a, b));
        let c = SqliteBackend::new(dir.path().join("k.db"), false, 1)
            .connect()
            .unwrap();
        assert!(
            !c.all_keys_checksummed(false).unwrap(),
            "another backend learns it anew"
        );
    }

    /// `close_idle` closes the pool's connections one after the other: the last one folds
    /// the log back into the file and removes it, and the pool opens a connection again
    /// when asked.
    #[test]
    fn close_idle_leaves_the_file_whole_and_the_pool_usable() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("k.db");
        let backend = SqliteBackend::new(&path, true, 3);
        let wal = dir.path().join("k.db-wal");
        {
            let (a, b) = (backend.connect().unwrap(), backend.connect().unwrap());
            a.write(|c| {
                Ok(c.insert_key(&crate::testing::plain_key("k1", "kp_1"), &"1".repeat(64))?)
            })
            .unwrap();
            drop((a, b));
        }
        assert!(wal.exists(), "connections open: the log is there");
        backend.close_idle();
        assert!(!wal.exists(), "the last connection folded the log back");
        assert_eq!(counts(&backend.pool), (0, 0));
        let again = backend.connect().unwrap();
        assert_eq!(again.conn().list_keys(None).unwrap().len(), 1);
    }

    /// A pool of numbered connections, and how many were opened.
    fn numbered(size: usize) -> (Arc<Pool<usize>>, Arc<AtomicUsize>) {
        (Arc::new(Pool::new(size)), Arc::new(AtomicUsize::new(0)))
    }

    /// Connections open, and of those idle.
    fn counts<T>(pool: &Pool<T>) -> (usize, usize) {
        let state = pool.lock();
        (state.open, state.idle.len())
    }

    fn take(pool: &Arc<Pool<usize>>, opened: &AtomicUsize) -> Pooled<usize> {
        pool.take(|| Ok(opened.fetch_add(1, Ordering::SeqCst)))
            .unwrap()
    }

    #[test]
    fn a_connection_given_back_is_lent_again_instead_of_a_new_one() {
        let (pool, opened) = numbered(4);
        for _ in 0..10 {
            let c = take(&pool, &opened);
            assert_eq!(*c.get(), 0);
        }
        assert_eq!(opened.load(Ordering::SeqCst), 1);
        let (a, b) = (take(&pool, &opened), take(&pool, &opened));
        assert_ne!(a.get(), b.get());
        assert_eq!(opened.load(Ordering::SeqCst), 2);
    }

    #[test]
    fn a_full_pool_makes_the_next_caller_wait_for_a_connection_given_back() {
        let (pool, opened) = numbered(2);
        let first = take(&pool, &opened);
        let second = take(&pool, &opened);
        let (tx, rx) = mpsc::channel();
        let waiter = {
            let (pool, opened) = (Arc::clone(&pool), Arc::clone(&opened));
            thread::spawn(move || tx.send(*take(&pool, &opened).get()).unwrap())
        };
        assert!(
            rx.recv_timeout(Duration::from_millis(200)).is_err(),
            "a third connection was lent from a pool of two"
        );
        let given_back = *second.get();
        drop(second);
        assert_eq!(rx.recv_timeout(Duration::from_secs(5)).unwrap(), given_back);
        waiter.join().unwrap();
        assert_eq!(opened.load(Ordering::SeqCst), 2);
        drop(first);
    }

    #[test]
    fn the_first_connect_fills_the_pool_and_later_ones_open_nothing() {
        let db = Arc::new(Pool::new(3));
        let opened = AtomicUsize::new(0);
        let open = || Ok(opened.fetch_add(1, Ordering::SeqCst));
        let first = db.take(open).unwrap();
        db.fill(open);
        assert_eq!(opened.load(Ordering::SeqCst), 3);
        assert_eq!(db.lock().idle.len(), 2);
        let more: Vec<_> = (0..2).map(|_| db.take(open).unwrap()).collect();
        db.fill(open);
        drop((first, more));
        assert_eq!(opened.load(Ordering::SeqCst), 3);
        assert_eq!(db.lock().idle.len(), 3);
        // A failed open stops the filling; the connection is opened when needed.
        let db = Arc::new(Pool::new(3));
        let c = db.take(open).unwrap();
        db.fill(|| Err(Error::Io("EMFILE".into())));
        assert_eq!(counts(&db), (1, 0));
        let d = db.take(open).unwrap();
        assert_eq!(db.lock().open, 2);
        drop((c, d));
    }

    #[test]
    fn a_failed_open_gives_its_room_back() {
        let (pool, opened) = numbered(1);
        let e = pool
            .take(|| Err(Error::Unavailable("no".into())))
            .err()
            .unwrap();
        assert!(matches!(e, Error::Unavailable(_)), "{e:?}");
        // Not a hang: the failed open left the one place free.
        assert_eq!(*take(&pool, &opened).get(), 0);
    }

    #[test]
    fn a_panic_gives_the_connection_back() {
        let (pool, opened) = numbered(1);
        let p = Arc::clone(&pool);
        let o = Arc::clone(&opened);
        let _ = thread::spawn(move || {
            let _c = take(&p, &o);
            panic!("handler bug");
        })
        .join();
        assert_eq!(*take(&pool, &opened).get(), 0);
        assert_eq!(opened.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn the_backend_connects_through_its_pool() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("k.db");
        let missing = SqliteBackend::new(&path, false, 1);
        let e = missing.connect().err().unwrap();
        assert!(matches!(e, Error::NoDatabase(_)), "{e:?}");
        assert!(!path.exists());
        let db = SqliteBackend::new(&path, true, 2);
        assert_eq!(db.describe(), path.display().to_string());
        let c = db.connect().unwrap();
        assert!(c.conn().list_keys(None).unwrap().is_empty());
        assert_eq!(counts(&db.pool), (2, 1));
        drop(c);
        // Connections given back are lent again: more connects open nothing.
        for _ in 0..3 {
            drop((db.connect().unwrap(), db.connect().unwrap()));
        }
        assert_eq!(counts(&db.pool), (2, 2));
        // The missing file's failed open left its pool empty and free.
        assert_eq!(missing.pool.lock().open, 0);
    }
}
