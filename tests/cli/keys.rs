//! `keyhook keys ...`: every command and flag, the validation failures, expiry, and the
//! `verify` decisions.

use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::{
    self, is_api_timestamp, is_key, millis, on_terminal, sorted_keys, str_of as s, Env,
};
use crate::server::Server;

const KEY_FIELDS: [&str; 13] = [
    "id",
    "userId",
    "keyPrefix",
    "name",
    "permission",
    "fullAccess",
    "profileIds",
    "lastUsedAt",
    "expiresAt",
    "rateLimit",
    "remainingUses",
    "createdAt",
    "key",
];

fn sorted(fields: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = fields.iter().map(|s| s.to_string()).collect();
    v.sort();
    v
}

/// The `details[].field` names of a `--json` validation error envelope, in order, after
/// checking its shape.
fn validation_fields(v: &Value) -> Vec<String> {
    let err = assert_error_envelope(v, "VALIDATION_ERROR");
    err["details"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            assert_eq!(sorted_keys(d), sorted(&["field", "message"]), "{d}");
            assert!(!s(d, "message").is_empty());
            s(d, "field").to_string()
        })
        .collect()
}

/// Checks `{"error": {"code", "message", "details": [...]}}` with `code`; returns the error.
fn assert_error_envelope(v: &Value, code: &str) -> Value {
    assert_eq!(sorted_keys(v), ["error"], "{v}");
    let err = &v["error"];
    assert_eq!(
        sorted_keys(err),
        sorted(&["code", "message", "details"]),
        "{v}"
    );
    assert_eq!(err["code"], code, "{v}");
    assert!(!s(err, "message").is_empty());
    assert!(err["details"].is_array(), "{v}");
    err.clone()
}

// ---------------------------------------------------------------------------------------------
// keys create

#[test]
fn create_json_is_exactly_the_api_key_with_its_plaintext() {
    let env = Env::new();
    let r = env.run(&["--json", "keys", "create", "--name", "  ci deploy  "]);
    assert_eq!(r.code, 0, "{r:#?}");
    assert_eq!(
        r.stdout.lines().count(),
        1,
        "one JSON document: {}",
        r.stdout
    );
    let v = r.json();
    assert_eq!(sorted_keys(&v), ["data"]);
    let k = &v["data"];
    assert_eq!(sorted_keys(k), sorted(&KEY_FIELDS));
    let key = s(k, "key");
    assert!(is_key(key), "{key}");
    assert_eq!(s(k, "keyPrefix"), &key[..11]);
    assert!(!s(k, "id").is_empty());
    assert_eq!(k["userId"], "default");
    assert_eq!(k["name"], "ci deploy", "the name is trimmed");
    assert_eq!(k["permission"], "readwrite");
    assert_eq!(k["fullAccess"], true);
    assert_eq!(k["profileIds"], serde_json::json!([]));
    assert_eq!(k["lastUsedAt"], Value::Null);
    assert_eq!(k["expiresAt"], Value::Null);
    assert!(is_api_timestamp(s(k, "createdAt")), "{k}");
    let age = chrono::Utc::now().timestamp_millis() - millis(s(k, "createdAt"));
    assert!((0..60_000).contains(&age), "createdAt is now: {k}");
    // With --json nothing but the body: no note on stderr either.
    assert_eq!(r.stderr, "");
}

#[test]
fn create_makes_a_new_distinct_key_each_time() {
    let env = Env::new();
    let a = env.create_key("a", &[]);
    let b = env.create_key("a", &[]);
    assert_ne!(a["id"], b["id"]);
    assert_ne!(a["key"], b["key"]);
    assert_ne!(a["keyPrefix"], b["keyPrefix"]);
    assert_eq!(env.list(&[]).len(), 2, "the same name twice is allowed");
}

#[test]
fn create_human_output_shows_the_key_once_with_a_warning() {
    let env = Env::new();
    let r = env.run(&["keys", "create", "--name", "ci"]);
    assert_eq!(r.code, 0, "{r:#?}");
    let last = r.stdout.lines().last().unwrap();
    assert!(is_key(last), "the plaintext is the last line: {}", r.stdout);
    assert!(r.stdout.contains(&last[..11]), "the table shows the prefix");
    assert!(r.stdout.contains("ci"));
    assert!(r.stderr.contains("Store this key now"), "{}", r.stderr);
    // The key that was printed is the key that was stored.
    assert_eq!(env.verify(last, &[]).code, 0);
}

#[test]
fn create_quiet_prints_only_the_key() {
    let env = Env::new();
    for flag in ["--quiet", "-q"] {
        let r = env.run(&["keys", "create", "--name", "ci", flag]);
        assert_eq!(r.code, 0, "{r:#?}");
        assert_eq!(r.stdout.len(), 68, "{:?}", r.stdout);
        let key = r.stdout.strip_suffix('\n').expect("ends with a newline");
        assert!(is_key(key), "{key}");
        assert_eq!(r.stderr, "", "nothing else, not even the note");
        assert_eq!(env.verify(key, &[]).code, 0);
    }
    // Short -n works as --name.
    let r = env.run(&["keys", "create", "-n", "short", "-q"]);
    assert_eq!(r.code, 0, "{r:#?}");
    let names: Vec<Value> = env.list(&[]).iter().map(|k| k["name"].clone()).collect();
    assert_eq!(names, ["ci", "ci", "short"]);
}

#[test]
fn create_json_wins_over_quiet() {
    let env = Env::new();
    let (code, v) = env.json(&["keys", "create", "--name", "ci", "--quiet"]);
    assert_eq!(code, 0);
    assert_eq!(sorted_keys(&v["data"]), sorted(&KEY_FIELDS));
}

#[test]
fn create_readonly_scoped_key() {
    let env = Env::new();
    let k = env.create_key(
        "scoped",
        &[
            "--permission",
            "readonly",
            "--profile",
            "p1",
            "--profile",
            "p2",
        ],
    );
    assert_eq!(k["permission"], "readonly");
    assert_eq!(k["fullAccess"], false);
    assert_eq!(k["profileIds"], serde_json::json!(["p1", "p2"]));
    let rw = env.create_key("rw", &["--permission", "readwrite"]);
    assert_eq!(rw["permission"], "readwrite");
    assert_eq!(rw["fullAccess"], true);
    // What was stored is what was returned.
    let listed = env.list(&[]);
    assert_eq!(listed[0]["profileIds"], k["profileIds"]);
    assert_eq!(listed[0]["permission"], "readonly");
    assert_eq!(listed[0]["fullAccess"], false);
}

