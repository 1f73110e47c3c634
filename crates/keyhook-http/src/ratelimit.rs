//! `serve --rate-limit N/s|N/min`: a GCRA (governor's keyed `RateLimiter`, burst N) per key,
//! keyed by the key's budget (its id, or the first id of its chain of rotations: a key and its
//! successor share one bucket; a 64-bit hash of it, never the plaintext), and one per client
//! address for failed authentications. Counted in this process only: two instances behind a
//! load balancer each allow N.
//!
//! Memory is bounded whatever passes: governor's state lives in [`Bounded`], our
//! `StateStore`, sharded into [`SHARDS`] maps of at most `MAX_TRACKED / SHARDS` entries each.
//! [`Limits::sweep`] (every second, from the server's main loop) drops the entries governor
//! says are indistinguishable from a fresh bucket (`retain_recent`); a shard still full when a
//! new key arrives forgets one of its entries, which then starts again with a full burst (the
//! only cost of the cap: a client among more than `MAX_TRACKED` active ones may get up to
//! another burst). `bench/ratelimit.sh` measures the RSS after a million distinct keys and
//! addresses.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hash, RandomState};
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::Duration;

use governor::clock::{Clock as _, DefaultClock, Reference as _};
use governor::middleware::StateInformationMiddleware;
use governor::nanos::Nanos;
use governor::state::keyed::ShrinkableKeyedStateStore;
use governor::state::StateStore;
use governor::{Quota, RateLimiter};

use keyhook_core::rate::RateLimit;

/// The most keys (and, separately, addresses) whose state is kept at once.
pub const MAX_TRACKED: usize = 1 << 17;
/// Independent maps, each with its own lock: requests of different keys rarely meet.
const SHARDS: usize = 64;

/// A sharded, bounded map from a key to a u64 (governor's "theoretical arrival time", or a
/// block's end).
pub struct Bounded<K> {
    shards: Box<[Mutex<HashMap<K, u64>>]>,
    per_shard: usize,
    hasher: RandomState,
}

impl<K: Hash + Eq + Clone> Bounded<K> {
    pub fn new(max: usize) -> Bounded<K> {
        Bounded {
            shards: (0..SHARDS).map(|_| Mutex::new(HashMap::new())).collect(),
            per_shard: (max / SHARDS).max(1),
            hasher: RandomState::new(),
        }
    }

    fn shard(&self, key: &K) -> std::sync::MutexGuard<'_, HashMap<K, u64>> {
        let i = (self.hasher.hash_one(key) as usize) % self.shards.len();
        self.shards[i].lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Updates `key` with `f` of its old value, forgetting an entry of a full shard first.
    fn update<T, E>(
        &self,
        key: &K,
        f: impl FnOnce(Option<u64>) -> Result<(T, u64), E>,
    ) -> Result<T, E> {
        let mut map = self.shard(key);
        let old = map.get(key).copied();
        let (out, new) = f(old)?;
        match map.get_mut(key) {
            Some(v) => *v = new,
            None => {
                if map.len() >= self.per_shard {
                    if let Some(victim) = map.keys().next().cloned() {
                        map.remove(&victim);
                    }
                }
                map.insert(key.clone(), new);
            }
        }
        Ok(out)
    }

    fn get(&self, key: &K) -> Option<u64> {
        self.shard(key).get(key).copied()
    }

    /// Keeps the entries whose value is above `floor`.
    fn retain_above(&self, floor: u64) {
        for s in self.shards.iter() {
            let mut map = s.lock().unwrap_or_else(|e| e.into_inner());
            map.retain(|_, v| *v > floor);
            if map.capacity() > 4 * map.len().max(64) {
                map.shrink_to_fit();
            }
        }
    }

    pub fn len(&self) -> usize {
        self.shards
            .iter()
            .map(|s| s.lock().unwrap_or_else(|e| e.into_inner()).len())
            .sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<K: Hash + Eq + Clone> StateStore for Bounded<K> {
    type Key = K;

    fn measure_and_replace<T, F, E>(&self, key: &K, f: F) -> Result<T, E>
    where
        F: Fn(Option<Nanos>) -> Result<(T, Nanos), E>,
    {
        self.update(key, |old| {
            let (out, new) = f(old.map(Nanos::from))?;
            Ok((out, new.into()))
        })
    }
}

impl<K: Hash + Eq + Clone> ShrinkableKeyedStateStore<K> for Bounded<K> {
    fn retain_recent(&self, drop_below: Nanos) {
        self.retain_above(drop_below.into());
    }

    fn len(&self) -> usize {
        Bounded::len(self)
    }

    fn is_empty(&self) -> bool {
        Bounded::is_empty(self)
    }
}

type Limiter<K> = RateLimiter<K, Bounded<K>, DefaultClock, StateInformationMiddleware>;

/// The `RateLimit-*` headers of a response (draft-ietf-httpapi-ratelimit-headers): the
/// burst, what is left of it, and whole seconds until it is full again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Headers {
    pub limit: u32,
    pub remaining: u32,
    pub reset: u64,
}

/// A refusal: 429 with `Retry-After` (whole seconds, rounded up) and the headers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limited {
    pub retry_after: u64,
    pub headers: Headers,
}

