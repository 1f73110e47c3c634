//! Building and sending responses: the envelopes, the headers, the access log line.

use std::io::Cursor;
use std::sync::Arc;
use std::time::Instant;

use serde::Serialize;
use tiny_http::{Header, HeaderLines, Request, Response, StatusCode};

use keyhook_core::access_log::{AccessLine, AccessLog};
use keyhook_core::error::{Error, FieldError};
use keyhook_core::model::{Data, ErrorEnvelope};
use keyhook_core::store::Listed;

pub struct Reply {
    pub status: u16,
    pub body: Body,
    /// For 405: the methods the path allows.
    pub allow: Option<&'static str>,
    /// The `Content-Type` of a body that is not JSON (`/metrics`).
    pub content_type: Option<&'static str>,
    /// `--rate-limit`: the `RateLimit-*` headers of an authenticated request.
    pub rate: Option<super::ratelimit::Headers>,
    /// For a 429 of the rate limiter: `Retry-After` in whole seconds (else 1).
    pub retry_after: Option<u64>,
    /// More headers (the key check's `X-Keyhook-*`), put together and checked once
    /// (`tiny_http::HeaderLines`: a header that is not valid is left out rather than sent
    /// broken) and shared: the same key's are sent again without being built again.
    pub headers: Option<HeaderLines>,
}

/// A response's body: its own bytes, or a list's kept ones ([`list_data`]), shared rather
/// than copied.
pub enum Body {
    Owned(Vec<u8>),
    Shared(Arc<[u8]>),
}

impl std::ops::Deref for Body {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Body::Owned(v) => v,
            Body::Shared(a) => a,
        }
    }
}

impl AsRef<[u8]> for Body {
    fn as_ref(&self) -> &[u8] {
        self
    }
}

impl Reply {
    fn new(status: u16, body: Vec<u8>) -> Reply {
        Reply::with_body(status, Body::Owned(body))
    }

    fn with_body(status: u16, body: Body) -> Reply {
        Reply {
            status,
            body,
            allow: None,
            content_type: None,
            rate: None,
            retry_after: None,
            headers: None,
        }
    }
}

/// `{"data": value}` with `status`.
pub fn data<T: Serialize>(status: u16, value: &T) -> Reply {
    match serde_json::to_vec(&Data { data: value }) {
        Ok(body) => Reply::new(status, body),
        Err(e) => error(&Error::Storage(format!("cannot serialize a response: {e}"))),
    }
}

/// The body of the last list a worker thread answered with, and that list.
pub struct LastList<T>(std::cell::RefCell<Option<Kept<T>>>);

/// A list and the body it was answered with.
type Kept<T> = (Listed<T>, Arc<[u8]>);

impl<T> LastList<T> {
    pub const fn new() -> LastList<T> {
        LastList(std::cell::RefCell::new(None))
    }
}

/// Bodies longer than this are not kept by [`LastList`] (a thread keeps one list).
const LAST_LIST_MAX_BODY: usize = 64 * 1024;

/// [`data`] for a list read again and again (the list requests): when `list` is the one the
/// thread last answered with (the same shared list, as a connection's cache hands it out, or
/// one equal to it field by field), its body is used again instead of being serialized anew
/// (comparing is a fraction of serializing). Exact, since a shared list is never changed
/// while shared ([`Listed`]) and other lists are compared by value, not by age; `last` keeps
/// one list per worker thread, at most [`LAST_LIST_MAX_BODY`] long.
pub fn list_data<T: Serialize + PartialEq>(
    status: u16,
    list: Listed<T>,
    last: &'static std::thread::LocalKey<LastList<T>>,
) -> Reply {
    let same = last.with(|l| match &mut *l.0.borrow_mut() {
        Some((kept, body)) if Listed::ptr_eq(kept, &list) => Some(Arc::clone(body)),
        // The same list in another allocation (read again, or copied when a use was
        // recorded): kept in the one the cache now hands out, so that the next request
        // finds it by address.
        Some((kept, body)) if *kept == list => {
            *kept = Listed::clone(&list);
            Some(Arc::clone(body))
        }
        _ => None,
    });
    if let Some(body) = same {
        return Reply::with_body(status, Body::Shared(body));
    }
    let reply = data(status, &*list);
    if reply.status == status && reply.body.len() <= LAST_LIST_MAX_BODY {
        let body: Arc<[u8]> = Arc::from(&*reply.body);
        last.with(|l| *l.0.borrow_mut() = Some((list, Arc::clone(&body))));
        return Reply::with_body(status, Body::Shared(body));
    }
    reply
}

/// A raw JSON document (the OpenAPI description).
pub fn raw(status: u16, body: Vec<u8>) -> Reply {
    Reply::new(status, body)
}

