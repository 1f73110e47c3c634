//! The filter language: the defects of the `cel` crate this evaluator replaced (each one
//! failed there), CEL's semantics that filters rely on, and hostile inputs.

use super::*;
use serde_json::json;
use std::time::{Duration, Instant};

fn eval(src: &str, data: Json) -> std::result::Result<bool, &'static str> {
    let vars = Vars::new("post.published", Some("brand-a"), &data);
    Filter::new(src)
        .unwrap_or_else(|e| panic!("{src}: {e}"))
        .matches(&vars)
}

fn t(src: &str) -> bool {
    eval(src, json!({})).unwrap_or_else(|e| panic!("{src}: {e}"))
}

fn err(src: &str) -> String {
    match Filter::new(src) {
        Ok(_) => panic!("{src}: accepted"),
        Err(e) => e,
    }
}

/// Evaluates any CEL expression with no variables (conversions, values).
fn value(src: &str) -> std::result::Result<Value, &'static str> {
    Program::compile(src, &[])
        .unwrap_or_else(|e| panic!("{src}: {e}"))
        .eval(&|_| None)
}

#[test]
fn filters_see_event_profile_and_data() {
    let data = json!({"tags": ["x", "breaking"], "n": 3, "title": "Hi"});
    let ok = r#"data.tags.exists(t, t == "breaking") && profileId == "brand-a""#;
    assert_eq!(eval(ok, data.clone()), Ok(true));
    assert_eq!(eval(r#"event == "post.failed""#, data.clone()), Ok(false));
    assert_eq!(
        eval("data.n > 2 && data.title.startsWith('H')", data.clone()),
        Ok(true)
    );
    assert_eq!(eval("data.missing == 1", data.clone()), Err("no such key"));
    assert_eq!(
        eval("data.n", data.clone()),
        Err("the result is not a boolean")
    );
    assert_eq!(
        eval("data.title.exists(c, true)", data.clone()),
        Err("no such overload")
    );
    let null = Vars::new("post.published", None, &json!({}));
    assert_eq!(
        Filter::new("profileId == null").unwrap().matches(&null),
        Ok(true)
    );
}

/// `!!x` is `x` and `--1` is `1` (the `cel` crate read both as one operator).
#[test]
fn repeated_unary_operators_keep_their_meaning() {
    assert!(t(r#"!!(profileId == "brand-a")"#));
    assert!(!t(r#"!!(profileId == "brand-b")"#));
    assert!(t(r#"!!!(profileId == "brand-b")"#));
    assert!(t("--1 == 1"));
    assert!(t("---1 == -1"));
    assert!(t("-(-(1)) == 1"));
    assert!(t("- -1.5 == 1.5"));
    assert!(t("-9223372036854775808 < 0"));
    assert_eq!(value("--9223372036854775808").unwrap_err(), "overflow");
}

/// `||` and `&&` are commutative over errors, and `exists`/`all` absorb like them;
/// `exists_one` is strict.
#[test]
fn logical_operators_and_macros_absorb_errors() {
    let d = json!({"l": [1, 2], "o": {}});
    assert_eq!(eval("data.nope == 1 || true", d.clone()), Ok(true));
    assert_eq!(eval("true || data.nope == 1", d.clone()), Ok(true));
    assert_eq!(eval("data.nope == 1 && false", d.clone()), Ok(false));
    assert_eq!(eval("false && data.nope == 1", d.clone()), Ok(false));
    assert_eq!(
        eval("data.nope == 1 || false", d.clone()),
        Err("no such key")
    );
    assert_eq!(
        eval("data.nope == 1 && true", d.clone()),
        Err("no such key")
    );
    // A filter on an optional field: an event without `optional` still reaches brand a.
    assert_eq!(
        eval(
            r#"data.optional == 1.0 || profileId == "brand-a""#,
            d.clone()
        ),
        Ok(true)
    );
    assert_eq!(
        eval("data.l.exists(x, x.nope == 1 || x == 2.0)", d.clone()),
        Ok(true)
    );
    assert_eq!(
        eval("data.l.exists(x, x.nope == 1)", d.clone()),
        Err("no such overload")
    );
    assert_eq!(
        eval("[0.0, 1.0].exists(x, 1.0 / x > 100.0 || x.y)", d.clone()),
        Ok(true)
    );
    assert_eq!(
        eval("data.l.all(x, x.nope == 1 && false)", d.clone()),
        Ok(false)
    );
    assert_eq!(eval("data.l.all(x, x > 1.0)", d.clone()), Ok(false));
    assert_eq!(
        eval("data.l.exists_one(x, x.nope == 1 || x == 2.0)", d.clone()),
        Err("no such overload")
    );
    assert_eq!(eval("data.l.exists_one(x, x == 2.0)", d.clone()), Ok(true));
    assert_eq!(eval("(data.nope ? true : false) || true", d), Ok(true));
}

/// `size()` of a string counts code points, not bytes.
#[test]
fn size_counts_code_points() {
    assert!(t(r#"size("é😀") == 2"#));
    assert!(t(r#""é😀".size() == 2"#));
    assert!(t(r#"size(b"\xc3\xa9") == 2"#));
    assert_eq!(eval("size(data.s) == 3", json!({"s": "añ😀"})), Ok(true));
    assert_eq!(eval("size(data.l) == 2", json!({"l": [1, {}]})), Ok(true));
}

/// `in` is list and map membership only.
#[test]
fn in_is_membership_of_lists_and_maps() {
    assert!(err(r#""ell" in "hello""#).contains("`in` tests membership of a list or a map"));
    assert!(err(r#""ell" in event"#).contains("s.contains(t)"));
    assert!(t(
        r#""ell" in ["ell"] && "a" in {"a": 1} && !("b" in {"a": 1})"#
    ));
    assert!(t("1 in [1.0] && 1u in [1] && 2.0 in {2: 'x'}"));
    assert_eq!(eval(r#""a" in data"#, json!({"a": null})), Ok(true));
    assert_eq!(
        eval(r#""tag" in data.tags"#, json!({"tags": ["tag"]})),
        Ok(true)
    );
}

/// JSON numbers are doubles, so the verdict never depends on `1` vs `1.0`; numbers compare
/// across int, uint and double.
#[test]
fn json_numbers_are_doubles_and_numbers_compare_across_types() {
    for d in [json!({"x": 1}), json!({"x": 1.0})] {
        assert_eq!(eval("data.x + 1.0 == 2.0", d.clone()), Ok(true));
        assert_eq!(eval("data.x == 1", d.clone()), Ok(true));
        assert_eq!(eval("data.x == 1u", d.clone()), Ok(true));
        assert_eq!(eval("data.x < 1.5 && data.x > 0", d.clone()), Ok(true));
        assert_eq!(eval("type(data.x) == double", d.clone()), Ok(true));
        assert_eq!(eval("int(data.x) % 2 == 1", d.clone()), Ok(true));
        assert_eq!(eval("[1, 2][data.x] == 2", d.clone()), Ok(true));
    }
    assert!(t(
        "1 == 1.0 && 1u == 1 && 1.0 == 1u && [1] == [1.0] && {1: 2} == {1u: 2.0}"
    ));
    assert!(t(
        "1 < 1.5 && 2u > 1.5 && -1 < 0u && 1.5 < 2u && !(0.0/0.0 == 0.0/0.0)"
    ));
    assert!(t("9223372036854775807 < 9223372036854775808u"));
    // As cel-go and the conformance suite: the int converted to a double.
    assert!(t("9007199254740993 == 9007199254740992.0"));
    // Arithmetic does not mix: an int with a JSON value can never succeed.
    let e = err("data.x + 1 == 2");
    assert!(
        e.contains("write the number as a double, e.g. `1.0`"),
        "{e}"
    );
    assert!(err("data.x * 2 > 1.0").contains("`1.0`"));
    assert!(err("data.n % 2 == 0").contains("int(data.n) % 2"));
    // dyn() is the value itself at evaluation: wrapping a JSON value in it hides nothing.
    assert!(err("dyn(data.x) + 1 == 2").contains("`1.0`"));
    assert!(err("dyn(dyn(data.x)) * 2 > 1.0").contains("`1.0`"));
    // Nor does a macro's list of JSON values.
    assert!(err("data.l.map(v, v)[0] + 1 == 2").contains("`1.0`"));
    assert!(err("data.l.filter(v, true)[0] + 1 == 2").contains("`1.0`"));
    assert_eq!(
        eval("data.l.map(v, v)[0] + 1.0 == 2.0", json!({"l": [1]})),
        Ok(true)
    );
    assert_eq!(eval("dyn(data.x) + 1.0 == 2.0", json!({"x": 1})), Ok(true));
    // What dyn() lifts is CEL's static refusal of `==` across kinds, which succeeds at
    // evaluation (false), never an operation that fails there.
    assert!(err("event == 1").contains("never equal"));
    assert_eq!(
        eval("dyn(event) == 1 || dyn(false) == null", json!({})),
        Ok(false)
    );
    assert!(err("dyn(event) < 1").starts_with("is not a filter keyhook evaluates"));
}

/// Refused when written, naming the thing, instead of failing on every event.
#[test]
fn what_keyhook_does_not_evaluate_is_refused_when_written() {
    for (src, says) in [
        (
            "timestamp(data.at) > timestamp('2024-01-01T00:00:00Z')",
            "`timestamp`",
        ),
        ("duration('1s') == duration('1s')", "`duration`"),
        ("data.title.lowerAscii() == 'x'", "`lowerAscii`"),
        ("foo == 1", "unknown identifier `foo`"),
        ("request.auth == 1", "unknown identifier `request`"),
        (
            "google.protobuf.Int64Value{value: 1} == 1",
            "message literals",
        ),
        (
            "math.greatest(1, 2) == 2",
            "`greatest` (at 4) is not a function",
        ),
        ("data.x.all(a, b, true)", "all() is a macro"),
        ("event.x == 1", "selects a field of a map"),
        ("event == 1", "never equal"),
        ("event < 1", "orders"),
        ("!event", "`!` takes bool"),
        ("size(1) == 1", "size()"),
        ("int([]) == 1", "int() takes"),
        ("'a'.matches('(')", "invalid regular expression"),
        ("contains('ab', 'a')", "is a method"),
        ("event == 'a' || 1", "`||` takes bool"),
        ("{1.5: 1} == {}", "map key"),
        ("has(data)", "has() takes"),
        ("let == 1", "reserved"),
        ("'unterminated", "unterminated"),
        ("data.x ==", "unexpected end"),
        (".data == 1", "leading `.`"),
        ("1 + 2 3", "unexpected"),
        ("0x == 1", "hex"),
        ("18446744073709551616u == 1u", "out of range"),
    ] {
        let e = err(src);
        assert!(e.contains(says), "{src}: {e}");
        assert!(
            e.starts_with("is not a filter keyhook evaluates")
                || e.starts_with("is not a valid CEL expression"),
            "{src}: {e}"
        );
    }
}

/// What the `cel` crate accepted and then failed on every event now works.
#[test]
fn functions_cel_defines_are_evaluated() {
    let d = json!({"title": "Hello, world", "n": 3, "tags": ["a", "b"], "o": {"k": null}});
    for src in [
        r#"data.title.matches("^Hel+o")"#,
        r#"matches(data.title, "w.rld$")"#,
        r#"!data.title.matches("^x")"#,
        "type(data.n) == double && type(1) == int && type(1u) == uint",
        "type(data.title) == string && type(data.tags) == list && type(data.o) == map",
        "type(data.o.k) == null_type && type(true) == bool && type(int) == type",
        "type(b'x') == bytes",
        "dyn(data.n) == 3 && dyn(1) + 1 == 2 && dyn(false) != null",
        "has(data.title) && !has(data.nope) && has(data.o.k) && !has(data['o'].x)",
        "data.tags.map(t, t + '!') == ['a!', 'b!']",
        "data.tags.map(t, t != 'a', t) == ['b']",
        "data.tags.filter(t, t == 'b').size() == 1",
        "data.o.exists(k, k == 'k') && data.o.all(k, k.size() == 1)",
        "int('42') == 42 && uint('42') == 42u && double('1.5') == 1.5",
        "string(1.5) == '1.5' && string(1.0) == '1' && string(-2) == '-2' && string(true) == 'true'",
        "bool('true') && !bool('0') && bytes('é') == b'\\xc3\\xa9' && string(b'ok') == 'ok'",
        "int(-1.9) == -1 && uint(2.9) == 2u && double(3) == 3.0",
        "data.n > 2 ? data.title.contains('world') : false",
        "{'a': 1, 'b': [1, 2]}['b'][1] == 2",
        r#"'\x41\101\u0041\U00000041' == "AAAA""#,
        r#"r'\d' == "\\d" && """a"b""" == 'a"b' && '''x'y''' == "x'y""#,
        "0x10 == 16 && 0x10u == 16u && 1e3 == 1000.0 && .5 == 0.5 && 2.5e-1 == 0.25",
        "[1, 2, 3,][2] == 3 && {'a': 1,}.a == 1",
        "null == null && data.o.k == null",
        "event.startsWith('post.') && event.endsWith('.published')",
        "'abc' < 'abd' && b'a' < b'b' && false < true",
        "[1] + [2] == [1, 2] && 'a' + 'b' == 'ab' && b'a' + b'b' == b'ab'",
        "7 / 2 == 3 && -7 % 3 == -1 && 7u / 2u == 3u && 7.0 / 2.0 == 3.5",
        "data.tags[1] == 'b' && data['title'] == data.title",
        "// a comment\n true",
        "has(data.`title`) && data.o.`k` == null && !has(data.o.loop)",
    ] {
        assert_eq!(eval(src, d.clone()), Ok(true), "{src}");
    }
    for (src, kind) in [
        ("1 / 0 == 0", "division by zero"),
        ("1 % 0 == 0", "division by zero"),
        ("9223372036854775807 + 1 == 0", "overflow"),
        ("0u - 1u == 0u", "overflow"),
        ("-9223372036854775807 - 2 < 0", "overflow"),
        ("int(1e19) == 0", "overflow"),
        ("uint(-1) == 0u", "overflow"),
        ("int('x') == 0", "invalid conversion"),
        ("uint('+1') == 1u", "invalid conversion"),
        ("[1][1] == 1", "index out of bounds"),
        ("{'a': 1, 'a': 2}.a == 1", "duplicate map key"),
        ("data.tags.exists_one(t, t.x)", "no such overload"),
        (
            "data.title.matches(data.title + '(')",
            "invalid regular expression",
        ),
    ] {
        assert_eq!(eval(src, d.clone()), Err(kind), "{src}");
    }
}

#[test]
fn string_of_a_double_is_written_as_cel_does() {
    for (d, s) in [
        (1.0, "1"),
        (1.5, "1.5"),
        (-0.25, "-0.25"),
        (123456.0, "123456"),
        (1e6, "1e+06"),
        (1.5e-5, "1.5e-05"),
        (0.0001, "0.0001"),
        (1e100, "1e+100"),
        (f64::INFINITY, "+Inf"),
    ] {
        assert_eq!(eval::format_double(d), s);
    }
}

#[test]
fn filters_are_bounded_when_written() {
    assert!(err("data.x ==").starts_with("is not a valid CEL expression"));
    assert!(err("data.x + 1 == 2").starts_with("is not a filter keyhook evaluates"));
    assert!(Filter::new(" ")
        .unwrap_err()
        .starts_with("must not be empty"));
    assert_eq!(
        Filter::new(&format!("true || {}", "x".repeat(MAX_LEN))).unwrap_err(),
        format!("must be at most {MAX_LEN} characters, not {}", MAX_LEN + 8)
    );
    let deep = format!(
        "{}true{}",
        "(".repeat(MAX_DEPTH + 1),
        ")".repeat(MAX_DEPTH + 1)
    );
    assert!(err(&deep).contains(&format!("may nest at most {MAX_DEPTH} deep")));
    let chain = format!("data{} == 1", ".a".repeat(MAX_DEPTH));
    assert!(err(&chain).contains(&format!("may nest at most {MAX_DEPTH} deep")));
    assert!(err("data.a.exists(x, data.b.exists(y, x == y))")
        .contains("a macro may not be used inside another macro's predicate"));
    assert!(err("data.a.map(x, data.b.filter(y, true))")
        .contains("a macro may not be used inside another macro's predicate"));
    let many = ["data.l.exists(x, x == 1)"; MAX_MACROS + 1].join(" || ");
    assert!(err(&many).contains(&format!("may use at most {MAX_MACROS} macros")));
    assert!(err("Foo{a: 1} == 1").contains("message literals are not supported"));
    let long_re = format!("event.matches('{}')", "a".repeat(eval::MAX_PATTERN + 1));
    assert!(err(&long_re).contains("at most 256 characters"));
    assert!(err("event.matches('a{1000}{1000}')").contains("too large"));
    // Chained, not nested: allowed; `||` chains are n-ary, not deep.
    assert_eq!(
        eval(
            "data.l.filter(x, x > 1).exists(x, x == 3)",
            json!({"l": [1, 2, 3]})
        ),
        Ok(true)
    );
    let alternatives = (0..100)
        .map(|i| format!("event == 'e{i}'"))
        .collect::<Vec<_>>()
        .join(" || ");
    assert!(Filter::new(&alternatives).is_ok());
}

/// 2,000 `!` or `-` in a row (or brackets, or anything else nested) are refused by the
/// depth limit, which counts every level, before any recursion goes deeper than it; nothing
/// hostile panics.
#[test]
fn hostile_depth_and_shapes_are_refused_without_panicking() {
    for op in ["!", "-", "(", "[", "{'a':", "x.map(y,", "a ? b : "] {
        let src = format!("{}1", op.repeat(2000));
        let e = err(&src[..src.len().min(MAX_LEN)]);
        assert!(
            e.contains("nest at most") || e.contains("expected") || e.contains("unterminated"),
            "{op}: {e}"
        );
    }
    assert!(err(&format!("{}true", "!".repeat(2000))).contains("nest at most 32 deep"));
    assert!(err(&format!("{}1 == 1", "-".repeat(2000))).contains("nest at most 32 deep"));
    assert!(err(&format!("{}true", "!".repeat(MAX_DEPTH + 1))).contains("nest at most"));
    assert!(Filter::new(&format!("{}true", "!".repeat(MAX_DEPTH - 1))).is_ok());
    // The maximum depth the parser allows also evaluates.
    let ok = format!(
        "{}true{}",
        "(".repeat(MAX_DEPTH - 1),
        ")".repeat(MAX_DEPTH - 1)
    );
    assert_eq!(eval(&ok, json!({})), Ok(true));
    let left = format!("1{} == 1", " + 1".repeat(MAX_DEPTH + 5));
    assert!(err(&left).contains("nest at most"));
    // Every prefix of hostile inputs: an error or a filter, never a panic.
    let samples = [
        r#"data.a[0].b.exists(x, x.matches("(a|b)*c") || x in [1, 2u, 3.0, "4", b"5", null])"#,
        r#"'\u00e9\U0001F600\x41\101\a\b\f\n\r\t\v\\\'\"\`\?' + r"\q" + """x"y""" + '''z'''"#,
        "{1: 2, true: [], 'k': {}}[1] == -0x7fffffffffffffff - 1 ? 1.5e+10 : .5e-3",
    ];
    for s in samples {
        for end in 0..=s.len() {
            if let Some(prefix) = s.get(..end) {
                let _ = Filter::new(prefix);
            }
        }
        for bad in [
            "\\",
            "'",
            "\"",
            "\u{0}",
            "\u{feff}",
            "0x",
            "1e",
            "1.",
            "u",
            "b'\\u0041'",
        ] {
            let _ = Filter::new(&format!("{s}{bad}"));
            let _ = Filter::new(&format!("{bad}{s}"));
        }
    }
}

/// The most expensive filters the bounds let through, on the largest data an event may carry
/// (64 KiB), end promptly: a macro over a list longer than MAX_RANGE is an error at once,
/// and growth by concatenation stops at the cost limit.
#[test]
fn a_hostile_filter_is_bounded_when_evaluated() {
    let long: Vec<i64> = (0..30_000).map(|i| i % 10).collect();
    let start = Instant::now();
    assert_eq!(
        eval("data.l.map(x, x).size() > 0", json!({ "l": long })),
        Err("a macro's list is too long")
    );
    let ok: Vec<i64> = (0..MAX_RANGE as i64).collect();
    let worst = ["data.l.map(x, data.l).size() == 0"; MAX_MACROS].join(" || ");
    assert_eq!(eval(&worst, json!({ "l": ok })), Ok(false));
    let concat = ["data.s"; 25].join(" + ");
    let s = "x".repeat(60_000);
    let f = format!("size({concat}) == 0");
    assert_eq!(
        eval(&f, json!({ "s": s })),
        Err("the evaluation exceeds its cost limit")
    );
    // Lists doubling in a macro over the largest range.
    let grow = format!(
        "data.l.exists(x, size({}) == 0)",
        ["data.l"; 25].join(" + ")
    );
    assert_eq!(
        eval(&grow, json!({ "l": ok })),
        Err("the evaluation exceeds its cost limit")
    );
    // A pattern from the data: compiled under the same bounds.
    let re = "data.l.exists(x, data.s.matches(data.p))";
    assert_eq!(
        eval(
            re,
            json!({"l": ok, "s": "a".repeat(60_000), "p": "(a|aa)*b"})
        ),
        Err("the evaluation exceeds its cost limit")
    );
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "{:?}",
        start.elapsed()
    );
}

/// A stored filter as a fan-out judges it (`compiled`, then `matches`): held once compiled;
/// a failure is an error, never a `false` (the skip and its trace are `service::routing`'s).
#[test]
fn stored_filters_are_compiled_once_and_failures_are_errors() {
    let vars = Vars::new("post.published", None, &json!({"n": 1}));
    let judge = |src: &str| {
        compiled(src)
            .map_err(|_| "does not compile")
            .and_then(|f| f.matches(&vars))
    };
    assert_eq!(judge("data.n == 1"), Ok(true));
    assert_eq!(judge("data.n == 2"), Ok(false));
    assert_eq!(judge("data.n"), Err("the result is not a boolean"));
    assert_eq!(judge("data.nope"), Err("no such key"));
    assert!(judge("timestamp(1) == 1").is_err());
    let a = compiled("data.n == 1").unwrap();
    assert!(Arc::ptr_eq(&a, &compiled("data.n == 1").unwrap()));
}

/// The schema check when a filter is written: unknown fields with a suggestion, string and
/// number mixed, `$ref`s followed (and cycles ending), several schemas.
#[test]
fn filters_are_checked_against_the_event_schema() {
    let schema = json!({
        "type": "object",
        "properties": {
            "title": {"type": "string"},
            "count": {"type": "integer"},
            "author": {"$ref": "#/$defs/person"},
            "tags": {"type": "array", "items": {"$ref": "#/$defs/tag"}},
            "extra": {"type": "object", "additionalProperties": true},
            "cycle": {"$ref": "#/$defs/a"}
        },
        "$defs": {
            "person": {"type": "object", "properties": {"name": {"type": "string"}}},
            "tag": {"type": "object", "properties": {"label": {"type": "string"}}},
            "a": {"$ref": "#/$defs/b"},
            "b": {"$ref": "#/$defs/a"}
        }
    });
    let check = |src: &str| Filter::new(src).unwrap().check_schema(&schema);
    for ok in [
        "data.title == 'x'",
        "has(data.title) && data.count > 2",
        "data.author.name.startsWith('A')",
        "data['title'] == 'x'",
        "data.tags.exists(t, t.label == 'news')",
        "data.tags[0].label == 'a'",
        "data.extra.anything == 1",
        "data.cycle.whatever == 1",
        "size(data.title) > 3 && event == 'x'",
        "[{'titel': 1}].exists(data, data.titel == 1)",
        "data.count == 2.0 || data.title != ''",
    ] {
        assert_eq!(check(ok), Ok(()), "{ok}");
    }
    for (bad, says) in [
        ("data.titel == 'x'", "did you mean `title`?"),
        ("has(data.titel)", "did you mean `title`?"),
        ("data[\"titel\"] == 'x'", "did you mean `title`?"),
        ("data.author.nmae == 'x'", "`data.author.nmae`"),
        (
            "data.tags.exists(t, t.lable == 'x')",
            "did you mean `label`?",
        ),
        ("data.zzzzzz == 1", "declares no field `zzzzzz`"),
        ("data.title == 1", "`data.title` is a string"),
        ("1.5 < data.title", "`data.title` is a string"),
        ("data.count == 'two'", "`data.count` is a number"),
        ("data.author.name != 3", "quote the number"),
    ] {
        let e = check(bad).unwrap_err();
        assert!(e.contains(says), "{bad}: {e}");
    }
    // Several schemas: a field is unknown only if no schema knows it.
    let other = json!({"type": "object", "properties": {"titel": {"type": "number"}}});
    let f = Filter::new("data.titel == 'x'").unwrap();
    assert_eq!(
        f.check_schemas(&[("a", &schema), ("b", &other)]),
        Err("`data.titel` is a number in the schema of b and `==` compares it with a string (compare with a number)".into())
    );
    let f = Filter::new("data.titel > 1.0").unwrap();
    assert_eq!(f.check_schemas(&[("a", &schema), ("b", &other)]), Ok(()));
    let e = Filter::new("data.nope == 1.0")
        .unwrap()
        .check_schemas(&[("a", &schema), ("b", &other)])
        .unwrap_err();
    assert!(
        e.contains("the schema of a, b declares no field `nope`"),
        "{e}"
    );
    // A schema that declares nothing, or admits more, never refuses.
    for open in [
        json!({}),
        json!(true),
        json!({"type": "object"}),
        json!({"properties": {"a": {}}, "patternProperties": {"^x": {}}, "additionalProperties": false}),
    ] {
        let f = Filter::new("data.xyz == 1.0").unwrap();
        assert_eq!(f.check_schema(&open), Ok(()), "{open}");
    }
    // A deep cyclic schema ends.
    let mut cyc = json!({"$defs": {}});
    for i in 0..200 {
        cyc["$defs"][format!("d{i}")] = json!({"allOf": [{"$ref": format!("#/$defs/d{}", (i + 1) % 200)}, {"$ref": format!("#/$defs/d{}", (i + 7) % 200)}]});
    }
    cyc["$ref"] = json!("#/$defs/d0");
    assert_eq!(
        Filter::new("data.a.b.c == 1.0").unwrap().check_schema(&cyc),
        Ok(())
    );
    // An exponential schema (30 levels of allOf: [next, next], 2^30 paths), under
    // a filter with many paths: the shared budget ends it at once.
    let mut fan = json!({"$defs": {"d30": {"type": "object", "properties": {"t": {}}}}});
    for i in 0..30 {
        let next = format!("#/$defs/d{}", i + 1);
        fan["$defs"][format!("d{i}")] = json!({"allOf": [{"$ref": next}, {"$ref": next}]});
    }
    fan["$ref"] = json!("#/$defs/d0");
    let many = (0..60)
        .map(|i| format!("data.f{i}.g == 1.0"))
        .collect::<Vec<_>>()
        .join(" || ");
    let start = Instant::now();
    assert_eq!(Filter::new(&many).unwrap().check_schema(&fan), Ok(()));
    assert!(
        start.elapsed() < Duration::from_secs(2),
        "{:?}",
        start.elapsed()
    );
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]
    /// Any sequence of CEL's tokens (and some that are not): compiling never panics, and a
    /// filter that compiles evaluates to a verdict or an error kind, never a panic (the
    /// catch_unwind belt is not what holds: `eval` is called here without it).
    #[test]
    fn no_input_panics(parts in proptest::collection::vec(proptest::sample::select(vec![
        "data", "event", "profileId", ".", "a", "l", "x", "(", ")", "[", "]", "{", "}", ",", ":",
        "?", "!", "-", "+", "*", "/", "%", "==", "!=", "<", ">=", "&&", "||", "in", "1", "0",
        "1u", "2.5", "-9223372036854775808", "0x7fffffffffffffff", "'a'", "\"\\u00e9\"", "b'\\xff'",
        "r'\\d'", "null", "true", "false", "size", "int", "uint", "double", "string", "bool",
        "bytes", "dyn", "type", "has", "exists", "all", "exists_one", "map", "filter", "matches",
        "contains", "'^a+$'", "`k-k`", "loop", "\"\"\"", "'", "\\", "//", "\n",
    ]), 0..40)) {
        let src = parts.join(" ");
        if let Ok(p) = Program::compile(&src, FILTER_VARS) {
            evaluate_any(&p, &json!({"a": {"k-k": [1, "x", null]}, "l": [0, 1.5, "é", [], {}], "x": -1e308}));
        }
    }
}

/// Well-formed expressions of every shape, for the evaluator: built by a grammar.
fn expressions() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    let leaf = proptest::sample::select(vec![
        "data",
        "data.a",
        "data.l",
        "data.l[0]",
        "data.x",
        "data['a']",
        "event",
        "profileId",
        "1",
        "-1",
        "1u",
        "2.5",
        "-0.0",
        "'a'",
        "'é😀'",
        "b'x'",
        "null",
        "true",
        "false",
        "[]",
        "{}",
        "x",
        "int",
        "9223372036854775807",
        "18446744073709551615u",
        "1e308",
    ])
    .prop_map(String::from);
    leaf.prop_recursive(6, 64, 3, |inner| {
        let op = proptest::sample::select(vec![
            "+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">=", "&&", "||", "in",
        ]);
        let f = proptest::sample::select(vec![
            "size", "int", "uint", "double", "string", "bool", "bytes", "dyn", "type",
        ]);
        let m = proptest::sample::select(vec!["exists", "all", "exists_one", "map", "filter"]);
        let s = proptest::sample::select(vec!["contains", "startsWith", "endsWith", "matches"]);
        prop_oneof![
            (inner.clone(), op, inner.clone()).prop_map(|(a, o, b)| format!("({a} {o} {b})")),
            inner.clone().prop_map(|a| format!("!{a}")),
            inner.clone().prop_map(|a| format!("-{a}")),
            (f, inner.clone()).prop_map(|(f, a)| format!("{f}({a})")),
            (inner.clone(), m, inner.clone()).prop_map(|(r, m, p)| format!("{r}.{m}(x, {p})")),
            (inner.clone(), s, inner.clone()).prop_map(|(a, s, b)| format!("{a}.{s}({b})")),
            (inner.clone(), inner.clone(), inner.clone())
                .prop_map(|(c, a, b)| format!("({c} ? {a} : {b})")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("[{a}, {b}]")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{{{a}: {b}}}")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{a}[{b}]")),
            inner.clone().prop_map(|a| format!("has({a}.k)")),
        ]
    })
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]
    /// Every well-formed expression compiles or is refused, and one that compiles evaluates to
    /// a value or an error kind: no panic, whatever the types meet.
    #[test]
    fn no_expression_panics_when_evaluated(src in expressions()) {
        if let Ok(p) = Program::compile(&src, FILTER_VARS) {
            evaluate_any(&p, &json!({"a": {"k": [1, "x", null]}, "l": [0, 1.5, "é", [], {}], "x": -1e308}));
        }
    }
}

/// Evaluates `p` for a `post.published` event of no profile carrying `data`, and drops the
/// outcome: what the properties that no expression panics run on each one that compiles.
fn evaluate_any(p: &Program, data: &Json) {
    let data = Value::from_json(data);
    let vars = |n: &str| match n {
        "data" => Some(data.clone()),
        "event" => Some(Value::Str("post.published".into())),
        "profileId" => Some(Value::Null),
        _ => None,
    };
    let mut env = eval::Env {
        vars: &vars,
        regexes: &p.regexes,
        locals: Vec::new(),
        cost: eval::Cost::new(),
    };
    let _ = eval::eval(&p.expr, &mut env);
}
