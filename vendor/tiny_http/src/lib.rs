//! # Simple usage
//!
//! ## Creating the server
//!
//! The easiest way to create a server is to call `Server::http()`.
//!
//! The `http()` function returns an `IoResult<Server>` which will return an error
//! in the case where the server creation fails (for example if the listening port is already
//! occupied).
//!
//! ```no_run
//! let server = tiny_http::Server::http("0.0.0.0:0").unwrap();
//! ```
//!
//! A newly-created `Server` will immediately start listening for incoming connections and HTTP
//! requests.
//!
//! ## Receiving requests
//!
//! Calling `server.recv()` will block until the next request is available.
//! This function returns an `IoResult<Request>`, so you need to handle the possible errors.
//!
//! ```no_run
//! # let server = tiny_http::Server::http("0.0.0.0:0").unwrap();
//!
//! loop {
//!     // blocks until the next request is received
//!     let request = match server.recv() {
//!         Ok(rq) => rq,
//!         Err(e) => { println!("error: {}", e); break }
//!     };
//!
//!     // do something with the request
//!     // ...
//! }
//! ```
//!
//! In a real-case scenario, you will probably want to spawn multiple worker tasks and call
//! `server.recv()` on all of them. Like this:
//!
//! ```no_run
//! # use std::sync::Arc;
//! # use std::thread;
//! # let server = tiny_http::Server::http("0.0.0.0:0").unwrap();
//! let server = Arc::new(server);
//! let mut guards = Vec::with_capacity(4);
//!
//! for _ in (0 .. 4) {
//!     let server = server.clone();
//!
//!     let guard = thread::spawn(move || {
//!         loop {
//!             let rq = server.recv().unwrap();
//!
//!             // ...
//!         }
//!     });
//!
//!     guards.push(guard);
//! }
//! ```
//!
//! If you don't want to block, you can call `server.try_recv()` instead.
//!
//! ## Handling requests
//!
//! The `Request` object returned by `server.recv()` contains informations about the client's request.
//! The most useful methods are probably `request.method()` and `request.url()` which return
//! the requested method (`GET`, `POST`, etc.) and url.
//!
//! To handle a request, you need to create a `Response` object. See the docs of this object for
//! more infos. Here is an example of creating a `Response` from a file:
//!
//! ```no_run
//! # use std::fs::File;
//! # use std::path::Path;
//! let response = tiny_http::Response::from_file(File::open(&Path::new("image.png")).unwrap());
//! ```
//!
//! All that remains to do is call `request.respond()`:
//!
//! ```no_run
//! # use std::fs::File;
//! # use std::path::Path;
//! # let server = tiny_http::Server::http("0.0.0.0:0").unwrap();
//! # let request = server.recv().unwrap();
//! # let response = tiny_http::Response::from_file(File::open(&Path::new("image.png")).unwrap());
//! let _ = request.respond(response);
//! ```
#![forbid(unsafe_code)]
#![deny(rust_2018_idioms)]
#![allow(clippy::match_like_matches_macro)]

#[cfg(any(feature = "ssl-openssl", feature = "ssl-rustls"))]
use zeroize::Zeroizing;

use std::error::Error;
use std::io::Error as IoError;
use std::io::ErrorKind as IoErrorKind;
use std::io::Result as IoResult;
use std::net::{Shutdown, TcpStream, ToSocketAddrs};
use std::sync::atomic::Ordering::Relaxed;
use std::sync::atomic::{AtomicBool, AtomicUsize};
use std::sync::mpsc;
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use client::ClientConnection;
use connection::Connection;
use util::MessagesQueue;

pub use common::{HTTPVersion, Header, HeaderField, Method, StatusCode};
pub use connection::{ConfigListenAddr, ListenAddr, Listener};
pub use request::{ReadWrite, Request};
pub use response::{HeaderLines, Response, ResponseBox};
pub use test::TestRequest;
// keyhook patch: exported, so that a user knows which requests are not drained (and end
// their connection).
pub use util::DRAIN_LIMIT;
// keyhook patch: what a failed body read reports.
pub use util::{body_error, BodyError, MAX_CHUNK_LINE};

