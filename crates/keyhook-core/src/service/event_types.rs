//! The operator's event catalog (CONTRACT §10): which event names exist, whether their events
//! name a profile, the JSON Schema (draft 2020-12) their `data` must match and an example of
//! it. The operator changes it (the CLI); every key may read it (GET /event-types).
//!
//! The catalog is read from the database on every request that needs it, never cached across
//! requests, so every instance sharing a database sees a change on its next request. Only a
//! schema's compiled form is kept ([`compiled`]), by type name, until the stored schema is
//! another.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use serde_json::{json, Value};

use super::audit::{self, Action, Entry};
use super::input;
use super::schema_bounds::{self, Bounds};
use super::{Actor, Operation};
use crate::error::{Error, FieldError, Result};
use crate::model::{EventProfile, EventType};
use crate::store::{Conn, Store};
use crate::time::Timestamp;

/// The built-in event types every database starts with (`service::event_types`: the
/// operator's catalog adds to them), profile `optional`.
pub const CATALOG: &[&str] = &[
    "post.published",
    "post.failed",
    "post.deleted",
    "account.connected",
    "account.disconnected",
    "profile.created",
    "profile.deleted",
];

/// keyhook's own operational events (CONTRACT §10): emitted only by keyhook itself (when a
/// webhook is disabled, when a delivery gives up), profile-less, subscribable like any other.
/// Names under `webhook.` are reserved for keyhook.
pub const OPERATIONAL: &[&str] = &["webhook.disabled", "delivery.exhausted"];

/// Sent only by the test endpoint; not subscribable.
pub const TEST_EVENT: &str = "webhook.test";

/// The longest event name, in characters.
pub const NAME_MAX: usize = 64;
/// What an event name may be: lowercase words (`a-z`, then `a-z`, `0-9`, `_`) separated by
/// dots, at most [`NAME_MAX`] characters (the OpenAPI document states the length apart).
pub const NAME_PATTERN: &str = "^[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*)*$";
/// Names under this prefix are keyhook's own: the operator cannot add one.
pub const RESERVED_PREFIX: &str = "webhook.";
/// The longest description, in characters.
pub const DESCRIPTION_MAX: usize = 500;
/// The largest schema, and the largest example, as compact JSON text, in bytes.
pub const DOCUMENT_MAX_BYTES: usize = 64 * 1024;
/// The most problems reported of one `data` that does not match its schema.
pub const MAX_DATA_PROBLEMS: usize = 20;

/// The description the operational events are seeded with (also by the migrations).
pub const OPERATIONAL_DESCRIPTION: &str = "emitted by keyhook itself";

/// Whether `name` has the shape of an event name ([`NAME_PATTERN`], [`NAME_MAX`]); else why.
pub fn check_name(name: &str) -> std::result::Result<(), String> {
    let words_ok = !name.is_empty()
        && name.split('.').all(|w| {
            let mut b = w.bytes();
            b.next().is_some_and(|c| c.is_ascii_lowercase())
                && b.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'_')
        });
    if !words_ok || name.len() > NAME_MAX {
        return Err(format!(
            "must be lowercase words (a-z, 0-9, _) separated by dots, like post.updated, at \
             most {NAME_MAX} characters"
        ));
    }
    Ok(())
}

/// Whether `name` is one of keyhook's operational events, which only keyhook emits.
pub fn is_operational(name: &str) -> bool {
    OPERATIONAL.contains(&name)
}

/// Whether `name` is one of the types every database starts with, which can be changed and
/// deprecated but not deleted.
pub fn is_built_in(name: &str) -> bool {
    CATALOG.contains(&name) || is_operational(name)
}

/// A new event type, in typed values.
#[derive(Debug, Clone)]
pub struct NewEventType {
    pub name: String,
    pub description: Option<String>,
    pub schema: Option<Value>,
    pub example: Option<Value>,
    pub profile: EventProfile,
}

/// A change to an event type; `None` keeps a field, `Some(None)` clears it.
#[derive(Debug, Clone, Default)]
pub struct EventTypePatch {
    pub description: Option<Option<String>>,
    pub schema: Option<Option<Value>>,
    pub example: Option<Option<Value>>,
    pub profile: Option<EventProfile>,
}

/// Only the operator changes the catalog.
fn operator_only(actor: &Actor) -> Result<()> {
    match actor {
        Actor::Operator { .. } => Ok(()),
        Actor::Key(_) | Actor::Portal { .. } => Err(Error::Forbidden(
            "the event catalog is the operator's: it is changed with keyhook event-types".into(),
        )),
    }
}

fn not_found(name: &str) -> Error {
    Error::NotFound(format!("no event type named {name:?}"))
}

/// The catalog, by name.
pub fn list(store: &Store, actor: &Actor) -> Result<Vec<EventType>> {
    actor.may(Operation::ListEventTypes, None)?;
    Ok(store.conn().list_event_types()?)
}

/// One event type (404 when there is none of that name).
pub fn show(store: &Store, actor: &Actor, name: &str) -> Result<EventType> {
    actor.may(Operation::ShowEventType, None)?;
    store
        .conn()
        .event_type(name)?
        .ok_or_else(|| not_found(name))
}

