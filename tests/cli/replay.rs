//! Replay: `webhooks replay` and POST /webhooks/{id}/replay
//! queue fresh deliveries of past events to one webhook, each with its event's id as
//! `webhook-id`; a disabled webhook is refused with 409, a readonly key with 403, another
//! user's webhook is 404, and bad input is 400 (CLI exit 2) with nothing queued. The real
//! binary, a real `serve` and a loopback receiver, on both backends.

use serde_json::{json, Value};

use crate::common::{emit, id_of, kh, str_of, Env, Run};
use crate::receiver::Receiver;
use crate::server::{Resp, Server};

const HOUR: i64 = 3_600_000;

/// `webhooks replay ID ARGS` for `user` with `--json`.
fn replay_cli(env: &Env, user: &str, id: &str, args: &[&str]) -> (i32, Value) {
    kh(
        env,
        &[&["--user", user, "webhooks", "replay", id], args].concat(),
    )
}

fn queued(env: &Env, user: &str, id: &str, args: &[&str]) -> i64 {
    let (code, v) = replay_cli(env, user, id, args);
    assert_eq!(code, 0, "replay {args:?}: {v}");
    assert_eq!(v.as_object().unwrap().len(), 1, "{v}");
    v["data"]["queued"].as_i64().expect("queued")
}

