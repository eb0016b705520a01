package repotest

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// modulePrefix is the path every go.work module starts with.
const modulePrefix = "github.com/roadbook/roadbook/"

// layers place every go.work module (by its directory) on a level: a module
// may require only modules of lower levels, so dependencies point one way —
// down, towards the contracts and the domain. The three services share a
// level and so can never depend on one another; what composes them (the
// in-process stack of the tests, the binary) sits above them.
var layers = map[string]int{
	"proto":           0, // the contracts (generated)
	"domain":          1, // pure rules
	"eventstore":      1, // the event store, knowing nothing of trips
	"deploy":          1, // manifests and their checks
	"auth":            2, // who calls: tokens, scopes, the principal
	"tripstore":       2, // trips over the event store
	"planner":         3, // the use cases, over the domain and the trip store
	"testkit":         4, // NATS, PostgreSQL schemas, fixtures for every test
	"services/api":    5,
	"services/worker": 5,
	"services/mcp":    5,
	"evidence":        5, // reliability runs against separate processes (the binary, built)
	"testkit/stack":   6, // the whole stack in one process, and its tests
	"cmd/roadbook":    7, // the binary
	"repotest":        7, // this module
}

// services are the modules that must not depend on one another, in
// production or in tests.
var services = []string{"services/api", "services/worker", "services/mcp"}

// TestModulesDependOnlyDownward reads every go.work module's go.mod: each
// requires workspace modules of lower layers only.
func TestModulesDependOnlyDownward(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	mods := workModules(t, root)
	require.Contains(t, mods, "services/api", "the go.work modules were read")
	for _, dir := range mods {
		t.Run(dir+" requires only modules below it", func(t *testing.T) {
			t.Parallel()
			level, ok := layers[dir]
			require.True(t, ok, "module %s has no layer: add it to layers in deps_test.go", dir)
			for _, req := range requires(t, filepath.Join(root, dir, "go.mod")) {
				dep, ok := layers[req]
				require.True(t, ok, "%s requires %s, which is not a go.work module", dir, req)
				require.Less(t, dep, level, "%s (layer %d) requires %s (layer %d): modules depend only downward", dir, level, req, dep)
			}
		})
	}
}

// TestServicesDoNotImportEachOther lists every package each service's
// packages and tests build with (go list -deps -test): none belongs to
// another service, directly or through a helper.
func TestServicesDoNotImportEachOther(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	for _, svc := range services {
		t.Run(svc+" builds with no package of another service", func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command("go", "list", "-deps", "-test", "-f", "{{.ImportPath}}", "./...")
			cmd.Dir = filepath.Join(root, svc)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			require.NoError(t, err, stderr.String())
			pkgs := strings.Fields(string(out))
			require.NotEmpty(t, pkgs)
			for _, other := range services {
				if other == svc {
					continue
				}
				for _, p := range pkgs {
					require.False(t, p == modulePrefix+other || strings.HasPrefix(p, modulePrefix+other+"/"),
						"%s depends on %s (a package of %s)", svc, p, other)
				}
			}
		})
	}
}

// TestLayersNameOnlyWorkModules keeps the table honest: every entry is a
// module of go.work.
func TestLayersNameOnlyWorkModules(t *testing.T) {
	t.Parallel()
	mods := workModules(t, repoRoot(t))
	for dir := range layers {
		require.True(t, slices.Contains(mods, dir), "layers names %s, which go.work does not use", dir)
	}
}

// repoRoot is the directory holding go.work (this module's parent).
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	require.NoError(t, err)
	_, err = os.Stat(filepath.Join(root, "go.work"))
	require.NoError(t, err, "repotest runs from its own directory in the repository")
	return root
}

// workModules are the directories go.work uses, relative to root.
func workModules(t *testing.T, root string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "go.work"))
	require.NoError(t, err)
	var mods []string
	in := false
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "use ("):
			in = true
		case in && line == ")":
			in = false
		case in && line != "":
			mods = append(mods, filepath.ToSlash(filepath.Clean(line)))
		case strings.HasPrefix(line, "use "):
			mods = append(mods, filepath.ToSlash(filepath.Clean(strings.TrimPrefix(line, "use "))))
		}
	}
	return mods
}

// requires are the workspace modules a go.mod requires, by directory
// (github.com/roadbook/roadbook/services/api → services/api).
func requires(t *testing.T, gomod string) []string {
	t.Helper()
	b, err := os.ReadFile(gomod)
	require.NoError(t, err)
	var out []string
	for _, f := range strings.Fields(string(b)) {
		if rest, ok := strings.CutPrefix(f, modulePrefix); ok && !strings.Contains(string(b), "module "+f+"\n") {
			out = append(out, rest)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