/// Adds an event type. Its name must be new, of the right shape, and not under
/// [`RESERVED_PREFIX`]; its schema must be a valid schema and its example match it.
pub fn add(store: &Store, actor: &Actor, input: NewEventType, now: Timestamp) -> Result<EventType> {
    operator_only(actor)?;
    let mut details = Vec::new();
    if let Err(m) = check_name(&input.name) {
        details.push(FieldError::new("name", m));
    } else if input.name.starts_with(RESERVED_PREFIX) || input.name == TEST_EVENT {
        details.push(FieldError::new(
            "name",
            format!("names under {RESERVED_PREFIX} are reserved for keyhook's own events"),
        ));
    }
    let t = EventType {
        name: input.name,
        description: input.description,
        schema: input.schema,
        example: input.example,
        profile: input.profile,
        deprecated: false,
        created_at: now,
        updated_at: now,
    };
    details.extend(check_fields(&t));
    if !details.is_empty() {
        return Err(Error::Validation(details));
    }
    store.write(|c| {
        if c.event_type(&t.name)?.is_some() {
            return Err(Error::Conflict(format!(
                "an event type named {:?} already exists",
                t.name
            )));
        }
        c.insert_event_type(&t)?;
        record(c, actor, now, Action::EventTypeCreated, &t)?;
        Ok(t.clone())
    })
}

/// Applies `patch` to the type `name`. keyhook's operational types are not changed (409).
pub fn update(
    store: &Store,
    actor: &Actor,
    name: &str,
    patch: EventTypePatch,
    now: Timestamp,
) -> Result<EventType> {
    operator_only(actor)?;
    if patch.description.is_none()
        && patch.schema.is_none()
        && patch.example.is_none()
        && patch.profile.is_none()
    {
        return Err(Error::validation(
            "body",
            "name at least one of description, schema, example, profile",
        ));
    }
    store.write(|c| {
        let mut t = find_changeable(c, name, "changed")?;
        let before = t.clone();
        if let Some(d) = patch.description.clone() {
            t.description = d;
        }
        if let Some(s) = patch.schema.clone() {
            t.schema = s;
        }
        if let Some(e) = patch.example.clone() {
            t.example = e;
        }
        if let Some(p) = patch.profile {
            t.profile = p;
        }
        let problems = check_fields(&t);
        if !problems.is_empty() {
            return Err(Error::Validation(problems));
        }
        if t == before {
            return Ok(t);
        }
        touch(&mut t, now);
        c.update_event_type(&t)?;
        record(c, actor, now, Action::EventTypeUpdated, &t)?;
        Ok(t)
    })
}

/// Marks `name` deprecated: no new subscriptions, existing ones keep receiving.
pub fn deprecate(store: &Store, actor: &Actor, name: &str, now: Timestamp) -> Result<EventType> {
    operator_only(actor)?;
    store.write(|c| {
        let mut t = find_changeable(c, name, "deprecated")?;
        if t.deprecated {
            return Ok(t);
        }
        t.deprecated = true;
        touch(&mut t, now);
        c.update_event_type(&t)?;
        record(c, actor, now, Action::EventTypeDeprecated, &t)?;
        Ok(t)
    })
}

/// Deletes `name`: refused (409) for a built-in type, and while a webhook subscribes to it or
/// a delivery of it is pending.
pub fn delete(store: &Store, actor: &Actor, name: &str, now: Timestamp) -> Result<EventType> {
    operator_only(actor)?;
    store.write(|c| {
        let t = c.event_type(name)?.ok_or_else(|| not_found(name))?;
        if is_built_in(name) {
            return Err(Error::Conflict(format!(
                "{name} is built in and cannot be deleted; deprecate it instead \
                 (keyhook event-types deprecate {name})"
            )));
        }
        let (webhooks, pending) = c.event_type_uses(name)?;
        if webhooks > 0 || pending > 0 {
            return Err(Error::Conflict(format!(
                "{name} is still in use ({webhooks} webhook{} subscribe{}, {pending} \
                 deliver{} pending); deprecate it, and delete it once nothing uses it",
                plural(webhooks),
                if webhooks == 1 { "s" } else { "" },
                if pending == 1 { "y" } else { "ies" },
            )));
        }
        c.delete_event_type(name)?;
        record(c, actor, now, Action::EventTypeDeleted, &t)?;
        Ok(t)
    })
}

