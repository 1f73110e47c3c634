//! What checking an event's `data` against its type's JSON Schema costs `events emit`.
//!
//! Two event types in one SQLite database, each subscribed to by the same three webhooks:
//! `bench.plain` without a schema and `bench.schema` with a realistic one (30 properties,
//! nested objects, arrays of objects and strings, formats, patterns, enums). The same `data`
//! (about 2 KB, valid) is emitted as each, by `service::events::emit` (the transaction, the
//! outbox rows and all), in alternating chunks so that a shared machine's load falls on both
//! alike; then the validation alone (the compiled schema, kept by the service, with the work
//! budget's check of `service::schema_bounds` before it). Prints µs per emit of each, the
//! share validation adds to an emit (goal < 20%), µs per validation, µs of the budget's check
//! alone, and the time of the costliest check the budget lets through.
//!
//! Run with `cargo bench -p keyhook-bench --bench emit_schema` (`KEYHOOK_BENCH_EMITS`, default
//! 4000).

use std::hint::black_box;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use keyhook::model::{EventProfile, EventType};
use keyhook::service::event_types::{self, NewEventType};
use keyhook::service::events::{self, EventName, NewEvent};
use keyhook::service::schema_bounds;
use keyhook::service::webhooks::{self, NewWebhook, WebhookEvents, WebhookUrl};
use keyhook::service::{Actor, Publish};
use keyhook::sqlite::SqliteStore;
use keyhook::time::Timestamp;
use keyhook_bench::figure;

const CHUNKS: usize = 40;

/// A post as a publishing service describes it: 30 properties, some nested, some lists.
fn schema() -> Value {
    let string = json!({"type": "string", "maxLength": 500});
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "required": ["postId", "title", "author", "tags", "publishedAt", "channels"],
        "additionalProperties": false,
        "properties": {
            "postId": {"type": "string", "pattern": "^p_[0-9a-z]{4,32}$"},
            "title": {"type": "string", "minLength": 1, "maxLength": 300},
            "subtitle": string,
            "body": {"type": "string", "maxLength": 100000},
            "summary": string,
            "slug": {"type": "string", "pattern": "^[a-z0-9-]+$"},
            "language": {"enum": ["en", "fr", "de", "es", "it", "pt", "nl"]},
            "status": {"enum": ["draft", "scheduled", "published", "archived"]},
            "publishedAt": {"type": "string", "format": "date-time"},
            "updatedAt": {"type": "string", "format": "date-time"},
            "wordCount": {"type": "integer", "minimum": 0},
            "readingMinutes": {"type": "number", "minimum": 0},
            "featured": {"type": "boolean"},
            "sponsored": {"type": "boolean"},
            "url": {"type": "string", "format": "uri"},
            "canonicalUrl": {"type": ["string", "null"], "format": "uri"},
            "tags": {"type": "array", "maxItems": 50, "uniqueItems": true,
                     "items": {"type": "string", "pattern": "^[a-z0-9-]{1,40}$"}},
            "categories": {"type": "array", "items": string},
            "author": {
                "type": "object",
                "required": ["id", "name"],
                "properties": {
                    "id": {"type": "string"},
                    "name": string,
                    "email": {"type": "string", "format": "email"},
                    "avatar": {"type": "string", "format": "uri"}
                }
            },
            "coAuthors": {"type": "array", "items": {"type": "object", "required": ["id"],
                          "properties": {"id": {"type": "string"}, "name": string}}},
            "media": {"type": "array", "maxItems": 20, "items": {
                "type": "object",
                "required": ["kind", "url"],
                "properties": {
                    "kind": {"enum": ["image", "video", "audio"]},
                    "url": {"type": "string", "format": "uri"},
                    "width": {"type": "integer", "minimum": 1},
                    "height": {"type": "integer", "minimum": 1},
                    "alt": string
                }
            }},
            "channels": {"type": "array", "minItems": 1, "items": {
                "type": "object",
                "required": ["network", "accountId"],
                "properties": {
                    "network": {"enum": ["x", "linkedin", "facebook", "instagram", "mastodon"]},
                    "accountId": {"type": "string"},
                    "postUrl": {"type": ["string", "null"], "format": "uri"}
                }
            }},
            "seo": {"type": "object", "properties": {
                "title": string, "description": string,
                "keywords": {"type": "array", "items": string}
            }},
            "metrics": {"type": "object", "properties": {
                "views": {"type": "integer", "minimum": 0},
                "likes": {"type": "integer", "minimum": 0},
                "shares": {"type": "integer", "minimum": 0}
            }},
            "location": {"type": ["object", "null"], "properties": {
                "lat": {"type": "number", "minimum": -90, "maximum": 90},
                "lon": {"type": "number", "minimum": -180, "maximum": 180}
            }},
            "scheduledFor": {"type": ["string", "null"], "format": "date-time"},
            "revision": {"type": "integer", "minimum": 1},
            "previousRevision": {"type": ["integer", "null"]},
            "source": {"enum": ["web", "api", "import"]},
            "labels": {"type": "object", "additionalProperties": {"type": "string"}}
        }
    })
}

