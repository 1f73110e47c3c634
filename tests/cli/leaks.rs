//! Keys for the leak era, through the real binary on both backends: checksummed
//! keys told from unknown ones by `keys verify` and the server, keys issued before checksums
//! still working, each key's own rate limit and number of uses (exact across three `serve`
//! instances), and `keys scan`.

use std::io::Write;
use std::process::Stdio;
use std::sync::Barrier;
use std::thread;

use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::common::{self, str_of as s, Env};
use crate::server::{Resp, Server};

fn message(r: &Resp) -> String {
    r.json()["error"]["message"]
        .as_str()
        .unwrap_or("")
        .to_string()
}

/// `key` with its last hex digit changed: a typo the checksum catches.
fn typo(key: &str) -> String {
    let last = if key.ends_with('0') { '1' } else { '0' };
    format!("{}{last}", &key[..66])
}

/// A key of the shape keyhook issued before keys carried a checksum, stored the way it was
/// then (no checksum flag), for the user `default`. Returns its plaintext.
fn legacy_key(env: &Env, name: &str) -> String {
    env.create_key("makes the user", &[]);
    let mut key;
    loop {
        let bytes: [u8; 32] = rand::random();
        key = format!("kp_{}", hex::encode(bytes));
        if !keyhook::auth::has_valid_checksum(&key) {
            break;
        }
    }
    let hash = hex::encode(Sha256::digest(key.as_bytes()));
    env.sql(&format!(
        "INSERT INTO api_keys (key_hash, id, user_id, name, key_prefix, permission,
            full_access, profile_ids, created_at)
         VALUES ('{hash}', 'legacy-{name}', 'default', '{name}', '{}', 'readwrite', TRUE,
            '[]', 1700000000000)",
        &key[..11]
    ));
    key
}

// ---------------------------------------------------------------------------------------------
// Checksums

#[test]
fn a_typo_is_told_from_an_unknown_key_by_verify_and_the_server() {
    let env = Env::new();
    let k = env.create_key("ci", &[]);
    let key = s(&k, "key");
    assert!(keyhook::auth::has_valid_checksum(key), "{key}");
    let server = Server::start(&env);
    let r = server.get("/api/v1/api-keys", &typo(key));
    assert_eq!(
        (r.status, r.error_code()),
        (401, "UNAUTHORIZED".into()),
        "{r:?}"
    );
    assert_eq!(message(&r), "API key checksum mismatch");
    let r = server.get("/api/v1/api-keys", &keyhook::auth::generate_key());
    assert_eq!((r.status, message(&r)), (401, "invalid API key".into()));
    assert_eq!(server.get("/api/v1/api-keys", key).status, 200);
    let r = env.verify(&typo(key), &[]);
    r.assert_error(4);
    assert_eq!(r.stderr, "keyhook: API key checksum mismatch\n");
}

/// While a key from before checksums is stored, it works and a token with a wrong checksum
/// is still looked up; once none is left, such a token is refused without a lookup. What
/// shows it from outside: with the keys table renamed away, a lookup fails (5xx), and a
/// refusal that needs none does not.
#[test]
fn keys_without_a_checksum_keep_working_and_then_no_lookup_happens() {
    let env = Env::new();
    let legacy = legacy_key(&env, "old");
    let fresh = env.create_key("new", &[]);
    let fresh = s(&fresh, "key").to_string();
    let server = Server::start(&env);
    assert_eq!(server.get("/api/v1/api-keys", &legacy).status, 200);
    let r = env.verify(&legacy, &[]);
    assert_eq!(r.code, 0, "{r:?}");
    let r = server.get("/api/v1/api-keys", &typo(&fresh));
    assert_eq!(message(&r), "API key checksum mismatch");

    let away = |on: bool| {
        let (from, to) = if on {
            ("api_keys", "api_keys_away")
        } else {
            ("api_keys_away", "api_keys")
        };
        env.sql(&format!("ALTER TABLE {from} RENAME TO {to}"));
    };
    // A legacy key is left: a wrong checksum is looked up, and the lookup fails.
    away(true);
    let r = server.get("/api/v1/api-keys", &typo(&fresh));
    assert!(r.status >= 500, "looked up: {r:?}");
    away(false);

    // The last one is deleted; the next wrong checksum teaches the server that none is left.
    let r = env.run(&["keys", "delete", "--yes", &legacy[..11]]);
    assert_eq!(r.code, 0, "{r:?}");
    let r = server.get("/api/v1/api-keys", &typo(&fresh));
    assert_eq!(message(&r), "API key checksum mismatch");
    away(true);
    let r = server.get("/api/v1/api-keys", &typo(&fresh));
    assert_eq!(
        (r.status, message(&r)),
        (401, "API key checksum mismatch".into()),
        "no lookup"
    );
    let r = server.get("/api/v1/api-keys", &keyhook::auth::generate_key());
    assert!(r.status >= 500, "a valid checksum is looked up: {r:?}");
    away(false);
    assert_eq!(server.get("/api/v1/api-keys", &fresh).status, 200);
}

