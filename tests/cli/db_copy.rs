//! `keyhook db copy --to TARGET`: everything in the `--db` database arrives in
//! an empty TARGET (key hashes, so keys verify with the same plaintext; webhook secrets;
//! events, deliveries and attempts), a non-empty TARGET is refused untouched, a copy that
//! fails midway leaves TARGET without a row, `--json` prints the rows per table, and progress
//! bars appear on a terminal only.
//!
//! Source and target are each an [`Env`], and every check goes through the command line or
//! the storage boundary (`CopyQueries`), so the same tests hold for any backend an `Env`
//! names.

use std::path::Path;

use serde_json::Value;

use crate::common::{data, database_bytes, on_terminal, run, str_of, Env, Run};
use keyhook::store::{Backend, Store};
use keyhook::tables::{Cell, TABLES};

/// The database an `Env` names (a file, or its PostgreSQL database), opened through the
/// storage boundary; `create` makes it (empty) as any command that creates one would.
fn open_env(env: &Env, create: bool) -> Box<Store> {
    match env.pg() {
        Some(pg) => keyhook::postgres::PgBackend::new(&pg.url(), 1, create)
            .and_then(|b| b.connect())
            .expect("open the PostgreSQL database"),
        None if create => Box::new(keyhook::sqlite::SqliteStore::open(&env.db()).unwrap()),
        None => Box::new(open(&env.db())),
    }
}

/// A SQLite database file, which must exist.
fn open(db: &Path) -> keyhook::sqlite::SqliteStore {
    keyhook::sqlite::SqliteStore::open_existing(db).expect("open the database")
}

/// Makes the (empty) database of `env`, as any command that creates one would.
fn create_empty(env: &Env) {
    open_env(env, true);
}

/// Every row of every table of `env`'s database, by table.
fn dump(env: &Env) -> Vec<(&'static str, Vec<Vec<Cell>>)> {
    let store = open_env(env, false);
    TABLES
        .iter()
        .map(|t| (t.name, store.conn().read_rows(t, None, usize::MAX).unwrap()))
        .collect()
}

/// Rows per table of `env`'s database.
fn counts(env: &Env) -> Vec<(&'static str, usize)> {
    dump(env).into_iter().map(|(t, r)| (t, r.len())).collect()
}

/// After a failed copy: every table of `target` is still without a row, but what every new
/// database is seeded with (the built-in event types).
fn assert_left_empty(target: &Env) {
    let seeds =
        keyhook::service::events::CATALOG.len() + keyhook::service::events::OPERATIONAL.len();
    for (t, n) in counts(target) {
        let seeded = TABLES.iter().any(|s| s.name == t && s.is_seeded());
        assert_eq!(
            n,
            if seeded { seeds } else { 0 },
            "{t} kept rows of a failed copy"
        );
    }
}

/// `keyhook --db SOURCE db copy --to TARGET EXTRA...`.
fn copy(source: &Env, target: &Env, extra: &[&str]) -> Run {
    let to = target.db_arg();
    run(source
        .cmd()
        .args(extra)
        .args(["db", "copy", "--to"])
        .arg(&to))
}

/// What the fixture made: the plaintext keys, with the user of each, and the webhooks.
struct Fixture {
    keys: Vec<(String, String)>,
    webhooks: Vec<(String, String)>,
}

