//! The records the library's tests start from: a clock reading, the operator, a key, a
//! webhook, an event's fan-out.

use keyhook_core::model::{ApiKey, Webhook};
use keyhook_core::service::keys::{self, KeyName, NewKey};
use keyhook_core::service::webhooks::{self, NewWebhook, WebhookEvents, WebhookUrl};
use keyhook_core::service::{Actor, Publish};
use keyhook_core::store::Store;
use keyhook_core::tables::{Table, TABLES};
use keyhook_core::time::Timestamp;

/// The tests' "now": 2027-01-15T08:00:00Z.
pub const NOW: Timestamp = Timestamp(1_800_000_000_000);

/// The operator acting for `user` (the CLI's actor).
pub fn operator(user: &str) -> Actor {
    Actor::operator(user).unwrap()
}

/// A readwrite, full-access key of `user` named `name` that never expires, made by the
/// operator at [`NOW`], with its plaintext.
pub fn key(s: &Store, user: &str, name: &str) -> ApiKey {
    let input = NewKey {
        name: KeyName::new(name).ok(),
        ..NewKey::default()
    };
    keys::create(s, &operator(user), input, NOW, Publish::AfterCommit).expect("create key")
}

/// A webhook for `post.published` to a loopback URL nothing listens on.
pub fn webhook_input() -> NewWebhook {
    NewWebhook {
        url: WebhookUrl::new("http://127.0.0.1:9/hook", true).ok(),
        events: WebhookEvents::new(vec!["post.published".into()]).ok(),
        ..NewWebhook::default()
    }
}

/// A webhook of `user` ([`webhook_input`]), made by the operator at `at`.
pub fn create_webhook(s: &Store, user: &str, at: Timestamp) -> Webhook {
    webhooks::create(
        s,
        &operator(user),
        webhook_input(),
        at,
        Publish::AfterCommit,
    )
    .expect("create webhook")
}

/// Queues the event `id` (already recorded, data `{}`) for the webhooks of `user` that
/// receive it (`service::routing::fan_out`), as emit does; returns how many were queued.
pub fn fan_out(
    c: keyhook_core::store::Conn<'_>,
    id: &str,
    user: &str,
    event: &str,
    profile: Option<&str>,
    now: Timestamp,
) -> keyhook_core::error::Result<usize> {
    use keyhook_core::service::routing;
    let profile = profile.map(String::from);
    let data = serde_json::json!({});
    let e = routing::Event::new(event, profile.as_ref(), &data);
    Ok(routing::fan_out(c, id, user, &e, now)?.queued)
}

/// The table named `name` (`keyhook_core::tables::TABLES`).
pub fn table(name: &str) -> &'static Table {
    TABLES.iter().find(|t| t.name == name).expect("a table")
}