fn plural(n: i64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// The type `name` for a change: 404 when there is none, 409 for an operational one.
fn find_changeable(c: Conn<'_>, name: &str, what: &str) -> Result<EventType> {
    let t = c.event_type(name)?.ok_or_else(|| not_found(name))?;
    if is_operational(name) {
        return Err(Error::Conflict(format!(
            "{name} is one of keyhook's operational events and cannot be {what}"
        )));
    }
    Ok(t)
}

/// Moves `updatedAt` to `now`, and at least one millisecond past its last value, so that a
/// change always shows as a newer `updatedAt`, whatever the clocks.
fn touch(t: &mut EventType, now: Timestamp) {
    t.updated_at = Timestamp(now.0.max(t.updated_at.0 + 1));
}

fn record(c: Conn<'_>, actor: &Actor, now: Timestamp, action: Action, t: &EventType) -> Result<()> {
    let details = json!({
        "description": t.description,
        "profile": t.profile.as_str(),
        "deprecated": t.deprecated,
        "schema": t.schema.is_some(),
        "example": t.example.is_some(),
    });
    audit::record(c, now, &Entry::by(actor, action, &t.name, details))
}

/// The rules of a type's fields together: the description's length and text, the schema's
/// size and validity, the example's size, shape and match.
fn check_fields(t: &EventType) -> Vec<FieldError> {
    let mut out = Vec::new();
    if let Some(d) = &t.description {
        if d.chars().count() > DESCRIPTION_MAX {
            out.push(FieldError::new(
                "description",
                format!("must be at most {DESCRIPTION_MAX} characters"),
            ));
        } else if let Err(m) = input::visible(d) {
            out.push(FieldError::new("description", m));
        }
    }
    let mut validator = None;
    if let Some(s) = &t.schema {
        match checked(s) {
            Ok((bounds, v)) => validator = Some(Compiled::from_checked(&t.name, bounds, v)),
            Err(m) => out.push(FieldError::new("schema", m)),
        }
    }
    if let Some(e) = &t.example {
        if let Err(m) = check_size(e) {
            out.push(FieldError::new("example", m));
        } else if !e.is_object() {
            out.push(FieldError::new(
                "example",
                "must be a JSON object (an event's data is one)",
            ));
        } else if let Some(v) = &validator {
            for p in data_problems(v, e) {
                out.push(FieldError::new(
                    "example",
                    format!("does not match the schema: {}: {}", p.field, p.message),
                ));
            }
        }
    }
    out
}

/// Every rule a schema is held to when it is added or changed (CONTRACT §10.1): at most
/// [`DOCUMENT_MAX_BYTES`], draft 2020-12 only, no cycle of subschemas applied at the same
/// place in the data, at most [`schema_bounds::MAX_PER_VALUE`] applications at one value of
/// data nested up to [`schema_bounds::DATA_DEPTH`] deep, and a valid schema. The message is
/// for the field `schema`. `serve` also runs it on the stored schemas, to warn about those
/// an older keyhook took.
pub fn check_schema(schema: &Value) -> std::result::Result<(), String> {
    checked(schema).map(drop)
}

/// [`check_schema`], keeping what it built for a schema it takes: the bounds and the
/// validator (a type's example is then checked with them, not with a second analysis and
/// compile of the same schema).
fn checked(schema: &Value) -> std::result::Result<(Bounds, jsonschema::Validator), String> {
    check_size(schema)?;
    // Before jsonschema sees it: compiling some cyclic schemas never ends either.
    let bounds = schema_bounds::analyse(schema)?;
    let most = bounds.per_value();
    if most > schema_bounds::MAX_PER_VALUE {
        return Err(format!(
            "applies too many subschemas to one value of the data: up to {} where at most {} \
             are allowed (allOf/anyOf/oneOf or $refs that multiply, perhaps at each level of \
             a recursion): simplify it",
            bound_text(most),
            schema_bounds::MAX_PER_VALUE
        ));
    }
    if let Some(p) = schema_bounds::unbounded_name_pattern(schema) {
        return Err(format!(
            "has unevaluatedProperties and a patternProperties pattern with a lookaround or \
             backreference ({p:?}): the validator cannot bound that pattern's work there"
        ));
    }
    let built = on_stack(bounds.compile_stack(), || {
        validator_for(schema)
            .map_err(|e| format!("is not a valid JSON Schema (draft 2020-12): {e}"))
    });
    Ok((bounds, built.unwrap_or_else(Err)?))
}

/// The stack a request's thread may give a schema's compile or check (std's threads, which
/// serve requests, have 2 MiB).
const INLINE_STACK: u64 = 1 << 20;
/// The most stack a compile or check may have (its own thread's, reserved, touched as used).
const MAX_STACK: u64 = 1 << 30;

/// `f` on this thread if `bytes` of stack are safe here, else on a thread of its own with
/// room for them; `Err` when there is none.
fn on_stack<T: Send>(bytes: u64, f: impl FnOnce() -> T + Send) -> std::result::Result<T, String> {
    if bytes <= INLINE_STACK {
        return Ok(f());
    }
    if bytes > MAX_STACK {
        return Err(format!(
            "nests too deep to check: it may need {} MiB of stack, at most {} MiB are given",
            bytes >> 20,
            MAX_STACK >> 20
        ));
    }
    let size = usize::try_from(bytes.saturating_mul(2)).unwrap_or(usize::MAX);
    std::thread::scope(|s| {
        let spawned = std::thread::Builder::new()
            .name("schema".into())
            .stack_size(size.saturating_add(4 << 20))
            .spawn_scoped(s, f)
            .map_err(|e| format!("cannot be checked now: no thread for it ({e})"))?;
        spawned.join().map_err(|p| std::panic::resume_unwind(p))
    })
}

/// The validator of `schema`: draft 2020-12, with `const` comparing numbers exactly.
fn validator_for(schema: &Value) -> std::result::Result<jsonschema::Validator, String> {
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .with_keyword("const", ExactConst::factory)
        .with_pattern_options(
            jsonschema::PatternOptions::fancy_regex().backtrack_limit(PATTERN_BACKTRACK_MAX),
        )
        .build(schema)
        .map_err(|e| e.to_string())
}

/// The most a `pattern` with a lookaround or backreference may backtrack on one string
/// (jsonschema's default is 1,000,000, milliseconds a match): past it the string is refused,
/// saying so. Patterns without those features run in linear time and never backtrack; those
/// with them count for more in the work budget (`schema_bounds::BACKTRACKING_PATTERN_WEIGHT`).
pub const PATTERN_BACKTRACK_MAX: usize = 10_000;

/// `const` as JSON Schema says, numbers compared by value: jsonschema's own compares a
/// number `const` as an `f64` (within `f64::EPSILON`), so `9007199254740993` matched
/// `9007199254740992`. Its general equality (`jsonschema::ext::cmp::equal`, also `enum`'s)
/// compares integers exactly and `1` equal to `1.0`.
struct ExactConst {
    expected: Value,
    location: jsonschema::paths::Location,
}

impl ExactConst {
    // The signature is jsonschema's, for a keyword's factory.
    #[allow(clippy::result_large_err)]
    fn factory<'a>(
        _parent: &'a serde_json::Map<String, Value>,
        value: &'a Value,
        location: jsonschema::paths::Location,
    ) -> std::result::Result<Box<dyn jsonschema::Keyword>, jsonschema::ValidationError<'a>> {
        Ok(Box::new(ExactConst {
            expected: value.clone(),
            location,
        }))
    }
}

