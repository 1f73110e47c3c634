#!/usr/bin/env bash
# Retention: the database stops growing, and pruning does not slow requests.
#  1. Size over time: `serve --retention 5s` with 10 webhooks on a loopback nginx, fed
#     20,000 events over HTTP (200,000 deliveries) at RATE events a second (x10 deliveries;
#     RATE=0: as fast as the server takes them). Every SAMPLE seconds: the deliveries that
#     reached nginx so far, the SQLite file and its WAL, and the rows in events, deliveries
#     and attempts. At the default rate the worker keeps up, so the rows stay at what the
#     last few seconds hold, and the file stops growing once the first retention period is
#     over (pruned pages are reused): growth is measured from the end of the first quarter
#     of the run to its end. With RATE=0 a backlog of pending deliveries (never pruned)
#     builds up first and the file grows with it; growth is then measured from the largest
#     backlog on.
#  2. Latency: two copies of a database holding PRUNE_EVENTS old delivered events (x10
#     deliveries and attempts). `serve --retention 1s` prunes them all the while wrk runs;
#     the same `serve` with a 100-year retention does not prune. p99 of GET /webhooks and of
#     POST /events (an event nobody subscribes to: a write that needs the write lock), with
#     pruning against without, in the same run.
#
#   bench/retention.sh     # EVENTS=20000 RATE=250 RETENTION=5s SAMPLE=5 PRUNE_EVENTS=40000 DURATION=10s
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
EVENTS=${EVENTS:-20000}
RATE=${RATE:-250}
RETENTION=${RETENTION:-5s}
SAMPLE=${SAMPLE:-5}
PRUNE_EVENTS=${PRUNE_EVENTS:-40000}
DURATION=${DURATION:-10s}
HOOKS=10

install_missing wrk sqlite3 curl nginx:nginx-light
bin=$(keyhook_bin)

scratch; chmod 755 "$work"

nport=$(port)
cat >"$work/nginx.conf" <<NGINX
worker_processes 1;
pid $work/nginx.pid;
error_log $work/nginx-error.log;
events { worker_connections 4096; }
http {
  access_log $work/access.log;
  keepalive_requests 1000000;
  server { listen 127.0.0.1:$nport; location / { return 200 "ok"; } }
}
NGINX
nginx -c "$work/nginx.conf" -p "$work"
for _ in $(seq 50); do [ -s "$work/nginx.pid" ] && break; sleep 0.1; done
pids+=("$(cat "$work/nginx.pid")")

# A database with a key and 10 webhooks of user bench; prints the key.
setup() {
  local db=$1 key
  key=$("$bin" --db "$db" --user bench keys create --name bench --quiet)
  for i in $(seq $HOOKS); do
    "$bin" --db "$db" --user bench --allow-private-targets webhooks create \
      --url "http://127.0.0.1:$nport/hook/$i" --event post.published >"$work/unused-webhook" 2>&1
  done
  [ "$(sqlite3 "$db" 'SELECT count(*) FROM webhooks')" = "$HOOKS" ] || { echo "no webhooks in $db" >&2; exit 1; }
  echo "$key"
}

# Starts serve on $1 with the flags that follow; sets $serve_pid and $serve_url.
start_serve() {
  local db=$1; shift
  local p; p=$(port)
  "$bin" --db "$db" --allow-private-targets serve --bind "127.0.0.1:$p" "$@" 2>"$db.log" &
  serve_pid=$!; pids+=("$serve_pid")
  for _ in $(seq 100); do grep -qs listening "$db.log" && break; sleep 0.1; done
  serve_url="http://127.0.0.1:$p/api/v1"
}

size() { stat -c %s "$1" 2>/dev/null || echo 0; }
rows() { sqlite3 "$1" "PRAGMA busy_timeout = 10000; SELECT (SELECT count(*) FROM events) || ' ' || (SELECT count(*) FROM deliveries) || ' ' || (SELECT count(*) FROM delivery_attempts) || ' ' || (SELECT count(*) FROM deliveries WHERE state = 'pending')" | tail -1; }

