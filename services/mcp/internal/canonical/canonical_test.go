package canonical_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/services/mcp/internal/canonical"
)

func TestJSON(t *testing.T) {
	t.Parallel()

	t.Run("reordered keys give the same bytes", func(t *testing.T) {
		t.Parallel()
		a, err := canonical.JSON([]byte(`{"b":1,"a":{"y":[1,2],"x":"s"}}`))
		require.NoError(t, err)
		b, err := canonical.JSON([]byte(` { "a" : { "x":"s", "y":[1, 2]}, "b": 1.0 } `))
		require.NoError(t, err)
		require.Equal(t, `{"a":{"x":"s","y":[1,2]},"b":1}`, string(a))
		require.Equal(t, a, b)
	})
	t.Run("keys sort by UTF-16 code units as RFC 8785 shows", func(t *testing.T) {
		t.Parallel()
		// The RFC 8785 §3.2.3 sorting example.
		out, err := canonical.JSON([]byte(`{"\u20ac":"Euro Sign","\r":"Carriage Return","\ufb33":"Hebrew Letter Dalet With Dagesh","1":"One","\ud83d\ude00":"Emoji: Grinning Face","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis"}`))
		require.NoError(t, err)
		require.Equal(t, "{\"\\r\":\"Carriage Return\",\"1\":\"One\",\"\u0080\":\"Control\",\"\u00f6\":\"Latin Small Letter O With Diaeresis\",\"\u20ac\":\"Euro Sign\",\"\U0001F600\":\"Emoji: Grinning Face\",\"\ufb33\":\"Hebrew Letter Dalet With Dagesh\"}", string(out))
	})
	t.Run("numbers are spelled as ECMAScript spells them", func(t *testing.T) {
		t.Parallel()
		for in, want := range map[string]string{
			"0": "0", "-0": "0", "1e21": "1e+21", "1e20": "100000000000000000000", "0.000001": "0.000001",
			"1e-7": "1e-7", "123.456": "123.456", "-1.5E3": "-1500", "4.50": "4.5", "1e-323": "1e-323",
			"9007199254740993": "9007199254740992", "333333333.33333329": "333333333.3333333",
		} {
			out, err := canonical.JSON([]byte(in))
			require.NoError(t, err, in)
			require.Equal(t, want, string(out), in)
		}
	})
	t.Run("strings escape only what JCS requires", func(t *testing.T) {
		t.Parallel()
		out, err := canonical.JSON([]byte(`"<a&b>\u2028\"\\\n\u0001é"`))
		require.NoError(t, err)
		require.Equal(t, "\"<a&b>\u2028\\\"\\\\\\n\\u0001é\"", string(out))
	})
	t.Run("two documents or a broken one are refused", func(t *testing.T) {
		t.Parallel()
		_, err := canonical.JSON([]byte(`{} {}`))
		require.ErrorIs(t, err, canonical.ErrNotJSON)
		_, err = canonical.JSON([]byte(`{"a":`))
		require.ErrorIs(t, err, canonical.ErrNotJSON)
		_, err = canonical.JSON([]byte(`1e999`))
		require.ErrorIs(t, err, canonical.ErrNotJSON)
	})
	t.Run("a duplicate key is refused, at any depth", func(t *testing.T) {
		t.Parallel()
		// A reader keeping the last of two equal keys would canonicalise
		// {"a":1,"a":2} and {"a":2} to the same bytes: two different inputs,
		// one idempotency digest.
		for _, doc := range []string{
			`{"a":1,"a":2}`,
			`{"trip":{"id":"x","id":"y"}}`,
			`[{"k":true},{"k":1,"k":1}]`,
			`{"\u0061":1,"a":2}`, // the same key once escaped, once not
		} {
			_, err := canonical.JSON([]byte(doc))
			require.ErrorIs(t, err, canonical.ErrNotJSON, doc)
			require.ErrorContains(t, err, "Duplicate key", doc)
		}
	})
	t.Run("invalid UTF-8 and unpaired surrogates are refused, not turned into U+FFFD", func(t *testing.T) {
		t.Parallel()
		// encoding/json would read each of these as "\ufffd", so all of them
		// and the honest "\ufffd" would share one digest.
		for _, doc := range []string{
			"\"\xff\"",
			"\"\xfe\"",
			"{\"name\":\"caf\xc3\"}", // a truncated two-byte sequence
			"{\"\xed\xa0\x80\":1}",   // a surrogate encoded as UTF-8 (CESU)
			`"\ud800"`,               // a lone high surrogate
			`"\udc00"`,               // a lone low surrogate
			`"\ud800\u0041"`,         // a high surrogate paired with a non-surrogate
		} {
			_, err := canonical.JSON([]byte(doc))
			require.ErrorIs(t, err, canonical.ErrNotJSON, "%q", doc)
		}
		out, err := canonical.JSON([]byte(`"\ufffd\ud83d\ude00"`))
		require.NoError(t, err, "the replacement character itself and a proper pair are fine")
		require.Equal(t, "\"\ufffd\U0001F600\"", string(out))
	})
}

func TestDigest(t *testing.T) {
	t.Parallel()
	t.Run("parts are length-prefixed so boundaries matter", func(t *testing.T) {
		t.Parallel()
		require.NotEqual(t, canonical.Digest([]byte("ab"), []byte("c")), canonical.Digest([]byte("a"), []byte("bc")))
		require.Equal(t, canonical.Digest([]byte("a")), canonical.Digest([]byte("a")))
		require.Len(t, canonical.Digest([]byte("a")), 43)
	})
	t.Run("different documents never share a digest", func(t *testing.T) {
		t.Parallel()
		docs := []string{`{"a":2}`, `{"a":1,"a":2}`, `"\ufffd"`, "\"\xff\"", `{"a":"\ufffd"}`, "{\"a\":\"\xfe\"}"}
		seen := map[string]string{}
		for _, d := range docs {
			out, err := canonical.JSON([]byte(d))
			if err != nil {
				continue // refused: it gets no digest at all
			}
			dig := canonical.Digest(out)
			prev, dup := seen[dig]
			require.False(t, dup, "%q and %q share a digest", prev, d)
			seen[dig] = d
		}
		require.Len(t, seen, 3, "the three well-formed documents are accepted")
	})
}
