package tripcli

import (
	"errors"

	"connectrpc.com/connect"

	"github.com/roadbook/roadbook/proto/errorcode"
	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
)

// asConnectError is errors.As for *connect.Error.
func asConnectError(err error, target **connect.Error) bool { return errors.As(err, target) }

// errorInfoOf returns the roadbook.v1.ErrorInfo detail every API error
// carries, or nil.
func errorInfoOf(ce *connect.Error) *roadbookv1.ErrorInfo {
	for _, d := range ce.Details() {
		if v, err := d.Value(); err == nil {
			if info, ok := v.(*roadbookv1.ErrorInfo); ok {
				return info
			}
		}
	}
	return nil
}

// codeName is an ErrorInfo code as MCP §8 spells it ("not_found").
func codeName(c roadbookv1.Code) string { return errorcode.Word(c) }
