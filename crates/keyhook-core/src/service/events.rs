//! Events: the catalog, the payload every receiver gets, and `emit`, which records the event
//! and puts one delivery into the outbox for each webhook `service::routing` says receives it.

use serde::Serialize;
use serde_json::{Map, Value};

use super::event_types;
use super::input::Problems;
use super::keys::ProfileId;
use super::routing;
use super::{Actor, Operation};
use crate::auth::{self, Excess, Scope};
use crate::error::{Error, FieldError, Result};
use crate::model::EventAccepted;
use crate::store::Store;
use crate::time::Timestamp;

/// The built-in event types every database starts with (`service::event_types`: the
/// operator's catalog adds to them), profile `optional`.
pub const CATALOG: &[&str] = &[
    "post.published",
    "post.failed",
    "post.deleted",
    "account.connected",
    "account.disconnected",
    "profile.created",
    "profile.deleted",
];

/// keyhook's own operational events (CONTRACT §10): emitted only by keyhook itself (when a
/// webhook is disabled, when a delivery gives up), profile-less, subscribable like any other.
/// Names under `webhook.` are reserved for keyhook.
pub const OPERATIONAL: &[&str] = &["webhook.disabled", "delivery.exhausted"];

/// Sent only by the test endpoint; not subscribable.
pub const TEST_EVENT: &str = "webhook.test";

/// An event name of the right shape (`event_types::check_name`), not the test ping's. Whether
/// the catalog holds it is asked in the transaction that uses it
/// (`event_types::check_emitted`, `check_subscribed`), so a change to the catalog is seen on
/// the next request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventName(String);

