#!/usr/bin/env bash
# Runs the test suite N times in a row and names every test that failed, with how often.
#
#   .ci/flaky.sh N [FILTER] [-- extra cargo test args]
#
# e.g. `.ci/flaky.sh 20` (the whole suite, 20 times), `.ci/flaky.sh 50 serve::`,
# `FLAKY_PACKAGES="--test cli" .ci/flaky.sh 10 http_`.
#
# The test executables are built once (`cargo test --no-run`) and copied into the log
# directory, so an edit or a rebuild in the tree during the loop does not change what runs.
# Each run executes every copied executable (the same ones `cargo test` runs; FILTER is passed
# to each as libtest's name filters, several space-separated: `"serve:: http_body::"`; the
# whole suite covers both backends, as backends::the_suite_passes_on_postgresql runs the
# tests/cli executable again on PostgreSQL). Logs stay in
# target/flaky/<date>/run-<i>/<executable>.log; the summary names each failed test with its
# count, and any executable that ended without a libtest verdict (crash, abort, signal).
#
# Each executable runs as `cargo test` runs it: in its package's directory, with
# CARGO_MANIFEST_DIR and CARGO_BIN_EXE_<name> (the copied binaries) set. Tests that read the
# working tree (tests/cli/architecture.rs, the docs and snapshot tests) read it as it is, so
# leave the tree alone during a loop, or skip them with FLAKY_TEST_ARGS.
#
# Environment: FLAKY_PREBUILT (an earlier loop's executables.tsv: no build, those copies),
# FLAKY_PACKAGES (cargo's package and target selection, default: the whole
# workspace, as `cargo test` at the root), FLAKY_TEST_ARGS (more libtest arguments for each
# executable, e.g. `--skip architecture::`), KEYHOOK_TEST_BACKEND (passed through: `postgres`
# runs the suites on PostgreSQL), FLAKY_DIR (log directory, default
# target/flaky/<UTC timestamp>).
set -uo pipefail
cd "$(dirname "$0")/.."
n=${1:?usage: .ci/flaky.sh N [FILTER] [-- cargo test args]}
shift
filter=""
if [ $# -gt 0 ] && [ "$1" != "--" ]; then
  filter=$1
  shift
fi
[ "${1:-}" = "--" ] && shift
dir=${FLAKY_DIR:-target/flaky/$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$dir/bin"
export CARGO_TERM_COLOR=never

# Build once; list the test executables with the package directory each must run in (cargo
# test runs an executable with the current directory at its package's root).
# FLAKY_PREBUILT names an executables.tsv of an earlier loop to run those copies again.
if [ -n "${FLAKY_PREBUILT:-}" ]; then
  cp "$FLAKY_PREBUILT" "$dir/executables.tsv"
else
# shellcheck disable=SC2086
cargo test ${FLAKY_PACKAGES:-} --no-run --message-format=json "$@" 2>"$dir/build.log" |
  python3 -c '
import json, sys, os
for line in sys.stdin:
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if m.get("reason") != "compiler-artifact" or not m.get("executable"):
        continue
    kind = "test" if m.get("profile", {}).get("test") else "bin"
    if kind == "bin" and "bin" not in m["target"]["kind"]:
        continue
    name = m["target"]["name"]
    print(kind + "\t" + m["executable"] + "\t" + os.path.dirname(m["manifest_path"]) + "\t" + name)
' >"$dir/executables.tsv" || { echo "flaky: build failed, see $dir/build.log" >&2; exit 2; }
fi
[ -s "$dir/executables.tsv" ] || { echo "flaky: no test executables (see $dir/build.log)" >&2; exit 2; }
bin_env=()
abs_dir=$(cd "$dir" && pwd)
# The package binaries (`keyhook`): copied, and named to the tests as cargo names them.
while IFS=$'\t' read -r kind exe pkg name; do
  [ "$kind" = bin ] || continue
  mkdir -p "$abs_dir/bin/exe"
  [ "$exe" -ef "$abs_dir/bin/exe/$name" ] || cp "$exe" "$abs_dir/bin/exe/$name"
  # Beside the test executables too: where assert_cmd looks when a test runs the binary
  # with a cleared environment (tests/cli/doc_transcripts.rs's trycmd).
  cp "$abs_dir/bin/exe/$name" "$abs_dir/bin/$name"
  # Cargo's variable keeps the dash; bash cannot export that name, env can pass it.
  bin_env+=("CARGO_BIN_EXE_$name=$abs_dir/bin/exe/$name")
done <"$dir/executables.tsv"
while IFS=$'\t' read -r kind exe pkg name; do
  [ "$kind" = test ] || continue
  [ "$exe" -ef "$abs_dir/bin/$(basename "$exe")" ] || cp "$exe" "$abs_dir/bin/$(basename "$exe")"
  printf '%s\t%s\n' "$abs_dir/bin/$(basename "$exe")" "$pkg"
done <"$dir/executables.tsv" >"$dir/copies.tsv"

# The failed tests' names in libtest logs: the indented list after the last "failures:" line
# (the "... FAILED" line can be split by a test's own output on stderr). A test that runs the
# suite again in a child (backends::the_suite_passes_on_postgresql on PostgreSQL,
# doc_transcripts' pages) prints the child's lists inside its own output: those names come
# out as "NAME (inside a child run)", after the parent's.
failures() {
  for log in "$@"; do
    awk '/^failures:$/ { list = 1; delete names; k = 0; next }
         list && /^    [^ ]/ { names[k++] = $1; next }
         /^test result:/ { n++; for (j = 0; j < k; j++) found[n, j] = names[j]; count[n] = k;
                           list = 0; k = 0 }
         END { for (i = 1; i <= n; i++) for (j = 0; j < count[i]; j++)
                 print found[i, j] (i < n ? " (inside a child run)" : "") }' "$log"
  done
}

for i in $(seq 1 "$n"); do
  run="$abs_dir/run-$i"
  mkdir -p "$run"
  start=$(date +%s)
  while IFS=$'\t' read -r exe pkg; do
    name=$(basename "$exe")
    # shellcheck disable=SC2086
    (cd "$pkg" && env "${bin_env[@]}" CARGO_MANIFEST_DIR="$pkg" CARGO="$(command -v cargo)" \
      "$exe" $filter ${FLAKY_TEST_ARGS:-}) >"$run/$name.log" 2>&1
    echo "$?" >"$run/$name.rc"
  done <"$dir/copies.tsv"
  failed=$(failures "$run"/*.log | grep -vc "inside a child run" || true)
  echo "run $i/$n: $((  $(date +%s) - start ))s, $failed failed test(s)" | tee -a "$abs_dir/summary.txt"
done

# Summary: every failed test with its count, and executables that ended without a verdict.
{
  echo "== $n run(s)${filter:+ filtered by $filter}, logs in $abs_dir"
  failures "$abs_dir"/run-*/*.log | sort | uniq -c | sort -rn |
    awk '{ n = $1; $1 = ""; printf "FAILED %s time(s):%s\n", n, $0 }'
  for rc in "$abs_dir"/run-*/*.rc; do
    log=${rc%.rc}.log
    if [ "$(cat "$rc")" != 0 ] && ! grep -q '^test result: FAILED' "$log"; then
      echo "NO VERDICT (exit $(cat "$rc")): $log"
    fi
  done
} | tee -a "$abs_dir/summary.txt"
! grep -qE '^(FAILED|NO VERDICT)' "$abs_dir/summary.txt"
