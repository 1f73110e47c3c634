//! Keys for the leak era over a real store, on both backends: checksums decide
//! without a lookup once no key without one is left, each key's own rate limit and uses
//! follow the no-broader rule and rotation, uses are spent exactly under concurrency, and a
//! leaked key is identified and revoked once, with its audit entry.

use std::cell::Cell;
use std::sync::Arc;

use keyhook_core::auth::{self, CHECKSUM_MISMATCH};
use keyhook_core::error::Error;
use keyhook_core::model::ApiKey;
use keyhook_core::rate::RateLimit;
use keyhook_core::service::keys::*;
use keyhook_core::service::Actor;
use keyhook_core::service::Publish;
use keyhook_core::store::{ChecksumMemory, Conn, ReadAhead, Storage, Store, StoreResult};
use keyhook_core::time::Timestamp;
use keyhook_test_support as support;
use keyhook_test_support::{operator, NOW};
use support::{temp_backend, temp_store};

/// Every test of this file, again on PostgreSQL.
#[test]
fn these_tests_pass_on_postgresql() {
    support::run_again_on_postgres("these_tests_pass_on_postgresql");
}

fn rate(s: &str) -> Option<RateLimit> {
    Some(RateLimit::parse(s).unwrap())
}

fn new_key(rate_limit: Option<RateLimit>, uses: Option<i64>) -> NewKey {
    NewKey {
        name: Some(KeyName::new("k").unwrap()),
        rate_limit,
        remaining_uses: uses,
        ..Default::default()
    }
}

fn make(s: &Store, rate_limit: Option<RateLimit>, uses: Option<i64>) -> ApiKey {
    create(
        s,
        &operator("alice"),
        new_key(rate_limit, uses),
        NOW,
        Publish::AfterCommit,
    )
    .unwrap()
}

/// A store that counts the key lookups made through it.
struct Counting {
    inner: Box<Store>,
    lookups: Cell<usize>,
}