/// The server's limiters.
pub struct Limits {
    burst: u32,
    /// The time one request's cell takes to come back (period / N).
    per_cell: Duration,
    keys: Limiter<u64>,
    /// Failed authentications per client address (an IPv6 address by its /64).
    addrs: Limiter<u128>,
    /// Addresses refused for failed authentications, until when (ns of `clock`): their
    /// requests get 429 before their key is looked at, so a client guessing keys learns
    /// nothing until the block ends.
    blocked: Bounded<u128>,
    clock: DefaultClock,
    origin: <DefaultClock as governor::clock::Clock>::Instant,
    /// Hashes key ids for `keys` (a random seed per process).
    ids: RandomState,
}

impl Limits {
    pub fn new(rate: RateLimit) -> Limits {
        Limits::with_capacity(rate, MAX_TRACKED)
    }

    /// Limits keeping at most `max` keys and `max` addresses (the benchmark's baseline uses
    /// a larger one).
    pub fn with_capacity(rate: RateLimit, max: usize) -> Limits {
        let burst = rate.requests;
        let per_cell = rate.period / burst.get();
        let quota = Quota::with_period(per_cell)
            .expect("a rate of at most MAX_RATE per second has a non-zero period per request")
            .allow_burst(burst);
        let clock = DefaultClock::default();
        let origin = clock.now();
        Limits {
            burst: burst.get(),
            per_cell,
            keys: RateLimiter::new(quota, Bounded::new(max), clock.clone()),
            addrs: RateLimiter::new(quota, Bounded::new(max), clock.clone()),
            blocked: Bounded::new(max),
            clock,
            origin,
            ids: RandomState::new(),
        }
    }

    /// Counts one request of a key whose budget ([`ApiKey::budget`]) is `budget`: a key and
    /// the keys rotated from it share one bucket while they live (CONTRACT §12).
    ///
    /// [`ApiKey::budget`]: keyhook_core::model::ApiKey::budget
    pub fn check_key(&self, budget: &str) -> Result<Headers, Limited> {
        let k = self.ids.hash_one(budget);
        match self.keys.check_key(&k) {
            Ok(snapshot) => Ok(self.headers(snapshot.remaining_burst_capacity())),
            Err(not_until) => Err(self.limited(not_until.wait_time_from(self.clock.now()))),
        }
    }

    /// Whether `addr` is refused for its failed authentications.
    pub fn blocked(&self, addr: IpAddr) -> Option<Limited> {
        let until = self.blocked.get(&addr_key(addr))?;
        let now = self.now_ns();
        (until > now).then(|| self.limited(Duration::from_nanos(until - now)))
    }

    /// Counts a failed authentication from `addr`. The one that uses the address's last cell
    /// (the Nth within the period) blocks the address until a cell comes back, so the next
    /// request is refused before its key is looked at; it is itself answered as it was
    /// (None). One over the limit that finds no block (a forgotten one) blocks the address
    /// and is itself answered 429 (Some).
    pub fn failed_auth(&self, addr: IpAddr) -> Option<Limited> {
        let k = addr_key(addr);
        loop {
            match self.addrs.check_key(&k) {
                Ok(snapshot) if snapshot.remaining_burst_capacity() > 0 => return None,
                // The last cell: the check that follows is refused (a refusal takes no
                // cell) and says when a cell comes back, which is when the block ends. If a
                // cell came back in between, it took that one too and looks again.
                Ok(_) => match self.addrs.check_key(&k) {
                    Ok(_) => continue,
                    Err(not_until) => {
                        self.block(k, not_until.wait_time_from(self.clock.now()));
                        return None;
                    }
                },
                Err(not_until) => {
                    let wait = not_until.wait_time_from(self.clock.now());
                    self.block(k, wait);
                    return Some(self.limited(wait));
                }
            }
        }
    }

    fn block(&self, k: u128, wait: Duration) {
        let until = self.now_ns().saturating_add(wait.as_nanos() as u64);
        let _ = self.blocked.update(&k, |_| Ok::<_, ()>(((), until)));
    }

