//! The key services over a real (SQLite) store, and their typed inputs: validation, scope,
//! lifetime, rotation, prune. Integration tests of the core, since a store comes from a
//! backend crate.

use keyhook_core::auth;
use keyhook_core::error::Error;
use keyhook_core::model::{ApiKey, Permission};
use keyhook_core::service::keys::*;
use keyhook_core::service::Actor;
use keyhook_core::service::Publish;
use keyhook_core::store::{ReadAhead, Store};
use keyhook_core::time::Timestamp;
use keyhook_test_support as support;
use keyhook_test_support::{operator, NOW};
use support::temp_store;

/// Every test of this file, again on PostgreSQL.
#[test]
fn these_tests_pass_on_postgresql() {
    support::run_again_on_postgres("these_tests_pass_on_postgresql");
}

fn named(name: &str) -> NewKey {
    NewKey {
        name: Some(KeyName::new(name).unwrap()),
        ..Default::default()
    }
}

fn ids(list: &[&str]) -> Option<ProfileIds> {
    Some(ProfileIds::new(list.iter().map(|p| p.to_string()).collect()).unwrap())
}

/// An expiry `ms` after [`NOW`].
fn after(ms: i64) -> Option<Expiry> {
    Some(Expiry::new(NOW.add_millis(ms), NOW).unwrap())
}

fn fields(e: Error) -> Vec<(String, String)> {
    match e {
        Error::Validation(d) => d.into_iter().map(|f| (f.field, f.message)).collect(),
        other => panic!("expected a validation error, got {other:?}"),
    }
}

#[test]
fn key_names_are_trimmed_visible_and_at_most_100_characters() {
    let name = |s: &str| KeyName::new(s).map(|n| n.as_str().to_string());
    assert_eq!(name("  ci  "), Ok("ci".into()));
    assert_eq!(name(&"x".repeat(100)), Ok("x".repeat(100)));
    assert_eq!(
        name(&"é".repeat(100)),
        Ok("é".repeat(100)),
        "characters, not bytes"
    );
    let too_long = "must be at most 100 characters".to_string();
    // Counted as sent, the white space around it included (the document's maxLength), then
    // trimmed.
    let padded = format!(" {} ", "x".repeat(98));
    assert_eq!(name(&padded), Ok("x".repeat(98)));
    let padded = format!(" {} ", "x".repeat(99));
    assert_eq!(name(&padded), Err(too_long.clone()), "counted as sent");
    assert_eq!(name(&"x".repeat(101)), Err(too_long.clone()));
    assert_eq!(name(&"é".repeat(101)), Err(too_long));
    for empty in ["", "   ", "\t", "\u{2028}", " \n "] {
        assert_eq!(name(empty), Err("must not be empty".into()), "{empty:?}");
    }
    // Trimming must not hide an invisible character at the end of the name as sent.
    let e = name("ci\u{2028}").unwrap_err();
    assert!(e.contains("U+2028 at character 3"), "{e}");
    let e = name("a\u{200b}b").unwrap_err();
    assert!(e.contains("U+200B at character 2"), "{e}");
    let key = format!("kp_{}", "ab".repeat(32));
    let e = name(&format!("ci {key}")).unwrap_err();
    assert!(e.contains("kp_abababab…") && !e.contains(&key), "{e}");
}

#[test]
fn profile_ids_are_unique_visible_and_bounded() {
    let list = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let problems = |v: Vec<String>| ProfileIds::new(v).unwrap_err().0;
    assert!(ProfileIds::new(vec![]).unwrap().is_empty());
    let ok = ProfileIds::new(list(&["p1", "P1", "p 2"])).unwrap();
    assert_eq!(ok.as_slice(), ["p1", "P1", "p 2"]);
    // 100 ids of 100 characters each: at both limits.
    let max: Vec<String> = (0..100).map(|i| format!("{i:0>100}")).collect();
    assert!(ProfileIds::new(max.clone()).is_ok());
    let mut over = max.clone();
    over.push("p".into());
    assert_eq!(
        problems(over),
        [(None, "at most 100 profile ids".to_string())]
    );
    let long = "x".repeat(101);
    // Emptiness and repeats first, then length and visibility; one problem per id.
    assert_eq!(
        problems(list(&[&long, "", "a", "a", " ", "b\u{feff}", &long])),
        [
            (Some(1), "must not be empty".to_string()),
            (Some(3), "duplicate value \"a\"".to_string()),
            (Some(4), "must not be empty".to_string()),
            (Some(6), format!("duplicate value {long:?}")),
            (Some(0), "must be at most 100 characters".to_string()),
            (
                Some(5),
                "must not contain control, invisible or reordering characters: U+FEFF at \
                 character 2"
                    .to_string()
            ),
        ]
    );
}

