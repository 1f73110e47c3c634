//! One rule decides who receives an event (`service::routing`). Random webhooks (active or
//! not, subscriptions, scopes, filters that admit, refuse, fail or no longer compile) and
//! random events, on each backend: every path that queues or sends (emit, keyhook's own
//! events, replay, the worker's check before a send) does what the rule below says, stated
//! here a second time, independently, from CONTRACT §4, §10 and §10.1.

use std::collections::BTreeSet;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde_json::{json, Value};

use keyhook_core::model::Webhook;
use keyhook_core::service::events::{self, EventName, NewEvent};
use keyhook_core::service::filter::{Filter, Vars};
use keyhook_core::service::keys::ProfileId;
use keyhook_core::service::replay::{self, ReplayRequest};
use keyhook_core::service::routing;
use keyhook_core::service::{operational, Actor};
use keyhook_core::store::Store;
use keyhook_core::tables::{Cell, TABLES};
use keyhook_core::time::Timestamp;

use crate::support::Kind;

const T: i64 = 1_800_000_000_000;
const NAMES: [&str; 3] = ["post.published", "post.deleted", "webhook.disabled"];
const PROFILES: [&str; 3] = ["p1", "p2", "p3"];
/// Filters that admit some events and refuse others, one that fails on events without
/// `data.n`, one whose result is not a boolean, and one that does not compile (stored
/// before the rules refused it).
const FILTERS: [&str; 7] = [
    "data.n > 1.0",
    "profileId == \"p1\"",
    "event == \"post.deleted\"",
    "data.n == 2.0 || data.n == 0.0",
    "data.n",
    "data.tags.exists(t, t == \"x\")",
    "data.n ==",
];

/// A webhook as generated: active, subscriptions (indexes into `NAMES`), scope (`None`: full
/// access), filter (index into `FILTERS`).
#[derive(Debug, Clone)]
struct Spec {
    active: bool,
    names: Vec<usize>,
    profiles: Option<Vec<usize>>,
    filter: Option<usize>,
}

/// An event as generated: name (0 or 1: emitted ones), profile, data.
#[derive(Debug, Clone)]
struct Ev {
    name: usize,
    profile: Option<usize>,
    data: Value,
}

fn spec() -> impl Strategy<Value = Spec> {
    (
        proptest::bool::weighted(0.8),
        proptest::collection::btree_set(0..NAMES.len(), 0..=3),
        proptest::option::weighted(0.5, proptest::collection::btree_set(0..3usize, 0..=2)),
        proptest::option::weighted(0.5, 0..FILTERS.len()),
    )
        .prop_map(|(active, names, profiles, filter)| Spec {
            active,
            names: names.into_iter().collect(),
            profiles: profiles.map(|p| p.into_iter().collect()),
            filter,
        })
}

fn ev() -> impl Strategy<Value = Ev> {
    let data = prop_oneof![
        Just(json!({})),
        (0..4i64).prop_map(|n| json!({ "n": n })),
        (0..4i64).prop_map(|n| json!({ "n": n, "tags": ["x"] })),
        Just(json!({ "tags": "not a list" })),
    ];
    (0..2usize, proptest::option::of(0..3usize), data).prop_map(|(name, profile, data)| Ev {
        name,
        profile,
        data,
    })
}

fn webhook(user: &str, i: usize, s: &Spec) -> Webhook {
    Webhook {
        id: format!("{user}-w{i}"),
        user_id: user.into(),
        url: format!("https://example.com/{i}"),
        events: s.names.iter().map(|n| NAMES[*n].to_string()).collect(),
        full_access: s.profiles.is_none(),
        profile_ids: s
            .profiles
            .iter()
            .flatten()
            .map(|p| PROFILES[*p].to_string())
            .collect(),
        filter: s.filter.map(|f| FILTERS[f].to_string()),
        secret: format!("whsec_{i}"),
        is_active: s.active,
        fail_count: 0,
        created_at: Timestamp(T),
        updated_at: Timestamp(T),
        ephemeral: false,
        control: Default::default(),
        signing: Default::default(),
        public_key: None,
        header_names: Vec::new(),
        private: Default::default(),
    }
}

/// What the rule says for one webhook and one event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Want {
    Deliver,
    Nothing,
    Skip,
}