impl EventName {
    pub fn new(name: &str) -> std::result::Result<EventName, String> {
        if name == TEST_EVENT {
            return Err(
                "webhook.test is sent only by the test endpoint and cannot be subscribed to or \
                 emitted"
                    .into(),
            );
        }
        event_types::check_name(name).map_err(|m| format!("{name:?}: {m}"))?;
        Ok(EventName(name.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A new event id: a UUIDv7 (its first 48 bits the time in milliseconds, 74 random bits),
/// so ids sort by creation and the indexes on them grow at one end and are pruned at the
/// other, instead of every insert and every deletion touching a page of its own.
pub fn new_event_id() -> String {
    format!("evt_{}", uuid::Uuid::now_v7().simple())
}

/// What [`new_event_id`] makes, as a regular expression (for the OpenAPI document).
pub const EVENT_ID_PATTERN: &str = "^evt_[0-9a-f]{32}$";

/// Whether `s` has the shape of an event id ([`EVENT_ID_PATTERN`]).
pub fn is_event_id(s: &str) -> bool {
    s.strip_prefix("evt_").is_some_and(|hex| {
        hex.len() == 32 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    })
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Payload<'a> {
    id: &'a str,
    event: &'a str,
    created_at: Timestamp,
    profile_id: Option<&'a str>,
    data: &'a Value,
}

/// The exact bytes POSTed to receivers: `{"id", "event", "createdAt", "profileId", "data"}`,
/// `profileId` being `null` for a user-wide event (and a test ping).
pub fn payload(
    id: &str,
    event: &str,
    profile_id: Option<&str>,
    created_at: Timestamp,
    data: &Value,
) -> Vec<u8> {
    serde_json::to_vec(&Payload {
        id,
        event,
        created_at,
        profile_id,
        data,
    })
    .unwrap_or_default()
}

/// The longest `Idempotency-Key` accepted, in characters.
pub const IDEMPOTENCY_KEY_MAX: usize = 255;

/// What an `Idempotency-Key` may be, as a regular expression (for the OpenAPI document): 1 to
/// [`IDEMPOTENCY_KEY_MAX`] printable ASCII characters (space to `~`), not starting or ending
/// with a space (HTTP drops those from a header value, so such a key could not be sent as
/// it is).
pub const IDEMPOTENCY_KEY_PATTERN: &str = "^[!-~]([ -~]{0,253}[!-~])?$";

/// How long an idempotency key holds its first event: a repeat within this window gets the
/// first event back; after it the key is free again.
pub const IDEMPOTENCY_WINDOW_MS: i64 = 24 * 60 * 60 * 1000;

/// The name the API gives the key's problems (the header's name).
pub const IDEMPOTENCY_FIELD: &str = "Idempotency-Key";

/// A client's key for an event (`Idempotency-Key`): 1 to 255 printable ASCII characters, no
/// space first or last, compared exactly (case and inner spaces count).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdempotencyKey(String);

impl IdempotencyKey {
    pub fn new(key: &str) -> std::result::Result<IdempotencyKey, String> {
        if key.is_empty() {
            return Err("must not be empty".into());
        }
        if key.chars().count() > IDEMPOTENCY_KEY_MAX {
            return Err(format!("must be at most {IDEMPOTENCY_KEY_MAX} characters"));
        }
        if let Some(c) = key.chars().find(|c| !(' '..='~').contains(c)) {
            return Err(format!(
                "must be printable ASCII (space to ~), not U+{:04X}",
                u32::from(c)
            ));
        }
        if key.starts_with(' ') || key.ends_with(' ') {
            return Err("must not start or end with a space".into());
        }
        Ok(IdempotencyKey(key.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// An event to emit, in typed values.
#[derive(Debug, Default, Clone)]
pub struct NewEvent {
    /// Required.
    pub event: Option<EventName>,
    /// `{}` when absent.
    pub data: Option<Map<String, Value>>,
    /// The profile the event is about; `None`: a user-wide event, delivered only to
    /// full-access webhooks. A key limited to profiles must name one of its own.
    pub profile_id: Option<ProfileId>,
    /// With a key, a repeat within [`IDEMPOTENCY_WINDOW_MS`] returns the first event.
    pub idempotency_key: Option<IdempotencyKey>,
    /// What the front end refused converting the request, named as the request names it; a
    /// refused value is `None` above.
    pub problems: Problems,
}

/// The fields of [`NewEvent`] as the API names them, in the order problems are reported.
const NEW_EVENT_FIELDS: &[&str] = &["event", "data", "profileId", IDEMPOTENCY_FIELD];

/// Records the event and queues one delivery for each webhook of the actor's user that
/// receives it (`service::routing`), in one transaction.
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
    profile_id: Option<String>,
    idempotency_key: Option<IdempotencyKey>,
}

/// The rules an event must meet before it touches the database (the actor's permission, the
/// name, the data, the profile), so that a front end can report them before it opens one.
pub fn check(actor: &Actor, input: NewEvent) -> Result<CheckedEvent> {
    actor.may(Operation::EmitEvent, None)?;
    let mut p = input.problems;
    let event = p.require("event", input.event);
    p.into_result(NEW_EVENT_FIELDS)?;
    let profile_id = input.profile_id.map(ProfileId::into_string);
    check_profile(actor, profile_id.as_ref())?;
    Ok(CheckedEvent {
        event: event.map_or_else(String::new, |e| e.0),
        data: Value::Object(input.data.unwrap_or_default()),
        profile_id,
        idempotency_key: input.idempotency_key,
    })
}

/// A key emits only events within its scope (`auth::no_broader_scope`, the event's scope
/// being its one profile, or every profile for a user-wide event): a key limited to profiles
/// names one of them, else 403 on `profileId`. The operator and full-access keys emit any.
fn check_profile(actor: &Actor, profile: Option<&String>) -> Result<()> {
    let Some(key) = actor.as_key() else {
        return Ok(());
    };
    let detail = match auth::no_broader_scope(Scope::of_event(profile), key.scope()) {
        Ok(()) => return Ok(()),
        Err(Excess::Profile(p)) => format!("{p} is outside the profiles of this key"),
        Err(_) => format!(
            "is required: this key is limited to profiles ({}), and a user-wide event \
             reaches them all",
            key.profile_ids.join(", ")
        ),
    };
    Err(Error::ForbiddenFields {
        message: "a key limited to profiles emits only events of its own profiles".into(),
        details: vec![FieldError::new("profileId", detail)],
    })
}

/// [`emit`] of an event already checked.
///
/// With an idempotency key, the key is taken in the same transaction as the event's insert:
/// when the user's key already holds an event newer than [`IDEMPOTENCY_WINDOW_MS`], that
/// first event is returned as it was accepted and nothing is written or queued, whatever the
/// name and data of this one (the first event wins, as Svix does). A key older than the
/// window is taken again. Keys are held per user AND per profile (user-wide events have a
/// space of their own): the same key sent for another profile is another key, so an answer
/// never shows an event of a profile other than the one the caller named, which its scope
/// allowed ([`check`]): a scoped key is never shown an event it could not see.
pub fn emit_checked(
    store: &Store,
    actor: &Actor,
    checked: CheckedEvent,
    now: Timestamp,
) -> Result<EventAccepted> {
    let CheckedEvent {
        event,
        data,
        profile_id,
        idempotency_key,
    } = checked;
    let id = new_event_id();
    let body = payload(&id, &event, profile_id.as_deref(), now, &data);
    let user = actor.user_id();
    let mut accepted = EventAccepted {
        id,
        event,
        profile_id,
        created_at: now,
        deliveries: 0,
    };
    let mut skips = Vec::new();
    store.write(|c| {
        event_types::check_emitted(c, &accepted.event, accepted.profile_id.as_deref(), &data)?;
        if let Some(key) = &idempotency_key {
            if let Some(first) =
                c.claim_idempotency_key(user, key.as_str(), &accepted, stale_before(now))?
            {
                accepted = first;
                return Ok(());
            }
        }
        let profile = accepted.profile_id.as_deref();
        c.insert_event(&accepted.id, user, &accepted.event, profile, &body, now)?;
        let e = routing::Event::new(&accepted.event, accepted.profile_id.as_ref(), &data);
        let routed = routing::fan_out(c, &accepted.id, user, &e, now)?;
        accepted.deliveries = routed.queued;
        skips = routed.skips;
        if let Some(key) = &idempotency_key {
            c.set_idempotency_deliveries(user, profile, key.as_str(), accepted.deliveries)?;
        }
        Ok(())
    })?;
    routing::note(&skips);
    Ok(accepted)
}

/// The moment before which an idempotency record created no longer holds its key at `at`:
/// what a repeat may replace, and what retention may delete (`service::retention::ALSO`).
pub fn stale_before(at: Timestamp) -> Timestamp {
    at.add_millis(-IDEMPOTENCY_WINDOW_MS)
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
        for s in [
            new_event_id(),
            format!("{}0", new_event_id()),
            new_event_id().to_uppercase(),
            "evt_".into(),
            "evt_0123456789abcdef0123456789abcdeg".into(),
            "Evt_0123456789abcdef0123456789abcdef".into(),
        ] {
            assert_eq!(is_event_id(&s), re.is_match(&s), "{s}");
        }
    }

    #[test]
    fn idempotency_keys_are_printable_ascii_up_to_255() {
        let re = regex::Regex::new(IDEMPOTENCY_KEY_PATTERN).unwrap();
        let max = "k".repeat(IDEMPOTENCY_KEY_MAX);
        let over = "k".repeat(IDEMPOTENCY_KEY_MAX + 1);
        let spaced = format!("a{}b", " ".repeat(IDEMPOTENCY_KEY_MAX - 2));
        for good in [
            "a",
            "a b",
            "~!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}",
            max.as_str(),
            spaced.as_str(),
        ] {
            assert_eq!(IdempotencyKey::new(good).unwrap().as_str(), good);
            assert!(re.is_match(good), "{good:?}");
        }
        for bad in [
            "",
            over.as_str(),
            "a\tb",
            "caf\u{e9}",
            "a\u{7f}",
            "\n",
            " ",
            " a",
            "a ",
        ] {
            assert!(IdempotencyKey::new(bad).is_err(), "{bad:?}");
            assert!(!re.is_match(bad), "{bad:?}");
        }
        assert_eq!(IdempotencyKey::new("").unwrap_err(), "must not be empty");
        assert_eq!(
            IdempotencyKey::new("a\u{7f}").unwrap_err(),
            "must be printable ASCII (space to ~), not U+007F"
        );
    }

    #[test]
    fn event_names_are_checked_for_shape_and_the_test_ping_is_refused() {
        for e in CATALOG.iter().chain(OPERATIONAL) {
            assert_eq!(EventName::new(e).unwrap().as_str(), *e);
        }
        assert_eq!(
            EventName::new("post.updated").unwrap().as_str(),
            "post.updated"
        );
        assert_eq!(
            EventName::new(TEST_EVENT),
            Err(
                "webhook.test is sent only by the test endpoint and cannot be subscribed to or \
                 emitted"
                    .into()
            )
        );
        for bad in ["", "POST.PUBLISHED", "post.published ", "post..x"] {
            let e = EventName::new(bad).unwrap_err();
            assert_eq!(
                e,
                format!("{bad:?}: {}", event_types::check_name(bad).unwrap_err())
            );
            assert!(e.contains("must be lowercase words"), "{bad:?}: {e}");
        }
    }
}
