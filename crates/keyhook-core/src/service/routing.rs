//! Who receives an event: the one rule, and the only module that applies it.
//!
//! A webhook receives an event when it is active, subscribes to the event's name, its scope
//! reaches the event, and its filter (if any) says `true`:
//! - the scope of an ordinary event is its profile (`auth::covers`: a full-access webhook, or
//!   one whose profiles hold it; a user-wide event only full-access webhooks);
//! - an operational event (`webhook.disabled`, `delivery.exhausted`: [`is_operational`]) is
//!   about another webhook of the same user, and reaches the user's other webhooks whose scope
//!   holds that webhook's (`auth::no_broader_scope`), never the webhook itself. Replayed
//!   later, it is judged as the user-wide event it is.
//!
//! A filter that cannot judge an event (an evaluation error, a result that is not a boolean,
//! a stored filter that no longer compiles) skips the webhook for that event, and the skip
//! leaves a trace where the operator looks (CONTRACT §10.1): a row in the webhook's
//! deliveries list with the kind of error ([`crate::store::AttemptRecord::skip`]),
//! `keyhook_filter_errors_total` ([`filter_errors_total`]) and a `keyhook::filter` log line
//! naming the webhook and the kind, never a value of the data ([`note_skip`], rate-bounded).
//!
//! Every path that decides who receives goes through here: emit ([`fan_out`]), keyhook's own
//! events ([`choose`] over the same candidates), replay ([`replay`]), and the worker's check
//! right before a send ([`still_receives`]); a `listen` webhook is an ordinary webhook to all
//! of them. The backends only hand over candidates (every webhook of the user, at most
//! `MAX_WEBHOOKS_PER_USER`, in one query; for a replay, the user's events by time, in
//! pages) and queue what this module chose in one statement.

use std::cell::OnceCell;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::event_types::is_operational;
use super::filter::{self, Filter, Vars};
use crate::auth;
use crate::error::Result;
use crate::model::Webhook;
use crate::store::{AttemptRecord, Conn, ReplaySelection, Signing, Store};
use crate::time::Timestamp;

/// What an event reaches, as the rule compares it with a webhook's scope.
#[derive(Debug, Clone, Copy)]
pub enum Reach<'a> {
    /// An ordinary event: its profile (`None`: user-wide).
    Profile(Option<&'a String>),
    /// An operational event as it is emitted: the webhook it is about.
    About(&'a Webhook),
}

/// An event as the rule sees it.
pub struct Event<'a> {
    pub name: &'a str,
    pub reach: Reach<'a>,
    pub data: &'a Value,
    /// The filter's variables, converted once for every webhook that has a filter.
    vars: OnceCell<Vars>,
}

impl<'a> Event<'a> {
    /// An ordinary event of `profile` (`None`: user-wide), or one replayed.
    pub fn new(name: &'a str, profile: Option<&'a String>, data: &'a Value) -> Event<'a> {
        Event {
            name,
            reach: Reach::Profile(profile),
            data,
            vars: OnceCell::new(),
        }
    }

    /// An operational event about the webhook `about` (profile-less).
    pub fn about(name: &'a str, about: &'a Webhook, data: &'a Value) -> Event<'a> {
        Event {
            name,
            reach: Reach::About(about),
            data,
            vars: OnceCell::new(),
        }
    }

    /// The profile the filter sees as `profileId`: an operational event's is null.
    fn profile(&self) -> Option<&'a str> {
        match self.reach {
            Reach::Profile(p) => p.map(String::as_str),
            Reach::About(_) => None,
        }
    }

    fn vars(&self) -> &Vars {
        self.vars
            .get_or_init(|| Vars::new(self.name, self.profile(), self.data))
    }
}

/// The rule's answer for one webhook and one event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// The webhook receives the event.
    Deliver,
    Inactive,
    NotSubscribed,
    /// Its scope does not reach the event (or the event is about the webhook itself, or
    /// another user's).
    OutOfScope,
    /// Its filter said `false`.
    Refused,
    /// Its filter could not judge the event: the kind of error. Skipped, with a trace.
    Skipped(&'static str),
}

/// The kind recorded for a stored filter that no longer compiles.
pub const STALE_FILTER: &str = "the stored filter no longer compiles";

/// THE rule: whether `w` receives `e`.
pub fn verdict(w: &Webhook, e: &Event<'_>) -> Verdict {
    if !w.is_active {
        return Verdict::Inactive;
    }
    if !w.events.iter().any(|n| n == e.name) {
        return Verdict::NotSubscribed;
    }
    let in_scope = match e.reach {
        Reach::Profile(p) => auth::covers(w.scope(), p),
        Reach::About(about) => {
            about.id != w.id
                && about.user_id == w.user_id
                && auth::no_broader_scope(about.scope(), w.scope()).is_ok()
        }
    };
    if !in_scope {
        return Verdict::OutOfScope;
    }
    let Some(source) = &w.filter else {
        return Verdict::Deliver;
    };
    let judged = filter::compiled(source)
        .map_err(|_| STALE_FILTER)
        .and_then(|f| f.matches(e.vars()));
    match judged {
        Ok(true) => Verdict::Deliver,
        Ok(false) => Verdict::Refused,
        Err(kind) => Verdict::Skipped(kind),
    }
}

/// What the rule chose among candidates: who gets a delivery, who is skipped and why.
#[derive(Debug, Default)]
pub struct Choice<'w> {
    pub deliver: Vec<&'w Webhook>,
    pub skip: Vec<(&'w Webhook, &'static str)>,
}

