//! The operator's event catalog (CONTRACT §10): `keyhook event-types`, GET /event-types, the
//! names webhooks subscribe to and events are emitted with, profile rules, deprecation,
//! deletion, schemas and `events trigger`. Every test runs on SQLite and on PostgreSQL.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::{json, Value};

use crate::common::{data, str_of, Env};
use crate::receiver::Receiver;
use crate::server::Server;

const BUILT_IN: [&str; 7] = [
    "post.published",
    "post.failed",
    "post.deleted",
    "account.connected",
    "account.disconnected",
    "profile.created",
    "profile.deleted",
];
const OPERATIONAL: [&str; 2] = ["webhook.disabled", "delivery.exhausted"];

/// `v` in a new file of its own, in the test's directory (removed with it).
fn file(env: &Env, name: &str, v: &Value) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let path = env
        .dir
        .path()
        .join(format!("{}-{name}", N.fetch_add(1, Ordering::Relaxed)));
    std::fs::write(&path, v.to_string()).unwrap();
    path
}

/// The fields of a refusal's details.
fn fields(v: &Value) -> Vec<String> {
    v["error"]["details"]
        .as_array()
        .unwrap_or_else(|| panic!("no details in {v}"))
        .iter()
        .map(|d| str_of(d, "field").to_string())
        .collect()
}

fn refused(env: &Env, args: &[&str], code: i32) -> Value {
    let (got, v) = env.json(args);
    assert_eq!(got, code, "{args:?}: {v}");
    v
}

/// A schema of a post: a title, tags of strings.
fn post_schema() -> Value {
    json!({
        "type": "object",
        "required": ["title"],
        "properties": {
            "title": {"type": "string"},
            "tags": {"type": "array", "items": {"type": "string"}}
        }
    })
}

