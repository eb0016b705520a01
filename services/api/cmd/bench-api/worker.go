package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// startWorker runs `roadbook worker` (the binary at bin; built from this
// workspace into dir when bin is empty) on the bench's schema and NATS, so
// the cycle's trips get their stages and analyses. It is a process of its
// own: its CPU is not the API's, and getrusage of this process leaves it out.
// The returned stop ends it.
func startWorker(ctx context.Context, bin, dir, dbURL, natsURL string) (func(), error) {
	if bin == "" {
		out, err := exec.CommandContext(ctx, "go", "env", "GOWORK").Output()
		work := strings.TrimSpace(string(out))
		if err != nil || work == "" || work == "off" {
			return nil, fmt.Errorf("no go.work to build roadbook from (pass -worker-bin): %v", err)
		}
		bin = filepath.Join(dir, "roadbook")
		build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/roadbook")
		build.Dir = filepath.Dir(work)
		if out, err := build.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("go build ./cmd/roadbook: %v\n%s", err, out)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(bin, "worker")
	cmd.Env = append(os.Environ(), "ROADBOOK_DATABASE_URL="+dbURL, "ROADBOOK_NATS_URL="+natsURL,
		"ROADBOOK_HTTP_ADDR="+addr, "ROADBOOK_LOG_LEVEL=warn")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	stop := func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	}
	for deadline := time.Now().Add(time.Minute); ; {
		resp, err := http.Get("http://" + addr + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return stop, nil
			}
		}
		if time.Now().After(deadline) {
			stop()
			return nil, fmt.Errorf("the worker at %s is not ready after a minute", addr)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
