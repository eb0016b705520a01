package trip

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/domain/route"

	eventsv1 "github.com/roadbook/roadbook/proto/gen/roadbook/events/v1"
)

func TestParseSourceURL(t *testing.T) {
	t.Parallel()
	accepted := []struct {
		url  string
		kind SourceKind
		id   string
	}{
		{"https://www.komoot.com/tour/123456", SourceKomootTour, "123456"},
		{"https://www.komoot.com/de-de/tour/42?ref=wtd", SourceKomootTour, "42"},
		{"https://www.komoot.com/collection/987/some-name", SourceKomootCollection, "987"},
		{"https://www.komoot.com/fr-fr/collection/5", SourceKomootCollection, "5"},
		{"https://www.strava.com/routes/3141592653", SourceStravaRoute, "3141592653"},
		{"https://ridewithgps.com/routes/271828#map", SourceRideWithGPSRoute, "271828"},
	}
	for _, a := range accepted {
		t.Run("it accepts "+a.url, func(t *testing.T) {
			t.Parallel()
			src, err := ParseSourceURL(a.url)
			require.NoError(t, err)
			require.Equal(t, a.kind, src.Kind)
			require.Equal(t, a.id, src.ID)
		})
	}
	refused := []string{
		"http://www.komoot.com/tour/1",           // not https
		"https://komoot.com/tour/1",              // host is fixed
		"https://www.komoot.com.evil.net/tour/1", // suffix host
		"https://evil.net/https://www.komoot.com/tour/1",
		"https://www.komoot.com/tour/12abc",          // id must end
		"https://www.komoot.com/xx/tour/1",           // locale is ll-cc
		"https://www.strava.com/activities/1",        // activities are not routes
		"https://ridewithgps.com/trips/1",            // trips are not routes
		"https://www.komoot.com/tour/",               // no id
		" https://www.strava.com/routes/1",           // leading space
		"https://www.strava.com/routes/1\\@evil.net", // backslash trick
		"",
	}
	for _, u := range refused {
		t.Run("it refuses "+u+" with a named error", func(t *testing.T) {
			t.Parallel()
			_, err := ParseSourceURL(u)
			require.ErrorIs(t, err, ErrUnsupportedSourceURL)
			require.ErrorIs(t, err, ErrInvalidArgument)
		})
	}
}

func TestCreate(t *testing.T) {
	t.Parallel()
	run(t, []scenario{
		{
			name:      "a Komoot tour link creates a trip waiting for its import",
			when:      Create{SourceURL: "https://www.komoot.com/en-gb/tour/555"},
			thenTypes: []string{"TripCreated"},
			then: func(t *testing.T, evs []Event, _, after State) {
				c := evs[0].(*eventsv1.TripCreated)
				require.Equal(t, eventsv1.RouteSourceKind_ROUTE_SOURCE_KIND_KOMOOT_TOUR, c.GetUrl().GetKind())
				require.Equal(t, "555", c.GetUrl().GetId())
				require.Equal(t, int64(1), after.Version)
				require.Equal(t, ComputationRequested, after.RouteImport.Status)
				require.Equal(t, StatusDraft, after.Status())
				require.Equal(t, DefaultSettings(), after.Settings, "defaults are filled in by Decide")
			},
		},
		{
			name:      "an upload creates the trip and records its route in the same append",
			when:      uploaded(SettingsPatch{MaxDistancePerDayKm: ptr(100.0)}),
			thenTypes: []string{"TripCreated", "RouteImported"},
			then: func(t *testing.T, _ []Event, _, after State) {
				require.Equal(t, "Oslo north", after.Title, "the title comes from the route")
				require.Equal(t, 100.0, after.Settings.MaxDistancePerDayKm)
				require.Equal(t, ComputationRequested, after.StagesProgress.Status)
				require.Equal(t, StagesKey{testRouteHash, after.Settings.PacingHash()}, after.StagesProgress.For)
			},
		},
		{
			name:      "a user title wins over the route's",
			when:      Create{SourceURL: "https://www.strava.com/routes/9", Title: "My ride"},
			thenTypes: []string{"TripCreated"},
			then: func(t *testing.T, _ []Event, _, after State) {
				after = Evolve(after, routeImportedPB(testRouteInfo()))
				require.Equal(t, "My ride", after.Title)
			},
		},
		{name: "an unsupported link is refused by name", when: Create{SourceURL: "https://www.google.com/maps/1"}, thenErr: ErrUnsupportedSourceURL},
		{name: "a link and an upload together are refused", when: Create{SourceURL: "https://www.strava.com/routes/9", Upload: uploaded(SettingsPatch{}).Upload}, thenErr: &Error{Code: CodeInvalidArgument, Field: "sourceUrl"}},
		{name: "neither a link nor an upload is refused", when: Create{}, thenErr: &Error{Code: CodeInvalidArgument, Field: "sourceUrl"}},
		{name: "a setting out of range is refused naming the field", when: Create{SourceURL: "https://www.strava.com/routes/9", Settings: SettingsPatch{MaxDistancePerDayKm: ptr(20.0)}}, thenErr: &Error{Code: CodeInvalidArgument, Field: "maxDistancePerDay"}},
		{name: "a title over 255 characters is refused", when: Create{SourceURL: "https://www.strava.com/routes/9", Title: string(make([]rune, 256))}, thenErr: &Error{Code: CodeInvalidArgument, Field: "title"}},
		{name: "an upload whose route hash is not a SHA-256 is refused", when: Create{Upload: &CreateUpload{Route: RouteInfo{Hash: "xyz", PointCount: 5}}}, thenErr: &Error{Code: CodeInvalidArgument, Field: "routeHash"}},
		{name: "an upload over 30 MiB is refused", when: Create{Upload: &CreateUpload{SizeBytes: 31 << 20, Route: testRouteInfo()}}, thenErr: &Error{Code: CodeInvalidArgument, Field: "gpx"}},
		{name: "creating over an existing trip is a conflict", given: history(t, uploaded(SettingsPatch{})), when: uploaded(SettingsPatch{}), thenErr: ErrTripExists},
	})
}

