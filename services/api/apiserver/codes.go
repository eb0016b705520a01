package apiserver

import (
	"connectrpc.com/connect"

	"github.com/roadbook/roadbook/domain/trip"
	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
)

// codeTwin is how the API answers one domain refusal code: the ErrorInfo
// code (whose word, proto/errorcode, is the domain code's own) and the
// Connect code.
type codeTwin struct {
	info    roadbookv1.Code
	connect connect.Code
}

// codeTwins is the one mapping of the domain's refusal codes. codes_test.go
// checks it both ways: every trip.Code has a twin spelled alike, and every
// roadbook.v1.Code is a twin or one of apiCodes or mcpCodes.
var codeTwins = map[trip.Code]codeTwin{
	trip.CodeInvalidArgument:    {roadbookv1.Code_CODE_INVALID_ARGUMENT, connect.CodeInvalidArgument},
	trip.CodeNotFound:           {roadbookv1.Code_CODE_NOT_FOUND, connect.CodeNotFound},
	trip.CodeVersionConflict:    {roadbookv1.Code_CODE_VERSION_CONFLICT, connect.CodeAborted},
	trip.CodePreconditionFailed: {roadbookv1.Code_CODE_PRECONDITION_FAILED, connect.CodeFailedPrecondition},
	trip.CodeLocked:             {roadbookv1.Code_CODE_LOCKED, connect.CodeFailedPrecondition},
	trip.CodeConflict:           {roadbookv1.Code_CODE_CONFLICT, connect.CodeAlreadyExists},
	trip.CodeAlreadyRunning:     {roadbookv1.Code_CODE_ALREADY_RUNNING, connect.CodeAlreadyExists},
}

// apiCodes are the codes the API answers for what is not a domain refusal:
// a caller over a rate limit, a dependency down.
var apiCodes = []roadbookv1.Code{roadbookv1.Code_CODE_RATE_LIMITED, roadbookv1.Code_CODE_UNAVAILABLE}

// mcpCodes are the codes only the MCP service answers (its confirmation
// flow and its signed list cursors); the API never sends them.
var mcpCodes = []roadbookv1.Code{roadbookv1.Code_CODE_CONFIRMATION_REQUIRED, roadbookv1.Code_CODE_STALE_CURSOR}

// twin is c's answer; a code with none (a domain code added without its
// twin, which codes_test.go refuses) is an internal error, never silently
// another code.
func twin(c trip.Code) codeTwin {
	if t, ok := codeTwins[c]; ok {
		return t
	}
	return codeTwin{roadbookv1.Code_CODE_UNSPECIFIED, connect.CodeInternal}
}
