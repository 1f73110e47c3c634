//! Retention: what is old enough to delete, and deleting it in small batches.
//!
//! "Older than the retention" is judged per table by the time its row last mattered: an
//! attempt by `attempted_at`, a delivery by `updated_at` (when it finished; a pending one is
//! never deleted), an event by `created_at`, and only once no delivery refers to it any more.
//! A row is old when that time is strictly before `now - retention`.
//!
//! Each batch is one short write transaction of at most [`BATCH`] rows, so the write lock is
//! never held for long; the steps run in [`STEPS`] order (attempts first, so the counts are
//! what each step deleted, not what a cascade took with it).

use serde::ser::{Serialize, SerializeMap, Serializer};

use crate::error::Result;
use crate::store::{Conn, Store, StoreResult};
use crate::time::Timestamp;

/// Rows deleted per transaction. Deliveries and events have random ids, so each row deleted
/// touches index pages of its own: 100 rows keep a batch to a few milliseconds (500 took
/// about 10 ms of CPU in `bench/retention.sh`).
pub const BATCH: usize = 100;

/// The retention when none is given: 30 days.
pub const DEFAULT_RETENTION: &str = "30d";
/// The shortest retention accepted, in milliseconds (one second: short enough for a
/// benchmark; nothing pending is ever pruned, so a short one loses only history).
pub const MIN_RETENTION_MS: i64 = 1_000;

/// One batch of one table: deletes at most `limit` rows older than the cutoff.
pub type Step = fn(Conn<'_>, Timestamp, usize) -> StoreResult<u64>;

/// Every prunable table, by the name its count has in `prune`'s output, in the order they
/// are pruned. A new prunable table is one more line here (and its method in
/// [`RetentionQueries`](crate::store::RetentionQueries)).
pub const STEPS: &[(&str, Step)] = &[
    ("attempts", |c, cutoff, n| c.prune_attempts(cutoff, n)),
    ("deliveries", |c, cutoff, n| c.prune_deliveries(cutoff, n)),
    ("events", |c, cutoff, n| c.prune_events(cutoff, n)),
];

/// Tables pruned with the same batches after [`STEPS`], whose counts `prune` does not print
/// (its output is pinned to the three tables above): the audit log, kept as
/// long as events, and idempotency records (of events and of webhook requests), which hold their key for 24 hours
/// and are kept the retention past that (so a short retention never frees a key early);
/// then the developer portal's sessions that ended (at their 8 hours) and its links that
/// ended (opened, expired or revoked) and have no session left, each kept the retention past
/// its end (sessions first: a link goes only after its sessions).
pub const ALSO: &[Step] = &[
    |c, cutoff, n| c.prune_audit(cutoff, n),
    |c, cutoff, n| c.prune_idempotency(super::events::stale_before(cutoff), n),
    |c, cutoff, n| c.prune_requests(super::events::stale_before(cutoff), n),
    |c, cutoff, n| c.prune_portal_sessions(cutoff, n),
    |c, cutoff, n| c.prune_portal_links(cutoff, n),
];

/// How many rows each step deleted, in [`STEPS`] order; serialised as an object
/// (`{"attempts": 3, "deliveries": 2, "events": 1}`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pruned(pub Vec<(&'static str, u64)>);

impl Pruned {
    /// The count of the step named `name` (0 if there is none).
    pub fn get(&self, name: &str) -> u64 {
        self.0
            .iter()
            .find(|(n, _)| *n == name)
            .map_or(0, |(_, c)| *c)
    }

    pub fn total(&self) -> u64 {
        self.0.iter().map(|(_, c)| c).sum()
    }
}

impl Serialize for Pruned {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (name, count) in &self.0 {
            m.serialize_entry(name, count)?;
        }
        m.end()
    }
}

/// The retention given as a duration (`30d`, `12h`): at least [`MIN_RETENTION_MS`].
pub fn parse_retention(s: &str) -> std::result::Result<i64, String> {
    let ms = crate::time::parse_duration(s)?;
    if ms < MIN_RETENTION_MS {
        return Err("must be at least 1s".into());
    }
    Ok(ms)
}

/// The cutoff of a retention of `retention` at `now`: what is older is deleted.
pub fn cutoff(now: Timestamp, retention: std::time::Duration) -> Timestamp {
    now.add_millis(-i64::try_from(retention.as_millis()).unwrap_or(i64::MAX))
}

/// Deletes everything older than `cutoff` (see the module doc), batch by batch. After each
/// batch `between` is called: it may pause to let other writers in, and returns `false` to
/// stop early (what was deleted so far is reported).
pub fn prune(
    store: &Store,
    cutoff: Timestamp,
    batch: usize,
    between: &mut dyn FnMut() -> bool,
) -> Result<Pruned> {
    let batch = batch.max(1);
    let mut done = Vec::with_capacity(STEPS.len());
    let mut go_on = true;
    let steps = STEPS.iter().map(|(name, step)| (Some(*name), step));
    for (name, step) in steps.chain(ALSO.iter().map(|step| (None, step))) {
        let mut count = 0;
        while go_on {
            let n = store.write(|c| Ok(step(c, cutoff, batch)?))?;
            count += n;
            go_on = between();
            if n < batch as u64 {
                break;
            }
        }
        if let Some(name) = name {
            done.push((name, count));
        }
    }
    Ok(Pruned(done))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_serialise_as_an_object_in_step_order() {
        let p = Pruned(vec![("attempts", 3), ("deliveries", 2), ("events", 1)]);
        assert_eq!(
            serde_json::to_string(&p).unwrap(),
            r#"{"attempts":3,"deliveries":2,"events":1}"#
        );
        assert_eq!(p.get("events"), 1);
        assert_eq!(p.total(), 6);
    }

    #[test]
    fn retention_has_a_floor() {
        assert_eq!(parse_retention("30d"), Ok(30 * 86_400_000));
        assert_eq!(parse_retention("1s"), Ok(1_000));
        assert!(parse_retention("999ms")
            .unwrap_err()
            .contains("at least 1s"));
        assert!(parse_retention("0s").is_err());
        assert!(parse_retention("soon").is_err());
    }
}
