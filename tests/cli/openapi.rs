//! GET /api/v1/openapi.json describes every routed path and method, and real responses of
//! the running server validate against its schemas.

use serde_json::{json, Value};

use crate::common::Env;
use crate::server::{Resp, Server};

/// A JSON Schema validator for the keywords the document uses. An unknown keyword fails the
/// test, so a schema can never pass by being misunderstood. (`openapi_bounds` uses it too.)
pub(crate) struct Validator<'a> {
    pub(crate) doc: &'a Value,
}

impl Validator<'_> {
    fn resolve<'b>(&'b self, v: &'b Value) -> &'b Value {
        match v.get("$ref").and_then(Value::as_str) {
            Some(r) => {
                let path = r.strip_prefix("#/").expect("local $ref");
                let target = path.split('/').fold(self.doc, |node, seg| &node[seg]);
                assert!(!target.is_null(), "dangling $ref {r}");
                self.resolve(target)
            }
            None => v,
        }
    }

    pub(crate) fn check(&self, schema: &Value, value: &Value, at: &str, errors: &mut Vec<String>) {
        let schema = self.resolve(schema);
        let obj = schema.as_object().expect("schema is an object");
        for (kw, arg) in obj {
            let mut fail = |m: String| errors.push(format!("{at}: {m}"));
            match kw.as_str() {
                "type" => {
                    let types: Vec<&str> = match arg {
                        Value::String(t) => vec![t.as_str()],
                        Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
                        _ => panic!("bad type keyword"),
                    };
                    let ok = types.iter().any(|t| match *t {
                        "object" => value.is_object(),
                        "array" => value.is_array(),
                        "string" => value.is_string(),
                        "boolean" => value.is_boolean(),
                        "integer" => value.is_i64() || value.is_u64(),
                        "number" => value.is_number(),
                        "null" => value.is_null(),
                        other => panic!("unknown type {other}"),
                    });
                    if !ok {
                        fail(format!("{value} is not of type {types:?}"));
                    }
                }
                "required" => {
                    for f in arg.as_array().unwrap() {
                        let f = f.as_str().unwrap();
                        if value.is_object() && value.get(f).is_none() {
                            fail(format!("missing required field {f}"));
                        }
                    }
                }
                "properties" => {
                    if let Some(o) = value.as_object() {
                        for (name, sub) in arg.as_object().unwrap() {
                            if let Some(v) = o.get(name) {
                                self.check(sub, v, &format!("{at}.{name}"), errors);
                            }
                        }
                    }
                }
                "additionalProperties" => {
                    assert_eq!(
                        arg,
                        &json!(false),
                        "only additionalProperties: false is used"
                    );
                    if let Some(o) = value.as_object() {
                        let known = obj.get("properties").and_then(Value::as_object);
                        for name in o.keys() {
                            if !known.is_some_and(|k| k.contains_key(name)) {
                                fail(format!("unexpected field {name}"));
                            }
                        }
                    }
                }
                "items" => {
                    if let Some(items) = value.as_array() {
                        for (i, v) in items.iter().enumerate() {
                            self.check(arg, v, &format!("{at}[{i}]"), errors);
                        }
                    }
                }
                "enum" => {
                    if !arg.as_array().unwrap().contains(value) {
                        fail(format!("{value} is not one of {arg}"));
                    }
                }
                "pattern" => {
                    if let Some(s) = value.as_str() {
                        let re = compiled(arg.as_str().unwrap());
                        if !re.is_match(s) {
                            fail(format!("{s:?} does not match {arg}"));
                        }
                    }
                }
                "format" => {
                    if let Some(s) = value.as_str() {
                        match arg.as_str().unwrap() {
                            "date-time" => {
                                // RFC 3339's grammar has `T` (any case) between date and time;
                                // chrono also takes a space.
                                let t = matches!(s.as_bytes().get(10), Some(b'T' | b't'));
                                if !t || chrono::DateTime::parse_from_rfc3339(s).is_err() {
                                    fail(format!("{s:?} is not a date-time"));
                                }
                            }
                            "uri" => {
                                if url::Url::parse(s).is_err() {
                                    fail(format!("{s:?} is not a URI"));
                                }
                            }
                            other => panic!("unknown format {other}"),
                        }
                    }
                }
                "minLength" | "maxLength" => {
                    if let Some(s) = value.as_str() {
                        let n = s.chars().count() as u64;
                        let bound = arg.as_u64().unwrap();
                        if (kw == "minLength" && n < bound) || (kw == "maxLength" && n > bound) {
                            fail(format!("length {n} breaks {kw} {bound}"));
                        }
                    }
                }
                "minItems" | "maxItems" => {
                    if let Some(a) = value.as_array() {
                        let n = a.len() as u64;
                        let bound = arg.as_u64().unwrap();
                        if (kw == "minItems" && n < bound) || (kw == "maxItems" && n > bound) {
                            fail(format!("{n} items break {kw} {bound}"));
                        }
                    }
                }
                "minProperties" => {
                    if let Some(o) = value.as_object() {
                        if (o.len() as u64) < arg.as_u64().unwrap() {
                            fail("too few properties".into());
                        }
                    }
                }
                "minimum" | "maximum" => {
                    if let Some(n) = value.as_i64() {
                        let bound = arg.as_i64().unwrap();
                        if (kw == "minimum" && n < bound) || (kw == "maximum" && n > bound) {
                            fail(format!("{n} breaks {kw} {bound}"));
                        }
                    }
                }
                "uniqueItems" => {
                    if let Some(a) = value.as_array() {
                        for (i, v) in a.iter().enumerate() {
                            if a[..i].contains(v) {
                                fail(format!("duplicate item {v}"));
                            }
                        }
                    }
                }
                "if" => {
                    let mut e = Vec::new();
                    self.check(arg, value, at, &mut e);
                    let branch = if e.is_empty() { "then" } else { "else" };
                    if let Some(b) = obj.get(branch) {
                        self.check(b, value, at, errors);
                    }
                }
                // Applied by "if".
                "then" | "else" => {}
                "const" => {
                    if value != arg {
                        fail(format!("{value} is not {arg}"));
                    }
                }
                "anyOf" => {
                    let any = arg.as_array().unwrap().iter().any(|sub| {
                        let mut e = Vec::new();
                        self.check(sub, value, at, &mut e);
                        e.is_empty()
                    });
                    if !any {
                        fail(format!("{value} matches none of anyOf"));
                    }
                }
                "default" | "description" => {}
                other => panic!("the test's validator does not know keyword {other}"),
            }
        }
    }

    /// The schema of `status` for `method path` (a template such as `/webhooks/{id}`).
    fn response_schema(&self, path: &str, method: &str, status: u16) -> Option<&Value> {
        let op = &self.doc["paths"][path][method];
        assert!(op.is_object(), "{method} {path} is not in the document");
        let resp = self.resolve(&op["responses"][status.to_string()]);
        assert!(
            resp.is_object(),
            "{method} {path} does not document status {status}"
        );
        resp.get("content")
            .map(|c| &c["application/json"]["schema"])
    }

    /// Fails unless `resp` is documented for `method path` and its body matches the schema.
    fn validate(&self, path: &str, method: &str, resp: &Resp) {
        match self.response_schema(path, method, resp.status) {
            Some(schema) => {
                let mut errors = Vec::new();
                self.check(schema, &resp.json(), "$", &mut errors);
                assert!(
                    errors.is_empty(),
                    "{method} {path} {}: {errors:?}\n{}",
                    resp.status,
                    resp.body
                );
            }
            None => assert!(resp.body.is_empty(), "{method} {path}: undocumented body"),
        }
    }
}

