#!/usr/bin/env bash
# The one benchmark harness: every benchmark of keyhook is registered here once, runs with its
# baseline measured in the same run, and reports its figures in the one format of bench/lib.sh
# (`figure`: a tab-separated line `bench NAME METRIC VALUE UNIT BASELINE BASELINE_VALUE RATIO
# GOAL`). The harness collects those lines into one table and into target/bench/results.json
# (BENCH_OUT to change it), with a description of the machine.
#
#   bash bench/all.sh                 # every benchmark of the class `all` (about an hour)
#   bash bench/all.sh --list          # what is registered: name, class, what it measures
#   bash bench/all.sh serve deliver   # only these (any class)
#   bash bench/all.sh --smoke         # each benchmark with a smoke setting, tiny sizes, on the
#                                     # debug build: the harness and the scripts still run
#
# Classes: `all` runs by default; `extra` only by name (a 1 GiB input, 2.5 GB of disk,
# valgrind, or two builds to compare); `check` prints a verdict, not figures (CI runs it).
# Each script can also run alone, and takes BIN=path/to/keyhook (another build) instead of
# this tree's release build. Figures are ratios against baselines because shared machines are
# noisy; run it on an otherwise idle machine. Installs what it needs from Debian's packages
# (hyperfine, wrk, nginx, sqlite3, curl, time; root).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh

# name | class | smoke setting (- for none) | command | what it measures
registry() {
  cat <<'EOF'
cli-create | all | RUNS=3 WARMUP=1 | bash bench/cli-create.sh | keys create and keys list as processes against the sqlite3 shell (hyperfine, then in turns)
serve | all | DURATION=1s ROUNDS=1 KEYS=1000 | bash bench/serve.sh | authenticated GET /api/v1/api-keys under wrk against nginx, the bare HTTP layer and the floor
serve-wrk1 | all | DURATION=1s ROUNDS=1 KEYS=1000 | env WRK_THREADS=1 bash bench/serve.sh | the same with wrk on one thread (the load generator's own share of the tail)
serve-together | all | DURATION=1s ROUNDS=1 KEYS=1000 | bash bench/serve-together.sh | CPU a request of serve and the bare HTTP layer under load at the same time
guard | all | DURATION=1s ROUNDS=1 KEYS=1000 | bash bench/guard.sh | GET /api/v1/auth against GET /api/v1/api-keys, and nginx auth_request against nginx alone
authenticate | all | KEYHOOK_BENCH_KEYS=2000 KEYHOOK_BENCH_SECS=1 | bench_cargo authenticate | authenticate() with 1,000,000 keys stored against the bare indexed lookup
pool | all | KEYHOOK_BENCH_SECS=1 | bench_cargo pool | the SQLite backend's pool against r2d2 over the same connections
redact | all | - | bench_cargo redact | the access-log line with and without key redaction
emit_schema | all | KEYHOOK_BENCH_EMITS=50 | bench_cargo emit_schema | events emit with a 30-property schema against without one
sign-v1a | all | - | bench_cargo sign_v1a | v1a signature of a 1 KiB payload against v1 HMAC
ratelimit | all | KEYHOOK_BENCH_N=20000 | bash bench/ratelimit.sh | serve --rate-limit's memory after a million keys and addresses against governor's
deliver | all | EVENTS=50 BIG_EVENTS=200 CRASH_EVENTS=20 | bash bench/deliver.sh | deliveries/s against nginx's POST ceiling, the outbox's memory, recovery after kill -9
ordered | all | EVENTS=50 ROUNDS=1 | bash bench/ordered.sh | an ordered webhook's deliveries/s against an unordered one's at one sender; with BASE=another build, plain hmac deliveries/s against it (the claim's cost)
rotation | all | EVENTS=50 | bash bench/rotation.sh | deliveries with a secret rotation's two signatures against one secret
filters | all | DURATION=1s ROUNDS=1 | bash bench/filters.sh | POST /events fanned out to 10 webhooks with CEL filters against without
replay | all | EVENTS=12000 RUNS=1 | bash bench/replay.sh | webhooks replay at its cap and over it against a read-only command
retention | all | - | bash bench/retention.sh | the file's growth under serve --retention, p99 while pruning
metrics | all | - | bash bench/metrics.sh | serve with /metrics against the build before it, p99 under a scrape loop
hostile | all | - | bash bench/hostile.sh | RSS and p99 under slowloris, huge heads and 2,000 held connections
idle | all | SECONDS_IDLE=1 | bash bench/idle.sh | wake-ups a second of an idle serve and deliver
pg | all | DURATION=3s ROUNDS=1 KEYS=1000 EVENTS=50 | bash bench/pg.sh | serve on PostgreSQL against serve on SQLite and pgbench; three instances delivering
portal | all | DURATION=1s | bash bench/portal.sh | each portal page's p99 from the database (10 webhooks, 1,000 attempts) against GET /api/v1/webhooks
pg-authenticate | extra | KEYHOOK_BENCH_KEYS=1000 KEYHOOK_BENCH_SECS=1 | bench_cargo pg_authenticate | authenticate() on PostgreSQL against the bare prepared lookup
scan | extra | SIZE_MB=4 ROUNDS=1 | bash bench/scan.sh | keys scan over 1 GiB of logs against grep -c
db-copy | extra | KEYS=2000 ATTEMPTS=2000 | bash bench/db-copy.sh | db copy's memory and time against the sqlite3 shell's INSERT ... SELECT
instructions | extra | - | bash bench/instructions.sh | instructions a request of serve and the bare HTTP layer (callgrind)
serve-ab | extra | - | bash bench/serve-ab.sh | two builds on the same GET in alternating rounds (BASE=old build)
portal-routing | extra | REQUESTS=20 WARM=5 KEYS=1000 ROUNDS=1 DURATION=1s | bash bench/portal-routing.sh | what the portal's routing adds to an /api/v1 request: instructions (callgrind) and req/s (wrk) against a build without it
schemathesis | check | - | bash bench/schemathesis.sh | schemathesis with every check against serve's OpenAPI document
EOF
}
field() { echo "$1" | awk -F' [|] ' -v f="$2" '{print $f}'; }

mode=default
names=()
for a in "$@"; do
  case $a in
    --list) mode=list ;;
    --smoke) mode=smoke ;;
    -h | --help) sed -n '2,19p' "$0"; exit 0 ;;
    -*) echo "all.sh: unknown option $a (--list, --smoke)" >&2; exit 2 ;;
    *) names+=("$a") ;;
  esac
