//! The rules the backends run in SQL (`keyhook_core::store::sql`), a matrix of cases each,
//! run through the backend's store: what it selects must be what the core's rule in Rust
//! selects (`auth::covers`, `DeliveryState`'s sets, the boundaries the fragments state).
//! Every backend is held to the same answer, so the backends agree with each other too;
//! `semantics` compares their whole transcripts besides.

use keyhook_test_support::ClaimDue;
use std::collections::BTreeSet;

use keyhook_core::auth;
use keyhook_core::model::{EventAccepted, Webhook};
use keyhook_core::service::routing;
use keyhook_core::service::webhooks::GONE_REASON;
use keyhook_core::store::{
    AttemptRecord, Claimed, DeliveryState, FailCounter, ReplaySelection, Storage, Store,
};
use keyhook_core::tables::Cell;
use keyhook_core::time::Timestamp;

use crate::support::{table, Kind};

const T: i64 = 1_800_000_000_000;
const EVENTS: [&str; 2] = ["post.published", "post.deleted"];
const PROFILES: [Option<&str>; 4] = [None, Some("p1"), Some("p2"), Some("p3")];

fn hook(id: &str, events: &[&str], active: bool, profiles: Option<&[&str]>) -> Webhook {
    Webhook {
        id: id.into(),
        user_id: "u".into(),
        url: format!("https://example.com/{id}"),
        events: events.iter().map(|e| e.to_string()).collect(),
        full_access: profiles.is_none(),
        profile_ids: profiles
            .unwrap_or_default()
            .iter()
            .map(|p| p.to_string())
            .collect(),
        filter: None,
        secret: format!("whsec_{id}"),
        is_active: active,
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

/// Webhooks of every combination: subscribed to one event, the other or both; active or
/// not; full access, one profile, two, or a profile no event has; and one of another user.
fn hooks() -> Vec<Webhook> {
    let subscriptions: [&[&str]; 3] = [&EVENTS[..1], &EVENTS[1..], &EVENTS];
    let scopes: [Option<&[&str]>; 4] = [None, Some(&["p1"]), Some(&["p1", "p2"]), Some(&["p9"])];
    let mut all = Vec::new();
    for (i, events) in subscriptions.iter().enumerate() {
        for (j, scope) in scopes.iter().enumerate() {
            for active in [true, false] {
                let id = format!("w{i}{j}{}", u8::from(active));
                all.push(hook(&id, events, active, *scope));
            }
        }
    }
    let mut other = hook("x", &EVENTS, true, None);
    other.user_id = "v".into();
    all.push(other);
    all
}

/// `w` subscribes to `event` and its scope covers `profile`: the core's rule.
/// `hooks` stored, and one event (`evt_1`, `EVENTS[0]`, at `T`) queued for them.
fn one_event_to<'a>(s: &Store, hooks: impl IntoIterator<Item = &'a Webhook>) {
    s.write(|c| {
        for w in hooks {
            c.insert_webhook(w)?;
        }
        c.insert_event("evt_1", "u", EVENTS[0], None, b"{}", Timestamp(T))?;
        crate::support::fan_out(c, "evt_1", "u", EVENTS[0], None, Timestamp(T))?;
        Ok(())
    })
    .unwrap();
}

fn matches(w: &Webhook, event: &str, profile: Option<&str>) -> bool {
    w.events.iter().any(|e| e == event)
        && auth::covers(w.scope(), profile.map(String::from).as_ref())
}

fn text(c: &Cell) -> String {
    match c {
        Cell::Text(s) => s.clone(),
        other => panic!("not text: {other:?}"),
    }
}

fn int(c: &Cell) -> Option<i64> {
    match c {
        Cell::Int(i) => Some(*i),
        Cell::Null => None,
        other => panic!("not an integer: {other:?}"),
    }
}

/// Every delivery as (id, event, webhook, state, next attempt), sorted.
fn deliveries(s: &Store) -> BTreeSet<(String, String, String, String, Option<i64>)> {
    s.conn()
        .read_rows(table("deliveries"), None, usize::MAX)
        .unwrap()
        .iter()
        .map(|r| {
            (
                text(&r[0]),
                text(&r[1]),
                text(&r[2]),
                text(&r[3]),
                int(&r[5]),
            )
        })
        .collect()
}

/// A delivery row as `write_rows` takes it: the given state, attempts, lease and times.
struct Row<'a> {
    id: &'a str,
    event: &'a str,
    webhook: &'a str,
    state: DeliveryState,
    attempts: i64,
    lease_until: Option<i64>,
    created_at: i64,
}

