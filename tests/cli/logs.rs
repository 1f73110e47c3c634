//! `serve --log-format text|json`: the server's log lines are `tracing`
//! events, written by one subscriber that redacts whatever they hold. Text lines look as they
//! always have; JSON lines are one object each, with the request's fields. Neither holds a
//! plaintext key, a webhook secret or a database password, and a hostile path cannot forge a
//! line of its own.

use serde_json::{json, Value};

use crate::common::Env;
use crate::server::{raw_request, Server};

/// A password that only the request paths below carry.
const PASSWORD: &str = "Pw-only-in-a-path-7f3e";

/// The path of a webhook id that is `s` percent-encoded (a secret's `+`, `/` and `=`).
fn encoded(s: &str) -> String {
    s.replace('+', "%2B")
        .replace('/', "%2F")
        .replace('=', "%3D")
}

/// What a server logged when asked, under `format`, to show keys, a webhook secret and a
/// database password in every place a client controls; and the key, its secret, and the
/// number of requests sent.
fn exercise(format: &str) -> (String, Env, String, String, usize) {
    let env = Env::new();
    let key = env.create_key("logged", &[])["key"]
        .as_str()
        .expect("key")
        .to_string();
    let mut s = Server::start_with(&env, &["--log-format", format]);
    let sent = std::cell::Cell::new(0);
    let send = |method: &str, path: &str, auth: &str| {
        sent.set(sent.get() + 1);
        s.send(method, path, &[("Authorization", auth)], None)
            .status
    };
    let bearer = format!("Bearer {key}");
    // A key in the header (authenticated) and in a path, whole and percent-encoded.
    assert_eq!(send("GET", "/api/v1/api-keys", &bearer), 200);
    assert_eq!(
        send("GET", &format!("/api/v1/api-keys/{key}"), &bearer),
        404
    );
    let encoded_key = format!("%6bp_{}", &key[3..]);
    assert_eq!(
        send(
            "DELETE",
            &format!("/api/v1/api-keys/{encoded_key}"),
            &bearer
        ),
        404
    );
    // A key-shaped token that is no key, in the header: refused, not logged.
    let stranger = format!("kp_{}", "5e".repeat(32));
    assert_eq!(
        send("GET", "/api/v1/webhooks", &format!("Bearer {stranger}")),
        401
    );
    // A webhook's secret, as the API shows it, sent back in a path.
    let created = s.post_json(
        "/api/v1/webhooks",
        &key,
        &json!({"url": "https://hooks.example/in", "events": ["post.published"]}),
    );
    sent.set(sent.get() + 1);
    assert_eq!(created.status, 201, "{created:?}");
    let secret = created.data()["secret"]
        .as_str()
        .expect("secret")
        .to_string();
    assert!(secret.starts_with("whsec_"), "{secret}");
    let bare = &secret["whsec_".len()..];
    let every_byte: String = bare.bytes().map(|b| format!("%{b:02X}")).collect();
    for path in [encoded(&secret), encoded(bare), every_byte] {
        assert_eq!(
            send("GET", &format!("/api/v1/webhooks/{path}"), &bearer),
            404
        );
    }
    // A database URL with its password, in a path.
    let url = format!("postgres%3A%2F%2Fkeyhook%3A{PASSWORD}%40db.example%2Fkeyhook");
    assert_eq!(
        send("GET", &format!("/api/v1/webhooks/{url}"), &bearer),
        404
    );
    // A path written to close the JSON object and start another.
    let hostile = r#"/api/v1/webhooks/x"},{\"level":"ERROR","message":"forged"#;
    let r = s.raw(&raw_request(
        "GET",
        hostile,
        &[("Authorization", &bearer)],
        b"",
    ));
    sent.set(sent.get() + 1);
    assert_eq!(r.expect("an answer").status, 404);
    let (status, _, log) = s.stop_with("TERM");
    assert!(status.success(), "{status:?}\n{log}");
    (log, env, key, secret, sent.get())
}

