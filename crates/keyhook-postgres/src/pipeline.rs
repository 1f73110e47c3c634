//! The authenticated read of every request (the key by its hash, with its user's list), sent
//! by all of a server's threads over a few shared connections, and batched: the reads that
//! wait for a lane while its statements are out go together as one statement, the hashes an
//! array (`unnest($1) WITH ORDINALITY`, each row of the answer carrying its read's number
//! last), and each thread gets its own rows. With one connection per thread, each statement
//! cost a round of wakeups on both sides (the thread's, the backend's) and a `recv`/`send`
//! pair each; with one statement a read, PostgreSQL still began, planned, ran and committed
//! each apart. On a machine where serve, PostgreSQL and the clients share the cores, those
//! were most of a request's cost.
//!
//! Each read is still answered by a statement sent after its request arrived and run under
//! READ COMMITTED outside any transaction: it sees every commit made before it ran, so a key
//! revoked or expired anywhere is refused by the next request, as on the pool's connections.
//! Only statements outside transactions come here; a transaction needs a connection of its
//! own and keeps the pool's.
//!
//! The lanes (connections) are made in the background, the first time a statement is asked
//! for; until one is up, and whenever the one asked is down (the server restarted, the
//! network failed), [`Pipeline::query`] answers `None` and the caller uses its pooled
//! connection as before. A lane that failed is made again at most once a second; the reads
//! waiting on it when it failed are answered `None` too (never left waiting).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread::Thread;
use std::time::{Duration, Instant};

use tokio::sync::Notify;
use tokio_postgres::{Client, Row, Statement};

use crate::tls::Connector;
use crate::url;

/// How the lanes name themselves to the server (`pg_stat_activity.application_name`) when the
/// URL does not say.
pub(crate) const APPLICATION_NAME: &str = "keyhook-pipeline";

/// How long after a lane failed it is made again.
const RETRY_AFTER: Duration = Duration::from_secs(1);

/// Set on each lane before its statements are prepared.
///
/// - The plan of each batched statement is made once, for any number of reads (a custom plan
///   for each batch's size was planned again at every batch, and chosen whenever a batch was
///   small).
/// - No parallel workers: a batch's rows come out in the order the statement makes them (each
///   read's rows together, in its list's order), never interleaved by a `Gather`.
/// - A user's list (keys, webhooks) is read in its order by walking the `(user_id,
///   created_at, id)` index. Where the statistics say a user has dozens of keys or more, the
///   planner's costs prefer a bitmap scan of that index, then the table, then a sort: on a
///   warm cache, half again the backend's time a request, with nothing gained, as the rows
///   come back sorted either way (pgbench, the statement of `GET /api-keys`, 100,000 keys of
///   1,000 users: 14,600 → 18,900 a second).
///
/// The lanes carry only the statements of [`crate::PIPELINED`], so nothing else is planned
/// under these.
const SESSION: &str = "SET plan_cache_mode = force_generic_plan; \
    SET max_parallel_workers_per_gather = 0; SET enable_bitmapscan = off";

/// The statements lanes carry (each with the key's hash as its one parameter, `$1`),
/// prepared on each lane in their batched form ([`batched`]) when it is made.
pub(crate) type Sql = &'static str;

/// The most reads one batch carries.
const MOST_IN_A_BATCH: usize = 64;

pub(crate) struct Pipeline {
    lanes: Arc<[Mutex<Lane>]>,
    next: AtomicUsize,
    answered: AtomicU64,
    /// How many statements the lanes have run (each a batch of reads).
    batches: Arc<AtomicU64>,
    statements: &'static [Sql],
    config: tokio_postgres::Config,
    tls: Connector,
    deadline: Duration,
    driver: OnceLock<Option<Driver>>,
}

struct Driver {
    handle: tokio::runtime::Handle,
    /// Dropped with the pipeline, which ends the driver's thread.
    _stop: tokio::sync::oneshot::Sender<()>,
}

enum Lane {
    Down(Option<Instant>),
    Connecting,
    Up(Arc<Ready>),
}

struct Ready {
    client: Client,
    /// Each statement's batched form.
    prepared: HashMap<Sql, Statement>,
    /// The reads waiting for the lane's next batch.
    waiting: Mutex<Waiting>,
    /// Told when a read starts waiting.
    arrived: Notify,
    /// The pipeline's count of statements run.
    batches: Arc<AtomicU64>,
}

impl Ready {
    /// Ends the lane's loop ([`send_batches`]), which answers `None` to every read left
    /// waiting, and lets no other wait.
    fn close(&self) {
        lock(&self.waiting).closed = true;
        self.arrived.notify_one();
    }
}

#[derive(Default)]
struct Waiting {
    reads: Vec<Read>,
    /// The lane's batches stopped (its connection failed): no read may wait any more.
    closed: bool,
}

/// One thread's read, waiting for its batch.
struct Read {
    sql: Sql,
    key_hash: String,
    answer: Arc<Answer>,
}