/// The rule, stated again: active; subscribed; an event of a profile reaches a full-access
/// webhook or one listing the profile, a user-wide one only full-access webhooks; an
/// operational event about `about` reaches the user's other webhooks that are full-access
/// or list every profile of `about` (and `about` is not full-access); then the filter:
/// `true` delivers, `false` nothing, an error (or a filter that no longer compiles) skips.
fn want(
    w: &Webhook,
    name: &str,
    profile: Option<&str>,
    data: &Value,
    about: Option<&Webhook>,
) -> Want {
    if !w.is_active || !w.events.iter().any(|e| e == name) {
        return Want::Nothing;
    }
    let reach = match about {
        Some(a) => {
            a.id != w.id
                && (w.full_access
                    || (!a.full_access && a.profile_ids.iter().all(|p| w.profile_ids.contains(p))))
        }
        None => w.full_access || profile.is_some_and(|p| w.profile_ids.iter().any(|q| q == p)),
    };
    if !reach {
        return Want::Nothing;
    }
    let Some(src) = &w.filter else {
        return Want::Deliver;
    };
    let judged = Filter::new(src)
        .map_err(|_| "does not compile")
        .and_then(|f| f.matches(&Vars::new(name, profile, data)));
    match judged {
        Ok(true) => Want::Deliver,
        Ok(false) => Want::Nothing,
        Err(_) => Want::Skip,
    }
}

/// Every delivery as (delivery id, event id, webhook id).
fn deliveries(s: &Store) -> BTreeSet<(String, String, String)> {
    let table = TABLES.iter().find(|t| t.name == "deliveries").unwrap();
    s.conn()
        .read_rows(table, None, usize::MAX)
        .unwrap()
        .iter()
        .map(|r| match (&r[0], &r[1], &r[2]) {
            (Cell::Text(d), Cell::Text(e), Cell::Text(w)) => (d.clone(), e.clone(), w.clone()),
            other => panic!("{other:?}"),
        })
        .collect()
}

/// The deliveries queued since `before` was read, as (event id, webhook id).
fn queued_since(
    s: &Store,
    before: &BTreeSet<(String, String, String)>,
) -> BTreeSet<(String, String)> {
    deliveries(s)
        .difference(before)
        .map(|(_, e, w)| (e.clone(), w.clone()))
        .collect()
}

/// Every skip recorded as (row id, event id, webhook id).
fn skips(s: &Store, hooks: &[Webhook]) -> BTreeSet<(i64, String, String)> {
    hooks
        .iter()
        .flat_map(|w| {
            s.conn()
                .attempts(&w.id, 10_000)
                .unwrap()
                .into_iter()
                .filter(|a| a.skipped.is_some())
                .map(|a| (a.id, a.event_id, w.id.clone()))
        })
        .collect()
}

/// The skips recorded since `before` was read, as (event id, webhook id).
fn skipped_since(
    s: &Store,
    hooks: &[Webhook],
    before: &BTreeSet<(i64, String, String)>,
) -> BTreeSet<(String, String)> {
    skips(s, hooks)
        .difference(before)
        .map(|(_, e, w)| (e.clone(), w.clone()))
        .collect()
}

/// Pairs of (event id, webhook id).
type Pairs = BTreeSet<(String, String)>;

fn split<'a>(
    hooks: &'a [Webhook],
    rows: impl Iterator<Item = (&'a str, &'a Webhook, Want)>,
) -> (Pairs, Pairs) {
    let _ = hooks;
    let (mut deliver, mut skip) = (BTreeSet::new(), BTreeSet::new());
    for (event, w, want) in rows {
        match want {
            Want::Deliver => deliver.insert((event.to_string(), w.id.clone())),
            Want::Skip => skip.insert((event.to_string(), w.id.clone())),
            Want::Nothing => false,
        };
    }
    (deliver, skip)
}

