//! Profile scope on events and webhooks, over a real store (SQLite,
//! and again on PostgreSQL): which webhooks a key sees and may change, which events it may
//! emit, which webhooks an event is queued and replayed for, the audit log and idempotency
//! keys of a scoped key. The matching rule is decided by `auth::covers`, which only
//! `service::routing` applies to deliveries; the property test below checks that what each
//! backend queues is exactly what the rule says.

use keyhook_test_support::ClaimDue;
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicUsize, Ordering};

use proptest::prelude::*;

use keyhook_core::auth::{self, Scope};
use keyhook_core::model::{ApiKey, Permission, Webhook};
use keyhook_core::service::events::{self, EventName, IdempotencyKey, NewEvent};
use keyhook_core::service::keys::{self, KeyName, NewKey, ProfileId, ProfileIds};
use keyhook_core::service::replay::{self, ReplayRequest};
use keyhook_core::service::webhooks::{
    self, NewWebhook, RotateSecret, WebhookEvents, WebhookPatch, WebhookUrl,
};
use keyhook_core::service::Publish;
use keyhook_core::service::{audit, Actor};
use keyhook_core::store::{DeliveryState, Store};
use keyhook_core::transport::{Attempt, Transport};
use keyhook_core::Error;
use keyhook_test_support as support;
use keyhook_test_support::{operator, NOW};
use support::temp_store;

/// Every test of this file, again on PostgreSQL.
#[test]
fn these_tests_pass_on_postgresql() {
    support::run_again_on_postgres("these_tests_pass_on_postgresql");
}

const EVENTS: [&str; 2] = ["post.published", "post.failed"];

