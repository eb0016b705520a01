package servers

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/roadbook/roadbook/auth"
	"github.com/roadbook/roadbook/auth/rebinding"
	"github.com/roadbook/roadbook/cmd/roadbook/internal/devstate"
	"github.com/roadbook/roadbook/cmd/roadbook/internal/envflag"
	"github.com/roadbook/roadbook/eventstore/sqlite"
	"github.com/roadbook/roadbook/services/api/apiserver"
	"github.com/roadbook/roadbook/services/api/planner"
	"github.com/roadbook/roadbook/services/worker/workerserver"
)

// devFlags are `roadbook dev`'s settings.
type devFlags struct {
	dataDir, apiAddr, mcpAddr, logLevel string
	noAuth                              bool
	tokenTTL, shutdown                  time.Duration
	planner                             plannerFlags
	// providers and userAgent switch on the public data providers
	// (workerFlags).
	providers, userAgent string
}

// RunDev is `roadbook dev`: embedded NATS with JetStream and the embedded
// event store under --data-dir, the gazetteer geocoder, a dev token
// issuer (and a dev OpenID provider that signs the web planner in as the
// dev user), and the API with the planner, worker and MCP server in this
// one process. Once everything is ready it prints the planner URL, the
// URLs, two tokens and an MCP client configuration, and writes them to
// <data-dir>/dev.json; then which data providers are on. They are all off
// unless --providers public (or ROADBOOK_PROVIDERS=public) turns on the
// public Overpass, Open-Meteo and Nominatim, paced by their usage policies.
func RunDev(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := envflag.New("dev", stderr)
	var f devFlags
	fs.StringVar(&f.dataDir, "data-dir", "./.roadbook", "directory holding every piece of state (event store, NATS, keys)")
	fs.StringVar(&f.apiAddr, "api-addr", "127.0.0.1:8080", "listen address of the Connect API (port 0: any free port)")
	fs.StringVar(&f.mcpAddr, "mcp-addr", "127.0.0.1:8090", "listen address of the MCP server (port 0: any free port)")
	fs.StringVar(&f.logLevel, "log-level", "warn", "debug, info, warn or error; JSON logs go to stderr ($ROADBOOK_LOG_LEVEL)")
	fs.BoolVar(&f.noAuth, "no-auth", false, "map requests without a token to the dev user (loopback listeners only)")
	fs.DurationVar(&f.tokenTTL, "token-ttl", 30*24*time.Hour, "lifetime of the printed tokens")
	fs.DurationVar(&f.shutdown, "shutdown-timeout", 10*time.Second, "how long SIGINT/SIGTERM may take to drain")
	f.planner.register(fs, false)
	registerProviders(fs, &f.providers)
	fs.StringVar(&f.userAgent, "user-agent", workerserver.DefaultUserAgent, "identifying User-Agent for third parties ($ROADBOOK_USER_AGENT)")
	if err := envflag.Parse(fs, args); err != nil {
		return err
	}
	if f.noAuth {
		for _, a := range []string{f.apiAddr, f.mcpAddr} {
			if err := requireLoopback(a); err != nil {
				return err
			}
		}
	}
	log, err := newLogger(f.logLevel, stderr)
	if err != nil {
		return err
	}
	d := &devInstance{flags: f, log: log}
	defer d.close()
	if err := d.start(ctx); err != nil {
		return err
	}
	info, err := d.waitReady(ctx)
	if err != nil {
		return err
	}
	if err := d.publish(info, stdout); err != nil {
		return err
	}
	<-ctx.Done()
	fmt.Fprintln(stdout, "\nroadbook dev: shutting down")
	return d.shutdown()
}

// devInstance is one running `roadbook dev`: what it started, in order, so
// close can stop it in reverse.
type devInstance struct {
	flags   devFlags
	log     *slog.Logger
	closers []func()

	issuer           *auth.HS256Issuer
	apiURL, mcpURL   string
	api              *apiserver.Server
	apiHTTP          *http.Server
	apiErr           chan error
	worker           *workerserver.Server
	stopWorker       context.CancelFunc
	workerDone       chan error
	mcp              devMCP
	stopped, devJSON bool
	// providers is the data-provider summary the banner ends with.
	providers string
}

