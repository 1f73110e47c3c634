#!/usr/bin/env bash
# CPU a request of keyhook serve against the bare HTTP layer (and, with BASE, an older keyhook
# build), all under load at the same time: the same authenticated GET /api/v1/api-keys as
# bench/serve.sh, each server with a wrk of its own (1 thread, 16 connections), all the wrks
# started together. A shared machine that moves between a fast and a slow mode (this one: the
# bare layer alone 16,000-65,000 req/s from one serve.sh run to the next) then moves every
# server at once, within each round, and the ratio of their CPU a request (clock ticks of the
# process over the requests its wrk counted) is taken under the same conditions, which
# serve.sh's turns of 5 s cannot promise. It still moves from run to run here (medians of 10
# rounds of the same builds: 0.69 and 0.80), so compare
# builds within one run (BASE). It does not replace serve.sh's requests/s and p99 (each server
# here has a fraction of the machine).
#
#   bench/serve-together.sh        # ROUNDS=8 DURATION=4s KEYS=20000 THREADS=64
#   BIN=new BASE=old BARE=bare bench/serve-together.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
ROUNDS=${ROUNDS:-8}
DURATION=${DURATION:-4s}
KEYS=${KEYS:-20000}
THREADS=${THREADS:-64}

install_missing wrk sqlite3 curl
bin=$(keyhook_bin)
bare=$(bare_bin)

scratch
key=$(serve_db "$bin" "$work/k.db" "$KEYS")

started() { # log file
  listening "$1" 100 && return
  echo "bench/serve-together.sh: a server did not start:" >&2; cat "$1" >&2; exit 1
}
names=(bare keyhook)
declare -A port pid
port[keyhook]=$(port)
"$bin" --db "$work/k.db" serve --bind "127.0.0.1:${port[keyhook]}" --threads "$THREADS" 2>"$work/keyhook.log" &
pid[keyhook]=$!; pids+=($!)
started "$work/keyhook.log"
if [ -n "${BASE:-}" ]; then
  # Its own copy of the file: the two do not share a database's locks and caches.
  cp "$work/k.db" "$work/base.db"
  names+=(base)
  port[base]=$(port)
  "$BASE" --db "$work/base.db" serve --bind "127.0.0.1:${port[base]}" --threads "$THREADS" 2>"$work/base.log" &
  pid[base]=$!; pids+=($!)
  started "$work/base.log"
fi
url() { echo "http://127.0.0.1:${port[$1]}/api/v1/api-keys"; }
curl -sf -H "Authorization: Bearer $key" "$(url keyhook)" >/dev/null
curl -sf -H "Authorization: Bearer $key" "$(url keyhook)" >"$work/body"
port[bare]=$(port)
"$bare" "127.0.0.1:${port[bare]}" "$work/body" 2>"$work/bare.log" &
pid[bare]=$!; pids+=($!)
started "$work/bare.log"

echo "== $ROUNDS rounds of $DURATION, ${names[*]} under load at once"
for r in $(seq "$ROUNDS"); do
  for n in "${names[@]}"; do ticks "${pid[$n]}" >"$work/$n.$r.t0"; done
  loads=()
  for n in "${names[@]}"; do
    wrk -t1 -c16 -d"$DURATION" -H "Authorization: Bearer $key" "$(url "$n")" >"$work/$n.$r.txt" &
    loads+=($!)
  done
  wait "${loads[@]}"
  for n in "${names[@]}"; do
    ticks "${pid[$n]}" >"$work/$n.$r.t1"
    spent "$work/$n.$r.t0" "$work/$n.$r.t1" >"$work/$n.$r.cpu"
  done
done

python3 - "$work" "$ROUNDS" "$(getconf CLK_TCK)" "${names[@]}" <<'PY'
import re, statistics, sys
from figure import figure
work, rounds, hz, names = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
def figures(name, r):
    t = open(f"{work}/{name}.{r}.txt").read()
    n = int(re.search(r"(\d+) requests in", t).group(1))
    bad = sum(int(x) for x in re.findall(r"(?:Non-2xx or 3xx responses|connect|read|write|timeout):? (\d+)", t))
    if bad:
        sys.exit(f"{name}, round {r}: {bad} errors")
    return n, int(open(f"{work}/{name}.{r}.cpu").read()) * 1e6 / hz / n
cpu = {n: [] for n in names}
for r in range(1, rounds + 1):
    line = []
    for n in names:
        count, us = figures(n, r)
        cpu[n].append(us)
        line.append(f"{n} {us:.1f} us ({count} requests)")
    ratios = [f"bare/{n} {cpu['bare'][-1] / cpu[n][-1]:.2f}" for n in names if n != "bare"]
    print(f"round {r}: " + ", ".join(line) + "; " + ", ".join(ratios))
med = {n: statistics.median(v) for n, v in cpu.items()}
print()
print(f"CPU a request, medians of {rounds} rounds: " + ", ".join(f"{n} {med[n]:.1f} us" for n in names))
for n in names:
    if n != "bare":
        each = sorted(b / k for b, k in zip(cpu["bare"], cpu[n]))
        print(f"bare/{n}: median of the rounds' ratios {statistics.median(each):.2f} "
              f"(range {each[0]:.2f}-{each[-1]:.2f}; target >= 0.8)")
if "base" in names:
    each = sorted(k / b for k, b in zip(cpu["keyhook"], cpu["base"]))
    print(f"keyhook/base: median {statistics.median(each):.2f} (range {each[0]:.2f}-{each[-1]:.2f})")
for n in names:
    if n != "bare":
        figure("serve-together", f"CPU a request, {n}", med[n], "us", "bare HTTP layer, at once",
               med["bare"], "ratio <= 1.25 (bare/keyhook >= 0.8)" if n == "keyhook" else "")
PY
