//! Each rule that must hold under concurrent writers, with real concurrent connections:
//! several backends on one database (as several instances would have) and several pooled
//! connections of each, released together by a barrier. SQLite makes them hold by taking
//! the whole file for each write transaction; PostgreSQL by a lock of its own for each
//! (`keyhook-postgres/src/lib.rs`).

use keyhook_test_support::{ClaimDue, KeyByHash};
use std::collections::HashSet;
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use keyhook_core::auth;
use keyhook_core::error::Error;
use keyhook_core::service::keys;
use keyhook_core::service::webhooks::{
    self, log_attempt, AttemptOf, WebhookPatch, WebhookUrl, DISABLE_AFTER_FAILURES,
    MAX_WEBHOOKS_PER_USER,
};
use keyhook_core::service::Publish;
use keyhook_core::store::{Backend, ReadAhead, StoreError};
use keyhook_core::time::Timestamp;
use keyhook_core::transport::Attempt;

use crate::support::{create_webhook, key, operator, webhook_input, Db, Kind, NOW};

/// `n` threads, each with a connection of one of `instances` backends, running `f(i)` at the
/// same moment; their results in thread order.
fn race<T: Send + 'static>(
    instances: &[Arc<dyn Backend>],
    n: usize,
    f: impl Fn(usize, &keyhook_core::store::Store) -> T + Send + Sync + 'static,
) -> Vec<T> {
    let barrier = Arc::new(Barrier::new(n));
    let f = Arc::new(f);
    let threads: Vec<_> = (0..n)
        .map(|i| {
            let backend = instances[i % instances.len()].clone();
            let (barrier, f) = (barrier.clone(), f.clone());
            std::thread::spawn(move || {
                // Connected or not, every thread reaches the barrier, so none waits forever.
                let store = backend.connect();
                barrier.wait();
                f(i, &store.expect("connect"))
            })
        })
        .collect();
    threads.into_iter().map(|t| t.join().unwrap()).collect()
}

/// Three "instances" of a database, each with a pool of `size`, migrated.
fn instances(db: &Db, size: u32) -> Vec<Arc<dyn Backend>> {
    (0..3)
        .map(|_| {
            let b = db.backend(size);
            drop(b.connect().unwrap());
            b
        })
        .collect()
}

/// 24 creates race for the last slot of a user who has 9 webhooks, across three instances:
/// exactly one wins, the others get WEBHOOK_LIMIT_REACHED, and the user has 10. Then 24
/// race from zero: exactly 10 win.
pub fn the_webhook_limit_holds_when_creates_race(kind: &Kind) {
    let Some(db) = kind.db() else { return };
    let all = instances(&db, 8);
    let s = all[0].connect().unwrap();
    for _ in 0..MAX_WEBHOOKS_PER_USER - 1 {
        create_webhook(&s, "alice", NOW);
    }
    drop(s);
    for (user, want) in [("alice", 1), ("bob", MAX_WEBHOOKS_PER_USER as usize)] {
        let results = race(&all, 24, move |_, s| {
            webhooks::create(
                s,
                &operator(user),
                webhook_input(),
                NOW,
                Publish::AfterCommit,
            )
        });
        let won = results.iter().filter(|r| r.is_ok()).count();
        assert_eq!(won, want, "{user}");
        for r in results.iter().filter_map(|r| r.as_ref().err()) {
            assert!(matches!(r, Error::LimitReached(_)), "{r:?}");
        }
        let count = all[0]
            .connect()
            .unwrap()
            .conn()
            .count_webhooks(user)
            .unwrap();
        assert_eq!(count, MAX_WEBHOOKS_PER_USER, "{user}");
    }
}

