//! keyhook's PostgreSQL backend: several keyhook instances (`serve`, `deliver`, the CLI), on
//! any number of machines, sharing one database. It implements the core's storage boundary
//! ([`Storage`] and [`Queries`]) over pooled connections, with the same rows and the same
//! semantics as `keyhook-sqlite`.
//!
//! SQLite makes several rules hold by taking a lock on the whole file for every write
//! transaction. Here each such rule holds by a lock of its own:
//!
//! - **10-webhook limit.** [`WebhookQueries::count_webhooks`] first takes a transaction-scoped
//!   advisory lock on the user (`pg_advisory_xact_lock`), then counts, in a new snapshot; the
//!   insert follows in the same transaction. Creates for one user queue on the lock, so the
//!   count of each sees the insert of the one before: N instances racing never make 11.
//! - **Reads before a write.** In a write transaction, the reads that pick what to change
//!   (a webhook, a key, by id or prefix) lock their rows (`FOR UPDATE`): a PATCH that reads
//!   a webhook and writes it back cannot undo a `failCount` counted meanwhile.
//! - **Outbox claim.** [`OutboxQueries::claim_due_within`] selects due deliveries `FOR UPDATE
//!   SKIP LOCKED` and leases them in the same statement, up to its payload budget (a running
//!   sum over the locked rows); the worker commits the claim before it sends. Two workers
//!   never hold one delivery.
//! - **failCount and auto-disable.** [`WebhookQueries::lock_fail_counter`] reads the counter
//!   `FOR NO KEY UPDATE` (the row lock serialises attempts on one webhook); the core decides
//!   and [`WebhookQueries::set_fail_counter`] writes it back in the same transaction: the
//!   count is exact and the threshold is never skipped.
//! - **Revocation.** [`Storage::key_by_hash_ahead`] reads the row on every call; there is no cache.
//!   A key deleted on any instance is refused by every instance on the next request. An
//!   authenticated list reads the key and the list in one statement
//!   ([`Storage::key_by_hash_ahead`]): still the key's row on every call. Outside a
//!   transaction these statements go over the pipeline (`pipeline.rs`): each is still sent
//!   after its request arrived, and sees every commit made before it runs.
//! - **lastUsedAt.** [`KeyQueries::set_key_last_used`] never moves it back, and outside a
//!   transaction never waits for the key's row: one statement locks it `SKIP LOCKED`, so of
//!   the requests that find a key's use a second old at once, one records it and the others
//!   go on at once (no queue on the row, no error in the server's log).
//! - **Idempotency keys.** [`IdempotencyQueries::claim_idempotency_key`] is one `INSERT … ON
//!   CONFLICT (user_id, key) DO UPDATE … WHERE` (stale only): a concurrent transaction with
//!   the same key waits on the primary key, then reads the winner's record, so of racing
//!   repeats exactly one queues.
//!
//! Connections: [`PgBackend::connect`] lends one from an r2d2 pool (`pool.rs`); dropping
//! the store gives it back. A backend of more than one connection (a server's) also sends
//! its stores' key reads outside transactions over two shared connections, pipelined
//! (`pipeline.rs`; `application_name` `keyhook-pipeline`), and falls back to the store's
//! own connection while they are down. Migrations run once per backend, at its first
//! connect, under an advisory lock (`migrations.rs`).

/// A new delivery's id, as an SQL expression of the statement's parameter `$at` (its
/// creation time in milliseconds): `dlv_`, 12 hex digits of that time (so ids sort by
/// creation, and retention deletes at one end of their index), then 12 from the server's
/// strong random source (`gen_random_uuid`, hashed): the ids `keyhook-sqlite` makes.
macro_rules! new_delivery_id {
    ($at:literal) => {
        concat!(
            "'dlv_' || lpad(to_hex(",
            $at,
            "::bigint), 12, '0') || left(encode(sha256(uuid_send(gen_random_uuid())), 'hex'), 12)"
        )
    };
}

