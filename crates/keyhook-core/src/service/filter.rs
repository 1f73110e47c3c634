//! Webhook payload filters: a CEL expression (the `cel` crate) over `event` (string),
//! `profileId` (string or null) and `data` (the event's data), checked when a webhook is
//! created or changed and evaluated at fan-out, once per emit for each active subscribed
//! webhook that has one. Only `true` queues a delivery; an evaluation error or a result that
//! is not a boolean queues nothing and is counted ([`errors_total`],
//! `keyhook_filter_errors_total`) and logged at most once a minute per webhook, naming the
//! webhook and the kind of error, never the data.
//!
//! CEL cannot loop, but its macros (`exists`, `all`, `exists_one`, `map`, `filter`) iterate,
//! and `map`/`filter` build their result one element at a time (quadratic in the list's
//! size in the `cel` crate). The bounds, checked at compile time unless said:
//! - at most [`MAX_LEN`] characters;
//! - brackets nested at most [`MAX_DEPTH`] deep (checked on the text, before the parser,
//!   which recurses), and the expression tree at most [`MAX_DEPTH`] deep (the evaluator
//!   recurses);
//! - at most [`MAX_MACROS`] macros, and no macro inside another macro's predicate (one may
//!   take another's result as its list: `data.l.filter(x, x > 1).exists(...)`);
//! - at evaluation: a macro ranges over a list or map of at most [`MAX_RANGE`] elements, else
//!   an evaluation error;
//! - no message or struct literals (the `cel` crate cannot evaluate them).
//!
//! So the work of one evaluation is at most [`MAX_MACROS`] × [`MAX_RANGE`]² element copies
//! plus work linear in the data (at most 64 KiB) per node of the expression.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use cel::common::ast::{EntryExpr, Expr, IdedExpr};
use cel::{Context, ExecutionError, FunctionContext, ResolveResult, Value};
use serde_json::Value as Json;

/// The longest filter, in characters.
pub const MAX_LEN: usize = 2048;
/// How deep brackets and the expression tree may nest.
pub const MAX_DEPTH: usize = 32;
/// How many macros (`exists`, `all`, `exists_one`, `map`, `filter`) a filter may use.
pub const MAX_MACROS: usize = 8;
/// The most elements a macro ranges over (at evaluation).
pub const MAX_RANGE: usize = 1000;
/// The function every macro's range goes through (see [`iterable`]).
const RANGE_GUARD: &str = "@keyhook_range";

/// A filter checked and compiled: its source and the expression evaluated.
#[derive(Debug, Clone)]
pub struct Filter {
    source: String,
    expr: IdedExpr,
}

impl PartialEq for Filter {
    fn eq(&self, other: &Self) -> bool {
        self.source == other.source
    }
}

impl Filter {
    /// Checks and compiles `source` within the bounds above; the message says what is wrong
    /// (the `filter` field's detail).
    pub fn new(source: &str) -> std::result::Result<Filter, String> {
        let len = source.chars().count();
        if source.trim().is_empty() {
            return Err("must not be empty (send null to remove the filter)".into());
        }
        if len > MAX_LEN {
            return Err(format!("must be at most {MAX_LEN} characters, not {len}"));
        }
        if bracket_depth(source) > MAX_DEPTH {
            return Err(format!("brackets may nest at most {MAX_DEPTH} deep"));
        }
        // The limits above keep the parser from the inputs known to break it; should another
        // one panic, the filter is refused like any other that does not parse.
        let compiled = std::panic::catch_unwind(|| cel::Program::compile(source))
            .map_err(|_| "is not a valid CEL expression: the parser failed on it".to_string())?;
        let program = compiled.map_err(|e| {
            let first = e.errors.first().map_or_else(
                || "syntax error".to_string(),
                |e| format!("syntax error at {}:{}: {}", e.pos.0, e.pos.1, e.msg),
            );
            format!("is not a valid CEL expression: {first}")
        })?;
        let mut expr = program.expression().clone();
        let mut macros = 0;
        check(&mut expr, 1, false, &mut macros)?;
        Ok(Filter {
            source: source.to_string(),
            expr,
        })
    }

    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// `Ok(true)`: the event goes to the webhook; `Ok(false)`: it does not; `Err`: the kind
    /// of error (an evaluation error, or a result that is not a boolean), safe to log: it
    /// holds no value of the data.
    pub fn matches(&self, vars: &Vars) -> std::result::Result<bool, &'static str> {
        // An evaluation that panics (the limits and the guards keep out every case known to)
        // is an evaluation error: it queues nothing, and never takes a request down with it.
        let resolved = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            Value::resolve(&self.expr, &vars.ctx)
        }))
        .map_err(|_| "the evaluation failed")?;
        match resolved {
            Ok(Value::Bool(b)) => Ok(b),
            Ok(_) => Err("the result is not a boolean"),
            Err(e) => Err(kind(&e)),
        }
    }
}

