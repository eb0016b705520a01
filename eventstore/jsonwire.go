package eventstore

import (
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// decodeCommon parses the protojson payloads events are stored as when they
// use only its common forms, by rewriting them as protobuf's binary wire
// format and unmarshalling that (generated, table-driven code). It reports
// false, having set nothing, for anything else: DecodePayload then hands the
// same bytes to protojson, which decides, so a payload this accepts decodes
// to what protojson makes of it and one it declines is judged by protojson
// alone (TestDecodeCommonMatchesProtojson).
//
// Why: protojson builds repeated fields through reflection, one value at a
// time, and a stage geometry is hundreds of integers. Decoding the worker's
// StagesComputed was most of the protojson decoding that a profile of the
// API put among its largest remaining costs (docs/BENCHMARKS.md, "bench-api
// -cycle"); tripstore's BenchmarkDecodeStagesComputed (30 stages of 300
// points) takes about a fifth of the time protojson took, with a fiftieth
// of the allocations.
//
// What it takes: a JSON object of proto3 fields named by their JSON or proto
// name, each once; numbers written plainly (integers as digits, within
// their type), strings without escapes, enums by name or number, nested
// messages, lists of any of these and maps keyed by strings; integers also
// quoted, as protojson writes the 64-bit ones. What it leaves to protojson:
// null, other quoted numbers (floats, fractions, exponents), escapes,
// bytes, other maps, unknown fields or enum names, the well-known types
// protojson writes in forms of their own, proto2 and editions files, and
// every malformed input.
func decodeCommon(data []byte, m protoreflect.Message) bool {
	d := jsonWire{data: data}
	wire, ok := d.message(nil, m.Descriptor())
	if !ok {
		return false
	}
	d.space()
	if d.i != len(d.data) {
		return false
	}
	return proto.Unmarshal(wire, m.Interface()) == nil
}

// jsonWire reads JSON from data at i.
type jsonWire struct {
	data []byte
	i    int
}

// special are the messages protojson reads and writes in forms of their own.
var special = map[protoreflect.FullName]bool{
	"google.protobuf.Any": true, "google.protobuf.Timestamp": true, "google.protobuf.Duration": true,
	"google.protobuf.Struct": true, "google.protobuf.Value": true, "google.protobuf.ListValue": true,
	"google.protobuf.FieldMask": true, "google.protobuf.Empty": true,
	"google.protobuf.BoolValue": true, "google.protobuf.BytesValue": true, "google.protobuf.StringValue": true,
	"google.protobuf.DoubleValue": true, "google.protobuf.FloatValue": true,
	"google.protobuf.Int32Value": true, "google.protobuf.Int64Value": true,
	"google.protobuf.UInt32Value": true, "google.protobuf.UInt64Value": true,
}

func (d *jsonWire) space() {
	for d.i < len(d.data) {
		switch d.data[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// consume skips white space and then c, reporting whether c was there.
func (d *jsonWire) consume(c byte) bool {
	d.space()
	if d.i < len(d.data) && d.data[d.i] == c {
		d.i++
		return true
	}
	return false
}

// message appends the wire form of the JSON object at i, of message md, to b.
func (d *jsonWire) message(b []byte, md protoreflect.MessageDescriptor) ([]byte, bool) {
	if md.ParentFile().Syntax() != protoreflect.Proto3 || special[md.FullName()] || !d.consume('{') {
		return nil, false
	}
	fields := md.Fields()
	var (
		seen   []protoreflect.FieldNumber
		oneofs []protoreflect.FullName
	)
	if d.consume('}') {
		return b, true
	}
	for {
		name, ok := d.str()
		if !ok || !d.consume(':') {
			return nil, false
		}
		fd := fields.ByJSONName(string(name))
		if fd == nil {
			fd = fields.ByTextName(string(name))
		}
		if fd == nil || fd.IsExtension() || slices.Contains(seen, fd.Number()) {
			return nil, false
		}
		seen = append(seen, fd.Number())
		if od := fd.ContainingOneof(); od != nil && !od.IsSynthetic() {
			if slices.Contains(oneofs, od.FullName()) {
				return nil, false
			}
			oneofs = append(oneofs, od.FullName())
		}
		if b, ok = d.field(b, fd); !ok {
			return nil, false
		}
		if d.consume('}') {
			return b, true
		}
		if !d.consume(',') {
			return nil, false
		}
	}
}

// field appends field fd's value at i: a list packed, when its elements
// are numbers, or one record per element.
func (d *jsonWire) field(b []byte, fd protoreflect.FieldDescriptor) ([]byte, bool) {
	num := fd.Number()
	if fd.IsMap() {
		return d.mapEntries(b, fd)
	}
	if !fd.IsList() {
		return d.value(b, fd, true)
	}
	if !d.consume('[') {
		return nil, false
	}
	packed := fd.Kind() != protoreflect.StringKind && fd.Kind() != protoreflect.BytesKind && fd.Kind() != protoreflect.MessageKind &&
		fd.Kind() != protoreflect.GroupKind
	var body []byte
	if d.consume(']') {
		return b, true
	}
	for {
		var ok bool
		if packed {
			body, ok = d.value(body, fd, false)
		} else {
			b, ok = d.value(b, fd, true)
		}
		if !ok {
			return nil, false
		}
		if d.consume(']') {
			break
		}
		if !d.consume(',') {
			return nil, false
		}
	}
	if packed {
		b = protowire.AppendTag(b, num, protowire.BytesType)
		b = protowire.AppendBytes(b, body)
	}
	return b, true
}

// mapEntries appends the JSON object at i as map field fd's entries, one
// record each (key 1, value 2). Only string keys: others are written as
// JSON strings of another kind, left to protojson.
func (d *jsonWire) mapEntries(b []byte, fd protoreflect.FieldDescriptor) ([]byte, bool) {
	if fd.MapKey().Kind() != protoreflect.StringKind || !d.consume('{') {
		return nil, false
	}
	if d.consume('}') {
		return b, true
	}
	var keys [][]byte
	for {
		key, ok := d.str()
		if !ok || !d.consume(':') {
			return nil, false
		}
		for _, k := range keys {
			if string(k) == string(key) {
				return nil, false // a key twice: protojson refuses it
			}
		}
		keys = append(keys, key)
		entry := protowire.AppendTag(nil, 1, protowire.BytesType)
		entry = protowire.AppendBytes(entry, key)
		if entry, ok = d.value(entry, fd.MapValue(), true); !ok {
			return nil, false
		}
		b = protowire.AppendTag(b, fd.Number(), protowire.BytesType)
		b = protowire.AppendBytes(b, entry)
		if d.consume('}') {
			return b, true
		}
		if !d.consume(',') {
			return nil, false
		}
	}
}

// value appends one value of fd's kind at i, with its tag when tagged (a
// packed list's elements have none).
func (d *jsonWire) value(b []byte, fd protoreflect.FieldDescriptor, tagged bool) ([]byte, bool) {
	num := fd.Number()
	tag := func(b []byte, t protowire.Type) []byte {
		if tagged {
			b = protowire.AppendTag(b, num, t)
		}
		return b
	}
	d.space()
	switch fd.Kind() {
	case protoreflect.MessageKind:
		inner, ok := d.message(nil, fd.Message())
		if !ok {
			return nil, false
		}
		b = protowire.AppendTag(b, num, protowire.BytesType)
		return protowire.AppendBytes(b, inner), true
	case protoreflect.StringKind:
		s, ok := d.str()
		if !ok {
			return nil, false
		}
		b = tag(b, protowire.BytesType)
		return protowire.AppendBytes(b, s), true
	case protoreflect.BoolKind:
		var v uint64
		switch {
		case d.word("true"):
			v = 1
		case d.word("false"):
		default:
			return nil, false
		}
		b = tag(b, protowire.VarintType)
		return protowire.AppendVarint(b, v), true
	case protoreflect.EnumKind:
		if d.i < len(d.data) && d.data[d.i] == '"' {
			s, ok := d.str()
			if !ok {
				return nil, false
			}
			ev := fd.Enum().Values().ByName(protoreflect.Name(s))
			if ev == nil {
				return nil, false
			}
			b = tag(b, protowire.VarintType)
			return protowire.AppendVarint(b, uint64(int64(ev.Number()))), true
		}
		n, ok := d.integer(32)
		if !ok {
			return nil, false
		}
		b = tag(b, protowire.VarintType)
		return protowire.AppendVarint(b, uint64(n)), true
	case protoreflect.Int32Kind, protoreflect.Int64Kind, protoreflect.Sint32Kind, protoreflect.Sint64Kind,
		protoreflect.Sfixed32Kind, protoreflect.Sfixed64Kind:
		return d.signed(b, fd, tag)
	case protoreflect.Uint32Kind, protoreflect.Uint64Kind, protoreflect.Fixed32Kind, protoreflect.Fixed64Kind:
		bits := 64
		if fd.Kind() == protoreflect.Uint32Kind || fd.Kind() == protoreflect.Fixed32Kind {
			bits = 32
		}
		n, ok := d.unsigned(bits)
		if !ok {
			return nil, false
		}
		switch fd.Kind() {
		case protoreflect.Fixed32Kind:
			b = tag(b, protowire.Fixed32Type)
			return protowire.AppendFixed32(b, uint32(n)), true
		case protoreflect.Fixed64Kind:
			b = tag(b, protowire.Fixed64Type)
			return protowire.AppendFixed64(b, n), true
		}
		b = tag(b, protowire.VarintType)
		return protowire.AppendVarint(b, n), true
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		bits := 64
		if fd.Kind() == protoreflect.FloatKind {
			bits = 32
		}
		s, ok := d.number()
		if !ok {
			return nil, false
		}
		f, err := strconv.ParseFloat(string(s), bits)
		if err != nil {
			return nil, false
		}
		if bits == 32 {
			b = tag(b, protowire.Fixed32Type)
			return protowire.AppendFixed32(b, math.Float32bits(float32(f))), true
		}
		b = tag(b, protowire.Fixed64Type)
		return protowire.AppendFixed64(b, math.Float64bits(f)), true
	}
	return nil, false // bytes, groups
}

// signed appends a value of one of the signed integer kinds.
func (d *jsonWire) signed(b []byte, fd protoreflect.FieldDescriptor, tag func([]byte, protowire.Type) []byte) ([]byte, bool) {
	bits := 64
	switch fd.Kind() {
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		bits = 32
	}
	n, ok := d.integer(bits)
	if !ok {
		return nil, false
	}
	switch fd.Kind() {
	case protoreflect.Sint32Kind, protoreflect.Sint64Kind:
		b = tag(b, protowire.VarintType)
		return protowire.AppendVarint(b, protowire.EncodeZigZag(n)), true
	case protoreflect.Sfixed32Kind:
		b = tag(b, protowire.Fixed32Type)
		return protowire.AppendFixed32(b, uint32(int32(n))), true
	case protoreflect.Sfixed64Kind:
		b = tag(b, protowire.Fixed64Type)
		return protowire.AppendFixed64(b, uint64(n)), true
	}
	b = tag(b, protowire.VarintType)
	return protowire.AppendVarint(b, uint64(n)), true
}

// integer reads a JSON number written as plain digits that fits a signed
// integer of bits.
func (d *jsonWire) integer(bits int) (int64, bool) {
	s, ok := d.integerToken()
	if !ok || !plainInteger(s) {
		return 0, false
	}
	n, err := strconv.ParseInt(string(s), 10, bits)
	return n, err == nil
}

// unsigned reads a JSON number written as plain digits that fits an
// unsigned integer of bits.
func (d *jsonWire) unsigned(bits int) (uint64, bool) {
	s, ok := d.integerToken()
	if !ok || !plainInteger(s) || s[0] == '-' {
		return 0, false
	}
	n, err := strconv.ParseUint(string(s), 10, bits)
	return n, err == nil
}

// integerToken reads an integer's number token, bare or quoted: protojson
// writes 64-bit integers as strings ("sizeBytes":"300"), so without the
// quoted form every payload with a 64-bit field set — every TripCreated of
// an upload — went to protojson whole. Inside the quotes it takes exactly
// what it takes bare (the number grammar, nothing around it); the callers
// then accept plain digits only.
func (d *jsonWire) integerToken() ([]byte, bool) {
	if d.i >= len(d.data) || d.data[d.i] != '"' {
		return d.number()
	}
	save := d.i
	s, ok := d.str()
	if !ok || len(s) == 0 {
		d.i = save
		return nil, false
	}
	in := jsonWire{data: s}
	if n, ok := in.number(); !ok || len(n) != len(s) {
		d.i = save
		return nil, false
	}
	return s, true
}

// plainInteger reports a number token with neither fraction nor exponent.
func plainInteger(s []byte) bool {
	for _, c := range s {
		if c == '.' || c == 'e' || c == 'E' {
			return false
		}
	}
	return true
}

// number reads a JSON number token as the grammar defines it (RFC 8259 §6):
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (d *jsonWire) number() ([]byte, bool) {
	start, i := d.i, d.i
	digits := func() int {
		n := 0
		for i < len(d.data) && d.data[i] >= '0' && d.data[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(d.data) && d.data[i] == '-' {
		i++
	}
	switch {
	case i < len(d.data) && d.data[i] == '0':
		i++
	case digits() == 0:
		return nil, false
	}
	if i < len(d.data) && d.data[i] == '.' {
		i++
		if digits() == 0 {
			return nil, false
		}
	}
	if i < len(d.data) && (d.data[i] == 'e' || d.data[i] == 'E') {
		i++
		if i < len(d.data) && (d.data[i] == '+' || d.data[i] == '-') {
			i++
		}
		if digits() == 0 {
			return nil, false
		}
	}
	if i < len(d.data) && !delimiter(d.data[i]) {
		return nil, false // 01, 1x, …
	}
	d.i = i
	return d.data[start:i], true
}

// delimiter is what may follow a JSON number or literal.
func delimiter(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', ',', ']', '}':
		return true
	}
	return false
}

// word reads the literal w (true, false).
func (d *jsonWire) word(w string) bool {
	end := d.i + len(w)
	if end > len(d.data) || string(d.data[d.i:end]) != w || (end < len(d.data) && !delimiter(d.data[end])) {
		return false
	}
	d.i = end
	return true
}

// str reads a JSON string with no escape and no control character, valid
// UTF-8, and returns its bytes (a view of data).
func (d *jsonWire) str() ([]byte, bool) {
	d.space()
	if d.i >= len(d.data) || d.data[d.i] != '"' {
		return nil, false
	}
	start := d.i + 1
	for i := start; i < len(d.data); i++ {
		switch c := d.data[i]; {
		case c == '"':
			s := d.data[start:i]
			if !utf8.Valid(s) {
				return nil, false
			}
			d.i = i + 1
			return s, true
		case c == '\\' || c < 0x20:
			return nil, false
		}
	}
	return nil, false
}
