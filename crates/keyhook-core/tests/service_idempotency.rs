//! Idempotency keys of events, over a real store (SQLite, and again on PostgreSQL): the
//! window, a stale record replaced, and the pruning query the retention machinery calls.

use keyhook_core::service::events::{
    self, EventName, IdempotencyKey, NewEvent, IDEMPOTENCY_WINDOW_MS,
};
use keyhook_core::service::{Actor, Publish};
use keyhook_core::store::Store;
use keyhook_core::time::Timestamp;
use keyhook_test_support as support;
use keyhook_test_support::NOW;
use support::temp_store;

/// Every test of this file, again on PostgreSQL.
#[test]
fn these_tests_pass_on_postgresql() {
    support::run_again_on_postgres("these_tests_pass_on_postgresql");
}

fn emit_with_key(s: &Store, user: &str, key: &str, at: Timestamp) -> String {
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
    let first = emit_with_key(&s, "u", "k", NOW);
    assert_eq!(
        emit_with_key(&s, "u", "k", NOW.add_millis(IDEMPOTENCY_WINDOW_MS - 1)),
        first
    );
    assert_ne!(emit_with_key(&s, "v", "k", NOW), first);
    let second = emit_with_key(&s, "u", "k", NOW.add_millis(IDEMPOTENCY_WINDOW_MS));
    assert_ne!(second, first);
    assert_eq!(
        emit_with_key(&s, "u", "k", NOW.add_millis(IDEMPOTENCY_WINDOW_MS + 5)),
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
        emit_with_key(&s, "u", &format!("old-{i}"), NOW);
    }
    let fresh = emit_with_key(&s, "u", "fresh", NOW.add_millis(IDEMPOTENCY_WINDOW_MS));
    let at = NOW.add_millis(IDEMPOTENCY_WINDOW_MS + 1);
    assert_eq!(prune(&s, at), 2);
    assert_eq!(prune(&s, at), 2);
    assert_eq!(prune(&s, at), 1);
    assert_eq!(prune(&s, at), 0);
    // The fresh record still holds its key; a pruned key takes a new event.
    assert_eq!(emit_with_key(&s, "u", "fresh", at), fresh);
    let old = emit_with_key(&s, "u", "old-0", at);
    assert_eq!(emit_with_key(&s, "u", "old-0", at), old);
}

// Idempotent webhook requests (`service::idempotency`, `IdempotencyQueries::claim_request`).

use keyhook_core::service::idempotency::{Idempotent, ABANDONED_AFTER_MS};
use keyhook_core::service::replay::{self, ReplayRequest};
use keyhook_core::service::webhooks::{self, NewWebhook, WebhookEvents, WebhookUrl};
use keyhook_core::store::{HeldRequest, RequestClaim};

fn claim<'a>(id: &'a str, key: &'a str, fingerprint: &'a str, at: Timestamp) -> RequestClaim<'a> {
    RequestClaim {
        id,
        user: "u",
        route: "POST /webhooks",
        target: "",
        key,
        fingerprint,
        at,
    }
}

/// The store's take of a key at `at`: `None` when taken, else the record holding it.
fn take(s: &Store, c: &RequestClaim<'_>) -> Option<HeldRequest> {
    let at = c.at;
    s.write(|q| {
        Ok(q.claim_request(
            c,
            at.add_millis(-IDEMPOTENCY_WINDOW_MS),
            at.add_millis(-ABANDONED_AFTER_MS),
        )?)
    })
    .unwrap()
}

