//! keyhook patch (the whole file): request bodies read strictly and within bounds.
//!
//! `BodyReader` replaces upstream's body readers (`EqualReader` with its 1 KiB pre-read,
//! `chunked_transfer::Decoder`, and the raw stream handed over for `Connection: upgrade`):
//!
//! - a `Content-Length` body that ends early is an error (`Truncated`), never a short body;
//! - a chunked body is decoded by a strict grammar (`1*HEXDIG [";" ext] CRLF`, data, CRLF;
//!   a last chunk, trailer lines, CRLF), every line bounded (`MAX_CHUNK_LINE`; trailers as
//!   header lines), any deviation an error (`Malformed`), a size over the limit `TooLarge`;
//! - the whole body must arrive before a deadline (`TimedOut`);
//! - any error marks the connection to be closed after the response (`BodyGuard::close`),
//!   with `Connection: close`: what follows a broken body is never read as a request.

use std::convert::TryFrom;
use std::fmt;
use std::io::{self, BufReader, ErrorKind, Read};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::util::bytes::{is_tchar, is_value_byte};
use crate::util::{RefinedTcpStream, SequentialReader, DRAIN_LIMIT};

/// The longest chunk-size line, extensions included, without its CRLF.
pub const MAX_CHUNK_LINE: usize = 1024;

/// Why a request body could not be read: the payload of the `io::Error` that a read of
/// the body returns (see [`body_error`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyError {
    /// The chunked framing is broken (the message says how).
    Malformed(&'static str),
    /// A chunk is larger than what is left of the body limit (`Request::set_body_limit`).
    TooLarge,
    /// The connection ended before the whole body arrived.
    Truncated,
    /// The body did not arrive before its deadline (or a read timed out).
    TimedOut,
}

impl fmt::Display for BodyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BodyError::Malformed(m) => write!(f, "malformed chunked body: {m}"),
            BodyError::TooLarge => f.write_str("the request body is too large"),
            BodyError::Truncated => f.write_str("the request body ended before its end"),
            BodyError::TimedOut => f.write_str("the request body did not arrive in time"),
        }
    }
}

impl std::error::Error for BodyError {}

/// The `BodyError` carried by an error of a body read, if it is one.
pub fn body_error(e: &io::Error) -> Option<BodyError> {
    e.get_ref()
        .and_then(|inner| inner.downcast_ref::<BodyError>())
        .copied()
}

fn error(e: BodyError) -> io::Error {
    let kind = match e {
        BodyError::Malformed(_) | BodyError::TooLarge => ErrorKind::InvalidData,
        BodyError::Truncated => ErrorKind::UnexpectedEof,
        BodyError::TimedOut => ErrorKind::TimedOut,
    };
    io::Error::new(kind, e)
}

/// What a connection and its request's body reader share.
#[derive(Debug, Default)]
pub(crate) struct BodyGuard {
    /// The connection ends after this response (a body error, or the application asked).
    pub close: AtomicBool,
    /// The body reader changed the socket's read timeout.
    pub timeout_changed: AtomicBool,
    /// The most body bytes accepted (0: no limit).
    pub limit: AtomicUsize,
}

/// Where a body is read from: the connection's buffered reader, which can tell whether a
/// read needs the socket (only then is its read timeout set to the deadline's rest).
pub trait BodySource: Read + Send + 'static {
    /// How many bytes a read can return without a system call.
    fn buffered(&mut self) -> usize {
        usize::MAX
    }
    fn set_read_timeout(&mut self, _timeout: Option<Duration>) {}
}

impl BodySource for &'static [u8] {}

impl BodySource for SequentialReader<BufReader<RefinedTcpStream>> {
    fn buffered(&mut self) -> usize {
        self.get_mut().buffer().len()
    }
    fn set_read_timeout(&mut self, timeout: Option<Duration>) {
        let _ = self.get_mut().get_ref().set_read_timeout(timeout);
    }
}

pub(crate) enum Framing {
    Length(usize),
    Chunked,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    /// Before a chunk-size line.
    Size,
    /// Within a chunk's data: this much is left of it.
    Data(usize),
    /// The whole body was read.
    Done,
    Failed(BodyError),
}

pub(crate) struct BodyReader<R: BodySource> {
    src: R,
    state: State,
    chunked: bool,
    /// The body bytes so far (chunked).
    total: usize,
    guard: Arc<BodyGuard>,
    deadline: Option<Instant>,
    read_timeout: Option<Duration>,
    line: Vec<u8>,
}