pub fn no_content() -> Reply {
    Reply::new(204, Vec::new())
}

pub fn error(e: &Error) -> Reply {
    if matches!(e, Error::Storage(_) | Error::Io(_)) {
        // The operator sees the cause; the client only that something failed.
        tracing::error!(target: "keyhook::http", "keyhook: internal error: {e}");
    }
    envelope(e.http_status(), e.code(), e.public_message(), e.details())
}

fn envelope(status: u16, code: &str, message: String, details: &[FieldError]) -> Reply {
    let body =
        serde_json::to_vec(&ErrorEnvelope::new(code, message, details)).unwrap_or_else(|_| {
            br#"{"error":{"code":"INTERNAL_ERROR","message":"internal error","details":[]}}"#
                .to_vec()
        });
    Reply::new(status, body)
}

/// 429 `RATE_LIMITED` from `--rate-limit`, with `Retry-After` and the `RateLimit-*` headers.
pub fn rate_limited(limited: super::ratelimit::Limited, what: &str) -> Reply {
    let mut r = envelope(
        429,
        "RATE_LIMITED",
        format!(
            "too many requests {what}; try again in {} s",
            limited.retry_after
        ),
        &[],
    );
    r.retry_after = Some(limited.retry_after);
    r.rate = Some(limited.headers);
    r
}

pub fn not_found() -> Reply {
    envelope(404, "NOT_FOUND", "no such resource".into(), &[])
}

pub fn method_not_allowed(allow: &'static str) -> Reply {
    let mut r = envelope(
        405,
        "METHOD_NOT_ALLOWED",
        format!("method not allowed; this path allows {allow}"),
        &[],
    );
    r.allow = Some(allow);
    r
}

pub fn payload_too_large(max_body: usize) -> Reply {
    envelope(
        413,
        "PAYLOAD_TOO_LARGE",
        format!("request body is larger than {max_body} bytes"),
        &[],
    )
}

/// A body that could not be read whole: 408 `REQUEST_TIMEOUT` if it did not arrive in
/// time, else 400 `BAD_REQUEST`. The connection is closed after it.
pub fn bad_body(timed_out: bool, message: String) -> Reply {
    if timed_out {
        envelope(408, "REQUEST_TIMEOUT", message, &[])
    } else {
        envelope(400, "BAD_REQUEST", message, &[])
    }
}

pub fn unsupported_media_type(message: &str) -> Reply {
    envelope(415, "UNSUPPORTED_MEDIA_TYPE", message.to_string(), &[])
}

/// The `WWW-Authenticate` of every 401 (RFC 6750).
pub const WWW_AUTHENTICATE: &str = "Bearer realm=\"keyhook\"";

/// 200 with no body: the key check's yes (its headers are added by the caller).
pub fn allowed() -> Reply {
    Reply::new(200, Vec::new())
}

fn header(name: &'static str, value: &str) -> Header {
    Header::from_bytes(name.as_bytes(), value.as_bytes()).expect("static header is valid")
}

/// Logs `line` as an error event (a failed metrics scrape or health check). The subscriber
/// the binary installs (keyhook-cli's `logging`) writes every event, redacted: the server's
/// log lines are `tracing` events (but for the access lines: [`send`]).
pub(crate) fn log(line: &str) {
    tracing::error!(target: "keyhook", "{line}");
}

