package envflag

import (
	"bytes"
	"flag"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// These tests set process environment variables, so they do not run in
// parallel.

func newSet(out *bytes.Buffer) (fs *flag.FlagSet, secret, plain *string, wait *time.Duration) {
	fs = New("test", out)
	secret = Secret(fs, "database-url", "PostgreSQL URL ($ROADBOOK_TEST_ENVFLAG_DB)")
	plain = fs.String("nats-url", "nats://127.0.0.1:4222", "NATS URL ($ROADBOOK_TEST_ENVFLAG_NATS)")
	wait = fs.Duration("shutdown-timeout", 45*time.Second, "drain ($ROADBOOK_TEST_ENVFLAG_WAIT)")
	fs.String("data-dir", "./.roadbook", "no variable names this flag")
	return fs, secret, plain, wait
}

func TestParse(t *testing.T) {
	const dsn = "postgres://roadbook:hunter2-secret@db:5432/roadbook"
	t.Run("the environment fills flags the command line did not set", func(t *testing.T) {
		t.Setenv("ROADBOOK_TEST_ENVFLAG_DB", dsn)
		t.Setenv("ROADBOOK_TEST_ENVFLAG_NATS", "nats://nats:4222")
		var out bytes.Buffer
		fs, secret, plain, wait := newSet(&out)
		require.NoError(t, Parse(fs, []string{"--nats-url", "nats://flag:4222"}))
		require.Equal(t, dsn, *secret)
		require.Equal(t, "nats://flag:4222", *plain, "the command line wins over the environment")
		require.Equal(t, 45*time.Second, *wait, "an unset variable leaves the default")
	})
	t.Run("a flag whose usage names no variable is not read from the environment", func(t *testing.T) {
		t.Setenv("ROADBOOK_DATA_DIR", "/elsewhere")
		var out bytes.Buffer
		fs, _, _, _ := newSet(&out)
		require.NoError(t, Parse(fs, nil))
		require.Equal(t, "./.roadbook", fs.Lookup("data-dir").Value.String())
	})
	t.Run("-h and a mistyped flag print literal defaults and never the secret", func(t *testing.T) {
		t.Setenv("ROADBOOK_TEST_ENVFLAG_DB", dsn)
		t.Setenv("ROADBOOK_TEST_ENVFLAG_NATS", "nats://user:natspass@nats:4222")
		for _, args := range [][]string{{"-h"}, {"--databse-url", "x"}, {"--database-url"}} {
			var out bytes.Buffer
			fs, _, _, _ := newSet(&out)
			err := Parse(fs, args)
			require.Error(t, err)
			require.Contains(t, out.String(), "-database-url", "the usage was printed for %v", args)
			require.NotContains(t, out.String(), "hunter2", "args %v", args)
			require.NotContains(t, out.String(), "natspass", "args %v", args)
			require.Contains(t, out.String(), `(default "nats://127.0.0.1:4222")`, "the default shown is the code's literal")
		}
	})
	t.Run("a secret given on the command line is not printed by -h either", func(t *testing.T) {
		var out bytes.Buffer
		fs, _, _, _ := newSet(&out)
		require.ErrorIs(t, Parse(fs, []string{"--database-url", dsn, "-h"}), flag.ErrHelp)
		require.NotContains(t, out.String(), "hunter2")
	})
	t.Run("a malformed variable is an error naming it, the flag and the value", func(t *testing.T) {
		t.Setenv("ROADBOOK_TEST_ENVFLAG_WAIT", "soon")
		var out bytes.Buffer
		fs, _, _, _ := newSet(&out)
		err := Parse(fs, nil)
		require.ErrorContains(t, err, `$ROADBOOK_TEST_ENVFLAG_WAIT="soon" is not a valid --shutdown-timeout`)
	})
}

func TestParseOne(t *testing.T) {
	t.Run("the argument is taken before, between or after the flags", func(t *testing.T) {
		for _, args := range [][]string{
			{"trip-1", "--nats-url", "nats://flag:4222", "--data-dir", "d"},
			{"--nats-url", "nats://flag:4222", "trip-1", "--data-dir", "d"},
			{"--nats-url", "nats://flag:4222", "--data-dir", "d", "trip-1"},
		} {
			var out bytes.Buffer
			fs, _, plain, _ := newSet(&out)
			id, err := ParseOne(fs, args)
			require.NoError(t, err, "args %v", args)
			require.Equal(t, "trip-1", id, "args %v", args)
			require.Equal(t, "nats://flag:4222", *plain, "args %v", args)
			require.Equal(t, "d", fs.Lookup("data-dir").Value.String(), "args %v", args)
		}
	})
	t.Run("flags on both sides of the argument are set, and the environment fills only the others", func(t *testing.T) {
		t.Setenv("ROADBOOK_TEST_ENVFLAG_NATS", "nats://env:4222")
		t.Setenv("ROADBOOK_TEST_ENVFLAG_WAIT", "3s")
		var out bytes.Buffer
		fs, _, plain, wait := newSet(&out)
		id, err := ParseOne(fs, []string{"--nats-url", "nats://flag:4222", "trip-1", "--data-dir", "d"})
		require.NoError(t, err)
		require.Equal(t, "trip-1", id)
		require.Equal(t, "nats://flag:4222", *plain, "the command line wins over the environment")
		require.Equal(t, 3*time.Second, *wait)
	})
	t.Run("no argument is an empty one, for the caller to name", func(t *testing.T) {
		var out bytes.Buffer
		fs, _, _, _ := newSet(&out)
		id, err := ParseOne(fs, []string{"--data-dir", "d"})
		require.NoError(t, err)
		require.Empty(t, id)
	})
	t.Run("a second argument and a bad flag on either side are usage errors", func(t *testing.T) {
		for _, args := range [][]string{
			{"trip-1", "trip-2"},
			{"--data-dir", "d", "trip-1", "trip-2"},
			{"--nope", "trip-1"},
			{"trip-1", "--nope"},
		} {
			var out bytes.Buffer
			fs, _, _, _ := newSet(&out)
			_, err := ParseOne(fs, args)
			require.ErrorIs(t, err, ErrUsage, "args %v", args)
			require.NotEmpty(t, out.String(), "what is wrong was printed for %v", args)
		}
	})
	t.Run("-h on either side of the argument asks for help", func(t *testing.T) {
		for _, args := range [][]string{{"-h", "trip-1"}, {"trip-1", "-h"}} {
			var out bytes.Buffer
			fs, _, _, _ := newSet(&out)
			_, err := ParseOne(fs, args)
			require.ErrorIs(t, err, flag.ErrHelp, "args %v", args)
		}
	})
}
