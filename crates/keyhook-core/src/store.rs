//! The storage boundary. The services speak to a database only through these two traits;
//! each backend crate (keyhook-sqlite today) implements them, and nothing in the core knows
//! which one it has.
//!
//! - [`Storage`] is one connection to the database: the reads a request makes outside a
//!   transaction ([`Storage::conn`]), write transactions ([`dyn Storage::write`]), and the
//!   key lookups of authentication, which a backend may cache.
//! - [`Queries`] is every query, the same methods in and out of a transaction.
//!
//! Both are object safe: the services take `&Store` (`&dyn Storage`), so the front ends and
//! the services compile once, whatever backend the binary wires in.

use crate::error::{Error, Result};
use crate::model::{ApiKey, AuditEntry, DeliveryAttempt, EventAccepted, EventType, Webhook};
use crate::tables::{Cell, Table};
use crate::time::Timestamp;

pub mod sql;

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

/// What a request reads right after its key is found ([`Storage::key_by_hash_ahead`]): the
/// list of the key's own user that the common reads answer with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadAhead {
    Nothing,
    /// [`KeyQueries::list_keys`] of the key's user.
    KeysOfItsUser,
    /// [`WebhookQueries::list_webhooks`] of the key's user.
    WebhooksOfItsUser,
}

/// A list read with its key by [`Storage::key_by_hash_ahead`], kept by a connection for the
/// very next read of that list (the same user's) and dropped by anything else the
/// connection does first. One place for both backends' rule of when it may answer.
#[derive(Default)]
pub struct AheadMemo(std::cell::RefCell<Option<ReadWithKey>>);

/// A list as the list reads answer it: shared, so that a list a connection keeps (SQLite's
/// per-connection cache) is answered and compared without being copied.
pub type Listed<T> = std::sync::Arc<Vec<T>>;

/// What [`AheadMemo`] holds: the user the list is of, and the list.
pub enum ReadWithKey {
    Keys(String, Listed<ApiKey>),
    Webhooks(String, Listed<Webhook>),
}

impl ReadWithKey {
    /// The list as it is once the use of key `key_id` at `at` is recorded (by this
    /// connection, right after reading it): [`record_use_in`].
    pub fn record_use(&mut self, key_id: &str, at: Timestamp) {
        if let ReadWithKey::Keys(_, list) = self {
            record_use_in(list, key_id, at);
        }
    }
}

/// Whether a use of `key` at `at` moves its `lastUsedAt`: only forward, as
/// [`KeyQueries::set_key_last_used`] writes it (`last_used_moves_sql!`).
pub fn use_moves(key: &ApiKey, at: Timestamp) -> bool {
    key.last_used_at.is_none_or(|t| t < at)
}

/// Records in a list read before it the use of key `key_id` at `at`, as it is recorded in the
/// key's row ([`use_moves`]). A shared list is changed as a copy (see [`Listed`]), and only if
/// it changes.
pub fn record_use_in(list: &mut Listed<ApiKey>, key_id: &str, at: Timestamp) {
    let moves = |k: &ApiKey| k.id == key_id && use_moves(k, at);
    if list.iter().any(moves) {
        for k in Listed::make_mut(list).iter_mut().filter(|k| moves(k)) {
            k.last_used_at = Some(at);
        }
    }
}

impl AheadMemo {
    /// Keeps `read` for the next list read (replacing anything kept).
    pub fn keep(&self, read: Option<ReadWithKey>) {
        *self.0.borrow_mut() = read;
    }

    /// Takes what is kept, leaving nothing.
    pub fn take(&self) -> Option<ReadWithKey> {
        self.0.borrow_mut().take()
    }

    /// Drops what is kept: the connection did something else first.
    pub fn forget(&self) {
        self.take();
    }

    /// The keys of `user`, if they are what was kept; whatever was kept is gone after.
    pub fn keys_of(&self, user: &str) -> Option<Listed<ApiKey>> {
        match self.take() {
            Some(ReadWithKey::Keys(of, list)) if of == user => Some(list),
            _ => None,
        }
    }

