//! CEL's values and their evaluation (cel-spec langdef, "Values", "Functions" and "Macros"),
//! for the expressions the checker ([`super::check`]) lets through.
//!
//! The evaluator recurses on the expression tree only (at most [`super::MAX_DEPTH`] deep) and on
//! values when comparing them (as deep as the data, which serde_json parses at most 128 deep,
//! plus the expression's own brackets). Every step is charged to a budget of [`MAX_COST`]
//! units: a node evaluated, a macro's step, each byte or element a concatenation, a
//! comparison, `in`, `size()` or a string function touches. An evaluation over its budget is
//! an error, so no filter, however written, holds a server for long or grows its memory.

use std::cell::Cell;
use std::cmp::Ordering;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use super::parse::{Expr, Kind, Macro};
pub use super::value::{Key, Type, Value};

/// The units one evaluation may spend (see the module's documentation): about 10 MB copied
/// or compared, a few milliseconds.
pub const MAX_COST: u64 = 10_000_000;
/// The longest regular expression `matches()` takes, in characters.
pub const MAX_PATTERN: usize = 256;
/// What the regex crate may build for one pattern (bytes): bounds its memory, and matching
/// is linear in the text (RE2 semantics: no backreferences, no lookaround).
const REGEX_SIZE: usize = 1 << 20;

/// 2^63 and 2^64 as doubles (exact): the bounds of int and uint.
const TWO_63: f64 = 9_223_372_036_854_775_808.0;
const TWO_64: f64 = 18_446_744_073_709_551_616.0;

/// What an evaluation error says: its kind only, never a value of the data.
pub type Error = &'static str;
pub const NO_SUCH_KEY: Error = "no such key";
pub const NO_OVERLOAD: Error = "no such overload";
pub const OVERFLOW: Error = "overflow";
pub const DIV_ZERO: Error = "division by zero";
pub const OUT_OF_BOUNDS: Error = "index out of bounds";
pub const RANGE: Error = "a macro's list is too long";
pub const COST: Error = "the evaluation exceeds its cost limit";
pub const CONVERSION: Error = "invalid conversion";
pub const DUPLICATE_KEY: Error = "duplicate map key";
pub const BAD_REGEX: Error = "invalid regular expression";

/// The keys a lookup of `v` tries: numbers are equal across int, uint and double, so
/// `{1: x}[1u]` and `{1: x}[1.0]` find `x`.
fn lookup_keys(v: &Value) -> Vec<Key> {
    let num = |i: Option<i64>, u: Option<u64>| {
        i.map(Key::Int)
            .into_iter()
            .chain(u.map(Key::Uint))
            .collect()
    };
    match v {
        Value::Int(i) => num(Some(*i), u64::try_from(*i).ok()),
        Value::Uint(u) => num(i64::try_from(*u).ok(), Some(*u)),
        Value::Double(d) if d.fract() == 0.0 => num(
            (*d >= -TWO_63 && *d < TWO_63).then_some(*d as i64),
            (*d >= 0.0 && *d < TWO_64).then_some(*d as u64),
        ),
        _ => v.to_key().into_iter().collect(),
    }
}

fn map_get<'m>(m: &'m BTreeMap<Key, Value>, k: &Value) -> Option<&'m Value> {
    lookup_keys(k).iter().find_map(|k| m.get(k))
}

/// The budget of one evaluation.
pub struct Cost(Cell<u64>);

impl Cost {
    pub fn new() -> Cost {
        Cost(Cell::new(0))
    }
    fn charge(&self, n: usize) -> Result<(), Error> {
        let spent = self.0.get().saturating_add(n as u64);
        self.0.set(spent);
        if spent > MAX_COST {
            return Err(COST);
        }
        Ok(())
    }
}

impl Default for Cost {
    fn default() -> Self {
        Cost::new()
    }
}

