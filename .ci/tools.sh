#!/usr/bin/env bash
# The tools keyhook's users already run, pointed at keyhook; .ci/run calls this
# after `cargo test`. Each tool is installed only when missing, at a pinned version, under
# target/ci-tools (npm, PyPI) or from Debian (apt-get, as root):
#
#   - Spectral (spectral:oas) and Redocly lint the OpenAPI document `serve` answers with:
#     0 errors;
#   - JavaScript's RegExp (node, with and without the u flag) and Python's `re` read every
#     pattern of the document as the regex crate does, on the samples whose regex verdicts
#     tests/cli/snapshots/openapi-patterns.json holds (written by cargo test);
#   - openapi-python-client generates a client from the document, and .ci/tools/drive_client.py
#     drives every operation with it against that `serve` (a missing operation fails);
#   - promtool check metrics passes on /metrics in the Prometheus text format, and the
#     OpenMetrics answer parses with the Python client's OpenMetrics parser (promtool reads
#     only the text format);
#   - mandoc -T lint: no warning on any man page;
#   - fish completes `keyhook --color <TAB>`, event names, and no file for a duration;
#   - Python's cryptography and Node's crypto verify every Ed25519 (v1a) delivery with the
#     public key alone, with the code docs/signatures.md shows (.ci/verify-v1a.sh);
#   - schemathesis (bench/schemathesis.sh, pinned there) finds nothing, with a short budget
#     (SCHEMATHESIS_EXAMPLES, default 20 per operation; bench/schemathesis.sh alone runs
#     its default).
#
# Network: the server, the generated client and the receiver it talks to are on 127.0.0.1
# only; the installs go to the package registries.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
. bench/lib.sh
TOOLS=$ROOT/target/ci-tools
SPECTRAL_VERSION=6.16.3
REDOCLY_VERSION=2.77.0
OPENAPI_PYTHON_CLIENT_VERSION=0.29.1
PROMETHEUS_CLIENT_VERSION=0.26.0
say() { echo "tools.sh: $*"; }

