#!/usr/bin/env bash
# What the developer portal adds to an /api/v1 request (the goal: nothing
# measurable on /api/v1's own figures). The portal's only step on such a request is a comparison of the
# path's prefix (`portal::is_portal`, in keyhook-http's `handle`); this compares this tree's
# serve with the same tree built with the feature `keyhook-http/bench-no-portal`, whose serve
# leaves that step out (and so does not route /portal; the feature exists for this script
# only). Two figures, both builds in the same run:
#   1. instructions a request under callgrind (bench/instructions.sh with BASE: a count that a
#      shared machine's load does not move; this tree's build is counted twice, so the
#      difference is set against the count's own run-to-run noise);
#   2. requests/s under wrk in alternating rounds (bench/serve-ab.sh, wrk on one thread).
#
#   bench/portal-routing.sh     # ROUNDS=10 DURATION=5s WRK_THREADS=1 REQUESTS=2000 WARM=200 KEYS=20000
#   NO_PORTAL=path BIN=path bench/portal-routing.sh    # builds made before instead of building
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh

without=${NO_PORTAL:-}
if [ -z "$without" ]; then
  # Built first: this tree's own build (next) overwrites the binary, so it is copied aside.
  cargo build "$(profile_flag)" --quiet --bin keyhook --features keyhook-http/bench-no-portal
  mkdir -p target/bench
  without=$PWD/target/bench/keyhook-no-portal-$(profile_dir)
  cp "target/$(profile_dir)/keyhook" "$without"
fi
with=$(keyhook_bin)

echo "portal-routing: $with (the portal routed) against $without (not routed)"
REQUESTS=${REQUESTS:-2000} BIN="$with" BASE="$without" BASE_NAME="serve without the portal's routing" \
  AGAIN=1 INSTR_BENCH=portal-routing bash bench/instructions.sh
ROUNDS=${ROUNDS:-10} WRK_THREADS=${WRK_THREADS:-1} AB_BENCH=portal-routing \
  AB_METRIC="GET /api-keys, the portal routed" AB_BASELINE="without the portal's routing" \
  bash bench/serve-ab.sh "$without" "$with"
