//! keyhook's embedded SQLite backend, the default: the only crate that speaks SQL to SQLite.
//! It opens the file, applies the pragmas and the migrations, and implements the core's
//! storage boundary ([`keyhook_core::store::Storage`] and [`Queries`]) over one connection.
//! One [`SqliteStore`] belongs to one thread; a server opens one per worker.

/// A new delivery's id, as an SQL expression of the statement's parameter `$at` (its
/// creation time in milliseconds): `dlv_`, 12 hex digits of that time (so ids sort by
/// creation, and retention deletes at one end of their index), then 12 random ones.
macro_rules! new_delivery_id {
    ($at:literal) => {
        concat!(
            "'dlv_' || printf('%012x', ",
            $at,
            ") || lower(hex(randomblob(6)))"
        )
    };
}

/// SQLite's side of the core's rule fragments (`keyhook_core::store::sql`): a boolean is
/// an integer, a list is a JSON text read with `json_each`, and rows are inserted in `rowid`
/// order (a delivery's place in its webhook's queue: writers take turns). No rule is written here: only how this dialect spells the core's.
macro_rules! dialect {
    (flag $($c:literal)+) => {
        concat!($($c,)+ " = 1")
    };
    (insertion_order $t:literal) => {
        concat!($t, ".rowid")
    };
    (queue_order $t:literal) => {
        concat!($t, "rowid")
    };
}

mod audit;
mod backend;
mod backup;
mod copy_queries;
mod error;
mod event_types;
mod idempotency;
mod key_cache;
mod keys;
mod migrations;
mod outbox;
mod portal;
mod probe_queries;
mod replay;
mod retention;
mod secrets;
mod wal_index;
mod webhooks;
mod write_lock;

use std::fs::{DirBuilder, OpenOptions};
use std::io::ErrorKind;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags, TransactionBehavior};

use keyhook_core::model::ApiKey;
use keyhook_core::store::{
    AheadMemo, ChecksumMemory, Conn as View, Listed, ReadAhead, ReadWithKey, SecretQueries,
    Storage, Store, StoreError, StoreResult,
};
use keyhook_core::time::Timestamp;
// The core's modules under the names the backend's files use.
use keyhook_core::{model, time};

pub use backend::SqliteBackend;
pub use error::Error;
use error::Result;
pub use migrations::SCHEMA_VERSION;

/// How long a writer waits for another process's write lock before giving up.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// The size, in bytes, the write-ahead log is cut back to each time it is reset (64 MiB),
/// and past which [`Storage::trim_log`] restarts it.
pub const WAL_SIZE_LIMIT: i64 = 64 * 1024 * 1024;

/// How long a checkpoint that restarts the write-ahead log waits for the readers of older
/// snapshots (and another process's writer) before it gives up until the next turn. While
/// it waits nobody writes, so it is short; readers finish in milliseconds.
const CHECKPOINT_WAIT: Duration = Duration::from_millis(100);

pub struct SqliteStore {
    conn: Conn,
    path: PathBuf,
    key_cache: std::cell::RefCell<key_cache::KeyCache>,
    /// Held by every write of this process to the file (shared by a pool's connections, see
    /// [`SqliteBackend`]): writers of one process queue here, in turn, instead of meeting
    /// SQLite's lock, whose busy handler polls in sleeps of up to 100 ms (which put a write
    /// behind the pruner's batches 100 ms or more late). Other processes still meet the lock.
    writer: WriteLock,
    /// Whether no key without a checksum is left, once known (this connection's).
    checksums: ChecksumMemory,
}

pub(crate) use write_lock::WriteLock;

/// The connection, on which every query of [`Queries`] runs: inside a transaction while
/// [`SqliteStore::write_dyn`] holds one open on it, outside otherwise; and the list read with
/// the key by [`Storage::key_by_hash_ahead`], for the very next list read.
pub struct Conn(Connection, AheadMemo);

