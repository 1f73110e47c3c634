//! The request-body schemas of the served OpenAPI document refuse exactly what the server
//! refuses. Every limit keyword of a request body (maxLength, minLength, maxItems, minItems,
//! pattern, enum, const, uniqueItems, format, if, anyOf...) is read out of the document that
//! `GET /api/v1/openapi.json` serves, values at its boundary are made from it (at the limit,
//! one past it, empty, each enum value and wrong ones, strings the pattern takes and refuses),
//! and each value is checked against the schema and sent to the real server: the two must
//! agree. A keyword that no case reads fails the test, so a new limit needs a case; a limit
//! that drifts from its rule by one fails it too.
//!
//! What a schema cannot say (a plaintext key is not a name, `expiresAt` in the future, IPv6
//! hosts) is left to its description; those cases are listed as gaps, and the test checks
//! that they are still gaps, so that closing one moves it to the cases that must agree.

use std::cell::RefCell;
use std::collections::BTreeSet;

use serde_json::{json, Value};

use crate::common::{key_of, Env};
use crate::openapi::Validator;
use crate::receiver::Receiver;
use crate::server::{Resp, Server};
use keyhook::service::event_types::NAME_PATTERN;
use keyhook::service::events::CATALOG;

/// The keywords that limit a value. Every one in a request body must be read by a case.
const LIMITS: &[&str] = &[
    "maxLength",
    "minLength",
    "maxItems",
    "minItems",
    "pattern",
    "enum",
    "const",
    "uniqueItems",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minProperties",
    "maxProperties",
    "if",
    "anyOf",
    "not",
];

/// Longer strings than this are taken to be unbounded by a pattern.
const UNBOUNDED: usize = 10_000;

/// A receiver that is never called: the admin user only creates and changes webhooks, and
/// the only user that emits events has none, so no delivery is ever attempted (the URLs
/// probed name hosts under `.example`, which must never be sent anything).
const LOOPBACK: &str = "http://127.0.0.1:9/hook";

#[derive(Clone, Copy, Debug, PartialEq)]
enum Op {
    CreateKey,
    CreateWebhook,
    UpdateWebhook,
    Emit,
    Replay,
}

const OPS: [Op; 5] = [
    Op::CreateKey,
    Op::CreateWebhook,
    Op::UpdateWebhook,
    Op::Emit,
    Op::Replay,
];

impl Op {
    /// The path template and method as the document names them.
    fn route(self) -> (&'static str, &'static str) {
        match self {
            Op::CreateKey => ("/api-keys", "post"),
            Op::CreateWebhook => ("/webhooks", "post"),
            Op::UpdateWebhook => ("/webhooks/{id}", "patch"),
            Op::Emit => ("/events", "post"),
            Op::Replay => ("/webhooks/{id}/replay", "post"),
        }
    }

    /// A body the operation accepts.
    fn base(self) -> Value {
        match self {
            Op::CreateKey => json!({"name": "n"}),
            Op::CreateWebhook => json!({"url": LOOPBACK, "events": ["post.published"]}),
            Op::UpdateWebhook => json!({"isActive": false}),
            Op::Emit => json!({"event": "post.published"}),
            Op::Replay => json!({}),
        }
    }
}

struct Bench {
    server: Server,
    doc: Value,
    /// Creates keys and webhooks.
    admin: String,
    /// Emits events, and has no webhooks.
    emitter: String,
    /// The admin's webhook that PATCH changes.
    hook: String,
    /// Replays to its own webhook, which has one event. Its receiver answers 200, so the
    /// deliveries the replays queue never disable the webhook.
    replayer: String,
    _receiver: Receiver,
    replay_hook: String,
    /// The replayer's event.
    event_id: String,
    /// The pointers of the limit keywords the cases have read.
    read: RefCell<BTreeSet<String>>,
    cases: RefCell<usize>,
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 300 {
        format!(
            "{}… ({} characters)",
            s.chars().take(300).collect::<String>(),
            s.len()
        )
    } else {
        s
    }
}

impl Bench {
    fn new(env: &Env) -> Bench {
        let admin = key_of(env, "admin", &[]);
        let emitter = key_of(env, "emitter", &[]);
        let replayer = key_of(env, "replayer", &[]);
        let server = Server::start_with(env, &["--allow-private-targets"]);
        let r = server.call("GET", "/api/v1/openapi.json", None);
        assert_eq!(r.status, 200);
        let doc = r.json();
        let hook = server.post_json("/api/v1/webhooks", &admin, &Op::CreateWebhook.base());
        assert_eq!(hook.status, 201, "{}", hook.body);
        let hook = hook.data()["id"].as_str().unwrap().to_string();
        let receiver = Receiver::start();
        let r = server.post_json(
            "/api/v1/webhooks",
            &replayer,
            // Answering 200: failed replayed deliveries would disable the webhook after 10
            // (and every later replay would be 409) as soon as the worker got to them.
            &json!({"url": receiver.url("/ok"), "events": ["post.published"]}),
        );
        assert_eq!(r.status, 201, "{}", r.body);
        let replay_hook = r.data()["id"].as_str().unwrap().to_string();
        let r = server.post_json("/api/v1/events", &replayer, &Op::Emit.base());
        assert_eq!(r.status, 202, "{}", r.body);
        let event_id = r.data()["id"].as_str().unwrap().to_string();
        let bench = Bench {
            server,
            doc,
            admin,
            emitter,
            hook,
            replayer,
            _receiver: receiver,
            replay_hook,
            event_id,
            read: RefCell::new(BTreeSet::new()),
            cases: RefCell::new(0),
        };
        bench.agree(Op::UpdateWebhook, json!({"isActive": false}), "");
        bench
    }

