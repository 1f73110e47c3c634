//! The list a request reads with its key (`Storage::key_by_hash_ahead`: one statement on
//! PostgreSQL; one read transaction, or the connection's cache, on SQLite) is exactly the list
//! a separate read would give at that moment: another connection's commit, the connection's
//! own write and its recorded use all show in the next request's list, a revoked key is
//! refused at once, and a list read ahead and left unread is never given to anyone else.

use keyhook_core::auth;
use keyhook_core::error::Error;
use keyhook_core::model::{ApiKey, Webhook};
use keyhook_core::service::keys;
use keyhook_core::service::webhooks;
use keyhook_core::service::Actor;
use keyhook_core::store::{ReadAhead, Store};
use keyhook_core::time::Timestamp;

use crate::concurrency::hold_key_row;
use crate::support::{create_webhook, key, operator, Kind, NOW};

/// One list request as the server makes it at `now`: the key with its user's keys read
/// ahead, then the list of the key's actor (its use is recorded in between, a write, when
/// the last one is a second or more before `now`).
fn list_keys_request(s: &Store, plaintext: &str, now: Timestamp) -> Vec<ApiKey> {
    let key = auth::authenticate_request(s, plaintext, now, ReadAhead::KeysOfItsUser).unwrap();
    keys::list(s, &Actor::Key(key), false).unwrap().to_vec()
}

fn list_webhooks_request(s: &Store, plaintext: &str, now: Timestamp) -> Vec<Webhook> {
    let key = auth::authenticate_request(s, plaintext, now, ReadAhead::WebhooksOfItsUser).unwrap();
    webhooks::list(s, &Actor::Key(key)).unwrap().to_vec()
}

/// The names in a list, sorted (keys made at the same time are listed in id order).
fn names(list: &[ApiKey]) -> Vec<&str> {
    let mut names: Vec<&str> = list.iter().map(|k| k.name.as_str()).collect();
    names.sort_unstable();
    names
}

/// The list read with the key is the list a read of its own gives, key for key (lastUsedAt
/// included), for keys and for webhooks, request after request; another user's lists are
/// not it.
pub fn the_list_read_with_the_key_is_the_list_read_alone(kind: &Kind) {
    let Some(db) = kind.db() else { return };
    let backend = db.backend(2);
    let s = backend.connect().unwrap();
    let caller = key(&s, "alice", "caller");
    let plaintext = caller.key.clone().unwrap();
    key(&s, "alice", "second");
    key(&s, "bob", "bob's");
    create_webhook(&s, "alice", NOW);
    create_webhook(&s, "bob", NOW);
    for round in 0..3 {
        // The same second as the last recorded use from round 1 on: nothing is written.
        let now = NOW.add_millis(5_000);
        let ahead = list_keys_request(&s, &plaintext, now);
        let alone = s.conn().list_keys(Some("alice")).unwrap();
        assert_eq!(ahead, alone, "round {round}");
        assert_eq!(names(&ahead), ["caller", "second"], "round {round}");
        let hooks = list_webhooks_request(&s, &plaintext, now);
        assert_eq!(
            hooks,
            s.conn().list_webhooks("alice").unwrap(),
            "round {round}"
        );
        assert!(hooks.iter().all(|w| w.user_id == "alice"), "round {round}");
    }
    // A list of another user straight after a read ahead is that user's own.
    auth::authenticate_request(&s, &plaintext, NOW, ReadAhead::KeysOfItsUser).unwrap();
    assert_eq!(names(&s.conn().list_keys(Some("bob")).unwrap()), ["bob's"]);
}