fn add_post_updated(env: &Env, extra: &[&str]) -> Value {
    let schema = file(env, "schema.json", &post_schema());
    let example = file(
        env,
        "example.json",
        &json!({"title": "Hello", "tags": ["news"]}),
    );
    let mut args = vec![
        "event-types",
        "add",
        "post.updated",
        "--description",
        "A post was edited",
        "--schema",
        schema.to_str().unwrap(),
        "--example",
        example.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    data(env, &args)
}

#[test]
fn a_new_database_has_the_built_ins_and_the_operational_events() {
    let env = Env::new();
    env.create_key("seed", &[]);
    let list = data(&env, &["event-types", "list"]);
    let list = list.as_array().unwrap();
    assert_eq!(list.len(), 9, "{list:?}");
    for t in list {
        let name = str_of(t, "name");
        let keys: Vec<&String> = t.as_object().unwrap().keys().collect();
        assert_eq!(
            keys.len(),
            8,
            "name, description, schema, example, profile, deprecated, createdAt, updatedAt: {t}"
        );
        if OPERATIONAL.contains(&name) {
            assert_eq!(t["profile"], "none", "{t}");
            assert_eq!(t["description"], "emitted by keyhook itself", "{t}");
        } else {
            assert!(BUILT_IN.contains(&name), "{name}");
            assert_eq!(t["profile"], "optional", "{t}");
            assert_eq!(t["schema"], Value::Null);
        }
        assert_eq!(t["deprecated"], false);
        assert_eq!(t["createdAt"], "1970-01-01T00:00:00.000Z", "{t}");
    }
    let names = env.run(&["event-types", "list", "--names"]);
    assert_eq!(names.code, 0);
    let mut want: Vec<&str> = BUILT_IN.iter().chain(&OPERATIONAL).copied().collect();
    want.sort();
    assert_eq!(names.stdout.lines().collect::<Vec<_>>(), want);
}

#[test]
fn the_operator_adds_updates_deprecates_and_deletes_and_each_change_is_audited() {
    let env = Env::with_clock();
    let t = add_post_updated(&env, &["--profile-required"]);
    assert_eq!(t["name"], "post.updated");
    assert_eq!(t["profile"], "required");
    assert_eq!(t["schema"], post_schema());
    assert_eq!(t["example"], json!({"title": "Hello", "tags": ["news"]}));
    assert_eq!(data(&env, &["event-types", "show", "post.updated"]), t);

    let u = data(
        &env,
        &[
            "event-types",
            "update",
            "post.updated",
            "--description",
            "Edited",
            "--user-wide",
        ],
    );
    assert_eq!(u["description"], "Edited");
    assert_eq!(u["profile"], "none");
    assert_eq!(u["schema"], post_schema(), "kept");
    // The clock has not moved: updatedAt still moves forward.
    assert!(
        crate::common::millis(str_of(&u, "updatedAt"))
            > crate::common::millis(str_of(&t, "updatedAt"))
    );
    let c = data(
        &env,
        &[
            "event-types",
            "update",
            "post.updated",
            "--clear-schema",
            "--clear-example",
            "--clear-description",
            "--profile-optional",
        ],
    );
    assert_eq!(
        (
            &c["schema"],
            &c["example"],
            &c["description"],
            &c["profile"]
        ),
        (&Value::Null, &Value::Null, &Value::Null, &json!("optional"))
    );
    let v = refused(&env, &["event-types", "update", "post.updated"], 2);
    assert_eq!(fields(&v), ["body"]);
    let d = data(&env, &["event-types", "deprecate", "post.updated"]);
    assert_eq!(d["deprecated"], true);
    let gone = data(&env, &["event-types", "delete", "post.updated"]);
    assert_eq!(gone["name"], "post.updated");
    let v = refused(&env, &["event-types", "show", "post.updated"], 3);
    assert_eq!(v["error"]["code"], "NOT_FOUND");

    let (_, audit) = env.json(&["audit"]);
    let actions: Vec<(&str, &str)> = audit["data"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .map(|e| (str_of(e, "action"), str_of(e, "target")))
        .collect();
    assert_eq!(
        actions,
        [
            ("event_type.created", "post.updated"),
            ("event_type.updated", "post.updated"),
            ("event_type.updated", "post.updated"),
            ("event_type.deprecated", "post.updated"),
            ("event_type.deleted", "post.updated"),
        ]
    );
}

#[test]
fn names_are_checked_and_webhook_names_are_keyhooks() {
    let env = Env::new();
    for bad in [
        "Post.updated",
        "post..x",
        "post-x",
        &format!("a.{}", "b".repeat(63)),
    ] {
        let r = env.run(&["event-types", "add", bad]);
        r.assert_error(2);
        assert!(
            r.stderr.contains("keyhook: NAME: must be lowercase words"),
            "{r:?}"
        );
    }
    for reserved in ["webhook.anything", "webhook.test"] {
        let v = refused(&env, &["event-types", "add", reserved], 2);
        assert_eq!(fields(&v), ["NAME"]);
        assert!(
            v["error"]["message"].as_str().unwrap().contains("reserved"),
            "{v}"
        );
    }
    data(&env, &["event-types", "add", "post.updated"]);
    let v = refused(&env, &["event-types", "add", "post.updated"], 4);
    assert_eq!(v["error"]["code"], "CONFLICT");
    // Operational types are keyhook's: not changed, deprecated or deleted.
    for args in [
        &[
            "event-types",
            "update",
            "webhook.disabled",
            "--description",
            "x",
        ][..],
        &["event-types", "deprecate", "delivery.exhausted"],
        &["event-types", "delete", "webhook.disabled"],
    ] {
        let v = refused(&env, args, 4);
        assert_eq!(v["error"]["code"], "CONFLICT", "{args:?}");
    }
}

#[test]
fn a_new_type_is_subscribed_to_and_emitted_once_the_catalog_has_it() {
    let env = Env::new();
    let r = env.run(&[
        "--allow-private-targets",
        "webhooks",
        "create",
        "--url",
        "http://127.0.0.1:9/h",
        "--event",
        "post.updated",
    ]);
    r.assert_error(2);
    assert!(
        r.stderr
            .contains("--event[0]: unknown event \"post.updated\"; known events: "),
        "{r:?}"
    );
    let v = refused(&env, &["events", "emit", "post.updated"], 2);
    assert_eq!(fields(&v), ["event"]);
    data(&env, &["event-types", "add", "post.updated"]);
    env.create_webhook("http://127.0.0.1:9/h", "post.updated");
    let e = data(&env, &["events", "emit", "post.updated", "--data", "{}"]);
    assert_eq!(e["deliveries"], 1);
}

#[test]
fn operational_events_are_subscribed_to_but_never_emitted_by_a_client() {
    let env = Env::new();
    let key = env.create_key("ci", &[]);
    let w = env.create_webhook("http://127.0.0.1:9/h", "webhook.disabled");
    assert_eq!(w["events"], json!(["webhook.disabled"]));
    for name in OPERATIONAL {
        let v = refused(&env, &["events", "emit", name], 2);
        assert_eq!(fields(&v), ["event"], "{v}");
        assert!(v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("keyhook itself"));
    }
    let server = Server::start(&env);
    let r = server.post_json(
        "/api/v1/events",
        str_of(&key, "key"),
        &json!({"event": "delivery.exhausted", "data": {}}),
    );
    assert_eq!(r.status, 400, "{r:?}");
    assert_eq!(fields(&r.json()), ["event"]);
    assert_eq!(env.count_rows("events"), 0);
}

#[test]
fn profile_rules_refuse_on_profile_id_in_the_cli_and_over_http() {
    let env = Env::new();
    let key = env.create_key("ci", &[]);
    data(
        &env,
        &["event-types", "add", "post.updated", "--profile-required"],
    );
    data(
        &env,
        &["event-types", "add", "billing.closed", "--user-wide"],
    );
    let v = refused(&env, &["events", "emit", "post.updated"], 2);
    assert_eq!(fields(&v), ["profileId"]);
    let v = refused(
        &env,
        &["events", "emit", "billing.closed", "--profile", "a"],
        2,
    );
    assert_eq!(fields(&v), ["profileId"]);
    data(&env, &["events", "emit", "post.updated", "--profile", "a"]);
    data(&env, &["events", "emit", "billing.closed"]);
    // The built-ins keep an optional profile.
    data(&env, &["events", "emit", "post.published"]);
    data(
        &env,
        &["events", "emit", "post.published", "--profile", "a"],
    );

    let server = Server::start(&env);
    let k = str_of(&key, "key");
    for body in [
        json!({"event": "post.updated", "data": {}}),
        json!({"event": "billing.closed", "profileId": "a"}),
    ] {
        let r = server.post_json("/api/v1/events", k, &body);
        assert_eq!(r.status, 400, "{body}: {r:?}");
        assert_eq!(r.json()["error"]["code"], "VALIDATION_ERROR");
        assert_eq!(fields(&r.json()), ["profileId"], "{body}");
    }
    let r = server.post_json(
        "/api/v1/events",
        k,
        &json!({"event": "post.updated", "profileId": "a"}),
    );
    assert_eq!(r.status, 202, "{r:?}");
}

#[test]
fn a_deprecated_type_takes_no_new_subscriptions_and_keeps_delivering() {
    let env = Env::new();
    data(&env, &["event-types", "add", "post.updated"]);
    let w = env.create_webhook("http://127.0.0.1:9/h", "post.updated");
    let id = str_of(&w, "id");
    data(&env, &["event-types", "deprecate", "post.updated"]);
    let listed = data(&env, &["event-types", "list"]);
    let t = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "post.updated")
        .unwrap()
        .clone();
    assert_eq!(t["deprecated"], true);
    let table = env.run(&["event-types", "list"]);
    assert!(
        table
            .stdout
            .lines()
            .any(|l| l.contains("post.updated") && l.contains("yes")),
        "{}",
        table.stdout
    );

    let r = env.run(&[
        "--allow-private-targets",
        "webhooks",
        "create",
        "--url",
        "http://127.0.0.1:9/other",
        "--event",
        "post.published",
        "--event",
        "post.updated",
    ]);
    r.assert_error(2);
    assert!(
        r.stderr.contains("--event[1]: post.updated is deprecated"),
        "{r:?}"
    );
    let other = env.create_webhook("http://127.0.0.1:9/other", "post.published");
    let v = refused(
        &env,
        &[
            "webhooks",
            "update",
            str_of(&other, "id"),
            "--event",
            "post.updated",
        ],
        2,
    );
    assert_eq!(fields(&v), ["events[0]"]);
    // The webhook that had it keeps it, also when its list changes.
    data(
        &env,
        &[
            "webhooks",
            "update",
            id,
            "--event",
            "post.updated",
            "--event",
            "post.published",
        ],
    );
    let e = data(&env, &["events", "emit", "post.updated"]);
    assert_eq!(e["deliveries"], 1, "existing subscriptions keep receiving");
}

#[test]
fn delete_is_refused_while_used_and_for_built_ins() {
    let env = Env::new();
    data(&env, &["event-types", "add", "post.updated"]);
    let w = env.create_webhook("http://127.0.0.1:9/h", "post.updated");
    let v = refused(&env, &["event-types", "delete", "post.updated"], 4);
    assert_eq!(v["error"]["code"], "CONFLICT");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("1 webhook subscribes"),
        "{v}"
    );
    data(&env, &["events", "emit", "post.updated"]);
    // No webhook subscribes any more, but a delivery of it is pending.
    data(
        &env,
        &[
            "webhooks",
            "update",
            str_of(&w, "id"),
            "--event",
            "post.published",
        ],
    );
    let v = refused(&env, &["event-types", "delete", "post.updated"], 4);
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("1 delivery pending"),
        "{v}"
    );
    env.sql("UPDATE deliveries SET state = 'delivered'");
    data(&env, &["event-types", "delete", "post.updated"]);
    for name in BUILT_IN {
        let v = refused(&env, &["event-types", "delete", name], 4);
        assert!(
            v["error"]["message"].as_str().unwrap().contains("built in"),
            "{v}"
        );
    }
    data(&env, &["event-types", "deprecate", "post.failed"]);
}