impl jsonschema::Keyword for ExactConst {
    fn validate<'i>(
        &self,
        instance: &'i Value,
        location: &jsonschema::paths::LazyLocation,
    ) -> std::result::Result<(), jsonschema::ValidationError<'i>> {
        if self.is_valid(instance) {
            return Ok(());
        }
        Err(jsonschema::ValidationError::custom(
            self.location.clone(),
            location.into(),
            instance,
            format!("{} was expected", self.expected),
        ))
    }

    fn is_valid(&self, instance: &Value) -> bool {
        jsonschema::ext::cmp::equal(instance, &self.expected)
    }
}

/// The event types whose stored schema [`check_schema`] refuses now (written by an older
/// keyhook, under looser rules), by name, with why. They are kept as they are: an upgrade
/// deletes nothing.
pub fn refused_schemas(store: &Store) -> Result<Vec<(String, String)>> {
    Ok(store
        .conn()
        .list_event_types()?
        .into_iter()
        .filter_map(|t| {
            let m = check_schema(t.schema.as_ref()?).err()?;
            Some((t.name, m))
        })
        .collect())
}

/// A bound of [`schema_bounds`] in a message: saturated at `u64::MAX`, it is "more than 10^19".
fn bound_text(n: u64) -> String {
    if n == u64::MAX {
        "more than 10^19".to_string()
    } else {
        n.to_string()
    }
}

fn check_size(v: &Value) -> std::result::Result<(), String> {
    let n = serde_json::to_string(v).map_or(usize::MAX, |s| s.len());
    if n > DOCUMENT_MAX_BYTES {
        return Err(format!(
            "must be at most {DOCUMENT_MAX_BYTES} bytes of JSON ({n} given)"
        ));
    }
    Ok(())
}

/// A type's schema made ready to check data: its bounds, checked before every validation
/// ([`data_problems`]), and the validator, built only when some data can be checked within
/// [`schema_bounds::WORK_BUDGET`] (jsonschema does not finish compiling some cyclic schemas).
pub struct Compiled {
    name: String,
    bounds: std::result::Result<Bounds, String>,
    validator: Option<jsonschema::Validator>,
}

impl Compiled {
    /// `schema` of the type `name`, analysed, and compiled if it may be used.
    pub fn new(name: &str, schema: &Value) -> Compiled {
        let mut bounds = schema_bounds::analyse(schema);
        let mut validator = None;
        if let Ok(b) = &bounds {
            if b.work(&Value::Null) <= schema_bounds::WORK_BUDGET {
                let built = on_stack(b.compile_stack(), || {
                    validator_for(schema).map_err(|e| format!("does not compile: {e}"))
                });
                match built.unwrap_or_else(Err) {
                    Ok(v) => validator = Some(v),
                    Err(e) => bounds = Err(e),
                }
            }
        }
        Compiled {
            name: name.to_string(),
            bounds,
            validator,
        }
    }

    /// What [`Compiled::new`] makes of a schema [`checked`] took, from what the check built.
    fn from_checked(name: &str, bounds: Bounds, v: jsonschema::Validator) -> Compiled {
        let usable = bounds.work(&Value::Null) <= schema_bounds::WORK_BUDGET;
        Compiled {
            name: name.to_string(),
            validator: usable.then_some(v),
            bounds: Ok(bounds),
        }
    }
}

/// Compiled schemas by type name, with the schema each was compiled from.
type Cache = HashMap<String, (Value, Arc<Compiled>)>;

/// The most compiled schemas kept; past it the cache starts over.
const COMPILED_MAX: usize = 1024;

/// `t`'s schema, compiled once and kept for the process until the type's schema is another
/// (compared as JSON: cheaper than compiling by far, and right whatever the clocks of the
/// instances that changed it, or the database a process opens). A stored schema that the
/// rules refuse is kept too: every emit of its type is then refused by [`data_problems`].
pub fn compiled(t: &EventType) -> Option<Arc<Compiled>> {
    static CACHE: OnceLock<Mutex<Cache>> = OnceLock::new();
    let schema = t.schema.as_ref()?;
    let cache = CACHE.get_or_init(Default::default);
    if let Some((was, v)) = cache.lock().unwrap_or_else(|e| e.into_inner()).get(&t.name) {
        if was == schema {
            return Some(v.clone());
        }
    }
    let v = Arc::new(Compiled::new(&t.name, schema));
    let mut map = cache.lock().unwrap_or_else(|e| e.into_inner());
    if map.len() >= COMPILED_MAX {
        map.clear();
    }
    map.insert(t.name.clone(), (schema.clone(), v.clone()));
    Some(v)
}

/// What is wrong with `data` for the schema `c`, at most [`MAX_DATA_PROBLEMS`], each on the
/// field that holds it as the request names it (`data.title`, `data.tags[2]`). Data whose
/// check could exceed [`schema_bounds::WORK_BUDGET`] (or any data, for a stored schema the
/// rules refuse) is not validated: one problem on `data` says why.
pub fn data_problems(c: &Compiled, data: &Value) -> Vec<FieldError> {
    let budget = schema_bounds::WORK_BUDGET;
    let bounds = match &c.bounds {
        Ok(b) => b,
        Err(why) => {
            return vec![FieldError::new(
                "data",
                format!(
                    "cannot be checked: the schema of {} {why}; the operator must change it \
                     (keyhook event-types update {} --schema FILE)",
                    c.name, c.name
                ),
            )]
        }
    };
    let cost = bounds.cost(data);
    let work = cost.work;
    let Some(v) = c.validator.as_ref().filter(|_| work <= budget) else {
        return vec![FieldError::new(
            "data",
            format!(
                "is too much work to check against the schema of {}: up to {} subschema \
                 applications, over the budget of {budget} (send smaller or flatter data, or \
                 ask the operator to simplify the schema)",
                c.name,
                bound_text(work),
            ),
        )];
    };
    let checked = on_stack(bounds.check_stack(cost), || {
        // jsonschema panics on a few inputs (a pattern past its backtracking limit where
        // unevaluatedProperties looks): that data is refused, not the request failed.
        let validated =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| problems(v, data)));
        validated.unwrap_or_else(|_| {
            vec![FieldError::new(
                "data",
                format!(
                    "cannot be checked against the schema of {}: the validator failed on it",
                    c.name
                ),
            )]
        })
    });
    checked.unwrap_or_else(|why| vec![FieldError::new("data", why)])
}

