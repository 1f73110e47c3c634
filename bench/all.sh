#!/usr/bin/env bash
# The one benchmark command. Installs what it needs (hyperfine, wrk, nginx, sqlite3 from
# Debian's packages), builds the release binary, runs every benchmark with its baseline
# measured in the same run, prints one table, and writes the figures with a description of
# the machine to target/bench/results.json (BENCH_OUT to change it).
#
#   bench/all.sh
#
# The parts can be run alone: bench/cli-create.sh, bench/serve.sh (WRK_THREADS=1 runs it with
# wrk on one thread; bench/serve-together.sh, its CPU a request with the bare layer under load
# at the same time), bench/deliver.sh,
# bench/pg.sh (which also installs postgresql) and `cargo bench --bench authenticate`,
# bench/ratelimit.sh, bench/metrics.sh, bench/rotation.sh (deliveries with secret rotation
# active), bench/retention.sh (file size over 200k deliveries, latency while pruning);
# bench/deliver.sh includes recovery after kill -9; bench/idle.sh how often an idle serve and
# deliver wake.
# Figures are ratios against baselines because shared machines are noisy; run it on an
# otherwise idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
out=${BENCH_OUT:-target/bench/results.json}
mkdir -p "$(dirname "$out")"
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

install_missing hyperfine wrk sqlite3 curl nginx:nginx-light /usr/bin/time:time
cargo build --release --quiet

echo "== CLI: keys create / keys list against sqlite3 (hyperfine)"
bash bench/cli-create.sh | tee "$logs/cli.txt"
echo "== serve: GET /api/v1/api-keys against nginx (wrk)"
bash bench/serve.sh | tee "$logs/serve.txt"
echo "== serve: the same with wrk on one thread (the load generator's own share of the tail)"
WRK_THREADS=1 bash bench/serve.sh | tee "$logs/serve1.txt"
echo "== serve: CPU a request of keyhook and the bare HTTP layer under load at the same time"
bash bench/serve-together.sh | tee "$logs/together.txt"
echo "== authenticate() with 1,000,000 keys"
cargo bench --quiet --bench authenticate | tee "$logs/auth.txt"
echo "== webhook deliveries against a loopback nginx"
bash bench/deliver.sh | tee "$logs/deliver.txt"
echo "== PostgreSQL: serve against serve on SQLite, and three instances delivering a fan-out"
bash bench/pg.sh | tee "$logs/pg.txt"
echo "== serve --rate-limit: memory after a million distinct keys and addresses"
bash bench/ratelimit.sh | tee "$logs/ratelimit.txt"
echo "== /metrics: serve with metrics against without, and p99 under a scrape loop"
bash bench/metrics.sh | tee "$logs/metrics.txt"
echo "== webhook deliveries with secret rotation active (two signatures) against one secret"
bash bench/rotation.sh | tee "$logs/rotation.txt"
echo "== retention: 200,000 deliveries with --retention 5s; request latency while pruning"
bash bench/retention.sh | tee "$logs/retention.txt"
echo "== hostile clients: slowloris, huge heads, 2,000 idle connections from one address"
bash bench/hostile.sh | tee "$logs/hostile.txt"
echo "== idle: how often serve and deliver wake with nothing to do"
bash bench/idle.sh | tee "$logs/idle.txt"
echo "== the developer portal: each page's p99 (10 webhooks, 1,000 deliveries)"; bash bench/portal.sh | tee "$logs/portal.txt"

python3 - "$logs" "$out" <<'PY'
import json, os, platform, re, subprocess, sys, time
logs, out = sys.argv[1], sys.argv[2]
text = {n: open(os.path.join(logs, f"{n}.txt")).read() for n in ("cli", "serve", "auth", "deliver", "pg", "ratelimit", "metrics")}
text["retention"] = open(os.path.join(logs, "retention.txt")).read()
text["together"] = open(os.path.join(logs, "together.txt")).read()
text["serve1"] = open(os.path.join(logs, "serve1.txt")).read()
def num(name, pattern):
    m = re.search(pattern, text[name])
    if not m:
        sys.exit(f"bench/all.sh: no figure for {pattern!r} in the {name} output")
    return float(m.group(1))
def sh(cmd):
    try:
        return subprocess.run(cmd, shell=True, capture_output=True, text=True).stdout.strip()
    except OSError:
        return ""
