//! Event and delivery ids sort by their creation time (SQLite, and again on PostgreSQL), so
//! the indexes on them grow at one end and retention deletes at the other.

use keyhook_core::service::events::{self, EventName, NewEvent};
use keyhook_core::service::Actor;
use keyhook_core::time::Timestamp;
use keyhook_test_support as support;
use keyhook_test_support::ClaimDue;
use support::temp_store;

/// Every test of this file, again on PostgreSQL.
#[test]
fn these_tests_pass_on_postgresql() {
    support::run_again_on_postgres("these_tests_pass_on_postgresql");
}

#[test]
fn event_and_delivery_ids_sort_by_creation() {
    let (_g, s) = temp_store();
    let op = Actor::operator("alice").unwrap();
    let start = Timestamp(1_800_000_000_000);
    support::create_webhook(&s, "alice", start);
    let mut event_ids = Vec::new();
    for i in 0..20i64 {
        // Event ids are UUIDv7s, which `uuid` orders by creation within a process (several
        // in one millisecond too); the store's clock orders delivery ids.
        let input = NewEvent {
            event: EventName::new("post.published").ok(),
            ..NewEvent::default()
        };
        let at = start.add_millis(i * 1_000);
        event_ids.push(events::emit(&s, &op, input, at).unwrap().id);
    }
    let mut sorted = event_ids.clone();
    sorted.sort();
    assert_eq!(sorted, event_ids, "event ids in creation order");
    let claimed = s
        .write(|c| {
            Ok(c.claim_due(
                start.add_millis(60_000),
                100,
                start.add_millis(70_000),
                None,
            )?)
        })
        .unwrap();
    assert_eq!(claimed.len(), 20);
    let mut by_event: Vec<(usize, String)> = claimed
        .iter()
        .map(|d| {
            let n = event_ids.iter().position(|e| *e == d.event_id).unwrap();
            (n, d.delivery_id.clone())
        })
        .collect();
    by_event.sort();
    let ids: Vec<&String> = by_event.iter().map(|(_, id)| id).collect();
    let mut sorted = ids.clone();
    sorted.sort();
    assert_eq!(sorted, ids, "delivery ids in creation order");
    assert!(ids
        .iter()
        .all(|id| id.len() == 28 && id.starts_with("dlv_")));
}
