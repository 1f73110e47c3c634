//! The static check of a parsed expression, when a filter is written: every identifier,
//! function, macro and overload must be one keyhook evaluates, and an operation that can
//! never succeed on the types its operands can have is refused (`data.x + 1`: JSON numbers
//! are doubles, and CEL has no double + int). Types are sets of kinds, so the check only
//! refuses what no value could make work. Recursion: the tree's depth, at most
//! [`super::MAX_DEPTH`].

use std::collections::HashMap;

use super::eval;
use super::parse::{Expr, Kind, Macro};
use super::value::Value;
use super::MAX_MACROS;

pub const NULL: u16 = 1;
pub const BOOL: u16 = 2;
pub const INT: u16 = 4;
pub const UINT: u16 = 8;
pub const DOUBLE: u16 = 16;
pub const STRING: u16 = 32;
pub const BYTES: u16 = 64;
pub const LIST: u16 = 128;
pub const MAP: u16 = 256;
pub const TYPE: u16 = 512;
pub const ANY: u16 = 1023;
const NUM: u16 = INT | UINT | DOUBLE;
/// What a JSON value can be in CEL.
pub const JSON: u16 = NULL | BOOL | DOUBLE | STRING | LIST | MAP;

/// The static type of an expression: the kinds its value may have; `json`: a JSON value,
/// whose elements (list items, map values) are JSON values too.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ty {
    pub kinds: u16,
    pub json: bool,
    /// Wrapped in `dyn()`: compared with `==` or `!=` to a value of another kind it is
    /// not refused (CEL's static check would refuse `false != null`, but not `dyn(false) !=
    /// null`, which is `true`). Every operation that fails at evaluation is still refused.
    pub dynamic: bool,
}

impl Ty {
    pub const fn of(kinds: u16) -> Ty {
        Ty {
            kinds,
            json: false,
            dynamic: false,
        }
    }
    pub const fn json() -> Ty {
        Ty {
            kinds: JSON,
            json: true,
            dynamic: false,
        }
    }
    /// The type of a container's elements.
    fn element(self) -> Ty {
        if self.json {
            Ty::json()
        } else {
            Ty::of(ANY)
        }
    }
}

fn kind_of(v: &Value) -> u16 {
    match v {
        Value::Null => NULL,
        Value::Bool(_) => BOOL,
        Value::Int(_) => INT,
        Value::Uint(_) => UINT,
        Value::Double(_) => DOUBLE,
        Value::Str(_) => STRING,
        Value::Bytes(_) => BYTES,
        Value::List(_) => LIST,
        Value::Map(_) => MAP,
        Value::Type(_) => TYPE,
    }
}

/// Names a set of kinds in a message: "int", "string or null", "a JSON value".
fn describe(t: Ty) -> String {
    if t.json && t.kinds == JSON {
        return "a JSON value".into();
    }
    if t.kinds == ANY {
        return "any value".into();
    }
    let names: Vec<&str> = [
        (NULL, "null"),
        (BOOL, "bool"),
        (INT, "int"),
        (UINT, "uint"),
        (DOUBLE, "double"),
        (STRING, "string"),
        (BYTES, "bytes"),
        (LIST, "list"),
        (MAP, "map"),
        (TYPE, "type"),
    ]
    .into_iter()
    .filter(|(k, _)| t.kinds & k != 0)
    .map(|(_, n)| n)
    .collect();
    names.join(" or ")
}

/// The functions keyhook evaluates, for messages.
const FUNCTIONS: &str = "size, contains, startsWith, endsWith, matches, int, uint, double, \
                         string, bool, bytes, dyn, type, and the macros has, all, exists, \
                         exists_one, map, filter";

pub struct Checker<'a> {
    pub vars: &'a [(&'a str, Ty)],
    pub locals: Vec<(String, Ty)>,
    pub macros: usize,
    pub in_macro: bool,
    pub regexes: HashMap<String, regex::Regex>,
}

