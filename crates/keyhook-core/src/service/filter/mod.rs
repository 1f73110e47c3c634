//! Webhook payload filters: a CEL expression over `event` (string), `profileId` (string or
//! null) and `data` (the event's data, JSON numbers as doubles), checked when a webhook is
//! created or changed and evaluated at fan-out, once per emit for each active subscribed
//! webhook that has one. Only `true` queues a delivery; an evaluation error or a result that
//! is not a boolean queues nothing, and `service::routing` leaves the trace of the skip
//! (counted, logged and listed, naming the webhook and the kind of error, never the data).
//!
//! keyhook's own CEL (CONTRACT §10.1, cel-spec's language definition): [`lex`] and [`parse`]
//! read the whole grammar, [`check`] refuses what keyhook does not evaluate or what can never
//! succeed, [`eval`] evaluates. The bounds, checked when written unless said:
//! - at most [`MAX_LEN`] characters;
//! - at most [`MAX_DEPTH`] levels of nesting, every level counted (brackets, unary
//!   operators, member chains, operators): parser, checker and evaluator recurse no deeper;
//! - at most [`MAX_MACROS`] macros, and no macro inside another macro's predicate (one may
//!   take another's result as its list: `data.l.filter(x, x > 1).exists(...)`);
//! - regular expressions of at most [`eval::MAX_PATTERN`] characters, compiled with a size
//!   limit by the regex crate (linear-time matching);
//! - at evaluation: a macro ranges over at most [`MAX_RANGE`] elements, and the whole
//!   evaluation spends at most [`eval::MAX_COST`] units (bytes and elements copied or
//!   compared, steps); beyond either it is an evaluation error.

pub mod check;
pub mod eval;
pub mod lex;
pub mod parse;
mod schema;
pub mod value;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::Value as Json;

pub use check::Ty;
pub use value::{Key, Type, Value};

/// The longest filter, in characters.
pub const MAX_LEN: usize = 2048;
/// How deep an expression may nest (every level counts, unary operators included).
pub const MAX_DEPTH: usize = 32;
/// How many macros (`exists`, `all`, `exists_one`, `map`, `filter`) a filter may use.
pub const MAX_MACROS: usize = 8;
/// The most elements a macro ranges over (at evaluation).
pub const MAX_RANGE: usize = 1000;

/// A CEL expression checked against declared variables, ready to evaluate: the engine under
/// [`Filter`], public for tools that bind other variables (the conformance runner).
#[derive(Debug, Clone)]
pub struct Program {
    expr: parse::Expr,
    regexes: HashMap<String, regex::Regex>,
}

impl Program {
    /// Parses and checks `source` with the variables `vars` (name, static type); the message
    /// says what is refused and where (a character offset).
    pub fn compile(source: &str, vars: &[(&str, Ty)]) -> std::result::Result<Program, String> {
        Program::compile_staged(source, vars).map_err(|(_, e)| e)
    }

    /// [`Program::compile`], saying whether the text is not CEL at all (`true`: a lexical or
    /// syntax error) or CEL that keyhook refuses (`false`: the checker's verdict).
    fn compile_staged(
        source: &str,
        vars: &[(&str, Ty)],
    ) -> std::result::Result<Program, (bool, String)> {
        let syntax = |e| (true, e);
        let toks = lex::lex(source).map_err(syntax)?;
        let expr = parse::parse(&toks, source.chars().count()).map_err(syntax)?;
        let mut checker = check::Checker {
            vars,
            locals: Vec::new(),
            macros: 0,
            in_macro: false,
            regexes: HashMap::new(),
        };
        checker.check(&expr).map_err(|e| (false, e))?;
        Ok(Program {
            expr,
            regexes: checker.regexes,
        })
    }

    /// Evaluates with the variables `vars` gives (`None`: not bound).
    pub fn eval(
        &self,
        vars: &dyn Fn(&str) -> Option<Value>,
    ) -> std::result::Result<Value, &'static str> {
        let mut env = eval::Env {
            vars,
            regexes: &self.regexes,
            locals: Vec::new(),
            cost: eval::Cost::new(),
        };
        // Belt and braces: nothing in the evaluator is known to panic; should it, the
        // evaluation is an error, never a request taken down.
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            eval::eval(&self.expr, &mut env)
        }))
        .unwrap_or(Err("the evaluation failed"))
    }
}

/// The variables of a filter and their static types.
const FILTER_VARS: &[(&str, Ty)] = &[
    ("event", Ty::of(check::STRING)),
    ("profileId", Ty::of(check::STRING | check::NULL)),
    ("data", Ty::json()),
];

/// A filter checked and compiled: its source and the program evaluated.
#[derive(Debug, Clone)]
pub struct Filter {
    source: String,
    program: Program,
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
        // Belt and braces, as in `Program::eval`.
        let program = std::panic::catch_unwind(|| Program::compile_staged(source, FILTER_VARS))
            .map_err(|_| "is not a valid CEL expression: the parser failed on it".to_string())?
            .map_err(|(syntax, e)| match syntax {
                true => format!("is not a valid CEL expression: {e}"),
                false => format!("is not a filter keyhook evaluates: {e}"),
            })?;
        Ok(Filter {
            source: source.to_string(),
            program,
        })
    }

    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// Checks the filter against the JSON Schema of the event type it will see (see
    /// [`schema`]): a field of `data` the schema does not declare, or a comparison of a field
    /// the schema types as a string with a number (or a number with a string), is refused.
    pub fn check_schema(&self, schema: &Json) -> std::result::Result<(), String> {
        self.check_schemas(&[("the event type", schema)])
    }

    /// [`Filter::check_schema`] for a filter that sees several event types, each `(name,
    /// schema)`: a field is unknown only if every schema says so (the rule in [`schema`]).
    pub fn check_schemas(&self, schemas: &[(&str, &Json)]) -> std::result::Result<(), String> {
        schema::Checker::new(schemas.to_vec()).check(&self.program.expr)
    }

    /// `Ok(true)`: the event goes to the webhook; `Ok(false)`: it does not; `Err`: the kind
    /// of error (an evaluation error, or a result that is not a boolean), safe to log: it
    /// holds no value of the data.
    pub fn matches(&self, vars: &Vars) -> std::result::Result<bool, &'static str> {
        let lookup = |name: &str| match name {
            "event" => Some(vars.event.clone()),
            "profileId" => Some(vars.profile.clone()),
            "data" => Some(vars.data.clone()),
            _ => None,
        };
        match self.program.eval(&lookup)? {
            Value::Bool(b) => Ok(b),
            _ => Err("the result is not a boolean"),
        }
    }
}

/// The variables of one event, converted once and shared by every filter it meets.
pub struct Vars {
    event: Value,
    profile: Value,
    data: Value,
}

impl Vars {
    pub fn new(event: &str, profile_id: Option<&str>, data: &Json) -> Vars {
        Vars {
            event: Value::Str(event.into()),
            profile: profile_id.map_or(Value::Null, |p| Value::Str(p.into())),
            data: Value::from_json(data),
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

#[cfg(test)]
mod tests;
