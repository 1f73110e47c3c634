//! The audit log: every change to keys and webhooks appends
//! an entry in its own transaction, from the CLI (`cli:<login>`), over HTTP (the acting key's
//! prefix) and by the worker (`system`); `keyhook audit` and GET /api/v1/audit read it; it
//! never holds a plaintext key or a secret.

use serde_json::{json, Value};

use crate::common::{std_cmd, str_of, Env};
use crate::receiver::Receiver;
use crate::server::Server;

const AUDIT: &str = "/api/v1/audit";

/// The login name the CLI records: the password database's name for our uid.
fn login() -> String {
    let out = std_cmd_id();
    format!("cli:{out}")
}

fn std_cmd_id() -> String {
    let out = std::process::Command::new("id")
        .arg("-un")
        .output()
        .expect("run id -un");
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// `keyhook --json [--user USER] audit ARGS`'s entries, newest first.
fn audit(env: &Env, args: &[&str]) -> Vec<Value> {
    let (code, v) = env.json(&[&["audit"], args].concat());
    assert_eq!(code, 0, "audit {args:?}: {v}");
    v["data"].as_array().expect("a list").clone()
}

/// (actor, via, action, target) of each entry, oldest first.
fn trail(entries: &[Value]) -> Vec<(String, String, String, String)> {
    let mut out: Vec<_> = entries
        .iter()
        .map(|e| {
            (
                str_of(e, "actor").to_string(),
                str_of(e, "via").to_string(),
                str_of(e, "action").to_string(),
                str_of(e, "target").to_string(),
            )
        })
        .collect();
    out.reverse();
    out
}

fn entry(actor: &str, via: &str, action: &str, target: &str) -> (String, String, String, String) {
    (actor.into(), via.into(), action.into(), target.into())
}

#[test]
fn every_cli_change_is_audited_as_the_login_name() {
    let env = Env::new();
    let me = login();
    let key = env.create_key("ci", &["--permission", "readonly"]);
    let id = str_of(&key, "id").to_string();
    let (code, v) = env.json(&["keys", "rotate", &id, "--grace", "1h"]);
    assert_eq!(code, 0, "{v}");
    let new_id = str_of(&v["data"], "id").to_string();
    let (code, v) = env.json(&["keys", "delete", &new_id, "--yes"]);
    assert_eq!(code, 0, "{v}");
    let w = env.create_webhook("http://127.0.0.1:9/hook", "post.published");
    let wid = str_of(&w, "id").to_string();
    for cmd in ["disable", "enable"] {
        let (code, v) = env.json(&["webhooks", cmd, &wid]);
        assert_eq!(code, 0, "{v}");
    }
    let (code, v) = env.json(&["webhooks", "delete", &wid, "--yes"]);
    assert_eq!(code, 0, "{v}");

    let entries = audit(&env, &[]);
    assert_eq!(
        trail(&entries),
        [
            entry(&me, "cli", "key.created", &id),
            entry(&me, "cli", "key.rotated", &id),
            entry(&me, "cli", "key.deleted", &new_id),
            entry(&me, "cli", "webhook.created", &wid),
            entry(&me, "cli", "webhook.disabled", &wid),
            entry(&me, "cli", "webhook.enabled", &wid),
            entry(&me, "cli", "webhook.deleted", &wid),
        ]
    );
    // The shape, and details that say what changed.
    for e in &entries {
        let mut fields: Vec<&String> = e.as_object().unwrap().keys().collect();
        fields.sort();
        assert_eq!(
            fields,
            ["action", "actor", "at", "details", "id", "target", "userId", "via"],
            "{e}"
        );
        assert_eq!(e["userId"], "default");
        assert!(e["details"].is_object(), "{e}");
    }
    let created = &entries[6];
    assert_eq!(created["details"]["name"], "ci");
    assert_eq!(created["details"]["permission"], "readonly");
    let rotated = &entries[5];
    assert_eq!(rotated["details"]["newKeyId"], json!(new_id));
    assert_eq!(
        entries[3]["details"]["url"], "http://127.0.0.1:9/hook",
        "{}",
        entries[3]
    );
    // Newest first: ids and times never go up down the list.
    for pair in entries.windows(2) {
        assert!(pair[0]["id"].as_i64() > pair[1]["id"].as_i64(), "{pair:?}");
        assert!(str_of(&pair[0], "at") >= str_of(&pair[1], "at"));
    }
}

#[test]
fn every_http_change_is_audited_as_the_acting_keys_prefix() {
    let env = Env::new();
    let admin = env.create_key("admin", &[]);
    let admin_key = str_of(&admin, "key").to_string();
    let prefix = str_of(&admin, "keyPrefix").to_string();
    let server = Server::start_with(&env, &["--allow-private-targets"]);

    let r = server.post_json("/api/v1/api-keys", &admin_key, &json!({"name": "child"}));
    assert_eq!(r.status, 201, "{r:?}");
    let child = str_of(&r.data(), "id").to_string();
    let r = server.delete(&format!("/api/v1/api-keys/{child}"), &admin_key);
    assert_eq!(r.status, 204, "{r:?}");
    let r = server.post_json(
        "/api/v1/webhooks",
        &admin_key,
        &json!({"url": "http://127.0.0.1:9/a", "events": ["post.published"]}),
    );
    assert_eq!(r.status, 201, "{r:?}");
    let wid = str_of(&r.data(), "id").to_string();
    let patch = |body: Value| {
        server.send(
            "PATCH",
            &format!("/api/v1/webhooks/{wid}"),
            &[
                ("Authorization", &format!("Bearer {admin_key}")),
                ("Content-Type", "application/json"),
            ],
            Some(body.to_string().as_bytes()),
        )
    };
    assert_eq!(patch(json!({"url": "http://127.0.0.1:9/b"})).status, 200);
    assert_eq!(patch(json!({"isActive": false})).status, 200);
    assert_eq!(patch(json!({"isActive": true})).status, 200);
    let r = server.delete(&format!("/api/v1/webhooks/{wid}"), &admin_key);
    assert_eq!(r.status, 204, "{r:?}");

    let r = server.get(AUDIT, &admin_key);
    assert_eq!(r.status, 200, "{r:?}");
    let entries = r.data().as_array().unwrap().clone();
    let mut want = vec![entry(&login(), "cli", "key.created", str_of(&admin, "id"))];
    for (action, target) in [
        ("key.created", child.as_str()),
        ("key.deleted", &child),
        ("webhook.created", &wid),
        ("webhook.updated", &wid),
        ("webhook.disabled", &wid),
        ("webhook.enabled", &wid),
        ("webhook.deleted", &wid),
    ] {
        want.push(entry(&prefix, "http", action, target));
    }
    assert_eq!(trail(&entries), want);
    assert_eq!(entries[3]["details"]["url"], "http://127.0.0.1:9/b");
    // The CLI lists the same entries.
    assert_eq!(audit(&env, &[]), entries);
}

#[test]
fn the_automatic_disable_is_audited_as_system_by_the_worker() {
    let env = Env::new();
    let rx = Receiver::start();
    rx.set_status(500);
    let w = env.create_webhook(&rx.url("/fail"), "post.published");
    let wid = str_of(&w, "id").to_string();
    for _ in 0..10 {
        let (code, v) = env.json(&["events", "emit", "post.published"]);
        assert_eq!(code, 0, "{v}");
    }
    env.deliver_once_no_retry();
    let (code, v) = env.json(&["webhooks", "show", &wid]);
    assert_eq!(code, 0);
    assert_eq!(v["data"]["isActive"], false, "{v}");

    let entries = audit(&env, &[]);
    let disabled: Vec<&Value> = entries
        .iter()
        .filter(|e| e["action"] == "webhook.disabled")
        .collect();
    assert_eq!(disabled.len(), 1, "{entries:#?}");
    assert_eq!(disabled[0]["actor"], "system");
    assert_eq!(disabled[0]["via"], "worker");
    assert_eq!(disabled[0]["target"], json!(wid));
    assert_eq!(disabled[0]["userId"], "default");
    assert_eq!(disabled[0]["details"]["failCount"], 10);

    // A further failure of the disabled webhook (a test ping) disables nothing again.
    let (code, _) = env.json(&["--allow-private-targets", "webhooks", "test", &wid]);
    assert_eq!(code, 1);
    let again = audit(&env, &[]);
    assert_eq!(
        again
            .iter()
            .filter(|e| e["action"] == "webhook.disabled")
            .count(),
        1
    );
}

#[test]
fn a_refused_change_writes_no_entry() {
    let env = Env::new();
    for i in 0..10 {
        env.create_webhook(&format!("http://127.0.0.1:9/{i}"), "post.published");
    }
    let before = env.count_rows("audit_log");
    assert_eq!(before, 10);
    // The eleventh webhook is refused by the limit, inside the transaction.
    let (code, v) = env.json(&[
        "--allow-private-targets",
        "webhooks",
        "create",
        "--url",
        "http://127.0.0.1:9/eleven",
        "--event",
        "post.published",
    ]);
    assert_eq!(code, 5, "{v}");
    assert_eq!(env.count_rows("audit_log"), before);

    // A readonly key's refused delete, a key that is not broader's refused rotate.
    let ro = env.create_key("ro", &["--permission", "readonly"]);
    let rw = env.create_key("rw", &[]);
    let before = env.count_rows("audit_log");
    let server = Server::start(&env);
    let r = server.delete(
        &format!("/api/v1/api-keys/{}", str_of(&rw, "id")),
        str_of(&ro, "key"),
    );
    assert_eq!(r.status, 403, "{r:?}");
    let r = server.post_json(
        "/api/v1/api-keys",
        str_of(&ro, "key"),
        &json!({"name": "x", "permission": "readwrite"}),
    );
    assert_eq!(r.status, 403, "{r:?}");
    assert_eq!(env.count_rows("audit_log"), before);
}

#[test]
fn the_audit_table_never_holds_a_key_or_a_secret() {
    let env = Env::new();
    let first = env.create_key("one", &[]);
    let (code, v) = env.json(&["keys", "rotate", str_of(&first, "id"), "--grace", "1h"]);
    assert_eq!(code, 0, "{v}");
    let rotated = v["data"].clone();
    let w = env.create_webhook("http://127.0.0.1:9/hook", "post.published");
    let server = Server::start_with(&env, &["--allow-private-targets"]);
    let r = server.post_json(
        "/api/v1/api-keys",
        str_of(&rotated, "key"),
        &json!({"name": "over http"}),
    );
    assert_eq!(r.status, 201, "{r:?}");
    let child = r.data();
    let r = server.post_json(
        "/api/v1/webhooks",
        str_of(&child, "key"),
        &json!({"url": "http://127.0.0.1:9/two", "events": ["post.published"]}),
    );
    assert_eq!(r.status, 201, "{r:?}");
    let w2 = r.data();

    let table: String = env
        .sql("SELECT id, user_id, at, actor, via, action, target, details FROM audit_log")
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join("|");
    assert_eq!(env.count_rows("audit_log"), 5, "{table}");
    for secret in [
        str_of(&first, "key"),
        str_of(&rotated, "key"),
        str_of(&child, "key"),
        str_of(&w, "secret"),
        str_of(&w2, "secret"),
    ] {
        assert!(!table.contains(secret), "{secret} is in the audit table");
        // Not even the random part alone (a key without its kp_, a secret without whsec_).
        let tail = &secret[secret.len() - 32..];
        assert!(
            !table.contains(tail),
            "part of {secret} is in the audit table"
        );
    }
}

#[test]
fn get_audit_lists_the_callers_user_only_to_any_valid_key() {
    let env = Env::new();
    let alice = env.create_key("a", &["--user", "alice"]);
    let alice_ro = env.create_key("ro", &["--user", "alice", "--permission", "readonly"]);
    let bob = env.create_key("b", &["--user", "bob"]);
    let server = Server::start(&env);

    let list = |key: &Value, query: &str| {
        let r = server.get(&format!("{AUDIT}{query}"), str_of(key, "key"));
        assert_eq!(r.status, 200, "{r:?}");
        r.data().as_array().unwrap().clone()
    };
    let of_alice = list(&alice_ro, "");
    assert_eq!(of_alice.len(), 2);
    assert!(of_alice.iter().all(|e| e["userId"] == "alice"));
    assert_eq!(list(&alice, ""), of_alice);
    let of_bob = list(&bob, "");
    assert_eq!(of_bob.len(), 1);
    assert_eq!(of_bob[0]["target"], bob["id"]);
    // limit and since.
    assert_eq!(list(&alice, "?limit=1"), of_alice[..1]);
    // Entries at or after `since` (a future one is refused: bad_audit_queries_...).
    let newest = of_alice[0]["at"].as_str().unwrap();
    let at_or_after: Vec<Value> = of_alice
        .iter()
        .filter(|e| e["at"].as_str().unwrap() >= newest)
        .cloned()
        .collect();
    assert_eq!(list(&alice, &format!("?since={newest}")), at_or_after);
    assert_eq!(list(&alice, "?since=1h&limit=1000"), of_alice);
    assert_eq!(list(&alice, "?since=2000-01-01T00:00:00%2B02:00"), of_alice);
    // No key, a wrong key: 401.
    assert_eq!(server.call("GET", AUDIT, None).status, 401);
    // Only the CLI lists every user.
    let all = audit(&env, &["--all-users"]);
    assert_eq!(all.len(), 3);
    assert_eq!(audit(&env, &["--user", "bob"]), of_bob);
    assert!(audit(&env, &[]).is_empty(), "the default user has none");
}

#[test]
fn bad_audit_queries_are_validation_errors() {
    let env = Env::new();
    let key = env.create_key("a", &[]);
    let server = Server::start(&env);
    for (query, field) in [
        ("?limit=0", "limit"),
        ("?limit=1001", "limit"),
        ("?limit=abc", "limit"),
        ("?limit=-1", "limit"),
        ("?limit=", "limit"),
        ("?since=soon", "since"),
        ("?since=0s", "since"),
        ("?since=2030-01-01", "since"),
        // Never in the future, as a replay's `since`.
        ("?since=2999-01-01T00:00:00Z", "since"),
        ("?limit=1&limit=2", "limit"),
        ("?before=1h", "before"),
        ("?since=%FF", "since"),
    ] {
        let r = server.get(&format!("{AUDIT}{query}"), str_of(&key, "key"));
        assert_eq!(r.status, 400, "{query}: {r:?}");
        let v = r.json();
        assert_eq!(v["error"]["code"], "VALIDATION_ERROR", "{query}");
        assert_eq!(v["error"]["details"][0]["field"], field, "{query}: {v}");
    }
    // Writing to it is not a thing.
    let r = server.post_json(AUDIT, str_of(&key, "key"), &json!({}));
    assert_eq!(r.status, 405, "{r:?}");
    assert_eq!(r.header("Allow"), Some("GET"));

    for args in [
        &["audit", "--since", "soon"][..],
        &["audit", "--since", ""],
        &["audit", "--since", "2999-01-01T00:00:00Z"],
        &["audit", "--limit", "0"],
        &["audit", "--limit", "1001"],
        &["audit", "--limit", "x"],
    ] {
        let r = env.run(args);
        r.assert_error(2);
        assert!(
            r.stderr.contains("--since") || r.stderr.contains("--limit"),
            "{args:?}: {r:#?}"
        );
    }
    let r = env.run(&["audit", "--since", "soon"]);
    assert!(r.stderr.contains("RFC 3339"), "{r:#?}");
}

#[test]
fn the_cli_login_name_comes_from_the_password_database_not_the_environment() {
    let env = Env::new();
    let out = std_cmd()
        .arg("--db")
        .arg(env.db_arg())
        .args(["keys", "create", "--name", "x", "--quiet"])
        .env("USER", "mallory")
        .env("LOGNAME", "mallory")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let entries = audit(&env, &[]);
    assert_eq!(entries[0]["actor"], json!(login()));
    assert_ne!(entries[0]["actor"], "cli:mallory");
}

#[test]
fn keys_removed_by_prune_are_audited_as_deleted() {
    let env = Env::with_clock();
    let old = env.create_key("nightly", &["--expires-in", "1h"]);
    env.advance_clock(3 * 3_600_000);
    let r = env.run(&["keys", "prune", "--expired-for", "1h", "--yes"]);
    assert_eq!(r.code, 0, "{r:#?}");
    let entries = audit(&env, &[]);
    assert_eq!(entries.len(), 2, "{entries:#?}");
    assert_eq!(entries[0]["action"], "key.deleted");
    assert_eq!(entries[0]["target"], old["id"]);
    assert_eq!(entries[0]["details"]["reason"], "pruned");
    assert_eq!(entries[0]["actor"], json!(login()));
    // The entry is dated by the clock the change was made on.
    assert!(str_of(&entries[0], "at") > str_of(&entries[1], "at"));
}

/// Delivery operations are audited too: a replay (`webhook.replayed`, with what it queued),
/// a secret rotation (`webhook.secret_rotated`, with its grace period and never a
/// secret), and a receiver's 410 Gone (`webhook.disabled` by `system` via `worker`, with the
/// reason), each in its change's transaction.
#[test]
fn replay_rotation_and_a_410_are_audited() {
    let env = Env::new();
    let me = login();
    let rx = Receiver::start();
    let w = env.create_webhook(&rx.url("/switch"), "post.published");
    let wid = str_of(&w, "id").to_string();
    let (code, v) = env.json(&["events", "emit", "post.published"]);
    assert_eq!(code, 0, "{v}");
    let (code, v) = env.json(&["webhooks", "replay", &wid, "--since", "1h"]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["data"]["queued"], 1, "{v}");
    let (code, v) = env.json(&["webhooks", "rotate-secret", &wid, "--grace", "1h"]);
    assert_eq!(code, 0, "{v}");
    let new_secret = str_of(&v["data"], "secret").to_string();
    rx.set_status(410);
    env.deliver_once_no_retry();

    let entries = audit(&env, &[]);
    let t = trail(&entries);
    assert_eq!(
        t,
        [
            entry(&me, "cli", "webhook.created", &wid),
            entry(&me, "cli", "webhook.replayed", &wid),
            entry(&me, "cli", "webhook.secret_rotated", &wid),
            entry("system", "worker", "webhook.disabled", &wid),
        ]
    );
    let replayed = &entries[2];
    assert_eq!(replayed["details"]["queued"], 1, "{replayed}");
    let rotated = &entries[1];
    assert_eq!(rotated["details"]["graceSeconds"], 3600, "{rotated}");
    let disabled = &entries[0];
    assert_eq!(disabled["details"]["reason"], "receiver answered 410 Gone");
    assert_eq!(disabled["details"]["statusCode"], 410);
    let all = serde_json::to_string(&entries).unwrap();
    assert!(!all.contains(&new_secret), "{all}");
    assert!(!all.contains(str_of(&w, "secret")), "{all}");
}

/// A change that changes nothing is not audited (an audit log records changes) and leaves
/// `updatedAt` alone: `enable` on an enabled webhook, `disable` on a disabled one, PATCH with
/// the same url, the same events, the `isActive` it has, or all three; a replay that queues
/// nothing. Enabling an active webhook whose `failCount` is not 0 resets it: that is a
/// change, `webhook.updated` with `failCount: 0`.
#[test]
fn changes_that_change_nothing_are_not_audited() {
    let env = Env::new();
    let me = login();
    let admin = env.create_key("admin", &[]);
    let admin_key = str_of(&admin, "key").to_string();
    let prefix = str_of(&admin, "keyPrefix").to_string();
    let w = env.create_webhook("http://127.0.0.1:9/a", "post.published");
    let wid = str_of(&w, "id").to_string();
    let updated_at = || {
        let (code, v) = env.json(&["webhooks", "show", &wid]);
        assert_eq!(code, 0, "{v}");
        str_of(&v["data"], "updatedAt").to_string()
    };
    let count = || audit(&env, &[]).len();
    let base = count();
    let at = updated_at();

    let (code, v) = env.json(&["webhooks", "enable", &wid]);
    assert_eq!((code, &v["data"]["isActive"]), (0, &json!(true)), "{v}");
    assert_eq!(count(), base, "enable on an enabled webhook");
    let server = Server::start_with(&env, &["--allow-private-targets"]);
    let patch = |body: Value| {
        let r = server.send(
            "PATCH",
            &format!("/api/v1/webhooks/{wid}"),
            &[
                ("Authorization", &format!("Bearer {admin_key}")),
                ("Content-Type", "application/json"),
            ],
            Some(body.to_string().as_bytes()),
        );
        assert_eq!(r.status, 200, "{body}: {r:?}");
        r.data()
    };
    for body in [
        json!({"isActive": true}),
        json!({"url": "http://127.0.0.1:9/a"}),
        json!({"events": ["post.published"]}),
        json!({"url": "http://127.0.0.1:9/a", "events": ["post.published"], "isActive": true}),
    ] {
        let data = patch(body.clone());
        assert_eq!(str_of(&data, "updatedAt"), at, "{body}");
        assert_eq!(count(), base, "{body}: {:#?}", audit(&env, &[]));
    }
    assert_eq!(updated_at(), at);
    let (code, v) = env.json(&["webhooks", "replay", &wid, "--since", "1h"]);
    assert_eq!((code, &v["data"]["queued"]), (0, &json!(0)), "{v}");
    assert_eq!(count(), base, "a replay that queued nothing");

    // The first disable is a change; the second is not.
    for _ in 0..2 {
        let (code, v) = env.json(&["webhooks", "disable", &wid]);
        assert_eq!(code, 0, "{v}");
    }
    assert_eq!(patch(json!({"isActive": false}))["isActive"], false);
    assert_eq!(count(), base + 1);
    assert_eq!(audit(&env, &[])[0]["action"], "webhook.disabled");
    let (code, _) = env.json(&["webhooks", "enable", &wid]);
    assert_eq!(code, 0);

    // failCount reset by an enable of an active webhook: audited as what changed.
    env.sql(&format!(
        "UPDATE webhooks SET fail_count = 3 WHERE id = '{wid}'"
    ));
    let data = patch(json!({"isActive": true}));
    assert_eq!(data["failCount"], 0, "{data}");
    let entries = audit(&env, &[]);
    assert_eq!(entries.len(), base + 3, "{entries:#?}");
    assert_eq!(
        trail(&entries[..3]),
        [
            entry(&me, "cli", "webhook.disabled", &wid),
            entry(&me, "cli", "webhook.enabled", &wid),
            entry(&prefix, "http", "webhook.updated", &wid),
        ]
    );
    assert_eq!(entries[0]["details"], json!({"failCount": 0}));
    let (code, _) = env.json(&["webhooks", "enable", &wid]);
    assert_eq!(code, 0);
    assert_eq!(audit(&env, &[]).len(), base + 3, "failCount is 0 again");
}
