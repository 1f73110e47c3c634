use ascii::AsciiString;

use std::io::Error as IoError;
use std::io::Result as IoResult;
use std::io::{BufRead, BufReader, BufWriter, ErrorKind, Read, Write};

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use crate::common::{HTTPVersion, Method};
use crate::util::bytes::{is_host_char, is_tchar, is_value_byte, line_end};
use crate::util::RefinedTcpStream;
use crate::util::{SequentialReader, SequentialReaderBuilder, SequentialWriterBuilder};
use crate::Request;

/// A ClientConnection is an object that will store a socket to a client
/// and return Request objects.
pub struct ClientConnection {
    // address of the client
    remote_addr: IoResult<Option<SocketAddr>>,

    // sequence of Readers to the stream, so that the data is not read in
    //  the wrong order
    source: SequentialReaderBuilder<BufReader<RefinedTcpStream>>,

    // sequence of Writers to the stream, to avoid writing response #2 before
    //  response #1
    sink: SequentialWriterBuilder<BufWriter<RefinedTcpStream>>,

    // Reader to read the next header from
    next_header_source: SequentialReader<BufReader<RefinedTcpStream>>,

    // set to true if we know that the previous request is the last one
    no_more_requests: bool,

    // true if the connection goes through SSL
    secure: bool,

    // keyhook patch: the header deadline and timeouts, the socket's current read timeout,
    // when the connection was accepted (until its first head is read), the line buffer
    options: HeadOptions,
    socket_timeout: Option<Duration>,
    accepted: Option<Instant>,
    line: Vec<u8>,

    // keyhook patch: shared with each request's body reader: set when the connection must
    // end after the response (a body error), see util/body_reader.rs
    body_guard: std::sync::Arc<crate::util::BodyGuard>,
}

/// Error that can happen when reading a request.
#[derive(Debug)]
enum ReadError {
    /// keyhook patch: the head breaks a rule (malformed, over a limit, ambiguous framing);
    /// answered with an error envelope, then the connection is closed.
    Reject(Reject),
    /// the client sent an unrecognized `Expect` header
    ExpectationFailed(HTTPVersion),
    ReadIoError(IoError),
    /// keyhook patch: the head did not arrive within the header deadline (or a read within
    /// it timed out); `started` is true when some of it had arrived.
    HeadTimeout {
        started: bool,
    },
}

/// keyhook patch: an error response tiny_http sends itself, in keyhook's JSON envelope.
#[derive(Debug)]
struct Reject {
    status: u16,
    code: &'static str,
    message: String,
}

impl Reject {
    fn bad_request(message: impl Into<String>) -> ReadError {
        ReadError::Reject(Reject {
            status: 400,
            code: "BAD_REQUEST",
            message: message.into(),
        })
    }

    /// keyhook patch h: a request line over [`MAX_REQUEST_LINE`]. With a space in what was
    /// read (`METHOD SP target...`), the request target is what is too long: 414 (RFC 9112
    /// section 3). Without one, the method is: longer than any this server implements, 501
    /// (RFC 9110 section 9.1).
    fn long_request_line(line: &[u8]) -> ReadError {
        if line.contains(&b' ') {
            ReadError::Reject(Reject {
                status: 414,
                code: "URI_TOO_LONG",
                message: format!(
                    "the request target is too long: the request line is longer than \
                     {MAX_REQUEST_LINE} bytes"
                ),
            })
        } else {
            ReadError::Reject(Reject {
                status: 501,
                code: "NOT_IMPLEMENTED",
                message: format!(
                    "the method is longer than any this server implements (the request line \
                     is longer than {MAX_REQUEST_LINE} bytes)"
                ),
            })
        }
    }

    fn too_large(message: impl Into<String>) -> ReadError {
        ReadError::Reject(Reject {
            status: 431,
            code: "HEADERS_TOO_LARGE",
            message: message.into(),
        })
    }
}

/// keyhook patch: `{"error":{"code","message","details":[]}}` with `status`, as
/// `application/json`.
pub(crate) fn error_response(
    status: u16,
    code: &str,
    message: &str,
) -> crate::Response<std::io::Cursor<Vec<u8>>> {
    use crate::{Header, Response, StatusCode};
    let mut body = String::with_capacity(64 + message.len());
    body.push_str("{\"error\":{\"code\":\"");
    json_escape(code, &mut body);
    body.push_str("\",\"message\":\"");
    json_escape(message, &mut body);
    body.push_str("\",\"details\":[]}}");
    let header = |k: &str, v: &str| Header::from_bytes(k.as_bytes(), v.as_bytes()).unwrap();
    Response::from_data(body.into_bytes())
        .with_status_code(StatusCode(status))
        .with_header(header("Content-Type", "application/json"))
        .with_header(header("Cache-Control", "no-store"))
}

fn json_escape(s: &str, out: &mut String) {
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                out.push_str(&format!("\\u{:04x}", c as u32));
            }
            c => out.push(c),
        }
    }
}

