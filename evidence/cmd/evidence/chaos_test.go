package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestChaosLabel(t *testing.T) {
	t.Parallel()
	t.Run("200 agents for ten minutes is the run the issue asks for", func(t *testing.T) {
		t.Parallel()
		l := chaosLabel(200, 2*time.Minute, 10*time.Minute+5*time.Second)
		require.NotContains(t, l, "SHORT RUN")
		require.Contains(t, l, "200 agents")
	})
	t.Run("fewer agents or less time is labelled short", func(t *testing.T) {
		t.Parallel()
		require.Contains(t, chaosLabel(50, 2*time.Minute, 12*time.Minute), "SHORT RUN")
		require.Contains(t, chaosLabel(200, 90*time.Second, 8*time.Minute), "SHORT RUN")
	})
}