/// PostgreSQL's side of the core's rule fragments (`keyhook_core::store::sql`): booleans
/// are booleans, a list is a JSON text read as `jsonb`, and a delivery's id orders it among
/// those of the same millisecond. No rule is written here: only how this dialect spells the
/// core's.
macro_rules! dialect {
    (flag $($c:literal)+) => {
        concat!($($c,)+)
    };
    (insertion_order $t:literal) => {
        concat!($t, ".id")
    };
    (queue_order $t:literal) => {
        concat!($t, "seq")
    };
}

/// The columns of a key that `keys::from_row` reads, in its order.
macro_rules! key_columns {
    () => {
        "id, user_id, key_prefix, name, permission, full_access, profile_ids, \
         last_used_at, expires_at, created_at, rate_limit, \
         (SELECT remaining_uses FROM key_budgets WHERE key_budgets.id = api_keys.budget_id) \
         AS remaining_uses, budget_id"
    };
}

mod audit;
mod copy_queries;
mod error;
mod event_types;
mod idempotency;
mod keys;
mod migrations;
mod outbox;
mod pipeline;
mod pool;
mod portal;
mod probe_queries;
mod replay;
mod retention;
mod secrets;
mod tls;
pub mod url;
mod webhooks;

use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use keyhook_core::model::{ApiKey, Webhook};
use keyhook_core::store::{
    AheadMemo, Backend, ChecksumMemory, Conn as View, KeyQueries, Listed, ReadAhead, ReadWithKey,
    Storage, Store, StoreError, StoreResult,
};
use keyhook_core::time::Timestamp;
use r2d2_postgres::PostgresConnectionManager;
use tls::Connector;

use error::Fail;
pub use migrations::SCHEMA_VERSION;
use pipeline::Pipeline;
use pool::{LastError, Pool, Pooled, Session, CHECKOUT_TIMEOUT};
use url::Target;

/// The statements the pipeline carries: the key by its hash, alone or with its user's list.
const PIPELINED: &[pipeline::Sql] = &[
    keys::BY_HASH,
    keys::BY_HASH_WITH_ITS_USERS_KEYS,
    webhooks::BY_KEY_HASH_WITH_ITS_USERS_WEBHOOKS,
];

/// The pipeline's connections. One: every read waiting goes in its next batch, and the
/// bigger the batch the less PostgreSQL spends a read (the statement of `GET /api-keys`, 32
/// connections, two cores, same run: with two lanes, 26-32 us of PostgreSQL's CPU a request
/// and 13,600-16,000 requests a second; with one, 20 us and 16,700-17,800). One backend runs
/// some 50,000 reads a second at that cost, far above what one instance asks.
const PIPELINE_LANES: usize = 1;

/// A PostgreSQL database as a [`Backend`]: a URL, and a pool of connections to it.
pub struct PgBackend {
    target: Target,
    tls: Connector,
    pool: Pool,
    errors: LastError,
    create: bool,
    /// Whether the schema is known to be current (checked, or migrated, at the first
    /// successful connect).
    migrated: AtomicBool,
    /// Whether no key without a checksum is left, once known: for all its connections.
    checksums: ChecksumMemory,
    /// The uses of keys its connections record (`lastUsedAt`), for all of them.
    uses: keys::UseClaims,
    /// The authenticated reads outside transactions, pipelined over shared connections (a
    /// server's backend only).
    pipeline: Option<Arc<Pipeline>>,
}

impl std::fmt::Debug for PgBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgBackend")
            .field("url", &self.target.describe())
            .field("create", &self.create)
            .finish_non_exhaustive()
    }
}

