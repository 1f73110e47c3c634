//! Profile scope on events and webhooks, against the real binary and
//! `keyhook serve`, on both backends: the agency of the issue (one user, one key per brand)
//! and the three attacks it describes, the 404 of every webhook route for a webhook outside
//! the key's scope, the 403s of scopes beyond the key, the limit, the audit log, idempotency
//! keys, and the CLI's `--profile`, `webhooks update` and SCOPE column.

use std::time::Duration;

use serde_json::{json, Value};

use crate::common::{str_of, Env};
use crate::receiver::Receiver;
use crate::server::{Resp, Server};

const PATIENCE: Duration = Duration::from_secs(20);

/// The agency: webhooks of brand-a and brand-b on their receivers (made by the operator,
/// `webhooks create --profile`), and a server that may deliver to loopback.
struct Agency {
    env: Env,
    a: Receiver,
    b: Receiver,
    hook_a: Value,
    hook_b: Value,
    server: Server,
}

fn create_hook(env: &Env, url: &str, extra: &[&str]) -> Value {
    env.create_webhook_with(url, "post.published", extra)
}

fn agency() -> Agency {
    let env = Env::new();
    let (a, b) = (Receiver::start(), Receiver::start());
    let hook_a = create_hook(&env, &a.url("/a"), &["--profile", "brand-a"]);
    let hook_b = create_hook(&env, &b.url("/b"), &["--profile", "brand-b"]);
    assert_eq!(hook_a["fullAccess"], false);
    assert_eq!(hook_a["profileIds"], json!(["brand-a"]));
    let server = Server::start_with(&env, &["--allow-private-targets"]);
    Agency {
        env,
        a,
        b,
        hook_a,
        hook_b,
        server,
    }
}

impl Agency {
    /// A key of brand-a with `permission`.
    fn brand_a_key(&self, permission: &str) -> String {
        let k = self.env.create_key(
            "brand-a",
            &["--permission", permission, "--profile", "brand-a"],
        );
        str_of(&k, "key").to_string()
    }

    fn deliveries_to(&self, hook: &Value) -> i64 {
        self.env.sql_i64(&format!(
            "SELECT count(*) FROM deliveries WHERE webhook_id = '{}'",
            str_of(hook, "id")
        ))
    }
}

fn send(s: &Server, method: &str, path: &str, key: &str, body: Option<&Value>) -> Resp {
    let auth = format!("Bearer {key}");
    let mut headers = vec![("Authorization", auth.as_str())];
    if body.is_some() {
        headers.push(("Content-Type", "application/json"));
    }
    let bytes = body.map(|b| b.to_string().into_bytes());
    s.send(method, path, &headers, bytes.as_deref())
}

fn error_fields(r: &Resp) -> Vec<String> {
    r.json()["error"]["details"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| str_of(d, "field").to_string())
        .collect()
}

/// Attack 1: a readonly key scoped to brand-a lists the user's webhooks, and reads the secret
/// of brand-b's to forge signed deliveries. Now it sees only brand-a's; brand-b's answers
/// 404 like an unknown id.
#[test]
fn attack_1_a_readonly_brand_key_never_sees_another_brands_webhook_or_secret() {
    let ag = agency();
    let key = ag.brand_a_key("readonly");
    let list = send(&ag.server, "GET", "/api/v1/webhooks", &key, None);
    assert_eq!(list.status, 200);
    let data = list.data();
    let ids: Vec<&str> = data
        .as_array()
        .unwrap()
        .iter()
        .map(|w| str_of(w, "id"))
        .collect();
    assert_eq!(ids, [str_of(&ag.hook_a, "id")]);
    assert!(!list.body.contains(str_of(&ag.hook_b, "secret")));
    let b = str_of(&ag.hook_b, "id");
    for path in [
        format!("/api/v1/webhooks/{b}"),
        format!("/api/v1/webhooks/{}", &b[..8]),
        format!("/api/v1/webhooks/{b}/deliveries"),
    ] {
        let r = send(&ag.server, "GET", &path, &key, None);
        assert_eq!(r.status, 404, "{path}: {r:?}");
        assert!(!r.body.contains(str_of(&ag.hook_b, "secret")));
    }
    // The operator sees both, with their scopes, in the table's SCOPE column too.
    let table = ag.env.run(&["webhooks", "list"]);
    assert_eq!(table.code, 0, "{table:?}");
    assert!(table.stdout.contains("SCOPE"), "{}", table.stdout);
    assert!(table.stdout.contains("brand-a") && table.stdout.contains("brand-b"));
}