/// Sends `reply` and hands `log` the access line: method, path, status, duration, key prefix,
/// and `route`, the request's label in the metrics (`metrics::Metrics::label`: a route
/// template, `/healthz` or `/metrics`; null for what the metrics count as `unmatched`).
/// Never a key, a secret or a query string: a key in the path (`DELETE /api-keys/kp_…`), also
/// percent-encoded, is shown as its prefix.
pub fn send(
    request: Request,
    reply: Reply,
    started: Instant,
    key_prefix: Option<&str>,
    route: &'static str,
    log: &dyn AccessLog,
    client: Option<std::net::IpAddr>,
) {
    let status = reply.status;
    // The access line's message, started with the request line, made printable (redacted
    // and cut) as a whole, and its method; the rest is added once the response is out. Not
    // put together for a log that writes no access lines.
    let line = log.enabled().then(|| {
        // (A standard method is copied without allocating; the request goes to `respond`.)
        let method = request.method().clone();
        let path = super::router::path_of(request.url());
        let mut line = String::with_capacity(ACCESS_LINE_ROOM);
        line.push_str(method.as_str());
        line.push(' ');
        line.push_str(path);
        if let std::borrow::Cow::Owned(shown) = printable(&line) {
            line = shown;
        }
        (line, method)
    });
    let mut headers = Vec::with_capacity(7);
    if !reply.body.is_empty() {
        let content_type = reply.content_type.unwrap_or("application/json");
        headers.push(header("Content-Type", content_type));
    }
    headers.push(header("Cache-Control", "no-store"));
    if let Some(allow) = reply.allow {
        headers.push(header("Allow", allow));
    }
    if status == 401 {
        headers.push(header("WWW-Authenticate", WWW_AUTHENTICATE));
    }
    if status == 429 {
        let seconds = reply.retry_after.unwrap_or(1).to_string();
        headers.push(header("Retry-After", &seconds));
    }
    if let Some(rate) = reply.rate {
        headers.push(header("RateLimit-Limit", &rate.limit.to_string()));
        headers.push(header("RateLimit-Remaining", &rate.remaining.to_string()));
        headers.push(header("RateLimit-Reset", &rate.reset.to_string()));
    }
    let len = reply.body.len();
    let mut response = Response::new(
        StatusCode(status),
        headers,
        Cursor::new(reply.body),
        Some(len),
        None,
    );
    if let Some(lines) = reply.headers {
        response = response.with_header_lines(lines);
    }
    // An error here is the client hanging up; there is nobody left to tell. The (patched)
    // tiny_http then drains what is left of an unread body, up to 1 MiB, so that the
    // connection can serve its next request; a request declaring more is its connection's
    // last (vendor/tiny_http/PATCHES.md).
    let _ = request.respond(response);
    let Some((mut line, method)) = line else {
        return;
    };
    // For the log's fields: the route's label (`/api/v1/api-keys/{id}`), never the path.
    // A method tiny_http knows is one of its names, printable as it is.
    let method = match method {
        tiny_http::Method::NonStandard(_) => printable(method.as_str()),
        _ => std::borrow::Cow::Borrowed(method.as_str()),
    };
    let route = (route != super::router::UNMATCHED).then_some(route);
    // The message is the text line; the fields are for `--log-format json` (duration in ms,
    // to the microsecond).
    let micros = started.elapsed().as_micros();
    finish_access_line(&mut line, status, micros, key_prefix);
    log.write(AccessLine {
        message: line,
        method: &method,
        route,
        status,
        duration_ms: micros as f64 / 1000.0,
        key_prefix,
        client,
    });
}

/// The room an access line's message is put together in.
const ACCESS_LINE_ROOM: usize = 128;

/// Adds ` {status} {duration}ms {key prefix or -}` to an access line's request line: the
/// duration in milliseconds to a tenth, rounded (`{:.1}` of the float, without formatting
/// one), the numbers written digit by digit rather than through `fmt` (a third of the line's
/// cost).
fn finish_access_line(line: &mut String, status: u16, micros: u128, key_prefix: Option<&str>) {
    // (u64 microseconds last 584,000 years.)
    let tenths = u64::try_from(micros).unwrap_or(u64::MAX).saturating_add(50) / 100;
    line.push(' ');
    push_number(line, u64::from(status));
    line.push(' ');
    push_number(line, tenths / 10);
    line.push('.');
    push_number(line, tenths % 10);
    line.push_str("ms ");
    line.push_str(key_prefix.unwrap_or("-"));
}

/// `n` in decimal.
fn push_number(line: &mut String, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    line.extend(digits[at..].iter().map(|&d| char::from(d)));
}