    /// Forgets what no longer matters: full buckets and ended blocks.
    pub fn sweep(&self) {
        self.keys.retain_recent();
        self.addrs.retain_recent();
        self.blocked.retain_above(self.now_ns());
    }

    /// Keys, addresses and blocks held now.
    pub fn tracked(&self) -> usize {
        self.keys.len() + self.addrs.len() + self.blocked.len()
    }

    fn now_ns(&self) -> u64 {
        u64::from(self.clock.now().duration_since(self.origin))
    }

    fn headers(&self, remaining: u32) -> Headers {
        headers(self.burst, self.per_cell, remaining)
    }

    fn limited(&self, wait: Duration) -> Limited {
        limited(self.burst, self.per_cell, wait)
    }
}

/// The headers of a response allowed with `remaining` of a burst of `burst` left, a cell
/// coming back every `per_cell`.
fn headers(burst: u32, per_cell: Duration, remaining: u32) -> Headers {
    let used = burst.saturating_sub(remaining);
    Headers {
        limit: burst,
        remaining,
        reset: ceil_secs(per_cell * used),
    }
}

/// The refusal of a request that may be made again after `wait`.
fn limited(burst: u32, per_cell: Duration, wait: Duration) -> Limited {
    Limited {
        retry_after: ceil_secs(wait).max(1),
        headers: Headers {
            limit: burst,
            remaining: 0,
            reset: ceil_secs(wait + per_cell * burst.saturating_sub(1)).max(1),
        },
    }
}

/// Keys with a rate limit of their own (`keys create --rate-limit`, `rateLimit`), whether or
/// not `serve --rate-limit` is given. governor's limiter has one quota for all its keys, so
/// this is the same algorithm (GCRA, burst N) written out over a [`Bounded`] map from a key
/// to its theoretical arrival time, the quota coming with each request from the key itself.
/// Bounded and swept like [`Limits`]; counted in this process only, like it.
pub struct OwnLimits {
    tats: Bounded<u64>,
    clock: DefaultClock,
    origin: <DefaultClock as governor::clock::Clock>::Instant,
    ids: RandomState,
}

impl Default for OwnLimits {
    fn default() -> Self {
        let clock = DefaultClock::default();
        let origin = clock.now();
        OwnLimits {
            tats: Bounded::new(MAX_TRACKED),
            clock,
            origin,
            ids: RandomState::new(),
        }
    }
}

impl OwnLimits {
    /// Counts one request of a key whose budget is `budget` (shared by a chain of rotations,
    /// as [`Limits::check_key`]) and whose own limit is `rate`.
    pub fn check_key(&self, budget: &str, rate: RateLimit) -> Result<Headers, Limited> {
        let burst = rate.requests.get();
        let per_cell = rate.per_request();
        let t = per_cell.as_nanos() as u64;
        // What a full burst takes to come back, less one cell: how far ahead of now the
        // theoretical arrival time may run.
        let ahead = t * u64::from(burst - 1);
        let now = self.now_ns();
        let k = self.ids.hash_one(budget);
        self.tats
            .update(&k, |old| {
                let tat = old.unwrap_or(now).max(now);
                if tat > now + ahead {
                    return Err(tat - ahead - now);
                }
                let next = tat + t;
                let remaining = ((now + ahead + t - next) / t) as u32;
                Ok((remaining, next))
            })
            .map(|remaining| headers(burst, per_cell, remaining))
            .map_err(|wait| limited(burst, per_cell, Duration::from_nanos(wait)))
    }

    /// Forgets the keys whose bucket is full again.
    pub fn sweep(&self) {
        self.tats.retain_above(self.now_ns());
    }

    fn now_ns(&self) -> u64 {
        u64::from(self.clock.now().duration_since(self.origin))
    }
}

/// An address as a limiter key: IPv4 whole, IPv6 by its /64 (one subscriber's usual share).
fn addr_key(addr: IpAddr) -> u128 {
    match addr {
        IpAddr::V4(a) => u128::from(u32::from(a)),
        IpAddr::V6(a) => match a.to_ipv4_mapped() {
            Some(v4) => u128::from(u32::from(v4)),
            None => (u128::from(a) >> 64) << 64 | (1 << 63),
        },
    }
}

