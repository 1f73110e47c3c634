#!/usr/bin/env bash
# keyhook on PostgreSQL, on a throwaway cluster of its own (loopback only, torn down on exit).
#  1. Authenticated GET /api/v1/api-keys under wrk (2 threads, 32 connections, as
#     bench/serve.sh), `serve` on PostgreSQL against `serve` on SQLite in the same run,
#     alternating rounds (as bench/serve-ab.sh); both databases hold the caller's key and
#     100,000 keys of other users. Prints the request-rate ratio PG/SQLite (goal >= 0.4) and
#     PostgreSQL's p99 (goal <= 5 ms). The same rounds run pgbench with the one statement such a
#     request makes (the key by its hash with its user's list; the goal: one round trip): what
#     PostgreSQL answers one statement a request (serve batches the requests waiting into one
#     statement, so it can pass this). Each wrk round also prints the CPU per
#     request of serve and of PostgreSQL's processes (/proc ticks over wrk's request count):
#     figures that move less with the machine's load. Then the same over the server's Unix
#     socket (`--db postgres://USER@/DB?host=SOCKET_DIR`, pgbench -h SOCKET_DIR): the figure of
#     an instance on the database's own machine; TCP stays the headline, since instances on
#     several machines (what PostgreSQL is for here) reach it over TCP. A binary that cannot
#     name a socket (an older build) gets no socket rounds.
#  2. Three `serve` instances on one PostgreSQL database, and a fan-out of 1,000 events to 10
#     webhooks (10,000 deliveries) to a loopback nginx answering 200, queued in one
#     transaction while they run: every delivery arrives once, deliveries/s from the commit
#     to the last one settled (goal >= 2,000/s); the baseline, in the same run, is the same
#     fan-out by one `serve` on a SQLite file.
#
#   bench/pg.sh        # ROUNDS=4 DURATION=5s KEYS=100000 EVENTS=1000 INSTANCES=3 WORKERS=16
#   BIN=/tmp/keyhook-old bench/pg.sh   # another binary instead of this tree's release build
#   PGPORT=55660 bench/pg.sh           # the cluster's port (a free one by default)
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
ROUNDS=${ROUNDS:-4}
DURATION=${DURATION:-5s}
KEYS=${KEYS:-100000}
EVENTS=${EVENTS:-1000}
INSTANCES=${INSTANCES:-3}
WORKERS=${WORKERS:-16}
HOOKS=10

install_missing wrk nginx:nginx-light sqlite3 curl
bin=$(keyhook_bin)
# The cluster's scratch (bench/lib.sh; initdb is not on PATH: the package is installed when
# no version of it is there).
pg_scratch

# The cluster: its own directory and port, 127.0.0.1 only, run by the postgres user when root.
pg_start "${PGPORT:-$(port)}"
psql -d postgres -c 'CREATE DATABASE serve' -c 'CREATE DATABASE fanout'
pg_url() { echo "postgres://keyhook:$password@127.0.0.1:$pgport/$1"; }

# 1. serve: the same caller and 100,000 other users' keys in both databases.
db=$work/k.db
key=$("$bin" --db "$db" --user bench keys create --name bench --quiet)
pg_key=$("$bin" --db "$(pg_url serve)" --user bench keys create --name bench --quiet)
seed_other_keys "$db" "$KEYS"
psql -d serve <<SQL
INSERT INTO users (id, created_at) SELECT 'user-' || i, 0 FROM generate_series(1, 1000) i;
INSERT INTO api_keys (id, user_id, name, key_hash, key_prefix, permission, full_access,
                      profile_ids, created_at)
SELECT md5(random()::text), 'user-' || (i % 1000 + 1), 'key ' || i,
       md5(random()::text) || md5(random()::text), 'kp_' || left(md5(random()::text), 8),
       'readwrite', true, '[]', 1700000000000 + i
FROM generate_series(1, $KEYS) i;
ANALYZE;
SQL

