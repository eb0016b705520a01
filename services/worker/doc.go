// Package worker holds Roadbook's asynchronous half: the relay from the event
// store to JetStream and the consumers that import routes, compute stages and
// run analyses behind rate-limited, circuit-broken third-party clients.
package worker
