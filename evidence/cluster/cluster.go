// Package cluster runs Roadbook the way production does, on one machine:
// `roadbook api`, `roadbook worker` (one or more) and `roadbook mcp` as
// separate processes, on a private PostgreSQL cluster made with initdb under
// a temporary directory (its own port, so restarting it disturbs nothing
// else) and a NATS server process with JetStream — or three clustered, their
// routes running through TCP proxies a run can cut — beside in-process fakes
// of the outside world: the token issuer's JWKS, a Nominatim that can be
// switched off, and a canary HTTP server that counts any request reaching
// it (a server-side request forgery).
package cluster

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// Options shape a cluster.
type Options struct {
	// Dir holds binaries, data and logs (created; default a new temp dir).
	Dir string
	// Workers is how many `roadbook worker` processes run (default 1).
	Workers int
	// WorkerConcurrency is each worker's ROADBOOK_WORKER_CONCURRENCY (default 4).
	WorkerConcurrency int
	// Log receives progress lines.
	Log *slog.Logger
	// Source is the checkout the binaries are built from (default: this
	// workspace's root).
	Source string
	// NATSNodes is 1 (default: one server) or 3: a JetStream cluster whose
	// routes run through proxies (Partition cuts them), with the workers'
	// streams and buckets at three replicas (ROADBOOK_STREAM_REPLICAS=3)
	// and every service given all three client URLs.
	NATSNodes int
}

// Cluster is the running system under test.
type Cluster struct {
	// Dir is the working directory (logs under Dir/logs).
	Dir string
	// Postgres, NATS, API, MCP and Workers are the processes; NATS is the
	// first of NATSNodes, which holds every NATS server (one, or three).
	Postgres, NATS, API, MCP *Proc
	Workers                  []*Proc
	NATSNodes                []*Proc
	// DatabaseURL reaches the private PostgreSQL cluster.
	DatabaseURL string
	// NATSURL, APIURL and MCPURL are the endpoints (MCPURL ends in /mcp);
	// NATSURL lists every node's client URL, comma-separated, as the
	// services get it, and NodeURLs has them one by one.
	NATSURL, APIURL, MCPURL string
	NodeURLs                []string
	// APIAdminURL is the API's admin port (/metrics, reflection).
	APIAdminURL string
	// WorkerURLs are the workers' health/metrics ports.
	WorkerURLs []string
	// Issuer mints agents' and API tokens the services trust.
	Issuer *Issuer
	// Nominatim is the fake geocoder the worker is pointed at.
	Nominatim *FakeNominatim
	// Canary counts requests that reach it: any is an SSRF.
	Canary *Canary
	// Providers is the configured route-platform host (Komoot, Strava,
	// RideWithGPS) of every worker.
	Providers *FakeProviders

	log       *slog.Logger
	servers   []*http.Server
	canaryURL string
	// routes[i][j] carries node i's route to node j (nil on the diagonal);
	// monitors are the nodes' monitoring ports.
	routes   [][]*Proxy
	monitors []int
	sinks    []net.Listener
}

// Root is the repository root (the directory of go.work).
func Root() (string, error) {
	out, err := exec.Command("go", "env", "GOWORK").Output()
	if err != nil {
		return "", err
	}
	w := strings.TrimSpace(string(out))
	if w == "" || w == "off" {
		return "", errors.New("cluster: not inside the go.work workspace")
	}
	return filepath.Dir(w), nil
}

