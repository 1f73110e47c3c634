#!/usr/bin/env bash
# A TypeScript client of keyhook, as its users make one (.ci/tools.sh calls this): openapi-typescript
# generates types from the document a real `serve` answers with, `tsc --strict` checks
# .ci/tools/typescript-client.ts against them, and node runs the result against that `serve`
# (openapi-fetch): it creates a key, reads an event type's schema and example, emits an event
# with data of several fields, sees it delivered to a receiver as sent, and reads the key's
# audit details. A free-form object of the document typed `Record<string, never>` (a bare
# `{"type": "object"}`) fails the compilation. The tools are pinned and installed, when
# missing, under target/ci-tools/node.
#
# Network: the server and the receiver are on 127.0.0.1 only; the install goes to npm.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
. bench/lib.sh
TOOLS=$ROOT/target/ci-tools
OPENAPI_TYPESCRIPT_VERSION=7.13.0
TYPESCRIPT_VERSION=5.9.3
OPENAPI_FETCH_VERSION=0.17.0
TYPES_NODE_VERSION=20.19.43
say() { echo "typescript-client.sh: $*"; }

NODE=$TOOLS/node
BIN=$NODE/node_modules/.bin
npm_pinned "$NODE" "openapi-typescript@$OPENAPI_TYPESCRIPT_VERSION" "typescript@$TYPESCRIPT_VERSION" \
    "openapi-fetch@$OPENAPI_FETCH_VERSION" "@types/node@$TYPES_NODE_VERSION"

cargo build --quiet --bin keyhook
bin=$ROOT/target/debug/keyhook
server_scratch
db=$work/keyhook.db
key=$("$bin" --db "$db" --json keys create --name typescript-admin |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["data"]["key"])')
# The schema and example the program expects (its catalogSchema and catalogExample).
cat >"$work/article.schema.json" <<'JSON'
{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "required": ["title", "words"],
 "properties": {"title": {"type": "string"}, "words": {"type": "integer", "minimum": 0},
                "tags": {"type": "array", "items": {"type": "string"}}, "draft": {"type": "boolean"},
                "author": {"type": "object", "properties": {"id": {"type": "string"}}}}}
JSON
printf '{"title": "Hello", "words": 2, "tags": ["news"]}\n' >"$work/article.json"
"$bin" --db "$db" event-types add article.published --description "An article went out" \
    --schema "$work/article.schema.json" --example "$work/article.json" >/dev/null

"$bin" --db "$db" --allow-private-targets serve --bind 127.0.0.1:0 2>"$work/serve.log" &
server=$!
port=$(serve_port "$work/serve.log" "$server") || { say "keyhook serve did not start"; exit 1; }
base=http://127.0.0.1:$port/api/v1

say "openapi-typescript $OPENAPI_TYPESCRIPT_VERSION: types from $base/openapi.json"
ts=$work/ts
mkdir -p "$ts"
curl -sf "$base/openapi.json" -o "$work/openapi.json"
# --default-non-nullable false: from version 7 openapi-typescript types a field with a `default`
# as always there, in request bodies too, where keyhook fills the default in (`fullAccess`,
# `permission`); docs/http.md says so.
"$BIN/openapi-typescript" "$work/openapi.json" --default-non-nullable false --output "$ts/keyhook.ts" 2>&1 |
    grep -v '^\s*$' | tail -1
# Shown for the log: what each free-form field became, on one line.
node -e '
    const src = require("fs").readFileSync(process.argv[1], "utf8").split("\n");
    for (const want of process.argv.slice(2)) {
        const [schema, field] = want.split(".");
        let i = src.findIndex((l) => l === `        ${schema}: {`);
        while (!src[++i].match(new RegExp(`^            ${field}\\??:`)));
        let text = src[i];
        const depth = (t) => t.split("{").length - t.split("}").length;
        while (depth(text) > 0 || !text.endsWith(";")) text += " " + src[++i].trim();
        console.log(`  ${schema}.${text.trim()}`);
    }
' "$ts/keyhook.ts" EmitEvent.data EventType.schema EventType.example AuditEntry.details

say "tsc $TYPESCRIPT_VERSION --strict, then node runs the flow"
cp .ci/tools/typescript-client.ts "$ts/"
ln -s "$NODE/node_modules" "$ts/node_modules"
printf '{"type": "module"}\n' >"$ts/package.json"
cat >"$ts/tsconfig.json" <<'JSON'
{
  "compilerOptions": {
    "strict": true,
    "noUncheckedIndexedAccess": true,
    "exactOptionalPropertyTypes": true,
    "target": "es2022",
    "module": "nodenext",
    "moduleResolution": "nodenext",
    "lib": ["es2022", "dom"],
    "types": ["node"],
    "skipLibCheck": true,
    "outDir": "out"
  },
  "files": ["typescript-client.ts"]
}
JSON
(cd "$ts" && "$BIN/tsc" --strict -p tsconfig.json)
node "$ts/out/typescript-client.js" "$base" "$key"
say "accepted"