    /// The pointer of the schema of `op`'s request body, as the document names it.
    fn schema(&self, op: Op) -> String {
        let (path, method) = op.route();
        let r = &self.doc["paths"][path][method]["requestBody"]["content"]["application/json"]
            ["schema"]["$ref"];
        let r = r
            .as_str()
            .unwrap_or_else(|| panic!("{method} {path} has no body schema"));
        r.strip_prefix('#').unwrap().to_string()
    }

    /// The keyword at `ptr`, noted as read.
    fn limit(&self, ptr: &str) -> &Value {
        let v = self
            .doc
            .pointer(ptr)
            .unwrap_or_else(|| panic!("the document has no {ptr}"));
        self.read.borrow_mut().insert(ptr.to_string());
        v
    }

    fn number(&self, ptr: &str) -> usize {
        let n = self.limit(ptr);
        n.as_u64().unwrap_or_else(|| panic!("{ptr} is {n}")) as usize
    }

    fn schema_errors(&self, op: Op, body: &Value) -> Vec<String> {
        let v = Validator { doc: &self.doc };
        let mut errors = Vec::new();
        let schema = json!({ "$ref": format!("#{}", self.schema(op)) });
        v.check(&schema, body, "$", &mut errors);
        errors
    }

    fn send(&self, op: Op, body: &Value) -> Resp {
        let (key, path) = match op {
            Op::CreateKey => (&self.admin, "/api/v1/api-keys".to_string()),
            Op::CreateWebhook => (&self.admin, "/api/v1/webhooks".to_string()),
            Op::UpdateWebhook => (&self.admin, format!("/api/v1/webhooks/{}", self.hook)),
            Op::Emit => (&self.emitter, "/api/v1/events".to_string()),
            Op::Replay => (
                &self.replayer,
                format!("/api/v1/webhooks/{}/replay", self.replay_hook),
            ),
        };
        let auth = format!("Bearer {key}");
        let headers = [
            ("Authorization", auth.as_str()),
            ("Content-Type", "application/json"),
        ];
        let method = op.route().1.to_ascii_uppercase();
        let r = self
            .server
            .send(&method, &path, &headers, Some(body.to_string().as_bytes()));
        if op == Op::CreateWebhook && r.status == 201 {
            // Stay under the per-user limit.
            let id = r.data()["id"].as_str().unwrap().to_string();
            let gone = self.server.delete(&format!("/api/v1/webhooks/{id}"), key);
            assert_eq!(gone.status, 204);
        }
        r
    }

    /// What the schema and the server make of `body`: (schema accepts, server accepts). A
    /// refusal by the server must be a 400 whose details name `field` (any field if empty),
    /// so that it was refused for the value under test.
    fn judge(&self, op: Op, body: &Value, field: &str) -> (bool, bool, String) {
        *self.cases.borrow_mut() += 1;
        let errors = self.schema_errors(op, body);
        let r = self.send(op, body);
        let accepted = match r.status {
            200..=299 => true,
            400 => {
                let details = r.json()["error"]["details"].clone();
                let named = details.as_array().unwrap().iter().any(|d| {
                    let f = d["field"].as_str().unwrap();
                    f == field || f.strip_prefix(field).is_some_and(|r| r.starts_with('['))
                });
                assert!(
                    field.is_empty() || named,
                    "{op:?} {}: refused, but not for {field}: {}",
                    short(body),
                    r.body
                );
                false
            }
            s => panic!("{op:?} {}: {s} {}", short(body), r.body),
        };
        let what = format!(
            "{op:?} {}: the schema {} it ({errors:?}), the server answered {} {}",
            short(body),
            if errors.is_empty() {
                "accepts"
            } else {
                "refuses"
            },
            r.status,
            r.body
        );
        (errors.is_empty(), accepted, what)
    }

    /// The schema and the server agree on `body`.
    fn agree(&self, op: Op, body: Value, field: &str) {
        let (schema, server, what) = self.judge(op, &body, field);
        assert_eq!(schema, server, "{what}");
    }

    /// A rule the schema leaves to its description: the schema says `schema`, the server
    /// the opposite. If this fails because they now agree, move the case to the others.
    fn gap(&self, op: Op, body: Value, schema: bool, why: &str) {
        let (s, server, what) = self.judge(op, &body, "");
        assert_eq!((s, server), (schema, !schema), "{why}: {what}");
    }

    /// `op`'s base body with `field` set to `value`.
    fn with(&self, op: Op, field: &str, value: Value) -> Value {
        let mut b = op.base();
        b[field] = value;
        b
    }

    /// A string at the schema `ptr`, put into a body by `put` and reported on `field`:
    /// values at each length limit the document states (maxLength, minLength, and the
    /// longest string the pattern takes), for each way to `grow` a string of n characters,
    /// then the `probes`, the empty string and a number.
    fn strings(
        &self,
        op: Op,
        field: &str,
        ptr: &str,
        put: &dyn Fn(Value) -> Value,
        grows: &[&dyn Fn(usize) -> String],
        probes: &[&str],
    ) {
        let schema = self.doc.pointer(ptr).unwrap().clone();
        for grow in grows {
            let mut lengths = Vec::new();
            if schema.get("maxLength").is_some() {
                let n = self.number(&format!("{ptr}/maxLength"));
                lengths.extend([n, n + 1]);
            }
            if schema.get("minLength").is_some() {
                let n = self.number(&format!("{ptr}/minLength"));
                lengths.extend([n, n.saturating_sub(1)]);
            }
            if schema.get("pattern").is_some() {
                let p = self.limit(&format!("{ptr}/pattern")).as_str().unwrap();
                if let Some(n) = longest_match(p, grow) {
                    lengths.extend([n, n + 1]);
                }
            }
            for n in lengths {
                let s = grow(n);
                assert_eq!(s.chars().count(), n, "grow({n})");
                self.agree(op, put(json!(s)), field);
            }
        }
        for p in probes.iter().chain(&[""]) {
            self.agree(op, put(json!(p)), field);
        }
        self.agree(op, put(json!(5)), field);
    }