/// Heterogeneous equality as CEL defines it: numbers compare by value across int, uint and
/// double (NaN equals nothing); values of different types are not equal.
pub fn equal(a: &Value, b: &Value, cost: &Cost) -> Result<bool, Error> {
    cost.charge(1)?;
    Ok(match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Str(x), Value::Str(y)) => {
            cost.charge(x.len().min(y.len()))?;
            x == y
        }
        (Value::Bytes(x), Value::Bytes(y)) => {
            cost.charge(x.len().min(y.len()))?;
            x == y
        }
        (Value::Type(x), Value::Type(y)) => x == y,
        (Value::List(x), Value::List(y)) => {
            if x.len() != y.len() {
                return Ok(false);
            }
            for (p, q) in x.iter().zip(y.iter()) {
                if !equal(p, q, cost)? {
                    return Ok(false);
                }
            }
            true
        }
        (Value::Map(x), Value::Map(y)) => {
            if x.len() != y.len() {
                return Ok(false);
            }
            for (k, v) in x.iter() {
                match map_get(y, &k.value()) {
                    Some(w) if equal(v, w, cost)? => {}
                    _ => return Ok(false),
                }
            }
            true
        }
        _ => num_cmp(a, b) == Some(Some(Ordering::Equal)),
    })
}

/// Numbers compared across types, exactly: `None` if either is not a number, `Some(None)`
/// if a NaN is involved.
fn num_cmp(a: &Value, b: &Value) -> Option<Option<Ordering>> {
    Some(match (a, b) {
        (Value::Int(x), Value::Int(y)) => Some(x.cmp(y)),
        (Value::Uint(x), Value::Uint(y)) => Some(x.cmp(y)),
        (Value::Double(x), Value::Double(y)) => x.partial_cmp(y),
        (Value::Int(x), Value::Uint(y)) => Some(i128::from(*x).cmp(&i128::from(*y))),
        (Value::Uint(x), Value::Int(y)) => Some(i128::from(*x).cmp(&i128::from(*y))),
        (Value::Int(x), Value::Double(y)) => int_double(i128::from(*x), *y),
        (Value::Uint(x), Value::Double(y)) => int_double(i128::from(*x), *y),
        (Value::Double(x), Value::Int(y)) => int_double(i128::from(*y), *x).map(Ordering::reverse),
        (Value::Double(x), Value::Uint(y)) => int_double(i128::from(*y), *x).map(Ordering::reverse),
        _ => return None,
    })
}

/// An integer against a double, as CEL's reference implementation compares them: the
/// integer converted to a double (so `9223372036854775807 < 9223372036854775808.0` is false,
/// as the conformance suite says).
fn int_double(i: i128, d: f64) -> Option<Ordering> {
    (i as f64).partial_cmp(&d)
}

/// Ordering for `< <= > >=`: numbers across types, strings, bytes, bools.
fn compare(a: &Value, b: &Value, cost: &Cost) -> Result<Option<Ordering>, Error> {
    if let Some(o) = num_cmp(a, b) {
        return Ok(o);
    }
    Ok(Some(match (a, b) {
        (Value::Bool(x), Value::Bool(y)) => x.cmp(y),
        (Value::Str(x), Value::Str(y)) => {
            cost.charge(x.len().min(y.len()))?;
            x.cmp(y)
        }
        (Value::Bytes(x), Value::Bytes(y)) => {
            cost.charge(x.len().min(y.len()))?;
            x.cmp(y)
        }
        _ => return Err(NO_OVERLOAD),
    }))
}

/// What an evaluation reads: the variables, the regular expressions compiled when the
/// expression was, the locals of the macro being evaluated, the budget.
pub struct Env<'a> {
    pub vars: &'a dyn Fn(&str) -> Option<Value>,
    pub regexes: &'a HashMap<String, regex::Regex>,
    pub locals: Vec<(String, Value)>,
    pub cost: Cost,
}

