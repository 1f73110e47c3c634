#!/usr/bin/env bash
# CEL's own conformance suite against keyhook's filter engine (CONTRACT §10.1).
# The npm package @bufbuild/cel-spec ships the CEL project's test data (cel-spec v0.25.1 for
# 0.6.1); it is installed, pinned, under target/ci-tools/node when missing, as .ci/tools.sh
# installs its tools. .ci/cel/conformance.mjs writes the cases of the sections that apply to
# filters on JSON as JSON lines (it says which and why), and the example cel_conformance
# runs them through service::filter::Program: every case must be answered as the suite
# expects or refused when compiled; it prints the counts and exits 1 on any wrong answer.
#
# Network: only the npm install (when missing); the check itself is local.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
. bench/lib.sh
NODE=$ROOT/target/ci-tools/node
CEL_SPEC_VERSION=0.6.1
PROTOBUF_VERSION=2.17.0

npm_pinned "$NODE" "@bufbuild/cel-spec@$CEL_SPEC_VERSION" "@bufbuild/protobuf@$PROTOBUF_VERSION"

cases=$(mktemp)
trap 'rm -f "$cases"' EXIT
node .ci/cel/conformance.mjs "$NODE" >"$cases"
cargo run --quiet -p keyhook-core --example cel_conformance -- "$cases"
