//! The backend against a real server: the schema it makes, what it refuses, how each failure
//! is reported (never with the password), and the pool recovering after the server returns.

use keyhook_test_support::KeyByHash;
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use keyhook_core::store::{Backend, Store};
use keyhook_core::tables::{Kind, TABLES};
use keyhook_core::Error;
use keyhook_postgres::{PgBackend, SCHEMA_VERSION};
use keyhook_test_support as common;
use keyhook_test_support::database_or_skip;

fn tables(db: &common::Database<'_>) -> String {
    db.sql(
        "SELECT string_agg(tablename, ',' ORDER BY tablename) FROM pg_tables
         WHERE schemaname = 'public'",
    )
    .trim()
    .to_string()
}

fn error_of(backend: &PgBackend) -> Error {
    match backend.connect() {
        Ok(_) => panic!("connected to {}", backend.describe()),
        Err(e) => e,
    }
}

/// Every table and column of `tables::TABLES`, in PostgreSQL's type for its kind, and no
/// other table but the schema's marker; the attempt ids come from an identity.
#[test]
fn the_schema_is_sqlites_in_postgresql_types() {
    let db = database_or_skip!();
    common::pg_store(&db);
    let got = db.sql(
        "SELECT table_name || '.' || column_name || ':' || data_type || ':' || is_nullable
         FROM information_schema.columns WHERE table_schema = 'public'
         AND table_name <> 'keyhook_schema' ORDER BY table_name, ordinal_position",
    );
    // ordered delivery: a delivery's place in its webhook's queue is numbered by
    // PostgreSQL as it is inserted (SQLite's rowid), never copied: a copy inserts the
    // deliveries in id order, and the target numbers them so.
    let mut got: Vec<&str> = got
        .lines()
        .filter(|c| *c != "deliveries.seq:bigint:NO")
        .collect();
    got.sort_unstable();
    let seq = db.sql(
        "SELECT identity_generation FROM information_schema.columns
         WHERE table_name = 'deliveries' AND column_name = 'seq'",
    );
    assert_eq!(seq.trim(), "ALWAYS");
    let ty = |k: Kind| match k {
        Kind::Int => "bigint",
        Kind::Bool => "boolean",
        Kind::Text => "text",
        Kind::Bytes => "bytea",
    };
    let nullable = [
        "last_used_at",
        // (a portal link's and session's always expire)
        "api_keys.expires_at",
        "lease_until",
        "delivery_id",
        // secrets+delivery rules
        "previous_secret",
        "previous_secret_expires_at",
        "disabled_reason",
        // leak-era keys: a key's own rate limit
        "rate_limit",
        // shared budgets: NULL only on a key written by hand (its own budget)
        "budget_id",
        // idempotent webhook requests: none while the request runs
        "response",
        // the developer's loop: only an ephemeral webhook has a heartbeat
        "heartbeat_at",
        // payload filters: a webhook without one
        "filter",
        // event catalog: an event type's optional parts
        "description",
        "schema",
        "example",
        // skips: an attempt is no skip
        "skipped",
        // signatures and secrets at rest: an hmac webhook has no key pair, none has a
        // previous key outside a rotation's grace, and most have no static headers
        "public_key",
        "signing_key",
        "previous_signing_key",
        "headers",
        // delivery control: NULL keeps serve's schedule and timeout, no rate, never held; a
        // bucket never used is full and holds nothing
        "webhooks.retry_schedule",
        "webhooks.timeout_ms",
        "webhooks.held_until",
        "webhooks.rate",
        "webhook_rates.millitokens",
        "webhook_rates.next_at",
        // developer portal: a link minted by the CLI, not yet used, not revoked
        "portal_links.minted_by_key",
        "portal_links.used_at",
        "portal_links.revoked_at",
    ];
    let mut want: Vec<String> = TABLES
        .iter()
        .flat_map(|t| {
            t.columns.iter().map(move |(c, k)| {
                // profile scope: a user-wide event has no profile (an idempotency key's
                // profile_id is '' for it instead).
                let user_wide = (t.name, *c) == ("events", "profile_id");
                let qualified = format!("{}.{c}", t.name);
                let null = if nullable.contains(c) || nullable.contains(&&*qualified) || user_wide {
                    "YES"
                } else {
                    "NO"
                };
                format!("{}.{c}:{}:{null}", t.name, ty(*k))
            })
        })
        .collect();
    want.sort_unstable();
    assert_eq!(got, want);
    assert_eq!(
        tables(&db),
        "api_keys,audit_log,deliveries,delivery_attempts,event_types,events,idempotency_keys,\
         idempotent_requests,key_budgets,keyhook_schema,portal_links,portal_sessions,secrets_key,\
         users,webhook_rates,webhooks"
    );
    let identity = db.sql(
        "SELECT identity_generation FROM information_schema.columns
         WHERE table_name = 'delivery_attempts' AND column_name = 'id'",
    );
    assert_eq!(identity.trim(), "BY DEFAULT");
    let indexes = db.sql(
        "SELECT string_agg(indexname, ',' ORDER BY indexname) FROM pg_indexes
         WHERE schemaname = 'public' AND indexname NOT LIKE '%_pkey' AND indexname NOT LIKE '%_key'",
    );
    assert_eq!(
        indexes.trim(),
        "api_keys_budget,api_keys_prefix,api_keys_user,api_keys_without_checksum,audit_log_at,audit_log_user,deliveries_due,\
         deliveries_event,deliveries_finished,deliveries_queue,deliveries_webhook,delivery_attempts_at,\
         delivery_attempts_delivery,delivery_attempts_webhook,events_created,\
         events_user_created,idempotency_keys_created,idempotent_requests_created,\
         portal_links_hash,portal_links_user,portal_sessions_hash,portal_sessions_link,\
         webhook_rates_next,webhooks_ephemeral,webhooks_held,webhooks_ordered,\
         webhooks_previous_secret,webhooks_user"
    );
    // The lists' indexes hold the rows in list order (created_at, id): no sort per request.
    for (index, table) in [("api_keys_user", "api_keys"), ("webhooks_user", "webhooks")] {
        let def = db.sql(&format!(
            "SELECT indexdef FROM pg_indexes WHERE indexname = '{index}'"
        ));
        assert!(
            def.trim().ends_with(&format!(
                "ON public.{table} USING btree (user_id, created_at, id)"
            )),
            "{def}"
        );
    }
    // Each child row goes with its parent, as on SQLite (portal links with their user,
    // sessions with their link, a rate bucket with its webhook among them).
    let cascades = db.sql(
        "SELECT count(*) FROM information_schema.referential_constraints
         WHERE constraint_schema = 'public' AND delete_rule = 'CASCADE'",
    );
    assert_eq!(cascades.trim(), "12");
    assert_eq!(
        db.sql("SELECT application || ' ' || version FROM keyhook_schema")
            .trim(),
        format!("keyhook {SCHEMA_VERSION}")
    );
}