/// Attack 2: a readwrite key scoped to brand-a emits post.published about a brand-b post, and
/// it is delivered, signed, to brand-b's receiver. Now it is 403 on `profileId`, and nothing
/// is queued; its own brand's event reaches brand-a's receiver only, with `profileId`.
#[test]
fn attack_2_a_brand_key_cannot_emit_about_another_brand() {
    let ag = agency();
    let key = ag.brand_a_key("readwrite");
    for body in [
        json!({"event": "post.published", "profileId": "brand-b", "data": {"postId": "b_1"}}),
        json!({"event": "post.published", "data": {"postId": "b_1"}}),
    ] {
        let r = send(&ag.server, "POST", "/api/v1/events", &key, Some(&body));
        assert_eq!(r.status, 403, "{r:?}");
        assert_eq!(r.json()["error"]["code"], "FORBIDDEN");
        assert_eq!(error_fields(&r), ["profileId"]);
    }
    assert_eq!(ag.env.count_rows("events"), 0);
    let own = json!({"event": "post.published", "profileId": "brand-a", "data": {"postId": "a_1"}});
    let r = send(&ag.server, "POST", "/api/v1/events", &key, Some(&own));
    assert_eq!(r.status, 202, "{r:?}");
    assert_eq!(r.data()["profileId"], "brand-a");
    assert_eq!(r.data()["deliveries"], 1);
    let got = ag.a.wait_for(1, PATIENCE);
    let payload = got[0].json();
    assert_eq!(payload["profileId"], "brand-a");
    assert_eq!(payload["data"]["postId"], "a_1");
    assert_eq!(ag.deliveries_to(&ag.hook_b), 0);
    assert!(ag.b.requests().is_empty());
}

/// Attack 3: the same key subscribes a webhook of its own to post.published and receives
/// every brand's posts. Now the webhook gets the key's scope, and only brand-a's events.
#[test]
fn attack_3_a_brand_keys_own_webhook_gets_only_its_brands_events() {
    let ag = agency();
    let key = ag.brand_a_key("readwrite");
    let spy = Receiver::start();
    let body = json!({"url": spy.url("/spy"), "events": ["post.published"]});
    let r = send(&ag.server, "POST", "/api/v1/webhooks", &key, Some(&body));
    assert_eq!(r.status, 201, "{r:?}");
    let mine = r.data();
    assert_eq!(mine["fullAccess"], false);
    assert_eq!(mine["profileIds"], json!(["brand-a"]));
    // The operator emits a brand-b post, a user-wide event and a brand-a post.
    for profile in [Some("brand-b"), None, Some("brand-a")] {
        let mut args = vec!["events", "emit", "post.published"];
        if let Some(p) = profile {
            args.extend(["--profile", p]);
        }
        let (code, v) = ag.env.json(&args);
        assert_eq!(code, 0, "{v}");
        assert_eq!(v["data"]["profileId"], json!(profile));
    }
    let got = spy.wait_for(1, PATIENCE);
    assert_eq!(got[0].json()["profileId"], "brand-a");
    assert_eq!(ag.deliveries_to(&mine), 1);
    // Every brand's receiver gets its own brand's event only.
    ag.b.wait_for(1, PATIENCE);
    assert_eq!(ag.deliveries_to(&ag.hook_b), 1);
    assert_eq!(ag.deliveries_to(&ag.hook_a), 1);
}

/// The body of a 404 with the id replaced, so that answers about different ids compare.
fn anonymous(r: &Resp, id: &str) -> String {
    r.body.replace(id, "ID")
}

