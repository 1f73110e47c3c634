//! Secrets at rest (CONTRACT §15): webhook secrets, Ed25519 private keys and header values
//! are sealed under a key kept outside the database (KEYHOOK_SECRETS_KEY or the key file);
//! the database keeps the key's fingerprint and refuses another key or none plainly; `db
//! rekey` rotates the key crash-safely (KEYHOOK_TEST_FAULT aborts it between its steps);
//! rows from before are sealed by the first open; backups and copies carry ciphertext.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use base64::engine::general_purpose::STANDARD;
use base64::Engine;

use crate::common::{run, str_of, Env, Run};

fn a_key() -> String {
    STANDARD.encode(rand::random::<[u8; 32]>())
}

/// The test's own config directory, so its key file is its own.
fn config_dir(env: &Env) -> PathBuf {
    env.dir.path().join("config")
}

fn key_file(env: &Env) -> PathBuf {
    config_dir(env).join("keyhook").join("secrets.key")
}

/// `keyhook --db <env's db>` with the key file in the test's config directory.
fn with_file(env: &Env) -> Command {
    let mut c = env.cmd();
    c.env("XDG_CONFIG_HOME", config_dir(env));
    c
}

/// `keyhook --db <env's db>` with `key` in KEYHOOK_SECRETS_KEY (and no key file).
fn with_env(env: &Env, key: &str) -> Command {
    let mut c = env.cmd();
    c.env("XDG_CONFIG_HOME", env.dir.path().join("no-config"));
    c.env("KEYHOOK_SECRETS_KEY", key);
    c
}

/// [`with_env`] on another database, `db` (a file or a URL).
fn on_db(env: &Env, db: impl AsRef<std::ffi::OsStr>, key: &str) -> Command {
    let mut c = crate::common::bare_cmd();
    c.arg("--db").arg(db);
    c.env("XDG_CONFIG_HOME", env.dir.path().join("no-config"));
    c.env("KEYHOOK_SECRETS_KEY", key);
    c
}

fn ok(mut c: Command, args: &[&str]) -> Run {
    let r = run(c.args(args));
    assert_eq!(r.code, 0, "{args:?}: {r:#?}");
    r
}

fn create(c: Command, extra: &[&str]) -> serde_json::Value {
    let mut args = vec![
        "--json",
        "webhooks",
        "create",
        "--url",
        "https://example.com/h",
        "--event",
        "post.published",
    ];
    args.extend_from_slice(extra);
    ok(c, &args).json()["data"].clone()
}

fn contains(hay: &[u8], needle: &str) -> bool {
    hay.windows(needle.len()).any(|w| w == needle.as_bytes())
}

#[test]
fn the_database_never_holds_a_secret_in_plaintext() {
    let env = Env::new();
    let w = create(
        with_file(&env),
        &[
            "--signing",
            "both",
            "--header",
            "X-Tenant:tenant-plain-value",
        ],
    );
    let id = str_of(&w, "id").to_string();
    let first = str_of(&w, "secret").to_string();
    let rotated = ok(
        with_file(&env),
        &["webhooks", "rotate-secret", &id, "--grace", "1h", "--quiet"],
    );
    let second = rotated.stdout.lines().next().unwrap().to_string();
    let stored = env.stored_bytes();
    for plain in [
        first.as_str(),
        &first["whsec_".len()..],
        second.as_str(),
        &second["whsec_".len()..],
        "tenant-plain-value",
        "whsk_",
        "whsec_",
    ] {
        assert!(!contains(&stored, plain), "the database holds {plain}");
    }
    // Sealed cells, the public key in the clear, and the key's fingerprint.
    let row = env.sql(&format!(
        "SELECT secret, previous_secret, signing_key, headers, public_key FROM webhooks \
         WHERE id = '{id}'"
    ));
    for cell in &row[0][..4] {
        assert!(cell.starts_with("khs1:"), "{cell}");
    }
    assert!(row[0][4].starts_with("whpk_"));
    let fingerprint = env.sql("SELECT fingerprint FROM secrets_key")[0][0].clone();
    assert!(fingerprint.starts_with("sha256:"), "{fingerprint}");
    // The key file: mode 0600, the base64 of 32 bytes, not in the database.
    let file = key_file(&env);
    let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    let key = std::fs::read_to_string(&file).unwrap();
    assert_eq!(STANDARD.decode(key.trim()).unwrap().len(), 32);
    assert!(!contains(&stored, key.trim()));
    // Read back through keyhook, every secret opens.
    let shown = ok(with_file(&env), &["--json", "webhooks", "show", &id]).json();
    assert_eq!(shown["data"]["secret"], second.as_str());
    assert_eq!(
        shown["data"]["headerNames"],
        serde_json::json!(["x-tenant"])
    );
}

