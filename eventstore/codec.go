package eventstore

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// ErrUnknownEventType: a stored event's type is not a message registered in
// this binary (protoregistry.GlobalTypes), usually because the package that
// defines it is not imported.
var ErrUnknownEventType = errors.New("eventstore: unknown event type")

// EncodedEvent is a NewEvent as backends store it: the payload as protojson
// under the message's full name, metadata as JSON, and a definite id.
type EncodedEvent struct {
	ID       uuid.UUID
	Type     string
	Data     []byte
	Metadata []byte
}

// EncodePayload renders a payload the way every backend stores it: its full
// message name as the type and protojson as the data, so stored events stay
// readable and `buf breaking` (WIRE_JSON) guards them. Messages in the
// common forms are written by encodeCommon, as protojson writes them but
// for white space, in a fraction of the time.
func EncodePayload(p proto.Message) (typ string, data []byte, err error) {
	if p == nil || !p.ProtoReflect().IsValid() {
		return "", nil, &InvalidError{Field: "payload", Reason: "missing (nil message)"}
	}
	typ = string(p.ProtoReflect().Descriptor().FullName())
	if typ == "" {
		return "", nil, &InvalidError{Field: "event type", Reason: "the payload message has no full name"}
	}
	data, ok := encodeCommon(p.ProtoReflect())
	if !ok {
		data, err = protojson.Marshal(p)
	}
	if err != nil {
		return "", nil, &InvalidError{Field: "payload", Reason: "cannot encode " + typ + ": " + err.Error()}
	}
	if len(data) > MaxPayloadBytes {
		return "", nil, &InvalidError{Field: "payload", Reason: fmt.Sprintf("%s is %d bytes encoded, more than %d", typ, len(data), MaxPayloadBytes)}
	}
	return typ, data, nil
}

// DecodePayload is the inverse of EncodePayload: it resolves typ in
// protoregistry.GlobalTypes and parses data into a new message of that type.
// Unknown fields are discarded so an older binary can read newer events.
// Payloads in protojson's common forms are read by decodeCommon, to the same
// message, in a fraction of the time.
func DecodePayload(typ string, data []byte) (proto.Message, error) {
	mt, err := protoregistry.GlobalTypes.FindMessageByName(protoreflect.FullName(typ))
	if err != nil {
		return nil, fmt.Errorf("%w: %q is not registered (import the Go package that defines it)", ErrUnknownEventType, typ)
	}
	if m := mt.New(); decodeCommon(data, m) {
		return m.Interface(), nil
	}
	m := mt.New().Interface()
	if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(data, m); err != nil {
		return nil, fmt.Errorf("eventstore: decode stored %s: %w", typ, err)
	}
	return m, nil
}

// EncodeMetadata renders metadata as the JSON object backends store.
func EncodeMetadata(m Metadata) ([]byte, error) {
	return json.Marshal(m)
}

// DecodeMetadata parses stored metadata (empty input is zero metadata).
func DecodeMetadata(data []byte) (Metadata, error) {
	var m Metadata
	if len(data) == 0 {
		return m, nil
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return m, fmt.Errorf("eventstore: decode stored metadata: %w", err)
	}
	return m, nil
}
