//! API key operations: create, list, show, delete, rotate.

use super::input::{check_unique_non_empty, visible, ListProblems, Problems};
use super::{Actor, Operation};
use crate::auth::{self, Excess, Reach};
use crate::error::{Error, FieldError, Result};
use crate::model::{ApiKey, Permission};
use crate::store::Store;
use crate::time::Timestamp;

pub const MAX_NAME_CHARS: usize = 100;
pub const MAX_PROFILE_IDS: usize = 100;
pub const MAX_PROFILE_ID_CHARS: usize = 100;

/// A key's name: trimmed, 1 to [`MAX_NAME_CHARS`] characters, visible text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyName(String);

impl KeyName {
    pub fn new(raw: &str) -> std::result::Result<KeyName, String> {
        let name = raw.trim();
        if name.is_empty() {
            return Err("must not be empty".into());
        }
        if name.chars().count() > MAX_NAME_CHARS {
            return Err(format!("must be at most {MAX_NAME_CHARS} characters"));
        }
        // The name as sent: trimming must not hide a U+2028 or a tab at its end.
        visible(raw)?;
        Ok(KeyName(name.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The profiles a key is limited to: at most [`MAX_PROFILE_IDS`], each non-empty, unique, at
/// most [`MAX_PROFILE_ID_CHARS`] characters of visible text. Empty for a full-access key.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProfileIds(Vec<String>);

impl ProfileIds {
    pub fn new(ids: Vec<String>) -> std::result::Result<ProfileIds, ListProblems> {
        let mut p = ListProblems::default();
        check_unique_non_empty(&mut p, &ids);
        for (i, id) in ids.iter().enumerate() {
            if id.chars().count() > MAX_PROFILE_ID_CHARS {
                p.add(
                    Some(i),
                    format!("must be at most {MAX_PROFILE_ID_CHARS} characters"),
                );
            }
            if let Err(m) = visible(id) {
                p.add(Some(i), m);
            }
        }
        if ids.len() > MAX_PROFILE_IDS {
            p.add(None, format!("at most {MAX_PROFILE_IDS} profile ids"));
        }
        p.into_result().map(|()| ProfileIds(ids))
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn as_slice(&self) -> &[String] {
        &self.0
    }
}

/// When a new key expires: later than the moment it is created, and no later than RFC 3339
/// can write (9999-12-31T23:59:59.999Z).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Expiry(Timestamp);

impl Expiry {
    pub fn new(at: Timestamp, now: Timestamp) -> std::result::Result<Expiry, String> {
        if at <= now {
            return Err("must be in the future".into());
        }
        if at > Timestamp::MAX_RFC3339 {
            return Err(format!(
                "must be no later than {}",
                Timestamp::MAX_RFC3339.to_rfc3339()
            ));
        }
        Ok(Expiry(at))
    }

    /// An expiry written in RFC 3339 with an offset (the API's `expiresAt`, the CLI's
    /// `--expires-at`), then [`Expiry::new`].
    pub fn parse(s: &str, now: Timestamp) -> std::result::Result<Expiry, String> {
        let at = Timestamp::parse_rfc3339(s)
            .ok_or("must be an RFC 3339 date-time with an offset, e.g. 2030-01-01T00:00:00Z")?;
        Expiry::new(at, now)
    }

    pub fn at(self) -> Timestamp {
        self.0
    }
}

/// The request to create a key, in typed values; [`create`] checks the rules that need
/// several fields or the acting key.
#[derive(Debug, Default, Clone)]
pub struct NewKey {
    /// Required.
    pub name: Option<KeyName>,
    /// `readwrite` when absent.
    pub permission: Option<Permission>,
    /// True when absent.
    pub full_access: Option<bool>,
    pub profile_ids: Option<ProfileIds>,
    pub expires_at: Option<Expiry>,
    /// What the front end refused converting the request (wrong types, unknown fields, bad
    /// values), named as the request names it; a refused value is `None` above.
    pub problems: Problems,
}

/// The fields of [`NewKey`] as the API names them, in the order problems are reported.
const NEW_KEY_FIELDS: &[&str] = &[
    "name",
    "permission",
    "fullAccess",
    "profileIds",
    "expiresAt",
];

/// The validated fields of a key to be created.
struct KeySpec {
    name: String,
    permission: Permission,
    full_access: bool,
    profile_ids: Vec<String>,
    expires_at: Option<Timestamp>,
}

fn validate(input: NewKey) -> Result<KeySpec> {
    let mut p = input.problems;
    let name = p.require("name", input.name);
    let full_access = input.full_access.unwrap_or(true);
    // Profile ids that were sent but refused were sent all the same.
    let has_profiles = match &input.profile_ids {
        Some(ids) => !ids.is_empty(),
        None => p.mentions("profileIds"),
    };
    if !p.has("fullAccess") && !p.has("profileIds") {
        if full_access && has_profiles {
            p.add(
                "profileIds",
                "must be empty when fullAccess is true (set fullAccess to false to limit the key)",
            );
        } else if !full_access && !has_profiles {
            p.add(
                "profileIds",
                "at least one profile id is required when fullAccess is false",
            );
        }
    }
    p.into_result(NEW_KEY_FIELDS)?;
    Ok(KeySpec {
        name: name.map(|n| n.0).unwrap_or_default(),
        permission: input.permission.unwrap_or(Permission::Readwrite),
        full_access,
        profile_ids: input.profile_ids.map(|ids| ids.0).unwrap_or_default(),
        expires_at: input.expires_at.map(Expiry::at),
    })
}

/// A key may only create keys no broader than itself (`auth::no_broader`): a scoped key only
/// scoped keys within its own profiles, a key that expires only keys that expire no later.
/// The operator may create anything.
fn check_not_broader(actor: &Actor, spec: &KeySpec) -> Result<()> {
    let Actor::Key(parent) = actor else {
        return Ok(());
    };
    let reach = Reach {
        permission: spec.permission,
        full_access: spec.full_access,
        profile_ids: &spec.profile_ids,
        expires_at: spec.expires_at,
    };
    match auth::no_broader(reach, parent.reach()) {
        Ok(()) => Ok(()),
        Err(Excess::FullAccess) => Err(Error::Forbidden(
            "a key limited to profiles cannot create a full-access key".into(),
        )),
        Err(Excess::Profile(p)) => Err(Error::Forbidden(format!(
            "key is not scoped to profile {p}"
        ))),
        Err(Excess::Permission) => Err(Error::Forbidden(
            "a readonly key cannot create a readwrite key".into(),
        )),
        Err(Excess::Lifetime(limit)) => {
            let limit = limit.to_rfc3339();
            let detail = match spec.expires_at {
                None => format!(
                    "is required: this key expires at {limit}, and may only create keys that \
                     expire no later"
                ),
                Some(_) => format!("must be no later than {limit}, when this key expires"),
            };
            Err(Error::ForbiddenFields {
                message: "a key that expires cannot create a key that outlives it".into(),
                details: vec![FieldError::new("expiresAt", detail)],
            })
        }
    }
}

/// Over HTTP a key acts (deletes, rotates) only on keys no broader than itself, so a leaked
/// scoped or short-lived key cannot revoke or replace the keys above it. A key may always act
/// on itself. The operator is not limited.
fn check_may_act_on(actor: &Actor, target: &ApiKey, verb: &str) -> Result<()> {
    let Actor::Key(key) = actor else {
        return Ok(());
    };
    if key.id == target.id {
        return Ok(());
    }
    let refused = |why: String| Err(Error::Forbidden(format!("this key cannot {verb} {why}")));
    match auth::no_broader(target.reach(), key.reach()) {
        Ok(()) => Ok(()),
        Err(Excess::FullAccess) => refused("a full-access key: it is limited to profiles".into()),
        Err(Excess::Profile(p)) => refused(format!(
            "a key scoped to profile {p}, which is outside its own profiles"
        )),
        Err(Excess::Permission) => refused("a readwrite key: it is readonly".into()),
        Err(Excess::Lifetime(limit)) => refused(format!(
            "a key that outlives it: it expires at {}",
            limit.to_rfc3339()
        )),
    }
}

fn insert_in(
    conn: crate::store::Conn<'_>,
    user: &str,
    spec: KeySpec,
    now: Timestamp,
) -> Result<ApiKey> {
    let plaintext = auth::generate_key();
    let mut key = ApiKey {
        id: uuid::Uuid::new_v4().to_string(),
        user_id: user.to_string(),
        key_prefix: auth::key_prefix(&plaintext).to_string(),
        name: spec.name,
        permission: spec.permission,
        full_access: spec.full_access,
        profile_ids: spec.profile_ids,
        last_used_at: None,
        expires_at: spec.expires_at,
        created_at: now,
        key: None,
    };
    conn.insert_key(&key, &auth::hash_key(&plaintext))?;
    key.key = Some(plaintext);
    Ok(key)
}

/// Creates a key and returns it with its plaintext, which exists nowhere else. The response
/// carries it after the commit: over HTTP a lost response is the client's to retry.
pub fn create(store: &Store, actor: &Actor, input: NewKey, now: Timestamp) -> Result<ApiKey> {
    create_then(store, actor, input, now, None::<Publish>)
}

/// [`create`], handing the new key (with its plaintext) to `publish` inside the transaction,
/// after the insert and before the commit, which is first made as sure as the store can
/// (`Conn::stage`). If `publish` fails, nothing is stored: a front end
/// whose output is the only copy of the key (the CLI's stdout) writes and flushes it there,
/// so a key that could not be delivered never exists.
pub fn create_publishing(
    store: &Store,
    actor: &Actor,
    input: NewKey,
    now: Timestamp,
    publish: impl FnOnce(&ApiKey) -> Result<()>,
) -> Result<ApiKey> {
    create_then(store, actor, input, now, Some(publish))
}

/// What a front end does with a new key inside its transaction; see [`create_publishing`].
type Publish = fn(&ApiKey) -> Result<()>;

fn create_then(
    store: &Store,
    actor: &Actor,
    input: NewKey,
    now: Timestamp,
    publish: Option<impl FnOnce(&ApiKey) -> Result<()>>,
) -> Result<ApiKey> {
    actor.may(Operation::CreateKey, None)?;
    let spec = validate(input)?;
    check_not_broader(actor, &spec)?;
    store.write(|c| {
        let key = insert_in(c, actor.user_id(), spec, now)?;
        if let Some(publish) = publish {
            c.stage()?;
            publish(&key)?;
        }
        Ok(key)
    })
}

/// Keys of the actor's user; with `all_users`, every user's (operators only).
pub fn list(store: &Store, actor: &Actor, all_users: bool) -> Result<Vec<ApiKey>> {
    actor.may(Operation::ListKeys, None)?;
    let user = match (actor, all_users) {
        (Actor::Operator { .. }, true) => None,
        (Actor::Key(_), true) => {
            return Err(Error::Forbidden(
                "only the operator can list every user's keys".into(),
            ))
        }
        (_, false) => Some(actor.user_id()),
    };
    store.conn().list_keys(user)
}

/// The actor's key whose id or 11-character prefix is `id`. Another user's key is reported
/// as not found, never as existing.
pub fn get(store: &Store, actor: &Actor, id: &str) -> Result<ApiKey> {
    actor.may(Operation::ShowKey, None)?;
    find(store.conn(), actor, id)
}

fn find(conn: crate::store::Conn<'_>, actor: &Actor, id: &str) -> Result<ApiKey> {
    let not_found = || Error::NotFound(format!("no API key with id or prefix {id:?}"));
    if id.is_empty() || id.len() > 64 {
        return Err(not_found());
    }
    let mut found = conn.keys_by_id_or_prefix(Some(actor.user_id()), id)?;
    match found.len() {
        0 => Err(not_found()),
        1 => Ok(found.remove(0)),
        n => Err(Error::validation(
            "id",
            format!("prefix {id} matches {n} keys; use the key id instead"),
        )),
    }
}

/// Deletes the key at once: the next request made with it is refused. A key may delete only
/// keys no broader than itself (another user's key stays "not found").
pub fn delete(store: &Store, actor: &Actor, id: &str) -> Result<ApiKey> {
    actor.may(Operation::DeleteKey, None)?;
    store.write(|c| {
        let key = find(c, actor, id)?;
        check_may_act_on(actor, &key, "delete")?;
        c.delete_key(&key.id)?;
        Ok(key)
    })
}

/// Replaces a key with a new one of the same name, permission and scope. The old key is
/// deleted at once or, with `grace_ms`, expires after that long (never later than it already
/// would). A key that had an expiry gets a new one the same length of time from now (the
/// operator's cron rotation); when a key rotates, the new key's expiry is also clamped to the
/// acting key's own, and the key rotated must be no broader than the acting key.
pub fn rotate(
    store: &Store,
    actor: &Actor,
    id: &str,
    grace_ms: Option<i64>,
    now: Timestamp,
) -> Result<ApiKey> {
    rotate_then(store, actor, id, grace_ms, now, None::<Publish>)
}

/// [`rotate`], handing the new key to `publish` before the commit, as in
/// [`create_publishing`]: if `publish` fails, no new key exists and the old key is untouched.
pub fn rotate_publishing(
    store: &Store,
    actor: &Actor,
    id: &str,
    grace_ms: Option<i64>,
    now: Timestamp,
    publish: impl FnOnce(&ApiKey) -> Result<()>,
) -> Result<ApiKey> {
    rotate_then(store, actor, id, grace_ms, now, Some(publish))
}

fn rotate_then(
    store: &Store,
    actor: &Actor,
    id: &str,
    grace_ms: Option<i64>,
    now: Timestamp,
    publish: Option<impl FnOnce(&ApiKey) -> Result<()>>,
) -> Result<ApiKey> {
    actor.may(Operation::RotateKey, None)?;
    store.write(|c| {
        let old = find(c, actor, id)?;
        check_may_act_on(actor, &old, "rotate")?;
        let same_lifetime = old
            .expires_at
            .map(|t| now.add_millis((t.millis() - old.created_at.millis()).max(1)));
        let expires_at = match (actor, same_lifetime) {
            (Actor::Key(k), Some(t)) => Some(k.expires_at.map_or(t, |limit| t.min(limit))),
            (Actor::Key(k), None) => k.expires_at,
            (Actor::Operator { .. }, t) => t,
        };
        let spec = KeySpec {
            name: old.name.clone(),
            permission: old.permission,
            full_access: old.full_access,
            profile_ids: old.profile_ids.clone(),
            expires_at,
        };
        check_not_broader(actor, &spec)?;
        let new = insert_in(c, &old.user_id, spec, now)?;
        match grace_ms {
            None => {
                c.delete_key(&old.id)?;
            }
            Some(ms) => {
                let until = now.add_millis(ms);
                let until = old.expires_at.map_or(until, |t| t.min(until));
                c.set_key_expiry(&old.id, until)?;
            }
        }
        if let Some(publish) = publish {
            c.stage()?;
            publish(&new)?;
        }
        Ok(new)
    })
}

/// Keys of the actor's user that expired more than `expired_for_ms` ago: what [`prune`]
/// would delete now.
pub fn prunable(
    store: &Store,
    actor: &Actor,
    expired_for_ms: i64,
    now: Timestamp,
) -> Result<Vec<ApiKey>> {
    actor.may(Operation::ListKeys, None)?;
    prunable_in(store.conn(), actor, expired_for_ms, now)
}

fn prunable_in(
    conn: crate::store::Conn<'_>,
    actor: &Actor,
    expired_for_ms: i64,
    now: Timestamp,
) -> Result<Vec<ApiKey>> {
    if expired_for_ms <= 0 {
        return Err(Error::validation("expiredFor", "must be greater than zero"));
    }
    let cutoff = now.add_millis(-expired_for_ms);
    let mut keys = conn.keys_expired_before(actor.user_id(), cutoff)?;
    // A key pruning (no route does today) removes only keys it may delete one by one.
    keys.retain(|k| check_may_act_on(actor, k, "delete").is_ok());
    Ok(keys)
}

/// Deletes the actor's user's keys that expired more than `expired_for_ms` ago (nightly
/// rotation with a grace period leaves one behind per night) and returns them.
pub fn prune(
    store: &Store,
    actor: &Actor,
    expired_for_ms: i64,
    now: Timestamp,
) -> Result<Vec<ApiKey>> {
    actor.may(Operation::PruneKeys, None)?;
    store.write(|c| {
        let keys = prunable_in(c, actor, expired_for_ms, now)?;
        for k in &keys {
            c.delete_key(&k.id)?;
        }
        Ok(keys)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::testing::temp_store;

    const NOW: Timestamp = Timestamp(1_800_000_000_000);

    fn op() -> Actor {
        Actor::operator("alice").unwrap()
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
        let padded = format!(" {} ", "x".repeat(100));
        assert_eq!(name(&padded), Ok("x".repeat(100)), "counted after trimming");
        let too_long = "must be at most 100 characters".to_string();
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
        let got = fields(create(&s, &op(), NewKey::default(), NOW).unwrap_err());
        assert_eq!(got, [("name".to_string(), "is required".to_string())]);
    }

    #[test]
    fn creates_with_defaults_and_stores_only_the_hash() {
        let (_d, s) = temp_store();
        let k = create(&s, &op(), named("  ci  "), NOW).unwrap();
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
            fields(create(&s, &op(), both, NOW).unwrap_err())[0].0,
            "profileIds"
        );
        let none = NewKey {
            full_access: Some(false),
            ..named("k")
        };
        assert_eq!(
            fields(create(&s, &op(), none, NOW).unwrap_err())[0].0,
            "profileIds"
        );
        let scoped = NewKey {
            full_access: Some(false),
            profile_ids: ids(&["p1", "p2"]),
            ..named("k")
        };
        let k = create(&s, &op(), scoped, NOW).unwrap();
        assert_eq!(k.profile_ids, ["p1", "p2"]);
        assert!(!k.full_access);
    }

    #[test]
    fn scoped_key_cannot_create_broader_keys() {
        let (_d, s) = temp_store();
        let parent = create(
            &s,
            &op(),
            NewKey {
                full_access: Some(false),
                profile_ids: ids(&["p1", "p2"]),
                ..named("parent")
            },
            NOW,
        )
        .unwrap();
        let actor = Actor::Key(parent);
        let e = create(&s, &actor, named("full"), NOW).unwrap_err();
        assert_eq!(e.http_status(), 403);
        let outside = NewKey {
            full_access: Some(false),
            profile_ids: ids(&["p1", "p3"]),
            ..named("outside")
        };
        assert_eq!(
            create(&s, &actor, outside, NOW).unwrap_err().http_status(),
            403
        );
        let inside = NewKey {
            full_access: Some(false),
            profile_ids: ids(&["p2"]),
            ..named("inside")
        };
        let child = create(&s, &actor, inside, NOW).unwrap();
        assert_eq!(child.user_id, "alice");
    }

    #[test]
    fn readonly_key_cannot_create_or_delete() {
        let (_d, s) = temp_store();
        let ro = create(
            &s,
            &op(),
            NewKey {
                permission: Some(Permission::Readonly),
                ..named("ro")
            },
            NOW,
        )
        .unwrap();
        let actor = Actor::Key(ro.clone());
        assert_eq!(
            create(&s, &actor, named("x"), NOW)
                .unwrap_err()
                .http_status(),
            403
        );
        assert_eq!(delete(&s, &actor, &ro.id).unwrap_err().http_status(), 403);
        assert_eq!(list(&s, &actor, false).unwrap().len(), 1);
    }

    #[test]
    fn users_are_isolated() {
        let (_d, s) = temp_store();
        let a = create(&s, &op(), named("a"), NOW).unwrap();
        let bob = Actor::operator("bob").unwrap();
        create(&s, &bob, named("b"), NOW).unwrap();
        assert_eq!(list(&s, &bob, false).unwrap().len(), 1);
        assert_eq!(list(&s, &bob, true).unwrap().len(), 2);
        assert_eq!(get(&s, &bob, &a.id).unwrap_err().exit_code(), 3);
        assert_eq!(delete(&s, &bob, &a.key_prefix).unwrap_err().exit_code(), 3);
        assert!(get(&s, &op(), &a.key_prefix).is_ok());
        let as_key = Actor::Key(a);
        assert_eq!(list(&s, &as_key, true).unwrap_err().http_status(), 403);
    }

    #[test]
    fn delete_takes_effect_at_once() {
        let (_d, s) = temp_store();
        let k = create(&s, &op(), named("a"), NOW).unwrap();
        let plain = k.key.clone().unwrap();
        assert!(auth::authenticate(&s, &plain, NOW).is_ok());
        delete(&s, &op(), &k.key_prefix).unwrap();
        let e = auth::authenticate(&s, &plain, NOW).unwrap_err();
        assert_eq!(e.code(), "UNAUTHORIZED");
        assert_eq!(delete(&s, &op(), &k.id).unwrap_err().exit_code(), 3);
    }

    #[test]
    fn expired_keys_are_refused_but_listed() {
        let (_d, s) = temp_store();
        let k = create(
            &s,
            &op(),
            NewKey {
                expires_at: after(1000),
                ..named("a")
            },
            NOW,
        )
        .unwrap();
        let plain = k.key.clone().unwrap();
        assert!(auth::authenticate(&s, &plain, NOW.add_millis(999)).is_ok());
        // At the boundary itself the key has expired.
        let e = auth::authenticate(&s, &plain, NOW.add_millis(1000)).unwrap_err();
        assert_eq!(e.to_string(), "API key has expired");
        assert_eq!(e.code(), "API_KEY_EXPIRED");
        assert_eq!(list(&s, &op(), false).unwrap().len(), 1);
    }

    #[test]
    fn last_used_is_coalesced_to_once_a_second() {
        let (_d, s) = temp_store();
        let k = create(&s, &op(), named("a"), NOW).unwrap();
        let plain = k.key.unwrap();
        auth::authenticate(&s, &plain, NOW).unwrap();
        assert_eq!(get(&s, &op(), &k.id).unwrap().last_used_at, None);
        auth::authenticate_request(&s, &plain, NOW).unwrap();
        assert_eq!(get(&s, &op(), &k.id).unwrap().last_used_at, Some(NOW));
        auth::authenticate_request(&s, &plain, NOW.add_millis(999)).unwrap();
        assert_eq!(get(&s, &op(), &k.id).unwrap().last_used_at, Some(NOW));
        auth::authenticate_request(&s, &plain, NOW.add_millis(1000)).unwrap();
        assert_eq!(
            get(&s, &op(), &k.id).unwrap().last_used_at,
            Some(NOW.add_millis(1000))
        );
    }

    #[test]
    fn rotate_keeps_name_scope_and_lifetime() {
        let (_d, s) = temp_store();
        let old = create(
            &s,
            &op(),
            NewKey {
                permission: Some(Permission::Readonly),
                full_access: Some(false),
                profile_ids: ids(&["p"]),
                expires_at: after(10_000),
                ..named("ci")
            },
            NOW,
        )
        .unwrap();
        let later = NOW.add_millis(4_000);
        let new = rotate(&s, &op(), &old.key_prefix, None, later).unwrap();
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
        let old = create(&s, &op(), named("ci"), NOW).unwrap();
        rotate(&s, &op(), &old.id, Some(60_000), NOW).unwrap();
        let old_now = get(&s, &op(), &old.id).unwrap();
        assert_eq!(old_now.expires_at, Some(NOW.add_millis(60_000)));
        let plain = old.key.unwrap();
        assert!(auth::authenticate(&s, &plain, NOW.add_millis(59_999)).is_ok());
        assert!(auth::authenticate(&s, &plain, NOW.add_millis(60_000)).is_err());
        // A second rotation with a longer grace does not push the expiry out.
        rotate(&s, &op(), &old.id, Some(600_000), NOW).unwrap();
        let again = get(&s, &op(), &old.id).unwrap();
        assert_eq!(again.expires_at, Some(NOW.add_millis(60_000)));
    }

    fn make(s: &Store, name: &str, profiles: &[&str], expires: Option<i64>) -> ApiKey {
        let input = NewKey {
            full_access: Some(profiles.is_empty()),
            profile_ids: ids(profiles),
            expires_at: expires.and_then(after),
            ..named(name)
        };
        create(s, &op(), input, NOW).unwrap()
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
        let actor = Actor::Key(make(&s, "short", &[], Some(10_000)));
        for input in [named("forever"), expiring_at(10_001)] {
            let e = create(&s, &actor, input, NOW).unwrap_err();
            assert_eq!((e.http_status(), e.code()), (403, "FORBIDDEN"));
            assert_eq!(e.details().len(), 1, "{e:?}");
            assert_eq!(e.details()[0].field, "expiresAt");
            assert!(e.details()[0]
                .message
                .contains(&NOW.add_millis(10_000).to_rfc3339()));
        }
        assert_eq!(list(&s, &op(), false).unwrap().len(), 1);
        for ms in [10_000, 1] {
            let k = create(&s, &actor, expiring_at(ms), NOW).unwrap();
            assert_eq!(k.expires_at, Some(NOW.add_millis(ms)));
        }
        // A key without an expiry is not limited in lifetime.
        let forever = Actor::Key(make(&s, "forever", &[], None));
        assert!(create(&s, &forever, named("child"), NOW).is_ok());
    }

    #[test]
    fn a_key_deletes_only_keys_no_broader_than_itself() {
        let (_d, s) = temp_store();
        let full = make(&s, "full", &[], None);
        let wide = make(&s, "wide", &["p1", "p2"], None);
        let late = make(&s, "late", &["p1"], Some(20_000));
        let narrow = make(&s, "narrow", &["p1"], Some(5_000));
        let actor = make(&s, "actor", &["p1"], Some(10_000));
        let as_actor = Actor::Key(actor.clone());
        for target in [&full, &wide, &late] {
            let e = delete(&s, &as_actor, &target.id).unwrap_err();
            assert_eq!(e.http_status(), 403, "{}: {e:?}", target.name);
        }
        assert_eq!(list(&s, &op(), false).unwrap().len(), 5);
        delete(&s, &as_actor, &narrow.id).unwrap();
        delete(&s, &as_actor, &actor.key_prefix).unwrap();
        // The operator is not limited.
        delete(&s, &op(), &full.id).unwrap();
        // Another user's key is not found, however broad the acting key.
        let alice_full = Actor::Key(make(&s, "b", &[], None));
        let other = create(&s, &Actor::operator("bob").unwrap(), named("x"), NOW).unwrap();
        assert_eq!(
            delete(&s, &alice_full, &other.id)
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
        let actor = Actor::Key(make(&s, "actor", &["p1"], Some(10_000)));
        for target in [&full, &forever] {
            for grace in [None, Some(1_000)] {
                let e = rotate(&s, &actor, &target.id, grace, NOW).unwrap_err();
                assert_eq!(e.http_status(), 403, "{}: {e:?}", target.name);
                let still = get(&s, &op(), &target.id).unwrap();
                assert_eq!(still.expires_at, target.expires_at, "{}", target.name);
            }
        }
        assert_eq!(list(&s, &op(), false).unwrap().len(), 3);
        let other = create(&s, &Actor::operator("bob").unwrap(), named("x"), NOW).unwrap();
        assert_eq!(
            rotate(&s, &actor, &other.id, None, NOW)
                .unwrap_err()
                .http_status(),
            404
        );
    }

    #[test]
    fn a_key_rotating_never_outlives_itself() {
        let (_d, s) = temp_store();
        let me = make(&s, "me", &["p1"], Some(10_000));
        let actor = Actor::Key(me.clone());
        // A 5 s key rotated at +4 s gets +9 s, within the acting key's +10 s.
        let target = make(&s, "target", &["p1"], Some(5_000));
        let later = NOW.add_millis(4_000);
        let new = rotate(&s, &actor, &target.id, Some(600_000), later).unwrap();
        assert_eq!(new.expires_at, Some(NOW.add_millis(9_000)));
        // With a grace period the old key still ends when it would have.
        let old = get(&s, &op(), &target.id).unwrap();
        assert_eq!(old.expires_at, target.expires_at);
        let later = NOW.add_millis(8_000);
        // Rotated at +8 s it would get +13 s; the acting key ends at +10 s.
        let newer = rotate(&s, &actor, &new.id, None, later).unwrap();
        assert_eq!(newer.expires_at, me.expires_at, "clamped to the acting key");
        // Rotating itself, again and again, a key cannot push its end out.
        let mut current = me.clone();
        for step in 1..=3 {
            let at = NOW.add_millis(step * 2_000);
            let next = rotate(
                &s,
                &Actor::Key(current.clone()),
                &current.id,
                Some(60_000),
                at,
            )
            .unwrap();
            assert_eq!(next.expires_at, me.expires_at, "step {step}");
            let old = get(&s, &op(), &current.id).unwrap();
            assert!(old.expires_at <= me.expires_at, "step {step}");
            current = next;
        }
        // The operator's cron rotation keeps the lifetime: the same length from now.
        let cron = rotate(&s, &op(), &me.id, None, NOW.add_millis(9_000)).unwrap();
        assert_eq!(cron.expires_at, Some(NOW.add_millis(19_000)));
    }

    #[test]
    fn a_failed_publish_leaves_nothing_behind() {
        let (_d, s) = temp_store();
        let fail = |_: &ApiKey| Err(Error::Io("stdout is gone".into()));
        let e = create_publishing(&s, &op(), named("lost"), NOW, fail).unwrap_err();
        assert_eq!(e.exit_code(), 1);
        assert!(list(&s, &op(), false).unwrap().is_empty());

        let old = make(&s, "old", &[], Some(10_000));
        for grace in [None, Some(1_000)] {
            let mut seen = None;
            let e = rotate_publishing(&s, &op(), &old.id, grace, NOW, |k| {
                seen = k.key.clone();
                Err(Error::Io("stdout is gone".into()))
            })
            .unwrap_err();
            assert_eq!(e.exit_code(), 1);
            assert!(seen.is_some(), "publish gets the plaintext");
            let keys = list(&s, &op(), false).unwrap();
            assert_eq!(keys.len(), 1);
            assert_eq!(keys[0].expires_at, old.expires_at);
            assert!(auth::authenticate(&s, old.key.as_deref().unwrap(), NOW).is_ok());
        }
        // A publish that succeeds sees the key stored, and it stays.
        let mut published = None;
        let k = create_publishing(&s, &op(), named("kept"), NOW, |k| {
            published = Some(k.id.clone());
            Ok(())
        })
        .unwrap();
        assert_eq!(published.as_deref(), Some(k.id.as_str()));
        assert!(get(&s, &op(), &k.id).is_ok());
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
        )
        .unwrap();
        // At +12 s with a 10 s age: expired before +2 s. The key that expired exactly then
        // has not been expired for more than 10 s.
        let at = NOW.add_millis(12_000);
        let due = prunable(&s, &op(), 10_000, at).unwrap();
        assert_eq!(due.len(), 1);
        let deleted = prune(&s, &op(), 10_000, at).unwrap();
        assert_eq!(deleted.len(), 1);
        assert_eq!(deleted[0].id, gone.id);
        assert!(get(&s, &op(), &edge.id).is_ok());
        assert_eq!(list(&s, &op(), false).unwrap().len(), 3);
        assert_eq!(list(&s, &op(), true).unwrap().len(), 4, "bob's key stays");
        assert_eq!(prune(&s, &op(), 0, at).unwrap_err().exit_code(), 2);
    }
}