fn ids(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// A key of `user` made by the operator: full access (`None`) or limited to `profiles`.
fn key(s: &Store, user: &str, profiles: Option<&[String]>, permission: Permission) -> ApiKey {
    let input = NewKey {
        name: KeyName::new("k").ok(),
        permission: Some(permission),
        full_access: Some(profiles.is_none()),
        profile_ids: profiles.map(|p| ProfileIds::new(p.to_vec()).unwrap()),
        ..NewKey::default()
    };
    keys::create(s, &operator(user), input, NOW, Publish::AfterCommit).unwrap()
}

fn new_hook(events: &[&str], scope: Option<&[String]>) -> NewWebhook {
    NewWebhook {
        url: WebhookUrl::new("http://127.0.0.1:9/hook", true).ok(),
        events: WebhookEvents::new(ids(events)).ok(),
        full_access: scope.map(|_| false),
        profile_ids: scope.map(|p| ProfileIds::new(p.to_vec()).unwrap()),
        ..NewWebhook::default()
    }
}

fn hook(s: &Store, actor: &Actor, events: &[&str], scope: Option<&[String]>) -> Webhook {
    webhooks::create(s, actor, new_hook(events, scope), NOW, Publish::AfterCommit).unwrap()
}

fn event(name: &str, profile: Option<&str>) -> NewEvent {
    NewEvent {
        event: EventName::new(name).ok(),
        profile_id: profile.map(|p| ProfileId::new(p).unwrap()),
        ..NewEvent::default()
    }
}

/// The deliveries pending now, as (webhook id, event id); they are then marked delivered, so
/// the next look sees only what was queued since.
fn take_queued(s: &Store) -> BTreeSet<(String, String)> {
    let at = NOW.add_millis(1_000);
    s.write(|c| {
        let claimed = c.claim_due(at, 100_000, at.add_millis(1), None)?;
        for d in &claimed {
            c.finish_delivery(&d.delivery_id, DeliveryState::Delivered, false, at)?;
        }
        Ok(claimed
            .into_iter()
            .map(|d| (d.webhook_id, d.event_id))
            .collect())
    })
    .unwrap()
}

/// A transport that answers 200 at once, for test pings.
struct Fine;

impl Transport for Fine {
    fn send(&self, _: &str, _: &[&str], _: &str, _: &[u8], _: i64) -> Attempt {
        Attempt {
            delivered: true,
            status_code: 200,
            status_text: "OK".into(),
            duration_ms: 1,
            response_excerpt: String::new(),
            retry_after_ms: None,
        }
    }
}

fn not_found(e: &Error, id: &str) {
    assert_eq!(e.http_status(), 404, "{e}");
    assert_eq!(
        e.to_string(),
        format!("no webhook with id or id prefix {id:?}"),
        "the same answer as an unknown id"
    );
}

/// Every operation on one webhook answers a webhook outside the key's scope exactly as an
/// unknown id: not found, with the same message. The list leaves it out.
#[test]
fn webhooks_outside_a_keys_scope_are_not_found_by_any_operation() {
    let (_g, s) = temp_store();
    let a = ids(&["brand-a"]);
    let b = ids(&["brand-b"]);
    let all = hook(&s, &operator("u"), &EVENTS, None);
    let of_b = hook(&s, &operator("u"), &EVENTS, Some(&b));
    let of_a = hook(&s, &operator("u"), &EVENTS, Some(&a));
    for permission in [Permission::Readonly, Permission::Readwrite] {
        let k = Actor::key(key(&s, "u", Some(&a), permission));
        let listed: Vec<String> = webhooks::list(&s, &k)
            .unwrap()
            .iter()
            .map(|w| w.id.clone())
            .collect();
        assert_eq!(listed, std::slice::from_ref(&of_a.id), "{permission:?}");
        for hidden in [&all, &of_b] {
            // By id, and by a unique prefix.
            for id in [hidden.id.as_str(), &hidden.id[..8]] {
                not_found(&webhooks::get(&s, &k, id).unwrap_err(), id);
                not_found(&webhooks::attempts(&s, &k, id).unwrap_err(), id);
            }
        }
    }
    let rw = Actor::key(key(&s, "u", Some(&a), Permission::Readwrite));
    for hidden in [&all, &of_b] {
        let id = hidden.id.as_str();
        let patch = WebhookPatch {
            is_active: Some(false),
            ..WebhookPatch::default()
        };
        not_found(&webhooks::update(&s, &rw, id, patch, NOW).unwrap_err(), id);
        not_found(
            &webhooks::test(&*s, &rw, id, &Fine, None, NOW).unwrap_err(),
            id,
        );
        let r = replay::replay(&s, &rw, id, ReplayRequest::default(), NOW);
        not_found(&r.unwrap_err(), id);
        let r = webhooks::rotate_secret(
            &s,
            &rw,
            id,
            RotateSecret::default(),
            NOW,
            Publish::AfterCommit,
        );
        not_found(&r.unwrap_err(), id);
        not_found(&webhooks::delete(&s, &rw, id, NOW).unwrap_err(), id);
        // Untouched.
        assert_eq!(webhooks::get(&s, &operator("u"), id).unwrap(), *hidden);
    }
    // What it sees, it may act on; a full-access key sees everything.
    assert!(
        webhooks::test(&*s, &rw, &of_a.id, &Fine, None, NOW)
            .unwrap()
            .delivered
    );
    let full = Actor::key(key(&s, "u", None, Permission::Readonly));
    assert_eq!(webhooks::list(&s, &full).unwrap().len(), 3);
}

/// A key gives webhooks only scopes within its own (403 naming the field); a scoped key that
/// names no scope gives the webhook its own; the scope is validated as a key's (400).
#[test]
fn a_key_creates_and_changes_webhooks_only_within_its_scope() {
    let (_g, s) = temp_store();
    let ab = ids(&["a", "b"]);
    let k = Actor::key(key(&s, "u", Some(&ab), Permission::Readwrite));
    let own = webhooks::create(&s, &k, new_hook(&EVENTS, None), NOW, Publish::AfterCommit).unwrap();
    assert_eq!(
        (own.full_access, own.profile_ids.clone()),
        (false, ab.clone())
    );
    let narrower = hook(&s, &k, &EVENTS, Some(&ids(&["b"])));
    assert_eq!(narrower.profile_ids, ["b"]);

    let forbidden = |r: keyhook_core::Result<Webhook>, field: &str| {
        let e = r.unwrap_err();
        assert_eq!((e.http_status(), e.code()), (403, "FORBIDDEN"), "{e}");
        let fields: Vec<&str> = e.details().iter().map(|d| d.field.as_str()).collect();
        assert_eq!(fields, [field], "{e}");
    };
    forbidden(
        webhooks::create(
            &s,
            &k,
            new_hook(&EVENTS, Some(&ids(&["a", "c"]))),
            NOW,
            Publish::AfterCommit,
        ),
        "profileIds",
    );
    let all = NewWebhook {
        full_access: Some(true),
        ..new_hook(&EVENTS, None)
    };
    forbidden(
        webhooks::create(&s, &k, all, NOW, Publish::AfterCommit),
        "fullAccess",
    );
    let widen = |full_access, profiles: Option<&[&str]>| WebhookPatch {
        full_access,
        profile_ids: profiles.map(|p| ProfileIds::new(ids(p)).unwrap()),
        ..WebhookPatch::default()
    };
    forbidden(
        webhooks::update(&s, &k, &own.id, widen(Some(true), None), NOW),
        "fullAccess",
    );
    forbidden(
        webhooks::update(&s, &k, &own.id, widen(Some(false), Some(&["z"])), NOW),
        "profileIds",
    );
    let w = webhooks::update(&s, &k, &own.id, widen(Some(false), Some(&["a"])), NOW).unwrap();
    assert_eq!(w.profile_ids, ["a"]);
    // Nothing else was made: two webhooks.
    assert_eq!(webhooks::list(&s, &operator("u")).unwrap().len(), 2);

    // The operator gives any scope, and the rules of a key's scope hold (400).
    let w = webhooks::update(&s, &operator("u"), &own.id, widen(Some(true), None), NOW).unwrap();
    assert!(w.full_access && w.profile_ids.is_empty());
    let invalid = |r: keyhook_core::Result<Webhook>, message: &str| {
        let e = r.unwrap_err();
        assert_eq!(e.http_status(), 400, "{e}");
        assert_eq!(e.details()[0].field, "profileIds");
        assert_eq!(e.details()[0].message, message);
    };
    invalid(
        webhooks::update(&s, &operator("u"), &w.id, widen(Some(false), None), NOW),
        "at least one profile id is required when fullAccess is false",
    );
    invalid(
        webhooks::update(&s, &operator("u"), &w.id, widen(None, Some(&["a"])), NOW),
        "must be empty when fullAccess is true (set fullAccess to false to limit the webhook)",
    );
}

/// A scoped key emits only events of its own profiles: a user-wide event or another
/// profile's is 403 on `profileId`, and nothing is recorded.
#[test]
fn a_scoped_key_emits_only_events_of_its_profiles() {
    let (_g, s) = temp_store();
    hook(&s, &operator("u"), &EVENTS, None);
    let k = Actor::key(key(&s, "u", Some(&ids(&["a"])), Permission::Readwrite));
    for profile in [None, Some("b")] {
        let e = events::emit(&s, &k, event("post.published", profile), NOW).unwrap_err();
        assert_eq!((e.http_status(), e.code()), (403, "FORBIDDEN"), "{e}");
        assert_eq!(e.details()[0].field, "profileId");
    }
    assert!(take_queued(&s).is_empty());
    let ok = events::emit(&s, &k, event("post.published", Some("a")), NOW).unwrap();
    assert_eq!((ok.profile_id.as_deref(), ok.deliveries), (Some("a"), 1));
    // A full-access key and the operator emit any.
    let full = Actor::key(key(&s, "u", None, Permission::Readwrite));
    for actor in [&full, &operator("u")] {
        events::emit(&s, actor, event("post.published", None), NOW).unwrap();
        events::emit(&s, actor, event("post.published", Some("b")), NOW).unwrap();
    }
}

/// The ten-webhook limit counts every webhook of the user: a scoped key at the limit gets
/// the same 409 as anyone, whatever it sees.
#[test]
fn the_limit_counts_webhooks_a_scoped_key_cannot_see() {
    let (_g, s) = temp_store();
    for _ in 0..webhooks::MAX_WEBHOOKS_PER_USER {
        hook(&s, &operator("u"), &EVENTS, Some(&ids(&["b"])));
    }
    let k = Actor::key(key(&s, "u", Some(&ids(&["a"])), Permission::Readwrite));
    assert!(webhooks::list(&s, &k).unwrap().is_empty());
    let e =
        webhooks::create(&s, &k, new_hook(&EVENTS, None), NOW, Publish::AfterCommit).unwrap_err();
    let by_operator = webhooks::create(
        &s,
        &operator("u"),
        new_hook(&EVENTS, None),
        NOW,
        Publish::AfterCommit,
    )
    .unwrap_err();
    assert_eq!((e.http_status(), e.code()), (409, "WEBHOOK_LIMIT_REACHED"));
    assert_eq!(e.to_string(), by_operator.to_string());
    assert!(e.details().is_empty());
}

/// Idempotency keys are held per user and per profile: a scoped key repeating a key that an
/// event of another profile (or a user-wide one) took gets an event of its own profile,
/// never the other; its own repeat gets its own first event.
#[test]
fn an_idempotency_key_never_answers_with_an_event_of_another_profile() {
    let (_g, s) = temp_store();
    let keyed = |profile: Option<&str>| NewEvent {
        idempotency_key: Some(IdempotencyKey::new("order-1").unwrap()),
        ..event("post.published", profile)
    };
    let full = Actor::key(key(&s, "u", None, Permission::Readwrite));
    let of_b = events::emit(&s, &full, keyed(Some("b")), NOW).unwrap();
    let wide = events::emit(&s, &full, keyed(None), NOW).unwrap();
    assert_ne!(of_b.id, wide.id);
    let k = Actor::key(key(&s, "u", Some(&ids(&["a"])), Permission::Readwrite));
    let mine = events::emit(&s, &k, keyed(Some("a")), NOW).unwrap();
    assert_ne!(mine.id, of_b.id);
    assert_ne!(mine.id, wide.id);
    assert_eq!(mine.profile_id.as_deref(), Some("a"));
    let again = events::emit(&s, &k, keyed(Some("a")), NOW.add_millis(5)).unwrap();
    assert_eq!(again, mine);
    // The full-access key's repeats still get their own first events.
    assert_eq!(
        events::emit(&s, &full, keyed(Some("b")), NOW.add_millis(9)).unwrap(),
        of_b
    );
    assert_eq!(
        events::emit(&s, &full, keyed(None), NOW.add_millis(9)).unwrap(),
        wide
    );
}

/// A scoped key reads only the audit entries about keys and webhooks within its scope, also
/// when many it may not see come first (the listing reads page after page).
#[test]
fn the_audit_log_shows_a_scoped_key_only_entries_within_its_scope() {
    let (_g, s) = temp_store();
    let a = ids(&["a"]);
    let mine = hook(&s, &operator("u"), &EVENTS, Some(&a));
    let k = key(&s, "u", Some(&a), Permission::Readonly);
    let hidden = hook(&s, &operator("u"), &EVENTS, Some(&ids(&["b"])));
    let full_key = key(&s, "u", None, Permission::Readwrite);
    // 510 entries about the hidden webhook, after the visible ones.
    for i in 0..510 {
        let patch = WebhookPatch {
            is_active: Some(i % 2 == 0),
            ..WebhookPatch::default()
        };
        webhooks::update(&s, &operator("u"), &hidden.id, patch, NOW.add_millis(i)).unwrap();
    }
    // A change of scope from b to a is shown only to keys that see both.
    let to_a = WebhookPatch {
        full_access: Some(false),
        profile_ids: Some(ProfileIds::new(a.clone()).unwrap()),
        ..WebhookPatch::default()
    };
    webhooks::update(&s, &operator("u"), &hidden.id, to_a, NOW.add_millis(600)).unwrap();
    let q = audit::Query {
        limit: 10,
        ..audit::Query::default()
    };
    let seen = audit::list(&s, &Actor::key(k.clone()), q).unwrap();
    let targets: Vec<(&str, &str)> = seen
        .iter()
        .map(|e| (e.action.as_str(), e.target.as_str()))
        .collect();
    assert_eq!(
        targets,
        [
            ("key.created", k.id.as_str()),
            ("webhook.created", &mine.id)
        ]
    );
    let all = audit::list(&s, &Actor::key(full_key), q).unwrap();
    assert_eq!(all.len(), 10);
    assert_eq!(all[0].target, hidden.id);
}

/// Replay applies the matching rule as it stands: an event is never replayed to a webhook
/// whose scope does not cover it, even if the scope changed since the event was queued; an
/// event the acting key cannot see is as unknown as no event.
#[test]
fn replay_applies_the_matching_rule_to_the_scope_of_now() {
    let (_g, s) = temp_store();
    let w = hook(&s, &operator("u"), &EVENTS, None);
    let e_a = events::emit(&s, &operator("u"), event("post.published", Some("a")), NOW).unwrap();
    let e_b = events::emit(&s, &operator("u"), event("post.published", Some("b")), NOW).unwrap();
    let wide = events::emit(&s, &operator("u"), event("post.published", None), NOW).unwrap();
    assert_eq!(take_queued(&s).len(), 3);
    let to_a = WebhookPatch {
        full_access: Some(false),
        profile_ids: Some(ProfileIds::new(ids(&["a"])).unwrap()),
        ..WebhookPatch::default()
    };
    webhooks::update(&s, &operator("u"), &w.id, to_a, NOW).unwrap();
    let since = ReplayRequest {
        since: Some(NOW),
        ..ReplayRequest::default()
    };
    let r = replay::replay(&s, &operator("u"), &w.id, since, NOW).unwrap();
    assert_eq!(r.queued, 1);
    assert_eq!(
        take_queued(&s),
        [(w.id.clone(), e_a.id.clone())].into_iter().collect()
    );
    let one = |id: &str| ReplayRequest {
        event_id: Some(id.to_string()),
        ..ReplayRequest::default()
    };
    let e = replay::replay(&s, &operator("u"), &w.id, one(&e_b.id), NOW).unwrap_err();
    assert_eq!(e.details()[0].field, "eventId");
    assert_eq!(
        e.details()[0].message,
        "the webhook's scope does not cover an event of profile b"
    );
    let e = replay::replay(&s, &operator("u"), &w.id, one(&wide.id), NOW).unwrap_err();
    assert_eq!(
        e.details()[0].message,
        "the webhook's scope does not cover a user-wide event"
    );
    // A key of profile a sees the webhook, and not the event of b: "no event with this id".
    let k = Actor::key(key(&s, "u", Some(&ids(&["a"])), Permission::Readwrite));
    let e = replay::replay(&s, &k, &w.id, one(&e_b.id), NOW).unwrap_err();
    assert_eq!(e.details()[0].message, "no event with this id");
    assert_eq!(
        replay::replay(&s, &k, &w.id, one(&e_a.id), NOW)
            .unwrap()
            .queued,
        1
    );
    assert!(take_queued(&s).iter().all(|(_, e)| *e == e_a.id));
}

/// The payload receivers get: `{"id", "event", "createdAt", "profileId", "data"}`.
#[test]
fn a_payload_carries_the_events_profile_or_null() {
    let body = events::payload(
        "evt_1",
        "post.published",
        Some("a"),
        NOW,
        &serde_json::json!({}),
    );
    let v: serde_json::Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(v["profileId"], "a");
    let text = String::from_utf8(body).unwrap();
    let at: Vec<usize> = [
        "\"id\"",
        "\"event\"",
        "\"createdAt\"",
        "\"profileId\"",
        "\"data\"",
    ]
    .iter()
    .map(|k| text.find(k).unwrap())
    .collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "{text}");
    let body = events::payload("evt_1", "post.published", None, NOW, &serde_json::json!({}));
    let v: serde_json::Value = serde_json::from_slice(&body).unwrap();
    assert!(v["profileId"].is_null());
}

