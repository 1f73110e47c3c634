//! Idempotent events: POST /events with `Idempotency-Key`
//! and `events emit --idempotency-key`. A repeat by the same user within 24 hours gets the
//! FIRST event back (202, the same body) and queues nothing, whatever its own event and data;
//! after 24 hours the key is free again; users never share keys; concurrent repeats, on one
//! server or on two, queue once. A key that is empty, over 255 characters or not printable
//! ASCII is 400 on `Idempotency-Key` (CLI exit 2 naming `--idempotency-key`). On both
//! backends.

use std::sync::Arc;
use std::thread;

use serde_json::{json, Value};

use crate::common::{key_of, str_of, Env};
use crate::server::{Resp, Server};

const DAY: i64 = 24 * 3_600_000;

/// POST /api/v1/events with `key`, the `Idempotency-Key` `idem` if any, and `body`.
fn post_event(s: &Server, key: &str, idem: Option<&str>, body: &Value) -> Resp {
    let auth = format!("Bearer {key}");
    let mut headers = vec![
        ("Authorization", auth.as_str()),
        ("Content-Type", "application/json"),
    ];
    if let Some(k) = idem {
        headers.push(("Idempotency-Key", k));
    }
    s.send(
        "POST",
        "/api/v1/events",
        &headers,
        Some(body.to_string().as_bytes()),
    )
}

fn published() -> Value {
    json!({"event": "post.published", "data": {"postId": "p_1"}})
}

#[test]
fn a_repeat_within_24_hours_gets_the_first_event_and_queues_nothing() {
    let env = Env::with_clock();
    let key = key_of(&env, "u", &[]);
    env.create_webhook_with(
        "http://127.0.0.1:9/r",
        "post.published",
        &["--event", "post.failed", "--user", "u"],
    );
    let s = Server::start(&env);
    let first = post_event(&s, &key, Some("order-1"), &published());
    assert_eq!(first.status, 202, "{first:?}");
    assert_eq!(first.data()["deliveries"], 1);
    env.advance_clock(DAY - 1);
    // The same body, and another event with other data: both get the first event.
    for body in [
        published(),
        json!({"event": "post.failed", "data": {"other": true}}),
    ] {
        let again = post_event(&s, &key, Some("order-1"), &body);
        assert_eq!(again.status, 202, "{again:?}");
        assert_eq!(again.body, first.body);
    }
    assert_eq!(env.count_rows("events"), 1);
    assert_eq!(env.count_rows("deliveries"), 1);
    // Keys are exact: another key is another event.
    let other = post_event(&s, &key, Some("Order-1"), &published());
    assert_ne!(other.data()["id"], first.data()["id"]);
    assert_eq!(env.count_rows("events"), 2);
    // 24 hours after the first, the key takes a new event.
    env.advance_clock(1);
    let later = post_event(&s, &key, Some("order-1"), &published());
    assert_eq!(later.status, 202, "{later:?}");
    assert_ne!(later.data()["id"], first.data()["id"]);
    assert_eq!(later.data()["deliveries"], 1);
    assert_eq!(env.count_rows("events"), 3);
    assert_eq!(env.count_rows("deliveries"), 3);
    // ... and holds it again.
    let repeat = post_event(&s, &key, Some("order-1"), &published());
    assert_eq!(repeat.body, later.body);
    // Without a key, every request is an event.
    post_event(&s, &key, None, &published());
    post_event(&s, &key, None, &published());
    assert_eq!(env.count_rows("events"), 5);
}

