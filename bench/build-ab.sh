#!/usr/bin/env bash
# Two commits side by side, in the same run: a clean `cargo build --release` (its wall time,
# each in a fresh target directory, so both build every dependency), the release binary's
# size, and the wall time of a warm `cargo test` (built first, then timed). Reports B/A
# ratios, since this machine's speed drifts. Needs only the Rust toolchain.
#
#   bench/build-ab.sh OLD_COMMIT NEW_COMMIT        # e.g. 34fb100 HEAD
set -euo pipefail
A=${1:?usage: bench/build-ab.sh OLD_COMMIT NEW_COMMIT}
B=${2:?usage: bench/build-ab.sh OLD_COMMIT NEW_COMMIT}
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'git -C "$repo" worktree remove --force "$work/a" 2>/dev/null; git -C "$repo" worktree remove --force "$work/b" 2>/dev/null; rm -rf "$work"' EXIT
git -C "$repo" worktree add -q --detach "$work/a" "$A"
git -C "$repo" worktree add -q --detach "$work/b" "$B"

secs() { local t0; t0=$(date +%s.%N); "$@" >/dev/null 2>&1; awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }'; }
declare -A build size tests
for side in a b; do
  cd "$work/$side"
  cargo fetch -q
  build[$side]=$(secs cargo build --release --offline)
  size[$side]=$(stat -c %s target/release/keyhook)
  cargo test --no-run -q --offline >/dev/null 2>&1
  tests[$side]=$(secs cargo test -q --offline)
done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b / a }'; }
printf '%-28s %12s %12s %8s\n' "" "A ($A)" "B ($B)" "B/A"
printf '%-28s %12.1f %12.1f %8s\n' "clean release build (s)" "${build[a]}" "${build[b]}" "$(ratio "${build[a]}" "${build[b]}")"
printf '%-28s %12d %12d %8s\n' "release binary (bytes)" "${size[a]}" "${size[b]}" "$(ratio "${size[a]}" "${size[b]}")"
printf '%-28s %12.1f %12.1f %8s\n' "warm cargo test (s)" "${tests[a]}" "${tests[b]}" "$(ratio "${tests[a]}" "${tests[b]}")"
