package apiserver_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"connectrpc.com/connect"
	"github.com/muktihari/fit/decoder"
	"github.com/muktihari/fit/profile/filedef"
	"github.com/muktihari/fit/profile/mesgdef"
	"github.com/muktihari/fit/profile/typedef"
	"github.com/stretchr/testify/require"

	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
)

func TestExportService(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := newHarness(t, generousLimits)
	c := h.as(t, "exporter", nil)
	d := h.readyTrip(t, c)

	t.Run("a FIT course of the trip decodes with the SDK and follows the route", func(t *testing.T) {
		t.Parallel()
		resp, err := c.exports.ExportTrip(ctx, connect.NewRequest(&roadbookv1.ExportTripRequest{TripId: d.TripId, Format: roadbookv1.ExportFormat_EXPORT_FORMAT_FIT}))
		require.NoError(t, err)
		f := resp.Msg.File
		require.Equal(t, "roadbook.fit", f.Filename)
		require.Equal(t, "application/vnd.ant.fit", f.ContentType)
		fit, err := decoder.New(bytes.NewReader(f.Content)).Decode()
		require.NoError(t, err, "header and file CRCs check out")
		course := filedef.NewCourse(fit.Messages...)
		require.Equal(t, typedef.FileCourse, course.FileId.Type)
		require.Equal(t, typedef.SportCycling, course.Course.Sport)
		require.Greater(t, len(course.Records), 100)
		first, last := course.Records[0], course.Records[len(course.Records)-1]
		require.InDelta(t, 59.9, first.PositionLatDegrees(), 0.3, "starts in Oslo")
		require.InDelta(t, 63.4, last.PositionLatDegrees(), 0.3, "ends in Trondheim")
		require.InDelta(t, sumStages(d), last.DistanceScaled(), sumStages(d)*0.01)
		laps, ends := 0, 0
		for i := range fit.Messages {
			switch fit.Messages[i].Num {
			case typedef.MesgNumLap:
				laps++
			case typedef.MesgNumCoursePoint:
				if mesgdef.NewCoursePoint(&fit.Messages[i]).Type == typedef.CoursePointSegmentEnd {
					ends++
				}
			}
		}
		require.Equal(t, len(d.Stages), laps, "a lap per day")
		require.Equal(t, len(d.Stages), ends, "a segment_end course point where each day ends")
	})

	t.Run("a FIT course of one stage covers only that stage", func(t *testing.T) {
		t.Parallel()
		resp, err := c.exports.ExportTrip(ctx, connect.NewRequest(&roadbookv1.ExportTripRequest{TripId: d.TripId,
			Format: roadbookv1.ExportFormat_EXPORT_FORMAT_FIT, StageIndex: new(uint32(1))}))
		require.NoError(t, err)
		require.Equal(t, "roadbook-stage-2.fit", resp.Msg.File.Filename)
		fit, err := decoder.New(bytes.NewReader(resp.Msg.File.Content)).Decode()
		require.NoError(t, err)
		course := filedef.NewCourse(fit.Messages...)
		require.InDelta(t, d.Stages[1].DistanceM, course.Records[len(course.Records)-1].DistanceScaled(), d.Stages[1].DistanceM*0.01)
	})

	t.Run("the text roadbook has a header, one line per day and the budget", func(t *testing.T) {
		t.Parallel()
		resp, err := c.exports.ExportTrip(ctx, connect.NewRequest(&roadbookv1.ExportTripRequest{TripId: d.TripId, Format: roadbookv1.ExportFormat_EXPORT_FORMAT_TEXT}))
		require.NoError(t, err)
		require.Equal(t, "text/plain; charset=utf-8", resp.Msg.File.ContentType)
		lines := strings.Split(strings.TrimSuffix(string(resp.Msg.File.Content), "\n"), "\n")
		require.Greater(t, len(lines), 5+len(d.Stages)+1, "%q", lines)
		require.Equal(t, d.Title, lines[0])
		require.True(t, strings.HasPrefix(lines[1], "Total: "), lines[1])
		require.Equal(t, "Source: uploaded file", lines[2])
		require.Equal(t, "Weather: the trip has no dates, so there is no forecast", lines[3])
		require.Empty(t, lines[4])
		// One line per day, each followed by its indented details (this
		// route's hilly days name their highest point).
		var days, details []string
		for _, l := range lines[5 : len(lines)-2] {
			if strings.HasPrefix(l, "  ") {
				details = append(details, l)
				continue
			}
			days = append(days, l)
		}
		require.Len(t, days, len(d.Stages), "%q", lines)
		for i, st := range d.Stages {
			require.True(t, strings.HasPrefix(days[i], fmt.Sprintf("Day %d: %.1f km", i+1, st.DistanceM/1000)), days[i])
		}
		require.True(t, strings.HasSuffix(days[len(days)-1], "no accommodation (last day), 24–40 €"), days[len(days)-1])
		require.NotEmpty(t, details, "no day of a 600 km route with 6,400 m of climbing names its highest point")
		for _, l := range details {
			require.True(t, strings.HasPrefix(l, "  Highest point: "), l)
		}
		require.Empty(t, lines[len(lines)-2])
		require.True(t, strings.HasPrefix(lines[len(lines)-1], "Budget: "), lines[len(lines)-1])
	})

	t.Run("the text roadbook of one stage is that day alone", func(t *testing.T) {
		t.Parallel()
		resp, err := c.exports.ExportTrip(ctx, connect.NewRequest(&roadbookv1.ExportTripRequest{TripId: d.TripId,
			Format: roadbookv1.ExportFormat_EXPORT_FORMAT_TEXT, StageIndex: new(uint32(1))}))
		require.NoError(t, err)
		require.Equal(t, "roadbook-stage-2.txt", resp.Msg.File.Filename)
		lines := strings.Split(strings.TrimSuffix(string(resp.Msg.File.Content), "\n"), "\n")
		require.Equal(t, []string{
			fmt.Sprintf("%s · Day 2 of %d", d.Title, len(d.Stages)),
			"Source: uploaded file",
			"Weather: the trip has no dates, so there is no forecast",
			"",
		}, lines[:4])
		require.True(t, strings.HasPrefix(lines[4], fmt.Sprintf("Day 2: %.1f km", d.Stages[1].DistanceM/1000)), lines[4])
		require.Len(t, lines, 5, "no other day and no trip budget: %q", lines)
	})

	t.Run("an export of a stage the trip does not have names the stage index", func(t *testing.T) {
		t.Parallel()
		_, err := c.exports.ExportTrip(ctx, connect.NewRequest(&roadbookv1.ExportTripRequest{TripId: d.TripId,
			Format: roadbookv1.ExportFormat_EXPORT_FORMAT_TEXT, StageIndex: new(uint32(len(d.Stages)))}))
		require.Equal(t, connect.CodeInvalidArgument, connect.CodeOf(err))
		require.ErrorContains(t, err, "stage")
	})

	t.Run("a rest day has no GPX or FIT file, and says so, but has its text", func(t *testing.T) {
		t.Parallel()
		r := h.readyTrip(t, c)
		rest, err := c.edits.AddRestDay(ctx, connect.NewRequest(&roadbookv1.AddRestDayRequest{TripId: r.TripId, Version: r.Version, AfterStageIndex: 0}))
		require.NoError(t, err)
		require.True(t, rest.Msg.Trip.Stages[1].RestDay)
		for _, f := range []roadbookv1.ExportFormat{roadbookv1.ExportFormat_EXPORT_FORMAT_GPX, roadbookv1.ExportFormat_EXPORT_FORMAT_FIT} {
			_, err := c.exports.ExportTrip(ctx, connect.NewRequest(&roadbookv1.ExportTripRequest{TripId: r.TripId, Format: f, StageIndex: new(uint32(1))}))
			require.Equal(t, connect.CodeInvalidArgument, connect.CodeOf(err), "%v", f)
			require.ErrorContains(t, err, "day 2 is a rest day", "%v", f)
		}
		resp, err := c.exports.ExportTrip(ctx, connect.NewRequest(&roadbookv1.ExportTripRequest{TripId: r.TripId,
			Format: roadbookv1.ExportFormat_EXPORT_FORMAT_TEXT, StageIndex: new(uint32(1))}))
		require.NoError(t, err)
		require.Contains(t, string(resp.Msg.File.Content), "\nDay 2: rest day, ")
	})

	t.Run("an export of a trip without stages is a failed precondition", func(t *testing.T) {
		t.Parallel()
		created := upload(t, c.trips)
		_, err := c.exports.ExportTrip(ctx, connect.NewRequest(&roadbookv1.ExportTripRequest{TripId: created.TripId, Format: roadbookv1.ExportFormat_EXPORT_FORMAT_FIT}))
		require.Equal(t, connect.CodeFailedPrecondition, connect.CodeOf(err))
	})
}
