//! Payload filters (`--filter`, `filter` in POST/PATCH /webhooks) and keyhook's operational
//! events (`webhook.disabled`, `delivery.exhausted`). Every test runs on SQLite and again on
//! PostgreSQL (tests/cli/backends.rs). Signatures are checked with the `standardwebhooks`
//! crate, an independent verifier.

use serde_json::{json, Value};

use crate::common::{admin_key, emit, kh, str_of, Env};
use crate::receiver::{verifies, Receiver, Request};
use crate::server::{Server, PATIENCE};

/// How many deliveries the webhook `id` has in the outbox, whatever their state.
fn deliveries_to(env: &Env, id: &str) -> i64 {
    env.sql_i64(&format!(
        "SELECT count(*) FROM deliveries WHERE webhook_id = '{id}'"
    ))
}

/// A filter that is true, false, fails or is not a boolean decides what is queued: only
/// `true` queues a delivery; the others queue nothing (and the webhooks without a filter
/// get every event). `webhooks show` prints the filter; `--json` has it, `null` without.
#[test]
fn only_a_true_filter_queues_a_delivery() {
    let env = Env::new();
    let url = "http://127.0.0.1:9/a";
    let plain = env.create_webhook(url, "post.published");
    let f = r#"data.n > 1 && data.tags.exists(t, t == "breaking")"#;
    let picky = env.create_webhook_with(url, "post.published", &["--filter", f]);
    let number = env.create_webhook_with(url, "post.published", &["--filter", "data.n"]);
    let missing = env.create_webhook_with(url, "post.published", &["--filter", "data.nope == 1"]);
    assert_eq!(picky["filter"], f);
    assert_eq!(plain["filter"], Value::Null);
    let ids: Vec<&str> = [&plain, &picky, &number, &missing]
        .iter()
        .map(|w| str_of(w, "id"))
        .collect();

    assert_eq!(
        emit(
            &env,
            &[
                "post.published",
                "--data",
                r#"{"n": 2, "tags": ["x", "breaking"]}"#
            ]
        )["deliveries"],
        2
    );
    assert_eq!(
        emit(
            &env,
            &["post.published", "--data", r#"{"n": 2, "tags": ["x"]}"#]
        )["deliveries"],
        1
    );
    assert_eq!(
        emit(
            &env,
            &[
                "post.published",
                "--data",
                r#"{"n": 0, "tags": ["breaking"]}"#
            ]
        )["deliveries"],
        1
    );
    let counts: Vec<i64> = ids.iter().map(|id| deliveries_to(&env, id)).collect();
    assert_eq!(counts, [3, 1, 0, 0]);

    let shown = env.run(&["webhooks", "show", ids[1]]);
    assert_eq!(shown.code, 0, "{shown:#?}");
    assert!(
        shown.stdout.contains("filter") && shown.stdout.contains("data.n > 1"),
        "{}",
        shown.stdout
    );
    let plain_shown = env.run(&["webhooks", "show", ids[0]]).stdout;
    assert!(!plain_shown.contains("filter"), "{plain_shown}");

    // `--no-filter` removes it: every event again.
    let (code, v) = kh(&env, &["webhooks", "update", ids[2], "--no-filter"]);
    assert_eq!((code, &v["data"]["filter"]), (0, &Value::Null), "{v}");
    assert_eq!(
        emit(&env, &["post.published", "--data", r#"{"n": 0}"#])["deliveries"],
        2
    );
    assert_eq!(deliveries_to(&env, ids[2]), 1);
}

/// A filter that is not CEL, too long, too deep, or with macros nested is refused when
/// written, on the command line (exit 2, naming the filter) and over HTTP (400
/// VALIDATION_ERROR with the detail `filter`); nothing is created or changed.
#[test]
fn bad_filters_are_refused_on_both_front_ends() {
    let env = Env::new();
    let long = format!("data.n == 1 || {}", "data.n == 2 || ".repeat(200));
    let deep = format!("{}true{}", "(".repeat(40), ")".repeat(40));
    let nested = "data.a.exists(x, data.b.exists(y, x == y))";
    let bad = ["data.n >", "", long.as_str(), deep.as_str(), nested];
    for f in bad {
        refused_filter(&env, "http://127.0.0.1:9/a", f);
    }
    assert_eq!(env.count_rows("webhooks"), 0);

    let key = admin_key(&env);
    let server = Server::start_with(&env, &["--allow-private-targets"]);
    let send = |method: &str, path: &str, body: &Value| server.send_json(method, path, &key, body);
    for f in bad {
        let body =
            json!({"url": "http://127.0.0.1:9/a", "events": ["post.published"], "filter": f});
        let r = send("POST", "/api/v1/webhooks", &body);
        assert_eq!(r.status, 400, "{f}: {r:?}");
        let e = r.json();
        assert_eq!(e["error"]["code"], "VALIDATION_ERROR", "{e}");
        assert_eq!(e["error"]["details"][0]["field"], "filter", "{e}");
    }
    let body = json!({"url": "http://127.0.0.1:9/a", "events": ["post.published"], "filter": "data.n == 1"});
    let r = send("POST", "/api/v1/webhooks", &body);
    assert_eq!(r.status, 201, "{r:?}");
    let w = r.data();
    assert_eq!(w["filter"], "data.n == 1");
    let path = format!("/api/v1/webhooks/{}", str_of(&w, "id"));

    // PATCH: a bad filter or a wrong type is refused and changes nothing; without the
    // field the filter stays; null removes it.
    let r = send("PATCH", &path, &json!({"filter": "data.n =="}));
    assert_eq!(r.status, 400, "{r:?}");
    assert_eq!(r.json()["error"]["details"][0]["field"], "filter");
    let r = send("PATCH", &path, &json!({"filter": 5}));
    assert_eq!(r.status, 400, "{r:?}");
    assert_eq!(r.json()["error"]["details"][0]["field"], "filter");
    let r = send("PATCH", &path, &json!({"url": "http://127.0.0.1:9/b"}));
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(r.data()["filter"], "data.n == 1");
    let r = send("PATCH", &path, &json!({"filter": "data.n == 2"}));
    assert_eq!(r.data()["filter"], "data.n == 2");
    let r = send("PATCH", &path, &json!({"filter": null}));
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(r.data()["filter"], Value::Null);
    let r = server.call("GET", &path, Some(&key));
    assert_eq!(r.data()["filter"], Value::Null);
}

/// A filter is checked against the JSON Schemas of the event types it subscribes to when it
/// is written: a field no schema declares is refused with "did you mean", a string field
/// compared with a number too; on the command line (exit 2) and over HTTP (400 on `filter`),
/// for create and for a PATCH of the filter or the events. A subscribed type without a
/// schema may carry any data, so then nothing is refused.
#[test]
fn filters_are_checked_against_the_subscribed_schemas() {
    let env = Env::new();
    let schema = env.dir.path().join("schema.json");
    let body = json!({
        "type": "object",
        "properties": {"title": {"type": "string"}, "author": {"$ref": "#/$defs/person"}},
        "$defs": {"person": {"type": "object", "properties": {"name": {"type": "string"}}}}
    });
    std::fs::write(&schema, body.to_string()).unwrap();
    let (code, v) = kh(
        &env,
        &[
            "event-types",
            "add",
            "post.updated",
            "--schema",
            schema.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 0, "{v}");
    let create = |events: &[&str], filter: &str| {
        let mut args = vec![
            "--allow-private-targets",
            "webhooks",
            "create",
            "--url",
            "http://127.0.0.1:9/a",
        ];
        for e in events {
            args.extend(["--event", e]);
        }
        args.extend(["--filter", filter]);
        env.run(&args)
    };
    for (filter, says) in [
        ("data.titel == 'x'", "did you mean `title`?"),
        ("has(data.titel)", "did you mean `title`?"),
        ("data['titel'] == 'x'", "did you mean `title`?"),
        ("data.author.nmae == 'x'", "did you mean `name`?"),
        ("data.title == 1", "`data.title` is a string"),
    ] {
        let r = create(&["post.updated"], filter);
        assert_eq!(r.code, 2, "{filter}: {r:#?}");
        assert!(
            r.stderr.contains("filter") && r.stderr.contains(says),
            "{filter}: {}",
            r.stderr
        );
    }
    assert_eq!(env.count_rows("webhooks"), 0);
    // Fields the schema declares pass; so does anything when a subscribed type has no schema.
    assert_eq!(
        create(
            &["post.updated"],
            "data.author.name == 'Ann' || data.title == 'x'"
        )
        .code,
        0
    );
    assert_eq!(
        create(&["post.updated", "post.published"], "data.titel == 'x'").code,
        0
    );

    let key = admin_key(&env);
    let server = Server::start_with(&env, &["--allow-private-targets"]);
    let send = |method: &str, path: &str, body: &Value| server.send_json(method, path, &key, body);
    let body = json!({"url": "http://127.0.0.1:9/a", "events": ["post.updated"], "filter": "data.titel == 'x'"});
    let r = send("POST", "/api/v1/webhooks", &body);
    assert_eq!(r.status, 400, "{r:?}");
    let e = r.json();
    assert_eq!(e["error"]["code"], "VALIDATION_ERROR", "{e}");
    assert_eq!(e["error"]["details"][0]["field"], "filter", "{e}");
    assert!(
        str_of(&e["error"]["details"][0], "message").contains("did you mean `title`?"),
        "{e}"
    );
    // A filter on post.published's data: refused when the events change to post.updated.
    let body = json!({"url": "http://127.0.0.1:9/a", "events": ["post.published"], "filter": "data.n == 1.0"});
    let r = send("POST", "/api/v1/webhooks", &body);
    assert_eq!(r.status, 201, "{r:?}");
    let path = format!("/api/v1/webhooks/{}", str_of(&r.data(), "id"));
    let r = send("PATCH", &path, &json!({"events": ["post.updated"]}));
    assert_eq!(r.status, 400, "{r:?}");
    assert_eq!(r.json()["error"]["details"][0]["field"], "filter");
    let r = send(
        "PATCH",
        &path,
        &json!({"events": ["post.updated"], "filter": "data.title == 'x'"}),
    );
    assert_eq!(r.status, 200, "{r:?}");
    let r = send("PATCH", &path, &json!({"filter": "data.title > 2.0"}));
    assert_eq!(r.status, 400, "{r:?}");
    assert_eq!(
        server.call("GET", &path, Some(&key)).data()["filter"],
        "data.title == 'x'"
    );
}

/// What CEL says a filter means, end to end (CONTRACT §10.1): JSON numbers are doubles
/// (`1` and `1.0` give one verdict), `||` absorbs an error, `!!x` is `x`; what keyhook does
/// not evaluate is refused when written.
#[test]
fn filters_follow_cel_end_to_end() {
    let env = Env::new();
    let url = "http://127.0.0.1:9/a";
    let sum = env.create_webhook_with(url, "post.published", &["--filter", "data.x + 1.0 == 2.0"]);
    let either = env.create_webhook_with(
        url,
        "post.published",
        &["--filter", "data.optional == 1.0 || data.x == 1.0"],
    );
    let twice = env.create_webhook_with(url, "post.published", &["--filter", "!!(data.x == 1.0)"]);
    assert_eq!(
        emit(&env, &["post.published", "--data", r#"{"x": 1}"#])["deliveries"],
        3
    );
    assert_eq!(
        emit(&env, &["post.published", "--data", r#"{"x": 1.0}"#])["deliveries"],
        3
    );
    assert_eq!(
        emit(&env, &["post.published", "--data", r#"{"x": 2}"#])["deliveries"],
        0
    );
    for w in [&sum, &either, &twice] {
        assert_eq!(deliveries_to(&env, str_of(w, "id")), 2);
    }
    for f in [
        "data.x + 1 == 2",
        "timestamp(data.at) > timestamp('2024-01-01T00:00:00Z')",
        "\"ell\" in \"hello\"",
        "nope == 1",
    ] {
        refused_filter(&env, url, f);
    }
    let stderr = refused_filter(&env, url, "data.x + 1 == 2");
    assert!(stderr.contains("`1.0`"), "{stderr}");
}

/// Filters that fail or give a non-boolean at fan-out are counted in
/// `keyhook_filter_errors_total` on /metrics; a false one is not an error.
#[test]
fn filter_errors_are_counted_on_metrics() {
    let env = Env::new();
    let url = "http://127.0.0.1:9/a";
    env.create_webhook_with(url, "post.published", &["--filter", "data.n"]);
    env.create_webhook_with(url, "post.published", &["--filter", "data.nope == 1"]);
    env.create_webhook_with(url, "post.published", &["--filter", "data.n == 7"]);
    let key = admin_key(&env);
    let server = Server::start(&env);
    let errors = || crate::routing::filter_errors(&server);
    assert_eq!(errors(), 0);
    for _ in 0..3 {
        let r = server.post_json(
            "/api/v1/events",
            &key,
            &json!({"event": "post.published", "data": {"n": 1}}),
        );
        assert_eq!(r.status, 202, "{r:?}");
        assert_eq!(r.data()["deliveries"], 0);
    }
    assert_eq!(errors(), 6);
}

/// Replay applies the webhook's filter as it is now: of three past events, only those it
/// admits are queued again.
#[test]
fn replay_applies_the_filter() {
    let env = Env::new();
    let w = env.create_webhook("http://127.0.0.1:9/a", "post.published");
    let id = str_of(&w, "id");
    for n in 1..=3 {
        assert_eq!(
            emit(
                &env,
                &["post.published", "--data", &format!(r#"{{"n": {n}}}"#)]
            )["deliveries"],
            1
        );
    }
    let (code, v) = kh(&env, &["webhooks", "update", id, "--filter", "data.n >= 2"]);
    assert_eq!(code, 0, "{v}");
    let (code, v) = kh(&env, &["webhooks", "replay", id]);
    assert_eq!((code, &v["data"]["queued"]), (0, &json!(2)), "{v}");
    assert_eq!(deliveries_to(&env, id), 5);
    let (code, v) = kh(&env, &["webhooks", "update", id, "--filter", "data.n"]);
    assert_eq!(code, 0, "{v}");
    let (code, v) = kh(&env, &["webhooks", "replay", id]);
    assert_eq!((code, &v["data"]["queued"]), (0, &json!(0)), "{v}");
    assert_eq!(deliveries_to(&env, id), 5);
}

/// Operational events cannot be emitted (400 naming `event`, exit 2), but can be
/// subscribed to.
#[test]
fn operational_events_are_subscribed_to_not_emitted() {
    let env = Env::new();
    for name in ["webhook.disabled", "delivery.exhausted"] {
        env.create_webhook("http://127.0.0.1:9/a", name);
        let r = env.run(&["events", "emit", name]);
        assert_eq!(r.code, 2, "{r:#?}");
        assert!(r.stderr.contains("event"), "{}", r.stderr);
        let (code, v) = kh(&env, &["events", "emit", name]);
        assert_eq!(code, 2);
        assert_eq!(v["error"]["details"][0]["field"], "event", "{v}");
    }
    assert_eq!(env.count_rows("events"), 0);
}

/// A webhook answered 410 Gone: `webhook.disabled` and `delivery.exhausted` about it reach
/// the user's other webhooks that subscribe to them and whose scope covers it, signed with
/// their own secrets, profile-less; never the webhook itself, nor a webhook limited to
/// profiles (it does not cover a full-access webhook). Then `webhooks disable` of a
/// webhook of profile brand-a is heard by the full-access watcher and by brand-a's.
#[test]
fn operational_events_reach_the_other_webhooks_that_cover_it() {
    let env = Env::new();
    let rx = Receiver::start();
    rx.set_status(410);
    let ops = "--event=webhook.disabled";
    let gone = env.create_webhook_with(&rx.url("/switch"), "post.published", &[ops]);
    let gone_id = str_of(&gone, "id");
    let watcher = env.create_webhook_with(
        &rx.url("/ok"),
        "webhook.disabled",
        &["--event", "delivery.exhausted"],
    );
    let brand_a = env.create_webhook_with(
        &rx.url("/ok?brand-a"),
        "webhook.disabled",
        &["--profile", "brand-a"],
    );
    let emitted = kh(&env, &["events", "emit", "post.published"]).1;
    let event_id = str_of(&emitted["data"], "id").to_string();
    env.deliver_once_no_retry();

    let got = rx.wait_for(3, PATIENCE);
    let to = |target: &str| -> Vec<Request> {
        got.iter().filter(|r| r.target == target).cloned().collect()
    };
    assert_eq!(to("/switch").len(), 1, "{got:#?}");
    assert_eq!(to("/ok?brand-a").len(), 0, "{got:#?}");
    let heard = to("/ok");
    let mut bodies: Vec<Value> = heard.iter().map(Request::json).collect();
    bodies.sort_by_key(|b| b["event"].as_str().unwrap().to_string());
    assert_eq!(bodies.len(), 2, "{bodies:#?}");
    assert_eq!(bodies[0]["event"], "delivery.exhausted");
    assert_eq!(
        bodies[0]["data"],
        json!({"webhookId": gone_id, "eventId": event_id, "attempts": 1, "lastStatus": 410})
    );
    assert_eq!(bodies[1]["event"], "webhook.disabled");
    assert_eq!(
        bodies[1]["data"],
        json!({"webhookId": gone_id, "url": rx.url("/switch"), "reason": "receiver answered 410 Gone", "failCount": 1})
    );
    for (r, b) in heard.iter().zip(&bodies) {
        assert_eq!(b["profileId"], Value::Null);
        assert!(verifies(str_of(&watcher, "secret"), r), "{r:#?}");
    }

    // An operator's disable of a brand-a webhook: both watchers hear it (brand-a's covers
    // it), the webhook itself does not, though it subscribes.
    let scoped = env.create_webhook_with(
        &rx.url("/ok?scoped"),
        "webhook.disabled",
        &["--profile", "brand-a"],
    );
    let scoped_id = str_of(&scoped, "id");
    let (code, v) = kh(&env, &["webhooks", "disable", scoped_id]);
    assert_eq!(code, 0, "{v}");
    env.deliver_once_no_retry();
    let got = rx.wait_for(5, PATIENCE);
    let about_scoped: Vec<(String, Value)> = got
        .iter()
        .map(|r| (r.target.clone(), r.json()))
        .filter(|(_, b)| b["data"]["webhookId"] == scoped_id)
        .collect();
    let mut targets: Vec<&str> = about_scoped.iter().map(|(t, _)| t.as_str()).collect();
    targets.sort();
    assert_eq!(targets, ["/ok", "/ok?brand-a"], "{about_scoped:#?}");
    for (_, b) in &about_scoped {
        assert_eq!(b["data"]["reason"], "disabled manually");
    }
    let brand_a_req = got.iter().find(|r| r.target == "/ok?brand-a").unwrap();
    assert!(verifies(str_of(&brand_a, "secret"), brand_a_req));
}

/// Every webhook of a user fails and each subscribes to both operational events: each
/// original delivery gives up (and its 10th failure disables its webhook), which is reported
/// to the others, whose failures to receive those reports cause no further event. The
/// worker comes to rest; every operational event is about the one emitted event's
/// deliveries.
#[test]
fn no_loops_when_every_webhook_fails() {
    let env = Env::new();
    let rx = Receiver::start();
    let ids: Vec<String> = (0..3)
        .map(|_| {
            let w = env.create_webhook_with(
                &rx.url("/fail"),
                "post.published",
                &[
                    "--event",
                    "webhook.disabled",
                    "--event",
                    "delivery.exhausted",
                ],
            );
            str_of(&w, "id").to_string()
        })
        .collect();
    // One failure from the automatic disable.
    env.sql("UPDATE webhooks SET fail_count = 9");
    let emitted = kh(&env, &["events", "emit", "post.published"]).1;
    let event_id = str_of(&emitted["data"], "id").to_string();
    // One `deliver --once` comes to rest: it goes on while it cancels deliveries to the
    // webhooks just disabled, and nothing new is queued by their cancellation.
    env.deliver_once_no_retry();

    let pending = env.sql_i64("SELECT count(*) FROM deliveries WHERE state = 'pending'");
    assert_eq!(pending, 0);
    let events = env.sql("SELECT event FROM events ORDER BY event");
    let names: Vec<&str> = events.iter().map(|r| r[0].as_str()).collect();
    let exhausted = names.iter().filter(|n| **n == "delivery.exhausted").count();
    let disabled = names.iter().filter(|n| **n == "webhook.disabled").count();
    assert_eq!(names.len(), 1 + exhausted + disabled, "{names:?}");
    assert!(exhausted <= 3 && disabled <= 3, "{names:?}");
    assert!(disabled >= 1, "{names:?}");
    let active = env.sql_i64("SELECT count(*) FROM webhooks WHERE is_active");
    assert_eq!(active, 0);
    for r in rx.requests() {
        let b = r.json();
        match b["event"].as_str().unwrap() {
            "post.published" => {}
            "delivery.exhausted" => assert_eq!(b["data"]["eventId"], event_id.as_str()),
            "webhook.disabled" => {
                assert!(
                    ids.iter().any(|i| b["data"]["webhookId"] == i.as_str()),
                    "{b}"
                )
            }
            other => panic!("unexpected {other}"),
        }
    }
}

/// `webhooks create` of a `post.published` webhook to `url` (loopback allowed) with the
/// filter `f`, which must be refused (exit 2, naming the filter); what it said on stderr.
fn refused_filter(env: &Env, url: &str, f: &str) -> String {
    let r = env.run(&[
        "--allow-private-targets",
        "webhooks",
        "create",
        "--url",
        url,
        "--event",
        "post.published",
        "--filter",
        f,
    ]);
    assert_eq!(r.code, 2, "{f}: {r:#?}");
    assert!(r.stderr.contains("filter"), "{f}: {}", r.stderr);
    r.stderr
}