/// Without `create`, a database without keyhook's tables is "not found" (exit 1,
/// DATABASE_NOT_FOUND), like a missing SQLite file, and nothing is created in it.
#[test]
fn without_create_an_empty_database_is_not_found_and_stays_empty() {
    let db = database_or_skip!();
    let e = error_of(&PgBackend::new(&db.url(), 2, false).unwrap());
    assert!(matches!(e, Error::NoDatabase(_)), "{e:?}");
    assert_eq!((e.exit_code(), e.code()), (1, "DATABASE_NOT_FOUND"));
    let m = e.to_string();
    assert!(
        m.starts_with("no keyhook database at postgres://keyhook:***@127.0.0.1:"),
        "{m}"
    );
    assert!(m.contains("keyhook keys create"), "{m}");
    assert!(!m.contains(db.cluster().password()), "{m}");
    assert_eq!(tables(&db), "");
    // Once created, a backend without `create` opens it.
    common::pg_store(&db);
    PgBackend::new(&db.url(), 2, false)
        .unwrap()
        .connect()
        .unwrap();
}

#[test]
fn a_database_with_other_tables_is_refused_untouched() {
    let db = database_or_skip!();
    db.sql("CREATE TABLE orders (id int)");
    let e = error_of(&common::pg_backend(&db, 2));
    assert!(matches!(e, Error::Storage(_)), "{e:?}");
    assert!(e.to_string().contains("not a keyhook database"), "{e}");
    assert_eq!(tables(&db), "orders");

    // Another application's marker table is refused too.
    let db = database_or_skip!();
    db.sql("CREATE TABLE keyhook_schema (application text, version bigint)");
    db.sql("INSERT INTO keyhook_schema VALUES ('other', 1)");
    let e = error_of(&common::pg_backend(&db, 2));
    assert!(e.to_string().contains("not a keyhook database"), "{e}");
    assert_eq!(tables(&db), "keyhook_schema");
}

#[test]
fn a_schema_newer_than_the_binary_is_refused_untouched() {
    let db = database_or_skip!();
    common::pg_store(&db);
    db.sql(&format!(
        "UPDATE keyhook_schema SET version = {}",
        SCHEMA_VERSION + 1
    ));
    for create in [true, false] {
        let e = error_of(&PgBackend::new(&db.url(), 2, create).unwrap());
        assert!(matches!(e, Error::Storage(_)), "{e:?}");
        let m = e.to_string();
        assert!(
            m.contains(&format!(
                "written by a newer keyhook (schema version {}, this binary knows up to \
                 {SCHEMA_VERSION})",
                SCHEMA_VERSION + 1
            )),
            "{m}"
        );
        assert!(!m.contains(db.cluster().password()), "{m}");
    }
    assert_eq!(
        db.sql("SELECT version FROM keyhook_schema").trim(),
        (SCHEMA_VERSION + 1).to_string()
    );
}

