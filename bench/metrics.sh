#!/usr/bin/env bash
# /metrics on the serve hot path (issue 13, "Health and metrics"), in the same run:
#
# 1. metrics on against metrics off: this tree's release binary (every request recorded)
#    against BASE, the binary of the commit before metrics existed (default: the parent of
#    the commit that added crates/keyhook-http/src/metrics.rs, built here and kept in
#    target/bench-base/), through bench/serve-ab.sh (wrk, 32
#    connections, GET /api/v1/api-keys, rounds alternated). Target: B/A >= 0.90.
# 2. a scrape loop does not disturb the API: 32 wrk connections on this tree's binary, with
#    and without a loop scraping /metrics 10 times a second, rounds alternated; the p99 of
#    each. Target: p99 with scraping <= 1.10 x p99 without (or within 0.5 ms).
#
#   bench/metrics.sh                 # ROUNDS=4 DURATION=5s
#   BASE=/path/to/keyhook bench/metrics.sh
# Loopback only.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-4}
DURATION=${DURATION:-5s}
need=()
for tool in wrk sqlite3 curl; do command -v "$tool" >/dev/null || need+=("$tool"); done
if [ ${#need[@]} -gt 0 ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
if [ -z "${BASE:-}" ]; then
  # The parent of the commit that added the metrics (a merge-base with main stops being
  # that once this branch is merged).
  base_commit=$(git rev-parse "$(git log --diff-filter=A --format=%H -- crates/keyhook-http/src/metrics.rs | tail -1)^")
  mkdir -p target/bench-base
  BASE=$PWD/target/bench-base/keyhook-$base_commit
  if [ ! -x "$BASE" ]; then
    tree=$(mktemp -d)
    git worktree add -q --detach "$tree/src" "$base_commit"
    # The same target directory: dependencies are reused, only keyhook's crates rebuild
    # (this tree's binary is built again below).
    (cd "$tree/src" && cargo build --release --quiet --target-dir "$OLDPWD/target")
    cp target/release/keyhook "$BASE"
    git worktree remove --force "$tree/src"
    rm -rf "$tree"
  fi
fi

# The base build left its own builds of keyhook's crates in target/: make cargo see this
# tree's sources as changed.
touch crates/*/src/lib.rs src/main.rs
cargo build --release --quiet
bin=$PWD/target/release/keyhook

echo "-- metrics off (A: $BASE) against metrics on (B: this tree)"
ab=$(ROUNDS=$ROUNDS DURATION=$DURATION bash bench/serve-ab.sh "$BASE" "$bin")
echo "$ab"
echo "$ab" | tail -1 | awk '{ printf "metrics on/off throughput ratio %s (target >= 0.90)\n", $NF }'

echo "-- p99 of 32 clients with and without a /metrics scrape loop (10/s)"
work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
db=$work/k.db
key=$("$bin" --db "$db" --user bench keys create --name bench --quiet)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$bin" --db "$db" serve --bind "127.0.0.1:$port" 2>"$work/serve.log" &
pids+=($!)
for _ in $(seq 50); do grep -q listening "$work/serve.log" && break; sleep 0.1; done
ms() { awk '{ v = $1; if (v ~ /us$/) { sub(/us$/, "", v); v /= 1000 } else if (v ~ /ms$/) { sub(/ms$/, "", v) } else if (v ~ /s$/) { sub(/s$/, "", v); v *= 1000 } print v }'; }
for r in $(seq "$ROUNDS"); do
  for side in quiet scraped; do
    scraper=
    if [ "$side" = scraped ]; then
      ( while :; do curl -s -o /dev/null "http://127.0.0.1:$port/metrics"; sleep 0.1; done ) &
      scraper=$!
    fi
    out=$(wrk -t2 -c32 -d"$DURATION" --latency -H "Authorization: Bearer $key" "http://127.0.0.1:$port/api/v1/api-keys")
    [ -n "$scraper" ] && { kill "$scraper"; wait "$scraper" 2>/dev/null || true; }
    p99=$(echo "$out" | awk '$1 == "99%" {print $2}' | ms)
    rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
    echo "round $r $side p99 $p99 ms $rps req/s"
  done
done | tee "$work/rounds.txt"
scrapes=$(curl -s "http://127.0.0.1:$port/metrics" | awk -F'} ' '/^keyhook_http_requests_total\{route="\/metrics",status="200"\}/ {print $2}')
awk -v scrapes="${scrapes:-0}" '{ p[$3] += $5; n[$3]++ }
     END { q = p["quiet"] / n["quiet"]; s = p["scraped"] / n["scraped"];
           printf "p99 without scraping %.2f ms, with a scrape loop %.2f ms (means of %d rounds, %d scrapes); ratio %.2f (target <= 1.10 or within 0.5 ms)\n", q, s, n["quiet"], scrapes, s / q }' "$work/rounds.txt"
