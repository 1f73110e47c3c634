//! The log subscriber: the one place where `tracing` events become lines on stderr.
//!
//! The library crates (keyhook-http, the outbox worker through it) only emit events; the binary's
//! front end installs this subscriber once, at start, for every command (`serve` with its
//! `--log-format`, every other command as text). Each event is one line:
//!
//! - `text`: the event's message alone, as keyhook's log lines have always looked (the access
//!   line `GET /api/v1/api-keys 200 1.2ms kp_0123abcd`, `keyhook: listening on ...`);
//! - `json`: one object with `time` (RFC 3339 UTC, ms, from the command's clock), `level`,
//!   `target`, `message` and the event's fields (for a request: `method`, `route`, `status`,
//!   `duration` in ms, `keyPrefix`).
//!
//! Whatever an event holds, this layer redacts it before writing: every string (the message,
//! each field, a field's `Debug` rendering) passes through [`redact::display`] (a plaintext key
//! becomes its prefix, a webhook secret `whsec_…`, a URL's or a `password=` parameter's password
//! `***`; control and bidi characters are escaped), and a line break is escaped too, so that
//! nothing an event carries (a hostile path, say) can start a line of its own. In JSON, each
//! value is redacted on its own before serialization, so the line stays valid JSON.
//!
//! Which events are written: `KEYHOOK_LOG`, a filter of `tracing` target directives
//! (`info`, the default; `warn`; `keyhook::access=off,info`), read once at start; an invalid
//! one is a usage error (exit 2).
//!
//! `serve`'s access lines come here without an event (the `AccessLog` [`init`] returns,
//! keyhook-core's), and are written as an event of target `keyhook::access` at `INFO` with
//! the same fields would be: the same lines, redaction and filter.

use std::borrow::Cow;
use std::fmt;
use std::io::Write;

use serde_json::Value;
use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::filter::Targets;
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};

use keyhook_core::access_log::{self, AccessLine, AccessLog};
use keyhook_core::error::{Error, FieldError};
use keyhook_core::redact;
use keyhook_core::time::Clock;

/// The environment variable that filters the log (`tracing` target directives).
pub const FILTER_ENV: &str = "KEYHOOK_LOG";

/// What `KEYHOOK_LOG` is when unset or empty.
const DEFAULT_FILTER: &str = "info";

/// How each log line is written (`serve --log-format`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// The message alone, one line per event
    #[default]
    Text,
    /// One JSON object per line: time, level, target, message and the event's fields
    Json,
}

/// Installs the subscriber for the process: events at or above the `KEYHOOK_LOG` filter are
/// written to stderr in `format`, redacted, with the time read from `clock`. Returns the
/// access log that writes `serve`'s access lines the same way.
pub fn init(format: LogFormat, clock: Clock) -> Result<std::sync::Arc<dyn AccessLog>, Error> {
    let filter = filter(std::env::var(FILTER_ENV).ok().as_deref())?;
    let access = AccessWriter {
        format,
        clock: clock.clone(),
        enabled: access_enabled(&filter),
    };
    let subscriber =
        tracing_subscriber::registry().with(Sink { format, clock }.with_filter(filter));
    // Set once per process; a second call (there is none) would keep the first.
    let _ = tracing::subscriber::set_global_default(subscriber);
    Ok(std::sync::Arc::new(access))
}

/// The filter `KEYHOOK_LOG` names (`None` or blank: [`DEFAULT_FILTER`]).
fn filter(value: Option<&str>) -> Result<Targets, Error> {
    let value = value.map(str::trim).filter(|v| !v.is_empty());
    value
        .unwrap_or(DEFAULT_FILTER)
        .parse::<Targets>()
        .map_err(|e| {
            Error::Validation(vec![FieldError::new(
                FILTER_ENV,
                format!(
                    "{e}; expected a level (error, warn, info, debug, trace, off) or \
                     target=level directives separated by commas"
                ),
            )])
        })
}

/// The layer that writes each event as one line.
struct Sink {
    format: LogFormat,
    clock: Clock,
}

impl<S: Subscriber> Layer<S> for Sink {
    fn on_event(&self, event: &Event<'_>, _ctx: Context<'_, S>) {
        STDERR.write_line(self.render(event).as_bytes(), &mut stderr());
    }
}

