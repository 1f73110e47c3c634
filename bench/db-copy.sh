#!/usr/bin/env bash
# `keyhook db copy` of a large database (1,000,000 keys and 1,000,000 delivery attempts) and of
# one ten times smaller, in the same run, each into a new file, under `/usr/bin/time -v`
# ("memory stays flat"). The copy streams in batches, so the two peak RSS figures
# should be about equal: the ratio large / small is reported against a target of 1.5.
# The large copy's time is compared with the sqlite3 shell copying the same tables in the same
# order in one transaction (ATTACH, INSERT ... SELECT ... ORDER BY), the fastest SQLite does it.
#
# The databases are made by keyhook (schema, a key, a webhook) and filled by the sqlite3 shell
# with rows of the same shape as keyhook's own, which is much faster than a million commands.
#
#   bench/db-copy.sh                 # KEYS=1000000 ATTEMPTS=1000000 are the defaults
#   KEYS=200000 ATTEMPTS=200000 bench/db-copy.sh
#   BIN=/path/to/keyhook bench/db-copy.sh
#   WORK=/big/disk bench/db-copy.sh  # about 2.5 GB of files at the defaults
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
KEYS=${KEYS:-1000000}
ATTEMPTS=${ATTEMPTS:-1000000}
TARGET=1.5

install_missing sqlite3 python3 /usr/bin/time:time
bin=$(keyhook_bin)

work=$(mktemp -d "${WORK:-${TMPDIR:-/tmp}}/keyhook-db-copy.XXXXXX")
trap 'rm -rf "$work"' EXIT

# fill DB KEYS ATTEMPTS: a keyhook database with one webhook, KEYS keys and ATTEMPTS attempts.
fill() {
  local db=$1 keys=$2 attempts=$3 webhook
  # (Into a file: keyhook refuses to send a new key to /dev/null, where it would be lost.)
  "$bin" --db "$db" keys create --name warm --quiet >"$work/unused-key"
  webhook=$("$bin" --db "$db" --json --allow-private-targets webhooks create \
    --url http://127.0.0.1:9/hook --event post.published |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["data"]["id"])')
  sqlite3 "$db" >/dev/null <<SQL
PRAGMA journal_mode = WAL;
PRAGMA synchronous = OFF;
BEGIN;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $keys - 1)
INSERT INTO api_keys (key_hash, id, user_id, name, key_prefix, permission, full_access,
                      profile_ids, last_used_at, expires_at, created_at)
SELECT lower(hex(randomblob(32))), lower(hex(randomblob(16))), 'default', 'bench ' || i,
       'kp_' || lower(hex(randomblob(4))), 'readwrite', i % 2,
       CASE WHEN i % 2 THEN '[]' ELSE '["p1"]' END, NULL, NULL, 1800000000000 + i
FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $attempts)
INSERT INTO delivery_attempts (webhook_id, delivery_id, event_id, event, attempt, attempted_at,
                               delivered, status_code, status_text, duration_ms,
                               response_excerpt)
SELECT '$webhook', NULL, 'evt_' || lower(hex(randomblob(16))), 'post.published', 1 + i % 8,
       1800000000000 + i, i % 2, CASE WHEN i % 2 THEN 200 ELSE 503 END,
       CASE WHEN i % 2 THEN 'OK' ELSE 'Service Unavailable' END, i % 500, '{"ok":true}'
FROM n;
COMMIT;
SQL
}

# measure NAME SOURCE: copies SOURCE into a new file; prints "NAME rows peak_kb seconds".
measure() {
  local name=$1 src=$2 dst="$work/$1-copy.db" times="$work/$1.time"
  /usr/bin/time -v -o "$times" "$bin" --db "$src" --json db copy --to "$dst" >"$work/$name.json"
  local rows peak secs
  rows=$(python3 -c 'import json, sys; print(sum(json.load(open(sys.argv[1]))["data"]["tables"].values()))' "$work/$name.json")
  peak=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$times")
  secs=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$times" |
    awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }')
  # Every row arrived: the copy's tables hold what the source's do.
  for table in users api_keys webhooks events deliveries delivery_attempts; do
    local a b
    a=$(sqlite3 "$src" "SELECT count(*) FROM $table")
    b=$(sqlite3 "$dst" "SELECT count(*) FROM $table")
    [ "$a" = "$b" ] || { echo "$name: $table has $a rows, its copy $b" >&2; exit 1; }
  done
  echo "$name $rows $peak $secs"
}

