package routesvg

import (
	"errors"
	"math"
	"strconv"

	"github.com/roadbook/roadbook/domain/route"
)

// ErrTooShort is a line with fewer than two points or no length: there is
// no profile to draw.
var ErrTooShort = errors.New("routesvg: the line needs at least two distinct points")

// ErrNoElevation is a line whose source gave no elevation: drawing it would
// show a flat 0 m line and lie about the climbing.
var ErrNoElevation = errors.New("routesvg: the line has no elevation")

// Default drawing sizes, in SVG user units (the picture scales to its
// container; these fix the proportions and the text size).
const (
	DefaultWidth   = 800
	DefaultHeight  = 200
	DefaultSamples = 240
)

// ProfileOptions shape one elevation profile. The zero value draws DefaultWidth ×
// DefaultHeight with DefaultSamples points and no marks.
type ProfileOptions struct {
	// Width and Height are the viewBox size in user units.
	Width, Height int
	// Samples bounds the number of profile vertices (the output size does
	// not depend on the input size beyond it).
	Samples int
	// Marks are distances from the start, in metres, where a dashed guide
	// is drawn (day boundaries on a whole-trip profile), labelled with
	// MarkLabels[i] when given.
	Marks      []float64
	MarkLabels []string
	// Title is the accessible name (an SVG <title>); it may be third-party
	// text and is escaped.
	Title string
	// ID prefixes the element ids, so several profiles inlined in one HTML
	// page do not collide. Letters, digits and '-' only.
	ID string
}

// Sample is one vertex of a reduced profile.
type Sample struct {
	// DistanceM is the distance from the first point along the line.
	DistanceM float64
	// EleM is the elevation in metres above sea level.
	EleM float64
}

// Reduce turns a line into at most n samples of (distance, elevation):
// the line is cut into n/2 equal-distance bins and each bin keeps its
// lowest and highest point in their order along the line, so summits and
// valleys survive the reduction (an even stride would skip them). Distances
// are Haversine sums, which is what a profile's x axis needs.
func Reduce(pts []route.Point, n int) ([]Sample, error) {
	if len(pts) < 2 {
		return nil, ErrTooShort
	}
	for _, p := range pts {
		if !p.HasEle {
			return nil, ErrNoElevation
		}
	}
	if n < 4 {
		n = 4
	}
	dist := make([]float64, len(pts))
	for i := 1; i < len(pts); i++ {
		dist[i] = dist[i-1] + route.Haversine(pts[i-1], pts[i])
	}
	total := dist[len(dist)-1]
	if total <= 0 {
		return nil, ErrTooShort
	}
	if len(pts) <= n {
		out := make([]Sample, len(pts))
		for i, p := range pts {
			out[i] = Sample{dist[i], p.Ele}
		}
		return out, nil
	}
	bins := (n - 2) / 2
	out := make([]Sample, 0, n)
	out = append(out, Sample{0, pts[0].Ele})
	i := 1
	last := len(pts) - 1
	for b := range bins {
		end := total * float64(b+1) / float64(bins)
		lo, hi := -1, -1
		for ; i < last && dist[i] <= end; i++ {
			if lo < 0 || pts[i].Ele < pts[lo].Ele {
				lo = i
			}
			if hi < 0 || pts[i].Ele > pts[hi].Ele {
				hi = i
			}
		}
		switch {
		case lo < 0:
		case lo == hi:
			out = append(out, Sample{dist[lo], pts[lo].Ele})
		case lo < hi:
			out = append(out, Sample{dist[lo], pts[lo].Ele}, Sample{dist[hi], pts[hi].Ele})
		default:
			out = append(out, Sample{dist[hi], pts[hi].Ele}, Sample{dist[lo], pts[lo].Ele})
		}
	}
	return append(out, Sample{total, pts[last].Ele}), nil
}

