//! One function per operation. Every rule of the spec and the contract (validation, expiry,
//! permission, scope, limits) lives here once; the CLI and the HTTP server only convert input
//! and output around these calls.

pub mod events;
pub mod input;
pub mod keys;
pub mod webhooks;

use crate::auth::{self, Access};
use crate::error::{Error, Result};
use crate::model::ApiKey;
use crate::store::Store;

/// Who is asking. The operator at the shell owns the database file and may do anything for
/// the user it names; an API key acts for its own user within its permission and scope.
#[derive(Debug, Clone)]
pub enum Actor {
    Operator { user: String },
    Key(ApiKey),
}

/// The longest user id accepted, in characters.
pub const MAX_USER_ID_CHARS: usize = 100;

impl Actor {
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
        })
    }

    pub fn user_id(&self) -> &str {
        match self {
            Actor::Operator { user } => user,
            Actor::Key(key) => &key.user_id,
        }
    }

    /// The permission and scope check of `op` (`auth::may`), which every operation makes
    /// first; the operator is never refused.
    pub fn may(&self, op: Operation, profile: Option<&str>) -> Result<()> {
        match self {
            Actor::Operator { .. } => Ok(()),
            Actor::Key(key) => auth::may(key, op.access(), op.describe(), profile),
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
}

impl Operation {
    /// Whether the operation only reads. A test ping writes: it counts toward `failCount`.
    pub const fn access(self) -> Access {
        use Operation::*;
        match self {
            ListKeys | ShowKey | ListWebhooks | ShowWebhook | ListDeliveries => Access::Read,
            CreateKey | DeleteKey | RotateKey | PruneKeys | CreateWebhook | UpdateWebhook
            | DeleteWebhook | TestWebhook | EmitEvent => Access::Write,
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::delivery::client::{ClientConfig, Sender};
    use crate::model::Permission;
    use crate::service::events::{EventName, NewEvent};
    use crate::service::keys::{KeyName, NewKey};
    use crate::service::webhooks::{NewWebhook, WebhookEvents, WebhookPatch, WebhookUrl};
    use crate::store::testing::temp_store;
    use crate::time::Timestamp;

    const NOW: Timestamp = Timestamp(1_800_000_000_000);

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
        let ro = keys::create(&s, &op, key("ro", Permission::Readonly), NOW).unwrap();
        let hook = || NewWebhook {
            url: WebhookUrl::new("http://127.0.0.1:9/", true).ok(),
            events: WebhookEvents::new(vec!["post.published".into()]).ok(),
            ..NewWebhook::default()
        };
        let w = webhooks::create(&s, &op, hook(), NOW).unwrap();
        let sender = Sender::new(&ClientConfig {
            timeout: std::time::Duration::from_millis(100),
            allow_private: true,
        });
        let actor = Actor::Key(ro.clone());
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
            keys::create(&s, &actor, rw, NOW).map(drop),
        );
        refused(
            Operation::DeleteKey,
            keys::delete(&s, &actor, &ro.id).map(drop),
        );
        let rotated = keys::rotate(&s, &actor, &ro.id, None, NOW);
        refused(Operation::RotateKey, rotated.map(drop));
        refused(
            Operation::PruneKeys,
            keys::prune(&s, &actor, 1, NOW).map(drop),
        );
        let created = webhooks::create(&s, &actor, hook(), NOW);
        refused(Operation::CreateWebhook, created.map(drop));
        let updated = webhooks::update(&s, &actor, &w.id, patch, NOW);
        refused(Operation::UpdateWebhook, updated.map(drop));
        let deleted = webhooks::delete(&s, &actor, &w.id);
        refused(Operation::DeleteWebhook, deleted.map(drop));
        let pinged = webhooks::test(&s, &actor, &w.id, &sender, NOW);
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
}
