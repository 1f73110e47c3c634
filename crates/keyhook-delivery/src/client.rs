//! The delivery HTTP client: one signed `POST` per call, a total timeout, no redirects, at most
//! 64 KiB of a response read, and a plain-words outcome for network failures.
//!
//! Target safety lives in the agent's resolver. ureq 2 sends every new
//! connection's `host:port` (IP literals included) through `Resolver::resolve` and connects
//! to exactly the addresses it returns, so vetting them there means the address checked is
//! the address connected to: DNS rebinding cannot slip a private address in between. Pooled
//! keep-alive connections were vetted when they were opened. No proxy is ever used.

use std::error::Error as _;
use std::fmt;
use std::io::{self, Read};
use std::net::{SocketAddr, ToSocketAddrs};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use chrono::{DateTime, NaiveDateTime, Utc};

use keyhook_core::guard::is_forbidden;
use keyhook_core::sign::sign_all;
use keyhook_core::time::Clock;
use keyhook_core::transport::{Attempt, Transport};

/// At most this much of a response body is read.
const MAX_RESPONSE_READ: u64 = 64 * 1024;
/// The part of the response body kept in the attempt log.
const EXCERPT_BYTES: usize = 1024;
/// `Retry-After` is honoured up to a day.
use keyhook_core::service::webhooks::flow::MAX_RETRY_AFTER_MS;
/// A reason phrase or error description longer than this is cut.
const MAX_STATUS_TEXT: usize = 200;

const BLOCKED: &str = "blocked: private address";

pub struct ClientConfig {
    /// Total time for one attempt: DNS, connect, sending, and reading the response.
    pub timeout: Duration,
    /// Deliver to loopback, private, link-local... addresses too (tests, trusted networks).
    pub allow_private: bool,
    /// The time a `Retry-After` date is measured from; the outbox worker's time too.
    pub clock: Clock,
}

/// An attempt that got no HTTP response.
fn failed(status_text: impl Into<String>, start: Instant) -> Attempt {
    Attempt {
        delivered: false,
        status_code: 0,
        status_text: status_text.into(),
        duration_ms: elapsed_ms(start),
        response_excerpt: String::new(),
        retry_after_ms: None,
    }
}

/// The shared delivery client: a keep-alive connection pool, cheap to clone across threads.
#[derive(Clone)]
pub struct Sender {
    agent: ureq::Agent,
    clock: Clock,
}

impl Sender {
    pub fn new(cfg: &ClientConfig) -> Sender {
        let agent = ureq::AgentBuilder::new()
            .redirects(0)
            .timeout(cfg.timeout)
            // Without this the connect phase alone may take ureq's default 30 s.
            .timeout_connect(cfg.timeout)
            .user_agent(&format!("keyhook/{}", env!("CARGO_PKG_VERSION")))
            .try_proxy_from_env(false)
            .max_idle_connections(256)
            .max_idle_connections_per_host(32)
            .resolver(GuardedResolver {
                allow_private: cfg.allow_private,
                timeout: cfg.timeout,
            })
            .build();
        Sender {
            agent,
            clock: cfg.clock.clone(),
        }
    }

    /// POSTs `body` to `url` signed with each of `secrets` per Standard Webhooks, never
    /// panics.
    pub fn send(
        &self,
        url: &str,
        secrets: &[&str],
        msg_id: &str,
        body: &[u8],
        timestamp: i64,
    ) -> Attempt {
        self.send_with_headers(url, secrets, &[], msg_id, body, timestamp)
            .0
    }

    /// [`Sender::send`] with the webhook's static headers `extra` (CONTRACT §15), also
    /// returning keyhook's own headers the request carried (`keyhook listen` prints them;
    /// never `extra`, whose values are secrets); none when it was not sent.
    pub fn send_with_headers(
        &self,
        url: &str,
        secrets: &[&str],
        extra: &[(String, String)],
        msg_id: &str,
        body: &[u8],
        timestamp: i64,
    ) -> (Attempt, Vec<(String, String)>) {
        self.send_within(url, secrets, extra, msg_id, body, timestamp, None)
    }