/// Instances starting together on an empty database: one migrates, under the advisory
/// lock, and the others wait and find it done (without the lock, the second CREATE TABLE
/// fails).
#[test]
fn instances_starting_together_migrate_once() {
    let db = database_or_skip!();
    let url = db.url();
    let n = 8;
    let barrier = Arc::new(Barrier::new(n));
    let threads: Vec<_> = (0..n)
        .map(|_| {
            let (url, barrier) = (url.clone(), barrier.clone());
            std::thread::spawn(move || {
                let backend = PgBackend::new(&url, 1, true).unwrap();
                barrier.wait();
                backend.connect().map(|_| ()).map_err(|e| e.to_string())
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap().unwrap();
    }
    assert_eq!(db.sql("SELECT count(*) FROM keyhook_schema").trim(), "1");
}

/// A wrong password: a clear message and exit 1, at the first connect, naming neither the
/// password given nor the real one.
#[test]
fn bad_credentials_are_reported_without_a_password() {
    let db = database_or_skip!();
    let real = db.cluster().password().to_string();
    let url = db.url().replace(&real, "Wr0ngPassw0rd");
    let started = Instant::now();
    let e = error_of(&PgBackend::new(&url, 2, true).unwrap());
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(e.exit_code(), 1, "{e:?}");
    let m = e.to_string();
    assert!(m.contains("refused the login"), "{m}");
    assert!(m.contains("password authentication failed"), "{m}");
    assert!(!m.contains("Wr0ngPassw0rd") && !m.contains(&real), "{m}");
    // No password at all, where the server wants one.
    let url = db.url().replace(&format!(":{real}@"), "@");
    let m = error_of(&PgBackend::new(&url, 2, true).unwrap()).to_string();
    assert!(m.contains("refused the login"), "{m}");
}

/// Nothing listening: Unavailable (503 / exit 1) at once, naming the server, not the
/// password. A database that does not exist on the server is "not found".
#[test]
fn an_unreachable_server_or_database_is_reported_without_a_password() {
    let free = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = free.local_addr().unwrap().port();
    drop(free);
    let url = format!("postgres://kh:Sup3rS3cret@127.0.0.1:{port}/keyhook");
    let backend = PgBackend::new(&url, 2, true).unwrap();
    assert_eq!(
        backend.describe(),
        format!("postgres://kh:***@127.0.0.1:{port}/keyhook")
    );
    let e = error_of(&backend);
    assert!(matches!(e, Error::Unavailable(_)), "{e:?}");
    assert_eq!((e.exit_code(), e.http_status()), (1, 503));
    let m = e.to_string();
    assert!(
        m.starts_with(&format!(
            "postgres://kh:***@127.0.0.1:{port}/keyhook: cannot reach the database server"
        )),
        "{m}"
    );
    assert!(!m.contains("Sup3rS3cret"), "{m}");

    let db = database_or_skip!();
    let url = db.url().replace(db.name(), "no_such_database");
    let e = error_of(&PgBackend::new(&url, 2, true).unwrap());
    assert!(matches!(e, Error::NoDatabase(_)), "{e:?}");
    assert!(e.to_string().contains("no_such_database"), "{e}");
}

#[test]
fn a_malformed_url_is_a_validation_error_on_db() {
    let e = PgBackend::new("postgres://kh:Sup3rS3cret@host:port/db", 2, true).unwrap_err();
    assert_eq!(e.exit_code(), 2);
    assert_eq!(e.details()[0].field, "--db");
    assert!(!e.to_string().contains("Sup3rS3cret"), "{e}");
}

/// A store dropped goes back to the pool: a pool of one lends its connection again and
/// again.
#[test]
fn a_dropped_store_returns_its_connection_to_the_pool() {
    let db = database_or_skip!();
    let backend = common::pg_backend(&db, 1);
    let pid = |s: &Store| {
        let mut out = String::new();
        s.read(|c| {
            out = format!("{}", c.count_rows(&TABLES[0])?);
            Ok(())
        })
        .unwrap();
        out
    };
    drop(backend.connect().unwrap()); // the first: direct, migrates
    for _ in 0..5 {
        let s = backend.connect().unwrap();
        pid(&s);
    }
    let held = backend.connect().unwrap();
    let started = Instant::now();
    let e = match backend.connect() {
        Ok(_) => panic!("a pool of one lent two connections"),
        Err(e) => e,
    };
    assert!(started.elapsed() >= Duration::from_secs(2));
    assert!(matches!(e, Error::Unavailable(_)), "{e:?}");
    assert!(e.to_string().contains("database is busy"), "{e}");
    drop(held);
    backend.connect().unwrap();
}

/// A transaction whose closure panics is rolled back before its connection goes back to the
/// pool; one in which a statement failed and the closure went on anyway is an error, not a
/// silent rollback reported as success.
#[test]
fn a_transaction_never_outlives_its_closure() {
    let db = database_or_skip!();
    let backend = common::pg_backend(&db, 1);
    drop(backend.connect().unwrap());
    let s = backend.connect().unwrap();
    let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        s.write::<()>(|c| {
            c.ensure_user("ghost", common::NOW)?;
            panic!("in the middle of a transaction");
        })
    }));
    assert!(panicked.is_err());
    drop(s);
    let s = backend.connect().unwrap();
    s.write(|c| Ok(c.ensure_user("alice", common::NOW)?))
        .unwrap();
    assert_eq!(
        db.sql("SELECT string_agg(id, ',' ORDER BY id) FROM users")
            .trim(),
        "alice"
    );

    let swallowed = s.write(|c| {
        c.ensure_user("bob", common::NOW)?;
        // A statement the server refuses: the transaction is aborted from here on.
        let failed = c.count_rows(&keyhook_core::tables::Table {
            name: "no_such_table",
            order_by: "id",
            columns: &[],
        });
        assert!(failed.is_err());
        Ok(())
    });
    assert!(swallowed.is_err(), "{swallowed:?}");
    assert_eq!(
        db.sql("SELECT string_agg(id, ',' ORDER BY id) FROM users")
            .trim(),
        "alice"
    );
}