/// `v`'s problems with `data`, at most [`MAX_DATA_PROBLEMS`].
fn problems(v: &jsonschema::Validator, data: &Value) -> Vec<FieldError> {
    v.iter_errors(data)
        .take(MAX_DATA_PROBLEMS)
        .map(|e| {
            let mut field = field_of(data, e.instance_path.as_str());
            // A missing property is the property's problem, not its object's.
            if let jsonschema::error::ValidationErrorKind::Required { property } = &e.kind {
                if let Some(p) = property.as_str() {
                    push_property(&mut field, p);
                }
            }
            FieldError::new(field, e.to_string())
        })
        .collect()
}

/// The request's name of what the JSON pointer `pointer` (into `data`) points at: `data`,
/// then `.name` per property (`["odd name"]` when not a plain word) and `[i]` per index.
pub fn field_of(data: &Value, pointer: &str) -> String {
    let mut field = String::from("data");
    let mut at = Some(data);
    for raw in pointer.split('/').skip(1) {
        let seg = raw.replace("~1", "/").replace("~0", "~");
        match at {
            Some(Value::Array(items)) => {
                field.push_str(&format!("[{seg}]"));
                at = seg.parse::<usize>().ok().and_then(|i| items.get(i));
            }
            other => {
                push_property(&mut field, &seg);
                at = other.and_then(|o| o.get(&seg));
            }
        }
    }
    field
}

fn push_property(field: &mut String, p: &str) {
    let plain = p
        .bytes()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == b'_')
        && p.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_');
    if plain {
        field.push('.');
        field.push_str(p);
    } else {
        field.push('[');
        field.push_str(&Value::String(p.to_string()).to_string());
        field.push(']');
    }
}

/// The catalog's rules for an event about to be emitted by a client (`events emit`, POST
/// /events), on the connection of its transaction: the name is in the catalog and not an
/// operational one (400 on `event`), the profile rule (400 on `profileId`), the schema (400,
/// a detail per problem on `data...`).
pub(crate) fn check_emitted(
    c: Conn<'_>,
    name: &str,
    profile_id: Option<&str>,
    data: &Value,
) -> Result<()> {
    let Some(t) = c.event_type(name)? else {
        let known: Vec<String> = c
            .list_event_types()?
            .into_iter()
            .map(|t| t.name)
            .filter(|n| !is_operational(n))
            .collect();
        return Err(Error::validation(
            "event",
            format!("unknown event {name:?}; known events: {}", known.join(", ")),
        ));
    };
    if is_operational(name) {
        return Err(Error::validation(
            "event",
            format!("{name} is emitted only by keyhook itself"),
        ));
    }
    match (t.profile, profile_id) {
        (EventProfile::Required, None) => {
            return Err(Error::validation(
                "profileId",
                format!("is required: {name} events name a profile"),
            ))
        }
        (EventProfile::None, Some(_)) => {
            return Err(Error::validation(
                "profileId",
                format!("must be absent: {name} events are user-wide"),
            ))
        }
        _ => {}
    }
    if let Some(v) = compiled(&t) {
        let problems = data_problems(&v, data);
        if !problems.is_empty() {
            return Err(Error::Validation(problems));
        }
    }
    Ok(())
}

/// The catalog's rules for a webhook's `events`: each is in the catalog, and one that is
/// deprecated only if the webhook already subscribed to it (`kept`). Problems on `events[i]`.
pub(crate) fn subscription_problems(
    c: Conn<'_>,
    events: &[String],
    kept: &[String],
) -> Result<Vec<FieldError>> {
    let mut details = Vec::new();
    let mut known: Option<Vec<String>> = None;
    for (i, e) in events.iter().enumerate() {
        match c.event_type(e)? {
            Some(t) if t.deprecated && !kept.contains(e) => details.push(FieldError::new(
                format!("events[{i}]"),
                format!("{e} is deprecated: it takes no new subscriptions"),
            )),
            Some(_) => {}
            None => {
                let names = match &known {
                    Some(k) => k,
                    None => {
                        known.insert(c.list_event_types()?.into_iter().map(|t| t.name).collect())
                    }
                };
                details.push(FieldError::new(
                    format!("events[{i}]"),
                    format!("unknown event {e:?}; known events: {}", names.join(", ")),
                ));
            }
        }
    }
    Ok(details)
}

/// [`subscription_problems`] as an error, on the connection of the transaction that stores
/// the subscription.
pub(crate) fn check_subscribed(c: Conn<'_>, events: &[String], kept: &[String]) -> Result<()> {
    let details = subscription_problems(c, events, kept)?;
    if details.is_empty() {
        Ok(())
    } else {
        Err(Error::Validation(details))
    }
}

