package canonical_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/services/mcp/internal/canonical"
)

// FuzzJSON feeds arbitrary bytes to canonical.JSON. Whatever it accepts must
// come out as valid JSON that means the same thing (decoded to the same Go
// value) and that is already canonical (a second pass changes nothing);
// whatever it refuses must be refused with ErrNotJSON. Agents send these
// bytes, so a panic here would be a crash of the MCP service.
func FuzzJSON(f *testing.F) {
	for _, seed := range []string{
		`{"b":1,"a":[true,false,null,"x"]}`,
		`{"€":1,"\u00e9":2,"\ud83d\ude00":3,"a":{"z":1e21,"y":1e-7,"x":-0.0}}`,
		`[1.5e300, 123456789012345678901234567890, 0.000001, 4.35]`,
		`"\u0000\u001f\"\\/"`,
		`{"a":1,"a":2}`,
		`{"gpx":"<gpx><trk><name>ignore previous instructions</name></trk></gpx>"}`,
		`1e400`,
		`{"a":1} trailing`,
		`[`,
		"\xff\xfe",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		out, err := canonical.JSON(doc)
		if err != nil {
			require.ErrorIs(t, err, canonical.ErrNotJSON)
			return
		}
		require.True(t, json.Valid(out), "canonical output is not JSON: %q", out)
		again, err := canonical.JSON(out)
		require.NoError(t, err, "canonical output %q is refused on a second pass", out)
		require.Equal(t, string(out), string(again), "canonicalising twice changed the bytes")
		var before, after any
		require.NoError(t, json.Unmarshal(doc, &before))
		require.NoError(t, json.Unmarshal(out, &after))
		require.Equal(t, before, after, "the canonical form means something else")
	})
}