#[test]
fn another_key_or_none_is_refused_plainly_and_nothing_is_delivered() {
    let env = Env::new();
    let key = a_key();
    let w = create(with_env(&env, &key), &[]);
    let id = str_of(&w, "id");
    ok(with_env(&env, &key), &["webhooks", "show", id]);
    ok(
        with_env(&env, &key),
        &["events", "emit", "post.published", "--data", "{}"],
    );

    let other = a_key();
    for (what, mut c) in [
        ("another key", with_env(&env, &other)),
        ("no key", with_file(&env)),
    ] {
        let r = run(c.args(["webhooks", "show", id]));
        assert_eq!(r.code, 1, "{what}: {r:#?}");
        assert!(
            r.stderr.contains("KEYHOOK_SECRETS_KEY"),
            "{what}: {}",
            r.stderr
        );
        assert!(r.stderr.contains("sha256:"), "{what}: {}", r.stderr);
        assert!(!r.stderr.contains(&key) && !r.stderr.contains(&other));
        // No key file is made for a database that has a key.
        assert!(!key_file(&env).exists(), "{what}");
    }
    // deliver refuses to start; the delivery stays pending.
    let r = run(with_env(&env, &other).args(["--allow-private-targets", "deliver", "--once"]));
    assert_eq!(r.code, 1, "{r:#?}");
    assert!(
        r.stderr.contains("nothing is signed or delivered"),
        "{}",
        r.stderr
    );
    assert_eq!(
        env.sql_i64("SELECT count(*) FROM deliveries WHERE state = 'pending'"),
        1
    );
    // A command that touches no secret still works without the key.
    ok(with_env(&env, &other), &["keys", "list"]);
    // A malformed key is named, its value never quoted.
    let r = run(with_env(&env, "not-a-key").args(["webhooks", "list"]));
    assert_eq!(r.code, 2, "{r:#?}");
    assert!(r.stderr.contains("base64 of 32 bytes"), "{}", r.stderr);
    assert!(!r.stderr.contains("not-a-key"), "{}", r.stderr);
}

#[test]
fn a_ciphertext_moved_to_another_webhook_does_not_open() {
    let env = Env::new();
    let key = a_key();
    let a = create(with_env(&env, &key), &[]);
    let b = create(with_env(&env, &key), &[]);
    let (a, b) = (str_of(&a, "id"), str_of(&b, "id"));
    env.sql(&format!(
        "UPDATE webhooks SET secret = (SELECT secret FROM webhooks WHERE id = '{a}') \
         WHERE id = '{b}'"
    ));
    ok(with_env(&env, &key), &["webhooks", "show", a]);
    let r = run(with_env(&env, &key).args(["webhooks", "show", b]));
    assert_eq!(r.code, 1, "{r:#?}");
    assert!(r.stderr.contains("does not open"), "{}", r.stderr);
}

#[test]
fn plaintext_rows_from_before_are_sealed_by_the_first_open() {
    let env = Env::new();
    let key = a_key();
    let w = create(with_env(&env, &key), &[]);
    let id = str_of(&w, "id");
    // A database as the migration leaves one written before encryption: plaintext cells,
    // no key recorded, every webhook `hmac`.
    let plain = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    env.sql(&format!(
        "UPDATE webhooks SET secret = '{plain}', previous_secret = NULL WHERE id = '{id}'"
    ));
    env.sql("DELETE FROM secrets_key");
    let other = a_key();
    let shown = ok(with_env(&env, &other), &["--json", "webhooks", "show", id]).json();
    assert_eq!(shown["data"]["secret"], plain);
    assert_eq!(shown["data"]["signing"], "hmac");
    let stored = env.sql(&format!("SELECT secret FROM webhooks WHERE id = '{id}'"));
    assert!(stored[0][0].starts_with("khs1:"), "{stored:?}");
    assert!(!contains(&env.stored_bytes(), plain));
    // Now the database is the new key's.
    let r = run(with_env(&env, &key).args(["webhooks", "show", id]));
    assert_eq!(r.code, 1, "{r:#?}");
}