impl PgBackend {
    /// A backend for the database at `url` (`postgres://` or `postgresql://`), lending at
    /// most `pool_size` connections at once. Nothing is connected yet: a malformed URL is
    /// refused here (`Error::Validation` on `--db`, without the password), an unreachable
    /// server at the first [`connect`](Backend::connect). With `create`, the first connect
    /// creates keyhook's tables in an empty database; without, a database without them is
    /// `StoreError::Missing`, the analog of a missing SQLite file.
    pub fn new(url: &str, pool_size: u32, create: bool) -> Result<PgBackend, keyhook_core::Error> {
        let target: Target = url.parse()?;
        let tls = tls::connector(&target.tls)?;
        let errors = LastError::default();
        let manager = pool::Manager::new(
            PostgresConnectionManager::new(target.blocking_config(), tls.clone()),
            startup_deadline(&target),
        );
        let pool = pool::build(manager, pool_size, errors.clone());
        // A pool of one serves a command that runs and exits: nothing to share.
        let pipeline = (pool_size > 1).then(|| {
            Arc::new(Pipeline::new(
                PIPELINE_LANES,
                PIPELINED,
                target.config.clone(),
                tls.clone(),
                startup_deadline(&target),
            ))
        });
        Ok(PgBackend {
            target,
            tls,
            pool,
            errors,
            create,
            migrated: AtomicBool::new(false),
            checksums: ChecksumMemory::default(),
            uses: keys::UseClaims::default(),
            pipeline,
        })
    }

    fn startup_deadline(&self) -> std::time::Duration {
        startup_deadline(&self.target)
    }

    /// How many reads the pipeline has answered (none without one: a pool of one).
    pub fn pipelined(&self) -> u64 {
        self.pipeline.as_ref().map_or(0, |p| p.answered())
    }

    /// How many statements the pipeline has run: each a batch of the reads it answered.
    pub fn pipeline_batches(&self) -> u64 {
        self.pipeline.as_ref().map_or(0, |p| p.batches())
    }

    /// Adds the database to a connection-level message, which otherwise names no server.
    fn located(&self, e: StoreError) -> StoreError {
        let at = self.target.describe();
        match e {
            StoreError::Unavailable(m) => StoreError::Unavailable(format!("{at}: {m}")),
            StoreError::Broken(m) => StoreError::Broken(format!("{at}: {m}")),
            StoreError::Missing(m) => StoreError::Missing(format!("{at}: {m}")),
            StoreError::Io(m) => StoreError::Io(format!("{at}: {m}")),
        }
    }

    /// The first connection: made directly, not through the pool, so that a failure is
    /// reported at once and as what it is (r2d2 retries until its timeout and keeps only the
    /// text of an error). It checks or migrates the schema, and then serves as the store.
    fn first_connect(&self) -> StoreResult<PgStore> {
        let (config, tls) = (self.target.blocking_config(), self.tls.clone());
        let client = pool::connect_within(self.startup_deadline(), move || config.connect(tls))
            .map_err(|e| self.located(e.sorted()))?;
        let mut session = Session::new(client);
        migrations::migrate(&mut session.client, self.create, self.target.describe()).map_err(
            |e| match e {
                // It names the database already, as SQLite's names its file.
                StoreError::Missing(_) => e,
                e => self.located(e),
            },
        )?;
        Ok(PgStore::new(
            Handle::Direct(Box::new(session)),
            self.checksums.clone(),
            self.uses.clone(),
            self.pipeline.clone(),
        ))
    }
}

impl Backend for PgBackend {
    fn connect(&self) -> keyhook_core::Result<Box<Store>> {
        // Until one connect has checked the schema, each makes its own first connection,
        // at the same time if they come together (the migration lock orders them): none
        // waits for another's timeout while the server is down.
        if !self.migrated.load(Ordering::Acquire) {
            let store = self.first_connect()?;
            self.migrated.store(true, Ordering::Release);
            return Ok(Box::new(store));
        }
        match self.pool.get() {
            Ok(c) => Ok(Box::new(PgStore::new(
                Handle::Pooled(Box::new(c)),
                self.checksums.clone(),
                self.uses.clone(),
                self.pipeline.clone(),
            ))),
            Err(_) => {
                // Why the pool could not make a connection, if it tried just now; else every
                // connection was in use for the whole wait.
                let why = self.errors.recent(CHECKOUT_TIMEOUT * 2).unwrap_or_else(|| {
                    StoreError::Unavailable(format!(
                        "database is busy; try again (no connection free within {} s)",
                        CHECKOUT_TIMEOUT.as_secs()
                    ))
                });
                Err(self.located(why).into())
            }
        }
    }

    fn describe(&self) -> String {
        self.target.describe().to_string()
    }
}

