//! The database file: where it lives, its modes, what is (not) stored in it, migrations,
//! files that are not keyhook's, concurrent writers, and a reader that goes away.

use std::collections::HashSet;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Stdio;

use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::common::{self, bare_cmd, std_cmd, Env};

fn mode(p: &Path) -> u32 {
    fs::metadata(p)
        .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
        .permissions()
        .mode()
        & 0o777
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

fn user_version(db: &Path) -> i64 {
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap()
}

/// `keys list` against `db` must fail with exit 1, a `keyhook: ` message containing `needle`,
/// and leave the file's bytes as they were.
fn assert_refused(db: &Path, needle: &str) {
    let before = fs::read(db).ok();
    for args in [
        &["keys", "list"][..],
        &["keys", "create", "--name", "k"][..],
    ] {
        let r = common::run(bare_cmd().arg("--db").arg(db).args(args));
        r.assert_error(1);
        assert!(
            r.stderr.contains(needle),
            "{needle:?} not in {:?}",
            r.stderr
        );
        assert_eq!(r.stdout, "");
        assert_eq!(fs::read(db).ok(), before, "the file was changed");
    }
    let (code, v) = {
        let out = bare_cmd()
            .arg("--db")
            .arg(db)
            .args(["--json", "keys", "list"])
            .output()
            .unwrap();
        (
            out.status.code(),
            serde_json::from_slice::<Value>(&out.stdout).unwrap_or(Value::Null),
        )
    };
    assert_eq!(code, Some(1));
    assert_eq!(v["error"]["code"], "INTERNAL_ERROR", "{v}");
}

// ---------------------------------------------------------------------------------------------
// Location and modes

#[test]
fn new_database_is_0600_in_new_0700_directories() {
    let env = Env::new();
    let db = env.dir.path().join("a/b/c/keys.db");
    let r = common::run(
        bare_cmd()
            .arg("--db")
            .arg(&db)
            .args(["keys", "create", "--name", "k", "--quiet"]),
    );
    assert_eq!(r.code, 0, "{r:#?}");
    assert_eq!(mode(&db), 0o600, "database file");
    for dir in ["a", "a/b", "a/b/c"] {
        assert_eq!(mode(&env.dir.path().join(dir)), 0o700, "{dir}");
    }
    for suffix in ["-wal", "-shm"] {
        let p = env.dir.path().join(format!("a/b/c/keys.db{suffix}"));
        if p.exists() {
            assert_eq!(mode(&p), 0o600, "{}", p.display());
        }
    }
}

#[test]
fn existing_directory_modes_are_left_alone() {
    let env = Env::new();
    let dir = env.dir.path().join("shared");
    fs::create_dir(&dir).unwrap();
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o755)).unwrap();
    let db = dir.join("k.db");
    let r = common::run(
        bare_cmd()
            .arg("--db")
            .arg(&db)
            .args(["keys", "create", "--name", "k", "--quiet"]),
    );
    assert_eq!(r.code, 0, "{r:#?}");
    assert_eq!(mode(&dir), 0o755);
    assert_eq!(mode(&db), 0o600);
}

#[test]
fn default_database_is_under_xdg_data_home() {
    let env = Env::new();
    let xdg = env.dir.path().join("xdg");
    let home = env.dir.path().join("home");
    let r = common::run(
        bare_cmd()
            .env("XDG_DATA_HOME", &xdg)
            .env("HOME", &home)
            .args(["keys", "create", "--name", "k", "--quiet"]),
    );
    assert_eq!(r.code, 0, "{r:#?}");
    let db = xdg.join("keyhook/keyhook.db");
    assert!(db.is_file(), "{} exists", db.display());
    assert_eq!(mode(&db), 0o600);
    assert_eq!(mode(&xdg.join("keyhook")), 0o700);
    // (The secrets key file is configuration: $HOME/.config without XDG_CONFIG_HOME.)
    assert!(
        !home.join(".local").exists(),
        "HOME is not used for data when XDG_DATA_HOME is set"
    );
    // The next process finds the same database.
    let r = common::run(
        bare_cmd()
            .env("XDG_DATA_HOME", &xdg)
            .env("HOME", &home)
            .args(["--json", "keys", "list"]),
    );
    assert_eq!(r.json()["data"].as_array().unwrap().len(), 1);
}