#[test]
fn create_expires_at_is_stored_in_utc_with_millis() {
    let env = Env::new();
    let k = env.create_key("e", &["--expires-at", "2099-01-01T02:00:00+02:00"]);
    assert_eq!(k["expiresAt"], "2099-01-01T00:00:00.000Z");
    let k = env.create_key("e", &["--expires-at", "2099-06-30T12:34:56.789Z"]);
    assert_eq!(k["expiresAt"], "2099-06-30T12:34:56.789Z");
    assert_eq!(env.list(&[])[1]["expiresAt"], "2099-06-30T12:34:56.789Z");
}

#[test]
fn create_expires_in_counts_from_now() {
    let env = Env::new();
    for (dur, ms) in [
        ("90m", 5_400_000_i64),
        ("1h30m", 5_400_000),
        ("2w", 1_209_600_000),
        ("30d", 2_592_000_000),
        ("45s", 45_000),
    ] {
        let k = env.create_key("e", &["--expires-in", dur]);
        assert!(is_api_timestamp(s(&k, "expiresAt")), "{k}");
        let d = millis(s(&k, "expiresAt")) - millis(s(&k, "createdAt"));
        assert!((ms - 2_000..=ms + 2_000).contains(&d), "{dur}: {d} ms");
    }
}

#[test]
fn create_name_validation() {
    let env = Env::new();
    let long = "x".repeat(101);
    for name in ["", "   ", "\t", long.as_str(), "a\u{7}b"] {
        let (code, v) = env.json(&["keys", "create", "--name", name]);
        assert_eq!(code, 2, "{name:?}: {v}");
        assert_eq!(validation_fields(&v), ["name"], "{name:?}");
    }
    // Human form: the flag is named on stderr.
    let r = env.run(&["keys", "create", "--name", "  "]);
    r.assert_error(2);
    assert!(r.stderr.contains("--name"), "{}", r.stderr);
    assert_eq!(r.stdout, "");
    assert!(env.list(&[]).is_empty(), "nothing was created");
    // The limit is 100 characters, not bytes.
    env.create_key(&"x".repeat(100), &[]);
    env.create_key(&"é".repeat(100), &[]);
}

#[test]
fn create_expires_at_validation() {
    let env = Env::new();
    for bad in [
        "2020-01-01T00:00:00Z",
        "2099-01-01T00:00:00",
        "2099-01-01",
        "tomorrow",
        "",
    ] {
        let (code, v) = env.json(&["keys", "create", "--name", "k", "--expires-at", bad]);
        assert_eq!(code, 2, "{bad:?}: {v}");
        assert_eq!(validation_fields(&v), ["expiresAt"], "{bad:?}");
    }
    let (_, v) = env.json(&[
        "keys",
        "create",
        "--name",
        "k",
        "--expires-at",
        "2020-01-01T00:00:00Z",
    ]);
    assert!(
        v["error"]["message"].as_str().unwrap().contains("future"),
        "{v}"
    );
    let r = env.run(&["keys", "create", "--name", "k", "--expires-at", "soon"]);
    r.assert_error(2);
    assert!(r.stderr.contains("--expires-at"), "{}", r.stderr);
    assert!(env.list(&[]).is_empty());
}

#[test]
fn create_reports_every_problem_at_once() {
    let env = Env::new();
    let (code, v) = env.json(&[
        "keys",
        "create",
        "--name",
        "",
        "--profile",
        "p",
        "--profile",
        "p",
        "--profile",
        " ",
        "--expires-at",
        "soon",
    ]);
    assert_eq!(code, 2);
    assert_eq!(
        validation_fields(&v),
        ["name", "profileIds[1]", "profileIds[2]", "expiresAt"]
    );
    assert_eq!(v["error"]["message"], "request validation failed");
    assert!(env.list(&[]).is_empty());
}

#[test]
fn create_usage_errors_exit_2_and_write_nothing() {
    let env = Env::new();
    let cases: &[&[&str]] = &[
        &["--name", "k", "--permission", "admin"],
        &["--name", "k", "--permission", "READONLY"],
        &[
            "--name",
            "k",
            "--expires-at",
            "2099-01-01T00:00:00Z",
            "--expires-in",
            "1h",
        ],
        &["--name", "k", "--expires-in", "5x"],
        &["--name", "k", "--expires-in", "0s"],
        &["--name", "k", "--expires-in", "5"],
        &["--name", "k", "--expires-in", "-5m"],
        &["--name", "k", "--expires-in", ""],
        &["--name", "k", "--expires-in", "99999999999999999999d"],
        &["--permission", "readonly"],
        &["--name", "k", "--bogus"],
    ];
    for args in cases {
        let r = common::run(env.cmd().args(["keys", "create"]).args(*args));
        assert_eq!(r.code, 2, "{args:?}: {r:#?}");
        assert_eq!(r.stdout, "", "{args:?}");
        assert!(!r.stderr.contains("panicked"), "{args:?}: {}", r.stderr);
    }
    let r = common::run(
        env.cmd()
            .args(["keys", "create", "--name", "k", "--permission", "admin"]),
    );
    assert!(
        r.stderr.contains("readonly"),
        "names the choices: {}",
        r.stderr
    );
    // Usage errors are found before the database is even opened.
    assert!(!env.db_exists());
}

#[test]
fn bad_user_is_a_validation_error() {
    let env = Env::new();
    let long = "u".repeat(101);
    for user in ["", "a b", "tab\there", "new\nline", long.as_str()] {
        let (code, v) = env.json(&["--user", user, "keys", "create", "--name", "k"]);
        assert_eq!(code, 2, "{user:?}: {v}");
        assert_eq!(validation_fields(&v), ["user"], "{user:?}");
        let r = env.run(&["--user", user, "keys", "list"]);
        r.assert_error(2);
        assert!(r.stderr.contains("--user"), "{}", r.stderr);
    }
    let r = common::run(
        env.cmd()
            .env("KEYHOOK_USER", "two words")
            .args(["keys", "create", "--name", "k"]),
    );
    r.assert_error(2);
    // Refused before the database is opened: not even the database was created.
    assert!(!env.db_exists(), "nothing was created");
    // A long but valid user id is fine.
    let long_ok = "u".repeat(100);
    let create = [
        "--user", &long_ok, "keys", "create", "--name", "k", "--quiet",
    ];
    assert_eq!(env.run(&create).code, 0);
    assert_eq!(env.run(&["--user", &long_ok, "keys", "list"]).code, 0);
}

// ---------------------------------------------------------------------------------------------
// keys list