#[test]
fn a_schema_is_checked_when_added_and_data_is_refused_field_by_field() {
    let env = Env::new();
    let key = env.create_key("ci", &[]);
    let bad = file(&env, "bad.json", &json!({"type": 5}));
    let v = refused(
        &env,
        &[
            "event-types",
            "add",
            "post.updated",
            "--schema",
            bad.to_str().unwrap(),
        ],
        2,
    );
    assert_eq!(fields(&v), ["schema"]);
    let big = file(
        &env,
        "big.json",
        &json!({"description": "x".repeat(70_000)}),
    );
    let r = env.run(&[
        "event-types",
        "add",
        "post.updated",
        "--schema",
        big.to_str().unwrap(),
    ]);
    r.assert_error(2);
    assert!(
        r.stderr.contains("--schema: is larger than 65536 bytes"),
        "{r:?}"
    );
    let schema = file(&env, "s.json", &post_schema());
    let wrong = file(&env, "wrong.json", &json!({"tags": [1]}));
    let v = refused(
        &env,
        &[
            "event-types",
            "add",
            "post.updated",
            "--schema",
            schema.to_str().unwrap(),
            "--example",
            wrong.to_str().unwrap(),
        ],
        2,
    );
    assert_eq!(fields(&v), ["example", "example"], "{v}");
    assert_eq!(env.run(&["event-types", "show", "post.updated"]).code, 3);

    add_post_updated(&env, &[]);
    let v = refused(
        &env,
        &[
            "events",
            "emit",
            "post.updated",
            "--data",
            r#"{"tags": ["a", "b", 3]}"#,
        ],
        2,
    );
    assert_eq!(fields(&v), ["data.tags[2]", "data.title"], "{v}");
    let many: Vec<i64> = (0..50).collect();
    let data = json!({"title": "t", "tags": many}).to_string();
    let v = refused(
        &env,
        &["events", "emit", "post.updated", "--data", &data],
        2,
    );
    assert_eq!(fields(&v).len(), 20);
    assert_eq!(fields(&v)[0], "data.tags[0]");

    let server = Server::start(&env);
    let r = server.post_json(
        "/api/v1/events",
        str_of(&key, "key"),
        &json!({"event": "post.updated", "data": {"title": 7}}),
    );
    assert_eq!(r.status, 400, "{r:?}");
    assert_eq!(r.json()["error"]["code"], "VALIDATION_ERROR");
    assert_eq!(fields(&r.json()), ["data.title"]);
    let r = server.post_json(
        "/api/v1/events",
        str_of(&key, "key"),
        &json!({"event": "post.updated", "data": {"title": "ok"}}),
    );
    assert_eq!(r.status, 202, "{r:?}");
    assert_eq!(env.count_rows("events"), 1);
}

