//! A filter checked against the JSON Schemas (draft 2020-12) of the event types it will see,
//! when it is written: a field of `data` that no schema declares (`data.titel` where the
//! schema has `title`: "did you mean `title`?") and a comparison of a field the schemas type
//! as a string with a number (or a number with a string) are refused.
//!
//! The rule for several schemas (a webhook subscribed to several types): a field is unknown
//! only if every schema says so, and a comparison is refused only if every schema that
//! declares the field gives it the other kind; a schema that cannot tell (no `properties`,
//! `additionalProperties` or `patternProperties` admitting the name, a `$ref` that does not
//! resolve, more work than the budget) never refuses. A field counts as declared where the
//! schema's `properties` names it, in the schema itself or any `$ref`, `allOf`, `anyOf` or
//! `oneOf` branch; `$ref`s are followed within the document, at most [`MAX_HOPS`] deep and
//! [`BUDGET`] steps in all, so a cyclic schema ends.

use std::cell::Cell;

use serde_json::Value as Json;

use super::parse::{Expr, Kind};
use super::value::Value;

const MAX_HOPS: usize = 16;
/// The steps (a schema looked at) one check may take, over all its paths and schemas.
const BUDGET: usize = 10_000;

/// One step of a path into `data`.
#[derive(Debug, Clone, PartialEq)]
enum Seg {
    Field(String),
    /// An element of an array (`data.tags[0]`, a macro's variable over `data.tags`).
    Item,
}

/// What a schema says of one step.
enum Look<'a> {
    /// The schemas of the value there.
    Found(Vec<&'a Json>),
    /// It cannot tell: never refuse.
    Unknown,
    /// Not declared: the names it declares instead.
    Missing(Vec<String>),
}

struct Walk<'a, 'b> {
    root: &'a Json,
    /// The steps left, shared by every walk of one check (over all its paths and schemas).
    left: &'b Cell<usize>,
}