/// keyhook patch: the longest request line, in bytes (without its CRLF).
pub const MAX_REQUEST_LINE: usize = 8 * 1024;
/// keyhook patch: the longest header line, in bytes (without its CRLF).
pub const MAX_HEADER_LINE: usize = 8 * 1024;
/// keyhook patch: the most bytes of all header lines of a request together (CRLFs included).
pub const MAX_HEADERS_SIZE: usize = 64 * 1024;
/// keyhook patch: the most header lines in a request.
pub const MAX_HEADERS: usize = 100;
/// keyhook patch: empty lines ignored before a request line (RFC 9112 section 2.2).
const MAX_LEADING_EMPTY_LINES: usize = 8;
/// keyhook patch: after an error response, at most this long and this much of what the
/// client still sends is read and discarded before the connection is closed, so that
/// closing with unread data (which sends a TCP reset) does not destroy the response before
/// the client has read it.
/// The client is assumed done once it has sent nothing for `LINGER_QUIET`, so that a slow
/// client does not hold its thread for all of `LINGER_TIME`.
const LINGER_TIME: Duration = Duration::from_secs(1);
const LINGER_QUIET: Duration = Duration::from_millis(200);
const LINGER_BYTES: usize = 1024 * 1024;

/// keyhook patch: how a connection reads request heads.
#[derive(Clone, Copy, Debug)]
pub(crate) struct HeadOptions {
    /// the read timeout the socket was given at accept (and has between heads)
    pub read_timeout: Option<Duration>,
    /// how long a whole request head may take (see `ClientConnection::read`)
    pub header_timeout: Option<Duration>,
}

impl ClientConnection {
    /// Creates a new `ClientConnection` that takes ownership of the `TcpStream`.
    pub fn new(
        write_socket: RefinedTcpStream,
        mut read_socket: RefinedTcpStream,
        options: HeadOptions,
    ) -> ClientConnection {
        let remote_addr = read_socket.peer_addr();
        let secure = read_socket.secure();

        let mut source = SequentialReaderBuilder::new(BufReader::with_capacity(1024, read_socket));
        let first_header = source.next().unwrap();

        ClientConnection {
            source,
            sink: SequentialWriterBuilder::new(BufWriter::with_capacity(1024, write_socket)),
            remote_addr,
            next_header_source: first_header,
            no_more_requests: false,
            secure,
            options,
            socket_timeout: options.read_timeout,
            accepted: Some(Instant::now()),
            line: Vec::new(),
            body_guard: Default::default(),
        }
    }

    /// true if the connection is HTTPS
    pub fn secure(&self) -> bool {
        self.secure
    }

    /// keyhook patch: sets the socket's read timeout, if it is not that already.
    fn set_socket_timeout(&mut self, timeout: Option<Duration>) {
        if timeout != self.socket_timeout {
            // Through the reading half, which this connection's thread holds while it reads a
            // head (the writing half's lock may be held by a response being written).
            // Fails only for a socket that is already unusable; the read then fails too.
            let _ = self
                .next_header_source
                .get_mut()
                .get_ref()
                .set_read_timeout(timeout);
            self.socket_timeout = timeout;
        }
    }