/// Workers on several instances claim from one outbox until it is empty: every delivery is
/// claimed exactly once.
pub fn two_claimers_never_claim_the_same_delivery(kind: &Kind) {
    let Some(db) = kind.db() else { return };
    let all = instances(&db, 4);
    let s = all[0].connect().unwrap();
    for _ in 0..4 {
        create_webhook(&s, "alice", NOW);
    }
    let events = 60;
    for i in 0..events {
        s.write(|c| {
            let id = format!("evt_{i}");
            c.insert_event(&id, "alice", "post.published", None, b"{}", NOW)?;
            crate::support::fan_out(c, &id, "alice", "post.published", None, NOW)
        })
        .unwrap();
    }
    drop(s);
    let total = events * 4;
    let claimed = race(&all, 12, |_, s| {
        let mut mine = Vec::new();
        loop {
            let batch = s
                .write(|c| Ok(c.claim_due(NOW, 7, NOW.add_millis(60_000), None)?))
                .unwrap();
            if batch.is_empty() {
                return mine;
            }
            mine.extend(batch.into_iter().map(|d| d.delivery_id));
        }
    });
    let all_claims: Vec<String> = claimed.into_iter().flatten().collect();
    let distinct: HashSet<&String> = all_claims.iter().collect();
    assert_eq!(distinct.len(), all_claims.len(), "a delivery claimed twice");
    assert_eq!(all_claims.len(), total);
}

/// A claimer never takes a row of another one's uncommitted claim. With concurrent writers
/// it does not wait for it either: it skips the locked rows and takes the others at once.
/// SQLite serialises the two claims instead: the second waits for the first to commit and
/// then takes what is left.
pub fn a_claim_skips_rows_another_claim_holds(kind: &Kind) {
    let Some(db) = kind.db() else { return };
    let backend = db.backend(4);
    let s = backend.connect().unwrap();
    create_webhook(&s, "alice", NOW);
    for i in 0..4 {
        s.write(|c| {
            let id = format!("evt_{i}");
            c.insert_event(
                &id,
                "alice",
                "post.published",
                None,
                b"{}",
                NOW.add_millis(i),
            )?;
            crate::support::fan_out(c, &id, "alice", "post.published", None, NOW.add_millis(i))
        })
        .unwrap();
    }
    let (held, release) = (Arc::new(Barrier::new(2)), Arc::new(Barrier::new(2)));
    let holder = {
        let backend = db.backend(1);
        let (held, release) = (held.clone(), release.clone());
        std::thread::spawn(move || {
            let s = backend.connect().unwrap();
            s.write(|c| {
                let first = c.claim_due(NOW.add_millis(10), 2, NOW.add_millis(60_000), None)?;
                held.wait();
                release.wait();
                Ok(first.len())
            })
            .unwrap()
        })
    };
    held.wait();
    // The second claim runs on a thread of its own, so that a claim that waits for the first
    // one (which waits for us) fails the test instead of hanging it.
    let (sent, got) = std::sync::mpsc::channel();
    let claimer = std::thread::spawn(move || {
        let second =
            s.write(|c| Ok(c.claim_due(NOW.add_millis(10), 10, NOW.add_millis(60_000), None)?));
        sent.send(second.map(|d| d.len()).map_err(|e| e.to_string()))
            .unwrap();
    });
    if kind.concurrent_writers {
        let second = got.recv_timeout(Duration::from_secs(2));
        release.wait();
        claimer.join().unwrap();
        assert_eq!(holder.join().unwrap(), 2);
        assert_eq!(second, Ok(Ok(2)), "the second claim waited for the first");
    } else {
        let early = got.recv_timeout(Duration::from_millis(300));
        assert!(early.is_err(), "a claim ran beside another: {early:?}");
        release.wait();
        claimer.join().unwrap();
        assert_eq!(holder.join().unwrap(), 2);
        assert_eq!(
            got.recv(),
            Ok(Ok(2)),
            "the second claim took what the first held"
        );
    }
}

fn failure() -> Attempt {
    Attempt {
        delivered: false,
        status_code: 500,
        status_text: "Internal Server Error".into(),
        duration_ms: 3,
        response_excerpt: String::new(),
        retry_after_ms: None,
    }
}