#[test]
fn a_replay_sends_each_event_again_with_its_webhook_id_and_body() {
    let env = Env::new();
    let receiver = Receiver::start();
    let id =
        id_of(&env.create_webhook_with(&receiver.url("/r"), "post.published", &["--user", "u"]));
    let a = id_of(&emit(
        &env,
        &["post.published", "--user", "u", "--data", r#"{"n": 1}"#],
    ));
    let b = id_of(&emit(
        &env,
        &["post.published", "--user", "u", "--data", r#"{"n": 2}"#],
    ));
    // Not subscribed: never replayed to this webhook.
    emit(&env, &["post.failed", "--user", "u", "--data", "{}"]);
    // Another user's events are not this webhook's.
    emit(&env, &["post.published", "--user", "other", "--data", "{}"]);
    env.deliver_once();
    let first = receiver.wait_for(2, std::time::Duration::from_secs(10));
    assert_eq!(queued(&env, "u", &id, &[]), 2);
    env.deliver_once();
    let all = receiver.wait_for(4, std::time::Duration::from_secs(10));
    assert_eq!(all.len(), 4);
    for original in &first {
        let wid = original.header("webhook-id");
        let again: Vec<_> = all[2..]
            .iter()
            .filter(|r| r.header("webhook-id") == wid)
            .collect();
        assert_eq!(again.len(), 1, "{wid} replayed once");
        assert_eq!(again[0].body, original.body, "the same body");
        assert_eq!(again[0].json()["id"], wid);
    }
    let mut ids: Vec<&str> = all[2..].iter().map(|r| r.header("webhook-id")).collect();
    ids.sort_unstable();
    let mut want = [a.as_str(), b.as_str()];
    want.sort_unstable();
    assert_eq!(ids, want);
    // The human output says how many.
    let r = env.run(&["--user", "u", "webhooks", "replay", &id[..8]]);
    assert_eq!(r.code, 0, "{r:#?}");
    assert_eq!(r.stdout, "Queued 2 deliveries for replay.\n");
}

#[test]
fn since_is_a_time_or_a_duration_ago_and_defaults_to_24_hours() {
    let env = Env::with_clock();
    let id =
        id_of(&env.create_webhook_with("http://127.0.0.1:9/r", "post.published", &["--user", "u"]));
    let t0 = env.clock_ms();
    emit(&env, &["post.published", "--user", "u", "--data", "{}"]);
    env.advance_clock(2 * HOUR);
    emit(&env, &["post.published", "--user", "u", "--data", "{}"]);
    env.advance_clock(1);
    assert_eq!(queued(&env, "u", &id, &["--since", "1h"]), 1);
    assert_eq!(queued(&env, "u", &id, &["--since", "3h"]), 2);
    assert_eq!(queued(&env, "u", &id, &[]), 2);
    let at = chrono::DateTime::from_timestamp_millis(t0)
        .unwrap()
        .to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    assert_eq!(queued(&env, "u", &id, &["--since", &at]), 2);
    let after = chrono::DateTime::from_timestamp_millis(t0 + 1)
        .unwrap()
        .to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    assert_eq!(queued(&env, "u", &id, &["--since", &after]), 1);
    // A day later, the default window holds only the second event.
    env.advance_clock(23 * HOUR);
    assert_eq!(queued(&env, "u", &id, &[]), 1);
    env.advance_clock(2 * HOUR);
    assert_eq!(queued(&env, "u", &id, &[]), 0);
}

#[test]
fn failed_only_replays_what_did_not_get_through() {
    let env = Env::new();
    let receiver = Receiver::start();
    let id =
        id_of(&env.create_webhook_with(&receiver.url("/ok"), "post.published", &["--user", "u"]));
    emit(&env, &["post.published", "--user", "u", "--data", "{}"]);
    env.deliver_once();
    receiver.wait_for(1, std::time::Duration::from_secs(10));
    // Emitted while the webhook is on, cancelled by the worker once it is off.
    let lost = id_of(&emit(
        &env,
        &["post.published", "--user", "u", "--data", "{}"],
    ));
    let (code, v) = kh(&env, &["--user", "u", "webhooks", "disable", &id]);
    assert_eq!(code, 0, "{v}");
    env.deliver_once();
    assert_eq!(
        env.sql_i64("SELECT count(*) FROM deliveries WHERE state = 'cancelled'"),
        1
    );
    let (code, v) = kh(&env, &["--user", "u", "webhooks", "enable", &id]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(queued(&env, "u", &id, &["--failed-only"]), 1);
    env.deliver_once();
    let got = receiver.wait_for(2, std::time::Duration::from_secs(10));
    assert_eq!(got[1].header("webhook-id"), lost);
    // Its newest delivery now succeeded: nothing failed is left.
    assert_eq!(queued(&env, "u", &id, &["--failed-only"]), 0);
    assert_eq!(
        queued(&env, "u", &id, &["--event", &lost, "--failed-only"]),
        0
    );
    assert_eq!(queued(&env, "u", &id, &["--event", &lost]), 1);
}

/// A failed delivery waiting for its next retry (an hour away) is a failed one: `--failed-only`
/// (and `failedOnly` over HTTP) counts it and makes it due now instead of queuing a second
/// copy, so the receiver gets the event once more, not twice. One already delivered is not.
#[test]
fn failed_only_sends_a_delivery_waiting_for_its_retry_now_without_a_second_copy() {
    for over_http in [false, true] {
        let env = Env::new();
        let receiver = Receiver::start();
        receiver.set_status(500);
        let id = id_of(&env.create_webhook_with(
            &receiver.url("/switch"),
            "post.published",
            &["--user", "u"],
        ));
        let key = str_of(&env.create_key("k", &["--user", "u"]), "key").to_string();
        let failed = id_of(&emit(
            &env,
            &["post.published", "--user", "u", "--data", "{}"],
        ));
        let deliver = |schedule: &str| {
            let r = env.run(&[
                "--allow-private-targets",
                "deliver",
                "--once",
                "--retry-schedule",
                schedule,
            ]);
            assert_eq!(r.code, 0, "{r:#?}");
            r.stderr
        };
        assert!(deliver("1h").contains("to retry 1"));
        receiver.wait_for(1, std::time::Duration::from_secs(10));
        let pending = format!(
            "SELECT count(*) FROM deliveries WHERE event_id = '{failed}' AND state = 'pending'"
        );
        assert_eq!(env.sql_i64(&pending), 1);
        receiver.set_status(200);
        // Nothing is due: the retry is an hour away.
        assert!(deliver("1h").contains("delivered 0"));
        let mut server = None;
        let count = if over_http {
            let s = server.insert(Server::start_with(&env, &["--allow-private-targets"]));
            let r = replay_http(s, &key, &id, Some(&json!({"failedOnly": true})));
            assert_eq!(r.status, 202, "{r:?}");
            r.data()["queued"].as_i64().unwrap()
        } else {
            queued(&env, "u", &id, &["--failed-only"])
        };
        assert_eq!(count, 1, "over http: {over_http}");
        let all = format!("SELECT count(*) FROM deliveries WHERE event_id = '{failed}'");
        assert_eq!(env.sql_i64(&all), 1, "no second copy");
        if !over_http {
            assert!(deliver("1h").contains("delivered 1"));
        }
        receiver.wait_for(2, std::time::Duration::from_secs(10));
        // (by `serve`'s worker over HTTP)
        let delivered = format!(
            "SELECT count(*) FROM deliveries WHERE event_id = '{failed}' AND state = 'delivered'"
        );
        assert!(
            crate::common::poll_until(std::time::Duration::from_secs(10), || {
                env.sql_i64(&delivered) == 1
            }),
            "not settled"
        );
        drop(server);
        // One delivery of the event, so the receiver got it once more, not twice.
        let got = receiver.requests();
        assert_eq!(got.len(), 2, "{got:#?}");
        assert_eq!(got[1].header("webhook-id"), failed);
        // Nothing failed is left.
        assert_eq!(queued(&env, "u", &id, &["--failed-only"]), 0);
    }
}

/// The CLI refuses what the API refuses, exit 2 naming the flag, and queues nothing.
#[test]
fn bad_cli_input_is_exit_2_naming_the_flag() {
    let env = Env::new();
    let id =
        id_of(&env.create_webhook_with("http://127.0.0.1:9/r", "post.published", &["--user", "u"]));
    let mine = id_of(&emit(&env, &["post.failed", "--user", "u", "--data", "{}"]));
    let theirs = id_of(&emit(
        &env,
        &["post.published", "--user", "other", "--data", "{}"],
    ));
    let before = env.count_rows("deliveries");
    let cases: [(&[&str], &str); 7] = [
        (&["--since", "yesterday"], "--since"),
        (&["--since", "2h30"], "--since"),
        (&["--since", "2999-01-01T00:00:00Z"], "--since"),
        (&["--event", "evt_nope"], "--event"),
        (
            &["--event", "evt_0123456789abcdef0123456789abcdef"],
            "--event",
        ),
        (&["--event", &theirs], "--event"),
        (&["--event", &mine], "--event"),
    ];
    for (args, flag) in cases {
        let r: Run = env.run(&[&["--user", "u", "webhooks", "replay", &id], args].concat());
        r.assert_error(2);
        assert!(
            r.stderr.starts_with(&format!("keyhook: {flag}: ")),
            "{args:?}: {}",
            r.stderr
        );
    }
    let (code, v) = replay_cli(&env, "u", &id, &["--since", "soon"]);
    assert_eq!(code, 2);
    assert_eq!(v["error"]["details"][0]["field"], "since", "{v}");
    let (code, v) = replay_cli(&env, "u", &id, &["--event", &mine]);
    assert_eq!(code, 2);
    assert_eq!(v["error"]["details"][0]["field"], "eventId", "{v}");
    // Another user's webhook: not found.
    let (code, v) = replay_cli(&env, "other", &id, &[]);
    assert_eq!((code, v["error"]["code"].as_str()), (3, Some("NOT_FOUND")));
    // Disabled: refused with exit 4 and the code, and nothing queued.
    let (code, _) = kh(&env, &["--user", "u", "webhooks", "disable", &id]);
    assert_eq!(code, 0);
    let (code, v) = replay_cli(&env, "u", &id, &[]);
    assert_eq!(
        (code, v["error"]["code"].as_str()),
        (4, Some("WEBHOOK_DISABLED")),
        "{v}"
    );
    assert_eq!(env.count_rows("deliveries"), before);
}

fn replay_http(s: &Server, key: &str, id: &str, body: Option<&Value>) -> Resp {
    let auth = format!("Bearer {key}");
    let mut headers = vec![("Authorization", auth.as_str())];
    if body.is_some() {
        headers.push(("Content-Type", "application/json"));
    }
    let bytes = body.map(|b| b.to_string().into_bytes());
    s.send(
        "POST",
        &format!("/api/v1/webhooks/{id}/replay"),
        &headers,
        bytes.as_deref(),
    )
}

fn assert_error(r: &Resp, status: u16, code: &str, field: Option<&str>) {
    let err = crate::server::assert_error(r, status, code);
    if let Some(f) = field {
        assert_eq!(err["details"][0]["field"], f, "{r:?}");
    }
}

#[test]
fn the_endpoint_answers_202_queued_and_refuses_what_it_must() {
    let env = Env::new();
    let key = str_of(&env.create_key("rw", &["--user", "u"]), "key").to_string();
    let ro = str_of(
        &env.create_key("ro", &["--user", "u", "--permission", "readonly"]),
        "key",
    )
    .to_string();
    let other = str_of(&env.create_key("o", &["--user", "other"]), "key").to_string();
    let id =
        id_of(&env.create_webhook_with("http://127.0.0.1:9/r", "post.published", &["--user", "u"]));
    let e1 = id_of(&emit(
        &env,
        &["post.published", "--user", "u", "--data", "{}"],
    ));
    let unsubscribed = id_of(&emit(
        &env,
        &["post.deleted", "--user", "u", "--data", "{}"],
    ));
    let theirs = id_of(&emit(
        &env,
        &["post.published", "--user", "other", "--data", "{}"],
    ));
    let s = Server::start_with(&env, &["--allow-private-targets"]);

    // No body, {} and every field.
    let r = replay_http(&s, &key, &id, None);
    assert_eq!((r.status, r.data()), (202, json!({"queued": 1})), "{r:?}");
    let r = replay_http(&s, &key, &id, Some(&json!({})));
    assert_eq!((r.status, r.data()), (202, json!({"queued": 1})), "{r:?}");
    let since = chrono::Utc::now() - chrono::Duration::hours(1);
    let body = json!({"since": since.to_rfc3339(), "eventId": e1, "failedOnly": false});
    let r = replay_http(&s, &key, &id, Some(&body));
    assert_eq!((r.status, r.data()), (202, json!({"queued": 1})), "{r:?}");
    // (From now on: the worker of `serve` is failing these deliveries meanwhile, and a
    // failed one waiting for its retry is what `failedOnly` sends again.)
    let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    let r = replay_http(
        &s,
        &key,
        &id,
        Some(&json!({"since": now, "eventId": null, "failedOnly": true})),
    );
    assert_eq!((r.status, r.data()), (202, json!({"queued": 0})), "{r:?}");
    let before = env.count_rows("deliveries");

    assert_error(&replay_http(&s, &ro, &id, None), 403, "FORBIDDEN", None);
    assert_error(&replay_http(&s, &other, &id, None), 404, "NOT_FOUND", None);
    let bad: [(Value, &str); 9] = [
        (json!({"since": "2999-01-01T00:00:00Z"}), "since"),
        (json!({"since": "yesterday"}), "since"),
        (json!({"since": "2026-01-01T00:00:00"}), "since"),
        (json!({"since": 5}), "since"),
        (json!({"eventId": theirs}), "eventId"),
        (json!({"eventId": unsubscribed}), "eventId"),
        (
            json!({"eventId": "evt_0123456789abcdef0123456789abcdef"}),
            "eventId",
        ),
        (json!({"failedOnly": "yes"}), "failedOnly"),
        (json!({"until": "x"}), "until"),
    ];
    for (body, field) in &bad {
        let r = replay_http(&s, &key, &id, Some(body));
        assert_error(&r, 400, "VALIDATION_ERROR", Some(field));
    }
    let r = s.post(
        &format!("/api/v1/webhooks/{id}/replay"),
        Some(&key),
        "application/json",
        b"[1]",
    );
    assert_error(&r, 400, "VALIDATION_ERROR", Some("body"));
    let r = s.post(
        &format!("/api/v1/webhooks/{id}/replay"),
        Some(&key),
        "text/plain",
        b"{}",
    );
    assert_eq!(r.status, 415, "{r:?}");

    let r = s.send(
        "PATCH",
        &format!("/api/v1/webhooks/{id}"),
        &[
            ("Authorization", &format!("Bearer {key}")),
            ("Content-Type", "application/json"),
        ],
        Some(br#"{"isActive": false}"#),
    );
    assert_eq!(r.status, 200, "{r:?}");
    assert_error(
        &replay_http(&s, &key, &id, None),
        409,
        "WEBHOOK_DISABLED",
        None,
    );
    let r = s.call("GET", &format!("/api/v1/webhooks/{id}/replay"), Some(&key));
    assert_eq!((r.status, r.header("Allow")), (405, Some("POST")), "{r:?}");
    assert_eq!(
        env.count_rows("deliveries"),
        before,
        "nothing queued by a refusal"
    );
}

/// A window with more events than one replay queues is refused whole, with nothing queued:
/// a replay is one bounded statement, never an unbounded one.
#[test]
fn a_window_over_the_cap_is_refused_with_nothing_queued() {
    let env = Env::new();
    let id =
        id_of(&env.create_webhook_with("http://127.0.0.1:9/r", "post.published", &["--user", "u"]));
    emit(&env, &["post.published", "--user", "u", "--data", "{}"]);
    let now = env.sql_i64("SELECT max(created_at) FROM events");
    // 10,000 more events of the user, an hour old, written straight into the table.
    let insert = if env.is_sqlite() {
        format!(
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10000)
             INSERT INTO events (id, user_id, event, payload, created_at)
             SELECT printf('evt_%032x', i), 'u', 'post.published', X'7B7D', {} FROM n",
            now - HOUR
        )
    } else {
        format!(
            "INSERT INTO events (id, user_id, event, payload, created_at)
             SELECT 'evt_' || lpad(to_hex(i), 32, '0'), 'u', 'post.published', '\\x7b7d', {}
             FROM generate_series(1, 10000) i",
            now - HOUR
        )
    };
    env.sql(&insert);
    let before = env.count_rows("deliveries");
    let (code, v) = replay_cli(&env, "u", &id, &[]);
    assert_eq!(code, 2, "{v}");
    assert_eq!(v["error"]["details"][0]["field"], "since", "{v}");
    assert!(
        v["error"]["details"][0]["message"]
            .as_str()
            .unwrap()
            .contains("more than 10000 events"),
        "{v}"
    );
    assert_eq!(env.count_rows("deliveries"), before);
    // Exactly at the cap is taken.
    let one = if env.is_sqlite() {
        "printf('evt_%032x', 1)"
    } else {
        "'evt_' || lpad(to_hex(1), 32, '0')"
    };
    env.sql(&format!("DELETE FROM events WHERE id = {one}"));
    assert_eq!(queued(&env, "u", &id, &[]), 10_000);
    assert_eq!(env.count_rows("deliveries"), before + 10_000);
}
