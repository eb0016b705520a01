package pacing

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"math"
	"slices"

	"github.com/roadbook/roadbook/domain/route"
)

// Hash is a SHA-256 content hash. Results are keyed by content, not by version
// (ARCHITECTURE §3). The keys production uses are the trip's
// (trip.Settings.PacingHash, trip.StageContentHash); SettingsHash and
// Stage.ContentHash below are the engine's own, used only by its tests.
type Hash [32]byte

// String is the hash in lower-case hex, as stored in events.
func (h Hash) String() string { return hex.EncodeToString(h[:]) }

// SettingsHash hashes the settings that move the stage split — fatigue
// factor, elevation penalty, km cap, the dates and the rest days — and
// nothing else, so changing the average speed or the e-bike mode does not
// supersede a stages result. Rest days are a set: their order does not count.
func SettingsHash(s Settings) Hash {
	h := sha256.New()
	h.Write([]byte("roadbook/pacing/settings/v1\x00"))
	writeFloat(h, s.FatigueFactor)
	writeFloat(h, s.ElevationPenalty)
	writeFloat(h, s.MaxDistancePerDayKm)
	writeString(h, dateString(s.StartDate))
	writeString(h, dateString(s.EndDate))
	rest := slices.Clone(s.RestDays)
	slices.Sort(rest)
	rest = slices.Compact(rest)
	writeUint(h, uint64(len(rest)))
	for _, d := range rest {
		writeUint(h, uint64(int64(d)))
	}
	return sum(h)
}

// ContentHash hashes what a stage's analysis depends on: its geometry, its
// date, whether it is a rest day, and the settings the alerts read (average
// speed and departure hour for the rider time, e-bike mode). An analysis
// result carries it so that it lands only on the stage it was computed for.
// Accommodation types are not pacing settings; a caller that keys
// accommodation results must add them to its own key.
func (st Stage) ContentHash(s Settings) Hash {
	h := sha256.New()
	h.Write([]byte("roadbook/pacing/stage/v1\x00"))
	writeString(h, dateString(st.Date))
	if st.RestDay {
		writeUint(h, 1)
	} else {
		writeUint(h, 0)
	}
	writeFloat(h, s.AverageSpeedKmh)
	writeUint(h, uint64(int64(s.DepartureHour)))
	if s.EbikeMode {
		writeUint(h, 1)
	} else {
		writeUint(h, 0)
	}
	pts := st.Geometry
	if st.RestDay {
		pts = []route.Point{st.End}
	}
	writeUint(h, uint64(len(pts)))
	for _, p := range pts {
		writeFloat(h, p.Lat)
		writeFloat(h, p.Lon)
		writeFloat(h, p.Ele)
		if p.HasEle {
			writeUint(h, 1)
		} else {
			writeUint(h, 0)
		}
	}
	return sum(h)
}

// writeFloat writes the IEEE-754 bits, little-endian: exact, so two equal
// plans hash equal and any moved point changes the hash.
func writeFloat(h hash.Hash, f float64) { writeUint(h, math.Float64bits(f)) }

// writeUint writes v as 8 little-endian bytes.
func writeUint(h hash.Hash, v uint64) {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], v)
	h.Write(b[:])
}

// writeString writes a length-prefixed string, so adjacent fields cannot run
// into each other.
func writeString(h hash.Hash, s string) {
	writeUint(h, uint64(len(s)))
	h.Write([]byte(s))
}

// sum finishes h into a Hash.
func sum(h hash.Hash) Hash {
	var out Hash
	copy(out[:], h.Sum(nil))
	return out
}