/// 40 failed attempts on one webhook at once, from three instances, while the webhook is
/// also being edited: failCount is exactly 10 (the threshold, where it stops), every attempt
/// is logged, and the webhook is disabled.
pub fn fail_count_is_exact_under_concurrent_attempts_and_edits(kind: &Kind) {
    let Some(db) = kind.db() else { return };
    let all = instances(&db, 12);
    let s = all[0].connect().unwrap();
    let w = create_webhook(&s, "alice", NOW);
    drop(s);
    let id = w.id.clone();
    let results = race(&all, 30, move |i, s| -> Result<(), Error> {
        if i % 3 == 2 {
            // An edit reads the webhook and writes all of it back: without the row lock it
            // would put back a failCount that attempts have moved on from.
            for n in 0..4 {
                let patch = WebhookPatch {
                    url: WebhookUrl::new(&format!("http://127.0.0.1:9/h{i}-{n}"), true).ok(),
                    ..WebhookPatch::default()
                };
                webhooks::update(s, &operator("alice"), &id, patch, NOW.add_millis(1))?;
            }
            return Ok(());
        }
        for n in 0..2 {
            let of = AttemptOf {
                webhook_id: &id,
                delivery_id: None,
                event_id: "evt_test",
                event: "webhook.test",
                attempt: n + 1,
            };
            let at = NOW.add_millis(100 + i as i64);
            s.write(|c| log_attempt(c, of, at, &failure()))?;
        }
        Ok(())
    });
    for r in results {
        r.unwrap();
    }
    let s = all[1].connect().unwrap();
    let w = webhooks::get(&s, &operator("alice"), &w.id).unwrap();
    // Exactly the threshold: no attempt lost, and none counted after the one that disabled
    // the webhook.
    assert_eq!(w.fail_count, 10);
    assert!(!w.is_active);
    assert_eq!(s.conn().attempts(&w.id, 100).unwrap().len(), 40);
}

/// The attempt that reaches the threshold disables the webhook, whichever instance makes it;
/// a success resets the count.
pub fn the_tenth_consecutive_failure_disables_and_a_success_resets(kind: &Kind) {
    let Some(db) = kind.db() else { return };
    let all = instances(&db, 10);
    let s = all[0].connect().unwrap();
    let w = create_webhook(&s, "alice", NOW);
    let id = w.id.clone();
    let record = |s: &keyhook_core::store::Store, attempt: &Attempt| {
        let of = AttemptOf {
            webhook_id: &id,
            delivery_id: None,
            event_id: "evt_test",
            event: "webhook.test",
            attempt: 1,
        };
        s.write(|c| log_attempt(c, of, NOW, attempt)).unwrap();
    };
    for _ in 0..5 {
        record(&s, &failure());
    }
    let ok = Attempt {
        delivered: true,
        status_code: 200,
        status_text: "OK".into(),
        ..failure()
    };
    record(&s, &ok);
    let get = |s: &keyhook_core::store::Store| webhooks::get(s, &operator("alice"), &w.id).unwrap();
    assert_eq!((get(&s).fail_count, get(&s).is_active), (0, true));
    drop(s);
    let id2 = w.id.clone();
    race(&all, (DISABLE_AFTER_FAILURES - 1) as usize, move |_, s| {
        let of = AttemptOf {
            webhook_id: &id2,
            delivery_id: None,
            event_id: "evt_test",
            event: "webhook.test",
            attempt: 1,
        };
        s.write(|c| log_attempt(c, of, NOW, &failure())).unwrap();
    });
    let s = all[2].connect().unwrap();
    assert_eq!(
        (get(&s).fail_count, get(&s).is_active),
        (DISABLE_AFTER_FAILURES - 1, true)
    );
    record(&s, &failure());
    assert_eq!(
        (get(&s).fail_count, get(&s).is_active),
        (DISABLE_AFTER_FAILURES, false)
    );
}