fn data() -> Value {
    json!({
        "postId": "p_8f3k2m9x",
        "title": "Keyhook ships an event catalog",
        "subtitle": "Schemas for every event",
        "body": "Lorem ipsum dolor sit amet, consectetur adipiscing elit. ".repeat(12),
        "summary": "An operator's catalog of event types, with JSON Schemas.",
        "slug": "keyhook-ships-an-event-catalog",
        "language": "en",
        "status": "published",
        "publishedAt": "2026-11-26T01:00:00Z",
        "updatedAt": "2026-11-26T01:05:00Z",
        "wordCount": 1200,
        "readingMinutes": 5.5,
        "featured": true,
        "sponsored": false,
        "url": "https://blog.example.com/keyhook-ships-an-event-catalog",
        "canonicalUrl": null,
        "tags": ["release", "webhooks", "schemas", "breaking"],
        "categories": ["engineering", "product"],
        "author": {"id": "u_1", "name": "Ada", "email": "ada@example.com",
                   "avatar": "https://cdn.example.com/ada.png"},
        "coAuthors": [{"id": "u_2", "name": "Grace"}],
        "media": [
            {"kind": "image", "url": "https://cdn.example.com/a.png", "width": 1200, "height": 630, "alt": "Cover"},
            {"kind": "video", "url": "https://cdn.example.com/b.mp4", "width": 1920, "height": 1080}
        ],
        "channels": [
            {"network": "x", "accountId": "acc_1", "postUrl": "https://x.com/a/status/1"},
            {"network": "linkedin", "accountId": "acc_2", "postUrl": null},
            {"network": "mastodon", "accountId": "acc_3"}
        ],
        "seo": {"title": "Event catalog", "description": "Schemas", "keywords": ["events", "schemas"]},
        "metrics": {"views": 0, "likes": 0, "shares": 0},
        "location": null,
        "scheduledFor": null,
        "revision": 3,
        "previousRevision": 2,
        "source": "api",
        "labels": {"team": "platform", "quarter": "q4"}
    })
}

fn event(name: &str, data: &Value) -> NewEvent {
    NewEvent {
        event: EventName::new(name).ok(),
        data: data.as_object().cloned(),
        ..NewEvent::default()
    }
}

