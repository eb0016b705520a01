#!/usr/bin/env bash
# Builds clients/web, the web planner: npm ci from the committed lock file (exact
# versions), the TypeScript contracts generated with protoc-gen-es and the repository's
# pinned buf (.tools/bin, `make tools`), a type check, then build.mjs (esbuild): the
# planner bundle (index.html and content-hashed JS and CSS) and clients/web/dist/app.js,
# the minimal Connect-Web example services/api/apiserver's CORS browser test serves.
#
# The planner bundle is committed under services/api/planner/dist, like proto/gen, so the
# Go binary embeds it and `go run ./cmd/roadbook dev` serves it without npm. By default
# (what `make test` runs) the fresh build is compared with the committed bundle and the
# script fails when they differ; with --write (`make web`) it replaces the committed one.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
export PATH="$root/.tools/bin:$PATH"
command -v buf >/dev/null || { echo "build-web-client: buf is missing; run make tools" >&2; exit 1; }
command -v npm >/dev/null || { echo "build-web-client: npm is missing (apt-get install -y nodejs npm)" >&2; exit 1; }
mode=check
[ "${1:-}" = "--write" ] && mode=write

cd "$root/clients/web"
npm ci --no-audit --no-fund --loglevel=error
npm run --silent generate
npm run --silent typecheck
tmp=$(mktemp -d "${TMPDIR:-/tmp}/roadbook-web.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
node build.mjs "$tmp/dist"
committed="$root/services/api/planner/dist"
if [ "$mode" = write ]; then
	rm -rf "$committed"
	cp -r "$tmp/dist" "$committed"
	echo "build-web-client: wrote $committed" >&2
elif ! diff -r "$tmp/dist" "$committed" >/dev/null; then
	echo "build-web-client: services/api/planner/dist differs from what clients/web builds:" >&2
	diff -rq "$tmp/dist" "$committed" >&2 || true
	echo "build-web-client: run scripts/build-web-client.sh --write (make web) and commit the result" >&2
	exit 1
fi
js=$(ls "$committed"/assets/*.js)
css=$(ls "$committed"/assets/*.css)
echo "build-web-client: planner $(gzip -9c "$js" | wc -c) B JS + $(gzip -9c "$css" | wc -c) B CSS gzipped; $(wc -c < dist/app.js) B in clients/web/dist/app.js" >&2
