package apiserver

import (
	"context"
	"errors"
	"log/slog"
	"strings"

	"buf.build/go/protovalidate"
	"connectrpc.com/connect"
	"connectrpc.com/validate"

	"github.com/roadbook/roadbook/planner"
)

// validation is the protovalidate check of every request before a handler
// sees it: connectrpc.com/validate runs it, and requestScope, just outside,
// tells the call's context which message it received (so every refusal
// names fields the same way, fields.go) and turns validate's refusal into
// the API's error through connectError, which names the first field at
// fault by its JSON name.
func validation(log *slog.Logger) []connect.Interceptor {
	return []connect.Interceptor{&requestScope{log: log}, validate.NewInterceptor()}
}

// requestScope is the interceptor that binds the request message to the
// call's context and translates the validation refusals of the interceptor
// inside it.
type requestScope struct {
	log *slog.Logger
}

var _ connect.Interceptor = (*requestScope)(nil)

// WrapUnary implements connect.Interceptor.
func (s *requestScope) WrapUnary(next connect.UnaryFunc) connect.UnaryFunc {
	return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
		ctx = withRequest(ctx, req.Any())
		res, err := next(ctx, req)
		if refusedByValidation(err) {
			return nil, connectError(ctx, s.log, err)
		}
		return res, err
	}
}

// WrapStreamingClient implements connect.Interceptor (no-op).
func (s *requestScope) WrapStreamingClient(next connect.StreamingClientFunc) connect.StreamingClientFunc {
	return next
}

// WrapStreamingHandler implements connect.Interceptor: a received message
// that validation refused ends the stream with the translated error.
func (s *requestScope) WrapStreamingHandler(next connect.StreamingHandlerFunc) connect.StreamingHandlerFunc {
	return func(ctx context.Context, conn connect.StreamingHandlerConn) error {
		rc := &receivedConn{StreamingHandlerConn: conn}
		err := next(ctx, rc)
		if refusedByValidation(err) {
			return connectError(withRequest(ctx, rc.last), s.log, err)
		}
		return err
	}
}

// receivedConn remembers the last message received, to name its fields.
type receivedConn struct {
	connect.StreamingHandlerConn
	last any
}

func (c *receivedConn) Receive(msg any) error {
	err := c.StreamingHandlerConn.Receive(msg)
	if err == nil {
		c.last = msg
	}
	return err
}

// refusedByValidation reports a protovalidate refusal.
func refusedByValidation(err error) bool {
	var verr *protovalidate.ValidationError
	return errors.As(err, &verr)
}

// validationInvalid is a protovalidate refusal as the API's InvalidError:
// the first violation's field by its JSON name in the request message of
// ctx, and every violation's text; nil when err is not such a refusal.
func validationInvalid(ctx context.Context, err error) *planner.InvalidError {
	var verr *protovalidate.ValidationError
	if !errors.As(err, &verr) || len(verr.Violations) == 0 {
		return nil
	}
	field := jsonPath(requestOf(ctx), verr.Violations[0].Proto.GetField())
	msgs := make([]string, 0, len(verr.Violations))
	for _, vi := range verr.Violations {
		msgs = append(msgs, vi.String())
	}
	return &planner.InvalidError{Field: field, Message: strings.Join(msgs, "; ")}
}
