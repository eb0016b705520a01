package aggregate

import (
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"reflect"
	"strings"
)

// JSONSnapshots returns a snapshot codec that stores the folded state as
// JSON, every `every` events.
//
// A snapshot is a stored copy of a Go value, so the danger is a state type
// that changed shape since the snapshot was written: JSON would decode the
// old bytes without complaint, leaving renamed fields zero. So the schema
// version is not chosen by hand: it is a hash of S's shape (every type,
// field name, JSON tag and kind, recursively), and any change to the shape
// makes every older snapshot invisible (the state is then folded from the
// events, and the next snapshot is written in the new shape). And S is
// checked once, here, for what JSON cannot carry back: an unexported field
// or one tagged "-" (dropped without a word), an interface, func, channel or
// complex number, a map whose keys are not strings or integers. A type that
// marshals itself (json.Marshaler and json.Unmarshaler, or the text pair)
// is trusted with its own value.
func JSONSnapshots[S any](every int64) (*SnapshotCodec[S], error) {
	if every <= 0 {
		return nil, fmt.Errorf("aggregate: JSON snapshots every %d events: want > 0", every)
	}
	t := reflect.TypeFor[S]()
	var shape strings.Builder
	if err := describe(t, &shape, map[reflect.Type]bool{}, t.String()); err != nil {
		return nil, fmt.Errorf("aggregate: %s cannot be snapshot as JSON: %w", t, err)
	}
	h := fnv.New32a()
	h.Write([]byte(shape.String()))
	version := int(h.Sum32()&0x7fffffff) | 1 // ≥ 1, as SnapshotCodec requires
	return &SnapshotCodec[S]{
		SchemaVersion: version,
		Every:         every,
		Marshal:       func(s S) ([]byte, error) { return json.Marshal(s) },
		Unmarshal: func(data []byte) (S, error) {
			var s S
			err := json.Unmarshal(data, &s)
			return s, err
		},
	}, nil
}

var (
	jsonMarshaler   = reflect.TypeFor[json.Marshaler]()
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textMarshaler   = reflect.TypeFor[encoding.TextMarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// selfEncoding reports whether t (or *t) encodes and decodes itself.
func selfEncoding(t reflect.Type) bool {
	p := reflect.PointerTo(t)
	return (t.Implements(jsonMarshaler) || p.Implements(jsonMarshaler)) && p.Implements(jsonUnmarshaler) ||
		(t.Implements(textMarshaler) || p.Implements(textMarshaler)) && p.Implements(textUnmarshaler)
}

// describe writes t's shape to w and refuses what JSON would not carry back;
// path names the field being described, for the error.
func describe(t reflect.Type, w *strings.Builder, seen map[reflect.Type]bool, path string) error {
	fmt.Fprintf(w, "%s/%s{", t.String(), t.Kind())
	defer w.WriteString("}")
	if selfEncoding(t) {
		return nil
	}
	if seen[t] {
		return nil // recursive: described where it first appeared
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64, reflect.String:
		return nil
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return describe(t.Elem(), w, seen, path+"[]")
	case reflect.Map:
		switch t.Key().Kind() {
		case reflect.String, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		default:
			if !t.Key().Implements(textMarshaler) {
				return fmt.Errorf("%s: map key %s is not a string, an integer or a text marshaler", path, t.Key())
			}
		}
		if err := describe(t.Key(), w, seen, path+"{key}"); err != nil {
			return err
		}
		return describe(t.Elem(), w, seen, path+"{}")
	case reflect.Struct:
		var errs []error // every problem at once, not the first
		for i := range t.NumField() {
			f := t.Field(i)
			fp := path + "." + f.Name
			tag := f.Tag.Get("json")
			switch {
			case !f.IsExported():
				errs = append(errs, fmt.Errorf("%s is unexported: JSON would drop it", fp))
				continue
			case tag == "-":
				errs = append(errs, fmt.Errorf("%s is tagged json:\"-\": JSON would drop it", fp))
				continue
			}
			fmt.Fprintf(w, "%s`%s`:", f.Name, tag)
			errs = append(errs, describe(f.Type, w, seen, fp))
		}
		return errors.Join(errs...)
	}
	return fmt.Errorf("%s is a %s, which JSON cannot decode back", path, t.Kind())
}