/// The server going away while the backend lives: every use fails as Unavailable (503), a
/// checkout within a few seconds; when it is back, the pool makes new connections by
/// itself. A connection ended by the server (`pg_terminate_backend`, SQLSTATE 57P01) is
/// Unavailable too, and replaced.
#[test]
fn the_pool_recovers_when_the_server_returns() {
    let Some(cluster) = test_postgres::Cluster::private() else {
        return;
    };
    let db = cluster.database();
    let backend = common::pg_backend(&db, 4);
    let s = backend.connect().unwrap();
    common::key(&s, "alice", "ci");
    drop(s);
    let held = backend.connect().unwrap();
    assert_eq!(held.conn().list_keys(Some("alice")).unwrap().len(), 1);

    // The harness's clusters commit asynchronously (synchronous_commit = off) and `stop` is
    // a crash: write what was committed to disk first.
    db.sql("CHECKPOINT");
    cluster.stop();
    let e = held.conn().list_keys(Some("alice")).unwrap_err();
    assert!(
        matches!(e, keyhook_core::store::StoreError::Unavailable(_)),
        "{e:?}"
    );
    drop(held);
    let started = Instant::now();
    let e = error_of(&backend);
    assert!(
        started.elapsed() < Duration::from_secs(8),
        "{:?}",
        started.elapsed()
    );
    assert!(matches!(e, Error::Unavailable(_)), "{e:?}");
    assert!(!e.to_string().contains(cluster.password()), "{e}");

    cluster.start();
    // The pool recovers by itself; the first tries may still meet a server finishing its
    // start, or a connection that broke with the old one (one run saw "connection reset").
    let mut last = None;
    let s = common::poll(Duration::from_secs(10), || match backend.connect() {
        Ok(s) if s.conn().list_keys(Some("alice")).is_ok() => Some(s),
        other => {
            last = other.err();
            None
        }
    })
    .unwrap_or_else(|| panic!("the pool did not recover: {last:?}"));
    assert_eq!(s.conn().list_keys(Some("alice")).unwrap().len(), 1);

    // With a timeout, pg_terminate_backend waits until each backend has exited: without one
    // a pooled connection could still pass its check-out test and be reset right after.
    db.sql(&format!(
        "SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity
         WHERE datname = '{}' AND pid <> pg_backend_pid()",
        db.name()
    ));
    let e = s.conn().list_keys(Some("alice")).unwrap_err();
    assert!(
        matches!(e, keyhook_core::store::StoreError::Unavailable(_)),
        "{e:?}"
    );
    drop(s);
    let s = backend.connect().unwrap();
    assert_eq!(s.conn().list_keys(Some("alice")).unwrap().len(), 1);
}

/// `Store::read` sees one snapshot however long it takes, while other connections commit,
/// and cannot write.
#[test]
fn a_read_transaction_is_one_read_only_snapshot() {
    let db = database_or_skip!();
    let backend = common::pg_backend(&db, 2);
    let reader = backend.connect().unwrap();
    let writer = backend.connect().unwrap();
    common::key(&writer, "alice", "one");
    let counts = reader
        .read(|c| {
            let before = c.list_keys(None)?.len();
            common::key(&writer, "alice", "two");
            let during = c.list_keys(None)?.len();
            Ok((before, during))
        })
        .unwrap();
    assert_eq!(counts, (1, 1));
    assert_eq!(reader.conn().list_keys(None).unwrap().len(), 2);
    let e = reader
        .read(|c| Ok(c.ensure_user("mallory", common::NOW)?))
        .unwrap_err();
    assert!(e.to_string().contains("read-only"), "{e}");
}

/// A server that takes the TCP connection and then says nothing (stopped, wedged): the
/// connect gives up after twice the URL's `connect_timeout`, instead of waiting forever.
#[test]
fn a_server_that_never_answers_is_unavailable_in_bounded_time() {
    // The kernel completes the handshake into the backlog; nobody ever reads.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = silent.local_addr().unwrap().port();
    let url = format!("postgres://kh:Sup3rS3cret@127.0.0.1:{port}/keyhook?connect_timeout=1");
    let started = Instant::now();
    let e = error_of(&PgBackend::new(&url, 2, true).unwrap());
    let took = started.elapsed();
    assert!(
        took >= Duration::from_secs(2) && took < Duration::from_secs(5),
        "{took:?}"
    );
    assert!(matches!(e, Error::Unavailable(_)), "{e:?}");
    let m = e.to_string();
    assert!(m.contains("did not answer within 2 s"), "{m}");
    assert!(!m.contains("Sup3rS3cret"), "{m}");
    drop(silent);
}