    /// [`Sender::send_with_headers`] with the webhook's own total timeout (CONTRACT §15)
    /// instead of the client's, when it has one. The connect phase keeps the client's bound
    /// as well (a longer timeout is for a slow answer, not a slow connection).
    #[allow(clippy::too_many_arguments)]
    pub fn send_within(
        &self,
        url: &str,
        secrets: &[&str],
        extra: &[(String, String)],
        msg_id: &str,
        body: &[u8],
        timestamp: i64,
        timeout: Option<Duration>,
    ) -> (Attempt, Vec<(String, String)>) {
        let start = Instant::now();
        if !is_header_value(msg_id) {
            return (failed("invalid message id", start), Vec::new());
        }
        let signature = match sign_all(secrets, msg_id, timestamp, body) {
            Ok(s) => s,
            Err(e) => return (failed(e.to_string(), start), Vec::new()),
        };
        let headers: Vec<(String, String)> = [
            ("webhook-id", msg_id.to_string()),
            ("webhook-timestamp", timestamp.to_string()),
            ("webhook-signature", signature),
            ("content-type", "application/json".to_string()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        let mut request = self.agent.request("POST", url);
        if let Some(t) = timeout {
            request = request.timeout(t);
        }
        for (name, value) in extra {
            request = request.set(name, value);
        }
        for (name, value) in &headers {
            request = request.set(name, value);
        }
        // The URL is parsed once, by ureq: one that is not http(s) with a host is a transport
        // error of its own kind, and nothing was sent.
        let attempt = match request.send_bytes(body) {
            Ok(resp) | Err(ureq::Error::Status(_, resp)) => from_response(resp, start, &self.clock),
            Err(ureq::Error::Transport(t)) => {
                let unsent = matches!(
                    t.kind(),
                    ureq::ErrorKind::InvalidUrl | ureq::ErrorKind::UnknownScheme
                );
                let attempt = failed(describe_transport(&t), start);
                if unsent {
                    return (attempt, Vec::new());
                }
                attempt
            }
        };
        (attempt, headers)
    }
}

impl Transport for Sender {
    fn send(
        &self,
        url: &str,
        secrets: &[&str],
        msg_id: &str,
        body: &[u8],
        timestamp: i64,
    ) -> Attempt {
        Sender::send(self, url, secrets, msg_id, body, timestamp)
    }

    fn send_with(
        &self,
        url: &str,
        secrets: &[&str],
        headers: &[(String, String)],
        msg_id: &str,
        body: &[u8],
        timestamp: i64,
    ) -> Attempt {
        self.send_with_headers(url, secrets, headers, msg_id, body, timestamp)
            .0
    }
}

fn from_response(resp: ureq::Response, start: Instant, clock: &Clock) -> Attempt {
    let status_code = resp.status();
    let status_text = match resp.status_text().trim() {
        "" => canonical_reason(status_code).to_string(),
        text => truncate(text, MAX_STATUS_TEXT),
    };
    let retry_after_ms = resp
        .header("retry-after")
        .and_then(|v| parse_retry_after(v, clock.now().to_datetime()));
    let mut buf = Vec::new();
    // A body that fails or times out half way keeps what arrived; the status line decides.
    let _ = resp
        .into_reader()
        .take(MAX_RESPONSE_READ)
        .read_to_end(&mut buf);
    buf.truncate(EXCERPT_BYTES);
    Attempt {
        delivered: (200..300).contains(&status_code),
        status_code,
        status_text,
        duration_ms: elapsed_ms(start),
        response_excerpt: String::from_utf8_lossy(&buf).into_owned(),
        retry_after_ms,
    }
}

fn elapsed_ms(start: Instant) -> i64 {
    i64::try_from(start.elapsed().as_millis()).unwrap_or(i64::MAX)
}

/// Visible ASCII and tabs only: anything else would be refused by ureq or split the header.
fn is_header_value(s: &str) -> bool {
    s.bytes().all(|b| b == b'\t' || (0x20..0x7f).contains(&b))
}

fn truncate(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_string();
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s[..end].to_string()
}

/// `Retry-After` as delta-seconds or an HTTP-date, in milliseconds from `now`, clamped to
/// [0, 24 h]. Unparseable values are ignored.
fn parse_retry_after(value: &str, now: DateTime<Utc>) -> Option<i64> {
    let value = value.trim();
    if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) {
        let ms = value
            .parse::<u64>()
            .map(|secs| secs.saturating_mul(1000))
            .unwrap_or(u64::MAX);
        return Some(
            i64::try_from(ms)
                .unwrap_or(i64::MAX)
                .min(MAX_RETRY_AFTER_MS),
        );
    }
    let at = DateTime::parse_from_rfc2822(value)
        .map(|d| d.with_timezone(&Utc))
        .or_else(|_| {
            // The two obsolete HTTP-date forms: RFC 850 and asctime.
            NaiveDateTime::parse_from_str(value, "%A, %d-%b-%y %H:%M:%S GMT")
                .or_else(|_| NaiveDateTime::parse_from_str(value, "%a %b %e %H:%M:%S %Y"))
                .map(|n| n.and_utc())
        })
        .ok()?;
    Some((at - now).num_milliseconds().clamp(0, MAX_RETRY_AFTER_MS))
}

/// What went wrong when there was no HTTP response, in a few plain words. Never includes the
/// URL (it may carry tokens) or anything from the request.
fn describe_transport(t: &ureq::Transport) -> String {
    use ureq::ErrorKind as K;
    let io_err = t.source().and_then(|s| s.downcast_ref::<io::Error>());
    if io_err
        .and_then(|e| e.get_ref())
        .is_some_and(|inner| inner.is::<BlockedTarget>())
    {
        return BLOCKED.to_string();
    }
    let io_kind = io_err.map(io::Error::kind);
    let timed_out = matches!(
        io_kind,
        Some(io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock)
    );
    match t.kind() {
        K::InvalidUrl | K::UnknownScheme => "invalid url".to_string(),
        K::Dns if timed_out => "timed out".to_string(),
        K::Dns => "dns lookup failed".to_string(),
        K::BadStatus | K::BadHeader => "invalid response".to_string(),
        K::ConnectionFailed if t.message() == Some("tls connection init failed") && !timed_out => {
            let detail = io_err.map(|e| e.to_string()).unwrap_or_default();
            truncate(&format!("tls error: {detail}"), MAX_STATUS_TEXT)
        }
        _ => match io_kind {
            Some(k) => describe_io_kind(k).to_string(),
            None => "request failed".to_string(),
        },
    }
}

fn describe_io_kind(kind: io::ErrorKind) -> &'static str {
    use io::ErrorKind as K;
    match kind {
        K::ConnectionRefused => "connection refused",
        K::TimedOut | K::WouldBlock => "timed out",
        K::ConnectionReset | K::BrokenPipe => "connection reset",
        K::ConnectionAborted => "connection aborted",
        K::UnexpectedEof => "connection closed",
        K::HostUnreachable => "host unreachable",
        K::NetworkUnreachable => "network unreachable",
        K::AddrNotAvailable => "address not available",
        K::InvalidData | K::InvalidInput => "invalid response",
        _ => "connection failed",
    }
}