/// A database with rows in every table: keys of two users (one readonly, scoped and
/// expiring, one with a budget of uses), webhooks (one disabled), events queued for delivery, failed deliveries and a
/// test ping to a closed loopback port.
fn populate(env: &Env) -> Fixture {
    let mut keys = Vec::new();
    for (user, name, extra) in [
        ("default", "ci", &[][..]),
        ("alice", "deploy", &["--max-uses", "1000"][..]),
        (
            "alice",
            "reader",
            &[
                "--permission",
                "readonly",
                "--profile",
                "p1",
                "--profile",
                "p2",
                "--expires-in",
                "30d",
            ][..],
        ),
    ] {
        let (code, v) =
            env.json(&[&["--user", user, "keys", "create", "--name", name], extra].concat());
        assert_eq!(code, 0, "{v}");
        keys.push((user.to_string(), str_of(&v["data"], "key").to_string()));
    }
    let mut webhooks = Vec::new();
    for user in ["default", "alice"] {
        let (code, v) = env.json(&[
            "--allow-private-targets",
            "--user",
            user,
            "webhooks",
            "create",
            "--url",
            "http://127.0.0.1:9/hook",
            "--event",
            "post.published",
            // Delivery control's columns, and a rate bucket once the worker claims.
            "--rate",
            "100/s",
            "--retry-schedule",
            "1s,1m",
            "--timeout",
            "5s",
            // Ordered delivery's column, and parked deliveries behind each queue's head.
            "--ordered",
        ]);
        assert_eq!(code, 0, "{v}");
        webhooks.push((user.to_string(), str_of(&v["data"], "id").to_string()));
    }
    for n in 0..3 {
        let data = format!(r#"{{"n": {n}}}"#);
        let idem = format!("fixture-{n}");
        let r = env.run(&[
            "events",
            "emit",
            "post.published",
            "--data",
            &data,
            "--idempotency-key",
            &idem,
        ]);
        assert_eq!(r.code, 0, "{r:#?}");
    }
    let r = env.run(&["--allow-private-targets", "deliver", "--once"]);
    assert_eq!(r.code, 0, "{r:#?}");
    let (user, id) = &webhooks[0];
    let (code, v) = env.json(&[
        "--allow-private-targets",
        "--user",
        user,
        "webhooks",
        "test",
        id,
    ]);
    // Exit 1: the ping was not delivered (a closed port), and it was logged.
    assert_eq!(
        (code, &v["data"]["delivered"]),
        (1, &Value::Bool(false)),
        "{v}"
    );
    let (user, id) = &webhooks[1];
    assert_eq!(
        env.run(&["--user", user, "webhooks", "disable", id]).code,
        0
    );
    // Idempotent webhook requests: one answered (a create's webhook id), one in progress.
    let (_, alice_hook) = &webhooks[1];
    env.sql(&format!(
        "INSERT INTO idempotent_requests (id, user_id, route, target, key, fingerprint,
            response, created_at)
         VALUES ('r-1', 'alice', 'POST /webhooks', '', 'fixture', 'f1',
            '{{\"webhookId\":\"{alice_hook}\"}}', 1),
            ('r-2', 'alice', 'POST /webhooks/{{id}}/test', '{alice_hook}', 'fixture', 'f2',
            NULL, 2)"
    ));
    // Portal links (one opened into a session, written as an exchange writes it: the copy
    // carries rows, however they were made).
    let (code, v) = env.json(&["--user", "alice", "portal", "link"]);
    assert_eq!(code, 0, "{v}");
    let link = str_of(&v["data"], "id").to_string();
    env.sql(&format!(
        "INSERT INTO portal_sessions (id, link_id, token_hash, created_at, expires_at)
         VALUES ('ps_fixture', '{link}', '{}', 1, 4102444800000)",
        "ab".repeat(32)
    ));
    for (t, n) in counts(env) {
        assert!(n > 0, "the fixture left {t} empty");
    }
    Fixture { keys, webhooks }
}

