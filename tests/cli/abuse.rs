//! Abuse: arbitrary JSON values, and arbitrary bytes, as the body of every POST and PATCH
//! endpoint of one running `keyhook serve`. Every answer must be a 2xx in the success envelope
//! or a 4xx whose body is exactly the error envelope; never a 5xx, never a connection closed
//! without an answer, never a panic in the server's log; and the server still answers
//! afterwards.
//!
//! The cases are random (proptest), a fixed number per endpoint; a failure prints the smallest
//! body proptest could shrink it to. Nothing here reaches any address but 127.0.0.1: the
//! server runs with --allow-private-targets so that webhooks on a closed loopback port can be
//! created, and every generated body's `url` that would point anywhere else is replaced by such
//! a URL before it is sent (see [`keep_on_loopback`]).

use keyhook::service::events::CATALOG;
use std::cell::RefCell;
use std::io::Read;
use std::time::{Duration, Instant};

use proptest::prelude::*;
use proptest::sample::select;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use serde_json::{json, Map, Number, Value};

use crate::common::{is_api_timestamp, key_of, Env};
use crate::server::Server;

/// Generated bodies per endpoint, for JSON values and again for raw bytes.
const CASES: u32 = 500;

/// The fields of every request body of the API.
const FIELDS: &[&str] = &[
    "name",
    "permission",
    "fullAccess",
    "profileIds",
    "expiresAt",
    "url",
    "events",
    "isActive",
    "event",
    "data",
    "profileId",
];
const KEY_FIELDS: &[&str] = &[
    "name",
    "permission",
    "fullAccess",
    "profileIds",
    "expiresAt",
    "rateLimit",
    "remainingUses",
];
// A webhook's scope (fullAccess, profileIds) comes in bodies of every field (`FIELDS`): in
// these, the random pairs of the two would refuse too many creates to meet the limit.
const CREATE_WEBHOOK_FIELDS: &[&str] = &["url", "events"];
const PATCH_WEBHOOK_FIELDS: &[&str] = &["url", "events", "isActive"];
const EVENT_FIELDS: &[&str] = &["event", "data", "profileId"];

/// Names that are not events one may subscribe to or emit: the test event and some that do
/// not exist. The real ones are keyhook's `CATALOG`.
const NOT_EVENTS: &[&str] = &["webhook.test", "post.*", "POST.PUBLISHED", ""];

/// Strings with a history of breaking parsers, besides the random ones.
const NASTY: &[&str] = &[
    "",
    " ",
    "\t\n",
    "\u{0}",
    "a\u{7}b",
    "\u{202e}evil",
    "\u{feff}bom",
    "\u{fffd}",
    "😀",
    "é",
    "readwrite",
    "readonly",
    "READWRITE",
    "null",
    "true",
    "0",
    "-1",
    "1e999",
    "kp_0000000000000000000000000000000000000000000000000000000000000000",
    "../../etc/passwd",
    "'; DROP TABLE api_keys; --",
    "%00",
    "${jndi:ldap://127.0.0.1/x}",
    "2030-01-01T00:00:00Z",
    "2000-01-01T00:00:00Z",
    "2030-01-01T00:00:00",
    "2030-02-30T00:00:00Z",
    "2030-06-30T23:59:60Z",
    "2099-12-31T23:59:59.999999999+14:00",
    "9999-12-31T23:59:59.999Z",
    "9999-12-31T23:59:59-23:59",
    "+275760-09-13T00:00:00Z",
    "0000-01-01T00:00:00Z",
    "1970-01-01T00:00:00Z",
];

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => prop::collection::vec(any::<char>(), 0..16).prop_map(String::from_iter),
        1 => prop::collection::vec(any::<char>(), 90..130).prop_map(String::from_iter),
        2 => select(NASTY).prop_map(String::from),
    ]
}

