package export_test

import (
	"bytes"
	"math"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/muktihari/fit/decoder"
	"github.com/muktihari/fit/profile/filedef"
	"github.com/muktihari/fit/profile/typedef"
	"github.com/muktihari/fit/proto"
	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/domain/export"
	"github.com/roadbook/roadbook/domain/route"
)

// haversineOracle is the test's own great-circle distance (R = 6 371 000 m,
// DOMAIN §2), so the FIT distances are checked against an independent sum.
func haversineOracle(pts []route.Point) float64 {
	const r = 6371000.0
	rad := math.Pi / 180
	total := 0.0
	for i := 1; i < len(pts); i++ {
		a, b := pts[i-1], pts[i]
		dLat, dLon := (b.Lat-a.Lat)*rad, (b.Lon-a.Lon)*rad
		h := math.Pow(math.Sin(dLat/2), 2) + math.Cos(a.Lat*rad)*math.Cos(b.Lat*rad)*math.Pow(math.Sin(dLon/2), 2)
		total += 2 * r * math.Asin(math.Sqrt(h))
	}
	return total
}

// decodeFIT decodes with the SDK's decoder, which verifies the header and
// file CRCs, and returns the raw messages and the course view of them.
func decodeFIT(t *testing.T, data []byte) ([]proto.Message, *filedef.Course) {
	t.Helper()
	fit, err := decoder.New(bytes.NewReader(data)).Decode()
	require.NoError(t, err)
	return fit.Messages, filedef.NewCourse(fit.Messages...)
}

func TestWriteTripFIT(t *testing.T) {
	t.Parallel()

	t.Run("a course round-trips through the SDK decoder with every point in order", func(t *testing.T) {
		t.Parallel()
		trip, pts := threeStageTrip(t)
		var buf bytes.Buffer
		require.NoError(t, export.WriteTripFIT(&buf, trip, export.FITOptions{}))
		mesgs, c := decodeFIT(t, buf.Bytes())

		// Message order: file_id, course, lap, timer start, records with
		// course points among them, timer stop.
		nums := make([]typedef.MesgNum, len(mesgs))
		for i, m := range mesgs {
			nums[i] = m.Num
		}
		require.Equal(t, []typedef.MesgNum{typedef.MesgNumFileId, typedef.MesgNumCourse, typedef.MesgNumLap, typedef.MesgNumEvent}, nums[:4])
		require.Equal(t, typedef.MesgNumEvent, nums[len(nums)-1])
		for i, n := range nums[4 : len(nums)-1] {
			require.Contains(t, []typedef.MesgNum{typedef.MesgNumRecord, typedef.MesgNumCoursePoint}, n, "message %d", i+4)
		}
		require.Equal(t, typedef.MesgNumRecord, nums[4], "the first record comes before any course point")

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
		total := haversineOracle(pts)
		require.InDelta(t, total, c.Records[len(c.Records)-1].DistanceScaled(), 1.0)
		require.NotNil(t, c.Lap)
		require.InDelta(t, total, c.Lap.TotalDistanceScaled(), 1.0)
		require.InDelta(t, pts[0].Lat, c.Lap.StartPositionLatDegrees(), 1e-6)
		require.InDelta(t, pts[0].Lon, c.Lap.StartPositionLongDegrees(), 1e-6)
		require.InDelta(t, pts[len(pts)-1].Lat, c.Lap.EndPositionLatDegrees(), 1e-6)
		require.InDelta(t, pts[len(pts)-1].Lon, c.Lap.EndPositionLongDegrees(), 1e-6)
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

	t.Run("POIs become course points of the SDK's course_point types", func(t *testing.T) {
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
			got = append(got, cp{p.Name, p.Type})
		}
		// Course points are ordered by their place along the route.
		require.Equal(t, []cp{
			{"Brunnen", typedef.CoursePointWater},
			{"Bäckerei", typedef.CoursePointFood},
			{"Gipfelkreuz", typedef.CoursePointSummit},
			{"Apotheke", typedef.CoursePointFirstAid},
			{"Aussicht", typedef.CoursePointGeneric},
		}, got)
		// Garmin's profile numbers (DOMAIN §10), not 6, 7, 12 and 2, which the
		// profile defines as left, right, second_category and valley.
		require.Equal(t, typedef.CoursePoint(3), typedef.CoursePointWater)
		require.Equal(t, typedef.CoursePoint(4), typedef.CoursePointFood)
		require.Equal(t, typedef.CoursePoint(9), typedef.CoursePointFirstAid)
		require.Equal(t, typedef.CoursePoint(1), typedef.CoursePointSummit)

		// Brunnen sits on route point 10: its distance is that record's.
		require.InDelta(t, haversineOracle(pts[:11]), c.CoursePoints[0].DistanceScaled(), 0.01)
		require.InDelta(t, pts[10].Lat, c.CoursePoints[0].PositionLatDegrees(), 1e-6)
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
				cum += haversineOracle(pts[i-1 : i+1])
			}
			want := start.Add(time.Duration(cum / speed * float64(time.Second)))
			require.InDelta(t, 0, r.Timestamp.Sub(want).Seconds(), 1.0, "record %d", i)
		}
		end := start.Add(time.Duration(haversineOracle(pts) / speed * float64(time.Second)))
		require.InDelta(t, 0, c.Events[1].Timestamp.Sub(end).Seconds(), 1.0)
		require.InDelta(t, haversineOracle(pts)/speed, c.Lap.TotalElapsedTimeScaled(), 1.0)

		// Timestamped messages after the lap never go back in time.
		var last uint32
		for _, m := range mesgs[3:] {
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

	t.Run("a stage is its own course named by its label", func(t *testing.T) {
		t.Parallel()
		trip, _ := threeStageTrip(t)
		var buf bytes.Buffer
		require.NoError(t, export.WriteStageFIT(&buf, trip, 1, export.FITOptions{}))
		_, c := decodeFIT(t, buf.Bytes())
		require.Equal(t, "Stage 2", c.Course.Name)
		require.Len(t, c.Records, len(trip.Stages[1].Points))
		require.InDelta(t, haversineOracle(trip.Stages[1].Points), c.Records[len(c.Records)-1].DistanceScaled(), 1.0)
		require.Len(t, c.CoursePoints, 2)
	})

	t.Run("long names are cut to 15 bytes on a character boundary", func(t *testing.T) {
		t.Parallel()
		trip, _ := threeStageTrip(t)
		trip.Stages[0].Label = "ÄÄÄÄÄÄÄÄÄÄ" // 2 bytes each: 15 bytes would split the 8th
		trip.Stages[0].POIs[0].Name = "Wasserstelle am Brunnen"
		var buf bytes.Buffer
		require.NoError(t, export.WriteStageFIT(&buf, trip, 0, export.FITOptions{}))
		_, c := decodeFIT(t, buf.Bytes())
		require.Equal(t, "ÄÄÄÄÄÄÄ", c.Course.Name)
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