impl<R: BodySource> BodyReader<R> {
    pub fn new(
        src: R,
        framing: Framing,
        guard: Arc<BodyGuard>,
        deadline: Option<Instant>,
        read_timeout: Option<Duration>,
    ) -> Self {
        let (state, chunked) = match framing {
            Framing::Length(0) => (State::Done, false),
            Framing::Length(n) => (State::Data(n), false),
            Framing::Chunked => (State::Size, true),
        };
        BodyReader {
            src,
            state,
            chunked,
            total: 0,
            guard,
            deadline,
            read_timeout,
            line: Vec::new(),
        }
    }

    fn fail(&mut self, e: BodyError) -> io::Error {
        self.state = State::Failed(e);
        self.guard.close.store(true, Ordering::Release);
        error(e)
    }

    /// One read from the source; a read that needs the socket waits at most until the
    /// deadline. End of stream is `Truncated`: a body never ends early.
    fn raw_read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if let Some(end) = self.deadline {
            if self.src.buffered() == 0 {
                let left = end.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    return Err(self.fail(BodyError::TimedOut));
                }
                let t = self.read_timeout.map_or(left, |t| t.min(left));
                self.src.set_read_timeout(Some(t));
                self.guard.timeout_changed.store(true, Ordering::Relaxed);
            }
        }
        loop {
            return match self.src.read(buf) {
                Ok(0) if !buf.is_empty() => Err(self.fail(BodyError::Truncated)),
                Ok(n) => Ok(n),
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                    Err(self.fail(BodyError::TimedOut))
                }
                Err(_) => Err(self.fail(BodyError::Truncated)),
            };
        }
    }

    fn byte(&mut self) -> io::Result<u8> {
        let mut b = [0u8; 1];
        self.raw_read(&mut b)?;
        Ok(b[0])
    }

    /// A CRLF-terminated line into `self.line` (without the CRLF), at most `max` bytes.
    fn read_line(&mut self, max: usize, too_long: &'static str) -> io::Result<()> {
        self.line.clear();
        loop {
            match self.byte()? {
                b'\r' => {
                    if self.byte()? != b'\n' {
                        return Err(self.fail(BodyError::Malformed("a CR without LF")));
                    }
                    return Ok(());
                }
                b'\n' => return Err(self.fail(BodyError::Malformed("a line ended by LF alone"))),
                _ if self.line.len() >= max => {
                    return Err(self.fail(BodyError::Malformed(too_long)));
                }
                b => self.line.push(b),
            }
        }
    }

    /// The next chunk-size line: the next state (`Data(n)`, or `Done` after the trailers).
    fn chunk_header(&mut self) -> io::Result<State> {
        self.read_line(MAX_CHUNK_LINE, "a chunk-size line is too long")?;
        let line = &self.line;
        let digits = line.iter().take_while(|b| b.is_ascii_hexdigit()).count();
        let ext = &line[digits..];
        if digits == 0 {
            return Err(self.fail(BodyError::Malformed("a chunk size is not hexadecimal")));
        }
        if !(ext.is_empty() || (ext[0] == b';' && ext.iter().all(|&b| is_value_byte(b)))) {
            return Err(self.fail(BodyError::Malformed("a chunk size is not hexadecimal")));
        }
        let hex = &line[..digits];
        let significant = &hex[hex.iter().take_while(|&&b| b == b'0').count()..];
        if significant.len() > 16 {
            return Err(self.fail(BodyError::TooLarge));
        }
        let size = significant
            .iter()
            .fold(0u64, |n, &b| (n << 4) | u64::from((b as char).to_digit(16).unwrap_or(0)));
        let limit = self.guard.limit.load(Ordering::Relaxed);
        let size = usize::try_from(size).unwrap_or(usize::MAX);
        if limit > 0 && size > limit.saturating_sub(self.total) {
            return Err(self.fail(BodyError::TooLarge));
        }
        if size > 0 {
            return Ok(State::Data(size));
        }
        // the trailer section: header lines, with the head's limits, discarded
        let mut lines = 0;
        let mut bytes = 0;
        loop {
            self.read_line(crate::client::MAX_HEADER_LINE, "a trailer line is too long")?;
            if self.line.is_empty() {
                return Ok(State::Done);
            }
            lines += 1;
            bytes += self.line.len() + 2;
            if lines > crate::client::MAX_HEADERS || bytes > crate::client::MAX_HEADERS_SIZE {
                return Err(self.fail(BodyError::Malformed("the trailer section is too large")));
            }
            let name = self.line.iter().take_while(|&&b| is_tchar(b)).count();
            if name == 0 || self.line.get(name) != Some(&b':') {
                return Err(self.fail(BodyError::Malformed("a malformed trailer line")));
            }
        }
    }
}