impl SqliteStore {
    /// Opens (creating if needed) the keyhook database at `path` and brings its schema up to
    /// date. A missing file is created with mode 0600 in directories created with mode 0700. A
    /// file that is not a keyhook database, or one written by a newer keyhook, is refused and
    /// left untouched.
    pub fn open(path: &Path) -> Result<SqliteStore> {
        Self::open_with(path, true)
    }

    /// Opens the keyhook database at `path` like [`SqliteStore::open`], but only if the file is
    /// already there: nothing is created, neither the file nor its directory. Commands that
    /// only read use this, so that a mistyped `--db` is reported (`Error::NoDatabase`, exit 1)
    /// instead of answered from a new, empty database.
    pub fn open_existing(path: &Path) -> Result<SqliteStore> {
        let missing =
            std::fs::symlink_metadata(path).is_err_and(|e| e.kind() == ErrorKind::NotFound);
        if missing {
            return Err(StoreError::Missing(format!(
                "no database at {}; create one with 'keyhook keys create --name NAME' \
                 (or pass --db with the path of an existing one)",
                path.display()
            ))
            .into());
        }
        Self::open_with(path, false)
    }

    fn open_with(path: &Path, create: bool) -> Result<SqliteStore> {
        let store = Self::open_unmigrated(path, create)?;
        match migrations::migrate(&store.conn.0) {
            Ok(()) => Ok(store),
            Err(_) if store.wal_index_unavailable() => {
                drop(store);
                let store = Self::open_immutable(path)?;
                migrations::migrate(&store.conn.0).map_err(|e| store.describe(e))?;
                Ok(store)
            }
            Err(e) => Err(store.describe(e)),
        }
    }

    /// A WAL database can be read only with its shared-memory index (`-shm`), which SQLite
    /// creates beside the file on first use. On a read-only filesystem it cannot, and SQLite
    /// refuses to open the file at all. If there is also no write-ahead log with content, the
    /// database file alone holds every committed transaction, and nobody can change it: it is
    /// read as an immutable file instead. Reads keep working; every write fails with
    /// `SQLITE_READONLY` (503 / exit 1, "database is read-only"). A directory that is merely
    /// not ours to write keeps the error: its owner may write the file while we read.
    fn wal_index_unavailable(&self) -> bool {
        let read_only = self
            .conn
            .0
            .is_readonly(rusqlite::DatabaseName::Main)
            .unwrap_or(false);
        let cannot_open = || {
            let probe = self
                .conn
                .0
                .query_row("PRAGMA schema_version", [], |r| r.get::<_, i64>(0));
            probe.is_err_and(|e| e.sqlite_error_code() == Some(rusqlite::ErrorCode::CannotOpen))
        };
        read_only
            && cannot_open()
            && !has_wal_content(&self.path)
            && on_read_only_filesystem(&self.path)
    }

    fn open_immutable(path: &Path) -> Result<SqliteStore> {
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_URI
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let uri = format!("file:{}?immutable=1", uri_path(path));
        let conn = Connection::open_with_flags(uri, flags)
            .map_err(|e| StoreError::Io(format!("cannot open database {}: {e}", path.display())))?;
        Ok(SqliteStore::with_connection(conn, path))
    }

    fn with_connection(conn: Connection, path: &Path) -> SqliteStore {
        conn.set_prepared_statement_cache_capacity(64);
        SqliteStore {
            conn: Conn(conn, AheadMemo::default()),
            path: path.to_path_buf(),
            key_cache: Default::default(),
            writer: WriteLock::default(),
            checksums: ChecksumMemory::default(),
        }
    }

    /// This connection's writes take `writer` (the one of the other connections to the same
    /// file in this process) instead of a lock of its own.
    pub(crate) fn sharing_writes(mut self, writer: &WriteLock) -> SqliteStore {
        self.writer = Arc::clone(writer);
        self
    }

