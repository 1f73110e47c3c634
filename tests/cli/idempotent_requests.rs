//! `Idempotency-Key` on the webhook POSTs (`service::idempotency`): POST /webhooks,
//! /webhooks/{id}/rotate-secret, /test and /replay. A repeat by the same user with the same
//! key and body within 24 hours acts once and answers the first answer; another body is 400
//! on `Idempotency-Key`; users are apart; a key that does not see the first request's webhook
//! gets 404; concurrent repeats act once; after 24 hours the key acts again; `prune` deletes
//! the records. On both backends, against a real `serve` and a loopback receiver.

use std::sync::Arc;
use std::thread;

use serde_json::{json, Value};

use crate::common::{key_of, str_of, Env};
use crate::receiver::Receiver;
use crate::server::{Resp, Server};

const DAY: i64 = 24 * 3_600_000;

/// POST `path` with the key, the `Idempotency-Key` (if any) and `body` (if any).
fn post(s: &Server, key: &str, path: &str, idem: Option<&str>, body: Option<&Value>) -> Resp {
    let auth = format!("Bearer {key}");
    let mut headers = vec![("Authorization", auth.as_str())];
    if body.is_some() {
        headers.push(("Content-Type", "application/json"));
    }
    if let Some(k) = idem {
        headers.push(("Idempotency-Key", k));
    }
    let bytes = body.map(|b| b.to_string().into_bytes());
    s.send(
        "POST",
        &format!("/api/v1{path}"),
        &headers,
        bytes.as_deref(),
    )
}

fn hook(url: &str) -> Value {
    json!({"url": url, "events": ["post.published"]})
}

/// A webhook of the default user for post.published to the receiver's `/ok`; its id.
fn webhook_to(env: &Env, rx: &Receiver) -> String {
    let (code, v) = env.json(&[
        "--allow-private-targets",
        "webhooks",
        "create",
        "--url",
        &rx.url("/ok"),
        "--event",
        "post.published",
    ]);
    assert_eq!(code, 0, "{v}");
    str_of(&v["data"], "id").to_string()
}

fn refused_on_the_header(r: &Resp) {
    assert_eq!(r.status, 400, "{r:?}");
    let e = &r.json()["error"];
    assert_eq!(e["code"], "VALIDATION_ERROR", "{r:?}");
    assert_eq!(e["details"][0]["field"], "Idempotency-Key", "{r:?}");
}

