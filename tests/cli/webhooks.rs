//! Webhooks end to end: subscriptions over the CLI and HTTP, signed
//! deliveries checked against an independent Standard Webhooks verifier, test pings against a
//! real loopback receiver, failCount and auto-disable, fan-out, retries and Retry-After, the
//! SSRF guard at creation and at delivery, the limit under concurrent processes, a worker
//! killed mid-delivery, and the worker inside `serve`.
//!
//! Every receiver listens on 127.0.0.1; nothing here contacts any other address.

use std::collections::BTreeSet;
use std::net::TcpListener;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use hmac::{Hmac, Mac};
use serde_json::{json, Value};
use sha2::Sha256;

use crate::common::{
    detail_fields, emit, is_api_timestamp, key_of, kh, millis, poll_until, show_webhook,
    sorted_keys, spawn_deliver, std_cmd, str_of, Env, Run,
};
use crate::receiver::{Receiver, Request};
use crate::server::{Resp, Server};

const WEBHOOKS: &str = "/api/v1/webhooks";
const EVENTS: &str = "/api/v1/events";
const PATIENCE: Duration = Duration::from_secs(10);

const WEBHOOK_FIELDS: [&str; 20] = [
    "createdAt",
    "ephemeral",
    "events",
    "failCount",
    "filter",
    "fullAccess",
    "headerNames",
    "id",
    "isActive",
    "ordered",
    "profileIds",
    "publicKey",
    "rate",
    "retrySchedule",
    "secret",
    "signing",
    "timeoutMs",
    "updatedAt",
    "url",
    "userId",
];

const ATTEMPT_FIELDS: [&str; 15] = [
    "attempt",
    "attemptedAt",
    "delivered",
    "deliveryId",
    "durationMs",
    "event",
    "eventId",
    "holdsQueue",
    "id",
    "profileId",
    "queuedBehind",
    "responseExcerpt",
    "skipped",
    "statusCode",
    "statusText",
];

// ---------------------------------------------------------------------------------------------
// Helpers

fn unix_now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

/// A Standard Webhooks secret: `whsec_` + standard base64 of 32 bytes; returns the key.
fn secret_key(secret: &str) -> Vec<u8> {
    let b64 = secret
        .strip_prefix("whsec_")
        .unwrap_or_else(|| panic!("secret {secret:?} lacks whsec_"));
    let key = STANDARD
        .decode(b64)
        .unwrap_or_else(|e| panic!("secret {secret:?} is not base64: {e}"));
    assert_eq!(key.len(), 32, "secret {secret:?}");
    key
}

/// `v1,` + base64(HMAC-SHA256(key, "{id}.{ts}." ++ body)), written here from the hmac and sha2
/// crates and the Standard Webhooks specification, not from keyhook's signing code.
fn expected_signature(secret: &str, msg_id: &str, ts: &str, body: &[u8]) -> String {
    let key = match secret.strip_prefix("whsec_") {
        Some(b64) => STANDARD.decode(b64).expect("base64 secret"),
        None => panic!("secret without whsec_"),
    };
    let mut mac = Hmac::<Sha256>::new_from_slice(&key).unwrap();
    mac.update(msg_id.as_bytes());
    mac.update(b".");
    mac.update(ts.as_bytes());
    mac.update(b".");
    mac.update(body);
    format!("v1,{}", STANDARD.encode(mac.finalize().into_bytes()))
}

/// Whether `req` carries a valid Standard Webhooks signature for `secret` (the header may
/// list several space-separated signatures).
fn signature_valid(secret: &str, req: &Request) -> bool {
    let expected = expected_signature(
        secret,
        req.header("webhook-id"),
        req.header("webhook-timestamp"),
        &req.body,
    );
    req.header("webhook-signature")
        .split(' ')
        .any(|s| s == expected)
}

/// Everything a delivery must carry (headers, signature, body); returns the parsed body.
fn assert_signed_delivery(req: &Request, secret: &str, event: &str) -> Value {
    assert_eq!(req.method, "POST", "{req:?}");
    assert_eq!(req.header("content-type"), "application/json", "{req:?}");
    let ua = req.header("user-agent");
    assert!(ua.starts_with("keyhook/"), "user-agent {ua:?}");
    let ts: i64 = req
        .header("webhook-timestamp")
        .parse()
        .unwrap_or_else(|e| panic!("webhook-timestamp is not unix seconds ({e}): {req:?}"));
    assert!((ts - unix_now()).abs() <= 60, "timestamp {ts} is not now");
    assert!(
        signature_valid(secret, req),
        "signature does not verify: {req:?}"
    );
    let body = req.json();
    assert_eq!(
        sorted_keys(&body),
        ["createdAt", "data", "event", "id", "profileId"],
        "{body}"
    );
    let id = str_of(&body, "id");
    assert!(id.starts_with("evt_") && id.len() > 4, "{id:?}");
    assert_eq!(
        req.header("webhook-id"),
        id,
        "webhook-id equals the body id"
    );
    assert_eq!(body["event"], event);
    assert!(is_api_timestamp(str_of(&body, "createdAt")), "{body}");
    assert!(body["data"].is_object(), "{body}");
    body
}

fn assert_webhook_shape(w: &Value, user: &str, url: &str, events: &[&str]) {
    assert_eq!(sorted_keys(w), WEBHOOK_FIELDS, "{w}");
    assert!(!str_of(w, "id").is_empty());
    assert_eq!(w["userId"], user, "{w}");
    assert_eq!(w["url"], url, "{w}");
    assert_eq!(w["events"], json!(events), "{w}");
    secret_key(str_of(w, "secret"));
    assert!(w["isActive"].is_boolean() && w["failCount"].is_i64(), "{w}");
    assert!(is_api_timestamp(str_of(w, "createdAt")), "{w}");
    assert!(is_api_timestamp(str_of(w, "updatedAt")), "{w}");
}

fn assert_attempt_shape(a: &Value) {
    assert_eq!(sorted_keys(a), ATTEMPT_FIELDS, "{a}");
    assert!(is_api_timestamp(str_of(a, "attemptedAt")), "{a}");
    assert!(a["durationMs"].as_i64().is_some_and(|d| d >= 0), "{a}");
    assert!(str_of(a, "eventId").starts_with("evt_"), "{a}");
}

/// A `--json` error envelope of a validation failure naming exactly `fields`.
fn assert_validation(v: &Value, fields: &[&str]) {
    assert_eq!(sorted_keys(v), ["error"], "{v}");
    assert_eq!(v["error"]["code"], "VALIDATION_ERROR", "{v}");
    assert_eq!(detail_fields(&v["error"]), fields, "{v}");
}

/// Status, envelope and code of an HTTP error; returns `error`.
fn assert_http_error(r: &Resp, status: u16, code: &str) -> Value {
    assert_eq!(r.status, status, "{r:?}");
    let v = r.json();
    assert_eq!(sorted_keys(&v), ["error"], "{r:?}");
    assert_eq!(v["error"]["code"], code, "{r:?}");
    assert!(v["error"]["details"].is_array(), "{r:?}");
    v["error"].clone()
}

/// `webhooks test ID` (private targets allowed): (exit code, stdout JSON).
fn ping(env: &Env, user: &str, id: &str) -> (i32, Value) {
    kh(env, &["--user", user, "webhooks", "test", id])
}

/// The attempt log of `webhooks deliveries ID`, newest first.
fn checked_attempts(env: &Env, user: &str, id: &str) -> Vec<Value> {
    let (code, v) = env.json(&["--user", user, "webhooks", "deliveries", id]);
    assert_eq!(code, 0, "webhooks deliveries {id}: {v}");
    let list = v["data"].as_array().expect("a list").clone();
    for a in &list {
        assert_attempt_shape(a);
    }
    list
}

/// A loopback port with nothing listening on it.
fn closed_port() -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

/// Sends SIGTERM and waits: the worker must stop cleanly; returns its stderr.
fn stop(mut child: Child) -> String {
    let sent = std::process::Command::new("kill")
        .arg("-TERM")
        .arg(child.id().to_string())
        .status()
        .expect("run kill");
    assert!(sent.success());
    if !poll_until(PATIENCE, || child.try_wait().unwrap().is_some()) {
        let _ = child.kill();
        let _ = child.wait();
        panic!("keyhook deliver did not stop within {PATIENCE:?} of SIGTERM");
    }
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "deliver exited with {:?}", out.status);
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Polls `cond` until it holds; fails the test after [`PATIENCE`].
fn eventually(what: &str, cond: impl FnMut() -> bool) {
    assert!(poll_until(PATIENCE, cond), "timed out waiting for {what}");
}

