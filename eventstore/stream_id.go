package eventstore

import "strconv"

// StreamID names a stream: 1–128 bytes of [A-Za-z0-9._:-], so ids are safe in
// NATS subjects, URLs and logs without escaping (e.g. "trip-<uuid>").
type StreamID string

// MaxStreamIDLength bounds stream ids.
const MaxStreamIDLength = 128

// Validate reports what is wrong with the id, naming the offending byte.
func (id StreamID) Validate() error {
	if len(id) == 0 {
		return &InvalidError{Field: "stream id", Reason: "empty"}
	}
	if len(id) > MaxStreamIDLength {
		return &InvalidError{Field: "stream id", Reason: "longer than 128 bytes"}
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == ':' || c == '-'
		if !ok {
			return &InvalidError{Field: "stream id", Reason: "byte " + strconv.Itoa(i) + " is not one of [A-Za-z0-9._:-]"}
		}
	}
	return nil
}
