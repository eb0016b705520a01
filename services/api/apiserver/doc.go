// Package apiserver builds Roadbook's API: every Connect service of
// roadbook.v1 over the event store (through tripstore) and the domain, on one
// port that speaks Connect, gRPC and gRPC-Web, with health, reflection,
// metrics and readiness beside it.
//
// A handler authenticates (package auth), validates the request
// (protovalidate, in an interceptor), loads the trip, decides the command
// with the pure domain and appends the events; every error leaves through
// one function, connectError, with a roadbook.v1.ErrorInfo detail.
package apiserver
