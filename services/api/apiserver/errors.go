package apiserver

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/roadbook/roadbook/domain/route"
	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/eventstore"
	"github.com/roadbook/roadbook/eventstore/aggregate"
	"github.com/roadbook/roadbook/planner"
	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
)

// unavailableError is a dependency that cannot answer now (geocoder circuit
// open, worker not answering).
type unavailableError struct {
	Message    string
	RetryAfter time.Duration
}

func (e *unavailableError) Error() string { return e.Message }

// notFoundMessage is the one not-found text: a missing trip and someone
// else's read byte for byte the same.
const notFoundMessage = "trip not found"

// connectError is the one function that turns any handler error into the
// Connect error the client sees, with a roadbook.v1.ErrorInfo detail.
// Transient infrastructure failures (transient.go: PostgreSQL restarting, a
// broken connection, NATS reconnecting) become Unavailable with a retry
// delay; errors it does not know become Internal with a generic message (and
// a log line), which therefore always means a Roadbook bug.
func connectError(ctx context.Context, log *slog.Logger, err error) error {
	if err == nil {
		return nil
	}
	if inv := validationInvalid(ctx, err); inv != nil {
		err = inv // validate's own connect.Error would be answered as is below
	}
	var (
		ce   *connect.Error
		te   *trip.Error
		ie   *planner.InvalidError
		rl   *planner.RateLimitedError
		ue   *unavailableError
		re   *route.ReadError
		ee   *eventstore.InvalidError
		info = &roadbookv1.ErrorInfo{}
		code connect.Code
		msg  string
	)
	switch {
	case errors.As(err, &ce):
		return ce
	case errors.Is(err, planner.ErrUnauthenticated):
		return connect.NewError(connect.CodeUnauthenticated, errors.New("no authenticated user"))
	case errors.As(err, &te):
		tw := twin(te.Code)
		code, msg = tw.connect, te.Message
		info.Code = tw.info
		info.Field = requestField(ctx, te.Field)
		switch te.Code {
		case trip.CodeNotFound:
			if te.Reason == "" {
				msg = notFoundMessage
			}
		case trip.CodeVersionConflict:
			v := te.CurrentVersion
			info.CurrentVersion = &v
		case trip.CodePreconditionFailed:
			info.Next = getTripNext("", 2, "wait for the "+string(te.Awaiting)+" computation, then read the trip again")
		}
		if msg == "" {
			msg = string(te.Code)
		}
	case errors.As(err, &ie):
		code, msg = connect.CodeInvalidArgument, ie.Message
		info.Code, info.Field = roadbookv1.Code_CODE_INVALID_ARGUMENT, requestField(ctx, ie.Field)
		if ie.Field != "" {
			msg = ie.Field + ": " + ie.Message
		}
	case errors.As(err, &re):
		code, msg = connect.CodeInvalidArgument, "content: "+re.Error()
		info.Code, info.Field = roadbookv1.Code_CODE_INVALID_ARGUMENT, "content"
	case errors.As(err, &rl):
		code, msg = connect.CodeResourceExhausted, rl.Error()
		info.Code, info.RetryDelay = roadbookv1.Code_CODE_RATE_LIMITED, durationpb.New(rl.RetryAfter)
	case errors.As(err, &ue):
		code, msg = connect.CodeUnavailable, ue.Message
		info.Code, info.RetryDelay = roadbookv1.Code_CODE_UNAVAILABLE, durationpb.New(ue.RetryAfter)
	case errors.As(err, &ee):
		log.ErrorContext(ctx, "store refused a request", "error", err)
		code, msg = connect.CodeInternal, "internal error"
	case errors.Is(err, aggregate.ErrTooManyConflicts):
		code, msg = connect.CodeAborted, "the trip is changing quickly; retry"
		info.Code, info.RetryDelay = roadbookv1.Code_CODE_UNAVAILABLE, durationpb.New(time.Second)
	case errors.Is(err, context.Canceled):
		// The caller went away (or cancelled); nobody reads the detail.
		return connect.NewError(connect.CodeCanceled, errors.New("the call was cancelled"))
	case errors.Is(err, context.DeadlineExceeded):
		// The caller's deadline (Connect-Timeout-Ms) passed while the store
		// or NATS was slow: the Connect code says so, the detail tells an
		// agent that the same call may succeed a moment later.
		log.WarnContext(ctx, "deadline exceeded", "error", err)
		code, msg = connect.CodeDeadlineExceeded, "the call ran out of time; retry"
		info.Code, info.RetryDelay = roadbookv1.Code_CODE_UNAVAILABLE, durationpb.New(time.Second)
	case transient(err):
		// PostgreSQL restarting, a broken connection, NATS reconnecting:
		// the infrastructure, not a bug, so Unavailable with a retry delay
		// (transient.go), and the cause only in the log.
		log.WarnContext(ctx, "transient infrastructure failure", "error", err)
		code, msg = connect.CodeUnavailable, transientMessage
		info.Code, info.RetryDelay = roadbookv1.Code_CODE_UNAVAILABLE, durationpb.New(transientRetryAfter)
	default:
		log.ErrorContext(ctx, "internal error", "error", err)
		code, msg = connect.CodeInternal, "internal error"
	}
	out := connect.NewError(code, errors.New(msg))
	if d := info.GetRetryDelay(); d != nil && (code == connect.CodeResourceExhausted || code == connect.CodeUnavailable) {
		// The HTTP status is 429 or 503: the standard header says when to
		// come back, for clients and proxies that never read the detail.
		out.Meta().Set("Retry-After", strconv.Itoa(retryAfterSeconds(d.AsDuration())))
	}
	if info.Code != roadbookv1.Code_CODE_UNSPECIFIED {
		if d, derr := connect.NewErrorDetail(info); derr == nil {
			out.AddDetail(d)
		}
	}
	return out
}

// retryAfterSeconds is d as a Retry-After value: whole seconds, rounded
// up, at least one.
func retryAfterSeconds(d time.Duration) int {
	return max(1, int((d+time.Second-1)/time.Second))
}