    /// keyhook patch (replaces upstream's unbounded, byte-at-a-time `read_next_line`):
    /// reads the next line of the head into `self.line`, without its LF or CRLF, and
    /// returns the length of that line ending (1 or 2: the bytes are counted as received).
    /// A line longer than `max` bytes is `Ok(None)`, with at most `max + 1` bytes of it
    /// read, so memory stays bounded whatever the client sends. A CR not followed by LF
    /// (a bare CR, RFC 9112 section 2.2) is a 400 at once, rather than a wait for an LF
    /// that may never come.
    ///
    /// `deadline` is the end of the header deadline (None: not started yet; it starts with
    /// the first byte, see `read`); `started` becomes true with the first byte.
    fn read_line(
        &mut self,
        max: usize,
        deadline: &mut Option<Instant>,
        started: &mut bool,
    ) -> Result<Option<usize>, ReadError> {
        self.line.clear();
        // keyhook patch g: a CR ended the previous buffer; the next byte must be its LF
        let mut pending_cr = false;
        loop {
            if self.next_header_source.get_mut().buffer().is_empty() {
                // A read from the socket: its timeout is what is left of the deadline (or
                // the read timeout while waiting for the first byte of a kept-alive
                // connection's next request).
                let timeout = match *deadline {
                    None => self.options.read_timeout,
                    Some(end) => {
                        let left = end.saturating_duration_since(Instant::now());
                        if left.is_zero() {
                            return Err(ReadError::HeadTimeout { started: *started });
                        }
                        Some(match self.options.read_timeout {
                            Some(t) => t.min(left),
                            None => left,
                        })
                    }
                };
                self.set_socket_timeout(timeout);
            }
            let reader = self.next_header_source.get_mut();
            let buf = match reader.fill_buf() {
                Ok(buf) => buf,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) if matches!(e.kind(), ErrorKind::TimedOut | ErrorKind::WouldBlock) => {
                    return Err(ReadError::HeadTimeout { started: *started })
                }
                Err(e) => return Err(ReadError::ReadIoError(e)),
            };
            if buf.is_empty() {
                return Err(ReadError::ReadIoError(IoError::new(
                    ErrorKind::ConnectionAborted,
                    "Unexpected EOF",
                )));
            }
            if !*started {
                *started = true;
                if deadline.is_none() {
                    *deadline = self.options.header_timeout.map(|t| Instant::now() + t);
                }
            }
            if pending_cr {
                if buf[0] != b'\n' {
                    return Err(bare_cr());
                }
                reader.consume(1);
                return Ok(Some(2));
            }
            let room = max.saturating_sub(self.line.len());
            match line_end(buf) {
                Some(i) if i <= room => {
                    self.line.extend_from_slice(&buf[..i]);
                    if buf[i] == b'\n' {
                        reader.consume(i + 1);
                        return Ok(Some(1));
                    }
                    match buf.get(i + 1) {
                        Some(b'\n') => {
                            reader.consume(i + 2);
                            return Ok(Some(2));
                        }
                        Some(_) => return Err(bare_cr()),
                        None => {
                            reader.consume(i + 1);
                            pending_cr = true;
                        }
                    }
                }
                _ if buf.len() > room => {
                    let n = (room + 1).min(buf.len());
                    self.line.extend_from_slice(&buf[..n]);
                    reader.consume(n);
                    return Ok(None);
                }
                _ => {
                    let n = buf.len();
                    self.line.extend_from_slice(buf);
                    reader.consume(n);
                }
            }
        }
    }

    /// Reads a request from the stream.
    /// Blocks until the header has been read.
    ///
    /// keyhook patch: the head is read with bounded lines and limits (`MAX_REQUEST_LINE`,
    /// `MAX_HEADER_LINE`, `MAX_HEADERS_SIZE`, `MAX_HEADERS`; over one: 431), parsed strictly
    /// (a malformed request line or header line: 400), with header values as opaque bytes
    /// (obs-text, bytes 0x80 to 0xFF, becomes DEL, 0x7F, which cannot otherwise appear), and
    /// its framing checked (RFC 9112 section 6.3). The whole head must arrive within
    /// `header_timeout`: counted from accept for a connection's first request, and from the
    /// first byte of the request for the next ones (until then, a kept-alive connection may
    /// be idle for the read timeout).
    fn read(&mut self) -> Result<Request, ReadError> {
        let mut deadline = match self.accepted.take() {
            Some(at) => self.options.header_timeout.map(|t| at + t),
            None => None,
        };
        let mut started = false;

        // the request line, after at most a few empty lines
        let mut empty_lines = 0;
        loop {
            if self
                .read_line(MAX_REQUEST_LINE, &mut deadline, &mut started)?
                .is_none()
            {
                return Err(Reject::long_request_line(&self.line));
            }
            if !self.line.is_empty() {
                break;
            }
            empty_lines += 1;
            if empty_lines > MAX_LEADING_EMPTY_LINES {
                return Err(Reject::bad_request("malformed request line"));
            }
        }
        let (method, path, version) = parse_request_line(&self.line)?;

        // the header lines
        let mut headers = Vec::new();
        let mut total = 0;
        loop {
            // keyhook patch g: line endings counted as received (LF or CRLF); a line that
            // would not fit with at least an LF is over the total.
            let max = MAX_HEADER_LINE.min(MAX_HEADERS_SIZE.saturating_sub(total + 1));
            let ending = self.read_line(max, &mut deadline, &mut started)?;
            if self.line.is_empty() && ending.is_some() {
                break;
            }
            let too_long = match ending {
                None => true,
                Some(n) => total + self.line.len() + n > MAX_HEADERS_SIZE,
            };
            if too_long {
                return Err(Reject::too_large(
                    if max < MAX_HEADER_LINE || ending.is_some() {
                        format!("the header lines are longer than {MAX_HEADERS_SIZE} bytes in all")
                    } else {
                        format!("a header line is longer than {MAX_HEADER_LINE} bytes")
                    },
                ));
            }
            if headers.len() == MAX_HEADERS {
                return Err(Reject::too_large(format!(
                    "more than {MAX_HEADERS} header lines"
                )));
            }
            total += self.line.len() + ending.unwrap_or(0);
            headers.push(parse_header(&self.line)?);
        }

        // the read timeout again, for the body and the wait for the next request
        self.set_socket_timeout(self.options.read_timeout);
        if self.line.capacity() > 1024 {
            self.line = Vec::new();
        }

        check_framing(&version, &headers)?;

        // building the writer for the request
        let writer = self.sink.next().unwrap();

        // follow-up for next potential request
        let mut data_source = self.source.next().unwrap();
        std::mem::swap(&mut self.next_header_source, &mut data_source);

        // building the next reader
        let request = crate::request::new_request(
            self.secure,
            method,
            path,
            version.clone(),
            headers,
            *self.remote_addr.as_ref().unwrap(),
            data_source,
            writer,
            // keyhook patch: the body must arrive within the header timeout after the head
            crate::request::BodyOptions {
                guard: std::sync::Arc::clone(&self.body_guard),
                deadline: self.options.header_timeout.map(|t| Instant::now() + t),
                read_timeout: self.options.read_timeout,
            },
        )
        .map_err(|e| {
            use crate::request;
            match e {
                request::RequestCreationError::CreationIoError(e) => ReadError::ReadIoError(e),
                request::RequestCreationError::ExpectationFailed => {
                    ReadError::ExpectationFailed(version)
                }
            }
        })?;

        // return the request
        Ok(request)
    }

    /// keyhook patch: sends `response` as this connection's last, then closes the sending
    /// side and reads (and drops) what the client still sends for a moment, so that the
    /// client gets to read the response (see `LINGER_TIME`).
    fn answer_and_close(&mut self, response: crate::Response<std::io::Cursor<Vec<u8>>>) {
        let mut writer = self.sink.next().unwrap();
        let sent = response
            .with_connection_close()
            .raw_print(&mut writer, HTTPVersion(1, 1), &[], false, None)
            .and_then(|()| writer.flush());
        drop(writer);
        if sent.is_ok() {
            self.linger();
        }
    }

    /// keyhook patch: closes the sending side once the last response is out, then reads
    /// and drops what the client still sends for a moment (see `LINGER_TIME`).
    fn linger(&mut self) {
        let closed = self.sink.with_inner(|w| {
            w.flush()?;
            w.get_mut().shutdown_write()
        });
        if closed.is_err() {
            return;
        }
        let started = Instant::now();
        let mut dropped = 0;
        let mut scratch = [0u8; 8192];
        self.set_socket_timeout(Some(LINGER_QUIET));
        while dropped < LINGER_BYTES && started.elapsed() < LINGER_TIME {
            // what is buffered first, then straight from the socket
            let reader = self.next_header_source.get_mut();
            let buffered = reader.buffer().len();
            if buffered > 0 {
                reader.consume(buffered);
                dropped += buffered;
                continue;
            }
            match reader.read(&mut scratch) {
                Ok(0) | Err(_) => break,
                Ok(n) => dropped += n,
            }
        }
    }
}

