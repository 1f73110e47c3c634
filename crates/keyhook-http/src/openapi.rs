//! The OpenAPI 3.1 description of `/api/v1`, served at `/api/v1/openapi.json`. A test checks
//! that every routed path and method is described and that real responses match the schemas.

use std::sync::OnceLock;

use serde_json::{json, Value};

use super::reply::{self, Reply};
use crate::service::events::CATALOG;

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

/// A webhook id (a UUID), or a prefix of one; anything else is 404.
const WEBHOOK_ID: &str = "^[0-9A-Fa-f-]{1,36}$";
/// How `/webhooks/{id}` names a webhook (`service::webhooks::find`).
const WEBHOOK_ID_HELP: &str = "Webhook id, or a prefix of it (at least 4 characters, any case) \
    that only one of the caller's webhooks has; a prefix several have is 400, listing them";
/// A key id (a UUID) or a key prefix; anything else is 404.
const KEY_ID: &str =
    "^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|kp_[0-9a-f]{8})$";

/// The error responses every authenticated operation can give, plus `extra`.
fn errors(extra: &[&str]) -> Vec<(String, Value)> {
    let mut out: Vec<(String, Value)> = vec![
        ("401".into(), err("Unauthorized")),
        ("405".into(), err("MethodNotAllowed")),
        ("500".into(), err("InternalError")),
        ("503".into(), err("Unavailable")),
    ];
    // Answered by the HTTP layer itself, before routing (vendor/tiny_http/PATCHES.md, e).
    out.extend(protocol_errors(!extra.contains(&"400")));
    for code in extra {
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
    responses.insert(success.0.to_string(), success.1);
    for (code, v) in errors(errs) {
        responses.insert(code, v);
    }
    json!({ "summary": summary, "operationId": id, "responses": responses })
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
    json!({
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
                "bearer": { "type": "http", "scheme": "bearer", "description": "kp_ followed by 64 lowercase hex characters" }
            },
            "responses": {
                "ValidationError": error_response("VALIDATION_ERROR: one detail per problem. A body that is not one JSON document, or in which an object repeats a key (at any depth), gets one detail on `body`; or BAD_REQUEST (see BadRequest)"),
                "BadRequest": error_response("BAD_REQUEST: a malformed request line or header line (control characters, a bare CR, whitespace before the colon, line folding), a request target with a `#` or other than a path or an http(s) URI with a valid host (no userinfo) and port, an invalid Host or more than one (none in HTTP/1.1), a malformed or conflicting Content-Length, Content-Length with Transfer-Encoding, a malformed Transfer-Encoding, or a body that is malformed (chunked framing) or incomplete; nothing is acted on, and the connection is closed"),
                "RequestTimeout": error_response("REQUEST_TIMEOUT: the request line and headers did not all arrive within the header timeout (serve --header-timeout, default 10 s; from connecting for a connection's first request, from the first byte for later ones), or the body within the header timeout after them; the connection is closed"),
                "HeadersTooLarge": error_response("HEADERS_TOO_LARGE: the request line or a header line over 8 KiB (8192 bytes), the header lines over 64 KiB in all, or more than 100 header lines; the connection is closed"),
                "ExpectationFailed": error_response("EXPECTATION_FAILED: an Expect header other than 100-continue; the connection is closed"),
                "NotImplemented": error_response("NOT_IMPLEMENTED: a Transfer-Encoding other than chunked; the connection is closed"),
                "HttpVersionNotSupported": error_response("HTTP_VERSION_NOT_SUPPORTED: only HTTP/1.0 and HTTP/1.1 are served; the connection is closed"),
                "Unauthorized": error_response("UNAUTHORIZED, or API_KEY_EXPIRED with message `API key has expired`"),
                "Forbidden": error_response("FORBIDDEN: a readonly key writing; a key creating a key broader than itself, or one that outlives it (details: `expiresAt`); a key deleting a key broader than itself (wider scope, higher permission or a later expiry)"),
                "NotFound": error_response("NOT_FOUND: no such path or id for the caller's user"),
                "MethodNotAllowed": error_response("METHOD_NOT_ALLOWED, with an Allow header"),
                "LimitReached": error_response("WEBHOOK_LIMIT_REACHED: the user has 10 webhooks"),
                "PayloadTooLarge": error_response("PAYLOAD_TOO_LARGE: body over 64 KiB (declared, or a chunk over what is left of it; then the connection is closed)"),
                "UnsupportedMediaType": error_response("UNSUPPORTED_MEDIA_TYPE: the body is not application/json"),
                "RateLimited": with(error_response(&format!("RATE_LIMITED: the user already has {} test pings running, the most at once; try again after Retry-After seconds", super::pings::MAX_PINGS_PER_USER)),
                                    "headers", json!({ "Retry-After": { "description": "Seconds to wait before trying again", "schema": { "type": "integer", "minimum": 0 } } })),
                "InternalError": error_response("INTERNAL_ERROR"),
                "Unavailable": error_response("SERVICE_UNAVAILABLE: the database cannot take writes now; or the server already serves its maximum of connections (serve --max-connections, default 1024), with Retry-After: 1, and closes the connection")
            },
            "schemas": schemas()
        }
    })
}

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
            "parameters": id_param("Key id or its 11-character prefix", KEY_ID),
            "get": op("Show an API key", "getApiKey", ("200", ok("The key", r("ApiKey"))), &["403", "404"]),
            "delete": op("Delete an API key at once", "deleteApiKey", no_content("Deleted"), &["400", "403", "404"])
        },
        "/webhooks": {
            "get": op("List the caller's webhooks", "listWebhooks",
                      ("200", ok("At most 10 webhooks", json!({"type": "array", "maxItems": 10, "items": r("Webhook")}))), &["403"]),
            "post": with(op("Create a webhook subscription", "createWebhook",
                            ("201", ok("The new webhook, with its secret", r("Webhook"))),
                            &["400", "403", "404", "409", "413", "415"]),
                         "requestBody", body(r("CreateWebhook")))
        },
        "/webhooks/{id}": {
            "parameters": id_param(WEBHOOK_ID_HELP, WEBHOOK_ID),
            "get": op("Show a webhook", "getWebhook", ("200", ok("The webhook", r("Webhook"))), &["400", "403", "404"]),
            "patch": with(op("Change url, events or isActive (isActive: true resets failCount)", "updateWebhook",
                             ("200", ok("The webhook as changed", r("Webhook"))), &write),
                          "requestBody", body(r("UpdateWebhook"))),
            "delete": op("Delete a webhook and its delivery log", "deleteWebhook", no_content("Deleted"), &["400", "403", "404"])
        },
        "/webhooks/{id}/test": {
            "parameters": id_param(WEBHOOK_ID_HELP, WEBHOOK_ID),
            "post": op("Send a webhook.test delivery now", "testWebhook",
                       ("200", ok("What the endpoint answered (also when delivery failed)", r("TestResult"))), &["400", "403", "404", "429"])
        },
        "/webhooks/{id}/deliveries": {
            "parameters": id_param(WEBHOOK_ID_HELP, WEBHOOK_ID),
            "get": op("The newest 100 delivery attempts, newest first", "listDeliveries",
                      ("200", ok("Attempts", json!({"type": "array", "items": r("DeliveryAttempt")}))), &["400", "403", "404"])
        },
        "/events": {
            "post": with(op("Emit an event to the caller's subscribed, active webhooks", "emitEvent",
                            ("202", ok("Queued", r("EventAccepted"))), &write),
                         "requestBody", body(r("EmitEvent")))
        },
        "/openapi.json": {
            "get": {
                "summary": "This document",
                "operationId": "getOpenApi",
                "security": [],
                "responses": {
                    "200": { "description": "OpenAPI 3.1", "content": { "application/json": { "schema": { "type": "object" } } } },
                    "405": err("MethodNotAllowed"),
                    "503": err("Unavailable")
                }
            }
        }
    });
    for (code, v) in protocol_errors(true) {
        paths["/openapi.json"]["get"]["responses"][code] = v;
    }
    paths
}