    /// The webhooks of `user`, if they are what was kept; whatever was kept is gone after.
    pub fn webhooks_of(&self, user: &str) -> Option<Listed<Webhook>> {
        match self.take() {
            Some(ReadWithKey::Webhooks(of, list)) if of == user => Some(list),
            _ => None,
        }
    }
}

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

    /// The key whose SHA-256 (lowercase hex) is `key_hash`, as last committed by anyone. A
    /// backend may answer from a cache only if it knows the cache is current.
    fn key_by_hash(&self, key_hash: &str) -> StoreResult<Option<ApiKey>>;

    /// [`Storage::key_by_hash`], told what the caller reads next if the key may: a backend
    /// that pays a round trip per statement (PostgreSQL) reads it in the same statement and
    /// answers that read from it, if it is the very next statement on this connection
    /// (anything else in between, a write included, drops it). The key is still read on every
    /// call: revocation stays exact. The default reads the key alone. The key is shared: a
    /// backend that keeps keys hands out its own copy without copying it (a request's key
    /// is only read, but for a use recorded, which copies it then).
    fn key_by_hash_ahead(
        &self,
        key_hash: &str,
        ahead: ReadAhead,
    ) -> StoreResult<Option<std::sync::Arc<ApiKey>>> {
        let _ = ahead;
        Ok(self.key_by_hash(key_hash)?.map(std::sync::Arc::new))
    }

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

    fn key_by_hash(&self, key_hash: &str) -> StoreResult<Option<ApiKey>> {
        (**self).key_by_hash(key_hash)
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

/// Whether a database is known to hold no key without a checksum
/// ([`Storage::all_keys_checksummed`]), remembered by a backend for all its connections.
///
/// Only "yes" is remembered, and it stays true: keyhook never writes a key without a
/// checksum again (new keys, rotations; `db copy` writes only into an empty database), so
/// once a query has seen none left, none can come back, on this instance or any other
/// sharing the database. Each instance learns it on its own, with one query (an index
/// probe), at the first token with a wrong checksum after the last such key is gone; no
/// instance needs to tell another. Until then such tokens are looked up.
#[derive(Debug, Clone, Default)]
pub struct ChecksumMemory(std::sync::Arc<std::sync::atomic::AtomicBool>);

impl ChecksumMemory {
    fn all_keys_checksummed(
        &self,
        conn: &(impl KeyQueries + ?Sized),
        look: bool,
    ) -> StoreResult<bool> {
        use std::sync::atomic::Ordering;
        if self.0.load(Ordering::Acquire) {
            return Ok(true);
        }
        if !look {
            return Ok(false);
        }
        let none_left = !conn.any_key_without_checksum()?;
        if none_left {
            self.0.store(true, Ordering::Release);
        }
        Ok(none_left)
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

/// Every query keyhook makes, in eleven areas, one sub-trait each. Implementations keep the
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
            + EventTypeQueries,
    > Queries for T
{
}

/// Users and API keys.
pub trait KeyQueries {
    /// Adds the user if it is not there yet.
    fn ensure_user(&self, user_id: &str, now: Timestamp) -> StoreResult<()>;
    /// Inserts a key (and its user); `key_hash` is the SHA-256 of the plaintext, which is
    /// never stored.
    fn insert_key(&self, key: &ApiKey, key_hash: &str) -> StoreResult<()>;
    /// The key whose hash is `key_hash`, uncached.
    fn key_by_hash(&self, key_hash: &str) -> StoreResult<Option<ApiKey>>;
    /// Keys of `user` (or of every user) whose id or prefix is `id_or_prefix`, oldest first.
    fn keys_by_id_or_prefix(
        &self,
        user: Option<&str>,
        id_or_prefix: &str,
    ) -> StoreResult<Vec<ApiKey>>;
    /// Keys of `user`, or of every user when `None`, oldest first.
    fn list_keys(&self, user: Option<&str>) -> StoreResult<Vec<ApiKey>>;
    /// [`list_keys`](KeyQueries::list_keys) of one user, shared: a backend that holds the
    /// list already (read with the key) answers with it, not a copy.
    fn listed_keys(&self, user: &str) -> StoreResult<Listed<ApiKey>> {
        self.list_keys(Some(user)).map(Listed::new)
    }
    /// Inside a write transaction: makes its commit as unlikely to fail as the backend
    /// allows, before anything that depends on it (a new key or secret) is shown. A failure
    /// here rolls back with nothing shown.
    fn stage(&self) -> StoreResult<()>;
    /// Keys of `user` whose expiry is before `cutoff`, oldest expiry first.
    fn keys_expired_before(&self, user: &str, cutoff: Timestamp) -> StoreResult<Vec<ApiKey>>;
    /// Returns whether a key was deleted.
    fn delete_key(&self, id: &str) -> StoreResult<bool>;
    fn set_key_expiry(&self, id: &str, expires_at: Timestamp) -> StoreResult<()>;
    /// Records a use of the key, never moving `lastUsedAt` back; gives up quickly rather than
    /// wait long for another writer.
    fn set_key_last_used(&self, id: &str, at: Timestamp) -> StoreResult<()>;
    /// Whether any key was stored without a checksum (issued before keys carried one).
    fn any_key_without_checksum(&self) -> StoreResult<bool>;
    /// Takes one of the remaining uses of the key's budget (shared by its chain of
    /// rotations, [`ApiKey::budget`]) in one statement (a row lock on PostgreSQL), and
    /// returns how many are left; `None` when it had none left (or no such key, or no limit).
    fn spend_key_use(&self, id: &str) -> StoreResult<Option<i64>>;
}

/// Webhooks and their attempt logs.
pub trait WebhookQueries {
    fn count_webhooks(&self, user: &str) -> StoreResult<i64>;
    fn insert_webhook(&self, w: &Webhook) -> StoreResult<()>;
    /// Webhooks of `user`, oldest first.
    fn list_webhooks(&self, user: &str) -> StoreResult<Vec<Webhook>>;
    /// [`list_webhooks`](WebhookQueries::list_webhooks), shared: a backend that holds the
    /// list already (read with the key) answers with it, not a copy.
    fn listed_webhooks(&self, user: &str) -> StoreResult<Listed<Webhook>> {
        self.list_webhooks(user).map(Listed::new)
    }
    fn webhook(&self, user: &str, id: &str) -> StoreResult<Option<Webhook>>;
    /// At most `limit` webhooks of `user` whose id starts with `prefix`.
    fn webhooks_by_id_prefix(
        &self,
        user: &str,
        prefix: &str,
        limit: i64,
    ) -> StoreResult<Vec<Webhook>>;
    fn update_webhook(&self, w: &Webhook) -> StoreResult<()>;
    /// Returns whether a webhook was deleted (its deliveries and attempts go with it).
    fn delete_webhook(&self, id: &str) -> StoreResult<bool>;
    /// The webhook's failure counter, its row locked until the write transaction ends (so
    /// concurrent attempts each count once and the threshold is never skipped), or `None`
    /// when the webhook no longer exists. The service decides what an attempt does to it
    /// (`service::webhooks::count_attempt`) and writes it back with [`Self::set_fail_counter`].
    fn lock_fail_counter(&self, webhook_id: &str) -> StoreResult<Option<FailCounter>>;
    /// Writes `fail_count`, `is_active`, `disabled_reason` and `updated_at` from `c`.
    fn set_fail_counter(&self, webhook_id: &str, c: &FailCounter) -> StoreResult<()>;
    /// Appends attempts to their webhooks' logs, in order (the caller has locked the
    /// webhooks' rows), or skips ([`AttemptRecord::skipped`]: a row of its own in the
    /// deliveries list, never sent, never pending). When one cannot be written the call fails
    /// and the caller's write transaction rolls back: all of them or none.
    fn insert_attempts(&self, rows: &[AttemptRecord<'_>]) -> StoreResult<()>;
    /// Every webhook with a filter, of every user, as `(id, user, filter)`, in id order
    /// (`serve`'s check at start of the filters stored by an older keyhook).
    fn webhook_filters(&self) -> StoreResult<Vec<(String, String, String)>>;
    /// The newest `limit` attempts to deliver to the webhook (and skips), newest first.
    fn attempts(&self, webhook_id: &str, limit: i64) -> StoreResult<Vec<DeliveryAttempt>>;
    /// Writes `at` as the heartbeat of the ephemeral webhook `id`; false when it is gone.
    fn beat_listener(&self, id: &str, at: Timestamp) -> StoreResult<bool>;
    /// The ephemeral webhooks whose last heartbeat is before `cutoff`
    /// (`crate::stale_listener_sql!`), oldest first.
    fn stale_listeners(&self, cutoff: Timestamp) -> StoreResult<Vec<Webhook>>;
}

/// Events and the deliveries queued for them.
pub trait OutboxQueries {
    /// Records an event of `user`, about `profile` (`None`: user-wide).
    fn insert_event(
        &self,
        id: &str,
        user: &str,
        event: &str,
        profile: Option<&str>,
        payload: &[u8],
        now: Timestamp,
    ) -> StoreResult<()>;
    /// Queues one delivery for each `(event id, webhook id)` of `deliveries` (chosen by
    /// `service::routing`: a fan-out's one event to many webhooks, a replay's many events to
    /// one webhook), due at `now`, in one statement, in that order; returns how many.
    fn insert_deliveries(&self, deliveries: &[(&str, &str)], now: Timestamp) -> StoreResult<usize>;
    /// Whether any delivery is due at `now` that a worker for `only` claims
    /// (`crate::claimable_sql!`: `None`, every webhook but the ephemeral ones; `Some(id)`,
    /// that webhook's alone).
    fn any_due(&self, now: Timestamp, only: Option<&str>) -> StoreResult<bool>;
    /// Leases up to `limit` due deliveries until `lease_until`, of the webhooks `only` says
    /// (as in [`OutboxQueries::any_due`]). [`OutboxQueries::claim_due_within`] without a
    /// bound on their payloads.
    fn claim_due(
        &self,
        now: Timestamp,
        limit: usize,
        lease_until: Timestamp,
        only: Option<&str>,
    ) -> StoreResult<Vec<Claimed>> {
        self.claim_due_within(now, limit, usize::MAX, lease_until, only)
    }
    /// Leases, in due order, up to `limit` due deliveries until `lease_until`, of the webhooks
    /// `only` says (as in [`OutboxQueries::any_due`]), each while the payloads of those before
    /// it come to less than `bytes`: the first due one whenever `bytes` is above zero (a claim
    /// never stalls on a large event), and at most one payload past `bytes` in all. A worker
    /// holds what it claims in memory until it settles it.
    fn claim_due_within(
        &self,
        now: Timestamp,
        limit: usize,
        bytes: usize,
        lease_until: Timestamp,
        only: Option<&str>,
    ) -> StoreResult<Vec<Claimed>>;
    /// Ends a delivery in `state` (one of [`DeliveryState::FINISHED`]); `attempted` says
    /// whether an attempt was made. [`OutboxQueries::finish_deliveries`] of one.
    fn finish_delivery(
        &self,
        id: &str,
        state: DeliveryState,
        attempted: bool,
        now: Timestamp,
    ) -> StoreResult<()> {
        self.finish_deliveries(&[id], state, attempted, now)
    }
    /// Ends each delivery of `ids` as [`OutboxQueries::finish_delivery`] does, in one
    /// statement (the worker's delivered ones of a batch).
    fn finish_deliveries(
        &self,
        ids: &[&str],
        state: DeliveryState,
        attempted: bool,
        now: Timestamp,
    ) -> StoreResult<()>;
    fn retry_delivery(&self, id: &str, next_at: Timestamp, now: Timestamp) -> StoreResult<()>;
    /// Moves the lease of each delivery in `ids` that is still pending and leased to
    /// `until`. The worker renews the leases of what it is still sending, so a short lease
    /// covers a long request, and the deliveries of a worker that died are free again soon.
    fn renew_leases(&self, ids: &[&str], until: Timestamp) -> StoreResult<()>;
    /// Deliveries per state.
    fn delivery_counts(&self) -> StoreResult<Vec<(String, i64)>>;
}

/// Whole tables, in batches, for `db copy` ([`crate::tables::TABLES`]).
/// What `serve`'s `/healthz` and `/metrics` ask the database.
pub trait OpsQueries {
    /// One real read of the database (its schema), for `/healthz`: fails when the database
    /// does not answer.
    fn ping(&self) -> StoreResult<()>;
    /// The deliveries still pending (due or waiting for a retry, leased or not) and the
    /// creation time of the oldest of them, for `keyhook_outbox_pending` and
    /// `keyhook_outbox_oldest_pending_age_seconds`.
    fn outbox_backlog(&self) -> StoreResult<(u64, Option<Timestamp>)>;
}

pub trait CopyQueries {
    /// How many rows `table` holds.
    fn count_rows(&self, table: &Table) -> StoreResult<u64>;
    /// At most `limit` rows of `table`, each a cell per column in [`Table::columns`] order,
    /// ordered by [`Table::order_by`], starting after the row whose `order_by` value is
    /// `after` (from the first row when `None`).
    fn read_rows(
        &self,
        table: &Table,
        after: Option<&Cell>,
        limit: usize,
    ) -> StoreResult<Vec<Vec<Cell>>>;
    /// Inserts `rows` (as [`read_rows`](CopyQueries::read_rows) gives them) into `table`,
    /// keeping every value, ids included; a backend whose ids come from a sequence moves the
    /// sequence past them.
    fn write_rows(&self, table: &Table, rows: &[Vec<Cell>]) -> StoreResult<()>;
    /// Deletes every row of `table` (a seeded one, `Table::is_seeded`, before the source's
    /// rows replace it).
    fn clear_rows(&self, table: &Table) -> StoreResult<()>;
}

/// Replay (`webhooks replay`, POST /webhooks/{id}/replay): fresh deliveries of past events.
pub trait ReplayQueries {
    /// The name and profile of `user`'s event `event_id`, or None when `user` has no such
    /// event.
    fn event_of(&self, user: &str, event_id: &str)
        -> StoreResult<Option<(String, Option<String>)>>;
    /// At most `limit` of the events `sel` selects that come after `after` (the
    /// `(created_at, id)` of the last one of the previous page; from the first when `None`),
    /// in `(created_at, id)` order (the order of the index on `(user_id, created_at)`): the
    /// candidates `service::routing::replay` judges, in pages. Without `payloads`, each
    /// [`ReplayCandidate::payload`] is left empty, unread (only a webhook's filter reads it).
    fn replay_candidates(
        &self,
        sel: &ReplaySelection<'_>,
        after: Option<(Timestamp, &str)>,
        limit: usize,
        payloads: bool,
    ) -> StoreResult<Vec<ReplayCandidate>>;
    /// `replay --failed-only`: makes due at `now` the deliveries to the webhook of the
    /// events `sel` selects that failed and wait for their next retry, not leased
    /// (`crate::waiting_retry_sql!`), instead of a second copy being queued beside them;
    /// returns how many.
    fn replay_retry_now(&self, sel: &ReplaySelection<'_>, now: Timestamp) -> StoreResult<usize>;
}

/// An event a replay may queue: what [`ReplayQueries::replay_candidates`] returns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplayCandidate {
    pub id: String,
    pub created_at: Timestamp,
    pub event: String,
    pub profile_id: Option<String>,
    pub payload: Vec<u8>,
}

/// What a replay selects: the user's events named one of `names`, either the one named
/// (`event_id`) or all created at or after `since`; with `failed_only`, only those whose newest
/// delivery to this webhook ended in one of [`DeliveryState::REPLAYED_AS_FAILED`]
/// ([`ReplayQueries::replay_candidates`]), and those whose delivery failed and waits for its
/// next retry ([`ReplayQueries::replay_retry_now`]). Who receives which of them is
/// `service::routing`'s to say: `names` (the webhook's subscription, as routing hands it)
/// only narrows the scan to the events routing can take, on an index.
pub struct ReplaySelection<'a> {
    pub webhook_id: &'a str,
    pub user: &'a str,
    pub since: Timestamp,
    pub event_id: Option<&'a str>,
    pub failed_only: bool,
    pub names: &'a [String],
}

/// Idempotency keys of `POST /events` (`Idempotency-Key`, `events emit --idempotency-key`).
/// A key is held per user and per profile (`first.profile_id`; user-wide events have a
/// space of their own), so the event returned is always of the profile asked for.
pub trait IdempotencyQueries {
    /// Inside a write transaction: takes `(user, first.profile_id, key)` for the event
    /// `first`, unless a record created after `stale_before` holds it, which is returned
    /// instead (and nothing is written). A record created at or before `stale_before` is
    /// replaced. On a backend without a whole-database write lock, a concurrent transaction
    /// taking the same key waits for this one and then sees its record.
    fn claim_idempotency_key(
        &self,
        user: &str,
        key: &str,
        first: &EventAccepted,
        stale_before: Timestamp,
    ) -> StoreResult<Option<EventAccepted>>;
    /// Records how many deliveries the event that took `(user, profile, key)` queued.
    fn set_idempotency_deliveries(
        &self,
        user: &str,
        profile: Option<&str>,
        key: &str,
        deliveries: usize,
    ) -> StoreResult<()>;
    /// Deletes at most `limit` records created before `before`; returns how many. For the
    /// retention machinery, in small batches.
    fn prune_idempotency(&self, before: Timestamp, limit: usize) -> StoreResult<u64>;

    /// Inside a write transaction: takes `(claim.user, claim.route, claim.target, claim.key)`
    /// for the request `claim` (with no response yet), unless a record holds it that was
    /// created after `stale_before`, or that has no response and was created after
    /// `abandoned_before`: that record is returned instead (and nothing is written). Any
    /// other record is replaced. As [`claim_idempotency_key`](Self::claim_idempotency_key),
    /// a concurrent transaction taking the same key waits for this one, then sees its record.
    fn claim_request(
        &self,
        claim: &RequestClaim<'_>,
        stale_before: Timestamp,
        abandoned_before: Timestamp,
    ) -> StoreResult<Option<HeldRequest>>;
    /// Stores the response of the request that took the key as `claim_id`
    /// ([`RequestClaim::id`]); nothing when another request has taken the key since.
    fn answer_request(&self, claim_id: &str, response: &str) -> StoreResult<()>;
    /// Frees the key taken as `claim_id` (its request failed: a repeat acts again).
    fn release_request(&self, claim_id: &str) -> StoreResult<()>;
    /// Deletes at most `limit` request records created before `before`; returns how many.
    fn prune_requests(&self, before: Timestamp, limit: usize) -> StoreResult<u64>;
}

/// A request taking an `Idempotency-Key` (`service::idempotency`): the key is held per user,
/// route and target (a webhook id, or '' for a collection).
#[derive(Debug, Clone, Copy)]
pub struct RequestClaim<'a> {
    /// A new id for this take of the key, which the answer and the release name.
    pub id: &'a str,
    pub user: &'a str,
    pub route: &'a str,
    pub target: &'a str,
    pub key: &'a str,
    /// The SHA-256 (hex) of the request's canonical body.
    pub fingerprint: &'a str,
    pub at: Timestamp,
}

/// The record holding a key: the fingerprint of its request and its response (`None` while
/// the request is in progress).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeldRequest {
    pub fingerprint: String,
    pub response: Option<String>,
    pub created_at: Timestamp,
}

/// The audit log (`service::audit`).
pub trait AuditQueries {
    /// Appends `e` (its `id` is ignored: the store numbers entries in the order appended).
    fn insert_audit(&self, e: &AuditEntry) -> StoreResult<()>;
    /// At most `limit` entries of `user` (of every user when `None`) at or after `since`,
    /// newest first (by `at`, then `id`), and older than `before` (`(at, id)` of the last
    /// entry of a previous page) when given.
    fn list_audit(
        &self,
        user: Option<&str>,
        since: Option<Timestamp>,
        before: Option<(Timestamp, i64)>,
        limit: i64,
    ) -> StoreResult<Vec<AuditEntry>>;
    /// Deletes at most `limit` of the oldest entries from before `before`; returns how many.
    /// Retention calls it in batches until it returns less than `limit`, so no transaction
    /// holds the write lock long.
    fn prune_audit(&self, before: Timestamp, limit: usize) -> StoreResult<u64>;
}

/// Secret rotation with a grace period, why a webhook was disabled, and what a delivery is
/// signed with right before it is sent.
pub trait SecretQueries {
    /// Replaces the webhook's secret with `secret`. `previous` is the secret replaced and
    /// when it stops being used (its grace period); `None` drops any previous secret at once.
    /// Only the newest previous secret is kept (a second rotation during a grace replaces it).
    fn set_secret(
        &self,
        id: &str,
        secret: &str,
        previous: Option<(&str, Timestamp)>,
        now: Timestamp,
    ) -> StoreResult<()>;
    /// What a message to the webhook is signed with at `now`, read right before it is sent:
    /// `None` for a webhook that no longer exists.
    fn signing(&self, id: &str, now: Timestamp) -> StoreResult<Option<Signing>>;
    /// Whether a previous secret's grace period has ended by `now` (a read, through the
    /// partial index on the expiry: the worker asks every second).
    fn any_expired_secret(&self, now: Timestamp) -> StoreResult<bool>;
    /// Deletes every previous secret whose grace period has ended by `now`; returns how many.
    fn drop_expired_secrets(&self, now: Timestamp) -> StoreResult<usize>;
    /// Why the webhook was disabled automatically ([`GONE_REASON`], [`failures_reason`]), if
    /// it was and has not been enabled since.
    fn disabled_reason(&self, id: &str) -> StoreResult<Option<String>>;
    /// Replaces the webhook's Ed25519 key pair (`whsk_` private, given in plaintext and
    /// stored sealed, and `whpk_` public), keeping `previous` as [`SecretQueries::set_secret`]
    /// keeps the previous secret (one grace end for both: `previous_secret_expires_at`).
    fn set_signing_key(
        &self,
        id: &str,
        private: &str,
        public: &str,
        previous: Option<(&str, Timestamp)>,
        now: Timestamp,
    ) -> StoreResult<()>;
    /// Every non-null secret cell of every webhook ([`crate::secrets::SECRET_COLUMNS`]), as
    /// stored (sealed or not), for re-sealing ([`crate::secrets::reseal_all`]).
    fn secret_cells(&self) -> StoreResult<Vec<crate::secrets::SecretCell>>;
    /// Writes one cell as given (already sealed).
    fn set_secret_cell(&self, row: &str, column: &str, value: &str) -> StoreResult<()>;
    /// The fingerprint of the key the database's secrets are sealed with; `None` before the
    /// first key.
    fn secrets_fingerprint(&self) -> StoreResult<Option<String>>;
    fn set_secrets_fingerprint(&self, fingerprint: &str) -> StoreResult<()>;
}

/// A webhook's state as a delivery needs it right before the request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signing {
    pub is_active: bool,
    /// The webhook's scope now: a delivery it no longer covers is not sent.
    pub full_access: bool,
    pub profile_ids: Vec<String>,
    pub url: String,
    /// What the message is signed with, in the header's order: the HMAC secrets (the
    /// current, then the previous one while its grace period lasts) when the webhook signs
    /// `v1`, then the Ed25519 private keys likewise when it signs `v1a`
    /// ([`crate::sign::sign_all`] picks the scheme by prefix).
    pub secrets: Vec<String>,
    /// Static headers to send (name, value).
    pub headers: Vec<(String, String)>,
    /// The end of that grace period when `secrets` holds the previous secret: the time from
    /// which the same row answers with the current secret alone. `None` otherwise.
    pub grace_ends_at: Option<Timestamp>,
}

impl Signing {
    /// Whether this answer, read at `read_at`, is still the row's answer at `now` when
    /// nothing was committed since: time has not gone back, nor past the grace period's end
    /// (an answer without the previous secret stays so as time goes on).
    pub fn holds_at(&self, read_at: Timestamp, now: Timestamp) -> bool {
        now >= read_at && self.grace_ends_at.is_none_or(|end| now < end)
    }
}

/// The reason stored when a receiver answered 410 Gone (`record_attempt`).
pub const GONE_REASON: &str = "receiver answered 410 Gone";

/// The reason stored when the `n`th consecutive failure disabled a webhook.
pub fn failures_reason(n: i64) -> String {
    format!("{n} consecutive failed attempts")
}

/// Retention: each prunable table's batch step, one per table, so that the pruning service
/// (`service::retention::STEPS`) lists them and a new prunable table is one more method and
/// one more line there. Each step deletes at most `limit` rows older than `cutoff` (strictly
/// before it) and returns how many it deleted; the caller runs each batch in its own short
/// write transaction and repeats until a batch deletes fewer than `limit`.
pub trait RetentionQueries {
    /// Attempts whose `attempted_at` is before `cutoff` (test pings included).
    fn prune_attempts(&self, cutoff: Timestamp, limit: usize) -> StoreResult<u64>;
    /// Finished deliveries (`delivered`, `failed`, `cancelled`) whose `updated_at` (when they
    /// finished) is before `cutoff`; a pending delivery never, however old.
    fn prune_deliveries(&self, cutoff: Timestamp, limit: usize) -> StoreResult<u64>;
    /// Events whose `created_at` is before `cutoff` and that no delivery refers to any more
    /// (so never one with a pending delivery, nor one whose delivery is still kept).
    fn prune_events(&self, cutoff: Timestamp, limit: usize) -> StoreResult<u64>;
}

/// One attempt as the history line draws it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttemptMark {
    pub webhook_id: String,
    pub delivered: bool,
    pub duration_ms: i64,
}

