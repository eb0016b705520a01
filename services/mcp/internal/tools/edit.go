package tools

import (
	"context"
	"fmt"

	"connectrpc.com/connect"
	"github.com/google/jsonschema-go/jsonschema"

	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
)

// editStagesIn is one flat object for the five stage operations: models
// drop oneOf, so `action` chooses and the server judges which of the
// optional fields that action needs or forbids.
type editStagesIn struct {
	TripID          string   `json:"tripId"`
	Version         int64    `json:"version"`
	Action          string   `json:"action"`
	StageIndex      *int     `json:"stageIndex,omitempty"`
	ToIndex         *int     `json:"toIndex,omitempty"`
	Position        *int     `json:"position,omitempty"`
	AfterStageIndex *int     `json:"afterStageIndex,omitempty"`
	DistanceKm      *float64 `json:"distanceKm,omitempty"`
	StartPoint      *LatLon  `json:"startPoint,omitempty"`
	EndPoint        *LatLon  `json:"endPoint,omitempty"`
	IdempotencyKey  *string  `json:"idempotencyKey,omitempty"`
}

// editActions says, per action, the fields it needs and the fields it
// takes; every other optional field is forbidden for it.
var editActions = map[string]struct{ needs, takes []string }{
	"insert":   {needs: []string{"position", "startPoint", "endPoint"}},
	"update":   {needs: []string{"stageIndex"}, takes: []string{"distanceKm", "startPoint", "endPoint"}},
	"move":     {needs: []string{"stageIndex", "toIndex"}},
	"delete":   {needs: []string{"stageIndex"}},
	"rest_day": {needs: []string{"afterStageIndex"}},
}

// editFields are the action-dependent fields, in the order they are judged.
var editFields = []string{"stageIndex", "toIndex", "position", "afterStageIndex", "distanceKm", "startPoint", "endPoint"}

func (in editStagesIn) present() map[string]bool {
	return map[string]bool{
		"stageIndex": in.StageIndex != nil, "toIndex": in.ToIndex != nil, "position": in.Position != nil,
		"afterStageIndex": in.AfterStageIndex != nil, "distanceKm": in.DistanceKm != nil,
		"startPoint": in.StartPoint != nil, "endPoint": in.EndPoint != nil,
	}
}

// judgeEdit names the one missing or forbidden field for the action, never
// a list of every branch.
func judgeEdit(in editStagesIn) error {
	rule, ok := editActions[in.Action]
	if !ok {
		return invalid("action", "action must be one of insert, update, move, delete, rest_day")
	}
	has := in.present()
	for _, f := range rule.needs {
		if !has[f] {
			return invalid(f, fmt.Sprintf("action=%s needs %s", in.Action, f))
		}
	}
	allowed := map[string]bool{}
	for _, f := range append(append([]string{}, rule.needs...), rule.takes...) {
		allowed[f] = true
	}
	for _, f := range editFields {
		if has[f] && !allowed[f] {
			return invalid(f, fmt.Sprintf("action=%s does not take %s: remove it", in.Action, f))
		}
	}
	if in.Action == "update" {
		points := has["startPoint"] || has["endPoint"]
		switch {
		case has["distanceKm"] && points:
			f := "startPoint"
			if !has["startPoint"] {
				f = "endPoint"
			}
			return invalid(f, fmt.Sprintf("action=update takes distanceKm or startPoint/endPoint, not both: remove %s", f))
		case !has["distanceKm"] && !points:
			return invalid("distanceKm", "action=update needs distanceKm (the new length) or startPoint/endPoint (new ends)")
		}
	}
	return nil
}