/// Rust's `str::trim` removes these (Unicode White_Space).
const WHITE_SPACE: &str =
    r"\u0009-\u000d\u0020\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000";
/// `char::is_control` (Unicode Cc).
const CONTROL: &str = r"\u0000-\u001f\u007f-\u009f";

/// `service::input::invisible_char` (with the noncharacters of planes 1 to 16 left to the
/// description): format (Cf) characters, line and paragraph separators and the characters
/// that render as nothing. The astral ones are written `\u{...}` (ECMA-262 with the `u` flag).
const INVISIBLE: &str = concat!(
    r"\u00ad\u034f\u0600-\u0605\u061c\u06dd\u070f\u0890-\u0891\u08e2\u115f\u1160",
    r"\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u2028-\u202e\u2060-\u206f\u2800\u3164\ue000-\uf8ff",
    r"\ufdd0-\ufdef\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufffc\ufffe\uffff",
    r"\u{110bd}\u{110cd}\u{13430}-\u{1343f}\u{1bca0}-\u{1bca3}\u{1d159}\u{1d173}-\u{1d17a}",
    r"\u{e0000}-\u{e0fff}\u{f0000}-\u{10ffff}"
);
/// The white space that `str::trim` removes and a name may have around it: WHITE_SPACE
/// without the control characters and the line and paragraph separators.
const SPACE: &str = r"\u0020\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000";

