//! Keys as credentials: generation, the shape check, hashing, `authenticate` and `may` (read
//! or write access, and profile scope). Both front ends decide every access question here.

use std::sync::Arc;

use rand::rngs::OsRng;
use rand::RngCore;
use sha2::{Digest, Sha256};

use crate::error::{Error, Result};
use crate::model::{ApiKey, Permission, Webhook};
use crate::rate::RateLimit;
use crate::store::{ReadAhead, Store};
use crate::time::Timestamp;

pub use crate::key_shape::{
    KEY_CHECKED_LEN, KEY_LEN, KEY_PATTERN, KEY_PREFIX, KEY_PREFIX_LEN, KEY_PREFIX_PATTERN,
};

/// `lastUsedAt` is written at most once per this many milliseconds per key, so that
/// authentication is not a database write per request.
pub const LAST_USED_RESOLUTION_MS: i64 = 1_000;
/// The refusal of a token whose checksum is wrong (a typo, a forgery, or not a key).
pub const CHECKSUM_MISMATCH: &str = "API key checksum mismatch";

/// A new plaintext key: `kp_`, 56 hex digits of 224 bits from the operating system's CSPRNG,
/// and the 8 hex digits of [`checksum`] of those 59 characters.
pub fn generate_key() -> String {
    let mut bytes = [0u8; KEY_RANDOM_BYTES];
    OsRng.fill_bytes(&mut bytes);
    key_from(bytes)
}

/// Random bytes in a key: 28, as 56 hex digits.
const KEY_RANDOM_BYTES: usize = (KEY_CHECKED_LEN - KEY_PREFIX.len()) / 2;

/// The key whose random part is `bytes`.
fn key_from(bytes: [u8; KEY_RANDOM_BYTES]) -> String {
    let mut key = String::with_capacity(KEY_LEN);
    key.push_str(KEY_PREFIX);
    key.push_str(&hex::encode(bytes));
    let sum = checksum(&key);
    key.push_str(&hex::encode(sum.to_be_bytes()));
    key
}

/// CRC-32 (IEEE 802.3, the one of zlib, gzip and PNG; what GitHub's tokens use) of the
/// first [`KEY_CHECKED_LEN`] characters of a key, as ASCII bytes. A key ends with it as 8
/// lowercase hex digits, most significant first (docs/keys.md).
pub fn checksum(checked: &str) -> u32 {
    crc32fast::hash(checked.as_bytes())
}

/// Whether `token` is a well-formed key whose last 8 hex digits are the [`checksum`] of the
/// rest: a scanner's (and the server's) test that needs no database. Keys issued before
/// keyhook's keys carried a checksum fail it (all but one in 2^32).
pub fn has_valid_checksum(token: &str) -> bool {
    if !is_well_formed(token) {
        return false;
    }
    let (checked, sum) = token.split_at(KEY_CHECKED_LEN);
    let mut want = [0u8; 8];
    hex::encode_to_slice(checksum(checked).to_be_bytes(), &mut want)
        .expect("4 bytes encode into 8");
    sum.as_bytes() == want
}

/// Whether `token` has the exact shape of a key. Anything else is refused before any lookup.
pub fn is_well_formed(token: &str) -> bool {
    // One fold without a branch a byte, which vectorises.
    token.len() == KEY_LEN
        && token.starts_with(KEY_PREFIX)
        && token.as_bytes()[KEY_PREFIX.len()..]
            .iter()
            .fold(true, |ok, &b| {
                ok & ((b.wrapping_sub(b'0') < 10) | (b.wrapping_sub(b'a') < 6))
            })
}

/// SHA-256 of the whole key, lowercase hex: what the store keeps instead of the key.
pub fn hash_key(key: &str) -> String {
    let mut buf = [0u8; 64];
    hash_key_into(key, &mut buf).to_string()
}

