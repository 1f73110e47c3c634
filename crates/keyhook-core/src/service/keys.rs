//! API key operations: create, list, show, delete, rotate.

use super::audit::{self, Action, Entry};
use super::input::{check_unique_non_empty, visible, ListProblems, Problems};
use super::{Actor, Operation, Publish};
use crate::auth::{self, Excess, Reach};
use crate::error::{Error, FieldError, Result};
use crate::model::{ApiKey, Permission};
use crate::rate::RateLimit;
use crate::store::{Listed, Store};
use crate::time::Timestamp;

pub const MAX_NAME_CHARS: usize = 100;
pub const MAX_PROFILE_IDS: usize = 100;
pub const MAX_PROFILE_ID_CHARS: usize = 100;
/// The most uses a key may be given (`--max-uses`, `remainingUses`): 2^53 - 1, the largest
/// integer every JSON client reads exactly.
pub const MAX_USES: i64 = (1 << 53) - 1;

/// A key's number of uses, from 1 to [`MAX_USES`]: the rule of `--max-uses` and of
/// `remainingUses` on creation (a key created with none left would be no key).
pub fn max_uses(n: i64) -> std::result::Result<i64, String> {
    if (1..=MAX_USES).contains(&n) {
        Ok(n)
    } else {
        Err(format!("must be an integer from 1 to {MAX_USES}"))
    }
}

/// The name rule of [`validate`] as a regular expression, for the OpenAPI document: the
/// first and last character visible and not white space, none invisible, with white space
/// around them that trimming removes. Its length, [`MAX_NAME_CHARS`] as sent, is the
/// schema's `maxLength` (of the untrimmed string: a quantifier would count UTF-16 code units
/// in a JavaScript `RegExp` without the `u` flag, and characters elsewhere). Left to the
/// description: a plaintext key, and the invisible characters above the Basic Multilingual
/// Plane (see [`INVISIBLE_CLASS`](super::input::INVISIBLE_CLASS)).
pub fn name_pattern() -> String {
    use super::input::{CONTROL_CLASS, INVISIBLE_CLASS, SPACE_CLASS, WHITE_SPACE_CLASS};
    let edge = format!("[^{CONTROL_CLASS}{WHITE_SPACE_CLASS}{INVISIBLE_CLASS}]");
    let inner = format!("[^{CONTROL_CLASS}{INVISIBLE_CLASS}]*");
    format!("^[{SPACE_CLASS}]*{edge}(?:{inner}{edge})?[{SPACE_CLASS}]*$")
}

/// The profile id rule of [`validate`] as a regular expression (its length is a separate
/// limit, [`MAX_PROFILE_ID_CHARS`]): not blank, nothing invisible; the same gaps as
/// [`name_pattern`].
pub fn profile_id_pattern() -> String {
    use super::input::{CONTROL_CLASS, INVISIBLE_CLASS, WHITE_SPACE_CLASS};
    let any = format!("[^{CONTROL_CLASS}{INVISIBLE_CLASS}]*");
    format!("^{any}[^{CONTROL_CLASS}{WHITE_SPACE_CLASS}{INVISIBLE_CLASS}]{any}$")
}

/// A key's name: at most [`MAX_NAME_CHARS`] characters as sent, then trimmed (at least one
/// left), visible text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyName(String);

