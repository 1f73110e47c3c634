//! What the raw-socket tests of `keyhook serve` share (`http_protocol`, `http_target`,
//! `http_body`): a server with an admin key, the error envelope, a connection the server must
//! close, and a client that sends without end.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::{self, JoinHandle};
use std::time::Duration;

use serde_json::Value;

use crate::common::{str_of, Env};
use crate::server::{read_response, RawResp, Server, PATIENCE};

/// A server with one admin key (made with the CLI); returns the key.
pub fn serve(args: &[&str]) -> (Env, Server, String) {
    let env = Env::new();
    let key = str_of(&env.create_key("admin", &[]), "key").to_string();
    let s = Server::start_with(&env, args);
    (env, s, key)
}

/// `r` is an error envelope with `status` and `code` (and no details), sent as
/// `application/json`; returns its `error` object.
pub fn assert_envelope(r: &RawResp, status: u16, code: &str) -> Value {
    assert_eq!(r.status, status, "{r:?}");
    assert_eq!(
        r.header("Content-Type"),
        Some("application/json"),
        "content type of {r:?}"
    );
    let v = r.json();
    let keys: Vec<&String> = v.as_object().expect("an object").keys().collect();
    assert_eq!(keys, ["error"], "{v}");
    assert_eq!(v["error"]["code"], code, "{v}");
    assert!(v["error"]["message"].is_string(), "{v}");
    assert_eq!(v["error"]["details"], serde_json::json!([]), "{v}");
    v["error"].clone()
}

/// The server closes `s` (EOF or reset) within [`PATIENCE`], sending nothing more.
pub fn assert_closed(s: &mut TcpStream) {
    let mut buf = [0u8; 1024];
    let mut extra = Vec::new();
    loop {
        match s.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => extra.extend_from_slice(&buf[..n]),
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                panic!("the connection is still open after {PATIENCE:?}")
            }
            Err(_) => break, // reset
        }
        assert!(extra.len() < 1 << 20, "the server keeps sending");
    }
    assert!(
        extra.is_empty(),
        "more after the response: {:?}",
        String::from_utf8_lossy(&extra)
    );
}

/// Sends `bytes` on a new connection: the answer must be the envelope `status`/`code` with
/// `Connection: close`, and the connection must then be closed. Returns the `error`.
pub fn refused(s: &Server, bytes: &[u8], status: u16, code: &str) -> Value {
    let mut c = s.connect();
    let _ = c.write_all(bytes);
    let r = read_response(&mut c)
        .unwrap_or_else(|| panic!("no answer to {:?}", String::from_utf8_lossy(bytes)));
    let err = assert_envelope(&r, status, code);
    assert_eq!(r.header("Connection"), Some("close"), "{r:?}");
    assert_closed(&mut c);
    err
}

/// The names of the keys `key` lists: what a request created, or did not.
pub fn key_names(s: &Server, key: &str) -> Vec<String> {
    let r = s.get("/api/v1/api-keys", key);
    assert_eq!(r.status, 200, "{r:?}");
    r.data()
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["name"].as_str().unwrap().to_string())
        .collect()
}

/// Sends `head`, then `filler` bytes without end (up to 64 MiB), on a new connection: the
/// answer must be the envelope `status`/`code` with `Connection: close` while the client is
/// still sending (the server read only a bounded part), and the connection is then closed.
/// Returns the answer.
pub fn refused_while_sending(
    s: &Server,
    head: &'static [u8],
    filler: u8,
    status: u16,
    code: &str,
) -> RawResp {
    let mut c = s.connect();
    let writer = Endless::start(&c, head, filler);
    let r = read_response(&mut c).expect("an answer while the client is still sending");
    assert_envelope(&r, status, code);
    assert_eq!(r.header("Connection"), Some("close"), "{r:?}");
    let (sent, finished) = writer.stop();
    assert!(
        !finished,
        "the client sent all {sent} bytes before the answer"
    );
    assert_closed(&mut c);
    r
}

/// A client writing `head`, then 64 MiB of one byte, 64 KiB at a time, on a clone of a
/// connection.
struct Endless {
    done: Arc<AtomicBool>,
    writer: JoinHandle<(usize, bool)>,
}

impl Endless {
    fn start(c: &TcpStream, head: &'static [u8], filler: u8) -> Endless {
        let mut w = c.try_clone().unwrap();
        let done = Arc::new(AtomicBool::new(false));
        let writer = {
            let done = Arc::clone(&done);
            thread::spawn(move || {
                let total: usize = 64 << 20;
                let mut sent = 0;
                if w.write_all(head).is_err() {
                    return (sent, false);
                }
                let chunk = vec![filler; 64 * 1024];
                while sent < total && !done.load(Ordering::Relaxed) {
                    match w.write(&chunk) {
                        Ok(n) => sent += n,
                        Err(_) => return (sent, false),
                    }
                }
                (sent, sent >= total)
            })
        };
        Endless { done, writer }
    }

    /// Stops sending; returns how much was sent and whether all 64 MiB were.
    fn stop(self) -> (usize, bool) {
        self.done.store(true, Ordering::Relaxed);
        self.writer.join().unwrap()
    }
}

/// Writes `bytes` one at a time, `every` apart, until done or the connection fails.
pub fn dribble(mut c: TcpStream, bytes: Vec<u8>, every: Duration) -> JoinHandle<()> {
    thread::spawn(move || {
        for b in bytes {
            if c.write_all(&[b]).is_err() {
                return;
            }
            thread::sleep(every);
        }
    })
}