/// A commit through another instance (a new key, a deleted one, a renamed webhook) shows in
/// this instance's very next list request, and a revoked caller is refused on it.
pub fn another_instances_commit_shows_in_the_next_list_read_ahead(kind: &Kind) {
    let Some(db) = kind.db() else { return };
    let (a, b) = (db.backend(2), db.backend(2));
    let on_a = a.connect().unwrap();
    let on_b = b.connect().unwrap();
    let caller = key(&on_b, "alice", "caller");
    let plaintext = caller.key.clone().unwrap();
    let hook = create_webhook(&on_b, "alice", NOW);
    for _ in 0..2 {
        assert_eq!(
            names(&list_keys_request(&on_a, &plaintext, NOW)),
            ["caller"]
        );
        assert_eq!(list_webhooks_request(&on_a, &plaintext, NOW).len(), 1);
    }
    let other = key(&on_b, "alice", "other");
    assert_eq!(
        names(&list_keys_request(&on_a, &plaintext, NOW)),
        ["caller", "other"]
    );
    keys::delete(&on_b, &operator("alice"), &other.id, NOW).unwrap();
    assert_eq!(
        names(&list_keys_request(&on_a, &plaintext, NOW)),
        ["caller"]
    );
    webhooks::delete(&on_b, &operator("alice"), &hook.id, NOW).unwrap();
    assert!(list_webhooks_request(&on_a, &plaintext, NOW).is_empty());
    keys::delete(&on_b, &operator("alice"), &caller.id, NOW).unwrap();
    for ahead in [ReadAhead::KeysOfItsUser, ReadAhead::WebhooksOfItsUser] {
        let e = auth::authenticate_request(&on_a, &plaintext, NOW, ahead).unwrap_err();
        assert!(matches!(e, Error::Unauthorized(_)), "{e:?}");
    }
}

/// The connection's own writes show in its next list request: a key it creates, and the use
/// it records between reading the key and answering with the list (lastUsedAt of the caller
/// in the list is the request's time).
pub fn the_connections_own_writes_show_in_its_next_list_read_ahead(kind: &Kind) {
    let Some(db) = kind.db() else { return };
    let backend = db.backend(1);
    let s = backend.connect().unwrap();
    let caller = key(&s, "alice", "caller");
    let plaintext = caller.key.clone().unwrap();
    let last_used = |list: &[ApiKey]| {
        list.iter()
            .find(|k| k.id == caller.id)
            .and_then(|k| k.last_used_at)
    };
    let first = list_keys_request(&s, &plaintext, NOW);
    assert_eq!(last_used(&first), Some(NOW));
    // Twice in the same second: served as read (the cache, where there is one), unchanged.
    assert_eq!(
        list_keys_request(&s, &plaintext, NOW.add_millis(500)),
        first
    );
    let later = NOW.add_millis(2_000);
    assert_eq!(
        last_used(&list_keys_request(&s, &plaintext, later)),
        Some(later)
    );
    // And in the next request's, which records nothing.
    let again = list_keys_request(&s, &plaintext, later.add_millis(500));
    assert_eq!(last_used(&again), Some(later));
    assert_eq!(
        last_used(&s.conn().list_keys(Some("alice")).unwrap()),
        Some(later)
    );
    key(&s, "alice", "made here");
    assert_eq!(
        names(&list_keys_request(&s, &plaintext, later)),
        ["caller", "made here"]
    );
}