/// How long making a connection may take, from TCP to the end of the login: twice the
/// URL's `connect_timeout` (which bounds the TCP connection alone; 3 s by default).
fn startup_deadline(target: &Target) -> std::time::Duration {
    let tcp = target
        .config
        .get_connect_timeout()
        .copied()
        .unwrap_or(url::CONNECT_TIMEOUT);
    tcp * 2
}

/// Where a store's connection comes from.
enum Handle {
    Pooled(Box<Pooled>),
    /// The backend's first connection, which checked the schema.
    Direct(Box<Session>),
}

impl std::ops::Deref for Handle {
    type Target = Session;
    fn deref(&self) -> &Session {
        match self {
            Handle::Pooled(c) => c,
            Handle::Direct(s) => s,
        }
    }
}

impl std::ops::DerefMut for Handle {
    fn deref_mut(&mut self) -> &mut Session {
        match self {
            Handle::Pooled(c) => c,
            Handle::Direct(s) => s,
        }
    }
}

/// What transaction the connection is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tx {
    None,
    Write,
    Read,
}

/// One connection, used by one thread at a time (the services' `&Store`).
pub struct PgStore {
    session: RefCell<Handle>,
    tx: Cell<Tx>,
    /// The first error inside the open transaction. PostgreSQL refuses every later statement
    /// of a transaction in which one failed, and turns its COMMIT into a rollback; this makes
    /// that rollback an error even if the caller went on after the failure.
    failed: RefCell<Option<StoreError>>,
    checksums: ChecksumMemory,
    uses: keys::UseClaims,
    /// The list read with the key by [`Storage::key_by_hash_ahead`], for the very next
    /// statement on this connection if it is that list's read; any other statement drops it.
    ahead: AheadMemo,
    pipeline: Option<Arc<Pipeline>>,
}

impl PgStore {
    fn new(
        handle: Handle,
        checksums: ChecksumMemory,
        uses: keys::UseClaims,
        pipeline: Option<Arc<Pipeline>>,
    ) -> PgStore {
        PgStore {
            session: RefCell::new(handle),
            tx: Cell::new(Tx::None),
            failed: RefCell::new(None),
            checksums,
            uses,
            ahead: AheadMemo::default(),
            pipeline,
        }
    }

    /// The rows of `sql` (one of [`PIPELINED`]) with `key_hash`: over the pipeline outside
    /// a transaction while it is up, on this store's connection otherwise.
    pub(crate) fn by_key_hash(
        &self,
        sql: pipeline::Sql,
        key_hash: &str,
    ) -> StoreResult<Vec<postgres::Row>> {
        if !self.in_transaction() {
            if let Some(rows) = self.pipeline.as_ref().and_then(|p| p.query(sql, key_hash)) {
                self.ahead.forget();
                return Ok(rows);
            }
        }
        self.run(|s| Ok(s.query(sql, &[&key_hash])?))
    }

    /// Runs a query body on the connection and sorts its failure.
    fn run<T>(&self, f: impl FnOnce(&mut Session) -> Result<T, Fail>) -> StoreResult<T> {
        self.ahead.forget();
        let mut session = self.session.borrow_mut();
        f(&mut session).map_err(|e| {
            let sorted = e.sorted();
            if self.tx.get() != Tx::None {
                self.failed
                    .borrow_mut()
                    .get_or_insert_with(|| sorted.clone());
            }
            sorted
        })
    }

    /// The keys of `user` read with the key just before, if nothing ran since.
    fn keys_read_ahead(&self, user: &str) -> Option<Listed<ApiKey>> {
        let list = self.ahead.keys_of(user)?;
        (!self.in_transaction()).then_some(list)
    }

    /// The webhooks of `user` read with the key just before, if nothing ran since.
    fn webhooks_read_ahead(&self, user: &str) -> Option<Listed<Webhook>> {
        let list = self.ahead.webhooks_of(user)?;
        (!self.in_transaction()).then_some(list)
    }

    /// Whether reads should lock the rows they return: inside a write transaction.
    fn locking(&self) -> bool {
        self.tx.get() == Tx::Write
    }

    fn in_transaction(&self) -> bool {
        self.tx.get() != Tx::None
    }