#[test]
fn a_retried_webhook_create_creates_one_and_answers_the_same_body() {
    let env = Env::with_clock();
    let key = key_of(&env, "u", &[]);
    let other = key_of(&env, "v", &[]);
    let s = Server::start(&env);
    let body = hook("https://example.com/a");
    let first = post(&s, &key, "/webhooks", Some("create-1"), Some(&body));
    assert_eq!(first.status, 201, "{first:?}");
    // The same members in another order are the same request.
    let reordered: Value =
        serde_json::from_str(r#"{"events": ["post.published"], "url": "https://example.com/a"}"#)
            .unwrap();
    env.advance_clock(DAY - 1);
    for b in [&body, &reordered] {
        let again = post(&s, &key, "/webhooks", Some("create-1"), Some(b));
        assert_eq!(again.status, 201, "{again:?}");
        assert_eq!(again.body, first.body);
        assert_eq!(again.header("Cache-Control"), Some("no-store"));
    }
    let of_u = "SELECT count(*) FROM webhooks WHERE user_id = 'u'";
    assert_eq!(env.sql_i64(of_u), 1);
    let created = "SELECT count(*) FROM audit_log WHERE action = 'webhook.created'";
    assert_eq!(env.sql_i64(created), 1);
    // Another body with the same key: refused, nothing created.
    let r = post(
        &s,
        &key,
        "/webhooks",
        Some("create-1"),
        Some(&hook("https://example.com/b")),
    );
    refused_on_the_header(&r);
    assert_eq!(env.sql_i64(of_u), 1);
    // Another user's same key is its own.
    let theirs = post(&s, &other, "/webhooks", Some("create-1"), Some(&body));
    assert_eq!(theirs.status, 201, "{theirs:?}");
    assert_ne!(theirs.data()["id"], first.data()["id"]);
    // 24 hours on, the key acts again.
    env.advance_clock(1);
    let later = post(&s, &key, "/webhooks", Some("create-1"), Some(&body));
    assert_eq!(later.status, 201, "{later:?}");
    assert_ne!(later.data()["id"], first.data()["id"]);
    assert_eq!(env.sql_i64(of_u), 2);
    // A request that failed holds no key: an invalid body is refused each time, and the
    // same key then acts on a valid one.
    for _ in 0..2 {
        let bad = post(
            &s,
            &key,
            "/webhooks",
            Some("create-2"),
            Some(&json!({"url": 1})),
        );
        assert_eq!(bad.status, 400, "{bad:?}");
        assert_ne!(
            bad.json()["error"]["details"][0]["field"],
            "Idempotency-Key"
        );
    }
    let fixed = hook("https://example.com/c");
    let r = post(&s, &key, "/webhooks", Some("create-2"), Some(&fixed));
    assert_eq!(r.status, 201, "{r:?}");
}

/// A repeat of a create answers the webhook as it is now: after a rotation, with the secret
/// in force; after a delete, 404.
#[test]
fn a_repeated_create_shows_the_webhook_as_it_is_now() {
    let env = Env::new();
    let key = key_of(&env, "u", &[]);
    let s = Server::start(&env);
    let body = hook("https://example.com/a");
    let first = post(&s, &key, "/webhooks", Some("c"), Some(&body));
    assert_eq!(first.status, 201, "{first:?}");
    let id = str_of(&first.data(), "id").to_string();
    let rotated = post(
        &s,
        &key,
        &format!("/webhooks/{id}/rotate-secret"),
        None,
        None,
    );
    assert_eq!(rotated.status, 200, "{rotated:?}");
    let again = post(&s, &key, "/webhooks", Some("c"), Some(&body));
    assert_eq!(again.status, 201, "{again:?}");
    assert_eq!(again.data()["secret"], rotated.data()["secret"]);
    assert_ne!(again.data()["secret"], first.data()["secret"]);
    assert_eq!(
        s.delete(&format!("/api/v1/webhooks/{id}"), &key).status,
        204
    );
    let gone = post(&s, &key, "/webhooks", Some("c"), Some(&body));
    assert_eq!(gone.status, 404, "{gone:?}");
    assert!(!gone.body.contains(&id), "{gone:?}");
    assert_eq!(env.sql_i64("SELECT count(*) FROM webhooks"), 0);
}

#[test]
fn rotate_secret_test_and_replay_act_once_per_key() {
    let env = Env::with_clock();
    let rx = Receiver::start();
    let key = key_of(&env, "default", &[]);
    let id = webhook_to(&env, &rx);
    let s = Server::start_with(&env, &["--allow-private-targets"]);

    // rotate-secret: one rotation.
    let path = format!("/webhooks/{id}/rotate-secret");
    let grace = json!({"graceSeconds": 60});
    let first = post(&s, &key, &path, Some("rot"), Some(&grace));
    assert_eq!(first.status, 200, "{first:?}");
    let again = post(&s, &key, &path, Some("rot"), Some(&grace));
    assert_eq!(again.status, 200, "{again:?}");
    assert_eq!(again.body, first.body);
    let rotations = "SELECT count(*) FROM audit_log WHERE action = 'webhook.secret_rotated'";
    assert_eq!(env.sql_i64(rotations), 1);
    refused_on_the_header(&post(&s, &key, &path, Some("rot"), None));

    // test: one ping reaches the receiver.
    let path = format!("/webhooks/{id}/test");
    let first = post(&s, &key, &path, Some("ping"), None);
    assert_eq!(first.status, 200, "{first:?}");
    assert_eq!(first.data()["delivered"], true, "{first:?}");
    let again = post(&s, &key, &path, Some("ping"), None);
    assert_eq!(again.status, 200, "{again:?}");
    assert_eq!(again.body, first.body);
    let pings = |rx: &Receiver| {
        rx.requests()
            .iter()
            .filter(|r| r.json()["event"] == "webhook.test")
            .count()
    };
    assert_eq!(pings(&rx), 1);
    // Another key: another ping.
    assert_eq!(post(&s, &key, &path, Some("ping-2"), None).status, 200);
    assert_eq!(pings(&rx), 2);

    // replay: deliveries queued once.
    for _ in 0..2 {
        let (code, v) = env.json(&["events", "emit", "post.published"]);
        assert_eq!(code, 0, "{v}");
    }
    let path = format!("/webhooks/{id}/replay");
    let deliveries = "SELECT count(*) FROM deliveries";
    let before = env.sql_i64(deliveries);
    let first = post(&s, &key, &path, Some("rep"), Some(&json!({})));
    assert_eq!(first.status, 202, "{first:?}");
    assert_eq!(first.data()["queued"], 2, "{first:?}");
    // No body is the empty body: the same request.
    let again = post(&s, &key, &path, Some("rep"), None);
    assert_eq!(again.status, 202, "{again:?}");
    assert_eq!(again.body, first.body);
    assert_eq!(env.sql_i64(deliveries), before + 2);
    refused_on_the_header(&post(
        &s,
        &key,
        &path,
        Some("rep"),
        Some(&json!({"failedOnly": true})),
    ));
    // 24 hours on, the key acts again.
    env.advance_clock(DAY);
    let later = post(
        &s,
        &key,
        &path,
        Some("rep"),
        Some(&json!({"since": "2000-01-01T00:00:00Z"})),
    );
    assert_eq!(later.status, 202, "{later:?}");
    assert_eq!(env.sql_i64(deliveries), before + 4);
}

/// A key limited to profile a, repeating with the same body and key what a full-access key
/// of its user did, is never handed that webhook (whose scope is beyond its own): 404, and
/// nothing created.
#[test]
fn a_scoped_key_cannot_get_another_profiles_webhook_through_a_repeat() {
    let env = Env::new();
    let full = key_of(&env, "u", &[]);
    let scoped = key_of(&env, "u", &["--profile", "a"]);
    let s = Server::start(&env);
    let body = hook("https://example.com/a");
    let first = post(&s, &full, "/webhooks", Some("same"), Some(&body));
    assert_eq!(first.status, 201, "{first:?}");
    assert_eq!(first.data()["fullAccess"], true);
    let r = post(&s, &scoped, "/webhooks", Some("same"), Some(&body));
    assert_eq!(r.status, 404, "{r:?}");
    assert!(!r.body.contains("whsec_"), "{r:?}");
    assert!(!r.body.contains(str_of(&first.data(), "id")), "{r:?}");
    assert_eq!(env.sql_i64("SELECT count(*) FROM webhooks"), 1);
    // The scoped key's own webhook, with its own key, is its own.
    let own = post(&s, &scoped, "/webhooks", Some("mine"), Some(&body));
    assert_eq!(own.status, 201, "{own:?}");
    assert_eq!(own.data()["fullAccess"], false);
    let id = str_of(&first.data(), "id").to_string();
    // On a webhook it does not see, the path's webhook is not found first.
    let r = post(
        &s,
        &scoped,
        &format!("/webhooks/{id}/rotate-secret"),
        Some("same"),
        None,
    );
    assert_eq!(r.status, 404, "{r:?}");
}

#[test]
fn concurrent_identical_requests_act_once() {
    let env = Env::new();
    let rx = Arc::new(Receiver::start());
    let key = key_of(&env, "default", &[]);
    let id = webhook_to(&env, &rx);
    let s = Arc::new(Server::start_with(&env, &["--allow-private-targets"]));
    let key = Arc::new(key);
    let race = |n: usize, path: String, body: Option<Value>| -> Vec<Resp> {
        let threads: Vec<_> = (0..n)
            .map(|_| {
                let (s, key, path, body) = (s.clone(), key.clone(), path.clone(), body.clone());
                thread::spawn(move || post(&s, &key, &path, Some("race"), body.as_ref()))
            })
            .collect();
        threads.into_iter().map(|t| t.join().unwrap()).collect()
    };
    let created = race(8, "/webhooks".into(), Some(hook("https://example.com/r")));
    for r in &created {
        assert_eq!(r.status, 201, "{r:?}");
        assert_eq!(r.body, created[0].body);
    }
    assert_eq!(env.sql_i64("SELECT count(*) FROM webhooks"), 2);
    // A ping in flight answers its repeats 503 (send again) or, once done, its result. (At
    // most `MAX_PINGS_PER_USER`, 4, run at once; the endpoint answers slowly so that they
    // overlap.)
    rx.set_delay(std::time::Duration::from_millis(300));
    let pinged = race(4, format!("/webhooks/{id}/test"), None);
    let done: Vec<&Resp> = pinged.iter().filter(|r| r.status == 200).collect();
    assert!(!done.is_empty());
    for r in &pinged {
        assert!(r.status == 200 || r.status == 503, "{r:?}");
        if r.status == 200 {
            assert_eq!(r.body, done[0].body);
        }
    }
    let pings = rx
        .requests()
        .iter()
        .filter(|r| r.json()["event"] == "webhook.test")
        .count();
    assert_eq!(pings, 1);
}

/// Records are pruned as events' idempotency records are: kept 24 hours plus the retention.
#[test]
fn prune_deletes_old_request_records() {
    let env = Env::with_clock();
    let key = key_of(&env, "u", &[]);
    let s = Server::start(&env);
    let r = post(
        &s,
        &key,
        "/webhooks",
        Some("old"),
        Some(&hook("https://example.com/a")),
    );
    assert_eq!(r.status, 201, "{r:?}");
    drop(s);
    let records = "SELECT count(*) FROM idempotent_requests";
    assert_eq!(env.sql_i64(records), 1);
    env.advance_clock(DAY + 3_600_000);
    let (code, v) = env.json(&["prune", "--older-than", "2h"]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(env.sql_i64(records), 1);
    env.advance_clock(2 * 3_600_000);
    let (code, v) = env.json(&["prune", "--older-than", "2h"]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(env.sql_i64(records), 0);
}