echo "== 1. $((EVENTS * HOOKS)) deliveries with --retention $RETENTION at ${RATE} events/s (x$HOOKS): size every ${SAMPLE}s"
db=$work/size.db
key=$(setup "$db")
: >"$work/access.log"
start_serve "$db" --retention "$RETENTION" --threads 8
python3 - "$serve_url" "$key" "$EVENTS" "$RATE" >"$work/loader.log" 2>&1 <<'PY' &
import http.client, json, sys, threading, time, urllib.parse
url, key, events, rate = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
start = time.monotonic()
u = urllib.parse.urlparse(url)
left = [events]
lock = threading.Lock()
def worker():
    c = http.client.HTTPConnection(u.hostname, u.port)
    while True:
        with lock:
            if left[0] == 0:
                return
            left[0] -= 1
            n = left[0]
        if rate > 0:
            # Event number `events - n - 1` is due at that many 1/rate seconds.
            wait = start + (events - n - 1) / rate - time.monotonic()
            if wait > 0:
                time.sleep(wait)
        body = json.dumps({"event": "post.published", "data": {"n": n}})
        c.request("POST", u.path + "/events", body, {"Authorization": "Bearer " + key,
                                                      "Content-Type": "application/json"})
        r = c.getresponse(); r.read()
        if r.status != 202:
            sys.exit(f"POST /events: {r.status}")
threads = [threading.Thread(target=worker) for _ in range(4)]
for t in threads: t.start()
for t in threads: t.join()
PY
loader=$!; pids+=("$loader")
start=$(date +%s)
total=$((EVENTS * HOOKS))
printf "%6s %10s %12s %12s %9s %11s %9s %8s\n" "t(s)" "delivered" "db bytes" "wal bytes" "events" "deliveries" "attempts" "pending"
samples=$work/samples.txt; : >"$samples"
settled=0
while :; do
  sleep "$SAMPLE"
  t=$(( $(date +%s) - start ))
  sent=$(wc -l <"$work/access.log")
  read -r ev dl at pe < <(rows "$db")
  printf "%6d %10d %12d %12d %9d %11d %9d %8d\n" "$t" "$sent" "$(size "$db")" "$(size "$db-wal")" "$ev" "$dl" "$at" "$pe"
  echo "$t $sent $(size "$db") $(size "$db-wal") $ev $dl $at $pe" >>"$samples"
  # Done once everything was sent and the last pruning had two more samples to show.
  if [ "$sent" -ge "$total" ] && ! kill -0 "$loader" 2>/dev/null; then
    settled=$((settled + 1)); [ "$settled" -ge 3 ] && break
  fi
  [ "$t" -gt 1800 ] && { echo "gave up after 30 min" >&2; break; }
done
kill "$serve_pid"; wait "$serve_pid" 2>/dev/null || true

echo "== 2. request latency with and without pruning ($PRUNE_EVENTS old events x $HOOKS)"
a=$work/prune.db
key=$(setup "$a")
sqlite3 "$a" <<SQL
PRAGMA foreign_keys = ON;
BEGIN;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $PRUNE_EVENTS)
INSERT INTO events (id, user_id, event, payload, created_at)
SELECT printf('evt_%032x', i), 'bench', 'post.published',
       CAST(printf('{"id":"evt_%032x","event":"post.published","data":{"postId":"p_%d"}}', i, i) AS BLOB),
       1700000000000 + i FROM n;
INSERT INTO deliveries (id, event_id, webhook_id, state, attempts, next_attempt_at, created_at, updated_at)
SELECT 'dlv_' || printf('%012x', e.created_at) || lower(hex(randomblob(6))), e.id, w.id, 'delivered', 1, 0, e.created_at, e.created_at
FROM events e CROSS JOIN webhooks w;
INSERT INTO delivery_attempts (webhook_id, delivery_id, event_id, event, attempt, attempted_at,
   delivered, status_code, status_text, duration_ms, response_excerpt)