/// The recent attempts of many webhooks at once (`webhooks list`'s history line).
pub trait HistoryQueries {
    /// The newest `per_webhook` attempts of each webhook of `user` (only of `webhook_id`
    /// when given), in one query: grouped by webhook, oldest first within each. Skips
    /// ([`AttemptRecord::skip`]) are no attempts and are left out.
    fn recent_attempts(
        &self,
        user: &str,
        webhook_id: Option<&str>,
        per_webhook: i64,
    ) -> StoreResult<Vec<AttemptMark>>;
}

/// The operator's event catalog (`service::event_types`). `schema` and `example` are stored
/// as JSON text, written as given and read back as JSON.
pub trait EventTypeQueries {
    /// Every event type, by name.
    fn list_event_types(&self) -> StoreResult<Vec<EventType>>;
    fn event_type(&self, name: &str) -> StoreResult<Option<EventType>>;
    fn insert_event_type(&self, t: &EventType) -> StoreResult<()>;
    /// Writes every field of `t` but its name and `created_at` over the row named `t.name`.
    fn update_event_type(&self, t: &EventType) -> StoreResult<()>;
    /// Returns whether a row was deleted.
    fn delete_event_type(&self, name: &str) -> StoreResult<bool>;
    /// How many webhooks (of every user) subscribe to `name`, and how many deliveries of
    /// events named `name` are pending: what keeps an event type from being deleted.
    fn event_type_uses(&self, name: &str) -> StoreResult<(i64, i64)>;
}

