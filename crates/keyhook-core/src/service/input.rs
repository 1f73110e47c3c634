//! Input policy shared by the front ends: the problems of an input (one field-level detail per
//! problem), the strict JSON parser and the decoding of JSON objects, and the check for
//! human-visible text. Problems a front end finds converting a request travel with the typed
//! input, so that the operation reports them together with its own rules.

use serde_json::{Map, Value};

use crate::error::{Error, FieldError, Result};

/// Problems found so far, at most one per field.
#[derive(Debug, Default, Clone)]
pub struct Problems {
    list: Vec<FieldError>,
    /// How many of them were found decoding the request (wrong types, unknown fields): those
    /// are reported first, in the order found; see [`Problems::into_result`].
    decoded: usize,
}

impl Problems {
    pub fn add(&mut self, field: impl Into<String>, message: impl Into<String>) {
        let field = field.into();
        if !self.has(&field) {
            self.list.push(FieldError::new(field, message));
        }
    }

    pub fn has(&self, field: &str) -> bool {
        self.list.iter().any(|p| p.field == field)
    }

    /// Whether a problem names `field` or one of its elements (`field[i]`). A rule over several
    /// fields counts a value that its front end refused as sent.
    pub fn mentions(&self, field: &str) -> bool {
        self.list.iter().any(|p| {
            p.field
                .strip_prefix(field)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('['))
        })
    }

    /// `value`, with the problem `is required` when it is missing and nothing was said about it
    /// (a value refused by its front end was sent).
    pub fn require<T>(&mut self, field: &str, value: Option<T>) -> Option<T> {
        if value.is_none() && !self.mentions(field) {
            self.add(field, "is required");
        }
        value
    }

    /// Marks the problems found so far as found decoding the request (wrong types, unknown
    /// fields), before any value was converted.
    pub fn end_decoding(&mut self) {
        self.decoded = self.list.len();
    }

    /// The value of a conversion, or None with its message as the problem of `field`.
    pub fn take<T>(&mut self, field: &str, converted: std::result::Result<T, String>) -> Option<T> {
        match converted {
            Ok(v) => Some(v),
            Err(m) => {
                self.add(field, m);
                None
            }
        }
    }

    /// The value of a list's conversion, or None with each of its problems on `field` (the
    /// list) or `field[i]` (its i-th element).
    pub fn take_list<T>(
        &mut self,
        field: &str,
        converted: std::result::Result<T, ListProblems>,
    ) -> Option<T> {
        match converted {
            Ok(v) => Some(v),
            Err(problems) => {
                for (at, m) in problems.0 {
                    match at {
                        None => self.add(field, m),
                        Some(i) => self.add(format!("{field}[{i}]"), m),
                    }
                }
                None
            }
        }
    }

    /// Ok if nothing was found, else one validation error with every problem: those found
    /// decoding the request first, as found, then the others in the order of the input's
    /// fields, `order` (a problem of `field[i]` counts as one of `field`; fields not named
    /// there come last). So a rule that needs several fields, checked after the front end
    /// converted each, reports where the request names them.
    pub fn into_result(mut self, order: &[&str]) -> Result<()> {
        if self.list.is_empty() {
            return Ok(());
        }
        let rank = |p: &FieldError| {
            let base = p.field.split('[').next().unwrap_or_default();
            order.iter().position(|f| *f == base).unwrap_or(order.len())
        };
        // A stable sort: problems of one field stay in the order found.
        self.list[self.decoded..].sort_by_key(rank);
        Err(Error::Validation(self.list))
    }
}

/// Problems of a list value, as its constructor finds them: `None` names the list itself,
/// `Some(i)` its i-th element; at most one each, the first found. A front end names them
/// (`profileIds[2]`, `--profile[2]`) through [`Problems::take_list`].
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct ListProblems(pub Vec<(Option<usize>, String)>);

impl ListProblems {
    pub fn add(&mut self, at: Option<usize>, message: impl Into<String>) {
        if !self.has(at) {
            self.0.push((at, message.into()));
        }
    }

    pub fn has(&self, at: Option<usize>) -> bool {
        self.0.iter().any(|(a, _)| *a == at)
    }