// ---------------------------------------------------------------------------------------------
// Per-key limits

#[test]
fn a_key_with_its_own_rate_limit_gets_429_after_its_burst() {
    let env = Env::new();
    let own = env.create_key("own", &["--rate-limit", "2/min"]);
    let generous = env.create_key("generous", &["--rate-limit", "5/min"]);
    let plain = env.create_key("plain", &[]);
    assert_eq!(own["rateLimit"], "2/min");
    assert_eq!(plain["rateLimit"], Value::Null);
    // serve's default is 1/min: a key's own limit takes its place.
    let server = Server::start_with(&env, &["--rate-limit", "1/min"]);
    for left in ["1", "0"] {
        let r = server.get("/api/v1/api-keys", s(&own, "key"));
        assert_eq!(r.status, 200, "{r:?}");
        assert_eq!(r.header("RateLimit-Limit"), Some("2"));
        assert_eq!(r.header("RateLimit-Remaining"), Some(left));
    }
    let r = server.get("/api/v1/api-keys", s(&own, "key"));
    assert_eq!(
        (r.status, r.error_code()),
        (429, "RATE_LIMITED".into()),
        "{r:?}"
    );
    assert!(r.header("Retry-After").is_some());
    for _ in 0..5 {
        assert_eq!(
            server.get("/api/v1/api-keys", s(&generous, "key")).status,
            200
        );
    }
    assert_eq!(
        server.get("/api/v1/api-keys", s(&generous, "key")).status,
        429
    );
    assert_eq!(server.get("/api/v1/api-keys", s(&plain, "key")).status, 200);
    assert_eq!(server.get("/api/v1/api-keys", s(&plain, "key")).status, 429);
    // Without serve --rate-limit, a key's own limit still holds.
    drop(server);
    let server = Server::start(&env);
    let limited = env.create_key("limited", &["--rate-limit", "1/min"]);
    assert_eq!(
        server.get("/api/v1/api-keys", s(&limited, "key")).status,
        200
    );
    assert_eq!(
        server.get("/api/v1/api-keys", s(&limited, "key")).status,
        429
    );
    let r = server.get("/api/v1/api-keys", s(&plain, "key"));
    assert_eq!((r.status, r.header("RateLimit-Limit")), (200, None));
}

#[test]
fn max_uses_are_spent_by_requests_and_then_the_key_is_exhausted() {
    let env = Env::new();
    let k = env.create_key("three", &["--max-uses", "3"]);
    assert_eq!(k["remainingUses"], 3);
    let key = s(&k, "key");
    // Checking a key uses none of its uses.
    assert_eq!(env.verify(key, &[]).code, 0);
    let server = Server::start(&env);
    for _ in 0..3 {
        let r = server.get("/api/v1/api-keys", key);
        assert_eq!(r.status, 200, "{r:?}");
    }
    let r = server.get("/api/v1/api-keys", key);
    assert_eq!(
        (r.status, r.error_code()),
        (403, "KEY_EXHAUSTED".into()),
        "{r:?}"
    );
    assert_eq!(message(&r), "API key has no uses left");
    // Also for a write, before its permission or body is looked at.
    let r = server.post_json("/api/v1/api-keys", key, &json!({"bad": 1}));
    assert_eq!(r.error_code(), "KEY_EXHAUSTED");
    let list = env.list(&[]);
    let shown = list.iter().find(|x| x["id"] == k["id"]).unwrap();
    assert_eq!(shown["remainingUses"], 0);
    let r = env.run(&["keys", "show", s(&k, "keyPrefix")]);
    assert!(r.stdout.contains("none (exhausted)"), "{}", r.stdout);
    let r = env.verify(key, &[]);
    r.assert_error(4);
    assert_eq!(r.stderr, "keyhook: API key has no uses left\n");
    let (status, v) = {
        let r = common::run(
            env.cmd()
                .args(["--json", "keys", "verify"])
                .write_stdin(key.to_string()),
        );
        (r.code, r.json())
    };
    assert_eq!(status, 4);
    assert_eq!(v["error"]["code"], "KEY_EXHAUSTED");

    // A request refused for its rate uses none.
    let k = env.create_key("slow", &["--max-uses", "5", "--rate-limit", "1/min"]);
    assert_eq!(server.get("/api/v1/api-keys", s(&k, "key")).status, 200);
    assert_eq!(server.get("/api/v1/api-keys", s(&k, "key")).status, 429);
    let shown = env.run(&["--json", "keys", "show", s(&k, "id")]).json();
    assert_eq!(shown["data"]["remainingUses"], 4);
}

