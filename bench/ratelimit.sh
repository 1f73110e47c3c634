#!/usr/bin/env bash
# serve --rate-limit's memory bound: a million distinct keys and a million distinct client
# addresses through keyhook's limiter, against governor's stock keyed limiter on the same keys
# (benches/ratelimit_memory.rs; each in a process of its own, RSS growth). Then the same with
# a quarter of the keys: the bounded figure must not grow with N.
#
#   bench/ratelimit.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo bench --quiet --bench ratelimit_memory
KEYHOOK_BENCH_N=250000 cargo bench --quiet --bench ratelimit_memory | tail -1
