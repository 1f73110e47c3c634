//! Keys already read, so that authenticating a returning client is a hash-table hit instead of
//! a B-tree search through a large file. The cache is only as good as its check: before every
//! lookup it reads `PRAGMA data_version`, which changes whenever any other connection, in this
//! process or another, has committed; then the whole cache is dropped. Writes made through the
//! cache's own connection (which `data_version` does not count) drop it too, in
//! `SqliteStore::write_dyn`. So a key deleted, expired early or changed anywhere is seen at once.

use std::collections::HashMap;

use super::SqliteStore;
use crate::error::Result;
use crate::model::ApiKey;
use crate::time::Timestamp;
use keyhook_core::store::KeyQueries;

/// Keys kept per connection (about 6 MiB at most); when full the cache starts over.
/// Unknown tokens are never cached, so guessing cannot fill it.
const CAPACITY: usize = 16_384;

#[derive(Default)]
pub(super) struct KeyCache {
    version: Option<i64>,
    keys: HashMap<String, ApiKey>,
}

impl KeyCache {
    pub(super) fn clear(&mut self) {
        self.keys.clear();
    }
}

impl SqliteStore {
    /// The key whose SHA-256 (lowercase hex) is `key_hash`, as last committed.
    pub(crate) fn cached_key_by_hash(&self, key_hash: &str) -> Result<Option<ApiKey>> {
        let version: i64 = self
            .conn
            .0
            .prepare_cached("PRAGMA data_version")?
            .query_row([], |r| r.get(0))?;
        {
            let mut cache = self.key_cache.borrow_mut();
            if cache.version != Some(version) {
                cache.keys.clear();
                cache.version = Some(version);
            }
            if let Some(k) = cache.keys.get(key_hash) {
                return Ok(Some(k.clone()));
            }
        }
        let key = KeyQueries::key_by_hash(&self.conn, key_hash)?;
        if let Some(k) = &key {
            let mut cache = self.key_cache.borrow_mut();
            if cache.keys.len() >= CAPACITY {
                cache.keys.clear();
            }
            cache.keys.insert(key_hash.to_string(), k.clone());
        }
        Ok(key)
    }

    /// Records a use of the key (see `Conn::set_key_last_used`) and keeps the cached copy in
    /// step, since this connection's own write does not change `data_version`.
    pub(crate) fn cached_record_key_use(
        &self,
        key_hash: &str,
        key_id: &str,
        at: Timestamp,
    ) -> Result<()> {
        self.conn.set_key_last_used(key_id, at)?;
        if let Some(k) = self.key_cache.borrow_mut().keys.get_mut(key_hash) {
            k.last_used_at = Some(at);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::testing::temp_store;
    use crate::time::Timestamp;
    use crate::SqliteStore;
    use keyhook_core::auth::{generate_key, hash_key, key_prefix};
    use keyhook_core::store::Storage;

    fn insert(store: &SqliteStore, id: &str) -> String {
        let plaintext = generate_key();
        let key = crate::testing::plain_key(id, key_prefix(&plaintext));
        let hash = hash_key(&plaintext);
        store.write(|c| Ok(c.insert_key(&key, &hash)?)).unwrap();
        hash
    }

    #[test]
    fn another_connections_delete_is_seen_at_once() {
        let (dir, a) = temp_store();
        let b = SqliteStore::open(&dir.path().join("k.db")).unwrap();
        let hash = insert(&a, "k1");
        assert!(a.key_by_hash(&hash).unwrap().is_some());
        assert!(
            a.key_by_hash(&hash).unwrap().is_some(),
            "served from the cache"
        );
        b.write(|c| Ok(c.delete_key("k1")?)).unwrap();
        assert_eq!(a.key_by_hash(&hash).unwrap(), None);
    }

    #[test]
    fn own_writes_are_seen_at_once() {
        let (_dir, a) = temp_store();
        let hash = insert(&a, "k1");
        assert!(a.key_by_hash(&hash).unwrap().is_some());
        a.write(|c| Ok(c.set_key_expiry("k1", Timestamp(5))?))
            .unwrap();
        assert_eq!(
            a.key_by_hash(&hash).unwrap().unwrap().expires_at,
            Some(Timestamp(5))
        );
        a.write(|c| Ok(c.delete_key("k1")?)).unwrap();
        assert_eq!(a.key_by_hash(&hash).unwrap(), None);
    }

    #[test]
    fn a_recorded_use_updates_the_cached_copy() {
        let (dir, a) = temp_store();
        let hash = insert(&a, "k1");
        a.key_by_hash(&hash).unwrap();
        a.record_key_use(&hash, "k1", Timestamp(99)).unwrap();
        assert_eq!(
            a.key_by_hash(&hash).unwrap().unwrap().last_used_at,
            Some(Timestamp(99))
        );
        let b = SqliteStore::open(&dir.path().join("k.db")).unwrap();
        assert_eq!(
            b.key_by_hash(&hash).unwrap().unwrap().last_used_at,
            Some(Timestamp(99))
        );
    }
}
