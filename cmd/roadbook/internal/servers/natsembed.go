package servers

import (
	"errors"
	"fmt"
	"time"

	natsserver "github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// embeddedNATS starts a NATS server with JetStream inside this process,
// storing under storeDir, and connects to it in-process: one-process mode
// opens no NATS port at all.
func embeddedNATS(storeDir string) (*natsserver.Server, *nats.Conn, error) {
	ns, err := natsserver.NewServer(&natsserver.Options{
		ServerName: "roadbook-dev", DontListen: true, JetStream: true, StoreDir: storeDir,
		NoSigs: true, NoLog: true,
	})
	if err != nil {
		return nil, nil, fmt.Errorf("embedded NATS: %w", err)
	}
	ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		ns.Shutdown()
		return nil, nil, errors.New("embedded NATS did not start within 10 s")
	}
	nc, err := nats.Connect("", nats.InProcessServer(ns), nats.Name("roadbook-dev"))
	if err != nil {
		ns.Shutdown()
		return nil, nil, fmt.Errorf("connect to the embedded NATS: %w", err)
	}
	return ns, nc, nil
}