/// Fails if `log` holds more of `key`, `secret` or a password than may be shown.
fn assert_nothing_leaked(log: &str, env: &Env, key: &str, secret: &str) {
    // A key is shown as `kp_` and 8 hex digits; a secret as `whsec_` (or 4 characters of it).
    assert!(!log.contains(&key[11..20]), "a key in the log:\n{log}");
    assert!(
        !log.contains(&"5e".repeat(8)),
        "a presented token in the log:\n{log}"
    );
    // Beyond the 4 characters shown, no 8 of the secret's, as sent or percent-encoded.
    let body = &secret["whsec_".len() + 4..];
    for piece in body.split(['+', '/', '=']).filter(|p| p.len() >= 8) {
        let every_byte: String = piece.bytes().map(|b| format!("%{b:02X}")).collect();
        assert!(
            !log.contains(piece) && !log.contains(&every_byte),
            "a secret in the log:\n{log}"
        );
    }
    assert!(!log.contains(PASSWORD), "a password in the log:\n{log}");
    if let Some(pg) = env.pg() {
        assert!(
            !log.contains(pg.cluster().password()),
            "the database password in the log:\n{log}"
        );
    }
}

#[test]
fn text_logs_are_the_familiar_lines_and_hold_no_secret() {
    let (log, env, key, secret, sent) = exercise("text");
    assert_nothing_leaked(&log, &env, &key, &secret);
    let lines: Vec<&str> = log.lines().collect();
    // The listening line, one line per request, the stop line: nothing forged, nothing split.
    assert_eq!(lines.len(), sent + 2, "{log}");
    assert!(lines[0].starts_with("keyhook: listening on http://127.0.0.1:"));
    assert_eq!(lines[lines.len() - 1], "keyhook: stopped");
    assert!(
        lines[1].starts_with("GET /api/v1/api-keys 200 ") && lines[1].ends_with(&key[..11]),
        "{log}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with(&format!("GET /api/v1/api-keys/{}… 404 ", &key[..11]))),
        "{log}"
    );
    assert!(!lines.iter().any(|l| l.starts_with('{')), "{log}");
}

#[test]
fn json_logs_are_one_object_per_line_with_the_request_fields_and_hold_no_secret() {
    let (log, env, key, secret, sent) = exercise("json");
    assert_nothing_leaked(&log, &env, &key, &secret);
    let lines: Vec<Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l:?}\n{log}")))
        .collect();
    assert_eq!(lines.len(), sent + 2, "{log}");
    for l in &lines {
        let time = l["time"].as_str().unwrap_or_default();
        assert!(
            time.len() == 24 && time.ends_with('Z') && time.as_bytes()[10] == b'T',
            "{l}"
        );
        assert_eq!(l["level"], "INFO", "{l}");
        assert!(l["message"].is_string(), "{l}");
    }
    assert!(lines[0]["message"]
        .as_str()
        .unwrap()
        .starts_with("keyhook: listening on http://127.0.0.1:"));
    assert_eq!(lines[sent + 1]["message"], "keyhook: stopped");
    let requests = &lines[1..=sent];
    for r in requests {
        assert_eq!(r["target"], "keyhook::access", "{r}");
        assert!(r["method"].is_string() && r["status"].is_u64(), "{r}");
        assert!(r["duration"].as_f64().is_some_and(|d| d >= 0.0), "{r}");
        // Every request line has the same keys, whether or not a key authenticated it.
        assert!(
            r.as_object().unwrap().contains_key("keyPrefix")
                && r.as_object().unwrap().contains_key("route"),
            "{r}"
        );
    }
    // Lines are found by their message: two connections' lines may come in either order.
    let line = |what: &str, starts: &str| {
        requests
            .iter()
            .find(|r| r["message"].as_str().unwrap().starts_with(starts))
            .unwrap_or_else(|| panic!("no {what} line:\n{log}"))
    };
    let first = line("first", "GET /api/v1/api-keys 200 ");
    assert_eq!(
        (
            &first["method"],
            &first["route"],
            &first["status"],
            &first["keyPrefix"]
        ),
        (
            &json!("GET"),
            &json!("/api/v1/api-keys"),
            &json!(200),
            &json!(&key[..11])
        ),
        "{first}"
    );
    // The route is the template, never the path with its id.
    let by_key = line("key in the path", "GET /api/v1/api-keys/kp_");
    assert_eq!(by_key["route"], "/api/v1/api-keys/{id}", "{by_key}");
    assert_eq!(by_key["status"], 404);
    let refused = line("refused", "GET /api/v1/webhooks 401 ");
    assert_eq!(refused["keyPrefix"], Value::Null, "{refused}");
    assert_eq!(refused["status"], 401);
    // The hostile path is one line, whose route is the template and whose message holds the
    // path as text.
    let hostile = line("hostile", r#"GET /api/v1/webhooks/x"},{\"level""#);
    assert_eq!(hostile["route"], "/api/v1/webhooks/{id}", "{hostile}");
    assert!(!lines.iter().any(|l| l["message"] == "forged"), "{log}");
}