#[test]
fn rekey_seals_every_secret_under_a_new_key_file() {
    let env = Env::new();
    let w = create(
        with_file(&env),
        &["--signing", "both", "--header", "x-a:rekey-value"],
    );
    let id = str_of(&w, "id");
    let old_key = std::fs::read_to_string(key_file(&env)).unwrap();
    let before = env.sql(&format!("SELECT secret FROM webhooks WHERE id = '{id}'"));
    let r = ok(with_file(&env), &["--json", "db", "rekey"]).json();
    assert_eq!(r["data"]["secrets"], 3, "{r}");
    let new_key = std::fs::read_to_string(key_file(&env)).unwrap();
    assert_ne!(old_key, new_key);
    assert!(!Path::new(&format!("{}.new", key_file(&env).display())).exists());
    let after = env.sql(&format!("SELECT secret FROM webhooks WHERE id = '{id}'"));
    assert_ne!(before, after);
    let shown = ok(with_file(&env), &["--json", "webhooks", "show", id]).json();
    assert_eq!(shown["data"]["secret"], w["secret"]);
    assert_eq!(shown["data"]["publicKey"], w["publicKey"]);
    // The old key no longer opens the database.
    let r = run(with_env(&env, old_key.trim()).args(["webhooks", "show", id]));
    assert_eq!(r.code, 1, "{r:#?}");

    // With KEYHOOK_SECRETS_KEY, the new key is given, and becomes the one.
    let next = a_key();
    let r = run(with_env(&env, new_key.trim()).args(["db", "rekey"]));
    assert_eq!(r.code, 2, "{r:#?}");
    assert!(r.stderr.contains("--new-key"), "{}", r.stderr);
    let r = run(with_env(&env, new_key.trim())
        .args(["db", "rekey", "--new-key", "-"])
        .write_stdin(next.clone()));
    assert_eq!(r.code, 0, "{r:#?}");
    ok(with_env(&env, &next), &["webhooks", "show", id]);
}

#[test]
fn a_rekey_stopped_at_any_step_leaves_a_database_one_of_the_keys_opens() {
    let env = Env::new();
    let w = create(with_file(&env), &[]);
    let id = str_of(&w, "id");
    let pending = PathBuf::from(format!("{}.new", key_file(&env).display()));

    // Stopped after the new key was written, before the commit: the old key still opens.
    let old_key = std::fs::read_to_string(key_file(&env)).unwrap();
    let r = run(with_file(&env)
        .env("KEYHOOK_TEST_FAULT", "rekey-after-new-key")
        .args(["db", "rekey"]));
    assert_ne!(r.code, 0, "{r:#?}");
    assert!(pending.exists());
    assert_eq!(std::fs::read_to_string(key_file(&env)).unwrap(), old_key);
    let shown = ok(with_file(&env), &["--json", "webhooks", "show", id]).json();
    assert_eq!(shown["data"]["secret"], w["secret"]);

    // Stopped after the commit, before the rename: the next command finishes it.
    let r = run(with_file(&env)
        .env("KEYHOOK_TEST_FAULT", "rekey-after-commit")
        .args(["db", "rekey"]));
    assert_ne!(r.code, 0, "{r:#?}");
    let committed = std::fs::read_to_string(&pending).unwrap();
    assert_ne!(committed, old_key);
    let shown = ok(with_file(&env), &["--json", "webhooks", "show", id]).json();
    assert_eq!(shown["data"]["secret"], w["secret"]);
    assert_eq!(std::fs::read_to_string(key_file(&env)).unwrap(), committed);
    assert!(!pending.exists());
}