#[test]
fn list_shows_only_the_users_own_keys() {
    let env = Env::new();
    let mine = env.create_key("mine", &[]);
    let bob = env.create_key("bobs", &["--user", "bob"]);
    // KEYHOOK_USER is the same as --user.
    let r = common::run(
        env.cmd()
            .env("KEYHOOK_USER", "carol")
            .args(["--json", "keys", "create", "--name", "carols"]),
    );
    assert_eq!(r.code, 0, "{r:#?}");
    let carol = r.json()["data"].clone();
    assert_eq!(carol["userId"], "carol");
    assert_eq!(bob["userId"], "bob");

    let ids = |list: Vec<Value>| -> Vec<Value> { list.iter().map(|k| k["id"].clone()).collect() };
    assert_eq!(ids(env.list(&[])), [mine["id"].clone()]);
    assert_eq!(ids(env.list(&["--user", "bob"])), [bob["id"].clone()]);
    assert!(env.list(&["--user", "nobody"]).is_empty());

    let r = common::run(
        env.cmd()
            .env("KEYHOOK_USER", "carol")
            .args(["--json", "keys", "list"]),
    );
    assert_eq!(
        r.json()["data"].as_array().unwrap().len(),
        1,
        "{}",
        r.stdout
    );
    assert_eq!(r.json()["data"][0]["id"], carol["id"]);
    // The flag beats the environment.
    let r = common::run(
        env.cmd()
            .env("KEYHOOK_USER", "carol")
            .args(["--user", "bob", "--json", "keys", "list"]),
    );
    assert_eq!(r.json()["data"][0]["id"], bob["id"]);

    let all = env.list(&["--all-users"]);
    assert_eq!(all.len(), 3);
    let mut users: Vec<&str> = all.iter().map(|k| s(k, "userId")).collect();
    users.sort();
    assert_eq!(users, ["bob", "carol", "default"]);
}

#[test]
fn list_never_shows_the_plaintext() {
    let env = Env::new();
    let a = env.create_key("a", &[]);
    let b = env.create_key("b", &["--profile", "p1", "--expires-in", "1d"]);
    for args in [&[][..], &["--all-users"][..]] {
        for k in env.list(args) {
            let mut want = KEY_FIELDS.to_vec();
            want.retain(|f| *f != "key");
            assert_eq!(sorted_keys(&k), sorted(&want), "{k}");
        }
        let r = env.run(&[&["keys", "list"], args].concat());
        assert_eq!(r.code, 0);
        for k in [&a, &b] {
            let key = s(k, "key");
            assert!(!r.stdout.contains(key) && !r.stderr.contains(key));
            assert!(!r.stdout.contains(&key[11..20]));
        }
    }
}

#[test]
fn list_human_table() {
    let env = Env::new();
    let a = env.create_key("first-key", &[]);
    let b = env.create_key(
        "second-key",
        &[
            "--permission",
            "readonly",
            "--profile",
            "prof-a",
            "--expires-at",
            "2099-01-01T00:00:00Z",
        ],
    );
    let r = env.run(&["keys", "list"]);
    assert_eq!(r.code, 0, "{r:#?}");
    for needle in [
        "PREFIX",
        "NAME",
        s(&a, "keyPrefix"),
        s(&b, "keyPrefix"),
        "first-key",
        "second-key",
        "readonly",
        "prof-a",
        "all profiles",
        // Tables show times relative to now; `keys show` adds the date.
        "years",
        "never",
    ] {
        assert!(r.stdout.contains(needle), "{needle:?} in\n{}", r.stdout);
    }
    assert!(!r.stdout.contains("EXPIRED"));
    // The prefix names the key; the 36-character id is left to `keys show` and --json.
    assert!(!r.stdout.contains(s(&a, "id")));
    assert!(!r.stdout.contains("USER"), "no user column for one user");
    let shown = env.run(&["keys", "show", s(&b, "id")]);
    assert!(
        shown.stdout.contains("2099-01-01 00:00 UTC (in "),
        "{}",
        shown.stdout
    );
    // Oldest first.
    assert!(r.stdout.find("first-key") < r.stdout.find("second-key"));
    let r = env.run(&["keys", "list", "--all-users"]);
    assert!(r.stdout.contains("USER") && r.stdout.contains("default"));
}

#[test]
fn list_empty() {
    let env = Env::new();
    // The database exists (read-only commands do not create one); this user has no keys.
    env.create_key("someone-else's", &["--user", "other"]);
    let (code, v) = env.json(&["keys", "list"]);
    assert_eq!(code, 0);
    assert_eq!(v, serde_json::json!({"data": []}));
    let r = env.run(&["keys", "list"]);
    assert_eq!(r.code, 0);
    assert_eq!(r.stdout, "", "no table for no keys");
    assert!(r.stderr.contains("No API keys"), "{}", r.stderr);
}

#[test]
fn list_orders_oldest_first() {
    let env = Env::new();
    for n in ["one", "two", "three"] {
        env.create_key(n, &[]);
    }
    let names: Vec<Value> = env.list(&[]).iter().map(|k| k["name"].clone()).collect();
    assert_eq!(names, ["one", "two", "three"]);
}

#[test]
fn json_flag_may_follow_the_command() {
    let env = Env::new();
    env.create_key("k", &[]);
    let r = env.run(&["keys", "list", "--json"]);
    assert_eq!(r.code, 0);
    assert_eq!(r.json()["data"].as_array().unwrap().len(), 1);
}

// ---------------------------------------------------------------------------------------------
// keys show

#[test]
fn show_by_id_or_prefix() {
    let env = Env::new();
    let k = env.create_key("shown", &["--profile", "p1"]);
    let mut expected = k.clone();
    expected.as_object_mut().unwrap().remove("key");
    for id in [s(&k, "id"), s(&k, "keyPrefix")] {
        let (code, v) = env.json(&["keys", "show", id]);
        assert_eq!(code, 0, "{v}");
        assert_eq!(v, serde_json::json!({ "data": expected }), "never the key");
    }
    let r = env.run(&["keys", "show", s(&k, "keyPrefix")]);
    assert_eq!(r.code, 0);
    for needle in [s(&k, "id"), "shown", "p1", "readwrite", "never"] {
        assert!(r.stdout.contains(needle), "{needle:?} in\n{}", r.stdout);
    }
    assert!(!r.stdout.contains(s(&k, "key")));
}

#[test]
fn show_unknown_or_another_users_key_is_not_found() {
    let env = Env::new();
    let bobs = env.create_key("bobs", &["--user", "bob"]);
    let prefix = s(&bobs, "keyPrefix");
    let full = s(&bobs, "key");
    for id in [
        s(&bobs, "id"),
        prefix,
        "no-such-id",
        "kp_00000000",
        &prefix[..10],
        full,
        "",
    ] {
        let (code, v) = env.json(&["keys", "show", id]);
        assert_eq!(code, 3, "{id:?}: {v}");
        let err = assert_error_envelope(&v, "NOT_FOUND");
        assert_eq!(err["details"], serde_json::json!([]));
        let r = env.run(&["keys", "show", id]);
        r.assert_error(3);
        assert!(!r.stderr.contains("bob"), "never reveals the owner");
    }
    // bob himself can.
    let (code, _) = env.json(&["--user", "bob", "keys", "show", prefix]);
    assert_eq!(code, 0);
}

