//! The OpenAPI 3.1 description of `/api/v1`, served at `/api/v1/openapi.json`. A test checks
//! that every routed path and method is described and that real responses match the schemas;
//! another (`tests/cli/openapi_bounds.rs`) that each limit and pattern of a request body
//! refuses exactly what the server refuses, at its boundaries.
//!
//! Every limit and pattern here is taken from the constant or pattern its rule uses
//! (`service::keys`, `service::webhooks`, `service::events`, `service::input`, `auth`,
//! `delivery::sign`, `error`); none is written here a second time. The document is written
//! by hand with `json!` rather than derived with utoipa's `ToSchema`: the derive would add a
//! proc-macro dependency tree and build time for a document of a few hundred lines, and what
//! matters most here is not the shape of the model types but the rules (the name pattern,
//! the URL pattern, `fullAccess`'s if/then/else, "null counts as absent", the error responses
//! of each operation), which would be hand-written as attributes or schema functions anyway.

use std::sync::OnceLock;

use serde_json::{json, Value};

use super::reply::{self, Reply};
use keyhook_core::auth::{KEY_LEN, KEY_PATTERN, KEY_PREFIX, KEY_PREFIX_LEN, KEY_PREFIX_PATTERN};
use keyhook_core::error::Error;
use keyhook_core::model::EventProfile;
use keyhook_core::model::Permission;
use keyhook_core::rate::{MAX_RATE, RATE_PATTERN, SHOWN_RATE_PATTERN};
use keyhook_core::service::audit::{self, SINCE_PATTERN};
use keyhook_core::service::event_types::{self, NAME_MAX, NAME_PATTERN};
use keyhook_core::service::events::{
    EVENT_ID_PATTERN, IDEMPOTENCY_FIELD, IDEMPOTENCY_KEY_MAX, IDEMPOTENCY_KEY_PATTERN,
};
use keyhook_core::service::filter;
use keyhook_core::service::webhooks::flow::{MAX_RETRIES, MAX_TIMEOUT_MS};

/// What `time::parse_duration` takes (above zero is its own rule).
/// Digits and a unit, parts joined, at least one part above zero (`0ms` is refused).
const DURATION_PATTERN: &str =
    "^([0-9]+(ms|s|m|h|d|w))*0*[1-9][0-9]*(ms|s|m|h|d|w)([0-9]+(ms|s|m|h|d|w))*$";
use keyhook_core::service::input::ASTRAL_INVISIBLE;
use keyhook_core::service::keys::{
    self, MAX_NAME_CHARS, MAX_PROFILE_IDS, MAX_PROFILE_ID_CHARS, MAX_USES,
};
use keyhook_core::service::portal;
use keyhook_core::service::replay::MAX_REPLAY;
use keyhook_core::service::webhooks::{self, MAX_URL_LEN, MAX_WEBHOOKS_PER_USER};
use keyhook_core::service::Operation;
use keyhook_core::sign::{PUBLIC_KEY_PATTERN, SECRET_PATTERN};

pub fn document() -> &'static Value {
    static DOC: OnceLock<Value> = OnceLock::new();
    DOC.get_or_init(build)
}

pub fn reply() -> Reply {
    static BYTES: OnceLock<Vec<u8>> = OnceLock::new();
    reply::raw(
        200,
        BYTES
            .get_or_init(|| serde_json::to_vec(document()).unwrap_or_default())
            .clone(),
    )
}

fn r(name: &str) -> Value {
    json!({ "$ref": format!("#/components/schemas/{name}") })
}

fn data(schema: Value) -> Value {
    json!({
        "type": "object",
        "required": ["data"],
        "additionalProperties": false,
        "properties": { "data": schema }
    })
}

fn ok(description: &str, schema: Value) -> Value {
    json!({
        "description": description,
        "content": { "application/json": { "schema": data(schema) } }
    })
}

fn err(name: &str) -> Value {
    json!({ "$ref": format!("#/components/responses/{name}") })
}

fn body(schema: Value) -> Value {
    json!({ "required": true, "content": { "application/json": { "schema": schema } } })
}

fn id_param(what: &str, pattern: &str) -> Value {
    json!([{
        "name": "id", "in": "path", "required": true,
        "description": what, "schema": { "type": "string", "pattern": pattern }
    }])
}

/// The `{id}` of `/webhooks/{id}`: a webhook id (a UUID), or a prefix of one of at least
/// `MIN_ID_PREFIX` characters (any case, as `service::webhooks::find` looks it up). A shorter
/// one is outside the pattern: the server answers 404, or 400 listing the webhooks it
/// matches when several do (what an operator who typed it wants to see).
fn webhook_id_param() -> Value {
    let help = format!(
        "Webhook id, or a prefix of it (at least {} characters, any case) that only one of \
         the caller's webhooks has; a prefix several have is 400, listing them",
        webhooks::MIN_ID_PREFIX
    );
    let pattern = format!(
        "^[0-9A-Fa-f-]{{{},{}}}$",
        webhooks::MIN_ID_PREFIX,
        webhooks::ID_LEN
    );
    id_param(&help, &pattern)
}

/// The `{id}` of `/api-keys/{id}`: a key id (a UUID) or a key prefix; anything else is 404.
fn key_id_pattern() -> String {
    let prefix = KEY_PREFIX_PATTERN
        .trim_start_matches('^')
        .trim_end_matches('$');
    format!("^(?:[0-9a-f]{{8}}-[0-9a-f]{{4}}-[0-9a-f]{{4}}-[0-9a-f]{{4}}-[0-9a-f]{{12}}|{prefix})$")
}

/// The codes of the errors the HTTP layer answers itself (`reply`, and tiny_http as patched)
/// beside those of [`Error::CODES`].
const HTTP_CODES: &[&str] = &[
    "METHOD_NOT_ALLOWED",
    "PAYLOAD_TOO_LARGE",
    "UNSUPPORTED_MEDIA_TYPE",
    "BAD_REQUEST",
    "REQUEST_TIMEOUT",
    "HEADERS_TOO_LARGE",
    "URI_TOO_LONG",
    "NOT_IMPLEMENTED",
    "HTTP_VERSION_NOT_SUPPORTED",
    "EXPECTATION_FAILED",
];

/// Every `code` an error response can have.
fn error_codes() -> Vec<&'static str> {
    // The CLI's alone: `serve` creates its database, so no request meets a missing one.
    let cli_only = Error::NoDatabase(String::new()).code();
    let mut codes: Vec<&str> = Error::CODES
        .iter()
        .copied()
        .filter(|c| *c != cli_only)
        .collect();
    for c in HTTP_CODES {
        if !codes.contains(c) {
            codes.push(c);
        }
    }
    codes
}

// The HTTP layer's error description names one line limit for both kinds of line.
const _: () = assert!(tiny_http::MAX_REQUEST_LINE == tiny_http::MAX_HEADER_LINE);

/// The error responses every authenticated operation can give, plus `extra`.
fn errors(extra: &[&str]) -> Vec<(String, Value)> {
    let mut out: Vec<(String, Value)> = vec![
        ("401".into(), err("Unauthorized")),
        // KEY_EXHAUSTED: any authenticated operation of a key with no uses left.
        ("403".into(), err("Forbidden")),
        ("405".into(), err("MethodNotAllowed")),
        // serve --rate-limit: any authenticated operation (and failed authentications).
        ("429".into(), err("RateLimited")),
        ("500".into(), err("InternalError")),
        ("503".into(), err("Unavailable")),
    ];
    // Answered by the HTTP layer itself, before routing (vendor/tiny_http/PATCHES.md, e).
    out.extend(protocol_errors(!extra.contains(&"400")));
    for code in extra.iter().filter(|c| **c != "403") {
        let name = match *code {
            "400" => "ValidationError",
            "403" => "Forbidden",
            "404" => "NotFound",
            "409" => "LimitReached",
            "413" => "PayloadTooLarge",
            "415" => "UnsupportedMediaType",
            "429" => "RateLimited",
            other => other,
        };
        out.push(((*code).into(), err(name)));
    }
    out
}