/// Where a read's rows are left for its thread, which is woken then.
struct Answer {
    rows: Mutex<Option<Option<Vec<Row>>>>,
    thread: Thread,
}

impl Answer {
    fn give(&self, rows: Option<Vec<Row>>) {
        *lock(&self.rows) = Some(rows);
        self.thread.unpark();
    }

    /// The rows, once given (parking until then); `None` if the lane failed.
    fn take(&self) -> Option<Vec<Row>> {
        loop {
            if let Some(rows) = lock(&self.rows).take() {
                return rows;
            }
            std::thread::park();
        }
    }
}

/// The reads of one batch, each answered once: with its rows, or `None` if the batch is
/// dropped unanswered (the statement failed, the runtime is ending).
struct Batch(Vec<Read>);

impl Drop for Batch {
    fn drop(&mut self) {
        for read in self.0.drain(..) {
            read.answer.give(None);
        }
    }
}

/// `sql` run for each hash of the array `$1`, in one statement: its columns, then the
/// number (from 1) of the hash in the array, each hash's rows in `sql`'s order.
fn batched(sql: Sql) -> String {
    format!(
        "SELECT s.*, h.i FROM unnest($1::text[]) WITH ORDINALITY AS h(hash, i) \
         CROSS JOIN LATERAL ({}) s",
        sql.replace("$1", "h.hash")
    )
}

impl Pipeline {
    /// `lanes` connections made with `config` and `tls` (each within `deadline`) when first
    /// needed, carrying `statements`; they name themselves `keyhook-pipeline` to the server
    /// unless the URL named the application. Nothing starts before the first statement.
    pub(crate) fn new(
        lanes: usize,
        statements: &'static [Sql],
        mut config: tokio_postgres::Config,
        tls: Connector,
        deadline: Duration,
    ) -> Pipeline {
        if config.get_application_name() == Some(url::APPLICATION_NAME) {
            config.application_name(APPLICATION_NAME);
        }
        Pipeline {
            lanes: (0..lanes.max(1))
                .map(|_| Mutex::new(Lane::Down(None)))
                .collect(),
            next: AtomicUsize::new(0),
            answered: AtomicU64::new(0),
            batches: Arc::default(),
            statements,
            config,
            tls,
            deadline,
            driver: OnceLock::new(),
        }
    }

    /// The runtime the lanes' connections run on, on a thread of its own, started once;
    /// `None` if it could not be.
    fn driver(&self) -> Option<&Driver> {
        self.driver
            .get_or_init(|| {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .ok()?;
                let handle = runtime.handle().clone();
                let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
                std::thread::Builder::new()
                    .name("keyhook-pg-pipeline".into())
                    // Until the pipeline is dropped (its sender with it); the runtime, its
                    // connections with it, goes when the thread ends.
                    .spawn(move || {
                        let _ = runtime.block_on(stopped);
                    })
                    .ok()?;
                Some(Driver {
                    handle,
                    _stop: stop,
                })
            })
            .as_ref()
    }

    /// The rows of `sql` (one of the pipeline's statements) for `key_hash`, over the next
    /// lane, with one more column last (the read's number in its batch); `None` when that
    /// lane is not up or failed (the caller then uses its own connection).
    pub(crate) fn query(&self, sql: Sql, key_hash: &str) -> Option<Vec<Row>> {
        let i = self.next.fetch_add(1, Ordering::Relaxed) % self.lanes.len();
        let ready = self.ready(i)?;
        if !ready.prepared.contains_key(sql) {
            return None;
        }
        let answer = Arc::new(Answer {
            rows: Mutex::new(None),
            thread: std::thread::current(),
        });
        {
            let mut waiting = lock(&ready.waiting);
            if waiting.closed {
                drop(waiting);
                self.fail(i, &ready);
                return None;
            }
            waiting.reads.push(Read {
                sql,
                key_hash: key_hash.to_owned(),
                answer: Arc::clone(&answer),
            });
        }
        ready.arrived.notify_one();
        match answer.take() {
            Some(rows) => {
                self.answered.fetch_add(1, Ordering::Relaxed);
                Some(rows)
            }
            // The lane is made again (after a pause): most likely the connection is gone
            // (the server restarted, or ended it). Either way the caller's own connection
            // answers this one, and reports the error if there is one.
            None => {
                self.fail(i, &ready);
                None
            }
        }
    }

    /// How many reads the lanes have answered.
    pub(crate) fn answered(&self) -> u64 {
        self.answered.load(Ordering::Relaxed)
    }

    /// How many statements (batches of reads) the lanes have run.
    pub(crate) fn batches(&self) -> u64 {
        self.batches.load(Ordering::Relaxed)
    }

    /// Lane `i` if it is up; starts making it if it is down and may be made again.
    fn ready(&self, i: usize) -> Option<Arc<Ready>> {
        let mut lane = lock(&self.lanes[i]);
        match &*lane {
            Lane::Up(r) if !r.client.is_closed() => return Some(Arc::clone(r)),
            Lane::Up(r) => {
                r.close();
                *lane = Lane::Down(Some(Instant::now()));
            }
            Lane::Down(Some(at)) if at.elapsed() < RETRY_AFTER => {}
            Lane::Down(_) => {
                *lane = Lane::Connecting;
                self.connect(i);
            }
            Lane::Connecting => {}
        }
        None
    }

