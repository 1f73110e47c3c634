//! A webhook receiver for the integration tests: a real HTTP/1.1 server on 127.0.0.1 (std
//! `TcpListener`, a thread per connection, keep-alive) that records every request it reads
//! and answers according to the path:
//!
//! | path           | answer                                                  |
//! |----------------|---------------------------------------------------------|
//! | `/ok`          | 200 OK                                                  |
//! | `/ok/...`      | 200 OK (per-event paths: `listen --forward-to .../ok/{event}`) |
//! | `/fail`        | 500 Internal Server Error                               |
//! | `/redirect`    | 302 Found, `Location: /ok`                              |
//! | `/slow`        | 200 OK after 2 s                                        |
//! | `/retry-after` | 503 Service Unavailable, `Retry-After: 1`               |
//! | `/busy`        | 429 Too Many Requests, `Retry-After: 60`                |
//! | `/busy-plain`  | 429 Too Many Requests, no `Retry-After`                 |
//! | `/delay`       | 200 OK after [`Receiver::set_delay`] (0 at first)       |
//! | `/switch`      | the status of [`Receiver::set_status`] (200 at first)   |
//! | `/hold`        | 200 OK once [`Receiver::release`] is called             |
//! | anything else  | 404 Not Found                                           |
//!
//! The query string does not change the answer, so `/ok?a` and `/ok?b` tell webhooks apart.
//! It never connects anywhere itself.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU16, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

/// How long the slow path takes to answer.
pub const SLOW: Duration = Duration::from_secs(2);

/// One request as the receiver read it.
#[derive(Debug, Clone)]
pub struct Request {
    pub method: String,
    /// The request target as sent: path and query.
    pub target: String,
    /// Header names in lower case, in the order received.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// When the whole request had been read.
    pub at: Instant,
}

impl Request {
    pub fn path(&self) -> &str {
        self.target.split('?').next().unwrap_or("")
    }

    /// The value of header `name` (case-insensitive); fails the test if it is missing or
    /// repeated.
    /// The signatures of `webhook-signature`, in order.
    pub fn signatures(&self) -> Vec<String> {
        self.header("webhook-signature")
            .split(' ')
            .map(String::from)
            .collect()
    }

    pub fn header(&self, name: &str) -> &str {
        let values: Vec<&str> = self
            .headers
            .iter()
            .filter(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
            .collect();
        assert_eq!(values.len(), 1, "header {name} of {self:?}");
        values[0]
    }

    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("the delivered body is not JSON ({e}): {self:?}"))
    }
}

#[derive(Default)]
struct Shared {
    requests: Mutex<Vec<Request>>,
    arrived: Condvar,
    connections: AtomicUsize,
    stop: AtomicBool,
    delay_ms: AtomicU64,
    status: AtomicU16,
    released: Mutex<bool>,
    release: Condvar,
}

pub struct Receiver {
    pub port: u16,
    shared: Arc<Shared>,
}

impl Receiver {
    pub fn start() -> Receiver {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind the receiver");
        let port = listener.local_addr().unwrap().port();
        let shared = Arc::new(Shared::default());
        shared.status.store(200, Ordering::SeqCst);
        let s = Arc::clone(&shared);
        thread::spawn(move || {
            for stream in listener.incoming() {
                if s.stop.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                s.connections.fetch_add(1, Ordering::SeqCst);
                let s = Arc::clone(&s);
                thread::spawn(move || serve_connection(stream, &s));
            }
        });
        Receiver { port, shared }
    }

    /// `http://127.0.0.1:PORT{path}`.
    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    /// Every request so far, in the order they were read.
    pub fn requests(&self) -> Vec<Request> {
        self.shared.requests.lock().unwrap().clone()
    }

    /// The requests so far whose target (path and query) is exactly `target`.
    pub fn requests_to(&self, target: &str) -> Vec<Request> {
        self.requests()
            .into_iter()
            .filter(|r| r.target == target)
            .collect()
    }

    /// TCP connections accepted so far.
    pub fn connections(&self) -> usize {
        self.shared.connections.load(Ordering::SeqCst)
    }

    /// Waits until at least `n` requests have arrived and returns them all; fails the test
    /// after `patience`.
    pub fn wait_for(&self, n: usize, patience: Duration) -> Vec<Request> {
        let deadline = Instant::now() + patience;
        let mut requests = self.shared.requests.lock().unwrap();
        while requests.len() < n {
            let left = deadline.saturating_duration_since(Instant::now());
            assert!(
                !left.is_zero(),
                "expected {n} requests at the receiver within {patience:?}, got {}: {:#?}",
                requests.len(),
                *requests
            );
            requests = self.shared.arrived.wait_timeout(requests, left).unwrap().0;
        }
        requests.clone()
    }

    /// How long `/delay` waits before answering 200.
    pub fn set_delay(&self, delay: Duration) {
        self.shared
            .delay_ms
            .store(delay.as_millis() as u64, Ordering::SeqCst);
    }