/// The state of a delivery, stored as [`DeliveryState::as_str`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DeliveryState {
    /// Queued: due at its `next_attempt_at`, or waiting for a retry.
    Pending,
    Delivered,
    /// No attempts left, or the receiver answered 410 Gone.
    Failed,
    /// Its webhook was disabled (or deleted) before it was sent.
    Cancelled,
}

impl DeliveryState {
    pub const ALL: [DeliveryState; 4] = [
        DeliveryState::Pending,
        DeliveryState::Delivered,
        DeliveryState::Failed,
        DeliveryState::Cancelled,
    ];
    /// The states a delivery ends in: retention may delete a delivery in one of these.
    pub const FINISHED: [DeliveryState; 3] = [
        DeliveryState::Delivered,
        DeliveryState::Failed,
        DeliveryState::Cancelled,
    ];
    /// The states `replay --failed-only` replays (with a pending delivery that has failed
    /// at least once, [`ReplaySelection`]).
    pub const REPLAYED_AS_FAILED: [DeliveryState; 2] =
        [DeliveryState::Failed, DeliveryState::Cancelled];

    /// The stored name, as the `deliveries.state` column holds it.
    pub fn as_str(self) -> &'static str {
        match self {
            DeliveryState::Pending => "pending",
            DeliveryState::Delivered => "delivered",
            DeliveryState::Failed => "failed",
            DeliveryState::Cancelled => "cancelled",
        }
    }

    /// `states` as an SQL literal list, `('failed', 'cancelled')`: how both backends render
    /// the core's sets of states into their statements. The names are this enum's own
    /// constants, never input.
    pub fn sql_list(states: &[DeliveryState]) -> String {
        let names: Vec<String> = states.iter().map(|s| format!("'{}'", s.as_str())).collect();
        format!("({})", names.join(", "))
    }
}

