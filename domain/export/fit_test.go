package export_test

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/muktihari/fit/decoder"
	"github.com/muktihari/fit/profile/filedef"
	"github.com/muktihari/fit/profile/mesgdef"
	"github.com/muktihari/fit/profile/typedef"
	"github.com/muktihari/fit/proto"
	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/domain/export"
	"github.com/roadbook/roadbook/domain/route"
)

// lengthOracle is the distance a FIT course must state: the route's own
// Vincenty length (route.Length), the measure of every stage and total
// (route.Totals), so a device shows the trip's km as the roadbook does.
func lengthOracle(pts []route.Point) float64 {
	return route.Length(pts)
}

// decodeFIT decodes with the SDK's decoder, which verifies the header and
// file CRCs, and returns the raw messages and the course view of them.
func decodeFIT(t *testing.T, data []byte) ([]proto.Message, *filedef.Course) {
	t.Helper()
	fit, err := decoder.New(bytes.NewReader(data)).Decode()
	require.NoError(t, err)
	return fit.Messages, filedef.NewCourse(fit.Messages...)
}

// laps are every lap message in file order (filedef.Course keeps only the
// last one).
func laps(mesgs []proto.Message) []*mesgdef.Lap {
	var out []*mesgdef.Lap
	for i := range mesgs {
		if mesgs[i].Num == typedef.MesgNumLap {
			out = append(out, mesgdef.NewLap(&mesgs[i]))
		}
	}
	return out
}

