#!/usr/bin/env bash
# Ordered delivery's throughput (CONTRACT §15 `--ordered`) and the claim's cost.
#  1. EVENTS events to one webhook on a loopback nginx answering 200, `deliver --once` with one
#     sender: deliveries per second of an ordered webhook (one at a time, a commit per
#     delivery) against an unordered one, in alternating rounds (ROUNDS, the median of each).
#     Goal: a ratio of at least 0.5.
#  2. With BASE=path/to/keyhook (another build, e.g. main's release build): EVENTS events to
#     10 plain hmac webhooks, `deliver --once` with WORKERS senders, this build against BASE
#     in alternating rounds: the claim must cost nothing extra when no webhook is ordered,
#     held or rated (goal: a ratio of at least 1, within the noise).
#
#   bench/ordered.sh                      # EVENTS=10000 ROUNDS=7 WORKERS=16
# (an unordered run of 2,000 events lasts a fifth of a second, too short for its ratio to hold
# from one run to the next on a shared machine)
#   BASE=/tmp/base-keyhook bench/ordered.sh
#   BIN=/tmp/keyhook-other bench/ordered.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
EVENTS=${EVENTS:-10000}
ROUNDS=${ROUNDS:-7}
WORKERS=${WORKERS:-16}

install_missing nginx:nginx-light sqlite3 /usr/bin/time:time
bin=$(keyhook_bin)

work=$(mktemp -d); chmod 755 "$work"
nginx_pid=""
cleanup() {
  [ -n "$nginx_pid" ] && kill "$nginx_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

port=$(port)
cat >"$work/nginx.conf" <<NGINX
worker_processes auto;
pid $work/nginx.pid;
error_log $work/nginx-error.log;
events { worker_connections 4096; }
http {
  access_log off;
  keepalive_requests 1000000;
  server {
    listen 127.0.0.1:$port;
    location / { return 200 "ok"; }
  }
}
NGINX
nginx -c "$work/nginx.conf" -p "$work"
for _ in $(seq 50); do [ -s "$work/nginx.pid" ] && break; sleep 0.1; done
nginx_pid=$(cat "$work/nginx.pid")

# A database made by build $1 at $2 with $3 webhooks (extra `webhooks create` flags $4) and
# EVENTS events queued for each as keyhook queues them: an ordered webhook's deliveries
# parked (keyhook_core::parked_sql!), the claim takes each as the head of its queue.
prepare() {
  local b=$1 db=$2 hooks=$3 flags=$4
  for i in $(seq "$hooks"); do
    # shellcheck disable=SC2086
    "$b" --db "$db" --user bench --allow-private-targets webhooks create \
      --url "http://127.0.0.1:$port/hook/$i" --event post.published $flags >/dev/null
  done
  local parked=0
  if sqlite3 "$db" "SELECT ordered FROM webhooks LIMIT 0" >/dev/null 2>&1; then
    parked="CASE WHEN w.ordered = 1 THEN 9223372036854775807 ELSE 0 END"
  fi
  sqlite3 "$db" <<SQL
PRAGMA foreign_keys = ON;
BEGIN;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $EVENTS)
INSERT INTO events (id, user_id, event, payload, created_at)
SELECT printf('evt_%032x', i), 'bench', 'post.published',
       CAST(printf('{"id":"evt_%032x","event":"post.published","createdAt":"2026-11-22T00:00:00.000Z","data":{"postId":"p_%d"}}', i, i) AS BLOB),
       1700000000000
FROM n;
INSERT INTO deliveries (id, event_id, webhook_id, state, attempts, next_attempt_at, created_at, updated_at)
SELECT printf('dlv_%012x', e.rowid) || lower(hex(randomblob(6))), e.id, w.id, 'pending', 0, $parked, 0, 0
FROM events e CROSS JOIN webhooks w ORDER BY w.id, e.rowid;
COMMIT;
SQL
}

# deliveries/s of `deliver --once` by build $1 on a fresh database ($2 hooks, flags $3,
# senders $4); checks that every delivery was delivered.
rate() {
  local b=$1 hooks=$2 flags=$3 senders=$4
  local db
  db=$work/r$RANDOM$RANDOM.db
  prepare "$b" "$db" "$hooks" "$flags"
  local start end
  start=$(date +%s%N)
  "$b" --db "$db" --allow-private-targets deliver --once --delivery-workers "$senders" 2>/dev/null
  end=$(date +%s%N)
  local n
  n=$(sqlite3 "$db" "SELECT count(*) FROM deliveries WHERE state = 'delivered'")
  [ "$n" -eq $((EVENTS * hooks)) ] || { echo "only $n of $((EVENTS * hooks)) delivered" >&2; exit 1; }
  rm -f "$db" "$db"-*
  python3 -c "print($n / (($end - $start) / 1e9))"
}

median() { python3 -c 'import statistics, sys; print(statistics.median(map(float, sys.argv[1:])))' "$@"; }

ordered=(); unordered=()
for _ in $(seq "$ROUNDS"); do
  unordered+=("$(rate "$bin" 1 "" 1)")
  ordered+=("$(rate "$bin" 1 "--ordered" 1)")
done
o=$(median "${ordered[@]}"); u=$(median "${unordered[@]}")
echo "one webhook, $EVENTS events, one sender: ordered ${ordered[*]} /s; unordered ${unordered[*]} /s"
figure ordered "deliveries, ordered webhook, 1 sender" "$o" /s "unordered webhook, 1 sender" "$u" "ratio >= 0.5"

if [ -n "${BASE:-}" ]; then
  this=(); base=()
  for _ in $(seq "$ROUNDS"); do
    base+=("$(rate "$BASE" 10 "" "$WORKERS")")
    this+=("$(rate "$bin" 10 "" "$WORKERS")")
  done
  t=$(median "${this[@]}"); b=$(median "${base[@]}")
  echo "10 plain webhooks, $((EVENTS * 10)) deliveries, $WORKERS senders: this ${this[*]} /s; BASE ${base[*]} /s"
  figure ordered "deliveries, 10 plain hmac webhooks, $WORKERS senders" "$t" /s "BASE ($BASE)" "$b" "ratio >= 1 (no fall)"
fi