#[test]
fn backups_and_copies_carry_ciphertext_and_open_with_the_key_only() {
    let env = Env::new();
    if env.skip_unless_sqlite("backup and the copy's target file are SQLite files") {
        return;
    }
    let key = a_key();
    let w = create(with_env(&env, &key), &["--header", "x-a:copied-value"]);
    let id = str_of(&w, "id");
    let secret = str_of(&w, "secret");
    let backup = env.dir.path().join("backup.db");
    ok(with_env(&env, &key), &["backup", backup.to_str().unwrap()]);
    let copy = env.dir.path().join("copy.db");
    ok(
        with_env(&env, &key),
        &["db", "copy", "--to", copy.to_str().unwrap()],
    );
    for file in [&backup, &copy] {
        let bytes = crate::common::database_bytes(file);
        assert!(!contains(&bytes, secret) && !contains(&bytes, "copied-value"));
        let r = run(on_db(&env, file, &key).args(["--json", "webhooks", "show", id]));
        assert_eq!(r.code, 0, "{r:#?}");
        assert_eq!(r.json()["data"]["secret"], secret);
        let r = run(on_db(&env, file, &a_key()).args(["webhooks", "show", id]));
        assert_eq!(r.code, 1, "{r:#?}");
    }
}

#[test]
fn a_copy_into_postgresql_carries_the_sealed_secrets() {
    let env = Env::new();
    if env.skip_unless_sqlite("the source is a SQLite file") {
        return;
    }
    let Some(pg) = test_postgres::database() else {
        eprintln!("skipped: no PostgreSQL");
        return;
    };
    let key = a_key();
    let w = create(with_env(&env, &key), &["--signing", "ed25519"]);
    let id = str_of(&w, "id");
    ok(with_env(&env, &key), &["db", "copy", "--to", &pg.url()]);
    let r = run(on_db(&env, pg.url(), &key).args(["--json", "webhooks", "show", id]));
    assert_eq!(r.code, 0, "{r:#?}");
    assert_eq!(r.json()["data"]["publicKey"], w["publicKey"]);
    assert!(pg
        .sql("SELECT secret FROM webhooks")
        .trim()
        .starts_with("khs1:"));
}

/// `serve`, `deliver` and `listen` refuse to start on a database whose secrets they cannot
/// open, given another key or none: exit 1 (docs/signatures.md#secrets-at-rest), a message
/// naming the database's fingerprint and the fix, never a key; nothing is listened on.
#[test]
fn serve_deliver_and_listen_refuse_to_start_without_the_databases_key() {
    let env = Env::new();
    let key = a_key();
    create(with_env(&env, &key), &[]);
    let other = a_key();
    let starts: [&[&str]; 3] = [
        &["serve", "--bind", "127.0.0.1:0"],
        &["deliver"],
        &["listen", "--forward-to", "http://127.0.0.1:9/hook"],
    ];
    for (what, key_of) in [("another key", Some(&other)), ("no key", None)] {
        for args in starts {
            let mut c = match key_of {
                Some(k) => with_env(&env, k),
                None => with_file(&env),
            };
            c.arg("--allow-private-targets")
                .args(args)
                .timeout(std::time::Duration::from_secs(120));
            let r = run(&mut c);
            assert_eq!(r.code, 1, "{what}, {args:?}: {r:#?}");
            crate::common::assert_keyhook_error(&r.stderr);
            for said in [
                "sha256:",
                "KEYHOOK_SECRETS_KEY",
                "nothing is signed or delivered",
            ] {
                assert!(r.stderr.contains(said), "{what}, {args:?}: {}", r.stderr);
            }
            assert!(!r.stderr.contains(&key) && !r.stderr.contains(&other));
            assert!(
                !r.stderr.contains("listening"),
                "{what}, {args:?}: {}",
                r.stderr
            );
            assert!(!key_file(&env).exists(), "{what}");
        }
    }
    // No listener's webhook was left behind.
    assert_eq!(env.sql_i64("SELECT count(*) FROM webhooks"), 1);
}

