//! One function per operation. Every rule of the spec and the contract (validation, expiry,
//! permission, scope, limits) lives here once; the CLI and the HTTP server only convert input
//! and output around these calls.

pub mod audit;
pub mod copy;
pub mod event_types;
pub mod events;
pub mod filter;
pub mod history;
pub mod idempotency;
pub mod input;
pub mod keys;
pub mod listen;
pub mod operational;
pub mod portal;
pub mod replay;
pub mod retention;
pub mod routing;
pub mod schema_bounds;
pub mod webhooks;

use std::sync::Arc;

use crate::auth::{self, Access};
use crate::error::{Error, Result};
use crate::model::ApiKey;
use crate::store::{Conn, Store};

/// What becomes of a new secret (a key's plaintext, a webhook's signing secret) that an
/// operation creates: the one argument every such operation (`keys::create`, `keys::rotate`,
/// `webhooks::create`, `webhooks::rotate_secret`) takes last.
pub enum Publish<'a, T> {
    /// Returned to the caller after the commit: over HTTP a lost response is the client's to
    /// retry.
    AfterCommit,
    /// Handed to the function inside the transaction, after the writes and before the commit,
    /// which is first made as sure as the store can (`Conn::stage`). If the function fails,
    /// nothing is stored: a front end whose output is the only copy of the secret (the CLI's
    /// stdout) writes and flushes it there, so a secret that could not be delivered never
    /// exists (or, for a rotation, the old one stays as it was).
    BeforeCommit(&'a mut dyn FnMut(&T) -> Result<()>),
}

impl<T> Publish<'_, T> {
    /// Publishes `value` in the transaction of `c` if it is to be published before the commit.
    fn before_commit(self, c: Conn<'_>, value: &T) -> Result<()> {
        if let Publish::BeforeCommit(publish) = self {
            c.stage()?;
            publish(value)?;
        }
        Ok(())
    }
}

/// Who is asking. The operator at the shell owns the database file and may do anything for
/// the user it names; an API key acts for its own user within its permission and scope.
#[derive(Debug, Clone)]
pub enum Actor {
    /// `login`: who is at the shell (sanitised, `audit::login_name`), for the audit log.
    Operator { user: String, login: String },
    /// Shared with the backend's cache where it keeps one (SQLite's): a request copies no
    /// key.
    Key(Arc<ApiKey>),
    /// A developer-portal session (`service::portal`), acting as `key` would: the link's
    /// user, scope and permission (readonly for a read-only link) and the minting key's
    /// limits (its expiry, rate and uses), so every rule a key obeys holds for it too.
    /// The audit log names it `portal:<link id>`, via `portal`.
    Portal { key: Arc<ApiKey>, link_id: String },
}

/// The longest user id accepted, in characters.
pub const MAX_USER_ID_CHARS: usize = 100;

/// How [`Actor::check_scope_within`] words a refused full access, for what the key gives it
/// to: the error's message and the detail on `fullAccess`.
pub(crate) struct Giving {
    pub full_access: &'static str,
    pub fix: &'static str,
}

impl Actor {
    /// A key acting for its user.
    pub fn key(key: ApiKey) -> Actor {
        Actor::Key(Arc::new(key))
    }

    /// An operator acting for `user`, which must be a non-empty printable id.
    pub fn operator(user: &str) -> Result<Actor> {
        // First, so that the message names an invisible character (U+2028 is white space too).
        input::visible(user).map_err(|m| Error::validation("user", m))?;
        if user.is_empty()
            || user.chars().count() > MAX_USER_ID_CHARS
            || user.chars().any(|c| c.is_control() || c.is_whitespace())
        {
            return Err(Error::validation(
                "user",
                format!(
                    "must be 1 to {MAX_USER_ID_CHARS} characters without spaces or control \
                     characters"
                ),
            ));
        }
        Ok(Actor::Operator {
            user: user.to_string(),
            login: "unknown".into(),
        })
    }

    /// The operator as `login` (the shell's login name, sanitised by `audit::login_name`),
    /// whom the audit log names `cli:<login>`. The core reads no environment: the CLI finds
    /// the name.
    pub fn with_login(self, login: &str) -> Actor {
        match self {
            Actor::Operator { user, .. } => Actor::Operator {
                user,
                login: audit::login_name(login),
            },
            key => key,
        }
    }

