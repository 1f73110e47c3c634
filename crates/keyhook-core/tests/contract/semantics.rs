//! The same calls, with the same arguments, on every backend give the answers they give on
//! the reference backend (SQLite): every method of `Queries`, in and out of a write
//! transaction, ordering and ties, prefixes with pattern characters, the failure count and
//! its threshold, the outbox. Then `db copy`'s batches move everything from the reference to
//! the backend and back unchanged.

use keyhook_core::model::{ApiKey, EventProfile, EventType, Permission, Webhook};
use keyhook_core::service::webhooks::record_attempt;
use keyhook_core::store::{
    AttemptRecord, Backend, DeliveryState, ReplaySelection, RequestClaim, Store,
};
use keyhook_core::tables::{Cell, TABLES};
use keyhook_core::time::Timestamp;
use keyhook_test_support::{ClaimDue, DeliveryCounts, KeyByHash};

use crate::support::{Kind, BACKENDS};

const T: i64 = 1_800_000_000_000;

/// A fresh database of the reference backend, the first of [`BACKENDS`].
fn reference() -> crate::support::Db {
    BACKENDS[0]
        .db()
        .expect("the reference backend runs everywhere")
}

pub fn key(id: &str, user: &str, prefix: &str, created: i64) -> ApiKey {
    ApiKey {
        id: id.into(),
        user_id: user.into(),
        key_prefix: prefix.into(),
        name: format!("name of {id}"),
        permission: Permission::Readwrite,
        full_access: true,
        profile_ids: vec![],
        last_used_at: None,
        expires_at: None,
        rate_limit: None,
        remaining_uses: None,
        budget_id: None,
        created_at: Timestamp(created),
        key: None,
    }
}

fn hook(id: &str, user: &str, events: &[&str], active: bool, created: i64) -> Webhook {
    Webhook {
        id: id.into(),
        user_id: user.into(),
        url: format!("https://example.com/{id}"),
        events: events.iter().map(|e| e.to_string()).collect(),
        full_access: true,
        profile_ids: vec![],
        filter: None,
        secret: format!("whsec_{id}"),
        is_active: active,
        fail_count: 0,
        created_at: Timestamp(created),
        updated_at: Timestamp(created),
        ephemeral: false,
        control: Default::default(),
        signing: Default::default(),
        public_key: None,
        header_names: Vec::new(),
        private: Default::default(),
    }
}

fn attempt<'a>(webhook: &'a str, delivered: bool, at: i64) -> AttemptRecord<'a> {
    AttemptRecord {
        webhook_id: webhook,
        delivery_id: None,
        event_id: "evt_x",
        event: "webhook.test",
        attempt: 1,
        attempted_at: Timestamp(at),
        delivered,
        status_code: if delivered { 204 } else { 503 },
        status_text: if delivered {
            "No Content"
        } else {
            "Service Unavailable"
        },
        duration_ms: 12,
        response_excerpt: "é ok",
        skipped: None,
    }
}

