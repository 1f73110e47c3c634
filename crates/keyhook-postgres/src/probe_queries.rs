//! What `serve`'s `/healthz` and `/metrics` ask the database: `keyhook-sqlite/src/probe_queries.rs`,
//! in PostgreSQL.

use super::PgStore;
use keyhook_core::store::{OpsQueries, StoreResult};
use keyhook_core::time::Timestamp;

impl OpsQueries for PgStore {
    /// A round trip to the server that reads one of keyhook's tables.
    fn ping(&self) -> StoreResult<()> {
        self.run(|s| {
            s.query("SELECT 1 FROM keyhook_schema LIMIT 1", &[])?;
            Ok(())
        })
    }

    fn outbox_backlog(&self) -> StoreResult<(u64, Option<Timestamp>)> {
        self.run(|s| {
            let row = s.query_one(
                concat!(
                    "SELECT count(*), min(created_at) FROM deliveries WHERE state = ",
                    keyhook_core::pending_state_sql!()
                ),
                &[],
            )?;
            let n: i64 = row.try_get(0)?;
            let oldest: Option<i64> = row.try_get(1)?;
            Ok((n.max(0) as u64, oldest.map(Timestamp)))
        })
    }
}
