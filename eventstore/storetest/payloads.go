package storetest

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/roadbook/roadbook/eventstore"
)

// PayloadsCodeAsProtojson checks that eventstore.EncodePayload writes
// payloads of each type as protojson.Marshal does (but for white space) and
// that eventstore.DecodePayload makes of them exactly what protojson makes
// of them: for random messages of the type (every field kind, lists,
// nested messages, oneofs, strings that need escapes), written by
// protojson in its compact, indented and proto-named forms. Both read and
// write common payloads without protojson (eventstore's encodeCommon and
// decodeCommon); a module that stores its own event types runs this over
// them, so a form of theirs that a fast path gets wrong fails here rather
// than in a fold.
func PayloadsCodeAsProtojson(t *testing.T, types ...protoreflect.MessageType) {
	t.Helper()
	for _, mt := range types {
		rng := rand.New(rand.NewPCG(1, uint64(len(mt.Descriptor().FullName()))))
		for i := range 40 {
			m := mt.New()
			fill(rng, m, 0)
			typ, stored, err := eventstore.EncodePayload(m.Interface())
			require.NoError(t, err)
			require.Equal(t, string(mt.Descriptor().FullName()), typ)
			canonical, err := protojson.Marshal(m.Interface())
			require.NoError(t, err)
			require.Equal(t, compact(t, canonical), compact(t, stored), "%s #%d is stored otherwise than protojson writes it", typ, i)
			for _, opts := range []protojson.MarshalOptions{{}, {Multiline: true, Indent: "  "}, {UseProtoNames: true, UseEnumNumbers: true}} {
				data, err := opts.Marshal(m.Interface())
				require.NoError(t, err)
				want := mt.New().Interface()
				require.NoError(t, protojson.UnmarshalOptions{DiscardUnknown: true}.Unmarshal(data, want))
				got, err := eventstore.DecodePayload(string(mt.Descriptor().FullName()), data)
				require.NoError(t, err, "%s #%d: %s", mt.Descriptor().FullName(), i, data)
				require.True(t, proto.Equal(want, got), "%s #%d decodes otherwise than protojson: %s", mt.Descriptor().FullName(), i, data)
			}
		}
	}
}

// compact is JSON text without its insignificant white space.
func compact(t *testing.T, data []byte) string {
	var b bytes.Buffer
	require.NoError(t, json.Compact(&b, data))
	return b.String()
}

// fillStrings are the strings fill draws from: plain, non-ASCII, and ones
// protojson escapes.
var fillStrings = []string{"", "a", "Trondheim", "Ærøskøbing – Å", "quote \" here", `back\slash`, "tab\tand\nnewline", "\u2028", "😀"}

// fill sets random values on some of m's fields, deep down to depth 3.
func fill(rng *rand.Rand, m protoreflect.Message, depth int) {
	fields := m.Descriptor().Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if rng.IntN(3) == 0 || (fd.Message() != nil && (depth >= 3 || fd.Message().FullName() == "google.protobuf.Any")) {
			continue // an Any of random content has no type to resolve
		}
		if od := fd.ContainingOneof(); od != nil && !od.IsSynthetic() && m.WhichOneof(od) != nil {
			continue
		}
		switch {
		case fd.IsMap():
			mp := m.Mutable(fd).Map()
			for range 1 + rng.IntN(4) {
				k := scalar(rng, fd.MapKey())
				if fd.MapValue().Message() != nil {
					v := mp.NewValue()
					fill(rng, v.Message(), depth+1)
					mp.Set(k.MapKey(), v)
				} else {
					mp.Set(k.MapKey(), scalar(rng, fd.MapValue()))
				}
			}
		case fd.IsList():
			l := m.Mutable(fd).List()
			for range rng.IntN(6) {
				if fd.Message() != nil {
					v := l.NewElement()
					fill(rng, v.Message(), depth+1)
					l.Append(v)
				} else {
					l.Append(scalar(rng, fd))
				}
			}
		case fd.Message() != nil:
			fill(rng, m.Mutable(fd).Message(), depth+1)
		default:
			m.Set(fd, scalar(rng, fd))
		}
	}
}

// scalar is a random value of fd's kind, extremes included (not NaN, which
// proto.Equal never finds equal to itself).
func scalar(rng *rand.Rand, fd protoreflect.FieldDescriptor) protoreflect.Value {
	pick := func(vs ...int64) int64 { return vs[rng.IntN(len(vs))] }
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return protoreflect.ValueOfBool(rng.IntN(2) == 0)
	case protoreflect.EnumKind:
		vals := fd.Enum().Values()
		return protoreflect.ValueOfEnum(vals.Get(rng.IntN(vals.Len())).Number())
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return protoreflect.ValueOfInt32(int32(pick(0, -1, 7, math.MinInt32, math.MaxInt32, rng.Int64N(2000)-1000)))
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return protoreflect.ValueOfInt64(pick(0, -1, math.MinInt64, math.MaxInt64, rng.Int64()))
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return protoreflect.ValueOfUint32(uint32(pick(0, 1, math.MaxUint32, rng.Int64N(1<<32))))
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return protoreflect.ValueOfUint64([]uint64{0, 1, math.MaxUint64, rng.Uint64()}[rng.IntN(4)])
	case protoreflect.FloatKind:
		return protoreflect.ValueOfFloat32([]float32{0, -1.5, 3.4e38, 1e-45, float32(rng.NormFloat64())}[rng.IntN(5)])
	case protoreflect.DoubleKind:
		return protoreflect.ValueOfFloat64([]float64{0, math.Copysign(0, -1), 59.906353, 1e300, 5e-324, math.Inf(-1), rng.NormFloat64() * 1e4}[rng.IntN(7)])
	case protoreflect.StringKind:
		return protoreflect.ValueOfString(fillStrings[rng.IntN(len(fillStrings))])
	case protoreflect.BytesKind:
		return protoreflect.ValueOfBytes([]byte(fillStrings[rng.IntN(len(fillStrings))]))
	}
	panic("storetest: no scalar of kind " + fd.Kind().String())
}