/// [`hash_key`] into a buffer on the caller's stack: `authenticate` runs once per request
/// and needs the hash only for the lookup.
fn hash_key_into<'a>(key: &str, buf: &'a mut [u8; 64]) -> &'a str {
    let digest = Sha256::digest(key.as_bytes());
    // 32 bytes always encode into exactly 64 bytes, so neither call can fail.
    hex::encode_to_slice(digest, &mut buf[..]).expect("64-byte buffer for a SHA-256 digest");
    std::str::from_utf8(&buf[..]).expect("hex is ASCII")
}

pub fn key_prefix(key: &str) -> &str {
    &key[..KEY_PREFIX_LEN.min(key.len())]
}

/// Finds the key behind `token` and checks that it may be used now (not expired, uses left).
/// Does not record the use; see [`authenticate_request`] and [`spend_use`].
///
/// A token whose checksum is wrong is refused with [`CHECKSUM_MISMATCH`] before any lookup
/// once the store knows that every key it holds has a checksum
/// ([`Storage::all_keys_checksummed`](crate::store::Storage::all_keys_checksummed)); while
/// keys from before checksums may be left, it is looked up like any token (it may be one of
/// them), and refused with the same message if it is not.
///
/// The lookup is by the SHA-256 of the token, so its timing tells an attacker nothing about
/// any stored key.
pub fn authenticate(store: &Store, token: &str, now: Timestamp) -> Result<ApiKey> {
    authenticate_ahead(store, token, now, ReadAhead::Nothing).map(Arc::unwrap_or_clone)
}

/// [`authenticate`], telling the store what the caller reads next if the key may
/// ([`Storage::key_by_hash_ahead`](crate::store::Storage::key_by_hash_ahead)).
fn authenticate_ahead(
    store: &Store,
    token: &str,
    now: Timestamp,
    ahead: ReadAhead,
) -> Result<Arc<ApiKey>> {
    if !is_well_formed(token) {
        return Err(Error::Unauthorized(format!(
            "malformed API key: expected {KEY_PREFIX} followed by 64 lowercase hex characters"
        )));
    }
    let key = find_key_ahead(store, token, ahead)?;
    if key.is_expired(now) {
        return Err(Error::Expired);
    }
    if key.remaining_uses == Some(0) {
        return Err(Error::Exhausted);
    }
    Ok(key)
}

/// The stored key a well-formed `token` is, by its hash, under the checksum rule of
/// [`authenticate`]: `Unauthorized` ([`CHECKSUM_MISMATCH`] for a wrong checksum) when there
/// is none.
pub fn find_key(store: &Store, token: &str) -> Result<ApiKey> {
    find_key_ahead(store, token, ReadAhead::Nothing).map(Arc::unwrap_or_clone)
}

fn find_key_ahead(store: &Store, token: &str, ahead: ReadAhead) -> Result<Arc<ApiKey>> {
    let checksum_ok = has_valid_checksum(token);
    let mismatch = || Error::Unauthorized(CHECKSUM_MISMATCH.into());
    if !checksum_ok && store.all_keys_checksummed(false)? {
        return Err(mismatch());
    }
    let mut buf = [0u8; 64];
    match store.key_by_hash_ahead(hash_key_into(token, &mut buf), ahead)? {
        Some(key) => Ok(key),
        None if checksum_ok => Err(Error::Unauthorized("invalid API key".into())),
        None => {
            // Learn whether keys without a checksum are left, so that the next such token
            // needs no lookup once none is.
            store.all_keys_checksummed(true)?;
            Err(mismatch())
        }
    }
}

/// Counts one use of a key that has a number of uses (`--max-uses`), atomically in the
/// database so that instances sharing it honour the number exactly; a key without one is
/// left alone (no write). Refuses with [`Error::Exhausted`] when none is left.
pub fn spend_use(store: &Store, key: &mut ApiKey) -> Result<()> {
    if key.remaining_uses.is_none() {
        return Ok(());
    }
    match store.spend_key_use_now(&key.id)? {
        Some(left) => {
            key.remaining_uses = Some(left);
            Ok(())
        }
        None => {
            key.remaining_uses = Some(0);
            Err(Error::Exhausted)
        }
    }
}

