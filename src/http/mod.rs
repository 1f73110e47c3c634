//! The HTTP front end: the only user of tiny_http. A pool of worker threads, each with its own
//! database connection, takes requests from tiny_http's queue, authenticates them and calls
//! the same `service` functions as the CLI.

mod api;
mod body;
pub mod openapi;
mod reply;
mod router;

pub use router::ROUTES;

use std::net::{SocketAddr, TcpListener, ToSocketAddrs};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use crate::delivery::client::Sender;
use crate::delivery::worker::{self, WorkerOptions};
use crate::error::{Error, Result};
use crate::store::Store;

/// A client that stops reading our response is dropped after this long.
pub const WRITE_TIMEOUT: Duration = Duration::from_secs(10);
/// How often idle workers look at the shutdown flag.
const POLL: Duration = Duration::from_millis(200);
/// How long shutdown waits for requests still being handled on body threads (whose client
/// may still be sending): long enough for a body that is arriving, short enough that a client
/// that stopped sending does not hold the server up.
const BODY_GRACE: Duration = Duration::from_secs(3);

pub struct ServeOptions {
    pub bind: String,
    pub threads: usize,
    pub db: PathBuf,
    /// The read timeout of every accepted connection (`serve --read-timeout`): a client that
    /// sends nothing for this long, between requests or within one, is disconnected.
    pub read_timeout: Duration,
    /// The outbox worker that runs beside the server; its client also sends test pings.
    pub delivery: WorkerOptions,
}

/// A running server: its address, and the flag that stops it.
pub struct Server {
    inner: Arc<tiny_http::Server>,
    addr: SocketAddr,
    workers: Vec<thread::JoinHandle<()>>,
    stop: Arc<AtomicBool>,
    /// Requests being handled on body threads, which nothing joins.
    in_flight: Arc<AtomicUsize>,
}

