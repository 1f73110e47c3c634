//! CEL's values (cel-spec langdef, "Values"): what a literal is (`parse`) and what an
//! evaluation gives (`eval`), on their own so that the parser does not depend on the
//! evaluator.

use std::collections::BTreeMap;
use std::sync::Arc;

/// CEL's type values (`type(x)`, and the identifiers `int`, `string`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Type {
    Null,
    Bool,
    Int,
    Uint,
    Double,
    String,
    Bytes,
    List,
    Map,
    Type,
}

impl Type {
    pub fn name(self) -> &'static str {
        match self {
            Type::Null => "null_type",
            Type::Bool => "bool",
            Type::Int => "int",
            Type::Uint => "uint",
            Type::Double => "double",
            Type::String => "string",
            Type::Bytes => "bytes",
            Type::List => "list",
            Type::Map => "map",
            Type::Type => "type",
        }
    }
    pub fn from_name(name: &str) -> Option<Type> {
        [
            Type::Null,
            Type::Bool,
            Type::Int,
            Type::Uint,
            Type::Double,
            Type::String,
            Type::Bytes,
            Type::List,
            Type::Map,
            Type::Type,
        ]
        .into_iter()
        .find(|t| t.name() == name)
    }
}

/// A map key: CEL allows bool, int, uint and string keys.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Key {
    Bool(bool),
    Int(i64),
    Uint(u64),
    Str(Arc<str>),
}

impl Key {
    pub fn value(&self) -> Value {
        match self {
            Key::Bool(b) => Value::Bool(*b),
            Key::Int(i) => Value::Int(*i),
            Key::Uint(u) => Value::Uint(*u),
            Key::Str(s) => Value::Str(s.clone()),
        }
    }
}

/// A CEL value.
#[derive(Debug, Clone)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i64),
    Uint(u64),
    Double(f64),
    Str(Arc<str>),
    Bytes(Arc<[u8]>),
    List(Arc<Vec<Value>>),
    Map(Arc<BTreeMap<Key, Value>>),
    Type(Type),
}

impl Value {
    pub fn type_of(&self) -> Type {
        match self {
            Value::Null => Type::Null,
            Value::Bool(_) => Type::Bool,
            Value::Int(_) => Type::Int,
            Value::Uint(_) => Type::Uint,
            Value::Double(_) => Type::Double,
            Value::Str(_) => Type::String,
            Value::Bytes(_) => Type::Bytes,
            Value::List(_) => Type::List,
            Value::Map(_) => Type::Map,
            Value::Type(_) => Type::Type,
        }
    }

    /// A JSON value as CEL sees it: every number is a double (CONTRACT §10.1), objects are
    /// maps with string keys.
    pub fn from_json(v: &serde_json::Value) -> Value {
        use serde_json::Value as J;
        match v {
            J::Null => Value::Null,
            J::Bool(b) => Value::Bool(*b),
            J::Number(n) => Value::Double(n.as_f64().unwrap_or(f64::NAN)),
            J::String(s) => Value::Str(s.as_str().into()),
            J::Array(a) => Value::List(Arc::new(a.iter().map(Value::from_json).collect())),
            J::Object(o) => Value::Map(Arc::new(
                o.iter()
                    .map(|(k, v)| (Key::Str(k.as_str().into()), Value::from_json(v)))
                    .collect(),
            )),
        }
    }

    /// A key for a map literal (doubles and other values are not keys).
    pub(super) fn to_key(&self) -> Option<Key> {
        match self {
            Value::Bool(b) => Some(Key::Bool(*b)),
            Value::Int(i) => Some(Key::Int(*i)),
            Value::Uint(u) => Some(Key::Uint(*u)),
            Value::Str(s) => Some(Key::Str(s.clone())),
            _ => None,
        }
    }
}