impl Checker<'_> {
    pub fn check(&mut self, e: &Expr) -> Result<Ty, String> {
        match &e.kind {
            Kind::Lit(v) => Ok(Ty::of(kind_of(v))),
            Kind::Ident(name) => self.ident(name),
            Kind::Select {
                operand,
                field,
                test,
            } => {
                let t = self.check(operand)?;
                if t.kinds & MAP == 0 {
                    let what = if *test { "has() tests" } else { "`.` selects" };
                    return Err(format!(
                        "{what} a field of a map, and `{}` is {} (at {})",
                        field,
                        describe(t),
                        e.pos
                    ));
                }
                Ok(if *test { Ty::of(BOOL) } else { t.element() })
            }
            Kind::Index(a, i) => {
                let t = self.check(a)?;
                let i = self.check(i)?;
                let list = t.kinds & LIST != 0 && i.kinds & NUM != 0;
                let map = t.kinds & MAP != 0 && i.kinds & (BOOL | NUM | STRING) != 0;
                if !list && !map {
                    return Err(format!(
                        "cannot index {} with {} (at {})",
                        describe(t),
                        describe(i),
                        e.pos
                    ));
                }
                Ok(t.element())
            }
            Kind::Call { func, target, args } => self.call(e, func, target.as_deref(), args),
            Kind::List(items) => {
                for x in items {
                    self.check(x)?;
                }
                Ok(Ty::of(LIST))
            }
            Kind::Map(entries) => {
                for (k, v) in entries {
                    let kt = self.check(k)?;
                    if kt.kinds & (BOOL | INT | UINT | STRING) == 0 {
                        return Err(format!(
                            "a map key is a bool, int, uint or string, not {} (at {})",
                            describe(kt),
                            k.pos
                        ));
                    }
                    self.check(v)?;
                }
                Ok(Ty::of(MAP))
            }
            Kind::Not(a) => {
                let t = self.check(a)?;
                self.need(t, BOOL, "`!`", e)?;
                Ok(Ty::of(BOOL))
            }
            Kind::Neg(a) => {
                let t = self.check(a)?;
                self.need(t, INT | DOUBLE, "unary `-`", e)?;
                Ok(Ty::of(t.kinds & (INT | DOUBLE)))
            }
            Kind::And(items) | Kind::Or(items) => {
                let op = if matches!(e.kind, Kind::And(_)) {
                    "`&&`"
                } else {
                    "`||`"
                };
                for x in items {
                    let t = self.check(x)?;
                    self.need(t, BOOL, op, x)?;
                }
                Ok(Ty::of(BOOL))
            }
            Kind::Cond(c, a, b) => {
                let t = self.check(c)?;
                self.need(t, BOOL, "the condition of `? :`", c)?;
                let (a, b) = (self.check(a)?, self.check(b)?);
                Ok(Ty {
                    kinds: a.kinds | b.kinds,
                    json: a.json && b.json,
                    dynamic: a.dynamic || b.dynamic,
                })
            }
            Kind::Binary(op, a, b) => {
                let (ta, tb) = (self.check(a)?, self.check(b)?);
                binary(op, ta, tb, e)
            }
            Kind::Comprehension {
                kind,
                range,
                var,
                pred,
                transform,
            } => {
                if self.in_macro {
                    return Err("a macro may not be used inside another macro's predicate".into());
                }
                self.macros += 1;
                if self.macros > MAX_MACROS {
                    return Err(format!("may use at most {MAX_MACROS} macros"));
                }
                let r = self.check(range)?;
                if r.kinds & (LIST | MAP) == 0 {
                    return Err(format!(
                        "{}() ranges over a list or a map, not {} (at {})",
                        kind.name(),
                        describe(r),
                        e.pos
                    ));
                }
                let var_ty = if r.json {
                    Ty::json()
                } else if r.kinds & LIST == 0 {
                    Ty::of(BOOL | INT | UINT | STRING)
                } else {
                    Ty::of(ANY)
                };
                self.locals.push((var.clone(), var_ty));
                self.in_macro = true;
                let result = (|| {
                    let p = self.check(pred)?;
                    self.need(p, BOOL, &format!("{}()'s predicate", kind.name()), pred)?;
                    transform.as_deref().map(|t| self.check(t)).transpose()
                })();
                self.in_macro = false;
                self.locals.pop();
                let element = result?;
                Ok(match kind {
                    Macro::All | Macro::Exists | Macro::ExistsOne => Ty::of(BOOL),
                    // A list of JSON values is a JSON value (`data.l.map(x, x)[0] + 1` can no
                    // more succeed than `data.l[0] + 1`).
                    Macro::Map => Ty {
                        json: element.is_some_and(|t| t.json),
                        ..Ty::of(LIST)
                    },
                    Macro::Filter => Ty { kinds: LIST, ..r },
                })
            }
        }
    }

    fn need(&self, t: Ty, kinds: u16, what: &str, at: &Expr) -> Result<(), String> {
        if t.kinds & kinds == 0 {
            return Err(format!(
                "{what} takes {}, not {} (at {})",
                describe(Ty::of(kinds)),
                describe(t),
                at.pos
            ));
        }
        Ok(())
    }

    fn ident(&self, name: &str) -> Result<Ty, String> {
        if let Some((_, t)) = self.locals.iter().rev().find(|(n, _)| n == name) {
            return Ok(*t);
        }
        if let Some((_, t)) = self.vars.iter().find(|(n, _)| *n == name) {
            return Ok(*t);
        }
        if eval::Type::from_name(name).is_some() {
            return Ok(Ty::of(TYPE));
        }
        let known: Vec<String> = self.vars.iter().map(|(n, _)| format!("`{n}`")).collect();
        Err(format!(
            "unknown identifier `{name}` (the variables are {})",
            known.join(", ")
        ))
    }

    fn call(
        &mut self,
        e: &Expr,
        func: &str,
        target: Option<&Expr>,
        args: &[Expr],
    ) -> Result<Ty, String> {
        let pos = e.pos;
        const KNOWN: &[&str] = &[
            "size",
            "contains",
            "startsWith",
            "endsWith",
            "matches",
            "int",
            "uint",
            "double",
            "string",
            "bool",
            "bytes",
            "dyn",
            "type",
        ];
        if !KNOWN.contains(&func) {
            return Err(match func {
                "has" => format!(
                    "has() takes one field selection such as has(data.title) (at {pos})"
                ),
                "all" | "exists" | "exists_one" | "map" | "filter" => format!(
                    "{func}() is a macro: write list.{func}(x, predicate) (at {pos})"
                ),
                _ => format!(
                    "`{func}` (at {pos}) is not a function keyhook's filters evaluate{}; the functions are {FUNCTIONS}",
                    unsupported_hint(func)
                ),
            });
        }
        let t = target.map(|t| self.check(t)).transpose()?;
        let mut a = Vec::new();
        for x in args {
            a.push(self.check(x)?);
        }
        let arity = |n: usize| -> Result<(), String> {
            if a.len() != n {
                return Err(format!(
                    "{func}() takes {n} argument{}, not {} (at {pos})",
                    if n == 1 { "" } else { "s" },
                    a.len()
                ));
            }
            Ok(())
        };
        let conversion = |from: u16, to: u16| -> Result<Ty, String> {
            if t.is_some() {
                return Err(format!(
                    "{func}() is a function: write {func}(x) (at {pos})"
                ));
            }
            arity(1)?;
            if a[0].kinds & from == 0 {
                return Err(format!(
                    "{func}() takes {}, not {} (at {pos})",
                    describe(Ty::of(from)),
                    describe(a[0])
                ));
            }
            Ok(Ty::of(to))
        };
        match func {
            "size" => {
                let x = match t {
                    Some(t) => {
                        arity(0)?;
                        t
                    }
                    None => {
                        arity(1)?;
                        a[0]
                    }
                };
                self.need(x, STRING | BYTES | LIST | MAP, "size()", e)?;
                Ok(Ty::of(INT))
            }
            "contains" | "startsWith" | "endsWith" | "matches" => {
                let (s, p, pat) = match (t, func) {
                    (Some(t), _) => {
                        arity(1)?;
                        (t, a[0], &args[0])
                    }
                    (None, "matches") => {
                        arity(2)?;
                        (a[0], a[1], &args[1])
                    }
                    (None, _) => {
                        return Err(format!(
                            "{func}() is a method: write s.{func}(t) (at {pos})"
                        ))
                    }
                };
                self.need(s, STRING, &format!("{func}()"), e)?;
                self.need(p, STRING, &format!("{func}()'s argument"), pat)?;
                if func == "matches" {
                    if let Kind::Lit(Value::Str(re)) = &pat.kind {
                        let compiled = eval::regex(re)?;
                        self.regexes.insert(re.to_string(), compiled);
                    }
                }
                Ok(Ty::of(BOOL))
            }
            "int" => conversion(NUM | STRING, INT),
            "uint" => conversion(NUM | STRING, UINT),
            "double" => conversion(NUM | STRING, DOUBLE),
            "string" => conversion(NUM | STRING | BYTES | BOOL, STRING),
            "bool" => conversion(BOOL | STRING, BOOL),
            "bytes" => conversion(BYTES | STRING, BYTES),
            // CEL's way to opt out of its static types. Here a type is the set of kinds a
            // value may have at evaluation, and dyn(x) is x then: the same set, so that
            // `dyn(data.x) + 1` is refused like `data.x + 1` (it can never succeed either);
            // only the refusal of `==` across kinds, which CEL's types make, is lifted.
            "dyn" => conversion(ANY, ANY).map(|_| Ty {
                dynamic: true,
                ..a[0]
            }),
            "type" => conversion(ANY, TYPE),
            _ => unreachable!("KNOWN lists the functions matched above"),
        }
    }
}

