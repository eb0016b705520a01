package proto_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"

	eventsv1 "github.com/roadbook/roadbook/proto/gen/roadbook/events/v1"
	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
)

const (
	apiPackage    protoreflect.FullName = "roadbook.v1"
	eventsPackage protoreflect.FullName = "roadbook.events.v1"
)

// filesOf returns every registered file of a proto package, failing the test
// when there is none (an unlinked package would make every check vacuous).
func filesOf(t *testing.T, pkg protoreflect.FullName) []protoreflect.FileDescriptor {
	t.Helper()
	var files []protoreflect.FileDescriptor
	protoregistry.GlobalFiles.RangeFilesByPackage(pkg, func(fd protoreflect.FileDescriptor) bool {
		files = append(files, fd)
		return true
	})
	require.NotEmpty(t, files, "no file of package %s is registered", pkg)
	return files
}

// topLevelMessages lists the top-level messages of a package's files.
func topLevelMessages(t *testing.T, pkg protoreflect.FullName) []protoreflect.MessageDescriptor {
	t.Helper()
	var msgs []protoreflect.MessageDescriptor
	for _, fd := range filesOf(t, pkg) {
		for i := range fd.Messages().Len() {
			msgs = append(msgs, fd.Messages().Get(i))
		}
	}
	return msgs
}

func TestEventPayloads(t *testing.T) {
	t.Parallel()

	// The event store records the message's full name in its `type` column and
	// finds the Go type back through protoregistry, so every message of the
	// package must resolve there and survive the protojson round trip.
	t.Run("every message of roadbook.events.v1 resolves by its full name and round-trips as protojson", func(t *testing.T) {
		t.Parallel()
		msgs := topLevelMessages(t, eventsPackage)
		for _, md := range msgs {
			mt, err := protoregistry.GlobalTypes.FindMessageByName(md.FullName())
			require.NoError(t, err, "event message %s is not registered", md.FullName())
			require.Equal(t, md.FullName(), mt.Descriptor().FullName())

			data, err := protojson.Marshal(mt.New().Interface())
			require.NoError(t, err, md.FullName())
			back := mt.New().Interface()
			require.NoError(t, protojson.Unmarshal(data, back), md.FullName())
		}
	})

	t.Run("every event the architecture names is a message of the package", func(t *testing.T) {
		t.Parallel()
		required := []string{
			"TripCreated", "RouteImported", "RouteImportFailed", "StagesComputed", "StagesSuperseded",
			"StagesFailed", "TripSettingsUpdated", "StageInserted", "StageUpdated", "StageMoved",
			"StageDeleted", "RestDayAdded", "WaypointAdded", "AccommodationChosen",
			"AccommodationsRequested", "AccommodationsFound", "LabelsResolved", "AnalysisRequested",
			"AnalysisPartCompleted", "AnalysisCompleted", "AnalysisFailed", "AnalysisSuperseded",
			"TripShared", "TripUnshared", "TripDeleted", "TripDuplicated",
		}
		for _, name := range required {
			full := eventsPackage.Append(protoreflect.Name(name))
			_, err := protoregistry.GlobalTypes.FindMessageByName(full)
			require.NoError(t, err, "event %s is missing", full)
		}
	})

	t.Run("a stage result carries the content hash it was computed for", func(t *testing.T) {
		t.Parallel()
		for _, md := range []protoreflect.MessageDescriptor{
			(&eventsv1.Stage{}).ProtoReflect().Descriptor(),
			(&eventsv1.StageRef{}).ProtoReflect().Descriptor(),
			(&eventsv1.StageLabel{}).ProtoReflect().Descriptor(),
			(&eventsv1.StageAccommodations{}).ProtoReflect().Descriptor(),
		} {
			found := false
			for i := range md.Fields().Len() {
				if strings.HasSuffix(string(md.Fields().Get(i).Name()), "content_hash") {
					found = true
				}
			}
			require.True(t, found, "%s has no content hash field", md.FullName())
		}
	})
}

// isRead reports whether an RPC is declared free of side effects, which is
// how the contracts mark reads (and lets Connect serve them over GET).
func isRead(m protoreflect.MethodDescriptor) bool {
	opts, ok := m.Options().(*descriptorpb.MethodOptions)
	return ok && opts.GetIdempotencyLevel() == descriptorpb.MethodOptions_NO_SIDE_EFFECTS
}