fn number() -> impl Strategy<Value = Value> {
    prop_oneof![
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_filter_map("JSON has no NaN or infinity", |f| {
            Number::from_f64(f).map(Value::Number)
        }),
        select(vec![
            json!(0),
            json!(-1),
            json!(i64::MIN),
            json!(i64::MAX),
            json!(u64::MAX),
            json!(-0.0),
            json!(1e308),
            json!(-1e308),
            json!(5e-324),
        ]),
    ]
}

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        number(),
        text().prop_map(Value::String),
    ]
}

/// Any JSON value, nested a few levels, with object keys biased toward the API's fields.
fn json_value() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((key(), inner), 0..6)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

fn key() -> impl Strategy<Value = String> {
    prop_oneof![3 => select(FIELDS).prop_map(String::from), 1 => text()]
}

/// A value for `field`: a good one (so that bodies get past validation and sometimes
/// succeed), a bad one of the right kind (so that the value checks run), or anything.
fn value_for(field: &'static str, url: &str) -> BoxedStrategy<Value> {
    let strings = |s: Vec<String>| select(s).prop_map(Value::String).boxed();
    let (good, bad): (BoxedStrategy<Value>, BoxedStrategy<Value>) = match field {
        "name" => (
            prop_oneof![
                Just(json!("ci deploy")),
                Just(json!("  padded  ")),
                Just(json!("é".repeat(100))),
                "[a-zA-Z0-9 ]{0,20}[a-z]".prop_map(Value::String),
            ]
            .boxed(),
            prop_oneof![
                text().prop_map(Value::String),
                Just(json!("x".repeat(101))),
                Just(json!("tab\there")),
            ]
            .boxed(),
        ),
        "permission" => (
            strings(vec!["readwrite".into(), "readonly".into()]),
            strings(vec!["admin".into(), "".into(), "READONLY".into()]),
        ),
        "fullAccess" | "isActive" => (
            any::<bool>().prop_map(Value::Bool).boxed(),
            select(vec![json!("true"), json!(1), json!(0)]).boxed(),
        ),
        "profileIds" => (
            prop::sample::subsequence(vec!["p1", "p2", "p3"], 0..3)
                .prop_map(|v| json!(v))
                .boxed(),
            prop::collection::vec(
                prop_oneof![
                    select(vec!["p1", "p1", " ", ""]).prop_map(String::from),
                    text(),
                ],
                0..4,
            )
            .prop_map(|v| json!(v))
            .boxed(),
        ),
        "profileId" => (
            strings(vec!["p1".into(), "brand-a".into(), "é".repeat(100)]),
            prop_oneof![
                text().prop_map(Value::String),
                Just(json!("")),
                Just(json!(" ")),
                Just(json!("x".repeat(101))),
                Just(json!(["p1"])),
            ]
            .boxed(),
        ),
        "rateLimit" => (
            strings(vec!["10/s".into(), "600/min".into(), "1/m".into()]),
            strings(vec![
                "0/s".into(),
                "10/h".into(),
                "fast".into(),
                "1000001/s".into(),
            ]),
        ),
        "remainingUses" => (
            select(vec![json!(1), json!(100), json!(9007199254740991_i64)]).boxed(),
            select(vec![
                json!(0),
                json!(-1),
                json!(1.5),
                json!("5"),
                json!(9007199254740992_i64),
            ])
            .boxed(),
        ),
        "expiresAt" => (
            strings(vec![
                "2099-01-01T00:00:00Z".into(),
                "2100-02-29T12:00:00.5+02:00".into(),
                "9999-12-31T23:59:59.999Z".into(),
                "9999-12-31T23:59:59-23:59".into(),
                "2200-06-30T23:59:60Z".into(),
            ]),
            text().prop_map(Value::String).boxed(),
        ),
        "url" => {
            let u = url.trim_end_matches('/').to_string();
            (
                strings(vec![
                    format!("{u}/hook"),
                    format!("{u}/hook?x=1&y=%20"),
                    u.replacen("http://", "HTTP://", 1),
                ]),
                strings(vec![
                    format!("{u}/hook#fragment"),
                    format!(" {u}/hook"),
                    format!("{u}/a b"),
                    format!("{u}/\u{e9}"),
                    u.replacen("http://", "ftp://", 1),
                    u.replacen("http://", "http://user:pass@", 1),
                    u.replacen("http://", "http:", 1),
                    format!("{u}/{}", "x".repeat(2100)),
                    "http://".into(),
                    "not a url".into(),
                ]),
            )
        }
        "events" => (
            prop::sample::subsequence(CATALOG, 1..4)
                .prop_map(|v| json!(v))
                .boxed(),
            prop::collection::vec(select([CATALOG, NOT_EVENTS].concat()), 0..5)
                .prop_map(|v| json!(v))
                .boxed(),
        ),
        "event" => (
            select(CATALOG).prop_map(|e| json!(e)).boxed(),
            select(NOT_EVENTS).prop_map(|e| json!(e)).boxed(),
        ),
        "data" => (
            json_value()
                .prop_map(|v| match v {
                    Value::Object(_) => v,
                    other => json!({ "value": other }),
                })
                .boxed(),
            json_value().boxed(),
        ),
        _ => unreachable!("no field {field}"),
    };
    prop_oneof![6 => good, 2 => bad, 1 => json_value()].boxed()
}

