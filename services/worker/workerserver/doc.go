// Package workerserver builds and runs Roadbook's worker: the relay (the
// store's ordered feed into JetStream, one active replica at a time), the
// durable consumers of the import, stages and analysis jobs with their
// bounded pools, and the reconciler. It is the worker module's one public
// package; cmd/roadbook composes it with the API and the MCP server, in one
// process (embedded NATS and store) or as its own Deployment.
package workerserver
