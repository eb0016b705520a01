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
. "$root/scripts/dev-up.sh"
dev_up web-e2e
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
