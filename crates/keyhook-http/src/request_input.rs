//! Request bodies into the service's typed inputs. Each body is decoded field by field
//! (`service::input::Object`: wrong types and unknown fields), then each value goes through
//! its type's constructor; every problem is named as the request names the field
//! (`expiresAt`, `events[1]`) and travels with the input, so the operation reports it
//! together with the rules it checks itself.

use serde_json::Value;

use keyhook_core::error::{Error, Result};
use keyhook_core::model::{Permission, SigningMode};
use keyhook_core::rate::RateLimit;
use keyhook_core::redact;
use keyhook_core::service::audit;
use keyhook_core::service::events::{EventName, IdempotencyKey, NewEvent, IDEMPOTENCY_FIELD};
use keyhook_core::service::filter::Filter;
use keyhook_core::service::idempotency::Idempotent;
use keyhook_core::service::input::Object;
use keyhook_core::service::keys::{self, Expiry, KeyName, NewKey, ProfileId, ProfileIds};
use keyhook_core::service::portal;
use keyhook_core::service::replay::ReplayRequest;
use keyhook_core::service::webhooks::flow::{RetrySchedule, Timeout};
use keyhook_core::service::webhooks::{
    Grace, HeaderPatch, NewWebhook, RotateSecret, StaticHeaders, WebhookEvents, WebhookPatch,
    WebhookUrl,
};
use keyhook_core::time::Timestamp;

/// A `POST /api-keys` body.
pub fn new_key(body: &Value, now: Timestamp) -> Result<NewKey> {
    let mut o = Object::new(body, keys::NEW_KEY_FIELDS)?;
    let name = o.string("name");
    let permission = o.string("permission");
    let full_access = o.bool("fullAccess");
    let profile_ids = o.strings("profileIds");
    let expires_at = o.string("expiresAt");
    let rate_limit = o.string("rateLimit");
    let remaining_uses = o.integer("remainingUses");
    let mut p = o.problems;
    p.end_decoding();
    Ok(NewKey {
        name: name.and_then(|n| p.take("name", KeyName::new(&n))),
        permission: permission.and_then(|s| p.take("permission", Permission::parse(&s))),
        full_access,
        profile_ids: profile_ids.and_then(|ids| p.take_list("profileIds", ProfileIds::new(ids))),
        expires_at: expires_at.and_then(|s| p.take("expiresAt", Expiry::parse(&s, now))),
        rate_limit: rate_limit.and_then(|s| p.take("rateLimit", RateLimit::parse(&s))),
        remaining_uses: remaining_uses.and_then(|n| p.take("remainingUses", keys::max_uses(n))),
        problems: p,
    })
}

/// The query of `GET /audit`: `since` (an RFC 3339 date-time or a duration back from now)
/// and `limit` (1 to `audit::MAX_LIMIT`, default `audit::DEFAULT_LIMIT`), each at most once;
/// any other parameter is refused, one detail per problem, named as the query names it.
/// Values are percent-decoded; `+` stays `+` (a time zone offset), not a space.
pub fn audit_query(target: &str, now: Timestamp) -> Result<audit::Query> {
    use keyhook_core::error::{Error, FieldError};
    let mut q = audit::Query::default();
    let mut problems: Vec<FieldError> = Vec::new();
    let mut seen: Vec<String> = Vec::new();
    let query = target.split_once('?').map_or("", |(_, q)| q);
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (raw_name, raw_value) = pair.split_once('=').unwrap_or((pair, ""));
        let name = percent_decode(raw_name).unwrap_or_else(|| raw_name.to_string());
        let Some(value) = percent_decode(raw_value) else {
            problems.push(FieldError::new(name, "must be percent-encoded UTF-8"));
            continue;
        };
        if seen.contains(&name) {
            problems.push(FieldError::new(name, "must be given at most once"));
            continue;
        }
        seen.push(name.clone());
        match name.as_str() {
            "since" => match keyhook_core::time::parse_since(&value, now) {
                Ok(t) => q.since = Some(t),
                Err(m) => problems.push(FieldError::new(name, m)),
            },
            "limit" => {
                let n = value
                    .parse::<i64>()
                    .ok()
                    .filter(|_| value.bytes().all(|b| b.is_ascii_digit()));
                match n
                    .ok_or(())
                    .and_then(|n| audit::check_limit(n).map_err(|_| ()))
                {
                    Ok(n) => q.limit = n,
                    Err(()) => problems.push(FieldError::new(
                        name,
                        audit::check_limit(0).expect_err("0 is below the limit"),
                    )),
                }
            }
            _ => problems.push(FieldError::new(
                redact::keys(&name).into_owned(),
                "unknown query parameter (expected since, limit)",
            )),
        }
    }
    if problems.is_empty() {
        Ok(q)
    } else {
        Err(Error::Validation(problems))
    }
}