// ---------------------------------------------------------------------------------------------
// Subscriptions

#[test]
fn webhooks_cli_create_list_show_enable_disable_delete() {
    // On the test clock, which moves so that an update is seen to be later.
    let env = Env::with_clock();
    let before = env.clock_ms();
    let (code, v) = env.json(&[
        "webhooks",
        "create",
        "--url",
        "https://hooks.example.com/in",
        "--event",
        "post.published",
    ]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(sorted_keys(&v), ["data"]);
    let a = v["data"].clone();
    assert_webhook_shape(
        &a,
        "default",
        "https://hooks.example.com/in",
        &["post.published"],
    );
    assert_eq!(a["isActive"], true);
    assert_eq!(a["failCount"], 0);
    assert_eq!(a["createdAt"], a["updatedAt"]);
    let created = millis(str_of(&a, "createdAt"));
    assert!(created >= before - 1 && created <= before + 10_000, "{a}");

    // A later one.
    env.advance_clock(1);
    let b = env.create_webhook_with(
        "https://hooks.example.com/two?x=1",
        "profile.created",
        &["--event", "post.failed", "--user", "default"],
    );
    assert_webhook_shape(
        &b,
        "default",
        "https://hooks.example.com/two?x=1",
        &["profile.created", "post.failed"],
    );
    assert_ne!(a["id"], b["id"]);
    assert_ne!(a["secret"], b["secret"], "secrets are random");

    // list: oldest first, the secret included (as in the spec); show: the same object.
    let (code, list) = env.json(&["webhooks", "list"]);
    assert_eq!(code, 0);
    assert_eq!(list, json!({ "data": [a, b] }));
    let id = str_of(&a, "id");
    assert_eq!(show_webhook(&env, id), a);

    // Human output names the URL.
    let r = env.run(&["webhooks", "list"]);
    assert_eq!(r.code, 0, "{r:#?}");
    assert!(r.stdout.contains("https://hooks.example.com/in"), "{r:#?}");

    // disable / enable
    env.advance_clock(5);
    let (code, v) = env.json(&["webhooks", "disable", id]);
    assert_eq!(code, 0, "{v}");
    let d = &v["data"];
    assert_eq!(d["isActive"], false);
    assert_eq!(d["createdAt"], a["createdAt"]);
    assert!(millis(str_of(d, "updatedAt")) > millis(str_of(&a, "updatedAt")));
    assert_eq!(show_webhook(&env, id)["isActive"], false);
    let (code, v) = env.json(&["webhooks", "enable", id]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["data"]["isActive"], true);
    assert_eq!(v["data"]["failCount"], 0);
    assert_eq!(
        v["data"]["secret"], a["secret"],
        "enabling keeps the secret"
    );

    // Another user sees none of it.
    let (code, v) = env.json(&["--user", "someone", "webhooks", "list"]);
    assert_eq!((code, v), (0, json!({ "data": [] })));
    for cmd in ["show", "test", "enable", "disable", "deliveries"] {
        let (code, v) = kh(&env, &["--user", "someone", "webhooks", cmd, id]);
        assert_eq!(code, 3, "{cmd}: {v}");
        assert_eq!(v["error"]["code"], "NOT_FOUND", "{cmd}: {v}");
    }
    let r = env.run(&["--user", "someone", "webhooks", "delete", id, "--yes"]);
    r.assert_error(3);

    // delete: refused without --yes and without a terminal, then done with it.
    let r = env.run(&["webhooks", "delete", id]);
    r.assert_error(2);
    assert!(r.stderr.contains("--yes"), "{r:#?}");
    assert_eq!(show_webhook(&env, id)["id"], id, "nothing was deleted");
    let r = env.run(&["--json", "webhooks", "delete", id, "--yes"]);
    assert_eq!(r.code, 0, "{r:#?}");
    assert_eq!(r.stdout, "", "like the 204 of DELETE, nothing on stdout");
    let (code, v) = env.json(&["webhooks", "show", id]);
    assert_eq!(code, 3, "{v}");
    assert_eq!(v["error"]["code"], "NOT_FOUND");
    let (_, list) = env.json(&["webhooks", "list"]);
    assert_eq!(list, json!({ "data": [b] }));
    let (code, _) = env.json(&["webhooks", "delete", id, "--yes"]);
    assert_eq!(code, 3, "deleting twice is not found");
}

#[test]
fn webhooks_http_create_list_show_patch_delete() {
    // On the test clock, which moves so that an update is seen to be later.
    let env = Env::with_clock();
    let server = Server::start(&env);
    let key = key_of(&env, "default", &[]);
    let readonly = key_of(&env, "default", &["--permission", "readonly"]);
    let other = key_of(&env, "u2", &[]);

    let r = server.post_json(
        WEBHOOKS,
        &key,
        &json!({"url": "https://hooks.example.com/a", "events": ["post.published", "post.deleted"]}),
    );
    assert_eq!(r.status, 201, "{r:?}");
    assert_eq!(r.header("Content-Type"), Some("application/json"));
    assert_eq!(
        r.header("Cache-Control"),
        Some("no-store"),
        "it carries a secret"
    );
    let w = r.data();
    assert_webhook_shape(
        &w,
        "default",
        "https://hooks.example.com/a",
        &["post.published", "post.deleted"],
    );
    assert_eq!(w["isActive"], true);
    assert_eq!(w["failCount"], 0);
    assert_eq!(w["createdAt"], w["updatedAt"]);
    let id = str_of(&w, "id").to_string();
    let one = format!("{WEBHOOKS}/{id}");

    let r = server.get(WEBHOOKS, &key);
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(r.header("Cache-Control"), Some("no-store"));
    assert_eq!(r.data(), json!([w]));
    let r = server.get(&one, &key);
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(r.data(), w);
    // A readonly key may read.
    assert_eq!(server.get(&one, &readonly).status, 200);
    // The CLI sees what the server created: one core, one file.
    assert_eq!(show_webhook(&env, &id), w);

    // PATCH
    env.advance_clock(5);
    let patch = |body: Value| {
        server.send(
            "PATCH",
            &one,
            &[
                ("Authorization", &format!("Bearer {key}")),
                ("Content-Type", "application/json"),
            ],
            Some(body.to_string().as_bytes()),
        )
    };
    let r = patch(json!({"isActive": false}));
    assert_eq!(r.status, 200, "{r:?}");
    let p = r.data();
    assert_eq!(p["isActive"], false);
    assert!(millis(str_of(&p, "updatedAt")) > millis(str_of(&w, "updatedAt")));
    let r = patch(json!({"url": "https://hooks.example.com/b", "events": ["profile.created"]}));
    assert_eq!(r.status, 200, "{r:?}");
    let p = r.data();
    assert_webhook_shape(
        &p,
        "default",
        "https://hooks.example.com/b",
        &["profile.created"],
    );
    assert_eq!(p["isActive"], false, "absent fields stay as they were");
    assert_eq!(p["secret"], w["secret"]);
    assert_eq!(p["createdAt"], w["createdAt"]);
    for (body, field) in [
        (json!({}), "body"),
        (json!({"isActive": "yes"}), "isActive"),
        (json!({"url": "ftp://x.example.com/"}), "url"),
        (json!({"events": []}), "events"),
        // An unknown field, and no field that PATCH changes.
        (json!({"secret": "whsec_x"}), "body secret"),
    ] {
        let r = patch(body.clone());
        let err = assert_http_error(&r, 400, "VALIDATION_ERROR");
        let fields: Vec<&str> = field.split(' ').collect();
        assert_eq!(detail_fields(&err), fields, "{body}: {r:?}");
    }
    assert_eq!(
        server.get(&one, &key).data(),
        p,
        "failed PATCHes change nothing"
    );

    // Permissions and isolation: readonly keys may not write; other users see nothing.
    let r = server.post_json(
        WEBHOOKS,
        &readonly,
        &json!({"url": "https://hooks.example.com/c", "events": ["post.published"]}),
    );
    assert_http_error(&r, 403, "FORBIDDEN");
    assert_http_error(&server.delete(&one, &readonly), 403, "FORBIDDEN");
    assert_eq!(server.get(WEBHOOKS, &other).data(), json!([]));
    assert_http_error(&server.get(&one, &other), 404, "NOT_FOUND");
    assert_http_error(&server.delete(&one, &other), 404, "NOT_FOUND");
    let r = server.send(
        "PATCH",
        &one,
        &[
            ("Authorization", &format!("Bearer {other}")),
            ("Content-Type", "application/json"),
        ],
        Some(br#"{"isActive": true}"#),
    );
    assert_http_error(&r, 404, "NOT_FOUND");
    let r = server.get(&format!("{one}/deliveries"), &other);
    assert_http_error(&r, 404, "NOT_FOUND");

    // DELETE: 204 and an empty body; then it is gone.
    let r = server.delete(&one, &key);
    assert_eq!(r.status, 204, "{r:?}");
    assert_eq!(r.body, "");
    assert_http_error(&server.get(&one, &key), 404, "NOT_FOUND");
    assert_http_error(&server.delete(&one, &key), 404, "NOT_FOUND");
    assert_eq!(server.get(WEBHOOKS, &key).data(), json!([]));
}

#[test]
fn webhook_validation_names_each_field() {
    let env = Env::new();
    let server = Server::start(&env);
    let key = key_of(&env, "default", &[]);
    let ok_url = "https://hooks.example.com/in";
    let long_url = format!("https://hooks.example.com/{}", "a".repeat(2049 - 26));
    assert_eq!(long_url.len(), 2049);
    let max_url = &long_url[..2048];

    // (url, events, fields in error) — shared by the CLI and HTTP.
    let cases: Vec<(&str, Vec<&str>, Vec<&str>)> = vec![
        ("/relative/path", vec!["post.published"], vec!["url"]),
        ("hooks.example.com/in", vec!["post.published"], vec!["url"]),
        (
            "ftp://hooks.example.com/in",
            vec!["post.published"],
            vec!["url"],
        ),
        ("file:///etc/passwd", vec!["post.published"], vec!["url"]),
        (
            "https://user:pass@hooks.example.com/in",
            vec!["post.published"],
            vec!["url"],
        ),
        (
            "https://user@hooks.example.com/in",
            vec!["post.published"],
            vec!["url"],
        ),
        (
            "https://hooks.example.com/in#frag",
            vec!["post.published"],
            vec!["url"],
        ),
        (&long_url, vec!["post.published"], vec!["url"]),
        (
            ok_url,
            vec!["post.published", "post.published"],
            vec!["events[1]"],
        ),
        (ok_url, vec!["post.published", "no.such"], vec!["events[1]"]),
        (ok_url, vec!["webhook.test"], vec!["events[0]"]),
        (ok_url, vec![""], vec!["events[0]"]),
        (
            "ftp://x.example.com/",
            vec!["webhook.test"],
            vec!["events[0]", "url"],
        ),
    ];
    for (url, events, fields) in &cases {
        let mut args = vec!["webhooks", "create", "--url", url];
        for e in events {
            args.extend_from_slice(&["--event", e]);
        }
        let r = env.run(&[&["--json"], args.as_slice()].concat());
        r.assert_error(2);
        assert_validation(&r.json(), fields);

        let r = server.post_json(WEBHOOKS, &key, &json!({"url": url, "events": events}));
        let err = assert_http_error(&r, 400, "VALIDATION_ERROR");
        assert_eq!(detail_fields(&err), *fields, "{url} {events:?}: {r:?}");
    }

    // A message that says what is wrong.
    let r = server.post_json(
        WEBHOOKS,
        &key,
        &json!({"url": ok_url, "events": ["post.published", "webhook.test"]}),
    );
    let err = assert_http_error(&r, 400, "VALIDATION_ERROR");
    assert!(
        err["details"][0]["message"]
            .as_str()
            .unwrap()
            .contains("webhook.test"),
        "{err}"
    );

    // Only the HTTP body can omit fields, send wrong types or unknown fields.
    for (body, fields) in [
        (json!({"events": ["post.published"]}), vec!["url"]),
        (json!({"url": ok_url}), vec!["events"]),
        (json!({"url": ok_url, "events": []}), vec!["events"]),
        (json!({}), vec!["events", "url"]),
        (json!({"url": 5, "events": ["post.published"]}), vec!["url"]),
        (
            json!({"url": ok_url, "events": "post.published"}),
            vec!["events"],
        ),
        (
            json!({"url": ok_url, "events": ["post.published", 7]}),
            vec!["events[1]"],
        ),
        (
            json!({"url": ok_url, "events": ["post.published"], "secret": "whsec_mine"}),
            vec!["secret"],
        ),
        (json!(["not", "an", "object"]), vec!["body"]),
    ] {
        let r = server.post_json(WEBHOOKS, &key, &body);
        let err = assert_http_error(&r, 400, "VALIDATION_ERROR");
        assert_eq!(detail_fields(&err), fields, "{body}: {r:?}");
    }
    // The CLI needs --url and at least one --event (usage errors).
    assert_eq!(
        env.run(&["webhooks", "create", "--event", "post.published"])
            .code,
        2
    );
    assert_eq!(env.run(&["webhooks", "create", "--url", ok_url]).code, 2);

    // Nothing was created by any of that; a URL of exactly 2048 characters is fine.
    assert_eq!(server.get(WEBHOOKS, &key).data(), json!([]));
    let w = env.create_webhook_with(max_url, "post.published", &["--user", "default"]);
    assert_eq!(w["url"], max_url);
}

#[test]
fn literal_private_targets_are_refused_at_creation_unless_allowed() {
    let env = Env::new();
    let literals = [
        "http://127.0.0.1/",
        "http://10.0.0.1/",
        "http://169.254.169.254/",
        "http://[::1]/",
        "http://[::ffff:127.0.0.1]/",
    ];
    let strict = Server::start(&env);
    let lenient = Server::start_with(&env, &["--allow-private-targets"]);
    let key = key_of(&env, "default", &[]);
    let key2 = key_of(&env, "u2", &[]);
    for url in literals {
        // Refused: CLI exit 2 and HTTP 400, naming `url`.
        let r = env.run(&[
            "--json",
            "webhooks",
            "create",
            "--url",
            url,
            "--event",
            "post.published",
        ]);
        r.assert_error(2);
        assert_validation(&r.json(), &["url"]);
        let msg = str_of(&r.json()["error"]["details"][0], "message").to_string();
        assert!(msg.contains("private"), "{msg}");
        let body = json!({"url": url, "events": ["post.published"]});
        let err = assert_http_error(
            &strict.post_json(WEBHOOKS, &key, &body),
            400,
            "VALIDATION_ERROR",
        );
        assert_eq!(detail_fields(&err), ["url"], "{url}");

        // Allowed with the flag, the environment variable, or a server started with the flag.
        let w = env.create_webhook_with(url, "post.published", &["--user", "cli"]);
        assert_eq!(w["url"], url);
        let r = run_with_env(
            &env,
            &[("KEYHOOK_ALLOW_PRIVATE_TARGETS", "true")],
            &[
                "--json",
                "--user",
                "envvar",
                "webhooks",
                "create",
                "--url",
                url,
                "--event",
                "post.published",
            ],
        );
        assert_eq!(r.code, 0, "{url}: {r:#?}");
        let r = lenient.post_json(WEBHOOKS, &key2, &body);
        assert_eq!(r.status, 201, "{url}: {r:?}");
        assert_eq!(r.data()["url"], url);
    }
    // Over PATCH too.
    let w = env.create_webhook_with(
        "https://hooks.example.com/",
        "post.published",
        &["--user", "default"],
    );
    let r = strict.send(
        "PATCH",
        &format!("{WEBHOOKS}/{}", str_of(&w, "id")),
        &[
            ("Authorization", &format!("Bearer {key}")),
            ("Content-Type", "application/json"),
        ],
        Some(br#"{"url": "http://169.254.169.254/latest/meta-data/"}"#),
    );
    let err = assert_http_error(&r, 400, "VALIDATION_ERROR");
    assert_eq!(detail_fields(&err), ["url"]);
    assert_eq!(
        show_webhook(&env, str_of(&w, "id"))["url"],
        "https://hooks.example.com/"
    );
}

/// `KEYHOOK_ALLOW_PRIVATE_TARGETS=1` allows private targets (and the usual true/false).
#[test]
fn allow_private_targets_env_accepts_1() {
    let env = Env::new();
    for value in ["1", "true"] {
        let r = run_with_env(
            &env,
            &[("KEYHOOK_ALLOW_PRIVATE_TARGETS", value)],
            &[
                "--json",
                "webhooks",
                "create",
                "--url",
                "http://127.0.0.1:9/",
                "--event",
                "post.published",
            ],
        );
        assert_eq!(r.code, 0, "KEYHOOK_ALLOW_PRIVATE_TARGETS={value}: {r:#?}");
    }
}

fn run_with_env(env: &Env, vars: &[(&str, &str)], args: &[&str]) -> Run {
    let mut c = env.cmd();
    for (k, v) in vars {
        c.env(k, v);
    }
    crate::common::run(c.args(args))
}

// ---------------------------------------------------------------------------------------------
// Deliveries and test pings

#[test]
fn deliveries_carry_verifiable_standard_webhooks_signatures() {
    // The verifier of this file reproduces the published Standard Webhooks vector.
    assert_eq!(
        expected_signature(
            "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
            "msg_p5jXN8AQM9LWM0D4loKWxJek",
            "1614265330",
            br#"{"test": 2432232314}"#
        ),
        "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
    );

    let env = Env::new();
    let rx = Receiver::start();
    let w = env.create_webhook_with(&rx.url("/ok"), "post.published", &["--user", "default"]);
    let secret = str_of(&w, "secret").to_string();
    let other =
        env.create_webhook_with(&rx.url("/ok?other"), "post.failed", &["--user", "default"]);

    // A test ping.
    let (code, v) = ping(&env, "default", str_of(&w, "id"));
    assert_eq!(code, 0, "{v}");
    let reqs = rx.wait_for(1, PATIENCE);
    assert_eq!(reqs.len(), 1);
    assert_eq!(reqs[0].target, "/ok");
    let body = assert_signed_delivery(&reqs[0], &secret, "webhook.test");
    assert!(
        !signature_valid(str_of(&other, "secret"), &reqs[0]),
        "another secret must not verify"
    );
    // The logged attempt names the same event id.
    let log = checked_attempts(&env, "default", str_of(&w, "id"));
    assert_eq!(log.len(), 1);
    assert_eq!(log[0]["eventId"], body["id"]);
    assert_eq!(log[0]["event"], "webhook.test");
    assert_eq!(log[0]["deliveryId"], Value::Null);

    // Events with --data as JSON, @FILE and standard input.
    let file = env.dir.path().join("data.json");
    std::fs::write(&file, r#"{"postId": "p2", "tags": ["a", "b"]}"#).unwrap();
    let e1 = emit(
        &env,
        &[
            "post.published",
            "--user",
            "default",
            "--data",
            r#"{"postId":"p1","n":3,"nested":{"ok":true}}"#,
        ],
    );
    let e2 = emit(
        &env,
        &[
            "post.published",
            "--user",
            "default",
            "--data",
            &format!("@{}", file.display()),
        ],
    );
    let r = crate::common::run(
        env.cmd()
            .args(["--json", "events", "emit", "post.published", "--data", "-"])
            .write_stdin(r#"{"postId": "p3"}"#),
    );
    assert_eq!(r.code, 0, "{r:#?}");
    let e3 = r.json()["data"].clone();
    let e4 = emit(&env, &["post.published", "--user", "default"]);
    for e in [&e1, &e2, &e3, &e4] {
        assert_eq!(
            sorted_keys(e),
            ["createdAt", "deliveries", "event", "id", "profileId"],
            "{e}"
        );
        assert_eq!(e["deliveries"], 1, "{e}");
        assert_eq!(e["event"], "post.published");
        assert!(str_of(e, "id").starts_with("evt_"));
        assert!(is_api_timestamp(str_of(e, "createdAt")));
    }
    env.deliver_once_with(&[]);
    let reqs = rx.wait_for(5, PATIENCE);
    assert_eq!(reqs.len(), 5, "{reqs:#?}");
    let mut seen = std::collections::HashMap::new();
    for req in &reqs[1..] {
        assert_eq!(req.target, "/ok", "only the subscribed webhook");
        let body = assert_signed_delivery(req, &secret, "post.published");
        seen.insert(str_of(&body, "id").to_string(), body);
    }
    for (e, data) in [
        (&e1, json!({"postId": "p1", "n": 3, "nested": {"ok": true}})),
        (&e2, json!({"postId": "p2", "tags": ["a", "b"]})),
        (&e3, json!({"postId": "p3"})),
        (&e4, json!({})),
    ] {
        let body = &seen[str_of(e, "id")];
        assert_eq!(body["data"], data, "{body}");
        assert_eq!(body["createdAt"], e["createdAt"], "{body}");
    }
}

#[test]
fn test_pings_over_the_cli_report_what_the_endpoint_answered() {
    let env = Env::new();
    let rx = Receiver::start();
    let id_of = |path: &str| -> String {
        let url = if path == "refused" {
            format!("http://127.0.0.1:{}/", closed_port())
        } else {
            rx.url(path)
        };
        str_of(
            &env.create_webhook_with(&url, "post.published", &["--user", "default"]),
            "id",
        )
        .to_string()
    };
    let ok = id_of("/ok");
    let fail = id_of("/fail");
    let redirect = id_of("/redirect");
    let slow = id_of("/slow");
    let refused = id_of("refused");

    let expect = |v: &Value, delivered: bool, code: u16, text: &str| {
        assert_eq!(
            *v,
            json!({"data": {"delivered": delivered, "statusCode": code, "statusText": text}})
        );
    };

    let (code, v) = ping(&env, "default", &ok);
    assert_eq!(code, 0, "{v}");
    expect(&v, true, 200, "OK");
    assert_eq!(rx.requests_to("/ok").len(), 1);

    let r = env.run(&[
        "--json",
        "--allow-private-targets",
        "webhooks",
        "test",
        &fail,
    ]);
    r.assert_error(1);
    expect(&r.json(), false, 500, "Internal Server Error");
    assert_eq!(rx.requests_to("/fail").len(), 1);

    // A redirect is a failure and is not followed.
    let (code, v) = ping(&env, "default", &redirect);
    assert_eq!(code, 1, "{v}");
    expect(&v, false, 302, "Found");
    assert_eq!(rx.requests_to("/redirect").len(), 1);
    assert_eq!(rx.requests_to("/ok").len(), 1, "the redirect was followed");

    // Slow: the delivery timeout, from the flag or the environment.
    let started = Instant::now();
    let (code, v) = kh(
        &env,
        &["--delivery-timeout", "300ms", "webhooks", "test", &slow],
    );
    assert_eq!(code, 1, "{v}");
    expect(&v, false, 0, "timed out");
    assert!(
        started.elapsed() < Duration::from_millis(1800),
        "{:?}",
        started.elapsed()
    );
    let started = Instant::now();
    let r = run_with_env(
        &env,
        &[
            ("KEYHOOK_DELIVERY_TIMEOUT", "300ms"),
            ("KEYHOOK_ALLOW_PRIVATE_TARGETS", "true"),
        ],
        &["--json", "webhooks", "test", &slow],
    );
    r.assert_error(1);
    expect(&r.json(), false, 0, "timed out");
    assert!(
        started.elapsed() < Duration::from_millis(1800),
        "{:?}",
        started.elapsed()
    );

    let (code, v) = ping(&env, "default", &refused);
    assert_eq!(code, 1, "{v}");
    expect(&v, false, 0, "connection refused");

    // Human output: the verdict on stdout, the failure on stderr.
    let r = env.run(&["--allow-private-targets", "webhooks", "test", &ok]);
    assert_eq!(r.code, 0, "{r:#?}");
    assert_eq!(r.stdout.trim(), "delivered: 200 OK");
    let r = env.run(&["--allow-private-targets", "webhooks", "test", &fail]);
    r.assert_error(1);
    assert_eq!(r.stdout.trim(), "not delivered: 500 Internal Server Error");

    // Every ping is in the attempt log, newest first.
    let log = checked_attempts(&env, "default", &fail);
    assert_eq!(log.len(), 2);
    for a in &log {
        assert_eq!(a["event"], "webhook.test");
        assert_eq!(a["attempt"], 1);
        assert_eq!(a["delivered"], false);
        assert_eq!(a["statusCode"], 500);
        assert_eq!(a["statusText"], "Internal Server Error");
        assert_eq!(a["responseExcerpt"], "answer 500 from the test receiver");
    }
    assert!(log[0]["id"].as_i64() > log[1]["id"].as_i64());
    let log = checked_attempts(&env, "default", &slow);
    assert_eq!(log.len(), 2);
    assert_eq!(log[0]["statusText"], "timed out");
    assert_eq!(log[0]["statusCode"], 0);
    assert!(log[0]["durationMs"].as_i64().unwrap() < 1500, "{}", log[0]);
    assert_eq!(show_webhook(&env, &fail)["failCount"], 2);
    assert_eq!(show_webhook(&env, &ok)["failCount"], 0);

    let (code, v) = ping(&env, "default", "no-such-webhook");
    assert_eq!(code, 3, "{v}");
    assert_eq!(v["error"]["code"], "NOT_FOUND");
}

#[test]
fn test_pings_over_http() {
    let env = Env::new();
    let rx = Receiver::start();
    let server = Server::start_with(
        &env,
        &["--allow-private-targets", "--delivery-timeout", "300ms"],
    );
    let key = key_of(&env, "default", &[]);
    let readonly = key_of(&env, "default", &["--permission", "readonly"]);
    let other = key_of(&env, "u2", &[]);
    let refused_url = format!("http://127.0.0.1:{}/", closed_port());
    let cases = [
        (rx.url("/ok"), true, 200, "OK"),
        (rx.url("/fail"), false, 500, "Internal Server Error"),
        (rx.url("/redirect"), false, 302, "Found"),
        (rx.url("/slow"), false, 0, "timed out"),
        (refused_url, false, 0, "connection refused"),
    ];
    let mut ids = Vec::new();
    for (url, delivered, code, text) in &cases {
        let r = server.post_json(
            WEBHOOKS,
            &key,
            &json!({"url": url, "events": ["post.published"]}),
        );
        assert_eq!(r.status, 201, "{r:?}");
        let id = str_of(&r.data(), "id").to_string();
        let r = server.call("POST", &format!("{WEBHOOKS}/{id}/test"), Some(&key));
        assert_eq!(r.status, 200, "{url}: {r:?}");
        assert_eq!(
            r.data(),
            json!({"delivered": delivered, "statusCode": code, "statusText": text}),
            "{url}"
        );
        ids.push(id);
    }
    assert_eq!(rx.requests_to("/ok").len(), 1);
    assert_eq!(rx.requests_to("/redirect").len(), 1);

    // The attempt log over HTTP.
    let r = server.get(&format!("{WEBHOOKS}/{}/deliveries", ids[1]), &key);
    assert_eq!(r.status, 200, "{r:?}");
    let log = r.data();
    assert_eq!(log.as_array().unwrap().len(), 1);
    assert_attempt_shape(&log[0]);
    assert_eq!(log[0]["statusCode"], 500);
    assert_eq!(
        server.get(&format!("{WEBHOOKS}/{}", ids[1]), &key).data()["failCount"],
        1
    );
    // A readonly key may read the log, not ping.
    assert_eq!(
        server
            .get(&format!("{WEBHOOKS}/{}/deliveries", ids[1]), &readonly)
            .status,
        200
    );

    let before = rx.requests().len();
    let test_path = format!("{WEBHOOKS}/{}/test", ids[0]);
    let err = assert_http_error(
        &server.call("POST", &test_path, Some(&readonly)),
        403,
        "FORBIDDEN",
    );
    assert_eq!(err["details"], json!([]));
    assert_http_error(
        &server.call("POST", &test_path, Some(&other)),
        404,
        "NOT_FOUND",
    );
    assert_http_error(
        &server.call("POST", &format!("{WEBHOOKS}/whk-nope/test"), Some(&key)),
        404,
        "NOT_FOUND",
    );
    assert_http_error(&server.call("POST", &test_path, None), 401, "UNAUTHORIZED");
    assert_eq!(rx.requests().len(), before, "refused pings send nothing");
}

// ---------------------------------------------------------------------------------------------
// failCount, auto-disable, re-enable

#[test]
fn fail_count_counts_consecutive_failures_and_the_tenth_disables() {
    let env = Env::new();
    let rx = Receiver::start();
    let w = env.create_webhook_with(&rx.url("/switch"), "post.published", &["--user", "default"]);
    let id = str_of(&w, "id").to_string();
    let state = || {
        let s = show_webhook(&env, &id);
        (
            s["failCount"].as_i64().unwrap(),
            s["isActive"].as_bool().unwrap(),
        )
    };

    rx.set_status(500);
    for n in 1..=3 {
        assert_eq!(ping(&env, "default", &id).0, 1);
        assert_eq!(state(), (n, true));
    }
    rx.set_status(204);
    let (code, v) = ping(&env, "default", &id);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["data"]["statusText"], "No Content");
    assert_eq!(state(), (0, true), "a success resets failCount");

    rx.set_status(502);
    for n in 1..=9 {
        assert_eq!(ping(&env, "default", &id).0, 1);
        assert_eq!(state(), (n, true), "still active after {n} failures");
    }
    let before = show_webhook(&env, &id);
    assert_eq!(ping(&env, "default", &id).0, 1);
    let after = show_webhook(&env, &id);
    assert_eq!(
        (after["failCount"].clone(), after["isActive"].clone()),
        (json!(10), json!(false))
    );
    assert!(millis(str_of(&after, "updatedAt")) >= millis(str_of(&before, "updatedAt")));
    assert_eq!(rx.requests().len(), 14);

    // Disabled: no event deliveries are queued for it ...
    assert_eq!(
        emit(&env, &["post.published", "--user", "default"])["deliveries"],
        0
    );
    // ... but a test ping still goes out; failCount stays at the value that disabled the
    // webhook (it no longer rises after the automatic disable).
    let (code, v) = ping(&env, "default", &id);
    assert_eq!(code, 1);
    assert_eq!(v["data"]["statusCode"], 502);
    assert_eq!(rx.requests().len(), 15);
    assert_eq!(state(), (10, false));

    // enable re-enables and resets.
    let (code, v) = env.json(&["webhooks", "enable", &id]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(
        (
            v["data"]["failCount"].clone(),
            v["data"]["isActive"].clone()
        ),
        (json!(0), json!(true))
    );
    assert_eq!(
        emit(&env, &["post.published", "--user", "default"])["deliveries"],
        1
    );
    rx.set_status(200);
    env.deliver_once_with(&[]);
    assert_eq!(rx.requests().len(), 16);
    assert_eq!(state(), (0, true));

    // Over HTTP: pings count the same way, and PATCH isActive:true resets failCount.
    rx.set_status(500);
    let server = Server::start_with(&env, &["--allow-private-targets"]);
    let key = key_of(&env, "default", &[]);
    let one = format!("{WEBHOOKS}/{id}");
    for _ in 0..2 {
        let r = server.call("POST", &format!("{one}/test"), Some(&key));
        assert_eq!(r.status, 200, "{r:?}");
        assert_eq!(r.data()["delivered"], false);
    }
    assert_eq!(server.get(&one, &key).data()["failCount"], 2);
    let patch = |body: &str| {
        server.send(
            "PATCH",
            &one,
            &[
                ("Authorization", &format!("Bearer {key}")),
                ("Content-Type", "application/json"),
            ],
            Some(body.as_bytes()),
        )
    };
    let r = patch(r#"{"isActive": false}"#);
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(
        (r.data()["failCount"].clone(), r.data()["isActive"].clone()),
        (json!(2), json!(false))
    );
    let r = patch(r#"{"isActive": true}"#);
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(
        (r.data()["failCount"].clone(), r.data()["isActive"].clone()),
        (json!(0), json!(true))
    );
}

#[test]
fn the_worker_stops_delivering_to_a_webhook_it_disabled() {
    let env = Env::new();
    let rx = Receiver::start();
    let w = env.create_webhook_with(&rx.url("/fail"), "post.published", &["--user", "default"]);
    let id = str_of(&w, "id").to_string();
    for _ in 0..14 {
        emit(&env, &["post.published", "--user", "default"]);
    }
    // No retries; one sender thread, so the 10th failure lands before most are claimed.
    let r = env.deliver_once_with(&["--retry-schedule=", "--delivery-workers", "1"]);
    let sent = rx.requests().len() as i64;
    assert!((10..=11).contains(&sent), "{sent} attempts: {r:#?}");
    let s = show_webhook(&env, &id);
    assert_eq!(s["isActive"], false);
    // The value that disabled it: an 11th attempt already in flight is logged, not counted.
    assert_eq!(s["failCount"], 10);
    let count = |state: &str| -> i64 {
        env.sql_i64(&format!(
            "SELECT count(*) FROM deliveries WHERE state = '{state}'"
        ))
    };
    assert_eq!(count("failed"), sent);
    assert_eq!(count("cancelled"), 14 - sent);
    assert_eq!(count("pending"), 0);
    assert!(
        r.stderr
            .contains(&format!("given up {sent}, cancelled {}", 14 - sent)),
        "{r:#?}"
    );
    assert_eq!(checked_attempts(&env, "default", &id).len() as i64, sent);
}

// ---------------------------------------------------------------------------------------------
// Fan-out, retries, Retry-After

#[test]
fn events_fan_out_only_to_active_subscribed_webhooks_of_the_user() {
    let env = Env::new();
    let rx = Receiver::start();
    let a = env.create_webhook_with(
        &rx.url("/ok?a"),
        "post.published",
        &["--event", "post.failed", "--user", "u1"],
    );
    let b = env.create_webhook_with(&rx.url("/ok?b"), "post.published", &["--user", "u1"]);
    let c = env.create_webhook_with(&rx.url("/ok?c"), "profile.created", &["--user", "u1"]);
    let d = env.create_webhook_with(&rx.url("/ok?d"), "post.published", &["--user", "u2"]);
    let (code, _) = env.json(&["--user", "u1", "webhooks", "disable", str_of(&b, "id")]);
    assert_eq!(code, 0);

    let e = emit(
        &env,
        &["post.published", "--user", "u1", "--data", r#"{"n": 1}"#],
    );
    assert_eq!(e["deliveries"], 1, "{e}");
    assert_eq!(env.count_rows("deliveries"), 1);
    env.deliver_once_with(&[]);
    // `deliver --once` has ended: every request it made has arrived.
    let reqs = rx.wait_for(1, PATIENCE);
    let reqs_after = rx.requests();
    assert_eq!(reqs_after.len(), 1, "{reqs_after:#?}");
    assert_eq!(reqs[0].target, "/ok?a");
    let body = assert_signed_delivery(&reqs[0], str_of(&a, "secret"), "post.published");
    assert_eq!(body["id"], e["id"]);
    assert_eq!(body["data"], json!({"n": 1}));

    // The attempt log of A has it; the others have nothing.
    let log = checked_attempts(&env, "u1", str_of(&a, "id"));
    assert_eq!(log.len(), 1);
    assert_eq!(log[0]["eventId"], e["id"]);
    assert_eq!(log[0]["event"], "post.published");
    assert_eq!(log[0]["attempt"], 1);
    assert_eq!(log[0]["delivered"], true);
    assert_eq!(log[0]["statusCode"], 200);
    assert!(!str_of(&log[0], "deliveryId").is_empty());
    assert!(checked_attempts(&env, "u1", str_of(&b, "id")).is_empty());
    assert!(checked_attempts(&env, "u1", str_of(&c, "id")).is_empty());
    assert!(checked_attempts(&env, "u2", str_of(&d, "id")).is_empty());

    // Other events reach their subscribers; u2's event reaches only u2's webhook.
    assert_eq!(
        emit(&env, &["profile.created", "--user", "u1"])["deliveries"],
        1
    );
    assert_eq!(
        emit(&env, &["post.published", "--user", "u2"])["deliveries"],
        1
    );
    assert_eq!(
        emit(&env, &["account.connected", "--user", "u1"])["deliveries"],
        0
    );
    assert_eq!(
        emit(&env, &["post.published", "--user", "nobody"])["deliveries"],
        0
    );
    // A webhook disabled after the event was queued gets nothing either.
    let e2 = emit(&env, &["post.failed", "--user", "u1"]);
    assert_eq!(e2["deliveries"], 1);
    let (code, _) = env.json(&["--user", "u1", "webhooks", "disable", str_of(&a, "id")]);
    assert_eq!(code, 0);
    let r = env.deliver_once_with(&[]);
    assert!(r.stderr.contains("cancelled 1"), "{r:#?}");
    rx.wait_for(3, PATIENCE);
    let mut targets: Vec<String> = rx.requests().iter().map(|r| r.target.clone()).collect();
    targets.sort();
    assert_eq!(targets, ["/ok?a", "/ok?c", "/ok?d"]);
}

#[test]
fn failed_deliveries_are_retried_on_the_schedule_then_given_up() {
    let env = Env::new();
    let rx = Receiver::start();
    let w = env.create_webhook_with(&rx.url("/fail"), "post.published", &["--user", "default"]);
    let id = str_of(&w, "id").to_string();
    let e = emit(&env, &["post.published", "--user", "default"]);
    let worker = spawn_deliver(&env, &[("KEYHOOK_RETRY_SCHEDULE", "100ms,100ms")], &[]);
    let reqs = rx.wait_for(3, PATIENCE);
    // Given up after three attempts: no fourth (a delivery no longer pending is not sent).
    let given_up = format!(
        "SELECT count(*) FROM deliveries WHERE event_id = '{}' AND state = 'failed'",
        str_of(&e, "id")
    );
    eventually("the delivery to be given up", || {
        env.sql_i64(&given_up) == 1
    });
    let stderr = stop(worker);
    let reqs_after = rx.requests();
    assert_eq!(reqs_after.len(), 3, "{reqs_after:#?}");
    for pair in reqs.windows(2) {
        let gap = pair[1].at - pair[0].at;
        assert!(gap >= Duration::from_millis(85), "retried after {gap:?}");
    }
    for r in &reqs {
        let body = assert_signed_delivery(r, str_of(&w, "secret"), "post.published");
        assert_eq!(body["id"], e["id"], "every attempt carries the same event");
    }
    assert!(stderr.contains("given up 1"), "{stderr}");

    let log = checked_attempts(&env, "default", &id);
    let numbers: Vec<i64> = log.iter().map(|a| a["attempt"].as_i64().unwrap()).collect();
    assert_eq!(numbers, [3, 2, 1], "newest first");
    for a in &log {
        assert_eq!(a["delivered"], false);
        assert_eq!(a["statusCode"], 500);
        assert_eq!(a["eventId"], e["id"]);
        assert_eq!(a["deliveryId"], log[0]["deliveryId"]);
    }
    let row = env.sql("SELECT state, attempts, lease_until FROM deliveries");
    assert_eq!(row, [["failed", "3", ""]]);
    assert_eq!(show_webhook(&env, &id)["failCount"], 3);
}

#[test]
fn retry_after_is_honoured() {
    let env = Env::new();
    let rx = Receiver::start();
    let w = env.create_webhook_with(
        &rx.url("/retry-after"),
        "post.published",
        &["--user", "default"],
    );
    emit(&env, &["post.published", "--user", "default"]);
    let worker = spawn_deliver(&env, &[("KEYHOOK_RETRY_SCHEDULE", "100ms")], &[]);
    let reqs = rx.wait_for(2, PATIENCE);
    let gap = reqs[1].at - reqs[0].at;
    assert!(
        gap >= Duration::from_millis(990),
        "Retry-After: 1 was not honoured: retried after {gap:?}"
    );
    assert!(gap < Duration::from_secs(3), "{gap:?}");
    // One retry in the schedule: the delivery is then given up, and sent no more.
    eventually("the delivery to be given up", || {
        env.sql_i64("SELECT count(*) FROM deliveries WHERE state = 'failed'") == 1
    });
    stop(worker);
    assert_eq!(rx.requests().len(), 2, "one retry in the schedule");
    let log = checked_attempts(&env, "default", str_of(&w, "id"));
    assert_eq!(log.len(), 2);
    assert_eq!(log[0]["statusCode"], 503);
    assert_eq!(log[0]["statusText"], "Service Unavailable");
    let at = |a: &Value| millis(str_of(a, "attemptedAt"));
    assert!(at(&log[0]) - at(&log[1]) >= 990, "{log:?}");
}

// ---------------------------------------------------------------------------------------------
// Target safety at delivery

#[test]
fn a_name_resolving_to_loopback_is_blocked_at_delivery() {
    let env = Env::new();
    let rx = Receiver::start();
    let url = format!("http://localhost:{}/ok", rx.port);
    // Names pass at creation, even without --allow-private-targets.
    let r = env.run(&[
        "--json",
        "webhooks",
        "create",
        "--url",
        &url,
        "--event",
        "post.published",
    ]);
    assert_eq!(r.code, 0, "{r:#?}");
    let id = str_of(&r.json()["data"], "id").to_string();

    let r = env.run(&["--json", "webhooks", "test", &id]);
    r.assert_error(1);
    assert_eq!(
        r.json(),
        json!({"data": {"delivered": false, "statusCode": 0, "statusText": "blocked: private address"}})
    );

    emit(&env, &["post.published", "--user", "default"]);
    let r = env.run(&["deliver", "--once"]);
    assert_eq!(r.code, 0, "{r:#?}");
    let log = checked_attempts(&env, "default", &id);
    assert_eq!(log.len(), 2);
    assert_eq!(log[0]["event"], "post.published");
    for a in &log {
        assert_eq!(a["delivered"], false);
        assert_eq!(a["statusCode"], 0);
        assert_eq!(a["statusText"], "blocked: private address");
    }
    // A literal loopback address allowed at creation is still checked at delivery.
    let lit = env.create_webhook_with(&rx.url("/ok"), "post.published", &["--user", "default"]);
    let r = env.run(&["--json", "webhooks", "test", str_of(&lit, "id")]);
    r.assert_error(1);
    assert_eq!(r.json()["data"]["statusText"], "blocked: private address");

    // A connection of our own, accepted after any that `webhooks test` made.
    let _marker = std::net::TcpStream::connect(rx.url("").trim_start_matches("http://"))
        .expect("connect to the receiver");
    eventually("the receiver to accept", || rx.connections() >= 1);
    assert_eq!(
        rx.connections(),
        1,
        "the receiver must not even be connected to"
    );
    assert!(rx.requests().is_empty());

    // With private targets allowed the same webhook is reached: the block was the guard.
    let (code, v) = ping(&env, "default", &id);
    assert_eq!(code, 0, "{v}");
    assert_eq!(rx.wait_for(1, PATIENCE)[0].target, "/ok");
}

// ---------------------------------------------------------------------------------------------
// The limit

#[test]
fn the_webhook_limit_holds_under_24_concurrent_processes() {
    let env = Env::new();
    let children: Vec<Child> = (0..24)
        .map(|i| {
            std_cmd()
                .arg("--db")
                .arg(env.db_arg())
                .args(["--json", "--allow-private-targets", "webhooks", "create"])
                .args(["--url", &format!("http://127.0.0.1:9/hook-{i}")])
                .args(["--event", "post.published"])
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("spawn")
        })
        .collect();
    let mut created = BTreeSet::new();
    let mut refused = 0;
    for child in children {
        let out = child.wait_with_output().unwrap();
        let v: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
        let stderr = String::from_utf8_lossy(&out.stderr);
        match out.status.code() {
            Some(0) => {
                created.insert(str_of(&v["data"], "url").to_string());
            }
            Some(5) => {
                assert_eq!(v["error"]["code"], "WEBHOOK_LIMIT_REACHED", "{v}");
                assert_eq!(v["error"]["details"], json!([]));
                assert!(stderr.starts_with("keyhook: "), "{stderr}");
                refused += 1;
            }
            other => panic!("exit {other:?}: {v} {stderr}"),
        }
    }
    assert_eq!((created.len(), refused), (10, 14));
    let (code, v) = env.json(&["webhooks", "list"]);
    assert_eq!(code, 0);
    let listed: BTreeSet<String> = v["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| str_of(w, "url").to_string())
        .collect();
    assert_eq!(listed, created);

    // The 11th over HTTP: 409. The limit is per user.
    let server = Server::start(&env);
    let key = key_of(&env, "default", &[]);
    let body = json!({"url": "https://hooks.example.com/11", "events": ["post.published"]});
    let err = assert_http_error(
        &server.post_json(WEBHOOKS, &key, &body),
        409,
        "WEBHOOK_LIMIT_REACHED",
    );
    assert_eq!(err["details"], json!([]));
    assert_eq!(
        server.get(WEBHOOKS, &key).data().as_array().unwrap().len(),
        10
    );
    let other = key_of(&env, "u2", &[]);
    assert_eq!(server.post_json(WEBHOOKS, &other, &body).status, 201);
    // Deleting one makes room again.
    let first = str_of(&v["data"][0], "id");
    assert_eq!(
        server.delete(&format!("{WEBHOOKS}/{first}"), &key).status,
        204
    );
    assert_eq!(server.post_json(WEBHOOKS, &key, &body).status, 201);
    assert_eq!(server.post_json(WEBHOOKS, &key, &body).status, 409);
}

// ---------------------------------------------------------------------------------------------
// Durability

#[test]
fn a_worker_killed_mid_delivery_loses_nothing() {
    let env = Env::new();
    let rx = Receiver::start();
    rx.set_delay(Duration::from_millis(300));
    let w = env.create_webhook_with(&rx.url("/delay"), "post.published", &["--user", "default"]);
    let secret = str_of(&w, "secret").to_string();
    let mut events = BTreeSet::new();
    for i in 0..50 {
        let e = emit(
            &env,
            &[
                "post.published",
                "--user",
                "default",
                "--data",
                &format!(r#"{{"i": {i}}}"#),
            ],
        );
        assert_eq!(e["deliveries"], 1);
        events.insert(str_of(&e, "id").to_string());
    }

    let mut worker = spawn_deliver(&env, &[], &["--delivery-workers", "8"]);
    // The first eight have been answered and the next ones are in flight.
    rx.wait_for(12, PATIENCE);
    worker.kill().expect("kill -9 the worker");
    worker.wait().unwrap();
    let seen_at_kill = rx.requests().len();
    assert!(
        seen_at_kill < 50,
        "the worker finished before it was killed"
    );
    rx.set_delay(Duration::ZERO);

    let now_ms = chrono::Utc::now().timestamp_millis();
    let pending = env.sql_i64("SELECT count(*) FROM deliveries WHERE state = 'pending'");
    let leased_now = format!(
        "SELECT count(*) FROM deliveries WHERE state = 'pending' AND lease_until > {now_ms}"
    );
    let leased = env.sql_i64(&leased_now);
    assert!(pending > 0, "nothing left to deliver");
    assert!(leased >= 1, "the in-flight deliveries hold a lease");
    // A plain restart leaves the leased ones alone until their lease runs out ...
    env.deliver_once_with(&[]);
    assert_eq!(
        env.sql_i64(&leased_now),
        leased,
        "a live lease is respected"
    );
    // ... and once it has run out, they are sent again.
    env.sql("UPDATE deliveries SET lease_until = 0 WHERE state = 'pending'");
    env.deliver_once_with(&[]);

    let reqs = rx.requests();
    let mut reached = BTreeSet::new();
    for r in &reqs {
        let body = assert_signed_delivery(r, &secret, "post.published");
        reached.insert(str_of(&body, "id").to_string());
    }
    assert_eq!(
        reached, events,
        "every event reached the receiver at least once"
    );
    let undelivered = "SELECT count(*) FROM deliveries WHERE state != 'delivered'";
    assert_eq!(env.sql_i64(undelivered), 0);
    assert_eq!(env.count_rows("deliveries"), 50);
    if !env.skip_unless_sqlite("PRAGMA integrity_check is SQLite's") {
        assert_eq!(env.sql("PRAGMA integrity_check"), [["ok"]]);
    }
}

// ---------------------------------------------------------------------------------------------
// Events over HTTP, delivered by the worker inside `serve`

#[test]
fn events_posted_over_http_are_delivered_by_the_worker_in_serve() {
    let env = Env::new();
    let rx = Receiver::start();
    let server = Server::start_with(
        &env,
        &["--allow-private-targets", "--retry-schedule", "100ms"],
    );
    let key = key_of(&env, "default", &[]);
    let readonly = key_of(&env, "default", &["--permission", "readonly"]);
    let r = server.post_json(
        WEBHOOKS,
        &key,
        &json!({"url": rx.url("/ok"), "events": ["post.published"]}),
    );
    assert_eq!(r.status, 201, "{r:?}");
    let w = r.data();
    let id = str_of(&w, "id").to_string();

    let r = server.post_json(
        EVENTS,
        &key,
        &json!({"event": "post.published", "data": {"postId": "p9"}}),
    );
    assert_eq!(r.status, 202, "{r:?}");
    let e = r.data();
    assert_eq!(
        sorted_keys(&e),
        ["createdAt", "deliveries", "event", "id", "profileId"]
    );
    assert!(e["profileId"].is_null(), "a user-wide event: {e}");
    assert_eq!(e["event"], "post.published");
    assert_eq!(e["deliveries"], 1);
    assert!(is_api_timestamp(str_of(&e, "createdAt")));

    let reqs = rx.wait_for(1, PATIENCE);
    let body = assert_signed_delivery(&reqs[0], str_of(&w, "secret"), "post.published");
    assert_eq!(body["id"], e["id"]);
    assert_eq!(body["data"], json!({"postId": "p9"}));
    assert_eq!(body["createdAt"], e["createdAt"]);

    let path = format!("{WEBHOOKS}/{id}/deliveries");
    let mut log = Value::Null;
    eventually("the attempt to be logged", || {
        log = server.get(&path, &key).data();
        log.as_array().is_some_and(|l| !l.is_empty())
    });
    assert_eq!(log.as_array().unwrap().len(), 1);
    assert_attempt_shape(&log[0]);
    assert_eq!(log[0]["eventId"], e["id"]);
    assert_eq!(log[0]["delivered"], true);
    assert_eq!(log[0]["statusCode"], 200);
    assert_eq!(log[0]["statusText"], "OK");
    assert_eq!(log[0]["attempt"], 1);

    // An event nobody subscribes to queues nothing; bad events are refused.
    let r = server.post_json(EVENTS, &key, &json!({"event": "profile.deleted"}));
    assert_eq!(r.status, 202, "{r:?}");
    assert_eq!(r.data()["deliveries"], 0);
    for (body, field) in [
        (json!({"event": "no.such"}), "event"),
        (json!({"event": "webhook.test"}), "event"),
        (json!({"data": {}}), "event"),
        (json!({"event": "post.published", "data": [1]}), "data"),
        (json!({"event": "post.published", "extra": 1}), "extra"),
    ] {
        let err = assert_http_error(
            &server.post_json(EVENTS, &key, &body),
            400,
            "VALIDATION_ERROR",
        );
        assert_eq!(detail_fields(&err), [field], "{body}");
    }
    assert_http_error(
        &server.post_json(EVENTS, &readonly, &json!({"event": "post.published"})),
        403,
        "FORBIDDEN",
    );
    // Refused events queue nothing, so there is nothing to deliver.
    assert_eq!(
        env.count_rows("deliveries"),
        1,
        "refused events queue nothing"
    );
    assert_eq!(rx.requests().len(), 1, "refused events deliver nothing");

    // A failing endpoint is retried by the same worker.
    let r = server.post_json(
        WEBHOOKS,
        &key,
        &json!({"url": rx.url("/fail"), "events": ["post.failed"]}),
    );
    let failing = str_of(&r.data(), "id").to_string();
    let r = server.post_json(EVENTS, &key, &json!({"event": "post.failed"}));
    assert_eq!(r.data()["deliveries"], 1);
    rx.wait_for(3, PATIENCE);
    let path = format!("{WEBHOOKS}/{failing}/deliveries");
    eventually("both attempts to be logged", || {
        server.get(&path, &key).data().as_array().map(Vec::len) == Some(2)
    });
    let log = server.get(&path, &key).data();
    assert_eq!(log[0]["attempt"], 2);
    assert_eq!(log[1]["attempt"], 1);
}

#[test]
fn emitting_events_from_the_cli_validates_name_and_data() {
    let env = Env::new();
    // Events are emitted into a database that exists (a missing one is refused).
    env.create_key("setup", &[]);
    for (args, field) in [
        (vec!["events", "emit", "no.such"], "event"),
        (vec!["events", "emit", "webhook.test"], "event"),
        (
            vec!["events", "emit", "post.published", "--data", "[1]"],
            "data",
        ),
        (
            vec!["events", "emit", "post.published", "--data", "{bad"],
            "data",
        ),
        (
            vec![
                "events",
                "emit",
                "post.published",
                "--data",
                "@/nonexistent/x.json",
            ],
            "data",
        ),
    ] {
        let r = env.run(&[&["--json"], args.as_slice()].concat());
        r.assert_error(2);
        assert_validation(&r.json(), &[field]);
    }
    let big = format!(r#"{{"x": "{}"}}"#, "a".repeat(70 * 1024));
    let r = crate::common::run(
        env.cmd()
            .args(["--json", "events", "emit", "post.published", "--data", "-"])
            .write_stdin(big),
    );
    r.assert_error(2);
    assert_validation(&r.json(), &["data"]);
    assert_eq!(env.count_rows("events"), 0, "refused events are not stored");
}

#[test]
fn a_spinner_shows_while_a_test_ping_waits_only_on_a_terminal_and_never_with_json() {
    let env = Env::new();
    let rx = Receiver::start();
    rx.set_delay(Duration::from_millis(700));
    let hook = env.create_webhook_with(&rx.url("/delay"), "post.published", &["--user", "default"]);
    let id = str_of(&hook, "id");
    let args = ["--allow-private-targets", "webhooks", "test", id];
    let Some(r) = crate::common::on_terminal(&env, &args, "", "") else {
        return;
    };
    assert_eq!(r.code, 0, "{r:?}");
    assert!(
        r.stdout.contains('⠋'),
        "a spinner frame on the terminal: {r:?}"
    );
    assert!(r.stdout.contains("delivered: 200 OK"), "{r:?}");
    let mut json_args = vec!["--json"];
    json_args.extend_from_slice(&args);
    let r = crate::common::on_terminal(&env, &json_args, "", "").unwrap();
    assert_eq!(r.code, 0, "{r:?}");
    assert!(!r.stdout.contains('⠋'), "no spinner with --json: {r:?}");
    assert!(r.stdout.contains(r#""delivered":true"#), "{r:?}");
    // Without a terminal (the other tests) stderr stays free of it too.
    let (code, v) = ping(&env, "default", id);
    assert_eq!((code, v["data"]["delivered"].as_bool()), (0, Some(true)));
}

// ---------------------------------------------------------------------------------------------
// The new secret is written before the webhook is committed

/// A write that fails (a full disk, a closed pipe) creates nothing; standard output sent to
/// /dev/null (or closed) is no failure: the secret is in `webhooks show`, so nothing is lost,
/// and the webhook is created (a provisioning script's `webhooks create ... >/dev/null`).
/// `rotate-secret` the same way: a failed write keeps the old secret, /dev/null rotates it.
#[test]
fn a_webhook_whose_output_cannot_be_written_is_not_created() {
    use crate::privilege::{assert_write_failure, run_into, Sink};
    let env = Env::new();
    let ids = |env: &Env| -> Vec<String> {
        let (code, v) = env.json(&["webhooks", "list"]);
        assert_eq!(code, 0, "{v}");
        v["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| str_of(w, "id").to_string())
            .collect()
    };
    let kept = env.create_webhook_with(
        "http://example.com/kept",
        "post.published",
        &["--user", "default"],
    );
    let kept_id = str_of(&kept, "id").to_string();
    let create_args = ["webhooks", "create", "--url", "http://example.com/a"];
    for sink in [Sink::Full, Sink::ClosedPipe] {
        for json in [false, true] {
            let mut args = vec![];
            if json {
                args.push("--json");
            }
            args.extend_from_slice(&create_args);
            args.extend_from_slice(&["--event", "post.published"]);
            let what = format!("{sink:?} json {json}");
            let r = run_into(&env, sink, &args);
            assert_write_failure(&r, &what);
            assert!(
                r.stderr.contains("no webhook was created"),
                "{what}: {r:#?}"
            );
            assert!(!r.stderr.contains("whsec_"), "{what}: {r:#?}");
            assert_eq!(
                ids(&env),
                vec![kept_id.clone()],
                "{what}: a webhook was kept"
            );
        }
    }
    // Into a working stdout the webhook is created, table or JSON.
    let r = env.run(&[
        "webhooks",
        "create",
        "--url",
        "http://example.com/b",
        "--event",
        "post.published",
    ]);
    assert_eq!(r.code, 0, "{r:#?}");
    assert!(r.stdout.contains("whsec_"), "{r:#?}");
    env.create_webhook_with(
        "http://example.com/c",
        "post.published",
        &["--user", "default"],
    );
    assert_eq!(ids(&env).len(), 3);

    let secret = |id: &str| {
        let (code, v) = env.json(&["webhooks", "show", id]);
        assert_eq!(code, 0, "{v}");
        str_of(&v["data"], "secret").to_string()
    };
    for sink in [Sink::Full, Sink::ClosedPipe] {
        let before = secret(&kept_id);
        let r = run_into(
            &env,
            sink,
            &["webhooks", "rotate-secret", &kept_id, "--quiet"],
        );
        assert_write_failure(&r, &format!("rotate-secret {sink:?}"));
        assert!(r.stderr.contains("the secret is unchanged"), "{r:#?}");
        assert_eq!(secret(&kept_id), before, "{sink:?}");
    }
    for sink in [Sink::DevNull, Sink::Closed] {
        for json in [false, true] {
            let what = format!("{sink:?} json {json}");
            let before_ids = ids(&env);
            let mut args = vec![];
            if json {
                args.push("--json");
            }
            args.extend_from_slice(&create_args);
            args.extend_from_slice(&["--event", "post.published"]);
            let r = run_into(&env, sink, &args);
            assert_eq!(r.code, 0, "{what}: {r:#?}");
            assert!(!r.stderr.contains("whsec_"), "{what}: {r:#?}");
            let now = ids(&env);
            assert_eq!(
                now.len(),
                before_ids.len() + 1,
                "{what}: no webhook created"
            );
            let new = now.into_iter().find(|id| !before_ids.contains(id)).unwrap();
            assert!(secret(&new).starts_with("whsec_"), "{what}: readable again");
            let (code, v) = env.json(&["webhooks", "delete", &new, "--yes"]);
            assert_eq!(code, 0, "{v}");

            let before = secret(&kept_id);
            let mut args = vec![];
            if json {
                args.push("--json");
            }
            args.extend_from_slice(&["webhooks", "rotate-secret", &kept_id]);
            let r = run_into(&env, sink, &args);
            assert_eq!(r.code, 0, "rotate-secret {what}: {r:#?}");
            let after = secret(&kept_id);
            assert!(after != before && after.starts_with("whsec_"), "{what}");
        }
    }
}
