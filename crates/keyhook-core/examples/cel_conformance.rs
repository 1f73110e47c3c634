//! CEL's conformance suite against keyhook's filter engine (`.ci/cel-conformance.sh`).
//!
//! Reads the JSON lines `.ci/cel/conformance.mjs` writes (stdin, or the file named as the
//! first argument) and compiles each case with its declared variables through
//! `service::filter::Program` (the engine under every filter). Each case must be either
//! answered as the suite expects (the value, or an error) or refused when compiled; a wrong
//! value, a value where an error was expected, or an error where a value was expected fails
//! the run. Prints the counts and every failure (and, with CEL_CONFORMANCE_VERBOSE set, every
//! refusal with its reason).

use std::collections::HashMap;
use std::io::Read;
use std::sync::Arc;

use keyhook_core::service::filter::check::{
    ANY, BOOL, BYTES, DOUBLE, INT, LIST, MAP, NULL, STRING, TYPE, UINT,
};
use keyhook_core::service::filter::{Key, Program, Ty, Type, Value};
use serde_json::Value as Json;

/// A value of the suite, or `None` for one keyhook has no form of (a protobuf message).
fn value(v: &Json) -> Option<Value> {
    let (k, x) = v.as_object()?.iter().next()?;
    Some(match k.as_str() {
        "null" => Value::Null,
        "bool" => Value::Bool(x.as_bool()?),
        "int" => Value::Int(x.as_str()?.parse().ok()?),
        "uint" => Value::Uint(x.as_str()?.parse().ok()?),
        "double" => Value::Double(match x {
            Json::String(s) => match s.as_str() {
                "NaN" => f64::NAN,
                "Infinity" => f64::INFINITY,
                "-Infinity" => f64::NEG_INFINITY,
                _ => return None,
            },
            n => n.as_f64()?,
        }),
        "string" => Value::Str(x.as_str()?.into()),
        "bytes" => Value::Bytes(
            x.as_array()?
                .iter()
                .map(|b| b.as_u64().map(|b| b as u8))
                .collect::<Option<Vec<u8>>>()?
                .into(),
        ),
        "list" => Value::List(Arc::new(
            x.as_array()?.iter().map(value).collect::<Option<_>>()?,
        )),
        "map" => {
            let mut m = std::collections::BTreeMap::new();
            for e in x.as_array()? {
                let key = match value(e.get(0)?)? {
                    Value::Bool(b) => Key::Bool(b),
                    Value::Int(i) => Key::Int(i),
                    Value::Uint(u) => Key::Uint(u),
                    Value::Str(s) => Key::Str(s),
                    _ => return None,
                };
                m.insert(key, value(e.get(1)?)?);
            }
            Value::Map(Arc::new(m))
        }
        "type" => Value::Type(Type::from_name(match x.as_str()? {
            "null_type" | "google.protobuf.NullValue" => "null_type",
            t => t,
        })?),
        _ => return None,
    })
}

fn ty(t: &str) -> Option<Ty> {
    Some(Ty::of(match t {
        "bool" => BOOL,
        "int" => INT,
        "uint" => UINT,
        "double" => DOUBLE,
        "string" => STRING,
        "bytes" => BYTES,
        "list" => LIST,
        "map" => MAP,
        "null" => NULL,
        "type" => TYPE,
        "dyn" => ANY,
        _ => return None,
    }))
}

/// The suite's equality: the same type and value (NaN is NaN here), maps in any order.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Int(x), Value::Int(y)) => x == y,
        (Value::Uint(x), Value::Uint(y)) => x == y,
        (Value::Double(x), Value::Double(y)) => x == y || (x.is_nan() && y.is_nan()),
        (Value::Str(x), Value::Str(y)) => x == y,
        (Value::Bytes(x), Value::Bytes(y)) => x == y,
        (Value::Type(x), Value::Type(y)) => x == y,
        (Value::List(x), Value::List(y)) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| same(p, q))
        }
        (Value::Map(x), Value::Map(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => false,
    }
}