func TestWriteTripFIT(t *testing.T) {
	t.Parallel()

	t.Run("a course round-trips through the SDK decoder with every point in order", func(t *testing.T) {
		t.Parallel()
		trip, pts := threeStageTrip(t)
		var buf bytes.Buffer
		require.NoError(t, export.WriteTripFIT(&buf, trip, export.FITOptions{}))
		mesgs, c := decodeFIT(t, buf.Bytes())

		// Message order: file_id, course, a lap per day, timer start,
		// records with course points among them, timer stop.
		nums := make([]typedef.MesgNum, len(mesgs))
		for i, m := range mesgs {
			nums[i] = m.Num
		}
		require.Equal(t, []typedef.MesgNum{typedef.MesgNumFileId, typedef.MesgNumCourse,
			typedef.MesgNumLap, typedef.MesgNumLap, typedef.MesgNumLap, typedef.MesgNumEvent}, nums[:6])
		require.Equal(t, typedef.MesgNumEvent, nums[len(nums)-1])
		for i, n := range nums[6 : len(nums)-1] {
			require.Contains(t, []typedef.MesgNum{typedef.MesgNumRecord, typedef.MesgNumCoursePoint}, n, "message %d", i+6)
		}
		require.Equal(t, typedef.MesgNumRecord, nums[6], "the first record comes before any course point")

		require.Equal(t, typedef.FileCourse, c.FileId.Type)
		require.NotNil(t, c.Course)
		require.Equal(t, "Drei Gipfel Lau", c.Course.Name, "15 bytes of the title")
		require.Equal(t, typedef.SportCycling, c.Course.Sport)
		require.Len(t, c.Events, 2)
		require.Equal(t, typedef.EventTimer, c.Events[0].Event)
		require.Equal(t, typedef.EventTypeStart, c.Events[0].EventType)
		require.Equal(t, typedef.EventTimer, c.Events[1].Event)
		require.Equal(t, typedef.EventTypeStopDisableAll, c.Events[1].EventType)

		require.Len(t, c.Records, len(pts), "one record per point, cut points once")
		prev := -1.0
		for i, r := range c.Records {
			require.InDelta(t, pts[i].Lat, r.PositionLatDegrees(), 1e-6, "record %d lat", i)
			require.InDelta(t, pts[i].Lon, r.PositionLongDegrees(), 1e-6, "record %d lon", i)
			require.InDelta(t, pts[i].Ele, r.AltitudeScaled(), 0.1+1e-9, "record %d altitude (0.2 m steps)", i)
			require.GreaterOrEqual(t, r.DistanceScaled(), prev, "record %d distance", i)
			prev = r.DistanceScaled()
		}
		total := lengthOracle(pts)
		require.InDelta(t, total, c.Records[len(c.Records)-1].DistanceScaled(), 1.0)
		// One lap per day, end to end: their distances add up to the route.
		ls := laps(mesgs)
		require.Len(t, ls, 3)
		sum := 0.0
		for i, l := range ls {
			day := trip.Stages[i].Points
			require.InDelta(t, lengthOracle(day), l.TotalDistanceScaled(), 1.0, "lap %d", i)
			require.InDelta(t, day[0].Lat, l.StartPositionLatDegrees(), 1e-6)
			require.InDelta(t, day[0].Lon, l.StartPositionLongDegrees(), 1e-6)
			require.InDelta(t, day[len(day)-1].Lat, l.EndPositionLatDegrees(), 1e-6)
			require.InDelta(t, day[len(day)-1].Lon, l.EndPositionLongDegrees(), 1e-6)
			require.Equal(t, uint16(i), uint16(l.MessageIndex))
			sum += l.TotalDistanceScaled()
		}
		require.InDelta(t, total, sum, 1.0)
	})

	t.Run("altitude is stored raw as (ele + 500) × 5", func(t *testing.T) {
		t.Parallel()
		trip := export.Trip{Title: "alt", Stages: []export.Stage{{Points: []route.Point{
			{Lat: 45, Lon: 6, Ele: 846.88, HasEle: true},
			{Lat: 45.001, Lon: 6, Ele: -12.3, HasEle: true},
			{Lat: 45.002, Lon: 6},
		}}}}
		var buf bytes.Buffer
		require.NoError(t, export.WriteTripFIT(&buf, trip, export.FITOptions{}))
		_, c := decodeFIT(t, buf.Bytes())
		require.Len(t, c.Records, 3)
		require.Equal(t, uint16(math.Round((846.88+500)*5)), c.Records[0].Altitude)
		require.Equal(t, uint16(math.Round((-12.3+500)*5)), c.Records[1].Altitude)
		require.Equal(t, uint16(math.MaxUint16), c.Records[2].Altitude, "a point without elevation has no altitude")
	})

	t.Run("day ends, nights, waypoints, resupply and POIs become course points of FIT's own types", func(t *testing.T) {
		t.Parallel()
		trip, pts := threeStageTrip(t)
		var buf bytes.Buffer
		require.NoError(t, export.WriteTripFIT(&buf, trip, export.FITOptions{}))
		_, c := decodeFIT(t, buf.Bytes())

		type cp struct {
			name string
			typ  typedef.CoursePoint
		}
		var got []cp
		for _, p := range c.CoursePoints {
			if !strings.HasPrefix(p.Name, "Top ") { // the days' summits: TestDaySummit
				got = append(got, cp{p.Name, p.Type})
			}
		}
		// Course points are ordered by their place along the route; names
		// are cut to 15 bytes.
		require.Equal(t, []cp{
			{"Brunnen", typedef.CoursePointWater},
			{"Bäckerei", typedef.CoursePointFood},
			{"Gasthof Post", typedef.CoursePointShelter},
			{"D1 Hütte", typedef.CoursePointSegmentEnd},
			{"Quelle", typedef.CoursePointWater},
			{"Drinking water", typedef.CoursePointWater},
			{"Gipfelkreuz", typedef.CoursePointSummit},
			{"Spar", typedef.CoursePointStore},
			{"Apotheke", typedef.CoursePointFirstAid},
			{"Day 2 end", typedef.CoursePointSegmentEnd},
			{"Aussicht", typedef.CoursePointGeneric},
			{"Day 3 end", typedef.CoursePointSegmentEnd},
		}, got)
		// Garmin's profile numbers (DOMAIN §10), not 6, 7, 12 and 2, which the
		// profile defines as left, right, second_category and valley.
		for want, typ := range map[typedef.CoursePoint]typedef.CoursePoint{
			3: typedef.CoursePointWater, 4: typedef.CoursePointFood, 9: typedef.CoursePointFirstAid, 1: typedef.CoursePointSummit,
			25: typedef.CoursePointSegmentEnd, 27: typedef.CoursePointCampsite, 36: typedef.CoursePointShelter, 48: typedef.CoursePointStore,
		} {
			require.Equal(t, want, typ)
		}
		for _, p := range c.CoursePoints {
			require.LessOrEqual(t, len(p.Name), export.FITNameMaxBytes)
			require.True(t, utf8.ValidString(p.Name))
		}

		// Brunnen sits on route point 10: its distance is that record's.
		byName := map[string]int{}
		for i, p := range c.CoursePoints {
			byName[p.Name] = i
		}
		brunnen := c.CoursePoints[byName["Brunnen"]]
		require.InDelta(t, lengthOracle(pts[:11]), brunnen.DistanceScaled(), 0.01)
		require.InDelta(t, pts[10].Lat, brunnen.PositionLatDegrees(), 1e-6)
		// Day 1 ends where day 2 starts.
		a := len(pts) / 3
		end := c.CoursePoints[byName["D1 Hütte"]]
		require.InDelta(t, lengthOracle(pts[:a+1]), end.DistanceScaled(), 0.01)
		require.InDelta(t, pts[a].Lat, end.PositionLatDegrees(), 1e-6)
	})

	t.Run("a camp site is a campsite course point", func(t *testing.T) {
		t.Parallel()
		trip, _ := threeStageTrip(t)
		trip.Stages[0].Accommodation = &trip.Stages[0].Candidates[1]
		var buf bytes.Buffer
		require.NoError(t, export.WriteStageFIT(&buf, trip, 0, export.FITOptions{}))
		_, c := decodeFIT(t, buf.Bytes())
		var types []typedef.CoursePoint
		for _, p := range c.CoursePoints {
			types = append(types, p.Type)
		}
		require.Contains(t, types, typedef.CoursePointCampsite)
		require.NotContains(t, types, typedef.CoursePointShelter)
	})

	t.Run("timestamps follow the given start and speed, never the clock", func(t *testing.T) {
		t.Parallel()
		trip, pts := threeStageTrip(t)
		start := time.Date(2025, 6, 1, 8, 0, 0, 0, time.UTC)
		var buf bytes.Buffer
		require.NoError(t, export.WriteTripFIT(&buf, trip, export.FITOptions{Start: start, SpeedKmh: 18}))
		mesgs, c := decodeFIT(t, buf.Bytes())

		require.True(t, c.FileId.TimeCreated.Equal(start))
		require.True(t, c.Events[0].Timestamp.Equal(start))
		speed := 18 / 3.6
		cum := 0.0
		for i, r := range c.Records {
			if i > 0 {
				cum += lengthOracle(pts[i-1 : i+1])
			}
			want := start.Add(time.Duration(cum / speed * float64(time.Second)))
			require.InDelta(t, 0, r.Timestamp.Sub(want).Seconds(), 1.0, "record %d", i)
		}
		end := start.Add(time.Duration(lengthOracle(pts) / speed * float64(time.Second)))
		require.InDelta(t, 0, c.Events[1].Timestamp.Sub(end).Seconds(), 1.0)
		elapsed := 0.0
		for _, l := range laps(mesgs) {
			elapsed += l.TotalElapsedTimeScaled()
		}
		require.InDelta(t, lengthOracle(pts)/speed, elapsed, 3.0)

		// Timestamped messages after the laps never go back in time.
		var last uint32
		for _, m := range mesgs[5:] {
			for _, f := range m.Fields {
				if f.Name == "timestamp" {
					ts := f.Value.Uint32()
					require.GreaterOrEqual(t, ts, last)
					last = ts
				}
			}
		}
	})

	t.Run("without a start the fixed epoch is used and the file is byte-identical every time", func(t *testing.T) {
		t.Parallel()
		trip, _ := threeStageTrip(t)
		var a, b bytes.Buffer
		require.NoError(t, export.WriteTripFIT(&a, trip, export.FITOptions{}))
		require.NoError(t, export.WriteTripFIT(&b, trip, export.FITOptions{}))
		require.Equal(t, a.Bytes(), b.Bytes())
		_, c := decodeFIT(t, a.Bytes())
		require.True(t, c.FileId.TimeCreated.Equal(export.FITFixedStart))
		require.True(t, c.Records[0].Timestamp.Equal(export.FITFixedStart))
	})

	t.Run("a corrupted file fails the decoder's CRC check", func(t *testing.T) {
		t.Parallel()
		trip, _ := threeStageTrip(t)
		var buf bytes.Buffer
		require.NoError(t, export.WriteTripFIT(&buf, trip, export.FITOptions{}))
		_, err := decoder.New(bytes.NewReader(buf.Bytes())).Decode()
		require.NoError(t, err)
		// The last message is the timer stop event; its final data byte sits
		// just before the 2-byte file CRC. Flip it, then the CRC itself.
		for _, back := range []int{3, 1} {
			data := bytes.Clone(buf.Bytes())
			data[len(data)-back] ^= 0x01
			_, err := decoder.New(bytes.NewReader(data)).Decode()
			require.ErrorIs(t, err, decoder.ErrCRCChecksumMismatch, "byte %d from the end", back)
		}
	})

	t.Run("bad options are refused with the field named", func(t *testing.T) {
		t.Parallel()
		trip, _ := threeStageTrip(t)
		err := export.WriteTripFIT(&bytes.Buffer{}, trip, export.FITOptions{SpeedKmh: -5})
		require.ErrorIs(t, err, export.ErrInvalidInput)
		require.ErrorContains(t, err, "fit_options.speed_kmh")
		err = export.WriteTripFIT(&bytes.Buffer{}, trip, export.FITOptions{Start: time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)})
		require.ErrorIs(t, err, export.ErrInvalidInput)
		require.ErrorContains(t, err, "fit_options.start")
	})
}

