//! The operator's event catalog: `keyhook-sqlite/src/event_types.rs`, in PostgreSQL.

use postgres::Row;

use super::{Fail, PgStore};
use keyhook_core::model::{EventProfile, EventType};
use keyhook_core::store::{EventTypeQueries, StoreResult};
use keyhook_core::time::Timestamp;

macro_rules! columns {
    () => {
        "name, description, schema, example, profile, deprecated, created_at, updated_at"
    };
}

fn json_at(r: &Row, i: usize) -> Result<Option<serde_json::Value>, Fail> {
    let text: Option<&str> = r.try_get(i)?;
    text.map(|t| {
        serde_json::from_str(t)
            .map_err(|e| Fail::Data(format!("a stored event type is damaged: {e}")))
    })
    .transpose()
}

fn from_row(r: &Row) -> Result<EventType, Fail> {
    let profile: &str = r.try_get(4)?;
    Ok(EventType {
        name: r.try_get(0)?,
        description: r.try_get(1)?,
        schema: json_at(r, 2)?,
        example: json_at(r, 3)?,
        profile: EventProfile::parse(profile)
            .map_err(|m| Fail::Data(format!("a stored event type's profile {m}")))?,
        deprecated: r.try_get(5)?,
        created_at: Timestamp(r.try_get(6)?),
        updated_at: Timestamp(r.try_get(7)?),
    })
}

fn text(v: &Option<serde_json::Value>) -> Option<String> {
    v.as_ref().map(|v| v.to_string())
}

impl EventTypeQueries for PgStore {
    fn list_event_types(&self) -> StoreResult<Vec<EventType>> {
        self.run(|s| {
            let rows = s.query(
                concat!("SELECT ", columns!(), " FROM event_types ORDER BY name"),
                &[],
            )?;
            rows.iter().map(from_row).collect()
        })
    }

    fn event_type(&self, name: &str) -> StoreResult<Option<EventType>> {
        self.run(|s| {
            let row = s.query_opt(
                concat!("SELECT ", columns!(), " FROM event_types WHERE name = $1"),
                &[&name],
            )?;
            row.as_ref().map(from_row).transpose()
        })
    }

    fn insert_event_type(&self, t: &EventType) -> StoreResult<()> {
        let (schema, example) = (text(&t.schema), text(&t.example));
        self.run(|s| {
            s.execute(
                concat!(
                    "INSERT INTO event_types (",
                    columns!(),
                    ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"
                ),
                &[
                    &t.name,
                    &t.description,
                    &schema,
                    &example,
                    &t.profile.as_str(),
                    &t.deprecated,
                    &t.created_at.0,
                    &t.updated_at.0,
                ],
            )?;
            Ok(())
        })
    }

    fn update_event_type(&self, t: &EventType) -> StoreResult<()> {
        let (schema, example) = (text(&t.schema), text(&t.example));
        self.run(|s| {
            s.execute(
                "UPDATE event_types SET description = $2, schema = $3, example = $4,
                    profile = $5, deprecated = $6, updated_at = $7
                 WHERE name = $1",
                &[
                    &t.name,
                    &t.description,
                    &schema,
                    &example,
                    &t.profile.as_str(),
                    &t.deprecated,
                    &t.updated_at.0,
                ],
            )?;
            Ok(())
        })
    }

    fn delete_event_type(&self, name: &str) -> StoreResult<bool> {
        self.run(|s| Ok(s.execute("DELETE FROM event_types WHERE name = $1", &[&name])? > 0))
    }

    fn event_type_uses(&self, name: &str) -> StoreResult<(i64, i64)> {
        self.run(|s| {
            // As on SQLite: a name has no character JSON escapes.
            let webhooks: i64 = s
                .query_one(
                    "SELECT count(*) FROM webhooks WHERE strpos(events, '\"' || $1 || '\"') > 0",
                    &[&name],
                )?
                .try_get(0)?;
            let pending: i64 = s
                .query_one(
                    "SELECT count(*) FROM deliveries d JOIN events e ON e.id = d.event_id
                     WHERE d.state = 'pending' AND e.event = $1",
                    &[&name],
                )?
                .try_get(0)?;
            Ok((webhooks, pending))
        })
    }
}