fn put(s: &Store, rows: &[Row<'_>]) {
    let cells: Vec<Vec<Cell>> = rows
        .iter()
        .map(|r| {
            vec![
                Cell::Text(r.id.into()),
                Cell::Text(r.event.into()),
                Cell::Text(r.webhook.into()),
                Cell::Text(r.state.as_str().into()),
                Cell::Int(r.attempts),
                Cell::Int(T + 1_000_000),
                r.lease_until.map_or(Cell::Null, Cell::Int),
                Cell::Int(r.created_at),
                Cell::Int(r.created_at),
            ]
        })
        .collect();
    s.write(|c| Ok(c.write_rows(table("deliveries"), &cells)?))
        .unwrap();
}

/// The fan-out (`service::routing` over the backend's candidates): an event of each name and
/// profile reaches exactly the active webhooks of its user that subscribe to it and whose
/// scope covers its profile; those whose filter fails on it are skipped with a trace.
pub fn the_enqueue_reaches_the_webhooks_the_core_says(kind: &Kind) {
    let Some(db) = kind.db() else { return };
    let s = db.store();
    let mut hooks = hooks();
    // Every third webhook has a filter.
    for (i, w) in hooks.iter_mut().enumerate() {
        if i % 3 == 0 {
            w.filter = Some(format!("data.n == {i}"));
        }
    }
    s.write(|c| {
        for w in &hooks {
            c.insert_webhook(w)?;
        }
        Ok(())
    })
    .unwrap();
    let mut want = BTreeSet::new();
    for (i, event) in EVENTS.iter().enumerate() {
        for (j, profile) in PROFILES.iter().enumerate() {
            let id = format!("evt_{i}{j}");
            let queued = s
                .write(|c| {
                    c.insert_event(&id, "u", event, *profile, b"{}", Timestamp(T))?;
                    crate::support::fan_out(c, &id, "u", event, *profile, Timestamp(T))
                })
                .unwrap();
            let (filtered, reached): (Vec<&Webhook>, Vec<&Webhook>) = hooks
                .iter()
                .filter(|w| w.user_id == "u" && w.is_active && matches(w, event, *profile))
                .partition(|w| w.filter.is_some());
            assert_eq!(queued, reached.len(), "{event} of {profile:?}");
            // `{}` has no `n`: every filter fails, and skips its webhook with a trace.
            let skipped = s
                .conn()
                .list_webhooks("u")
                .unwrap()
                .iter()
                .flat_map(|w| s.conn().attempts(&w.id, 1000).unwrap())
                .filter(|a| a.event_id == id && a.skipped.as_deref() == Some("no such key"))
                .count();
            assert_eq!(skipped, filtered.len(), "{event} of {profile:?}");
            for w in reached {
                want.insert((id.clone(), w.id.clone(), "pending".to_string(), Some(T)));
            }
        }
    }
    assert!(want.len() > 10, "the matrix reaches some webhooks");
    let got: BTreeSet<_> = deliveries(&s)
        .into_iter()
        .map(|(_, e, w, st, next)| (e, w, st, next))
        .collect();
    assert_eq!(got, want);
}

/// The histories a replay looks at: for each, the deliveries (state, attempts, lease) of one
/// event to the webhook, oldest first.
const HISTORIES: &[&[(DeliveryState, i64, Option<i64>)]] = &[
    &[],
    &[(DeliveryState::Failed, 5, None)],
    &[(DeliveryState::Cancelled, 0, None)],
    &[(DeliveryState::Delivered, 1, None)],
    &[
        (DeliveryState::Failed, 5, None),
        (DeliveryState::Delivered, 1, None),
    ],
    &[
        (DeliveryState::Delivered, 1, None),
        (DeliveryState::Failed, 5, None),
    ],
    // Pending: new, waiting for a retry, in flight (leased), and leased until just now.
    &[(DeliveryState::Pending, 0, None)],
    &[(DeliveryState::Pending, 2, None)],
    &[(DeliveryState::Pending, 2, Some(T + 10_000_000))],
    &[(DeliveryState::Pending, 2, Some(T + 500))],
];

/// `replay` and `replay --failed-only` for webhooks of several scopes and subscriptions,
/// over events of both names, every profile and every history: queued are the events the
/// webhook subscribes to and covers, created since `since` (with `--failed-only`, only those
/// whose newest delivery is in `DeliveryState::REPLAYED_AS_FAILED`), and with
/// `--failed-only` the retries waiting unleased are made due now instead.
pub fn replay_selects_what_the_core_says(kind: &Kind) {
    let now = T + 500;
    let since = T;
    for target in ["w001", "w011", "w201", "w221"] {
        for failed_only in [false, true] {
            let Some(db) = kind.db() else { return };
            let s = db.store();
            let hooks = hooks();
            let w = hooks.iter().find(|w| w.id == target).unwrap();
            let (mut events, mut rows) = (Vec::new(), Vec::new());
            let (mut want_new, mut want_moved) = (BTreeSet::new(), BTreeSet::new());
            for (i, event) in EVENTS.iter().enumerate() {
                for (j, profile) in PROFILES.iter().enumerate() {
                    for (h, history) in HISTORIES.iter().enumerate() {
                        // An event from before `since` is never replayed nor retried.
                        for (old, created) in [(false, T + 1), (true, T - 1)] {
                            let id = format!("evt_{i}{j}{h:02}{}", u8::from(old));
                            for (k, (state, attempts, lease)) in history.iter().enumerate() {
                                rows.push((id.clone(), k as i64, *state, *attempts, *lease));
                                let waiting = *state == DeliveryState::Pending
                                    && *attempts > 0
                                    && lease.is_none_or(|l| l <= now);
                                if failed_only && waiting && !old {
                                    want_moved.insert(id.clone());
                                }
                            }
                            let newest = history.last().map(|(st, _, _)| *st);
                            // An inactive webhook receives nothing (the service refuses to
                            // replay to it before it asks).
                            let chosen = w.is_active
                                && matches(w, event, *profile)
                                && (!failed_only
                                    || newest.is_some_and(|st| {
                                        DeliveryState::REPLAYED_AS_FAILED.contains(&st)
                                    }));
                            if chosen && !old {
                                want_new.insert(id.clone());
                            }
                            events.push((id, *event, *profile, created));
                        }
                    }
                }
            }
            s.write(|c| {
                c.insert_webhook(w)?;
                for (id, event, profile, created) in &events {
                    c.insert_event(id, "u", event, *profile, b"{}", Timestamp(*created))?;
                }
                Ok(())
            })
            .unwrap();
            let ids: Vec<String> = (0..rows.len()).map(|n| format!("dlv_{n:08}")).collect();
            let put_rows: Vec<Row<'_>> = rows
                .iter()
                .zip(&ids)
                .map(|((event, k, state, attempts, lease), id)| Row {
                    id,
                    event,
                    webhook: target,
                    state: *state,
                    attempts: *attempts,
                    lease_until: *lease,
                    created_at: T + 10 + k,
                })
                .collect();
            put(&s, &put_rows);
            let before = deliveries(&s);
            let sel = ReplaySelection {
                webhook_id: target,
                user: "u",
                since: Timestamp(since),
                event_id: None,
                failed_only,
                names: &w.events,
            };
            let queued = s
                .write(|c| Ok(routing::replay(c, w, &sel, Timestamp(now), 100_000)?.queued))
                .unwrap();
            let after = deliveries(&s);
            let old_ids: BTreeSet<&String> = before.iter().map(|d| &d.0).collect();
            let new: BTreeSet<String> = after
                .iter()
                .filter(|d| !old_ids.contains(&d.0))
                .inspect(|d| assert_eq!((d.3.as_str(), d.4), ("pending", Some(now))))
                .map(|d| d.1.clone())
                .collect();
            let moved: BTreeSet<String> = after
                .difference(&before)
                .filter(|d| old_ids.contains(&d.0))
                .map(|d| d.1.clone())
                .collect();
            let case = format!("{target} failed_only={failed_only}");
            assert_eq!(after.len() - before.len(), want_new.len(), "{case}");
            assert_eq!(new, want_new, "{case}: queued");
            assert_eq!(moved, want_moved, "{case}: made due now");
            assert_eq!(queued, want_new.len() + want_moved.len(), "{case}");
            assert!(!want_new.is_empty(), "{case}: a real case");
            assert_eq!(failed_only, !want_moved.is_empty(), "{case}");
        }
    }
}

/// Retention with the cutoff at `T`: attempts, deliveries and events stamped just before,
/// at and just after it. Deleted are exactly the rows strictly before the cutoff, and of
/// deliveries only the finished ones (`DeliveryState::FINISHED`), and of events only those
/// no delivery refers to any more.
pub fn retention_deletes_what_the_core_says(kind: &Kind) {
    let Some(db) = kind.db() else { return };
    let s = db.store();
    let w = hook("w", &EVENTS, true, None);
    let stamps = [T - 1, T, T + 1];
    let mut rows = Vec::new();
    s.write(|c| {
        c.insert_webhook(&w)?;
        for (i, at) in stamps.iter().enumerate() {
            // An event with no delivery, and one per state.
            c.insert_event(
                &format!("evt_bare{i}"),
                "u",
                EVENTS[0],
                None,
                b"{}",
                Timestamp(*at),
            )?;
            for state in DeliveryState::ALL {
                let id = format!("evt_{i}_{}", state.as_str());
                c.insert_event(&id, "u", EVENTS[0], None, b"{}", Timestamp(*at))?;
                rows.push((format!("dlv_{i}_{}", state.as_str()), id, state, *at));
            }
            c.insert_attempts(&[AttemptRecord {
                webhook_id: "w",
                delivery_id: None,
                event_id: "evt_x",
                event: "webhook.test",
                attempt: 1,
                attempted_at: Timestamp(*at),
                delivered: i % 2 == 0,
                status_code: 200,
                status_text: "OK",
                duration_ms: 1,
                response_excerpt: "",
                skipped: None,
            }])?;
        }
        Ok(())
    })
    .unwrap();
    let put_rows: Vec<Row<'_>> = rows
        .iter()
        .map(|(id, event, state, at)| Row {
            id,
            event,
            webhook: "w",
            state: *state,
            attempts: 1,
            lease_until: None,
            created_at: *at,
        })
        .collect();
    put(&s, &put_rows);
    let cutoff = Timestamp(T);
    let (attempts, dlvs) = s
        .write(|c| {
            Ok((
                c.prune_attempts(cutoff, 1000)?,
                c.prune_deliveries(cutoff, 1000)?,
            ))
        })
        .unwrap();
    let events = s.write(|c| Ok(c.prune_events(cutoff, 1000)?)).unwrap();
    assert_eq!(attempts, 1, "the one attempt before the cutoff");
    let kept: BTreeSet<String> = deliveries(&s).into_iter().map(|d| d.0).collect();
    let want: BTreeSet<String> = rows
        .iter()
        .filter(|(_, _, state, at)| !(DeliveryState::FINISHED.contains(state) && *at < T))
        .map(|r| r.0.clone())
        .collect();
    assert_eq!(dlvs as usize, rows.len() - want.len());
    assert_eq!(kept, want);
    // Before the cutoff: the bare event and those whose delivery went (three finished).
    assert_eq!(events, 4);
    let left: BTreeSet<String> = s
        .conn()
        .read_rows(table("events"), None, usize::MAX)
        .unwrap()
        .iter()
        .map(|r| text(&r[0]))
        .collect();
    assert!(left.contains("evt_0_pending") && !left.contains("evt_0_failed"));
    assert!(left.contains("evt_bare1") && !left.contains("evt_bare0"));
    assert_eq!(s.conn().attempts("w", 10).unwrap().len(), 2);
}

/// Where the boundaries fall: a delivery due at `now` is due (and one at `now + 1` not); a
/// lease ending at `now` is free; a grace period ending at `now` has ended; a key expiring
/// at the cutoff is not expired before it; an idempotency record created at `stale_before`
/// is stale.
pub fn boundaries_fall_where_the_core_says(kind: &Kind) {
    let Some(db) = kind.db() else { return };
    let s = db.store();
    let now = T + 100;
    let w = hook("w", &EVENTS, true, None);
    s.write(|c| {
        c.insert_webhook(&w)?;
        c.insert_event("evt_1", "u", EVENTS[0], None, b"{}", Timestamp(T))?;
        Ok(())
    })
    .unwrap();
    let due_at = |next: i64, lease: Option<i64>| {
        let cells = vec![
            Cell::Text(format!("dlv_{next}_{lease:?}")),
            Cell::Text("evt_1".into()),
            Cell::Text("w".into()),
            Cell::Text("pending".into()),
            Cell::Int(1),
            Cell::Int(next),
            lease.map_or(Cell::Null, Cell::Int),
            Cell::Int(T),
            Cell::Int(T),
        ];
        s.write(|c| {
            c.write_rows(table("deliveries"), &[cells])?;
            let due = c.any_due(Timestamp(now), None)?;
            let claimed = c.claim_due(Timestamp(now), 10, Timestamp(now + 60_000), None)?;
            Ok((due, claimed.len()))
        })
        .unwrap()
    };
    assert_eq!(due_at(now + 1, None), (false, 0));
    assert_eq!(due_at(now, Some(now + 1)), (false, 0));
    assert_eq!(due_at(now, None), (true, 1));
    assert_eq!(due_at(now - 5, Some(now)), (true, 1));

    s.write(|c| {
        Ok(c.set_secret(
            "w",
            "whsec_new",
            Some(("whsec_w", Timestamp(now))),
            Timestamp(T),
        )?)
    })
    .unwrap();
    let secrets = |at: i64| {
        s.conn()
            .signing("w", Timestamp(at))
            .unwrap()
            .unwrap()
            .secrets
    };
    assert_eq!(secrets(now - 1), ["whsec_new", "whsec_w"]);
    assert_eq!(secrets(now), ["whsec_new"]);
    assert!(!s.conn().any_expired_secret(Timestamp(now - 1)).unwrap());
    assert!(s.conn().any_expired_secret(Timestamp(now)).unwrap());
    assert_eq!(
        s.write(|c| Ok(c.drop_expired_secrets(Timestamp(now - 1))?))
            .unwrap(),
        0
    );
    assert_eq!(
        s.write(|c| Ok(c.drop_expired_secrets(Timestamp(now))?))
            .unwrap(),
        1
    );

    let mut k = crate::semantics::key("k1", "u", "kp_00000001", T);
    k.expires_at = Some(Timestamp(now));
    s.write(|c| Ok(c.insert_key(&k, "hash1")?)).unwrap();
    assert!(s
        .conn()
        .keys_expired_before("u", Timestamp(now))
        .unwrap()
        .is_empty());
    assert_eq!(
        s.conn()
            .keys_expired_before("u", Timestamp(now + 1))
            .unwrap()
            .len(),
        1
    );
    s.conn().set_key_last_used("k1", Timestamp(now)).unwrap();
    s.conn()
        .set_key_last_used("k1", Timestamp(now - 1))
        .unwrap();
    assert_eq!(
        s.conn().key_by_hash("hash1").unwrap().unwrap().last_used_at,
        Some(Timestamp(now))
    );

    let accepted = |id: &str| EventAccepted {
        id: id.into(),
        event: EVENTS[0].into(),
        profile_id: None,
        created_at: Timestamp(T),
        deliveries: 0,
    };
    let claim = |id: &str, stale_before: i64| {
        s.write(|c| {
            Ok(c.claim_idempotency_key("u", "k", &accepted(id), Timestamp(stale_before))?)
        })
        .unwrap()
        .map(|e| e.id)
    };
    assert_eq!(claim("evt_a", 0), None);
    assert_eq!(claim("evt_b", T - 1), Some("evt_a".into()), "fresh: kept");
    assert_eq!(
        claim("evt_c", T),
        None,
        "created at stale_before: stale, taken"
    );
}

/// The reason a webhook was disabled stays through any update but one that enables it.
pub fn an_enable_clears_the_disable_reason_and_nothing_else_does(kind: &Kind) {
    let Some(db) = kind.db() else { return };
    let s = db.store();
    let mut w = hook("w", &EVENTS, true, None);
    s.write(|c| {
        c.insert_webhook(&w)?;
        c.set_fail_counter(
            "w",
            &FailCounter {
                user_id: "u".into(),
                is_active: false,
                fail_count: 1,
                disabled_reason: Some(GONE_REASON.into()),
                updated_at: Timestamp(T),
            },
        )?;
        Ok(())
    })
    .unwrap();
    let reason = || s.conn().disabled_reason("w").unwrap();
    assert_eq!(reason().as_deref(), Some(GONE_REASON));
    w.is_active = false;
    w.url = "https://example.com/moved".into();
    s.write(|c| Ok(c.update_webhook(&w)?)).unwrap();
    assert_eq!(reason().as_deref(), Some(GONE_REASON), "an edit keeps it");
    w.is_active = true;
    s.write(|c| Ok(c.update_webhook(&w)?)).unwrap();
    assert_eq!(reason(), None, "an enable clears it");
}

/// Who claims what (`claimable_sql!`): a normal worker (`only` = None) every webhook's due
/// deliveries but an ephemeral one's; a listener's worker its own webhook's alone, and
/// `any_due` says the same. A listener is stale when its last heartbeat is before the cutoff
/// (`stale_listener_sql!`: one at the cutoff is alive); a heartbeat moves only an ephemeral
/// webhook's.
pub fn claims_split_between_listeners_and_the_rest(kind: &Kind) {
    let Some(db) = kind.db() else { return };
    let s = db.store();
    let mut a = hook("eph-a", &EVENTS, true, None);
    a.ephemeral = true;
    let mut b = hook("eph-b", &EVENTS, true, None);
    b.ephemeral = true;
    let normal = hook("normal", &EVENTS, true, None);
    one_event_to(&s, [&a, &b, &normal]);
    let now = Timestamp(T + 1);
    let claim = |only: Option<&str>| {
        s.write(|c| {
            let due = c.any_due(now, only)?;
            let mut ids: Vec<String> = c
                .claim_due(now, 10, now.add_millis(60_000), only)?
                .into_iter()
                .map(|d| d.webhook_id)
                .collect();
            ids.sort();
            Ok((due, ids))
        })
        .unwrap()
    };
    assert_eq!(claim(Some("eph-b")), (true, vec!["eph-b".to_string()]));
    assert_eq!(claim(None), (true, vec!["normal".to_string()]));
    assert_eq!(
        claim(None),
        (false, vec![]),
        "eph-a's stays for its listener"
    );
    assert_eq!(claim(Some("normal-x")), (false, vec![]));
    assert_eq!(claim(Some("eph-a")), (true, vec!["eph-a".to_string()]));

    // Heartbeats: eph-a beats at T + 5; eph-b's is still its creation, T.
    let beat = |id: &str, at: i64| {
        s.write(|c| Ok(c.beat_listener(id, Timestamp(at))?))
            .unwrap()
    };
    assert!(beat("eph-a", T + 5));
    assert!(!beat("normal", T + 5), "not a listener");
    assert!(!beat("gone", T + 5));
    let stale = |cutoff: i64| -> Vec<String> {
        s.conn()
            .stale_listeners(Timestamp(cutoff))
            .unwrap()
            .into_iter()
            .map(|w| w.id)
            .collect()
    };
    assert_eq!(
        stale(T),
        Vec::<String>::new(),
        "a heartbeat at the cutoff is alive"
    );
    assert_eq!(stale(T + 1), ["eph-b"]);
    assert_eq!(stale(T + 6), ["eph-b", "eph-a"], "oldest heartbeat first");
    let listed = s.conn().list_webhooks("u").unwrap();
    let flags: Vec<(String, bool)> = listed.into_iter().map(|w| (w.id, w.ephemeral)).collect();
    assert_eq!(
        flags,
        [
            ("eph-a".to_string(), true),
            ("eph-b".to_string(), true),
            ("normal".to_string(), false)
        ]
    );
}

/// A claim leases every delivery it returns, in one statement, and `finish_deliveries` ends
/// exactly the ones it names (as `finish_delivery` does one): the worker's batch of
/// delivered ones. An empty list changes nothing.
pub fn a_batch_is_leased_and_finished_as_one_delivery_is(kind: &Kind) {
    let Some(db) = kind.db() else { return };
    let s = db.store();
    let (claimed, until) = one_event_claimed(&s, 3);
    let claimed: Vec<(String, String)> = claimed
        .into_iter()
        .map(|d| (d.webhook_id, d.delivery_id))
        .collect();
    let state = |id: &str| -> (String, i64, Option<i64>, i64) {
        let rows = deliveries_rows(&s);
        rows.into_iter()
            .find(|r| r.0 == id)
            .map(|r| (r.1, r.2, r.3, r.4))
            .expect("the delivery")
    };
    for (_, id) in &claimed {
        assert_eq!(state(id), ("pending".into(), 0, Some(until.0), T), "leased");
    }
    let done = Timestamp(T + 7);
    let (one, two, three) = (&claimed[0].1, &claimed[1].1, &claimed[2].1);
    s.write(|c| {
        c.finish_deliveries(&[], DeliveryState::Delivered, true, done)?;
        c.finish_deliveries(&[one, three], DeliveryState::Delivered, true, done)?;
        Ok(())
    })
    .unwrap();
    assert_eq!(state(one), ("delivered".into(), 1, None, done.0));
    assert_eq!(state(three), ("delivered".into(), 1, None, done.0));
    assert_eq!(
        state(two),
        ("pending".into(), 0, Some(until.0), T),
        "not named"
    );
}

/// `finish_claimed` ends the deliveries it is given, found where their claim found them
/// (`Claimed::row`) only while the id there is still theirs: a delivery whose row handle
/// points at another delivery's row (the table rebuilt since) is ended by its id, and the
/// other row is left as it was, alone or in a batch; a delivery without a handle too.
pub fn claimed_deliveries_end_themselves_and_no_other_row(kind: &Kind) {
    let Some(db) = kind.db() else { return };
    let s = db.store();
    let (claimed, _) = one_event_claimed(&s, 5);
    let state = |d: &Claimed| -> (String, i64) {
        let rows = deliveries_rows(&s);
        let r = rows.into_iter().find(|r| r.0 == d.delivery_id).unwrap();
        (r.1, r.2)
    };
    let elsewhere = |d: &Claimed, other: &Claimed| Claimed {
        row: other.row,
        ..d.clone()
    };
    let unknown = |d: &Claimed| Claimed {
        row: None,
        ..d.clone()
    };
    let done = Timestamp(T + 7);
    let [one, two, three, four, five] = &claimed[..] else {
        unreachable!()
    };
    // A batch: one where its claim found it, one whose handle points at `four`'s row.
    let (three_moved, two_moved) = (elsewhere(three, four), elsewhere(two, four));
    s.write(|c| {
        c.finish_claimed(&[], DeliveryState::Delivered, true, done)?;
        c.finish_claimed(&[one, &three_moved], DeliveryState::Delivered, true, done)?;
        // Alone, pointing at `four`'s row again; and one without a handle beside one with.
        c.finish_claimed(&[&two_moved], DeliveryState::Failed, true, done)?;
        c.finish_claimed(&[&unknown(five)], DeliveryState::Cancelled, false, done)?;
        Ok(())
    })
    .unwrap();
    assert_eq!(state(one), ("delivered".into(), 1));
    assert_eq!(state(three), ("delivered".into(), 1));
    assert_eq!(state(two), ("failed".into(), 1));
    assert_eq!(state(five), ("cancelled".into(), 0));
    assert_eq!(
        state(four),
        ("pending".into(), 0),
        "the row the handles pointed at"
    );
}

/// The attempts of a settled batch (`service::webhooks::AttemptLog`: one counter read and one
/// `insert_attempts` per run of attempts to a webhook) leave every webhook as logging them one
/// by one does: its counter, the disable (10th failure in a row, a 410 Gone, never undone by
/// a later success of the batch), its attempts in order, the audit entries; nothing, and no
/// error, for a webhook deleted before the batch was settled. A webhook's attempts coming
/// back after another's (a second run) count on from what the first run wrote.
pub fn attempts_logged_as_a_batch_write_what_one_by_one_writes(kind: &Kind) {
    use keyhook_core::service::webhooks::{log_attempt_disabling, log_attempt_in};
    use keyhook_core::service::webhooks::{AttemptLog, AttemptOf, DISABLE_AFTER_FAILURES};
    use keyhook_core::transport::Attempt;
    let Some(db) = kind.db() else { return };
    let s = db.store();
    let answer = |status: u16| Attempt {
        delivered: status == 200,
        status_code: status,
        status_text: format!("status {status}"),
        duration_ms: 2,
        response_excerpt: String::new(),
        retry_after_ms: None,
    };
    let (ok, fail, gone) = (answer(200), answer(500), answer(410));
    // (webhook, answer), in the order a batch settles them: runs per webhook.
    let mut batch: Vec<(&str, &Attempt)> = Vec::new();
    batch.extend([("a", &fail), ("a", &fail), ("a", &ok)]);
    batch.extend(std::iter::repeat_n(("a", &fail), 4));
    batch.extend([("b", &ok), ("b", &ok), ("b", &fail)]);
    batch.extend(std::iter::repeat_n(("a", &fail), 6));
    batch.extend([
        ("a", &ok),
        ("c", &gone),
        ("c", &ok),
        ("d", &fail),
        ("d", &ok),
    ]);
    let names = ["a", "b", "c", "d"];
    s.write(|c| {
        for way in ["one", "batch"] {
            for name in names {
                c.insert_webhook(&hook(&format!("{way}-{name}"), &EVENTS, true, None))?;
            }
        }
        Ok(())
    })
    .unwrap();
    s.write(|c| {
        c.delete_webhook("one-d")?;
        c.delete_webhook("batch-d")?;
        Ok(())
    })
    .unwrap();
    let ids: Vec<(String, String)> = batch
        .iter()
        .map(|(w, _)| (format!("one-{w}"), format!("batch-{w}")))
        .collect();
    let of = |webhook: &str, i: usize| AttemptOf {
        webhook_id: if webhook.starts_with("one-") {
            &ids[i].0
        } else {
            &ids[i].1
        },
        delivery_id: None,
        event_id: "evt_1",
        event: EVENTS[0],
        attempt: i as i64 + 1,
    };
    let at = |i: usize| Timestamp(T + 10 * i as i64);
    let mut one_by_one = Vec::new();
    for (i, (_, a)) in batch.iter().enumerate() {
        let reason = s
            .write(|c| log_attempt_disabling(c, of("one-", i), at(i), a))
            .unwrap();
        one_by_one.push(reason);
    }
    let batched = s
        .write(|c| {
            let mut log = AttemptLog::new(DISABLE_AFTER_FAILURES);
            let mut reasons = Vec::new();
            for (i, (_, a)) in batch.iter().enumerate() {
                reasons.push(log_attempt_in(c, &mut log, of("batch-", i), at(i), a)?);
            }
            log.flush(c)?;
            Ok(reasons)
        })
        .unwrap();
    assert_eq!(batched, one_by_one, "the disables, attempt by attempt");
    assert_eq!(
        one_by_one.iter().flatten().count(),
        2,
        "a disabled at its 10th failure in a row, c by its 410"
    );
    let audit = s.conn().list_audit(Some("u"), None, None, 100).unwrap();
    for name in names {
        let (one, bat) = (format!("one-{name}"), format!("batch-{name}"));
        let counter = |id: &str| s.write(|c| Ok(c.lock_fail_counter(id)?)).unwrap();
        let seen = counter(&one);
        assert_eq!(counter(&bat), seen, "{name}: the counter");
        let attempts = |id: &str| -> Vec<(i64, i64, bool, u16, String)> {
            let mut got: Vec<_> = s
                .conn()
                .attempts(id, 100)
                .unwrap()
                .into_iter()
                .map(|a| {
                    let row = (a.attempt, a.attempted_at.0, a.delivered);
                    (row.0, row.1, row.2, a.status_code, a.status_text)
                })
                .collect();
            got.reverse();
            got
        };
        assert_eq!(attempts(&bat), attempts(&one), "{name}: the attempts");
        let entries = |id: &str| -> Vec<(String, serde_json::Value)> {
            audit
                .iter()
                .filter(|e| e.target == id)
                .map(|e| (e.action.clone(), e.details.clone()))
                .collect()
        };
        assert_eq!(entries(&bat), entries(&one), "{name}: the audit entries");
        let expected = match name {
            "a" => Some((false, DISABLE_AFTER_FAILURES, 14)),
            "b" => Some((true, 1, 3)),
            "c" => Some((false, 1, 2)),
            _ => None,
        };
        let got = seen.map(|f| (f.is_active, f.fail_count, attempts(&one).len()));
        assert_eq!(got, expected, "{name}");
    }
}

/// `insert_attempts` writes all of its rows or, when one cannot be written (its delivery
/// does not exist), fails, and the transaction that called it writes none of them.
pub fn a_batch_of_attempts_with_one_bad_row_writes_none(kind: &Kind) {
    let Some(db) = kind.db() else { return };
    let s = db.store();
    s.write(|c| Ok(c.insert_webhook(&hook("w", &EVENTS, true, None))?))
        .unwrap();
    let row = |delivery: Option<&'static str>, n: i64| AttemptRecord {
        webhook_id: "w",
        delivery_id: delivery,
        event_id: "evt_x",
        event: EVENTS[0],
        attempt: n,
        attempted_at: Timestamp(T + n),
        delivered: true,
        status_code: 200,
        status_text: "OK",
        duration_ms: 1,
        response_excerpt: "",
        skipped: None,
    };
    let bad = [
        row(None, 1),
        row(None, 2),
        row(Some("dlv_missing"), 3),
        row(None, 4),
    ];
    assert!(s.write(|c| Ok(c.insert_attempts(&bad)?)).is_err());
    assert_eq!(s.conn().attempts("w", 10).unwrap().len(), 0, "none written");
    let good = [row(None, 1), row(None, 2), row(None, 3)];
    s.write(|c| Ok(c.insert_attempts(&good)?)).unwrap();
    let got: Vec<i64> = s
        .conn()
        .attempts("w", 10)
        .unwrap()
        .iter()
        .map(|a| a.attempt)
        .collect();
    assert_eq!(got, [3, 2, 1], "all of them, in order (newest first)");
}