/// The errors any request can get from the HTTP layer (its head too large, too slow,
/// malformed or framed ambiguously; an HTTP version or transfer coding the server does not
/// speak). `bad_request`: list 400 (operations that validate a body list it already, as
/// `ValidationError`, whose description names BAD_REQUEST too).
fn protocol_errors(bad_request: bool) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    if bad_request {
        out.push(("400".into(), err("BadRequest")));
    }
    for (code, name) in [
        ("408", "RequestTimeout"),
        ("414", "UriTooLong"),
        ("417", "ExpectationFailed"),
        ("431", "HeadersTooLarge"),
        ("501", "NotImplemented"),
        ("505", "HttpVersionNotSupported"),
    ] {
        out.push((code.into(), err(name)));
    }
    out
}

fn op(summary: &str, id: &str, success: (&str, Value), errs: &[&str]) -> Value {
    let mut responses = serde_json::Map::new();
    // Every operation is authenticated: its success carries the key's RateLimit-* headers,
    // besides any of its own.
    let mut headers = rate_limit_headers(false);
    if let Some(own) = success.1["headers"].as_object() {
        for (k, v) in own {
            headers[k] = v.clone();
        }
    }
    responses.insert(success.0.to_string(), with(success.1, "headers", headers));
    for (code, v) in errors(errs) {
        responses.insert(code, v);
    }
    json!({ "summary": summary, "operationId": id, "responses": responses })
}

/// `Retry-After` (with `retry`) and the `RateLimit-*` headers that every authenticated
/// response carries under `serve --rate-limit` (draft-ietf-httpapi-ratelimit-headers): on
/// each operation's success and on the errors [`AUTHENTICATED_ERRORS`] name. Not required:
/// without `--rate-limit` none is sent.
fn rate_limit_headers(retry: bool) -> Value {
    let int = |description: &str| json!({ "description": description, "schema": { "type": "integer", "minimum": 0 } });
    let mut h = json!({
        "RateLimit-Limit": int("serve --rate-limit (on every response to an authenticated request; absent without it): the key's burst, N"),
        "RateLimit-Remaining": int("serve --rate-limit: requests the key may still make at once"),
        "RateLimit-Reset": int("serve --rate-limit: seconds until the key's burst is whole again")
    });
    if retry {
        h["Retry-After"] = int("Seconds to wait before trying again (whole seconds, rounded up)");
    }
    h
}

fn with(mut operation: Value, key: &str, value: Value) -> Value {
    operation[key] = value;
    operation
}

fn no_content(description: &str) -> (&'static str, Value) {
    ("204", json!({ "description": description }))
}

fn build() -> Value {
    let error_response = |description: &str| {
        json!({
            "description": description,
            "content": { "application/json": { "schema": r("Error") } }
        })
    };
    let mut doc = json!({
        "openapi": "3.1.0",
        "info": {
            "title": "keyhook",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "API keys and webhook subscriptions of a publishing service."
        },
        "servers": [{ "url": "/api/v1" }],
        "security": [{ "bearer": [] }],
        "paths": paths(),
        "components": {
            "securitySchemes": {
                "bearer": { "type": "http", "scheme": "bearer", "description": format!("{KEY_PREFIX} followed by {} lowercase hex characters", KEY_LEN - KEY_PREFIX.len()) }
            },
            "responses": {
                "ValidationError": error_response("VALIDATION_ERROR: one detail per problem. A body that is not one JSON document, or in which an object repeats a key (at any depth), gets one detail on `body`; or BAD_REQUEST (see BadRequest)"),
                "BadRequest": error_response("BAD_REQUEST: a malformed request line or header line (control characters, a bare CR, whitespace before the colon, line folding), a request target with a `#` or other than a path or an http(s) URI with a valid host (no userinfo) and port, an invalid Host or more than one (none in HTTP/1.1), a malformed or conflicting Content-Length, Content-Length with Transfer-Encoding, a malformed Transfer-Encoding, or a body that is malformed (chunked framing) or incomplete; nothing is acted on, and the connection is closed"),
                "RequestTimeout": error_response("REQUEST_TIMEOUT: the request line and headers did not all arrive within the header timeout (serve --header-timeout, default 10 s; from connecting for a connection's first request, from the first byte for later ones), or the body within the header timeout after them; the connection is closed"),
                "HeadersTooLarge": error_response(&format!("HEADERS_TOO_LARGE: a header line over {} KiB ({} bytes), the header lines over {} KiB in all, or more than {} header lines; the connection is closed",
                                                           tiny_http::MAX_HEADER_LINE / 1024, tiny_http::MAX_HEADER_LINE, tiny_http::MAX_HEADERS_SIZE / 1024, tiny_http::MAX_HEADERS)),
                "UriTooLong": error_response(&format!("URI_TOO_LONG: the request line is over {} KiB ({} bytes): its request target is longer than the server parses; the connection is closed",
                                                      tiny_http::MAX_REQUEST_LINE / 1024, tiny_http::MAX_REQUEST_LINE)),
                "ExpectationFailed": error_response("EXPECTATION_FAILED: an Expect header other than 100-continue; the connection is closed"),
                "NotImplemented": error_response("NOT_IMPLEMENTED: a Transfer-Encoding other than chunked, or a request line over the limit with no space in it (a method longer than any the server has); the connection is closed"),
                "HttpVersionNotSupported": error_response("HTTP_VERSION_NOT_SUPPORTED: only HTTP/1.0 and HTTP/1.1 are served; the connection is closed"),
                "Unauthorized": with(error_response(&format!("UNAUTHORIZED, or API_KEY_EXPIRED with message `{}`", Error::Expired)),
                                     "headers", json!({ "WWW-Authenticate": www_authenticate() })),
                "Forbidden": error_response(&format!("FORBIDDEN: a readonly key writing; a key creating a key broader than itself, or one that outlives it (details: `expiresAt`), or with a higher rate limit or more uses than it has (details: `rateLimit`, `remainingUses`); a key deleting a key broader than itself (wider scope, higher permission, a later expiry, a higher rate limit or more uses left); a key limited to profiles giving a webhook a scope beyond its own (details: `profileIds`, or `fullAccess` for full access) or emitting an event without one of its profiles (details: `profileId`). Or, for any authenticated request, KEY_EXHAUSTED with message `{}`: the key's uses (`remainingUses`) are used up", Error::Exhausted)),
                "NotFound": error_response("NOT_FOUND: no such path or id for the caller's user; a webhook whose scope is not within the caller's (a key limited to profiles sees only webhooks of its profiles) is not found either"),
                "MethodNotAllowed": with(error_response("METHOD_NOT_ALLOWED, with an Allow header"),
                                         "headers", json!({ "Allow": allow() })),
                "LimitReached": error_response(&format!("WEBHOOK_LIMIT_REACHED: the user has {MAX_WEBHOOKS_PER_USER} webhooks")),
                "PayloadTooLarge": error_response(&format!("PAYLOAD_TOO_LARGE: body over {} KiB (declared, or a chunk over what is left of it; then the connection is closed)", super::body::MAX_BODY / 1024)),
                "WebhookDisabled": error_response("WEBHOOK_DISABLED: the webhook is disabled; enable it before replaying to it"),
                "Conflict": error_response("CONFLICT: a change of the event catalog that would break what uses it; only the operator's CLI changes the catalog, so no route of this API answers it"),
                "UnsupportedMediaType": error_response("UNSUPPORTED_MEDIA_TYPE: the body is not application/json"),
                "RateLimited": with(error_response(&format!("RATE_LIMITED: the key is over its own `rateLimit`, or else over `serve --rate-limit` (N requests per second or minute, burst N, counted per instance; such a request uses none of the key's `remainingUses`), or the client address is over it with failed authentications (then the key is not looked at); or, for a test ping, the user already has {} test pings running, the most at once. Try again after Retry-After seconds", super::pings::MAX_PINGS_PER_USER)),
                                    "headers", rate_limit_headers(true)),
                "InternalError": error_response("INTERNAL_ERROR"),
                "Unavailable": error_response("SERVICE_UNAVAILABLE: the database cannot take writes now; or a repeat with the Idempotency-Key of a request still in progress (a test ping in flight); or the server already serves its maximum of connections (serve --max-connections, default 1024; serve --max-connections-per-address from one client address, default 128), with Retry-After: 1, and closes the connection")
            },
            "schemas": schemas()
        }
    });
    let plain = doc["components"]["responses"].clone();
    for name in AUTHENTICATED_ERRORS {
        let response = &mut doc["components"]["responses"][name];
        let mut headers = rate_limit_headers(false);
        if let Some(own) = response["headers"].as_object() {
            for (k, v) in own {
                headers[k] = v.clone();
            }
        }
        response["headers"] = headers;
    }
    // The key check's refusals: its own copies, with the error object in headers too.
    for (name, required) in CHECK_REFUSALS {
        let mut response = doc["components"]["responses"][name].clone();
        if response["headers"].is_null() {
            response["headers"] = json!({});
        }
        for (header, d, always) in [
            ("X-Keyhook-Error-Code", "The error object's `code` (for a proxy that drops the check's body: nginx `auth_request`)", true),
            ("X-Keyhook-Error-Message", "The error object's `message`, percent-encoded where it is not visible ASCII or space (and its `%`, `\"`, `\\`)", true),
            ("X-Keyhook-Error-Field", "The `field` of the error object's first detail, percent-encoded as the message; absent without details", false),
        ] {
            response["headers"][header] = json!({
                "description": d,
                "required": required && always,
                "schema": if always { json!({ "type": "string", "minLength": 1 }) } else { json!({ "type": "string" }) }
            });
        }
        if name == "RateLimited" {
            response["headers"]["Retry-After"]["required"] = json!(true);
        }
        doc["components"]["responses"][format!("Check{name}")] = response;
    }
    // The document itself is served without a key: its errors are the plain ones, inline.
    if let Some(responses) = doc["paths"]["/openapi.json"]["get"]["responses"].as_object_mut() {
        for resp in responses.values_mut() {
            let name = resp["$ref"].as_str().and_then(|r| r.rsplit('/').next());
            if let Some(name) = name.filter(|n| AUTHENTICATED_ERRORS.contains(n)) {
                *resp = plain[name].clone();
            }
        }
    }
    doc
}