/// `%XX` sequences decoded; None when they are malformed or not UTF-8.
fn percent_decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = std::str::from_utf8(b.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// `signing`: `hmac`, `ed25519` or `both`; `null` is the default, `hmac`.
fn signing(o: &mut Object<'_>) -> Option<Option<SigningMode>> {
    match o.nullable_string("signing")? {
        None => Some(None),
        Some(s) => match SigningMode::parse(&s) {
            Ok(m) => Some(Some(m)),
            Err(msg) => {
                o.problems.add("signing", msg);
                None
            }
        },
    }
}

/// `headers`: an object of header name to value (write-only), `null` for none. A problem
/// names the header, never its value.
fn headers(o: &mut Object<'_>) -> Option<StaticHeaders> {
    let map = o.nullable_object("headers")?.unwrap_or_default();
    let mut pairs = Vec::with_capacity(map.len());
    for (name, value) in map {
        match value {
            Value::String(v) => pairs.push((name, v)),
            _ => {
                let name = keyhook_core::redact::keys(&name).into_owned();
                o.problems.add(
                    "headers",
                    format!("header {name:?}'s value must be a string"),
                );
                return None;
            }
        }
    }
    match StaticHeaders::new(pairs) {
        Ok(h) => Some(h),
        Err(m) => {
            o.problems.add("headers", m);
            None
        }
    }
}

/// A `POST /webhooks` body.
pub fn new_webhook(body: &Value, allow_private: bool) -> Result<NewWebhook> {
    let mut o = Object::new(
        body,
        &[
            "url",
            "events",
            "fullAccess",
            "profileIds",
            "filter",
            "retrySchedule",
            "timeoutMs",
            "rate",
            "ordered",
            "signing",
            "headers",
        ],
    )?;
    let url = o.string("url");
    let events = o.strings("events");
    let full_access = o.bool("fullAccess");
    let profile_ids = o.strings("profileIds");
    let filter = o.nullable_string("filter").flatten();
    let rate = o.nullable_string("rate").flatten();
    let ordered = o.nullable_bool("ordered").flatten();
    let (retry_schedule, timeout) = flow_fields(&mut o);
    let signing = signing(&mut o).flatten();
    let headers = headers(&mut o).filter(|h| !h.is_empty());
    let mut p = o.problems;
    p.end_decoding();
    Ok(NewWebhook {
        signing,
        headers,
        url: url.and_then(|u| p.take("url", WebhookUrl::new(&u, allow_private))),
        events: events.and_then(|e| p.take_list("events", WebhookEvents::new(e))),
        full_access,
        profile_ids: profile_ids.and_then(|ids| p.take_list("profileIds", ProfileIds::new(ids))),
        filter: filter.and_then(|f| p.take("filter", Filter::new(&f))),
        retry_schedule: retry_schedule
            .flatten()
            .and_then(|s| p.take("retrySchedule", RetrySchedule::new(s))),
        timeout: timeout
            .flatten()
            .and_then(|t| p.take("timeoutMs", Timeout::new(t))),
        rate: rate.and_then(|r| p.take("rate", RateLimit::parse(&r))),
        ordered,
        problems: p,
        idempotency: None,
        ephemeral: false,
    })
}

/// A `PATCH /webhooks/{id}` body.
pub fn webhook_patch(body: &Value, allow_private: bool) -> Result<WebhookPatch> {
    let mut o = Object::new(
        body,
        &[
            "url",
            "events",
            "fullAccess",
            "profileIds",
            "isActive",
            "filter",
            "retrySchedule",
            "timeoutMs",
            "rate",
            "ordered",
            "signing",
            "headers",
        ],
    )?;
    let url = o.string("url");
    let events = o.strings("events");
    let full_access = o.bool("fullAccess");
    let profile_ids = o.strings("profileIds");
    let is_active = o.bool("isActive");
    let filter = o.nullable_string("filter");
    let rate = o.nullable_string("rate");
    let ordered = o.nullable_bool("ordered");
    let (retry_schedule, timeout) = flow_fields(&mut o);
    let signing = signing(&mut o);
    let headers = headers(&mut o).map(HeaderPatch::Replace);
    let mut p = o.problems;
    p.end_decoding();
    Ok(WebhookPatch {
        signing,
        headers,
        url: url.and_then(|u| p.take("url", WebhookUrl::new(&u, allow_private))),
        events: events.and_then(|e| p.take_list("events", WebhookEvents::new(e))),
        full_access,
        profile_ids: profile_ids.and_then(|ids| p.take_list("profileIds", ProfileIds::new(ids))),
        is_active,
        filter: filter.and_then(|f| match f {
            None => Some(None),
            Some(f) => p.take("filter", Filter::new(&f)).map(Some),
        }),
        retry_schedule: retry_schedule.and_then(|s| match s {
            None => Some(None),
            Some(s) => p.take("retrySchedule", RetrySchedule::new(s)).map(Some),
        }),
        timeout: timeout.and_then(|t| match t {
            None => Some(None),
            Some(t) => p.take("timeoutMs", Timeout::new(t)).map(Some),
        }),
        rate: rate.and_then(|r| match r {
            None => Some(None),
            Some(r) => p.take("rate", RateLimit::parse(&r)).map(Some),
        }),
        ordered,
        problems: p,
    })
}

/// A `POST /portal-links` body: `{"fullAccess", "profileIds", "ttlSeconds", "readOnly"}`,
/// all optional.
pub fn new_portal_link(body: &Value) -> Result<portal::NewLink> {
    let mut o = Object::new(
        body,
        &["fullAccess", "profileIds", "ttlSeconds", "readOnly"],
    )?;
    let full_access = o.bool("fullAccess");
    let profile_ids = o.strings("profileIds");
    let ttl = o.integer("ttlSeconds");
    let read_only = o.bool("readOnly");
    let mut p = o.problems;
    p.end_decoding();
    let ttl_ms = ttl.and_then(|s| {
        p.take(
            "ttlSeconds",
            if s > 0 && s <= portal::MAX_TTL_MS / 1000 {
                Ok(s * 1000)
            } else {
                Err(format!(
                    "must be more than 0 and at most {} (24 hours)",
                    portal::MAX_TTL_MS / 1000
                ))
            },
        )
    });
    Ok(portal::NewLink {
        full_access,
        profile_ids: profile_ids.and_then(|ids| p.take_list("profileIds", ProfileIds::new(ids))),
        ttl_ms,
        read_only: read_only.unwrap_or(false),
        problems: p,
    })
}

/// `retrySchedule` (a list of durations) and `timeoutMs` (milliseconds) as sent:
/// `Some(None)` for `null` (a PATCH clears the setting; a create keeps serve's).
type FlowFields = (Option<Option<Vec<String>>>, Option<Option<i64>>);

fn flow_fields(o: &mut Object<'_>) -> FlowFields {
    let schedule = if o.null("retrySchedule") {
        Some(None)
    } else {
        o.strings("retrySchedule").map(Some)
    };
    let timeout = if o.null("timeoutMs") {
        Some(None)
    } else {
        o.integer("timeoutMs").map(Some)
    };
    (schedule, timeout)
}

/// A `POST /webhooks/{id}/rotate-secret` body: `{"graceSeconds": N}`, all optional.
pub fn rotate_secret(body: &Value) -> Result<RotateSecret> {
    let mut o = Object::new(body, &["graceSeconds"])?;
    let grace = o.integer("graceSeconds");
    let mut p = o.problems;
    p.end_decoding();
    Ok(RotateSecret {
        grace: grace.and_then(|g| p.take("graceSeconds", Grace::new(g))),
        problems: p,
        idempotency: None,
    })
}

/// A `POST /events` body: `{"event": NAME, "data": {...}, "profileId": ID}`.
pub fn new_event(body: &Value) -> Result<NewEvent> {
    let mut o = Object::new(body, &["event", "data", "profileId"])?;
    let event = o.string("event");
    let data = o.object("data");
    let profile_id = o.string("profileId");
    let mut p = o.problems;
    p.end_decoding();
    Ok(NewEvent {
        event: event.and_then(|e| p.take("event", EventName::new(&e))),
        data,
        profile_id: profile_id.and_then(|id| p.take("profileId", ProfileId::new(&id))),
        idempotency_key: None,
        problems: p,
    })
}

/// The `Idempotency-Key` header values of a `POST /events` (none, or one) into `input`; its
/// problems are named `Idempotency-Key`.
pub fn idempotency_key(values: &[&str], input: &mut NewEvent) {
    match one_key(values) {
        Ok(key) => input.idempotency_key = key,
        Err(m) => input.problems.add(IDEMPOTENCY_FIELD, m),
    }
}

/// The `Idempotency-Key` header values of a webhook request that honours one (none, or one),
/// with the request's body (`{}` when it has none), which a repeat must match.
pub fn idempotent(values: &[&str], body: &Value) -> Result<Option<Idempotent>> {
    let key = one_key(values).map_err(|m| Error::validation(IDEMPOTENCY_FIELD, m))?;
    Ok(key.map(|k| Idempotent::new(k, body)))
}

/// The key of `Idempotency-Key` header values: none, or one valid key.
fn one_key(values: &[&str]) -> std::result::Result<Option<IdempotencyKey>, String> {
    match values {
        [] => Ok(None),
        [one] => IdempotencyKey::new(one).map(Some),
        _ => Err("must be sent at most once".into()),
    }
}

/// A `POST /webhooks/{id}/replay` body (`{}` when none was sent): `since`, `eventId`,
/// `failedOnly`, all optional.
pub fn replay(body: &Value) -> Result<ReplayRequest> {
    let mut o = Object::new(body, &["since", "eventId", "failedOnly"])?;
    let since = o.string("since");
    let event_id = o.string("eventId");
    let failed_only = o.bool("failedOnly");
    let mut p = o.problems;
    p.end_decoding();
    Ok(ReplayRequest {
        since: since.and_then(|s| {
            p.take(
                "since",
                Timestamp::parse_rfc3339(&s)
                    .ok_or_else(|| "must be an RFC 3339 time with an offset".to_string()),
            )
        }),
        event_id,
        failed_only: failed_only.unwrap_or(false),
        problems: p,
        idempotency: None,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use keyhook_core::error::Error;
    use keyhook_core::model::ApiKey;
    use keyhook_core::service::{keys, webhooks, Actor, Publish};
    use keyhook_core::store::Store;

    /// A SQLite store in a fresh temporary directory, which lives as long as the guard.
    fn temp_store() -> (tempfile::TempDir, Box<Store>) {
        let dir = tempfile::tempdir().unwrap();
        let store = keyhook_sqlite::SqliteStore::open(&dir.path().join("k.db")).unwrap();
        (dir, Box::new(store))
    }

    const NOW: Timestamp = Timestamp(1_800_000_000_000);

    fn op() -> Actor {
        Actor::operator("alice").unwrap()
    }

    /// `POST /api-keys` with `body`, as the server handles it.
    fn create(s: &Store, actor: &Actor, body: Value, now: Timestamp) -> Result<ApiKey> {
        keys::create(s, actor, new_key(&body, now)?, now, Publish::AfterCommit)
    }

    fn named(name: &str) -> Value {
        json!({ "name": name })
    }

    fn fields(e: Error) -> Vec<(String, String)> {
        match e {
            Error::Validation(d) => d.into_iter().map(|f| (f.field, f.message)).collect(),
            other => panic!("expected a validation error, got {other:?}"),
        }
    }

    fn names(e: Error) -> Vec<String> {
        fields(e).into_iter().map(|(f, _)| f).collect()
    }

    #[test]
    fn validation_reports_every_field() {
        let (_d, s) = temp_store();
        let body = json!({
            "name": "", "permission": "admin", "fullAccess": false,
            "profileIds": ["a", "", "a"], "expiresAt": "2001-01-01T00:00:00Z", "extra": 1
        });
        let got = fields(create(&s, &op(), body, NOW).unwrap_err());
        let names: Vec<&str> = got.iter().map(|(f, _)| f.as_str()).collect();
        assert_eq!(
            names,
            [
                "extra",
                "name",
                "permission",
                "profileIds[1]",
                "profileIds[2]",
                "expiresAt"
            ]
        );
    }

    #[test]
    fn type_errors_and_value_errors_come_together() {
        let (_d, s) = temp_store();
        let body = json!({"name": 5, "permission": "x", "profileIds": ["a", 3]});
        let got = fields(create(&s, &op(), body, NOW).unwrap_err());
        assert_eq!(
            got,
            [
                ("name".to_string(), "must be a string".to_string()),
                ("profileIds[1]".to_string(), "must be a string".to_string()),
                (
                    "permission".to_string(),
                    "must be readwrite or readonly".to_string()
                ),
                (
                    "profileIds".to_string(),
                    "must be empty when fullAccess is true (set fullAccess to false to limit \
                     the key)"
                        .to_string()
                ),
            ]
        );
        let e = new_key(&json!([1]), NOW).unwrap_err();
        assert_eq!(fields(e)[0].0, "body");
    }

    #[test]
    fn name_rules() {
        let (_d, s) = temp_store();
        let long = "x".repeat(101);
        for (input, msg) in [
            (json!({}), "is required"),
            (named("   "), "must not be empty"),
            (named(&long), "must be at most 100 characters"),
            (
                named("a\nb"),
                "must not contain control, invisible or reordering characters: U+000A at \
                 character 2",
            ),
        ] {
            let got = fields(create(&s, &op(), input, NOW).unwrap_err());
            assert_eq!(got, [("name".to_string(), msg.to_string())]);
        }
        assert!(create(&s, &op(), named(&"é".repeat(100)), NOW).is_ok());
    }

    #[test]
    fn expiry_must_be_future_rfc3339_with_offset() {
        let (_d, s) = temp_store();
        let at = |t: &str| json!({"name": "k", "expiresAt": t});
        for bad in ["2030-01-01T00:00:00", "soon", "2020-01-01T00:00:00Z"] {
            assert_eq!(
                fields(create(&s, &op(), at(bad), NOW).unwrap_err())[0].0,
                "expiresAt"
            );
        }
        // Exactly now is not in the future.
        let now = NOW.to_rfc3339();
        assert!(create(&s, &op(), at(&now), NOW).is_err());
        let k = create(&s, &op(), at("2030-01-01T02:00:00+02:00"), NOW).unwrap();
        assert_eq!(
            k.expires_at.unwrap().to_rfc3339(),
            "2030-01-01T00:00:00.000Z"
        );
    }

    #[test]
    fn a_rule_over_several_fields_reports_where_the_request_names_them() {
        let (_d, s) = temp_store();
        // "is required" comes where the name stands, before a later field's bad value.
        let e = create(&s, &op(), json!({"permission": "admin"}), NOW).unwrap_err();
        assert_eq!(names(e), ["name", "permission"]);
        // The scope rule (profileIds with fullAccess) comes before a bad expiresAt...
        let body = json!({"name": "k", "profileIds": ["a"], "expiresAt": "soon"});
        let e = create(&s, &op(), body, NOW).unwrap_err();
        assert_eq!(names(e), ["profileIds", "expiresAt"]);
        // ...and after every problem found decoding the body (wrong types, unknown fields).
        let body = json!({"name": "", "expiresAt": 5, "profileIds": ["a"], "x": 1});
        let e = create(&s, &op(), body, NOW).unwrap_err();
        assert_eq!(names(e), ["x", "expiresAt", "name", "profileIds"]);
        // Profile ids refused one by one were sent all the same: no second "at least one".
        let body = json!({"name": "k", "fullAccess": false, "profileIds": [" "]});
        let e = create(&s, &op(), body, NOW).unwrap_err();
        assert_eq!(names(e), ["profileIds[0]"]);
        let body = json!({"name": "k", "profileIds": [" "]});
        let e = create(&s, &op(), body, NOW).unwrap_err();
        assert_eq!(names(e), ["profileIds[0]", "profileIds"]);
    }

    #[test]
    fn webhook_bodies_report_as_before() {
        let (_d, s) = temp_store();
        let create = |body: Value| {
            webhooks::create(
                &s,
                &op(),
                new_webhook(&body, false)?,
                NOW,
                Publish::AfterCommit,
            )
            .map(|_| ())
        };
        let e = create(json!({"events": ["nope"]})).unwrap_err();
        assert_eq!(names(e), ["url", "events[0]"]);
        let e = create(json!({"url": "http://10.0.0.1/", "events": [5]})).unwrap_err();
        assert_eq!(
            fields(e),
            [
                ("events[0]".to_string(), "must be a string".to_string()),
                (
                    "url".to_string(),
                    keyhook_core::guard::FORBIDDEN_TARGET_MESSAGE.to_string()
                ),
                (
                    "events".to_string(),
                    "must name at least one event".to_string()
                ),
            ]
        );
        // The same URL with private targets allowed.
        let body = json!({"url": "http://10.0.0.1/", "events": ["post.published"]});
        let w = webhooks::create(
            &s,
            &op(),
            new_webhook(&body, true).unwrap(),
            NOW,
            Publish::AfterCommit,
        )
        .unwrap();
        let update = |body: Value| {
            let patch = webhook_patch(&body, false)?;
            webhooks::update(&s, &op(), &w.id, patch, NOW).map(|_| ())
        };
        // A refused field was named: no second detail saying that nothing was.
        let e = update(json!({"events": ["nope"]})).unwrap_err();
        assert_eq!(names(e), ["events[0]"]);
        let e = update(json!({"isActive": "yes"})).unwrap_err();
        assert_eq!(names(e), ["isActive"]);
        let e = update(json!({})).unwrap_err();
        assert_eq!(names(e), ["body"]);
        let e = update(json!({"url": "http://127.0.0.1/", "events": [""]})).unwrap_err();
        assert_eq!(names(e), ["url", "events[0]"]);
    }

    #[test]
    fn event_bodies_report_as_before() {
        let (_d, s) = temp_store();
        let emit = |body: Value| {
            keyhook_core::service::events::emit(&s, &op(), new_event(&body)?, NOW).map(|_| ())
        };
        let e = emit(json!({"data": 5})).unwrap_err();
        assert_eq!(
            fields(e),
            [
                ("data".to_string(), "must be a JSON object".to_string()),
                ("event".to_string(), "is required".to_string()),
            ]
        );
        let e = emit(json!({"event": "webhook.test"})).unwrap_err();
        assert_eq!(names(e), ["event"]);
        assert!(emit(json!({"event": "post.published", "data": {"a": 1}})).is_ok());
    }
}
