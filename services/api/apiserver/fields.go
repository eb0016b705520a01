package apiserver

import (
	"context"
	"strconv"
	"strings"

	"buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// ErrorInfo.field names the request field at fault by the API's JSON name
// (protojson's: "settings.maxDistancePerDayKm", "stageIndexes[2]"),
// whichever layer refused: protovalidate (jsonPath), the planner and the
// domain (requestField). A client reads one spelling, the one it sends.

// requestKey carries the descriptor of the call's request message.
type requestKey struct{}

// withRequest returns ctx knowing the message the call received, so an
// error can name its fields (the validator, which sees every request, sets
// it).
func withRequest(ctx context.Context, msg any) context.Context {
	m, ok := msg.(proto.Message)
	if !ok || m == nil {
		return ctx
	}
	return context.WithValue(ctx, requestKey{}, m.ProtoReflect().Descriptor())
}

func requestOf(ctx context.Context) protoreflect.MessageDescriptor {
	md, _ := ctx.Value(requestKey{}).(protoreflect.MessageDescriptor)
	return md
}

// domainFields are where a field the domain names (in its own vocabulary,
// trip.Error.Field) lives in the requests that can be refused for it, by
// JSON path; a name absent here is its own path.
var domainFields = map[string][]string{
	"sourceUrl":                 {"url"},
	"gpx":                       {"content"},
	"route":                     {"content"},
	"maxDistancePerDay":         {"settings.maxDistancePerDayKm"},
	"averageSpeed":              {"settings.averageSpeedKmPerH"},
	"elevationPenalty":          {"settings.elevationPenaltyMPerKm"},
	"fatigueFactor":             {"settings.fatigueFactor"},
	"departureHour":             {"settings.departureHour"},
	"startDate":                 {"settings.startDate"},
	"endDate":                   {"settings.endDate"},
	"enabledAccommodationTypes": {"settings.enabledAccommodationTypes"},
	"distance":                  {"distanceKm"},
	"startPoint":                {"startPoint", "points.startPoint"},
	"endPoint":                  {"endPoint", "points.endPoint"},
}

// requestField is the JSON path, in the request of ctx, of a field a
// refusal names: the name itself when it is one, else the first of its
// domainFields the request has. A name the request has no field for (an
// internal value the caller never sent) is left out, "", rather than
// named. Outside a call (no request in ctx) the name is kept.
func requestField(ctx context.Context, name string) string {
	md := requestOf(ctx)
	if md == nil || name == "" {
		return name
	}
	for _, path := range append([]string{name}, domainFields[name]...) {
		if hasPath(md, path) {
			return path
		}
	}
	return ""
}

// hasPath reports whether path ("settings.startDate", "stageIndexes[0]")
// names a field of md by JSON names.
func hasPath(md protoreflect.MessageDescriptor, path string) bool {
	for part := range strings.SplitSeq(path, ".") {
		if md == nil {
			return false
		}
		name, _, _ := strings.Cut(part, "[")
		fd := md.Fields().ByJSONName(name)
		if fd == nil {
			return false
		}
		md = fd.Message()
		if fd.IsMap() {
			md = fd.MapValue().Message()
		}
	}
	return true
}

// jsonPath is a protovalidate field path in JSON names, with its subscripts
// (an index, a map key) as protovalidate writes them.
func jsonPath(md protoreflect.MessageDescriptor, path *validate.FieldPath) string {
	var b strings.Builder
	for i, el := range path.GetElements() {
		if i > 0 {
			b.WriteByte('.')
		}
		name := el.GetFieldName()
		var fd protoreflect.FieldDescriptor
		if md != nil {
			fd = md.Fields().ByNumber(protoreflect.FieldNumber(el.GetFieldNumber()))
		}
		if fd != nil {
			name = fd.JSONName()
			md = fd.Message()
			if fd.IsMap() {
				md = fd.MapValue().Message()
			}
		} else {
			md = nil
		}
		b.WriteString(name)
		switch el.WhichSubscript() {
		case validate.FieldPathElement_Index_case:
			b.WriteString("[" + strconv.FormatUint(el.GetIndex(), 10) + "]")
		case validate.FieldPathElement_BoolKey_case:
			b.WriteString("[" + strconv.FormatBool(el.GetBoolKey()) + "]")
		case validate.FieldPathElement_IntKey_case:
			b.WriteString("[" + strconv.FormatInt(el.GetIntKey(), 10) + "]")
		case validate.FieldPathElement_UintKey_case:
			b.WriteString("[" + strconv.FormatUint(el.GetUintKey(), 10) + "]")
		case validate.FieldPathElement_StringKey_case:
			b.WriteString("[" + strconv.Quote(el.GetStringKey()) + "]")
		}
	}
	return b.String()
}
