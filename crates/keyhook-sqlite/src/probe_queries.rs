//! What `serve`'s `/healthz` and `/metrics` ask the database (ops HTTP).

use super::Conn;
use crate::error::sql;
use crate::time::Timestamp;
use keyhook_core::store::{OpsQueries, StoreResult};

impl OpsQueries for Conn {
    /// Reads the schema: a real read of the file (its first page), not a constant.
    fn ping(&self) -> StoreResult<()> {
        sql(|| {
            self.0
                .prepare_cached("SELECT count(*) FROM sqlite_schema")?
                .query_row([], |r| r.get::<_, i64>(0))?;
            Ok(())
        })
    }

    /// Over the `deliveries_due` partial index (pending rows only).
    fn outbox_backlog(&self) -> StoreResult<(u64, Option<Timestamp>)> {
        sql(|| {
            Ok(self
                .0
                .prepare_cached(concat!(
                    "SELECT count(*), min(created_at) FROM deliveries WHERE state = ",
                    keyhook_core::pending_state_sql!()
                ))?
                .query_row([], |r| {
                    Ok((
                        r.get::<_, i64>(0)?.max(0) as u64,
                        r.get::<_, Option<i64>>(1)?.map(Timestamp),
                    ))
                })?)
        })
    }
}
