//! The authenticated read of every request (the key by its hash, with its user's list), sent
//! by all of a server's threads over a few shared connections, pipelined: a connection takes
//! each thread's statement as it comes and writes whatever is waiting in one go, and
//! PostgreSQL's backend answers a batch without sleeping between statements. With one
//! connection per thread, each statement cost a round of wakeups on both sides (the thread's,
//! the backend's) and a `recv`/`send` pair each; on a machine where serve, PostgreSQL and the
//! clients share the cores, those rounds were most of a request's cost.
//!
//! Each statement is still its own: sent after its request arrived and run under READ
//! COMMITTED outside any transaction, it sees every commit made before it ran, so a key
//! revoked or expired anywhere is refused by the next request, as on the pool's connections.
//! Only statements outside transactions come here; a transaction needs a connection of its
//! own and keeps the pool's.
//!
//! The lanes (connections) are made in the background, the first time a statement is asked
//! for; until one is up, and whenever the one asked is down (the server restarted, the
//! network failed), [`Pipeline::query`] answers `None` and the caller uses its pooled
//! connection as before. A lane that failed is made again at most once a second.

use std::collections::HashMap;
use std::future::Future;
use std::pin::pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::task::{Context, Poll, Wake, Waker};
use std::time::{Duration, Instant};

use tokio_postgres::types::ToSql;
use tokio_postgres::{Client, Row, Statement};

use crate::tls::Connector;
use crate::url;

/// How the lanes name themselves to the server (`pg_stat_activity.application_name`) when the
/// URL does not say.
pub(crate) const APPLICATION_NAME: &str = "keyhook-pipeline";

/// How long after a lane failed it is made again.
const RETRY_AFTER: Duration = Duration::from_secs(1);

/// Set on each lane before its statements are prepared. A user's list (keys, webhooks) is
/// read in its order by walking the `(user_id, created_at, id)` index. Where the statistics
/// say a user has dozens of keys or more, the planner's costs prefer a bitmap scan of that
/// index, then the table, then a sort: on a warm cache, half again the backend's time a
/// request, with nothing gained, as the rows come back sorted either way (pgbench, the
/// statement of `GET /api-keys`, 100,000 keys of 1,000 users: 14,600 → 18,900 a second).
/// The lanes carry only the statements of [`crate::PIPELINED`], so nothing else is planned
/// under it.
const SESSION: &str = "SET enable_bitmapscan = off";

/// The statements lanes carry, prepared on each when it is made.
pub(crate) type Sql = &'static str;

pub(crate) struct Pipeline {
    lanes: Arc<[Mutex<Lane>]>,
    next: AtomicUsize,
    answered: AtomicU64,
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
    prepared: HashMap<Sql, Statement>,
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

    /// The rows of `sql` (one of the pipeline's statements) with `params`, over the next
    /// lane; `None` when that lane is not up or failed (the caller then uses its own
    /// connection).
    pub(crate) fn query(&self, sql: Sql, params: &[&(dyn ToSql + Sync)]) -> Option<Vec<Row>> {
        let i = self.next.fetch_add(1, Ordering::Relaxed) % self.lanes.len();
        let ready = self.ready(i)?;
        let statement = ready.prepared.get(sql)?;
        match wait(ready.client.query(statement, params)) {
            Ok(rows) => {
                self.answered.fetch_add(1, Ordering::Relaxed);
                Some(rows)
            }
            // The lane is made again (after a pause): most likely the connection is gone
            // (the server restarted, or ended it). Either way the caller's own connection
            // answers this one, and reports the error if there is one.
            Err(_) => {
                self.fail(i, &ready);
                None
            }
        }
    }

    /// How many statements the lanes have answered.
    pub(crate) fn answered(&self) -> u64 {
        self.answered.load(Ordering::Relaxed)
    }

    /// Lane `i` if it is up; starts making it if it is down and may be made again.
    fn ready(&self, i: usize) -> Option<Arc<Ready>> {
        let mut lane = lock(&self.lanes[i]);
        match &*lane {
            Lane::Up(r) if !r.client.is_closed() => return Some(Arc::clone(r)),
            Lane::Up(_) => *lane = Lane::Down(Some(Instant::now())),
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
        let runtime = driver.handle.clone();
        driver.handle.spawn(async move {
            let made = tokio::time::timeout(deadline, async {
                let (client, connection) = config.connect(tls).await?;
                runtime.spawn(connection);
                client.batch_execute(SESSION).await?;
                let mut prepared = HashMap::new();
                for sql in statements {
                    prepared.insert(*sql, client.prepare(sql).await?);
                }
                Ok::<_, tokio_postgres::Error>(Ready { client, prepared })
            })
            .await;
            *lock(&lanes[i]) = match made {
                Ok(Ok(ready)) => Lane::Up(Arc::new(ready)),
                _ => Lane::Down(Some(Instant::now())),
            };
        });
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Runs `f` to its end on this thread, parking between polls (the lane's connection, on the
/// pipeline's runtime, wakes it when the answer is in).
fn wait<F: Future>(f: F) -> F::Output {
    struct Unpark(std::thread::Thread);
    impl Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
        fn wake_by_ref(self: &Arc<Self>) {
            self.0.unpark();
        }
    }
    let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
    let mut cx = Context::from_waker(&waker);
    let mut f = pin!(f);
    loop {
        if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
        std::thread::park();
    }
}
