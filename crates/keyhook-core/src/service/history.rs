//! The recent attempts of webhooks, for the history line of `webhooks list` and `show`.

use std::collections::HashMap;

use crate::error::Result;
use crate::service::{Actor, Operation};
use crate::store::Store;

/// How many attempts a history line shows.
pub const HISTORY_LEN: i64 = 30;

/// One attempt as the history line draws it: whether it was delivered, and how long it took.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mark {
    pub delivered: bool,
    pub duration_ms: i64,
}

/// The newest [`HISTORY_LEN`] attempts of each of the actor's webhooks (of `webhook_id` only,
/// when given; the id must be a full id the caller has looked up), oldest first, by webhook
/// id, in one query. A webhook without attempts has no entry.
pub fn recent(
    store: &Store,
    actor: &Actor,
    webhook_id: Option<&str>,
) -> Result<HashMap<String, Vec<Mark>>> {
    actor.may(Operation::ListDeliveries, None)?;
    let rows = store
        .conn()
        .recent_attempts(actor.user_id(), webhook_id, HISTORY_LEN)?;
    // Only of webhooks the actor sees (`webhooks::list` is that list).
    let seen: Option<Vec<String>> = match actor {
        Actor::Operator { .. } => None,
        Actor::Key(_) | Actor::Portal { .. } => Some(
            super::webhooks::list(store, actor)?
                .iter()
                .map(|w| w.id.clone())
                .collect(),
        ),
    };
    let mut out: HashMap<String, Vec<Mark>> = HashMap::new();
    for r in rows {
        if seen
            .as_ref()
            .is_some_and(|ids| !ids.contains(&r.webhook_id))
        {
            continue;
        }
        out.entry(r.webhook_id).or_default().push(Mark {
            delivered: r.delivered,
            duration_ms: r.duration_ms,
        });
    }
    Ok(out)
}
