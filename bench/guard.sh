#!/usr/bin/env bash
# The key check a reverse proxy asks (/api/v1/auth, docs/guarding.md) under wrk, side by side
# in one run on this machine (the goals):
#   - keyhook alone: GET /api/v1/auth (nginx's X-Original-Method / X-Original-URI, a URI that
#     names a profile of the key) against GET /api/v1/api-keys (the list of the caller's four
#     keys), the same key, the same server, 100,000 keys of other users in the database;
#   - nginx in front of a static upstream (an nginx server answering a small file): with
#     docs/guarding.md's configuration, read from the page (auth_request -> keyhook ->
#     upstream), against the same nginx proxying to the same upstream without the check.
# wrk on WRK_THREADS threads (1 unless given), 32 connections. The four take turns, ROUNDS
# times; prints each round, then the medians of requests/s and p99, the errors, and the ratios.
#
#
# BACKEND=postgres: the round trips a check costs on PostgreSQL (the goal: one a check). A
# `serve` on a throwaway cluster of its own (loopback only, torn down on exit; as bench/pg.sh),
# pg_stat_statements loaded and tracking every statement (utility ones too, so a BEGIN and a
# COMMIT count as the round trips they are). Three keys of one user, among KEYS keys of 1,000
# other users: one plain, one with --max-uses, one with its own --rate-limit. For each key, N
# checks one after another on one connection (no two checks share a batch of the key-read
# pipeline, the worst case for it), then wrk at 32 connections for DURATION (the pipeline
# batches the reads waiting): the statements the server ran meanwhile (pg_stat_statements'
# calls, all of serve's database, each statement its own round trip, the pipeline's batch one)
# over the checks answered 200, and the statements by kind. An idle window as long as the
# sequential run first: what serve sends with no checks at all (its workers' polls).
#
#   bench/guard.sh                 # DURATION=10s KEYS=100000 THREADS=64 ROUNDS=3 WRK_THREADS=1
#   BIN=/tmp/keyhook-old bench/guard.sh   # another build of keyhook
#   BACKEND=postgres bench/guard.sh       # N=2000 DURATION=5s KEYS=100000 THREADS=64
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
given_duration=${DURATION:-}
DURATION=${DURATION:-10s}
KEYS=${KEYS:-100000}
THREADS=${THREADS:-64}
WRK_THREADS=${WRK_THREADS:-1}
ROUNDS=${ROUNDS:-3}

