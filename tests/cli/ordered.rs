//! Ordered delivery (CONTRACT §15 `--ordered`): an ordered webhook's deliveries go
//! one at a time in the order they were queued, a failing one holding the later ones until
//! it is delivered or exhausted, and the deliveries list says which one holds the queue.
//! Real `keyhook deliver` processes and a real loopback receiver, on both backends, on the
//! test clock; the property test kills workers (SIGKILL) at random points.

use std::process::Child;
use std::time::Duration;

use proptest::prelude::*;
use serde_json::{json, Value};

use crate::common::{attempts, clocked_worker, kill, poll_until, str_of, Env};
use crate::receiver::Receiver;
use crate::server::Server;

const PATIENCE: Duration = Duration::from_secs(20);

/// `events emit post.published` with `{"n": n}`; returns the event's id.
fn emit_n(env: &Env, n: usize) -> String {
    let data = json!({ "n": n }).to_string();
    let (code, v) = env.json(&["events", "emit", "post.published", "--data", &data]);
    assert_eq!(code, 0, "{v}");
    str_of(&v["data"], "id").to_string()
}

/// The `n` of each request the receiver got to a path starting with `prefix`, in order.
fn order_at(rx: &Receiver, prefix: &str) -> Vec<i64> {
    rx.requests()
        .iter()
        .filter(|r| r.target.starts_with(prefix))
        .map(|r| r.json()["data"]["n"].as_i64().unwrap())
        .collect()
}

/// Four senders, an ordered webhook to `/hold` (answered once released) and an unordered one
/// to `/ok`: while the ordered one's first request waits, the worker goes on claiming (the
/// unordered webhook gets every event, a later one too) and never sends the ordered one's
/// second; released, the rest arrive one by one in the order they were queued. A webhook
/// made without `--ordered` is unordered.
#[test]
fn an_ordered_webhook_has_one_delivery_in_flight_and_keeps_the_queues_order() {
    let env = Env::with_clock();
    let rx = Receiver::start();
    let ordered = env.create_webhook_with(&rx.url("/hold"), "post.published", &["--ordered"]);
    assert_eq!(ordered["ordered"], true, "{ordered}");
    let plain = env.create_webhook(&rx.url("/ok?plain"), "post.published");
    assert_eq!(plain["ordered"], false, "{plain}");
    for n in 0..8 {
        emit_n(&env, n);
    }
    let w = clocked_worker(&env, &[], &["--delivery-workers", "4"]);
    assert!(poll_until(PATIENCE, || order_at(&rx, "/ok").len() == 8));
    // A later event: the worker claims again while the ordered head is in flight.
    emit_n(&env, 8);
    assert!(poll_until(PATIENCE, || order_at(&rx, "/ok").len() == 9));
    assert_eq!(
        order_at(&rx, "/hold"),
        [0],
        "one in flight, the first queued"
    );
    let oid = str_of(&ordered, "id");
    assert_eq!(
        env.sql_i64(&format!(
            "SELECT count(*) FROM deliveries WHERE webhook_id = '{oid}' AND state = 'pending'
             AND lease_until IS NOT NULL"
        )),
        1,
        "only the head is leased"
    );
    rx.release();
    assert!(poll_until(PATIENCE, || order_at(&rx, "/hold").len() == 9));
    kill(w);
    assert_eq!(order_at(&rx, "/hold"), (0..9).collect::<Vec<_>>());
}