#[test]
fn show_ambiguous_prefix_asks_for_the_id() {
    let env = Env::new();
    let k = env.create_key("a", &[]);
    // Two keys sharing 8 hex digits happen once in 4 billion; forge the second row.
    env.sql(
        "INSERT INTO api_keys (id, user_id, name, key_hash, key_prefix, permission,
            full_access, profile_ids, created_at)
         SELECT 'twin', user_id, 'twin', 'not-a-real-hash', key_prefix, permission,
            full_access, profile_ids, created_at + 1 FROM api_keys",
    );
    let (code, v) = env.json(&["keys", "show", s(&k, "keyPrefix")]);
    assert_eq!(code, 2, "{v}");
    assert_error_envelope(&v, "VALIDATION_ERROR");
    assert!(v["error"]["message"]
        .as_str()
        .unwrap()
        .contains("matches 2 keys"));
    // The id still works, and delete by that prefix deletes nothing.
    assert_eq!(env.json(&["keys", "show", s(&k, "id")]).0, 0);
    assert_eq!(
        env.run(&["keys", "delete", "--yes", s(&k, "keyPrefix")])
            .code,
        2
    );
    assert_eq!(env.list(&[]).len(), 2);
}

// ---------------------------------------------------------------------------------------------
// keys delete

#[test]
fn delete_without_yes_and_without_a_terminal_refuses_at_once() {
    let env = Env::new();
    let k = env.create_key("keep", &[]);
    let started = Instant::now();
    let r = common::run(
        env.cmd()
            .args(["keys", "delete", s(&k, "id")])
            .timeout(Duration::from_secs(10)),
    );
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "it did not wait"
    );
    r.assert_error(2);
    assert!(
        r.stderr.contains("--yes"),
        "says how to go on: {}",
        r.stderr
    );
    assert_eq!(r.stdout, "");

    let r = common::run(
        env.cmd()
            .args(["--json", "keys", "delete", s(&k, "keyPrefix")])
            .write_stdin("y\n")
            .timeout(Duration::from_secs(10)),
    );
    assert_eq!(r.code, 2, "a `y` on a pipe is not a confirmation: {r:#?}");
    assert_error_envelope(&r.json(), "VALIDATION_ERROR");

    assert_eq!(env.list(&[]).len(), 1, "nothing was deleted");
    assert_eq!(env.verify(s(&k, "key"), &[]).code, 0, "the key still works");
}

#[test]
fn delete_on_a_terminal_asks_first() {
    let env = Env::new();
    let k = env.create_key("asked", &[]);
    let Some(r) = on_terminal(
        &env,
        &["keys", "delete", s(&k, "keyPrefix")],
        "[y/N]",
        "n\n",
    ) else {
        return;
    };
    assert!(r.stdout.contains("Delete API key"), "the question: {r:#?}");
    assert_ne!(r.code, 0, "a no is not a success: {r:#?}");
    assert!(r.stdout.contains("nothing was changed"), "{r:#?}");
    assert_eq!(env.list(&[]).len(), 1, "no means no");

    let r = on_terminal(
        &env,
        &["keys", "delete", s(&k, "keyPrefix")],
        "[y/N]",
        "y\n",
    )
    .unwrap();
    assert_eq!(r.code, 0, "{r:#?}");
    assert!(r.stdout.contains("Deleted API key"), "{r:#?}");
    assert!(env.list(&[]).is_empty());
}

#[test]
fn delete_with_yes_is_immediate() {
    let env = Env::new();
    let a = env.create_key("a", &[]);
    let b = env.create_key("b", &[]);
    let c = env.create_key("c", &[]);

    // By id, --json: DELETE answers 204, so nothing is printed.
    let r = env.run(&["--json", "keys", "delete", "--yes", s(&a, "id")]);
    assert_eq!(r.code, 0, "{r:#?}");
    assert_eq!(r.stdout, "");
    assert_eq!(r.stderr, "");
    // By prefix, human, short -y.
    let r = env.run(&["keys", "delete", s(&b, "keyPrefix"), "-y"]);
    assert_eq!(r.code, 0, "{r:#?}");
    assert!(r.stderr.contains("Deleted"), "{}", r.stderr);
    assert!(r.stderr.contains(s(&b, "keyPrefix")));

    let left: Vec<Value> = env.list(&[]).iter().map(|k| k["id"].clone()).collect();
    assert_eq!(left, [c["id"].clone()]);
    for gone in [&a, &b] {
        let r = env.verify(s(gone, "key"), &[]);
        r.assert_error(4);
        assert_eq!(env.json(&["keys", "show", s(gone, "id")]).0, 3);
    }
    assert_eq!(env.verify(s(&c, "key"), &[]).code, 0);
}

#[test]
fn delete_unknown_or_another_users_key_is_not_found() {
    let env = Env::new();
    let bobs = env.create_key("bobs", &["--user", "bob"]);
    for id in ["nope", s(&bobs, "id"), s(&bobs, "keyPrefix")] {
        let (code, v) = env.json(&["keys", "delete", "--yes", id]);
        assert_eq!(code, 3, "{id}: {v}");
        assert_error_envelope(&v, "NOT_FOUND");
        env.run(&["keys", "delete", "--yes", id]).assert_error(3);
    }
    // Even without --yes, a wrong id is reported as not found before anything is asked.
    env.run(&["keys", "delete", "nope"]).assert_error(3);
    assert_eq!(env.list(&["--user", "bob"]).len(), 1);
    assert_eq!(env.verify(s(&bobs, "key"), &[]).code, 0);
}

// ---------------------------------------------------------------------------------------------
// keys rotate

