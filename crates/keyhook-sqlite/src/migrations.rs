//! Versioned schema migrations: an ordered list, applied in one transaction, tracked by
//! `PRAGMA user_version`. `PRAGMA application_id` marks the file as keyhook's, so a foreign
//! SQLite file is recognised and refused instead of being written to.

use std::time::{Duration, Instant};

use rusqlite::{Connection, TransactionBehavior};

use crate::error::Result;
use keyhook_core::store::StoreError;

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
    // 2: webhooks, the event outbox and the log of delivery attempts.
    "CREATE TABLE webhooks (
        id          TEXT PRIMARY KEY,
        user_id     TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        url         TEXT NOT NULL,
        events      TEXT NOT NULL,
        secret      TEXT NOT NULL,
        is_active   INTEGER NOT NULL CHECK (is_active IN (0, 1)),
        fail_count  INTEGER NOT NULL CHECK (fail_count >= 0),
        created_at  INTEGER NOT NULL,
        updated_at  INTEGER NOT NULL
     ) STRICT;
     CREATE INDEX webhooks_user ON webhooks(user_id, created_at);
     CREATE TABLE events (
        id          TEXT PRIMARY KEY,
        user_id     TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        event       TEXT NOT NULL,
        payload     BLOB NOT NULL,
        created_at  INTEGER NOT NULL
     ) STRICT;
     CREATE TABLE deliveries (
        id              TEXT PRIMARY KEY,
        event_id        TEXT NOT NULL REFERENCES events(id) ON DELETE CASCADE,
        webhook_id      TEXT NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
        state           TEXT NOT NULL
                        CHECK (state IN ('pending', 'delivered', 'failed', 'cancelled')),
        attempts        INTEGER NOT NULL DEFAULT 0,
        next_attempt_at INTEGER NOT NULL,
        lease_until     INTEGER,
        created_at      INTEGER NOT NULL,
        updated_at      INTEGER NOT NULL
     ) STRICT;
     CREATE INDEX deliveries_due ON deliveries(next_attempt_at) WHERE state = 'pending';
     CREATE INDEX deliveries_webhook ON deliveries(webhook_id);
     CREATE INDEX deliveries_event ON deliveries(event_id);
     CREATE TABLE delivery_attempts (
        id               INTEGER PRIMARY KEY,
        webhook_id       TEXT NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
        delivery_id      TEXT REFERENCES deliveries(id) ON DELETE CASCADE,
        event_id         TEXT NOT NULL,
        event            TEXT NOT NULL,
        attempt          INTEGER NOT NULL,
        attempted_at     INTEGER NOT NULL,
        delivered        INTEGER NOT NULL CHECK (delivered IN (0, 1)),
        status_code      INTEGER NOT NULL,
        status_text      TEXT NOT NULL,
        duration_ms      INTEGER NOT NULL,
        response_excerpt TEXT NOT NULL
     ) STRICT;
     CREATE INDEX delivery_attempts_webhook ON delivery_attempts(webhook_id, id);
     CREATE INDEX delivery_attempts_delivery ON delivery_attempts(delivery_id);",
    // 3: keys clustered by their hash (WITHOUT ROWID, the hash as primary key), so that
    // authentication is one B-tree search instead of an index search and a table search.
    "CREATE TABLE api_keys_by_hash (
        key_hash     TEXT PRIMARY KEY,
        id           TEXT NOT NULL UNIQUE,
        user_id      TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        name         TEXT NOT NULL,
        key_prefix   TEXT NOT NULL,
        permission   TEXT NOT NULL CHECK (permission IN ('readwrite', 'readonly')),
        full_access  INTEGER NOT NULL CHECK (full_access IN (0, 1)),
        profile_ids  TEXT NOT NULL DEFAULT '[]',
        last_used_at INTEGER,
        expires_at   INTEGER,
        created_at   INTEGER NOT NULL
     ) STRICT, WITHOUT ROWID;
     INSERT INTO api_keys_by_hash (key_hash, id, user_id, name, key_prefix, permission,
        full_access, profile_ids, last_used_at, expires_at, created_at)
     SELECT key_hash, id, user_id, name, key_prefix, permission, full_access, profile_ids,
        last_used_at, expires_at, created_at FROM api_keys;
     DROP TABLE api_keys;
     ALTER TABLE api_keys_by_hash RENAME TO api_keys;
     CREATE INDEX api_keys_user ON api_keys(user_id, created_at);
     CREATE INDEX api_keys_prefix ON api_keys(key_prefix);",
    // replay+idempotency: idempotency keys of POST /events, and the user's
    // events by time, which a replay reads.
    "CREATE TABLE idempotency_keys (
        user_id     TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        key         TEXT NOT NULL,
        event_id    TEXT NOT NULL UNIQUE,
        event       TEXT NOT NULL,
        deliveries  INTEGER NOT NULL,
        created_at  INTEGER NOT NULL,
        PRIMARY KEY (user_id, key)
     ) STRICT;
     CREATE INDEX idempotency_keys_created ON idempotency_keys(created_at);
     CREATE INDEX events_user_created ON events(user_id, created_at);",
    // audit log: every change to keys and webhooks, appended in the
    // change's transaction. No foreign key: an entry outlives the key or webhook it names.
    "CREATE TABLE audit_log (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        user_id     TEXT NOT NULL,
        at          INTEGER NOT NULL,
        actor       TEXT NOT NULL,
        via         TEXT NOT NULL,
        action      TEXT NOT NULL,
        target      TEXT NOT NULL,
        details     TEXT NOT NULL
     ) STRICT;
     CREATE INDEX audit_log_user ON audit_log(user_id, at, id);
     CREATE INDEX audit_log_at ON audit_log(at, id);",
    // secrets+delivery rules: the secret replaced by a rotation, kept until its
    // grace period ends, and why a webhook was disabled automatically (410 Gone, or too many
    // consecutive failures: webhooks disabled so before this version get the latter).
    "ALTER TABLE webhooks ADD COLUMN previous_secret TEXT;
     ALTER TABLE webhooks ADD COLUMN previous_secret_expires_at INTEGER;
     ALTER TABLE webhooks ADD COLUMN disabled_reason TEXT;
     UPDATE webhooks SET disabled_reason = fail_count || ' consecutive failed attempts'
        WHERE is_active = 0 AND fail_count >= 10;
     CREATE INDEX webhooks_previous_secret ON webhooks(previous_secret_expires_at)
        WHERE previous_secret_expires_at IS NOT NULL;",
    // retention: the age indexes the prune steps search, oldest first.
    "CREATE INDEX delivery_attempts_at ON delivery_attempts(attempted_at);
     CREATE INDEX deliveries_finished ON deliveries(updated_at) WHERE state <> 'pending';
     CREATE INDEX events_created ON events(created_at);",
    // profile scope: a webhook's scope (existing webhooks keep full access), an
    // event's profile (existing events are user-wide), the scope of what an audit entry is
    // about (a key's entries carry it in their details; webhooks had full access), and
    // idempotency keys held per profile ('' for user-wide events), so the primary key grows.
    "ALTER TABLE webhooks ADD COLUMN full_access INTEGER NOT NULL DEFAULT 1
        CHECK (full_access IN (0, 1));
     ALTER TABLE webhooks ADD COLUMN profile_ids TEXT NOT NULL DEFAULT '[]';
     ALTER TABLE events ADD COLUMN profile_id TEXT;
     ALTER TABLE audit_log ADD COLUMN full_access INTEGER NOT NULL DEFAULT 1
        CHECK (full_access IN (0, 1));
     ALTER TABLE audit_log ADD COLUMN profile_ids TEXT NOT NULL DEFAULT '[]';
     UPDATE audit_log
        SET full_access = CASE json_extract(details, '$.fullAccess') WHEN 0 THEN 0 ELSE 1 END,
            profile_ids = CASE json_extract(details, '$.fullAccess') WHEN 0
                          THEN coalesce(json_extract(details, '$.profileIds'), '[]')
                          ELSE '[]' END
        WHERE action LIKE 'key.%' AND json_valid(details);
     CREATE TABLE idempotency_keys_by_profile (
        user_id     TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        profile_id  TEXT NOT NULL,
        key         TEXT NOT NULL,
        event_id    TEXT NOT NULL UNIQUE,
        event       TEXT NOT NULL,
        deliveries  INTEGER NOT NULL,
        created_at  INTEGER NOT NULL,
        PRIMARY KEY (user_id, profile_id, key)
     ) STRICT;
     INSERT INTO idempotency_keys_by_profile (user_id, profile_id, key, event_id, event,
        deliveries, created_at)
     SELECT user_id, '', key, event_id, event, deliveries, created_at FROM idempotency_keys;
     DROP TABLE idempotency_keys;
     ALTER TABLE idempotency_keys_by_profile RENAME TO idempotency_keys;
     CREATE INDEX idempotency_keys_created ON idempotency_keys(created_at);",
    // leak-era keys: whether a key ends with its CRC32 checksum (every key written
    // from this version on; the ones before may not), a partial index that answers "is any
    // key without one left?" with one probe, and each key's own rate limit and remaining uses.
    "ALTER TABLE api_keys ADD COLUMN checksummed INTEGER NOT NULL DEFAULT 0
        CHECK (checksummed IN (0, 1));
     ALTER TABLE api_keys ADD COLUMN rate_limit TEXT;
     ALTER TABLE api_keys ADD COLUMN remaining_uses INTEGER CHECK (remaining_uses >= 0);
     CREATE INDEX api_keys_without_checksum ON api_keys(id) WHERE checksummed = 0;",
    // idempotent webhook requests: the Idempotency-Key of POST /webhooks and of rotate-secret,
    // test and replay (`service::idempotency`), per user, route, target and key; `id` is a
    // take of the key (what `db copy` pages by), `response` NULL while the request runs.
    "CREATE TABLE idempotent_requests (
        id          TEXT NOT NULL PRIMARY KEY,
        user_id     TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        route       TEXT NOT NULL,
        target      TEXT NOT NULL,
        key         TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        response    TEXT,
        created_at  INTEGER NOT NULL,
        UNIQUE (user_id, route, target, key)
     ) STRICT;
     CREATE INDEX idempotent_requests_created ON idempotent_requests(created_at);",
    // list order: a user's keys and webhooks are listed by (created_at, id); with id in
    // the index the rows come out in that order, instead of through a sort per request (a
    // temporary B-tree for two keys as for two thousand).
    "DROP INDEX api_keys_user;
     CREATE INDEX api_keys_user ON api_keys(user_id, created_at, id);
     DROP INDEX webhooks_user;
     CREATE INDEX webhooks_user ON webhooks(user_id, created_at, id);",
    // event catalog: the operator's event types, seeded with the seven built-ins and
    // keyhook's two operational events (`service::events::CATALOG`, `OPERATIONAL`), dated
    // 0: they are there before any database.
    "CREATE TABLE event_types (
        name        TEXT PRIMARY KEY,
        description TEXT,
        schema      TEXT,
        example     TEXT,
        profile     TEXT NOT NULL CHECK (profile IN ('optional', 'required', 'none')),
        deprecated  INTEGER NOT NULL DEFAULT 0 CHECK (deprecated IN (0, 1)),
        created_at  INTEGER NOT NULL,
        updated_at  INTEGER NOT NULL
     ) STRICT;
     INSERT INTO event_types (name, description, profile, deprecated, created_at, updated_at)
     VALUES ('post.published', NULL, 'optional', 0, 0, 0),
        ('post.failed', NULL, 'optional', 0, 0, 0),
        ('post.deleted', NULL, 'optional', 0, 0, 0),
        ('account.connected', NULL, 'optional', 0, 0, 0),
        ('account.disconnected', NULL, 'optional', 0, 0, 0),
        ('profile.created', NULL, 'optional', 0, 0, 0),
        ('profile.deleted', NULL, 'optional', 0, 0, 0),
        ('webhook.disabled', 'emitted by keyhook itself', 'none', 0, 0, 0),
        ('delivery.exhausted', 'emitted by keyhook itself', 'none', 0, 0, 0);",
    // payload filters: a webhook's CEL filter (service::filter), NULL for none.
    "ALTER TABLE webhooks ADD COLUMN filter TEXT;",
    // the developer's loop: a webhook of `keyhook listen` is ephemeral, delivered only by
    // its own listener (no other worker claims it), which writes `heartbeat_at` while it
    // runs; any other worker deletes one whose heartbeat is older than a minute.
    "ALTER TABLE webhooks ADD COLUMN ephemeral INTEGER NOT NULL DEFAULT 0
        CHECK (ephemeral IN (0, 1));
     ALTER TABLE webhooks ADD COLUMN heartbeat_at INTEGER;
     CREATE INDEX webhooks_ephemeral ON webhooks(heartbeat_at) WHERE ephemeral = 1;",
    // routing: an event a webhook's filter could not judge is recorded in its deliveries
    // list (`service::routing`) as a row with the kind of error, never sent (NULL for an
    // attempt); a replay reads a user's events in pages in (created_at, id) order, which the
    // index now holds whole, so a page is an index range, not a sort of the window.
    "ALTER TABLE delivery_attempts ADD COLUMN skipped TEXT;
     DROP INDEX events_user_created;
     CREATE INDEX events_user_created ON events(user_id, created_at, id);",
    // shared budgets: a key and the keys rotated from it share one budget of uses and one
    // rate bucket (`budget_id`, the first key's id; NULL only on a row written by hand, a
    // budget of its own), and the uses left are kept once, in `key_budgets`, whose row is the
    // one every request of any key of the chain counts down.
    "ALTER TABLE api_keys ADD COLUMN budget_id TEXT;
     UPDATE api_keys SET budget_id = id;
     CREATE INDEX api_keys_budget ON api_keys(budget_id);
     CREATE TABLE key_budgets (
        id             TEXT PRIMARY KEY,
        remaining_uses INTEGER NOT NULL CHECK (remaining_uses >= 0)
     ) STRICT;
     INSERT INTO key_budgets (id, remaining_uses)
     SELECT id, remaining_uses FROM api_keys WHERE remaining_uses IS NOT NULL;
     ALTER TABLE api_keys DROP COLUMN remaining_uses;",
    // developer portal: single-use links and the sessions they open, each by the SHA-256 of
    // its token (`service::portal`). A revoked link keeps its row (the audit names it); its
    // sessions are deleted.
    "CREATE TABLE portal_links (
        id            TEXT PRIMARY KEY,
        user_id       TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        token_hash    TEXT NOT NULL,
        full_access   INTEGER NOT NULL CHECK (full_access IN (0, 1)),
        profile_ids   TEXT NOT NULL DEFAULT '[]',
        read_only     INTEGER NOT NULL CHECK (read_only IN (0, 1)),
        minted_by_key TEXT,
        minted_by     TEXT NOT NULL,
        created_at    INTEGER NOT NULL,
        expires_at    INTEGER NOT NULL,
        used_at       INTEGER,
        revoked_at    INTEGER
     ) STRICT;
     CREATE UNIQUE INDEX portal_links_hash ON portal_links(token_hash);
     CREATE INDEX portal_links_user ON portal_links(user_id, created_at);
     CREATE TABLE portal_sessions (
        id          TEXT PRIMARY KEY,
        link_id     TEXT NOT NULL REFERENCES portal_links(id) ON DELETE CASCADE,
        token_hash  TEXT NOT NULL,
        created_at  INTEGER NOT NULL,
        expires_at  INTEGER NOT NULL
     ) STRICT;
     CREATE UNIQUE INDEX portal_sessions_hash ON portal_sessions(token_hash);
     CREATE INDEX portal_sessions_link ON portal_sessions(link_id);",
    // delivery control (CONTRACT §15): a webhook's own retry schedule (a JSON list of
    // durations as written) and timeout, NULL for serve's; and until when a receiver's
    // `Retry-After` holds its deliveries (NULL: never held).
    // A rated webhook's token bucket is a row of `webhook_rates` (thousandths of a token
    // left at `at`; NULL: full), written in the transaction of each claim.
    "ALTER TABLE webhooks ADD COLUMN retry_schedule TEXT;
     ALTER TABLE webhooks ADD COLUMN timeout_ms INTEGER;
     ALTER TABLE webhooks ADD COLUMN held_until INTEGER;
     ALTER TABLE webhooks ADD COLUMN rate TEXT;
     CREATE TABLE webhook_rates (
        webhook_id  TEXT PRIMARY KEY REFERENCES webhooks(id) ON DELETE CASCADE,
        millitokens INTEGER,
        at          INTEGER NOT NULL,
        next_at     INTEGER
     ) STRICT;",
    // signatures and secrets at rest (CONTRACT §15): how a webhook signs (`hmac` for every
    // existing one), its Ed25519 key pair (the private key sealed, the public one plain), its
    // static headers (a sealed JSON list), and the fingerprint of the key the secret cells
    // are sealed with (`keyhook_core::secrets`). The existing plaintext secrets are sealed by
    // the first open with a key, in one transaction that also writes the fingerprint: a
    // migration cannot hold the key. A keyhook from before this version refuses the file
    // (a newer schema), so none signs with a sealed secret.
    "ALTER TABLE webhooks ADD COLUMN signing TEXT NOT NULL DEFAULT 'hmac'
        CHECK (signing IN ('hmac', 'ed25519', 'both'));
     ALTER TABLE webhooks ADD COLUMN public_key TEXT;
     ALTER TABLE webhooks ADD COLUMN signing_key TEXT;
     ALTER TABLE webhooks ADD COLUMN previous_signing_key TEXT;
     ALTER TABLE webhooks ADD COLUMN headers TEXT;
     CREATE TABLE secrets_key (
        id          INTEGER PRIMARY KEY CHECK (id = 1),
        fingerprint TEXT NOT NULL
     ) STRICT;",
    // ordered delivery (CONTRACT §15): an ordered webhook's deliveries go one at a time in
    // the order they were queued (here `rowid`, PostgreSQL's `deliveries.seq`); every
    // existing webhook stays unordered. `deliveries_queue` finds a webhook's pending
    // deliveries in that order (the claim's "is it the head of its queue?"), and the claim
    // first asks whether any webhook is ordered, held or out of tokens at all
    // (`keyhook_core::claim_controls_sql!`) through the three small partial indexes, so
    // that it looks at nothing per row when none is.
    "ALTER TABLE webhooks ADD COLUMN ordered INTEGER NOT NULL DEFAULT 0 CHECK (ordered IN (0, 1));
     CREATE INDEX webhooks_ordered ON webhooks(id) WHERE ordered = 1;
     CREATE INDEX webhooks_held ON webhooks(held_until) WHERE held_until IS NOT NULL;
     CREATE INDEX webhook_rates_next ON webhook_rates(next_at) WHERE next_at IS NOT NULL;
     CREATE INDEX deliveries_queue ON deliveries(webhook_id) WHERE state = 'pending';",
];

