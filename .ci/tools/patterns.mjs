// JavaScript's RegExp, without and with the u flag, reads every OpenAPI pattern as the regex
// crate does (.ci/tools.sh): the verdicts of tests/cli/snapshots/openapi-patterns.json, on
// each sample, must be the same. A pattern that does not compile in either mode fails.
import { readFileSync } from "node:fs";

const entries = JSON.parse(readFileSync(process.argv[2], "utf8"));
let bad = 0;
let samples = 0;
for (const e of entries) {
  for (const flags of ["", "u"]) {
    let re;
    try {
      re = new RegExp(e.pattern, flags);
    } catch (err) {
      bad++;
      console.log(`${e.at}: does not compile with flags "${flags}": ${err.message}`);
      continue;
    }
    for (const [text, rust] of e.samples) {
      samples++;
      const js = re.test(text);
      if (js !== rust) {
        bad++;
        console.log(`${e.at}: ${JSON.stringify(text)}: regex ${rust}, JavaScript /${flags} ${js}`);
      }
    }
  }
}
console.log(`patterns.mjs: ${entries.length} patterns, ${samples} samples (both modes), ${bad} differ`);
process.exit(bad ? 1 : 0);
