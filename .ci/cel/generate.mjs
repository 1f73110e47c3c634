// Writes .ci/cel/differential.jsonl: the (filter, event) pairs that .ci/cel/differential.mjs
// gives keyhook and the reference CEL evaluator (@marcbachmann/cel-js). Run it after changing
// a case: `node .ci/cel/generate.mjs` (the test fails when the file is not what this writes:
// `node .ci/cel/generate.mjs --check`).
//
// One JSON object a line: {"expr", "event", "profileId", "data"}, and for the few pairs
// where cel-js itself departs from the CEL language definition, "expect" (what CEL says:
// true, false or "error") and "celJsDeviates" (why) before "data": see EXCEPTIONS below. `data` is written
// into the line as the JSON text a sender would send, so `{"x":1}` and `{"x":1.0}` stay
// apart (keyhook reads the line with its own JSON parser; JavaScript cannot tell them
// apart, and needs not: CEL reads every JSON number as a double).
//
// The variables are those of a webhook filter: event (string), profileId (string or null)
// and data (the event's data, a JSON object).

import {readFileSync, writeFileSync} from 'node:fs'
import {fileURLToPath} from 'node:url'

const OUT = fileURLToPath(new URL('./differential.jsonl', import.meta.url))

// Payloads, as JSON text.
const POST = '{"postId": "p_1", "title": "Hello", "tags": ["news", "breaking"], "n": 3, "score": 2.5, "author": {"name": "Ann", "id": 7}, "draft": false, "at": "2026-11-22T08:00:00Z"}'
const POST_UNICODE = '{"postId": "p_2", "title": "Élan 😀", "tags": [], "n": 0, "score": -1.0, "author": {"name": "Zoë"}, "draft": true, "extra": null}'
const EMPTY = '{}'
const NUMBERS = '{"big": 9007199254740993, "u": 18446744073709551615, "over": 18446744073709551616, "huge": 1e300, "tiny": 5e-324, "neg": -0.0, "negi": -5, "exp": 1E2, "frac": 0.1}'
const MIXED = '{"mixed": ["a", 2], "mixed2": [2, "a"], "zeros": [0, "a"], "empty": [], "nested": {"a": {"b": {"c": {"d": 1}}}}, "odd-key": "x", "if": 1}'

// Hand-written: each issue-41 case, then the kinds of filter a webhook sees.
const pairs = []
const add = (expr, data = POST, profileId = 'brand-a', event = 'post.published') =>
  pairs.push({expr, event, profileId, data})

