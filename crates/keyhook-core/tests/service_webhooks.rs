//! The webhook services over a real store (SQLite, and PostgreSQL: `support`).

use keyhook_core::service::events::TEST_EVENT;
use keyhook_core::service::webhooks::*;
use keyhook_core::service::Actor;
use keyhook_core::service::Publish;
use keyhook_core::time::Timestamp;
use keyhook_core::transport::Attempt;
use keyhook_test_support as support;
use support::temp_store;

/// Every test of this file, again on PostgreSQL.
#[test]
fn these_tests_pass_on_postgresql() {
    support::run_again_on_postgres("these_tests_pass_on_postgresql");
}

/// Attempts are recorded after the request, outside any transaction: by then the webhook
/// (and its deliveries) may be gone. Recording must then write nothing and not fail, or the
/// outbox worker's whole settling batch would be rolled back.
#[test]
fn an_attempt_for_a_deleted_webhook_is_dropped_without_error() {
    let (_dir, store) = temp_store();
    let actor = Actor::operator("alice").unwrap();
    let input = NewWebhook {
        url: WebhookUrl::new("http://127.0.0.1:9/hook", true).ok(),
        events: WebhookEvents::new(vec!["post.published".into()]).ok(),
        ..NewWebhook::default()
    };
    let w = create(
        &store,
        &actor,
        input,
        Timestamp::now(),
        Publish::AfterCommit,
    )
    .unwrap();
    delete(&store, &actor, &w.id, Timestamp::now()).unwrap();
    let attempt = Attempt {
        delivered: false,
        status_code: 0,
        status_text: "timed out".into(),
        duration_ms: 10_000,
        response_excerpt: String::new(),
        retry_after_ms: None,
    };
    let of = AttemptOf {
        webhook_id: &w.id,
        delivery_id: None,
        event_id: "evt_1",
        event: TEST_EVENT,
        attempt: 1,
    };
    store
        .write(|c| log_attempt(c, of, Timestamp::now(), &attempt))
        .unwrap();
    assert!(store.conn().attempts(&w.id, 10).unwrap().is_empty());
}