func TestWriteStageFIT(t *testing.T) {
	t.Parallel()

	t.Run("a stage is its own course with one lap, named by its day and where it ends", func(t *testing.T) {
		t.Parallel()
		trip, _ := threeStageTrip(t)
		var buf bytes.Buffer
		require.NoError(t, export.WriteStageFIT(&buf, trip, 1, export.FITOptions{}))
		mesgs, c := decodeFIT(t, buf.Bytes())
		require.Equal(t, "Day 2", c.Course.Name)
		require.Len(t, c.Records, len(trip.Stages[1].Points))
		require.InDelta(t, lengthOracle(trip.Stages[1].Points), c.Records[len(c.Records)-1].DistanceScaled(), 1.0)
		require.Len(t, c.CoursePoints, 7, "the waypoint, 2 resupply points, 2 POIs, the day's summit, the day's end")
		require.Len(t, laps(mesgs), 1)

		buf.Reset()
		require.NoError(t, export.WriteStageFIT(&buf, trip, 0, export.FITOptions{}))
		_, c = decodeFIT(t, buf.Bytes())
		require.Equal(t, "D1 Hütte", c.Course.Name)
	})

	t.Run("long names are cut to 15 bytes on a character boundary", func(t *testing.T) {
		t.Parallel()
		trip, _ := threeStageTrip(t)
		trip.Stages[0].EndLabel = "ÄÄÄÄÄÄÄÄÄÄ" // 2 bytes each: "D1 " + 15 bytes would split the 7th
		trip.Stages[0].POIs[0].Name = "Wasserstelle am Brunnen"
		var buf bytes.Buffer
		require.NoError(t, export.WriteStageFIT(&buf, trip, 0, export.FITOptions{}))
		_, c := decodeFIT(t, buf.Bytes())
		require.Equal(t, "D1 ÄÄÄÄÄÄ", c.Course.Name)
		require.LessOrEqual(t, len(c.Course.Name), export.FITNameMaxBytes)
		require.True(t, utf8.ValidString(c.Course.Name))
		require.Equal(t, "Wasserstelle am", c.CoursePoints[0].Name)
	})

	t.Run("a stage without points is refused", func(t *testing.T) {
		t.Parallel()
		trip := export.Trip{Stages: []export.Stage{{RestDay: true}}}
		require.ErrorIs(t, export.WriteStageFIT(&bytes.Buffer{}, trip, 0, export.FITOptions{}), export.ErrNoPoints)
		require.ErrorIs(t, export.WriteStageFIT(&bytes.Buffer{}, trip, 4, export.FITOptions{}), export.ErrNoSuchStage)
	})
}

