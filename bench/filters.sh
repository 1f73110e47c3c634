#!/usr/bin/env bash
# Fan-out with payload filters: POST /events on `keyhook serve` (SQLite) with 10 webhooks of
# the user subscribed to the event, each with a filter (a CEL expression, evaluated in Rust
# for every emit), against the same 10 webhooks without one (the SQL enqueue alone), under
# wrk, alternating round by round in the same run (ROUNDS=4 DURATION=5s). Every filter is
# true for the body sent, so both queue 10 deliveries per event (checked first). The figure
# is the ratio of the request rates, filtered/plain (goal >= 0.8). The webhooks point at
# 127.0.0.1:9 and `serve` runs without --allow-private-targets and with
# `--retry-schedule=`, so its worker refuses each delivery before connecting and gives up:
# the same worker load on both sides, and no traffic.
#
#   bench/filters.sh        # BIN=path/to/keyhook measures another build
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
ROUNDS=${ROUNDS:-4}
DURATION=${DURATION:-5s}
HOOKS=10
FILTER=${FILTER:-'data.tags.exists(t, t == "breaking") && data.n > 0 && (profileId == null || profileId.startsWith("brand-"))'}

install_missing wrk
bin=$(keyhook_bin)

scratch

# A database with the key (printed) and 10 webhooks, with FILTER when $2 is "filtered".
setup() {
  local db=$1 mode=$2
  "$bin" --db "$db" --user bench keys create --name bench --quiet
  for i in $(seq $HOOKS); do
    # (the note after each create goes to stderr, dropped)
    if [ "$mode" = filtered ]; then
      "$bin" --db "$db" --user bench --allow-private-targets webhooks create \
        --url "http://127.0.0.1:9/hook/$i" --event post.published --filter "$FILTER" >/dev/null 2>&1
    else
      "$bin" --db "$db" --user bench --allow-private-targets webhooks create \
        --url "http://127.0.0.1:9/hook/$i" --event post.published >/dev/null 2>&1
    fi
  done
}

start_serve() { # $1 db, $2 side: sets url_$2
  local p; p=$(port)
  "$bin" --db "$1" serve --bind "127.0.0.1:$p" --threads 8 --retry-schedule= >/dev/null 2>"$1.log" &
  pids+=("$!")
  for _ in $(seq 100); do grep -qs listening "$1.log" && break; sleep 0.1; done
  printf -v "url_$2" '%s' "http://127.0.0.1:$p/api/v1"
}

body='{"event": "post.published", "profileId": "brand-a", "data": {"n": 1, "title": "Hello", "tags": ["news", "breaking"]}}'
cat >"$work/post.lua" <<LUA
wrk.method = "POST"
wrk.body = '$body'
wrk.headers["Content-Type"] = "application/json"
LUA

key_plain=$(setup "$work/plain.db" plain)
key_filtered=$(setup "$work/filtered.db" filtered)
start_serve "$work/plain.db" plain
start_serve "$work/filtered.db" filtered

for side in plain filtered; do
  url_var=url_$side key_var=key_$side
  n=$(curl -s -X POST -H "Authorization: Bearer ${!key_var}" -H 'Content-Type: application/json' \
    -d "$body" "${!url_var}/events" | python3 -c 'import json,sys; print(json.load(sys.stdin)["data"]["deliveries"])')
  [ "$n" = "$HOOKS" ] || { echo "$side queued $n deliveries per event, not $HOOKS" >&2; exit 1; }
done

echo "== fan-out to $HOOKS webhooks: POST /events, plain vs a filter on each, $ROUNDS rounds of $DURATION"
for r in $(seq "$ROUNDS"); do
  for side in plain filtered; do
    url_var=url_$side key_var=key_$side
    wrk -t2 -c8 -d"$DURATION" -s "$work/post.lua" -H "Authorization: Bearer ${!key_var}" \
      "${!url_var}/events" >"$work/$side-$r.txt"
  done
done

python3 - "$work" "$ROUNDS" "$FILTER" <<'PY'
import re, sys
from figure import figure
work, rounds, flt = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def rps(side, r):
    t = open(f"{work}/{side}-{r}.txt").read()
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", t)
    if bad:
        sys.exit(f"{side} round {r}: {bad.group(1)} non-2xx responses")
    return float(re.search(r"Requests/sec:\s+([\d.]+)", t).group(1))
plain = [rps("plain", r) for r in range(1, rounds + 1)]
filtered = [rps("filtered", r) for r in range(1, rounds + 1)]
for r, (a, b) in enumerate(zip(plain, filtered), 1):
    print(f"round {r}: plain {a:8.0f} events/s   filtered {b:8.0f} events/s   ratio {b / a:.3f}")
ratio = sum(filtered) / sum(plain)
print(f"filter: {flt}")
print(f"mean: plain {sum(plain) / rounds:.0f} events/s, filtered {sum(filtered) / rounds:.0f} events/s")
print(f"ratio filtered/plain: {ratio:.3f} (goal >= 0.8) {'ok' if ratio >= 0.8 else 'BELOW GOAL'}")
figure("filters", "POST /events, 10 webhooks with a filter", sum(filtered) / rounds, "/s",
       "the same without filters", sum(plain) / rounds, "ratio >= 0.8")
PY
