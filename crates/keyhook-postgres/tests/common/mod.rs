//! What the tests of this crate share: a database on the test process's cluster, and
//! backends and stores on it.

#![allow(dead_code)]

use keyhook_core::model::ApiKey;
use keyhook_core::service::keys::{self, KeyName, NewKey};
use keyhook_core::service::webhooks::{self, NewWebhook, WebhookEvents, WebhookUrl};
use keyhook_core::service::Actor;
use keyhook_core::service::Publish;
use keyhook_core::store::{Backend, Store};
use keyhook_core::time::Timestamp;
use keyhook_postgres::PgBackend;

pub use test_postgres::{database, Database};

/// A new database, or `return` from the test (the harness printed why; under `CI=true` it
/// panics instead).
#[macro_export]
macro_rules! database_or_skip {
    () => {
        match common::database() {
            Some(db) => db,
            None => return,
        }
    };
}

/// A backend that creates keyhook's tables, with a pool of `size`.
pub fn backend(db: &Database<'_>, size: u32) -> PgBackend {
    PgBackend::new(&db.url(), size, true).expect("a valid URL")
}

/// A connection of a new backend on `db` (which creates the tables).
pub fn store(db: &Database<'_>) -> Box<Store> {
    backend(db, 2).connect().expect("connect")
}

pub const NOW: Timestamp = Timestamp(1_800_000_000_000);

pub fn operator(user: &str) -> Actor {
    Actor::operator(user).unwrap()
}

/// A readwrite, full-access key of `user` that never expires, with its plaintext.
pub fn key(s: &Store, user: &str, name: &str) -> ApiKey {
    let input = NewKey {
        name: KeyName::new(name).ok(),
        ..NewKey::default()
    };
    keys::create(s, &operator(user), input, NOW, Publish::AfterCommit).expect("create key")
}

/// A webhook of `user` for `post.published` at a loopback URL.
pub fn webhook_input() -> NewWebhook {
    NewWebhook {
        url: WebhookUrl::new("http://127.0.0.1:9/hook", true).ok(),
        events: WebhookEvents::new(vec!["post.published".into()]).ok(),
        ..NewWebhook::default()
    }
}

pub fn webhook(s: &Store, user: &str) -> keyhook_core::model::Webhook {
    webhooks::create(
        s,
        &operator(user),
        webhook_input(),
        NOW,
        Publish::AfterCommit,
    )
    .expect("create webhook")
}

/// `look`'s first `Some`, asked every 100 ms for at most `patience`: for what another
/// process (the server, a backend reporting its statistics) does in its own time. `None` if
/// it never came.
pub fn poll<T>(patience: std::time::Duration, mut look: impl FnMut() -> Option<T>) -> Option<T> {
    let deadline = std::time::Instant::now() + patience;
    loop {
        if let Some(seen) = look() {
            return Some(seen);
        }
        if std::time::Instant::now() >= deadline {
            return None;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}