fn main() {
    let emits: usize = std::env::var("KEYHOOK_BENCH_EMITS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(4000);
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(&dir.path().join("bench.db")).unwrap();
    let op = Actor::operator("bench").unwrap();
    let now = Timestamp(1_800_000_000_000);
    let (schema, data) = (schema(), data());
    for (name, schema) in [
        ("bench.plain", None),
        ("bench.schema", Some(schema.clone())),
    ] {
        let t = NewEventType {
            name: name.into(),
            description: None,
            schema,
            example: Some(data.clone()),
            profile: EventProfile::Optional,
        };
        event_types::add(&store, &op, t, now).unwrap();
    }
    for i in 0..3 {
        let hook = NewWebhook {
            url: WebhookUrl::new(&format!("https://hooks.example.com/{i}"), false).ok(),
            events: WebhookEvents::new(vec!["bench.plain".into(), "bench.schema".into()]).ok(),
            ..NewWebhook::default()
        };
        webhooks::create(&store, &op, hook, now, Publish::AfterCommit).unwrap();
    }
    let serialized = serde_json::to_string(&data).unwrap().len();

    // Emits, alternating between the two types chunk by chunk.
    let mut spent = [Duration::ZERO; 2];
    let per_chunk = (emits / CHUNKS).max(1);
    for name in ["bench.plain", "bench.schema"] {
        events::emit(&store, &op, event(name, &data), now).unwrap(); // warm up
    }
    for _ in 0..CHUNKS {
        for (i, name) in ["bench.plain", "bench.schema"].into_iter().enumerate() {
            let started = Instant::now();
            for _ in 0..per_chunk {
                let accepted = events::emit(&store, &op, event(name, &data), now).unwrap();
                assert_eq!(accepted.deliveries, 3);
            }
            spent[i] += started.elapsed();
        }
    }
    let n = (per_chunk * CHUNKS) as f64;
    let us = |d: Duration| d.as_secs_f64() * 1e6 / n;
    let (plain, with_schema) = (us(spent[0]), us(spent[1]));

    // The validation alone, as the service runs it (compiled once, kept).
    let t = EventType {
        name: "bench.schema".into(),
        description: None,
        schema: Some(schema),
        example: None,
        profile: EventProfile::Optional,
        deprecated: false,
        created_at: now,
        updated_at: now,
    };
    let v = event_types::compiled(&t).unwrap();
    let rounds = 20_000;
    let started = Instant::now();
    for _ in 0..rounds {
        assert!(event_types::data_problems(&v, black_box(&data)).is_empty());
    }
    let validate = started.elapsed().as_secs_f64() * 1e6 / rounds as f64;

    // The budget's own check: the bound summed over the data's values.
    let bounds = schema_bounds::analyse(t.schema.as_ref().unwrap()).unwrap();
    let started = Instant::now();
    for _ in 0..rounds {
        assert!(black_box(bounds.work(black_box(&data))) <= schema_bounds::WORK_BUDGET);
    }
    let budget = started.elapsed().as_secs_f64() * 1e6 / rounds as f64;

    // The costliest check the budget lets through: items each applying about a thousand
    // subschemas (8 levels of allOf: [{$ref: next}, {$ref: next}], just over the per-value
    // limit, as a schema an older keyhook stored may be), as many items as the budget allows.
    let worst = worst_schema();
    let bounds = schema_bounds::analyse(&worst).unwrap();
    let per_item = bounds.work(&json!([{}])) - bounds.work(&json!([]));
    let items = (schema_bounds::WORK_BUDGET - bounds.work(&json!([]))) / per_item;
    let worst_data = Value::Array((0..items).map(|_| json!({})).collect());
    let t = EventType {
        name: "bench.worst".into(),
        schema: Some(worst),
        ..t
    };
    let v = event_types::compiled(&t).unwrap();
    let started = Instant::now();
    assert!(event_types::data_problems(&v, &worst_data).is_empty());
    let worst_ms = started.elapsed().as_secs_f64() * 1e3;

    println!("data: {serialized} bytes of JSON, 30-property schema; 3 webhooks; {n} emits each");
    println!("emit without a schema   {plain:>9.1} µs");
    println!("emit with the schema    {with_schema:>9.1} µs");
    println!(
        "schema's share of emit  {:>9.1} %   (goal < 20 %)",
        (with_schema - plain) / with_schema * 100.0
    );
    println!(
        "validation alone        {validate:>9.1} µs   ({:.1} % of an emit with it)",
        validate / with_schema * 100.0
    );
    println!("budget check alone      {budget:>9.1} µs");
    println!(
        "worst within the budget {worst_ms:>9.1} ms   ({items} items × {per_item} applications)"
    );
    let plain_emit = Some(("emit without a schema", plain));
    figure(
        "emit_schema",
        "emit with the schema",
        with_schema,
        "us",
        plain_emit,
        "ratio < 1.25",
    );
    figure("emit_schema", "validation alone", validate, "us", None, "");
    figure(
        "emit_schema",
        "worst within the budget",
        worst_ms,
        "ms",
        None,
        "",
    );
}

/// An array whose items each apply 2 + 2 × (2 + 4 + ... + 256) = 1022 subschemas.
fn worst_schema() -> Value {
    let mut defs = serde_json::Map::new();
    for i in 0..8 {
        let next = format!("#/$defs/l{}", i + 1);
        defs.insert(
            format!("l{i}"),
            json!({"allOf": [{"$ref": next}, {"$ref": next}]}),
        );
    }
    defs.insert("l8".into(), json!({"type": "object"}));
    json!({"$defs": defs, "type": "array", "items": {"$ref": "#/$defs/l0"}})
}
