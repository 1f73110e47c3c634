//! Whole tables, in batches, for `db copy`: [`CopyQueries`].

use super::StoreResult;
use crate::tables::{Cell, Table};

/// Whole tables, in batches, for `db copy` ([`crate::tables::TABLES`]).
pub trait CopyQueries {
    /// How many rows `table` holds.
    fn count_rows(&self, table: &Table) -> StoreResult<u64>;
    /// At most `limit` rows of `table`, each a cell per column in [`Table::columns`] order,
    /// ordered by [`Table::order_by`], starting after the row whose `order_by` value is
    /// `after` (from the first row when `None`).
    fn read_rows(
        &self,
        table: &Table,
        after: Option<&Cell>,
        limit: usize,
    ) -> StoreResult<Vec<Vec<Cell>>>;
    /// Inserts `rows` (as [`read_rows`](CopyQueries::read_rows) gives them) into `table`,
    /// keeping every value, ids included; a backend whose ids come from a sequence moves the
    /// sequence past them.
    fn write_rows(&self, table: &Table, rows: &[Vec<Cell>]) -> StoreResult<()>;
    /// Deletes every row of `table` (a seeded one, `Table::is_seeded`, before the source's
    /// rows replace it).
    fn clear_rows(&self, table: &Table) -> StoreResult<()>;
}
