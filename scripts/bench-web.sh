#!/usr/bin/env bash
# Bench of the web planner (clients/web/bench/load.mjs): the gzipped JS+CSS of the committed
# bundle, and page load to the day list of a 30-day trip beside the trip list's load (the
# baseline: same bundle, same sign-in, one call), in Debian's Chromium against `roadbook dev`
# on loopback. RUNS sets the loads of each (default 15). Results: docs/BENCHMARKS.md.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
[ -d "$root/clients/web/node_modules/playwright-core" ] || { echo "bench-web: run scripts/build-web-client.sh first (npm ci)" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/roadbook-bench-web.XXXXXX")
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
	kill -0 "$pid" 2>/dev/null || { echo "bench-web: roadbook dev stopped:" >&2; tail -20 "$work/dev.err" >&2; exit 1; }
	sleep 0.25
done
export ROADBOOK_DEV_JSON="$work/dev/dev.json"
cd "$root/clients/web"
node bench/load.mjs
