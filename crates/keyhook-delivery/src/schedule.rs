//! When a failed delivery is tried again: exponential backoff with jitter, and the receiver's
//! `Retry-After` when it asks for longer.

use rand::Rng;

use keyhook_core::service::webhooks::flow::{parse_retry_delays, RetrySchedule};

/// After the first attempt (immediately): 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h; eight
/// attempts over about 28 hours.
pub const DEFAULT_SCHEDULE: &str = "5s,5m,30m,2h,5h,10h,10h";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Schedule {
    /// Delay before each retry, in milliseconds.
    retries: Vec<i64>,
}

impl Default for Schedule {
    fn default() -> Self {
        Schedule::parse(DEFAULT_SCHEDULE).expect("the default schedule parses")
    }
}

impl Schedule {
    /// Parses comma-separated delays before each retry (`5s,5m,30m`); an empty string means
    /// no retries at all.
    /// The same parser and bounds as a webhook's `--retry-schedule`
    /// (`service::webhooks::flow::parse_retry_delays`).
    pub fn parse(s: &str) -> Result<Schedule, String> {
        Ok(Schedule {
            retries: parse_retry_delays(s)?,
        })
    }

    /// A webhook's own schedule as stored (a JSON list of durations, CONTRACT §15); `None`
    /// when it does not read (the worker then keeps serve's).
    pub fn from_stored(json: &str) -> Option<Schedule> {
        let list: Vec<String> = serde_json::from_str(json).ok()?;
        Some(Schedule {
            retries: RetrySchedule::delays(&list)?,
        })
    }

    /// Attempts a delivery gets before it is given up.
    pub fn max_attempts(&self) -> i64 {
        self.retries.len() as i64 + 1
    }

    /// The delay before the next attempt once `attempts_made` attempts have failed, or `None`
    /// when the delivery is given up. The delay varies by up to a tenth either way, so that
    /// deliveries that failed together do not retry together; `retry_after_ms` (from the
    /// receiver) lengthens it, never shortens it.
    pub fn next_delay(&self, attempts_made: i64, retry_after_ms: Option<i64>) -> Option<i64> {
        let index = usize::try_from(attempts_made.checked_sub(1)?).ok()?;
        let base = *self.retries.get(index)?;
        let spread = base / 10;
        let jittered = if spread > 0 {
            base + rand::thread_rng().gen_range(-spread..=spread)
        } else {
            base
        };
        Some(jittered.max(retry_after_ms.unwrap_or(0)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_is_eight_attempts() {
        let s = Schedule::default();
        assert_eq!(s.max_attempts(), 8);
        let first = s.next_delay(1, None).unwrap();
        assert!((4_500..=5_500).contains(&first), "{first}");
        let last = s.next_delay(7, None).unwrap();
        assert!((32_400_000..=39_600_000).contains(&last), "{last}");
        assert_eq!(s.next_delay(8, None), None);
        assert_eq!(s.next_delay(0, None), None);
    }

    #[test]
    fn retry_after_lengthens_never_shortens() {
        let s = Schedule::parse("1s").unwrap();
        assert_eq!(s.next_delay(1, Some(60_000)), Some(60_000));
        assert!(s.next_delay(1, Some(1)).unwrap() >= 900);
    }

    #[test]
    fn parses_and_refuses() {
        assert_eq!(Schedule::parse("100ms, 2s").unwrap().max_attempts(), 3);
        assert_eq!(Schedule::parse("").unwrap().max_attempts(), 1);
        assert!(Schedule::parse("5s,,5m").is_err());
        assert!(Schedule::parse("soon").is_err());
    }

    #[test]
    fn a_webhooks_stored_schedule_reads_or_is_none() {
        let s = Schedule::from_stored(r#"["1s","2m"]"#).unwrap();
        assert_eq!(s.max_attempts(), 3);
        let second = s.next_delay(2, None).unwrap();
        assert!((108_000..=132_000).contains(&second), "{second}");
        assert_eq!(Schedule::from_stored("[]").unwrap().max_attempts(), 1);
        assert_eq!(Schedule::from_stored("not json"), None);
        assert_eq!(Schedule::from_stored(r#"["soon"]"#), None);
    }
}
