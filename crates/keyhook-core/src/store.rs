//! The storage boundary. The services speak to a database only through these two traits;
//! each backend crate (keyhook-sqlite, keyhook-postgres) implements them, and nothing in the
//! core knows which one it has. This file holds the frame; each area's queries and their
//! types are a file of their own under `store/` (re-exported here), `store/memo.rs` what
//! both backends remember between calls, `store/sql.rs` the rules they run inside SQL.
//!
//! - [`Storage`] is one connection to the database: the reads a request makes outside a
//!   transaction ([`Storage::conn`]), write transactions ([`dyn Storage::write`]), and the
//!   key lookups of authentication, which a backend may cache.
//! - [`Queries`] is every query, the same methods in and out of a transaction.
//!
//! Both are object safe: the services take `&Store` (`&dyn Storage`), so the front ends and
//! the services compile once, whatever backend the binary wires in.

use crate::error::{Error, Result};
use crate::model::ApiKey;
use crate::time::Timestamp;

mod audit;
mod copy;
mod event_types;
mod history;
mod idempotency;
mod keys;
mod memo;
mod ops;
mod outbox;
pub mod portal;
mod replay;
mod retention;
mod secrets;
pub mod sql;
mod webhooks;

pub use audit::AuditQueries;
pub use copy::CopyQueries;
pub use event_types::EventTypeQueries;
pub use history::{AttemptMark, HistoryQueries};
pub use idempotency::{HeldRequest, IdempotencyQueries, RequestClaim};
pub use keys::{KeyQueries, Listed, ReadAhead};
pub use memo::{record_use_in, use_moves, AheadMemo, ChecksumMemory, ReadWithKey};
pub use ops::OpsQueries;
pub use outbox::{finish_claimed_by_id, Claimed, DeliveryState, OutboxQueries, RateBucket, PARKED};
pub use replay::{ReplayCandidate, ReplayQueries, ReplaySelection};
pub use retention::RetentionQueries;
pub use secrets::{SecretQueries, Signing};
pub use webhooks::{AttemptRecord, FailCounter, WebhookQueries};

pub use portal::{PortalLinkRow, PortalQueries, PortalSessionRow};

/// What a backend reports when a query or a transaction fails. The core maps it to
/// [`Error`] (and from there to an exit code or an HTTP status); nothing of the backend's own
/// error types crosses the boundary.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    /// The database cannot take this now but may later: busy past the timeout, read-only,
    /// out of space. 503 / exit 1.
    #[error("{0}")]
    Unavailable(String),
    /// The database is not what it should be: corrupt, not keyhook's, from a newer keyhook,
    /// or an unexpected failure. 500 / exit 1.
    #[error("{0}")]
    Broken(String),
    /// The operating system refused (a directory, a file, its mode). 500 / exit 1.
    #[error("{0}")]
    Io(String),
    /// There is no database where one was expected (and none was to be created).
    /// 503 / exit 1, `DATABASE_NOT_FOUND`.
    #[error("{0}")]
    Missing(String),
}

impl From<StoreError> for Error {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::Unavailable(m) => Error::Unavailable(m),
            StoreError::Broken(m) => Error::Storage(m),
            StoreError::Io(m) => Error::Io(m),
            StoreError::Missing(m) => Error::NoDatabase(m),
        }
    }
}

/// The result of a storage call.
pub type StoreResult<T> = std::result::Result<T, StoreError>;

/// One connection to the database, used by one thread at a time.
pub trait Storage: Send {
    /// The database for reads outside a transaction.
    fn conn(&self) -> Conn<'_>;

