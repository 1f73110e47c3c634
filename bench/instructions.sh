#!/usr/bin/env bash
# Instructions a request, counted by callgrind: the figure of serve's own work that does not
# move with a shared machine's load (bench/serve.sh's requests/s and CPU a request do).
# An authenticated GET /api/v1/api-keys (4 keys listed, KEYS keys of other users in the file)
# on `keyhook serve`, and the same bytes from the bare HTTP layer
# (crates/keyhook-http/examples/bare_http.rs: the vendored tiny_http with serve's listener
# and a handler that only answers). Each server runs under valgrind; one client sends WARM
# keep-alive requests unmeasured, then REQUESTS measured ones (`callgrind_control -i on/off`).
# Prints the instructions a request of each, their difference (keyhook's own work) and the
# ratio bare/keyhook. Under valgrind SHA-256 runs in software (about 6,900 instructions of
# keyhook's figure a request; natively the CPU's SHA extensions do it in a few hundred).
#
#   bench/instructions.sh                  # REQUESTS=1000 WARM=200 KEYS=20000
#   BASE=/tmp/keyhook-old bench/instructions.sh   # an older build measured the same way
#   BIN=… BARE=… bench/instructions.sh     # other builds instead of this tree's
# With BASE: BASE_NAME names it in the figure (BASE unless given), AGAIN=1 measures BIN a
# second time (the run-to-run noise of the count, to set a small difference against), and
# INSTR_BENCH names the figures' benchmark (instructions unless given).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
REQUESTS=${REQUESTS:-1000}
WARM=${WARM:-200}
KEYS=${KEYS:-20000}

install_missing valgrind sqlite3 curl
bin=$(keyhook_bin)
bare=$(bare_bin)

scratch
db=$work/k.db
key=$(serve_db "$bin" "$db" "$KEYS")
printf '%s' "$key" >"$work/key"

# Sends $2 keep-alive requests to port $1 from one connection; every answer must be 200.
requests() {
  python3 - "$1" "$2" "$work/key" <<'PY'
import http.client, sys
port, n, key = int(sys.argv[1]), int(sys.argv[2]), open(sys.argv[3]).read().strip()
c = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
for _ in range(n):
    c.request("GET", "/api/v1/api-keys", headers={"Authorization": "Bearer " + key})
    r = c.getresponse()
    r.read()
    if r.status != 200:
        sys.exit(f"answered {r.status}")
PY
}

# Instructions a request of the server `$@` (listening on $p), under callgrind.
counted() {
  local name=$1; shift
  local log=$work/$name.log
  valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$work/$name.cg" "$@" 2>"$log" >/dev/null &
  local vp=$!; pids+=("$vp")
  listening "$log" 300 || { echo "$name did not start:" >&2; tail -5 "$log" >&2; exit 1; }
  requests "$p" "$WARM"
  callgrind_control -i on "$vp" >/dev/null 2>&1
  requests "$p" "$REQUESTS"
  callgrind_control -i off "$vp" >/dev/null 2>&1
  kill "$vp"; wait "$vp" 2>/dev/null || true
  local total
  total=$(awk '/Collected :/ {print $NF}' "$log" | tail -1)
  echo $((total / REQUESTS))
}

# Instructions a request of serve's request handler alone, from `counted $1`'s callgrind file:
# the inclusive count of the per-request closure (`on_request` is inlined into it) over the
# requests. What the server's other threads did meanwhile (the outbox worker's look every
# 100 ms, the access log's batches) is not in it, so it does not move with how long the run
# took under valgrind, as the whole process's count does by a few hundred a request. Empty
# where the build has no such symbol (the bare HTTP layer; another build may inline otherwise).
handler() {
  callgrind_annotate --inclusive=yes "$work/$1.cg" 2>/dev/null |
    awk -v n="$REQUESTS" '!done && /keyhook_http::Server::start::\{\{closure\}\} \[/ {gsub(",", "", $1); print int($1 / n); done = 1}'
}

p=$(port)
"$bin" --db "$db" serve --bind "127.0.0.1:$p" 2>"$work/body-serve.log" &
sp=$!
listening "$work/body-serve.log" || true
curl -sf -H "Authorization: Bearer $key" "http://127.0.0.1:$p/api/v1/api-keys" >"$work/body"
kill "$sp"; wait "$sp" 2>/dev/null || true

p=$(port); b=$(counted bare "$bare" "127.0.0.1:$p" "$work/body")
p=$(port); k=$(counted keyhook "$bin" --db "$db" serve --bind "127.0.0.1:$p")
echo "instructions a request ($REQUESTS keep-alive requests after $WARM, $(wc -c <"$work/body") bytes answered):"
echo "  bare HTTP layer $b; keyhook $k; keyhook's own work $((k - b)); bare/keyhook $(awk -v b="$b" -v k="$k" 'BEGIN {printf "%.2f", b / k}')"
if [ -n "${BASE:-}" ]; then
  p=$(port); o=$(counted base "$BASE" --db "$db" serve --bind "127.0.0.1:$p")
  # (Its own work is not $o - $b when its tiny_http differs from this tree's.)
  echo "  base ($BASE) $o; keyhook/base $(awk -v o="$o" -v k="$k" 'BEGIN {printf "%.5f", k / o}'); keyhook - base $((k - o))"
  kh=$(handler keyhook) oh=$(handler base)
  [ -z "$kh" ] || [ -z "$oh" ] || echo "  the request handler alone: keyhook $kh, base $oh; keyhook - base $((kh - oh))"
  if [ -n "${AGAIN:-}" ]; then
    p=$(port); k2=$(counted again "$bin" --db "$db" serve --bind "127.0.0.1:$p")
    echo "  keyhook again $k2: the same build twice differs by $((k2 - k)) instructions a request"
    k2h=$(handler again)
    [ -z "$kh" ] || [ -z "$k2h" ] || echo "  the request handler alone, again: $k2h (the same build twice: $((k2h - kh)))"
  fi
  figure "${INSTR_BENCH:-instructions}" "instructions a request, keyhook" "$k" "" "${BASE_NAME:-BASE}" "$o"
  [ -z "$kh" ] || [ -z "$oh" ] ||
    figure "${INSTR_BENCH:-instructions}" "instructions a request, the request handler alone" "$kh" "" "${BASE_NAME:-BASE}" "$oh"
fi
figure "${INSTR_BENCH:-instructions}" "instructions a request, keyhook" "$k" "" "bare HTTP layer" "$b"
