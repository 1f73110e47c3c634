//! The audit log's storage on both backends: entries commit and roll back with their
//! change, listing is newest first within a user, and `prune_audit` deletes the oldest in
//! bounded batches (what retention calls).

use keyhook_test_support as support;
use keyhook_test_support::NOW;

use keyhook_core::model::{ApiKey, AuditEntry};
use keyhook_core::service::audit::{self, Action, Entry, Query, Via};
use keyhook_core::service::keys::{self, KeyName, NewKey};
use keyhook_core::service::{Actor, Publish};
use keyhook_core::time::Timestamp;
use keyhook_core::Error;
use serde_json::json;

#[test]
fn these_tests_pass_on_postgresql() {
    support::run_again_on_postgres("these_tests_pass_on_postgresql");
}

fn op() -> Actor {
    Actor::operator("alice").unwrap().with_login("root")
}

fn at(ms: i64) -> Timestamp {
    NOW.add_millis(ms)
}

fn all(s: &keyhook_core::store::Store) -> Vec<AuditEntry> {
    s.conn().list_audit(None, None, None, 1_000).unwrap()
}

#[test]
fn a_change_whose_transaction_fails_leaves_no_entry() {
    let (_g, s) = support::temp_store();
    let input = NewKey {
        name: KeyName::new("k").ok(),
        ..NewKey::default()
    };
    // The publish callback fails after the insert and its entry: both roll back.
    let mut fail = |_: &ApiKey| Err(Error::Io("stdout is gone".into()));
    let fail = Publish::BeforeCommit(&mut fail);
    let e = keys::create(&s, &op(), input.clone(), NOW, fail).unwrap_err();
    assert!(matches!(e, Error::Io(_)), "{e:?}");
    assert!(all(&s).is_empty());
    assert!(keys::list(&s, &op(), false).unwrap().is_empty());
    // The same change that commits has its entry.
    let k = keys::create(&s, &op(), input, NOW, Publish::AfterCommit).unwrap();
    let entries = all(&s);
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0].action, "key.created");
    assert_eq!(entries[0].actor, "cli:root");
    assert_eq!(entries[0].via, "cli");
    assert_eq!(entries[0].target, k.id);
    assert_eq!(entries[0].at, NOW);
}

#[test]
fn record_keeps_no_key_shaped_string_in_details() {
    let (_g, s) = support::temp_store();
    let plaintext = format!("kp_{}", "ab".repeat(32));
    s.write(|c| {
        audit::record(
            c,
            NOW,
            &Entry::system(
                "alice",
                Via::Worker,
                Action::WebhookReplayed,
                "w1",
                json!({"note": format!("key {plaintext}"), "url": "https://u:pw@example.com/x"}),
            ),
        )
    })
    .unwrap();
    let e = &all(&s)[0];
    let text = e.details.to_string();
    assert!(!text.contains(&plaintext), "{text}");
    assert!(!text.contains(":pw@"), "{text}");
    assert_eq!(e.action, "webhook.replayed");
    assert_eq!(e.actor, "system");
}

#[test]
fn listing_is_newest_first_per_user_with_since_and_limit() {
    let (_g, s) = support::temp_store();
    s.write(|c| {
        for (i, user) in ["alice", "bob", "alice", "alice"].iter().enumerate() {
            let e = Entry::system(
                user,
                Via::Cli,
                Action::KeyDeleted,
                &format!("t{i}"),
                json!({}),
            );
            audit::record(c, at(i as i64 * 1_000), &e)?;
        }
        Ok(())
    })
    .unwrap();
    let targets = |v: Vec<AuditEntry>| v.into_iter().map(|e| e.target).collect::<Vec<_>>();
    let q = |since, limit| Query {
        since,
        limit,
        all_users: false,
    };
    assert_eq!(
        targets(audit::list(&s, &op(), q(None, 50)).unwrap()),
        ["t3", "t2", "t0"]
    );
    assert_eq!(
        targets(audit::list(&s, &op(), q(Some(at(2_000)), 50)).unwrap()),
        ["t3", "t2"]
    );
    assert_eq!(targets(audit::list(&s, &op(), q(None, 1)).unwrap()), ["t3"]);
    let every = Query {
        all_users: true,
        ..Query::default()
    };
    assert_eq!(
        targets(audit::list(&s, &op(), every).unwrap()),
        ["t3", "t2", "t1", "t0"]
    );
    let e = audit::list(&s, &op(), q(None, 0)).unwrap_err();
    assert_eq!(e.http_status(), 400);
}

#[test]
fn prune_audit_deletes_the_oldest_before_the_cutoff_in_batches() {
    let (_g, s) = support::temp_store();
    s.write(|c| {
        for i in 0..25 {
            let e = Entry::system(
                "alice",
                Via::Cli,
                Action::KeyCreated,
                &format!("t{i}"),
                json!({}),
            );
            audit::record(c, at(i * 1_000), &e)?;
        }
        Ok(())
    })
    .unwrap();
    // 20 entries are older than the cutoff; batches of 8 take 8, 8, 4, then none.
    let cutoff = at(20_000);
    let mut batches = Vec::new();
    loop {
        let n = s.write(|c| Ok(c.prune_audit(cutoff, 8)?)).unwrap();
        batches.push(n);
        if n < 8 {
            break;
        }
    }
    assert_eq!(batches, [8, 8, 4]);
    let left: Vec<String> = all(&s).into_iter().map(|e| e.target).collect();
    assert_eq!(left, ["t24", "t23", "t22", "t21", "t20"]);
    assert_eq!(s.write(|c| Ok(c.prune_audit(cutoff, 8)?)).unwrap(), 0);
}