/// What [`Filter::matches`] logs of an evaluation error: its kind, without the values the
/// `cel` crate puts in its messages.
fn kind(e: &ExecutionError) -> &'static str {
    match e {
        ExecutionError::NoSuchKey(_) => "no such key",
        ExecutionError::UndeclaredReference(_) => "undeclared reference",
        ExecutionError::FunctionError { function, .. } if function == RANGE_GUARD => {
            "a macro's list is too long or not a list"
        }
        ExecutionError::DivisionByZero(_) | ExecutionError::RemainderByZero(_) => {
            "division by zero"
        }
        ExecutionError::Overflow(..) => "overflow",
        ExecutionError::IndexOutOfBounds(_) => "index out of bounds",
        _ => "type error",
    }
}

/// The deepest nesting of `(`, `[` and `{` outside string literals.
fn bracket_depth(source: &str) -> usize {
    let (mut depth, mut max) = (0usize, 0usize);
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for c in source.chars() {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '"' | '\'' => quote = Some(c),
            '(' | '[' | '{' => {
                depth += 1;
                max = max.max(depth);
            }
            ')' | ']' | '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

/// Walks the tree: its depth, the macros and where they are, the literals the evaluator
/// cannot take; and puts every macro's range through [`RANGE_GUARD`].
fn check(
    e: &mut IdedExpr,
    depth: usize,
    in_macro: bool,
    macros: &mut usize,
) -> std::result::Result<(), String> {
    if depth > MAX_DEPTH {
        return Err(format!("may nest at most {MAX_DEPTH} deep"));
    }
    let d = depth + 1;
    match &mut e.expr {
        Expr::Call(call) => {
            if let Some(t) = call.target.as_deref_mut() {
                check(t, d, in_macro, macros)?;
            }
            for a in &mut call.args {
                check(a, d, in_macro, macros)?;
            }
        }
        Expr::Comprehension(c) => {
            if in_macro {
                return Err("a macro may not be used inside another macro's predicate".into());
            }
            *macros += 1;
            if *macros > MAX_MACROS {
                return Err(format!("may use at most {MAX_MACROS} macros"));
            }
            check(&mut c.iter_range, d, false, macros)?;
            let range = std::mem::take(&mut c.iter_range);
            c.iter_range = IdedExpr {
                id: range.id,
                expr: Expr::Call(cel::common::ast::CallExpr {
                    func_name: RANGE_GUARD.into(),
                    target: None,
                    args: vec![range],
                }),
            };
            for part in [
                &mut c.accu_init,
                &mut c.loop_cond,
                &mut c.loop_step,
                &mut c.result,
            ] {
                check(part, d, true, macros)?;
            }
        }
        Expr::List(l) => {
            for x in &mut l.elements {
                check(x, d, in_macro, macros)?;
            }
        }
        Expr::Map(m) => {
            for entry in &mut m.entries {
                match &mut entry.expr {
                    EntryExpr::MapEntry(me) => {
                        check(&mut me.key, d, in_macro, macros)?;
                        check(&mut me.value, d, in_macro, macros)?;
                    }
                    EntryExpr::StructField(_) => {
                        return Err("message literals are not supported".into())
                    }
                }
            }
        }
        Expr::Select(s) => check(&mut s.operand, d, in_macro, macros)?,
        Expr::Struct(_) => return Err("message literals are not supported".into()),
        Expr::Unspecified => return Err("is not a valid CEL expression".into()),
        Expr::Ident(_) | Expr::Literal(_) => {}
    }
    Ok(())
}

/// A macro's range: a list or a map of at most [`MAX_RANGE`] elements (anything else would
/// make the `cel` crate panic; a longer one would cost too much).
fn iterable(ftx: &FunctionContext, v: Value) -> ResolveResult {
    let n = match &v {
        Value::List(l) => l.len(),
        Value::Map(m) => m.map.len(),
        _ => return Err(ftx.error("a macro ranges over a list or a map")),
    };
    if n > MAX_RANGE {
        return Err(ftx.error(format!("a macro ranges over at most {MAX_RANGE} elements")));
    }
    Ok(v)
}

/// The variables of one event (and CEL's functions), converted once and shared by every
/// filter it meets.
pub struct Vars {
    ctx: Context<'static>,
}

impl Vars {
    pub fn new(event: &str, profile_id: Option<&str>, data: &Json) -> Vars {
        let mut ctx = Context::default();
        ctx.add_function(RANGE_GUARD, iterable);
        ctx.add_variable_from_value("event", Value::String(Arc::new(event.to_string())));
        let profile = profile_id.map_or(Value::Null, |p| Value::String(Arc::new(p.into())));
        ctx.add_variable_from_value("profileId", profile);
        ctx.add_variable_from_value("data", to_cel(data));
        Vars { ctx }
    }
}

fn to_cel(v: &Json) -> Value {
    match v {
        Json::Null => Value::Null,
        Json::Bool(b) => Value::Bool(*b),
        Json::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => Value::Int(i),
            (None, Some(u)) => Value::UInt(u),
            _ => Value::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        Json::String(s) => Value::String(Arc::new(s.clone())),
        Json::Array(a) => Value::List(Arc::new(a.iter().map(to_cel).collect())),
        Json::Object(o) => {
            let map: HashMap<cel::objects::Key, Value> = o
                .iter()
                .map(|(k, v)| (cel::objects::Key::from(k.as_str()), to_cel(v)))
                .collect();
            Value::Map(cel::objects::Map { map: Arc::new(map) })
        }
    }
}

/// Compiled filters by their source, so that a fan-out compiles each webhook's filter once
/// per process, not once per event: a changed filter is another source, so nothing stale is
/// ever evaluated. Emptied when it holds [`CACHE_MAX`].
static CACHE: Mutex<Option<HashMap<String, Arc<Filter>>>> = Mutex::new(None);
const CACHE_MAX: usize = 1024;

/// The compiled form of a stored filter (compiled on first use, then held).
pub fn compiled(source: &str) -> std::result::Result<Arc<Filter>, String> {
    if let Some(f) = CACHE
        .lock()
        .ok()
        .and_then(|c| c.as_ref().and_then(|m| m.get(source).cloned()))
    {
        return Ok(f);
    }
    let f = Arc::new(Filter::new(source)?);
    if let Ok(mut c) = CACHE.lock() {
        let m = c.get_or_insert_with(HashMap::new);
        if m.len() >= CACHE_MAX {
            m.clear();
        }
        m.insert(source.to_string(), f.clone());
    }
    Ok(f)
}

static ERRORS: AtomicU64 = AtomicU64::new(0);

/// Filter evaluations that failed or gave a non-boolean, since the process started
/// (`keyhook_filter_errors_total`).
pub fn errors_total() -> u64 {
    ERRORS.load(Ordering::Relaxed)
}

/// How often a webhook's filter errors are logged at most.
const LOG_EVERY: Duration = Duration::from_secs(60);
static LOGGED: Mutex<Option<HashMap<String, Instant>>> = Mutex::new(None);

/// Counts a filter that failed and logs it, at most once per [`LOG_EVERY`] per webhook.
pub fn failed(webhook_id: &str, kind: &str) {
    ERRORS.fetch_add(1, Ordering::Relaxed);
    let due = LOGGED.lock().is_ok_and(|mut l| {
        let l = l.get_or_insert_with(HashMap::new);
        let now = Instant::now();
        match l.get(webhook_id) {
            Some(t) if now.duration_since(*t) < LOG_EVERY => false,
            _ => {
                if l.len() >= CACHE_MAX {
                    l.clear();
                }
                l.insert(webhook_id.to_string(), now);
                true
            }
        }
    });
    if due {
        tracing::warn!(
            target: "keyhook::filter",
            webhook = webhook_id,
            error = kind,
            "webhook {webhook_id}: its filter failed ({kind}); nothing was queued for it \
             (logged at most once a minute per webhook)"
        );
    }
}

/// Whether an event with `vars` goes to a webhook with the stored filter `source`: a stored
/// filter that no longer compiles counts as an error.
pub fn admits(webhook_id: &str, source: &str, vars: &Vars) -> bool {
    let result = compiled(source)
        .map_err(|_| "does not compile")
        .and_then(|f| f.matches(vars));
    match result {
        Ok(b) => b,
        Err(kind) => {
            failed(webhook_id, kind);
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn eval(src: &str, data: Json) -> std::result::Result<bool, &'static str> {
        let vars = Vars::new("post.published", Some("brand-a"), &data);
        Filter::new(src)
            .map_err(|e| panic!("{src}: {e}"))
            .unwrap()
            .matches(&vars)
    }

    #[test]
    fn filters_see_event_profile_and_data() {
        let data = json!({"tags": ["x", "breaking"], "n": 3, "title": "Hi"});
        let ok = r#"data.tags.exists(t, t == "breaking") && profileId == "brand-a""#;
        assert_eq!(eval(ok, data.clone()), Ok(true));
        assert_eq!(eval(r#"event == "post.failed""#, data.clone()), Ok(false));
        assert_eq!(
            eval("data.n > 2 && data.title.startsWith('H')", data.clone()),
            Ok(true)
        );
        assert_eq!(eval("data.missing == 1", data.clone()), Err("no such key"));
        assert_eq!(
            eval("data.n", data.clone()),
            Err("the result is not a boolean")
        );
        assert_eq!(
            eval("data.title.exists(c, true)", data.clone()),
            Err("a macro's list is too long or not a list")
        );
        let null = Vars::new("post.published", None, &json!({}));
        assert_eq!(
            Filter::new("profileId == null").unwrap().matches(&null),
            Ok(true)
        );
    }

    #[test]
    fn filters_are_bounded_when_written() {
        let err = |s: &str| Filter::new(s).unwrap_err();
        assert!(err("data.x ==").starts_with("is not a valid CEL expression"));
        assert!(err(" ").starts_with("must not be empty"));
        assert_eq!(
            err(&format!("true || {}", "x".repeat(MAX_LEN))),
            format!("must be at most {MAX_LEN} characters, not {}", MAX_LEN + 8)
        );
        let deep = format!(
            "{}true{}",
            "(".repeat(MAX_DEPTH + 1),
            ")".repeat(MAX_DEPTH + 1)
        );
        assert_eq!(
            err(&deep),
            format!("brackets may nest at most {MAX_DEPTH} deep")
        );
        let chain = format!("data{} == 1", ".a".repeat(MAX_DEPTH));
        assert_eq!(err(&chain), format!("may nest at most {MAX_DEPTH} deep"));
        assert_eq!(
            err("data.a.exists(x, data.b.exists(y, x == y))"),
            "a macro may not be used inside another macro's predicate"
        );
        let many = ["data.l.exists(x, x == 1)"; MAX_MACROS + 1].join(" || ");
        assert_eq!(err(&many), format!("may use at most {MAX_MACROS} macros"));
        assert_eq!(err("Foo{a: 1} == 1"), "message literals are not supported");
        // Chained, not nested: allowed.
        assert_eq!(
            eval(
                "data.l.filter(x, x > 1).exists(x, x == 3)",
                json!({"l": [1, 2, 3]})
            ),
            Ok(true)
        );
    }

    /// The most expensive filter the bounds let through, on the largest data an event may
    /// carry (64 KiB): a macro over a list longer than MAX_RANGE is refused at once, and the
    /// quadratic `map` over MAX_RANGE elements, eight times, ends promptly.
    #[test]
    fn a_hostile_filter_is_bounded_when_evaluated() {
        let long: Vec<i64> = (0..30_000).map(|i| i % 10).collect();
        let start = Instant::now();
        assert_eq!(
            eval("data.l.map(x, x).size() > 0", json!({ "l": long })),
            Err("a macro's list is too long or not a list")
        );
        let ok: Vec<i64> = (0..MAX_RANGE as i64).collect();
        let worst = ["data.l.map(x, data.l).size() == 0"; MAX_MACROS].join(" || ");
        assert_eq!(eval(&worst, json!({ "l": ok })), Ok(false));
        let concat = ["data.s"; 25].join(" + ");
        let s = "x".repeat(60_000);
        let f = format!("size({concat}) == 0");
        assert_eq!(eval(&f, json!({ "s": s })), Ok(false));
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "{:?}",
            start.elapsed()
        );
    }

    #[test]
    fn errors_are_counted_and_stale_filters_never_evaluated() {
        let before = errors_total();
        let vars = Vars::new("post.published", None, &json!({"n": 1}));
        assert!(admits("w1", "data.n == 1", &vars));
        assert!(!admits("w1", "data.n == 2", &vars));
        assert_eq!(errors_total(), before);
        assert!(!admits("w1", "data.n", &vars));
        assert!(!admits("w1", "data.nope", &vars));
        assert!(errors_total() >= before + 2);
        let a = compiled("data.n == 1").unwrap();
        assert!(Arc::ptr_eq(&a, &compiled("data.n == 1").unwrap()));
    }
}