/// keyhook patch g: a CR that does not end a line with an LF.
fn bare_cr() -> ReadError {
    Reject::bad_request("a bare CR in the request head; lines end with CRLF or LF")
}

/// keyhook patch g: `host [":" port]` of RFC 9110 section 4.2 (an absolute-form target's
/// authority, a `Host` value): the host a reg-name (unreserved, pct-encoded and sub-delims
/// characters; an IPv4 address is one), or an IPv6 literal in brackets; the port, if
/// present, 1 to 5 digits, at most 65535. No userinfo (`u@h`, deprecated), no empty
/// host, no empty port, no IPvFuture literal (`[v1.x]`). Only a scan, no allocation.
fn is_valid_host(authority: &[u8]) -> bool {
    let (host, port) = if let Some(rest) = authority.strip_prefix(b"[") {
        let Some(end) = rest.iter().position(|&b| b == b']') else {
            return false;
        };
        let literal = &rest[..end];
        let ipv6 = literal
            .iter()
            .all(|&b| b.is_ascii_hexdigit() || b == b':' || b == b'.')
            && std::str::from_utf8(literal)
                .ok()
                .and_then(|l| l.parse::<std::net::Ipv6Addr>().ok())
                .is_some();
        if !ipv6 {
            return false;
        }
        match &rest[end + 1..] {
            [] => return true,
            [b':', port @ ..] => (&b""[..], Some(port)),
            _ => return false,
        }
    } else {
        match authority.iter().position(|&b| b == b':') {
            Some(i) => (&authority[..i], Some(&authority[i + 1..])),
            None => (authority, None),
        }
    };
    if let Some(port) = port {
        let digits = port.len();
        if !(1..=5).contains(&digits)
            || !port.iter().all(u8::is_ascii_digit)
            || !(1..=65535).contains(&port.iter().fold(0u32, |n, &d| n * 10 + u32::from(d - b'0')))
        {
            return false;
        }
        if host.is_empty() {
            // an IPv6 literal (checked above) and its port
            return authority.starts_with(b"[");
        }
    }
    if host.is_empty() {
        return false;
    }
    let mut i = 0;
    while i < host.len() {
        match host[i] {
            b'%' => {
                let hex = |j: usize| host.get(j).is_some_and(u8::is_ascii_hexdigit);
                if !(hex(i + 1) && hex(i + 2)) {
                    return false;
                }
                i += 3;
            }
            b if is_host_char(b) => i += 1,
            _ => return false,
        }
    }
    true
}

