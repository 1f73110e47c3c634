//! `keyhook listen` (CONTRACT §11): an ephemeral webhook delivered by this process alone, one
//! line per attempt, deleted when the process stops (SIGINT, SIGTERM, or a closed stdout).
//! Without `--forward-to` the deliveries come back to a receiver on a loopback port of this
//! process, which answers 200 and checks each signature with the webhook's secret.

use std::collections::HashMap;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use clap::Args;
use serde::Serialize;

use super::{secret_out, Context};
use keyhook_core::error::Error;
use keyhook_core::model::Webhook;
use keyhook_core::service::event_types;
use keyhook_core::service::filter::Filter;
use keyhook_core::service::input::Problems;
use keyhook_core::service::listen::{self, HEARTBEAT_EVERY};
use keyhook_core::service::webhooks::{NewWebhook, WebhookEvents};
use keyhook_core::service::Publish;
use keyhook_core::stop::Stop;
use keyhook_core::time::Timestamp;
use keyhook_delivery::client::ClientConfig;
use keyhook_delivery::schedule::{Schedule, DEFAULT_SCHEDULE};
use keyhook_delivery::worker::{self, AttemptReport, WorkerOptions};

#[derive(Debug, Args)]
#[command(
    after_help = "The webhook exists while this runs: it is deleted on SIGINT, SIGTERM or a closed standard output.\n\nExamples:\n  keyhook listen --forward-to 'http://localhost:3000/hooks/{event}'\n  keyhook listen --event post.published --json | jq .payload"
)]
pub struct ListenArgs {
    /// Send each delivery here, with its original headers and body; the answer is the
    /// delivery's (a 500 is retried, a 410 disables). Loopback and private addresses are
    /// allowed; {event} in the path is the event's name. Without it, deliveries come to a
    /// receiver of this process on a loopback port, which checks their signatures
    #[arg(long, value_name = "URL")]
    forward_to: Option<String>,
    /// An event to subscribe to (repeat for several); without it, every event
    #[arg(long = "event", value_name = "NAME",
          value_parser = crate::events::EventNameArg, hide_possible_values = true)]
    events: Vec<String>,
    /// Deliver only events of this profile (repeat for several); without it the events of
    /// all profiles, and user-wide events
    #[arg(long = "profile", value_name = "ID")]
    profiles: Vec<String>,
    /// Deliver only events for which this CEL expression over event, profileId and data is
    /// true (the webhook's filter, as in `webhooks create --filter`)
    #[arg(long, value_name = "EXPR")]
    filter: Option<String>,
    /// Delays before each retry of a failed delivery, comma-separated
    #[arg(long, env = "KEYHOOK_RETRY_SCHEDULE", default_value = DEFAULT_SCHEDULE,
          value_name = "DURS", value_parser = Schedule::parse)]
    retry_schedule: Schedule,
}

/// Deliveries the listener sends at once.
const SENDERS: usize = 4;
/// How often the main loop looks at standard output and the heartbeat (the stop wakes it at
/// once).
const TICK: Duration = Duration::from_millis(100);

