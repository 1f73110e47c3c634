#!/usr/bin/env bash
# Authenticated GET /api/v1/api-keys on `keyhook serve` under wrk (2 threads, 32 connections),
# against three baselines answering the same bytes, on the same machine in the same run: nginx
# serving them as a static file; the bare HTTP layer (the vendored tiny_http with serve's
# listener and connection options and a handler that only answers the bytes:
# crates/keyhook-http/examples/bare_http.rs, not part of the keyhook binary), the ceiling
# keyhook's own work is measured against; and the floor (examples/floor_http.rs: a thread a
# connection as serve has, no HTTP layer, one response prepared at start), the rate and the
# p99 the machine itself leaves to a server of serve's model with wrk on the same cores, which
# keyhook's tail is read against. The database holds 100,000 keys of other users.
# The four take turns, ROUNDS times (so that a shared machine's drift falls on all alike).
# Prints each round, then the medians of requests/s and p99 and the errors side by side, the
# server's peak RSS, and the ratios the serve issues set as targets; and the CPU a request
# took in the floor, the bare layer and keyhook (clock ticks of the process over the requests
# wrk counted), which moves far less with the machine's load than requests/s.
#
#   bench/serve.sh                 # DURATION=10s KEYS=100000 THREADS=64 ROUNDS=3 are the defaults
#   BIN=/tmp/keyhook-old bench/serve.sh   # the same against another binary
#   BARE=/tmp/bare_http bench/serve.sh    # another build of the bare HTTP layer (FLOOR=: the floor)
#   SPLIT=2 bench/serve.sh         # wrk on the last 2 CPUs, every server on the others (taskset):
#                                  # the load generator on cores of its own, as when the load comes
#                                  # from other machines (needs more CPUs than SPLIT)
#   WRK_THREADS=1 bench/serve.sh   # wrk's own threads (2 unless given): how much of the tail is
#                                  # the load generator's, on cores it shares with the server
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
DURATION=${DURATION:-10s}
KEYS=${KEYS:-100000}
THREADS=${THREADS:-64}
WRK_THREADS=${WRK_THREADS:-2}
ROUNDS=${ROUNDS:-3}

# SPLIT=N: wrk on the last N CPUs, the servers on the others; checked before installing.
on_servers=(); on_wrk=()
if [ -n "${SPLIT:-}" ]; then
  cpus=$(nproc)
  [[ "$SPLIT" =~ ^[1-9][0-9]*$ ]] && [ "$SPLIT" -lt "$cpus" ] ||
    { echo "SPLIT=$SPLIT: give wrk from 1 to $((cpus - 1)) of the $cpus CPUs" >&2; exit 2; }
  on_servers=(taskset -c "0-$((cpus - SPLIT - 1))"); on_wrk=(taskset -c "$((cpus - SPLIT))-$((cpus - 1))")
  echo "SPLIT: servers on CPUs 0-$((cpus - SPLIT - 1)), wrk on CPUs $((cpus - SPLIT))-$((cpus - 1))"
fi
install_missing wrk nginx:nginx-light sqlite3 curl
# BIN=path/to/keyhook runs another build (a baseline) instead of this tree's release build.
bin=$(keyhook_bin)
bare=$(bare_bin)
floor=$(floor_bin)

scratch
db=$work/k.db
key=$(serve_db "$bin" "$db" "$KEYS")

kport=$(port)
"${on_servers[@]}" "$bin" --db "$db" serve --bind "127.0.0.1:$kport" --threads "$THREADS" 2>"$work/serve.log" &
kpid=$!; pids+=("$kpid")
listening "$work/serve.log" || true
url="http://127.0.0.1:$kport/api/v1/api-keys"
# Warm up, then take the exact body for nginx (lastUsedAt is now set and stays put within 1 s
# resolution; the bytes only need to be of the same size).
curl -sf -H "Authorization: Bearer $key" "$url" >/dev/null
mkdir -p "$work/www"; chmod 755 "$work" "$work/www"
curl -sf -H "Authorization: Bearer $key" "$url" >"$work/www/api-keys"
bytes=$(wc -c <"$work/www/api-keys")