/// A list read ahead and not taken (the request ended before its list: refused, limited)
/// goes with nothing: the next user of the same pooled connection reads the list as it is.
pub fn a_list_read_ahead_and_left_is_never_given_to_the_next_user(kind: &Kind) {
    let Some(db) = kind.db() else { return };
    let (pooled, other) = (db.backend(1), db.backend(1));
    let writer = other.connect().unwrap();
    let caller = key(&writer, "alice", "caller");
    let plaintext = caller.key.clone().unwrap();
    // Twice: the first request records the use (a write, which drops what was read ahead);
    // the second, in the same second, leaves its list read ahead on the connection.
    for _ in 0..2 {
        let s = pooled.connect().unwrap();
        auth::authenticate_request(&s, &plaintext, NOW, ReadAhead::KeysOfItsUser).unwrap();
    }
    key(&writer, "alice", "after");
    let s = pooled.connect().unwrap();
    assert_eq!(
        names(&s.conn().list_keys(Some("alice")).unwrap()),
        ["after", "caller"]
    );
    // Likewise when the connection wrote in between (the read ahead is not taken then).
    auth::authenticate_request(&s, &plaintext, NOW, ReadAhead::KeysOfItsUser).unwrap();
    assert!(s.conn().list_keys(Some("alice")).unwrap()[0]
        .expires_at
        .is_none());
    auth::authenticate_request(&s, &plaintext, NOW, ReadAhead::KeysOfItsUser).unwrap();
    s.write(|c| Ok(c.set_key_expiry(&caller.id, NOW.add_millis(86_400_000))?))
        .unwrap();
    let listed = s.conn().list_keys(Some("alice")).unwrap();
    let expiry = listed
        .iter()
        .find(|k| k.id == caller.id)
        .unwrap()
        .expires_at;
    assert_eq!(expiry, Some(NOW.add_millis(86_400_000)));
}

/// The caller's use recorded between reading the key with its list and answering: when
/// another instance recorded a later use of the same key in between, the list answered is
/// the database's (the later use), never this request's earlier one written over it.
pub fn a_later_use_recorded_elsewhere_shows_in_the_list_read_ahead(kind: &Kind) {
    let Some(db) = kind.db() else { return };
    let (a, b) = (db.backend(1), db.backend(1));
    let on_a = a.connect().unwrap();
    let on_b = b.connect().unwrap();
    let caller = key(&on_b, "alice", "caller");
    let plaintext = caller.key.clone().unwrap();
    let hash = auth::hash_key(&plaintext);
    let later = NOW.add_millis(3_000);
    on_a.key_by_hash_ahead(&hash, ReadAhead::KeysOfItsUser)
        .unwrap()
        .expect("the key");
    on_b.record_key_use(&hash, &caller.id, later).unwrap();
    on_a.record_key_use(&hash, &caller.id, NOW).unwrap();
    let listed = on_a.conn().list_keys(Some("alice")).unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].last_used_at, Some(later));
    // And a use recorded here, later still, is the one listed next.
    let latest = later.add_millis(2_000);
    on_a.key_by_hash_ahead(&hash, ReadAhead::KeysOfItsUser)
        .unwrap()
        .expect("the key");
    on_a.record_key_use(&hash, &caller.id, latest).unwrap();
    let listed = on_a.conn().list_keys(Some("alice")).unwrap();
    assert_eq!(listed[0].last_used_at, Some(latest));
    assert_eq!(on_b.conn().list_keys(Some("alice")).unwrap(), listed);
}

/// A use that cannot be recorded now (another transaction holds the key) fails at once,
/// and the list read ahead with the key is still the database's: the key as it was.
pub fn a_use_not_recorded_leaves_the_list_as_read(kind: &Kind) {
    use std::time::{Duration, Instant};
    let Some(db) = kind.db() else { return };
    let (a, b) = (db.backend(1), db.backend(1));
    let on_a = a.connect().unwrap();
    let caller = key(&on_a, "alice", "caller");
    let plaintext = caller.key.clone().unwrap();
    let (release, holder) = hold_key_row(b, &caller.id, |c, id| {
        c.set_key_last_used(id, NOW.add_millis(1))
    });
    let started = Instant::now();
    let key = auth::authenticate_request(&on_a, &plaintext, NOW, ReadAhead::KeysOfItsUser).unwrap();
    assert!(started.elapsed() < Duration::from_millis(1_000));
    assert_eq!(key.last_used_at, None);
    let listed = keys::list(&on_a, &Actor::Key(key), false).unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].last_used_at, None);
    drop(release);
    holder.join().unwrap();
    assert_eq!(
        on_a.conn().list_keys(Some("alice")).unwrap()[0].last_used_at,
        Some(NOW.add_millis(1))
    );
}
