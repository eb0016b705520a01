package trip

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math"

	"github.com/roadbook/roadbook/domain/route"
)

// StageContentHash is the hex SHA-256 of what a stage's analysis depends on:
// its kind, end points, geometry, date, and the settings that change results
// (average speed, departure hour, e-bike mode; for the effort model also the
// climbing, daily hours, fatigue, rest-day rhythm and cap). Results name the hash they
// were computed for, so a result for content the trip no longer has is
// superseded instead of applied. Coordinates enter at the event encoding's
// precision, so the hash survives a round trip through an event.
func StageContentHash(st Stage, s Settings) string {
	// The bytes are gathered first and hashed in one Write: the digest is
	// the same stream of bytes as writing them one by one, at half the cost
	// (a 30-stage edit hashes every stage's geometry, bench-api's write
	// phase; docs/BENCHMARKS.md).
	b := make([]byte, 0, 64+len(st.Geometry)*32+len(st.GeometryBlobHash))
	putInt := func(v int64) { b = binary.BigEndian.AppendUint64(b, uint64(v)) }
	putPoint := func(p route.Point) {
		putInt(int64(math.Round(p.Lat * 1e6)))
		putInt(int64(math.Round(p.Lon * 1e6)))
		if p.HasEle {
			putInt(1)
			putInt(int64(math.Round(p.Ele * 10)))
		} else {
			putInt(0)
		}
	}
	b = append(b, "stage/v1"...)
	if st.RestDay {
		putInt(1)
	} else {
		putInt(0)
	}
	putPoint(st.Start)
	putPoint(st.End)
	putInt(int64(len(st.Geometry)))
	for _, p := range st.Geometry {
		putPoint(p)
	}
	b = append(b, st.GeometryBlobHash...)
	b = append(b, "|"+st.Date.String()+"|"...)
	putInt(int64(math.Round(s.AverageSpeedKmH * 1000)))
	putInt(int64(s.DepartureHour))
	if s.EbikeMode {
		putInt(1)
	} else {
		putInt(0)
	}
	if s.Engine >= EngineCurrent {
		// The effort model's alerts also read the rider's climbing, daily
		// hours, fatigue, rest-day rhythm and cap. Engine-1 trips keep
		// the hash their analyses were recorded for.
		b = append(b, "|effort/v2|"...)
		for _, v := range []float64{s.ElevationPenaltyM, s.DailyRidingHours, s.FatigueFactor, s.MaxDistancePerDayKm} {
			putInt(int64(math.Round(v * 1000)))
		}
		putInt(int64(s.RestDayEvery))
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// normalize renumbers the stages, dates them from the start date (rest days
// count as days) and recomputes their content hashes. Analysis results
// recorded for another content are dropped (the changed stages are analysed
// again); labels and candidate accommodations, which depend on places rather
// than dates, stay until a new result replaces them. Decide and Evolve both
// call it, so they always agree on the derived fields.
func normalize(s *State) {
	for i := range s.Stages {
		st := &s.Stages[i]
		st.Index = i
		st.Date = s.Settings.StartDate.AddDays(i)
		h := StageContentHash(*st, s.Settings)
		if h != st.ContentHash {
			st.ContentHash = h
			st.Alerts, st.Families, st.FamilyReasons, st.Analyzed = nil, nil, nil, false
			st.Resupply, st.Weather = nil, nil
		}
		settleDetours(st)
	}
}

// followEndDate moves the end date with the number of days after a stage
// edit, when the trip has both dates: an inserted day shifts it, a deleted
// one pulls it in (DOMAIN §4). With only a start date it stays unset, so a
// later re-pacing still derives the number of days from the distance.
func followEndDate(s *State) {
	if !s.Settings.StartDate.IsZero() && !s.Settings.EndDate.IsZero() && len(s.Stages) >= MinStages {
		s.Settings.EndDate = s.Settings.StartDate.AddDays(len(s.Stages) - 1)
	}
}
