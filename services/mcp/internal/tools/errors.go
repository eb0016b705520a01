package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
	"unicode"
	"unicode/utf8"

	"connectrpc.com/connect"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/roadbook/roadbook/proto/errorcode"
	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
)

// The error codes of MCP §8, plus the two the transport needs.
const (
	CodeInvalidArgument      = "invalid_argument"
	CodeNotFound             = "not_found"
	CodeVersionConflict      = "version_conflict"
	CodePreconditionFailed   = "precondition_failed"
	CodeLocked               = "locked"
	CodeConflict             = "conflict"
	CodeAlreadyRunning       = "already_running"
	CodeConfirmationRequired = "confirmation_required"
	CodeStaleCursor          = "stale_cursor"
	CodeRateLimited          = "rate_limited"
	CodeUnavailable          = "unavailable"
	// CodeUnauthenticated and CodePermissionDenied only arise on a
	// transport that let a call through without a usable token.
	CodeUnauthenticated  = "unauthenticated"
	CodePermissionDenied = "permission_denied"
	// CodeInternal is a Roadbook bug; the message says nothing more.
	CodeInternal = "internal"
)

// notFoundMessage is the one not-found text: a trip that does not exist and
// someone else's answer byte for byte the same.
const notFoundMessage = "not found: no such trip or stage for this user"

// Error is a tool refusal as the agent reads it, the `error` member of the
// result text.
type Error struct {
	// Code is one of the MCP §8 codes (proto/errorcode's words, and the
	// transport's unauthenticated, permission_denied and internal).
	Code string `json:"code"`
	// Message is written by Roadbook; caller values in it are bounded and
	// quoted, third-party text never appears.
	Message string `json:"message"`
	// Field is the tool's own argument name at fault, for invalid_argument.
	Field string `json:"field,omitempty"`
	// CurrentVersion is the trip's version, for version_conflict.
	CurrentVersion *int64 `json:"currentVersion,omitempty"`
	// RetryAfterSeconds is how long to wait, for rate_limited and unavailable.
	RetryAfterSeconds int `json:"retryAfterSeconds,omitempty"`
	// Impact is the fresh impact when a confirmation was refused because the
	// trip moved.
	Impact *Impact `json:"impact,omitempty"`
	// Next is the call that unblocks the agent, when there is one.
	Next *Next `json:"next,omitempty"`
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// invalid is an invalid_argument naming field.
func invalid(field, msg string) *Error {
	return &Error{Code: CodeInvalidArgument, Field: field, Message: msg}
}

// toolResult is the one translation of an error into the result an agent
// reads: an isError result whose text is {"error": {…}}, with no structured
// content (it would not validate against the tool's output schema). Our own
// *Error passes as is; a Connect error from the API is read through its
// roadbook.v1.ErrorInfo detail; a call the API never answered (refused or
// broken connection, cut-off body, timeout) is `unavailable` with a retry
// delay, since the same call may well succeed a moment later; anything else
// is logged and answered `internal` without detail, which therefore always
// means a Roadbook bug.
func (env *Env) toolResult(ctx context.Context, t *Tool, raw json.RawMessage, err error) *mcp.CallToolResult {
	var (
		te *Error
		ce *connect.Error
		e  Error
	)
	switch {
	case errors.As(err, &te):
		e = *te
	case errors.As(err, &ce):
		e = fromAPI(ce, t)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		e = Error{Code: CodeUnavailable, Message: "the call was cancelled or timed out; retry", RetryAfterSeconds: 1}
	default:
		e = Error{Code: CodeInternal, Message: "internal error"}
	}
	if e.Code == CodeNotFound {
		e = Error{Code: CodeNotFound, Message: notFoundMessage, Next: &Next{Tool: "list_trips", Arguments: map[string]any{}, Why: "list the trips this user has"}}
	}
	if e.Code == CodeVersionConflict && e.Next == nil {
		if id := tripIDOf(raw); id != "" {
			e.Next = &Next{Tool: "get_trip", Arguments: map[string]any{"tripId": id}, Why: "read the trip at its current version, then decide again"}
		}
	}
	switch {
	case e.Code == CodeInternal:
		env.Logger.ErrorContext(ctx, "tool call failed", "tool", t.Name, "error", err)
	case e.Code == CodeUnavailable && te == nil && (ce == nil || !connect.IsWireError(ce)):
		// Not the API's own answer: the link to it failed.
		env.Logger.WarnContext(ctx, "tool call failed: the API did not answer", "tool", t.Name, "error", err)
	}
	b, merr := json.Marshal(map[string]Error{"error": e})
	if merr != nil {
		b = []byte(`{"error":{"code":"internal","message":"internal error"}}`)
	}
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}
}

