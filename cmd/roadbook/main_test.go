package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRun(t *testing.T) {
	t.Parallel()

	t.Run("an unknown command names itself and exits 2", func(t *testing.T) {
		t.Parallel()
		var out, errOut bytes.Buffer
		require.Equal(t, 2, run(context.Background(), []string{"fly"}, &out, &errOut))
		require.Contains(t, errOut.String(), `"fly"`)
	})

	t.Run("help lists every command the Kubernetes manifests run", func(t *testing.T) {
		t.Parallel()
		var out, errOut bytes.Buffer
		require.Equal(t, 0, run(context.Background(), []string{"help"}, &out, &errOut))
		for _, c := range []string{"dev", "api", "worker", "mcp", "migrate", "trip", "token"} {
			require.Contains(t, out.String(), "  "+c+" ")
		}
	})

	t.Run("dev --no-auth refuses a listener that is not on loopback", func(t *testing.T) {
		t.Parallel()
		var out, errOut bytes.Buffer
		code := run(context.Background(), []string{"dev", "--data-dir", t.TempDir(), "--no-auth", "--api-addr", "0.0.0.0:0"}, &out, &errOut)
		require.Equal(t, 1, code)
		require.Contains(t, errOut.String(), `"0.0.0.0:0" is not`)
		require.Empty(t, out.String(), "nothing started, nothing printed")
	})

	t.Run("trip create wants exactly one source", func(t *testing.T) {
		t.Parallel()
		var out, errOut bytes.Buffer
		require.Equal(t, 2, run(context.Background(), []string{"trip", "create", "--gpx", "a.gpx", "--url", "https://x"}, &out, &errOut))
		require.Contains(t, errOut.String(), "exactly one of --gpx FILE or --url URL")
	})

	t.Run("trip create names the presets when given another", func(t *testing.T) {
		t.Parallel()
		var out, errOut bytes.Buffer
		require.Equal(t, 2, run(context.Background(), []string{"trip", "create", "--gpx", "a.gpx", "--preset", "pro"}, &out, &errOut))
		require.Contains(t, errOut.String(), `--preset "pro": want beginner, intermediate or expert`)
		require.Empty(t, out.String())
	})

	t.Run("token on a directory that never ran dev says so", func(t *testing.T) {
		t.Parallel()
		var out, errOut bytes.Buffer
		dir := t.TempDir()
		require.Equal(t, 1, run(context.Background(), []string{"token", "--data-dir", dir, "--user", "bob"}, &out, &errOut))
		require.Contains(t, errOut.String(), "is not a dev data directory")
	})
}

