package export

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"time"

	"github.com/muktihari/fit/encoder"
	"github.com/muktihari/fit/kit/datetime"
	"github.com/muktihari/fit/profile/mesgdef"
	"github.com/muktihari/fit/profile/typedef"
	"github.com/muktihari/fit/proto"

	"github.com/roadbook/roadbook/domain/route"
)

// FITNameMaxBytes is the longest course name (and course point name) a FIT
// course carries: Garmin devices keep 16 bytes for it, NUL included, and
// cut or refuse longer names.
const FITNameMaxBytes = 15

// FITDefaultSpeedKmh is the speed used for record timestamps when
// FITOptions.SpeedKmh is zero: the default averageSpeed of DOMAIN §1.
const FITDefaultSpeedKmh = 15.0

// FITFixedStart is the departure time written when FITOptions.Start is zero.
// FIT requires a timestamp on every record, but a share link must not leak
// when anyone planned or rode, so undated exports all start at this same
// arbitrary instant (2000-01-01 08:00 UTC) and stay byte-identical.
var FITFixedStart = time.Date(2000, time.January, 1, 8, 0, 0, 0, time.UTC)

// FITOptions sets how the timestamps FIT requires are derived. They never
// come from the uploaded file: record i is stamped Start + (distance to
// record i) / speed, whole seconds, so a device's virtual partner rides at
// the planned average speed.
type FITOptions struct {
	// Start is the planned departure (e.g. the stage date at the departure
	// hour); zero means FITFixedStart. It must not be before the FIT epoch
	// (1989-12-31 UTC).
	Start time.Time
	// SpeedKmh is the rider's average speed; zero means FITDefaultSpeedKmh.
	SpeedKmh float64
}

// WriteTripFIT writes the whole trip as one FIT course (file type 6) named
// after the trip: all riding days joined without repeating their cut points,
// one lap per riding day, and every day's marks as course points of FIT's
// own types — segment_end at each day's end, water, food (cafés), store
// (food shops), campsite or shelter where to sleep, summit (the day's
// highest point), first_aid… (see coursePointType). At most
// FITMaxCoursePoints of them, by priority: a long trip keeps every day's end
// first, then the rider's waypoints, the nights chosen, water spread over the
// whole trip, and so on (fitBudget; the GPX export has them all).
func WriteTripFIT(w io.Writer, t Trip, opts FITOptions) error {
	if err := t.validate(); err != nil {
		return err
	}
	return writeFIT(w, tripCourse(t), opts)
}

// WriteStageFIT writes the stage at position i (0-based) as its own FIT
// course with one lap, named "D3 Otta" (the day and where it ends).
func WriteStageFIT(w io.Writer, t Trip, i int, opts FITOptions) error {
	if err := t.validate(); err != nil {
		return err
	}
	c, err := stageCourse(t, i)
	if err != nil {
		return err
	}
	if len(c.days) == 1 {
		c.name = c.days[0].fitName
	}
	return writeFIT(w, c, opts)
}

