package auth

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"connectrpc.com/connect"
)

// Interceptor authenticates every Connect call against a policy.
type Interceptor struct {
	verifier *Verifier
	policy   Policy
}

// NewInterceptor returns the Connect interceptor that verifies the bearer
// token and the scope the policy requires for the procedure.
func NewInterceptor(v *Verifier, policy Policy) *Interceptor {
	return &Interceptor{verifier: v, policy: policy}
}

var _ connect.Interceptor = (*Interceptor)(nil)

// authorize returns ctx with the principal, or the Connect error to answer.
func (i *Interceptor) authorize(ctx context.Context, procedure string, header http.Header) (context.Context, error) {
	need, ok := i.policy[procedure]
	if !ok {
		return ctx, connect.NewError(connect.CodePermissionDenied, fmt.Errorf("procedure %s has no authorization rule", procedure))
	}
	if need == Public {
		return ctx, nil
	}
	p, err := i.verifier.Authorize(ctx, header.Get("Authorization"), need)
	if err != nil {
		return ctx, ConnectError(err)
	}
	return WithPrincipal(ctx, p), nil
}

// WrapUnary implements connect.Interceptor.
func (i *Interceptor) WrapUnary(next connect.UnaryFunc) connect.UnaryFunc {
	return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
		if req.Spec().IsClient {
			return next(ctx, req)
		}
		ctx, err := i.authorize(ctx, req.Spec().Procedure, req.Header())
		if err != nil {
			return nil, err
		}
		return next(ctx, req)
	}
}

// WrapStreamingClient implements connect.Interceptor (a no-op: the API
// verifies, it does not call).
func (i *Interceptor) WrapStreamingClient(next connect.StreamingClientFunc) connect.StreamingClientFunc {
	return next
}

// WrapStreamingHandler implements connect.Interceptor.
func (i *Interceptor) WrapStreamingHandler(next connect.StreamingHandlerFunc) connect.StreamingHandlerFunc {
	return func(ctx context.Context, conn connect.StreamingHandlerConn) error {
		ctx, err := i.authorize(ctx, conn.Spec().Procedure, conn.RequestHeader())
		if err != nil {
			return err
		}
		return next(ctx, conn)
	}
}

// Authorize verifies an Authorization header value and checks scope.
func (v *Verifier) Authorize(ctx context.Context, authorization string, scope Scope) (Principal, error) {
	p, err := v.Verify(ctx, bearer(authorization))
	if err != nil {
		return Principal{}, err
	}
	if !p.Has(scope) {
		return Principal{}, fmt.Errorf("%w: %s required", ErrInsufficientScope, scope)
	}
	return p, nil
}

// ConnectError is the one translation of auth errors into Connect errors:
// a missing or bad token is Unauthenticated (with a WWW-Authenticate
// challenge) and the generic text UnauthenticatedMessage, a missing scope
// PermissionDenied.
func ConnectError(err error) *connect.Error {
	if errors.Is(err, ErrInsufficientScope) {
		ce := connect.NewError(connect.CodePermissionDenied, err)
		ce.Meta().Set("WWW-Authenticate", `Bearer error="insufficient_scope"`)
		return ce
	}
	ce := connect.NewError(connect.CodeUnauthenticated, unauthenticated{err})
	if errors.Is(err, ErrNoToken) {
		ce.Meta().Set("WWW-Authenticate", `Bearer`)
	} else {
		ce.Meta().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
	}
	return ce
}

// Middleware guards a plain-HTTP route (not Connect) with the same checks:
// 401 for a missing or bad token, 403 for a missing scope.
func (v *Verifier) Middleware(scope Scope, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, err := v.Authorize(r.Context(), r.Header.Get("Authorization"), scope)
		if err != nil {
			ce := ConnectError(err)
			w.Header().Set("WWW-Authenticate", ce.Meta().Get("WWW-Authenticate"))
			status := http.StatusUnauthorized
			if ce.Code() == connect.CodePermissionDenied {
				status = http.StatusForbidden
			}
			http.Error(w, ce.Message(), status)
			return
		}
		next.ServeHTTP(w, r.WithContext(WithPrincipal(r.Context(), p)))
	})
}

// UnauthenticatedMessage is the text of every 401. Which check a token
// failed (expiry, audience, issuer, signing key) helps someone tuning a
// forged token more than a client, whose remedy is the same whatever the
// reason: get a new token. The reason goes to the server's log instead
// (the API's gate logs it); the WWW-Authenticate challenge still tells a
// missing token from a bad one, as RFC 6750 has it.
const UnauthenticatedMessage = "a valid bearer token is required"

// unauthenticated shows the generic text and keeps the reason for
// errors.Is on the server side.
type unauthenticated struct{ reason error }

func (u unauthenticated) Error() string { return UnauthenticatedMessage }
func (u unauthenticated) Unwrap() error { return u.reason }