/// keyhook patch g: the request target's form (RFC 9112 section 3.2). Never a `#` (a
/// fragment is not sent); origin-form (`/path`), asterisk-form (`*`) or an absolute-form
/// `http://` or `https://` URI with a valid authority (see `is_valid_host`); anything else
/// (other schemes, authority-form, a relative path) is a 400.
fn check_target(target: &[u8]) -> Result<(), ReadError> {
    if target.contains(&b'#') {
        return Err(Reject::bad_request(
            "a request target cannot contain '#' (a fragment)",
        ));
    }
    if target.first() == Some(&b'/') || target == b"*" {
        return Ok(());
    }
    let scheme_end = target.iter().position(|&b| b == b':').unwrap_or(0);
    let scheme = &target[..scheme_end];
    if !scheme.eq_ignore_ascii_case(b"http") && !scheme.eq_ignore_ascii_case(b"https") {
        return Err(Reject::bad_request(
            "a request target must be a path (/...) or an http:// or https:// URI",
        ));
    }
    let Some(rest) = target[scheme_end + 1..].strip_prefix(b"//") else {
        return Err(Reject::bad_request(
            "an absolute-form request target needs an authority (http://host/...)",
        ));
    };
    let end = rest
        .iter()
        .position(|&b| b == b'/' || b == b'?')
        .unwrap_or(rest.len());
    if !is_valid_host(&rest[..end]) {
        return Err(Reject::bad_request(
            "invalid host or port in the request target",
        ));
    }
    Ok(())
}

/// keyhook patch: the framing rules of RFC 9112 section 6 that upstream does not check.
/// Two different `Content-Length`s, or `Content-Length` with `Transfer-Encoding`, make the
/// body's length ambiguous (request smuggling behind a proxy that reads it differently):
/// 400. A transfer coding other than one `chunked`: 501 (unknown coding) or 400 (malformed).
/// RFC 9112 section 3.2: an HTTP/1.1 request needs exactly one `Host`, any request at most
/// one, and its value must be valid (keyhook patch g: `is_valid_host`, or empty, which a
/// client sends when the target has no authority).
fn check_framing(version: &HTTPVersion, headers: &[crate::Header]) -> Result<(), ReadError> {
    let mut hosts = headers.iter().filter(|h| h.field.equiv("Host"));
    match (hosts.next(), hosts.next()) {
        (Some(_), Some(_)) => {
            return Err(Reject::bad_request(
                "a request may have at most one Host header",
            ))
        }
        (None, _) if *version == HTTPVersion(1, 1) => {
            return Err(Reject::bad_request(
                "an HTTP/1.1 request needs exactly one Host header",
            ))
        }
        (Some(h), None) if !h.value.is_empty() && !is_valid_host(h.value.as_bytes()) => {
            return Err(Reject::bad_request("invalid Host header"))
        }
        _ => {}
    }
    let mut content_length: Option<&str> = None;
    for h in headers.iter().filter(|h| h.field.equiv("Content-Length")) {
        let v = h.value.as_str();
        if v.is_empty() || !v.bytes().all(|b| b.is_ascii_digit()) || v.parse::<usize>().is_err() {
            return Err(Reject::bad_request("malformed Content-Length"));
        }
        if content_length.is_some_and(|first| first != v) {
            return Err(Reject::bad_request("conflicting Content-Length headers"));
        }
        content_length = Some(v);
    }
    let mut codings = 0;
    let mut unknown = false;
    for h in headers
        .iter()
        .filter(|h| h.field.equiv("Transfer-Encoding"))
    {
        if content_length.is_some() {
            return Err(Reject::bad_request(
                "Content-Length and Transfer-Encoding together",
            ));
        }
        if *version == HTTPVersion(1, 0) {
            return Err(Reject::bad_request(
                "Transfer-Encoding in an HTTP/1.0 request",
            ));
        }
        for coding in h.value.as_str().split(',') {
            let coding = coding.trim_matches(|c| c == ' ' || c == '\t');
            if coding.is_empty() {
                continue; // empty list elements are allowed (RFC 9110 section 5.6.1)
            }
            let name = coding
                .split(';')
                .next()
                .unwrap_or("")
                .trim_matches(|c| c == ' ' || c == '\t');
            if name.is_empty() || !name.bytes().all(is_tchar) {
                return Err(Reject::bad_request("malformed Transfer-Encoding"));
            }
            codings += 1;
            unknown |= !coding.eq_ignore_ascii_case("chunked");
        }
    }
    let te_present = headers.iter().any(|h| h.field.equiv("Transfer-Encoding"));
    if unknown {
        return Err(ReadError::Reject(Reject {
            status: 501,
            code: "NOT_IMPLEMENTED",
            message: "unsupported Transfer-Encoding; only chunked is supported".into(),
        }));
    }
    if te_present && codings != 1 {
        return Err(Reject::bad_request("malformed Transfer-Encoding"));
    }
    Ok(())
}

