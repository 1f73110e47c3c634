#!/usr/bin/env bash
# Webhook delivery throughput and memory.
#  1. 1,000 events to 10 webhooks (10,000 deliveries) on a loopback nginx answering 200:
#     `keyhook deliver --once` sends them all; deliveries per second, against the rate at which
#     wrk POSTs to the same nginx location (the receiver's own ceiling) in the same run.
#  2. Memory while the outbox is large: peak RSS of `deliver --once` over 10,000 deliveries
#     against the same over 100,000 (a flat worker reads the outbox in leased batches).
#
#   bench/deliver.sh        # WORKERS=16 EVENTS=1000 BIG_EVENTS=10000 are the defaults
set -euo pipefail
cd "$(dirname "$0")/.."
WORKERS=${WORKERS:-16}
EVENTS=${EVENTS:-1000}
BIG_EVENTS=${BIG_EVENTS:-10000}
HOOKS=10

need=()
command -v nginx >/dev/null || need+=(nginx-light)
command -v sqlite3 >/dev/null || need+=(sqlite3)
command -v wrk >/dev/null || need+=(wrk)
[ -x /usr/bin/time ] || need+=(time)
if [ ${#need[@]} -gt 0 ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
cargo build --release --quiet
bin=$PWD/target/release/keyhook

work=$(mktemp -d); chmod 755 "$work"
nginx_pid=""
cleanup() { [ -n "$nginx_pid" ] && kill "$nginx_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat >"$work/nginx.conf" <<NGINX
worker_processes auto;
pid $work/nginx.pid;
error_log $work/nginx-error.log;
events { worker_connections 4096; }
http {
  access_log $work/access.log;
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

# A database with 10 webhooks of one user and `$1` events queued for all of them. Events are
# written with sqlite3 in one transaction (a process per event would dominate the setup).
prepare() {
  local db=$1 events=$2
  for i in $(seq $HOOKS); do
    "$bin" --db "$db" --user bench --allow-private-targets webhooks create \
      --url "http://127.0.0.1:$port/hook/$i" --event post.published >"$work/unused-webhook" 2>&1
  done
  sqlite3 "$db" <<SQL
PRAGMA foreign_keys = ON;
BEGIN;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $events)
INSERT INTO events (id, user_id, event, payload, created_at)
SELECT printf('evt_%032x', i), 'bench', 'post.published',
       CAST(printf('{"id":"evt_%032x","event":"post.published","createdAt":"2026-11-22T00:00:00.000Z","data":{"postId":"p_%d"}}', i, i) AS BLOB),
       1700000000000
FROM n;
INSERT INTO deliveries (id, event_id, webhook_id, state, attempts, next_attempt_at, created_at, updated_at)
SELECT 'dlv_' || lower(hex(randomblob(12))), e.id, w.id, 'pending', 0, 0, 0, 0
FROM events e CROSS JOIN webhooks w;
COMMIT;
SQL
}

# Runs `deliver --once` on $1; prints "seconds peak_rss_kb".
deliver() {
  /usr/bin/time -f "%e %M" "$bin" --db "$1" --allow-private-targets deliver --once \
    --delivery-workers "$WORKERS" 2>&1 >/dev/null | tail -1
}

prepare "$work/small.db" "$EVENTS"
: >"$work/access.log"
read -r secs rss_small < <(deliver "$work/small.db")
arrived=$(grep -c ' 200 ' "$work/access.log" || true)
delivered=$(sqlite3 "$work/small.db" "SELECT count(*) FROM deliveries WHERE state = 'delivered'")
expected=$((EVENTS * HOOKS))

body='{"id":"evt_00000000000000000000000000000001","event":"post.published","createdAt":"2026-11-22T00:00:00.000Z","data":{"postId":"p_1"}}'
cat >"$work/post.lua" <<LUA
wrk.method = "POST"
wrk.body = '$body'
wrk.headers["Content-Type"] = "application/json"
LUA
wrk_rps=$(wrk -t2 -c"$WORKERS" -d5s -s "$work/post.lua" "http://127.0.0.1:$port/hook/1" | awk '/Requests\/sec/ {print $2}')

prepare "$work/big.db" "$BIG_EVENTS"
read -r big_secs rss_big < <(deliver "$work/big.db")
big_delivered=$(sqlite3 "$work/big.db" "SELECT count(*) FROM deliveries WHERE state = 'delivered'")

python3 - "$expected" "$arrived" "$delivered" "$secs" "$wrk_rps" "$rss_small" "$rss_big" \
  "$((BIG_EVENTS * HOOKS))" "$big_delivered" "$big_secs" <<'PY'
import sys
(expected, arrived, delivered, secs, wrk_rps, rss_small, rss_big, big_n, big_delivered,
 big_secs) = sys.argv[1:]
expected, arrived, delivered, big_n, big_delivered = map(int, (expected, arrived, delivered, big_n, big_delivered))
secs, wrk_rps, big_secs = float(secs), float(wrk_rps), float(big_secs)
rate = delivered / secs
print(f"deliveries: {delivered}/{expected} delivered, {arrived} arrived at nginx, in {secs:.2f} s")
print(f"rate: {rate:.0f} deliveries/s (target >= 2000); nginx's own POST ceiling (wrk): "
      f"{wrk_rps:.0f} req/s; ratio {rate / wrk_rps:.2f}")
print(f"big outbox: {big_delivered}/{big_n} delivered in {big_secs:.2f} s "
      f"({big_delivered / big_secs:.0f}/s)")
print(f"peak RSS: {int(rss_small) / 1024:.1f} MB for {expected} deliveries, "
      f"{int(rss_big) / 1024:.1f} MB for {big_n} (ratio {int(rss_big) / int(rss_small):.2f}, flat is ~1)")
ok = delivered == expected and arrived >= expected and big_delivered == big_n
sys.exit(0 if ok else 1)
PY
