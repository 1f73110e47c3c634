//! Secret rotation with a grace period, 410 Gone, deliveries to webhooks disabled or deleted
//! after their claim, and `failCount` after the automatic disable. Signatures are checked with the `standardwebhooks` crate, an
//! independent verifier, never with keyhook's own signing code.

use std::process::{Child, Stdio};
use std::thread;

use serde_json::{json, Value};

use crate::common::{emit, kh, poll_until, show_webhook, spawn_deliver, std_cmd, str_of, Env};
/// Where other test files found it before it moved to receiver.rs.
pub(crate) use crate::receiver::verifies;
use crate::receiver::{verifies_with, Receiver};
use crate::server::{Server, PATIENCE};

/// A webhook for `post.published` at `url`; returns its `data`.
fn create(env: &Env, url: &str) -> Value {
    env.create_webhook(url, "post.published")
}

/// Every value of the webhook's row, to look for a secret that must be gone.
fn stored_row(env: &Env, id: &str) -> Vec<String> {
    env.sql(&format!("SELECT * FROM webhooks WHERE id = '{id}'"))
        .concat()
}

/// Whether the webhook's row keeps a previous secret (sealed at rest, so its plaintext is
/// never in the row: secrets_at_rest.rs).
fn keeps_previous(env: &Env, id: &str) -> bool {
    env.sql_i64(&format!(
        "SELECT count(*) FROM webhooks WHERE id = '{id}' AND previous_secret IS NOT NULL"
    )) == 1
}

/// `webhooks rotate-secret ID --grace 1m`: until the grace period ends, every delivery and
/// every test ping carries two signatures, the new secret's first, and a verifier holding
/// either secret accepts it (the first alone is the new secret's); after it, only the new
/// secret signs, the old one is refused, and the old secret is gone from the database. The
/// test clock stays within the verifier's 5-minute tolerance of the real time.
#[test]
fn during_the_grace_both_secrets_sign_then_only_the_new_one() {
    let env = Env::with_clock();
    let rx = Receiver::start();
    let w = create(&env, &rx.url("/ok"));
    let id = str_of(&w, "id");
    let old = str_of(&w, "secret").to_string();

    let (code, v) = kh(&env, &["webhooks", "rotate-secret", id, "--grace", "1m"]);
    assert_eq!(code, 0, "{v}");
    let new = str_of(&v["data"], "secret").to_string();
    assert!(new.starts_with("whsec_") && new != old, "{v}");
    assert_eq!(v["data"]["id"], w["id"]);
    assert_eq!(str_of(&show_webhook(&env, id), "secret"), new);

    assert_eq!(emit(&env, &["post.published"])["deliveries"], 1);
    assert!(env.deliver_once().contains("delivered 1"));
    let (code, v) = kh(&env, &["webhooks", "test", id]);
    assert_eq!(code, 0, "{v}");
    let during = rx.wait_for(2, PATIENCE);
    for r in &during {
        let sigs = r.signatures();
        assert_eq!(sigs.len(), 2, "{r:?}");
        assert!(verifies(&new, r) && verifies(&old, r), "{r:?}");
        assert!(verifies_with(&new, r, &sigs[0]), "the new secret's first");
        assert!(!verifies_with(&old, r, &sigs[0]));
        assert!(verifies_with(&old, r, &sigs[1]));
    }
    assert!(keeps_previous(&env, id), "kept during the grace");
    assert!(!stored_row(&env, id).contains(&old), "sealed at rest");

    env.advance_clock(61_000);
    assert_eq!(emit(&env, &["post.published"])["deliveries"], 1);
    assert!(env.deliver_once().contains("delivered 1"));
    let (code, v) = kh(&env, &["webhooks", "test", id]);
    assert_eq!(code, 0, "{v}");
    let after = rx.wait_for(4, PATIENCE);
    for r in &after[2..] {
        assert_eq!(r.signatures().len(), 1, "{r:?}");
        assert!(verifies(&new, r), "{r:?}");
        assert!(!verifies(&old, r), "{r:?}");
    }
    // The worker deleted it: the row keeps no previous secret any more.
    assert!(!keeps_previous(&env, id), "the old secret is still stored");
    assert_eq!(str_of(&show_webhook(&env, id), "secret"), new);
    // Nor anything else the database keeps: the file and its write-ahead log on SQLite.
    let stored = env.stored_bytes();
    let found = stored.windows(old.len()).any(|w| w == old.as_bytes());
    assert!(!found, "the old secret is still in the database's bytes");
}

