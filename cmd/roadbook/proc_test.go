package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/cmd/roadbook/internal/devstate"
	"github.com/roadbook/roadbook/testkit"
	"github.com/roadbook/roadbook/testkit/fixtures"
)

// binDir holds the roadbook binary the process tests build once.
var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "roadbook-bin-")
	if err != nil {
		panic(err)
	}
	binPath = filepath.Join(dir, "roadbook")
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// roadbookBinary builds the command (once per test binary) and returns its path.
func roadbookBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			buildErr = &buildError{out: string(out), err: err}
		}
	})
	require.NoError(t, buildErr)
	return binPath
}

type buildError struct {
	out string
	err error
}

func (e *buildError) Error() string { return e.err.Error() + "\n" + e.out }

// process is a roadbook process under test.
type process struct {
	cmd            *exec.Cmd
	stdout, stderr *testkit.SyncBuffer
	done           chan error
}

// start runs the binary with args (and extra environment) until the test ends.
func start(t *testing.T, env []string, args ...string) *process {
	t.Helper()
	cmd := exec.Command(roadbookBinary(t), args...)
	cmd.Env = append(os.Environ(), env...)
	p := &process{cmd: cmd, stdout: &testkit.SyncBuffer{}, stderr: &testkit.SyncBuffer{}, done: make(chan error, 1)}
	cmd.Stdout, cmd.Stderr = p.stdout, p.stderr
	require.NoError(t, cmd.Start())
	go func() { p.done <- cmd.Wait() }()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

// stop sends SIGTERM and returns the exit code (failing after 60 s).
func (p *process) stop(t *testing.T) int {
	t.Helper()
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM))
	return p.wait(t, 60*time.Second)
}

// wait returns the exit code once the process ends.
func (p *process) wait(t *testing.T, limit time.Duration) int {
	t.Helper()
	select {
	case err := <-p.done:
		p.done <- err
		if err == nil {
			return 0
		}
		var ee *exec.ExitError
		require.ErrorAs(t, err, &ee)
		return ee.ExitCode()
	case <-time.After(limit):
		t.Fatalf("%s did not exit within %s\nstderr:\n%s", p.cmd.Args, limit, p.stderr.String())
		return -1
	}
}

// cli runs the binary to completion and returns stdout, stderr and the exit code.
func cli(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, roadbookBinary(t), args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	if err != nil {
		var ee *exec.ExitError
		require.ErrorAs(t, err, &ee, "%s: %v", args, err)
		code = ee.ExitCode()
	}
	return out.String(), errOut.String(), code
}

// waitDevJSON waits for a dev instance to write <dir>/dev.json and reads it.
func waitDevJSON(t *testing.T, p *process, dir string) devstate.Info {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		b, err := os.ReadFile(filepath.Join(dir, devstate.InfoFile))
		// dev.json is written just before the banner is printed: wait for
		// the banner's last line too, so a test reading it sees it whole.
		if err == nil && strings.Contains(p.stdout.String(), "Press Ctrl-C to stop.") {
			var d devstate.Info
			require.NoError(t, json.Unmarshal(b, &d))
			return d
		}
		select {
		case err := <-p.done:
			t.Fatalf("roadbook dev exited (%v) before writing dev.json\nstderr:\n%s", err, p.stderr.String())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("no dev.json after 60 s\nstdout:\n%s\nstderr:\n%s", p.stdout.String(), p.stderr.String())
		}
	}
}

// osloGPX writes the 627 km Oslo–Trondheim fixture (testkit/fixtures) to a
// file of the test, for the CLI's --gpx.
func osloGPX(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "long_brouter_oslo-trondheim_fastbike.gpx")
	require.NoError(t, os.WriteFile(path, fixtures.Read(t, fixtures.OsloTrondheim), 0o644))
	return path
}