mod client;
mod common;
mod connection;
mod request;
mod response;
mod ssl;
mod test;
mod util;

/// keyhook patch: what `Server::from_listener_with_handler` calls for every request.
pub type Handler = Arc<dyn Fn(Request) + Send + Sync>;

/// keyhook patch: the read timeout `from_listener` (and so `new`, `http`...) sets on every
/// accepted socket.
pub const DEFAULT_READ_TIMEOUT: Duration = Duration::from_secs(30);

/// keyhook patch: how long `from_listener` (and so `new`, `http`...) gives a client for a
/// whole request head.
pub const DEFAULT_HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// keyhook patch: how many connections `from_listener` (and so `new`, `http`...) serves at
/// once.
pub const DEFAULT_MAX_CONNECTIONS: usize = 1024;

/// keyhook patch: how many of those connections `from_listener` (and so `new`, `http`...)
/// serves at once from one client address (an IPv6 address counts by its /64 prefix).
pub const DEFAULT_MAX_CONNECTIONS_PER_ADDRESS: usize = 128;

// keyhook patch: the limits on a request head (over one: 431).
pub use client::{MAX_HEADERS, MAX_HEADERS_SIZE, MAX_HEADER_LINE, MAX_REQUEST_LINE};

/// keyhook patch: the limits `Server::from_listener_with_options` applies to connections.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnectionOptions {
    /// The read timeout of every accepted socket (`None`: none, as upstream): a client that
    /// sends nothing for this long between requests, or in a body, is disconnected.
    pub read_timeout: Option<Duration>,
    /// How long a whole request head may take: from accept for a connection's first request,
    /// from its first byte for the next ones (`None`: no limit, as upstream). Over it: 408
    /// (if any of the head arrived) and the connection is closed.
    pub header_timeout: Option<Duration>,
    /// The most connections served at once (`None`: no limit, as upstream). A connection
    /// over it is answered 503 at once and closed.
    pub max_connections: Option<usize>,
    /// The most connections served at once from one client address, an IPv6 address
    /// counted by its /64 prefix (`None`: no limit, as upstream). A connection over it is
    /// answered 503 at once and closed, so that one address holding idle or trickling
    /// connections cannot take all of `max_connections`. Unix-socket clients have no
    /// address and are not counted.
    pub max_connections_per_address: Option<usize>,
}

impl Default for ConnectionOptions {
    fn default() -> Self {
        ConnectionOptions {
            read_timeout: Some(DEFAULT_READ_TIMEOUT),
            header_timeout: Some(DEFAULT_HEADER_TIMEOUT),
            max_connections: Some(DEFAULT_MAX_CONNECTIONS),
            max_connections_per_address: Some(DEFAULT_MAX_CONNECTIONS_PER_ADDRESS),
        }
    }
}

/// The main class of this library.
///
/// Destroying this object will immediately close the listening socket and the reading
///  part of all the client's connections. Requests that have already been returned by
///  the `recv()` function will not close and the responses will be transferred to the client.
pub struct Server {
    // should be false as long as the server exists
    // when set to true, all the subtasks will close within a few hundreds ms
    close: Arc<AtomicBool>,

    // queue for messages received by child threads
    messages: Arc<MessagesQueue<Message>>,

    // result of TcpListener::local_addr()
    listening_addr: ListenAddr,
}

enum Message {
    Error(IoError),
    NewRequest(Request),
}

impl From<IoError> for Message {
    fn from(e: IoError) -> Message {
        Message::Error(e)
    }
}

impl From<Request> for Message {
    fn from(rq: Request) -> Message {
        Message::NewRequest(rq)
    }
}

// this trait is to make sure that Server implements Share and Send
#[doc(hidden)]
trait MustBeShareDummy: Sync + Send {}
#[doc(hidden)]
impl MustBeShareDummy for Server {}

pub struct IncomingRequests<'a> {
    server: &'a Server,
}

/// Represents the parameters required to create a server.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// The addresses to try to listen to.
    pub addr: ConfigListenAddr,

    /// If `Some`, then the server will use SSL to encode the communications.
    pub ssl: Option<SslConfig>,
}

