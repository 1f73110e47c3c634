//! Keys already read, so that authenticating a returning client is a hash-table hit instead of
//! a B-tree search through a large file, and the lists of keys and of webhooks of their users
//! that the common reads answer with. The cache is only as good as its check: before every
//! lookup it learns whether any other connection, in this process or another, has committed
//! since it last looked; then the whole cache is dropped. The check reads the WAL index's
//! header in shared memory first ([`crate::wal_index`]: what SQLite itself compares to see a
//! commit, rewritten by every one); only when that differs from the header seen at the last
//! check does it read `PRAGMA data_version` (a read transaction), which changes exactly when
//! another connection committed. Inside a transaction the check is always `data_version`, so
//! the transaction's snapshot begins with it and what it reads agrees with the cache. Writes
//! made through the cache's own connection (which `data_version` does not count) drop it too, in
//! `SqliteStore::write_dyn`, or (a recorded use) are copied into it. So a key deleted, expired
//! early or changed anywhere is seen at once, and a list is never older than the last commit.
//! The delivery worker's senders check each webhook right before its request through the same
//! cache (`Storage::signing`): a webhook disabled, deleted or rotated anywhere is seen by the
//! next check, and the same webhook's next delivery does not read its row again meanwhile.

use std::collections::HashMap;
use std::sync::Arc;

use super::SqliteStore;
use crate::error::Result;
use crate::model::{ApiKey, Webhook};
use crate::time::Timestamp;
use crate::wal_index::{Header, WalIndex};
use keyhook_core::store::{
    record_use_in, use_moves, KeyQueries, Listed, ReadAhead, ReadWithKey, SecretQueries, Signing,
};

/// Keys kept per connection (about 6 MiB at most); when full the cache starts over.
/// Unknown tokens are never cached, so guessing cannot fill it.
const CAPACITY: usize = 16_384;

/// Items (keys and webhooks) kept in the lists of a connection, all users' together (about
/// 1 MiB at most); when full the lists start over. A longer list is not kept: its reading
/// is not what its request spends most on.
const LISTED_CAPACITY: usize = 2_048;

/// The longest list kept.
const LIST_MAX: usize = 256;

/// Webhooks' signing states kept per connection; when full they start over.
const SIGNING_CAPACITY: usize = 4_096;

#[derive(Default)]
pub(super) struct KeyCache {
    version: Option<i64>,
    /// The WAL index header read just before `version` was: while the index shows the same
    /// one, nobody has committed since.
    seen: Option<Header>,
    index: Index,
    /// Reads of `data_version` (the check's slow path), for tests.
    full_checks: u64,
    /// Shared with the requests that found them ([`SqliteStore::cached_key_by_hash`]).
    keys: HashMap<String, Arc<ApiKey>, DigestHash>,
    key_lists: HashMap<String, Listed<ApiKey>>,
    webhook_lists: HashMap<String, Listed<Webhook>>,
    /// Items in `key_lists` and `webhook_lists`.
    listed: usize,
    /// Webhooks' signing states by id, each with the time it was read at.
    signings: HashMap<String, (Signing, Timestamp)>,
}

/// The connection's WAL index, looked for once, after its first full check.
#[derive(Default)]
enum Index {
    #[default]
    NotYet,
    Mapped(WalIndex),
    Unavailable,
}

impl KeyCache {
    pub(super) fn clear(&mut self) {
        self.keys.clear();
        self.signings.clear();
        self.clear_lists();
    }

    fn clear_lists(&mut self) {
        self.key_lists.clear();
        self.webhook_lists.clear();
        self.listed = 0;
    }
}

/// The hasher of the keys' map, whose keys are SHA-256 digests in hex: a multiply and a
/// rotate a word (FxHash's step) instead of SipHash, which keeps a table safe from keys chosen
/// to collide (hash flooding). Nobody chooses these: an entry is a stored key's digest, put
/// there after the database returned it, and a token is looked up by its digest, which nobody
/// can steer short of breaking SHA-256. A lookup was ~500 instructions of SipHash a request.
#[derive(Default, Clone, Copy)]
pub(super) struct DigestHash;

impl std::hash::BuildHasher for DigestHash {
    type Hasher = DigestHasher;
    fn build_hasher(&self) -> DigestHasher {
        DigestHasher(0)
    }
}

