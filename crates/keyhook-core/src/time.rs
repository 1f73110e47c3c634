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
        // The milliseconds since the epoch straight from the system clock: `Utc::now()`
        // made a calendar date of it first (~200 instructions a request).
        let since = |d: std::time::Duration| i64::try_from(d.as_millis()).unwrap_or(i64::MAX);
        match std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
            Ok(after) => Timestamp(since(after)),
            // A clock set before 1970: the milliseconds before it, negative.
            Err(before) => Timestamp(-since(before.duration())),
        }
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
        let mut buf = [0; RFC3339_LEN];
        match self.write_rfc3339(&mut buf) {
            Some(text) => text.to_owned(),
            None => self
                .to_datetime()
                .to_rfc3339_opts(SecondsFormat::Millis, true),
        }
    }

    /// `YYYY-MM-DDTHH:MM:SS.mmmZ` written into `buf` without chrono, for a time from the
    /// epoch to [`Timestamp::MAX_RFC3339`] (every time the store holds; `None` for another):
    /// every timestamp of every JSON response goes through here, and chrono's formatter
    /// costs about five times as much. The same text as chrono's (a test compares them).
    fn write_rfc3339(self, buf: &mut [u8; RFC3339_LEN]) -> Option<&str> {
        if !(0..=Self::MAX_RFC3339.0).contains(&self.0) {
            return None;
        }
        let (secs, ms) = (self.0 / 1000, self.0 % 1000);
        let (days, second_of_day) = (secs / 86_400, secs % 86_400);
        let (year, month, day) = civil_from_days(days);
        let mut put = |at: usize, width: usize, mut n: i64| {
            for i in (at..at + width).rev() {
                buf[i] = b'0' + (n % 10) as u8;
                n /= 10;
            }
        };
        put(0, 4, year);
        put(5, 2, month);
        put(8, 2, day);
        put(11, 2, second_of_day / 3600);
        put(14, 2, second_of_day / 60 % 60);
        put(17, 2, second_of_day % 60);
        put(20, 3, ms);
        for (at, c) in [
            (4, b'-'),
            (7, b'-'),
            (10, b'T'),
            (13, b':'),
            (16, b':'),
            (19, b'.'),
        ] {
            buf[at] = c;
        }
        buf[23] = b'Z';
        std::str::from_utf8(buf).ok()
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

/// The length of `2026-11-22T03:47:36.123Z`.
const RFC3339_LEN: usize = 24;

/// The proleptic Gregorian (year, month, day) of `days` after 1970-01-01, for `days >= 0`
/// (Howard Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let day_of_era = z - era * 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let shifted_month = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * shifted_month + 2) / 5 + 1;
    let month = if shifted_month < 10 {
        shifted_month + 3
    } else {
        shifted_month - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut buf = [0; RFC3339_LEN];
        match self.write_rfc3339(&mut buf) {
            Some(text) => s.serialize_str(text),
            None => s.serialize_str(&self.to_rfc3339()),
        }
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
    /// The system's time read without chrono is chrono's, to the millisecond.
    #[test]
    fn the_system_time_is_chronos_to_the_millisecond() {
        let before = chrono::Utc::now().timestamp_millis();
        let now = super::Timestamp::now().millis();
        let after = chrono::Utc::now().timestamp_millis();
        assert!((before..=after).contains(&now), "{before} {now} {after}");
    }

    /// The formatter without chrono writes what chrono writes, at the edges of its range,
    /// around leap days and month ends, and at a spread of times in between.
    #[test]
    fn rfc3339_text_is_chrono_s() {
        use super::Timestamp;
        use chrono::SecondsFormat;
        let chrono_text =
            |t: Timestamp| t.to_datetime().to_rfc3339_opts(SecondsFormat::Millis, true);
        let mut times = vec![
            0,
            1,
            999,
            1000,
            86_399_999,
            86_400_000,
            Timestamp::MAX_RFC3339.0,
        ];
        for text in [
            "2000-02-28T23:59:59.999Z",
            "2000-02-29T00:00:00Z",
            "2000-03-01T00:00:00Z",
            "2100-02-28T12:00:00Z",
            "2100-03-01T00:00:00.001Z",
            "2024-12-31T23:59:59.999Z",
            "2026-11-22T03:47:36.123Z",
            "9999-12-31T00:00:00Z",
        ] {
            times.push(Timestamp::parse_rfc3339(text).unwrap().0);
        }
        // A linear congruential walk over the whole range.
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..200_000 {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            times.push((x >> 1) as i64 % (Timestamp::MAX_RFC3339.0 + 1));
        }
        for t in times.into_iter().map(Timestamp) {
            assert_eq!(t.to_rfc3339(), chrono_text(t), "{t:?}");
            assert_eq!(
                serde_json::to_string(&t).unwrap(),
                format!("\"{}\"", chrono_text(t))
            );
        }
        // Outside the range: chrono's text, as before.
        let before = Timestamp(-1);
        assert_eq!(before.to_rfc3339(), chrono_text(before));
    }

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
