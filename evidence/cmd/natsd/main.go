// Command natsd is a NATS server with JetStream in one small binary, so the
// evidence runs need no nats-server package on the machine: it stores
// JetStream files under -dir and listens on -port until SIGTERM/SIGINT.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	natsserver "github.com/nats-io/nats-server/v2/server"
)

func main() {
	port := flag.Int("port", 4222, "client port")
	dir := flag.String("dir", "", "JetStream store directory (required)")
	flag.Parse()
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "natsd: -dir is required")
		os.Exit(2)
	}
	ns, err := natsserver.NewServer(&natsserver.Options{Host: "127.0.0.1", Port: *port, JetStream: true, StoreDir: *dir, NoSigs: true})
	if err != nil {
		fmt.Fprintln(os.Stderr, "natsd:", err)
		os.Exit(1)
	}
	ns.ConfigureLogger()
	ns.Start()
	if !ns.ReadyForConnections(30 * time.Second) {
		fmt.Fprintln(os.Stderr, "natsd: not ready after 30 s")
		os.Exit(1)
	}
	fmt.Println("natsd ready on", ns.ClientURL())
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	<-sig
	ns.Shutdown()
	ns.WaitForShutdown()
}