nport=$(port)
cat >"$work/nginx.conf" <<NGINX
worker_processes auto;
pid $work/nginx.pid;
error_log $work/nginx-error.log;
events { worker_connections 1024; }
http {
  access_log off;
  default_type application/json;
  server { listen 127.0.0.1:$nport; root $work/www; }
}
NGINX
"${on_servers[@]}" nginx -c "$work/nginx.conf" -p "$work"
for _ in $(seq 50); do [ -s "$work/nginx.pid" ] && break; sleep 0.1; done
pids+=("$(cat "$work/nginx.pid")")

bport=$(port)
"${on_servers[@]}" "$bare" "127.0.0.1:$bport" "$work/www/api-keys" 2>"$work/bare.log" &
bpid=$!; pids+=("$bpid")
listening "$work/bare.log" || true

run_wrk() { "${on_wrk[@]}" wrk -t"$WRK_THREADS" -c32 -d"$DURATION" --latency "$@"; }
# Beside requests/s, the CPU each request took in the server (its clock ticks over the requests
# wrk counted): a figure that moves far less with the machine's load, and the same ratio when
# the server is what limits the rate.
measured() { # name, round, server pid, wrk arguments...
  local name=$1 r=$2 pid=$3; shift 3
  ticks "$pid" >"$work/$name.$r.t0"
  run_wrk "$@" | tee "$work/$name.$r.txt"
  ticks "$pid" >"$work/$name.$r.t1"
  spent "$work/$name.$r.t0" "$work/$name.$r.t1" >"$work/$name.$r.cpu"
}

fport=$(port)
"${on_servers[@]}" "$floor" "127.0.0.1:$fport" "$work/www/api-keys" 2>"$work/floor.log" &
fpid=$!; pids+=("$fpid")
listening "$work/floor.log" || true

for r in $(seq "$ROUNDS"); do
  echo "== round $r: nginx static ($bytes bytes)"; run_wrk "http://127.0.0.1:$nport/api-keys" | tee "$work/nginx.$r.txt"
  echo "== round $r: floor (a thread a connection, no HTTP layer, the same bytes)"
  measured floor "$r" "$fpid" -H "Authorization: Bearer $key" "http://127.0.0.1:$fport/api/v1/api-keys"
  echo "== round $r: bare HTTP layer (vendored tiny_http, the same bytes)"
  measured bare "$r" "$bpid" -H "Authorization: Bearer $key" "http://127.0.0.1:$bport/api/v1/api-keys"
  echo "== round $r: keyhook serve (threads $THREADS, $KEYS keys of other users)"
  measured keyhook "$r" "$kpid" -H "Authorization: Bearer $key" "$url"
done
rss_kb=$(awk '/VmHWM/ {print $2}' "/proc/$kpid/status")

python3 - "$work" "$ROUNDS" "$rss_kb" "$(getconf CLK_TCK)" "$WRK_THREADS" <<'PY'
import re, statistics, sys
from figure import figure
work, rounds, rss, hz = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]) / 1024, int(sys.argv[4])
wrk = f", wrk -t{sys.argv[5]}" if sys.argv[5] != "2" else ""
def cpu_us(name, r):
    n = int(re.search(r"(\d+) requests in", open(f"{work}/{name}.{r}.txt").read()).group(1))
    return int(open(f"{work}/{name}.{r}.cpu").read()) * 1e6 / hz / n
cpu = {name: [cpu_us(name, r) for r in range(1, rounds + 1)] for name in ("floor", "bare", "keyhook")}
def parse(path):
    t = open(path).read()
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", t).group(1))
    m = re.search(r"99%\s+([\d.]+)(us|ms|s)", t)
    p99 = float(m.group(1)) * {"us": 0.001, "ms": 1, "s": 1000}[m.group(2)]
    errors = sum(int(x) for x in re.findall(r"(?:Non-2xx or 3xx responses|connect|read|write|timeout):? (\d+)", t))
    return rps, p99, errors