/// keyhook patch: one header line (`name: value`), strictly: the name a token with no
/// whitespace before the colon, no line folding, no control characters in the value.
/// The value is trimmed of spaces and tabs; its obs-text bytes (0x80 to 0xFF, such as
/// UTF-8) are kept as opaque octets, each stored as DEL (0x7F), so that the value stays an
/// ASCII string that no check can mistake for a valid token or number.
fn parse_header(line: &[u8]) -> Result<crate::Header, ReadError> {
    let bad = || Reject::bad_request("malformed header line");
    let colon = line.iter().position(|&b| b == b':').ok_or_else(bad)?;
    let (name, value) = (&line[..colon], &line[colon + 1..]);
    if name.is_empty() || !name.iter().all(|&b| is_tchar(b)) {
        return Err(bad());
    }
    let is_ows = |b: &u8| *b == b' ' || *b == b'\t';
    let start = value.iter().position(|b| !is_ows(b)).unwrap_or(value.len());
    let end = value
        .iter()
        .rposition(|b| !is_ows(b))
        .map_or(start, |i| i + 1);
    let value = &value[start..end];
    // keyhook patch l: a value of plain bytes (nearly every one) is copied whole
    let out = if value.iter().all(|&b| is_value_byte(b)) {
        value.to_vec()
    } else {
        let mut out = Vec::with_capacity(value.len());
        for &b in value {
            out.push(match b {
                b if is_value_byte(b) => b,
                0x80..=0xff => 0x7f,
                _ => return Err(bad()),
            });
        }
        out
    };
    Ok(crate::Header {
        field: crate::HeaderField::from_bytes(name.to_vec()).map_err(|_| bad())?,
        value: AsciiString::from_ascii(out).map_err(|_| bad())?,
    })
}

impl Iterator for ClientConnection {
    type Item = Request;

    /// Blocks until the next Request is available.
    /// Returns None when no new Requests will come from the client.
    fn next(&mut self) -> Option<Request> {
        // keyhook patch: the body reader changed the socket's read timeout (the cache is
        // stale); a body failed (or was left unread): we don't know where the next request
        // would start, so the connection ends here.
        if self
            .body_guard
            .timeout_changed
            .swap(false, std::sync::atomic::Ordering::Relaxed)
        {
            self.socket_timeout = Some(Duration::ZERO);
        }
        if self
            .body_guard
            .close
            .load(std::sync::atomic::Ordering::Acquire)
        {
            self.linger();
            return None;
        }

        // the client sent a "connection: close" header in this previous request
        //  or is using HTTP 1.0, meaning that no new request will come
        if self.no_more_requests {
            return None;
        }

        loop {
            let rq = match self.read() {
                // keyhook patch: every error tiny_http answers itself is a JSON envelope,
                // and ends the connection: we don't know where the next request would start.
                Err(ReadError::Reject(r)) => {
                    self.answer_and_close(error_response(r.status, r.code, &r.message));
                    return None;
                }

                // keyhook patch: a head that stopped arriving gets a 408 (upstream: only
                // where the platform reports `TimedOut`); a connection that sent nothing of a
                // new request is closed without one.
                Err(ReadError::HeadTimeout { started }) => {
                    if started {
                        self.answer_and_close(error_response(
                            408,
                            "REQUEST_TIMEOUT",
                            "the request head did not arrive in time",
                        ));
                    }
                    return None;
                }

                Err(ReadError::ExpectationFailed(_)) => {
                    self.answer_and_close(error_response(
                        417,
                        "EXPECTATION_FAILED",
                        "unsupported Expect header; only 100-continue is supported",
                    ));
                    return None; // TODO: should be recoverable, but needs handling in case of body
                }

                Err(ReadError::ReadIoError(_)) => return None,

                Ok(rq) => rq,
            };

            // updating the status of the connection
            let connection_header = rq
                .headers()
                .iter()
                .find(|h| h.field.equiv("Connection"))
                .map(|h| h.value.as_str());

            let lowercase = connection_header.map(|h| h.to_ascii_lowercase());

            match lowercase {
                Some(ref val) if val.contains("close") => self.no_more_requests = true,
                // keyhook patch: `Connection: upgrade` no longer ends the connection: keyhook
                // never upgrades, and the body is framed as any other (request.rs).
                Some(ref val)
                    if !val.contains("keep-alive") && *rq.http_version() == HTTPVersion(1, 0) =>
                {
                    self.no_more_requests = true
                }
                None if *rq.http_version() == HTTPVersion(1, 0) => self.no_more_requests = true,
                _ => (),
            };

            // keyhook patch: a body over DRAIN_LIMIT is not drained when the request is dropped
            // (see util/equal_reader.rs), so the rest of this connection cannot be parsed: this
            // request is its last, and the connection is closed once the request is answered.
            if rq
                .body_length()
                .is_some_and(|n| n > crate::util::DRAIN_LIMIT)
            {
                self.no_more_requests = true;
            }

            // returning the request
            return Some(rq);
        }
    }
}

