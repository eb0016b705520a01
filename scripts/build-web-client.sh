#!/usr/bin/env bash
# Builds the Connect-Web browser example (clients/web) into clients/web/dist/app.js for
# services/api/apiserver's CORS browser test: npm ci from the committed lock file, the
# TypeScript contracts generated with protoc-gen-es and the repository's pinned buf
# (.tools/bin, `make tools`), then one bundle with esbuild. node_modules, src/gen and dist
# are build output (ignored), never committed.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
export PATH="$root/.tools/bin:$PATH"
command -v buf >/dev/null || { echo "build-web-client: buf is missing; run make tools" >&2; exit 1; }
command -v npm >/dev/null || { echo "build-web-client: npm is missing (apt-get install -y nodejs npm)" >&2; exit 1; }

cd "$root/clients/web"
npm ci --no-audit --no-fund --loglevel=error
npm run --silent build
echo "build-web-client: $(wc -c < dist/app.js) bytes in clients/web/dist/app.js" >&2