/// Every webhook route answers a webhook outside the key's scope exactly as an unknown id.
#[test]
fn every_webhook_route_answers_an_unseen_webhook_as_an_unknown_id() {
    let ag = agency();
    let key = ag.brand_a_key("readwrite");
    let b = str_of(&ag.hook_b, "id").to_string();
    let unknown = "0f0f0f0f-0f0f-4f0f-8f0f-0f0f0f0f0f0f";
    let routes: Vec<(&str, &str, Option<Value>)> = vec![
        ("GET", "", None),
        ("PATCH", "", Some(json!({"isActive": false}))),
        ("POST", "/test", None),
        ("POST", "/replay", Some(json!({}))),
        ("POST", "/rotate-secret", Some(json!({}))),
        ("GET", "/deliveries", None),
        ("DELETE", "", None),
    ];
    for (method, tail, body) in &routes {
        let hidden = send(
            &ag.server,
            method,
            &format!("/api/v1/webhooks/{b}{tail}"),
            &key,
            body.as_ref(),
        );
        let none = send(
            &ag.server,
            method,
            &format!("/api/v1/webhooks/{unknown}{tail}"),
            &key,
            body.as_ref(),
        );
        assert_eq!(hidden.status, 404, "{method} {tail}: {hidden:?}");
        assert_eq!(none.status, 404, "{method} {tail}: {none:?}");
        assert_eq!(
            anonymous(&hidden, &b),
            anonymous(&none, unknown),
            "{method} {tail}"
        );
    }
    // brand-b's webhook is untouched: active, same secret, no ping, no audit entry but its
    // creation.
    let (_, v) = ag.env.json(&["webhooks", "show", &b]);
    assert_eq!(v["data"]["isActive"], true);
    assert_eq!(v["data"]["secret"], ag.hook_b["secret"]);
    assert!(ag.b.requests().is_empty());
    let (_, audit) = ag.env.json(&["audit"]);
    let about_b = audit["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["target"] == b.as_str())
        .count();
    assert_eq!(about_b, 1);
}

/// Creating or changing a webhook with a scope beyond the key is 403 naming the field; a
/// scoped key's create without a scope gets its own; the scope's rules are a key's (400).
#[test]
fn a_key_gives_webhooks_only_scopes_within_its_own() {
    let ag = agency();
    let key = ag.brand_a_key("readwrite");
    let post = |body: Value| send(&ag.server, "POST", "/api/v1/webhooks", &key, Some(&body));
    let url = ag.a.url("/more");
    let r = post(json!({"url": url, "events": ["post.published"], "fullAccess": true}));
    assert_eq!(
        (r.status, error_fields(&r)),
        (403, vec!["fullAccess".to_string()])
    );
    let r = post(
        json!({"url": url, "events": ["post.published"], "fullAccess": false,
                        "profileIds": ["brand-a", "brand-b"]}),
    );
    assert_eq!(
        (r.status, error_fields(&r)),
        (403, vec!["profileIds".to_string()])
    );
    let r = post(json!({"url": url, "events": ["post.published"], "fullAccess": false}));
    assert_eq!(
        (r.status, error_fields(&r)),
        (400, vec!["profileIds".to_string()])
    );
    let r = post(json!({"url": url, "events": ["post.published"], "profileIds": ["brand-a"]}));
    assert_eq!(
        (r.status, error_fields(&r)),
        (400, vec!["profileIds".to_string()])
    );
    let r = post(
        json!({"url": url, "events": ["post.published"], "fullAccess": false,
                        "profileIds": ["brand-a"]}),
    );
    assert_eq!(r.status, 201, "{r:?}");
    let a = str_of(&ag.hook_a, "id");
    let patch = |body: Value| {
        send(
            &ag.server,
            "PATCH",
            &format!("/api/v1/webhooks/{a}"),
            &key,
            Some(&body),
        )
    };
    let r = patch(json!({"fullAccess": true}));
    assert_eq!(
        (r.status, error_fields(&r)),
        (403, vec!["fullAccess".to_string()])
    );
    let r = patch(json!({"fullAccess": false, "profileIds": ["brand-b"]}));
    assert_eq!(
        (r.status, error_fields(&r)),
        (403, vec!["profileIds".to_string()])
    );
    assert_eq!(ag.env.count_rows("webhooks"), 3);
    let r = patch(json!({"url": ag.a.url("/moved")}));
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(r.data()["profileIds"], json!(["brand-a"]));
}

/// The ten-webhook limit counts the user's webhooks a scoped key cannot see: 409, and the
/// same answer as anyone gets.
#[test]
fn a_scoped_key_at_the_limit_gets_409_and_nothing_else() {
    let ag = agency();
    for i in 0..8 {
        create_hook(
            &ag.env,
            &ag.b.url(&format!("/{i}")),
            &["--profile", "brand-b"],
        );
    }
    let key = ag.brand_a_key("readwrite");
    let body = json!({"url": ag.a.url("/x"), "events": ["post.published"]});
    let r = send(&ag.server, "POST", "/api/v1/webhooks", &key, Some(&body));
    assert_eq!(r.status, 409, "{r:?}");
    assert_eq!(r.json()["error"]["code"], "WEBHOOK_LIMIT_REACHED");
    assert_eq!(r.json()["error"]["details"], json!([]));
    let full = str_of(&ag.env.create_key("full", &[]), "key").to_string();
    let other = send(&ag.server, "POST", "/api/v1/webhooks", &full, Some(&body));
    assert_eq!(other.status, 409);
    assert_eq!(other.body, r.body);
}

/// GET /audit shows a scoped key only the entries about keys and webhooks within its scope.
#[test]
fn the_audit_log_of_a_scoped_key_holds_only_what_it_sees() {
    let ag = agency();
    let key = ag.brand_a_key("readonly");
    let r = send(&ag.server, "GET", "/api/v1/audit", &key, None);
    assert_eq!(r.status, 200, "{r:?}");
    let targets: Vec<String> = r
        .data()
        .as_array()
        .unwrap()
        .iter()
        .map(|e| str_of(e, "target").to_string())
        .collect();
    assert_eq!(targets.len(), 2, "{targets:?}");
    assert!(targets.contains(&str_of(&ag.hook_a, "id").to_string()));
    assert!(!targets.contains(&str_of(&ag.hook_b, "id").to_string()));
    // The full-access view has brand-b's too.
    let full = str_of(&ag.env.create_key("full", &[]), "key").to_string();
    let all = send(&ag.server, "GET", "/api/v1/audit", &full, None);
    assert!(all.body.contains(str_of(&ag.hook_b, "id")));
}

/// An Idempotency-Key that a brand-b event took answers a brand-a key with a new event of
/// brand-a, never with the brand-b event (keys are held per profile).
#[test]
fn an_idempotency_key_never_reveals_an_event_the_key_could_not_see() {
    let ag = agency();
    let full = str_of(&ag.env.create_key("full", &[]), "key").to_string();
    let key = ag.brand_a_key("readwrite");
    let emit = |k: &str, profile: &str| {
        let auth = format!("Bearer {k}");
        let body = json!({"event": "post.published", "profileId": profile});
        ag.server.send(
            "POST",
            "/api/v1/events",
            &[
                ("Authorization", auth.as_str()),
                ("Content-Type", "application/json"),
                ("Idempotency-Key", "post-42"),
            ],
            Some(body.to_string().as_bytes()),
        )
    };
    let of_b = emit(&full, "brand-b");
    assert_eq!(of_b.status, 202);
    let mine = emit(&key, "brand-a");
    assert_eq!(mine.status, 202);
    assert_ne!(mine.data()["id"], of_b.data()["id"]);
    assert_eq!(mine.data()["profileId"], "brand-a");
    assert!(!mine.body.contains(str_of(&of_b.data(), "id")));
    // Repeats get their own first events.
    assert_eq!(emit(&key, "brand-a").body, mine.body);
    assert_eq!(emit(&full, "brand-b").body, of_b.body);
    // And from the CLI, the same rule.
    let (code, v) = ag.env.json(&[
        "events",
        "emit",
        "post.published",
        "--profile",
        "brand-a",
        "--idempotency-key",
        "post-42",
    ]);
    assert_eq!(code, 0);
    assert_eq!(v["data"]["id"], mine.data()["id"]);
}

/// `webhooks update` is PATCH from the shell: URL, events and scope, `--all-profiles`; its
/// `--json` is PATCH's body; bad values exit 2 naming the flag; no change named is a usage
/// error.
#[test]
fn webhooks_update_changes_url_events_and_scope() {
    let env = Env::new();
    let w = create_hook(&env, "http://127.0.0.1:9/h", &[]);
    assert_eq!(
        (w["fullAccess"].clone(), w["profileIds"].clone()),
        (json!(true), json!([]))
    );
    let id = str_of(&w, "id");
    let (code, v) = env.json(&[
        "--allow-private-targets",
        "webhooks",
        "update",
        id,
        "--url",
        "http://127.0.0.1:9/v2",
        "--event",
        "post.failed",
        "--profile",
        "p1",
        "--profile",
        "p2",
    ]);
    assert_eq!(code, 0, "{v}");
    let d = &v["data"];
    assert_eq!(d["url"], "http://127.0.0.1:9/v2");
    assert_eq!(d["events"], json!(["post.failed"]));
    assert_eq!(
        (d["fullAccess"].clone(), d["profileIds"].clone()),
        (json!(false), json!(["p1", "p2"]))
    );
    assert_eq!(d["secret"], w["secret"]);
    let table = env.run(&["webhooks", "show", id]);
    assert!(table.stdout.contains("p1, p2"), "{}", table.stdout);
    let (code, v) = env.json(&["webhooks", "update", id, "--all-profiles"]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(
        (
            v["data"]["fullAccess"].clone(),
            v["data"]["profileIds"].clone()
        ),
        (json!(true), json!([]))
    );
    let r = env.run(&["webhooks", "update", id, "--profile", ""]);
    r.assert_error(2);
    assert!(r.stderr.contains("--profile"), "{}", r.stderr);
    let r = env.run(&["webhooks", "update", id]);
    assert_eq!(r.code, 2, "{r:?}");
    let r = env.run(&["webhooks", "update", id, "--profile", "a", "--all-profiles"]);
    assert_eq!(r.code, 2, "{r:?}");
    let r = env.run(&["webhooks", "update", "0f0f0f0f", "--all-profiles"]);
    assert_eq!(r.code, 3, "{r:?}");
    // The audit entry names the new scope.
    let (_, audit) = env.json(&["audit", "--limit", "1"]);
    assert_eq!(audit["data"][0]["details"]["fullAccess"], true);
}

/// A delivery queued before its webhook's scope narrowed is not sent after it: the worker
/// applies the matching rule right before the request.
#[test]
fn a_delivery_the_webhooks_scope_no_longer_covers_is_cancelled() {
    let env = Env::new();
    let rx = Receiver::start();
    let w = create_hook(&env, &rx.url("/h"), &[]);
    let id = str_of(&w, "id");
    for p in ["a", "b"] {
        let (code, v) = env.json(&["events", "emit", "post.published", "--profile", p]);
        assert_eq!((code, v["data"]["deliveries"].clone()), (0, json!(1)));
    }
    let (code, _) = env.json(&["webhooks", "update", id, "--profile", "a"]);
    assert_eq!(code, 0);
    let r = env.run(&["--allow-private-targets", "deliver", "--once"]);
    assert_eq!(r.code, 0, "{r:?}");
    let got = rx.wait_for(1, PATIENCE);
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].json()["profileId"], "a");
    assert_eq!(
        env.sql_i64("SELECT count(*) FROM deliveries WHERE state = 'cancelled'"),
        1
    );
    // The attempt log shows the event's profile.
    let (_, v) = env.json(&["webhooks", "deliveries", id]);
    assert_eq!(v["data"][0]["profileId"], "a");
    let table = env.run(&["webhooks", "deliveries", id]);
    assert!(table.stdout.contains("profile a"), "{}", table.stdout);
}

