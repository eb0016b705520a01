#!/usr/bin/env bash
# make fuzz: every fuzz target in the workspace for FUZZTIME each (default 10m),
# one after the other. New interesting inputs the fuzzer found (kept by Go in
# $GOCACHE/fuzz) are copied into the package's testdata/fuzz/<Target>/, so
# they are committed and replayed as seeds by every plain `go test` (entries
# over 64 KiB are left in the cache).
# Writes evidence/results/fuzz.json (one record per target) for the report.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
FUZZTIME=${FUZZTIME:-10m}
FUZZPARALLEL=${FUZZPARALLEL:-}
cache=$(go env GOCACHE)/fuzz
out=evidence/results/fuzz.json
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
records=()
# Targets: every `func FuzzX(` in a _test.go file of a go.work module.
while IFS=: read -r file name; do
	dir=$(dirname "$file")
	pkg=$(cd "$dir" && go list .)
	before=$(ls "$cache/$pkg/$name" 2>/dev/null | wc -l || true)
	echo "=== $pkg $name (fuzztime $FUZZTIME)"
	log="$tmp/$name.log"
	par=()
	[ -n "$FUZZPARALLEL" ] && par=(-parallel "$FUZZPARALLEL")
	status=ok
	(cd "$dir" && go test -run '^$' -fuzz "^${name}\$" -fuzztime "$FUZZTIME" "${par[@]}" . ) >"$log" 2>&1 || status=crash
	tail -3 "$log"
	last=$(grep -E '^fuzz: elapsed' "$log" | tail -1 || true)
	execs=$(sed -nE 's/.*execs: ([0-9]+).*/\1/p' <<<"$last")
	newi=$(sed -nE 's/.*new interesting: ([0-9]+).*/\1/p' <<<"$last")
	elapsed=$(sed -nE 's/^fuzz: elapsed: ([^,]+),.*/\1/p' <<<"$last")
	# Keep what the fuzzer found: its cache → the package's testdata corpus.
	kept=0
	if [ -d "$cache/$pkg/$name" ]; then
		mkdir -p "$dir/testdata/fuzz/$name"
		for f in "$cache/$pkg/$name"/*; do
			[ -e "$dir/testdata/fuzz/$name/$(basename "$f")" ] && continue
			# Entries over 64 KiB stay in the cache: the repository keeps
			# small inputs that reach new code, not copies of big fixtures.
			[ "$(stat -c %s "$f")" -gt 65536 ] && continue
			cp "$f" "$dir/testdata/fuzz/$name/" && kept=$((kept+1))
		done
	fi
	crashes=0
	if [ "$status" = crash ]; then crashes=1; grep -A15 -E -- '--- FAIL' "$log" | head -30 || true; fi
	records+=("{\"package\":\"$pkg\",\"target\":\"$name\",\"fuzztime\":\"$FUZZTIME\",\"elapsed\":\"${elapsed:-?}\",\"execs\":${execs:-0},\"newInteresting\":${newi:-0},\"keptInTestdata\":$kept,\"crashes\":$crashes}")
done < <(grep -rEo --include='*_test.go' '^func (Fuzz[A-Za-z0-9_]+)\(' $(go list -m -f '{{.Dir}}' | sed "s#^$root/##") | sed -E 's/:func (Fuzz[A-Za-z0-9_]+)\(/:\1/' | sort)
{
	echo "{\"command\":\"make fuzz FUZZTIME=$FUZZTIME\",\"date\":\"$(date -u +%Y-%m-%dT%H:%MZ)\",\"targets\":["
	(IFS=,; echo "${records[*]}")
	echo "]}"
} >"$out"
echo "wrote $out"
go run ./evidence/cmd/report
