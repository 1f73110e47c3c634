#!/usr/bin/env bash
# The cost of serve's log lines: the CPU time (user + sys, from /proc) a serve process spends
# per request, for binary A, binary B with --log-format text, and B with --log-format json,
# each serving the same database, with wrk (2 threads, 32 connections) driving an
# authenticated GET /api/v1/api-keys (one access line each) at each in turn, ROUNDS times.
# CPU per request, unlike req/s, is not moved much by other load on the machine. Loopback only.
#
#   bench/logs-cpu.sh A_BINARY B_BINARY          # ROUNDS=3 DURATION=4s by default
set -euo pipefail
A=${1:?usage: bench/logs-cpu.sh A_BINARY B_BINARY}
B=${2:?usage: bench/logs-cpu.sh A_BINARY B_BINARY}
ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-4s}
. "$(dirname "$0")/lib.sh"
install_missing wrk

scratch
db=$work/k.db
key=$("$A" --db "$db" --user bench keys create --name bench --quiet)

declare -A pid at
start() { # name binary [serve arguments...]
  local name=$1 bin=$2 p; shift 2
  p=$(port)
  "$bin" --db "$db" serve --bind "127.0.0.1:$p" "$@" 2>"$work/$name.log" &
  pids+=($!); pid[$name]=$!; at[$name]=$p
  listening "$work/$name.log" || true
}
start A "$A"
start B-text "$B" --log-format text
start B-json "$B" --log-format json
tick=$(getconf CLK_TCK)
cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }
for r in $(seq "$ROUNDS"); do
  for name in A B-text B-json; do
    c0=$(cpu "${pid[$name]}")
    n=$(wrk -t2 -c32 -d"$DURATION" -H "Authorization: Bearer $key" \
          "http://127.0.0.1:${at[$name]}/api/v1/api-keys" | awk '/requests in/ {print $1}')
    c1=$(cpu "${pid[$name]}")
    awk -v r="$r" -v s="$name" -v n="$n" -v c=$((c1 - c0)) -v t="$tick" \
      'BEGIN { printf "round %s %-7s %8d requests %7.1f us CPU/request\n", r, s, n, c / t * 1e6 / n }'
  done
done | tee "$work/rounds.txt"
awk '{ s[$3] += $6; n[$3]++ }
     END { a = s["A"] / n["A"]; t = s["B-text"] / n["B-text"]; j = s["B-json"] / n["B-json"];
           printf "us CPU/request: A %.1f, B text %.1f (B/A %.3f), B json %.1f (json/text %.3f)\n",
                  a, t, t / a, j, j / t }' "$work/rounds.txt"