// --- Double negation and unary minus, which the engine once got wrong ---
for (const p of ['brand-a', 'brand-b', null]) add('!!(profileId == "brand-a")', POST, p)
add('!!true'); add('!!false'); add('!!!true'); add('!(!(data.n == 3.0))')
add('--1 == 1'); add('-(-1) == 1'); add('- -1 == 1'); add('--1.0 == 1.0'); add('-(-data.n) == 3.0')
// error || true, true || error, and && absorbing too (CEL: commutative over errors)
for (const p of ['a', 'b', null]) {
  add('data.optional == 1 || profileId == "a"', POST, p)
  add('profileId == "a" || data.optional == 1', POST, p)
  add('data.optional == 1 && profileId == "a"', POST, p)
  add('profileId == "a" && data.optional == 1', POST, p)
}
add('data.nope == 1 || true'); add('true || data.nope == 1'); add('data.nope == 1 || false')
add('false || data.nope == 1'); add('data.nope == 1 && false'); add('false && data.nope == 1')
add('data.nope == 1 && true'); add('true && data.nope == 1')
add('1 / 0 == 0 || true'); add('true || 1 / 0 == 0'); add('1 / 0 == 0 && false'); add('false && 1 / 0 == 0')
// exists/all absorb an element's error the same way; exists_one does not
add('data.mixed.exists(x, x > 1.0)', MIXED); add('data.mixed2.exists(x, x > 1.0)', MIXED)
add('data.mixed.exists(x, x > 5.0)', MIXED); add('data.mixed.all(x, x > 5.0)', MIXED)
add('data.mixed2.all(x, x > 5.0)', MIXED); add('data.mixed.all(x, x > 0.0)', MIXED)
add('data.mixed.exists_one(x, x > 1.0)', MIXED); add('data.zeros.all(x, x > 0.0)', MIXED)
// size of a string counts code points
add('size("é😀") == 2'); add('size("é😀") == 6'); add('"é😀".size() == 2')
add('data.title.size() == 6', POST_UNICODE); add('size(data.title) == 6', POST_UNICODE)
// `in` is list and map membership only
add('"ell" in "hello"'); add('"ell" in data.title'); add('"news" in data.tags'); add('"name" in data.author')
// a number's verdict does not depend on how the sender wrote it
for (const d of ['{"x":1}', '{"x":1.0}', '{"x": 1e0}', '{"x": 10E-1}']) {
  add('data.x + 1 == 2', d); add('data.x + 1.0 == 2.0', d); add('data.x == 1', d)
  add('data.x == 1.0', d); add('type(data.x) == double', d); add('int(data.x) + 1 == 2', d)
}
// accepted when written, failing on every event, in the old engine
add('data.title.matches("^H")'); add('data.title.matches("o$")'); add('data.title.matches("[")')
add('type(data.n) == int'); add('type(data.n) == double'); add('type(1) == int'); add('type(data.title) == string')
add('dyn(data.n) == 3'); add('dyn(1) == 1'); add('dyn(data.title).size() == 5')
add('timestamp(data.at) > timestamp("2020-01-01T00:00:00Z")'); add('timestamp("not a time") > timestamp(data.at)')
add('timestamp(data.at) + duration("1h") > timestamp(data.at)'); add('duration("1h") > duration("30m")')
add('duration("1.5s") == duration("1500ms")'); add('timestamp(data.at).getHours() == 8')
add('data.title.lowerAscii() == "hello"'); add('data.title.upperAscii() == "HELLO"')
add('nope == 1'); add('event == post'); add('data.n == 3.0 || nope'); add('profileid == "brand-a"')
add('!'.repeat(2000) + 'true'); add('-'.repeat(2000) + '1 == 1'); add('!'.repeat(10) + 'true')
add('(((((((((((((((((((((((((((((((((((((((((true)))))))))))))))))))))))))))))))))))))))')

// --- Missing keys, null, has() ---
add('data.nope == "x"'); add('has(data.nope)'); add('!has(data.nope)'); add('has(data.author.name)')
add('has(data.nope.name)'); add('"nope" in data'); add('data.author.nope == 1'); add('has(data.author)')
add('has(data.extra)', POST_UNICODE); add('data.extra == null', POST_UNICODE); add('has(data.x)', EMPTY)
add('data.x == 1', EMPTY); add('size(data) == 0', EMPTY); add('data == {}', EMPTY)
add('has(data.tags) && data.tags.exists(t, t == "news")'); add('has(data.tags) && data.tags.exists(t, t == "news")', EMPTY)
add('!has(data.tags) || data.tags.size() > 1', EMPTY)
for (const p of ['brand-a', null]) {
  add('profileId == null', POST, p); add('profileId != null', POST, p)
  add('profileId != null && profileId.startsWith("brand")', POST, p)
  add('profileId.startsWith("brand")', POST, p); add('profileId in ["brand-a", "brand-b"]', POST, p)
  add('type(profileId) == string', POST, p); add('type(profileId) == null_type', POST, p)
  add('profileId == null ? event == "post.published" : profileId == "brand-a"', POST, p)
}

// --- event ---
for (const e of ['post.published', 'post.failed', 'account.connected']) {
  add('event == "post.published"', POST, 'brand-a', e); add('event.startsWith("post.")', POST, 'brand-a', e)
  add('event in ["post.published", "post.failed"]', POST, 'brand-a', e); add('event.endsWith(".failed")', POST, 'brand-a', e)
}
add('event == 1'); add('event + 1 == 2 || true')