/// The refusals of the key check (`/auth`, `/auth/{path}`) that it declares as its own
/// `Check*` responses: each also carries the error object as `X-Keyhook-Error-*` headers
/// (`auth_check::error_headers`). `true`: always (the check's own refusals); `false`: also
/// answered before the check is reached, without them (a malformed request's 400, a full
/// server's 503).
const CHECK_REFUSALS: [(&str, bool); 6] = [
    ("ValidationError", false),
    ("Unauthorized", true),
    ("Forbidden", true),
    ("RateLimited", true),
    ("InternalError", false),
    ("Unavailable", false),
];

/// The error responses a request can get after its key was authenticated, which then carry
/// the key's `RateLimit-*` headers (`api::dispatch`). Not 401 (no key), not the protocol
/// errors (answered before any key is looked at), not 429 (its own, with Retry-After).
const AUTHENTICATED_ERRORS: &[&str] = &[
    "ValidationError",
    "Forbidden",
    "NotFound",
    "MethodNotAllowed",
    "LimitReached",
    "PayloadTooLarge",
    "WebhookDisabled",
    "UnsupportedMediaType",
    "InternalError",
    "Unavailable",
];

fn paths() -> Value {
    let write = ["400", "403", "404", "413", "415"];
    let mut paths = json!({
        "/api-keys": {
            "get": op("List the caller's API keys", "listApiKeys",
                      ("200", ok("The keys of the caller's user", json!({"type": "array", "items": r("ApiKey")}))), &["403"]),
            "post": with(op("Create an API key (its plaintext is in this response only)", "createApiKey",
                            ("201", ok("The new key, with `key`", r("ApiKeyCreated"))), &write),
                         "requestBody", body(r("CreateApiKey")))
        },
        "/api-keys/{id}": {
            "parameters": id_param(&format!("Key id or its {KEY_PREFIX_LEN}-character prefix"), &key_id_pattern()),
            "get": op("Show an API key", "getApiKey", ("200", ok("The key", r("ApiKey"))), &["403", "404"]),
            "delete": op("Delete an API key at once", "deleteApiKey", no_content("Deleted"), &["400", "403", "404"])
        },
        "/webhooks": {
            "get": op("List the caller's webhooks", "listWebhooks",
                      ("200", ok(&format!("At most {MAX_WEBHOOKS_PER_USER} webhooks"), json!({"type": "array", "maxItems": MAX_WEBHOOKS_PER_USER, "items": r("Webhook")}))), &["403"]),
            "post": with(op("Create a webhook subscription", "createWebhook",
                            ("201", ok("The new webhook, with its secret", r("Webhook"))),
                            &["400", "403", "404", "409", "413", "415"]),
                         "requestBody", body(r("CreateWebhook")))
        },
        "/webhooks/{id}": {
            "parameters": webhook_id_param(),
            "get": op("Show a webhook", "getWebhook", ("200", ok("The webhook", r("Webhook"))), &["400", "403", "404"]),
            "patch": with(op("Change url, events, scope (fullAccess, profileIds), filter, retrySchedule, timeoutMs, rate, ordered, isActive (isActive: true resets failCount), signing or headers", "updateWebhook",
                             ("200", ok("The webhook as changed", r("Webhook"))), &write),
                          "requestBody", body(r("UpdateWebhook"))),
            "delete": op("Delete a webhook and its delivery log", "deleteWebhook", no_content("Deleted"), &["400", "403", "404"])
        },
        "/webhooks/{id}/test": {
            "parameters": webhook_id_param(),
            "post": op("Send a webhook.test delivery now", "testWebhook",
                       ("200", ok("What the endpoint answered (also when delivery failed)", r("TestResult"))), &["400", "403", "404", "429"])
        },
        "/webhooks/{id}/deliveries": {
            "parameters": webhook_id_param(),
            "get": op(&format!("The newest {} delivery attempts, newest first", webhooks::ATTEMPT_LOG_LIMIT), "listDeliveries",
                      ("200", ok("Attempts", json!({"type": "array", "items": r("DeliveryAttempt")}))), &["400", "403", "404"])
        },
        "/events": {
            "post": with(with(op("Emit an event to the caller's subscribed, active webhooks whose scope covers its profileId", "emitEvent",
                                 ("202", ok("Queued; with an Idempotency-Key already used by the caller's user for the same profileId (or, both user-wide, none) within 24 hours, the FIRST event as it was accepted, and nothing is queued", r("EventAccepted"))), &write),
                              "requestBody", body(r("EmitEvent"))),
                         "parameters", json!([{
                             "name": IDEMPOTENCY_FIELD, "in": "header", "required": false,
                             "description": format!("A key for this event, per user and per profileId (a user-wide event's keys are apart from every profile's, so a repeat never answers with an event of another profile): a repeat with the same key and profileId within 24 hours returns the first event (202, the same body) and queues nothing, whatever its event and data (the first event wins); after 24 hours the key may be used again. 1 to {IDEMPOTENCY_KEY_MAX} printable ASCII characters (space to ~), not starting or ending with a space, sent at most once; otherwise 400 VALIDATION_ERROR with field `{IDEMPOTENCY_FIELD}`"),
                             "schema": { "type": "string", "minLength": 1, "maxLength": IDEMPOTENCY_KEY_MAX, "pattern": IDEMPOTENCY_KEY_PATTERN }
                         }]))
        },
        "/webhooks/{id}/replay": {
            "parameters": webhook_id_param(),
            "post": with(op("Queue past events again for this webhook (each keeps its webhook-id, the event id)", "replayWebhook",
                            ("202", ok("How many deliveries were queued", r("Replayed"))), &write),
                         "requestBody", json!({ "required": false, "content": { "application/json": { "schema": r("ReplayWebhook") } } }))
        },
        "/event-types": {
            "get": op("The event catalog: every event type, by name (any valid key)", "listEventTypes",
                      ("200", ok("The event types", json!({"type": "array", "items": r("EventType")}))), &[])
        },
        "/event-types/{name}": {
            "parameters": [{
                "name": "name", "in": "path", "required": true, "description": "The event name",
                "schema": { "type": "string", "minLength": 1 }
            }],
            "get": op("Show an event type (any valid key)", "getEventType", ("200", ok("The event type", r("EventType"))), &["404"])
        },
        "/audit": {
            "get": with(op("The audit log of the caller's user, newest first (any valid key, readonly too)", "listAudit",
                           ("200", ok("Entries, newest first", json!({"type": "array", "maxItems": audit::MAX_LIMIT, "items": r("AuditEntry")}))), &["400"]),
                        "parameters", json!([
                            {
                                "name": "since", "in": "query", "required": false,
                                "description": "Only entries at or after this moment: an RFC 3339 date-time with an offset (`2026-01-01T00:00:00Z`), or a duration back from now (`90m`, `7d`; units ms, s, m, h, d, w); not in the future (400, as a replay's `since`). The pattern is the part always taken; any RFC 3339 date-time and durations up to 100 years are too",
                                "schema": { "type": "string", "pattern": SINCE_PATTERN }
                            },
                            {
                                "name": "limit", "in": "query", "required": false,
                                "description": "At most this many entries",
                                "schema": { "type": "integer", "minimum": 1, "maximum": audit::MAX_LIMIT, "default": audit::DEFAULT_LIMIT }
                            }
                        ]))
        },
        "/openapi.json": {
            "get": {
                "summary": "This document",
                "operationId": "getOpenApi",
                "security": [],
                "responses": {
                    "200": { "description": "OpenAPI 3.1", "content": { "application/json": { "schema": { "type": "object", "additionalProperties": true } } } },
                    "405": err("MethodNotAllowed"),
                    "503": err("Unavailable")
                }
            }
        }
    });
    for (code, v) in protocol_errors(true) {
        paths["/openapi.json"]["get"]["responses"][code] = v;
    }
    // CONTRACT §13: the key check a reverse proxy asks.
    paths["/auth"] = json!({ "get": check_op("checkKey", false) });
    paths["/auth/{path}"] = json!({
        "parameters": [{
            "name": "path", "in": "path", "required": true,
            "description": "The path of the request described (Envoy `ext_authz`): this request's method, `/{path}` and its query are the request the key is checked for; it may hold several segments",
            "schema": { "type": "string", "minLength": 1 }
        }],
        "get": check_op("checkKeyForPath", true)
    });
    paths["/webhooks/{id}/replay"]["post"]["responses"]["409"] = err("WebhookDisabled");
    // secrets+delivery rules: secret rotation with a grace period.
    paths["/webhooks/{id}/rotate-secret"] = json!({
        "parameters": webhook_id_param(),
        "post": with(op("Give a webhook a new secret; the old one keeps signing (second) until the grace period ends, then is deleted",
                        "rotateWebhookSecret",
                        ("200", ok("The webhook, with its new secret", r("Webhook"))), &write),
                     "requestBody", json!({ "required": false, "content": { "application/json": { "schema": r("RotateSecret") } } }))
    });
    // CONTRACT §14: the developer portal's links.
    paths["/portal-links"] = json!({
        "post": with(op("Mint a single-use link to the developer portal for the caller's user (its url holds the token: shown in this response only)", "createPortalLink",
                        ("201", ok("The link, with its url", r("PortalLink"))), &write),
                     "requestBody", json!({ "required": false, "content": { "application/json": { "schema": r("CreatePortalLink") } } }))
    });
    paths["/portal-links/{id}"] = json!({
        "parameters": [{
            "name": "id", "in": "path", "required": true, "description": "The link's id",
            "schema": { "type": "string", "minLength": 1 }
        }],
        "delete": op("Revoke a portal link and end its session", "revokePortalLink", no_content("Revoked"), &["403", "404"])
    });
    idempotency_refusals(&mut paths);
    paths
}