/// Parses a "HTTP/1.1" string.
///
/// keyhook patch: any `HTTP/d.d`; 1.x is read as 1.0 or 1.1 (a higher minor version is
/// answered as 1.1, RFC 9110 section 2.5), other majors get 505; anything else is malformed.
fn parse_http_version(version: &[u8]) -> Result<HTTPVersion, ReadError> {
    match version {
        [b'H', b'T', b'T', b'P', b'/', major, b'.', minor]
            if major.is_ascii_digit() && minor.is_ascii_digit() =>
        {
            match (major - b'0', minor - b'0') {
                (1, 0) => Ok(HTTPVersion(1, 0)),
                (1, _) => Ok(HTTPVersion(1, 1)),
                _ => Err(ReadError::Reject(Reject {
                    status: 505,
                    code: "HTTP_VERSION_NOT_SUPPORTED",
                    message: "this server only supports HTTP/1.0 and HTTP/1.1".into(),
                })),
            }
        }
        _ => Err(Reject::bad_request("malformed request line")),
    }
}

/// Parses the request line of the request.
/// eg. GET / HTTP/1.1
///
/// keyhook patch: strictly `method SP request-target SP HTTP-version` (RFC 9112 section 3),
/// the method a token, the target visible ASCII (bytes over 0x7F percent-encoded); anything
/// else is a 400.
fn parse_request_line(line: &[u8]) -> Result<(Method, String, HTTPVersion), ReadError> {
    let bad = || Reject::bad_request("malformed request line");
    let mut parts = line.split(|&b| b == b' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(bad());
    };
    if method.is_empty() || !method.iter().all(|&b| is_tchar(b)) {
        return Err(bad());
    }
    if target.is_empty() {
        return Err(bad());
    }
    // Bytes over 0x7F (a UTF-8 path, say) are opaque: percent-encoded, as a client should
    // have sent them, so they route as an unknown path instead of failing the request.
    let visible = |b: u8| (0x21..=0x7e).contains(&b);
    let path = match std::str::from_utf8(target) {
        // keyhook patch l: a target of visible ASCII (nearly every one) is copied whole
        Ok(plain) if target.iter().all(|&b| visible(b)) => plain.to_owned(),
        _ => {
            let mut path = String::with_capacity(target.len());
            for &b in target {
                match b {
                    b if visible(b) => path.push(char::from(b)),
                    0x80..=0xff => path.push_str(&format!("%{b:02X}")),
                    _ => return Err(bad()),
                }
            }
            path
        }
    };
    let version = parse_http_version(version)?;
    check_target(target)?;
    // ASCII, checked above
    let method = std::str::from_utf8(method)
        .ok()
        .and_then(|m| m.parse().ok())
        .ok_or_else(bad)?;
    let target = path;
    Ok((method, target, version))
}

#[cfg(test)]
mod test {
    #[test]
    fn test_parse_request_line() {
        let (method, path, ver) = super::parse_request_line(b"GET /hello HTTP/1.1").unwrap();

        assert!(method == crate::Method::Get);
        assert!(path == "/hello");
        assert!(ver == crate::common::HTTPVersion(1, 1));

        assert!(super::parse_request_line(b"GET /hello").is_err());
        assert!(super::parse_request_line(b"qsd qsd qsd").is_err());
    }

    // keyhook patch l: the whole-copy paths and the byte-by-byte ones give the same results
    #[test]
    fn targets_and_values_plain_or_not() {
        let path = |line: &[u8]| super::parse_request_line(line).map(|(_, p, _)| p).ok();
        assert_eq!(
            path(b"GET /a?b=c&d=%41 HTTP/1.1").as_deref(),
            Some("/a?b=c&d=%41")
        );
        assert_eq!(
            path(b"GET /h\xc3\xa9 HTTP/1.1").as_deref(),
            Some("/h%C3%A9")
        );
        assert_eq!(path(b"GET /\xff HTTP/1.1").as_deref(), Some("/%FF"));
        for bad in [
            &b"GET /a\x7fb HTTP/1.1"[..],
            b"GET /a\tb HTTP/1.1",
            b"GET /\x00 HTTP/1.1",
        ] {
            assert_eq!(path(bad), None, "{bad:?}");
        }
        let value = |line: &[u8]| {
            super::parse_header(line)
                .map(|h| h.value.as_str().to_owned())
                .ok()
        };
        assert_eq!(value(b"A: \t x  y\t ").as_deref(), Some("x  y"));
        assert_eq!(value(b"A: Bearer kp_1").as_deref(), Some("Bearer kp_1"));
        assert_eq!(value(b"A: h\xc3\xa9").as_deref(), Some("h\x7f\x7f"));
        assert_eq!(value(b"A:").as_deref(), Some(""));
        for bad in [
            &b"A: x\x00y"[..],
            b"A: \x7f",
            b"A: x\x1by",
            b"A B: x",
            b": x",
        ] {
            assert_eq!(value(bad), None, "{bad:?}");
        }
    }