# Debian: promtool (prometheus), mandoc, fish, curl.
need=()
command -v promtool >/dev/null || need+=(prometheus)
command -v mandoc >/dev/null || need+=(mandoc)
command -v fish >/dev/null || need+=(fish)
command -v curl >/dev/null || need+=(curl)
if ((${#need[@]})); then
    say "apt-get install ${need[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
# npm, pinned, into target/ci-tools/node.
BIN=$TOOLS/node/node_modules/.bin
npm_pinned "$TOOLS/node" "@stoplight/spectral-cli@$SPECTRAL_VERSION" "@redocly/cli@$REDOCLY_VERSION"
# PyPI, pinned, into a venv.
PY=$TOOLS/venv/bin
if ! "$PY/pip" show openapi-python-client 2>/dev/null | grep -qx "Version: $OPENAPI_PYTHON_CLIENT_VERSION" ||
    ! "$PY/pip" show prometheus-client 2>/dev/null | grep -qx "Version: $PROMETHEUS_CLIENT_VERSION"; then
    say "pip install openapi-python-client==$OPENAPI_PYTHON_CLIENT_VERSION prometheus-client==$PROMETHEUS_CLIENT_VERSION"
    # --clear: a venv that was moved (its scripts name the old path) is made again.
    python3 -m venv --clear "$TOOLS/venv"
    "$PY/pip" install --quiet "openapi-python-client==$OPENAPI_PYTHON_CLIENT_VERSION" \
        "prometheus-client==$PROMETHEUS_CLIENT_VERSION"
fi

cargo build --quiet --bin keyhook
server_scratch
bin=$ROOT/target/debug/keyhook
key=$("$bin" --db "$work/keyhook.db" --json keys create --name ci-tools |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["data"]["key"])')
"$bin" --db "$work/keyhook.db" --allow-private-targets serve --bind 127.0.0.1:0 2>"$work/serve.log" &
server=$!
port=$(serve_port "$work/serve.log" "$server") || { say "keyhook serve did not start"; exit 1; }
base=http://127.0.0.1:$port
curl -sf "$base/api/v1/openapi.json" -o "$work/openapi.json"

say "spectral lint (spectral:oas)"
printf 'extends: ["spectral:oas"]\n' >"$work/.spectral.yaml"
(cd "$work" && "$BIN/spectral" lint --display-only-failures --fail-severity error -r .spectral.yaml openapi.json)
say "redocly lint"
(cd "$work" && "$BIN/redocly" lint --format stylish openapi.json 2>&1 | grep -v '^\s*$' | tail -3)

say "the patterns in JavaScript (with and without u) and Python re"
node .ci/tools/patterns.mjs tests/cli/snapshots/openapi-patterns.json
"$PY/python" .ci/tools/patterns.py tests/cli/snapshots/openapi-patterns.json

say "openapi-python-client: generate, then drive every operation"
printf 'post_hooks: []\n' >"$work/client.yaml"
(cd "$work" && "$PY/openapi-python-client" generate --path openapi.json --meta none \
    --output-path "$work/pkg/keyhook_client" --config client.yaml >"$work/generate.log" 2>&1) ||
    { cat "$work/generate.log"; exit 1; }
if grep -q "Warning" "$work/generate.log"; then
    cat "$work/generate.log"
    say "openapi-python-client warned: some of the API may be missing from the client"
    exit 1
fi
"$PY/python" .ci/tools/drive_client.py "$base/api/v1" "$key" "$work/openapi.json" "$work/pkg"

say "promtool check metrics (text format), OpenMetrics parser"
curl -sf "$base/metrics" -o "$work/metrics.txt"
promtool check metrics <"$work/metrics.txt"
curl -sf -H 'Accept: application/openmetrics-text; version=1.0.0' "$base/metrics" -o "$work/metrics.om"
"$PY/python" - "$work/metrics.om" <<'PY'
import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families
families = list(text_string_to_metric_families(open(sys.argv[1], encoding="utf-8").read()))
names = {f.name for f in families}
want = {"keyhook_http_requests", "keyhook_http_request_duration_seconds", "keyhook_auth_failures",
        "keyhook_deliveries", "keyhook_outbox_pending", "keyhook_outbox_oldest_pending_age_seconds"}
assert want <= names, want - names
print(f"OpenMetrics: {len(families)} families, {sum(len(f.samples) for f in families)} samples")
PY

say "mandoc -T lint"
lint=$(mandoc -T lint -W warning man/*.1 2>&1 || true)
if [[ -n $lint ]]; then
    echo "$lint"
    exit 1
fi
say "$(ls man/*.1 | wc -l) man pages, no warning"

say "fish completions"
mkdir -p "$work/cwd" && touch "$work/cwd/afile.txt"
# Event names come from the catalog: the scripts run `keyhook event-types list --names` on
# the database of KEYHOOK_DB, with this build's keyhook first on PATH.
"$bin" --db "$work/keyhook.db" event-types add post.updated >/dev/null
(cd "$work/cwd" && PATH="$(dirname "$bin"):$PATH" KEYHOOK_DB="$work/keyhook.db" fish --no-config -c "
    source $ROOT/completions/keyhook.fish
    set color (complete -C 'keyhook --color ' | string split -f1 \t)
    test (count \$color) = 3; and contains auto \$color; and contains always \$color; and contains never \$color
    or begin; echo \"--color: \$color\"; exit 1; end
    set events (complete -C 'keyhook webhooks create --url u --event ' | string split -f1 \t)
    contains post.published \$events; or begin; echo \"--event: \$events\"; exit 1; end
    set emit (complete -C 'keyhook events emit ' | string split -f1 \t)
    contains post.published \$emit; and contains post.updated \$emit; or begin; echo \"emit: \$emit\"; exit 1; end
    for line in 'keyhook keys create --expires-in ' 'keyhook webhooks replay abcd --since ' 'keyhook prune --older-than ' 'keyhook keys show ' 'keyhook webhooks rotate-secret x --grace '
        set got (complete -C \$line)
        contains afile.txt \$got; and begin; echo \"\$line: \$got\"; exit 1; end
    end
    for line in 'keyhook --db ' 'keyhook keys show x --db ' 'keyhook backup '
        set got (complete -C \$line)
        contains afile.txt \$got; or begin; echo \"\$line: \$got\"; exit 1; end
    end
")
scratch_stop
trap - EXIT
server=

say "schemathesis"
bench/schemathesis.sh --max-examples "${SCHEMATHESIS_EXAMPLES:-20}" | tail -4
.ci/cel-differential.sh
.ci/typescript-client.sh
.ci/portal-browser.sh
.ci/secret-scanners.sh
.ci/cel-conformance.sh
.ci/verify-v1a.sh
say "all accepted"