func TestDaySummit(t *testing.T) {
	t.Parallel()
	climb := func(topEle float64) []route.Point {
		return []route.Point{
			{Lat: 46, Lon: 7, Ele: 500, HasEle: true},
			{Lat: 46.01, Lon: 7, Ele: topEle - 50, HasEle: true},
			{Lat: 46.02, Lon: 7, Ele: topEle, HasEle: true},
			{Lat: 46.03, Lon: 7, Ele: 600, HasEle: true},
		}
	}
	fitOf := func(t *testing.T, pts []route.Point) []*mesgdef.CoursePoint {
		var buf bytes.Buffer
		require.NoError(t, export.WriteStageFIT(&buf, export.Trip{Stages: []export.Stage{{Points: pts}}}, 0, export.FITOptions{}))
		_, c := decodeFIT(t, buf.Bytes())
		return c.CoursePoints
	}
	t.Run("a day whose highest point is 150 m above both ends marks it as a summit", func(t *testing.T) {
		t.Parallel()
		cps := fitOf(t, climb(750))
		require.Len(t, cps, 2)
		require.Equal(t, typedef.CoursePointSummit, cps[0].Type)
		require.Equal(t, "Top 750 m", cps[0].Name)
		require.InDelta(t, 46.02, cps[0].PositionLatDegrees(), 1e-6)
		require.Equal(t, typedef.CoursePointSegmentEnd, cps[1].Type)
	})
	t.Run("149 m above the higher end is no summit", func(t *testing.T) {
		t.Parallel()
		cps := fitOf(t, climb(749))
		require.Len(t, cps, 1)
		require.Equal(t, typedef.CoursePointSegmentEnd, cps[0].Type)
	})
	t.Run("a day without elevation has no summit", func(t *testing.T) {
		t.Parallel()
		pts := climb(2000)
		for i := range pts {
			pts[i].HasEle = false
		}
		require.Len(t, fitOf(t, pts), 1)
	})
}