    /// Who the audit log says acted: `cli:<login>` for the operator, a key's `keyPrefix`.
    pub fn audit_name(&self) -> String {
        match self {
            Actor::Operator { login, .. } => format!("cli:{login}"),
            Actor::Key(key) => key.key_prefix.clone(),
            Actor::Portal { link_id, .. } => format!("portal:{link_id}"),
        }
    }

    /// The front end the actor comes through: the operator is at the CLI, a key over HTTP.
    pub fn via(&self) -> audit::Via {
        match self {
            Actor::Operator { .. } => audit::Via::Cli,
            Actor::Key(_) => audit::Via::Http,
            Actor::Portal { .. } => audit::Via::Portal,
        }
    }

    pub fn user_id(&self) -> &str {
        match self {
            Actor::Operator { user, .. } => user,
            Actor::Key(key) | Actor::Portal { key, .. } => &key.user_id,
        }
    }

    /// Whether the actor sees something of its user with `scope` (a webhook, an audit
    /// entry): the operator and a full-access key see everything; a scoped key only what is
    /// within its own profiles (`auth::no_broader_scope`, the rule keys obey towards keys).
    /// What it does not see is answered as what does not exist.
    pub fn sees(&self, scope: auth::Scope<'_>) -> bool {
        match self {
            Actor::Operator { .. } => true,
            Actor::Key(key) | Actor::Portal { key, .. } => {
                auth::no_broader_scope(scope, key.scope()).is_ok()
            }
        }
    }

    /// A key gives (to a webhook, a portal link) only scopes within its own
    /// (`auth::no_broader_scope`, the rule keys obey towards keys): else 403 naming
    /// `profileIds` (the first profile outside the key's) or `fullAccess` (worded by
    /// `giving`). The operator may give any scope.
    pub(crate) fn check_scope_within(&self, scope: auth::Scope<'_>, giving: &Giving) -> Result<()> {
        let Some(key) = self.as_key() else {
            return Ok(());
        };
        match auth::no_broader_scope(scope, key.scope()) {
            Ok(()) => Ok(()),
            Err(auth::Excess::Profile(p)) => Err(Error::ForbiddenFields {
                message: format!("key is not scoped to profile {p}"),
                details: vec![crate::error::FieldError::new(
                    "profileIds",
                    format!("{p} is outside the profiles of this key"),
                )],
            }),
            Err(_) => Err(Error::ForbiddenFields {
                message: giving.full_access.into(),
                details: vec![crate::error::FieldError::new("fullAccess", giving.fix)],
            }),
        }
    }

    /// The permission and scope check of `op` (`auth::may`), which every operation makes
    /// first; the operator is never refused.
    pub fn may(&self, op: Operation, profile: Option<&str>) -> Result<()> {
        match self {
            Actor::Operator { .. } => Ok(()),
            Actor::Key(key) | Actor::Portal { key, .. } => {
                auth::may(key, op.access(), op.describe(), profile)
            }
        }
    }

    /// The key the actor acts as (a portal session's is its link's), `None` for the operator.
    pub fn as_key(&self) -> Option<&Arc<ApiKey>> {
        match self {
            Actor::Operator { .. } => None,
            Actor::Key(key) | Actor::Portal { key, .. } => Some(key),
        }
    }
}

/// The operations of the service, each with the access it needs: the permission rule is
/// about operations, not about how a front end is asked for them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operation {
    CreateKey,
    ListKeys,
    ShowKey,
    DeleteKey,
    RotateKey,
    PruneKeys,
    CreateWebhook,
    ListWebhooks,
    ShowWebhook,
    UpdateWebhook,
    DeleteWebhook,
    TestWebhook,
    ListDeliveries,
    EmitEvent,
    ReplayWebhook,
    ListAudit,
    RotateWebhookSecret,
    ListEventTypes,
    ShowEventType,
    CreatePortalLink,
    RevokePortalLink,
    ListPortalLinks,
}