/// A list read ahead with its key (`Storage::key_by_hash_ahead`, what an authenticated
/// `GET /api-keys` or `GET /webhooks` does): one statement finds the key and reads the list
/// of its user, and the list's read that follows is answered from it without a statement
/// (a key added meanwhile by another connection is not in it: it was not read again). Only
/// the very next statement gets it; anything else run in between drops it. The key is read
/// on every call: one deleted on another connection is refused at once.
#[test]
fn a_list_read_ahead_comes_with_its_key_in_one_statement() {
    use keyhook_core::auth::hash_key;
    use keyhook_core::store::ReadAhead;
    let db = database_or_skip!();
    let backend = common::pg_backend(&db, 2);
    let reader = backend.connect().unwrap();
    let writer = backend.connect().unwrap();
    let alice = common::key(&writer, "alice", "one");
    common::key(&writer, "alice", "two");
    common::key(&writer, "bob", "other");
    let hook = common::create_webhook(&writer, "alice", common::NOW);
    let hash = hash_key(alice.key.as_deref().unwrap());
    let ids = |keys: Vec<keyhook_core::model::ApiKey>| -> Vec<String> {
        keys.into_iter().map(|k| k.id).collect()
    };
    let listed = ids(reader.conn().list_keys(Some("alice")).unwrap());
    assert_eq!(listed.len(), 2);

    // Keys: the key, then its user's list from the same statement.
    let found = reader
        .key_by_hash_ahead(&hash, ReadAhead::KeysOfItsUser)
        .unwrap()
        .expect("the key");
    assert_eq!(found.id, alice.id);
    common::key(&writer, "alice", "three");
    assert_eq!(ids(reader.conn().list_keys(Some("alice")).unwrap()), listed);
    // Once: the next read is a statement of its own, and sees the third key.
    assert_eq!(reader.conn().list_keys(Some("alice")).unwrap().len(), 3);

    // Another user's list, or any statement in between, is read afresh.
    reader
        .key_by_hash_ahead(&hash, ReadAhead::KeysOfItsUser)
        .unwrap();
    assert_eq!(reader.conn().list_keys(Some("bob")).unwrap().len(), 1);
    assert_eq!(reader.conn().list_keys(Some("alice")).unwrap().len(), 3);
    reader
        .key_by_hash_ahead(&hash, ReadAhead::KeysOfItsUser)
        .unwrap();
    common::key(&writer, "alice", "four");
    reader.conn().count_webhooks("alice").unwrap();
    assert_eq!(reader.conn().list_keys(Some("alice")).unwrap().len(), 4);

    // Webhooks the same way, and a user without any gets an empty list.
    let found = reader
        .key_by_hash_ahead(&hash, ReadAhead::WebhooksOfItsUser)
        .unwrap()
        .expect("the key");
    assert_eq!(found.id, alice.id);
    common::create_webhook(&writer, "alice", common::NOW);
    let hooks = reader.conn().list_webhooks("alice").unwrap();
    assert_eq!(hooks.len(), 1);
    assert_eq!(hooks[0].id, hook.id);
    assert_eq!(
        hooks[0],
        writer.conn().webhook("alice", &hook.id).unwrap().unwrap()
    );
    assert_eq!(reader.conn().list_webhooks("alice").unwrap().len(), 2);
    let bob = writer.conn().list_keys(Some("bob")).unwrap().remove(0);
    let bob_key = common::key(&writer, "bob", "with-plaintext");
    let bob_hash = hash_key(bob_key.key.as_deref().unwrap());
    reader
        .key_by_hash_ahead(&bob_hash, ReadAhead::WebhooksOfItsUser)
        .unwrap()
        .expect("bob's key");
    assert_eq!(reader.conn().list_webhooks("bob").unwrap(), vec![]);
    assert_eq!(bob.user_id, "bob");

    // Revocation: the key deleted on the other connection is gone on the next call.
    writer.conn().delete_key(&alice.id).unwrap();
    assert_eq!(
        reader
            .key_by_hash_ahead(&hash, ReadAhead::KeysOfItsUser)
            .unwrap(),
        None
    );
    assert_eq!(
        reader
            .key_by_hash_ahead(&hash, ReadAhead::WebhooksOfItsUser)
            .unwrap(),
        None
    );
}

/// A URL whose host is a directory connects through the server's Unix socket in it (no TCP
/// connection: `client_addr` is null), and the backend works there as over TCP: what one
/// writes, the other reads.
#[test]
fn a_socket_directory_as_the_host_connects_through_the_unix_socket() {
    use keyhook_core::auth;
    let db = database_or_skip!();
    let tcp = common::pg_backend(&db, 2);
    let made = common::key(&tcp.connect().unwrap(), "alice", "over tcp");
    let cluster = db.cluster();
    let dir = cluster.dir().display().to_string();
    let encoded = dir.replace('/', "%2F");
    for url in [
        format!(
            "postgres://keyhook@{encoded}:{}/{}",
            cluster.port(),
            db.name()
        ),
        format!(
            "postgres://keyhook@/{}?host={dir}&port={}",
            db.name(),
            cluster.port()
        ),
    ] {
        let socket = PgBackend::new(&url, 2, false).expect("a socket URL");
        let s = socket.connect().unwrap_or_else(|e| panic!("{url}: {e}"));
        let found = auth::authenticate(&s, made.key.as_deref().unwrap(), common::NOW).unwrap();
        assert_eq!(found.id, made.id);
        let on_socket = db.sql(&format!(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = '{}' \
             AND application_name = 'keyhook' AND client_addr IS NULL \
             AND backend_type = 'client backend'",
            db.name()
        ));
        assert!(on_socket.trim().parse::<u32>().unwrap() >= 1, "{url}");
        let second = common::key(&s, "alice", "over the socket");
        let listed = tcp
            .connect()
            .unwrap()
            .conn()
            .list_keys(Some("alice"))
            .unwrap();
        assert!(listed.iter().any(|k| k.id == second.id), "{url}");
    }
}

/// Reads `hash`'s key on `s` until every lane of `backend`'s pipeline answers: its lanes are
/// made in the background at the first read, and until one is up the store's own connection
/// answers (taken as: four reads in a row went over the pipeline).
fn until_pipelined(backend: &PgBackend, s: &Store, hash: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut in_a_row = 0;
    while in_a_row < 4 {
        assert!(Instant::now() < deadline, "the lanes did not come up");
        let before = backend.pipelined();
        s.key_by_hash(hash).unwrap().expect("the key");
        in_a_row = if backend.pipelined() > before {
            in_a_row + 1
        } else {
            0
        };
        std::thread::yield_now();
    }
}

