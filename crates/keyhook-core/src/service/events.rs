//! Events: the catalog, the payload every receiver gets, and `emit`, which puts one delivery
//! per active subscribed webhook into the outbox.

use serde::Serialize;
use serde_json::{Map, Value};

use super::input::{Object, Problems};
use super::Actor;
use crate::auth::Method;
use crate::error::Result;
use crate::model::EventAccepted;
use crate::store::Store;
use crate::time::Timestamp;

/// The events a webhook may subscribe to.
pub const CATALOG: &[&str] = &[
    "post.published",
    "post.failed",
    "post.deleted",
    "account.connected",
    "account.disconnected",
    "profile.created",
    "profile.deleted",
];

/// Sent only by the test endpoint; not subscribable.
pub const TEST_EVENT: &str = "webhook.test";

/// Checks an event name for a subscription or an emission, naming `field` in the problem.
pub fn check_event_name(p: &mut Problems, field: &str, name: &str) -> bool {
    if CATALOG.contains(&name) {
        return true;
    }
    if name == TEST_EVENT {
        p.add(
            field,
            "webhook.test is sent only by the test endpoint and cannot be subscribed to or emitted",
        );
    } else {
        p.add(
            field,
            format!(
                "unknown event {name:?}; known events: {}",
                CATALOG.join(", ")
            ),
        );
    }
    false
}

pub fn new_event_id() -> String {
    format!("evt_{}", uuid::Uuid::new_v4().simple())
}

/// What [`new_event_id`] makes, as a regular expression (for the OpenAPI document).
pub const EVENT_ID_PATTERN: &str = "^evt_[0-9a-f]{32}$";

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Payload<'a> {
    id: &'a str,
    event: &'a str,
    created_at: Timestamp,
    data: &'a Value,
}

/// The exact bytes POSTed to receivers: `{"id", "event", "createdAt", "data"}`.
pub fn payload(id: &str, event: &str, created_at: Timestamp, data: &Value) -> Vec<u8> {
    serde_json::to_vec(&Payload {
        id,
        event,
        created_at,
        data,
    })
    .unwrap_or_default()
}

/// An event to emit, as the client sent it.
#[derive(Debug, Default, Clone)]
pub struct NewEvent {
    pub event: Option<String>,
    pub data: Option<Map<String, Value>>,
    pub problems: Problems,
}

impl NewEvent {
    /// Decodes a `POST /events` body: `{"event": NAME, "data": {...}}`.
    pub fn from_json(body: &Value) -> Result<NewEvent> {
        let mut o = Object::new(body, &["event", "data"])?;
        Ok(NewEvent {
            event: o.string("event"),
            data: o.object("data"),
            problems: o.problems,
        })
    }
}

/// Records the event and queues one delivery for each active webhook of the actor's user
/// that subscribes to it, in one transaction.
pub fn emit(
    store: &Store,
    actor: &Actor,
    input: NewEvent,
    now: Timestamp,
) -> Result<EventAccepted> {
    emit_checked(store, actor, check(actor, input)?, now)
}

/// An event that [`check`] accepted: its name and data.
pub struct CheckedEvent {
    event: String,
    data: Value,
}

/// The rules an event must meet before it touches the database (the actor's permission, the
/// name, the data), so that a front end can report them before it opens one.
pub fn check(actor: &Actor, input: NewEvent) -> Result<CheckedEvent> {
    actor.may(Method::Post, None)?;
    let mut p = input.problems;
    let event = match input.event {
        Some(e) => {
            check_event_name(&mut p, "event", &e);
            e
        }
        None => {
            p.add("event", "is required");
            String::new()
        }
    };
    p.into_result()?;
    Ok(CheckedEvent {
        event,
        data: Value::Object(input.data.unwrap_or_default()),
    })
}

/// [`emit`] of an event already checked.
pub fn emit_checked(
    store: &Store,
    actor: &Actor,
    checked: CheckedEvent,
    now: Timestamp,
) -> Result<EventAccepted> {
    let CheckedEvent { event, data } = checked;
    let id = new_event_id();
    let body = payload(&id, &event, now, &data);
    let user = actor.user_id();
    let deliveries = store.write(|c| {
        c.insert_event(&id, user, &event, &body, now)?;
        Ok(c.enqueue_deliveries(&id, user, &event, now)?)
    })?;
    Ok(EventAccepted {
        id,
        event,
        created_at: now,
        deliveries,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_ids_match_their_pattern() {
        let re = regex::Regex::new(EVENT_ID_PATTERN).unwrap();
        for _ in 0..100 {
            let id = new_event_id();
            assert!(re.is_match(&id), "{id}");
        }
        assert!(!re.is_match(&format!("{}0", new_event_id())));
    }
}
