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
}

func TestDigest(t *testing.T) {
	t.Parallel()
	t.Run("parts are length-prefixed so boundaries matter", func(t *testing.T) {
		t.Parallel()
		require.NotEqual(t, canonical.Digest([]byte("ab"), []byte("c")), canonical.Digest([]byte("a"), []byte("bc")))
		require.Equal(t, canonical.Digest([]byte("a")), canonical.Digest([]byte("a")))
		require.Len(t, canonical.Digest([]byte("a")), 43)
	})
}