impl<R: BodySource> Read for BodyReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        loop {
            match self.state {
                State::Done => return Ok(0),
                State::Failed(e) => return Err(error(e)),
                State::Size => self.state = self.chunk_header()?,
                State::Data(left) => {
                    let want = buf.len().min(left);
                    let n = self.raw_read(&mut buf[..want])?;
                    let left = left - n;
                    self.total += n;
                    self.state = State::Data(left);
                    if left == 0 {
                        self.state = if self.chunked {
                            // the data's CRLF
                            if self.byte()? != b'\r' || self.byte()? != b'\n' {
                                return Err(self.fail(BodyError::Malformed(
                                    "a chunk is longer than its size",
                                )));
                            }
                            State::Size
                        } else {
                            State::Done
                        };
                    }
                    return Ok(n);
                }
            }
        }
    }
}

impl<R: BodySource> Drop for BodyReader<R> {
    /// An unread rest is read and dropped (at most `DRAIN_LIMIT` bytes, within the deadline)
    /// so that the connection can serve its next request; if that fails, the connection is
    /// closed. Not when the connection closes anyway.
    fn drop(&mut self) {
        if matches!(self.state, State::Done | State::Failed(_))
            || self.guard.close.load(Ordering::Acquire)
        {
            return;
        }
        if matches!(self.state, State::Data(n) if n > DRAIN_LIMIT) {
            self.guard.close.store(true, Ordering::Release);
            return;
        }
        let mut scratch = [0u8; 8 * 1024];
        let mut drained = 0;
        while drained <= DRAIN_LIMIT {
            match self.read(&mut scratch) {
                Ok(0) => return,
                Ok(n) => drained += n,
                Err(_) => return,
            }
        }
        self.guard.close.store(true, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(body: &'static [u8], limit: usize) -> Result<Vec<u8>, BodyError> {
        let guard = Arc::new(BodyGuard::default());
        guard.limit.store(limit, Ordering::Relaxed);
        let mut r = BodyReader::new(body, Framing::Chunked, guard, None, None);
        let mut out = Vec::new();
        r.read_to_end(&mut out)
            .map(|_| out)
            .map_err(|e| body_error(&e).unwrap())
    }

    #[test]
    fn chunked_grammar() {
        assert_eq!(read(b"3\r\nabc\r\n0\r\n\r\n", 0).unwrap(), b"abc");
        assert_eq!(read(b"3;x=y\r\nabc\r\n0\r\nX-T: 1\r\n\r\n", 0).unwrap(), b"abc");
        assert_eq!(read(b"0003\r\nabc\r\n0\r\n\r\n", 0).unwrap(), b"abc");
        // a chunk extension's bytes: those of a header value (HTAB, SP, visible ASCII)
        assert_eq!(read(b"3;x=\t\"a b\"\r\nabc\r\n0\r\n\r\n", 0).unwrap(), b"abc");
        for bad in [
            &b"3;x\x00\r\nabc\r\n0\r\n\r\n"[..],
            b"3;x\x7f\r\nabc\r\n0\r\n\r\n",
            b"3;\xc3\xa9\r\nabc\r\n0\r\n\r\n",
            b"3;x\x1b\r\nabc\r\n0\r\n\r\n",
        ] {
            assert!(
                matches!(read(bad, 0), Err(BodyError::Malformed(_))),
                "{:?}",
                bad
            );
        }
        for bad in [
            &b"+3\r\nabc\r\n0\r\n\r\n"[..],
            b" 3\r\nabc\r\n0\r\n\r\n",
            b"3 \r\nabc\r\n0\r\n\r\n",
            b"3\nabc\r\n0\r\n\r\n",
            b"3\r\nabcd\r\n0\r\n\r\n",
            b"zz\r\n",
            b"0\r\nXPOST / HTTP/1.1\r\n\r\n",
        ] {
            assert!(matches!(read(bad, 0), Err(BodyError::Malformed(_))));
        }
        assert_eq!(read(b"3\r\nab", 0), Err(BodyError::Truncated));
        assert_eq!(read(b"11\r\n", 16), Err(BodyError::TooLarge));
        assert_eq!(
            read(b"10000000000000000\r\n", 0),
            Err(BodyError::TooLarge)
        );
    }
}