#[test]
fn an_expiry_is_after_now_and_writable_in_rfc3339() {
    let future = "must be in the future".to_string();
    assert_eq!(Expiry::new(NOW, NOW), Err(future.clone()));
    assert_eq!(Expiry::new(NOW.add_millis(-1), NOW), Err(future));
    assert_eq!(
        Expiry::new(NOW.add_millis(1), NOW).unwrap().at(),
        NOW.add_millis(1)
    );
    let last = Timestamp::MAX_RFC3339;
    assert_eq!(Expiry::new(last, NOW).unwrap().at(), last);
    assert_eq!(
        Expiry::new(last.add_millis(1), NOW),
        Err("must be no later than 9999-12-31T23:59:59.999Z".into())
    );
    let syntax = "must be an RFC 3339 date-time with an offset, e.g. 2030-01-01T00:00:00Z";
    for bad in [
        "",
        "soon",
        "2030-01-01",
        "2030-01-01T00:00:00",
        "+10000-01-01T00:00:00Z",
    ] {
        assert_eq!(Expiry::parse(bad, NOW), Err(syntax.into()), "{bad:?}");
    }
    assert_eq!(
        Expiry::parse("2030-01-01T02:00:00+02:00", NOW).map(Expiry::at),
        Ok(Timestamp::parse_rfc3339("2030-01-01T00:00:00Z").unwrap())
    );
    assert_eq!(
        Expiry::parse(&NOW.to_rfc3339(), NOW),
        Err("must be in the future".into())
    );
}

#[test]
fn a_key_without_a_name_is_refused() {
    let (_d, s) = temp_store();
    let got = fields(
        create(
            &s,
            &operator("alice"),
            NewKey::default(),
            NOW,
            Publish::AfterCommit,
        )
        .unwrap_err(),
    );
    assert_eq!(got, [("name".to_string(), "is required".to_string())]);
}

#[test]
fn creates_with_defaults_and_stores_only_the_hash() {
    let (_d, s) = temp_store();
    let k = create(
        &s,
        &operator("alice"),
        named("  ci  "),
        NOW,
        Publish::AfterCommit,
    )
    .unwrap();
    assert_eq!(k.name, "ci");
    assert_eq!(k.permission, Permission::Readwrite);
    assert!(k.full_access);
    assert!(k.profile_ids.is_empty());
    assert_eq!(k.expires_at, None);
    assert_eq!(k.last_used_at, None);
    assert_eq!(k.user_id, "alice");
    let plain = k.key.clone().unwrap();
    assert!(auth::is_well_formed(&plain));
    assert_eq!(k.key_prefix, &plain[..11]);
    let stored = s
        .conn()
        .key_by_hash(&auth::hash_key(&plain))
        .unwrap()
        .unwrap();
    assert_eq!(stored.id, k.id);
    assert_eq!(stored.key, None);
}

#[test]
fn scope_and_full_access_must_agree() {
    let (_d, s) = temp_store();
    let both = NewKey {
        profile_ids: ids(&["p"]),
        ..named("k")
    };
    assert_eq!(
        fields(create(&s, &operator("alice"), both, NOW, Publish::AfterCommit).unwrap_err())[0].0,
        "profileIds"
    );
    let none = NewKey {
        full_access: Some(false),
        ..named("k")
    };
    assert_eq!(
        fields(create(&s, &operator("alice"), none, NOW, Publish::AfterCommit).unwrap_err())[0].0,
        "profileIds"
    );
    let scoped = NewKey {
        full_access: Some(false),
        profile_ids: ids(&["p1", "p2"]),
        ..named("k")
    };
    let k = create(&s, &operator("alice"), scoped, NOW, Publish::AfterCommit).unwrap();
    assert_eq!(k.profile_ids, ["p1", "p2"]);
    assert!(!k.full_access);
}

