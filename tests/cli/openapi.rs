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
                // `true`: a free-form object, any field (see
                // `free_form_objects_are_declared_free_form`).
                "additionalProperties" if arg == &json!(true) => {}
                // A schema: a map whose every value it checks (`headers`).
                "additionalProperties" if arg.is_object() => {
                    assert!(!obj.contains_key("properties"), "a map lists no properties");
                    if let Some(o) = value.as_object() {
                        for (name, v) in o {
                            self.check(arg, v, &format!("{at}.{name}"), errors);
                        }
                    }
                }
                "additionalProperties" => {
                    assert_eq!(
                        arg,
                        &json!(false),
                        "only additionalProperties: false, true or a schema is used"
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
                "propertyNames" => {
                    if let Some(o) = value.as_object() {
                        for name in o.keys() {
                            self.check(arg, &json!(name), &format!("{at} name {name:?}"), errors);
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
                "maxProperties" => {
                    if let Some(o) = value.as_object() {
                        if (o.len() as u64) > arg.as_u64().unwrap() {
                            fail("too many properties".into());
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
                "not" => {
                    let mut e = Vec::new();
                    self.check(arg, value, at, &mut e);
                    if e.is_empty() {
                        fail(format!("{value} matches what `not` forbids"));
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

    /// Fails unless `resp` is documented for `method path`, its body matches the schema, and
    /// it carries each header the document declares `required`, matching its schema.
    fn validate(&self, path: &str, method: &str, resp: &Resp) {
        let documented =
            self.resolve(&self.doc["paths"][path][method]["responses"][resp.status.to_string()]);
        if let Some(headers) = documented.get("headers").and_then(Value::as_object) {
            for (name, h) in headers {
                let h = self.resolve(h);
                match resp.header(name) {
                    Some(value) => {
                        // A header's value is text; an integer schema describes the number
                        // it spells (OpenAPI's `simple` style).
                        let value = match h["schema"]["type"].as_str() {
                            Some("integer") => value
                                .parse::<i64>()
                                .map_or_else(|_| json!(value), |n| json!(n)),
                            _ => json!(value),
                        };
                        let mut errors = Vec::new();
                        self.check(&h["schema"], &value, name, &mut errors);
                        assert!(
                            errors.is_empty(),
                            "{method} {path} {}: {errors:?}",
                            resp.status
                        );
                    }
                    None => assert!(
                        h["required"] != json!(true),
                        "{method} {path} {}: no {name} header",
                        resp.status
                    ),
                }
            }
        }
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

/// An object schema without `properties` is a free-form object (event data, a JSON Schema,
/// an example, audit details) and says so with `additionalProperties: true`: a bare `{"type":
/// "object"}` is read by openapi-typescript as `Record<string, never>`, an object that can hold
/// nothing, so a TypeScript client could not send event data (.ci/typescript-client.sh
/// compiles such a client with `tsc --strict`). An object with `properties` lists its fields
/// and allows no other.
#[test]
fn free_form_objects_are_declared_free_form() {
    fn walk(
        node: &Value,
        at: &str,
        free: &mut Vec<String>,
        maps: &mut Vec<String>,
        bad: &mut Vec<String>,
    ) {
        match node {
            Value::Object(o) => {
                let object = match o.get("type") {
                    Some(Value::String(t)) => t == "object",
                    Some(Value::Array(ts)) => ts.contains(&json!("object")),
                    _ => false,
                };
                if object {
                    let extra = o.get("additionalProperties");
                    match (o.contains_key("properties"), extra) {
                        (false, Some(Value::Bool(true))) => free.push(at.to_string()),
                        // A map: any name, each value of one schema (`headers`).
                        (false, Some(Value::Object(_))) => maps.push(at.to_string()),
                        (true, Some(Value::Bool(false))) => {}
                        _ => bad.push(format!("{at}: additionalProperties {extra:?}")),
                    }
                }
                for (k, c) in o {
                    walk(c, &format!("{at}/{k}"), free, maps, bad);
                }
            }
            Value::Array(a) => {
                for (i, c) in a.iter().enumerate() {
                    walk(c, &format!("{at}/{i}"), free, maps, bad);
                }
            }
            _ => {}
        }
    }
    let doc = keyhook::http::openapi::document();
    let (mut free, mut maps, mut bad) = (Vec::new(), Vec::new(), Vec::new());
    walk(doc, "#", &mut free, &mut maps, &mut bad);
    assert!(bad.is_empty(), "{bad:#?}");
    for want in [
        "#/components/schemas/EmitEvent/properties/data",
        "#/components/schemas/EventType/properties/schema",
        "#/components/schemas/EventType/properties/example",
        "#/components/schemas/AuditEntry/properties/details",
    ] {
        assert!(free.iter().any(|f| f == want), "{want} in {free:#?}");
    }
    // Static headers: a map of name to value (a string), whose names and values the schema
    // bounds (openapi_bounds.rs checks it against the server).
    let headers = [
        "#/components/schemas/CreateWebhook/properties/headers",
        "#/components/schemas/UpdateWebhook/properties/headers",
    ];
    assert_eq!(maps, headers);
    // And the validator takes any field there.
    let v = Validator { doc };
    let mut errors = Vec::new();
    v.check(
        &doc["components"]["schemas"]["EmitEvent"],
        &json!({ "event": "post.published", "data": { "title": "x", "n": 1, "tags": ["a"] } }),
        "body",
        &mut errors,
    );
    assert!(errors.is_empty(), "{errors:?}");
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
    let declared = &doc["components"]["responses"]["Unauthorized"]["headers"];
    assert_eq!(declared["WWW-Authenticate"]["required"], true, "{declared}");
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
    let declared = &doc["components"]["responses"]["MethodNotAllowed"]["headers"];
    assert_eq!(declared["Allow"]["required"], true, "{declared}");
    // Each path's Allow matches the declared pattern, whatever methods it lists.
    for path in [
        "/api/v1/api-keys/x",
        "/api/v1/webhooks/abcd",
        "/api/v1/events",
        "/api/v1/audit",
    ] {
        let wrong = server.call("PUT", path, Some(&key));
        assert_eq!(wrong.status, 405, "{path}");
        v.validate("/webhooks", "post", &wrong);
    }
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

/// Strings every pattern of the document is tried on, by the regex crate here and by
/// Python's `re` and JavaScript's `RegExp` with and without the `u` flag in CI
/// (`.ci/tools.sh` reads them, with this crate's verdicts, from the committed
/// `tests/cli/snapshots/openapi-patterns.json`): the boundaries of the rules (white space,
/// control, invisible and astral characters, line ends, lengths) and values of each kind.
const PATTERN_SAMPLES: &[&str] = &[
    "",
    "a",
    " a ",
    "  naïve  ",
    "\t",
    "a\tb",
    "a\n",
    "\na",
    "a\r\n",
    "a\u{85}",
    "\u{a0}a",
    "\u{3000}a\u{3000}",
    "a\u{2028}",
    "a\u{200b}b",
    "\u{feff}a",
    "a\u{202e}b",
    "\u{e000}",
    "\u{fdd0}",
    "\u{ffff}",
    "日本語",
    "🚀",
    "a🚀b",
    "🚀🚀🚀",
    "\u{1d159}",
    "a\u{e0041}",
    "\u{10ffff}",
    "a\u{1fffe}",
    "kp_0123abcd",
    "kp_0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
    "KP_0123ABCD",
    "evt_0123456789abcdef0123456789abcdef",
    "0a1b2c3d-0a1b-0a1b-0a1b-0a1b2c3d4e5f",
    "0a1b",
    "0A1B-",
    "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
    "http://example.com/",
    "HTTPS://Example.COM:65535/a/b?c=d&e=%20f",
    "http://example.com:0/",
    "http://example.com:65536/",
    "http://192.168.1.1/x",
    "http://256.1.1.1/",
    "http://[::1]/",
    "http://user:pw@example.com/",
    "http://example.com/#frag",
    "http://exämple.com/",
    "ftp://example.com/",
    "2026-01-01T00:00:00Z",
    "2026-01-01T00:00:00.123+02:00",
    "2026-02-30T00:00:00Z",
    "90m",
    "7d",
    "1.5h",
    "-1s",
    "an idempotency key",
    " leading",
    "trailing ",
    "~!@#$%^&*()",
    "GET, POST",
    "GET, PATCH, DELETE",
    "get",
];

/// Every pattern of the document, where it is, with this crate's verdict on each sample. The
/// patterns must mean the same to every engine a client may use (the document is ECMA-262's
/// dialect; Python's `re` is what schemathesis and openapi-python-client users have): ASCII
/// only, `\uXXXX` escapes, nothing above the Basic Multilingual Plane, each anchored `^...$`.
#[test]
fn every_pattern_is_portable_and_its_verdicts_are_committed_for_the_other_engines() {
    fn walk(v: &Value, at: &str, out: &mut Vec<(String, String)>) {
        match v {
            Value::Object(o) => {
                for (k, x) in o {
                    let here = format!("{at}/{}", k.replace('~', "~0").replace('/', "~1"));
                    match (k.as_str(), x) {
                        ("pattern", Value::String(p)) => out.push((here, p.clone())),
                        _ => walk(x, &here, out),
                    }
                }
            }
            Value::Array(a) => {
                for (i, x) in a.iter().enumerate() {
                    walk(x, &format!("{at}/{i}"), out);
                }
            }
            _ => {}
        }
    }
    let doc = keyhook::http::openapi::document();
    let mut patterns = Vec::new();
    walk(doc, "", &mut patterns);
    assert!(patterns.len() >= 10, "{patterns:?}");
    let mut entries = Vec::new();
    for (at, p) in &patterns {
        assert!(p.is_ascii(), "{at}: not ASCII: {p}");
        assert!(
            p.starts_with('^') && p.ends_with('$'),
            "{at}: not anchored: {p}"
        );
        for escape in [
            "\\u{", "\\x", "\\U", "\\p", "\\P", "\\d", "\\w", "\\s", "\\b", "(?=", "(?!", "(?<",
            "(?i",
        ] {
            assert!(
                !p.contains(escape),
                "{at}: {escape} is read differently by some engine: {p}"
            );
        }
        // Every \u escape is four hex digits, of the Basic Multilingual Plane and no
        // surrogate.
        for (i, _) in p.match_indices("\\u") {
            let hex = &p[i + 2..i + 6];
            let u = u32::from_str_radix(hex, 16).unwrap_or_else(|_| panic!("{at}: \\u{hex}"));
            assert!(
                !(0xD800..=0xDFFF).contains(&u),
                "{at}: a surrogate \\u{hex}"
            );
        }
        let re = regex::Regex::new(p).unwrap_or_else(|e| panic!("{at}: {e}"));
        let verdicts: Vec<Value> = PATTERN_SAMPLES
            .iter()
            .map(|s| json!([s, re.is_match(s)]))
            .collect();
        entries.push(json!({ "at": at, "pattern": p, "samples": verdicts }));
    }
    let mut bytes = serde_json::to_vec_pretty(&json!(entries)).unwrap();
    bytes.push(b'\n');
    let mut stale = Vec::new();
    crate::common::check_generated(
        &std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/cli/snapshots/openapi-patterns.json"),
        &bytes,
        &mut stale,
    );
    assert!(
        stale.is_empty(),
        "regenerated {stale:?}; commit the new file"
    );
}

/// The name and profile id patterns say what the server's rules say, on every sample of the
/// Basic Multilingual Plane (above it, the description says what the patterns cannot).
#[test]
fn the_text_patterns_refuse_what_the_rules_refuse() {
    use keyhook::service::input::visible;
    use keyhook::service::keys::{name_pattern, profile_id_pattern, KeyName};
    let name = regex::Regex::new(&name_pattern()).unwrap();
    let profile = regex::Regex::new(&profile_id_pattern()).unwrap();
    for s in PATTERN_SAMPLES
        .iter()
        .filter(|s| s.chars().all(|c| (c as u32) <= 0xFFFF))
    {
        if keyhook::redact::has_key(s) {
            continue; // a plaintext key: the description's
        }
        assert_eq!(name.is_match(s), KeyName::new(s).is_ok(), "name {s:?}");
        let id_ok = !s.trim().is_empty() && visible(s).is_ok();
        assert_eq!(profile.is_match(s), id_ok, "profile id {s:?}");
    }
}

/// The key check's answers (`/auth`, `/auth/{path}`) carry the headers the document declares
/// for them: the `X-Keyhook-*` identity on 200, the error object as `X-Keyhook-Error-*` on
/// each refusal, `WWW-Authenticate` on 401 and `Retry-After` on 429, all required where the
/// check always sends them.
#[test]
fn the_key_checks_answers_carry_their_declared_headers() {
    let env = Env::new();
    let readonly = env.create_key("ro", &["--permission", "readonly", "--rate-limit", "3/min"])
        ["key"]
        .as_str()
        .unwrap()
        .to_string();
    let server = Server::start(&env);
    let doc = document(&server);
    let v = Validator { doc: &doc };
    for (path, id) in [("/auth", "checkKey"), ("/auth/{path}", "checkKeyForPath")] {
        let op = &doc["paths"][path]["get"];
        assert_eq!(op["operationId"], id);
        let ok = v.resolve(&op["responses"]["200"]);
        for h in [
            "X-Keyhook-Key-Id",
            "X-Keyhook-Key-Prefix",
            "X-Keyhook-User",
            "X-Keyhook-Permission",
            "X-Keyhook-Profiles",
        ] {
            assert_eq!(ok["headers"][h]["required"], true, "{path} 200 {h}");
        }
        assert!(ok["headers"]["RateLimit-Remaining"].is_object(), "{path}");
        for (code, also) in [
            ("401", Some("WWW-Authenticate")),
            ("403", None),
            ("429", Some("Retry-After")),
        ] {
            let refused = v.resolve(&op["responses"][code]);
            let headers = &refused["headers"];
            for h in ["X-Keyhook-Error-Code", "X-Keyhook-Error-Message"]
                .into_iter()
                .chain(also)
            {
                assert_eq!(headers[h]["required"], true, "{path} {code} {h}");
            }
            assert!(
                headers["X-Keyhook-Error-Field"].is_object(),
                "{path} {code}"
            );
        }
    }
    let bearer = format!("Bearer {readonly}");
    let ask = |path: &str, method: &str, key: Option<&str>| {
        let mut h = vec![("X-Original-Method", method)];
        if let Some(k) = key {
            h.push(("Authorization", k));
        }
        server.send("GET", path, &h, None)
    };
    let ok = ask("/api/v1/auth", "GET", Some(&bearer));
    assert_eq!(ok.status, 200, "{ok:?}");
    v.validate("/auth", "get", &ok);
    let anon = ask("/api/v1/auth", "GET", None);
    assert_eq!(anon.status, 401, "{anon:?}");
    v.validate("/auth", "get", &anon);
    let writes = ask("/api/v1/auth", "POST", Some(&bearer));
    assert_eq!(writes.status, 403, "{writes:?}");
    v.validate("/auth", "get", &writes);
    let bad = ask("/api/v1/auth", "GET POST", Some(&bearer));
    assert_eq!(bad.status, 400, "{bad:?}");
    v.validate("/auth", "get", &bad);
    assert!(bad.header("X-Keyhook-Error-Field").is_some(), "{bad:?}");
    // Its burst of 3 a minute spent, on /auth/{path} (the request's own method and path).
    let limited = (0..4)
        .map(|_| {
            server.send(
                "GET",
                "/api/v1/auth/posts",
                &[("Authorization", &bearer)],
                None,
            )
        })
        .find(|r| r.status != 200)
        .expect("the key's rate limit");
    assert_eq!(limited.status, 429, "{limited:?}");
    v.validate("/auth/{path}", "get", &limited);
}
