package tools

import (
	"context"
	"errors"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

type openIn struct {
	TripID string         `json:"tripId"`
	Extra  map[string]any `json:"extra,omitempty"`
}

func TestRegisterRefusesOpenSchemas(t *testing.T) {
	t.Parallel()
	open := define(spec{name: "open_tool", title: "Open", description: "a tool whose input accepts any extra object", scope: ScopeRead,
		annotations: readOnly("Open", false)},
		func(context.Context, *call, openIn) (struct{}, error) { return struct{}{}, nil })

	t.Run("a map-typed argument is an open object and startup is refused", func(t *testing.T) {
		t.Parallel()
		srv := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
		err := Register(srv, &Env{}, append(All(), open))
		require.ErrorIs(t, err, ErrOpenSchema)
		require.Contains(t, err.Error(), "open_tool")
		require.Contains(t, err.Error(), "/extra")
	})
	t.Run("every tool of the registry is closed", func(t *testing.T) {
		t.Parallel()
		srv := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
		require.NoError(t, Register(srv, &Env{}, All()))
		require.Len(t, All(), 13)
	})
	t.Run("a tool registered twice is refused", func(t *testing.T) {
		t.Parallel()
		srv := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
		require.Error(t, Register(srv, &Env{}, append(All(), getTrip())))
	})
}

func TestJudgeEdit(t *testing.T) {
	t.Parallel()
	i := func(n int) *int { return &n }
	f := func(x float64) *float64 { return &x }
	p := &LatLon{Lat: 59.9, Lon: 10.7}
	for _, c := range []struct {
		name  string
		in    editStagesIn
		field string
		msg   string
	}{
		{"move without toIndex", editStagesIn{Action: "move", StageIndex: i(1)}, "toIndex", "action=move needs toIndex"},
		{"move without stageIndex", editStagesIn{Action: "move", ToIndex: i(1)}, "stageIndex", "action=move needs stageIndex"},
		{"insert without endPoint", editStagesIn{Action: "insert", Position: i(0), StartPoint: p}, "endPoint", "action=insert needs endPoint"},
		{"rest_day with a stageIndex", editStagesIn{Action: "rest_day", AfterStageIndex: i(0), StageIndex: i(2)}, "stageIndex", "action=rest_day does not take stageIndex: remove it"},
		{"delete with toIndex", editStagesIn{Action: "delete", StageIndex: i(0), ToIndex: i(2)}, "toIndex", "action=delete does not take toIndex: remove it"},
		{"update with neither change", editStagesIn{Action: "update", StageIndex: i(0)}, "distanceKm", "action=update needs distanceKm (the new length) or startPoint/endPoint (new ends)"},
		{"update with both changes", editStagesIn{Action: "update", StageIndex: i(0), DistanceKm: f(40), EndPoint: p}, "endPoint", "action=update takes distanceKm or startPoint/endPoint, not both: remove endPoint"},
		{"unknown action", editStagesIn{Action: "split"}, "action", "action must be one of insert, update, move, delete, rest_day"},
	} {
		t.Run(c.name+" is refused naming one field", func(t *testing.T) {
			t.Parallel()
			err := judgeEdit(c.in)
			var e *Error
			require.True(t, errors.As(err, &e))
			require.Equal(t, CodeInvalidArgument, e.Code)
			require.Equal(t, c.field, e.Field)
			require.Equal(t, c.msg, e.Message)
		})
	}
	t.Run("each action's complete arguments pass", func(t *testing.T) {
		t.Parallel()
		for _, in := range []editStagesIn{
			{Action: "insert", Position: i(0), StartPoint: p, EndPoint: p},
			{Action: "update", StageIndex: i(0), DistanceKm: f(30)},
			{Action: "update", StageIndex: i(0), EndPoint: p},
			{Action: "move", StageIndex: i(0), ToIndex: i(2)},
			{Action: "delete", StageIndex: i(0)},
			{Action: "rest_day", AfterStageIndex: i(0)},
		} {
			require.NoError(t, judgeEdit(in), in.Action)
		}
	})
}