#[test]
fn everything_arrives_and_keys_verify_with_the_same_plaintext() {
    let (source, target) = (Env::new(), Env::new());
    let f = populate(&source);
    let r = copy(&source, &target, &["--json"]);
    assert_eq!(r.code, 0, "{r:#?}");
    assert_eq!(r.stderr, "", "--json prints nothing on stderr");

    // Row for row, every table.
    let (from, to) = (dump(&source), dump(&target));
    assert_eq!(to, from);
    // The summary is the rows per table, in copy order.
    let tables: Vec<String> = from
        .iter()
        .map(|(t, rows)| format!("\"{t}\":{}", rows.len()))
        .collect();
    let want = format!("{{\"data\":{{\"tables\":{{{}}}}}}}\n", tables.join(","));
    assert_eq!(r.stdout, want);

    // Through the command line: the same keys verify (the readonly one still may not write),
    // the same webhooks with their secrets, counts and attempts.
    for (user, key) in &f.keys {
        for env in [&source, &target] {
            let r = env.verify(key, &["--method", "GET"]);
            assert_eq!(r.code, 0, "{user}: {r:#?}");
            assert!(r.stdout.contains(&format!("of user {user}")), "{r:#?}");
        }
        let write = |env: &Env| env.verify(key, &["--method", "POST"]).code;
        assert_eq!(write(&target), write(&source), "{user}");
    }
    assert_eq!(
        data(&target, &["keys", "list", "--all-users"]),
        data(&source, &["keys", "list", "--all-users"])
    );
    for (user, id) in &f.webhooks {
        for args in [
            &["--user", user, "webhooks", "show", id][..],
            &["--user", user, "webhooks", "deliveries", id],
        ] {
            assert_eq!(data(&target, args), data(&source, args), "{args:?}");
        }
        let shown = data(&target, &["--user", user, "webhooks", "show", id]);
        assert!(str_of(&shown, "secret").starts_with("whsec_"), "{shown}");
    }

    // The copy goes on as a database of its own: a new attempt follows the copied ones.
    let (user, id) = &f.webhooks[0];
    let before = data(&target, &["--user", user, "webhooks", "deliveries", id]);
    let (code, v) = target.json(&[
        "--allow-private-targets",
        "--user",
        user,
        "webhooks",
        "test",
        id,
    ]);
    // Exit 1: the ping was not delivered (a closed port), and it was logged.
    assert_eq!(
        (code, &v["data"]["delivered"]),
        (1, &Value::Bool(false)),
        "{v}"
    );
    let after = data(&target, &["--user", user, "webhooks", "deliveries", id]);
    let (before, after) = (before.as_array().unwrap(), after.as_array().unwrap());
    assert_eq!(after.len(), before.len() + 1);
    assert_eq!(after[1..], before[..], "newest first");
    assert_eq!(dump(&source), from, "the source is unchanged");
}

#[test]
fn a_target_that_holds_anything_is_refused_untouched() {
    let (source, target) = (Env::new(), Env::new());
    populate(&source);
    target.create_key("already here", &[]);
    let rows = dump(&target);
    // On PostgreSQL the rows are the check; a file is also compared byte for byte.
    let bytes = target.pg().is_none().then(|| database_bytes(&target.db()));
    for json in [false, true] {
        let r = copy(&source, &target, if json { &["--json"] } else { &[] });
        r.assert_error(2);
        assert_eq!(
            r.stderr,
            "keyhook: --to: is not empty (users holds 1 row); db copy writes only into an \
             empty database\n"
        );
        if json {
            let v = r.json();
            assert_eq!(v["error"]["code"], "VALIDATION_ERROR");
            assert_eq!(v["error"]["details"][0]["field"], "--to");
        } else {
            assert_eq!(r.stdout, "");
        }
    }
    assert_eq!(dump(&target), rows);
    if let Some(bytes) = bytes {
        assert!(
            database_bytes(&target.db()) == bytes,
            "the target's files changed"
        );
    }
}

#[test]
fn a_database_is_never_copied_onto_itself() {
    if crate::common::skip_unless_sqlite("the same file under other spellings") {
        return;
    }
    let source = Env::new();
    populate(&source);
    let rows = dump(&source);
    let db = source.db();
    let link = source.dir.path().join("link.db");
    std::os::unix::fs::symlink(&db, &link).unwrap();
    let dotted = source.dir.path().join(".").join("keyhook.db");
    for to in [&db, &link, &dotted] {
        let r = run(source.cmd().args(["db", "copy", "--to"]).arg(to));
        r.assert_error(2);
        assert_eq!(
            r.stderr,
            "keyhook: --to: is the --db database itself; copy into another database\n"
        );
    }
    assert_eq!(dump(&source), rows);
}

#[test]
fn a_missing_source_is_an_error_and_creates_no_target() {
    if crate::common::skip_unless_sqlite("a missing source is a missing file") {
        return;
    }
    let (source, target) = (Env::new(), Env::new());
    let r = copy(&source, &target, &["--json"]);
    r.assert_error(1);
    assert_eq!(r.json()["error"]["code"], "DATABASE_NOT_FOUND");
    assert!(!source.db().exists() && !target.db().exists());
}