pub fn eval(e: &Expr, env: &mut Env) -> Result<Value, Error> {
    env.cost.charge(1)?;
    match &e.kind {
        Kind::Lit(v) => Ok(v.clone()),
        Kind::Ident(name) => {
            if let Some((_, v)) = env.locals.iter().rev().find(|(n, _)| n == name) {
                return Ok(v.clone());
            }
            if let Some(v) = (env.vars)(name) {
                return Ok(v);
            }
            Type::from_name(name)
                .map(Value::Type)
                .ok_or("undeclared reference")
        }
        Kind::Select {
            operand,
            field,
            test,
        } => {
            let v = eval(operand, env)?;
            let Value::Map(m) = v else {
                return Err(NO_OVERLOAD);
            };
            let found = m.get(&Key::Str(field.as_str().into()));
            if *test {
                return Ok(Value::Bool(found.is_some()));
            }
            found.cloned().ok_or(NO_SUCH_KEY)
        }
        Kind::Index(a, i) => {
            let a = eval(a, env)?;
            let i = eval(i, env)?;
            match a {
                Value::List(l) => {
                    let n = match i {
                        Value::Int(n) => n,
                        Value::Uint(u) => i64::try_from(u).map_err(|_| OUT_OF_BOUNDS)?,
                        Value::Double(d) if d.fract() == 0.0 && d.abs() < 9.0e18 => d as i64,
                        Value::Double(_) => return Err(OUT_OF_BOUNDS),
                        _ => return Err(NO_OVERLOAD),
                    };
                    usize::try_from(n)
                        .ok()
                        .and_then(|n| l.get(n))
                        .cloned()
                        .ok_or(OUT_OF_BOUNDS)
                }
                Value::Map(m) => {
                    if !matches!(
                        i,
                        Value::Bool(_)
                            | Value::Int(_)
                            | Value::Uint(_)
                            | Value::Double(_)
                            | Value::Str(_)
                    ) {
                        return Err(NO_OVERLOAD);
                    }
                    map_get(&m, &i).cloned().ok_or(NO_SUCH_KEY)
                }
                _ => Err(NO_OVERLOAD),
            }
        }
        Kind::Call { func, target, args } => {
            let mut vals = Vec::with_capacity(args.len() + 1);
            if let Some(t) = target {
                vals.push(eval(t, env)?);
            }
            for a in args {
                vals.push(eval(a, env)?);
            }
            call(func, &vals, env)
        }
        Kind::List(items) => {
            let mut out = Vec::with_capacity(items.len());
            for x in items {
                out.push(eval(x, env)?);
            }
            Ok(Value::List(Arc::new(out)))
        }
        Kind::Map(entries) => {
            let mut out = BTreeMap::new();
            for (k, v) in entries {
                let k = eval(k, env)?.to_key().ok_or(NO_OVERLOAD)?;
                let v = eval(v, env)?;
                // Keys equal across numeric types are the same key.
                if lookup_keys(&k.value()).iter().any(|k| out.contains_key(k)) {
                    return Err(DUPLICATE_KEY);
                }
                out.insert(k, v);
            }
            Ok(Value::Map(Arc::new(out)))
        }
        Kind::Not(a) => match eval(a, env)? {
            Value::Bool(b) => Ok(Value::Bool(!b)),
            _ => Err(NO_OVERLOAD),
        },
        Kind::Neg(a) => match eval(a, env)? {
            Value::Int(i) => i.checked_neg().map(Value::Int).ok_or(OVERFLOW),
            Value::Double(d) => Ok(Value::Double(-d)),
            _ => Err(NO_OVERLOAD),
        },
        Kind::And(items) | Kind::Or(items) => {
            // Commutative over errors: the absorbing value (false for &&, true for ||) on
            // either side decides; otherwise the first error.
            let absorbing = matches!(e.kind, Kind::Or(_));
            let mut err = None;
            for x in items {
                match eval(x, env) {
                    Ok(Value::Bool(b)) if b == absorbing => return Ok(Value::Bool(b)),
                    Ok(Value::Bool(_)) => {}
                    Ok(_) => err = err.or(Some(NO_OVERLOAD)),
                    Err(COST) => return Err(COST),
                    Err(x) => err = err.or(Some(x)),
                }
            }
            err.map_or(Ok(Value::Bool(!absorbing)), Err)
        }
        Kind::Cond(c, a, b) => match eval(c, env)? {
            Value::Bool(true) => eval(a, env),
            Value::Bool(false) => eval(b, env),
            _ => Err(NO_OVERLOAD),
        },
        Kind::Binary(op, a, b) => {
            let a = eval(a, env)?;
            let b = eval(b, env)?;
            binary(op, a, b, &env.cost)
        }
        Kind::Comprehension {
            kind,
            range,
            var,
            pred,
            transform,
        } => {
            let range = eval(range, env)?;
            let items: Vec<Value> = match &range {
                Value::List(l) => {
                    if l.len() > super::MAX_RANGE {
                        return Err(RANGE);
                    }
                    l.iter().cloned().collect()
                }
                Value::Map(m) => {
                    if m.len() > super::MAX_RANGE {
                        return Err(RANGE);
                    }
                    m.keys().map(Key::value).collect()
                }
                _ => return Err(NO_OVERLOAD),
            };
            comprehension(*kind, items, var, pred, transform.as_deref(), env)
        }
    }
}