/// Each operation that refuses an `Idempotency-Key` (`Operation::idempotency_key`) says so
/// in its description, with the rule's reason; each webhook operation that honours one
/// (`Operation::honours_idempotency_key`; POST /events declares its own, whose rule differs)
/// declares the header, with the constraints of POST /events' header.
fn idempotency_refusals(paths: &mut Value) {
    for (template, method) in super::router::ROUTES {
        let Ok(m) = method.to_ascii_uppercase().parse::<tiny_http::Method>() else {
            continue;
        };
        let path = template.replace("{id}", "x");
        let super::router::Match::Found(route) = super::router::route(&m, &path) else {
            continue;
        };
        let op = route.operation();
        if let Err(why) = op.idempotency_key() {
            paths[*template][*method]["description"] = json!(format!(
                "An `{IDEMPOTENCY_FIELD}` header is refused here: 400 VALIDATION_ERROR with \
                 field `{IDEMPOTENCY_FIELD}`, and nothing is done ({why})."
            ));
        } else if op.honours_idempotency_key() && op != Operation::EmitEvent {
            paths[*template][*method]["parameters"] = json!([idempotent_webhook_header()]);
        }
    }
}

/// The `Idempotency-Key` header of a webhook operation that honours it
/// (`service::idempotency`).
fn idempotent_webhook_header() -> Value {
    json!({
        "name": IDEMPOTENCY_FIELD, "in": "header", "required": false,
        "description": format!("A key for this request, per user, per operation and per webhook (the one in the path; none for POST /webhooks), held 24 hours: a repeat with the same key and the same JSON body (members in any order; no body is {{}}) answers what the first request answered (same status) and does nothing again. A create or a rotation answers the webhook as it is now, with its secret in force, and 404 when it was deleted since or the caller's key does not see it; a test ping answers the first ping's result (503 while that ping is still in flight) and a replay its count. A repeat with another body is refused: 400 VALIDATION_ERROR with field `{IDEMPOTENCY_FIELD}`. A request that failed holds no key. After 24 hours the key may be used again. 1 to {IDEMPOTENCY_KEY_MAX} printable ASCII characters (space to ~), not starting or ending with a space, sent at most once; otherwise 400 VALIDATION_ERROR with field `{IDEMPOTENCY_FIELD}`"),
        "schema": { "type": "string", "minLength": 1, "maxLength": IDEMPOTENCY_KEY_MAX, "pattern": IDEMPOTENCY_KEY_PATTERN }
    })
}

/// What the description of human-visible text says beyond its pattern (whose classes hold
/// only the Basic Multilingual Plane: `service::input::ASTRAL_INVISIBLE`).
fn visible_rule() -> String {
    format!(
        "No control characters (Cc), no format characters (Cf: bidi overrides and isolates, \
         zero-width characters, U+FEFF...), no line or paragraph separators, no other invisible \
         characters (U+034F, Hangul and Khmer fillers, U+2800, U+FFFC, private-use characters, \
         variation selectors, tags) and no noncharacters; not a plaintext API key. The pattern \
         states this for the Basic Multilingual Plane only (so that every regular-expression \
         engine reads it alike, JavaScript's without the u flag too); above it, these are refused \
         as well: {ASTRAL_INVISIBLE}."
    )
}