/// The schema version this binary writes.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// Checks that the file is keyhook's (or empty), then applies the pragmas and any pending
/// migrations. Nothing is written to a file that fails the check.
pub(super) fn migrate(conn: &Connection) -> Result<()> {
    check_identity(conn, SCHEMA_VERSION)?;
    // A read-only connection (a file on a read-only filesystem) can neither switch modes nor
    // migrate; it may still read a file that is up to date. Writes fail as SQLITE_READONLY.
    let read_only = conn.is_readonly(rusqlite::DatabaseName::Main)?;
    if !read_only {
        enable_wal(conn)?;
    }
    conn.execute_batch("PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL;")?;
    if read_version(conn)? == SCHEMA_VERSION {
        return Ok(());
    }
    if read_only {
        return Err(StoreError::Unavailable(
            "database is read-only and its schema needs an upgrade by this keyhook".into(),
        )
        .into());
    }
    apply_pending(conn, MIGRATIONS)
}

fn read_version(conn: &Connection) -> Result<i64> {
    Ok(conn.query_row("PRAGMA user_version", [], |r| r.get(0))?)
}

/// WAL lets readers (the server) and one writer (a CLI process) work at once.
///
/// Switching a file into WAL mode needs an exclusive lock, and SQLite answers `SQLITE_BUSY` at
/// once, without the busy handler, when another process holds the file (several processes
/// opening a new database together). So the switch is retried until the busy timeout.
fn enable_wal(conn: &Connection) -> Result<()> {
    let is_wal = |m: &str| m.eq_ignore_ascii_case("wal") || m.eq_ignore_ascii_case("memory");
    let mode: String = conn.query_row("PRAGMA journal_mode", [], |r| r.get(0))?;
    if is_wal(&mode) {
        return Ok(());
    }
    let deadline = Instant::now() + super::BUSY_TIMEOUT;
    let mut pause = Duration::from_millis(1);
    let mode: String = loop {
        match conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0)) {
            Ok(mode) => break mode,
            Err(e)
                if e.sqlite_error_code() == Some(rusqlite::ErrorCode::DatabaseBusy)
                    && Instant::now() < deadline =>
            {
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(50));
            }
            Err(e) => return Err(e.into()),
        }
    };
    if !is_wal(&mode) {
        return Err(StoreError::Broken(format!(
            "cannot switch the database to WAL mode (it stays in {mode} mode)"
        ))
        .into());
    }
    Ok(())
}