// --- Lists, maps, in ---
add('"sport" in data.tags'); add('data.tags.size() == 2'); add('size(data.tags) > 0'); add('data.tags[0] == "news"')
add('data.tags[5] == "x"'); add('data.tags[-1] == "x"'); add('data.author["name"] == "Ann"'); add('data.author.id == 7')
add('data.author.id == 7.0'); add('data.tags == ["news", "breaking"]'); add('data.tags + ["x"] == ["news", "breaking", "x"]')
add('[1, 2, 3].size() == 3'); add('1 in [1, 2]'); add('data.n in [1, 2, 3]'); add('data.n in [1.0, 2.0]')
add('{"a": 1}.size() == 1'); add('data.author.size() == 2'); add('data.nope.exists(x, true)')
add('data.author == {"name": "Ann", "id": 7}'); add('data.author == {"name": "Ann"}'); add('"x" in {"x": 1}')
add('data.tags.size() == 0', POST_UNICODE); add('data.nested.a.b.c.d == 1.0', MIXED); add('data["odd-key"] == "x"', MIXED)
add('data["if"] == 1', MIXED); add('data.empty.size() == 0', MIXED); add('[1, "a"].size() == 2')
add('data.tags.exists(t, t == "news") && data.n >= 3'); add('data["n"] == 3')

// --- Strings, Unicode ---
add('data.title == "Hello"'); add('data.title != "hello"'); add('data.title + "!" == "Hello!"')
add('data.title < "World"'); add('"a" < "b"'); add('"é" > "z"'); add('data.title < "Z"', POST_UNICODE)
add('string(data.n) == "3"'); add('string(data.score) == "2.5"'); add('int("42") == 42'); add('double("2.5") == 2.5')
add('int("x") == 1'); add('"a\\tb".size() == 3'); add('r"\\d".size() == 2'); add("'single' == \"single\"")
add('"""x""" == "x"'); add('"\\u00e9" == "é"'); add('b"abc".size() == 3'); add('bytes("é").size() == 2')
add('string(b"abc") == "abc"'); add('"é" == "e\\u0301"'); add('size("e\\u0301") == 2'); add('size("日本語") == 3')
add('"日本" + "語" == "日本語"'); add('data.title.startsWith("É")', POST_UNICODE); add('data.title.contains("😀")', POST_UNICODE)
add('data.title.endsWith("😀")', POST_UNICODE); add('data.author.name == "Zoë"', POST_UNICODE)
add('data.author.name.size() == 3', POST_UNICODE); add('data.n > 2.0 // a comment'); add('"a" + 1 == "a1"')
add('data.title.contains(1)')

// --- Numbers ---
add('data.big == 9007199254740992.0', NUMBERS); add('data.big > 9007199254740991.0', NUMBERS)
add('data.u == 18446744073709551616.0', NUMBERS); add('data.over == data.u', NUMBERS); add('data.neg == 0.0', NUMBERS)
add('data.neg < 0.0', NUMBERS); add('1.0 / data.neg < 0.0', NUMBERS); add('data.huge * 10.0 > data.huge', NUMBERS)
add('data.tiny > 0.0', NUMBERS); add('data.negi == -5', NUMBERS); add('data.negi < 0', NUMBERS); add('data.exp == 100', NUMBERS)
add('data.frac + 0.2 == 0.30000000000000004', NUMBERS); add('type(data.big) == double', NUMBERS)
add('type(data.negi) == double', NUMBERS); add('int(data.negi) == -5', NUMBERS); add('uint(data.negi) == 5u', NUMBERS)
add('int(data.n) == 3'); add('int(data.score) == 2'); add('uint(data.n) == 3u'); add('data.n / 2.0 == 1.5')
add('data.n / 0.0 > 0.0'); add('9223372036854775807 + 1 == 0'); add('-9223372036854775808 == -9223372036854775807 - 1')
add('1 / 0 == 0'); add('5 % 3 == 2'); add('5.0 % 3.0 == 2.0'); add('data.n > 2'); add('data.n == 3'); add('data.n == 3u')
add('data.score > 2'); add('data.n < 3.5'); add('2 * 3 == 6'); add('7 / 2 == 3'); add('-7 / 2 == -3'); add('-7 % 2 == -1')
add('0x10 == 16'); add('1e3 == 1000.0'); add('data.n + 1.5 == 4.5'); add('data.n - 3.0 == 0.0'); add('data.n * 2.0 == 6.0')
add('data.n + 1 == 4'); add('data.n * 2 == 6'); add('data.score - 1 > 0'); add('1 + 1u == 2'); add('2u * 3u == 6u')
add('0u - 1u == 0u'); add('18446744073709551615u + 1u == 0u'); add('double(1) == 1.0'); add('int(2.9) == 2'); add('int(-2.9) == -2')