// Profile draws the elevation profile of pts: a filled area under the line,
// the lowest and highest elevation of the axis on the left, the distance at
// the start, middle and end below, and the marks as dashed guides. The
// result is a complete SVG document (with xmlns) that is also valid inline
// in HTML; it carries no script, no external reference and no timestamp.
func Profile(pts []route.Point, opt ProfileOptions) ([]byte, error) {
	opt.defaults()
	samples, err := Reduce(pts, opt.Samples)
	if err != nil {
		return nil, err
	}
	total := samples[len(samples)-1].DistanceM
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range samples {
		lo, hi = math.Min(lo, s.EleM), math.Max(hi, s.EleM)
	}
	// Round the axis outwards to 50 m and give it at least 200 m of range,
	// so a flat day does not look like a mountain stage.
	lo, hi = math.Floor(lo/50)*50, math.Ceil(hi/50)*50
	if hi-lo < 200 {
		mid := math.Round((lo+hi)/2/50) * 50
		if mid-100 < 0 && lo >= 0 {
			mid = 100 // a ride near sea level keeps a 0 m floor
		}
		lo, hi = mid-100, mid+100
	}

	const left, right, top, bottom = 44.0, 6.0, 8.0, 18.0
	w, h := float64(opt.Width), float64(opt.Height)
	pw, ph := w-left-right, h-top-bottom
	x := func(d float64) float64 { return left + d/total*pw }
	y := func(e float64) float64 { return top + (hi-e)/(hi-lo)*ph }

	var b svgWriter
	b.s(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 `).i(opt.Width).s(" ").i(opt.Height).
		s(`" class="profile" role="img" font-family="sans-serif" font-size="12"`)
	if opt.ID != "" {
		b.s(` aria-labelledby="`).s(opt.ID).s(`-t"`)
	}
	b.s(`><title`)
	if opt.ID != "" {
		b.s(` id="`).s(opt.ID).s(`-t"`)
	}
	b.s(`>`).text(opt.Title).s(`</title>`)

	// Axes: baseline and the two elevation labels.
	b.s(`<path d="M`).f(left).s(" ").f(top).s("V").f(top + ph).s("H").f(left + pw).s(`" fill="none" stroke="#999" stroke-width="1"/>`)
	b.s(`<text x="`).f(left - 4).s(`" y="`).f(top + 10).s(`" text-anchor="end" fill="#555">`).i(int(hi)).s(` m</text>`)
	b.s(`<text x="`).f(left - 4).s(`" y="`).f(top + ph).s(`" text-anchor="end" fill="#555">`).i(int(lo)).s(` m</text>`)

	// Marks (day boundaries) under the profile.
	for i, m := range opt.Marks {
		if m <= 0 || m >= total {
			continue
		}
		b.s(`<path d="M`).f(x(m)).s(" ").f(top).s("V").f(top + ph).s(`" stroke="#bbb" stroke-dasharray="3 3" fill="none"/>`)
		if i < len(opt.MarkLabels) && pw*(m-prevMark(opt.Marks, i))/total >= 16 {
			b.s(`<text x="`).f(x(m) - 2).s(`" y="`).f(top + 10).s(`" text-anchor="end" font-size="10" fill="#777">`).text(opt.MarkLabels[i]).s(`</text>`)
		}
	}

	// The area and the line.
	var line svgWriter
	for i, s := range samples {
		if i == 0 {
			line.s("M")
		} else {
			line.s("L")
		}
		line.f(x(s.DistanceM)).s(",").f(y(s.EleM))
	}
	b.s(`<path d="`).s(line.String()).s("V").f(top + ph).s("H").f(left).s(`Z" fill="#cfe3c8" stroke="none"/>`)
	b.s(`<path d="`).s(line.String()).s(`" fill="none" stroke="#2f6b2f" stroke-width="1.5" stroke-linejoin="round"/>`)

	// Distance labels.
	km := func(d float64) string { return strconv.FormatFloat(d/1000, 'f', 0, 64) + " km" }
	b.s(`<text x="`).f(left).s(`" y="`).f(h - 4).s(`" fill="#555">0</text>`)
	b.s(`<text x="`).f(left + pw/2).s(`" y="`).f(h - 4).s(`" text-anchor="middle" fill="#555">`).s(km(total / 2)).s(`</text>`)
	b.s(`<text x="`).f(left + pw).s(`" y="`).f(h - 4).s(`" text-anchor="end" fill="#555">`).s(km(total)).s(`</text>`)
	b.s(`</svg>`)
	return b.Bytes(), nil
}

// prevMark is the mark before i (0 for the first), for label spacing.
func prevMark(marks []float64, i int) float64 {
	if i == 0 {
		return 0
	}
	return marks[i-1]
}

func (o *ProfileOptions) defaults() {
	if o.Width <= 0 {
		o.Width = DefaultWidth
	}
	if o.Height <= 0 {
		o.Height = DefaultHeight
	}
	if o.Samples <= 0 {
		o.Samples = DefaultSamples
	}
	clean := make([]byte, 0, len(o.ID))
	for _, c := range []byte(o.ID) {
		if c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			clean = append(clean, c)
		}
	}
	o.ID = string(clean)
}
