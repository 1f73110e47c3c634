//! Reads and claims that only tests need, written over the storage port's own methods so that
//! the port itself stays what the program calls.

use keyhook_core::model::ApiKey;
use keyhook_core::store::{Claimed, CopyQueries, OutboxQueries, ReadAhead, Storage, StoreResult};
use keyhook_core::tables::{Cell, TABLES};
use keyhook_core::time::Timestamp;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The key whose hash is `key_hash`, as the store answers a request's key (with nothing read
/// ahead), owned.
pub trait KeyByHash {
    fn key_by_hash(&self, key_hash: &str) -> StoreResult<Option<ApiKey>>;
}

impl<S: Storage + ?Sized> KeyByHash for S {
    fn key_by_hash(&self, key_hash: &str) -> StoreResult<Option<ApiKey>> {
        Ok(self
            .key_by_hash_ahead(key_hash, ReadAhead::Nothing)?
            .map(Arc::unwrap_or_clone))
    }
}

/// Claims due deliveries as a worker does, without a bound on their payloads.
pub trait ClaimDue {
    fn claim_due(
        &self,
        now: Timestamp,
        limit: usize,
        lease_until: Timestamp,
        only: Option<&str>,
    ) -> StoreResult<Vec<Claimed>>;
}

impl<C: OutboxQueries + ?Sized> ClaimDue for C {
    fn claim_due(
        &self,
        now: Timestamp,
        limit: usize,
        lease_until: Timestamp,
        only: Option<&str>,
    ) -> StoreResult<Vec<Claimed>> {
        self.claim_due_within(now, limit, usize::MAX, lease_until, only)
    }
}

/// How many deliveries there are in each state that has any, ordered by state, read through
/// `db copy`'s whole-table reads.
pub trait DeliveryCounts {
    fn delivery_counts(&self) -> StoreResult<Vec<(String, i64)>>;
}

impl<C: CopyQueries + ?Sized> DeliveryCounts for C {
    fn delivery_counts(&self) -> StoreResult<Vec<(String, i64)>> {
        let table = TABLES
            .iter()
            .find(|t| t.name == "deliveries")
            .expect("db copy knows the deliveries table");
        let state = table
            .columns
            .iter()
            .position(|(c, _)| *c == "state")
            .expect("deliveries have a state");
        let order = table.order_index();
        let mut counts = BTreeMap::<String, i64>::new();
        let mut after: Option<Cell> = None;
        loop {
            let rows = self.read_rows(table, after.as_ref(), 1000)?;
            let Some(last) = rows.last() else { break };
            after = Some(last[order].clone());
            for row in &rows {
                if let Cell::Text(s) = &row[state] {
                    *counts.entry(s.clone()).or_default() += 1;
                }
            }
        }
        Ok(counts.into_iter().collect())
    }
}
