use crate::common::{HTTPVersion, Header, StatusCode};
use httpdate::HttpDate;
use std::cmp::Ordering;
use std::sync::mpsc::Receiver;

use std::io::Result as IoResult;
use std::io::{self, Cursor, Read, Write};

use std::fs::File;

use std::str::FromStr;
use std::time::SystemTime;

/// Object representing an HTTP response whose purpose is to be given to a `Request`.
///
/// Some headers cannot be changed. Trying to define the value
/// of one of these will have no effect:
///
///  - `Connection`
///  - `Trailer`
///  - `Transfer-Encoding`
///  - `Upgrade`
///
/// Some headers have special behaviors:
///
///  - `Content-Encoding`: If you define this header, the library
///     will assume that the data from the `Read` object has the specified encoding
///     and will just pass-through.
///
///  - `Content-Length`: The length of the data should be set manually
///     using the `Reponse` object's API. Attempting to set the value of this
///     header will be equivalent to modifying the size of the data but the header
///     itself may not be present in the final result.
///
///  - `Content-Type`: You may only set this header to one value at a time. If you
///     try to set it more than once, the existing value will be overwritten. This
///     behavior differs from the default for most headers, which is to allow them to
///     be set multiple times in the same response.
///
pub struct Response<R> {
    reader: R,
    status_code: StatusCode,
    headers: Vec<Header>,
    data_length: Option<usize>,
    chunked_threshold: Option<usize>,
    /// keyhook patch m: lines written after `headers`.
    lines: Option<HeaderLines>,
}

/// keyhook patch m: header lines put together (and checked) once, then sent by any number of
/// responses without a `Header` (two allocations, and `add_header`'s look at its name) each:
/// cloning one is an `Arc` clone. A response writes them after its headers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeaderLines(std::sync::Arc<[u8]>);

/// keyhook patch m: the headers a response frames or dates itself (`add_header` ignores or
/// interprets them, `raw_print` adds `Date` when none is there): never in `HeaderLines`.
const NOT_LINES: [&str; 7] = [
    "Connection",
    "Content-Length",
    "Content-Type",
    "Date",
    "Trailer",
    "Transfer-Encoding",
    "Upgrade",
];

impl HeaderLines {
    /// The lines `name: value` of `headers`, in their order. A header whose name is not a
    /// token or is one of those a response frames itself (`Connection`, `Content-Length`,
    /// `Content-Type`, `Date`, `Trailer`, `Transfer-Encoding`, `Upgrade`), or whose value has
    /// a byte other than HTAB, SP and visible ASCII (a CR or LF would end the line), is left
    /// out rather than sent broken.
    pub fn new<'a>(headers: impl IntoIterator<Item = (&'a str, &'a str)>) -> HeaderLines {
        use crate::util::bytes::{is_tchar, is_value_byte};
        let mut out = Vec::new();
        for (name, value) in headers {
            let name_ok = !name.is_empty()
                && name.bytes().all(is_tchar)
                && !NOT_LINES.iter().any(|n| n.eq_ignore_ascii_case(name));
            if name_ok && value.bytes().all(is_value_byte) {
                out.extend_from_slice(name.as_bytes());
                out.extend_from_slice(b": ");
                out.extend_from_slice(value.as_bytes());
                out.extend_from_slice(b"\r\n");
            }
        }
        HeaderLines(out.into())
    }

    /// The lines as sent, each ending in CRLF.
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }
}

/// A `Response` without a template parameter.
pub type ResponseBox = Response<Box<dyn Read + Send>>;

/// Transfer encoding to use when sending the message.
/// Note that only *supported* encoding are listed here.
#[derive(Copy, Clone)]
enum TransferEncoding {
    Identity,
    Chunked,
}

impl FromStr for TransferEncoding {
    type Err = ();

    fn from_str(input: &str) -> Result<TransferEncoding, ()> {
        if input.eq_ignore_ascii_case("identity") {
            Ok(TransferEncoding::Identity)
        } else if input.eq_ignore_ascii_case("chunked") {
            Ok(TransferEncoding::Chunked)
        } else {
            Err(())
        }
    }
}

