//! The connection pool: r2d2 over `r2d2_postgres`'s manager, each connection wrapped in a
//! [`Session`] that keeps its prepared statements, so a query after the first is one round
//! trip (bind and execute) instead of two (parse, then execute).
//!
//! r2d2 checks a connection before lending it (`is_valid`) and drops one the driver saw close
//! (`has_broken`), so after the server restarts the pool fills again with new connections by
//! itself. The check is an empty query, a round trip, unless the connection answered a
//! query less than [`TRUSTED_FOR`] ago: under load a connection is lent again and again
//! within milliseconds, and a round trip per request would be a third of its cost (the
//! benchmark, `benches/pg_authenticate.rs`). A connection that has sat idle (through an outage,
//! say) is always checked. Connections are made on demand (no eager connect); a checkout
//! waits at most [`CHECKOUT_TIMEOUT`]. r2d2 reports a failed connection attempt only as text;
//! [`LastError`] keeps the last one sorted, so a checkout that times out can say why.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::tls::Connector;
use postgres::types::ToSql;
use postgres::{Client, Row, Statement};
use r2d2_postgres::r2d2::{self, HandleError, ManageConnection};
use r2d2_postgres::PostgresConnectionManager;

use crate::error::classify;
use keyhook_core::store::StoreError;

/// How long a checkout waits for a connection (a free one, or a new one) before the request
/// gets `StoreError::Unavailable`.
pub const CHECKOUT_TIMEOUT: Duration = Duration::from_secs(3);

/// How long after its last answer a connection is lent without a check.
pub const TRUSTED_FOR: Duration = Duration::from_secs(1);

/// One connection and the statements prepared on it.
pub struct Session {
    pub client: Client,
    statements: HashMap<String, Statement>,
    /// When a query last went out (its answer, or its failure, came back).
    last_used: Instant,
}

/// The parameters of a query.
pub type Params<'a> = &'a [&'a (dyn ToSql + Sync)];

impl Session {
    pub fn new(client: Client) -> Session {
        Session {
            client,
            statements: HashMap::new(),
            last_used: Instant::now(),
        }
    }

    /// `sql` prepared on this connection, once.
    fn statement(&mut self, sql: &str) -> Result<Statement, postgres::Error> {
        self.last_used = Instant::now();
        if let Some(s) = self.statements.get(sql) {
            return Ok(s.clone());
        }
        let s = self.client.prepare(sql)?;
        self.statements.insert(sql.to_owned(), s.clone());
        Ok(s)
    }

    pub fn query(&mut self, sql: &str, params: Params<'_>) -> Result<Vec<Row>, postgres::Error> {
        let s = self.statement(sql)?;
        self.client.query(&s, params)
    }

    pub fn query_opt(
        &mut self,
        sql: &str,
        params: Params<'_>,
    ) -> Result<Option<Row>, postgres::Error> {
        let s = self.statement(sql)?;
        self.client.query_opt(&s, params)
    }

    pub fn query_one(&mut self, sql: &str, params: Params<'_>) -> Result<Row, postgres::Error> {
        let s = self.statement(sql)?;
        self.client.query_one(&s, params)
    }

    pub fn execute(&mut self, sql: &str, params: Params<'_>) -> Result<u64, postgres::Error> {
        let s = self.statement(sql)?;
        self.client.execute(&s, params)
    }
}

/// Makes [`Session`]s for r2d2, each within a deadline (see [`connect_within`]).
pub struct Manager {
    inner: Arc<PostgresConnectionManager<Connector>>,
    deadline: Duration,
}

impl Manager {
    pub fn new(inner: PostgresConnectionManager<Connector>, deadline: Duration) -> Self {
        Manager {
            inner: Arc::new(inner),
            deadline,
        }
    }
}

/// How long a lent connection's check (an empty query) may take.
const CHECK_TIMEOUT: Duration = Duration::from_secs(2);

/// Why a connection could not be made or kept.
#[derive(Debug)]
pub enum ConnectError {
    Pg(postgres::Error),
    /// The server took the TCP connection and said nothing for this long.
    Silent(Duration),
    /// No thread could be started to connect on, or no descriptors were left to connect with.
    NoThread(String),
}

impl std::fmt::Display for ConnectError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ConnectError::Pg(e) => e.fmt(f),
            ConnectError::Silent(d) => write!(f, "no answer within {} s", d.as_secs()),
            ConnectError::NoThread(e) => write!(f, "cannot start a thread: {e}"),
        }
    }
}

impl std::error::Error for ConnectError {}

impl From<postgres::Error> for ConnectError {
    fn from(e: postgres::Error) -> Self {
        ConnectError::Pg(e)
    }
}

impl ConnectError {
    pub fn sorted(&self) -> StoreError {
        match self {
            ConnectError::Pg(e) => classify(e),
            ConnectError::Silent(d) => StoreError::Unavailable(format!(
                "cannot reach the database server: it accepted the connection but did not \
                 answer within {} s",
                d.as_secs()
            )),
            ConnectError::NoThread(e) => {
                StoreError::Unavailable(format!("cannot connect to the database now: {e}"))
            }
        }
    }
}

