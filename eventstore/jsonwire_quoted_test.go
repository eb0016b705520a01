package eventstore_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/roadbook/roadbook/eventstore"
)

// wideType is a proto3 message with a field of every integer kind and a
// repeated int64, built at test time: no well-known type outside the
// special ones has a 64-bit integer field, and the payloads that have one
// (TripCreated's upload size) live in a module this one does not import.
func wideType(tb testing.TB) protoreflect.MessageType {
	tb.Helper()
	field := func(name string, n int32, typ descriptorpb.FieldDescriptorProto_Type, repeated bool) *descriptorpb.FieldDescriptorProto {
		label := descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL
		if repeated {
			label = descriptorpb.FieldDescriptorProto_LABEL_REPEATED
		}
		return &descriptorpb.FieldDescriptorProto{Name: proto.String(name), JsonName: proto.String(name), Number: proto.Int32(n), Type: typ.Enum(), Label: label.Enum()}
	}
	fd, err := protodesc.NewFile(&descriptorpb.FileDescriptorProto{
		Name: proto.String("roadbook_test_wide.proto"), Package: proto.String("roadbook.test"), Syntax: proto.String("proto3"),
		MessageType: []*descriptorpb.DescriptorProto{{Name: proto.String("Wide"), Field: []*descriptorpb.FieldDescriptorProto{
			field("i64", 1, descriptorpb.FieldDescriptorProto_TYPE_INT64, false),
			field("u64", 2, descriptorpb.FieldDescriptorProto_TYPE_UINT64, false),
			field("s64", 3, descriptorpb.FieldDescriptorProto_TYPE_SINT64, false),
			field("f64", 4, descriptorpb.FieldDescriptorProto_TYPE_FIXED64, false),
			field("sf64", 5, descriptorpb.FieldDescriptorProto_TYPE_SFIXED64, false),
			field("i32", 6, descriptorpb.FieldDescriptorProto_TYPE_INT32, false),
			field("list", 7, descriptorpb.FieldDescriptorProto_TYPE_INT64, true),
		}}},
	}, nil)
	require.NoError(tb, err)
	return dynamicpb.NewMessageType(fd.Messages().Get(0))
}

func TestDecodeCommonReadsQuotedIntegers(t *testing.T) {
	t.Parallel()
	mt := wideType(t)
	t.Run("what protojson writes for 64-bit integers is read without protojson, to the same message", func(t *testing.T) {
		t.Parallel()
		src := mt.New()
		fields := src.Descriptor().Fields()
		src.Set(fields.ByName("i64"), protoreflect.ValueOfInt64(-9223372036854775808))
		src.Set(fields.ByName("u64"), protoreflect.ValueOfUint64(18446744073709551615))
		src.Set(fields.ByName("s64"), protoreflect.ValueOfInt64(-300))
		src.Set(fields.ByName("f64"), protoreflect.ValueOfUint64(300))
		src.Set(fields.ByName("sf64"), protoreflect.ValueOfInt64(9223372036854775807))
		src.Set(fields.ByName("i32"), protoreflect.ValueOfInt32(-7))
		list := src.Mutable(fields.ByName("list")).List()
		list.Append(protoreflect.ValueOfInt64(1))
		list.Append(protoreflect.ValueOfInt64(-2))
		data, err := protojson.Marshal(src.Interface())
		require.NoError(t, err)
		require.Contains(t, string(data), `"-300"`, "protojson quotes 64-bit integers: the form this test is about")
		got := mt.New()
		require.True(t, eventstore.DecodeCommon(data, got), "%s", data)
		require.True(t, proto.Equal(src.Interface(), got.Interface()), "%s", data)
	})
	t.Run("a quoted integer of a 32-bit field is read as protojson reads it", func(t *testing.T) {
		t.Parallel()
		data := []byte(`{"i32":"-7","i64":7}`)
		got, want := mt.New(), mt.New()
		require.True(t, eventstore.DecodeCommon(data, got))
		require.NoError(t, protojson.Unmarshal(data, want.Interface()))
		require.True(t, proto.Equal(want.Interface(), got.Interface()))
	})
	t.Run("other quoted forms are left to protojson", func(t *testing.T) {
		t.Parallel()
		for _, data := range []string{
			`{"i64":"1e2"}`, `{"i64":"7.0"}`, `{"i64":" 7"}`, `{"i64":"7 "}`, `{"i64":"07"}`, `{"i64":""}`, `{"i64":"-"}`,
			`{"i64":"9223372036854775808"}`, `{"u64":"-1"}`, `{"i32":"2147483648"}`, `{"i64":"7"x}`, `{"i64":"\u0037"}`,
		} {
			require.False(t, eventstore.DecodeCommon([]byte(data), mt.New()), data)
		}
	})
}

// FuzzDecodeCommonWide: whatever decodeCommon accepts of the integer
// kinds, bare or quoted, protojson reads to the same message.
func FuzzDecodeCommonWide(f *testing.F) {
	for _, seed := range []string{`{"i64":"-9223372036854775808","u64":"18446744073709551615","list":["1",2]}`,
		`{"s64":"-3","f64":"4","sf64":-5,"i32":"6"}`, `{"i64":"1e2"}`, `{"i64":"07"}`} {
		f.Add([]byte(seed))
	}
	fuzzAgainstProtojson(f, wideType(f))
}
