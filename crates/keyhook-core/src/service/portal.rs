//! The developer portal (CONTRACT §14): single-use links that a publishing service hands its
//! own customers, the sessions they open, and the actor a session acts as.
//!
//! A link is minted for one user and scope (`portal link`, `POST /portal-links`), opened once
//! before it expires, and exchanged for a session of at most [`SESSION_MS`]. Both tokens are
//! stored as their SHA-256 only. A session acts as [`Actor::Portal`]: a key of the link's user,
//! scope and permission that carries the minting key's limits (expiry, rate, uses), so that
//! every rule the services apply to keys (no broader, no longer-lived, no revoking up, scope of
//! webhooks and events) holds for the portal from the same functions, and the audit log names
//! it `portal:<link id>`.

use std::sync::Arc;

use rand::rngs::OsRng;
use rand::RngCore;
use serde::Serialize;
use serde_json::{json, Value};

use super::audit::{self, Action, Entry};
use super::event_types::{self, TrialRefused};
use super::filter::Filter;
use super::input::Problems;
use super::keys::{check_scope, ProfileIds};
use super::{Actor, Operation, Publish};
use crate::auth::{self, Scope};
use crate::error::{Error, FieldError, Result};
use crate::model::{ApiKey, Permission};
use crate::store::{PortalLinkRow, PortalSessionRow, Store};
use crate::time::Timestamp;

/// A link's lifetime when none is given: 15 minutes.
pub const DEFAULT_TTL_MS: i64 = 15 * 60 * 1000;
/// The longest a link may wait to be opened: 24 hours (a link is a short-lived secret; a
/// service mints one when its customer clicks, not ahead of time).
pub const MAX_TTL_MS: i64 = 24 * 60 * 60 * 1000;
/// How long a session lasts at most: 8 hours.
pub const SESSION_MS: i64 = 8 * 60 * 60 * 1000;
/// A link's token: this prefix and 64 lowercase hex digits (256 random bits).
pub const LINK_TOKEN_PREFIX: &str = "kpl_";
/// A session's token (the cookie's value): this prefix and 64 lowercase hex digits.
pub const SESSION_TOKEN_PREFIX: &str = "kps_";
/// The path of the portal under the public URL.
pub const PORTAL_PATH: &str = "/portal";

/// A link to mint, in typed values.
#[derive(Debug, Default, Clone)]
pub struct NewLink {
    /// With `profile_ids`, the scope, validated as a key's (`keys::check_scope`); when neither
    /// is given, the acting key's own scope (full access for the operator).
    pub full_access: Option<bool>,
    pub profile_ids: Option<ProfileIds>,
    /// How long the link may wait to be opened, in milliseconds ([`DEFAULT_TTL_MS`]).
    pub ttl_ms: Option<i64>,
    pub read_only: bool,
    /// What the front end refused converting the request, named as the request names it.
    pub problems: Problems,
}

/// The fields of a link request as the API names them, in the order problems are reported.
pub const LINK_FIELDS: &[&str] = &["fullAccess", "profileIds", "ttlSeconds", "readOnly", "body"];

/// A minted link: the response of `POST /portal-links` and `portal link --json`. `url` holds
/// the token: a secret, shown once.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct MintedLink {
    pub id: String,
    pub url: String,
    pub expires_at: Timestamp,
    pub read_only: bool,
    pub full_access: bool,
    pub profile_ids: Vec<String>,
}

/// A link as `portal list` shows it (never its token).
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct LinkView {
    pub id: String,
    pub read_only: bool,
    pub full_access: bool,
    pub profile_ids: Vec<String>,
    pub minted_by: String,
    pub created_at: Timestamp,
    pub expires_at: Timestamp,
}

/// A session as `portal list` shows it.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct SessionView {
    pub id: String,
    pub link_id: String,
    pub read_only: bool,
    pub full_access: bool,
    pub profile_ids: Vec<String>,
    pub created_at: Timestamp,
    pub expires_at: Timestamp,
}

/// What is live: links not yet opened and sessions not yet ended.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Live {
    pub links: Vec<LinkView>,
    pub sessions: Vec<SessionView>,
}

/// Why a link does not open: the page the portal shows says which, and what to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkRefused {
    /// No link has this token (mistyped, or from another installation).
    Unknown,
    /// Opened before: a link opens once.
    Used,
    Expired,
    /// Revoked, or the key that minted it was deleted or expired.
    Revoked,
}

/// An open session: who it acts as, and for how long.
#[derive(Debug, Clone)]
pub struct Session {
    pub id: String,
    pub link: PortalLinkRow,
    pub expires_at: Timestamp,
    pub actor: Actor,
}

