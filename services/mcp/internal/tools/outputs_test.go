package tools

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// sample fills v with values drawn from r: each pointer, slice, map and
// interface is nil or filled at random, so many samples of one type cover
// its nil and non-nil shapes together.
func sample(r *rand.Rand, v reflect.Value, depth int) {
	if depth > 8 {
		return
	}
	fill := r.IntN(3) != 0
	switch v.Kind() {
	case reflect.Pointer:
		if fill {
			v.Set(reflect.New(v.Type().Elem()))
			sample(r, v.Elem(), depth+1)
		}
	case reflect.Slice:
		if fill {
			n := r.IntN(3)
			v.Set(reflect.MakeSlice(v.Type(), n, n))
			for i := range n {
				sample(r, v.Index(i), depth+1)
			}
		}
	case reflect.Array:
		for i := range v.Len() {
			sample(r, v.Index(i), depth+1)
		}
	case reflect.Map:
		if fill {
			v.Set(reflect.MakeMap(v.Type()))
			for i := range r.IntN(3) {
				e := reflect.New(v.Type().Elem()).Elem()
				sample(r, e, depth+1)
				v.SetMapIndex(reflect.ValueOf(string(rune('a'+i))).Convert(v.Type().Key()), e)
			}
		}
	case reflect.Interface:
		if fill {
			v.Set(reflect.ValueOf(map[string]any{"k": []any{1.5, "x", nil}}))
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				sample(r, v.Field(i), depth+1)
			}
		}
	case reflect.String:
		v.SetString([]string{"", "x", "\"quoted\"\n", "ünïcode"}[r.IntN(4)])
	case reflect.Bool:
		v.SetBool(fill)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt([]int64{0, -1, 1, 127}[r.IntN(4)])
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint([]uint64{0, 1, 255}[r.IntN(3)])
	case reflect.Float32, reflect.Float64:
		v.SetFloat([]float64{0, -0.5, 1e9}[r.IntN(3)])
	}
}

// validates encodes v and validates the JSON against the schema inferred
// from its type, as a client judging structured content would.
func validates(t *testing.T, resolved *jsonschema.Resolved, v any) error {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	var doc any
	require.NoError(t, json.Unmarshal(b, &doc))
	return resolved.Validate(&doc)
}

func TestEveryToolOutputValidates(t *testing.T) {
	t.Parallel()
	for _, tool := range All() {
		t.Run(tool.Name+"'s output type is sound and its values validate against its output schema", func(t *testing.T) {
			t.Parallel()
			require.NoError(t, SoundOutput(tool.outType))
			schema, err := tool.Definition().OutputSchema.(*jsonschema.Schema).Resolve(nil)
			require.NoError(t, err)
			require.NoError(t, validates(t, schema, reflect.New(tool.outType).Elem().Interface()), "the zero value")
			r := rand.New(rand.NewPCG(1, uint64(len(tool.Name))))
			for i := range 200 {
				v := reflect.New(tool.outType).Elem()
				sample(r, v, 0)
				require.NoError(t, validates(t, schema, v.Interface()), "sample %d", i)
			}
		})
	}
	t.Run("a nil Arguments encodes as an empty object", func(t *testing.T) {
		t.Parallel()
		b, err := json.Marshal(Next{Tool: "get_trip", Why: "w"})
		require.NoError(t, err)
		require.JSONEq(t, `{"tool":"get_trip","arguments":{},"why":"w"}`, string(b))
		b, err = json.Marshal(Next{Tool: "get_trip", Arguments: Arguments{"tripId": "t"}, Why: "w"})
		require.NoError(t, err)
		require.JSONEq(t, `{"tool":"get_trip","arguments":{"tripId":"t"},"why":"w"}`, string(b))
	})
}

type (
	requiredMap struct {
		M map[string]int `json:"m"`
	}
	optionalMap struct {
		M map[string]int  `json:"m,omitempty"`
		P *map[string]int `json:"p"`
	}
	byteSlice struct {
		B []byte `json:"b,omitempty"`
	}
	stampedOut struct {
		At time.Time `json:"at"`
	}
	stringNumber struct {
		N int `json:"n,string"`
	}
	inner struct {
		X int `json:"x"`
	}
	embedded struct {
		*inner
	}
	nestedMap struct {
		Items []map[string]int `json:"items"`
	}
)

func TestSoundOutput(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		typ  reflect.Type
		path string
	}{
		{"a map that must be present", reflect.TypeFor[requiredMap](), "/m"},
		{"a map inside a slice", reflect.TypeFor[nestedMap](), "/items[]"},
		{"a byte slice", reflect.TypeFor[byteSlice](), "/b"},
		{"a type that encodes itself", reflect.TypeFor[stampedOut](), "/at"},
		{"a number written as a string", reflect.TypeFor[stringNumber](), "/"},
		{"an embedded pointer", reflect.TypeFor[embedded](), "/"},
		{"a root that is not a struct", reflect.TypeFor[map[string]int](), ""},
	} {
		t.Run(c.name+" is refused with where it is", func(t *testing.T) {
			t.Parallel()
			err := SoundOutput(c.typ)
			require.ErrorIs(t, err, ErrUnsoundOutput)
			require.Contains(t, err.Error(), c.path)
		})
	}
	t.Run("the refused map really encodes outside its schema, which the sound form does not", func(t *testing.T) {
		t.Parallel()
		s, err := jsonschema.For[requiredMap](nil)
		require.NoError(t, err)
		rs, err := s.Resolve(nil)
		require.NoError(t, err)
		require.Error(t, validates(t, rs, requiredMap{}))
		os, err := jsonschema.For[optionalMap](nil)
		require.NoError(t, err)
		o, err := os.Resolve(nil)
		require.NoError(t, err)
		require.NoError(t, SoundOutput(reflect.TypeFor[optionalMap]()))
		require.NoError(t, validates(t, o, optionalMap{}))
		empty := map[string]int(nil)
		require.NoError(t, validates(t, o, optionalMap{P: &empty}))
	})
	t.Run("startup refuses a tool whose output type is unsound", func(t *testing.T) {
		t.Parallel()
		bad := define(spec{name: "bad_output", title: "Bad", description: "a tool whose output can be null where an object is due", scope: ScopeRead,
			annotations: readOnly("Bad", false)},
			func(context.Context, *call, struct{}) (requiredMap, error) { return requiredMap{}, nil })
		err := Register(mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil), &Env{}, append(All(), bad))
		require.ErrorIs(t, err, ErrUnsoundOutput)
		require.Contains(t, err.Error(), "bad_output")
	})
}
