//! Whole tables in batches, for `db copy`: generic over [`keyhook_core::tables::TABLES`].

use rusqlite::types::{Value, ValueRef};

use super::Conn;
use crate::error::{sql, Error};
use keyhook_core::store::{CopyQueries, StoreError, StoreResult};
use keyhook_core::tables::{Cell, Table};

fn to_sql(c: &Cell) -> Value {
    match c {
        Cell::Null => Value::Null,
        Cell::Int(i) => Value::Integer(*i),
        Cell::Text(s) => Value::Text(s.clone()),
        Cell::Bytes(b) => Value::Blob(b.clone()),
    }
}

fn from_sql(v: ValueRef<'_>) -> Result<Cell, Error> {
    Ok(match v {
        ValueRef::Null => Cell::Null,
        ValueRef::Integer(i) => Cell::Int(i),
        ValueRef::Text(t) => Cell::Text(
            String::from_utf8(t.to_vec())
                .map_err(|_| StoreError::Broken("a text value is not UTF-8".into()))?,
        ),
        ValueRef::Blob(b) => Cell::Bytes(b.to_vec()),
        ValueRef::Real(_) => return Err(StoreError::Broken("unexpected REAL value".into()).into()),
    })
}

/// The query of a batch of `table`: the first one, or the one after a given key. Two queries,
/// not one with `?2 IS NULL OR key > ?2`: SQLite cannot search an index with that `OR`, so
/// every batch would scan the table from its first row, and a copy would take time
/// quadratic in the table's size.
fn read_query(table: &Table, after: bool) -> String {
    format!(
        "SELECT {cols} FROM {t} {filter} ORDER BY {k} LIMIT ?1",
        cols = table.column_list(),
        t = table.name,
        k = table.order_by,
        filter = if after {
            format!("WHERE {} > ?2", table.order_by)
        } else {
            String::new()
        },
    )
}

impl CopyQueries for Conn {
    fn count_rows(&self, table: &Table) -> StoreResult<u64> {
        sql(|| {
            let n: i64 =
                self.0
                    .query_row(&format!("SELECT count(*) FROM {}", table.name), [], |r| {
                        r.get(0)
                    })?;
            Ok(n.max(0) as u64)
        })
    }

    fn read_rows(
        &self,
        table: &Table,
        after: Option<&Cell>,
        limit: usize,
    ) -> StoreResult<Vec<Vec<Cell>>> {
        sql(|| {
            let mut stmt = self.0.prepare_cached(&read_query(table, after.is_some()))?;
            let limit = i64::try_from(limit).unwrap_or(i64::MAX);
            let mut rows = match after {
                Some(after) => stmt.query(rusqlite::params![limit, to_sql(after)])?,
                None => stmt.query(rusqlite::params![limit])?,
            };
            let mut out = Vec::new();
            while let Some(row) = rows.next()? {
                let cells = (0..table.columns.len())
                    .map(|i| from_sql(row.get_ref(i)?))
                    .collect::<Result<Vec<_>, Error>>()?;
                out.push(cells);
            }
            Ok(out)
        })
    }

    fn clear_rows(&self, table: &Table) -> StoreResult<()> {
        sql(|| {
            self.0.execute(&format!("DELETE FROM {}", table.name), [])?;
            Ok(())
        })
    }

    fn write_rows(&self, table: &Table, rows: &[Vec<Cell>]) -> StoreResult<()> {
        sql(|| {
            let marks = (1..=table.columns.len())
                .map(|i| format!("?{i}"))
                .collect::<Vec<_>>()
                .join(", ");
            let query = format!(
                "INSERT INTO {} ({}) VALUES ({marks})",
                table.name,
                table.column_list()
            );
            let mut stmt = self.0.prepare_cached(&query)?;
            for row in rows {
                stmt.execute(rusqlite::params_from_iter(row.iter().map(to_sql)))?;
            }
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use keyhook_core::tables::TABLES;

    /// Each batch starts where the last one ended, found in the `order_by` index (a search,
    /// not a scan from the first row), and comes out in index order (no sort).
    #[test]
    fn a_batch_is_found_by_its_key_not_scanned_for() {
        let (_dir, store) = crate::testing::temp_store();
        for t in TABLES {
            for after in [false, true] {
                let query = read_query(t, after);
                let plan: Vec<String> = store
                    .conn
                    .0
                    .prepare(&format!("EXPLAIN QUERY PLAN {query}"))
                    .unwrap()
                    .query_map(
                        rusqlite::params_from_iter(vec![1; 1 + usize::from(after)]),
                        |r| r.get::<_, String>(3),
                    )
                    .unwrap()
                    .collect::<rusqlite::Result<_>>()
                    .unwrap();
                let plan = plan.join("; ");
                assert!(!plan.contains("TEMP B-TREE"), "{}: sorts: {plan}", t.name);
                if after {
                    assert!(plan.starts_with("SEARCH"), "{}: {plan}", t.name);
                }
            }
        }
    }
}