impl Session {
    pub fn read_only(&self) -> bool {
        self.link.read_only
    }
}

fn random_hex() -> String {
    let mut bytes = [0u8; 32];
    OsRng.fill_bytes(&mut bytes);
    hex::encode(bytes)
}

/// The SHA-256 (lowercase hex) a token is stored as.
pub fn token_hash(token: &str) -> String {
    auth::hash_key(token)
}

/// Whether `token` has the shape of a token with `prefix` (checked before any lookup).
fn well_formed(token: &str, prefix: &str) -> bool {
    token.len() == prefix.len() + 64
        && token.starts_with(prefix)
        && token[prefix.len()..]
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// The CSRF token of a session: derived from the session's token (which only its cookie
/// holds), so it is bound to the session, never stored, and worthless without the cookie.
pub fn csrf_token(session_token: &str) -> String {
    auth::hash_key(&format!("keyhook-portal-csrf:{session_token}"))
}

/// Whether `sent` is the CSRF token of the session `session_token`, compared in constant time.
pub fn csrf_ok(session_token: &str, sent: &str) -> bool {
    let want = csrf_token(session_token);
    want.len() == sent.len()
        && want
            .bytes()
            .zip(sent.bytes())
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0
}

/// The link's expiry for a ttl asked at `now` by `actor`, refused when it is out of bounds or
/// would outlive the key minting it (no lifetime escalation, CONTRACT §3).
fn link_expiry(actor: &Actor, ttl_ms: Option<i64>, now: Timestamp) -> Result<Timestamp> {
    let ttl = ttl_ms.unwrap_or(DEFAULT_TTL_MS);
    if ttl <= 0 || ttl > MAX_TTL_MS {
        return Err(Error::validation(
            "ttlSeconds",
            format!(
                "must be more than 0 and at most {} seconds (24 hours)",
                MAX_TTL_MS / 1000
            ),
        ));
    }
    let at = now.add_millis(ttl);
    if let Some(limit) = actor.as_key().and_then(|k| k.expires_at) {
        if at > limit {
            return Err(Error::ForbiddenFields {
                message: "a key that expires cannot mint a link that outlives it".into(),
                details: vec![FieldError::new(
                    "ttlSeconds",
                    format!(
                        "must end no later than {}, when this key expires",
                        limit.to_rfc3339()
                    ),
                )],
            });
        }
    }
    Ok(at)
}

/// The scope a link gets: the one asked for, which must be within the minting key's (else 403
/// naming `fullAccess` or `profileIds`), or the key's own (the operator's: full access).
fn link_scope(actor: &Actor, asked: Option<(bool, Vec<String>)>) -> Result<(bool, Vec<String>)> {
    let Some(key) = actor.as_key() else {
        return Ok(asked.unwrap_or((true, Vec::new())));
    };
    let (full_access, profile_ids) =
        asked.unwrap_or_else(|| (key.full_access, key.profile_ids.clone()));
    actor.check_scope_within(
        Scope {
            full_access,
            profile_ids: &profile_ids,
        },
        &super::Giving {
            full_access: "a key limited to profiles cannot mint a full-access link",
            fix: "must be false for a key limited to profiles",
        },
    )?;
    Ok((full_access, profile_ids))
}

/// Mints a link for the actor's user: `{public_url}/portal#<token>`. The link's url is a
/// secret, published like a new key ([`Publish`]).
pub fn mint(
    store: &Store,
    actor: &Actor,
    input: NewLink,
    public_url: &str,
    now: Timestamp,
    publish: Publish<'_, MintedLink>,
) -> Result<MintedLink> {
    actor.may(Operation::CreatePortalLink, None)?;
    if matches!(actor, Actor::Portal { .. }) {
        return Err(Error::Forbidden(
            "a portal session cannot mint portal links".into(),
        ));
    }
    let mut p = input.problems;
    let named = input.full_access.is_some()
        || input.profile_ids.is_some()
        || p.mentions("fullAccess")
        || p.mentions("profileIds");
    let asked = if named {
        check_scope("link", &mut p, input.full_access, input.profile_ids)
    } else {
        None
    };
    p.into_result(LINK_FIELDS)?;
    let expires_at = link_expiry(actor, input.ttl_ms, now)?;
    let (full_access, profile_ids) = link_scope(actor, asked)?;
    let token = format!("{LINK_TOKEN_PREFIX}{}", random_hex());
    let row = PortalLinkRow {
        id: format!("pl_{}", uuid::Uuid::new_v4().simple()),
        user_id: actor.user_id().to_string(),
        full_access,
        profile_ids,
        read_only: input.read_only,
        minted_by_key: actor.as_key().map(|k| k.id.clone()),
        minted_by: actor.audit_name(),
        created_at: now,
        expires_at,
        used_at: None,
        revoked_at: None,
    };
    let minted = MintedLink {
        id: row.id.clone(),
        url: format!("{}{PORTAL_PATH}#{token}", public_url.trim_end_matches('/')),
        expires_at,
        read_only: row.read_only,
        full_access: row.full_access,
        profile_ids: row.profile_ids.clone(),
    };
    let hash = token_hash(&token);
    store.write(|c| {
        c.ensure_user(&row.user_id, now)?;
        c.insert_portal_link(&row, &hash)?;
        let details = json!({
            "readOnly": row.read_only,
            "expiresAt": row.expires_at.to_rfc3339(),
        });
        let scope = Scope {
            full_access: row.full_access,
            profile_ids: &row.profile_ids,
        };
        audit::record(
            c,
            now,
            &Entry::by(actor, Action::PortalLinkCreated, &row.id, details).about(scope),
        )?;
        publish.before_commit(c, &minted)?;
        Ok(minted.clone())
    })
}

/// Whether the key that minted `link` (if a key did) still exists and has not expired.
fn minting_key(store: &Store, link: &PortalLinkRow, now: Timestamp) -> Result<Option<ApiKey>> {
    let Some(id) = &link.minted_by_key else {
        return Ok(None);
    };
    let key = store
        .conn()
        .keys_by_id_or_prefix(Some(&link.user_id), id)?
        .into_iter()
        .find(|k| &k.id == id);
    match key {
        Some(k) if !k.is_expired(now) => Ok(Some(k)),
        _ => Err(Error::Unauthorized(
            "the key that minted this link is gone".into(),
        )),
    }
}

/// Opens a link: exchanges its token, once, for a session token (the cookie's value) that
/// lasts [`SESSION_MS`]. `Ok(Err(_))` says why the link does not open.
pub fn exchange(
    store: &Store,
    token: &str,
    now: Timestamp,
) -> Result<std::result::Result<(String, Session), LinkRefused>> {
    let token = token.trim();
    if !well_formed(token, LINK_TOKEN_PREFIX) {
        return Ok(Err(LinkRefused::Unknown));
    }
    let hash = token_hash(token);
    let Some(link) = store.conn().portal_link_by_token(&hash)? else {
        return Ok(Err(LinkRefused::Unknown));
    };
    if link.revoked_at.is_some() {
        return Ok(Err(LinkRefused::Revoked));
    }
    if link.used_at.is_some() {
        return Ok(Err(LinkRefused::Used));
    }
    if link.expires_at <= now {
        return Ok(Err(LinkRefused::Expired));
    }
    let key = match minting_key(store, &link, now) {
        Ok(k) => k,
        Err(Error::Unauthorized(_)) => return Ok(Err(LinkRefused::Revoked)),
        Err(e) => return Err(e),
    };
    let session_token = format!("{SESSION_TOKEN_PREFIX}{}", random_hex());
    let row = PortalSessionRow {
        id: format!("ps_{}", uuid::Uuid::new_v4().simple()),
        link_id: link.id.clone(),
        created_at: now,
        expires_at: now.add_millis(SESSION_MS),
    };
    let session_hash = token_hash(&session_token);
    let opened = store.write(|c| {
        // One statement decides who opens it: two instances at once, one wins.
        if !c.use_portal_link(&link.id, now)? {
            return Ok(false);
        }
        c.insert_portal_session(&row, &session_hash)?;
        Ok(true)
    })?;
    if !opened {
        return Ok(Err(LinkRefused::Used));
    }
    let mut link = link;
    link.used_at = Some(now);
    let session = Session {
        id: row.id,
        actor: actor_of(&link, key.as_ref()),
        expires_at: row.expires_at,
        link,
    };
    Ok(Ok((session_token, session)))
}

/// The key a session acts as: the link's user, scope and permission, with the minting key's
/// expiry, rate limit and uses (none for the operator's links).
fn actor_of(link: &PortalLinkRow, minted_by: Option<&ApiKey>) -> Actor {
    let key = ApiKey {
        id: link.id.clone(),
        user_id: link.user_id.clone(),
        key_prefix: format!("portal:{}", link.id),
        name: "portal".into(),
        permission: if link.read_only {
            Permission::Readonly
        } else {
            Permission::Readwrite
        },
        full_access: link.full_access,
        profile_ids: link.profile_ids.clone(),
        last_used_at: None,
        expires_at: minted_by.and_then(|k| k.expires_at),
        rate_limit: minted_by.and_then(|k| k.rate_limit),
        remaining_uses: minted_by.and_then(|k| k.remaining_uses),
        budget_id: None,
        created_at: link.created_at,
        key: None,
    };
    Actor::Portal {
        key: Arc::new(key),
        link_id: link.id.clone(),
    }
}

/// The session whose cookie holds `token`, if it is still open: not past its 8 hours, its
/// link not revoked, and the key that minted the link neither deleted nor expired.
pub fn session(store: &Store, token: &str, now: Timestamp) -> Result<Option<Session>> {
    if !well_formed(token, SESSION_TOKEN_PREFIX) {
        return Ok(None);
    }
    let Some((s, link)) = store.conn().portal_session_by_token(&token_hash(token))? else {
        return Ok(None);
    };
    if s.expires_at <= now || link.revoked_at.is_some() {
        return Ok(None);
    }
    let key = match minting_key(store, &link, now) {
        Ok(k) => k,
        Err(Error::Unauthorized(_)) => return Ok(None),
        Err(e) => return Err(e),
    };
    Ok(Some(Session {
        id: s.id,
        expires_at: s.expires_at,
        actor: actor_of(&link, key.as_ref()),
        link,
    }))
}

/// Ends a session (the portal's sign-out).
pub fn end_session(store: &Store, session: &Session) -> Result<()> {
    store.write(|c| {
        c.delete_portal_session(&session.id)?;
        Ok(())
    })
}

/// Revokes the link `id` of the actor's user, or every link of it (`None`, the operator's
/// `portal revoke --all`), ending their sessions. A key revokes only links it sees (within its
/// scope); others are not found. Returns the ids revoked.
pub fn revoke(
    store: &Store,
    actor: &Actor,
    id: Option<&str>,
    now: Timestamp,
) -> Result<Vec<String>> {
    actor.may(Operation::RevokePortalLink, None)?;
    if matches!(actor, Actor::Portal { .. }) {
        return Err(Error::Forbidden(
            "a portal session cannot revoke portal links".into(),
        ));
    }
    let user = actor.user_id().to_string();
    store.write(|c| {
        if let Some(id) = id {
            let found = c.portal_link(&user, id)?.filter(|l| {
                actor.sees(Scope {
                    full_access: l.full_access,
                    profile_ids: &l.profile_ids,
                })
            });
            if found.is_none() {
                return Err(Error::NotFound(format!("portal link {id} not found")));
            }
        } else if actor.as_key().is_some() {
            return Err(Error::Forbidden(
                "only the operator can revoke every portal link".into(),
            ));
        }
        let revoked = c.revoke_portal_links(&user, id, now)?;
        for rid in &revoked {
            audit::record(
                c,
                now,
                &Entry::by(
                    actor,
                    Action::PortalLinkRevoked,
                    rid,
                    Value::Object(Default::default()),
                ),
            )?;
        }
        Ok(revoked)
    })
}

/// The live links (not opened, not expired) and sessions (not ended) of the actor's user.
pub fn list(store: &Store, actor: &Actor, now: Timestamp) -> Result<Live> {
    actor.may(Operation::ListPortalLinks, None)?;
    let user = actor.user_id();
    let links = store.conn().list_portal_links(user)?;
    let live_link = |l: &PortalLinkRow| minting_key(store, l, now).is_ok();
    let sessions = store
        .conn()
        .list_portal_sessions(user)?
        .into_iter()
        .filter(|s| s.expires_at > now)
        .filter_map(|s| {
            let l = links.iter().find(|l| l.id == s.link_id)?;
            live_link(l).then(|| SessionView {
                id: s.id,
                link_id: s.link_id,
                read_only: l.read_only,
                full_access: l.full_access,
                profile_ids: l.profile_ids.clone(),
                created_at: s.created_at,
                expires_at: s.expires_at,
            })
        })
        .collect();
    let links = links
        .iter()
        .filter(|l| l.used_at.is_none() && l.expires_at > now && live_link(l))
        .map(|l| LinkView {
            id: l.id.clone(),
            read_only: l.read_only,
            full_access: l.full_access,
            profile_ids: l.profile_ids.clone(),
            minted_by: l.minted_by.clone(),
            created_at: l.created_at,
            expires_at: l.expires_at,
        })
        .collect();
    Ok(Live { links, sessions })
}

/// The verdict of a filter tried on an event type's example (the portal's "Try filter").
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct FilterTrial {
    pub event: String,
    pub example: Value,
    /// `None` when the evaluation failed (`error` says how).
    pub result: Option<bool>,
    pub error: Option<String>,
}

/// Tries `expr` on the example of event type `event`, as `webhooks filter-test` does
/// ([`event_types::try_filter`]): refused (400 on `filter`) as a webhook's filter would be, or
/// on `event` for an unknown type; then evaluated as a fan-out would.
pub fn try_filter(store: &Store, actor: &Actor, expr: &str, event: &str) -> Result<FilterTrial> {
    let filter = Filter::new(expr).map_err(|m| Error::validation("filter", m))?;
    let trial = event_types::try_filter(store, actor, &filter, event, None, None)?.map_err(
        |why| match why {
            TrialRefused::UnknownEvent => {
                Error::validation("event", format!("unknown event type {event:?}"))
            }
            TrialRefused::Schema(m) => Error::validation("filter", m),
            TrialRefused::NoExample => Error::validation(
                "filter",
                format!("{event} has no example to try the filter on"),
            ),
            TrialRefused::Data(problems) => Error::Validation(problems),
        },
    )?;
    Ok(FilterTrial {
        event: event.to_string(),
        example: trial.data,
        result: trial.verdict.ok(),
        error: trial.verdict.err().map(str::to_string),
    })
}

/// How `serve` runs the portal: `--public-url`, `--portal-embed-origin`,
/// `--portal-allow-private-targets`.
#[derive(Debug, Clone, Default)]
pub struct PortalConfig {
    /// Where the service is reached (`https://keys.example.com`): links point there, and the
    /// session cookie is `Secure` when it is https. `None`: `http://` and the bound address.
    pub public_url: Option<String>,
    /// Origins allowed to frame the portal (`frame-ancestors`); with any, the cookie is
    /// `SameSite=None; Secure; Partitioned` (https only).
    pub embed_origins: Vec<String>,
    /// Let the portal point webhooks at private addresses (local development and tests).
    pub allow_private_targets: bool,
}

/// Checks a public URL: an absolute `http` or `https` origin (no path beyond `/`, no query,
/// fragment or credentials); returns it without a trailing `/`.
pub fn public_url(raw: &str) -> std::result::Result<String, String> {
    let url =
        url::Url::parse(raw).map_err(|_| "must be an absolute http or https URL".to_string())?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err("scheme must be http or https".into());
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err("must have a host".into());
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err("must not contain credentials".into());
    }
    if url.path() != "/" || url.query().is_some() || url.fragment().is_some() {
        return Err(
            "must be an origin (scheme, host and port) without a path, query or fragment: the \
             portal is served at /portal"
                .into(),
        );
    }
    Ok(url.as_str().trim_end_matches('/').to_string())
}