pub fn run(ctx: &Context, args: ListenArgs) -> anyhow::Result<()> {
    let stop = super::stop_on_signals()?;
    let mut p = Problems::default();
    let (full_access, profile_ids) = super::webhooks::scope_args(&mut p, args.profiles, false);
    // Without --forward-to, the receiver's socket is bound first: its address is the URL.
    let (url, receiver) = match &args.forward_to {
        Some(url) => (url.clone(), None),
        None => {
            let socket = TcpListener::bind("127.0.0.1:0")?;
            (format!("http://{}/", socket.local_addr()?), Some(socket))
        }
    };
    // Named by its flag: the URL is --forward-to's (or this process's own).
    let url = listen::target_url(&url).map_err(|m| Error::validation("--forward-to", m))?;
    let filter = args.filter.and_then(|f| p.take("filter", Filter::new(&f)));
    // A connection for the heartbeat and the final delete, and the worker's.
    let db = ctx.backend(true, 1 + worker::CONNECTIONS)?;
    // A database whose secrets this keyhook cannot open: nothing would be delivered.
    crate::secrets_key::require()?;
    let store = db.connect()?;
    let actor = ctx.actor()?;
    // Without --event, every event a webhook may subscribe to now: the catalog's types
    // that are not deprecated, keyhook's operational ones included.
    let events = if args.events.is_empty() {
        event_types::list(&store, &actor)?
            .into_iter()
            .filter(|t| !t.deprecated)
            .map(|t| t.name)
            .collect()
    } else {
        args.events
    };
    let input = NewWebhook {
        url: Some(url),
        events: p.take_list("events", WebhookEvents::new(events)),
        full_access,
        profile_ids,
        filter,
        retry_schedule: None,
        timeout: None,
        rate: None,
        ordered: None,
        problems: p,
        signing: None,
        headers: None,
        idempotency: None,
        ephemeral: true,
    };
    // The webhook id and its secret, on stderr before the commit: a listener whose secret
    // cannot be shown makes no webhook. This process is the only one that prints it.
    let mut publish = |w: &Webhook| {
        let lines = [format!("webhook {}", w.id), format!("secret {}", w.secret)];
        secret_out::publish_on_stderr("webhook secret", "no webhook was created", &lines)
    };
    // The webhook's first heartbeat is its creation: the next is due one period after it.
    let created = (Instant::now(), ctx.clock.now());
    let w = listen::start(
        &store,
        &actor,
        input,
        created.1,
        Publish::BeforeCommit(&mut publish),
    )?;
    let verified = Arc::new(Verified::default());
    if let Some(socket) = receiver {
        let (secret, verified) = (w.secret.clone(), Arc::clone(&verified));
        thread::Builder::new()
            .name("listen-receiver".into())
            .spawn(move || receive(&socket, &secret, &verified))?;
        ctx.out.note(&format!(
            "Receiving on {} (answering 200, checking signatures); Ctrl-C to stop.",
            w.url
        ));
    } else {
        ctx.out.note(&format!(
            "Forwarding to {}; Ctrl-C to stop.",
            listen::shown_url(&w.url)
        ));
    }
    let printer = Printer {
        json: ctx.out.is_json(),
        verifying: args.forward_to.is_none(),
        verified,
        stop: Arc::clone(&stop),
    };
    let opts = WorkerOptions {
        client: ClientConfig {
            timeout: ctx.delivery_timeout,
            // This webhook's URL alone may be private: no other is claimed by this worker.
            allow_private: true,
            clock: ctx.clock.clone(),
        },
        schedule: args.retry_schedule,
        concurrency: SENDERS,
        once: false,
        on_settled: None,
        retention: None,
        only: Some(w.id.clone()),
        on_attempt: Some(Arc::new(move |r: &AttemptReport<'_>| printer.print(r))),
    };
    let sender = worker::spawn(Arc::clone(&db), opts, Arc::clone(&stop))?;
    let result = keep_alive(ctx, &store, &w.id, created, &stop);
    stop.raise();
    let _ = sender.join();
    // However it ended, the webhook goes with it (unless it is gone already).
    if result.is_ok() {
        listen::stop(&store, &actor, &w.id, ctx.clock.now())?;
        ctx.out.note(&format!("Deleted webhook {}.", w.id));
    }
    result
}

/// Until `stop`: the heartbeat every [`HEARTBEAT_EVERY`] after the last one, `beat_at` the
/// first (the webhook's creation), by the wall clock, or sooner when the command's clock has
/// moved that far (a test clock); and a look at standard output, whose reader going away
/// stops the listener even when nothing is printed. The schedule starts at the creation, not
/// when this loop does: the worker's start in between may take a while on a busy machine.
fn keep_alive(
    ctx: &Context,
    store: &keyhook_core::store::Store,
    id: &str,
    mut beat_at: (Instant, Timestamp),
    stop: &Stop,
) -> anyhow::Result<()> {
    let every_ms = i64::try_from(HEARTBEAT_EVERY.as_millis()).unwrap_or(i64::MAX);
    while !stop.sleep(TICK) {
        if stdout_closed() {
            break;
        }
        let now = ctx.clock.now();
        let due = beat_at.0.elapsed() >= HEARTBEAT_EVERY
            || now.millis() >= beat_at.1.millis().saturating_add(every_ms)
            || now.millis() < beat_at.1.millis();
        if !due {
            continue;
        }
        // A heartbeat that fails (the database busy) is tried at the next tick.
        match listen::heartbeat(store, id, now) {
            Ok(true) => beat_at = (Instant::now(), now),
            Ok(false) => {
                return Err(Error::NotFound(format!(
                    "webhook {id} was deleted while listening (a pause longer than {} s, or \
                     deleted by hand)",
                    listen::LISTENER_TIMEOUT.as_secs()
                ))
                .into())
            }
            Err(_) => {}
        }
    }
    Ok(())
}

/// Whether standard output is a pipe or socket whose reader has gone (POLLERR/POLLHUP).
fn stdout_closed() -> bool {
    let mut fd = libc::pollfd {
        fd: libc::STDOUT_FILENO,
        events: 0,
        revents: 0,
    };
    // SAFETY: one valid pollfd, a zero timeout.
    let n = unsafe { libc::poll(&mut fd, 1, 0) };
    n > 0 && fd.revents & (libc::POLLERR | libc::POLLHUP) != 0
}

/// What the receiver found of each message id's signature, until its line is printed.
#[derive(Default)]
struct Verified(Mutex<HashMap<String, bool>>);

impl Verified {
    fn put(&self, msg_id: String, ok: bool) {
        if let Ok(mut m) = self.0.lock() {
            m.insert(msg_id, ok);
        }
    }

    fn take(&self, msg_id: &str) -> Option<bool> {
        self.0.lock().ok()?.remove(msg_id)
    }
}

/// The largest request head and body the receiver reads.
const MAX_HEAD: usize = 64 * 1024;
const MAX_BODY: usize = 16 * 1024 * 1024;

/// The loopback receiver: every request is answered `200` and closed; a POST's signature
/// is checked with `secret` and the result kept for its line.
fn receive(socket: &TcpListener, secret: &str, verified: &Verified) {
    for conn in socket.incoming() {
        let Ok(conn) = conn else { continue };
        let _ = conn.set_read_timeout(Some(Duration::from_secs(10)));
        if let Some((headers, body)) = read_request(&conn) {
            let get = |name: &str| headers.get(name).map(String::as_str).unwrap_or("");
            let ok = signature_ok(
                secret,
                get("webhook-id"),
                get("webhook-timestamp"),
                get("webhook-signature"),
                &body,
            );
            verified.put(get("webhook-id").to_string(), ok);
        }
        let mut conn = conn;
        let _ =
            conn.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
    }
}

/// A request's headers (names in lower case) and body (by `content-length`).
fn read_request(conn: &TcpStream) -> Option<(HashMap<String, String>, Vec<u8>)> {
    let mut reader = BufReader::new(conn.take((MAX_HEAD + MAX_BODY) as u64));
    let mut headers = HashMap::new();
    let mut line = String::new();
    let mut head = 0;
    loop {
        line.clear();
        head += reader.read_line(&mut line).ok()?;
        if head > MAX_HEAD || line.is_empty() {
            return None;
        }
        let l = line.trim_end();
        if l.is_empty() {
            break;
        }
        if let Some((name, value)) = l.split_once(':') {
            headers.insert(name.trim().to_ascii_lowercase(), value.trim().to_string());
        }
    }
    let len: usize = headers.get("content-length")?.parse().ok()?;
    if len > MAX_BODY {
        return None;
    }
    let mut body = vec![0; len];
    reader.read_exact(&mut body).ok()?;
    Some((headers, body))
}

/// Whether one of the space-separated signatures is the one `secret` makes.
fn signature_ok(secret: &str, msg_id: &str, timestamp: &str, header: &str, body: &[u8]) -> bool {
    let Ok(ts) = timestamp.parse::<i64>() else {
        return false;
    };
    let Ok(expected) = keyhook_core::sign::sign(secret, msg_id, ts, body) else {
        return false;
    };
    header.split(' ').any(|s| s == expected)
}

/// Prints one line per attempt on standard output; a write that fails (the reader is gone)
/// stops the listener.
struct Printer {
    json: bool,
    /// The receiver of this process checks signatures (no `--forward-to`).
    verifying: bool,
    verified: Arc<Verified>,
    stop: Arc<Stop>,
}

/// One attempt as `--json` prints it (CONTRACT §11).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Line<'a> {
    at: Timestamp,
    event: &'a str,
    event_id: &'a str,
    profile_id: Option<&'a str>,
    /// The HTTP status; `null` when no response came.
    status: Option<u16>,
    /// What went wrong without a response, or a signature that did not verify.
    error: Option<String>,
    duration_ms: i64,
    headers: serde_json::Map<String, serde_json::Value>,
    payload: serde_json::Value,
}

/// The error of a line whose signature the receiver found wrong.
const BAD_SIGNATURE: &str = "signature did not verify";

impl Printer {
    fn print(&self, r: &AttemptReport<'_>) {
        let d = r.delivery;
        let a = r.attempt;
        let verified = if self.verifying {
            self.verified.take(&d.event_id)
        } else {
            None
        };
        let status = (a.status_code != 0).then_some(a.status_code);
        let error = match (status, verified) {
            (None, _) => Some(a.status_text.clone()),
            (Some(_), Some(false)) => Some(BAD_SIGNATURE.to_string()),
            _ => None,
        };
        let text = if self.json {
            let line = Line {
                at: r.at,
                event: &d.event,
                event_id: &d.event_id,
                profile_id: d.profile_id.as_deref(),
                status,
                error,
                duration_ms: a.duration_ms,
                headers: r
                    .headers
                    .iter()
                    .map(|(k, v)| (k.clone(), serde_json::Value::from(v.as_str())))
                    .collect(),
                payload: serde_json::from_slice(&d.payload).unwrap_or_else(|_| {
                    serde_json::Value::from(String::from_utf8_lossy(&d.payload).into_owned())
                }),
            };
            serde_json::to_string(&line).unwrap_or_default()
        } else {
            let mut text = format!(
                "{}  {}  {}  {}  {}  {} ms",
                r.at.to_rfc3339(),
                d.event,
                d.event_id,
                d.profile_id
                    .as_deref()
                    .map_or("-".into(), |p| format!("profile {p}")),
                super::output::status(a.status_code, &a.status_text),
                a.duration_ms
            );
            match verified {
                Some(true) => text.push_str("  signature verified"),
                Some(false) => text.push_str(&format!("  {BAD_SIGNATURE}")),
                None => {}
            }
            text
        };
        let mut out = io::stdout().lock();
        if writeln!(out, "{text}").and_then(|()| out.flush()).is_err() {
            self.stop.raise();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signature_verifies_with_its_secret_only() {
        let secret = keyhook_core::sign::generate_secret();
        let other = keyhook_core::sign::generate_secret();
        let sig = keyhook_core::sign::sign(&secret, "evt_1", 1_700_000_000, b"{}").unwrap();
        let rotated = format!(
            "{} {sig}",
            keyhook_core::sign::sign(&other, "evt_1", 1, b"{}").unwrap()
        );
        assert!(signature_ok(&secret, "evt_1", "1700000000", &sig, b"{}"));
        assert!(signature_ok(
            &secret,
            "evt_1",
            "1700000000",
            &rotated,
            b"{}"
        ));
        assert!(!signature_ok(&other, "evt_1", "1700000000", &sig, b"{}"));
        assert!(!signature_ok(&secret, "evt_1", "1700000001", &sig, b"{}"));
        assert!(!signature_ok(&secret, "evt_1", "1700000000", &sig, b"{ }"));
        assert!(!signature_ok(&secret, "evt_1", "x", &sig, b"{}"));
    }
}
