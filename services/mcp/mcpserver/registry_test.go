package mcpserver_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/auth"
	"github.com/roadbook/roadbook/services/mcp/internal/tools"
	"github.com/roadbook/roadbook/services/mcp/mcpserver"
)

// annotations are MCP §1's table: what each tool's hints must say.
var annotations = map[string]struct{ readOnly, destructive, idempotent, openWorld bool }{
	"list_trips":           {readOnly: true, idempotent: true},
	"get_trip":             {readOnly: true, idempotent: true},
	"get_stage":            {readOnly: true, idempotent: true},
	"search_places":        {readOnly: true, idempotent: true, openWorld: true},
	"create_trip":          {},
	"update_trip_settings": {destructive: true},
	"edit_stages":          {destructive: true},
	"add_waypoint":         {},
	"choose_accommodation": {},
	"analyze_trip":         {},
	"share_trip":           {},
	"unshare_trip":         {destructive: true},
	"delete_trip":          {destructive: true},
}

func TestToolDefinitions(t *testing.T) {
	t.Parallel()
	defs := definitions(t)
	var names []string
	for _, d := range defs {
		names = append(names, d.Name)
	}
	require.ElementsMatch(t, slices.Collect(func(yield func(string) bool) {
		for k := range annotations {
			if !yield(k) {
				return
			}
		}
	}), names, "exactly the thirteen tools of MCP §1")

	for _, d := range defs {
		t.Run(d.Name+" publishes truthful metadata and a closed schema", func(t *testing.T) {
			t.Parallel()
			require.NotEmpty(t, d.Title)
			require.Greater(t, len(d.Description), 80, "a description written for a model")
			want := annotations[d.Name]
			a := d.Annotations
			require.NotNil(t, a)
			require.Equal(t, want.readOnly, a.ReadOnlyHint)
			require.Equal(t, want.idempotent, a.IdempotentHint)
			require.NotNil(t, a.OpenWorldHint, "openWorldHint is always stated")
			require.Equal(t, want.openWorld, *a.OpenWorldHint)
			if !want.readOnly {
				require.NotNil(t, a.DestructiveHint, "a write states whether it destroys")
				require.Equal(t, want.destructive, *a.DestructiveHint)
			}
			in := d.InputSchema.(*jsonschema.Schema)
			require.NoError(t, tools.ClosedSchema(in))
			for name, p := range in.Properties {
				require.NotEmpty(t, p.Description, "argument %s of %s has no description", name, d.Name)
			}
			if !want.readOnly {
				if k := requiredWriteKey(d.Name); k != "" {
					require.Contains(t, in.Required, k, "version is required on every write")
				}
			}
			require.NotNil(t, d.OutputSchema, "structured output is declared")
			for _, banned := range []string{"polyline", "\"content\""} {
				b, _ := json.Marshal(d.OutputSchema)
				require.NotContains(t, string(b), banned)
			}
		})
	}
}

// requiredWriteKey is the argument every write must require: version, except
// create_trip (nothing to be a version of yet).
func requiredWriteKey(tool string) string {
	if tool == "create_trip" {
		return ""
	}
	return "version"
}

func TestToolSnapshots(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("..", "testdata", "tools")
	update := os.Getenv("UPDATE_SNAPSHOTS") == "1"
	if update {
		require.NoError(t, os.MkdirAll(dir, 0o755))
	}
	seen := map[string]bool{}
	for _, d := range definitions(t) {
		b, err := json.MarshalIndent(d, "", "  ")
		require.NoError(t, err)
		b = append(b, '\n')
		path := filepath.Join(dir, d.Name+".json")
		seen[d.Name+".json"] = true
		if update {
			require.NoError(t, os.WriteFile(path, b, 0o644))
			continue
		}
		want, err := os.ReadFile(path)
		require.NoError(t, err, "no snapshot for %s: run UPDATE_SNAPSHOTS=1 go test ./mcpserver/", d.Name)
		require.Equal(t, string(want), string(b), "tool %s drifted from its snapshot; review and run UPDATE_SNAPSHOTS=1", d.Name)
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		require.True(t, seen[e.Name()], "snapshot %s belongs to no tool", e.Name())
	}
}

// definitions are the tool definitions of a service built from a plain
// Config: no API, PostgreSQL or NATS is reached to list them.
func definitions(t *testing.T) []*mcp.Tool {
	t.Helper()
	service, err := auth.NewHS256Issuer("mcp-1", []byte(strings.Repeat("s", 32)), "roadbook-mcp")
	require.NoError(t, err)
	agents, err := auth.NewVerifier(auth.Config{Users: auth.NewStaticKeys(), Audience: "http://127.0.0.1:1/mcp"})
	require.NoError(t, err)
	srv, err := mcpserver.New(mcpserver.Config{APIBaseURL: "http://127.0.0.1:1", ServiceIssuer: service, AgentVerifier: agents,
		HMACKeys: map[string][]byte{"k1": []byte(strings.Repeat("h", 32))}, PublicBaseURL: "http://127.0.0.1:1"})
	require.NoError(t, err)
	return srv.Tools()
}