#[test]
fn rotate_replaces_the_key_and_deletes_the_old_one() {
    let env = Env::new();
    let old = env.create_key(
        "ci",
        &[
            "--permission",
            "readonly",
            "--profile",
            "p1",
            "--profile",
            "p2",
        ],
    );
    let (code, v) = env.json(&["keys", "rotate", s(&old, "id")]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(sorted_keys(&v), ["data"]);
    let new = &v["data"];
    assert_eq!(sorted_keys(new), sorted(&KEY_FIELDS));
    assert!(is_key(s(new, "key")));
    assert_eq!(s(new, "keyPrefix"), &s(new, "key")[..11]);
    assert_ne!(new["id"], old["id"]);
    assert_ne!(new["key"], old["key"]);
    for same in ["name", "permission", "fullAccess", "profileIds", "userId"] {
        assert_eq!(new[same], old[same], "{same}");
    }
    assert_eq!(new["expiresAt"], Value::Null);
    assert_eq!(new["lastUsedAt"], Value::Null);

    let r = env.verify(s(&old, "key"), &[]);
    r.assert_error(4);
    assert!(r.stderr.contains("invalid API key"), "{}", r.stderr);
    assert_eq!(env.json(&["keys", "show", s(&old, "id")]).0, 3);
    assert_eq!(env.verify(s(new, "key"), &["--profile", "p2"]).code, 0);
    let left = env.list(&[]);
    assert_eq!(left.len(), 1);
    assert_eq!(left[0]["id"], new["id"]);
}

#[test]
fn rotate_with_grace_keeps_the_old_key_working_until_then() {
    let env = Env::new();
    let old = env.create_key("ci", &[]);
    let r = env.run(&["keys", "rotate", s(&old, "keyPrefix"), "--grace", "1h"]);
    assert_eq!(r.code, 0, "{r:#?}");
    let new_key = r.stdout.lines().last().unwrap();
    assert!(is_key(new_key), "{}", r.stdout);
    assert!(r.stderr.contains("keeps working until"), "{}", r.stderr);

    assert_eq!(env.verify(s(&old, "key"), &[]).code, 0, "old key in grace");
    assert_eq!(env.verify(new_key, &[]).code, 0);
    let list = env.list(&[]);
    assert_eq!(list.len(), 2);
    let old_now = list.iter().find(|k| k["id"] == old["id"]).unwrap();
    let until = millis(s(old_now, "expiresAt")) - chrono::Utc::now().timestamp_millis();
    assert!(
        (3_600_000 - 60_000..=3_600_000).contains(&until),
        "old key expires in about 1h: {old_now}"
    );
    let new = list.iter().find(|k| k["id"] != old["id"]).unwrap();
    assert_eq!(new["name"], "ci");
    assert_eq!(new["expiresAt"], Value::Null);
}

#[test]
fn rotate_grace_expires_the_old_key() {
    let env = Env::with_clock();
    let old = env.create_key("ci", &[]);
    let (code, v) = env.json(&["keys", "rotate", s(&old, "id"), "--grace", "1s"]);
    assert_eq!(code, 0, "{v}");
    env.advance_clock(999);
    assert_eq!(
        env.verify(s(&old, "key"), &[]).code,
        0,
        "1 ms of grace left"
    );
    env.advance_clock(1);
    let r = env.verify(s(&old, "key"), &[]);
    r.assert_error(4);
    assert!(r.stderr.contains("API key has expired"), "{}", r.stderr);
    assert_eq!(env.verify(s(&v["data"], "key"), &[]).code, 0);
}

/// `--grace 0s`: the old key expires now (listed as expired until deleted or pruned).
#[test]
fn rotate_grace_zero_expires_the_old_key_now() {
    let env = Env::with_clock();
    let old = env.create_key("ci", &[]);
    let (code, v) = env.json(&["keys", "rotate", s(&old, "id"), "--grace", "0s"]);
    assert_eq!(code, 0, "{v}");
    let r = env.verify(s(&old, "key"), &[]);
    r.assert_error(4);
    assert!(r.stderr.contains("API key has expired"), "{}", r.stderr);
    assert_eq!(env.verify(s(&v["data"], "key"), &[]).code, 0);
    assert_eq!(env.list(&[]).len(), 2, "the old key is still listed");
}

#[test]
fn rotate_quiet_prints_only_the_new_key() {
    let env = Env::new();
    let old = env.create_key("ci", &[]);
    for args in [&["--quiet"][..], &["-q", "--grace", "10m"][..]] {
        let id = s(&env.list(&[])[0], "id").to_string();
        let r = env.run(&[&["keys", "rotate", id.as_str()], args].concat());
        assert_eq!(r.code, 0, "{r:#?}");
        assert_eq!(r.stdout.len(), 68, "{:?}", r.stdout);
        let key = r.stdout.trim_end();
        assert!(is_key(key));
        assert_ne!(key, s(&old, "key"));
        assert_eq!(r.stderr, "");
        assert_eq!(env.verify(key, &[]).code, 0);
    }
}

#[test]
fn rotate_keeps_the_expiry_length_and_grace_never_extends() {
    let env = Env::new();
    let old = env.create_key("ci", &["--expires-in", "1h"]);
    let (code, v) = env.json(&["keys", "rotate", s(&old, "id"), "--grace", "7d"]);
    assert_eq!(code, 0, "{v}");
    let new = &v["data"];
    let d = millis(s(new, "expiresAt")) - millis(s(new, "createdAt"));
    assert!(
        (3_598_000..=3_602_000).contains(&d),
        "a 1h key stays a 1h key: {new}"
    );
    let old_now = env
        .list(&[])
        .into_iter()
        .find(|k| k["id"] == old["id"])
        .unwrap();
    assert_eq!(
        old_now["expiresAt"], old["expiresAt"],
        "a grace longer than the key's life does not extend it"
    );
}

#[test]
fn rotate_errors() {
    let env = Env::new();
    let bobs = env.create_key("bobs", &["--user", "bob"]);
    for id in ["nope", s(&bobs, "id"), s(&bobs, "keyPrefix")] {
        let (code, v) = env.json(&["keys", "rotate", id]);
        assert_eq!(code, 3, "{v}");
        assert_error_envelope(&v, "NOT_FOUND");
    }
    for grace in ["5x", "-1s", "", "1"] {
        let r = env.run(&[
            "--user",
            "bob",
            "keys",
            "rotate",
            s(&bobs, "id"),
            "--grace",
            grace,
        ]);
        assert_eq!(r.code, 2, "{grace:?}: {r:#?}");
        assert!(!r.stderr.contains("panicked"));
    }
    let left = env.list(&["--user", "bob"]);
    assert_eq!(left.len(), 1, "nothing was rotated");
    assert_eq!(left[0]["id"], bobs["id"]);
    assert_eq!(left[0]["expiresAt"], Value::Null);
    assert_eq!(env.verify(s(&bobs, "key"), &[]).code, 0);
}

// ---------------------------------------------------------------------------------------------
// keys verify

#[test]
fn verify_accepts_a_good_key_from_stdin() {
    let env = Env::new();
    let k = env.create_key("ci", &[]);
    let key = s(&k, "key");
    for input in [key.to_string(), format!("{key}\n"), format!("  {key}\r\n")] {
        let r = env.verify(&input, &[]);
        assert_eq!(r.code, 0, "{input:?}: {r:#?}");
        assert!(r.stdout.starts_with("ok: "), "{}", r.stdout);
        assert!(r.stdout.contains(s(&k, "keyPrefix")));
        assert!(!r.stdout.contains(key), "never echoes the key");
    }
    let r = common::run(
        env.cmd()
            .args(["--json", "keys", "verify", "--method", "DELETE"])
            .write_stdin(key.to_string()),
    );
    assert_eq!(r.code, 0, "{r:#?}");
    let mut expected = k.clone();
    expected.as_object_mut().unwrap().remove("key");
    assert_eq!(r.json(), serde_json::json!({ "data": expected }));
    // Checking a key is not a use of it.
    assert_eq!(env.list(&[])[0]["lastUsedAt"], Value::Null);
}

#[test]
fn verify_refuses_unknown_and_malformed_keys() {
    let env = Env::new();
    let k = env.create_key("ci", &[]);
    let key = s(&k, "key");
    // A well-formed key with a valid checksum that is not stored.
    let unknown = keyhook::auth::generate_key();
    let r = env.verify(&unknown, &[]);
    r.assert_error(4);
    assert!(r.stderr.contains("invalid API key"), "{}", r.stderr);
    // A typo: the checksum tells it from an unknown key.
    let zeros = format!("kp_{}", "0".repeat(64));
    let typo = format!(
        "{}{}",
        &key[..66],
        if key.ends_with('0') { '1' } else { '0' }
    );
    for bad in [&zeros, &typo] {
        let r = env.verify(bad, &[]);
        r.assert_error(4);
        assert_eq!(r.stderr, "keyhook: API key checksum mismatch\n", "{bad}");
    }
    for bad in [
        key[..66].to_string(),
        format!("{key}0"),
        key.to_uppercase(),
        format!("kq_{}", &key[3..]),
        format!("{}g", &key[..66]),
        format!("{key}\n{key}"),
        "hello".to_string(),
        "kp_é".to_string(),
    ] {
        let r = env.verify(&bad, &[]);
        r.assert_error(4);
        assert!(r.stderr.contains("malformed"), "{bad:?}: {}", r.stderr);
        assert!(!r.stderr.contains(key), "never echoes the input");
    }
    for bad in [unknown.as_str(), "short"] {
        let r = common::run(
            env.cmd()
                .args(["--json", "keys", "verify"])
                .write_stdin(bad.to_string()),
        );
        assert_eq!(r.code, 4);
        let err = assert_error_envelope(&r.json(), "UNAUTHORIZED");
        assert_eq!(err["details"], serde_json::json!([]));
    }
}

#[test]
fn verify_needs_a_key_on_stdin() {
    let env = Env::new();
    env.create_key("ci", &[]);
    for input in ["", "\n", "   \t\n"] {
        let r = env.verify(input, &[]);
        r.assert_error(2);
        assert!(r.stderr.contains("standard input"), "{}", r.stderr);
    }
    // Nothing written to stdin at all (closed at once).
    let r = common::run(env.cmd().args(["keys", "verify"]));
    r.assert_error(2);
    let r = common::run(env.cmd().args(["--json", "keys", "verify"]));
    assert_eq!(r.code, 2);
    assert_error_envelope(&r.json(), "VALIDATION_ERROR");
    // A flood is refused without reading it all, and without a panic.
    let r = env.verify(&"a".repeat(1 << 20), &[]);
    assert_eq!(r.code, 4, "{}", r.stderr);
    common::assert_keyhook_error(&r.stderr);
    // Bad UTF-8 on stdin.
    let r = common::run(
        env.cmd()
            .args(["keys", "verify"])
            .write_stdin(vec![0xff_u8, 0xfe, b'k']),
    );
    r.assert_error(4);
}

#[test]
fn verify_expired_key() {
    let env = Env::with_clock();
    let k = env.create_key("short-lived", &["--expires-in", "1s"]);
    let fresh = env.verify(s(&k, "key"), &[]);
    assert_eq!(
        fresh.code, 0,
        "still valid right after creation: {fresh:#?}"
    );
    env.advance_clock(1_200);

    let r = env.verify(s(&k, "key"), &[]);
    r.assert_error(4);
    assert_eq!(r.stderr, "keyhook: API key has expired\n");
    let r = common::run(
        env.cmd()
            .args(["--json", "keys", "verify"])
            .write_stdin(s(&k, "key").to_string()),
    );
    assert_eq!(r.code, 4);
    let err = assert_error_envelope(&r.json(), "API_KEY_EXPIRED");
    assert_eq!(err["message"], "API key has expired");

    // Still listed, marked expired.
    let r = env.run(&["keys", "list"]);
    assert_eq!(r.code, 0);
    assert!(r.stdout.contains("EXPIRED"), "{}", r.stdout);
    assert!(r.stdout.contains("short-lived"));
    let r = env.run(&["keys", "show", s(&k, "keyPrefix")]);
    assert!(r.stdout.contains("EXPIRED"), "{}", r.stdout);
    let listed = env.list(&[]);
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0]["expiresAt"], k["expiresAt"]);
    // And it can still be deleted.
    assert_eq!(env.run(&["keys", "delete", "--yes", s(&k, "id")]).code, 0);
}