    /// This connection remembers what its backend's other connections learned of keys
    /// without a checksum ([`ChecksumMemory`]: the backend's, for all its connections), so
    /// that no connection of the pool looks up a token the backend knows to refuse.
    pub(crate) fn sharing_checksums(mut self, checksums: &ChecksumMemory) -> SqliteStore {
        self.checksums = checksums.clone();
        self
    }

    /// Whether this connection is outside any transaction.
    fn is_autocommit(&self) -> bool {
        self.conn.0.is_autocommit()
    }

    /// The size of this database's write-ahead log file.
    fn wal_len(&self) -> u64 {
        wal_len(&self.path)
    }

    fn open_unmigrated(path: &Path, create: bool) -> Result<SqliteStore> {
        let display = path.display();
        if path.is_dir() {
            return Err(StoreError::Io(format!("database path {display} is a directory")).into());
        }
        if !create {
            // SQLite opens without SQLITE_OPEN_CREATE below: a file removed meanwhile is an
            // error, not a new database.
            return Self::open_connection(path);
        }
        create_parent_dir(path)?;
        match OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(path)
        {
            Ok(_) => {}
            Err(e) if e.kind() == ErrorKind::AlreadyExists => {}
            Err(e) => {
                return Err(StoreError::Io(format!("cannot create database {display}: {e}")).into())
            }
        }
        // The file exists now; SQLite must not create it with its own (0644) mode.
        Self::open_connection(path)
    }