/// Objects of `fields` (each once, with plausible or random values), now and then with a
/// field of another endpoint or a random key.
fn object_of(fields: &'static [&'static str], url: &str) -> BoxedStrategy<Value> {
    let per_field: Vec<BoxedStrategy<Option<(String, Value)>>> = fields
        .iter()
        .map(|f| {
            prop::option::weighted(
                0.75,
                value_for(f, url).prop_map(move |v| (f.to_string(), v)),
            )
            .boxed()
        })
        .collect();
    let extra = prop::option::weighted(0.1, (key(), json_value()));
    (per_field, extra)
        .prop_map(|(fields, extra)| {
            let mut m: Map<String, Value> = fields.into_iter().flatten().collect();
            if let Some((k, v)) = extra {
                m.insert(k, v);
            }
            Value::Object(m)
        })
        .boxed()
}

/// A body for an endpoint whose fields are `fields`: mostly objects of those fields, some
/// objects of every field, some arbitrary JSON.
fn body_for(fields: &'static [&'static str], url: &str) -> BoxedStrategy<Value> {
    prop_oneof![
        5 => object_of(fields, url),
        2 => object_of(FIELDS, url),
        2 => json_value(),
    ]
    .boxed()
}

/// Bytes that are not (quite) JSON: random bytes, invalid UTF-8, lone surrogates, nesting
/// deeper than the parser allows, numbers out of range, trailing garbage.
fn raw_body() -> impl Strategy<Value = Vec<u8>> {
    let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n)).into_bytes();
    let fixed: Vec<Vec<u8>> = vec![
        b"".to_vec(),
        b"   ".to_vec(),
        b"\xff\xfe\xfd".to_vec(),
        b"{\"name\": \"\xc3\x28\"}".to_vec(),
        b"{\"name\": \"\xed\xa0\x80\"}".to_vec(),
        br#"{"name": "\ud800"}"#.to_vec(),
        br#"{"name": "\udc00\ud800"}"#.to_vec(),
        br#"{"name": "x", "name": "y"}"#.to_vec(),
        br#"{"name": "x"} {"name": "y"}"#.to_vec(),
        br#"{"name": "x"}garbage"#.to_vec(),
        b"\xef\xbb\xbf{\"name\": \"bom\"}".to_vec(),
        b"{\"name\": \"nul\x00\"}".to_vec(),
        b"{\"name\": \"x\"\x00}".to_vec(),
        br#"{"expiresAt": 1e999}"#.to_vec(),
        br#"{"fullAccess": 1e999999999}"#.to_vec(),
        br#"{"isActive": -}"#.to_vec(),
        format!("{{\"data\": {}}}", "9".repeat(5000)).into_bytes(),
        deep(127),
        deep(129),
        deep(20_000),
        format!("{}1{}", "{\"a\":".repeat(200), "}".repeat(200)).into_bytes(),
        b"[".repeat(60_000),
        b"{".to_vec(),
        b"\"unterminated".to_vec(),
        b"NaN".to_vec(),
        b"Infinity".to_vec(),
        b"'single'".to_vec(),
        b"{name: 1}".to_vec(),
        b"{\"name\": 1,}".to_vec(),
    ];
    prop_oneof![
        3 => prop::collection::vec(any::<u8>(), 0..3000),
        2 => select(fixed),
        // JSON with a few bytes changed.
        3 => (json_value(), prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..4))
            .prop_map(|(v, edits)| {
                let mut b = v.to_string().into_bytes();
                for (i, byte) in edits {
                    if !b.is_empty() {
                        let i = i.index(b.len());
                        b[i] = byte;
                    }
                }
                b
            }),
    ]
}