/// `WWW-Authenticate` of every 401 (`reply::send`).
fn www_authenticate() -> Value {
    json!({
        "description": "The authentication scheme to use: always `Bearer realm=\"keyhook\"`",
        "required": true,
        "schema": { "type": "string", "const": reply::WWW_AUTHENTICATE }
    })
}

/// The key check (`/auth`, `/auth/{path}`): any method is answered alike (the description
/// says so; GET is the one documented). `own`: the request describes itself (`/auth/{path}`).
fn check_op(id: &str, own: bool) -> Value {
    let text = |d: &str| json!({ "description": d, "schema": { "type": "string" } });
    let mut success = json!({
        "description": "The key may make the request described: no body; who is calling, for the upstream",
        "headers": {}
    });
    for (name, d) in [
        ("X-Keyhook-Key-Id", "The key's id"),
        ("X-Keyhook-Key-Prefix", "The key's prefix"),
        ("X-Keyhook-User", "The key's user, percent-encoded (bytes outside visible ASCII and `%,*\"\\`)"),
        ("X-Keyhook-Permission", "`readwrite` or `readonly`"),
        ("X-Keyhook-Profiles", "`*` for full access, else each profile id percent-encoded as X-Keyhook-User, joined by `,`"),
    ] {
        success["headers"][name] = text(d);
        // Every one on each allowed check (auth_check::answer).
        success["headers"][name]["required"] = json!(true);
    }
    let mut o = op(
        if own {
            "Whether the key may make the request this one describes by its own method and path (Envoy ext_authz)"
        } else {
            "Whether the key may make the request a reverse proxy describes (nginx auth_request, Caddy forward_auth, Traefik ForwardAuth)"
        },
        id,
        ("200", success),
        &["400"],
    );
    o["description"] = json!("Any method reaches this path alike. The request described: `X-Original-Method` / `X-Original-URI` (nginx), `X-Forwarded-Method` / `X-Forwarded-Uri` (Caddy, Traefik), and for `/auth/{path}` this request's own method and path; sources that disagree are refused (400, the detail naming the header). Without a method the request described is a GET. GET, HEAD and OPTIONS read, any other method writes (a readonly key: 403). Profiles named by `serve --auth-profile` templates or a `profileId` query parameter must be within the key's scope (403, detail `profileId`). A URI with a `.` or `..` segment, `//`, or an encoded `/`, `\\` or `.` is refused (400). A refusal's code, message and first detail's field are also sent as `X-Keyhook-Error-Code`, `X-Keyhook-Error-Message` and `X-Keyhook-Error-Field`. Each check is a use of the key (`lastUsedAt`, `remainingUses`, rate limits).");
    if let Some(r) = o["responses"].as_object_mut() {
        // Every method is answered: never a 405.
        r.remove("405");
        for (code, resp) in r.iter_mut() {
            let name = resp["$ref"].as_str().and_then(|r| r.rsplit('/').next());
            if let Some((name, _)) = CHECK_REFUSALS.iter().find(|(n, _)| Some(*n) == name) {
                debug_assert!(code.starts_with(['4', '5']));
                *resp = err(&format!("Check{name}"));
            }
        }
    }
    let header = |name: &str, d: &str| json!({ "name": name, "in": "header", "required": false, "description": d, "schema": { "type": "string" } });
    o["parameters"] = json!([
        header(
            "X-Original-Method",
            "The method of the request described (nginx)"
        ),
        header(
            "X-Original-URI",
            "The URI (path and query) of the request described (nginx)"
        ),
        header(
            "X-Forwarded-Method",
            "The method of the request described (Caddy, Traefik)"
        ),
        header(
            "X-Forwarded-Uri",
            "The URI of the request described (Caddy, Traefik)"
        ),
    ]);
    o
}

/// `Allow` of every 405: the methods the path takes.
fn allow() -> Value {
    json!({
        "description": "The methods the path takes, comma-separated (`GET, HEAD`, `GET, PATCH, DELETE`...)",
        "required": true,
        "schema": { "type": "string", "pattern": "^[A-Z]+(?:, [A-Z]+)*$" }
    })
}

/// A webhook URL as `webhooks::check_url` takes it (`webhooks::url_pattern`); the
/// description names what the pattern leaves out.
fn url_schema() -> Value {
    json!({
        "type": "string",
        "format": "uri",
        "maxLength": MAX_URL_LEN,
        "pattern": webhooks::url_pattern(),
        "description": "http or https; a host name (the last label starting with a letter), a \
            dotted-quad IPv4 address or a bracketed IPv6 address (which the pattern leaves out); \
            no credentials, no fragment; written as an RFC 3986 URI (percent-encode anything \
            else); a label starting with xn-- must be valid punycode. An IP-literal host of a private, loopback or link-local network is refused \
            unless the server runs with --allow-private-targets."
    })
}

fn nullable(schema: &Value) -> Value {
    let mut s = schema.clone();
    s["type"] = json!([s["type"].clone(), "null"]);
    s
}

/// An event name: a string of the catalog's shape; which names exist is the catalog's
/// (GET /event-types), so no enum.
fn event_name() -> Value {
    json!({
        "type": "string", "minLength": 1, "maxLength": NAME_MAX, "pattern": NAME_PATTERN,
        "description": "A name of the event catalog (GET /event-types); an unknown one is 400"
    })
}