// --- Ternaries ---
add('data.n > 2.0 ? true : false'); add('data.draft ? false : true'); add('data.nope ? true : false')
add('true ? true : data.nope'); add('false ? data.nope : true'); add('data.n > 0.0 ? data.title == "Hello" : data.nope == 1')
add('data.n > 0.0 ? data.title == "Hello" : data.nope == 1', POST_UNICODE); add('(data.n > 2.0 ? "big" : "small") == "big"')
add('data.draft ? data.n : data.title')

// --- Macros ---
add('data.tags.exists(t, t == "breaking")'); add('data.tags.all(t, t != "")'); add('data.tags.exists_one(t, t == "news")')
add('data.tags.filter(t, t.startsWith("b")).size() == 1'); add('data.tags.map(t, t.size()).exists(s, s > 5)')
add('data.author.exists(k, k == "name")'); add('data.author.all(k, k.size() > 1)'); add('[].exists(x, true)')
add('[].all(x, false)'); add('data.n.exists(x, true)'); add('data.tags.exists(t, t == "breaking")', POST_UNICODE)
add('data.tags.all(t, t == "x")', POST_UNICODE); add('data.tags.map(t, t + "!") == ["news!", "breaking!"]')
add('data.tags.filter(t, t.size() > 4) == ["breaking"]'); add('[1, 2, 3].filter(x, x > 1) == [2, 3]')
add('[1, 2, 3].map(x, x * 2) == [2, 4, 6]'); add('[1, 2, 3].all(x, x > 0)'); add('[0, 1].exists_one(x, x == 0)')
add('data.tags.exists(t, t.nope == 1 || t == "news")')

// --- Results that are not booleans ---
add('data.n'); add('data.title'); add('null'); add('data.tags'); add('1 + 1'); add('data')

// --- Systematic: comparisons of a JSON number with int, uint and double literals ---
for (const x of ['1', '1.0', '2.5', '-0.0', '"1"', 'null', 'true']) {
  for (const op of ['==', '!=', '<', '<=', '>', '>=']) {
    for (const lit of ['1', '1.0', '2', '1u']) add(`data.x ${op} ${lit}`, `{"x": ${x}}`)
  }
}
// --- Systematic: || and && and ?: over true, false and an error, both ways round ---
const terms = {true: 'data.n == 3.0', false: 'data.n == 4.0', error: 'data.nope == 1'}
for (const a of Object.values(terms)) {
  for (const b of Object.values(terms)) {
    add(`${a} || ${b}`); add(`${a} && ${b}`); add(`!(${a}) || ${b}`)
  }
}
for (const c of Object.values(terms)) add(`${c} ? ${terms.true} : ${terms.error}`)
// --- Systematic: the string functions on ASCII, Latin and astral text ---
for (const d of [POST, POST_UNICODE]) {
  for (const f of ['contains', 'startsWith', 'endsWith']) {
    for (const arg of ['', 'H', 'É', '😀', 'lo', 'an 😀']) add(`data.title.${f}(${JSON.stringify(arg)})`, d)
  }
}
// --- Systematic: a chain of n unary operators ---
for (let n = 0; n <= 5; n++) {
  for (const p of ['brand-a', 'brand-b']) add(`${'!'.repeat(n)}(profileId == "brand-a")`, POST, p)
  add(`${'-'.repeat(n)}(1) == ${n % 2 ? -1 : 1}`)
  add(`${'-'.repeat(n)}(data.n) == ${n % 2 ? -3.0 : 3.0}.0`)
}
// --- Systematic: the macros over lists with an element that errors ---
for (const list of ['[]', '[2]', '[0]', '["a", 2]', '[2, "a"]', '[0, "a"]', '[2, 3]']) {
  for (const m of ['exists', 'all', 'exists_one']) add(`data.l.${m}(x, x > 1.0)`, `{"l": ${list}}`)
}

