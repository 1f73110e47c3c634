//! The backends the library's tests run on, and a fresh database on each.
//!
//! - [`BACKENDS`] lists them: a [`Kind`] opens a fresh, empty database of its backend. The
//!   store's contract suite (keyhook-core's `tests/contract`) runs every case on each of
//!   them, in one test process; a third backend is one more entry there (and one line in its
//!   `contract!`).
//! - The service tests (keyhook-core's `tests/*.rs`) run on one backend per process, picked by
//!   `KEYHOOK_TEST_BACKEND` ([`temp_store`], [`temp_backend`]); plain `cargo test` runs each
//!   such file on SQLite and its test `these_tests_pass_on_postgresql` runs it again on
//!   PostgreSQL, through `test_postgres::run_again_on_postgres`, the logic `tests/cli`
//!   shares.

use std::sync::Arc;

use keyhook_core::store::{Backend, Store};
use keyhook_postgres::PgBackend;
use keyhook_sqlite::SqliteBackend;

pub use test_postgres::BACKEND_VAR;

/// A backend the tests run on: how to make a fresh, empty database of it.
pub struct Kind {
    pub name: &'static str,
    /// A new database (`None`, the reason printed, when this machine cannot run the backend;
    /// a panic instead under `CI=true`).
    pub fresh: fn() -> Option<Db>,
    /// Whether two writers run at once: a row lock holds only what it locks. SQLite takes
    /// the whole file for each write transaction, so one writer waits for another.
    pub concurrent_writers: bool,
}

pub const SQLITE: Kind = Kind {
    name: "sqlite",
    fresh: || {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("k.db");
        Some(Db {
            open: Box::new(move |pool| Arc::new(SqliteBackend::new(path.clone(), true, pool))),
            _guard: Box::new(dir),
        })
    },
    concurrent_writers: false,
};

pub const POSTGRES: Kind = Kind {
    name: "postgres",
    fresh: || {
        let db = test_postgres::database()?;
        let url = db.url();
        Some(Db {
            open: Box::new(move |pool| {
                Arc::new(PgBackend::new(&url, pool, true).expect("a backend on PostgreSQL"))
            }),
            _guard: Box::new(db),
        })
    },
    concurrent_writers: true,
};

/// Every backend; the first is the reference the others are compared with.
pub const BACKENDS: [&Kind; 2] = [&SQLITE, &POSTGRES];

/// A fresh database, alive as long as this is.
pub struct Db {
    open: Box<dyn Fn(u32) -> Arc<dyn Backend> + Send + Sync>,
    _guard: Box<dyn std::any::Any>,
}

impl Db {
    /// A backend on this database with a pool of `pool`, as one more instance would open
    /// it; several may be open at once.
    pub fn backend(&self, pool: u32) -> Arc<dyn Backend> {
        (self.open)(pool)
    }

    /// A connection of a new backend on this database (which creates the tables).
    pub fn store(&self) -> Box<Store> {
        self.backend(1).connect().expect("a store")
    }
}

impl Kind {
    /// A fresh database of this backend; `None` (said why) to skip.
    pub fn db(&self) -> Option<Db> {
        (self.fresh)()
    }
}

/// The backend this process's service tests run on ([`BACKEND_VAR`]).
fn current() -> &'static Kind {
    if test_postgres::on_postgres() {
        &POSTGRES
    } else {
        &SQLITE
    }
}

/// What keeps a test's database alive.
pub type Guard = Db;

/// A fresh, empty store on this process's backend; the database lives as long as the guard.
pub fn temp_store() -> (Guard, Box<Store>) {
    let db = current()
        .db()
        .unwrap_or_else(|| panic!("{BACKEND_VAR}=postgres without PostgreSQL"));
    let store = db.store();
    (db, store)
}

/// A fresh, empty database with a pool of `pool` connections, for tests of several
/// connections at once (threads standing for instances).
pub fn temp_backend(pool: u32) -> (Guard, Arc<dyn Backend>) {
    let db = current()
        .db()
        .unwrap_or_else(|| panic!("{BACKEND_VAR}=postgres without PostgreSQL"));
    let backend = db.backend(pool);
    (db, backend)
}

/// Runs this test binary again on PostgreSQL, without the test calling this (`this`), and
/// fails with the failures there (`test_postgres::run_again_on_postgres`).
pub fn run_again_on_postgres(this: &str) {
    test_postgres::run_again_on_postgres(this, "cargo test -p keyhook-core --test FILE");
}