SELECT d.webhook_id, d.id, d.event_id, 'post.published', 1, d.updated_at, 1, 200, 'OK', 3, 'ok'
FROM deliveries d;
COMMIT;
SQL
b=$work/keep.db
sqlite3 "$a" ".backup '$b'"
old_rows=$(rows "$a")
cat >"$work/post.lua" <<'LUA'
wrk.method = "POST"
wrk.body = '{"event": "profile.deleted", "data": {"n": 1}}'
wrk.headers["Content-Type"] = "application/json"
LUA
measure() { # $1 db, $2 retention, $3 label
  start_serve "$1" --retention "$2" --threads 16
  wrk -t2 -c8 -d"$DURATION" --latency -H "Authorization: Bearer $key" "$serve_url/webhooks" >"$work/$3-get.txt"
  wrk -t1 -c2 -d"$DURATION" --latency -s "$work/post.lua" -H "Authorization: Bearer $key" "$serve_url/events" >"$work/$3-post.txt"
  kill "$serve_pid"; wait "$serve_pid" 2>/dev/null || true
}
measure "$b" 36500d keep
measure "$a" 1s prune
left=$(rows "$a")
echo "rows (events deliveries attempts pending) before: $old_rows; after the pruning run: $left"

python3 - "$work" "$total" "$samples" "$old_rows" "$left" "$RATE" <<'PY'
import re, sys
from figure import figure
work, total, samples, before, after = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
rate = int(sys.argv[6])
def wrk(path):
    t = open(path).read()
    m = re.search(r"99%\s+([\d.]+)(us|ms|s)\b", t)
    p99 = float(m.group(1)) * {"us": 0.001, "ms": 1, "s": 1000}[m.group(2)]
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", t).group(1))
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", t)
    return p99, rps, int(bad.group(1)) if bad else 0
rows = [list(map(int, l.split())) for l in open(samples) if l.strip()]
# t, delivered, db bytes, wal bytes, events, deliveries, attempts, pending. Pending
# deliveries are never pruned, so the file grows while a backlog does. Throttled, the worker
# keeps up: from the end of the first quarter (past the first retention period) the file
# should not grow. Unthrottled: from the sample with the largest backlog on.
end = rows[-1]
if rate > 0:
    during = [r for r in rows if r[1] < total] or rows
    start = during[len(during) // 4]
    what = f"from t={start[0]} s (a quarter of the sending)"
else:
    start = max(rows, key=lambda r: r[7])
    what = f"from the largest backlog (t={start[0]} s, {start[7]} pending)"
print(f"size: {end[1]}/{total} delivered; db file {start[2] / 1e6:.1f} MB {what}, "
      f"{end[2] / 1e6:.1f} MB at the end ({end[1] - start[1]} deliveries later): "
      f"growth {end[2] / start[2]:.2f}x (flat is ~1)")
print(f"most pending at once: {max(r[7] for r in rows)}; most deliveries rows at once: "
      f"{max(r[5] for r in rows)}")
wal = max(r[3] for r in rows)
at = next(r[0] for r in rows if r[3] == wal)
print(f"WAL: high-water mark {wal / 1e6:.1f} MB, reached at t={at} s and never exceeded after "
      f"(SQLite reuses the WAL from its start after a checkpoint; it does not shrink it)")
print(f"rows at the end: events {end[4]}, deliveries {end[5]}, attempts {end[6]}, pending {end[7]}")
g0, rg0, e0 = wrk(f"{work}/keep-get.txt"); g1, rg1, e1 = wrk(f"{work}/prune-get.txt")
p0, rp0, f0 = wrk(f"{work}/keep-post.txt"); p1, rp1, f1 = wrk(f"{work}/prune-post.txt")
print(f"GET /webhooks p99: without pruning {g0:.2f} ms, while pruning {g1:.2f} ms "
      f"(+{g1 - g0:.2f} ms); {rg0:.0f} vs {rg1:.0f} req/s")
print(f"POST /events p99: without pruning {p0:.2f} ms, while pruning {p1:.2f} ms "
      f"(+{p1 - p0:.2f} ms); {rp0:.0f} vs {rp1:.0f} req/s")
print(f"errors: {e0 + e1 + f0 + f1} non-2xx")
still = int(after.split()[1])
print(f"pruning ran through the whole measurement: {'yes' if still > 0 else 'NO (it finished early: raise PRUNE_EVENTS)'} "
      f"({still} deliveries still to prune at the end)")
figure("retention", f"db file growth, {total} deliveries", end[2] / start[2], "x", goal="~1 (flat)")
figure("retention", "WAL high-water mark", wal / 1e6, "MB", goal="~64 MB at most")
figure("retention", "GET /webhooks p99 while pruning", g1, "ms", "without pruning", g0, "+ a few ms at most")
figure("retention", "POST /events p99 while pruning", p1, "ms", "without pruning", p0, "+ a few ms at most")
PY