/// A failing head holds the later deliveries while it waits for its retries, and the
/// deliveries list (CLI `--json`, the table, HTTP) marks it `holdsQueue` with how many wait
/// behind it; exhausted, the next one goes, and is held in its turn; once the receiver
/// answers, the rest follow in order. An unordered webhook's deliveries are not held.
#[test]
fn a_failing_delivery_holds_the_queue_until_it_is_exhausted() {
    let env = Env::with_clock();
    let rx = Receiver::start();
    rx.set_status(500);
    let w = env.create_webhook_with(
        &rx.url("/switch?ordered"),
        "post.published",
        &["--ordered", "--retry-schedule", "1s,1s"],
    );
    let id = str_of(&w, "id").to_string();
    env.create_webhook_with(
        &rx.url("/switch?plain"),
        "post.published",
        &["--retry-schedule", "1s,1s"],
    );
    for n in 0..3 {
        emit_n(&env, n);
    }
    env.deliver_once_with(&["--delivery-workers", "4"]);
    assert_eq!(order_at(&rx, "/switch?ordered"), [0]);
    assert_eq!(
        order_at(&rx, "/switch?plain").len(),
        3,
        "unordered: all at once"
    );

    let log = attempts(&env, &id);
    assert_eq!(log.len(), 1, "{log:?}");
    assert_eq!(log[0]["holdsQueue"], true, "{log:?}");
    assert_eq!(log[0]["queuedBehind"], 2, "{log:?}");
    let table = env.run(&["webhooks", "deliveries", &id]);
    assert!(
        table.stdout.contains("holds the queue, 2 waiting"),
        "{}",
        table.stdout
    );
    let (key, _) = crate::common::new_key(&env, "k", &[]);
    let server = Server::start(&env);
    let listed = server
        .get(&format!("/api/v1/webhooks/{id}/deliveries"), &key)
        .data();
    assert_eq!(listed[0]["holdsQueue"], true, "{listed}");
    assert_eq!(listed[0]["queuedBehind"], 2, "{listed}");
    drop(server);

    // Each step: past the next retry (1 s, give or take its tenth of jitter).
    env.advance_clock(1_100);
    env.deliver_once();
    assert_eq!(
        order_at(&rx, "/switch?ordered"),
        [0, 0],
        "the head's retry only"
    );
    // Its last attempt fails: exhausted, the next one goes at once, and holds in its turn.
    env.advance_clock(1_100);
    env.deliver_once();
    assert_eq!(order_at(&rx, "/switch?ordered"), [0, 0, 0, 1]);
    let log = attempts(&env, &id);
    let holding: Vec<&Value> = log.iter().filter(|a| a["holdsQueue"] == true).collect();
    assert_eq!(holding.len(), 1, "{log:?}");
    assert_eq!(holding[0]["queuedBehind"], 1, "{log:?}");
    assert!(log
        .iter()
        .filter(|a| a["holdsQueue"] == false)
        .all(|a| a["queuedBehind"] == 0));

    rx.set_status(200);
    env.advance_clock(1_100);
    env.deliver_once();
    assert_eq!(order_at(&rx, "/switch?ordered"), [0, 0, 0, 1, 1, 2]);
    assert!(attempts(&env, &id).iter().all(|a| a["holdsQueue"] == false));
    assert_eq!(
        env.sql_i64("SELECT count(*) FROM deliveries WHERE state = 'pending'"),
        0
    );
}