pub(super) struct DigestHasher(u64);

impl std::hash::Hasher for DigestHasher {
    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0x517c_c1b7_2722_0a95;
        let mut words = bytes.chunks_exact(8);
        for w in &mut words {
            let w = u64::from_le_bytes(w.try_into().expect("chunks of 8"));
            self.0 = (self.0.rotate_left(5) ^ w).wrapping_mul(K);
        }
        for &b in words.remainder() {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(K);
        }
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

/// Inserts into one of the cache's maps, which starts over once it holds `capacity` entries.
fn insert_bounded<V, H: std::hash::BuildHasher>(
    map: &mut HashMap<String, V, H>,
    capacity: usize,
    key: &str,
    value: V,
) {
    if map.len() >= capacity {
        map.clear();
    }
    map.insert(key.to_string(), value);
}

impl SqliteStore {
    /// Drops the cache if anyone else committed since it was filled: the WAL index header as
    /// last seen says nobody did; otherwise `PRAGMA data_version` says whether anyone did.
    fn key_cache_current(&self) -> Result<()> {
        let mut cache = self.key_cache.borrow_mut();
        let header = match &cache.index {
            Index::Mapped(index) => index.header(),
            _ => None,
        };
        if header.is_some() && header == cache.seen && self.conn.0.is_autocommit() {
            return Ok(());
        }
        // The header was read before `data_version`: a commit between the two makes the
        // next check read `data_version` again, never one missed.
        let version: i64 = self
            .conn
            .0
            .prepare_cached("PRAGMA data_version")?
            .query_row([], |r| r.get(0))?;
        cache.full_checks += 1;
        if cache.version != Some(version) {
            cache.clear();
            cache.version = Some(version);
        }
        cache.seen = header;
        if matches!(cache.index, Index::NotYet) {
            // SAFETY: the index lives in the store beside the connection, which closes only
            // with the store and stays in WAL mode once migrated.
            cache.index = match unsafe { WalIndex::of(&self.conn.0) } {
                Some(index) => Index::Mapped(index),
                None => Index::Unavailable,
            };
        }
        Ok(())
    }

    /// How many checks of the cache had to read `PRAGMA data_version`.
    #[cfg(test)]
    pub(crate) fn full_checks(&self) -> u64 {
        self.key_cache.borrow().full_checks
    }

    /// The key whose SHA-256 (lowercase hex) is `key_hash`, as last committed: the cache's
    /// copy, shared.
    pub(crate) fn cached_key_by_hash(&self, key_hash: &str) -> Result<Option<Arc<ApiKey>>> {
        self.key_cache_current()?;
        if let Some(k) = self.key_cache.borrow().keys.get(key_hash) {
            return Ok(Some(Arc::clone(k)));
        }
        let key = KeyQueries::key_by_hash(&self.conn, key_hash)?.map(Arc::new);
        if let Some(k) = &key {
            let mut cache = self.key_cache.borrow_mut();
            insert_bounded(&mut cache.keys, CAPACITY, key_hash, Arc::clone(k));
        }
        Ok(key)
    }

    /// The webhook `id`'s signing state at `now`, as last committed: from the cache while
    /// nobody committed since it was read and its answer still holds at `now`
    /// ([`Signing::holds_at`]: not past the grace period of a rotation it includes).
    pub(crate) fn cached_signing(&self, id: &str, now: Timestamp) -> Result<Option<Signing>> {
        self.key_cache_current()?;
        if let Some((s, read_at)) = self.key_cache.borrow().signings.get(id) {
            if s.holds_at(*read_at, now) {
                return Ok(Some(s.clone()));
            }
        }
        let signing = SecretQueries::signing(&self.conn, id, now)?;
        if let Some(s) = &signing {
            let mut cache = self.key_cache.borrow_mut();
            insert_bounded(&mut cache.signings, SIGNING_CAPACITY, id, (s.clone(), now));
        }
        Ok(signing)
    }