    fn fail(&self, i: usize, ready: &Arc<Ready>) {
        let mut lane = lock(&self.lanes[i]);
        if matches!(&*lane, Lane::Up(r) if Arc::ptr_eq(r, ready)) {
            *lane = Lane::Down(Some(Instant::now()));
        }
        ready.close();
    }

    /// Makes lane `i` in the background.
    fn connect(&self, i: usize) {
        let Some(driver) = self.driver() else {
            *lock(&self.lanes[i]) = Lane::Down(Some(Instant::now()));
            return;
        };
        let (config, tls, lanes) = (
            self.config.clone(),
            self.tls.clone(),
            Arc::clone(&self.lanes),
        );
        let (statements, deadline) = (self.statements, self.deadline);
        let batches = Arc::clone(&self.batches);
        let runtime = driver.handle.clone();
        driver.handle.spawn(async move {
            let made = tokio::time::timeout(deadline, async {
                let (client, connection) = config.connect(tls).await?;
                runtime.spawn(connection);
                client.batch_execute(SESSION).await?;
                let mut prepared = HashMap::new();
                for sql in statements {
                    prepared.insert(*sql, client.prepare(&batched(sql)).await?);
                }
                Ok::<_, tokio_postgres::Error>(Ready {
                    client,
                    prepared,
                    waiting: Mutex::default(),
                    arrived: Notify::new(),
                    batches,
                })
            })
            .await;
            *lock(&lanes[i]) = match made {
                Ok(Ok(ready)) => {
                    let ready = Arc::new(ready);
                    runtime.spawn(send_batches(Arc::clone(&ready)));
                    Lane::Up(ready)
                }
                _ => Lane::Down(Some(Instant::now())),
            };
        });
    }
}

/// A lane's loop: the reads waiting go as the next batch (one statement for each of the
/// statements they ask), and those that come while it is out wait for the one after. One
/// batch out at a time: with two, measured in the same run, batches were smaller and
/// PostgreSQL spent 22-25 us of CPU a request against 21, for the same requests a second.
/// It ends at the first failure, with every read then waiting answered `None`: the lane is
/// made again by the next read that finds it failed.
async fn send_batches(ready: Arc<Ready>) {
    loop {
        let reads = {
            let mut waiting = lock(&ready.waiting);
            if waiting.closed {
                break;
            }
            let n = waiting.reads.len().min(MOST_IN_A_BATCH);
            waiting.reads.drain(..n).collect::<Vec<_>>()
        };
        if reads.is_empty() {
            ready.arrived.notified().await;
            continue;
        }
        if ready.client.is_closed() {
            drop(Batch(reads));
            break;
        }
        if !run(&ready, reads).await {
            break;
        }
    }
    let left = {
        let mut waiting = lock(&ready.waiting);
        waiting.closed = true;
        std::mem::take(&mut waiting.reads)
    };
    drop(Batch(left));
}

/// Runs `reads` (one statement for each of the statements they ask) and gives each its
/// rows; `false` if a statement failed (each read not answered yet then gets `None`).
async fn run(ready: &Ready, reads: Vec<Read>) -> bool {
    let mut rest = Batch(reads);
    while let Some(sql) = rest.0.first().map(|r| r.sql) {
        let (these, others) = std::mem::take(&mut rest.0)
            .into_iter()
            .partition(|r| r.sql == sql);
        rest.0 = others;
        let batch = Batch(these);
        let Some(statement) = ready.prepared.get(sql) else {
            return false;
        };
        let hashes: Vec<&str> = batch.0.iter().map(|r| r.key_hash.as_str()).collect();
        ready.batches.fetch_add(1, Ordering::Relaxed);
        let Ok(rows) = ready.client.query(statement, &[&hashes]).await else {
            return false;
        };
        if !answer(batch, rows) {
            return false;
        }
    }
    true
}

/// Gives each read of `batch` its rows of `rows` (the rows whose last column is its number);
/// `false` if a row carries no such number (each read then gets `None`).
fn answer(mut batch: Batch, rows: Vec<Row>) -> bool {
    let mut each: Vec<Vec<Row>> = batch.0.iter().map(|_| Vec::new()).collect();
    for row in rows {
        let Some(last) = row.len().checked_sub(1) else {
            return false;
        };
        let slot = row
            .try_get::<_, i64>(last)
            .ok()
            .and_then(|n| usize::try_from(n).ok()?.checked_sub(1))
            .and_then(|n| each.get_mut(n));
        match slot {
            Some(slot) => slot.push(row),
            None => return false,
        }
    }
    for (read, rows) in batch.0.drain(..).zip(each) {
        read.answer.give(Some(rows));
    }
    true
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}