/// `--ordered` / `--no-ordered` on the CLI, `ordered` over HTTP (`null` clears, anything but
/// a boolean is refused), each change audited; made unordered, a held queue's waiting
/// deliveries are sent at once.
#[test]
fn ordered_is_set_and_cleared_on_the_cli_and_over_http() {
    let env = Env::with_clock();
    let rx = Receiver::start();
    rx.set_status(500);
    let w = env.create_webhook_with(
        &rx.url("/switch"),
        "post.published",
        &["--ordered", "--retry-schedule", "1h"],
    );
    let id = str_of(&w, "id").to_string();
    let shown = env.run(&["webhooks", "show", &id]);
    assert!(shown.stdout.contains("ordered"), "{}", shown.stdout);
    for n in 0..3 {
        emit_n(&env, n);
    }
    env.deliver_once();
    assert_eq!(order_at(&rx, "/switch"), [0]);
    let (code, v) = env.json(&["webhooks", "update", &id, "--no-ordered"]);
    assert_eq!((code, &v["data"]["ordered"]), (0, &json!(false)), "{v}");
    env.deliver_once();
    let mut sent = order_at(&rx, "/switch");
    sent.sort_unstable();
    assert_eq!(sent, [0, 1, 2], "the waiting ones are sent once unordered");
    let (code, v) = env.json(&["webhooks", "update", &id, "--ordered"]);
    assert_eq!((code, &v["data"]["ordered"]), (0, &json!(true)), "{v}");
    let r = env.run(&["webhooks", "update", &id, "--ordered", "--no-ordered"]);
    assert_eq!(r.code, 2, "{r:#?}");

    let (key, _) = crate::common::new_key(&env, "k", &[]);
    let server = Server::start(&env);
    let path = format!("/api/v1/webhooks/{id}");
    let r = server.send_json("PATCH", &path, &key, &json!({"ordered": null}));
    assert_eq!(
        (r.status, &r.data()["ordered"]),
        (200, &json!(false)),
        "{r:?}"
    );
    let r = server.send_json("PATCH", &path, &key, &json!({"ordered": true}));
    assert_eq!(
        (r.status, &r.data()["ordered"]),
        (200, &json!(true)),
        "{r:?}"
    );
    let r = server.send_json("PATCH", &path, &key, &json!({"ordered": "yes"}));
    assert_eq!(r.status, 400, "{r:?}");
    assert!(format!("{:?}", r.json()).contains("ordered"), "{r:?}");
    let r = server.post_json(
        "/api/v1/webhooks",
        &key,
        &json!({"url": "https://example.com/a", "events": ["post.published"], "ordered": true}),
    );
    assert_eq!(
        (r.status, &r.data()["ordered"]),
        (201, &json!(true)),
        "{r:?}"
    );
    let r = server.post_json(
        "/api/v1/webhooks",
        &key,
        &json!({"url": "https://example.com/b", "events": ["post.published"]}),
    );
    assert_eq!(
        (r.status, &r.data()["ordered"]),
        (201, &json!(false)),
        "{r:?}"
    );
    drop(server);

    let (code, v) = env.json(&["audit"]);
    assert_eq!(code, 0, "{v}");
    let changes: Vec<&Value> = v["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["action"] == "webhook.updated" && e["target"] == id.as_str())
        .map(|e| &e["details"]["ordered"])
        .collect();
    assert_eq!(
        changes.len(),
        4,
        "{}",
        serde_json::to_string_pretty(&v).unwrap()
    );
}

/// What a receiver answers in one round of the property test.
#[derive(Debug, Clone, Copy)]
enum Answer {
    Ok,
    Fail,
    /// Past the webhook's 300 ms timeout.
    Timeout,
}

#[derive(Debug, Clone)]
struct Round {
    /// Events emitted before the round's workers start.
    emit: usize,
    answer: Answer,
    /// Workers at once (each with two senders).
    workers: usize,
    /// The workers are killed once this many more requests arrived (or nothing is left to
    /// send at the clock's time).
    kill_after: usize,
}

fn round() -> impl Strategy<Value = Round> {
    (
        0usize..4,
        prop_oneof![
            5 => Just(Answer::Ok),
            3 => Just(Answer::Fail),
            1 => Just(Answer::Timeout)
        ],
        1usize..3,
        0usize..4,
    )
        .prop_map(|(emit, answer, workers, kill_after)| Round {
            emit,
            answer,
            workers,
            kill_after,
        })
}

/// Whether the head of the ordered webhook's queue is claimable at the clock's time: a
/// worker left running would still send something.
fn head_due(env: &Env) -> bool {
    let order = if env.is_sqlite() { "rowid" } else { "seq" };
    let now = env.clock_ms();
    env.sql_i64(&format!(
        "SELECT count(*) FROM deliveries h WHERE h.id = (SELECT id FROM deliveries
            WHERE state = 'pending' ORDER BY {order} LIMIT 1)
         AND (h.lease_until IS NULL OR h.lease_until <= {now})
         AND (h.next_attempt_at <= {now} OR h.next_attempt_at = 9223372036854775807)"
    )) > 0
}