#[test]
fn every_key_reads_the_catalog_over_http_and_none_changes_it() {
    let env = Env::new();
    let scoped = env.create_key("ro", &["--permission", "readonly", "--profile", "brand-a"]);
    add_post_updated(&env, &["--profile-required"]);
    let server = Server::start(&env);
    let k = str_of(&scoped, "key");
    let r = server.get("/api/v1/event-types", k);
    assert_eq!(r.status, 200, "{r:?}");
    let cli = data(&env, &["event-types", "list"]);
    assert_eq!(r.data(), cli, "the CLI's --json is what HTTP sends");
    let r = server.get("/api/v1/event-types/post.updated", k);
    assert_eq!(r.status, 200);
    assert_eq!(
        r.data(),
        data(&env, &["event-types", "show", "post.updated"])
    );
    let r = server.get("/api/v1/event-types/post.nothing", k);
    assert_eq!(r.status, 404);
    assert_eq!(r.json()["error"]["code"], "NOT_FOUND");
    let writer = env.create_key("rw", &[]);
    for method in ["POST", "PATCH", "DELETE", "PUT"] {
        let r = server.call(
            method,
            "/api/v1/event-types/post.updated",
            Some(str_of(&writer, "key")),
        );
        assert_eq!(r.status, 405, "{method}: {r:?}");
    }
    assert_eq!(server.call("GET", "/api/v1/event-types", None).status, 401);
}