/// A backend with a pool of `size`, a store of it, alice's key and its hash, the pipeline
/// up.
fn alice_over_the_pipeline(
    db: &common::Database<'_>,
    size: u32,
) -> (PgBackend, Box<Store>, keyhook_core::model::ApiKey, String) {
    let backend = common::pg_backend(db, size);
    let s = backend.connect().unwrap();
    let alice = common::key(&s, "alice", "one");
    let hash = keyhook_core::auth::hash_key(alice.key.as_deref().unwrap());
    until_pipelined(&backend, &s, &hash);
    (backend, s, alice, hash)
}

/// Ends the pipeline's connections to `db` from the server's side (`pg_terminate_backend` of
/// those named `keyhook-pipeline`); how many there were.
fn end_the_lanes(db: &common::Database<'_>) -> u32 {
    let ended = db.sql(&format!(
        "SELECT count(pg_terminate_backend(pid, 5000)) FROM pg_stat_activity
         WHERE datname = '{}' AND application_name = 'keyhook-pipeline'",
        db.name()
    ));
    ended.trim().parse().unwrap_or_else(|_| panic!("{ended}"))
}

/// Outside transactions the key's reads (alone, with its user's keys, with its user's
/// webhooks) go over the pipeline's shared connections, with the answers the store's own
/// connection gives; inside one they stay on the transaction's. A key deleted on another
/// connection is refused by the very next read over the pipeline.
#[test]
fn the_keys_reads_go_over_the_pipeline_with_the_same_answers() {
    use keyhook_core::auth::hash_key;
    use keyhook_core::store::ReadAhead;
    let db = database_or_skip!();
    let backend = common::pg_backend(&db, 4);
    // A pool of one (a command's) has no pipeline: the reference.
    let alone = common::pg_backend(&db, 1);
    let writer = alone.connect().unwrap();
    let alice = common::key(&writer, "alice", "one");
    common::key(&writer, "alice", "two");
    common::key(&writer, "bob", "other");
    common::create_webhook(&writer, "alice", common::NOW);
    let hash = hash_key(alice.key.as_deref().unwrap());
    let s = backend.connect().unwrap();
    until_pipelined(&backend, &s, &hash);

    let before = backend.pipelined();
    let by_pool = writer.key_by_hash(&hash).unwrap().unwrap();
    assert_eq!(s.key_by_hash(&hash).unwrap().unwrap(), by_pool);
    let found = s
        .key_by_hash_ahead(&hash, ReadAhead::KeysOfItsUser)
        .unwrap();
    assert_eq!(found.as_deref(), Some(&by_pool));
    assert_eq!(
        s.conn().list_keys(Some("alice")).unwrap(),
        writer.conn().list_keys(Some("alice")).unwrap()
    );
    let found = s
        .key_by_hash_ahead(&hash, ReadAhead::WebhooksOfItsUser)
        .unwrap();
    assert_eq!(found.as_deref(), Some(&by_pool));
    assert_eq!(
        s.conn().list_webhooks("alice").unwrap(),
        writer.conn().list_webhooks("alice").unwrap()
    );
    assert_eq!(backend.pipelined(), before + 3);
    assert_eq!(alone.pipelined(), 0);

    s.write(|_| {
        assert_eq!(s.key_by_hash(&hash)?.unwrap(), by_pool);
        Ok(())
    })
    .unwrap();
    assert_eq!(backend.pipelined(), before + 3, "a transaction's own read");

    writer.conn().delete_key(&alice.id).unwrap();
    assert_eq!(
        s.key_by_hash_ahead(&hash, ReadAhead::KeysOfItsUser)
            .unwrap(),
        None
    );
    assert_eq!(s.key_by_hash(&hash).unwrap(), None);
    assert_eq!(backend.pipelined(), before + 5);
}

/// A lane the server ends (`pg_terminate_backend` of the connections named
/// `keyhook-pipeline`) costs no request an error: its statement is answered on the store's
/// own connection, and the lane is made again within seconds.
#[test]
fn a_lane_ended_by_the_server_fails_no_read_and_comes_back() {
    let db = database_or_skip!();
    let (backend, s, alice, hash) = alice_over_the_pipeline(&db, 4);
    assert!(end_the_lanes(&db) >= 1);
    for _ in 0..20 {
        assert_eq!(s.key_by_hash(&hash).unwrap().unwrap().id, alice.id);
    }
    until_pipelined(&backend, &s, &hash);
}