    /// An enum at `ptr`: each value it lists, then each of `wrong` (which it must not list).
    fn enums(&self, op: Op, field: &str, ptr: &str, put: &dyn Fn(Value) -> Value, wrong: &[Value]) {
        let values = self
            .limit(&format!("{ptr}/enum"))
            .as_array()
            .unwrap()
            .clone();
        assert!(!values.is_empty());
        for v in values.iter().chain(wrong) {
            self.agree(op, put(v.clone()), field);
        }
        for w in wrong {
            assert!(!values.contains(w), "{w} is listed");
        }
    }

    /// An event name at the schema `ptr` (a string of the catalog's shape, no enum: which
    /// names exist is the catalog's, GET /event-types), put into a body by `put`: the
    /// built-ins and names outside the pattern or its lengths agree; a name of the right
    /// shape that the catalog lacks, and the test ping's, are the gaps the description states.
    /// Returns the built-ins.
    fn event_names(
        &self,
        op: Op,
        field: &str,
        ptr: &str,
        put: &dyn Fn(Value) -> Value,
    ) -> Vec<Value> {
        assert_eq!(self.limit(&format!("{ptr}/pattern")), NAME_PATTERN);
        let max = self.number(&format!("{ptr}/maxLength"));
        let min = self.number(&format!("{ptr}/minLength"));
        assert_eq!(min, 1);
        let catalog: Vec<Value> = CATALOG.iter().map(|e| json!(e)).collect();
        let too_long = format!("a.{}", "b".repeat(max - 1));
        for v in catalog.iter().cloned().chain([
            json!("POST.PUBLISHED"),
            json!("post..x"),
            json!(""),
            json!(too_long),
            json!(5),
        ]) {
            self.agree(op, put(v), field);
        }
        for unknown in [
            "post.updated",
            "webhook.test",
            &format!("a.{}", "b".repeat(max - 2)),
        ] {
            self.gap(
                op,
                put(json!(unknown)),
                true,
                "which names exist is the catalog's (GET /event-types), not the document's",
            );
        }
        catalog
    }

    /// Fails unless every limit keyword of every request body was read by a case.
    fn all_limits_read(&self) {
        let mut found = BTreeSet::new();
        for op in OPS {
            let ptr = self.schema(op);
            walk(&self.doc, &ptr, &mut found);
        }
        let read = self.read.borrow();
        let unread: Vec<&String> = found.difference(&read).collect();
        assert!(unread.is_empty(), "no case reads {unread:?}");
    }
}

/// The limit keywords of the schema at `ptr` and of the schemas inside it.
fn walk(doc: &Value, ptr: &str, found: &mut BTreeSet<String>) {
    let schema = doc
        .pointer(ptr)
        .unwrap()
        .as_object()
        .expect("a schema object");
    for (k, v) in schema {
        let here = format!("{ptr}/{k}");
        if LIMITS.contains(&k.as_str()) {
            found.insert(here.clone());
        }
        match k.as_str() {
            "properties" => {
                for name in v.as_object().unwrap().keys() {
                    walk(doc, &format!("{here}/{name}"), found);
                }
            }
            "items" | "if" | "then" | "else" | "not" | "propertyNames" => walk(doc, &here, found),
            // A map's values (`headers`); `true`/`false` bound nothing.
            "additionalProperties" if v.is_object() => walk(doc, &here, found),
            "anyOf" | "allOf" | "oneOf" => {
                for i in 0..v.as_array().unwrap().len() {
                    walk(doc, &format!("{here}/{i}"), found);
                }
            }
            "$ref" => panic!("a $ref inside a request body ({here}): teach `walk` to follow it"),
            _ => {}
        }
    }
}