#[test]
fn scoped_key_cannot_create_broader_keys() {
    let (_d, s) = temp_store();
    let parent = create(
        &s,
        &operator("alice"),
        NewKey {
            full_access: Some(false),
            profile_ids: ids(&["p1", "p2"]),
            ..named("parent")
        },
        NOW,
        Publish::AfterCommit,
    )
    .unwrap();
    let actor = Actor::key(parent);
    let e = create(&s, &actor, named("full"), NOW, Publish::AfterCommit).unwrap_err();
    assert_eq!(e.http_status(), 403);
    let outside = NewKey {
        full_access: Some(false),
        profile_ids: ids(&["p1", "p3"]),
        ..named("outside")
    };
    assert_eq!(
        create(&s, &actor, outside, NOW, Publish::AfterCommit)
            .unwrap_err()
            .http_status(),
        403
    );
    let inside = NewKey {
        full_access: Some(false),
        profile_ids: ids(&["p2"]),
        ..named("inside")
    };
    let child = create(&s, &actor, inside, NOW, Publish::AfterCommit).unwrap();
    assert_eq!(child.user_id, "alice");
}

#[test]
fn readonly_key_cannot_create_or_delete() {
    let (_d, s) = temp_store();
    let ro = create(
        &s,
        &operator("alice"),
        NewKey {
            permission: Some(Permission::Readonly),
            ..named("ro")
        },
        NOW,
        Publish::AfterCommit,
    )
    .unwrap();
    let actor = Actor::key(ro.clone());
    assert_eq!(
        create(&s, &actor, named("x"), NOW, Publish::AfterCommit)
            .unwrap_err()
            .http_status(),
        403
    );
    assert_eq!(
        delete(&s, &actor, &ro.id, NOW).unwrap_err().http_status(),
        403
    );
    assert_eq!(list(&s, &actor, false).unwrap().len(), 1);
}

#[test]
fn users_are_isolated() {
    let (_d, s) = temp_store();
    let a = create(
        &s,
        &operator("alice"),
        named("a"),
        NOW,
        Publish::AfterCommit,
    )
    .unwrap();
    let bob = Actor::operator("bob").unwrap();
    create(&s, &bob, named("b"), NOW, Publish::AfterCommit).unwrap();
    assert_eq!(list(&s, &bob, false).unwrap().len(), 1);
    assert_eq!(list(&s, &bob, true).unwrap().len(), 2);
    assert_eq!(get(&s, &bob, &a.id).unwrap_err().exit_code(), 3);
    assert_eq!(
        delete(&s, &bob, &a.key_prefix, NOW)
            .unwrap_err()
            .exit_code(),
        3
    );
    assert!(get(&s, &operator("alice"), &a.key_prefix).is_ok());
    let as_key = Actor::key(a);
    assert_eq!(list(&s, &as_key, true).unwrap_err().http_status(), 403);
}

#[test]
fn delete_takes_effect_at_once() {
    let (_d, s) = temp_store();
    let k = create(
        &s,
        &operator("alice"),
        named("a"),
        NOW,
        Publish::AfterCommit,
    )
    .unwrap();
    let plain = k.key.clone().unwrap();
    assert!(auth::authenticate(&s, &plain, NOW).is_ok());
    delete(&s, &operator("alice"), &k.key_prefix, NOW).unwrap();
    let e = auth::authenticate(&s, &plain, NOW).unwrap_err();
    assert_eq!(e.code(), "UNAUTHORIZED");
    assert_eq!(
        delete(&s, &operator("alice"), &k.id, NOW)
            .unwrap_err()
            .exit_code(),
        3
    );
}

#[test]
fn expired_keys_are_refused_but_listed() {
    let (_d, s) = temp_store();
    let k = create(
        &s,
        &operator("alice"),
        NewKey {
            expires_at: after(1000),
            ..named("a")
        },
        NOW,
        Publish::AfterCommit,
    )
    .unwrap();
    let plain = k.key.clone().unwrap();
    assert!(auth::authenticate(&s, &plain, NOW.add_millis(999)).is_ok());
    // At the boundary itself the key has expired.
    let e = auth::authenticate(&s, &plain, NOW.add_millis(1000)).unwrap_err();
    assert_eq!(e.to_string(), "API key has expired");
    assert_eq!(e.code(), "API_KEY_EXPIRED");
    assert_eq!(list(&s, &operator("alice"), false).unwrap().len(), 1);
}