impl<'a> Walk<'a, '_> {
    /// Takes one step of the budget: `false` when it is spent.
    fn step(&self) -> bool {
        let left = self.left.get();
        self.left.set(left.saturating_sub(1));
        left > 0
    }

    /// `$ref` within the document (`#`, `#/$defs/x`, any JSON pointer).
    fn resolve(&self, r: &str) -> Option<&'a Json> {
        let pointer = r.strip_prefix('#')?;
        if pointer.is_empty() {
            return Some(self.root);
        }
        let decoded: String = pointer.replace("%25", "%");
        self.root.pointer(&decoded)
    }

    fn look(&mut self, s: &'a Json, seg: &Seg, hops: usize) -> Look<'a> {
        if hops > MAX_HOPS || !self.step() {
            return Look::Unknown;
        }
        let Some(o) = s.as_object() else {
            return Look::Unknown;
        };
        let mut found = Vec::new();
        let mut unknown = false;
        let mut missing = Vec::new();
        let mut declares = false;
        match seg {
            Seg::Field(name) => {
                if let Some(props) = o.get("properties").and_then(Json::as_object) {
                    declares = true;
                    match props.get(name) {
                        Some(p) => found.push(p),
                        None => missing.extend(props.keys().cloned()),
                    }
                }
                if let Some(pp) = o.get("patternProperties").and_then(Json::as_object) {
                    declares = true;
                    for (pattern, sub) in pp {
                        // Bounded as a filter's own patterns are (eval::regex).
                        match super::eval::regex(pattern) {
                            Ok(re) if re.is_match(name) => found.push(sub),
                            Ok(_) => {}
                            Err(_) => unknown = true,
                        }
                    }
                }
                for admits in ["additionalProperties", "unevaluatedProperties"] {
                    match o.get(admits) {
                        None | Some(Json::Bool(false)) => {}
                        Some(_) => unknown = true,
                    }
                }
            }
            Seg::Item => match o.get("items") {
                Some(items) => {
                    declares = true;
                    found.push(items);
                }
                None => unknown = o.contains_key("prefixItems") || o.get("type").is_none(),
            },
        }
        let mut branches: Vec<&'a Json> = Vec::new();
        if let Some(r) = o.get("$ref").and_then(Json::as_str) {
            match self.resolve(r) {
                Some(t) => branches.push(t),
                None => unknown = true,
            }
        }
        for k in ["allOf", "anyOf", "oneOf"] {
            if let Some(list) = o.get(k).and_then(Json::as_array) {
                branches.extend(list);
            }
        }
        if o.contains_key("$dynamicRef") || o.contains_key("if") {
            unknown = true;
        }
        for b in branches {
            declares = true;
            match self.look(b, seg, hops + 1) {
                Look::Found(f) => found.extend(f),
                Look::Unknown => unknown = true,
                Look::Missing(m) => missing.extend(m),
            }
        }
        if !found.is_empty() {
            Look::Found(found)
        } else if unknown || !declares {
            Look::Unknown
        } else {
            Look::Missing(missing)
        }
    }

    /// The JSON types the schemas allow at a place: `Some(["string"])`, or `None` when they
    /// do not say (no `type`, or a `$ref`/composition that might).
    fn types(&mut self, schemas: &[&'a Json], hops: usize) -> Option<Vec<String>> {
        let mut all = Vec::new();
        for s in schemas {
            if hops > MAX_HOPS || !self.step() {
                return None;
            }
            let o = s.as_object()?;
            let mut here: Option<Vec<String>> = match o.get("type") {
                Some(Json::String(t)) => Some(vec![t.clone()]),
                Some(Json::Array(a)) => a.iter().map(|t| t.as_str().map(String::from)).collect(),
                _ => None,
            };
            if let Some(r) = o.get("$ref").and_then(Json::as_str) {
                let target = self.resolve(r)?;
                let t = self.types(&[target], hops + 1)?;
                here = Some(match here {
                    Some(h) => h.into_iter().filter(|x| t.contains(x)).collect(),
                    None => t,
                });
            }
            if ["allOf", "anyOf", "oneOf", "const", "enum"]
                .iter()
                .any(|k| o.contains_key(*k))
                && here.is_none()
            {
                return None;
            }
            all.extend(here?);
        }
        Some(all)
    }
}

/// A path into `data` (`data.a["b"][0]`), unless `data` is a macro's variable here.
fn path(e: &Expr, locals: &[(String, Option<Vec<Seg>>)]) -> Option<Vec<Seg>> {
    // Iterative: the operands of a chain, outermost first.
    let mut segs = Vec::new();
    let mut cur = e;
    loop {
        match &cur.kind {
            Kind::Ident(name) => {
                let base = match locals.iter().rev().find(|(n, _)| n == name) {
                    Some((_, p)) => p.clone()?,
                    None if name == "data" => Vec::new(),
                    None => return None,
                };
                segs.reverse();
                return Some([base, segs].concat());
            }
            Kind::Select { operand, field, .. } => {
                segs.push(Seg::Field(field.clone()));
                cur = operand;
            }
            Kind::Index(operand, i) => {
                segs.push(match &i.kind {
                    Kind::Lit(Value::Str(s)) => Seg::Field(s.to_string()),
                    Kind::Lit(Value::Int(_) | Value::Uint(_) | Value::Double(_)) => Seg::Item,
                    _ => return None,
                });
                cur = operand;
            }
            _ => return None,
        }
    }
}

fn show(p: &[Seg]) -> String {
    let mut s = String::from("data");
    for seg in p {
        match seg {
            Seg::Field(f) if f.chars().all(|c| c == '_' || c.is_ascii_alphanumeric()) => {
                s.push('.');
                s.push_str(f);
            }
            Seg::Field(f) => s.push_str(&format!("[{f:?}]")),
            Seg::Item => s.push_str("[…]"),
        }
    }
    s
}

/// Levenshtein distance, on characters (names are short).
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur.push(sub.min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

fn suggestion(name: &str, candidates: &[String]) -> String {
    let best = candidates
        .iter()
        .map(|c| (distance(name, c), c))
        .filter(|(d, c)| *d <= 2.max(c.chars().count() / 3))
        .min();
    match best {
        Some((_, c)) => format!(" (did you mean `{c}`?)"),
        None => String::new(),
    }
}

/// The literal kind on the other side of a comparison: "a number" or "a string".
fn literal_kind(e: &Expr) -> Option<&'static str> {
    match &e.kind {
        Kind::Lit(Value::Int(_) | Value::Uint(_) | Value::Double(_)) => Some("a number"),
        Kind::Neg(x) if matches!(x.kind, Kind::Lit(Value::Int(_) | Value::Double(_))) => {
            Some("a number")
        }
        Kind::Lit(Value::Str(_)) => Some("a string"),
        _ => None,
    }
}

pub struct Checker<'a> {
    /// The schemas, each with the event type it belongs to.
    schemas: Vec<(&'a str, &'a Json)>,
    locals: Vec<(String, Option<Vec<Seg>>)>,
    left: Cell<usize>,
}