#[test]
fn verify_readonly_key_only_reads() {
    let env = Env::new();
    let ro = env.create_key("ro", &["--permission", "readonly"]);
    let key = s(&ro, "key");
    for m in ["GET", "HEAD", "get"] {
        assert_eq!(env.verify(key, &["--method", m]).code, 0, "{m}");
    }
    assert_eq!(env.verify(key, &[]).code, 0, "GET is the default");
    for (m, shown) in [
        ("POST", "POST"),
        ("post", "POST"),
        ("PUT", "PUT"),
        ("PATCH", "PATCH"),
        ("DELETE", "DELETE"),
    ] {
        let r = env.verify(key, &["--method", m]);
        r.assert_error(4);
        assert!(
            r.stderr.contains(&format!("readonly key cannot {shown}")),
            "{m}: {}",
            r.stderr
        );
    }
    let r = common::run(
        env.cmd()
            .args(["--json", "keys", "verify", "--method", "POST"])
            .write_stdin(key.to_string()),
    );
    assert_eq!(r.code, 4);
    let err = assert_error_envelope(&r.json(), "FORBIDDEN");
    assert!(s(&err, "message").contains("readonly key cannot POST"));

    let rw = env.create_key("rw", &[]);
    for m in ["POST", "PUT", "PATCH", "DELETE"] {
        assert_eq!(env.verify(s(&rw, "key"), &["--method", m]).code, 0, "{m}");
    }
    // Any method the check takes (docs/guarding.md): one outside the spec's writes.
    let r = env.verify(key, &["--method", "FETCH"]);
    r.assert_error(4);
    assert!(
        r.stderr.contains("readonly key cannot FETCH"),
        "{}",
        r.stderr
    );
    let r = env.verify(key, &["--method", "GET POST"]);
    assert_eq!(r.code, 2, "what is not a method is a usage error");
}

