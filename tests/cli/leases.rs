//! The outbox's leases: a worker renews the short lease of
//! every delivery it is still sending, so a request longer than the lease is never sent twice
//! while its worker lives, and a delivery held by a worker that died is sent again within
//! 15 s by the next worker. Real `keyhook deliver` processes, a real loopback receiver; on
//! both backends. The workers run on the test clock, which the tests move instead of waiting
//! for leases to run out.

use std::time::Duration;

use crate::common::{clocked_worker, kill, poll_until, Env};
use crate::receiver::Receiver;

/// The lease a claim or a renewal takes (`keyhook_delivery::worker::LEASE`), in ms.
const LEASE_MS: i64 = 10_000;
/// How long the tests wait for a worker process to act once the clock has moved.
const PATIENCE: Duration = Duration::from_secs(10);

/// A webhook to the receiver's `/hold` (answered once the receiver is released) and one event
/// for it.
fn one_delivery(env: &Env, receiver: &Receiver) {
    let (code, v) = env.json(&[
        "--allow-private-targets",
        "webhooks",
        "create",
        "--url",
        &receiver.url("/hold"),
        "--event",
        "post.published",
    ]);
    assert_eq!(code, 0, "{v}");
    let (code, v) = env.json(&["events", "emit", "post.published", "--data", "{}"]);
    assert_eq!(
        (code, &v["data"]["deliveries"]),
        (0, &serde_json::json!(1)),
        "{v}"
    );
}

/// The one delivery's `lease_until`, in ms since the epoch.
fn lease_until(env: &Env) -> i64 {
    env.sql_i64("SELECT lease_until FROM deliveries")
}

#[test]
fn a_delivery_held_by_a_killed_worker_is_sent_again_within_15_s() {
    let env = Env::with_clock();
    let receiver = Receiver::start();
    // The first worker's request is never answered while the test lasts.
    one_delivery(&env, &receiver);
    let claimed = env.clock_ms();
    let first = clocked_worker(&env, &["--delivery-timeout", "30s"], &[]);
    receiver.wait_for(1, PATIENCE);
    assert_eq!(lease_until(&env), claimed + LEASE_MS);
    // Let it renew its lease at least once before it dies: 4 s on the clock.
    env.advance_clock(4_000);
    let renewed = env.clock_ms() + LEASE_MS;
    assert!(
        poll_until(PATIENCE, || lease_until(&env) == renewed),
        "the lease was not renewed to {renewed}: {}",
        lease_until(&env)
    );
    kill(first);
    let killed = env.clock_ms();
    let second = clocked_worker(&env, &["--delivery-timeout", "30s"], &[]);
    // 15 s after the kill on the clock, the delivery must be sent again.
    env.advance_clock(15_000);
    let got = receiver.wait_for(2, PATIENCE);
    kill(second);
    assert_eq!(got.len(), 2, "{got:#?}");
    // `webhook-timestamp` is the worker's clock, in seconds, when it sent.
    let sent_at: i64 = got[1].header("webhook-timestamp").parse().unwrap();
    let after = Duration::from_millis(u64::try_from(sent_at * 1000 - killed).unwrap());
    assert!(
        after <= Duration::from_secs(15),
        "sent again after {after:?}"
    );
    assert_eq!(got[0].header("webhook-id"), got[1].header("webhook-id"));
}

