//! The SQLite file alone is the whole database after every one-shot command: the command's
//! connection, the last one to the file, folds the write-ahead log back into it when it
//! closes (docs/backup.md, "Copying the file itself"). A copy of the file without its `-wal`
//! and `-shm` (`cp keyhook.db backup.db`) shows every commit. SQLite only.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use crate::common::{self, str_of as s, Env};
use crate::server::Server;

/// The log beside the database file.
fn wal(db: &Path) -> PathBuf {
    let mut p = db.as_os_str().to_owned();
    p.push("-wal");
    PathBuf::from(p)
}

/// The values of `select` in a copy of the database file alone (not its `-wal` or `-shm`),
/// made at another path the way `cp keyhook.db copy.db` makes it.
fn in_a_copy_of_the_file_alone(env: &Env, select: &str) -> Vec<String> {
    let copy = env.dir.path().join("copy.db");
    for suffix in ["", "-wal", "-shm"] {
        let mut p = copy.as_os_str().to_owned();
        p.push(suffix);
        let _ = std::fs::remove_file(PathBuf::from(p));
    }
    std::fs::copy(env.db(), &copy).unwrap();
    let c = rusqlite::Connection::open(&copy).unwrap();
    common::sqlite_rows(&c, select)
        .into_iter()
        .map(|row| row[0].clone())
        .collect()
}

#[test]
fn keys_webhooks_and_events_are_in_the_file_alone_after_each_command() {
    let env = Env::new();
    if env.skip_unless_sqlite("the database file and its write-ahead log are SQLite's") {
        return;
    }
    let db = env.db();
    let key = env.create_key("deploy", &[]);
    assert!(!wal(&db).exists(), "keys create left its log");
    assert_eq!(
        in_a_copy_of_the_file_alone(&env, "SELECT id FROM api_keys"),
        [s(&key, "id")]
    );

    let hook = env.create_webhook("http://127.0.0.1:9/hook", "post.published");
    assert!(!wal(&db).exists(), "webhooks create left its log");
    assert_eq!(
        in_a_copy_of_the_file_alone(&env, "SELECT id FROM webhooks"),
        [s(&hook, "id")]
    );

    let (code, v) = env.json(&["events", "emit", "post.published"]);
    assert_eq!(code, 0, "{v}");
    assert!(!wal(&db).exists(), "events emit left its log");
    let event = s(&v["data"], "id");
    assert_eq!(
        in_a_copy_of_the_file_alone(&env, "SELECT id FROM events"),
        [event]
    );
    // Its delivery too, and the audit entries of all three.
    assert_eq!(
        in_a_copy_of_the_file_alone(&env, "SELECT count(*) FROM deliveries"),
        ["1"]
    );
    let audited = in_a_copy_of_the_file_alone(&env, "SELECT count(*) FROM audit_log");
    assert_ne!(audited, ["0"]);
}

/// A command that fails after its commit (its output cannot be written) closes the file
/// the same way.
#[test]
fn a_command_that_fails_after_its_commit_leaves_the_file_whole() {
    let env = Env::new();
    if env.skip_unless_sqlite("the database file and its write-ahead log are SQLite's") {
        return;
    }
    env.create_key("makes the database", &[]);
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let out = common::std_cmd()
        .arg("--db")
        .arg(env.db())
        .args(["events", "emit", "post.published"])
        .stdout(Stdio::from(full))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(!wal(&env.db()).exists(), "the failed command left its log");
    assert_eq!(
        in_a_copy_of_the_file_alone(&env, "SELECT count(*) FROM events"),
        ["1"]
    );
}

/// Beside a running server the log is the server's (docs/backup.md): a command leaves it,
/// `keyhook backup` copies what is in it, and the server folds it back when it stops.
#[test]
fn beside_a_running_server_the_log_stays_and_backup_copies_it() {
    let env = Env::new();
    if env.skip_unless_sqlite("the database file and its write-ahead log are SQLite's") {
        return;
    }
    env.create_key("first", &[]);
    let mut server = Server::start(&env);
    let key = env.create_key("while serving", &[]);
    assert!(
        wal(&env.db()).exists(),
        "the server's log was removed under it"
    );
    let backup = env.dir.path().join("backup.db");
    let r = env.run(&["backup", backup.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{r:?}");
    let c = rusqlite::Connection::open(&backup).unwrap();
    let ids = common::sqlite_rows(&c, "SELECT id FROM api_keys WHERE name = 'while serving'");
    assert_eq!(ids, [[s(&key, "id").to_string()]]);
    drop(c);
    let (status, _, log) = server.stop_with("TERM");
    assert!(status.success(), "{log}");
    assert!(
        !wal(&env.db()).exists(),
        "the server left its log when it stopped"
    );
    assert_eq!(
        in_a_copy_of_the_file_alone(&env, "SELECT count(*) FROM api_keys"),
        ["2"]
    );
}