/// Runs every query on `s` and writes down what each answered.
fn exercise(s: &Store) -> Vec<String> {
    let mut out = Vec::new();
    macro_rules! note {
        ($e:expr) => {
            out.push(format!("{} => {:?}", stringify!($e), $e))
        };
    }
    let c = s.conn();
    // Keys: ties on created_at are ordered by id, byte for byte ("K" before "k").
    let mut k2 = key("k2", "u", "kp_0000000a", T);
    k2.permission = Permission::Readonly;
    k2.full_access = false;
    k2.profile_ids = vec!["p1".into(), "p é".into()];
    k2.expires_at = Some(Timestamp(T + 50));
    let mut k3 = key("K3", "u", "kp_0000000a", T);
    k3.expires_at = Some(Timestamp(T + 10));
    // A budget of uses, shared by k2, which continues k3's chain.
    k3.remaining_uses = Some(5);
    k2.budget_id = Some("K3".into());
    k2.remaining_uses = Some(5);
    let keys = [
        key("k1", "u", "kp_00000001", T + 1),
        k2,
        k3,
        key("k4", "v", "kp_00000004", T - 5),
    ];
    s.write(|c| {
        for (i, k) in keys.iter().enumerate() {
            c.insert_key(k, &format!("hash{i}"))?;
        }
        c.ensure_user("u", Timestamp(T + 999))?;
        Ok(())
    })
    .unwrap();
    note!(c.key_by_hash("hash1"));
    note!(c.key_by_hash("nothing"));
    note!(s.key_by_hash("hash2"));
    note!(c.keys_by_id_or_prefix(Some("u"), "kp_0000000a"));
    note!(c.keys_by_id_or_prefix(Some("v"), "kp_0000000a"));
    note!(c.keys_by_id_or_prefix(None, "k4"));
    note!(s.write(|c| Ok(c.keys_by_id_or_prefix(Some("u"), "k1")?)));
    note!(c.list_keys(Some("u")));
    note!(c.list_keys(None));
    note!(c.keys_expired_before("u", Timestamp(T + 50)));
    note!(s.write(|c| Ok(c.keys_expired_before("u", Timestamp(T + 51))?)));
    note!(s.write(|c| Ok(c.set_key_expiry("k1", Timestamp(T + 7))?)));
    note!(s.record_key_use("hash0", "k1", Timestamp(T + 100)));
    note!(c.set_key_last_used("k1", Timestamp(T + 90)));
    note!(s.write(|c| Ok(c.set_key_last_used("k1", Timestamp(T + 101))?)));
    note!(c.key_by_hash("hash0"));
    note!(s.write(|c| Ok((c.delete_key("K3")?, c.delete_key("K3")?))));
    note!(c.list_keys(None));

    // Webhooks: prefixes are compared character for character; '%' and '_' match nothing.
    let hooks = [
        hook("abc-1", "u", &["post.published"], true, T),
        hook("abc-2", "u", &["post.published", "post.deleted"], true, T),
        // A rated webhook (a rate no claim here exhausts): its claims write its bucket's row.
        Webhook {
            control: keyhook_core::model::DeliveryControl {
                rate: Some(keyhook_core::rate::RateLimit::parse("1000/s").unwrap()),
                ..Default::default()
            },
            ..hook("abd-3", "u", &["post.deleted"], true, T - 1)
        },
        hook("ab%_4", "u", &["post.published"], false, T + 3),
        hook("abc-5", "v", &["post.published"], true, T),
        // Profile scope: a webhook of profiles p1 and p2.
        Webhook {
            full_access: false,
            profile_ids: vec!["p1".into(), "p2".into()],
            ..hook("abe-6", "u", &["post.published"], true, T + 4)
        },
    ];
    s.write(|c| {
        for w in &hooks {
            c.insert_webhook(w)?;
        }
        // Secrets at rest: the fingerprint of the key, written and replaced.
        c.set_secrets_fingerprint("sha256:00")?;
        c.set_secrets_fingerprint("sha256:0123")?;
        Ok(())
    })
    .unwrap();
    note!(c.secrets_fingerprint());
    // The rated webhook's token bucket: made full by its first lock, then written.
    note!(s.write(|c| {
        let mut buckets = c.lock_rate_buckets(&["abd-3"], Timestamp(T))?;
        for b in &mut buckets {
            // Tokens left: nothing held (a `next_at` would hold the webhook's claims below).
            b.millitokens = Some(1500);
            b.at = Timestamp(T + 1);
        }
        c.write_rate_buckets(&buckets)?;
        Ok(c.lock_rate_buckets(&["abd-3"], Timestamp(T))?)
    }));
    note!(c.count_webhooks("u"));
    note!(s.write(|c| Ok(c.count_webhooks("v")?)));
    note!(c.list_webhooks("u"));
    note!(c.webhook("u", "abc-1"));
    note!(c.webhook("v", "abc-1"));
    note!(s.write(|c| Ok(c.webhook("u", "abd-3")?)));
    for prefix in ["abc", "ab", "a%", "ab%", "ab_", "AB", "abc-2x"] {
        note!((prefix, c.webhooks_by_id_prefix("u", prefix, 10)));
    }
    note!(c.webhooks_by_id_prefix("u", "ab", 2));
    note!(s.write(|c| Ok(c.webhooks_by_id_prefix("u", "abc", 10)?)));
    let mut changed = hooks[2].clone();
    changed.url = "https://example.com/moved".into();
    changed.events = vec!["post.published".into()];
    changed.updated_at = Timestamp(T + 20);
    note!(s.write(|c| Ok(c.update_webhook(&changed)?)));
    // Failures count up to the threshold (3 here), disabling once; a success resets.
    for (i, delivered) in [false, false, true, false, false, false, false]
        .iter()
        .enumerate()
    {
        note!(s.write(|c| record_attempt(c, &attempt("abc-1", *delivered, T + i as i64), 3)));
        note!(c.webhook("u", "abc-1"));
    }
    note!(s.write(|c| record_attempt(c, &attempt("gone", false, T), 3)));
    note!(c.attempts("abc-1", 4));
    note!(c.attempts("gone", 4));

    // The audit log: listed newest first per user, `since` inclusive, ties on
    // `at` by id; pruned oldest first in batches.
    s.write(|c| {
        for (i, (user, at)) in [("u", 5), ("v", 5), ("u", 5), ("u", 9), ("u", 1)]
            .iter()
            .enumerate()
        {
            c.insert_audit(&keyhook_core::model::AuditEntry {
                id: 0,
                user_id: user.to_string(),
                at: Timestamp(T + at),
                actor: "cli:root".into(),
                via: "cli".into(),
                action: "key.created".into(),
                target: format!("t{i}"),
                details: serde_json::json!({"name": "é", "n": i, "list": [1, null]}),
                full_access: i % 2 == 0,
                profile_ids: if i % 2 == 0 {
                    vec![]
                } else {
                    vec!["p1".into()]
                },
            })?;
        }
        Ok(())
    })
    .unwrap();
    note!(c.list_audit(Some("u"), None, None, 10));
    note!(c.list_audit(Some("u"), Some(Timestamp(T + 5)), None, 2));
    note!(c.list_audit(None, None, None, 3));
    note!(c.list_audit(Some("nobody"), None, None, 3));
    note!(s.write(|c| Ok(c.prune_audit(Timestamp(T + 5), 1)?)));
    note!(s.write(|c| Ok(c.prune_audit(Timestamp(T + 6), 10)?)));
    note!(c.list_audit(None, None, None, 10));

    // The outbox. Delivery ids are random: answers are written down without them.
    let payload = b"{\"a\":1,\"b\":[\"\\u00e9\"]}\x00\xff".to_vec();
    note!(s.write(|c| {
        c.insert_event("evt_1", "u", "post.published", None, &payload, Timestamp(T))?;
        c.insert_event("evt_2", "w", "post.deleted", None, b"{}", Timestamp(T + 1))?;
        Ok((
            crate::support::fan_out(c, "evt_1", "u", "post.published", None, Timestamp(T))?,
            crate::support::fan_out(c, "evt_2", "u", "post.deleted", None, Timestamp(T + 5))?,
            crate::support::fan_out(
                c,
                "evt_2",
                "u",
                "nothing.subscribes",
                None,
                Timestamp(T + 5),
            )?,
        ))
    }));
    // The matching rule (`service::routing`): an event of p2 reaches the full-access webhooks and
    // abe-6, one of p3 only the full-access ones, a user-wide one too.
    note!(s.write(|c| {
        let mut n = Vec::new();
        for (id, profile) in [("evt_p2", Some("p2")), ("evt_p3", Some("p3"))] {
            c.insert_event(id, "u", "post.published", profile, b"{}", Timestamp(T + 2))?;
            n.push(crate::support::fan_out(
                c,
                id,
                "u",
                "post.published",
                profile,
                Timestamp(T + 2),
            )?);
            n.push(c.delivery_counts()?.iter().map(|(_, k)| k).sum::<i64>() as usize);
        }
        Ok(n)
    }));
    note!(c.event_of("u", "evt_p2"));
    note!(c.any_due(Timestamp(T - 1), None));
    note!(c.any_due(Timestamp(T), None));
    note!(c.delivery_counts());
    let claim = |now: i64, limit: usize| {
        let mut got: Vec<_> = s
            .write(|c| Ok(c.claim_due(Timestamp(now), limit, Timestamp(now + 60_000), None)?))
            .unwrap()
            .into_iter()
            .map(|d| {
                (
                    d.event_id,
                    d.event,
                    d.payload,
                    d.attempts,
                    d.webhook_id,
                    d.webhook_active,
                    d.delivery_id,
                )
            })
            .collect();
        got.sort();
        got
    };
    let first = claim(T, 2);
    let ids: Vec<String> = first.iter().map(|d| d.6.clone()).collect();
    note!(first.iter().map(|d| (&d.0, &d.3, &d.4)).collect::<Vec<_>>());
    note!(first.iter().map(|d| (&d.1, &d.2, d.5)).collect::<Vec<_>>());
    note!(ids.iter().all(|id| {
        id.len() == 28
            && id.starts_with("dlv_")
            && id[4..]
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    }));
    note!(c.any_due(Timestamp(T), None));
    note!(claim(T + 5, 10)
        .iter()
        .map(|d| (&d.0, &d.4))
        .collect::<Vec<_>>());
    note!(claim(T + 5, 10).len());
    note!(s.write(|c| {
        c.finish_delivery(&ids[0], DeliveryState::Delivered, true, Timestamp(T + 6))?;
        c.retry_delivery(&ids[1], Timestamp(T + 100), Timestamp(T + 6))?;
        Ok(())
    }));
    note!(c.delivery_counts());
    note!(c.any_due(Timestamp(T + 99), None));
    note!(claim(T + 100, 10)
        .iter()
        .map(|d| (&d.0, d.3, &d.4))
        .collect::<Vec<_>>());
    note!(s.write(|c| Ok((c.delete_webhook("abc-2")?, c.delete_webhook("abc-2")?))));
    note!(c.delivery_counts());
    note!(c.list_webhooks("u"));

    // Replay and idempotency keys.
    note!(c.event_of("u", "evt_1"));
    note!(c.event_of("v", "evt_1"));
    let names = ["post.published".to_string(), "post.deleted".to_string()];
    let sel = |since: i64, event_id: Option<&'static str>, failed_only: bool| ReplaySelection {
        webhook_id: "abc-1",
        user: "u",
        since: Timestamp(since),
        event_id,
        failed_only,
        names: &names,
    };
    note!(c.replay_candidates(&sel(T, None, false), None, 10, true));
    note!(c.replay_candidates(&sel(T, None, true), None, 10, true));
    note!(c.replay_candidates(&sel(T + 1, None, false), None, 10, true));
    note!(c.replay_candidates(&sel(T, None, false), None, 1, true));
    note!(c.replay_candidates(
        &sel(T, None, false),
        Some((Timestamp(T), "evt_1")),
        10,
        true
    ));
    note!(c.replay_candidates(
        &sel(T, None, false),
        Some((Timestamp(T + 1), "evt_0")),
        10,
        true
    ));
    note!(c.replay_candidates(&sel(0, Some("evt_2"), false), None, 10, true));
    note!(c.replay_candidates(&sel(0, Some("evt_1"), true), None, 10, true));
    note!(c.replay_candidates(&sel(T, None, false), None, 10, false));
    note!(s.write(|c| Ok(c.replay_retry_now(&sel(T, None, true), Timestamp(T + 200))?)));
    note!(s.write(|c| Ok(c.insert_deliveries(
        &[("evt_1", "abc-1"), ("evt_2", "abc-1")],
        Timestamp(T + 200)
    )?)));
    note!(s.write(|c| Ok(c.insert_deliveries(&[], Timestamp(T + 200))?)));
    note!(s.write(|c| Ok(c.insert_deliveries(&[("evt_1", "abc-1")], Timestamp(T + 201))?)));
    note!(s.write(|c| Ok(c.insert_attempts(&[AttemptRecord::skip(
        "abc-1",
        "evt_1",
        "post.published",
        "no such key",
        Timestamp(T + 202)
    )])?)));
    note!(c.attempts("abc-1", 2));
    note!(c.delivery_counts());
    let accepted = |id: &str, at: i64| keyhook_core::model::EventAccepted {
        id: id.into(),
        event: "post.published".into(),
        profile_id: None,
        created_at: Timestamp(at),
        deliveries: 0,
    };
    note!(s.write(|c| Ok(c.claim_idempotency_key(
        "u",
        "k",
        &accepted("evt_i1", T),
        Timestamp(0)
    )?)));
    note!(s.write(|c| Ok(c.set_idempotency_deliveries("u", None, "k", 3)?)));
    // Held per profile: the same key for p1 is another key.
    let of_p1 = keyhook_core::model::EventAccepted {
        profile_id: Some("p1".into()),
        ..accepted("evt_ip1", T)
    };
    note!(s.write(|c| Ok(c.claim_idempotency_key("u", "k", &of_p1, Timestamp(0))?)));
    note!(s.write(|c| Ok(c.set_idempotency_deliveries("u", Some("p1"), "k", 2)?)));
    note!(s.write(|c| Ok(c.claim_idempotency_key("u", "k", &of_p1, Timestamp(0))?)));
    note!(s.write(|c| Ok(c.claim_idempotency_key(
        "u",
        "k",
        &accepted("evt_i2", T + 1),
        Timestamp(T - 1)
    )?)));
    note!(s.write(|c| Ok(c.claim_idempotency_key(
        "v",
        "k",
        &accepted("evt_i3", T + 1),
        Timestamp(T - 1)
    )?)));
    note!(s.write(|c| Ok(c.claim_idempotency_key(
        "u",
        "k",
        &accepted("evt_i4", T + 2),
        Timestamp(T)
    )?)));
    note!(s.write(|c| Ok(c.claim_idempotency_key(
        "u",
        "k",
        &accepted("evt_i5", T + 3),
        Timestamp(T)
    )?)));
    note!(s.write(|c| Ok(c.prune_idempotency(Timestamp(T + 2), 10)?)));
    note!(s.write(|c| Ok(c.prune_idempotency(Timestamp(T + 2), 10)?)));
    // Idempotent webhook requests: taken, held in progress, answered, held with the answer,
    // taken again once stale; released; one left in progress and one answered for db copy.
    let claim = |id: &'static str, key: &'static str, at: i64| RequestClaim {
        id,
        user: "u",
        route: "POST /webhooks",
        target: "",
        key,
        fingerprint: "f",
        at: Timestamp(at),
    };
    let take = |cl: RequestClaim<'static>, stale: i64, abandoned: i64| {
        s.write(|c| Ok(c.claim_request(&cl, Timestamp(stale), Timestamp(abandoned))?))
    };
    note!(take(claim("r1", "a", T), 0, 0));
    note!(take(claim("r2", "a", T + 1), 0, 0));
    note!(take(claim("r3", "a", T + 1), 0, T));
    note!(s.write(|c| Ok(c.answer_request("r1", "{}")?)));
    note!(s.write(|c| Ok(c.answer_request("r3", "{\"queued\":1}")?)));
    note!(take(claim("r4", "a", T + 2), 0, T + 2));
    note!(take(claim("r5", "a", T + 3), T + 1, 0));
    note!(s.write(|c| Ok(c.release_request("r5")?)));
    note!(take(claim("r6", "a", T + 4), 0, 0));
    note!(s.write(|c| Ok(c.answer_request("r6", "{\"queued\":2}")?)));
    note!(take(claim("r7", "b", T + 4), 0, 0));
    note!(take(claim("r8", "c", T), 0, 0));
    note!(s.write(|c| Ok(c.prune_requests(Timestamp(T + 1), 10)?)));

    // The event catalog: seeded, added to (schema and example kept as JSON, names sorted
    // byte for byte), changed, counted where used, deleted.
    note!(c.list_event_types());
    let mut et = EventType {
        name: "post.updated".into(),
        description: Some("é".into()),
        schema: Some(serde_json::json!({"type": "object", "required": ["b", "a"]})),
        example: Some(serde_json::json!({"b": 1.5, "a": [null, true]})),
        profile: EventProfile::Required,
        deprecated: false,
        created_at: Timestamp(T),
        updated_at: Timestamp(T),
    };
    note!(s.write(|c| Ok(c.insert_event_type(&et)?)));
    note!(c.event_type("post.updated"));
    note!(c.event_type("post.nothing"));
    et.schema = None;
    et.profile = EventProfile::None;
    et.deprecated = true;
    et.updated_at = Timestamp(T + 1);
    note!(s.write(|c| Ok(c.update_event_type(&et)?)));
    note!(s.write(|c| Ok(c.event_type("post.updated")?)));
    note!(c.event_type_uses("post.published"));
    note!(c.event_type_uses("post.updated"));
    note!(c.event_type_uses("post"));
    note!(s.write(|c| Ok((
        c.delete_event_type("post.failed")?,
        c.delete_event_type("post.failed")?
    ))));
    note!(c.list_event_types());

    // The developer portal: links (one per state) and sessions; ties by id, byte for byte.
    let link = |id: &str, user: &str, at: i64| keyhook_core::store::PortalLinkRow {
        id: id.into(),
        user_id: user.into(),
        full_access: false,
        profile_ids: vec!["p1".into(), "p é".into()],
        read_only: true,
        minted_by_key: Some("k1".into()),
        minted_by: "kp_00000001".into(),
        created_at: Timestamp(at),
        expires_at: Timestamp(at + 100),
        used_at: None,
        revoked_at: None,
    };
    let mut open_all = link("pl_B", "u", T);
    open_all.full_access = true;
    open_all.profile_ids = Vec::new();
    open_all.read_only = false;
    open_all.minted_by_key = None;
    s.write(|c| {
        c.insert_portal_link(&link("pl_a", "u", T), "lh1")?;
        c.insert_portal_link(&open_all, "lh2")?;
        c.insert_portal_link(&link("pl_v", "v", T - 1), "lh3")?;
        Ok(())
    })
    .unwrap();
    note!(s.write(|c| Ok(c.use_portal_link("pl_a", Timestamp(T + 1))?)));
    note!(s.write(|c| Ok(c.use_portal_link("pl_a", Timestamp(T + 2))?)));
    s.write(|c| {
        for (id, link, hash) in [
            ("ps_1", "pl_a", "sh1"),
            ("ps_2", "pl_B", "sh2"),
            ("ps_3", "pl_v", "sh3"),
        ] {
            c.insert_portal_session(
                &keyhook_core::store::PortalSessionRow {
                    id: id.into(),
                    link_id: link.into(),
                    created_at: Timestamp(T + 3),
                    expires_at: Timestamp(T + 1000),
                },
                hash,
            )?;
        }
        Ok(())
    })
    .unwrap();
    note!(c.portal_link_by_token("lh1"));
    note!(c.portal_link_by_token("nothing"));
    note!(c.portal_link("u", "pl_B"));
    note!(c.portal_link("v", "pl_B"));
    note!(c.portal_session_by_token("sh2"));
    note!(c.list_portal_links("u"));
    note!(c.list_portal_sessions("u"));
    note!(s.write(|c| Ok(c.revoke_portal_links("v", Some("pl_v"), Timestamp(T + 5))?)));
    note!(s.write(|c| Ok(c.revoke_portal_links("v", None, Timestamp(T + 6))?)));
    note!(c.portal_session_by_token("sh3"));
    note!(c.list_portal_links("v"));
    note!(s.write(|c| Ok(c.delete_portal_session("ps_2")?)));
    note!(s.write(|c| Ok(c.delete_portal_session("ps_2")?)));

    for t in TABLES {
        note!((t.name, c.count_rows(t)));
    }
    out
}