impl Choice<'_> {
    pub fn is_empty(&self) -> bool {
        self.deliver.is_empty() && self.skip.is_empty()
    }
}

/// [`verdict`] over candidates.
pub fn choose<'w>(candidates: &'w [Webhook], e: &Event<'_>) -> Choice<'w> {
    let mut choice = Choice::default();
    for w in candidates {
        match verdict(w, e) {
            Verdict::Deliver => choice.deliver.push(w),
            Verdict::Skipped(kind) => choice.skip.push((w, kind)),
            _ => {}
        }
    }
    choice
}

/// A skip recorded: the webhook, the event and the kind of error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skip {
    pub webhook_id: String,
    pub event_id: String,
    pub kind: &'static str,
}

/// What a fan-out did: how many deliveries it queued, and the skips it recorded, to be
/// counted and logged ([`note`]) once their transaction has committed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Routed {
    pub queued: usize,
    pub skips: Vec<Skip>,
}

/// Queues `choice` for the event `event_id` (already recorded): the deliveries in one
/// statement, and a trace of each skip in the deliveries list.
pub fn queue(
    c: Conn<'_>,
    event_id: &str,
    event: &str,
    choice: &Choice<'_>,
    now: Timestamp,
) -> Result<Routed> {
    let deliver: Vec<(&str, &str)> = choice
        .deliver
        .iter()
        .map(|w| (event_id, w.id.as_str()))
        .collect();
    let skipped: Vec<(&str, &str, &str, &'static str)> = choice
        .skip
        .iter()
        .map(|(w, kind)| (w.id.as_str(), event_id, event, *kind))
        .collect();
    write_choices(c, &deliver, &skipped, now)
}

/// Writes what a fan-out or a replay chose: the deliveries `deliver` (`(event id, webhook
/// id)` pairs) in one statement, then a trace of each skip of `skipped` (`(webhook id, event
/// id, event name, kind)`) in the deliveries list, in one call.
fn write_choices(
    c: Conn<'_>,
    deliver: &[(&str, &str)],
    skipped: &[(&str, &str, &str, &'static str)],
    now: Timestamp,
) -> Result<Routed> {
    let queued = if deliver.is_empty() {
        0
    } else {
        c.insert_deliveries(deliver, now)?
    };
    if !skipped.is_empty() {
        let rows: Vec<AttemptRecord<'_>> = skipped
            .iter()
            .map(|&(webhook_id, event_id, event, kind)| {
                AttemptRecord::skip(webhook_id, event_id, event, kind, now)
            })
            .collect();
        c.insert_attempts(&rows)?;
    }
    let skips = skipped
        .iter()
        .map(|&(webhook_id, event_id, _, kind)| Skip {
            webhook_id: webhook_id.to_string(),
            event_id: event_id.to_string(),
            kind,
        })
        .collect();
    Ok(Routed { queued, skips })
}

/// The fan-out of an event of `user` just recorded as `event_id`: its candidates (every
/// webhook of the user, one query), the rule, and [`queue`].
pub fn fan_out(
    c: Conn<'_>,
    event_id: &str,
    user: &str,
    e: &Event<'_>,
    now: Timestamp,
) -> Result<Routed> {
    let candidates = c.list_webhooks(user)?;
    if candidates.is_empty() {
        return Ok(Routed::default());
    }
    queue(c, event_id, e.name, &choose(&candidates, e), now)
}

/// How many events a replay reads per query.
const REPLAY_PAGE: usize = 500;

/// A replay to `w` (its caller checked the webhook and the request): the events `sel`
/// selects, each judged by the rule as a user-wide or profile event ([`Reach::Profile`]),
/// queued in one statement; with `failed_only`, the deliveries waiting for a retry made due
/// now as well (counted in `queued`). Stops reading once more than `limit` events would be
/// queued or skipped, and returns that count as `queued` (more than `limit` then, nothing
/// written: the caller refuses).
pub fn replay(
    c: Conn<'_>,
    w: &Webhook,
    sel: &ReplaySelection<'_>,
    now: Timestamp,
    limit: usize,
) -> Result<Routed> {
    let mut chosen: Vec<String> = Vec::new();
    let mut skipped: Vec<(String, String, &'static str)> = Vec::new();
    let mut after: Option<(Timestamp, String)> = None;
    loop {
        let cursor = after.as_ref().map(|(t, id)| (*t, id.as_str()));
        let page = c.replay_candidates(sel, cursor, REPLAY_PAGE, w.filter.is_some())?;
        for ev in &page {
            // The payload is read for the filter alone (and only then, above).
            let data = match &w.filter {
                Some(_) => serde_json::from_slice::<Value>(&ev.payload)
                    .ok()
                    .and_then(|mut p| p.get_mut("data").map(Value::take))
                    .unwrap_or_default(),
                None => Value::Null,
            };
            match verdict(w, &Event::new(&ev.event, ev.profile_id.as_ref(), &data)) {
                Verdict::Deliver => chosen.push(ev.id.clone()),
                Verdict::Skipped(kind) => skipped.push((ev.id.clone(), ev.event.clone(), kind)),
                _ => {}
            }
        }
        if chosen.len() + skipped.len() > limit {
            return Ok(Routed {
                queued: chosen.len() + skipped.len(),
                skips: Vec::new(),
            });
        }
        match page.last() {
            Some(last) if page.len() == REPLAY_PAGE => {
                after = Some((last.created_at, last.id.clone()))
            }
            _ => break,
        }
    }
    let deliver: Vec<(&str, &str)> = chosen.iter().map(|e| (e.as_str(), w.id.as_str())).collect();
    let skipped: Vec<(&str, &str, &str, &'static str)> = skipped
        .iter()
        .map(|(event_id, event, kind)| (w.id.as_str(), event_id.as_str(), event.as_str(), *kind))
        .collect();
    let mut routed = write_choices(c, &deliver, &skipped, now)?;
    if sel.failed_only {
        routed.queued += c.replay_retry_now(sel, now)?;
    }
    Ok(routed)
}

/// The check right before a send, on the webhook as it is now ([`Signing`]): it is still
/// active and its scope still reaches the event. Its subscription and filter were judged when
/// the event was queued (a later change of them applies to later events); an operational
/// event's reach was judged against the webhook it is about, which the send does not read.
pub fn still_receives(s: &Signing, event: &str, profile: Option<&String>) -> bool {
    s.is_active && (is_operational(event) || auth::covers(s.scope(), profile))
}

/// A webhook whose stored filter no longer compiles (written by an older keyhook, under
/// looser rules): what `serve` warns about at start. It is kept as it is (an upgrade deletes
/// nothing), and every event it cannot judge skips the webhook with a trace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StaleFilter {
    pub webhook_id: String,
    pub user_id: String,
    /// Why it does not compile now.
    pub error: String,
}

/// Every webhook whose stored filter no longer compiles, in id order.
pub fn stale_filters(store: &Store) -> Result<Vec<StaleFilter>> {
    Ok(store
        .conn()
        .webhook_filters()?
        .into_iter()
        .filter_map(|(webhook_id, user_id, source)| {
            let error = Filter::new(&source).err()?;
            Some(StaleFilter {
                webhook_id,
                user_id,
                error,
            })
        })
        .collect())
}

static FILTER_ERRORS: AtomicU64 = AtomicU64::new(0);

/// Events a webhook was skipped for because its filter could not judge them, since the
/// process started (`keyhook_filter_errors_total`).
pub fn filter_errors_total() -> u64 {
    FILTER_ERRORS.load(Ordering::Relaxed)
}

/// The shortest time between two log lines about one webhook's skips; the skips in between
/// are counted in the next line (and each is in the deliveries list and the metric). A
/// webhook whose filter fails on every event of a burst logs a line per
/// [`LOG_EVERY`], not one per event.
pub const LOG_EVERY: Duration = Duration::from_secs(10);
/// The most webhooks whose last line is remembered.
const LOGGED_MAX: usize = 4096;

/// When a webhook's skips were last logged, and how many since.
static LOGGED: Mutex<Option<HashMap<String, (Instant, u64)>>> = Mutex::new(None);

/// Counts and logs the skips of a fan-out ([`note_skip`]), once their transaction has
/// committed.
pub fn note(skips: &[Skip]) {
    for s in skips {
        note_skip(&s.webhook_id, &s.event_id, s.kind);
    }
}

/// Counts a skip and logs it (`keyhook::filter`: the webhook and the kind of error, never
/// data), at most once per [`LOG_EVERY`] per webhook.
pub fn note_skip(webhook_id: &str, event_id: &str, kind: &str) {
    FILTER_ERRORS.fetch_add(1, Ordering::Relaxed);
    let now = Instant::now();
    let due = LOGGED.lock().ok().and_then(|mut l| {
        let l = l.get_or_insert_with(HashMap::new);
        match l.get_mut(webhook_id) {
            Some((at, held)) if now.duration_since(*at) < LOG_EVERY => {
                *held += 1;
                None
            }
            Some((at, held)) => {
                let more = *held;
                (*at, *held) = (now, 0);
                Some(more)
            }
            None => {
                if l.len() >= LOGGED_MAX {
                    l.clear();
                }
                l.insert(webhook_id.to_string(), (now, 0));
                Some(0)
            }
        }
    });
    if let Some(more) = due {
        let also = if more > 0 {
            format!(" ({more} more skipped since the last line)")
        } else {
            String::new()
        };
        tracing::warn!(
            target: "keyhook::filter",
            webhook = webhook_id,
            event = event_id,
            error = kind,
            "keyhook: filter error: webhook {webhook_id} skipped event {event_id}: {kind}{also}; \
             see keyhook webhooks deliveries {webhook_id}"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn hook(id: &str, profiles: Option<&[&str]>, filter: Option<&str>) -> Webhook {
        Webhook {
            id: id.into(),
            user_id: "u".into(),
            events: vec!["post.published".into(), "webhook.disabled".into()],
            is_active: true,
            full_access: profiles.is_none(),
            profile_ids: profiles
                .unwrap_or_default()
                .iter()
                .map(|p| p.to_string())
                .collect(),
            filter: filter.map(String::from),
            url: "https://example.com/h".into(),
            secret: "whsec_x".into(),
            fail_count: 0,
            created_at: Timestamp(0),
            updated_at: Timestamp(0),
            ephemeral: false,
            control: Default::default(),
            signing: Default::default(),
            public_key: None,
            header_names: Vec::new(),
            private: Default::default(),
        }
    }

    #[test]
    fn the_rule_in_order() {
        let a = String::from("a");
        let data = json!({"n": 1});
        let e = Event::new("post.published", Some(&a), &data);
        assert_eq!(verdict(&hook("w", None, None), &e), Verdict::Deliver);
        let mut off = hook("w", None, None);
        off.is_active = false;
        assert_eq!(verdict(&off, &e), Verdict::Inactive);
        let other = Event::new("post.failed", Some(&a), &data);
        assert_eq!(
            verdict(&hook("w", None, None), &other),
            Verdict::NotSubscribed
        );
        assert_eq!(
            verdict(&hook("w", Some(&["b"]), None), &e),
            Verdict::OutOfScope
        );
        let wide = Event::new("post.published", None, &data);
        assert_eq!(
            verdict(&hook("w", Some(&["a"]), None), &wide),
            Verdict::OutOfScope
        );
        assert_eq!(
            verdict(&hook("w", None, Some("data.n == 2")), &e),
            Verdict::Refused
        );
        assert_eq!(
            verdict(&hook("w", None, Some("data.nope == 2")), &e),
            Verdict::Skipped("no such key")
        );
        assert_eq!(
            verdict(&hook("w", None, Some("data.n ==")), &e),
            Verdict::Skipped(STALE_FILTER)
        );
    }

    #[test]
    fn an_operational_event_reaches_the_other_webhooks_whose_scope_holds_its_subject() {
        let about = hook("w1", Some(&["a"]), None);
        let data = json!({});
        let e = Event::about("webhook.disabled", &about, &data);
        assert_eq!(verdict(&about, &e), Verdict::OutOfScope);
        assert_eq!(verdict(&hook("w2", None, None), &e), Verdict::Deliver);
        assert_eq!(
            verdict(&hook("w3", Some(&["a", "b"]), None), &e),
            Verdict::Deliver
        );
        assert_eq!(
            verdict(&hook("w4", Some(&["b"]), None), &e),
            Verdict::OutOfScope
        );
        let mut stranger = hook("w5", None, None);
        stranger.user_id = "v".into();
        assert_eq!(verdict(&stranger, &e), Verdict::OutOfScope);
    }

    #[test]
    fn skips_are_counted_and_logged_within_the_bound() {
        let before = filter_errors_total();
        note_skip("w-count", "evt_1", "no such key");
        note_skip("w-count", "evt_2", "no such key");
        assert!(filter_errors_total() >= before + 2);
        let held = LOGGED
            .lock()
            .unwrap()
            .as_ref()
            .and_then(|l| l.get("w-count").map(|(_, n)| *n));
        assert_eq!(held, Some(1), "the second skip waits for the next line");
    }
}
