// Extracts the cases of CEL's conformance suite (npm @bufbuild/cel-spec, pinned by
// .ci/cel-conformance.sh) that apply to keyhook's filters on JSON, as JSON lines for
// crates/keyhook-core/examples/cel_conformance.rs:
//   {"section","name","expr","vars":{name:type},"bindings":{name:value},
//    "expect":{"value":V}|{"error":true}|{"check_only":true}}
// A value V is {"null":true} {"bool":b} {"int":"n"} {"uint":"n"} {"double":n|"NaN"|"Infinity"|
// "-Infinity"} {"string":s} {"bytes":[...]} {"list":[V]} {"map":[[K,V]]} {"type":"name"} or
// {"unsupported":what} (protobuf messages, enums: keyhook has none, so a case that needs one
// must be refused when compiled). A type is "bool" "int" "uint" "double" "string" "bytes"
// "list" "map" "null" "type" "dyn", or "unsupported".
//
// The sections: the core language a filter on JSON uses. Left out: protobuf messages
// (proto2, proto3, proto2_ext, wrappers, enums, dynamic: filters see JSON, never messages),
// timestamps and durations (not evaluated, refused when written), the extensions keyhook does
// not evaluate (string_ext, math_ext, encoders_ext, bindings_ext, block_ext, optionals,
// macros2's two-variable comprehensions), namespaces (container resolution), unknowns
// (partial evaluation) and type_deductions (the checker's deduced types, not values).
import { createRequire } from "module";

const require = createRequire(process.argv[2] + "/");
const { getConformanceSuite } = require("@bufbuild/cel-spec/testdata/tests.js");

export const SECTIONS = [
  "basic",
  "comparisons",
  "conversions",
  "fields",
  "fp_math",
  "integer_math",
  "lists",
  "logic",
  "macros",
  "parse",
  "plumbing",
  "string",
];

function value(v) {
  const k = v?.kind ?? { case: undefined };
  switch (k.case) {
    case "nullValue": return { null: true };
    case "boolValue": return { bool: k.value };
    case "int64Value": return { int: k.value.toString() };
    case "uint64Value": return { uint: k.value.toString() };
    case "doubleValue":
      return { double: Number.isFinite(k.value) ? k.value : String(k.value) };
    case "stringValue": return { string: k.value };
    case "bytesValue": return { bytes: Array.from(k.value) };
    case "listValue": return { list: k.value.values.map(value) };
    case "mapValue":
      return { map: k.value.entries.map((e) => [value(e.key), value(e.value)]) };
    case "typeValue": return { type: k.value };
    case "objectValue": return { unsupported: k.value.typeUrl || "message" };
    case "enumValue": return { unsupported: "enum" };
    default: return { unsupported: String(k.case) };
  }
}

const PRIMITIVE = { 1: "bool", 2: "int", 3: "uint", 4: "double", 5: "string", 6: "bytes" };
function type(t) {
  const k = t?.typeKind ?? {};
  switch (k.case) {
    case "dyn": return "dyn";
    case "null": return "null";
    case "primitive": return PRIMITIVE[k.value] ?? "unsupported";
    case "listType": return "list";
    case "mapType": return "map";
    case "type": return "type";
    default: return "unsupported";
  }
}

function* tests(suite) {
  for (const t of suite.tests ?? []) yield t;
  for (const s of suite.suites ?? []) yield* tests(s);
}

let n = 0;
for (const section of getConformanceSuite().suites) {
  if (!SECTIONS.includes(section.name)) continue;
  for (const t of tests(section)) {
    const o = t.original;
    const vars = {};
    for (const d of o.typeEnv ?? []) {
      if (d.declKind?.case === "ident") vars[d.name] = type(d.declKind.value.type);
      // Declared functions: keyhook has none of them, so a case calling one is refused.
    }
    const bindings = {};
    for (const [name, ev] of Object.entries(o.bindings ?? {})) {
      bindings[name] = ev.kind?.case === "value" ? value(ev.kind.value) : { unsupported: "unknown" };
      if (!(name in vars)) vars[name] = "dyn";
    }
    const m = o.resultMatcher ?? {};
    let expect;
    if (o.checkOnly) expect = { check_only: true };
    else if (m.case === "value") expect = { value: value(m.value) };
    else if (m.case === "evalError" || m.case === "anyEvalErrors") expect = { error: true };
    else if (m.case === "typedResult" && m.value.result) expect = { value: value(m.value.result) };
    else if (m.case === undefined) expect = { value: { bool: true } };
    else expect = { unsupported: m.case };
    if (o.container) expect = { ...expect, container: o.container };
    if (o.disableMacros) expect = { ...expect, macros_disabled: true };
    process.stdout.write(
      JSON.stringify({ section: section.name, name: `${section.name}/${t.name}`, expr: o.expr, vars, bindings, expect }) + "\n",
    );
    n++;
  }
}
process.stderr.write(`conformance.mjs: ${n} cases from ${SECTIONS.join(", ")}\n`);