rows = [
    # (figure, value, unit, baseline, baseline value, ratio, target, met)
    ("keys create --quiet, median", num("cli", r"\nkeyhook\s+([\d.]+)ms"), "ms",
     "sqlite3 INSERT", num("cli", r"\nsqlite3\s+([\d.]+)ms"), None, "ratio <= 1.3"),
    ("keys create --quiet, in turns, median", num("cli", r"  keyhook  median\s+([\d.]+)ms"), "ms",
     "sqlite3 INSERT, same turns", num("cli", r"  sqlite3  median\s+([\d.]+)ms"), None, "ratio <= 1.3"),
    ("keys list --json, median", num("cli", r"list: keyhook ([\d.]+)ms"), "ms",
     "sqlite3 SELECT", num("cli", r"sqlite3 ([\d.]+)ms median"), None, "informational"),
    ("serve GET /api-keys", num("serve", r"keyhook serve\s+([\d.]+)"), "req/s",
     "nginx static", num("serve", r"nginx static\s+([\d.]+)"), None, "ratio >= 0.5"),
    ("serve GET /api-keys (same run)", num("serve", r"keyhook serve\s+([\d.]+)"), "req/s",
     "bare HTTP layer (tiny_http)", num("serve", r"bare HTTP layer\s+([\d.]+)"), None, "ratio >= 0.8"),
    ("bare HTTP layer (tiny_http)", num("serve", r"bare HTTP layer\s+([\d.]+)"), "req/s",
     "nginx static", num("serve", r"nginx static\s+([\d.]+)"), None, "informational"),
    ("CPU a request, bare HTTP layer", num("serve", r"bare HTTP layer ([\d.]+) us"), "us",
     "CPU a request, keyhook serve", num("serve", r"keyhook ([\d.]+) us; bare/keyhook"), None,
     "informational (ratio >= 0.8)"),
    ("CPU a request at once, bare HTTP layer", num("together", r"medians of \d+ rounds: bare ([\d.]+) us"), "us",
     "CPU a request at once, keyhook", num("together", r"medians of \d+ rounds: bare [\d.]+ us, keyhook ([\d.]+) us"),
     None, "ratio >= 0.8"),
    ("serve p99", num("serve", r"keyhook p99 ([\d.]+) ms"), "ms",
     "floor server p99, same run", num("serve", r"floor p99 ([\d.]+) ms"), None, "<= 2 ms"),
    ("serve p99, wrk on 1 thread", num("serve1", r"keyhook p99 ([\d.]+) ms"), "ms",
     "floor server p99, same run", num("serve1", r"floor p99 ([\d.]+) ms"), None,
     "informational (wrk's 2nd thread's share)"),
    ("serve peak RSS under load", num("serve", r"peak RSS ([\d.]+) MB"), "MB", None, None, None, "<= 30 MB"),
    ("serve errors", num("serve", r"errors (\d+) \(target"), "", None, None, None, "0"),
    ("authenticate(), 1M keys", num("auth", r"authenticate\(\), stored keys\s+(\d+)"), "/s",
     "bare SELECT by hash", num("auth", r"baseline: SELECT 1 \.\.\. WHERE key_hash = \?\s+(\d+)"), None, ">= 200000/s"),
    ("authenticate(), first use of a key", num("auth", r"authenticate\(\), first use of a key\s+(\d+)"), "/s",
     "bare SELECT by hash", num("auth", r"baseline: SELECT 1 \.\.\. WHERE key_hash = \?\s+(\d+)"), None, "informational"),
    ("webhook deliveries", num("deliver", r"rate: (\d+) deliveries/s"), "/s",
     "wrk POST to the same nginx", num("deliver", r"\(wrk\): (\d+) req/s"), None, "ratio >= 0.2"),
    ("deliver peak RSS, 100k vs 10k queued", num("deliver", r"ratio ([\d.]+), flat"), "x",
     None, None, None, "~1 (flat)"),
    ("recovery after kill -9", num("deliver", r"all delivered ([\d.]+) s after the restart"), "s",
     None, None, None, "<= 15 s"),
    ("serve on PostgreSQL GET /api-keys", num("pg", r"on PostgreSQL ([\d.]+) req/s"), "req/s",
     "serve on SQLite", num("pg", r"serve on SQLite ([\d.]+) req/s"), None, "ratio >= 0.4"),
    ("serve on PostgreSQL GET /api-keys (same run)", num("pg", r"on PostgreSQL ([\d.]+) req/s"), "req/s",
     "pgbench, a request's statement", num("pg", r"request's statement (\d+) times/s"), None, "informational"),
    ("serve on PostgreSQL p99", num("pg", r"postgres p99 ([\d.]+) ms"), "ms", None, None, None, "<= 5 ms"),
    ("serve on PostgreSQL over the Unix socket", num("pg", r"Unix socket: serve on PostgreSQL ([\d.]+) req/s"), "req/s",
     "serve on SQLite", num("pg", r"serve on SQLite ([\d.]+) req/s"), None, "informational"),
    ("fan-out, 3 instances on PostgreSQL", num("pg", r"fan-out rate: (\d+) deliveries/s"), "/s",
     "1 serve on SQLite", num("pg", r"SQLite, \d+/\d+ delivered in [\d.]+ s, (\d+) deliveries/s"), None,
     ">= 2000/s"),
    ("rate limiter RSS, 1M keys + 1M addresses", num("ratelimit", r"bounded ([\d.]+) MB, governor"), "MB",
     "governor stock keyed, 1M keys", num("ratelimit", r"stock keyed limiter ([\d.]+) MB"), None, "< 64 MB"),
    ("serve with metrics / without", num("metrics", r"throughput ratio ([\d.]+)"), "x",
     None, None, None, ">= 0.90"),
    ("p99 with a /metrics scrape loop", num("metrics", r"with a scrape loop ([\d.]+) ms"), "ms",
     "same loop on /healthz", num("metrics", r"with a /healthz loop ([\d.]+) ms"), None, "ratio <= 1.10"),
    ("db file growth, 200k deliveries at 2,500/s", num("retention", r"growth ([\d.]+)x"),
     "x", None, None, None, "~1 (flat)"),
    ("WAL high-water mark, same run", num("retention", r"WAL: high-water mark ([\d.]+) MB"),
     "MB", None, None, None, "~64 MB at most"),
    ("GET /webhooks p99 while pruning", num("retention", r"GET /webhooks p99: without pruning [\d.]+ ms, while pruning ([\d.]+) ms"),
     "ms", "without pruning", num("retention", r"GET /webhooks p99: without pruning ([\d.]+) ms"), None, "+ a few ms at most"),
    ("POST /events p99 while pruning", num("retention", r"POST /events p99: without pruning [\d.]+ ms, while pruning ([\d.]+) ms"),
     "ms", "without pruning", num("retention", r"POST /events p99: without pruning ([\d.]+) ms"), None, "+ a few ms at most"),
]
text["rotation"] = open(os.path.join(logs, "rotation.txt")).read()
text["hostile"] = open(os.path.join(logs, "hostile.txt")).read()
text["idle"] = open(os.path.join(logs, "idle.txt")).read()
rows.append(("p99 from 127.0.0.2, 2,000 idle conns held", num("hostile", r"idle/trickling connections \(\d+ server fds\): p99 ([\d.]+) ms"), "ms",
             "from 127.0.0.2 alone", num("hostile", r"from 127\.0\.0\.2 alone: p99 ([\d.]+) ms"), None, "<= 10 ms"))