#[test]
fn a_request_key_is_held_until_stale_or_abandoned() {
    let (_g, s) = temp_store();
    assert_eq!(take(&s, &claim("c1", "k", "f", NOW)), None);
    // In progress: held, without a response; after ABANDONED_AFTER_MS it is taken again.
    let held = take(&s, &claim("c2", "k", "f", NOW.add_millis(1))).unwrap();
    assert_eq!((held.fingerprint.as_str(), held.response), ("f", None));
    let late = NOW.add_millis(ABANDONED_AFTER_MS);
    assert_eq!(take(&s, &claim("c3", "k", "f", late)), None);
    // The first request's answer, coming after its key was taken again, changes nothing.
    s.write(|q| Ok(q.answer_request("c1", "{\"old\":1}")?))
        .unwrap();
    s.write(|q| Ok(q.answer_request("c3", "{\"new\":1}")?))
        .unwrap();
    let held = take(&s, &claim("c4", "k", "g", late.add_millis(1))).unwrap();
    assert_eq!(held.response.as_deref(), Some("{\"new\":1}"));
    assert_eq!(held.fingerprint, "f");
    // Answered: held for 24 hours, then taken again.
    let day = late.add_millis(IDEMPOTENCY_WINDOW_MS - 1);
    assert!(take(&s, &claim("c5", "k", "f", day)).is_some());
    assert_eq!(take(&s, &claim("c6", "k", "f", day.add_millis(1))), None);
    // Released: free at once. Other routes, targets and users are other keys.
    s.write(|q| Ok(q.release_request("c6")?)).unwrap();
    assert_eq!(take(&s, &claim("c7", "k", "f", day.add_millis(2))), None);
    let mut other = claim("c8", "k", "f", day.add_millis(2));
    other.target = "w";
    assert_eq!(take(&s, &other), None);
    other.id = "c9";
    other.user = "v";
    assert_eq!(take(&s, &other), None);
}

#[test]
fn request_records_are_pruned_past_the_window_in_batches() {
    let (_g, s) = temp_store();
    for i in 0..3 {
        let id = format!("old-{i}");
        take(&s, &claim(&id, &id, "f", NOW));
    }
    take(&s, &claim("new", "new", "f", NOW.add_millis(1)));
    let cutoff = events::stale_before(NOW.add_millis(IDEMPOTENCY_WINDOW_MS + 1));
    let prune = || s.write(|c| Ok(c.prune_requests(cutoff, 2)?)).unwrap();
    assert_eq!((prune(), prune(), prune()), (2, 1, 0));
    assert!(take(&s, &claim("x", "new", "f", NOW.add_millis(2))).is_some());
}

/// A webhook at `url` for post.published, sent with `idem`.
fn new_hook(url: &str, idem: &Idempotent) -> NewWebhook {
    NewWebhook {
        url: WebhookUrl::new(url, false).ok(),
        events: WebhookEvents::new(vec!["post.published".into()]).ok(),
        idempotency: Some(idem.clone()),
        ..NewWebhook::default()
    }
}

const AFTER: Publish<'static, keyhook_core::model::Webhook> = Publish::AfterCommit;

fn keyed(key: &str, body: serde_json::Value) -> Idempotent {
    Idempotent::new(IdempotencyKey::new(key).unwrap(), &body)
}

#[test]
fn a_repeated_create_or_replay_acts_once_and_another_body_is_refused() {
    let (_g, s) = temp_store();
    let u = Actor::operator("u").unwrap();
    let body = serde_json::json!({"url": "https://example.com/a"});
    let idem = keyed("k", body.clone());
    let first =
        webhooks::create(&s, &u, new_hook("https://example.com/a", &idem), NOW, AFTER).unwrap();
    let again =
        webhooks::create(&s, &u, new_hook("https://example.com/a", &idem), NOW, AFTER).unwrap();
    assert_eq!(again, first);
    assert_eq!(webhooks::list(&s, &u).unwrap().len(), 1);
    let other = keyed("k", serde_json::json!({"url": "https://example.com/b"}));
    let e = webhooks::create(
        &s,
        &u,
        new_hook("https://example.com/b", &other),
        NOW,
        AFTER,
    )
    .unwrap_err();
    assert_eq!(e.details()[0].field, "Idempotency-Key", "{e:?}");
    assert_eq!(webhooks::list(&s, &u).unwrap().len(), 1);
    emit_with_key(&s, "u", "e1", NOW);
    let r = keyed("r", serde_json::json!({}));
    let keyed_replay = || ReplayRequest {
        idempotency: Some(r.clone()),
        ..ReplayRequest::default()
    };
    let once = replay::replay(&s, &u, &first.id, keyed_replay(), NOW);
    let twice = replay::replay(&s, &u, &first.id, keyed_replay(), NOW);
    assert_eq!(once.unwrap().queued, 1);
    assert_eq!(twice.unwrap().queued, 1);
    let unkeyed = replay::replay(&s, &u, &first.id, ReplayRequest::default(), NOW).unwrap();
    assert_eq!(unkeyed.queued, 1);
}