#[test]
fn last_used_is_coalesced_to_once_a_second() {
    let (_d, s) = temp_store();
    let k = create(
        &s,
        &operator("alice"),
        named("a"),
        NOW,
        Publish::AfterCommit,
    )
    .unwrap();
    let plain = k.key.unwrap();
    auth::authenticate(&s, &plain, NOW).unwrap();
    assert_eq!(
        get(&s, &operator("alice"), &k.id).unwrap().last_used_at,
        None
    );
    auth::authenticate_request(&s, &plain, NOW, ReadAhead::Nothing).unwrap();
    assert_eq!(
        get(&s, &operator("alice"), &k.id).unwrap().last_used_at,
        Some(NOW)
    );
    auth::authenticate_request(&s, &plain, NOW.add_millis(999), ReadAhead::Nothing).unwrap();
    assert_eq!(
        get(&s, &operator("alice"), &k.id).unwrap().last_used_at,
        Some(NOW)
    );
    auth::authenticate_request(&s, &plain, NOW.add_millis(1000), ReadAhead::Nothing).unwrap();
    assert_eq!(
        get(&s, &operator("alice"), &k.id).unwrap().last_used_at,
        Some(NOW.add_millis(1000))
    );
}

#[test]
fn rotate_keeps_name_scope_and_lifetime() {
    let (_d, s) = temp_store();
    let old = create(
        &s,
        &operator("alice"),
        NewKey {
            permission: Some(Permission::Readonly),
            full_access: Some(false),
            profile_ids: ids(&["p"]),
            expires_at: after(10_000),
            ..named("ci")
        },
        NOW,
        Publish::AfterCommit,
    )
    .unwrap();
    let later = NOW.add_millis(4_000);
    let new = rotate(
        &s,
        &operator("alice"),
        &old.key_prefix,
        None,
        later,
        Publish::AfterCommit,
    )
    .unwrap();
    assert_eq!(
        (&new.name, new.permission, new.full_access, &new.profile_ids),
        (&old.name, old.permission, old.full_access, &old.profile_ids)
    );
    assert_eq!(new.expires_at, Some(later.add_millis(10_000)));
    assert_ne!(new.key, old.key);
    assert!(auth::authenticate(&s, old.key.as_deref().unwrap(), later).is_err());
    assert!(auth::authenticate(&s, new.key.as_deref().unwrap(), later).is_ok());
}

#[test]
fn rotate_with_grace_expires_the_old_key_later_never_extends_it() {
    let (_d, s) = temp_store();
    let old = create(
        &s,
        &operator("alice"),
        named("ci"),
        NOW,
        Publish::AfterCommit,
    )
    .unwrap();
    rotate(
        &s,
        &operator("alice"),
        &old.id,
        Some(60_000),
        NOW,
        Publish::AfterCommit,
    )
    .unwrap();
    let old_now = get(&s, &operator("alice"), &old.id).unwrap();
    assert_eq!(old_now.expires_at, Some(NOW.add_millis(60_000)));
    let plain = old.key.unwrap();
    assert!(auth::authenticate(&s, &plain, NOW.add_millis(59_999)).is_ok());
    assert!(auth::authenticate(&s, &plain, NOW.add_millis(60_000)).is_err());
    // A second rotation with a longer grace does not push the expiry out.
    rotate(
        &s,
        &operator("alice"),
        &old.id,
        Some(600_000),
        NOW,
        Publish::AfterCommit,
    )
    .unwrap();
    let again = get(&s, &operator("alice"), &old.id).unwrap();
    assert_eq!(again.expires_at, Some(NOW.add_millis(60_000)));
}

fn make(s: &Store, name: &str, profiles: &[&str], expires: Option<i64>) -> ApiKey {
    let input = NewKey {
        full_access: Some(profiles.is_empty()),
        profile_ids: ids(profiles),
        expires_at: expires.and_then(after),
        ..named(name)
    };
    create(s, &operator("alice"), input, NOW, Publish::AfterCommit).unwrap()
}

fn expiring_at(ms: i64) -> NewKey {
    NewKey {
        expires_at: after(ms),
        ..named("child")
    }
}

#[test]
fn an_expiring_key_cannot_create_a_key_that_outlives_it() {
    let (_d, s) = temp_store();
    let actor = Actor::key(make(&s, "short", &[], Some(10_000)));
    for input in [named("forever"), expiring_at(10_001)] {
        let e = create(&s, &actor, input, NOW, Publish::AfterCommit).unwrap_err();
        assert_eq!((e.http_status(), e.code()), (403, "FORBIDDEN"));
        assert_eq!(e.details().len(), 1, "{e:?}");
        assert_eq!(e.details()[0].field, "expiresAt");
        assert!(e.details()[0]
            .message
            .contains(&NOW.add_millis(10_000).to_rfc3339()));
    }
    assert_eq!(list(&s, &operator("alice"), false).unwrap().len(), 1);
    for ms in [10_000, 1] {
        let k = create(&s, &actor, expiring_at(ms), NOW, Publish::AfterCommit).unwrap();
        assert_eq!(k.expires_at, Some(NOW.add_millis(ms)));
    }
    // A key without an expiry is not limited in lifetime.
    let forever = Actor::key(make(&s, "forever", &[], None));
    assert!(create(&s, &forever, named("child"), NOW, Publish::AfterCommit).is_ok());
}

