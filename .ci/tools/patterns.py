"""Python's `re` reads every OpenAPI pattern as the regex crate does (.ci/tools.sh).

Reads tests/cli/snapshots/openapi-patterns.json (each pattern of the document with the regex
crate's verdict on each sample, written by the test
openapi::every_pattern_is_portable_and_its_verdicts_are_committed_for_the_other_engines) and
fails on any sample where Python's verdict differs.

Python's `$` also matches before a final newline, for any JSON Schema pattern (ECMA-262's `$`
does not): `re.search("^a$", "a\\n")` matches. Every keyhook pattern is anchored `^...$`, so it
is read with `re.fullmatch`, the whole string, which is what ECMA-262's anchors mean;
hypothesis-jsonschema (schemathesis) does the same by turning `$` into `\\Z`.
"""

import json
import re
import sys

entries = json.load(open(sys.argv[1], encoding="utf-8"))
bad = 0
for e in entries:
    p = re.compile(e["pattern"])
    for text, rust in e["samples"]:
        py = p.fullmatch(text) is not None
        if py != rust:
            bad += 1
            print(f"{e['at']}: {text!r}: regex {rust}, Python re {py}")
print(f"patterns.py: {len(entries)} patterns, {sum(len(e['samples']) for e in entries)} samples, {bad} differ")
sys.exit(1 if bad else 0)
