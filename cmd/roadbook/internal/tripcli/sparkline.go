package tripcli

import (
	"math"
	"strings"
)

// sparkBlocks are the eight unicode block heights of a sparkline.
var sparkBlocks = []rune("▁▂▃▄▅▆▇█")

// sparkline draws elevations as width block characters between lo and hi
// (metres), so every stage of a trip shares one vertical scale and a climb
// looks the same size wherever it is. Each column is the highest point of
// its slice of the profile (a summit never disappears between samples).
// Fewer points than width give one column per point.
func sparkline(elevations []float32, width int, lo, hi float64) string {
	if len(elevations) == 0 || width < 1 {
		return ""
	}
	if len(elevations) < width {
		width = len(elevations)
	}
	var b strings.Builder
	for col := range width {
		from := col * len(elevations) / width
		to := max((col+1)*len(elevations)/width, from+1)
		top := math.Inf(-1)
		for _, e := range elevations[from:to] {
			top = math.Max(top, float64(e))
		}
		b.WriteRune(sparkBlocks[level(top, lo, hi)])
	}
	return b.String()
}

// level is the block index of v on the scale lo..hi (a flat scale draws
// the lowest block).
func level(v, lo, hi float64) int {
	if hi <= lo {
		return 0
	}
	i := int(math.Round((v - lo) / (hi - lo) * float64(len(sparkBlocks)-1)))
	return min(max(i, 0), len(sparkBlocks)-1)
}

// elevationRange is the lowest and highest of every profile.
func elevationRange(profiles [][]float32) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, p := range profiles {
		for _, e := range p {
			lo, hi = math.Min(lo, float64(e)), math.Max(hi, float64(e))
		}
	}
	if math.IsInf(lo, 1) {
		return 0, 0
	}
	return lo, hi
}