#[test]
fn a_key_deletes_only_keys_no_broader_than_itself() {
    let (_d, s) = temp_store();
    let full = make(&s, "full", &[], None);
    let wide = make(&s, "wide", &["p1", "p2"], None);
    let late = make(&s, "late", &["p1"], Some(20_000));
    let narrow = make(&s, "narrow", &["p1"], Some(5_000));
    let actor = make(&s, "actor", &["p1"], Some(10_000));
    let as_actor = Actor::key(actor.clone());
    for target in [&full, &wide, &late] {
        let e = delete(&s, &as_actor, &target.id, NOW).unwrap_err();
        assert_eq!(e.http_status(), 403, "{}: {e:?}", target.name);
    }
    assert_eq!(list(&s, &operator("alice"), false).unwrap().len(), 5);
    delete(&s, &as_actor, &narrow.id, NOW).unwrap();
    delete(&s, &as_actor, &actor.key_prefix, NOW).unwrap();
    // The operator is not limited.
    delete(&s, &operator("alice"), &full.id, NOW).unwrap();
    // Another user's key is not found, however broad the acting key.
    let alice_full = Actor::key(make(&s, "b", &[], None));
    let other = create(
        &s,
        &Actor::operator("bob").unwrap(),
        named("x"),
        NOW,
        Publish::AfterCommit,
    )
    .unwrap();
    assert_eq!(
        delete(&s, &alice_full, &other.id, NOW)
            .unwrap_err()
            .http_status(),
        404
    );
}

#[test]
fn a_key_rotates_only_keys_no_broader_than_itself() {
    let (_d, s) = temp_store();
    let full = make(&s, "full", &[], None);
    let forever = make(&s, "forever", &["p1"], None);
    let actor = Actor::key(make(&s, "actor", &["p1"], Some(10_000)));
    for target in [&full, &forever] {
        for grace in [None, Some(1_000)] {
            let e = rotate(&s, &actor, &target.id, grace, NOW, Publish::AfterCommit).unwrap_err();
            assert_eq!(e.http_status(), 403, "{}: {e:?}", target.name);
            let still = get(&s, &operator("alice"), &target.id).unwrap();
            assert_eq!(still.expires_at, target.expires_at, "{}", target.name);
        }
    }
    assert_eq!(list(&s, &operator("alice"), false).unwrap().len(), 3);
    let other = create(
        &s,
        &Actor::operator("bob").unwrap(),
        named("x"),
        NOW,
        Publish::AfterCommit,
    )
    .unwrap();
    assert_eq!(
        rotate(&s, &actor, &other.id, None, NOW, Publish::AfterCommit)
            .unwrap_err()
            .http_status(),
        404
    );
}

#[test]
fn a_key_rotating_never_outlives_itself() {
    let (_d, s) = temp_store();
    let me = make(&s, "me", &["p1"], Some(10_000));
    let actor = Actor::key(me.clone());
    // A 5 s key rotated at +4 s gets +9 s, within the acting key's +10 s.
    let target = make(&s, "target", &["p1"], Some(5_000));
    let later = NOW.add_millis(4_000);
    let new = rotate(
        &s,
        &actor,
        &target.id,
        Some(600_000),
        later,
        Publish::AfterCommit,
    )
    .unwrap();
    assert_eq!(new.expires_at, Some(NOW.add_millis(9_000)));
    // With a grace period the old key still ends when it would have.
    let old = get(&s, &operator("alice"), &target.id).unwrap();
    assert_eq!(old.expires_at, target.expires_at);
    let later = NOW.add_millis(8_000);
    // Rotated at +8 s it would get +13 s; the acting key ends at +10 s.
    let newer = rotate(&s, &actor, &new.id, None, later, Publish::AfterCommit).unwrap();
    assert_eq!(newer.expires_at, me.expires_at, "clamped to the acting key");
    // Rotating itself, again and again, a key cannot push its end out.
    let mut current = me.clone();
    for step in 1..=3 {
        let at = NOW.add_millis(step * 2_000);
        let next = rotate(
            &s,
            &Actor::key(current.clone()),
            &current.id,
            Some(60_000),
            at,
            Publish::AfterCommit,
        )
        .unwrap();
        assert_eq!(next.expires_at, me.expires_at, "step {step}");
        let old = get(&s, &operator("alice"), &current.id).unwrap();
        assert!(old.expires_at <= me.expires_at, "step {step}");
        current = next;
    }
    // The operator's cron rotation keeps the lifetime: the same length from now.
    let cron = rotate(
        &s,
        &operator("alice"),
        &me.id,
        None,
        NOW.add_millis(9_000),
        Publish::AfterCommit,
    )
    .unwrap();
    assert_eq!(cron.expires_at, Some(NOW.add_millis(19_000)));
}