/// Configuration of the server for SSL.
#[derive(Debug, Clone)]
pub struct SslConfig {
    /// Contains the public certificate to send to clients.
    pub certificate: Vec<u8>,
    /// Contains the ultra-secret private key used to decode communications.
    pub private_key: Vec<u8>,
}

impl Server {
    /// Shortcut for a simple server on a specific address.
    #[inline]
    pub fn http<A>(addr: A) -> Result<Server, Box<dyn Error + Send + Sync + 'static>>
    where
        A: ToSocketAddrs,
    {
        Server::new(ServerConfig {
            addr: ConfigListenAddr::from_socket_addrs(addr)?,
            ssl: None,
        })
    }

    /// Shortcut for an HTTPS server on a specific address.
    #[cfg(any(feature = "ssl-openssl", feature = "ssl-rustls"))]
    #[inline]
    pub fn https<A>(
        addr: A,
        config: SslConfig,
    ) -> Result<Server, Box<dyn Error + Send + Sync + 'static>>
    where
        A: ToSocketAddrs,
    {
        Server::new(ServerConfig {
            addr: ConfigListenAddr::from_socket_addrs(addr)?,
            ssl: Some(config),
        })
    }

    #[cfg(unix)]
    #[inline]
    /// Shortcut for a UNIX socket server at a specific path
    pub fn http_unix(
        path: &std::path::Path,
    ) -> Result<Server, Box<dyn Error + Send + Sync + 'static>> {
        Server::new(ServerConfig {
            addr: ConfigListenAddr::unix_from_path(path),
            ssl: None,
        })
    }

    /// Builds a new server that listens on the specified address.
    pub fn new(config: ServerConfig) -> Result<Server, Box<dyn Error + Send + Sync + 'static>> {
        let listener = config.addr.bind()?;
        Self::from_listener(listener, config.ssl)
    }

    /// Builds a new server using the specified TCP listener.
    ///
    /// This is useful if you've constructed TcpListener using some less usual method
    /// such as from systemd. For other cases, you probably want the `new()` function.
    pub fn from_listener<L: Into<Listener>>(
        listener: L,
        ssl_config: Option<SslConfig>,
    ) -> Result<Server, Box<dyn Error + Send + Sync + 'static>> {
        // keyhook patch: accepted sockets get DEFAULT_READ_TIMEOUT (upstream: none).
        Self::from_listener_with_timeout(listener, ssl_config, Some(DEFAULT_READ_TIMEOUT))
    }

    /// keyhook patch: `from_listener`, with the read timeout set on every accepted socket
    /// (`None`: no timeout, as upstream). A client that sends nothing for that long between
    /// requests or within a head is disconnected (after a 408 where the platform reports the
    /// timeout as `TimedOut`; Unix reports `WouldBlock`); a body read fails with that error.
    pub fn from_listener_with_timeout<L: Into<Listener>>(
        listener: L,
        ssl_config: Option<SslConfig>,
        read_timeout: Option<Duration>,
    ) -> Result<Server, Box<dyn Error + Send + Sync + 'static>> {
        Self::from_listener_with_handler(listener, ssl_config, read_timeout, None)
    }

    /// keyhook patch: with a `handler`, each request is handled on its connection's thread
    /// as soon as it is read, instead of being queued for `recv` (one thread switch less per
    /// request); `recv` then only reports accept errors.
    pub fn from_listener_with_handler<L: Into<Listener>>(
        listener: L,
        ssl_config: Option<SslConfig>,
        read_timeout: Option<Duration>,
        handler: Option<Handler>,
    ) -> Result<Server, Box<dyn Error + Send + Sync + 'static>> {
        let options = ConnectionOptions {
            read_timeout,
            ..ConnectionOptions::default()
        };
        Self::from_listener_with_options(listener, ssl_config, options, handler)
    }

    /// keyhook patch: `from_listener_with_handler`, with all the limits of `options`.
    pub fn from_listener_with_options<L: Into<Listener>>(
        listener: L,
        ssl_config: Option<SslConfig>,
        options: ConnectionOptions,
        handler: Option<Handler>,
    ) -> Result<Server, Box<dyn Error + Send + Sync + 'static>> {
        let read_timeout = options.read_timeout;
        if read_timeout == Some(Duration::ZERO) {
            return Err("the read timeout must be greater than zero".into());
        }
        if options.header_timeout == Some(Duration::ZERO) {
            return Err("the header timeout must be greater than zero".into());
        }
        if options.max_connections == Some(0) {
            return Err("the connection limit must be at least 1".into());
        }
        if options.max_connections_per_address == Some(0) {
            return Err("the connection limit per address must be at least 1".into());
        }
        let head_options = client::HeadOptions {
            read_timeout,
            header_timeout: options.header_timeout,
        };
        // keyhook patch: the connections being served, against `max_connections`.
        let live = Arc::new(AtomicUsize::new(0));
        // keyhook patch: the connections being served per client address.
        let per_address = Arc::new(PerAddress::default());
        let listener = listener.into();
        // building the "close" variable
        let close_trigger = Arc::new(AtomicBool::new(false));

        // building the TcpListener
        let (server, local_addr) = {
            let local_addr = listener.local_addr()?;
            log::debug!("Server listening on {}", local_addr);
            (listener, local_addr)
        };

        // building the SSL capabilities
        #[cfg(all(feature = "ssl-openssl", feature = "ssl-rustls"))]
        compile_error!(
            "Features 'ssl-openssl' and 'ssl-rustls' must not be enabled at the same time"
        );
        #[cfg(not(any(feature = "ssl-openssl", feature = "ssl-rustls")))]
        type SslContext = ();
        #[cfg(any(feature = "ssl-openssl", feature = "ssl-rustls"))]
        type SslContext = crate::ssl::SslContextImpl;
        let ssl: Option<SslContext> = {
            match ssl_config {
                #[cfg(any(feature = "ssl-openssl", feature = "ssl-rustls"))]
                Some(config) => Some(SslContext::from_pem(
                    config.certificate,
                    Zeroizing::new(config.private_key),
                )?),
                #[cfg(not(any(feature = "ssl-openssl", feature = "ssl-rustls")))]
                Some(_) => return Err(
                    "Building a server with SSL requires enabling the `ssl` feature in tiny-http"
                        .into(),
                ),
                None => None,
            }
        };

        // creating a task where server.accept() is continuously called
        // and ClientConnection objects are pushed in the messages queue
        let messages = MessagesQueue::with_capacity(8);

        let inside_close_trigger = close_trigger.clone();
        let inside_messages = messages.clone();
        // keyhook patch: connections over a limit are answered and closed by a thread of
        // their own, so that the accept thread only accepts and hands them over.
        let refuser = Refuser::spawn();
        thread::spawn(move || {
            // a tasks pool is used to dispatch the connections into threads
            let tasks_pool = util::TaskPool::new();

            log::debug!("Running accept thread");
            while !inside_close_trigger.load(Relaxed) {
                let new_client = match server.accept() {
                    // keyhook patch: over the connection limit, a 503 and close, at once.
                    Ok((sock, _))
                        if options
                            .max_connections
                            .is_some_and(|max| live.load(Relaxed) >= max) =>
                    {
                        refuser.refuse(sock);
                        continue;
                    }
                    Ok((sock, peer)) => {
                        // keyhook patch: one address may hold at most
                        // `max_connections_per_address` of the connections.
                        let slot = match (options.max_connections_per_address, peer) {
                            (Some(max), Some(peer)) => match per_address.take(peer.ip(), max) {
                                Some(slot) => Some(slot),
                                None => {
                                    refuser.refuse(sock);
                                    continue;
                                }
                            },
                            _ => None,
                        };
                        // keyhook patch: a read timeout, so that an idle or stalled client
                        // cannot hold its connection thread forever. Setting it only fails for
                        // a socket that is already unusable; reads on it will fail anyway.
                        let _ = match &sock {
                            Connection::Tcp(s) => s.set_read_timeout(read_timeout),
                            #[cfg(unix)]
                            Connection::Unix(s) => s.set_read_timeout(read_timeout),
                        };
                        use util::RefinedTcpStream;
                        // keyhook patch: `RefinedTcpStream::new` returns a `Result`; an error
                        // is handled as an accept() error.
                        let streams = match ssl {
                            None => RefinedTcpStream::new(sock),
                            #[cfg(any(feature = "ssl-openssl", feature = "ssl-rustls"))]
                            Some(ref ssl) => {
                                // trying to apply SSL over the connection
                                // if an error occurs, we just close the socket and resume listening
                                let sock = match ssl.accept(sock) {
                                    Ok(s) => s,
                                    Err(_) => continue,
                                };

                                RefinedTcpStream::new(sock)
                            }
                            #[cfg(not(any(feature = "ssl-openssl", feature = "ssl-rustls")))]
                            Some(ref _ssl) => unreachable!(),
                        };

                        streams.map(|(read_closable, write_closable)| {
                            (
                                ClientConnection::new(write_closable, read_closable, head_options),
                                slot,
                            )
                        })
                    }
                    Err(e) => Err(e),
                };

                match new_client {
                    Ok((client, slot)) => {
                        let messages = inside_messages.clone();
                        let mut client = Some(client);
                        let handler = handler.clone();
                        let live = LiveConnection::new(&live);
                        let mut live = Some((live, slot));
                        tasks_pool.spawn(Box::new(move || {
                            let _live = live.take();
                            let Some(client) = client.take() else { return };
                            if let Some(handler) = &handler {
                                for rq in client {
                                    handler(rq);
                                }
                                return;
                            }
                            {
                                // Synchronization is needed for HTTPS requests to avoid a deadlock
                                if client.secure() {
                                    let (sender, receiver) = mpsc::channel();
                                    for rq in client {
                                        messages.push(rq.with_notify_sender(sender.clone()).into());
                                        receiver.recv().unwrap();
                                    }
                                } else {
                                    for rq in client {
                                        messages.push(rq.into());
                                    }
                                }
                            }
                        }));
                    }

                    Err(e) => {
                        log::error!("Error accepting new client: {}", e);
                        inside_messages.push(e.into());
                        // keyhook patch: keep accepting (upstream: `break`, after which the
                        // server never accepts again). Errors such as EMFILE pass; the loop
                        // condition still ends it when the server is closing.
                        thread::sleep(Duration::from_millis(50));
                    }
                }
            }
            log::debug!("Terminating accept thread");
        });

        // result
        Ok(Server {
            messages,
            close: close_trigger,
            listening_addr: local_addr,
        })
    }

    /// Returns an iterator for all the incoming requests.
    ///
    /// The iterator will return `None` if the server socket is shutdown.
    #[inline]
    pub fn incoming_requests(&self) -> IncomingRequests<'_> {
        IncomingRequests { server: self }
    }

    /// Returns the address the server is listening to.
    #[inline]
    pub fn server_addr(&self) -> ListenAddr {
        self.listening_addr.clone()
    }

    /// Returns the number of clients currently connected to the server.
    pub fn num_connections(&self) -> usize {
        unimplemented!()
        //self.requests_receiver.lock().len()
    }

    /// Blocks until an HTTP request has been submitted and returns it.
    pub fn recv(&self) -> IoResult<Request> {
        match self.messages.pop() {
            Some(Message::Error(err)) => Err(err),
            Some(Message::NewRequest(rq)) => Ok(rq),
            None => Err(IoError::new(IoErrorKind::Other, "thread unblocked")),
        }
    }

    /// Same as `recv()` but doesn't block longer than timeout
    pub fn recv_timeout(&self, timeout: Duration) -> IoResult<Option<Request>> {
        match self.messages.pop_timeout(timeout) {
            Some(Message::Error(err)) => Err(err),
            Some(Message::NewRequest(rq)) => Ok(Some(rq)),
            None => Ok(None),
        }
    }

    /// Same as `recv()` but doesn't block.
    pub fn try_recv(&self) -> IoResult<Option<Request>> {
        match self.messages.try_pop() {
            Some(Message::Error(err)) => Err(err),
            Some(Message::NewRequest(rq)) => Ok(Some(rq)),
            None => Ok(None),
        }
    }

    /// Unblock thread stuck in recv() or incoming_requests().
    /// If there are several such threads, only one is unblocked.
    /// This method allows graceful shutdown of server.
    pub fn unblock(&self) {
        self.messages.unblock();
    }
}