impl Sink {
    /// `event` as it is written, with its line break.
    fn render(&self, event: &Event<'_>) -> String {
        // A text line is the message alone: the other fields are not even formatted.
        let mut fields = Fields {
            message_only: self.format == LogFormat::Text,
            ..Fields::default()
        };
        event.record(&mut fields);
        let meta = event.metadata();
        let mut line = match self.format {
            LogFormat::Text => text_line(fields.message),
            LogFormat::Json => json_line(
                &self.clock.now().to_rfc3339(),
                meta.level(),
                meta.target(),
                fields.declared(meta.fields()),
            ),
        };
        line.push('\n');
        line
    }
}

/// Whether `filter` lets access lines through: events of target [`access_log::TARGET`] at
/// `INFO`.
fn access_enabled(filter: &Targets) -> bool {
    filter.would_enable(access_log::TARGET, &Level::INFO)
}

/// The log's side of [`AccessLog`]: `serve`'s access lines, written as the [`Sink`] writes an
/// event of target [`access_log::TARGET`] at `INFO` with the line's fields (the same text
/// and JSON lines, the same redaction, the same `KEYHOOK_LOG` filter), without an event:
/// the message is not formatted a second time, nor the fields dispatched through the
/// subscriber's layers. Access lines go in batches ([`GroupWriter::defer_line`]).
struct AccessWriter {
    format: LogFormat,
    clock: Clock,
    /// `KEYHOOK_LOG` lets `keyhook::access` lines at `INFO` through.
    enabled: bool,
}

impl AccessLog for AccessWriter {
    fn enabled(&self) -> bool {
        self.enabled
    }

    fn write(&self, line: AccessLine<'_>) {
        if self.enabled {
            STDERR.defer_line(self.render(line).as_bytes(), &mut stderr());
        }
    }
}

impl AccessWriter {
    /// `line` as it is written, with its line break.
    fn render(&self, line: AccessLine<'_>) -> String {
        let mut text = match self.format {
            LogFormat::Text => text_line(line.message),
            LogFormat::Json => json_line(
                &self.clock.now().to_rfc3339(),
                &Level::INFO,
                access_log::TARGET,
                access_fields(line),
            ),
        };
        text.push('\n');
        text
    }
}

/// An access line's fields as an event's would be recorded: the message, then `method`,
/// `route`, `status`, `duration`, `keyPrefix` and `client` in this order, a missing one null.
fn access_fields(line: AccessLine<'_>) -> Fields {
    let text = |s: Option<&str>| s.map_or(Value::Null, |s| Value::String(s.to_string()));
    Fields {
        message: line.message,
        others: vec![
            ("method", Value::String(line.method.to_string())),
            ("route", text(line.route)),
            ("status", Value::from(line.status)),
            ("duration", Value::from(line.duration_ms)),
            ("keyPrefix", text(line.key_prefix)),
            (
                "client",
                line.client
                    .map_or(Value::Null, |c| Value::String(c.to_string())),
            ),
        ],
        message_only: false,
    }
}

/// How long an access line may wait for others to share its `write`.
const ACCESS_FLUSH_EVERY: std::time::Duration = std::time::Duration::from_millis(5);

/// Writes what is queued on stderr now: the command's last lines before it exits.
pub fn flush() {
    STDERR.write_queued(&mut stderr());
}

/// The lines of all threads on their way to stderr, written in groups: a thread that finds
/// another one writing leaves its line to it, so that under load one `write` carries the
/// lines of several requests instead of each request making its own (and waiting for the
/// lock on stderr). The thread that writes takes every line queued until none is left, then
/// looks once more after it stops writing, so a line is never left behind. Lines keep their
/// order. While more than [`GroupWriter::BOUND`] bytes wait (stderr blocked: a full pipe), a
/// thread waits to write them rather than queue more.
///
/// Access lines ([`GroupWriter::defer_line`]) wait in the queue up to [`ACCESS_FLUSH_EVERY`]
/// for a flusher thread, or for the next other line, or until [`GroupWriter::DEFER_BOUND`]
/// bytes wait: on a busy server one `write` carries the lines of a few hundred requests
/// instead of a `write` a request (5 % of serve's CPU, perf). Every other line is written at
/// once, with whatever waits before it. [`flush`] writes the rest when a command ends; a
/// process killed outright loses at most the last few milliseconds of access lines.
struct GroupWriter {
    queued: std::sync::Mutex<Vec<u8>>,
    /// Held by the thread that writes; the buffer it writes from.
    writing: std::sync::Mutex<Vec<u8>>,
    /// Wakes the flusher when an access line is queued into an empty queue.
    deferred: std::sync::Condvar,
    flusher: std::sync::Once,
    /// Set when the flusher thread could not be started: each line is then written by its
    /// own thread, as other lines are.
    no_flusher: std::sync::atomic::AtomicBool,
    /// Where the flusher writes (stderr; a test's sink in tests).
    flusher_out: fn() -> Box<dyn Write>,
}