    /// Runs `f` in a write transaction that holds the write lock from its start, so that a
    /// check and the write that depends on it (a limit, a count) see no concurrent writer.
    /// `f`'s error rolls the transaction back and is returned as it is. Callers use the
    /// generic [`write`](Store::write).
    fn write_dyn(&self, f: &mut dyn FnMut(Conn<'_>) -> Result<()>) -> Result<()>;

    /// Runs `f` in a read-only transaction that sees one consistent snapshot of the database
    /// however long it takes, without blocking writers (`db copy` reads its source so).
    /// Callers use the generic [`read`](Store::read).
    fn read_dyn(&self, f: &mut dyn FnMut(Conn<'_>) -> Result<()>) -> Result<()>;

    /// The key whose SHA-256 (lowercase hex) is `key_hash`, as last committed by anyone (a
    /// backend may answer from a cache only if it knows the cache is current), told what the
    /// caller reads next if the key may ([`ReadAhead::Nothing`]: nothing): a backend that pays
    /// a round trip per statement (PostgreSQL) reads it in the same statement and answers that
    /// read from it, if it is the very next statement on this connection (anything else in
    /// between, a write included, drops it). The key is still read on every call: revocation
    /// stays exact. The key is shared: a backend that keeps keys hands out its own copy without
    /// copying it (a request's key is only read, but for a use recorded, which copies it then).
    fn key_by_hash_ahead(
        &self,
        key_hash: &str,
        ahead: ReadAhead,
    ) -> StoreResult<Option<std::sync::Arc<ApiKey>>>;

    /// A webhook's state right before a delivery's request ([`SecretQueries::signing`]), as
    /// last committed by anyone: a webhook disabled, deleted, narrowed or rotated anywhere is
    /// seen by the next call. A backend may answer from a cache only if it knows the cache
    /// is current. The default reads it.
    fn signing(&self, id: &str, now: Timestamp) -> StoreResult<Option<Signing>> {
        self.conn().signing(id, now)
    }

    /// Records a use of the key (see [`Queries::set_key_last_used`]) and keeps any cached
    /// copy in step.
    fn record_key_use(&self, key_hash: &str, key_id: &str, at: Timestamp) -> StoreResult<()>;

    /// Spends one use of the key `id` ([`Queries::spend_key_use`]), which is one atomic
    /// statement (instances sharing the database honour the number exactly): how many are
    /// left, `None` when none was. The default runs it in a write transaction; a backend that
    /// pays a round trip a statement (PostgreSQL) runs it on its own, one round trip where
    /// `BEGIN`, the statement and `COMMIT` were three.
    fn spend_key_use_now(&self, id: &str) -> Result<Option<i64>> {
        let mut left = None;
        self.write_dyn(&mut |c| {
            left = c.spend_key_use(id)?;
            Ok(())
        })?;
        Ok(left)
    }

    /// What this connection's backend remembers of [`Storage::all_keys_checksummed`],
    /// shared by all its connections.
    fn checksum_memory(&self) -> &ChecksumMemory;

    /// Whether every key in the database has a checksum: none issued before keyhook's keys
    /// carried one is left. With `look` false, only what is already known (no query);
    /// with `look` true, the database is asked if that is not known yet.
    fn all_keys_checksummed(&self, look: bool) -> StoreResult<bool> {
        self.checksum_memory()
            .all_keys_checksummed(self.conn(), look)
    }

    /// Gives back what the database's own log still holds of rows changed or deleted, outside
    /// any transaction: always with `always` (old secrets were just deleted), otherwise only
    /// once the log has grown past the backend's bound. The outbox worker calls it every
    /// second, so the log stays bounded under constant reads and writes. SQLite: a checkpoint
    /// of the write-ahead log, which is truncated (`always`) or restarted. The default does
    /// nothing: a database server keeps its own log.
    fn trim_log(&self, always: bool) -> StoreResult<()> {
        let _ = always;
        Ok(())
    }
}

/// One database and the pool of connections to it: the pool lives here, in the backend, not
/// in a front end. The binary picks the backend and the pool's size; the front ends and the
/// delivery worker only ever see this.
pub trait Backend: Send + Sync {
    /// A connection lent from the pool; it goes back to the pool when dropped. When all are
    /// lent, the caller waits for one to come back. The database is created if the backend
    /// was made to create it, and must exist otherwise ([`StoreError::Missing`]).
    fn connect(&self) -> Result<Box<Store>>;
    /// The database, for messages: a path (or, for a server, its address without a password).
    fn describe(&self) -> String;
    /// Closes the pool's idle connections now, one after the other, rather than whenever the
    /// last holder of the backend lets it go: a long-running command (`serve`) calls it when
    /// it stops, so that SQLite's last connection folds the write-ahead log back into the file
    /// and removes it before the process exits. A connection asked for afterwards is opened
    /// again. The default has nothing to close.
    fn close_idle(&self) {}
    /// A consistent copy of the whole database into the file `to` while others write
    /// (`keyhook backup`), mode 0600; an existing `to` is replaced only with `force`. A
    /// backend that cannot (a database server, whose own tools do it) refuses: the default.
    fn backup(&self, to: &std::path::Path, force: bool) -> Result<BackupDone> {
        let _ = (to, force);
        Err(Error::validation(
            "--db",
            format!(
                "keyhook backup copies a SQLite file, and {} is a database server: back it \
                 up with pg_dump (pg_dump --format=custom --file=FILE URL)",
                self.describe()
            ),
        ))
    }
}

/// What [`Backend::backup`] wrote.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BackupDone {
    /// The backup file, as given.
    pub file: String,
    pub bytes: u64,
}

/// A database handle as the services hold it.
pub type Store = dyn Storage;

/// A boxed connection (what [`Backend::connect`] returns) is a connection.
impl<S: Storage + ?Sized> Storage for Box<S> {
    fn conn(&self) -> Conn<'_> {
        (**self).conn()
    }

    fn write_dyn(&self, f: &mut dyn FnMut(Conn<'_>) -> Result<()>) -> Result<()> {
        (**self).write_dyn(f)
    }

    fn read_dyn(&self, f: &mut dyn FnMut(Conn<'_>) -> Result<()>) -> Result<()> {
        (**self).read_dyn(f)
    }

    fn key_by_hash_ahead(
        &self,
        key_hash: &str,
        ahead: ReadAhead,
    ) -> StoreResult<Option<std::sync::Arc<ApiKey>>> {
        (**self).key_by_hash_ahead(key_hash, ahead)
    }

    fn signing(&self, id: &str, now: Timestamp) -> StoreResult<Option<Signing>> {
        (**self).signing(id, now)
    }

    fn record_key_use(&self, key_hash: &str, key_id: &str, at: Timestamp) -> StoreResult<()> {
        (**self).record_key_use(key_hash, key_id, at)
    }

    fn spend_key_use_now(&self, id: &str) -> Result<Option<i64>> {
        (**self).spend_key_use_now(id)
    }

    fn trim_log(&self, always: bool) -> StoreResult<()> {
        (**self).trim_log(always)
    }

    fn checksum_memory(&self) -> &ChecksumMemory {
        (**self).checksum_memory()
    }
}

/// A view of the database for queries: outside a transaction, or inside one.
pub type Conn<'a> = &'a dyn Queries;

impl Store {
    /// Runs `f` in a write transaction (see [`Storage::write_dyn`]) and returns its value.
    pub fn write<T>(&self, f: impl FnOnce(Conn<'_>) -> Result<T>) -> Result<T> {
        once(f, |g| self.write_dyn(g))
    }

    /// Runs `f` in a read-only snapshot (see [`Storage::read_dyn`]) and returns its value.
    pub fn read<T>(&self, f: impl FnOnce(Conn<'_>) -> Result<T>) -> Result<T> {
        once(f, |g| self.read_dyn(g))
    }
}

/// Calls `run` with `f` as the `FnMut` it wants, and returns `f`'s value.
fn once<T>(
    f: impl FnOnce(Conn<'_>) -> Result<T>,
    run: impl FnOnce(&mut dyn FnMut(Conn<'_>) -> Result<()>) -> Result<()>,
) -> Result<T> {
    let mut f = Some(f);
    let mut out = None;
    run(&mut |c| {
        let f = f.take().expect("a transaction calls its closure once");
        out = Some(f(c)?);
        Ok(())
    })?;
    Ok(out.expect("the transaction returned Ok after its closure succeeded"))
}

/// Every query keyhook makes, in twelve areas, one sub-trait each (a file each under
/// `store/`). Implementations keep the
/// rows exactly as given: the rules are the services' business, not the backend's (the few a
/// backend runs in SQL are the core's fragments, [`sql`]).
///
/// The split is real on both sides. A backend implements each area in a file of its own
/// (`keyhook-sqlite/src/keys.rs` is `KeyQueries`, `audit.rs` is `AuditQueries`, ...), and a
/// function that needs one area takes only that one, as `&(impl AuditQueries + ?Sized)`
/// (`service::audit::record`, `service::copy`'s batches, [`ChecksumMemory`]): a [`Conn`]
/// passes as it is, and the signature says what the function may touch. A service that
/// spans areas (one transaction over keys, webhooks and the audit log) takes the whole
/// [`Conn`]. (`&dyn Queries` to `&dyn AuditQueries` would need trait upcasting, newer than
/// the workspace's `rust-version`; the generic `impl` needs nothing.)
pub trait Queries:
    KeyQueries
    + WebhookQueries
    + OutboxQueries
    + CopyQueries
    + ReplayQueries
    + IdempotencyQueries
    + AuditQueries
    + OpsQueries
    + SecretQueries
    + RetentionQueries
    + HistoryQueries
    + EventTypeQueries
    + PortalQueries
{
}

impl<
        T: KeyQueries
            + WebhookQueries
            + OutboxQueries
            + CopyQueries
            + ReplayQueries
            + IdempotencyQueries
            + AuditQueries
            + OpsQueries
            + SecretQueries
            + RetentionQueries
            + HistoryQueries
            + EventTypeQueries
            + PortalQueries,
    > Queries for T
{
}
