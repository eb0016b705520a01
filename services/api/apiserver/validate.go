package apiserver

import (
	"context"
	"errors"
	"log/slog"
	"strings"

	"buf.build/go/protovalidate"
	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"

	"github.com/roadbook/roadbook/planner"
)

// validator runs protovalidate on every request before a handler sees it,
// answering InvalidArgument naming the first field at fault (by its JSON
// name), and tells the call's context which message it received, so every
// later refusal names fields the same way (fields.go).
type validator struct {
	v   protovalidate.Validator
	log *slog.Logger
}

func newValidator(log *slog.Logger) (*validator, error) {
	v, err := protovalidate.New()
	if err != nil {
		return nil, err
	}
	return &validator{v: v, log: log}, nil
}

var _ connect.Interceptor = (*validator)(nil)

// check validates one message and returns the translated error.
func (v *validator) check(ctx context.Context, msg any) error {
	m, ok := msg.(proto.Message)
	if !ok {
		return nil
	}
	err := v.v.Validate(m)
	if err == nil {
		return nil
	}
	var verr *protovalidate.ValidationError
	if !errors.As(err, &verr) || len(verr.Violations) == 0 {
		return connectError(ctx, v.log, err)
	}
	first := verr.Violations[0].Proto
	field := jsonPath(m.ProtoReflect().Descriptor(), first.GetField())
	msgs := make([]string, 0, len(verr.Violations))
	for _, vi := range verr.Violations {
		msgs = append(msgs, vi.String())
	}
	return connectError(ctx, v.log, &planner.InvalidError{Field: field, Message: strings.Join(msgs, "; ")})
}

// WrapUnary implements connect.Interceptor.
func (v *validator) WrapUnary(next connect.UnaryFunc) connect.UnaryFunc {
	return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
		ctx = withRequest(ctx, req.Any())
		if err := v.check(ctx, req.Any()); err != nil {
			return nil, err
		}
		return next(ctx, req)
	}
}

// WrapStreamingClient implements connect.Interceptor (no-op).
func (v *validator) WrapStreamingClient(next connect.StreamingClientFunc) connect.StreamingClientFunc {
	return next
}

// WrapStreamingHandler implements connect.Interceptor: every received
// message is validated.
func (v *validator) WrapStreamingHandler(next connect.StreamingHandlerFunc) connect.StreamingHandlerFunc {
	return func(ctx context.Context, conn connect.StreamingHandlerConn) error {
		return next(ctx, &validatingConn{StreamingHandlerConn: conn, v: v, ctx: ctx})
	}
}

type validatingConn struct {
	connect.StreamingHandlerConn
	v   *validator
	ctx context.Context
}

func (c *validatingConn) Receive(msg any) error {
	if err := c.StreamingHandlerConn.Receive(msg); err != nil {
		return err
	}
	return c.v.check(withRequest(c.ctx, msg), msg)
}
