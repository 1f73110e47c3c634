//! `service::copy::run` between two SQLite stores: every row of every table arrives, in
//! batches whose size stays bounded (by rows, and by bytes for large event payloads), with
//! progress reported per table; a target holding anything is refused untouched.

use keyhook_core::model::{ApiKey, Permission};
use keyhook_core::service::copy::{self, Progress, BATCH_BYTES, BATCH_ROWS, FIRST_BATCH_ROWS};
use keyhook_core::service::webhooks::record_attempt;
use keyhook_core::store::{AttemptRecord, Store};
use keyhook_core::tables::{Cell, TABLES};
use keyhook_core::time::Timestamp;
use keyhook_core::Error;
use keyhook_sqlite::SqliteStore;
use keyhook_test_support as support;
use keyhook_test_support::KeyByHash;
use keyhook_test_support::NOW;

const KEYS: usize = 2_500;
const EVENTS: usize = 150;
const PAYLOAD: usize = 60 << 10;

fn store(dir: &tempfile::TempDir, name: &str) -> Box<Store> {
    Box::new(SqliteStore::open(&dir.path().join(name)).unwrap())
}

/// Every row of every table, in `TABLES` order.
fn dump(s: &Store) -> Vec<Vec<Vec<Cell>>> {
    TABLES
        .iter()
        .map(|t| s.conn().read_rows(t, None, usize::MAX).unwrap())
        .collect()
}

/// A source with rows in every table: more keys than three batches hold, events whose
/// payloads are too large for a batch of `BATCH_ROWS`, deliveries and attempts.
fn source(dir: &tempfile::TempDir) -> Box<Store> {
    let s = store(dir, "source.db");
    let mut hook = support::create_webhook(&*s, "alice", NOW);
    // Profile scope: a scoped webhook, events of a profile, an idempotency key of
    // a profile and an audit entry about a scope travel too.
    hook.full_access = false;
    hook.profile_ids = vec!["p1".into(), "p2".into()];
    s.write(|c| {
        c.update_webhook(&hook)?;
        c.insert_audit(&keyhook_core::model::AuditEntry {
            id: 0,
            user_id: "alice".into(),
            at: NOW,
            actor: "kp_00000000".into(),
            via: "http".into(),
            action: "webhook.updated".into(),
            target: hook.id.clone(),
            details: serde_json::json!({}),
            full_access: false,
            profile_ids: vec!["p1".into()],
        })?;
        // The webhook's token bucket (delivery control's rate), with tokens left.
        let mut buckets = c.lock_rate_buckets(&[hook.id.as_str()], NOW)?;
        for b in &mut buckets {
            b.millitokens = Some(1500);
        }
        c.write_rate_buckets(&buckets)?;
        // The fingerprint of the key the secret cells are sealed with (secrets at rest).
        c.set_secrets_fingerprint("sha256:0123")?;
        // A portal link of a scope, opened into a session.
        c.insert_portal_link(
            &keyhook_core::store::PortalLinkRow {
                id: "pl_1".into(),
                user_id: "alice".into(),
                full_access: false,
                profile_ids: vec!["p1".into()],
                read_only: true,
                minted_by_key: None,
                minted_by: "cli:root".into(),
                created_at: NOW,
                expires_at: Timestamp(NOW.0 + 1_000),
                used_at: Some(NOW),
                revoked_at: None,
            },
            "linkhash",
        )?;
        c.insert_portal_session(
            &keyhook_core::store::PortalSessionRow {
                id: "ps_1".into(),
                link_id: "pl_1".into(),
                created_at: NOW,
                expires_at: Timestamp(NOW.0 + 2_000),
            },
            "sessionhash",
        )?;
        for i in 0..KEYS {
            let key = ApiKey {
                id: format!("{i:032x}"),
                user_id: "alice".into(),
                key_prefix: format!("kp_{:08x}", i),
                name: format!("key {i}"),
                permission: Permission::Readwrite,
                full_access: i % 2 == 0,
                profile_ids: if i % 2 == 0 {
                    vec![]
                } else {
                    vec!["p1".into()]
                },
                last_used_at: (i % 3 == 0).then_some(NOW),
                expires_at: (i % 5 == 0).then_some(Timestamp(NOW.0 + 1_000)),
                // Each key's own limits travel too.
                rate_limit: (i % 4 == 0)
                    .then(|| keyhook_core::rate::RateLimit::parse("7/min").unwrap()),
                remaining_uses: (i % 3 == 1).then_some(i as i64),
                budget_id: None,
                created_at: NOW,
                key: None,
            };
            c.insert_key(&key, &format!("{i:064x}"))?;
        }
        let payload = format!("{{\"pad\":\"{}\"}}", "x".repeat(PAYLOAD - 10));
        for i in 0..EVENTS {
            let id = format!("evt_{i:032x}");
            let profile = (i % 2 == 0).then_some("p1");
            c.insert_event(
                &id,
                "alice",
                "post.published",
                profile,
                payload.as_bytes(),
                NOW,
            )?;
            support::fan_out(c, &id, "alice", "post.published", profile, NOW)?;
        }
        let first = keyhook_core::model::EventAccepted {
            id: "evt_idempotent".into(),
            event: "post.published".into(),
            profile_id: Some("p2".into()),
            created_at: NOW,
            deliveries: 0,
        };
        c.claim_idempotency_key("alice", "import-1", &first, Timestamp(0))?;
        // An idempotent webhook request, answered.
        let claim = keyhook_core::store::RequestClaim {
            id: "req-1",
            user: "alice",
            route: "POST /webhooks",
            target: "",
            key: "create-1",
            fingerprint: "f",
            at: NOW,
        };
        c.claim_request(&claim, Timestamp(0), Timestamp(0))?;
        c.answer_request("req-1", &format!("{{\"webhookId\":\"{}\"}}", hook.id))?;
        for attempt in 1..=3 {
            record_attempt(
                c,
                &AttemptRecord {
                    webhook_id: &hook.id,
                    delivery_id: None,
                    event_id: "evt_test",
                    event: "webhook.test",
                    attempt,
                    attempted_at: NOW,
                    delivered: attempt == 3,
                    status_code: if attempt == 3 { 204 } else { 0 },
                    status_text: "connection refused",
                    duration_ms: 3,
                    response_excerpt: "",
                    skipped: None,
                },
                10,
            )?;
        }
        Ok(())
    })
    .unwrap();
    s
}