fn main() {
    let mut input = String::new();
    match std::env::args().nth(1) {
        Some(path) => input = std::fs::read_to_string(path).expect("read the cases"),
        None => {
            std::io::stdin()
                .read_to_string(&mut input)
                .expect("read the cases");
        }
    }
    // CEL_CONFORMANCE_VERBOSE=1: print each refused case and why.
    let verbose = std::env::var_os("CEL_CONFORMANCE_VERBOSE").is_some();
    let (mut answered, mut refused, mut failures) = (0, 0, Vec::new());
    let mut by_section: HashMap<String, [usize; 3]> = HashMap::new();
    for line in input.lines().filter(|l| !l.trim().is_empty()) {
        let case: Json = serde_json::from_str(line).expect("a JSON line");
        let name = case["name"].as_str().unwrap_or("?").to_string();
        let expr = case["expr"].as_str().unwrap_or("");
        let section = case["section"].as_str().unwrap_or("?").to_string();
        let counts = by_section.entry(section).or_default();
        let mut bindings: HashMap<String, Value> = HashMap::new();
        let mut decls: Vec<(String, Ty)> = Vec::new();
        let empty = serde_json::Map::new();
        let bound = case["bindings"].as_object().unwrap_or(&empty);
        for (n, t) in case["vars"].as_object().unwrap_or(&empty) {
            // A variable keyhook cannot hold (a message) is not declared: a case using it
            // must be refused.
            let v = bound.get(n).map(value);
            if let (Some(t), false) = (t.as_str().and_then(ty), matches!(v, Some(None))) {
                decls.push((n.clone(), t));
                if let Some(Some(v)) = v {
                    bindings.insert(n.clone(), v);
                }
            }
        }
        let decl_refs: Vec<(&str, Ty)> = decls.iter().map(|(n, t)| (n.as_str(), *t)).collect();
        let program = match Program::compile(expr, &decl_refs) {
            Ok(p) => p,
            Err(why) => {
                if verbose {
                    println!("REFUSED {name}: `{expr}`: {why}");
                }
                refused += 1;
                counts[1] += 1;
                continue;
            }
        };
        let got = program.eval(&|n| bindings.get(n).cloned());
        let expect = &case["expect"];
        let verdict = if expect.get("check_only").is_some() {
            Ok(())
        } else if expect.get("error").is_some() {
            match &got {
                Err(_) => Ok(()),
                Ok(v) => Err(format!("expected an error, got {v:?}")),
            }
        } else if let Some(want) = expect.get("value") {
            match (value(want), &got) {
                (None, _) => Err(format!(
                    "compiled a case whose result keyhook cannot represent ({want}); got {got:?}"
                )),
                (Some(w), Ok(v)) if same(&w, v) => Ok(()),
                (Some(w), Ok(v)) => Err(format!("expected {w:?}, got {v:?}")),
                (Some(w), Err(e)) => Err(format!("expected {w:?}, got the error {e:?}")),
            }
        } else {
            Err(format!(
                "compiled a case of a kind keyhook does not evaluate: {expect}"
            ))
        };
        match verdict {
            Ok(()) => {
                answered += 1;
                counts[0] += 1;
            }
            Err(why) => {
                counts[2] += 1;
                failures.push(format!("{name}: `{expr}`: {why}"));
            }
        }
    }
    let mut sections: Vec<_> = by_section.into_iter().collect();
    sections.sort();
    for (s, [a, r, w]) in &sections {
        println!("  {s:<14} answered {a:>4}  refused {r:>4}  wrong {w:>3}");
    }
    for f in &failures {
        println!("WRONG {f}");
    }
    println!(
        "cel conformance: {} cases: answered {answered}, refused {refused}, wrong {}",
        answered + refused + failures.len(),
        failures.len()
    );
    if !failures.is_empty() {
        std::process::exit(1);
    }
}
