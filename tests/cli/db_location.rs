//! `--db` / `KEYHOOK_DB` as a file or a `postgres://` URL, through the real
//! binary: a malformed or foreign URL is a usage error, and the password of a URL is never
//! printed: not in usage errors (which quote the value), `--json` envelopes, runtime errors or
//! `--help` defaults.

use crate::common::{bare_cmd, run, Env, Run};

/// Each URL's password is `S3CR3T` (with extras around it), so a leak is easy to find.
const SECRET: &str = "S3CR3T";

fn assert_no_secret(r: &Run, what: &str) {
    for part in [SECRET, "S3CR", "CR3T"] {
        assert!(!r.stdout.contains(part), "{what}: stdout has it: {r:#?}");
        assert!(!r.stderr.contains(part), "{what}: stderr has it: {r:#?}");
    }
}

/// A usage error the keyhook way: status 2, `keyhook: --db: ...` on stderr, and with `--json`
/// the envelope on stdout.
fn assert_db_usage_error(r: &Run, json: bool, what: &str) {
    r.assert_error(2);
    assert!(r.stderr.starts_with("keyhook: --db: "), "{what}: {r:#?}");
    if json {
        let v = r.json();
        assert_eq!(v["error"]["code"], "VALIDATION_ERROR", "{what}: {r:#?}");
        let message = v["error"]["message"].as_str().unwrap_or_default();
        assert!(message.starts_with("invalid --db: "), "{what}: {message}");
        assert_eq!(v["error"]["details"][0]["field"], "--db", "{what}: {v}");
    } else {
        assert_eq!(r.stdout, "", "{what}");
    }
    assert_no_secret(r, what);
}

#[test]
fn a_malformed_or_foreign_url_is_a_usage_error_that_shows_no_password() {
    for (url, problem) in [
        ("postgres://u:S3CR3T@127.0.0.1:99999/db", "port"),
        ("postgres://u:S3CR3T@[::1/db", "']'"),
        ("postgres://u:S3CR3T@127.0.0.1/db?sslmode", "key=value"),
        ("postgres://u:S3%zzCR3T@127.0.0.1/db", "'%'"),
        ("postgres://u:S3 CR3T@127.0.0.1/db", "spaces"),
        ("postgres://u:it's S3CR3T@127.0.0.1/db", "spaces"),
        ("postgres://u:S3@CR3T@127.0.0.1/db", "%40"),
        (
            "postgresql://127.0.0.1/db?password=S3CR3T&port=x y",
            "spaces",
        ),
        (
            "mysql://root:S3CR3T@127.0.0.1/db",
            "unsupported scheme 'mysql'",
        ),
    ] {
        for json in [false, true] {
            let mut flag = bare_cmd();
            flag.arg("--db").arg(url);
            let mut env = bare_cmd();
            env.env("KEYHOOK_DB", url);
            for (how, cmd) in [("--db", &mut flag), ("KEYHOOK_DB", &mut env)] {
                if json {
                    cmd.arg("--json");
                }
                let r = run(cmd.args(["keys", "list"]));
                let what = format!("{how} {url} (json: {json})");
                assert_db_usage_error(&r, json, &what);
                assert!(r.stderr.contains(problem), "{what}: {r:#?}");
            }
        }
    }
    // The value is quoted with its password masked, so the user sees which one was refused.
    let r = run(bare_cmd().args(["--db", "postgres://u:S3CR3T@127.0.0.1:0/db", "keys", "list"]));
    assert!(
        r.stderr
            .starts_with("keyhook: --db: invalid value 'postgres://u:***@127.0.0.1:0/db' for"),
        "{r:#?}"
    );
}

/// A well-formed URL reaches the backend; whatever becomes of it (a server that does not
/// answer on port 1 of loopback, a build without PostgreSQL), it is a runtime error (1) that
/// names no password, for a command, with `--json`, and for `serve`.
#[test]
fn a_server_that_cannot_be_used_is_a_runtime_error_that_shows_no_password() {
    let url = "postgres://keyhook:S3CR3T@127.0.0.1:1/keyhook?connect_timeout=2";
    let r = run(bare_cmd().args(["--db", url, "keys", "list"]));
    r.assert_error(1);
    assert_no_secret(&r, "keys list");
    let r = run(bare_cmd()
        .env("KEYHOOK_DB", url)
        .args(["--json", "keys", "list"]));
    r.assert_error(1);
    assert!(r.json()["error"]["code"].is_string(), "{r:#?}");
    assert_no_secret(&r, "--json keys list");
    let r = run(bare_cmd().args(["--db", url, "serve", "--bind", "127.0.0.1:0"]));
    r.assert_error(1);
    assert_no_secret(&r, "serve");
}