/// A second rotation during a grace period keeps only the newest previous secret (as Svix
/// does): the first secret stops signing at once. `--grace 0` drops the old secret at once.
#[test]
fn rotating_again_keeps_only_the_newest_previous_secret() {
    let env = Env::with_clock();
    let rx = Receiver::start();
    let w = create(&env, &rx.url("/ok"));
    let id = str_of(&w, "id");
    let first = str_of(&w, "secret").to_string();
    let rotate = |grace: &str| {
        let (code, v) = kh(&env, &["webhooks", "rotate-secret", id, "--grace", grace]);
        assert_eq!(code, 0, "{v}");
        str_of(&v["data"], "secret").to_string()
    };
    let second = rotate("1h");
    let third = rotate("1h");
    assert_eq!(kh(&env, &["webhooks", "test", id]).0, 0);
    let r = &rx.wait_for(1, PATIENCE)[0];
    assert_eq!(r.signatures().len(), 2, "{r:?}");
    assert!(verifies(&third, r) && verifies(&second, r));
    assert!(!verifies(&first, r));
    assert!(!stored_row(&env, id).contains(&first));

    let fourth = rotate("0s");
    assert_eq!(kh(&env, &["webhooks", "test", id]).0, 0);
    let r = &rx.wait_for(2, PATIENCE)[1];
    assert_eq!(r.signatures().len(), 1, "{r:?}");
    assert!(verifies(&fourth, r) && !verifies(&third, r));
    assert!(!stored_row(&env, id).contains(&third));
}

/// `--quiet` prints the new secret alone; a grace over 7 days, negative or not in whole
/// seconds is a usage error (exit 2) that changes nothing.
#[test]
fn rotate_secret_on_the_command_line() {
    let env = Env::with_clock();
    let w = create(&env, "http://127.0.0.1:9/hook");
    let id = str_of(&w, "id");
    let secret = str_of(&w, "secret");
    for bad in ["8d", "-1s", "1500ms", "soon", ""] {
        let r = env.run(&["webhooks", "rotate-secret", id, &format!("--grace={bad}")]);
        r.assert_error(2);
        assert!(r.stderr.contains("--grace"), "{bad}: {}", r.stderr);
        assert!(r.stdout.is_empty(), "{bad}: {}", r.stdout);
        assert_eq!(str_of(&show_webhook(&env, id), "secret"), secret, "{bad}");
    }
    let r = env.run(&["webhooks", "rotate-secret", id, "--grace", "7d", "--quiet"]);
    assert_eq!(r.code, 0, "{r:#?}");
    let new = r.stdout.trim_end();
    assert_eq!(r.stdout, format!("{new}\n"), "only the secret");
    assert!(new.starts_with("whsec_") && new != secret, "{new}");
    assert!(r.stderr.is_empty(), "{}", r.stderr);
    assert_eq!(str_of(&show_webhook(&env, id), "secret"), new);
    // 7 days exactly.
    let expires = env.sql_i64(&format!(
        "SELECT previous_secret_expires_at FROM webhooks WHERE id = '{id}'"
    ));
    assert_eq!(expires, env.clock_ms() + 604_800_000);
    let r = env.run(&["webhooks", "rotate-secret", "0000-nope"]);
    r.assert_error(3);
}

