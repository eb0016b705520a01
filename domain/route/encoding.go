package route

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
)

// The point encoding stores a route compactly and canonically, so that equal
// routes have equal bytes and ContentHash can address stored routes:
//
//	byte 0      'R'  (magic)
//	byte 1      encodingVersion
//	byte 2      flags: flagEle (elevations follow each point),
//	            flagEleMask (a presence bitmap follows the count)
//	uvarint     point count
//	[bitmap]    ceil(count/8) bytes, bit i set when point i has an elevation
//	per point   zig-zag varint deltas from the previous point of
//	            lat and lon in units of 1e-7° and, with flagEle, ele in
//	            decimetres (the first point is a delta from 0)
//
// 1e-7° is at most 5.6 mm on the ground after rounding and 1 dm is below any
// GPS or DEM elevation accuracy; a route of consecutive points a few metres
// apart costs about 5–7 bytes a point instead of 32 in memory.
const (
	encodingMagic   = 'R'
	encodingVersion = 1

	flagEle     = 1 << 0
	flagEleMask = 1 << 1

	coordScale = 1e7
	eleScale   = 10

	// MaxEncodedPoints bounds the count DecodePoints accepts, so a forged
	// header cannot make it allocate without limit. Ten million points is
	// far beyond any route a 30 MiB GPX file can hold.
	MaxEncodedPoints = 10_000_000
)

// EncodePoints encodes pts in the compact, canonical binary form described
// above. Coordinates are rounded to 1e-7° and elevations to 0.1 m; a point's
// Ele is kept only when HasEle is set. Inputs outside the ranges the readers
// enforce (lat ±90, lon ±180, ele −1000..10000 m, NaN) are clamped, since the
// readers never produce them and encoding must not fail.
func EncodePoints(pts []Point) []byte {
	var flags byte
	withEle := 0
	for i := range pts {
		if pts[i].HasEle {
			withEle++
		}
	}
	if withEle > 0 {
		flags |= flagEle
		if withEle < len(pts) {
			flags |= flagEleMask
		}
	}
	out := make([]byte, 0, 3+binary.MaxVarintLen64+len(pts)*8)
	out = append(out, encodingMagic, encodingVersion, flags)
	out = binary.AppendUvarint(out, uint64(len(pts)))
	if flags&flagEleMask != 0 {
		mask := make([]byte, (len(pts)+7)/8)
		for i := range pts {
			if pts[i].HasEle {
				mask[i/8] |= 1 << (i % 8)
			}
		}
		out = append(out, mask...)
	}
	var pLat, pLon, pEle int64
	for i := range pts {
		lat := quantize(pts[i].Lat, -90, 90, coordScale)
		lon := quantize(pts[i].Lon, -180, 180, coordScale)
		out = binary.AppendVarint(out, lat-pLat)
		out = binary.AppendVarint(out, lon-pLon)
		pLat, pLon = lat, lon
		if flags&flagEle != 0 {
			ele := int64(0)
			if pts[i].HasEle {
				ele = quantize(pts[i].Ele, minEleM, maxEleM, eleScale)
			}
			out = binary.AppendVarint(out, ele-pEle)
			pEle = ele
		}
	}
	return out
}

// quantize clamps v to [lo, hi] (NaN to 0) and rounds it to integer units.
func quantize(v, lo, hi, scale float64) int64 {
	switch {
	case math.IsNaN(v):
		v = 0
	case v < lo:
		v = lo
	case v > hi:
		v = hi
	}
	return int64(math.Round(v * scale))
}

// DecodePoints decodes bytes written by EncodePoints. It refuses, with a
// *ReadError of kind ErrCorruptEncoding, a wrong magic or version, a count
// larger than MaxEncodedPoints or than the bytes could hold, truncated data,
// trailing bytes and coordinates that leave the valid ranges — so garbage
// can neither crash it nor make it allocate much more than its input.
func DecodePoints(b []byte) ([]Point, error) {
	if len(b) < 4 {
		return nil, corrupt("%d bytes is shorter than the header", len(b))
	}
	if b[0] != encodingMagic {
		return nil, corrupt("bad magic byte 0x%02x", b[0])
	}
	if b[1] != encodingVersion {
		return nil, corrupt("unknown version %d", b[1])
	}
	flags := b[2]
	if flags&^(flagEle|flagEleMask) != 0 || (flags&flagEleMask != 0 && flags&flagEle == 0) {
		return nil, corrupt("unknown flags 0x%02x", flags)
	}
	count, n := binary.Uvarint(b[3:])
	if n <= 0 {
		return nil, corrupt("bad point count")
	}
	rest := b[3+n:]
	perPoint := uint64(2)
	if flags&flagEle != 0 {
		perPoint = 3
	}
	if count > MaxEncodedPoints || count*perPoint > uint64(len(rest)) {
		return nil, corrupt("point count %d does not fit in %d bytes", count, len(rest))
	}
	var mask []byte
	if flags&flagEleMask != 0 {
		ml := (int(count) + 7) / 8
		if ml > len(rest) {
			return nil, corrupt("truncated elevation bitmap")
		}
		mask, rest = rest[:ml], rest[ml:]
	}
	pts := make([]Point, count)
	var lat, lon, ele int64
	for i := range pts {
		var err error
		if lat, rest, err = nextDelta(lat, rest, i, "latitude"); err != nil {
			return nil, err
		}
		if lon, rest, err = nextDelta(lon, rest, i, "longitude"); err != nil {
			return nil, err
		}
		if lat < -90*coordScale || lat > 90*coordScale || lon < -180*coordScale || lon > 180*coordScale {
			return nil, corrupt("point %d is out of range", i)
		}
		pts[i].Lat = float64(lat) / coordScale
		pts[i].Lon = float64(lon) / coordScale
		if flags&flagEle == 0 {
			continue
		}
		if ele, rest, err = nextDelta(ele, rest, i, "elevation"); err != nil {
			return nil, err
		}
		if ele < minEleM*eleScale || ele > maxEleM*eleScale {
			return nil, corrupt("point %d elevation is out of range", i)
		}
		if mask == nil || mask[i/8]&(1<<(i%8)) != 0 {
			pts[i].Ele, pts[i].HasEle = float64(ele)/eleScale, true
		}
	}
	if len(rest) != 0 {
		return nil, corrupt("%d trailing bytes", len(rest))
	}
	return pts, nil
}

func nextDelta(prev int64, b []byte, i int, what string) (int64, []byte, error) {
	d, n := binary.Varint(b)
	if n <= 0 {
		return 0, nil, corrupt("point %d %s is truncated", i, what)
	}
	if d > 1<<40 || d < -(1<<40) {
		return 0, nil, corrupt("point %d %s delta is out of range", i, what)
	}
	return prev + d, b[n:], nil
}

func corrupt(format string, args ...any) error {
	return &ReadError{Format: "points", Reason: fmt.Sprintf(format, args...), Kind: ErrCorruptEncoding}
}

// ContentHash is the SHA-256 of an encoding from EncodePoints. Stored routes
// are addressed by it: the encoding is canonical, so the same route imported
// twice (or by two trips) is stored once.
func ContentHash(encoded []byte) [32]byte { return sha256.Sum256(encoded) }