func editStages() Tool {
	return define(spec{
		name: "edit_stages", title: "Edit the days", scope: ScopeWrite,
		annotations: writing("Edit the days", true, false),
		description: "Changes how the trip is split into days, one operation per call, chosen by action:\n" +
			"- insert: a new straight-line day at position (0-based; the day count appends), from startPoint to endPoint.\n" +
			"- update: day stageIndex either re-cut at distanceKm from its start (the next day takes the remainder), or given a new startPoint and/or endPoint.\n" +
			"- move: day stageIndex goes to toIndex.\n" +
			"- delete: day stageIndex is removed (a rest day) or merged into its neighbour.\n" +
			"- rest_day: a rest day after afterStageIndex.\n" +
			"Send only the fields your action uses; a missing or extra one is refused by name. Needs the current version " +
			"(version_conflict tells you the current one); refused with locked once the trip has started and precondition_failed " +
			"while days are being computed. Answers with the new version and the digest. Discards the analysis of the days it touches.",
		input: func(s *jsonschema.Schema) {
			tripIDSchema(s)
			versionSchema(s)
			a := prop(s, "action")
			a.Enum, a.Description = []any{"insert", "update", "move", "delete", "rest_day"}, "the operation"
			indexSchema(s, "stageIndex", "update, move, delete: the 0-based day")
			indexSchema(s, "toIndex", "move: where the day goes (0-based)")
			indexSchema(s, "position", "insert: where the new day goes (0-based)")
			indexSchema(s, "afterStageIndex", "rest_day: the day the rest day follows")
			d := prop(s, "distanceKm")
			d.Minimum, d.Maximum, d.Description = f64(0.1), f64(300), "update: the day's new length in km"
			latLonSchema(prop(s, "startPoint"))
			prop(s, "startPoint").Description = "insert: the new day's start; update: the day's new start"
			latLonSchema(prop(s, "endPoint"))
			prop(s, "endPoint").Description = "insert: the new day's end; update: the day's new end"
			idempotencySchema(s)
		},
		fields: map[string]string{"points.startPoint": "startPoint", "points.endPoint": "endPoint"},
	}, func(ctx context.Context, c *call, in editStagesIn) (TripOut, error) {
		if err := judgeEdit(in); err != nil {
			return TripOut{}, err
		}
		key, err := c.idempotencyKey(in.IdempotencyKey)
		if err != nil {
			return TripOut{}, err
		}
		st := c.env.API.Stages
		var digest *roadbookv1.TripDigest
		switch in.Action {
		case "insert":
			r, err := st.InsertStage(ctx, connect.NewRequest(&roadbookv1.InsertStageRequest{TripId: in.TripID, Version: in.Version,
				Position: uint32(*in.Position), StartPoint: in.StartPoint.pb(), EndPoint: in.EndPoint.pb(), IdempotencyKey: key}))
			if err != nil {
				return TripOut{}, err
			}
			digest = r.Msg.GetTrip()
		case "update":
			req := &roadbookv1.UpdateStageRequest{TripId: in.TripID, Version: in.Version, StageIndex: uint32(*in.StageIndex), IdempotencyKey: key}
			if in.DistanceKm != nil {
				req.Change = &roadbookv1.UpdateStageRequest_DistanceKm{DistanceKm: *in.DistanceKm}
			} else {
				req.Change = &roadbookv1.UpdateStageRequest_Points{Points: &roadbookv1.StagePoints{StartPoint: in.StartPoint.pb(), EndPoint: in.EndPoint.pb()}}
			}
			r, err := st.UpdateStage(ctx, connect.NewRequest(req))
			if err != nil {
				return TripOut{}, err
			}
			digest = r.Msg.GetTrip()
		case "move":
			r, err := st.MoveStage(ctx, connect.NewRequest(&roadbookv1.MoveStageRequest{TripId: in.TripID, Version: in.Version,
				StageIndex: uint32(*in.StageIndex), ToIndex: uint32(*in.ToIndex), IdempotencyKey: key}))
			if err != nil {
				return TripOut{}, err
			}
			digest = r.Msg.GetTrip()
		case "delete":
			r, err := st.DeleteStage(ctx, connect.NewRequest(&roadbookv1.DeleteStageRequest{TripId: in.TripID, Version: in.Version,
				StageIndex: uint32(*in.StageIndex), IdempotencyKey: key}))
			if err != nil {
				return TripOut{}, err
			}
			digest = r.Msg.GetTrip()
		case "rest_day":
			r, err := st.AddRestDay(ctx, connect.NewRequest(&roadbookv1.AddRestDayRequest{TripId: in.TripID, Version: in.Version,
				AfterStageIndex: uint32(*in.AfterStageIndex), IdempotencyKey: key}))
			if err != nil {
				return TripOut{}, err
			}
			digest = r.Msg.GetTrip()
		}
		return tripOut(digest), nil
	})
}