/// The pipeline reads a user's list by walking the `(user_id, created_at, id)` index in
/// order, even where the statistics say users have dozens of keys and the planner's costs
/// would otherwise pick a bitmap scan and a sort (the state of a database with many keys
/// a user, checked first). Seen in the index's statistics: a plain index scan counts the
/// rows it fetched through the index (`idx_tup_fetch`); a bitmap scan does not.
#[test]
fn the_pipeline_reads_a_users_list_in_the_order_of_its_index() {
    use keyhook_core::auth::hash_key;
    use keyhook_core::store::ReadAhead;
    let db = database_or_skip!();
    let backend = common::pg_backend(&db, 4);
    let s = backend.connect().unwrap();
    let alice = common::key(&s, "alice", "one");
    let hash = hash_key(alice.key.as_deref().unwrap());
    // 200 users of 50 keys each, alice among them.
    db.sql(
        "INSERT INTO users (id, created_at)
         SELECT 'user-' || i, 0 FROM generate_series(1, 199) i;
         INSERT INTO api_keys (id, user_id, name, key_hash, key_prefix, permission,
                               full_access, profile_ids, created_at)
         SELECT 'key-' || i, CASE WHEN i < 50 THEN 'alice' ELSE 'user-' || (i % 199 + 1) END,
                'key ' || i, md5('hash' || i) || md5('more' || i), 'kp_' || i, 'readwrite',
                true, '[]', 1800000000000 + i
         FROM generate_series(1, 9999) i;
         ANALYZE api_keys;",
    );
    let plan = db.sql(&format!(
        "EXPLAIN SELECT * FROM api_keys WHERE user_id =
         (SELECT user_id FROM api_keys WHERE key_hash = '{hash}') ORDER BY created_at, id"
    ));
    assert!(plan.contains("Bitmap Heap Scan"), "{plan}");
    until_pipelined(&backend, &s, &hash);

    let fetched = || -> u64 {
        db.sql(
            "SELECT idx_tup_fetch FROM pg_stat_user_indexes WHERE indexrelname = 'api_keys_user'",
        )
        .trim()
        .parse()
        .unwrap()
    };
    let before = fetched();
    let reads = 20;
    for _ in 0..reads {
        let before = backend.pipelined();
        s.key_by_hash_ahead(&hash, ReadAhead::KeysOfItsUser)
            .unwrap()
            .expect("the key");
        assert_eq!(backend.pipelined(), before + 1, "over the pipeline");
        assert_eq!(s.conn().list_keys(Some("alice")).unwrap().len(), 50);
    }
    // A backend reports its counts within a second or so of going idle.
    let want = before + reads * 50;
    let seen = common::poll(Duration::from_secs(15), || {
        Some(fetched()).filter(|&n| n >= want)
    });
    assert!(
        seen.is_some(),
        "{} rows fetched through the index, not {}",
        fetched() - before,
        reads * 50
    );
}

/// Reads waiting for the lane together go as one statement (batches fewer than reads), and
/// each thread gets its own answer: 16 threads at once, each reading its own user's key
/// with that user's keys or webhooks (users of 1 to 4 keys, with and without webhooks), or
/// a hash no key has; a key deleted meanwhile is refused by the next read.
#[test]
fn reads_batched_together_each_get_their_own_answer() {
    use keyhook_core::auth::hash_key;
    use keyhook_core::model::{ApiKey, Webhook};
    use keyhook_core::store::ReadAhead;
    let db = database_or_skip!();
    let backend = common::pg_backend(&db, 20);
    let writer = common::pg_backend(&db, 1).connect().unwrap();
    // Per user: its first key (hash, id), and its keys and webhooks as a pool of one (no
    // pipeline) lists them.
    let users: Vec<(String, String, Vec<ApiKey>, Vec<Webhook>)> = (0..8)
        .map(|u| {
            let user = format!("user{u}");
            let keys: Vec<ApiKey> = (0..=u % 4)
                .map(|k| common::key(&writer, &user, &format!("key {k}")))
                .collect();
            for _ in 0..u % 3 {
                common::create_webhook(&writer, &user, common::NOW);
            }
            let hash = hash_key(keys[0].key.as_deref().unwrap());
            let c = writer.conn();
            let (keys_listed, hooks) = (
                c.list_keys(Some(&user)).unwrap(),
                c.list_webhooks(&user).unwrap(),
            );
            assert_eq!(keys_listed.len(), keys.len());
            (hash, keys[0].id.clone(), keys_listed, hooks)
        })
        .collect();
    let s = backend.connect().unwrap();
    until_pipelined(&backend, &s, &users[0].0);
    let (reads_before, batches_before) = (backend.pipelined(), backend.pipeline_batches());

    let rounds = 150;
    std::thread::scope(|scope| {
        for t in 0..16 {
            let (backend, users) = (&backend, &users);
            scope.spawn(move || {
                let s = backend.connect().unwrap();
                for r in 0..rounds {
                    let (hash, id, keys, hooks) = &users[(t + r) % users.len()];
                    match (t + r) % 3 {
                        n @ (0 | 1) => {
                            let ahead = if n == 0 {
                                ReadAhead::KeysOfItsUser
                            } else {
                                ReadAhead::WebhooksOfItsUser
                            };
                            let key = s.key_by_hash_ahead(hash, ahead).unwrap().expect("the key");
                            assert_eq!(&key.id, id);
                            let c = s.conn();
                            if n == 0 {
                                assert_eq!(&c.list_keys(Some(&key.user_id)).unwrap(), keys);
                            } else {
                                assert_eq!(&c.list_webhooks(&key.user_id).unwrap(), hooks);
                            }
                        }
                        _ => {
                            let none = hash_key(&format!("kp_nobody_{t}_{r}"));
                            assert_eq!(s.key_by_hash(&none).unwrap(), None);
                            assert_eq!(&s.key_by_hash(hash).unwrap().unwrap().id, id);
                        }
                    }
                }
            });
        }
    });
    let reads = backend.pipelined() - reads_before;
    let batches = backend.pipeline_batches() - batches_before;
    // Every read went over the pipeline (a lane that failed would have left some to the
    // pool), fewer statements than reads.
    assert_eq!(reads, 16 * rounds as u64 * 4 / 3, "{reads} reads");
    assert!(batches < reads, "{batches} statements for {reads} reads");

    let (hash, id, _, _) = &users[3];
    assert!(writer.conn().delete_key(id).unwrap());
    assert_eq!(s.key_by_hash(hash).unwrap(), None);
    assert_eq!(
        s.key_by_hash_ahead(hash, ReadAhead::KeysOfItsUser).unwrap(),
        None
    );
}