start() { # name, --db, port, more args
  "$bin" --db "$2" "${@:4}" serve --bind "127.0.0.1:$3" 2>"$work/$1.log" &
  pids+=($!)
  listening "$work/$1.log" 100 && return
  [ -n "${MAY_FAIL:-}" ] && return 1
  echo "bench/pg.sh: $1 did not start:" >&2; cat "$work/$1.log" >&2; exit 1
}
sport=$(port); start sqlite "$db" "$sport"; spid=${pids[-1]}
pport=$(port); start postgres "$(pg_url serve)" "$pport"; ppid_=${pids[-1]}
uport=$(port)
curl -sf -H "Authorization: Bearer $key" "http://127.0.0.1:$sport/api/v1/api-keys" >/dev/null
curl -sf -H "Authorization: Bearer $pg_key" "http://127.0.0.1:$pport/api/v1/api-keys" >/dev/null
sides="sqlite postgres postgres-unix"
if ! MAY_FAIL=1 start postgres-unix "postgres://keyhook@/serve?host=$work/pg&port=$pgport" "$uport" ||
  ! curl -sf -H "Authorization: Bearer $pg_key" "http://127.0.0.1:$uport/api/v1/api-keys" >/dev/null; then
  echo "this binary cannot reach PostgreSQL through its Unix socket: TCP rounds only"
  sides="sqlite postgres"
fi
upid=${pids[-1]}
# CPU per request, which moves less with the machine's load than requests/s: the clock ticks
# (utime + stime) a round took in the serve process, and in all of PostgreSQL's processes
# (its backends, where the statements run), over the requests wrk counted.
hz=$(getconf CLK_TCK)
# (`ticks`/`spent` in lib.sh: a process that ended meanwhile, an autovacuum worker, is left out.)
postgres_pids() { pgrep -P "$(head -1 "$work/pg/data/postmaster.pid")" | paste -sd' '; }
# Each pool at its size first (a connection made during a round would be missed).
for p in $pport $uport; do
  wrk -t2 -c32 -d1s -H "Authorization: Bearer $pg_key" "http://127.0.0.1:$p/api/v1/api-keys" >/dev/null 2>&1 || true
done
# What PostgreSQL answers one statement a request on this machine: pgbench (a C client,
# prepared statements, the same 32 connections) running the one statement an authenticated
# GET /api-keys makes (keyhook-postgres's BY_HASH_WITH_ITS_USERS_KEYS: the keys of the user of
# the key by its hash, that key marked among them; the hash a parameter, as serve's), with
# nothing else. No server that asks one statement a request, each in a round trip of its
# own, can answer more requests per second than this, whatever it caches short of the key
# itself; serve's pipeline sends the requests waiting together as one statement (a batch).
pg_hash=$(printf '%s' "$pg_key" | sha256sum | cut -d' ' -f1)
# The columns keyhook-postgres reads (KEY_COLUMNS): the uses left live in the key's budget.
cols="id, user_id, key_prefix, name, permission, full_access, profile_ids, last_used_at, expires_at, created_at, rate_limit, (SELECT remaining_uses FROM key_budgets WHERE key_budgets.id = api_keys.budget_id) AS remaining_uses, budget_id"
cat >"$work/request.sql" <<SQL
SELECT $cols, key_hash = :hash FROM api_keys WHERE user_id = (SELECT user_id FROM api_keys WHERE key_hash = :hash) ORDER BY created_at, id;
SQL
echo "== serve GET /api/v1/api-keys: PostgreSQL against SQLite, $ROUNDS alternating rounds of $DURATION"
for r in $(seq "$ROUNDS"); do
  tps=$(PGPASSWORD=$password "$pgbin/pgbench" -h 127.0.0.1 -p "$pgport" -U keyhook -n -M prepared \
    -c 32 -j 2 -T "${DURATION%s}" -D hash="$pg_hash" -f "$work/request.sql" serve 2>/dev/null | awk '/^tps/ {print $3}')
  echo "round $r pgbench $tps req/s p99 - errors 0"
  tps=$("$pgbin/pgbench" -h "$work/pg" -p "$pgport" -U keyhook -n -M prepared \
    -c 32 -j 2 -T "${DURATION%s}" -D hash="$pg_hash" -f "$work/request.sql" serve 2>/dev/null | awk '/^tps/ {print $3}')
  echo "round $r pgbench-unix $tps req/s p99 - errors 0"
  for side in $sides; do
    case $side in
      sqlite) p=$sport; k=$key; sp=$spid ;;
      postgres) p=$pport; k=$pg_key; sp=$ppid_ ;;
      *) p=$uport; k=$pg_key; sp=$upid ;;
    esac
    backends=$(postgres_pids)
    # shellcheck disable=SC2086
    ticks "$sp" >"$work/serve.0"; ticks $backends >"$work/pg.0"
    out=$(wrk -t2 -c32 -d"$DURATION" --latency -H "Authorization: Bearer $k" "http://127.0.0.1:$p/api/v1/api-keys")
    # shellcheck disable=SC2086
    ticks "$sp" >"$work/serve.1"; ticks $backends >"$work/pg.1"
    t_serve=$(spent "$work/serve.0" "$work/serve.1"); t_pg=$(spent "$work/pg.0" "$work/pg.1")
    n=$(echo "$out" | awk '/requests in/ {print $1}')
    rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
    p99=$(echo "$out" | awk '$1 == "99%" {print $2}')
    errors=$(echo "$out" | awk '/Non-2xx/ {n += $NF} /Socket errors/ {gsub(",", ""); n += $4 + $6 + $8 + $10} END {print n + 0}')
    echo "round $r $side $rps req/s p99 $p99 errors $errors cpu_us $((t_serve * 1000000 / hz / n)) pg_cpu_us $((t_pg * 1000000 / hz / n))"
  done
