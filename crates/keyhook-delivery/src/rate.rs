//! A webhook's `--rate N/s|N/min` (CONTRACT §15): at most that many attempts, counted across
//! every instance. A token bucket with a burst of N, refilled at N per period: its row
//! (`webhook_rates`) is locked and written in the transaction of each claim that takes a
//! delivery of the webhook, so the claims of every worker on every instance take its tokens
//! one after another, and over any window of t the claims of its deliveries never exceed
//! N + N·t/period. A claim takes a token per delivery it keeps and gives the others back
//! (`OutboxQueries::unlease`); once the bucket holds less than a token, its `next_at` (when
//! the next one is there) keeps every claim from the webhook's deliveries until then.
//!
//! Tokens are counted in thousandths, in integers: a refill is rounded down and the time it
//! took rounded up, so rounding never gives a token early.

use std::collections::{BTreeMap, HashMap};

use keyhook_core::error::Result;
use keyhook_core::rate::RateLimit;
use keyhook_core::store::{Claimed, Conn, RateBucket};
use keyhook_core::time::Timestamp;

const MILLI: i128 = 1000;

/// Keeps, of a claim's `batch` (in due order), each rated webhook's first deliveries up to the
/// tokens its bucket has; gives the others back. Call inside the claim's transaction.
pub fn admit(c: Conn<'_>, batch: Vec<Claimed>, now: Timestamp) -> Result<Vec<Claimed>> {
    let mut wanted: BTreeMap<String, (RateLimit, usize)> = BTreeMap::new();
    for d in &batch {
        if let Some(rate) = d.rate.as_deref().and_then(|r| RateLimit::parse(r).ok()) {
            wanted.entry(d.webhook_id.clone()).or_insert((rate, 0)).1 += 1;
        }
    }
    if wanted.is_empty() {
        return Ok(batch);
    }
    let ids: Vec<&str> = wanted.keys().map(String::as_str).collect();
    let mut buckets = c.lock_rate_buckets(&ids, now)?;
    let mut granted: HashMap<String, usize> = HashMap::new();
    for b in &mut buckets {
        let Some(&(rate, want)) = wanted.get(b.webhook_id.as_str()) else {
            continue;
        };
        let (n, after) = take(rate, b, want, now);
        *b = after;
        granted.insert(b.webhook_id.clone(), n);
    }
    c.write_rate_buckets(&buckets)?;
    let mut kept = Vec::with_capacity(batch.len());
    let mut back = Vec::new();
    for d in batch {
        match granted.get_mut(&d.webhook_id) {
            None if wanted.contains_key(&d.webhook_id) => back.push(d),
            None => kept.push(d),
            Some(0) => back.push(d),
            Some(n) => {
                *n -= 1;
                kept.push(d);
            }
        }
    }
    let ids: Vec<&str> = back.iter().map(|d| d.delivery_id.as_str()).collect();
    c.unlease(&ids)?;
    Ok(kept)
}