/// keyhook patch: counts a connection from accept until its thread is done with it.
struct LiveConnection(Arc<AtomicUsize>);

impl LiveConnection {
    fn new(count: &Arc<AtomicUsize>) -> LiveConnection {
        count.fetch_add(1, Relaxed);
        LiveConnection(Arc::clone(count))
    }
}

impl Drop for LiveConnection {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Relaxed);
    }
}

/// keyhook patch: the connections being served per client address (an IPv6 address by its
/// /64 prefix, an IPv4-mapped IPv6 address as the IPv4 address). The lock is taken on accept
/// and when a connection ends, never per request.
#[derive(Default)]
struct PerAddress(std::sync::Mutex<std::collections::HashMap<std::net::IpAddr, usize>>);

impl PerAddress {
    /// The client's key: the address, or an IPv6 address's /64 prefix (one host usually has
    /// a whole /64 to pick addresses from).
    fn key(ip: std::net::IpAddr) -> std::net::IpAddr {
        match ip.to_canonical() {
            std::net::IpAddr::V6(v6) => std::net::IpAddr::V6(std::net::Ipv6Addr::from(
                u128::from(v6) & !((1u128 << 64) - 1),
            )),
            v4 => v4,
        }
    }

    /// A slot for one more connection from `ip`, or `None` when it already holds `max`.
    fn take(self: &Arc<Self>, ip: std::net::IpAddr, max: usize) -> Option<AddressSlot> {
        let key = Self::key(ip);
        let mut map = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let count = map.entry(key).or_insert(0);
        if *count >= max {
            return None;
        }
        *count += 1;
        Some(AddressSlot(Arc::clone(self), key))
    }
}