// TestEnvironment sets process environment variables, so it cannot run in
// parallel with the other tests.
func TestEnvironment(t *testing.T) {
	t.Run("a service command without its database URL names the flag and the variable", func(t *testing.T) {
		t.Setenv("ROADBOOK_DATABASE_URL", "")
		var out, errOut bytes.Buffer
		require.Equal(t, 1, run(context.Background(), []string{"migrate"}, &out, &errOut))
		require.Contains(t, errOut.String(), "--database-url or $ROADBOOK_DATABASE_URL")
	})

	t.Run("a malformed duration variable is an error naming it", func(t *testing.T) {
		t.Setenv("ROADBOOK_SHUTDOWN_TIMEOUT", "soon")
		var out, errOut bytes.Buffer
		require.Equal(t, 1, run(context.Background(), []string{"worker", "--database-url", "postgres://x"}, &out, &errOut))
		require.Contains(t, errOut.String(), `ROADBOOK_SHUTDOWN_TIMEOUT="soon"`)
	})

	t.Run("no command prints a secret from the environment on -h or a mistyped flag", func(t *testing.T) {
		secrets := map[string]string{
			"ROADBOOK_DATABASE_URL":    "postgres://roadbook:db-secret-1@db/roadbook",
			"ROADBOOK_MCP_SERVICE_KEY": "service-key-secret-2",
			"ROADBOOK_MCP_CURSOR_KEY":  "cursor-key-secret-3",
			"ROADBOOK_MCP_CONFIRM_KEY": "confirm-key-secret-4",
			"ROADBOOK_TOKEN":           "bearer-token-secret-5",
		}
		for k, v := range secrets {
			t.Setenv(k, v)
		}
		for _, cmd := range [][]string{{"api"}, {"worker"}, {"mcp"}, {"migrate"}, {"trip", "list"}} {
			for _, extra := range [][]string{{"-h"}, {"--no-such-flag"}} {
				var out, errOut bytes.Buffer
				code := run(context.Background(), append(append([]string{}, cmd...), extra...), &out, &errOut)
				require.Contains(t, []int{0, 2}, code, "%v %v", cmd, extra)
				require.Contains(t, errOut.String(), "Usage of roadbook", "%v %v printed its flags", cmd, extra)
				for k, v := range secrets {
					require.NotContains(t, out.String()+errOut.String(), v, "%v %v printed $%s", cmd, extra, k)
				}
			}
		}
	})

	t.Run("roadbook api without --jwt-issuer names the flag and the variable", func(t *testing.T) {
		t.Setenv("ROADBOOK_DATABASE_URL", "postgres://127.0.0.1:1/none")
		t.Setenv("ROADBOOK_JWKS_URL", "http://127.0.0.1:1/jwks")
		t.Setenv("ROADBOOK_JWT_ISSUER", "")
		var out, errOut bytes.Buffer
		require.Equal(t, 1, run(context.Background(), []string{"api"}, &out, &errOut))
		require.Contains(t, errOut.String(), "--jwt-issuer or $ROADBOOK_JWT_ISSUER")
	})

	t.Run("a short --page-token-key is refused", func(t *testing.T) {
		t.Setenv("ROADBOOK_DATABASE_URL", "postgres://127.0.0.1:1/none")
		t.Setenv("ROADBOOK_JWKS_URL", "http://127.0.0.1:1/jwks")
		t.Setenv("ROADBOOK_JWT_ISSUER", "https://idp.example/")
		t.Setenv("ROADBOOK_PAGE_TOKEN_KEY", "short")
		var out, errOut bytes.Buffer
		require.Equal(t, 1, run(context.Background(), []string{"api"}, &out, &errOut))
		require.Contains(t, errOut.String(), "--page-token-key must be at least 32 bytes, got 5")
	})

	t.Run("api and mcp refuse every published key of the example Secret", func(t *testing.T) {
		example := exampleSecret(t)
		t.Setenv("ROADBOOK_DATABASE_URL", "postgres://127.0.0.1:1/none")
		t.Setenv("ROADBOOK_JWKS_URL", "http://127.0.0.1:1/jwks")
		t.Setenv("ROADBOOK_JWT_ISSUER", "https://idp.example/")
		t.Setenv("ROADBOOK_PUBLIC_BASE_URL", "https://roadbook.example")
		strong := strings.Repeat("k", 40)
		cases := []struct {
			cmd  string
			keys []string
		}{
			{"api", []string{"ROADBOOK_MCP_SERVICE_KEY", "ROADBOOK_PAGE_TOKEN_KEY"}},
			{"mcp", []string{"ROADBOOK_MCP_SERVICE_KEY", "ROADBOOK_MCP_CURSOR_KEY", "ROADBOOK_MCP_CONFIRM_KEY"}},
		}
		for _, c := range cases {
			for _, published := range c.keys {
				value, ok := example[published]
				require.True(t, ok, "the example Secret has %s", published)
				for _, k := range c.keys {
					t.Setenv(k, strong)
				}
				t.Setenv(published, value)
				var out, errOut bytes.Buffer
				require.Equal(t, 1, run(context.Background(), []string{c.cmd}, &out, &errOut), "%s with the example %s", c.cmd, published)
				require.Contains(t, errOut.String(), "$"+published+") is a published example key", c.cmd)
				require.NotContains(t, errOut.String(), value, "the key itself is not printed")
			}
		}
	})
}

// exampleSecret reads the published example Secret's keys and values.
func exampleSecret(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "deploy", "k8s", "example-secret", "secret.example.yaml"))
	require.NoError(t, err)
	out := map[string]string{}
	for _, m := range regexp.MustCompile(`(?m)^\s+(ROADBOOK_[A-Z_]+): "([^"]*)"`).FindAllStringSubmatch(string(b), -1) {
		out[m[1]] = m[2]
	}
	return out
}