    fn open_connection(path: &Path) -> Result<SqliteStore> {
        let display = path.display();
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(path, flags)
            .map_err(|e| StoreError::Io(format!("cannot open database {display}: {e}")))?;
        let store = SqliteStore::with_connection(conn, path);
        store
            .conn
            .0
            .busy_timeout(BUSY_TIMEOUT)
            .map_err(|e| store.describe(e.into()))?;
        // The write-ahead log grows while checkpoints cannot reset it (a burst of writes with
        // readers in between) and SQLite never shrinks it by itself: cut it back to this size
        // whenever it is reset, so the file pair stays bounded once retention keeps up.
        store
            .conn
            .0
            .query_row(
                &format!("PRAGMA journal_size_limit = {WAL_SIZE_LIMIT}"),
                [],
                |r| r.get::<_, i64>(0),
            )
            .map_err(|e| store.describe(e.into()))?;
        Ok(store)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// [`SqliteBackend::for_one_command`]'s setting on this connection: each commit syncs
    /// the log (`synchronous = FULL`, the sqlite3 shell's default), so that it is durable
    /// when the command reports it, whatever happens to the process before it closes the file.
    pub(crate) fn commit_durably(&self) -> keyhook_core::Result<()> {
        self.conn
            .0
            .execute_batch("PRAGMA synchronous = FULL")
            .map_err(|e| self.describe(e.into()).into())
    }

    /// [`Store::write`] on this connection.
    pub fn write<T>(
        &self,
        f: impl FnOnce(View<'_>) -> keyhook_core::Result<T>,
    ) -> keyhook_core::Result<T> {
        (self as &Store).write(f)
    }

    /// Adds the file name to storage errors, which otherwise say little to an operator.
    fn describe(&self, e: Error) -> Error {
        Error(match e.0 {
            StoreError::Broken(m) => StoreError::Broken(format!("{}: {m}", self.path.display())),
            StoreError::Unavailable(m) => {
                StoreError::Unavailable(format!("{}: {m}", self.path.display()))
            }
            other => other,
        })
    }
}

impl Storage for SqliteStore {
    fn conn(&self) -> View<'_> {
        &self.conn
    }

    /// `BEGIN IMMEDIATE`: the write lock is taken up front.
    fn write_dyn(
        &self,
        f: &mut dyn FnMut(View<'_>) -> keyhook_core::Result<()>,
    ) -> keyhook_core::Result<()> {
        // `new_unchecked` takes `&Connection`; a store is used by one thread at a time and no
        // caller nests `write`, so the checked variant's `&mut` would buy nothing. Queries run
        // on the same connection, so they run inside the transaction while `tx` lives.
        self.conn.1.forget();
        let _turn = self.write_lock();
        let tx = rusqlite::Transaction::new_unchecked(&self.conn.0, TransactionBehavior::Immediate)
            .map_err(|e| self.describe(e.into()))?;
        let out = f(&self.conn);
        // Whatever this connection changed, `data_version` will not tell the key cache.
        self.key_cache.borrow_mut().clear();
        out?;
        tx.commit().map_err(|e| self.describe(e.into()))?;
        Ok(())
    }

    /// [`SqliteStore::in_read_transaction`].
    fn read_dyn(
        &self,
        f: &mut dyn FnMut(View<'_>) -> keyhook_core::Result<()>,
    ) -> keyhook_core::Result<()> {
        self.conn.1.forget();
        self.in_read_transaction(|| f(&self.conn))
    }

    /// From the connection's cache while nobody committed since (`data_version`, read on
    /// every call); inside a transaction, whose own writes the cache does not see, read.
    fn signing(
        &self,
        id: &str,
        now: Timestamp,
    ) -> StoreResult<Option<keyhook_core::store::Signing>> {
        self.conn.1.forget();
        if !self.conn.0.is_autocommit() {
            return SecretQueries::signing(&self.conn, id, now);
        }
        Ok(self.cached_signing(id, now)?)
    }

    /// With a list ahead (outside a transaction), the key and that list of its user come from
    /// the connection's cache when it holds both and nobody committed since (`data_version`,
    /// read on every call: revocation stays exact); otherwise they are read in one read
    /// transaction and cached. The list is kept for the next statement if it is that read.
    /// Either way one round of the log's read lock (a lock in shared memory, and an `fcntl`
    /// lock when no other connection of the process holds it) instead of two.
    fn key_by_hash_ahead(
        &self,
        key_hash: &str,
        ahead: ReadAhead,
    ) -> StoreResult<Option<Arc<ApiKey>>> {
        self.conn.1.forget();
        if ahead == ReadAhead::Nothing || !self.conn.0.is_autocommit() {
            return Ok(self.cached_key_by_hash(key_hash)?);
        }
        if let Some((key, list)) = self.cached_key_and_list(key_hash, ahead)? {
            self.conn.1.keep(Some(list));
            return Ok(Some(key));
        }
        let read = self.in_read_transaction(|| -> StoreResult<_> {
            let Some(key) = self.cached_key_by_hash(key_hash)? else {
                return Ok((None, None));
            };
            let user = key.user_id.clone();
            let list = match ahead {
                ReadAhead::WebhooksOfItsUser => ReadWithKey::Webhooks(
                    user,
                    Listed::new(self.conn.list_webhooks_now(&key.user_id)?),
                ),
                _ => ReadWithKey::Keys(
                    user,
                    Listed::new(self.conn.list_keys_now(Some(&key.user_id))?),
                ),
            };
            self.remember_list(&list);
            Ok((Some(key), Some(list)))
        })?;
        let (key, list) = read;
        self.conn.1.keep(list);
        Ok(key)
    }

    /// A request never waits to note `lastUsedAt`: while another write of this process
    /// holds the lock, the use is left to that writer, which records it when its write ends
    /// (`write_lock.rs`).
    fn record_key_use(&self, key_hash: &str, key_id: &str, at: Timestamp) -> StoreResult<()> {
        self.conn.1.forget();
        Ok(self.record_or_leave(key_hash, key_id, at)?)
    }

    /// With `always`, `PRAGMA wal_checkpoint(TRUNCATE)`: the log is emptied, so no frame of
    /// a deleted secret stays on disk. Otherwise, once the log file is over
    /// [`WAL_SIZE_LIMIT`], a RESTART checkpoint. SQLite's own checkpoints (passive, every
    /// 1,000 pages, by the commit that crosses them) cannot copy the frames committed after
    /// the snapshot of a reader still reading; when readers always overlap they never finish,
    /// the log is never restarted, and it grew to 4.5 GB in `bench/retention.sh`. RESTART
    /// takes the write lock, waits (at most [`CHECKPOINT_WAIT`], else it is tried at the next
    /// call) for those readers, copies what is left, and the next writer starts the log from
    /// its beginning again (`journal_size_limit` cuts the file back to the limit).
    fn trim_log(&self, always: bool) -> StoreResult<()> {
        self.trim_log_past(always, WAL_SIZE_LIMIT as u64, CHECKPOINT_WAIT)
    }

    fn checksum_memory(&self) -> &ChecksumMemory {
        &self.checksums
    }
}

impl SqliteStore {
    /// Runs `f` in a read transaction (`BEGIN DEFERRED`: in WAL mode its first read fixes
    /// the snapshot, and writers go on), rolled back after `f` whether it succeeded or not, so
    /// nothing `f` may have written stays. `BEGIN` and `ROLLBACK` come from the statement
    /// cache: they run on every authenticated list request.
    fn in_read_transaction<T, E: From<Error>>(
        &self,
        f: impl FnOnce() -> std::result::Result<T, E>,
    ) -> std::result::Result<T, E> {
        let run = |sql: &str| -> Result<()> {
            self.conn.0.prepare_cached(sql)?.execute([])?;
            Ok(())
        };
        run("BEGIN DEFERRED").map_err(|e| self.describe(e))?;
        let out = f();
        let end = run("ROLLBACK");
        if !self.conn.0.is_autocommit() {
            // The connection must not stay inside the transaction for its next user.
            let _ = self.conn.0.execute_batch("ROLLBACK");
        }
        let out = out?;
        end.map_err(|e| self.describe(e))?;
        Ok(out)
    }

    /// [`Storage::trim_log`] with the log's bound (bytes) and the wait for readers given (a
    /// test's are small and long).
    fn trim_log_past(&self, always: bool, limit: u64, wait: Duration) -> StoreResult<()> {
        let mode = if always {
            "TRUNCATE"
        } else if self.wal_len() > limit {
            "RESTART"
        } else {
            return Ok(());
        };
        let _turn = self.write_lock();
        self.checkpoint(mode, wait)
    }

    /// `PRAGMA wal_checkpoint(mode)`, waiting at most `wait` for readers and writers.
    fn checkpoint(&self, mode: &str, wait: Duration) -> StoreResult<()> {
        self.conn
            .waiting_at_most(wait, |c| {
                c.query_row(&format!("PRAGMA wal_checkpoint({mode})"), [], |_| Ok(()))
            })
            .map_err(|e| self.describe(e.into()).into())
    }
}

impl Conn {
    /// Runs `f` with the busy timeout cut to `wait` (for a statement worth less than a long
    /// wait for another writer), then puts [`BUSY_TIMEOUT`] back; `f`'s result.
    fn waiting_at_most<T>(
        &self,
        wait: Duration,
        f: impl FnOnce(&Connection) -> rusqlite::Result<T>,
    ) -> rusqlite::Result<T> {
        self.0.busy_timeout(wait)?;
        let out = f(&self.0);
        self.0.busy_timeout(BUSY_TIMEOUT)?;
        out
    }
}

/// The write-ahead log of the database at `path`.
pub(crate) fn wal_path(path: &Path) -> PathBuf {
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    PathBuf::from(wal)
}

/// Whether `path`'s write-ahead log exists and is not empty. Only the file's metadata is
/// read: opening and closing a descriptor of a database file (or its WAL) would drop every
/// POSIX lock this process holds on it.
/// Creates the missing directories above `path` with mode 0700 (a database's, a backup's).
pub(crate) fn create_parent_dir(path: &Path) -> Result<()> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        if !parent.exists() {
            DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(parent)
                .map_err(|e| {
                    StoreError::Io(format!("cannot create directory {}: {e}", parent.display()))
                })?;
        }
    }
    Ok(())
}

fn has_wal_content(path: &Path) -> bool {
    wal_len(path) > 0
}

/// The size of the write-ahead log of the database at `path` (0 when there is none).
fn wal_len(path: &Path) -> u64 {
    std::fs::metadata(wal_path(path)).map_or(0, |m| m.len())
}

/// Whether the directory of `path` is on a read-only filesystem: creating a file there fails
/// with EROFS. A probe file that could be created is removed again.
fn on_read_only_filesystem(path: &Path) -> bool {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let probe = dir.join(format!(".keyhook-probe-{}", std::process::id()));
    match OpenOptions::new().write(true).create_new(true).open(&probe) {
        Ok(_) => {
            let _ = std::fs::remove_file(&probe);
            false
        }
        Err(e) => e.kind() == ErrorKind::ReadOnlyFilesystem,
    }
}

/// `path` for a `file:` URI: every byte but unreserved ones and `/` percent-encoded.
fn uri_path(path: &Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    let mut out = String::new();
    for &b in path.as_os_str().as_bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Reads a JSON array of strings kept in a TEXT column. A damaged value is a storage error,
/// never a panic.
fn json_strings(s: &str) -> rusqlite::Result<Vec<String>> {
    serde_json::from_str(s).map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(0, rusqlite::types::Type::Text, Box::new(e))
    })
}

