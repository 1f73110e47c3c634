//! The developer's loop (CONTRACT §11): `keyhook listen` makes an ephemeral webhook, delivers
//! it itself and deletes it when it stops. The rules here: the listener's target, its
//! heartbeat, and the removal of a listener that stopped beating (killed, or its machine gone).
//!
//! An ephemeral webhook is an ordinary subscription in every other way: it counts toward the
//! ten-webhook limit (the same 409), its attempts are logged, a 500 is retried on the normal
//! schedule, a 410 disables it and `webhooks replay` queues its events again. Only the
//! claim differs: `serve` and `deliver` never claim its deliveries
//! (`crate::claimable_sql!`), the listener's worker claims nothing else.

use std::time::Duration;

use super::audit::{self, Action, Entry, Via};
use super::webhooks::{self, NewWebhook, WebhookUrl};
use super::{Actor, Publish};
use crate::error::{Error, Result};
use crate::model::Webhook;
use crate::store::Store;
use crate::time::Timestamp;

/// How often a listener writes its heartbeat.
pub const HEARTBEAT_EVERY: Duration = Duration::from_secs(10);
/// A listener whose last heartbeat is older than this is gone: any worker deletes its webhook
/// (and, with it, its pending deliveries).
pub const LISTENER_TIMEOUT: Duration = Duration::from_secs(60);

/// What `{event}` in the path of `--forward-to` stands for: the event's name.
pub const EVENT_PLACEHOLDER: &str = "{event}";
/// [`EVENT_PLACEHOLDER`] as the stored URL holds it (a URL's path cannot hold `{` as written).
const STORED_PLACEHOLDER: &str = "%7Bevent%7D";

/// The URL a listener forwards to: `raw` with `{event}` in its path allowed, and loopback and
/// private addresses allowed (the operator chose them, on their own machine, for this
/// webhook alone: no other webhook may have one, and no other worker sends this one's
/// deliveries). Otherwise the rules of every webhook URL ([`WebhookUrl::new`]).
pub fn target_url(raw: &str) -> std::result::Result<WebhookUrl, String> {
    let (path_end, _) = raw
        .char_indices()
        .find(|(_, c)| *c == '?' || *c == '#')
        .unwrap_or((raw.len(), ' '));
    let (head, tail) = raw.split_at(path_end);
    if tail.contains(EVENT_PLACEHOLDER) {
        return Err(format!(
            "{EVENT_PLACEHOLDER} may appear only in the path, not in the query"
        ));
    }
    WebhookUrl::new(
        &format!(
            "{}{tail}",
            head.replace(EVENT_PLACEHOLDER, STORED_PLACEHOLDER)
        ),
        true,
    )
}

/// Where one delivery of `event` goes: `url` with each `{event}` of its path (stored as
/// `%7Bevent%7D`) replaced by the event's name, percent-encoded where a path needs it.
pub fn url_for_event(url: &str, event: &str) -> String {
    if !url.contains(STORED_PLACEHOLDER) {
        return url.to_string();
    }
    let mut name = String::with_capacity(event.len());
    for b in event.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-' | b'~') {
            name.push(char::from(b));
        } else {
            name.push_str(&format!("%{b:02X}"));
        }
    }
    let path_end = url.find(['?', '#']).unwrap_or(url.len());
    let (head, tail) = url.split_at(path_end);
    format!("{}{tail}", head.replace(STORED_PLACEHOLDER, &name))
}

/// `url` as the operator wrote it (`%7Bevent%7D` shown as `{event}`), for the listener's lines.
pub fn shown_url(url: &str) -> String {
    url.replace(STORED_PLACEHOLDER, EVENT_PLACEHOLDER)
}

/// Makes the listener's ephemeral webhook (`input.ephemeral` is set here), as
/// [`webhooks::create`] makes any: the same checks, the same limit and the same 409.
pub fn start(
    store: &Store,
    actor: &Actor,
    input: NewWebhook,
    now: Timestamp,
    publish: Publish<'_, Webhook>,
) -> Result<Webhook> {
    let input = NewWebhook {
        ephemeral: true,
        ..input
    };
    webhooks::create(store, actor, input, now, publish)
}

/// Writes the listener's heartbeat at `now`; false when its webhook is gone (a worker
/// removed it after a pause longer than [`LISTENER_TIMEOUT`], or someone deleted it).
pub fn heartbeat(store: &Store, id: &str, now: Timestamp) -> Result<bool> {
    store.write(|c| Ok(c.beat_listener(id, now)?))
}

/// Deletes the listener's webhook when it stops (audit `webhook.deleted`); one already
/// gone is fine.
pub fn stop(store: &Store, actor: &Actor, id: &str, now: Timestamp) -> Result<()> {
    match webhooks::delete(store, actor, id, now) {
        Ok(_) | Err(Error::NotFound(_)) => Ok(()),
        Err(e) => Err(e),
    }
}

/// Deletes every ephemeral webhook whose listener has not beaten since
/// `now - LISTENER_TIMEOUT`, with its pending deliveries (they go with the webhook), each
/// with an audit entry `webhook.deleted` by `system` through the worker. Returns how many.
pub fn remove_stale(store: &Store, now: Timestamp) -> Result<usize> {
    let timeout = i64::try_from(LISTENER_TIMEOUT.as_millis()).unwrap_or(i64::MAX);
    let cutoff = now.add_millis(-timeout);
    // A read first: an idle worker looks every second and seldom finds one.
    if store.conn().stale_listeners(cutoff)?.is_empty() {
        return Ok(0);
    }
    store.write(|c| {
        let stale = c.stale_listeners(cutoff)?;
        for w in &stale {
            c.delete_webhook(&w.id)?;
            let mut details = audit::webhook_details(w);
            details["reason"] = "its listener stopped sending heartbeats".into();
            let entry = Entry::system(
                &w.user_id,
                Via::Worker,
                Action::WebhookDeleted,
                &w.id,
                details,
            )
            .about(w.scope());
            audit::record(c, now, &entry)?;
        }
        Ok(stale.len())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_in_the_path_is_the_event_name() {
        let url = target_url("http://localhost:3000/hooks/{event}?x={event}").unwrap_err();
        assert!(url.contains("only in the path"), "{url}");
        let url = target_url("http://localhost:3000/hooks/{event}/in?v=1").unwrap();
        assert_eq!(
            url.as_str(),
            "http://localhost:3000/hooks/%7Bevent%7D/in?v=1"
        );
        assert_eq!(
            url_for_event(url.as_str(), "post.published"),
            "http://localhost:3000/hooks/post.published/in?v=1"
        );
        assert_eq!(
            url_for_event(url.as_str(), "a b/c"),
            "http://localhost:3000/hooks/a%20b%2Fc/in?v=1"
        );
        assert_eq!(
            shown_url(url.as_str()),
            "http://localhost:3000/hooks/{event}/in?v=1"
        );
        // Without the placeholder the URL is used as it is.
        assert_eq!(
            url_for_event("http://127.0.0.1:9/x", "e"),
            "http://127.0.0.1:9/x"
        );
    }

    #[test]
    fn a_listener_may_forward_to_loopback_and_private_addresses() {
        for ok in [
            "http://127.0.0.1:3000/",
            "http://10.0.0.5/h",
            "http://[::1]:80/",
        ] {
            assert!(target_url(ok).is_ok(), "{ok}");
            assert!(
                WebhookUrl::new(ok, false).is_err(),
                "{ok}: refused for any other webhook"
            );
        }
        assert!(target_url("ftp://127.0.0.1/").is_err());
    }
}