/// `pattern` compiled once per thread: the name pattern takes a while to compile, and
/// `openapi_bounds` checks hundreds of values against it.
fn compiled(pattern: &str) -> regex::Regex {
    thread_local! {
        static CACHE: std::cell::RefCell<std::collections::HashMap<String, regex::Regex>> =
            Default::default();
    }
    CACHE.with(|c| {
        c.borrow_mut()
            .entry(pattern.to_string())
            .or_insert_with(|| regex::Regex::new(pattern).unwrap())
            .clone()
    })
}

fn document(server: &Server) -> Value {
    let r = server.call("GET", "/api/v1/openapi.json", None);
    assert_eq!(r.status, 200);
    r.json()
}

#[test]
fn every_route_is_documented_and_nothing_else() {
    let env = Env::new();
    let server = Server::start(&env);
    let doc = document(&server);
    assert_eq!(doc["openapi"], "3.1.0");
    let mut documented = Vec::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for method in item.as_object().unwrap().keys() {
            if method != "parameters" {
                documented.push((path.clone(), method.clone()));
            }
        }
    }
    let mut routed: Vec<(String, String)> = keyhook::http::ROUTES
        .iter()
        .map(|(p, m)| (p.to_string(), m.to_string()))
        .collect();
    documented.sort();
    routed.sort();
    assert_eq!(documented, routed);
    // Every $ref resolves.
    let v = Validator { doc: &doc };
    fn walk(v: &Validator<'_>, node: &Value) {
        match node {
            Value::Object(o) => {
                if o.contains_key("$ref") {
                    v.resolve(node);
                }
                o.values().for_each(|c| walk(v, c));
            }
            Value::Array(a) => a.iter().for_each(|c| walk(v, c)),
            _ => {}
        }
    }
    walk(&v, &doc);
}

