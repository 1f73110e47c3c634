#!/usr/bin/env bash
# Fan-out throughput with secret rotation active: 1,000 events to 10 webhooks (10,000
# deliveries) on a loopback nginx answering 200, sent by `keyhook deliver --once`, with one
# secret per webhook and with every webhook inside the grace period of a rotation (each
# delivery signed twice, two signatures in `webhook-signature`), twice each in ABBA order in
# the same run; the figure is the rotated rate (goal >= 2,000/s) and its ratio to the
# one-secret rate. nginx logs the signature header, so the run checks that every
# rotated delivery carried two signatures and every plain one a single signature.
#
#   bench/rotation.sh        # WORKERS=16 EVENTS=1000 are the defaults
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
WORKERS=${WORKERS:-16}
EVENTS=${EVENTS:-1000}
HOOKS=10

install_missing nginx:nginx-light sqlite3 /usr/bin/time:time
# BIN=path/to/keyhook runs another build (a baseline) instead of this tree's release build.
bin=$(keyhook_bin)

work=$(mktemp -d); chmod 755 "$work"
nginx_pid=""
cleanup() { [ -n "$nginx_pid" ] && kill "$nginx_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

port=$(port)
cat >"$work/nginx.conf" <<NGINX
worker_processes auto;
pid $work/nginx.pid;
error_log $work/nginx-error.log;
events { worker_connections 4096; }
http {
  log_format sig '\$status "\$http_webhook_signature"';
  access_log $work/access.log sig;
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

# 10 webhooks of one user (rotated with a day's grace when $2 is "rotated") and $EVENTS events
# queued for all of them (`queue_events`).
prepare() {
  local db=$1 mode=$2
  for i in $(seq $HOOKS); do
    id=$("$bin" --db "$db" --user bench --allow-private-targets --json webhooks create \
      --url "http://127.0.0.1:$port/hook/$i" --event post.published |
      python3 -c 'import json,sys; print(json.load(sys.stdin)["data"]["id"])')
    if [ "$mode" = rotated ]; then
      "$bin" --db "$db" --user bench webhooks rotate-secret "$id" --grace 1d --quiet >"$work/secret-$i"
    fi
  done
  queue_events "$db" "$EVENTS"
}

# `deliver --once` on $1; prints its wall-clock seconds.
deliver() {
  /usr/bin/time -f "%e" "$bin" --db "$1" --allow-private-targets deliver --once \
    --delivery-workers "$WORKERS" 2>&1 >/dev/null | tail -1
}

# Runs one mode on a fresh database ($2 names it); prints "seconds delivered
# two_signature_requests one_signature_requests".
run() {
  local mode=$1 db="$work/$1-$2.db"
  prepare "$db" "$mode"
  : >"$work/access.log"
  local secs; secs=$(deliver "$db")
  local delivered; delivered=$(sqlite3 "$db" "SELECT count(*) FROM deliveries WHERE state = 'delivered'")
  local two; two=$(grep -c '^200 "v1,[^ ]* v1,[^ ]*"$' "$work/access.log" || true)
  local one; one=$(grep -c '^200 "v1,[^ ]*"$' "$work/access.log" || true)
  echo "$secs $delivered $two $one"
}

# ABBA order (one secret, rotation, rotation, one secret), summed per mode: a machine that
# speeds up or slows down during the run weighs on both modes alike.
read -r p1_secs p1_n p1_two p1_one < <(run plain 1)
read -r r1_secs r1_n r1_two r1_one < <(run rotated 1)
read -r r2_secs r2_n r2_two r2_one < <(run rotated 2)
read -r p2_secs p2_n p2_two p2_one < <(run plain 2)
plain_secs=$(python3 -c "print($p1_secs + $p2_secs)"); rot_secs=$(python3 -c "print($r1_secs + $r2_secs)")
plain_delivered=$((p1_n + p2_n)); plain_two=$((p1_two + p2_two)); plain_one=$((p1_one + p2_one))
rot_delivered=$((r1_n + r2_n)); rot_two=$((r1_two + r2_two)); rot_one=$((r1_one + r2_one))

python3 - "$((2 * EVENTS * HOOKS))" "$plain_secs" "$plain_delivered" "$plain_two" "$plain_one" \
  "$rot_secs" "$rot_delivered" "$rot_two" "$rot_one" <<'PY'
import sys
from figure import figure
expected = int(sys.argv[1])
p_secs, p_n, p_two, p_one = float(sys.argv[2]), *map(int, sys.argv[3:6])
r_secs, r_n, r_two, r_one = float(sys.argv[6]), *map(int, sys.argv[7:10])
p_rate, r_rate = p_n / p_secs, r_n / r_secs
print(f"one secret: {p_n}/{expected} delivered in {p_secs:.2f} s, {p_rate:.0f} deliveries/s "
      f"({p_one} with one signature, {p_two} with two)")
print(f"rotation: {r_n}/{expected} delivered in {r_secs:.2f} s, {r_rate:.0f} deliveries/s "
      f"({r_two} with two signatures, {r_one} with one)")
print(f"rotation rate: {r_rate:.0f} deliveries/s (target >= 2000); ratio to one secret {r_rate / p_rate:.2f}")
figure("rotation", "deliveries, two signatures (rotation)", r_rate, "/s", "one secret", p_rate, ">= 2000/s")
ok = p_n == expected and r_n == expected and p_one == expected and r_two == expected
sys.exit(0 if ok else 1)
PY
