package stack_test

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"connectrpc.com/connect"
	"github.com/google/uuid"
	"github.com/muktihari/fit/decoder"
	"github.com/muktihari/fit/profile/filedef"
	"github.com/muktihari/fit/profile/mesgdef"
	"github.com/muktihari/fit/profile/typedef"
	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/domain/alert"
	"github.com/roadbook/roadbook/domain/export"
	"github.com/roadbook/roadbook/domain/trip"
	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
	"github.com/roadbook/roadbook/proto/gen/roadbook/v1/roadbookv1connect"
	"github.com/roadbook/roadbook/services/worker/workerserver"
	"github.com/roadbook/roadbook/testkit"
	"github.com/roadbook/roadbook/testkit/fixtures"
	"github.com/roadbook/roadbook/testkit/stack"
)

// riderUA is the User-Agent the worker sends to the fake providers, which
// refuse any other (the usage policies ask for an identifying one).
const riderUA = "Roadbook-test/1 (tests@roadbook.example)"

// riderAPI is the Connect API of a stack, with a token for one rider: what
// a frontend calls.
type riderAPI struct {
	trips  roadbookv1connect.TripServiceClient
	accs   roadbookv1connect.AccommodationServiceClient
	export roadbookv1connect.ExportServiceClient
	shares roadbookv1connect.ShareServiceClient
	// url is the API's address, for the share page.
	url string
}

func riderClients(t *testing.T, st *stack.Stack, user string) riderAPI {
	t.Helper()
	tok, err := st.APIToken(user)
	require.NoError(t, err)
	bearer := connect.WithInterceptors(connect.UnaryInterceptorFunc(func(next connect.UnaryFunc) connect.UnaryFunc {
		return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
			req.Header().Set("Authorization", "Bearer "+tok)
			return next(ctx, req)
		}
	}))
	return riderAPI{
		trips:  roadbookv1connect.NewTripServiceClient(http.DefaultClient, st.APIURL, bearer),
		accs:   roadbookv1connect.NewAccommodationServiceClient(http.DefaultClient, st.APIURL, bearer),
		export: roadbookv1connect.NewExportServiceClient(http.DefaultClient, st.APIURL, bearer),
		shares: roadbookv1connect.NewShareServiceClient(http.DefaultClient, st.APIURL, bearer),
		url:    st.APIURL,
	}
}