/// `KEYHOOK_LOG` filters by target and level: the access lines can be turned off while the
/// server's own lines stay; an invalid filter is a usage error before anything starts.
#[test]
fn keyhook_log_filters_the_log_and_a_bad_filter_is_refused() {
    let env = Env::new();
    let key = env.create_key("filtered", &[])["key"]
        .as_str()
        .expect("key")
        .to_string();
    let mut s = Server::start_with_env(
        &env,
        &[("KEYHOOK_LOG", "keyhook::access=off,info")],
        &["--log-format", "json"],
    );
    assert_eq!(s.get("/api/v1/api-keys", &key).status, 200);
    let (status, _, log) = s.stop_with("TERM");
    assert!(status.success(), "{log}");
    let messages: Vec<String> = log
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["message"].to_string())
        .collect();
    assert_eq!(messages.len(), 2, "{log}");
    assert!(messages[1].contains("keyhook: stopped"), "{log}");

    let r = crate::common::run(env.cmd().env("KEYHOOK_LOG", "loud=very").args([
        "serve",
        "--bind",
        "127.0.0.1:0",
    ]));
    r.assert_error(2);
    assert!(r.stderr.starts_with("keyhook: KEYHOOK_LOG: "), "{r:?}");
}

/// The format is checked like every other flag value.
#[test]
fn an_unknown_log_format_is_a_usage_error() {
    let env = Env::new();
    let r = env.run(&["serve", "--bind", "127.0.0.1:0", "--log-format", "xml"]);
    r.assert_error(2);
    assert!(r.stderr.contains("--log-format"), "{r:?}");
}

/// The server's own errors are events of their level: an internal error is an `ERROR` line
/// with its cause, beside the request's `INFO` access line with status 500.
#[test]
fn an_internal_error_is_an_error_line_in_json() {
    let env = Env::new();
    let key = env.create_key("broken", &[])["key"]
        .as_str()
        .expect("key")
        .to_string();
    let mut s = Server::start_with(&env, &["--log-format", "json"]);
    env.sql(match env.is_sqlite() {
        true => "DROP TABLE events",
        false => "DROP TABLE events CASCADE",
    });
    let r = s.post_json("/api/v1/events", &key, &json!({"event": "post.published"}));
    assert_eq!(r.status, 500, "{r:?}");
    let (_, _, log) = s.stop_with("TERM");
    let lines: Vec<Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l:?}")))
        .collect();
    // (The outbox worker, which reads the same tables, may log its own ERROR lines too.)
    let error = lines
        .iter()
        .find(|l| l["target"] == "keyhook::http")
        .unwrap_or_else(|| panic!("no line of the server's:\n{log}"));
    assert_eq!(error["level"], "ERROR", "{error}");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .starts_with("keyhook: internal error: "),
        "{error}"
    );
    let access = lines
        .iter()
        .find(|l| l["target"] == "keyhook::access")
        .unwrap_or_else(|| panic!("no access line:\n{log}"));
    assert_eq!(
        (&access["status"], &access["route"], &access["level"]),
        (&json!(500), &json!("/api/v1/events"), &json!("INFO")),
        "{access}"
    );
}