fn schemas() -> Value {
    let url = url_schema();
    let permissions: Vec<&str> = Permission::ALL.iter().map(|p| p.as_str()).collect();
    let ts = json!({ "type": "string", "format": "date-time" });
    // The scope's profile ids, of a key and of a webhook alike (`keys::ProfileIds`).
    // A webhook's own retry schedule and timeout (CONTRACT §15, `service::webhooks::flow`).
    let duration = json!({ "type": "string", "pattern": DURATION_PATTERN, "description": "A duration above zero: digits and a unit (ms, s, m, h, d, w), parts joined (`1h30m`)" });
    let schedule_doc = format!("This webhook's delays before each retry (at most {MAX_RETRIES}; `[]`: no retry), instead of serve's `--retry-schedule`; null: serve's. A receiver's 429 or 503 with `Retry-After` (seconds or an HTTP-date, at most a day) holds all of the webhook's deliveries until then and does not count toward `failCount`.");
    let timeout_doc = format!("The timeout of one attempt to this webhook in milliseconds (1 to {MAX_TIMEOUT_MS}), instead of serve's `--delivery-timeout`; null: serve's.");
    let schedule_out = json!({ "type": ["array", "null"], "maxItems": MAX_RETRIES, "items": { "type": "string" }, "description": schedule_doc });
    let timeout_out = json!({ "type": ["integer", "null"], "minimum": 1, "maximum": MAX_TIMEOUT_MS, "description": timeout_doc });
    let schedule_in = json!({ "type": ["array", "null"], "maxItems": MAX_RETRIES, "items": duration, "description": schedule_doc });
    let timeout_in = timeout_out.clone();
    let rate_doc = "At most this many attempts to the webhook per second or per minute (`N/s`, `N/min`; N from 1 to 1000000): a token bucket with a burst of N, counted across every instance (each claim of a delivery takes a token, in the database). null: no limit.";
    let ordered_doc = "true: the webhook's deliveries are attempted one at a time, in the order they were queued (a replay's copy joins the end of the queue); a failing one holds the later ones until it is delivered or exhausted (its retries used up, a 410 Gone, or cancelled with a disabled webhook), and the deliveries list marks it `holdsQueue`. false (the default, and every webhook made before it): several at a time, in no particular order. null on create is false, on update false.";
    let filter_doc = format!(
        "A CEL expression over `event`, `profileId` and `data`: only events for which it is `true` are queued (an evaluation error or a non-boolean queues nothing: the event is skipped for the webhook, listed in its deliveries with `skipped`, and counted in keyhook_filter_errors_total). At most {} characters, nesting at most {} deep, at most {} macros (none inside another's predicate), each over at most {} elements. A syntax error is 400 with details `filter`.",
        filter::MAX_LEN, filter::MAX_DEPTH, filter::MAX_MACROS, filter::MAX_RANGE
    );
    let profile_ids = json!({
        "type": ["array", "null"],
        "maxItems": MAX_PROFILE_IDS,
        "uniqueItems": true,
        "items": {
            "type": "string", "maxLength": MAX_PROFILE_ID_CHARS, "pattern": keys::profile_id_pattern(),
            "description": format!("Not blank. {}", visible_rule())
        }
    });
    let ts_or_null = json!({ "type": ["string", "null"], "format": "date-time" });
    let mut schemas = json!({
        "ApiKey": {
            "type": "object",
            "additionalProperties": false,
            "required": ["id", "userId", "keyPrefix", "name", "permission", "fullAccess", "profileIds", "lastUsedAt", "expiresAt", "rateLimit", "remainingUses", "createdAt"],
            "properties": {
                "id": { "type": "string" },
                "userId": { "type": "string" },
                "keyPrefix": { "type": "string", "pattern": KEY_PREFIX_PATTERN },
                "name": { "type": "string", "minLength": 1, "maxLength": MAX_NAME_CHARS },
                "permission": { "enum": permissions },
                "fullAccess": { "type": "boolean" },
                "profileIds": { "type": "array", "items": { "type": "string" } },
                "lastUsedAt": ts_or_null,
                "expiresAt": ts_or_null,
                "rateLimit": { "type": ["string", "null"], "pattern": SHOWN_RATE_PATTERN,
                               "description": "The key's own rate limit (burst N, counted per instance), instead of `serve --rate-limit`'s; `null`: the server's" },
                "remainingUses": { "type": ["integer", "null"], "minimum": 0, "maximum": MAX_USES,
                                   "description": "Requests the key may still make (each authenticated request uses one; at 0 the key gets 403 KEY_EXHAUSTED); `null`: no limit" },
                "createdAt": ts
            }
        },
        "CreateApiKey": {
            "type": "object",
            "additionalProperties": false,
            "description": "`null` counts as absent for every optional field. `expiresAt` must be in the future.",
            "required": ["name"],
            "properties": {
                "name": {
                    "type": "string",
                    "description": format!("At most {MAX_NAME_CHARS} characters as sent, the white space around them included; then trimmed, at least 1 left. {}", visible_rule()),
                    "maxLength": MAX_NAME_CHARS,
                    "pattern": keys::name_pattern()
                },
                "permission": { "enum": permissions.iter().map(|p| json!(p)).chain([Value::Null]).collect::<Vec<_>>(),
                                "default": Permission::Readwrite.as_str() },
                "fullAccess": { "type": ["boolean", "null"], "default": true },
                "profileIds": profile_ids.clone(),
                "expiresAt": { "type": ["string", "null"], "format": "date-time" },
                "rateLimit": { "type": ["string", "null"], "pattern": RATE_PATTERN,
                               "description": format!("N/s or N/min (N from 1 to {MAX_RATE}, burst N): the key's own rate limit. A key with one may create only keys with one within it (no larger burst, no faster refill)") },
                "remainingUses": { "type": ["integer", "null"], "minimum": 1, "maximum": MAX_USES,
                                   "description": "How many requests the key may make. A key with uses left may create only keys with no more" }
            },
            // fullAccess false needs profile ids; fullAccess true (the default) allows none.
            "if": { "required": ["fullAccess"], "properties": { "fullAccess": { "const": false } } },
            "then": { "required": ["profileIds"], "properties": { "profileIds": { "type": "array", "minItems": 1, "items": { "type": "string" } } } },
            "else": { "properties": { "profileIds": { "maxItems": 0 } } }
        },
        "Webhook": {
            "type": "object",
            "additionalProperties": false,
            "required": ["id", "userId", "url", "events", "fullAccess", "profileIds", "filter", "secret", "signing", "publicKey", "headerNames", "isActive", "failCount", "createdAt", "updatedAt", "ephemeral", "retrySchedule", "timeoutMs", "rate", "ordered"],
            "properties": {
                "id": { "type": "string" },
                "userId": { "type": "string" },
                "url": { "type": "string", "format": "uri", "maxLength": MAX_URL_LEN },
                "events": { "type": "array", "minItems": 1, "items": event_name() },
                "fullAccess": { "type": "boolean", "description": "true: events of every profile and user-wide events are delivered; false: only events whose profileId is in profileIds" },
                "profileIds": { "type": "array", "items": { "type": "string" } },
                "filter": { "type": ["string", "null"], "maxLength": filter::MAX_LEN, "description": filter_doc },
                "secret": { "type": "string", "pattern": SECRET_PATTERN },
                "signing": signing_mode(),
                "publicKey": { "type": ["string", "null"], "pattern": PUBLIC_KEY_PATTERN, "description": "The Ed25519 public key (`whpk_` and the base64 of its 32 bytes) that verifies the `v1a` signatures of an `ed25519` or `both` webhook; null until the webhook signs with Ed25519. Its private key is never returned." },
                "headerNames": { "type": "array", "items": { "type": "string" }, "description": "The names (lowercase) of the static headers sent with each delivery; their values are write-only." },
                "isActive": { "type": "boolean" },
                "failCount": { "type": "integer", "minimum": 0 },
                "createdAt": ts,
                "updatedAt": ts,
                "ephemeral": { "type": "boolean", "description": "true: made by `keyhook listen` while it runs, delivered only by that process and deleted when it stops (or within a minute of its last heartbeat)" },
                "retrySchedule": schedule_out,
                "timeoutMs": timeout_out,
                "rate": { "type": ["string", "null"], "pattern": SHOWN_RATE_PATTERN, "description": rate_doc },
                "ordered": { "type": "boolean", "description": ordered_doc }
            }
        },
        "CreateWebhook": {
            "type": "object",
            "additionalProperties": false,
            "required": ["url", "events"],
            "description": "The scope (`fullAccess`, `profileIds`) follows the rules of an API key's; with neither field, the webhook gets the caller's own scope. A key limited to profiles gives only scopes within its own (else 403, details `profileIds` or `fullAccess`). `null` counts as absent.",
            "properties": {
                "url": url,
                "events": { "type": "array", "minItems": 1, "uniqueItems": true, "items": event_name() },
                "fullAccess": { "type": ["boolean", "null"], "default": true },
                "profileIds": profile_ids.clone(),
                "filter": { "type": ["string", "null"], "minLength": 1, "maxLength": filter::MAX_LEN, "description": filter_doc },
                "retrySchedule": schedule_in.clone(),
                "timeoutMs": timeout_in.clone(),
                "rate": { "type": ["string", "null"], "pattern": RATE_PATTERN, "description": rate_doc },
                "ordered": { "type": ["boolean", "null"], "description": ordered_doc },
                "signing": signing_field(),
                "headers": static_headers()
            },
            "if": { "required": ["fullAccess"], "properties": { "fullAccess": { "const": false } } },
            "then": { "required": ["profileIds"], "properties": { "profileIds": { "type": "array", "minItems": 1, "items": { "type": "string" } } } },
            "else": { "properties": { "profileIds": { "maxItems": 0 } } }
        },
        "UpdateWebhook": {
            "type": "object",
            "additionalProperties": false,
            "description": "A field left out or `null` stays as it is, except `filter`, `retrySchedule`, `timeoutMs`, `rate` and `ordered` (`null` removes it: back to serve's schedule and timeout, no rate limit, unordered), `signing` (`null` is `hmac`) and `headers` (`null` removes them all); at least one must be given. The scope is replaced as a whole when `fullAccess` or `profileIds` is given, with the rules of CreateWebhook (`fullAccess` absent is `true`).",
            "properties": {
                "url": nullable(&url),
                "events": { "type": ["array", "null"], "minItems": 1, "uniqueItems": true, "items": event_name() },
                "fullAccess": { "type": ["boolean", "null"] },
                "profileIds": profile_ids.clone(),
                "isActive": { "type": ["boolean", "null"] },
                "filter": { "type": ["string", "null"], "minLength": 1, "maxLength": filter::MAX_LEN, "description": filter_doc },
                "retrySchedule": schedule_in,
                "timeoutMs": timeout_in,
                "rate": { "type": ["string", "null"], "pattern": RATE_PATTERN, "description": rate_doc },
                "ordered": { "type": ["boolean", "null"], "description": ordered_doc },
                "signing": signing_field(),
                "headers": static_headers()
            },
            // At least one field not null: not (every field given is null). Stated with `not`
            // rather than an `anyOf` of objects, which code generators read as a union of
            // models (openapi-python-client left the operation out).
            "not": { "properties": {
                "url": { "type": "null" },
                "events": { "type": "null" },
                "fullAccess": { "type": "null" },
                "profileIds": { "type": "null" },
                "isActive": { "type": "null" }
            }, "not": { "anyOf": [
                { "required": ["filter"] },
                { "required": ["retrySchedule"] },
                { "required": ["timeoutMs"] },
                { "required": ["rate"] },
                { "required": ["ordered"] },
                { "required": ["signing"] },
                { "required": ["headers"] }
            ] } },
            "if": { "required": ["fullAccess"], "properties": { "fullAccess": { "const": false } } },
            "then": { "required": ["profileIds"], "properties": { "profileIds": { "type": "array", "minItems": 1, "items": { "type": "string" } } } },
            "else": { "properties": { "profileIds": { "maxItems": 0 } } }
        },
        "TestResult": {
            "type": "object",
            "additionalProperties": false,
            "required": ["delivered", "statusCode", "statusText"],
            "properties": {
                "delivered": { "type": "boolean" },
                "statusCode": { "type": "integer", "minimum": 0, "maximum": 999 },
                "statusText": { "type": "string" }
            }
        },
        "DeliveryAttempt": {
            "type": "object",
            "additionalProperties": false,
            "required": ["id", "deliveryId", "eventId", "event", "profileId", "attempt", "attemptedAt", "delivered", "statusCode", "statusText", "durationMs", "responseExcerpt", "skipped", "holdsQueue", "queuedBehind"],
            "properties": {
                "id": { "type": "integer" },
                "deliveryId": { "type": ["string", "null"] },
                "eventId": { "type": "string" },
                "event": { "type": "string" },
                "profileId": { "type": ["string", "null"], "description": "The event's profile; null for a user-wide event and a test ping" },
                "attempt": { "type": "integer", "minimum": 0, "description": "1 for a delivery's first attempt, 2 for its first retry...; 0 for a skip" },
                "attemptedAt": ts,
                "delivered": { "type": "boolean" },
                "statusCode": { "type": "integer", "minimum": 0, "maximum": 999 },
                "statusText": { "type": "string" },
                "durationMs": { "type": "integer", "minimum": 0 },
                "responseExcerpt": { "type": "string" },
                "skipped": { "type": ["string", "null"], "description": "Set when this entry is a skip, not an attempt: the event was not sent to the webhook because its filter could not judge it (an evaluation error, a result that is not a boolean, or a stored filter that no longer compiles); the kind of error, never a value of the event's data. Then `attempt` is 0, `delivered` false, `statusCode` 0, `statusText` \"skipped\", `deliveryId` null. Null for an attempt." },
                "holdsQueue": { "type": "boolean", "description": "true on the attempts of the delivery that holds its ordered webhook's queue (`ordered`): it has failed and waits for its retry, or is being retried, and no later delivery of the webhook is attempted until it is delivered or exhausted. false otherwise" },
                "queuedBehind": { "type": "integer", "minimum": 0, "description": "When `holdsQueue`: how many deliveries wait behind it; 0 otherwise" }
            }
        },
        "EventType": {
            "type": "object",
            "additionalProperties": false,
            "required": ["name", "description", "schema", "example", "profile", "deprecated", "createdAt", "updatedAt"],
            "description": "An entry of the event catalog, which the operator changes with `keyhook event-types`. The built-in types are dated 1970-01-01T00:00:00Z.",
            "properties": {
                "name": { "type": "string", "maxLength": NAME_MAX, "pattern": NAME_PATTERN },
                "description": { "type": ["string", "null"], "maxLength": event_types::DESCRIPTION_MAX },
                "schema": { "type": ["object", "boolean", "null"], "additionalProperties": true, "description": "A JSON Schema (draft 2020-12) that an event's `data` must match (else 400, a detail per problem, at most 20, named like `data.tags[2]`)" },
                "example": { "type": ["object", "null"], "additionalProperties": true, "description": "Example `data`, which matches the schema" },
                "profile": { "enum": EventProfile::ALL.map(EventProfile::as_str), "description": "`optional`: an event may name a profileId; `required`: it must (else 400 on profileId); `none`: it must not (400)" },
                "deprecated": { "type": "boolean", "description": "No new subscriptions (400); existing ones keep receiving" },
                "createdAt": ts,
                "updatedAt": ts
            }
        },
        "AuditEntry": {
            "type": "object",
            "additionalProperties": false,
            "required": ["id", "userId", "at", "actor", "via", "action", "target", "details"],
            "properties": {
                "id": { "type": "integer" },
                "userId": { "type": "string" },
                "at": ts,
                "actor": { "type": "string", "description": "The acting key's keyPrefix (via http), `cli:<login name>` (via cli), or `system` (automatic changes)" },
                "via": { "enum": audit::Via::ALL.map(audit::Via::as_str) },
                "action": { "enum": audit::Action::ALL.map(audit::Action::as_str) },
                "target": { "type": "string", "description": "The id of the key or webhook" },
                "details": { "type": "object", "additionalProperties": true, "description": "What changed: names, permissions, scopes, URLs (credentials masked); never a key or a secret" }
            }
        },
        "EmitEvent": {
            "type": "object",
            "additionalProperties": false,
            "required": ["event"],
            "description": "`null` counts as absent for `data` and `profileId`. Without `profileId` the event is user-wide and is delivered only to webhooks with fullAccess; with one, to webhooks with fullAccess or whose profileIds hold it. A key limited to profiles must name one of its own (else 403, details `profileId`). Receivers get `{id, event, createdAt, profileId, data}`.",
            "properties": {
                "event": event_name(),
                "data": { "type": ["object", "null"], "additionalProperties": true, "description": "Any JSON object: its fields are yours (the event type's `schema`, if it has one, must accept them)" },
                "profileId": {
                    "type": ["string", "null"], "minLength": 1, "maxLength": MAX_PROFILE_ID_CHARS, "pattern": keys::profile_id_pattern(),
                    "description": format!("Not blank. {}", visible_rule())
                }
            }
        },
        "ReplayWebhook": {
            "type": "object",
            "additionalProperties": false,
            "description": format!("Every field is optional, and no body is `{{}}`. Replays the caller's events created at or after `since` (default: 24 hours ago; not in the future) that the webhook subscribes to, or only the event `eventId` (then `since` does not filter; an id the user does not have, or an event the webhook does not subscribe to, is 400 on `eventId`). With `failedOnly`, only events whose newest delivery to this webhook ended failed or cancelled (queued again), or failed and waits for its next retry (sent now, not queued twice; counted in `queued`). At most {MAX_REPLAY} deliveries: a window with more is refused (400 on `since`) and nothing is queued. `null` counts as absent."),
            "properties": {
                "since": { "type": ["string", "null"], "format": "date-time" },
                "eventId": { "type": ["string", "null"], "pattern": EVENT_ID_PATTERN },
                "failedOnly": { "type": ["boolean", "null"] }
            }
        },
        "CreatePortalLink": {
            "type": "object",
            "additionalProperties": false,
            "description": "Every field is optional, and no body is `{}`: a link of the key's own scope, for 15 minutes, read-write. A link is never broader than the key (403 on `fullAccess` or `profileIds`) nor outlives it (403 on `ttlSeconds`).",
            "properties": {
                "fullAccess": { "type": ["boolean", "null"] },
                "profileIds": profile_ids.clone(),
                "ttlSeconds": { "type": ["integer", "null"], "minimum": 1, "maximum": portal::MAX_TTL_MS / 1000, "default": portal::DEFAULT_TTL_MS / 1000 },
                "readOnly": { "type": ["boolean", "null"], "default": false }
            },
            "if": { "required": ["fullAccess"], "properties": { "fullAccess": { "const": false } } },
            "then": { "required": ["profileIds"], "properties": { "profileIds": { "type": "array", "minItems": 1, "items": { "type": "string" } } } },
            "else": { "properties": { "profileIds": { "maxItems": 0 } } }
        },
        "PortalLink": {
            "type": "object",
            "additionalProperties": false,
            "required": ["id", "url", "expiresAt", "readOnly", "fullAccess", "profileIds"],
            "properties": {
                "id": { "type": "string" },
                "url": { "type": "string", "description": "`{public-url}/portal#<token>`: a secret, opened once before `expiresAt`" },
                "expiresAt": ts,
                "readOnly": { "type": "boolean" },
                "fullAccess": { "type": "boolean" },
                "profileIds": { "type": "array", "items": { "type": "string" } }
            }
        },
        "Replayed": {
            "type": "object",
            "additionalProperties": false,
            "required": ["queued"],
            "properties": {
                "queued": { "type": "integer", "minimum": 0, "maximum": MAX_REPLAY }
            }
        },
        "EventAccepted": {
            "type": "object",
            "additionalProperties": false,
            "required": ["id", "event", "profileId", "createdAt", "deliveries"],
            "properties": {
                "id": { "type": "string", "pattern": EVENT_ID_PATTERN },
                "event": { "type": "string" },
                "profileId": { "type": ["string", "null"] },
                "createdAt": ts,
                "deliveries": { "type": "integer", "minimum": 0 }
            }
        },
        "Error": {
            "type": "object",
            "additionalProperties": false,
            "required": ["error"],
            "properties": {
                "error": {
                    "type": "object",
                    "additionalProperties": false,
                    "required": ["code", "message", "details"],
                    "properties": {
                        "code": { "enum": error_codes() },
                        "message": { "type": "string" },
                        "details": {
                            "type": "array",
                            "items": {
                                "type": "object",
                                "additionalProperties": false,
                                "required": ["field", "message"],
                                "properties": { "field": { "type": "string" }, "message": { "type": "string" } }
                            }
                        }
                    }
                }
            }
        }
    });
    // The creation response is an ApiKey with `key`; spelled out, since `allOf` cannot
    // extend a schema that forbids additional properties.
    let mut created = schemas["ApiKey"].clone();
    created["properties"]["key"] = json!({ "type": "string", "pattern": KEY_PATTERN });
    created["required"]
        .as_array_mut()
        .expect("required is an array")
        .push(json!("key"));
    schemas["ApiKeyCreated"] = created;
    // secrets+delivery rules
    schemas["RotateSecret"] = json!({
        "type": "object",
        "additionalProperties": false,
        "description": "Left out (or no body at all): a grace period of 24 hours.",
        "properties": {
            "graceSeconds": {
                "type": ["integer", "null"],
                "minimum": 0,
                "maximum": webhooks::MAX_GRACE_SECONDS,
                "description": format!("How long the old secret keeps signing deliveries, in seconds (default {}); 0 deletes it at once", webhooks::DEFAULT_GRACE_SECONDS)
            }
        }
    });
    schemas
}

