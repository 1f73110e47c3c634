//! The HTTP front end: the only user of tiny_http. Each request is handled on its connection's
//! thread with a database connection leased from the backend's pool: authenticated, then
//! passed to the same `service` functions as the CLI. The binary hands it the database
//! ([`Backend`], which owns the pool) and the client that sends test pings ([`Transport`]); it
//! knows neither SQL nor the outbox worker.

mod api;
mod auth_check;
mod body;
pub mod metrics;
pub mod openapi;
mod pings;
mod portal;
mod probes;
pub mod ratelimit;
mod reply;
mod request_db;
pub mod request_input;
mod router;

pub use portal::TEMPLATES as PORTAL_ROUTES;
pub use router::ROUTES;

use std::net::{SocketAddr, TcpListener, ToSocketAddrs};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use keyhook_core::access_log::AccessLog;
use keyhook_core::error::{Error, Result};
use keyhook_core::forward::ProfileTemplate;
use keyhook_core::rate;
use keyhook_core::stop::Stop;
use keyhook_core::store::Backend;
use keyhook_core::time::Clock;
use keyhook_core::transport::Transport;

/// A client that stops reading our response is dropped after this long.
pub const WRITE_TIMEOUT: Duration = Duration::from_secs(10);
/// How long shutdown waits for requests in flight (whose client may still be sending a body):
/// long enough for a body that is arriving, short enough that a client that stopped sending
/// does not hold the server up.
const GRACE: Duration = Duration::from_secs(3);
/// How often the rate limiter's state is swept (`ratelimit::Limits::sweep`) and accept
/// failures are logged.
const SWEEP_EVERY: Duration = Duration::from_secs(1);

pub struct ServeOptions {
    pub bind: String,
    /// The database. Its pool bounds how many requests use it at once (`serve --threads`);
    /// more wait their turn.
    pub db: Arc<dyn Backend>,
    /// The read timeout of every accepted connection (`serve --read-timeout`): a client that
    /// sends nothing for this long, between requests or within one, is disconnected.
    pub read_timeout: Duration,
    /// How long a whole request head may take (`serve --header-timeout`): from accept for a
    /// connection's first request, from the first byte of each later one.
    pub header_timeout: Duration,
    /// The most connections served at once (`serve --max-connections`); more get a 503.
    pub max_connections: usize,
    /// Of those, the most from one client address (`serve --max-connections-per-address`;
    /// an IPv6 address by its /64 prefix); more get a 503.
    pub max_connections_per_address: usize,
    /// Sends test pings (the outbox worker's client).
    pub transport: Arc<dyn Transport>,
    /// Webhook URLs may name private addresses (`--allow-private-targets`).
    pub allow_private: bool,
    /// Where requests read the time.
    pub clock: Clock,
    /// `serve --rate-limit`: requests per key, and failed authentications per address.
    pub rate_limit: Option<rate::RateLimit>,
    /// Where each request's access line goes (the binary's log).
    pub access_log: Arc<dyn AccessLog>,
    /// `serve --auth-profile`: where a URI the key check is asked about names a profile.
    pub auth_profiles: Vec<ProfileTemplate>,
    /// `serve --trusted-proxy`: peers whose `X-Forwarded-For` / `X-Real-IP` name the client.
    pub trusted_proxies: Vec<keyhook_core::forward::Cidr>,
    /// The developer portal: `--public-url`, `--portal-embed-origin`,
    /// `--portal-allow-private-targets`.
    pub portal: keyhook_core::service::portal::PortalConfig,
}

/// A running server: its address, and the stop that ends it.
pub struct Server {
    inner: tiny_http::Server,
    addr: SocketAddr,
    shared: Arc<Shared>,
    stop: Arc<Stop>,
}

/// What every connection thread shares.
struct Shared {
    sender: Arc<dyn Transport>,
    allow_private: bool,
    clock: Clock,
    /// The database; its pool bounds the connections requests take turns with.
    db: Arc<dyn Backend>,
    /// Test pings running per user.
    pings: pings::PingSlots,
    /// Requests between arrival and reply, for a graceful stop.
    in_flight: AtomicUsize,
    /// What `/metrics` shows.
    metrics: Arc<metrics::Metrics>,
    /// `--rate-limit`, when given.
    limits: Option<ratelimit::Limits>,
    /// The buckets of keys with a rate limit of their own.
    own_limits: ratelimit::OwnLimits,
    /// Where access lines go.
    access_log: Arc<dyn AccessLog>,
    auth_profiles: Vec<ProfileTemplate>,
    trusted_proxies: Vec<keyhook_core::forward::Cidr>,
    /// The developer portal under `/portal`.
    portal: portal::Portal,
}

