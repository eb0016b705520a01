package servers

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRequireLoopback(t *testing.T) {
	t.Parallel()
	for addr, ok := range map[string]bool{
		"127.0.0.1:8080": true, "[::1]:0": true, "localhost:1": true,
		":8080": false, "0.0.0.0:8080": false, "192.168.1.2:80": false, "example.com:80": false,
	} {
		t.Run(addr+" is judged by its host", func(t *testing.T) {
			t.Parallel()
			if ok {
				require.NoError(t, requireLoopback(addr))
			} else {
				require.Error(t, requireLoopback(addr))
			}
		})
	}
}