/// A target that fails in the last table, after every other table and a batch of that one
/// were written: nothing is committed, and the same copy succeeds once the fault is gone.
#[test]
fn a_copy_that_fails_midway_leaves_the_target_without_a_row() {
    if crate::common::skip_unless_sqlite("the failure is injected with a SQLite trigger") {
        return;
    }
    let (source, target) = (Env::new(), Env::new());
    populate(&source);
    create_empty(&target);
    let sql = rusqlite::Connection::open(target.db()).unwrap();
    sql.execute_batch(
        "CREATE TRIGGER injected BEFORE INSERT ON delivery_attempts
         WHEN (SELECT count(*) FROM delivery_attempts) >= 1
         BEGIN SELECT RAISE(ABORT, 'injected failure'); END;",
    )
    .unwrap();
    let r = copy(&source, &target, &[]);
    r.assert_error(1);
    assert!(
        r.stderr
            .contains("writing delivery_attempts into the target")
            && r.stderr.contains("injected failure"),
        "{r:#?}"
    );
    assert_eq!(r.stdout, "");
    assert_left_empty(&target);
    sql.execute_batch("DROP TRIGGER injected").unwrap();
    let r = copy(&source, &target, &[]);
    assert_eq!(r.code, 0, "{r:#?}");
    assert_eq!(dump(&target), dump(&source));
}

/// A target that takes rows without an error but does not keep them (here a trigger that
/// ignores every event after the first) is caught by counting the target again: nothing is
/// committed.
#[test]
fn rows_the_target_silently_dropped_fail_the_copy() {
    if crate::common::skip_unless_sqlite("the rows are dropped by a SQLite trigger") {
        return;
    }
    let (source, target) = (Env::new(), Env::new());
    populate(&source);
    create_empty(&target);
    let sql = rusqlite::Connection::open(target.db()).unwrap();
    sql.execute_batch(
        "CREATE TRIGGER dropped BEFORE INSERT ON events
         WHEN (SELECT count(*) FROM events) = 1 BEGIN SELECT RAISE(IGNORE); END;",
    )
    .unwrap();
    let r = copy(&source, &target, &[]);
    r.assert_error(1);
    assert!(
        r.stderr.contains(
            "copy of events is incomplete: 3 rows in the source, 3 read, 1 in the target"
        ),
        "{r:#?}"
    );
    assert_left_empty(&target);
}