fn content_type() -> impl Strategy<Value = Option<&'static str>> {
    prop_oneof![
        12 => Just(Some("application/json")),
        1 => Just(Some("application/json; charset=utf-8")),
        1 => Just(Some("APPLICATION/JSON")),
        1 => Just(Some("text/plain")),
        1 => Just(Some("application/x-www-form-urlencoded")),
        1 => Just(None),
    ]
}

/// Replaces a `url` that names anything but `closed` (127.0.0.1 and a port nobody listens on)
/// with `closed`, so that no generated body can make the server send a delivery anywhere
/// else. Strings that are not URLs with a host stay: the server refuses them.
fn keep_on_loopback(body: &mut Value, closed: &str) {
    let closed_url = url::Url::parse(closed).expect("closed URL");
    let Some(Value::String(u)) = body.get_mut("url") else {
        return;
    };
    let Ok(parsed) = url::Url::parse(u) else {
        return;
    };
    let same_target = parsed.host_str() == closed_url.host_str()
        && parsed.port_or_known_default() == closed_url.port_or_known_default();
    if parsed.has_host() && !same_target {
        *u = format!("{closed}hook");
    }
}

/// One request and what came of it, or why nothing did.
struct Exchange {
    status: u16,
    body: Vec<u8>,
}

fn send(
    agent: &ureq::Agent,
    url: &str,
    method: &str,
    key: &str,
    content_type: Option<&str>,
    body: &[u8],
) -> Result<Exchange, String> {
    let mut rq = agent
        .request(method, url)
        .set("Authorization", &format!("Bearer {key}"));
    if let Some(ct) = content_type {
        rq = rq.set("Content-Type", ct);
    }
    let resp = match rq.send_bytes(body) {
        Ok(r) | Err(ureq::Error::Status(_, r)) => r,
        Err(e) => return Err(e.to_string()),
    };
    let status = resp.status();
    let mut bytes = Vec::new();
    resp.into_reader()
        .read_to_end(&mut bytes)
        .map_err(|e| format!("reading the response: {e}"))?;
    Ok(Exchange {
        status,
        body: bytes,
    })
}

