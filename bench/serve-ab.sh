#!/usr/bin/env bash
# Two keyhook binaries on the serve hot path, in the same run: both serve one database (the
# caller's key and 100,000 other users' keys, as bench/serve.sh), and wrk (2 threads, 32
# connections; WRK_THREADS to change the threads) drives an authenticated GET /api/v1/api-keys against each in turn, ROUNDS
# times, so that the machine's drift falls on both alike. Prints each round and the ratio of
# the mean request rates (B/A): the check for "no slower than N%" rules. Loopback only.
#
#   bench/serve-ab.sh A_BINARY B_BINARY          # ROUNDS=4 DURATION=5s by default
#   BASE=A_BINARY bench/serve-ab.sh              # B: this tree's release build
# AB_BENCH, AB_METRIC, AB_BASELINE and AB_GOAL name the figure (bench/metrics.sh sets them).
set -euo pipefail
A=${1:-${BASE:?usage: bench/serve-ab.sh A_BINARY B_BINARY, or BASE=A_BINARY bench/serve-ab.sh}}
A=$(realpath "$A")
B=${2:-}; [ -z "$B" ] || B=$(realpath "$B")
cd "$(dirname "$0")/.."
. bench/lib.sh
[ -n "$B" ] || B=$(keyhook_bin)
ROUNDS=${ROUNDS:-4}
DURATION=${DURATION:-5s}
WRK_THREADS=${WRK_THREADS:-2}

install_missing wrk sqlite3

scratch
db=$work/k.db
key=$("$A" --db "$db" --user bench keys create --name bench --quiet)
seed_other_keys "$db" 100000

start() {
  "$1" --db "$db" serve --bind "127.0.0.1:$2" 2>"$work/$2.log" &
  pids+=($!)
  listening "$work/$2.log" || true
}
pa=$(port); start "$A" "$pa"
pb=$(port); start "$B" "$pb"
for r in $(seq "$ROUNDS"); do
  for side in A B; do
    p=$pa; [ "$side" = B ] && p=$pb
    out=$(wrk -t"$WRK_THREADS" -c32 -d"$DURATION" --latency -H "Authorization: Bearer $key" "http://127.0.0.1:$p/api/v1/api-keys")
    rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
    p99=$(echo "$out" | awk '$1 == "99%" {print $2}')
    echo "round $r $side $rps req/s p99 $p99"
  done
done | tee "$work/rounds.txt"
read -r a b < <(awk '{ s[$3] += $4; n[$3]++ } END { print s["A"] / n["A"], s["B"] / n["B"] }' "$work/rounds.txt")
echo "A $a req/s, B $b req/s (means of $ROUNDS rounds)"
figure "${AB_BENCH:-serve-ab}" "${AB_METRIC:-GET /api-keys, B}" "$b" req/s "${AB_BASELINE:-A}" "$a" "${AB_GOAL:-}"