/// A webhook's failure counter as the store saw it under the row's lock
/// ([`WebhookQueries::lock_fail_counter`]), and as the service writes it back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FailCounter {
    pub user_id: String,
    pub is_active: bool,
    pub fail_count: i64,
    /// Set when the webhook was disabled automatically ([`GONE_REASON`],
    /// [`failures_reason`]); cleared by an enable.
    pub disabled_reason: Option<String>,
    pub updated_at: Timestamp,
}

/// What one attempt did, to be logged and counted.
#[derive(Debug, Clone)]
pub struct AttemptRecord<'a> {
    pub webhook_id: &'a str,
    pub delivery_id: Option<&'a str>,
    pub event_id: &'a str,
    pub event: &'a str,
    pub attempt: i64,
    pub attempted_at: Timestamp,
    pub delivered: bool,
    pub status_code: u16,
    pub status_text: &'a str,
    pub duration_ms: i64,
    pub response_excerpt: &'a str,
    /// Set for a skip: the event was not sent because the webhook's filter could not judge
    /// it (the kind of error, no value of the data; `service::routing`).
    pub skipped: Option<&'a str>,
}

/// Whether an attempt's answer was 410 Gone (and so not delivered): the receiver says the
/// endpoint is gone for good. The webhook is disabled at once and the delivery not retried.
pub fn gone(delivered: bool, status_code: u16) -> bool {
    !delivered && status_code == 410
}