/// [`authenticate`], then records the use in `lastUsedAt`, at most once a second per key.
/// `ahead`: what the request reads next if the key may (a list of the key's user), which a
/// backend may read with the key in one round trip. The key is the backend's shared copy
/// ([`Storage::key_by_hash_ahead`](crate::store::Storage::key_by_hash_ahead)), copied only
/// when its use is recorded.
pub fn authenticate_request(
    store: &Store,
    token: &str,
    now: Timestamp,
    ahead: ReadAhead,
) -> Result<Arc<ApiKey>> {
    let mut key = authenticate_ahead(store, token, now, ahead)?;
    let stale = key
        .last_used_at
        .is_none_or(|t| now.millis() - t.millis() >= LAST_USED_RESOLUTION_MS);
    if stale {
        // Best effort: a read-only or busy database must not turn a read into a failure.
        let mut buf = [0u8; 64];
        if store
            .record_key_use(hash_key_into(token, &mut buf), &key.id, now)
            .is_ok()
        {
            Arc::make_mut(&mut key).last_used_at = Some(now);
        }
    }
    Ok(key)
}

/// What an operation does with the data it touches. A readonly key may only read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    Read,
    Write,
}

impl Access {
    /// The access a request of the HTTP API with `method` (in any letter case) asks for, and
    /// the method's name: only GET and HEAD read (RFC 9110's safe methods). The API's rule,
    /// kept here for both front ends that speak of methods: the server, for a request no
    /// operation is found for, and `keys verify --method`.
    pub fn of_method(method: &str) -> Option<(&'static str, Access)> {
        [
            ("GET", Access::Read),
            ("HEAD", Access::Read),
            ("POST", Access::Write),
            ("PUT", Access::Write),
            ("PATCH", Access::Write),
            ("DELETE", Access::Write),
        ]
        .into_iter()
        .find(|(name, _)| name.eq_ignore_ascii_case(method))
    }
}

/// May `key` have `access`, touching `profile` if one is named? The one permission and scope
/// check of keyhook. `asked` names what was asked in the asker's own terms (a request's
/// method, an operation), for the refusal: `readonly key cannot POST`.
pub fn may(key: &ApiKey, access: Access, asked: &str, profile: Option<&str>) -> Result<()> {
    if key.permission == Permission::Readonly && access == Access::Write {
        return Err(Error::Forbidden(format!("readonly key cannot {asked}")));
    }
    if let Some(profile) = profile {
        if !key.scope().includes(profile) {
            return Err(Error::Forbidden(format!(
                "key is not scoped to profile {profile}"
            )));
        }
    }
    Ok(())
}

/// The profiles something reaches: all of its user's (`fullAccess`), or only those listed.
/// A key, a webhook and an event each have one: an event of a profile reaches that profile, a
/// user-wide event (no profile) reaches them all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scope<'a> {
    pub full_access: bool,
    pub profile_ids: &'a [String],
}

impl<'a> Scope<'a> {
    /// All the user's profiles.
    pub const ALL: Scope<'static> = Scope {
        full_access: true,
        profile_ids: &[],
    };

    /// Whether the scope reaches `profile`: [`no_broader_scope`] of that one profile's scope
    /// and this one, without making that scope (a `String`) first.
    pub fn includes(&self, profile: &str) -> bool {
        self.full_access || self.profile_ids.iter().any(|p| p == profile)
    }

    /// What an event reaches: its one profile, or (a user-wide event) all of them.
    pub fn of_event(profile: Option<&'a String>) -> Scope<'a> {
        match profile {
            Some(p) => Scope {
                full_access: false,
                profile_ids: std::slice::from_ref(p),
            },
            None => Scope::ALL,
        }
    }
}

impl ApiKey {
    pub fn scope(&self) -> Scope<'_> {
        Scope {
            full_access: self.full_access,
            profile_ids: &self.profile_ids,
        }
    }
}

impl Webhook {
    pub fn scope(&self) -> Scope<'_> {
        Scope {
            full_access: self.full_access,
            profile_ids: &self.profile_ids,
        }
    }
}