/// keyhook patch: one connection counted against its address until it is dropped.
struct AddressSlot(Arc<PerAddress>, std::net::IpAddr);

impl Drop for AddressSlot {
    fn drop(&mut self) {
        let mut map = (self.0).0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(count) = map.get_mut(&self.1) {
            *count -= 1;
            if *count == 0 {
                map.remove(&self.1);
            }
        }
    }
}

/// keyhook patch: how many refused connections may wait for the refusing thread; past that
/// one is closed at once without a reply (the accept thread never waits for it).
const REFUSE_QUEUE: usize = 4096;

/// keyhook patch: the thread that answers connections over a limit with a 503 envelope and
/// closes them. The accept thread only hands each over (a channel send): answering on the
/// accept thread kept every other client's new connection waiting in the listen queue
/// behind the bursts of one address that reconnects after each refusal (bench/hostile.sh
/// (c): ~1,900 a second, p99 71 ms for another address).
struct Refuser(mpsc::SyncSender<Connection>);

impl Refuser {
    fn spawn() -> Refuser {
        let (tx, rx) = mpsc::sync_channel::<Connection>(REFUSE_QUEUE);
        thread::spawn(move || {
            let mut reply = RefusalReply::default();
            for sock in rx {
                refuse(sock, reply.bytes());
            }
        });
        Refuser(tx)
    }