done

if [ "$mode" = list ]; then
  registry | while IFS= read -r line; do
    printf '%-16s %-6s %s\n' "$(field "$line" 1)" "$(field "$line" 2)" "$(field "$line" 5)"
  done
  exit 0
fi

# The benchmarks to run, as registry lines.
selected=()
while IFS= read -r line; do
  name=$(field "$line" 1) class=$(field "$line" 2) smoke=$(field "$line" 3)
  if [ ${#names[@]} -gt 0 ]; then
    for n in "${names[@]}"; do [ "$n" = "$name" ] && selected+=("$line"); done
  elif [ "$mode" = smoke ]; then
    [ "$smoke" != - ] && selected+=("$line")
  elif [ "$class" = all ]; then
    selected+=("$line")
  fi
done < <(registry)
for n in "${names[@]}"; do
  registry | awk -F' [|] ' -v n="$n" '$1 == n {found = 1} END {exit !found}' ||
    { echo "all.sh: no benchmark named $n (bash bench/all.sh --list)" >&2; exit 2; }
done

out=${BENCH_OUT:-target/bench/results.json}
mkdir -p "$(dirname "$out")"
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

if [ "$mode" = smoke ]; then
  # The debug build and tiny sizes: the figures mean nothing, the run shows that each part
  # still runs and reports in the format.
  export BENCH_CARGO_PROFILE=dev
  cargo build --quiet --bin keyhook
  export BIN=${BIN:-$PWD/target/debug/keyhook}
  out=${BENCH_OUT:-target/bench/smoke.json}
else
  install_missing hyperfine wrk sqlite3 curl nginx:nginx-light /usr/bin/time:time
  cargo build --release --quiet
fi

: >"$logs/figures.tsv"
for line in "${selected[@]}"; do
  name=$(field "$line" 1) class=$(field "$line" 2) smoke=$(field "$line" 3)
  cmd=$(field "$line" 4)
  echo "== $name: $(field "$line" 5)"
  settings=()
  [ "$mode" = smoke ] && read -r -a settings <<<"$smoke"
  # bench_cargo is lib.sh's; the rest are commands.
  env "${settings[@]}" bash -c ". bench/lib.sh; $cmd" | tee "$logs/$name.txt"
  grep -P '^bench\t' "$logs/$name.txt" >>"$logs/figures.tsv" || {
    [ "$class" = check ] || { echo "all.sh: $name printed no figure" >&2; exit 1; }
  }
done

python3 - "$logs/figures.tsv" "$out" <<'PY'
import json, os, platform, subprocess, sys, time
figures = []
for line in open(sys.argv[1], encoding="utf-8"):
    _, bench, metric, value, unit, baseline, base_value, ratio, goal = line.rstrip("\n").split("\t")
    figures.append({"bench": bench, "metric": metric, "value": float(value), "unit": unit,
                    "baseline": baseline or None,
                    "baseline_value": float(base_value) if base_value else None,
                    "ratio": float(ratio) if ratio else None, "goal": goal or None})
print()
print(f"{'bench':<17}{'metric':<52}{'value':>12} {'unit':<7}{'baseline':<34}{'value':>12}{'ratio':>8}  goal")
for f in figures:
    bv = f"{f['baseline_value']:.2f}" if f["baseline_value"] is not None else ""
    r = f"{f['ratio']:.2f}" if f["ratio"] is not None else ""
    print(f"{f['bench']:<17}{f['metric'][:51]:<52}{f['value']:>12.2f} {f['unit']:<7}"
          f"{(f['baseline'] or '')[:33]:<34}{bv:>12}{r:>8}  {f['goal'] or ''}")
def sh(cmd):
    return subprocess.run(cmd, shell=True, capture_output=True, text=True).stdout.strip()
machine = {
    "cpus": os.cpu_count(),
    "cpu_model": sh("grep -m1 'model name' /proc/cpuinfo | cut -d: -f2"),
    "memory": sh("grep MemTotal /proc/meminfo | awk '{print $2 \" kB\"}'"),
    "kernel": platform.release(),
    "os": sh(". /etc/os-release && echo $PRETTY_NAME"),
    "rustc": sh("rustc --version"),
    "load_average_at_end": os.getloadavg(),
    "keyhook": sh("${BIN:-target/release/keyhook} --version"),
    "commit": sh("git rev-parse --short HEAD"),
    "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
}
json.dump({"machine": machine, "figures": figures}, open(sys.argv[2], "w"), indent=2)
print(f"\nwritten: {sys.argv[2]}")
PY