fn comprehension(
    kind: Macro,
    items: Vec<Value>,
    var: &str,
    pred: &Expr,
    transform: Option<&Expr>,
    env: &mut Env,
) -> Result<Value, Error> {
    let mut err = None;
    let mut count = 0usize;
    let mut out = Vec::new();
    for item in items {
        env.locals.push((var.to_string(), item.clone()));
        let verdict = eval(pred, env).and_then(|v| match v {
            Value::Bool(b) => Ok(b),
            _ => Err(NO_OVERLOAD),
        });
        let result = (|| -> Result<Option<Value>, Error> {
            match kind {
                // `all` and `exists` absorb errors as `&&` and `||` do.
                Macro::All | Macro::Exists => {
                    let absorbing = kind == Macro::Exists;
                    match verdict {
                        Ok(b) if b == absorbing => return Ok(Some(Value::Bool(b))),
                        Ok(_) => {}
                        Err(COST) => return Err(COST),
                        Err(x) => err = err.or(Some(x)),
                    }
                }
                Macro::ExistsOne => count += usize::from(verdict?),
                Macro::Filter => {
                    if verdict? {
                        out.push(item.clone());
                    }
                }
                Macro::Map => {
                    if verdict? {
                        if let Some(t) = transform {
                            out.push(eval(t, env)?);
                        }
                    }
                }
            }
            Ok(None)
        })();
        env.locals.pop();
        if let Some(v) = result? {
            return Ok(v);
        }
    }
    match kind {
        Macro::All | Macro::Exists => err.map_or(Ok(Value::Bool(kind == Macro::All)), Err),
        Macro::ExistsOne => Ok(Value::Bool(count == 1)),
        Macro::Map | Macro::Filter => Ok(Value::List(Arc::new(out))),
    }
}