fn ceil_secs(d: Duration) -> u64 {
    d.as_secs() + u64::from(d.subsec_nanos() > 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::Ipv4Addr;

    fn limits(s: &str) -> Limits {
        Limits::new(RateLimit::parse(s).unwrap())
    }

    #[test]
    fn a_key_gets_its_burst_then_429_with_retry_after_and_other_keys_do_not_notice() {
        let l = limits("3/min");
        let got: Vec<_> = (0..3).map(|_| l.check_key("key_a").unwrap()).collect();
        assert_eq!(got[0].limit, 3);
        assert_eq!(
            got.iter().map(|h| h.remaining).collect::<Vec<_>>(),
            [2, 1, 0]
        );
        assert_eq!(got[0].reset, 20, "one cell of 3/min comes back in 20 s");
        let over = l.check_key("key_a").unwrap_err();
        assert_eq!(over.headers.remaining, 0);
        assert!((19..=20).contains(&over.retry_after), "{over:?}");
        assert!(
            l.check_key("key_b").is_ok(),
            "another key has its own bucket"
        );
    }

    #[test]
    fn a_key_with_its_own_limit_gets_its_burst_then_429_whatever_the_others_have() {
        let own = OwnLimits::default();
        let three = RateLimit::parse("3/min").unwrap();
        let got: Vec<_> = (0..3).map(|_| own.check_key("a", three).unwrap()).collect();
        assert_eq!(
            got.iter()
                .map(|h| (h.limit, h.remaining))
                .collect::<Vec<_>>(),
            [(3, 2), (3, 1), (3, 0)]
        );
        assert_eq!(got[0].reset, 20, "one cell of 3/min comes back in 20 s");
        let over = own.check_key("a", three).unwrap_err();
        assert!((19..=20).contains(&over.retry_after), "{over:?}");
        assert_eq!((over.headers.limit, over.headers.remaining), (3, 0));
        // Another key, with another limit, has its own bucket.
        let one = RateLimit::parse("1/min").unwrap();
        assert_eq!(own.check_key("b", one).unwrap().remaining, 0);
        assert!(own.check_key("b", one).is_err());
        // A fast rate refills: after a sweep nothing full is kept.
        let fast = RateLimit::parse("1000000/s").unwrap();
        own.check_key("c", fast).unwrap();
        std::thread::sleep(Duration::from_millis(2));
        own.check_key("c", fast).unwrap();
        std::thread::sleep(Duration::from_millis(2));
        own.sweep();
        assert_eq!(
            own.tats.len(),
            2,
            "a and b are still counting; c is full again"
        );
    }

    #[test]
    fn failed_authentications_block_the_address_after_the_burst() {
        let l = limits("2/min");
        let a = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1));
        assert!(l.blocked(a).is_none());
        assert!(l.failed_auth(a).is_none());
        assert!(l.blocked(a).is_none(), "one failure of 2 leaves a cell");
        assert!(
            l.failed_auth(a).is_none(),
            "the second is answered as it was"
        );
        let over = l
            .blocked(a)
            .expect("after 2 failures the address is refused");
        assert!((29..=30).contains(&over.retry_after), "{over:?}");
        assert!(l.blocked(IpAddr::V4(Ipv4Addr::new(10, 0, 0, 2))).is_none());
        // A block forgotten (a full shard), the next failure is refused itself.
        l.blocked.retain_above(u64::MAX);
        assert!(l.blocked(a).is_none());
        let over = l.failed_auth(a).expect("over the limit");
        assert!((29..=30).contains(&over.retry_after), "{over:?}");
        assert!(l.blocked(a).is_some());
    }

    #[test]
    fn ipv6_addresses_are_counted_by_their_64_bit_prefix() {
        let a: IpAddr = "2001:db8::1".parse().unwrap();
        let b: IpAddr = "2001:db8::ffff:2".parse().unwrap();
        let c: IpAddr = "2001:db8:0:1::1".parse().unwrap();
        assert_eq!(addr_key(a), addr_key(b));
        assert_ne!(addr_key(a), addr_key(c));
        let v4: IpAddr = "10.0.0.1".parse().unwrap();
        let mapped: IpAddr = "::ffff:10.0.0.1".parse().unwrap();
        assert_eq!(addr_key(v4), addr_key(mapped));
    }

    #[test]
    fn the_state_held_is_bounded_by_the_cap() {
        let l = Limits::with_capacity(RateLimit::parse("1/min").unwrap(), 1024);
        for i in 0..100_000u32 {
            let _ = l.check_key(&format!("key_{i}"));
            let _ = l.failed_auth(IpAddr::V4(Ipv4Addr::from(i)));
        }
        assert!(l.keys.len() <= 1024, "{}", l.keys.len());
        assert!(l.addrs.len() <= 1024, "{}", l.addrs.len());
    }

    #[test]
    fn a_sweep_forgets_full_buckets() {
        let l = limits("1000000/s");
        for i in 0..1000 {
            let _ = l.check_key(&format!("key_{i}"));
        }
        assert_eq!(l.keys.len(), 1000);
        std::thread::sleep(Duration::from_millis(5));
        l.sweep();
        assert_eq!(l.keys.len(), 0, "a bucket refilled is dropped");
    }
}