// start opens the data directory and starts every part; nothing is
// printed until waitReady says the whole instance answers.
func (d *devInstance) start(ctx context.Context) error {
	f := d.flags
	if err := os.MkdirAll(f.dataDir, 0o700); err != nil {
		return fmt.Errorf("data directory: %w", err)
	}
	secrets, err := devstate.LoadOrCreateSecrets(f.dataDir)
	if err != nil {
		return err
	}
	if d.issuer, err = devstate.IssuerFor(secrets); err != nil {
		return err
	}
	tr, err := setupTracing(ctx, "roadbook-dev", d.log)
	if err != nil {
		return err
	}
	d.closers = append(d.closers, func() { flushTracing(tr, d.log) }) // runs last
	// Listen first: with port 0 the URLs (and the MCP audience) are known
	// only once the ports are taken.
	apiLn, err := net.Listen("tcp", f.apiAddr)
	if err != nil {
		return fmt.Errorf("API listener: %w", err)
	}
	d.closers = append(d.closers, func() { _ = apiLn.Close() })
	mcpLn, err := net.Listen("tcp", f.mcpAddr)
	if err != nil {
		return fmt.Errorf("MCP listener: %w", err)
	}
	d.closers = append(d.closers, func() { _ = mcpLn.Close() })
	d.apiURL = "http://" + apiLn.Addr().String()
	d.mcpURL = "http://" + mcpLn.Addr().String() + "/mcp"

	ns, nc, err := embeddedNATS(filepath.Join(f.dataDir, devstate.NATSDir))
	if err != nil {
		return err
	}
	d.closers = append(d.closers, func() { ns.Shutdown(); ns.WaitForShutdown() }, nc.Close)
	store, err := sqlite.Open(ctx, filepath.Join(f.dataDir, devstate.StoreFile))
	if err != nil {
		return fmt.Errorf("open the event store: %w", err)
	}
	d.closers = append(d.closers, store.Close)
	if err := store.Migrate(ctx); err != nil {
		return fmt.Errorf("migrate the event store: %w", err)
	}

	svcKey, err := serviceKey(devstate.ServiceKeyID, secrets.ServiceKey)
	if err != nil {
		return err
	}
	verifier, err := apiVerifier(auth.NewStaticKeys(d.issuer.Key()), devstate.Issuer, &svcKey, auth.DefaultAudience)
	if err != nil {
		return err
	}
	reg := processRegistry()
	d.api, err = apiserver.New(apiserver.Config{Store: store, NATS: nc, Verifier: verifier, PublicBaseURL: d.apiURL,
		Logger: d.log, Registry: reg, PageTokenKey: []byte(secrets.PageTokenKey), WatchPoll: 500 * time.Millisecond,
		TracerProvider: tr.Provider})
	if err != nil {
		return err
	}
	// One process on loopback: the admin routes (/metrics, reflection)
	// share the API's port.
	apiHandler := withAdmin(d.api.Handler(), d.api.AdminHandler())
	if f.noAuth {
		tok, err := devstate.MintToken(d.issuer, devstate.User, auth.DefaultAudience, f.tokenTTL)
		if err != nil {
			return err
		}
		apiHandler = defaultBearer(tok, apiHandler)
	}
	if apiHandler, err = d.devPlanner(apiHandler); err != nil {
		return err
	}
	if f.noAuth {
		// Without a token every caller is the dev user, so a page on another
		// site that rebinds its name to 127.0.0.1 would be too: the API, like
		// the MCP server, accepts only its own Host and Origin (docs/SECURITY.md).
		public, err := url.Parse(d.apiURL)
		if err != nil {
			return err
		}
		apiHandler = rebinding.New(public, nil, nil).Wrap(apiHandler)
	}
	d.apiHTTP = h2cServer(apiHandler)
	d.apiErr = make(chan error, 1)
	go func() { d.apiErr <- serveErr(d.apiHTTP.Serve(apiLn)) }()

	wcfg := workerserver.Config{Store: store, NATS: nc, Logger: d.log, Registry: processRegistry(),
		DrainTimeout: f.shutdown, TracerProvider: tr.Provider}
	wf := workerFlags{geocoder: "gazetteer", streamReplicas: 1, providers: f.providers, userAgent: f.userAgent} // one embedded NATS server
	if err := wf.apply(&wcfg); err != nil {
		return err
	}
	d.providers = wcfg.ProviderSummary()
	if d.worker, err = workerserver.New(wcfg); err != nil {
		return err
	}
	wctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	d.stopWorker = stop
	d.workerDone = make(chan error, 1)
	go func() { d.workerDone <- d.worker.Run(wctx) }()

	return d.startMCP(secrets, svcKey, mcpLn, tr.Provider)
}

