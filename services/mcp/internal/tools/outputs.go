package tools

import (
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// ErrUnsoundOutput is a tool output type that encoding/json could encode
// into a value its inferred output schema rejects.
var ErrUnsoundOutput = errors.New("output type can encode a value its schema rejects")

// Arguments are the arguments of a Next call. A nil Arguments encodes as
// {} rather than null, so a Next always matches its schema (arguments: an
// object) whoever built it; that is what lets the registry skip validating
// every result at run time (see SoundOutput).
type Arguments map[string]any

// MarshalJSON writes a nil Arguments as {} and anything else as the map.
func (a Arguments) MarshalJSON() ([]byte, error) {
	if a == nil {
		return []byte("{}"), nil
	}
	return json.Marshal(map[string]any(a))
}

// SoundOutput reports where the Go type out could be encoded by
// encoding/json into JSON that the schema jsonschema.For infers from out
// (with no adjustment) rejects. A type that passes needs no validation of
// its results at run time: every value of it encodes within its schema.
//
// The inferred schema is exact for plain data: a struct is an object with
// its fields (required unless omitempty/omitzero, nothing else allowed),
// which is what encoding/json writes; pointers and slices admit null; the
// sized integers carry their type's bounds; an interface is unrestricted.
// The gaps, each refused here, are where the encoder writes something else:
//   - a map in a position that must be present: nil encodes as null, the
//     schema says object (tag the field omitempty, or use Arguments);
//   - []byte: base64 text, the schema says an array of integers;
//   - a type with its own MarshalJSON or MarshalText (Arguments excepted:
//     it always writes an object);
//   - the ",string" option: a number as text;
//   - embedded fields: an embedded nil pointer drops promoted fields the
//     schema requires;
//   - kinds encoding/json cannot write (channels, functions, complex).
//
// The root must be a struct (structured content is an object).
func SoundOutput(out reflect.Type) error {
	if out.Kind() != reflect.Struct {
		return fmt.Errorf("%w: the output must be a struct, not %s", ErrUnsoundOutput, out)
	}
	return sound(out, "", false, map[reflect.Type]bool{})
}

var (
	jsonMarshaler = reflect.TypeFor[json.Marshaler]()
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
	argumentsType = reflect.TypeFor[Arguments]()
)

// sound walks t at path; nullable says null or absence is acceptable there
// (an optional field, or a pointer's target).
func sound(t reflect.Type, path string, nullable bool, seen map[reflect.Type]bool) error {
	at := func(msg string) error {
		return fmt.Errorf("%w: %s at %q", ErrUnsoundOutput, msg, "/"+path)
	}
	if t == argumentsType {
		return nil
	}
	if t.Implements(jsonMarshaler) || t.Implements(textMarshaler) ||
		reflect.PointerTo(t).Implements(jsonMarshaler) || reflect.PointerTo(t).Implements(textMarshaler) {
		return at(t.String() + " encodes itself, so its inferred schema says nothing about what it writes")
	}
	switch t.Kind() {
	case reflect.Pointer:
		return sound(t.Elem(), path, true, seen)
	case reflect.Bool, reflect.String, reflect.Float32, reflect.Float64, reflect.Interface,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return nil
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return at("a byte slice encodes as base64 text, not the array its schema says")
		}
		return sound(t.Elem(), path+"[]", false, seen)
	case reflect.Array:
		return sound(t.Elem(), path+"[]", false, seen)
	case reflect.Map:
		if !nullable {
			return at("a nil map encodes as null where its schema says object: tag the field omitempty or use Arguments")
		}
		if t.Key().Kind() != reflect.String {
			return at("a map key that is not a string")
		}
		return sound(t.Elem(), path+"{}", false, seen)
	case reflect.Struct:
		if seen[t] {
			return nil
		}
		seen[t] = true
		defer delete(seen, t)
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() && !f.Anonymous {
				continue
			}
			name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" && opts == "" {
				continue
			}
			if f.Anonymous {
				return at("embedded field " + f.Name + ": declare it as a named field")
			}
			if name == "" {
				name = f.Name
			}
			optional := false
			for o := range strings.SplitSeq(opts, ",") {
				switch o {
				case "omitempty", "omitzero":
					optional = true
				case "string":
					return at(name + " has the ,string option, which writes a number as text")
				}
			}
			if err := sound(f.Type, join(path, name), optional, seen); err != nil {
				return err
			}
		}
		return nil
	default:
		return at("kind " + t.Kind().String() + " cannot be encoded as JSON")
	}
}