#[test]
fn default_database_falls_back_to_home() {
    let env = Env::new();
    let home = env.dir.path().join("home");
    fs::create_dir(&home).unwrap();
    let r = common::run(
        bare_cmd()
            .env("HOME", &home)
            .args(["keys", "create", "--name", "k", "--quiet"]),
    );
    assert_eq!(r.code, 0, "{r:#?}");
    let db = home.join(".local/share/keyhook/keyhook.db");
    assert!(db.is_file(), "{} exists", db.display());
    assert_eq!(mode(&db), 0o600);
    for dir in [".local", ".local/share", ".local/share/keyhook"] {
        assert_eq!(mode(&home.join(dir)), 0o700, "{dir}");
    }

    // A relative XDG_DATA_HOME is invalid per the XDG spec and ignored.
    let r = common::run(
        bare_cmd()
            .env("HOME", &home)
            .env("XDG_DATA_HOME", "relative/dir")
            .current_dir(env.dir.path())
            .args(["--json", "keys", "list"]),
    );
    assert_eq!(r.code, 0, "{r:#?}");
    assert_eq!(r.json()["data"].as_array().unwrap().len(), 1);
    assert!(!env.dir.path().join("relative").exists());
}

#[test]
fn no_database_location_at_all_is_a_usage_error() {
    let r = common::run(bare_cmd().env_remove("HOME").args(["keys", "list"]));
    r.assert_error(2);
    assert!(r.stderr.contains("--db"), "{}", r.stderr);
}

#[test]
fn keyhook_db_env_and_db_flag() {
    let env = Env::new();
    let from_env = env.dir.path().join("env.db");
    let from_flag = env.dir.path().join("flag.db");
    let r = common::run(
        bare_cmd()
            .env("KEYHOOK_DB", &from_env)
            .args(["keys", "create", "--name", "k", "--quiet"]),
    );
    assert_eq!(r.code, 0, "{r:#?}");
    assert!(from_env.is_file());
    // The flag wins over the environment.
    let r = common::run(
        bare_cmd()
            .env("KEYHOOK_DB", &from_env)
            .arg("--db")
            .arg(&from_flag)
            .args(["keys", "create", "--name", "k", "--quiet"]),
    );
    assert_eq!(r.code, 0, "{r:#?}");
    assert!(from_flag.is_file());
    let r = common::run(
        bare_cmd()
            .env("KEYHOOK_DB", &from_env)
            .arg("--db")
            .arg(&from_flag)
            .args(["--json", "keys", "list"]),
    );
    assert_eq!(r.json()["data"].as_array().map(Vec::len), Some(1));
}

// ---------------------------------------------------------------------------------------------
// What the file holds

