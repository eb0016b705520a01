package main

import (
	"bytes"
	"testing"
)

func TestRun(t *testing.T) {
	t.Parallel()

	t.Run("dev says that one-process mode is not built yet and fails", func(t *testing.T) {
		t.Parallel()
		var out, errOut bytes.Buffer
		if code := run([]string{"dev"}, &out, &errOut); code != 1 {
			t.Fatalf("exit code = %d, want 1", code)
		}
		if !bytes.Contains(out.Bytes(), []byte("not built yet")) {
			t.Fatalf("output %q does not say what is missing", out.String())
		}
	})

	t.Run("an unknown command names itself and exits 2", func(t *testing.T) {
		t.Parallel()
		var out, errOut bytes.Buffer
		if code := run([]string{"fly"}, &out, &errOut); code != 2 {
			t.Fatalf("exit code = %d, want 2", code)
		}
		if !bytes.Contains(errOut.Bytes(), []byte(`"fly"`)) {
			t.Fatalf("stderr %q does not name the command", errOut.String())
		}
	})
}