impl<'a> AttemptRecord<'a> {
    /// The row that records in the webhook's deliveries list that the event `event_id`
    /// (named `event`) was skipped for it at `at`, because its filter could not judge it
    /// (`kind`: the kind of error, no value of the data): never sent, never pending.
    pub fn skip(
        webhook_id: &'a str,
        event_id: &'a str,
        event: &'a str,
        kind: &'a str,
        at: Timestamp,
    ) -> AttemptRecord<'a> {
        AttemptRecord {
            webhook_id,
            delivery_id: None,
            event_id,
            event,
            attempt: 0,
            attempted_at: at,
            delivered: false,
            status_code: 0,
            status_text: "skipped",
            duration_ms: 0,
            response_excerpt: "",
            skipped: Some(kind),
        }
    }

    /// Whether the receiver answered 410 Gone, which disables the webhook at once whatever
    /// its `failCount` ([`GONE_REASON`]). The one place the rule is stated: the backends bind
    /// it into their statements, and the audit entry of the disable reads it.
    pub fn gone(&self) -> bool {
        gone(self.delivered, self.status_code)
    }

    /// The `disabled_reason` recorded if this failed attempt disables the webhook: 410 Gone,
    /// else it is the `disable_after`th failure in a row.
    pub fn disable_reason(&self, disable_after: i64) -> String {
        if self.gone() {
            GONE_REASON.into()
        } else {
            failures_reason(disable_after)
        }
    }
}

/// A delivery taken by a worker, with what it needs to send it; where to and with which
/// secrets is read right before the request ([`SecretQueries::signing`]).
#[derive(Debug, Clone)]
pub struct Claimed {
    pub delivery_id: String,
    pub event_id: String,
    pub event: String,
    /// The event's profile (`None`: user-wide).
    pub profile_id: Option<String>,
    pub payload: Vec<u8>,
    /// Attempts made before this one.
    pub attempts: i64,
    pub webhook_id: String,
    pub webhook_active: bool,
    /// An earlier claim's lease had run out unsettled: the worker that held it stopped (or
    /// could not look at the webhook) before settling it, and this claim recovers it.
    pub recovered: bool,
}
