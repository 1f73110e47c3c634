//! Delivery control (CONTRACT §15): a webhook's own retry schedule and timeout, and
//! a receiver's back-pressure (429/503 with `Retry-After`) holding all of a webhook's
//! deliveries without counting toward its automatic disable. On both backends, on the test
//! clock.

use serde_json::{json, Value};

use crate::common::{attempts, emit, show_webhook, str_of, Env};
use crate::receiver::Receiver;
use crate::server::Server;

/// How many requests reached `path` (the query string included) so far.
fn hits(rx: &Receiver, target: &str) -> usize {
    rx.requests_to(target).len()
}

/// A 429 with `Retry-After: 60` holds every pending delivery of its webhook (a new event's
/// too) for 60 s, while other webhooks are delivered as usual; then they are sent, and each
/// such answer holds them again. Twelve such answers in a row (more than the 10 consecutive
/// failures that disable a webhook) leave it active with `failCount` 0; each is in the
/// deliveries log as the 429 it was.
#[test]
fn a_retry_after_holds_all_of_a_webhooks_deliveries_and_never_disables_it() {
    let env = Env::with_clock();
    let rx = Receiver::start();
    let schedule = vec!["1s"; 20].join(",");
    let busy = env.create_webhook_with(
        &rx.url("/busy"),
        "post.published",
        &["--retry-schedule", &schedule],
    );
    let id = str_of(&busy, "id").to_string();
    env.create_webhook(&rx.url("/ok?other"), "post.published");

    assert_eq!(emit(&env, &["post.published"])["deliveries"], 2);
    env.deliver_once();
    rx.wait_for(2, std::time::Duration::from_secs(10));
    assert_eq!((hits(&rx, "/busy"), hits(&rx, "/ok?other")), (1, 1));

    // A new event during the hold: the other webhook gets it, the held one does not.
    assert_eq!(emit(&env, &["post.published"])["deliveries"], 2);
    let summary = env.deliver_once();
    assert!(summary.contains("delivered 1, to retry 0"), "{summary}");
    assert_eq!((hits(&rx, "/busy"), hits(&rx, "/ok?other")), (1, 2));
    // Its own schedule says 1 s: the hold says 60.
    env.advance_clock(59_000);
    env.deliver_once();
    assert_eq!(hits(&rx, "/busy"), 1, "held for the Retry-After's 60 s");

    // Past the hold they are sent, and held again by the first answer: the other is sent
    // too only when its request was already out (two senders at once), never after.
    let mut sent = 1;
    for round in 1..=20 {
        env.advance_clock(2_000);
        env.deliver_once();
        let now = hits(&rx, "/busy");
        assert!(
            (sent + 1..=sent + 2).contains(&now),
            "round {round}: {sent} -> {now}"
        );
        sent = now;
        env.advance_clock(58_000);
        env.deliver_once();
        assert_eq!(hits(&rx, "/busy"), sent, "round {round}: held");
        if sent >= 12 {
            break;
        }
    }
    assert!(sent >= 12, "{sent}");
    let w = show_webhook(&env, &id);
    assert_eq!(w["isActive"], true, "{w}");
    assert_eq!(w["failCount"], 0, "{w}");
    let log = attempts(&env, &id);
    assert_eq!(log.len(), sent);
    for a in &log {
        assert_eq!(a["statusCode"], 429, "{a}");
        assert_eq!(a["delivered"], false, "{a}");
    }
}

/// A 429 without `Retry-After` is an ordinary failure: it counts toward `failCount` and
/// holds nothing (a new event is sent at once).
#[test]
fn a_429_without_retry_after_is_an_ordinary_failure() {
    let env = Env::with_clock();
    let rx = Receiver::start();
    let w = env.create_webhook_with(
        &rx.url("/busy-plain"),
        "post.published",
        &["--retry-schedule", "1h"],
    );
    let id = str_of(&w, "id");
    emit(&env, &["post.published"]);
    env.deliver_once();
    emit(&env, &["post.published"]);
    env.deliver_once();
    assert_eq!(hits(&rx, "/busy-plain"), 2, "the second event is not held");
    assert_eq!(show_webhook(&env, id)["failCount"], 2);
}