/// `events trigger`'s `--set PATH=VALUE` on `data`: PATH is property names and indexes
/// (`title`, `author.name`, `tags[0]`); VALUE is JSON if it parses as JSON, else a string.
/// A missing property is added; an index must exist (or be the array's length, to append).
pub fn set_path(data: &mut Value, assignment: &str) -> std::result::Result<(), String> {
    let Some((path, raw)) = assignment.split_once('=') else {
        return Err("must be PATH=VALUE, like title=Hello or tags[0]=news".into());
    };
    let value = serde_json::from_str(raw).unwrap_or_else(|_| Value::String(raw.to_string()));
    let steps = parse_path(path)?;
    let mut at = data;
    for (n, step) in steps.iter().enumerate() {
        let last = n + 1 == steps.len();
        at = match step {
            Step::Key(k) => {
                let Value::Object(map) = at else {
                    return Err(format!("{path}: {k} is not inside an object"));
                };
                if last {
                    map.insert(k.clone(), value);
                    return Ok(());
                }
                map.entry(k.clone()).or_insert_with(|| json!({}))
            }
            Step::Index(i) => {
                let Value::Array(items) = at else {
                    return Err(format!("{path}: [{i}] is not inside an array"));
                };
                if *i == items.len() {
                    items.push(Value::Null);
                }
                let len = items.len();
                let Some(slot) = items.get_mut(*i) else {
                    return Err(format!("{path}: [{i}] is past the array's {len} items"));
                };
                if last {
                    *slot = value;
                    return Ok(());
                }
                slot
            }
        };
    }
    Err("must name a field, like title or tags[0]".into())
}

enum Step {
    Key(String),
    Index(usize),
}

fn parse_path(path: &str) -> std::result::Result<Vec<Step>, String> {
    let bad = || format!("{path:?} is not a path like title, author.name or tags[0]");
    let mut steps = Vec::new();
    for part in path.split('.') {
        let (key, mut rest) = part.split_at(part.find('[').unwrap_or(part.len()));
        if (key.is_empty() && steps.is_empty()) || key.contains(']') {
            return Err(bad());
        }
        if !key.is_empty() {
            steps.push(Step::Key(key.to_string()));
        }
        while !rest.is_empty() {
            let close = rest.find(']').ok_or_else(bad)?;
            let i = rest[1..close].parse::<usize>().map_err(|_| bad())?;
            steps.push(Step::Index(i));
            rest = &rest[close + 1..];
            if !rest.is_empty() && !rest.starts_with('[') {
                return Err(bad());
            }
        }
    }
    if steps.is_empty() {
        return Err(bad());
    }
    Ok(steps)
}

/// A filter tried on an event of type `event` (`webhooks filter-test`, the portal's "Try
/// filter"): the data it was tried on and its verdict, as a fan-out would judge it
/// (`Filter::matches`; an evaluation error is the kind of failure). Nothing is counted or
/// logged.
#[derive(Debug, Clone, PartialEq)]
pub struct FilterTrial {
    pub data: Value,
    pub verdict: std::result::Result<bool, &'static str>,
}

/// Why a filter cannot be tried on an event: each caller says it with its own field names
/// (`--event` or `event`, `EXPR` or `filter`).
#[derive(Debug, Clone, PartialEq)]
pub enum TrialRefused {
    /// The catalog has no such event type.
    UnknownEvent,
    /// The type's schema says the filter can never hold (as `webhooks create` refuses it):
    /// [`Filter::check_schemas`]'s message.
    Schema(String),
    /// The data given does not match the type's schema (an event with it is never emitted).
    Data(Vec<FieldError>),
    /// No data was given and the type has no example to try the filter on.
    NoExample,
}

