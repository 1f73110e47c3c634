//! `db copy`: every table of one database into another, empty one, of either backend.
//! The source is read in one consistent snapshot ([`Store::read`]) and the
//! target written in one transaction ([`Store::write`]), table by table in
//! [`TABLES`] order, a batch at a time: memory holds one batch, however large the database,
//! and a copy that fails at any point commits nothing, so the target is left as empty as it
//! was found.

use serde::ser::{Serialize, SerializeMap, Serializer};

use crate::error::{Error, Result};
use crate::store::{CopyQueries, Store, StoreError};
use crate::tables::{Cell, Table, TABLES};

/// The most rows read and written at once.
pub const BATCH_ROWS: usize = 1_000;

/// About the most bytes of row data a batch holds. The first batch of a table is
/// [`FIRST_BATCH_ROWS`]; later ones are as many rows as fit this budget at the size of the
/// largest row seen so far (event payloads run up to 64 KiB), at most [`BATCH_ROWS`].
pub const BATCH_BYTES: usize = 4 << 20;

/// The rows of a table's first batch: [`BATCH_BYTES`] of rows as large as any keyhook
/// writes (a 64 KiB event payload).
pub const FIRST_BATCH_ROWS: usize = BATCH_BYTES / (64 << 10);
const _: () = assert!(FIRST_BATCH_ROWS >= 1 && FIRST_BATCH_ROWS <= BATCH_ROWS);

/// How far the copy of one table is: `done` of its `total` rows. Reported for every table
/// (with `done` 0) once the source is counted, before any row is copied, then after each
/// batch. It names the table only: no value of a row ever reaches it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    pub table: &'static str,
    pub done: u64,
    pub total: u64,
}

/// What a copy wrote: the rows of each table, in [`TABLES`] order. Serialized as
/// `{"tables": {"users": N, "api_keys": N, ...}}` (the `--json` data of `db copy`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Copied {
    pub tables: Vec<(&'static str, u64)>,
}

impl Copied {
    /// Rows written, all tables together.
    pub fn rows(&self) -> u64 {
        self.tables.iter().map(|(_, n)| n).sum()
    }
}

impl Serialize for Copied {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        /// The tables as an object, in copy order.
        struct Tables<'a>(&'a [(&'static str, u64)]);
        impl Serialize for Tables<'_> {
            fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
                let mut m = s.serialize_map(Some(self.0.len()))?;
                for (table, rows) in self.0 {
                    m.serialize_entry(table, rows)?;
                }
                m.end()
            }
        }
        let mut m = s.serialize_map(Some(1))?;
        m.serialize_entry("tables", &Tables(&self.tables))?;
        m.end()
    }
}

/// Copies every row of `source` into `target`, which must hold none: a target with a row in
/// any table (but the rows every new database is seeded with, `tables::SEEDED`, which the
/// source's replace) is refused before anything is written (`Error::Validation` on the field
/// `target`; the CLI names its flag). `progress` hears how far each table is.
///
/// All or nothing: the target's rows are written in one transaction, committed only after
/// every table is copied and counted again in the target; any error rolls it back.
///
/// Copying a database onto itself cannot be told apart here from copying into another one:
/// a front end that can tell (the same file) refuses it first. A non-empty database is
/// refused as a target anyway, so a copy onto itself copies nothing at worst.
pub fn run(source: &Store, target: &Store, progress: &mut dyn FnMut(Progress)) -> Result<Copied> {
    target.write(|dst| {
        refuse_non_empty(dst)?;
        source.read(|src| {
            let totals = TABLES
                .iter()
                .map(|t| Ok((t, src.count_rows(t)?)))
                .collect::<Result<Vec<_>>>()?;
            for &(t, total) in &totals {
                progress(Progress {
                    table: t.name,
                    done: 0,
                    total,
                });
            }
            let mut copied = Vec::with_capacity(totals.len());
            for (t, total) in totals {
                let rows = copy_table(src, dst, t, total, progress)?;
                copied.push((t.name, rows));
            }
            Ok(Copied { tables: copied })
        })
    })
}