done | tee "$work/rounds.txt"
for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
wait 2>/dev/null || true
pids=()

# 2. fan-out: nginx as in bench/deliver.sh, three instances on one database.
nport=$(port)
cat >"$work/nginx.conf" <<NGINX
worker_processes auto;
pid $work/nginx.pid;
error_log $work/nginx-error.log;
events { worker_connections 4096; }
http {
  access_log $work/access.log;
  keepalive_requests 1000000;
  server {
    listen 127.0.0.1:$nport;
    location / { return 200 "ok"; }
  }
}
NGINX
nginx -c "$work/nginx.conf" -p "$work"
for _ in $(seq 50); do [ -s "$work/nginx.pid" ] && break; sleep 0.1; done
pids+=("$(cat "$work/nginx.pid")")
fan=$(pg_url fanout)
for i in $(seq $HOOKS); do
  "$bin" --db "$fan" --user bench --allow-private-targets webhooks create \
    --url "http://127.0.0.1:$nport/hook/$i" --event post.published >"$work/unused-webhook" 2>&1
done
for i in $(seq "$INSTANCES"); do
  start "instance-$i" "$fan" "$(port)" --allow-private-targets
done
: >"$work/access.log"
expected=$((EVENTS * HOOKS))
psql -d fanout <<SQL
BEGIN;
INSERT INTO events (id, user_id, event, payload, created_at)
SELECT 'evt_' || lpad(to_hex(i), 32, '0'), 'bench', 'post.published',
       convert_to(format('{"id":"evt_%s","event":"post.published","createdAt":"2026-11-22T00:00:00.000Z","data":{"postId":"p_%s"}}', lpad(to_hex(i), 32, '0'), i), 'UTF8'),
       1700000000000
FROM generate_series(1, $EVENTS) i;
INSERT INTO deliveries (id, event_id, webhook_id, state, attempts, next_attempt_at, created_at, updated_at)
SELECT 'dlv_' || left(md5(random()::text), 24), e.id, w.id, 'pending', 0, 0, 0, 0
FROM events e CROSS JOIN webhooks w;
COMMIT;
SQL
t0=$(date +%s.%N)
settled=0
for _ in $(seq 1200); do
  settled=$(psql -d fanout -c "SELECT count(*) FROM deliveries WHERE state <> 'pending'")
  [ "$settled" -ge "$expected" ] && break
  sleep 0.05
done
t1=$(date +%s.%N)
delivered=$(psql -d fanout -c "SELECT count(*) FROM deliveries WHERE state = 'delivered'")
attempts=$(psql -d fanout -c "SELECT count(*) FROM delivery_attempts")
arrived=$(grep -c ' 200 ' "$work/access.log" || true)
# That every instance took part: the CPU seconds each used (utime + stime, from /proc).
per_instance=$(for p in "${pids[@]:1}"; do
  awk -v hz="$(getconf CLK_TCK)" '{printf "%.2f", ($14 + $15) / hz}' "/proc/$p/stat"; echo; done | paste -sd/)

# The baseline in the same run: the same fan-out by one `serve` on a SQLite file.
for p in "${pids[@]:1}"; do kill "$p" 2>/dev/null || true; done
fdb=$work/fanout.db
for i in $(seq $HOOKS); do
  "$bin" --db "$fdb" --user bench --allow-private-targets webhooks create \
    --url "http://127.0.0.1:$nport/hook/$i" --event post.published >"$work/unused-webhook" 2>&1
done
start sqlite-fanout "$fdb" "$(port)" --allow-private-targets
: >"$work/access.log"
queue_events "$fdb" "$EVENTS"
t2=$(date +%s.%N)
for _ in $(seq 1200); do
  settled=$(sqlite3 "$fdb" "SELECT count(*) FROM deliveries WHERE state <> 'pending'")
  [ "$settled" -ge "$expected" ] && break
  sleep 0.05