impl KeyName {
    pub fn new(raw: &str) -> std::result::Result<KeyName, String> {
        let name = raw.trim();
        if name.is_empty() {
            return Err("must not be empty".into());
        }
        // Counted as sent, white space around it included: the document's `maxLength`
        // counts the untrimmed string, and the server takes no more than it says.
        if raw.chars().count() > MAX_NAME_CHARS {
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

/// One profile id: what each of [`ProfileIds`] must be (an event's `profileId`): not empty,
/// at most [`MAX_PROFILE_ID_CHARS`] characters of visible text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfileId(String);

impl ProfileId {
    pub fn new(id: &str) -> std::result::Result<ProfileId, String> {
        // The rules of each of `ProfileIds`, in its order.
        if id.trim().is_empty() {
            return Err("must not be empty".into());
        }
        if id.chars().count() > MAX_PROFILE_ID_CHARS {
            return Err(format!("must be at most {MAX_PROFILE_ID_CHARS} characters"));
        }
        visible(id)?;
        Ok(ProfileId(id.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn into_string(self) -> String {
        self.0
    }
}

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

    pub fn into_vec(self) -> Vec<String> {
        self.0
    }
}

/// The scope rule of a key, and of a webhook: `fullAccess` (true when absent) and
/// `profileIds` agree: profile ids only with `fullAccess: false`, and at least one then.
/// Reports into `p` (on `profileIds`; `what` names the thing limited, `key` or `webhook`) and
/// returns the scope, or `None` when it was refused.
pub fn check_scope(
    what: &str,
    p: &mut Problems,
    full_access: Option<bool>,
    profile_ids: Option<ProfileIds>,
) -> Option<(bool, Vec<String>)> {
    let full_access = full_access.unwrap_or(true);
    // Profile ids that were sent but refused were sent all the same.
    let has_profiles = match &profile_ids {
        Some(ids) => !ids.is_empty(),
        None => p.mentions("profileIds"),
    };
    if p.has("fullAccess") || p.has("profileIds") {
        return None;
    }
    if full_access && has_profiles {
        p.add(
            "profileIds",
            format!(
                "must be empty when fullAccess is true (set fullAccess to false to limit the \
                 {what})"
            ),
        );
        return None;
    }
    if !full_access && !has_profiles {
        p.add(
            "profileIds",
            "at least one profile id is required when fullAccess is false",
        );
        return None;
    }
    Some((
        full_access,
        profile_ids.map(ProfileIds::into_vec).unwrap_or_default(),
    ))
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
    /// This key's own rate limit; `serve --rate-limit`'s applies when absent.
    pub rate_limit: Option<RateLimit>,
    /// How many requests the key may make ([`max_uses`]); unlimited when absent.
    pub remaining_uses: Option<i64>,
    /// What the front end refused converting the request (wrong types, unknown fields, bad
    /// values), named as the request names it; a refused value is `None` above.
    pub problems: Problems,
}

/// The fields of [`NewKey`] as the API names them, in the order problems are reported.
pub const NEW_KEY_FIELDS: &[&str] = &[
    "name",
    "permission",
    "fullAccess",
    "profileIds",
    "expiresAt",
    "rateLimit",
    "remainingUses",
];

/// The validated fields of a key to be created.
struct KeySpec {
    name: String,
    permission: Permission,
    full_access: bool,
    profile_ids: Vec<String>,
    expires_at: Option<Timestamp>,
    rate_limit: Option<RateLimit>,
    remaining_uses: Option<i64>,
}

fn validate(input: NewKey) -> Result<KeySpec> {
    let mut p = input.problems;
    let name = p.require("name", input.name);
    let scope = check_scope("key", &mut p, input.full_access, input.profile_ids);
    p.into_result(NEW_KEY_FIELDS)?;
    let (full_access, profile_ids) = scope.unwrap_or_default();
    Ok(KeySpec {
        name: name.map(|n| n.0).unwrap_or_default(),
        permission: input.permission.unwrap_or(Permission::Readwrite),
        full_access,
        profile_ids,
        expires_at: input.expires_at.map(Expiry::at),
        rate_limit: input.rate_limit,
        remaining_uses: input.remaining_uses,
    })
}

/// A key may only create keys no broader than itself (`auth::no_broader`): a scoped key only
/// scoped keys within its own profiles, a key that expires only keys that expire no later.
/// The operator may create anything.
fn check_not_broader(actor: &Actor, spec: &KeySpec) -> Result<()> {
    let Some(parent) = actor.as_key() else {
        return Ok(());
    };
    let reach = Reach {
        permission: spec.permission,
        full_access: spec.full_access,
        profile_ids: &spec.profile_ids,
        expires_at: spec.expires_at,
        rate_limit: spec.rate_limit,
        remaining_uses: spec.remaining_uses,
    };
    let forbidden = |message: &str, field: &str, detail: String| {
        Err(Error::ForbiddenFields {
            message: message.into(),
            details: vec![FieldError::new(field, detail)],
        })
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
            forbidden(
                "a key that expires cannot create a key that outlives it",
                "expiresAt",
                detail,
            )
        }
        Err(Excess::RateLimit(limit)) => forbidden(
            "a key cannot create a key with a higher rate limit than its own",
            "rateLimit",
            match spec.rate_limit {
                None => format!(
                    "is required: this key is limited to {limit}, and may only create keys \
                     limited to no more"
                ),
                Some(_) => format!(
                    "must be within {limit}, this key's own rate limit (a burst of at most {}, \
                     refilling no faster)",
                    limit.requests
                ),
            },
        ),
        Err(Excess::Uses(left)) => forbidden(
            "a key cannot create a key with more uses than it has left",
            "remainingUses",
            match spec.remaining_uses {
                None => format!(
                    "is required: this key has {left} uses left, and may only create keys \
                     with no more"
                ),
                Some(_) => format!("must be at most {left}, the uses this key has left"),
            },
        ),
    }
}

/// Over HTTP a key acts (deletes, rotates) only on keys no broader than itself, so a leaked
/// scoped or short-lived key cannot revoke or replace the keys above it. A key may always act
/// on itself. The operator is not limited.
fn check_may_act_on(actor: &Actor, target: &ApiKey, verb: &str) -> Result<()> {
    let Some(key) = actor.as_key() else {
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
        Err(Excess::RateLimit(limit)) => refused(format!(
            "a key with a higher rate limit: it is limited to {limit}"
        )),
        Err(Excess::Uses(left)) => refused(format!("a key with more uses left: it has {left}")),
    }
}

/// Inserts a new key from `spec`: the first of a chain of its own, with a budget of
/// `spec.remaining_uses`, or with `budget` the next of a chain (a rotation), which shares
/// that chain's budget as it stands.
fn insert_in(
    conn: crate::store::Conn<'_>,
    user: &str,
    spec: KeySpec,
    budget: Option<String>,
    now: Timestamp,
) -> Result<ApiKey> {
    let plaintext = auth::generate_key();
    let id = uuid::Uuid::new_v4().to_string();
    let mut key = ApiKey {
        budget_id: Some(budget.unwrap_or_else(|| id.clone())),
        id,
        user_id: user.to_string(),
        key_prefix: auth::key_prefix(&plaintext).to_string(),
        name: spec.name,
        permission: spec.permission,
        full_access: spec.full_access,
        profile_ids: spec.profile_ids,
        last_used_at: None,
        expires_at: spec.expires_at,
        rate_limit: spec.rate_limit,
        remaining_uses: spec.remaining_uses,
        created_at: now,
        key: None,
    };
    conn.insert_key(&key, &auth::hash_key(&plaintext))?;
    key.key = Some(plaintext);
    Ok(key)
}

/// Creates a key and returns it with its plaintext, which exists nowhere else: after the
/// commit, or before it through `publish` ([`Publish`]).
pub fn create(
    store: &Store,
    actor: &Actor,
    input: NewKey,
    now: Timestamp,
    publish: Publish<'_, ApiKey>,
) -> Result<ApiKey> {
    actor.may(Operation::CreateKey, None)?;
    let spec = validate(input)?;
    check_not_broader(actor, &spec)?;
    store.write(|c| {
        let key = insert_in(c, actor.user_id(), spec, None, now)?;
        let details = audit::key_details(&key);
        audit::record(
            c,
            now,
            &Entry::by(actor, Action::KeyCreated, &key.id, details).about(key.scope()),
        )?;
        publish.before_commit(c, &key)?;
        Ok(key)
    })
}

/// Keys of the actor's user; with `all_users`, every user's (operators only).
pub fn list(store: &Store, actor: &Actor, all_users: bool) -> Result<Listed<ApiKey>> {
    actor.may(Operation::ListKeys, None)?;
    let user = match (actor, all_users) {
        (Actor::Operator { .. }, true) => None,
        (Actor::Key(_) | Actor::Portal { .. }, true) => {
            return Err(Error::Forbidden(
                "only the operator can list every user's keys".into(),
            ))
        }
        (_, false) => Some(actor.user_id()),
    };
    let conn = store.conn();
    Ok(match user {
        Some(user) => conn.listed_keys(user)?,
        None => Listed::new(conn.list_keys(None)?),
    })
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
pub fn delete(store: &Store, actor: &Actor, id: &str, now: Timestamp) -> Result<ApiKey> {
    actor.may(Operation::DeleteKey, None)?;
    store.write(|c| {
        let key = find(c, actor, id)?;
        check_may_act_on(actor, &key, "delete")?;
        c.delete_key(&key.id)?;
        let details = audit::key_details(&key);
        audit::record(
            c,
            now,
            &Entry::by(actor, Action::KeyDeleted, &key.id, details).about(key.scope()),
        )?;
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
    publish: Publish<'_, ApiKey>,
) -> Result<ApiKey> {
    actor.may(Operation::RotateKey, None)?;
    store.write(|c| {
        let old = find(c, actor, id)?;
        check_may_act_on(actor, &old, "rotate")?;
        let same_lifetime = old
            .expires_at
            .map(|t| now.add_millis((t.millis() - old.created_at.millis()).max(1)));
        let expires_at = match (actor, same_lifetime) {
            (Actor::Key(k) | Actor::Portal { key: k, .. }, Some(t)) => {
                Some(k.expires_at.map_or(t, |limit| t.min(limit)))
            }
            (Actor::Key(k) | Actor::Portal { key: k, .. }, None) => k.expires_at,
            (Actor::Operator { .. }, t) => t,
        };
        let spec = KeySpec {
            name: old.name.clone(),
            permission: old.permission,
            full_access: old.full_access,
            profile_ids: old.profile_ids.clone(),
            expires_at,
            rate_limit: old.rate_limit,
            remaining_uses: old.remaining_uses,
        };
        check_not_broader(actor, &spec)?;
        // The new key continues the old one's chain: one budget of uses and one rate bucket
        // for both while both live (CONTRACT §12), so a rotation adds no credential.
        let new = insert_in(c, &old.user_id, spec, Some(old.budget().to_string()), now)?;
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
        let mut details = audit::key_details(&old);
        details["newKeyId"] = new.id.clone().into();
        details["newKeyPrefix"] = new.key_prefix.clone().into();
        details["graceMs"] = grace_ms.into();
        audit::record(
            c,
            now,
            &Entry::by(actor, Action::KeyRotated, &old.id, details).about(old.scope()),
        )?;
        publish.before_commit(c, &new)?;
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
    if expired_for_ms < 0 {
        return Err(Error::validation("expiredFor", "must not be negative"));
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
            let mut details = audit::key_details(k);
            details["reason"] = "pruned".into();
            audit::record(
                c,
                now,
                &Entry::by(actor, Action::KeyDeleted, &k.id, details).about(k.scope()),
            )?;
        }
        Ok(keys)
    })
}

/// What a key found in a leak is in this database (`keys scan`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Leaked {
    /// A key that works: revoke it.
    Active(ApiKey),
    /// A key that no longer works, still listed until deleted.
    Expired(ApiKey),
    /// No key of this database: deleted, of another database, or not a key at all.
    Unknown,
}

/// Looks up a key-shaped string found in a leak, by its hash, among every user's keys: the
/// operator's question, so a key is refused. A token whose checksum is wrong is `Unknown`
/// without a lookup once no key without a checksum is left (`auth::find_key`).
pub fn identify(store: &Store, actor: &Actor, token: &str, now: Timestamp) -> Result<Leaked> {
    operator_only(actor, "scan for leaked keys")?;
    if !auth::is_well_formed(token) {
        return Ok(Leaked::Unknown);
    }
    Ok(match auth::find_key(store, token) {
        Ok(k) if k.is_expired(now) => Leaked::Expired(k),
        Ok(k) => Leaked::Active(k),
        Err(Error::Unauthorized(_)) => Leaked::Unknown,
        Err(e) => return Err(e),
    })
}

/// Deletes a key found in a leak (`keys scan --revoke`), in a transaction of its own, with an
/// audit entry `key.deleted` whose details add `reason: leaked` and `foundIn` (`path:line`).
/// Returns `None` when the key is already gone. Any user's key: the operator's command.
pub fn revoke_leaked(
    store: &Store,
    actor: &Actor,
    key_id: &str,
    found_in: &str,
    now: Timestamp,
) -> Result<Option<ApiKey>> {
    operator_only(actor, "revoke leaked keys")?;
    store.write(|c| {
        let found = c.keys_by_id_or_prefix(None, key_id)?;
        let Some(key) = found.into_iter().find(|k| k.id == key_id) else {
            return Ok(None);
        };
        c.delete_key(&key.id)?;
        let mut details = audit::key_details(&key);
        details["reason"] = "leaked".into();
        details["foundIn"] = found_in.into();
        let entry = Entry {
            user_id: key.user_id.clone(),
            ..Entry::by(actor, Action::KeyDeleted, &key.id, details)
        };
        audit::record(c, now, &entry)?;
        Ok(Some(key))
    })
}

/// Refuses a key: what only the operator (the CLI) does.
fn operator_only(actor: &Actor, what: &str) -> Result<()> {
    match actor {
        Actor::Operator { .. } => Ok(()),
        Actor::Key(_) | Actor::Portal { .. } => {
            Err(Error::Forbidden(format!("only the operator can {what}")))
        }
    }
}