const PROFILES: [&str; 3] = ["a", "b", "c"];

/// A scope drawn from [`PROFILES`]: full access (`None`), or a non-empty subset.
fn scope_strategy() -> impl Strategy<Value = Option<Vec<String>>> {
    prop_oneof![
        1 => Just(None),
        3 => proptest::sample::subsequence(PROFILES.to_vec(), 1..=3)
            .prop_map(|v| Some(ids(&v))),
    ]
}

fn profile_strategy() -> impl Strategy<Value = Option<String>> {
    prop_oneof![
        Just(None),
        proptest::sample::select(PROFILES.to_vec()).prop_map(|p| Some(p.to_string())),
    ]
}

/// The rules restated here, independently of the code under test: does `outer` (a scope)
/// hold `inner`?
fn within(inner: &Option<Vec<String>>, outer: &Option<Vec<String>>) -> bool {
    match (inner, outer) {
        (_, None) => true,
        (None, Some(_)) => false,
        (Some(i), Some(o)) => i.iter().all(|p| o.contains(p)),
    }
}

fn scope_of(s: &Option<Vec<String>>) -> Scope<'_> {
    match s {
        None => Scope::ALL,
        Some(ids) => Scope {
            full_access: false,
            profile_ids: ids,
        },
    }
}

static CASE: AtomicUsize = AtomicUsize::new(0);

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// For random keys, webhooks and events (scopes drawn from three profiles): every
    /// delivery queued (by an emit, and by a replay) satisfies the matching rule and every
    /// one it allows is queued, on this backend, as `auth::covers` says;
    /// a key's emit is allowed exactly within its scope; and every webhook a key can see,
    /// change or read the secret of is within its scope, every other one not found.
    #[test]
    fn deliveries_and_visibility_follow_the_scope_rules(
        hooks in proptest::collection::vec(
            (scope_strategy(), proptest::sample::subsequence(EVENTS.to_vec(), 1..=2), any::<bool>()),
            1..5,
        ),
        emitted in proptest::collection::vec(
            (profile_strategy(), proptest::sample::select(EVENTS.to_vec())),
            1..7,
        ),
        key_scopes in proptest::collection::vec(scope_strategy(), 1..4),
    ) {
        let (_g, s) = temp_store();
        let user = format!("u{}", CASE.fetch_add(1, Ordering::Relaxed));
        let operator = operator(&user);
        let mut made = Vec::new();
        for (scope, events, active) in &hooks {
            let w = hook(&s, &operator, events, scope.as_deref());
            let w = if *active {
                w
            } else {
                let off = WebhookPatch { is_active: Some(false), ..WebhookPatch::default() };
                webhooks::update(&s, &operator, &w.id, off, NOW).unwrap()
            };
            made.push((w, scope.clone()));
        }
        // Each event is emitted by the operator, or by a key when one's scope allows it.
        let mut expected = BTreeSet::new();
        let mut accepted = Vec::new();
        for (i, (profile, name)) in emitted.iter().enumerate() {
            let ks = &key_scopes[i % key_scopes.len()];
            let k = key(&s, &user, ks.as_deref(), Permission::Readwrite);
            let event_scope = profile.as_ref().map(|p| vec![p.clone()]);
            let by_key = events::emit(&s, &Actor::key(k), event(name, profile.as_deref()), NOW);
            prop_assert_eq!(by_key.is_ok(), within(&event_scope, ks), "{:?} {:?}", profile, ks);
            let e = match by_key {
                Ok(e) => e,
                Err(_) => events::emit(&s, &operator, event(name, profile.as_deref()), NOW).unwrap(),
            };
            for (w, scope) in &made {
                let covered = within(&event_scope, scope);
                prop_assert_eq!(auth::covers(scope_of(scope), profile.as_ref()), covered);
                if covered && w.is_active && w.events.iter().any(|e| e == name) {
                    expected.insert((w.id.clone(), e.id.clone()));
                }
            }
            accepted.push((e, event_scope));
        }
        prop_assert_eq!(take_queued(&s), expected.clone());
        // A replay of everything to each active webhook queues the same pairs again.
        for (w, _) in made.iter().filter(|(w, _)| w.is_active) {
            let all = ReplayRequest { since: Some(NOW), ..ReplayRequest::default() };
            let r = replay::replay(&s, &operator, &w.id, all, NOW).unwrap();
            let want: BTreeSet<_> = expected.iter().filter(|(h, _)| *h == w.id).cloned().collect();
            prop_assert_eq!(r.queued, want.len());
            prop_assert_eq!(take_queued(&s), want);
        }
        // Visibility: each key sees, changes and reads the secret of exactly the webhooks
        // within its scope.
        for ks in &key_scopes {
            let k = Actor::key(key(&s, &user, ks.as_deref(), Permission::Readwrite));
            let listed: BTreeSet<String> =
                webhooks::list(&s, &k).unwrap().iter().map(|w| w.id.clone()).collect();
            for (w, scope) in &made {
                let visible = within(scope, ks);
                prop_assert_eq!(listed.contains(&w.id), visible);
                prop_assert_eq!(webhooks::get(&s, &k, &w.id).is_ok(), visible);
                let same = WebhookPatch {
                    events: Some(WebhookEvents::new(w.events.clone()).unwrap()),
                    ..WebhookPatch::default()
                };
                let changed = webhooks::update(&s, &k, &w.id, same, NOW);
                prop_assert_eq!(changed.is_ok(), visible);
                let rotated = webhooks::rotate_secret(&s, &k, &w.id, RotateSecret::default(), NOW, Publish::AfterCommit);
                prop_assert_eq!(rotated.is_ok(), visible);
                if let Err(e) = changed {
                    prop_assert_eq!(e.http_status(), 404);
                }
            }
        }
    }
}