#[test]
fn users_never_share_keys() {
    let env = Env::new();
    let (a, b) = (key_of(&env, "a", &[]), key_of(&env, "b", &[]));
    env.create_webhook_with(
        "http://127.0.0.1:9/r",
        "post.published",
        &["--event", "post.failed", "--user", "a"],
    );
    env.create_webhook_with(
        "http://127.0.0.1:9/r",
        "post.published",
        &["--event", "post.failed", "--user", "b"],
    );
    let s = Server::start(&env);
    let ra = post_event(&s, &a, Some("k"), &published());
    let rb = post_event(&s, &b, Some("k"), &published());
    assert_eq!((ra.status, rb.status), (202, 202));
    assert_ne!(ra.data()["id"], rb.data()["id"]);
    assert_eq!(rb.data()["deliveries"], 1);
    assert_eq!(env.count_rows("events"), 2);
    // The CLI takes the same key for the same user: the API's first event.
    let (code, v) = env.json(&[
        "--user",
        "a",
        "events",
        "emit",
        "post.published",
        "--idempotency-key",
        "k",
    ]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v, ra.json());
    let r = env.run(&[
        "--user",
        "b",
        "events",
        "emit",
        "post.failed",
        "--idempotency-key",
        "k",
    ]);
    assert_eq!(r.code, 0, "{r:#?}");
    let id = rb.data()["id"].as_str().unwrap().to_string();
    assert_eq!(
        r.stdout,
        format!("Queued {id} (post.published) for 1 webhook.\n")
    );
    assert!(
        r.stderr
            .contains("the first event is shown, and nothing new was queued"),
        "{r:#?}"
    );
    assert_eq!(env.count_rows("events"), 2);
    assert_eq!(env.count_rows("deliveries"), 2);
}

/// Many requests with one key at once, spread over two servers on one database: one event,
/// one delivery, and every answer is that event.
#[test]
fn concurrent_repeats_queue_once_across_instances() {
    let env = Env::new();
    let key = key_of(&env, "u", &[]);
    env.create_webhook_with(
        "http://127.0.0.1:9/r",
        "post.published",
        &["--event", "post.failed", "--user", "u"],
    );
    let servers = Arc::new([Server::start(&env), Server::start(&env)]);
    for round in 0..5 {
        let idem = format!("race-{round}");
        let threads: Vec<_> = (0..16)
            .map(|i| {
                let servers = Arc::clone(&servers);
                let key = key.clone();
                let idem = idem.clone();
                thread::spawn(move || {
                    let r = post_event(&servers[i % 2], &key, Some(&idem), &published());
                    assert_eq!(r.status, 202, "{r:?}");
                    r.body
                })
            })
            .collect();
        let bodies: Vec<String> = threads.into_iter().map(|t| t.join().unwrap()).collect();
        assert!(bodies.iter().all(|b| *b == bodies[0]), "{bodies:#?}");
        let v: Value = serde_json::from_str(&bodies[0]).unwrap();
        assert_eq!(v["data"]["deliveries"], 1, "{v}");
    }
    assert_eq!(env.count_rows("events"), 5);
    assert_eq!(env.count_rows("deliveries"), 5);
}

