#!/usr/bin/env bash
# `keyhook keys create --quiet` as a whole process, against the sqlite3 shell inserting a
# similar row into a table of the same shape, side by side with hyperfine in the same run
# (the goal: keyhook's median at most 1.3x sqlite3's).
#
# Both do the same work on the file: each commit synced, and the write-ahead
# log folded back into the file and removed when the process, the last connection, exits
# (checked after the runs: no keyhook.db-wal is left).
#
# The sqlite3 table has api_keys' columns, STRICT, with the same three indexes (the unique one
# on key_hash included), in WAL mode like keyhook's file. Two sqlite3 variants are measured:
# the plain INSERT (the sqlite3 shell's default synchronous=FULL: the WAL synced at each
# commit, as keyhook's one-shot commands set it, SqliteBackend::for_one_command) and the same
# INSERT after `PRAGMA synchronous = NORMAL` (what `serve` uses). The ratio is reported against
# both; the one in turns, the figure, against the plain INSERT.
#
# hyperfine runs all of one command's runs, then the next's: on a machine shared with other
# work the load moves between them. So the same three (and BASE, another build, if given)
# are then also run in turns, one run of each per round (RUNS rounds), and the medians and
# quartiles of those runs compared: the figure to trust on a busy machine.
#
# What keyhook spends over sqlite3 on a quiet disk is starting the process: `keyhook --version`
# took 2.7 ms of CPU and ~350 page faults against sqlite3's 1.5 ms and 136, half of keyhook's
# in the dynamic linker's relative relocations (perf record -e page-faults). The steady
# proxies of a whole `keys create` on a loaded machine (callgrind's instructions, perf stat's
# page faults, strace -c's system calls), on a file holding a few keys:
#   main at 62afec8                            3.48 M instructions, 466 faults, 277 calls
#   + secrets at rest (5ea475a)                3.58 M, 480, 287 (the secrets key looked for)
#   + keys' own clap branch, no key lookup     3.04 M, 380, 279
#   + keys create's own command alone          2.91 M, 348, 279
#   sqlite3 INSERT                             2.70 M, 191, 244
# (each keyhook with the same syncs: 5 fsync and the printed key's fdatasync).
# Of keyhook's, ~0.68 M are the dynamic linker's (0.6 M relocating: 26,600 relative
# relocations, ~140 of the faults the copy-on-write of .data.rel.ro), ~0.94 M SQLite parsing
# keyhook's schema at the first statement, ~0.37 M clap (0.98 M on main: now only `keys
# create` is built, keyhook_cli::parse), ~0.32 M the insert's transaction, 0.15 M closing
# (the checkpoint), ~0.2 M std's start (glibc reads /proc/self/maps for the main thread's
# stack guard).
# Measured and not kept: a non-PIE executable (-C relocation-model=static: 1.9 ms, but no
# address-space randomisation of a binary that reads untrusted database files); packed
# relocations (-Wl,-z,pack-relative-relocs through a build script probing the linker: DT_RELR
# with PIE, BIND_NOW and RELRO kept, but glibc 2.36's loader walks each bitmap word bit by
# bit, so a create took 60 K more instructions and 12 more page faults, not fewer); SQLite's
# fdatasync instead of fsync (-DHAVE_FDATASYNC: under the noise in turns).
#
#   bench/cli-create.sh               # RUNS=200 WARMUP=5 are the defaults
#   BIN=/path/to/keyhook bench/cli-create.sh   # measure another build (an older one, say)
#   BASE=/path/to/old/keyhook bench/cli-create.sh   # and an older build in the same turns
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
RUNS=${RUNS:-200}
WARMUP=${WARMUP:-5}
TARGET=1.3

install_missing hyperfine sqlite3 python3
bin=$(keyhook_bin)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
kdb=$work/k.db
sdb=$work/s.db

# keyhook's file: created, migrated and holding one key, as after a first use.
# (Into a file: keyhook refuses to send a new key to /dev/null, where it would be lost.)
"$bin" --db "$kdb" keys create --name warm --quiet >"$work/unused-key"