// writeFIT encodes the course in the message order Garmin's own course files
// and devices expect: file_id, course, the laps (one per day, up front as
// in a single-lap course), event (timer start), records with course points
// placed among them by timestamp (FIT wants timestamped messages in
// ascending order), event (timer stop).
func writeFIT(w io.Writer, c course, opts FITOptions) error {
	start, speedMS, err := opts.resolve()
	if err != nil {
		return err
	}
	if len(c.points) == 0 {
		return ErrNoPoints
	}

	cum := cumulativeLength(c.points)
	c = fitBudget(c, cum, FITMaxCoursePoints)
	at := func(distM float64) time.Time {
		return start.Add(time.Duration(math.Round(distM/speedMS)) * time.Second)
	}
	end := at(cum[len(cum)-1])
	name := fitName(c.name)
	if name == "" {
		name = "Roadbook"
	}

	marks := 0
	for _, d := range c.days {
		marks += len(d.marks)
	}
	mesgs := make([]proto.Message, 0, len(c.points)+marks+len(c.days)+4)
	mesgs = append(mesgs,
		mesgdef.NewFileId(nil).
			SetType(typedef.FileCourse).
			SetManufacturer(typedef.ManufacturerDevelopment).
			SetProduct(0).
			SetSerialNumber(courseSerial(name, c.points)).
			SetTimeCreated(start).
			ToMesg(nil),
		mesgdef.NewCourse(nil).
			SetName(name).
			SetSport(typedef.SportCycling).
			ToMesg(nil),
	)
	for i, d := range c.days {
		first, last := c.points[d.first], c.points[d.last]
		from, to := at(cum[d.first]), at(cum[d.last])
		lap := mesgdef.NewLap(nil).
			SetMessageIndex(typedef.MessageIndex(i)).
			SetTimestamp(to).
			SetStartTime(from).
			SetStartPositionLat(semicircles(first.Lat)).
			SetStartPositionLong(semicircles(first.Lon)).
			SetEndPositionLat(semicircles(last.Lat)).
			SetEndPositionLong(semicircles(last.Lon)).
			SetTotalDistance(centimetres(cum[d.last] - cum[d.first])).
			SetTotalElapsedTime(uint32(to.Sub(from).Milliseconds())).
			SetTotalTimerTime(uint32(to.Sub(from).Milliseconds()))
		if d.eleKnown {
			lap.SetTotalAscent(clampUint16(d.ascentM)).SetTotalDescent(clampUint16(d.descentM))
		}
		mesgs = append(mesgs, lap.ToMesg(nil))
	}
	mesgs = append(mesgs, mesgdef.NewEvent(nil).
		SetTimestamp(start).
		SetEvent(typedef.EventTimer).
		SetEventType(typedef.EventTypeStart).
		SetEventGroup(0).
		ToMesg(nil))

	// pointsAt[i] are the course points whose nearest route point is i.
	pointsAt := make(map[int][]mark, marks)
	for _, d := range c.days {
		for _, m := range d.marks {
			pointsAt[m.at] = append(pointsAt[m.at], m)
		}
	}
	for i, p := range c.points {
		rec := mesgdef.NewRecord(nil).
			SetTimestamp(at(cum[i])).
			SetPositionLat(semicircles(p.Lat)).
			SetPositionLong(semicircles(p.Lon)).
			SetDistance(centimetres(cum[i]))
		if p.HasEle {
			rec.SetAltitude(fitAltitude(p.Ele))
		}
		mesgs = append(mesgs, rec.ToMesg(nil))
		for _, m := range pointsAt[i] {
			if m.fit == "" {
				m.fit = fitName(m.name)
			}
			mesgs = append(mesgs, mesgdef.NewCoursePoint(nil).
				SetTimestamp(at(cum[i])).
				SetPositionLat(semicircles(m.lat)).
				SetPositionLong(semicircles(m.lon)).
				SetDistance(centimetres(cum[i])).
				SetType(m.cp).
				SetName(m.fit).
				ToMesg(nil))
		}
	}
	mesgs = append(mesgs, mesgdef.NewEvent(nil).
		SetTimestamp(end).
		SetEvent(typedef.EventTimer).
		SetEventType(typedef.EventTypeStopDisableAll).
		SetEventGroup(0).
		ToMesg(nil))

	if err := encoder.New(w).Encode(&proto.FIT{Messages: mesgs}); err != nil {
		return fmt.Errorf("export: encode FIT course: %w", err)
	}
	return nil
}

// resolve applies the defaults and checks the options.
func (o FITOptions) resolve() (start time.Time, speedMS float64, err error) {
	start, speed := o.Start, o.SpeedKmh
	if start.IsZero() {
		start = FITFixedStart
	}
	if start.Before(datetime.Epoch()) {
		return time.Time{}, 0, &InputError{Field: "fit_options.start", Problem: fmt.Sprintf("%s is before the FIT epoch %s", start.UTC().Format(time.RFC3339), datetime.Epoch().Format(time.RFC3339))}
	}
	if speed == 0 {
		speed = FITDefaultSpeedKmh
	}
	if math.IsNaN(speed) || math.IsInf(speed, 0) || speed <= 0 {
		return time.Time{}, 0, &InputError{Field: "fit_options.speed_kmh", Problem: fmt.Sprintf("%v is not a finite speed > 0", speed)}
	}
	return start.UTC().Truncate(time.Second), speed / 3.6, nil
}

