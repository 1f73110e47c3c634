//! CEL's grammar (cel-spec langdef) by recursive descent, with the macros expanded into
//! their own nodes. Every node knows its depth (computed from its children's, so without
//! recursion), and the parser refuses a node deeper than [`MAX_DEPTH`]: unary operators,
//! brackets and member chains all count. The parser recurses only through brackets and unary
//! operators, each of which counts a level, so its own recursion is bounded by the same limit.

use super::lex::{Spanned, Tok};
use super::value::Value;
use super::MAX_DEPTH;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Macro {
    All,
    Exists,
    ExistsOne,
    Map,
    Filter,
}

impl Macro {
    pub fn name(self) -> &'static str {
        match self {
            Macro::All => "all",
            Macro::Exists => "exists",
            Macro::ExistsOne => "exists_one",
            Macro::Map => "map",
            Macro::Filter => "filter",
        }
    }
}

#[derive(Debug, Clone)]
pub enum Kind {
    Lit(Value),
    Ident(String),
    /// `operand.field`; `test` for `has(operand.field)`.
    Select {
        operand: Box<Expr>,
        field: String,
        test: bool,
    },
    Index(Box<Expr>, Box<Expr>),
    /// A function (`size(x)`) or a method (`x.size()`).
    Call {
        func: String,
        target: Option<Box<Expr>>,
        args: Vec<Expr>,
    },
    List(Vec<Expr>),
    Map(Vec<(Expr, Expr)>),
    /// `!x`, `-x`.
    Not(Box<Expr>),
    Neg(Box<Expr>),
    /// `a op b` for `== != < <= > >= in + - * / %`.
    Binary(&'static str, Box<Expr>, Box<Expr>),
    /// `a && b && ...`, `a || b || ...`: n-ary, commutative over errors.
    And(Vec<Expr>),
    Or(Vec<Expr>),
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `range.m(var, pred)`, `range.map(var, pred, transform)`.
    Comprehension {
        kind: Macro,
        range: Box<Expr>,
        var: String,
        pred: Box<Expr>,
        transform: Option<Box<Expr>>,
    },
}

#[derive(Debug, Clone)]
pub struct Expr {
    pub kind: Kind,
    pub depth: usize,
    /// Where the node starts in the source (characters).
    pub pos: usize,
}

impl Expr {
    pub fn children(&self) -> Vec<&Expr> {
        match &self.kind {
            Kind::Lit(_) | Kind::Ident(_) => vec![],
            Kind::Select { operand, .. } => vec![operand],
            Kind::Index(a, b) => vec![a, b],
            Kind::Call { target, args, .. } => target.iter().map(|t| &**t).chain(args).collect(),
            Kind::List(l) | Kind::And(l) | Kind::Or(l) => l.iter().collect(),
            Kind::Map(m) => m.iter().flat_map(|(k, v)| [k, v]).collect(),
            Kind::Not(a) | Kind::Neg(a) => vec![a],
            Kind::Binary(_, a, b) => vec![a, b],
            Kind::Cond(a, b, c) => vec![a, b, c],
            Kind::Comprehension {
                range,
                pred,
                transform,
                ..
            } => [range, pred]
                .into_iter()
                .chain(transform)
                .map(|e| &**e)
                .collect(),
        }
    }
}

pub fn parse(toks: &[Spanned], len: usize) -> Result<Expr, String> {
    let mut p = Parser {
        toks,
        i: 0,
        nest: 0,
        end: len,
    };
    let e = p.expr()?;
    if let Some((t, pos)) = toks.get(p.i) {
        return Err(format!("unexpected {} at {pos}", show(t)));
    }
    Ok(e)
}

fn show(t: &Tok) -> String {
    match t {
        Tok::Punct(p) => format!("`{p}`"),
        Tok::Ident(i) => format!("`{i}`"),
        Tok::In => "`in`".into(),
        _ => "literal".into(),
    }
}

struct Parser<'a> {
    toks: &'a [Spanned],
    i: usize,
    /// How many brackets and unary operators the parser is inside.
    nest: usize,
    end: usize,
}