/// Strings as one JSON array: a list column, or ids that a statement reads with `json_each`.
fn to_json(v: &[impl AsRef<str>]) -> String {
    let v: Vec<&str> = v.iter().map(AsRef::as_ref).collect();
    serde_json::to_string(&v).unwrap_or_else(|_| "[]".to_string())
}

#[cfg(test)]
pub(crate) mod testing {
    use super::*;

    /// A store in a fresh temporary directory; the directory lives as long as the guard.
    pub fn temp_store() -> (tempfile::TempDir, SqliteStore) {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(&dir.path().join("k.db")).unwrap();
        (dir, store)
    }

    /// A readwrite, full-access key of user `u` that never expires, for store tests.
    pub fn plain_key(id: &str, key_prefix: &str) -> keyhook_core::model::ApiKey {
        keyhook_core::model::ApiKey {
            id: id.into(),
            user_id: "u".into(),
            key_prefix: key_prefix.into(),
            name: "n".into(),
            permission: keyhook_core::model::Permission::Readwrite,
            full_access: true,
            profile_ids: vec![],
            last_used_at: None,
            expires_at: None,
            rate_limit: None,
            remaining_uses: None,
            budget_id: None,
            created_at: keyhook_core::time::Timestamp(1),
            key: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::testing::temp_store;
    use super::*;
    use keyhook_core::store::KeyQueries;

    /// The bundled SQLite is built as `.cargo/config.toml` asks: without the mutex that a
    /// unified page cache (`SQLITE_ENABLE_MEMORY_MANAGEMENT`) puts over every connection's
    /// page reads, and without the memory statistics whose mutex every SQLite allocation
    /// takes. Both were shared by all of `serve`'s requests (`perf` under wrk). Each
    /// connection's own cache reserves SQLite's default pages at its first read: allocating
    /// each page as it is read (`SQLITE_DEFAULT_PCACHE_INITSZ=0`) made every `keys create`
    /// 1.1-1.3 ms slower (bench/cli-create.sh, in turns).
    #[test]
    fn the_bundled_sqlite_has_no_process_wide_locks_on_the_hot_path() {
        let (_dir, store) = temp_store();
        let options: Vec<String> = store
            .conn
            .0
            .prepare("PRAGMA compile_options")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        assert!(
            options.iter().any(|o| o == "DEFAULT_MEMSTATUS=0"),
            "{options:?}"
        );
        assert!(
            !options.iter().any(|o| o == "ENABLE_MEMORY_MANAGEMENT"),
            "{options:?}"
        );
        // The page cache's first 20 pages reserved at once, SQLite's default.
        assert!(
            options.iter().any(|o| o == "DEFAULT_PCACHE_INITSZ=20"),
            "{options:?}"
        );
        // What the build keeps (so that the list above is the build's, not an empty one).
        assert!(options.iter().any(|o| o == "THREADSAFE=1"), "{options:?}");
    }

    /// Every connection cuts the write-ahead log back to [`WAL_SIZE_LIMIT`] when it resets
    /// it (SQLite's default, -1, keeps the log at its largest size for ever).
    #[test]
    fn connections_bound_the_write_ahead_log() {
        let (dir, store) = temp_store();
        let limit: i64 = store
            .conn
            .0
            .query_row("PRAGMA journal_size_limit", [], |r| r.get(0))
            .unwrap();
        assert_eq!(limit, WAL_SIZE_LIMIT);
        let again = SqliteStore::open_existing(&dir.path().join("k.db")).unwrap();
        let limit: i64 = again
            .conn
            .0
            .query_row("PRAGMA journal_size_limit", [], |r| r.get(0))
            .unwrap();
        assert_eq!(limit, WAL_SIZE_LIMIT);
    }

    fn pragma(store: &SqliteStore, name: &str) -> i64 {
        store
            .conn
            .0
            .query_row(&format!("PRAGMA {name}"), [], |r| r.get(0))
            .unwrap()
    }

    /// The keys in the file at `path` alone, copied to another path without its log (as
    /// `cp keyhook.db backup.db` copies it).
    fn keys_in_a_copy_of_the_file_alone(path: &Path) -> i64 {
        let copy = path.with_extension("copy");
        std::fs::copy(path, &copy).unwrap();
        let c = Connection::open(&copy).unwrap();
        let n = c
            .query_row("SELECT count(*) FROM api_keys", [], |r| r.get(0))
            .unwrap();
        drop(c);
        std::fs::remove_file(&copy).unwrap();
        n
    }

    /// A one-command process's connection syncs the log at each commit (FULL, 2); a
    /// server's connections keep NORMAL (1).
    #[test]
    fn a_one_command_connection_commits_durably() {
        let (dir, store) = temp_store();
        assert_eq!(pragma(&store, "synchronous"), 1);
        let again = SqliteStore::open_existing(&dir.path().join("k.db")).unwrap();
        again.commit_durably().unwrap();
        assert_eq!(pragma(&again, "synchronous"), 2);
    }

    /// The connection of a one-command backend, the last one to the file, folds the log back
    /// into the file when it closes and removes it, as the sqlite3 shell does: after every
    /// command the file alone holds every commit (the first one, which creates the file and
    /// its schema, too).
    #[test]
    fn a_one_command_backend_leaves_the_file_whole() {
        use keyhook_core::store::Backend;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("k.db");
        for i in 0..20 {
            let backend = SqliteBackend::new(&path, true, 1).for_one_command();
            let store = backend.connect().unwrap();
            let key = testing::plain_key(&format!("k{i}"), &format!("kp_{i:0>8}"));
            store
                .write(|c| Ok(c.insert_key(&key, &format!("h{i}"))?))
                .unwrap();
            drop((store, backend));
            assert!(!wal_path(&path).exists(), "command {i} left its log");
            assert_eq!(keys_in_a_copy_of_the_file_alone(&path), i + 1);
        }
    }

    /// A command beside another process's connection (a running `serve`) is not the last one:
    /// it leaves the log to that connection, as any SQLite client does, and its commit is in
    /// the database (read through the log); the last one to close folds it back.
    #[test]
    fn a_command_beside_a_server_leaves_the_log_to_it() {
        use keyhook_core::store::Backend;
        let (dir, server) = temp_store();
        let path = dir.path().join("k.db");
        let backend = SqliteBackend::new(&path, false, 1).for_one_command();
        let store = backend.connect().unwrap();
        let key = testing::plain_key("k1", "kp_00000001");
        store.write(|c| Ok(c.insert_key(&key, "h1")?)).unwrap();
        drop((store, backend));
        assert!(wal_len(&path) > 0, "the server's log was folded under it");
        assert_eq!(server.conn.list_keys(None).unwrap().len(), 1);
        drop(server);
        assert!(!wal_path(&path).exists());
        assert_eq!(keys_in_a_copy_of_the_file_alone(&path), 1);
    }

    /// A user's keys and webhooks come out of their index in list order: no sort (a
    /// temporary B-tree) on every list request.
    #[test]
    fn lists_read_their_index_in_order_without_a_sort() {
        let (_dir, store) = temp_store();
        for query in [keys::LIST_BY_USER, webhooks::LIST_BY_USER] {
            let mut stmt = store
                .conn
                .0
                .prepare(&format!("EXPLAIN QUERY PLAN {query}"))
                .unwrap();
            let plan: Vec<String> = stmt
                .query_map(["u"], |r| r.get::<_, String>(3))
                .unwrap()
                .collect::<rusqlite::Result<_>>()
                .unwrap();
            assert!(
                plan.iter().any(|p| p.contains("USING INDEX")),
                "{query}: {plan:?}"
            );
            assert!(
                !plan.iter().any(|p| p.contains("TEMP B-TREE")),
                "{query}: {plan:?}"
            );
        }
    }

    /// One small write transaction (a page or two of log).
    fn write_row(store: &SqliteStore, i: i64) {
        store
            .conn
            .0
            .execute("INSERT INTO t VALUES (?1, randomblob(3000))", [i])
            .unwrap();
    }

    /// Frames committed after a reader's snapshot cannot be copied into the database while
    /// that reader lasts, so with readers always overlapping SQLite's own (passive)
    /// checkpoints never finish and the log is never restarted. Under its bound, trim_log
    /// leaves the log alone (it returns at once, the log keeps growing); past it, it waits
    /// for such a reader to finish and restarts the log (the next writes reuse it from its
    /// start, and the file stops growing); `always` empties it.
    #[test]
    fn trim_log_restarts_a_log_past_its_bound_and_empties_it_when_asked() {
        let (dir, store) = temp_store();
        store.conn.0.execute_batch("CREATE TABLE t (i, b)").unwrap();
        let reader = SqliteStore::open_existing(&dir.path().join("k.db")).unwrap();
        // A reader on the snapshot of now, while 50 more rows are written.
        let read = |r: &SqliteStore| {
            r.conn.0.execute_batch("BEGIN").unwrap();
            let _: i64 = r
                .conn
                .0
                .query_row("SELECT count(*) FROM t", [], |r| r.get(0))
                .unwrap();
        };
        let end = |r: &SqliteStore| r.conn.0.execute_batch("COMMIT").unwrap();
        let rows = |from: i64, n: i64| (from..from + n).for_each(|i| write_row(&store, i));
        rows(0, 50);
        read(&reader);
        rows(50, 50);
        let grown = store.wal_len();
        assert!(grown > 100 * 4096, "{grown}");
        // At the bound: left alone, at once although a reader is there.
        let long = Duration::from_secs(30);
        let started = std::time::Instant::now();
        store.trim_log_past(false, grown, long).unwrap();
        assert!(started.elapsed() < Duration::from_secs(5), "it waited");
        end(&reader);
        rows(100, 20);
        let longer = store.wal_len();
        assert!(longer > grown, "{longer} after {grown}");
        // Past the bound: it waits for the reader (gone 50 ms later), then restarts the log.
        read(&reader);
        rows(120, 20);
        let before = store.wal_len();
        std::thread::scope(|s| {
            s.spawn(move || {
                std::thread::sleep(Duration::from_millis(50));
                end(&reader);
            });
            store.trim_log_past(false, 0, long).unwrap();
        });
        rows(140, 20);
        assert_eq!(store.wal_len(), before, "the log grew after a restart");
        // Always: emptied.
        store.trim_log(true).unwrap();
        assert_eq!(store.wal_len(), 0);
        // And nothing was lost.
        let n: i64 = store
            .conn
            .0
            .query_row("SELECT count(*) FROM t", [], |r| r.get(0))
            .unwrap();
        assert_eq!(n, 160);
    }
}
