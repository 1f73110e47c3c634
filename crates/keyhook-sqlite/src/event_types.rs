//! The operator's event catalog (`keyhook_core::service::event_types`).

use rusqlite::{params, OptionalExtension, Row};

use super::Conn;
use crate::error::sql;
use crate::time::Timestamp;
use keyhook_core::model::{EventProfile, EventType};
use keyhook_core::store::{EventTypeQueries, StoreResult};

const COLUMNS: &str =
    "name, description, schema, example, profile, deprecated, created_at, updated_at";

fn bad(i: usize, e: impl std::error::Error + Send + Sync + 'static) -> rusqlite::Error {
    rusqlite::Error::FromSqlConversionFailure(i, rusqlite::types::Type::Text, Box::new(e))
}

fn json_at(r: &Row<'_>, i: usize) -> rusqlite::Result<Option<serde_json::Value>> {
    let text: Option<String> = r.get(i)?;
    text.map(|t| serde_json::from_str(&t).map_err(|e| bad(i, e)))
        .transpose()
}

fn from_row(r: &Row<'_>) -> rusqlite::Result<EventType> {
    let profile: String = r.get(4)?;
    Ok(EventType {
        name: r.get(0)?,
        description: r.get(1)?,
        schema: json_at(r, 2)?,
        example: json_at(r, 3)?,
        profile: EventProfile::parse(&profile).map_err(|m| bad(4, std::io::Error::other(m)))?,
        deprecated: r.get(5)?,
        created_at: Timestamp(r.get(6)?),
        updated_at: Timestamp(r.get(7)?),
    })
}

fn text(v: &Option<serde_json::Value>) -> Option<String> {
    v.as_ref().map(|v| v.to_string())
}

impl EventTypeQueries for Conn {
    fn list_event_types(&self) -> StoreResult<Vec<EventType>> {
        sql(|| {
            Ok(self
                .0
                .prepare_cached(&format!("SELECT {COLUMNS} FROM event_types ORDER BY name"))?
                .query_map([], from_row)?
                .collect::<rusqlite::Result<Vec<_>>>()?)
        })
    }

    fn event_type(&self, name: &str) -> StoreResult<Option<EventType>> {
        sql(|| {
            Ok(self
                .0
                .prepare_cached(&format!(
                    "SELECT {COLUMNS} FROM event_types WHERE name = ?1"
                ))?
                .query_row([name], from_row)
                .optional()?)
        })
    }

    fn insert_event_type(&self, t: &EventType) -> StoreResult<()> {
        sql(|| {
            self.0
                .prepare_cached(&format!(
                    "INSERT INTO event_types ({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"
                ))?
                .execute(params![
                    t.name,
                    t.description,
                    text(&t.schema),
                    text(&t.example),
                    t.profile.as_str(),
                    t.deprecated,
                    t.created_at.0,
                    t.updated_at.0
                ])?;
            Ok(())
        })
    }

    fn update_event_type(&self, t: &EventType) -> StoreResult<()> {
        sql(|| {
            self.0
                .prepare_cached(
                    "UPDATE event_types SET description = ?2, schema = ?3, example = ?4,
                        profile = ?5, deprecated = ?6, updated_at = ?7
                     WHERE name = ?1",
                )?
                .execute(params![
                    t.name,
                    t.description,
                    text(&t.schema),
                    text(&t.example),
                    t.profile.as_str(),
                    t.deprecated,
                    t.updated_at.0
                ])?;
            Ok(())
        })
    }

    fn delete_event_type(&self, name: &str) -> StoreResult<bool> {
        sql(|| {
            Ok(self
                .0
                .prepare_cached("DELETE FROM event_types WHERE name = ?1")?
                .execute([name])?
                > 0)
        })
    }

    fn event_type_uses(&self, name: &str) -> StoreResult<(i64, i64)> {
        sql(|| {
            // A name has no character that JSON escapes, so it is in a webhook's list exactly
            // when its quoted form is.
            let webhooks: i64 = self.0.query_row(
                "SELECT count(*) FROM webhooks WHERE instr(events, '\"' || ?1 || '\"') > 0",
                [name],
                |r| r.get(0),
            )?;
            let pending: i64 = self.0.query_row(
                "SELECT count(*) FROM deliveries d JOIN events e ON e.id = d.event_id
                 WHERE d.state = 'pending' AND e.event = ?1",
                [name],
                |r| r.get(0),
            )?;
            Ok((webhooks, pending))
        })
    }
}