/// One case: the user's webhooks, the events emitted, the webhook one operational event is
/// about, the webhook replayed to, and the changes made before a send.
fn one_case(
    s: &Store,
    user: &str,
    specs: &[Spec],
    evs: &[Ev],
    about: usize,
    replayed: usize,
    later: &[Spec],
) -> Result<(), TestCaseError> {
    let hooks: Vec<Webhook> = specs
        .iter()
        .enumerate()
        .map(|(i, sp)| webhook(user, i, sp))
        .collect();
    s.write(|c| {
        for w in &hooks {
            c.insert_webhook(w)?;
        }
        Ok(())
    })
    .unwrap();
    let actor = Actor::operator(user).unwrap();
    let before = deliveries(s);

    // Emit.
    let mut emitted = Vec::new();
    for (k, e) in evs.iter().enumerate() {
        let profile = e.profile.map(|p| PROFILES[p]);
        let input = NewEvent {
            event: Some(EventName::new(NAMES[e.name]).unwrap()),
            data: e.data.as_object().cloned(),
            profile_id: profile.map(|p| ProfileId::new(p).unwrap()),
            ..NewEvent::default()
        };
        let at = Timestamp(T + 1 + k as i64);
        let accepted = events::emit(s, &actor, input, at).unwrap();
        emitted.push((accepted.id, e));
    }
    let rows = emitted.iter().flat_map(|(id, e)| {
        let profile = e.profile.map(|p| PROFILES[p]);
        hooks.iter().map(move |w| {
            (
                id.as_str(),
                w,
                want(w, NAMES[e.name], profile, &e.data, None),
            )
        })
    });
    let (want_d, want_s) = split(&hooks, rows);
    let got_d = queued_since(s, &before);
    prop_assert_eq!(&got_d, &want_d, "emit: deliveries");
    prop_assert_eq!(
        &skipped_since(s, &hooks, &BTreeSet::new()),
        &want_s,
        "emit: skips"
    );

    // keyhook's own event about one of the webhooks.
    let about = &hooks[about % hooks.len()];
    let before_op = deliveries(s);
    let skips_before = skips(s, &hooks);
    let now = Timestamp(T + 100);
    s.write(|c| operational::webhook_disabled(c, about, "disabled manually", now))
        .unwrap();
    let new_d = queued_since(s, &before_op);
    let new_s = skipped_since(s, &hooks, &skips_before);
    let data = json!({
        "webhookId": about.id,
        "url": about.url,
        "reason": "disabled manually",
        "failCount": 0,
    });
    let op: Vec<(String, Want)> = hooks
        .iter()
        .map(|w| (w.id.clone(), want(w, NAMES[2], None, &data, Some(about))))
        .collect();
    let got: BTreeSet<String> = new_d.iter().map(|(_, w)| w.clone()).collect();
    let wanted: BTreeSet<String> = op
        .iter()
        .filter(|o| o.1 == Want::Deliver)
        .map(|o| o.0.clone())
        .collect();
    prop_assert_eq!(got, wanted, "operational: deliveries");
    let got: BTreeSet<String> = new_s.iter().map(|(_, w)| w.clone()).collect();
    let wanted: BTreeSet<String> = op
        .iter()
        .filter(|o| o.1 == Want::Skip)
        .map(|o| o.0.clone())
        .collect();
    prop_assert_eq!(got, wanted, "operational: skips");
    let ids: BTreeSet<&String> = new_d.iter().chain(&new_s).map(|(e, _)| e).collect();
    prop_assert!(ids.len() <= 1, "one event: {:?}", ids);

    // Replay to one webhook (an active one: the service refuses an inactive one), over the
    // events emitted (the operational event is user-wide when replayed).
    let target = &hooks[replayed % hooks.len()];
    if target.is_active {
        let before_r = deliveries(s);
        let skips_before = skips(s, &hooks);
        let now = Timestamp(T + 200);
        let request = ReplayRequest {
            since: Some(Timestamp(T)),
            ..ReplayRequest::default()
        };
        let done = replay::replay(s, &actor, &target.id, request, now).unwrap();
        let new_d = queued_since(s, &before_r);
        let new_s = skipped_since(s, &hooks, &skips_before);
        let mut all: Vec<(String, &str, Option<&str>, Value)> = emitted
            .iter()
            .map(|(id, e)| {
                (
                    id.clone(),
                    NAMES[e.name],
                    e.profile.map(|p| PROFILES[p]),
                    e.data.clone(),
                )
            })
            .collect();
        if let Some(id) = ids.iter().next() {
            all.push(((*id).clone(), NAMES[2], None, data.clone()));
        }
        let (mut want_d, mut want_s) = (BTreeSet::new(), BTreeSet::new());
        for (id, name, profile, data) in &all {
            match want(target, name, *profile, data, None) {
                Want::Deliver => want_d.insert((id.clone(), target.id.clone())),
                Want::Skip => want_s.insert((id.clone(), target.id.clone())),
                Want::Nothing => false,
            };
        }
        prop_assert_eq!(done.queued, want_d.len());
        prop_assert_eq!(new_d, want_d, "replay: deliveries");
        prop_assert_eq!(new_s, want_s, "replay: skips");
    }

    // The worker's check before a send, after the webhooks changed (disabled, scope
    // narrowed or widened): a queued delivery is sent only if the webhook is active and its
    // scope still reaches the event's profile (an operational event's reach was judged
    // against the webhook it is about, when queued).
    let changed: Vec<Webhook> = hooks
        .iter()
        .zip(later.iter().cycle())
        .map(|(w, sp)| {
            let mut w2 = webhook(user, 0, sp);
            w2.id = w.id.clone();
            w2
        })
        .collect();
    s.write(|c| {
        for w in &changed {
            c.update_webhook(w)?;
        }
        Ok(())
    })
    .unwrap();
    let queued = queued_since(s, &before);
    for (event_id, webhook_id) in queued {
        let w = changed.iter().find(|w| w.id == webhook_id).unwrap();
        let (name, profile) = s.conn().event_of(user, &event_id).unwrap().unwrap();
        let signing = s.signing(&webhook_id, now).unwrap().unwrap();
        let sent = routing::still_receives(&signing, &name, profile.as_ref());
        let reach = w.full_access
            || operational::is_operational(&name)
            || profile.as_ref().is_some_and(|p| w.profile_ids.contains(p));
        prop_assert_eq!(sent, w.is_active && reach, "send of {} to {:?}", name, w);
    }
    Ok(())
}

