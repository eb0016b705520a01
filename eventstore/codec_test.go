package eventstore_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/roadbook/roadbook/eventstore"
)

func TestPayloadsRoundTripAsProtojsonUnderTheirFullName(t *testing.T) {
	t.Parallel()
	typ, data, err := eventstore.EncodePayload(wrapperspb.String("hello"))
	require.NoError(t, err)
	require.Equal(t, "google.protobuf.StringValue", typ)
	require.JSONEq(t, `"hello"`, string(data))
	got, err := eventstore.DecodePayload(typ, data)
	require.NoError(t, err)
	require.True(t, proto.Equal(wrapperspb.String("hello"), got))
}

func TestAnUnknownEventTypeIsNamedInTheError(t *testing.T) {
	t.Parallel()
	_, err := eventstore.DecodePayload("roadbook.events.v9.Nope", []byte(`{}`))
	require.ErrorIs(t, err, eventstore.ErrUnknownEventType)
	require.Contains(t, err.Error(), "roadbook.events.v9.Nope")
}

func TestAnOversizedPayloadIsRefusedBeforeStorage(t *testing.T) {
	t.Parallel()
	_, _, err := eventstore.EncodePayload(wrapperspb.String(strings.Repeat("x", eventstore.MaxPayloadBytes)))
	var inv *eventstore.InvalidError
	require.ErrorAs(t, err, &inv)
	require.Equal(t, "payload", inv.Field)
	require.Contains(t, inv.Reason, "google.protobuf.StringValue")
}
