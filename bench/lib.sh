# Shared by the bench scripts: `. "$(dirname "$0")/lib.sh"` (or `. bench/lib.sh` from the
# repository's root).

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# The scripts' Python parts print figures with `from figure import figure` (bench/figure.py).
export PYTHONPATH="$BENCH_DIR${PYTHONPATH:+:$PYTHONPATH}"

# The one output format of every benchmark: a figure is one line, tab-separated,
#   bench  BENCH  METRIC  VALUE  UNIT  BASELINE  BASELINE_VALUE  RATIO  GOAL
# (the baseline measured in the same run, empty when there is none; RATIO = VALUE /
# BASELINE_VALUE). bench/all.sh collects these lines, and only these, into its table and
# target/bench/results.json; whatever else a script prints is for the reader.
#   figure BENCH METRIC VALUE UNIT [BASELINE BASELINE_VALUE] [GOAL]
figure() { python3 "$BENCH_DIR/figure.py" "$@"; }

# CPU time in clock ticks (`getconf CLK_TCK` a second) of each process $@, all its threads: one
# "pid ticks" line each; `spent BEFORE AFTER` sums what the processes in both took between.
ticks() { local p; for p in "$@"; do awk '{print $1, $14 + $15}' "/proc/$p/stat" 2>/dev/null || true; done; }
spent() { awk 'NR == FNR {t[$1] = $2; next} $1 in t {s += $2 - t[$1]} END {print s + 0}' "$1" "$2"; }