fn binary(op: &str, a: Value, b: Value, cost: &Cost) -> Result<Value, Error> {
    use Value::*;
    Ok(match op {
        "==" => Bool(equal(&a, &b, cost)?),
        "!=" => Bool(!equal(&a, &b, cost)?),
        "<" | "<=" | ">" | ">=" => {
            let o = compare(&a, &b, cost)?;
            Bool(o.is_some_and(|o| match op {
                "<" => o == Ordering::Less,
                "<=" => o != Ordering::Greater,
                ">" => o == Ordering::Greater,
                _ => o != Ordering::Less,
            }))
        }
        "in" => match &b {
            List(l) => {
                for x in l.iter() {
                    if equal(&a, x, cost)? {
                        return Ok(Bool(true));
                    }
                }
                Bool(false)
            }
            Map(m) => Bool(map_get(m, &a).is_some()),
            _ => return Err(NO_OVERLOAD),
        },
        "+" => match (a, b) {
            (Int(x), Int(y)) => Int(x.checked_add(y).ok_or(OVERFLOW)?),
            (Uint(x), Uint(y)) => Uint(x.checked_add(y).ok_or(OVERFLOW)?),
            (Double(x), Double(y)) => Double(x + y),
            (Str(x), Str(y)) => {
                cost.charge(x.len() + y.len())?;
                Str(format!("{x}{y}").into())
            }
            (Bytes(x), Bytes(y)) => {
                cost.charge(x.len() + y.len())?;
                Bytes([&x[..], &y[..]].concat().into())
            }
            (List(x), List(y)) => {
                cost.charge(x.len() + y.len())?;
                List(Arc::new(x.iter().chain(y.iter()).cloned().collect()))
            }
            _ => return Err(NO_OVERLOAD),
        },
        "-" => match (a, b) {
            (Int(x), Int(y)) => Int(x.checked_sub(y).ok_or(OVERFLOW)?),
            (Uint(x), Uint(y)) => Uint(x.checked_sub(y).ok_or(OVERFLOW)?),
            (Double(x), Double(y)) => Double(x - y),
            _ => return Err(NO_OVERLOAD),
        },
        "*" => match (a, b) {
            (Int(x), Int(y)) => Int(x.checked_mul(y).ok_or(OVERFLOW)?),
            (Uint(x), Uint(y)) => Uint(x.checked_mul(y).ok_or(OVERFLOW)?),
            (Double(x), Double(y)) => Double(x * y),
            _ => return Err(NO_OVERLOAD),
        },
        "/" => match (a, b) {
            (Int(_), Int(0)) | (Uint(_), Uint(0)) => return Err(DIV_ZERO),
            (Int(x), Int(y)) => Int(x.checked_div(y).ok_or(OVERFLOW)?),
            (Uint(x), Uint(y)) => Uint(x / y),
            (Double(x), Double(y)) => Double(x / y),
            _ => return Err(NO_OVERLOAD),
        },
        "%" => match (a, b) {
            (Int(_), Int(0)) | (Uint(_), Uint(0)) => return Err(DIV_ZERO),
            (Int(x), Int(y)) => Int(x.checked_rem(y).ok_or(OVERFLOW)?),
            (Uint(x), Uint(y)) => Uint(x % y),
            _ => return Err(NO_OVERLOAD),
        },
        _ => return Err(NO_OVERLOAD),
    })
}

/// Compiles a regular expression for `matches()` within the bounds.
pub fn regex(pattern: &str) -> Result<regex::Regex, String> {
    if pattern.chars().count() > MAX_PATTERN {
        return Err(format!(
            "a regular expression may have at most {MAX_PATTERN} characters"
        ));
    }
    regex::RegexBuilder::new(pattern)
        .size_limit(REGEX_SIZE)
        .dfa_size_limit(REGEX_SIZE)
        .build()
        .map_err(|e| match e {
            regex::Error::CompiledTooBig(_) => "the regular expression is too large".to_string(),
            e => format!("invalid regular expression: {e}"),
        })
}

