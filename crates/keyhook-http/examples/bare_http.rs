//! The serve benchmark's ceiling (bench/serve.sh): the vendored tiny_http with keyhook's
//! listener and connection options, and a handler that answers every request with the bytes
//! of one file and the headers keyhook sends with a JSON body. No database, no
//! authentication, no metrics, no log line: what is left is the HTTP layer's own cost.
//! A benchmark tool, not part of the keyhook binary.
//!
//!   cargo build --release -p keyhook-http --example bare_http
//!   target/release/examples/bare_http 127.0.0.1:8788 body.json

use std::io::Cursor;
use std::sync::Arc;
use std::time::Duration;

use tiny_http::{Header, Response, StatusCode};

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(bind), Some(file)) = (args.next(), args.next()) else {
        eprintln!("usage: bare_http ADDRESS BODY_FILE");
        std::process::exit(2);
    };
    let body: Arc<[u8]> = std::fs::read(&file)
        .unwrap_or_else(|e| {
            eprintln!("bare_http: cannot read {file}: {e}");
            std::process::exit(1);
        })
        .into();
    let listener = keyhook_http::listen(&bind).unwrap_or_else(|e| {
        eprintln!("bare_http: {e}");
        std::process::exit(1);
    });
    let addr = listener
        .local_addr()
        .expect("a bound listener has an address");
    let header =
        |n: &str, v: &str| Header::from_bytes(n.as_bytes(), v.as_bytes()).expect("valid header");
    let handler: tiny_http::Handler = Arc::new(move |rq| {
        let headers = vec![
            header("Content-Type", "application/json"),
            header("Cache-Control", "no-store"),
        ];
        let response = Response::new(
            StatusCode(200),
            headers,
            Cursor::new(Arc::clone(&body)),
            Some(body.len()),
            None,
        );
        let _ = rq.respond(response);
    });
    // `serve`'s defaults: --read-timeout 30s, --header-timeout 10s, --max-connections 1024,
    // --max-connections-per-address 128.
    let options = tiny_http::ConnectionOptions {
        read_timeout: Some(Duration::from_secs(30)),
        header_timeout: Some(Duration::from_secs(10)),
        max_connections: Some(1024),
        max_connections_per_address: Some(128),
    };
    let server =
        tiny_http::Server::from_listener_with_options(listener, None, options, Some(handler))
            .unwrap_or_else(|e| {
                eprintln!("bare_http: cannot serve on {bind}: {e}");
                std::process::exit(1);
            });
    eprintln!("bare_http listening on http://{addr}");
    loop {
        // With a handler, the queue carries only accept() failures.
        if let Err(e) = server.recv() {
            eprintln!("bare_http: cannot accept a connection: {e}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}