// Start builds the binaries and starts everything; Close stops it.
func Start(ctx context.Context, o Options) (*Cluster, error) {
	if o.Workers < 1 {
		o.Workers = 1
	}
	if o.WorkerConcurrency < 1 {
		o.WorkerConcurrency = 4
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	if o.Dir == "" {
		d, err := os.MkdirTemp("", "roadbook-evidence-")
		if err != nil {
			return nil, err
		}
		o.Dir = d
	}
	if err := os.MkdirAll(filepath.Join(o.Dir, "logs"), 0o755); err != nil {
		return nil, err
	}
	// PostgreSQL runs as another user and must reach its data directory.
	if err := os.Chmod(o.Dir, 0o755); err != nil {
		return nil, err
	}
	c := &Cluster{Dir: o.Dir, log: o.Log}
	ok := false
	defer func() {
		if !ok {
			c.Close()
		}
	}()
	root, err := Root()
	if err != nil {
		return nil, err
	}
	src := root
	if o.Source != "" {
		src = o.Source
	}
	bin := filepath.Join(o.Dir, "bin")
	o.Log.Info("building roadbook and natsd", slog.String("dir", bin))
	for _, b := range [][3]string{{"roadbook", "./cmd/roadbook", src}, {"natsd", "./evidence/cmd/natsd", root}} {
		cmd := exec.CommandContext(ctx, "go", "build", "-o", filepath.Join(bin, b[0]), b[1])
		cmd.Dir = b[2]
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("go build %s: %v\n%s", b[1], err, out)
		}
	}
	if err := c.startPostgres(ctx); err != nil {
		return nil, err
	}
	if err := c.startNATS(ctx, bin, o.NATSNodes); err != nil {
		return nil, err
	}
	// The outside world, in process.
	c.Issuer, err = NewIssuer()
	if err != nil {
		return nil, err
	}
	jwksURL, err := c.serve(c.Issuer.JWKSHandler())
	if err != nil {
		return nil, err
	}
	c.Nominatim, err = NewFakeNominatim(filepath.Join(root, "testkit", "fixtures", "nominatim"))
	if err != nil {
		return nil, err
	}
	nomURL, err := c.serve(c.Nominatim)
	if err != nil {
		return nil, err
	}
	c.Canary = &Canary{}
	if c.canaryURL, err = c.serve(c.Canary); err != nil {
		return nil, err
	}
	c.Providers = &FakeProviders{}
	provURL, err := c.serve(c.Providers)
	if err != nil {
		return nil, err
	}
	svcKey := strings.Repeat("s", 40)
	common := []string{"ROADBOOK_DATABASE_URL=" + c.DatabaseURL, "ROADBOOK_NATS_URL=" + c.NATSURL, "ROADBOOK_JWKS_URL=" + jwksURL,
		"ROADBOOK_JWT_ISSUER=" + IssuerName, "ROADBOOK_MCP_SERVICE_KEY=" + svcKey, "ROADBOOK_LOG_LEVEL=warn"}
	migrate := exec.CommandContext(ctx, filepath.Join(bin, "roadbook"), "migrate")
	migrate.Env = append(os.Environ(), common...)
	if out, err := migrate.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("roadbook migrate: %v\n%s", err, out)
	}
	apiPort, err := freePort()
	if err != nil {
		return nil, err
	}
	c.APIURL = "http://127.0.0.1:" + strconv.Itoa(apiPort)
	adminPort, err := freePort()
	if err != nil {
		return nil, err
	}
	c.APIAdminURL = "http://127.0.0.1:" + strconv.Itoa(adminPort)
	c.API = &Proc{Name: "api", Path: filepath.Join(bin, "roadbook"), Args: []string{"api"}, Log: filepath.Join(o.Dir, "logs", "api.log"),
		Env: append(append(append([]string{}, common...), deployGC...), "ROADBOOK_HTTP_ADDR=127.0.0.1:"+strconv.Itoa(apiPort),
			"ROADBOOK_ADMIN_ADDR=127.0.0.1:"+strconv.Itoa(adminPort), "ROADBOOK_PUBLIC_BASE_URL=http://roadbook.evidence",
			// As deploy/k8s runs it: page tokens keyed like every replica's.
			"ROADBOOK_PAGE_TOKEN_KEY="+strings.Repeat("p", 40),
			// As deploy/k8s runs it behind ingress-nginx: the harness is the one
			// trusted proxy (a request without X-Forwarded-For keys on the peer).
			"ROADBOOK_TRUSTED_PROXY_HOPS=1")}
	replicas := "1"
	if len(c.NATSNodes) == 3 {
		replicas = "3"
	}
	for i := range o.Workers {
		p, err := freePort()
		if err != nil {
			return nil, err
		}
		c.WorkerURLs = append(c.WorkerURLs, "http://127.0.0.1:"+strconv.Itoa(p))
		c.Workers = append(c.Workers, &Proc{Name: fmt.Sprintf("worker-%d", i+1), Path: filepath.Join(bin, "roadbook"), Args: []string{"worker"},
			Log: filepath.Join(o.Dir, "logs", fmt.Sprintf("worker-%d.log", i+1)),
			Env: append(append([]string{}, common...), "ROADBOOK_HTTP_ADDR=127.0.0.1:"+strconv.Itoa(p),
				"ROADBOOK_WORKER_CONCURRENCY="+strconv.Itoa(o.WorkerConcurrency), "ROADBOOK_SHUTDOWN_TIMEOUT=20s", "ROADBOOK_STREAM_REPLICAS="+replicas,
				"ROADBOOK_GEOCODER=nominatim", "ROADBOOK_NOMINATIM_URL="+nomURL,
				"ROADBOOK_KOMOOT_URL="+provURL, "ROADBOOK_STRAVA_URL="+provURL, "ROADBOOK_RIDEWITHGPS_URL="+provURL, "ROADBOOK_USER_AGENT=roadbook-evidence/1 (+https://github.com/roadbook/roadbook)")})
	}
	mcpPort, err := freePort()
	if err != nil {
		return nil, err
	}
	base := "http://127.0.0.1:" + strconv.Itoa(mcpPort)
	c.MCPURL = base + "/mcp"
	c.MCP = &Proc{Name: "mcp", Path: filepath.Join(bin, "roadbook"), Args: []string{"mcp"}, Log: filepath.Join(o.Dir, "logs", "mcp.log"),
		Env: append(append(append([]string{}, common...), deployGC...), "ROADBOOK_HTTP_ADDR=127.0.0.1:"+strconv.Itoa(mcpPort), "ROADBOOK_PUBLIC_BASE_URL="+base,
			"ROADBOOK_API_URL="+c.APIURL, "ROADBOOK_MCP_CURSOR_KEY="+strings.Repeat("c", 40), "ROADBOOK_MCP_CONFIRM_KEY="+strings.Repeat("k", 40))}
	for _, p := range append([]*Proc{c.API, c.MCP}, c.Workers...) {
		if err := p.Start(); err != nil {
			return nil, err
		}
	}
	for _, u := range append([]string{c.APIURL, base}, c.WorkerURLs...) {
		if err := WaitReady(ctx, u, 60*time.Second); err != nil {
			return nil, fmt.Errorf("%s (logs in %s): %w", u, filepath.Join(o.Dir, "logs"), err)
		}
	}
	o.Log.Info("cluster ready", slog.String("mcp", c.MCPURL), slog.String("api", c.APIURL), slog.Int("workers", len(c.Workers)))
	ok = true
	return c, nil
}