/// Checks that an answer is a success envelope or exactly the error envelope, and returns it.
fn check(what: &str, answer: Result<Exchange, String>) -> Result<Exchange, TestCaseError> {
    let r = answer.map_err(|e| TestCaseError::fail(format!("{what}: no answer: {e}")))?;
    let text = String::from_utf8_lossy(&r.body).into_owned();
    let fail = |m: &str| {
        Err(TestCaseError::fail(format!(
            "{what}: {m}: {} {text}",
            r.status
        )))
    };
    match r.status {
        204 if r.body.is_empty() => return Ok(r),
        200..=299 => {
            let Ok(Value::Object(o)) = serde_json::from_slice::<Value>(&r.body) else {
                return fail("a success that is not a JSON object");
            };
            if o.keys().collect::<Vec<_>>() != ["data"] {
                return fail("a success envelope with more than data");
            }
            if let Some(bad) = bad_timestamp(&o["data"]) {
                return fail(&format!("{bad:?} is not an API timestamp"));
            }
        }
        400..=499 => {
            if let Err(m) = error_envelope(&r.body) {
                return fail(&m);
            }
        }
        _ => return fail("neither a 2xx nor a 4xx"),
    }
    Ok(r)
}

/// The first `...At` field of `v` (at any depth) that is neither null nor an RFC 3339 UTC
/// timestamp with milliseconds.
fn bad_timestamp(v: &Value) -> Option<String> {
    match v {
        Value::Object(o) => o.iter().find_map(|(k, v)| match v {
            Value::String(s) if k.ends_with("At") && !is_api_timestamp(s) => Some(s.clone()),
            _ => bad_timestamp(v),
        }),
        Value::Array(a) => a.iter().find_map(bad_timestamp),
        _ => None,
    }
}

/// `{"error": {"code", "message", "details": [{"field", "message"}...]}}` and nothing else.
fn error_envelope(body: &[u8]) -> Result<(), String> {
    let v: Value = serde_json::from_slice(body).map_err(|e| format!("not JSON: {e}"))?;
    let keys = |v: &Value| -> Option<Vec<String>> {
        let mut k: Vec<String> = v.as_object()?.keys().cloned().collect();
        k.sort();
        Some(k)
    };
    if keys(&v) != Some(vec!["error".into()]) {
        return Err("not {\"error\": ...} alone".into());
    }
    let e = &v["error"];
    if keys(e) != Some(vec!["code".into(), "details".into(), "message".into()]) {
        return Err("error is not exactly {code, message, details}".into());
    }
    let code = e["code"].as_str().unwrap_or("");
    if code.is_empty() || !code.bytes().all(|b| b.is_ascii_uppercase() || b == b'_') {
        return Err(format!("bad code {:?}", e["code"]));
    }
    if !e["message"].is_string() {
        return Err("message is not a string".into());
    }
    let details = e["details"].as_array().ok_or("details is not an array")?;
    for d in details {
        if keys(d) != Some(vec!["field".into(), "message".into()])
            || !d["field"].is_string()
            || !d["message"].is_string()
        {
            return Err(format!("bad detail {d}"));
        }
    }
    Ok(())
}

fn runner() -> TestRunner {
    TestRunner::new(Config {
        cases: CASES,
        failure_persistence: None,
        max_shrink_iters: 500,
        ..Config::default()
    })
}

/// Runs `cases` and panics with proptest's report (the shrunk input) if one fails.
fn run<S: Strategy>(name: &str, strategy: S, case: impl Fn(S::Value) -> Result<(), TestCaseError>)
where
    S::Value: std::fmt::Debug,
{
    let started = Instant::now();
    if let Err(e) = runner().run(&strategy, case) {
        panic!("{name}: {e}");
    }
    eprintln!("abuse: {name}: {CASES} cases in {:?}", started.elapsed());
}