    /// Ok if nothing was found, else these problems.
    pub fn into_result(self) -> std::result::Result<(), ListProblems> {
        if self.0.is_empty() {
            Ok(())
        } else {
            Err(self)
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

    /// Whether `field` was sent as `null` (in a PATCH: clear it).
    pub fn null(&self, field: &str) -> bool {
        self.map.get(field).is_some_and(Value::is_null)
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

    /// A string that may be `null`: absent is `None`, `null` is `Some(None)`.
    pub fn nullable_string(&mut self, field: &str) -> Option<Option<String>> {
        match self.map.get(field)? {
            Value::Null => Some(None),
            Value::String(s) => Some(Some(s.clone())),
            _ => {
                self.problems.add(field, "must be a string or null");
                None
            }
        }
    }

    /// A boolean that may be `null`: absent is `None`, `null` is `Some(None)`.
    pub fn nullable_bool(&mut self, field: &str) -> Option<Option<bool>> {
        match self.map.get(field)? {
            Value::Null => Some(None),
            Value::Bool(b) => Some(Some(*b)),
            _ => {
                self.problems.add(field, "must be a boolean or null");
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

    /// A whole number: `86400`, or `86400.0` (JSON Schema's `integer` takes a number whose
    /// fraction is zero); not `1.5` or `"86400"`. One beyond the 64-bit range is given as
    /// `i64::MIN` or `i64::MAX`, so a range rule refuses it by its own message.
    pub fn integer(&mut self, field: &str) -> Option<i64> {
        match self.get(field)? {
            Value::Number(n) if n.is_i64() => n.as_i64(),
            Value::Number(n) if n.is_u64() => Some(i64::MAX),
            Value::Number(n)
                if n.as_f64()
                    .is_some_and(|f| f.is_finite() && f.fract() == 0.0) =>
            {
                // Saturating: out of range becomes i64::MIN or i64::MAX.
                n.as_f64().map(|f| f as i64)
            }
            _ => {
                self.problems.add(field, "must be an integer");
                None
            }
        }
    }

    /// An object that may be `null`: absent is `None`, `null` is `Some(None)`.
    pub fn nullable_object(&mut self, field: &str) -> Option<Option<Map<String, Value>>> {
        match self.map.get(field)? {
            Value::Null => Some(None),
            Value::Object(m) => Some(Some(m.clone())),
            _ => {
                self.problems.add(field, "must be a JSON object or null");
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

/// Marks the entries of `items` that are empty or repeat an earlier entry.
pub fn check_unique_non_empty(problems: &mut ListProblems, items: &[String]) {
    for (i, item) in items.iter().enumerate() {
        if item.trim().is_empty() {
            problems.add(Some(i), "must not be empty");
        } else if items[..i].contains(item) {
            problems.add(Some(i), format!("duplicate value {item:?}"));
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
/// joiner, Hangul and Khmer fillers, the blank Braille pattern, the object replacement character, private-use characters (which render as whatever a font makes of them, often nothing), variation selectors, the Mongolian free variation
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
                | 0x2800
                | 0x3164
                | 0xE000..=0xF8FF
                | 0xFE00..=0xFE0F
                | 0xFEFF
                | 0xFFA0
                | 0xFFF0..=0xFFFC
                | 0x110BD
                | 0x110CD
                | 0x13430..=0x1343F
                | 0x1BCA0..=0x1BCA3
                | 0x1D159
                | 0x1D173..=0x1D17A
                | 0xE0000..=0xE0FFF
                | 0xF0000..=0x10FFFF
        )
        // Noncharacters: U+FDD0..U+FDEF and the last two code points of every plane.
        || (0xFDD0..=0xFDEF).contains(&u)
        || u & 0xFFFE == 0xFFFE
}

// The rules above as the bodies of regular-expression character classes, for the OpenAPI
// document's patterns. A test compares each with its rule over every code point. They hold
// only code points of the Basic Multilingual Plane, written `\uXXXX`: the one spelling that
// ECMA-262 with and without the `u` flag, Python's `re` (which schemathesis generates from)
// and the `regex` crate all read alike. A character above it is two UTF-16 code units to a
// JavaScript `RegExp` without `u` (where a range of them is "out of order"), so the invisible
// characters up there are left to the schemas' descriptions ([`ASTRAL_INVISIBLE`]); a
// negated class still takes each of their halves, so a pattern's meaning does not change.

/// `char::is_control` (Unicode Cc).
pub const CONTROL_CLASS: &str = r"\u0000-\u001f\u007f-\u009f";
/// `char::is_whitespace` (Unicode White_Space): what `str::trim` removes.
pub const WHITE_SPACE_CLASS: &str =
    r"\u0009-\u000d\u0020\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000";
/// The white space a visible text may have around it: [`WHITE_SPACE_CLASS`] without the
/// invisible characters (the control characters and the line and paragraph separators).
pub const SPACE_CLASS: &str = r"\u0020\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000";
/// `is_invisible` in the Basic Multilingual Plane, without the control characters
/// ([`CONTROL_CLASS`]).
pub const INVISIBLE_CLASS: &str = concat!(
    r"\u00ad\u034f\u0600-\u0605\u061c\u06dd\u070f\u0890-\u0891\u08e2\u115f\u1160",
    r"\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u2028-\u202e\u2060-\u206f\u2800\u3164\ue000-\uf8ff",
    r"\ufdd0-\ufdef\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufffc\ufffe\uffff",
);
/// `is_invisible` above the Basic Multilingual Plane, in words: what the descriptions of the
/// patterns built from [`INVISIBLE_CLASS`] add to them.
pub const ASTRAL_INVISIBLE: &str = "U+110BD, U+110CD, U+13430 to U+1343F, U+1BCA0 to \
    U+1BCA3, U+1D159, U+1D173 to U+1D17A, U+E0000 to U+E0FFF (tags and variation selectors), \
    U+F0000 to U+10FFFF (private use) and the last two code points of every plane";

/// Checks human-visible text (a key name, a profile id, a user id): no invisible, control or
/// reordering character ([`invisible_char`]), and not a plaintext key, which is never stored
/// (shown in the message as its prefix). The message says what is wrong, without a field.
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

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(r: Result<()>) -> Vec<String> {
        match r {
            Ok(()) => vec![],
            Err(e) => e.details().iter().map(|d| d.field.clone()).collect(),
        }
    }

    #[test]
    fn problems_come_in_the_order_of_the_fields_after_those_of_decoding() {
        let order = ["a", "b", "c"];
        let mut p = Problems::default();
        p.add("zzz", "unknown field");
        p.add("c", "must be a string");
        p.end_decoding();
        p.add("b[1]", "x");
        p.add("other", "x");
        p.add("a", "x");
        p.add("b", "x");
        p.add("b[0]", "x");
        p.add("a", "a second problem of a field is dropped");
        assert_eq!(
            fields(p.into_result(&order)),
            ["zzz", "c", "a", "b[1]", "b", "b[0]", "other"]
        );
        assert_eq!(
            fields(Problems::default().into_result(&order)),
            [] as [&str; 0]
        );
    }

    #[test]
    fn a_refused_value_counts_as_sent() {
        let mut p = Problems::default();
        assert_eq!(p.take("n", Ok::<_, String>(5)), Some(5));
        assert_eq!(p.take::<i32>("m", Err("bad".into())), None);
        let mut list = ListProblems::default();
        list.add(Some(2), "bad element");
        list.add(Some(2), "dropped");
        list.add(None, "bad list");
        assert_eq!(p.take_list::<()>("ids", Err(list)), None);
        assert!(p.mentions("m") && p.mentions("ids") && !p.mentions("id") && !p.mentions("n"));
        assert_eq!(p.require("m", None::<i32>), None);
        assert_eq!(p.require("n", None::<i32>), None);
        assert_eq!(p.require("k", Some(1)), Some(1));
        let e = p.into_result(&[]).unwrap_err();
        let got: Vec<(&str, &str)> = e
            .details()
            .iter()
            .map(|d| (d.field.as_str(), d.message.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                ("m", "bad"),
                ("ids[2]", "bad element"),
                ("ids", "bad list"),
                ("n", "is required")
            ]
        );
    }

    #[test]
    fn repeated_keys_are_refused_at_any_depth() {
        for doc in [
            r#"{"permission":"readonly","permission":"readwrite"}"#,
            r#"{"data":{"a":1,"b":{"x":1,"x":1}}}"#,
            r#"[1,{"a":[{"k":null,"k":null}]}]"#,
            r#"{"a":1,"b":2,"a":3}"#,
        ] {
            let e = parse_json(doc.as_bytes()).unwrap_err();
            assert!(e.starts_with("duplicate key \""), "{doc}: {e}");
        }
        let e = parse_json(br#"{"name":"a","name":"b"}"#).unwrap_err();
        assert!(e.contains("\"name\""), "{e}");
    }

    #[test]
    fn anything_else_parses_as_serde_json_does() {
        for doc in [
            r#"{"a":1,"b":[1,2.5,-3,18446744073709551615,1e400],"c":{"a":{"a":null}},"d":"\u00e9"}"#,
            r#"[]"#,
            r#"  "s"  "#,
            r#"{"a":{},"A":{}}"#,
            "123456789012345678901234567890",
        ] {
            let want: std::result::Result<Value, _> = serde_json::from_str(doc);
            assert_eq!(parse_json(doc.as_bytes()).ok(), want.ok(), "{doc}");
        }
        for bad in ["", "{", "{}x", "{\"a\":}", "nul", "{\"a\":1,}"] {
            let e = parse_json(bad.as_bytes()).unwrap_err();
            assert!(e.starts_with("invalid JSON: "), "{bad}: {e}");
        }
    }

    #[test]
    fn nesting_stops_at_serde_json_s_limit() {
        let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        for n in [1, 126, 127, 128, 129] {
            let want = serde_json::from_str::<Value>(&deep(n)).is_ok();
            assert_eq!(parse_json(deep(n).as_bytes()).is_ok(), want, "depth {n}");
        }
        assert!(parse_json(deep(127).as_bytes()).is_ok());
        let e = parse_json(deep(128).as_bytes()).unwrap_err();
        assert!(e.contains("recursion limit"), "{e}");
        // Far deeper input fails the same way, without exhausting the stack.
        assert!(parse_json(deep(100_000).as_bytes()).is_err());
    }

    #[test]
    fn invisible_characters_are_found_and_visible_text_passes() {
        for c in [
            '\u{0}',
            '\t',
            '\n',
            '\u{7f}',
            '\u{85}',
            '\u{9f}',
            '\u{ad}',
            '\u{34f}',
            '\u{61c}',
            '\u{115f}',
            '\u{1160}',
            '\u{2800}',
            '\u{e000}',
            '\u{f8ff}',
            '\u{fffc}',
            '\u{1d159}',
            '\u{f0000}',
            '\u{10fffd}',
            '\u{17b4}',
            '\u{17b5}',
            '\u{180b}',
            '\u{180e}',
            '\u{180f}',
            '\u{200b}',
            '\u{200c}',
            '\u{200d}',
            '\u{200e}',
            '\u{200f}',
            '\u{2028}',
            '\u{2029}',
            '\u{202a}',
            '\u{202b}',
            '\u{202c}',
            '\u{202d}',
            '\u{202e}',
            '\u{2060}',
            '\u{2066}',
            '\u{2067}',
            '\u{2068}',
            '\u{2069}',
            '\u{206f}',
            '\u{3164}',
            '\u{fe00}',
            '\u{fe0f}',
            '\u{feff}',
            '\u{ffa0}',
            '\u{fff0}',
            '\u{fffb}',
            '\u{fdd0}',
            '\u{fffe}',
            '\u{ffff}',
            '\u{1d173}',
            '\u{1d17a}',
            '\u{e0001}',
            '\u{e0041}',
            '\u{e0100}',
            '\u{e0fff}',
            '\u{1fffe}',
            '\u{10ffff}',
        ] {
            let s = format!("ab{c}d");
            assert_eq!(invisible_char(&s), Some((3, c)), "U+{:04X}", u32::from(c));
            let m = visible(&s).unwrap_err();
            assert!(
                m.contains(&format!("U+{:04X} at character 3", u32::from(c))),
                "{m}"
            );
        }
        for ok in [
            "ci",
            "déploiement",
            "日本語のキー",
            "🚀 deploy",
            "Ωμέγα",
            "a b",
            "x-1_2.3",
        ] {
            assert_eq!(invisible_char(ok), None, "{ok}");
            assert_eq!(visible(ok), Ok(()), "{ok}");
        }
    }

    /// The character classes of the OpenAPI patterns say what the rules say, code point by
    /// code point; and each is written so that Python's `re` reads it (no `\u{...}` escape).
    #[test]
    fn the_character_classes_agree_with_the_rules() {
        let all: String = (0..=0x10FFFF).filter_map(char::from_u32).collect();
        let members = |class: &str| {
            let re = regex::Regex::new(&format!("[{class}]")).unwrap();
            let mut set = vec![false; 0x110000];
            for m in re.find_iter(&all) {
                for c in m.as_str().chars() {
                    set[c as usize] = true;
                }
            }
            set
        };
        let (control, white, space, invisible) = (
            members(CONTROL_CLASS),
            members(WHITE_SPACE_CLASS),
            members(SPACE_CLASS),
            members(INVISIBLE_CLASS),
        );
        for c in all.chars() {
            let u = c as usize;
            let at = format!("U+{u:04X}");
            assert_eq!(control[u], c.is_control(), "{at}");
            assert_eq!(white[u], c.is_whitespace(), "{at}");
            assert_eq!(space[u], c.is_whitespace() && !is_invisible(c), "{at}");
            if u <= 0xFFFF {
                assert_eq!(control[u] || invisible[u], is_invisible(c), "{at}");
            } else {
                assert!(!control[u] && !invisible[u] && !white[u], "{at}");
            }
        }
    }

    /// The invisible characters above the Basic Multilingual Plane, which the classes leave
    /// out, are exactly those [`ASTRAL_INVISIBLE`] names.
    #[test]
    fn the_description_names_every_invisible_character_above_the_bmp() {
        let hex = |s: &str| u32::from_str_radix(s.trim().trim_start_matches("U+"), 16).unwrap();
        let mut named = vec![false; 0x110000];
        let (list, planes) = ASTRAL_INVISIBLE
            .split_once(" and the last two code points of every plane")
            .unwrap();
        for part in list.split(", ") {
            let part = part.split(" (").next().unwrap();
            let (a, b) = part.split_once(" to ").unwrap_or((part, part));
            for u in hex(a)..=hex(b) {
                named[u as usize] = true;
            }
        }
        assert!(planes.is_empty());
        for plane in 1..=16u32 {
            named[(plane << 16 | 0xFFFE) as usize] = true;
            named[(plane << 16 | 0xFFFF) as usize] = true;
        }
        for u in 0x10000..=0x10FFFFu32 {
            let c = char::from_u32(u).unwrap();
            assert_eq!(named[u as usize], is_invisible(c), "U+{u:04X}");
        }
    }

    /// The classes hold no character above the Basic Multilingual Plane and no escape but
    /// `\uXXXX`, which every regular-expression engine a client may use reads alike.
    #[test]
    fn the_character_classes_are_portable() {
        for class in [
            CONTROL_CLASS,
            WHITE_SPACE_CLASS,
            SPACE_CLASS,
            INVISIBLE_CLASS,
        ] {
            assert!(class.is_ascii(), "{class}");
            let rest = class.replace("\\u", "").replace('-', "");
            assert!(
                rest.chars().all(|c| c.is_ascii_hexdigit()),
                "only \\uXXXX escapes and ranges: {class}"
            );
        }
    }

    #[test]
    fn a_plaintext_key_is_not_visible_text() {
        let key = format!("kp_{}", "ab".repeat(32));
        let m = visible(&format!("my {key}")).unwrap_err();
        assert!(m.contains("kp_abababab…") && !m.contains(&key), "{m}");
    }
}