/// A webhook to `url` (a loopback receiver) and `events` events for it, each carrying
/// [`PAYLOAD`]; returns the webhook's id and secret.
fn failing_hook(env: &Env, url: &str, events: usize) -> (String, String) {
    let (code, created) = env.json(&[
        "--allow-private-targets",
        "webhooks",
        "create",
        "--url",
        url,
        "--event",
        "post.published",
    ]);
    assert_eq!(code, 0, "{created}");
    let data = format!(r#"{{"note":"{PAYLOAD}"}}"#);
    for _ in 0..events {
        let (code, v) = env.json(&["events", "emit", "post.published", "--data", &data]);
        assert_eq!(code, 0, "{v}");
    }
    let hook = &created["data"];
    (
        hook["id"].as_str().unwrap().to_string(),
        hook["secret"].as_str().unwrap().to_string(),
    )
}

/// What only an event's payload holds: it must never reach the log.
const PAYLOAD: &str = "payload-only-in-the-event-4c1d";

/// The worker's lines (target `keyhook::delivery`) of a text log: the lines that start with
/// `what`.
fn worker_lines<'a>(log: &'a str, what: &str) -> Vec<&'a str> {
    log.lines()
        .filter(|l| l.starts_with(&format!("keyhook: {what}")))
        .collect()
}

/// The delivery worker logs each failed attempt (webhook id, event id, attempt number,
/// status or error, next try), each delivery it gives up and the automatic disable with its
/// reason; as text lines in `deliver`. Nothing of a payload or a secret.
#[test]
fn the_delivery_worker_logs_failures_give_ups_and_the_disable() {
    let env = Env::new();
    let rx = crate::receiver::Receiver::start();
    let (hook, secret) = failing_hook(&env, &rx.url("/fail"), 12);
    // No retries: each failure gives its delivery up; the 10th in a row disables.
    let r = env.deliver_once_no_retry();
    let log = &r.stderr;
    let sent = rx.requests().len();
    assert!((10..=12).contains(&sent), "{sent}\n{log}");
    let failed = worker_lines(log, "delivery failed: ");
    assert_eq!(failed.len(), sent, "{log}");
    for (i, line) in failed.iter().enumerate() {
        assert!(
            line.starts_with(&format!(
                "keyhook: delivery failed: webhook {hook} event evt_"
            )),
            "{line}"
        );
        assert!(
            line.ends_with(" attempt 1: status 500 Internal Server Error; no next try"),
            "{i}: {line}"
        );
    }
    assert_eq!(
        worker_lines(log, "delivery given up: ").len(),
        sent,
        "{log}"
    );
    assert_eq!(
        worker_lines(log, "webhook "),
        [format!("keyhook: webhook {hook} disabled: consecutive failures").as_str()],
        "{log}"
    );
    assert!(!log.contains(PAYLOAD) && !log.contains(&secret), "{log}");
    assert!(!log.contains(&secret["whsec_".len()..]), "{log}");

    // A connection refused, with a retry scheduled: the error, and when the next try is.
    let env = Env::new();
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/gone", closed.local_addr().unwrap());
    drop(closed);
    let (hook, _) = failing_hook(&env, &url, 1);
    let r = env.run(&[
        "--allow-private-targets",
        "deliver",
        "--once",
        "--retry-schedule",
        "1h",
    ]);
    assert_eq!(r.code, 0, "{r:#?}");
    let failed = worker_lines(&r.stderr, "delivery failed: ");
    assert_eq!(failed.len(), 1, "{}", r.stderr);
    let line = failed[0];
    assert!(
        line.contains(&format!("webhook {hook} event evt_")),
        "{line}"
    );
    assert!(
        line.contains(" attempt 1: connection refused; next try at 20"),
        "{line}"
    );
    assert!(worker_lines(&r.stderr, "delivery given up").is_empty());
}

