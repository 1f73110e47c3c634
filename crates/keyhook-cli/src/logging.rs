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

use std::borrow::Cow;
use std::fmt;
use std::io::Write;

use serde_json::Value;
use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::filter::Targets;
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};

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
/// written to stderr in `format`, redacted, with the time read from `clock`.
pub fn init(format: LogFormat, clock: Clock) -> Result<(), Error> {
    let filter = filter(std::env::var(FILTER_ENV).ok().as_deref())?;
    let subscriber =
        tracing_subscriber::registry().with(Sink { format, clock }.with_filter(filter));
    // Set once per process; a second call (there is none) would keep the first.
    let _ = tracing::subscriber::set_global_default(subscriber);
    Ok(())
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
        // A text line is the message alone: the other fields are not even formatted.
        let mut fields = Fields {
            message_only: self.format == LogFormat::Text,
            ..Fields::default()
        };
        event.record(&mut fields);
        let meta = event.metadata();
        let mut line = match self.format {
            LogFormat::Text => text_line(fields),
            LogFormat::Json => json_line(
                &self.clock.now().to_rfc3339(),
                meta.level(),
                meta.target(),
                fields.declared(meta.fields()),
            ),
        };
        line.push('\n');
        // A stderr that cannot be written (closed, a full disk) loses the line and nothing else.
        let _ = std::io::stderr().lock().write_all(line.as_bytes());
    }
}

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
        if !self.message_only || field.name() == "message" {
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
    match redact::display(s) {
        Cow::Borrowed(b) if !b.contains('\n') => Cow::Borrowed(b),
        d => Cow::Owned(d.replace('\n', "\\u{a}")),
    }
}

/// The text line: the message alone, shown (the message itself when showing changes
/// nothing).
fn text_line(fields: Fields) -> String {
    match shown(&fields.message) {
        Cow::Borrowed(_) => fields.message,
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
            text_line(f),
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
