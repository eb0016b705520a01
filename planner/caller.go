package planner

import (
	"context"

	"github.com/roadbook/roadbook/auth"
)

// Caller is the effective user of ctx: the principal the API's auth
// interceptor verified (a user, or the user the MCP service acts for).
func Caller(ctx context.Context) (string, error) {
	p, ok := auth.FromContext(ctx)
	if !ok || p.UserID == "" {
		return "", ErrUnauthenticated
	}
	return p.UserID, nil
}
