//! A webhook's own delivery settings (CONTRACT §15): its retry schedule and its timeout,
//! which override `serve`'s, bounded as `serve`'s own flags are. One rule for the CLI and
//! HTTP: both front ends convert through these types.

use crate::time::parse_duration;

/// At most this many retries in a schedule (`serve --retry-schedule` too).
pub const MAX_RETRIES: usize = 50;
/// The longest timeout of one attempt (`--delivery-timeout` too): 10 minutes.
pub const MAX_TIMEOUT_MS: i64 = 600_000;
/// How long a receiver's `Retry-After` (on a 429 or 503) holds a webhook's deliveries at
/// most: a day. A longer one holds for a day.
pub const MAX_RETRY_AFTER_MS: i64 = 24 * 60 * 60 * 1000;

/// Delays before each retry as `serve --retry-schedule` takes them (`5s,5m,30m`), in
/// milliseconds: each a duration above zero, at most [`MAX_RETRIES`] of them; an empty (or
/// blank) string is no retry at all.
pub fn parse_retry_delays(s: &str) -> Result<Vec<i64>, String> {
    let s = s.trim();
    if s.is_empty() {
        return Ok(Vec::new());
    }
    let delays = s
        .split(',')
        .map(|d| parse_duration(d.trim()))
        .collect::<Result<Vec<_>, _>>()?;
    if delays.len() > MAX_RETRIES {
        return Err(format!("at most {MAX_RETRIES} retries"));
    }
    Ok(delays)
}

/// A timeout of one attempt as `--delivery-timeout` takes it (`30s`), in milliseconds.
pub fn parse_timeout(s: &str) -> Result<i64, String> {
    check_timeout_ms(parse_duration(s)?)
}

/// A timeout in milliseconds: above zero, at most [`MAX_TIMEOUT_MS`].
pub fn check_timeout_ms(ms: i64) -> Result<i64, String> {
    if ms <= 0 {
        return Err("must be above zero".into());
    }
    if ms > MAX_TIMEOUT_MS {
        return Err("at most 10m (600000 ms)".into());
    }
    Ok(ms)
}

/// A webhook's retry schedule: the delays as written (each a duration, `5s`, `1h30m`),
/// checked. Stored and shown as written; the worker reads the delays with
/// [`RetrySchedule::delays`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetrySchedule(pub Vec<String>);

impl RetrySchedule {
    /// A list (`retrySchedule` over HTTP): each entry a duration.
    pub fn new(list: Vec<String>) -> Result<RetrySchedule, String> {
        if list.len() > MAX_RETRIES {
            return Err(format!("at most {MAX_RETRIES} retries"));
        }
        let mut out = Vec::with_capacity(list.len());
        for (i, d) in list.iter().enumerate() {
            if d.trim() != d {
                return Err(format!("entry {i}: a duration without spaces around it"));
            }
            parse_duration(d).map_err(|m| format!("entry {i}: {m}"))?;
            out.push(d.clone());
        }
        Ok(RetrySchedule(out))
    }

    /// A comma-separated list (`--retry-schedule 5s,1m`; empty: no retries).
    pub fn parse(s: &str) -> Result<RetrySchedule, String> {
        parse_retry_delays(s)?;
        let s = s.trim();
        if s.is_empty() {
            return Ok(RetrySchedule(Vec::new()));
        }
        Ok(RetrySchedule(
            s.split(',').map(|d| d.trim().to_string()).collect(),
        ))
    }

    /// The delays in milliseconds, `None` when a stored entry no longer parses.
    pub fn delays(list: &[String]) -> Option<Vec<i64>> {
        list.iter().map(|d| parse_duration(d).ok()).collect()
    }
}

/// A timeout of one attempt to a webhook, in milliseconds, checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeout(pub i64);

impl Timeout {
    pub fn new(ms: i64) -> Result<Timeout, String> {
        check_timeout_ms(ms).map(Timeout)
    }

    /// As `--timeout 30s` takes it.
    pub fn parse(s: &str) -> Result<Timeout, String> {
        parse_timeout(s).map(Timeout)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedules_are_bounded_as_serves() {
        assert_eq!(parse_retry_delays("100ms, 2s").unwrap(), vec![100, 2000]);
        assert_eq!(parse_retry_delays(" ").unwrap(), Vec::<i64>::new());
        assert!(parse_retry_delays("5s,,5m").is_err());
        assert!(parse_retry_delays("0s").is_err());
        let many = vec!["1s"; 51].join(",");
        assert!(parse_retry_delays(&many).is_err());
        assert!(RetrySchedule::parse(&many).is_err());
        assert!(RetrySchedule::new(vec!["1s".into(); 51]).is_err());
        assert_eq!(
            RetrySchedule::parse(" 1s , 5m").unwrap(),
            RetrySchedule(vec!["1s".into(), "5m".into()])
        );
        assert!(RetrySchedule::new(vec![" 1s".into()]).is_err());
        let e = RetrySchedule::new(vec!["1s".into(), "soon".into()]).unwrap_err();
        assert!(e.starts_with("entry 1:"), "{e}");
        assert_eq!(
            RetrySchedule::delays(&["1s".into(), "2m".into()]),
            Some(vec![1000, 120_000])
        );
    }

    #[test]
    fn timeouts_are_bounded_as_serves() {
        assert_eq!(Timeout::parse("30s"), Ok(Timeout(30_000)));
        assert_eq!(Timeout::parse("10m"), Ok(Timeout(600_000)));
        assert!(Timeout::parse("11m").is_err());
        assert!(Timeout::parse("0s").is_err());
        assert!(Timeout::new(0).is_err());
        assert!(Timeout::new(-5).is_err());
        assert!(Timeout::new(600_001).is_err());
        assert_eq!(Timeout::new(1), Ok(Timeout(1)));
    }
}
