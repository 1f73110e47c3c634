//! Whole tables in batches, for `db copy`: generic over [`keyhook_core::tables::TABLES`], with
//! each cell converted per its column's [`Kind`] (SQLite's 0/1 booleans are BOOLEAN here).

use postgres::types::ToSql;
use postgres::Row;

use super::{Fail, PgStore};
use keyhook_core::store::{CopyQueries, StoreResult};
use keyhook_core::tables::{Cell, Kind, Table};
/// The PostgreSQL type of a column of `kind`.
fn sql_type(kind: Kind) -> &'static str {
    match kind {
        Kind::Int => "bigint",
        Kind::Bool => "boolean",
        Kind::Text => "text",
        Kind::Bytes => "bytea",
    }
}

fn cell(r: &Row, i: usize, kind: Kind) -> Result<Cell, Fail> {
    Ok(match kind {
        Kind::Int => r
            .try_get::<_, Option<i64>>(i)?
            .map_or(Cell::Null, Cell::Int),
        Kind::Bool => r
            .try_get::<_, Option<bool>>(i)?
            .map_or(Cell::Null, |b| Cell::Int(i64::from(b))),
        Kind::Text => r
            .try_get::<_, Option<String>>(i)?
            .map_or(Cell::Null, Cell::Text),
        Kind::Bytes => r
            .try_get::<_, Option<Vec<u8>>>(i)?
            .map_or(Cell::Null, Cell::Bytes),
    })
}

/// One column of a batch, as the array `unnest` takes.
enum Column {
    Int(Vec<Option<i64>>),
    Bool(Vec<Option<bool>>),
    Text(Vec<Option<String>>),
    Bytes(Vec<Option<Vec<u8>>>),
}

impl Column {
    fn new(kind: Kind, n: usize) -> Column {
        match kind {
            Kind::Int => Column::Int(Vec::with_capacity(n)),
            Kind::Bool => Column::Bool(Vec::with_capacity(n)),
            Kind::Text => Column::Text(Vec::with_capacity(n)),
            Kind::Bytes => Column::Bytes(Vec::with_capacity(n)),
        }
    }

    fn push(&mut self, name: &str, c: &Cell) -> Result<(), Fail> {
        let wrong = || Fail::Data(format!("db copy: a value of the wrong kind for {name}"));
        match (self, c) {
            (Column::Int(v), Cell::Null) => v.push(None),
            (Column::Int(v), Cell::Int(i)) => v.push(Some(*i)),
            (Column::Bool(v), Cell::Null) => v.push(None),
            (Column::Bool(v), Cell::Int(i @ (0 | 1))) => v.push(Some(*i == 1)),
            (Column::Text(v), Cell::Null) => v.push(None),
            (Column::Text(v), Cell::Text(s)) => v.push(Some(s.clone())),
            (Column::Bytes(v), Cell::Null) => v.push(None),
            (Column::Bytes(v), Cell::Bytes(b)) => v.push(Some(b.clone())),
            _ => return Err(wrong()),
        }
        Ok(())
    }

    fn param(&self) -> &(dyn ToSql + Sync) {
        match self {
            Column::Int(v) => v,
            Column::Bool(v) => v,
            Column::Text(v) => v,
            Column::Bytes(v) => v,
        }
    }
}

impl CopyQueries for PgStore {
    fn count_rows(&self, table: &Table) -> StoreResult<u64> {
        self.run(|s| {
            let n: i64 = s
                .query_one(&format!("SELECT count(*) FROM {}", table.name), &[])?
                .try_get(0)?;
            Ok(n.max(0) as u64)
        })
    }

    fn read_rows(
        &self,
        table: &Table,
        after: Option<&Cell>,
        limit: usize,
    ) -> StoreResult<Vec<Vec<Cell>>> {
        let key_kind = table.columns[table.order_index()].1;
        // Two queries, not `$1 IS NULL OR k > $1`: a generic plan of that cannot use the
        // order_by index, and each batch would scan the table from its start (as SQLite did).
        let first = format!(
            "SELECT {cols} FROM {t} ORDER BY {k} LIMIT $1",
            cols = table.column_list(),
            t = table.name,
            k = table.order_by,
        );
        let next = format!(
            "SELECT {cols} FROM {t} WHERE {k} > $1 ORDER BY {k} LIMIT $2",
            cols = table.column_list(),
            t = table.name,
            k = table.order_by,
        );
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.run(|s| {
            let rows = match (key_kind, after) {
                (_, None) => s.query(&first, &[&limit])?,
                (Kind::Int, Some(Cell::Int(i))) => s.query(&next, &[i, &limit])?,
                (Kind::Text, Some(Cell::Text(t))) => s.query(&next, &[t, &limit])?,
                _ => {
                    return Err(Fail::Data(format!(
                        "db copy: {} pages by {}, not by such a value",
                        table.name, table.order_by
                    )))
                }
            };
            rows.iter()
                .map(|r| {
                    table
                        .columns
                        .iter()
                        .enumerate()
                        .map(|(i, (_, kind))| cell(r, i, *kind))
                        .collect()
                })
                .collect()
        })
    }

    /// One `INSERT … SELECT FROM unnest(…)` per batch, a typed array per column; then, for a
    /// table whose key comes from an identity sequence (`delivery_attempts.id`), the sequence
    /// is moved past the largest id, so the next attempt logged gets a new one.
    fn clear_rows(&self, table: &Table) -> StoreResult<()> {
        self.run(|s| {
            s.execute(&format!("DELETE FROM {}", table.name), &[])?;
            Ok(())
        })
    }

    fn write_rows(&self, table: &Table, rows: &[Vec<Cell>]) -> StoreResult<()> {
        if rows.is_empty() {
            return Ok(());
        }
        let arrays = table
            .columns
            .iter()
            .enumerate()
            .map(|(i, (_, kind))| format!("${}::{}[]", i + 1, sql_type(*kind)))
            .collect::<Vec<_>>()
            .join(", ");
        let query = format!(
            "INSERT INTO {t} ({cols}) SELECT * FROM unnest({arrays})",
            t = table.name,
            cols = table.column_list(),
        );
        self.run(|s| {
            let mut columns: Vec<Column> = table
                .columns
                .iter()
                .map(|(_, kind)| Column::new(*kind, rows.len()))
                .collect();
            for row in rows {
                if row.len() != columns.len() {
                    return Err(Fail::Data(format!(
                        "db copy: a row of {} has {} values, not {}",
                        table.name,
                        row.len(),
                        columns.len()
                    )));
                }
                for ((column, value), (name, _)) in columns.iter_mut().zip(row).zip(table.columns) {
                    column.push(name, value)?;
                }
            }
            let params: Vec<&(dyn ToSql + Sync)> = columns.iter().map(Column::param).collect();
            s.execute(&query, &params)?;
            if table.columns[table.order_index()].1 == Kind::Int {
                // setval is strict: for a column without a sequence it does nothing.
                s.query_one(
                    &format!(
                        "SELECT setval(pg_get_serial_sequence($1, $2),
                            (SELECT COALESCE(max({k}), 0) FROM {t}) + 1, false)",
                        k = table.order_by,
                        t = table.name,
                    ),
                    &[&table.name, &table.order_by],
                )?;
            }
            Ok(())
        })
    }
}