// apiMethods lists every RPC of every service of roadbook.v1.
func apiMethods(t *testing.T) []protoreflect.MethodDescriptor {
	t.Helper()
	var methods []protoreflect.MethodDescriptor
	for _, fd := range filesOf(t, apiPackage) {
		for i := range fd.Services().Len() {
			svc := fd.Services().Get(i)
			for j := range svc.Methods().Len() {
				methods = append(methods, svc.Methods().Get(j))
			}
		}
	}
	require.NotEmpty(t, methods)
	return methods
}

func TestAPIWrites(t *testing.T) {
	t.Parallel()

	t.Run("every write request carries an optional idempotency key", func(t *testing.T) {
		t.Parallel()
		writes := 0
		for _, m := range apiMethods(t) {
			req := m.Input()
			// A write is a request naming the trip version it was decided on,
			// or any RPC not declared free of side effects (creates, account
			// deletion).
			if req.Fields().ByName("version") == nil && isRead(m) {
				continue
			}
			writes++
			key := req.Fields().ByName("idempotency_key")
			require.NotNil(t, key, "write %s has no idempotency_key", m.FullName())
			require.Equal(t, protoreflect.StringKind, key.Kind(), m.FullName())
			require.True(t, key.HasPresence(), "%s.idempotency_key must be optional", req.FullName())
		}
		require.Greater(t, writes, 15, "fewer writes than the API has: the walk is broken")
	})

	t.Run("a request carrying the trip version is a write answered with a version", func(t *testing.T) {
		t.Parallel()
		for _, m := range apiMethods(t) {
			if m.Input().Fields().ByName("version") == nil {
				continue
			}
			require.False(t, isRead(m), "%s sends a version but is declared a read", m.FullName())
			for _, name := range []protoreflect.Name{"version", "version_unchanged"} {
				require.NotNil(t, m.Output().Fields().ByName(name), "%s has no %s", m.Output().FullName(), name)
			}
			require.Equal(t, protoreflect.Int64Kind, m.Input().Fields().ByName("version").Kind())
		}
	})

	t.Run("reads carry no idempotency key and no validate_only", func(t *testing.T) {
		t.Parallel()
		for _, m := range apiMethods(t) {
			if !isRead(m) {
				continue
			}
			require.Nil(t, m.Input().Fields().ByName("idempotency_key"), m.FullName())
			require.Nil(t, m.Input().Fields().ByName("validate_only"), m.FullName())
		}
	})

	t.Run("a validate_only request is answered with its impact", func(t *testing.T) {
		t.Parallel()
		impact := (&roadbookv1.Impact{}).ProtoReflect().Descriptor().FullName()
		for _, m := range apiMethods(t) {
			if m.Input().Fields().ByName("validate_only") == nil {
				continue
			}
			f := m.Output().Fields().ByName("impact")
			require.NotNil(t, f, "%s has validate_only but %s has no impact", m.FullName(), m.Output().FullName())
			require.Equal(t, impact, f.Message().FullName())
		}
	})

	t.Run("the destructive RPCs accept validate_only", func(t *testing.T) {
		t.Parallel()
		byName := map[protoreflect.Name]protoreflect.MethodDescriptor{}
		for _, m := range apiMethods(t) {
			byName[m.Name()] = m
		}
		for _, name := range []protoreflect.Name{
			"UpdateTripSettings", "DeleteTrip", "UnshareTrip", "DeleteStage", "DeleteAccount",
		} {
			m, ok := byName[name]
			require.True(t, ok, "RPC %s is missing", name)
			require.NotNil(t, m.Input().Fields().ByName("validate_only"), name)
		}
	})
}

func TestErrorCodes(t *testing.T) {
	t.Parallel()

	t.Run("the error codes are exactly those of MCP §8", func(t *testing.T) {
		t.Parallel()
		mcp := []string{
			"invalid_argument", "not_found", "version_conflict", "precondition_failed", "locked",
			"conflict", "already_running", "confirmation_required", "stale_cursor", "rate_limited",
			"unavailable",
		}
		values := roadbookv1.Code(0).Descriptor().Values()
		var got []string
		for i := range values.Len() {
			v := values.Get(i)
			if v.Number() == 0 {
				continue
			}
			got = append(got, strings.ToLower(strings.TrimPrefix(string(v.Name()), "CODE_")))
		}
		require.ElementsMatch(t, mcp, got)
	})
}