#[test]
fn a_failed_publish_leaves_nothing_behind() {
    let (_d, s) = temp_store();
    let mut fail = |_: &ApiKey| Err(Error::Io("stdout is gone".into()));
    let fail = Publish::BeforeCommit(&mut fail);
    let e = create(&s, &operator("alice"), named("lost"), NOW, fail).unwrap_err();
    assert_eq!(e.exit_code(), 1);
    assert!(list(&s, &operator("alice"), false).unwrap().is_empty());

    let old = make(&s, "old", &[], Some(10_000));
    for grace in [None, Some(1_000)] {
        let mut seen = None;
        let mut publish = |k: &ApiKey| {
            seen = k.key.clone();
            Err(Error::Io("stdout is gone".into()))
        };
        let publish = Publish::BeforeCommit(&mut publish);
        let e = rotate(&s, &operator("alice"), &old.id, grace, NOW, publish).unwrap_err();
        assert_eq!(e.exit_code(), 1);
        assert!(seen.is_some(), "publish gets the plaintext");
        let keys = list(&s, &operator("alice"), false).unwrap();
        assert_eq!(keys.len(), 1);
        assert_eq!(keys[0].expires_at, old.expires_at);
        assert!(auth::authenticate(&s, old.key.as_deref().unwrap(), NOW).is_ok());
    }
    // A publish that succeeds sees the key stored, and it stays.
    let mut published = None;
    let mut publish = |k: &ApiKey| {
        published = Some(k.id.clone());
        Ok(())
    };
    let k = create(
        &s,
        &operator("alice"),
        named("kept"),
        NOW,
        Publish::BeforeCommit(&mut publish),
    )
    .unwrap();
    assert_eq!(published.as_deref(), Some(k.id.as_str()));
    assert!(get(&s, &operator("alice"), &k.id).is_ok());
}

#[test]
fn prune_deletes_keys_expired_longer_than_the_age() {
    let (_d, s) = temp_store();
    let gone = make(&s, "gone", &[], Some(1_000));
    let edge = make(&s, "edge", &[], Some(2_000));
    make(&s, "recent", &[], Some(5_000));
    make(&s, "forever", &[], None);
    create(
        &s,
        &Actor::operator("bob").unwrap(),
        expiring_at(1_000),
        NOW,
        Publish::AfterCommit,
    )
    .unwrap();
    // At +12 s with a 10 s age: expired before +2 s. The key that expired exactly then
    // has not been expired for more than 10 s.
    let at = NOW.add_millis(12_000);
    let due = prunable(&s, &operator("alice"), 10_000, at).unwrap();
    assert_eq!(due.len(), 1);
    let deleted = prune(&s, &operator("alice"), 10_000, at).unwrap();
    assert_eq!(deleted.len(), 1);
    assert_eq!(deleted[0].id, gone.id);
    assert!(get(&s, &operator("alice"), &edge.id).is_ok());
    assert_eq!(list(&s, &operator("alice"), false).unwrap().len(), 3);
    assert_eq!(
        list(&s, &operator("alice"), true).unwrap().len(),
        4,
        "bob's key stays"
    );
    assert_eq!(
        prune(&s, &operator("alice"), -1, at)
            .unwrap_err()
            .exit_code(),
        2
    );
    // 0: every key expired by now (`edge` and `recent`), none that has not.
    let deleted = prune(&s, &operator("alice"), 0, at).unwrap();
    let mut names: Vec<&str> = deleted.iter().map(|k| k.name.as_str()).collect();
    names.sort();
    assert_eq!(names, ["edge", "recent"]);
    assert_eq!(
        list(&s, &operator("alice"), false).unwrap().len(),
        1,
        "forever stays"
    );
}