    /// Lets every `/hold` request, waiting or to come, have its answer.
    pub fn release(&self) {
        *self.shared.released.lock().unwrap() = true;
        self.shared.release.notify_all();
    }

    /// The status `/switch` answers with.
    pub fn set_status(&self, status: u16) {
        self.shared.status.store(status, Ordering::SeqCst);
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop so that it sees the flag and closes the listener.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

fn serve_connection(stream: TcpStream, shared: &Shared) {
    let Ok(read_half) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(read_half);
    let mut writer = stream;
    while let Some(request) = read_request(&mut reader) {
        let target = request.target.clone();
        {
            let mut all = shared.requests.lock().unwrap();
            all.push(request);
            shared.arrived.notify_all();
        }
        let path = target.split('?').next().unwrap_or("");
        let (status, extra): (u16, &[(&str, &str)]) = match path {
            "/ok" => (200, &[]),
            p if p.starts_with("/ok/") => (200, &[]),
            "/fail" => (500, &[]),
            "/redirect" => (302, &[("Location", "/ok")]),
            "/slow" => {
                answer_after(shared, SLOW);
                (200, &[])
            }
            "/retry-after" => (503, &[("Retry-After", "1")]),
            "/busy" => (429, &[("Retry-After", "60")]),
            "/busy-plain" => (429, &[]),
            "/delay" => {
                let ms = shared.delay_ms.load(Ordering::SeqCst);
                answer_after(shared, Duration::from_millis(ms));
                (200, &[])
            }
            "/switch" => (shared.status.load(Ordering::SeqCst), &[]),
            "/hold" => {
                let mut released = shared.released.lock().unwrap();
                while !*released && !shared.stop.load(Ordering::SeqCst) {
                    released = shared
                        .release
                        .wait_timeout(released, Duration::from_millis(100))
                        .unwrap()
                        .0;
                }
                (200, &[])
            }
            _ => (404, &[]),
        };
        let body = format!("answer {status} from the test receiver");
        let mut head = format!("HTTP/1.1 {status} {}\r\n", reason(status));
        for (k, v) in extra {
            head.push_str(&format!("{k}: {v}\r\n"));
        }
        head.push_str(&format!(
            "Content-Type: text/plain\r\nContent-Length: {}\r\n\r\n",
            body.len()
        ));
        let sent = writer
            .write_all(head.as_bytes())
            .and_then(|()| writer.write_all(body.as_bytes()))
            .and_then(|()| writer.flush());
        if sent.is_err() || shared.stop.load(Ordering::SeqCst) {
            break;
        }
    }
    let _ = writer.shutdown(Shutdown::Both);
}

/// Reads one request (request line, headers, `Content-Length` body); None at the end of the
/// connection or on anything malformed.
fn read_request(reader: &mut BufReader<TcpStream>) -> Option<Request> {
    let mut line = String::new();
    if reader.read_line(&mut line).ok()? == 0 {
        return None;
    }
    let mut parts = line.trim_end().split(' ');
    let method = parts.next()?.to_string();
    let target = parts.next()?.to_string();
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).ok()? == 0 {
            return None;
        }
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        let (k, v) = h.split_once(':')?;
        headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
    }
    let len = headers
        .iter()
        .find(|(k, _)| k == "content-length")
        .map_or(Some(0), |(_, v)| v.parse::<usize>().ok())?;
    let mut body = vec![0; len];
    reader.read_exact(&mut body).ok()?;
    Some(Request {
        method,
        target,
        headers,
        body,
        at: Instant::now(),
    })
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        204 => "No Content",
        302 => "Found",
        410 => "Gone",
        429 => "Too Many Requests",
        404 => "Not Found",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        _ => "Whatever",
    }
}

/// Holds an answer back for `delay`, as a slow receiver would, or until the receiver stops.
fn answer_after(shared: &Shared, delay: Duration) {
    let deadline = Instant::now() + delay;
    let mut released = shared.released.lock().unwrap();
    while !shared.stop.load(Ordering::SeqCst) {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            break;
        }
        released = shared
            .release
            .wait_timeout(released, left.min(Duration::from_millis(100)))
            .unwrap()
            .0;
    }
}

/// Whether a Standard Webhooks verifier holding `secret` accepts the request.
pub fn verifies(secret: &str, r: &Request) -> bool {
    verifies_with(secret, r, r.header("webhook-signature"))
}

/// As [`verifies`], with `signature` in place of the request's `webhook-signature`.
pub fn verifies_with(secret: &str, r: &Request, signature: &str) -> bool {
    let mut headers = http::HeaderMap::new();
    for (name, value) in [
        ("webhook-id", r.header("webhook-id")),
        ("webhook-timestamp", r.header("webhook-timestamp")),
        ("webhook-signature", signature),
    ] {
        headers.insert(name, value.parse().unwrap());
    }
    standardwebhooks::Webhook::new(secret)
        .expect("a whsec_ secret")
        .verify(&r.body, &headers)
        .is_ok()
}