/// Every delivery's (id, state, attempts, lease_until, updated_at), in the columns' order
/// of `deliveries` (as [`deliveries`] reads them).
/// One event to `n` active webhooks (`h-1`...), its `n` deliveries claimed at `T + 1` with a
/// minute's lease, in webhook order; and the lease's end.
fn one_event_claimed(s: &Store, n: usize) -> (Vec<Claimed>, Timestamp) {
    let ids: Vec<String> = (1..=n).map(|i| format!("h-{i}")).collect();
    let hooks: Vec<_> = ids.iter().map(|id| hook(id, &EVENTS, true, None)).collect();
    one_event_to(s, &hooks);
    let now = Timestamp(T + 1);
    let until = now.add_millis(60_000);
    let mut claimed = s.write(|c| Ok(c.claim_due(now, 10, until, None)?)).unwrap();
    claimed.sort_by(|a, b| a.webhook_id.cmp(&b.webhook_id));
    assert_eq!(claimed.len(), n);
    (claimed, until)
}

fn deliveries_rows(s: &Store) -> Vec<(String, String, i64, Option<i64>, i64)> {
    s.conn()
        .read_rows(table("deliveries"), None, usize::MAX)
        .unwrap()
        .iter()
        .map(|r| {
            let attempts = int(&r[4]).unwrap();
            (
                text(&r[0]),
                text(&r[3]),
                attempts,
                int(&r[6]),
                int(&r[8]).unwrap(),
            )
        })
        .collect()
}

