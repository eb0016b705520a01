package apiserver

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"strings"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/roadbook/roadbook/eventstore"
	"github.com/roadbook/roadbook/planner"
	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
)

// pageToken is a ListTrips keyset position, bound to the caller and the
// filters and signed (HMAC-SHA256) so it can be neither forged nor replayed
// by another user or with other filters.
type pageToken struct {
	User    string    `json:"u"`
	Filters []byte    `json:"f"`
	Created time.Time `json:"c"`
	Stream  string    `json:"s"`
}

// filterHash fingerprints the filters of a listing (page fields cleared).
func filterHash(req *roadbookv1.ListTripsRequest) []byte {
	r := proto.Clone(req).(*roadbookv1.ListTripsRequest)
	r.PageToken, r.PageSize = "", 0
	b, _ := proto.MarshalOptions{Deterministic: true}.Marshal(r)
	h := sha256.Sum256(b)
	return h[:16]
}

func signToken(key []byte, t pageToken) string {
	body, _ := json.Marshal(t)
	mac := hmac.New(sha256.New, key)
	mac.Write(body)
	return base64.RawURLEncoding.EncodeToString(body) + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// readToken verifies a page token for user and filters.
func readToken(key []byte, s, user string, filters []byte) (*eventstore.ListPosition, error) {
	bad := &planner.InvalidError{Field: "pageToken", Message: "is not a page token of this listing; start again from the first page"}
	body64, mac64, ok := strings.Cut(s, ".")
	if !ok {
		return nil, bad
	}
	body, err1 := base64.RawURLEncoding.DecodeString(body64)
	sum, err2 := base64.RawURLEncoding.DecodeString(mac64)
	if err1 != nil || err2 != nil {
		return nil, bad
	}
	mac := hmac.New(sha256.New, key)
	mac.Write(body)
	if !hmac.Equal(sum, mac.Sum(nil)) {
		return nil, bad
	}
	var t pageToken
	if json.Unmarshal(body, &t) != nil || t.User != user || !hmac.Equal(t.Filters, filters) {
		return nil, bad
	}
	return &eventstore.ListPosition{CreatedAt: t.Created, ID: eventstore.StreamID(t.Stream)}, nil
}
