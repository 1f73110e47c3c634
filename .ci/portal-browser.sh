#!/usr/bin/env bash
# The developer portal (CONTRACT §14) in a real browser; .ci/tools.sh calls this. Headless
# Chromium (Debian's `chromium`), driven through playwright-core, opens portal links minted by
# a real `keyhook serve` and walks every flow as a person would, by the visible names §14 pins:
# the fragment exchange, a key created and used against /api/v1, a webhook created and its test
# ping received on a loopback receiver, a failed delivery replayed, the session revoked, a
# read-only link, the page without JavaScript, stored XSS payloads in every user string, and
# axe-core on every page (no serious or critical violation), a session used across two
# instances, and no page wider than a phone with long unbreakable strings in every user
# string. .ci/tools/portal-browser.mjs is the walk; it starts the servers and the browser.
#
# The whole walk runs twice: on SQLite (a scratch file), then on PostgreSQL (a throwaway
# cluster of bench/lib.sh's pg_scratch: its own directory, 127.0.0.1 and a random port,
# stopped and removed at exit; Debian's postgresql installed when missing), so that every flow
# that stores something, and sessions across instances, are proven on both backends.
#
# Installed when missing: `chromium` from Debian (apt-get, as root), and playwright-core and
# axe-core from npm at the exact versions below, under target/ci-tools/portal-browser (no
# global install; neither package has a dependency, so the pin is the whole tree). Playwright's
# own browser download is never used: it launches /usr/bin/chromium.
#
#   .ci/portal-browser.sh                  the checks; screenshots go to a scratch directory
#   .ci/portal-browser.sh --screenshots    the same, and the screenshots of each page (desktop
#                                          and phone) of the SQLite run are written to
#                                          docs/img/portal-*.png
#   PORTAL_BACKENDS=sqlite (or postgres)   one backend only (while working on a flow)
#
# Network: the server, the receiver and the browser talk over 127.0.0.1 only (Chromium runs
# with its background networking off); the installs go to the package registries.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
. bench/lib.sh
PLAYWRIGHT_CORE_VERSION=1.65.1
AXE_CORE_VERSION=4.14.1
NODE=$ROOT/target/ci-tools/portal-browser
say() { echo "portal-browser.sh: $*"; }

shots=
case "${1:-}" in
    --screenshots) shots=$ROOT/docs/img ;;
    "") ;;
    *) echo "usage: .ci/portal-browser.sh [--screenshots]" >&2; exit 2 ;;
esac

if ! command -v chromium >/dev/null; then
    say "apt-get install chromium"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null
fi
command -v node >/dev/null || { say "node is missing"; exit 1; }
npm_pinned "$NODE" "playwright-core@$PLAYWRIGHT_CORE_VERSION" "axe-core@$AXE_CORE_VERSION"

cargo build --quiet --bin keyhook
say "$(chromium --version 2>/dev/null | head -1), playwright-core $PLAYWRIGHT_CORE_VERSION, axe-core $AXE_CORE_VERSION"
# The walk on the database $3 (a PostgreSQL URL; a SQLite file in $1 when empty), in the
# scratch directory $1, its screenshots in $2.
walk() {
    PORTAL_NODE_MODULES=$NODE/node_modules \
        PORTAL_CHROMIUM=$(command -v chromium) \
        PORTAL_KEYHOOK=$ROOT/target/debug/keyhook \
        PORTAL_WORK=$1 \
        PORTAL_SHOTS=$2 \
        PORTAL_DB=$3 \
        node .ci/tools/portal-browser.mjs
}
backends=${PORTAL_BACKENDS:-sqlite postgres}
status=0
if [[ " $backends " == *" sqlite "* ]]; then
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    say "on SQLite"
    walk "$work" "${shots:-$work/shots}" "" || status=1
    rm -rf "$work"
    trap - EXIT
fi
if [[ " $backends " == *" postgres "* ]]; then
    pg_scratch
    pg_start "$(port)"
    psql -d postgres -c 'CREATE DATABASE portal'
    say "on PostgreSQL ($("$pgbin/postgres" --version))"
    walk "$work" "$work/shots" "postgres://keyhook:$password@127.0.0.1:$pgport/portal" || status=1
fi
exit "$status"