/// A webhook's `--retry-schedule` replaces serve's for its deliveries (and says how many
/// attempts they get); a webhook without one keeps serve's. `--no-retry-schedule` goes back.
#[test]
fn a_webhooks_own_retry_schedule_replaces_serves() {
    let env = Env::with_clock();
    let rx = Receiver::start();
    let own = env.create_webhook_with(
        &rx.url("/fail?own"),
        "post.published",
        &["--retry-schedule", "10s, 20s"],
    );
    assert_eq!(own["retrySchedule"], json!(["10s", "20s"]), "{own}");
    let plain = env.create_webhook(&rx.url("/fail?plain"), "post.published");
    assert_eq!(plain["retrySchedule"], Value::Null, "{plain}");
    assert_eq!(plain["timeoutMs"], Value::Null, "{plain}");

    emit(&env, &["post.published"]);
    env.deliver_once();
    assert_eq!((hits(&rx, "/fail?own"), hits(&rx, "/fail?plain")), (1, 1));
    // Serve's first retry (5 s, within a tenth) is due; the webhook's own (10 s) is not.
    env.advance_clock(5_600);
    env.deliver_once();
    assert_eq!((hits(&rx, "/fail?own"), hits(&rx, "/fail?plain")), (1, 2));
    env.advance_clock(5_500);
    env.deliver_once();
    assert_eq!(hits(&rx, "/fail?own"), 2);
    env.advance_clock(22_100);
    let summary = env.deliver_once();
    assert!(summary.contains("given up 1"), "{summary}");
    assert_eq!(hits(&rx, "/fail?own"), 3, "three attempts, then given up");
    let id = str_of(&own, "id");
    let (code, v) = env.json(&["webhooks", "update", id, "--no-retry-schedule"]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["data"]["retrySchedule"], Value::Null, "{v}");
    // An empty schedule: no retry at all.
    let (code, v) = env.json(&["webhooks", "update", id, "--retry-schedule", ""]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["data"]["retrySchedule"], json!([]), "{v}");
    emit(&env, &["post.published"]);
    let summary = env.deliver_once();
    assert!(summary.contains("given up 1"), "{summary}");
}

/// A webhook's `--timeout` replaces `--delivery-timeout` for its requests, longer or
/// shorter; the receiver's `/slow` answers after 2 s.
#[test]
fn a_webhooks_own_timeout_replaces_serves() {
    let env = Env::new();
    let rx = Receiver::start();
    let long = env.create_webhook_with(
        &rx.url("/slow?long"),
        "post.published",
        &["--timeout", "6s"],
    );
    assert_eq!(long["timeoutMs"], 6000, "{long}");
    let short = env.create_webhook_with(
        &rx.url("/slow?short"),
        "post.published",
        &["--timeout", "300ms"],
    );
    let plain = env.create_webhook(&rx.url("/slow?plain"), "post.published");
    emit(&env, &["post.published"]);
    let r = env.run(&[
        "--allow-private-targets",
        "--delivery-timeout",
        "1s",
        "deliver",
        "--once",
        "--retry-schedule=",
    ]);
    assert_eq!(r.code, 0, "{r:#?}");
    let outcome = |w: &Value| {
        let log = attempts(&env, str_of(w, "id"));
        assert_eq!(log.len(), 1, "{log:?}");
        (
            log[0]["delivered"].as_bool().unwrap(),
            log[0]["statusText"].as_str().unwrap().to_string(),
            log[0]["durationMs"].as_i64().unwrap(),
        )
    };
    let (ok, _, _) = outcome(&long);
    assert!(ok, "a 6 s timeout outlasts the 2 s answer");
    let (ok, text, ms) = outcome(&short);
    assert!(!ok && text == "timed out" && ms < 1000, "{text} {ms}");
    let (ok, text, ms) = outcome(&plain);
    assert!(!ok && text == "timed out" && ms >= 900, "{text} {ms}");
    let (code, v) = env.json(&["webhooks", "update", str_of(&long, "id"), "--no-timeout"]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["data"]["timeoutMs"], Value::Null, "{v}");
}