// TestRiderEndToEnd follows a rider from an uploaded Oslo → Trondheim route
// with dates, through the analysis against Overpass and Open-Meteo fakes, to
// what goes on the GPS unit: a whole-trip GPX with one track and one end
// waypoint per day and the day's water and food, and a FIT course with a lap
// per day and course points of FIT's own types.
func TestRiderEndToEnd(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var overpassHits, meteoHits atomic.Int32
	overpass, meteo := routeOverpass(t, &overpassHits), routeOpenMeteo(t, &meteoHits)
	e := stack.New(t, stack.Options{Worker: true, NoMCP: true, WorkerConfig: func(c *workerserver.Config) {
		c.OverpassURL, c.OpenMeteoURL, c.UserAgent, c.ProviderInterval = overpass.URL, meteo.URL, riderUA, time.Millisecond
	}})
	require.Eventually(t, e.Worker.Ready, 30*time.Second, 10*time.Millisecond)
	api := riderClients(t, e, "ingrid")

	// Ten days from now: the first days are forecast, the last beyond the
	// 16-day horizon get typical conditions.
	startDate := time.Now().UTC().AddDate(0, 0, 10).Format(time.DateOnly)
	gpx := fixtures.Read(t, fixtures.OsloTrondheim)
	created, err := api.trips.CreateTripFromUpload(ctx, connect.NewRequest(&roadbookv1.CreateTripFromUploadRequest{
		Filename: "oslo-trondheim.gpx", ContentType: "application/gpx+xml", Content: gpx, Title: "Oslo → Trondheim",
		Settings: &roadbookv1.TripSettingsInput{StartDate: &startDate}}))
	require.NoError(t, err)
	id := uuid.MustParse(created.Msg.TripId)

	analysed := func(st trip.State) bool {
		if len(st.Stages) < 2 || st.AnalysisRunning() {
			return false
		}
		for _, s := range st.Stages {
			if !s.Analyzed || (!s.RestDay && s.Resupply == nil) {
				return false
			}
		}
		return true
	}
	st := testkit.WaitForTrip(t, e.Trips, id, analysed)
	days := len(st.Stages)
	require.GreaterOrEqual(t, days, 7, "627 km at the default pace")

	t.Run("GetStage serves the day's resupply points with passage times and its weather", func(t *testing.T) {
		got, err := api.trips.GetStage(ctx, connect.NewRequest(&roadbookv1.GetStageRequest{TripId: id.String(), StageIndex: 0}))
		require.NoError(t, err)
		s := got.Msg.Stage
		require.NotNil(t, s.Resupply)
		kinds := map[roadbookv1.ResupplyKind]int{}
		for _, p := range s.Resupply.Points {
			kinds[p.Kind]++
			require.Positive(t, p.PassageMinuteOfDay, "%v", p)
			require.Less(t, p.AtM, s.DistanceM+1)
		}
		require.Positive(t, kinds[roadbookv1.ResupplyKind_RESUPPLY_KIND_WATER])
		require.Positive(t, kinds[roadbookv1.ResupplyKind_RESUPPLY_KIND_SHOP])
		require.Positive(t, kinds[roadbookv1.ResupplyKind_RESUPPLY_KIND_FOOD])
		require.Equal(t, roadbookv1.WeatherSource_WEATHER_SOURCE_FORECAST, s.Weather.GetSource())
		require.InDelta(t, 28*0.996, s.Weather.GetHeadwindKmh(), 3, "a north wind against a day heading north")

		last, err := api.trips.GetStage(ctx, connect.NewRequest(&roadbookv1.GetStageRequest{TripId: id.String(), StageIndex: uint32(days - 1)}))
		require.NoError(t, err)
		require.Equal(t, roadbookv1.WeatherSource_WEATHER_SOURCE_TYPICAL, last.Msg.Stage.Weather.GetSource(), "day %d is beyond 16 days", days)
		require.EqualValues(t, 5, last.Msg.Stage.Weather.GetTypicalYears())
	})

	t.Run("a ford on a day forecast 14 mm of rain is critical, on a dry day a warning", func(t *testing.T) {
		sev := map[string]int{}
		for _, s := range st.Stages {
			for _, a := range s.Alerts {
				if a.Code == "ford_crossing" {
					sev[a.Severity]++
				}
			}
		}
		require.Positive(t, sev["critical"], "%v", sev)
		require.Positive(t, sev["warning"], "%v", sev)
	})

	// The rider picks the camp site offered at the end of day 1: a seasonal
	// place, closed in December.
	version := st.Version
	_, err = api.accs.RescanAccommodations(ctx, connect.NewRequest(&roadbookv1.RescanAccommodationsRequest{TripId: id.String(), Version: version, RadiusKm: 5}))
	require.NoError(t, err)
	st = testkit.WaitForTrip(t, e.Trips, id, func(st trip.State) bool { return len(st.Stages[0].Offered) == 2 })
	var campID string
	for _, a := range st.Stages[0].Offered {
		if a.Type == trip.AccommodationCampSite {
			campID = a.ProviderID
		}
	}
	_, err = api.accs.ChooseAccommodation(ctx, connect.NewRequest(&roadbookv1.ChooseAccommodationRequest{TripId: id.String(), Version: st.Version, StageIndex: 0, AccommodationId: campID}))
	require.NoError(t, err)
	st = testkit.WaitForTrip(t, e.Trips, id, func(st trip.State) bool { return st.Stages[0].Chosen != nil && analysed(st) })

	t.Run("re-analysing two edited days still judges the headwind over the whole trip", func(t *testing.T) {
		forecast := 0
		for _, s := range st.Stages {
			if s.Weather != nil && !s.Weather.Typical {
				forecast++
			}
		}
		require.GreaterOrEqual(t, forecast, 5)
		var msgs []string
		for _, a := range st.TripAlerts {
			if a.Code == "headwind" {
				msgs = append(msgs, a.Message)
			}
		}
		require.Len(t, msgs, 1)
		require.Contains(t, msgs[0], fmt.Sprintf(" of %d stages", forecast))
	})

	t.Run("the chosen camp site closed in winter raises the seasonal-closure warning", func(t *testing.T) {
		var found bool
		for _, a := range st.Stages[0].Alerts {
			if a.Code == "accommodation_seasonal_closure" {
				found = true
				require.Equal(t, "warning", a.Severity)
				require.Contains(t, a.Message, "Elvecamping")
			}
		}
		require.True(t, found, "%v", st.Stages[0].Alerts)
	})

	// ROADBOOK_EVIDENCE_DIR, when set, keeps every file exported here so a
	// person can load them in a GPS tool.
	exportFile := func(t *testing.T, format roadbookv1.ExportFormat, stage *uint32) []byte {
		resp, err := api.export.ExportTrip(ctx, connect.NewRequest(&roadbookv1.ExportTripRequest{TripId: id.String(), Format: format, StageIndex: stage}))
		require.NoError(t, err)
		if dir := os.Getenv("ROADBOOK_EVIDENCE_DIR"); dir != "" {
			require.NoError(t, os.WriteFile(filepath.Join(dir, resp.Msg.File.Filename), resp.Msg.File.Content, 0o644))
		}
		return resp.Msg.File.Content
	}
	t.Run("a point's time of passage is one: GetStage's, the GPX's and the open-at-passage check's", func(t *testing.T) {
		got, err := api.trips.GetStage(ctx, connect.NewRequest(&roadbookv1.GetStageRequest{TripId: id.String(), StageIndex: 0}))
		require.NoError(t, err)
		date, err := time.Parse(time.DateOnly, got.Msg.Stage.Date)
		require.NoError(t, err)
		_, holiday, err := alert.PublicHoliday("NO", date)
		require.NoError(t, err)
		gpx := string(exportFile(t, roadbookv1.ExportFormat_EXPORT_FORMAT_GPX, new(uint32)))
		states := map[alert.OpenState]roadbookv1.OpenAtPassage{alert.OpenUnknown: roadbookv1.OpenAtPassage_OPEN_AT_PASSAGE_UNSPECIFIED,
			alert.Open: roadbookv1.OpenAtPassage_OPEN_AT_PASSAGE_OPEN, alert.Closed: roadbookv1.OpenAtPassage_OPEN_AT_PASSAGE_CLOSED}
		checked := 0
		for _, p := range got.Msg.Stage.Resupply.GetPoints() {
			if p.OpeningHours == "" {
				continue
			}
			m := int(p.PassageMinuteOfDay)
			require.Equal(t, states[alert.OpenAt(p.OpeningHours, date, m, holiday)], p.OpenAtPassage,
				"%s at km %.1f, passed at minute %d", p.Name, p.AtM/1000, m)
			require.Contains(t, gpx, fmt.Sprintf("you pass about %02d:%02d", m/60%24, m%60), p.Name)
			checked++
		}
		require.Positive(t, checked, "day 1 has places with opening hours")
	})

	riding := 0
	for _, s := range st.Stages {
		if !s.RestDay {
			riding++
		}
	}

	// gpxMarks counts the whole-trip GPX's waypoints by type: the marks the
	// FIT course chooses from within its budget.
	gpxMarks := map[string]int{}
	t.Run("the whole-trip GPX has a track and an end waypoint per day, the night and each day's water and food", func(t *testing.T) {
		data := exportFile(t, roadbookv1.ExportFormat_EXPORT_FORMAT_GPX, nil)
		var g struct {
			Trks []struct {
				Name   string `xml:"name"`
				Number int    `xml:"number"`
			} `xml:"trk"`
			Wpts []struct {
				Name string `xml:"name"`
				Sym  string `xml:"sym"`
				Type string `xml:"type"`
			} `xml:"wpt"`
		}
		require.NoError(t, xml.Unmarshal(data, &g))
		require.Len(t, g.Trks, riding)
		for i, trk := range g.Trks {
			require.True(t, strings.HasPrefix(trk.Name, fmt.Sprintf("Day %d · ", i+1)), trk.Name)
			require.Contains(t, trk.Name, st.Stages[i].Date.String(), "with the date")
		}
		byType := gpxMarks
		for _, w := range g.Wpts {
			byType[w.Type]++
			if w.Type == "camp_site" {
				require.Equal(t, "Campground", w.Sym)
				require.Equal(t, "Elvecamping", w.Name)
			}
		}
		require.Equal(t, riding, byType["day_end"])
		// Day 1: the chosen camp site alone; every other day still offers
		// both candidates (the hotel and the camp site).
		require.Equal(t, riding, byType["camp_site"])
		require.Equal(t, riding-1, byType["hotel"])
		require.Positive(t, byType["water"])
		require.Positive(t, byType["shop"])
		require.Positive(t, byType["food"])
		requireSchemaValid(t, data)
		t.Logf("whole-trip GPX (%d bytes): %d tracks, %d waypoints by type %v", len(data), len(g.Trks), len(g.Wpts), sortedCounts(byType))
	})

	t.Run("the whole-trip FIT has a lap per day and course points of FIT's types", func(t *testing.T) {
		data := exportFile(t, roadbookv1.ExportFormat_EXPORT_FORMAT_FIT, nil)
		fit, err := decoder.New(bytes.NewReader(data)).Decode()
		require.NoError(t, err)
		laps, records := 0, 0
		byType := map[string]int{}
		for i := range fit.Messages {
			switch fit.Messages[i].Num {
			case typedef.MesgNumLap:
				laps++
			case typedef.MesgNumRecord:
				records++
			case typedef.MesgNumCoursePoint:
				cp := mesgdef.NewCoursePoint(&fit.Messages[i])
				byType[cp.Type.String()]++
				require.LessOrEqual(t, len(cp.Name), 15)
			}
		}
		require.Equal(t, riding, laps)
		// The GPX's marks, more than a unit that keeps about 200 course
		// points with its turns should get: the budget keeps 100 by priority
		// (docs/EXPORTS.md) — every day's end, the night chosen, water, food
		// shops, cafés, then the nights on offer and the summits as far as
		// they fit.
		require.NotEmpty(t, gpxMarks, "the GPX subtest ran first")
		require.Greater(t, sum(gpxMarks), export.FITMaxCoursePoints)
		left := export.FITMaxCoursePoints
		take := func(n int) int { k := min(n, left); left -= k; return k }
		wantEnds, wantChosen := take(gpxMarks["day_end"]), take(1) // day 1's camp site
		wantWater, wantShop, wantFood := take(gpxMarks["water"]), take(gpxMarks["shop"]), take(gpxMarks["food"])
		wantOffered := take(gpxMarks["camp_site"] - 1 + gpxMarks["hotel"])
		wantSummits := take(gpxMarks["day_summit"])
		require.Equal(t, export.FITMaxCoursePoints, sum(byType))
		require.Equal(t, riding, wantEnds)
		require.Equal(t, wantEnds, byType[typedef.CoursePointSegmentEnd.String()])
		require.Equal(t, wantWater, byType[typedef.CoursePointWater.String()])
		require.Equal(t, wantShop, byType[typedef.CoursePointStore.String()])
		require.Equal(t, wantFood, byType[typedef.CoursePointFood.String()])
		require.Equal(t, wantChosen+wantOffered, byType[typedef.CoursePointCampsite.String()]+byType[typedef.CoursePointShelter.String()],
			"the night chosen and the nights on offer that fit")
		require.GreaterOrEqual(t, byType[typedef.CoursePointCampsite.String()], wantChosen)
		require.Equal(t, wantSummits, byType[typedef.CoursePointSummit.String()])
		require.Less(t, wantOffered+wantSummits, gpxMarks["camp_site"]-1+gpxMarks["hotel"]+gpxMarks["day_summit"], "the budget left something out")
		t.Logf("whole-trip FIT (%d bytes): %d laps, %d records, course points by type %v", len(data), laps, records, sortedCounts(byType))
	})

	t.Run("the share page shows each day's weather and its water and food", func(t *testing.T) {
		sh, err := api.shares.ShareTrip(ctx, connect.NewRequest(&roadbookv1.ShareTripRequest{TripId: id.String(), Version: st.Version}))
		require.NoError(t, err)
		resp, err := http.Get(api.url + "/s/" + sh.Msg.Share.Code)
		require.NoError(t, err)
		defer resp.Body.Close()
		page, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, resp.StatusCode)
		require.Equal(t, riding, strings.Count(string(page), `<p class="weather">`))
		require.Contains(t, string(page), "Typical for the date (5 past years, not a forecast)")
		require.Contains(t, string(page), "<b>Water:</b> km ")
		require.Contains(t, string(page), "(closed when you pass)", "Sunday's shops")
		if dir := os.Getenv("ROADBOOK_EVIDENCE_DIR"); dir != "" {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "share.html"), page, 0o644))
		}
	})

	t.Run("one day's GPX and FIT are that day alone, and the text roadbook lists water, food and weather", func(t *testing.T) {
		one := uint32(1)
		data := exportFile(t, roadbookv1.ExportFormat_EXPORT_FORMAT_GPX, &one)
		require.Equal(t, 1, strings.Count(string(data), "<trk>"))
		require.Contains(t, string(data), "<name>Day 2 · ")
		require.Equal(t, 1, strings.Count(string(data), "<type>day_end</type>"))
		requireSchemaValid(t, data)
		wpts := strings.Count(string(data), "<wpt ")

		fit, err := decoder.New(bytes.NewReader(exportFile(t, roadbookv1.ExportFormat_EXPORT_FORMAT_FIT, &one))).Decode()
		require.NoError(t, err)
		c := filedef.NewCourse(fit.Messages...)
		name := "D2 " + st.Stages[1].EndLabel
		for len(name) > export.FITNameMaxBytes { // cut on a character boundary, as FIT names are
			_, size := utf8.DecodeLastRuneInString(name)
			name = name[:len(name)-size]
		}
		require.Equal(t, name, c.Course.Name)
		require.NotNil(t, c.Lap)
		require.Len(t, c.CoursePoints, wpts, "every waypoint of the day is a course point: the day is within the budget")
		require.Equal(t, typedef.CoursePointSegmentEnd, c.CoursePoints[len(c.CoursePoints)-1].Type)
		byType := map[string]int{}
		for _, cp := range c.CoursePoints {
			byType[cp.Type.String()]++
		}
		t.Logf("day 2 FIT: %d records, course points by type %v", len(c.Records), sortedCounts(byType))

		text := string(exportFile(t, roadbookv1.ExportFormat_EXPORT_FORMAT_TEXT, nil))
		require.Contains(t, text, "  Weather (forecast): ")
		require.Contains(t, text, "  Weather (typical for the date): ")
		require.Contains(t, text, "  Water: km ")
		require.Contains(t, text, "  Food shops: km ")
		require.Contains(t, text, "Elvecamping")
		require.Contains(t, text, "\n  "+st.Stages[1].StartLabel+" → "+st.Stages[1].EndLabel+"\n", "day 2's text names where it goes")
	})
}

// requireSchemaValid validates a GPX export against the GPX 1.1 schema kept
// by domain/export (xmllint; `make test` installs it).
func requireSchemaValid(t *testing.T, gpx []byte) {
	t.Helper()
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		if os.Getenv("CI") == "true" || os.Getenv("MAKELEVEL") != "" {
			t.Fatal("xmllint is missing: run scripts/ensure-xmllint.sh")
		}
		t.Log("xmllint missing: the GPX schema check is skipped (scripts/ensure-xmllint.sh installs it)")
		return
	}
	xsd, err := filepath.Abs(filepath.Join("..", "..", "domain", "export", "testdata", "gpx-1.1.xsd"))
	require.NoError(t, err)
	cmd := exec.Command(xmllint, "--noout", "--nonet", "--schema", xsd, "-")
	cmd.Stdin = bytes.NewReader(gpx)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
}

// sum adds the counts.
func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// sortedCounts prints counts in a stable order for the test log.
func sortedCounts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s=%d ", k, m[k])
	}
	return strings.TrimSpace(b.String())
}
