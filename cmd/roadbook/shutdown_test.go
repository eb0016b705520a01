package main

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/jackc/pgx/v5"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/testkit"
)

// TestGracefulShutdown runs api, worker and mcp as separate processes on
// PostgreSQL and a NATS server external to them, holds a stages job in
// flight (the test keeps the trip's stream row locked, so the worker's
// append waits), SIGTERMs the worker and checks ARCHITECTURE §9's drain:
// readiness turns off, the in-flight job finishes and is acked, the process
// exits 0, and the job is not redone.
func TestGracefulShutdown(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dbURL := testkit.SchemaURL(t)
	natsURL := startNATS(t)
	issuer := newRSAIssuer(t)
	serviceKey := strings.Repeat("s", 40)
	apiAddr, mcpAddr, workerAddr := freeAddr(t), freeAddr(t), freeAddr(t)
	common := []string{"ROADBOOK_DATABASE_URL=" + dbURL, "ROADBOOK_NATS_URL=" + natsURL, "ROADBOOK_JWKS_URL=" + issuer.jwksURL,
		"ROADBOOK_JWT_ISSUER=" + issuer.iss, "ROADBOOK_MCP_SERVICE_KEY=" + serviceKey, "ROADBOOK_MCP_SERVICE_KEY_ID=mcp-test",
		"ROADBOOK_LOG_LEVEL=info", "ROADBOOK_SHUTDOWN_TIMEOUT=30s"}

	out, errOut, code := cli(t, "migrate", "--database-url", dbURL)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "migrations applied", "migrate is idempotent on a migrated schema")

	api := start(t, append(common, "ROADBOOK_HTTP_ADDR="+apiAddr, "ROADBOOK_PUBLIC_BASE_URL=http://"+apiAddr), "api")
	mcp := start(t, append(common, "ROADBOOK_HTTP_ADDR="+mcpAddr, "ROADBOOK_API_URL=http://"+apiAddr,
		"ROADBOOK_PUBLIC_BASE_URL=http://"+mcpAddr, "ROADBOOK_MCP_AUDIENCE=http://"+mcpAddr+"/mcp",
		"ROADBOOK_MCP_CURSOR_KEY="+strings.Repeat("c", 40), "ROADBOOK_MCP_CONFIRM_KEY="+strings.Repeat("k", 40)), "mcp")
	waitStatus(t, api, "http://"+apiAddr+"/readyz", http.StatusOK)
	waitStatus(t, mcp, "http://"+mcpAddr+"/readyz", http.StatusOK)

	// A trip whose stages job the worker (not yet running) will take.
	out, errOut, code = cli(t, "trip", "create", "--no-wait", "--api-url", "http://"+apiAddr, "--token", issuer.mint(t, "ann"),
		"--gpx", osloGPX(t))
	require.Equal(t, 0, code, errOut)
	tripID := strings.TrimSpace(out)
	stream := "trip-" + tripID

	// Hold the trip's stream row: the worker's append of the stages waits.
	conn, err := pgx.Connect(ctx, dbURL)
	require.NoError(t, err)
	defer conn.Close(ctx)
	lock, err := conn.Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = lock.Rollback(ctx) }()
	var n int
	require.NoError(t, lock.QueryRow(ctx, `SELECT count(*) FROM (SELECT 1 FROM streams WHERE stream_id = $1 FOR UPDATE) s`, stream).Scan(&n))
	require.Equal(t, 1, n)
	var lockPID int
	require.NoError(t, lock.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&lockPID))

	worker := start(t, append(common, "ROADBOOK_HTTP_ADDR="+workerAddr), "worker")
	waitStatus(t, worker, "http://"+workerAddr+"/readyz", http.StatusOK)

	// The job is in flight once a worker connection waits on our lock.
	probe, err := pgx.Connect(ctx, dbURL)
	require.NoError(t, err)
	defer probe.Close(ctx)
	waitFor(t, worker, "the worker's append to wait on the locked stream", func() bool {
		var waiting int
		err := probe.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))`, lockPID).Scan(&waiting)
		return err == nil && waiting > 0
	})

	require.NoError(t, worker.cmd.Process.Signal(syscall.SIGTERM))
	waitStatus(t, worker, "http://"+workerAddr+"/readyz", http.StatusServiceUnavailable)
	require.NotContains(t, worker.stderr.String(), `"msg":"stopped"`, "the worker is still draining its in-flight job")

	require.NoError(t, lock.Rollback(ctx)) // the job may finish now
	require.Equal(t, 0, worker.wait(t, 60*time.Second), worker.stderr.String())

	var computed int
	require.NoError(t, probe.QueryRow(ctx, `SELECT count(*) FROM events WHERE stream_id = $1 AND type LIKE '%StagesComputed'`, stream).Scan(&computed))
	require.Equal(t, 1, computed, "the in-flight job finished exactly once")

	nc, err := nats.Connect(natsURL)
	require.NoError(t, err)
	defer nc.Close()
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	cons, err := js.Consumer(ctx, "JOBS", "roadbook-worker") // the one durable consumer, every kind
	require.NoError(t, err)
	info, err := cons.Info(ctx)
	require.NoError(t, err)
	require.Zero(t, info.NumAckPending, "the job was acked before the worker exited")
	require.Zero(t, info.NumRedelivered, "the job was not redelivered")
	jobs, err := js.Stream(ctx, "JOBS")
	require.NoError(t, err)
	// The server removes an acked message from a work queue as it records
	// the ack; under load the two may be seen a moment apart.
	var left uint64
	for range 100 {
		si, err := jobs.Info(ctx, jetstream.WithSubjectFilter("jobs.stages."+tripID))
		require.NoError(t, err)
		// State.Msgs counts the whole stream (the analysis job the
		// finished stages requested waits there for a live worker).
		if left = si.State.Subjects["jobs.stages."+tripID]; left == 0 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	require.Zero(t, left, "an acked job leaves the work queue, so no replica can redo it")

	require.Equal(t, 0, api.stop(t), api.stderr.String())
	require.Equal(t, 0, mcp.stop(t), mcp.stderr.String())
}

// startNATS runs a JetStream NATS server for the test, external to the
// processes under test (as in production).
func startNATS(t *testing.T) string {
	t.Helper()
	ns, _ := testkit.NATS(t)
	return ns.URL()
}

// freeAddr is a loopback address with a port free at the time of asking.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	return addr
}

// waitStatus waits until GET url answers want (or the process dies).
func waitStatus(t *testing.T, p *process, url string, want int) {
	t.Helper()
	waitFor(t, p, url+" to answer "+http.StatusText(want), func() bool {
		resp, err := http.Get(url)
		if err != nil {
			return false
		}
		_ = resp.Body.Close()
		return resp.StatusCode == want
	})
}

// waitFor polls cond until it holds, failing if p exits first or after a
// minute.
func waitFor(t *testing.T, p *process, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		select {
		case err := <-p.done:
			p.done <- err
			t.Fatalf("%s exited (%v) while waiting for %s\nstderr:\n%s", p.cmd.Args, err, what, p.stderr.String())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s\nstderr:\n%s", what, p.stderr.String())
		}
	}
}

// rsaIssuer is an OIDC-like issuer for the test: an RSA key served as a
// JWKS, minting users' tokens for the API.
type rsaIssuer struct {
	key          *rsa.PrivateKey
	iss, jwksURL string
}

func newRSAIssuer(t *testing.T) *rsaIssuer {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	doc, err := json.Marshal(map[string]any{"keys": []map[string]string{{
		"kty": "RSA", "kid": "test-1", "alg": "RS256", "use": "sig",
		"n": base64.RawURLEncoding.EncodeToString(key.N.Bytes()),
		"e": base64.RawURLEncoding.EncodeToString(big.NewInt(int64(key.E)).Bytes()),
	}}})
	require.NoError(t, err)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(doc)
	}))
	t.Cleanup(srv.Close)
	return &rsaIssuer{key: key, iss: "https://issuer.test/", jwksURL: srv.URL + "/jwks.json"}
}

// mint is a user's API token.
func (i *rsaIssuer) mint(t *testing.T, user string) string {
	t.Helper()
	tok := jwt.NewWithClaims(jwt.SigningMethodRS256, jwt.MapClaims{"iss": i.iss, "sub": user, "aud": "roadbook-api",
		"exp": time.Now().Add(time.Hour).Unix(), "iat": time.Now().Unix(), "scope": "trips:read trips:write"})
	tok.Header["kid"] = "test-1"
	s, err := tok.SignedString(i.key)
	require.NoError(t, err)
	return s
}
