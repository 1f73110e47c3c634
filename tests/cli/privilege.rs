//! Keys cannot reach past the key that acts: no lifetime escalation on create,
//! no revoking up over HTTP. A new key is written and flushed before it is committed, so a
//! failed write leaves nothing behind. `keys prune` removes keys expired long ago.

use std::process::Stdio;

use serde_json::{json, Value};

use crate::common::{is_key, millis, new_key, on_terminal, std_cmd, str_of as s, Env, Run};
use crate::server::Server;

fn expires_in(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(chrono::Utc::now().timestamp_millis() + ms)
        .unwrap()
        .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

fn at_ms(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .unwrap()
        .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

fn prefixes(env: &Env) -> Vec<String> {
    let mut p: Vec<String> = env
        .list(&[])
        .iter()
        .map(|k| s(k, "keyPrefix").to_string())
        .collect();
    p.sort();
    p
}

fn assert_forbidden(r: &crate::server::Resp) -> Value {
    assert_eq!(r.status, 403, "{r:?}");
    let e = r.json()["error"].clone();
    assert_eq!(e["code"], "FORBIDDEN", "{r:?}");
    assert!(e["details"].is_array(), "{r:?}");
    e
}

// --- No lifetime escalation -------------------------------------------------------------

#[test]
fn an_expiring_key_creates_only_keys_that_expire_no_later() {
    let env = Env::new();
    let (short, data) = new_key(&env, "short", &["--expires-in", "1h"]);
    let own = millis(s(&data, "expiresAt"));
    let server = Server::start(&env);

    for body in [
        json!({"name": "forever"}),
        json!({"name": "null", "expiresAt": null}),
        json!({"name": "later", "expiresAt": at_ms(own + 1)}),
        json!({"name": "2099", "expiresAt": "2099-01-01T00:00:00Z"}),
    ] {
        let r = server.post_json("/api/v1/api-keys", &short, &body);
        let e = assert_forbidden(&r);
        assert_eq!(e["details"][0]["field"], "expiresAt", "{body}: {r:?}");
        assert!(!r.body.contains("kp_"), "{r:?}");
    }
    assert_eq!(env.list(&[]).len(), 1, "nothing was created");

    for (name, at) in [("same", at_ms(own)), ("earlier", at_ms(own - 60_000))] {
        let r = server.post_json(
            "/api/v1/api-keys",
            &short,
            &json!({"name": name, "expiresAt": at}),
        );
        assert_eq!(r.status, 201, "{r:?}");
        assert_eq!(millis(s(&r.data(), "expiresAt")), millis(&at));
    }
    // A key that never expires may still create one that never expires.
    let (forever, _) = new_key(&env, "forever", &[]);
    let r = server.post_json("/api/v1/api-keys", &forever, &json!({"name": "child"}));
    assert_eq!(r.status, 201, "{r:?}");
    assert_eq!(r.data()["expiresAt"], Value::Null);
}

#[test]
fn the_lifetime_rule_holds_with_the_scope_rule() {
    let env = Env::new();
    let (scoped, _) = new_key(&env, "scoped", &["--profile", "p1", "--expires-in", "1h"]);
    let server = Server::start(&env);
    // Within scope, too late: 403 on expiresAt.
    let r = server.post_json(
        "/api/v1/api-keys",
        &scoped,
        &json!({"name": "x", "fullAccess": false, "profileIds": ["p1"]}),
    );
    assert_eq!(assert_forbidden(&r)["details"][0]["field"], "expiresAt");
    // In time, out of scope: still 403.
    let r = server.post_json(
        "/api/v1/api-keys",
        &scoped,
        &json!({"name": "x", "fullAccess": false, "profileIds": ["p2"], "expiresAt": expires_in(60_000)}),
    );
    assert_forbidden(&r);
    let r = server.post_json(
        "/api/v1/api-keys",
        &scoped,
        &json!({"name": "x", "fullAccess": false, "profileIds": ["p1"], "expiresAt": expires_in(60_000)}),
    );
    assert_eq!(r.status, 201, "{r:?}");
}

// --- No revoking up -------------------------------------------------------------------------

#[test]
fn a_scoped_key_cannot_delete_a_full_access_key() {
    let env = Env::new();
    let (full, full_data) = new_key(&env, "full", &[]);
    let (scoped, _) = new_key(&env, "scoped", &["--profile", "p1"]);
    let server = Server::start(&env);
    for id in [s(&full_data, "id"), s(&full_data, "keyPrefix")] {
        let r = server.delete(&format!("/api/v1/api-keys/{id}"), &scoped);
        assert_forbidden(&r);
    }
    assert_eq!(server.get("/api/v1/api-keys", &full).status, 200);
    assert_eq!(env.verify(&full, &[]).code, 0);
}

#[test]
fn a_key_cannot_delete_a_key_in_profiles_outside_its_own() {
    let env = Env::new();
    let (_, wide) = new_key(&env, "wide", &["--profile", "p1", "--profile", "p2"]);
    let (narrow, _) = new_key(&env, "narrow", &["--profile", "p1"]);
    let server = Server::start(&env);
    let r = server.delete(&format!("/api/v1/api-keys/{}", s(&wide, "id")), &narrow);
    assert_forbidden(&r);
    assert_eq!(env.list(&[]).len(), 2);
}

#[test]
fn an_expiring_key_cannot_delete_a_key_that_outlives_it() {
    let env = Env::new();
    let (forever, forever_data) = new_key(&env, "forever", &[]);
    let (_, later) = new_key(&env, "later", &["--expires-in", "2h"]);
    let (short, _) = new_key(&env, "short", &["--expires-in", "1h"]);
    let server = Server::start(&env);
    for target in [&forever_data, &later] {
        let r = server.delete(&format!("/api/v1/api-keys/{}", s(target, "id")), &short);
        assert_forbidden(&r);
    }
    assert_eq!(server.get("/api/v1/api-keys", &forever).status, 200);
    assert_eq!(env.list(&[]).len(), 3);
}

#[test]
fn a_readonly_key_deletes_nothing() {
    let env = Env::new();
    let (_, rw) = new_key(&env, "rw", &["--permission", "readonly", "--profile", "p1"]);
    let (ro, ro_data) = new_key(&env, "ro", &["--permission", "readonly"]);
    let server = Server::start(&env);
    for target in [&rw, &ro_data] {
        let r = server.delete(&format!("/api/v1/api-keys/{}", s(target, "id")), &ro);
        assert_forbidden(&r);
    }
    assert_eq!(env.list(&[]).len(), 2);
}

#[test]
fn a_key_deletes_keys_no_broader_than_itself() {
    let env = Env::new();
    let (actor, actor_data) = new_key(
        &env,
        "actor",
        &["--profile", "p1", "--profile", "p2", "--expires-in", "2h"],
    );
    let own = s(&actor_data, "expiresAt").to_string();
    let (_, equal) = new_key(
        &env,
        "equal",
        &[
            "--profile",
            "p2",
            "--profile",
            "p1",
            "--expires-at",
            own.as_str(),
        ],
    );
    let (_, narrower) = new_key(
        &env,
        "narrower",
        &[
            "--profile",
            "p1",
            "--permission",
            "readonly",
            "--expires-in",
            "1h",
        ],
    );
    let server = Server::start(&env);
    for target in [&equal, &narrower] {
        let r = server.delete(&format!("/api/v1/api-keys/{}", s(target, "id")), &actor);
        assert_eq!(r.status, 204, "{r:?}");
    }
    // A key may always delete itself.
    let r = server.delete(
        &format!("/api/v1/api-keys/{}", s(&actor_data, "id")),
        &actor,
    );
    assert_eq!(r.status, 204, "{r:?}");
    assert_eq!(server.get("/api/v1/api-keys", &actor).status, 401);
    assert!(env.list(&[]).is_empty());
}

#[test]
fn unknown_and_other_users_keys_stay_not_found() {
    let env = Env::new();
    let (short, _) = new_key(&env, "short", &["--profile", "p1", "--expires-in", "1h"]);
    let bob = env.run(&["--user", "bob", "--json", "keys", "create", "--name", "bob"]);
    assert_eq!(bob.code, 0, "{bob:#?}");
    let bob = bob.json()["data"].clone();
    let server = Server::start(&env);
    for id in [
        s(&bob, "id"),
        s(&bob, "keyPrefix"),
        "kp_00000000",
        "00000000-0000-4000-8000-000000000000",
    ] {
        let r = server.delete(&format!("/api/v1/api-keys/{id}"), &short);
        assert_eq!(r.status, 404, "{id}: {r:?}");
        assert_eq!(r.json()["error"]["code"], "NOT_FOUND");
    }
    assert_eq!(env.list(&["--all-users"]).len(), 2);
}

#[test]
fn the_operator_deletes_any_key() {
    let env = Env::new();
    let (full, data) = new_key(&env, "full", &[]);
    new_key(&env, "short", &["--profile", "p1", "--expires-in", "1h"]);
    let r = env.run(&["keys", "delete", s(&data, "keyPrefix"), "--yes"]);
    assert_eq!(r.code, 0, "{r:#?}");
    assert_eq!(env.verify(&full, &[]).code, 4);
    assert_eq!(env.list(&[]).len(), 1);
}

// --- A new key is written before it is committed -----------------------------------------

/// Where stdout goes in a write-failure test. Shared with the webhook tests, whose
/// `webhooks create` prints a new secret too.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Sink {
    /// `/dev/full`: every write fails with ENOSPC.
    Full,
    /// A pipe whose reader has exited before keyhook starts: every write fails with EPIPE.
    ClosedPipe,
    /// `> /dev/null`: every write succeeds and the bytes are gone.
    DevNull,
    /// `>&-`: standard output closed when keyhook starts; the Rust runtime reopens it as
    /// /dev/null, so the writes "succeed" too.
    Closed,
}

impl Sink {
    fn stdio(self) -> Stdio {
        match self {
            Sink::Full => Stdio::from(
                std::fs::OpenOptions::new()
                    .write(true)
                    .open("/dev/full")
                    .expect("/dev/full"),
            ),
            Sink::ClosedPipe => {
                // `true` holds the only read end and exits at once; waiting for it makes sure
                // the pipe has no reader before keyhook writes.
                let mut reader = std::process::Command::new("true")
                    .stdin(Stdio::piped())
                    .spawn()
                    .expect("spawn true");
                let write_end = reader.stdin.take().unwrap();
                reader.wait().unwrap();
                Stdio::from(write_end)
            }
            Sink::DevNull => Stdio::null(),
            // Closed by the shell that execs keyhook (see `run_into`); this end is never used.
            Sink::Closed => Stdio::piped(),
        }
    }
}

pub(crate) const SINKS: [Sink; 4] = [Sink::Full, Sink::ClosedPipe, Sink::DevNull, Sink::Closed];
/// `--quiet`, `--json` and the human table.
const MODES: [&[&str]; 3] = [&["--quiet"], &["--json"], &[]];

/// `keyhook --db <env's db> ARGS` with standard output going to `sink`.
pub(crate) fn run_into(env: &Env, sink: Sink, args: &[&str]) -> Run {
    let mut cmd = match sink {
        Sink::Closed => {
            // bash closes fd 1, then becomes keyhook (with std_cmd's environment).
            let keyhook = std_cmd();
            let mut c = std::process::Command::new("bash");
            c.args(["-c", r#"exec "$0" "$@" >&-"#])
                .arg(keyhook.get_program());
            for (k, v) in keyhook.get_envs() {
                match v {
                    Some(v) => c.env(k, v),
                    None => c.env_remove(k),
                };
            }
            c
        }
        _ => std_cmd(),
    };
    let out = cmd
        .arg("--db")
        .arg(env.db_arg())
        .args(args)
        .stdin(Stdio::null())
        .stdout(sink.stdio())
        .stderr(Stdio::piped())
        .output()
        .expect("run keyhook");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::new(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Exit 1 with one clear `keyhook: ` line that names standard output and holds no key.
pub(crate) fn assert_write_failure(r: &Run, what: &str) {
    assert_eq!(r.code, 1, "{what}: {r:#?}");
    assert!(
        r.stderr.starts_with("keyhook: ") && r.stderr.contains("standard output"),
        "{what}: {r:#?}"
    );
    assert!(!r.stderr.contains("panicked"), "{what}: {r:#?}");
    let key_shaped = regex::Regex::new("kp_[0-9a-f]{12}").unwrap();
    assert!(!key_shaped.is_match(&r.stderr), "{what}: {r:#?}");
}

#[test]
fn a_created_key_that_cannot_be_written_is_not_created() {
    let env = Env::new();
    for sink in SINKS {
        for mode in MODES {
            let mut args = vec!["keys", "create", "--name", "lost"];
            let json = mode.contains(&"--json");
            if json {
                args.insert(0, "--json");
            } else {
                args.extend_from_slice(mode);
            }
            let r = run_into(&env, sink, &args);
            assert_write_failure(&r, &format!("{sink:?} {mode:?}"));
            assert!(
                env.list(&[]).is_empty(),
                "{sink:?} {mode:?}: a key was kept"
            );
        }
    }
    // And the same command into a working stdout succeeds.
    let r = env.run(&["keys", "create", "--name", "kept", "--quiet"]);
    assert_eq!(r.code, 0, "{r:#?}");
    assert!(is_key(r.stdout.trim()));
    assert_eq!(env.list(&[]).len(), 1);
}

#[test]
fn a_rotated_key_that_cannot_be_written_leaves_the_old_key_alone() {
    let env = Env::new();
    let (old, data) = new_key(&env, "cron", &["--expires-in", "1h"]);
    let prefix = s(&data, "keyPrefix").to_string();
    let expires = s(&data, "expiresAt").to_string();
    for sink in SINKS {
        for mode in MODES {
            for grace in [None, Some("10m")] {
                let mut args = vec!["keys", "rotate", prefix.as_str()];
                if mode.contains(&"--json") {
                    args.insert(0, "--json");
                } else {
                    args.extend_from_slice(mode);
                }
                if let Some(g) = grace {
                    args.extend(["--grace", g]);
                }
                let what = format!("{sink:?} {mode:?} grace {grace:?}");
                let r = run_into(&env, sink, &args);
                assert_write_failure(&r, &what);
                let keys = env.list(&[]);
                assert_eq!(keys.len(), 1, "{what}: {keys:?}");
                assert_eq!(s(&keys[0], "keyPrefix"), prefix, "{what}");
                assert_eq!(s(&keys[0], "expiresAt"), expires, "{what}");
                assert_eq!(env.verify(&old, &[]).code, 0, "{what}: old key refused");
            }
        }
    }
    // Into a working stdout the rotation happens.
    let r = env.run(&["keys", "rotate", &prefix, "--quiet"]);
    assert_eq!(r.code, 0, "{r:#?}");
    assert_eq!(env.verify(r.stdout.trim(), &[]).code, 0);
    assert_eq!(env.verify(&old, &[]).code, 4);
}

#[test]
fn a_new_key_is_not_sent_to_dev_null_or_a_closed_stdout() {
    // `keys rotate ID --quiet >&-` used to exit 0 with the old key deleted and the new one
    // gone: the runtime had reopened fd 1 as /dev/null. Both are refused, saying why.
    let env = Env::new();
    let (old, data) = new_key(&env, "cron", &[]);
    let prefix = s(&data, "keyPrefix").to_string();
    for sink in [Sink::DevNull, Sink::Closed] {
        let r = run_into(&env, sink, &["keys", "rotate", &prefix, "--quiet"]);
        assert_write_failure(&r, &format!("rotate {sink:?}"));
        assert!(r.stderr.contains("/dev/null"), "{sink:?}: {r:#?}");
        assert!(
            r.stderr.contains("the old key is unchanged"),
            "{sink:?}: {r:#?}"
        );
        assert_eq!(env.verify(&old, &[]).code, 0, "{sink:?}: old key refused");
        let r = run_into(&env, sink, &["keys", "create", "--name", "x", "--quiet"]);
        assert_write_failure(&r, &format!("create {sink:?}"));
        assert!(r.stderr.contains("no key was created"), "{sink:?}: {r:#?}");
        assert_eq!(prefixes(&env), vec![prefix.clone()], "{sink:?}");
    }
}

#[test]
fn a_new_key_written_to_a_file_is_synced_and_kept() {
    // `keys rotate ... --quiet > new-key`, the cron way: stdout is a regular file, which is
    // synced before the commit.
    let env = Env::new();
    let path = env.dir.path().join("new-key");
    let to_file = |args: &[&str]| {
        let file = std::fs::File::create(&path).unwrap();
        let out = std_cmd()
            .arg("--db")
            .arg(env.db_arg())
            .args(args)
            .stdin(Stdio::null())
            .stdout(file)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        std::fs::read_to_string(&path).unwrap().trim().to_string()
    };
    let first = to_file(&["keys", "create", "--name", "cron", "--quiet"]);
    assert!(is_key(&first), "{first}");
    let second = to_file(&["keys", "rotate", &first[..11], "--quiet"]);
    assert!(is_key(&second), "{second}");
    assert_eq!(env.verify(&second, &[]).code, 0);
    assert_eq!(env.verify(&first, &[]).code, 4);
    let json = to_file(&["--json", "keys", "rotate", &second[..11]]);
    let v: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(env.verify(s(&v["data"], "key"), &[]).code, 0);
}

#[test]
fn listings_into_a_closed_pipe_still_exit_0() {
    let env = Env::new();
    new_key(&env, "a", &[]);
    for args in [&["keys", "list"][..], &["--json", "keys", "list"][..]] {
        let r = run_into(&env, Sink::ClosedPipe, args);
        assert_eq!(r.code, 0, "{args:?}: {r:#?}");
        assert_eq!(r.stderr, "", "{args:?}");
    }
}

// --- keys prune ------------------------------------------------------------------------------

const DAY: i64 = 86_400_000;

/// Sets the expiry of the key with `prefix` to `ms` straight in the database: the API accepts
/// only future expiries, and waiting a month is not a test.
fn set_expiry(env: &Env, prefix: &str, ms: i64) {
    let updated = env.sql(&format!(
        "UPDATE api_keys SET expires_at = {ms} WHERE key_prefix = '{prefix}' RETURNING id"
    ));
    assert_eq!(updated.len(), 1);
}

/// Keys that expired 40 days, 31 days, 29 days and one minute ago, one that expires in an
/// hour and one that never does; returns their prefixes in that order.
fn prune_fixture(env: &Env) -> Vec<String> {
    let now = chrono::Utc::now().timestamp_millis();
    let mut out = Vec::new();
    for (name, ago) in [
        ("d40", Some(40 * DAY)),
        ("d31", Some(31 * DAY)),
        ("d29", Some(29 * DAY)),
        ("m1", Some(60_000)),
    ] {
        let (_, d) = new_key(env, name, &["--expires-in", "1h"]);
        let p = s(&d, "keyPrefix").to_string();
        if let Some(ago) = ago {
            set_expiry(env, &p, now - ago);
        }
        out.push(p);
    }
    out.push(s(&new_key(env, "h1", &["--expires-in", "1h"]).1, "keyPrefix").to_string());
    out.push(s(&new_key(env, "never", &[]).1, "keyPrefix").to_string());
    out
}

#[test]
fn prune_deletes_only_keys_expired_longer_than_dur() {
    let env = Env::new();
    let p = prune_fixture(&env);
    // Another user's long-expired key is not --user's to prune.
    let bob = env.run(&[
        "--user",
        "bob",
        "--json",
        "keys",
        "create",
        "--name",
        "b",
        "--expires-in",
        "1h",
    ]);
    let bob_prefix = s(&bob.json()["data"], "keyPrefix").to_string();
    set_expiry(
        &env,
        &bob_prefix,
        chrono::Utc::now().timestamp_millis() - 90 * DAY,
    );

    let r = env.run(&["keys", "prune", "--yes"]);
    assert_eq!(r.code, 0, "{r:#?}");
    assert!(r.stdout.contains("Deleted 2 keys"), "{r:#?}");
    let mut left = p[2..].to_vec();
    left.sort();
    assert_eq!(prefixes(&env), left);

    let (code, v) = env.json(&["keys", "prune", "--expired-for", "30s", "--yes"]);
    assert_eq!((code, v), (0, json!({"data": {"deleted": 2}})));
    let mut left = p[4..].to_vec();
    left.sort();
    assert_eq!(prefixes(&env), left);

    let (code, v) = env.json(&["keys", "prune", "--expired-for", "1ms", "--yes"]);
    assert_eq!((code, v), (0, json!({"data": {"deleted": 0}})));
    assert_eq!(env.list(&["--all-users"]).len(), 3, "bob's key stays");
}

/// `--expired-for 0s`: every expired key, however recently it expired; none that has not.
#[test]
fn prune_expired_for_zero_deletes_every_expired_key() {
    let env = Env::with_clock();
    let expired = new_key(&env, "soon", &["--expires-in", "1s"]).1;
    let live = new_key(&env, "later", &["--expires-in", "1h"]).1;
    env.advance_clock(1_001);
    let (code, v) = env.json(&["keys", "prune", "--expired-for", "1s", "--yes"]);
    assert_eq!((code, v), (0, json!({"data": {"deleted": 0}})));
    let (code, v) = env.json(&["keys", "prune", "--expired-for", "0s", "--yes"]);
    assert_eq!((code, v), (0, json!({"data": {"deleted": 1}})));
    assert_eq!(prefixes(&env), vec![s(&live, "keyPrefix").to_string()]);
    assert_ne!(s(&expired, "keyPrefix"), s(&live, "keyPrefix"));
}

#[test]
fn prune_without_yes_off_a_terminal_deletes_nothing() {
    let env = Env::new();
    prune_fixture(&env);
    for args in [&["keys", "prune"][..], &["--json", "keys", "prune"][..]] {
        let r = env.run(args);
        r.assert_error(2);
        assert!(r.stderr.contains("--yes"), "{r:#?}");
    }
    assert_eq!(env.list(&[]).len(), 6);
}

#[test]
fn prune_refuses_a_bad_duration() {
    let env = Env::new();
    prune_fixture(&env);
    for bad in ["soon", "-5d", "", "30", "1000000w"] {
        let r = env.run(&["keys", "prune", &format!("--expired-for={bad}"), "--yes"]);
        assert_eq!(r.code, 2, "{bad:?}: {r:#?}");
        assert!(r.stderr.contains("--expired-for"), "{bad:?}: {r:#?}");
        // As a separate word too: the word after the flag is its value, whatever it starts
        // with.
        let r = env.run(&["keys", "prune", "--expired-for", bad, "--yes"]);
        assert_eq!(r.code, 2, "{bad:?}: {r:#?}");
        assert!(r.stderr.contains("--expired-for"), "{bad:?}: {r:#?}");
    }
    assert_eq!(env.list(&[]).len(), 6);
}

#[test]
fn prune_asks_on_a_terminal() {
    let env = Env::new();
    prune_fixture(&env);
    let Some(r) = on_terminal(&env, &["keys", "prune"], "[y/N]", "n\n") else {
        return;
    };
    assert!(r.stdout.contains("Delete 2 keys"), "the question: {r:#?}");
    assert_ne!(r.code, 0, "{r:#?}");
    assert_eq!(env.list(&[]).len(), 6);
    let r = on_terminal(&env, &["keys", "prune"], "[y/N]", "y\n").unwrap();
    assert_eq!(r.code, 0, "{r:#?}");
    assert_eq!(env.list(&[]).len(), 4);
}
