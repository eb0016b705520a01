#!/usr/bin/env bash
# Makes sure a PostgreSQL server answers at ROADBOOK_TEST_DATABASE_URL before the tests
# run: start the installed cluster, or install PostgreSQL from Debian's packages when it
# is missing (CI runs on fresh machines where it may be absent or stopped).
set -euo pipefail

url=${ROADBOOK_TEST_DATABASE_URL:-postgres://postgres:postgres@127.0.0.1:5432/postgres?sslmode=disable}

ready() { command -v pg_isready >/dev/null 2>&1 && pg_isready -q -h 127.0.0.1 -p 5432; }

if ready; then
  exit 0
fi

if ! command -v pg_ctlcluster >/dev/null 2>&1 || [ -z "$(ls /etc/postgresql 2>/dev/null)" ]; then
  echo "ensure-postgres: PostgreSQL is not installed; installing it with apt" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq postgresql >/dev/null
fi

version=$(ls /etc/postgresql | sort -n | tail -n 1)
if ! pg_lsclusters -h | awk '{print $2}' | grep -qx main; then
  pg_createcluster "$version" main >/dev/null
fi
echo "ensure-postgres: starting PostgreSQL $version" >&2
pg_ctlcluster --skip-systemctl-redirect "$version" main start || true

for _ in $(seq 1 60); do
  ready && break
  sleep 0.5
done
ready || { echo "ensure-postgres: PostgreSQL did not become ready" >&2; exit 1; }

# A cluster fresh from apt uses password auth on TCP: give the postgres role the password
# the default test URL carries (harmless where the machine trusts local connections).
su postgres -c "psql -q -c \"ALTER USER postgres PASSWORD 'postgres'\"" >/dev/null 2>&1 || true
