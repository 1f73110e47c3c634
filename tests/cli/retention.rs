//! Retention: `prune` and the worker's pruning delete events, finished
//! deliveries and attempts older than the retention, never a pending delivery or its event;
//! and the history line of `webhooks show` / `list`. Rows are aged by the test clock.

use std::time::Duration;

use crate::common::{emit, id_of, on_terminal_with, Env};
use crate::receiver::Receiver;
use crate::server::Server;

const DAY: i64 = 86_400_000;

/// An event delivered two days ago, another one that failed two days ago and is still
/// pending (its retry is a month away), and one delivered now.
struct Aged {
    env: Env,
    old: String,
    pending: String,
    recent: String,
    _rx: Receiver,
}

fn aged() -> Aged {
    let env = Env::with_clock();
    let rx = Receiver::start();
    env.create_webhook(&rx.url("/ok"), "post.published");
    env.create_webhook(&rx.url("/fail"), "post.failed");
    let old = emit(&env, &["post.published"]);
    assert_eq!(old["deliveries"], 1, "{old}");
    let old = id_of(&old);
    let pending = emit(&env, &["post.failed"]);
    assert_eq!(pending["deliveries"], 1, "{pending}");
    let pending = id_of(&pending);
    env.deliver_once_with(&["--retry-schedule", "30d", "--retention", "365d"]);
    rx.wait_for(2, Duration::from_secs(10));
    env.advance_clock(2 * DAY);
    let recent = emit(&env, &["post.published"]);
    assert_eq!(recent["deliveries"], 1, "{recent}");
    let recent = id_of(&recent);
    env.deliver_once_with(&["--retry-schedule", "30d", "--retention", "365d"]);
    rx.wait_for(3, Duration::from_secs(10));
    assert_eq!(env.sql_i64("SELECT count(*) FROM delivery_attempts"), 3);
    Aged {
        env,
        old,
        pending,
        recent,
        _rx: rx,
    }
}

fn events(env: &Env) -> Vec<String> {
    let mut ids: Vec<String> = env
        .sql("SELECT id FROM events")
        .into_iter()
        .map(|r| r[0].clone())
        .collect();
    ids.sort();
    ids
}

