#!/usr/bin/env bash
# Bench of the web planner (clients/web/bench/load.mjs): the gzipped JS+CSS of the committed
# bundle, and page load to the day list of a 30-day trip beside the trip list's load (the
# baseline: same bundle, same sign-in, one call), in Debian's Chromium against `roadbook dev`
# on loopback. RUNS sets the loads of each (default 15). Results: docs/BENCHMARKS.md.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
[ -d "$root/clients/web/node_modules/playwright-core" ] || { echo "bench-web: run scripts/build-web-client.sh first (npm ci)" >&2; exit 1; }
. "$root/scripts/dev-up.sh"
dev_up bench-web
cd "$root/clients/web"
node bench/load.mjs
