#!/usr/bin/env bash
# The secret scanners keyhook's users run, with the rules keyhook ships for its keys
# (.ci/tools.sh calls this): detect-secrets (PyPI) with docs/detect_secrets_keyhook.py, and
# secretlint (npm) with docs/secretlint-rule-keyhook and its .secretlintrc.json. Each must find
# a real key (`keyhook keys create` on a throwaway database) in every file it was written to,
# mark it as having a valid checksum, find a key-shaped token with a wrong checksum (a key
# from before checksums may look so) only as such, and report none of the near misses (a
# longer or shorter hex run, upper case, a non-hex digit). Pinned, installed when missing
# under target/ci-tools.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
TOOLS=$ROOT/target/ci-tools
DETECT_SECRETS_VERSION=1.5.0
SECRETLINT_VERSION=13.0.6
say() { echo "secret-scanners.sh: $*"; }

# PyPI, pinned, into a venv of its own.
DS=$TOOLS/detect-secrets/bin
# (pip's answer read whole: `grep -q` closing the pipe early would fail it under pipefail.)
if [[ $("$DS/pip" show detect-secrets 2>/dev/null | grep -x "Version: .*") != "Version: $DETECT_SECRETS_VERSION" ]]; then
    say "pip install detect-secrets==$DETECT_SECRETS_VERSION"
    python3 -m venv --clear "$TOOLS/detect-secrets"
    "$DS/pip" install --quiet "detect-secrets==$DETECT_SECRETS_VERSION"
fi
# npm, pinned, with the rule as a local package (as docs/keys.md says to install it).
SL=$TOOLS/secretlint
RULE=$ROOT/docs/secretlint-rule-keyhook
if [[ $(node -p "require('$SL/node_modules/secretlint/package.json').version" 2>/dev/null) != "$SECRETLINT_VERSION" ||
    $(realpath "$SL/node_modules/secretlint-rule-keyhook" 2>/dev/null) != "$RULE" ]]; then
    say "npm install secretlint@$SECRETLINT_VERSION $RULE"
    rm -rf "$SL"
    mkdir -p "$SL"
    npm install --prefix "$SL" --no-audit --no-fund --silent "secretlint@$SECRETLINT_VERSION" "$RULE"
fi

cargo build --quiet --bin keyhook
bin=$ROOT/target/debug/keyhook
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
key=$("$bin" --db "$work/keyhook.db" --json keys create --name scanners |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["data"]["key"])')
# A key of the same shape whose last 8 digits are not the checksum, and the near misses.
legacy=$(python3 -c 'import sys; k = sys.argv[1]; print(k[:59] + "%08x" % (int(k[59:], 16) ^ 1))' "$key")
hex=${key#kp_}
tree=$work/tree
mkdir -p "$tree"
printf 'export KEYHOOK_KEY=%s\n' "$key" >"$tree/leak.env"
printf '{"keyhook": {"token": "%s"}}\n' "$key" >"$tree/config.json"
printf 'curl -H "Authorization: Bearer %s" http://127.0.0.1:8787/api/v1/api-keys\n' "$key" >"$tree/call.sh"
printf 'OLD_KEY=%s\n' "$legacy" >"$tree/legacy.env"
{
    printf 'longer=kp_%s0\n' "$hex"
    printf 'shorter=kp_%s\n' "${hex:1}"
    printf 'upper=KP_%s\n' "${hex^^}"
    printf 'nonhex=kp_%sg\n' "${hex:1}"
    printf 'dash=kp-%s\n' "$hex"
} >"$tree/near-misses.txt"
files=(call.sh config.json leak.env legacy.env near-misses.txt)

say "detect-secrets $DETECT_SECRETS_VERSION --plugin docs/detect_secrets_keyhook.py"
for only in "" --only-verified; do
    (cd "$tree" && "$DS/detect-secrets" scan $only --plugin "$ROOT/docs/detect_secrets_keyhook.py" "${files[@]}") >"$work/ds.json"
    "$DS/python" - "$work/ds.json" "$key" "$legacy" "$only" <<'PY'
import hashlib, json, sys
report, key, legacy, only = sys.argv[1:5]
sha = lambda s: hashlib.sha1(s.encode()).hexdigest()
found = sorted((name, r["hashed_secret"], r["is_verified"])
               for name, results in json.load(open(report))["results"].items()
               for r in results if r["type"] == "keyhook API key")
want = sorted([(f, sha(key), True) for f in ("call.sh", "config.json", "leak.env")]
              + ([] if only else [("legacy.env", sha(legacy), False)]))
assert found == want, (found, want)
shown = ", ".join(n + (" (valid checksum)" if v else " (no valid checksum)") for n, _, v in found)
print(f"  {only or 'default'}: {shown}; nothing in near-misses.txt")
PY
done

say "secretlint $SECRETLINT_VERSION with secretlint-rule-keyhook"
for require in false true; do
    set +e
    (cd "$tree" && "$SL/node_modules/.bin/secretlint" --format json \
        --secretlintrcJSON "{\"rules\": [{\"id\": \"secretlint-rule-keyhook\", \"options\": {\"requireChecksum\": $require}}]}" \
        "${files[@]}") >"$work/sl.json"
    status=$?
    set -e
    [[ $status == 1 ]] || { say "secretlint exited $status, want 1 (found)"; exit 1; }
    python3 - "$work/sl.json" "$key" "$require" <<'PY'
import json, os, sys
report, key, require = sys.argv[1:4]
found = sorted((os.path.basename(f["filePath"]), m["messageId"], f["sourceContent"][m["range"][0]:m["range"][1]] == key)
               for f in json.load(open(report)) for m in f["messages"]
               if m["ruleId"] == "secretlint-rule-keyhook")
want = sorted([(f, "KEYHOOK_API_KEY", True) for f in ("call.sh", "config.json", "leak.env")]
              + ([] if require == "true" else [("legacy.env", "KEYHOOK_API_KEY_NO_CHECKSUM", False)]))
assert found == want, (found, want)
shown = ", ".join(f"{n} {m}" for n, m, _ in found)
print(f"  requireChecksum {require}: {shown}; nothing in near-misses.txt")
PY
done
# The shipped .secretlintrc.json, as a user copies it: the stylish output, without the key.
cp "$RULE/.secretlintrc.json" "$tree/"
set +e
(cd "$tree" && "$SL/node_modules/.bin/secretlint" --no-color "${files[@]}") >"$work/sl.txt"
status=$?
set -e
[[ $status == 1 ]] || { cat "$work/sl.txt"; say "secretlint exited $status, want 1"; exit 1; }
if grep -qF "$hex" "$work/sl.txt"; then
    say "secretlint's output shows the key"
    exit 1
fi
grep -c KEYHOOK_API_KEY "$work/sl.txt" | sed 's/^/  docs .secretlintrc.json: /; s/$/ findings, the key not shown/'
say "accepted"