    fn begin(&self, sql: &str, tx: Tx) -> StoreResult<()> {
        self.failed.borrow_mut().take();
        self.run(|s| Ok(s.client.batch_execute(sql)?))?;
        self.tx.set(tx);
        Ok(())
    }

    /// Ends the open transaction with `sql` (COMMIT or ROLLBACK).
    fn end(&self, sql: &str) -> StoreResult<()> {
        self.tx.set(Tx::None);
        self.failed.borrow_mut().take();
        self.run(|s| Ok(s.client.batch_execute(sql)?))
    }

    /// Runs `f` in the transaction begun by `begin`, and commits it (or, with `commit`
    /// false, rolls it back) if `f` succeeded; rolls back otherwise.
    fn transaction(
        &self,
        begin: &str,
        tx: Tx,
        commit: bool,
        f: &mut dyn FnMut(View<'_>) -> keyhook_core::Result<()>,
    ) -> keyhook_core::Result<()> {
        self.begin(begin, tx)?;
        let open = Open(self);
        let out = f(self);
        let failed = self.failed.borrow_mut().take();
        std::mem::forget(open);
        match (out, failed) {
            (Ok(()), None) => {
                self.end(if commit { "COMMIT" } else { "ROLLBACK" })?;
                Ok(())
            }
            (Ok(()), Some(e)) => {
                let _ = self.end("ROLLBACK");
                Err(e.into())
            }
            (Err(e), _) => {
                // A connection lost meanwhile fails this too; the error that matters is `e`.
                let _ = self.end("ROLLBACK");
                Err(e)
            }
        }
    }
}

/// A transaction left by a panic in its closure is rolled back before the connection goes
/// back to the pool.
struct Open<'a>(&'a PgStore);

impl Drop for Open<'_> {
    fn drop(&mut self) {
        self.0.tx.set(Tx::None);
        if let Ok(mut s) = self.0.session.try_borrow_mut() {
            let _ = s.client.batch_execute("ROLLBACK");
        }
    }
}