impl Server {
    /// Binds `opts.bind` and starts the workers. The database is opened (and migrated) once
    /// here, so a bad file fails before anything is served.
    pub fn start(opts: ServeOptions, stop: Arc<AtomicBool>) -> Result<Server> {
        Store::open(&opts.db)?;
        let listener = listen(&opts.bind)?;
        let addr = listener.local_addr()?;
        let inner = Arc::new(
            tiny_http::Server::from_listener_with_timeout(listener, None, Some(opts.read_timeout))
                .map_err(|e| Error::Io(format!("cannot serve on {}: {e}", opts.bind)))?,
        );
        let sender = Sender::new(&opts.delivery.client);
        let allow_private = opts.delivery.client.allow_private;
        let in_flight = Arc::new(AtomicUsize::new(0));
        let mut workers = Vec::with_capacity(opts.threads + 1);
        for i in 0..opts.threads.max(1) {
            let worker = Worker {
                store: Store::open(&opts.db)?,
                sender: sender.clone(),
                allow_private,
                db: opts.db.clone(),
                in_flight: Arc::clone(&in_flight),
            };
            let server = Arc::clone(&inner);
            let stop = Arc::clone(&stop);
            let handle = thread::Builder::new()
                .name(format!("http-{i}"))
                .spawn(move || work(&server, worker, &stop))?;
            workers.push(handle);
        }
        let db = opts.db.clone();
        let delivery = opts.delivery;
        let stop_delivery = Arc::clone(&stop);
        workers.push(
            thread::Builder::new()
                .name("outbox".into())
                .spawn(move || deliver(&db, &delivery, &stop_delivery))?,
        );
        Ok(Server {
            inner,
            addr,
            workers,
            stop,
            in_flight,
        })
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Waits until the stop flag is raised, then lets every worker finish the request it is
    /// handling, and requests on body threads finish for up to [`BODY_GRACE`], and returns.
    pub fn run_until_stopped(self) {
        while !self.stop.load(Ordering::Relaxed) {
            thread::sleep(POLL);
        }
        let stopped = Instant::now();
        for _ in 0..self.workers.len() {
            self.inner.unblock();
        }
        for w in self.workers {
            let _ = w.join();
        }
        // No worker is left to start a body thread.
        while self.in_flight.load(Ordering::Acquire) > 0 && stopped.elapsed() < BODY_GRACE {
            thread::sleep(Duration::from_millis(10));
        }
        let left = self.in_flight.load(Ordering::Acquire);
        if left > 0 {
            eprintln!("keyhook: {left} request(s) still reading their body; not waiting longer");
        }
    }
}

/// A listening socket whose accepted connections inherit a send timeout and TCP keepalive
/// (Linux copies both to accepted sockets), so that a client that stops reading, or a peer
/// that vanished, cannot hold a connection forever; and TCP_NODELAY, since tiny_http writes
/// a response's head and body separately and Nagle's algorithm would hold the body back
/// until the client's delayed ACK (about 40 ms a request).
fn listen(bind: &str) -> Result<TcpListener> {
    use socket2::{Domain, Protocol, Socket, TcpKeepalive, Type};
    let bad = |m: String| Error::validation("--bind", m);
    let addr = bind
        .to_socket_addrs()
        .map_err(|e| bad(format!("cannot resolve {bind:?}: {e}")))?
        .next()
        .ok_or_else(|| bad(format!("{bind:?} resolves to no address")))?;
    let socket = Socket::new(Domain::for_address(addr), Type::STREAM, Some(Protocol::TCP))?;
    socket.set_reuse_address(true)?;
    socket.set_nodelay(true)?;
    socket.set_write_timeout(Some(WRITE_TIMEOUT))?;
    socket.set_keepalive(true)?;
    socket.set_tcp_keepalive(
        &TcpKeepalive::new()
            .with_time(Duration::from_secs(30))
            .with_interval(Duration::from_secs(10)),
    )?;
    socket
        .bind(&addr.into())
        .map_err(|e| Error::Io(format!("cannot bind {addr}: {e}")))?;
    socket.listen(1024)?;
    Ok(socket.into())
}

/// Runs the outbox worker until the server stops; a failure (the database busy past its
/// timeout, say) is logged and the worker starts again, since leases keep deliveries safe.
fn deliver(db: &std::path::Path, opts: &WorkerOptions, stop: &AtomicBool) {
    while !stop.load(Ordering::Relaxed) {
        match worker::run(db, opts, stop) {
            Ok(_) => return,
            Err(e) => {
                eprintln!("keyhook: delivery worker: {e}; starting again in 1s");
                thread::sleep(Duration::from_secs(1));
            }
        }
    }
}

/// One HTTP worker thread's own resources.
struct Worker {
    store: Store,
    sender: Sender,
    allow_private: bool,
    db: PathBuf,
    in_flight: Arc<AtomicUsize>,
}

/// Counts a request handled on a body thread from before the thread starts until the thread
/// is done with it, however it ends (or if it never starts).
struct InFlight(Arc<AtomicUsize>);

impl InFlight {
    fn new(count: &Arc<AtomicUsize>) -> InFlight {
        count.fetch_add(1, Ordering::AcqRel);
        InFlight(Arc::clone(count))
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

impl Worker {
    fn ctx(&self) -> api::Ctx<'_> {
        api::Ctx {
            store: &self.store,
            sender: &self.sender,
            allow_private: self.allow_private,
        }
    }
}

fn work(server: &tiny_http::Server, worker: Worker, stop: &AtomicBool) {
    let mut complained: Option<Instant> = None;
    while !stop.load(Ordering::Relaxed) {
        let request = match server.recv_timeout(POLL) {
            Ok(Some(r)) => r,
            Ok(None) => continue,
            Err(e) => {
                // accept() failed (EMFILE, say); the patched tiny_http keeps accepting, every
                // 50 ms while the failure lasts. Say so at most once a second per worker.
                if complained.is_none_or(|t| t.elapsed() >= Duration::from_secs(1)) {
                    eprintln!("keyhook: cannot accept a connection: {e}");
                    complained = Some(Instant::now());
                }
                continue;
            }
        };
        if body::needs_no_read(&request) {
            handle(&worker.ctx(), request);
        } else {
            // A body tiny_http has not read yet comes at the client's pace; read it on a
            // thread of its own, so that a slow client never holds a worker.
            let (db, sender, allow_private) = (
                worker.db.clone(),
                worker.sender.clone(),
                worker.allow_private,
            );
            let in_flight = InFlight::new(&worker.in_flight);
            let spawned = thread::Builder::new()
                .name("http-body".into())
                .spawn(move || {
                    let _in_flight = in_flight;
                    match Store::open(&db) {
                        Ok(store) => handle(
                            &api::Ctx {
                                store: &store,
                                sender: &sender,
                                allow_private,
                            },
                            request,
                        ),
                        Err(e) => reply::send(request, reply::error(&e), Instant::now(), None),
                    }
                });
            if let Err(e) = spawned {
                eprintln!("keyhook: cannot start a thread for a request body: {e}");
            }
        }
    }
}

fn handle(ctx: &api::Ctx<'_>, mut request: tiny_http::Request) {
    let started = Instant::now();
    // A bug must cost one request a 500, never a worker.
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        api::dispatch(ctx, &mut request)
    }));
    let (reply, key_prefix) = outcome.unwrap_or_else(|_| {
        (
            reply::error(&Error::Storage("handler panicked".into())),
            None,
        )
    });
    reply::send(request, reply, started, key_prefix.as_deref());
}
