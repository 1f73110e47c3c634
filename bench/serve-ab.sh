#!/usr/bin/env bash
# Two keyhook binaries on the serve hot path, in the same run: both serve one database (the
# caller's key and 100,000 other users' keys, as bench/serve.sh), and wrk (2 threads, 32
# connections) drives an authenticated GET /api/v1/api-keys against each in turn, ROUNDS
# times, so that the machine's drift falls on both alike. Prints each round and the ratio of
# the mean request rates (B/A): the check for "no slower than N%" rules. Loopback only.
#
#   bench/serve-ab.sh A_BINARY B_BINARY          # ROUNDS=4 DURATION=5s by default
set -euo pipefail
A=${1:?usage: bench/serve-ab.sh A_BINARY B_BINARY}
B=${2:?usage: bench/serve-ab.sh A_BINARY B_BINARY}
ROUNDS=${ROUNDS:-4}
DURATION=${DURATION:-5s}

. "$(dirname "$0")/lib.sh"
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
    out=$(wrk -t2 -c32 -d"$DURATION" --latency -H "Authorization: Bearer $key" "http://127.0.0.1:$p/api/v1/api-keys")
    rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
    p99=$(echo "$out" | awk '$1 == "99%" {print $2}')
    echo "round $r $side $rps req/s p99 $p99"
  done
done | tee "$work/rounds.txt"
awk '{ s[$3] += $4; n[$3]++ }
     END { a = s["A"] / n["A"]; b = s["B"] / n["B"];
           printf "A %.0f req/s, B %.0f req/s (means of %d rounds); B/A %.3f\n", a, b, n["A"], b / a }' \
  "$work/rounds.txt"
