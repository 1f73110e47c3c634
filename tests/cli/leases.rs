//! The outbox's leases (CONTRACT §6 crash recovery, §8): a worker renews the short lease of
//! every delivery it is still sending, so a request longer than the lease is never sent twice
//! while its worker lives, and a delivery held by a worker that died is sent again within
//! 15 s by the next worker. Real `keyhook deliver` processes, a real loopback receiver; on
//! both backends.

use std::os::unix::process::ExitStatusExt;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use crate::common::{std_cmd, Env};
use crate::receiver::Receiver;

/// A `deliver` worker (until killed) on `env`'s database.
fn worker(env: &Env) -> Child {
    std_cmd()
        .arg("--db")
        .arg(env.db_arg())
        .args([
            "--allow-private-targets",
            "--delivery-timeout",
            "30s",
            "deliver",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn keyhook deliver")
}

/// A webhook to the receiver's `/delay` and one event for it.
fn one_delivery(env: &Env, receiver: &Receiver) {
    let (code, v) = env.json(&[
        "--allow-private-targets",
        "webhooks",
        "create",
        "--url",
        &receiver.url("/delay"),
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

fn kill(mut child: Child) {
    child.kill().expect("kill -9");
    let status = child.wait().unwrap();
    assert_eq!(status.signal(), Some(9), "{status:?}");
}

#[test]
fn a_delivery_held_by_a_killed_worker_is_sent_again_within_15_s() {
    let env = Env::new();
    let receiver = Receiver::start();
    // The first worker's request never ends while the test lasts.
    receiver.set_delay(Duration::from_secs(60));
    one_delivery(&env, &receiver);
    let first = worker(&env);
    receiver.wait_for(1, Duration::from_secs(10));
    // Let it renew its lease at least once before it dies.
    std::thread::sleep(Duration::from_secs(4));
    kill(first);
    let killed = Instant::now();
    let second = worker(&env);
    let got = receiver.wait_for(2, Duration::from_secs(25));
    let after = killed.elapsed();
    kill(second);
    assert_eq!(got.len(), 2, "sent again after {after:?}");
    assert!(
        after <= Duration::from_secs(15),
        "sent again after {after:?}"
    );
    assert_eq!(got[0].header("webhook-id"), got[1].header("webhook-id"));
}

#[test]
fn a_request_longer_than_the_lease_is_not_sent_twice_while_its_worker_lives() {
    let env = Env::new();
    let receiver = Receiver::start();
    // Longer than the 10 s lease: only renewal keeps the second worker off it.
    receiver.set_delay(Duration::from_secs(13));
    one_delivery(&env, &receiver);
    let first = worker(&env);
    receiver.wait_for(1, Duration::from_secs(10));
    let second = worker(&env);
    // The first answer comes after 13 s; give the second worker time to look after that.
    std::thread::sleep(Duration::from_secs(15));
    let got = receiver.requests();
    kill(first);
    kill(second);
    assert_eq!(got.len(), 1, "the delivery was sent twice: {:?}", got.len());
    let delivered = env.sql_i64("SELECT count(*) FROM deliveries WHERE state = 'delivered'");
    assert_eq!(delivered, 1);
}