/// One masking of a URL's password everywhere, the one docs/postgresql.md shows
/// (`postgres://keyhook:***@host/...`): a connection's error, with and without `--json`, a
/// schema's error, and serve's start line name the database the same way.
#[test]
fn errors_and_the_start_line_mask_the_password_the_same_way() {
    let url = "postgres://keyhook:S3CR3T@127.0.0.1:1/keyhook?connect_timeout=2";
    let masked = "postgres://keyhook:***@127.0.0.1:1/keyhook?connect_timeout=2";
    let r = run(bare_cmd().args(["--db", url, "keys", "list"]));
    r.assert_error(1);
    assert!(r.stderr.contains(masked), "{r:#?}");
    let r = run(bare_cmd().args(["--db", url, "--json", "keys", "list"]));
    let message = r.json()["error"]["message"]
        .as_str()
        .unwrap_or("")
        .to_string();
    assert!(message.contains(masked), "{r:#?}");
    let env = Env::new();
    if env.is_sqlite() {
        // The rest needs a PostgreSQL database with a password in its URL.
        return;
    }
    let url = env.db_arg().into_string().unwrap();
    let masked = keyhook::redact::url(&url).into_owned();
    assert!(masked.contains(":***@"), "{masked}");
    // An empty database: no keyhook tables yet.
    let r = env.run(&["keys", "list"]);
    r.assert_error(1);
    assert!(r.stderr.contains(&masked), "{masked}: {r:#?}");
    let server = crate::server::Server::start(&env);
    let log = server.log();
    assert!(
        log.contains(&format!("(database {masked})")),
        "{masked}: {log}"
    );
}

#[test]
fn help_shows_keyhook_db_as_the_default_without_its_password() {
    for args in [
        &["--help"][..],
        &["keys", "list", "--help"],
        &["serve", "--help"],
    ] {
        let r = run(bare_cmd()
            .env(
                "KEYHOOK_DB",
                "postgres://keyhook:S3CR3T@db.example:5432/k?password=S3CR3T",
            )
            .env("XDG_DATA_HOME", "/xdg-data")
            .args(args));
        assert_eq!(r.code, 0, "{args:?}: {r:#?}");
        assert!(
            r.stdout
                .contains("[default: postgres://keyhook:***@db.example:5432/k?password=***]"),
            "{args:?}: {}",
            r.stdout
        );
        assert_no_secret(&r, &format!("{args:?}"));
    }
    // A file in KEYHOOK_DB is the default too: the database a command would use.
    let r = run(bare_cmd()
        .env("KEYHOOK_DB", "/srv/keyhook.db")
        .env("XDG_DATA_HOME", "/xdg-data")
        .arg("--help"));
    assert!(
        r.stdout.contains("[default: /srv/keyhook.db]"),
        "{}",
        r.stdout
    );
    // Without it, the default file.
    let r = run(bare_cmd().env("XDG_DATA_HOME", "/xdg-data").arg("--help"));
    assert!(
        r.stdout.contains("[default: /xdg-data/keyhook/keyhook.db]"),
        "{}",
        r.stdout
    );
}

/// Values that merely look a little like URLs are files, as they always were.
#[test]
fn a_path_that_is_not_a_url_is_still_a_file() {
    let env = Env::new();
    for name in ["a:b.db", "postgres:x.db"] {
        let db = env.dir.path().join(name);
        let r = run(bare_cmd()
            .arg("--db")
            .arg(&db)
            .args(["keys", "create", "--name", "k", "--quiet"]));
        assert_eq!(r.code, 0, "{name}: {r:#?}");
        assert!(db.is_file(), "{name}");
    }
}

/// The masking is in the one redaction every sink uses, not only in `--db`'s handling: a URL
/// with a password, or a `password=` parameter, given where it does not belong is masked in
/// the CLI's errors and `--json` envelope, the server's error object and its access log.
#[test]
fn every_sink_masks_a_url_password_wherever_it_comes_from() {
    let env = Env::new();
    let admin = env.create_key("admin", &[])["key"]
        .as_str()
        .unwrap()
        .to_string();
    for id in [
        "postgres://u:S3CR3T@db.example/k",
        "host=db.example password=S3CR3T",
    ] {
        let r = env.run(&["keys", "show", id]);
        r.assert_error(3);
        assert!(r.stderr.contains("***"), "{r:#?}");
        assert_no_secret(&r, id);
        let r = env.run(&["--json", "keys", "show", id]);
        assert_eq!(r.json()["error"]["code"], "NOT_FOUND", "{r:#?}");
        assert_no_secret(&r, id);
    }
    // A file path with a password parameter in it: the runtime error names the path.
    let r = run(bare_cmd().args(["--db", "/nonexistent/password=S3CR3T", "keys", "list"]));
    r.assert_error(1);
    assert!(r.stderr.contains("/nonexistent/password=***"), "{r:#?}");
    assert_no_secret(&r, "a path");

    let mut s = crate::server::Server::start(&env);
    for path in [
        "/api/v1/api-keys/postgres%3A%2F%2Fu%3AS3CR3T%40db.example",
        "/api/v1/api-keys/postgres:%2F%2Fu:S3CR3T@db.example",
        "/api/v1/webhooks/x%3Fpassword%3DS3CR3T",
    ] {
        let r = s.get(path, &admin);
        assert_eq!(r.status, 404, "{path}: {r:?}");
        assert!(
            !r.body.contains("S3CR") && !r.body.contains("CR3T"),
            "{r:?}"
        );
    }
    s.wait_for_access_lines(3);
    let (_, _, log) = s.stop_with("TERM");
    assert!(!log.contains("S3CR") && !log.contains("CR3T"), "{log}");
}