/// The check a sender makes right before a delivery's request (`Storage::signing`: on
/// SQLite from the connection's cache while nobody has committed since) answers as the
/// webhook's row does at that moment: call after call as a plain read answers; another
/// instance's rotation, narrowing, disable and delete, and the connection's own write, at
/// the next call; the end of a rotation's grace period at `grace_ends_at` with nothing
/// committed; and an earlier time than the last call's as that time.
pub fn the_check_before_a_send_is_the_row_as_last_committed(kind: &Kind) {
    let Some(db) = kind.db() else { return };
    let (a, b) = (db.backend(2), db.backend(2));
    let (s, other) = (a.connect().unwrap(), b.connect().unwrap());
    let now = T + 100;
    let mut w = hook("w", &EVENTS, true, None);
    s.write(|c| Ok(c.insert_webhook(&w)?)).unwrap();
    let check = |at: i64| s.signing("w", Timestamp(at)).unwrap();
    let plain = |at: i64| s.conn().signing("w", Timestamp(at)).unwrap();
    for at in [now, now, now + 1] {
        assert_eq!(check(at), plain(at));
    }
    assert_eq!(check(now).unwrap().secrets, ["whsec_w"]);

    // Another instance rotates with a grace period ending at `now + 10`.
    other
        .write(|c| {
            Ok(c.set_secret(
                "w",
                "whsec_new",
                Some(("whsec_w", Timestamp(now + 10))),
                Timestamp(now),
            )?)
        })
        .unwrap();
    let signing = check(now).unwrap();
    assert_eq!(signing.secrets, ["whsec_new", "whsec_w"]);
    assert_eq!(signing.grace_ends_at, Some(Timestamp(now + 10)));
    assert_eq!(check(now + 9).unwrap().secrets, ["whsec_new", "whsec_w"]);
    let ended = check(now + 10).unwrap();
    assert_eq!(ended.secrets, ["whsec_new"], "the grace period has ended");
    assert_eq!(ended.grace_ends_at, None);
    assert_eq!(
        check(now + 5).unwrap().secrets,
        ["whsec_new", "whsec_w"],
        "an earlier time is answered as that time"
    );

    // Another instance narrows the scope, then disables it.
    w.full_access = false;
    w.profile_ids = vec!["p1".into()];
    other.write(|c| Ok(c.update_webhook(&w)?)).unwrap();
    let narrowed = check(now + 20).unwrap();
    assert_eq!(
        (narrowed.full_access, narrowed.profile_ids.as_slice()),
        (false, &["p1".to_string()][..])
    );
    w.is_active = false;
    other.write(|c| Ok(c.update_webhook(&w)?)).unwrap();
    assert!(!check(now + 20).unwrap().is_active);

    // The connection's own write: enabled again, with a new URL.
    w.is_active = true;
    w.url = "https://example.com/moved".into();
    s.write(|c| Ok(c.update_webhook(&w)?)).unwrap();
    let own = check(now + 20).unwrap();
    assert!(own.is_active);
    assert_eq!(own.url, "https://example.com/moved");
    assert_eq!(check(now + 20), plain(now + 20));

    // Deleted by another instance.
    other.write(|c| Ok(c.delete_webhook("w")?)).unwrap();
    assert_eq!(check(now + 20), None);
}