#[test]
fn every_row_arrives_in_bounded_batches() {
    let dir = tempfile::tempdir().unwrap();
    let src = source(&dir);
    let dst = store(&dir, "target.db");
    let mut seen: Vec<Progress> = Vec::new();
    let copied = copy::run(&*src, &*dst, &mut |p| seen.push(p)).unwrap();

    let before = dump(&src);
    assert_eq!(
        dump(&dst),
        before,
        "the target holds exactly the source's rows"
    );
    for (t, rows) in TABLES.iter().zip(&before) {
        assert!(!rows.is_empty(), "the fixture has no row in {}", t.name);
    }
    // The columns of profile scope arrived with their values.
    let hooks = dst.conn().list_webhooks("alice").unwrap();
    assert_eq!(
        (hooks[0].full_access, &hooks[0].profile_ids[..]),
        (false, &["p1".to_string(), "p2".to_string()][..])
    );
    let first_event = format!("evt_{:032x}", 0);
    let (_, profile) = dst.conn().event_of("alice", &first_event).unwrap().unwrap();
    assert_eq!(profile.as_deref(), Some("p1"));
    let want: Vec<(&str, u64)> = TABLES
        .iter()
        .zip(&before)
        .map(|(t, rows)| (t.name, rows.len() as u64))
        .collect();
    assert_eq!(copied.tables, want);
    assert_eq!(copied.tables[1], ("api_keys", KEYS as u64));

    // Every table is announced, counted, before a row is copied.
    let announced: Vec<(&str, u64, u64)> = seen[..TABLES.len()]
        .iter()
        .map(|p| (p.table, p.done, p.total))
        .collect();
    let totals: Vec<(&str, u64, u64)> = want.iter().map(|&(t, n)| (t, 0, n)).collect();
    assert_eq!(announced, totals);
    // Then each table's batches, in order, each bounded, ending at its total.
    for (t, total) in &want {
        let steps: Vec<u64> = seen[TABLES.len()..]
            .iter()
            .filter(|p| p.table == *t)
            .map(|p| p.done)
            .collect();
        assert_eq!(steps.last(), Some(total), "{t}: {steps:?}");
        let mut last = 0;
        for (i, done) in steps.iter().enumerate() {
            let batch = (done - last) as usize;
            last = *done;
            assert!((1..=BATCH_ROWS).contains(&batch), "{t}: {steps:?}");
            if i == 0 {
                assert!(batch <= FIRST_BATCH_ROWS, "{t}: first batch {batch}");
            }
            if *t == "events" {
                assert!(batch * PAYLOAD <= BATCH_BYTES, "events: a batch of {batch}");
            }
        }
    }
    let key_batches = seen.iter().filter(|p| p.table == "api_keys").count() - 1;
    assert!(key_batches >= 3, "{KEYS} keys in {key_batches} batches");

    // The copy is a database like any other: its keys are found by their hash.
    let key = dst.key_by_hash(&format!("{:064x}", 7)).unwrap().unwrap();
    assert_eq!(key.name, "key 7");
    assert_eq!(key.profile_ids, ["p1"]);
}

#[test]
fn a_target_with_any_row_is_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let src = source(&dir);
    let dst = store(&dir, "target.db");
    dst.write(|c| Ok(c.ensure_user("bob", NOW)?)).unwrap();
    let before = dump(&dst);
    let mut calls = 0;
    let e = copy::run(&*src, &*dst, &mut |_| calls += 1).unwrap_err();
    match &e {
        Error::Validation(d) => {
            assert_eq!(d[0].field, "target");
            assert_eq!(
                d[0].message,
                "is not empty (users holds 1 row); db copy writes only into an empty database"
            );
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(e.exit_code(), 2);
    assert_eq!(calls, 0, "refused before anything was read");
    assert_eq!(dump(&dst), before);
}

#[test]
fn an_empty_source_copies_nothing_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let src = store(&dir, "source.db");
    let dst = store(&dir, "target.db");
    let copied = copy::run(&*src, &*dst, &mut |_| {}).unwrap();
    // Nothing but what every new database starts with: the built-in event types.
    let seeds = (keyhook_core::service::events::CATALOG.len()
        + keyhook_core::service::events::OPERATIONAL.len()) as u64;
    assert_eq!(copied.rows(), seeds);
    for (table, rows) in &copied.tables {
        let seeded = TABLES.iter().any(|t| t.name == *table && t.is_seeded());
        assert_eq!(*rows, if seeded { seeds } else { 0 }, "{table}");
    }
    assert_eq!(copied.tables.len(), TABLES.len());
    // An empty target stays acceptable: the same copy may run again.
    copy::run(&*src, &*dst, &mut |_| {}).unwrap();
}