#[test]
fn bad_keys_are_400_on_the_header_with_nothing_written() {
    let env = Env::new();
    let key = key_of(&env, "u", &[]);
    env.create_webhook_with(
        "http://127.0.0.1:9/r",
        "post.published",
        &["--event", "post.failed", "--user", "u"],
    );
    let s = Server::start(&env);
    let long = "k".repeat(256);
    for bad in ["", long.as_str(), "a\tb"] {
        let r = post_event(&s, &key, Some(bad), &published());
        assert_eq!(r.status, 400, "{bad:?}: {r:?}");
        let e = &r.json()["error"];
        assert_eq!(e["code"], "VALIDATION_ERROR");
        assert_eq!(e["details"][0]["field"], "Idempotency-Key", "{r:?}");
    }
    let max = "~".repeat(255);
    let r = post_event(&s, &key, Some(&max), &published());
    assert_eq!(r.status, 202, "{r:?}");
    let r = post_event(&s, &key, Some("inner space"), &published());
    assert_eq!(r.status, 202, "{r:?}");
    // Raw bytes that no client library sends: UTF-8 and a second header.
    let auth = format!("Authorization: Bearer {key}\r\n");
    let body = published().to_string();
    for extra in [
        "Idempotency-Key: caf\u{e9}\r\n".to_string(),
        "Idempotency-Key: a\r\nIdempotency-Key: a\r\n".to_string(),
    ] {
        let raw = format!(
            "POST /api/v1/events HTTP/1.1\r\nHost: x\r\n{auth}{extra}Content-Type: \
             application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
        let r = s.raw(raw.as_bytes()).expect("an answer");
        assert_eq!(r.status, 400, "{extra:?}: {r:?}");
        assert_eq!(r.json()["error"]["details"][0]["field"], "Idempotency-Key");
    }
    // A bad key with a bad body: both named, the body's first.
    let r = post_event(&s, &key, Some(""), &json!({"event": "Nope"}));
    let v = r.json();
    let fields: Vec<&str> = v["error"]["details"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["field"].as_str().unwrap())
        .collect();
    assert_eq!(fields, ["event", "Idempotency-Key"]);
    assert_eq!(env.count_rows("events"), 2);
    assert_eq!(env.count_rows("deliveries"), 2);

    for bad in ["", long.as_str(), "caf\u{e9}", "a\nb", " a", "a "] {
        let r = env.run(&[
            "--user",
            "u",
            "events",
            "emit",
            "post.published",
            "--idempotency-key",
            bad,
        ]);
        r.assert_error(2);
        assert!(
            r.stderr.starts_with("keyhook: --idempotency-key: "),
            "{bad:?}: {}",
            r.stderr
        );
    }
    let (code, v) = env.json(&["events", "emit", "post.published", "--idempotency-key", ""]);
    assert_eq!(code, 2);
    assert_eq!(v["error"]["details"][0]["field"], "Idempotency-Key", "{v}");
    assert_eq!(env.count_rows("events"), 2);
}

/// The served document's `Idempotency-Key` parameter states exactly the limits the server
/// keeps: at its lengths and one past them, and what its pattern takes and refuses.
#[test]
fn the_documented_header_limits_are_the_servers() {
    let env = Env::new();
    let key = key_of(&env, "u", &[]);
    let s = Server::start(&env);
    let doc = s.call("GET", "/api/v1/openapi.json", None).json();
    let params = doc["paths"]["/events"]["post"]["parameters"]
        .as_array()
        .expect("POST /events has parameters");
    let p = params
        .iter()
        .find(|p| p["name"] == "Idempotency-Key")
        .expect("the Idempotency-Key parameter");
    assert_eq!(
        (p["in"].as_str(), p["required"].as_bool()),
        (Some("header"), Some(false))
    );
    let schema = &p["schema"];
    let max = schema["maxLength"].as_u64().unwrap() as usize;
    let min = schema["minLength"].as_u64().unwrap() as usize;
    let re = regex::Regex::new(schema["pattern"].as_str().unwrap()).unwrap();
    let mut cases = vec![
        "k".repeat(max),
        "k".repeat(max + 1),
        "k".repeat(min),
        "k".repeat(min - 1),
        "a ~!".to_string(),
        "a\tb".to_string(),
    ];
    cases.push("x".repeat(max - 1) + "\u{7f}");
    let body = published().to_string();
    for case in &cases {
        let want = case.len() >= min && case.len() <= max && re.is_match(case);
        // Raw bytes: no client library would send DEL in a header.
        let raw = format!(
            "POST /api/v1/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {key}\r\n\
             Idempotency-Key: {case}\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
        let r = s.raw(raw.as_bytes()).expect("an answer");
        assert_eq!(r.status == 202, want, "{case:?}: {r:?}");
        let e = &r.json()["error"];
        // A control character (DEL) is refused by the HTTP layer before any header is read.
        if !want && e["code"] != "BAD_REQUEST" {
            assert_eq!(e["code"], "VALIDATION_ERROR", "{case:?}: {r:?}");
            assert_eq!(e["details"][0]["field"], "Idempotency-Key", "{case:?}");
        }
    }
}

/// POST /api-keys refuses an `Idempotency-Key`, with 400 VALIDATION_ERROR on
/// `Idempotency-Key`, and does nothing (a key's plaintext is shown once and never stored, so
/// a retry must not mint a second key nor could it be answered the first). Without the
/// header it works; the OpenAPI document says so. The webhook POSTs honour the header
/// (tests/cli/idempotent_requests.rs) and the document declares it on each. GET, PATCH and
/// DELETE, which a repeat does not change further, ignore it.
#[test]
fn post_routes_that_cannot_honour_an_idempotency_key_refuse_it() {
    let env = Env::new();
    let key = key_of(&env, "default", &[]);
    env.create_webhook_with(
        "http://127.0.0.1:9/r",
        "post.published",
        &["--event", "post.failed", "--user", "default"],
    );
    let (_, list) = env.json(&["webhooks", "list"]);
    let wid = str_of(&list["data"][0], "id").to_string();
    let server = Server::start(&env);
    let auth = format!("Bearer {key}");
    let post = |path: &str, body: &Value, idem: Option<&str>| {
        let mut headers = vec![
            ("Authorization", auth.as_str()),
            ("Content-Type", "application/json"),
        ];
        if let Some(k) = idem {
            headers.push(("Idempotency-Key", k));
        }
        server.send("POST", path, &headers, Some(body.to_string().as_bytes()))
    };
    let count = |table: &str| env.sql_i64(&format!("SELECT count(*) FROM {table}"));
    let secret =
        || env.sql(&format!("SELECT secret FROM webhooks WHERE id = '{wid}'"))[0][0].clone();
    let routes = [(
        "/api/v1/api-keys".to_string(),
        json!({"name": "retry"}),
        "createApiKey",
    )];
    let state = || {
        (
            count("api_keys"),
            count("webhooks"),
            count("delivery_attempts"),
            count("audit_log"),
            secret(),
        )
    };
    let before = state();
    for (path, body, _) in &routes {
        let body = if body.is_null() {
            json!({})
        } else {
            body.clone()
        };
        // Sent once, as a retrying client does on its first try.
        let r = if path.ends_with("/test") {
            server.send(
                "POST",
                path,
                &[("Authorization", auth.as_str()), ("Idempotency-Key", "k-1")],
                None,
            )
        } else {
            post(path, &body, Some("k-1"))
        };
        assert_eq!(r.status, 400, "{path}: {r:?}");
        let e = r.json();
        assert_eq!(e["error"]["code"], "VALIDATION_ERROR", "{path}: {e}");
        assert_eq!(
            e["error"]["details"][0]["field"], "Idempotency-Key",
            "{path}: {e}"
        );
        assert_eq!(state(), before, "{path}: something was done");
    }
    let message = {
        let r = post("/api/v1/api-keys", &json!({"name": "retry"}), Some("k-1"));
        r.json()["error"]["details"][0]["message"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert!(message.contains("shown only once"), "{message}");
    // Without it, a key is created as before; GET and PATCH ignore it.
    let r = post("/api/v1/api-keys", &json!({"name": "retry"}), None);
    assert_eq!(r.status, 201, "{r:?}");
    let r = server.send(
        "GET",
        "/api/v1/api-keys",
        &[("Authorization", auth.as_str()), ("Idempotency-Key", "k-2")],
        None,
    );
    assert_eq!(r.status, 200, "{r:?}");
    // The document says which routes refuse it.
    let doc = server.call("GET", "/api/v1/openapi.json", None).json();
    for (path, _, operation) in &routes {
        let template = path.strip_prefix("/api/v1").unwrap().replace(&wid, "{id}");
        let op = &doc["paths"][&template]["post"];
        assert_eq!(op["operationId"], *operation, "{template}");
        let d = op["description"].as_str().unwrap_or("");
        assert!(
            d.contains("Idempotency-Key") && d.contains("400"),
            "{template}: {d}"
        );
    }
    for (template, operation) in [
        ("/webhooks", "createWebhook"),
        ("/webhooks/{id}/test", "testWebhook"),
        ("/webhooks/{id}/replay", "replayWebhook"),
        ("/webhooks/{id}/rotate-secret", "rotateWebhookSecret"),
    ] {
        let op = &doc["paths"][template]["post"];
        assert_eq!(op["operationId"], operation, "{template}");
        assert!(op.get("description").is_none(), "{template}: {op}");
        let header = &op["parameters"][0];
        assert_eq!(header["name"], "Idempotency-Key", "{template}");
        assert_eq!(header["in"], "header", "{template}");
        let events = &doc["paths"]["/events"]["post"]["parameters"][0]["schema"];
        assert_eq!(header["schema"], *events, "{template}");
    }
}