#[test]
fn verify_scoped_key_stays_in_its_profiles() {
    let env = Env::new();
    let scoped = env.create_key("scoped", &["--profile", "p1", "--profile", "p2"]);
    let key = s(&scoped, "key");
    assert_eq!(env.verify(key, &["--profile", "p1"]).code, 0);
    assert_eq!(
        env.verify(key, &["--profile", "p2", "--method", "POST"])
            .code,
        0
    );
    assert_eq!(env.verify(key, &[]).code, 0, "no profile named");
    for outside in ["p3", "P1", "p"] {
        let r = env.verify(key, &["--profile", outside]);
        r.assert_error(4);
        assert!(r.stderr.contains(outside), "{}", r.stderr);
    }
    let r = common::run(
        env.cmd()
            .args(["--json", "keys", "verify", "--profile", "p3"])
            .write_stdin(key.to_string()),
    );
    assert_eq!(r.code, 4);
    assert_error_envelope(&r.json(), "FORBIDDEN");

    // Readonly and scoped: both rules apply.
    let ro = env.create_key(
        "ro-scoped",
        &["--permission", "readonly", "--profile", "p1"],
    );
    assert_eq!(env.verify(s(&ro, "key"), &["--profile", "p1"]).code, 0);
    let r = env.verify(s(&ro, "key"), &["--profile", "p1", "--method", "POST"]);
    r.assert_error(4);
    assert_eq!(env.verify(s(&ro, "key"), &["--profile", "p9"]).code, 4);

    // A full-access key reaches every profile, including ones that do not exist yet.
    let full = env.create_key("full", &[]);
    assert_eq!(
        env.verify(s(&full, "key"), &["--profile", "anything"]).code,
        0
    );
}

#[test]
fn verify_finds_keys_of_every_user() {
    // A key is its own credential: verify needs no --user.
    let env = Env::new();
    let bobs = env.create_key("bobs", &["--user", "bob"]);
    let r = common::run(
        env.cmd()
            .args(["--json", "keys", "verify"])
            .write_stdin(s(&bobs, "key").to_string()),
    );
    assert_eq!(r.code, 0, "{r:#?}");
    assert_eq!(r.json()["data"]["userId"], "bob");
}

#[test]
fn verify_on_a_terminal_prompts_without_echo() {
    let env = Env::new();
    let k = env.create_key("typed", &[]);
    let key = s(&k, "key");
    let Some(r) = on_terminal(&env, &["keys", "verify"], "API key", &format!("{key}\n")) else {
        return;
    };
    assert_eq!(r.code, 0, "{r:#?}");
    assert!(r.stdout.contains("API key"), "a prompt: {r:#?}");
    assert!(r.stdout.contains("ok: key"), "{r:#?}");
    assert!(
        !r.stdout.contains(&key[11..]),
        "the key is not echoed: {r:#?}"
    );
}

/// `keys scan` finds a key percent-encoded up to three times, as docs/keys.md says
/// (`kp%25255F...` is `kp_` encoded three times), with `_` alone or every character encoded
/// at each level; four levels are not decoded, and the key is not found.
#[test]
fn scan_finds_keys_encoded_up_to_three_levels() {
    let env = Env::new();
    let k = env.create_key("leaked", &[]);
    let key = s(&k, "key");
    let encode = |text: &str, every: bool| -> String {
        text.bytes()
            .map(|c| match c {
                b'%' | b'_' => format!("%{c:02X}"),
                _ if every => format!("%{c:02X}"),
                _ => char::from(c).to_string(),
            })
            .collect()
    };
    for every in [false, true] {
        let mut text = key.to_string();
        for level in 0..=4 {
            let r = common::run(
                env.cmd()
                    .args(["--json", "keys", "scan", "-"])
                    .write_stdin(format!("GET /hook?token={text} 200\n")),
            );
            if level <= 3 {
                assert_eq!(r.code, 4, "level {level}: {text}: {r:?}");
                let found: Value = serde_json::from_str(r.stdout.trim()).unwrap();
                assert_eq!(found["keyPrefix"], s(&k, "keyPrefix"), "level {level}");
                assert_eq!(found["status"], "active", "level {level}");
            } else {
                assert_eq!((r.code, r.stdout.as_str()), (0, ""), "{text}: {r:?}");
            }
            text = encode(&text, every);
        }
    }
    let r = common::run(
        env.cmd()
            .args(["keys", "scan", "-"])
            .write_stdin(format!("kp%25255F{}\n", &key[3..])),
    );
    assert_eq!(r.code, 4, "{r:?}");
}

// ---------------------------------------------------------------------------------------------
// A rotation replaces a credential; it does not add one (CONTRACT §12): a key and the keys
// rotated from it share one budget of uses and one rate bucket while they live.

/// `keys rotate ID` with `extra` flags; the new key's `data` (with its plaintext).
fn rotate(env: &Env, id: &str, extra: &[&str]) -> Value {
    let mut args = vec!["keys", "rotate", id];
    args.extend_from_slice(extra);
    let (code, v) = env.json(&args);
    assert_eq!(code, 0, "keys rotate failed: {v}");
    v["data"].clone()
}

/// `remainingUses` of each key, by id.
type UsesById = Vec<(String, Value)>;

/// `remainingUses` of every key of the default user, by id, as `keys list` shows them and
/// as `GET /api-keys` does.
fn uses_shown(env: &Env, server: &Server, key: &str) -> (UsesById, UsesById) {
    let pick = |list: &[Value]| {
        let mut v: Vec<(String, Value)> = list
            .iter()
            .map(|k| (s(k, "id").to_string(), k["remainingUses"].clone()))
            .collect();
        v.sort_by(|a, b| a.0.cmp(&b.0));
        v
    };
    let cli = pick(&env.list(&[]));
    let r = server.get("/api/v1/api-keys", key);
    let http = match r.status {
        200 => pick(r.json()["data"].as_array().unwrap()),
        _ => Vec::new(),
    };
    (cli, http)
}

#[test]
fn a_key_rotated_with_grace_shares_its_uses_with_the_new_one() {
    let env = Env::new();
    let old = env.create_key("ci", &["--max-uses", "3"]);
    let new = rotate(&env, s(&old, "id"), &["--grace", "1h"]);
    assert_eq!(
        new["remainingUses"], 3,
        "the new key starts with the old one's"
    );
    let server = Server::start(&env);
    // Old, new, old: three requests, of the one budget of three.
    let (o, n) = (s(&old, "key"), s(&new, "key"));
    assert_eq!(server.get("/api/v1/api-keys", o).status, 200);
    let (cli, http) = uses_shown(&env, &server, n);
    let want = |left: i64| {
        let mut v = vec![
            (s(&old, "id").to_string(), Value::from(left)),
            (s(&new, "id").to_string(), Value::from(left)),
        ];
        v.sort_by(|a, b| a.0.cmp(&b.0));
        v
    };
    assert_eq!(cli, want(2), "both keys show the budget's uses");
    // The list request itself spent one, and shows it.
    assert_eq!(http, want(1));
    assert_eq!(server.get("/api/v1/api-keys", o).status, 200);
    for key in [o, n] {
        let r = server.get("/api/v1/api-keys", key);
        assert_eq!(
            (r.status, r.error_code()),
            (403, "KEY_EXHAUSTED".into()),
            "{r:?}"
        );
    }
    assert_eq!(uses_shown(&env, &server, n).0, want(0));
    assert_eq!(env.verify(n, &[]).code, 4, "keys verify says so too");
}