# Installs, from Debian's packages, each of $@ ("command", or "command:package" when the
# package is named otherwise; a command may be a path, /usr/bin/time:time, where the shell has
# a keyword of that name) whose command is missing.
install_missing() {
  local need=() t
  for t in "$@"; do command -v "${t%%:*}" >/dev/null || need+=("${t#*:}"); done
  if [ ${#need[@]} -gt 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
  fi
}

# Installs with npm, under the directory $1 (absolute: node's require reads the versions
# there), the packages $2... given as NAME@VERSION, all of them in one install when any is
# missing there at its version (the message names the calling script).
npm_pinned() {
  local dir=$1 p; shift
  for p in "$@"; do
    if [ "$(node -p "require('$dir/node_modules/${p%@*}/package.json').version" 2>/dev/null)" != "${p##*@}" ]; then
      echo "$(basename "$0"): npm install $*"
      mkdir -p "$dir"
      npm install --prefix "$dir" --no-audit --no-fund --silent "$@"
      return
    fi
  done
}

# The cargo profile the benchmarks build with: release (`bench` for `cargo bench`), or the
# debug build when BENCH_CARGO_PROFILE=dev (bench/all.sh --smoke).
profile_dir() { if [ "${BENCH_CARGO_PROFILE:-}" = dev ]; then echo debug; else echo release; fi; }
profile_flag() { if [ "${BENCH_CARGO_PROFILE:-}" = dev ]; then echo --profile=dev; else echo --release; fi; }

# Runs the in-process benchmark $1 of the keyhook-bench package (benches/$1.rs).
bench_cargo() {
  local p=(); [ "${BENCH_CARGO_PROFILE:-}" = dev ] && p=(--profile dev)
  cargo bench --quiet "${p[@]}" -p keyhook-bench --bench "$1"
}

# The keyhook binary a benchmark runs: $BIN (another build, a baseline), or this tree's
# release build, built.
keyhook_bin() {
  if [ -n "${BIN:-}" ]; then echo "$BIN"; else
    cargo build "$(profile_flag)" --quiet --bin keyhook >&2
    echo "$PWD/target/$(profile_dir)/keyhook"
  fi
}

# A benchmark's baseline server, crates/keyhook-http/examples/$2.rs: the build $1 names
# (another one), or this tree's release build of it, built.
example_bin() {
  if [ -n "$1" ]; then echo "$1"; else
    cargo build "$(profile_flag)" --quiet -p keyhook-http --example "$2" >&2
    echo "$PWD/target/$(profile_dir)/examples/$2"
  fi
}
# The bare HTTP layer (bare_http.rs): $BARE, or this tree's.
bare_bin() { example_bin "${BARE:-}" bare_http; }
# The floor server (floor_http.rs: a thread a connection and no HTTP layer, the machine's own
# rate and tail): $FLOOR, or this tree's.
floor_bin() { example_bin "${FLOOR:-}" floor_http; }

# A scratch directory, $work, and the list $pids of what a benchmark starts: on exit each of
# them is killed and the directory removed.
scratch() {
  work=$(mktemp -d)
  pids=()
  trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"' EXIT
}

# A scratch directory, $work (readable by the postgres user), for a script that runs a
# throwaway PostgreSQL cluster under $work/pg: $pgbin is the newest installed version's bin
# (the package is installed when none is), as_pg runs a command as the postgres user when
# root, and on exit every pid in $pids is killed, the cluster stopped and $work removed.
pg_scratch() {
  ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || install_missing initdb:postgresql
  pgbin=$(dirname "$(ls -d /usr/lib/postgresql/*/bin/initdb | sort -V | tail -1)")
  work=$(mktemp -d); chmod 755 "$work"
  pids=()
  trap pg_scratch_stop EXIT
}
# Starts pg_scratch's cluster in $work/pg on 127.0.0.1, port $1 ($pgport), user keyhook with a
# random password ($password), 300 connections and the postgresql.conf lines $2...; then
# defines psql, which runs as keyhook against it.
pg_start() {
  pgport=$1; shift
  password=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
  mkdir -p "$work/pg"; printf '%s' "$password" >"$work/pg/pwfile"
  [ "$(id -u)" = 0 ] && chown -R postgres "$work/pg"
  as_pg "$pgbin/initdb" -D "$work/pg/data" -U keyhook -E UTF8 --no-locale -A scram-sha-256 \
    --pwfile="$work/pg/pwfile" >/dev/null
  rm -f "$work/pg/pwfile"
  printf '%s\n' "listen_addresses = '127.0.0.1'" "unix_socket_directories = '$work/pg'" \
    'max_connections = 300' "$@" >>"$work/pg/data/postgresql.conf"
  printf 'local all all trust\nhost all all 127.0.0.1/32 scram-sha-256\n' >"$work/pg/data/pg_hba.conf"
  as_pg "$pgbin/pg_ctl" -D "$work/pg/data" -l "$work/pg/log" -o "-p $pgport" -w start >/dev/null
  psql() { PGPASSWORD=$password "$pgbin/psql" -h 127.0.0.1 -p "$pgport" -U keyhook -qAtX -v ON_ERROR_STOP=1 "$@"; }
}
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
pg_scratch_stop() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  [ -f "$work/pg/data/postmaster.pid" ] && as_pg "$pgbin/pg_ctl" -D "$work/pg/data" stop -m immediate -w >/dev/null 2>&1
  rm -rf "$work"
}

# A scratch directory, $work, for a script that starts one server and sets $server to its
# pid: on exit (or when the script calls it) scratch_stop stops that server, waits for it,
# and removes the directory.
server_scratch() {
  work=$(mktemp -d)
  server=
  trap scratch_stop EXIT
}
scratch_stop() {
  if [ -n "$server" ]; then
    kill "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
  fi
  rm -rf "$work"
}

# Waits up to $2 tenths of a second (50 unless given) for the line saying that the server
# logging to the file $1 listens; 1 if it never came.
listening() {
  local _
  for _ in $(seq "${2:-50}"); do grep -qs listening "$1" && return 0; sleep 0.1; done
  return 1
}

# The port that `keyhook serve --bind 127.0.0.1:0`, the process $2 logging to the file $1,
# says it listens on, printed once it says so (waiting up to ten seconds); 1 if it never did,
# with its log on stderr when it exited first.
serve_port() {
  local _ p
  for _ in $(seq 100); do
    # The log may not exist yet when the server has only just started.
    p=$(sed -nE '1s/^keyhook: listening on http:\/\/127\.0\.0\.1:([0-9]+) .*/\1/p' "$1" 2>/dev/null || true)
    if [ -n "$p" ]; then echo "$p"; return 0; fi
    kill -0 "$2" 2>/dev/null || { cat "$1" >&2; return 1; }
    sleep 0.1
  done
  return 1
}

# A free TCP port on loopback.
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# The database of the serve benchmarks, in the SQLite file $2, made with the keyhook binary $1:
# the caller's key (printed), three more of the same user (the list answered has four) and $3
# keys of 1,000 other users (seed_other_keys).
serve_db() {
  local key i
  key=$("$1" --db "$2" --user bench keys create --name bench --quiet)
  # keyhook refuses to show a new key to /dev/null; these are not used.
  for i in 1 2 3; do "$1" --db "$2" --user bench keys create --name "ci-$i" --quiet >"$2.unused-key"; done
  rm -f "$2.unused-key"
  seed_other_keys "$2" "$3"
  echo "$key"
}

# Writes $2 keys of 1,000 other users (user-1 ... user-1000) into the SQLite file $1, straight
# into the table (a key per process would take minutes): random hashes, as real keys would
# have. The servers' benchmarks list the caller's keys among them.
seed_other_keys() {
  sqlite3 "$1" <<SQL
PRAGMA foreign_keys = ON;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000)
INSERT INTO users (id, created_at) SELECT 'user-' || i, 0 FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $2)
INSERT INTO api_keys (id, user_id, name, key_hash, key_prefix, permission, full_access,
                      profile_ids, created_at)
SELECT lower(hex(randomblob(16))), 'user-' || (i % 1000 + 1), 'key ' || i,
       lower(hex(randomblob(32))), 'kp_' || lower(hex(randomblob(4))), 'readwrite', 1, '[]',
       1700000000000 + i
FROM n;
SQL
}

# Queues $2 post.published events of user bench in the SQLite file $1, each with a pending
# delivery, due now, to every webhook in it: written with sqlite3 in one transaction (a
# process per event would dominate a benchmark's setup).
queue_events() {
  sqlite3 "$1" <<SQL
PRAGMA foreign_keys = ON;
BEGIN;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $2)
INSERT INTO events (id, user_id, event, payload, created_at)
SELECT printf('evt_%032x', i), 'bench', 'post.published',
       CAST(printf('{"id":"evt_%032x","event":"post.published","createdAt":"2026-11-22T00:00:00.000Z","data":{"postId":"p_%d"}}', i, i) AS BLOB),
       1700000000000
FROM n;
INSERT INTO deliveries (id, event_id, webhook_id, state, attempts, next_attempt_at, created_at, updated_at)
SELECT 'dlv_' || lower(hex(randomblob(12))), e.id, w.id, 'pending', 0, 0, 0, 0
FROM events e CROSS JOIN webhooks w;
COMMIT;
SQL
}