/// Every query answers on `kind` as on the reference.
pub fn every_query_answers_as_on_the_reference(kind: &Kind) {
    let Some(db) = kind.db() else { return };
    let reference = reference();
    same(exercise(&db.store()), exercise(&reference.store()));
}

/// The two transcripts, compared line by line so that a failure shows the first call that
/// answered differently.
fn same(got: Vec<String>, want: Vec<String>) {
    for (g, w) in got.iter().zip(&want) {
        assert_eq!(g, w);
    }
    assert_eq!(got.len(), want.len());
}

/// The same in a database whose default collation is not byte order (ICU's root locale
/// sorts "k2" before "K3" and ignores punctuation at first): keyhook's text columns compare
/// byte for byte (`COLLATE "C"`), so lists, ties and pages still come in SQLite's order.
#[test]
fn every_query_answers_as_on_sqlite_whatever_the_default_collation() {
    // PostgreSQL's own: SQLite has no default collation to choose.
    let Some(db) = test_postgres::database() else {
        return;
    };
    let cluster = db.cluster();
    let name = format!("{}_icu", db.name());
    cluster
        .sql(
            "postgres",
            &format!(
                "CREATE DATABASE {name} TEMPLATE template0 LOCALE_PROVIDER icu \
                 ICU_LOCALE 'und' LOCALE 'C'"
            ),
        )
        .unwrap();
    let result = std::panic::catch_unwind(|| {
        let pg = keyhook_postgres::PgBackend::new(&cluster.url(&name), 2, true)
            .unwrap()
            .connect()
            .unwrap();
        let lite = reference();
        same(exercise(&pg), exercise(&lite.store()));
    });
    let _ = cluster.sql("postgres", &format!("DROP DATABASE {name} WITH (FORCE)"));
    if let Err(panic) = result {
        std::panic::resume_unwind(panic);
    }
}