/// The process's stderr: the one place this module writes to.
fn stderr() -> std::io::Stderr {
    std::io::stderr()
}

fn stderr_out() -> Box<dyn Write> {
    Box::new(stderr())
}

static STDERR: GroupWriter = GroupWriter::new();

impl GroupWriter {
    const BOUND: usize = 1 << 20;
    const DEFER_BOUND: usize = 64 * 1024;

    const fn new() -> GroupWriter {
        Self::flushing_to(stderr_out)
    }

    const fn flushing_to(flusher_out: fn() -> Box<dyn Write>) -> GroupWriter {
        GroupWriter {
            queued: std::sync::Mutex::new(Vec::new()),
            writing: std::sync::Mutex::new(Vec::new()),
            deferred: std::sync::Condvar::new(),
            flusher: std::sync::Once::new(),
            no_flusher: std::sync::atomic::AtomicBool::new(false),
            flusher_out,
        }
    }

    fn write_line(&self, line: &[u8], out: &mut impl Write) {
        let wait = {
            let mut q = lock(&self.queued);
            q.extend_from_slice(line);
            q.len() > Self::BOUND
        };
        self.write_out(wait, out);
    }

    /// Queues `line` for the flusher (started at the first); writes the queue at once only
    /// when [`GroupWriter::DEFER_BOUND`] bytes wait.
    fn defer_line(&'static self, line: &[u8], out: &mut impl Write) {
        self.flusher.call_once(|| {
            let spawned = std::thread::Builder::new()
                .name("keyhook-log".into())
                .spawn(move || self.flush_forever(&mut (self.flusher_out)()));
            if spawned.is_err() {
                self.no_flusher
                    .store(true, std::sync::atomic::Ordering::Relaxed);
            }
        });
        let (was_empty, full) = {
            let mut q = lock(&self.queued);
            let was_empty = q.is_empty();
            q.extend_from_slice(line);
            (was_empty, q.len() > Self::DEFER_BOUND)
        };
        if full || self.no_flusher.load(std::sync::atomic::Ordering::Relaxed) {
            self.write_out(false, out);
        } else if was_empty {
            self.deferred.notify_one();
        }
    }

    /// The flusher: once lines wait, lets more gather for [`ACCESS_FLUSH_EVERY`], then
    /// writes them all.
    fn flush_forever(&self, out: &mut impl Write) {
        loop {
            {
                let mut q = lock(&self.queued);
                while q.is_empty() {
                    q = self
                        .deferred
                        .wait(q)
                        .unwrap_or_else(std::sync::PoisonError::into_inner);
                }
            }
            std::thread::sleep(ACCESS_FLUSH_EVERY);
            self.write_out(false, out);
        }
    }

    /// Writes everything queued, waiting for a thread writing now to finish.
    fn write_queued(&self, out: &mut impl Write) {
        self.write_out(true, out);
    }

    /// Writes the queue unless another thread is writing (then that one takes it), or
    /// with `wait`, after it.
    fn write_out(&self, mut wait: bool, out: &mut impl Write) {
        loop {
            let mut writing = match self.writing.try_lock() {
                Ok(w) => w,
                Err(std::sync::TryLockError::Poisoned(p)) => p.into_inner(),
                // Too much waits, or a flush: this thread waits its turn to write.
                Err(std::sync::TryLockError::WouldBlock) if wait => lock(&self.writing),
                // The thread writing takes this line too.
                Err(std::sync::TryLockError::WouldBlock) => return,
            };
            wait = false;
            loop {
                std::mem::swap(&mut *lock(&self.queued), &mut *writing);
                if writing.is_empty() {
                    break;
                }
                // A stderr that cannot be written (closed, a full disk) loses these lines
                // and nothing else.
                let _ = out.write_all(&writing);
                writing.clear();
                if writing.capacity() > Self::BOUND {
                    writing.shrink_to(64 * 1024);
                }
            }
            drop(writing);
            // A line queued between this thread's last look and its letting go: its thread
            // saw the writer busy and left it.
            if lock(&self.queued).is_empty() {
                return;
            }
        }
    }
}

fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The room a message is formatted into at first: an access line's, with its line break.
const MESSAGE_ROOM: usize = 128;

/// An event's message and its other fields, in the order they were given.
#[derive(Default)]
struct Fields {
    message: String,
    others: Vec<(&'static str, Value)>,
    /// Record the message and skip the rest.
    message_only: bool,
}

impl Fields {
    fn put(&mut self, field: &Field, value: Value) {
        if field.name() == "message" {
            self.message = match value {
                Value::String(s) => s,
                v => v.to_string(),
            };
        } else {
            self.others.push((field.name(), value));
        }
    }
}

impl Fields {
    /// The fields in the order the event declares them, with a null for each one it did not
    /// record (`route = None`), so that every line of a kind has the same keys in the same
    /// order.
    fn declared(mut self, all: &tracing::field::FieldSet) -> Fields {
        let mut ordered = Vec::with_capacity(self.others.len());
        for f in all {
            let name = f.name();
            if name == "message" {
                continue;
            }
            let value = match self.others.iter().position(|(n, _)| *n == name) {
                Some(i) => self.others.remove(i).1,
                None => Value::Null,
            };
            ordered.push((name, value));
        }
        ordered.append(&mut self.others);
        self.others = ordered;
        self
    }
}

impl Visit for Fields {
    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        if field.name() == "message" {
            // Into room for a usual line: `format!` starts an access line's message from
            // nothing and copies it at each of four doublings.
            let mut message = String::with_capacity(MESSAGE_ROOM);
            let _ = fmt::Write::write_fmt(&mut message, format_args!("{value:?}"));
            self.message = message;
        } else if !self.message_only {
            self.put(field, Value::String(format!("{value:?}")));
        }
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        if !self.message_only || field.name() == "message" {
            self.put(field, Value::String(value.to_string()));
        }
    }
    // A number or a flag is never the message: a text line does not record it.
    fn record_i64(&mut self, field: &Field, value: i64) {
        if !self.message_only {
            self.put(field, Value::from(value));
        }
    }
    fn record_u64(&mut self, field: &Field, value: u64) {
        if !self.message_only {
            self.put(field, Value::from(value));
        }
    }
    fn record_f64(&mut self, field: &Field, value: f64) {
        if !self.message_only {
            self.put(field, Value::from(value));
        }
    }
    fn record_bool(&mut self, field: &Field, value: bool) {
        if !self.message_only {
            self.put(field, Value::from(value));
        }
    }
}

/// `s` as it may appear in a log: redacted, control characters escaped ([`redact::display`]),
/// and line breaks escaped as well, so that it stays on its line.
fn shown(s: &str) -> Cow<'_, str> {
    // The common line, in one pass (no line break either).
    if redact::inert(s) {
        return Cow::Borrowed(s);
    }
    match redact::display(s) {
        Cow::Borrowed(b) if !b.contains('\n') => Cow::Borrowed(b),
        d => Cow::Owned(d.replace('\n', "\\u{a}")),
    }
}

/// The text line: the message alone, shown (the message itself when showing changes
/// nothing).
fn text_line(message: String) -> String {
    match shown(&message) {
        Cow::Borrowed(_) => message,
        Cow::Owned(o) => o,
    }
}

/// The keys every JSON line starts with, in this order; an event field of the same name is
/// left out rather than repeated.
const JSON_KEYS: [&str; 4] = ["time", "level", "message", "target"];