if [ "${BACKEND:-sqlite}" = postgres ]; then
  N=${N:-2000}
  DURATION=${given_duration:-5s}
  install_missing wrk curl
  bin=$(keyhook_bin)
  pg_scratch
  pg_start "$(port)" "shared_preload_libraries = 'pg_stat_statements'" \
    'pg_stat_statements.track = all' 'pg_stat_statements.track_utility = on' \
    'pg_stat_statements.max = 10000'
  # The bench's own statements run in the database postgres, apart from serve's.
  psql -d postgres -c 'CREATE DATABASE serve' -c 'CREATE EXTENSION pg_stat_statements'
  url="postgres://keyhook:$password@127.0.0.1:$pgport/serve"
  plain=$("$bin" --db "$url" --user bench keys create --name plain --quiet)
  uses=$("$bin" --db "$url" --user bench keys create --name uses --max-uses 1000000000 --quiet)
  limited=$("$bin" --db "$url" --user bench keys create --name limited --rate-limit 1000000/s --quiet)
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
  kport=$(port)
  "$bin" --db "$url" serve --bind "127.0.0.1:$kport" --threads "$THREADS" \
    --auth-profile '/profiles/{profile}/' 2>"$work/serve.log" &
  pids+=($!)
  listening "$work/serve.log" 100 || { cat "$work/serve.log" >&2; exit 1; }
  base="http://127.0.0.1:$kport/api/v1/auth"
  hdr=(-H "X-Original-Method: GET" -H "X-Original-URI: /profiles/brand-a/posts")
  for k in "$plain" "$uses" "$limited"; do
    [ "$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $k" "${hdr[@]}" "$base")" = 200 ]
    # The pipeline's lanes and the pool at their size before anything is counted.
    wrk -t1 -c32 -d1s -H "Authorization: Bearer $k" "${hdr[@]}" "$base" >/dev/null
  done
  dbid=$(psql -d postgres -c "SELECT oid FROM pg_database WHERE datname = 'serve'")
  reset() { psql -d postgres -c 'SELECT pg_stat_statements_reset()' >/dev/null; }
  # The statements serve ran since the reset: the total, then each kind (calls, the
  # statement's start).
  counted() {
    psql -d postgres -c "SELECT coalesce(sum(calls), 0) FROM pg_stat_statements WHERE dbid = $dbid"
  }
  kinds() {
    psql -d postgres -F ' ' -c "SELECT calls, regexp_replace(left(query, 90), '\s+', ' ', 'g')
      FROM pg_stat_statements WHERE dbid = $dbid ORDER BY calls DESC LIMIT 6" | sed 's/^/      /'
  }
  # N checks, one after another on one kept-alive connection; prints how many were allowed.
  sequential() {
    python3 - "$kport" "$1" "$N" <<'PY'
import http.client, sys
port, key, n = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
c = http.client.HTTPConnection("127.0.0.1", port)
ok = 0
h = {"Authorization": f"Bearer {key}", "X-Original-Method": "GET",
     "X-Original-URI": "/profiles/brand-a/posts"}
for _ in range(n):
    c.request("GET", "/api/v1/auth", headers=h)
    r = c.getresponse(); r.read()
    ok += r.status == 200
print(ok)
PY
  }
  report() { # label, checks, statements
    awk -v l="$1" -v c="$2" -v s="$3" 'BEGIN {
      printf "%-52s %8d checks %8d round trips %6.3f a check\n", l, c, s, (c ? s / c : 0) }'
  }
  start=$(date +%s.%N); sequential "$plain" >/dev/null; took=$(echo "$(date +%s.%N) - $start" | bc)
  reset; sleep "$took"; idle=$(counted)
  echo "idle, ${took%???????}s (as long as $N sequential checks): $idle statements"; kinds
  for k in plain uses limited; do
    key=${!k}
    reset; ok=$(sequential "$key"); n=$(counted)
    report "$k: $N sequential checks" "$ok" "$n"; kinds
    reset
    out=$(wrk -t1 -c32 -d"$DURATION" -H "Authorization: Bearer $key" "${hdr[@]}" "$base")
    # The checks still in the server when wrk stopped (counted as theirs, not the next run's).
    sleep 1
    n=$(counted)
    total=$(awk '/requests in/ {print $1}' <<<"$out")
    bad=$(awk '/Non-2xx/ {print $NF}' <<<"$out"); ok=$((total - ${bad:-0}))
    report "$k: wrk 32 connections $DURATION" "$ok" "$n"; kinds
  done
  exit 0
fi

install_missing wrk nginx:nginx-light sqlite3 curl
bin=$(keyhook_bin)

scratch
db=$work/k.db
# The caller's key, limited to the profile the checked URI names.
key=$(serve_db "$bin" "$db" "$KEYS")
"$bin" --db "$db" --user bench keys create --name scoped --profile brand-a --quiet >"$work/scoped.key"
scoped=$(cat "$work/scoped.key")

kport=$(port)
"$bin" --db "$db" serve --bind "127.0.0.1:$kport" --threads "$THREADS" \
  --auth-profile '/profiles/{profile}/' --trusted-proxy 127.0.0.1/32 2>"$work/serve.log" &
kpid=$!; pids+=("$kpid")
listening "$work/serve.log" || { cat "$work/serve.log" >&2; exit 1; }