/// Checks an embedding origin (`--portal-embed-origin`): `https://host[:port]`.
pub fn embed_origin(raw: &str) -> std::result::Result<String, String> {
    let origin = public_url(raw)?;
    if !origin.starts_with("https://") {
        return Err(
            "must be an https origin (a cross-site frame gets the cookie only over https)".into(),
        );
    }
    Ok(origin)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_have_one_shape_and_csrf_tokens_are_bound_to_their_session() {
        let t = format!("{SESSION_TOKEN_PREFIX}{}", random_hex());
        assert!(well_formed(&t, SESSION_TOKEN_PREFIX));
        assert!(!well_formed(&t, LINK_TOKEN_PREFIX));
        assert!(!well_formed(&t.to_uppercase(), SESSION_TOKEN_PREFIX));
        assert!(!well_formed(&t[..t.len() - 1], SESSION_TOKEN_PREFIX));
        assert!(!well_formed(&format!("{t}0"), SESSION_TOKEN_PREFIX));
        let other = format!("{SESSION_TOKEN_PREFIX}{}", random_hex());
        assert!(csrf_ok(&t, &csrf_token(&t)));
        assert!(!csrf_ok(&t, &csrf_token(&other)));
        assert!(!csrf_ok(&t, ""));
        assert!(!csrf_ok(&t, &csrf_token(&t)[..63]));
    }

    #[test]
    fn public_urls_are_origins_and_embedding_origins_https() {
        assert_eq!(
            public_url("https://keys.example.com/").unwrap(),
            "https://keys.example.com"
        );
        assert_eq!(
            public_url("http://127.0.0.1:8787").unwrap(),
            "http://127.0.0.1:8787"
        );
        for bad in [
            "keys.example.com",
            "ftp://x",
            "https://u:p@x",
            "https://x/keyhook",
            "https://x/?a",
            "https://x/#f",
        ] {
            assert!(public_url(bad).is_err(), "{bad}");
        }
        assert!(embed_origin("https://app.example.com").is_ok());
        assert!(embed_origin("http://app.example.com").is_err());
    }
}
