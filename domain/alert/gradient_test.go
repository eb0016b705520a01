package alert

import (
	"fmt"
	"testing"

	"github.com/roadbook/roadbook/domain/route"
	"github.com/stretchr/testify/require"
)

// profile builds a northbound track from lyon with 0.001° latitude steps
// (≈ 111 m each by Vincenty) and the given rise per step; a NaN-free "no
// elevation" step is marked by noEle.
func profile(rises []float64, noEle map[int]bool) []route.Point {
	p := route.Point{Lat: lyon.Lat, Lon: lyon.Lon, Ele: 200, HasEle: true}
	pts := []route.Point{p}
	for i, r := range rises {
		p.Lat += 0.001
		p.Ele += r
		p.HasEle = !noEle[i+1]
		pts = append(pts, p)
	}
	return pts
}

func TestSteepRuns(t *testing.T) {
	t.Parallel()
	step := route.Vincenty(route.Point{Lat: lyon.Lat, Lon: lyon.Lon}, route.Point{Lat: lyon.Lat + 0.001, Lon: lyon.Lon})
	// Segment lengths vary by millimetres with latitude, so the threshold is
	// probed just above and just below 8 % rather than at float equality.
	above8, below8 := 0.0801*step, 0.0799*step
	cases := []struct {
		name      string
		rises     []float64
		noEle     map[int]bool
		wantRuns  [][2]int // from, to point indexes
		wantMeans []float64
	}{
		{"flat ground has no steep run", []float64{0, 0, 0, 0, 0, 0}, nil, nil, nil},
		{"four steep segments (~445 m) are too short", []float64{0, 10, 10, 10, 10, 0}, nil, nil, nil},
		{"five steep segments (~556 m) make one run with its mean", []float64{0, 10, 12, 10, 10, 10, 0}, nil,
			[][2]int{{1, 6}}, []float64{52 / (5 * step) * 100}},
		{"just above 8 % counts as steep", []float64{above8, above8, above8, above8, above8}, nil,
			[][2]int{{0, 5}}, []float64{8.01}},
		{"just below 8 % does not", []float64{below8, below8, below8, below8, below8}, nil, nil, nil},
		{"a gentler segment splits two runs", []float64{10, 10, 10, 10, 10, 5, 10, 10, 10, 10, 10}, nil,
			[][2]int{{0, 5}, {6, 11}}, []float64{50 / (5 * step) * 100, 50 / (5 * step) * 100}},
		{"a steep descent is not a steep climb", []float64{-10, -10, -10, -10, -10, -10}, nil, nil, nil},
		{"a point without elevation breaks the run", []float64{10, 10, 10, 10, 10, 10}, map[int]bool{3: true}, nil, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			runs := SteepRuns(profile(c.rises, c.noEle))
			require.Len(t, runs, len(c.wantRuns))
			for i, r := range runs {
				require.Equal(t, c.wantRuns[i], [2]int{r.From, r.To})
				require.InDelta(t, c.wantMeans[i], r.MeanGradientPct(), 1e-3)
				require.GreaterOrEqual(t, r.LengthM, 500.0)
			}
		})
	}
	t.Run("a duplicated point inside a climb neither breaks nor lengthens it", func(t *testing.T) {
		t.Parallel()
		pts := profile([]float64{10, 10, 10, 10, 10}, nil)
		pts = append(pts[:3], append([]route.Point{pts[2]}, pts[3:]...)...)
		runs := SteepRuns(pts)
		require.Len(t, runs, 1)
		require.Equal(t, [2]int{0, 6}, [2]int{runs[0].From, runs[0].To})
		require.InDelta(t, 5*step, runs[0].LengthM, 0.01)
	})
}

func TestSteepGradientAlerts(t *testing.T) {
	t.Parallel()
	s := riding(4, lyon, lyon, 5, 200)
	s.Points = profile([]float64{0, 10, 10, 10, 10, 10, 0, 0, 10, 10, 10, 10, 10, 10}, nil)
	as := steepGradients(s)
	require.Equal(t, []Code{CodeSteepGradient, CodeSteepGradient}, codes(as))
	require.Equal(t, s.Points[1].Lat, as[0].Lat, "the first alert is at the foot of the first climb")
	require.Equal(t, s.Points[8].Lat, as[1].Lat)
	for _, a := range as {
		require.Equal(t, 4, a.StageIndex)
		require.Equal(t, SeverityWarning, a.Severity)
		require.Greater(t, a.Value, 8.0)
	}
	// The first run is five steps of ≈ 111 m rising 10 m each: the message
	// says the rise in metres up and the length in km, never a length as
	// "a … m climb".
	run := SteepRuns(s.Points)[0]
	require.Equal(t, fmt.Sprintf("Stage 5 has a steep climb: %.0f m up over %.1f km, %.1f %% on average.",
		run.RiseM, run.LengthM/1000, run.MeanGradientPct()), as[0].Message)
	require.Contains(t, as[0].Message, "50 m up over 0.6 km")
}