// tripIDOf is the tripId argument of a call when it is a well-formed UUID
// (anything else is not echoed).
func tripIDOf(raw json.RawMessage) string {
	var a struct {
		TripID string `json:"tripId"`
	}
	if json.Unmarshal(raw, &a) != nil || !uuidRe.MatchString(a.TripID) {
		return ""
	}
	return a.TripID
}

// fromAPI reads an API error: the code from ErrorInfo (never from the
// message), the field renamed to the tool's argument, the retry delay, the
// current version and the next call. An error this service's own client
// made up because no answer arrived is `unavailable` (unanswered).
func fromAPI(ce *connect.Error, t *Tool) Error {
	if unanswered(ce) {
		return Error{Code: CodeUnavailable, Message: "the trip service did not answer; retry shortly", RetryAfterSeconds: 2}
	}
	var info *roadbookv1.ErrorInfo
	for _, d := range ce.Details() {
		if v, err := d.Value(); err == nil {
			if i, ok := v.(*roadbookv1.ErrorInfo); ok {
				info = i
				break
			}
		}
	}
	if info == nil || errorcode.Word(info.GetCode()) == "" {
		switch ce.Code() {
		case connect.CodeNotFound:
			return Error{Code: CodeNotFound}
		case connect.CodeUnavailable, connect.CodeDeadlineExceeded, connect.CodeAborted, connect.CodeCanceled:
			return Error{Code: CodeUnavailable, Message: "the trip service is unavailable; retry shortly", RetryAfterSeconds: 2}
		case connect.CodeUnauthenticated, connect.CodePermissionDenied:
			return Error{Code: CodeInternal, Message: "internal error"}
		}
		return Error{Code: CodeInternal, Message: "internal error"}
	}
	e := Error{
		Code:    errorcode.Word(info.GetCode()),
		Message: bound(ce.Message(), 300),
		Field:   t.argName(info.GetField()),
	}
	if info.CurrentVersion != nil {
		v := info.GetCurrentVersion()
		e.CurrentVersion = &v
	}
	if d := info.GetRetryDelay(); d != nil {
		e.RetryAfterSeconds = max(1, int(d.AsDuration().Seconds()+0.999))
	}
	if n := info.GetNext(); n != nil && n.GetTool() != "" {
		e.Next = nextFromAPI(n)
	}
	if info.GetImpact() != nil {
		e.Impact = impactOut(info.GetImpact())
	}
	return e
}

// unanswered reports whether ce was made up by this service's Connect
// client rather than sent by the API (connect.IsWireError): the connection
// was refused or reset, the answer was cut off, the call timed out or was
// cancelled. Under load or while the API restarts these are transient, and
// none of them says anything about Roadbook's logic. A client-side Unknown
// or Internal counts only when a transport failure caused it (a marshalling
// bug stays internal).
func unanswered(ce *connect.Error) bool {
	if connect.IsWireError(ce) {
		return false
	}
	switch ce.Code() {
	case connect.CodeUnavailable, connect.CodeDeadlineExceeded, connect.CodeCanceled, connect.CodeAborted:
		return true
	case connect.CodeUnknown, connect.CodeInternal:
		var netErr net.Error
		return errors.As(ce, &netErr) || errors.Is(ce, io.ErrUnexpectedEOF) || errors.Is(ce, io.EOF) ||
			errors.Is(ce, syscall.ECONNRESET) || errors.Is(ce, syscall.EPIPE) ||
			errors.Is(ce, context.Canceled) || errors.Is(ce, context.DeadlineExceeded)
	}
	return false
}

// argName maps an API field path (ErrorInfo.field: the API's JSON names) to
// the tool's argument name: the tool's own spelling where it differs, else
// the same path.
func (t *Tool) argName(field string) string {
	if n, ok := t.fields[field]; ok {
		return n
	}
	return field
}

// bound caps s at n bytes (on a rune boundary) and strips control
// characters, so a caller's value quoted back cannot grow the answer or
// break a line.
func bound(s string, n int) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// quote is bound plus Go quoting, for caller values inside a message.
func quote(s string) string { return fmt.Sprintf("%q", bound(s, 64)) }