/// The length of the longest `grow(n)` that `pattern` matches, if it matches a short one and
/// not every one up to [`UNBOUNDED`].
fn longest_match(pattern: &str, grow: &dyn Fn(usize) -> String) -> Option<usize> {
    let re = regex::Regex::new(pattern).unwrap();
    let takes = |n: usize| re.is_match(&grow(n));
    let mut lo = (1..=8).find(|&n| takes(n))?;
    if takes(UNBOUNDED) {
        return None;
    }
    let mut hi = UNBOUNDED;
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if takes(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Some(lo)
}

fn repeat(c: char) -> impl Fn(usize) -> String {
    move |n| c.to_string().repeat(n)
}

/// A plaintext key that exists nowhere.
fn a_key() -> String {
    format!("kp_{}", "0123456789abcdef".repeat(4))
}

#[test]
fn request_body_limits_refuse_exactly_what_the_server_refuses() {
    let env = Env::new();
    let b = Bench::new(&env);
    for op in OPS {
        b.agree(op, op.base(), "");
    }
    keys(&b);
    webhooks(&b);
    events(&b);
    replays(&b);
    bodies(&b);
    b.all_limits_read();
    assert!(*b.cases.borrow() > 300, "{} cases", b.cases.borrow());
}

/// Profile ids to try, besides those at the length limits: blank, invisible or odd ones.
const PROFILE_ID_PROBES: &[&str] = &[
    " ",
    "\u{3000}",
    " p ",
    "p q",
    "p\u{200b}",
    "\tp",
    "p\u{2028}",
    "日本",
];

fn keys(b: &Bench) {
    let op = Op::CreateKey;
    let s = b.schema(op);
    let props = format!("{s}/properties");

    let name = |v: Value| b.with(op, "name", v);
    let spaced = |n: usize| format!(" {} ", "a".repeat(n.saturating_sub(2)));
    b.strings(
        op,
        "name",
        &format!("{props}/name"),
        &name,
        &[&repeat('a'), &repeat('é'), &repeat('🚀')],
        &[
            " ",
            "\t",
            "a",
            " a ",
            "\u{3000}a\u{3000}",
            "\u{a0}a",
            "a b",
            "a\tb",
            "a\u{85}",
            "\u{85}a",
            "a\u{2028}",
            "\u{2029}",
            "\u{200b}a",
            "a\u{200b}b",
            "\u{feff}a",
            "a\u{202e}b",
            "\u{e000}",
            "\u{fdd0}",
            "\u{ffff}",
            "\u{34f}",
            "\u{1160}a",
            "x\u{0}y",
            "\u{7f}",
            "\u{9f}",
            "日本語",
            "🚀 deploy",
            "déploiement",
        ],
    );
    b.gap(op, name(json!(a_key())), true, "a plaintext key is no name");
    // maxLength counts the white space around a name, and so does the server (it trims
    // after counting): a padded name over the limit is refused by both.
    b.agree(op, name(json!(spaced(100))), "name");
    b.agree(op, name(json!(spaced(101))), "name");
    // The invisible characters above the Basic Multilingual Plane are in the description
    // only: a pattern naming them would not be read alike by every engine.
    for astral in [
        "a\u{1fffe}",
        "a\u{effff}b",
        "\u{10ffff}",
        "\u{e0041}",
        "x\u{1d173}",
    ] {
        b.gap(
            op,
            name(json!(astral)),
            true,
            "an invisible character above the BMP",
        );
    }

    b.enums(
        op,
        "permission",
        &format!("{props}/permission"),
        &|v| b.with(op, "permission", v),
        &[
            json!("admin"),
            json!("READONLY"),
            json!("read-only"),
            json!(""),
            json!(5),
            json!(true),
        ],
    );

    // expiresAt: a date-time (in the future, which only the description says).
    let expires = format!("{props}/expiresAt");
    assert_eq!(b.limit(&format!("{expires}/format")), "date-time");
    for v in [
        json!("2099-01-01T00:00:00Z"),
        json!("2099-01-01T00:00:00.123+02:00"),
        json!("2099-01-01t00:00:00z"),
        Value::Null,
        json!("2099-01-01 00:00:00Z"),
        json!("2099-01-01"),
        json!("2099-01-01T00:00:00"),
        json!("2099-13-01T00:00:00Z"),
        json!("tomorrow"),
        json!(""),
        json!(5),
    ] {
        b.agree(op, b.with(op, "expiresAt", v), "expiresAt");
    }
    b.gap(
        op,
        b.with(op, "expiresAt", json!("2001-01-01T00:00:00Z")),
        true,
        "in the past",
    );

    // rateLimit: N/s or N/min with N from 1 to 1,000,000, all of it in the pattern.
    let rate = format!("{props}/rateLimit/pattern");
    assert!(b.limit(&rate).as_str().is_some());
    for v in [
        json!("1/s"),
        json!("1000000/min"),
        json!("1000001/s"),
        json!("0/s"),
        json!("010/sec"),
        json!("5/m"),
        json!("5/h"),
        json!("5/S"),
        json!("5"),
        json!("-5/s"),
        json!(""),
        json!(5),
        Value::Null,
    ] {
        b.agree(op, b.with(op, "rateLimit", v), "rateLimit");
    }
    // remainingUses: an integer from 1 to 2^53 - 1.
    let most = b.number(&format!("{props}/remainingUses/maximum")) as u64;
    let least = b.number(&format!("{props}/remainingUses/minimum")) as u64;
    for v in [
        json!(least),
        json!(least - 1),
        json!(most),
        json!(most + 1),
        json!(-1),
        json!(1.5),
        json!("5"),
        Value::Null,
    ] {
        b.agree(op, b.with(op, "remainingUses", v), "remainingUses");
    }

    scope(b, op, &json!({"name": "n"}));
}

/// The scope of a key, and of a webhook, at `op` whose body without a scope is
/// `base`: profileIds' items, length and uniqueness, and every combination with fullAccess
/// against the if/then/else the document states.
fn scope(b: &Bench, op: Op, base: &Value) {
    let s = b.schema(op);
    let props = format!("{s}/properties");
    let with = |a: Option<Value>, p: Option<Value>| {
        let mut body = base.clone();
        if let Some(a) = a {
            body["fullAccess"] = a;
        }
        if let Some(p) = p {
            body["profileIds"] = p;
        }
        body
    };
    // profileIds: its items, its length, uniqueness.
    let ids = format!("{props}/profileIds");
    let limited = |v: Value| with(Some(json!(false)), Some(v));
    b.strings(
        op,
        "profileIds",
        &format!("{ids}/items"),
        &|v| limited(json!([v])),
        &[&repeat('p'), &repeat('é')],
        PROFILE_ID_PROBES,
    );
    b.gap(
        op,
        limited(json!([a_key()])),
        true,
        "a plaintext key is no profile id",
    );
    b.gap(
        op,
        limited(json!(["\u{1fffe}"])),
        true,
        "an invisible character above the BMP",
    );
    let n = b.number(&format!("{ids}/maxItems"));
    for len in [n, n + 1] {
        let v: Vec<String> = (0..len).map(|i| format!("p{i}")).collect();
        b.agree(op, limited(json!(v)), "profileIds");
    }
    assert_eq!(b.limit(&format!("{ids}/uniqueItems")), true);
    b.agree(op, limited(json!(["p", "p"])), "profileIds");
    b.agree(op, limited(json!(["p", "p "])), "profileIds");
    b.agree(op, limited(json!("p")), "profileIds");

    // fullAccess false needs profile ids, fullAccess true (the default) allows none: every
    // combination, against the if/then/else the document states.
    b.limit(&format!("{s}/if"));
    b.limit(&format!("{s}/if/properties/fullAccess/const"));
    b.limit(&format!("{s}/then/properties/profileIds/minItems"));
    b.limit(&format!("{s}/else/properties/profileIds/maxItems"));
    let access = [
        None,
        Some(Value::Null),
        Some(json!(true)),
        Some(json!(false)),
        Some(json!("yes")),
    ];
    let profiles = [None, Some(Value::Null), Some(json!([])), Some(json!(["p"]))];
    for a in &access {
        for p in &profiles {
            b.agree(op, with(a.clone(), p.clone()), "");
        }
    }
}

fn webhooks(b: &Bench) {
    let urls_ok = [
        "http://127.0.0.1/hook",
        "https://127.0.0.1",
        "HTTP://127.0.0.1:8080/",
        "http://127.0.0.1:65535/x",
        "http://127.0.0.1:1",
        "http://255.255.255.255/",
        "http://a.example",
        "http://a.example.",
        "http://A.EXAMPLE/P",
        "http://a",
        "http://a?x",
        "http://-a.example/",
        "http://a-b.c-d.example/p?q=1&r=%20",
        "http://x.example/~a_b.c!$&'()*+,;=:@/?/?",
        "http://xn--nxasmq6b.example/",
        "http://a.example/%7e%7E",
        "http://a-.example/",
        "http://ab--c.example//@@",
        "http://a.example/%00",
        "http://0.0.0.0/",
        "hTtPs://a.example",
    ];
    let urls_bad = [
        " http://a.example",
        "http://a.example ",
        "ftp://a.example",
        "javascript:alert(1)",
        "http://",
        "http:///a",
        "//a.example",
        "http:a.example",
        "a.example",
        "http://a.example/#",
        "http://a.example/#f",
        "http://u:p@a.example/",
        "http://u@a.example/",
        "http://a.example:0/",
        "http://a.example:65536/",
        "http://a.example:080/",
        "http://a.example:/",
        "http://a.example:x/",
        "http://01.2.3.4/",
        "http://1.2.3/",
        "http://1.2.3.4./",
        "http://256.1.1.1/",
        "http://0x7f.1/",
        "http://a_b.example/",
        "http://a..example/",
        "http://a.1/",
        "http://%61.example/",
        "http://a.example*/",
        "http://a.example/%zz",
        "http://a.example/%",
        "http://é.example/",
        "http://a.example/é",
        "http://a.example/ x",
        "http://a.example/\\x",
        "http://a.example/[x]",
        "http://a.example/\"",
        "http://a.example/<x>",
        "http://a.example/{x}",
        "http://a.example/|^`",
        "http://a.example\t/",
        "http://a.example/\n",
        "http://[::1]:0/",
        // The format (a URL the WHATWG parser takes) refuses what the pattern cannot:
        // punycode that does not decode.
        "http://xn--a.example/",
        "http://a.xn--zz/",
    ];
    let mut probes: Vec<&str> = urls_ok.to_vec();
    probes.extend(urls_bad);
    let grow = |n: usize| {
        let head = "http://127.0.0.1/";
        format!("{head}{}", "a".repeat(n.saturating_sub(head.len())))
    };
    for op in [Op::CreateWebhook, Op::UpdateWebhook] {
        let props = format!("{}/properties", b.schema(op));
        let url = format!("{props}/url");
        assert_eq!(b.limit(&format!("{url}/format")), "uri");
        b.strings(
            op,
            "url",
            &url,
            &|v| b.with(op, "url", v),
            &[&grow],
            &probes,
        );
        for ipv6 in ["http://[::1]/", "https://[2001:db8::1]:8443/x"] {
            b.gap(op, b.with(op, "url", json!(ipv6)), false, "IPv6 hosts");
        }

        let events = format!("{props}/events");
        let catalog = b.event_names(op, "events", &format!("{events}/items"), &|v| {
            b.with(op, "events", json!([v]))
        });
        let put = |v: Value| b.with(op, "events", v);
        b.agree(op, put(json!(catalog)), "events");
        b.agree(op, put(json!([catalog[0], "POST.PUBLISHED"])), "events");
        let min = b.number(&format!("{events}/minItems"));
        for len in [min, min.saturating_sub(1)] {
            b.agree(op, put(json!(catalog[..len].to_vec())), "events");
        }
        assert_eq!(b.limit(&format!("{events}/uniqueItems")), true);
        b.agree(op, put(json!([catalog[0], catalog[0]])), "events");
        b.agree(
            op,
            put(json!([catalog[0], catalog[1], catalog[0]])),
            "events",
        );
        for v in [json!("post.published"), json!({}), Value::Null] {
            b.agree(op, put(v), "events");
        }

        // A filter: its length limits (a valid CEL expression of each length); whether it
        // is valid CEL within its bounds is said in its description only.
        let filter = format!("{props}/filter");
        let cel = |n: usize| match n {
            0..=7 => "1".repeat(n),
            _ => format!("'{}' == ''", "a".repeat(n - 8)),
        };
        let probes = ["true", "data.n == 1", "profileId == null"];
        let put = |v: Value| b.with(op, "filter", v);
        b.strings(op, "filter", &filter, &put, &[&cel], &probes);
        for bad in [
            "data.n ==",
            "data.a.exists(x, data.b.exists(y, x == y))",
            " ",
        ] {
            b.gap(
                op,
                put(json!(bad)),
                true,
                "a filter's CEL rules are in its description",
            );
        }

        // A webhook's own timeout and retry schedule (CONTRACT §15).
        let timeout = format!("{props}/timeoutMs");
        let min = b.number(&format!("{timeout}/minimum"));
        let max = b.number(&format!("{timeout}/maximum"));
        let put = |v: Value| b.with(op, "timeoutMs", v);
        for v in [json!(min - 1), json!(min), json!(max), json!(max + 1)] {
            b.agree(op, put(v), "timeoutMs");
        }
        for v in [json!(1.5), json!("1s"), json!(-1), json!(true)] {
            b.agree(op, put(v), "timeoutMs");
        }
        let schedule = format!("{props}/retrySchedule");
        let max = b.number(&format!("{schedule}/maxItems"));
        let put = |v: Value| b.with(op, "retrySchedule", v);
        for n in [0, 1, max, max + 1] {
            b.agree(op, put(json!(vec!["1s"; n])), "retrySchedule");
        }
        b.limit(&format!("{schedule}/items/pattern"));
        for d in [
            "5s", "1h30m", "100ms", "2w", "1d12h", "5", "s", "5x", "-5s", " 5s", "5s ", "", "5 s",
            "5S",
        ] {
            b.agree(op, put(json!([d])), "retrySchedule");
        }
        for v in [json!("5s"), json!([5]), json!({}), json!([null])] {
            b.agree(op, put(v), "retrySchedule");
        }
        // A webhook's rate, as a key's rateLimit is written.
        let put_rate = |v: Value| b.with(op, "rate", v);
        b.limit(&format!("{props}/rate/pattern"));
        b.strings(
            op,
            "rate",
            &format!("{props}/rate"),
            &put_rate,
            &[],
            &[
                "1/s",
                "10/min",
                "1000000/s",
                "0/s",
                "5/h",
                "5",
                "1000001/s",
                "05/s",
                "5/sec",
            ],
        );
        // A delay of zero is refused by the pattern and the server alike; one within range
        // (at most ~100 years) the schema leaves to its description.
        for zero in ["0s", "0ms0s", "00ms"] {
            b.agree(op, put(json!([zero])), "retrySchedule");
        }
        b.agree(op, put(json!(["0s1ms"])), "retrySchedule");
        b.gap(
            op,
            put(json!(["99999999999999w"])),
            true,
            "a delay within range is in the description",
        );
    }

    // signing: one of the modes (the enum), on both operations.
    for op in [Op::CreateWebhook, Op::UpdateWebhook] {
        b.limit(&format!("{}/properties/signing/enum", b.schema(op)));
        for v in ["hmac", "ed25519", "both", "Both", "rsa", ""] {
            b.agree(op, b.with(op, "signing", json!(v)), "signing");
        }
        b.agree(op, b.with(op, "signing", json!(1)), "signing");
        static_headers(b, op);
    }
    scope(b, Op::CreateWebhook, &Op::CreateWebhook.base());
    scope(b, Op::UpdateWebhook, &Op::UpdateWebhook.base());

    // PATCH: at least one field, isActive a boolean.
    let op = Op::UpdateWebhook;
    b.limit(&format!("{}/not", b.schema(op)));
    // ...where `filter`, `retrySchedule` or `timeoutMs: null` counts: it removes the setting;
    // so do `signing: null` (back to hmac) and `headers: null` (none).
    b.limit(&format!("{}/not/not", b.schema(op)));
    b.limit(&format!("{}/not/not/anyOf", b.schema(op)));
    for body in [
        json!({"retrySchedule": null}),
        json!({"timeoutMs": null}),
        json!({"url": null, "timeoutMs": null}),
        json!({"filter": null}),
        json!({"signing": null}),
        json!({"headers": null}),
        json!({"url": null, "headers": {}}),
        json!({"signing": "both"}),
        json!({"signing": "rsa"}),
        json!({"signing": "ED25519"}),
        json!({"headers": {"x-tenant": "a"}}),
        json!({"headers": "x-tenant: a"}),
        json!({"url": null, "filter": null}),
        json!({}),
        json!({"url": null}),
        json!({"url": null, "events": null, "isActive": null}),
        json!({"isActive": true}),
        json!({"isActive": false}),
        json!({"isActive": "yes"}),
        json!({"isActive": 1}),
        json!({"url": LOOPBACK}),
        json!({"events": ["post.published"]}),
        json!({"url": LOOPBACK, "events": null, "isActive": null}),
        json!({"fullAccess": null, "profileIds": null}),
        json!({"fullAccess": true}),
        json!({"profileIds": []}),
    ] {
        b.agree(op, body, "");
    }
    b.agree(op, json!({"isActive": false}), "");
}

/// `headers` (CONTRACT §15): how many, each name (propertyNames) and each value
/// (additionalProperties) at the document's bounds and around its patterns. The names the
/// server refuses though they are tokens (those keyhook or the connection sets) and a name
/// given twice in different cases are the gaps the description states (and
/// bench/schemathesis_hooks.py keeps out of the cases it generates as valid).
fn static_headers(b: &Bench, op: Op) {
    let h = format!("{}/properties/headers", b.schema(op));
    let put = |v: Value| b.with(op, "headers", v);
    let map = |n: usize| -> Value {
        (0..n)
            .map(|i| (format!("x-{i}"), json!("v")))
            .collect::<serde_json::Map<String, Value>>()
            .into()
    };
    let max = b.number(&format!("{h}/maxProperties"));
    for n in [0, 1, max, max + 1] {
        b.agree(op, put(map(n)), "headers");
    }
    for v in [
        Value::Null,
        json!("x-tenant: a"),
        json!([["x-tenant", "a"]]),
        json!(5),
    ] {
        b.agree(op, put(v), "headers");
    }

    // Names: the token pattern and its length.
    let names = format!("{h}/propertyNames");
    let longest = b.number(&format!("{names}/maxLength"));
    let pattern = b.limit(&format!("{names}/pattern")).as_str().unwrap();
    assert_eq!(
        pattern,
        keyhook::service::webhooks::headers_limits::NAME_PATTERN
    );
    let name = |n: &str| put(json!({ n: "v" }));
    let at_limit = format!("x-{}", "a".repeat(longest - 2));
    let past_limit = format!("x-{}", "a".repeat(longest - 1));
    for n in [
        "x-tenant",
        "X-Tenant",
        "X_Y.z~1",
        "!#$%&'*+-.^_`|~",
        "authorization",
        "x-webhook-id",
        "hosts",
        "contents",
        "a",
        "",
        "x tenant",
        "x:tenant",
        "x\r\ny",
        "x\ny",
        "(x)",
        "x\"y",
        "x/y",
        "é",
        "x\u{7f}",
        &at_limit,
        &past_limit,
    ] {
        b.agree(op, name(n), "headers");
    }

    // Values: the pattern, and its lengths.
    let values = format!("{h}/additionalProperties");
    b.limit(&format!("{values}/pattern"));
    b.strings(
        op,
        "headers",
        &values,
        &|v| put(json!({ "x-tenant": v })),
        &[&repeat('a'), &repeat('~')],
        &[
            "acme",
            "Bearer abc\tdef",
            "a b",
            "!",
            " lead",
            "trail ",
            "\tlead",
            "trail\t",
            " ",
            "\t",
            "a\r\nx-evil: 1",
            "a\nb",
            "a\rb",
            "a\u{0}b",
            "a\u{7f}",
            "é",
            "a\u{2028}b",
        ],
    );

    // What the schema leaves to its description.
    for refused in [
        "host",
        "Host",
        "content-type",
        "Content-Length",
        "content-x",
        "webhook-id",
        "Webhook-Signature",
        "webhook-x",
        "user-agent",
        "connection",
        "transfer-encoding",
        "te",
        "upgrade",
        "keep-alive",
        "proxy-connection",
        "trailer",
    ] {
        b.gap(
            op,
            name(refused),
            true,
            "the names keyhook or the connection sets are the description's",
        );
    }
    b.gap(
        op,
        put(json!({"X-Tenant": "a", "x-tenant": "b"})),
        true,
        "a name given twice in different cases is the description's",
    );
}

fn events(b: &Bench) {
    let op = Op::Emit;
    let props = format!("{}/properties", b.schema(op));
    b.event_names(op, "event", &format!("{props}/event"), &|v| {
        b.with(op, "event", v)
    });
    b.agree(op, b.with(op, "event", Value::Null), "event");
    for v in [
        json!({}),
        json!({"a": [1, {"b": null}]}),
        Value::Null,
        json!([]),
        json!("x"),
        json!(5),
    ] {
        b.agree(op, b.with(op, "data", v), "data");
    }
    // profileId: a profile id as a key's scope takes one (the emitter has full access).
    b.strings(
        op,
        "profileId",
        &format!("{props}/profileId"),
        &|v| b.with(op, "profileId", v),
        &[&repeat('p'), &repeat('é')],
        PROFILE_ID_PROBES,
    );
    b.gap(
        op,
        b.with(op, "profileId", json!(a_key())),
        true,
        "a plaintext key is no profile id",
    );
    for v in [Value::Null, json!(["p"]), json!(5)] {
        b.agree(op, b.with(op, "profileId", v), "profileId");
    }
}

fn replays(b: &Bench) {
    let op = Op::Replay;
    let props = format!("{}/properties", b.schema(op));
    // since: a date-time (not in the future, which only the description says).
    assert_eq!(b.limit(&format!("{props}/since/format")), "date-time");
    for v in [
        json!("2001-01-01T00:00:00Z"),
        json!("2001-01-01T00:00:00.123+02:00"),
        json!("2001-01-01t00:00:00z"),
        Value::Null,
        json!("2001-01-01 00:00:00Z"),
        json!("2001-01-01"),
        json!("2001-01-01T00:00:00"),
        json!("2001-13-01T00:00:00Z"),
        json!("yesterday"),
        json!("2h"),
        json!(""),
        json!(5),
    ] {
        b.agree(op, b.with(op, "since", v), "since");
    }
    b.gap(
        op,
        b.with(op, "since", json!("2999-01-01T00:00:00Z")),
        true,
        "in the future",
    );
    // eventId: the shape of an event id; an id of that shape must also be the user's.
    b.strings(
        op,
        "eventId",
        &format!("{props}/eventId"),
        &|v| b.with(op, "eventId", v),
        &[],
        &[
            "evt_",
            "EVT_0123456789abcdef0123456789abcdef",
            "evt_0123456789ABCDEF0123456789abcdef",
            "evt_0123456789abcdef0123456789abcde",
            "evt_0123456789abcdef0123456789abcdef0",
            " evt_0123456789abcdef0123456789abcdef",
        ],
    );
    // The pattern takes the ids the server makes (the user's event is one).
    let pattern = b.limit(&format!("{props}/eventId/pattern"));
    let re = regex::Regex::new(pattern.as_str().unwrap()).unwrap();
    assert!(re.is_match(&b.event_id), "{pattern} and {}", b.event_id);
    b.agree(op, b.with(op, "eventId", json!(b.event_id)), "eventId");
    b.agree(op, b.with(op, "eventId", Value::Null), "eventId");
    b.gap(
        op,
        b.with(op, "eventId", json!("evt_0123456789abcdef0123456789abcdef")),
        true,
        "an id of the right shape that the user does not have",
    );
    for v in [
        json!(true),
        json!(false),
        Value::Null,
        json!("true"),
        json!(1),
    ] {
        b.agree(op, b.with(op, "failedOnly", v), "failedOnly");
    }
}

/// The shape of each body: an object, with its required fields and no others.
fn bodies(b: &Bench) {
    for op in OPS {
        for body in [json!([]), json!("x"), json!(5), Value::Null] {
            b.agree(op, body, "body");
        }
        b.agree(op, b.with(op, "extra", json!(1)), "extra");
        let required = &b.doc.pointer(&b.schema(op)).unwrap()["required"];
        for field in required.as_array().into_iter().flatten() {
            let field = field.as_str().unwrap();
            let mut body = op.base();
            body.as_object_mut().unwrap().remove(field);
            b.agree(op, body, field);
        }
    }
}

/// The list of a user's webhooks is as long as the document says at most, and the server
/// refuses one more.
#[test]
fn the_webhook_limit_is_the_documented_list_length() {
    let env = Env::new();
    let key = key_of(&env, "many", &[]);
    let server = Server::start_with(&env, &["--allow-private-targets"]);
    let doc = server.call("GET", "/api/v1/openapi.json", None).json();
    let max = doc
        .pointer("/paths/~1webhooks/get/responses/200/content/application~1json/schema/properties/data/maxItems")
        .and_then(Value::as_u64)
        .expect("GET /webhooks states its longest list") as usize;
    for i in 0..=max {
        let r = server.post_json(
            "/api/v1/webhooks",
            &key,
            &json!({"url": format!("{LOOPBACK}{i}"), "events": ["post.published"]}),
        );
        let want = if i < max { 201 } else { 409 };
        assert_eq!(r.status, want, "webhook {}: {}", i + 1, r.body);
    }
    let listed = server.get("/api/v1/webhooks", &key).data();
    assert_eq!(listed.as_array().unwrap().len(), max);
}

/// An `{id}` the document's parameter pattern refuses is not found; the ids the server
/// finds match it.
#[test]
fn ids_outside_the_parameter_patterns_are_not_found() {
    let env = Env::new();
    let admin = key_of(&env, "admin", &[]);
    let server = Server::start_with(&env, &["--allow-private-targets"]);
    let doc = server.call("GET", "/api/v1/openapi.json", None).json();
    let pattern = |path: &str| {
        let p = &doc["paths"][path]["parameters"][0];
        assert_eq!(p["name"], "id");
        regex::Regex::new(p["schema"]["pattern"].as_str().unwrap()).unwrap()
    };

    let key = server
        .post_json("/api/v1/api-keys", &admin, &json!({"name": "k"}))
        .data();
    let (id, prefix) = (
        key["id"].as_str().unwrap(),
        key["keyPrefix"].as_str().unwrap(),
    );
    let hook = server
        .post_json("/api/v1/webhooks", &admin, &Op::CreateWebhook.base())
        .data();
    let hid = hook["id"].as_str().unwrap();
    let cases = [
        (
            "/api-keys/{id}",
            "/api/v1/api-keys",
            vec![
                id.to_string(),
                id.to_uppercase(),
                format!("{id}0"),
                id[1..].to_string(),
                prefix.to_string(),
                prefix.to_uppercase(),
                format!("{prefix}0"),
                prefix[..prefix.len() - 1].to_string(),
                format!("{prefix}%20"),
            ],
        ),
        (
            "/webhooks/{id}",
            "/api/v1/webhooks",
            vec![
                hid.to_string(),
                hid.to_uppercase(),
                format!("{hid}0"),
                hid[..4].to_string(),
                hid[..8].to_uppercase(),
                hid.replace('-', "_"),
                format!("{}g", &hid[..4]),
            ],
        ),
    ];
    assert_eq!(
        server
            .get(&format!("/api/v1/api-keys/{prefix}"), &admin)
            .status,
        200
    );
    assert_eq!(
        server
            .get(&format!("/api/v1/webhooks/{}", &hid[..8]), &admin)
            .status,
        200
    );
    for (template, base, ids) in cases {
        let re = pattern(template);
        for v in ids {
            let r = server.get(&format!("{base}/{v}"), &admin);
            if r.status == 200 {
                assert!(
                    re.is_match(&v),
                    "{template}: {v} is found but the pattern refuses it"
                );
            } else if !re.is_match(&v) {
                assert_eq!(r.status, 404, "{template}: {v}: {}", r.body);
            }
        }
    }
}