fn canonical_reason(code: u16) -> &'static str {
    match code {
        200 => "OK",
        201 => "Created",
        202 => "Accepted",
        204 => "No Content",
        301 => "Moved Permanently",
        302 => "Found",
        303 => "See Other",
        307 => "Temporary Redirect",
        308 => "Permanent Redirect",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        410 => "Gone",
        413 => "Content Too Large",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => "",
    }
}

/// The io::Error payload a refused address travels in through ureq (which wraps resolver
/// errors as `ErrorKind::Dns` with the io::Error as source), recognised by type, not text.
#[derive(Debug)]
struct BlockedTarget;

impl fmt::Display for BlockedTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(BLOCKED)
    }
}

impl std::error::Error for BlockedTarget {}

/// Resolves `host:port` and, unless private targets are allowed, refuses the whole target if
/// any of its addresses is forbidden (a name that resolves to both a public and a private
/// address is refused rather than half-trusted).
struct GuardedResolver {
    allow_private: bool,
    timeout: Duration,
}

impl ureq::Resolver for GuardedResolver {
    fn resolve(&self, netloc: &str) -> io::Result<Vec<SocketAddr>> {
        let addrs = lookup(netloc, self.timeout)?;
        if !self.allow_private && addrs.iter().any(|a| is_forbidden(a.ip())) {
            return Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                BlockedTarget,
            ));
        }
        Ok(addrs)
    }
}