// startPostgres makes a private cluster with initdb and starts it.
func (c *Cluster) startPostgres(ctx context.Context) error {
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	sort.Strings(bins)
	initdb, err := exec.LookPath("initdb")
	if len(bins) > 0 {
		initdb, err = bins[len(bins)-1], nil
	}
	if err != nil {
		return errors.New("cluster: initdb not found (install postgresql)")
	}
	pgBin := filepath.Dir(initdb)
	data := filepath.Join(c.Dir, "pgdata")
	var cred *syscall.Credential
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return fmt.Errorf("cluster: running as root needs a postgres user: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.MkdirAll(data, 0o700); err != nil {
			return err
		}
		if err := os.Chown(data, uid, gid); err != nil {
			return err
		}
	}
	cmd := exec.CommandContext(ctx, initdb, "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("initdb: %v\n%s", err, out)
	}
	port, err := freePort()
	if err != nil {
		return err
	}
	c.DatabaseURL = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port)
	c.Postgres = &Proc{Name: "postgres", Path: filepath.Join(pgBin, "postgres"), Cred: cred, Log: filepath.Join(c.Dir, "logs", "postgres.log"),
		Args: []string{"-D", data, "-p", strconv.Itoa(port), "-k", data, "-c", "listen_addresses=127.0.0.1", "-c", "max_connections=300",
			// Per-query statistics (QueryStats): what each statement costs as
			// the store grows.
			"-c", "shared_preload_libraries=pg_stat_statements", "-c", "pg_stat_statements.track=all"}}
	if err := c.Postgres.Start(); err != nil {
		return err
	}
	if err := c.WaitPostgres(ctx, 60*time.Second); err != nil {
		return err
	}
	conn, err := pgx.Connect(ctx, c.DatabaseURL)
	if err != nil {
		return err
	}
	defer func() { _ = conn.Close(ctx) }()
	_, err = conn.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
	return err
}