impl Operation {
    /// Whether the operation only reads. A test ping writes: it counts toward `failCount`.
    pub const fn access(self) -> Access {
        use Operation::*;
        match self {
            ListKeys | ShowKey | ListWebhooks | ShowWebhook | ListDeliveries | ListAudit
            | ListEventTypes | ShowEventType | ListPortalLinks => Access::Read,
            CreatePortalLink | RevokePortalLink | CreateKey | DeleteKey | RotateKey | PruneKeys
            | CreateWebhook | UpdateWebhook | DeleteWebhook | TestWebhook | EmitEvent
            | ReplayWebhook | RotateWebhookSecret => Access::Write,
        }
    }

    /// What becomes of an `Idempotency-Key` sent with the operation: `Ok` when it is honoured
    /// ([`Operation::honours_idempotency_key`]) or does not matter (reading, deleting, or
    /// changing to a state named in full, where a repeat changes nothing more); `Err` with
    /// why when a repeat would do the work again and the key cannot stop it, a refusal (400
    /// on `Idempotency-Key`) rather than a key silently ignored. A new API key cannot be
    /// returned twice, its plaintext being shown once and never stored.
    pub const fn idempotency_key(self) -> std::result::Result<(), &'static str> {
        use Operation::*;
        match self {
            CreateKey | RotateKey => Err(
                "not accepted when a key is created: its plaintext is shown only once and \
                 never stored, so a repeat could not return it; list the keys (GET /api-keys) \
                 to see whether a request that got no answer created one",
            ),
            EmitEvent | CreateWebhook | TestWebhook | ReplayWebhook | RotateWebhookSecret
            | ListKeys | ShowKey | DeleteKey | PruneKeys | ListWebhooks | ShowWebhook
            | UpdateWebhook | DeleteWebhook | ListDeliveries | ListAudit | ListEventTypes
            | ShowEventType | RevokePortalLink | ListPortalLinks => Ok(()),
            CreatePortalLink => Err(
                "not accepted when a portal link is minted: its token is shown only once and \
                 never stored, so a repeat could not return it",
            ),
        }
    }

    /// Whether a repeat of the operation with the same `Idempotency-Key` answers the first
    /// answer and does nothing again (`events::emit_checked`, `idempotency`).
    pub const fn honours_idempotency_key(self) -> bool {
        use Operation::*;
        matches!(
            self,
            EmitEvent | CreateWebhook | TestWebhook | ReplayWebhook | RotateWebhookSecret
        )
    }

    /// What the operation does, for a refusal: `readonly key cannot create keys`.
    pub const fn describe(self) -> &'static str {
        use Operation::*;
        match self {
            CreateKey => "create keys",
            ListKeys => "list keys",
            ShowKey => "show keys",
            DeleteKey => "delete keys",
            RotateKey => "rotate keys",
            PruneKeys => "prune keys",
            CreateWebhook => "create webhooks",
            ListWebhooks => "list webhooks",
            ShowWebhook => "show webhooks",
            UpdateWebhook => "change webhooks",
            DeleteWebhook => "delete webhooks",
            TestWebhook => "test webhooks",
            ListDeliveries => "list deliveries",
            EmitEvent => "emit events",
            ReplayWebhook => "replay webhooks",
            ListAudit => "read the audit log",
            RotateWebhookSecret => "rotate webhook secrets",
            ListEventTypes => "list event types",
            ShowEventType => "show event types",
            CreatePortalLink => "mint portal links",
            RevokePortalLink => "revoke portal links",
            ListPortalLinks => "list portal links",
        }
    }
}

/// The database of an operation that also calls the network (a test ping), taken one step at
/// a time. A step's `&Store`, and any transaction opened on it, ends with the step: the
/// borrow checker keeps it from reaching the network call between steps, so no connection,
/// pool slot or lock is held while a remote endpoint takes its time. The CLI's own connection
/// is one step after another; `serve` lends a pooled connection for each step.
pub trait Database {
    fn step<T>(&self, f: impl FnOnce(&Store) -> Result<T>) -> Result<T>;
}

impl Database for Store {
    fn step<T>(&self, f: impl FnOnce(&Store) -> Result<T>) -> Result<T> {
        f(self)
    }
}

impl Database for Box<Store> {
    fn step<T>(&self, f: impl FnOnce(&Store) -> Result<T>) -> Result<T> {
        f(&**self)
    }
}