impl ManageConnection for Manager {
    type Connection = Session;
    type Error = ConnectError;

    fn connect(&self) -> Result<Session, ConnectError> {
        let inner = self.inner.clone();
        connect_within(self.deadline, move || inner.connect()).map(Session::new)
    }

    fn is_valid(&self, s: &mut Session) -> Result<(), ConnectError> {
        if s.last_used.elapsed() < TRUSTED_FOR && !s.client.is_closed() {
            return Ok(());
        }
        s.client.is_valid(CHECK_TIMEOUT)?;
        s.last_used = Instant::now();
        Ok(())
    }

    fn has_broken(&self, s: &mut Session) -> bool {
        self.inner.has_broken(&mut s.client)
    }
}

/// Runs `connect` on a thread of its own and waits for it at most `deadline`. The driver's
/// `connect_timeout` bounds only the TCP connection: a server that accepts it and then says
/// nothing (stopped, wedged) would keep the caller forever. After the deadline the caller
/// gets an error ("timeout waiting for server", Unavailable) and the thread is left to end
/// when the server answers or drops the connection.
pub fn connect_within(
    deadline: Duration,
    connect: impl FnOnce() -> Result<Client, postgres::Error> + Send + 'static,
) -> Result<Client, ConnectError> {
    let (sent, got) = std::sync::mpsc::channel();
    let spawned = std::thread::Builder::new()
        .name("keyhook-pg-connect".into())
        .spawn(move || {
            // The driver's blocking connect builds a runtime and unwraps its result: out of
            // descriptors (EMFILE) it would panic on this thread. Refuse first when a few
            // descriptors cannot be had (its runtime and socket need them), and treat a panic
            // that still comes (another thread took them meanwhile) as that same refusal.
            let made = match descriptors_left() {
                Err(e) => Err(ConnectError::NoThread(format!(
                    "no file descriptor left: {e}"
                ))),
                Ok(()) => std::panic::catch_unwind(std::panic::AssertUnwindSafe(connect))
                    .map(|made| made.map_err(ConnectError::from))
                    .unwrap_or_else(|_| {
                        Err(ConnectError::NoThread(
                            "the database driver failed to start (out of resources?)".into(),
                        ))
                    }),
            };
            let _ = sent.send(made);
        });
    if let Err(e) = spawned {
        return Err(ConnectError::NoThread(e.to_string()));
    }
    match got.recv_timeout(deadline) {
        Ok(made) => made,
        Err(_) => Err(ConnectError::Silent(deadline)),
    }
}

/// Whether the process can open a few more descriptors (what a connection's runtime and socket
/// take): each is opened and closed again at once.
fn descriptors_left() -> std::io::Result<()> {
    let held: Vec<std::fs::File> = (0..8)
        .map(|_| std::fs::File::open("/dev/null"))
        .collect::<std::io::Result<_>>()?;
    drop(held);
    Ok(())
}

/// The last failed connection attempt of the pool, sorted, and when it happened.
#[derive(Clone, Default)]
pub struct LastError(Arc<Mutex<Option<(Instant, StoreError)>>>);

impl LastError {
    /// The last failure, if it happened within `within`.
    pub fn recent(&self, within: Duration) -> Option<StoreError> {
        let last = self.0.lock().unwrap_or_else(|p| p.into_inner());
        last.as_ref()
            .filter(|(at, _)| at.elapsed() <= within)
            .map(|(_, e)| e.clone())
    }
}

impl std::fmt::Debug for LastError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("LastError")
    }
}

impl HandleError<ConnectError> for LastError {
    fn handle_error(&self, e: ConnectError) {
        let sorted = e.sorted();
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) = Some((Instant::now(), sorted));
    }
}

pub type Pool = r2d2::Pool<Manager>;
pub type Pooled = r2d2::PooledConnection<Manager>;

/// A pool of at most `size` connections, none made yet.
pub fn build(manager: Manager, size: u32, errors: LastError) -> Pool {
    r2d2::Pool::builder()
        .max_size(size.max(1))
        .min_idle(Some(0))
        .connection_timeout(CHECKOUT_TIMEOUT)
        .test_on_check_out(true)
        .error_handler(Box::new(errors))
        .build_unchecked(manager)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A driver that panics while connecting (as the blocking driver does out of descriptors)
    /// is a refusal the caller is told of at once, not a wait for the deadline.
    #[test]
    fn a_connect_that_panics_is_refused_at_once() {
        let started = Instant::now();
        let r = connect_within(Duration::from_secs(30), || {
            panic!("the driver's runtime could not be built")
        });
        assert!(
            matches!(r, Err(ConnectError::NoThread(_))),
            "{:?}",
            r.err().map(|e| e.to_string())
        );
        assert!(started.elapsed() < Duration::from_secs(10));
    }
}
