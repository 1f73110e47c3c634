#!/usr/bin/env bash
# The developer portal (CONTRACT §14), in one run:
#
# 1. Each page rendered from the database: a user with 10 webhooks and 1,000 delivery
#    attempts (the webhook page shows the newest 100 with their response excerpts), one wrk
#    connection at a time (the render, not a queue), DURATION per page; p50 and p99 of every
#    page, and of GET /api/v1/webhooks of the same user as the baseline measured in the same
#    run. Target: every page's p99 <= 5 ms.
# 2. The portal adds nothing to /api/v1: with BASE=path/to/keyhook (a build without the
#    portal), bench/serve-ab.sh of BASE (A) against this tree (B) on GET /api/v1/api-keys.
#    Target: B/A >= 0.97. Skipped without BASE (the portal's only step on an /api/v1 request is
#    one comparison of the path's first bytes).
#
#   bench/portal.sh                      # DURATION=5s
#   BASE=/path/to/keyhook bench/portal.sh
# Loopback only.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
DURATION=${DURATION:-5s}
install_missing wrk sqlite3 curl
bin=$(keyhook_bin)

scratch
db=$work/k.db
key=$("$bin" --db "$db" --user bench keys create --name bench --quiet)
for i in $(seq 10); do
  "$bin" --db "$db" --user bench --allow-private-targets --json webhooks create \
    --url "http://127.0.0.1:9/hook-$i" --event post.published >/dev/null
done
hook=$(sqlite3 "$db" "SELECT id FROM webhooks ORDER BY created_at, id LIMIT 1")
# 1,000 attempts, a hundred on each webhook (a webhook's page shows its newest 100).
sqlite3 "$db" <<SQL
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000),
hooks AS (SELECT id, row_number() OVER (ORDER BY created_at, id) - 1 AS k FROM webhooks)
INSERT INTO delivery_attempts (webhook_id, delivery_id, event_id, event, attempt, attempted_at,
    delivered, status_code, status_text, duration_ms, response_excerpt)
SELECT h.id, NULL, printf('evt_%032x', i), 'post.published', 1, 1700000000000 + i * 1000,
       i % 3 != 0, CASE WHEN i % 3 = 0 THEN 500 ELSE 200 END,
       CASE WHEN i % 3 = 0 THEN 'Internal Server Error' ELSE 'OK' END, 20 + i % 50,
       printf('{"ok": %d, "note": "<b>excerpt %d</b>"}', i % 2, i)
FROM n JOIN hooks h ON h.k = i % 10;
SQL

p=$(port)
"$bin" --db "$db" serve --bind "127.0.0.1:$p" --public-url "http://127.0.0.1:$p" 2>"$work/serve.log" &
pids+=($!)
listening "$work/serve.log" || { cat "$work/serve.log" >&2; exit 1; }
# Into a file: a link whose output is cut (a pipe closed early) is rolled back.
"$bin" --db "$db" --user bench portal link --public-url "http://127.0.0.1:$p" --ttl 24h \
  >"$work/link" 2>/dev/null
token=$(sed -n '1s/.*#//p' "$work/link")
cookie=$(curl -s -D - -o /dev/null --data-urlencode "token=$token" "http://127.0.0.1:$p/portal/session" \
  | sed -nE 's/^Set-Cookie: keyhook_portal=([^;]*).*/\1/p')
[ -n "$cookie" ] || { echo "could not open the portal" >&2; exit 1; }

# p50 and p99 (ms) of one connection requesting $1 with header $2 for DURATION.
latency() {
  wrk -t1 -c1 -d"$DURATION" --latency -H "$2" "http://127.0.0.1:$p$1" | tee -a "$work/wrk.txt" |
    awk '/^ +50%/ {p50 = $2} /^ +99%/ {p99 = $2}
         function ms(v) { if (v ~ /us$/) return v / 1000; if (v ~ /ms$/) return v + 0; if (v ~ /s$/) return v * 1000; return v }
         END { printf "%.2f %.2f\n", ms(p50), ms(p99) }'
}

# Every page answers 200 to the session before it is measured.
for page in /portal/keys /portal/webhooks "/portal/webhooks/$hook" "/portal/webhooks/$hook/deliveries.html" /portal/events; do
  code=$(curl -s -o /dev/null -w '%{http_code}' -H "Cookie: keyhook_portal=$cookie" "http://127.0.0.1:$p$page")
  [ "$code" = 200 ] || { echo "$page answered $code" >&2; exit 1; }
done
printf '%-40s %9s %9s\n' "page" "p50 ms" "p99 ms"
read -r a50 a99 < <(latency /api/v1/webhooks "Authorization: Bearer $key")
printf '%-40s %9s %9s\n' "GET /api/v1/webhooks (baseline)" "$a50" "$a99"
worst=0
for page in /portal/keys /portal/webhooks "/portal/webhooks/$hook" "/portal/webhooks/$hook/deliveries.html" /portal/events; do
  read -r p50 p99 < <(latency "$page" "Cookie: keyhook_portal=$cookie")
  label=${page/$hook/\{id\}}
  printf '%-40s %9s %9s\n' "GET $label" "$p50" "$p99"
  worst=$(awk -v a="$worst" -v b="$p99" 'BEGIN { print (b > a) ? b : a }')
done
awk -v w="$worst" -v b="$a99" 'BEGIN { printf "portal worst page p99 %.2f ms (target <= 5 ms), %.1fx the API list'"'"'s p99\n", w, w / b }'

if grep -q 'Non-2xx' "$work/wrk.txt"; then echo "some responses were not 2xx" >&2; exit 1; fi

if [ -n "${BASE:-}" ]; then
  echo "-- /api/v1 without the portal (A: $BASE) against with it (B: this tree)"
  ab=$(bash bench/serve-ab.sh "$BASE" "$bin")
  echo "$ab"
  echo "$ab" | tail -1 | awk '{ printf "with/without portal throughput ratio %s (target >= 0.97)\n", $NF }'
fi
