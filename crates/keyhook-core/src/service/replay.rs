//! Replay: fresh deliveries of past events to one webhook (`webhooks replay`, POST
//! /webhooks/{id}/replay), after a receiver's outage. Each replayed delivery carries its
//! event's id as `webhook-id`, as the first one did, so a receiver can tell a message it
//! already has.

use serde::Serialize;

use super::audit::{self, Action, Entry};
use super::events;
use super::idempotency::{self, Idempotent, Keyed};
use super::input::Problems;
use super::routing;
use super::webhooks::find;
use super::{Actor, Operation};
use crate::auth::Scope;
use crate::error::{Error, Result};
use crate::store::{Conn, ReplaySelection, Store};
use crate::time::Timestamp;

/// How far back a replay looks when no `since` is given: 24 hours.
pub const DEFAULT_WINDOW_MS: i64 = 24 * 60 * 60 * 1000;

/// The most deliveries one replay queues. A window holding more events is refused (400 on
/// `since`), with nothing queued: one replay is one short transaction, whatever the window.
pub const MAX_REPLAY: usize = 10_000;

/// A replay, in typed values.
#[derive(Debug, Default, Clone)]
pub struct ReplayRequest {
    /// Replay events created at or after this time; 24 hours before now when absent. Must
    /// not be in the future.
    pub since: Option<Timestamp>,
    /// Replay just this event (then `since` does not filter).
    pub event_id: Option<String>,
    /// Only events whose newest delivery to this webhook ended failed (or cancelled), or
    /// failed and waits for its next retry (then sent now, not queued twice).
    pub failed_only: bool,
    /// The request's `Idempotency-Key` with its body (`service::idempotency`): a repeat within
    /// 24 hours acts not again and answers as the first did. `None` on the command line.
    pub idempotency: Option<Idempotent>,
    /// What the front end refused converting the request, named as the request names it.
    pub problems: Problems,
}

/// The fields of a replay as the API names them, in the order problems are reported.
const REPLAY_FIELDS: &[&str] = &["since", "eventId", "failedOnly"];

/// What a replay did: `{queued: N}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Replayed {
    pub queued: usize,
}

/// Queues a fresh delivery to the actor's webhook `id` for every event of the user since
/// `since` that the webhook receives as it is now (`service::routing`: subscribed, its scope
/// covering the event's profile, its filter admitting it; one its filter cannot judge is
/// skipped with a trace), or for the one event named, in one write
/// transaction: all or nothing. The webhook must be active (409 `WEBHOOK_DISABLED`). An
/// event id that the user does not have, or whose event the webhook does not subscribe to, is
/// a validation error on `eventId`: an explicit id that would queue nothing is a mistake
/// worth saying. The one place a replay happens, so one place to record it.
pub fn replay(
    store: &Store,
    actor: &Actor,
    id: &str,
    input: ReplayRequest,
    now: Timestamp,
) -> Result<Replayed> {
    actor.may(Operation::ReplayWebhook, None)?;
    let mut p = input.problems;
    if input.since.is_some_and(|s| s > now) {
        p.add("since", "must not be in the future");
    }
    if let Some(e) = &input.event_id {
        if !events::is_event_id(e) {
            p.add(
                "eventId",
                "must be an event id: evt_ and 32 lowercase hex digits",
            );
        }
    }
    p.into_result(REPLAY_FIELDS)?;
    let since = input
        .since
        .unwrap_or_else(|| now.add_millis(-DEFAULT_WINDOW_MS));
    let user = actor.user_id();
    let idem = input.idempotency.as_ref();
    let mut skips = Vec::new();
    let replayed = store.write(|c| {
        let w = find(c, actor, id)?;
        let op = Operation::ReplayWebhook;
        let first = |_: Conn<'_>, r: &str| idempotency::decode(r);
        let taken = match idempotency::begin(c, actor, op, &w.id, idem, now, first)? {
            Keyed::Act(taken) => taken,
            Keyed::Answered(r) => return Ok(r),
        };
        if !w.is_active {
            return Err(Error::WebhookDisabled(format!(
                "webhook {} is disabled; enable it before replaying to it",
                w.id
            )));
        }
        if let Some(event_id) = &input.event_id {
            // An event the actor does not see (of a profile outside its scope) is one it
            // cannot name: as unknown as an id of no event.
            let found = c.event_of(user, event_id)?;
            let Some((name, profile)) =
                found.filter(|(_, p)| actor.sees(Scope::of_event(p.as_ref())))
            else {
                return Err(Error::validation("eventId", "no event with this id"));
            };
            let data = serde_json::Value::Null;
            let why =
                match routing::verdict(&w, &routing::Event::new(&name, profile.as_ref(), &data)) {
                    routing::Verdict::NotSubscribed => Some(format!(
                        "the webhook does not subscribe to {name}, the event's name"
                    )),
                    routing::Verdict::OutOfScope => Some(format!(
                        "the webhook's scope does not cover {}",
                        profile.map_or("a user-wide event".to_string(), |p| {
                            format!("an event of profile {p}")
                        })
                    )),
                    _ => None,
                };
            if let Some(why) = why {
                return Err(Error::validation("eventId", why));
            }
        }
        let sel = ReplaySelection {
            webhook_id: &w.id,
            user,
            since,
            event_id: input.event_id.as_deref(),
            failed_only: input.failed_only,
            names: &w.events,
        };
        let routed = routing::replay(c, &w, &sel, now, MAX_REPLAY)?;
        let queued = routed.queued;
        skips = routed.skips;
        if queued > MAX_REPLAY {
            // The transaction rolls back: nothing was queued.
            return Err(Error::validation(
                "since",
                format!(
                    "more than {MAX_REPLAY} events to replay since {}; replay a shorter \
                     window (a later since)",
                    since.to_rfc3339()
                ),
            ));
        }
        if let Some(taken) = &taken {
            idempotency::answer(c, taken, &serde_json::json!({ "queued": queued }))?;
        }
        // A replay that queued nothing changed nothing: no audit entry.
        if queued == 0 {
            return Ok(Replayed { queued });
        }
        let details = serde_json::json!({
            "queued": queued,
            "since": since.to_rfc3339(),
            "eventId": input.event_id,
            "failedOnly": input.failed_only,
        });
        audit::record(
            c,
            now,
            &Entry::by(actor, Action::WebhookReplayed, &w.id, details).about(w.scope()),
        )?;
        Ok(Replayed { queued })
    })?;
    routing::note(&skips);
    Ok(replayed)
}
