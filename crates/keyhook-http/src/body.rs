//! Request bodies: media type, size limit and strict JSON (no repeated object keys).

use std::io::{ErrorKind, Read};

use serde_json::Value;
use tiny_http::Request;

use super::reply::{self, Reply};
use keyhook_core::error::Error;

/// The largest request body accepted.
pub const MAX_BODY: usize = 64 * 1024;

fn header<'a>(rq: &'a Request, name: &'static str) -> Option<&'a str> {
    rq.headers()
        .iter()
        .find(|h| h.field.equiv(name))
        .map(|h| h.value.as_str())
}

/// A request body as read off the connection, before anything else is done with the request.
pub enum Body {
    /// None was sent.
    Empty,
    Bytes(Vec<u8>),
    /// Over [`MAX_BODY`]: declared so (then nothing was read) or found so while reading.
    TooLarge,
    /// The body is malformed (chunked framing), incomplete (the connection ended early), or
    /// did not arrive in time (`timed_out`). The request is not acted on: 400 or 408, and
    /// the connection is closed (the patched tiny_http sees to that).
    Failed {
        timed_out: bool,
        message: String,
    },
}

/// Whether `rq` declares a body (a `Content-Length` over 0, or chunked).
pub fn declared(rq: &Request) -> bool {
    match rq.body_length() {
        Some(n) => n > 0,
        None => header(rq, "Transfer-Encoding").is_some(),
    }
}

/// Reads the body of `rq`, at most [`MAX_BODY`] bytes, within the body deadline (the
/// patched tiny_http's, `serve --header-timeout` after the head). A body that is not read
/// to its end (too large) ends the connection after the response.
pub fn read(rq: &mut Request) -> Body {
    if !declared(rq) {
        return Body::Empty;
    }
    match rq.body_length() {
        Some(n) if n > MAX_BODY => {
            rq.close_connection();
            return Body::TooLarge;
        }
        None => rq.set_body_limit(MAX_BODY),
        _ => {}
    }
    let mut buf = Vec::with_capacity(rq.body_length().unwrap_or(0).min(MAX_BODY));
    match rq
        .as_reader()
        .take(MAX_BODY as u64 + 1)
        .read_to_end(&mut buf)
    {
        Err(e) => match tiny_http::body_error(&e) {
            Some(tiny_http::BodyError::TooLarge) => {
                rq.close_connection();
                Body::TooLarge
            }
            Some(tiny_http::BodyError::TimedOut) => Body::Failed {
                timed_out: true,
                message: "the request body did not arrive in time".to_string(),
            },
            Some(tiny_http::BodyError::Malformed(m)) => Body::Failed {
                timed_out: false,
                message: format!("malformed chunked body: {m}"),
            },
            Some(tiny_http::BodyError::Truncated) | None => Body::Failed {
                timed_out: matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut),
                message: "the request body ended before it was complete".to_string(),
            },
        },
        Ok(_) if buf.len() > MAX_BODY => {
            rq.close_connection();
            Body::TooLarge
        }
        Ok(_) if buf.is_empty() => Body::Empty,
        Ok(_) => Body::Bytes(buf),
    }
}

/// The JSON body of a request to an endpoint that takes one: 415 for another media type,
/// 413 over [`MAX_BODY`], 400 for anything that is not a JSON document.
pub fn json(rq: &Request, body: Body) -> Result<Value, Reply> {
    let has_body = !matches!(body, Body::Empty);
    match header(rq, "Content-Type") {
        Some(ct) if is_json(ct) => {}
        Some(ct) => {
            return Err(reply::unsupported_media_type(&format!(
                "Content-Type must be application/json, not {}",
                reply::printable(ct)
            )));
        }
        None if has_body => {
            return Err(reply::unsupported_media_type(
                "Content-Type must be application/json",
            ))
        }
        None => {}
    }
    let buf = match body {
        Body::TooLarge => return Err(reply::payload_too_large(MAX_BODY)),
        Body::Failed { timed_out, message } => return Err(reply::bad_body(timed_out, message)),
        Body::Empty => Vec::new(),
        Body::Bytes(b) => b,
    };
    if buf.iter().all(u8::is_ascii_whitespace) {
        return Err(reply::error(&Error::validation(
            "body",
            "a JSON object is required",
        )));
    }
    keyhook_core::service::input::parse_json(&buf)
        .map_err(|message| reply::error(&Error::validation("body", message)))
}

/// The JSON body of a request to an endpoint whose body is optional: none (with or without
/// a JSON `Content-Type`) is `{}`; anything sent is taken as [`json`] takes it.
pub fn optional_json(rq: &Request, body: Body) -> Result<Value, Reply> {
    if matches!(body, Body::Empty) {
        return Ok(Value::Object(serde_json::Map::new()));
    }
    json(rq, body)
}

/// The body of a request to an endpoint that takes none: none, or an empty JSON object (which
/// some clients send with every POST). Anything else is refused as [`json`] would refuse it
/// (415, 413, 400), or with 400 on `body` when it is a JSON document with something in it, so
/// that a client that thinks it sent data learns that it was not read.
pub fn none(rq: &Request, body: Body) -> Result<(), Reply> {
    if matches!(body, Body::Empty) {
        return Ok(());
    }
    match json(rq, body)? {
        Value::Object(o) if o.is_empty() => Ok(()),
        _ => Err(reply::error(&Error::validation(
            "body",
            "this endpoint takes no request body (send none, or {})",
        ))),
    }
}

fn is_json(content_type: &str) -> bool {
    content_type
        .split(';')
        .next()
        .is_some_and(|t| t.trim().eq_ignore_ascii_case("application/json"))
}