impl Storage for PgStore {
    fn conn(&self) -> View<'_> {
        self
    }

    /// `BEGIN` (READ COMMITTED) … `COMMIT`, or `ROLLBACK` on error. There is no lock on the
    /// whole database as in SQLite: each rule that needs one takes its own (see the crate's
    /// documentation), and reads in the transaction lock the rows they return.
    fn write_dyn(
        &self,
        f: &mut dyn FnMut(View<'_>) -> keyhook_core::Result<()>,
    ) -> keyhook_core::Result<()> {
        self.transaction("BEGIN", Tx::Write, true, f)
    }

    /// One snapshot for the whole closure, and no writes: `REPEATABLE READ READ ONLY`.
    fn read_dyn(
        &self,
        f: &mut dyn FnMut(View<'_>) -> keyhook_core::Result<()>,
    ) -> keyhook_core::Result<()> {
        self.transaction(
            "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
            Tx::Read,
            false,
            f,
        )
    }

    /// Read from the database on every call: no cache can serve a key revoked elsewhere.
    /// With a list ahead, one statement reads the key and that list of its user (the key's
    /// row read as on every call), and keeps the list for the next statement if it is that
    /// read, outside a transaction: two round trips become one.
    fn key_by_hash_ahead(
        &self,
        key_hash: &str,
        ahead: ReadAhead,
    ) -> StoreResult<Option<Arc<ApiKey>>> {
        let sql = match ahead {
            ReadAhead::Nothing => return Ok(KeyQueries::key_by_hash(self, key_hash)?.map(Arc::new)),
            ReadAhead::KeysOfItsUser => keys::BY_HASH_WITH_ITS_USERS_KEYS,
            ReadAhead::WebhooksOfItsUser => webhooks::BY_KEY_HASH_WITH_ITS_USERS_WEBHOOKS,
        };
        let rows = self.by_key_hash(sql, key_hash)?;
        let (key, read) = (|| -> Result<_, Fail> {
            Ok(match ahead {
                ReadAhead::WebhooksOfItsUser => {
                    let Some(first) = rows.first() else {
                        return Ok((None, None));
                    };
                    let key = keys::from_row_at(first, webhooks::COLUMN_COUNT)?;
                    let mut list = Vec::with_capacity(rows.len());
                    for r in &rows {
                        // The webhook's columns are null when the user has none.
                        if r.try_get::<_, Option<&str>>(0)?.is_some() {
                            list.push(webhooks::from_row(r)?);
                        }
                    }
                    let user = key.user_id.clone();
                    (
                        Some(key),
                        Some(ReadWithKey::Webhooks(user, Listed::new(list))),
                    )
                }
                _ => {
                    let mut key = None;
                    let mut list = Vec::with_capacity(rows.len());
                    for r in &rows {
                        let listed = keys::from_row(r)?;
                        if r.try_get::<_, bool>(keys::IS_THE_KEY)? {
                            key = Some(listed.clone());
                        }
                        list.push(listed);
                    }
                    let read = key
                        .as_ref()
                        .map(|k| ReadWithKey::Keys(k.user_id.clone(), Listed::new(list)));
                    (key, read)
                }
            })
        })()
        .map_err(|e| e.sorted())?;
        if !self.in_transaction() {
            self.ahead.keep(read);
        }
        Ok(key.map(Arc::new))
    }

    /// One statement that never waits ([`KeyQueries::set_key_last_used`]). A list read
    /// ahead with the key stays for the next statement, with the use recorded in it as in
    /// the row (one round trip less than reading it again); if another use was recorded
    /// meanwhile, later than this one, it goes, and the list is read again. Outside a
    /// transaction, a use within a second after one that another connection of this backend
    /// claimed is not recorded ([`keys::UseClaims`]; `Unavailable`): no statement. A use
    /// whose row is busy is `Unavailable` too, and left for the next use to record.
    fn record_key_use(&self, _key_hash: &str, key_id: &str, at: Timestamp) -> StoreResult<()> {
        if self.in_transaction() {
            return self.set_key_last_used(key_id, at);
        }
        // Another of this backend's connections records (or recorded) a use of this second.
        if !self.uses.claim(key_id, at) {
            return Err(keys::busy());
        }
        let mut kept = self.ahead.take();
        let recorded = self.record_use(key_id, at);
        if matches!(recorded, Err(_) | Ok(keys::Recorded::Busy)) {
            self.uses.release(key_id, at);
        }
        let result = match recorded? {
            keys::Recorded::Moved => {
                if let Some(read) = kept.as_mut() {
                    read.record_use(key_id, at);
                }
                Ok(())
            }
            // A later use was recorded meanwhile: the list read ahead shows an older one.
            keys::Recorded::Unmoved => {
                kept = None;
                Ok(())
            }
            keys::Recorded::Busy => Err(keys::busy()),
        };
        // Uses left earlier, their rows busy then. A list read ahead is kept only if none
        // of them moved (it would show one of them as it was).
        if !self.record_left_uses() {
            self.ahead.keep(kept);
        }
        if result.is_err() {
            self.uses.leave(key_id, at);
        }
        result
    }

    /// One statement on this store's connection: outside a transaction it commits by itself
    /// (one round trip, where `BEGIN`, the `UPDATE` and `COMMIT` were three), inside one it
    /// is one more statement of it. Exact either way: the `UPDATE` locks the budget's row and
    /// checks `remaining_uses > 0` on its latest version (READ COMMITTED re-reads a row that
    /// another statement changed meanwhile), so two instances never spend the last use twice.
    fn spend_key_use_now(&self, id: &str) -> keyhook_core::Result<Option<i64>> {
        Ok(KeyQueries::spend_key_use(self, id)?)
    }

    fn checksum_memory(&self) -> &ChecksumMemory {
        &self.checksums
    }
}

/// Reads a JSON array of strings kept in a TEXT column.
fn json_strings(s: &str) -> Result<Vec<String>, Fail> {
    serde_json::from_str(s).map_err(|e| Fail::Data(format!("a stored JSON list is damaged: {e}")))
}

fn to_json(v: &[String]) -> String {
    serde_json::to_string(v).unwrap_or_else(|_| "[]".to_string())
}
