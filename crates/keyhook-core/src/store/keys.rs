//! Users and API keys: [`KeyQueries`], and what a request reads with its key.

use super::StoreResult;
use crate::model::ApiKey;
use crate::time::Timestamp;

/// What a request reads right after its key is found ([`Storage::key_by_hash_ahead`]): the
/// list of the key's own user that the common reads answer with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadAhead {
    Nothing,
    /// [`KeyQueries::list_keys`] of the key's user.
    KeysOfItsUser,
    /// [`WebhookQueries::list_webhooks`] of the key's user.
    WebhooksOfItsUser,
}

/// A list as the list reads answer it: shared, so that a list a connection keeps (SQLite's
/// per-connection cache) is answered and compared without being copied.
pub type Listed<T> = std::sync::Arc<Vec<T>>;

/// Users and API keys.
pub trait KeyQueries {
    /// Adds the user if it is not there yet.
    fn ensure_user(&self, user_id: &str, now: Timestamp) -> StoreResult<()>;
    /// Inserts a key (and its user); `key_hash` is the SHA-256 of the plaintext, which is
    /// never stored.
    fn insert_key(&self, key: &ApiKey, key_hash: &str) -> StoreResult<()>;
    /// The key whose hash is `key_hash`, uncached.
    fn key_by_hash(&self, key_hash: &str) -> StoreResult<Option<ApiKey>>;
    /// Keys of `user` (or of every user) whose id or prefix is `id_or_prefix`, oldest first.
    fn keys_by_id_or_prefix(
        &self,
        user: Option<&str>,
        id_or_prefix: &str,
    ) -> StoreResult<Vec<ApiKey>>;
    /// Keys of `user`, or of every user when `None`, oldest first.
    fn list_keys(&self, user: Option<&str>) -> StoreResult<Vec<ApiKey>>;
    /// [`list_keys`](KeyQueries::list_keys) of one user, shared: a backend that holds the
    /// list already (read with the key) answers with it, not a copy.
    fn listed_keys(&self, user: &str) -> StoreResult<Listed<ApiKey>> {
        self.list_keys(Some(user)).map(Listed::new)
    }
    /// Inside a write transaction: makes its commit as unlikely to fail as the backend
    /// allows, before anything that depends on it (a new key or secret) is shown. A failure
    /// here rolls back with nothing shown.
    fn stage(&self) -> StoreResult<()>;
    /// Keys of `user` whose expiry is before `cutoff`, oldest expiry first.
    fn keys_expired_before(&self, user: &str, cutoff: Timestamp) -> StoreResult<Vec<ApiKey>>;
    /// Returns whether a key was deleted.
    fn delete_key(&self, id: &str) -> StoreResult<bool>;
    fn set_key_expiry(&self, id: &str, expires_at: Timestamp) -> StoreResult<()>;
    /// Records a use of the key, never moving `lastUsedAt` back; gives up quickly rather than
    /// wait long for another writer.
    fn set_key_last_used(&self, id: &str, at: Timestamp) -> StoreResult<()>;
    /// Whether any key was stored without a checksum (issued before keys carried one).
    fn any_key_without_checksum(&self) -> StoreResult<bool>;
    /// Takes one of the remaining uses of the key's budget (shared by its chain of
    /// rotations, [`ApiKey::budget`]) in one statement (a row lock on PostgreSQL), and
    /// returns how many are left; `None` when it had none left (or no such key, or no limit).
    fn spend_key_use(&self, id: &str) -> StoreResult<Option<i64>>;
}
