package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/roadbook/roadbook/auth"
	"github.com/roadbook/roadbook/eventstore/postgres"
	"github.com/roadbook/roadbook/services/api/apiserver"
	"github.com/roadbook/roadbook/testkit"
)

// The cycle phase runs the API in a process of its own, this binary started
// again with serveEnv set to "database URL|NATS URL", so that the CPU it
// reports is the API's alone: in one process the clients, the embedded NATS
// server and the API share one rusage, and the clients' share (encoding a
// 1.2 MB upload, decoding every answer) hides the API's changes.
const serveEnv = "BENCH_API_SERVE"

// benchSecret is the HS256 key both processes know the bench's tokens by.
var benchSecret = []byte(strings.Repeat("b", 32))

// benchIssuer signs the bench's tokens.
func benchIssuer() (*auth.HS256Issuer, error) {
	return auth.NewHS256Issuer("bench", benchSecret, "roadbook-bench")
}

// profileEnv names the file the API process writes its CPU profile to.
const profileEnv = "BENCH_API_CPUPROFILE"

// serveAPI is the child's side: the API on the given store and NATS, its
// address printed on stdout, until stdin closes.
func serveAPI(spec string) error {
	if path := os.Getenv(profileEnv); path != "" {
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	dbURL, natsURL, ok := strings.Cut(spec, "|")
	if !ok {
		return fmt.Errorf("%s=%q: want \"database URL|NATS URL\"", serveEnv, spec)
	}
	ctx := context.Background()
	store, err := postgres.Open(ctx, dbURL)
	if err != nil {
		return err
	}
	defer store.Close()
	nc, err := testkit.Connect(natsURL)
	if err != nil {
		return err
	}
	defer nc.Close()
	iss, err := benchIssuer()
	if err != nil {
		return err
	}
	srv, err := newServer(store, nc, iss)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	fmt.Println(ln.Addr().String())
	_, _ = io.Copy(io.Discard, os.Stdin) // until the parent closes it or dies
	return hs.Close()
}

// apiProcess is the API running as a child process.
type apiProcess struct {
	cmd   *exec.Cmd
	stdin io.Closer
	base  string
}

// startAPI starts this binary as the API on dbURL and natsURL, writing its
// CPU profile to profile when that is not empty.
func startAPI(dbURL, natsURL, profile string) (*apiProcess, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), serveEnv+"="+dbURL+"|"+natsURL, profileEnv+"="+profile)
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	addr, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, fmt.Errorf("the API process gave no address: %w", err)
	}
	return &apiProcess{cmd: cmd, stdin: stdin, base: "http://" + strings.TrimSpace(addr)}, nil
}

// cpu is the API process's CPU time so far, user and system
// (/proc/<pid>/stat, in clock ticks of 10 ms).
func (p *apiProcess) cpu() (time.Duration, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(p.cmd.Process.Pid) + "/stat")
	if err != nil {
		return 0, err
	}
	// The fields after the command's closing parenthesis: state is the 3rd
	// field of the line, utime and stime the 14th and 15th.
	rest := string(b[strings.LastIndexByte(string(b), ')')+2:])
	f := strings.Fields(rest)
	if len(f) < 13 {
		return 0, fmt.Errorf("short /proc stat line %q", rest)
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc stat line %q", rest)
	}
	return time.Duration(ut+st) * 10 * time.Millisecond, nil
}

// stop ends the API process.
func (p *apiProcess) stop() {
	_ = p.stdin.Close()
	done := make(chan struct{})
	go func() { _ = p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-done
	}
}

// newServer is the API as both the in-process phases and the API process
// of -cycle run it: the real server, its tokens verified against the
// bench's issuer, its logs discarded.
func newServer(store *postgres.Store, nc *nats.Conn, iss *auth.HS256Issuer) (*apiserver.Server, error) {
	verifier, err := auth.NewVerifier(auth.Config{Users: auth.NewStaticKeys(iss.Key())})
	if err != nil {
		return nil, err
	}
	return apiserver.New(apiserver.Config{Store: store, NATS: nc, Verifier: verifier,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
}
