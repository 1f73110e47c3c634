#!/usr/bin/env bash
# Replay is bounded: one `webhooks replay` is one INSERT ...
# SELECT in one write transaction, which stops at 10,001 rows, so it holds SQLite's write lock
# for as long as 10,000 inserts take however large the window is, and a window with more than
# 10,000 events is refused with nothing queued.
#
# A keyhook database gets one webhook and EVENTS events (default 200,000), one every 100 ms
# back from now, written by the sqlite3 shell. Timed, each the median of RUNS (5) runs, in
# the same run:
#   baseline   `webhooks show ID`: a process that opens the database and reads (no write);
#   one        `webhooks replay ID --event EVT`: one delivery queued;
#   cap        `webhooks replay ID --since 999s`: 9,990 deliveries queued;
#   refused    `webhooks replay ID --since 1d`: the whole window, over the cap, refused (exit 2).
# Reported as milliseconds and as ratios to the baseline. `refused / cap` near 1 or below
# says that a huge window costs no more than the cap does.
#
#   bench/replay.sh
#   EVENTS=1000000 bench/replay.sh
#   BIN=target/debug/keyhook bench/replay.sh     # without building the release binary
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
EVENTS=${EVENTS:-200000}
RUNS=${RUNS:-5}
install_missing sqlite3
bin=$(keyhook_bin)
work=$(mktemp -d "${TMPDIR:-/tmp}/keyhook-replay.XXXXXX")
trap 'rm -rf "$work"' EXIT
db=$work/k.db
kh() { "$bin" --db "$db" --allow-private-targets "$@"; }

id=$(kh --json webhooks create --url http://127.0.0.1:9/hook --event post.published |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["data"]["id"])')
now=$(python3 -c 'import time; print(int(time.time() * 1000))')
sqlite3 "$db" <<SQL
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $EVENTS)
INSERT INTO events (id, user_id, event, payload, created_at)
SELECT printf('evt_%032x', i), 'default', 'post.published', CAST('{}' AS BLOB), $now - i * 100
FROM n;
SQL
evt=$(printf 'evt_%032x' 1)

# median_ms CMD...: the median wall time of RUNS runs, in milliseconds (any exit status).
median_ms() {
  local times=()
  for _ in $(seq "$RUNS"); do
    local t0 t1
    t0=$(date +%s%N)
    "$@" >/dev/null 2>&1 || true
    t1=$(date +%s%N)
    times+=($(((t1 - t0) / 1000000)))
  done
  printf '%s\n' "${times[@]}" | sort -n | sed -n "$(((RUNS + 1) / 2))p"
}

queued=$(kh --json webhooks replay "$id" --since 999s | python3 -c 'import json,sys; print(json.load(sys.stdin)["data"]["queued"])')
refused=$(kh webhooks replay "$id" --since 1d 2>&1 >/dev/null || true)
base=$(median_ms kh webhooks show "$id")
one=$(median_ms kh webhooks replay "$id" --event "$evt")
cap=$(median_ms kh webhooks replay "$id" --since 999s)
over=$(median_ms kh webhooks replay "$id" --since 1d)
echo "events in the database: $EVENTS; --since 999s queues $queued"
echo "refused: $refused"
printf '%-10s %8s %8s\n' what ms ratio
for row in "baseline $base" "one $one" "cap $cap" "refused $over"; do
  set -- $row
  python3 -c "import sys; n, v, b = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]); print(f'{n:<10} {v:>8} {v / max(b, 1):>8.2f}')" "$1" "$2" "$base"
done
python3 -c "import sys; print(f'refused / cap: {int(sys.argv[1]) / max(int(sys.argv[2]), 1):.2f}')" "$over" "$cap"
figure replay "webhooks replay, one event" "$one" ms "webhooks show" "$base"
figure replay "webhooks replay at the cap ($queued queued)" "$cap" ms "webhooks show" "$base"
figure replay "webhooks replay over the cap, refused" "$over" ms "at the cap" "$cap" "ratio <= 1"
