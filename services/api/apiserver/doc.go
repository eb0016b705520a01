// Package apiserver builds Roadbook's API: every Connect service of
// roadbook.v1 on one port that speaks Connect, gRPC and gRPC-Web, with
// health, reflection, metrics and readiness beside it.
//
// A call passes the interceptors — telemetry (span, correlation id, the
// request log line), metrics, auth (the verified caller into the context,
// package auth) and protovalidate — then a handler that only translates: the
// request into a use case of package planner, the outcome into the
// response. Every write goes through write (write.go): the idempotency key,
// the procedure from the request's spec, the replayed answer and the
// validate-only preview are handled there once. Every error leaves through
// one function, connectError, with a roadbook.v1.ErrorInfo detail.
package apiserver
