package eventstore_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/apipb"
	"google.golang.org/protobuf/types/known/sourcecontextpb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"
	"google.golang.org/protobuf/types/known/typepb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/roadbook/roadbook/eventstore"
	"github.com/roadbook/roadbook/eventstore/storetest"
)

func TestDecodeCommonMatchesProtojson(t *testing.T) {
	t.Parallel()
	t.Run("random messages of every field kind decode as protojson decodes them", func(t *testing.T) {
		t.Parallel()
		storetest.PayloadsCodeAsProtojson(t,
			(&typepb.Type{}).ProtoReflect().Type(), (&typepb.Field{}).ProtoReflect().Type(), (&typepb.Enum{}).ProtoReflect().Type(),
			(&apipb.Api{}).ProtoReflect().Type(), (&apipb.Method{}).ProtoReflect().Type(), (&sourcecontextpb.SourceContext{}).ProtoReflect().Type(),
			(&wrapperspb.Int64Value{}).ProtoReflect().Type(), (&wrapperspb.StringValue{}).ProtoReflect().Type())
	})
	t.Run("common payloads are read without protojson", func(t *testing.T) {
		t.Parallel()
		for _, data := range []string{
			`{}`,
			` { "name" : "Trondheim", "kind": "TYPE_INT32", "number": -7, "packed": true, "cardinality": 3 } `,
			`{"name":"Ærøskøbing","oneofIndex":2147483647,"json_name":"x","defaultValue":"","options":[]}`,
		} {
			m := (&typepb.Field{}).ProtoReflect().Type().New()
			require.True(t, eventstore.DecodeCommon([]byte(data), m), data)
			want := &typepb.Field{}
			require.NoError(t, protojson.Unmarshal([]byte(data), want))
			require.Equal(t, want.String(), m.Interface().(*typepb.Field).String())
		}
		api := `{"name":"a","methods":[{"name":"m","requestStreaming":true,"syntax":"SYNTAX_PROTO3"},{"name":"n"}],` +
			`"sourceContext":{"fileName":"f"},"mixins":[{"name":"x","root":"y"}]}`
		require.True(t, eventstore.DecodeCommon([]byte(api), (&apipb.Api{}).ProtoReflect().Type().New()))
	})
	t.Run("every other form is left to protojson, which reads it or refuses it", func(t *testing.T) {
		t.Parallel()
		for data, protojsonReads := range map[string]bool{
			`{"name":"quote \" here"}`:         true,  // an escape
			`{"number":"7.0"}`:                 true,  // a quoted number with a fraction
			`{"number":7.0}`:                   true,  // an integer with a fraction
			`{"number":1e2}`:                   true,  // an integer with an exponent
			`{"name":null}`:                    true,  // null
			`{"kind":"TYPE_NOPE"}`:             true,  // an unknown enum name: discarded
			`{"nope":1}`:                       true,  // an unknown field: discarded
			`{"number":1,"number":2}`:          false, // a field twice
			`{"number":1,"number":1}`:          false,
			`{"jsonName":"a","json_name":"b"}`: false, // one field by both its names
			`{"number":01}`:                    false,
			`{"number":-}`:                     false,
			`{"number":2147483648}`:            false, // beyond int32
			`{"number":1,}`:                    false,
			`{"number":1} x`:                   false,
			`{"name":"a`:                       false,
			"{\"name\":\"\xff\"}":              false, // not UTF-8
			"{\"name\":\"a\tb\"}":              false, // a raw control character
			`{"packed":tru}`:                   false,
			`{"packed":truex}`:                 false,
			`[]`:                               false,
		} {
			m := (&typepb.Field{}).ProtoReflect().Type().New()
			require.False(t, eventstore.DecodeCommon([]byte(data), m), data)
			_, err := eventstore.DecodePayload("google.protobuf.Field", []byte(data))
			require.Equal(t, protojsonReads, err == nil, "%s: %v", data, err)
		}
		for _, special := range []protoreflect.Message{(&timestamppb.Timestamp{}).ProtoReflect(), (&structpb.Struct{}).ProtoReflect()} {
			require.False(t, eventstore.DecodeCommon([]byte(`{}`), special.Type().New()), "%s", special.Descriptor().FullName())
		}
	})
}

// FuzzDecodeCommon: whatever decodeCommon accepts, protojson reads to the
// same message.
func FuzzDecodeCommon(f *testing.F) {
	for _, seed := range []string{`{}`, `{"name":"a","number":-7,"kind":"TYPE_INT32","options":[{"name":"o"}]}`,
		`{"number":01}`, `{"packed":true,"cardinality":3,"oneofIndex":1e2}`, `{"name":"Ærø","jsonName":"x"}`} {
		f.Add([]byte(seed))
	}
	fuzzAgainstProtojson(f, (&typepb.Field{}).ProtoReflect().Type())
}

// fuzzAgainstProtojson fuzzes decodeCommon on messages of type mt: whatever
// it accepts, protojson must read to the same message, and no input may
// hang it.
func fuzzAgainstProtojson(f *testing.F, mt protoreflect.MessageType) {
	f.Fuzz(func(t *testing.T, data []byte) {
		m := mt.New()
		done := make(chan bool, 1)
		go func() { done <- eventstore.DecodeCommon(data, m) }()
		var ok bool
		select {
		case ok = <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("hangs on %q", data)
		}
		if !ok {
			return
		}
		want := mt.New()
		require.NoError(t, protojson.UnmarshalOptions{DiscardUnknown: true}.Unmarshal(data, want.Interface()), "%q", data)
		require.True(t, proto.Equal(want.Interface(), m.Interface()), "%q", data)
	})
}