#[test]
fn a_request_longer_than_the_lease_is_not_sent_twice_while_its_worker_lives() {
    let env = Env::with_clock();
    let receiver = Receiver::start();
    one_delivery(&env, &receiver);
    let first = clocked_worker(&env, &["--delivery-timeout", "30s"], &[]);
    receiver.wait_for(1, PATIENCE);
    let second = clocked_worker(&env, &["--delivery-timeout", "30s"], &[]);
    // The request lasts 15 s on the clock, longer than the 10 s lease: only renewal (every
    // 3 s) keeps the second worker off it.
    for _ in 0..5 {
        env.advance_clock(3_000);
        let renewed = env.clock_ms() + LEASE_MS;
        assert!(
            poll_until(PATIENCE, || lease_until(&env) == renewed),
            "the lease was not renewed to {renewed}: {}",
            lease_until(&env)
        );
    }
    receiver.release();
    let settled = poll_until(PATIENCE, || {
        env.sql_i64("SELECT count(*) FROM deliveries WHERE state <> 'pending'") > 0
    });
    let got = receiver.requests();
    kill(first);
    kill(second);
    assert!(settled, "the delivery was not settled");
    assert_eq!(got.len(), 1, "the delivery was sent twice: {:?}", got.len());
    let delivered = env.sql_i64("SELECT count(*) FROM deliveries WHERE state = 'delivered'");
    assert_eq!(delivered, 1);
}

/// A worker keeps the payloads of what it has claimed and not settled in memory: a claim
/// stops at what is left of 16 MiB of them (one event more at most), however deep its queue
/// (64 per sender). 300 deliveries of a ~60 KiB event (18 MiB) to a receiver that holds every
/// request: the leased ones fill the 16 MiB and stop there.
#[test]
fn a_worker_holds_at_most_16_mib_of_payloads() {
    let env = Env::with_clock();
    let receiver = Receiver::start();
    one_delivery(&env, &receiver);
    let data = format!("{{\"text\":\"{}\"}}", "a".repeat(60 * 1024));
    let file = env.dir.path().join("data.json");
    std::fs::write(&file, &data).unwrap();
    let (code, v) = env.json(&[
        "events",
        "emit",
        "post.published",
        "--data",
        &format!("@{}", file.display()),
    ]);
    assert_eq!(code, 0, "{v}");
    let event = v["data"]["id"]
        .as_str()
        .expect("the event's id")
        .to_string();
    // 299 more deliveries of the big event to the same webhook.
    env.sql(&format!(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 299)
         INSERT INTO deliveries (id, event_id, webhook_id, state, attempts, next_attempt_at,
            lease_until, created_at, updated_at)
         SELECT 'dlv_copy' || i, d.event_id, d.webhook_id, 'pending', 0, d.next_attempt_at,
            NULL, d.created_at, d.updated_at
         FROM n, deliveries d WHERE d.event_id = '{event}'"
    ));
    let total = env.sql_i64("SELECT count(*) FROM deliveries");
    assert_eq!(total, 301);
    let payload = env.sql_i64(&format!(
        "SELECT length(payload) FROM events WHERE id = '{event}'"
    ));
    assert!(payload > 60 * 1024, "{payload}");
    let w = clocked_worker(&env, &["--delivery-timeout", "30s"], &[]);
    // Every sender holds a request.
    receiver.wait_for(16, PATIENCE);
    // Two renewals seen on the clock: the worker has taken every claim it would take before
    // each (a turn renews, then claims).
    for _ in 0..2 {
        env.advance_clock(3_000);
        let renewed = env.clock_ms() + LEASE_MS;
        assert!(
            poll_until(PATIENCE, || env.sql_i64(&format!(
                "SELECT count(*) FROM deliveries WHERE lease_until = {renewed}"
            )) > 0),
            "the leases were not renewed to {renewed}"
        );
    }
    let (leased, held) = {
        let now = env.clock_ms();
        let rows = env.sql(&format!(
            "SELECT count(*), sum(length(e.payload)) FROM deliveries d
             JOIN events e ON e.id = d.event_id WHERE d.lease_until >= {now}"
        ));
        (
            rows[0][0].parse::<i64>().unwrap(),
            rows[0][1].parse::<i64>().unwrap(),
        )
    };
    kill(w);
    // The claim goes up to the bound and past it by one event at most.
    assert!(
        held >= 16 << 20 && held - payload < 16 << 20 && leased < total,
        "{leased} deliveries ({held} bytes) of {total} leased"
    );
}
