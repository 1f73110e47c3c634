//! Time as the store keeps it (milliseconds since the Unix epoch, UTC) and as the API shows it
//! (RFC 3339 UTC with milliseconds: `2026-11-22T03:47:36.123Z`).

use std::fmt;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

use chrono::{DateTime, SecondsFormat, TimeZone, Utc};
use serde::{Serialize, Serializer};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(pub i64);

impl Timestamp {
    /// The system's time. Only [`Clock::system`] reads it: everything else takes the time from
    /// the [`Clock`] it was handed (services from a `now` parameter), so tests can move it.
    pub fn now() -> Self {
        Timestamp(Utc::now().timestamp_millis())
    }

    pub fn millis(self) -> i64 {
        self.0
    }

    pub fn add_millis(self, ms: i64) -> Self {
        Timestamp(self.0.saturating_add(ms))
    }

    pub fn to_datetime(self) -> DateTime<Utc> {
        Utc.timestamp_millis_opt(self.0)
            .single()
            .unwrap_or(DateTime::<Utc>::MAX_UTC)
    }

    pub fn to_rfc3339(self) -> String {
        self.to_datetime()
            .to_rfc3339_opts(SecondsFormat::Millis, true)
    }

    /// Parses RFC 3339 with an explicit offset (`Z` or `+02:00`); sub-millisecond digits are
    /// truncated. A time without an offset is refused: it would be ambiguous. So are the
    /// space that chrono also takes between date and time (JSON Schema's `date-time` does
    /// not) and a time whose UTC year is past 9999 (`9999-12-31T23:59:59-23:59`), which could
    /// not be shown in RFC 3339 again.
    pub fn parse_rfc3339(s: &str) -> Option<Self> {
        if !matches!(s.as_bytes().get(10), Some(b'T' | b't')) {
            return None;
        }
        let dt = DateTime::parse_from_rfc3339(s).ok()?;
        let t = Timestamp(dt.with_timezone(&Utc).timestamp_millis());
        (t <= Timestamp::MAX_RFC3339).then_some(t)
    }

    /// 9999-12-31T23:59:59.999Z, the last instant RFC 3339 can write.
    pub const MAX_RFC3339: Timestamp = Timestamp(253_402_300_799_999);
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_rfc3339())
    }
}

/// Where the current time comes from. The services never read it: they take `now`. The front
/// ends and the delivery worker read it from the clock they are handed, which is the system's
/// except in tests ([`ManualClock`]; and, in debug builds only, the test clock file of
/// `config::clock`). Deadlines and timeouts are measured with `Instant`, never with a clock.
#[derive(Clone, Default)]
pub struct Clock {
    /// `None`: the system's time.
    read: Option<Arc<dyn Fn() -> Timestamp + Send + Sync>>,
}

impl Clock {
    pub fn system() -> Clock {
        Clock::default()
    }

    /// A clock whose time is whatever `read` returns: a test's.
    pub fn reading(read: impl Fn() -> Timestamp + Send + Sync + 'static) -> Clock {
        Clock {
            read: Some(Arc::new(read)),
        }
    }

    pub fn now(&self) -> Timestamp {
        match &self.read {
            None => Timestamp::now(),
            Some(read) => read(),
        }
    }
}

impl fmt::Debug for Clock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self.read {
            None => "Clock(system)",
            Some(_) => "Clock(test)",
        })
    }
}

/// A clock that stands still until it is set or advanced, for tests: clones share the time.
#[derive(Debug, Clone)]
pub struct ManualClock(Arc<AtomicI64>);

impl ManualClock {
    pub fn new(at: Timestamp) -> ManualClock {
        ManualClock(Arc::new(AtomicI64::new(at.millis())))
    }

    pub fn now(&self) -> Timestamp {
        Timestamp(self.0.load(Ordering::SeqCst))
    }

    pub fn set(&self, at: Timestamp) {
        self.0.store(at.millis(), Ordering::SeqCst);
    }

    pub fn advance(&self, ms: i64) {
        self.set(self.now().add_millis(ms));
    }

    /// A [`Clock`] that shows this one's time, to hand to what is tested.
    pub fn clock(&self) -> Clock {
        let at = Arc::clone(&self.0);
        Clock::reading(move || Timestamp(at.load(Ordering::SeqCst)))
    }
}

