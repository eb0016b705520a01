package geocoding_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/proto/geocoding"
)

func TestReplyHeaders(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		reply geocoding.Reply
		back  geocoding.Reply
	}{
		{"a cached answer reads back as a hit", geocoding.Reply{Cached: true}, geocoding.Reply{Cached: true}},
		{"an answer from the provider reads back as a miss", geocoding.Reply{}, geocoding.Reply{}},
		{"a rate limit keeps its delay, rounded up to the second", geocoding.Reply{Err: geocoding.CodeRateLimited, RetryAfter: 1500 * time.Millisecond},
			geocoding.Reply{Err: geocoding.CodeRateLimited, RetryAfter: 2 * time.Second}},
		{"an error without a delay asks for a second", geocoding.Reply{Err: geocoding.CodeInvalidArgument},
			geocoding.Reply{Err: geocoding.CodeInvalidArgument, RetryAfter: time.Second}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := http.Header{}
			tc.reply.Write(h)
			require.Equal(t, tc.back, geocoding.Read(h))
		})
	}
	t.Run("a reply without headers is an uncached answer", func(t *testing.T) {
		t.Parallel()
		require.Equal(t, geocoding.Reply{}, geocoding.Read(http.Header{}))
	})
}