/// POST /webhooks/{id}/rotate-secret: 200 with the webhook and its new secret; no body is a
/// grace of 24 hours; `graceSeconds` out of 0..=604800 or not an integer is 400 on that
/// field and changes nothing; a readonly key gets 403, another user's webhook 404.
#[test]
fn rotate_secret_over_http() {
    let env = Env::with_clock();
    let key = str_of(&env.create_key("rw", &[]), "key").to_string();
    let readonly = str_of(&env.create_key("ro", &["--permission", "readonly"]), "key").to_string();
    let other = str_of(&env.create_key("o", &["--user", "bob"]), "key").to_string();
    let w = create(&env, "http://127.0.0.1:9/hook");
    let id = str_of(&w, "id").to_string();
    let path = format!("/api/v1/webhooks/{id}/rotate-secret");
    let server = Server::start(&env);
    let secret =
        || env.sql(&format!("SELECT secret FROM webhooks WHERE id = '{id}'"))[0][0].clone();
    let expiry = || {
        env.sql(&format!(
            "SELECT previous_secret_expires_at FROM webhooks WHERE id = '{id}'"
        ))[0][0]
            .clone()
    };

    let before = secret();
    for bad in [
        json!({"graceSeconds": -1}),
        json!({"graceSeconds": 604_801}),
        json!({"graceSeconds": 1.5}),
        json!({"graceSeconds": "60"}),
        json!({"graceSeconds": true}),
        json!({"graceSeconds": 1e30}),
        json!({"graceSeconds": 18_446_744_073_709_551_615u64}),
    ] {
        let r = server.post_json(&path, &key, &bad);
        assert_eq!(r.status, 400, "{bad}: {r:?}");
        let e = r.json();
        assert_eq!(e["error"]["code"], "VALIDATION_ERROR", "{bad}: {e}");
        assert_eq!(
            e["error"]["details"][0]["field"], "graceSeconds",
            "{bad}: {e}"
        );
        assert_eq!(secret(), before, "{bad}");
    }
    let r = server.post_json(&path, &key, &json!({"graceSeconds": 60, "x": 1}));
    assert_eq!(r.status, 400, "{r:?}");
    assert_eq!(r.json()["error"]["details"][0]["field"], "x");

    let r = server.post_json(&path, &readonly, &json!({}));
    assert_eq!(r.status, 403, "{r:?}");
    let r = server.post_json(&path, &other, &json!({}));
    assert_eq!(r.status, 404, "{r:?}");
    assert_eq!(secret(), before);

    // No body at all: the default grace, 24 hours.
    let r = server.call("POST", &path, Some(&key));
    assert_eq!(r.status, 200, "{r:?}");
    let data = r.data();
    assert_eq!(data["id"], w["id"]);
    let new = str_of(&data, "secret").to_string();
    assert!(new.starts_with("whsec_") && new != before);
    assert_ne!(secret(), before);
    assert_eq!(str_of(&show_webhook(&env, &id), "secret"), new);
    assert_eq!(expiry(), (env.clock_ms() + 86_400_000).to_string());
    let keys: Vec<&String> = data.as_object().unwrap().keys().collect();
    let shape: Vec<&String> = w.as_object().unwrap().keys().collect();
    assert_eq!(keys, shape, "the Webhook object, nothing more");

    // A whole number written with a fraction of zero is an integer (JSON Schema's rule).
    let r = server.post_json(&path, &key, &json!({"graceSeconds": 120.0}));
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(expiry(), (env.clock_ms() + 120_000).to_string());
    let r = server.post_json(&path, &key, &json!({"graceSeconds": 604_800}));
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(expiry(), (env.clock_ms() + 604_800_000).to_string());
    let r = server.post_json(&path, &key, &json!({"graceSeconds": 0}));
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(expiry(), "");
    let log = server.log();
    assert!(
        !log.contains(&new) && !log.contains(str_of(&w, "secret")),
        "{log}"
    );
}

