//! The serve benchmark's floor (bench/serve.sh): the least a server can do and still answer
//! wrk's requests with the bytes `bare_http` sends, in the same model (a thread for each
//! connection, blocking reads and writes, `TCP_NODELAY`), without an HTTP layer: it finds the
//! end of each request head and writes one response prepared at start (its `Date` a fixed
//! one, of the length every HTTP date has: the same bytes on the wire). No parsing, no
//! limits, no deadlines: not a server for anything but loopback benchmarks. What it measures
//! is the machine's: the rate and the tail (p99) that the kernel's loopback TCP, thread
//! wake-ups and the load generator sharing the cores leave to any server of this model, the
//! figure keyhook's and the bare layer's tails are read against. A benchmark tool, not part
//! of the keyhook binary.
//!
//!   cargo build --release -p keyhook-http --example floor_http
//!   target/release/examples/floor_http 127.0.0.1:8789 body.json

use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::sync::Arc;

/// A request head longer than this ends its connection (wrk's are about 150 bytes).
const HEAD_MAX: usize = 16 * 1024;

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(bind), Some(file)) = (args.next(), args.next()) else {
        eprintln!("usage: floor_http ADDRESS BODY_FILE");
        std::process::exit(2);
    };
    let body = std::fs::read(&file).unwrap_or_else(|e| {
        eprintln!("floor_http: cannot read {file}: {e}");
        std::process::exit(1);
    });
    // serve's listener, as the bare layer's: its options (TCP_NODELAY among them) are the
    // accepted sockets'.
    let listener = keyhook_http::listen(&bind).unwrap_or_else(|e| {
        eprintln!("floor_http: {e}");
        std::process::exit(1);
    });
    let mut response = format!(
        "HTTP/1.1 200 OK\r\nDate: Thu, 01 Jan 2026 00:00:00 GMT\r\nContent-Type: application/json\r\n\
         Cache-Control: no-store\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    response.extend_from_slice(&body);
    let response: Arc<[u8]> = response.into();
    let addr = listener
        .local_addr()
        .expect("a bound listener has an address");
    eprintln!("floor_http listening on http://{addr}");
    for stream in listener.incoming() {
        match stream {
            Ok(stream) => {
                let response = Arc::clone(&response);
                std::thread::spawn(move || answer(stream, &response));
            }
            Err(e) => eprintln!("floor_http: cannot accept a connection: {e}"),
        }
    }
}

/// Answers each request head read from `stream` with `response`, pipelined ones included,
/// until the client closes or an error.
fn answer(mut stream: TcpStream, response: &[u8]) {
    let mut buf = vec![0; HEAD_MAX];
    let mut filled = 0;
    loop {
        let n = match stream.read(&mut buf[filled..]) {
            Ok(0) => return,
            Ok(n) => n,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(_) => return,
        };
        // A head's end may straddle two reads: look from 3 bytes before the new ones.
        let mut start = filled.saturating_sub(3);
        filled += n;
        let mut done = 0;
        while let Some(end) = head_end(&buf[start..filled]) {
            if stream.write_all(response).is_err() {
                return;
            }
            done = start + end;
            start = done;
        }
        buf.copy_within(done..filled, 0);
        filled -= done;
        if filled == buf.len() {
            return;
        }
    }
}

/// The length of the first request head in `bytes` (up to and including its blank line).
fn head_end(bytes: &[u8]) -> Option<usize> {
    bytes
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map(|i| i + 4)
}
