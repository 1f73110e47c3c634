//! Retention's steps over a real store (SQLite, and again on PostgreSQL): each batch deletes
//! at most its limit, oldest first, so no transaction holds the write lock for a whole table.

use keyhook_core::service::retention::STEPS;
use keyhook_core::service::webhooks::record_attempt;
use keyhook_core::store::{AttemptRecord, DeliveryState};
use keyhook_core::time::Timestamp;
use keyhook_test_support as support;
use keyhook_test_support::{ClaimDue, DeliveryCounts};
use support::temp_store;

/// Every test of this file, again on PostgreSQL.
#[test]
fn these_tests_pass_on_postgresql() {
    support::run_again_on_postgres("these_tests_pass_on_postgresql");
}

const T: Timestamp = Timestamp(1_800_000_000_000);

#[test]
fn every_step_deletes_at_most_its_limit_per_batch() {
    let (_g, s) = temp_store();
    let hook = support::create_webhook(&s, "alice", T);
    s.write(|c| {
        for i in 0..25 {
            let id = format!("evt_{i:032x}");
            c.insert_event(&id, "alice", "post.published", None, b"{}", T)?;
            support::fan_out(c, &id, "alice", "post.published", None, T)?;
        }
        for d in c.claim_due(T, 100, T.add_millis(10_000), None)? {
            let attempt = AttemptRecord {
                webhook_id: &hook.id,
                delivery_id: Some(&d.delivery_id),
                event_id: &d.event_id,
                event: "post.published",
                attempt: 1,
                attempted_at: T,
                delivered: true,
                status_code: 200,
                status_text: "OK",
                duration_ms: 1,
                response_excerpt: "",
                skipped: None,
            };
            record_attempt(c, &attempt, 10)?;
            c.finish_delivery(&d.delivery_id, DeliveryState::Delivered, true, T)?;
        }
        Ok(())
    })
    .unwrap();
    let cutoff = T.add_millis(1);
    for (name, step) in STEPS {
        let batches: Vec<u64> = (0..4)
            .map(|_| s.write(|c| Ok(step(c, cutoff, 10)?)).unwrap())
            .collect();
        assert_eq!(batches, [10, 10, 5, 0], "{name}");
    }
}

/// The backends' retention SQL agrees with the core's predicate: of one delivery in each
/// state, all old, exactly those in `DeliveryState::FINISHED` are deleted.
#[test]
fn retention_deletes_exactly_the_finished_states() {
    let (_g, s) = temp_store();
    support::create_webhook(&s, "alice", T);
    s.write(|c| {
        for i in 0..DeliveryState::ALL.len() {
            let id = format!("evt_{i:032x}");
            c.insert_event(&id, "alice", "post.published", None, b"{}", T)?;
            support::fan_out(c, &id, "alice", "post.published", None, T)?;
        }
        let claimed = c.claim_due(T, 100, T.add_millis(10_000), None)?;
        assert_eq!(claimed.len(), DeliveryState::ALL.len());
        for (d, state) in claimed.iter().zip(DeliveryState::ALL) {
            if state != DeliveryState::Pending {
                c.finish_delivery(&d.delivery_id, state, true, T)?;
            }
        }
        Ok(())
    })
    .unwrap();
    let pruned = s
        .write(|c| Ok(c.prune_deliveries(T.add_millis(1), 100)?))
        .unwrap();
    let kept: Vec<String> = DeliveryState::ALL
        .into_iter()
        .filter(|st| !DeliveryState::FINISHED.contains(st))
        .map(|st| st.as_str().to_string())
        .collect();
    assert_eq!(pruned as usize, DeliveryState::FINISHED.len());
    let left: Vec<String> = s
        .conn()
        .delivery_counts()
        .unwrap()
        .into_iter()
        .filter(|(_, n)| *n > 0)
        .map(|(state, _)| state)
        .collect();
    assert_eq!(left, kept);
}
