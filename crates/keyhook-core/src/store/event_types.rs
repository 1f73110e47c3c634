//! The operator's event catalog: [`EventTypeQueries`].

use super::StoreResult;
use crate::model::EventType;

/// The operator's event catalog (`service::event_types`). `schema` and `example` are stored
/// as JSON text, written as given and read back as JSON.
pub trait EventTypeQueries {
    /// Every event type, by name.
    fn list_event_types(&self) -> StoreResult<Vec<EventType>>;
    fn event_type(&self, name: &str) -> StoreResult<Option<EventType>>;
    fn insert_event_type(&self, t: &EventType) -> StoreResult<()>;
    /// Writes every field of `t` but its name and `created_at` over the row named `t.name`.
    fn update_event_type(&self, t: &EventType) -> StoreResult<()>;
    /// Returns whether a row was deleted.
    fn delete_event_type(&self, name: &str) -> StoreResult<bool>;
    /// How many webhooks (of every user) subscribe to `name`, and how many deliveries of
    /// events named `name` are pending: what keeps an event type from being deleted.
    fn event_type_uses(&self, name: &str) -> StoreResult<(i64, i64)>;
}