impl Server {
    /// Binds `opts.bind` and starts serving. The database is opened (and migrated) once
    /// here, so a bad file fails before anything is served.
    ///
    /// tiny_http gives every connection a thread of its own; each request is handled on it
    /// (`tiny_http::Server::from_listener_with_handler`, a keyhook patch) with a connection
    /// leased from `opts.db`'s pool.
    pub fn start(opts: ServeOptions, stop: Arc<Stop>) -> Result<Server> {
        drop(opts.db.connect()?);
        let listener = listen(&opts.bind)?;
        let addr = listener.local_addr()?;
        let metrics = Arc::new(metrics::Metrics::new(
            Arc::clone(&opts.db),
            opts.clock.clone(),
        ));
        let shared = Arc::new(Shared {
            sender: opts.transport,
            allow_private: opts.allow_private,
            clock: opts.clock.clone(),
            db: opts.db,
            pings: pings::PingSlots::new(pings::MAX_PINGS_PER_USER),
            in_flight: AtomicUsize::new(0),
            metrics,
            limits: opts.rate_limit.map(ratelimit::Limits::new),
            own_limits: ratelimit::OwnLimits::default(),
            access_log: opts.access_log,
            auth_profiles: opts.auth_profiles,
            trusted_proxies: opts.trusted_proxies,
            portal: portal::Portal::new(opts.portal, addr),
        });
        let handler: tiny_http::Handler = {
            let shared = Arc::clone(&shared);
            Arc::new(move |rq| on_request(&shared, rq))
        };
        let limits = tiny_http::ConnectionOptions {
            read_timeout: Some(opts.read_timeout),
            header_timeout: Some(opts.header_timeout),
            max_connections: Some(opts.max_connections),
            max_connections_per_address: Some(opts.max_connections_per_address),
        };
        let inner =
            tiny_http::Server::from_listener_with_options(listener, None, limits, Some(handler))
                .map_err(|e| Error::Io(format!("cannot serve on {}: {e}", opts.bind)))?;
        Ok(Server {
            inner,
            addr,
            shared,
            stop,
        })
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The server's metrics, for the outbox worker beside it to record its deliveries in.
    pub fn metrics(&self) -> Arc<metrics::Metrics> {
        Arc::clone(&self.shared.metrics)
    }

    /// Logs accept errors until the stop is raised; then stops accepting, lets the requests
    /// in flight finish for up to [`GRACE`] (a client may still be sending its body) and
    /// returns.
    pub fn run_until_stopped(self) {
        // The thread wakes once a second while nothing stops it (and at once for the stop):
        // the rate limiter forgets full buckets and ended blocks, here, so that no request
        // pays for it; and the accept() failures queued since (EMFILE, say: with a handler,
        // tiny_http's queue carries nothing else, and the patched tiny_http keeps accepting,
        // every 50 ms while one lasts) are logged, the last of them, once for the second.
        while !self.stop.sleep(SWEEP_EVERY) {
            if let Some(limits) = &self.shared.limits {
                limits.sweep();
            }
            self.shared.own_limits.sweep();
            let mut failed = None;
            loop {
                match self.inner.try_recv() {
                    Err(e) => failed = Some(e),
                    Ok(Some(_)) => {}
                    Ok(None) => break,
                }
            }
            if let Some(e) = failed {
                tracing::error!(target: "keyhook::http", "keyhook: cannot accept a connection: {e}");
            }
        }
        let stopped = Instant::now();
        drop(self.inner);
        while self.shared.in_flight.load(Ordering::Acquire) > 0 && stopped.elapsed() < GRACE {
            thread::sleep(Duration::from_millis(10));
        }
        let left = self.shared.in_flight.load(Ordering::Acquire);
        if left > 0 {
            tracing::warn!(
                target: "keyhook::http",
                "keyhook: {left} request(s) still unfinished; not waiting longer"
            );
        }
    }
}

/// Counts a request from arrival until it is answered, however that ends.
struct InFlight<'a>(&'a AtomicUsize);