/// One case: rounds of events, receiver answers and workers killed at random points, then
/// workers that run to the end. Whatever happened, the receiver saw the events in queue
/// order (an event's attempts, a resend after a kill among them, all before the next
/// event's first), nothing is left pending, every event is delivered, failed for good or
/// cancelled with its webhook, and every delivered one reached the receiver with a 200.
fn ordered_under_kills(rounds: &[Round]) -> Result<(), TestCaseError> {
    let env = Env::with_clock();
    let rx = Receiver::start();
    rx.set_delay(Duration::from_millis(1_000));
    let w = env.create_webhook_with(
        &rx.url("/ok?q"),
        "post.published",
        &[
            "--ordered",
            "--retry-schedule",
            "1s,1s",
            "--timeout",
            "300ms",
        ],
    );
    let id = str_of(&w, "id").to_string();
    let mut events = Vec::new();
    for r in rounds {
        for _ in 0..r.emit {
            events.push(emit_n(&env, events.len()));
        }
        let url = match r.answer {
            Answer::Ok => rx.url("/ok?q"),
            Answer::Fail => rx.url("/fail?q"),
            Answer::Timeout => rx.url("/delay?q"),
        };
        let (code, v) = env.json(&[
            "--allow-private-targets",
            "webhooks",
            "update",
            &id,
            "--url",
            &url,
        ]);
        prop_assert_eq!(code, 0, "{}", v);
        // Ten failures in a row disable the webhook (its waiting deliveries are cancelled):
        // enabled again, later events are delivered.
        env.json(&["webhooks", "enable", &id]);
        let before = rx.requests().len();
        let workers: Vec<Child> = (0..r.workers)
            .map(|_| clocked_worker(&env, &[], &["--delivery-workers", "2"]))
            .collect();
        poll_until(Duration::from_secs(5), || {
            rx.requests().len() >= before + r.kill_after.max(1) || !head_due(&env)
        });
        for w in workers {
            kill(w);
        }
        // Past the lease of what the dead workers held (10 s) and every retry (1 s).
        env.advance_clock(11_000);
    }
    // To the end: the receiver answers 200, one worker at a time until nothing is pending.
    let (code, _) = env.json(&[
        "--allow-private-targets",
        "webhooks",
        "update",
        &id,
        "--url",
        &rx.url("/ok?q"),
    ]);
    prop_assert_eq!(code, 0);
    env.json(&["webhooks", "enable", &id]);
    for _ in 0..20 {
        if env.sql_i64("SELECT count(*) FROM deliveries WHERE state = 'pending'") == 0 {
            break;
        }
        env.deliver_once();
        env.advance_clock(11_000);
    }
    prop_assert_eq!(
        env.sql_i64("SELECT count(*) FROM deliveries WHERE state = 'pending'"),
        0,
        "nothing left pending"
    );
    prop_assert_eq!(
        env.sql_i64("SELECT count(*) FROM deliveries") as usize,
        events.len(),
        "one delivery per event"
    );
    let seen: Vec<(i64, String)> = rx
        .requests()
        .iter()
        .map(|r| (r.json()["data"]["n"].as_i64().unwrap(), r.target.clone()))
        .collect();
    let order: Vec<i64> = seen.iter().map(|(n, _)| *n).collect();
    eprintln!(
        "{} rounds, {} events, {} requests: {:?}",
        rounds.len(),
        events.len(),
        seen.len(),
        seen
    );
    prop_assert!(
        order.windows(2).all(|p| p[0] <= p[1]),
        "out of order: {:?}",
        order
    );
    for (n, event) in events.iter().enumerate() {
        let state = env.sql(&format!(
            "SELECT state FROM deliveries WHERE event_id = '{event}'"
        ));
        let state = state[0][0].as_str();
        prop_assert!(
            ["delivered", "failed", "cancelled"].contains(&state),
            "{}: {}",
            n,
            state
        );
        if state == "delivered" {
            prop_assert!(
                seen.iter()
                    .any(|(m, t)| *m == n as i64 && t.starts_with("/ok")),
                "event {} delivered without a 200: {:?}",
                n,
                seen
            );
        }
    }
    Ok(())
}

proptest! {
    // Each case runs real processes: a few per run (KEYHOOK_ORDERED_CASES for more).
    #![proptest_config(ProptestConfig {
        cases: std::env::var("KEYHOOK_ORDERED_CASES")
            .ok()
            .and_then(|c| c.parse().ok())
            .unwrap_or(3),
        max_shrink_iters: 4,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn an_ordered_webhook_keeps_its_order_and_loses_nothing_when_workers_are_killed(
        rounds in prop::collection::vec(round(), 3..7)
    ) {
        ordered_under_kills(&rounds)?;
    }
}