// longTrip is days riding days of 80 km due north from 46° N, one route
// point per kilometre, consecutive days sharing their cut point; dress adds
// each day's marks (day i, its points).
func longTrip(days int, dress func(i int, pts []route.Point, s *export.Stage)) export.Trip {
	const kmLat = 1 / 111.195 // a kilometre of latitude, in degrees
	var t export.Trip
	for i := range days {
		pts := make([]route.Point, 81)
		for k := range pts {
			pts[k] = route.Point{Lat: 46 + float64(i*80+k)*kmLat, Lon: 7}
		}
		s := export.Stage{Points: pts, DistanceM: 80000}
		if dress != nil {
			dress(i, pts, &s)
		}
		t.Stages = append(t.Stages, s)
	}
	return t
}

// coursePointsByType decodes a FIT course and counts its course points by
// type; it also returns their distances in file order.
func coursePointsByType(t *testing.T, trip export.Trip) (map[typedef.CoursePoint]int, map[typedef.CoursePoint][]float64) {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, export.WriteTripFIT(&buf, trip, export.FITOptions{}))
	_, c := decodeFIT(t, buf.Bytes())
	n, at := map[typedef.CoursePoint]int{}, map[typedef.CoursePoint][]float64{}
	for _, p := range c.CoursePoints {
		n[p.Type]++
		at[p.Type] = append(at[p.Type], p.DistanceScaled())
	}
	return n, at
}