#[test]
fn real_responses_match_the_schemas() {
    let env = Env::new();
    let key = env.create_key("admin", &[]).as_object().unwrap()["key"]
        .as_str()
        .unwrap()
        .to_string();
    let readonly = env.create_key("ro", &["--permission", "readonly"])["key"]
        .as_str()
        .unwrap()
        .to_string();
    let server = Server::start_with(&env, &["--allow-private-targets"]);
    let doc = document(&server);
    let v = Validator { doc: &doc };

    // Keys.
    let created = server.post_json(
        "/api/v1/api-keys",
        &key,
        &json!({"name": "ci", "expiresAt": "2099-01-01T00:00:00Z"}),
    );
    assert_eq!(created.status, 201);
    v.validate("/api-keys", "post", &created);
    let id = created.data()["id"].as_str().unwrap().to_string();
    let listed = server.get("/api/v1/api-keys", &key);
    assert_eq!(listed.status, 200);
    v.validate("/api-keys", "get", &listed);
    v.validate(
        "/api-keys/{id}",
        "get",
        &server.get(&format!("/api/v1/api-keys/{id}"), &key),
    );
    let deleted = server.delete(&format!("/api/v1/api-keys/{id}"), &key);
    assert_eq!(deleted.status, 204);
    v.validate("/api-keys/{id}", "delete", &deleted);

    // Webhooks; the target is a closed loopback port, so the test ping fails (still 200).
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let url = format!("http://{closed}/hook");
    let hook = server.post_json(
        "/api/v1/webhooks",
        &key,
        &json!({"url": url, "events": ["post.published"]}),
    );
    assert_eq!(hook.status, 201);
    v.validate("/webhooks", "post", &hook);
    let wid = hook.data()["id"].as_str().unwrap().to_string();
    let w = format!("/api/v1/webhooks/{wid}");
    v.validate("/webhooks", "get", &server.get("/api/v1/webhooks", &key));
    v.validate("/webhooks/{id}", "get", &server.get(&w, &key));
    let patched = server.send(
        "PATCH",
        &w,
        &[
            ("Authorization", &format!("Bearer {key}")),
            ("Content-Type", "application/json"),
        ],
        Some(br#"{"isActive": false}"#),
    );
    assert_eq!(patched.status, 200);
    v.validate("/webhooks/{id}", "patch", &patched);
    let tested = server.call("POST", &format!("{w}/test"), Some(&key));
    assert_eq!(tested.status, 200);
    assert_eq!(tested.data()["delivered"], false);
    v.validate("/webhooks/{id}/test", "post", &tested);
    let attempts = server.get(&format!("{w}/deliveries"), &key);
    assert_eq!(attempts.data().as_array().unwrap().len(), 1);
    v.validate("/webhooks/{id}/deliveries", "get", &attempts);
    let emitted = server.post_json(
        "/api/v1/events",
        &key,
        &json!({"event": "post.published", "data": {"postId": "p1"}}),
    );
    assert_eq!(emitted.status, 202);
    v.validate("/events", "post", &emitted);

    // Errors, each in the shape its status documents.
    let bad = server.post_json("/api/v1/api-keys", &key, &json!({"name": ""}));
    assert_eq!(bad.status, 400);
    v.validate("/api-keys", "post", &bad);
    let anon = server.call("GET", "/api/v1/webhooks", None);
    assert_eq!(anon.status, 401);
    v.validate("/webhooks", "get", &anon);
    let ro = server.post_json(
        "/api/v1/webhooks",
        &readonly,
        &json!({"url": url, "events": ["post.published"]}),
    );
    assert_eq!(ro.status, 403);
    v.validate("/webhooks", "post", &ro);
    let missing = server.get("/api/v1/webhooks/nope", &key);
    assert_eq!(missing.status, 404);
    v.validate("/webhooks/{id}", "get", &missing);
    let wrong = server.call("PUT", "/api/v1/webhooks", Some(&key));
    assert_eq!(wrong.status, 405);
    v.validate("/webhooks", "post", &wrong);
    let big = server.post(
        "/api/v1/events",
        Some(&key),
        "application/json",
        &vec![b' '; 70_000],
    );
    assert_eq!(big.status, 413);
    v.validate("/events", "post", &big);
    let text = server.post("/api/v1/events", Some(&key), "text/plain", b"hi");
    assert_eq!(text.status, 415);
    v.validate("/events", "post", &text);
    for i in 0..10 {
        let r = server.post_json(
            "/api/v1/webhooks",
            &key,
            &json!({"url": format!("{url}{i}"), "events": ["post.published"]}),
        );
        if r.status == 409 {
            v.validate("/webhooks", "post", &r);
            return;
        }
        assert_eq!(r.status, 201);
    }
    panic!("the eleventh webhook was accepted");
}

#[test]
fn the_validator_rejects_what_the_schemas_forbid() {
    let doc = keyhook::http::openapi::document();
    let v = Validator { doc };
    let schema = json!({"$ref": "#/components/schemas/ApiKey"});
    let good = json!({
        "id": "k", "userId": "u", "keyPrefix": "kp_0123abcd", "name": "n",
        "permission": "readonly", "fullAccess": true, "profileIds": [],
        "lastUsedAt": null, "expiresAt": "2030-01-01T00:00:00.000Z",
        "rateLimit": "10/s", "remainingUses": 0,
        "createdAt": "2026-01-01T00:00:00.000Z"
    });
    let errors = |value: &Value| {
        let mut e = Vec::new();
        v.check(&schema, value, "$", &mut e);
        e
    };
    assert_eq!(errors(&good), Vec::<String>::new());
    let mut cases = Vec::new();
    let mut missing = good.clone();
    missing.as_object_mut().unwrap().remove("lastUsedAt");
    cases.push(missing);
    let mut extra = good.clone();
    extra["key"] = json!("kp_x");
    cases.push(extra);
    let mut wrong_type = good.clone();
    wrong_type["fullAccess"] = json!("yes");
    cases.push(wrong_type);
    let mut bad_time = good.clone();
    bad_time["createdAt"] = json!("yesterday");
    cases.push(bad_time);
    let mut bad_enum = good.clone();
    bad_enum["permission"] = json!("admin");
    cases.push(bad_enum);
    let mut bad_prefix = good;
    bad_prefix["keyPrefix"] = json!("kp_XYZ");
    cases.push(bad_prefix);
    for case in cases {
        assert_eq!(errors(&case).len(), 1, "{case}");
    }
}