/// A target that holds any row is refused, naming the first table that does.
fn refuse_non_empty(dst: &(impl CopyQueries + ?Sized)) -> Result<()> {
    for t in TABLES.iter().filter(|t| !t.is_seeded()) {
        let n = dst.count_rows(t)?;
        if n > 0 {
            return Err(Error::validation(
                "target",
                format!(
                    "is not empty ({} holds {n} row{}); db copy writes only into an empty \
                     database",
                    t.name,
                    if n == 1 { "" } else { "s" }
                ),
            ));
        }
    }
    Ok(())
}

/// Copies `t` batch by batch, then checks that the target holds exactly the rows the source
/// snapshot counted (a backend that dropped a row without an error would otherwise go
/// unnoticed). Returns the rows copied.
fn copy_table(
    src: &(impl CopyQueries + ?Sized),
    dst: &(impl CopyQueries + ?Sized),
    t: &'static Table,
    total: u64,
    progress: &mut dyn FnMut(Progress),
) -> Result<u64> {
    if t.is_seeded() {
        // What every new database starts with gives way to what the source holds.
        dst.clear_rows(t)
            .map_err(|e| saying(e, &format!("clearing {} in the target", t.name)))?;
    }
    let key = t.order_index();
    let mut after: Option<Cell> = None;
    let mut limit = FIRST_BATCH_ROWS;
    let mut largest_row = 0;
    let mut done = 0u64;
    loop {
        let batch = src
            .read_rows(t, after.as_ref(), limit)
            .map_err(|e| saying(e, &format!("reading {} from the source", t.name)))?;
        if batch.is_empty() {
            break;
        }
        dst.write_rows(t, &batch)
            .map_err(|e| saying(e, &format!("writing {} into the target", t.name)))?;
        done += batch.len() as u64;
        progress(Progress {
            table: t.name,
            done,
            total,
        });
        let full = batch.len() == limit;
        largest_row = batch
            .iter()
            .map(|r| row_bytes(r))
            .fold(largest_row, usize::max);
        limit = (BATCH_BYTES / largest_row.max(1)).clamp(1, BATCH_ROWS);
        after = batch
            .into_iter()
            .next_back()
            .map(|mut row| row.swap_remove(key));
        if !full {
            break;
        }
    }
    let written = dst.count_rows(t)?;
    if done != total || written != total {
        return Err(Error::Storage(format!(
            "copy of {} is incomplete: {total} rows in the source, {done} read, {written} in \
             the target; nothing was committed",
            t.name
        )));
    }
    Ok(done)
}

/// `e` with what the copy was doing in front of its message (which of the two databases
/// failed), of the same kind.
fn saying(e: StoreError, doing: &str) -> StoreError {
    match e {
        StoreError::Unavailable(m) => StoreError::Unavailable(format!("{doing}: {m}")),
        StoreError::Broken(m) => StoreError::Broken(format!("{doing}: {m}")),
        StoreError::Io(m) => StoreError::Io(format!("{doing}: {m}")),
        StoreError::Missing(m) => StoreError::Missing(format!("{doing}: {m}")),
    }
}

/// About how many bytes a row takes in memory.
fn row_bytes(row: &[Cell]) -> usize {
    row.iter()
        .map(|c| match c {
            Cell::Null => 8,
            Cell::Int(_) => 8,
            Cell::Text(s) => 24 + s.len(),
            Cell::Bytes(b) => 24 + b.len(),
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_lists_tables_in_copy_order() {
        let c = Copied {
            tables: vec![("users", 2), ("api_keys", 3), ("events", 0)],
        };
        assert_eq!(
            serde_json::to_string(&c).unwrap(),
            r#"{"tables":{"users":2,"api_keys":3,"events":0}}"#
        );
        assert_eq!(c.rows(), 5);
    }

    #[test]
    fn a_row_is_sized_by_its_text_and_bytes() {
        let small = [Cell::Int(1), Cell::Null, Cell::Text("ab".into())];
        let large = [Cell::Bytes(vec![0; 64 << 10])];
        assert_eq!(row_bytes(&small), 8 + 8 + 26);
        assert!(row_bytes(&large) > 64 << 10);
    }
}