    // keyhook patch g
    #[test]
    fn host_grammar() {
        for ok in [
            &b"h"[..],
            b"127.0.0.1:8080",
            b"localhost:65535",
            b"a-b.c_d~e:1",
            b"%41b",
            b"!$&'()*+,;=",
            b"[::1]",
            b"[::1]:443",
            b"[2001:db8::192.0.2.1]",
        ] {
            assert!(
                super::is_valid_host(ok),
                "{:?}",
                String::from_utf8_lossy(ok)
            );
        }
        for bad in [
            &b""[..],
            b":80",
            b"h:",
            b"h:99999",
            b"h:0",
            b"h:00000",
            b"h:123456",
            b"h:xyz",
            b"h:-1",
            b"a b",
            b"a/b",
            b"u@a",
            b"u:pw@h",
            b"h\x7f",
            b"h%4",
            b"h%zz",
            b"[::1",
            b"[::1]x",
            b"[::1]:",
            b"[v1.x]",
            b"[1::2::3]",
            b"a:1:2",
        ] {
            assert!(
                !super::is_valid_host(bad),
                "{:?}",
                String::from_utf8_lossy(bad)
            );
        }
    }

    // keyhook patch h
    #[test]
    fn an_over_long_request_line_is_414_or_501() {
        let status = |line: &[u8]| match super::Reject::long_request_line(line) {
            super::ReadError::Reject(r) => (r.status, r.code),
            _ => unreachable!(),
        };
        let mut target = b"GET /".to_vec();
        target.extend(std::iter::repeat(b'a').take(super::MAX_REQUEST_LINE));
        assert_eq!(status(&target), (414, "URI_TOO_LONG"));
        let method = vec![b'G'; super::MAX_REQUEST_LINE + 1];
        assert_eq!(status(&method), (501, "NOT_IMPLEMENTED"));
    }

    // keyhook patch h
    #[test]
    fn no_server_header_is_added() {
        let mut out = Vec::new();
        crate::Response::from_string("x")
            .raw_print(&mut out, crate::HTTPVersion(1, 1), &[], false, None)
            .unwrap();
        let head = String::from_utf8_lossy(&out).to_ascii_lowercase();
        assert!(head.contains("date:") && !head.contains("server:"), "{head}");
    }

    // keyhook patch i
    #[test]
    fn a_response_goes_out_in_one_write_with_its_body_up_to_16_kib() {
        /// Keeps each write apart.
        #[derive(Default)]
        struct Writes(Vec<Vec<u8>>);
        impl std::io::Write for Writes {
            fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
                self.0.push(b.to_vec());
                Ok(b.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let print = |body: Vec<u8>, head_only: bool| {
            let mut w = Writes::default();
            crate::Response::from_data(body)
                .raw_print(&mut w, crate::HTTPVersion(1, 1), &[], head_only, None)
                .unwrap();
            w.0
        };
        for len in [1, 1500, 16 * 1024] {
            let writes = print(vec![b'x'; len], false);
            assert_eq!(writes.len(), 1, "a body of {len} bytes");
            let out = String::from_utf8(writes[0].clone()).unwrap();
            let (head, body) = out.split_once("\r\n\r\n").unwrap();
            assert!(head.contains(&format!("Content-Length: {len}")), "{head}");
            assert_eq!(body.len(), len);
        }
        // Larger: the head, then the body as it is read.
        let writes = print(vec![b'x'; 16 * 1024 + 1], false);
        assert!(writes.len() >= 2, "{}", writes.len());
        assert!(writes[0].ends_with(b"\r\n\r\n"));
        assert_eq!(writes[1..].iter().map(Vec::len).sum::<usize>(), 16 * 1024 + 1);
        // HEAD, and an empty body: the head alone.
        for (body, head_only) in [(vec![b'x'; 10], true), (Vec::new(), false)] {
            let writes = print(body, head_only);
            assert_eq!(writes.len(), 1);
            assert!(writes[0].ends_with(b"\r\n\r\n"));
        }
    }

    // keyhook patch g
    #[test]
    fn request_targets() {
        for ok in [
            &b"/"[..],
            b"/api/v1/api-keys?a=b",
            b"*",
            b"http://h/api",
            b"HTTPS://[::1]:8443/x",
            b"http://h",
            b"http://h?x",
        ] {
            assert!(
                super::check_target(ok).is_ok(),
                "{:?}",
                String::from_utf8_lossy(ok)
            );
        }
        for bad in [
            &b"/a#b"[..],
            b"http://h#/api",
            b"http:///api",
            b"http://u:pw@h/",
            b"http://h:99999/",
            b"http://[::1/",
            b"ftp://h/",
            b"http:/api",
            b"h:80",
            b"api/v1",
        ] {
            assert!(
                super::check_target(bad).is_err(),
                "{:?}",
                String::from_utf8_lossy(bad)
            );
        }
    }
}