/// The CLI refuses what serve's own flags refuse, with the API's field names; nothing is
/// created or changed.
#[test]
fn the_cli_bounds_schedules_and_timeouts_as_serves_flags() {
    let env = Env::new();
    let many = vec!["1s"; 51].join(",");
    for (flag, value, field) in [
        ("--timeout", "11m", "timeoutMs"),
        ("--timeout", "0s", "timeoutMs"),
        ("--timeout", "soon", "timeoutMs"),
        ("--retry-schedule", "5s,,5m", "retrySchedule"),
        ("--retry-schedule", "5s,later", "retrySchedule"),
        ("--retry-schedule", many.as_str(), "retrySchedule"),
    ] {
        let r = env.run(&[
            "webhooks",
            "create",
            "--url",
            "https://example.com/h",
            "--event",
            "post.published",
            flag,
            value,
        ]);
        assert_eq!(r.code, 2, "{flag} {value}: {r:#?}");
        assert!(r.stderr.contains(field), "{flag} {value}: {}", r.stderr);
    }
    assert_eq!(env.count_rows("webhooks"), 0);
    let w = env.create_webhook("https://example.com/h", "post.published");
    let id = str_of(&w, "id");
    let r = env.run(&["webhooks", "update", id, "--timeout", "1s", "--no-timeout"]);
    assert_eq!(r.code, 2, "{r:#?}");
    let r = env.run(&["webhooks", "update", id, "--timeout", "10m1s"]);
    assert_eq!(r.code, 2, "{r:#?}");
    assert_eq!(show_webhook(&env, id)["timeoutMs"], Value::Null);
}

/// Over HTTP: `retrySchedule` (a list of durations) and `timeoutMs` on POST and PATCH,
/// bounded as the CLI's flags; `null` in a PATCH goes back to serve's; the audit log records
/// the change.
#[test]
fn http_sets_checks_and_clears_schedules_and_timeouts() {
    let env = Env::new();
    let key = str_of(&env.create_key("rw", &[]), "key").to_string();
    let server = Server::start(&env);
    let base = json!({"url": "https://example.com/h", "events": ["post.published"]});
    let with = |extra: Value| {
        let mut b = base.clone();
        for (k, v) in extra.as_object().unwrap() {
            b[k] = v.clone();
        }
        b
    };
    for (bad, field) in [
        (json!({"timeoutMs": 0}), "timeoutMs"),
        (json!({"timeoutMs": 600_001}), "timeoutMs"),
        (json!({"timeoutMs": "1s"}), "timeoutMs"),
        (json!({"timeoutMs": 1.5}), "timeoutMs"),
        (json!({"retrySchedule": "5s"}), "retrySchedule"),
        (json!({"retrySchedule": ["5s", "soon"]}), "retrySchedule"),
        (json!({"retrySchedule": ["5s", 5]}), "retrySchedule[1]"),
        (json!({"retrySchedule": vec!["1s"; 51]}), "retrySchedule"),
    ] {
        let r = server.post_json("/api/v1/webhooks", &key, &with(bad.clone()));
        assert_eq!(r.status, 400, "{bad}: {r:?}");
        let e = r.json();
        assert_eq!(e["error"]["code"], "VALIDATION_ERROR", "{bad}: {e}");
        assert_eq!(e["error"]["details"][0]["field"], field, "{bad}: {e}");
    }
    assert_eq!(env.count_rows("webhooks"), 0);

    let r = server.post_json(
        "/api/v1/webhooks",
        &key,
        &with(json!({"retrySchedule": ["1s", "1m"], "timeoutMs": 2500})),
    );
    assert_eq!(r.status, 201, "{r:?}");
    let w = r.data();
    assert_eq!(w["retrySchedule"], json!(["1s", "1m"]));
    assert_eq!(w["timeoutMs"], 2500);
    let path = format!("/api/v1/webhooks/{}", str_of(&w, "id"));

    let r = server.send_json("PATCH", &path, &key, &json!({"timeoutMs": 600_001}));
    assert_eq!(r.status, 400, "{r:?}");
    let r = server.send_json("PATCH", &path, &key, &json!({"retrySchedule": null}));
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(r.data()["retrySchedule"], Value::Null);
    assert_eq!(r.data()["timeoutMs"], 2500, "kept");
    let r = server.send_json("PATCH", &path, &key, &json!({"timeoutMs": null}));
    assert_eq!(r.data()["timeoutMs"], Value::Null);
    let r = server.send_json("PATCH", &path, &key, &json!({"retrySchedule": ["2h"]}));
    assert_eq!(r.data()["retrySchedule"], json!(["2h"]));
    let r = server.get(&path, &key);
    assert_eq!(r.data()["retrySchedule"], json!(["2h"]));

    let (code, v) = env.json(&["audit"]);
    assert_eq!(code, 0, "{v}");
    let entries = v["data"].as_array().unwrap();
    let updates: Vec<&Value> = entries
        .iter()
        .filter(|e| e["action"] == "webhook.updated")
        .map(|e| &e["details"])
        .collect();
    assert_eq!(
        updates,
        [
            &json!({"retrySchedule": ["2h"]}),
            &json!({"timeoutMs": null}),
            &json!({"retrySchedule": null}),
        ]
    );
    let created = entries
        .iter()
        .find(|e| e["action"] == "webhook.created")
        .unwrap();
    assert_eq!(created["details"]["timeoutMs"], 2500, "{created}");
}