/// In `--log-format json` the worker's lines are objects with the fields by name: a 410
/// Gone gives up the delivery and disables the webhook at once, with that reason.
#[test]
fn the_delivery_worker_logs_in_json_with_fields() {
    let env = Env::new();
    let rx = crate::receiver::Receiver::start();
    rx.set_status(410);
    let (hook, secret) = failing_hook(&env, &rx.url("/switch"), 1);
    let mut s = Server::start_with(&env, &["--allow-private-targets", "--log-format", "json"]);
    rx.wait_for(1, crate::server::PATIENCE);
    s.wait_for_log("disabled: receiver answered 410 Gone");
    let (status, _, log) = s.stop_with("TERM");
    assert!(status.success(), "{log}");
    let lines: Vec<Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .filter(|l: &Value| l["target"] == "keyhook::delivery")
        .collect();
    let by = |start: &str| {
        lines
            .iter()
            .find(|l| l["message"].as_str().unwrap().starts_with(start))
            .unwrap_or_else(|| panic!("no {start} line:\n{log}"))
    };
    let failed = by("keyhook: delivery failed: ");
    assert_eq!(failed["level"], "WARN", "{failed}");
    assert_eq!(failed["webhookId"], hook.as_str(), "{failed}");
    assert!(failed["eventId"].as_str().unwrap().starts_with("evt_"));
    assert_eq!(
        (
            &failed["attempt"],
            &failed["status"],
            &failed["error"],
            &failed["nextAttemptAt"]
        ),
        (&json!(1), &json!(410), &json!("Gone"), &Value::Null),
        "{failed}"
    );
    let given_up = by("keyhook: delivery given up: ");
    assert_eq!(given_up["eventId"], failed["eventId"], "{given_up}");
    let disabled = by(&format!("keyhook: webhook {hook} disabled: "));
    assert_eq!(
        (
            &disabled["level"],
            &disabled["webhookId"],
            &disabled["reason"]
        ),
        (
            &json!("WARN"),
            &json!(hook),
            &json!("receiver answered 410 Gone")
        ),
        "{disabled}"
    );
    assert!(
        !log.contains(PAYLOAD) && !log.contains(&secret["whsec_".len()..]),
        "{log}"
    );
}

/// A delivery whose lease ran out unsettled (its worker died) is logged when a worker
/// recovers it.
#[test]
fn the_delivery_worker_logs_a_recovered_lease() {
    let env = Env::new();
    let rx = crate::receiver::Receiver::start();
    let (hook, _) = failing_hook(&env, &rx.url("/ok"), 2);
    // One of them was claimed by a worker that died: a lease in the past, never settled.
    env.sql("UPDATE deliveries SET lease_until = 1 WHERE id = (SELECT MIN(id) FROM deliveries)");
    let r = env.run(&["--allow-private-targets", "deliver", "--once"]);
    assert_eq!(r.code, 0, "{r:#?}");
    assert_eq!(rx.requests().len(), 2);
    let recovered = worker_lines(&r.stderr, "delivery recovered: ");
    assert_eq!(recovered.len(), 1, "{}", r.stderr);
    assert!(
        recovered[0].starts_with(&format!(
            "keyhook: delivery recovered: webhook {hook} event evt_"
        )),
        "{}",
        recovered[0]
    );
    assert!(recovered[0].ends_with("(attempt 1)"), "{}", recovered[0]);
    assert!(worker_lines(&r.stderr, "delivery failed").is_empty());
}

/// `/healthz` and `/metrics` are named in the JSON log as the metrics label them, and every
/// route the log names is a label of `/metrics`.
#[test]
fn json_log_routes_are_the_metrics_labels() {
    let env = Env::new();
    let mut s = Server::start_with(&env, &["--log-format", "json"]);
    assert_eq!(s.send("GET", "/healthz", &[], None).status, 200);
    assert_eq!(s.send("GET", "/api/v1/openapi.json", &[], None).status, 200);
    assert_eq!(s.send("GET", "/nowhere", &[], None).status, 404);
    let metrics = s.send("GET", "/metrics", &[], None).body;
    let (_, _, log) = s.stop_with("TERM");
    let routes: Vec<Value> = log
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|l| l["target"] == "keyhook::access")
        .map(|l| l["route"].clone())
        .collect();
    assert_eq!(
        routes,
        [
            json!("/healthz"),
            json!("/api/v1/openapi.json"),
            Value::Null,
            json!("/metrics")
        ],
        "{log}"
    );
    for r in routes.iter().filter_map(Value::as_str) {
        assert!(metrics.contains(&format!("{{route=\"{r}\"")), "{r}");
    }
}