# One nginx: the static upstream, a plain proxy to it, and docs/guarding.md's configuration.
uport=$(port); pport=$(port); gport=$(port)
mkdir -p "$work/www/profiles/brand-a"; chmod -R 755 "$work"
printf '{"data":[{"id":"post_1","title":"hello"}]}' >"$work/www/profiles/brand-a/posts"
site=$(awk '/^```nginx$/ {on = 1; next} on && /^```$/ {exit} on' docs/guarding.md)
site=${site//127.0.0.1:8787/127.0.0.1:$kport}
site=${site//127.0.0.1:8080/127.0.0.1:$uport}
site=${site//listen 80;/listen 127.0.0.1:$gport;}
cat >"$work/nginx.conf" <<NGINX
worker_processes auto;
pid $work/nginx.pid;
error_log $work/nginx-error.log;
events { worker_connections 4096; }
http {
  access_log off;
  default_type application/json;
  server { listen 127.0.0.1:$uport; root $work/www; }
  server { listen 127.0.0.1:$pport; location / { proxy_pass http://127.0.0.1:$uport; } }
$site
}
NGINX
nginx -c "$work/nginx.conf" -p "$work" -e "$work/nginx-error.log"
for _ in $(seq 50); do [ -s "$work/nginx.pid" ] && break; sleep 0.1; done
pids+=("$(cat "$work/nginx.pid")")

path=/profiles/brand-a/posts
check=(-H "Authorization: Bearer $scoped" -H "X-Original-Method: GET" -H "X-Original-URI: $path")
# Each answers as it should before anything is measured.
[ "$(curl -s -o /dev/null -w '%{http_code}' "${check[@]}" "http://127.0.0.1:$kport/api/v1/auth")" = 200 ]
[ "$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $key" "http://127.0.0.1:$kport/api/v1/api-keys")" = 200 ]
[ "$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $scoped" "http://127.0.0.1:$gport$path")" = 200 ]
[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$gport$path")" = 401 ]
[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$pport$path")" = 200 ]

run_wrk() { wrk -t"$WRK_THREADS" -c32 -d"$DURATION" --latency "$@"; }
for r in $(seq "$ROUNDS"); do
  echo "== round $r: keyhook GET /api/v1/api-keys"
  run_wrk -H "Authorization: Bearer $key" "http://127.0.0.1:$kport/api/v1/api-keys" | tee "$work/list.$r.txt"
  echo "== round $r: keyhook GET /api/v1/auth (X-Original-URI: $path)"
  run_wrk "${check[@]}" "http://127.0.0.1:$kport/api/v1/auth" | tee "$work/auth.$r.txt"
  echo "== round $r: nginx -> static upstream"
  run_wrk -H "Authorization: Bearer $scoped" "http://127.0.0.1:$pport$path" | tee "$work/plain.$r.txt"
  echo "== round $r: nginx -> auth_request -> keyhook, -> static upstream"
  run_wrk -H "Authorization: Bearer $scoped" "http://127.0.0.1:$gport$path" | tee "$work/guarded.$r.txt"
done

python3 - "$work" "$ROUNDS" <<'PY'
import re, statistics, sys
from figure import figure
work, rounds = sys.argv[1], int(sys.argv[2])
def parse(path):
    t = open(path).read()
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", t).group(1))
    m = re.search(r"99%\s+([\d.]+)(us|ms|s)", t)
    p99 = float(m.group(1)) * {"us": 0.001, "ms": 1, "s": 1000}[m.group(2)]
    errors = sum(int(x) for x in re.findall(r"(?:Non-2xx or 3xx responses|connect|read|write|timeout):? (\d+)", t))
    return rps, p99, errors
names = ("list", "auth", "plain", "guarded")
runs = {n: [parse(f"{work}/{n}.{r}.txt") for r in range(1, rounds + 1)] for n in names}
print()
for r in range(rounds):
    l, a, p, g = (runs[n][r][0] for n in names)
    print(f"round {r + 1}: api-keys {l:.0f}, auth {a:.0f}, nginx plain {p:.0f}, nginx guarded {g:.0f} req/s; "
          f"auth/api-keys {a / l:.2f}, guarded/plain {g / p:.2f}")
med = {n: (statistics.median(x[0] for x in v), statistics.median(x[1] for x in v), sum(x[2] for x in v))
       for n, v in runs.items()}
print()
print(f"medians of {rounds} rounds")
print(f"{'':40}{'req/s':>10}{'p99 ms':>10}{'errors':>8}")
for n, label in zip(names, ("keyhook GET /api/v1/api-keys", "keyhook GET /api/v1/auth",
                            "nginx -> static upstream", "nginx -> auth_request -> keyhook")):
    print(f"{label:40}{med[n][0]:>10.0f}{med[n][1]:>10.2f}{med[n][2]:>8}")
print(f"ratio auth/api-keys: {med['auth'][0] / med['list'][0]:.2f} (target >= 1); "
      f"auth p99 {med['auth'][1]:.2f} ms (target <= 2)")
print(f"ratio guarded/plain: {med['guarded'][0] / med['plain'][0]:.2f} (target >= 0.5)")
figure("guard", "GET /api/v1/auth", med["auth"][0], "req/s", "GET /api/v1/api-keys", med["list"][0], "ratio >= 1")
figure("guard", "GET /api/v1/auth p99", med["auth"][1], "ms", "GET /api/v1/api-keys p99", med["list"][1], "<= 2 ms")
figure("guard", "nginx auth_request to keyhook", med["guarded"][0], "req/s", "nginx alone", med["plain"][0], "ratio >= 0.5")
PY