#[test]
fn a_running_server_sees_each_catalog_change_on_the_next_request() {
    let env = Env::with_clock();
    let key = env.create_key("ci", &[]);
    let k = str_of(&key, "key");
    let server = Server::start(&env);
    let emit = |data: Value| {
        server
            .post_json(
                "/api/v1/events",
                k,
                &json!({"event": "post.updated", "data": data}),
            )
            .status
    };
    assert_eq!(emit(json!({})), 400, "not in the catalog yet");
    data(&env, &["event-types", "add", "post.updated"]);
    assert_eq!(emit(json!({})), 202);
    let schema = file(&env, "s.json", &post_schema());
    data(
        &env,
        &[
            "event-types",
            "update",
            "post.updated",
            "--schema",
            schema.to_str().unwrap(),
        ],
    );
    assert_eq!(emit(json!({})), 400, "the schema, on the next request");
    assert_eq!(emit(json!({"title": "t"})), 202);
    // Another schema at the same moment of the clock replaces the compiled one.
    let only_tags = file(
        &env,
        "t.json",
        &json!({"type": "object", "required": ["tags"]}),
    );
    data(
        &env,
        &[
            "event-types",
            "update",
            "post.updated",
            "--schema",
            only_tags.to_str().unwrap(),
        ],
    );
    assert_eq!(emit(json!({"title": "t"})), 400);
    assert_eq!(emit(json!({"tags": []})), 202);
    data(
        &env,
        &["event-types", "update", "post.updated", "--clear-schema"],
    );
    assert_eq!(emit(json!({"x": 1})), 202);
}

