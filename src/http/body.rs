//! Request bodies: media type, size limit and strict JSON.

use std::io::{ErrorKind, Read};

use serde_json::Value;
use tiny_http::Request;

use super::reply::{self, Reply};
use crate::error::Error;

/// The largest request body accepted.
pub const MAX_BODY: usize = 64 * 1024;
/// tiny_http reads bodies up to this size itself, before the request reaches a worker.
const PREREAD: usize = 1024;

fn header<'a>(rq: &'a Request, name: &'static str) -> Option<&'a str> {
    rq.headers()
        .iter()
        .find(|h| h.field.equiv(name))
        .map(|h| h.value.as_str())
}

/// Whether handling the request cannot wait on the client, which makes it safe to handle on
/// a worker: the whole body is already in memory (or there is none), or the declared body is
/// larger than [`MAX_BODY`] and than what tiny_http drains, so that it is refused from
/// `Content-Length` alone, no byte of it is ever read, and tiny_http closes the connection
/// after the answer.
pub fn needs_no_read(rq: &Request) -> bool {
    let chunked = header(rq, "Transfer-Encoding").is_some();
    let expects_continue = header(rq, "Expect").is_some();
    match rq.body_length() {
        Some(0) => true,
        Some(n) if n > MAX_BODY.max(tiny_http::DRAIN_LIMIT) => true,
        Some(n) => n <= PREREAD && !expects_continue,
        None => !chunked,
    }
}

fn declares_body(rq: &Request) -> bool {
    rq.body_length().is_some_and(|n| n > 0) || header(rq, "Transfer-Encoding").is_some()
}

/// The JSON body of a request to an endpoint that takes one: 415 for another media type,
/// 413 over [`MAX_BODY`] (refused from `Content-Length` alone, before reading), 400 for
/// anything that is not a JSON document.
pub fn json(rq: &mut Request) -> Result<Value, Reply> {
    let has_body = declares_body(rq);
    match header(rq, "Content-Type") {
        Some(ct) if is_json(ct) => {}
        Some(ct) => {
            return Err(reply::unsupported_media_type(&format!(
                "Content-Type must be application/json, not {}",
                printable(ct)
            )))
        }
        None if has_body => {
            return Err(reply::unsupported_media_type(
                "Content-Type must be application/json",
            ))
        }
        None => {}
    }
    if rq.body_length().is_some_and(|n| n > MAX_BODY) {
        return Err(reply::payload_too_large());
    }
    let mut buf = Vec::with_capacity(rq.body_length().unwrap_or(0).min(MAX_BODY));
    if let Err(e) = rq
        .as_reader()
        .take(MAX_BODY as u64 + 1)
        .read_to_end(&mut buf)
    {
        // A read timeout (`serve --read-timeout`) is WouldBlock on Unix, TimedOut elsewhere.
        let message = if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) {
            "the request body stopped arriving (read timeout)".to_string()
        } else {
            format!("could not read the request body: {e}")
        };
        return Err(reply::error(&Error::validation("body", message)));
    }
    if buf.len() > MAX_BODY {
        return Err(reply::payload_too_large());
    }
    if buf.iter().all(u8::is_ascii_whitespace) {
        return Err(reply::error(&Error::validation(
            "body",
            "a JSON object is required",
        )));
    }
    serde_json::from_slice(&buf)
        .map_err(|e| reply::error(&Error::validation("body", format!("invalid JSON: {e}"))))
}

fn is_json(content_type: &str) -> bool {
    content_type
        .split(';')
        .next()
        .is_some_and(|t| t.trim().eq_ignore_ascii_case("application/json"))
}

/// A client-supplied string made safe to echo in a message or a log line.
pub fn printable(s: &str) -> String {
    s.chars()
        .take(200)
        .map(|c| if c.is_control() { '?' } else { c })
        .collect()
}