impl<'a> Checker<'a> {
    pub fn new(schemas: Vec<(&'a str, &'a Json)>) -> Checker<'a> {
        Checker {
            schemas,
            locals: Vec::new(),
            left: Cell::new(BUDGET),
        }
    }

    /// Walks the expression (recursion: its depth, at most MAX_DEPTH).
    pub fn check(&mut self, e: &Expr) -> Result<(), String> {
        if let Some(p) = path(e, &self.locals) {
            self.check_path(&p)?;
        }
        match &e.kind {
            Kind::Binary(op @ ("==" | "!=" | "<" | "<=" | ">" | ">="), a, b) => {
                for (side, other) in [(a, b), (b, a)] {
                    if let (Some(p), Some(lit)) = (path(side, &self.locals), literal_kind(other)) {
                        self.check_comparison(&p, op, lit)?;
                    }
                }
            }
            Kind::Comprehension {
                range,
                var,
                pred,
                transform,
                ..
            } => {
                self.check(range)?;
                let var_path = path(range, &self.locals).map(|mut p| {
                    p.push(Seg::Item);
                    p
                });
                self.locals.push((var.clone(), var_path));
                let result = self
                    .check(pred)
                    .and_then(|()| transform.as_deref().map_or(Ok(()), |t| self.check(t)));
                self.locals.pop();
                return result;
            }
            _ => {}
        }
        for c in e.children() {
            self.check(c)?;
        }
        Ok(())
    }

    /// Where each schema says the path leads: `Err` when every schema misses a step.
    fn check_path(&self, p: &[Seg]) -> Result<(), String> {
        if self.schemas.is_empty() {
            return Ok(());
        }
        let mut misses = Vec::new();
        for (name, schema) in &self.schemas {
            let mut w = Walk {
                root: schema,
                left: &self.left,
            };
            let mut here: Vec<&Json> = vec![schema];
            let mut miss = None;
            'steps: for (i, seg) in p.iter().enumerate() {
                let mut next = Vec::new();
                let mut candidates = Vec::new();
                for s in &here {
                    match w.look(s, seg, 0) {
                        Look::Found(f) => next.extend(f),
                        Look::Unknown => break 'steps,
                        Look::Missing(m) => candidates.extend(m),
                    }
                }
                if next.is_empty() {
                    miss = Some((i, candidates));
                    break;
                }
                here = next;
            }
            match miss {
                None => return Ok(()),
                Some(m) => misses.push((*name, m)),
            }
        }
        // Every schema misses: name the first miss (the same step in each, usually).
        let (_, (i, candidates)) = &misses[0];
        let Seg::Field(field) = &p[*i] else {
            return Ok(());
        };
        let types: Vec<&str> = misses.iter().map(|(n, _)| *n).collect();
        Err(format!(
            "`{}`: the schema of {} declares no field `{field}` there{}",
            show(&p[..=*i]),
            types.join(", "),
            suggestion(field, candidates),
        ))
    }

    fn check_comparison(&self, p: &[Seg], op: &str, lit: &str) -> Result<(), String> {
        let mut kinds = Vec::new();
        for (name, schema) in &self.schemas {
            let mut w = Walk {
                root: schema,
                left: &self.left,
            };
            let mut here: Vec<&Json> = vec![schema];
            for seg in p {
                let mut next = Vec::new();
                for s in &here {
                    match w.look(s, seg, 0) {
                        Look::Found(f) => next.extend(f),
                        Look::Unknown => return Ok(()),
                        Look::Missing(_) => {}
                    }
                }
                here = next;
            }
            if here.is_empty() {
                continue;
            }
            let Some(types) = w.types(&here, 0) else {
                return Ok(());
            };
            let string = types.iter().all(|t| t == "string");
            let number = types.iter().all(|t| t == "number" || t == "integer");
            match (lit, string, number) {
                ("a number", true, _) if !types.is_empty() => kinds.push((*name, "a string")),
                ("a string", _, true) if !types.is_empty() => kinds.push((*name, "a number")),
                _ => return Ok(()),
            }
        }
        if let Some((_, kind)) = kinds.first() {
            let types: Vec<&str> = kinds.iter().map(|(n, _)| *n).collect();
            let fix = if *kind == "a string" {
                "quote the number"
            } else {
                "compare with a number"
            };
            return Err(format!(
                "`{}` is {kind} in the schema of {} and `{op}` compares it with {lit} ({fix})",
                show(p),
                types.join(", "),
            ));
        }
        Ok(())
    }
}