/// What the description of human-visible text says beyond its pattern.
const VISIBLE_RULE: &str = "No control characters (Cc), no format characters (Cf: bidi \
    overrides and isolates, zero-width characters, U+FEFF...), no line or paragraph separators, \
    no other invisible characters (U+034F, Hangul and Khmer fillers, U+2800, U+FFFC, private-use characters, variation selectors, \
    tags) and no noncharacters; not a plaintext API key.";

/// A profile id as `keys::validate` takes it: at least one character that is not white
/// space, and none that is invisible.
fn not_blank() -> String {
    let middle = format!("[^{CONTROL}{WHITE_SPACE}{INVISIBLE}]");
    format!("^[^{CONTROL}{INVISIBLE}]*{middle}[^{CONTROL}{INVISIBLE}]*$")
}

/// A key name as `keys::validate` takes it: trimmed, 1 to 100 characters without control or
/// invisible characters.
fn name_pattern() -> String {
    let edge = format!("[^{CONTROL}{WHITE_SPACE}{INVISIBLE}]");
    format!("^[{SPACE}]*{edge}(?:[^{CONTROL}{INVISIBLE}]{{0,98}}{edge})?[{SPACE}]*$")
}

/// A webhook URL as `webhooks::check_url` takes it: http or https, a host (a host name whose
/// last label starts with a letter, or a dotted-quad IPv4 address), an optional port, no
/// credentials, no fragment, only characters RFC 3986 allows. Two rules are left to the
/// description: bracketed IPv6 hosts are accepted too (a pattern for them would be long and
/// easy to get wrong), and the SSRF guard refuses IP literals of private, loopback and
/// link-local networks (unless the server allows private targets).
fn url_schema() -> Value {
    let octet = "(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])";
    let host =
        format!("(?:(?:[A-Za-z0-9-]+\\.)*[A-Za-z][A-Za-z0-9-]*\\.?|(?:{octet}\\.){{3}}{octet})");
    let port = "(?::(?:6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3}))?";
    let rest = r"(?:[/?](?:[A-Za-z0-9._~!$&'()*+,;=:@/?-]|%[0-9A-Fa-f]{2})*)?";
    json!({
        "type": "string",
        "format": "uri",
        "maxLength": 2048,
        "pattern": format!("^[Hh][Tt][Tt][Pp][Ss]?://{host}{port}{rest}$"),
        "description": "http or https; a host name (the last label starting with a letter), a \
            dotted-quad IPv4 address or a bracketed IPv6 address (which the pattern leaves out); \
            no credentials, no fragment; written as an RFC 3986 URI (percent-encode anything \
            else). An IP-literal host of a private, loopback or link-local network is refused \
            unless the server runs with --allow-private-targets."
    })
}

fn nullable(schema: &Value) -> Value {
    let mut s = schema.clone();
    s["type"] = json!([s["type"].clone(), "null"]);
    s
}

