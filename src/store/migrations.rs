//! Versioned schema migrations: an ordered list, applied in one transaction, tracked by
//! `PRAGMA user_version`. `PRAGMA application_id` marks the file as keyhook's, so a foreign
//! SQLite file is recognised and refused instead of being written to.

use rusqlite::{Connection, TransactionBehavior};

use crate::error::{Error, Result};

/// "KHK1" as a big-endian integer: the file's `application_id`.
pub const APPLICATION_ID: i32 = 0x4B48_4B31;

/// Migration `i` takes the schema from version `i` to `i + 1`. Never edit a released one:
/// append a new one.
const MIGRATIONS: &[&str] = &[
    // 1: users and their API keys.
    "CREATE TABLE users (
        id          TEXT PRIMARY KEY,
        created_at  INTEGER NOT NULL
     ) STRICT;
     CREATE TABLE api_keys (
        id           TEXT PRIMARY KEY,
        user_id      TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        name         TEXT NOT NULL,
        key_hash     TEXT NOT NULL,
        key_prefix   TEXT NOT NULL,
        permission   TEXT NOT NULL CHECK (permission IN ('readwrite', 'readonly')),
        full_access  INTEGER NOT NULL CHECK (full_access IN (0, 1)),
        profile_ids  TEXT NOT NULL DEFAULT '[]',
        last_used_at INTEGER,
        expires_at   INTEGER,
        created_at   INTEGER NOT NULL
     ) STRICT;
     CREATE UNIQUE INDEX api_keys_hash ON api_keys(key_hash);
     CREATE INDEX api_keys_user ON api_keys(user_id, created_at);
     CREATE INDEX api_keys_prefix ON api_keys(key_prefix);",
];

/// The schema version this binary writes.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// Checks that the file is keyhook's (or empty), then applies the pragmas and any pending
/// migrations. Nothing is written to a file that fails the check.
pub(super) fn migrate(conn: &Connection) -> Result<()> {
    check_identity(conn)?;
    // WAL lets readers (the server) and one writer (a CLI process) work at once.
    let mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))?;
    if !(mode.eq_ignore_ascii_case("wal") || mode.eq_ignore_ascii_case("memory")) {
        return Err(Error::Storage(format!(
            "cannot switch the database to WAL mode (it stays in {mode} mode)"
        )));
    }
    conn.execute_batch("PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL;")?;
    if read_version(conn)? == SCHEMA_VERSION {
        return Ok(());
    }
    apply_pending(conn, MIGRATIONS)
}

fn read_version(conn: &Connection) -> Result<i64> {
    Ok(conn.query_row("PRAGMA user_version", [], |r| r.get(0))?)
}

fn check_identity(conn: &Connection) -> Result<()> {
    let version = read_version(conn)?;
    let app_id: i32 = conn.query_row("PRAGMA application_id", [], |r| r.get(0))?;
    let objects: i64 = conn.query_row(
        "SELECT count(*) FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'",
        [],
        |r| r.get(0),
    )?;
    let empty = version == 0 && app_id == 0 && objects == 0;
    if !empty && app_id != APPLICATION_ID {
        return Err(Error::Storage(
            "the file is a SQLite database, but not a keyhook database; refusing to touch it"
                .into(),
        ));
    }
    if version > SCHEMA_VERSION {
        return Err(Error::Storage(format!(
            "the database was written by a newer keyhook (schema version {version}, this \
             binary knows up to {SCHEMA_VERSION}); upgrade keyhook, the file was left untouched"
        )));
    }
    Ok(())
}

/// Applies `migrations[current..]` in one transaction. Another process may have migrated
/// since we looked, so the version is read again under the write lock.
fn apply_pending(conn: &Connection, migrations: &[&str]) -> Result<()> {
    let tx = rusqlite::Transaction::new_unchecked(conn, TransactionBehavior::Immediate)?;
    let current = read_version(&tx)?;
    for (i, sql) in migrations.iter().enumerate().skip(current as usize) {
        tx.execute_batch(sql)?;
        tx.pragma_update(None, "user_version", i as i64 + 1)?;
    }
    tx.pragma_update(None, "application_id", APPLICATION_ID)?;
    tx.commit()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn version(conn: &Connection) -> i64 {
        read_version(conn).unwrap()
    }

    #[test]
    fn upgrades_from_every_older_version() {
        for start in 0..MIGRATIONS.len() {
            let conn = Connection::open_in_memory().unwrap();
            apply_pending(&conn, &MIGRATIONS[..start]).unwrap();
            assert_eq!(version(&conn), start as i64);
            migrate(&conn).unwrap();
            assert_eq!(version(&conn), SCHEMA_VERSION);
            // Applying again is a no-op.
            migrate(&conn).unwrap();
            assert_eq!(version(&conn), SCHEMA_VERSION);
        }
    }

    #[test]
    fn refuses_newer_and_foreign_files() {
        let conn = Connection::open_in_memory().unwrap();
        migrate(&conn).unwrap();
        conn.pragma_update(None, "user_version", SCHEMA_VERSION + 1)
            .unwrap();
        let err = migrate(&conn).unwrap_err().to_string();
        assert!(err.contains("newer keyhook"), "{err}");

        let foreign = Connection::open_in_memory().unwrap();
        foreign.execute_batch("CREATE TABLE t(x)").unwrap();
        let err = migrate(&foreign).unwrap_err().to_string();
        assert!(err.contains("not a keyhook database"), "{err}");
        assert_eq!(version(&foreign), 0);
    }
}