/// Refuses a file that is not keyhook's, or whose schema is newer than `known` (this binary's
/// [`SCHEMA_VERSION`]; a test passes an older binary's).
fn check_identity(conn: &Connection, known: i64) -> Result<()> {
    // One read transaction, so that all three come from the same state of the file, even
    // while another process is migrating it.
    let tx = rusqlite::Transaction::new_unchecked(conn, TransactionBehavior::Deferred)?;
    let version = read_version(&tx)?;
    let app_id: i32 = tx.query_row("PRAGMA application_id", [], |r| r.get(0))?;
    let objects: i64 = tx.query_row(
        "SELECT count(*) FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'",
        [],
        |r| r.get(0),
    )?;
    tx.commit()?;
    let empty = version == 0 && app_id == 0 && objects == 0;
    if !empty && app_id != APPLICATION_ID {
        return Err(StoreError::Broken(
            "the file is a SQLite database, but not a keyhook database; refusing to touch it"
                .into(),
        )
        .into());
    }
    if version > known {
        return Err(StoreError::Broken(format!(
            "the database was written by a newer keyhook (schema version {version}, this \
             binary knows up to {known}); upgrade keyhook, the file was left untouched"
        ))
        .into());
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
            if start >= 1 {
                // A key written by an older schema survives every later migration.
                conn.execute_batch(
                    "INSERT INTO users (id, created_at) VALUES ('u', 1);
                     INSERT INTO api_keys (id, user_id, key_hash, key_prefix, name, permission,
                        full_access, profile_ids, last_used_at, expires_at, created_at)
                     VALUES ('k1', 'u', 'aa', 'kp_00000000', 'ci', 'readonly', 0, '[\"p\"]',
                        5, 6, 7);",
                )
                .unwrap();
            }
            migrate(&conn).unwrap();
            assert_eq!(version(&conn), SCHEMA_VERSION);
            if start >= 1 {
                let row: (String, String, String, i64, String, i64, i64, i64) = conn
                    .query_row(
                        "SELECT id, key_prefix, permission, full_access, profile_ids,
                            last_used_at, expires_at, created_at
                         FROM api_keys WHERE key_hash = 'aa'",
                        [],
                        |r| {
                            Ok((
                                r.get(0)?,
                                r.get(1)?,
                                r.get(2)?,
                                r.get(3)?,
                                r.get(4)?,
                                r.get(5)?,
                                r.get(6)?,
                                r.get(7)?,
                            ))
                        },
                    )
                    .unwrap();
                assert_eq!(
                    row,
                    (
                        "k1".into(),
                        "kp_00000000".into(),
                        "readonly".into(),
                        0,
                        "[\"p\"]".into(),
                        5,
                        6,
                        7
                    )
                );
            }
            // (Only a key written before the shared budgets' migration gets a budget of its
            // own from it; later ones are written with theirs.)
            let budgets = MIGRATIONS
                .iter()
                .position(|m| m.contains("CREATE TABLE key_budgets"))
                .unwrap();
            if start >= 1 && start <= budgets {
                // A key from before checksums is marked as such, without limits of its own.
                // A key written after the shared-budgets migration without a budget (by
                // hand, as here) keeps none: only the migration gives older keys theirs.
                let budgets = MIGRATIONS
                    .iter()
                    .position(|m| m.contains("CREATE TABLE key_budgets"))
                    .unwrap();
                let (checksummed, rate, budget, uses): (i64, Option<String>, Option<String>, i64) =
                    conn.query_row(
                        "SELECT checksummed, rate_limit, budget_id,
                            (SELECT count(*) FROM key_budgets)
                         FROM api_keys WHERE key_hash = 'aa'",
                        [],
                        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
                    )
                    .unwrap();
                assert_eq!(
                    (checksummed, rate, budget.as_deref(), uses),
                    (0, None, (start <= budgets).then_some("k1"), 0)
                );
            }
            // Applying again is a no-op.
            migrate(&conn).unwrap();
            assert_eq!(version(&conn), SCHEMA_VERSION);
        }
    }

    /// Shared budgets: each key is the first of its own chain, and the uses a key had left
    /// become its budget's.
    #[test]
    fn shared_budgets_arrive_with_each_keys_uses_left() {
        let mine = MIGRATIONS
            .iter()
            .position(|m| m.contains("CREATE TABLE key_budgets"))
            .unwrap();
        let conn = Connection::open_in_memory().unwrap();
        apply_pending(&conn, &MIGRATIONS[..mine]).unwrap();
        conn.execute_batch(
            "INSERT INTO users (id, created_at) VALUES ('u', 1);
             INSERT INTO api_keys (key_hash, id, user_id, name, key_prefix, permission,
                full_access, created_at, remaining_uses)
             VALUES ('h1', 'k1', 'u', 'n', 'kp_00000001', 'readwrite', 1, 1, 3),
                ('h2', 'k2', 'u', 'n', 'kp_00000002', 'readwrite', 1, 1, NULL);",
        )
        .unwrap();
        apply_pending(&conn, &MIGRATIONS[..=mine]).unwrap();
        let rows = |sql: &str| -> Vec<(String, Option<i64>)> {
            let mut stmt = conn.prepare(sql).unwrap();
            let rows = stmt
                .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
                .unwrap()
                .collect::<rusqlite::Result<_>>()
                .unwrap();
            rows
        };
        assert_eq!(
            rows(
                "SELECT budget_id, (SELECT remaining_uses FROM key_budgets b
                    WHERE b.id = api_keys.budget_id) FROM api_keys ORDER BY id"
            ),
            [("k1".into(), Some(3)), ("k2".into(), None)]
        );
        assert_eq!(
            rows("SELECT id, remaining_uses FROM key_budgets"),
            [("k1".into(), Some(3))]
        );
    }

    /// Signatures and secrets at rest, and delivery control: every existing webhook keeps
    /// `hmac` and its secret (sealed by the first open with a key, not by the migration,
    /// which has none), serve's schedule and timeout, no rate, never held; no key is
    /// recorded yet.
    #[test]
    fn existing_webhooks_keep_hmac_and_their_secret() {
        let mine = MIGRATIONS
            .iter()
            .position(|m| m.contains("CREATE TABLE secrets_key"))
            .unwrap();
        let flow = MIGRATIONS
            .iter()
            .position(|m| m.contains("ADD COLUMN retry_schedule"))
            .unwrap();
        let conn = Connection::open_in_memory().unwrap();
        apply_pending(&conn, &MIGRATIONS[..mine.min(flow)]).unwrap();
        conn.execute_batch(
            "INSERT INTO users (id, created_at) VALUES ('u', 1);
             INSERT INTO webhooks (id, user_id, url, events, secret, is_active, fail_count,
                created_at, updated_at) VALUES ('w', 'u', 'http://a/', '[\"post.published\"]',
                'whsec_x', 1, 0, 1, 1);",
        )
        .unwrap();
        migrate(&conn).unwrap();
        let row: (
            String,
            String,
            Option<String>,
            Option<String>,
            Option<String>,
        ) = conn
            .query_row(
                "SELECT signing, secret, public_key, signing_key, headers FROM webhooks",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
            )
            .unwrap();
        assert_eq!(row, ("hmac".into(), "whsec_x".into(), None, None, None));
        let flow: (Option<String>, Option<i64>, Option<String>, Option<i64>) = conn
            .query_row(
                "SELECT retry_schedule, timeout_ms, rate, held_until FROM webhooks",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
            )
            .unwrap();
        assert_eq!(
            flow,
            (None, None, None, None),
            "serve's schedule and timeout"
        );
        let keys: i64 = conn
            .query_row("SELECT count(*) FROM secrets_key", [], |r| r.get(0))
            .unwrap();
        assert_eq!(keys, 0);
        assert!(conn
            .execute("UPDATE webhooks SET signing = 'rsa'", [])
            .is_err());
    }

    /// A keyhook from before secrets at rest knows the schema versions before the secrets
    /// migration only: it refuses a file migrated through it as a newer schema (the check
    /// every binary runs before it reads anything), rather than reading a sealed cell as a
    /// secret and signing with ciphertext.
    #[test]
    fn a_binary_from_before_secrets_at_rest_refuses_the_migrated_file() {
        let mine = MIGRATIONS
            .iter()
            .position(|m| m.contains("CREATE TABLE secrets_key"))
            .unwrap();
        let before = i64::try_from(mine).unwrap();
        let conn = Connection::open_in_memory().unwrap();
        apply_pending(&conn, &MIGRATIONS[..mine]).unwrap();
        // Its own file, as it left it: it opens.
        check_identity(&conn, before).unwrap();
        migrate(&conn).unwrap();
        let err = check_identity(&conn, before).unwrap_err().to_string();
        assert!(
            err.contains(&format!(
                "newer keyhook (schema version {SCHEMA_VERSION}, this binary knows up to \
                 {before})"
            )),
            "{err}"
        );
        check_identity(&conn, SCHEMA_VERSION).unwrap();
    }

    /// The profile scope migration keeps what was there: webhooks get full
    /// access, events are user-wide, idempotency keys are the user-wide ones, and audit
    /// entries about a scoped key are about its scope (webhooks' about full access).
    #[test]
    fn profile_scope_arrives_with_full_access_and_user_wide_events() {
        let mine = MIGRATIONS
            .iter()
            .position(|m| m.contains("idempotency_keys_by_profile"))
            .unwrap();
        let conn = Connection::open_in_memory().unwrap();
        apply_pending(&conn, &MIGRATIONS[..mine]).unwrap();
        conn.execute_batch(
            "INSERT INTO users (id, created_at) VALUES ('u', 1);
             INSERT INTO webhooks (id, user_id, url, events, secret, is_active, fail_count,
                created_at, updated_at) VALUES ('w', 'u', 'http://a/', '[\"post.published\"]',
                'whsec_x', 1, 0, 1, 1);
             INSERT INTO events (id, user_id, event, payload, created_at)
                VALUES ('evt_1', 'u', 'post.published', x'7b7d', 1);
             INSERT INTO idempotency_keys (user_id, key, event_id, event, deliveries, created_at)
                VALUES ('u', 'k', 'evt_1', 'post.published', 1, 1);
             INSERT INTO audit_log (user_id, at, actor, via, action, target, details) VALUES
                ('u', 1, 'cli:r', 'cli', 'key.created', 'k1',
                 '{\"fullAccess\":false,\"profileIds\":[\"a\",\"b\"]}'),
                ('u', 2, 'cli:r', 'cli', 'key.created', 'k2',
                 '{\"fullAccess\":true,\"profileIds\":[]}'),
                ('u', 3, 'cli:r', 'cli', 'webhook.created', 'w', '{\"url\":\"http://a/\"}');",
        )
        .unwrap();
        migrate(&conn).unwrap();
        assert_eq!(version(&conn), SCHEMA_VERSION);
        let one = |sql: &str| -> String {
            conn.query_row(sql, [], |r| r.get::<_, rusqlite::types::Value>(0))
                .map(|v| format!("{v:?}"))
                .unwrap()
        };
        assert_eq!(
            one("SELECT full_access || ' ' || profile_ids FROM webhooks"),
            "Text(\"1 []\")"
        );
        assert_eq!(one("SELECT profile_id FROM events"), "Null");
        assert_eq!(
            one("SELECT profile_id || '|' || key || '|' || event_id FROM idempotency_keys"),
            "Text(\"|k|evt_1\")"
        );
        assert_eq!(
            one(
                "SELECT group_concat(full_access || ' ' || profile_ids, ';') FROM
                 (SELECT * FROM audit_log ORDER BY id)"
            ),
            "Text(\"0 [\\\"a\\\",\\\"b\\\"];1 [];1 []\")"
        );
        // The same key may now be taken again for a profile.
        conn.execute_batch(
            "INSERT INTO idempotency_keys (user_id, profile_id, key, event_id, event,
                deliveries, created_at) VALUES ('u', 'a', 'k', 'evt_2', 'post.published', 0, 2);",
        )
        .unwrap();
    }

    /// A database from before the catalog gets the seven built-ins (profile optional) and
    /// the two operational events (profile none, said to be keyhook's), as a new one does:
    /// the core's lists, row for row.
    #[test]
    fn the_catalog_arrives_with_the_built_in_event_types() {
        use keyhook_core::service::event_types::OPERATIONAL_DESCRIPTION;
        use keyhook_core::service::events::{CATALOG, OPERATIONAL};
        let mine = MIGRATIONS
            .iter()
            .position(|m| m.contains("CREATE TABLE event_types"))
            .unwrap();
        for start in [0, mine] {
            let conn = Connection::open_in_memory().unwrap();
            apply_pending(&conn, &MIGRATIONS[..start]).unwrap();
            migrate(&conn).unwrap();
            let rows: Vec<(String, Option<String>, String, i64, i64)> = conn
                .prepare(
                    "SELECT name, description, profile, deprecated, created_at FROM event_types
                     ORDER BY name",
                )
                .unwrap()
                .query_map([], |r| {
                    Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
                })
                .unwrap()
                .collect::<rusqlite::Result<_>>()
                .unwrap();
            let mut want: Vec<(String, Option<String>, String, i64, i64)> = CATALOG
                .iter()
                .map(|n| (n.to_string(), None, "optional".to_string(), 0, 0))
                .chain(OPERATIONAL.iter().map(|n| {
                    let d = Some(OPERATIONAL_DESCRIPTION.to_string());
                    (n.to_string(), d, "none".to_string(), 0, 0)
                }))
                .collect();
            want.sort();
            assert_eq!(rows, want, "from version {start}");
        }
    }

    #[test]
    fn switching_to_wal_waits_for_another_process() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("k.db");
        std::fs::write(&path, b"").unwrap();
        // Another connection (as another process would) holds the write lock for a while.
        // SQLite refuses the switch to WAL with SQLITE_BUSY then, without the busy handler.
        let other = Connection::open(&path).unwrap();
        other.execute_batch("BEGIN IMMEDIATE").unwrap();
        let release = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            other.execute_batch("COMMIT").unwrap();
        });
        let conn = Connection::open(&path).unwrap();
        migrate(&conn).unwrap();
        release.join().unwrap();
        let mode: String = conn
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
        assert_eq!(version(&conn), SCHEMA_VERSION);
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
