#!/usr/bin/env bash
# keys scan's speed: `keyhook keys scan FILE` over 1 GiB of logs (access-log lines with
# URLs, some percent-encoded; JSON lines; stack traces; a few keys, some of this database,
# some not, some percent-encoded) against `grep -c kp_ FILE` on the same file, in the same
# run, taking turns (ROUNDS of each, the median of each). Goal: scan no slower than grep
# (ratio scan/grep <= 1). Then the scanner's peak RSS on the file, and on a single line of
# the same size (no newline at all), which must not grow with it.
#
#   bench/scan.sh              # SIZE_MB=1024 ROUNDS=5 WORK=/tmp
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
SIZE_MB=${SIZE_MB:-1024}
ROUNDS=${ROUNDS:-5}
WORK=${WORK:-/tmp}
install_missing /usr/bin/time:time
# BIN=path/to/keyhook runs another build (a baseline) instead of this tree's release build.
bin=$(keyhook_bin)
dir=$(mktemp -d "$WORK/keyhook-scan.XXXXXX")
trap 'rm -rf "$dir"' EXIT
export KEYHOOK_DB=$dir/k.db
for i in 1 2 3 4 5; do "$bin" keys create --name "leak$i" --quiet; done > "$dir/keys.txt"

# A 16 MiB block of varied lines with the keys in it, repeated to SIZE_MB.
python3 - "$dir/keys.txt" "$dir/block.log" <<'PY'
import random, sys, os, urllib.parse
random.seed(7)
keys = open(sys.argv[1]).read().split()
paths = ["/api/v1/api-keys", "/api/v1/webhooks", "/static/app.js", "/login?next=%2Fdashboard%3Ftab%3Dkeys",
         "/search?q=keyhook+kp+tokens&page=2", "/api/v1/events"]
words = "the quick brown fox jumps over the lazy dog kafka worker checkpoint backup key keep skip".split()
out, size, n = [], 0, 0
while size < 16 << 20:
    n += 1
    r = random.random()
    if r < 0.5:
        line = '127.0.0.1 - - [25/Nov/2026:19:%02d:%02d +0000] "GET %s HTTP/1.1" 200 %d "-" "curl/8.5.0"' % (
            n % 60, n % 60, random.choice(paths), random.randint(100, 90000))
    elif r < 0.8:
        line = '{"time":"2026-11-25T19:00:%02d.%03dZ","level":"info","msg":"%s","route":"%s","status":200,"duration_ms":%d}' % (
            n % 60, n % 1000, " ".join(random.sample(words, 6)), random.choice(paths), random.randint(1, 900))
    else:
        line = '    at com.example.%s.%s(%s.java:%d) k=%x' % (random.choice(words), random.choice(words), random.choice(words), n, n)
    if n % 50000 == 0:
        k = keys[(n // 50000) % len(keys)]
        line += " token=" + (urllib.parse.quote(k, safe="") .replace("_", "%5F") if n % 100000 == 0 else k)
    if n % 70000 == 0:
        line += " other=kp_" + os.urandom(32).hex()
    out.append(line)
    size += len(line) + 1
open(sys.argv[2], "w").write("\n".join(out) + "\n")
PY
block_mb=$(( $(stat -c %s "$dir/block.log") >> 20 ))
for _ in $(seq 1 $(( (SIZE_MB + block_mb - 1) / block_mb ))); do cat "$dir/block.log"; done > "$dir/logs.log"
rm "$dir/block.log"
bytes=$(stat -c %s "$dir/logs.log")
cat "$dir/logs.log" > /dev/null   # into the page cache: both read from memory

timed() { # seconds a command takes; its output goes to a file, not /dev/null, which GNU grep
  # notices and then stops at the first match, like -q
  local s e
  s=$(date +%s.%N); "$@" > "$dir/out" 2>&1 || true; e=$(date +%s.%N)
  python3 -c "print(f'{$e - $s:.3f}')"
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
scan_t=(); grep_t=()
for _ in $(seq 1 "$ROUNDS"); do
  grep_t+=("$(timed grep -c kp_ "$dir/logs.log")")
  scan_t+=("$(timed "$bin" keys scan "$dir/logs.log")")
done
g=$(printf '%s\n' "${grep_t[@]}" | median)
s=$(printf '%s\n' "${scan_t[@]}" | median)
found=$("$bin" --json keys scan "$dir/logs.log" 2>/dev/null | wc -l || true)
echo "input: $((bytes >> 20)) MiB, $found keys found by keys scan"
echo "grep -c kp_ rounds: ${grep_t[*]}"
echo "keys scan rounds:   ${scan_t[*]}"
python3 -c "
b=$bytes; s=$s; g=$g
print(f'keys scan {b/2**20:.0f} MiB: {s:.2f} s ({b/s/2**20:.0f} MiB/s); grep -c kp_: {g:.2f} s ({b/g/2**20:.0f} MiB/s)')
print(f'ratio scan/grep: {s/g:.2f} (goal <= 1)')"
figure scan "keys scan, $((bytes >> 20)) MiB" "$s" s "grep -c kp_" "$g" "ratio <= 1"

# Peak memory: the log, and one line of the same size.
# (keys scan exits 1 when it finds keys, as this file has: the status is not the figure.)
rss() { /usr/bin/time -f %M "$@" 2>&1 >"$dir/out" | tail -1 || true; }
lines_kb=$(rss "$bin" keys scan "$dir/logs.log")
echo "keys scan peak RSS, $((bytes >> 20)) MiB of lines: $lines_kb KiB"
tr '\n' ' ' < "$dir/logs.log" > "$dir/one-line.log"
rm "$dir/logs.log"
one_kb=$(rss "$bin" keys scan "$dir/one-line.log")
echo "keys scan peak RSS, one line of $((bytes >> 20)) MiB: $one_kb KiB"
figure scan "peak RSS, one line of $((bytes >> 20)) MiB" "$one_kb" KiB "the same bytes in lines" "$lines_kb" "ratio ~1 (flat)"