// waitReady polls the API's readiness and the worker's until both answer
// (and the MCP server's), then mints the tokens dev.json carries.
func (d *devInstance) waitReady(ctx context.Context) (devstate.Info, error) {
	deadline := time.Now().Add(30 * time.Second)
	for {
		if d.worker.Ready() && httpOK(ctx, d.apiURL+"/readyz") && d.mcp.ready(ctx) {
			break
		}
		select {
		case err := <-d.apiErr:
			return devstate.Info{}, fmt.Errorf("the API stopped: %w", err)
		case err := <-d.workerDone:
			return devstate.Info{}, fmt.Errorf("the worker stopped: %w", err)
		case <-ctx.Done():
			return devstate.Info{}, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return devstate.Info{}, errors.New("not ready after 30 s (see the logs on stderr)")
		}
	}
	apiTok, err := devstate.MintToken(d.issuer, devstate.User, auth.DefaultAudience, d.flags.tokenTTL)
	if err != nil {
		return devstate.Info{}, err
	}
	mcpTok, err := devstate.MintToken(d.issuer, devstate.User, d.mcpURL, d.flags.tokenTTL)
	if err != nil {
		return devstate.Info{}, err
	}
	return devstate.Info{AppURL: d.apiURL + planner.Prefix, APIURL: d.apiURL, MCPURL: d.mcpURL, APIToken: apiTok, MCPToken: mcpTok}, nil
}

// publish writes dev.json and prints the banner.
func (d *devInstance) publish(info devstate.Info, stdout io.Writer) error {
	b, err := jsonIndent(info)
	if err != nil {
		return err
	}
	path := filepath.Join(d.flags.dataDir, devstate.InfoFile)
	if err := devstate.WriteFileAtomic(path, b); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	d.devJSON = true
	printBanner(stdout, info, d.flags.dataDir, d.flags.noAuth)
	fmt.Fprint(stdout, "\n"+d.providers)
	return nil
}

// shutdown drains in dependency order: the front doors first (MCP, then
// the API, whose readiness turns off and whose WatchTrip streams end), then
// the worker (in-flight jobs finish and are acked), then NATS and the store
// (close, deferred by the caller).
func (d *devInstance) shutdown() error {
	ctx, cancel := context.WithTimeout(context.Background(), d.flags.shutdown)
	defer cancel()
	d.stopped = true
	errs := []error{d.mcp.shutdown(ctx)}
	errs = append(errs, d.api.Shutdown(ctx), d.apiHTTP.Shutdown(ctx), <-d.apiErr)
	d.stopWorker()
	select {
	case err := <-d.workerDone:
		errs = append(errs, err)
	case <-ctx.Done():
		errs = append(errs, errors.New("the worker did not drain in time"))
	}
	return errors.Join(errs...)
}

// close stops whatever start got to, in reverse order, and removes dev.json
// so scripts do not talk to a stopped instance.
func (d *devInstance) close() {
	if !d.stopped {
		if d.stopWorker != nil {
			d.stopWorker()
			select {
			case <-d.workerDone:
			case <-time.After(d.flags.shutdown):
			}
		}
		if d.apiHTTP != nil {
			_ = d.apiHTTP.Close()
		}
		d.mcp.close()
	}
	if d.devJSON {
		_ = os.Remove(filepath.Join(d.flags.dataDir, devstate.InfoFile))
	}
	for i := len(d.closers) - 1; i >= 0; i-- {
		d.closers[i]()
	}
}

// httpOK reports whether GET url answers 200.
func httpOK(ctx context.Context, url string) bool {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return false
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	_ = resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}