/// A claim within a byte budget (`OutboxQueries::claim_due_within`) takes due deliveries in
/// due order while the payloads before each come to less than the budget: the first whenever
/// there is a budget, one payload past it at most; the rest stay pending and unleased, taken
/// by the next claim.
pub fn a_claim_stops_at_its_payload_budget(kind: &Kind) {
    let Some(db) = kind.db() else { return };
    let s = db.store();
    let now = T + 100;
    s.write(|c| {
        c.insert_webhook(&hook("w", &EVENTS, true, None))?;
        // Five events of 1,000 bytes, due one after the other.
        for i in 0..5i64 {
            let id = format!("evt_{i}");
            c.insert_event(&id, "u", EVENTS[0], None, &[b'x'; 1000], Timestamp(T + i))?;
            crate::support::fan_out(c, &id, "u", EVENTS[0], None, Timestamp(T + i))?;
        }
        Ok(())
    })
    .unwrap();
    let claim = |bytes: usize| {
        s.write(|c| {
            let got =
                c.claim_due_within(Timestamp(now), 10, bytes, Timestamp(now + 60_000), None)?;
            Ok(got.into_iter().map(|d| d.event_id).collect::<Vec<_>>())
        })
        .unwrap()
    };
    // No budget: nothing. Under one payload: the first due one alone.
    assert_eq!(claim(0), Vec::<String>::new());
    assert_eq!(claim(1), ["evt_0"]);
    // 2,000 bytes: two start under it (0 and 1,000 before them), the third would not.
    assert_eq!(claim(2_000), ["evt_1", "evt_2"]);
    // 2,001: the third starts at 2,000, under it.
    assert_eq!(claim(2_001), ["evt_3", "evt_4"]);
    assert_eq!(claim(usize::MAX), Vec::<String>::new());
}
