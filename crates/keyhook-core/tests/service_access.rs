//! Permission is a rule of each operation, in the core: whichever front end calls it, a
//! readonly key is refused every write and may read.

use keyhook_core::auth::Access;
use keyhook_core::model::Permission;
use keyhook_core::service::events::{self, EventName, NewEvent};
use keyhook_core::service::keys::{self, KeyName, NewKey};
use keyhook_core::service::webhooks::{self, NewWebhook, WebhookEvents, WebhookPatch, WebhookUrl};
use keyhook_core::service::Publish;
use keyhook_core::service::{Actor, Operation};
use keyhook_core::transport::{Attempt, Transport};
use keyhook_core::Result;
use keyhook_test_support as support;
use keyhook_test_support::NOW;
use support::temp_store;

/// Every test of this file, again on PostgreSQL.
#[test]
fn these_tests_pass_on_postgresql() {
    support::run_again_on_postgres("these_tests_pass_on_postgresql");
}

/// A transport that must never be reached: the access check comes first.
struct Unreachable;

impl Transport for Unreachable {
    fn send(&self, url: &str, _: &[&str], _: &str, _: &[u8], _: i64) -> Attempt {
        panic!("sent to {url} although the operation was refused")
    }
}

/// Every operation checks its own access, whichever front end calls it: a readonly key is
/// refused every write (a PATCH, a test ping and an event too), and may read.
#[test]
fn each_operation_checks_its_access() {
    let (_d, s) = temp_store();
    let op = Actor::operator("alice").unwrap();
    let key = |name: &str, permission| NewKey {
        name: KeyName::new(name).ok(),
        permission: Some(permission),
        ..NewKey::default()
    };
    let ro = keys::create(
        &s,
        &op,
        key("ro", Permission::Readonly),
        NOW,
        Publish::AfterCommit,
    )
    .unwrap();
    let hook = || NewWebhook {
        url: WebhookUrl::new("http://127.0.0.1:9/", true).ok(),
        events: WebhookEvents::new(vec!["post.published".into()]).ok(),
        ..NewWebhook::default()
    };
    let w = webhooks::create(&s, &op, hook(), NOW, Publish::AfterCommit).unwrap();
    let sender = Unreachable;
    let actor = Actor::key(ro.clone());
    let refused = |op: Operation, r: Result<()>| {
        let e = r.unwrap_err();
        assert_eq!((e.http_status(), e.code()), (403, "FORBIDDEN"), "{op:?}");
        assert_eq!(
            e.to_string(),
            format!("readonly key cannot {}", op.describe())
        );
        assert_eq!(op.access(), Access::Write, "{op:?}");
    };
    let patch = WebhookPatch {
        is_active: Some(false),
        ..WebhookPatch::default()
    };
    let event = NewEvent {
        event: EventName::new("post.published").ok(),
        ..NewEvent::default()
    };
    let rw = key("rw", Permission::Readwrite);
    refused(
        Operation::CreateKey,
        keys::create(&s, &actor, rw, NOW, Publish::AfterCommit).map(drop),
    );
    refused(
        Operation::DeleteKey,
        keys::delete(&s, &actor, &ro.id, NOW).map(drop),
    );
    let rotated = keys::rotate(&s, &actor, &ro.id, None, NOW, Publish::AfterCommit);
    refused(Operation::RotateKey, rotated.map(drop));
    refused(
        Operation::PruneKeys,
        keys::prune(&s, &actor, 1, NOW).map(drop),
    );
    let created = webhooks::create(&s, &actor, hook(), NOW, Publish::AfterCommit);
    refused(Operation::CreateWebhook, created.map(drop));
    let updated = webhooks::update(&s, &actor, &w.id, patch, NOW);
    refused(Operation::UpdateWebhook, updated.map(drop));
    let deleted = webhooks::delete(&s, &actor, &w.id, NOW);
    refused(Operation::DeleteWebhook, deleted.map(drop));
    let pinged = webhooks::test(&s, &actor, &w.id, &sender, None, NOW);
    refused(Operation::TestWebhook, pinged.map(drop));
    refused(
        Operation::EmitEvent,
        events::emit(&s, &actor, event, NOW).map(drop),
    );
    // Nothing changed.
    assert_eq!(keys::list(&s, &op, false).unwrap().len(), 1);
    assert!(webhooks::get(&s, &op, &w.id).unwrap().is_active);
    assert!(webhooks::attempts(&s, &op, &w.id).unwrap().is_empty());
    // Reads are allowed.
    assert_eq!(keys::list(&s, &actor, false).unwrap().len(), 1);
    assert_eq!(keys::get(&s, &actor, &ro.key_prefix).unwrap().id, ro.id);
    assert!(keys::prunable(&s, &actor, 1, NOW).unwrap().is_empty());
    assert_eq!(webhooks::list(&s, &actor).unwrap().len(), 1);
    assert_eq!(webhooks::get(&s, &actor, &w.id).unwrap().id, w.id);
    assert!(webhooks::attempts(&s, &actor, &w.id).unwrap().is_empty());
    for read in [
        Operation::ListKeys,
        Operation::ShowKey,
        Operation::ListWebhooks,
        Operation::ShowWebhook,
        Operation::ListDeliveries,
    ] {
        assert_eq!(read.access(), Access::Read);
        assert!(actor.may(read, None).is_ok());
    }
}