    /// Hands `sock` to the refusing thread; when its queue is full (or it is gone), the
    /// connection is closed here, without a reply.
    fn refuse(&self, sock: Connection) {
        if let Err(e) = self.0.try_send(sock) {
            let sock = match e {
                mpsc::TrySendError::Full(s) | mpsc::TrySendError::Disconnected(s) => s,
            };
            let _ = sock.shutdown(Shutdown::Both);
        }
    }
}

/// keyhook patch: the 503 envelope's bytes, made again only when the second of its `Date`
/// header has passed.
#[derive(Default)]
struct RefusalReply {
    second: u64,
    bytes: Vec<u8>,
}

impl RefusalReply {
    fn bytes(&mut self) -> &[u8] {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        if self.bytes.is_empty() || now != self.second {
            let response = client::error_response(
                503,
                "SERVICE_UNAVAILABLE",
                "too many connections; try again later",
            )
            .with_header(Header::from_bytes(&b"Retry-After"[..], &b"1"[..]).unwrap())
            .with_connection_close();
            self.bytes.clear();
            if response
                .raw_print(&mut self.bytes, HTTPVersion(1, 1), &[], false, None)
                .is_err()
            {
                self.bytes.clear();
            }
            self.second = now;
        }
        &self.bytes
    }
}