/// Parses a duration such as `90s`, `15m`, `12h`, `30d`, `2w` or `1h30m` into milliseconds.
/// Zero and overflowing durations are refused.
pub fn parse_duration(s: &str) -> Result<i64, String> {
    let s = s.trim();
    if s.is_empty() {
        return Err("empty duration".into());
    }
    if s.starts_with('-') {
        return Err(format!("duration {s:?} is negative"));
    }
    let mut total: i64 = 0;
    let mut digits = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_ascii_digit() {
            digits.push(c);
            continue;
        }
        let unit: i64 = match c {
            'm' if chars.peek() == Some(&'s') => {
                chars.next();
                1
            }
            's' => 1_000,
            'm' => 60_000,
            'h' => 3_600_000,
            'd' => 86_400_000,
            'w' => 604_800_000,
            _ => {
                return Err(format!(
                    "unknown unit {c:?} in duration {s:?} (use ms, s, m, h, d or w)"
                ))
            }
        };
        if digits.is_empty() {
            return Err(format!("a number must come before {c:?} in duration {s:?}"));
        }
        let n: i64 = digits
            .parse()
            .map_err(|_| format!("duration {s:?} is too long"))?;
        digits.clear();
        total = n
            .checked_mul(unit)
            .and_then(|v| total.checked_add(v))
            .ok_or_else(|| format!("duration {s:?} is too long"))?;
    }
    if !digits.is_empty() {
        return Err(format!(
            "duration {s:?} needs a unit (ms, s, m, h, d or w), e.g. 30d"
        ));
    }
    // Beyond ~100 years nothing useful happens and timestamps start to overflow.
    if total > 100 * 366 * 86_400_000 {
        return Err(format!("duration {s:?} is too long"));
    }
    if total == 0 {
        return Err("duration must be greater than zero".into());
    }
    Ok(total)
}

/// As [`parse_duration`], and zero too (`0`, `0s`, `0h`...), where it means now: a grace
/// period that ends at once, everything finished or expired up to now.
pub fn parse_duration_or_zero(s: &str) -> Result<i64, String> {
    let t = s.trim();
    let unit = t.trim_start_matches('0');
    if unit.len() < t.len() && ["", "ms", "s", "m", "h", "d", "w"].contains(&unit) {
        return Ok(0);
    }
    parse_duration(s)
}

/// The moment a `since` names (`webhooks replay --since`, `audit --since`, GET /audit's
/// `?since`): an RFC 3339 date-time, or a duration (`90m`, `7d`) back from `now`; never after
/// `now`. Else the rule's message.
pub fn parse_since(s: &str, now: Timestamp) -> Result<Timestamp, String> {
    let at = match Timestamp::parse_rfc3339(s) {
        Some(t) => t,
        None => {
            let looks_like_duration = s.trim().starts_with(|c: char| c.is_ascii_digit());
            match parse_duration(s) {
                Ok(ms) => now.add_millis(-ms),
                Err(m) if looks_like_duration && !s.contains('T') => return Err(m),
                Err(_) => {
                    return Err("must be an RFC 3339 date-time (2026-01-01T00:00:00Z) or a \
                                duration back from now (90m, 7d)"
                        .into())
                }
            }
        }
    };
    if at > now {
        return Err("must not be in the future".into());
    }
    Ok(at)
}

#[cfg(test)]
mod tests {
    #[test]
    fn since_takes_a_past_timestamp_or_a_duration_back() {
        use super::{parse_since, Timestamp};
        let now = Timestamp::parse_rfc3339("2026-11-23T12:00:00Z").unwrap();
        assert_eq!(parse_since("1h", now), Ok(now.add_millis(-3_600_000)));
        assert_eq!(
            parse_since("2026-01-01T00:00:00Z", now),
            Ok(Timestamp::parse_rfc3339("2026-01-01T00:00:00Z").unwrap())
        );
        assert_eq!(parse_since("2026-11-23T12:00:00Z", now), Ok(now));
        for bad in ["soon", "", "0s", "2026-01-01", "yesterday", "-1h"] {
            assert!(parse_since(bad, now).is_err(), "{bad}");
        }
        for future in ["2026-11-23T12:00:00.001Z", "2030-01-01T00:00:00Z"] {
            assert_eq!(
                parse_since(future, now),
                Err("must not be in the future".into()),
                "{future}"
            );
        }
    }

