// The differential test of keyhook's webhook filters against a reference CEL evaluator,
// @marcbachmann/cel-js (CONTRACT §10.1: a filter is CEL as the language definition says).
//
//   node .ci/cel/differential.mjs PAIRS.jsonl FILTER_EVAL NODE_MODULES
//
// PAIRS.jsonl: one {"expr", "event", "profileId", "data"} a line (.ci/cel/generate.mjs).
// FILTER_EVAL: the keyhook-core example `filter_eval`, which answers each line with
// keyhook's verdict ({"accepted", "verdict", "message"}). NODE_MODULES: where cel-js is
// installed (.ci/cel-differential.sh installs the pinned version).
//
// For every pair keyhook ACCEPTS when written, its verdict class (true, false or an error,
// which skips the event) must be cel-js's; pairs keyhook refuses when written are counted
// and not compared (a webhook cannot have them). A pair marked "celJsDeviates" (cel-js departs
// from the language definition there) is compared with its "expect" instead. cel-js sees the
// variables declared as CEL would declare them (event string, profileId dyn, data
// map<string, dyn>) and data as JSON.parse reads it: every JSON number a double, as §10.1 says.
// Exit 1 on any disagreement, or with fewer than MIN_PAIRS pairs. CEL_DIFF_SHOW_REFUSED=1 also
// lists the pairs refused when written on which cel-js gives true or false.

import {readFileSync} from 'node:fs'
import {spawnSync} from 'node:child_process'
import {createRequire} from 'node:module'
import {join} from 'node:path'
import {pathToFileURL} from 'node:url'

const MIN_PAIRS = 300
const CEL_JS_VERSION = process.env.CEL_JS_VERSION

const [pairsFile, filterEval, nodeModules] = process.argv.slice(2)
if (!pairsFile || !filterEval || !nodeModules) {
  console.error('usage: node differential.mjs PAIRS.jsonl FILTER_EVAL NODE_MODULES')
  process.exit(2)
}

const require = createRequire(join(nodeModules, 'x.js'))
const pkg = JSON.parse(readFileSync(join(nodeModules, '@marcbachmann/cel-js/package.json'), 'utf8'))
if (CEL_JS_VERSION && pkg.version !== CEL_JS_VERSION) {
  console.error(`cel-js ${pkg.version} installed, ${CEL_JS_VERSION} pinned`)
  process.exit(2)
}
const {Environment} = await import(pathToFileURL(require.resolve('@marcbachmann/cel-js')).href)
const env = new Environment({unlistedVariablesAreDyn: false, homogeneousAggregateLiterals: false})
  .registerVariable('event', 'string')
  .registerVariable('profileId', 'dyn')
  .registerVariable('data', 'map<string, dyn>')

const lines = readFileSync(pairsFile, 'utf8').split('\n').filter((l) => l.trim() !== '')
const pairs = lines.map((l) => JSON.parse(l))

// keyhook's verdicts, all in one process.
const run = spawnSync(filterEval, [], {input: lines.join('\n') + '\n', maxBuffer: 1 << 28, encoding: 'utf8'})
if (run.status !== 0) {
  console.error(`${filterEval} failed (${run.status ?? run.signal}): ${run.stderr}`)
  process.exit(2)
}
const keyhook = run.stdout.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l))
if (keyhook.length !== pairs.length) {
  console.error(`${filterEval} answered ${keyhook.length} of ${pairs.length} pairs`)
  process.exit(2)
}

/** cel-js's verdict class: true, false or "error" (a result that is not a boolean too). */
function celJs({expr, event, profileId, data}) {
  try {
    const r = env.evaluate(expr, {event, profileId, data})
    if (r === true || r === false) return {verdict: r, message: null}
    return {verdict: 'error', message: `the result is not a boolean (${typeof r})`}
  } catch (e) {
    return {verdict: 'error', message: `${e.name}: ${String(e.message).split('\n')[0]}`}
  }
}

const show = (v) => JSON.stringify(v)
let accepted = 0
let refused = 0
let exceptions = 0
const disagreements = []
const stale = []
// Refused when written although cel-js gives a verdict: not a disagreement (keyhook may refuse
// what it does not evaluate, §10.1), counted, and listed with CEL_DIFF_SHOW_REFUSED=1.
const refusedWithVerdict = []
pairs.forEach((pair, i) => {
  const k = keyhook[i]
  const ref = celJs(pair)
  if (pair.celJsDeviates !== undefined) {
    exceptions++
    if (ref.verdict === pair.expect) stale.push({i, pair})
  }
  if (!k.accepted) {
    refused++
    if (ref.verdict !== 'error') refusedWithVerdict.push({i, pair, k, ref})
    return
  }
  accepted++
  const want = pair.celJsDeviates !== undefined
    ? {by: 'CEL', verdict: pair.expect, message: `cel-js deviates: ${pair.celJsDeviates}`}
    : {by: 'cel-js', ...ref}
  if (k.verdict !== want.verdict) disagreements.push({i, pair, k, want})
})

// 2,000 `!` in a row print as what they are.
const brief = (expr) => expr.length <= 160 ? expr : `${expr.slice(0, 40)}... (${expr.length} characters)`
for (const {i, pair, k, want} of disagreements) {
  console.log(`DISAGREE line ${i + 1}: ${brief(pair.expr)}`)
  console.log(`  event ${show(pair.event)}, profileId ${show(pair.profileId)}, data ${lines[i].slice(lines[i].lastIndexOf('"data": ') + 8, -1)}`)
  console.log(`  keyhook: ${show(k.verdict)}${k.message ? ` (${k.message})` : ''}`)
  console.log(`  ${want.by}: ${show(want.verdict)}${want.message ? ` (${want.message})` : ''}`)
}
for (const {i, pair} of stale) {
  console.log(`note: line ${i + 1}: cel-js ${pkg.version} now answers ${show(pair.expect)} on ${brief(pair.expr)}; its exception can go`)
}
if (process.env.CEL_DIFF_SHOW_REFUSED) {
  for (const {i, pair, k, ref} of refusedWithVerdict) {
    console.log(`refused line ${i + 1}: ${brief(pair.expr)} (keyhook: ${k.message}; cel-js: ${show(ref.verdict)})`)
  }
}
console.log(`cel differential (cel-js ${pkg.version}): ${pairs.length} pairs, ${accepted} accepted, ` +
  `${refused} refused when written (${refusedWithVerdict.length} of them where cel-js gives true or false), ` +
  `${exceptions} compared with CEL where cel-js deviates, ${disagreements.length} disagreements`)
if (pairs.length < MIN_PAIRS) {
  console.log(`fewer than ${MIN_PAIRS} pairs`)
  process.exit(1)
}
process.exit(disagreements.length ? 1 : 0)