#[test]
fn trigger_sends_the_example_with_overrides_through_the_emit_checks() {
    let env = Env::new();
    data(&env, &["event-types", "add", "post.updated"]);
    let r = env.run(&["events", "trigger", "post.updated"]);
    r.assert_error(2);
    assert!(
        r.stderr
            .contains("keyhook event-types update post.updated --example FILE"),
        "{r:?}"
    );
    data(&env, &["event-types", "delete", "post.updated"]);
    add_post_updated(&env, &["--profile-required"]);
    let rx = Receiver::start();
    env.create_webhook(&rx.url("/h"), "post.updated");
    let v = refused(&env, &["events", "trigger", "post.updated"], 2);
    assert_eq!(fields(&v), ["profileId"], "the emit rules apply");
    let v = refused(
        &env,
        &[
            "events",
            "trigger",
            "post.updated",
            "--profile",
            "a",
            "--set",
            "title=5",
        ],
        2,
    );
    assert_eq!(
        fields(&v),
        ["data.title"],
        "VALUE 5 is JSON, and the schema applies"
    );
    let v = refused(
        &env,
        &[
            "events",
            "trigger",
            "post.updated",
            "--profile",
            "a",
            "--set",
            "tags[9]=x",
        ],
        2,
    );
    assert_eq!(fields(&v), ["set"]);
    let e = data(
        &env,
        &[
            "events",
            "trigger",
            "post.updated",
            "--profile",
            "a",
            "--set",
            "title=Hi there",
            "--set",
            "tags[1]=breaking",
            "--set",
            "draft=false",
        ],
    );
    assert_eq!(e["deliveries"], 1);
    env.deliver_once();
    let got = rx.wait_for(1, Duration::from_secs(10));
    let body = got[0].json();
    assert_eq!(body["profileId"], "a");
    assert_eq!(
        body["data"],
        json!({"title": "Hi there", "tags": ["news", "breaking"], "draft": false})
    );
}

/// `{"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}`.
fn cyclic_schema() -> Value {
    json!({"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"})
}

/// 2 KB: 30 levels of `allOf: [{$ref: next}, {$ref: next}]`, 2^30 applications.
fn doubling_schema() -> Value {
    let mut defs = serde_json::Map::new();
    for i in 0..30 {
        let next = format!("#/$defs/l{}", i + 1);
        defs.insert(
            format!("l{i}"),
            json!({"allOf": [{"$ref": next}, {"$ref": next}]}),
        );
    }
    defs.insert("l30".into(), json!({"type": "object"}));
    json!({"$defs": defs, "$ref": "#/$defs/l0"})
}

#[test]
fn schemas_whose_check_never_ends_or_of_another_draft_are_refused_saying_why() {
    let env = Env::new();
    data(&env, &["event-types", "add", "post.updated"]);
    let cases = [
        (cyclic_schema(), "cycle that never descends into the data"),
        (
            doubling_schema(),
            "applies too many subschemas to one value",
        ),
        (
            json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object"}),
            "only JSON Schema draft 2020-12 is supported",
        ),
    ];
    for (schema, says) in cases {
        let f = file(&env, "s.json", &schema);
        let path = f.to_str().unwrap();
        for args in [
            vec!["event-types", "add", "post.other", "--schema", path],
            vec!["event-types", "update", "post.updated", "--schema", path],
        ] {
            let v = refused(&env, &args, 2);
            assert_eq!(fields(&v), ["schema"], "{v}");
            let message = str_of(&v["error"]["details"][0], "message");
            assert!(message.contains(says), "{args:?}: {v}");
        }
    }
    assert_eq!(env.run(&["event-types", "show", "post.other"]).code, 3);
    assert!(data(&env, &["event-types", "show", "post.updated"])["schema"].is_null());
}

