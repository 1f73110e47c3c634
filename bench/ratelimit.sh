#!/usr/bin/env bash
# serve --rate-limit's memory bound: a million distinct keys and a million distinct client
# addresses through keyhook's limiter, against governor's stock keyed limiter on the same keys
# (benches/ratelimit_memory.rs; each in a process of its own, RSS growth). Then the same with
# a quarter of the keys: the bounded figure must not grow with N.
#
#   bench/ratelimit.sh
#   KEYHOOK_BENCH_N=20000 bench/ratelimit.sh    # fewer keys (the second run: a quarter)
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
n=${KEYHOOK_BENCH_N:-1000000}
KEYHOOK_BENCH_N=$n bench_cargo ratelimit_memory
KEYHOOK_BENCH_N=$((n / 4)) bench_cargo ratelimit_memory | tail -2
