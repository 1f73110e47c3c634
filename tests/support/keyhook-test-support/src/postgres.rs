//! keyhook-postgres's own tests: a database on the test process's PostgreSQL cluster, and
//! backends and stores on it.

use keyhook_core::store::{Backend, Store};
use keyhook_postgres::PgBackend;

pub use test_postgres::{database, Database};

/// A new database on the test cluster, or `return` from the test (the harness printed why;
/// under `CI=true` it panics instead).
#[macro_export]
macro_rules! database_or_skip {
    () => {
        match $crate::database() {
            Some(db) => db,
            None => return,
        }
    };
}

/// A PostgreSQL backend on `db` that creates keyhook's tables, with a pool of `size`.
pub fn pg_backend(db: &Database<'_>, size: u32) -> PgBackend {
    PgBackend::new(&db.url(), size, true).expect("a valid URL")
}

/// A connection of a new PostgreSQL backend on `db` (which creates the tables).
pub fn pg_store(db: &Database<'_>) -> Box<Store> {
    pg_backend(db, 2).connect().expect("connect")
}