func TestSettingsValidation(t *testing.T) {
	t.Parallel()
	cases := map[string]SettingsPatch{
		"fatigueFactor":             {FatigueFactor: ptr(0.4)},
		"elevationPenalty":          {ElevationPenaltyM: ptr(0.0)},
		"maxDistancePerDay":         {MaxDistancePerDayKm: ptr(301.0)},
		"averageSpeed":              {AverageSpeedKmH: ptr(4.9)},
		"departureHour":             {DepartureHour: ptr(24)},
		"endDate":                   {StartDate: ptr(MustDate("2031-05-02")), EndDate: ptr(MustDate("2031-05-02"))},
		"enabledAccommodationTypes": {AccommodationTypes: []AccommodationType{}},
	}
	for field, p := range cases {
		t.Run("a bad "+field+" is refused naming it", func(t *testing.T) {
			t.Parallel()
			err := p.Apply(DefaultSettings()).Validate()
			require.ErrorIs(t, err, &Error{Code: CodeInvalidArgument, Field: field})
		})
	}
	t.Run("an unknown accommodation type is refused", func(t *testing.T) {
		t.Parallel()
		err := SettingsPatch{AccommodationTypes: []AccommodationType{"castle"}}.Apply(DefaultSettings()).Validate()
		require.ErrorIs(t, err, &Error{Code: CodeInvalidArgument, Field: "enabledAccommodationTypes"})
	})
	t.Run("the defaults are valid", func(t *testing.T) {
		t.Parallel()
		require.NoError(t, DefaultSettings().Validate())
		require.Len(t, DefaultSettings().AccommodationTypes, 7)
	})
}