/// Older than a day: the old event, its delivered delivery and its attempt go, and the
/// pending delivery's old attempt; the pending delivery and its event stay, however old, and
/// so does everything recent. A second run finds nothing.
#[test]
fn prune_deletes_what_is_old_and_keeps_the_recent_and_the_pending() {
    let a = aged();
    let env = &a.env;
    let (code, v) = env.json(&["prune", "--older-than", "1d"]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(
        v,
        serde_json::json!({"data": {"attempts": 2, "deliveries": 1, "events": 1}})
    );
    let mut want = vec![a.pending.clone(), a.recent.clone()];
    want.sort();
    assert_eq!(events(env), want);
    assert!(!events(env).contains(&a.old));
    let states = env.sql("SELECT event_id, state FROM deliveries ORDER BY event_id");
    let mut want_states = vec![
        vec![a.pending.clone(), "pending".to_string()],
        vec![a.recent.clone(), "delivered".to_string()],
    ];
    want_states.sort();
    assert_eq!(states, want_states);
    assert_eq!(
        env.sql_i64("SELECT count(*) FROM delivery_attempts"),
        1,
        "the recent attempt"
    );

    // Nothing left that is old; the text output says so.
    let r = env.run(&["prune", "--older-than", "1d"]);
    assert_eq!(r.code, 0, "{r:#?}");
    assert_eq!(r.stdout, "Deleted 0 attempts, 0 deliveries, 0 events.\n");

    // Even with the shortest retention, the pending delivery and its event stay.
    env.advance_clock(DAY);
    let (code, v) = env.json(&["prune", "--older-than", "1s"]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(
        v,
        serde_json::json!({"data": {"attempts": 1, "deliveries": 1, "events": 1}})
    );
    assert_eq!(events(env), vec![a.pending.clone()]);
    assert_eq!(
        env.sql_i64("SELECT count(*) FROM deliveries WHERE state = 'pending'"),
        1
    );
}

/// Without `--older-than`, the default retention (30 days) applies: two days is recent.
#[test]
fn prune_defaults_to_thirty_days() {
    let a = aged();
    let (code, v) = a.env.json(&["prune"]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(
        v,
        serde_json::json!({"data": {"attempts": 0, "deliveries": 0, "events": 0}})
    );
    a.env.advance_clock(29 * DAY);
    let (code, v) = a.env.json(&["prune"]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["data"]["events"], 1, "the event of 31 days ago: {v}");
}

/// Far more rows than one batch (100) are all deleted, and counted.
#[test]
fn prune_works_through_many_batches() {
    let env = Env::with_clock();
    let id = id_of(&env.create_webhook("https://example.com/hooks", "post.published"));
    let old = env.clock_ms() - 2 * DAY;
    insert_attempts(&env, &id, 1_234, old, "1 = 1", "5");
    let (code, v) = env.json(&["prune", "--older-than", "1d"]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["data"]["attempts"], 1_234, "{v}");
    assert_eq!(env.sql_i64("SELECT count(*) FROM delivery_attempts"), 0);
}

/// Inserts `n` attempts to webhook `id` at `at` (+ i ms), `delivered` and `duration_ms` SQL
/// expressions of `i` (1..=n), on either backend.
fn insert_attempts(env: &Env, id: &str, n: i64, at: i64, delivered: &str, duration: &str) {
    env.sql(&format!(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {n})
         INSERT INTO delivery_attempts (webhook_id, delivery_id, event_id, event, attempt,
            attempted_at, delivered, status_code, status_text, duration_ms, response_excerpt)
         SELECT '{id}', NULL, 'evt_x', 'post.published', 1, {at} + i, ({delivered}), 200, 'OK',
            {duration}, '' FROM n"
    ));
}

/// `serve`'s worker prunes by itself, at a tenth of the retention (at least every second):
/// once the clock has moved past the retention, the old rows go without a `prune`.
#[test]
fn the_worker_prunes_in_the_background() {
    let a = aged();
    let env = &a.env;
    let _server = Server::start_with(env, &["--retention", "1d"]);
    assert!(
        crate::common::poll_until(Duration::from_secs(20), || !events(env).contains(&a.old)),
        "the worker did not prune the old event"
    );
    let mut want = vec![a.pending.clone(), a.recent.clone()];
    want.sort();
    assert_eq!(events(env), want, "the pending and the recent stay");
    assert_eq!(env.sql_i64("SELECT count(*) FROM deliveries"), 2);
}

/// `--older-than 0s` (or `0`, `0d`) is now: every finished delivery, every attempt and every
/// event no pending delivery needs, however recent, goes; the pending delivery and its event
/// stay.
#[test]
fn prune_older_than_zero_deletes_everything_finished() {
    for zero in ["0s", "0", "0d"] {
        let a = aged();
        let env = &a.env;
        env.advance_clock(1);
        let (code, v) = env.json(&["prune", "--older-than", zero]);
        assert_eq!(code, 0, "{zero}: {v}");
        assert_eq!(
            v,
            serde_json::json!({"data": {"attempts": 3, "deliveries": 2, "events": 2}}),
            "{zero}"
        );
        assert_eq!(events(env), vec![a.pending.clone()], "{zero}");
        let states = env.sql("SELECT state FROM deliveries");
        assert_eq!(states, vec![vec!["pending".to_string()]], "{zero}");
    }
}

/// Negative, below the floor (the worker's retention), garbage: exit 2 naming the flag (or
/// the variable's flag).
#[test]
fn bad_retentions_are_refused() {
    let env = Env::new();
    env.create_key("k", &[]);
    for (args, needle) in [
        (vec!["prune", "--older-than", "-1s"], "--older-than"),
        (vec!["prune", "--older-than=-1s"], "negative"),
        (vec!["prune", "--older-than", "soon"], "--older-than"),
        (
            vec!["deliver", "--once", "--retention", "999ms"],
            "at least 1s",
        ),
        (
            vec!["deliver", "--once", "--retention", "0s"],
            "greater than zero",
        ),
        (
            vec!["deliver", "--once", "--retention", "0d"],
            "--retention",
        ),
        (vec!["serve", "--retention=-1d"], "--retention"),
    ] {
        let r = env.run(&args);
        assert_eq!(r.code, 2, "{args:?}: {r:#?}");
        assert!(r.stderr.contains(needle), "{args:?}: {}", r.stderr);
        assert!(r.stderr.starts_with("keyhook: "), "{}", r.stderr);
    }
    let out = env
        .cmd()
        .env("KEYHOOK_RETENTION", "forever")
        .args(["deliver", "--once"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--retention"));
}

/// The history line: the last 30 attempts, oldest first, ✓/✗ and a sparkline scaled to
/// them; a HISTORY column in `list` once a webhook has attempts; plain when not on a
/// terminal, colored with `--color always`; `--json` is unchanged.
#[test]
fn webhooks_show_and_list_draw_the_history_line() {
    let env = Env::with_clock();
    let busy = id_of(&env.create_webhook("https://example.com/busy", "post.published"));
    let quiet = id_of(&env.create_webhook("https://example.com/quiet", "post.published"));
    let at = env.clock_ms() - 60_000;
    // 35 attempts: the first five (never shown) fail slowly; then, of the shown 30, every
    // third fails, and the durations climb 10 ms an attempt, the last being the slowest.
    insert_attempts(&env, &busy, 35, at, "NOT (i <= 5 OR i % 3 = 0)", "i * 10");
    let mut line = String::new();
    for i in 6..=35 {
        line.push(if i % 3 == 0 { '✗' } else { '✓' });
    }
    line.push(' ');
    for i in 6..=35 {
        let level = ((i - 6) * 7 * 10 + 145) / 290;
        line.push(['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'][level]);
    }

    let r = env.run(&["webhooks", "show", &busy]);
    assert_eq!(r.code, 0, "{r:#?}");
    assert!(
        r.stdout.contains(&format!("│ history  ┆ {line} │")),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains('\u{1b}'), "no color off a terminal");
    let r = env.run(&["webhooks", "show", &quiet]);
    assert!(
        !r.stdout.contains("history"),
        "no attempts, no line: {}",
        r.stdout
    );

    let r = env.run(&["webhooks", "list"]);
    assert_eq!(r.code, 0, "{r:#?}");
    assert!(r.stdout.contains("HISTORY"), "{}", r.stdout);
    let rows: Vec<&str> = r
        .stdout
        .lines()
        .filter(|l| l.contains("example.com"))
        .collect();
    assert_eq!(rows.len(), 2, "{}", r.stdout);
    let busy_row = rows.iter().find(|l| l.contains("/busy")).unwrap();
    assert!(busy_row.contains(&line), "{}", r.stdout);
    let quiet_row = rows.iter().find(|l| l.contains("/quiet")).unwrap();
    assert!(
        !quiet_row.contains('✓') && !quiet_row.contains('▁'),
        "{quiet_row}"
    );

    let r = env.run(&["--color", "always", "webhooks", "show", &busy]);
    assert!(
        r.stdout
            .contains("\u{1b}[32m✓✓\u{1b}[0m\u{1b}[31m✗\u{1b}[0m"),
        "{:?}",
        r.stdout
    );
    let r = env.run(&["--color", "always", "webhooks", "list"]);
    assert!(r.stdout.contains("\u{1b}[31m✗\u{1b}[0m"), "{:?}", r.stdout);
    // On a terminal (`--color auto`): colored, unless NO_COLOR is set.
    let show = ["webhooks", "show", busy.as_str()];
    if let Some(r) = on_terminal_with(&env, &[("NO_COLOR", "")], &show, "", "") {
        assert!(r.stdout.contains("\u{1b}[32m✓✓\u{1b}[0m"), "{:?}", r.stdout);
        let r = on_terminal_with(&env, &[("NO_COLOR", "1")], &show, "", "").unwrap();
        assert!(r.stdout.contains(&line), "{:?}", r.stdout);
        assert!(!r.stdout.contains("\u{1b}["), "NO_COLOR: {:?}", r.stdout);
    }

    for args in [vec!["webhooks", "show", &busy], vec!["webhooks", "list"]] {
        let (code, v) = env.json(&args);
        assert_eq!(code, 0, "{v}");
        let text = v.to_string();
        assert!(
            !text.contains("history") && !text.contains('✓'),
            "--json is the API body: {text}"
        );
    }
}

/// `deliver --once` prunes once, after sending, with its `--retention`
/// (`KEYHOOK_RETENTION` too).
#[test]
fn deliver_once_prunes_with_its_retention() {
    let a = aged();
    let env = &a.env;
    let out = env
        .cmd()
        .env("KEYHOOK_RETENTION", "1d")
        .args(["--allow-private-targets", "deliver", "--once"])
        .args(["--retry-schedule", "30d"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let mut want = vec![a.pending.clone(), a.recent.clone()];
    want.sort();
    assert_eq!(events(env), want);
}

/// The audit log is kept as long as events, and idempotency records hold their key for 24
/// hours and are kept the retention past that: `prune` deletes both when they are old enough,
/// never sooner, and its output still names only events, deliveries and attempts.
#[test]
fn prune_also_deletes_old_audit_entries_and_idempotency_records() {
    let env = Env::with_clock();
    let rx = Receiver::start();
    env.create_webhook(&rx.url("/ok"), "post.published");
    let (code, v) = env.json(&[
        "events",
        "emit",
        "post.published",
        "--idempotency-key",
        "k1",
    ]);
    assert_eq!(code, 0, "{v}");
    let audit = "SELECT count(*) FROM audit_log";
    let keys = "SELECT count(*) FROM idempotency_keys";
    assert_eq!(env.sql_i64(audit), 1);
    assert_eq!(env.sql_i64(keys), 1);

    // Two days on, with a one-day retention: the audit entry goes; the idempotency record,
    // older than its 24 hours but not yet than the retention past them, stays.
    env.advance_clock(2 * DAY);
    let (code, v) = env.json(&["prune", "--older-than", "1d"]);
    assert_eq!(code, 0, "{v}");
    let fields: Vec<&String> = v["data"].as_object().unwrap().keys().collect();
    assert_eq!(fields, ["attempts", "deliveries", "events"], "{v}");
    assert_eq!(env.sql_i64(audit), 0);
    assert_eq!(env.sql_i64(keys), 1);
    // A short retention never frees a key before its 24 hours: k2, two hours old, stays
    // while k1 (past 24 hours plus the retention) goes.
    let (code, v) = env.json(&[
        "events",
        "emit",
        "post.published",
        "--idempotency-key",
        "k2",
    ]);
    assert_eq!(code, 0, "{v}");
    env.advance_clock(2 * 3_600_000);
    let (code, _) = env.json(&["prune", "--older-than", "1s"]);
    assert_eq!(code, 0);
    assert_eq!(env.sql_i64(keys), 1);
    assert_eq!(
        env.sql_i64("SELECT count(*) FROM idempotency_keys WHERE key = 'k2'"),
        1
    );
}