/// `webhooks show` prints a webhook's own schedule and timeout; a webhook without them shows
/// neither line.
#[test]
fn show_prints_a_webhooks_own_schedule_and_timeout() {
    let env = Env::new();
    let w = env.create_webhook_with(
        "https://example.com/h",
        "post.published",
        &["--retry-schedule", "5s,1h", "--timeout", "30s"],
    );
    let r = env.run(&["webhooks", "show", str_of(&w, "id")]);
    assert_eq!(r.code, 0, "{r:#?}");
    let line = |name: &str| {
        r.stdout
            .lines()
            .find(|l| l.contains(&format!(" {name} ")))
            .unwrap_or_else(|| panic!("no {name} line: {}", r.stdout))
            .to_string()
    };
    assert!(line("retries").contains(" 5s, 1h "), "{}", r.stdout);
    assert!(line("timeout").contains(" 30000ms "), "{}", r.stdout);
    let plain = env.create_webhook("https://example.com/p", "post.published");
    let r = env.run(&["webhooks", "show", str_of(&plain, "id")]);
    assert!(
        !r.stdout.contains("retries") && !r.stdout.contains("timeout"),
        "{}",
        r.stdout
    );
}

/// `--rate 5/s`: a burst of 5 at once, then a token per 200 ms on the clock, never more than
/// a burst of 5 however long it waited; other webhooks are not slowed. `--no-rate` lifts it.
#[test]
fn a_rated_webhook_gets_its_burst_then_its_rate() {
    let env = Env::with_clock();
    let rx = Receiver::start();
    let rated = env.create_webhook_with(&rx.url("/ok?rated"), "post.published", &["--rate", "5/s"]);
    assert_eq!(rated["rate"], "5/s", "{rated}");
    env.create_webhook(&rx.url("/ok?free"), "post.published");
    for _ in 0..20 {
        emit(&env, &["post.published"]);
    }
    let sent = |env: &Env| {
        env.deliver_once();
        (hits(&rx, "/ok?rated"), hits(&rx, "/ok?free"))
    };
    assert_eq!(
        sent(&env),
        (5, 20),
        "the burst; the other webhook unhindered"
    );
    assert_eq!(sent(&env), (5, 20), "no token left");
    env.advance_clock(199);
    assert_eq!(sent(&env).0, 5);
    env.advance_clock(1);
    assert_eq!(sent(&env).0, 6, "a token per 200 ms");
    env.advance_clock(60_000);
    assert_eq!(
        sent(&env).0,
        11,
        "a burst of 5 at most, however long it waited"
    );
    let id = str_of(&rated, "id");
    let (code, v) = env.json(&["webhooks", "update", id, "--rate", "2/min"]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["data"]["rate"], "2/min");
    env.advance_clock(60_000);
    assert_eq!(sent(&env).0, 13, "the new rate's burst: 2");
    let (code, v) = env.json(&["webhooks", "update", id, "--no-rate"]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["data"]["rate"], Value::Null);
    assert_eq!(sent(&env).0, 20, "no limit: the rest at once");
    for bad in ["0/s", "5/h", "5", "1000001/s"] {
        let r = env.run(&["webhooks", "update", id, "--rate", bad]);
        assert_eq!(r.code, 2, "{bad}: {r:#?}");
        assert!(r.stderr.contains("rate"), "{bad}: {}", r.stderr);
    }
}