/// A lane the server ends while reads are waiting for it, from many threads: none is left
/// waiting and none fails (each is answered on its store's own connection), and the lane
/// comes back.
#[test]
fn a_lane_ended_under_load_leaves_no_read_waiting() {
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    let db = database_or_skip!();
    let (backend, s, alice, hash) = alice_over_the_pipeline(&db, 12);
    let (stop, done) = (AtomicBool::new(false), AtomicU64::new(0));
    std::thread::scope(|scope| {
        for _ in 0..8 {
            let (backend, hash, alice, stop, done) = (&backend, &hash, &alice, &stop, &done);
            scope.spawn(move || {
                let s = backend.connect().unwrap();
                while !stop.load(Ordering::Relaxed) {
                    assert_eq!(s.key_by_hash(hash).unwrap().unwrap().id, alice.id);
                    done.fetch_add(1, Ordering::Relaxed);
                }
            });
        }
        for _ in 0..3 {
            let before = done.load(Ordering::Relaxed);
            while done.load(Ordering::Relaxed) < before + 200 {
                std::thread::yield_now();
            }
            end_the_lanes(&db);
        }
        let before = done.load(Ordering::Relaxed);
        while done.load(Ordering::Relaxed) < before + 200 {
            std::thread::yield_now();
        }
        stop.store(true, Ordering::Relaxed);
    });
    until_pipelined(&backend, &s, &hash);
}

/// A use of a key while another transaction holds the key's row (a write to the key, here
/// a rotation's grace setting its expiry) does not wait for it and is not lost: the next use
/// recorded on the backend, of any key, records it too. A key used once during a write to it
/// is not left "never used".
#[test]
fn a_use_during_a_write_to_the_key_is_recorded_by_the_next_use() {
    use keyhook_core::auth::hash_key;
    use keyhook_core::time::Timestamp;
    let db = database_or_skip!();
    let backend = common::pg_backend(&db, 2);
    let holder = backend.connect().unwrap();
    let user = backend.connect().unwrap();
    let once = common::key(&holder, "alice", "once");
    let other = common::key(&holder, "alice", "other");
    let (locked_tx, locked_rx) = std::sync::mpsc::channel();
    let (go_tx, go_rx) = std::sync::mpsc::channel::<()>();
    let used_at = Timestamp(common::NOW.0 + 5_000);
    let last_used = |id: &str| {
        db.sql(&format!(
            "SELECT coalesce(last_used_at::text, 'never') FROM api_keys WHERE id = '{id}'"
        ))
        .trim()
        .to_string()
    };
    std::thread::scope(|scope| {
        let id = once.id.clone();
        scope.spawn(move || {
            holder
                .write(|c| {
                    c.set_key_expiry(&id, Timestamp(common::NOW.0 + 60_000))?;
                    locked_tx.send(()).unwrap();
                    go_rx.recv().unwrap();
                    Ok(())
                })
                .unwrap();
        });
        locked_rx.recv().unwrap();
        let started = Instant::now();
        let e = user.record_key_use(&hash_key(once.key.as_deref().unwrap()), &once.id, used_at);
        go_tx.send(()).unwrap();
        assert!(e.is_err(), "the row is busy: not recorded now");
        assert!(
            started.elapsed() < Duration::from_secs(1),
            "it did not wait"
        );
    });
    assert_eq!(last_used(&once.id), "never");
    user.record_key_use(
        &hash_key(other.key.as_deref().unwrap()),
        &other.id,
        Timestamp(used_at.0 + 1),
    )
    .unwrap();
    assert_eq!(last_used(&other.id), (used_at.0 + 1).to_string());
    assert_eq!(
        last_used(&once.id),
        used_at.0.to_string(),
        "the use left is recorded"
    );
}

/// Two instances giving a new database their keys at the same moment take turns: the
/// second finds the first's fingerprint recorded (and refuses its own key) instead of
/// finding none and recording its own over it.
#[test]
fn instances_recording_a_secrets_key_at_once_take_turns() {
    let db = database_or_skip!();
    let backend = common::pg_backend(&db, 2);
    let first = backend.connect().unwrap();
    let second = backend.connect().unwrap();
    let (found_tx, found_rx) = std::sync::mpsc::channel();
    let (go_tx, go_rx) = std::sync::mpsc::channel::<()>();
    std::thread::scope(|scope| {
        scope.spawn(move || {
            first
                .write(|c| {
                    found_tx.send(c.lock_secrets_fingerprint()?).unwrap();
                    go_rx.recv().unwrap();
                    c.set_secrets_fingerprint("sha256:first")?;
                    Ok(())
                })
                .unwrap();
        });
        assert_eq!(
            found_rx.recv().unwrap(),
            None,
            "a new database records none"
        );
        let looking = scope.spawn(move || {
            let mut found = None;
            second
                .write(|c| {
                    found = c.lock_secrets_fingerprint()?;
                    if found.is_none() {
                        c.set_secrets_fingerprint("sha256:second")?;
                    }
                    Ok(())
                })
                .map(|()| found)
        });
        // The second waits for the first's transaction.
        let waited = common::poll_until(Duration::from_secs(10), || {
            db.sql(
                "SELECT count(*) FROM pg_stat_activity
                 WHERE wait_event_type = 'Lock' AND query LIKE '%pg_advisory_xact_lock%'",
            )
            .trim()
                == "1"
        });
        go_tx.send(()).unwrap();
        assert!(waited, "the second did not wait for the first");
        assert_eq!(
            looking.join().unwrap().unwrap().as_deref(),
            Some("sha256:first")
        );
    });
    assert_eq!(
        db.sql("SELECT fingerprint FROM secrets_key").trim(),
        "sha256:first"
    );
}
