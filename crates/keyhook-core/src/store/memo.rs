//! What a backend remembers between calls, the same for both backends: the list read with a
//! key for the very next read ([`AheadMemo`]) and whether every key has a checksum
//! ([`ChecksumMemory`]).

use super::{KeyQueries, Listed, StoreResult};
use crate::model::{ApiKey, Webhook};
use crate::time::Timestamp;

/// A list read with its key by [`Storage::key_by_hash_ahead`], kept by a connection for the
/// very next read of that list (the same user's) and dropped by anything else the
/// connection does first. One place for both backends' rule of when it may answer.
#[derive(Default)]
pub struct AheadMemo(std::cell::RefCell<Option<ReadWithKey>>);

/// What [`AheadMemo`] holds: the user the list is of, and the list.
pub enum ReadWithKey {
    Keys(String, Listed<ApiKey>),
    Webhooks(String, Listed<Webhook>),
}

impl ReadWithKey {
    /// The list as it is once the use of key `key_id` at `at` is recorded (by this
    /// connection, right after reading it): [`record_use_in`].
    pub fn record_use(&mut self, key_id: &str, at: Timestamp) {
        if let ReadWithKey::Keys(_, list) = self {
            record_use_in(list, key_id, at);
        }
    }
}

/// Whether a use of `key` at `at` moves its `lastUsedAt`: only forward, as
/// [`KeyQueries::set_key_last_used`] writes it (`last_used_moves_sql!`).
pub fn use_moves(key: &ApiKey, at: Timestamp) -> bool {
    key.last_used_at.is_none_or(|t| t < at)
}

/// Records in a list read before it the use of key `key_id` at `at`, as it is recorded in the
/// key's row ([`use_moves`]). A shared list is changed as a copy (see [`Listed`]), and only if
/// it changes.
pub fn record_use_in(list: &mut Listed<ApiKey>, key_id: &str, at: Timestamp) {
    let moves = |k: &ApiKey| k.id == key_id && use_moves(k, at);
    if list.iter().any(moves) {
        for k in Listed::make_mut(list).iter_mut().filter(|k| moves(k)) {
            k.last_used_at = Some(at);
        }
    }
}

impl AheadMemo {
    /// Keeps `read` for the next list read (replacing anything kept).
    pub fn keep(&self, read: Option<ReadWithKey>) {
        *self.0.borrow_mut() = read;
    }

    /// Takes what is kept, leaving nothing.
    pub fn take(&self) -> Option<ReadWithKey> {
        self.0.borrow_mut().take()
    }

    /// Drops what is kept: the connection did something else first.
    pub fn forget(&self) {
        self.take();
    }

    /// The keys of `user`, if they are what was kept; whatever was kept is gone after.
    pub fn keys_of(&self, user: &str) -> Option<Listed<ApiKey>> {
        match self.take() {
            Some(ReadWithKey::Keys(of, list)) if of == user => Some(list),
            _ => None,
        }
    }

    /// The webhooks of `user`, if they are what was kept; whatever was kept is gone after.
    pub fn webhooks_of(&self, user: &str) -> Option<Listed<Webhook>> {
        match self.take() {
            Some(ReadWithKey::Webhooks(of, list)) if of == user => Some(list),
            _ => None,
        }
    }
}

/// Whether a database is known to hold no key without a checksum
/// ([`Storage::all_keys_checksummed`]), remembered by a backend for all its connections.
///
/// Only "yes" is remembered, and it stays true: keyhook never writes a key without a
/// checksum again (new keys, rotations; `db copy` writes only into an empty database), so
/// once a query has seen none left, none can come back, on this instance or any other
/// sharing the database. Each instance learns it on its own, with one query (an index
/// probe), at the first token with a wrong checksum after the last such key is gone; no
/// instance needs to tell another. Until then such tokens are looked up.
#[derive(Debug, Clone, Default)]
pub struct ChecksumMemory(std::sync::Arc<std::sync::atomic::AtomicBool>);

impl ChecksumMemory {
    pub(super) fn all_keys_checksummed(
        &self,
        conn: &(impl KeyQueries + ?Sized),
        look: bool,
    ) -> StoreResult<bool> {
        use std::sync::atomic::Ordering;
        if self.0.load(Ordering::Acquire) {
            return Ok(true);
        }
        if !look {
            return Ok(false);
        }
        let none_left = !conn.any_key_without_checksum()?;
        if none_left {
            self.0.store(true, Ordering::Release);
        }
        Ok(none_left)
    }
}
