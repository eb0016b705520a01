package relay_test

import (
	"testing"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/eventstore"
	eventsv1 "github.com/roadbook/roadbook/proto/gen/roadbook/events/v1"
	"github.com/roadbook/roadbook/services/worker/internal/job"
	"github.com/roadbook/roadbook/services/worker/internal/relay"
	"github.com/roadbook/roadbook/services/worker/internal/stream"
)

func TestMessages(t *testing.T) {
	t.Parallel()
	t.Run("an analysis naming waypoints to route is the event and two jobs, each with its own message id", func(t *testing.T) {
		t.Parallel()
		tripID, w1 := uuid.New(), uuid.NewString()
		ev := eventstore.RecordedEvent{StreamID: eventstore.StreamID("trip-" + tripID.String()), ID: uuid.New(), Version: 7,
			Type: "roadbook.events.v1.AnalysisRequested",
			Payload: &eventsv1.AnalysisRequested{AnalysisId: uuid.NewString(), EstimatedWaypointIds: []string{w1},
				Stages: []*eventsv1.StageRef{{Index: 0, ContentHash: "ab"}}}}
		msgs, err := relay.Messages(ev, eventstore.Cursor{TxID: 912, Position: 40})
		require.NoError(t, err)
		require.Len(t, msgs, 3)
		for _, m := range msgs {
			require.Equal(t, "912", m.Msg.Header.Get(relay.HeaderFeedTx), "every message says where in the feed its event was read")
		}
		require.Equal(t, stream.Events, msgs[0].Stream)
		require.Equal(t, stream.Jobs, msgs[1].Stream)
		require.Equal(t, stream.Jobs, msgs[2].Stream)
		require.Equal(t, job.Subject(job.KindAnalysis, tripID), msgs[1].Msg.Subject)
		require.Equal(t, job.Subject(job.KindDetour, tripID), msgs[2].Msg.Subject)
		ids := map[string]bool{}
		for _, m := range msgs {
			ids[m.Msg.Header.Get(nats.MsgIdHdr)] = true
		}
		require.Len(t, ids, 3, "JetStream dedups by message id: each message needs its own")
		d, err := job.Decode(msgs[2].Msg.Data)
		require.NoError(t, err)
		require.Equal(t, job.DetourFor{WaypointIDs: []string{w1}}, d.For)
	})

	t.Run("an event read undecoded is handed on as stored, and decoded only to find its jobs", func(t *testing.T) {
		t.Parallel()
		tripID := uuid.New()
		stored := []byte(`{"analysisId": "` + uuid.NewString() + `", "stages": [{"index": 0, "contentHash": "ab"}]}`)
		ev := eventstore.RecordedEvent{StreamID: eventstore.StreamID("trip-" + tripID.String()), ID: uuid.New(), Version: 3,
			Type: "roadbook.events.v1.AnalysisRequested", Data: stored}
		msgs, err := relay.Messages(ev, eventstore.Cursor{})
		require.NoError(t, err)
		require.Len(t, msgs, 2, "the event and its analysis job")
		require.Equal(t, stored, msgs[0].Msg.Data, "the stored JSON, not encoded again")
		require.Equal(t, job.Subject(job.KindAnalysis, tripID), msgs[1].Msg.Subject)

		computed := []byte(`{"stages": []}`)
		msgs, err = relay.Messages(eventstore.RecordedEvent{StreamID: ev.StreamID, ID: uuid.New(), Version: 4,
			Type: "roadbook.events.v1.StagesComputed", Data: computed}, eventstore.Cursor{})
		require.NoError(t, err)
		require.Len(t, msgs, 1, "a type the job table never maps: no job")
		require.Equal(t, computed, msgs[0].Msg.Data)

		_, err = relay.Messages(eventstore.RecordedEvent{StreamID: ev.StreamID, ID: uuid.New(), Version: 5,
			Type: "roadbook.events.v1.AnalysisRequested", Data: []byte(`{"analysisId": 7}`)}, eventstore.Cursor{})
		require.ErrorContains(t, err, "decode roadbook.events.v1.AnalysisRequested", "an event the job table needs must decode")
	})
}
