//! One function per operation. Every rule of the spec and the contract (validation, expiry,
//! permission, scope, limits) lives here once; the CLI and the HTTP server only convert input
//! and output around these calls.

pub mod events;
pub mod input;
pub mod keys;
pub mod webhooks;

use crate::auth::{self, Method};
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

    /// The permission and scope check for keys; the operator is never refused.
    pub fn may(&self, method: Method, profile: Option<&str>) -> Result<()> {
        match self {
            Actor::Operator { .. } => Ok(()),
            Actor::Key(key) => auth::may(key, method, profile),
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
