//! Events: the catalog, the payload every receiver gets, and `emit`, which puts one delivery
//! per active subscribed webhook into the outbox.

use serde::Serialize;
use serde_json::{Map, Value};

use super::input::Problems;
use super::{Actor, Operation};
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

/// An event that may be subscribed to or emitted: one of the [`CATALOG`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventName(&'static str);

impl EventName {
    pub fn new(name: &str) -> std::result::Result<EventName, String> {
        if let Some(known) = CATALOG.iter().find(|e| **e == name) {
            return Ok(EventName(known));
        }
        if name == TEST_EVENT {
            Err(
                "webhook.test is sent only by the test endpoint and cannot be subscribed to or \
                 emitted"
                    .into(),
            )
        } else {
            Err(format!(
                "unknown event {name:?}; known events: {}",
                CATALOG.join(", ")
            ))
        }
    }

    pub fn as_str(&self) -> &'static str {
        self.0
    }
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

/// An event to emit, in typed values.
#[derive(Debug, Default, Clone)]
pub struct NewEvent {
    /// Required.
    pub event: Option<EventName>,
    /// `{}` when absent.
    pub data: Option<Map<String, Value>>,
    /// What the front end refused converting the request, named as the request names it; a
    /// refused value is `None` above.
    pub problems: Problems,
}

/// The fields of [`NewEvent`] as the API names them, in the order problems are reported.
const NEW_EVENT_FIELDS: &[&str] = &["event", "data"];

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
    actor.may(Operation::EmitEvent, None)?;
    let mut p = input.problems;
    let event = p.require("event", input.event);
    p.into_result(NEW_EVENT_FIELDS)?;
    Ok(CheckedEvent {
        event: event.map_or("", |e| e.as_str()).to_string(),
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

    #[test]
    fn event_names_come_from_the_catalog() {
        for e in CATALOG {
            assert_eq!(EventName::new(e).unwrap().as_str(), *e);
        }
        assert_eq!(
            EventName::new(TEST_EVENT),
            Err(
                "webhook.test is sent only by the test endpoint and cannot be subscribed to or \
                 emitted"
                    .into()
            )
        );
        for unknown in ["", "POST.PUBLISHED", "post.published ", "post"] {
            let e = EventName::new(unknown).unwrap_err();
            assert_eq!(
                e,
                format!(
                    "unknown event {unknown:?}; known events: {}",
                    CATALOG.join(", ")
                )
            );
        }
    }
}
