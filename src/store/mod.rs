//! The only module that speaks SQL. It opens the file, applies the pragmas and the migrations,
//! and offers typed queries over one connection. One `Store` belongs to one thread; a server
//! opens one per worker.

mod keys;
mod migrations;
mod outbox;
mod webhooks;

use std::fs::{DirBuilder, OpenOptions};
use std::io::ErrorKind;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags, TransactionBehavior};

use crate::error::{Error, Result};

pub use migrations::SCHEMA_VERSION;
pub use outbox::Claimed;
pub use webhooks::AttemptRecord;

/// How long a writer waits for another process's write lock before giving up.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

pub struct Store {
    conn: Connection,
    path: PathBuf,
}

/// A view of the database for queries: the connection itself, or an open transaction.
/// Every query method lives on `Conn`, so the same method works in and out of transactions.
#[derive(Clone, Copy)]
pub struct Conn<'a>(&'a Connection);

impl Store {
    /// Opens (creating if needed) the keyhook database at `path` and brings its schema up to
    /// date. A missing file is created with mode 0600 in directories created with mode 0700. A
    /// file that is not a keyhook database, or one written by a newer keyhook, is refused and
    /// left untouched.
    pub fn open(path: &Path) -> Result<Store> {
        let store = Self::open_unmigrated(path)?;
        migrations::migrate(&store.conn).map_err(|e| store.describe(e))?;
        Ok(store)
    }

    fn open_unmigrated(path: &Path) -> Result<Store> {
        let display = path.display();
        if path.is_dir() {
            return Err(Error::Io(format!("database path {display} is a directory")));
        }
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            if !parent.exists() {
                DirBuilder::new()
                    .recursive(true)
                    .mode(0o700)
                    .create(parent)
                    .map_err(|e| {
                        Error::Io(format!("cannot create directory {}: {e}", parent.display()))
                    })?;
            }
        }
        match OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(path)
        {
            Ok(_) => {}
            Err(e) if e.kind() == ErrorKind::AlreadyExists => {}
            Err(e) => return Err(Error::Io(format!("cannot create database {display}: {e}"))),
        }
        // The file exists now; SQLite must not create it with its own (0644) mode.
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(path, flags)
            .map_err(|e| Error::Io(format!("cannot open database {display}: {e}")))?;
        let store = Store {
            conn,
            path: path.to_path_buf(),
        };
        store
            .conn
            .busy_timeout(BUSY_TIMEOUT)
            .map_err(|e| store.describe(e.into()))?;
        store.conn.set_prepared_statement_cache_capacity(64);
        Ok(store)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn conn(&self) -> Conn<'_> {
        Conn(&self.conn)
    }

    /// Runs `f` in a write transaction taken up front (`BEGIN IMMEDIATE`), so that checks and
    /// the writes that depend on them (a limit, a count) see no concurrent writer.
    pub fn write<T>(&self, f: impl FnOnce(Conn<'_>) -> Result<T>) -> Result<T> {
        // `new_unchecked` takes `&Connection`; a `Store` is never shared between threads and
        // no caller nests `write`, so the checked variant's `&mut` would buy nothing.
        let tx = rusqlite::Transaction::new_unchecked(&self.conn, TransactionBehavior::Immediate)?;
        let out = f(Conn(&tx))?;
        tx.commit()?;
        Ok(out)
    }

    /// Adds the file name to storage errors, which otherwise say little to an operator.
    fn describe(&self, e: Error) -> Error {
        match e {
            Error::Storage(m) => Error::Storage(format!("{}: {m}", self.path.display())),
            Error::Unavailable(m) => Error::Unavailable(format!("{}: {m}", self.path.display())),
            other => other,
        }
    }
}

/// Reads a JSON array of strings kept in a TEXT column. A damaged value is a storage error,
/// never a panic.
fn json_strings(s: &str) -> rusqlite::Result<Vec<String>> {
    serde_json::from_str(s).map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(0, rusqlite::types::Type::Text, Box::new(e))
    })
}

fn to_json(v: &[String]) -> String {
    serde_json::to_string(v).unwrap_or_else(|_| "[]".to_string())
}

#[cfg(test)]
pub(crate) mod testing {
    use super::*;

    /// A store in a fresh temporary directory; the directory lives as long as the guard.
    pub fn temp_store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("k.db")).unwrap();
        (dir, store)
    }
}