impl Storage for Counting {
    fn conn(&self) -> Conn<'_> {
        self.inner.conn()
    }
    fn write_dyn(
        &self,
        f: &mut dyn FnMut(Conn<'_>) -> keyhook_core::Result<()>,
    ) -> keyhook_core::Result<()> {
        self.inner.write_dyn(f)
    }
    fn read_dyn(
        &self,
        f: &mut dyn FnMut(Conn<'_>) -> keyhook_core::Result<()>,
    ) -> keyhook_core::Result<()> {
        self.inner.read_dyn(f)
    }
    fn key_by_hash_ahead(
        &self,
        key_hash: &str,
        ahead: ReadAhead,
    ) -> StoreResult<Option<std::sync::Arc<ApiKey>>> {
        self.lookups.set(self.lookups.get() + 1);
        self.inner.key_by_hash_ahead(key_hash, ahead)
    }
    fn record_key_use(&self, key_hash: &str, key_id: &str, at: Timestamp) -> StoreResult<()> {
        self.inner.record_key_use(key_hash, key_id, at)
    }
    fn checksum_memory(&self) -> &ChecksumMemory {
        self.inner.checksum_memory()
    }
}

/// `token` with the character at `i` replaced by another hex digit.
fn changed(token: &str, i: usize) -> String {
    let c = token.as_bytes()[i];
    let other = if c == b'0' { '1' } else { '0' };
    format!("{}{other}{}", &token[..i], &token[i + 1..])
}

#[test]
fn a_wrong_checksum_is_refused_without_a_lookup_when_every_key_has_one() {
    let (_g, s) = temp_store();
    let key = make(&s, None, None);
    let plaintext = key.key.clone().unwrap();
    assert!(auth::has_valid_checksum(&plaintext));
    let counting = Counting {
        inner: s,
        lookups: Cell::new(0),
    };
    let s = &counting.inner;
    assert_eq!(
        auth::authenticate(&counting, &plaintext, NOW).unwrap().id,
        key.id
    );
    assert_eq!(counting.lookups.get(), 1);
    // The first token with a wrong checksum is looked up (the store does not know yet
    // whether keys without one are left), and teaches the store that none is.
    let typo = changed(&plaintext, 20);
    let e = auth::authenticate(&counting, &typo, NOW).unwrap_err();
    assert_eq!(e.to_string(), CHECKSUM_MISMATCH);
    assert_eq!(e.http_status(), 401);
    assert_eq!(counting.lookups.get(), 2);
    assert!(s.all_keys_checksummed(false).unwrap());
    // From then on, none is looked up, whatever character is wrong.
    for i in 3..67 {
        let e = auth::authenticate(&counting, &changed(&plaintext, i), NOW).unwrap_err();
        assert_eq!(e.to_string(), CHECKSUM_MISMATCH, "at {i}");
    }
    assert_eq!(counting.lookups.get(), 2);
    // An unknown key with a valid checksum is looked up, and is unknown.
    let other = auth::generate_key();
    let e = auth::authenticate(&counting, &other, NOW).unwrap_err();
    assert_eq!(e.to_string(), "invalid API key");
    assert_eq!(counting.lookups.get(), 3);
    // The memory is the backend's: a key found in a leak with a wrong checksum is unknown
    // without a lookup too.
    assert_eq!(
        identify(&counting, &operator("alice"), &typo, NOW).unwrap(),
        Leaked::Unknown
    );
    assert_eq!(counting.lookups.get(), 3);
}

#[test]
fn a_key_created_with_limits_shows_them_and_rotation_copies_them() {
    let (_g, s) = temp_store();
    let k = make(&s, rate("5/s"), Some(7));
    let shown = get(&s, &operator("alice"), &k.id).unwrap();
    assert_eq!(shown.rate_limit, rate("5/s"));
    assert_eq!(shown.remaining_uses, Some(7));
    let json = serde_json::to_value(&shown).unwrap();
    assert_eq!(json["rateLimit"], "5/s");
    assert_eq!(json["remainingUses"], 7);
    let plain = make(&s, None, None);
    let json = serde_json::to_value(get(&s, &operator("alice"), &plain.id).unwrap()).unwrap();
    assert!(json["rateLimit"].is_null() && json["remainingUses"].is_null());
    // One use spent, then rotated: the new key has what the old one had left.
    let mut used = auth::authenticate(&*s, k.key.as_deref().unwrap(), NOW).unwrap();
    auth::spend_use(&*s, &mut used).unwrap();
    assert_eq!(used.remaining_uses, Some(6));
    let new = rotate(
        &s,
        &operator("alice"),
        &k.id,
        None,
        NOW,
        Publish::AfterCommit,
    )
    .unwrap();
    assert_eq!(new.rate_limit, rate("5/s"));
    assert_eq!(new.remaining_uses, Some(6));
    assert_eq!(
        get(&s, &operator("alice"), &new.id).unwrap().remaining_uses,
        Some(6)
    );
}

#[test]
fn uses_run_out_then_the_key_is_exhausted() {
    let (_g, s) = temp_store();
    let k = make(&s, None, Some(2));
    let token = k.key.clone().unwrap();
    for left in [1, 0] {
        let mut key = auth::authenticate(&*s, &token, NOW).unwrap();
        auth::spend_use(&*s, &mut key).unwrap();
        assert_eq!(key.remaining_uses, Some(left));
    }
    let e = auth::authenticate(&*s, &token, NOW).unwrap_err();
    assert!(matches!(e, Error::Exhausted), "{e:?}");
    assert_eq!(
        (e.code(), e.http_status(), e.exit_code()),
        ("KEY_EXHAUSTED", 403, 4)
    );
    assert_eq!(e.to_string(), "API key has no uses left");
    // A key read before its last use was spent elsewhere is refused when it spends.
    let mut stale = k.clone();
    stale.remaining_uses = Some(1);
    assert!(matches!(
        auth::spend_use(&*s, &mut stale),
        Err(Error::Exhausted)
    ));
    // A key without a limit spends nothing, and never runs out.
    let free = make(&s, None, None);
    let mut key = auth::authenticate(&*s, free.key.as_deref().unwrap(), NOW).unwrap();
    auth::spend_use(&*s, &mut key).unwrap();
    assert_eq!(key.remaining_uses, None);
}

#[test]
fn uses_are_spent_exactly_by_racing_connections() {
    let (_g, backend) = temp_backend(8);
    let token = {
        let s = backend.connect().unwrap();
        make(&s, None, Some(100)).key.unwrap()
    };
    let honoured = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let threads: Vec<_> = (0..8)
        .map(|_| {
            let (backend, token, honoured) =
                (Arc::clone(&backend), token.clone(), Arc::clone(&honoured));
            std::thread::spawn(move || {
                let s = backend.connect().unwrap();
                for _ in 0..20 {
                    let spent = auth::authenticate(&*s, &token, NOW)
                        .and_then(|mut k| auth::spend_use(&*s, &mut k));
                    match spent {
                        Ok(()) => {
                            honoured.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                        }
                        Err(Error::Exhausted) => {}
                        Err(e) => panic!("{e:?}"),
                    }
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    assert_eq!(honoured.load(std::sync::atomic::Ordering::SeqCst), 100);
    let s = backend.connect().unwrap();
    assert!(matches!(
        auth::authenticate(&*s, &token, NOW),
        Err(Error::Exhausted)
    ));
}

fn field(e: Error) -> (String, String, String) {
    match e {
        Error::ForbiddenFields { message, details } => (
            message,
            details[0].field.clone(),
            details[0].message.clone(),
        ),
        other => panic!("expected a 403 naming a field, got {other:?}"),
    }
}

#[test]
fn a_key_creates_only_keys_with_no_higher_rate_limit_and_no_more_uses() {
    let (_g, s) = temp_store();
    let parent = Actor::key(make(&s, rate("10/s"), Some(50)));
    let ok = |r: &str, uses: i64| {
        create(
            &s,
            &parent,
            new_key(rate(r), Some(uses)),
            NOW,
            Publish::AfterCommit,
        )
    };
    assert!(ok("10/s", 50).is_ok());
    assert!(ok("10/min", 1).is_ok());
    let (message, f, detail) = field(ok("11/s", 5).unwrap_err());
    assert_eq!(f, "rateLimit");
    assert!(message.contains("higher rate limit"), "{message}");
    assert!(detail.contains("within 10/s"), "{detail}");
    // The same refill with a larger burst is more, too.
    assert_eq!(field(ok("600/min", 5).unwrap_err()).1, "rateLimit");
    let (_, f, detail) = field(
        create(
            &s,
            &parent,
            new_key(None, Some(5)),
            NOW,
            Publish::AfterCommit,
        )
        .unwrap_err(),
    );
    assert_eq!(f, "rateLimit");
    assert!(detail.starts_with("is required"), "{detail}");
    let (message, f, detail) = field(ok("1/s", 51).unwrap_err());
    assert_eq!(f, "remainingUses");
    assert!(message.contains("more uses"), "{message}");
    assert!(detail.contains("at most 50"), "{detail}");
    let e = create(
        &s,
        &parent,
        new_key(rate("1/s"), None),
        NOW,
        Publish::AfterCommit,
    )
    .unwrap_err();
    assert!(field(e).2.starts_with("is required"));
    // A key without limits of its own may give any.
    let free = Actor::key(make(&s, None, None));
    assert!(create(
        &s,
        &free,
        new_key(rate("1000/s"), Some(1_000)),
        NOW,
        Publish::AfterCommit
    )
    .is_ok());
    // And a limited key acts (deletes) only on keys no broader.
    let broad = make(&s, None, None);
    let e = delete(&s, &parent, &broad.id, NOW).unwrap_err();
    assert!(
        e.to_string().contains("a key with a higher rate limit"),
        "{e}"
    );
}

#[test]
fn max_uses_is_from_one_to_two_to_the_53_minus_one() {
    assert_eq!(max_uses(1), Ok(1));
    assert_eq!(max_uses(MAX_USES), Ok(MAX_USES));
    for bad in [0, -1, MAX_USES + 1, i64::MIN, i64::MAX] {
        assert!(max_uses(bad).is_err(), "{bad}");
    }
}

#[test]
fn a_leaked_key_is_identified_and_revoked_once_with_its_audit_entry() {
    let (_g, s) = temp_store();
    let bob = Actor::operator("bob").unwrap();
    let k = create(&s, &bob, new_key(None, None), NOW, Publish::AfterCommit).unwrap();
    let token = k.key.clone().unwrap();
    let found = identify(&s, &operator("alice"), &token, NOW).unwrap();
    assert!(matches!(&found, Leaked::Active(f) if f.id == k.id && f.user_id == "bob"));
    assert_eq!(
        identify(&s, &operator("alice"), &auth::generate_key(), NOW).unwrap(),
        Leaked::Unknown
    );
    let gone = revoke_leaked(&s, &operator("alice"), &k.id, "logs/app.log:12", NOW).unwrap();
    assert_eq!(gone.map(|g| g.id), Some(k.id.clone()));
    assert_eq!(
        revoke_leaked(&s, &operator("alice"), &k.id, "logs/app.log:13", NOW).unwrap(),
        None,
        "revoked once"
    );
    assert_eq!(
        identify(&s, &operator("alice"), &token, NOW).unwrap(),
        Leaked::Unknown
    );
    let entries = s.conn().list_audit(Some("bob"), None, None, 10).unwrap();
    let deleted: Vec<_> = entries
        .iter()
        .filter(|e| e.action == "key.deleted")
        .collect();
    assert_eq!(deleted.len(), 1);
    assert_eq!(deleted[0].target, k.id);
    assert_eq!(deleted[0].details["reason"], "leaked");
    assert_eq!(deleted[0].details["foundIn"], "logs/app.log:12");
    assert_eq!(deleted[0].actor, "cli:unknown");
    // An expired key is identified as such.
    let short = NewKey {
        expires_at: Some(Expiry::new(NOW.add_millis(10), NOW).unwrap()),
        ..new_key(None, None)
    };
    let e = create(&s, &operator("alice"), short, NOW, Publish::AfterCommit).unwrap();
    assert!(matches!(
        identify(
            &s,
            &operator("alice"),
            e.key.as_deref().unwrap(),
            NOW.add_millis(10)
        )
        .unwrap(),
        Leaked::Expired(_)
    ));
    // Only the operator scans and revokes.
    let as_key = Actor::key(make(&s, None, None));
    assert_eq!(
        identify(&s, &as_key, &token, NOW)
            .unwrap_err()
            .http_status(),
        403
    );
}
