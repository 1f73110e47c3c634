//! What the HTTP front end hands the log for each request: its access line. The binary's log
//! (keyhook-cli's `logging`) implements [`AccessLog`]; keyhook-http only describes the line,
//! as the core describes a delivery's [`Attempt`](crate::transport::Attempt) and the delivery
//! crate sends it.
//!
//! A request's line does not go through a `tracing` event: recording the event formatted the
//! finished message into a string of its own a second time and dispatched its fields through
//! the subscriber's layers and filter, ~660 instructions a request, measured when the line
//! left `tracing`. The log writes the line the way it writes every event: the same
//! redaction, the same text and JSON lines, the same `KEYHOOK_LOG` filter (target
//! `keyhook::access`, level `INFO`).

/// The target an access line is filtered and shown by (`KEYHOOK_LOG=keyhook::access=off`).
pub const TARGET: &str = "keyhook::access";

/// One request's access line.
#[derive(Debug, Clone, PartialEq)]
pub struct AccessLine<'a> {
    /// The text line: `{method} {path} {status} {duration}ms {key prefix or -}`, the request
    /// line already made printable (keyhook-http's `reply::printable`: redacted, cut to 200
    /// characters, controls replaced). The log still redacts it, as every line it writes.
    pub message: String,
    pub method: &'a str,
    /// The request's label in the metrics (a route template, `/healthz`, `/metrics`), or
    /// `None` for what they count as unmatched: never the path.
    pub route: Option<&'static str>,
    pub status: u16,
    /// Milliseconds, to the microsecond.
    pub duration_ms: f64,
    pub key_prefix: Option<&'a str>,
    /// The client's address: the peer's, or from a `--trusted-proxy` peer the forwarded one.
    pub client: Option<std::net::IpAddr>,
}

/// Where access lines go.
pub trait AccessLog: Send + Sync {
    /// Whether lines are written at all (`KEYHOOK_LOG=keyhook::access=off`: not): when not,
    /// a request's line is not put together.
    fn enabled(&self) -> bool {
        true
    }

    /// Writes (or queues) `line`; never blocks on a slow reader for long and never fails:
    /// a log that cannot be written loses its lines and nothing else.
    fn write(&self, line: AccessLine<'_>);
}