fn call(func: &str, args: &[Value], env: &Env) -> Result<Value, Error> {
    use Value::*;
    let cost = &env.cost;
    Ok(match (func, args) {
        ("size", [x]) => {
            let n = match x {
                Str(s) => {
                    cost.charge(s.len())?;
                    s.chars().count()
                }
                Bytes(b) => b.len(),
                List(l) => l.len(),
                Map(m) => m.len(),
                _ => return Err(NO_OVERLOAD),
            };
            Int(i64::try_from(n).map_err(|_| OVERFLOW)?)
        }
        ("contains" | "startsWith" | "endsWith", [Str(s), Str(t)]) => {
            cost.charge(s.len())?;
            Bool(match func {
                "contains" => s.contains(&**t),
                "startsWith" => s.starts_with(&**t),
                _ => s.ends_with(&**t),
            })
        }
        ("matches", [Str(s), Str(p)]) => {
            cost.charge(s.len().saturating_mul(4))?;
            match env.regexes.get(&**p) {
                Some(re) => Bool(re.is_match(s)),
                None => {
                    cost.charge(p.len().saturating_mul(1000))?;
                    Bool(regex(p).map_err(|_| BAD_REGEX)?.is_match(s))
                }
            }
        }
        ("int", [x]) => Int(match x {
            Int(i) => *i,
            Uint(u) => i64::try_from(*u).map_err(|_| OVERFLOW)?,
            Double(d) => {
                if !(*d > -TWO_63 && *d < TWO_63) {
                    return Err(OVERFLOW);
                }
                d.trunc() as i64
            }
            Str(s) => s.parse().map_err(|_| CONVERSION)?,
            _ => return Err(NO_OVERLOAD),
        }),
        ("uint", [x]) => Uint(match x {
            Uint(u) => *u,
            Int(i) => u64::try_from(*i).map_err(|_| OVERFLOW)?,
            Double(d) => {
                if !(*d > -1.0 && *d < TWO_64) {
                    return Err(OVERFLOW);
                }
                d.trunc() as u64
            }
            // As Go's ParseUint: digits only, no sign.
            Str(s) if s.starts_with('+') => return Err(CONVERSION),
            Str(s) => s.parse().map_err(|_| CONVERSION)?,
            _ => return Err(NO_OVERLOAD),
        }),
        ("double", [x]) => Double(match x {
            Double(d) => *d,
            Int(i) => *i as f64,
            Uint(u) => *u as f64,
            Str(s) => parse_double(s).ok_or(CONVERSION)?,
            _ => return Err(NO_OVERLOAD),
        }),
        ("string", [x]) => Str(match x {
            Str(s) => s.clone(),
            Int(i) => i.to_string().into(),
            Uint(u) => u.to_string().into(),
            Double(d) => format_double(*d).into(),
            Bool(b) => b.to_string().into(),
            Bytes(b) => std::str::from_utf8(b).map_err(|_| CONVERSION)?.into(),
            _ => return Err(NO_OVERLOAD),
        }),
        ("bool", [x]) => Bool(match x {
            Bool(b) => *b,
            Str(s) => match &**s {
                "1" | "t" | "T" | "true" | "TRUE" | "True" => true,
                "0" | "f" | "F" | "false" | "FALSE" | "False" => false,
                _ => return Err(CONVERSION),
            },
            _ => return Err(NO_OVERLOAD),
        }),
        ("bytes", [x]) => Bytes(match x {
            Bytes(b) => b.clone(),
            Str(s) => s.as_bytes().into(),
            _ => return Err(NO_OVERLOAD),
        }),
        ("dyn", [x]) => x.clone(),
        ("type", [x]) => Type(x.type_of()),
        _ => return Err(NO_OVERLOAD),
    })
}

/// `double(string)`: decimal and exponent forms, `inf`, `-inf`, `nan` (as Go's ParseFloat
/// reads them, without hex floats or underscores).
fn parse_double(s: &str) -> Option<f64> {
    let ok = s
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
    ok.then(|| s.parse().ok()).flatten()
}

/// `string(double)` as CEL's reference implementation writes it (Go's `%g` with the
/// shortest digits that read back the same: `1`, `1.5`, `1e+06`, `1.5e-05`, `+Inf`, `NaN`).
pub fn format_double(d: f64) -> String {
    if d.is_nan() {
        return "NaN".into();
    }
    if d.is_infinite() {
        return if d > 0.0 { "+Inf" } else { "-Inf" }.into();
    }
    if d == 0.0 {
        return if d.is_sign_negative() { "-0" } else { "0" }.into();
    }
    // Rust's `{:e}` gives the shortest round-trip digits: "1.2345e6", "-5e-7".
    let e = format!("{d:e}");
    let (mant, exp) = e.split_once('e').unwrap_or((&e, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let neg = mant.starts_with('-');
    let digits: String = mant.chars().filter(char::is_ascii_digit).collect();
    let sign = if neg { "-" } else { "" };
    if !(-4..6).contains(&exp) {
        let (first, rest) = digits.split_at(1);
        let dot = if rest.is_empty() { "" } else { "." };
        let es = if exp < 0 { '-' } else { '+' };
        return format!("{sign}{first}{dot}{rest}e{es}{:02}", exp.abs());
    }
    let n = digits.len() as i32;
    if exp >= n - 1 {
        format!("{sign}{digits}{}", "0".repeat((exp - n + 1) as usize))
    } else if exp >= 0 {
        let (a, b) = digits.split_at((exp + 1) as usize);
        format!("{sign}{a}.{b}")
    } else {
        format!("{sign}0.{}{digits}", "0".repeat((-exp - 1) as usize))
    }
}