/// Another process re-keys the database (`db rekey`, PostgreSQL's fleet case: every instance
/// has KEYHOOK_SECRETS_KEY) under a running `serve` that holds the old key: from then on what
/// needs a secret answers 503 in the error shape, saying to restart with the database's key;
/// nothing is sealed with the old key (a webhook create is refused, not written), nothing is
/// delivered and no attempt is counted; restarted with the new key, it delivers what waited,
/// signed with the webhook's secret.
#[test]
fn a_server_rekeyed_under_it_answers_503_and_delivers_nothing_until_restarted() {
    let env = Env::with_clock();
    let (old, new) = (a_key(), a_key());
    let receiver = crate::receiver::Receiver::start();
    let api = ok(
        with_env(&env, &old),
        &["--json", "keys", "create", "--name", "t"],
    )
    .json()["data"]["key"]
        .as_str()
        .unwrap()
        .to_string();
    let w = ok(
        with_env(&env, &old),
        &[
            "--allow-private-targets",
            "--json",
            "webhooks",
            "create",
            "--url",
            &receiver.url("/ok"),
            "--event",
            "post.published",
        ],
    )
    .json()["data"]
        .clone();
    let (id, secret) = (str_of(&w, "id"), str_of(&w, "secret"));
    let no_config = env.dir.path().join("no-config");
    let vars = |key: &str| {
        [
            ("KEYHOOK_SECRETS_KEY", key.to_string()),
            ("XDG_CONFIG_HOME", no_config.display().to_string()),
        ]
    };
    let start = |key: &str| {
        let vars = vars(key);
        let vars: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (*k, v.as_str())).collect();
        crate::server::Server::start_with_env(&env, &vars, &["--allow-private-targets"])
    };
    let mut stale = start(&old);
    let path = format!("/api/v1/webhooks/{id}");
    let r = stale.get(&path, &api);
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(r.data()["secret"], secret);

    let r = run(with_env(&env, &old)
        .args(["db", "rekey", "--new-key", "-"])
        .write_stdin(new.clone()));
    assert_eq!(r.code, 0, "{r:#?}");

    let r = stale.get(&path, &api);
    assert_eq!(r.status, 503, "{r:?}");
    assert_eq!(r.error_code(), "SERVICE_UNAVAILABLE");
    let message = r.json()["error"]["message"].as_str().unwrap().to_string();
    assert!(message.contains("restart"), "{message}");
    let created = stale.post_json(
        "/api/v1/webhooks",
        &api,
        &serde_json::json!({"url": receiver.url("/ok"), "events": ["post.published"]}),
    );
    assert_eq!(created.status, 503, "{created:?}");
    assert_eq!(created.error_code(), "SERVICE_UNAVAILABLE");
    let message = created.json()["error"]["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        message.contains("re-keyed") && message.contains("restart"),
        "{message}"
    );
    for k in [&old, &new] {
        assert!(!message.contains(k.as_str()) && !stale.log().contains(k.as_str()));
    }
    // The operator reading the server's log learns it once, without a request to look at.
    let log = stale.wait_for_log("re-keyed");
    assert_eq!(
        log.matches("re-keyed").count(),
        1,
        "the log says once that the key no longer opens the database: {log}"
    );
    assert_eq!(env.sql_i64("SELECT count(*) FROM webhooks"), 1);
    // Now every later request needing a secret says so: a rotation, and an event (routed
    // to webhooks read whole), which the client may send again later.
    let r = stale.post_json(
        &format!("{path}/rotate-secret"),
        &api,
        &serde_json::json!({}),
    );
    assert_eq!(r.status, 503, "{r:?}");
    let r = stale.post_json(
        "/api/v1/events",
        &api,
        &serde_json::json!({"event": "post.published", "data": {}}),
    );
    assert_eq!(r.status, 503, "{r:?}");
    assert_eq!(env.sql_i64("SELECT count(*) FROM events"), 0);

    // An event queued meanwhile (by a process with the new key): the stale worker claims
    // it and sends nothing, counting no failure.
    ok(
        with_env(&env, &new),
        &["events", "emit", "post.published", "--data", "{}"],
    );
    assert!(
        crate::common::poll_until(crate::server::PATIENCE, || env
            .sql_i64("SELECT count(*) FROM deliveries WHERE lease_until IS NOT NULL")
            == 1),
        "the stale worker never claimed the delivery"
    );
    stale.stop_with("TERM");
    assert!(receiver.requests().is_empty(), "{:?}", receiver.requests());
    assert_eq!(
        env.sql_i64("SELECT count(*) FROM deliveries WHERE state = 'pending' AND attempts = 0"),
        1
    );
    assert_eq!(
        env.sql_i64(&format!(
            "SELECT fail_count FROM webhooks WHERE id = '{id}'"
        )),
        0
    );

    // Restarted with the new key: the delivery goes out (once its lease has run out), signed
    // with the webhook's secret, and every request works again.
    env.advance_clock(60_000);
    let fresh = start(&new);
    let got = receiver.wait_for(1, crate::server::PATIENCE);
    assert!(crate::receiver::verifies(secret, &got[0]));
    let r = fresh.get(&path, &api);
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(r.data()["secret"], secret);
}

