#!/usr/bin/env bash
# Receivers verify keyhook's Ed25519 (`v1a`) signatures with the public key alone, with the
# code docs/signatures.md shows (.ci/tools.sh calls this): verify_v1a.py on Python's
# `cryptography` (PyPI, pinned, in a venv under target/ci-tools) is a real receiver in front
# of `keyhook deliver`, for an `ed25519` and a `both` webhook, before, during and after a
# rotation with a grace period; every delivery must verify with the webhook's current public
# key, and verify_v1a.mjs (Node's crypto) must agree on each. A changed body or timestamp
# verifies with neither. Network: 127.0.0.1 only, and PyPI for the install.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
TOOLS=$ROOT/target/ci-tools
CRYPTOGRAPHY_VERSION=44.0.0
say() { echo "verify-v1a.sh: $*"; }

PY=$TOOLS/v1a/bin
if [[ $("$PY/pip" show cryptography 2>/dev/null | grep -x "Version: .*") != "Version: $CRYPTOGRAPHY_VERSION" ]]; then
    say "pip install cryptography==$CRYPTOGRAPHY_VERSION"
    python3 -m venv --clear "$TOOLS/v1a"
    "$PY/pip" install --quiet "cryptography==$CRYPTOGRAPHY_VERSION"
fi

cargo build --quiet --bin keyhook
bin=$ROOT/target/debug/keyhook
work=$(mktemp -d)
rx=
cleanup() { [ -n "$rx" ] && kill "$rx" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

# The two verifiers, exactly as the page shows them: the fenced block whose first line names
# the file.
extract() {
    awk -v name="$1" '
        /^```/ { if (inside) exit; open = !open; first = open; next }
        first { first = 0; if (index($0, name)) inside = 1 }
        inside { print }
    ' docs/signatures.md >"$work/$1"
    [ -s "$work/$1" ] || { say "no $1 block in docs/signatures.md"; exit 1; }
}
extract verify_v1a.py
extract verify_v1a.mjs

# The receiver: each request is recorded (headers, body) with whether verify_v1a accepted it
# under the public key in the file keys/<webhook path>; 204 when it did, else 400.
cat >"$work/receiver.py" <<'EOF'
import base64, json, sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
sys.path.insert(0, sys.argv[2])
from verify_v1a import verify_v1a

work = sys.argv[2]

class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers["content-length"]))
        headers = {k.lower(): v for k, v in self.headers.items()}
        public_key = open(f"{work}/keys{self.path}").read().strip()
        ok = verify_v1a(public_key, headers, body)
        with open(f"{work}/requests.jsonl", "a") as f:
            f.write(json.dumps({"path": self.path, "key": public_key, "headers": headers,
                                "body": base64.b64encode(body).decode(), "ok": ok}) + "\n")
        self.send_response(204 if ok else 400)
        self.end_headers()

    def log_message(self, *args):
        pass

server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
EOF
mkdir -p "$work/keys"
# exec: the coprocess is the receiver itself, so that the kill at exit stops it (a subshell
# killed would leave it running, holding the caller's output open).
coproc RX { exec "$PY/python" "$work/receiver.py" 0 "$work"; }
rx=$RX_PID
read -r port <&"${RX[0]}"

kh() { "$bin" --db "$work/keyhook.db" --allow-private-targets "$@"; }
export XDG_CONFIG_HOME=$work/config
field() { python3 -c 'import json, sys; print(json.load(sys.stdin)["data"][sys.argv[1]])' "$1"; }
declare -A ids
for mode in ed25519 both; do
    w=$(kh --json webhooks create --url "http://127.0.0.1:$port/$mode" --event post.published --signing "$mode")
    ids[$mode]=$(field id <<<"$w")
    field publicKey <<<"$w" >"$work/keys/$mode"
done

round() {
    for _ in 1 2 3 4 5; do kh events emit post.published --data '{"n": 1}' >/dev/null; done
    kh deliver --once --retry-schedule= 2>/dev/null
}
round
# A rotation with a grace period: the deliveries carry the old and the new signatures; the
# receiver now holds the new public key only.
for mode in ed25519 both; do
    kh webhooks rotate-secret "${ids[$mode]}" --grace 1h --quiet | tail -1 >"$work/keys/$mode"
done
round

python3 - "$work/requests.jsonl" <<'EOF'
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
assert len(reqs) == 20, f"{len(reqs)} deliveries, not 20"
bad = [r for r in reqs if not r["ok"]]
assert not bad, f"{len(bad)} deliveries did not verify: {bad[0]['headers']}"
sigs = [r["headers"]["webhook-signature"].split() for r in reqs]
assert all(any(s.startswith("v1a,") for s in ss) for ss in sigs)
assert any(len(ss) == 4 for ss in sigs), "no delivery of `both` during the grace period"
EOF

# Node's crypto agrees on every recorded delivery, and both refuse a changed one.
cat >"$work/check.mjs" <<'EOF'
import { readFileSync } from "node:fs";
import { verifyV1a } from "./verify_v1a.mjs";
const reqs = readFileSync(process.argv[2], "utf8").trim().split("\n").map((l) => JSON.parse(l));
for (const r of reqs) {
  const body = Buffer.from(r.body, "base64");
  if (!verifyV1a(r.key, r.headers, body)) throw new Error(`node refused ${r.headers["webhook-id"]}`);
  if (verifyV1a(r.key, r.headers, Buffer.concat([body, Buffer.from(" ")])))
    throw new Error("node accepted a changed body");
  const ts = { ...r.headers, "webhook-timestamp": String(Number(r.headers["webhook-timestamp"]) + 1) };
  if (verifyV1a(r.key, ts, body)) throw new Error("node accepted a changed timestamp");
}
console.log(`node: ${reqs.length} deliveries verified`);
EOF
(cd "$work" && node check.mjs requests.jsonl)
"$PY/python" - "$work" <<'EOF'
import base64, json, sys
sys.path.insert(0, sys.argv[1])
from verify_v1a import verify_v1a
for line in open(f"{sys.argv[1]}/requests.jsonl"):
    r = json.loads(line)
    body = base64.b64decode(r["body"])
    assert not verify_v1a(r["key"], r["headers"], body + b" "), "accepted a changed body"
    h = dict(r["headers"], **{"webhook-signature": r["headers"]["webhook-signature"].replace("v1a,", "v1a,A", 1)})
    assert not verify_v1a(r["key"], h, body), "accepted a changed signature"
EOF
say "20 deliveries verified with the public key alone (cryptography $CRYPTOGRAPHY_VERSION, node $(node --version))"