# baseline SOURCE: the sqlite3 shell copies SOURCE's tables into an empty file of the same
# schema, in keyhook's table order and key order, in one transaction; prints the seconds.
baseline() {
  local src=$1 dst="$work/baseline.db"
  # (sqlite_sequence is SQLite's own, made with the first AUTOINCREMENT table.)
  sqlite3 "$src" .schema | grep -v '^CREATE TABLE sqlite_sequence(' | sqlite3 "$dst"
  sqlite3 "$dst" "PRAGMA journal_mode = WAL" >/dev/null
  local copy="PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; ATTACH '$src' AS src; BEGIN;"
  for table_key in users:id api_keys:key_hash webhooks:id events:id deliveries:id \
                   delivery_attempts:id; do
    copy+=" INSERT INTO ${table_key%%:*} SELECT * FROM src.${table_key%%:*} ORDER BY ${table_key#*:};"
  done
  /usr/bin/time -f %e -o "$work/baseline.time" sqlite3 "$dst" "$copy COMMIT;"
  local a b
  a=$(sqlite3 "$src" "SELECT count(*) FROM api_keys")
  b=$(sqlite3 "$dst" "SELECT count(*) FROM api_keys")
  [ "$a" = "$b" ] || { echo "baseline: api_keys has $a rows, its copy $b" >&2; exit 1; }
  cat "$work/baseline.time"
}

small_keys=$((KEYS / 10))
small_attempts=$((ATTEMPTS / 10))
echo "filling: $KEYS keys + $ATTEMPTS attempts, and $small_keys + $small_attempts" >&2
fill "$work/large.db" "$KEYS" "$ATTEMPTS"
fill "$work/small.db" "$small_keys" "$small_attempts"
ls -l "$work"/large.db "$work"/small.db >&2

read -r _ s_rows s_peak s_secs < <(measure small "$work/small.db")
read -r _ l_rows l_peak l_secs < <(measure large "$work/large.db")
rm -f "$work"/*-copy.db*
b_secs=$(baseline "$work/large.db")

python3 - "$s_rows" "$s_peak" "$s_secs" "$l_rows" "$l_peak" "$l_secs" "$TARGET" "$b_secs" <<'PY'
import sys
from figure import figure
s_rows, s_peak, s_secs, l_rows, l_peak, l_secs = map(float, sys.argv[1:7])
target, b_secs = float(sys.argv[7]), float(sys.argv[8])
print(f"{'database':<10} {'rows':>10} {'peak RSS':>10} {'time':>9} {'rows/s':>10}")
for name, rows, peak, secs in (("small", s_rows, s_peak, s_secs), ("large", l_rows, l_peak, l_secs)):
    print(f"{name:<10} {rows:>10.0f} {peak / 1024:>7.1f} MB {secs:>7.2f} s {rows / secs:>10.0f}")
ratio = l_peak / s_peak
verdict = "met" if ratio <= target else "MISSED"
print(f"peak RSS ratio large / small {ratio:.2f} for {l_rows / s_rows:.0f}x the rows "
      f"(target <= {target}: {verdict})")
print(f"sqlite3 INSERT ... SELECT of the large database: {b_secs:.2f} s; "
      f"time ratio keyhook / sqlite3 {l_secs / b_secs:.2f}")
figure("db-copy", f"peak RSS, {l_rows:.0f} rows", l_peak / 1024, "MB", f"peak RSS, {s_rows:.0f} rows",
       s_peak / 1024, f"ratio <= {target}")
figure("db-copy", f"time, {l_rows:.0f} rows", l_secs, "s", "sqlite3 INSERT ... SELECT", b_secs)
PY
