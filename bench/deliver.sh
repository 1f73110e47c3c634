#!/usr/bin/env bash
# Webhook delivery throughput and memory.
#  1. 1,000 events to 10 webhooks (10,000 deliveries) on a loopback nginx answering 200:
#     `keyhook deliver --once` sends them all; deliveries per second, against the rate at which
#     wrk POSTs to the same nginx location (the receiver's own ceiling) in the same run.
#  2. Memory while the outbox is large: peak RSS of `deliver --once` over 10,000 deliveries
#     against the same over 100,000 (a flat worker reads the outbox in leased batches).
#  3. Crash recovery (within 15 s): CRASH_EVENTS events to the 10 webhooks on a
#     loopback receiver that holds every request until told to answer. `keyhook deliver` is
#     killed with SIGKILL once WORKERS requests are in flight; the deliveries it had leased
#     are noted, the receiver is told to answer at once, and `deliver` is started again. The
#     figure is the time from that restart to the last of the noted deliveries being
#     delivered (their `updated_at`), and the run checks that nothing arrived twice after the
#     restart.
#
#   bench/deliver.sh        # WORKERS=16 EVENTS=1000 BIG_EVENTS=10000 CRASH_EVENTS=50
#   KEEP=/tmp/dir bench/deliver.sh   # also copies the work folder (databases, logs) there
#   BIN=/tmp/keyhook-old bench/deliver.sh   # the same against another binary
#  4. With BASE=path/to/keyhook (another build, e.g. the main a change starts from): the big
#     outbox again, this build and BASE in alternating rounds (ROUNDS, 5 by default), each on
#     a database its own build made, timed to the nanosecond: the ratio of the medians says
#     whether hmac deliveries per second fell (goal: at least 1, within the noise; one run of
#     each above is too few to tell, and `time`'s 10 ms steps are too coarse for the small one).
#   BASE=/tmp/keyhook-main bench/deliver.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
WORKERS=${WORKERS:-16}
EVENTS=${EVENTS:-1000}
BIG_EVENTS=${BIG_EVENTS:-10000}
CRASH_EVENTS=${CRASH_EVENTS:-50}
ROUNDS=${ROUNDS:-5}
HOOKS=10

install_missing nginx:nginx-light sqlite3 wrk /usr/bin/time:time
# BIN=path/to/keyhook runs another build (a baseline) instead of this tree's release build.
bin=$(keyhook_bin)