// coursePointType maps a POI kind to the FIT profile's course_point enum
// (typedef.CoursePoint: generic 0, summit 1, water 3, food 4, first_aid 9,
// campsite 27, shelter 36, overlook 38, toilet 39, store 48).
func coursePointType(k POIKind) typedef.CoursePoint {
	switch k {
	case POIFood:
		return typedef.CoursePointFood
	case POIWater:
		return typedef.CoursePointWater
	case POIStore:
		return typedef.CoursePointStore
	case POIFirstAid:
		return typedef.CoursePointFirstAid
	case POISummit:
		return typedef.CoursePointSummit
	case POICampsite:
		return typedef.CoursePointCampsite
	case POIShelter:
		return typedef.CoursePointShelter
	case POIToilet:
		return typedef.CoursePointToilet
	case POIViewpoint:
		return typedef.CoursePointOverlook
	default:
		return typedef.CoursePointGeneric
	}
}

// lodgingCoursePoint is campsite for a camp site and shelter for every
// roofed place to sleep (FIT has no hotel type).
func lodgingCoursePoint(typ string) typedef.CoursePoint {
	if typ == "camp_site" {
		return typedef.CoursePointCampsite
	}
	return typedef.CoursePointShelter
}

// fitName is third-party text made fit for a FIT name field: one clean line,
// at most FITNameMaxBytes bytes, cut on a character boundary.
func fitName(s string) string {
	return truncateUTF8(cleanText(s), FITNameMaxBytes)
}

// cumulativeLength is the distance from the first point to each point, by
// Vincenty like every stage length, so a course's total distance is the
// trip's (or the day's) distance as every other view states it (route.Totals)
// rather than a Haversine figure up to 0.5 % apart.
func cumulativeLength(pts []route.Point) []float64 {
	cum := make([]float64, len(pts))
	for i := 1; i < len(pts); i++ {
		cum[i] = cum[i-1] + route.Vincenty(pts[i-1], pts[i])
	}
	return cum
}

// semicircles converts degrees to FIT semicircles (2^31 per 180°), rounded
// to the nearest unit (≈ 8 mm) rather than truncated, and +180° clamped into
// int32.
func semicircles(deg float64) int32 {
	v := math.Round(deg * (1 << 31) / 180)
	return int32(math.Max(math.MinInt32, math.Min(math.MaxInt32, v)))
}

// centimetres is a distance in the FIT scale (×100, uint32), rounded.
func centimetres(m float64) uint32 {
	return uint32(math.Min(math.Round(m*100), math.MaxUint32-1))
}

// fitAltitude is the raw FIT altitude (ele + 500) × 5, rounded and clamped to
// the representable range (-500 m to 12 606.8 m); the SDK's scaled setter
// truncates and wraps below -500 m instead.
func fitAltitude(ele float64) uint16 {
	raw := math.Round((ele + 500) * 5)
	return uint16(math.Max(0, math.Min(math.MaxUint16-1, raw)))
}

func clampUint16(v float64) uint16 {
	return uint16(math.Max(0, math.Min(math.MaxUint16-1, math.Round(v))))
}

// courseSerial is a serial number derived from the course's name and
// geometry. Devices and Garmin Connect tell files apart by file_id; with
// fixed timestamps two different courses would otherwise collide, while the
// same course exported twice stays identical.
func courseSerial(name string, pts []route.Point) uint32 {
	h := fnv.New32a()
	h.Write([]byte(name))
	var buf [8]byte
	for _, p := range pts {
		binary.LittleEndian.PutUint32(buf[:4], uint32(semicircles(p.Lat)))
		binary.LittleEndian.PutUint32(buf[4:], uint32(semicircles(p.Lon)))
		h.Write(buf[:])
	}
	if s := h.Sum32(); s != 0 {
		return s
	}
	return 1 // 0 is the invalid value of a uint32z field
}