fn too_deep() -> String {
    format!("may nest at most {MAX_DEPTH} deep")
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.i).map(|t| &t.0)
    }
    fn pos(&self) -> usize {
        self.toks.get(self.i).map_or(self.end, |t| t.1)
    }
    fn eat(&mut self, p: &str) -> bool {
        if matches!(self.peek(), Some(Tok::Punct(q)) if *q == p) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn expect(&mut self, p: &str) -> Result<(), String> {
        if self.eat(p) {
            return Ok(());
        }
        match self.toks.get(self.i) {
            Some((t, pos)) => Err(format!("expected `{p}` at {pos}, found {}", show(t))),
            None => Err(format!("expected `{p}` at the end")),
        }
    }
    fn node(&self, kind: Kind, pos: usize) -> Result<Expr, String> {
        let e = Expr {
            kind,
            depth: 0,
            pos,
        };
        let depth = 1 + e.children().iter().map(|c| c.depth).max().unwrap_or(0);
        if depth > MAX_DEPTH {
            return Err(too_deep());
        }
        Ok(Expr { depth, ..e })
    }
    fn enter(&mut self) -> Result<(), String> {
        self.nest += 1;
        if self.nest > MAX_DEPTH {
            return Err(too_deep());
        }
        Ok(())
    }

    fn expr(&mut self) -> Result<Expr, String> {
        let pos = self.pos();
        let c = self.or()?;
        if !self.eat("?") {
            return Ok(c);
        }
        let a = self.or()?;
        self.expect(":")?;
        // Right-associative: `a ? b : c ? d : e`; a nested bracket level.
        self.enter()?;
        let b = self.expr()?;
        self.nest -= 1;
        self.node(Kind::Cond(Box::new(c), Box::new(a), Box::new(b)), pos)
    }

    fn or(&mut self) -> Result<Expr, String> {
        let pos = self.pos();
        let mut v = vec![self.and()?];
        while self.eat("||") {
            v.push(self.and()?);
        }
        if v.len() == 1 {
            return Ok(v.pop().unwrap_or_else(|| unreachable!()));
        }
        self.node(Kind::Or(v), pos)
    }

    fn and(&mut self) -> Result<Expr, String> {
        let pos = self.pos();
        let mut v = vec![self.relation()?];
        while self.eat("&&") {
            v.push(self.relation()?);
        }
        if v.len() == 1 {
            return Ok(v.pop().unwrap_or_else(|| unreachable!()));
        }
        self.node(Kind::And(v), pos)
    }

    fn relation(&mut self) -> Result<Expr, String> {
        let mut a = self.addition()?;
        loop {
            let op = match self.peek() {
                Some(Tok::In) => "in",
                Some(Tok::Punct(p @ ("==" | "!=" | "<" | "<=" | ">" | ">="))) => p,
                _ => return Ok(a),
            };
            let pos = self.pos();
            self.i += 1;
            let b = self.addition()?;
            a = self.node(Kind::Binary(op, Box::new(a), Box::new(b)), pos)?;
        }
    }

    fn addition(&mut self) -> Result<Expr, String> {
        let mut a = self.multiplication()?;
        loop {
            let op = match self.peek() {
                Some(Tok::Punct(p @ ("+" | "-"))) => *p,
                _ => return Ok(a),
            };
            let pos = self.pos();
            self.i += 1;
            let b = self.multiplication()?;
            a = self.node(Kind::Binary(op, Box::new(a), Box::new(b)), pos)?;
        }
    }

    fn multiplication(&mut self) -> Result<Expr, String> {
        let mut a = self.unary()?;
        loop {
            let op = match self.peek() {
                Some(Tok::Punct(p @ ("*" | "/" | "%"))) => *p,
                _ => return Ok(a),
            };
            let pos = self.pos();
            self.i += 1;
            let b = self.unary()?;
            a = self.node(Kind::Binary(op, Box::new(a), Box::new(b)), pos)?;
        }
    }

    /// `!`/`-` repeated: each keeps its meaning (`!!x` is `x`, `--1` is `1`), each one a
    /// nesting level. A `-` right before a number is part of the literal (`-1`,
    /// `-9223372036854775808`), as in CEL's grammar.
    fn unary(&mut self) -> Result<Expr, String> {
        let mut ops = Vec::new();
        while let Some(Tok::Punct(p @ ("!" | "-"))) = self.peek() {
            ops.push((*p, self.pos()));
            self.i += 1;
            if ops.len() > MAX_DEPTH {
                return Err(too_deep());
            }
        }
        let mut e = match (ops.last(), self.peek()) {
            (Some(("-", pos)), Some(Tok::Int(_) | Tok::BigInt(_) | Tok::Double(_))) => {
                let pos = *pos;
                ops.pop();
                let lit = match self.peek() {
                    Some(Tok::Int(v)) => Value::Int(-v),
                    Some(Tok::BigInt(v)) if *v == 1u64 << 63 => Value::Int(i64::MIN),
                    Some(Tok::Double(v)) => Value::Double(-v),
                    _ => return Err(format!("integer literal out of range at {pos}")),
                };
                self.i += 1;
                let lit = self.node(Kind::Lit(lit), pos)?;
                self.nest += ops.len();
                if self.nest > MAX_DEPTH {
                    return Err(too_deep());
                }
                let e = self.member_tail(lit);
                self.nest -= ops.len();
                e?
            }
            _ => {
                self.nest += ops.len();
                if self.nest > MAX_DEPTH {
                    return Err(too_deep());
                }
                let e = self.member();
                self.nest -= ops.len();
                e?
            }
        };
        while let Some((op, pos)) = ops.pop() {
            let kind = if op == "!" {
                Kind::Not(Box::new(e))
            } else {
                Kind::Neg(Box::new(e))
            };
            e = self.node(kind, pos)?;
        }
        Ok(e)
    }

    fn member(&mut self) -> Result<Expr, String> {
        let e = self.primary()?;
        self.member_tail(e)
    }

    fn member_tail(&mut self, mut e: Expr) -> Result<Expr, String> {
        loop {
            let pos = self.pos();
            if self.eat(".") {
                let name = match self.toks.get(self.i) {
                    Some((Tok::QuotedIdent(n) | Tok::Reserved(n), _)) => {
                        self.i += 1;
                        e = self.node(
                            Kind::Select {
                                operand: Box::new(e),
                                field: n.clone(),
                                test: false,
                            },
                            pos,
                        )?;
                        continue;
                    }
                    Some((Tok::Ident(n), _)) => n.clone(),
                    Some((t, pos)) => {
                        return Err(format!("expected a field name at {pos}, found {}", show(t)))
                    }
                    None => return Err("expected a field name at the end".into()),
                };
                self.i += 1;
                if self.eat("(") {
                    let args = self.args(")")?;
                    e = self.call(name, Some(e), args, pos)?;
                } else {
                    e = self.node(
                        Kind::Select {
                            operand: Box::new(e),
                            field: name,
                            test: false,
                        },
                        pos,
                    )?;
                }
            } else if self.eat("[") {
                self.enter()?;
                let idx = self.expr()?;
                self.nest -= 1;
                self.expect("]")?;
                e = self.node(Kind::Index(Box::new(e), Box::new(idx)), pos)?;
            } else if self.peek() == Some(&Tok::Punct("{"))
                && matches!(e.kind, Kind::Ident(_) | Kind::Select { .. })
            {
                return Err(format!(
                    "message literals are not supported (at {})",
                    self.pos()
                ));
            } else {
                return Ok(e);
            }
        }
    }

    /// Comma-separated expressions up to `close` (already past the opening bracket); a
    /// trailing comma is allowed, as in CEL.
    fn args(&mut self, close: &str) -> Result<Vec<Expr>, String> {
        self.enter()?;
        let mut v = Vec::new();
        while !self.eat(close) {
            v.push(self.expr()?);
            if !self.eat(",") {
                self.expect(close)?;
                break;
            }
        }
        self.nest -= 1;
        Ok(v)
    }

    fn primary(&mut self) -> Result<Expr, String> {
        let pos = self.pos();
        let Some((t, _)) = self.toks.get(self.i) else {
            return Err("unexpected end of the expression".into());
        };
        self.i += 1;
        let lit = |v| Kind::Lit(v);
        let kind = match t {
            Tok::Int(v) => lit(Value::Int(*v)),
            Tok::BigInt(_) => return Err(format!("integer literal out of range at {pos}")),
            Tok::Uint(v) => lit(Value::Uint(*v)),
            Tok::Double(v) => lit(Value::Double(*v)),
            Tok::Str(s) => lit(Value::Str(s.as_str().into())),
            Tok::Bytes(b) => lit(Value::Bytes(b.as_slice().into())),
            Tok::True => lit(Value::Bool(true)),
            Tok::False => lit(Value::Bool(false)),
            Tok::Null => lit(Value::Null),
            Tok::Ident(name) => {
                let name = name.clone();
                if self.eat("(") {
                    let args = self.args(")")?;
                    return self.call(name, None, args, pos);
                }
                Kind::Ident(name)
            }
            Tok::Punct("(") => {
                self.enter()?;
                let e = self.expr()?;
                self.nest -= 1;
                self.expect(")")?;
                return Ok(e);
            }
            Tok::Punct("[") => Kind::List(self.args("]")?),
            Tok::Punct("{") => {
                self.enter()?;
                let mut entries = Vec::new();
                while !self.eat("}") {
                    let k = self.expr()?;
                    self.expect(":")?;
                    let v = self.expr()?;
                    entries.push((k, v));
                    if !self.eat(",") {
                        self.expect("}")?;
                        break;
                    }
                }
                self.nest -= 1;
                Kind::Map(entries)
            }
            Tok::Punct(".") => {
                return Err(format!(
                    "a leading `.` (a root-scoped name) is not supported (at {pos})"
                ))
            }
            Tok::Reserved(w) => return Err(format!("`{w}` is a reserved word (at {pos})")),
            t => return Err(format!("unexpected {} at {pos}", show(t))),
        };
        self.node(kind, pos)
    }

    /// A call, or one of CEL's macros (`has`, `all`, `exists`, `exists_one`, `map`,
    /// `filter`) when its name and arity match.
    fn call(
        &mut self,
        func: String,
        target: Option<Expr>,
        mut args: Vec<Expr>,
        pos: usize,
    ) -> Result<Expr, String> {
        if target.is_none() && func == "has" && args.len() == 1 {
            let arg = args.pop().unwrap_or_else(|| unreachable!());
            let Kind::Select { operand, field, .. } = arg.kind else {
                return Err(format!(
                    "has() takes a field selection such as has(data.title) (at {pos})"
                ));
            };
            return self.node(
                Kind::Select {
                    operand,
                    field,
                    test: true,
                },
                pos,
            );
        }
        let kind = match (func.as_str(), args.len()) {
            ("all", 2) => Some(Macro::All),
            ("exists", 2) => Some(Macro::Exists),
            ("exists_one", 2) => Some(Macro::ExistsOne),
            ("map", 2 | 3) => Some(Macro::Map),
            ("filter", 2) => Some(Macro::Filter),
            _ => None,
        };
        if let (Some(kind), true) = (kind, target.is_some()) {
            let mut it = args.into_iter();
            let var = match it.next().map(|a| a.kind) {
                Some(Kind::Ident(v)) => v,
                _ => {
                    return Err(format!(
                        "{}(): the first argument must be a simple name (at {pos})",
                        kind.name()
                    ))
                }
            };
            let first = it.next().unwrap_or_else(|| unreachable!());
            let (pred, transform) = match it.next() {
                Some(t) => (first, Some(Box::new(t))),
                None => (first, None),
            };
            let (pred, transform) = if kind == Macro::Map && transform.is_none() {
                // `map(x, t)`: every element, transformed.
                let yes = self.node(Kind::Lit(Value::Bool(true)), pos)?;
                (yes, Some(Box::new(pred)))
            } else {
                (pred, transform)
            };
            return self.node(
                Kind::Comprehension {
                    kind,
                    range: Box::new(target.unwrap_or_else(|| unreachable!())),
                    var,
                    pred: Box::new(pred),
                    transform,
                },
                pos,
            );
        }
        self.node(
            Kind::Call {
                func,
                target: target.map(Box::new),
                args,
            },
            pos,
        )
    }
}
