//! The store the service tests run on: SQLite in a temporary directory, or, with
//! `KEYHOOK_TEST_BACKEND=postgres`, a database of its own on a throwaway PostgreSQL cluster
//! (`test-postgres`). Plain `cargo test` runs each test file both ways: its test
//! `these_tests_pass_on_postgresql` runs the same test binary again with the variable set.

#![allow(dead_code)]

use std::process::Command;

use keyhook_core::model::Webhook;
use keyhook_core::service::webhooks::{self, NewWebhook, WebhookEvents, WebhookUrl};
use keyhook_core::service::Actor;
use keyhook_core::service::Publish;
use keyhook_core::store::{Backend, Store};
use keyhook_core::time::Timestamp;
use keyhook_postgres::PgBackend;
use keyhook_sqlite::SqliteStore;

/// The variable that picks the backend (as for the integration suite, `tests/cli`).
pub const BACKEND_VAR: &str = "KEYHOOK_TEST_BACKEND";

/// What keeps a test's database alive: its directory, or its PostgreSQL database.
pub enum Guard {
    Sqlite(tempfile::TempDir),
    Postgres(test_postgres::Database<'static>),
}

fn on_postgres() -> bool {
    match std::env::var(BACKEND_VAR).as_deref() {
        Ok("postgres") => true,
        Ok("sqlite") | Err(_) => false,
        Ok(other) => panic!("{BACKEND_VAR}={other:?}: expected postgres or sqlite"),
    }
}

/// A fresh, empty store; the database lives as long as the guard.
pub fn temp_store() -> (Guard, Box<Store>) {
    if on_postgres() {
        let db = test_postgres::database()
            .unwrap_or_else(|| panic!("{BACKEND_VAR}=postgres without PostgreSQL"));
        let store = PgBackend::new(&db.url(), 2, true)
            .and_then(|b| b.connect())
            .expect("a store on PostgreSQL");
        return (Guard::Postgres(db), store);
    }
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(&dir.path().join("k.db")).unwrap();
    (Guard::Sqlite(dir), Box::new(store))
}

/// A fresh, empty database with a pool of `pool` connections, for tests of several
/// connections at once (threads standing for instances).
pub fn temp_backend(pool: u32) -> (Guard, std::sync::Arc<dyn Backend>) {
    if on_postgres() {
        let db = test_postgres::database()
            .unwrap_or_else(|| panic!("{BACKEND_VAR}=postgres without PostgreSQL"));
        let backend = PgBackend::new(&db.url(), pool, true).expect("a backend on PostgreSQL");
        return (Guard::Postgres(db), std::sync::Arc::new(backend));
    }
    let dir = tempfile::tempdir().unwrap();
    let backend = keyhook_sqlite::SqliteBackend::new(dir.path().join("k.db"), true, pool);
    (Guard::Sqlite(dir), std::sync::Arc::new(backend))
}

/// Runs this test binary again on PostgreSQL, without the test calling this (`this`), and
/// fails with the failures there. Skips (saying why) without PostgreSQL, except under
/// `CI=true`.
pub fn run_again_on_postgres(this: &str) {
    if on_postgres() || !test_postgres::installed() {
        return;
    }
    let out = Command::new(std::env::current_exe().expect("the test binary"))
        .args(["--skip", this])
        .env(BACKEND_VAR, "postgres")
        .output()
        .expect("run the test binary");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let failures = stdout
        .find("\nfailures:")
        .map_or(&*stdout, |at| &stdout[at..]);
    assert!(
        out.status.success(),
        "failed on PostgreSQL ({BACKEND_VAR}=postgres reproduces it):\n{failures}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ran = stdout
        .lines()
        .rev()
        .find(|l| l.starts_with("test result:"))
        .unwrap_or("no summary");
    eprintln!("on PostgreSQL: {ran}");
}

/// A webhook of `user` on post.published (to a loopback URL nothing listens on), made by the
/// operator at `at`.
pub fn create_webhook(s: &Store, user: &str, at: Timestamp) -> Webhook {
    webhooks::create(
        s,
        &Actor::operator(user).unwrap(),
        NewWebhook {
            url: WebhookUrl::new("http://127.0.0.1:9/hook", true).ok(),
            events: WebhookEvents::new(vec!["post.published".into()]).ok(),
            ..NewWebhook::default()
        },
        at,
        Publish::AfterCommit,
    )
    .unwrap()
}