/// Takes up to `want` tokens from `bucket` at `now`: how many it took, and the bucket after.
fn take(rate: RateLimit, bucket: &RateBucket, want: usize, now: Timestamp) -> (usize, RateBucket) {
    let n = i128::from(rate.requests.get());
    let period = i128::try_from(rate.period.as_millis())
        .unwrap_or(i128::MAX)
        .max(1);
    let cap = n * MILLI;
    let held = i128::from(bucket.millitokens.unwrap_or(i64::MAX)).min(cap);
    // A clock set back refills nothing (and moves nothing back).
    let elapsed = i128::from(now.0.saturating_sub(bucket.at.0).max(0));
    let refill = elapsed * n * MILLI / period;
    let (tokens, at) = if held + refill >= cap {
        (cap, now.max(bucket.at))
    } else {
        // The time the refill took, rounded up: the rest of `elapsed` still counts.
        let used = (refill * period + n * MILLI - 1) / (n * MILLI);
        let at = bucket
            .at
            .0
            .saturating_add(i64::try_from(used).unwrap_or(i64::MAX));
        (held + refill, Timestamp(at))
    };
    let took = usize::try_from((tokens / MILLI).min(want as i128)).unwrap_or(0);
    let left = tokens - took as i128 * MILLI;
    let next_at = (left < MILLI).then(|| {
        // When the next whole token is there: (MILLI - left) thousandths at n per period.
        let wait = ((MILLI - left) * period + n * MILLI - 1) / (n * MILLI);
        Timestamp(at.0.saturating_add(i64::try_from(wait).unwrap_or(i64::MAX)))
    });
    let after = RateBucket {
        webhook_id: bucket.webhook_id.clone(),
        millitokens: Some(i64::try_from(left).unwrap_or(i64::MAX)),
        at,
        next_at,
    };
    (took, after)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bucket(millitokens: Option<i64>, at: i64) -> RateBucket {
        RateBucket {
            webhook_id: "w".into(),
            millitokens,
            at: Timestamp(at),
            next_at: None,
        }
    }

    #[test]
    fn a_new_bucket_gives_its_burst_then_waits_for_the_next_token() {
        let r = RateLimit::parse("5/s").unwrap();
        let (took, b) = take(r, &bucket(None, 0), 100, Timestamp(1_000));
        assert_eq!(took, 5);
        assert_eq!(b.millitokens, Some(0));
        assert_eq!(b.next_at, Some(Timestamp(1_200)), "one token per 200 ms");
        let (took, b) = take(r, &b, 100, Timestamp(1_199));
        assert_eq!(took, 0);
        assert_eq!(b.next_at, Some(Timestamp(1_200)));
        let (took, b) = take(r, &b, 100, Timestamp(1_200));
        assert_eq!(took, 1);
        assert_eq!(b.next_at, Some(Timestamp(1_400)));
        // Long idle: the burst again, never more.
        let (took, _) = take(r, &b, 100, Timestamp(100_000));
        assert_eq!(took, 5);
    }

    #[test]
    fn a_slow_rate_keeps_its_partial_refills() {
        let r = RateLimit::parse("1/min").unwrap();
        let (took, mut b) = take(r, &bucket(None, 0), 10, Timestamp(0));
        assert_eq!(took, 1);
        assert_eq!(b.next_at, Some(Timestamp(60_000)));
        // Looked at every 7 ms: the refills add up to a token at 60 s, not later.
        let mut t = 0;
        let mut got = 0;
        while t < 60_000 {
            t += 7;
            let (n, after) = take(r, &b, 10, Timestamp(t));
            b = after;
            got += n;
            if n > 0 {
                break;
            }
        }
        assert_eq!(got, 1);
        assert!((60_000..60_007).contains(&t), "{t}");
    }

    /// Over any window, what the bucket gives never exceeds N + N·t/period.
    #[test]
    fn the_bound_holds_over_every_window() {
        let r = RateLimit::parse("7/s").unwrap();
        let mut b = bucket(None, 0);
        let mut grants = Vec::new();
        let mut t = 0i64;
        let mut seed = 12345u64;
        while t < 20_000 {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            t += (seed >> 33) as i64 % 97;
            let want = ((seed >> 20) % 12) as usize;
            let (n, after) = take(r, &b, want, Timestamp(t));
            b = after;
            grants.push((t, n));
        }
        for (i, &(a, _)) in grants.iter().enumerate() {
            let mut sum = 0;
            for &(z, n) in &grants[i..] {
                sum += n as i64;
                assert!(sum * 1000 <= 7 * 1000 + 7 * (z - a), "{sum} in [{a}, {z}]");
            }
        }
        let total: usize = grants.iter().map(|g| g.1).sum();
        assert!(
            total >= 7 * 19,
            "the rate is given, not only bounded: {total}"
        );
    }
}