/// keyhook patch: answers a connection over the limit with `reply` (the 503 envelope) and
/// closes it, without blocking: the socket is non-blocking, the response is written with one
/// `write` (a new socket's send buffer has room for it), the sending side is shut (so the
/// response is followed by a FIN, not lost to a reset), and whatever request bytes have
/// already arrived are read and dropped before the socket is closed.
fn refuse(mut sock: Connection, reply: &[u8]) {
    use std::io::{Read, Write};
    if reply.is_empty() {
        return;
    }
    let nonblocking = match &sock {
        Connection::Tcp(s) => s.set_nonblocking(true),
        #[cfg(unix)]
        Connection::Unix(s) => s.set_nonblocking(true),
    };
    if nonblocking.is_err() {
        return;
    }
    let _ = sock.write(reply);
    let _ = sock.shutdown(Shutdown::Write);
    let mut buf = [0u8; 4096];
    for _ in 0..16 {
        match sock.read(&mut buf) {
            Ok(n) if n > 0 => continue,
            _ => break,
        }
    }
}

impl Iterator for IncomingRequests<'_> {
    type Item = Request;
    fn next(&mut self) -> Option<Request> {
        self.server.recv().ok()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.close.store(true, Relaxed);
        // Connect briefly to ourselves to unblock the accept thread
        let maybe_stream = match &self.listening_addr {
            ListenAddr::IP(addr) => TcpStream::connect(addr).map(Connection::from),
            #[cfg(unix)]
            ListenAddr::Unix(addr) => {
                // TODO: use connect_addr when its stabilized.
                let path = addr.as_pathname().unwrap();
                std::os::unix::net::UnixStream::connect(path).map(Connection::from)
            }
        };
        if let Ok(stream) = maybe_stream {
            let _ = stream.shutdown(Shutdown::Both);
        }

        #[cfg(unix)]
        if let ListenAddr::Unix(addr) = &self.listening_addr {
            if let Some(path) = addr.as_pathname() {
                let _ = std::fs::remove_file(path);
            }
        }
    }
}

#[cfg(test)]
mod refuser_tests {
    use super::{Connection, Refuser};
    use std::io::Read;
    use std::net::{TcpListener, TcpStream};
    use std::sync::mpsc;

    /// A client and the server's side of its connection, on loopback.
    fn pair() -> (TcpStream, Connection) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (server, _) = listener.accept().unwrap();
        (client, Connection::from(server))
    }

    fn read_all(mut client: TcpStream) -> String {
        client
            .set_read_timeout(Some(std::time::Duration::from_secs(10)))
            .unwrap();
        let mut text = String::new();
        client.read_to_string(&mut text).unwrap();
        text
    }

    /// The refusing thread answers a connection handed to it with the 503 envelope, then
    /// closes it; several in a row, each with the whole answer.
    #[test]
    fn a_refused_connection_gets_the_503_envelope_from_the_refusing_thread() {
        let refuser = Refuser::spawn();
        for _ in 0..3 {
            let (client, server) = pair();
            refuser.refuse(server);
            let text = read_all(client);
            assert!(text.starts_with("HTTP/1.1 503 "), "{text}");
            assert!(text.contains("Retry-After: 1\r\n"), "{text}");
            assert!(text.contains("Connection: close\r\n"), "{text}");
            let body = "{\"error\":{\"code\":\"SERVICE_UNAVAILABLE\",\"message\":\
                        \"too many connections; try again later\",\"details\":[]}}";
            assert!(text.ends_with(body), "{text}");
        }
    }

    /// When the refusing thread's queue is full, the accept thread does not wait for room:
    /// the connection is closed at once, without a reply.
    #[test]
    fn a_connection_past_a_full_refusal_queue_is_closed_without_a_reply() {
        // A queue without room and nobody taking from it.
        let (tx, _rx) = mpsc::sync_channel(0);
        let refuser = Refuser(tx);
        let (client, server) = pair();
        refuser.refuse(server);
        assert_eq!(read_all(client), "");
    }
}