#[test]
fn plaintext_keys_never_reach_the_database_files() {
    let env = Env::new();
    let mut live = Vec::new();
    let mut all = Vec::new();
    for (name, extra) in [
        ("full", &[][..]),
        (
            "scoped",
            &["--profile", "p1", "--permission", "readonly"][..],
        ),
        ("expiring", &["--expires-in", "1d"][..]),
    ] {
        let k = env.create_key(name, extra);
        all.push(k["key"].as_str().unwrap().to_string());
        live.push(k);
    }
    // Rotate one with grace (both stay) and one without (the old one is deleted).
    let (code, v) = env.json(&[
        "keys",
        "rotate",
        live[0]["id"].as_str().unwrap(),
        "--grace",
        "1h",
    ]);
    assert_eq!(code, 0);
    all.push(v["data"]["key"].as_str().unwrap().to_string());
    let (code, v) = env.json(&["keys", "rotate", live[1]["id"].as_str().unwrap()]);
    assert_eq!(code, 0);
    all.push(v["data"]["key"].as_str().unwrap().to_string());
    let deleted = live[1]["key"].as_str().unwrap().to_string();
    // And one through --quiet, the cron job's way.
    let r = env.run(&["keys", "create", "--name", "quiet", "--quiet"]);
    all.push(r.stdout.trim().to_string());

    let bytes = env.stored_bytes();
    assert!(!bytes.is_empty());
    for key in &all {
        assert_eq!(key.len(), 67);
        let payload = &key[3..];
        assert!(!contains(&bytes, key.as_bytes()), "plaintext {key} stored");
        assert!(
            !contains(&bytes, payload.as_bytes()),
            "payload of {key} stored"
        );
        assert!(
            !contains(&bytes, payload.to_uppercase().as_bytes()),
            "upper-case payload of {key} stored"
        );
        let raw = hex::decode(payload).unwrap();
        assert!(!contains(&bytes, &raw), "raw bytes of {key} stored");
        let hash = hex::encode(Sha256::digest(key.as_bytes()));
        if *key != deleted {
            assert!(
                contains(&bytes, hash.as_bytes()),
                "the SHA-256 of {key} is what is stored"
            );
        }
        // The prefix is stored, and shown. (A deleted key's row is gone on PostgreSQL; in the
        // SQLite file its bytes linger.)
        if *key != deleted || env.is_sqlite() {
            assert!(contains(&bytes, &key.as_bytes()[..11]));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Concurrency

#[test]
fn sixteen_processes_create_keys_at_once() {
    let env = Env::new();
    // No database yet: the 16 also race to create and migrate it.
    let children: Vec<_> = (0..16)
        .map(|i| {
            std_cmd()
                .arg("--db")
                .arg(env.db_arg())
                .args(["--json", "keys", "create", "--name", &format!("worker-{i}")])
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("spawn keyhook")
        })
        .collect();
    let mut created = HashSet::new();
    for child in children {
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "stderr: {stderr}");
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        created.insert(v["data"]["id"].as_str().unwrap().to_string());
    }
    assert_eq!(created.len(), 16);

    let list = env.list(&[]);
    assert_eq!(list.len(), 16, "no key lost");
    let ids: HashSet<String> = list
        .iter()
        .map(|k| k["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids, created);
    let names: HashSet<&str> = list.iter().map(|k| k["name"].as_str().unwrap()).collect();
    assert_eq!(names.len(), 16);
    if !env.skip_unless_sqlite("PRAGMA user_version is the SQLite file's") {
        assert_eq!(user_version(&env.db()), keyhook::sqlite::SCHEMA_VERSION);
    }
}

// ---------------------------------------------------------------------------------------------
// Migrations and files that are not (yet) keyhook's

#[test]
fn an_empty_file_is_migrated() {
    let env = Env::new();
    if env.skip_unless_sqlite("an empty SQLite file") {
        return;
    }
    fs::write(env.db(), b"").unwrap();
    assert_eq!(env.list(&[]).len(), 0);
    assert_eq!(user_version(&env.db()), keyhook::sqlite::SCHEMA_VERSION);
    let conn = rusqlite::Connection::open(env.db()).unwrap();
    let app_id: i64 = conn
        .query_row("PRAGMA application_id", [], |r| r.get(0))
        .unwrap();
    assert_eq!(app_id, 0x4B48_4B31, "marked as keyhook's");
    let journal: String = conn
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap();
    assert_eq!(journal, "wal");
    drop(conn);
    // And it works, and a second open migrates nothing.
    let k = env.create_key("k", &[]);
    assert_eq!(env.verify(k["key"].as_str().unwrap(), &[]).code, 0);
    assert_eq!(env.list(&[]).len(), 1);
    assert_eq!(user_version(&env.db()), keyhook::sqlite::SCHEMA_VERSION);
}

#[test]
fn a_file_of_garbage_is_refused_and_untouched() {
    let env = Env::new();
    if env.skip_unless_sqlite("a file that is not SQLite") {
        return;
    }
    let garbage: Vec<u8> = (0..10_000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    fs::write(env.db(), &garbage).unwrap();
    assert_refused(&env.db(), "not a SQLite database");
    let text = env.dir.path().join("notes.txt");
    fs::write(&text, "these are my notes, not a database\n").unwrap();
    assert_refused(&text, "not a SQLite database");
    assert!(!env.dir.path().join("notes.txt-wal").exists());
}

#[test]
fn a_foreign_sqlite_database_is_refused_and_untouched() {
    let env = Env::new();
    let db = env.dir.path().join("other.db");
    {
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.execute_batch(
            "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);
             INSERT INTO notes (body) VALUES ('mine');",
        )
        .unwrap();
    }
    assert_refused(&db, "not a keyhook database");
    assert!(!env.dir.path().join("other.db-wal").exists());
    assert_eq!(user_version(&db), 0);

    // Not even an empty-looking one with just a user_version set.
    let db2 = env.dir.path().join("versioned.db");
    {
        let conn = rusqlite::Connection::open(&db2).unwrap();
        conn.pragma_update(None, "user_version", 1).unwrap();
    }
    assert_refused(&db2, "not a keyhook database");
}

#[test]
fn a_database_from_a_newer_keyhook_is_refused_and_untouched() {
    let env = Env::new();
    if env.skip_unless_sqlite("sets the SQLite file's user_version") {
        return;
    }
    env.create_key("k", &[]);
    {
        let conn = rusqlite::Connection::open(env.db()).unwrap();
        conn.pragma_update(None, "user_version", keyhook::sqlite::SCHEMA_VERSION + 1)
            .unwrap();
        conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE)")
            .unwrap();
    }
    assert_refused(&env.db(), "newer keyhook");
    assert_eq!(user_version(&env.db()), keyhook::sqlite::SCHEMA_VERSION + 1);
}

#[test]
fn a_corrupt_keyhook_database_is_a_runtime_error() {
    let env = Env::new();
    if env.skip_unless_sqlite("truncates the SQLite file") {
        return;
    }
    for i in 0..20 {
        env.create_key(&format!("k{i}"), &[]);
    }
    // The commands left their commits in the log beside the file: fold it back, so that
    // cutting the file cuts the database (a log holding every page would hide the damage).
    common::fold_log(&env.db());
    let mut bytes = fs::read(env.db()).unwrap();
    assert!(bytes.len() > 4096, "more than one page");
    bytes.truncate(4096);
    fs::write(env.db(), &bytes).unwrap();
    let r = env.run(&["keys", "list"]);
    r.assert_error(1);
    assert!(r.stderr.contains("corrupt"), "{}", r.stderr);
}

#[test]
fn a_directory_as_database_is_refused() {
    let env = Env::new();
    let dir = env.dir.path().join("dir.db");
    fs::create_dir(&dir).unwrap();
    for args in [
        &["keys", "list"][..],
        &["keys", "create", "--name", "k"][..],
    ] {
        let r = common::run(bare_cmd().arg("--db").arg(&dir).args(args));
        r.assert_error(1);
        assert!(r.stderr.contains("directory"), "{}", r.stderr);
    }
    assert_eq!(
        fs::read_dir(&dir).unwrap().count(),
        0,
        "nothing created in it"
    );
}

#[test]
fn a_database_under_a_regular_file_is_refused() {
    let env = Env::new();
    let file = env.dir.path().join("plain");
    fs::write(&file, "x").unwrap();
    for db in [file.join("k.db"), file.join("sub/dir/k.db")] {
        let r = common::run(
            bare_cmd()
                .arg("--db")
                .arg(&db)
                .args(["keys", "create", "--name", "k"]),
        );
        r.assert_error(1);
        assert!(r.stderr.contains("plain"), "names the path: {}", r.stderr);
    }
    assert_eq!(fs::read(&file).unwrap(), b"x");
}

// ---------------------------------------------------------------------------------------------
// Output to a reader that goes away

fn create_many(env: &Env, n: usize) {
    for i in 0..n {
        let r = env.run(&["keys", "create", "--name", &format!("key-{i:03}"), "-q"]);
        assert_eq!(r.code, 0, "{r:#?}");
    }
}

#[test]
fn broken_pipe_is_not_an_error() {
    let env = Env::new();
    create_many(&env, 40);

    // `keyhook keys list | head -c1`
    for json in [false, true] {
        let mut list = std_cmd();
        list.arg("--db").arg(env.db_arg());
        if json {
            list.arg("--json");
        }
        let mut list = list
            .args(["keys", "list"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let head = std::process::Command::new("head")
            .arg("-c1")
            .stdin(Stdio::from(list.stdout.take().unwrap()))
            .stdout(Stdio::piped())
            .output()
            .unwrap();
        assert_eq!(head.stdout.len(), 1);
        let out = list.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "json={json}");
        assert_eq!(String::from_utf8_lossy(&out.stderr), "", "json={json}");
    }

    // A reader that is gone before keyhook writes a byte: every write fails with EPIPE.
    let first = env.list(&[])[0]["id"].as_str().unwrap().to_string();
    for args in [
        &["keys", "list"][..],
        &["--json", "keys", "list"][..],
        &["keys", "list", "--all-users"][..],
        &["keys", "show", &first][..],
        &["--json", "keys", "show", &first][..],
    ] {
        let mut child = std_cmd()
            .arg("--db")
            .arg(env.db_arg())
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
        assert_eq!(stderr, "", "{args:?}");
    }
}
