#!/usr/bin/env bash
# Runs schemathesis against a real `keyhook serve`, every check on, from the document the server
# itself serves at /api/v1/openapi.json. Exits non-zero on any failure, or if the server logged
# a panic or an internal error.
#
#   bench/schemathesis.sh                   # the default run (about 35 s once installed)
#   bench/schemathesis.sh --seed 42 -n 1000 # more arguments go to `schemathesis run`
#
# bench/schemathesis_hooks.py changes no check and drops no failure: it keeps the cases that
# are generated to be valid inside the rules the document's schemas leave to descriptions
# (expiresAt in the future; no private IP literal as a webhook host; no invisible character
# above the Basic Multilingual Plane in a key's name or profile ids), and keeps the run's own key from being
# deleted by DELETE /api-keys/{id} (after which every request would be a 401 that tests
# nothing).
#
# It installs schemathesis from PyPI into target/schemathesis-venv (once; delete the folder to
# upgrade), builds keyhook, starts `keyhook serve --bind 127.0.0.1:0` on a database in a
# temporary folder, creates a readwrite key with the CLI, runs schemathesis, stops the server
# and removes the folder. A report (JUnit XML) and the server's log are left in
# target/schemathesis-report/.
#
# No request may leave the machine. Schemathesis generates webhook URLs, and the server runs
# WITHOUT --allow-private-targets, so that the SSRF guard is tested as shipped: it refuses
# private IP literals when a webhook is created, but accepts host names, and a test ping
# (POST /webhooks/{id}/test) or an event delivery (POST /events enqueues them; the outbox worker
# runs inside `serve`) would resolve such a name and connect to whatever it resolves to.
# So the server and schemathesis run in a network namespace of their own (`unshare -n`, as
# root, or `unshare -rn` as a user), where only the loopback interface exists: every delivery
# fails with a DNS or connect error, which is what the API answers then (a 200 test result with
# `delivered: false`). That keeps every operation in the run, test pings and events included,
# rather than excluding them. Where no namespace can be made (or KEYHOOK_SCHEMATHESIS_NETNS=0),
# the script says so and excludes the two operations that send anything
# (POST /webhooks/{id}/test and POST /events) instead.
# --delivery-timeout 1s bounds each attempt either way.
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
. bench/lib.sh
VENV=$ROOT/target/schemathesis-venv
REPORT=$ROOT/target/schemathesis-report

if [[ "${1:-}" == "--inside" ]]; then
    # Second stage, inside the network namespace when there is one: serve and test.
    shift
    work=$1 isolated=$2
    shift 2
    if [[ $isolated == yes ]]; then
        ip link set lo up
    fi
    bin=$ROOT/target/debug/keyhook
    db=$work/keyhook.db
    "$bin" --db "$db" serve --bind 127.0.0.1:0 --delivery-timeout 1s 2>"$work/serve.log" &
    server=$!
    trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true' EXIT
    port=$(serve_port "$work/serve.log" "$server") ||
        { echo "schemathesis.sh: keyhook serve did not start" >&2; exit 1; }
    base=http://127.0.0.1:$port/api/v1
    exclude=()
    if [[ $isolated != yes ]]; then
        exclude=(--exclude-operation-id testWebhook --exclude-operation-id emitEvent)
    fi
    rc=0
    (
        cd "$work"
        KEYHOOK_SCHEMATHESIS_KEY_ID=$(cat "$work/key-id") \
        KEYHOOK_SCHEMATHESIS_KEY_PREFIX=$(cat "$work/key-prefix") \
        SCHEMATHESIS_HOOKS=$ROOT/bench/schemathesis_hooks.py \
            "$VENV/bin/schemathesis" --config-file "$ROOT/bench/schemathesis.toml" run "$base/openapi.json" \
            --url "$base" \
            --checks all \
            -H "Authorization: Bearer $(cat "$work/key")" \
            --request-timeout 10 \
            --generation-database none \
            --report junit --report-dir "$REPORT" \
            --no-color \
            "${exclude[@]}" "$@"
    ) || rc=$?
    kill "$server"
    wait "$server" || true
    trap - EXIT
    cp "$work/serve.log" "$REPORT/serve.log"
    if grep -q "panicked" "$work/serve.log"; then
        echo "schemathesis.sh: keyhook serve panicked:" >&2
        grep -B2 -A5 "panicked" "$work/serve.log" >&2
        rc=1
    fi
    if grep -q "internal error" "$work/serve.log"; then
        echo "schemathesis.sh: keyhook serve logged internal errors:" >&2
        grep "internal error" "$work/serve.log" | sort | uniq -c >&2
        rc=1
    fi
    echo "schemathesis.sh: $(grep -c ' /api/v1/' "$work/serve.log" || true) requests served"
    exit "$rc"
fi

# A venv whose schemathesis cannot run (one that was moved: its scripts name the old path)
# is made again.
if ! "$VENV/bin/schemathesis" --version >/dev/null 2>&1; then
    echo "schemathesis.sh: installing schemathesis into $VENV"
    python3 -m venv --clear "$VENV"
    "$VENV/bin/pip" install --quiet --upgrade pip
    "$VENV/bin/pip" install --quiet 'schemathesis==4.32.5'
fi
"$VENV/bin/schemathesis" --version

cargo build --quiet --bin keyhook

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
created=$("$ROOT/target/debug/keyhook" --db "$work/keyhook.db" --json keys create --name schemathesis)
python3 - "$work" "$created" <<'PY'
import json, sys
work, created = sys.argv[1], json.loads(sys.argv[2])["data"]
for name, field in (("key", "key"), ("key-id", "id"), ("key-prefix", "keyPrefix")):
    with open(f"{work}/{name}", "w") as f:
        f.write(created[field])
PY

rc=0
if [[ ${KEYHOOK_SCHEMATHESIS_NETNS:-1} == 0 ]]; then
    echo "schemathesis.sh: KEYHOOK_SCHEMATHESIS_NETNS=0: no network namespace; excluding" \
        "the operations that send requests (testWebhook, emitEvent)" >&2
    "$0" --inside "$work" no "$@" || rc=$?
elif [[ $(id -u) == 0 ]] && unshare -n true 2>/dev/null && command -v ip >/dev/null; then
    unshare -n "$0" --inside "$work" yes "$@" || rc=$?
elif unshare -rn true 2>/dev/null && command -v ip >/dev/null; then
    unshare -rn "$0" --inside "$work" yes "$@" || rc=$?
else
    echo "schemathesis.sh: cannot make a network namespace (unshare -n); excluding the" \
        "operations that send requests (testWebhook, emitEvent)" >&2
    "$0" --inside "$work" no "$@" || rc=$?
fi
exit "$rc"
