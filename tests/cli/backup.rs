//! `keyhook backup FILE [--force]`: SQLite's online backup
//! while others write, mode 0600, refusals, restore. On PostgreSQL it exits 2 naming pg_dump.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread;

use serde_json::json;

use crate::common::{bare_cmd, fold_log, run, str_of, Env, Run};
use crate::server::Server;

fn mode(p: &Path) -> u32 {
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

/// `keyhook --db <file> ARGS`, for a backup opened as a database of its own.
fn on(db: &Path, args: &[&str]) -> Run {
    run(bare_cmd().arg("--db").arg(db).args(args))
}

fn integrity(db: &Path) -> String {
    let c = rusqlite::Connection::open(db).unwrap();
    c.query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap()
}

#[test]
fn a_backup_while_serve_is_hammered_is_consistent_and_opens() {
    let env = Env::new();
    if env.skip_unless_sqlite("backup copies the SQLite file") {
        return;
    }
    let admin = env.create_key("admin", &[]);
    let key = str_of(&admin, "key").to_string();
    let server = Arc::new(Server::start_with(&env, &["--threads", "8"]));
    let stop = Arc::new(AtomicBool::new(false));
    let written = Arc::new(AtomicUsize::new(0));
    let writers: Vec<_> = (0..4)
        .map(|t| {
            let (server, stop, written, key) =
                (server.clone(), stop.clone(), written.clone(), key.clone());
            thread::spawn(move || {
                let mut i = 0;
                while !stop.load(Ordering::Relaxed) {
                    let r = server.post_json(
                        "/api/v1/api-keys",
                        &key,
                        &json!({"name": format!("w{t}-{i}")}),
                    );
                    assert_eq!(r.status, 201, "{r:?}");
                    written.fetch_add(1, Ordering::Relaxed);
                    i += 1;
                }
            })
        })
        .collect();
    // Writers are going before the first backup and keep going through all of them.
    while written.load(Ordering::Relaxed) < 20 {
        thread::yield_now();
    }
    let mut backups = Vec::new();
    for n in 0..3 {
        let file = env.dir.path().join(format!("backup-{n}.db"));
        let r = env.run(&["--json", "backup", file.to_str().unwrap()]);
        assert_eq!(r.code, 0, "{r:#?}");
        assert_eq!(r.json()["data"]["file"], file.to_str().unwrap());
        // Nothing is left beside it: the copy is whole in one file (checked before keyhook
        // opens it below).
        let mut wal = file.as_os_str().to_owned();
        wal.push("-wal");
        assert!(!Path::new(&wal).exists());
        backups.push(file);
    }
    stop.store(true, Ordering::Relaxed);
    for w in writers {
        w.join().unwrap();
    }
    let mut counts = Vec::new();
    for file in &backups {
        assert_eq!(integrity(file), "ok", "{}", file.display());
        assert_eq!(mode(file), 0o600);
        // It opens with keyhook, and every key in it is whole (keys and audit agree: each
        // key created over HTTP came with its entry in the same transaction).
        let r = on(file, &["--json", "keys", "list"]);
        assert_eq!(r.code, 0, "{r:#?}");
        let keys = r.json()["data"].as_array().unwrap().len();
        let r = on(file, &["--json", "audit", "--limit", "1000"]);
        assert_eq!(r.code, 0, "{r:#?}");
        let created = r.json()["data"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["action"] == "key.created")
            .count();
        assert_eq!(keys, created, "{}", file.display());
        counts.push(keys);
    }
    assert!(counts.windows(2).all(|c| c[0] <= c[1]), "{counts:?}");
    assert!(counts[0] > 1, "the writers were writing: {counts:?}");
    let leftovers: Vec<_> = std::fs::read_dir(env.dir.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn a_restored_backup_verifies_its_keys() {
    let env = Env::new();
    if env.skip_unless_sqlite("backup copies the SQLite file") {
        return;
    }
    let kept = env.create_key("kept", &[]);
    let plaintext = str_of(&kept, "key").to_string();
    let file = env.dir.path().join("b").join("keyhook.db");
    let r = env.run(&["backup", file.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{r:#?}");
    assert!(r.stderr.contains("Backed up"), "{r:#?}");
    // After the backup the key is deleted: the live database refuses it.
    let r = env.run(&["keys", "delete", str_of(&kept, "id"), "--yes"]);
    assert_eq!(r.code, 0, "{r:#?}");
    assert_eq!(env.verify(&plaintext, &[]).code, 4);
    // Restore as documented: stop, copy back (and drop the old WAL), start.
    let db = env.db();
    for suffix in ["-wal", "-shm"] {
        let mut p = db.as_os_str().to_owned();
        p.push(suffix);
        let _ = std::fs::remove_file(p);
    }
    std::fs::copy(&file, &db).unwrap();
    let r = env.verify(&plaintext, &[]);
    assert_eq!(r.code, 0, "{r:#?}");
    // And a server on it accepts the key.
    let server = Server::start(&env);
    assert_eq!(server.get("/api/v1/api-keys", &plaintext).status, 200);
}

#[test]
fn a_backup_is_0600_in_new_0700_directories_whatever_the_umask() {
    let env = Env::new();
    if env.skip_unless_sqlite("backup copies the SQLite file") {
        return;
    }
    env.create_key("k", &[]);
    let dir = env.dir.path().join("new").join("deeper");
    let file = dir.join("k.db");
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg("umask 000; exec \"$0\" \"$@\"")
        .arg(assert_cmd::cargo::cargo_bin("keyhook"))
        .arg("--db")
        .arg(env.db())
        .arg("backup")
        .arg(&file)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(mode(&file), 0o600);
    assert_eq!(mode(&dir), 0o700);
    assert_eq!(mode(dir.parent().unwrap()), 0o700);
}

#[test]
fn backup_refuses_an_existing_file_without_force_and_the_live_database_always() {
    let env = Env::new();
    if env.skip_unless_sqlite("backup copies the SQLite file") {
        return;
    }
    env.create_key("k", &[]);
    let db = env.db();
    let dir = env.dir.path();
    let existing = dir.join("old.db");
    std::fs::write(&existing, b"yesterday's backup").unwrap();
    let r = env.run(&["backup", existing.to_str().unwrap()]);
    r.assert_error(2);
    assert!(r.stderr.contains("--force"), "{r:#?}");
    assert_eq!(std::fs::read(&existing).unwrap(), b"yesterday's backup");
    let r = env.run(&["backup", "--force", existing.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{r:#?}");
    assert_eq!(integrity(&existing), "ok");

    // The live database, however it is named: never, not even with --force.
    let link = dir.join("link.db");
    std::os::unix::fs::symlink(&db, &link).unwrap();
    let hard = dir.join("hard.db");
    std::fs::hard_link(&db, &hard).unwrap();
    let sub = dir.join("sub");
    std::fs::create_dir(&sub).unwrap();
    let dotted = sub.join("..").join("keyhook.db");
    let mut wal = db.as_os_str().to_owned();
    wal.push("-wal");
    let before = std::fs::read(&db).unwrap();
    for target in [db.clone(), link, hard, dotted, wal.into()] {
        for force in [false, true] {
            let mut args = vec!["backup", target.to_str().unwrap()];
            if force {
                args.push("--force");
            }
            let r = env.run(&args);
            r.assert_error(2);
            assert!(r.stderr.contains("live database"), "{args:?}: {r:#?}");
        }
    }
    assert_eq!(std::fs::read(&db).unwrap(), before);
    assert_eq!(env.list(&[]).len(), 1);

    // A directory is not a file; a missing database is not created.
    env.run(&["backup", dir.to_str().unwrap(), "--force"])
        .assert_error(2);
    let missing = dir.join("nothing-here.db");
    let r = on(&missing, &["backup", dir.join("x.db").to_str().unwrap()]);
    r.assert_error(1);
    assert!(!missing.exists() && !dir.join("x.db").exists());
}

#[test]
fn backup_on_postgresql_exits_2_and_names_pg_dump() {
    let env = Env::new();
    let file = env.dir.path().join("pg.db");
    let url = match env.pg() {
        Some(pg) => pg.url(),
        // Without connecting: the refusal is the backend's kind, not its state.
        None => "postgres://keyhook:hunter2secret@127.0.0.1:1/keyhook".to_string(),
    };
    let r = run(bare_cmd()
        .arg("--db")
        .arg(&url)
        .args(["backup", file.to_str().unwrap()]));
    r.assert_error(2);
    assert!(r.stderr.contains("pg_dump"), "{r:#?}");
    assert!(!r.stderr.contains("hunter2secret"), "{r:#?}");
    if let Some(pg) = env.pg() {
        assert!(!r.stderr.contains(pg.cluster().password()), "{r:#?}");
    }
    assert!(!file.exists());
}

/// A copy that cannot be written whole (here: a file size limit, as a full disk would) leaves
/// FILE as it was, absent or the previous backup, and no temporary file behind.
#[test]
fn a_failed_copy_leaves_no_file_that_looks_complete() {
    let env = Env::new();
    if env.skip_unless_sqlite("backup copies the SQLite file") {
        return;
    }
    env.create_key("k", &[]);
    // The database is the file and the log the command left beside it: folded into one file,
    // its size is what a copy must write.
    fold_log(&env.db());
    let size = std::fs::metadata(env.db()).unwrap().len();
    assert!(size > 64 * 1024, "the database outgrows the limit: {size}");
    let dir = env.dir.path().join("out");
    let limited = |args: &[&str]| {
        // bash counts `ulimit -f` in KiB; an ignored SIGXFSZ stays ignored across exec, so
        // the write fails with EFBIG instead of killing the process.
        let out = std::process::Command::new("bash")
            .arg("-c")
            .arg("trap '' XFSZ; ulimit -f 64; exec \"$0\" \"$@\"")
            .arg(assert_cmd::cargo::cargo_bin("keyhook"))
            .arg("--db")
            .arg(env.db())
            .args(args)
            .output()
            .unwrap();
        Run {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    };
    let fresh = dir.join("new.db");
    let r = limited(&["backup", fresh.to_str().unwrap()]);
    r.assert_error(1);
    assert!(r.stderr.contains("cannot write the copy"), "{r:#?}");
    assert!(!fresh.exists());
    let old = dir.join("old.db");
    std::fs::write(&old, b"the previous backup").unwrap();
    let r = limited(&["backup", "--force", old.to_str().unwrap()]);
    r.assert_error(1);
    assert_eq!(std::fs::read(&old).unwrap(), b"the previous backup");
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, ["old.db"]);
    // Without the limit the same command succeeds.
    let r = env.run(&["backup", "--force", old.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{r:#?}");
    assert_eq!(integrity(&old), "ok");
}
