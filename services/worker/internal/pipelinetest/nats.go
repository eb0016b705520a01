package pipelinetest

import (
	"fmt"
	"net"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// NATS is an embedded nats-server with JetStream in a directory.
type NATS struct {
	Dir  string
	Port int
	srv  *server.Server
}

// StartNATS starts a server on port (-1: any free port) storing JetStream
// in dir. Restart it with Restart to simulate a NATS restart.
func StartNATS(dir string, port int) (*NATS, error) {
	n := &NATS{Dir: dir, Port: port}
	if err := n.start(); err != nil {
		return nil, err
	}
	return n, nil
}

func (n *NATS) start() error {
	opts := &server.Options{Host: "127.0.0.1", Port: n.Port, JetStream: true, StoreDir: n.Dir, NoLog: true, NoSigs: true}
	srv, err := server.NewServer(opts)
	if err != nil {
		return fmt.Errorf("nats server: %w", err)
	}
	srv.Start()
	if !srv.ReadyForConnections(10 * time.Second) {
		return fmt.Errorf("nats server not ready")
	}
	n.srv = srv
	n.Port = srv.Addr().(*net.TCPAddr).Port
	return nil
}

// URL is the client URL.
func (n *NATS) URL() string { return n.srv.ClientURL() }

// Stop shuts the server down and waits.
func (n *NATS) Stop() {
	n.srv.Shutdown()
	n.srv.WaitForShutdown()
}

// Restart stops the server and starts it again on the same port and store
// directory: JetStream recovers its streams from disk.
func (n *NATS) Restart() error {
	n.Stop()
	return n.start()
}

// Connect dials the server with unlimited reconnects (nats.go gives up after
// 60 tries by default).
func Connect(url string) (*nats.Conn, error) {
	return nats.Connect(url, nats.MaxReconnects(-1), nats.ReconnectWait(100*time.Millisecond), nats.RetryOnFailedConnect(true))
}
