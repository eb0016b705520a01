package eventstore

import (
	"encoding/base64"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"unicode/utf8"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// encodeCommon writes m as protojson.Marshal does, but for white space
// (protojson varies its own between builds): the populated fields in
// declaration order under their JSON names, maps keyed by strings in key
// order, 64-bit integers quoted, floats and strings in protojson's own
// forms. It reports false for what it leaves to protojson: other maps, the
// well-known types protojson writes in forms of
// their own, proto2 and editions files, and strings that are not UTF-8
// (protojson refuses them). EncodePayload then calls protojson, so what is
// stored is protojson's text either way (TestEncodeCommonIsProtojson).
//
// Why: protojson walks every value through reflection and an encoder of
// its own, and the worker writes each trip's StagesComputed, thousands of
// geometry integers: EncodePayload was 5 % of the worker's CPU in a
// 3-minute soak.
func encodeCommon(m protoreflect.Message) ([]byte, bool) {
	return appendMessage(make([]byte, 0, 256), m)
}

func appendMessage(b []byte, m protoreflect.Message) ([]byte, bool) {
	md := m.Descriptor()
	if md.ParentFile().Syntax() != protoreflect.Proto3 || special[md.FullName()] {
		return nil, false
	}
	b = append(b, '{')
	first := true
	fields := md.Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if !m.Has(fd) {
			continue
		}
		if fd.IsMap() && fd.MapKey().Kind() != protoreflect.StringKind {
			return nil, false
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, '"')
		b = append(b, fd.JSONName()...) // a JSON name needs no escape (protoc derives it from an identifier)
		b = append(b, '"', ':')
		var ok bool
		v := m.Get(fd)
		if fd.IsMap() {
			if b, ok = appendMap(b, fd, v.Map()); !ok {
				return nil, false
			}
			continue
		}
		if fd.IsList() {
			l := v.List()
			b = append(b, '[')
			for j := range l.Len() {
				if j > 0 {
					b = append(b, ',')
				}
				if b, ok = appendValue(b, fd, l.Get(j)); !ok {
					return nil, false
				}
			}
			b = append(b, ']')
			continue
		}
		if b, ok = appendValue(b, fd, v); !ok {
			return nil, false
		}
	}
	return append(b, '}'), true
}

// appendMap writes a map keyed by strings as protojson does: its entries
// in the order of their keys.
func appendMap(b []byte, fd protoreflect.FieldDescriptor, mp protoreflect.Map) ([]byte, bool) {
	keys := make([]string, 0, mp.Len())
	mp.Range(func(k protoreflect.MapKey, _ protoreflect.Value) bool {
		keys = append(keys, k.String())
		return true
	})
	slices.Sort(keys)
	b = append(b, '{')
	var ok bool
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		if b, ok = appendString(b, k); !ok {
			return nil, false
		}
		b = append(b, ':')
		if b, ok = appendValue(b, fd.MapValue(), mp.Get(protoreflect.ValueOfString(k).MapKey())); !ok {
			return nil, false
		}
	}
	return append(b, '}'), true
}

// appendValue writes one value of fd's kind.
func appendValue(b []byte, fd protoreflect.FieldDescriptor, v protoreflect.Value) ([]byte, bool) {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return strconv.AppendBool(b, v.Bool()), true
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return strconv.AppendInt(b, v.Int(), 10), true
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return strconv.AppendUint(b, v.Uint(), 10), true
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		b = append(b, '"')
		return append(strconv.AppendInt(b, v.Int(), 10), '"'), true
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		b = append(b, '"')
		return append(strconv.AppendUint(b, v.Uint(), 10), '"'), true
	case protoreflect.FloatKind:
		return appendFloat(b, v.Float(), 32), true
	case protoreflect.DoubleKind:
		return appendFloat(b, v.Float(), 64), true
	case protoreflect.StringKind:
		return appendString(b, v.String())
	case protoreflect.BytesKind:
		b = append(b, '"')
		b = base64.StdEncoding.AppendEncode(b, v.Bytes())
		return append(b, '"'), true
	case protoreflect.EnumKind:
		if fd.Enum().FullName() == "google.protobuf.NullValue" {
			return nil, false
		}
		if ev := fd.Enum().Values().ByNumber(v.Enum()); ev != nil {
			b = append(b, '"')
			b = append(b, ev.Name()...)
			return append(b, '"'), true
		}
		return strconv.AppendInt(b, int64(v.Enum()), 10), true
	case protoreflect.MessageKind:
		return appendMessage(b, v.Message())
	}
	return nil, false // groups
}

// appendFloat is protojson's float form: NaN and the infinities quoted,
// else encoding/json's choice of plain or exponent notation, the exponent
// without a leading zero.
func appendFloat(b []byte, f float64, bitSize int) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, `"NaN"`...)
	case math.IsInf(f, 1):
		return append(b, `"Infinity"`...)
	case math.IsInf(f, -1):
		return append(b, `"-Infinity"`...)
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 {
		if bitSize == 64 && (abs < 1e-6 || abs >= 1e21) || bitSize == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	b = strconv.AppendFloat(b, f, format, -1, bitSize)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// appendString is protojson's string form: quote, backslash and control
// characters escaped, the rest as is; false for text that is not UTF-8.
func appendString(b []byte, s string) ([]byte, bool) {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 {
				return nil, false
			}
			b = append(b, s[i:i+n]...)
			i += n
			continue
		}
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\b':
			b = append(b, '\\', 'b')
		case c == '\f':
			b = append(b, '\\', 'f')
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\r':
			b = append(b, '\\', 'r')
		case c == '\t':
			b = append(b, '\\', 't')
		case c < ' ':
			b = append(b, '\\', 'u')
			b = append(b, "0000"[1+(bits.Len32(uint32(c))-1)/4:]...)
			b = strconv.AppendUint(b, uint64(c), 16)
		default:
			b = append(b, c)
		}
		i++
	}
	return append(b, '"'), true
}