/// `ToSocketAddrs` with a deadline: ureq applies none to DNS, and a stuck resolver must not
/// hold a delivery thread past the attempt's total timeout. IP literals need no lookup.
fn lookup(netloc: &str, timeout: Duration) -> io::Result<Vec<SocketAddr>> {
    if let Ok(addr) = netloc.parse::<SocketAddr>() {
        return Ok(vec![addr]);
    }
    let (tx, rx) = mpsc::channel();
    let owned = netloc.to_string();
    let spawned = thread::Builder::new()
        .name("keyhook-dns".into())
        .spawn(move || {
            let _ = tx.send(owned.to_socket_addrs().map(Iterator::collect));
        });
    match spawned {
        Ok(_) => match rx.recv_timeout(timeout) {
            Ok(result) => result,
            Err(_) => Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "dns lookup timed out",
            )),
        },
        // No thread to spare: resolve inline rather than fail.
        Err(_) => netloc.to_socket_addrs().map(Iterator::collect),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use keyhook_core::sign::generate_secret;
    use std::collections::HashMap;
    use std::io::{BufRead, BufReader, Write};
    use std::net::{TcpListener, TcpStream};

    const TS: i64 = 1_700_000_000;
    const BODY: &[u8] = br#"{"id":"evt_1","event":"post.published","data":{}}"#;

    /// One request as the receiver saw it.
    struct Received {
        request_line: String,
        headers: HashMap<String, String>,
        body: Vec<u8>,
    }

    fn read_request(stream: &mut TcpStream) -> Received {
        let mut reader = BufReader::new(stream.try_clone().unwrap());
        let mut request_line = String::new();
        reader.read_line(&mut request_line).unwrap();
        let mut headers = HashMap::new();
        loop {
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            let (name, value) = line.split_once(':').unwrap();
            headers.insert(name.trim().to_ascii_lowercase(), value.trim().to_string());
        }
        let len: usize = headers
            .get("content-length")
            .map(|v| v.parse().unwrap())
            .unwrap_or(0);
        let mut body = vec![0; len];
        reader.read_exact(&mut body).unwrap();
        Received {
            request_line: request_line.trim_end().to_string(),
            headers,
            body,
        }
    }

    /// A receiver on 127.0.0.1 that takes one connection, hands the request to the test and
    /// answers with `respond`.
    fn receiver(
        respond: impl FnOnce(&mut TcpStream) + Send + 'static,
    ) -> (u16, mpsc::Receiver<Received>) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let (tx, rx) = mpsc::channel();
        thread::spawn(move || {
            let (mut stream, _) = listener.accept().unwrap();
            let req = read_request(&mut stream);
            let _ = tx.send(req);
            respond(&mut stream);
        });
        (port, rx)
    }

    /// Waits until the peer closes the connection (or resets it), reading and dropping what
    /// it sends: a receiver that stalls for as long as the sender waits.
    fn until_closed(s: &mut TcpStream) {
        let _ = std::io::copy(s, &mut std::io::sink());
    }

    fn answer(raw: &'static [u8]) -> impl FnOnce(&mut TcpStream) + Send + 'static {
        move |s: &mut TcpStream| {
            let _ = s.write_all(raw);
            let _ = s.flush();
        }
    }

    fn sender(timeout_ms: u64) -> Sender {
        Sender::new(&ClientConfig {
            timeout: Duration::from_millis(timeout_ms),
            allow_private: true,
            clock: Clock::system(),
        })
    }

    /// A signed POST with a fresh secret to the receiver on `port`, with a 5 s timeout.
    fn post_to(port: u16) -> Attempt {
        sender(5000).send(
            &format!("http://127.0.0.1:{port}/"),
            &[&generate_secret()],
            "evt_1",
            BODY,
            TS,
        )
    }

    fn received(rx: &mpsc::Receiver<Received>) -> Received {
        rx.recv_timeout(Duration::from_secs(5))
            .expect("the receiver got the request")
    }

    #[test]
    fn delivered_on_200_with_signed_standard_webhooks_headers() {
        let (port, rx) = receiver(answer(
            b"HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\nhello there",
        ));
        let secret = generate_secret();
        let a = sender(5000).send(
            &format!("http://127.0.0.1:{port}/hooks/in?x=1"),
            &[&secret],
            "evt_abc",
            BODY,
            TS,
        );
        assert_eq!(
            a,
            Attempt {
                delivered: true,
                status_code: 200,
                status_text: "OK".into(),
                duration_ms: a.duration_ms,
                response_excerpt: "hello there".into(),
                retry_after_ms: None,
            }
        );
        assert!(a.duration_ms >= 0 && a.duration_ms < 5000);

        let req = received(&rx);
        assert_eq!(req.request_line, "POST /hooks/in?x=1 HTTP/1.1");
        assert_eq!(req.body, BODY);
        let h = &req.headers;
        assert_eq!(h["webhook-id"], "evt_abc");
        assert_eq!(h["webhook-timestamp"], TS.to_string());
        assert_eq!(h["content-type"], "application/json");
        assert_eq!(
            h["user-agent"],
            format!("keyhook/{}", env!("CARGO_PKG_VERSION"))
        );
        assert_eq!(
            h["webhook-signature"],
            // `sign` itself is checked against an independent HMAC in keyhook-core.
            keyhook_core::sign::sign(&secret, "evt_abc", TS, &req.body).unwrap()
        );
    }

    #[test]
    fn status_500_is_a_failure_with_reason_and_excerpt() {
        let (port, rx) = receiver(answer(
            b"HTTP/1.1 500 Internal Server Error\r\nContent-Length: 4\r\n\r\noops",
        ));
        let a = post_to(port);
        received(&rx);
        assert!(!a.delivered);
        assert_eq!(a.status_code, 500);
        assert_eq!(a.status_text, "Internal Server Error");
        assert_eq!(a.response_excerpt, "oops");
        assert_eq!(a.retry_after_ms, None);
    }

    #[test]
    fn redirect_is_not_followed() {
        let target = TcpListener::bind("127.0.0.1:0").unwrap();
        target.set_nonblocking(true).unwrap();
        let target_port = target.local_addr().unwrap().port();
        let raw = format!(
            "HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:{target_port}/elsewhere\r\n\
             Content-Length: 0\r\n\r\n"
        );
        let (port, rx) = receiver(move |s| {
            let _ = s.write_all(raw.as_bytes());
        });
        let a = post_to(port);
        received(&rx);
        assert!(!a.delivered);
        assert_eq!(a.status_code, 302);
        assert_eq!(a.status_text, "Found");
        assert_eq!(
            target.accept().unwrap_err().kind(),
            io::ErrorKind::WouldBlock,
            "the redirect target must not be contacted"
        );
    }

    #[test]
    fn retry_after_is_reported() {
        let (port, rx) = receiver(answer(
            b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 7\r\nContent-Length: 0\r\n\r\n",
        ));
        let a = post_to(port);
        received(&rx);
        assert!(!a.delivered);
        assert_eq!(a.status_code, 503);
        assert_eq!(a.status_text, "Service Unavailable");
        assert_eq!(a.retry_after_ms, Some(7000));
        assert_eq!(a.response_excerpt, "");
    }

    #[test]
    fn a_retry_after_date_is_measured_from_the_senders_clock() {
        let (port, rx) = receiver(answer(
            b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: Wed, 21 Oct 2015 07:28:30 GMT\r\nContent-Length: 0\r\n\r\n",
        ));
        let at = keyhook_core::time::Timestamp::parse_rfc3339("2015-10-21T07:28:00Z").unwrap();
        let s = Sender::new(&ClientConfig {
            timeout: Duration::from_secs(5),
            allow_private: true,
            clock: keyhook_core::time::ManualClock::new(at).clock(),
        });
        let a = s.send(
            &format!("http://127.0.0.1:{port}/"),
            &[&generate_secret()],
            "evt_1",
            BODY,
            TS,
        );
        received(&rx);
        assert_eq!(a.retry_after_ms, Some(30_000));
    }

    #[test]
    fn slow_receiver_times_out() {
        // The receiver answers only once the sender has given up and closed the connection.
        let (port, rx) = receiver(|s| {
            until_closed(s);
            let _ = s.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
        });
        let a = sender(300).send(
            &format!("http://127.0.0.1:{port}/"),
            &[&generate_secret()],
            "evt_1",
            BODY,
            TS,
        );
        received(&rx);
        assert!(!a.delivered);
        assert_eq!(a.status_code, 0);
        assert_eq!(a.status_text, "timed out");
        assert!(
            a.duration_ms >= 250 && a.duration_ms < 1200,
            "{}",
            a.duration_ms
        );
    }

    #[test]
    fn refused_connection() {
        let port = {
            let l = TcpListener::bind("127.0.0.1:0").unwrap();
            l.local_addr().unwrap().port()
        };
        let a = sender(2000).send(
            &format!("http://127.0.0.1:{port}/"),
            &[&generate_secret()],
            "evt_1",
            BODY,
            TS,
        );
        assert!(!a.delivered);
        assert_eq!(a.status_code, 0);
        assert_eq!(a.status_text, "connection refused");
        assert_eq!(a.response_excerpt, "");
    }

    #[test]
    fn large_body_is_read_only_up_to_64_kib() {
        // 200 KiB announced; the receiver sends 64 KiB and then stalls until the sender
        // closes the connection. Reading past 64 KiB would block until the 5 s timeout.
        let (port, rx) = receiver(|s| {
            let total = 200 * 1024;
            let _ = write!(s, "HTTP/1.1 200 OK\r\nContent-Length: {total}\r\n\r\n");
            let chunk = vec![b'a'; 64 * 1024];
            let _ = s.write_all(&chunk);
            let _ = s.flush();
            until_closed(s);
            let _ = s.write_all(&vec![b'b'; total - chunk.len()]);
        });
        let a = post_to(port);
        received(&rx);
        assert!(a.delivered, "{a:?}");
        assert_eq!(a.status_code, 200);
        assert_eq!(a.response_excerpt, "a".repeat(1024));
        assert!(a.duration_ms < 3000, "{}", a.duration_ms);
    }

    #[test]
    fn full_200_kib_body_is_delivered_with_a_1_kib_excerpt() {
        let (port, rx) = receiver(|s| {
            let total = 200 * 1024;
            let _ = write!(s, "HTTP/1.1 200 OK\r\nContent-Length: {total}\r\n\r\n");
            let _ = s.write_all(&vec![b'z'; total]);
        });
        let a = post_to(port);
        received(&rx);
        assert!(a.delivered, "{a:?}");
        assert_eq!(a.response_excerpt, "z".repeat(1024));
    }

    #[test]
    fn keep_alive_connection_is_reused() {
        two_deliveries(false);
    }

    /// A kept-alive connection the receiver has closed since is noticed before it is reused
    /// (ureq's peek, `vendor/ureq/PATCHES.md` c): the next delivery goes on a new connection.
    #[test]
    fn a_pooled_connection_the_receiver_closed_is_not_reused() {
        two_deliveries(true);
    }

    /// Two deliveries to a receiver answering 204 No Content that keeps the connection (both
    /// on one: it accepts one) or, with `close`, closes it after each answer without a
    /// `Connection: close` (the sender's pool still holds it). An answer is reported once the
    /// receiver is done with it (on loopback its close has then reached the sender's socket).
    fn two_deliveries(close: bool) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let (tx, rx) = mpsc::channel();
        thread::spawn(move || {
            let mut kept = None;
            for _ in 0..2 {
                let mut stream = match kept.take() {
                    Some(stream) => stream,
                    None => listener.accept().unwrap().0,
                };
                let req = read_request(&mut stream);
                let _ = stream.write_all(b"HTTP/1.1 204 No Content\r\n\r\n");
                if close {
                    drop(stream);
                } else {
                    kept = Some(stream);
                }
                let _ = tx.send(req);
            }
        });
        let s = sender(5000);
        let url = format!("http://127.0.0.1:{port}/");
        let secret = generate_secret();
        for id in ["evt_1", "evt_2"] {
            let a = s.clone().send(&url, &[&secret], id, BODY, TS);
            assert!(a.delivered, "{id}: {a:?}");
            assert_eq!(a.status_text, "No Content");
            assert_eq!(received(&rx).headers["webhook-id"], id);
        }
    }

    /// A request reusing a kept-alive connection is bounded by its total timeout while it
    /// writes, too: a receiver that answered the first request and then reads nothing of a
    /// large second one (the socket's buffers fill) ends the attempt in "timed out" (ureq
    /// wrote a reused connection's request with no timeout at all; `vendor/ureq/PATCHES.md` c).
    #[test]
    fn a_reused_connection_is_bounded_by_the_timeout_while_writing() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let (tx, rx) = mpsc::channel();
        let (end_tx, end_rx) = mpsc::channel::<()>();
        thread::spawn(move || {
            let (mut stream, _) = listener.accept().unwrap();
            let req = read_request(&mut stream);
            let _ = stream.write_all(b"HTTP/1.1 204 No Content\r\n\r\n");
            let _ = tx.send(req);
            // Holds the connection open, reading nothing more, until the test ends.
            let _ = end_rx.recv_timeout(Duration::from_secs(10));
            drop(stream);
        });
        let s = sender(500);
        let url = format!("http://127.0.0.1:{port}/");
        let secret = generate_secret();
        let a = s.clone().send(&url, &[&secret], "evt_1", BODY, TS);
        assert!(a.delivered, "{a:?}");
        received(&rx);
        let big = vec![b'x'; 64 << 20];
        let started = std::time::Instant::now();
        let a = s.clone().send(&url, &[&secret], "evt_2", &big, TS);
        let took = started.elapsed();
        assert!(!a.delivered, "{:?}", a.status_text);
        assert_eq!(a.status_text, "timed out");
        assert!(took < Duration::from_secs(3), "{took:?}");
        let _ = end_tx.send(());
    }

    fn assert_blocked_without_connection(host: &str) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        let guarded = Sender::new(&ClientConfig {
            timeout: Duration::from_secs(2),
            allow_private: false,
            clock: Clock::system(),
        });
        let a = guarded.send(
            &format!("http://{host}:{port}/"),
            &[&generate_secret()],
            "evt_1",
            BODY,
            TS,
        );
        assert!(!a.delivered);
        assert_eq!(a.status_code, 0);
        assert_eq!(a.status_text, BLOCKED, "{host}");
        assert_eq!(
            listener.accept().unwrap_err().kind(),
            io::ErrorKind::WouldBlock,
            "{host}: the receiver must get no connection"
        );
    }

    #[test]
    fn private_ip_literal_is_blocked_before_connecting() {
        assert_blocked_without_connection("127.0.0.1");
    }

    #[test]
    fn name_resolving_to_loopback_is_blocked_before_connecting() {
        assert_blocked_without_connection("localhost");
    }

    #[test]
    fn blocked_ipv6_and_metadata_literals() {
        let guarded = Sender::new(&ClientConfig {
            timeout: Duration::from_secs(2),
            allow_private: false,
            clock: Clock::system(),
        });
        for url in [
            "http://[::1]:9/",
            "http://[::ffff:127.0.0.1]:9/",
            "http://169.254.169.254/latest/meta-data/",
            "http://0.0.0.0:9/",
        ] {
            let a = guarded.send(url, &[&generate_secret()], "evt_1", BODY, TS);
            assert_eq!(a.status_text, BLOCKED, "{url}");
            assert_eq!(a.status_code, 0);
        }
    }

    #[test]
    fn bad_input_never_panics() {
        let s = sender(500);
        let secret = generate_secret();
        for url in [
            "",
            "not a url",
            "ftp://127.0.0.1/",
            "http://",
            "file:///etc/passwd",
        ] {
            let (a, headers) = s.send_with_headers(url, &[&secret], &[], "evt_1", BODY, TS);
            assert_eq!(a.status_text, "invalid url", "{url:?}");
            assert!(!a.delivered);
            assert_eq!(a.status_code, 0);
            assert_eq!(headers, [], "nothing was sent to {url:?}");
        }
        let a = s.send("http://127.0.0.1:9/", &["whsec_%%%"], "evt_1", BODY, TS);
        assert_eq!(a.status_text, "webhook secret is malformed");
        let a = s.send("http://127.0.0.1:9/", &[&secret], "evt\r\nx: y", BODY, TS);
        assert_eq!(a.status_text, "invalid message id");
    }

    #[test]
    fn garbage_response_is_invalid_response() {
        let (port, rx) = receiver(answer(b"SSH-2.0-OpenSSH_9.6\r\n\r\n"));
        let a = sender(2000).send(
            &format!("http://127.0.0.1:{port}/"),
            &[&generate_secret()],
            "evt_1",
            BODY,
            TS,
        );
        received(&rx);
        assert_eq!(a.status_code, 0);
        assert_eq!(a.status_text, "invalid response");
    }

    #[test]
    fn https_to_a_plain_http_server_is_a_tls_error() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        thread::spawn(move || {
            let (mut s, _) = listener.accept().unwrap();
            let _ = s.write_all(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n");
            until_closed(&mut s);
        });
        let a = sender(2000).send(
            &format!("https://127.0.0.1:{port}/"),
            &[&generate_secret()],
            "evt_1",
            BODY,
            TS,
        );
        assert!(!a.delivered);
        assert_eq!(a.status_code, 0);
        assert!(
            a.status_text.starts_with("tls error: "),
            "{}",
            a.status_text
        );
    }

    #[test]
    fn retry_after_parsing() {
        let now = DateTime::parse_from_rfc3339("2015-10-21T07:28:00Z")
            .unwrap()
            .with_timezone(&Utc);
        assert_eq!(parse_retry_after("7", now), Some(7_000));
        assert_eq!(parse_retry_after(" 0 ", now), Some(0));
        assert_eq!(
            parse_retry_after("999999999999999999999", now),
            Some(MAX_RETRY_AFTER_MS)
        );
        assert_eq!(parse_retry_after("90000", now), Some(MAX_RETRY_AFTER_MS));
        assert_eq!(
            parse_retry_after("Wed, 21 Oct 2015 07:28:30 GMT", now),
            Some(30_000)
        );
        assert_eq!(
            parse_retry_after("Wednesday, 21-Oct-15 07:29:00 GMT", now),
            Some(60_000)
        );
        assert_eq!(
            parse_retry_after("Wed Oct 21 07:28:05 2015", now),
            Some(5_000)
        );
        assert_eq!(
            parse_retry_after("Tue, 20 Oct 2015 07:28:00 GMT", now),
            Some(0)
        );
        assert_eq!(
            parse_retry_after("Fri, 30 Oct 2015 07:28:00 GMT", now),
            Some(MAX_RETRY_AFTER_MS)
        );
        assert_eq!(parse_retry_after("-5", now), None);
        assert_eq!(parse_retry_after("soon", now), None);
        assert_eq!(parse_retry_after("", now), None);
    }
}
