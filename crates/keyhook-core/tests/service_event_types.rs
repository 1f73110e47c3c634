//! The event catalog's services over a real store (SQLite, and PostgreSQL: `support`): who
//! may change it, what emit and subscriptions ask of it, and that a change is seen by the
//! next request of another connection.

use serde_json::json;

use keyhook_core::error::Error;
use keyhook_core::model::{ApiKey, EventProfile, Permission};
use keyhook_core::service::event_types::{self, EventTypePatch, NewEventType};
use keyhook_core::service::events::{self, EventName, NewEvent};
use keyhook_core::service::webhooks::{self, NewWebhook, WebhookEvents, WebhookUrl};
use keyhook_core::service::{Actor, Publish};
use keyhook_test_support as support;
use keyhook_test_support::{table, NOW};
use support::temp_store;

/// Every test of this file, again on PostgreSQL.
#[test]
fn these_tests_pass_on_postgresql() {
    support::run_again_on_postgres("these_tests_pass_on_postgresql");
}

fn new_type(name: &str, profile: EventProfile) -> NewEventType {
    NewEventType {
        name: name.into(),
        description: None,
        schema: None,
        example: None,
        profile,
    }
}

fn emit_named(
    store: &keyhook_core::store::Store,
    actor: &Actor,
    name: &str,
    profile: Option<&str>,
    data: serde_json::Value,
) -> Result<usize, Error> {
    let input = NewEvent {
        event: EventName::new(name).ok(),
        data: data.as_object().cloned(),
        profile_id: profile.map(|p| keyhook_core::service::keys::ProfileId::new(p).unwrap()),
        ..NewEvent::default()
    };
    events::emit(store, actor, input, NOW).map(|a| a.deliveries)
}

fn fields(e: &Error) -> Vec<&str> {
    e.details().iter().map(|d| d.field.as_str()).collect()
}

#[test]
fn only_the_operator_changes_the_catalog_and_any_key_reads_it() {
    let (_dir, store) = temp_store();
    let op = Actor::operator("u").unwrap();
    // A readonly key limited to a profile: the narrowest there is.
    let key = Actor::key(ApiKey {
        id: "k".into(),
        user_id: "u".into(),
        key_prefix: "kp_00000000".into(),
        name: "ro".into(),
        permission: Permission::Readonly,
        full_access: false,
        profile_ids: vec!["brand-a".into()],
        last_used_at: None,
        expires_at: None,
        rate_limit: None,
        remaining_uses: None,
        budget_id: None,
        created_at: NOW,
        key: None,
    });
    let e = event_types::add(
        &store,
        &key,
        new_type("post.updated", EventProfile::Optional),
        NOW,
    )
    .unwrap_err();
    assert!(matches!(e, Error::Forbidden(_)), "{e:?}");
    event_types::add(
        &store,
        &op,
        new_type("post.updated", EventProfile::Optional),
        NOW,
    )
    .unwrap();
    for change in [
        event_types::deprecate(&store, &key, "post.updated", NOW).map(drop),
        event_types::delete(&store, &key, "post.updated", NOW).map(drop),
        event_types::update(&store, &key, "post.updated", EventTypePatch::default(), NOW).map(drop),
    ] {
        assert!(matches!(change, Err(Error::Forbidden(_))), "{change:?}");
    }
    assert_eq!(event_types::list(&store, &key).unwrap().len(), 10);
    assert_eq!(
        event_types::show(&store, &key, "post.updated")
            .unwrap()
            .name,
        "post.updated"
    );
    assert!(matches!(
        event_types::show(&store, &key, "post.nothing"),
        Err(Error::NotFound(_))
    ));
}

#[test]
fn emit_asks_the_catalog_for_the_name_the_profile_and_the_schema() {
    let (_dir, store) = temp_store();
    let op = Actor::operator("u").unwrap();
    let e = emit_named(&store, &op, "post.updated", None, json!({})).unwrap_err();
    assert_eq!(fields(&e), ["event"]);
    let mut t = new_type("post.updated", EventProfile::Required);
    t.schema = Some(json!({"type": "object", "properties": {"n": {"type": "integer"}}}));
    event_types::add(&store, &op, t, NOW).unwrap();
    assert_eq!(
        fields(&emit_named(&store, &op, "post.updated", None, json!({})).unwrap_err()),
        ["profileId"]
    );
    let e = emit_named(&store, &op, "post.updated", Some("a"), json!({"n": "x"})).unwrap_err();
    assert_eq!(fields(&e), ["data.n"]);
    assert_eq!(
        emit_named(&store, &op, "post.updated", Some("a"), json!({"n": 1})).unwrap(),
        0
    );
    let e = emit_named(&store, &op, "webhook.disabled", None, json!({})).unwrap_err();
    assert_eq!(fields(&e), ["event"]);
    assert_eq!(store.conn().count_rows(table("events")).unwrap(), 1);
}

#[test]
fn another_connection_sees_a_change_on_its_next_request() {
    let (_dir, backend) = support::temp_backend(2);
    let (store, other) = (backend.connect().unwrap(), backend.connect().unwrap());
    let op = Actor::operator("u").unwrap();
    // The other connection compiles the first schema...
    let mut t = new_type("post.updated", EventProfile::Optional);
    t.schema = Some(json!({"type": "object", "required": ["a"]}));
    event_types::add(&store, &op, t, NOW).unwrap();
    assert!(emit_named(&*other, &op, "post.updated", None, json!({"b": 1})).is_err());
    assert!(emit_named(&*other, &op, "post.updated", None, json!({"a": 1})).is_ok());
    // ...and, after a change at the same moment, uses the new one.
    let patch = EventTypePatch {
        schema: Some(Some(json!({"type": "object", "required": ["b"]}))),
        ..EventTypePatch::default()
    };
    event_types::update(&store, &op, "post.updated", patch, NOW).unwrap();
    assert!(emit_named(&*other, &op, "post.updated", None, json!({"b": 1})).is_ok());
    assert!(emit_named(&*other, &op, "post.updated", None, json!({"a": 1})).is_err());
}

#[test]
fn subscriptions_need_a_known_type_and_a_deprecated_one_is_only_kept() {
    let (_dir, store) = temp_store();
    let op = Actor::operator("u").unwrap();
    let create = |events: &[&str]| {
        let input = NewWebhook {
            url: WebhookUrl::new("http://127.0.0.1:9/hook", true).ok(),
            events: WebhookEvents::new(events.iter().map(|e| e.to_string()).collect()).ok(),
            ..NewWebhook::default()
        };
        webhooks::create(&store, &op, input, NOW, Publish::AfterCommit)
    };
    assert_eq!(
        fields(&create(&["post.updated"]).unwrap_err()),
        ["events[0]"]
    );
    event_types::add(
        &store,
        &op,
        new_type("post.updated", EventProfile::Optional),
        NOW,
    )
    .unwrap();
    let w = create(&["post.updated"]).unwrap();
    event_types::deprecate(&store, &op, "post.updated", NOW).unwrap();
    let e = create(&["post.published", "post.updated"]).unwrap_err();
    assert_eq!(fields(&e), ["events[1]"]);
    assert_eq!(
        emit_named(&store, &op, "post.updated", None, json!({})).unwrap(),
        1
    );
    let e = event_types::delete(&store, &op, "post.updated", NOW).unwrap_err();
    assert!(matches!(e, Error::Conflict(_)), "{e:?}");
    webhooks::delete(&store, &op, &w.id, NOW).unwrap();
    event_types::delete(&store, &op, "post.updated", NOW).unwrap();
}