/// A target file that cannot grow (the process's file size limit, as a full disk would)
/// fails the copy with a `keyhook:` error and leaves the target without a row.
#[test]
fn a_target_that_runs_out_of_space_is_left_without_a_row() {
    if crate::common::skip_unless_sqlite("the space is a file size limit") {
        return;
    }
    let (source, target) = (Env::new(), Env::new());
    populate(&source);
    // About 1.2 MB of event payloads, four times what the target may grow to.
    let big = format!(r#"{{"pad": "{}"}}"#, "x".repeat(60_000));
    let file = source.dir.path().join("big.json");
    std::fs::write(&file, big).unwrap();
    let data = format!("@{}", file.display());
    for _ in 0..20 {
        let r = source.run(&["events", "emit", "post.published", "--data", &data]);
        assert_eq!(r.code, 0, "{r:#?}");
    }
    create_empty(&target);
    let size = std::fs::metadata(target.db()).unwrap().len();
    // SIGXFSZ ignored: a write past the limit fails with EFBIG instead of killing keyhook.
    // `ulimit -f` counts 512-byte blocks in sh.
    let script = format!(
        "trap '' XFSZ; ulimit -f {}; exec \"$0\" \"$@\"",
        (size + 300_000) / 512
    );
    let mut sh = std::process::Command::new("sh");
    for (k, _) in std::env::vars_os() {
        let k = k.to_string_lossy().into_owned();
        if k.starts_with("KEYHOOK_") || k.starts_with("XDG_") {
            sh.env_remove(&k);
        }
    }
    sh.arg("-c")
        .arg(&script)
        .arg(assert_cmd::cargo::cargo_bin("keyhook"))
        .arg("--db")
        .arg(source.db())
        .args(["db", "copy", "--to"])
        .arg(target.db());
    let r = run(&mut assert_cmd::Command::from_std(sh));
    r.assert_error(1);
    // Here the batches fit SQLite's page cache, so the commit is what fails.
    let named = target.db().display().to_string();
    assert!(
        r.stderr.contains(&named) && r.stderr.contains("disk I/O error"),
        "{r:#?}"
    );
    assert_left_empty(&target);
    // With room, the same copy succeeds.
    let r = copy(&source, &target, &[]);
    assert_eq!(r.code, 0, "{r:#?}");
    assert_eq!(counts(&target), counts(&source));
}

/// In a pipe (stderr not a terminal) there is no progress bar: only the summary, as a note.
#[test]
fn in_a_pipe_only_the_summary_is_printed() {
    if crate::common::skip_unless_sqlite("the summary names the target file") {
        return;
    }
    let (source, target) = (Env::new(), Env::new());
    populate(&source);
    let r = copy(&source, &target, &[]);
    assert_eq!(r.code, 0, "{r:#?}");
    assert_eq!(r.stdout, "");
    let total: usize = counts(&source).iter().map(|(_, n)| n).sum();
    let mut want = format!("Copied {total} rows into {}:\n", target.db().display());
    // The names are padded to the longest one.
    let width = counts(&source).iter().map(|(t, _)| t.len()).max().unwrap();
    for (t, n) in counts(&source) {
        want.push_str(&format!("  {t:<width$}  {n:>9}\n"));
    }
    assert_eq!(r.stderr, want);
}

/// On a terminal a bar per table is drawn on stderr (rows done / total); with `--json`
/// none is, on a terminal too.
#[test]
fn on_a_terminal_each_table_has_a_progress_bar() {
    if crate::common::skip_unless_sqlite("the command names the target file") {
        return;
    }
    let (source, target) = (Env::new(), Env::new());
    populate(&source);
    let to = target.db().display().to_string();
    let Some(r) = on_terminal(&source, &["db", "copy", "--to", &to], "", "") else {
        return;
    };
    assert_eq!(r.code, 0, "{r:#?}");
    let bar = regex::Regex::new(r"(\w+) \[[=> ]{30}\]\s+(\d+)/(\d+) rows").unwrap();
    let mut drawn: Vec<&str> = bar
        .captures_iter(&r.stdout)
        .map(|c| c.get(1).unwrap().as_str())
        .collect();
    drawn.sort();
    drawn.dedup();
    let mut tables: Vec<&str> = TABLES.iter().map(|t| t.name).collect();
    tables.sort();
    assert_eq!(drawn, tables, "{}", r.stdout);
    assert!(r.stdout.contains("Copied "), "{}", r.stdout);

    let other = Env::new();
    let to = other.db().display().to_string();
    let r = on_terminal(&source, &["--json", "db", "copy", "--to", &to], "", "").unwrap();
    assert_eq!(r.code, 0, "{r:#?}");
    assert!(!bar.is_match(&r.stdout), "{}", r.stdout);
    assert!(
        r.stdout.contains(r#"{"data":{"tables":{"users":2,"#),
        "{}",
        r.stdout
    );
}

/// An operator outgrowing the file: the file's database copied into PostgreSQL, where its keys
/// verify with the same plaintext and its webhooks keep their secrets, and back into a new
/// file, which matches the first row for row.
#[test]
fn a_file_copies_into_postgresql_and_back() {
    let Some(pg) = test_postgres::database() else {
        return;
    };
    let source = Env::new();
    let f = populate(&source);
    let back = Env::new();
    if back.skip_unless_sqlite("the copy's ends are a file and the harness's database") {
        return;
    }
    let r = run(source.cmd().args(["db", "copy", "--to"]).arg(pg.url()));
    assert_eq!(r.code, 0, "{r:#?}");
    assert!(!r.stderr.contains(pg.cluster().password()), "{}", r.stderr);
    for (user, key) in &f.keys {
        let r = run(crate::common::bare_cmd()
            .arg("--db")
            .arg(pg.url())
            .args(["keys", "verify", "--method", "GET"])
            .write_stdin(key.clone()));
        assert_eq!(r.code, 0, "{user}: {r:#?}");
        assert!(r.stdout.contains(&format!("of user {user}")), "{r:#?}");
    }
    let r = run(crate::common::bare_cmd()
        .arg("--db")
        .arg(pg.url())
        .args(["db", "copy", "--to"])
        .arg(back.db()));
    assert_eq!(r.code, 0, "{r:#?}");
    assert_eq!(dump(&back), dump(&source));
}