/// A key deleted through one instance is refused by another on the very next request, and
/// one expired early likewise: nothing is cached.
pub fn a_key_revoked_anywhere_is_refused_everywhere_at_once(kind: &Kind) {
    let Some(db) = kind.db() else { return };
    let (a, b) = (db.backend(2), db.backend(2));
    let on_a = a.connect().unwrap();
    let on_b = b.connect().unwrap();
    for round in 0..3 {
        let k = key(&on_b, "alice", &format!("k{round}"));
        let plaintext = k.key.clone().unwrap();
        for _ in 0..3 {
            auth::authenticate_request(&on_a, &plaintext, NOW, ReadAhead::Nothing).unwrap();
        }
        keys::delete(&on_b, &operator("alice"), &k.id, NOW).unwrap();
        let e = auth::authenticate_request(&on_a, &plaintext, NOW, ReadAhead::Nothing).unwrap_err();
        assert!(matches!(e, Error::Unauthorized(_)), "{e:?}");
    }
    let k = key(&on_b, "alice", "expiring");
    let plaintext = k.key.clone().unwrap();
    auth::authenticate(&on_a, &plaintext, NOW).unwrap();
    on_b.write(|c| Ok(c.set_key_expiry(&k.id, NOW.add_millis(-1))?))
        .unwrap();
    let e = auth::authenticate(&on_a, &plaintext, NOW).unwrap_err();
    assert!(matches!(e, Error::Expired), "{e:?}");
}

/// A write transaction of `backend` that has applied `change` to the key `id` (and so holds
/// its row) when this returns, and commits once the sender is dropped or sent to; join the
/// handle after.
pub fn hold_key_row(
    backend: Arc<dyn Backend>,
    id: &str,
    change: impl Fn(keyhook_core::store::Conn<'_>, &str) -> keyhook_core::store::StoreResult<()>
        + Send
        + 'static,
) -> (std::sync::mpsc::Sender<()>, std::thread::JoinHandle<()>) {
    let holding = Arc::new(Barrier::new(2));
    let (release, released) = std::sync::mpsc::channel::<()>();
    let holder = {
        let (holding, id) = (holding.clone(), id.to_string());
        std::thread::spawn(move || {
            let o = backend.connect().unwrap();
            o.write(|c| {
                change(c, &id)?;
                holding.wait();
                let _ = released.recv_timeout(Duration::from_secs(10));
                Ok(())
            })
            .unwrap();
        })
    };
    holding.wait();
    (release, holder)
}

/// lastUsedAt never moves back, and recording a use gives up after a moment when another
/// transaction holds the key's row, instead of waiting for it; authentication still
/// succeeds. The use given up is not lost: the next use recorded records it too.
pub fn last_used_never_moves_back_and_never_waits_long(kind: &Kind) {
    let Some(db) = kind.db() else { return };
    let backend = db.backend(4);
    let s = backend.connect().unwrap();
    let k = key(&s, "alice", "ci");
    let plaintext = k.key.clone().unwrap();
    let hash = auth::hash_key(&plaintext);
    s.record_key_use(&hash, &k.id, Timestamp(NOW.0 + 5_000))
        .unwrap();
    s.record_key_use(&hash, &k.id, Timestamp(NOW.0 + 1_000))
        .unwrap();
    let last = |s: &keyhook_core::store::Store| s.key_by_hash(&hash).unwrap().unwrap().last_used_at;
    assert_eq!(last(&s), Some(Timestamp(NOW.0 + 5_000)));

    // Another instance holds the key's row until the checks below are done (or failed: the
    // sender is dropped then).
    let (release, holder) = hold_key_row(db.backend(1), &k.id, |c, id| {
        c.set_key_expiry(id, NOW.add_millis(86_400_000))
    });
    let started = Instant::now();
    let e = s
        .record_key_use(&hash, &k.id, Timestamp(NOW.0 + 9_000))
        .unwrap_err();
    assert!(
        started.elapsed() < Duration::from_millis(1_000),
        "{:?}",
        started.elapsed()
    );
    assert!(matches!(e, StoreError::Unavailable(_)), "{e:?}");
    let started = Instant::now();
    auth::authenticate_request(&s, &plaintext, Timestamp(NOW.0 + 9_000), ReadAhead::Nothing)
        .unwrap();
    assert!(started.elapsed() < Duration::from_millis(1_000));
    drop(release);
    holder.join().unwrap();
    assert_eq!(last(&s), Some(Timestamp(NOW.0 + 5_000)));
    // The connection is usable, outside any transaction, after giving up; the next use
    // (here one stamped earlier, as another instance's clock may) records the one given up.
    s.record_key_use(&hash, &k.id, Timestamp(NOW.0 + 7_000))
        .unwrap();
    assert_eq!(last(&s), Some(Timestamp(NOW.0 + 9_000)));
}
