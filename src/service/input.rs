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

/// Parses a JSON document as `serde_json::from_slice` does (the same recursion limit of 128),
/// but refuses an object that repeats a key, at any depth: serde_json would keep the last
/// value, so `{"permission":"readonly","permission":"readwrite"}` would mean different things
/// to different readers. The message names the repeated key; syntax errors start with
/// `invalid JSON: `.
pub fn parse_json(bytes: &[u8]) -> std::result::Result<Value, String> {
    use serde::de::DeserializeSeed;
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let parsed = UniqueKeys
        .deserialize(&mut de)
        .and_then(|v| de.end().map(|()| v));
    parsed.map_err(|e| match e.classify() {
        // Data errors come only from the visitor below: a repeated key.
        serde_json::error::Category::Data => e.to_string(),
        _ => format!("invalid JSON: {e}"),
    })
}

/// Builds a `serde_json::Value`, failing on a repeated object key.
struct UniqueKeys;

impl<'de> serde::de::DeserializeSeed<'de> for UniqueKeys {
    type Value = Value;

    fn deserialize<D: serde::Deserializer<'de>>(
        self,
        d: D,
    ) -> std::result::Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for UniqueKeys {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> std::result::Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> std::result::Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> std::result::Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> std::result::Result<Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> std::result::Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }

    fn visit_string<E>(self, v: String) -> std::result::Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> std::result::Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> std::result::Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> std::result::Result<Value, D::Error> {
        d.deserialize_any(self)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(
        self,
        mut seq: A,
    ) -> std::result::Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1024));
        while let Some(v) = seq.next_element_seed(UniqueKeys)? {
            items.push(v);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(
        self,
        mut map: A,
    ) -> std::result::Result<Value, A::Error> {
        let mut m = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if m.contains_key(&key) {
                return Err(serde::de::Error::custom(format!(
                    "duplicate key {key:?} in a JSON object"
                )));
            }
            let v = map.next_value_seed(UniqueKeys)?;
            m.insert(key, v);
        }
        Ok(Value::Object(m))
    }
}

/// The first character of `s` that must not appear in human-visible text (a name, a profile
/// id, a user id), with its position in characters from 1. Such characters are invisible,
/// or reorder or break the text around them, so that what an operator reads in a table is not
/// what is stored: every control character (Unicode Cc) and format character (Cf, which
/// includes the bidi overrides and isolates, zero-width characters and the BOM), the line and
/// paragraph separators, the other characters that render as nothing (the combining grapheme
/// joiner, Hangul and Khmer fillers, variation selectors, the Mongolian free variation
/// selectors), tags, and noncharacters.
pub fn invisible_char(s: &str) -> Option<(usize, char)> {
    s.chars()
        .enumerate()
        .find(|&(_, c)| is_invisible(c))
        .map(|(i, c)| (i + 1, c))
}

fn is_invisible(c: char) -> bool {
    let u = u32::from(c);
    // Printable ASCII: the common case, decided at once.
    if (0x20..0x7f).contains(&u) {
        return false;
    }
    c.is_control()
        || matches!(
            u,
            0x00AD
                | 0x034F
                | 0x0600..=0x0605
                | 0x061C
                | 0x06DD
                | 0x070F
                | 0x0890..=0x0891
                | 0x08E2
                | 0x115F..=0x1160
                | 0x17B4..=0x17B5
                | 0x180B..=0x180F
                | 0x200B..=0x200F
                | 0x2028..=0x202E
                | 0x2060..=0x206F
                | 0x3164
                | 0xFE00..=0xFE0F
                | 0xFEFF
                | 0xFFA0
                | 0xFFF0..=0xFFFB
                | 0x110BD
                | 0x110CD
                | 0x13430..=0x1343F
                | 0x1BCA0..=0x1BCA3
                | 0x1D173..=0x1D17A
                | 0xE0000..=0xE0FFF
        )
        // Noncharacters: U+FDD0..U+FDEF and the last two code points of every plane.
        || (0xFDD0..=0xFDEF).contains(&u)
        || u & 0xFFFE == 0xFFFE
}

/// Checks human-visible text (a key name, a profile id, a user id): no invisible, control or
/// reordering character ([`invisible_char`]), and not a plaintext key, which is never stored
/// (shown in the message as its prefix). Reports a problem on `field` and returns false if
/// `s` fails.
pub fn check_visible(p: &mut Problems, field: &str, s: &str) -> bool {
    match visible(s) {
        Ok(()) => true,
        Err(m) => {
            p.add(field, m);
            false
        }
    }
}

/// [`check_visible`] as a result: the message of the problem.
pub fn visible(s: &str) -> std::result::Result<(), String> {
    if let Some((at, c)) = invisible_char(s) {
        return Err(format!(
            "must not contain control, invisible or reordering characters: U+{:04X} at \
             character {at}",
            u32::from(c)
        ));
    }
    if crate::redact::has_key(s) {
        return Err(format!(
            "must not contain an API key ({}): a plaintext key is never stored",
            crate::redact::keys(s)
        ));
    }
    Ok(())
}