/// Every row of every table, read in batches.
fn dump(s: &Store) -> Vec<Vec<Vec<Cell>>> {
    TABLES
        .iter()
        .map(|t| {
            s.read(|c| {
                let mut rows = Vec::new();
                let mut after = None;
                loop {
                    let batch = c.read_rows(t, after.as_ref(), 3)?;
                    let Some(last) = batch.last() else {
                        return Ok(rows);
                    };
                    after = Some(last[t.order_index()].clone());
                    rows.extend(batch);
                }
            })
            .unwrap()
        })
        .collect()
}

fn copy(from: &Store, to: &Store) {
    for (t, rows) in TABLES.iter().zip(dump(from)) {
        to.write(|c| {
            if t.is_seeded() {
                c.clear_rows(t)?;
            }
            for batch in rows.chunks(4) {
                c.write_rows(t, batch)?;
            }
            Ok(())
        })
        .unwrap();
    }
}

/// The reference (SQLite) to the backend and back, in batches: every row of every table
/// arrives unchanged (booleans, blobs, nulls, ids) and pages in the same order; the attempt
/// ids' sequence (PostgreSQL) is moved past the copied ids.
pub fn db_copy_batches_move_every_row_unchanged_both_ways(kind: &Kind) {
    let Some(db) = kind.db() else { return };
    let (reference, back) = (reference(), reference());
    let lite = reference.store();
    exercise(&lite);
    let pg = db.store();
    copy(&lite, &pg);
    let source = dump(&lite);
    let empty: Vec<&str> = TABLES
        .iter()
        .zip(&source)
        .filter(|(_, r)| r.is_empty())
        .map(|(t, _)| t.name)
        .collect();
    assert!(empty.is_empty(), "empty tables: {empty:?}");
    assert_eq!(dump(&pg), source);
    for t in TABLES {
        assert_eq!(
            pg.conn().count_rows(t).unwrap(),
            lite.conn().count_rows(t).unwrap()
        );
    }
    let back = back.store();
    copy(&pg, &back);
    assert_eq!(dump(&back), source);

    // The next attempt logged on the backend gets the id after the largest copied one.
    let last_id = |s: &Store| s.conn().attempts("abc-1", 1).unwrap()[0].id;
    let copied = last_id(&pg);
    pg.write(|c| record_attempt(c, &attempt("abc-1", true, T + 500), 3))
        .unwrap();
    assert_eq!(last_id(&pg), copied + 1);
    assert_eq!(copied, last_id(&lite));
}
