//! `serve --rate-limit RATE`: the rate a key (or, for failed authentications, a client
//! address) may make requests at. Parsed here once for both the CLI (which refuses a bad value
//! with exit 2) and the server (which builds its limiter from it).

use std::fmt;
use std::num::NonZeroU32;
use std::time::Duration;

/// The largest N accepted in `N/s` or `N/min`: far above what one instance serves, small
/// enough that the limiter's arithmetic (nanoseconds per request) stays exact.
pub const MAX_RATE: u32 = 1_000_000;

/// What [`RateLimit::parse`] takes, as a regular expression (the OpenAPI document's;
/// a test checks that the two agree).
pub const RATE_PATTERN: &str = "^0*([1-9][0-9]{0,5}|1000000)/(s|sec|min|m)$";
/// What a rate is shown as ([`RateLimit`]'s `Display`, the API's `rateLimit`).
pub const SHOWN_RATE_PATTERN: &str = "^([1-9][0-9]{0,5}|1000000)/(s|min)$";

/// N requests per period, with a burst of N.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimit {
    pub requests: NonZeroU32,
    pub period: Duration,
}

impl RateLimit {
    /// `N/s` or `N/min` (also `N/sec`, `N/m`), N from 1 to [`MAX_RATE`].
    pub fn parse(s: &str) -> Result<RateLimit, String> {
        let usage = "expected N/s or N/min, e.g. 100/s or 600/min";
        let Some((n, unit)) = s.split_once('/') else {
            return Err(format!("{s:?} is not a rate: {usage}"));
        };
        let period = match unit {
            "s" | "sec" => Duration::from_secs(1),
            "min" | "m" => Duration::from_secs(60),
            _ => {
                return Err(format!(
                    "unknown period {unit:?} in {s:?}: {usage} (per second or per minute)"
                ))
            }
        };
        if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
            return Err(format!("{s:?} is not a rate: {usage}"));
        }
        let n: u64 = n
            .parse()
            .map_err(|_| format!("{s:?}: at most {MAX_RATE} requests per period"))?;
        if n == 0 {
            return Err(format!(
                "{s:?} allows no request at all: the rate must be at least 1 (leave \
                 --rate-limit out to turn limiting off)"
            ));
        }
        if n > u64::from(MAX_RATE) {
            return Err(format!("{s:?}: at most {MAX_RATE} requests per period"));
        }
        let requests = NonZeroU32::new(n as u32).expect("n is between 1 and MAX_RATE");
        Ok(RateLimit { requests, period })
    }
}

impl RateLimit {
    /// Whether this rate allows nothing another does not: no larger burst and no faster
    /// refill. `10/s` and `600/min` refill alike, but `600/min` bursts 600 at once, so it
    /// is not within `10/s` (the no-broader rule of per-key limits).
    pub fn within(self, other: RateLimit) -> bool {
        self.requests <= other.requests && self.per_request() >= other.per_request()
    }

    /// The time one request's share of the bucket takes to come back (period / N).
    pub fn per_request(self) -> Duration {
        self.period / self.requests.get()
    }
}

impl serde::Serialize for RateLimit {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl fmt::Display for RateLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let unit = if self.period.as_secs() == 60 {
            "min"
        } else {
            "s"
        };
        write!(f, "{}/{unit}", self.requests)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_second_and_per_minute_parse() {
        let r = RateLimit::parse("100/s").unwrap();
        assert_eq!(r.requests.get(), 100);
        assert_eq!(r.period, Duration::from_secs(1));
        assert_eq!(
            RateLimit::parse("5/min").unwrap().period,
            Duration::from_secs(60)
        );
        assert_eq!(RateLimit::parse("5/min").unwrap().to_string(), "5/min");
        assert_eq!(
            RateLimit::parse("1000000/s").unwrap().requests.get(),
            MAX_RATE
        );
    }

    #[test]
    fn a_rate_is_within_another_when_neither_its_burst_nor_its_refill_is_larger() {
        let r = |s: &str| RateLimit::parse(s).unwrap();
        assert!(r("10/s").within(r("10/s")));
        assert!(r("5/s").within(r("10/s")));
        assert!(r("10/min").within(r("10/s")));
        assert!(!r("11/s").within(r("10/s")), "a larger burst");
        assert!(
            !r("600/min").within(r("10/s")),
            "the same refill, a larger burst"
        );
        assert!(!r("10/s").within(r("10/min")), "a faster refill");
        assert!(r("10/min").within(r("600/min")));
        assert_eq!(serde_json::to_value(r("7/min")).unwrap(), "7/min");
    }

    #[test]
    fn the_patterns_agree_with_the_parser() {
        let taken = regex::Regex::new(RATE_PATTERN).unwrap();
        let shown = regex::Regex::new(SHOWN_RATE_PATTERN).unwrap();
        for n in [
            "0",
            "1",
            "01",
            "9",
            "10",
            "999999",
            "1000000",
            "1000001",
            "0001000000",
            "",
            "-1",
            "+1",
            "1.5",
        ] {
            for unit in ["s", "sec", "min", "m", "h", "S", ""] {
                let s = format!("{n}/{unit}");
                let parsed = RateLimit::parse(&s);
                assert_eq!(taken.is_match(&s), parsed.is_ok(), "{s}");
                if let Ok(r) = parsed {
                    assert!(shown.is_match(&r.to_string()), "{s} shown as {r}");
                }
            }
        }
    }

    #[test]
    fn bad_rates_are_refused_with_a_reason() {
        for (bad, says) in [
            ("0/s", "at least 1"),
            ("10/hour", "unknown period"),
            ("abc", "not a rate"),
            ("/s", "not a rate"),
            ("-1/s", "not a rate"),
            ("+1/s", "not a rate"),
            ("1.5/s", "not a rate"),
            ("10/", "unknown period"),
            ("1000001/s", "at most"),
            ("99999999999999999999999/s", "at most"),
            ("", "not a rate"),
        ] {
            let e = RateLimit::parse(bad).expect_err(bad);
            assert!(e.contains(says), "{bad}: {e}");
        }
    }
}
