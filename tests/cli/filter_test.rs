//! `keyhook webhooks filter-test EXPR [--event NAME] [--data JSON] [--profile ID]` (CONTRACT §10.1):
//! an operator tries a filter before saving it. The verdict and the exit status (0 true, 1
//! false or an evaluation error, 2 refused or invalid input), `--json`, the catalog's example
//! as the default data, and that nothing is stored. Every test runs on SQLite and again on
//! PostgreSQL (tests/cli/backends.rs).
//!
//! The filters here have the same verdict under any CEL engine keyhook has had (strings,
//! booleans, a missing key, a syntax error), so that these tests hold across the engine.

use serde_json::{json, Value};

use crate::common::{str_of, Env, Run};

/// A database with the catalog and a `post.updated` type whose example is `example`.
fn env_with_example(example: &Value) -> Env {
    env_with_type("--example", example)
}

/// An environment whose catalog holds `post.updated` with the schema `{title: string}`.
fn env_with_title_schema() -> Env {
    env_with_type(
        "--schema",
        &json!({"type": "object", "properties": {"title": {"type": "string"}}}),
    )
}

/// An environment whose catalog holds `post.updated`, added with `flag` (`--example` or
/// `--schema`) naming a file that holds `document`.
fn env_with_type(flag: &str, document: &Value) -> Env {
    let env = Env::new();
    let path = env.dir.path().join("document.json");
    std::fs::write(&path, document.to_string()).unwrap();
    let r = env.run(&[
        "event-types",
        "add",
        "post.updated",
        flag,
        path.to_str().unwrap(),
    ]);
    assert_eq!(r.code, 0, "{r:#?}");
    env
}

fn filter_test(env: &Env, args: &[&str]) -> Run {
    env.run(&[&["webhooks", "filter-test"], args].concat())
}

fn filter_test_json(env: &Env, args: &[&str]) -> (i32, Value) {
    env.json(&[&["webhooks", "filter-test"], args].concat())
}

/// The fields of a refusal's details.
fn fields(v: &Value) -> Vec<&str> {
    v["error"]["details"]
        .as_array()
        .unwrap_or_else(|| panic!("no details in {v}"))
        .iter()
        .map(|d| str_of(d, "field"))
        .collect()
}