rows.append(("idle serve, wake-ups", num("idle", r"\n  serve\s+([\d.]+) /s"), "/s", None, None, None,
             "the outbox's 10/s poll and 1/s upkeep"))
rows.append(("idle deliver, wake-ups", num("idle", r"\n  deliver\s+([\d.]+) /s"), "/s", None, None, None,
             "the outbox's 10/s poll"))
rows.append(("deliveries, rotation active (2 signatures)", num("rotation", r"rotation rate: (\d+) deliveries/s"), "/s",
             "one secret, same run", num("rotation", r"one secret: \d+/\d+ delivered in [\d.]+ s, (\d+) deliveries/s"), None,
             ">= 2000/s"))
figures = []
print()
print(f"{'figure':<40}{'value':>12} {'unit':<6}{'baseline':<28}{'value':>12}{'ratio':>8}  target")
for name, value, unit, base, base_value, _, target in rows:
    ratio = value / base_value if base_value else None
    figures.append({"figure": name, "value": value, "unit": unit, "baseline": base,
                    "baseline_value": base_value, "ratio": ratio, "target": target})
    r = f"{ratio:.2f}" if ratio is not None else ""
    bv = f"{base_value:.2f}" if base_value is not None else ""
    print(f"{name:<40}{value:>12.2f} {unit:<6}{(base or ''):<28}{bv:>12}{r:>8}  {target}")
machine = {
    "cpus": os.cpu_count(),
    "cpu_model": sh("grep -m1 'model name' /proc/cpuinfo | cut -d: -f2"),
    "memory": sh("grep MemTotal /proc/meminfo | awk '{print $2 \" kB\"}'"),
    "kernel": platform.release(),
    "os": sh(". /etc/os-release && echo $PRETTY_NAME"),
    "rustc": sh("rustc --version"),
    "load_average_at_end": os.getloadavg(),
    "keyhook": sh("target/release/keyhook --version"),
    "commit": sh("git rev-parse --short HEAD"),
    "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
}
json.dump({"machine": machine, "figures": figures}, open(out, "w"), indent=2)
print(f"\nwritten: {out}")
PY
