//! Whole tables in batches, for `db copy`: generic over [`keyhook_core::copy::TABLES`].

use rusqlite::types::{Value, ValueRef};

use super::Conn;
use crate::error::{sql, Error};
use keyhook_core::copy::{Cell, Table};
use keyhook_core::store::{CopyQueries, StoreResult};

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
                .map_err(|_| Error::Storage("a text value is not UTF-8".into()))?,
        ),
        ValueRef::Blob(b) => Cell::Bytes(b.to_vec()),
        ValueRef::Real(_) => return Err(Error::Storage("unexpected REAL value".into())),
    })
}

fn column_list(table: &Table) -> String {
    table
        .columns
        .iter()
        .map(|(c, _)| *c)
        .collect::<Vec<_>>()
        .join(", ")
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
            let query = format!(
                "SELECT {cols} FROM {t} WHERE ?1 IS NULL OR {k} > ?1 ORDER BY {k} LIMIT ?2",
                cols = column_list(table),
                t = table.name,
                k = table.order_by,
            );
            let mut stmt = self.0.prepare_cached(&query)?;
            let after = after.map_or(Value::Null, to_sql);
            let limit = i64::try_from(limit).unwrap_or(i64::MAX);
            let mut rows = stmt.query(rusqlite::params![after, limit])?;
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

    fn write_rows(&self, table: &Table, rows: &[Vec<Cell>]) -> StoreResult<()> {
        sql(|| {
            let marks = (1..=table.columns.len())
                .map(|i| format!("?{i}"))
                .collect::<Vec<_>>()
                .join(", ");
            let query = format!(
                "INSERT INTO {} ({}) VALUES ({marks})",
                table.name,
                column_list(table)
            );
            let mut stmt = self.0.prepare_cached(&query)?;
            for row in rows {
                stmt.execute(rusqlite::params_from_iter(row.iter().map(to_sql)))?;
            }
            Ok(())
        })
    }
}