fn schemas() -> Value {
    let url = url_schema();
    let name = name_pattern();
    let not_blank = not_blank();
    let ts = json!({ "type": "string", "format": "date-time" });
    let ts_or_null = json!({ "type": ["string", "null"], "format": "date-time" });
    let mut schemas = json!({
        "ApiKey": {
            "type": "object",
            "additionalProperties": false,
            "required": ["id", "userId", "keyPrefix", "name", "permission", "fullAccess", "profileIds", "lastUsedAt", "expiresAt", "createdAt"],
            "properties": {
                "id": { "type": "string" },
                "userId": { "type": "string" },
                "keyPrefix": { "type": "string", "pattern": "^kp_[0-9a-f]{8}$" },
                "name": { "type": "string", "minLength": 1, "maxLength": 100 },
                "permission": { "enum": ["readwrite", "readonly"] },
                "fullAccess": { "type": "boolean" },
                "profileIds": { "type": "array", "items": { "type": "string" } },
                "lastUsedAt": ts_or_null,
                "expiresAt": ts_or_null,
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
                    "description": format!("Trimmed: 1 to 100 characters. {VISIBLE_RULE}"),
                    "pattern": name
                },
                "permission": { "enum": ["readwrite", "readonly", null], "default": "readwrite" },
                "fullAccess": { "type": ["boolean", "null"], "default": true },
                "profileIds": {
                    "type": ["array", "null"],
                    "maxItems": 100,
                    "uniqueItems": true,
                    "items": {
                        "type": "string", "maxLength": 100, "pattern": not_blank,
                        "description": format!("Not blank. {VISIBLE_RULE}")
                    }
                },
                "expiresAt": { "type": ["string", "null"], "format": "date-time" }
            },
            // fullAccess false needs profile ids; fullAccess true (the default) allows none.
            "if": { "required": ["fullAccess"], "properties": { "fullAccess": { "const": false } } },
            "then": { "required": ["profileIds"], "properties": { "profileIds": { "type": "array", "minItems": 1 } } },
            "else": { "properties": { "profileIds": { "maxItems": 0 } } }
        },
        "Webhook": {
            "type": "object",
            "additionalProperties": false,
            "required": ["id", "userId", "url", "events", "secret", "isActive", "failCount", "createdAt", "updatedAt"],
            "properties": {
                "id": { "type": "string" },
                "userId": { "type": "string" },
                "url": { "type": "string", "format": "uri", "maxLength": 2048 },
                "events": { "type": "array", "minItems": 1, "items": { "enum": CATALOG } },
                "secret": { "type": "string", "pattern": "^whsec_[A-Za-z0-9+/]+={0,2}$" },
                "isActive": { "type": "boolean" },
                "failCount": { "type": "integer", "minimum": 0 },
                "createdAt": ts,
                "updatedAt": ts
            }
        },
        "CreateWebhook": {
            "type": "object",
            "additionalProperties": false,
            "required": ["url", "events"],
            "properties": {
                "url": url,
                "events": { "type": "array", "minItems": 1, "uniqueItems": true, "items": { "enum": CATALOG } }
            }
        },
        "UpdateWebhook": {
            "type": "object",
            "additionalProperties": false,
            "description": "A field left out or `null` stays as it is; at least one must be given.",
            "properties": {
                "url": nullable(&url),
                "events": { "type": ["array", "null"], "minItems": 1, "uniqueItems": true, "items": { "enum": CATALOG } },
                "isActive": { "type": ["boolean", "null"] }
            },
            "anyOf": [
                { "required": ["url"], "properties": { "url": { "type": "string" } } },
                { "required": ["events"], "properties": { "events": { "type": "array" } } },
                { "required": ["isActive"], "properties": { "isActive": { "type": "boolean" } } }
            ]
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
            "required": ["id", "deliveryId", "eventId", "event", "attempt", "attemptedAt", "delivered", "statusCode", "statusText", "durationMs", "responseExcerpt"],
            "properties": {
                "id": { "type": "integer" },
                "deliveryId": { "type": ["string", "null"] },
                "eventId": { "type": "string" },
                "event": { "type": "string" },
                "attempt": { "type": "integer", "minimum": 1 },
                "attemptedAt": ts,
                "delivered": { "type": "boolean" },
                "statusCode": { "type": "integer", "minimum": 0, "maximum": 999 },
                "statusText": { "type": "string" },
                "durationMs": { "type": "integer", "minimum": 0 },
                "responseExcerpt": { "type": "string" }
            }
        },
        "EmitEvent": {
            "type": "object",
            "additionalProperties": false,
            "required": ["event"],
            "description": "`null` counts as absent for `data`.",
            "properties": {
                "event": { "enum": CATALOG },
                "data": { "type": ["object", "null"] }
            }
        },
        "EventAccepted": {
            "type": "object",
            "additionalProperties": false,
            "required": ["id", "event", "createdAt", "deliveries"],
            "properties": {
                "id": { "type": "string", "pattern": "^evt_[0-9a-f]{32}$" },
                "event": { "type": "string" },
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
                        "code": { "enum": ["VALIDATION_ERROR", "UNAUTHORIZED", "API_KEY_EXPIRED", "FORBIDDEN", "NOT_FOUND", "METHOD_NOT_ALLOWED", "WEBHOOK_LIMIT_REACHED", "PAYLOAD_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE", "INTERNAL_ERROR", "SERVICE_UNAVAILABLE", "BAD_REQUEST", "REQUEST_TIMEOUT", "HEADERS_TOO_LARGE", "NOT_IMPLEMENTED", "HTTP_VERSION_NOT_SUPPORTED", "EXPECTATION_FAILED"] },
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
    created["properties"]["key"] = json!({ "type": "string", "pattern": "^kp_[0-9a-f]{64}$" });
    created["required"]
        .as_array_mut()
        .expect("required is an array")
        .push(json!("key"));
    schemas["ApiKeyCreated"] = created;
    schemas
}
