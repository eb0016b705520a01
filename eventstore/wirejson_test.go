package eventstore_test

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/apipb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/typepb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/roadbook/roadbook/eventstore"
)

func TestEncodeCommonIsProtojson(t *testing.T) {
	t.Parallel()
	compact := func(data []byte) string {
		var b bytes.Buffer
		require.NoError(t, json.Compact(&b, data))
		return b.String()
	}
	t.Run("common messages are written as protojson writes them, without protojson", func(t *testing.T) {
		t.Parallel()
		for _, m := range []proto.Message{
			&typepb.Field{},
			&typepb.Field{Kind: typepb.Field_TYPE_INT64, Number: -7, Name: "quote \" back\\ tab\t nul\x00 Ærø 😀 \u2028", Packed: true, JsonName: "x"},
			&typepb.Field{Kind: typepb.Field_Kind(99), Cardinality: typepb.Field_CARDINALITY_REPEATED, OneofIndex: math.MaxInt32},
			&apipb.Api{Name: "a", Methods: []*apipb.Method{{Name: "m", RequestStreaming: true, Syntax: typepb.Syntax_SYNTAX_PROTO3}, {}}, Version: "v"},
		} {
			got, ok := eventstore.EncodeCommon(m.ProtoReflect())
			require.True(t, ok, "%v", m)
			want, err := protojson.Marshal(m)
			require.NoError(t, err)
			require.Equal(t, compact(want), compact(got))
		}
	})
	t.Run("what protojson writes in forms of its own, or refuses, is left to it", func(t *testing.T) {
		t.Parallel()
		for _, m := range []proto.Message{wrapperspb.String("x"), &structpb.Struct{}, &typepb.Field{Name: "\xff"},
			&typepb.Type{Name: "t", Fields: []*typepb.Field{{Name: "\xfe"}}}} {
			_, ok := eventstore.EncodeCommon(m.ProtoReflect())
			require.False(t, ok, "%v", m)
		}
		_, _, err := eventstore.EncodePayload(&typepb.Field{Name: "\xff"})
		require.Error(t, err, "protojson refuses text that is not UTF-8, as before")
	})
	t.Run("floats are in protojson's forms", func(t *testing.T) {
		t.Parallel()
		for _, f := range []float64{0, math.Copysign(0, -1), 1, -1.5, 59.906353, 1e20, 1e21, 1e-6, 1e-7, 5e-324, math.MaxFloat64, math.Inf(1), math.Inf(-1), math.NaN()} {
			m := &wrapperspb.DoubleValue{Value: f}
			want, err := protojson.Marshal(m)
			require.NoError(t, err)
			got := eventstore.AppendFloat(nil, f, 64)
			require.Equal(t, compact(want), string(got), "%v", f)
		}
		for _, f := range []float32{0, 1.5, 3.4e38, 1e-45, 1e-7, 123456.79} {
			m := &wrapperspb.FloatValue{Value: f}
			want, err := protojson.Marshal(m)
			require.NoError(t, err)
			require.Equal(t, compact(want), string(eventstore.AppendFloat(nil, float64(f), 32)), "%v", f)
		}
	})
}