impl crate::store::Signing {
    pub fn scope(&self) -> Scope<'_> {
        Scope {
            full_access: self.full_access,
            profile_ids: &self.profile_ids,
        }
    }
}

/// The scope part of [`no_broader`]: is `a` within `b`? A full-access `b` covers anything; a
/// scoped one covers only scoped `a`s whose profiles are all in its list. What decides which
/// webhooks a key sees and may create, which events it may emit, and (through [`covers`])
/// which webhooks an event is delivered to.
pub fn no_broader_scope(a: Scope<'_>, b: Scope<'_>) -> std::result::Result<(), Excess> {
    if !b.full_access {
        if a.full_access {
            return Err(Excess::FullAccess);
        }
        if let Some(p) = a.profile_ids.iter().find(|p| !b.includes(p)) {
            return Err(Excess::Profile(p.clone()));
        }
    }
    Ok(())
}

/// The matching rule of deliveries: is an event of `profile` (`None`: user-wide) delivered to
/// (or replayed to) a webhook of scope `webhook`? Only when the webhook is full-access or
/// the profile is one of its list; a user-wide event only to full-access webhooks. That is
/// [`no_broader_scope`] of the event's scope and the webhook's. Only `service::routing`
/// applies it to deliveries (at emit, replay and the send).
pub fn covers(webhook: Scope<'_>, profile: Option<&String>) -> bool {
    no_broader_scope(Scope::of_event(profile), webhook).is_ok()
}

/// What a key reaches: the fields the "no broader than" rule compares. A key to be created is
/// compared before it exists, so this is not an `ApiKey`.
#[derive(Debug, Clone, Copy)]
pub struct Reach<'a> {
    pub permission: Permission,
    pub full_access: bool,
    pub profile_ids: &'a [String],
    pub expires_at: Option<Timestamp>,
    pub rate_limit: Option<RateLimit>,
    pub remaining_uses: Option<i64>,
}

impl ApiKey {
    pub fn reach(&self) -> Reach<'_> {
        Reach {
            permission: self.permission,
            full_access: self.full_access,
            profile_ids: &self.profile_ids,
            expires_at: self.expires_at,
            rate_limit: self.rate_limit,
            remaining_uses: self.remaining_uses,
        }
    }
}

impl<'a> Reach<'a> {
    pub fn scope(&self) -> Scope<'a> {
        Scope {
            full_access: self.full_access,
            profile_ids: self.profile_ids,
        }
    }
}

/// The first way in which a key (or a webhook, or an event) reaches further than another.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Excess {
    /// Full access (or, for an event, all profiles: a user-wide event), where the other is
    /// limited to profiles.
    FullAccess,
    /// A profile outside the other key's list.
    Profile(String),
    /// `readwrite`, where the other key is `readonly`.
    Permission,
    /// No expiry, or a later one, where the other key expires at this time.
    Lifetime(Timestamp),
    /// No rate limit of its own, or one not within this one of the other key.
    RateLimit(RateLimit),
    /// No limit on its uses, or more uses than the other key has left (this many).
    Uses(i64),
}