// Where cel-js departs from the CEL language definition (google/cel-spec, doc/langdef.md):
// the pair stays, compared with what CEL says ("expect") instead of with cel-js.
const EXCEPTIONS = [
  // langdef, "List of Standard Definitions": matches has the global overload
  // (string, string) -> bool beside the receiver one; cel-js has only the receiver one.
  ['matches(data.title, "^H")', POST, true, 'cel-js lacks the global matches(string, string)'],
  // langdef, "Equality and Ordering": strings are ordered by code points; cel-js compares
  // UTF-16 code units, so a BMP character above U+D7FF sorts after an astral one.
  ['"ｱ" < "😀"', POST, true, 'cel-js orders strings by UTF-16 code units, not code points'],
  // RE2 (langdef, "Regular Expressions") matches code points and knows (?i) and \z; cel-js
  // runs JavaScript's RegExp without the u flag.
  ['data.title.matches("^.{6}$")', POST_UNICODE, true, 'cel-js regular expressions count UTF-16 units, not code points (JS RegExp, not RE2)'],
  ['data.title.matches("(?i)^hello$")', POST, true, 'cel-js refuses RE2 flags such as (?i) (JS RegExp, not RE2)'],
  ['"x".matches("x\\\\z")', POST, true, 'cel-js reads RE2\'s \\z as a literal z (JS RegExp, not RE2)'],
  // langdef, "Overflow": a conversion beyond the target type's range is an error.
  ['int(data.huge) == 0', NUMBERS, 'error', 'cel-js int() of a double beyond the int64 range returns a BigInt instead of an error'],
  ['int(9.3e18) > 0', POST, 'error', 'cel-js int() of a double beyond the int64 range returns a BigInt instead of an error'],
  // CEL timestamps have nanoseconds; cel-js keeps milliseconds (a JavaScript Date).
  ['timestamp("2026-11-22T08:00:00.123456789Z") > timestamp("2026-11-22T08:00:00.123Z")', POST, true, 'cel-js truncates timestamps to milliseconds'],
  // cel-go's strings extension (lowerAscii): only ASCII letters change; cel-js lowers all.
  ['"Élan".lowerAscii() == "Élan"', POST, true, 'cel-js lowerAscii() lowers non-ASCII letters too'],
  // A map literal with a repeated key is an error (cel-go: "repeated key"); cel-js keeps the last.
  ['{"a": 1, "a": 2}.size() == 1', POST, 'error', 'cel-js accepts a map literal with a repeated key'],
]
for (const [expr, data, expect, why] of EXCEPTIONS) {
  pairs.push({expr, event: 'post.published', profileId: 'brand-a', data, expect, celJsDeviates: why})
}

const lines = pairs.map(({expr, event, profileId, data, expect, celJsDeviates}) => {
  const parsed = JSON.parse(data)
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error(`not an object: ${data}`)
  let line = `{"expr": ${JSON.stringify(expr)}, "event": ${JSON.stringify(event)}, "profileId": ${JSON.stringify(profileId)}, `
  if (celJsDeviates !== undefined) line += `"expect": ${JSON.stringify(expect)}, "celJsDeviates": ${JSON.stringify(celJsDeviates)}, `
  // data last, as sent: the differential test prints it from the line as it is.
  return `${line}"data": ${data}}`
})
// A pair written twice (by hand and by a systematic loop) is kept once.
const text = [...new Set(lines)].join('\n') + '\n'
if (process.argv.includes('--check')) {
  let committed = ''
  try { committed = readFileSync(OUT, 'utf8') } catch {}
  if (committed !== text) {
    console.error('.ci/cel/differential.jsonl is not what .ci/cel/generate.mjs writes: run node .ci/cel/generate.mjs and commit it')
    process.exit(1)
  }
} else {
  writeFileSync(OUT, text)
  console.log(`${new Set(lines).size} pairs written to ${OUT}`)
}