runs = {name: [parse(f"{work}/{name}.{r}.txt") for r in range(1, rounds + 1)] for name in ("nginx", "floor", "bare", "keyhook")}
print()
for r in range(rounds):
    n, f, b, k = (runs[x][r][0] for x in ("nginx", "floor", "bare", "keyhook"))
    fp, kp = runs["floor"][r][1], runs["keyhook"][r][1]
    print(f"round {r + 1}: nginx {n:.0f}, floor {f:.0f}, bare {b:.0f}, keyhook {k:.0f} req/s; keyhook/bare {k / b:.2f}, keyhook/nginx {k / n:.2f}; "
          f"p99 floor {fp:.2f} ms, keyhook {kp:.2f} ms; "
          f"CPU a request: floor {cpu['floor'][r]:.1f} us, bare {cpu['bare'][r]:.1f} us, keyhook {cpu['keyhook'][r]:.1f} us")
med = {name: (statistics.median(x[0] for x in v), statistics.median(x[1] for x in v), sum(x[2] for x in v))
       for name, v in runs.items()}
n, f, b, k = med["nginx"], med["floor"], med["bare"], med["keyhook"]
print()
print(f"medians of {rounds} rounds")
print(f"{'':24}{'req/s':>12}{'p99 ms':>10}{'errors':>8}{'/ nginx':>9}")
print(f"{'nginx static':24}{n[0]:>12.0f}{n[1]:>10.2f}{n[2]:>8}{1:>9.2f}")
print(f"{'floor (no HTTP layer)':24}{f[0]:>12.0f}{f[1]:>10.2f}{f[2]:>8}{f[0]/n[0]:>9.2f}")
print(f"{'bare HTTP layer':24}{b[0]:>12.0f}{b[1]:>10.2f}{b[2]:>8}{b[0]/n[0]:>9.2f}")
print(f"{'keyhook serve':24}{k[0]:>12.0f}{k[1]:>10.2f}{k[2]:>8}{k[0]/n[0]:>9.2f}")
print(f"ratio keyhook/bare HTTP layer: {k[0]/b[0]:.2f} (target >= 0.8)")
cf, cb, ck = (statistics.median(cpu[x]) for x in ("floor", "bare", "keyhook"))
print(f"CPU a request (median): floor {cf:.1f} us, bare HTTP layer {cb:.1f} us, keyhook {ck:.1f} us; bare/keyhook {cb/ck:.2f}")
# The goal's p99 against what the machine leaves to any server of serve's model in this run.
print(f"floor p99 {f[1]:.2f} ms (rounds: {', '.join(f'{x[1]:.2f}' for x in runs['floor'])}); "
      f"keyhook p99 rounds: {', '.join(f'{x[1]:.2f}' for x in runs['keyhook'])}")
print(f"ratio keyhook/nginx: {k[0]/n[0]:.2f} (target >= 0.5); keyhook p99 {k[1]:.2f} ms (target <= 2); "
      f"errors {k[2]} (target 0); peak RSS {rss:.1f} MB (target <= 30)")
figure("serve", f"GET /api-keys{wrk}", k[0], "req/s", "nginx static", n[0], "ratio >= 0.5")
figure("serve", f"GET /api-keys{wrk}", k[0], "req/s", "bare HTTP layer", b[0], "ratio >= 0.8")
figure("serve", f"bare HTTP layer{wrk}", b[0], "req/s", "nginx static", n[0])
figure("serve", f"p99{wrk}", k[1], "ms", "floor server p99", f[1], "<= 2 ms")
figure("serve", f"CPU a request{wrk}", ck, "us", "bare HTTP layer", cb)
figure("serve", f"errors{wrk}", k[2], "", goal="0")
figure("serve", f"peak RSS{wrk}", rss, "MB", goal="<= 30 MB")
PY
