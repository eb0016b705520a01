package apiserver

import (
	"fmt"
	"log/slog"
	"net/http"

	"connectrpc.com/connect"

	"github.com/roadbook/roadbook/auth"
	"github.com/roadbook/roadbook/proto/gen/roadbook/v1/roadbookv1connect"
)

// Request body limits, on the wire, per procedure (bodyLimit). connect-go's
// WithReadMaxBytes bounds each decoded message as well (server.go).
const (
	// maxUploadMessageBytes bounds CreateTripFromUpload: a 30 MiB GPX
	// document plus the base64 overhead of Connect's JSON encoding.
	maxUploadMessageBytes = 42 << 20
	// maxMessageBytes bounds every other authenticated procedure.
	maxMessageBytes = 1 << 20
	// maxPublicMessageBytes bounds the public share reads, which carry a
	// share code and little else and are open to anyone.
	maxPublicMessageBytes = 64 << 10
)

// bodyLimit is the most bytes a request body of procedure may carry.
func bodyLimit(procedure string, need auth.Scope) int64 {
	switch {
	case procedure == roadbookv1connect.TripServiceCreateTripFromUploadProcedure:
		return maxUploadMessageBytes
	case need == auth.Public:
		return maxPublicMessageBytes
	}
	return maxMessageBytes
}

// gate stands in front of the Connect handlers, as HTTP middleware, because
// connect-go reads and decodes the whole request body before any
// interceptor runs: with the auth interceptor alone, a caller without a
// token made the API buffer 42 MiB per request (eight parallel requests
// grew it by 750 MB). The gate refuses a call whose procedure needs a token
// when the Authorization header does not verify, and a body over the
// procedure's limit (Content-Length at once, a chunked body as it arrives
// through http.MaxBytesReader), all before a byte of the body is read.
// Its refusals are Connect errors in the caller's protocol (Connect, gRPC
// or gRPC-Web). The auth interceptor still runs behind it and puts the
// principal in the context; a token that passed here is in the verifier's
// cache, so the second check costs a map lookup.
type gate struct {
	verifier *auth.Verifier
	policy   auth.Policy
	log      *slog.Logger
	errors   *connect.ErrorWriter
}

func newGate(v *auth.Verifier, policy auth.Policy, log *slog.Logger) *gate {
	return &gate{verifier: v, policy: policy, log: log, errors: connect.NewErrorWriter()}
}

// wrap guards next, a handler of Connect procedures (the path is the
// procedure name).
func (g *gate) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		procedure := r.URL.Path
		need, ok := g.policy[procedure]
		if !ok {
			// Fail closed, as the interceptor does; connect-go would answer
			// 404 for a procedure it does not serve anyway.
			g.refuse(w, r, connect.NewError(connect.CodePermissionDenied, fmt.Errorf("procedure %s has no authorization rule", procedure)))
			return
		}
		if need != auth.Public {
			if _, err := g.verifier.Authorize(r.Context(), r.Header.Get("Authorization"), need); err != nil {
				g.log.InfoContext(r.Context(), "call refused before its body was read",
					slog.String("procedure", procedure), slog.String("reason", err.Error()))
				g.refuse(w, r, auth.ConnectError(err))
				return
			}
		}
		limit := bodyLimit(procedure, need)
		if r.ContentLength > limit {
			g.refuse(w, r, tooLarge(limit))
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, limit)
		next.ServeHTTP(w, r)
	})
}

// tooLarge is the refusal of a body over limit bytes.
func tooLarge(limit int64) *connect.Error {
	return connect.NewError(connect.CodeResourceExhausted, fmt.Errorf("request body larger than %d bytes", limit))
}

// refuse answers err without reading the body; the connection is closed
// afterwards so an unread body is not drained.
func (g *gate) refuse(w http.ResponseWriter, r *http.Request, err *connect.Error) {
	if r.ProtoMajor == 1 && r.ContentLength != 0 {
		w.Header().Set("Connection", "close")
	}
	_ = g.errors.Write(w, r, err) // the caller hung up: nothing to do
}