/// Is a key reaching `a` no broader than `b`? Scope within `b`'s (a full-access `b` covers
/// anything; a scoped one covers scoped keys whose profiles are all in its list), permission
/// no higher, `b` never expires or `a` expires no later than `b`, `b` has no rate limit of its
/// own or `a` has one within it, and `b`'s uses are unlimited or `a` has no more left. The
/// one rule behind "a key creates, deletes and rotates only keys no broader than itself".
pub fn no_broader(a: Reach<'_>, b: Reach<'_>) -> std::result::Result<(), Excess> {
    no_broader_scope(a.scope(), b.scope())?;
    if a.permission == Permission::Readwrite && b.permission == Permission::Readonly {
        return Err(Excess::Permission);
    }
    if let Some(limit) = b.expires_at {
        if a.expires_at.is_none_or(|t| t > limit) {
            return Err(Excess::Lifetime(limit));
        }
    }
    if let Some(limit) = b.rate_limit {
        if !a.rate_limit.is_some_and(|r| r.within(limit)) {
            return Err(Excess::RateLimit(limit));
        }
    }
    if let Some(left) = b.remaining_uses {
        if a.remaining_uses.is_none_or(|n| n > left) {
            return Err(Excess::Uses(left));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(permission: Permission, profiles: &[&str]) -> ApiKey {
        ApiKey {
            id: "k".into(),
            user_id: "u".into(),
            key_prefix: "kp_00000000".into(),
            name: "n".into(),
            permission,
            full_access: profiles.is_empty(),
            profile_ids: profiles.iter().map(|s| s.to_string()).collect(),
            last_used_at: None,
            expires_at: None,
            rate_limit: None,
            remaining_uses: None,
            budget_id: None,
            created_at: Timestamp(0),
            key: None,
        }
    }

    #[test]
    fn generated_keys_are_well_formed_and_distinct() {
        let a = generate_key();
        let b = generate_key();
        assert_eq!(a.len(), KEY_LEN);
        assert!(is_well_formed(&a), "{a}");
        assert_ne!(a, b);
        assert_eq!(key_prefix(&a).len(), 11);
        assert!(a.starts_with(key_prefix(&a)));
    }

    #[test]
    fn a_key_ends_with_the_big_endian_lowercase_crc32_of_its_first_59_characters() {
        // CRC-32/ISO-HDLC of "123456789" is 0xcbf43926 (the catalogue's check value).
        assert_eq!(checksum("123456789"), 0xcbf4_3926);
        let key = key_from([0; KEY_RANDOM_BYTES]);
        assert_eq!(&key[..KEY_CHECKED_LEN], format!("kp_{}", "0".repeat(56)));
        let sum = checksum(&key[..KEY_CHECKED_LEN]);
        assert_eq!(&key[KEY_CHECKED_LEN..], format!("{sum:08x}"));
        assert!(has_valid_checksum(&key));
        assert!(!has_valid_checksum(&key.to_uppercase()));
        assert!(!has_valid_checksum(&format!("kp_{}", "a1".repeat(32))));
    }

    proptest::proptest! {
        #[test]
        fn every_generated_key_verifies(bytes in proptest::array::uniform28(proptest::num::u8::ANY)) {
            let key = key_from(bytes);
            proptest::prop_assert!(is_well_formed(&key));
            proptest::prop_assert!(has_valid_checksum(&key), "{}", key);
        }

        #[test]
        fn every_one_character_change_is_caught(
            bytes in proptest::array::uniform28(proptest::num::u8::ANY),
            at in 0..KEY_LEN,
            to in proptest::char::any(),
        ) {
            let key = key_from(bytes);
            let old = key.as_bytes()[at] as char;
            proptest::prop_assume!(to != old);
            let mut typo = key[..at].to_string();
            typo.push(to);
            typo.push_str(&key[at + 1..]);
            proptest::prop_assert!(!has_valid_checksum(&typo), "{} from {}", typo, key);
        }

        #[test]
        fn every_hex_digit_changed_anywhere_is_caught(
            bytes in proptest::array::uniform28(proptest::num::u8::ANY),
            at in KEY_PREFIX.len()..KEY_LEN,
            to in 0..16u32,
        ) {
            // The changes a scanner sees most: a key whose shape is intact.
            let key = key_from(bytes);
            let to = char::from_digit(to, 16).unwrap();
            proptest::prop_assume!(key.as_bytes()[at] as char != to);
            let typo = format!("{}{to}{}", &key[..at], &key[at + 1..]);
            proptest::prop_assert!(is_well_formed(&typo));
            proptest::prop_assert!(!has_valid_checksum(&typo), "{} from {}", typo, key);
        }
    }

    #[test]
    fn shape_check() {
        let good = format!("kp_{}", "a1".repeat(32));
        assert!(is_well_formed(&good));
        assert!(!is_well_formed(&good[..66]));
        assert!(!is_well_formed(&format!("{good}0")));
        assert!(!is_well_formed(&good.to_uppercase()));
        assert!(!is_well_formed(&format!("kq_{}", "a1".repeat(32))));
        assert!(!is_well_formed(&format!("kp_{}g", "a1".repeat(31) + "a")));
        // Multi-byte characters must not be miscounted or sliced.
        assert!(!is_well_formed(&format!("kp_{}é", "a".repeat(62))));
    }

    #[test]
    fn the_key_patterns_agree_with_the_shape_check() {
        let key = regex::Regex::new(KEY_PATTERN).unwrap();
        let prefix = regex::Regex::new(KEY_PREFIX_PATTERN).unwrap();
        let good = generate_key();
        let mut cases = vec![good.clone(), good.to_uppercase(), format!("{good}0")];
        cases.push(good[..KEY_LEN - 1].to_string());
        cases.push(format!("kq_{}", &good[3..]));
        for (i, c) in good.char_indices().skip(KEY_PREFIX.len()) {
            for other in ['g', 'A', 'é', '0', 'f'] {
                if other != c {
                    cases.push(format!("{}{other}{}", &good[..i], &good[i + 1..]));
                }
            }
        }
        for c in cases {
            assert_eq!(key.is_match(&c), is_well_formed(&c), "{c}");
            if is_well_formed(&c) {
                assert!(prefix.is_match(key_prefix(&c)), "{c}");
            }
        }
        assert!(!prefix.is_match(&good[..KEY_PREFIX_LEN + 1]));
        assert!(!prefix.is_match(&good[..KEY_PREFIX_LEN - 1]));
    }

    #[test]
    fn hash_is_sha256_hex() {
        assert_eq!(
            hash_key("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn readonly_keys_only_read() {
        let k = key(Permission::Readonly, &[]);
        assert!(may(&k, Access::Read, "GET", None).is_ok());
        assert!(may(&k, Access::Read, "HEAD", None).is_ok());
        for asked in ["POST", "PUT", "PATCH", "DELETE", "create keys"] {
            let e = may(&k, Access::Write, asked, None).unwrap_err();
            assert_eq!(e.to_string(), format!("readonly key cannot {asked}"));
            assert_eq!(e.http_status(), 403);
        }
        let rw = key(Permission::Readwrite, &[]);
        assert!(may(&rw, Access::Write, "DELETE", Some("any")).is_ok());
    }

    #[test]
    fn scoped_keys_stay_in_their_profiles() {
        let k = key(Permission::Readwrite, &["p1", "p2"]);
        assert!(may(&k, Access::Write, "POST", Some("p2")).is_ok());
        assert!(may(&k, Access::Read, "GET", None).is_ok());
        let e = may(&k, Access::Read, "GET", Some("p3")).unwrap_err();
        assert_eq!(e.exit_code(), 4);
        assert!(e.to_string().contains("p3"));
        // Both rules apply; permission first.
        let ro = key(Permission::Readonly, &["p1"]);
        assert!(may(&ro, Access::Read, "GET", Some("p1")).is_ok());
        let e = may(&ro, Access::Write, "POST", Some("p9")).unwrap_err();
        assert_eq!(e.to_string(), "readonly key cannot POST");
        let e = may(&ro, Access::Read, "GET", Some("p9")).unwrap_err();
        assert_eq!(e.to_string(), "key is not scoped to profile p9");
    }

    #[test]
    fn events_reach_webhooks_whose_scope_covers_their_profile() {
        let ids = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let ab = ids(&["a", "b"]);
        let scoped = Scope {
            full_access: false,
            profile_ids: &ab,
        };
        let (a, c) = ("a".to_string(), "c".to_string());
        assert!(covers(Scope::ALL, None));
        assert!(covers(Scope::ALL, Some(&a)));
        assert!(covers(scoped, Some(&a)));
        assert!(!covers(scoped, Some(&c)));
        // A user-wide event only to full-access webhooks.
        assert!(!covers(scoped, None));
        assert_eq!(
            no_broader_scope(Scope::of_event(None), scoped),
            Err(Excess::FullAccess)
        );
        assert_eq!(
            no_broader_scope(Scope::of_event(Some(&c)), scoped),
            Err(Excess::Profile("c".into()))
        );
    }

    fn reach<'a>(k: &'a ApiKey, expires: Option<i64>) -> Reach<'a> {
        Reach {
            expires_at: expires.map(Timestamp),
            ..k.reach()
        }
    }

    #[test]
    fn no_broader_compares_rate_limits_and_uses() {
        let k = key(Permission::Readwrite, &[]);
        let with = |rate: Option<&str>, uses: Option<i64>| Reach {
            rate_limit: rate.map(|r| RateLimit::parse(r).unwrap()),
            remaining_uses: uses,
            ..k.reach()
        };
        let ten = RateLimit::parse("10/s").unwrap();
        assert_eq!(no_broader(with(None, None), with(None, None)), Ok(()));
        assert_eq!(
            no_broader(with(Some("5/s"), None), with(Some("10/s"), None)),
            Ok(())
        );
        assert_eq!(
            no_broader(with(None, None), with(Some("10/s"), None)),
            Err(Excess::RateLimit(ten))
        );
        assert_eq!(
            no_broader(with(Some("600/min"), None), with(Some("10/s"), None)),
            Err(Excess::RateLimit(ten))
        );
        assert_eq!(no_broader(with(None, Some(5)), with(None, Some(5))), Ok(()));
        assert_eq!(
            no_broader(with(None, Some(6)), with(None, Some(5))),
            Err(Excess::Uses(5))
        );
        assert_eq!(
            no_broader(with(None, None), with(None, Some(5))),
            Err(Excess::Uses(5))
        );
        // A key without limits of its own covers any.
        assert_eq!(
            no_broader(with(Some("1/s"), Some(1)), with(None, None)),
            Ok(())
        );
    }

    #[test]
    fn no_broader_compares_scope_permission_and_lifetime() {
        let full_rw = key(Permission::Readwrite, &[]);
        let full_ro = key(Permission::Readonly, &[]);
        let p12 = key(Permission::Readwrite, &["p1", "p2"]);
        let p1 = key(Permission::Readwrite, &["p1"]);
        let p3 = key(Permission::Readwrite, &["p3"]);
        let ok = |a: Reach<'_>, b: Reach<'_>| no_broader(a, b);
        // A key is no broader than itself, whatever it is.
        for k in [&full_rw, &full_ro, &p12] {
            assert_eq!(ok(k.reach(), k.reach()), Ok(()));
            assert_eq!(ok(reach(k, Some(5)), reach(k, Some(5))), Ok(()));
        }
        // Scope.
        assert_eq!(ok(p1.reach(), full_rw.reach()), Ok(()));
        assert_eq!(ok(p1.reach(), p12.reach()), Ok(()));
        assert_eq!(ok(full_rw.reach(), p12.reach()), Err(Excess::FullAccess));
        assert_eq!(
            ok(p12.reach(), p1.reach()),
            Err(Excess::Profile("p2".into()))
        );
        assert_eq!(
            ok(p3.reach(), p12.reach()),
            Err(Excess::Profile("p3".into()))
        );
        // Permission.
        assert_eq!(ok(full_ro.reach(), full_rw.reach()), Ok(()));
        assert_eq!(
            ok(full_rw.reach(), full_ro.reach()),
            Err(Excess::Permission)
        );
        // Lifetime: a key that never expires covers any expiry; one that expires covers only
        // keys that expire, and no later than it does.
        assert_eq!(ok(reach(&p1, None), reach(&p12, None)), Ok(()));
        assert_eq!(ok(reach(&p1, Some(9)), reach(&p12, None)), Ok(()));
        assert_eq!(ok(reach(&p1, Some(9)), reach(&p12, Some(9))), Ok(()));
        assert_eq!(ok(reach(&p1, Some(8)), reach(&p12, Some(9))), Ok(()));
        assert_eq!(
            ok(reach(&p1, Some(10)), reach(&p12, Some(9))),
            Err(Excess::Lifetime(Timestamp(9)))
        );
        assert_eq!(
            ok(reach(&p1, None), reach(&p12, Some(9))),
            Err(Excess::Lifetime(Timestamp(9)))
        );
    }
}
