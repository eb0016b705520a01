#!/usr/bin/env bash
# The web planner end to end (clients/web/e2e): builds roadbook, starts `roadbook dev` on
# free loopback ports with a temporary data directory, and drives the real page in Debian's
# Chromium with playwright-core (no browser download; scripts/ensure-chromium.sh installs
# chromium) through node's test runner. Screenshots (390 and 1280 px) go to
# $ROADBOOK_SCREENSHOTS, default $ROADBOOK_ARTIFACTS/planner or a temporary directory; the
# path is printed. Needs clients/web/node_modules (scripts/build-web-client.sh).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
[ -d "$root/clients/web/node_modules/playwright-core" ] || { echo "web-e2e: run scripts/build-web-client.sh first (npm ci)" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/roadbook-web-e2e.XXXXXX")
pid=""
stop() {
	[ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true
	rm -rf "$work"
}
trap stop EXIT

(cd "$root/cmd/roadbook" && go build -o "$work/roadbook" .)
"$work/roadbook" dev --data-dir "$work/dev" --api-addr 127.0.0.1:0 --mcp-addr 127.0.0.1:0 --log-level warn >"$work/dev.out" 2>"$work/dev.err" &
pid=$!
for _ in $(seq 1 240); do
	[ -s "$work/dev/dev.json" ] && break
	kill -0 "$pid" 2>/dev/null || { echo "web-e2e: roadbook dev stopped:" >&2; tail -20 "$work/dev.err" >&2; exit 1; }
	sleep 0.25
done
[ -s "$work/dev/dev.json" ] || { echo "web-e2e: roadbook dev not ready after 60 s" >&2; exit 1; }

export ROADBOOK_DEV_JSON="$work/dev/dev.json"
if [ -z "${ROADBOOK_SCREENSHOTS:-}" ]; then
	if [ -n "${ROADBOOK_ARTIFACTS:-}" ]; then
		export ROADBOOK_SCREENSHOTS="$ROADBOOK_ARTIFACTS/planner"
	else
		export ROADBOOK_SCREENSHOTS="${TMPDIR:-/tmp}/roadbook-planner-screenshots"
	fi
fi
echo "web-e2e: roadbook dev at $(sed -n 's/^ *"appUrl": *"\([^"]*\)".*/\1/p' "$ROADBOOK_DEV_JSON"); screenshots in $ROADBOOK_SCREENSHOTS" >&2
cd "$root/clients/web"
node --test --test-reporter=spec e2e/