done
t3=$(date +%s.%N)
sqlite_delivered=$(sqlite3 "$fdb" "SELECT count(*) FROM deliveries WHERE state = 'delivered'")

python3 - "$work/rounds.txt" "$expected" "$delivered" "$arrived" "$attempts" "$t0" "$t1" \
  "$INSTANCES" "$per_instance" "$sqlite_delivered" "$t2" "$t3" <<'PY'
import sys
from figure import figure
rounds, expected, delivered, arrived, attempts, t0, t1, instances, per, sd, t2, t3 = sys.argv[1:]
sides = ("sqlite", "postgres", "postgres-unix", "pgbench", "pgbench-unix")
s = {k: [] for k in sides}
p99 = {k: [] for k in sides}
errors = 0
cpu = {}
unit = {"us": 0.001, "ms": 1, "s": 1000}
for line in open(rounds):
    f = line.split()
    s[f[2]].append(float(f[3]))
    v = f[6]
    for u in ("us", "ms", "s"):
        if v.endswith(u):
            p99[f[2]].append(float(v[: -len(u)]) * unit[u])
            break
    errors += int(f[8])
    if len(f) > 12:
        cpu.setdefault(f[2], []).append((float(f[10]), float(f[12])))
mean = lambda xs: sum(xs) / len(xs)
a, b = mean(s["sqlite"]), mean(s["postgres"])
pa, pb = max(p99["sqlite"]), max(p99["postgres"])
print()
print(f"serve on SQLite {a:.0f} req/s (p99 up to {pa:.2f} ms), on PostgreSQL {b:.0f} req/s "
      f"(p99 up to {pb:.2f} ms), means of {len(s['sqlite'])} rounds")
print(f"ratio postgres/sqlite: {b / a:.2f} (goal >= 0.4); postgres p99 {pb:.2f} ms (goal <= 5); "
      f"errors {errors} (goal 0)")
c = mean(s["pgbench"])
print(f"ceiling: pgbench runs a request's statement {c:.0f} times/s on this PostgreSQL "
      f"({c / a:.2f} of serve on SQLite), one statement a request; serve on PostgreSQL "
      f"(batched) reaches {b / c:.2f} of that")
if s["postgres-unix"]:
    u, cu = mean(s["postgres-unix"]), mean(s["pgbench-unix"])
    print(f"over the Unix socket: serve on PostgreSQL {u:.0f} req/s (p99 up to "
          f"{max(p99['postgres-unix']):.2f} ms), ratio postgres/sqlite {u / a:.2f}; pgbench "
          f"{cu:.0f}/s, of which serve reaches {u / cu:.2f}")
for side, xs in cpu.items():
    serve = ", ".join(f"{x:.0f}" for x, _ in xs)
    pg = ", ".join(f"{y:.0f}" for _, y in xs)
    print(f"CPU per request, {side}: serve {serve} us; PostgreSQL's processes {pg} us (rounds)")
expected, delivered, arrived, attempts = map(int, (expected, delivered, arrived, attempts))
secs = float(t1) - float(t0)
rate = delivered / secs
print(f"fan-out: {delivered}/{expected} delivered by {instances} instances (CPU s "
      f"per instance: {per}), {arrived} arrived at nginx, {attempts} attempts recorded, in {secs:.2f} s")
print(f"fan-out rate: {rate:.0f} deliveries/s (goal >= 2000)")
base = int(sd) / (float(t3) - float(t2))
print(f"baseline: one serve on SQLite, {sd}/{expected} delivered in {float(t3) - float(t2):.2f} s, "
      f"{base:.0f} deliveries/s; ratio {instances} on PostgreSQL / 1 on SQLite {rate / base:.2f}")
figure("pg", "GET /api-keys on PostgreSQL", b, "req/s", "serve on SQLite", a, "ratio >= 0.4")
figure("pg", "GET /api-keys on PostgreSQL", b, "req/s", "pgbench, the request's statement", c)
figure("pg", "p99 on PostgreSQL", pb, "ms", "p99 on SQLite", pa, "<= 5 ms")
if s["postgres-unix"]:
    figure("pg", "GET /api-keys on PostgreSQL, Unix socket", u, "req/s", "serve on SQLite", a)
figure("pg", f"fan-out, {instances} instances on PostgreSQL", rate, "/s", "1 serve on SQLite", base, ">= 2000/s")
ok = int(sd) == expected and delivered == expected and arrived == expected and attempts == expected and errors == 0
sys.exit(0 if ok else 1)
PY
