package apiserver

import (
	"google.golang.org/protobuf/types/known/structpb"

	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
	"github.com/roadbook/roadbook/proto/gen/roadbook/v1/roadbookv1connect"
)

// getTripNext is the NextCall "read the trip again", the one clients follow
// while something is being computed.
func getTripNext(tripID string, after uint32, why string) *roadbookv1.NextCall {
	n := &roadbookv1.NextCall{Tool: "get_trip", Rpc: roadbookv1connect.TripServiceGetTripProcedure, AfterSeconds: after, Why: why}
	if tripID != "" {
		n.Arguments, _ = structpb.NewStruct(map[string]any{"tripId": tripID})
	}
	return n
}