work=$(mktemp -d); chmod 755 "$work"
nginx_pid=""
pids=()
cleanup() {
  [ -n "${KEEP:-}" ] && cp -r "$work" "$KEEP"
  [ -n "$nginx_pid" ] && kill "$nginx_pid" 2>/dev/null
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
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

# A database with 10 webhooks of one user (on port $3, nginx's by default) and `$2` events
# queued for all of them (`queue_events`), made by build $4 (this one by default).
prepare() {
  local db=$1 events=$2 to=${3:-$port} b=${4:-$bin}
  for i in $(seq $HOOKS); do
    "$b" --db "$db" --user bench --allow-private-targets webhooks create \
      --url "http://127.0.0.1:$to/hook/$i" --event post.published >"$work/unused-webhook" 2>&1
  done
  queue_events "$db" "$events"
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

# 3. Crash recovery. The receiver logs "time webhook-id path" per request and holds it until
# $work/release exists, then answers 200 at once.
rport=$(port)
cat >"$work/receiver.py" <<'PY'
import http.server, os, sys, time
port, work = int(sys.argv[1]), sys.argv[2]
log = open(f"{work}/received.log", "a", buffering=1)
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        log.write(f"{time.time():.3f} {self.headers.get('webhook-id')} {self.path}\n")
        while not os.path.exists(f"{work}/release"):
            time.sleep(0.05)
        try:
            self.send_response(200); self.send_header("Content-Length", "0"); self.end_headers()
        except OSError:
            pass
    def log_message(self, *a):
        pass
class Server(http.server.ThreadingHTTPServer):
    request_queue_size = 256  # the default backlog, 5, resets a burst of connections
Server(("127.0.0.1", port), H).serve_forever()
PY
# -S: no site-packages hooks at startup (one here blocked a background interpreter).
python3 -S "$work/receiver.py" "$rport" "$work" 2>"$work/receiver.log" &
pids+=($!)
for _ in $(seq 100); do
  python3 -S -c "import socket; socket.create_connection(('127.0.0.1', $rport), 0.2)" 2>/dev/null && break
  sleep 0.1
done
crash=$work/crash.db
prepare "$crash" "$CRASH_EVENTS" "$rport"
crash_n=$((CRASH_EVENTS * HOOKS))
: >"$work/received.log"
"$bin" --db "$crash" --allow-private-targets deliver --delivery-workers "$WORKERS" 2>"$work/deliver1.log" &
first=$!; pids+=("$first")
for _ in $(seq 300); do
  [ "$(wc -l <"$work/received.log")" -ge "$WORKERS" ] && break; sleep 0.05
done
kill -9 "$first"; wait "$first" 2>/dev/null || true
in_flight=$(wc -l <"$work/received.log")
now_ms=$(( $(date +%s%N) / 1000000 ))
sqlite3 "$crash" "SELECT id FROM deliveries WHERE state = 'pending' AND lease_until > $now_ms" >"$work/leased.txt"
leased=$(wc -l <"$work/leased.txt")
touch "$work/release"
restart_ms=$(( $(date +%s%N) / 1000000 ))
"$bin" --db "$crash" --allow-private-targets deliver --delivery-workers "$WORKERS" 2>"$work/deliver2.log" &
second=$!; pids+=("$second")
for _ in $(seq 600); do
  [ "$(sqlite3 "$crash" "PRAGMA busy_timeout = 5000; SELECT count(*) FROM deliveries WHERE state = 'delivered'" | tail -1)" -ge "$crash_n" ] && break
  sleep 0.1
done
kill "$second"; wait "$second" 2>/dev/null || true
ids=$(sed "s/.*/'&'/" "$work/leased.txt" | paste -sd, -)
read -r recovered last_ms < <(sqlite3 -separator ' ' "$crash" \
  "SELECT count(*), coalesce(max(updated_at), 0) FROM deliveries WHERE state = 'delivered' AND id IN (${ids:-''})")
crash_delivered=$(sqlite3 "$crash" "SELECT count(*) FROM deliveries WHERE state = 'delivered'")
restart_s=$(python3 -c "print($restart_ms / 1000)")
after=$(awk -v t="$restart_s" '$1 >= t' "$work/received.log" | sort -k2,3 | awk '{print $2, $3}' | uniq -d | wc -l)

# 4. Side by side with BASE: deliveries/s of `deliver --once` by build $1 over BIG_EVENTS
# events to the 10 webhooks, on a database it made; checks that all were delivered.
side_rate() {
  local b=$1 db
  db=$work/side$RANDOM$RANDOM.db
  prepare "$db" "$BIG_EVENTS" "$port" "$b"
  local start end n
  start=$(date +%s%N)
  "$b" --db "$db" --allow-private-targets deliver --once --delivery-workers "$WORKERS" \
    >/dev/null 2>&1
  end=$(date +%s%N)
  n=$(sqlite3 "$db" "SELECT count(*) FROM deliveries WHERE state = 'delivered'")
  rm -f "$db" "$db"-*
  [ "$n" -eq $((BIG_EVENTS * HOOKS)) ] || { echo "only $n of $((BIG_EVENTS * HOOKS)) delivered" >&2; exit 1; }
  python3 -c "print($n / (($end - $start) / 1e9))"
}
if [ -n "${BASE:-}" ]; then
  this=(); base=()
  for _ in $(seq "$ROUNDS"); do
    base+=("$(side_rate "$BASE")")
    this+=("$(side_rate "$bin")")
  done
  med() { python3 -c 'import statistics, sys; print(statistics.median(map(float, sys.argv[1:])))' "$@"; }
  echo "$((BIG_EVENTS * HOOKS)) queued, $WORKERS senders: this ${this[*]} /s; BASE ${base[*]} /s"
  figure deliver "deliveries, $((BIG_EVENTS * HOOKS)) queued, side by side" "$(med "${this[@]}")" /s \
    "BASE ($BASE)" "$(med "${base[@]}")" "ratio >= 1 (no fall)"
fi

python3 - "$expected" "$arrived" "$delivered" "$secs" "$wrk_rps" "$rss_small" "$rss_big" \
  "$((BIG_EVENTS * HOOKS))" "$big_delivered" "$big_secs" \
  "$in_flight" "$leased" "$recovered" "$last_ms" "$restart_ms" "$crash_delivered" "$crash_n" "$after" <<'PY'
import sys
from figure import figure
(expected, arrived, delivered, secs, wrk_rps, rss_small, rss_big, big_n, big_delivered,
 big_secs, in_flight, leased, recovered, last_ms, restart_ms, crash_delivered, crash_n,
 twice) = sys.argv[1:]
in_flight, leased, recovered, crash_delivered, crash_n, twice = map(
    int, (in_flight, leased, recovered, crash_delivered, crash_n, twice))
recovery = (int(last_ms) - int(restart_ms)) / 1000
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
print(f"crash recovery: {leased} deliveries leased by the killed worker ({in_flight} in flight "
      f"at the receiver) all delivered {recovery:.1f} s after the restart (goal <= 15 s); "
      f"{recovered}/{leased} recovered, {crash_delivered}/{crash_n} delivered in all; "
      f"{twice} received twice after the restart")
figure("deliver", f"deliveries, {expected}", rate, "/s", "wrk POST to the same nginx", wrk_rps, "ratio >= 0.2")
figure("deliver", f"deliveries, {big_n} queued", big_delivered / big_secs, "/s")
figure("deliver", f"peak RSS, {big_n} queued", int(rss_big) / 1024, "MB", f"{expected} queued",
       int(rss_small) / 1024, "ratio ~1 (flat)")
figure("deliver", "recovery after kill -9", recovery, "s", goal="<= 15 s")
figure("deliver", "received twice after the restart", twice, "", goal="0")
ok = delivered == expected and arrived >= expected and big_delivered == big_n
ok = ok and leased > 0 and recovered == leased and crash_delivered == crash_n and twice == 0
ok = ok and recovery <= 15
sys.exit(0 if ok else 1)
PY