/// True exits 0 and prints `true`; false exits 1 and prints `false`, with nothing on stderr
/// (a verdict, not an error). `--json` is the trial in the `{data: ...}` envelope.
#[test]
fn the_verdict_is_printed_and_is_the_exit_status() {
    let env = env_with_example(&json!({}));
    let data = r#"{"title": "Hello", "tags": ["news", "breaking"]}"#;
    let yes = r#"data.tags.exists(t, t == "breaking") && data.title.startsWith("He")"#;
    let r = filter_test(&env, &[yes, "--data", data]);
    assert_eq!(
        (r.code, r.stdout.as_str(), r.stderr.as_str()),
        (0, "true\n", ""),
        "{r:#?}"
    );
    let no = r#"data.tags.exists(t, t == "sport")"#;
    let r = filter_test(&env, &[no, "--data", data]);
    assert_eq!(
        (r.code, r.stdout.as_str(), r.stderr.as_str()),
        (1, "false\n", ""),
        "{r:#?}"
    );

    let (code, v) = filter_test_json(&env, &[yes, "--data", data, "--event", "post.failed"]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(
        v,
        json!({"data": {
            "filter": yes,
            "event": "post.failed",
            "profileId": null,
            "data": {"title": "Hello", "tags": ["news", "breaking"]},
            "result": true,
            "error": null,
        }})
    );
    let (code, v) = filter_test_json(&env, &[no, "--data", data]);
    assert_eq!((code, &v["data"]["result"]), (1, &json!(false)), "{v}");
}

/// `event` is --event (post.published by default) and `profileId` is --profile, null
/// without it.
#[test]
fn event_and_profile_id_come_from_the_flags() {
    let env = env_with_example(&json!({}));
    let by_default = filter_test(&env, &[r#"event == "post.published""#, "--data", "{}"]);
    assert_eq!((by_default.code, by_default.stdout.as_str()), (0, "true\n"));
    let other = filter_test(
        &env,
        &[
            r#"event == "post.published""#,
            "--data",
            "{}",
            "--event",
            "post.failed",
        ],
    );
    assert_eq!((other.code, other.stdout.as_str()), (1, "false\n"));

    let f = r#"profileId == "brand-a""#;
    let r = filter_test(&env, &[f, "--data", "{}", "--profile", "brand-a"]);
    assert_eq!((r.code, r.stdout.as_str()), (0, "true\n"), "{r:#?}");
    let r = filter_test(&env, &[f, "--data", "{}", "--profile", "brand-b"]);
    assert_eq!((r.code, r.stdout.as_str()), (1, "false\n"), "{r:#?}");
    let r = filter_test(&env, &["profileId == null", "--data", "{}"]);
    assert_eq!((r.code, r.stdout.as_str()), (0, "true\n"), "{r:#?}");
    let (code, v) = filter_test_json(&env, &[f, "--data", "{}", "--profile", "brand-a"]);
    assert_eq!(
        (code, &v["data"]["profileId"]),
        (0, &json!("brand-a")),
        "{v}"
    );
}

/// A filter that fails on the event (a key the data lacks) prints `error`, says on stderr
/// that a webhook with it skips the event, and exits 1; `--json` has `result: null` and the
/// kind of error.
#[test]
fn an_evaluation_error_says_the_event_would_be_skipped() {
    let env = env_with_example(&json!({}));
    let r = filter_test(&env, &["data.missing == 1", "--data", r#"{"title": "x"}"#]);
    assert_eq!((r.code, r.stdout.as_str()), (1, "error\n"), "{r:#?}");
    r.assert_error(1);
    assert!(r.stderr.contains("skips the event"), "{}", r.stderr);

    let (code, v) = filter_test_json(&env, &["data.missing == 1", "--data", "{}"]);
    assert_eq!((code, &v["data"]["result"]), (1, &Value::Null), "{v}");
    assert!(
        v["data"]["error"].as_str().is_some_and(|e| !e.is_empty()),
        "{v}"
    );
}

/// A filter refused when written is refused here the same way, exit 2 with the message on
/// `EXPR`, before any database is opened: none is created.
#[test]
fn a_filter_refused_when_written_is_refused() {
    let env = Env::new();
    for f in ["data.title ==", "", "data.tags.exists(t,"] {
        let r = filter_test(&env, &[f, "--data", "{}"]);
        r.assert_error(2);
        assert!(r.stderr.starts_with("keyhook: EXPR: "), "{f}: {}", r.stderr);
        let (code, v) = filter_test_json(&env, &[f, "--data", "{}"]);
        assert_eq!((code, fields(&v)), (2, vec!["EXPR"]), "{f}: {v}");
        // The message is the one `webhooks create --filter` gives.
        let create = env.json(&[
            "--allow-private-targets",
            "webhooks",
            "create",
            "--url",
            "http://127.0.0.1:9/a",
            "--event",
            "post.published",
            "--filter",
            f,
        ]);
        assert_eq!(create.0, 2, "{}", create.1);
        assert_eq!(
            v["error"]["details"][0]["message"],
            create.1["error"]["details"][0]["message"]
        );
    }
    // `webhooks create` made the database; filter-test made nothing.
    assert_eq!(env.count_rows("webhooks"), 0);
    let fresh = Env::new();
    filter_test(&fresh, &["data.title ==", "--data", "{}"]).assert_error(2);
    assert!(!fresh.db_exists());
}

/// An event type that is not in the catalog, a name that is not one, and the test event are
/// refused on `--event` (exit 2), the first with the known names.
#[test]
fn the_event_type_must_be_in_the_catalog() {
    let env = env_with_example(&json!({}));
    let (code, v) = filter_test_json(&env, &["true", "--event", "post.nope", "--data", "{}"]);
    assert_eq!((code, fields(&v)), (2, vec!["--event"]), "{v}");
    let message = v["error"]["details"][0]["message"].as_str().unwrap();
    assert!(
        message.contains("post.nope") && message.contains("post.updated"),
        "{message}"
    );
    for bad in ["Post", "webhook.test"] {
        let (code, v) = filter_test_json(&env, &["true", "--event", bad, "--data", "{}"]);
        assert_eq!((code, fields(&v)), (2, vec!["--event"]), "{bad}: {v}");
    }
    // The operational events go through filters too: they can be tried.
    let r = filter_test(
        &env,
        &[
            "has(data.webhookId)",
            "--event",
            "webhook.disabled",
            "--data",
            r#"{"webhookId": "w"}"#,
        ],
    );
    assert_eq!((r.code, r.stdout.as_str()), (0, "true\n"), "{r:#?}");
}

/// `--data` is read as `events emit --data` reads it (JSON, @FILE or -): not JSON, not an
/// object, a repeated key, a missing file are refused on `--data` (exit 2), every problem of
/// the input at once; data its type's schema refuses is refused as emit refuses it.
#[test]
fn bad_data_is_refused() {
    let env = env_with_title_schema();
    let missing = format!("@{}", env.dir.path().join("nope.json").display());
    for data in ["{", "[1]", r#"{"a": 1, "a": 2}"#, "5", missing.as_str()] {
        let (code, v) = filter_test_json(&env, &["true", "--data", data]);
        assert_eq!((code, fields(&v)), (2, vec!["data"]), "{data}: {v}");
        let r = filter_test(&env, &["true", "--data", data]);
        r.assert_error(2);
        assert!(r.stderr.starts_with("keyhook: --data: "), "{}", r.stderr);
    }
    let (code, v) = filter_test_json(&env, &["data.title ==", "--data", "{", "--event", "X"]);
    assert_eq!(
        (code, fields(&v)),
        (2, vec!["EXPR", "--event", "data"]),
        "{v}"
    );

    let (code, v) = filter_test_json(
        &env,
        &[
            "true",
            "--event",
            "post.updated",
            "--data",
            r#"{"title": 5}"#,
        ],
    );
    assert_eq!((code, fields(&v)), (2, vec!["data.title"]), "{v}");

    // @FILE and - (standard input) as emit takes them.
    let file = env.dir.path().join("data.json");
    std::fs::write(&file, r#"{"title": "From a file"}"#).unwrap();
    let at = format!("@{}", file.display());
    let f = r#"data.title == "From a file""#;
    let r = filter_test(&env, &[f, "--data", &at, "--event", "post.updated"]);
    assert_eq!((r.code, r.stdout.as_str()), (0, "true\n"), "{r:#?}");
    let out = env
        .cmd()
        .args(["webhooks", "filter-test", f, "--data", "-"])
        .write_stdin(r#"{"title": "From a file"}"#)
        .output()
        .unwrap();
    assert_eq!(
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).as_ref()
        ),
        (Some(0), "true\n")
    );
}

/// Without `--data` the data is the event type's example in the catalog; a type without one
/// (the built-ins have none) is refused on `--data`, saying how to add one.
#[test]
fn the_catalog_example_is_the_default_data() {
    let env = env_with_example(&json!({"title": "Hello", "tags": ["news"]}));
    let yes = r#"data.title == "Hello" && "news" in data.tags"#;
    let r = filter_test(&env, &[yes, "--event", "post.updated"]);
    assert_eq!((r.code, r.stdout.as_str()), (0, "true\n"), "{r:#?}");
    let r = filter_test(&env, &[r#"data.title == "Bye""#, "--event", "post.updated"]);
    assert_eq!((r.code, r.stdout.as_str()), (1, "false\n"), "{r:#?}");
    let (code, v) = filter_test_json(&env, &[yes, "--event", "post.updated"]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(
        v["data"]["data"],
        json!({"title": "Hello", "tags": ["news"]})
    );
    // --data replaces the example.
    let r = filter_test(&env, &[yes, "--event", "post.updated", "--data", "{}"]);
    assert_eq!(r.code, 1, "{r:#?}");

    let (code, v) = filter_test_json(&env, &["true"]);
    assert_eq!((code, fields(&v)), (2, vec!["data"]), "{v}");
    let message = v["error"]["details"][0]["message"].as_str().unwrap();
    assert!(
        message.contains("post.published has no example")
            && message.contains("keyhook event-types update post.published --example FILE"),
        "{message}"
    );
}

/// Trying a filter stores, queues and sends nothing, whatever the verdict; a database that
/// is not there is not created (exit 1, as any command reading one).
#[test]
fn nothing_is_stored_or_created() {
    let env = env_with_example(&json!({}));
    env.create_webhook("http://127.0.0.1:9/a", "post.published");
    let before: Vec<i64> = ["webhooks", "events", "deliveries", "audit_log"]
        .iter()
        .map(|t| env.count_rows(t))
        .collect();
    for f in ["true", "false", "data.missing == 1"] {
        filter_test(&env, &[f, "--data", "{}"]);
    }
    let after: Vec<i64> = ["webhooks", "events", "deliveries", "audit_log"]
        .iter()
        .map(|t| env.count_rows(t))
        .collect();
    assert_eq!(before, after);

    let fresh = Env::new();
    let r = filter_test(&fresh, &["true", "--data", "{}"]);
    r.assert_error(1);
    assert!(!fresh.db_exists());
}

/// A filter the event type's JSON Schema says can never hold is refused on EXPR (exit 2),
/// as `webhooks create --filter` refuses it: a misspelt field with the schema's name offered,
/// a string field compared with a number. A filter the schema allows is evaluated.
#[test]
fn a_filter_the_schema_refuses_is_refused() {
    let env = env_with_title_schema();
    let data = r#"{"title": "Hi"}"#;
    let args = |f: &'static str| ["--event", "post.updated", "--data", data, f];
    let (code, v) = filter_test_json(&env, &args(r#"data.titel == "Hi""#)[..]);
    assert_eq!((code, fields(&v)), (2, vec!["EXPR"]), "{v}");
    let message = str_of(&v["error"]["details"][0], "message");
    assert!(message.contains("did you mean `title`?"), "{message}");
    let (code, v) = filter_test_json(&env, &args("data.title == 5.0")[..]);
    assert_eq!((code, fields(&v)), (2, vec!["EXPR"]), "{v}");
    let r = filter_test(&env, &args(r#"data.title == "Hi""#)[..]);
    assert_eq!((r.code, r.stdout.as_str()), (0, "true\n"), "{r:#?}");
}