/// A webhook's `signing` (CONTRACT §15).
fn signing_mode() -> Value {
    json!({
        "type": "string",
        "enum": keyhook_core::model::SigningMode::ALL.map(|m| m.as_str()),
        "description": "How deliveries are signed: `hmac` (`v1,`: HMAC-SHA256 with `secret`), `ed25519` (`v1a,`: Ed25519, verified with `publicKey`) or `both` (`v1,...` then `v1a,...`, space-separated)."
    })
}

/// `signing` of a create or an update: a mode, or `null` (the default, `hmac`).
fn signing_field() -> Value {
    let mut s = nullable(&signing_mode());
    s["enum"]
        .as_array_mut()
        .expect("the modes")
        .push(Value::Null);
    s["description"] = json!("How deliveries are signed (see Webhook's `signing`); `null` or absent on a create, `null` on an update: `hmac`.");
    s
}

/// `headers` of a create or an update: write-only static headers, name to value (a
/// free-form object: the rules on names and values are the server's, stated here).
fn static_headers() -> Value {
    use keyhook_core::service::webhooks::headers_limits::{
        MAX_HEADERS, MAX_NAME_LEN, MAX_VALUE_LEN, NAME_PATTERN, VALUE_PATTERN,
    };
    // The names and values the patterns take; what no schema can say (the refused names,
    // a name given twice in other cases) is the description's.
    json!({
        "type": ["object", "null"],
        "maxProperties": MAX_HEADERS,
        "propertyNames": {
            "type": "string",
            "pattern": NAME_PATTERN,
            "maxLength": MAX_NAME_LEN
        },
        "additionalProperties": {
            "type": "string",
            "pattern": VALUE_PATTERN,
            "minLength": 1,
            "maxLength": MAX_VALUE_LEN
        },
        "description": format!("Static headers sent with each delivery, name to value (a string). At most {MAX_HEADERS}; a name is an RFC 9110 token of at most {MAX_NAME_LEN} characters, case-insensitive (kept lowercase), given once; a value is 1 to {MAX_VALUE_LEN} bytes of visible ASCII, spaces and tabs, not starting or ending with whitespace. Beyond what the schema states, refused (400 on `headers`): `webhook-*`, `content-*`, `host`, `user-agent`, hop-by-hop names (`connection`, `transfer-encoding`, `te`, `upgrade`, `keep-alive`, `proxy-connection`, `trailer`), and one name given twice in different cases (`X-A` and `x-a`). The values are write-only: stored encrypted, never logged, audited or returned (the Webhook shows `headerNames`). On an update the object replaces the whole set; `null` or `{{}}` removes them.")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `code` enum and the error responses name the same codes: each response's
    /// description starts with the code it carries, and each code is described somewhere.
    #[test]
    fn every_error_code_is_described_and_listed() {
        let doc = document();
        let codes = &doc["components"]["schemas"]["Error"]["properties"]["error"]["properties"]
            ["code"]["enum"];
        let codes: Vec<&str> = codes
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_str().unwrap())
            .collect();
        let descriptions: Vec<&str> = doc["components"]["responses"]
            .as_object()
            .unwrap()
            .values()
            .map(|r| r["description"].as_str().unwrap())
            .collect();
        for d in &descriptions {
            let first = d.split([':', ',']).next().unwrap();
            assert!(
                codes.contains(&first),
                "{first} (of {d:?}) is not in the code enum"
            );
        }
        for c in &codes {
            assert!(
                descriptions.iter().any(|d| d.contains(c)),
                "no response describes {c}"
            );
        }
        // Every code the core gives over HTTP.
        for c in Error::CODES {
            assert!(codes.contains(c) || *c == "DATABASE_NOT_FOUND", "{c}");
        }
    }
}
