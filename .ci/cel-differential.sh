#!/usr/bin/env bash
# The differential test of webhook filters (CONTRACT §10.1): keyhook's verdicts on
# the (filter, event) pairs of .ci/cel/differential.jsonl against the reference CEL evaluator
# @marcbachmann/cel-js, installed when missing at its pinned version under
# target/ci-tools/node (npm), beside .ci/tools.sh's npm tools. Zero disagreements on what
# keyhook accepts when written; .ci/cel/differential.mjs says how they are compared.
# .ci/tools.sh calls this last.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
. bench/lib.sh
CEL_JS_VERSION=8.0.0
NODE_DIR=$ROOT/target/ci-tools/node
say() { echo "cel-differential.sh: $*"; }

npm_pinned "$NODE_DIR" "@marcbachmann/cel-js@$CEL_JS_VERSION"
# The pairs are what the generator writes (a case changed there and not here fails).
node .ci/cel/generate.mjs --check
cargo build --quiet -p keyhook-core --example filter_eval
target_dir=${CARGO_TARGET_DIR:-$ROOT/target}
say "keyhook's filters against cel-js $CEL_JS_VERSION"
CEL_JS_VERSION=$CEL_JS_VERSION node .ci/cel/differential.mjs .ci/cel/differential.jsonl \
    "$target_dir/debug/examples/filter_eval" "$NODE_DIR/node_modules"