#[test]
fn any_body_to_any_write_endpoint_gets_a_2xx_or_a_4xx_error_object() {
    let env = Env::new();
    // Keys of the user `owner` (who sends events and test pings), of `keeper`, who has the
    // 10 webhooks a user may have (so that a valid creation gets 409), and of the creators,
    // who delete each webhook they create (so that a valid creation gets 201).
    let owner = key_of(&env, "owner", &[]);
    let keeper = key_of(&env, "keeper", &[]);
    let creators: Vec<String> = (0..3)
        .map(|i| key_of(&env, &format!("creator{i}"), &[]))
        .collect();
    let server = Server::start_with(&env, &["--allow-private-targets"]);
    let agent = ureq::AgentBuilder::new()
        .timeout(Duration::from_secs(10))
        .redirects(0)
        .build();
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}/", l.local_addr().unwrap())
    };
    let api = |path: &str| server.url(&format!("/api/v1{path}"));

    // Two webhooks of `owner` on the closed port, the targets of PATCH and test pings.
    let mut hooks = Vec::new();
    for event in ["post.published", "post.failed"] {
        let r = server.post_json(
            "/api/v1/webhooks",
            &owner,
            &json!({"url": format!("{closed}hook"), "events": [event]}),
        );
        assert_eq!(r.status, 201, "{r:?}");
        hooks.push(r.data()["id"].as_str().unwrap().to_string());
    }
    // The keeper's ten; one of them is the id that exists but is another user's.
    let mut foreign = String::new();
    for i in 0..10 {
        let r = server.post_json(
            "/api/v1/webhooks",
            &keeper,
            &json!({"url": format!("{closed}hook{i}"), "events": ["post.deleted"]}),
        );
        assert_eq!(r.status, 201, "{r:?}");
        foreign = r.data()["id"].as_str().unwrap().to_string();
    }
    let mut ids = hooks.clone();
    ids.push(foreign);
    ids.extend([
        "nope".to_string(),
        "%00".to_string(),
        "%E2%80%AE".to_string(),
    ]);

    let statuses: RefCell<std::collections::BTreeMap<String, usize>> = Default::default();
    let tally = |what: &str, status: u16| {
        *statuses
            .borrow_mut()
            .entry(format!("{what} {status}"))
            .or_default() += 1;
    };
    let guarded = |mut v: Value| {
        keep_on_loopback(&mut v, &closed);
        v
    };

    // POST /api-keys.
    let create_key = |ct: Option<&str>, body: &[u8]| -> Result<(), TestCaseError> {
        let what = "POST /api-keys";
        let r = check(
            what,
            send(&agent, &api("/api-keys"), "POST", &owner, ct, body),
        )?;
        tally(what, r.status);
        Ok(())
    };
    run(
        "POST /api-keys (JSON)",
        (body_for(KEY_FIELDS, &closed), content_type()),
        |(v, ct)| create_key(ct, v.to_string().as_bytes()),
    );
    run("POST /api-keys (bytes)", raw_body(), |b| {
        create_key(Some("application/json"), &b)
    });

    // POST /webhooks, by turns with the keys of the keeper and the creators.
    let turn = RefCell::new(0usize);
    let create_webhook = |ct: Option<&str>, body: &[u8]| -> Result<(), TestCaseError> {
        let what = "POST /webhooks";
        let n = {
            let mut t = turn.borrow_mut();
            *t += 1;
            *t
        };
        let key = if n % 4 == 0 {
            &keeper
        } else {
            &creators[n % 3]
        };
        let r = check(what, send(&agent, &api("/webhooks"), "POST", key, ct, body))?;
        tally(what, r.status);
        if r.status == 201 && key != &keeper {
            let id = serde_json::from_slice::<Value>(&r.body).unwrap()["data"]["id"]
                .as_str()
                .unwrap()
                .to_string();
            let d = check(
                "DELETE /webhooks/{id}",
                send(
                    &agent,
                    &api(&format!("/webhooks/{id}")),
                    "DELETE",
                    key,
                    None,
                    b"",
                ),
            )?;
            prop_assert_eq!(d.status, 204);
        }
        Ok(())
    };
    run(
        "POST /webhooks (JSON)",
        (body_for(CREATE_WEBHOOK_FIELDS, &closed), content_type()),
        |(v, ct)| create_webhook(ct, guarded(v).to_string().as_bytes()),
    );
    run("POST /webhooks (bytes)", raw_body(), |b| {
        create_webhook(Some("application/json"), &b)
    });

    // PATCH /webhooks/{id}: the owner's, another user's and missing ones.
    let patch = |id: &str, ct: Option<&str>, body: &[u8]| -> Result<(), TestCaseError> {
        let what = "PATCH /webhooks/{id}";
        let url = api(&format!("/webhooks/{id}"));
        let r = check(what, send(&agent, &url, "PATCH", &owner, ct, body))?;
        tally(what, r.status);
        Ok(())
    };
    run(
        "PATCH /webhooks/{id} (JSON)",
        (
            select(ids.clone()),
            body_for(PATCH_WEBHOOK_FIELDS, &closed),
            content_type(),
        ),
        |(id, v, ct)| patch(&id, ct, guarded(v).to_string().as_bytes()),
    );
    run(
        "PATCH /webhooks/{id} (bytes)",
        (select(ids.clone()), raw_body()),
        |(id, b)| patch(&id, Some("application/json"), &b),
    );
    // Every webhook the owner has must still point at the closed port.
    let listed = server.get("/api/v1/webhooks", &owner);
    assert_eq!(listed.status, 200);
    for w in listed.data().as_array().unwrap() {
        let u = url::Url::parse(w["url"].as_str().unwrap()).unwrap();
        assert_eq!(
            (u.host_str(), u.port()),
            (Some("127.0.0.1"), url::Url::parse(&closed).unwrap().port()),
            "{w}"
        );
    }

    // POST /webhooks/{id}/test takes no body; it gets one anyway. Only the owner's webhooks
    // (on the closed port) and ids that are not the owner's.
    let test = |id: &str, ct: Option<&str>, body: &[u8]| -> Result<(), TestCaseError> {
        let what = "POST /webhooks/{id}/test";
        let url = api(&format!("/webhooks/{id}/test"));
        let r = check(what, send(&agent, &url, "POST", &owner, ct, body))?;
        tally(what, r.status);
        Ok(())
    };
    run(
        "POST /webhooks/{id}/test (JSON)",
        (select(ids.clone()), json_value(), content_type()),
        |(id, v, ct)| test(&id, ct, v.to_string().as_bytes()),
    );
    run(
        "POST /webhooks/{id}/test (bytes)",
        (select(ids.clone()), raw_body()),
        |(id, b)| test(&id, Some("application/json"), &b),
    );

    // POST /events, as the owner: deliveries go to the closed port.
    let emit = |ct: Option<&str>, body: &[u8]| -> Result<(), TestCaseError> {
        let what = "POST /events";
        let r = check(
            what,
            send(&agent, &api("/events"), "POST", &owner, ct, body),
        )?;
        tally(what, r.status);
        Ok(())
    };
    run(
        "POST /events (JSON)",
        (body_for(EVENT_FIELDS, &closed), content_type()),
        |(v, ct)| emit(ct, v.to_string().as_bytes()),
    );
    run("POST /events (bytes)", raw_body(), |b| {
        emit(Some("application/json"), &b)
    });

    // Still serving, and nothing went wrong inside.
    let after = server.get("/api/v1/api-keys", &owner);
    assert_eq!(after.status, 200, "{after:?}");
    let log = server.log();
    assert!(!log.contains("panicked"), "the server panicked:\n{log}");
    assert!(
        !log.contains("internal error"),
        "the server logged an internal error:\n{log}"
    );
    let statuses = statuses.into_inner();
    eprintln!("abuse: statuses {statuses:?}");
    // The generators reach past validation: every endpoint succeeded at least once, and
    // webhook creation met the limit.
    for what in [
        "POST /api-keys 201",
        "POST /webhooks 201",
        "POST /webhooks 409",
        "PATCH /webhooks/{id} 200",
        "POST /webhooks/{id}/test 200",
        "POST /events 202",
    ] {
        assert!(statuses.contains_key(what), "never {what}: {statuses:?}");
    }
}