    use super::*;

    #[test]
    fn formats_utc_with_millis() {
        assert_eq!(
            Timestamp(1_795_000_056_123).to_rfc3339(),
            "2026-11-18T11:07:36.123Z"
        );
        assert_eq!(Timestamp(0).to_rfc3339(), "1970-01-01T00:00:00.000Z");
    }

    #[test]
    fn parses_offsets_and_requires_one() {
        let z = Timestamp::parse_rfc3339("2030-01-01T00:00:00Z").unwrap();
        let plus = Timestamp::parse_rfc3339("2030-01-01T02:00:00+02:00").unwrap();
        assert_eq!(z, plus);
        assert!(Timestamp::parse_rfc3339("2030-01-01T00:00:00").is_none());
        assert!(Timestamp::parse_rfc3339("2030-01-01").is_none());
        assert!(Timestamp::parse_rfc3339("tomorrow").is_none());
        assert!(Timestamp::parse_rfc3339("2030-01-01 00:00:00Z").is_none());
        assert_eq!(
            Timestamp::parse_rfc3339("2030-01-01t00:00:00z"),
            Some(z),
            "RFC 3339 allows lower case"
        );
        let last = Timestamp::parse_rfc3339("9999-12-31T23:59:59.999Z").unwrap();
        assert_eq!(last, Timestamp::MAX_RFC3339);
        assert_eq!(last.to_rfc3339(), "9999-12-31T23:59:59.999Z");
        assert!(Timestamp::parse_rfc3339("9999-12-31T23:59:59-23:59").is_none());
        assert!(Timestamp::parse_rfc3339("+10000-01-01T00:00:00Z").is_none());
    }

    #[test]
    fn the_system_clock_shows_the_system_time() {
        let before = Timestamp::now();
        let read = Clock::system().now();
        assert!(before <= read && read <= Timestamp::now());
        assert_eq!(format!("{:?}", Clock::default()), "Clock(system)");
    }

    #[test]
    fn a_manual_clock_moves_only_when_moved_and_its_clocks_follow() {
        let hand = ManualClock::new(Timestamp(1_000));
        let clock = hand.clock();
        let copy = clock.clone();
        assert_eq!(clock.now(), Timestamp(1_000));
        hand.advance(1);
        assert_eq!(
            (clock.now(), copy.now()),
            (Timestamp(1_001), Timestamp(1_001))
        );
        hand.set(Timestamp(-5));
        assert_eq!(copy.now(), Timestamp(-5));
        hand.clone().advance(i64::MAX);
        assert_eq!(
            clock.now(),
            Timestamp(i64::MAX - 5),
            "saturates like add_millis"
        );
        assert_eq!(format!("{clock:?}"), "Clock(test)");
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("90s"), Ok(90_000));
        assert_eq!(parse_duration("1h30m"), Ok(5_400_000));
        assert_eq!(parse_duration("2w"), Ok(1_209_600_000));
        assert_eq!(parse_duration("30d"), Ok(2_592_000_000));
        assert_eq!(parse_duration("250ms"), Ok(250));
        assert_eq!(parse_duration("1m30s"), Ok(90_000));
        for bad in [
            "",
            "0s",
            "5",
            "h",
            "5x",
            "-5m",
            "99999999999999999999d",
            "1000000w",
        ] {
            assert!(parse_duration(bad).is_err(), "{bad} should be refused");
        }
        assert_eq!(
            parse_duration("-5m"),
            Err("duration \"-5m\" is negative".into())
        );
    }

    #[test]
    fn durations_from_zero() {
        for zero in ["0", "0s", "00ms", "0h", " 0d "] {
            assert_eq!(parse_duration_or_zero(zero), Ok(0), "{zero}");
        }
        assert_eq!(parse_duration_or_zero("90s"), Ok(90_000));
        for bad in ["", "-0s", "-1s", "0x", "s", "0.5s"] {
            assert!(
                parse_duration_or_zero(bad).is_err(),
                "{bad} should be refused"
            );
        }
    }
}