/// The JSON line: every string shown before it is serialized; the keys in [`JSON_KEYS`] order,
/// then the event's fields in the order they were given.
fn json_line(time: &str, level: &Level, target: &str, fields: Fields) -> String {
    let head = [
        Value::String(time.into()),
        Value::String(level.as_str().into()),
        Value::String(shown(&fields.message).into_owned()),
        Value::String(shown(target).into_owned()),
    ];
    let rest = fields
        .others
        .into_iter()
        .filter(|(name, _)| !JSON_KEYS.contains(name))
        .map(|(name, value)| {
            let value = match value {
                Value::String(s) => Value::String(shown(&s).into_owned()),
                v => v,
            };
            (shown(name).into_owned(), value)
        });
    let mut line = String::with_capacity(256);
    line.push('{');
    let pairs = JSON_KEYS
        .iter()
        .map(|k| k.to_string())
        .zip(head)
        .chain(rest);
    for (i, (name, value)) in pairs.enumerate() {
        if i > 0 {
            line.push(',');
        }
        // Strings and numbers (a float that is not finite is null) always serialize.
        line.push_str(&serde_json::to_string(&name).unwrap_or_default());
        line.push(':');
        line.push_str(&serde_json::to_string(&value).unwrap_or_else(|_| "null".into()));
    }
    line.push('}');
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "kp_0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    fn fields(message: &str, others: &[(&'static str, Value)]) -> Fields {
        Fields {
            message: message.into(),
            others: others.to_vec(),
            message_only: false,
        }
    }

    #[test]
    fn a_text_line_is_the_message_redacted_on_one_line() {
        let f = fields(
            &format!("GET /api/v1/api-keys/{KEY} 404\n{{\"forged\":1}}\u{1b}[2J"),
            &[],
        );
        assert_eq!(
            text_line(f.message),
            "GET /api/v1/api-keys/kp_01234567… 404\\u{a}{\"forged\":1}\\u{1b}[2J"
        );
    }

    #[test]
    fn a_json_line_is_one_object_with_every_value_redacted() {
        let f = fields(
            &format!("connect postgres://u:hunter2@h/db {KEY}"),
            &[
                (
                    "route",
                    Value::String("/api/v1/x\n{\"level\":\"ERROR\"}".into()),
                ),
                ("status", Value::from(200)),
                (
                    "secret",
                    Value::String("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwmore+/abc=".into()),
                ),
            ],
        );
        let line = json_line("2026-01-01T00:00:00.000Z", &Level::INFO, "keyhook", f);
        assert!(!line.contains('\n'), "{line}");
        assert!(
            !line.contains("hunter2") && !line.contains(&KEY[12..]),
            "{line}"
        );
        let v: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["level"], "INFO");
        assert_eq!(v["time"], "2026-01-01T00:00:00.000Z");
        assert_eq!(v["message"], "connect postgres://u:***@h/db kp_01234567…");
        assert_eq!(v["route"], "/api/v1/x\\u{a}{\"level\":\"ERROR\"}");
        assert_eq!(v["status"], 200);
        assert_eq!(v["secret"], "whsec_…");
        assert!(
            line.starts_with(r#"{"time":"2026-01-01T00:00:00.000Z","level":"INFO","message":"#),
            "{line}"
        );
    }

    type Writes = std::sync::Arc<std::sync::Mutex<Vec<Vec<u8>>>>;

    /// Writes into a shared buffer; the first write says so on `entered`, then waits until
    /// `go` is sent, so that other threads find the writer busy.
    struct Held {
        writes: Writes,
        go: Option<(std::sync::mpsc::Sender<()>, std::sync::mpsc::Receiver<()>)>,
    }

    impl Write for Held {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            if let Some((entered, go)) = self.go.take() {
                let _ = entered.send(());
                let _ = go.recv();
            }
            self.writes.lock().unwrap().push(b.to_vec());
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// A thread writing `first`, held in its write until the returned sender sends.
    fn first_writer(
        out: &'static GroupWriter,
        writes: &Writes,
    ) -> (std::sync::mpsc::Sender<()>, std::thread::JoinHandle<()>) {
        let (go, wait) = std::sync::mpsc::channel();
        let (entered, has_entered) = std::sync::mpsc::channel();
        let writes = writes.clone();
        let first = std::thread::spawn(move || {
            out.write_line(
                b"first\n",
                &mut Held {
                    writes,
                    go: Some((entered, wait)),
                },
            )
        });
        has_entered.recv().unwrap();
        (go, first)
    }

    /// While one thread writes, the others' lines wait for it and go out in one write, all
    /// of them, each whole, in the order they were queued.
    #[test]
    fn lines_queued_while_a_thread_writes_go_out_with_its_next_write() {
        static OUT: GroupWriter = GroupWriter::new();
        let writes = Writes::default();
        let (go, first) = first_writer(&OUT, &writes);
        for i in 0..8 {
            let writes = writes.clone();
            let line = format!("line {i}\n");
            // Returns at once: the busy writer takes the line.
            std::thread::spawn(move || {
                OUT.write_line(line.as_bytes(), &mut Held { writes, go: None })
            })
            .join()
            .unwrap();
        }
        assert!(writes.lock().unwrap().is_empty(), "nothing written yet");
        go.send(()).unwrap();
        first.join().unwrap();
        let writes = writes.lock().unwrap();
        let expected: String = (0..8).map(|i| format!("line {i}\n")).collect();
        assert_eq!(*writes, vec![b"first\n".to_vec(), expected.into_bytes()]);
        assert!(OUT.queued.lock().unwrap().is_empty());
    }

    /// With more than the bound queued, a thread waits to write rather than queue more.
    #[test]
    fn a_thread_waits_its_turn_when_too_much_is_queued() {
        static OUT: GroupWriter = GroupWriter::new();
        let writes = Writes::default();
        let (go, first) = first_writer(&OUT, &writes);
        let big = vec![b'x'; GroupWriter::BOUND + 1];
        let second = {
            let writes = writes.clone();
            let big = big.clone();
            std::thread::spawn(move || OUT.write_line(&big, &mut Held { writes, go: None }))
        };
        while OUT.queued.lock().unwrap().len() <= GroupWriter::BOUND {
            std::thread::yield_now();
        }
        for _ in 0..10_000 {
            std::thread::yield_now();
        }
        assert!(!second.is_finished(), "queued past the bound and left");
        go.send(()).unwrap();
        first.join().unwrap();
        second.join().unwrap();
        let written: Vec<u8> = writes.lock().unwrap().concat();
        assert_eq!(written, [b"first\n".as_slice(), &big].concat());
    }

    /// A writer of the test's own whose flusher writes into a sink of its own (a flusher's
    /// writer is a `fn`, so the sink is a static per test): the sink and the writer.
    macro_rules! flushing_writer {
        ($name:ident) => {{
            static $name: std::sync::Mutex<Vec<Vec<u8>>> = std::sync::Mutex::new(Vec::new());
            static WRITER: std::sync::OnceLock<GroupWriter> = std::sync::OnceLock::new();
            struct Sink;
            impl Write for Sink {
                fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
                    $name.lock().unwrap().push(b.to_vec());
                    Ok(b.len())
                }
                fn flush(&mut self) -> std::io::Result<()> {
                    Ok(())
                }
            }
            fn out() -> Box<dyn Write> {
                Box::new(Sink)
            }
            let writer: &'static GroupWriter = WRITER.get_or_init(|| GroupWriter::flushing_to(out));
            (&$name, writer)
        }};
    }

    /// Every write of `a` then `b`, joined: what reached the output, whoever wrote it.
    fn joined(a: &[Vec<u8>], b: &[Vec<u8>]) -> String {
        String::from_utf8(a.iter().chain(b).flatten().copied().collect()).unwrap()
    }

    /// Access lines wait for the flusher, which writes them together, in order, soon.
    #[test]
    fn access_lines_go_out_together_from_the_flusher() {
        let (sink, writer) = flushing_writer!(SINK);
        let writes = Writes::default();
        let lines: Vec<String> = (0..200).map(|i| format!("GET /x 200 {i}\n")).collect();
        for line in &lines {
            writer.defer_line(
                line.as_bytes(),
                &mut Held {
                    writes: writes.clone(),
                    go: None,
                },
            );
        }
        assert!(
            writes.lock().unwrap().is_empty(),
            "no thread of a request wrote"
        );
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while joined(&sink.lock().unwrap(), &[]) != lines.concat() {
            assert!(
                std::time::Instant::now() < deadline,
                "the flusher never wrote"
            );
            std::thread::yield_now();
        }
        assert!(
            sink.lock().unwrap().len() < 10,
            "{} writes",
            sink.lock().unwrap().len()
        );
    }

    /// Any other line goes out at once, with the access lines queued before it, in order;
    /// so does everything queued at `flush`, and a queue over its bound.
    #[test]
    fn other_lines_flush_and_a_full_queue_write_at_once() {
        let (sink, writer) = flushing_writer!(SINK);
        let writes = Writes::default();
        let mut held = Held {
            writes: writes.clone(),
            go: None,
        };
        writer.defer_line(b"a\n", &mut held);
        writer.defer_line(b"b\n", &mut held);
        writer.write_line(b"listening\n", &mut held);
        assert_eq!(
            joined(&sink.lock().unwrap(), &writes.lock().unwrap()),
            "a\nb\nlistening\n"
        );

        writer.defer_line(b"c\n", &mut held);
        writer.write_queued(&mut held);
        assert_eq!(
            joined(&sink.lock().unwrap(), &writes.lock().unwrap()),
            "a\nb\nlistening\nc\n"
        );

        let big = vec![b'x'; GroupWriter::DEFER_BOUND + 1];
        writer.defer_line(&big, &mut held);
        let all = joined(&sink.lock().unwrap(), &writes.lock().unwrap());
        assert_eq!(all.len(), "a\nb\nlistening\nc\n".len() + big.len());
    }

    /// A layer that keeps what the [`Sink`] would write of each event.
    struct Rendered(Sink, std::sync::Arc<std::sync::Mutex<Vec<String>>>);

    impl<S: Subscriber> Layer<S> for Rendered {
        fn on_event(&self, event: &Event<'_>, _ctx: Context<'_, S>) {
            self.1.lock().unwrap().push(self.0.render(event));
        }
    }

    /// An access line handed to the log is written byte for byte as the `tracing` event
    /// keyhook-http emitted for it before was (the same fields in the same order, a missing
    /// route or key prefix null, the same redaction), in both formats.
    #[test]
    fn an_access_line_is_written_as_its_event_was() {
        let at = keyhook_core::time::Timestamp::parse_rfc3339("2026-11-26T21:00:00.123Z")
            .expect("a time");
        let clock = Clock::reading(move || at);
        let line = |message: String, method, route, status, duration_ms, key_prefix| AccessLine {
            message,
            method,
            route,
            status,
            duration_ms,
            key_prefix,
            client: Some(std::net::IpAddr::from([203, 0, 113, 7])),
        };
        let cases = [
            line(
                "GET /api/v1/api-keys 200 0.4ms kp_0123abcd".into(),
                "GET",
                Some("/api/v1/api-keys"),
                200,
                0.412,
                Some("kp_0123abcd"),
            ),
            line(
                "BREW /nowhere 404 12.0ms -".into(),
                "BREW",
                None,
                404,
                12.0,
                None,
            ),
            line(
                format!("DELETE /x/{KEY}\n{{\"forged\":1}} 401 1.0ms -"),
                "DELETE",
                Some("/api/v1/api-keys/{id}"),
                401,
                1.0,
                None,
            ),
        ];
        for format in [LogFormat::Text, LogFormat::Json] {
            for case in &cases {
                let kept = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
                let sink = Sink {
                    format,
                    clock: clock.clone(),
                };
                let subscriber = tracing_subscriber::registry()
                    .with(Rendered(sink, std::sync::Arc::clone(&kept)));
                tracing::subscriber::with_default(subscriber, || {
                    tracing::info!(
                        target: "keyhook::access",
                        method = %case.method,
                        route = case.route,
                        status = case.status,
                        duration = case.duration_ms,
                        keyPrefix = case.key_prefix,
                        client = case.client.map(|c| c.to_string()).as_deref(),
                        "{}",
                        case.message
                    );
                });
                let writer = AccessWriter {
                    format,
                    clock: clock.clone(),
                    enabled: true,
                };
                let written = writer.render(case.clone());
                let event = kept.lock().unwrap().pop().expect("the event was rendered");
                assert_eq!(written, event, "{format:?}");
                assert!(!written.contains(&KEY[12..]), "{written}");
                assert_eq!(written.matches('\n').count(), 1, "{written}");
            }
        }
    }

    /// `KEYHOOK_LOG` turns access lines off as it turned their events off.
    #[test]
    fn the_filter_decides_whether_access_lines_are_written() {
        for (value, on) in [
            (None, true),
            (Some("info"), true),
            (Some("warn"), false),
            (Some("keyhook::access=off,info"), false),
            (Some("off,keyhook::access=info"), true),
            (Some("keyhook=warn"), false),
            (Some("keyhook=warn,keyhook::access=debug"), true),
        ] {
            assert_eq!(access_enabled(&filter(value).unwrap()), on, "{value:?}");
        }
    }

    #[test]
    fn the_filter_defaults_to_info_and_refuses_nonsense() {
        assert!(filter(None).is_ok());
        assert!(filter(Some("  ")).is_ok());
        assert!(filter(Some("warn,keyhook::access=off")).is_ok());
        let Err(Error::Validation(d)) = filter(Some("loud=very")) else {
            panic!("accepted");
        };
        assert_eq!(d[0].field, FILTER_ENV);
    }
}