impl<'a> InFlight<'a> {
    fn new(count: &'a AtomicUsize) -> InFlight<'a> {
        count.fetch_add(1, Ordering::AcqRel);
        InFlight(count)
    }
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// One request, on its connection's thread. The body is read first, at the client's pace and
/// holding nothing shared; then the handler, which takes a database connection from the pool
/// at its first database use (`db::RequestDb`) and gives it back before a network call.
fn on_request(shared: &Shared, mut rq: tiny_http::Request) {
    let started = Instant::now();
    let _in_flight = InFlight::new(&shared.in_flight);
    // The client's address: the peer's, or from a --trusted-proxy the forwarded one (the
    // failed-authentication limit and the access log).
    let client = auth_check::client_addr(
        &rq,
        rq.remote_addr().map(|a| a.ip()),
        &shared.trusted_proxies,
    );
    let finish = |rq, reply: reply::Reply, route, key_prefix: Option<&str>| {
        // Recorded before the response is written, so that a client that has its answer
        // finds it counted at its next scrape.
        shared
            .metrics
            .record(route, reply.status, started.elapsed());
        let label = shared.metrics.label(route);
        reply::send(
            rq,
            reply,
            started,
            key_prefix,
            label,
            &*shared.access_log,
            client,
        );
    };
    // A request under /api/v1 without a well-formed Authorization header gets a 401 whatever
    // its body: it is not read (the connection then ends after the 401), so that an
    // unauthenticated client cannot hold a connection with a slow body.
    let body = if body::declared(&rq) && api::refused_unread(&rq) {
        rq.close_connection();
        body::Body::Empty
    } else {
        body::read(&mut rq)
    };
    // Routed once: for the metrics' label and for dispatch.
    let path = router::api_path(rq.url());
    let found = path.map(|p| router::route(rq.method(), p));
    let route = shared.metrics.route_of(rq.url(), path.zip(found.as_ref()));
    // A body that is malformed, incomplete or late is never acted on (RFC 9112 section 8).
    if let body::Body::Failed { timed_out, message } = body {
        finish(rq, reply::bad_body(timed_out, message), route, None);
        return;
    }
    // /healthz and /metrics, outside /api/v1: no authentication, no rate limit.
    if let Some(reply) = probes::answer(shared, &rq) {
        finish(rq, reply, route, None);
        return;
    }
    // The connection goes back to the pool before the reply is written to a slow client.
    let (reply, key) = {
        let ctx = api::Ctx {
            db: request_db::RequestDb::new(&*shared.db, &*shared.sender),
            allow_private: shared.allow_private,
            pings: &shared.pings,
            clock: &shared.clock,
            metrics: &shared.metrics,
            limits: shared.limits.as_ref(),
            own_limits: &shared.own_limits,
            client,
            auth_profiles: &shared.auth_profiles,
            public_url: &shared.portal.public_url,
        };
        // The portal's one step on every request: a comparison of the path's prefix. (The
        // feature `bench-no-portal`, for bench/portal-routing.sh only, builds a serve without
        // it, to count what it costs an /api/v1 request.)
        let to_portal =
            !cfg!(feature = "bench-no-portal") && portal::is_portal(router::path_of(rq.url()));
        // A bug must cost one request a 500, never the connection's thread.
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            if to_portal {
                (portal::dispatch(&shared.portal, ctx, &rq, body), None)
            } else {
                api::dispatch(ctx, &rq, body, path.zip(found))
            }
        }))
        .unwrap_or_else(|_| {
            (
                reply::error(&Error::Storage("handler panicked".into())),
                None,
            )
        })
    };
    finish(
        rq,
        reply,
        route,
        key.as_deref().map(|k| k.key_prefix.as_str()),
    );
}

/// A listening socket whose accepted connections inherit a send timeout and TCP keepalive
/// (Linux copies both to accepted sockets), so that a client that stops reading, or a peer
/// that vanished, cannot hold a connection forever; and TCP_NODELAY, since tiny_http writes
/// the body of a response over 16 KiB after its head (vendor/tiny_http/PATCHES.md, patch i),
/// and Nagle's algorithm would hold the body back until the client's delayed ACK (about
/// 40 ms a request). Public for the baselines of bench/serve.sh (`examples/bare_http.rs`,
/// `examples/floor_http.rs`), which listen the same way.
pub fn listen(bind: &str) -> Result<TcpListener> {
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