/// The property, on this backend: 32 random cases, each a user of its own in one database.
pub fn every_path_follows_the_one_rule(kind: &Kind) {
    let Some(db) = kind.db() else { return };
    let s = db.store();
    let mut runner = TestRunner::new(Config {
        cases: 32,
        failure_persistence: None,
        ..Config::default()
    });
    let n = std::sync::atomic::AtomicUsize::new(0);
    let strategy = (
        proptest::collection::vec(spec(), 1..=6),
        proptest::collection::vec(ev(), 1..=8),
        0..6usize,
        0..6usize,
        proptest::collection::vec(spec(), 1..=3),
    );
    runner
        .run(&strategy, |(specs, evs, about, replayed, later)| {
            let user = format!(
                "user{}",
                n.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            );
            one_case(&s, &user, &specs, &evs, about, replayed, &later)
        })
        .unwrap();
}

/// A replay reads the window in pages (`service::routing`), in `(created_at, id)` order: over
/// more than two pages, with hundreds of events in one millisecond across a page's edge,
/// every event is judged once, and those the rule takes are queued once each.
pub fn a_replay_reads_every_event_across_pages(kind: &Kind) {
    let Some(db) = kind.db() else { return };
    let s = db.store();
    let spec = Spec {
        active: true,
        names: vec![0],
        profiles: Some(vec![0]),
        filter: None,
    };
    let w = webhook("pager", 0, &spec);
    let (mut want, mut candidates) = (BTreeSet::new(), 0);
    s.write(|c| {
        c.insert_webhook(&w)?;
        for i in 0..1_601_i64 {
            // 700 events in one millisecond, the rest one per millisecond after it; every
            // third of profile p2 (out of the webhook's scope), every fifth of another name.
            let at = Timestamp(T + 1 + (i - 700).max(0));
            let id = format!("evt_{:032x}", (i * 7_919) % 1_601);
            let profile = if i % 3 == 0 { "p2" } else { "p1" };
            let name = if i % 5 == 0 { NAMES[1] } else { NAMES[0] };
            c.insert_event(&id, "pager", name, Some(profile), b"{}", at)?;
            candidates += usize::from(name == NAMES[0]);
            if i % 3 != 0 && i % 5 != 0 {
                want.insert(id);
            }
        }
        Ok(())
    })
    .unwrap();
    let before = deliveries(&s);
    let sel = keyhook_core::store::ReplaySelection {
        webhook_id: &w.id,
        user: "pager",
        since: Timestamp(T),
        event_id: None,
        failed_only: false,
        names: &w.events,
    };
    let routed = s
        .write(|c| routing::replay(c, &w, &sel, Timestamp(T + 10_000), 100_000))
        .unwrap();
    let got: Vec<String> = deliveries(&s)
        .difference(&before)
        .map(|(_, e, _)| e.clone())
        .collect();
    assert_eq!(routed.queued, want.len());
    assert_eq!(got.len(), want.len(), "each once");
    assert_eq!(got.into_iter().collect::<BTreeSet<_>>(), want);
    // The candidates (the events of the webhook's names) fill more than two pages of 500.
    assert!(candidates > 2 * 500, "{candidates}");
}