/// keyhook patch k: the `Date` header's value for now, formatted once a second per thread
/// (upstream formatted it, and allocated a `Header` for it, for every response). HTTP dates
/// have a resolution of one second, so the value is the same.
fn http_date_now() -> [u8; 29] {
    use std::cell::Cell;
    thread_local! {
        static CACHED: Cell<(u64, [u8; 29])> = const { Cell::new((u64::MAX, [0; 29])) };
    }
    let now = SystemTime::now();
    let second = now
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    CACHED.with(|cached| {
        let (at, text) = cached.get();
        if at == second {
            return text;
        }
        let mut text = [b' '; 29];
        let formatted = HttpDate::from(now).to_string();
        let n = formatted.len().min(29);
        text[..n].copy_from_slice(&formatted.as_bytes()[..n]);
        cached.set((second, text));
        text
    })
}

/// keyhook patch k: `n` in decimal, appended without formatting machinery.
fn push_decimal(out: &mut Vec<u8>, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[i..]);
}

/// keyhook patch k: room for a usual response head, so that putting it together does not
/// grow the buffer.
const HEAD_ROOM: usize = 512;

thread_local! {
    /// keyhook patch k: the buffer a connection thread puts its responses together in, kept
    /// from one response to the next (a response with its body up to `ONE_WRITE` was a new
    /// buffer of over 1 KiB each time: past `malloc`'s per-thread cache, into its shared
    /// arena).
    static HEAD_BUFFER: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// keyhook patch i: the largest body written with its head in one write.
const ONE_WRITE: usize = 16 * 1024;

/// keyhook patch k: the status line and the header lines, in the order upstream wrote them
/// (the `Connection` and `Upgrade` of an upgrade, `Date` when the response has none, the
/// response's headers, then `Transfer-Encoding` or `Content-Length`) and the empty line,
/// appended to `head` directly (upstream inserted `Header`s for the added ones, each two
/// allocations, and wrote the lines through `write!`).
fn write_message_header(
    head: &mut Vec<u8>,
    http_version: &HTTPVersion,
    status_code: &StatusCode,
    upgrade: Option<&str>,
    date: Option<&[u8]>,
    headers: &[Header],
    lines: Option<&HeaderLines>,
    framing: Option<(TransferEncoding, Option<usize>)>,
) {
    head.extend_from_slice(b"HTTP/");
    push_decimal(head, u64::from(http_version.0));
    head.push(b'.');
    push_decimal(head, u64::from(http_version.1));
    head.push(b' ');
    push_decimal(head, u64::from(status_code.0));
    head.push(b' ');
    head.extend_from_slice(status_code.default_reason_phrase().as_bytes());
    head.extend_from_slice(b"\r\n");
    let mut line = |name: &[u8], value: &[u8]| {
        head.extend_from_slice(name);
        head.extend_from_slice(b": ");
        head.extend_from_slice(value);
        head.extend_from_slice(b"\r\n");
    };
    if let Some(upgrade) = upgrade {
        line(b"Connection", b"upgrade");
        line(b"Upgrade", upgrade.as_bytes());
    }
    if let Some(date) = date {
        line(b"Date", date);
    }
    for header in headers.iter() {
        line(
            header.field.as_str().as_ref(),
            header.value.as_str().as_ref(),
        );
    }
    // keyhook patch m
    if let Some(lines) = lines {
        head.extend_from_slice(lines.as_bytes());
    }
    match framing {
        Some((TransferEncoding::Chunked, _)) => {
            head.extend_from_slice(b"Transfer-Encoding: chunked\r\n")
        }
        Some((TransferEncoding::Identity, Some(length))) => {
            head.extend_from_slice(b"Content-Length: ");
            push_decimal(head, length as u64);
            head.extend_from_slice(b"\r\n");
        }
        _ => (),
    }
    // separator between header and data
    head.extend_from_slice(b"\r\n");
}

fn choose_transfer_encoding(
    status_code: StatusCode,
    request_headers: &[Header],
    http_version: &HTTPVersion,
    entity_length: &Option<usize>,
    has_additional_headers: bool,
    chunked_threshold: usize,
) -> TransferEncoding {
    use crate::util;

    // HTTP 1.0 doesn't support other encoding
    if *http_version <= (1, 0) {
        return TransferEncoding::Identity;
    }

    // Per section 3.3.1 of RFC7230:
    // A server MUST NOT send a Transfer-Encoding header field in any response with a status code
    // of 1xx (Informational) or 204 (No Content).
    if status_code.0 < 200 || status_code.0 == 204 {
        return TransferEncoding::Identity;
    }

    // parsing the request's TE header
    let user_request = request_headers
        .iter()
        // finding TE
        .find(|h| h.field.equiv("TE"))
        // getting its value
        .map(|h| h.value.clone())
        // getting the corresponding TransferEncoding
        .and_then(|value| {
            // getting list of requested elements
            let mut parse = util::parse_header_value(value.as_str()); // TODO: remove conversion

            // sorting elements by most priority
            parse.sort_by(|a, b| b.1.partial_cmp(&a.1).unwrap_or(Ordering::Equal));

            // trying to parse each requested encoding
            for value in parse.iter() {
                // q=0 are ignored
                if value.1 <= 0.0 {
                    continue;
                }

                if let Ok(te) = TransferEncoding::from_str(value.0) {
                    return Some(te);
                }
            }

            // encoding not found
            None
        });

    if let Some(user_request) = user_request {
        return user_request;
    }

    // if we have additional headers, using chunked
    if has_additional_headers {
        return TransferEncoding::Chunked;
    }

    // if we don't have a Content-Length, or if the Content-Length is too big, using chunks writer
    if entity_length
        .as_ref()
        .map_or(true, |val| *val >= chunked_threshold)
    {
        return TransferEncoding::Chunked;
    }

    // Identity by default
    TransferEncoding::Identity
}

impl<R> Response<R>
where
    R: Read,
{
    /// Creates a new Response object.
    ///
    /// The `additional_headers` argument is a receiver that
    ///  may provide headers even after the response has been sent.
    ///
    /// All the other arguments are straight-forward.
    pub fn new(
        status_code: StatusCode,
        headers: Vec<Header>,
        data: R,
        data_length: Option<usize>,
        additional_headers: Option<Receiver<Header>>,
    ) -> Response<R> {
        let mut response = Response {
            reader: data,
            status_code,
            headers: Vec::with_capacity(16),
            data_length,
            chunked_threshold: None,
            lines: None,
        };

        for h in headers {
            response.add_header(h)
        }

        // dummy implementation
        if let Some(additional_headers) = additional_headers {
            for h in additional_headers.iter() {
                response.add_header(h)
            }
        }

        response
    }

    /// Set a threshold for `Content-Length` where we chose chunked
    /// transfer. Notice that chunked transfer might happen regardless of
    /// this threshold, for instance when the request headers indicate
    /// it is wanted or when there is no `Content-Length`.
    pub fn with_chunked_threshold(mut self, length: usize) -> Response<R> {
        self.chunked_threshold = Some(length);
        self
    }

    /// Convert the response into the underlying `Read` type.
    ///
    /// This is mainly useful for testing as it must consume the `Response`.
    pub fn into_reader(self) -> R {
        self.reader
    }

    /// The current `Content-Length` threshold for switching over to
    /// chunked transfer. The default is 32768 bytes. Notice that
    /// chunked transfer is mutually exclusive with sending a
    /// `Content-Length` header as per the HTTP spec.
    pub fn chunked_threshold(&self) -> usize {
        self.chunked_threshold.unwrap_or(32768)
    }

    /// Adds a header to the list.
    /// Does all the checks.
    pub fn add_header<H>(&mut self, header: H)
    where
        H: Into<Header>,
    {
        let header = header.into();

        // ignoring forbidden headers
        if header.field.equiv("Connection")
            || header.field.equiv("Trailer")
            || header.field.equiv("Transfer-Encoding")
            || header.field.equiv("Upgrade")
        {
            return;
        }

        // if the header is Content-Length, setting the data length
        if header.field.equiv("Content-Length") {
            if let Ok(val) = usize::from_str(header.value.as_str()) {
                self.data_length = Some(val)
            }

            return;
        // if the header is Content-Type and it's already set, overwrite it
        } else if header.field.equiv("Content-Type") {
            if let Some(content_type_header) = self
                .headers
                .iter_mut()
                .find(|h| h.field.equiv("Content-Type"))
            {
                content_type_header.value = header.value;
                return;
            }
        }

        self.headers.push(header);
    }

    /// keyhook patch: adds `Connection: close`, which `add_header` refuses, for the error
    /// responses after which tiny_http closes the connection.
    pub(crate) fn with_connection_close(mut self) -> Response<R> {
        self.headers
            .push(Header::from_bytes(&b"Connection"[..], &b"close"[..]).unwrap());
        self
    }

    /// Returns the same request, but with an additional header.
    ///
    /// Some headers cannot be modified and some other have a
    ///  special behavior. See the documentation above.
    #[inline]
    pub fn with_header<H>(mut self, header: H) -> Response<R>
    where
        H: Into<Header>,
    {
        self.add_header(header.into());
        self
    }

    /// keyhook patch m: sends `lines` after the headers (after lines added before).
    pub fn with_header_lines(mut self, lines: HeaderLines) -> Response<R> {
        self.lines = Some(match self.lines.take() {
            None => lines,
            Some(before) => HeaderLines([before.as_bytes(), lines.as_bytes()].concat().into()),
        });
        self
    }

    /// Returns the same request, but with a different status code.
    #[inline]
    pub fn with_status_code<S>(mut self, code: S) -> Response<R>
    where
        S: Into<StatusCode>,
    {
        self.status_code = code.into();
        self
    }

    /// Returns the same request, but with different data.
    pub fn with_data<S>(self, reader: S, data_length: Option<usize>) -> Response<S>
    where
        S: Read,
    {
        Response {
            reader,
            headers: self.headers,
            status_code: self.status_code,
            data_length,
            chunked_threshold: self.chunked_threshold,
            lines: self.lines,
        }
    }

    /// Prints the HTTP response to a writer.
    ///
    /// This function is the one used to send the response to the client's socket.
    /// Therefore you shouldn't expect anything pretty-printed or even readable.
    ///
    /// The HTTP version and headers passed as arguments are used to
    ///  decide which features (most notably, encoding) to use.
    ///
    /// Note: does not flush the writer.
    pub fn raw_print<W: Write>(
        mut self,
        mut writer: W,
        http_version: HTTPVersion,
        request_headers: &[Header],
        do_not_send_body: bool,
        upgrade: Option<&str>,
    ) -> IoResult<()> {
        let mut transfer_encoding = Some(choose_transfer_encoding(
            self.status_code,
            request_headers,
            &http_version,
            &self.data_length,
            false, /* TODO */
            self.chunked_threshold(),
        ));

        // keyhook patch k: `Date` (when the response has none), `Connection` and `Upgrade`
        // are written with the head rather than inserted into the headers first.
        let date = if self.headers.iter().any(|h| h.field.equiv("Date")) {
            None
        } else {
            Some(http_date_now())
        };

        // keyhook patch h: no `Server` header is added (upstream adds `tiny-http (Rust)`):
        // the application sends one if it wants one.

        // handling upgrade
        if upgrade.is_some() {
            transfer_encoding = None;
        }

        // if the transfer encoding is identity, the content length must be known ; therefore if
        // we don't know it, we buffer the entire response first here
        // while this is an expensive operation, it is only ever needed for clients using HTTP 1.0
        let (mut reader, data_length): (Box<dyn Read>, _) =
            match (self.data_length, transfer_encoding) {
                (Some(l), _) => (Box::new(self.reader), Some(l)),
                (None, Some(TransferEncoding::Identity)) => {
                    let mut buf = Vec::new();
                    self.reader.read_to_end(&mut buf)?;
                    let l = buf.len();
                    (Box::new(Cursor::new(buf)), Some(l))
                }
                _ => (Box::new(self.reader), None),
            };

        // checking whether to ignore the body of the response
        let do_not_send_body = do_not_send_body
            || match self.status_code.0 {
                // status code 1xx, 204 and 304 MUST not include a body
                100..=199 | 204 | 304 => true,
                _ => false,
            };

        // keyhook patch i: the head is put together in memory and written at once (each
        // small write went through the connection's lock and its 1 KiB buffer); a body of a
        // known length up to `ONE_WRITE` goes in the same write. Upstream wrote the head, which
        // the buffer held, then the body, and a body over 1 KiB made the buffer send the head
        // alone first: two `send`s, and two segments for the client, per response.
        // keyhook patch k: in the connection thread's buffer, kept from one response to the
        // next (taken out while in use, so a nested use finds it empty and uses its own).
        let mut head = HEAD_BUFFER.with(|b| std::mem::take(&mut *b.borrow_mut()));
        let framing = transfer_encoding.map(|t| (t, data_length));
        let one_write = match (do_not_send_body, transfer_encoding, data_length) {
            (false, Some(TransferEncoding::Identity), Some(l @ 1..=ONE_WRITE)) => Some(l),
            _ => None,
        };
        head.reserve(HEAD_ROOM + one_write.unwrap_or(0));
        write_message_header(
            &mut head,
            &http_version,
            &self.status_code,
            upgrade,
            date.as_ref().map(|d| &d[..]),
            &self.headers,
            self.lines.as_ref(),
            framing,
        );
        let written = match one_write {
            Some(_) => reader
                .read_to_end(&mut head)
                .and_then(|_| writer.write_all(&head)),
            None => writer.write_all(&head),
        };
        // Kept empty, and only if no bigger than a usual head and a body up to `ONE_WRITE`
        // made it (a head past `HEAD_ROOM` grew it).
        head.clear();
        if head.capacity() <= HEAD_ROOM + ONE_WRITE {
            HEAD_BUFFER.with(|b| *b.borrow_mut() = head);
        }
        written?;
        if one_write.is_some() {
            return Ok(());
        }

        // sending the body
        if !do_not_send_body {
            match transfer_encoding {
                Some(TransferEncoding::Chunked) => {
                    use chunked_transfer::Encoder;

                    let mut writer = Encoder::new(writer);
                    io::copy(&mut reader, &mut writer)?;
                }

                Some(TransferEncoding::Identity) => {
                    assert!(data_length.is_some());
                    let data_length = data_length.unwrap();

                    if data_length >= 1 {
                        io::copy(&mut reader, &mut writer)?;
                    }
                }

                _ => (),
            }
        }

        Ok(())
    }

    /// Retrieves the current value of the `Response` status code
    pub fn status_code(&self) -> StatusCode {
        self.status_code
    }

    /// Retrieves the current value of the `Response` data length
    pub fn data_length(&self) -> Option<usize> {
        self.data_length
    }

    /// Retrieves the current list of `Response` headers
    pub fn headers(&self) -> &[Header] {
        &self.headers
    }
}

impl<R> Response<R>
where
    R: Read + Send + 'static,
{
    /// Turns this response into a `Response<Box<Read + Send>>`.
    pub fn boxed(self) -> ResponseBox {
        Response {
            reader: Box::new(self.reader) as Box<dyn Read + Send>,
            status_code: self.status_code,
            headers: self.headers,
            data_length: self.data_length,
            chunked_threshold: self.chunked_threshold,
            lines: self.lines,
        }
    }
}

impl Response<File> {
    /// Builds a new `Response` from a `File`.
    ///
    /// The `Content-Type` will **not** be automatically detected,
    ///  you must set it yourself.
    pub fn from_file(file: File) -> Response<File> {
        let file_size = file.metadata().ok().map(|v| v.len() as usize);

        Response::new(
            StatusCode(200),
            Vec::with_capacity(0),
            file,
            file_size,
            None,
        )
    }
}

impl Response<Cursor<Vec<u8>>> {
    pub fn from_data<D>(data: D) -> Response<Cursor<Vec<u8>>>
    where
        D: Into<Vec<u8>>,
    {
        let data = data.into();
        let data_len = data.len();

        Response::new(
            StatusCode(200),
            Vec::with_capacity(0),
            Cursor::new(data),
            Some(data_len),
            None,
        )
    }

    pub fn from_string<S>(data: S) -> Response<Cursor<Vec<u8>>>
    where
        S: Into<String>,
    {
        let data = data.into();
        let data_len = data.len();

        Response::new(
            StatusCode(200),
            vec![
                Header::from_bytes(&b"Content-Type"[..], &b"text/plain; charset=UTF-8"[..])
                    .unwrap(),
            ],
            Cursor::new(data.into_bytes()),
            Some(data_len),
            None,
        )
    }
}

impl Response<io::Empty> {
    /// Builds an empty `Response` with the given status code.
    pub fn empty<S>(status_code: S) -> Response<io::Empty>
    where
        S: Into<StatusCode>,
    {
        Response::new(
            status_code.into(),
            Vec::with_capacity(0),
            io::empty(),
            Some(0),
            None,
        )
    }

    /// DEPRECATED. Use `empty` instead.
    pub fn new_empty(status_code: StatusCode) -> Response<io::Empty> {
        Response::empty(status_code)
    }
}

impl Clone for Response<io::Empty> {
    fn clone(&self) -> Response<io::Empty> {
        Response {
            reader: io::empty(),
            status_code: self.status_code,
            headers: self.headers.clone(),
            data_length: self.data_length,
            chunked_threshold: self.chunked_threshold,
            lines: self.lines.clone(),
        }
    }
}

// keyhook patch k
#[cfg(test)]
mod test {
    use super::*;

    fn printed(
        response: Response<Cursor<Vec<u8>>>,
        version: HTTPVersion,
        upgrade: Option<&str>,
    ) -> String {
        let mut out = Vec::new();
        response
            .raw_print(&mut out, version, &[], false, upgrade)
            .unwrap();
        String::from_utf8(out).unwrap()
    }

    /// The `Date` line's value, checked to be an HTTP date, replaced by `DATE`.
    fn dated(out: &str) -> String {
        let start = out.find("Date: ").expect("a Date header") + 6;
        let value = &out[start..start + 29];
        assert!(httpdate::parse_http_date(value).is_ok(), "{value:?}");
        assert_eq!(&out[start + 29..start + 31], "\r\n");
        format!("{}DATE{}", &out[..start], &out[start + 29..])
    }

    /// keyhook patch m: lines are sent after the headers, as `Header`s with the same names
    /// and values would be; what a `Header` could carry broken (a CR or LF in a value, a
    /// name that is no token) or a header the response frames itself is left out.
    #[test]
    fn header_lines_are_sent_as_headers_would_be() {
        let header = |n: &str, v: &str| Header::from_bytes(n.as_bytes(), v.as_bytes()).unwrap();
        let pairs = [("X-A", "1"), ("X-B", "two words, \"quoted\"")];
        let as_headers = pairs
            .iter()
            .fold(Response::from_data(b"{}".to_vec()), |r, (n, v)| {
                r.with_header(header(n, v))
            });
        let lines = HeaderLines::new(pairs);
        assert_eq!(
            lines.as_bytes(),
            b"X-A: 1\r\nX-B: two words, \"quoted\"\r\n"
        );
        let as_lines = Response::from_data(b"{}".to_vec()).with_header_lines(lines.clone());
        assert_eq!(
            printed(as_lines, HTTPVersion(1, 1), None),
            printed(as_headers, HTTPVersion(1, 1), None)
        );
        let refused = HeaderLines::new([
            ("X-Injected", "a\r\nSet-Cookie: x=1"),
            ("X-Lf", "a\nb"),
            ("X-Nul", "a\0b"),
            ("X-Utf8", "é"),
            ("Bad Name", "1"),
            ("", "1"),
            ("content-length", "5"),
            ("Transfer-Encoding", "chunked"),
            ("Connection", "close"),
            ("Date", "x"),
            ("Content-Type", "text/plain"),
            ("Upgrade", "x"),
            ("Trailer", "x"),
            ("X-Kept", "yes"),
        ]);
        assert_eq!(refused.as_bytes(), b"X-Kept: yes\r\n");
        // Lines added twice are both sent, in order.
        let twice = Response::from_data(Vec::new())
            .with_header_lines(HeaderLines::new([("X-1", "a")]))
            .with_header_lines(HeaderLines::new([("X-2", "b")]));
        let out = dated(&printed(twice, HTTPVersion(1, 1), None));
        assert_eq!(
            out,
            "HTTP/1.1 200 OK\r\nDate: DATE\r\nX-1: a\r\nX-2: b\r\nContent-Length: 0\r\n\r\n"
        );
    }

    #[test]
    fn the_head_is_written_as_upstream_wrote_it() {
        let header = |n: &str, v: &str| Header::from_bytes(n.as_bytes(), v.as_bytes()).unwrap();
        let json = || {
            Response::from_data(b"{}".to_vec())
                .with_header(header("Content-Type", "application/json"))
                .with_header(header("Cache-Control", "no-store"))
        };
        assert_eq!(
            dated(&printed(json(), HTTPVersion(1, 1), None)),
            "HTTP/1.1 200 OK\r\nDate: DATE\r\nContent-Type: application/json\r\n\
             Cache-Control: no-store\r\nContent-Length: 2\r\n\r\n{}"
        );
        // An application's own Date is kept, and none is added.
        let own = json().with_header(header("Date", "Sun, 06 Nov 1994 08:49:37 GMT"));
        assert_eq!(
            printed(own.with_status_code(404), HTTPVersion(1, 0), None),
            "HTTP/1.0 404 Not Found\r\nContent-Type: application/json\r\n\
             Cache-Control: no-store\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\n\
             Content-Length: 2\r\n\r\n{}"
        );
        // A body of unknown length to an HTTP/1.1 client: chunked.
        let unknown = Response::new(
            StatusCode(200),
            vec![],
            Cursor::new(b"abc".to_vec()),
            None,
            None,
        );
        assert_eq!(
            dated(&printed(unknown, HTTPVersion(1, 1), None)),
            "HTTP/1.1 200 OK\r\nDate: DATE\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"
        );
        // An upgrade: its two headers first, no framing header.
        let switching = Response::new(
            StatusCode(101),
            vec![],
            Cursor::new(Vec::new()),
            Some(0),
            None,
        );
        assert_eq!(
            dated(&printed(switching, HTTPVersion(1, 1), Some("websocket"))),
            "HTTP/1.1 101 Switching Protocols\r\nConnection: upgrade\r\nUpgrade: websocket\r\n\
             Date: DATE\r\n\r\n"
        );
        // Large numbers, and the buffer kept between responses does not leak into the next.
        let big = Response::from_data(vec![b'x'; 20_000]).with_status_code(503);
        let out = printed(big, HTTPVersion(1, 1), None);
        assert!(
            out.contains("\r\nContent-Length: 20000\r\n\r\n"),
            "{out:.200}"
        );
        assert_eq!(out.len(), out.find("\r\n\r\n").unwrap() + 4 + 20_000);
        let small = printed(Response::from_data(b"y".to_vec()), HTTPVersion(1, 1), None);
        assert!(
            dated(&small).ends_with("Content-Length: 1\r\n\r\ny"),
            "{small}"
        );
    }

    #[test]
    fn decimals() {
        for n in [0u64, 7, 10, 99, 100, 65_535, u64::MAX] {
            let mut out = Vec::new();
            push_decimal(&mut out, n);
            assert_eq!(out, n.to_string().into_bytes());
        }
    }
}
