#!/usr/bin/env bash
# Makes sure xmllint (Debian's libxml2-utils) is installed before the tests:
# domain/export validates every GPX export against the GPX 1.1 schema with it.
# Installs it with apt when missing: CI runs on fresh machines.
set -euo pipefail

if command -v xmllint >/dev/null 2>&1; then
  exit 0
fi

echo "ensure-xmllint: xmllint is not installed; installing libxml2-utils with apt" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq libxml2-utils >/dev/null
command -v xmllint >/dev/null
