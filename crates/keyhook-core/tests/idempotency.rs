//! Idempotency keys of events, over a real store (SQLite, and again on PostgreSQL): the
//! window, a stale record replaced, and the pruning query the retention machinery calls.

use keyhook_core::service::events::{
    self, EventName, IdempotencyKey, NewEvent, IDEMPOTENCY_WINDOW_MS,
};
use keyhook_core::service::Actor;
use keyhook_core::store::Store;
use keyhook_core::time::Timestamp;
mod support;
use support::temp_store;

/// Every test of this file, again on PostgreSQL.
#[test]
fn these_tests_pass_on_postgresql() {
    support::run_again_on_postgres("these_tests_pass_on_postgresql");
}

const NOW: Timestamp = Timestamp(1_800_000_000_000);

fn emit(s: &Store, user: &str, key: &str, at: Timestamp) -> String {
    let input = NewEvent {
        event: EventName::new("post.published").ok(),
        idempotency_key: Some(IdempotencyKey::new(key).unwrap()),
        ..NewEvent::default()
    };
    events::emit(s, &Actor::operator(user).unwrap(), input, at)
        .unwrap()
        .id
}

#[test]
fn a_key_holds_its_event_for_24_hours_then_takes_a_new_one() {
    let (_g, s) = temp_store();
    let first = emit(&s, "u", "k", NOW);
    assert_eq!(
        emit(&s, "u", "k", NOW.add_millis(IDEMPOTENCY_WINDOW_MS - 1)),
        first
    );
    assert_ne!(emit(&s, "v", "k", NOW), first);
    let second = emit(&s, "u", "k", NOW.add_millis(IDEMPOTENCY_WINDOW_MS));
    assert_ne!(second, first);
    assert_eq!(
        emit(&s, "u", "k", NOW.add_millis(IDEMPOTENCY_WINDOW_MS + 5)),
        second
    );
}

/// One batch of two of the pruning query, with the window's cutoff at `at`.
fn prune(s: &Store, at: Timestamp) -> u64 {
    s.write(|c| Ok(c.prune_idempotency(events::stale_before(at), 2)?))
        .unwrap()
}

#[test]
fn pruning_deletes_only_records_past_the_window_in_batches() {
    let (_g, s) = temp_store();
    for i in 0..5 {
        emit(&s, "u", &format!("old-{i}"), NOW);
    }
    let fresh = emit(&s, "u", "fresh", NOW.add_millis(IDEMPOTENCY_WINDOW_MS));
    let at = NOW.add_millis(IDEMPOTENCY_WINDOW_MS + 1);
    assert_eq!(prune(&s, at), 2);
    assert_eq!(prune(&s, at), 2);
    assert_eq!(prune(&s, at), 1);
    assert_eq!(prune(&s, at), 0);
    // The fresh record still holds its key; a pruned key takes a new event.
    assert_eq!(emit(&s, "u", "fresh", at), fresh);
    let old = emit(&s, "u", "old-0", at);
    assert_eq!(emit(&s, "u", "old-0", at), old);
}