fn unsupported_hint(func: &str) -> &'static str {
    match func {
        "timestamp" | "duration" | "getFullYear" | "getMonth" | "getDate" | "getDayOfMonth"
        | "getDayOfWeek" | "getDayOfYear" | "getHours" | "getMinutes" | "getSeconds"
        | "getMilliseconds" => ": no timestamps or durations (compare the strings)",
        "lowerAscii" | "upperAscii" | "trim" | "replace" | "split" | "join" | "substring"
        | "charAt" | "indexOf" | "lastIndexOf" | "format" | "quote" | "reverse" => {
            ": CEL's strings extension is not evaluated"
        }
        _ => "",
    }
}

/// The overloads of the binary operators, by kinds.
fn binary(op: &str, a: Ty, b: Ty, e: &Expr) -> Result<Ty, String> {
    let both = |k: u16| a.kinds & k != 0 && b.kinds & k != 0;
    let pos = e.pos;
    let result = match op {
        "==" | "!=" => {
            // Numbers are equal across types; any other pair of kinds never is.
            let class = |k: u16| if k & NUM != 0 { k | NUM } else { k };
            if class(a.kinds) & class(b.kinds) == 0 && !(a.dynamic || b.dynamic) {
                return Err(format!(
                    "`{op}` compares {} with {}: they are never equal (at {pos})",
                    describe(a),
                    describe(b)
                ));
            }
            BOOL
        }
        "<" | "<=" | ">" | ">=" => {
            let num = a.kinds & NUM != 0 && b.kinds & NUM != 0;
            if !(num || both(STRING) || both(BYTES) || both(BOOL)) {
                return Err(format!(
                    "`{op}` orders numbers, strings, bytes or bools of one kind, not {} and {} (at {pos})",
                    describe(a),
                    describe(b)
                ));
            }
            BOOL
        }
        "in" => {
            if b.kinds & (LIST | MAP) == 0 {
                let hint = if b.kinds & STRING != 0 {
                    " (for a substring, write s.contains(t))"
                } else {
                    ""
                };
                return Err(format!(
                    "`in` tests membership of a list or a map, not of {}{hint} (at {pos})",
                    describe(b)
                ));
            }
            BOOL
        }
        _ => {
            let allowed = match op {
                "+" => NUM | STRING | BYTES | LIST,
                "%" => INT | UINT,
                _ => NUM,
            };
            let k = [INT, UINT, DOUBLE, STRING, BYTES, LIST]
                .into_iter()
                .filter(|k| allowed & k != 0 && both(*k))
                .fold(0, |acc, k| acc | k);
            if k == 0 {
                return Err(arith_error(op, a, b, pos));
            }
            return Ok(Ty {
                kinds: k,
                json: k == LIST && a.json && b.json,
                dynamic: false,
            });
        }
    };
    Ok(Ty::of(result))
}

fn arith_error(op: &str, a: Ty, b: Ty, pos: usize) -> String {
    let mut msg = format!(
        "no `{op}` for {} and {} (at {pos})",
        describe(a),
        describe(b)
    );
    let json_num = |t: Ty| t.json && t.kinds & DOUBLE != 0;
    if op == "%" && (json_num(a) || json_num(b)) {
        msg.push_str(
            ": JSON numbers are doubles and `%` takes integers; convert first, as in int(data.n) % 2",
        );
    } else if (json_num(a) && b.kinds & (INT | UINT) == b.kinds)
        || (json_num(b) && a.kinds & (INT | UINT) == a.kinds)
    {
        msg.push_str(": JSON numbers are doubles and CEL does not mix int and double in arithmetic; write the number as a double, e.g. `1.0` for `1`");
    }
    msg
}