/// The CLI's `--profile` flags take profile ids as the API does: a bad one exits 2 naming
/// the flag, with nothing written; `events emit --profile` prints the profile.
#[test]
fn profile_flags_refuse_bad_ids_naming_the_flag() {
    let env = Env::new();
    create_hook(&env, "http://127.0.0.1:9/h", &["--profile", "a"]);
    for args in [
        vec!["events", "emit", "post.published", "--profile", ""],
        vec!["events", "emit", "post.published", "--profile", "a\u{200b}"],
        vec![
            "--allow-private-targets",
            "webhooks",
            "create",
            "--url",
            "http://127.0.0.1:9/x",
            "--event",
            "post.published",
            "--profile",
            "a",
            "--profile",
            "a",
        ],
    ] {
        let r = env.run(&args);
        r.assert_error(2);
        assert!(r.stderr.contains("--profile"), "{args:?}: {}", r.stderr);
    }
    assert_eq!(env.count_rows("events"), 0);
    assert_eq!(env.count_rows("webhooks"), 1);
    let r = env.run(&["events", "emit", "post.published", "--profile", "a"]);
    assert_eq!(r.code, 0, "{r:?}");
    assert!(
        r.stdout
            .contains("(post.published, profile a) for 1 webhook."),
        "{}",
        r.stdout
    );
    // A user-wide event goes to no scoped webhook.
    let r = env.run(&["events", "emit", "post.published"]);
    assert!(r.stdout.contains("for 0 webhooks."), "{}", r.stdout);
}