// WaitPostgres waits until the private cluster accepts a query.
func (c *Cluster) WaitPostgres(ctx context.Context, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		conn, err := pgx.Connect(ctx, c.DatabaseURL)
		if err == nil {
			err = conn.Ping(ctx)
			conn.Close(ctx)
			if err == nil {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("postgres not ready after %s: %w", timeout, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// RestartPostgres stops PostgreSQL (fast shutdown: SIGINT) and starts it on
// the same data directory and port.
func (c *Cluster) RestartPostgres(ctx context.Context) error {
	if err := c.Postgres.Stop(syscall.SIGINT, 30*time.Second); err != nil {
		return err
	}
	if err := c.Postgres.Start(); err != nil {
		return err
	}
	return c.WaitPostgres(ctx, 60*time.Second)
}

// RestartNATS stops the NATS server (SIGTERM) and starts it on the same
// JetStream directory and port.
func (c *Cluster) RestartNATS(ctx context.Context) error {
	if err := c.NATS.Stop(syscall.SIGTERM, 30*time.Second); err != nil {
		return err
	}
	if err := c.NATS.Start(); err != nil {
		return err
	}
	return waitTCP(ctx, strings.TrimPrefix(c.NodeURLs[0], "nats://"), 30*time.Second)
}

// Procs are every process, for sampling.
func (c *Cluster) Procs() []*Proc {
	ps := append([]*Proc{c.Postgres}, c.NATSNodes...)
	ps = append(ps, c.API, c.MCP)
	return append(ps, c.Workers...)
}

// MetricsURL is a roadbook process's /metrics, or "" for PostgreSQL/NATS.
func (c *Cluster) MetricsURL(p *Proc) string {
	switch p {
	case c.API:
		return c.APIAdminURL + "/metrics"
	case c.MCP:
		return strings.TrimSuffix(c.MCPURL, "/mcp") + "/metrics"
	}
	for i, w := range c.Workers {
		if p == w {
			return c.WorkerURLs[i] + "/metrics"
		}
	}
	return ""
}

// Close stops the services (SIGTERM, drain), then NATS and PostgreSQL.
func (c *Cluster) Close() {
	var services []*Proc
	services = append(services, c.MCP, c.API)
	services = append(services, c.Workers...)
	for _, p := range services {
		if p != nil {
			_ = p.Stop(syscall.SIGTERM, 30*time.Second)
		}
	}
	for _, n := range c.NATSNodes {
		_ = n.Stop(syscall.SIGTERM, 20*time.Second)
	}
	for _, row := range c.routes {
		for _, p := range row {
			if p != nil {
				p.Close()
			}
		}
	}
	for _, l := range c.sinks {
		_ = l.Close()
	}
	if c.Postgres != nil {
		_ = c.Postgres.Stop(syscall.SIGINT, 30*time.Second)
	}
	for _, s := range c.servers {
		_ = s.Close()
	}
}

// serve runs h on a loopback port and returns its base URL.
func (c *Cluster) serve(h http.Handler) (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	s := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	c.servers = append(c.servers, s)
	go func() { _ = s.Serve(ln) }()
	return "http://" + ln.Addr().String(), nil
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

func waitTCP(ctx context.Context, addr string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		conn, err := (&net.Dialer{Timeout: time.Second}).DialContext(ctx, "tcp", addr)
		if err == nil {
			conn.Close()
			return nil
		}
		if time.Now().After(deadline) {
			return err
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// WaitReady polls base/readyz until it answers 200.
func WaitReady(ctx context.Context, base string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/readyz", nil)
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			err = fmt.Errorf("readyz answered %d", resp.StatusCode)
		}
		if time.Now().After(deadline) {
			return err
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// deployGC is the garbage-collector setting deploy/k8s gives the api and mcp
// pods (GOGC=400 under a GOMEMLIMIT), so the processes under test run as
// they would in production.
var deployGC = []string{"GOGC=400", "GOMEMLIMIT=400MiB"}