/// Three instances on one database, 50 clients racing with a key of 100 uses: exactly 100
/// requests are honoured, the others get 403 KEY_EXHAUSTED. On SQLite, three processes on
/// one file; on PostgreSQL, three instances on one database.
#[test]
fn three_instances_honour_max_uses_exactly() {
    let env = Env::new();
    let k = env.create_key("hundred", &["--max-uses", "100"]);
    let key = s(&k, "key");
    let servers = [
        Server::start(&env),
        Server::start(&env),
        Server::start(&env),
    ];
    let barrier = Barrier::new(50);
    let outcomes: Vec<(usize, usize)> = thread::scope(|scope| {
        let handles: Vec<_> = (0..50)
            .map(|i| {
                let (server, barrier) = (&servers[i % 3], &barrier);
                scope.spawn(move || {
                    barrier.wait();
                    let (mut ok, mut exhausted) = (0, 0);
                    loop {
                        let r = server.get("/api/v1/api-keys", key);
                        match r.status {
                            200 => ok += 1,
                            403 if r.error_code() == "KEY_EXHAUSTED" => {
                                exhausted += 1;
                                break;
                            }
                            _ => panic!("{r:?}"),
                        }
                    }
                    (ok, exhausted)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let honoured: usize = outcomes.iter().map(|(ok, _)| ok).sum();
    assert_eq!(honoured, 100, "{outcomes:?}");
    assert_eq!(
        env.sql_i64(&format!(
            "SELECT remaining_uses FROM key_budgets WHERE id = '{}'",
            s(&k, "id")
        )),
        0
    );
}

#[test]
fn a_key_gives_no_higher_rate_limit_and_no_more_uses_than_it_has() {
    let env = Env::new();
    let parent = env.create_key("parent", &["--rate-limit", "10/s", "--max-uses", "50"]);
    let key = s(&parent, "key");
    let server = Server::start(&env);
    let create = |body: Value| server.post_json("/api/v1/api-keys", key, &body);
    let r = create(json!({"name": "ok", "rateLimit": "5/s", "remainingUses": 40}));
    assert_eq!(r.status, 201, "{r:?}");
    assert_eq!(r.data()["rateLimit"], "5/s");
    assert_eq!(r.data()["remainingUses"], 40);
    for (body, field) in [
        (
            json!({"name": "x", "rateLimit": "20/s", "remainingUses": 1}),
            "rateLimit",
        ),
        (
            json!({"name": "x", "rateLimit": "600/min", "remainingUses": 1}),
            "rateLimit",
        ),
        (json!({"name": "x", "remainingUses": 1}), "rateLimit"),
        (
            json!({"name": "x", "rateLimit": "1/s", "remainingUses": 1000}),
            "remainingUses",
        ),
        (json!({"name": "x", "rateLimit": "1/s"}), "remainingUses"),
    ] {
        let r = create(body.clone());
        assert_eq!(
            (r.status, r.error_code()),
            (403, "FORBIDDEN".into()),
            "{body}: {r:?}"
        );
        assert_eq!(
            r.json()["error"]["details"][0]["field"],
            field,
            "{body}: {r:?}"
        );
    }
    // Bad values are 400, named as the request names them.
    for (body, field) in [
        (json!({"name": "x", "rateLimit": "0/s"}), "rateLimit"),
        (json!({"name": "x", "rateLimit": 5}), "rateLimit"),
        (json!({"name": "x", "remainingUses": 0}), "remainingUses"),
        (json!({"name": "x", "remainingUses": "5"}), "remainingUses"),
    ] {
        let r = create(body.clone());
        assert_eq!(
            (r.status, r.error_code()),
            (400, "VALIDATION_ERROR".into()),
            "{body}: {r:?}"
        );
        assert_eq!(r.json()["error"]["details"][0]["field"], field);
    }
    // The CLI names its flags; --json the API's fields.
    for (args, flag, field) in [
        (vec!["--max-uses", "0"], "--max-uses", "remainingUses"),
        (vec!["--max-uses", "many"], "--max-uses", "remainingUses"),
        (vec!["--rate-limit", "fast"], "--rate-limit", "rateLimit"),
    ] {
        let mut all = vec!["keys", "create", "--name", "n"];
        all.extend(args);
        let r = env.run(&all);
        r.assert_error(2);
        assert!(r.stderr.contains(flag), "{}", r.stderr);
        let mut json_args = vec!["--json"];
        json_args.extend(all);
        let r = env.run(&json_args);
        assert_eq!(r.json()["error"]["details"][0]["field"], field);
    }
}

#[test]
fn rotation_copies_the_rate_limit_and_the_uses_left() {
    let env = Env::new();
    let k = env.create_key("ci", &["--rate-limit", "30/min", "--max-uses", "9"]);
    let server = Server::start(&env);
    assert_eq!(server.get("/api/v1/api-keys", s(&k, "key")).status, 200);
    let (code, v) = env.json(&["keys", "rotate", s(&k, "id")]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["data"]["rateLimit"], "30/min");
    assert_eq!(v["data"]["remainingUses"], 8);
    let r = env.run(&["keys", "list"]);
    assert!(
        r.stdout.contains("RATE LIMIT") && r.stdout.contains("30/min"),
        "{}",
        r.stdout
    );
}

// ---------------------------------------------------------------------------------------------
// keys scan

/// A tree with keys in text, JSON, a percent-encoded URL, a huge line, a binary file and
/// .git/objects.
struct Tree {
    dir: tempfile::TempDir,
}

impl Tree {
    fn path(&self, rel: &str) -> std::path::PathBuf {
        self.dir.path().join(rel)
    }

    fn write(&self, rel: &str, bytes: &[u8]) {
        let p = self.path(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, bytes).unwrap();
    }
}

fn scan_json(r: &common::Run) -> Vec<Value> {
    r.stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect()
}

#[test]
fn scan_finds_keys_in_a_tree_and_says_what_each_is() {
    let env = Env::new();
    let active = env.create_key("deploy", &[]);
    let other_user = {
        let r = env.run(&[
            "--user", "bob", "--json", "keys", "create", "--name", "bobs",
        ]);
        r.json()["data"].clone()
    };
    let expiring = env.create_key("short", &["--expires-at", "2100-01-01T00:00:00Z"]);
    env.sql(&format!(
        "UPDATE api_keys SET expires_at = 1000 WHERE id = '{}'",
        s(&expiring, "id")
    ));
    let (a, b, e) = (
        s(&active, "key"),
        s(&other_user, "key"),
        s(&expiring, "key"),
    );
    let unknown = keyhook::auth::generate_key();
    let t = Tree {
        dir: tempfile::tempdir().unwrap(),
    };
    t.write(
        "logs/app.log",
        format!("start\nAuthorization: Bearer {a}\nend\n").as_bytes(),
    );
    t.write(
        "config.json",
        format!("{{\n  \"key\": \"{b}\",\n  \"old\": \"{e}\"\n}}\n").as_bytes(),
    );
    let encoded: String = a.bytes().map(|c| format!("%{c:02X}")).collect();
    t.write(
        "urls.txt",
        format!(
            "GET /hook?token=kp%5F{}\nGET /x?k={encoded}&y=1\n",
            &unknown[3..]
        )
        .as_bytes(),
    );
    // A line of 3 MiB, longer than the scanner's buffer, with a key at its end.
    let mut huge = vec![b'x'; 3 << 20];
    huge.extend_from_slice(b.as_bytes());
    t.write("big/one-line.txt", &huge);
    t.write(
        "image.bin",
        &[b"\x89PNG\0\0".as_slice(), a.as_bytes()].concat(),
    );
    t.write(".git/objects/ab/cdef", a.as_bytes());
    t.write(".git/config", b"[core]\n");

    let root = t.dir.path().to_str().unwrap();
    let r = env.run(&["--json", "keys", "scan", root]);
    assert_eq!(r.code, 4, "{r:?}");
    let found: Vec<(String, String, String, String)> = scan_json(&r)
        .iter()
        .map(|f| {
            (
                f["foundIn"]
                    .as_str()
                    .unwrap()
                    .trim_start_matches(root)
                    .to_string(),
                f["keyPrefix"].as_str().unwrap().to_string(),
                f["status"].as_str().unwrap().to_string(),
                f["checksum"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let row = |at: &str, key: &str, status: &str| {
        (
            at.to_string(),
            key[..11].to_string(),
            status.to_string(),
            "valid".to_string(),
        )
    };
    assert_eq!(
        found,
        [
            row("/big/one-line.txt:1", b, "active"),
            row("/config.json:2", b, "active"),
            row("/config.json:3", e, "expired"),
            row("/logs/app.log:2", a, "active"),
            row("/urls.txt:1", &unknown, "unknown"),
            row("/urls.txt:2", a, "active"),
        ]
    );
    let first = &scan_json(&r)[0];
    assert_eq!(first["userId"], "bob");
    assert_eq!(first["name"], "bobs");
    // Never a whole key, on either stream, in either format.
    let human = env.run(&["keys", "scan", root]);
    assert_eq!(human.code, 4);
    assert!(
        human.stdout.contains("/logs/app.log:2: "),
        "{}",
        human.stdout
    );
    assert!(
        human.stderr.contains("2 active keys found"),
        "{}",
        human.stderr
    );
    for out in [&r.stdout, &r.stderr, &human.stdout, &human.stderr] {
        for k in [a, b, e, unknown.as_str()] {
            assert!(!out.contains(&k[11..]), "a key is printed whole: {out}");
        }
    }
    // A wrong checksum is reported as such.
    t.write("typo.txt", typo(a).as_bytes());
    let r = env.run(&[
        "--json",
        "keys",
        "scan",
        t.path("typo.txt").to_str().unwrap(),
    ]);
    assert_eq!(r.code, 0, "{r:?}");
    let f = &scan_json(&r)[0];
    assert_eq!(
        (f["checksum"].as_str(), f["status"].as_str()),
        (Some("invalid"), Some("unknown"))
    );
    // A binary file named on the command line is read.
    let r = env.run(&[
        "--json",
        "keys",
        "scan",
        t.path("image.bin").to_str().unwrap(),
    ]);
    assert_eq!(r.code, 4, "{r:?}");
}

#[test]
fn scan_reads_standard_input_and_exits_by_what_it_found() {
    let env = Env::new();
    let k = env.create_key("ci", &[]);
    let key = s(&k, "key");
    let scan = |input: String, args: &[&str]| {
        common::run(
            env.cmd()
                .args(["keys", "scan"])
                .args(args)
                .write_stdin(input),
        )
    };
    let r = scan(format!("diff --git a/x b/x\n+KEY={key}\n"), &["-"]);
    assert_eq!(r.code, 4, "{r:?}");
    assert!(r.stdout.starts_with("-:2: "), "{}", r.stdout);
    let r = scan("nothing here\n".into(), &["-"]);
    assert_eq!((r.code, r.stdout.as_str()), (0, ""), "{r:?}");
    // Without a PATH, piped standard input is read.
    assert_eq!(scan(key.to_string(), &[]).code, 4);
    // Usage errors.
    for args in [vec!["/no/such/path"], vec!["-", "-"]] {
        let r = scan(String::new(), &args);
        r.assert_error(2);
    }
    // --yes belongs to --revoke.
    let r = scan(key.to_string(), &["--yes"]);
    assert_eq!(r.code, 2, "{r:?}");
    assert!(r.stderr.contains("--revoke"), "{}", r.stderr);
}

#[test]
fn scan_revoke_deletes_each_active_key_once_with_an_audit_entry() {
    let env = Env::new();
    let a = env.create_key("a", &[]);
    let b = env.create_key("b", &[]);
    let keep = env.create_key("keep", &[]);
    let input = format!(
        "{}\n{}\nagain {}\n",
        s(&a, "key"),
        s(&b, "key"),
        s(&a, "key")
    );
    let scan = |args: &[&str]| {
        common::run(
            env.cmd()
                .args(["keys", "scan", "-"])
                .args(args)
                .write_stdin(input.clone()),
        )
    };
    // No terminal and no --yes: refused before anything is deleted.
    let r = scan(&["--revoke"]);
    assert_eq!(r.code, 2, "{r:?}");
    assert!(r.stderr.contains("--yes"), "{}", r.stderr);
    assert_eq!(env.list(&[]).len(), 3);
    let r = scan(&["--revoke", "--yes"]);
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(r.stderr.matches("Revoked").count(), 2, "{}", r.stderr);
    let left: Vec<Value> = env.list(&[]);
    assert_eq!(left.len(), 1);
    assert_eq!(left[0]["id"], keep["id"]);
    let (_, audit) = env.json(&["audit"]);
    let deleted: Vec<&Value> = audit["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["action"] == "key.deleted")
        .collect();
    assert_eq!(deleted.len(), 2, "revoked once each: {audit}");
    for (k, at) in [(&a, "-:1"), (&b, "-:2")] {
        let e = deleted.iter().find(|e| e["target"] == k["id"]).unwrap();
        assert_eq!(e["details"]["reason"], "leaked");
        assert_eq!(e["details"]["foundIn"], at);
    }
    // Found again: unknown now, nothing to revoke, exit 0.
    let r = scan(&["--revoke", "--yes"]);
    assert_eq!(r.code, 0, "{r:?}");
    assert!(r.stdout.contains("unknown"), "{}", r.stdout);
}

#[test]
fn scan_asks_on_a_terminal_before_revoking() {
    let env = Env::new();
    let k = env.create_key("a", &[]);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("leak.txt");
    std::fs::write(&path, s(&k, "key")).unwrap();
    let file = path.to_str().unwrap().to_string();
    let Some(r) = common::on_terminal(
        &env,
        &["keys", "scan", &file, "--revoke"],
        "Revoke 1 active key",
        "n\n",
    ) else {
        return;
    };
    assert_ne!(r.code, 0, "{r:?}");
    assert_eq!(env.list(&[]).len(), 1, "nothing revoked");
    let Some(r) = common::on_terminal(
        &env,
        &["keys", "scan", &file, "--revoke"],
        "Revoke 1 active key",
        "y\n",
    ) else {
        return;
    };
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(env.list(&[]).len(), 0);
}

/// A single line far longer than memory should hold streams through in bounded memory:
/// 256 MiB without a newline on standard input, with keys in it, and the process's peak
/// resident memory read while it still runs.
#[test]
fn scan_streams_a_huge_single_line_in_bounded_memory() {
    let env = Env::new();
    let k = env.create_key("deep", &[]);
    let key = s(&k, "key").to_string();
    let mut child = common::std_cmd()
        .arg("--db")
        .arg(env.db_arg())
        .args(["--json", "keys", "scan", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let mut stdin = child.stdin.take().unwrap();
    // Not a hex digit: a key glued to a longer hex run would be no key.
    let chunk = vec![b'x'; 1 << 20];
    for i in 0..256 {
        stdin.write_all(&chunk).unwrap();
        if i % 64 == 63 {
            stdin.write_all(key.as_bytes()).unwrap();
        }
    }
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let peak_kib: u64 = status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|n| n.parse().ok())
        .unwrap();
    assert_eq!(out.status.code(), Some(4));
    let lines: Vec<&str> = std::str::from_utf8(&out.stdout).unwrap().lines().collect();
    assert_eq!(lines.len(), 4, "{lines:?}");
    assert!(lines.iter().all(|l| l.contains("\"foundIn\":\"-:1\"")));
    assert!(
        peak_kib < 48 * 1024,
        "peak RSS {peak_kib} KiB for a 256 MiB line"
    );
}

// ---------------------------------------------------------------------------------------------
// What docs/keys.md gives secret scanners

/// The fenced block of `lang` after `heading` in docs/keys.md.
fn doc_block(heading: &str, lang: &str) -> String {
    let page =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/keys.md")).unwrap();
    let section = &page[page.find(heading).unwrap_or_else(|| panic!("no {heading}"))..];
    let start = section.find(&format!("```{lang}\n")).unwrap() + lang.len() + 4;
    let len = section[start..].find("```").unwrap();
    section[start..start + len].to_string()
}

/// Keys (valid), each with a one-character typo (invalid), and other tokens (invalid).
fn samples() -> Vec<(String, bool)> {
    let mut out = Vec::new();
    for _ in 0..20 {
        let k = keyhook::auth::generate_key();
        out.push((typo(&k), false));
        out.push((format!("{}{}", &k[..30], &k[31..]), false));
        out.push((k, true));
    }
    out.push((format!("kp_{}", "0".repeat(64)), false));
    out.push(("hello".into(), false));
    out
}

#[test]
fn the_python_verifier_of_the_docs_runs_and_agrees_with_keyhook() {
    let code = doc_block("## Checksums", "python");
    assert!(code.lines().count() <= 10, "ten lines at most:\n{code}");
    let python = match std::process::Command::new("python3")
        .arg("--version")
        .output()
    {
        Ok(o) if o.status.success() => "python3",
        _ => {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "python3 is needed"
            );
            eprintln!("skipped: no python3");
            return;
        }
    };
    let samples = samples();
    let input: String = samples.iter().map(|(t, _)| format!("{t}\n")).collect();
    let out = std::process::Command::new(python)
        .args(["-c", &code])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            c.stdin.take().unwrap().write_all(input.as_bytes())?;
            c.wait_with_output()
        })
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let lines: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    assert_eq!(lines.len(), samples.len());
    for ((token, valid), line) in samples.iter().zip(&lines) {
        let want = format!(
            "{} {}",
            &token[..token.len().min(11)],
            if *valid { "valid" } else { "invalid" }
        );
        assert_eq!(line, &want, "{token}");
        assert_eq!(keyhook::auth::has_valid_checksum(token), *valid, "{token}");
    }
}

/// The regular expression of the docs and of docs/gitleaks.toml (gitleaks's Go regexp and
/// Rust's regex read it alike) finds generated keys in text, whole, and no longer hex run.
/// gitleaks itself runs on it when it is installed (Debian has no package of it).
#[test]
fn the_gitleaks_rule_finds_generated_keys() {
    let toml = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/gitleaks.toml"))
        .unwrap();
    let pattern = toml
        .lines()
        .find_map(|l| l.strip_prefix("regex = '''")?.strip_suffix("'''"))
        .expect("a regex line");
    let re = regex::Regex::new(pattern).unwrap();
    let plain = doc_block("For secret scanners", "text");
    assert!(
        pattern.contains(plain.trim()),
        "{pattern} has the docs' {plain}"
    );
    let keys: Vec<String> = (0..20).map(|_| keyhook::auth::generate_key()).collect();
    for k in &keys {
        for text in [
            format!("KEY={k}\n"),
            format!("{{\"token\": \"{k}\"}}"),
            format!("Authorization: Bearer {k}"),
            k.clone(),
        ] {
            let found: Vec<&str> = re
                .captures_iter(&text)
                .map(|c| c.get(1).unwrap().as_str())
                .collect();
            assert_eq!(found, [k.as_str()], "{text}");
        }
        assert!(!re.is_match(&format!("{k}0")), "a longer hex run is no key");
        assert!(!re.is_match(&k.to_uppercase()));
    }
    let gitleaks = std::process::Command::new("gitleaks")
        .arg("version")
        .output();
    if !gitleaks.is_ok_and(|o| o.status.success()) {
        eprintln!("gitleaks is not installed (Debian has no package): checked the rule's regex");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let body: String = keys.iter().map(|k| format!("export KEY={k}\n")).collect();
    std::fs::write(dir.path().join("leak.env"), body).unwrap();
    let report = dir.path().join("report.json");
    let out = std::process::Command::new("gitleaks")
        .args([
            "detect",
            "--no-git",
            "--no-banner",
            "--exit-code",
            "0",
            "--config",
        ])
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/gitleaks.toml"))
        .arg("--source")
        .arg(dir.path())
        .arg("--report-path")
        .arg(&report)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let findings: Vec<Value> = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    let mine = findings
        .iter()
        .filter(|f| f["RuleID"] == "keyhook-api-key")
        .count();
    assert_eq!(mine, keys.len(), "{findings:?}");
}
