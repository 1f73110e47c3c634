#!/usr/bin/env bash
# How often an idle keyhook wakes: `serve` (with its outbox worker and pruner) and `deliver`,
# each left alone on a database with nothing due for SECONDS, and the context switches of
# each of their threads over that time (/proc/PID/task/*/status, voluntary and not) per
# second, by thread name and in all. A thread that waits for its work sleeps through; one
# that polls a flag wakes at its polling rate whether or not there is work. With
# BASE=path/to/keyhook, an older build is measured beside this one at the same time.
#
#   bench/idle.sh                      # SECONDS_IDLE=10
#   BIN=… BASE=… bench/idle.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
SECONDS_IDLE=${SECONDS_IDLE:-10}

bin=$(keyhook_bin)
scratch

# Context switches of every thread of process $1: "thread-name count" lines.
switches() {
  local t
  for t in /proc/"$1"/task/*; do
    printf '%s %s\n' "$(tr ' ' _ <"$t/comm")" \
      "$(awk '/ctxt_switches/ {n += $2} END {print n}' "$t/status")"
  done 2>/dev/null || true
}

declare -A pid
start() { # name binary command...
  local name=$1 b=$2; shift 2
  local db=$work/$name.db
  "$b" --db "$db" --user bench keys create --name bench --quiet >"$work/$name.key"
  case $1 in
    serve)
      "$b" --db "$db" serve --bind "127.0.0.1:$(port)" 2>"$work/$name.log" &
      pid[$name]=$!; pids+=($!)
      listening "$work/$name.log" || true ;;
    deliver)
      "$b" --db "$db" deliver 2>"$work/$name.log" &
      pid[$name]=$!; pids+=($!) ;;
  esac
}
names=()
for kind in serve deliver; do
  start "$kind" "$bin" "$kind"; names+=("$kind")
  if [ -n "${BASE:-}" ]; then start "base-$kind" "$BASE" "$kind"; names+=("base-$kind"); fi
done
# Past their start (migrations, the first prune pass).
sleep 2
for n in "${names[@]}"; do switches "${pid[$n]}" >"$work/$n.0"; done
sleep "$SECONDS_IDLE"
for n in "${names[@]}"; do switches "${pid[$n]}" >"$work/$n.1"; done

echo "wake-ups a second of an idle process over ${SECONDS_IDLE} s (context switches, by thread):"
for n in "${names[@]}"; do
  awk -v name="$n" -v s="$SECONDS_IDLE" '
    NR == FNR {before[$1] += $2; next}
    {after[$1] += $2}
    END {
      for (t in after) { d = after[t] - before[t]; total += d; if (d > 0) line = line sprintf(" %s %.1f", t, d / s) }
      printf "  %-14s %6.1f /s:%s\n", name, total / s, line
    }' "$work/$n.0" "$work/$n.1" | tee "$work/$n.line"
  goal="the outbox's 10/s poll"; [ "${n#base-}" = serve ] && goal="$goal and 1/s upkeep"
  figure idle "idle $n, wake-ups" "$(awk '{print $2}' "$work/$n.line")" /s "" "" "$goal"
done
