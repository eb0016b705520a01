#!/usr/bin/env bash
# Makes sure Debian's headless-capable Chromium is installed before the browser tests
# (services/api/apiserver's share-page and CORS tests drive it with --headless), installing
# it with apt when missing: CI runs on fresh machines. The tests find it on PATH or at
# ROADBOOK_CHROMIUM.
set -euo pipefail

if command -v "${ROADBOOK_CHROMIUM:-chromium}" >/dev/null 2>&1; then
  exit 0
fi

echo "ensure-chromium: chromium is not installed; installing it with apt" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq chromium >/dev/null
command -v chromium >/dev/null
