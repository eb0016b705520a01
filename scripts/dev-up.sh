# Sourced by scripts/web-e2e.sh and scripts/bench-web.sh (with $root set): dev_up NAME builds
# roadbook into a temporary directory ($work), starts `roadbook dev` there on free loopback
# ports with its data in $work/dev, waits (at most 60 s) for its dev.json and exports its path
# as ROADBOOK_DEV_JSON; on exit the server is stopped (SIGTERM) and $work removed. NAME
# prefixes the messages.
dev_up() {
	local name=$1
	work=$(mktemp -d "${TMPDIR:-/tmp}/roadbook-$name.XXXXXX")
	dev_pid=""
	trap dev_down EXIT
	(cd "$root/cmd/roadbook" && go build -o "$work/roadbook" .)
	"$work/roadbook" dev --data-dir "$work/dev" --api-addr 127.0.0.1:0 --mcp-addr 127.0.0.1:0 --log-level warn \
		>"$work/dev.out" 2>"$work/dev.err" &
	dev_pid=$!
	for _ in $(seq 1 240); do
		[ -s "$work/dev/dev.json" ] && break
		kill -0 "$dev_pid" 2>/dev/null || { echo "$name: roadbook dev stopped:" >&2; tail -20 "$work/dev.err" >&2; exit 1; }
		sleep 0.25
	done
	[ -s "$work/dev/dev.json" ] || { echo "$name: roadbook dev not ready after 60 s" >&2; exit 1; }
	export ROADBOOK_DEV_JSON="$work/dev/dev.json"
}

# dev_down stops what dev_up started and removes its directory.
dev_down() {
	[ -n "${dev_pid:-}" ] && kill -TERM "$dev_pid" 2>/dev/null && wait "$dev_pid" 2>/dev/null || true
	rm -rf "${work:?}"
}