#[test]
fn a_tree_schema_checks_deep_data_in_the_cli_and_over_http() {
    let env = Env::new();
    let key = env.create_key("ci", &[]);
    let tree = json!({"$defs": {"node": {"type": "object", "required": ["name"], "properties": {
        "name": {"type": "string"},
        "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}
    }}}, "$ref": "#/$defs/node"});
    let f = file(&env, "tree.json", &tree);
    data(
        &env,
        &[
            "event-types",
            "add",
            "comment.thread",
            "--schema",
            f.to_str().unwrap(),
        ],
    );
    let nest = |leaf: Value| {
        let mut d = leaf;
        for i in 0..50 {
            d = json!({"name": format!("reply {i}"), "children": [d, {"name": "sibling"}]});
        }
        d
    };
    let good = nest(json!({"name": "leaf"})).to_string();
    data(&env, &["events", "emit", "comment.thread", "--data", &good]);
    let bad = nest(json!({"name": 7})).to_string();
    let v = refused(
        &env,
        &["events", "emit", "comment.thread", "--data", &bad],
        2,
    );
    assert_eq!(fields(&v).len(), 1, "{v}");
    assert!(fields(&v)[0].ends_with("children[0].name"), "{v}");
    let server = Server::start(&env);
    let r = server.post_json(
        "/api/v1/events",
        str_of(&key, "key"),
        &json!({"event": "comment.thread", "data": nest(json!({"name": "leaf"}))}),
    );
    assert_eq!(r.status, 202, "{r:?}");
}

#[test]
fn an_old_database_s_hostile_schemas_refuse_emits_and_the_server_stays_up() {
    let env = Env::new();
    let key = env.create_key("ci", &[]);
    let k = str_of(&key, "key");
    add_post_updated(&env, &[]);
    // As an older keyhook took them: straight into the database.
    for (name, schema) in [
        ("post.cycle", cyclic_schema()),
        ("post.bomb", doubling_schema()),
    ] {
        env.sql(&format!(
            "INSERT INTO event_types (name, schema, profile, created_at, updated_at) \
             VALUES ('{name}', '{schema}', 'optional', 1, 1)"
        ));
    }
    let server = Server::start(&env);
    for (name, says) in [
        ("post.cycle", "cannot be checked"),
        ("post.bomb", "too much work"),
    ] {
        for _ in 0..2 {
            let r = server.post_json(
                "/api/v1/events",
                k,
                &json!({"event": name, "data": {"title": "t"}}),
            );
            assert_eq!(r.status, 400, "{name}: {r:?}");
            assert_eq!(r.json()["error"]["code"], "VALIDATION_ERROR");
            assert_eq!(fields(&r.json()), ["data"], "{r:?}");
            let message = str_of(&r.json()["error"]["details"][0], "message").to_string();
            assert!(message.contains(says), "{message}");
            assert!(message.contains(name), "{message}");
        }
        let v = refused(&env, &["events", "emit", name, "--data", "{}"], 2);
        assert_eq!(fields(&v), ["data"], "{v}");
    }
    // The same server still answers.
    let r = server.post_json(
        "/api/v1/events",
        k,
        &json!({"event": "post.updated", "data": {"title": "still here"}}),
    );
    assert_eq!(r.status, 202, "{r:?}");
    assert_eq!(server.get("/api/v1/event-types", k).status, 200);
    assert_eq!(env.count_rows("events"), 1);
    // The operator changes such a type only by replacing or clearing its schema.
    let v = refused(
        &env,
        &["event-types", "update", "post.cycle", "--description", "x"],
        2,
    );
    assert_eq!(fields(&v), ["schema"], "{v}");
    data(
        &env,
        &["event-types", "update", "post.cycle", "--clear-schema"],
    );
    data(&env, &["events", "emit", "post.cycle", "--data", "{}"]);
}

#[test]
fn const_compares_integers_past_2_53_exactly() {
    let env = Env::new();
    // serde_json keeps an integer past 2^53 exactly (a u64), in the file as here.
    let schema = json!({"type": "object", "properties": {"id": {"const": 9007199254740993u64},
        "big": {"enum": [9007199254740993u64]}}});
    let path = file(&env, "const.json", &schema);
    data(
        &env,
        &[
            "event-types",
            "add",
            "post.updated",
            "--schema",
            path.to_str().unwrap(),
        ],
    );
    let emit = |data: &'static str| vec!["events", "emit", "post.updated", "--data", data];
    data(&env, &emit(r#"{"id":9007199254740993}"#));
    for (data, field) in [
        (r#"{"id":9007199254740992}"#, "data.id"),
        (r#"{"big":9007199254740992}"#, "data.big"),
    ] {
        let v = refused(&env, &emit(data), 2);
        assert_eq!(fields(&v), [field], "{v}");
    }
}