# The sqlite3 file: api_keys as in src/store/migrations.rs (without the users table and its
# foreign key, which the sqlite3 shell would not enforce anyway), WAL like keyhook.
sqlite3 "$sdb" >/dev/null <<'SQL'
PRAGMA journal_mode = WAL;
CREATE TABLE api_keys (
   key_hash     TEXT PRIMARY KEY,
   id           TEXT NOT NULL UNIQUE,
   user_id      TEXT NOT NULL,
   name         TEXT NOT NULL,
   key_prefix   TEXT NOT NULL,
   permission   TEXT NOT NULL CHECK (permission IN ('readwrite', 'readonly')),
   full_access  INTEGER NOT NULL CHECK (full_access IN (0, 1)),
   profile_ids  TEXT NOT NULL DEFAULT '[]',
   last_used_at INTEGER,
   expires_at   INTEGER,
   created_at   INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
CREATE INDEX api_keys_user ON api_keys(user_id, created_at);
CREATE INDEX api_keys_prefix ON api_keys(key_prefix);
INSERT INTO api_keys (id, user_id, name, key_hash, key_prefix, permission, full_access,
                      profile_ids, created_at)
VALUES (lower(hex(randomblob(16))), 'default', 'warm', lower(hex(randomblob(32))),
        'kp_' || lower(hex(randomblob(4))), 'readwrite', 1, '[]', 0);
SQL
[ "$(sqlite3 "$sdb" 'PRAGMA journal_mode')" = wal ] || { echo "s.db is not in WAL mode" >&2; exit 1; }

insert="INSERT INTO api_keys (id, user_id, name, key_hash, key_prefix, permission, full_access, \
profile_ids, last_used_at, expires_at, created_at) VALUES (lower(hex(randomblob(16))), 'default', \
'bench', lower(hex(randomblob(32))), 'kp_' || lower(hex(randomblob(4))), 'readwrite', 1, '[]', \
NULL, NULL, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER))"

json=$work/hyperfine.json
# --shell=none: no shell start-up in either measurement; the quoted SQL stays one argument.
# --output=pipe: hyperfine's default sends a command's output to /dev/null, where keyhook
# refuses to print a new key (it would be lost); a pipe that hyperfine drains is what
# `KEY=$(keyhook keys create --quiet)` does. sqlite3's INSERT prints nothing either way.
hyperfine --shell=none --output=pipe --warmup "$WARMUP" --runs "$RUNS" --export-json "$json" \
  -n keyhook "$bin --db $kdb keys create --name bench --quiet" \
  -n sqlite3 "sqlite3 $sdb \"$insert\"" \
  -n "sqlite3 (synchronous=NORMAL)" "sqlite3 $sdb \"PRAGMA synchronous = NORMAL; $insert\""

# Each keyhook process left the file whole: no log beside it (before sqlite3 opens it below).
[ ! -e "$kdb-wal" ] || { echo "keyhook left $(stat -c %s "$kdb-wal") bytes in $kdb-wal" >&2; exit 1; }
[ ! -e "$sdb-wal" ] || { echo "sqlite3 left its log" >&2; exit 1; }

# Every run must have written its row.
krows=$(sqlite3 "$kdb" "SELECT count(*) FROM api_keys WHERE name = 'bench'")
srows=$(sqlite3 "$sdb" "SELECT count(*) FROM api_keys WHERE name = 'bench'")
expect=$(( (RUNS + WARMUP) ))
[ "$krows" -eq "$expect" ] || { echo "keyhook wrote $krows rows, expected $expect" >&2; exit 1; }
[ "$srows" -eq $(( 2 * expect )) ] || { echo "sqlite3 wrote $srows rows, expected $(( 2 * expect ))" >&2; exit 1; }

# Listing: the same user's keys (about RUNS + WARMUP of them) as JSON from both.
list_json=$work/list.json
hyperfine --shell=none --warmup "$WARMUP" --runs "$RUNS" --export-json "$list_json" \
  -n "keyhook keys list" "$bin --db $kdb --json keys list" \
  -n "sqlite3 select" "sqlite3 -json $sdb \"SELECT id, user_id, key_prefix, name, permission, full_access, profile_ids, last_used_at, expires_at, created_at FROM api_keys WHERE user_id = 'default' ORDER BY created_at, id\"" >/dev/null

python3 - "$list_json" <<'PY'
import json, sys
from figure import figure
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
k, s = r["keyhook keys list"], r["sqlite3 select"]
print(f"list: keyhook {k['median'] * 1000:.2f}ms, sqlite3 {s['median'] * 1000:.2f}ms median; "
      f"median ratio keyhook / sqlite3 list {k['median'] / s['median']:.2f}")
figure("cli-create", "keys list --json, median (hyperfine)", k["median"] * 1000, "ms",
       "sqlite3 -json SELECT", s["median"] * 1000)
PY

python3 - "$json" "$TARGET" <<'PY'
import json, sys
from figure import figure
results = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
target = float(sys.argv[2])
ms = lambda s: s * 1000
k = results["keyhook"]
print()
print(f"{'command':<30} {'median':>9} {'mean':>9} {'stddev':>8} {'min':>8} {'max':>8}  runs")
for name, r in results.items():
    print(f"{name:<30} {ms(r['median']):>7.2f}ms {ms(r['mean']):>7.2f}ms {ms(r['stddev']):>6.2f}ms "
          f"{ms(r['min']):>6.2f}ms {ms(r['max']):>6.2f}ms  {len(r['times'])}")
print()
for name in ("sqlite3", "sqlite3 (synchronous=NORMAL)"):
    ratio = k["median"] / results[name]["median"]
    verdict = "met" if ratio <= target else "MISSED"
    print(f"median ratio keyhook / {name:<29} {ratio:5.2f}  (target <= {target}: {verdict})")
    figure("cli-create", "keys create --quiet, median (hyperfine)", ms(k["median"]), "ms",
           name, ms(results[name]["median"]), f"ratio <= {target}")
PY

# In turns: one run of each per round, on files of their own (BASE's beside keyhook's).
if [ -n "${BASE:-}" ]; then
  "$BASE" --db "$work/base.db" keys create --name warm --quiet >"$work/unused-key"
fi
python3 - "$RUNS" "$TARGET" "$bin" "$kdb" "$sdb" "$insert" "${BASE:-}" "$work" <<'PY'
import statistics, subprocess, sys, time
from figure import figure
runs, target, bin_, kdb, sdb, insert, base, work = sys.argv[1:]
cmds = [("keyhook", [bin_, "--db", kdb, "keys", "create", "--name", "turns", "--quiet"])]
if base:
    cmds.append(("BASE", [base, "--db", work + "/base.db", "keys", "create", "--name", "turns", "--quiet"]))
cmds.append(("sqlite3", ["sqlite3", sdb, insert]))
times = {name: [] for name, _ in cmds}
with open(work + "/turns-out", "w") as out:
    for _ in range(int(runs)):
        for name, argv in cmds:
            t = time.perf_counter()
            subprocess.run(argv, stdout=out, check=True)
            times[name].append(time.perf_counter() - t)
s = statistics.median(times["sqlite3"])
print()
print(f"in turns ({runs} rounds):")
for name, v in times.items():
    v.sort()
    q = lambda p: v[int(len(v) * p)] * 1000
    m = statistics.median(v)
    print(f"  {name:<8} median {m * 1000:6.2f}ms  quartiles {q(.25):6.2f}ms {q(.75):6.2f}ms  / sqlite3 {m / s:5.2f}")
k = statistics.median(times["keyhook"]) / s
print(f"median ratio in turns keyhook / sqlite3 {k:5.2f}  (target <= {target}: {'met' if k <= float(target) else 'MISSED'})")
figure("cli-create", "keys create --quiet, median in turns", statistics.median(times["keyhook"]) * 1000,
       "ms", "sqlite3 INSERT, same turns", s * 1000, f"ratio <= {target}")
if base:
    figure("cli-create", "keys create --quiet (BASE), median in turns", statistics.median(times["BASE"]) * 1000,
           "ms", "sqlite3 INSERT, same turns", s * 1000)
PY