/// Tries `filter` on an event of type `event` with `data`, or (`None`) the type's example,
/// and `profile_id`: the type must exist, the filter must pass the type's schema, and the
/// data must match it; then the filter is evaluated as a fan-out would. The one core of
/// `webhooks filter-test` and of the portal's "Try filter".
pub fn try_filter(
    store: &Store,
    actor: &Actor,
    filter: &crate::service::filter::Filter,
    event: &str,
    data: Option<Value>,
    profile_id: Option<&str>,
) -> Result<std::result::Result<FilterTrial, TrialRefused>> {
    let t = match show(store, actor, event) {
        Ok(t) => t,
        Err(Error::NotFound(_)) => return Ok(Err(TrialRefused::UnknownEvent)),
        Err(e) => return Err(e),
    };
    if let Some(schema) = &t.schema {
        if let Err(m) = filter.check_schemas(&[(event, schema)]) {
            return Ok(Err(TrialRefused::Schema(m)));
        }
    }
    let data = match data {
        Some(data) => {
            if let Some(validator) = compiled(&t) {
                let problems = data_problems(&validator, &data);
                if !problems.is_empty() {
                    return Ok(Err(TrialRefused::Data(problems)));
                }
            }
            data
        }
        None => match t.example {
            Some(example) => example,
            None => return Ok(Err(TrialRefused::NoExample)),
        },
    };
    let verdict = filter.matches(&crate::service::filter::Vars::new(event, profile_id, &data));
    Ok(Ok(FilterTrial { data, verdict }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::schema_bounds::tests::{doubling, tree};

    #[test]
    fn names_are_lowercase_dotted_words_up_to_64() {
        let re = regex::Regex::new(NAME_PATTERN).unwrap();
        let max = format!("a.{}", "b".repeat(NAME_MAX - 2));
        for good in ["post.updated", "a", "post_v2.x1", max.as_str()] {
            assert!(check_name(good).is_ok(), "{good}");
            assert!(re.is_match(good), "{good}");
        }
        let over = format!("{max}c");
        for bad in [
            "",
            "Post.updated",
            "post.",
            ".post",
            "post..x",
            "1post",
            "post-x",
            "p ost",
        ] {
            assert!(check_name(bad).is_err(), "{bad}");
            assert!(!re.is_match(bad), "{bad}");
        }
        assert!(check_name(&over).is_err());
    }

    #[test]
    fn pointers_become_the_requests_field_names() {
        let data = json!({"title": 1, "tags": ["a", "b", 3], "odd key": {"x": 1}, "m": {"0": 1}});
        assert_eq!(field_of(&data, ""), "data");
        assert_eq!(field_of(&data, "/title"), "data.title");
        assert_eq!(field_of(&data, "/tags/2"), "data.tags[2]");
        assert_eq!(field_of(&data, "/odd key/x"), "data[\"odd key\"].x");
        assert_eq!(field_of(&data, "/m/0"), "data.m[\"0\"]");
        assert_eq!(field_of(&data, "/a~1b"), "data[\"a/b\"]");
    }

    #[test]
    fn a_mismatch_is_one_detail_per_problem_at_most_twenty() {
        let schema = json!({
            "type": "object",
            "required": ["title"],
            "properties": {"tags": {"type": "array", "items": {"type": "string"}}}
        });
        let v = Compiled::new("post.updated", &schema);
        let got = data_problems(&v, &json!({"tags": ["a", "b", 3]}));
        let fields: Vec<_> = got.iter().map(|d| d.field.as_str()).collect();
        assert_eq!(fields, ["data.tags[2]", "data.title"], "{got:?}");
        let many: Vec<Value> = (0..50).map(Value::from).collect();
        assert_eq!(
            data_problems(&v, &json!({"title": 1, "tags": many})).len(),
            MAX_DATA_PROBLEMS
        );
    }

    #[test]
    fn set_paths_replace_add_and_append() {
        let mut d = json!({"title": "a", "tags": ["x"], "author": {"name": "n"}});
        set_path(&mut d, "title=Hello").unwrap();
        set_path(&mut d, "tags[0]=news").unwrap();
        set_path(&mut d, "tags[1]=2").unwrap();
        set_path(&mut d, "author.name=\"quoted\"").unwrap();
        set_path(&mut d, "author.age=30").unwrap();
        set_path(&mut d, "flag=true").unwrap();
        assert_eq!(
            d,
            json!({"title": "Hello", "tags": ["news", 2],
                   "author": {"name": "quoted", "age": 30}, "flag": true})
        );
        for bad in [
            "nothing",
            "=1",
            "tags[x]=1",
            "tags[5]=1",
            "title[0]=1",
            "a]b=1",
        ] {
            assert!(set_path(&mut d, bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn an_invalid_schema_or_a_mismatched_example_is_refused() {
        let mut t = EventType {
            name: "post.updated".into(),
            description: None,
            schema: Some(json!({"type": 5})),
            example: None,
            profile: EventProfile::Optional,
            deprecated: false,
            created_at: Timestamp(0),
            updated_at: Timestamp(0),
        };
        let f: Vec<_> = check_fields(&t).into_iter().map(|d| d.field).collect();
        assert_eq!(f, ["schema"]);
        t.schema = Some(json!({"type": "object", "required": ["title"]}));
        t.example = Some(json!({"x": 1}));
        let got = check_fields(&t);
        assert_eq!(got.len(), 1, "{got:?}");
        assert_eq!(got[0].field, "example");
        assert!(got[0].message.contains("data.title"), "{got:?}");
        t.example = Some(json!([1]));
        t.schema = None;
        assert_eq!(check_fields(&t)[0].field, "example");
        t.example = Some(json!({"big": "x".repeat(DOCUMENT_MAX_BYTES)}));
        assert!(check_fields(&t)[0].message.contains("at most 65536 bytes"));
    }

    fn cycle() -> Value {
        json!({"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"})
    }

    #[test]
    fn schemas_whose_checks_never_end_are_refused_saying_why() {
        let e = check_schema(&cycle()).unwrap_err();
        assert!(e.contains("cycle that never descends into the data"), "{e}");
        let bomb = doubling(30);
        assert!(bomb.to_string().len() < 4096, "a small schema");
        let e = check_schema(&bomb).unwrap_err();
        assert!(
            e.contains("applies too many subschemas to one value"),
            "{e}"
        );
        let e = check_schema(&json!({"$schema": "http://json-schema.org/draft-07/schema#"}))
            .unwrap_err();
        assert!(
            e.contains("only JSON Schema draft 2020-12 is supported"),
            "{e}"
        );
        assert!(check_schema(&json!({"type": 5}))
            .unwrap_err()
            .contains("not a valid"));
        check_schema(&json!({"$schema": schema_bounds::DRAFT_2020_12, "type": "object"})).unwrap();
        check_schema(&doubling(7)).unwrap();
    }

    #[test]
    fn a_stored_schema_the_rules_refuse_refuses_every_emit_at_once() {
        for (schema, says) in [
            (cycle(), "cannot be checked"),
            (doubling(30), "too much work"),
        ] {
            let c = Compiled::new("post.updated", &schema);
            let got = data_problems(&c, &json!({"title": "x"}));
            assert_eq!(got.len(), 1, "{got:?}");
            assert_eq!(got[0].field, "data");
            assert!(got[0].message.contains(says), "{got:?}");
        }
    }

    #[test]
    fn data_over_the_work_budget_is_refused_before_validating() {
        // 1 + 1 + 2 * (2 + 4 + ... + 256) = 1022 applications at each item.
        let mut s = doubling(8);
        s["type"] = json!("array");
        s["items"] = s.as_object_mut().unwrap().remove("$ref").unwrap();
        s["items"] = json!({"$ref": s["items"]});
        let c = Compiled::new("post.updated", &s);
        let small: Vec<Value> = (0..100).map(|_| json!({})).collect();
        assert!(data_problems(&c, &Value::Array(small)).is_empty());
        let big: Vec<Value> = (0..1000).map(|_| json!({})).collect();
        let got = data_problems(&c, &Value::Array(big));
        assert_eq!(got.len(), 1, "{got:?}");
        assert!(
            got[0].message.contains("over the budget of 1000000"),
            "{got:?}"
        );
    }

    #[test]
    fn recursion_that_descends_checks_deep_data() {
        let s = tree();
        check_schema(&s).unwrap();
        let c = Compiled::new("post.updated", &s);
        let mut deep = json!({"name": "leaf"});
        for i in 0..60 {
            deep = json!({"name": format!("n{i}"), "children": [deep, {"name": "sibling"}]});
        }
        assert!(data_problems(&c, &deep).is_empty());
        // And it still finds a problem at the bottom.
        let mut bad = json!({"name": 1});
        for _ in 0..60 {
            bad = json!({"name": "n", "children": [bad]});
        }
        let got = data_problems(&c, &bad);
        assert_eq!(got.len(), 1, "{got:?}");
        assert!(got[0].field.ends_with(".children[0].name"), "{got:?}");
    }

    #[test]
    fn const_and_enum_compare_integers_past_2_53_exactly() {
        let big: Value = serde_json::from_str("9007199254740993").unwrap();
        let near: Value = serde_json::from_str("9007199254740992").unwrap();
        let neg: Value = serde_json::from_str("-9007199254740993").unwrap();
        let neg_near: Value = serde_json::from_str("-9007199254740992").unwrap();
        for (c, yes, no) in [(&big, &big, &near), (&neg, &neg, &neg_near)] {
            for s in [
                json!({"const": c}),
                json!({"enum": [c]}),
                json!({"const": [c]}),
            ] {
                let v = Compiled::new("post.updated", &s);
                let wrap = |x: &Value| {
                    if s["const"].is_array() {
                        json!([x])
                    } else {
                        x.clone()
                    }
                };
                assert!(data_problems(&v, &wrap(yes)).is_empty(), "{s}");
                let got = data_problems(&v, &wrap(no));
                assert_eq!(got.len(), 1, "{s} matched {no}");
            }
        }
        // Numbers are still compared by value.
        let v = Compiled::new("post.updated", &json!({"const": 1}));
        assert!(data_problems(&v, &json!(1.0)).is_empty());
        assert!(data_problems(&v, &json!(1.5))[0]
            .message
            .contains("1 was expected"));
        let v = Compiled::new("post.updated", &json!({"const": "a"}));
        assert!(data_problems(&v, &json!("a")).is_empty());
        assert_eq!(data_problems(&v, &json!("b")).len(), 1);
    }

    /// `n` definitions, each applying the next: in place, or to its property `x`.
    fn chain(n: usize, descending: bool) -> Value {
        let mut defs = serde_json::Map::new();
        for i in 0..n {
            let next = json!({"$ref": format!("#/$defs/d{}", i + 1)});
            let d = if descending {
                json!({"type": "object", "properties": {"x": next}})
            } else {
                next
            };
            defs.insert(format!("d{i}"), d);
        }
        defs.insert(format!("d{n}"), json!({"type": "object"}));
        json!({"$defs": defs, "$ref": "#/$defs/d0"})
    }

    #[test]
    fn long_chains_compile_and_check_on_a_request_thread_s_stack() {
        let mut data = json!({});
        for _ in 0..120 {
            data = json!({"x": data});
        }
        for s in [chain(900, false), chain(900, true)] {
            assert!(s.to_string().len() <= DOCUMENT_MAX_BYTES);
            check_schema(&s).unwrap();
            let data = data.clone();
            // A thread of tiny_http's (std's default 2 MiB), as `serve` handles a request on.
            let problems = std::thread::Builder::new()
                .stack_size(2 << 20)
                .spawn(move || data_problems(&Compiled::new("post.updated", &s), &data))
                .unwrap()
                .join()
                .unwrap();
            assert!(problems.is_empty(), "{problems:?}");
        }
    }

    #[test]
    fn a_pattern_backtracks_at_most_ten_thousand_times_a_string() {
        // (a|aa)+ before a lookahead tries about 1.6^n ways before it fails.
        let c = Compiled::new("post.updated", &json!({"pattern": "^(a|aa)+(?=!)$"}));
        let short = data_problems(&c, &json!("aaaa!"));
        assert!(short[0].message.contains("does not match"), "{short:?}");
        let long = data_problems(&c, &json!(format!("{}!", "a".repeat(18))));
        assert_eq!(long.len(), 1, "{long:?}");
        assert!(long[0].message.contains("backtrack"), "{long:?}");
    }

    #[test]
    fn a_backtracking_name_pattern_beside_unevaluated_properties_is_refused() {
        let s =
            json!({"patternProperties": {"^(a|aa)+(?=!)$": true}, "unevaluatedProperties": false});
        let e = check_schema(&s).unwrap_err();
        assert!(e.contains("unevaluatedProperties"), "{e}");
        // Stored anyway, it refuses such data on `data`, without failing the request.
        let c = Compiled::new("post.updated", &s);
        let key = format!("{}!", "a".repeat(30));
        let got = data_problems(&c, &json!({ key: 1 }));
        assert_eq!(got.len(), 1, "{got:?}");
        assert_eq!(got[0].field, "data");
        check_schema(&json!({"patternProperties": {"^(?!x)": true}})).unwrap();
        check_schema(&json!({"patternProperties": {"^a": true}, "unevaluatedProperties": false}))
            .unwrap();
    }
}