/// A webhook made with `extra` flags, an API key, and a server, all on the key file.
fn served_from_the_key_file(
    env: &Env,
    extra: &[&str],
) -> (serde_json::Value, String, crate::server::Server) {
    let w = create(with_file(env), extra);
    let api = ok(with_file(env), &["--json", "keys", "create", "--name", "t"]).json()["data"]
        ["key"]
        .as_str()
        .unwrap()
        .to_string();
    let config = config_dir(env).display().to_string();
    let server =
        crate::server::Server::start_with_env(env, &[("XDG_CONFIG_HOME", config.as_str())], &[]);
    (w, api, server)
}

/// With the key file, a `db rekey` run beside a running `serve` (one machine, one key file)
/// does not stop it: it finds the new key in the file at the first cell that the old one no
/// longer opens, or at the first write, and goes on with it.
#[test]
fn a_server_on_the_key_file_takes_the_new_key_after_a_rekey() {
    let env = Env::new();
    let (w, api, server) = served_from_the_key_file(&env, &["--signing", "both"]);
    let id = str_of(&w, "id");
    let path = format!("/api/v1/webhooks/{id}");
    assert_eq!(server.get(&path, &api).status, 200);
    ok(with_file(&env), &["db", "rekey"]);
    let r = server.get(&path, &api);
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(r.data()["secret"], w["secret"]);
    assert_eq!(r.data()["publicKey"], w["publicKey"]);
    // A write after another rekey: sealed with the newest key, which the CLI opens.
    ok(with_file(&env), &["db", "rekey"]);
    let created = server.post_json(
        "/api/v1/webhooks",
        &api,
        &serde_json::json!({"url": "https://example.com/h", "events": ["post.published"]}),
    );
    assert_eq!(created.status, 201, "{created:?}");
    let new_id = created.data()["id"].as_str().unwrap().to_string();
    let shown = ok(with_file(&env), &["--json", "webhooks", "show", &new_id]).json();
    assert_eq!(shown["data"]["secret"], created.data()["secret"]);
}

/// A server on a key file that a rekey elsewhere did not touch (the rekey was given
/// KEYHOOK_SECRETS_KEY) refuses, as an instance on the variable does; once its key file holds
/// the new key it takes it at the next secret it needs, without a restart, and says so.
#[test]
fn a_refusing_server_on_a_key_file_resumes_once_the_file_holds_the_new_key() {
    let env = Env::new();
    let (w, api, server) = served_from_the_key_file(&env, &[]);
    let id = str_of(&w, "id");
    let old = std::fs::read_to_string(key_file(&env)).unwrap();
    let new = a_key();
    let path = format!("/api/v1/webhooks/{id}");
    assert_eq!(server.get(&path, &api).status, 200);
    let r = run(with_env(&env, old.trim())
        .args(["db", "rekey", "--new-key", "-"])
        .write_stdin(new.clone()));
    assert_eq!(r.code, 0, "{r:#?}");
    assert_eq!(std::fs::read_to_string(key_file(&env)).unwrap(), old);
    let r = server.get(&path, &api);
    assert_eq!(r.status, 503, "{r:?}");
    assert_eq!(r.error_code(), "SERVICE_UNAVAILABLE");
    // A write meets the new fingerprint: from now on the server refuses.
    let hook = serde_json::json!({"url": "https://example.com/h", "events": ["post.published"]});
    let refused = server.post_json("/api/v1/webhooks", &api, &hook);
    assert_eq!(refused.status, 503, "{refused:?}");

    std::fs::write(key_file(&env), format!("{new}\n")).unwrap();
    let r = server.get(&path, &api);
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(r.data()["secret"], w["secret"]);
    let log = server.wait_for_log("in the key file opens the database's webhook secrets");
    assert!(
        !log.contains(new.as_str()) && !log.contains(old.trim()),
        "{log}"
    );
    // Writes seal with it, and the CLI with the new key opens what the server wrote.
    let created = server.post_json("/api/v1/webhooks", &api, &hook);
    assert_eq!(created.status, 201, "{created:?}");
    let new_id = created.data()["id"].as_str().unwrap().to_string();
    let shown = ok(
        with_env(&env, &new),
        &["--json", "webhooks", "show", &new_id],
    )
    .json();
    assert_eq!(shown["data"]["secret"], created.data()["secret"]);
}