/// A receiver answering 410 Gone disables the webhook at once: the attempt is logged with
/// 410, the delivery is not retried, `webhooks show` says why, and `failCount` stays where
/// the 410 left it (a later failing ping does not raise it) until `enable` resets it. A test
/// ping answered 410 disables too.
#[test]
fn a_410_gone_disables_the_webhook_at_once() {
    let env = Env::new();
    let rx = Receiver::start();
    rx.set_status(410);
    let w = create(&env, &rx.url("/switch"));
    let id = str_of(&w, "id");

    assert_eq!(emit(&env, &["post.published"])["deliveries"], 1);
    let summary = env.deliver_once();
    assert!(summary.contains("to retry 0, given up 1"), "{summary}");
    let shown = show_webhook(&env, id);
    assert_eq!(shown["isActive"], false, "{shown}");
    assert_eq!(shown["failCount"], 1, "{shown}");
    let (_, log) = kh(&env, &["webhooks", "deliveries", id]);
    assert_eq!(log["data"][0]["statusCode"], 410, "{log}");
    let text = env.run(&["webhooks", "show", id]);
    assert!(
        text.stdout.contains("disabled: receiver answered 410 Gone"),
        "{}",
        text.stdout
    );
    assert_eq!(emit(&env, &["post.published"])["deliveries"], 0);

    // A failing ping of the disabled webhook is logged, and counts no further.
    let (code, _) = kh(&env, &["webhooks", "test", id]);
    assert_eq!(code, 1);
    assert_eq!(show_webhook(&env, id)["failCount"], 1);
    let (_, log) = kh(&env, &["webhooks", "deliveries", id]);
    assert_eq!(log["data"].as_array().unwrap().len(), 2, "{log}");

    let (code, v) = kh(&env, &["webhooks", "enable", id]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["data"]["failCount"], 0);
    let text = env.run(&["webhooks", "show", id]);
    assert!(!text.stdout.contains("disabled:"), "{}", text.stdout);

    // A test ping answered 410 disables as a delivery does.
    let (code, v) = kh(&env, &["webhooks", "test", id]);
    assert_eq!((code, &v["data"]["statusCode"]), (1, &json!(410)), "{v}");
    assert_eq!(show_webhook(&env, id)["isActive"], false);
}

/// The 10th consecutive failure disables a webhook; `failCount` then stays at 10 whatever
/// further attempts (failed or not) do, and `show` says why; `enable` resets it to 0.
#[test]
fn fail_count_stops_at_the_automatic_disable() {
    let env = Env::new();
    let rx = Receiver::start();
    rx.set_status(500);
    let w = create(&env, &rx.url("/switch"));
    let id = str_of(&w, "id");
    for _ in 0..11 {
        assert_eq!(kh(&env, &["webhooks", "test", id]).0, 1);
    }
    let shown = show_webhook(&env, id);
    assert_eq!(
        (&shown["isActive"], &shown["failCount"]),
        (&json!(false), &json!(10))
    );
    let text = env.run(&["webhooks", "show", id]).stdout;
    assert!(
        text.contains("disabled: 10 consecutive failed attempts"),
        "{text}"
    );
    rx.set_status(200);
    assert_eq!(kh(&env, &["webhooks", "test", id]).0, 0);
    assert_eq!(
        show_webhook(&env, id)["failCount"],
        10,
        "frozen until enabled"
    );
    let (_, log) = kh(&env, &["webhooks", "deliveries", id]);
    assert_eq!(
        log["data"].as_array().unwrap().len(),
        12,
        "every attempt is logged"
    );
    let (code, v) = kh(&env, &["webhooks", "enable", id]);
    assert_eq!((code, &v["data"]["failCount"]), (0, &json!(0)), "{v}");
    rx.set_status(500);
    assert_eq!(kh(&env, &["webhooks", "test", id]).0, 1);
    assert_eq!(show_webhook(&env, id)["failCount"], 1, "counting again");
}

