//! Retention's steps over a real store (SQLite, and again on PostgreSQL): each batch deletes
//! at most its limit, oldest first, so no transaction holds the write lock for a whole table.

use keyhook_core::service::retention::STEPS;
use keyhook_core::service::webhooks::record_attempt;
use keyhook_core::store::AttemptRecord;
use keyhook_core::time::Timestamp;
mod support;
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
            c.enqueue_deliveries(&id, "alice", "post.published", None, T)?;
        }
        for d in c.claim_due(T, 100, T.add_millis(10_000))? {
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
            };
            record_attempt(c, &attempt, 10)?;
            c.finish_delivery(&d.delivery_id, "delivered", true, T)?;
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
