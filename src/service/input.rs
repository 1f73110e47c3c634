//! Decoding of JSON request bodies into operation inputs, with one field-level detail per
//! problem. Type problems found here travel with the input, so that the operation reports
//! them together with its own value checks.

use serde_json::{Map, Value};

use crate::error::{Error, FieldError, Result};

/// Problems found so far, at most one per field.
#[derive(Debug, Default, Clone)]
pub struct Problems(Vec<FieldError>);

impl Problems {
    pub fn add(&mut self, field: impl Into<String>, message: impl Into<String>) {
        let field = field.into();
        if !self.has(&field) {
            self.0.push(FieldError::new(field, message));
        }
    }

    pub fn has(&self, field: &str) -> bool {
        self.0.iter().any(|p| p.field == field)
    }

    pub fn into_result(self) -> Result<()> {
        if self.0.is_empty() {
            Ok(())
        } else {
            Err(Error::Validation(self.0))
        }
    }
}

/// A JSON object being decoded field by field. `null` counts as absent for every field.
pub struct Object<'a> {
    map: &'a Map<String, Value>,
    pub problems: Problems,
}

impl<'a> Object<'a> {
    /// Fails unless `body` is an object whose fields are all in `known`.
    pub fn new(body: &'a Value, known: &[&str]) -> Result<Object<'a>> {
        let Some(map) = body.as_object() else {
            return Err(Error::validation("body", "must be a JSON object"));
        };
        let mut problems = Problems::default();
        for field in map.keys() {
            if !known.contains(&field.as_str()) {
                problems.add(field.clone(), "unknown field");
            }
        }
        Ok(Object { map, problems })
    }

    fn get(&self, field: &str) -> Option<&'a Value> {
        self.map.get(field).filter(|v| !v.is_null())
    }

    pub fn string(&mut self, field: &str) -> Option<String> {
        match self.get(field)? {
            Value::String(s) => Some(s.clone()),
            _ => {
                self.problems.add(field, "must be a string");
                None
            }
        }
    }

    pub fn bool(&mut self, field: &str) -> Option<bool> {
        match self.get(field)? {
            Value::Bool(b) => Some(*b),
            _ => {
                self.problems.add(field, "must be a boolean");
                None
            }
        }
    }

    pub fn object(&mut self, field: &str) -> Option<Map<String, Value>> {
        match self.get(field)? {
            Value::Object(m) => Some(m.clone()),
            _ => {
                self.problems.add(field, "must be a JSON object");
                None
            }
        }
    }

    /// An array of strings; a wrong element is reported as `field[i]`.
    pub fn strings(&mut self, field: &str) -> Option<Vec<String>> {
        let Value::Array(items) = self.get(field)? else {
            self.problems.add(field, "must be an array of strings");
            return None;
        };
        let mut out = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            match item {
                Value::String(s) => out.push(s.clone()),
                _ => self
                    .problems
                    .add(format!("{field}[{i}]"), "must be a string"),
            }
        }
        Some(out)
    }
}

/// Reports the `field[i]` entries of `items` that are empty or repeat an earlier entry.
pub fn check_unique_non_empty(problems: &mut Problems, field: &str, items: &[String]) {
    for (i, item) in items.iter().enumerate() {
        let name = format!("{field}[{i}]");
        if item.trim().is_empty() {
            problems.add(name, "must not be empty");
        } else if items[..i].contains(item) {
            problems.add(name, format!("duplicate value {item:?}"));
        }
    }
}
