package cluster

import (
	"bufio"
	"io"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// echo serves line echo on a loopback port.
func echo(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { _, _ = io.Copy(c, c); _ = c.Close() }()
		}
	}()
	return ln.Addr().String()
}

func roundTrip(c net.Conn, msg string) (string, error) {
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Write([]byte(msg + "\n")); err != nil {
		return "", err
	}
	return bufio.NewReader(c).ReadString('\n')
}

func TestProxy(t *testing.T) {
	t.Parallel()
	p, err := NewProxy(echo(t))
	require.NoError(t, err)
	t.Cleanup(p.Close)

	c, err := net.Dial("tcp", p.Addr())
	require.NoError(t, err)
	defer c.Close()
	got, err := roundTrip(c, "hello")
	require.NoError(t, err)
	require.Equal(t, "hello\n", got)

	t.Run("a cut closes the open connection and refuses new ones", func(t *testing.T) {
		p.Cut()
		_, err := roundTrip(c, "after the cut")
		require.Error(t, err, "the connection through the proxy was closed")
		again, err := net.Dial("tcp", p.Addr())
		require.NoError(t, err, "the listener stays: a peer sees its connection closed, as a partition shows it")
		_, err = roundTrip(again, "while cut")
		require.Error(t, err)
		_ = again.Close()
		require.Equal(t, int64(2), p.Severed.Load(), "one connection severed, one refused")
	})
	t.Run("a restore forwards new connections again", func(t *testing.T) {
		p.Restore()
		c2, err := net.Dial("tcp", p.Addr())
		require.NoError(t, err)
		defer c2.Close()
		got, err := roundTrip(c2, "healed")
		require.NoError(t, err)
		require.Equal(t, "healed\n", got)
	})
}

func TestSinkRefusesRoutes(t *testing.T) {
	t.Parallel()
	s, err := sink()
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	c, err := net.Dial("tcp", s.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, err = c.Read(make([]byte, 1))
	require.ErrorIs(t, err, io.EOF, "the sink closes what it accepts")
}