#[test]
fn a_chain_of_rotations_shares_one_budget() {
    let env = Env::new();
    let first = env.create_key("ci", &["--max-uses", "3"]);
    let second = rotate(&env, s(&first, "id"), &["--grace", "1h"]);
    let third = rotate(&env, s(&second, "id"), &["--grace", "1h"]);
    let server = Server::start(&env);
    let keys = [s(&first, "key"), s(&second, "key"), s(&third, "key")];
    for key in keys {
        assert_eq!(server.get("/api/v1/api-keys", key).status, 200);
    }
    for key in keys {
        let r = server.get("/api/v1/api-keys", key);
        assert_eq!(r.error_code(), "KEY_EXHAUSTED", "{r:?}");
    }
    // A rotation without grace passes the uses left on too: none here, and 2 of 5 below.
    let fourth = rotate(&env, s(&third, "id"), &[]);
    assert_eq!(fourth["remainingUses"], 0);
    let k = env.create_key("other", &["--max-uses", "5"]);
    for _ in 0..3 {
        assert_eq!(server.get("/api/v1/api-keys", s(&k, "key")).status, 200);
    }
    let next = rotate(&env, s(&k, "id"), &[]);
    assert_eq!(next["remainingUses"], 2);
    for _ in 0..2 {
        assert_eq!(server.get("/api/v1/api-keys", s(&next, "key")).status, 200);
    }
    let r = server.get("/api/v1/api-keys", s(&next, "key"));
    assert_eq!(r.error_code(), "KEY_EXHAUSTED", "{r:?}");
    // The budget goes with the last key of its chain, and not before.
    let budgets = || env.sql_i64("SELECT count(*) FROM key_budgets");
    assert_eq!(budgets(), 2);
    // (The third key went at its rotation without grace.)
    for k in [&first, &second] {
        let r = env.run(&["keys", "delete", s(k, "id"), "--yes"]);
        assert_eq!(r.code, 0, "{r:?}");
        assert_eq!(budgets(), 2);
    }
    let r = env.run(&["keys", "delete", s(&fourth, "id"), "--yes"]);
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(budgets(), 1);
}

/// The key's own rate limit and `serve --rate-limit`'s: one bucket for the old and the new
/// key while both live.
#[test]
fn a_key_rotated_with_grace_shares_its_rate_bucket() {
    let env = Env::new();
    let own = env.create_key("own", &["--rate-limit", "2/min"]);
    let plain = env.create_key("plain", &[]);
    let own_new = rotate(&env, s(&own, "id"), &["--grace", "1h"]);
    let plain_new = rotate(&env, s(&plain, "id"), &["--grace", "1h"]);
    let server = Server::start_with(&env, &["--rate-limit", "2/min"]);
    for (old, new) in [(&own, &own_new), (&plain, &plain_new)] {
        let (o, n) = (s(old, "key"), s(new, "key"));
        let r = server.get("/api/v1/api-keys", o);
        assert_eq!(
            (r.status, r.header("RateLimit-Remaining")),
            (200, Some("1"))
        );
        let r = server.get("/api/v1/api-keys", n);
        assert_eq!(
            (r.status, r.header("RateLimit-Remaining")),
            (200, Some("0"))
        );
        for key in [o, n] {
            assert_eq!(
                server.get("/api/v1/api-keys", key).status,
                429,
                "{}",
                old["name"]
            );
        }
    }
}

/// Old and new keys of one budget racing through three instances on one database spend it
/// exactly, as one key does (`leaks::three_instances_honour_max_uses_exactly`).
#[test]
fn racing_old_and_new_keys_spend_their_budget_exactly() {
    let env = Env::new();
    let old = env.create_key("ci", &["--max-uses", "60"]);
    let new = rotate(&env, s(&old, "id"), &["--grace", "1h"]);
    let keys = [s(&old, "key"), s(&new, "key")];
    let servers = [
        Server::start(&env),
        Server::start(&env),
        Server::start(&env),
    ];
    let barrier = std::sync::Barrier::new(30);
    let honoured: usize = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..30)
            .map(|i| {
                let (server, key, barrier) = (&servers[i % 3], keys[i % 2], &barrier);
                scope.spawn(move || {
                    barrier.wait();
                    let mut ok = 0;
                    loop {
                        let r = server.get("/api/v1/api-keys", key);
                        match r.status {
                            200 => ok += 1,
                            403 if r.error_code() == "KEY_EXHAUSTED" => return ok,
                            _ => panic!("{r:?}"),
                        }
                    }
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).sum()
    });
    assert_eq!(honoured, 60);
    for k in env.list(&[]) {
        assert_eq!(k["remainingUses"], 0, "{k}");
    }
}

/// The `keys` commands seal and open no webhook secret: once the database records its secrets
/// key, they do not look for the key (a malformed `KEYHOOK_SECRETS_KEY` does not stop them,
/// while a webhook command is refused it); a database's first command, `keys create` too,
/// still gives the database its key (the key file made, its fingerprint recorded).
#[test]
fn keys_commands_do_not_load_the_secrets_key() {
    let env = Env::new();
    let config = env.dir.path().join("config");
    let with = |key: Option<&str>| {
        let mut c = env.cmd();
        c.env("XDG_CONFIG_HOME", &config);
        if let Some(k) = key {
            c.env("KEYHOOK_SECRETS_KEY", k);
        }
        c
    };
    let r = common::run(with(None).args(["keys", "create", "--name", "first", "--quiet"]));
    assert_eq!(r.code, 0, "{r:#?}");
    assert!(config.join("keyhook").join("secrets.key").exists());
    assert_eq!(env.sql_i64("SELECT count(*) FROM secrets_key"), 1);

    let r = common::run(with(Some("not-a-key")).args(["webhooks", "list"]));
    r.assert_error(2);
    assert!(r.stderr.contains("KEYHOOK_SECRETS_KEY"), "{}", r.stderr);
    for args in [
        &["keys", "create", "--name", "second", "--quiet"][..],
        &["keys", "list"],
    ] {
        let r = common::run(with(Some("not-a-key")).args(args));
        assert_eq!(r.code, 0, "{args:?}: {r:#?}");
    }
    assert_eq!(env.sql_i64("SELECT count(*) FROM api_keys"), 2);
}