    /// The key whose SHA-256 is `key_hash` and the list `ahead` names of its user, as last
    /// committed, if the cache holds both; `None` when it does not (nothing is read then but
    /// `data_version`).
    pub(crate) fn cached_key_and_list(
        &self,
        key_hash: &str,
        ahead: ReadAhead,
    ) -> Result<Option<(Arc<ApiKey>, ReadWithKey)>> {
        self.key_cache_current()?;
        let cache = self.key_cache.borrow();
        let Some(key) = cache.keys.get(key_hash) else {
            return Ok(None);
        };
        let user = &key.user_id;
        let list = match ahead {
            ReadAhead::Nothing => return Ok(None),
            ReadAhead::KeysOfItsUser => cache
                .key_lists
                .get(user)
                .map(|l| ReadWithKey::Keys(user.clone(), l.clone())),
            ReadAhead::WebhooksOfItsUser => cache
                .webhook_lists
                .get(user)
                .map(|l| ReadWithKey::Webhooks(user.clone(), l.clone())),
        };
        Ok(list.map(|l| (Arc::clone(key), l)))
    }

    /// Keeps `read`, a list read in the same transaction as the cache's last
    /// `data_version` check, unless it is long or the lists are full (they start over).
    pub(crate) fn remember_list(&self, read: &ReadWithKey) {
        let len = match read {
            ReadWithKey::Keys(_, l) => l.len(),
            ReadWithKey::Webhooks(_, l) => l.len(),
        };
        if len > LIST_MAX {
            return;
        }
        let mut cache = self.key_cache.borrow_mut();
        if cache.listed + len > LISTED_CAPACITY {
            cache.clear_lists();
        }
        let replaced = match read {
            ReadWithKey::Keys(user, l) => cache
                .key_lists
                .insert(user.clone(), l.clone())
                .map(|o| o.len()),
            ReadWithKey::Webhooks(user, l) => cache
                .webhook_lists
                .insert(user.clone(), l.clone())
                .map(|o| o.len()),
        };
        cache.listed = cache.listed + len - replaced.unwrap_or(0);
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
        let mut cache = self.key_cache.borrow_mut();
        let cache = &mut *cache;
        // As the row records it: forward only.
        let user = match cache.keys.get_mut(key_hash) {
            Some(k) => {
                if use_moves(k, at) {
                    // A copy if a request holds this one: its key stays as it found it.
                    Arc::make_mut(k).last_used_at = Some(at);
                }
                Some(k.user_id.clone())
            }
            None => None,
        };
        // The key in its user's list too (all lists, if the key's user is not known here);
        // a list a reply holds stays as it was answered.
        match user.and_then(|u| cache.key_lists.get_mut(&u)) {
            Some(list) => record_use_in(list, key_id, at),
            None => cache.clear_lists(),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;
    use std::hash::BuildHasher;

    /// The digests' hasher spreads them as a table needs: over the low bits (the bucket) and
    /// the top seven (the tag hashbrown compares first), as a uniform hash would.
    #[test]
    fn the_digest_hasher_spreads_digests_over_buckets_and_tags() {
        let hashes: Vec<u64> = (0..4096)
            .map(|i| super::DigestHash.hash_one(hash_key(&format!("kp_{i:064x}"))))
            .collect();
        let buckets: HashSet<u64> = hashes.iter().map(|h| h & 0xfff).collect();
        // 4,096 draws from 4,096 buckets fill 63 % of them when uniform (2,589).
        assert!(buckets.len() > 2_450, "{} buckets", buckets.len());
        let tags: HashSet<u64> = hashes.iter().map(|h| h >> 57).collect();
        assert_eq!(tags.len(), 128);
        let all: HashSet<&u64> = hashes.iter().collect();
        assert_eq!(all.len(), hashes.len());
    }

    use crate::testing::temp_store;
    use crate::time::Timestamp;
    use crate::SqliteStore;
    use keyhook_core::auth::{generate_key, hash_key, key_prefix};
    use keyhook_core::store::{ReadAhead, Storage};

    fn insert(store: &SqliteStore, id: &str) -> String {
        let plaintext = generate_key();
        let key = crate::testing::plain_key(id, key_prefix(&plaintext));
        let hash = hash_key(&plaintext);
        store.write(|c| Ok(c.insert_key(&key, &hash)?)).unwrap();
        hash
    }

    impl SqliteStore {
        /// The key as a request finds it (nothing read ahead), owned.
        fn key_by_hash(
            &self,
            hash: &str,
        ) -> keyhook_core::store::StoreResult<Option<crate::model::ApiKey>> {
            Ok(self
                .key_by_hash_ahead(hash, ReadAhead::Nothing)?
                .map(std::sync::Arc::unwrap_or_clone))
        }
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

    /// While nobody commits, the check reads the WAL index's header alone; a commit by
    /// another connection (of this process or another: the header is in shared memory)
    /// sends it to `data_version`, which drops the cache.
    #[test]
    fn the_check_reads_data_version_only_after_a_commit() {
        let (dir, a) = temp_store();
        let b = SqliteStore::open(&dir.path().join("k.db")).unwrap();
        let hash = insert(&b, "k1");
        a.key_by_hash(&hash).unwrap();
        a.key_by_hash(&hash).unwrap();
        let full = a.full_checks();
        for _ in 0..10 {
            assert!(a.key_by_hash(&hash).unwrap().is_some());
        }
        assert_eq!(a.full_checks(), full, "no commit, no read transaction");
        b.write(|c| Ok(c.set_key_expiry("k1", Timestamp(5))?))
            .unwrap();
        assert_eq!(
            a.key_by_hash(&hash).unwrap().unwrap().expires_at,
            Some(Timestamp(5))
        );
        assert_eq!(a.full_checks(), full + 1);
        b.write(|c| Ok(c.delete_key("k1")?)).unwrap();
        assert_eq!(a.key_by_hash(&hash).unwrap(), None);
        assert_eq!(a.full_checks(), full + 2);
    }

    /// Inside a transaction the check is always `data_version`: the transaction's snapshot
    /// starts with it, so the list read next in it agrees with the cached key.
    #[test]
    fn a_check_inside_a_transaction_starts_its_snapshot() {
        let (_dir, a) = temp_store();
        let hash = insert(&a, "k1");
        a.key_by_hash(&hash).unwrap();
        a.key_by_hash(&hash).unwrap();
        let full = a.full_checks();
        // The key is cached, its user's list is not: both are read in one read transaction.
        a.key_by_hash_ahead(&hash, ReadAhead::KeysOfItsUser)
            .unwrap();
        assert_eq!(a.full_checks(), full + 1);
        // Now both are cached: the header alone.
        a.key_by_hash_ahead(&hash, ReadAhead::KeysOfItsUser)
            .unwrap();
        assert_eq!(a.full_checks(), full + 1);
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

    /// A use recorded with an earlier time than the key's (another request's, which finished
    /// first) leaves `lastUsedAt` where the row keeps it, in the cached key and in the cached
    /// list alike.
    #[test]
    fn a_recorded_use_never_moves_the_cached_copies_back() {
        let (dir, a) = temp_store();
        let hash = insert(&a, "k1");
        let listed = |s: &SqliteStore| {
            s.key_by_hash_ahead(&hash, ReadAhead::KeysOfItsUser)
                .unwrap();
            s.conn().listed_keys("u").unwrap()[0].last_used_at
        };
        listed(&a);
        a.record_key_use(&hash, "k1", Timestamp(99)).unwrap();
        a.record_key_use(&hash, "k1", Timestamp(50)).unwrap();
        let b = SqliteStore::open(&dir.path().join("k.db")).unwrap();
        for s in [&a, &b] {
            assert_eq!(
                s.key_by_hash(&hash).unwrap().unwrap().last_used_at,
                Some(Timestamp(99))
            );
            assert_eq!(listed(s), Some(Timestamp(99)));
        }
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

    /// A request is handed the cache's own copy of its key, not a copy of it; a use recorded
    /// later gives the cache a new copy and leaves the one a request holds as it found it.
    #[test]
    fn requests_share_the_cached_key_until_a_use_is_recorded() {
        let (_dir, a) = temp_store();
        let hash = insert(&a, "k1");
        let ahead = |s: &SqliteStore| {
            s.key_by_hash_ahead(&hash, ReadAhead::Nothing)
                .unwrap()
                .expect("the key")
        };
        let first = ahead(&a);
        let second = ahead(&a);
        assert!(std::sync::Arc::ptr_eq(&first, &second));
        a.record_key_use(&hash, "k1", Timestamp(99)).unwrap();
        let after = ahead(&a);
        assert!(!std::sync::Arc::ptr_eq(&first, &after));
        assert_eq!(after.last_used_at, Some(Timestamp(99)));
        assert_eq!(first.last_used_at, second.last_used_at);
        assert_ne!(first.last_used_at, Some(Timestamp(99)));
    }
}