/// A client-supplied string made safe to echo in a message or a log line: secret-shaped
/// strings redacted (`keyhook_core::redact`) before it is cut to at most 200 characters, so that no
/// part of a key survives the cut; control characters as `?`. Borrows `s` when it is
/// already so.
pub fn printable(s: &str) -> std::borrow::Cow<'_, str> {
    // The common string: nothing to redact, cut or replace, told in one pass.
    if s.len() <= 200 && keyhook_core::redact::inert(s) {
        return std::borrow::Cow::Borrowed(s);
    }
    let s = keyhook_core::redact::keys(s);
    if s.len() <= 200 && !s.chars().any(char::is_control) {
        return s;
    }
    s.chars()
        .take(200)
        .map(|c| if c.is_control() { '?' } else { c })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::borrow::Cow;

    thread_local!(static LAST: LastList<(String, u32)> = const { LastList::new() });

    /// An access line's tail: the status, the duration in milliseconds rounded half up to a
    /// tenth (as the line showed it when `fmt` wrote it), the key's prefix or `-`.
    #[test]
    fn an_access_line_ends_with_status_duration_and_prefix() {
        let tail = |status, micros, prefix| {
            let mut line = "GET /x".to_string();
            finish_access_line(&mut line, status, micros, prefix);
            line
        };
        assert_eq!(tail(200, 0, None), "GET /x 200 0.0ms -");
        assert_eq!(tail(401, 49, None), "GET /x 401 0.0ms -");
        assert_eq!(
            tail(201, 150, Some("kp_0123abcd")),
            "GET /x 201 0.2ms kp_0123abcd"
        );
        assert_eq!(tail(503, 1_234_567, None), "GET /x 503 1234.6ms -");
        assert_eq!(tail(200, 9_999_950, None), "GET /x 200 10000.0ms -");
        let longest = u64::MAX / 100;
        assert_eq!(
            tail(200, u128::MAX, None),
            format!("GET /x 200 {}.{}ms -", longest / 10, longest % 10)
        );
        // As the line was written with `fmt` before.
        for micros in [0, 7, 99, 1_049, 12_345, 987_654_321] {
            let tenths = (micros + 50) / 100;
            let before = format!("GET /x 200 {}.{}ms -", tenths / 10, tenths % 10);
            assert_eq!(tail(200, micros, None), before);
        }
        let mut big = String::new();
        push_number(&mut big, u64::MAX);
        assert_eq!(big, u64::MAX.to_string());
    }

    /// A list equal to the last one (the same shared list, or an equal copy) gets that one's
    /// bytes; any difference in any field, and a list too long to keep, gets its own, and
    /// every body is the list's serialization.
    #[test]
    fn a_list_body_is_used_again_only_for_an_equal_list() {
        let list = |n: u32| Listed::new(vec![("a".to_string(), 1), ("b".to_string(), n)]);
        for n in [1, 1, 2, 2, 1] {
            let r = list_data(200, list(n), &LAST);
            assert_eq!(r.status, 200);
            assert_eq!(*r.body, *data(200, &*list(n)).body, "list {n}");
        }
        // Kept: the very bytes come back (a list of the same value, told apart by a marker
        // put into the kept body).
        LAST.with(|l| l.0.borrow_mut().as_mut().unwrap().1 = b"kept"[..].into());
        assert_eq!(*list_data(200, list(1), &LAST).body, *b"kept");
        assert_ne!(*list_data(200, list(3), &LAST).body, *b"kept");
        // The same shared list again: its kept bytes, without comparing.
        let shared = list(4);
        assert_eq!(
            *list_data(200, Listed::clone(&shared), &LAST).body,
            *data(200, &*shared).body
        );
        LAST.with(|l| l.0.borrow_mut().as_mut().unwrap().1 = b"kept"[..].into());
        assert_eq!(
            *list_data(200, Listed::clone(&shared), &LAST).body,
            *b"kept"
        );
        // A shared list is changed only as a copy (`Listed::make_mut`), which is compared.
        let mut changed = Listed::clone(&shared);
        Listed::make_mut(&mut changed)[1].1 = 5;
        assert_eq!(
            *list_data(200, changed, &LAST).body,
            *data(200, &*list(5)).body
        );
        // An equal list in another allocation takes the kept one's place: the next request
        // with it is found by address.
        let copy = list(5);
        LAST.with(|l| l.0.borrow_mut().as_mut().unwrap().1 = b"kept"[..].into());
        assert_eq!(*list_data(200, Listed::clone(&copy), &LAST).body, *b"kept");
        LAST.with(|l| assert!(Listed::ptr_eq(&l.0.borrow().as_ref().unwrap().0, &copy)));
        let long = Listed::new(vec![("x".repeat(LAST_LIST_MAX_BODY), 0)]);
        let r = list_data(200, Listed::clone(&long), &LAST);
        assert_eq!(*r.body, *data(200, &*long).body);
        LAST.with(|l| assert_eq!(l.0.borrow().as_ref().unwrap().0, list(5), "not kept"));
    }

    /// What a client sent, made safe to echo: borrowed when it already is; a key redacted
    /// before the cut at 200 characters; control characters as `?`.
    #[test]
    fn printable_redacts_then_cuts_and_replaces_controls() {
        let plain = "GET /api/v1/api-keys";
        assert!(matches!(printable(plain), Cow::Borrowed(p) if p == plain));
        assert_eq!(printable("a\u{1b}[2J\nb"), "a?[2J?b");
        let key = format!("kp_{}", "ab".repeat(32));
        assert_eq!(printable(&format!("GET /x/{key}")), "GET /x/kp_abababab…");
        // A key across the 200th character is redacted, not cut into a shorter hex run.
        let long = format!("{}{key}", "x".repeat(180));
        assert_eq!(printable(&long), format!("{}kp_abababab…", "x".repeat(180)));
        assert_eq!(printable(&"y".repeat(250)).chars().count(), 200);
        assert_eq!(
            printable(&format!("{}\u{7f}", "z".repeat(10))),
            format!("{}?", "z".repeat(10))
        );
    }
}