func TestRouteImport(t *testing.T) {
	t.Parallel()
	byURL := history(t, Create{SourceURL: "https://ridewithgps.com/routes/77"})
	run(t, []scenario{
		{
			name:  "the import result records the route and asks for stages",
			given: byURL, when: RecordRouteImported{Route: testRouteInfo()},
			thenTypes: []string{"RouteImported"},
			then: func(t *testing.T, _ []Event, _, after State) {
				require.Equal(t, ComputationDone, after.RouteImport.Status)
				require.Equal(t, "Oslo north", after.Title)
				require.Equal(t, ComputationRequested, after.StagesProgress.Status)
				require.Equal(t, int64(1), after.Version, "a worker result does not move the trip version")
			},
		},
		{
			name:  "a redelivered import result records nothing",
			given: append(byURL, routeImportedPB(testRouteInfo())), when: RecordRouteImported{Route: testRouteInfo()},
		},
		{
			name:  "an import failure is recorded with its code",
			given: byURL, when: RecordRouteImportFailed{Code: ImportRouteFetchFailed, Reason: "the source answered 404", HTTPStatus: 404},
			thenTypes: []string{"RouteImportFailed"},
			then: func(t *testing.T, evs []Event, _, after State) {
				require.Equal(t, uint32(404), evs[0].(*eventsv1.RouteImportFailed).GetHttpStatus())
				require.Equal(t, ComputationFailed, after.RouteImport.Status)
				_, err := Decide(after, InsertStage{Version: 1, Start: testRoute()[0], End: testRoute()[5]}, testNow)
				require.ErrorIs(t, err, &Error{Code: CodePreconditionFailed})
			},
		},
		{name: "an unknown import failure code is refused", given: byURL, when: RecordRouteImportFailed{Code: "boom"}, thenErr: &Error{Code: CodeInvalidArgument, Field: "code"}},
		{name: "an import result for a trip that does not exist is not found", when: RecordRouteImported{Route: testRouteInfo()}, thenErr: ErrNotFound},
		{name: "an import failure for a trip that does not exist is not found", when: RecordRouteImportFailed{Code: ImportEmptyRoute}, thenErr: ErrNotFound},
	})
}

func TestStagesResults(t *testing.T) {
	t.Parallel()
	created := history(t, uploaded(SettingsPatch{StartDate: ptr(MustDate("2031-05-01"))}))
	s := Load(testTripID, "", created)
	current := stageResult(s, 10000, 20000)
	stale := current
	stale.For.PacingHash = SettingsPatch{MaxDistancePerDayKm: ptr(120.0)}.Apply(s.Settings).PacingHash()
	run(t, []scenario{
		{
			name:  "a result for the current key is applied and its stages analysed",
			given: created, when: current,
			thenTypes: []string{"StagesComputed", "AnalysisRequested"},
			then: func(t *testing.T, evs []Event, _, after State) {
				require.Equal(t, StatusReady, after.Status())
				require.Len(t, after.Stages, 3)
				require.Equal(t, "2031-05-01", after.Stages[0].Date.String())
				require.Equal(t, "2031-05-03", after.Stages[2].Date.String())
				require.InDelta(t, route.Length(testRoute()), totalM(after), route.Length(testRoute())*0.001)
				require.Len(t, evs[1].(*eventsv1.AnalysisRequested).GetStages(), 3)
				require.True(t, after.AnalysisRunning())
				for _, st := range after.Stages {
					require.Equal(t, StageContentHash(st, after.Settings), st.ContentHash)
				}
			},
		},
		{
			name:  "a result whose key no longer matches is recorded as superseded and not applied",
			given: created, when: stale,
			thenTypes: []string{"StagesSuperseded"},
			then: func(t *testing.T, _ []Event, _, after State) {
				require.Empty(t, after.Stages)
				require.Equal(t, ComputationRequested, after.StagesProgress.Status)
				require.Equal(t, []StagesKey{stale.For}, after.StagesProgress.Superseded)
			},
		},
		{name: "a redelivered result records nothing", given: append(created, history2(t, s, current)...), when: current},
		{
			name:  "a failure for the current key is recorded",
			given: created, when: RecordStagesFailed{For: current.For, Reason: "pacing failed"},
			thenTypes: []string{"StagesFailed"},
			then: func(t *testing.T, _ []Event, _, after State) {
				require.Equal(t, ComputationFailed, after.StagesProgress.Status)
			},
		},
		{name: "a failure for a stale key is recorded as superseded", given: created, when: RecordStagesFailed{For: stale.For}, thenTypes: []string{"StagesSuperseded"}},
		{name: "a riding stage without geometry is refused", given: created, when: RecordStagesComputed{For: current.For, Stages: []Stage{{}}}, thenErr: &Error{Code: CodeInvalidArgument, Field: "stages"}},
		{name: "stages for a trip that does not exist are not found", when: current, thenErr: ErrNotFound},
		{name: "a stages failure for a trip that does not exist is not found", when: RecordStagesFailed{}, thenErr: ErrNotFound},
	})
}