func TestFITCoursePointBudget(t *testing.T) {
	t.Parallel()
	// Each of 20 days: its end, the rider's viewpoint at km 20, the night
	// chosen at its end and water at km 30 and km 60: 5 × 20 = 100 marks.
	full := func(i int, pts []route.Point, s *export.Stage) {
		s.Waypoints = []export.Waypoint{{Name: "Utsikt", Category: "viewpoint", Lat: pts[20].Lat, Lon: pts[20].Lon}}
		s.Accommodation = &export.Accommodation{Name: "Hotell", Type: "hotel", Lat: pts[80].Lat, Lon: pts[80].Lon, PriceMinEUR: 60, PriceMaxEUR: 90}
		s.Resupply = []export.Resupply{
			{Kind: export.ResupplyWater, Name: "Vann", Lat: pts[30].Lat, Lon: pts[30].Lon, AtM: 30000},
			{Kind: export.ResupplyWater, Name: "Vann", Lat: pts[60].Lat, Lon: pts[60].Lon, AtM: 60000},
		}
	}

	t.Run("a trip with exactly the budget keeps every mark", func(t *testing.T) {
		t.Parallel()
		n, _ := coursePointsByType(t, longTrip(20, full))
		require.Equal(t, map[typedef.CoursePoint]int{typedef.CoursePointSegmentEnd: 20, typedef.CoursePointOverlook: 20,
			typedef.CoursePointShelter: 20, typedef.CoursePointWater: 40}, n)
	})

	t.Run("one mark over the budget leaves out the lowest priority: a food shop before any water", func(t *testing.T) {
		t.Parallel()
		trip := longTrip(20, func(i int, pts []route.Point, s *export.Stage) {
			full(i, pts, s)
			if i == 6 {
				s.Resupply = append(s.Resupply, export.Resupply{Kind: export.ResupplyShop, Name: "Butikk", Lat: pts[40].Lat, Lon: pts[40].Lon, AtM: 40000})
			}
		})
		n, _ := coursePointsByType(t, trip)
		require.Equal(t, export.FITMaxCoursePoints, n[typedef.CoursePointSegmentEnd]+n[typedef.CoursePointOverlook]+
			n[typedef.CoursePointShelter]+n[typedef.CoursePointWater]+n[typedef.CoursePointStore])
		require.Equal(t, 40, n[typedef.CoursePointWater])
		require.Zero(t, n[typedef.CoursePointStore])
		// The GPX keeps it: the budget is the device's, not the trip's.
		var buf bytes.Buffer
		require.NoError(t, export.WriteTripGPX(&buf, trip, export.GPXOptions{}))
		require.Contains(t, buf.String(), "<name>Butikk</name>")
	})

	t.Run("a 40-day trip keeps every day's end, then water spread evenly over the whole trip, and no food", func(t *testing.T) {
		t.Parallel()
		// Water every 8 km (400 points), a shop and a café a day: 40 ends and
		// 60 of the 400 water points fit.
		trip := longTrip(40, func(i int, pts []route.Point, s *export.Stage) {
			for k := 4; k < 80; k += 8 {
				s.Resupply = append(s.Resupply, export.Resupply{Kind: export.ResupplyWater, Lat: pts[k].Lat, Lon: pts[k].Lon, AtM: float64(k) * 1000})
			}
			s.Resupply = append(s.Resupply,
				export.Resupply{Kind: export.ResupplyShop, Name: "Butikk", Lat: pts[30].Lat, Lon: pts[30].Lon, AtM: 30000},
				export.Resupply{Kind: export.ResupplyFood, Name: "Kafé", Lat: pts[50].Lat, Lon: pts[50].Lon, AtM: 50000})
		})
		n, at := coursePointsByType(t, trip)
		require.Equal(t, map[typedef.CoursePoint]int{typedef.CoursePointSegmentEnd: 40, typedef.CoursePointWater: 60}, n)
		total := at[typedef.CoursePointSegmentEnd][39]
		days := 0.0
		for _, s := range trip.Stages {
			days += lengthOracle(s.Points)
		}
		require.InDelta(t, days, total, 1, "the last day's end is the trip's length")
		require.InDelta(t, 3_200_000, total, 0.01*3_200_000, "forty days of about 80 km")
		// Evenly spread: no stretch without a kept water point is much
		// longer than 3200 km / 60 (53 km), from the start to the end.
		water := append(append([]float64{0}, at[typedef.CoursePointWater]...), total)
		for i := 1; i < len(water); i++ {
			require.Less(t, water[i]-water[i-1], 1.25*total/60, "between kept water points %d and %d", i-1, i)
		}
	})
}