fn wait(child: Child) -> String {
    let mut child = child;
    if !poll_until(PATIENCE, || child.try_wait().unwrap().is_some()) {
        let _ = child.kill();
        panic!("deliver --once did not end");
    }
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{out:?}");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Two deliveries claimed together by a worker with one sender thread: the first is held by
/// the receiver while the webhook is disabled (or deleted); the second, claimed while the
/// webhook was active, is not sent.
#[test]
fn a_delivery_claimed_before_its_webhook_was_disabled_or_deleted_is_not_sent() {
    for (how, args) in [("disable", &[][..]), ("delete", &["--yes"][..])] {
        let env = Env::new();
        let rx = Receiver::start();
        let w = create(&env, &rx.url("/hold"));
        let id = str_of(&w, "id");
        assert_eq!(emit(&env, &["post.published"])["deliveries"], 1);
        assert_eq!(emit(&env, &["post.published"])["deliveries"], 1);
        let worker = spawn_deliver(&env, &[("KEYHOOK_DELIVERY_WORKERS", "1")], &["--once"]);
        rx.wait_for(1, PATIENCE);
        let (code, v) = kh(&env, &[&["webhooks", how, id], args].concat());
        assert_eq!(code, 0, "{how}: {v}");
        rx.release();
        let summary = wait(worker);
        assert!(summary.contains("delivered 1"), "{how}: {summary}");
        assert!(summary.contains("cancelled 1"), "{how}: {summary}");
        assert_eq!(rx.requests().len(), 1, "{how}: the second was sent");
    }
}

/// With `serve` running (its connections keep SQLite's write-ahead log), the old secret is
/// gone from everything the database stores soon after its grace period ends: the row, the
/// file and the log (on PostgreSQL, every live row).
#[test]
fn the_old_secret_leaves_a_running_servers_database() {
    let env = Env::with_clock();
    let key = str_of(&env.create_key("rw", &[]), "key").to_string();
    let w = create(&env, "http://127.0.0.1:9/hook");
    let id = str_of(&w, "id");
    let old = str_of(&w, "secret").to_string();
    let server = Server::start(&env);
    let path = format!("/api/v1/webhooks/{id}/rotate-secret");
    let r = server.post_json(&path, &key, &json!({"graceSeconds": 60}));
    assert_eq!(r.status, 200, "{r:?}");
    // Sealed at rest: the row keeps a previous secret, never its plaintext.
    assert!(keeps_previous(&env, id), "kept during the grace");
    assert!(!env
        .stored_bytes()
        .windows(old.len())
        .any(|w| w == old.as_bytes()));
    env.advance_clock(60_000);
    assert!(
        poll_until(PATIENCE, || !keeps_previous(&env, id)),
        "the old secret is still stored {PATIENCE:?} after its grace period"
    );
    assert_eq!(
        str_of(&show_webhook(&env, id), "secret"),
        str_of(&r.data(), "secret")
    );
}

/// A disable reaches the next check at once: with one sender, and with several (all but one
/// kept busy by `/hold` deliveries queued first, so that the free one sends every delivery
/// to the failing webhook in turn, as one sender does), whatever the claim batching
/// (`--delivery-workers N` claims up to 2N at a time):
/// - a receiver answering 410 to 4 queued events gets 1 request; the other 3 are cancelled;
/// - a receiver answering 500 to 13 queued events, without retries, gets 10 requests, and the
///   webhook ends disabled with `failCount` 10.
#[test]
fn a_disable_reaches_the_next_check_whatever_the_claim_batching() {
    // The four cases are independent (a database and a receiver each): they run at once.
    let cases = [1usize, 3].into_iter().flat_map(|senders| {
        [(410u16, 4usize, 1usize), (500, 13, 10)]
            .map(|(status, events, sent)| (senders, status, events, sent))
    });
    thread::scope(|scope| {
        for (senders, status, events, sent) in cases {
            scope.spawn(move || {
                let case = format!("{senders} sender(s), {status} to {events} events");
                let env = Env::new();
                let rx = Receiver::start();
                let held = senders - 1;
                if held > 0 {
                    env.create_webhook(&rx.url("/hold"), "post.deleted");
                    for _ in 0..held {
                        let (code, v) = kh(&env, &["events", "emit", "post.deleted"]);
                        assert_eq!((code, &v["data"]["deliveries"]), (0, &json!(1)), "{v}");
                    }
                }
                rx.set_status(status);
                let w = create(&env, &rx.url("/switch"));
                let id = str_of(&w, "id");
                for _ in 0..events {
                    assert_eq!(emit(&env, &["post.published"])["deliveries"], 1);
                }
                let mut c = std_cmd();
                c.arg("--db").arg(env.db_arg());
                let workers = senders.to_string();
                let worker = c
                    .args(["--allow-private-targets", "deliver", "--once"])
                    .args(["--delivery-workers", &workers, "--retry-schedule", ""])
                    .stdin(Stdio::null())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .expect("spawn keyhook deliver");
                // Every delivery to the failing webhook ends (sent or cancelled) while the held
                // ones keep the other senders busy.
                let pending = format!(
                    "SELECT count(*) FROM deliveries WHERE webhook_id = '{id}' AND state = 'pending'"
                );
                assert!(
                    poll_until(PATIENCE, || env.sql_i64(&pending) == 0),
                    "{case}: deliveries still pending"
                );
                rx.release();
                let summary = wait(worker);
                let to_it = rx.requests_to("/switch").len();
                assert_eq!(to_it, sent, "{case}: {summary}");
                assert!(
                    summary.contains(&format!("cancelled {}", events - sent)),
                    "{case}: {summary}"
                );
                let shown = show_webhook(&env, id);
                assert_eq!(shown["isActive"], false, "{case}: {shown}");
                let count = if status == 410 { 1 } else { 10 };
                assert_eq!(shown["failCount"], count, "{case}: {shown}");
                assert_eq!(rx.requests_to("/hold").len(), held, "{case}");
            });
        }
    });
}

/// A worker with one sender thread claims 16 at first, then claims again in the transactions
/// that settle results (`keyhook_delivery::worker::Settler::settle_finished`), up to 8
/// results each. 30 events to a webhook answering 200 and one answering 500, in the same batches:
/// each delivery is sent at most once in the run, the successes are delivered, and the 10th
/// failure in a row disables its webhook before any later delivery to it is sent (the next
/// request to it waits for that failure's transaction), so the rest are cancelled.
#[test]
fn claims_taken_while_settling_send_each_delivery_once_beside_failures() {
    let env = Env::new();
    let rx = Receiver::start();
    create(&env, &rx.url("/ok"));
    create(&env, &rx.url("/fail"));
    for _ in 0..30 {
        assert_eq!(emit(&env, &["post.published"])["deliveries"], 2);
    }
    let summary = wait(spawn_deliver(
        &env,
        &[("KEYHOOK_DELIVERY_WORKERS", "1")],
        &["--once"],
    ));
    assert!(summary.contains("delivered 30"), "{summary}");
    let ids = |target: &str| -> std::collections::BTreeSet<String> {
        let got = rx.requests_to(target);
        let ids: std::collections::BTreeSet<String> = got
            .iter()
            .map(|r| r.header("webhook-id").to_string())
            .collect();
        assert_eq!(ids.len(), got.len(), "{target}: a delivery was sent twice");
        ids
    };
    assert_eq!(ids("/ok").len(), 30);
    assert_eq!(
        ids("/fail").len(),
        10,
        "sent after its webhook was disabled"
    );
    let count = |state: &str| {
        env.sql_i64(&format!(
            "SELECT count(*) FROM deliveries WHERE state = '{state}'"
        ))
    };
    assert_eq!(count("delivered"), 30);
    assert_eq!(count("cancelled"), 20);
    // The ten failures wait for their retry, unleased, one attempt each.
    assert_eq!(
        env.sql_i64(
            "SELECT count(*) FROM deliveries
             WHERE state = 'pending' AND attempts = 1 AND lease_until IS NULL"
        ),
        10
    );
    assert_eq!(env.sql_i64("SELECT count(*) FROM delivery_attempts"), 40);
}
